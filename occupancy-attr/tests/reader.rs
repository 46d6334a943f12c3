//! The body reader on launches written in the styles of real Rust CUDA code
//! (`shared/notes/launch-patterns.md`): values chosen together stay together (tuples, arms
//! that pick block and shared memory together, helpers' returns, the same condition twice,
//! a run-time set used in two places), run-time values with a finite range are checked
//! member by member, and keys' candidates bind the run-time value they stand for. Every
//! test asserts the exact launches read: a pair the code cannot make must never be a plan.

mod common;

use std::path::{Path, PathBuf};

use occupancy_attr::Spec;

/// A scratch crate with `src/lib.rs` = the LaunchConfig struct, the crate's helpers and
/// `text`.
fn crate_with(name: &str, text: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("reader")
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("src")).unwrap();
    std::fs::write(dir.join("src/lib.rs"), format!("{PRELUDE}{text}")).unwrap();
    dir
}

const PRELUDE: &str = "\
pub struct LaunchConfig { pub grid_dim: (u32, u32, u32), pub block_dim: (u32, u32, u32), pub shared_mem_bytes: u32 }
pub struct Stream;
impl Stream { pub fn launch(&self, _: LaunchConfig) {} }
pub enum DType { F16, F32, F64 }
pub const WARP_SIZE: usize = 32;
pub const MAX_BLOCK: u32 = 1024;
pub fn launch_cfg<const NUM_THREADS: u32>(n: u32) -> LaunchConfig {
    LaunchConfig { grid_dim: (n.div_ceil(NUM_THREADS), 1, 1), block_dim: (NUM_THREADS, 1, 1), shared_mem_bytes: 0 }
}
";

/// Parses the attribute of the function `name` of the crate at `dir` (in `src/lib.rs`).
fn spec_of(dir: &Path, name: &str) -> Result<Spec, Vec<String>> {
    common::spec_of(dir, "src/lib.rs", name)
}

/// (block x, dynamic shared memory) of every plan, in order.
fn launches(spec: &Spec) -> Vec<(u32, u32)> {
    spec.plans
        .iter()
        .map(|p| {
            (
                p.block[0].literal().expect("a literal block"),
                p.smem.literal().expect("a literal smem"),
            )
        })
        .collect()
}

fn ok(dir: &Path, name: &str) -> Spec {
    spec_of(dir, name).unwrap_or_else(|e| panic!("{name}: {e:?}"))
}

fn powers(from: u32, to: u32) -> Vec<u32> {
    (0..32)
        .map(|s| 1u32 << s)
        .filter(|v| (from..=to).contains(v))
        .collect()
}

#[test]
fn a_tuple_pattern_keeps_its_values_together() {
    let dir = crate_with(
        "tuple",
        "#[occupancy::check(regs = 32, target = \"sm_80\")]
pub fn softmax(s: &Stream, dtype: DType, rows: u32) {
    let (block_dim, nwarps) = match dtype {
        DType::F16 => (32, 1),
        DType::F32 => (128, 4),
        DType::F64 => (256, 8),
    };
    let cfg = LaunchConfig { grid_dim: (rows, 1, 1), block_dim: (block_dim, 1, 1), shared_mem_bytes: nwarps * 32 * 4 };
    s.launch(cfg);
}
",
    );
    let spec = ok(&dir, "softmax");
    assert_eq!(launches(&spec), [(32, 128), (128, 512), (256, 1024)]);
}

#[test]
fn arms_that_pick_block_and_smem_together_are_one_launch_each() {
    let dir = crate_with(
        "arms",
        "#[occupancy::check(regs = 32, target = \"sm_80\")]
pub fn reduce(s: &Stream, n: u32, wide: bool) {
    let (threads, smem) = if wide { (1024u32, 64 * 1024u32) } else { (32, 128) };
    s.launch(LaunchConfig { grid_dim: (n, 1, 1), block_dim: (threads, 1, 1), shared_mem_bytes: smem });
}

#[occupancy::check(regs = 32, target = \"sm_80\")]
pub fn same_condition(s: &Stream, n: u32, wide: bool) {
    let threads = if wide { 1024 } else { 32 };
    let smem = if wide { 48 * 1024 } else { 128 };
    s.launch(LaunchConfig { grid_dim: (n, 1, 1), block_dim: (threads, 1, 1), shared_mem_bytes: smem });
}

#[occupancy::check(regs = 32, target = \"sm_80\")]
pub fn same_match(s: &Stream, n: u32, dtype: DType) {
    let threads = match dtype { DType::F64 => 64, _ => 256 };
    let smem = match dtype { DType::F64 => 8192, _ => 2048 };
    s.launch(LaunchConfig { grid_dim: (n, 1, 1), block_dim: (threads, 1, 1), shared_mem_bytes: smem });
}

#[occupancy::check(regs = 32, target = \"sm_80\")]
pub fn configs_per_arm(s: &Stream, n: u32, small: bool) {
    let cfg = if small {
        LaunchConfig { grid_dim: (n, 1, 1), block_dim: (64, 1, 1), shared_mem_bytes: 256 }
    } else {
        LaunchConfig { grid_dim: (n, 1, 1), block_dim: (512, 1, 1), shared_mem_bytes: 40960 }
    };
    s.launch(cfg);
}
",
    );
    assert_eq!(launches(&ok(&dir, "reduce")), [(1024, 65536), (32, 128)]);
    assert_eq!(
        launches(&ok(&dir, "same_condition")),
        [(1024, 49152), (32, 128)]
    );
    assert_eq!(launches(&ok(&dir, "same_match")), [(64, 8192), (256, 2048)]);
    assert_eq!(
        launches(&ok(&dir, "configs_per_arm")),
        [(64, 256), (512, 40960)]
    );
}

#[test]
fn helpers_and_structs_return_values_chosen_together() {
    let dir = crate_with(
        "helpers",
        "pub struct Tiling { pub threads: u32, pub smem: u32 }

pub fn tiling(dtype: DType) -> Tiling {
    match dtype {
        DType::F64 => Tiling { threads: 128, smem: 16384 },
        _ => Tiling { threads: 256, smem: 8192 },
    }
}

pub fn block_and_warps(wide: bool) -> (u32, u32) {
    if wide { (512, 16) } else { (64, 2) }
}

#[occupancy::check(regs = 32, target = \"sm_80\")]
pub fn from_struct(s: &Stream, n: u32, dtype: DType) {
    let t = tiling(dtype);
    s.launch(LaunchConfig { grid_dim: (n, 1, 1), block_dim: (t.threads, 1, 1), shared_mem_bytes: t.smem });
}

#[occupancy::check(regs = 32, target = \"sm_80\")]
pub fn from_tuple(s: &Stream, n: u32, wide: bool) {
    let (block, warps) = block_and_warps(wide);
    s.launch(LaunchConfig { grid_dim: (n, 1, 1), block_dim: (block, 1, 1), shared_mem_bytes: warps * 4 });
}
",
    );
    assert_eq!(
        launches(&ok(&dir, "from_struct")),
        [(128, 16384), (256, 8192)]
    );
    assert_eq!(launches(&ok(&dir, "from_tuple")), [(512, 64), (64, 8)]);
}

#[test]
fn a_finite_run_time_set_is_checked_member_by_member() {
    let dir = crate_with(
        "sets",
        "#[occupancy::check(regs = 32, target = \"sm_80\")]
pub fn min_then_pow2(s: &Stream, n: usize) {
    let block = usize::min(1024, n).next_power_of_two() as u32;
    s.launch(LaunchConfig { grid_dim: (1, 1, 1), block_dim: (block, 1, 1), shared_mem_bytes: block * 4 });
}

#[occupancy::check(regs = 32, target = \"sm_80\")]
pub fn if_range(s: &Stream, n: u32) {
    let block = if n < 1024 { n.next_power_of_two() } else { 1024 };
    s.launch(LaunchConfig { grid_dim: (1, 1, 1), block_dim: (block, 1, 1), shared_mem_bytes: 0 });
}

#[occupancy::check(regs = 32, target = \"sm_80\")]
pub fn clamped(s: &Stream, n: u32) {
    let block = n.next_power_of_two().clamp(64, MAX_BLOCK);
    s.launch(LaunchConfig { grid_dim: (1, 1, 1), block_dim: (block, 1, 1), shared_mem_bytes: 0 });
}

#[occupancy::check(regs = 32, target = \"sm_80\")]
pub fn doubling(s: &Stream, n: u32) {
    let mut b = 32;
    while b < n && b < 1024 {
        b *= 2;
    }
    s.launch(LaunchConfig { grid_dim: (n.div_ceil(b), 1, 1), block_dim: (b, 1, 1), shared_mem_bytes: b * 8 });
}
",
    );
    let spec = ok(&dir, "min_then_pow2");
    let expected: Vec<(u32, u32)> = powers(1, 1024).into_iter().map(|b| (b, b * 4)).collect();
    assert_eq!(launches(&spec), expected);
    let expected: Vec<(u32, u32)> = powers(1, 1024).into_iter().map(|b| (b, 0)).collect();
    assert_eq!(launches(&ok(&dir, "if_range")), expected);
    let expected: Vec<(u32, u32)> = powers(64, 1024).into_iter().map(|b| (b, 0)).collect();
    assert_eq!(launches(&ok(&dir, "clamped")), expected);
    let expected: Vec<(u32, u32)> = powers(32, 1024).into_iter().map(|b| (b, b * 8)).collect();
    assert_eq!(launches(&ok(&dir, "doubling")), expected);
}

/// The sort style: the padded row decides both the block (capped at 1024) and the shared
/// memory (4 bytes per padded column). Every launch pairs them as the code does: 1024
/// threads with 64 KiB, never 32 threads with 64 KiB.
#[test]
fn the_sort_wrapper_pairs_block_and_smem_as_the_code_does() {
    let dir = crate_with(
        "sort",
        "#[occupancy::check(regs = 32, target = \"sm_80\")]
pub fn sort_rows(s: &Stream, nrows: u32, ncols: u32) {
    if ncols > 16384 {
        return;
    }
    let ncols_pad = ncols.next_power_of_two();
    let cfg = LaunchConfig {
        grid_dim: (1, nrows, 1),
        block_dim: (ncols_pad.min(1024), 1, 1),
        shared_mem_bytes: ncols_pad * 4,
    };
    s.launch(cfg);
}
",
    );
    let spec = ok(&dir, "sort_rows");
    let expected: Vec<(u32, u32)> = powers(1, 16384)
        .into_iter()
        .map(|pad| (pad.min(1024), pad * 4))
        .collect();
    assert_eq!(launches(&spec), expected);
    assert!(!launches(&spec).contains(&(32, 65536)));
}

#[test]
fn keys_bind_the_run_time_value_they_stand_for() {
    let dir = crate_with(
        "keys",
        "#[occupancy::check(regs = 32, target = \"sm_80\", block = [32, 1024])]
pub fn param(s: &Stream, n: u32, block: u32) {
    s.launch(LaunchConfig { grid_dim: (n, 1, 1), block_dim: (block, 1, 1), shared_mem_bytes: block * 4 });
}

#[occupancy::check(regs = 32, target = \"sm_80\", block = [32, 1024])]
pub fn opaque(s: &Stream, n: u32, stream: &Stream) {
    let threads = tuned(n);
    let cfg = LaunchConfig { grid_dim: (n, 1, 1), block_dim: (threads, 1, 1), shared_mem_bytes: threads * 16 };
    stream.launch(cfg);
    let _ = s;
}
",
    );
    assert_eq!(launches(&ok(&dir, "param")), [(32, 128), (1024, 4096)]);
    assert_eq!(launches(&ok(&dir, "opaque")), [(32, 512), (1024, 16384)]);
}

#[test]
fn candidates_for_two_values_are_pairs_never_crossed() {
    let dir = crate_with(
        "pairs",
        "#[occupancy::check(regs = 32, target = \"sm_80\", block = [32, 1024], smem = [128, 4 KiB, 64 KiB])]
pub fn crossed(s: &Stream, n: u32, threads: u32, bytes: u32) {
    s.launch(LaunchConfig { grid_dim: (n, 1, 1), block_dim: (threads, 1, 1), shared_mem_bytes: bytes });
}

#[occupancy::check(regs = 32, target = \"sm_80\", launches = [(32, 128), (1024, 4 KiB), ((16, 16), 64 KiB)])]
pub fn paired(s: &Stream, n: u32, threads: u32, bytes: u32) {
    s.launch(LaunchConfig { grid_dim: (n, 1, 1), block_dim: (threads, 1, 1), shared_mem_bytes: bytes });
}

#[occupancy::check(regs = 32, target = \"sm_80\", launches = [(32, 128), (1024, 4 KiB), (1024, 8 KiB)])]
pub fn stated_block(s: &Stream, n: u32, bytes: u32) {
    s.launch(LaunchConfig { grid_dim: (n, 1, 1), block_dim: (1024, 1, 1), shared_mem_bytes: bytes });
}

#[occupancy::check(regs = 32, target = \"sm_80\", launches = [(32, 128)])]
pub fn no_pair(s: &Stream, n: u32, threads: u32) {
    s.launch(LaunchConfig { grid_dim: (n, 1, 1), block_dim: (threads, 1, 1), shared_mem_bytes: 0 });
}

#[occupancy::check(regs = 32, target = \"sm_80\", block = [32, 1024], smem = [4 KiB])]
pub fn one_size(s: &Stream, n: u32, threads: u32, bytes: u32) {
    s.launch(LaunchConfig { grid_dim: (n, 1, 1), block_dim: (threads, 1, 1), shared_mem_bytes: bytes });
}

#[occupancy::check(regs = 32, target = \"sm_80\", launches = [(32, 128), (1024, 4 KiB)])]
pub fn paired_after_returns(s: &Stream, n: u32, threads: u32, bytes: u32, d: DType) -> Result<(), ()> {
    if n == 0 { return Ok(()); }
    let rows = match d { DType::F64 => return Err(()), _ => n };
    s.launch(LaunchConfig { grid_dim: (rows, 1, 1), block_dim: (threads, 1, 1), shared_mem_bytes: bytes });
    Ok(())
}

#[occupancy::check(regs = 32, target = \"sm_80\", launches = [(32, 128), (1024, 4 KiB), (1024, 8 KiB)])]
pub fn stated_block_on_one_arm(s: &Stream, n: u32, bytes: u32, d: DType) -> Result<(), ()> {
    let threads = match d { DType::F16 => 1024, DType::F32 => return Err(()), DType::F64 => 1024 };
    s.launch(LaunchConfig { grid_dim: (n, 1, 1), block_dim: (threads, 1, 1), shared_mem_bytes: bytes });
    Ok(())
}

#[occupancy::check(regs = 32, target = \"sm_80\", block = [32], launches = [(32, 128)])]
pub fn both_keys(s: &Stream, n: u32, threads: u32, bytes: u32) {
    s.launch(LaunchConfig { grid_dim: (n, 1, 1), block_dim: (threads, 1, 1), shared_mem_bytes: bytes });
}
",
    );
    // Two lists of several values for two run-time values: an error saying how to pair.
    let errors = spec_of(&dir, "crossed").err().unwrap();
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(
        errors[0].contains("with 2 `block` and 3 `smem` candidates")
            && errors[0].ends_with("`launches = [(32, 128), (1024, 4 KiB)]`"),
        "{errors:?}"
    );
    // Pairs: one launch each, never (32, 64 KiB).
    let paired = ok(&dir, "paired");
    assert_eq!(launches(&paired), [(32, 128), (1024, 4096), (16, 65536)]);
    assert_eq!(paired.plans[2].block[1].literal(), Some(16));
    // The body states the block: the pairs with that block give the shared memory.
    assert_eq!(
        launches(&ok(&dir, "stated_block")),
        [(1024, 4096), (1024, 8192)]
    );
    // Paths that return before the launch change nothing: the pairs as given.
    assert_eq!(
        launches(&ok(&dir, "paired_after_returns")),
        [(32, 128), (1024, 4096)]
    );
    assert_eq!(
        launches(&ok(&dir, "stated_block_on_one_arm")),
        [(1024, 4096), (1024, 8192)]
    );
    let errors = spec_of(&dir, "no_pair").err().unwrap();
    assert!(
        errors[0]
            .starts_with("no pair of `launches` has the dynamic shared memory this launch states"),
        "{errors:?}"
    );
    // One size crosses nothing.
    assert_eq!(launches(&ok(&dir, "one_size")), [(32, 4096), (1024, 4096)]);
    let errors = spec_of(&dir, "both_keys").err().unwrap();
    assert!(
        errors.iter().any(|e| e.starts_with(
            "`launches` gives the block and the shared memory together: give it instead of `block`"
        )),
        "{errors:?}"
    );
}

#[test]
fn keys_alone_are_pairs_never_crossed() {
    let dir = crate_with(
        "keys_alone",
        "#[occupancy::check(regs = 32, target = \"sm_80\", block = [32, 1024], smem = [128, 4 KiB])]
pub fn crossed(s: &Stream) { let _ = s; }

#[occupancy::check(regs = 32, target = \"sm_80\", launches = [(32, 128), (1024, 4 KiB)])]
pub fn paired(s: &Stream) { let _ = s; }

#[occupancy::check(regs = 32, target = \"sm_80\", block = [32, 1024])]
pub fn blocks(s: &Stream) { let _ = s; }
",
    );
    let errors = spec_of(&dir, "crossed").err().unwrap();
    assert!(
        errors[0].contains("with 2 `block` and 2 `smem` candidates"),
        "{errors:?}"
    );
    assert_eq!(launches(&ok(&dir, "paired")), [(32, 128), (1024, 4096)]);
    assert_eq!(launches(&ok(&dir, "blocks")), [(32, 0), (1024, 0)]);
}

#[test]
fn a_parameter_shadowed_by_a_let_is_the_let() {
    let dir = crate_with(
        "shadow",
        "#[occupancy::check(regs = 32, target = \"sm_80\")]
pub fn unary(s: &Stream, cfg: LaunchConfig, n: u32) {
    let cfg = launch_cfg::<128>(n);
    s.launch(cfg);
}

#[occupancy::check(regs = 32, target = \"sm_80\")]
pub fn later(s: &Stream, n: u32) {
    let block = 64;
    let cfg = LaunchConfig { grid_dim: (n, 1, 1), block_dim: (block, 1, 1), shared_mem_bytes: 0 };
    let block = n;
    s.launch(cfg);
    let _ = block;
}
",
    );
    assert_eq!(launches(&ok(&dir, "unary")), [(128, 0)]);
    assert_eq!(launches(&ok(&dir, "later")), [(64, 0)]);
}

#[test]
fn truly_unbounded_values_need_candidates_and_say_what_is_known() {
    let dir = crate_with(
        "unbounded",
        "#[occupancy::check(regs = 32, target = \"sm_80\")]
pub fn grows(s: &Stream, ncols: u32) {
    s.launch(LaunchConfig { grid_dim: (1, 1, 1), block_dim: (256, 1, 1), shared_mem_bytes: ncols * 4 });
}

#[occupancy::check(regs = 32, target = \"sm_80\")]
pub fn capped(s: &Stream, ncols: u32) {
    s.launch(LaunchConfig { grid_dim: (1, 1, 1), block_dim: (256, 1, 1), shared_mem_bytes: ncols.min(4096) * 4 });
}

#[occupancy::check(regs = 32, target = \"sm_80\", smem = [4 KiB, 16 KiB])]
pub fn given(s: &Stream, ncols: u32) {
    s.launch(LaunchConfig { grid_dim: (1, 1, 1), block_dim: (256, 1, 1), shared_mem_bytes: ncols.min(4096) * 4 });
}

#[occupancy::check(regs = 32, target = \"sm_80\", smem = [16 KiB])]
pub fn only_the_bound(s: &Stream, ncols: u32) {
    s.launch(LaunchConfig { grid_dim: (1, 1, 1), block_dim: (256, 1, 1), shared_mem_bytes: ncols.min(4096) * 4 });
}
",
    );
    let errors = spec_of(&dir, "grows").err().unwrap();
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(
        errors[0].starts_with(
            "the dynamic shared memory of this launch is known only at run time (`ncols` is a \
             parameter of the wrapper, a run-time value; no bound is known): give its \
             candidates in the attribute, `smem = [4 KiB, 64 KiB]`"
        ),
        "{errors:?}"
    );
    let errors = spec_of(&dir, "capped").err().unwrap();
    assert!(
        errors[0].starts_with(
            "the dynamic shared memory of this launch is known only at run time (`ncols` is a \
             parameter of the wrapper, a run-time value; it is at most 16380 B): give its \
             candidates"
        ),
        "{errors:?}"
    );
    // 16 KiB is the launch where `ncols >= 4096` (a path of its own); 4 KiB stands for the
    // run-time size below it.
    assert_eq!(launches(&ok(&dir, "given")), [(256, 4096), (256, 16384)]);
    // A candidate only for the bound leaves the size below it without one: an error.
    let errors = spec_of(&dir, "only_the_bound").err().unwrap();
    assert!(
        errors.iter().any(|e| e.starts_with(
            "the candidate 16384 is not a value this launch's dynamic shared memory can take: \
             the body computes it as 0..=16380"
        )),
        "{errors:?}"
    );
}

/// (kernel, block) of every plan.
fn kernels(spec: &Spec) -> Vec<(Option<String>, u32)> {
    spec.plans
        .iter()
        .map(|p| (p.kernel.clone(), p.block[0].literal().unwrap_or(0)))
        .collect()
}

#[test]
fn each_path_launches_its_own_kernel() {
    let dir = crate_with(
        "kernels",
        "pub struct Module;
impl Module { pub fn load_function(&self, _: &str) -> Func { Func } }
pub struct Func;
impl Func { pub fn launch(&self, _: LaunchConfig) {} }
pub trait Name { const NAME: &'static str; }

#[occupancy::check(regs = 32, target = \"sm_80\")]
pub fn per_dtype(m: &Module, n: u32, dtype: DType) {
    let (f, threads) = match dtype {
        DType::F16 => (m.load_function(\"cast_f16\"), 64),
        _ => (m.load_function(\"cast_f32\"), 256),
    };
    f.launch(LaunchConfig { grid_dim: (n, 1, 1), block_dim: (threads, 1, 1), shared_mem_bytes: 0 });
}

#[occupancy::check(regs = 32, target = \"sm_80\")]
pub fn named_at_run_time<T: Name>(m: &Module, s: &Stream, n: u32) {
    let f = m.load_function(&format!(\"affine_{}\", T::NAME));
    let _ = f;
    s.launch(LaunchConfig::for_num_elems(n));
}
",
    );
    let spec = ok(&dir, "per_dtype");
    assert_eq!(
        kernels(&spec),
        [
            (Some("cast_f16".to_owned()), 64),
            (Some("cast_f32".to_owned()), 256)
        ]
    );
    // The launch's receiver is not the loaded function: every kernel (the attribute's).
    let spec = ok(&dir, "named_at_run_time");
    assert_eq!(kernels(&spec), [(None, 1024)]);
}

/// candle's loader, in this crate: `dev.get_or_load_func(name, &MODULE)` and the loaded
/// function's own builder (`func.builder()`), for the tests in the styles of candle's ops.
const LOADER: &str = "pub struct Dev;
pub struct Module;
pub const QUANTIZED: Module = Module;
pub const REDUCE: Module = Module;
impl Dev { pub fn get_or_load_func(&self, _: &str, _: &Module) -> Result<Func, ()> { Ok(Func) } }
pub struct Func;
impl Func { pub fn builder(&self) -> Builder { Builder } }
pub struct Builder;
impl Builder { pub fn arg(&mut self, _: &u32) {} pub fn launch(self, _: LaunchConfig) -> Result<(), ()> { Ok(()) } }
";

/// A crate's own loader (`dev.get_or_load_func(name, &MODULE)`), its function's own
/// builder (`func.builder()`) and a name a `match` arm binds with the block, or fills into a
/// `format!`: each path launches its own kernel with its own block, never another arm's.
#[test]
fn a_name_bound_by_an_arm_and_loaded_by_the_crates_loader_is_that_paths_kernel() {
    let dir = crate_with(
        "loader",
        &[
            LOADER,
            "
#[occupancy::check(regs = 32, target = \"sm_80\")]
pub fn dequantize(dev: &Dev, dtype: DType, n: u32) -> Result<(), ()> {
    let (kernel_name, block_dim) = match dtype {
        DType::F16 => (\"dequantize_block_f16\", 32),
        DType::F32 => (\"dequantize_block_f32\", 64),
        _ => return Err(()),
    };
    let func = dev.get_or_load_func(kernel_name, &QUANTIZED)?;
    let cfg = LaunchConfig { grid_dim: (n, 1, 1), block_dim: (block_dim as u32, 1, 1), shared_mem_bytes: 0 };
    let mut builder = func.builder();
    builder.arg(&n);
    builder.launch(cfg)?;
    Ok(())
}

#[occupancy::check(regs = 32, target = \"sm_80\")]
pub fn mat_vec(dev: &Dev, dtype: DType, b_size: usize, n: u32) -> Result<(), ()> {
    let kernel_name = match dtype {
        DType::F16 => \"mat_vec_f16_\",
        _ => \"mat_vec_f32_\",
    };
    let (kernel_name, warps) = match dtype {
        DType::F16 => (format!(\"{kernel_name}{}\", 2), 4),
        _ => (format!(\"{kernel_name}{b_size}\"), 2),
    };
    let func = dev.get_or_load_func(&kernel_name, &QUANTIZED)?;
    let cfg = LaunchConfig { grid_dim: (n, 1, 1), block_dim: (32, warps, 1), shared_mem_bytes: 0 };
    func.builder().launch(cfg)?;
    Ok(())
}
"
        ]
        .concat(),
    );
    let spec = ok(&dir, "dequantize");
    assert_eq!(
        kernels(&spec),
        [
            (Some("dequantize_block_f16".to_owned()), 32),
            (Some("dequantize_block_f32".to_owned()), 64)
        ]
    );
    let spec = ok(&dir, "mat_vec");
    let picked: Vec<(Option<String>, u32)> = spec
        .plans
        .iter()
        .map(|p| (p.kernel.clone(), p.block[1].literal().unwrap_or(0)))
        .collect();
    assert_eq!(
        picked,
        [
            (Some("mat_vec_f16_2".to_owned()), 4),
            (Some("mat_vec_f32_#".to_owned()), 2)
        ]
    );
}

/// A format spec in a kernel's name is written as `format!` writes it: `gemv_{rows:02}` with
/// `rows` known on each arm names `gemv_04` and `gemv_16`, not a glob over both; a run-time
/// input with a few values names each, padded.
#[test]
fn format_specs_in_a_name_are_written_as_format_writes_them() {
    let dir = crate_with(
        "format_specs",
        &[
            LOADER,
            "
#[occupancy::check(regs = 32, target = \"sm_80\")]
pub fn gemv(dev: &Dev, wide: bool, n: u32) -> Result<(), ()> {
    let (rows, block) = if wide { (16, 256) } else { (4, 64) };
    let func = dev.get_or_load_func(&format!(\"gemv_{rows:02}_{:x}\", block), &QUANTIZED)?;
    let cfg = LaunchConfig { grid_dim: (n, 1, 1), block_dim: (block as u32, 1, 1), shared_mem_bytes: 0 };
    func.builder().launch(cfg)?;
    Ok(())
}

#[occupancy::check(regs = 32, target = \"sm_80\")]
pub fn by_tile(dev: &Dev, tile: usize, n: u32) -> Result<(), ()> {
    let name = format!(\"tile_{tile:>02}\");
    match tile {
        1..=3 => {}
        _ => return Err(()),
    }
    let func = dev.get_or_load_func(&name, &QUANTIZED)?;
    let cfg = LaunchConfig { grid_dim: (n, 1, 1), block_dim: (128, 1, 1), shared_mem_bytes: 0 };
    func.builder().launch(cfg)?;
    Ok(())
}
",
        ]
        .concat(),
    );
    let spec = ok(&dir, "gemv");
    assert_eq!(
        kernels(&spec),
        [
            (Some("gemv_16_100".to_owned()), 256),
            (Some("gemv_04_40".to_owned()), 64)
        ]
    );
    // `{tile:>02}`: `>` aligns right, `0` pads with zeros, 2 is the width.
    let spec = ok(&dir, "by_tile");
    assert_eq!(kernels(&spec), [(Some("tile_{01,02,03}".to_owned()), 128)]);
}

#[test]
fn the_notes_say_which_values_were_checked() {
    let dir = crate_with(
        "notes",
        "#[occupancy::check(regs = 32, target = \"sm_80\")]
pub fn pow2(s: &Stream, n: u32) {
    let block = n.next_power_of_two().min(1024);
    s.launch(LaunchConfig { grid_dim: (1, 1, 1), block_dim: (block, 1, 1), shared_mem_bytes: 0 });
}

#[occupancy::check(regs = 32, target = \"sm_80\")]
pub fn inline(s: &Stream, n: u32) {
    s.launch(LaunchConfig { grid_dim: (1, 1, 1), block_dim: (n.clamp(1, 4) * 32, 1, 1), shared_mem_bytes: 0 });
}
",
    );
    let spec = ok(&dir, "pow2");
    assert_eq!(spec.plans.len(), 11);
    assert_eq!(
        spec.plans[0].notes,
        ["`block` from `n.next_power_of_two().min(1024)`: each of 1, 2, 4, ..., 1024 checked"]
    );
    // One range: every plan of it shares its id, for the findings to be reported together.
    assert!(spec.plans.iter().all(|p| p.range == spec.plans[0].range));
    assert!(spec.plans[0].range.is_some());
    let spec = ok(&dir, "inline");
    assert_eq!(launches(&spec), [(32, 0), (64, 0), (96, 0), (128, 0)]);
    assert_eq!(
        spec.plans[0].notes,
        ["the block from `n.clamp(1, 4) * 32`: each of 32, 64, 96, 128 checked"]
    );
}

#[test]
fn patterns_guards_and_early_exits_narrow_the_paths() {
    let dir = crate_with(
        "patterns",
        "#[occupancy::check(regs = 32, target = \"sm_80\")]
pub fn guarded(s: &Stream, n: u32, dtype: DType) {
    let block = match n {
        0 => return,
        1..=32 => 32,
        m if m > 4096 => 1024,
        _ => 256,
    };
    let half = matches!(dtype, DType::F16);
    let smem = if half { block * 2 } else { block * 4 };
    s.launch(LaunchConfig { grid_dim: (1, 1, 1), block_dim: (block, 1, 1), shared_mem_bytes: smem });
}

#[occupancy::check(regs = 32, target = \"sm_80\")]
pub fn asserted(s: &Stream, cols: u32) {
    assert!(cols <= 2048, \"too many columns\");
    let pad = cols.next_power_of_two();
    s.launch(LaunchConfig { grid_dim: (1, 1, 1), block_dim: (pad.min(256), 1, 1), shared_mem_bytes: pad * 4 });
}

#[occupancy::check(regs = 32, target = \"sm_80\")]
pub fn updated(s: &Stream, n: u32, big: bool) {
    let base = LaunchConfig { grid_dim: (n, 1, 1), block_dim: (128, 1, 1), shared_mem_bytes: 0 };
    let cfg = if big { LaunchConfig { shared_mem_bytes: 8192, ..base } } else { base };
    s.launch(cfg);
}
",
    );
    let mut got = launches(&ok(&dir, "guarded"));
    got.sort_unstable();
    assert_eq!(
        got,
        [
            (32, 64),
            (32, 128),
            (256, 512),
            (256, 1024),
            (1024, 2048),
            (1024, 4096)
        ]
    );
    let expected: Vec<(u32, u32)> = powers(1, 2048)
        .into_iter()
        .map(|pad| (pad.min(256), pad * 4))
        .collect();
    assert_eq!(launches(&ok(&dir, "asserted")), expected);
    assert_eq!(launches(&ok(&dir, "updated")), [(128, 8192), (128, 0)]);
}

/// An arm whose pattern is a unit variant or a constant (`None`, `F32`, `MAX_BLOCK`) is no
/// binding: it ends only its own paths when it returns, as candle's ops all begin
/// (`match layout.contiguous_offsets() { None => bail!(..), Some((o1, o2)) => .. }`); read
/// as a binding, it matched every value and no launch was found.
#[test]
fn an_arm_naming_a_variant_or_constant_ends_only_its_paths() {
    let dir = crate_with(
        "variant_arms",
        "pub struct Layout;
impl Layout { pub fn contiguous_offsets(&self) -> Option<(usize, usize)> { None } }
#[occupancy::check(regs = 32, target = \"sm_80\")]
pub fn first_arm_returns(s: &Stream, layout: &Layout) -> Result<(), String> {
    let _src = match layout.contiguous_offsets() {
        None => return Err(\"not contiguous\".into()),
        Some((o1, o2)) => o2 - o1,
    };
    s.launch(LaunchConfig { grid_dim: (1, 1, 1), block_dim: (32, 1, 1), shared_mem_bytes: 0 });
    Ok(())
}

#[occupancy::check(regs = 32, target = \"sm_80\")]
pub fn first_arm_panics(s: &Stream, layout: &Layout) {
    let Some((o1, _)) = layout.contiguous_offsets() else { panic!(\"no\") };
    let _ = o1;
    let block = match layout.contiguous_offsets() {
        None => unreachable!(),
        Some(_) => 64,
    };
    s.launch(LaunchConfig { grid_dim: (1, 1, 1), block_dim: (block, 1, 1), shared_mem_bytes: 0 });
}

#[occupancy::check(regs = 32, target = \"sm_80\")]
pub fn constant_arm(s: &Stream, n: u32) {
    let block = match n {
        MAX_BLOCK => 1024,
        _ => 128,
    };
    s.launch(LaunchConfig { grid_dim: (1, 1, 1), block_dim: (block, 1, 1), shared_mem_bytes: 0 });
}
",
    );
    assert_eq!(launches(&ok(&dir, "first_arm_returns")), [(32, 0)]);
    assert_eq!(launches(&ok(&dir, "first_arm_panics")), [(64, 0)]);
    let mut got = launches(&ok(&dir, "constant_arm"));
    got.sort_unstable();
    assert_eq!(got, [(128, 0), (1024, 0)]);
}

/// Bad input is bounded in time and memory, with an error saying what the reader stopped
/// at: a body whose matches split into thousands of paths, a loop of a million steps, a
/// helper that calls itself, a chain of helpers.
///
/// The body runs on a thread of 4 MiB, the stack the reader's nesting limits (`MAX_CALLS`,
/// `MAX_NESTING`) are sized for in a debug build: half of the 8 MiB of the thread rustc runs
/// proc macros on, and twice a test thread's default 2 MiB, on which the 48-deep call chain
/// of a debug build does not fit.
#[test]
fn bad_input_is_bounded() {
    std::thread::Builder::new()
        .stack_size(4 << 20)
        .spawn(bad_input_is_bounded_on_the_readers_stack)
        .unwrap()
        .join()
        .unwrap();
}

fn bad_input_is_bounded_on_the_readers_stack() {
    let arms: String = (0..16).map(|i| format!("{i} => {}, ", i + 1)).collect();
    let matches: String = (0..8)
        .map(|i| format!("let x{i} = match a{i} {{ {arms} _ => 0 }};\n"))
        .collect();
    let params: String = (0..8).map(|i| format!(", a{i}: u32")).collect();
    let sum: Vec<String> = (0..8).map(|i| format!("x{i}")).collect();
    let chain: String = (0..60)
        .map(|i| format!("pub fn h{i}(n: u32) -> u32 {{ h{}(n) + 1 }}\n", i + 1))
        .collect();
    let dir = crate_with(
        "bounded",
        &format!(
            "{chain}pub fn h60(n: u32) -> u32 {{ n }}
#[occupancy::check(regs = 32, target = \"sm_80\")]
pub fn explode(s: &Stream{params}) {{
{matches}    s.launch(LaunchConfig {{ grid_dim: (1, 1, 1), block_dim: ({} + 32, 1, 1), shared_mem_bytes: 0 }});
}}

#[occupancy::check(regs = 32, target = \"sm_80\")]
pub fn long_loop(s: &Stream) {{
    let mut b = 0u32;
    while b < 1_000_000 {{ b += 1; }}
    s.launch(LaunchConfig {{ grid_dim: (1, 1, 1), block_dim: (b, 1, 1), shared_mem_bytes: 0 }});
}}

#[occupancy::check(regs = 32, target = \"sm_80\")]
pub fn chained(s: &Stream, n: u32) {{
    s.launch(LaunchConfig {{ grid_dim: (1, 1, 1), block_dim: (h0(n), 1, 1), shared_mem_bytes: 0 }});
}}
",
            sum.join(" + ")
        ),
    );
    let errors = spec_of(&dir, "explode").err().unwrap();
    assert!(
        errors[0].starts_with("more than 64 paths through the body from here on"),
        "{errors:?}"
    );
    let errors = spec_of(&dir, "long_loop").err().unwrap();
    assert!(
        errors[0].contains("`b` is assigned in a loop whose exit the reader cannot bound"),
        "{errors:?}"
    );
    let errors = spec_of(&dir, "chained").err().unwrap();
    assert!(
        errors[0].contains("calls nest more than 48 deep"),
        "{errors:?}"
    );
}

/// More candidates than one run-time set holds: refused with the count, never cut
/// silently.
#[test]
fn huge_candidate_sets_are_refused_with_the_count() {
    let candidates: Vec<String> = (1..=100).map(|i| (i * 32).to_string()).collect();
    let dir = crate_with(
        "huge-keys",
        &format!(
            "#[occupancy::check(regs = 32, target = \"sm_80\", block = [{}])]
pub fn tuned(s: &Stream, n: u32, threads: u32) {{
    s.launch(LaunchConfig {{ grid_dim: (n, 1, 1), block_dim: (threads, 1, 1), shared_mem_bytes: 0 }});
}}
",
            candidates.join(", ")
        ),
    );
    let errors = spec_of(&dir, "tuned").err().unwrap();
    assert!(
        errors[0].starts_with("100 `block` candidates: at most 64"),
        "{errors:?}"
    );
}

/// 4 x 8 x 4 arms make 128 paths, each with its own block: the construct that splits them
/// past 64 is the one error (the rule both readers share,
/// `occupancy_core::read::paths::settle`); the other 65, folded into one path, make no
/// launch of their own, so no second error names a block or a size united from several
/// paths.
#[test]
fn past_64_paths_an_error_and_the_launch_of_the_fold_is_unknown() {
    let dir = crate_with(
        "fold",
        "#[occupancy::check(regs = 32, target = \"sm_80\")]
pub fn explode(s: &Stream, a: u8, b: u8, c: u8) {
    let x = match a { 0 => 1, 1 => 2, 2 => 3, _ => 4 };
    let y = match b { 0 => 1, 1 => 2, 2 => 3, 3 => 4, 4 => 5, 5 => 6, 6 => 7, _ => 8 };
    let z = match c { 0 => 1, 1 => 2, 2 => 3, _ => 4 };
    s.launch(LaunchConfig { grid_dim: (1, 1, 1), block_dim: (x * 64 + y * 8 + z, 1, 1), shared_mem_bytes: 0 });
}
",
    );
    let errors = spec_of(&dir, "explode").err().unwrap();
    assert_eq!(
        errors,
        [
            "more than 64 paths through the body from here on: the reader follows each path to \
          the launch it makes and stops at 64; give the launch's values in the attribute, or \
          choose them in fewer combinations"
        ]
    );
}

/// The reduce style's choice of kernel and configuration, from `op` and `per_out` (candle's
/// FastReduce): the sum of few elements its own kernel with 256 threads, the rest a block
/// of the elements per output rounded up to a power of two, at most 1024.
const REDUCE_CHOICE: &str = "    let (name, with_index) = match op {
        Op::Sum => (\"rsum\", false),
        Op::Min => (\"rmin\", false),
        Op::ArgMin => (\"rargmin\", true),
    };
    let small = per_out <= 32 && !with_index && name == \"rsum\";
    let (cfg, k) = if small {
        (LaunchConfig { grid_dim: (1, 1, 1), block_dim: (256, 1, 1), shared_mem_bytes: 0 }, \"rsum_small\")
    } else {
        let b = usize::min(1024, per_out).next_power_of_two();
        (LaunchConfig { grid_dim: (kept as u32, 1, 1), block_dim: (b as u32, 1, 1), shared_mem_bytes: 0 }, name)
    };
";

/// The (kernel, block) of every launch [`REDUCE_CHOICE`] makes, in plan order, each kernel
/// name followed by `suffix`: `rsum_small` with 256; `rsum` with 64..=1024 (the sum of 32
/// elements or fewer takes the small kernel); `rmin` and `rargmin` with 1..=1024.
fn reduce_launches(suffix: &str) -> Vec<(Option<String>, u32)> {
    let mut expected = vec![(Some(format!("rsum_small{suffix}")), 256)];
    for (name, from) in [("rsum", 64), ("rmin", 1), ("rargmin", 1)] {
        expected.extend(
            powers(from, 1024)
                .into_iter()
                .map(|b| (Some(format!("{name}{suffix}")), b)),
        );
    }
    expected
}

/// The reduce style: the count of elements per output is a product the reader does not
/// follow, declared `usize`, divided by a count a loop multiplies up (also `usize`): any
/// value of their type, so that `min(1024, per_out).next_power_of_two()` is one of the
/// eleven powers of two up to 1024, and the flag `small` (a comparison bound to a name)
/// keeps the sum's large branch above 32 elements: 64..1024 there, never 1..32.
#[test]
fn values_of_a_declared_type_are_any_value_of_that_type() {
    let dir = crate_with(
        "declared",
        &[
            LOADER,
            "pub enum Op { Sum, Min, ArgMin }

#[occupancy::check(regs = 32, target = \"sm_80\")]
pub fn reduce(dev: &Dev, op: Op, dims: &[usize], keep: usize) -> Result<(), ()> {
    let total: usize = dims.iter().product();
    let mut kept: usize = 1;
    for (i, &d) in dims.iter().enumerate() {
        if i < keep {
            kept *= d;
        }
    }
    let per_out = total / kept;
",
            REDUCE_CHOICE,
            "    let func = dev.get_or_load_func(k, &REDUCE)?;
    func.builder().launch(cfg)?;
    Ok(())
}

#[occupancy::check(regs = 32, target = \"sm_80\")]
pub fn untyped(dev: &Dev, dims: &[usize]) -> Result<(), ()> {
    let total = dims.iter().product();
    let b = usize::min(1024, total).next_power_of_two();
    let func = dev.get_or_load_func(\"rsum\", &REDUCE)?;
    func.builder().launch(LaunchConfig { grid_dim: (1, 1, 1), block_dim: (b as u32, 1, 1), shared_mem_bytes: 0 })?;
    Ok(())
}
"
        ]
        .concat(),
    );
    let spec = ok(&dir, "reduce");
    assert_eq!(kernels(&spec), reduce_launches(""));
    // Without the type, the product is not known to be an integer: not checked, with why.
    let errors = spec_of(&dir, "untyped").err().unwrap();
    assert!(
        errors[0].starts_with(
            "the block size of this launch is known only at run time (a call of the method `product`)"
        ),
        "{errors:?}"
    );
}

/// candle's reduce with its `kernel_name::<T>(root)` helper: the name a path chose (a member
/// of a run-time set bound by a `match`) goes through a crate function generic over the
/// element type, which appends the dtype (`format!("{root}_{dtype}")`), and the builder is
/// lent to push arguments (`ds.builder_arg(&mut builder)`). Each path still names its own
/// kernels (`rsum_*` with its blocks, never `rmin_*` with `rsum_small`'s).
#[test]
fn a_name_chosen_by_a_match_keeps_its_paths_through_a_crate_helper() {
    let dir = crate_with(
        "through_helper",
        &[
            LOADER,
            "pub enum Op { Sum, Min, ArgMin }
pub trait WithDType { const DTYPE: &'static str; }
pub struct Ptrs;
impl Ptrs { pub fn builder_arg(&self, _: &mut Builder) {} }
pub fn kernel_name<T: WithDType>(root: &str) -> String {
    let dtype = T::DTYPE;
    format!(\"{root}_{dtype}\")
}

#[occupancy::check(regs = 32, target = \"sm_80\")]
pub fn reduce<T: WithDType>(dev: &Dev, ds: &Ptrs, op: Op, total: usize, kept: usize) -> Result<(), ()> {
    let per_out = total / kept;
",
            REDUCE_CHOICE,
            "    let func = dev.get_or_load_func(&kernel_name::<T>(k), &REDUCE)?;
    let mut builder = func.builder();
    ds.builder_arg(&mut builder);
    builder.launch(cfg)?;
    Ok(())
}
"
        ]
        .concat(),
    );
    let spec = ok(&dir, "reduce");
    assert_eq!(kernels(&spec), reduce_launches("_*"));
}

/// What can change a launch builder's kernel or choose a name out of the caller's sight is
/// not read as the kernel: a builder swapped (`mem::swap`), given to a function, or
/// replaced through a `&mut` bound by `let`; a name a helper chooses on several paths of
/// its own (each would be paired with any of the caller's blocks). Each launch then names
/// no kernel: every kernel of the attribute, never the one the code does not launch.
#[test]
fn a_builder_that_may_be_replaced_or_a_name_chosen_in_a_helper_names_no_kernel() {
    let dir = crate_with(
        "replaced",
        &[
            LOADER,
            "pub fn swap(b: &mut Builder, other: Builder) { *b = other; }
pub fn pick(big: bool) -> String {
    if big { format!(\"k_big\") } else { format!(\"k_small\") }
}

#[occupancy::check(regs = 32, target = \"sm_80\")]
pub fn swapped(dev: &Dev, n: u32) -> Result<(), ()> {
    let big = dev.get_or_load_func(\"k_big\", &REDUCE)?;
    let small = dev.get_or_load_func(\"k_small\", &REDUCE)?;
    let mut builder = big.builder();
    let mut other = small.builder();
    std::mem::swap(&mut builder, &mut other);
    builder.launch(LaunchConfig { grid_dim: (n, 1, 1), block_dim: (1024, 1, 1), shared_mem_bytes: 0 })?;
    Ok(())
}

#[occupancy::check(regs = 32, target = \"sm_80\")]
pub fn given(dev: &Dev, n: u32) -> Result<(), ()> {
    let big = dev.get_or_load_func(\"k_big\", &REDUCE)?;
    let small = dev.get_or_load_func(\"k_small\", &REDUCE)?;
    let mut builder = big.builder();
    swap(&mut builder, small.builder());
    builder.launch(LaunchConfig { grid_dim: (n, 1, 1), block_dim: (1024, 1, 1), shared_mem_bytes: 0 })?;
    Ok(())
}

#[occupancy::check(regs = 32, target = \"sm_80\")]
pub fn through_let(dev: &Dev, n: u32) -> Result<(), ()> {
    let big = dev.get_or_load_func(\"k_big\", &REDUCE)?;
    let small = dev.get_or_load_func(\"k_small\", &REDUCE)?;
    let mut builder = big.builder();
    let r = &mut builder;
    *r = small.builder();
    builder.launch(LaunchConfig { grid_dim: (n, 1, 1), block_dim: (1024, 1, 1), shared_mem_bytes: 0 })?;
    Ok(())
}

#[occupancy::check(regs = 32, target = \"sm_80\")]
pub fn branchy(dev: &Dev, big: bool, n: u32) -> Result<(), ()> {
    let name = pick(big);
    let b: u32 = if big { 64 } else { 1024 };
    let func = dev.get_or_load_func(&name, &REDUCE)?;
    func.builder().launch(LaunchConfig { grid_dim: (n, 1, 1), block_dim: (b, 1, 1), shared_mem_bytes: 0 })?;
    Ok(())
}
"
        ]
        .concat(),
    );
    for name in ["swapped", "given", "through_let"] {
        assert_eq!(kernels(&ok(&dir, name)), [(None, 1024)], "{name}");
    }
    assert_eq!(kernels(&ok(&dir, "branchy")), [(None, 64), (None, 1024)]);
}

/// A helper's value chosen by a condition on a parameter the caller passes as it is: what
/// the helper's `if big` or `match dtype` decided stays decided for the caller, so its later
/// test of the same name, or another helper's, goes the same way. Before, the helper's
/// paths were crossed with the caller's: `(block = 32, smem = 0)` and `(1024, 40000)`,
/// launches the code cannot make.
#[test]
fn what_a_helper_decided_about_a_callers_name_stays_decided() {
    let dir = crate_with(
        "helper_facts",
        "pub fn block_for(big: bool) -> u32 { if big { 1024 } else { 32 } }
pub fn smem_for(big: bool) -> u32 { if big { 0 } else { 40000 } }
pub fn warps_for(dtype: DType) -> u32 {
    match dtype {
        DType::F16 => 2,
        _ => 8,
    }
}

#[occupancy::check(regs = 32, target = \"sm_80\")]
pub fn two_helpers(s: &Stream, n: u32, big: bool) {
    let b = block_for(big);
    let smem = smem_for(big);
    s.launch(LaunchConfig { grid_dim: (n, 1, 1), block_dim: (b, 1, 1), shared_mem_bytes: smem });
}

#[occupancy::check(regs = 32, target = \"sm_80\")]
pub fn helper_then_if(s: &Stream, n: u32, big: bool) {
    let b = block_for(big);
    let smem = if big { 0 } else { 40000 };
    s.launch(LaunchConfig { grid_dim: (n, 1, 1), block_dim: (b, 1, 1), shared_mem_bytes: smem });
}

pub fn block_for_not(big: bool) -> u32 {
    let big = !big;
    if big { 1024 } else { 32 }
}

#[occupancy::check(regs = 32, target = \"sm_80\")]
pub fn shadowed(s: &Stream, n: u32, big: bool) {
    let b = block_for_not(big);
    let smem = if big { 40000 } else { 0 };
    s.launch(LaunchConfig { grid_dim: (n, 1, 1), block_dim: (b, 1, 1), shared_mem_bytes: smem });
}

#[occupancy::check(regs = 32, target = \"sm_80\")]
pub fn helper_then_match(s: &Stream, n: u32, dtype: DType) {
    let warps = warps_for(dtype);
    let smem = match dtype {
        DType::F16 => 128,
        _ => 512,
    };
    s.launch(LaunchConfig { grid_dim: (n, 1, 1), block_dim: (32 * warps, 1, 1), shared_mem_bytes: smem });
}
",
    );
    for name in ["two_helpers", "helper_then_if"] {
        let mut got = launches(&ok(&dir, name));
        got.sort();
        assert_eq!(got, [(32, 40000), (1024, 0)], "{name}");
    }
    let mut got = launches(&ok(&dir, "helper_then_match"));
    got.sort();
    assert_eq!(got, [(64, 128), (256, 512)]);
    // A condition on a later binding of the same name (`let big = !big;`) is not the
    // caller's: the launches the code makes are there (with others the reader cannot rule
    // out), never only the opposite pairs.
    let got = launches(&ok(&dir, "shadowed"));
    assert!(
        got.contains(&(32, 40000)) && got.contains(&(1024, 0)),
        "{got:?}"
    );
}

/// A helper's comparison on a parameter the caller passes as it is (`if n < 256`) narrows
/// the caller's name too: its later test of `n`, in its own code or another helper, goes the
/// way the helper's did. Before, `block_for(n)` then `if n < 256` crossed into
/// `(block = 64, smem = 40000)` and `(1024, 0)`, launches the code cannot make. A parameter
/// the helper rebinds (`let n = n * 2`) is not the caller's name: its test narrows nothing
/// there.
#[test]
fn what_a_helper_compared_about_a_callers_name_narrows_it() {
    let dir = crate_with(
        "helper_narrows",
        "pub fn block_for(n: u32) -> u32 { if n < 256 { 64 } else { 1024 } }
pub fn smem_for(n: u32) -> u32 { if n >= 256 { 40000 } else { 0 } }
pub fn doubled_block(n: u32) -> u32 { let n = n * 2; if n < 256 { 64 } else { 1024 } }
pub fn by_match(n: u32) -> u32 { match n { 0..=255 => 64, _ => 1024 } }

#[occupancy::check(regs = 32, target = \"sm_80\")]
pub fn match_then_compare(s: &Stream, n: u32) {
    let b = by_match(n);
    let smem = if n < 256 { 0 } else { 40000 };
    s.launch(LaunchConfig { grid_dim: (n, 1, 1), block_dim: (b, 1, 1), shared_mem_bytes: smem });
}

#[occupancy::check(regs = 32, target = \"sm_80\")]
pub fn own_match_then_compare(s: &Stream, n: u32) {
    let b = match n { 0..=255 => 64, _ => 1024 };
    let smem = match n { 0..=255 => 0, _ => 40000 };
    s.launch(LaunchConfig { grid_dim: (n, 1, 1), block_dim: (b, 1, 1), shared_mem_bytes: smem });
}

pub fn pick_a(a: u32, b: u32) -> u32 { let _ = b; if a < 256 { 64 } else { 1024 } }
pub fn pick_b(a: u32, b: u32) -> u32 { let _ = a; if b < 256 { 64 } else { 1024 } }

#[occupancy::check(regs = 32, target = \"sm_80\")]
pub fn one_name_two_params_a(s: &Stream, n: u32) {
    let b = pick_a(n, n);
    let smem = if n < 256 { 0 } else { 40000 };
    s.launch(LaunchConfig { grid_dim: (n, 1, 1), block_dim: (b, 1, 1), shared_mem_bytes: smem });
}

#[occupancy::check(regs = 32, target = \"sm_80\")]
pub fn one_name_two_params_b(s: &Stream, n: u32) {
    let b = pick_b(n, n);
    let smem = if n < 256 { 0 } else { 40000 };
    s.launch(LaunchConfig { grid_dim: (n, 1, 1), block_dim: (b, 1, 1), shared_mem_bytes: smem });
}

#[occupancy::check(regs = 32, target = \"sm_80\")]
pub fn helper_then_compare(s: &Stream, n: u32) {
    let b = block_for(n);
    let smem = if n < 256 { 0 } else { 40000 };
    s.launch(LaunchConfig { grid_dim: (n, 1, 1), block_dim: (b, 1, 1), shared_mem_bytes: smem });
}

#[occupancy::check(regs = 32, target = \"sm_80\")]
pub fn two_comparing_helpers(s: &Stream, n: u32) {
    let b = block_for(n);
    let smem = smem_for(n);
    s.launch(LaunchConfig { grid_dim: (n, 1, 1), block_dim: (b, 1, 1), shared_mem_bytes: smem });
}

#[occupancy::check(regs = 32, target = \"sm_80\")]
pub fn rebound_in_helper(s: &Stream, n: u32) {
    let b = doubled_block(n);
    let smem = if n < 256 { 0 } else { 40000 };
    s.launch(LaunchConfig { grid_dim: (n, 1, 1), block_dim: (b, 1, 1), shared_mem_bytes: smem });
}
",
    );
    // The same name given to two parameters (`pick(n, n)`): the one the helper tests
    // narrows it, whichever it is (the other, left as given, used to undo it).
    for name in [
        "helper_then_compare",
        "two_comparing_helpers",
        "one_name_two_params_a",
        "one_name_two_params_b",
        // A `_` arm after a range arm: the values past the range (256 and up).
        "match_then_compare",
        "own_match_then_compare",
    ] {
        let mut got = launches(&ok(&dir, name));
        got.sort();
        assert_eq!(got, [(64, 0), (1024, 40000)], "{name}");
    }
    // n * 2 < 256 is n < 128, so n in 128..256 takes 1024 and 0: the helper's narrowing of
    // its own `n` must not be taken for the caller's (which would lose that launch).
    let got = launches(&ok(&dir, "rebound_in_helper"));
    for made in [(64, 0), (1024, 0), (1024, 40000)] {
        assert!(got.contains(&made), "{made:?} missing from {got:?}");
    }
}

/// A helper given the caller's name moved by literals (`n + 1`, `n - 1`, `2 * n`, `n as
/// usize`): what it compared the argument to is the caller's name moved back (`n + 1 < 256`
/// is `n < 255`), so that no block is paired with shared memory of the caller's other way;
/// a cast that changes values (`n as u8`) narrows nothing.
#[test]
fn what_a_helper_compared_about_a_moved_name_narrows_the_name() {
    let dir = crate_with(
        "helper_narrows_moved",
        "pub fn block_for(n: u32) -> u32 { if n < 256 { 64 } else { 1024 } }
pub fn block_for_usize(n: usize) -> u32 { if n < 256 { 64 } else { 1024 } }
pub fn block_for_u8(n: u8) -> u32 { if n < 100 { 64 } else { 1024 } }

#[occupancy::check(regs = 32, target = \"sm_80\")]
pub fn plus_one(s: &Stream, n: u32) {
    let b = block_for(n + 1);
    let smem = if n < 256 { 0 } else { 40000 };
    s.launch(LaunchConfig { grid_dim: (n, 1, 1), block_dim: (b, 1, 1), shared_mem_bytes: smem });
}

#[occupancy::check(regs = 32, target = \"sm_80\")]
pub fn minus_one(s: &Stream, n: u32) {
    let b = block_for(n - 1);
    let smem = if n < 256 { 0 } else { 40000 };
    s.launch(LaunchConfig { grid_dim: (n, 1, 1), block_dim: (b, 1, 1), shared_mem_bytes: smem });
}

#[occupancy::check(regs = 32, target = \"sm_80\")]
pub fn doubled(s: &Stream, n: u32) {
    let b = block_for(2 * n);
    let smem = if n < 128 { 0 } else { 40000 };
    s.launch(LaunchConfig { grid_dim: (n, 1, 1), block_dim: (b, 1, 1), shared_mem_bytes: smem });
}

#[occupancy::check(regs = 32, target = \"sm_80\")]
pub fn widened(s: &Stream, n: u32) {
    let b = block_for_usize(n as usize);
    let smem = if n < 256 { 0 } else { 40000 };
    s.launch(LaunchConfig { grid_dim: (n, 1, 1), block_dim: (b, 1, 1), shared_mem_bytes: smem });
}

#[occupancy::check(regs = 32, target = \"sm_80\")]
pub fn copied(s: &Stream, n: u32) {
    let m = n;
    let b = if m < 256 { 64 } else { 1024 };
    let smem = if n < 256 { 0 } else { 40000 };
    s.launch(LaunchConfig { grid_dim: (n, 1, 1), block_dim: (b, 1, 1), shared_mem_bytes: smem });
}

#[occupancy::check(regs = 32, target = \"sm_80\")]
pub fn guarded(s: &Stream, n: u32) {
    let b = match n { x if x < 256 => 64, _ => 1024 };
    let smem = if n < 256 { 0 } else { 40000 };
    s.launch(LaunchConfig { grid_dim: (n, 1, 1), block_dim: (b, 1, 1), shared_mem_bytes: smem });
}

#[occupancy::check(regs = 32, target = \"sm_80\")]
pub fn copied_then_helper(s: &Stream, n: u32) {
    let m = n;
    let b = block_for(m);
    let smem = if n < 256 { 0 } else { 40000 };
    s.launch(LaunchConfig { grid_dim: (n, 1, 1), block_dim: (b, 1, 1), shared_mem_bytes: smem });
}

#[occupancy::check(regs = 32, target = \"sm_80\")]
pub fn cast_compared(s: &Stream, n: u16) {
    let b = if (n as u32) < 256 { 64 } else { 1024 };
    let smem = if n < 256 { 0 } else { 40000 };
    s.launch(LaunchConfig { grid_dim: (1, 1, 1), block_dim: (b, 1, 1), shared_mem_bytes: smem });
}

#[occupancy::check(regs = 32, target = \"sm_80\")]
pub fn plus_compared(s: &Stream, n: u32) {
    let b = if n + 1 < 256 { 64 } else { 1024 };
    let smem = if n < 256 { 0 } else { 40000 };
    s.launch(LaunchConfig { grid_dim: (n, 1, 1), block_dim: (b, 1, 1), shared_mem_bytes: smem });
}

pub fn block_unless(m: u32, flag: bool) -> u32 { if flag { return 32; } if m < 100 { 64 } else { 1024 } }

#[occupancy::check(regs = 32, target = \"sm_80\")]
pub fn assigned_by_an_argument(s: &Stream, n: u32) {
    let mut k = n;
    let b = block_unless(k, { k = 200; false });
    let smem = if k < 100 { 40000 } else { 0 };
    s.launch(LaunchConfig { grid_dim: (n, 1, 1), block_dim: (b, 1, 1), shared_mem_bytes: smem });
}

#[occupancy::check(regs = 32, target = \"sm_80\")]
pub fn truncated(s: &Stream, n: u32) {
    let b = block_for_u8(n as u8);
    let smem = if n < 256 { 0 } else { 40000 };
    s.launch(LaunchConfig { grid_dim: (n, 1, 1), block_dim: (b, 1, 1), shared_mem_bytes: smem });
}

#[occupancy::check(regs = 32, target = \"sm_80\")]
pub fn truncated_then_small(s: &Stream, n: u32) {
    let b = block_for_u8(n as u8);
    let smem = if n < 100 { 0 } else { 40000 };
    s.launch(LaunchConfig { grid_dim: (n, 1, 1), block_dim: (b, 1, 1), shared_mem_bytes: smem });
}
",
    );
    let cases: [(&str, &[(u32, u32)]); 11] = [
        // A comparison of the name moved by literals narrows the name itself.
        ("cast_compared", &[(64, 0), (1024, 40000)]),
        // n + 1 < 256 is n < 255: n = 255 takes 1024 and 0.
        ("plus_compared", &[(64, 0), (1024, 0), (1024, 40000)]),
        // A copy of the name (`let m = n;`), a guard's binding, a helper's parameter: each is
        // the same value, so a test of one narrows the other.
        ("copied", &[(64, 0), (1024, 40000)]),
        ("guarded", &[(64, 0), (1024, 40000)]),
        ("copied_then_helper", &[(64, 0), (1024, 40000)]),
        // The second argument assigns `k` after the first gave it: the helper's test of the
        // first is not about `k`'s new value (it was applied to it: (64, 40000)).
        ("assigned_by_an_argument", &[(64, 0), (1024, 0)]),
        // n + 1 < 256: n up to 254 takes 64; n = 255 takes 1024 and 0.
        ("plus_one", &[(64, 0), (1024, 0), (1024, 40000)]),
        // n - 1 < 256: n up to 256 takes 64; n = 256 takes 64 and 40000 (n = 0 panics).
        ("minus_one", &[(64, 0), (64, 40000), (1024, 40000)]),
        ("doubled", &[(64, 0), (1024, 40000)]),
        ("widened", &[(64, 0), (1024, 40000)]),
        // `n as u8 < 100` says nothing a range of `n` can keep (300 as u8 is 44), but one
        // value of `n` takes each pair of ways (50, 150, 300 and 400: a witness the reader
        // finds among the values it tries), so each pair is a launch some run makes.
        (
            "truncated",
            &[(64, 0), (64, 40000), (1024, 0), (1024, 40000)],
        ),
    ];
    for (name, want) in cases {
        let mut got = launches(&ok(&dir, name));
        got.sort();
        got.dedup();
        assert_eq!(got, want, "{name}");
    }
    // Where a later test leaves no value taking a way (`n < 100` after `n as u8 < 100`
    // failed: every `n` below 100 is its own `u8`), no witness is found and the launch of
    // that pair (1024 threads and no shared memory, which no run makes) is not read.
    let errors = spec_of(&dir, "truncated_then_small")
        .err()
        .expect("an error");
    assert!(
        errors.iter().any(|e| e.starts_with(
            "the conditions `n < 100` (in `block_for_u8`) and `n < 100` both depend on `n`, \
             and the reader cannot apply `n < 100` (in `block_for_u8`) to its values"
        )),
        "{errors:?}"
    );
}

/// candle's copy_strided_src: one launch per dtype arm, each of the function its arm
/// loads. Read whole, the attribute must name every kernel the body launches; read for one
/// launch (`cargo occupancy report` reads each launch of such a function alone), only that
/// launch's paths are kept, so its own kernel is enough.
#[test]
fn a_function_read_for_one_launch_keeps_that_launchs_paths() {
    let text = [
        LOADER,
        "
#[occupancy::check(kernel = \"k_plain\", target = \"sm_80\")]
pub fn copy(dev: &Dev, dtype: DType, n: u32) -> Result<(), ()> {
    match dtype {
        DType::F16 => {
            let func = dev.get_or_load_func(\"k_plain\", &QUANTIZED)?;
            let mut builder = func.builder();
            builder.arg(&n);
            builder.launch(LaunchConfig { grid_dim: (n, 1, 1), block_dim: (64, 1, 1), shared_mem_bytes: 0 })?;
        }
        _ => {
            let func = dev.get_or_load_func(\"k_regs\", &QUANTIZED)?;
            let mut builder = func.builder();
            builder.arg(&n);
            builder.launch(LaunchConfig { grid_dim: (n, 1, 1), block_dim: (256, 1, 1), shared_mem_bytes: 0 })?;
        }
    }
    Ok(())
}
",
    ]
    .concat();
    let dir = crate_with("one_launch", &text);
    // The kernels' resources: the probe kernels of tests/ui.
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/ui/fixtures/probe.manifest.json"),
        dir.join("kernels.manifest.json"),
    )
    .unwrap();
    let errors = spec_of(&dir, "copy").err().unwrap();
    assert!(
        errors[0].starts_with("`kernel` does not name `k_regs`, which the body launches"),
        "{errors:?}"
    );
    // The line of the first launch call, in the file as written (prelude first).
    let written = std::fs::read_to_string(dir.join("src/lib.rs")).unwrap();
    let line = 1 + written
        .lines()
        .position(|l| l.contains("block_dim: (64, 1, 1)"))
        .unwrap();
    let spec = common::spec_of_launch(&dir, "src/lib.rs", "copy", Some(line))
        .unwrap_or_else(|e| panic!("{e:?}"));
    assert_eq!(kernels(&spec), [(Some("k_plain".to_owned()), 64)]);
    // A line no launch is on: every path, as read whole.
    let errors = common::spec_of_launch(&dir, "src/lib.rs", "copy", Some(1))
        .err()
        .unwrap();
    assert!(
        errors[0].starts_with("`kernel` does not name `k_regs`"),
        "{errors:?}"
    );
}

/// A `format!` name filled with an integer the reader does not know (`k_{n}`, `k_{x}` with
/// `x = n * 2`) is the glob `k_#`: digits only, so a family `k_*` checks its `k_8` and
/// `k_16` on that path, never its `k_f32`.
#[test]
fn an_integer_not_known_in_a_name_stands_for_digits() {
    let dir = crate_with(
        "integer_glob",
        &[
            LOADER,
            "
#[occupancy::check(kernel = \"k_*\", target = \"sm_80\")]
pub fn by_size(dev: &Dev, n: usize, m: u32) -> Result<(), ()> {
    let func = dev.get_or_load_func(&format!(\"k_{n}\"), &QUANTIZED)?;
    let cfg = LaunchConfig { grid_dim: (m, 1, 1), block_dim: (128, 1, 1), shared_mem_bytes: 0 };
    func.builder().launch(cfg)?;
    Ok(())
}

#[occupancy::check(kernel = \"k_*\", target = \"sm_80\")]
pub fn by_double(dev: &Dev, n: usize, m: u32) -> Result<(), ()> {
    let x = n * 2;
    let func = dev.get_or_load_func(&format!(\"k_{}\", x), &QUANTIZED)?;
    let cfg = LaunchConfig { grid_dim: (m, 1, 1), block_dim: (128, 1, 1), shared_mem_bytes: 0 };
    func.builder().launch(cfg)?;
    Ok(())
}

#[occupancy::check(kernel = \"k_#\", target = \"sm_80\")]
pub fn by_narrowed_size(dev: &Dev, n: usize, m: u32) -> Result<(), ()> {
    if n != 8 && n != 16 { return Ok(()); }
    let b = if n == 8 { 64 } else { 128 };
    let func = dev.get_or_load_func(&format!(\"k_{n}\"), &QUANTIZED)?;
    let cfg = LaunchConfig { grid_dim: (m, 1, 1), block_dim: (b, 1, 1), shared_mem_bytes: 0 };
    func.builder().launch(cfg)?;
    Ok(())
}
",
        ]
        .concat(),
    );
    let kernel = |name: &str, regs: u32| {
        format!(
            r#"{{"name": "{name}", "demangled": "{name}", "arch": "sm_80", "toolkit": "12.9",
"origin": "cubin", "registers_per_thread": {regs}, "static_smem_bytes": 0, "local_bytes": 0,
"cumulative_stack_bytes": 0, "spill_store_bytes": 0, "spill_load_bytes": 0, "barriers": 0,
"max_registers": 255, "const_bank0_bytes": 400, "param_bytes": 16}}"#
        )
    };
    let manifest = format!(
        r#"{{"format": 1, "generator": "a test", "sources": [], "kernels": [{}, {}, {}]}}"#,
        kernel("k_8", 32),
        kernel("k_16", 40),
        kernel("k_f32", 128)
    );
    std::fs::write(dir.join("kernels.manifest.json"), manifest).unwrap();
    for name in ["by_size", "by_double"] {
        let spec = ok(&dir, name);
        assert_eq!(spec.plans.len(), 1, "{name}");
        assert_eq!(spec.plans[0].kernel.as_deref(), Some("k_#"), "{name}");
        let mut checked: Vec<&str> = spec
            .plan_kernels(0)
            .into_iter()
            .map(|k| spec.kernels[k.expect("a member")].name.as_str())
            .collect();
        checked.sort();
        assert_eq!(checked, ["k_16", "k_8"], "{name}");
    }
    // `k_#` covers each kernel the paths name (`k_8`, `k_16`): it was an error, "`kernel`
    // does not name `k_{8,16}`" on a path whose name the reader had narrowed (a tester's
    // case).
    let spec = ok(&dir, "by_narrowed_size");
    let mut checked: Vec<(String, u32)> = (0..spec.plans.len())
        .flat_map(|p| {
            let block = spec.plans[p].block[0].literal().unwrap_or(0);
            spec.plan_kernels(p)
                .into_iter()
                .map(move |k| (k, block))
                .collect::<Vec<_>>()
        })
        .map(|(k, b)| (spec.kernels[k.expect("a member")].name.clone(), b))
        .collect();
    checked.sort();
    assert_eq!(checked, [("k_16".to_owned(), 128), ("k_8".to_owned(), 64)]);
}

/// A block read from a field of a parameter (`op.block`), bound to a name with `let` and
/// used for the shared memory too: the `block` candidates stand for that name, and the
/// shared memory follows from each (a part of a run-time value used to count as the whole
/// value, `op`, so the candidates bound to `op` and the shared memory stayed run time).
/// Written without the name, the error says to bind it.
#[test]
fn a_field_of_a_parameter_bound_to_a_name_takes_the_blocks_candidates() {
    let dir = crate_with(
        "field_candidates",
        "pub struct Op { pub block: u32 }

#[occupancy::check(regs = 32, target = \"sm_80\", block = [128, 256])]
pub fn bound(op: &Op, s: &Stream, n: u32) {
    let block = op.block;
    s.launch(LaunchConfig { grid_dim: (n, 1, 1), block_dim: (block, 1, 1), shared_mem_bytes: block * 4 });
}

#[occupancy::check(regs = 32, target = \"sm_80\", block = [128, 256])]
pub fn typed(op: &Op, s: &Stream, n: u32) {
    let block: u32 = op.block;
    s.launch(LaunchConfig { grid_dim: (n, 1, 1), block_dim: (block, 1, 1), shared_mem_bytes: block * 4 });
}

#[occupancy::check(regs = 32, target = \"sm_80\", block = [128, 256])]
pub fn direct(op: &Op, s: &Stream, n: u32) {
    s.launch(LaunchConfig { grid_dim: (n, 1, 1), block_dim: (op.block, 1, 1), shared_mem_bytes: op.block * 4 });
}
",
    );
    for name in ["bound", "typed"] {
        let mut got = launches(&ok(&dir, name));
        got.sort();
        assert_eq!(got, [(128, 512), (256, 1024)], "{name}");
    }
    let errors = spec_of(&dir, "direct").err().expect("an error");
    assert!(
        errors
            .iter()
            .any(|e| e.contains("bind that value to a name first (`let block = self.block;`)")),
        "{errors:?}"
    );
}

/// A copy of a parameter changed where the reader sees no `=`: by a method that may take
/// `&mut self` (`m.add_assign(1000)`, a crate trait's `m.bump()`, in a loop too) or by a
/// macro given it (`set!(m)` writing `$v = $v / 2`). After it the copy is any value of the
/// parameter, not the parameter's value: no launch the code makes is dropped (they were,
/// once a comparison of the copy narrowed the parameter too), and since a test of the copy
/// then says nothing the reader can keep of the parameter, which pairs a test of each makes
/// is not known: the launch is not read (it was read as every pair, some of which no run
/// makes: `by_method`'s `m` is at least 1000, so its block is never 64).
#[test]
fn a_copy_changed_by_a_method_or_a_macro_is_no_longer_the_value_it_copied() {
    let dir = crate_with(
        "changed_copy",
        "use std::ops::AddAssign;
pub trait Bump { fn bump(&mut self); }
impl Bump for u32 { fn bump(&mut self) { *self += 1000; } }

#[occupancy::check(regs = 32, target = \"sm_80\")]
pub fn by_method(s: &Stream, n: u32) {
    let mut m = n;
    m.add_assign(1000);
    let b = if m < 256 { 64 } else { 1024 };
    let smem = if n < 256 { 0 } else { 40000 };
    s.launch(LaunchConfig { grid_dim: (1, 1, 1), block_dim: (b, 1, 1), shared_mem_bytes: smem });
}

#[occupancy::check(regs = 32, target = \"sm_80\")]
pub fn by_trait(s: &Stream, n: u32) {
    let mut m = n;
    m.bump();
    let b = if m < 256 { 64 } else { 1024 };
    let smem = if n < 256 { 0 } else { 40000 };
    s.launch(LaunchConfig { grid_dim: (1, 1, 1), block_dim: (b, 1, 1), shared_mem_bytes: smem });
}

#[occupancy::check(regs = 32, target = \"sm_80\")]
pub fn in_a_loop(s: &Stream, n: u32, k: u32) {
    let mut m = n;
    for _ in 0..k { m.add_assign(1000); }
    let b = if m < 256 { 64 } else { 1024 };
    let smem = if n < 256 { 0 } else { 40000 };
    s.launch(LaunchConfig { grid_dim: (1, 1, 1), block_dim: (b, 1, 1), shared_mem_bytes: smem });
}

#[occupancy::check(regs = 32, target = \"sm_80\")]
pub fn by_macro(s: &Stream, n: u32) {
    let mut m = n;
    macro_rules! set { ($v:ident) => { $v = $v / 2; } }
    set!(m);
    let b = if m < 256 { 64 } else { 1024 };
    let smem = if n < 256 { 0 } else { 40000 };
    s.launch(LaunchConfig { grid_dim: (1, 1, 1), block_dim: (b, 1, 1), shared_mem_bytes: smem });
}
",
    );
    for name in ["by_method", "in_a_loop", "by_trait", "by_macro"] {
        let errors = spec_of(&dir, name).err().expect("an error");
        assert!(
            errors.iter().any(|e| e.starts_with(
                "the conditions `m < 256` and `n < 256` both depend on `n`, and the reader \
                 cannot apply `m < 256` to its values"
            )),
            "{name}: {errors:?}"
        );
    }
}

/// candle's mul_mat_vec style: the name is the dtype's stem with the batch size appended
/// (checked 1..=8), and the size picks the warps. Each path launches the kernels of its own
/// sizes: `stem_{2,3,4}` with 4 warps, never `stem_5` with 4.
#[test]
fn a_name_filled_from_an_input_names_the_kernels_of_each_paths_values() {
    let dir = crate_with(
        "filled",
        &[
            LOADER,
            "
#[occupancy::check(regs = 32, target = \"sm_80\")]
pub fn mmv(dev: &Dev, dtype: DType, b_size: usize, rows: u32) -> Result<(), ()> {
    if b_size == 0 || b_size > 8 {
        return Err(());
    }
    let kernel_name = match dtype {
        DType::F16 => \"mmv_f16_\",
        DType::F32 => \"mmv_f32_\",
        _ => return Err(()),
    };
    let kernel_name = format!(\"{kernel_name}{b_size}\");
    let func = dev.get_or_load_func(&kernel_name, &QUANTIZED)?;
    let (blocks, warps) = match b_size {
        1 => (rows, 4),
        2..=4 => (rows.div_ceil(2), 4),
        5..=8 => (rows.div_ceil(2), 2),
        _ => return Err(()),
    };
    let cfg = LaunchConfig { grid_dim: (blocks, 1, 1), block_dim: (WARP_SIZE as u32, warps, 1), shared_mem_bytes: 0 };
    func.builder().launch(cfg)?;
    Ok(())
}
"
        ]
        .concat(),
    );
    let spec = ok(&dir, "mmv");
    let picked: Vec<(Option<String>, u32)> = spec
        .plans
        .iter()
        .map(|p| (p.kernel.clone(), p.block[1].literal().unwrap_or(0)))
        .collect();
    let mut expected = Vec::new();
    for dtype in ["f16", "f32"] {
        for (sizes, warps) in [("1", 4), ("{2,3,4}", 4), ("{5,6,7,8}", 2)] {
            expected.push((Some(format!("mmv_{dtype}_{sizes}")), warps));
        }
    }
    assert_eq!(picked, expected);
}

/// A finding standing for many launches of one run-time range names at most
/// `occupancy_spec::eval::MAX_NAMED_MEMBERS` of them beside the worst and counts the rest
/// (candle's reduce made one note of 41 launches, 73 KB of expansion).
#[test]
fn a_long_range_note_names_a_screenful_and_counts_the_rest() {
    let dir = crate_with(
        "long_range",
        "#[occupancy::check(regs = 64, min_occupancy = 75%, target = \"sm_90\")]
pub fn wide(s: &Stream, n: u32) {
    let block = 32 * (n % 20 + 1);
    s.launch(LaunchConfig { grid_dim: (n, 1, 1), block_dim: (block, 1, 1), shared_mem_bytes: 0 });
}
",
    );
    let spec = ok(&dir, "wide");
    assert_eq!(launches(&spec).len(), 20);
    let evaluation = spec.evaluate().unwrap();
    let notes: Vec<&String> = evaluation
        .diagnostics
        .iter()
        .filter(|d| d.finding.lint.name == "low_occupancy")
        .flat_map(|d| &d.finding.notes)
        .filter(|n| n.starts_with("also "))
        .collect();
    assert_eq!(notes.len(), 1, "{notes:#?}");
    let note = notes[0];
    assert!(note.starts_with("also 19 more launches"), "{note}");
    assert_eq!(note.matches("block = ").count(), 12, "{note}");
    assert!(
        note.ends_with("; and 7 more (`cargo occupancy report` lists each)"),
        "{note}"
    );
}

/// Two conditions on one run-time input: each launch is one a path of the code makes. A
/// comparison the reader can apply to the input's values narrows them, wherever it is
/// written: a `bool` helper (`small(n)`), a value moved by literals and bound to a name
/// (`let m = n + 1;`, `10 - n`, `-m`), a struct field, `u64::from(n)`, a `match` on `n + 1`.
/// One it cannot apply (`n * 3 == 256`) makes
/// the launches after both not read, with an error that says why, unless its other way
/// makes no launch (a guard: `if n % 32 != 0 { return; }`); they were read as every pair,
/// (64, 40000) and (1024, 0) among them, which no run makes.
#[test]
fn two_conditions_on_one_input_never_pair_ways_no_run_takes() {
    type Case<'a> = (&'a str, &'a str, &'a [(u32, u32)]);
    let cases: [Case<'_>; 14] = [
        (
            "bool_helper",
            "if small(n) { 64 } else { 1024 }",
            &[(64, 0), (1024, 40000)],
        ),
        (
            "bool_bound",
            "{ let t = small(n); if t { 64 } else { 1024 } }",
            &[(64, 0), (1024, 40000)],
        ),
        (
            "bool_by_ref",
            "if is_small(&n) { 64 } else { 1024 }",
            &[(64, 0), (1024, 40000)],
        ),
        (
            "moved_copy",
            "{ let m = n + 1; let k = m; if k < 257 { 64 } else { 1024 } }",
            &[(64, 0), (1024, 40000)],
        ),
        (
            "match_moved",
            "match n + 1 { x if x < 257 => 64, _ => 1024 }",
            &[(64, 0), (1024, 40000)],
        ),
        (
            "negative_step",
            "if n + -5 < 251 { 64 } else { 1024 }",
            &[(64, 0), (1024, 40000)],
        ),
        // 10 - n panics past 10: n < 10 takes 64, n = 10 takes 1024, both with 0.
        (
            "literal_left",
            "if 10 - n > 0 { 64 } else { 1024 }",
            &[(64, 0), (1024, 0)],
        ),
        (
            "negated",
            "{ let m = n as i64; if -m > -256 { 64 } else { 1024 } }",
            &[(64, 0), (1024, 40000)],
        ),
        (
            "field",
            "{ let p = P { v: n }; if p.v < 256 { 64 } else { 1024 } }",
            &[(64, 0), (1024, 40000)],
        ),
        (
            "from",
            "if u64::from(n) < 256 { 64 } else { 1024 }",
            &[(64, 0), (1024, 40000)],
        ),
        (
            "guard",
            "{ if n % 32 != 0 { return; } if n < 256 { 64 } else { 1024 } }",
            &[(64, 0), (1024, 40000)],
        ),
        ("times", "if n * 3 == 256 { 64 } else { 1024 }", &[]),
        // `n.min(300)` is the `if` that clamps: `n >= 300` on one way, narrowed below 300 on
        // the other (before 2026-12-07 one value the reader could not relate to `n`).
        (
            "min",
            "if n.min(300) == 300 { 1024 } else { 64 }",
            &[(64, 0), (64, 40000), (1024, 40000)],
        ),
        // One value excluded (`n != 5`) and a test its values hold (`n < 256`) hold
        // together: every pair is made (0, 300 and 5); before 2026-12-07, the seventeenth
        // session, an error.
        (
            "not_equal",
            "if n != 5 { 64 } else { 1024 }",
            &[(64, 0), (64, 40000), (1024, 0)],
        ),
    ];
    let mut text = String::from(
        "pub fn small(n: u32) -> bool { n < 256 }
pub fn is_small(n: &u32) -> bool { *n < 256 }
pub struct P { pub v: u32 }
",
    );
    for (name, block, _) in &cases {
        text.push_str(&format!(
            "
#[occupancy::check(regs = 32, target = \"sm_80\")]
pub fn {name}(s: &Stream, n: u32) {{
    let b = {block};
    let smem = if n < 256 {{ 0 }} else {{ 40000 }};
    s.launch(LaunchConfig {{ grid_dim: (1, 1, 1), block_dim: (b, 1, 1), shared_mem_bytes: smem }});
}}
"
        ));
    }
    let dir = crate_with("two_conditions", &text);
    for (name, _, want) in cases {
        if want.is_empty() {
            let errors = spec_of(&dir, name).err().expect("an error");
            assert!(
                errors.iter().any(|e| e.starts_with("the conditions `")
                    && e.contains(
                        "` and `n < 256` both depend on `n`, and the reader cannot apply"
                    )),
                "{name}: {errors:?}"
            );
            continue;
        }
        let mut got = launches(&ok(&dir, name));
        got.sort();
        got.dedup();
        assert_eq!(got, want, "{name}");
    }
}

/// Ways that end a path before the launch, and patterns that narrow: a path the code cannot
/// take makes no launch. Each wrapper below launches 256 threads on every path that reaches
/// the launch; the 2000 each also names is on a path that ends first (it was read as a
/// launch, a `launch_impossible` no run makes). A tester's cases.
#[test]
fn paths_that_end_or_do_not_match_make_no_launch() {
    let ends = [
        ("or_pattern", "match n { 1 | 2 => {} _ => return }"),
        ("matches_macro", "if !matches!(n, 1 | 2) { return; }"),
        ("assert_eq", "assert_eq!(n, 5);"),
        ("assert_ne", "assert_ne!(n > 100, true);"),
        ("ensure", "ensure!(n <= 100, \"too big\");"),
        ("err_question_mark", "if n > 100 { Err(Oops)?; }"),
        ("exit", "if n > 100 { std::process::exit(1); }"),
        ("abort", "if n > 100 { std::process::abort(); }"),
        ("never_returns", "if n > 100 { fail(); }"),
        ("endless_loop", "if n > 100 { loop {} }"),
    ];
    let mut text = String::from(
        "pub struct Oops;
pub fn fail() -> ! { panic!(\"no\") }
macro_rules! ensure { ($c:expr, $m:expr) => { if !$c { return Err(Oops); } } }
",
    );
    for (name, end) in ends {
        text.push_str(&format!(
            "
#[occupancy::check(regs = 32, target = \"sm_80\")]
pub fn {name}(s: &Stream, n: u32) -> Result<(), Oops> {{
    {end}
    let b = if n > 100 {{ 2000 }} else {{ 256 }};
    s.launch(LaunchConfig {{ grid_dim: (1, 1, 1), block_dim: (b, 1, 1), shared_mem_bytes: 0 }});
    Ok(())
}}
"
        ));
    }
    text.push_str(
        "
#[occupancy::check(regs = 32, target = \"sm_80\")]
pub fn closure_assigns(s: &Stream) {
    let mut b = 2000;
    let mut fix = || b = 256;
    fix();
    s.launch(LaunchConfig { grid_dim: (1, 1, 1), block_dim: (b, 1, 1), shared_mem_bytes: 0 });
}

#[occupancy::check(regs = 32, target = \"sm_80\")]
pub fn tuple_match(s: &Stream, n: u32, m: bool) {
    let b = match (n, m) { (1, true) => 256, (2, false) => 512, _ => return };
    let smem = if n == 1 && !m { 200000 } else { 0 };
    s.launch(LaunchConfig { grid_dim: (1, 1, 1), block_dim: (b, 1, 1), shared_mem_bytes: smem });
}
",
    );
    let dir = crate_with("paths_that_end", &text);
    for (name, _) in ends {
        assert_eq!(launches(&ok(&dir, name)), [(256, 0)], "{name}");
    }
    // The closure's assignment: the block is not known after it (it was read as 2000).
    let errors = spec_of(&dir, "closure_assigns").err().expect("an error");
    assert!(
        errors.iter().any(|e| e.contains("known only at run time")),
        "{errors:?}"
    );
    // A tuple's match is not applied to its integer: (256, 200000) and (512, 200000) were
    // read, which no run makes; now the launch is not read, with the reason.
    let errors = spec_of(&dir, "tuple_match").err().expect("an error");
    assert!(
        errors
            .iter()
            .any(|e| e.starts_with("the conditions `(n, m) matching an arm` and `n == 1`")),
        "{errors:?}"
    );
}

/// `dt == DType::F16` is a match of `dt` against the variant, related to a `match dt`: each
/// path pairs its own kernel and block. A copy (`let d2 = dt;`) matched by another name is
/// not related by the reader: an error, not the crossed pairs it was read as. A division by
/// `n` panics where `n` is 0, in release too, so no path past it has `n == 0`. A candidate
/// the body's value cannot take (`block.min(1024)` is never 2000, a `u8` never 256) is an
/// error on the candidate; it was checked as a launch. A tester's cases.
#[test]
fn enum_tests_divisions_and_candidates_keep_to_launches_the_code_makes() {
    let dir = crate_with(
        "enums_and_candidates",
        &[
            LOADER,
            "#[derive(PartialEq, Clone, Copy)]
pub enum Dt { F16, F32, F64 }

#[occupancy::check(regs = 32, target = \"sm_80\")]
pub fn enum_eq(dev: &Dev, dt: Dt) {
    let name = if dt == Dt::F16 { \"k_a\" } else { \"k_b\" };
    let b = match dt { Dt::F16 => 1024, _ => 256 };
    let f = dev.get_or_load_func(name, &QUANTIZED).unwrap();
    let _ = f.builder().launch(LaunchConfig { grid_dim: (1, 1, 1), block_dim: (b, 1, 1), shared_mem_bytes: 0 });
}

#[occupancy::check(regs = 32, target = \"sm_80\")]
pub fn enum_copy(dev: &Dev, dt: Dt) {
    let d2 = dt;
    let name = match d2 { Dt::F16 => \"k_a\", _ => \"k_b\" };
    let b = match dt { Dt::F16 => 1024, _ => 256 };
    let f = dev.get_or_load_func(name, &QUANTIZED).unwrap();
    let _ = f.builder().launch(LaunchConfig { grid_dim: (1, 1, 1), block_dim: (b, 1, 1), shared_mem_bytes: 0 });
}

#[occupancy::check(regs = 32, target = \"sm_80\")]
pub fn divided(s: &Stream, n: u32) {
    let x = 1000 / n;
    let b = if n == 0 { 1024 } else { 256 };
    s.launch(LaunchConfig { grid_dim: (x, 1, 1), block_dim: (b, 1, 1), shared_mem_bytes: 0 });
}

#[occupancy::check(regs = 32, target = \"sm_80\", block = [256, 2000])]
pub fn capped(s: &Stream, block: u32) {
    let b = block.min(1024);
    s.launch(LaunchConfig { grid_dim: (1, 1, 1), block_dim: (b, 1, 1), shared_mem_bytes: 0 });
}

#[occupancy::check(regs = 32, target = \"sm_80\", block = [128, 256])]
pub fn narrow_type(s: &Stream, w: u8) {
    let b = w as u32;
    s.launch(LaunchConfig { grid_dim: (1, 1, 1), block_dim: (b, 1, 1), shared_mem_bytes: 0 });
}
",
        ]
        .concat(),
    );
    let mut got = kernels(&ok(&dir, "enum_eq"));
    got.sort();
    assert_eq!(
        got,
        [
            (Some("k_a".to_owned()), 1024),
            (Some("k_b".to_owned()), 256)
        ]
    );
    let errors = spec_of(&dir, "enum_copy").err().expect("an error");
    assert!(
        errors.iter().any(|e| e.starts_with(
            "the conditions `d2 matching an arm` and `dt matching an arm` both depend on `dt`"
        )),
        "{errors:?}"
    );
    assert_eq!(launches(&ok(&dir, "divided")), [(256, 0)]);
    for (name, message) in [
        (
            "capped",
            "the candidate 2000 is not a value this launch's block can take: the body computes \
             it as 0..=1023",
        ),
        (
            "narrow_type",
            "the candidate 256 is not a value this launch's block can take: the body computes \
             it as 0..=255",
        ),
    ] {
        let errors = spec_of(&dir, name).err().expect("an error");
        assert!(
            errors.iter().any(|e| e.starts_with(message)),
            "{name}: {errors:?}"
        );
    }
}

/// dfdx's run-time modules: `get_func(&format!("concat_{}", E::NAME), "fwd")` loads `fwd`
/// of one module per dtype, so the launch is the family `concat_*::fwd`: the `fwd` of every
/// module the pattern matches (`concat_float`, `concat_double`), never another module's
/// `fwd` (`sum_float`'s). It was "no kernel `fwd`" (or an ambiguous name) on the real crate.
/// Without a `kernel` key, the body's family is the one checked, and with no manifest the
/// error names that family.
#[test]
fn a_kernel_of_a_module_named_at_run_time_is_the_family_of_the_modules_it_matches() {
    let dir = crate_with(
        "run_time_module",
        "
pub struct CudaDevice;
pub struct CudaFunction;
pub trait CudaTypeName { const NAME: &'static str; }
impl CudaDevice { pub fn get_func(&self, _: &str, _: &str) -> Option<CudaFunction> { Some(CudaFunction) } }
impl CudaFunction { pub fn launch(self, _: LaunchConfig, _: (u32,)) -> Result<(), ()> { Ok(()) } }

#[occupancy::check(kernel = \"concat_*::fwd\", target = \"sm_80\")]
pub fn forward<E: CudaTypeName>(dev: &CudaDevice, n: u32) -> Result<(), ()> {
    let module_name = std::format!(\"concat_{}\", E::NAME);
    let fwd = dev.get_func(&module_name, \"fwd\").unwrap();
    let cfg = launch_cfg::<128>(n);
    fwd.launch(cfg, (n,))?;
    Ok(())
}

#[occupancy::check(target = \"sm_80\")]
pub fn unnamed<E: CudaTypeName>(dev: &CudaDevice, n: u32) -> Result<(), ()> {
    let module_name = std::format!(\"concat_{}\", E::NAME);
    let fwd = dev.get_func(&module_name, \"fwd\").unwrap();
    fwd.launch(launch_cfg::<128>(n), (n,))?;
    Ok(())
}
",
    );
    let kernel = |module: &str, regs: u32| {
        format!(
            r#"{{"artifact": "{module}.sm_80.cubin", "name": "fwd", "arch": "sm_80",
"toolkit": "12.9", "origin": "cubin", "registers_per_thread": {regs}, "static_smem_bytes": 0,
"local_bytes": 0, "cumulative_stack_bytes": 0, "spill_store_bytes": 0, "spill_load_bytes": 0,
"barriers": 0, "max_registers": 255, "const_bank0_bytes": 400, "param_bytes": 16}}"#
        )
    };
    let manifest = format!(
        r#"{{"format": 1, "generator": "a test", "sources": [], "kernels": [{}, {}, {}]}}"#,
        kernel("concat_float", 24),
        kernel("concat_double", 30),
        kernel("sum_float", 64)
    );
    std::fs::write(dir.join("kernels.manifest.json"), manifest).unwrap();
    for name in ["forward", "unnamed"] {
        let spec = ok(&dir, name);
        assert_eq!(launches(&spec), [(128, 0)], "{name}");
        let mut regs: Vec<u32> = spec
            .plan_kernels(0)
            .into_iter()
            .map(|k| {
                spec.kernels[k.expect("a member")].resources[0]
                    .as_ref()
                    .expect("resources on sm_80")
                    .registers_per_thread
            })
            .collect();
        regs.sort();
        assert_eq!(regs, [24, 30], "{name}");
    }
    // With no manifest, the error on the attribute names the qualified family to write.
    std::fs::remove_file(dir.join("kernels.manifest.json")).unwrap();
    let errors = spec_of(&dir, "unnamed").err().expect("no resources");
    assert!(
        errors
            .iter()
            .any(|e| e.starts_with("no resource manifest to read `concat_*::fwd` from")),
        "{errors:?}"
    );
}

/// candle's `next_power_of_2` (`let mut n = 1; while n < x { n *= 2 } n`, a crate helper
/// over a `usize`): `n` has `x`'s type, so the loop exits with one of the 64 powers of two
/// of a `usize` (the next doubling overflows); the block capped at 1024 and the shared
/// memory of 4 bytes per padded column are each path's, up to the `as u32` that wraps
/// 2^32 and more to 0. Also where the columns are a field of a parameter.
#[test]
fn a_doubling_loop_over_a_usize_exits_with_its_powers_of_two() {
    let dir = crate_with(
        "next_power_of_2",
        "
fn next_power_of_2(x: usize) -> usize {
    let mut n = 1;
    while n < x {
        n *= 2
    }
    n
}

#[occupancy::check(regs = 32, target = \"sm_80\")]
pub fn asort(s: &Stream, ncols: usize) {
    let ncols_pad = next_power_of_2(ncols);
    let block_dim = ncols_pad.min(1024);
    let cfg = LaunchConfig {
        grid_dim: (1, 1, 1),
        block_dim: (block_dim as u32, 1, 1),
        shared_mem_bytes: (ncols_pad * std::mem::size_of::<u32>()) as u32,
    };
    s.launch(cfg);
}

pub struct ArgSort { pub asc: bool, pub last_dim: usize }

#[occupancy::check(regs = 32, target = \"sm_80\")]
pub fn asort_op(s: &Stream, op: &ArgSort) {
    let grid = if op.asc { 1 } else { 2 };
    if op.last_dim > 1 << 40 { return; }
    let ncols = op.last_dim;
    let ncols_pad = next_power_of_2(ncols);
    let block_dim = ncols_pad.min(1024);
    let cfg = LaunchConfig {
        grid_dim: (grid, 1, 1),
        block_dim: (block_dim as u32, 1, 1),
        shared_mem_bytes: (ncols_pad * std::mem::size_of::<u32>()) as u32,
    };
    s.launch(cfg);
}
",
    );
    let mut want: Vec<(u32, u32)> = (0..=10).map(|k| (1 << k, 4 << k)).collect();
    want.extend((11..30).map(|k| (1024, 4 << k)));
    want.push((1024, 0));
    want.sort();
    let spec = ok(&dir, "asort");
    let mut got = launches(&spec);
    got.sort();
    assert_eq!(got, want);
    // The same through fields of a parameter (candle's `self.asc`, `self.last_dim`): two
    // fields are two run-time values, so tests of each are no pair of conditions on one
    // value whose ways go together in a way not known (it was "the conditions `op.asc` and
    // `op.last_dim > 1 << 40` both depend on `op`": not checked); the field, given to a
    // `usize` parameter, is a `usize`.
    let spec = ok(&dir, "asort_op");
    let mut got = launches(&spec);
    got.sort();
    got.dedup();
    assert_eq!(got, want);
}

/// Labels and loop values: a labeled block's value is each `break 'a value` and its tail
/// (it was its tail alone: the 64 launch was lost), a `loop`'s value its `break`'s, and a
/// launch after a `while let` loop is reached (it was "no launch found": the loop was
/// read as one left only by a `break`).
#[test]
fn a_labeled_break_and_a_loops_value_are_the_paths_values() {
    let dir = crate_with(
        "labels",
        "
#[occupancy::check(regs = 32, target = \"sm_80\")]
pub fn labeled(s: &Stream, x: bool) {
    let b = 'a: { if x { break 'a 64; } 128 };
    s.launch(LaunchConfig { grid_dim: (1, 1, 1), block_dim: (b, 1, 1), shared_mem_bytes: 0 });
}

#[occupancy::check(regs = 32, target = \"sm_80\")]
pub fn loop_value(s: &Stream) {
    let b = loop { break 256 };
    s.launch(LaunchConfig { grid_dim: (1, 1, 1), block_dim: (b, 1, 1), shared_mem_bytes: 0 });
}

#[occupancy::check(regs = 32, target = \"sm_80\")]
pub fn after_while_let(s: &Stream, v: Vec<u32>) {
    let mut it = v.iter();
    while let Some(_x) = it.next() {}
    s.launch(LaunchConfig { grid_dim: (1, 1, 1), block_dim: (96, 1, 1), shared_mem_bytes: 0 });
}

#[occupancy::check(regs = 32, target = \"sm_80\")]
pub fn inner_continue(s: &Stream, n: u32) {
    let mut b = 32;
    'rows: for _ in 0..2 {
        for _ in 0..2 {
            if n > 4 { continue 'rows; }
        }
    }
    b = 512;
    s.launch(LaunchConfig { grid_dim: (1, 1, 1), block_dim: (b, 1, 1), shared_mem_bytes: 0 });
}
",
    );
    let mut got = launches(&ok(&dir, "labeled"));
    got.sort();
    assert_eq!(got, [(64, 0), (128, 0)]);
    assert_eq!(launches(&ok(&dir, "loop_value")), [(256, 0)]);
    assert_eq!(launches(&ok(&dir, "after_while_let")), [(96, 0)]);
    assert_eq!(launches(&ok(&dir, "inner_continue")), [(512, 0)]);
}

#[test]
fn none_is_an_option_without_a_value_and_a_some_pattern_never_takes_it() {
    let dir = crate_with(
        "none",
        "
#[occupancy::check(regs = 32, target = \"sm_80\")]
pub fn let_else(s: &Stream, wide: bool) {
    let o = if wide { Some(256u32) } else { None };
    let Some(b) = o else { return };
    s.launch(LaunchConfig { grid_dim: (1, 1, 1), block_dim: (b, 1, 1), shared_mem_bytes: 0 });
}

#[occupancy::check(regs = 32, target = \"sm_80\")]
pub fn arms(s: &Stream, wide: bool) {
    let o = if wide { Some(512u32) } else { Option::None };
    let b = match o { Some(b) => b, None => 64 };
    s.launch(LaunchConfig { grid_dim: (1, 1, 1), block_dim: (b, 1, 1), shared_mem_bytes: 0 });
}

#[occupancy::check(regs = 32, target = \"sm_80\")]
pub fn if_let(s: &Stream, wide: bool) {
    let o: Option<u32> = if wide { None } else { Some(128) };
    let mut b = 32;
    if let Some(x) = o { b = x; }
    s.launch(LaunchConfig { grid_dim: (1, 1, 1), block_dim: (b, 1, 1), shared_mem_bytes: 0 });
}

#[occupancy::check(regs = 32, target = \"sm_80\")]
pub fn unwrapped(s: &Stream, wide: bool) {
    let o = if wide { Some(256u32) } else { None };
    let b = o.unwrap();
    s.launch(LaunchConfig { grid_dim: (1, 1, 1), block_dim: (b, 1, 1), shared_mem_bytes: 0 });
}

#[occupancy::check(regs = 32, target = \"sm_80\")]
pub fn parameter(s: &Stream, o: Option<u32>) {
    let Some(b) = o else { return };
    s.launch(LaunchConfig { grid_dim: (1, 1, 1), block_dim: (b, 1, 1), shared_mem_bytes: 0 });
}
",
    );
    // The `None` path returns: the one launch is the `Some`'s.
    assert_eq!(launches(&ok(&dir, "let_else")), [(256, 0)]);
    let mut got = launches(&ok(&dir, "arms"));
    got.sort();
    assert_eq!(got, [(64, 0), (512, 0)]);
    let mut got = launches(&ok(&dir, "if_let"));
    got.sort();
    assert_eq!(got, [(32, 0), (128, 0)]);
    // `None.unwrap()` panics: no launch on that path.
    assert_eq!(launches(&ok(&dir, "unwrapped")), [(256, 0)]);
    // A run-time `Option` stays run time.
    let errors = spec_of(&dir, "parameter").err().unwrap();
    assert!(
        errors[0].contains("`o` is a parameter of the wrapper, a run-time value"),
        "{errors:?}"
    );
}

#[test]
fn a_configuration_lent_mutably_is_a_launch_whose_values_are_run_time() {
    let dir = crate_with(
        "lent",
        "
pub fn widen(cfg: &mut LaunchConfig) { cfg.block_dim = (256, 1, 1); }

#[occupancy::check(regs = 32, target = \"sm_80\")]
pub fn through_a_reference(s: &Stream) {
    let mut cfg = LaunchConfig { grid_dim: (1, 1, 1), block_dim: (128, 1, 1), shared_mem_bytes: 0 };
    let c = &mut cfg;
    c.block_dim = (256, 1, 1);
    s.launch(cfg);
}

#[occupancy::check(regs = 32, target = \"sm_80\", block = [128, 256], smem = 0)]
pub fn through_a_helper(s: &Stream) {
    let mut cfg = LaunchConfig { grid_dim: (1, 1, 1), block_dim: (128, 1, 1), shared_mem_bytes: 0 };
    widen(&mut cfg);
    s.launch(cfg);
}
",
    );
    // Not \"no launch found\": the launch is there, its values are what is not followed.
    let errors = spec_of(&dir, "through_a_reference").err().unwrap();
    assert!(
        errors[0].starts_with("the block size of this launch is known only at run time (`cfg` is lent mutably (`&mut cfg`), which may change it)"),
        "{errors:?}"
    );
    // The attribute's candidates stand for it.
    let mut got: Vec<u32> = ok(&dir, "through_a_helper")
        .plans
        .iter()
        .map(|p| p.block[0].literal().unwrap())
        .collect();
    got.sort();
    assert_eq!(got, [128, 256]);
}

/// A `for` loop over values the reader knows (an array literal, a range with known ends) is
/// run element by element: `if n <= b { block = b; break; }` leaves with each `b` on the
/// path where the test first holds, and with the value before the loop where it never does.
#[test]
fn for_loops_over_known_values_are_stepped_through() {
    let dir = crate_with(
        "stepped_for",
        "#[occupancy::check(regs = 32, target = \"sm_80\")]
pub fn smallest(s: &Stream, n: u32) {
    let mut block = 1024;
    for b in [128, 256, 512] {
        if n <= b { block = b; break; }
    }
    s.launch(LaunchConfig { grid_dim: (n, 1, 1), block_dim: (block, 1, 1), shared_mem_bytes: 0 });
}

#[occupancy::check(regs = 32, target = \"sm_80\")]
pub fn by_shift(s: &Stream, n: u32) {
    let mut block = 32;
    for shift in 6..=9 {
        if n < (1 << shift) { continue; }
        block = 1 << shift;
    }
    s.launch(LaunchConfig { grid_dim: (n, 1, 1), block_dim: (block, 1, 1), shared_mem_bytes: block * 4 });
}

#[occupancy::check(regs = 32, target = \"sm_80\")]
pub fn labeled(s: &Stream, n: u32) {
    let mut block = 1024;
    'outer: for b in &[128u32, 256] {
        for k in (1..3).into_iter() {
            if n <= b * k { block = b * k; break 'outer; }
        }
    }
    s.launch(LaunchConfig { grid_dim: (n, 1, 1), block_dim: (block, 1, 1), shared_mem_bytes: 0 });
}

#[occupancy::check(regs = 32, target = \"sm_80\")]
pub fn from_constants(s: &Stream, n: u32) {
    let mut block = 64;
    for b in [WARP_SIZE as u32 * 4, MAX_BLOCK] {
        if n <= b { block = b; break; }
    }
    s.launch(LaunchConfig { grid_dim: (n, 1, 1), block_dim: (block, 1, 1), shared_mem_bytes: 0 });
}

#[occupancy::check(regs = 32, target = \"sm_80\")]
pub fn called(s: &Stream, n: u32) {
    let mut block = 64;
    for b in [launch_cfg::<128>(n).block_dim.0, 256] {
        if n <= b { block = b; break; }
    }
    s.launch(LaunchConfig { grid_dim: (n, 1, 1), block_dim: (block, 1, 1), shared_mem_bytes: 0 });
}

#[occupancy::check(regs = 32, target = \"sm_80\")]
pub fn largest_first(s: &Stream, n: u32) {
    let mut block = 32;
    for shift in (6..=9).rev() {
        if n >= (1 << shift) { block = 1 << shift; break; }
    }
    s.launch(LaunchConfig { grid_dim: (n, 1, 1), block_dim: (block, 1, 1), shared_mem_bytes: 0 });
}

#[occupancy::check(regs = 32, target = \"sm_80\")]
pub fn by_steps(s: &Stream, n: u32) {
    let mut block = 2048;
    for b in (256..=1024).step_by(256) {
        if n <= b { block = b; break; }
    }
    for w in [1, 2, 3, 4, 5].iter().step_by(2) { let _ = w; }
    s.launch(LaunchConfig { grid_dim: (n, 1, 1), block_dim: (block, 1, 1), shared_mem_bytes: 0 });
}

#[occupancy::check(regs = 32, target = \"sm_80\")]
pub fn fine_steps(s: &Stream, n: u32) {
    let mut block = 1024;
    for b in (32..=1024).step_by(8) {
        if n <= b { block = b; break; }
    }
    s.launch(LaunchConfig { grid_dim: (n, 1, 1), block_dim: (block, 1, 1), shared_mem_bytes: 0 });
}

#[occupancy::check(regs = 32, target = \"sm_80\")]
pub fn empty_and_huge(s: &Stream, n: u32) {
    let mut block = 64;
    for b in 5..2 { block = b; }
    for i in 0..18446744073709551615u64 { if i > 3 { break; } }
    for j in -170141183460469231731687303715884105727i128..=170141183460469231731687303715884105727i128 { if j > 0 { break; } }
    s.launch(LaunchConfig { grid_dim: (n, 1, 1), block_dim: (block, 1, 1), shared_mem_bytes: 0 });
}

#[occupancy::check(regs = 32, target = \"sm_80\")]
pub fn too_long(s: &Stream, n: u32) {
    let mut block = 1024;
    for b in 1..100u32 {
        if n <= b * 32 { block = b * 32; break; }
    }
    s.launch(LaunchConfig { grid_dim: (n, 1, 1), block_dim: (block, 1, 1), shared_mem_bytes: 0 });
}
",
    );
    assert_eq!(
        launches(&ok(&dir, "smallest")),
        [(128, 0), (256, 0), (512, 0), (1024, 0)]
    );
    // `continue` goes on with the next value: the last `shift` whose test passed.
    let mut got = launches(&ok(&dir, "by_shift"));
    got.sort_unstable();
    assert_eq!(
        got,
        [(32, 128), (64, 256), (128, 512), (256, 1024), (512, 2048)]
    );
    // `break 'outer` leaves both loops; 128 * 2 and 256 * 1 are one block.
    let mut got = launches(&ok(&dir, "labeled"));
    got.sort_unstable();
    got.dedup();
    assert_eq!(got, [(128, 0), (256, 0), (512, 0), (1024, 0)]);
    // Values read from constants carry them: the compiler confirms each.
    let spec = ok(&dir, "from_constants");
    assert_eq!(launches(&spec), [(128, 0), (1024, 0), (64, 0)]);
    let confirmed: Vec<(&str, i128)> = spec
        .confirmations
        .iter()
        .map(|c| (c.text.as_str(), c.value))
        .collect();
    assert!(
        confirmed.contains(&("WARP_SIZE as u32 * 4", 128))
            && confirmed.contains(&("MAX_BLOCK", 1024)),
        "{confirmed:?}"
    );
    // A call among the values is not evaluated aside: the loop is read once.
    let errors = spec_of(&dir, "called").err().unwrap();
    assert!(
        errors[0].contains("`block` is assigned in a loop whose exit the reader cannot bound"),
        "{errors:?}"
    );
    // `.rev()` takes the values last first; `.step_by(n)` every n-th (a block of 2048 on
    // the path past 1024, which launch_impossible reports there).
    assert_eq!(
        launches(&ok(&dir, "largest_first")),
        [(512, 0), (256, 0), (128, 0), (64, 0), (32, 0)]
    );
    assert_eq!(
        launches(&ok(&dir, "by_steps")),
        [(256, 0), (512, 0), (768, 0), (1024, 0), (2048, 0)]
    );
    // 125 values of a step of 8: more than the reader steps through.
    let errors = spec_of(&dir, "fine_steps").err().unwrap();
    assert!(
        errors[0].contains("`block` is assigned in a loop whose exit the reader cannot bound"),
        "{errors:?}"
    );
    // An empty range runs no iteration; ranges past any bound are read once, without
    // overflowing.
    assert_eq!(launches(&ok(&dir, "empty_and_huge")), [(64, 0)]);
    // 99 values: more than the reader steps through (64), so the block is a run-time value.
    let errors = spec_of(&dir, "too_long").err().unwrap();
    assert!(
        errors[0].contains("`block` is assigned in a loop whose exit the reader cannot bound"),
        "{errors:?}"
    );
}

/// A loop the reader cannot bound makes every name its body may assign unknown after it,
/// also inside a labelled loop or block, a `return` or `break` value, a struct literal or an
/// `assert!` (a labelled loop's assignments were missed before 2026-12-06: the block after
/// the outer loop was read as 32 alone, never 256).
#[test]
fn an_unbounded_loop_forgets_what_labelled_loops_and_blocks_in_it_assign() {
    let dir = crate_with(
        "labelled_in_loop",
        "#[occupancy::check(regs = 32, target = \"sm_80\")]
pub fn labelled_loop(s: &Stream, n: u32, m: u32) {
    let mut block = 32;
    let mut k = 0;
    while k < m * n {
        'inner: loop { block = 256; break 'inner; }
        k += 7;
    }
    s.launch(LaunchConfig { grid_dim: (n, 1, 1), block_dim: (block, 1, 1), shared_mem_bytes: 0 });
}

#[occupancy::check(regs = 32, target = \"sm_80\")]
pub fn labelled_block(s: &Stream, n: u32, m: u32) {
    let mut block = 32;
    let mut k = 0;
    while k < m * n {
        'b: { if k > 3 { break 'b; } block = 128; }
        k += 7;
    }
    s.launch(LaunchConfig { grid_dim: (n, 1, 1), block_dim: (block, 1, 1), shared_mem_bytes: 0 });
}

#[occupancy::check(regs = 32, target = \"sm_80\")]
pub fn untouched(s: &Stream, n: u32, m: u32) {
    let mut block = 32;
    let mut k = 0;
    while k < m * n {
        'inner: loop { k += 7; break 'inner; }
    }
    s.launch(LaunchConfig { grid_dim: (n, 1, 1), block_dim: (block, 1, 1), shared_mem_bytes: 0 });
}
",
    );
    for name in ["labelled_loop", "labelled_block"] {
        let errors = spec_of(&dir, name).err().unwrap();
        assert!(
            errors[0].contains("`block` is assigned in a loop whose exit the reader cannot bound"),
            "{name}: {errors:?}"
        );
    }
    // A loop that assigns only its counter leaves the block as it was.
    assert_eq!(launches(&ok(&dir, "untouched")), [(32, 0)]);
}

/// An input divided by a literal (`k / 2`) is that input moved: a comparison of the
/// quotient narrows the input, so that conditions on it and on other quotients of it go
/// together (before 2026-12-07 the second condition made every launch "not checked").
#[test]
fn a_quotient_of_an_input_narrows_the_input() {
    let dir = crate_with(
        "quotients",
        "fn pick(k: u32) -> u32 {
    let half = k / 2;
    if half <= 32 { return 32; }
    if half <= 64 { return 64; }
    256
}

#[occupancy::check(regs = 32, target = \"sm_80\")]
pub fn by_helper(s: &Stream, k: u32) {
    let block = pick(k);
    s.launch(LaunchConfig { grid_dim: (k, 1, 1), block_dim: (block, 1, 1), shared_mem_bytes: 0 });
}

#[occupancy::check(regs = 32, target = \"sm_80\")]
pub fn inline(s: &Stream, k: u32) {
    let quarter = k / 4;
    let block = if quarter < 8 { 32 } else if k / 4 < 64 { 256 } else { 1024 };
    s.launch(LaunchConfig { grid_dim: (k, 1, 1), block_dim: (block, 1, 1), shared_mem_bytes: 0 });
}
",
    );
    assert_eq!(
        launches(&ok(&dir, "by_helper")),
        [(32, 0), (64, 0), (256, 0)]
    );
    assert_eq!(
        launches(&ok(&dir, "inline")),
        [(32, 0), (256, 0), (1024, 0)]
    );
}

/// `n.min(512)` of a run-time `n` is the `if` that clamps: 512 where `n >= 512`, a path of
/// its own and checked, and `n` below 512 on the other, where the attribute's candidates
/// stand for it (C++'s `std::min(n, 512)` is read the same way). The key lists the
/// candidates only: 512 is the body's (before 2026-12-07 the clamp written as an `if` was
/// "drift" with `block = [64, 128]`, and 512 "not a value the block can take" in it). A clamp
/// of a product of two inputs, whose condition the reader cannot apply to either, is two
/// paths too (before 2026-12-07, the seventeenth session, it stayed one run-time value and
/// 512 was not checked): a later test of all but one of them applies it, and one that
/// contradicts it ends its path (the next test).
#[test]
fn a_clamp_of_an_input_is_two_paths() {
    let dir = crate_with(
        "clamps",
        "#[occupancy::check(regs = 32, target = \"sm_80\", block = [64, 128])]
pub fn clamped(s: &Stream, n: u32) {
    let block = n.min(512);
    s.launch(LaunchConfig { grid_dim: (n, 1, 1), block_dim: (block, 1, 1), shared_mem_bytes: 0 });
}

#[occupancy::check(regs = 32, target = \"sm_80\", block = [64, 128])]
pub fn clamped_by_if(s: &Stream, n: u32) {
    let block = if n >= 512 { 512 } else { n };
    s.launch(LaunchConfig { grid_dim: (n, 1, 1), block_dim: (block, 1, 1), shared_mem_bytes: 0 });
}

#[occupancy::check(regs = 32, target = \"sm_80\", block = [64, 128])]
pub fn product(s: &Stream, n: u32, m: u32) {
    let block = (n * m).min(512);
    s.launch(LaunchConfig { grid_dim: (n, 1, 1), block_dim: (block, 1, 1), shared_mem_bytes: 0 });
}
",
    );
    for name in ["clamped", "clamped_by_if"] {
        let mut got = launches(&ok(&dir, name));
        got.sort();
        assert_eq!(got, [(64, 0), (128, 0), (512, 0)], "{name}");
    }
    let mut got = launches(&ok(&dir, "product"));
    got.sort();
    assert_eq!(got, [(64, 0), (128, 0), (512, 0)]);
}

/// A clamp of a product of two inputs, then tests of one of them: where the other's value
/// is then known the clamp's condition applies to the first (`n * 8 < 512`: `n` below 64 on
/// the clamped path), so that a later `n > 100` ends that path (no run of the code clamps
/// below 512 there) instead of making it uncertain.
#[test]
fn a_clamp_of_a_product_applies_once_all_but_one_input_is_known() {
    let dir = crate_with(
        "product_clamps",
        "#[occupancy::check(regs = 32, target = \"sm_80\")]
pub fn big(s: &Stream, n: u32, m: u32) {
    let block = (n * m).min(512);
    if m == 8 && n > 100 {
        s.launch(LaunchConfig { grid_dim: (1, 1, 1), block_dim: (block, 1, 1), shared_mem_bytes: 0 });
    }
}
",
    );
    assert_eq!(launches(&ok(&dir, "big")), [(512, 0)]);
}

/// A loop the reader cannot bound runs its body only where its first test holds on the
/// values before it: a width of 1 never enters `while k <= width` from `k = 2`, so no
/// launch of a block of 1 is read (before 2026-12-07 the test was read on what the loop
/// assigns, unknown, and a launch of 1 thread, which no run makes, was checked). Where the
/// first test fails the loop leaves the values as they were.
#[test]
fn a_loop_runs_its_body_only_where_its_first_test_holds() {
    let dir = crate_with(
        "first_test",
        "#[occupancy::check(regs = 32, target = \"sm_80\")]
pub fn padded(s: &Stream, n: u32, small: bool) {
    let width: u32 = if small { 1 } else { 256 };
    let mut k = 2;
    while k <= width {
        s.launch(LaunchConfig { grid_dim: (n, 1, 1), block_dim: (width, 1, 1), shared_mem_bytes: 0 });
        k = k * n + 1;
    }
}

#[occupancy::check(regs = 32, target = \"sm_80\")]
pub fn after(s: &Stream, n: u32) {
    let mut block = 128;
    while block > 1024 {
        block = block * n;
    }
    s.launch(LaunchConfig { grid_dim: (n, 1, 1), block_dim: (block, 1, 1), shared_mem_bytes: 0 });
}
",
    );
    assert_eq!(launches(&ok(&dir, "padded")), [(256, 0)]);
    assert_eq!(launches(&ok(&dir, "after")), [(128, 0)]);
}

/// A run-time value computed from an input before a condition narrows the input is computed
/// again with the narrowed input (`bytes` of `width * 4` is 256 where `width == 64`), as is
/// a value computed from it in turn (`smem`); before 2026-12-07 it stayed run time.
#[test]
fn values_computed_from_an_input_follow_its_narrowing() {
    let dir = crate_with(
        "derived",
        "const HEADER: u32 = 128;

#[occupancy::check(regs = 32, target = \"sm_80\")]
pub fn per_width(s: &Stream, n: u32, width: u32) {
    let bytes = width * 4;
    let smem = bytes + HEADER;
    if width == 64 {
        s.launch(LaunchConfig { grid_dim: (n, 1, 1), block_dim: (64, 1, 1), shared_mem_bytes: smem });
    } else if width == 128 {
        s.launch(LaunchConfig { grid_dim: (n, 1, 1), block_dim: (128, 1, 1), shared_mem_bytes: bytes });
    }
}
",
    );
    let spec = ok(&dir, "per_width");
    assert_eq!(launches(&spec), [(64, 384), (128, 512)]);
    // `HEADER`, read in `smem`'s initialiser, is confirmed by the compiler.
    assert!(
        spec.confirmations
            .iter()
            .any(|c| c.text == "HEADER" && c.value == 128),
        "{:?}",
        spec.confirmations
            .iter()
            .map(|c| (&c.text, c.value))
            .collect::<Vec<_>>()
    );
}

/// An `else if` chain of equality tests on an input, or on a value it moves to (`(d + 31)
/// / 32`): each way that fails excludes one value, which a range cannot show; two such
/// exclusions hold together while the range keeps another value (before 2026-12-07 the
/// third test made every launch after it "not checked"). Where the range holds nothing
/// but the values excluded, the last arm is a launch no run makes.
#[test]
fn an_else_if_chain_of_equalities_is_read_arm_by_arm() {
    let arms = |c: &str| {
        format!(
            "if {c} == 1 {{ 32 }} else if {c} == 2 {{ 64 }} else if {c} == 4 {{ 128 }} else {{ 256 }}"
        )
    };
    let dir = crate_with(
        "else_if_chain",
        &format!(
            "#[occupancy::check(regs = 32, target = \"sm_80\")]
pub fn direct(s: &Stream, c: u32) {{
    let block = {direct};
    s.launch(LaunchConfig {{ grid_dim: (1, 1, 1), block_dim: (block, 1, 1), shared_mem_bytes: 0 }});
}}

#[occupancy::check(regs = 32, target = \"sm_80\")]
pub fn moved(s: &Stream, d_state: u32) {{
    let c = (d_state + 31) / 32;
    let block = {moved};
    s.launch(LaunchConfig {{ grid_dim: (1, 1, 1), block_dim: (block, 1, 1), shared_mem_bytes: 0 }});
}}

#[occupancy::check(regs = 32, target = \"sm_80\")]
pub fn covered(s: &Stream, c: u32) {{
    if c < 1 || c > 3 {{ return; }}
    let block = if c == 1 {{ 32 }} else if c == 2 {{ 64 }} else if c == 3 {{ 128 }} else {{ 256 }};
    s.launch(LaunchConfig {{ grid_dim: (1, 1, 1), block_dim: (block, 1, 1), shared_mem_bytes: 0 }});
}}
",
            direct = arms("c"),
            moved = arms("c"),
        ),
    );
    for name in ["direct", "moved"] {
        let mut got = launches(&ok(&dir, name));
        got.sort();
        assert_eq!(got, [(32, 0), (64, 0), (128, 0), (256, 0)], "{name}");
    }
    let mut got = launches(&ok(&dir, "covered"));
    got.sort();
    assert_eq!(got, [(32, 0), (64, 0), (128, 0)]);
}

/// A helper's test that contradicts what its caller's `else` excluded (`k != 128` and `k !=
/// 64`, which the range of `k` cannot hold, then the helper's `k == 128`) ends that path: no
/// run of the code goes there, so only the helper's other arm launches, and nothing is left
/// uncertain.
#[test]
fn a_helpers_test_contradicting_its_callers_exclusions_ends_the_path() {
    let dir = crate_with(
        "contradicted",
        "fn fallback(k: u32) -> u32 {
    if k == 128 { 1024 } else { 96 }
}

#[occupancy::check(regs = 32, target = \"sm_80\")]
pub fn pick(s: &Stream, k: u32) {
    if k == 128 {
        s.launch(LaunchConfig { grid_dim: (1, 1, 1), block_dim: (128, 1, 1), shared_mem_bytes: 0 });
    } else if k == 64 {
        s.launch(LaunchConfig { grid_dim: (1, 1, 1), block_dim: (64, 1, 1), shared_mem_bytes: 0 });
    } else {
        let block = fallback(k);
        s.launch(LaunchConfig { grid_dim: (1, 1, 1), block_dim: (block, 1, 1), shared_mem_bytes: 0 });
    }
}
",
    );
    let mut got = launches(&ok(&dir, "pick"));
    got.sort();
    assert_eq!(got, [(64, 0), (96, 0), (128, 0)]);
}

/// A value excluded by a failed equality (`blocks == 0`, the grid guarded to at least 1),
/// then a test the values hold (`blocks > 65535`): the two hold together while the input's
/// range keeps other values, so the launch is checked (before 2026-12-07, the seventeenth
/// session, the two made it uncertain: "not checked").
#[test]
fn an_exclusion_and_a_later_test_of_the_same_input_hold_together() {
    let dir = crate_with(
        "exclusion_then_test",
        "#[occupancy::check(regs = 32, target = \"sm_80\")]
pub fn scales(s: &Stream, n: i64) {
    let mut blocks = (n + 511) / 512;
    if blocks == 0 {
        blocks = 1;
    }
    if blocks > 65535 {
        blocks = 65535;
    }
    s.launch(LaunchConfig { grid_dim: (blocks as u32, 1, 1), block_dim: (512, 1, 1), shared_mem_bytes: 4096 });
}
",
    );
    assert_eq!(
        launches(&ok(&dir, "scales")),
        [(512, 4096), (512, 4096), (512, 4096)]
    );
}
