//! Finding and reading the crate's policy file.
//!
//! The file is `<crate>/occupancy.toml`, or the path in `$OCCUPANCY_POLICY` (absolute, or
//! relative to the crate) when that is set and not empty. No file: the built-in defaults
//! ([`Policy::default`]). The expansion tells cargo about both (an `include_bytes!` of the
//! file, an `option_env!` of the variable) so that the crate is rebuilt when either changes.

use std::path::{Path, PathBuf};

use occupancy_core::policy::{Policy, PolicyError};
use proc_macro2::Span;
use syn::Error;

use crate::Env;
use crate::errors::Errors;
use crate::memo::Memo;
use crate::read::Roots;
use occupancy_core::file::MAX_TEXT_BYTES;

/// A policy and the file it came from.
pub(crate) struct Loaded {
    pub(crate) policy: Policy,
    /// The file read, absolute; `None` when the defaults apply.
    pub(crate) file: Option<PathBuf>,
}

/// Reads the policy for the crate `env` describes.
///
/// # Errors
///
/// An unreadable file named by `OCCUPANCY_POLICY`, or any problem in the file (each with
/// the file, line, column and key), on `span` (the attribute).
pub(crate) fn load(env: &Env, span: Span) -> Result<Loaded, Error> {
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
    if !required
        && std::fs::symlink_metadata(&path).is_err_and(|e| e.kind() == std::io::ErrorKind::NotFound)
    {
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
    // Contained like every file the attribute reads, but before the policy's `read_paths`.
    let text = match Roots::new(env, &[]).read_text(&path, "policy file", MAX_TEXT_BYTES) {
        Ok(text) => text,
        Err(e) => {
            let origin = if required {
                format!(" (named by {})", Policy::ENV_VAR)
            } else {
                String::new()
            };
            return Err(Error::new(
                span,
                format!("cannot read the policy file {shown}{origin}: {e}"),
            ));
        }
    };

    static PARSED: Memo<Result<Policy, Vec<PolicyError>>> = Memo::new();
    match PARSED.get_or_parse(text, Policy::from_toml) {
        Ok(policy) => Ok(Loaded {
            policy,
            file: Some(std::path::absolute(&path).unwrap_or(path)),
        }),
        Err(problems) => {
            let mut errors = Errors::default();
            let count = problems.len();
            for problem in problems {
                errors.push(Error::new(span, problem.in_file(&shown)));
            }
            // Every wrapper of the crate reads the file, so each repeats its problems: say
            // so once per wrapper, so that 50 copies do not look like 50 problems.
            let problems = if count == 1 { "problem" } else { "problems" };
            let summary = Error::new(
                span,
                format!(
                    "the policy file {shown} has {count} {problems} (above); every \
                     #[occupancy::check] of the crate reads it and reports them until it is \
                     fixed"
                ),
            );
            match errors.finish(()) {
                Ok(()) => Err(summary),
                Err(mut all) => {
                    all.combine(summary);
                    Err(all)
                }
            }
        }
    }
}
