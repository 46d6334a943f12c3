//! `cargo occupancy report`: every `#[occupancy::check]` of a crate, evaluated on each of its
//! targets by the attribute's own front end (`occupancy_attr::parse`, then
//! `Spec::evaluate`), as a table (laid out by [`table`]: a row per launch and target, each
//! finding on every target it concerns), JSON or a SARIF 2.1.0 log (rendered by
//! `crate::sarif`).
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

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::SystemTime;

use clap::Args;
use occupancy_attr::{Diagnostic, Env, Evaluation, MANIFEST_VAR, Spec, TARGETS_VAR};
use occupancy_core::lint::{LAUNCH_IMPOSSIBLE, Level, bytes_text, percent};
use occupancy_core::policy::Policy;
use proc_macro2::{Span, TokenStream, TokenTree};
use serde_json::{Value as Json, json};
use syn::visit::Visit;
use syn::{Attribute, Expr, Meta, Signature, UseTree};

mod annotate;
mod sites;
mod table;

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
        Some(crate::cuda::section(
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
        crate::sarif::log(&crate_dir, &all, &unreadable)
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

fn crate_dir(args: &ReportArgs) -> Result<PathBuf, String> {
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
    if !dir.join("Cargo.toml").is_file() {
        return Err(format!("{}: no Cargo.toml there", dir.display()));
    }
    Ok(dir)
}

fn package_name(crate_dir: &Path) -> Result<String, String> {
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
fn build_out_dir(manifest: &Path) -> Option<&Path> {
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
fn build_script_output(out_dir: &Path) -> Vec<String> {
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
fn rustc_env(lines: &[String], name: &str) -> Option<String> {
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
fn stale_manifest(crate_dir: &Path, manifest: Option<&Path>, origin: &str) -> Option<String> {
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

/// Every `.rs` file under the crate's `src/`, `examples/`, `benches/`, `tests/` (in that
/// order, sorted in each; files reached only through links last), each once however many symbolic links lead to it (a link loop is walked once), under
/// its own path rather than a link's where both lead to it; and a note for each entry
/// skipped: a `.rs` entry that is not a regular file (a FIFO, a device: never opened), a
/// link that resolves outside the crate's directory (never followed: `ln -s / src/root`
/// would walk the machine).
fn rust_files(crate_dir: &Path) -> (Vec<PathBuf>, Vec<String>) {
    use std::collections::HashSet;
    struct Walk {
        /// The crate's directory, links resolved.
        root: PathBuf,
        /// Directories and files visited, links resolved.
        seen: HashSet<PathBuf>,
        files: Vec<PathBuf>,
        skipped: Vec<String>,
        /// Links met, followed once every plain path has been walked.
        links: Vec<PathBuf>,
    }
    impl Walk {
        fn visit(&mut self, path: PathBuf) {
            let Ok(metadata) = std::fs::metadata(&path) else {
                return;
            };
            let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
            if !metadata.is_dir() && !name.ends_with(".rs") {
                return;
            }
            if let Some(kind) =
                occupancy_core::file::non_regular(&metadata).filter(|_| !metadata.is_dir())
            {
                self.skipped
                    .push(format!("{}: {kind}, skipped", path.display()));
                return;
            }
            let Ok(real) = std::fs::canonicalize(&path) else {
                return;
            };
            if !real.starts_with(&self.root) {
                self.skipped.push(format!(
                    "{}: a link to {}, outside the crate's directory, not followed",
                    path.display(),
                    real.display()
                ));
                return;
            }
            if !self.seen.insert(real) {
                return;
            }
            if !metadata.is_dir() {
                self.files.push(path);
                return;
            }
            let Ok(entries) = std::fs::read_dir(&path) else {
                return;
            };
            let mut entries: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
            entries.sort();
            for entry in entries {
                let name = entry.file_name().and_then(|n| n.to_str()).unwrap_or("");
                if name.starts_with('.') || name == "target" {
                    continue;
                }
                if std::fs::symlink_metadata(&entry).is_ok_and(|m| m.file_type().is_symlink()) {
                    self.links.push(entry);
                } else {
                    self.visit(entry);
                }
            }
        }
    }
    let mut w = Walk {
        root: std::fs::canonicalize(crate_dir).unwrap_or_else(|_| crate_dir.to_path_buf()),
        seen: HashSet::new(),
        files: Vec::new(),
        skipped: Vec::new(),
        links: Vec::new(),
    };
    for sub in ["src", "examples", "benches", "tests"] {
        w.visit(crate_dir.join(sub));
    }
    // The links last, so that a file reached both ways keeps its own path.
    while !w.links.is_empty() {
        for link in std::mem::take(&mut w.links) {
            w.visit(link);
        }
    }
    (w.files, w.skipped)
}

/// A file that parsed: its path, its path as shown (relative to the crate) and its syntax.
struct Parsed {
    path: PathBuf,
    shown: String,
    syntax: syn::File,
    /// Items past the parser's limits, left out of `syntax` (a function keeps its
    /// signature, with an empty body).
    skipped: Vec<occupancy_attr::Skipped>,
}

/// For each file that a `mod` declaration carrying `#[cfg(...)]` brings in (directly or
/// through other modules), those conditions, outermost first: `#[cfg(feature = "x")] mod
/// broken;` in `src/lib.rs` makes every wrapper of `src/broken.rs` and of the files under it
/// conditional.
fn module_conditions(crate_dir: &Path, files: &[Parsed]) -> BTreeMap<PathBuf, Vec<String>> {
    let known: BTreeSet<&Path> = files.iter().map(|f| f.path.as_path()).collect();
    // Child file -> (the file declaring it, the declaration's conditions): the first
    // declaration found wins.
    let mut parents: BTreeMap<PathBuf, (PathBuf, Vec<String>)> = BTreeMap::new();
    for file in files {
        let mut declared = Vec::new();
        let base = file.path.parent().unwrap_or(crate_dir);
        module_declarations(
            &file.syntax.items,
            &module_dir(crate_dir, &file.path),
            base,
            &file.shown,
            &[],
            &mut declared,
        );
        for (child, conditions) in declared {
            if known.contains(child.as_path()) && child != file.path {
                parents
                    .entry(child)
                    .or_insert_with(|| (file.path.clone(), conditions));
            }
        }
    }
    let mut out = BTreeMap::new();
    for file in files {
        let mut chain = Vec::new();
        let mut seen = BTreeSet::new();
        let mut at = &file.path;
        while let Some((parent, conditions)) = parents.get(at) {
            if !seen.insert(at) {
                break;
            }
            chain.push(conditions.clone());
            at = parent;
        }
        chain.reverse();
        let conditions = chain.concat();
        if !conditions.is_empty() {
            out.insert(file.path.clone(), conditions);
        }
    }
    out
}

/// The files that the `mod name;` declarations of `items` bring in, each with the `cfg`
/// conditions on it and on the inline modules around it. `dir`: where `mod name;` looks for
/// `name.rs` and `name/mod.rs`; `base`: what `#[path = "..."]` is relative to.
fn module_declarations(
    items: &[syn::Item],
    dir: &Path,
    base: &Path,
    shown: &str,
    conditions: &[String],
    out: &mut Vec<(PathBuf, Vec<String>)>,
) {
    for item in items {
        let syn::Item::Mod(m) = item else {
            continue;
        };
        let name = m.ident.to_string();
        let mut inner = conditions.to_vec();
        let line = m.mod_token.span.start().line;
        inner.extend(cfgs(&m.attrs, &format!("mod {name} ({shown}:{line})")));
        let explicit = m.attrs.iter().find_map(|a| match &a.meta {
            Meta::NameValue(nv) if nv.path.is_ident("path") => match &nv.value {
                Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Str(s),
                    ..
                }) => Some(s.value()),
                _ => None,
            },
            _ => None,
        });
        match (&m.content, explicit) {
            (Some((_, items)), explicit) => {
                let sub = dir.join(explicit.unwrap_or(name));
                module_declarations(items, &sub, &sub, shown, &inner, out);
            }
            (None, Some(path)) => out.push((normalize(&base.join(path)), inner)),
            (None, None) => {
                let file = dir.join(format!("{name}.rs"));
                let folder = dir.join(&name).join("mod.rs");
                out.push((file, inner.clone()));
                out.push((folder, inner));
            }
        }
    }
}

/// The folder where a file's `mod name;` looks: the file's own folder for crate roots and
/// `mod.rs`, else a folder named after the file (`src/a.rs`: `src/a/`).
fn module_dir(crate_dir: &Path, file: &Path) -> PathBuf {
    let parent = file.parent().unwrap_or(crate_dir);
    let name = file.file_name().and_then(|n| n.to_str()).unwrap_or("");
    let roots = ["examples", "tests", "benches", "src/bin"].map(|r| crate_dir.join(r));
    let is_root_folder = |dir: &Path| roots.iter().any(|r| r == dir);
    let crate_root = is_root_folder(parent)
        || (matches!(name, "lib.rs" | "main.rs")
            && (parent == crate_dir.join("src") || parent.parent().is_some_and(is_root_folder)));
    if name == "mod.rs" || crate_root {
        parent.to_path_buf()
    } else {
        parent.join(file.file_stem().unwrap_or_default())
    }
}

/// `a/./b/../c` -> `a/c`, without the file system.
fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            std::path::Component::CurDir => {}
            std::path::Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

/// `cfg(PREDICATE) on WHAT` for each `#[cfg(...)]` of an item.
pub(crate) fn cfgs(attrs: &[Attribute], what: &str) -> Vec<String> {
    attrs
        .iter()
        .filter(|a| a.path().is_ident("cfg"))
        .filter_map(|a| match &a.meta {
            Meta::List(list) => Some(format!(
                "cfg({}) on {what}",
                predicate_text(list.tokens.clone())
            )),
            _ => None,
        })
        .collect()
}

/// A cfg predicate as written, spaced as rustfmt would: `not(feature = "nodeny")`.
fn predicate_text(tokens: TokenStream) -> String {
    match syn::parse2::<Meta>(tokens.clone()) {
        Ok(meta) => meta_text(&meta),
        Err(_) => tokens.to_string(),
    }
}

fn meta_text(meta: &Meta) -> String {
    let path = |p: &syn::Path| {
        let segments: Vec<String> = p.segments.iter().map(|s| s.ident.to_string()).collect();
        let leading = if p.leading_colon.is_some() { "::" } else { "" };
        format!("{leading}{}", segments.join("::"))
    };
    match meta {
        Meta::Path(p) => path(p),
        Meta::NameValue(nv) => format!(
            "{} = {}",
            path(&nv.path),
            quote::ToTokens::to_token_stream(&nv.value)
        ),
        Meta::List(list) => {
            let items: Vec<String> = split_top_level(list.tokens.clone())
                .into_iter()
                .map(predicate_text)
                .collect();
            format!("{}({})", path(&list.path), items.join(", "))
        }
    }
}

/// `tokens` split at the commas outside any group; no empty pieces.
fn split_top_level(tokens: TokenStream) -> Vec<TokenStream> {
    let mut pieces = Vec::new();
    let mut current = Vec::new();
    for tree in tokens {
        match &tree {
            TokenTree::Punct(p) if p.as_char() == ',' => {
                if !current.is_empty() {
                    pieces.push(std::mem::take(&mut current).into_iter().collect());
                }
            }
            _ => current.push(tree),
        }
    }
    if !current.is_empty() {
        pieces.push(current.into_iter().collect());
    }
    pieces
}

/// One attribute found in a file.
#[derive(Clone)]
struct Found {
    line: usize,
    args: TokenStream,
    sig: Signature,
    /// The function's body (`None` for a trait method without a default).
    body: Option<syn::Block>,
    attribute: Span,
    /// The `cfg` and `cfg_attr` predicates it is under (see [`Finder::conditions`]).
    conditions: Vec<String>,
}

/// Walks a file for the attribute, with the names it goes by.
struct Finder {
    /// Single-segment names bound to `occupancy::check` by `use`.
    aliases: Vec<String>,
    /// The conditions around the item being visited: those of the `mod` declarations that
    /// bring the file in, then `cfg(...) on <item>` for each enclosing item with `#[cfg]`.
    conditions: Vec<String>,
    found: Vec<Found>,
}

impl Finder {
    fn new(file: &syn::File, conditions: Vec<String>) -> Finder {
        let mut collector = Collector::default();
        collector.visit_file(file);
        Finder {
            aliases: collector.aliases,
            conditions,
            found: Vec::new(),
        }
    }

    fn is_check(&self, path: &syn::Path) -> bool {
        let segments: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
        match segments.as_slice() {
            [a, b] => a == "occupancy" && b == "check",
            [one] => self.aliases.contains(one),
            _ => false,
        }
    }

    fn consider(&mut self, attrs: &[Attribute], sig: &Signature, body: Option<&syn::Block>) {
        for attr in attrs {
            if self.is_check(attr.path()) {
                let conditions = self.conditions.clone();
                self.push(&attr.meta, attr.pound_token.span, sig, body, conditions);
            } else if attr.path().is_ident("cfg_attr")
                && let Meta::List(list) = &attr.meta
            {
                let conditions = self.conditions.clone();
                self.cfg_attr(list.tokens.clone(), sig, body, conditions);
            }
        }
    }

    /// The attribute inside `cfg_attr(predicate, attr, ...)`, in nested `cfg_attr` too.
    fn cfg_attr(
        &mut self,
        tokens: TokenStream,
        sig: &Signature,
        body: Option<&syn::Block>,
        mut conditions: Vec<String>,
    ) {
        let mut pieces = split_top_level(tokens).into_iter();
        let Some(predicate) = pieces.next() else {
            return;
        };
        conditions.push(format!("cfg_attr({})", predicate_text(predicate)));
        for piece in pieces {
            let Ok(meta) = syn::parse2::<Meta>(piece) else {
                continue;
            };
            if self.is_check(meta.path()) {
                let path = meta.path();
                let at = match (&path.leading_colon, path.segments.first()) {
                    (Some(colons), _) => colons.spans[0],
                    (None, Some(first)) => first.ident.span(),
                    (None, None) => Span::call_site(),
                };
                self.push(&meta, at, sig, body, conditions.clone());
            } else if let Meta::List(list) = &meta
                && list.path.is_ident("cfg_attr")
            {
                self.cfg_attr(list.tokens.clone(), sig, body, conditions.clone());
            }
        }
    }

    fn push(
        &mut self,
        meta: &Meta,
        attribute: Span,
        sig: &Signature,
        body: Option<&syn::Block>,
        conditions: Vec<String>,
    ) {
        let args = match meta {
            Meta::List(list) => list.tokens.clone(),
            Meta::Path(_) => TokenStream::new(),
            // `#[occupancy::check = ...]`: not an attribute macro call; the parse reports it
            // as malformed arguments.
            Meta::NameValue(nv) => quote::quote!(= #nv),
        };
        self.found.push(Found {
            line: attribute.start().line,
            args,
            sig: sig.clone(),
            body: body.cloned(),
            attribute,
            conditions,
        });
    }

    /// Visits an item with its `#[cfg(...)]` conditions added while inside.
    fn within(&mut self, attrs: &[Attribute], what: &str, visit: impl FnOnce(&mut Finder)) {
        let depth = self.conditions.len();
        self.conditions.extend(cfgs(attrs, what));
        visit(self);
        self.conditions.truncate(depth);
    }
}

impl<'ast> Visit<'ast> for Finder {
    fn visit_item_fn(&mut self, f: &'ast syn::ItemFn) {
        self.within(&f.attrs, &format!("fn {}", f.sig.ident), |this| {
            this.consider(&f.attrs, &f.sig, Some(&f.block));
            syn::visit::visit_item_fn(this, f);
        });
    }
    fn visit_impl_item_fn(&mut self, f: &'ast syn::ImplItemFn) {
        self.within(&f.attrs, &format!("fn {}", f.sig.ident), |this| {
            this.consider(&f.attrs, &f.sig, Some(&f.block));
            syn::visit::visit_impl_item_fn(this, f);
        });
    }
    fn visit_trait_item_fn(&mut self, f: &'ast syn::TraitItemFn) {
        self.within(&f.attrs, &format!("fn {}", f.sig.ident), |this| {
            if let Some(body) = &f.default {
                this.consider(&f.attrs, &f.sig, Some(body));
            }
            syn::visit::visit_trait_item_fn(this, f);
        });
    }
    fn visit_item_mod(&mut self, m: &'ast syn::ItemMod) {
        self.within(&m.attrs, &format!("mod {}", m.ident), |this| {
            syn::visit::visit_item_mod(this, m);
        });
    }
    fn visit_item_impl(&mut self, i: &'ast syn::ItemImpl) {
        let what = match &*i.self_ty {
            syn::Type::Path(p) => p
                .path
                .segments
                .last()
                .map_or_else(|| "impl".to_owned(), |s| format!("impl {}", s.ident)),
            _ => "impl".to_owned(),
        };
        self.within(&i.attrs, &what, |this| syn::visit::visit_item_impl(this, i));
    }
    fn visit_item_trait(&mut self, t: &'ast syn::ItemTrait) {
        self.within(&t.attrs, &format!("trait {}", t.ident), |this| {
            syn::visit::visit_item_trait(this, t);
        });
    }
}

/// First pass: `use` bindings of `occupancy::check`.
#[derive(Default)]
struct Collector {
    aliases: Vec<String>,
}

impl<'ast> Visit<'ast> for Collector {
    fn visit_item_use(&mut self, item: &'ast syn::ItemUse) {
        uses(&item.tree, &[], &mut self.aliases);
    }
}

/// Adds to `out` the names `tree` binds to `occupancy::check` (`prefix`: the path so far).
pub(crate) fn uses(tree: &UseTree, prefix: &[String], out: &mut Vec<String>) {
    let is_check = |prefix: &[String], last: &str| {
        prefix.len() == 1 && prefix[0] == "occupancy" && last == "check"
    };
    match tree {
        UseTree::Path(p) => {
            let mut next = prefix.to_vec();
            next.push(p.ident.to_string());
            uses(&p.tree, &next, out);
        }
        UseTree::Name(n) if is_check(prefix, &n.ident.to_string()) => out.push("check".into()),
        UseTree::Rename(r) if is_check(prefix, &r.ident.to_string()) => {
            out.push(r.rename.to_string());
        }
        UseTree::Glob(_) if prefix.len() == 1 && prefix[0] == "occupancy" => {
            out.push("check".into());
        }
        UseTree::Group(g) => {
            for tree in &g.items {
                uses(tree, prefix, out);
            }
        }
        _ => {}
    }
}

/// One launch site's result: a wrapper with `#[occupancy::check]`, or (`--all`) a launching
/// function without one. (The row model of every kind of launch site: a location, the
/// launching function, the kernel or family, the numbers per target.)
pub(crate) struct Wrapper {
    /// `file:line` of the attribute, the file relative to the crate; for a launching
    /// function not annotated, of its launch.
    pub(crate) location: String,
    /// The wrapper or launching function.
    pub(crate) name: String,
    /// The `cfg` / `cfg_attr` predicates it is under; evaluated as if they held.
    pub(crate) conditions: Vec<String>,
    pub(crate) outcome: Outcome,
    /// For a launching function not annotated: how it launches, and the attribute it would
    /// take. `None`: annotated.
    pub(crate) site: Option<Site>,
    /// For a path of a CUDA C++ launch (`report --all`): what the launch is.
    pub(crate) cuda: Option<CudaSite>,
}

/// A launch found by `--all` in a function without the attribute.
pub(crate) struct Site {
    /// `cudarc launch_builder(..).launch`, `cust launch!`, ...
    pub(crate) how: &'static str,
    /// The function it launches through, when the attribute goes on its caller.
    pub(crate) via: Option<String>,
    /// Where the kernel's name came from, when the code builds it.
    pub(crate) kernel_from: Option<String>,
    /// The attribute's arguments it is read with (and `--annotate` writes).
    pub(crate) args: Option<String>,
    /// Where `--annotate` writes the attribute.
    pub(crate) target: Option<(PathBuf, sites::Target)>,
    /// How many launches of the function this covers (1, or the calls in one function).
    pub(crate) launches: usize,
}

/// A path of a CUDA C++ launch shown as a [`Wrapper`] (its `name` is the launching host
/// function, its `location` the `.cu` file and line).
pub(crate) struct CudaSite {
    /// `<<<...>>>`, `cudaLaunchKernelEx`, ...
    pub(crate) form: &'static str,
    /// The kernel as written at the launch.
    pub(crate) kernel_written: String,
    /// The kernel instantiation the path launches (`softmax<float, 128>`).
    pub(crate) instantiation: Option<String>,
    /// The choices that lead to this path.
    pub(crate) conditions: Vec<String>,
    /// The 1-based line of the launch.
    pub(crate) line: usize,
}

pub(crate) enum Outcome {
    /// Not checked now, and why: a launch the report found but cannot read (a run-time
    /// block with no candidates, a kernel named at run time, a launch inside a macro).
    NotChecked(Vec<String>),
    /// Checked only by the build: `#[occupancy::check]` inside a `macro_rules!` body.
    BuildOnly(String),
    /// Front-end errors: `line:column: message` each.
    Errors(Vec<String>),
    /// A value the compiler must evaluate: the inputs given as constants, and why the
    /// reader could not evaluate them.
    Constant(Vec<&'static str>, Vec<String>),
    /// Evaluated: the spec (for levels) and the evaluation.
    Evaluated(Box<Spec>, Evaluation),
}

impl Wrapper {
    fn fails(&self) -> bool {
        match &self.outcome {
            Outcome::Errors(_) => true,
            Outcome::Constant(..) | Outcome::NotChecked(_) | Outcome::BuildOnly(_) => false,
            Outcome::Evaluated(spec, evaluation) => evaluation
                .diagnostics
                .iter()
                .any(|d| spec.level(d.finding.lint) == Level::Deny),
        }
    }

    fn kernel(&self) -> Option<String> {
        if let Some(c) = &self.cuda {
            return Some(
                c.instantiation
                    .clone()
                    .unwrap_or_else(|| c.kernel_written.clone()),
            );
        }
        match &self.outcome {
            Outcome::Evaluated(spec, _) => spec.source.as_ref().map(|s| s.kernel.clone()),
            _ => None,
        }
    }

    fn to_json(&self) -> Json {
        let mut value = json!({
            "location": self.location,
            "wrapper": self.name,
            "kernel": self.kernel(),
            "conditional": self.conditions,
            "annotated": self.site.is_none() && self.cuda.is_none(),
        });
        if let Some(site) = &self.site {
            value["launch"] = json!(site.how);
            value["via"] = json!(site.via);
            value["kernel_from"] = json!(site.kernel_from);
            value["launches"] = json!(site.launches);
            value["attribute"] = json!(site.args.as_deref().map(attribute_text));
            // The launch and the function it is in are in one file.
            value["attribute_at"] = json!(site.target.as_ref().map(|(_, t)| {
                let file = self.location.rsplit_once(':').map_or("", |(f, _)| f);
                format!("{file}:{}", t.line)
            }));
        }
        if let Some(c) = &self.cuda {
            value["function"] = json!(self.name);
            value["form"] = json!(c.form);
            value["kernel_written"] = json!(c.kernel_written);
            value["path_conditions"] = json!(c.conditions);
        }
        match &self.outcome {
            Outcome::NotChecked(why) => value["not_checked"] = json!(why),
            Outcome::BuildOnly(why) => value["build_only"] = json!(why),
            Outcome::Errors(errors) => value["errors"] = json!(errors),
            Outcome::Constant(inputs, unread) => {
                value["constant_inputs"] = json!(inputs);
                value["unread"] = json!(unread);
            }
            Outcome::Evaluated(spec, evaluation) => {
                value["source"] = json!(spec.source.as_ref().map(|s| s.describe()));
                value["min_occupancy_percent"] =
                    json!(f64::from(spec.min_occupancy.basis_points()) / 100.0);
                value["plans"] = spec.plans.iter().map(plan_json).collect();
                // Members of the family with no cubin for a target: not checked there.
                let left_out: serde_json::Map<String, Json> = spec
                    .targets
                    .iter()
                    .enumerate()
                    .filter_map(|(index, t)| {
                        let names: Vec<&str> = spec
                            .left_out(index)
                            .iter()
                            .map(|k| k.name.as_str())
                            .collect();
                        (!names.is_empty()).then(|| (t.target.to_string(), json!(names)))
                    })
                    .collect();
                value["left_out"] = Json::Object(left_out);
                let mut rows = Vec::new();
                for case in &evaluation.cases {
                    for t in &case.targets {
                        let index = spec
                            .targets
                            .iter()
                            .position(|x| x.target == t.target)
                            .unwrap_or(0);
                        let resources = spec.resources(case.kernel, index);
                        let mut row = json!({
                            "plan": case.plan,
                            "kernel": case.kernel.and_then(|k| spec.kernels.get(k)).map(|k| k.name.clone()),
                            "target": t.target.to_string(),
                            "compute_capability": t.target.arch.cc.to_string(),
                            "block": [t.launch.block.x, t.launch.block.y, t.launch.block.z],
                            "dynamic_smem_bytes": t.launch.dynamic_smem_bytes,
                            "registers_per_thread": t.kernel.registers_per_thread,
                            "static_smem_bytes": t.kernel.static_smem_bytes,
                            "barriers": t.kernel.barriers,
                            // The opt-in (cudaFuncAttributeMaxDynamicSharedMemorySize), bytes;
                            // null: the default 48 KiB limit.
                            "max_dynamic_smem_bytes": t.kernel.max_dynamic_smem_bytes,
                            "cubin": resources.map(|r| r.arch.to_string()),
                        });
                        match &t.occupancy {
                            Ok(o) => {
                                row["blocks_per_sm"] = json!(o.blocks_per_sm);
                                row["active_warps_per_sm"] = json!(o.active_warps_per_sm());
                                row["max_warps_per_sm"] = json!(o.max_warps_per_sm);
                                row["occupancy_percent"] = json!(o.percent());
                                row["limiters"] = json!(o.limiters.to_string());
                            }
                            Err(e) => row["error"] = json!(e.to_string()),
                        }
                        rows.push(row);
                    }
                }
                value["targets"] = json!(rows);
                value["findings"] = evaluation
                    .diagnostics
                    .iter()
                    .map(|d| finding_json(spec, d))
                    .collect();
                value["confirmations"] = spec
                    .confirmations
                    .iter()
                    .map(|c| json!({"expression": c.text, "value": c.value, "from": c.what}))
                    .collect();
            }
        }
        value
    }
}

/// A plan's values (`null` where known only at run time).
fn plan_json(plan: &occupancy_attr::Plan) -> Json {
    let v = |x: &occupancy_attr::Value| x.literal();
    json!({
        "label": plan.label,
        "block": plan.block.iter().map(v).collect::<Vec<_>>(),
        "dynamic_smem_bytes": v(&plan.smem),
        "grid": plan.grid.as_ref().map(|g| g.iter().map(v).collect::<Vec<_>>()),
        "from": plan.origin,
    })
}

fn finding_json(spec: &Spec, d: &Diagnostic) -> Json {
    let f = &d.finding;
    json!({
        "lint": f.lint.name,
        "level": spec.level(f.lint).name(),
        "plan": d.plan,
        "target": f.target.map(|t| t.to_string()),
        "targets": d.targets.iter().map(ToString::to_string).collect::<Vec<_>>(),
        "kernels": d.kernels,
        "message": f.message,
        "notes": f.notes,
        "helps": f.helps,
    })
}

/// Parses and evaluates one attribute with the attribute's own front end.
fn evaluate(file: &Parsed, found: Found, env: &Env) -> Wrapper {
    let shown = &file.shown;
    let location = format!("{shown}:{}", found.line);
    let name = found.sig.ident.to_string();
    let at = |span: Span| {
        let at = span.start();
        format!("{shown}:{}:{}", at.line, at.column + 1)
    };
    let conditions = found.conditions;
    let env = env.clone().with_source_file(&file.path);
    // A body left out as past the parser's limits is not read, as the macro does not read
    // it: the attribute's keys still check the launch.
    let unread = file
        .skipped
        .iter()
        .find(|s| {
            s.body_of.as_deref() == Some(name.as_str())
                && found.body.as_ref().is_some_and(|b| {
                    let (at, body) = (s.span.start(), b.brace_token.span.open().start());
                    (at.line, at.column) == (body.line, body.column)
                })
        })
        .map(|s| format!("the body was not read: {}", s.why));
    let wrapper = occupancy_attr::Wrapper {
        sig: &found.sig,
        body: if unread.is_some() {
            None
        } else {
            found.body.as_ref()
        },
        unread,
    };
    let outcome = match occupancy_attr::parse(found.args, &wrapper, found.attribute, &env) {
        Err(errors) => Outcome::Errors(
            errors
                .into_iter()
                .map(|e| format!("{}: {e}", at(e.span())))
                .collect(),
        ),
        Ok(spec) => match spec.evaluate() {
            Some(evaluation) => Outcome::Evaluated(Box::new(spec), evaluation),
            None => Outcome::Constant(
                spec.const_inputs().iter().map(|i| i.key()).collect(),
                spec.unread.clone(),
            ),
        },
    };
    Wrapper {
        location,
        name,
        conditions,
        outcome,
        site: None,
        cuda: None,
    }
}

/// For a launching function the attribute rejects on some of the policy's targets only (a
/// kernel compiled for sm_90 alone): the targets it is accepted on and those it is not,
/// when both are some. Only when the arguments name no target.
fn runnable_targets(file: &Parsed, found: &Found, env: &Env) -> Option<(Vec<String>, Vec<String>)> {
    if found.args.to_string().contains("target") {
        return None;
    }
    let env_file = env.clone().with_source_file(&file.path);
    let (policy, _) = occupancy_attr::load_policy(&env_file).ok()?;
    let (mut kept, mut dropped) = (Vec::new(), Vec::new());
    for target in &policy.targets {
        let name = target.to_string();
        let mut args = found.args.clone();
        if !args.is_empty() {
            args.extend(quote::quote!(,));
        }
        args.extend(quote::quote!(target = #name));
        let one = Found {
            args,
            ..found.clone()
        };
        match evaluate(file, one, env).outcome {
            Outcome::Errors(_) => dropped.push(name),
            _ => kept.push(name),
        }
    }
    (!kept.is_empty() && !dropped.is_empty()).then_some((kept, dropped))
}

/// The attribute with `args`: `#[occupancy::check(kernel = "x")]`, `#[occupancy::check]`.
pub(crate) fn attribute_text(args: &str) -> String {
    if args.is_empty() {
        "#[occupancy::check]".to_owned()
    } else {
        format!("#[occupancy::check({args})]")
    }
}

/// `src/a.rs:9` before `src/a.rs:10`.
fn natural(location: &str) -> (String, usize) {
    match location.rsplit_once(':') {
        Some((file, line)) => (file.to_owned(), line.parse().unwrap_or(0)),
        None => (location.to_owned(), 0),
    }
}

/// The launches `--all` found in functions without the attribute, read as the attribute
/// would read them: one per launching function (its launches together, as the attribute
/// checks them).
fn unannotated(parsed: &[Parsed], launches: Vec<sites::Launch>, env: &Env) -> Vec<Wrapper> {
    // One entry per launching function: (file, the attribute's line), or per launch not
    // read.
    let mut out: Vec<Wrapper> = Vec::new();
    let mut by_target: BTreeMap<(usize, usize), usize> = BTreeMap::new();
    for launch in launches {
        let mut site = Site {
            how: launch.how,
            via: launch.via.clone(),
            kernel_from: None,
            args: None,
            target: None,
            launches: 1,
        };
        match launch.check {
            // The wrapper's own rows cover it.
            sites::Check::Annotated => {}
            sites::Check::Unread(why) => out.push(Wrapper {
                location: launch.location,
                name: launch.function,
                conditions: launch.conditions,
                outcome: Outcome::NotChecked(vec![why]),
                site: Some(site),
                cuda: None,
            }),
            sites::Check::Attribute {
                args,
                kernel_from,
                target,
            } => {
                if let Some(&i) = by_target.get(&(target.file, target.line)) {
                    if let Some(s) = &mut out[i].site {
                        s.launches += 1;
                    }
                    continue;
                }
                let file = &parsed[target.file];
                let found = Found {
                    line: target.line,
                    args: args.parse().unwrap_or_default(),
                    sig: target.sig.clone(),
                    body: Some(target.body.clone()),
                    attribute: target.span,
                    conditions: launch.conditions.clone(),
                };
                let mut w = evaluate(file, found.clone(), env);
                let mut args = args;
                // A kernel with cubins for some of the crate's targets only (fp8 kernels
                // for sm_90) launches only there: checked on those, the others said.
                if matches!(w.outcome, Outcome::Errors(_))
                    && let Some((kept, dropped)) = runnable_targets(file, &found, env)
                {
                    let list = kept
                        .iter()
                        .map(|t| format!("{t:?}"))
                        .collect::<Vec<_>>()
                        .join(", ");
                    let target = if kept.len() == 1 {
                        format!("target = {list}")
                    } else {
                        format!("target = [{list}]")
                    };
                    args = if args.is_empty() {
                        target
                    } else {
                        format!("{args}, {target}")
                    };
                    let narrowed = Found {
                        args: args.parse().unwrap_or_default(),
                        ..found.clone()
                    };
                    w = evaluate(file, narrowed, env);
                    site.kernel_from = Some(format!(
                        "the kernel runs on {} only: it has no cubin for {}",
                        kept.join(", "),
                        dropped.join(", ")
                    ));
                }
                w.location = launch.location;
                w.name = launch.function;
                // What the attribute would reject is not checked yet: no failure.
                if let Outcome::Errors(errors) = &w.outcome {
                    w.outcome = Outcome::NotChecked(errors.clone());
                }
                if site.kernel_from.is_none() {
                    site.kernel_from = kernel_from;
                }
                site.args = Some(args);
                site.target = Some((file.path.clone(), *target.clone()));
                w.site = Some(site);
                by_target.insert((target.file, target.line), out.len());
                out.push(w);
            }
        }
    }
    out
}

/// `low_occupancy (warn)`, one per reported finding.
fn findings_cells(spec: &Spec, findings: &[&Diagnostic]) -> Vec<String> {
    findings
        .iter()
        .map(|d| d.finding.lint)
        .filter(|lint| spec.level(lint) != Level::Allow)
        .map(|lint| format!("{} ({})", lint.name, spec.level(lint)))
        .collect()
}

/// The table's launches: per wrapper, one per plan and kernel (its label and kernel in the
/// heading), each with a row per target; errors and notes under them.
fn launches(wrappers: &[Wrapper]) -> Vec<table::Launch> {
    let mut out = Vec::new();
    for w in wrappers {
        let first = out.len();
        let launch = |subject: String, kernel: Option<String>| table::Launch {
            location: w.location.clone(),
            subject,
            kernel,
            tag: None,
            rows: Vec::new(),
            errors: Vec::new(),
            notes: Vec::new(),
        };
        match &w.outcome {
            Outcome::Errors(errors) => {
                let mut l = launch(w.name.clone(), w.kernel());
                l.errors.clone_from(errors);
                out.push(l);
            }
            Outcome::NotChecked(why) => {
                let mut l = launch(w.name.clone(), w.kernel());
                // A CUDA C++ path's reasons say "not checked" themselves.
                let prefix = if w.cuda.is_some() {
                    ""
                } else {
                    "not checked: "
                };
                l.notes.extend(why.iter().map(|w| format!("{prefix}{w}")));
                out.push(l);
            }
            Outcome::BuildOnly(why) => {
                let mut l = launch(w.name.clone(), None);
                l.notes.push(why.clone());
                out.push(l);
            }
            Outcome::Constant(inputs, unread) => {
                let mut l = launch(w.name.clone(), w.kernel());
                l.notes.push(format!(
                    "not evaluated: constant {} (checked by the compiler){}",
                    inputs.join(", "),
                    if unread.is_empty() {
                        String::new()
                    } else {
                        format!("; not read: {}", unread.join("; "))
                    }
                ));
                out.push(l);
            }
            Outcome::Evaluated(spec, evaluation) => {
                for case in &evaluation.cases {
                    let plan = &spec.plans[case.plan];
                    let case_kernel = case
                        .kernel
                        .and_then(|k| spec.kernels.get(k))
                        .map(|k| k.name.clone());
                    // A finding concerns this case when it is of its plan and names its
                    // kernel among those it fires on (a family's finding lists them all).
                    let of_case = |d: &&Diagnostic| {
                        d.plan == case.plan
                            && (d.kernels.is_empty()
                                || case_kernel.as_ref().is_none_or(|k| d.kernels.contains(k)))
                    };
                    let subject = match &plan.label {
                        Some(label) => format!("{} ({label})", w.name),
                        None => w.name.clone(),
                    };
                    let mut l = launch(subject, case_kernel.clone().or_else(|| w.kernel()));
                    for t in &case.targets {
                        // Launch-scoped findings (no targets) concern every target.
                        let findings: Vec<&Diagnostic> = evaluation
                            .diagnostics
                            .iter()
                            .filter(|d| d.targets.is_empty() || d.targets.contains(&t.target))
                            .filter(of_case)
                            .collect();
                        let impossible = findings
                            .iter()
                            .any(|d| *d.finding.lint == LAUNCH_IMPOSSIBLE);
                        let (occupancy, limiter) = match &t.occupancy {
                            Ok(o) if o.blocks_per_sm == 0 => {
                                ("0% (cannot launch)".to_owned(), o.limiters.to_string())
                            }
                            // Fits by the occupancy model, refused at launch (the kernel's
                            // __launch_bounds__).
                            Ok(_) if impossible => {
                                ("0% (cannot launch)".to_owned(), "launch bounds".to_owned())
                            }
                            Ok(o) => (
                                format!(
                                    "{} ({}/{} warps)",
                                    percent(o.active_warps_per_sm(), o.max_warps_per_sm),
                                    o.active_warps_per_sm(),
                                    o.max_warps_per_sm
                                ),
                                o.limiters.to_string(),
                            ),
                            Err(e) => (format!("error: {e}"), "-".to_owned()),
                        };
                        l.rows.push(table::Row {
                            target: t.target.to_string(),
                            block: t.launch.block.to_string(),
                            smem: bytes_text(t.launch.dynamic_smem_bytes.into()),
                            occupancy,
                            limiter,
                            findings: findings_cells(spec, &findings),
                        });
                    }
                    out.push(l);
                }
            }
        }
        if let Outcome::Evaluated(spec, _) = &w.outcome
            && let Some(last) = out[first..].last_mut()
        {
            // Members of the family left out where they have no cubin.
            for (index, t) in spec.targets.iter().enumerate() {
                if let Some(note) = spec.left_out_note(index) {
                    last.notes.push(format!("{}: {note}", t.target));
                }
            }
        }
        if let Some(site) = &w.site {
            for l in &mut out[first..] {
                l.tag = Some("[not annotated]".to_owned());
            }
            if let Some(last) = out[first..].last_mut() {
                let mut said = vec![site.how.to_owned()];
                if site.launches > 1 {
                    said.push(format!("{} launches", site.launches));
                }
                if let Some(via) = &site.via {
                    said.push(format!("through {via}"));
                }
                if let Some(from) = &site.kernel_from {
                    said.push(format!("kernel: {from}"));
                }
                if let Some(args) = &site.args {
                    said.push(format!("read as {}", attribute_text(args)));
                }
                last.notes.push(format!("^ {}", said.join("; ")));
            }
        }
        if !w.conditions.is_empty()
            && let Some(last) = out[first..].last_mut()
        {
            last.notes
                .push(format!("^ {}", conditional_note(&w.conditions)));
        }
    }
    out
}

/// `conditional, under cfg_attr(not(feature = "x")): checked as if the predicate held`.
fn conditional_note(conditions: &[String]) -> String {
    format!(
        "conditional, under {}: checked as if {} held",
        conditions.join(" and "),
        if conditions.len() == 1 {
            "the predicate"
        } else {
            "the predicates"
        }
    )
}

struct Counts {
    wrappers: usize,
    evaluated: usize,
    constant: usize,
    /// Not checked now (a launch not read, or an attribute inside a macro).
    not_checked: usize,
    errors: usize,
    deny: usize,
    warn: usize,
}

fn counts(wrappers: &[Wrapper]) -> Counts {
    counts_of(&wrappers.iter().collect::<Vec<_>>())
}

fn counts_of(wrappers: &[&Wrapper]) -> Counts {
    let mut c = Counts {
        wrappers: wrappers.len(),
        evaluated: 0,
        constant: 0,
        not_checked: 0,
        errors: 0,
        deny: 0,
        warn: 0,
    };
    for w in wrappers {
        match &w.outcome {
            Outcome::Errors(e) => c.errors += e.len(),
            Outcome::Constant(..) => c.constant += 1,
            Outcome::NotChecked(_) | Outcome::BuildOnly(_) => c.not_checked += 1,
            Outcome::Evaluated(spec, evaluation) => {
                c.evaluated += 1;
                for d in &evaluation.diagnostics {
                    match spec.level(d.finding.lint) {
                        Level::Deny => c.deny += 1,
                        Level::Warn => c.warn += 1,
                        Level::Allow => {}
                    }
                }
            }
        }
    }
    c
}

/// Two lines: the wrappers by outcome, then the findings and errors (with `--all`, a line
/// on the launching functions not annotated first).
fn summary_text(wrappers: &[Wrapper]) -> String {
    let (plain, found): (Vec<&Wrapper>, Vec<&Wrapper>) =
        wrappers.iter().partition(|w| w.site.is_none());
    let mut text = String::new();
    if !found.is_empty() {
        let f = counts_of(&found);
        let launches: usize = found
            .iter()
            .filter_map(|w| w.site.as_ref())
            .map(|s| s.launches)
            .sum();
        text.push_str(&format!(
            "{} launch{} in {} function{} not annotated: {} evaluated, {} with constants, {} \
             not checked\n",
            launches,
            if launches == 1 { "" } else { "es" },
            f.wrappers,
            plural(f.wrappers),
            f.evaluated,
            f.constant,
            f.not_checked,
        ));
    }
    let c = counts(wrappers);
    let p = counts_of(&plain);
    text + &format!(
        "{} wrapper{}: {} evaluated, {} with constants left to the compiler, {} with errors{}\n\
         findings: {} deny-level, {} warning{}; {} error{}\n",
        p.wrappers,
        plural(p.wrappers),
        p.evaluated,
        p.constant,
        plain
            .iter()
            .filter(|w| matches!(w.outcome, Outcome::Errors(_)))
            .count(),
        if p.not_checked > 0 {
            format!(", {} checked only by the build", p.not_checked)
        } else {
            String::new()
        },
        c.deny,
        c.warn,
        plural(c.warn),
        c.errors,
        plural(c.errors),
    ) + &conditional_summary(wrappers)
}

/// The line on the conditional wrappers, if any: how many, and what they add to the exit
/// status.
fn conditional_summary(wrappers: &[Wrapper]) -> String {
    let some: Vec<&Wrapper> = wrappers
        .iter()
        .filter(|w| !w.conditions.is_empty())
        .collect();
    if some.is_empty() {
        return String::new();
    }
    let c = counts_of(&some);
    format!(
        "{} conditional wrapper{} (under #[cfg] or cfg_attr, which report does not evaluate; \
         checked as if the predicates held): {} deny-level finding{}, {} error{} among them, \
         counted in the exit status like the others\n",
        c.wrappers,
        plural(c.wrappers),
        c.deny,
        plural(c.deny),
        c.errors,
        plural(c.errors),
    )
}

fn summary_json(wrappers: &[Wrapper]) -> Json {
    let c = counts(wrappers);
    json!({
        "wrappers": c.wrappers,
        "not_annotated": wrappers.iter().filter(|w| w.site.is_some()).count(),
        "not_checked": c.not_checked,
        "evaluated": c.evaluated,
        "constant": c.constant,
        "errors": c.errors,
        "deny": c.deny,
        "warn": c.warn,
        "conditional": wrappers.iter().filter(|w| !w.conditions.is_empty()).count(),
    })
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
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

#[cfg(test)]
mod tests {
    use super::*;

    fn finder(text: &str) -> Finder {
        let file = syn::parse_file(text).unwrap();
        let mut finder = Finder::new(&file, Vec::new());
        finder.visit_file(&file);
        finder
    }

    #[test]
    fn finds_every_spelling_and_place() {
        let f = finder(
            r#"
            use occupancy::{check, lint};
            use occupancy::check as occ;
            mod inner {
                #[occupancy::check(block = 64, regs = 32)]
                fn nested() {}
            }
            #[check(block = 256, regs = 32)]
            fn free() {}
            #[occ(block = 128, regs = 32)]
            fn renamed() {}
            #[::occupancy::check(block = 32, regs = 32)]
            fn rooted() {}
            struct S;
            impl S {
                #[occupancy::check(block = 512, regs = 32)]
                fn method(&self) {}
            }
            trait T {
                #[occupancy::check(block = 96, regs = 32)]
                fn provided(&self) {}
                fn required(&self);
            }
            #[other::check(block = 1)]
            fn not_ours() {}
            #[inline]
            fn plain() {}
            "#,
        );
        let names: Vec<(String, usize)> = f
            .found
            .iter()
            .map(|w| (w.sig.ident.to_string(), w.line))
            .collect();
        assert_eq!(
            names,
            [
                ("nested".to_owned(), 5),
                ("free".to_owned(), 8),
                ("renamed".to_owned(), 10),
                ("rooted".to_owned(), 12),
                ("method".to_owned(), 16),
                ("provided".to_owned(), 20),
            ]
        );
        // Without a `use`, a bare `#[check]` is someone else's.
        assert!(finder("#[check(block = 1)] fn f() {}").found.is_empty());
        assert_eq!(
            finder("use occupancy::*; #[check] fn f() {}").found.len(),
            1
        );
    }

    #[test]
    fn finds_the_attribute_inside_cfg_attr() {
        let f = finder(
            r#"
            use occupancy::check as occ;
            #[cfg_attr(not(feature = "x"), occupancy::check(block = 64, regs = 32))]
            fn one() {}
            #[cfg_attr(any(unix, windows), inline, ::occupancy::check(block = 64), derive(Debug))]
            fn two() {}
            #[cfg_attr(all(), cfg_attr(feature = "y",
                occ(block = 64)))]
            fn three() {}
            #[cfg_attr(feature = "z", other::check(block = 1), check(block = 1))]
            fn not_ours() {}
            #[cfg(feature = "w")]
            impl S {
                #[cfg_attr(debug_assertions, occupancy::check(block = 64))]
                fn four(&self) {}
            }
            "#,
        );
        let found: Vec<(String, usize, String)> = f
            .found
            .iter()
            .map(|w| (w.sig.ident.to_string(), w.line, w.conditions.join(" & ")))
            .collect();
        let expected = [
            ("one", 3, r#"cfg_attr(not(feature = "x"))"#),
            ("two", 5, "cfg_attr(any(unix, windows))"),
            ("three", 8, r#"cfg_attr(all()) & cfg_attr(feature = "y")"#),
            (
                "four",
                14,
                r#"cfg(feature = "w") on impl S & cfg_attr(debug_assertions)"#,
            ),
        ]
        .map(|(n, l, c)| (n.to_owned(), l, c.to_owned()));
        assert_eq!(found, expected);
    }
}
