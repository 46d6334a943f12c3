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
    /// The file does not parse, or has bad keys or values.
    Invalid {
        /// Each problem, `file:line:column: message` (the file as the variable gave it, or
        /// its whole path).
        problems: Vec<String>,
        /// The line that closes them: every wrapper of the crate reads the file and repeats
        /// its problems, so each says once that 50 copies are not 50 problems.
        summary: String,
    },
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

    static PARSED: Memo<Result<Policy, Vec<PolicyError>>> = Memo::new();
    match PARSED.get_or_parse(text, Policy::from_toml) {
        Ok(policy) => Ok(Loaded {
            policy,
            file: Some(std::path::absolute(&path).unwrap_or(path)),
        }),
        Err(problems) => {
            let count = problems.len();
            let noun = if count == 1 { "problem" } else { "problems" };
            Err(LoadError::Invalid {
                problems: problems.into_iter().map(|p| p.in_file(&shown)).collect(),
                summary: format!(
                    "the policy file {shown} has {count} {noun} (above); every \
                     #[occupancy::check] of the crate reads it and reports them until it is \
                     fixed"
                ),
            })
        }
    }
}
