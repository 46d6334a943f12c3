//! PTX performance directives of each `.entry` (PTX ISA, "Performance-Tuning Directives"):
//! `.maxntid`, `.reqntid`, `.minnctapersm`, `.maxnreg`, `.reqnctapercluster`,
//! `.maxclusterrank`. `.minnctapersm` (the second `__launch_bounds__` argument) is stored
//! nowhere else: ptxas folds it into a register cap and drops it (§5.5 of the notes).

use super::{ResourceError, Result, SmTarget};

/// One `.entry` of a PTX module.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct PtxEntry {
    /// The entry name (mangled for C++).
    pub name: String,
    /// `.maxntid x, y, z` (missing dimensions are 1).
    pub max_threads: Option<[u32; 3]>,
    /// `.reqntid x, y, z`.
    pub required_threads: Option<[u32; 3]>,
    /// `.minnctapersm n`.
    pub min_blocks_per_sm: Option<u32>,
    /// `.maxnreg n`.
    pub max_registers: Option<u32>,
    /// `.reqnctapercluster x, y, z`.
    pub cluster_dims: Option<[u32; 3]>,
    /// `.maxclusterrank n`.
    pub max_cluster_rank: Option<u32>,
}

/// A PTX module: its `.target` and entries.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct PtxModule {
    /// `.target sm_XX` (the virtual architecture), when present.
    pub target: Option<SmTarget>,
    /// `.version` (PTX ISA), as written.
    pub version: Option<String>,
    /// Every `.entry`, in order.
    pub entries: Vec<PtxEntry>,
}

impl PtxModule {
    /// The entry with this (mangled) name.
    pub fn entry(&self, name: &str) -> Option<&PtxEntry> {
        self.entries.iter().find(|e| e.name == name)
    }
}

/// Reads the directives. PTX is not validated beyond what is read; a directive with a value
/// that is not a number is an error naming the line.
pub fn parse(text: &str) -> Result<PtxModule> {
    let mut module = PtxModule::default();
    // Directives sit between `.entry name(...)` and the body's `{`.
    let mut in_header = false;
    for (lineno, raw) in text.lines().enumerate() {
        let line = raw.split("//").next().unwrap_or("").trim();
        let bad =
            |what: &str| ResourceError::new(format!("PTX line {}: {what}: `{line}`", lineno + 1));
        let mut words = line.split_whitespace();
        let Some(first) = words.next() else { continue };
        match first {
            ".version" => module.version = words.next().map(str::to_string),
            ".target" => {
                let t = words.next().map(|w| w.trim_end_matches(',')).unwrap_or("");
                module.target = Some(
                    SmTarget::parse(t)
                        .map_err(|e| e.context(format!("PTX line {}", lineno + 1)))?,
                );
            }
            _ => {}
        }
        let entry_pos = line.split_whitespace().position(|w| w == ".entry");
        if let Some(pos) = entry_pos {
            let name_word = line
                .split_whitespace()
                .nth(pos + 1)
                .ok_or_else(|| bad("`.entry` without a name"))?;
            let name = name_word.split('(').next().unwrap_or(name_word);
            module.entries.push(PtxEntry {
                name: name.to_string(),
                ..PtxEntry::default()
            });
            in_header = true;
        }
        if !in_header {
            continue;
        }
        let Some(entry) = module.entries.last_mut() else {
            continue;
        };
        // Several directives may share a line: `.maxntid 256, 1, 1 .minnctapersm 2`.
        let mut rest = line;
        while let Some(i) = rest.find('.') {
            rest = &rest[i..];
            let directive: String = rest
                .chars()
                .take_while(|c| *c == '.' || c.is_ascii_alphanumeric())
                .collect();
            let args_text = &rest[directive.len()..];
            let end = args_text.find(['.', '{', '(']).unwrap_or(args_text.len());
            let args: Vec<&str> = args_text[..end]
                .split(',')
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .collect();
            let numbers = || -> Result<Vec<u32>> {
                args.iter()
                    .map(|a| {
                        a.parse::<u32>()
                            .map_err(|_| bad(&format!("`{directive}` takes numbers")))
                    })
                    .collect()
            };
            let dims = || -> Result<[u32; 3]> {
                let n = numbers()?;
                if n.is_empty() || n.len() > 3 {
                    return Err(bad(&format!("`{directive}` takes 1 to 3 numbers")));
                }
                Ok([
                    n[0],
                    n.get(1).copied().unwrap_or(1),
                    n.get(2).copied().unwrap_or(1),
                ])
            };
            let one = || -> Result<u32> {
                match numbers()?.as_slice() {
                    [n] => Ok(*n),
                    _ => Err(bad(&format!("`{directive}` takes one number"))),
                }
            };
            match directive.as_str() {
                ".maxntid" => entry.max_threads = Some(dims()?),
                ".reqntid" => entry.required_threads = Some(dims()?),
                ".minnctapersm" => entry.min_blocks_per_sm = Some(one()?),
                ".maxnreg" => entry.max_registers = Some(one()?),
                ".reqnctapercluster" => entry.cluster_dims = Some(dims()?),
                ".maxclusterrank" => entry.max_cluster_rank = Some(one()?),
                _ => {}
            }
            rest = &args_text[end..];
            if rest.starts_with(['{', '(']) {
                rest = &rest[1..];
            }
        }
        if line.contains('{') {
            in_header = false;
        }
    }
    Ok(module)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_directives_of_each_entry() {
        let ptx = "\
.version 8.8
.target sm_90a
.address_size 64
.visible .entry k_bounds(
\t.param .u64 k_bounds_param_0
)
.maxntid 256, 1, 1
.minnctapersm 2
{
\tret;
}
.visible .entry _Z1kv() .explicitcluster .reqnctapercluster 2, 1, 1 .maxnreg 40
{
}
.entry k_plain() { ret; }
";
        let m = parse(ptx).unwrap();
        assert_eq!(m.target.unwrap().to_string(), "sm_90a");
        assert_eq!(m.version.as_deref(), Some("8.8"));
        assert_eq!(m.entries.len(), 3);
        let b = m.entry("k_bounds").unwrap();
        assert_eq!(
            (b.max_threads, b.min_blocks_per_sm),
            (Some([256, 1, 1]), Some(2))
        );
        let c = m.entry("_Z1kv").unwrap();
        assert_eq!(
            (c.cluster_dims, c.max_registers),
            (Some([2, 1, 1]), Some(40))
        );
        assert_eq!(
            m.entry("k_plain").unwrap(),
            &PtxEntry {
                name: "k_plain".into(),
                ..Default::default()
            }
        );
    }

    #[test]
    fn rejects_bad_directive_values() {
        let e = parse(".entry k()\n.maxntid 256, x\n{\n}\n").unwrap_err();
        assert!(e.message().contains("PTX line 2"), "{e}");
        let e = parse(".entry k()\n.minnctapersm 1, 2\n{\n}\n").unwrap_err();
        assert!(e.message().contains("takes one number"), "{e}");
    }
}
