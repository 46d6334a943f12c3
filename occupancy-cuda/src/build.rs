//! The build-script call: after a crate's `build.rs` compiled its CUDA sources with nvcc,
//! check every launch of them with the resources of the objects just built, and report
//! through cargo.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use occupancy_core::lint::{Finding, Level};
use occupancy_core::policy::Policy;
use occupancy_spec::Env;

use crate::check::{CheckedLaunch, Compiled, Outcome, PathCounts, check};
use crate::launch::Reading;

/// Where the check records what `cargo occupancy report` needs (the directories and the
/// objects), under `OUT_DIR`.
pub const OUT_DIR_RECORD: &str = "occupancy/cuda-launches.json";

/// The CUDA C++ launches of a crate, checked from its build script.
///
/// ```no_run
/// // build.rs, after compiling src/cuda/*.cu into $OUT_DIR/libkernels.a with nvcc:
/// let lib = std::path::Path::new(&std::env::var("OUT_DIR").unwrap()).join("libkernels.a");
/// occupancy_cuda::CudaLaunches::new("src/cuda").objects([lib]).check();
/// ```
#[derive(Clone, Debug, Default)]
pub struct CudaLaunches {
    dirs: Vec<PathBuf>,
    objects: Vec<PathBuf>,
    crate_dir: Option<PathBuf>,
    out_dir: Option<PathBuf>,
}

/// What [`CudaLaunches::try_check`] found and printed.
pub struct BuildReport {
    /// The launches read.
    pub reading: Reading,
    /// Each launch with its paths checked.
    pub checked: Vec<CheckedLaunch>,
    /// The lines printed for cargo (`cargo:warning=...`, `cargo:rerun-if-changed=...`).
    pub cargo_lines: Vec<String>,
    /// Deny-level findings, rendered (message, notes, helps), each with its location.
    pub denied: Vec<String>,
    /// How long reading and checking took.
    pub elapsed: Duration,
}

impl CudaLaunches {
    /// The `.cu` / `.cuh` files under `dir` (relative to the crate's directory; searched
    /// recursively) and the headers they include.
    pub fn new(dir: impl AsRef<Path>) -> CudaLaunches {
        CudaLaunches {
            dirs: vec![dir.as_ref().to_path_buf()],
            ..CudaLaunches::default()
        }
    }

    /// One more directory (or file) of sources.
    pub fn dir(mut self, dir: impl AsRef<Path>) -> CudaLaunches {
        self.dirs.push(dir.as_ref().to_path_buf());
        self
    }

    /// The objects nvcc built from them: ELF objects, static libraries (`ar` archives),
    /// shared libraries (their `.nv_fatbin` sections hold the cubins), fatbins or cubins.
    pub fn objects<P: AsRef<Path>>(mut self, objects: impl IntoIterator<Item = P>) -> CudaLaunches {
        self.objects
            .extend(objects.into_iter().map(|p| p.as_ref().to_path_buf()));
        self
    }

    /// The crate's directory (default: `CARGO_MANIFEST_DIR`).
    pub fn crate_dir(mut self, dir: impl AsRef<Path>) -> CudaLaunches {
        self.crate_dir = Some(dir.as_ref().to_path_buf());
        self
    }

    /// Where to record what `cargo occupancy report` needs (default: `OUT_DIR`).
    pub fn out_dir(mut self, dir: impl AsRef<Path>) -> CudaLaunches {
        self.out_dir = Some(dir.as_ref().to_path_buf());
        self
    }

    /// Checks, prints the findings as cargo warnings, and exits the build script with
    /// status 1 after printing the deny-level findings (and any error) to stderr.
    pub fn check(&self) {
        match self.try_check() {
            Ok(report) => {
                for line in &report.cargo_lines {
                    println!("{line}");
                }
                if !report.denied.is_empty() {
                    for d in &report.denied {
                        eprintln!("{d}\n");
                    }
                    eprintln!(
                        "error: {} deny-level occupancy finding{} in the CUDA C++ launches (occupancy.toml's [lints] sets the levels)",
                        report.denied.len(),
                        if report.denied.len() == 1 { "" } else { "s" }
                    );
                    std::process::exit(1);
                }
            }
            Err(e) => {
                // A policy's problems are a line each.
                for line in e.lines() {
                    eprintln!("error: occupancy: {line}");
                }
                std::process::exit(1);
            }
        }
    }

    /// Reads the sources once, reads the objects, checks every launch under the crate's
    /// policy, and returns what [`CudaLaunches::check`] prints; writes
    /// [`OUT_DIR_RECORD`] when `OUT_DIR` is set.
    ///
    /// # Errors
    ///
    /// No crate directory (`CARGO_MANIFEST_DIR` unset and none given), a malformed policy.
    pub fn try_check(&self) -> Result<BuildReport, String> {
        let start = Instant::now();
        let crate_dir = match &self.crate_dir {
            Some(d) => d.clone(),
            None => std::env::var_os("CARGO_MANIFEST_DIR")
                .map(PathBuf::from)
                .ok_or("CARGO_MANIFEST_DIR is not set: call this from a build script, or give crate_dir")?,
        };
        let mut env = Env::new(&crate_dir);
        if let Some(p) = std::env::var_os(Policy::ENV_VAR) {
            env = env.with_var(Policy::ENV_VAR, p);
        }
        let (policy, policy_file) =
            occupancy_spec::load_policy(&env, occupancy_spec::policy::Reader::BuildScript)?;
        let reading = crate::read_with_policy(&crate_dir, &self.dirs, &policy);
        let objects: Vec<PathBuf> = self
            .objects
            .iter()
            .map(|o| {
                if o.is_absolute() {
                    o.clone()
                } else {
                    crate_dir.join(o)
                }
            })
            .collect();
        let compiled = Compiled::read(&objects);
        let checked = check(&reading, &policy, &compiled);
        let mut lines = Vec::new();
        let mut denied = Vec::new();
        for note in &reading.notes {
            warn(&mut lines, &format!("occupancy: {note}"));
        }
        for p in &compiled.problems {
            warn(&mut lines, &format!("occupancy: {p}"));
        }
        for n in crate::unmatched_launch_tables(&reading, &policy) {
            warn(&mut lines, &format!("occupancy: {n}"));
        }
        finding_lines(&checked, &mut lines, &mut denied);
        let counts = PathCounts::of(&checked);
        if counts.not_checked() > 0 {
            // The same counts and words as `report --all`'s summary of the C++ launches.
            warn(
                &mut lines,
                &format!(
                    "occupancy: CUDA C++ launches: {counts} (run-time values, kernels not found); `cargo occupancy report --all` lists those not checked with the reason"
                ),
            );
        }
        self.rerun_and_record(
            &crate_dir,
            &reading,
            &objects,
            policy_file.as_deref(),
            &mut lines,
        );
        Ok(BuildReport {
            reading,
            checked,
            cargo_lines: lines,
            denied,
            elapsed: start.elapsed(),
        })
    }

    /// The `cargo:rerun-if-*` lines for the sources, the objects and the policy, and the
    /// record of what was read written to [`OUT_DIR_RECORD`] when there is an `OUT_DIR`.
    fn rerun_and_record(
        &self,
        crate_dir: &Path,
        reading: &Reading,
        objects: &[PathBuf],
        policy_file: Option<&Path>,
        lines: &mut Vec<String>,
    ) {
        // Rerun when a source, an object outside OUT_DIR or the policy changes. Objects
        // the build script writes into OUT_DIR change only when it runs: naming them would
        // make every build rerun it.
        let out_dir = self
            .out_dir
            .clone()
            .or_else(|| std::env::var_os("OUT_DIR").map(PathBuf::from));
        let root = std::fs::canonicalize(crate_dir).unwrap_or_else(|_| crate_dir.to_path_buf());
        for dir in &self.dirs {
            lines.push(format!(
                "cargo:rerun-if-changed={}",
                crate_dir.join(dir).display()
            ));
        }
        for file in &reading.files {
            lines.push(format!(
                "cargo:rerun-if-changed={}",
                root.join(file).display()
            ));
        }
        for o in objects {
            let inside_out = out_dir.as_ref().is_some_and(|d| {
                let d = std::fs::canonicalize(d).unwrap_or_else(|_| d.clone());
                std::fs::canonicalize(o)
                    .unwrap_or_else(|_| o.clone())
                    .starts_with(d)
            });
            if !inside_out {
                lines.push(format!("cargo:rerun-if-changed={}", o.display()));
            }
        }
        // (A policy file that does not exist is not named: cargo would rerun every time.)
        if let Some(p) = policy_file {
            lines.push(format!("cargo:rerun-if-changed={}", p.display()));
        }
        lines.push(format!("cargo:rerun-if-env-changed={}", Policy::ENV_VAR));
        if let Some(out) = &out_dir {
            let record = serde_json::json!({
                "crate_dir": crate_dir,
                "dirs": self.dirs,
                "objects": objects,
            });
            let path = out.join(OUT_DIR_RECORD);
            if let Some(parent) = path.parent() {
                let _ = std::fs::create_dir_all(parent);
            }
            let mut text = serde_json::to_string_pretty(&record).unwrap_or_default();
            let _ = writeln!(text);
            let _ = std::fs::write(path, text);
        }
    }
}

/// `text` as cargo warnings, a line each.
fn warn(lines: &mut Vec<String>, text: &str) {
    for l in text.lines() {
        lines.push(format!("cargo:warning={l}"));
    }
}

/// The findings of `checked` as cargo warnings (`lines`) or errors (`denied`, deny-level),
/// those that differ only in the path printed once.
fn finding_lines(checked: &[CheckedLaunch], lines: &mut Vec<String>, denied: &mut Vec<String>) {
    for c in checked {
        let location = c.launch.location();
        // Findings that differ only in the path (the kernel's type argument, say) are
        // printed once, with the other paths named in a note.
        let mut groups: Vec<(Level, String, Finding, Vec<String>)> = Vec::new();
        for p in &c.paths {
            let Outcome::Checked(spec, evaluation) = &p.outcome else {
                continue;
            };
            let label = spec
                .plans
                .first()
                .and_then(|plan| plan.label.clone())
                .unwrap_or_default();
            for d in &evaluation.diagnostics {
                let level = spec.level(d.finding.lint);
                if level == Level::Allow {
                    continue;
                }
                let key = same_numbers(&d.finding, &label);
                match groups.iter_mut().find(|g| g.0 == level && g.1 == key) {
                    Some(g) => g.3.push(label.clone()),
                    None => groups.push((level, key, d.finding.clone(), Vec::new())),
                }
            }
        }
        for (level, _, mut finding, others) in groups {
            if !others.is_empty() {
                finding.notes.push(format!(
                    "the same on {} other path{} of this launch: {}",
                    others.len(),
                    if others.len() == 1 { "" } else { "s" },
                    others.join("; ")
                ));
            }
            let text = format!(
                "{location}: {}: {}: {finding}",
                if level == Level::Deny {
                    "error"
                } else {
                    "warning"
                },
                finding.lint.name,
            );
            match level {
                Level::Deny => denied.push(text),
                _ => warn(lines, &text),
            }
        }
    }
}

/// A finding's text with its path's label and kernel names taken out: two paths whose
/// findings give this the same have the same numbers, limiter and fix.
fn same_numbers(f: &Finding, label: &str) -> String {
    let mut text = f.to_string().replace(&format!(" ({label})"), "");
    // The resources note names the kernel instantiation; its numbers stay.
    for name in label.split(", ").take(1) {
        text = text.replace(name, "");
        let spaced = name.replace('>', " >");
        text = text.replace(&spaced, "");
    }
    text
}
