//! `report --all`'s CUDA C++ launches: the launches of the crate's `.cu` / `.cuh` files,
//! read and checked by `occupancy-cuda` (the same reader and check as the build-script
//! call), each path as a report [`Wrapper`] so that the table, the JSON and the SARIF log
//! show them as they show the Rust wrappers.
//!
//! Where the kernels' resources come from, in order: `--kernel-manifest PATH` (a resource
//! manifest, as for the Rust wrappers); else the objects the newest build's check recorded
//! (`<OUT_DIR>/occupancy/cuda-launches.json`, written by `CudaLaunches::check`); else none
//! (each launch is listed, with its values, as not checked).

use std::path::{Path, PathBuf};

use occupancy_core::resources::manifest::Manifest;
use occupancy_cuda::{CheckedLaunch, Compiled, Outcome as CudaOutcome, PathCounts};

use super::model::{Outcome, Wrapper};

/// The folders searched for `.cu` / `.cuh` files when no build recorded them.
pub(crate) const DEFAULT_DIRS: &[&str] = &["src", "cuda", "kernels", "csrc"];

/// The C++ launches of a crate, as report rows.
pub(crate) struct CudaSection {
    /// One per path of each launch (a launch no path checks: one row saying why).
    pub(crate) wrappers: Vec<Wrapper>,
    /// The folders read, relative to the crate.
    pub(crate) dirs: Vec<String>,
    /// How many `.cu` / `.cuh` files were read there (the headers they include too).
    pub(crate) files: usize,
    /// Where the resources came from, for the header.
    pub(crate) resources: String,
    /// What could not be read, `file:line: message` each.
    pub(crate) notes: Vec<String>,
    /// Launch sites found, their paths and how many were checked: counted as the build
    /// script's check counts them.
    pub(crate) counts: PathCounts,
}

/// Reads and checks the C++ launches of the crate in `crate_dir` (package `package`).
pub(crate) fn section(
    crate_dir: &Path,
    package: &str,
    kernel_manifest: Option<&Path>,
    policy: &occupancy_core::policy::Policy,
) -> CudaSection {
    let record = newest_record(crate_dir, package);
    let dirs: Vec<String> = match record.as_ref().and_then(|r| r["dirs"].as_array().cloned()) {
        Some(dirs) => dirs
            .iter()
            .filter_map(|d| d.as_str().map(str::to_owned))
            .collect(),
        None => DEFAULT_DIRS
            .iter()
            .filter(|d| crate_dir.join(d).is_dir())
            .map(|d| (*d).to_owned())
            .collect(),
    };
    let (compiled, resources) = match kernel_manifest {
        Some(path) => match Manifest::load(path) {
            Ok(m) => (
                Compiled {
                    kernels: m
                        .kernels
                        .into_iter()
                        .map(|k| (k.resources, path.to_path_buf()))
                        .collect(),
                    problems: Vec::new(),
                },
                format!("{} (--kernel-manifest)", path.display()),
            ),
            Err(e) => (
                Compiled {
                    kernels: Vec::new(),
                    problems: vec![format!("{}: {e}", path.display())],
                },
                format!("{} (--kernel-manifest, unreadable)", path.display()),
            ),
        },
        None => {
            let objects: Vec<PathBuf> = record
                .as_ref()
                .and_then(|r| r["objects"].as_array().cloned())
                .unwrap_or_default()
                .iter()
                .filter_map(|o| o.as_str().map(PathBuf::from))
                .collect();
            if objects.is_empty() {
                (
                    Compiled::default(),
                    "none: no build recorded its objects (call occupancy_cuda::CudaLaunches from build.rs and build, or pass --kernel-manifest)".to_owned(),
                )
            } else {
                let shown: Vec<String> = objects.iter().map(|o| o.display().to_string()).collect();
                (
                    Compiled::read(&objects),
                    format!("{} (the newest build)", shown.join(", ")),
                )
            }
        }
    };
    let dir_paths: Vec<PathBuf> = dirs.iter().map(PathBuf::from).collect();
    // The reading core in place of the interpreter, for measuring issue 25's switch on
    // real crates (docs/READING-CORE.md): a developer's setting, not a user's.
    let reader = match std::env::var("OCCUPANCY_CPP_READER").as_deref() {
        Ok("core") => occupancy_cuda::CppReader::Core,
        _ => occupancy_cuda::CppReader::Interpreter,
    };
    let reading = occupancy_cuda::read_with_policy_by(crate_dir, &dir_paths, policy, reader);
    let checked = occupancy_cuda::check(&reading, policy, &compiled);
    let mut notes: Vec<String> = reading.notes.iter().map(ToString::to_string).collect();
    notes.extend(compiled.problems.iter().cloned());
    notes.extend(occupancy_cuda::unmatched_launch_tables(&reading, policy));
    let mut section = CudaSection {
        wrappers: Vec::new(),
        dirs,
        files: reading.files.len(),
        resources,
        notes,
        counts: PathCounts::of(&checked),
    };
    for c in checked {
        rows(c, &mut section);
    }
    section
}

/// The report rows of one launch site.
fn rows(c: CheckedLaunch, section: &mut CudaSection) {
    let launch = &c.launch;
    let location = launch.location();
    let site = |instantiation: Option<String>, conditions: Vec<String>| super::model::CudaSite {
        form: launch.form.written(),
        kernel_written: launch.kernel_written.clone(),
        instantiation,
        conditions,
    };
    if c.paths.is_empty() {
        let why = if launch.not_checked.is_empty() {
            "no launch read".to_owned()
        } else {
            launch.not_checked.join("; ")
        };
        section.wrappers.push(Wrapper {
            location: location.clone(),
            name: launch.function.clone(),
            conditions: Vec::new(),
            outcome: Outcome::NotChecked(vec![why]),
            site: None,
            cuda: Some(site(None, Vec::new())),
        });
        return;
    }
    for p in c.paths {
        let mut outcome = match p.outcome {
            CudaOutcome::Checked(spec, evaluation) => Outcome::Evaluated(spec, evaluation),
            CudaOutcome::NotChecked(why) => {
                Outcome::NotChecked(vec![format!("{}: {why}", values(&p.path))])
            }
        };
        if let Outcome::Evaluated(_, evaluation) = &mut outcome {
            for note in &p.notes {
                for d in &mut evaluation.diagnostics {
                    d.finding.notes.push(note.clone());
                }
            }
        }
        section.wrappers.push(Wrapper {
            location: location.clone(),
            name: launch.function.clone(),
            conditions: Vec::new(),
            outcome,
            site: None,
            cuda: Some(site(
                Some(p.path.kernel.to_string()),
                p.path.conditions.clone(),
            )),
        });
    }
    for why in &launch.not_checked {
        section.notes.push(format!("{location}: {why}"));
    }
}

/// `block 128, smem 0 B, grid ?` as read.
fn values(p: &occupancy_cuda::LaunchPath) -> String {
    let dims = |d: &occupancy_cuda::Read<[u32; 3]>| match d {
        occupancy_cuda::Read::Known([x, 1, 1]) => x.to_string(),
        occupancy_cuda::Read::Known([x, y, 1]) => format!("({x}, {y})"),
        occupancy_cuda::Read::Known([x, y, z]) => format!("({x}, {y}, {z})"),
        occupancy_cuda::Read::Unknown(_) => "run time".to_owned(),
    };
    let smem = match &p.dynamic_smem_bytes {
        occupancy_cuda::Read::Known(b) => format!("{b} B"),
        occupancy_cuda::Read::Unknown(_) => "run time".to_owned(),
    };
    format!("block {}, smem {smem}", dims(&p.block))
}

/// The newest `<target>/*/build/<package>-*/out/occupancy/cuda-launches.json`, read.
fn newest_record(crate_dir: &Path, package: &str) -> Option<serde_json::Value> {
    let path =
        super::build::newest_build_output(crate_dir, package, occupancy_cuda::OUT_DIR_RECORD)?;
    let text = occupancy_core::file::read_text(&path, "build record", 1 << 20).ok()?;
    serde_json::from_str(&text).ok()
}
