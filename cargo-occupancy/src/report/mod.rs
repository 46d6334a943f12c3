//! `cargo occupancy report`: every `#[occupancy::check]` of a crate, evaluated on each of its
//! targets by the attribute's own front end (`occupancy_attr::parse`, then
//! `Spec::evaluate`), as a table (laid out by [`table`]: a row per launch and target, each
//! finding on every target it concerns), JSON or a SARIF 2.1.0 log (rendered by
//! [`sarif`]).
//! Exits 1 when a finding is deny-level (this includes
//! `launch_impossible`) or an attribute has an error: the same wrappers that fail
//! `cargo build`, without building, for CI.
//!
//! What it reads:
//!
//! - every `.rs` file under the crate's `src/`, `examples/`, `benches/` and `tests/` (no
//!   `target/` and no hidden folders), parsed with `syn`;
//! - attributes `#[occupancy::check(...)]` (also `::occupancy::check`) and `#[check(...)]`
//!   or `#[alias(...)]` where the file has `use occupancy::check;`, `use occupancy::check as
//!   alias;`, `use occupancy::{check, ..}` or `use occupancy::*` (anywhere in the file), on
//!   free functions, methods in `impl` blocks and default methods of traits, in nested
//!   modules too; also inside `#[cfg_attr(predicate, ..., occupancy::check(...), ...)]`,
//!   nested `cfg_attr` included;
//! - each wrapper's body and the crate's sources, with the attribute's own reader
//!   (`occupancy_attr`): the launches the body makes, constants from any module of the crate
//!   (imports, `crate::` paths, associated constants, casts, `const fn`s, helpers returning
//!   a `LaunchConfig`), run-time candidates; a constant the reader cannot evaluate leaves
//!   the wrapper "not evaluated" (the build checks it with the compiler);
//! - the policy: `occupancy.toml` beside `Cargo.toml`, or `$OCCUPANCY_POLICY`, as the
//!   attribute reads it;
//! - the resource manifest for `kernel = "..."`: `--kernel-manifest PATH`; else
//!   the file the environment variable `OCCUPANCY_MANIFEST` names; else the newest `target/*/build/<package>-*/out/occupancy/manifest.json`
//!   (also `target/<triple>/*/build/...`; the target folders looked at are
//!   `$CARGO_TARGET_DIR` and `target/` in the crate's folder and each folder above it), which
//!   is what the build helper gave the last build; else the attribute's own fallback (the
//!   policy's `manifest`, then `kernels.manifest.json` beside `Cargo.toml`). A manifest that
//!   records its sources' SHA-256 and is older than them (a kernel edited since) is used
//!   with a warning saying so and how to refresh it (a `warning:` line under the manifest's
//!   in the table, `manifest_stale` in the JSON, stderr with `--format json` or `sarif`).
//!
//! It reads source text, not the build, and does not evaluate `cfg`: a wrapper inside
//! `cfg_attr(predicate, ...)`, or on or inside an item with `#[cfg(...)]` (a function, an
//! `impl`, a trait, an inline module, or a file brought in by `#[cfg(...)] mod name;`, and
//! the files under it) is checked as if the predicate held, and listed as conditional (a
//! `^ conditional, under ...` line under its rows; `conditional`, the predicates, in the
//! JSON) with a summary line counting them. Its deny-level findings and errors fail the
//! report like any other: report cannot tell which features CI builds with, and code the
//! default build leaves out is built by some other configuration.
//!
//! Also: a file that does not parse is an error (its wrappers cannot be checked) and fails
//! the report; an item past the limits that keep `syn` within its stack (a trait with 82
//! `+` bounds) is left out with a note, and the rest of its file is read
//! (`occupancy_attr::parse_source_file`, as the attribute reads the crate's sources); an
//! attribute inside a `macro_rules!` body is listed as checked only by the build; a
//! constant the build can evaluate but this reader cannot leaves the wrapper "not
//! evaluated".
//!
//! `--all` adds every launch of the crate's Rust code in a function without the attribute
//! (`sites`: where, how, the kernel the code names, the attribute a user would write), read
//! by the same front end and marked not annotated; what cannot be read is listed as not
//! checked, with the reason, and does not fail the report. `--annotate` writes the
//! attribute where the build then gives the same findings (`annotate`).
//!
//! Exit status: 0 when no wrapper has a deny-level finding or an error (warnings pass); 1
//! when one has, conditional or not, or a file cannot be read; 2 when the report cannot run
//! (no crate there, no such `--kernel-manifest`).

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Args;
use occupancy_attr::{Env, MANIFEST_VAR, TARGETS_VAR};
use occupancy_core::policy::Policy;
use serde_json::{Value as Json, json};
use syn::visit::Visit;

mod annotate;
mod build;
mod cuda;
mod evaluate;
mod finder;
mod json;
mod model;
mod sarif;
mod sites;
mod table;
mod text;
mod walk;

use build::{
    build_out_dir, build_script_output, crate_dir, newest_build_output, package_name, rustc_env,
    stale_manifest,
};
use evaluate::{evaluate, unannotated};
use finder::Finder;
use json::summary_json;
use model::{Outcome, Wrapper, counts, natural};
use text::{launches, plural, summary_text};
use walk::{Parsed, module_conditions, rust_files};
// Named by `sites` as `super::...`.
use finder::uses;
#[cfg(test)]
use model::attribute_text;
use walk::cfgs;

/// Arguments of `report`.
#[derive(Args, Debug)]
pub struct ReportArgs {
    /// The crate: its folder or its Cargo.toml (default: the current folder).
    #[arg(value_name = "PATH")]
    pub path: Option<PathBuf>,
    /// The crate's Cargo.toml (as cargo's own flag; instead of PATH).
    #[arg(long, value_name = "PATH", conflicts_with = "path")]
    pub manifest_path: Option<PathBuf>,
    /// The resource manifest for `kernel = "..."` (default: the newest build's, see the docs).
    #[arg(long, value_name = "PATH")]
    pub kernel_manifest: Option<PathBuf>,
    /// Output: a table, JSON, or a SARIF 2.1.0 log for CI code scanning (one result per
    /// reported finding, at the attribute key; the lints as rules).
    #[arg(long, value_enum, default_value_t = Format::Table)]
    pub format: Format,
    /// Print JSON instead of a table (the same as `--format json`).
    #[arg(long, conflicts_with = "format")]
    pub json: bool,
    /// In the table, only the targets with a reported finding (and the wrappers with
    /// errors); the summary still counts every wrapper.
    #[arg(long)]
    pub findings_only: bool,
    /// Every kernel launch of the crate, annotated or not: each launching function of its
    /// Rust code without `#[occupancy::check]` is read as the attribute would read it (the
    /// kernel named from the code), marked `not annotated`; and the CUDA C++ launches of its
    /// `.cu` / `.cuh` files (the folders its build's `occupancy_cuda::CudaLaunches`
    /// recorded, else `src/`, `cuda/`, `kernels/`, `csrc/`), each path checked with the
    /// newest build's objects or `--kernel-manifest`. What cannot be read is listed with
    /// the reason.
    #[arg(long)]
    pub all: bool,
    /// With `--all`: write `#[occupancy::check(...)]` above each launching function that is
    /// not annotated, where the result builds (`cargo check`) and gives the report's
    /// findings; print what was annotated and what not, and why.
    #[arg(long)]
    pub annotate: bool,
}

/// What `report` prints.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// One row per wrapper and target, then a summary.
    Table,
    /// Every wrapper, target and finding (findings at level allow too).
    Json,
    /// A SARIF 2.1.0 log: one result per reported finding, for CI code scanning.
    Sarif,
}

impl ReportArgs {
    fn format(&self) -> Format {
        if self.json { Format::Json } else { self.format }
    }
}

/// Runs `report`: prints the table (or JSON) and returns the exit status.
pub fn run(args: &ReportArgs) -> ExitCode {
    match report(args) {
        Ok((text, failed)) => {
            print!("{text}");
            if failed {
                ExitCode::FAILURE
            } else {
                ExitCode::SUCCESS
            }
        }
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::from(2)
        }
    }
}

/// The report's text and whether it found a deny-level finding or an error.
fn report(args: &ReportArgs) -> Result<(String, bool), String> {
    let crate_dir = crate_dir(args)?;
    let package = package_name(&crate_dir)?;
    let (manifest, manifest_origin) = match &args.kernel_manifest {
        Some(path) => {
            let path = std::path::absolute(path).unwrap_or_else(|_| path.clone());
            if !path.is_file() {
                return Err(format!(
                    "--kernel-manifest {}: no such file",
                    path.display()
                ));
            }
            (Some(path), "--kernel-manifest")
        }
        None => match std::env::var_os(MANIFEST_VAR).filter(|v| !v.is_empty()) {
            Some(value) => (
                Some(PathBuf::from(value)),
                "named by the environment variable OCCUPANCY_MANIFEST",
            ),
            None => {
                match newest_build_output(&crate_dir, &package, occupancy_attr::OUT_DIR_MANIFEST) {
                    Some(path) => (Some(path), "the newest build"),
                    None => (
                        None,
                        "no build output found under $CARGO_TARGET_DIR or a target/ folder (build first, with the same CARGO_TARGET_DIR, or pass --kernel-manifest); `kernel = ...` falls back to the policy's `manifest`, else kernels.manifest.json",
                    ),
                }
            }
        },
    };
    let mut env = Env::new(&crate_dir);
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
    let stale = stale_manifest(&crate_dir, manifest.as_deref(), manifest_origin);
    if let Some(policy) = std::env::var_os(Policy::ENV_VAR) {
        env = env.with_var(Policy::ENV_VAR, policy);
    }

    let mut parsed = Vec::new();
    let mut unreadable = Vec::new();
    let (files, skipped) = rust_files(&crate_dir);
    for note in skipped {
        eprintln!("note: {note}");
    }
    for file in files {
        let shown = file
            .strip_prefix(&crate_dir)
            .unwrap_or(&file)
            .display()
            .to_string();
        let text = match occupancy_core::file::read_text(
            &file,
            "source file",
            occupancy_core::file::MAX_TEXT_BYTES,
        ) {
            Ok(text) => text,
            Err(e) => {
                unreadable.push(format!("{shown}: {}", e.reason));
                continue;
            }
        };
        // Items past the limits that keep syn within its stack are left out (a note);
        // the rest of the file is read.
        let source = match occupancy_attr::parse_source_file(&text, &shown) {
            Ok(source) => source,
            Err(e) => {
                let at = e.span().start();
                unreadable.push(format!("{shown}:{}:{}: {e}", at.line, at.column + 1));
                continue;
            }
        };
        for skipped in &source.skipped {
            let what = match &skipped.body_of {
                Some(_) => format!("the body of `{}`", skipped.what),
                None => format!("`{}`", skipped.what),
            };
            eprintln!(
                "note: {shown}:{}: {what} is not read: {}",
                skipped.span.start().line,
                skipped.why
            );
        }
        parsed.push(Parsed {
            path: file,
            shown,
            syntax: source.syntax,
            skipped: source.skipped,
        });
    }
    let inherited = module_conditions(&crate_dir, &parsed);
    let mut wrappers = Vec::new();
    for file in &parsed {
        let conditions = inherited.get(&file.path).cloned().unwrap_or_default();
        let mut finder = Finder::new(&file.syntax, conditions.clone());
        finder.visit_file(&file.syntax);
        for found in std::mem::take(&mut finder.found) {
            wrappers.push(evaluate(file, found, &env));
        }
        // `#[occupancy::check]` written inside a `macro_rules!` body: only its expansions
        // can be checked, which the build does.
        for (line, name) in sites::attributes_in_macros(&file.syntax) {
            wrappers.push(Wrapper {
                location: format!("{}:{line}", file.shown),
                name: format!("macro_rules! {name}"),
                conditions: conditions.clone(),
                outcome: Outcome::BuildOnly(format!(
                    "checked only by the build: the attribute is inside `macro_rules! {name}`, \
                     whose expansions the report does not see"
                )),
                site: None,
                cuda: None,
            });
        }
    }
    if args.all || args.annotate {
        let files: Vec<sites::File<'_>> = parsed
            .iter()
            .map(|p| sites::File {
                shown: &p.shown,
                syntax: &p.syntax,
                conditions: inherited.get(&p.path).cloned().unwrap_or_default(),
            })
            .collect();
        wrappers.extend(unannotated(&parsed, sites::find(&files), &env));
    }
    // Files in the order they were walked, each in line order.
    let walked: BTreeMap<&str, usize> = parsed
        .iter()
        .enumerate()
        .map(|(i, p)| (p.shown.as_str(), i))
        .collect();
    wrappers.sort_by_key(|w| {
        let (file, line) = natural(&w.location);
        (
            walked.get(file.as_str()).copied().unwrap_or(usize::MAX),
            line,
        )
    });

    let cuda = if args.all {
        let policy = match occupancy_attr::load_policy(&env) {
            Ok((policy, _)) => policy,
            Err(e) => {
                unreadable.push(e);
                Policy::default()
            }
        };
        Some(cuda::section(
            &crate_dir,
            &package,
            args.kernel_manifest.as_deref(),
            &policy,
        ))
    } else {
        None
    };
    let cuda_wrappers: &[Wrapper] = cuda.as_ref().map_or(&[], |c| c.wrappers.as_slice());

    // A file that does not parse may hold wrappers the build would reject: no pass.
    let failed = wrappers.iter().any(Wrapper::fails)
        || cuda_wrappers.iter().any(Wrapper::fails)
        || !unreadable.is_empty();
    let format = args.format();
    if let Some(warning) = stale.as_ref().filter(|_| format != Format::Table) {
        eprintln!("warning: {warning}");
    }
    let text = if format == Format::Sarif {
        let all: Vec<&Wrapper> = wrappers.iter().chain(cuda_wrappers).collect();
        sarif::log(&crate_dir, &all, &unreadable)
    } else if format == Format::Json {
        let mut json = json!({
            "crate": package,
            "path": crate_dir.display().to_string(),
            "manifest": manifest.as_ref().map(|p| p.display().to_string()),
            "manifest_origin": manifest_origin,
            "manifest_stale": stale,
            "wrappers": wrappers.iter().map(Wrapper::to_json).collect::<Vec<_>>(),
            "unreadable": unreadable,
            "summary": summary_json(&wrappers),
            "failed": failed,
        });
        if let Some(c) = &cuda {
            json["cuda_launches"] = cuda_wrappers.iter().map(Wrapper::to_json).collect();
            json["cuda"] = json!({
                "dirs": c.dirs,
                "resources": c.resources,
                "notes": c.notes,
                "launch_sites": c.sites,
                "paths": c.paths,
                "checked": c.checked,
            });
        }
        let mut s = serde_json::to_string_pretty(&json).unwrap_or_default();
        s.push('\n');
        s
    } else {
        let mut s = String::new();
        let _ = writeln!(s, "crate {package} ({})", crate_dir.display());
        let manifest_line = match &manifest {
            Some(path) => format!(
                "resource manifest: {} ({manifest_origin})",
                path.strip_prefix(&crate_dir).unwrap_or(path).display()
            ),
            None => format!("resource manifest: {manifest_origin}"),
        };
        table::wrap(&mut s, &manifest_line, 0, 2);
        if let Some(warning) = &stale {
            table::wrap(&mut s, &format!("warning: {warning}"), 0, 2);
        }
        s.push('\n');
        s.push_str(&table::render(&launches(&wrappers), args.findings_only));
        for line in &unreadable {
            table::wrap(
                &mut s,
                &format!("error: cannot read {line} (its wrappers are not checked)"),
                0,
                2,
            );
        }
        s.push('\n');
        for line in summary_text(&wrappers).lines() {
            table::wrap(&mut s, line, 0, 2);
        }
        if let Some(c) = &cuda {
            s.push('\n');
            let header = format!(
                "CUDA C++ launches ({}; resources: {})",
                if c.dirs.is_empty() {
                    "no source folder found".to_owned()
                } else {
                    c.dirs.join(", ")
                },
                c.resources
            );
            table::wrap(&mut s, &header, 0, 2);
            s.push('\n');
            if !c.wrappers.is_empty() {
                s.push_str(&table::render(&launches(&c.wrappers), args.findings_only));
            }
            for note in &c.notes {
                table::wrap(&mut s, &format!("note: {note}"), 0, 2);
            }
            let counts = counts(&c.wrappers);
            s.push('\n');
            let line = format!(
                "{} launch site{}, {} path{}: {} checked, {} not checked; {} deny-level finding{}, {} warning{}",
                c.sites,
                plural(c.sites),
                c.paths,
                plural(c.paths),
                c.checked,
                c.paths - c.checked,
                counts.deny,
                plural(counts.deny),
                counts.warn,
                plural(counts.warn),
            );
            table::wrap(&mut s, &line, 0, 2);
        }
        s
    };
    if args.annotate {
        let summary = annotate::annotate(&crate_dir, &wrappers)?;
        if format == Format::Table {
            let mut text = text;
            text.push('\n');
            text.push_str(&summary);
            return Ok((text, failed));
        }
        eprint!("{summary}");
    }
    Ok((text, failed))
}

/// A wrapper that names a compiled kernel (`kernel = "..."`), for `profile`.
pub struct KernelWrapper {
    /// The wrapper function's name.
    pub wrapper: String,
    /// `file:line`, relative to the crate.
    pub location: String,
    /// The kernel it names.
    pub kernel: String,
    /// Registers per thread of the kernel's cubin, per compute capability (`"9.0"`).
    pub registers: Vec<(String, u32)>,
}

/// The wrappers of the crate at `path` that name a kernel, as `report --json` lists them
/// (the one entry point `profile` uses, so that it depends on the report's output, not on
/// its internals).
///
/// # Errors
///
/// What `report` cannot run on (no crate there).
pub fn kernel_wrappers(path: &Path) -> Result<Vec<KernelWrapper>, String> {
    let args = ReportArgs {
        path: Some(path.to_path_buf()),
        manifest_path: None,
        kernel_manifest: None,
        format: Format::Json,
        json: false,
        findings_only: false,
        all: false,
        annotate: false,
    };
    let (text, _) = report(&args)?;
    let json: Json = serde_json::from_str(&text).map_err(|e| e.to_string())?;
    let wrappers = json["wrappers"].as_array().cloned().unwrap_or_default();
    Ok(wrappers
        .iter()
        .filter_map(|w| {
            Some(KernelWrapper {
                wrapper: w["wrapper"].as_str()?.to_owned(),
                location: w["location"].as_str()?.to_owned(),
                kernel: w["kernel"].as_str()?.to_owned(),
                registers: w["targets"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(|t| {
                        let regs = u32::try_from(t["registers_per_thread"].as_u64()?).ok()?;
                        Some((t["compute_capability"].as_str()?.to_owned(), regs))
                    })
                    .collect(),
            })
        })
        .collect())
}
