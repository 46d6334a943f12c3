//! The `### Example` of every lint in `occupancy-core/src/lint/*.rs` is true.
//!
//! Each lint's doc comment shows, in code blocks, an attribute on which the lint fires and,
//! in a second block ("Use instead"), the fixed attribute on which it does not. The blocks
//! are `text` (doctests cannot run a proc macro), so this test reads them from the source:
//! for every `pub static NAME = Lint { name: "..." ... }` it takes the `### Example`
//! section of the doc comment, parses each block's `#[occupancy::check(...)]` with
//! [`occupancy_attr::parse`] and runs [`occupancy_attr::Spec::evaluate`], as the proc
//! macro does, in a scratch crate directory (with a resource manifest when the example
//! names a kernel). Then:
//!
//! - the first block produces a finding of the lint, at a level the macro reports;
//! - a second block does not produce one;
//! - the numbers the examples state (in `//` comments and the prose around the blocks) are
//!   the engine's: [`CLAIMS`] ties each statement to a check, and every number in a block's
//!   comments must belong to one;
//! - fixes given in prose instead of a block ([`PROSE_FIXES`]) do not fire either;
//! - every lint of [`LINTS`] has an example, and the doc read from the source is the lint's
//!   [`Lint::docs`] (so the reading is faithful and every declared lint is registered).
//!
//! When an example is edited, update [`CLAIMS`] or [`PROSE_FIXES`] with it.

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use occupancy_attr::{Env, Evaluation, Spec, Wrapper, parse};
use occupancy_core::arch::ARCHS;
use occupancy_core::cluster::{ClusterCount, Topology, max_active_clusters};
use occupancy_core::lint::{LINTS, Level, Lint};
use proc_macro2::{Span, TokenStream, TokenTree};

// ---------------------------------------------------------------------------------------
// What the examples state

/// A check on the run of an example block, on every target.
#[derive(Clone, Copy, Debug)]
enum Check {
    /// Resident blocks per SM.
    Blocks(u32),
    /// Theoretical occupancy as the lints print it (`62.5%`, `66.67%`).
    Occupancy(&'static str),
    /// Active of maximum warps per SM.
    Warps(u32, u32),
    /// Threads per block.
    Threads(u32),
    /// Warps per block.
    WarpsPerBlock(u32),
    /// Dynamic shared memory per block, bytes.
    DynamicSmem(u32),
    /// Clusters resident at once on the target's GPU (`cuOccupancyMaxActiveClusters`).
    Clusters(u32),
    /// Some finding of the lint contains this text (only on a run where it fires).
    Says(&'static str),
    /// The snippet states the compiled kernel's resources: the run's manifest holds them
    /// (see [`Resources::parse`]).
    Kernel,
}

use Check::*;

/// A statement of a lint's example: `doc` appears in block `block`'s `//` comments or in
/// the prose after the blocks, and `checks` hold on that block's run.
struct Claim {
    lint: &'static str,
    block: usize,
    doc: &'static str,
    checks: &'static [Check],
}

const fn claim(
    lint: &'static str,
    block: usize,
    doc: &'static str,
    checks: &'static [Check],
) -> Claim {
    Claim {
        lint,
        block,
        doc,
        checks,
    }
}

#[rustfmt::skip]
const CLAIMS: &[Claim] = &[
    claim("launch_impossible", 0, "64 KiB of dynamic shared memory", &[DynamicSmem(65536), Says("0 B static + 64 KiB dynamic")]),
    claim("launch_impossible", 0, "over the 48 KiB default", &[Says("exceeds the 48 KiB default without the opt-in")]),
    claim("launch_impossible", 0, "`CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES` = 65536",
        &[Says("set CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES to 65536")]),

    claim("low_occupancy", 0, "96 regs -> 3072 per warp", &[Says("96 regs/thread -> 96 x 32 = 3072 per warp")]),
    claim("low_occupancy", 0, "5 warps per sub-partition", &[Says("/ 3072 = 5 warps x 4 sub-partitions")]),
    claim("low_occupancy", 0, "2 blocks of 8 warps", &[Blocks(2), WarpsPerBlock(8)]),
    claim("low_occupancy", 0, "16 of 64 warps (25%)", &[Warps(16, 64), Occupancy("25%")]),
    claim("low_occupancy", 0, "`__launch_bounds__(256, 4)`", &[Says("64 regs/thread (e.g. __launch_bounds__(256, 4)) gives 50%")]),

    claim("partial_warp", 0, "100 threads", &[Threads(100), Says("= 100 threads")]),
    claim("partial_warp", 0, "4 warps", &[WarpsPerBlock(4)]),
    claim("partial_warp", 0, "28 idle lanes", &[Says("28 lanes per block")]),
    claim("partial_warp", 1, "128 threads", &[Threads(128)]),
    claim("partial_warp", 1, "4 full warps", &[WarpsPerBlock(4)]),

    claim("register_step", 0, "5 blocks, 62.5%", &[Blocks(5), Occupancy("62.5%")]),
    claim("register_step", 0, "`__launch_bounds__(256, 6)`", &[Says("__launch_bounds__(256, 6) asks ptxas for at most 40 registers")]),
    claim("register_step", 1, "6 blocks, 75%", &[Blocks(6), Occupancy("75%")]),

    claim("smem_step", 0, "1 block/SM", &[Blocks(1)]),
    claim("smem_step", 1, "2 blocks/SM", &[Blocks(2)]),

    claim("block_limit", 0, "66.67%", &[Blocks(16), Occupancy("66.67%")]),
    claim("block_limit", 1, "100%", &[Occupancy("100%")]),

    claim("barrier_limit", 0, "4 blocks", &[Blocks(4)]),
    claim("barrier_limit", 1, "16 blocks", &[Blocks(16)]),

    claim("carveout_limit", 0, "8 blocks", &[Blocks(8)]),
    claim("carveout_limit", 1, "16 blocks", &[Blocks(16)]),

    claim("register_spill", 0, "__launch_bounds__(256, 8): 32 registers, 352 B of spill stores",
        &[Kernel, Says("352 B of spill stores"), Says("32 regs/thread")]),

    claim("launch_bounds_mismatch", 0, "__launch_bounds__(256, 4)", &[Kernel, Says("__launch_bounds__(256, 4) asks for 4 blocks per SM")]),
    claim("launch_bounds_mismatch", 0, "48 KiB of shared memory per block", &[DynamicSmem(49152)]),
    claim("launch_bounds_mismatch", 0, "2 blocks/SM: min_blocks 4 not reached", &[Blocks(2), Says("this launch gets 2")]),

    claim("undersized_grid", 0, "one block per SM, 80,", &[Says("at least 80 blocks give every SM one, 160 fill the GPU")]),
    claim("undersized_grid", 0, "at most 50% achieved", &[Says("at most 50% achieved: 1 block on 80 SMs")]),
    claim("tail_effect", 0, "at most 25% achieved", &[Says("the last wave alone: at most 25% achieved: 244 blocks on 132 SMs")]),

    claim("cluster_limit", 0, "7 clusters: 112 of 132 SMs", &[Clusters(7), Says("7 x 16 = 112 blocks"), Says("132 SMs")]),
];

/// A fix the example gives in prose rather than in a second block: block 0 with `edit`,
/// on which the lint must not fire. `doc` appears in the prose after the blocks.
struct ProseFix {
    lint: &'static str,
    doc: &'static str,
    edit: Edit,
    checks: &'static [Check],
}

enum Edit {
    /// Replace this text of the attribute (once) with that.
    Attr(&'static str, &'static str),
    /// The kernel compiled as `doc` says (over what block 0 states).
    Kernel,
}

#[rustfmt::skip]
const PROSE_FIXES: &[ProseFix] = &[
    ProseFix { lint: "register_spill", doc: "`__launch_bounds__(256, 4)` (64 registers, no spills) and accept 50% occupancy",
        edit: Edit::Kernel, checks: &[Occupancy("50%"), Blocks(4)] },
    ProseFix { lint: "launch_bounds_mismatch", doc: "a tile that fits 4 blocks (`smem = 24 KiB`)",
        edit: Edit::Attr("smem = 48 KiB", "smem = 24 KiB"), checks: &[Blocks(4)] },
    ProseFix { lint: "launch_bounds_mismatch", doc: "`__launch_bounds__(256, 2)`",
        edit: Edit::Kernel, checks: &[Blocks(2)] },
    ProseFix { lint: "tail_effect", doc: "`grid = 1056`",
        edit: Edit::Attr("grid = 1300", "grid = 1056"), checks: &[] },
    ProseFix { lint: "undersized_grid", doc: "a full wave, 160 blocks of 1024 threads at 2 per SM",
        edit: Edit::Attr("grid = 1,", "grid = 160,"), checks: &[Blocks(2), Threads(1024)] },
    ProseFix { lint: "cluster_limit", doc: "`cluster = 2` (66 clusters, every SM)",
        edit: Edit::Attr("cluster = 16", "cluster = 2"), checks: &[Clusters(66)] },
];

// ---------------------------------------------------------------------------------------
// Reading the docs

/// A lint's doc comment, as read from its source file.
struct LintDoc {
    name: String,
    file: PathBuf,
    /// The doc comment, one line per `///` line (as [`Lint::docs`] holds it).
    docs: String,
    /// The code blocks of `### Example`, in order.
    blocks: Vec<Block>,
    /// The text of `### Example` after its first block, outside blocks.
    prose: String,
}

struct Block {
    code: String,
    /// The `//` comments of the block, joined with spaces.
    comments: String,
}

fn lint_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../occupancy-core/src/lint")
}

/// Every `pub static NAME = Lint { name: "..." ... }` of the lint module's source files
/// with the `///` lines right above it.
fn lint_docs() -> Vec<LintDoc> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(lint_dir())
        .expect("occupancy-core/src/lint")
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|e| e == "rs"))
        .collect();
    files.sort();
    let mut docs = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        let mut doc: Vec<&str> = Vec::new();
        for (i, line) in lines.iter().enumerate() {
            let line = line.trim_start();
            if let Some(rest) = line.strip_prefix("///") {
                doc.push(rest);
                continue;
            }
            // `$NAME`: the pattern of `declare_lint!` itself.
            if line.starts_with("pub static ") && line.ends_with("= Lint {") && !line.contains('$')
            {
                let name = lines
                    .get(i + 1)
                    .and_then(|l| l.trim().strip_prefix("name: \""))
                    .and_then(|l| l.strip_suffix("\","))
                    .unwrap_or_else(|| {
                        panic!(
                            "{}:{}: `name: \"...\",` should follow `{line}`",
                            file.display(),
                            i + 2
                        )
                    });
                let (blocks, prose) = examples(&doc);
                docs.push(LintDoc {
                    name: name.to_owned(),
                    file: file.clone(),
                    docs: doc.iter().map(|d| format!("{d}\n")).collect(),
                    blocks,
                    prose,
                });
            }
            doc.clear();
        }
    }
    docs
}

/// The code blocks of the `### Example` section of `doc` and the prose after the first.
fn examples(doc: &[&str]) -> (Vec<Block>, String) {
    let lines: Vec<&str> = doc
        .iter()
        .map(|d| d.strip_prefix(' ').unwrap_or(d))
        .collect();
    let Some(start) = lines.iter().position(|l| l.trim() == "### Example") else {
        return (Vec::new(), String::new());
    };
    let mut blocks = Vec::new();
    let mut prose = String::new();
    let mut fence: Option<Vec<&str>> = None;
    for line in &lines[start + 1..] {
        if fence.is_none() && line.starts_with("### ") {
            break;
        }
        if line.trim_start().starts_with("```") {
            match fence.take() {
                None => fence = Some(Vec::new()),
                Some(code) => blocks.push(Block {
                    comments: code
                        .iter()
                        .filter_map(|l| l.find("//").map(|at| l[at + 2..].trim()))
                        .collect::<Vec<_>>()
                        .join(" "),
                    code: code.join("\n"),
                }),
            }
            continue;
        }
        match &mut fence {
            Some(code) => code.push(line),
            None if !blocks.is_empty() => {
                prose.push_str(line.trim());
                prose.push(' ');
            }
            None => {}
        }
    }
    assert!(fence.is_none(), "unclosed code block in `### Example`");
    (blocks, prose)
}

// ---------------------------------------------------------------------------------------
// The kernel of an example that names one

/// A compiled kernel's resources as an example states them (`__launch_bounds__(256, 8)`,
/// `32 registers`, `352 B of spill stores`, `no spills`); what it does not state is 0 (no
/// registers, shared memory, local memory or spills) or absent (launch bounds, barriers).
#[derive(Clone, Copy, Debug, Default)]
struct Resources {
    max_threads: Option<u32>,
    min_blocks: Option<u32>,
    registers: Option<u32>,
    spill_stores: Option<u32>,
    spill_loads: Option<u32>,
}

impl Resources {
    /// What `text` states, over `self`.
    fn parse(mut self, text: &str) -> Resources {
        let mut stated = false;
        if let Some(at) = text.find("__launch_bounds__(") {
            let args = &text[at + "__launch_bounds__(".len()..];
            let args = &args[..args.find(')').expect("`)` after __launch_bounds__(")];
            let mut numbers = args.split(',').map(|n| n.trim().parse::<u32>().unwrap());
            self.max_threads = numbers.next();
            self.min_blocks = numbers.next();
            stated = true;
        }
        for (suffix, field) in [
            (" registers", &mut self.registers),
            (" B of spill stores", &mut self.spill_stores),
            (" B of spill loads", &mut self.spill_loads),
        ] {
            if let Some(n) = number_before(text, suffix) {
                *field = Some(n);
                stated = true;
            }
        }
        if text.contains("no spills") {
            (self.spill_stores, self.spill_loads) = (Some(0), Some(0));
            stated = true;
        }
        assert!(stated, "no kernel resources in {text:?}");
        self
    }

    /// A resource manifest with kernel `name` compiled for every architecture.
    fn manifest(&self, name: &str) -> String {
        let kernels: Vec<serde_json::Value> = ARCHS
            .iter()
            .map(|arch| {
                let mut kernel = serde_json::json!({
                    "name": name,
                    "arch": arch.sm,
                    "origin": "cubin",
                    "registers_per_thread": self.registers.unwrap_or(0),
                    "static_smem_bytes": 0,
                    "local_bytes": 0,
                    "spill_store_bytes": self.spill_stores.unwrap_or(0),
                    "spill_load_bytes": self.spill_loads.unwrap_or(0),
                    "barriers": null,
                });
                if let Some(t) = self.max_threads {
                    kernel["max_threads"] = serde_json::json!([t, 1, 1]);
                }
                if let Some(m) = self.min_blocks {
                    kernel["min_blocks_per_sm"] = m.into();
                }
                kernel
            })
            .collect();
        serde_json::json!({ "format": 1, "sources": [], "kernels": kernels }).to_string()
    }
}

/// The number right before `suffix` in `text` (`32` in `32 registers`).
fn number_before(text: &str, suffix: &str) -> Option<u32> {
    let head = &text[..text.find(suffix)?];
    let digits = head.len() - head.trim_end_matches(|c: char| c.is_ascii_digit()).len();
    head[head.len() - digits..].parse().ok()
}

/// The resources block `block` of `lint` states, through its [`Check::Kernel`] claims.
fn stated_resources(lint: &str, block: usize) -> Option<Resources> {
    CLAIMS
        .iter()
        .filter(|c| {
            c.lint == lint && c.block == block && c.checks.iter().any(|k| matches!(k, Kernel))
        })
        .fold(None, |r: Option<Resources>, c| {
            Some(r.unwrap_or_default().parse(c.doc))
        })
}

// ---------------------------------------------------------------------------------------
// Running an example

/// The arguments of the `#[occupancy::check(...)]` of `code`, and the function.
fn attribute(code: &str) -> (TokenStream, syn::ItemFn) {
    let func: syn::ItemFn =
        syn::parse_str(code).unwrap_or_else(|e| panic!("not a function: {e}\n{code}"));
    let checks: Vec<&syn::Attribute> = func
        .attrs
        .iter()
        .filter(|a| {
            let path: Vec<String> = a
                .path()
                .segments
                .iter()
                .map(|s| s.ident.to_string())
                .collect();
            path == ["occupancy", "check"]
        })
        .collect();
    assert_eq!(checks.len(), 1, "one #[occupancy::check(...)] in\n{code}");
    let args = checks[0].meta.require_list().unwrap().tokens.clone();
    (args, func)
}

/// `kernel = "name"` in the arguments.
fn kernel_name(args: &TokenStream) -> Option<String> {
    let tokens: Vec<TokenTree> = args.clone().into_iter().collect();
    tokens.windows(3).find_map(|w| match w {
        [
            TokenTree::Ident(key),
            TokenTree::Punct(eq),
            TokenTree::Literal(lit),
        ] if key == "kernel" && eq.as_char() == '=' => {
            let lit: syn::LitStr = syn::parse2(TokenTree::Literal(lit.clone()).into()).ok()?;
            Some(lit.value())
        }
        _ => None,
    })
}

/// `code` through the front end and the lints, as the proc macro runs them, in a scratch
/// crate `label` with the built-in policy and, when it names a kernel, a
/// `kernels.manifest.json` holding `resources`.
fn run(
    label: &str,
    code: &str,
    resources: Option<Resources>,
) -> Result<(Spec, Evaluation), String> {
    let (args, func) = attribute(code);
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("lint_docs")
        .join(label);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    if let Some(kernel) = kernel_name(&args) {
        let resources = resources
            .ok_or_else(|| format!("names kernel `{kernel}` but states no resources for it"))?;
        std::fs::write(
            dir.join("kernels.manifest.json"),
            resources.manifest(&kernel),
        )
        .unwrap();
    }
    let wrapper = Wrapper::new(&func.sig, &func.block);
    let spec = parse(args, &wrapper, Span::call_site(), &Env::new(&dir)).map_err(|e| {
        let errors: Vec<String> = e.into_iter().map(|e| e.to_string()).collect();
        format!("the attribute does not parse: {errors:?}")
    })?;
    let evaluation = spec
        .evaluate()
        .ok_or("the attribute has constant expressions: no numbers to check")?;
    Ok((spec, evaluation))
}

/// The findings of `lint` in `evaluation`, rendered as the macro renders them.
fn findings_of(evaluation: &Evaluation, lint: &str) -> Vec<String> {
    evaluation
        .diagnostics
        .iter()
        .filter(|d| d.finding.lint.name == lint)
        .map(|d| d.finding.to_string())
        .collect()
}

/// `62.5%`, `66.67%`: as the lints print a share of warps.
fn percent(active: u32, max: u32) -> String {
    let (active, max) = (u64::from(active), u64::from(max));
    let hundredths = (active * 20000 + max) / (2 * max);
    match (hundredths / 100, hundredths % 100) {
        (whole, 0) => format!("{whole}%"),
        (whole, f) if f % 10 == 0 => format!("{whole}.{}%", f / 10),
        (whole, f) => format!("{whole}.{f:02}%"),
    }
}

/// `check` on the run of `lint`'s example; the problem if it fails.
fn verify(check: Check, lint: &str, spec: &Spec, evaluation: &Evaluation) -> Result<(), String> {
    if let Says(text) = check {
        let findings = findings_of(evaluation, lint);
        return if findings.iter().any(|f| f.contains(text)) {
            Ok(())
        } else {
            Err(format!(
                "no `{lint}` finding says {text:?}; the findings: {findings:#?}"
            ))
        };
    }
    if let Kernel = check {
        return Ok(());
    }
    let case = &evaluation.cases[0];
    for (index, t) in case.targets.iter().enumerate() {
        let occ = || {
            t.occupancy
                .as_ref()
                .map_err(|e| format!("{}: the engine says {e}", t.target))
        };
        let (expected, actual) = match check {
            Blocks(n) => (n.to_string(), occ()?.blocks_per_sm.to_string()),
            Occupancy(p) => {
                let occ = occ()?;
                let actual = percent(occ.active_warps_per_sm(), occ.max_warps_per_sm);
                (p.to_owned(), actual)
            }
            Warps(a, m) => {
                let occ = occ()?;
                let actual = format!("{} of {}", occ.active_warps_per_sm(), occ.max_warps_per_sm);
                (format!("{a} of {m}"), actual)
            }
            Threads(n) => (n.to_string(), occ()?.threads_per_block.to_string()),
            WarpsPerBlock(n) => (n.to_string(), occ()?.warps_per_block.to_string()),
            DynamicSmem(n) => (n.to_string(), t.launch.dynamic_smem_bytes.to_string()),
            Clusters(n) => {
                let cluster = spec.cluster(case.kernel, index).ok_or("no cluster")?;
                let topology = Topology::of_target(&t.target).ok_or("not a named GPU")?;
                let r =
                    max_active_clusters(t.target.arch, &topology, &t.kernel, &t.launch, &cluster)
                        .map_err(|e| e.to_string())?;
                (
                    format!("{:?}", ClusterCount::Exact(n)),
                    format!("{:?}", r.max_active_clusters),
                )
            }
            Says(_) | Kernel => unreachable!(),
        };
        if expected != actual {
            return Err(format!(
                "{check:?} on {}: the engine says {actual}",
                t.target
            ));
        }
    }
    Ok(())
}

/// The numbers in `text` that no range of `covered` holds (digits not part of a word such
/// as `sm_90`).
fn uncovered_numbers(text: &str, covered: &[(usize, usize)]) -> Vec<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let word = i > 0 && (bytes[i - 1].is_ascii_alphanumeric() || bytes[i - 1] == b'_');
        if bytes[i].is_ascii_digit() && !word {
            let end = i + text[i..]
                .find(|c: char| !(c.is_ascii_digit() || c == '.'))
                .unwrap_or(text.len() - i);
            let end = if text[..end].ends_with('.') {
                end - 1
            } else {
                end
            };
            if !covered.iter().any(|&(s, e)| s <= i && end <= e) {
                out.push(text[i..end].to_owned());
            }
            i = end;
        } else {
            i += 1;
        }
    }
    out
}

// ---------------------------------------------------------------------------------------
// The tests

#[test]
fn every_lint_has_an_example_read_faithfully() {
    let docs = lint_docs();
    let mut problems = Vec::new();
    let mut seen = BTreeSet::new();
    for doc in &docs {
        if !seen.insert(doc.name.as_str()) {
            problems.push(format!("`{}` is declared twice", doc.name));
        }
        match Lint::find(&doc.name) {
            None => problems.push(format!(
                "`{}` ({}) is not in occupancy_core::lint::LINTS",
                doc.name,
                doc.file.display()
            )),
            Some(lint) if lint.docs != doc.docs => problems.push(format!(
                "`{}`: the doc comment read from {} is not the lint's `docs`",
                doc.name,
                doc.file.display()
            )),
            Some(_) => {}
        }
        if doc.blocks.is_empty() {
            problems.push(format!(
                "`{}` has no code block under `### Example`",
                doc.name
            ));
        }
        if doc.blocks.len() > 2 {
            problems.push(format!(
                "`{}` has {} example blocks: one that fires, one fixed",
                doc.name,
                doc.blocks.len()
            ));
        }
    }
    for lint in LINTS {
        if !seen.contains(lint.name) {
            problems.push(format!(
                "`{}` is registered but has no `pub static ... = Lint {{ name: \"{}\", ... }}` in {}",
                lint.name,
                lint.name,
                lint_dir().display()
            ));
        }
    }
    // Claims and fixes name real lints and blocks.
    for c in CLAIMS {
        match docs.iter().find(|d| d.name == c.lint) {
            Some(d) if c.block < d.blocks.len() => {}
            _ => problems.push(format!(
                "claim {:?}: no block {} of `{}`",
                c.doc, c.block, c.lint
            )),
        }
    }
    for f in PROSE_FIXES {
        if !docs.iter().any(|d| d.name == f.lint) {
            problems.push(format!("prose fix {:?}: no lint `{}`", f.doc, f.lint));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    assert_eq!(docs.len(), LINTS.len());
}

#[test]
fn examples_fire_and_fixes_do_not() {
    let mut problems = String::new();
    let mut blocks = 0;
    for doc in lint_docs() {
        let lint = Lint::find(&doc.name).expect("registered (see the other test)");
        for (index, block) in doc.blocks.iter().enumerate() {
            blocks += 1;
            let whence = format!("`{}` example block {index}", doc.name);
            let label = format!("{}-{index}", doc.name);
            let (spec, evaluation) =
                match run(&label, &block.code, stated_resources(&doc.name, index)) {
                    Ok(run) => run,
                    Err(e) => {
                        writeln!(problems, "{whence}: {e}").unwrap();
                        continue;
                    }
                };
            let fired = !findings_of(&evaluation, &doc.name).is_empty();
            match index {
                0 if !fired => writeln!(
                    problems,
                    "{whence} should fire; the findings: {:#?}",
                    evaluation.diagnostics
                )
                .unwrap(),
                0 if spec.level(lint) == Level::Allow => writeln!(
                    problems,
                    "{whence}: the lint is allowed, the macro would say nothing"
                )
                .unwrap(),
                0 => {}
                _ if fired => writeln!(
                    problems,
                    "{whence} (the fixed attribute) still fires: {:#?}",
                    findings_of(&evaluation, &doc.name)
                )
                .unwrap(),
                _ => {}
            }
            // The statements about this block, and that they cover its comments' numbers.
            let mut covered = Vec::new();
            for c in CLAIMS
                .iter()
                .filter(|c| c.lint == doc.name && c.block == index)
            {
                let spans: Vec<(usize, usize)> = block
                    .comments
                    .match_indices(c.doc)
                    .map(|(at, s)| (at, at + s.len()))
                    .collect();
                if spans.is_empty() && !doc.prose.contains(c.doc) {
                    writeln!(problems, "{whence}: the example no longer says {:?}", c.doc).unwrap();
                }
                covered.extend(spans);
                for check in c.checks {
                    if let Err(e) = verify(*check, &doc.name, &spec, &evaluation) {
                        writeln!(problems, "{whence}, {:?}: {e}", c.doc).unwrap();
                    }
                }
            }
            let unchecked = uncovered_numbers(&block.comments, &covered);
            if !unchecked.is_empty() {
                writeln!(
                    problems,
                    "{whence}: no claim checks {unchecked:?} in {:?} (add one to CLAIMS)",
                    block.comments
                )
                .unwrap();
            }
        }
    }
    assert!(problems.is_empty(), "{problems}");
    assert!(blocks >= LINTS.len());
}

#[test]
fn prose_fixes_do_not_fire() {
    let docs = lint_docs();
    let mut problems = String::new();
    for (index, fix) in PROSE_FIXES.iter().enumerate() {
        let whence = format!("`{}` prose fix {:?}", fix.lint, fix.doc);
        let Some(doc) = docs.iter().find(|d| d.name == fix.lint) else {
            writeln!(problems, "{whence}: no such lint").unwrap();
            continue;
        };
        if !doc.prose.contains(fix.doc) {
            writeln!(problems, "{whence}: the example no longer says it").unwrap();
            continue;
        }
        let mut code = doc.blocks[0].code.clone();
        let mut resources = stated_resources(fix.lint, 0);
        match fix.edit {
            Edit::Attr(from, to) => {
                if code.matches(from).count() != 1 {
                    writeln!(problems, "{whence}: {from:?} is not in block 0 once").unwrap();
                    continue;
                }
                code = code.replace(from, to);
            }
            Edit::Kernel => resources = Some(resources.unwrap_or_default().parse(fix.doc)),
        }
        let label = format!("{}-fix-{index}", fix.lint);
        let (spec, evaluation) = match run(&label, &code, resources) {
            Ok(run) => run,
            Err(e) => {
                writeln!(problems, "{whence}: {e}").unwrap();
                continue;
            }
        };
        let findings = findings_of(&evaluation, fix.lint);
        if !findings.is_empty() {
            writeln!(problems, "{whence} still fires: {findings:#?}").unwrap();
        }
        for check in fix.checks {
            if let Err(e) = verify(*check, fix.lint, &spec, &evaluation) {
                writeln!(problems, "{whence}: {e}").unwrap();
            }
        }
    }
    assert!(problems.is_empty(), "{problems}");
}

#[test]
fn reading_helpers() {
    assert_eq!(number_before("x, 32 registers", " registers"), Some(32));
    assert_eq!(number_before("registers", " registers"), None);
    assert_eq!(
        uncovered_numbers("sm_90: 5 blocks, 62.5%. 7", &[(7, 15)]),
        ["62.5", "7"]
    );
    assert_eq!(percent(32, 48), "66.67%");
    assert_eq!(percent(40, 64), "62.5%");
    assert_eq!(percent(16, 64), "25%");
    let r = Resources::default()
        .parse("__launch_bounds__(256, 8): 32 registers, 352 B of spill stores");
    assert_eq!(
        (
            r.max_threads,
            r.min_blocks,
            r.registers,
            r.spill_stores,
            r.spill_loads
        ),
        (Some(256), Some(8), Some(32), Some(352), None)
    );
}
