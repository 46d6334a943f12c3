//! Build discovery: the crate's folder and package name, the newest build's output (its
//! resource manifest, its build script's `OUT_DIR` and what that script told cargo), and
//! whether the manifest in effect is older than its kernel sources.

use std::path::{Path, PathBuf};
use std::time::SystemTime;

use occupancy_attr::{Env, MANIFEST_VAR, TARGETS_VAR};
use occupancy_core::policy::Policy;

use super::ReportArgs;

pub(super) fn crate_dir(args: &ReportArgs) -> Result<PathBuf, String> {
    let given = args
        .manifest_path
        .clone()
        .or_else(|| args.path.clone())
        .unwrap_or_else(|| PathBuf::from("."));
    let dir = if given.file_name().is_some_and(|n| n == "Cargo.toml") {
        given
            .parent()
            .map_or_else(|| PathBuf::from("."), Path::to_path_buf)
    } else {
        given
    };
    let dir = if dir.as_os_str().is_empty() {
        PathBuf::from(".")
    } else {
        dir
    };
    let dir = std::path::absolute(&dir).unwrap_or(dir);
    let manifest = dir.join("Cargo.toml");
    match std::fs::metadata(&manifest) {
        // A folder, a FIFO or a device named `Cargo.toml`: say what it is, not that it is absent.
        Ok(m) => match occupancy_core::file::non_regular(&m) {
            None => Ok(dir),
            Some(kind) => Err(format!(
                "{}: {kind}, not a package manifest",
                manifest.display()
            )),
        },
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            Err(format!("{}: no Cargo.toml there", dir.display()))
        }
        Err(e) => Err(format!("{}: {e}", manifest.display())),
    }
}

pub(super) fn package_name(crate_dir: &Path) -> Result<String, String> {
    let path = crate_dir.join("Cargo.toml");
    let text = occupancy_core::file::read_text(
        &path,
        "package manifest",
        occupancy_core::file::MAX_TEXT_BYTES,
    )
    .map_err(|e| e.to_string())?;
    let value: toml::Table =
        toml::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
    value
        .get("package")
        .and_then(|p| p.get("name"))
        .and_then(toml::Value::as_str)
        .map(str::to_owned)
        .ok_or_else(|| {
            format!(
                "{}: no [package] name (a virtual workspace? point at a member crate)",
                path.display()
            )
        })
}

/// Whether the package in `crate_dir` has a build script, as cargo decides: `build = false`
/// none, `build = "path"` that file, else `build.rs` beside `Cargo.toml`. An unreadable
/// manifest counts as having one (the message then says to build first).
fn has_build_script(crate_dir: &Path) -> bool {
    let build = occupancy_core::file::read_text(
        &crate_dir.join("Cargo.toml"),
        "package manifest",
        occupancy_core::file::MAX_TEXT_BYTES,
    )
    .ok()
    .and_then(|text| toml::from_str::<toml::Table>(&text).ok())
    .and_then(|t| t.get("package")?.get("build").cloned());
    match build {
        Some(toml::Value::Boolean(false)) => false,
        Some(toml::Value::String(path)) => crate_dir.join(path).is_file(),
        Some(_) => true,
        None => crate_dir.join("build.rs").is_file(),
    }
}

/// The newest `<target>/*/build/<package>-*/out/<out_relative>` (and
/// `<target>/<triple>/*/build/...`), over `$CARGO_TARGET_DIR` and the `target/` folders of
/// the crate's folder and its ancestors: what the package's build script wrote last
/// (`occupancy/manifest.json`, `occupancy/cuda-launches.json`).
pub(crate) fn newest_build_output(
    crate_dir: &Path,
    package: &str,
    out_relative: &str,
) -> Option<PathBuf> {
    let mut targets: Vec<PathBuf> = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .into_iter()
        .collect();
    targets.extend(crate_dir.ancestors().map(|a| a.join("target")));
    let prefix = format!("{package}-");
    let mut best: Option<(SystemTime, PathBuf)> = None;
    let mut consider = |build: PathBuf| {
        for entry in read_dir(&build) {
            let is_package = entry.file_name().and_then(|n| n.to_str()).is_some_and(|n| {
                n.starts_with(&prefix) && n[prefix.len()..].bytes().all(|b| b.is_ascii_hexdigit())
            });
            if !is_package {
                continue;
            }
            let output = entry.join("out").join(out_relative);
            if let Ok(modified) = output.metadata().and_then(|m| m.modified())
                && best.as_ref().is_none_or(|(t, _)| modified > *t)
            {
                best = Some((modified, output));
            }
        }
    };
    for target in targets.iter().filter(|t| t.is_dir()) {
        for profile in read_dir(target) {
            consider(profile.join("build"));
            for nested in read_dir(&profile) {
                consider(nested.join("build"));
            }
        }
    }
    best.map(|(_, path)| path)
}

/// The `OUT_DIR` of the build that wrote `manifest` (`<OUT_DIR>/occupancy/manifest.json`).
pub(super) fn build_out_dir(manifest: &Path) -> Option<&Path> {
    manifest
        .ends_with(occupancy_attr::OUT_DIR_MANIFEST)
        .then(|| {
            manifest.ancestors().nth(
                Path::new(occupancy_attr::OUT_DIR_MANIFEST)
                    .components()
                    .count(),
            )
        })
        .flatten()
}

/// The lines the build script whose `OUT_DIR` is `out_dir` printed, from the `output` file
/// cargo keeps beside `OUT_DIR` (none when it cannot be read).
pub(super) fn build_script_output(out_dir: &Path) -> Vec<String> {
    out_dir
        .parent()
        .and_then(|dir| {
            occupancy_core::file::read_text(
                &dir.join("output"),
                "build script output",
                occupancy_core::file::MAX_TEXT_BYTES,
            )
            .ok()
        })
        .map(|text| text.lines().map(str::to_owned).collect())
        .unwrap_or_default()
}

/// The value of a `cargo:KEY=VALUE` (or `cargo::KEY=VALUE`) directive among `lines`, the
/// last one given.
fn directive<'a>(lines: &'a [String], key: &str) -> impl Iterator<Item = &'a str> {
    lines.iter().filter_map(move |line| {
        line.strip_prefix("cargo::")
            .or_else(|| line.strip_prefix("cargo:"))?
            .strip_prefix(key)?
            .strip_prefix('=')
    })
}

/// The value a build script gave `name` with `cargo:rustc-env=NAME=VALUE`.
pub(super) fn rustc_env(lines: &[String], name: &str) -> Option<String> {
    directive(lines, "rustc-env")
        .filter_map(|rest| rest.split_once('='))
        .filter(|(key, _)| *key == name)
        .map(|(_, value)| value.to_owned())
        .last()
}

/// When the resource manifest in effect records its sources' SHA-256 and they changed
/// since: a warning naming them and how to refresh the manifest. The sources are looked
/// for in the folders the build script watched (the build helper watches its kernels
/// folder), then `kernels/` beside the manifest and in the crate.
pub(super) fn stale_manifest(
    crate_dir: &Path,
    manifest: Option<&Path>,
    origin: &str,
) -> Option<String> {
    // Without a build, the attribute falls back to the committed manifest.
    let committed = crate_dir.join(occupancy_core::policy::Policy::DEFAULT_MANIFEST);
    let (path, refresh) = match manifest {
        Some(path) if origin == "the newest build" => (
            path.to_path_buf(),
            "`cargo build` writes it afresh".to_owned(),
        ),
        Some(path) => (
            path.to_path_buf(),
            "rebuild it (`cargo build` writes the build's, `OCCUPANCY_WRITE_MANIFEST=1 cargo \
             build` the committed one)"
                .to_owned(),
        ),
        None if committed.is_file() => (
            committed,
            "`OCCUPANCY_WRITE_MANIFEST=1 cargo build` (or `cargo occupancy inspect \
             --write-manifest`) writes it afresh"
                .to_owned(),
        ),
        None => return None,
    };
    let loaded = occupancy_core::resources::manifest::Manifest::load(&path).ok()?;
    if loaded.sources.is_empty() {
        return None;
    }
    let mut folders: Vec<PathBuf> = Vec::new();
    if origin == "the newest build"
        && let Some(out_dir) = build_out_dir(&path)
    {
        folders.extend(
            directive(&build_script_output(out_dir), "rerun-if-changed")
                .map(|p| crate_dir.join(p))
                .filter(|p| p.is_dir()),
        );
    }
    folders.extend(path.parent().map(|dir| dir.join("kernels")));
    folders.push(crate_dir.join("kernels"));
    let folder = folders.into_iter().find(|dir| {
        loaded
            .sources
            .iter()
            .any(|source| dir.join(&source.file).is_file())
    })?;
    let mut files: Vec<String> = std::fs::read_dir(&folder)
        .ok()?
        .flatten()
        .filter(|e| e.path().is_file())
        .filter_map(|e| e.file_name().to_str().map(str::to_owned))
        .filter(|name| name.ends_with(".cu") || name.ends_with(".ptx"))
        .collect();
    files.sort();
    let changes = loaded.stale_sources(&folder, &files);
    if changes.is_empty() {
        return None;
    }
    Some(format!(
        "the resource manifest is older than its kernel sources in {}/ ({}): the numbers below \
         are those of the sources it was written from; {refresh}",
        folder.strip_prefix(crate_dir).unwrap_or(&folder).display(),
        changes.join("; ")
    ))
}

fn read_dir(dir: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    out.sort();
    out
}

/// What the report evaluates with: the resource manifest (`--kernel-manifest`,
/// `$OCCUPANCY_MANIFEST` or the newest build's), where it came from, whether it is older
/// than its sources, the attribute's environment that reads it, and the policy.
pub(super) struct Setup {
    pub(super) env: Env,
    /// The policy in effect (`--policy`, `$OCCUPANCY_POLICY`, `occupancy.toml`), read once.
    pub(super) policy: Policy,
    pub(super) manifest: Option<PathBuf>,
    pub(super) manifest_origin: &'static str,
    pub(super) stale: Option<String>,
}

/// The [`Setup`] for the crate in `crate_dir` (package `package`).
///
/// # Errors
///
/// What keeps the report from running: a `--kernel-manifest` that is not a file; a policy
/// file that cannot be read or has problems (each said once, with its line: not once per
/// wrapper that reads it).
pub(super) fn setup(args: &ReportArgs, crate_dir: &Path, package: &str) -> Result<Setup, String> {
    let (manifest, manifest_origin) = match &args.kernel_manifest {
        Some(path) => {
            let path = std::path::absolute(path).unwrap_or_else(|_| path.clone());
            match std::fs::metadata(&path) {
                Err(e) => return Err(format!("--kernel-manifest {}: {e}", path.display())),
                Ok(meta) => {
                    if let Some(kind) = occupancy_core::file::non_regular(&meta) {
                        return Err(format!(
                            "--kernel-manifest {}: it is {kind}, not a regular file",
                            path.display()
                        ));
                    }
                }
            }
            (Some(path), "--kernel-manifest")
        }
        None => match std::env::var_os(MANIFEST_VAR).filter(|v| !v.is_empty()) {
            Some(value) => (
                Some(PathBuf::from(value)),
                "named by the environment variable OCCUPANCY_MANIFEST",
            ),
            None => {
                match newest_build_output(crate_dir, package, occupancy_attr::OUT_DIR_MANIFEST) {
                    Some(path) => (Some(path), "the newest build"),
                    // A crate without a build script has no build output to look for.
                    None if !has_build_script(crate_dir) => (
                        None,
                        "none from a build: the crate has no build.rs (pass --kernel-manifest); `kernel = ...` falls back to the policy's `manifest`, else kernels.manifest.json",
                    ),
                    None => (
                        None,
                        "no build output found under $CARGO_TARGET_DIR or a target/ folder (build first, with the same CARGO_TARGET_DIR, or pass --kernel-manifest); `kernel = ...` falls back to the policy's `manifest`, else kernels.manifest.json",
                    ),
                }
            }
        },
    };
    let mut env = Env::new(crate_dir);
    if let Some(path) = &manifest {
        env = env.with_var(MANIFEST_VAR, path);
    }
    // A file the user names on the command line is read wherever it is.
    if let Some(path) = manifest.as_ref().filter(|_| args.kernel_manifest.is_some()) {
        env = env.with_given_file(path);
    }
    // A build's manifest lies in its build script's OUT_DIR, which the attribute may read
    // (the manifest and its cubins), wherever `CARGO_TARGET_DIR` puts it: as in that build.
    if manifest_origin == "the newest build"
        && let Some(out_dir) = manifest.as_deref().and_then(build_out_dir)
    {
        env = env.with_var("OUT_DIR", out_dir);
        // The targets that build compiled for, which the attribute checks where neither it
        // nor the policy names targets: what its build script told cargo.
        if let Some(targets) = rustc_env(&build_script_output(out_dir), TARGETS_VAR) {
            env = env.with_var(TARGETS_VAR, targets);
        }
    }
    let stale = stale_manifest(crate_dir, manifest.as_deref(), manifest_origin);
    if let Some(policy) = &args.policy {
        let policy = std::path::absolute(policy).unwrap_or_else(|_| policy.clone());
        env = env.with_given_file(&policy);
        env = env.with_var(Policy::ENV_VAR, policy);
    } else if let Some(policy) = std::env::var_os(Policy::ENV_VAR) {
        env = env.with_var(Policy::ENV_VAR, policy);
    }
    let (policy, _) = occupancy_attr::load_policy(&env, occupancy_attr::PolicyReader::Report)?;
    Ok(Setup {
        env,
        policy,
        manifest,
        manifest_origin,
        stale,
    })
}
