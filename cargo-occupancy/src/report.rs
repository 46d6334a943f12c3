//! `cargo occupancy report`: every `#[occupancy::check]` of a crate, evaluated on each of its
//! targets by the attribute's own front end (`occupancy_attr::parse`, then
//! `Spec::evaluate`), as a table or JSON. Exits 1 when a finding is deny-level (this includes
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
//!   modules too;
//! - constants: a value the attribute gives as the name of a `const` defined in the same
//!   file as integer arithmetic (`const BLOCK: u32 = 2 * 128;`) is replaced by its value, so
//!   that such wrappers get numbers; other constant expressions are left to the compiler
//!   and the wrapper is listed as not evaluated;
//! - the policy: `occupancy.toml` beside `Cargo.toml`, or `$OCCUPANCY_POLICY`, as the
//!   attribute reads it;
//! - the resource manifest for `kernel = "..."`: `--kernel-manifest PATH`; else
//!   `$OCCUPANCY_MANIFEST`; else the newest `target/*/build/<package>-*/out/occupancy/manifest.json`
//!   (also `target/<triple>/*/build/...`; the target folders looked at are
//!   `$CARGO_TARGET_DIR` and `target/` in the crate's folder and each folder above it), which
//!   is what the build helper gave the last build; else the attribute's own fallback (the
//!   policy's `manifest`, then `kernels.manifest.json` beside `Cargo.toml`).

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::SystemTime;

use clap::Args;
use occupancy_attr::{Env, Evaluation, KEYS, MANIFEST_VAR, Spec};
use occupancy_core::lint::{Finding, LAUNCH_IMPOSSIBLE, Level};
use occupancy_core::policy::Policy;
use proc_macro2::{Span, TokenStream, TokenTree};
use serde_json::{Value as Json, json};
use syn::visit::Visit;
use syn::{Attribute, Expr, Meta, Signature, UseTree};

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
    /// Print JSON instead of a table.
    #[arg(long)]
    pub json: bool,
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
            Some(value) => (Some(PathBuf::from(value)), "$OCCUPANCY_MANIFEST"),
            None => match newest_build_manifest(&crate_dir, &package) {
                Some(path) => (Some(path), "the newest build"),
                None => (
                    None,
                    "no build output found; `kernel = ...` falls back to the policy's `manifest`, else kernels.manifest.json",
                ),
            },
        },
    };
    let mut env = Env::new(&crate_dir);
    if let Some(path) = &manifest {
        env = env.with_var(MANIFEST_VAR, path);
    }
    if let Some(policy) = std::env::var_os(Policy::ENV_VAR) {
        env = env.with_var(Policy::ENV_VAR, policy);
    }

    let mut wrappers = Vec::new();
    let mut unreadable = Vec::new();
    for file in rust_files(&crate_dir) {
        let shown = file
            .strip_prefix(&crate_dir)
            .unwrap_or(&file)
            .display()
            .to_string();
        let text = match std::fs::read_to_string(&file) {
            Ok(text) => text,
            Err(e) => {
                unreadable.push(format!("{shown}: {e}"));
                continue;
            }
        };
        let syntax = match syn::parse_file(&text) {
            Ok(syntax) => syntax,
            Err(e) => {
                let at = e.span().start();
                unreadable.push(format!("{shown}:{}:{}: {e}", at.line, at.column + 1));
                continue;
            }
        };
        let mut finder = Finder::new(&syntax);
        finder.visit_file(&syntax);
        for found in finder.found {
            wrappers.push(evaluate(&shown, found, &finder.consts, &env));
        }
    }

    let failed = wrappers.iter().any(Wrapper::fails);
    let text = if args.json {
        let json = json!({
            "crate": package,
            "path": crate_dir.display().to_string(),
            "manifest": manifest.as_ref().map(|p| p.display().to_string()),
            "manifest_origin": manifest_origin,
            "wrappers": wrappers.iter().map(Wrapper::to_json).collect::<Vec<_>>(),
            "unreadable": unreadable,
            "summary": summary_json(&wrappers),
            "failed": failed,
        });
        let mut s = serde_json::to_string_pretty(&json).unwrap_or_default();
        s.push('\n');
        s
    } else {
        let mut s = String::new();
        let _ = writeln!(s, "crate {package} ({})", crate_dir.display());
        match &manifest {
            Some(path) => {
                let _ = writeln!(
                    s,
                    "resource manifest: {} ({manifest_origin})",
                    path.display()
                );
            }
            None => {
                let _ = writeln!(s, "resource manifest: {manifest_origin}");
            }
        }
        s.push('\n');
        s.push_str(&table(&wrappers));
        for line in &unreadable {
            let _ = writeln!(s, "skipped {line}");
        }
        s.push('\n');
        s.push_str(&summary_text(&wrappers));
        s
    };
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
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
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

/// The newest `<target>/*/build/<package>-*/out/occupancy/manifest.json` (and
/// `<target>/<triple>/*/build/...`), over `$CARGO_TARGET_DIR` and the `target/` folders of
/// the crate's folder and its ancestors.
fn newest_build_manifest(crate_dir: &Path, package: &str) -> Option<PathBuf> {
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
            let manifest = entry.join("out").join(occupancy_attr::OUT_DIR_MANIFEST);
            if !is_package {
                continue;
            }
            if let Ok(modified) = manifest.metadata().and_then(|m| m.modified())
                && best.as_ref().is_none_or(|(t, _)| modified > *t)
            {
                best = Some((modified, manifest));
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

/// Every `.rs` file under the crate's `src/`, `examples/`, `benches/`, `tests/`, sorted.
fn rust_files(crate_dir: &Path) -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        let mut entries: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
        entries.sort();
        for path in entries {
            let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
            if name.starts_with('.') || name == "target" {
                continue;
            }
            if path.is_dir() {
                walk(&path, out);
            } else if name.ends_with(".rs") {
                out.push(path);
            }
        }
    }
    let mut out = Vec::new();
    for sub in ["src", "examples", "benches", "tests"] {
        walk(&crate_dir.join(sub), &mut out);
    }
    out
}

/// One attribute found in a file.
struct Found {
    line: usize,
    args: TokenStream,
    sig: Signature,
    attribute: Span,
}

/// Walks a file for the attribute, with the names it goes by and the file's constants.
struct Finder {
    /// Single-segment names bound to `occupancy::check` by `use`.
    aliases: Vec<String>,
    /// `const NAME: _ = <integer arithmetic>;` anywhere in the file.
    consts: BTreeMap<String, u32>,
    found: Vec<Found>,
}

impl Finder {
    fn new(file: &syn::File) -> Finder {
        let mut collector = Collector::default();
        collector.visit_file(file);
        let mut consts = BTreeMap::new();
        // Constants may name constants: settle them in a few rounds.
        for _ in 0..8 {
            let before = consts.len();
            for (name, expr) in &collector.consts {
                if !consts.contains_key(name)
                    && let Some(v) = const_value(expr, &consts)
                {
                    consts.insert(name.clone(), v);
                }
            }
            if consts.len() == before {
                break;
            }
        }
        Finder {
            aliases: collector.aliases,
            consts,
            found: Vec::new(),
        }
    }

    fn is_check(&self, attr: &Attribute) -> bool {
        let segments: Vec<String> = attr
            .path()
            .segments
            .iter()
            .map(|s| s.ident.to_string())
            .collect();
        match segments.as_slice() {
            [a, b] => a == "occupancy" && b == "check",
            [one] => self.aliases.contains(one),
            _ => false,
        }
    }

    fn consider(&mut self, attrs: &[Attribute], sig: &Signature) {
        let ours: Vec<&Attribute> = attrs.iter().filter(|a| self.is_check(a)).collect();
        for attr in ours {
            let args = match &attr.meta {
                Meta::List(list) => list.tokens.clone(),
                Meta::Path(_) => TokenStream::new(),
                // `#[occupancy::check = ...]`: not an attribute macro call; the parse below
                // reports it as malformed arguments.
                Meta::NameValue(nv) => quote::quote!(= #nv),
            };
            self.found.push(Found {
                line: attr.pound_token.span.start().line,
                args,
                sig: sig.clone(),
                attribute: attr.pound_token.span,
            });
        }
    }
}

impl<'ast> Visit<'ast> for Finder {
    fn visit_item_fn(&mut self, f: &'ast syn::ItemFn) {
        self.consider(&f.attrs, &f.sig);
        syn::visit::visit_item_fn(self, f);
    }
    fn visit_impl_item_fn(&mut self, f: &'ast syn::ImplItemFn) {
        self.consider(&f.attrs, &f.sig);
        syn::visit::visit_impl_item_fn(self, f);
    }
    fn visit_trait_item_fn(&mut self, f: &'ast syn::TraitItemFn) {
        if f.default.is_some() {
            self.consider(&f.attrs, &f.sig);
        }
        syn::visit::visit_trait_item_fn(self, f);
    }
}

/// First pass: `use` bindings of `occupancy::check` and `const` items.
#[derive(Default)]
struct Collector {
    aliases: Vec<String>,
    consts: Vec<(String, Expr)>,
}

impl<'ast> Visit<'ast> for Collector {
    fn visit_item_use(&mut self, item: &'ast syn::ItemUse) {
        uses(&item.tree, &[], &mut self.aliases);
    }
    fn visit_item_const(&mut self, item: &'ast syn::ItemConst) {
        self.consts
            .push((item.ident.to_string(), (*item.expr).clone()));
        syn::visit::visit_item_const(self, item);
    }
}

/// Adds to `out` the names `tree` binds to `occupancy::check` (`prefix`: the path so far).
fn uses(tree: &UseTree, prefix: &[String], out: &mut Vec<String>) {
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

/// The value of integer arithmetic on literals and known constants, if it is a `u32`.
fn const_value(expr: &Expr, known: &BTreeMap<String, u32>) -> Option<u32> {
    let v: u64 = match expr {
        Expr::Lit(lit) => match &lit.lit {
            syn::Lit::Int(i) => i.base10_parse().ok()?,
            _ => return None,
        },
        Expr::Paren(p) => u64::from(const_value(&p.expr, known)?),
        Expr::Group(g) => u64::from(const_value(&g.expr, known)?),
        Expr::Cast(c) => u64::from(const_value(&c.expr, known)?),
        Expr::Path(p) => u64::from(*known.get(&p.path.get_ident()?.to_string())?),
        Expr::Binary(b) => {
            let l = u64::from(const_value(&b.left, known)?);
            let r = u64::from(const_value(&b.right, known)?);
            match b.op {
                syn::BinOp::Add(_) => l.checked_add(r)?,
                syn::BinOp::Sub(_) => l.checked_sub(r)?,
                syn::BinOp::Mul(_) => l.checked_mul(r)?,
                syn::BinOp::Div(_) => l.checked_div(r)?,
                syn::BinOp::Rem(_) => l.checked_rem(r)?,
                syn::BinOp::Shl(_) => l.checked_shl(u32::try_from(r).ok()?)?,
                _ => return None,
            }
        }
        _ => return None,
    };
    u32::try_from(v).ok()
}

/// The attribute's tokens with each identifier that names a known constant (and is not a
/// key) replaced by the constant's value.
fn substitute(tokens: TokenStream, consts: &BTreeMap<String, u32>) -> TokenStream {
    let mut out = Vec::new();
    let mut previous_colons = false;
    for tree in tokens {
        let replaced = match &tree {
            TokenTree::Ident(ident) => {
                let name = ident.to_string();
                match consts.get(&name) {
                    Some(v) if !KEYS.contains(&name.as_str()) && !previous_colons => {
                        let mut lit = proc_macro2::Literal::u32_unsuffixed(*v);
                        lit.set_span(ident.span());
                        TokenTree::Literal(lit)
                    }
                    _ => tree.clone(),
                }
            }
            TokenTree::Group(group) => {
                let mut g =
                    proc_macro2::Group::new(group.delimiter(), substitute(group.stream(), consts));
                g.set_span(group.span());
                TokenTree::Group(g)
            }
            _ => tree.clone(),
        };
        previous_colons = matches!(&tree, TokenTree::Punct(p) if p.as_char() == ':');
        out.push(replaced);
    }
    out.into_iter().collect()
}

/// One wrapper's result.
struct Wrapper {
    location: String,
    name: String,
    kernel: Option<String>,
    outcome: Outcome,
}

enum Outcome {
    /// Front-end errors: `line:column: message` each.
    Errors(Vec<String>),
    /// A value the compiler must evaluate: the inputs given as constants.
    Constant(Vec<&'static str>),
    /// Evaluated: the spec (for levels) and the evaluation.
    Evaluated(Box<Spec>, Evaluation),
}

impl Wrapper {
    fn fails(&self) -> bool {
        match &self.outcome {
            Outcome::Errors(_) => true,
            Outcome::Constant(_) => false,
            Outcome::Evaluated(spec, evaluation) => evaluation
                .findings
                .iter()
                .any(|f| spec.level(f.lint) == Level::Deny),
        }
    }

    fn to_json(&self) -> Json {
        let mut value = json!({
            "location": self.location,
            "wrapper": self.name,
            "kernel": self.kernel,
        });
        match &self.outcome {
            Outcome::Errors(errors) => value["errors"] = json!(errors),
            Outcome::Constant(inputs) => value["constant_inputs"] = json!(inputs),
            Outcome::Evaluated(spec, evaluation) => {
                value["source"] = json!(spec.source.as_ref().map(|s| s.describe()));
                value["min_occupancy_percent"] =
                    json!(f64::from(spec.min_occupancy.basis_points()) / 100.0);
                value["targets"] = evaluation
                    .targets
                    .iter()
                    .zip(&spec.targets)
                    .map(|(t, ts)| {
                        let mut row = json!({
                            "target": t.target.to_string(),
                            "compute_capability": t.target.arch.cc.to_string(),
                            "registers_per_thread": t.kernel.registers_per_thread,
                            "static_smem_bytes": t.kernel.static_smem_bytes,
                            "cubin": ts.resources.as_ref().map(|r| r.arch.to_string()),
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
                        row
                    })
                    .collect();
                value["findings"] = evaluation
                    .findings
                    .iter()
                    .map(|f| finding_json(spec, f))
                    .collect();
            }
        }
        value
    }
}

fn finding_json(spec: &Spec, f: &Finding) -> Json {
    json!({
        "lint": f.lint.name,
        "level": spec.level(f.lint).name(),
        "target": f.target.map(|t| t.to_string()),
        "message": f.message,
        "notes": f.notes,
        "helps": f.helps,
    })
}

/// Parses and evaluates one attribute with the attribute's own front end.
fn evaluate(file: &str, found: Found, consts: &BTreeMap<String, u32>, env: &Env) -> Wrapper {
    let location = format!("{file}:{}", found.line);
    let name = found.sig.ident.to_string();
    let args = substitute(found.args, consts);
    match occupancy_attr::parse(args, &found.sig, found.attribute, env) {
        Err(errors) => Wrapper {
            location,
            name,
            kernel: None,
            outcome: Outcome::Errors(
                errors
                    .into_iter()
                    .map(|e| {
                        let at = e.span().start();
                        format!("{file}:{}:{}: {e}", at.line, at.column + 1)
                    })
                    .collect(),
            ),
        },
        Ok(spec) => {
            let kernel = spec.source.as_ref().map(|s| s.kernel.clone());
            let outcome = match spec.evaluate() {
                Some(evaluation) => Outcome::Evaluated(Box::new(spec), evaluation),
                None => Outcome::Constant(spec.const_inputs().iter().map(|i| i.key()).collect()),
            };
            Wrapper {
                location,
                name,
                kernel,
                outcome,
            }
        }
    }
}

/// `low_occupancy (warn)`, one per reported finding.
fn findings_cell(spec: &Spec, findings: &[&Finding]) -> String {
    let names: Vec<String> = findings
        .iter()
        .filter(|f| spec.level(f.lint) != Level::Allow)
        .map(|f| format!("{} ({})", f.lint.name, spec.level(f.lint)))
        .collect();
    if names.is_empty() {
        "-".to_owned()
    } else {
        names.join(", ")
    }
}

fn table(wrappers: &[Wrapper]) -> String {
    let header = [
        "location",
        "wrapper",
        "kernel",
        "target",
        "occupancy",
        "limiter",
        "findings",
    ];
    let mut rows: Vec<[String; 7]> = Vec::new();
    for w in wrappers {
        let kernel = w.kernel.clone().unwrap_or_else(|| "-".to_owned());
        match &w.outcome {
            Outcome::Errors(errors) => {
                for (i, e) in errors.iter().enumerate() {
                    let first = i == 0;
                    rows.push([
                        if first {
                            w.location.clone()
                        } else {
                            String::new()
                        },
                        if first { w.name.clone() } else { String::new() },
                        if first { kernel.clone() } else { String::new() },
                        "-".into(),
                        "-".into(),
                        "-".into(),
                        format!("error: {e}"),
                    ]);
                }
            }
            Outcome::Constant(inputs) => rows.push([
                w.location.clone(),
                w.name.clone(),
                kernel,
                "-".into(),
                "-".into(),
                "-".into(),
                format!(
                    "not evaluated: constant {} (checked by the compiler)",
                    inputs.join(", ")
                ),
            ]),
            Outcome::Evaluated(spec, evaluation) => {
                let launch: Vec<&Finding> = evaluation
                    .findings
                    .iter()
                    .filter(|f| f.target.is_none())
                    .collect();
                for (i, t) in evaluation.targets.iter().enumerate() {
                    let first = i == 0;
                    let mut findings: Vec<&Finding> =
                        if first { launch.clone() } else { Vec::new() };
                    findings.extend(
                        evaluation
                            .findings
                            .iter()
                            .filter(|f| f.target == Some(t.target)),
                    );
                    let impossible = findings.iter().any(|f| *f.lint == LAUNCH_IMPOSSIBLE);
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
                                "{}% ({}/{} warps)",
                                trim(o.percent()),
                                o.active_warps_per_sm(),
                                o.max_warps_per_sm
                            ),
                            o.limiters.to_string(),
                        ),
                        Err(e) => (format!("error: {e}"), "-".to_owned()),
                    };
                    rows.push([
                        if first {
                            w.location.clone()
                        } else {
                            String::new()
                        },
                        if first { w.name.clone() } else { String::new() },
                        if first { kernel.clone() } else { String::new() },
                        t.target.to_string(),
                        occupancy,
                        limiter,
                        findings_cell(spec, &findings),
                    ]);
                }
            }
        }
    }
    let mut widths = header.map(str::len);
    for row in &rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let mut s = String::new();
    let mut line = |cells: &[String]| {
        let mut l = String::new();
        for (i, (cell, w)) in cells.iter().zip(widths).enumerate() {
            if i + 1 == cells.len() {
                l.push_str(cell);
            } else {
                let _ = write!(l, "{cell:<w$}  ");
            }
        }
        s.push_str(l.trim_end());
        s.push('\n');
    };
    line(&header.map(str::to_owned));
    for row in &rows {
        line(row);
    }
    s
}

/// `66.67`, `50`, `37.5`: at most two decimals, no trailing zeros.
fn trim(percent: f64) -> String {
    let s = format!("{percent:.2}");
    s.trim_end_matches('0').trim_end_matches('.').to_owned()
}

struct Counts {
    wrappers: usize,
    evaluated: usize,
    constant: usize,
    errors: usize,
    deny: usize,
    warn: usize,
}

fn counts(wrappers: &[Wrapper]) -> Counts {
    let mut c = Counts {
        wrappers: wrappers.len(),
        evaluated: 0,
        constant: 0,
        errors: 0,
        deny: 0,
        warn: 0,
    };
    for w in wrappers {
        match &w.outcome {
            Outcome::Errors(e) => c.errors += e.len(),
            Outcome::Constant(_) => c.constant += 1,
            Outcome::Evaluated(spec, evaluation) => {
                c.evaluated += 1;
                for f in &evaluation.findings {
                    match spec.level(f.lint) {
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

fn summary_text(wrappers: &[Wrapper]) -> String {
    let c = counts(wrappers);
    format!(
        "{} wrapper{} ({} evaluated, {} with constants left to the compiler, {} with errors): \
         {} deny-level finding{}, {} warning{}, {} error{}\n",
        c.wrappers,
        plural(c.wrappers),
        c.evaluated,
        c.constant,
        wrappers
            .iter()
            .filter(|w| matches!(w.outcome, Outcome::Errors(_)))
            .count(),
        c.deny,
        plural(c.deny),
        c.warn,
        plural(c.warn),
        c.errors,
        plural(c.errors),
    )
}

fn summary_json(wrappers: &[Wrapper]) -> Json {
    let c = counts(wrappers);
    json!({
        "wrappers": c.wrappers,
        "evaluated": c.evaluated,
        "constant": c.constant,
        "errors": c.errors,
        "deny": c.deny,
        "warn": c.warn,
    })
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn finder(text: &str) -> Finder {
        let file = syn::parse_file(text).unwrap();
        let mut finder = Finder::new(&file);
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
    fn constants_are_substituted_when_plain_arithmetic() {
        let f = finder(
            "const TILE: u32 = 16; const BLOCK: u32 = TILE * TILE; const SMEM: u32 = (BLOCK + 4) * 4 as u32; \
             const BIG: u64 = 1 << 40; const F: f32 = 1.0; const NEG: u32 = 1 - 2;",
        );
        assert_eq!(f.consts.get("BLOCK"), Some(&256));
        assert_eq!(f.consts.get("SMEM"), Some(&1040));
        assert_eq!(f.consts.get("BIG"), None);
        assert_eq!(f.consts.get("F"), None);
        assert_eq!(f.consts.get("NEG"), None);
        let tokens = substitute(
            quote::quote!(
                block = (TILE, TILE),
                smem = SMEM,
                regs = Gemm::TILE,
                grid = OTHER
            ),
            &f.consts,
        );
        assert_eq!(
            tokens.to_string(),
            "block = (16 , 16) , smem = 1040 , regs = Gemm :: TILE , grid = OTHER"
        );
    }
}
