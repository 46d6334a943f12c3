//! `cargo occupancy report`: every `#[occupancy::check]` of a crate, evaluated on each of its
//! targets by the attribute's own front end (`occupancy_attr::parse`, then
//! `Spec::evaluate`), as a table ([`text`], laid out by [`table`]: a row per launch and
//! target, each finding on every target it concerns), JSON ([`json`]) or a SARIF 2.1.0 log
//! ([`sarif`]).
//! Exits 1 when a finding is deny-level (this includes
//! `launch_impossible`) or an attribute has an error: the same wrappers that fail
//! `cargo build`, without building, for CI.
//!
//! One module per job, in the order the pipeline ([`report`]) runs them: [`build`] finds
//! the crate, the newest build's resource manifest and `OUT_DIR`; [`walk`] lists and parses
//! the `.rs` files and the `cfg`s of the `mod` declarations that bring them in; [`finder`]
//! finds the attributes and [`sites`] (with `--all`) the launches without one; [`evaluate`]
//! checks both with the attribute's front end, and [`cuda`] the C++ launches with
//! `occupancy-cuda`; each becomes a [`model::Wrapper`] of the [`model::Report`], which the
//! renderers [`text`], [`json`] and [`sarif`] print. [`annotate`] writes the attribute
//! (`--annotate`).
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
//! - the policy: `--policy PATH`, else `$OCCUPANCY_POLICY`, else `occupancy.toml` beside
//!   `Cargo.toml`, as the
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
//! (no crate there, no such `--kernel-manifest`, a policy file that cannot be read or has
//! problems: each problem said once, not once per wrapper that reads the file).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Args;
use serde_json::Value as Json;

mod annotate;
mod build;
mod cuda;
mod deps;
mod evaluate;
mod finder;
mod fit;
mod json;
mod macro_consts;
mod model;
mod sarif;
mod sites;
mod table;
mod text;
mod walk;

use build::{Setup, crate_dir, package_name, setup};
use evaluate::{annotated, unannotated};
use model::{Report, Wrapper, natural};
use walk::{module_conditions, parse_again, parse_files};
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
    /// The policy to use instead of the crate's `occupancy.toml` (as `$OCCUPANCY_POLICY`,
    /// which it overrides): a user's own declarations for a crate they depend on, kept
    /// outside it (read from anywhere, as a file given on the command line).
    #[arg(long, value_name = "PATH")]
    pub policy: Option<PathBuf>,
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
    /// With `--annotate`: the features its `cargo check` enables (as cargo's `--features`,
    /// comma- or space-separated). A launch under exactly `#[cfg(feature = "x")]` (on its
    /// item or a `mod` that brings it in) with `x` among them is annotated, the build
    /// compiling it; any other `cfg` still keeps a launch unannotated.
    #[arg(long, value_name = "FEATURES", requires = "annotate")]
    pub features: Option<String>,
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
            if let Err(code) = crate::output::print(&text) {
                return code;
            }
            if failed {
                ExitCode::FAILURE
            } else {
                ExitCode::SUCCESS
            }
        }
        Err(message) => {
            // A policy's problems are a line each.
            for line in message.lines() {
                eprintln!("error: {line}");
            }
            ExitCode::from(2)
        }
    }
}

/// The report's text and whether it found a deny-level finding or an error.
fn report(args: &ReportArgs) -> Result<(String, bool), String> {
    let crate_dir = crate_dir(args)?;
    let package = package_name(&crate_dir)?;
    let Setup {
        env,
        policy,
        manifest,
        manifest_origin,
        stale,
    } = setup(args, &crate_dir, &package)?;
    // Each file's syntax tree is read once and dropped: what the attributes and the
    // launches need of it is kept.
    let all = args.all || args.annotate;
    let mut annotations = Vec::new();
    let mut collector = sites::Collector::default();
    let (parsed, unreadable) = parse_files(&crate_dir, |file, syntax| {
        annotations.push(evaluate::annotations(syntax));
        if all {
            collector.add(&file.shown, syntax);
        }
    });
    let inherited = module_conditions(&parsed);
    let mut wrappers = annotated(&parsed, annotations, &inherited, &env);
    if all {
        let conditions = parsed
            .iter()
            .map(|p| inherited.get(&p.path).cloned().unwrap_or_default())
            .collect();
        let dependencies = deps::Dependencies::new(&crate_dir);
        let launches = collector.finish(
            conditions,
            |i| parsed.get(i).and_then(parse_again),
            &|path| dependencies.helper(path),
        );
        wrappers.extend(unannotated(&parsed, launches, &env, manifest.as_deref()));
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
    let report = Report {
        package,
        crate_dir,
        manifest,
        manifest_origin,
        stale,
        wrappers,
        cuda,
        unreadable,
        failed,
    };
    let text = match format {
        Format::Sarif => {
            let all: Vec<&Wrapper> = report
                .wrappers
                .iter()
                .chain(report.cuda_wrappers())
                .collect();
            sarif::log(&report.crate_dir, &all, &report.unreadable)
        }
        Format::Json => json::document(&report),
        Format::Table => text::document(&report, args.findings_only),
    };
    if args.annotate {
        let summary = annotate::annotate(
            &report.crate_dir,
            &report.wrappers,
            args.features.as_deref(),
        )?;
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
        policy: None,
        format: Format::Json,
        json: false,
        findings_only: false,
        all: false,
        annotate: false,
        features: None,
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
