//! The front end on real files: the manifest lookup order, per-target resources from a
//! fatbin, overrides, the new keys, and that no input makes it panic.

use std::path::{Path, PathBuf};

use occupancy_attr::{
    Env, MANIFEST_VAR, ManifestOrigin, SourceKind, Spec, TARGETS_VAR, TargetsOrigin, Wrapper, parse,
};
use proc_macro2::{Span, TokenStream};
use proptest::prelude::*;
use quote::quote;

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/ui/fixtures")
}

fn parse_with(args: TokenStream, env: &Env) -> Result<Spec, Vec<String>> {
    let func: syn::ItemFn = syn::parse_quote!(
        fn launch() {}
    );
    parse(args, &Wrapper::signature(&func.sig), Span::call_site(), env)
        .map_err(|e| e.into_iter().map(|e| e.to_string()).collect())
}

fn err(args: TokenStream, env: &Env) -> Vec<String> {
    match parse_with(args, env) {
        Ok(_) => panic!("parsed without an error"),
        Err(errors) => errors,
    }
}

fn ok(args: TokenStream, env: &Env) -> Spec {
    parse_with(args, env).unwrap_or_else(|e| panic!("{e:#?}"))
}

/// A scratch crate directory of its own under the target's tmp folder.
fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The probe manifest with k_plain's registers set to `regs` on every architecture.
fn manifest_with_k_plain_regs(regs: u32) -> String {
    let text = std::fs::read_to_string(fixtures().join("probe.manifest.json")).unwrap();
    let mut json: serde_json::Value = serde_json::from_str(&text).unwrap();
    for kernel in json["kernels"].as_array_mut().unwrap() {
        if kernel["name"] == "k_plain" {
            kernel["registers_per_thread"] = regs.into();
        }
    }
    json.to_string()
}

/// The spec's one kernel, if it has a compiled one.
fn kernel_of(spec: &Spec) -> Option<usize> {
    (!spec.kernels.is_empty()).then_some(0)
}

fn regs_per_target(spec: &Spec) -> Vec<u32> {
    (0..spec.targets.len())
        .map(|i| {
            spec.kernel(kernel_of(spec), i)
                .unwrap()
                .registers_per_thread
        })
        .collect()
}

#[test]
fn manifest_lookup_order() {
    let dir = scratch("manifest-order");
    let args = || quote!(kernel = "k_plain", block = 256, target = ["sm_80", "sm_90"]);

    // Nothing to read.
    let errors = err(args(), &Env::new(&dir));
    assert_eq!(errors.len(), 1);
    assert!(
        errors[0].starts_with("no resource manifest to read `k_plain` from"),
        "{errors:?}"
    );

    // 4. kernels.manifest.json beside Cargo.toml: the probe's own numbers (10 and 12).
    std::fs::copy(
        fixtures().join("probe.manifest.json"),
        dir.join("kernels.manifest.json"),
    )
    .unwrap();
    let spec = ok(args(), &Env::new(&dir));
    let source = spec.source.as_ref().unwrap();
    assert_eq!(source.kind, SourceKind::Manifest(ManifestOrigin::Default));
    assert_eq!(regs_per_target(&spec), [10, 12]);
    assert_eq!(spec.tracked_files, [dir.join("kernels.manifest.json")]);
    assert_eq!(spec.tracked_vars, ["OCCUPANCY_POLICY", MANIFEST_VAR]);

    // 3. The policy's `manifest` wins over the default name; the policy file is tracked too.
    std::fs::write(dir.join("policy.json"), manifest_with_k_plain_regs(77)).unwrap();
    std::fs::write(dir.join("occupancy.toml"), "manifest = \"policy.json\"\n").unwrap();
    let spec = ok(args(), &Env::new(&dir));
    assert_eq!(
        spec.source.as_ref().unwrap().kind,
        SourceKind::Manifest(ManifestOrigin::Policy)
    );
    assert_eq!(regs_per_target(&spec), [77, 77]);
    assert_eq!(
        spec.tracked_files,
        [dir.join("occupancy.toml"), dir.join("policy.json")]
    );

    // 2. $OUT_DIR/occupancy/manifest.json wins over the policy's.
    std::fs::create_dir_all(dir.join("out/occupancy")).unwrap();
    std::fs::write(
        dir.join("out/occupancy/manifest.json"),
        manifest_with_k_plain_regs(78),
    )
    .unwrap();
    let env = Env::new(&dir).with_var("OUT_DIR", dir.join("out"));
    let spec = ok(args(), &env);
    assert_eq!(
        spec.source.as_ref().unwrap().kind,
        SourceKind::Manifest(ManifestOrigin::OutDir)
    );
    assert_eq!(regs_per_target(&spec), [78, 78]);

    // 1. $OCCUPANCY_MANIFEST wins over everything (relative to the crate here).
    std::fs::write(dir.join("env.json"), manifest_with_k_plain_regs(79)).unwrap();
    let spec = ok(args(), &env.clone().with_var(MANIFEST_VAR, "env.json"));
    assert_eq!(
        spec.source.as_ref().unwrap().kind,
        SourceKind::Manifest(ManifestOrigin::EnvVar)
    );
    assert_eq!(spec.source.as_ref().unwrap().path, dir.join("env.json"));
    assert_eq!(regs_per_target(&spec), [79, 79]);

    // A variable naming a missing file is an error, not a fall-through.
    let errors = err(args(), &env.with_var(MANIFEST_VAR, "gone.json"));
    assert!(
        errors[0].starts_with(
            "cannot use the resource manifest gone.json: cannot read resource manifest"
        ),
        "{errors:?}"
    );
}

#[test]
fn fatbin_resources_per_target() {
    let env = Env::new(fixtures());
    let spec = ok(
        quote!(
            fatbin = "probe.fatbin",
            kernel = "k_regs",
            block = 256,
            target = ["sm_80", "sm_86", "H100"]
        ),
        &env,
    );
    // sm_86 runs the sm_80 cubin; the H100 (9.0) the sm_90a one.
    let archs: Vec<String> = (0..spec.targets.len())
        .map(|i| spec.resources(Some(0), i).unwrap().arch.to_string())
        .collect();
    assert_eq!(archs, ["sm_80", "sm_80", "sm_90a"]);
    assert_eq!(regs_per_target(&spec), [52, 52, 46]);
    let evaluation = spec.evaluate().unwrap();
    let percents: Vec<f64> = evaluation.cases[0]
        .targets
        .iter()
        .map(|t| t.occupancy.as_ref().unwrap().percent())
        .collect();
    assert_eq!(percents[0], 50.0);
    assert!((percents[1] - 200.0 / 3.0).abs() < 1e-9, "{percents:?}");
    assert_eq!(percents[2], 62.5);
    // 50%, 66.67% and 62.5% are not below the default 50% floor; 52 registers on sm_80 and
    // sm_86 are 4 over the 48 that give a fifth block (register_step); on sm_90 the 46
    // would have to drop to 40 (6, over the default 4).
    let found: Vec<(&str, String)> = evaluation
        .diagnostics
        .iter()
        .map(|d| (d.finding.lint.name, d.finding.target.unwrap().to_string()))
        .collect();
    assert_eq!(
        found,
        [
            ("register_step", "sm_80".to_owned()),
            ("register_step", "sm_86".to_owned())
        ]
    );
}

#[test]
fn artifact_facts_and_launch_bounds() {
    let env = Env::new(fixtures()).with_var(MANIFEST_VAR, "probe.manifest.json");
    let spec = ok(
        quote!(kernel = "k_spill", block = 128, target = ["sm_80", "sm_90"]),
        &env,
    );
    let facts: Vec<_> = (0..2).map(|i| spec.artifact(Some(0), i)).collect();
    assert_eq!(facts[0].spill_store_bytes, Some(480));
    assert_eq!(facts[0].spill_load_bytes, Some(568));
    assert_eq!(facts[1].spill_store_bytes, Some(484));
    assert_eq!(facts[0].local_bytes, Some(192));
    assert_eq!(facts[0].min_blocks_per_sm, None);

    // k_bounds: __launch_bounds__(256, 2) (the minimum from the PTX the manifest was written with).
    let spec = ok(
        quote!(kernel = "k_bounds", block = 512, target = "sm_90"),
        &env,
    );
    assert_eq!(spec.artifact(Some(0), 0).min_blocks_per_sm, Some(2));
    assert_eq!(
        spec.kernel(Some(0), 0).unwrap().max_threads_per_block,
        Some(256)
    );
    let evaluation = spec.evaluate().unwrap();
    // The driver's occupancy ignores launch bounds (4 blocks of 16 warps); the lint does not.
    assert_eq!(
        evaluation.cases[0].targets[0]
            .occupancy
            .as_ref()
            .unwrap()
            .blocks_per_sm,
        4
    );
    let finding = &evaluation.diagnostics[0].finding;
    assert_eq!(finding.lint.name, "launch_impossible");
    assert!(
        finding.notes.iter().any(|n| n
            == "k_bounds: 16 regs/thread, 1 KiB static shared memory, 1 barrier, \
                __launch_bounds__(256, 2), from its sm_90 cubin in the resource manifest \
                probe.manifest.json"),
        "{:?}",
        finding.notes
    );

    // Literal values override the artifact's, target by target.
    let spec = ok(
        quote!(
            kernel = "k_bounds",
            block = 512,
            max_threads = 1024,
            regs = 40,
            static_smem = 0,
            target = ["sm_80", "sm_90"]
        ),
        &env,
    );
    for i in 0..2 {
        let kernel = spec.kernel(Some(0), i).unwrap();
        assert_eq!(
            (
                kernel.registers_per_thread,
                kernel.static_smem_bytes,
                kernel.max_threads_per_block
            ),
            (40, 0, Some(1024))
        );
    }
    // A constant leaves the evaluation to the compiler.
    let spec = ok(
        quote!(kernel = "k_bounds", block = BLOCK, target = "sm_90"),
        &env,
    );
    assert!(spec.evaluate().is_none());
    assert_eq!(spec.const_inputs(), [occupancy_core::lint::Input::Block]);
}

#[test]
fn grid_cluster_class_and_thresholds() {
    let dir = scratch("new-keys");
    std::fs::write(
        dir.join("occupancy.toml"),
        "class = \"compute_bound\"\n[thresholds]\nsmem_step_max_bytes = 256\n",
    )
    .unwrap();
    let env = Env::new(&dir);
    let spec = ok(
        quote!(block = 256, regs = 32, grid = (64, 64), target = "sm_90"),
        &env,
    );
    assert_eq!(spec.plans[0].grid_blocks(), Some(4096));
    assert_eq!(spec.min_occupancy.basis_points(), 2500);
    assert_eq!(spec.class.map(|c| c.name()), Some("compute_bound"));
    assert_eq!(spec.thresholds.smem_step_max_bytes, 256);
    assert_eq!(spec.thresholds.register_step_max_drop, 4);

    let spec = ok(
        quote!(block = 256, regs = 32, grid = GRID, class = "memory_bound"),
        &env,
    );
    assert_eq!(spec.plans[0].grid_blocks(), None);
    assert!(spec.const_inputs().is_empty());
    assert_eq!(spec.min_occupancy.basis_points(), 6250);
    assert!(spec.evaluate().is_some());

    let spec = ok(
        quote!(block = 128, regs = 32, cluster = (2, 2), target = "H200"),
        &env,
    );
    let cluster = spec.cluster.unwrap();
    assert_eq!(
        (cluster.dim.blocks(), cluster.non_portable_allowed),
        (4, false)
    );
    // Issue 13, item 2: above 8 blocks only with `non_portable = true` (the wrapper sets
    // CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED); without it the launch fails.
    let spec = ok(
        quote!(block = 128, regs = 32, cluster = 16, target = "sm_90"),
        &env,
    );
    assert!(!spec.cluster.unwrap().non_portable_allowed);
    let lints: Vec<&str> = spec
        .evaluate()
        .unwrap()
        .diagnostics
        .iter()
        .map(|d| d.finding.lint.name)
        .collect();
    assert!(lints.contains(&"launch_impossible"), "{lints:?}");
    let spec = ok(
        quote!(
            block = 128,
            regs = 32,
            cluster = 16,
            non_portable = true,
            target = "sm_90"
        ),
        &env,
    );
    assert!(spec.non_portable && spec.cluster.unwrap().non_portable_allowed);
    let lints: Vec<&str> = spec
        .evaluate()
        .unwrap()
        .diagnostics
        .iter()
        .map(|d| d.finding.lint.name)
        .collect();
    assert!(!lints.contains(&"launch_impossible"), "{lints:?}");
    assert_eq!(
        err(quote!(block = 128, regs = 32, non_portable = true), &env),
        [
            "`non_portable` applies to thread-block cluster launches: add `cluster = ...` or remove it"
        ]
    );
    assert_eq!(
        err(
            quote!(
                block = 128,
                regs = 32,
                cluster = 9,
                non_portable = 1,
                target = "H200"
            ),
            &env
        ),
        ["`non_portable` takes `true` or `false`"]
    );
    // Issue 13, item 1: a grid that is not a whole number of clusters is `launch_impossible`
    // on the grid (it was a front-end error before, not a finding `report` could count).
    let spec = ok(
        quote!(
            block = 256,
            regs = 32,
            cluster = 3,
            grid = 1000,
            target = "H200"
        ),
        &env,
    );
    let evaluation = spec.evaluate().unwrap();
    let impossible: Vec<_> = evaluation
        .diagnostics
        .iter()
        .map(|d| &d.finding)
        .filter(|f| f.lint.name == "launch_impossible")
        .collect();
    assert_eq!(impossible.len(), 1);
    assert_eq!(impossible[0].input, occupancy_core::lint::Input::Grid);
    assert_eq!(
        impossible[0].message,
        "launch on H200: a grid of 1000 blocks is not a whole number of clusters of 3"
    );

    let errors = err(
        quote!(
            block = 256,
            regs = 32,
            cluster = 2,
            class = "compute",
            grid = (0, 1)
        ),
        &env,
    );
    assert_eq!(
        errors,
        [
            "a grid dimension must be at least 1",
            "unknown kernel class `compute`; did you mean `compute_bound`?",
            "thread-block clusters need compute capability 9.0 or later; sm_80 (8.0) has none: \
             remove `cluster` or that target",
        ]
    );
}

#[test]
fn cubin_errors_name_the_problem() {
    let env = Env::new(fixtures());
    let errors = err(
        quote!(
            cubin = "truncated.sm_80.cubin",
            kernel = "k_plain",
            block = 256
        ),
        &env,
    );
    assert_eq!(
        errors,
        [
            "cannot read the cubin `truncated.sm_80.cubin`: cubin: section headers: Invalid ELF section header offset/size/alignment"
        ]
    );
    let errors = err(
        quote!(
            cubin = "probe.sm_80.cubin",
            kernel = "k_plain",
            block = 256,
            target = ["sm_90", "sm_89"]
        ),
        &env,
    );
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(
        errors[0].starts_with("`k_plain` has no cubin that runs on sm_90 (compute capability 9.0) in the cubin probe.sm_80.cubin: it was compiled for sm_80"),
        "{errors:?}"
    );
}

/// Words and punctuation the attribute is made of, and some it is not.
const VOCABULARY: &[&str] = &[
    "block",
    "regs",
    "smem",
    "kernel",
    "cubin",
    "fatbin",
    "grid",
    "cluster",
    "class",
    "target",
    "min_occupancy",
    "carveout",
    "barriers",
    "max_threads",
    "opt_in",
    "static_smem",
    "allow",
    "deny",
    "low_occupancy",
    "=",
    ",",
    "(",
    ")",
    "[",
    "]",
    "%",
    "-",
    "*",
    "0",
    "1",
    "32",
    "256",
    "4294967295",
    "99999999999",
    "1.5",
    "KiB",
    "B",
    "\"sm_90\"",
    "\"sm_80\"",
    "\"H100\"",
    "\"k_plain\"",
    "\"probe.sm_80.cubin\"",
    "\"probe.fatbin\"",
    "\"truncated.sm_80.cubin\"",
    "\"probe.manifest.json\"",
    "\"memory_bound\"",
    "\"\"",
    "Self",
    "TILE",
    "::",
    "'a",
    "true",
];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// Any sequence of attribute-like tokens parses to a spec or to errors: never a panic.
    #[test]
    fn never_panics(words in proptest::collection::vec(proptest::sample::select(VOCABULARY), 0..24)) {
        let text = words.join(" ");
        if let Ok(tokens) = text.parse::<TokenStream>() {
            let env = Env::new(fixtures()).with_var(MANIFEST_VAR, "probe.manifest.json");
            if let Ok(spec) = parse_with(tokens, &env) {
                let _ = spec.evaluate();
            }
        }
    }
}

/// A syntax error is the only error for its argument: keys written in an argument that does
/// not parse are not also reported missing.
#[test]
fn a_syntax_error_is_not_followed_by_a_missing_key_error() {
    let env = Env::new(scratch("syntax_then_missing"));
    for args in [
        quote!(block = 256; regs = 32),
        quote!(block = 256 regs = 32),
    ] {
        let errors = err(args.clone(), &env);
        assert_eq!(errors.len(), 1, "{args}: {errors:#?}");
        assert!(!errors[0].contains("missing"), "{args}: {errors:#?}");
    }
    // A key that is really missing still is.
    assert_eq!(
        err(quote!(block = 256), &env),
        [
            "missing the kernel's resources: `kernel = \"name\"` (from the build's resource \
          manifest), `cubin = \"path\"`, `fatbin = \"path\"`, or `regs = N` (ptxas -v: \
          `Used N registers`)"
        ]
    );
}

/// Input nested or chained deeply enough to overflow `syn`'s stack (a debug build overflows
/// rustc's 8 MiB at 720 parentheses, or a 2,300-term sum when cloned) is an error on its
/// token, before `syn` sees it; the test thread's 2 MiB stack would overflow otherwise. The
/// other arguments are still checked, and the argument counts as written (no "missing"
/// error).
#[test]
fn deep_nesting_and_long_chains_are_errors_not_stack_overflows() {
    let env = Env::default();
    let nested = |n: usize| format!("{}256{}", "(".repeat(n), ")".repeat(n));
    let depth = "the attribute's argument is nested more than 32 levels deep; the limit keeps \
                 the parser from overflowing its stack";
    let chain = "the attribute's argument: this expression or type chains too many operators \
                 and groups to parse safely (over 3 MiB of estimated parser stack); split it, \
                 e.g. into `const` items";
    for (what, block, expected) in [
        ("1,000 levels", nested(1_000), depth),
        ("100,000 levels", nested(100_000), depth),
        (
            "100,000-term sum",
            format!("1{}", " + 1".repeat(99_999)),
            chain,
        ),
        (
            "100,000 negations",
            format!("{}256", "- ".repeat(100_000)),
            chain,
        ),
    ] {
        let args: TokenStream = format!("block = {block}, regs = 32, blok = 1")
            .parse()
            .unwrap();
        let found = err(args, &env);
        assert_eq!(
            found,
            [expected, "unknown key `blok`; did you mean `block`?"],
            "{what}"
        );
    }
    // 32 levels are read, and evaluated.
    let args: TokenStream = format!("block = {}, regs = 32", nested(32))
        .parse()
        .unwrap();
    assert_eq!(ok(args, &env).plans[0].block[0].literal(), Some(256));
}

/// A body is checked against the limits before `syn` parses it: a body 1,000 or 100,000
/// levels deep, or a 100,000-term sum in it, is not read (the attribute's keys still
/// check the launch), never a stack overflow.
#[test]
fn deep_wrapper_bodies_are_not_read_and_do_not_overflow() {
    let body = |text: String| -> proc_macro2::Group {
        match text.parse::<TokenStream>().unwrap().into_iter().next() {
            Some(proc_macro2::TokenTree::Group(g)) => g,
            other => panic!("{other:?}"),
        }
    };
    let depth = "the body is nested more than 64 levels deep; the limit keeps the parser from \
                 overflowing its stack";
    for n in [65, 1_000, 100_000] {
        let e =
            occupancy_attr::parse_body(&body(format!("{{ {}1{} }}", "(".repeat(n), ")".repeat(n))))
                .err()
                .unwrap();
        assert_eq!(e, depth, "{n}");
    }
    let e = occupancy_attr::parse_body(&body(format!("{{ 1{} }}", " + 1".repeat(99_999))))
        .err()
        .unwrap();
    assert!(e.starts_with("the body: this expression"), "{e}");
    let real = body(
        "{ let cfg = LaunchConfig { grid_dim: (n.div_ceil(256), 1, 1), block_dim: (256, 1, 1), \
         shared_mem_bytes: 0 }; unsafe { stream.launch_builder(&f).arg(&n).launch(cfg) }?; Ok(()) }"
            .to_owned(),
    );
    assert!(occupancy_attr::parse_body(&real).is_ok());
    let signature: TokenStream = format!("fn f(x: {}u32{})", "[".repeat(70), "; 1]".repeat(70))
        .parse()
        .unwrap();
    assert!(occupancy_attr::check_signature(&signature).is_err());
}

/// A policy with 10,000 bad keys was 10,000 errors (4.6 MB of output) for each wrapper; a
/// list of 10,000 unknown targets, 10,000 errors (3.2 MB, 96 s). Now: the first 5 of a
/// kind and a count, in the policy's one error; the list is over the attribute's size limit.
#[test]
fn repeated_errors_are_capped() {
    let dir = scratch("capped-errors");
    let keys: String = (0..10_000).map(|i| format!("bad_key_{i} = 1\n")).collect();
    std::fs::write(dir.join("occupancy.toml"), keys).unwrap();
    let found = err(quote!(block = 256, regs = 32), &Env::new(&dir));
    assert_eq!(found.len(), 1, "{found:#?}");
    let lines: Vec<&str> = found[0].lines().collect();
    let shown = dir.join("occupancy.toml").display().to_string();
    assert_eq!(lines.len(), 7, "{lines:#?}");
    assert_eq!(
        lines[0],
        format!(
            "{shown}:1:1: unknown key `bad_key_0`; known keys: `targets`, `min_occupancy`, \
             `class`, `lints`, `thresholds`, `manifest`, `read_paths`, `launches`, `device_params`, \
             `defines`"
        )
    );
    assert!(
        lines[5].starts_with("... and 9995 more errors of this kind (the first 5 are shown): "),
        "{}",
        lines[5]
    );
    assert_eq!(
        lines[6],
        format!(
            "the policy file {shown} has 10000 problems (above); every #[occupancy::check] of the \
             crate reads it and reports them until it is fixed"
        )
    );
    let targets: String = (0..10_000).map(|i| format!("\"sm_{i}x\", ")).collect();
    let args: TokenStream = format!("block = 256, regs = 32, target = [{targets}]")
        .parse()
        .unwrap();
    let found = err(args, &Env::default());
    assert_eq!(
        found,
        [
            "the attribute's argument has more than 4096 tokens; the limit keeps the parser's time \
             and memory bounded"
        ]
    );
    let targets: String = (0..100).map(|i| format!("\"sm_{i}x\", ")).collect();
    let args: TokenStream = format!("block = 256, regs = 32, target = [{targets}]")
        .parse()
        .unwrap();
    let found = err(args, &Env::default());
    assert_eq!(found.len(), 6, "{found:#?}");
    assert!(
        found[5].starts_with("... and 95 more errors of this kind"),
        "{}",
        found[5]
    );
}

/// Before: a typo in the policy was two errors on every wrapper (the problem, then a line
/// counting the problems), and one error per problem besides: hundreds on a large crate.
/// Each wrapper still fails (its expansion depends on its own input alone), with one error
/// that lists each problem once, at its line. A `manifest` naming no file is one of them.
#[test]
fn a_bad_policy_is_one_error_per_wrapper_listing_each_problem() {
    let dir = scratch("policy-one-error");
    let shown = dir.join("occupancy.toml").display().to_string();
    std::fs::write(
        dir.join("occupancy.toml"),
        "min_ocupancy = \"75%\"\ntargts = [\"sm_90\"]\n",
    )
    .unwrap();
    let found = err(quote!(block = 256, regs = 32), &Env::new(&dir));
    assert_eq!(
        found,
        [format!(
            "{shown}:1:1: unknown key `min_ocupancy`; did you mean `min_occupancy`?\n\
             {shown}:2:1: unknown key `targts`; did you mean `targets`?\n\
             the policy file {shown} has 2 problems (above); every #[occupancy::check] of the \
             crate reads it and reports them until it is fixed"
        )]
    );
    std::fs::write(dir.join("occupancy.toml"), "manifest = \"gone.json\"\n").unwrap();
    let found = err(quote!(block = 256, regs = 32), &Env::new(&dir));
    assert_eq!(
        found,
        [format!(
            "{shown}:1:12: `manifest`: `gone.json`: no such file; looked for {} (relative to the \
             crate's directory)\n\
             the policy file {shown} has 1 problem (above); every #[occupancy::check] of the \
             crate reads it and reports them until it is fixed",
            dir.join("gone.json").display()
        )]
    );
}

/// The targets of a wrapper that names none: the policy's `targets`, else those the build
/// script compiles for (`OCCUPANCY_TARGETS`, with a note on each target's finding), else
/// sm_80 and sm_90; the attribute's `target` wins over all.
#[test]
fn targets_come_from_the_attribute_the_policy_the_build_or_the_defaults() {
    let dir = scratch("front-end-targets");
    let names = |spec: &Spec| -> Vec<String> {
        spec.targets.iter().map(|t| t.target.to_string()).collect()
    };
    // 64-thread blocks: 66.67% on sm_86 (16 blocks), 100% on sm_80 and sm_90.
    let args = || quote!(block = 64, regs = 32, min_occupancy = 75%);
    let built = Env::new(&dir).with_var(TARGETS_VAR, "sm_80,sm_86,sm_90");

    let spec = ok(args(), &Env::new(&dir));
    assert_eq!(
        (names(&spec), spec.targets_origin),
        (
            vec!["sm_80".to_owned(), "sm_90".to_owned()],
            TargetsOrigin::Default
        )
    );
    assert!(spec.evaluate().unwrap().diagnostics.is_empty());
    assert!(spec.tracked_vars.contains(&TARGETS_VAR));

    let spec = ok(args(), &built);
    assert_eq!(
        (names(&spec), spec.targets_origin),
        (
            vec!["sm_80".to_owned(), "sm_86".to_owned(), "sm_90".to_owned()],
            TargetsOrigin::Build
        )
    );
    let evaluation = spec.evaluate().unwrap();
    let low = &evaluation.diagnostics[0].finding;
    assert_eq!(
        low.message,
        "launch on sm_86: 66.67% occupancy (32 of 48 warps), below the 75% floor"
    );
    assert!(
        low.notes.contains(
            &"targets sm_80, sm_86, sm_90: the ones the build script compiles for \
              (occupancy.toml names no targets)"
                .to_owned()
        ),
        "{:?}",
        low.notes
    );

    // The policy's targets win over the build's, without the note.
    std::fs::write(dir.join("occupancy.toml"), "targets = [\"sm_86\"]\n").unwrap();
    let spec = ok(args(), &built);
    assert_eq!(
        (names(&spec), spec.targets_origin),
        (vec!["sm_86".to_owned()], TargetsOrigin::Policy)
    );
    assert!(!spec.tracked_vars.contains(&TARGETS_VAR));
    let evaluation = spec.evaluate().unwrap();
    assert!(
        evaluation.diagnostics[0]
            .finding
            .notes
            .iter()
            .all(|n| !n.starts_with("targets ")),
        "{:?}",
        evaluation.diagnostics[0].finding.notes
    );

    // The attribute's win over both.
    let spec = ok(quote!(block = 64, regs = 32, target = "sm_75"), &built);
    assert_eq!(
        (names(&spec), spec.targets_origin),
        (vec!["sm_75".to_owned()], TargetsOrigin::Attribute)
    );
}
