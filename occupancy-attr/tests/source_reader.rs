//! The source reader on real files: a scratch crate per test, the wrapper parsed from its
//! file as `cargo occupancy report` does, `parse` with the file as the macro gives it.
//! Constants through modules and imports, helpers, candidates, and bad input: recursive and
//! overflowing constants, deep and huge expressions, files that do not parse or cannot be
//! read. Bad input is never a panic: a clear note, the fallback, or an error on the token.

mod common;

use std::path::{Path, PathBuf};

use common::spec_of;
use occupancy_attr::{Env, Spec, Wrapper, parse};

/// A scratch crate with `files` (path relative to the crate, text).
fn crate_with(name: &str, files: &[(&str, &str)]) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("source-reader")
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    for (path, text) in files {
        let path = dir.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    dir
}

/// The literal block sizes of every plan.
fn blocks(spec: &Spec) -> Vec<[Option<u32>; 3]> {
    spec.plans
        .iter()
        .map(|p| {
            [
                p.block[0].literal(),
                p.block[1].literal(),
                p.block[2].literal(),
            ]
        })
        .collect()
}

const CONFIG: &str = "pub struct LaunchConfig { pub grid_dim: (u32, u32, u32), pub block_dim: (u32, u32, u32), pub shared_mem_bytes: u32 }\n";

#[test]
fn constants_through_modules_imports_and_helpers() {
    let dir = crate_with(
        "modules",
        &[
            (
                "src/lib.rs",
                &format!("{CONFIG}mod consts;\nmod launch;\npub mod ops;\n"),
            ),
            (
                "src/consts.rs",
                "pub const WARP_SIZE: usize = 32;\npub(crate) const TILE: u32 = WARP_SIZE as u32 / 2;\npub const fn smem(t: u32) -> u32 { t * t * 4 }\n",
            ),
            (
                "src/launch.rs",
                "use crate::LaunchConfig;\npub(crate) const THREADS: u32 = 128;\npub(crate) fn cfg<const B: u32>(n: u32) -> LaunchConfig {\n    LaunchConfig { grid_dim: (n.div_ceil(B), 1, 1), block_dim: (B, THREADS / B + 1, 1), shared_mem_bytes: super::consts::smem(4) }\n}\n",
            ),
            ("src/ops/mod.rs", "pub mod gemm;\n"),
            (
                "src/ops/gemm.rs",
                "use crate::consts::{self, TILE};\nuse crate::LaunchConfig;\n\
                 #[occupancy::check(regs = 32, target = \"sm_90\")]\n\
                 pub fn literal(n: u32) { let cfg = LaunchConfig { grid_dim: (n, 1, 1), block_dim: (TILE, consts::WARP_SIZE as u32 / TILE, 1), shared_mem_bytes: consts::smem(TILE) }; let _ = cfg; }\n\
                 #[occupancy::check(regs = 32, target = \"sm_90\")]\n\
                 pub fn helper(n: u32) { let cfg = crate::launch::cfg::<64>(n); let _ = cfg; }\n",
            ),
        ],
    );
    let spec = spec_of(&dir, "src/ops/gemm.rs", "literal").unwrap();
    assert_eq!(blocks(&spec), [[Some(16), Some(2), Some(1)]]);
    assert_eq!(spec.plans[0].smem.literal(), Some(1024));
    assert!(spec.plans[0].grid.is_none(), "the grid is the parameter n");
    // Each value read from a name is confirmed; literals need no confirmation.
    let confirmed: Vec<(String, i128)> = spec
        .confirmations
        .iter()
        .map(|c| (c.text.clone(), c.value))
        .collect();
    assert_eq!(
        confirmed,
        [
            ("TILE".to_owned(), 16),
            ("consts::WARP_SIZE as u32 / TILE".to_owned(), 2),
            ("consts::smem(TILE)".to_owned(), 1024)
        ]
    );
    assert!(
        spec.confirmations[0]
            .what
            .contains("`TILE` = 16 in src/consts.rs"),
        "{}",
        spec.confirmations[0].what
    );

    // The helper: its const generic from the call, its own private constant (nameable from
    // the wrapper's module only through pub(crate)), a const fn of another module.
    let spec = spec_of(&dir, "src/ops/gemm.rs", "helper").unwrap();
    assert_eq!(blocks(&spec), [[Some(64), Some(3), Some(1)]]);
    assert_eq!(spec.plans[0].smem.literal(), Some(64));
    let texts: Vec<&str> = spec.confirmations.iter().map(|c| c.text.as_str()).collect();
    assert_eq!(
        texts,
        ["crate::launch::THREADS / 64 + 1", "crate::consts::smem(4)"],
        "the helper's names, from the crate root"
    );
    assert_eq!(spec.helpers.len(), 1);
    assert_eq!(
        spec.helpers[0].read.to_string().replace(' ', ""),
        "crate::launch::cfg::<64>"
    );
}

#[test]
fn a_private_constant_of_a_helper_is_not_used_unconfirmed() {
    let dir = crate_with(
        "private",
        &[(
            "src/lib.rs",
            &format!(
                "{CONFIG}mod launch {{\n    use crate::LaunchConfig;\n    const THREADS: u32 = 96;\n    pub fn cfg(n: u32) -> LaunchConfig {{ LaunchConfig {{ grid_dim: (n, 1, 1), block_dim: (THREADS, 1, 1), shared_mem_bytes: 0 }} }}\n}}\n\
                     #[occupancy::check(regs = 32, target = \"sm_90\")]\npub fn wrapper(n: u32) {{ let cfg = launch::cfg(n); let _ = cfg; }}\n"
            ),
        )],
    );
    // The wrapper cannot name `launch::THREADS` for the compiler: the launch is not read,
    // and without `block` that is an error saying why.
    let errors = spec_of(&dir, "src/lib.rs", "wrapper").err().unwrap();
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(
        errors[0].starts_with(
            "the block size of this launch is known only at run time (`THREADS` in \
             crate::launch is private there: the wrapper cannot name it for the compiler to \
             confirm its value (make it `pub(crate)`, or give the value in the attribute))"
        ),
        "{errors:?}"
    );
}

#[test]
fn bad_constants_are_notes_never_panics() {
    let dir = crate_with(
        "bad",
        &[(
            "src/lib.rs",
            "const A: u32 = B + 1;\nconst B: u32 = A * 2;\nconst BIG: u32 = 4_000_000_000 * 2;\nconst NEG: u32 = 1 - 2;\nconst DIV: u32 = 8 / (4 - 4);\nconst F: f32 = 1.0;\nconst DEEP: u32 = ((((((((((((((((((((1))))))))))))))))))));\n\
             #[occupancy::check(block = A, regs = 32)]\npub fn cycle() {}\n\
             #[occupancy::check(block = BIG, regs = 32)]\npub fn overflow() {}\n\
             #[occupancy::check(block = NEG, regs = 32)]\npub fn negative() {}\n\
             #[occupancy::check(block = DIV, regs = 32)]\npub fn division() {}\n\
             #[occupancy::check(block = F, regs = 32)]\npub fn float() {}\n\
             #[occupancy::check(block = DEEP * 64, regs = 32)]\npub fn deep() {}\n\
             #[occupancy::check(block = MISSING, regs = 32)]\npub fn missing() {}\n",
        )],
    );
    let unread = |name: &str| {
        let spec = spec_of(&dir, "src/lib.rs", name).unwrap();
        assert!(spec.evaluate().is_none(), "{name} is left to the compiler");
        spec.unread.join("; ")
    };
    assert_eq!(
        unread("cycle"),
        "`A` could not be read: `B` could not be read: `A` is defined in terms of itself"
    );
    assert_eq!(
        unread("overflow"),
        "`BIG` could not be read: `4000000000 * 2` overflows u32"
    );
    assert_eq!(
        unread("negative"),
        "`NEG` could not be read: `1 - 2` overflows u32"
    );
    assert_eq!(
        unread("division"),
        "`DIV` could not be read: division by zero"
    );
    assert_eq!(unread("float"), "`F` is a `f32`, not an integer");
    assert!(unread("missing").starts_with("`MISSING` is not defined in crate (src/lib.rs)"));
    // Nested parentheses within the limits are read.
    let spec = spec_of(&dir, "src/lib.rs", "deep").unwrap();
    assert_eq!(blocks(&spec), [[Some(64), Some(1), Some(1)]]);
}

#[test]
fn files_that_cannot_be_read_are_notes() {
    let dir = crate_with(
        "files",
        &[
            (
                "src/lib.rs",
                "mod broken;\nmod absent;\nuse broken::X;\nuse absent::Y;\n\
                 #[occupancy::check(block = X, regs = 32)]\npub fn from_broken() {}\n\
                 #[occupancy::check(block = Y, regs = 32)]\npub fn from_absent() {}\n",
            ),
            ("src/broken.rs", "pub const X: u32 = 64;\nfn ( {\n"),
        ],
    );
    let spec = spec_of(&dir, "src/lib.rs", "from_broken").unwrap();
    assert!(
        spec.unread[0].contains("broken.rs does not lex")
            || spec.unread[0].contains("broken.rs does not parse"),
        "{:?}",
        spec.unread
    );
    let spec = spec_of(&dir, "src/lib.rs", "from_absent").unwrap();
    assert!(
        spec.unread[0].contains("the file of `mod absent;` was not found"),
        "{:?}",
        spec.unread
    );
}

#[test]
fn deep_and_huge_source_files_are_refused_not_overflowed() {
    // 100,000 nested parentheses and a 100,000-term sum in another module: the reader
    // leaves out each constant on its limits (a note naming it), never a stack overflow.
    let deep = format!(
        "pub const D: u32 = {}1{};\n",
        "(".repeat(100_000),
        ")".repeat(100_000)
    );
    let sum = format!("pub const S: u32 = {};\n", vec!["1"; 100_000].join(" + "));
    let dir = crate_with(
        "huge",
        &[
            (
                "src/lib.rs",
                "mod deep;\nmod sum;\n\
                 #[occupancy::check(block = deep::D, regs = 32)]\npub fn from_deep() {}\n\
                 #[occupancy::check(block = sum::S, regs = 32)]\npub fn from_sum() {}\n",
            ),
            ("src/deep.rs", &deep),
            ("src/sum.rs", &sum),
        ],
    );
    for name in ["from_deep", "from_sum"] {
        let spec = spec_of(&dir, "src/lib.rs", name).unwrap();
        assert!(spec.evaluate().is_none());
        let file = if name == "from_deep" { "deep" } else { "sum" };
        let constant = if name == "from_deep" { "D" } else { "S" };
        let unread = &spec.unread[0];
        assert!(
            unread.contains(&format!("not read: `const {constant}`"))
                && unread.ends_with(&format!(" in src/{file}.rs")),
            "{name}: {unread}"
        );
    }
}

#[test]
fn choices_and_shadowing_in_the_body() {
    let dir = crate_with(
        "body",
        &[(
            "src/lib.rs",
            &format!(
                "{CONFIG}const BLOCK: u32 = 512;\n\
                 #[occupancy::check(regs = 32, target = \"sm_90\")]\n\
                 pub fn shadow(n: u32) {{ let BLOCK = 64; let cfg = LaunchConfig {{ grid_dim: (n, 1, 1), block_dim: (BLOCK, 1, 1), shared_mem_bytes: 0 }}; let _ = cfg; }}\n\
                 #[occupancy::check(regs = 32, target = \"sm_90\")]\n\
                 pub fn pattern(n: u32, p: (u32, u32)) {{ let (BLOCK, _) = p; let cfg = LaunchConfig {{ grid_dim: (n, 1, 1), block_dim: (BLOCK, 1, 1), shared_mem_bytes: 0 }}; let _ = cfg; }}\n\
                 #[occupancy::check(regs = 32, target = \"sm_90\")]\n\
                 pub fn arms(n: u32) {{ let b = match n % 3 {{ 0 => 32, 1 => BLOCK, _ => 1024 }}; let cfg = LaunchConfig {{ grid_dim: (n, 1, 1), block_dim: (b, 1, 1), shared_mem_bytes: b * 4 }}; let _ = cfg; }}\n"
            ),
        )],
    );
    // A `let` shadows the constant: the local's literal, nothing to confirm.
    let spec = spec_of(&dir, "src/lib.rs", "shadow").unwrap();
    assert_eq!(blocks(&spec), [[Some(64), Some(1), Some(1)]]);
    assert!(spec.confirmations.is_empty());
    // A name bound by a pattern is what the pattern binds (here a field of a parameter, a
    // run-time value), even with a constant of the same name.
    let errors = spec_of(&dir, "src/lib.rs", "pattern").err().unwrap();
    assert!(
        errors[0]
            .contains("(`p` is a parameter of the wrapper, a run-time value; no bound is known)"),
        "{errors:?}"
    );
    // Three arms, each with its own shared memory; the constant's arm confirmed.
    let spec = spec_of(&dir, "src/lib.rs", "arms").unwrap();
    assert_eq!(
        blocks(&spec),
        [
            [Some(32), Some(1), Some(1)],
            [Some(512), Some(1), Some(1)],
            [Some(1024), Some(1), Some(1)]
        ]
    );
    let smem: Vec<Option<u32>> = spec.plans.iter().map(|p| p.smem.literal()).collect();
    assert_eq!(smem, [Some(128), Some(2048), Some(4096)]);
    let labels: Vec<Option<String>> = spec.plans.iter().map(|p| p.label.clone()).collect();
    assert_eq!(
        labels,
        [
            Some("block = 32, smem = 128 B".to_owned()),
            Some("block = 512, smem = 2 KiB".to_owned()),
            Some("block = 1024, smem = 4 KiB".to_owned())
        ]
    );
    let texts: Vec<&str> = spec.confirmations.iter().map(|c| c.text.as_str()).collect();
    assert_eq!(texts, ["BLOCK", "BLOCK * 4"]);
}

#[test]
fn deep_and_huge_bodies_are_not_read_never_overflowed() {
    // A body 1,000 and 100,000 groups deep, and one with a 100,000-term sum: not read (the
    // reason given), the attribute's keys still work.
    let deep = |levels: usize| {
        format!(
            "{{ let x = {}1{}; }}",
            "(".repeat(levels),
            ")".repeat(levels)
        )
    };
    let sum = format!("{{ let x = {}; }}", vec!["1"; 100_000].join(" + "));
    for text in [deep(1_000), deep(100_000), sum] {
        let tokens: proc_macro2::TokenStream = text.parse().unwrap();
        let Some(proc_macro2::TokenTree::Group(body)) = tokens.into_iter().next() else {
            panic!("not a group")
        };
        let Err(why) = occupancy_attr::parse_body(&body) else {
            panic!("read a body past the limits")
        };
        assert!(
            why.starts_with("the body is nested more than")
                || why.starts_with("the body has more than")
                || why.starts_with("the body: this expression or type chains too many"),
            "{why}"
        );
        let func: syn::ItemFn = syn::parse_quote!(
            fn launch() {}
        );
        let wrapper = Wrapper {
            sig: &func.sig,
            body: None,
            unread: Some(why),
            launch_at: None,
            launch_helper: None,
        };
        let spec = parse(
            quote::quote!(block = 256, regs = 32, target = "sm_90"),
            &wrapper,
            proc_macro2::Span::call_site(),
            &Env::default(),
        )
        .unwrap();
        assert_eq!(blocks(&spec), [[Some(256), Some(1), Some(1)]]);
    }
}

#[test]
fn an_item_of_a_nested_block_shadows_the_module() {
    let dir = crate_with(
        "nested-item",
        &[(
            "src/lib.rs",
            &format!(
                "{CONFIG}const B: u32 = 256;\n\
                 #[occupancy::check(regs = 32, target = \"sm_90\")]\n\
                 pub fn nested(n: u32) {{ {{ const B: u32 = 64; let cfg = LaunchConfig {{ grid_dim: (n, 1, 1), block_dim: (B, 1, 1), shared_mem_bytes: 0 }}; let _ = cfg; }} }}\n\
                 #[occupancy::check(regs = 32, target = \"sm_90\")]\n\
                 pub fn top(n: u32) {{ const B: u32 = 64; let cfg = LaunchConfig {{ grid_dim: (n, 1, 1), block_dim: (B, 1, 1), shared_mem_bytes: 0 }}; let _ = cfg; }}\n"
            ),
        )],
    );
    // The nested block's `B` is not the module's: unknown, never the module's 256.
    let errors = spec_of(&dir, "src/lib.rs", "nested").err().unwrap();
    assert!(
        errors[0].contains("`B` is an item declared in a nested block"),
        "{errors:?}"
    );
    // At the top of the body it is read, as the body's own constant.
    let spec = spec_of(&dir, "src/lib.rs", "top").unwrap();
    assert_eq!(blocks(&spec), [[Some(64), Some(1), Some(1)]]);
}

#[test]
fn assignments_after_the_let_are_read_on_their_path() {
    let dir = crate_with(
        "assigned",
        &[(
            "src/lib.rs",
            &format!(
                "{CONFIG}fn tune(_: &mut LaunchConfig) {{}}\n\
                 #[occupancy::check(regs = 32, target = \"sm_90\")]\n\
                 pub fn local(n: u32, big: bool) {{ let mut b = 32; if big {{ b = 1024; }} let cfg = LaunchConfig {{ grid_dim: (n, 1, 1), block_dim: (b, 1, 1), shared_mem_bytes: 0 }}; let _ = cfg; }}\n\
                 #[occupancy::check(regs = 32, target = \"sm_90\")]\n\
                 pub fn field(n: u32) {{ let mut cfg = LaunchConfig {{ grid_dim: (n, 1, 1), block_dim: (64, 1, 1), shared_mem_bytes: 0 }}; cfg.block_dim = (128, 1, 1); let _ = cfg; }}\n\
                 #[occupancy::check(regs = 32, target = \"sm_90\")]\n\
                 pub fn grid_only(n: u32) {{ let mut cfg = LaunchConfig {{ grid_dim: (1, 1, 1), block_dim: (64, 1, 1), shared_mem_bytes: 0 }}; cfg.grid_dim.0 = n; let _ = cfg; }}\n\
                 #[occupancy::check(regs = 32, target = \"sm_90\")]\n\
                 pub fn lent(n: u32) {{ let mut cfg = LaunchConfig {{ grid_dim: (n, 1, 1), block_dim: (64, 1, 1), shared_mem_bytes: 0 }}; tune(&mut cfg); let _ = cfg; }}\n"
            ),
        )],
    );
    let first_error = |name: &str| spec_of(&dir, "src/lib.rs", name).err().unwrap()[0].clone();
    // An assignment on one path: each path's value.
    let spec = spec_of(&dir, "src/lib.rs", "local").unwrap();
    assert_eq!(
        blocks(&spec),
        [[Some(1024), Some(1), Some(1)], [Some(32), Some(1), Some(1)]]
    );
    // A field assigned after the configuration is built: the launch has the new value.
    let spec = spec_of(&dir, "src/lib.rs", "field").unwrap();
    assert_eq!(blocks(&spec), [[Some(128), Some(1), Some(1)]]);
    assert!(
        first_error("lent").contains("`cfg` is lent mutably (`&mut cfg`), which may change it"),
        "{}",
        first_error("lent")
    );
    // A field the checks do not need stays read: the block is known, the grid is not.
    let spec = spec_of(&dir, "src/lib.rs", "grid_only").unwrap();
    assert_eq!(blocks(&spec), [[Some(64), Some(1), Some(1)]]);
    assert!(spec.plans[0].grid.is_none());
}

/// The crate's sources are read only when a name needs them (a launch of literals is
/// checked without them); a constant of a file outside the module tree still resolves (the
/// file is read as a root of its own).
#[test]
fn the_sources_are_read_only_for_names() {
    let dir = crate_with(
        "lazy",
        &[
            ("src/lib.rs", "pub mod declared;\n"),
            ("src/declared.rs", "pub const N: u32 = 1;\n"),
            (
                "src/orphan.rs",
                "const B: u32 = 64;\n\
                 #[occupancy::check(block = 128, regs = 32)]\npub fn literal() {}\n\
                 #[occupancy::check(block = B, regs = 32)]\npub fn named() {}\n",
            ),
        ],
    );
    let spec = spec_of(&dir, "src/orphan.rs", "literal").unwrap();
    assert_eq!(blocks(&spec), [[Some(128), Some(1), Some(1)]]);
    assert!(spec.unread.is_empty(), "{:?}", spec.unread);
    let spec = spec_of(&dir, "src/orphan.rs", "named").unwrap();
    assert_eq!(blocks(&spec), [[Some(64), Some(1), Some(1)]]);
    assert!(spec.unread.is_empty(), "{:?}", spec.unread);
    assert_eq!(spec.confirmations.len(), 1);
}

/// A const fn of the crate called with a run-time value: the error names the run-time
/// value and says how to give candidates.
#[test]
fn a_const_fn_of_a_run_time_value_says_why() {
    let dir = crate_with(
        "const-fn-run-time",
        &[(
            "src/lib.rs",
            "pub struct LaunchConfig { pub grid_dim: (u32, u32, u32), pub block_dim: (u32, u32, u32), pub shared_mem_bytes: u32 }\n\
             const fn twice(x: u32) -> u32 { x * 2 }\n\
             #[occupancy::check(regs = 32)]\n\
             pub fn launch(n: u32) -> LaunchConfig {\n\
                 LaunchConfig { grid_dim: (1, 1, 1), block_dim: (twice(n), 1, 1), shared_mem_bytes: 0 }\n\
             }\n",
        )],
    );
    let Err(errors) = spec_of(&dir, "src/lib.rs", "launch") else {
        panic!("a run-time block is an error")
    };
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(
        errors[0].starts_with(
            "the block size of this launch is known only at run time (`n` is a parameter of the \
             wrapper, a run-time value; no bound is known): give its candidates in the \
             attribute, `block = [32, 1024]`"
        ),
        "{errors:?}"
    );
}

/// Issue 19, item 4: an item the reader does not need (a trait with 82 `+` bounds, a type
/// nested 70 deep, a function whose body is past the limits) is left out of the file's
/// index; the constants around it are still read, and a name it defines is not found.
#[test]
fn an_item_past_the_limits_leaves_the_rest_of_the_file_readable() {
    let bounds = (0..82)
        .map(|i| format!("std::ops::Add<Output = T{i}>"))
        .collect::<Vec<_>>()
        .join(" + ");
    let deep = format!("{}u8{}", "(".repeat(70), ",)".repeat(70));
    let body = format!("{}1{}", "(".repeat(100), ")".repeat(100));
    let dir = crate_with(
        "item-limits",
        &[
            (
                "src/lib.rs",
                &format!(
                    "{CONFIG}mod consts;\n\
                     #[occupancy::check(regs = 32, target = \"sm_90\")]\n\
                     pub fn wrapper(n: u32) {{ let cfg = LaunchConfig {{ grid_dim: (n, 1, 1), block_dim: (consts::BLOCK, 1, 1), shared_mem_bytes: consts::SMEM }}; let _ = cfg; }}\n\
                     #[occupancy::check(block = consts::Skipped::X, regs = 32, target = \"sm_90\")]\n\
                     pub fn skipped() {{}}\n"
                ),
            ),
            (
                "src/consts.rs",
                &format!(
                    "pub trait WithDType: {bounds} {{}}\n\
                     pub const BLOCK: u32 = 128;\n\
                     pub type Deep = {deep};\n\
                     pub struct Skipped;\n\
                     impl Skipped {{ pub const X: u32 = 64; pub fn f() -> u32 {{ {body} }} }}\n\
                     pub const SMEM: u32 = 2048;\n"
                ),
            ),
        ],
    );
    let spec = spec_of(&dir, "src/lib.rs", "wrapper").unwrap();
    assert_eq!(blocks(&spec), [[Some(128), Some(1), Some(1)]]);
    assert_eq!(spec.plans[0].smem.literal(), Some(2048));
    // The impl is split: its constant is read, its function's body left out.
    let spec = spec_of(&dir, "src/lib.rs", "skipped").unwrap();
    assert_eq!(blocks(&spec), [[Some(64), Some(1), Some(1)]]);
}
