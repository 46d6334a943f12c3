//! Reading the files the attribute names, within the crate: the containment rule.
//!
//! A proc macro runs inside every build of its users, on whatever their repositories
//! contain; a path in an attribute, a policy file or an environment variable must not make
//! it read `/etc/passwd` (nor leak its size in an error). So the front end reads a file only
//! when its path, after resolving symbolic links, lies inside
//!
//! - the package's directory (`CARGO_MANIFEST_DIR`),
//! - its workspace root (the nearest directory above it, or itself, whose `Cargo.toml` has a
//!   `[workspace]` table),
//! - `OUT_DIR` (where the build helper writes the manifest and the cubins),
//! - or a directory the policy's `read_paths` lists (absolute, or relative to the crate's
//!   directory), for artifacts kept beside the workspace;
//! - and a file the user named on the command line of a tool (`cargo occupancy report
//!   --kernel-manifest ../elsewhere/kernels.manifest.json`, [`Env::with_given_file`]): the
//!   rule is for paths named inside a crate, not for the user's own choice.
//!
//! Then it reads it with [`occupancy_core::file::read`]: a regular file only (a device or a
//! FIFO is an error naming it, before the file is opened), with a size cap. An [`Env`]
//! without a crate directory (a test, a fuzzer) has no rule to apply: any path is read.

use std::path::{Path, PathBuf};

use occupancy_core::file;

use crate::Env;

/// The directories the front end may read in, each resolved (symbolic links followed).
pub(crate) struct Roots {
    /// `None`: no crate directory, no containment.
    allowed: Option<Vec<(&'static str, PathBuf)>>,
}

impl Roots {
    /// The roots of the crate `env` describes, with the policy's `read_paths`.
    pub(crate) fn new(env: &Env, read_paths: &[String]) -> Roots {
        let Some(crate_dir) = &env.crate_dir else {
            return Roots { allowed: None };
        };
        let resolve = |path: &Path| file::canonicalize(path).unwrap_or_else(|_| path.into());
        let package = resolve(crate_dir);
        let mut allowed = vec![("the package's directory", package.clone())];
        if let Some(workspace) = workspace_root(&package) {
            allowed.push(("its workspace root", workspace));
        }
        if let Some(out_dir) = env.var("OUT_DIR").filter(|v| !v.is_empty()) {
            allowed.push(("OUT_DIR", resolve(Path::new(out_dir))));
        }
        for path in read_paths {
            allowed.push(("the policy's read_paths", resolve(&env.resolve(path))));
        }
        for file in env.given_files() {
            allowed.push(("a file given on the command line", resolve(file)));
        }
        Roots {
            allowed: Some(allowed),
        }
    }

    /// The bytes of the file at `path` (absolute, or as [`Env::resolve`] made it), read as
    /// `what` with at most `max_bytes`; or why not, in words (the caller names the file).
    pub(crate) fn read(&self, path: &Path, what: &str, max_bytes: u64) -> Result<Vec<u8>, String> {
        let resolved = match &self.allowed {
            None => path.to_path_buf(),
            Some(allowed) => {
                let resolved = file::canonicalize(path).map_err(|e| e.to_string())?;
                if !allowed.iter().any(|(_, root)| resolved.starts_with(root)) {
                    let names: Vec<&str> = allowed.iter().map(|(name, _)| *name).collect();
                    let roots = match names.split_last() {
                        Some((last, rest)) if !rest.is_empty() => {
                            format!("{} and {last}", rest.join(", "))
                        }
                        _ => names.concat(),
                    };
                    return Err(format!(
                        "it resolves to {}, outside {roots}: #[occupancy::check] reads files \
                         only there (list more directories in the policy's `read_paths`)",
                        resolved.display(),
                    ));
                }
                resolved
            }
        };
        file::read(&resolved, what, max_bytes).map_err(|e| e.reason.to_string())
    }

    /// [`Roots::read`] as UTF-8 text.
    pub(crate) fn read_text(
        &self,
        path: &Path,
        what: &str,
        max_bytes: u64,
    ) -> Result<String, String> {
        let bytes = self.read(path, what, max_bytes)?;
        String::from_utf8(bytes)
            .map_err(|e| format!("not UTF-8 (byte {})", e.utf8_error().valid_up_to()))
    }
}

/// The nearest directory at or above `package` whose `Cargo.toml` declares `[workspace]`.
fn workspace_root(package: &Path) -> Option<PathBuf> {
    package.ancestors().find_map(|dir| {
        let text =
            file::read_text(&dir.join("Cargo.toml"), "manifest", file::MAX_TEXT_BYTES).ok()?;
        text.lines()
            .any(|line| {
                let line = line.trim_start();
                line.starts_with("[workspace]") || line.starts_with("[workspace.")
            })
            .then(|| dir.to_path_buf())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_inside_the_package_workspace_out_dir_and_read_paths_only() {
        let base = std::env::temp_dir().join(format!("occupancy-read-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&base);
        let ws = base.join("ws");
        let package = ws.join("member");
        let outside = base.join("outside");
        for dir in [&package, &outside, &base.join("out")] {
            std::fs::create_dir_all(dir).unwrap();
        }
        std::fs::write(
            ws.join("Cargo.toml"),
            "[workspace]\nmembers = [\"member\"]\n",
        )
        .unwrap();
        std::fs::write(package.join("Cargo.toml"), "[package]\nname = \"m\"\n").unwrap();
        std::fs::write(ws.join("shared.bin"), "ws").unwrap();
        std::fs::write(outside.join("secret"), "secret").unwrap();
        std::fs::write(base.join("out/k.cubin"), "out").unwrap();
        #[cfg(unix)]
        std::os::unix::fs::symlink(outside.join("secret"), package.join("link")).unwrap();
        let env = Env::new(&package).with_var("OUT_DIR", base.join("out"));
        let roots = Roots::new(&env, &[]);
        assert_eq!(roots.read(&ws.join("shared.bin"), "x", 10).unwrap(), b"ws");
        assert_eq!(
            roots.read(&base.join("out/k.cubin"), "x", 10).unwrap(),
            b"out"
        );
        let canonical = |p: &Path| std::fs::canonicalize(p).unwrap();
        let expected = format!(
            "it resolves to {}, outside the package's directory, its workspace root and OUT_DIR: \
             #[occupancy::check] reads files only there (list more directories in the policy's \
             `read_paths`)",
            canonical(&outside.join("secret")).display(),
        );
        let relative = env.resolve("../../outside/secret");
        assert_eq!(roots.read(&relative, "cubin", 10).unwrap_err(), expected);
        #[cfg(unix)]
        assert_eq!(
            roots.read(&package.join("link"), "cubin", 10).unwrap_err(),
            expected
        );
        // The policy can allow the directory.
        let roots = Roots::new(&env, &["../../outside".to_owned()]);
        assert_eq!(roots.read(&relative, "cubin", 10).unwrap(), b"secret");
        // Without a crate directory nothing is contained.
        let free = Roots::new(&Env::default(), &[]);
        assert_eq!(
            free.read(&outside.join("secret"), "x", 10).unwrap(),
            b"secret"
        );
        std::fs::remove_dir_all(&base).unwrap();
    }
}
