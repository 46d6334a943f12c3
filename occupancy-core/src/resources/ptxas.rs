//! `ptxas -v` output: standalone ptxas, `nvcc -Xptxas -v`, and NVRTC program logs
//! (`-Xptxas=-v`), CUDA 11.8 to 13.x (§8.1 of the notes).
//!
//! ```text
//! ptxas info    : Compiling entry function 'k_call' for 'sm_80'
//! ptxas info    : Function properties for k_call
//!     128 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
//! ptxas info    : Used 32 registers, used 1 barriers, 128 bytes cumulative stack size, 364 bytes cmem[0]
//! ```
//!
//! NVRTC prefixes the properties line with `ptxas         .` instead of spaces; CUDA 11 prints
//! no `used N barriers` and no `cumulative stack size`; sm_90+ logs omit `cmem[0]`. Every
//! field is read on its own, so their order and presence may vary.

use super::{KernelResources, Origin, ResourceError, Result, SmTarget};

/// One entry function of a ptxas log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PtxasEntry {
    /// The mangled (or `extern "C"`) name.
    pub name: String,
    /// The architecture it was compiled for.
    pub arch: SmTarget,
    /// "Used N registers".
    pub registers: u32,
    /// "used N barriers" (CUDA 12+).
    pub barriers: Option<u32>,
    /// "N bytes smem" (0 when absent).
    pub smem_bytes: u32,
    /// "N bytes stack frame".
    pub stack_frame_bytes: u32,
    /// "N bytes spill stores".
    pub spill_store_bytes: u32,
    /// "N bytes spill loads".
    pub spill_load_bytes: u32,
    /// "N bytes cumulative stack size" (CUDA 12+, printed only when non-zero).
    pub cumulative_stack_bytes: Option<u32>,
    /// "N bytes cmem\[B\]" on the `Used` line: `(bank, bytes)`.
    pub cmem: Vec<(u32, u32)>,
}

impl PtxasEntry {
    /// As [`KernelResources`] (no launch bounds, clusters or parameter sizes in a log).
    pub fn to_resources(&self) -> KernelResources {
        KernelResources {
            name: self.name.clone(),
            demangled: super::demangle(&self.name),
            arch: self.arch,
            toolkit: None,
            origin: Origin::PtxasLog,
            registers_per_thread: self.registers,
            static_smem_bytes: self.smem_bytes,
            local_bytes: self.stack_frame_bytes,
            cumulative_stack_bytes: self.cumulative_stack_bytes,
            spill_store_bytes: Some(self.spill_store_bytes),
            spill_load_bytes: Some(self.spill_load_bytes),
            barriers: self.barriers,
            max_threads: None,
            required_threads: None,
            min_blocks_per_sm: None,
            max_registers: None,
            cluster_dims: None,
            max_cluster_rank: None,
            const_bank0_bytes: self
                .cmem
                .iter()
                .find(|(bank, _)| *bank == 0)
                .map(|&(_, b)| b),
            param_bytes: None,
        }
    }
}

/// A partly read entry.
struct Pending {
    registers: Option<u32>,
    entry: PtxasEntry,
}

/// Parses a log. Entries without a `Used N registers` line (device functions) are left out.
/// Errors on an entry whose architecture cannot be read, or a log with no entry at all.
pub fn parse(text: &str) -> Result<Vec<PtxasEntry>> {
    let mut out = Vec::new();
    let mut current: Option<Pending> = None;
    // "Function properties for X" names whose properties line follows (entries or not).
    let mut properties_for: Option<String> = None;
    for (lineno, line) in text.lines().enumerate() {
        if let Some(rest) = after(line, "Compiling entry function '") {
            finish(&mut current, &mut out);
            let (name, rest) = rest.split_once('\'').ok_or_else(|| bad(lineno, line))?;
            let arch = rest
                .split('\'')
                .nth(1)
                .ok_or_else(|| bad(lineno, line))
                .and_then(|a| {
                    SmTarget::parse(a)
                        .map_err(|e| e.context(format!("ptxas log line {}", lineno + 1)))
                })?;
            current = Some(Pending {
                registers: None,
                entry: PtxasEntry {
                    name: name.to_string(),
                    arch,
                    registers: 0,
                    barriers: None,
                    smem_bytes: 0,
                    stack_frame_bytes: 0,
                    spill_store_bytes: 0,
                    spill_load_bytes: 0,
                    cumulative_stack_bytes: None,
                    cmem: Vec::new(),
                },
            });
            properties_for = None;
            continue;
        }
        if let Some(rest) = after(line, "Function properties for ") {
            properties_for = Some(rest.trim().to_string());
            continue;
        }
        if line.contains("bytes stack frame") {
            let is_current = match (&current, &properties_for) {
                (Some(p), Some(f)) => *f == p.entry.name,
                _ => false,
            };
            if is_current && let Some(p) = current.as_mut() {
                for (value, what) in fields(line) {
                    match what {
                        "stack frame" => p.entry.stack_frame_bytes = value,
                        "spill stores" => p.entry.spill_store_bytes = value,
                        "spill loads" => p.entry.spill_load_bytes = value,
                        _ => {}
                    }
                }
            }
            properties_for = None;
            continue;
        }
        if let Some(rest) = after(line, "Used ") {
            let Some(p) = current.as_mut() else { continue };
            let (n, _) = rest
                .split_once(" registers")
                .ok_or_else(|| bad(lineno, line))?;
            p.registers = Some(n.trim().parse().map_err(|_| bad(lineno, line))?);
            for part in rest.split(',') {
                let part = part.trim();
                if let Some(n) = part
                    .strip_prefix("used ")
                    .and_then(|r| r.strip_suffix(" barriers"))
                {
                    p.entry.barriers = Some(n.trim().parse().map_err(|_| bad(lineno, line))?);
                } else if let Some(n) = part.strip_suffix(" bytes smem") {
                    p.entry.smem_bytes = n.trim().parse().map_err(|_| bad(lineno, line))?;
                } else if let Some(n) = part.strip_suffix(" bytes cumulative stack size") {
                    p.entry.cumulative_stack_bytes =
                        Some(n.trim().parse().map_err(|_| bad(lineno, line))?);
                } else if let Some((n, bank)) = part.split_once(" bytes cmem[") {
                    let bank = bank.trim_end_matches(']');
                    if let (Ok(n), Ok(bank)) = (n.trim().parse(), bank.parse()) {
                        p.entry.cmem.push((bank, n));
                    }
                }
            }
        }
    }
    finish(&mut current, &mut out);
    if out.is_empty() {
        return Err(ResourceError::new(
            "ptxas log: no entry function with a `Used N registers` line (was ptxas run with -v?)",
        ));
    }
    Ok(out)
}

fn finish(current: &mut Option<Pending>, out: &mut Vec<PtxasEntry>) {
    if let Some(p) = current.take()
        && let Some(registers) = p.registers
    {
        out.push(PtxasEntry {
            registers,
            ..p.entry
        });
    }
}

/// The text after `marker` in `line`.
fn after<'a>(line: &'a str, marker: &str) -> Option<&'a str> {
    line.find(marker).map(|i| &line[i + marker.len()..])
}

/// `N bytes WHAT` pairs of a comma-separated properties line.
fn fields(line: &str) -> impl Iterator<Item = (u32, &str)> {
    line.split(',').filter_map(|part| {
        let part = part
            .trim()
            .trim_start_matches("ptxas")
            .trim_start_matches([' ', '.']);
        let (n, what) = part.split_once(" bytes ")?;
        Some((n.trim().parse().ok()?, what.trim()))
    })
}

fn bad(lineno: usize, line: &str) -> ResourceError {
    ResourceError::new(format!(
        "ptxas log line {}: cannot read `{}`",
        lineno + 1,
        line.trim()
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_standalone_and_nvrtc_formats() {
        let log = "\
ptxas info    : 512 bytes gmem, 256 bytes cmem[3], 8 bytes cmem[4]
ptxas info    : Compiling entry function 'k_call' for 'sm_80'
ptxas info    : Function properties for k_call
    128 bytes stack frame, 4 bytes spill stores, 8 bytes spill loads
ptxas info    : Used 32 registers, used 2 barriers, 128 bytes cumulative stack size, 364 bytes cmem[0], 8 bytes cmem[2]
ptxas info    : Compile time = 11.038 ms
ptxas info    : Function properties for _Z6helperPfi
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Compiling entry function 'k2' for 'sm_90a'
ptxas info    : Function properties for k2
ptxas         .     192 bytes stack frame, 352 bytes spill stores, 380 bytes spill loads
ptxas info    : Used 16 registers, 4360 bytes smem
";
        let e = parse(log).unwrap();
        assert_eq!(e.len(), 2);
        assert_eq!(
            (
                e[0].registers,
                e[0].barriers,
                e[0].stack_frame_bytes,
                e[0].spill_store_bytes,
                e[0].spill_load_bytes
            ),
            (32, Some(2), 128, 4, 8)
        );
        assert_eq!(e[0].cumulative_stack_bytes, Some(128));
        assert_eq!(e[0].cmem, vec![(0, 364), (2, 8)]);
        assert_eq!(e[1].arch.to_string(), "sm_90a");
        assert_eq!(
            (e[1].registers, e[1].smem_bytes, e[1].barriers),
            (16, 4360, None)
        );
        assert_eq!(
            (
                e[1].stack_frame_bytes,
                e[1].spill_store_bytes,
                e[1].spill_load_bytes
            ),
            (192, 352, 380)
        );
    }

    #[test]
    fn rejects_logs_without_entries_and_bad_numbers() {
        assert!(parse("ptxas info    : 0 bytes gmem\n").is_err());
        let e = parse("ptxas info    : Compiling entry function 'k' for 'sm_80'\nptxas info    : Used x registers\n")
            .unwrap_err();
        assert!(e.message().contains("line 2"), "{e}");
        let e = parse("ptxas info    : Compiling entry function 'k' for 'gfx90'\n").unwrap_err();
        assert!(e.message().contains("not a GPU architecture"), "{e}");
    }
}
