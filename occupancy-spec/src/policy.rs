//! Finding and reading the crate's policy file.
//!
//! The file is `<crate>/occupancy.toml`, or the path in `$OCCUPANCY_POLICY` (absolute, or
//! relative to the crate) when that is set and not empty. No file: the built-in defaults
//! ([`Policy::default`]). The macro's expansion tells cargo about both (an `include_bytes!`
//! of the file, an `option_env!` of the variable) so that the crate is rebuilt when either
//! changes; a build script prints `rerun-if-changed` for the file.

use std::path::{Path, PathBuf};

use occupancy_core::policy::{Policy, PolicyError};

use crate::Env;
use crate::memo::Memo;
use crate::read::Roots;

/// The largest policy file read (1 MiB; real ones are a few KB). The TOML parser's tree
/// takes about 100 times the text's size: a 16 MB file of small arrays took 1.5 GB.
pub const MAX_POLICY_BYTES: u64 = 1 << 20;

/// A policy and the file it came from.
pub struct Loaded {
    /// The policy in effect.
    pub policy: Policy,
    /// The file read, absolute; `None` when the defaults apply.
    pub file: Option<PathBuf>,
}

/// Why the policy could not be loaded.
#[derive(Clone, Debug)]
pub enum LoadError {
    /// The file cannot be read: `cannot read the policy file occupancy.toml: ...` (with
    /// `(named by OCCUPANCY_POLICY)` when the variable named it, `(given on the command
    /// line)` when it is one of [`Env::given_files`]).
    Unreadable(String),
    /// The file does not parse, has bad keys or values, or names a file that is not there
    /// (`manifest`).
    Invalid {
        /// The file as messages name it (as the variable gave it, or its whole path).
        file: String,
        /// Each problem, `file:line:column: message`.
        problems: Vec<String>,
    },
}

/// What reads the policy: the line that closes a list of its problems says what fails
/// until the file is fixed, in the words of the context the user sees it in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reader {
    /// `#[occupancy::check]`: every wrapper of the crate reads the file and reports its
    /// problems, so each says once that 50 copies are not 50 problems.
    Attribute,
    /// A build script's check of the CUDA C++ launches (`occupancy_cuda::CudaLaunches`).
    BuildScript,
    /// `cargo occupancy report`.
    Report,
}

impl LoadError {
    /// The whole message for `reader`, one line each: the unreadable file's error; or each
    /// problem (past [`crate::problems::MAX_PER_KIND`] of a kind, a count), then a line
    /// saying how many there are and what fails until they are fixed.
    pub fn message(&self, reader: Reader) -> String {
        let (file, problems) = match self {
            LoadError::Unreadable(message) => return message.clone(),
            LoadError::Invalid { file, problems } => (file, problems),
        };
        let mut capped = crate::problems::Capped::default();
        for problem in problems {
            capped.push(problem.clone());
        }
        let (mut lines, left_out) = capped.finish();
        lines.extend(
            left_out
                .iter()
                .map(|(count, last)| crate::problems::left_out(*count, last)),
        );
        let count = problems.len();
        let noun = if count == 1 { "problem" } else { "problems" };
        let fails = match reader {
            Reader::Attribute => {
                "every #[occupancy::check] of the crate reads it and reports them until it is fixed"
            }
            Reader::BuildScript => {
                "the build script's check of the CUDA C++ launches (occupancy_cuda::CudaLaunches) \
                 reads it and fails the build until it is fixed"
            }
            Reader::Report => {
                "`cargo occupancy report` reads it and checks nothing until it is fixed"
            }
        };
        lines.push(format!(
            "the policy file {file} has {count} {noun} (above); {fails}"
        ));
        lines.join("\n")
    }
}

/// Reads the policy for the crate `env` describes.
///
/// # Errors
///
/// An unreadable file named by `OCCUPANCY_POLICY` (or an `occupancy.toml` that is there but
/// cannot be read), or every problem in the file (each with the file, line, column and key).
pub fn load(env: &Env) -> Result<Loaded, LoadError> {
    let from_env = env.var(Policy::ENV_VAR).filter(|v| !v.is_empty());
    let (path, required) = match (from_env, &env.crate_dir) {
        (Some(value), _) => (env.resolve(PathBuf::from(value)), true),
        (None, Some(dir)) => (dir.join(Policy::FILE_NAME), false),
        (None, None) => {
            return Ok(Loaded {
                policy: Policy::default(),
                file: None,
            });
        }
    };
    if !required && occupancy_core::file::probe(&path) == occupancy_core::file::Seen::Absent {
        return Ok(Loaded {
            policy: Policy::default(),
            file: None,
        });
    }
    // A relative `$OCCUPANCY_POLICY` as written (relative to the crate), else the full path.
    let shown = match from_env {
        Some(value) if Path::new(value).is_relative() => value.to_string_lossy().into_owned(),
        _ => path.display().to_string(),
    };
    // Contained like every file the front ends read, but before the policy's `read_paths`.
    let text = match Roots::new(env, &[]).read_text(&path, "policy file", MAX_POLICY_BYTES) {
        Ok(text) => text,
        Err(e) => {
            // `report --policy PATH` is a file given on the command line, not the variable.
            let origin = if env.given_files().contains(&path) {
                " (given on the command line)".to_owned()
            } else if required {
                format!(" (named by {})", Policy::ENV_VAR)
            } else {
                String::new()
            };
            return Err(LoadError::Unreadable(format!(
                "cannot read the policy file {shown}{origin}: {e}"
            )));
        }
    };

    static PARSED: Memo<(Option<Policy>, Vec<PolicyError>)> = Memo::new();
    let (policy, mut problems) = PARSED.get_or_parse(text, Policy::parse_toml);
    // Checked on every load, not memoized with the parse: the file may appear later. Said
    // with the file's other problems, all at once.
    if let Some(problem) = policy.as_ref().and_then(|p| missing_manifest(p, env)) {
        problems.push(problem);
    }
    match policy {
        Some(policy) if problems.is_empty() => Ok(Loaded {
            policy,
            file: Some(std::path::absolute(&path).unwrap_or(path)),
        }),
        _ => Err(LoadError::Invalid {
            problems: problems.iter().map(|p| p.in_file(&shown)).collect(),
            file: shown,
        }),
    }
}

/// The problem of a `manifest` that names no file: the path as written, and where it was
/// looked for (relative paths are relative to the crate's directory). A file that is there
/// but cannot be read is reported when a wrapper reads it.
fn missing_manifest(policy: &Policy, env: &Env) -> Option<PolicyError> {
    let written = policy.manifest.as_deref()?;
    let path = env.resolve(written);
    let what = match std::fs::metadata(&path) {
        Ok(meta) => occupancy_core::file::non_regular(&meta)?,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => "no such file",
        Err(_) => return None,
    };
    // Where a relative path led: the crate's directory, which may not be where the policy is.
    let looked_for = if Path::new(written).is_relative() {
        format!(
            "; looked for {} (relative to the crate's directory)",
            path.display()
        )
    } else {
        String::new()
    };
    let (line, column) = policy.manifest_line_column.unzip();
    Some(PolicyError {
        message: format!("`manifest`: `{written}`: {what}{looked_for}"),
        key: Some("manifest".to_owned()),
        span: None,
        line,
        column,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fresh crate directory `<tmp>/occupancy-policy-<name>-<pid>` with `policy` as its
    /// `occupancy.toml`: (its directory, the policy file's path as messages show it).
    fn crate_with(name: &str, policy: &str) -> (PathBuf, String) {
        let dir =
            std::env::temp_dir().join(format!("occupancy-policy-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join(Policy::FILE_NAME);
        std::fs::write(&file, policy).unwrap();
        (dir, file.display().to_string())
    }

    fn message(dir: &Path, reader: Reader) -> String {
        match load(&Env::new(dir)) {
            Ok(_) => panic!("the policy in {} loaded", dir.display()),
            Err(e) => e.message(reader),
        }
    }

    /// Before: a `manifest` naming no file loaded without a word (the build's own manifest
    /// was read instead, or the wrapper said only "cannot read resource manifest <absolute
    /// path>").
    #[test]
    fn a_manifest_that_is_not_there_is_a_problem_with_where_it_was_looked_for() {
        let (dir, shown) = crate_with(
            "manifest",
            "min_occupancy = \"60%\"\nmanifest = \"kernelz.manifest.json\"\n",
        );
        assert_eq!(
            message(&dir, Reader::Report),
            format!(
                "{shown}:2:12: `manifest`: `kernelz.manifest.json`: no such file; looked for {} \
                 (relative to the crate's directory)\n\
                 the policy file {shown} has 1 problem (above); `cargo occupancy report` reads \
                 it and checks nothing until it is fixed",
                dir.join("kernelz.manifest.json").display()
            )
        );
        std::fs::create_dir_all(dir.join("folder")).unwrap();
        std::fs::write(dir.join(Policy::FILE_NAME), "manifest = \"folder\"\n").unwrap();
        assert!(
            message(&dir, Reader::Report).starts_with(&format!(
                "{shown}:1:12: `manifest`: `folder`: a directory; looked for {}",
                dir.join("folder").display()
            )),
            "{}",
            message(&dir, Reader::Report)
        );
        // Once the file is there, the same policy loads.
        std::fs::write(dir.join("kernelz.manifest.json"), "{}").unwrap();
        std::fs::write(
            dir.join(Policy::FILE_NAME),
            "manifest = \"kernelz.manifest.json\"\n",
        )
        .unwrap();
        let loaded =
            load(&Env::new(&dir)).unwrap_or_else(|e| panic!("{}", e.message(Reader::Report)));
        assert_eq!(
            loaded.policy.manifest.as_deref(),
            Some("kernelz.manifest.json")
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// Before: a misspelt key hid every other problem of the file (a new user fixed the
    /// typo, built again and only then learned that `manifest` named no file). All at once
    /// now: the unknown key, the values, the missing manifest.
    #[test]
    fn a_files_problems_are_all_said_at_once() {
        let (dir, shown) = crate_with(
            "at-once",
            "min_ocupancy = \"75%\"\nclass = \"bandwith\"\nmanifest = \"missing.json\"\n",
        );
        let text = message(&dir, Reader::Report);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 4, "{text}");
        assert!(
            lines[0].starts_with(&format!(
                "{shown}:1:1: unknown key `min_ocupancy`; did you mean `min_occupancy`?"
            )),
            "{text}"
        );
        assert!(
            lines[1].starts_with(&format!("{shown}:2:9: `class`")),
            "{text}"
        );
        assert!(
            lines[2].starts_with(&format!(
                "{shown}:3:12: `manifest`: `missing.json`: no such file"
            )),
            "{text}"
        );
        assert!(
            lines[3].starts_with(&format!("the policy file {shown} has 3 problems")),
            "{text}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// Before: every reader's message said "every #[occupancy::check] of the crate reads
    /// it", in a crate with no attribute too (a build script checking C++ launches).
    #[test]
    fn the_closing_line_names_what_reads_the_policy() {
        // (`sm_95` here had hidden behind the unknown key until problems were all said at
        // once: a target that exists now, so that the file has one problem.)
        let (dir, shown) = crate_with("reader", "targets = [\"sm_90\"]\nfloor = 1\n");
        let problems = format!("{shown}:2:1: unknown key `floor`; known keys: ");
        let closing = |reader| {
            let text = message(&dir, reader);
            assert!(text.starts_with(&problems), "{text}");
            assert_eq!(text.lines().count(), 2, "{text}");
            text.lines().last().unwrap().to_owned()
        };
        let head = format!("the policy file {shown} has 1 problem (above); ");
        assert_eq!(
            closing(Reader::Attribute),
            format!(
                "{head}every #[occupancy::check] of the crate reads it and reports them until it \
                 is fixed"
            )
        );
        assert_eq!(
            closing(Reader::BuildScript),
            format!(
                "{head}the build script's check of the CUDA C++ launches \
                 (occupancy_cuda::CudaLaunches) reads it and fails the build until it is fixed"
            )
        );
        assert_eq!(
            closing(Reader::Report),
            format!("{head}`cargo occupancy report` reads it and checks nothing until it is fixed")
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
