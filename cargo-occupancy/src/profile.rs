//! `cargo occupancy profile`: theoretical occupancy (the engine) beside what Nsight Compute
//! measured for each launch (achieved occupancy), with the grid's ceiling and the gap split
//! into the grid's part and the dynamic remainder.
//!
//! Input: Nsight Compute's CSV export with the LaunchStats and Occupancy sections, as
//! `ncu --section LaunchStats --section Occupancy --csv ./app` prints it (the program's own
//! output interleaved: only lines starting with `"` are read) or `ncu --import
//! report.ncu-rep --csv` writes it; plain or gzip-compressed (`.gz`). One row per metric per
//! launch; a launch is keyed by (Process ID, ID). Or `-- <command>`: runs the command under
//! `ncu` (when it is on the PATH) and imports what it printed.
//!
//! For each launch the engine gets the launch as ncu reports it: block, grid, registers per
//! thread (ncu's, at least 16: [`reported_registers_per_thread`]), static and dynamic shared
//! memory, the compute capability and the SM count. Its block limits are compared with
//! ncu's: registers, warps and blocks directly; shared memory at the configuration ncu
//! reports the driver chose ("Shared Memory Configuration Size",
//! [`Occupancy::shared_memory_limit_at`]); and the engine's own prediction of that
//! configuration ([`launch_carveout_bytes`], sm_90 only) is compared with it too. Every
//! disagreement is printed. A configuration other than the predicted one, with the same
//! occupancy and block limits, is a note (a carveout preference the program or a library
//! set, which the CSV does not carry), not a disagreement. What ncu's CSV does not carry is assumed: one block barrier (no
//! named barriers) and the default carveout preference.
//!
//! Exit status: 0 when the engine and ncu agree on every launch; 1 when they disagree on
//! one (or a launch cannot be modelled: unknown compute capability); 2 when it cannot run
//! (no such file, no launches in it, no ncu on the PATH, the command failed).

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io::Read as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Args;
use occupancy_core::analysis;
use occupancy_core::arch::{Arch, ComputeCapability};
use occupancy_core::occupancy::{
    BlockDim, Kernel, Launch, Occupancy, launch_carveout_bytes, occupancy,
    reported_registers_per_thread,
};
use serde_json::{Value as Json, json};

use crate::report;

/// Arguments of `profile`.
#[derive(Args, Debug)]
pub struct ProfileArgs {
    /// Nsight Compute's CSV export (LaunchStats and Occupancy sections), plain or `.gz`.
    #[arg(long, value_name = "FILE.csv", conflicts_with = "command")]
    pub import: Option<PathBuf>,
    /// The crate whose `#[occupancy::check]` wrappers name the kernels (default: the current
    /// folder, when it has a Cargo.toml).
    #[arg(long = "crate", value_name = "PATH")]
    pub crate_dir: Option<PathBuf>,
    /// Print JSON instead of a table.
    #[arg(long)]
    pub json: bool,
    /// The program to profile under ncu, after `--`.
    #[arg(last = true, value_name = "COMMAND")]
    pub command: Vec<String>,
}

/// Runs `profile`: prints the table (or JSON) and returns the exit status.
pub fn run(args: &ProfileArgs) -> ExitCode {
    match profile(args) {
        Ok((text, agree)) => {
            if let Err(code) = crate::output::print(&text) {
                return code;
            }
            if agree {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            }
        }
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::from(2)
        }
    }
}

fn profile(args: &ProfileArgs) -> Result<(String, bool), String> {
    let text = match (&args.import, args.command.is_empty()) {
        (Some(path), _) => read_export(path)?,
        (None, false) => run_under_ncu(&args.command)?,
        (None, true) => {
            return Err("give --import FILE.csv (an ncu CSV export) or -- <command>".into());
        }
    };
    let launches = parse(&text)?;
    if launches.is_empty() {
        return Err(
            "no launches in the export (was it made with --section LaunchStats --section Occupancy --csv?)"
                .into(),
        );
    }
    let wrappers = wrappers(args.crate_dir.as_deref())?;
    let rows: Vec<Row> = launches.iter().map(|l| Row::new(l, &wrappers)).collect();
    let agree = rows.iter().all(|r| r.disagreements.is_empty());
    let text = if args.json {
        let mut s =
            serde_json::to_string_pretty(&Json::Array(rows.iter().map(Row::to_json).collect()))
                .unwrap_or_default();
        s.push('\n');
        s
    } else {
        table(&rows)
    };
    Ok((text, agree))
}

/// The export's text; `.gz` files are decompressed. Capped at 1 GiB (compressed and
/// decompressed); a directory, FIFO or device is refused before it is opened.
fn read_export(path: &Path) -> Result<String, String> {
    const MAX_BYTES: u64 = 1 << 30;
    let raw = occupancy_core::file::read(path, "Nsight Compute export", MAX_BYTES)
        .map_err(|e| e.to_string())?;
    let gz = path.extension().is_some_and(|e| e == "gz");
    let bytes = if gz {
        let mut bytes = Vec::new();
        flate2::read::GzDecoder::new(raw.as_slice())
            .take(MAX_BYTES + 1)
            .read_to_end(&mut bytes)
            .map_err(|e| format!("{}: {e}", path.display()))?;
        bytes
    } else {
        raw
    };
    if bytes.len() as u64 > MAX_BYTES {
        return Err(format!("{}: more than 1 GiB", path.display()));
    }
    String::from_utf8(bytes).map_err(|_| format!("{}: not UTF-8 text", path.display()))
}

/// Runs `command` under `ncu --section LaunchStats --section Occupancy --csv`, its output
/// left on the terminal, ncu's CSV in a temporary file (`--log-file`), and returns the CSV.
fn run_under_ncu(command: &[String]) -> Result<String, String> {
    let ncu = find_on_path("ncu").ok_or(
        "ncu is not on the PATH: install Nsight Compute, or export elsewhere with `ncu --section \
         LaunchStats --section Occupancy --csv ./app > app.csv` and use --import app.csv",
    )?;
    let log = std::env::temp_dir().join(format!(
        "cargo-occupancy-profile-{}-{}.csv",
        std::process::id(),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos())
    ));
    let status = std::process::Command::new(&ncu)
        .args([
            "--section",
            "LaunchStats",
            "--section",
            "Occupancy",
            "--csv",
            "--log-file",
        ])
        .arg(&log)
        .args(command)
        .status()
        .map_err(|e| format!("{}: {e}", ncu.display()))?;
    let text = read_export(&log);
    let _ = std::fs::remove_file(&log);
    if !status.success() {
        return Err(format!("ncu {}: {status}", command.join(" ")));
    }
    text
}

fn find_on_path(name: &str) -> Option<PathBuf> {
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|dir| dir.join(name))
        .find(|p| p.is_file())
}

/// One launch as ncu reported it: its key columns and its metrics (name -> value as text).
#[derive(Debug)]
struct NcuLaunch {
    process: String,
    id: String,
    kernel: String,
    block: String,
    grid: String,
    cc: String,
    metrics: BTreeMap<String, String>,
    /// Some sizes were printed in Kbyte / Mbyte (rounded): not exact.
    scaled: bool,
}

/// The columns `parse` needs.
const COLUMNS: [&str; 9] = [
    "ID",
    "Process ID",
    "Kernel Name",
    "Block Size",
    "Grid Size",
    "CC",
    "Metric Name",
    "Metric Value",
    "Metric Unit",
];

/// The scale of an SI-prefixed byte unit (`Kbyte`, `Mbyte/block`) to bytes; 1 for others.
/// `ncu --import report.ncu-rep --csv` prints sizes so unless given `--print-units base`.
fn unit_scale(unit: &str) -> f64 {
    match unit.split('/').next().unwrap_or("") {
        "Kbyte" => 1e3,
        "Mbyte" => 1e6,
        "Gbyte" => 1e9,
        "KB" => 1024.0,
        _ => 1.0,
    }
}

/// The launches of an export, in the order they first appear.
fn parse(text: &str) -> Result<Vec<NcuLaunch>, String> {
    // ncu's messages and the program's output are interleaved with the CSV.
    let csv_text: String = text
        .lines()
        .filter(|l| l.starts_with('"'))
        .flat_map(|l| [l, "\n"])
        .collect();
    let mut reader = csv::ReaderBuilder::new()
        .flexible(true)
        .has_headers(false)
        .from_reader(csv_text.as_bytes());
    let mut index: Option<[usize; 9]> = None;
    let mut launches: Vec<NcuLaunch> = Vec::new();
    let mut by_key: BTreeMap<(String, String), usize> = BTreeMap::new();
    for (line, record) in reader.records().enumerate() {
        let record = record.map_err(|e| format!("CSV record {}: {e}", line + 1))?;
        if record.get(0) == Some("ID") {
            let mut found = [0; 9];
            for (slot, name) in found.iter_mut().zip(COLUMNS) {
                *slot = record
                    .iter()
                    .position(|h| h == name)
                    .ok_or_else(|| format!("the CSV header has no `{name}` column"))?;
            }
            index = Some(found);
            continue;
        }
        let Some(ix) = index else {
            return Err("the CSV has no header row (\"ID\",\"Process ID\",...)".into());
        };
        let field = |i: usize| record.get(ix[i]).unwrap_or("").to_owned();
        let key = (field(1), field(0));
        let at = *by_key.entry(key).or_insert_with(|| {
            launches.push(NcuLaunch {
                process: field(1),
                id: field(0),
                kernel: field(2),
                block: field(3),
                grid: field(4),
                cc: field(5),
                metrics: BTreeMap::new(),
                scaled: false,
            });
            launches.len() - 1
        });
        let metric = field(6);
        // Rows without a metric name are rule results.
        if !metric.is_empty() {
            let scale = unit_scale(&field(8));
            let value = match (scale != 1.0, number(&field(7))) {
                (true, Some(v)) => {
                    launches[at].scaled = true;
                    format!("{}", (v * scale).round())
                }
                _ => field(7),
            };
            launches[at].metrics.insert(metric, value);
        }
    }
    Ok(launches)
}

/// `"1,056"` -> 1056.0, `"92.81"` -> 92.81.
fn number(text: &str) -> Option<f64> {
    text.replace(',', "").trim().parse().ok()
}

/// `"1,056"` -> 1056: ncu's IDs and process IDs, integers.
fn integer(text: &str) -> Option<u64> {
    text.replace(',', "").trim().parse().ok()
}

/// `"(256, 1, 1)"` -> [256, 1, 1].
fn dims(text: &str) -> Option<[u32; 3]> {
    let inner = text.trim().strip_prefix('(')?.strip_suffix(')')?;
    let v: Vec<u32> = inner
        .split(',')
        .map(|d| d.trim().parse().ok())
        .collect::<Option<_>>()?;
    match v.as_slice() {
        [x, y, z] => Some([*x, *y, *z]),
        _ => None,
    }
}

/// The four block limits the issue compares: registers, shared memory, warps, blocks.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Limits {
    registers: Option<u32>,
    shared_memory: Option<u32>,
    warps: Option<u32>,
    blocks: Option<u32>,
}

impl Limits {
    fn to_json(self) -> Json {
        json!({
            "registers": self.registers,
            "shared_memory": self.shared_memory,
            "warps": self.warps,
            "blocks": self.blocks,
        })
    }
}

/// One launch's comparison.
struct Row {
    process: String,
    id: String,
    kernel: String,
    block: String,
    grid: String,
    grid_blocks: Option<u64>,
    registers_per_thread: Option<u32>,
    static_smem: Option<u32>,
    dynamic_smem: Option<u32>,
    wrappers: Vec<String>,
    /// The engine: theoretical occupancy (percent), limits, predicted configuration, waves
    /// per SM, grid ceiling (percent).
    theoretical: Option<f64>,
    limits: Limits,
    config_predicted: Option<u32>,
    waves: Option<f64>,
    ceiling: Option<f64>,
    /// ncu's.
    ncu_theoretical: Option<f64>,
    ncu_limits: Limits,
    ncu_config: Option<u32>,
    ncu_waves: Option<f64>,
    achieved: Option<f64>,
    disagreements: Vec<String>,
    notes: Vec<String>,
}

/// Percent rounded to two decimals, as ncu prints it (ties to even: 15.625 -> 15.62).
fn pct(x: f64) -> f64 {
    (x * 100.0).round_ties_even() / 100.0
}

/// A limit as ncu prints it: the engine's UNLIMITED (resource not used) has no ncu
/// counterpart; ncu prints its own ceiling there, so it is kept as is for comparison.
fn limit(v: u32) -> Option<u32> {
    Some(v)
}

impl Row {
    fn new(l: &NcuLaunch, wrappers: &[report::KernelWrapper]) -> Row {
        let m = |name: &str| l.metrics.get(name).and_then(|v| number(v));
        let u = |name: &str| {
            m(name).and_then(|v| {
                if v >= 0.0 && v <= f64::from(u32::MAX) {
                    Some(v as u32)
                } else {
                    None
                }
            })
        };
        let block = dims(&l.block);
        let grid = dims(&l.grid);
        let grid_blocks = grid.map(|g| g.iter().map(|&d| u64::from(d)).product());
        let mut row = Row {
            process: l.process.clone(),
            id: l.id.clone(),
            kernel: l.kernel.clone(),
            block: l.block.clone(),
            grid: l.grid.clone(),
            grid_blocks,
            registers_per_thread: u("Registers Per Thread"),
            static_smem: u("Static Shared Memory Per Block"),
            dynamic_smem: u("Dynamic Shared Memory Per Block"),
            wrappers: Vec::new(),
            theoretical: None,
            limits: Limits {
                registers: None,
                shared_memory: None,
                warps: None,
                blocks: None,
            },
            config_predicted: None,
            waves: None,
            ceiling: None,
            ncu_theoretical: m("Theoretical Occupancy"),
            ncu_limits: Limits {
                registers: u("Block Limit Registers"),
                shared_memory: u("Block Limit Shared Mem"),
                warps: u("Block Limit Warps"),
                blocks: u("Block Limit SM"),
            },
            ncu_config: u("Shared Memory Configuration Size"),
            ncu_waves: m("Waves Per SM"),
            achieved: m("Achieved Occupancy"),
            disagreements: Vec::new(),
            notes: Vec::new(),
        };
        if l.scaled {
            row.notes.push(
                "ncu printed sizes in Kbyte, rounded to 10 bytes: export with `--print-units base` for exact values"
                    .into(),
            );
        }
        let arch = parse_cc(&l.cc).and_then(Arch::from_cc);
        for w in wrappers
            .iter()
            .filter(|w| same_kernel(&w.kernel, &l.kernel))
        {
            row.wrappers.push(format!("{} ({})", w.wrapper, w.location));
            if let (Some(ncu_regs), Some((_, regs))) = (
                row.registers_per_thread,
                w.registers.iter().find(|(cc, _)| *cc == l.cc),
            ) {
                let reported = reported_registers_per_thread(*regs);
                if reported != ncu_regs {
                    row.disagreements.push(format!(
                        "registers per thread: the kernel of {} has {regs} (its cubin), which ncu would report as \
                         {reported}; ncu reports {ncu_regs} (a different build of the kernel?)",
                        w.wrapper
                    ));
                }
            }
        }
        let Some(arch) = arch else {
            row.disagreements.push(if l.cc.trim().is_empty() {
                "the export gives no compute capability for this launch".to_owned()
            } else {
                format!("compute capability `{}` is not in the engine's table", l.cc)
            });
            return row;
        };
        let Some(block) = block else {
            row.disagreements.push(if l.block.trim().is_empty() {
                "the export gives no block size for this launch".to_owned()
            } else {
                format!("the export's block size `{}` is not three counts", l.block)
            });
            return row;
        };
        let Some(regs) = row.registers_per_thread else {
            row.disagreements
                .push(match l.metrics.get("Registers Per Thread") {
                    None => "the export gives no `Registers Per Thread` for this launch".to_owned(),
                    Some(v) => format!("the export's `Registers Per Thread` is `{v}`, not a count"),
                });
            return row;
        };
        let static_smem = row.static_smem.unwrap_or(0);
        let dynamic_smem = row.dynamic_smem.unwrap_or(0);
        if let Some(reserved) = u("Driver Shared Memory Per Block")
            && reserved != arch.reserved_smem_per_block_bytes
        {
            row.disagreements.push(format!(
                "reserved shared memory per block: engine {} B, ncu {reserved} B",
                arch.reserved_smem_per_block_bytes
            ));
        }
        let mut kernel = Kernel::new(regs).with_static_smem(static_smem);
        // A launch with more than the default per-block shared memory opted in.
        if u64::from(static_smem) + u64::from(dynamic_smem)
            > u64::from(arch.smem_per_block_default_bytes)
        {
            kernel = kernel.with_opt_in(dynamic_smem);
        }
        let launch = Launch::new(BlockDim::new(block[0], block[1], block[2]))
            .with_dynamic_smem(dynamic_smem);
        let occ = match occupancy(arch, &kernel, &launch) {
            Ok(occ) => occ,
            Err(e) => {
                row.disagreements
                    .push(format!("the engine refuses the launch: {e}"));
                return row;
            }
        };
        row.theoretical = Some(occ.percent());
        row.config_predicted = launch_carveout_bytes(arch, &kernel, &launch).ok().flatten();
        let at_config = row.ncu_config.map(|c| occ.shared_memory_limit_at(c));
        row.limits = Limits {
            registers: limit(occ.limits.registers),
            shared_memory: at_config.or(Some(occ.limits.shared_memory)),
            warps: limit(occ.limits.warps),
            blocks: limit(occ.limits.blocks),
        };
        if row.ncu_config.is_none() {
            row.notes.push("no Shared Memory Configuration Size: the shared-memory limit is at the largest carveout".into());
        }
        row.compare(&occ, m("# SMs"));
        row
    }

    fn compare(&mut self, occ: &Occupancy, sms: Option<f64>) {
        let d = &mut self.disagreements;
        if let (Some(e), Some(n)) = (self.theoretical, self.ncu_theoretical)
            && (pct(e) - n).abs() > 0.005
        {
            d.push(format!(
                "theoretical occupancy: engine {}%, ncu {n}%",
                pct(e)
            ));
        }
        for (name, e, n) in [
            (
                "registers",
                self.limits.registers,
                self.ncu_limits.registers,
            ),
            (
                "shared memory",
                self.limits.shared_memory,
                self.ncu_limits.shared_memory,
            ),
            ("warps", self.limits.warps, self.ncu_limits.warps),
            ("blocks", self.limits.blocks, self.ncu_limits.blocks),
        ] {
            if let (Some(e), Some(n)) = (e, n)
                && e != n
            {
                d.push(format!("block limit {name}: engine {e}, ncu {n}"));
            }
        }
        // Another configuration than the default carveout gives, with the same occupancy and
        // block limits: the program (or a library: cuDNN) set a carveout preference, which
        // the CSV does not carry. Not a disagreement; one in the occupancy or a limit is.
        if let (Some(e), Some(n)) = (self.config_predicted, self.ncu_config)
            && e != n
        {
            let what = format!(
                "shared memory configuration the driver chose: engine predicts {} (the default \
                 carveout), ncu reports {}",
                kib(e),
                kib(n)
            );
            if d.is_empty() {
                let size = if n > e {
                    "a larger configuration than needed"
                } else {
                    "a smaller configuration"
                };
                self.notes.push(format!(
                    "{what}: {size}, with the same occupancy and block limits: the carveout \
                     preference the program or a library set (cudaFuncAttributePreferredSharedMemoryCarveout) \
                     chooses it, and ncu's CSV does not carry it; under the default preference \
                     it is the engine's prediction that is off"
                ));
            } else {
                d.push(what);
            }
        }
        let (Some(sms), Some(grid)) = (sms, self.grid_blocks) else {
            return;
        };
        let sms = sms as u32;
        if let Some(w) = analysis::waves(occ, sms, grid) {
            self.waves = Some(w.waves());
        }
        self.ceiling = analysis::grid_ceiling(occ, sms, grid).map(|c| c * 100.0);
        if let (Some(e), Some(n)) = (self.waves, self.ncu_waves)
            && (pct(e) - n).abs() > 0.005
        {
            self.disagreements
                .push(format!("waves per SM: engine {:.2}, ncu {n}", e));
        }
    }

    fn to_json(&self) -> Json {
        json!({
            "id": integer(&self.id),
            "process_id": integer(&self.process),
            "kernel": self.kernel,
            "wrappers": self.wrappers,
            "block": dims(&self.block),
            "grid": dims(&self.grid),
            "registers_per_thread": self.registers_per_thread,
            "static_smem_bytes": self.static_smem,
            "dynamic_smem_bytes": self.dynamic_smem,
            "theoretical_occupancy": self.theoretical.map(pct),
            "ncu_theoretical_occupancy": self.ncu_theoretical,
            "achieved_occupancy": self.achieved,
            "grid_ceiling_occupancy": self.ceiling.map(pct),
            "waves_per_sm": self.waves.map(pct),
            "limits": self.limits.to_json(),
            "ncu_limits": self.ncu_limits.to_json(),
            "smem_config_bytes": self.config_predicted,
            "ncu_smem_config_bytes": self.ncu_config,
            "disagreements": self.disagreements,
            "notes": self.notes,
        })
    }
}

fn parse_cc(text: &str) -> Option<ComputeCapability> {
    let (major, minor) = text.trim().split_once('.')?;
    Some(ComputeCapability::new(
        major.parse().ok()?,
        minor.parse().ok()?,
    ))
}

/// Whether a wrapper's `kernel = "name"` is ncu's kernel: the same name, or the same base
/// name of a demangled C++ signature (`void ns::k<4>(float*, int)` is `k`).
fn same_kernel(wrapper_kernel: &str, ncu_kernel: &str) -> bool {
    wrapper_kernel == ncu_kernel || base_name(wrapper_kernel) == base_name(ncu_kernel)
}

fn base_name(name: &str) -> &str {
    let before_args = name.split('(').next().unwrap_or(name);
    // Template arguments: cut at the first '<' of the last path segment.
    let no_template = before_args.split('<').next().unwrap_or(before_args);
    let last = no_template.rsplit("::").next().unwrap_or(no_template);
    last.rsplit(' ').next().unwrap_or(last).trim()
}

fn wrappers(crate_dir: Option<&Path>) -> Result<Vec<report::KernelWrapper>, String> {
    match crate_dir {
        Some(dir) => report::kernel_wrappers(dir),
        None if Path::new("Cargo.toml").is_file() => {
            Ok(report::kernel_wrappers(Path::new(".")).unwrap_or_default())
        }
        None => Ok(Vec::new()),
    }
}

fn kib(bytes: u32) -> String {
    if bytes.is_multiple_of(1024) {
        format!("{} KiB", bytes / 1024)
    } else {
        format!("{bytes} B")
    }
}

fn opt<T: std::fmt::Display>(v: Option<T>) -> String {
    v.map_or_else(|| "-".to_owned(), |v| v.to_string())
}

fn opt_pct(v: Option<f64>) -> String {
    v.map_or_else(|| "-".to_owned(), |v| format!("{}%", pct(v)))
}

fn table(rows: &[Row]) -> String {
    let mut s = String::new();
    for r in rows {
        let _ = writeln!(
            s,
            "launch {} (process {}): {}, grid {}, block {}, {} regs/thread, {} B static + {} B dynamic shared memory",
            r.id,
            r.process,
            r.kernel,
            r.grid,
            r.block,
            opt(r.registers_per_thread),
            opt(r.static_smem),
            opt(r.dynamic_smem),
        );
        for w in &r.wrappers {
            let _ = writeln!(s, "  wrapper                    {w}");
        }
        let _ = writeln!(s, "                             engine      ncu");
        let mut line = |what: &str, e: String, n: String, mark: &str| {
            let _ = writeln!(s, "  {what:<26} {e:<11} {n}{mark}");
        };
        let mark = |differs: bool| if differs { "  <- differs" } else { "" };
        let differs = |a: Option<f64>, b: Option<f64>| matches!((a, b), (Some(a), Some(b)) if (pct(a) - b).abs() > 0.005);
        line(
            "theoretical occupancy",
            opt_pct(r.theoretical),
            opt_pct(r.ncu_theoretical),
            mark(differs(r.theoretical, r.ncu_theoretical)),
        );
        for (what, e, n) in [
            (
                "block limit registers",
                r.limits.registers,
                r.ncu_limits.registers,
            ),
            (
                "block limit shared memory",
                r.limits.shared_memory,
                r.ncu_limits.shared_memory,
            ),
            ("block limit warps", r.limits.warps, r.ncu_limits.warps),
            ("block limit blocks", r.limits.blocks, r.ncu_limits.blocks),
        ] {
            line(
                what,
                opt(e),
                opt(n),
                mark(matches!((e, n), (Some(e), Some(n)) if e != n)),
            );
        }
        // Another configuration with everything else equal is a note (a carveout preference).
        let config_differs =
            matches!((r.config_predicted, r.ncu_config), (Some(e), Some(n)) if e != n);
        line(
            "shared memory config",
            r.config_predicted.map_or_else(|| "-".to_owned(), kib),
            r.ncu_config.map_or_else(|| "-".to_owned(), kib),
            match (config_differs, r.disagreements.is_empty()) {
                (true, true) => "  <- a carveout preference (note)",
                (true, false) => "  <- differs",
                (false, _) => "",
            },
        );
        line(
            "waves per SM",
            r.waves
                .map_or_else(|| "-".to_owned(), |w| format!("{w:.2}")),
            opt(r.ncu_waves),
            mark(differs(r.waves, r.ncu_waves)),
        );
        line("achieved occupancy", String::new(), opt_pct(r.achieved), "");
        line("grid ceiling", opt_pct(r.ceiling), String::new(), "");
        if let (Some(t), Some(c), Some(a)) = (r.theoretical, r.ceiling, r.achieved) {
            let _ = writeln!(
                s,
                "  gap {:.2} points: {:.2} from the grid, {:.2} dynamic (memory, dependencies, divergence, imbalance)",
                t - a,
                t - c,
                c - a
            );
        }
        for d in &r.disagreements {
            let _ = writeln!(s, "  disagreement: {d}");
        }
        for n in &r.notes {
            let _ = writeln!(s, "  note: {n}");
        }
        s.push('\n');
    }
    let disagreeing = rows.iter().filter(|r| !r.disagreements.is_empty()).count();
    let _ = writeln!(
        s,
        "{} launch{}; {}",
        rows.len(),
        if rows.len() == 1 { "" } else { "es" },
        if disagreeing == 0 {
            "the engine agrees with ncu on every one".to_owned()
        } else {
            format!("the engine disagrees with ncu on {disagreeing}")
        }
    );
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_values_and_names() {
        assert_eq!(number("1,056"), Some(1056.0));
        assert_eq!(number("92.81"), Some(92.81));
        assert_eq!(number("PolicySpread"), None);
        assert_eq!(dims("(256, 1, 1)"), Some([256, 1, 1]));
        assert_eq!(dims("(16, 16)"), None);
        assert_eq!(
            base_name("void at::native::reduce_kernel<512, 1>(float*, int)"),
            "reduce_kernel"
        );
        assert_eq!(base_name("saxpy"), "saxpy");
        assert!(same_kernel(
            "reduce_kernel",
            "void at::native::reduce_kernel<512, 1>(float*, int)"
        ));
        assert!(!same_kernel("saxpy", "vector_add"));
    }

    #[test]
    fn a_header_is_required_and_rule_rows_are_skipped() {
        assert!(parse("\"0\",\"1\"\n").is_err());
        let text = "==PROF== Connected\n\
            \"ID\",\"Process ID\",\"Kernel Name\",\"Block Size\",\"Grid Size\",\"CC\",\"Metric Name\",\"Metric Unit\",\"Metric Value\",\"Rule Name\"\n\
            program output\n\
            \"0\",\"7\",\"k, with a comma\",\"(32, 1, 1)\",\"(1, 1, 1)\",\"9.0\",\"Block Limit SM\",\"block\",\"32\",\n\
            \"0\",\"7\",\"k, with a comma\",\"(32, 1, 1)\",\"(1, 1, 1)\",\"9.0\",\"\",\"\",\"\",\"SomeRule\"\n\
            \"1\",\"7\",\"k, with a comma\",\"(64, 1, 1)\",\"(1, 1, 1)\",\"9.0\",\"Grid Size\",\"\",\"1,056\",\n";
        let launches = parse(text).unwrap();
        assert_eq!(launches.len(), 2);
        assert_eq!(launches[0].kernel, "k, with a comma");
        assert_eq!(launches[0].metrics.len(), 1);
        assert_eq!(launches[1].metrics["Grid Size"], "1,056");
    }
}
