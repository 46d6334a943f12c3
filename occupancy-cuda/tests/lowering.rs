//! The C++ front end's lowering beside the interpreter (issue 25, stage 3): what the
//! reading core records on the lowered roots against what `interp.rs` reads, site by site.

use occupancy_core::policy::Policy;
use occupancy_cuda::lowering_census_texts;

const UNIT: &str = r#"
__global__ void k(int n) {}
constexpr int BS = 256;
#define MBS 64
inline int cdiv(int a, int b) { return (a + b - 1) / b; }
extern "C" void direct(int n) { k<<<n, 256>>>(n); }
extern "C" void named(int n) { const int threads = n < 1024 ? 128 : 1024; k<<<n, threads>>>(n); }
extern "C" void dims(int n) { dim3 block(32, 4); dim3 grid(n); k<<<grid, block, 0>>>(n); }
extern "C" void konst(int n) { k<<<cdiv(n, BS), BS>>>(n); }
extern "C" void mac(int n) { int blocks = cdiv(n, MBS); k<<<blocks, MBS, MBS * 4>>>(n); }
extern "C" void picked(int kind, int n) {
  int block;
  switch (kind) { case 0: block = 32; break; case 1: block = 64; break; default: block = 512; }
  k<<<n, block>>>(n);
}
extern "C" void mixed(int n) { size_t bytes = 128 * sizeof(float); k<<<n, 128, bytes>>>(n); }
extern "C" void wrapped(int n) { unsigned int all = -1; k<<<n, all / 16777216 + 1>>>(n); }
extern "C" void clamp(int n) { int threads = std::min(n, 512); k<<<n, threads>>>(n); }
void helper(int n) { k<<<n, 96>>>(n); }
extern "C" void calls(int n) { helper(n); }
"#;

#[test]
fn the_core_on_lowered_roots_makes_what_the_interpreter_reads() {
    let census = lowering_census_texts(&[("a.cu", UNIT)], &Policy::default());
    let side = &census.side_by_side;
    assert_eq!(side.sites, 10, "{side:?}");
    // direct, named (both ways of the condition), dims, konst (a constant and a helper),
    // mac (a macro's value), picked (a switch: 32, 64 or 512), mixed (`128 * sizeof(float)`
    // multiplies an `int` by a `size_t`: C++ converts the `int`, so 512 bytes), wrapped
    // (`-1` stored in an `unsigned` is 2^32 - 1: a block of 255 + 1), clamp (`std::min(n,
    // 512)`: 512, and `n` below it), and the
    // launch in `helper`, which the root `calls` calls (a C++ root's launches are recorded
    // in its callees too).
    assert_eq!(side.same, 10, "{side:?}");
    assert!(side.different.is_empty(), "{side:?}");
    assert!(side.not_recorded.is_empty(), "{side:?}");
    assert_eq!(census.launches_lowered, 10);
    assert_eq!(census.whole, census.functions);
}

/// A launcher template whose block is a template parameter with a default (paged
/// attention's `int NUM_THREADS = 128`, the call writing the leading arguments only), and
/// a block the most vexing parse reads as a parameter of a macro's type
/// (`dim3 block(WARP_SIZE * ROWS)`).
const TEMPLATES: &str = r#"
#define WARP_SIZE 32
template <typename T, int HEAD, int THREADS> __global__ void k(T *x) {}
template <typename T, int HEAD, int THREADS = 128, int SPLIT = THREADS / 2>
void launcher(T *x, int n) {
  dim3 block(THREADS);
  k<T, HEAD, THREADS><<<n, block, SPLIT * 4>>>(x);
}
extern "C" void defaults(float *x, int n) { launcher<float, 64>(x, n); }
extern "C" void written(float *x, int n) { launcher<float, 64, 256, 8>(x, n); }
extern "C" void vexing(float *x, int n) {
  constexpr int ROWS = 8;
  dim3 block(WARP_SIZE * ROWS);
  k<float, 64, 256><<<n, block>>>(x);
}
"#;

#[test]
fn template_defaults_and_macros_in_vexing_declarations_are_read() {
    let census = lowering_census_texts(&[("a.cu", TEMPLATES)], &Policy::default());
    let side = &census.side_by_side;
    assert_eq!(side.sites, 2, "{side:?}");
    // The launch in `launcher` is one site: 128 threads from the default and 256 written;
    // `SPLIT`'s default names `THREADS`, the callee's, which the caller does not have: the
    // core leaves it unknown (the interpreter reads it), so the shared memory differs where
    // the default is taken.
    assert_eq!(side.same, 1, "{side:?}");
    assert_eq!(
        side.different,
        ["a.cu:7: interpreter [128, 1, 1]/256 [256, 1, 1]/32 core [128, 1, 1]/? [256, 1, 1]/32"]
    );
}

/// A root whose parameters the policy says hold device attributes (`[device_params]`): the
/// core reads it once per target's values, as the interpreter does.
#[test]
fn declared_device_params_are_read_per_target() {
    let unit = r#"
__global__ void mm(float *x) {}
extern "C" void launch_mm_f32(float *x, int n, int cc, int warp) {
  const int smem = cc >= 900 ? 65536 : 32768;
  mm<<<n, dim3(warp, 256 / warp, 1), smem>>>(x);
}
"#;
    let policy = occupancy_core::policy::Policy::from_toml(
        r#"
targets = ["sm_80", "sm_90"]
[device_params."launch_mm_*"]
cc = "compute_capability_x100"
warp = "warp_size"
"#,
    )
    .expect("a valid policy");
    // sm_80: 32 KiB; sm_90: 64 KiB; a warp of 32 on both, so 8 warps of it.
    let reading = occupancy_cuda::read_texts_with_policy(&[("a.cu", unit)], &policy);
    let made: Vec<_> = reading.launches[0]
        .paths
        .iter()
        .map(|p| (p.block.known(), p.dynamic_smem_bytes.known()))
        .collect();
    assert_eq!(
        made,
        [
            (Some([32, 8, 1]), Some(32768)),
            (Some([32, 8, 1]), Some(65536))
        ]
    );
    // The core makes the same set.
    let census = lowering_census_texts(&[("a.cu", unit)], &policy);
    let side = &census.side_by_side;
    assert_eq!((side.sites, side.same), (1, 1), "{side:?}");
}

/// `sizeof` of the unit's own structs (padding, an anonymous union, an array sized by a
/// macro, a member `#if` the policy's `defines` decide, a typedef of a struct), `alignof`,
/// and `~` in a round-up macro: the core's lowering lays them out as the interpreter does.
const LAYOUTS: &str = r#"
#define QK 32
#define PAD(x, n) (((x) + (n) - 1) & ~((n) - 1))
typedef struct { __half d; int8_t qs[QK]; } block_a;
struct block_b { union { float f4[4]; __half2 h4[4]; }; int8_t qs[4 * QK]; };
struct padded { char c; double x; };
struct picked {
#ifdef WIDE
  int w[8];
#else
  int w[2];
#endif
  char tail;
};
typedef struct padded padded_t;
__global__ void k(int n) {}
extern "C" void go(int n) {
  k<<<n, 32, sizeof(block_a) * 4>>>(n);
  k<<<n, 64, sizeof(block_b)>>>(n);
  k<<<n, 96, sizeof(padded_t) + alignof(padded)>>>(n);
  k<<<n, 128, sizeof(struct picked)>>>(n);
  k<<<n, 160, PAD(sizeof(block_a) * 3, 64)>>>(n);
}
"#;

#[test]
fn the_units_structs_are_laid_out_for_sizeof() {
    let policy = Policy::from_toml("defines = [\"WIDE\"]").expect("a valid policy");
    let reading = occupancy_cuda::read_texts_with_policy(&[("a.cu", LAYOUTS)], &policy);
    let smem: Vec<_> = reading
        .launches
        .iter()
        .map(|l| l.paths[0].dynamic_smem_bytes.known())
        .collect();
    // 34 * 4; a union of 16 aligned to 4, then 128; 16 + 8; 8 ints and a char, rounded to
    // 4; 102 rounded up to 64.
    assert_eq!(smem, [Some(136), Some(144), Some(24), Some(36), Some(128)]);
    let census = lowering_census_texts(&[("a.cu", LAYOUTS)], &policy);
    let side = &census.side_by_side;
    assert_eq!((side.sites, side.same), (5, 5), "{side:?}");
    assert_eq!(census.whole, census.functions, "{:?}", census.not_lowered);
}

/// An enumerator as a template argument (`nbytes<Q_B>`, which the grammar parses as a type)
/// and a function returning `bool` as a condition (`fast(cc) ? .. : ..`, compared with 0
/// as C++ converts it): one value each, as the interpreter reads them.
#[test]
fn enumerator_template_arguments_and_bool_conditions_are_read() {
    let unit = r#"
enum qtype { Q_A = 2, Q_B = 3 };
static bool fast(const int cc) { return cc >= 750; }
static int tile_k(qtype t) { switch (t) { case Q_A: return 40; case Q_B: return 72; default: return 0; } }
template <qtype type> static int nbytes(int cc) { return fast(cc) ? tile_k(type) * 4 : 16; }
template <qtype type> __global__ void mm(float *p) {}
extern "C" void launch_mm(float *p) { mm<Q_B><<<1, 256, nbytes<Q_B>(800)>>>(p); }
"#;
    let reading = occupancy_cuda::read_texts_with_policy(&[("a.cu", unit)], &Policy::default());
    let smem: Vec<_> = reading.launches[0]
        .paths
        .iter()
        .map(|p| p.dynamic_smem_bytes.known())
        .collect();
    assert_eq!(smem, [Some(288)]);
    let census = lowering_census_texts(&[("a.cu", unit)], &Policy::default());
    let side = &census.side_by_side;
    assert_eq!((side.sites, side.same), (1, 1), "{side:?}");
}

/// A launcher template over types whose types the call deduces, calling a doubling helper
/// whose `uint32_t` parameter is given an `int` (C++ converts it, wrapping where it is
/// negative): the block is each power of two up to 1024, as the interpreter reads it.
#[test]
fn a_doubling_helper_of_a_converted_parameter_in_a_deduced_template_is_read() {
    let unit = r#"
int pow2_at_least(const uint32_t want) {
  int p = 1;
  while (p < want) {
    p <<= 1;
  }
  return p;
}
__global__ void k(const float *x, int n) {}
template <typename T>
void run(const T *x, int n) {
  int threads = pow2_at_least(n);
  if (threads > 1024) {
    threads = 1024;
  }
  k<<<(n + threads - 1) / threads, threads>>>(x, n);
}
extern "C" void go(const float *x, int n) { run(x, n); }
"#;
    let reading = occupancy_cuda::read_texts_with_policy(&[("a.cu", unit)], &Policy::default());
    let blocks: Vec<_> = reading.launches[0]
        .paths
        .iter()
        .filter_map(|p| p.block.known())
        .map(|b| b[0])
        .collect();
    assert_eq!(blocks, [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024]);
    let census = lowering_census_texts(&[("a.cu", unit)], &Policy::default());
    let side = &census.side_by_side;
    assert_eq!((side.sites, side.same), (1, 1), "{side:?}");
}

/// A root whose `else` calls another root with what it excluded (`k != 128`, `k != 64`),
/// the callee testing `k == 128` again: the core ends the path the caller's `else`
/// contradicts, and reads the rest as the interpreter does (gdn.cu's fallback).
#[test]
fn a_callees_test_contradicting_its_callers_else_ends_the_path() {
    let unit = r#"
template <int BK> __global__ void tiled(float *x) {}
__global__ void general(float *x) {}
extern "C" void recurrence(float *x, int k) {
  if (k == 128) {
    tiled<128><<<1, 64>>>(x);
  } else {
    general<<<1, 256, 2 * k * sizeof(float)>>>(x);
  }
}
extern "C" void chunked(float *x, int k) {
  if (k == 128) {
    tiled<128><<<1, 32>>>(x);
  } else if (k == 64) {
    tiled<64><<<1, 32>>>(x);
  } else {
    recurrence(x, k);
  }
}
"#;
    let census = lowering_census_texts(&[("a.cu", unit)], &Policy::default());
    let side = &census.side_by_side;
    assert_eq!((side.sites, side.same), (4, 4), "{side:?}");
}

/// A clamp of a product of two inputs (`std::min(num_heads * rot_dim, 512)`, rotary's block)
/// is two paths, 512 and the run-time product below it, as the interpreter reads it; and
/// where a later test fixes one input (`head_size == 128`) the clamp's condition applies to
/// the other instead of making the launch uncertain. (Not yet: a `switch` on that input,
/// whose failed cases exclude one value each, which the core cannot weigh against the
/// clamp: its later cases are not checked.)
#[test]
fn a_clamp_of_a_product_is_two_paths() {
    let unit = r#"
template <typename T, int HEAD> __global__ void rot(T *q) {}
extern "C" void rotary(float *q, int num_heads, int rot_dim, int dtype) {
  dim3 block(std::min(num_heads * rot_dim, 512));
  if (dtype == 0) {
    rot<float, 0><<<1, block>>>(q);
  }
}
extern "C" void per_head(float *q, int num_heads, int head_size) {
  dim3 wide(std::min(num_heads * head_size, 1024));
  if (head_size == 128) {
    rot<float, 128><<<1, wide>>>(q);
  }
}
"#;
    let census = lowering_census_texts(&[("a.cu", unit)], &Policy::default());
    let side = &census.side_by_side;
    assert_eq!((side.sites, side.same), (2, 2), "{side:?}");
    let reading = occupancy_cuda::read_texts_with_policy(&[("a.cu", unit)], &Policy::default());
    let blocks: Vec<_> = reading.launches[0]
        .paths
        .iter()
        .map(|p| p.block.known())
        .collect();
    assert_eq!(blocks, [Some([512, 1, 1]), None]);
}

/// A device attribute query (`cudaDeviceGetAttribute`) is read once per target, from the GPU
/// tables, as the interpreter reads it; a name whose address a call is given (`init(&w)`)
/// is unknown after it to the core, not the value it had, which the interpreter keeps (its
/// known gap, rule 4 of docs/READING-CORE.md: the one difference).
#[test]
fn device_queries_are_read_per_target_and_lent_names_are_unknown() {
    let unit = r#"
__global__ void k(float *x) {}
static void init(int *n) { *n = 4; }
extern "C" void go(float *x) {
  int smem = 0;
  cudaDeviceGetAttribute(&smem, cudaDevAttrMaxSharedMemoryPerBlockOptin, 0);
  k<<<1, 128, smem>>>(x);
  int w = 32;
  init(&w);
  k<<<1, w * 4>>>(x);
}
"#;
    let policy = Policy::from_toml(r#"targets = ["sm_80", "sm_90"]"#).expect("a valid policy");
    let census = lowering_census_texts(&[("a.cu", unit)], &policy);
    let side = &census.side_by_side;
    assert_eq!((side.sites, side.same), (2, 1), "{side:?}");
    assert_eq!(
        side.different,
        ["a.cu:10: interpreter [128, 1, 1]/0 core ?/0"]
    );
    let reading = occupancy_cuda::read_texts_with_policy(&[("a.cu", unit)], &policy);
    let smem: Vec<_> = reading.launches[0]
        .paths
        .iter()
        .map(|p| p.dynamic_smem_bytes.known())
        .collect();
    // The opt-in per block: 163 KiB on sm_80, 227 KiB on sm_90.
    assert_eq!(smem, [Some(166912), Some(232448)]);
}

/// A `#if` in a body: the branch the build compiles where the policy's `defines` decide it,
/// each written branch where nothing does, as the interpreter reads them.
#[test]
fn preprocessor_branches_in_a_body_follow_the_build() {
    let unit = r#"
template <typename T> __global__ void k(T *x) {}
extern "C" void go(float *x, int dtype) {
  if (dtype == 0) {
    k<float><<<1, 64>>>(x);
  } else {
#ifndef NO_BF16_KERNEL
    k<double><<<1, 128>>>((double *)x);
#else
    k<int><<<1, 256>>>((int *)x);
#endif
  }
}
"#;
    for (policy, same) in [
        ("defines = []", 2),
        ("defines = [\"NO_BF16_KERNEL\"]", 2),
        ("", 3),
    ] {
        let policy = Policy::from_toml(policy).expect("a valid policy");
        let census = lowering_census_texts(&[("a.cu", unit)], &policy);
        let side = &census.side_by_side;
        assert_eq!(
            (side.sites, side.same),
            (same, same),
            "{policy:?}: {side:?}"
        );
        assert_eq!(census.whole, census.functions, "{:?}", census.not_lowered);
    }
}

/// A grid guarded to at least 1 (`blocks == 0` failed: one value of an interval excluded)
/// and then capped (`blocks > 65535`): the core reads the launch on every path, as the
/// interpreter does (update_kvscales.cu's pattern).
#[test]
fn an_exclusion_and_a_later_cap_hold_together() {
    let unit = r#"
__global__ void scales(float *k, long n) {}
extern "C" void update(float *k, long num_elements) {
  const int threads = 512;
  long blocks = (num_elements + threads - 1) / threads;
  if (blocks == 0)
    blocks = 1;
  if (blocks > 65535)
    blocks = 65535;
  scales<<<(int)blocks, threads, 2 * threads * sizeof(float)>>>(k, num_elements);
}
"#;
    let census = lowering_census_texts(&[("a.cu", unit)], &Policy::default());
    let side = &census.side_by_side;
    assert_eq!((side.sites, side.same), (1, 1), "{side:?}");
}

/// ggml's highest compiled architecture: a variadic template (`Archs... rest`) over
/// `__CUDA_ARCH_LIST__`, calling itself on the rest of the pack (`rest...`) and, when it is
/// empty, the overload of two parameters (chosen by the number of arguments). Read per
/// target, with the compute capability the policy says `cc` holds: 256 threads where the
/// build's architecture is at least 7.5, 128 below, as the interpreter reads it.
#[test]
fn parameter_packs_and_overloads_by_arity_are_read() {
    let unit = r#"
constexpr int highest_impl(const int /*arch*/, const int cur) {
  if (cur == 0) return -1;
  return cur;
}
template <class... Archs>
constexpr int highest_impl(const int arch, const int cur, const int first, Archs... rest) {
  if (first <= arch && first > cur) {
    return highest_impl(arch, first, rest...);
  } else {
    return highest_impl(arch, cur, rest...);
  }
}
constexpr int highest(const int arch) { return highest_impl(arch, 0, __CUDA_ARCH_LIST__); }
static bool fast(const int cc) { return highest(cc) >= 750; }
__global__ void k(float *x) {}
extern "C" void launch_mm(float *x, int cc) {
  k<<<1, fast(cc) ? 256 : 128>>>(x);
}
"#;
    let policy = Policy::from_toml(
        r#"
targets = ["sm_70", "sm_90"]
[device_params."launch_mm"]
cc = "compute_capability_x100"
"#,
    )
    .expect("a valid policy");
    let reading = occupancy_cuda::read_texts_with_policy(&[("a.cu", unit)], &policy);
    let blocks: Vec<_> = reading.launches[0]
        .paths
        .iter()
        .map(|p| p.block.known())
        .collect();
    assert_eq!(blocks, [Some([128, 1, 1]), Some([256, 1, 1])]);
    let census = lowering_census_texts(&[("a.cu", unit)], &policy);
    let side = &census.side_by_side;
    assert_eq!((side.sites, side.same), (1, 1), "{side:?}");
    assert_eq!(census.whole, census.functions, "{:?}", census.not_lowered);
}

/// Enumerators without initialisers count on from the one before (the first is 0), as the
/// interpreter reads them.
#[test]
fn enumerators_without_initialisers_count_on() {
    let unit = r#"
enum tile { SMALL, MEDIUM, LARGE, HUGE = 8, HUGER };
__global__ void k(float *x) {}
extern "C" void go(float *x) {
  k<<<1, 32 * (LARGE + 1), HUGER * 4>>>(x);
}
"#;
    let reading = occupancy_cuda::read_texts_with_policy(&[("a.cu", unit)], &Policy::default());
    let path = &reading.launches[0].paths[0];
    assert_eq!(
        (path.block.known(), path.dynamic_smem_bytes.known()),
        (Some([96, 1, 1]), Some(36))
    );
    let census = lowering_census_texts(&[("a.cu", unit)], &Policy::default());
    let side = &census.side_by_side;
    assert_eq!((side.sites, side.same), (1, 1), "{side:?}");
}

/// A tile width chosen in a counted loop with a run-time exit (candle's mmq launchers:
/// `for (x = 8; x <= 128 && best_tiles > 1; x += 8)`, keeping the `x` that needs the
/// fewest tiles of a run-time column count, a width of 56 never chosen because a coarser
/// granularity skips it), then an instantiation per width: the core steps the loop
/// iteration by iteration, the paths that differ only in the columns' range widened into
/// one past the bound, and each chosen width a launch some column count makes (a witness
/// 8`). `INT_MAX` is `<climits>`'s, which the reader does not read: the lowering knows the
/// limits of the integer types.
const COUNTED: &str = r#"
#include <climits>
template <int X> __global__ void k(int n) {}
template <int X> void inst(int n) { k<X><<<n, 256, X * 100>>>(n); }
extern "C" void pick(int ncols) {
  int best = 0;
  int tiles_best = INT_MAX;
  for (int x = 8; x <= 128 && tiles_best > 1; x += 8) {
    const int gran = x >= 48 ? 16 : 8;
    if (x % gran != 0) continue;
    const int ntiles = (ncols + x - 1) / x;
    if (ntiles < tiles_best) { best = x; tiles_best = ntiles; }
  }
  switch (best) {
    case 8: inst<8>(ncols); break;
    case 16: inst<16>(ncols); break;
    case 24: inst<24>(ncols); break;
    case 56: inst<56>(ncols); break;
    case 64: inst<64>(ncols); break;
    case 128: inst<128>(ncols); break;
    default: break;
  }
}
"#;

#[test]
fn a_counted_loop_with_a_run_time_exit_is_stepped() {
    let census = lowering_census_texts(&[("a.cu", COUNTED)], &Policy::default());
    let side = &census.side_by_side;
    assert_eq!(side.sites, 1, "{side:?}");
    // 8, 16, 24, 64 and 128 (shared memory 100 bytes per unit of width); never 56.
    assert_eq!(side.same, 1, "{side:?}");
    assert!(side.different.is_empty(), "{side:?}");
}

/// candle's mmq stream-k branch in small: arguments gathered in a struct by aggregate
/// initialisation (each member the value given), then a test of a product of two inputs'
/// tile counts (`fixup`), which no range of either can follow, before and after a test of
/// one of them: each launch is one some rows and columns make (a witness of both inputs
/// found together), so each is checked.
const STREAM_K: &str = r#"
struct Args { const float *x; long rows; long cols; };
template <int X> __global__ void k(long n) {}
extern "C" void go(const float *x, long rows, long cols, int sms) {
  const Args args = { x, rows, cols };
  const int tiles_x = (args.cols + 63) / 64;
  const int tiles_y = (args.rows + 127) / 128;
  const bool fixup = tiles_x * tiles_y % 132 != 0;
  if (args.rows % 128 == 0) {
    k<1><<<sms, 256, 1024>>>(args.rows);
  } else {
    k<2><<<sms, 256, 2048>>>(args.rows);
  }
  if (fixup) {
    k<3><<<sms, 128, 0>>>(args.cols);
  }
}
"#;

#[test]
fn a_test_of_two_inputs_is_witnessed_with_tests_of_each() {
    let census = lowering_census_texts(&[("a.cu", STREAM_K)], &Policy::default());
    let side = &census.side_by_side;
    assert_eq!(side.sites, 3, "{side:?}");
    assert_eq!(side.same, 3, "{side:?}");
}

/// The larger of two counts, then capped: the block of the uncapped way is one input or the
/// other, which no range of either holds once both tests are applied (`rows > cols` then
/// `threads > 512`), so the path is witnessed (rows = 2, cols = 1) and its block is known
/// only at run time, with no bounds; its shared memory does not depend on either and is
/// read.
const LARGER_THEN_CAPPED: &str = r#"
__global__ void gather(float* out, int rows, int cols) {}

extern "C" void launch_gather(float* out, int rows, int cols, int batches) {
  int threads = cols;
  if (rows > threads) {
    threads = rows;
  }
  if (threads > 512) {
    threads = 512;
  }
  gather<<<dim3(batches, 1, 1), threads, 256>>>(out, rows, cols);
}
"#;

#[test]
fn a_block_of_a_witnessed_input_is_run_time_and_its_shared_memory_read() {
    let census = lowering_census_texts(&[("a.cu", LARGER_THEN_CAPPED)], &Policy::default());
    let side = &census.side_by_side;
    assert_eq!(side.sites, 1, "{side:?}");
    assert_eq!(side.same, 1, "{side:?}");
}

/// A template over a type and a block size, instantiated by explicit arguments: the
/// kernel's instantiation (`scale_rows<float, 128>`) and the shared memory of `sizeof(T)`
/// are read per call, the type a value the core binds; an alias of the unit is resolved.
const TYPED: &str = r#"
typedef unsigned short bf16_bits;
template <typename T, int BLOCK>
__global__ void scale_rows(T* x, int n) {}

template <typename T, int BLOCK = 128>
void run_scale(T* x, int n) {
  size_t smem = BLOCK * sizeof(T);
  scale_rows<T, BLOCK><<<(n + BLOCK - 1) / BLOCK, BLOCK, smem>>>(x, n);
}

extern "C" void scale_f32(float* x, int n) { run_scale<float>(x, n); }
extern "C" void scale_f64(double* x, int n) { run_scale<double, 256>(x, n); }
extern "C" void scale_bf16(bf16_bits* x, int n) { run_scale<bf16_bits, 64>(x, n); }
"#;

#[test]
fn template_type_arguments_are_values_of_the_core() {
    let census = lowering_census_texts(&[("a.cu", TYPED)], &Policy::default());
    let side = &census.side_by_side;
    assert_eq!(side.sites, 1, "{side:?}");
    assert_eq!(side.same, 1, "{side:?}");
    assert_eq!(side.same_kernels, 1, "{side:?}");
    assert_eq!(side.same_paths, side.sites, "{side:?}");
}

/// Template arguments the compiler deduces (a call's from its arguments' declared types, a
/// template kernel's launched without them), and kernels held in variables: assigned a
/// kernel per path, or returned by a helper that picks one (`NULL` where none fits, which
/// launches no kernel the reader can name).
const DEDUCED: &str = r#"
struct half_t { unsigned short bits; };
template <typename T>
__global__ void sum_rows(const T* x, int n) {}
template <int BLOCK, typename T>
__global__ void tile_rows(const T* x, int n) {}

template <typename T>
void run_sum(const T* x, int n) {
  size_t smem = 32 * sizeof(T);
  sum_rows<<<n, 32, smem>>>(x, n);
}

typedef void (*tile_fn)(const float*, int);
tile_fn pick_tile(int bits) {
  if (bits == 4) return tile_rows<64, float>;
  if (bits == 8) return tile_rows<128, float>;
  return NULL;
}

extern "C" void sum_f32(const float* x, int n) { run_sum(x, n); }
extern "C" void sum_f64(const double* x, int n) { run_sum(x, n); }
extern "C" void sum_half(const void* x, int n) {
  run_sum(reinterpret_cast<const half_t*>(x), n);
}
extern "C" void tile(const float* x, int n, int bits) {
  auto kernel = tile_rows<32, float>;
  if (n > 4096) {
    kernel = tile_rows<256, float>;
  }
  kernel<<<n, 256>>>(x, n);
  tile_fn picked = pick_tile(bits);
  picked<<<n, 128>>>(x, n);
}
"#;

#[test]
fn deduced_template_arguments_and_kernels_in_variables_are_read() {
    let census = lowering_census_texts(&[("a.cu", DEDUCED)], &Policy::default());
    let side = &census.side_by_side;
    assert_eq!(side.sites, 3, "{side:?}");
    assert_eq!(side.same, 3, "{side:?}");
    assert_eq!(side.same_kernels, 3, "{side:?}");
    assert_eq!(side.same_paths, side.sites, "{side:?}");
}

/// Dynamic shared memory opt-ins (`cudaFuncSetAttribute(.., MaxDynamicSharedMemorySize,
/// ..)`) made for the launched kernel on the path: of a kernel held in a variable, of one
/// named with a cast, and behind a once-only guard of a `static` array (its first call's
/// value: the attribute it sets stays set for later calls). The shared memory that grows
/// past 48 KiB is checked at the opt-in where one is made.
const OPTED_IN: &str = r#"
template <int TILE>
__global__ void attend(float* x, int n) {}

extern "C" void attend_tiles(float* x, int n, int tile) {
  if (tile == 64) {
    size_t smem = 64 * 64 * 4 + 256;
    auto kernel = attend<64>;
    cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem);
    kernel<<<n, 128, smem>>>(x, n);
  } else {
    size_t smem = 128 * 64 * 4;
    cudaFuncSetAttribute((const void*)attend<128>, cudaFuncAttributeMaxDynamicSharedMemorySize, smem);
    attend<128><<<n, 256, smem>>>(x, n);
  }
}

extern "C" void attend_rows(float* x, int n) {
  int nbytes = n * 16 + 1024;
  if (nbytes > 90000) nbytes = 90000;
  do {
    static bool raised[16] = {false};
    int dev;
    cudaGetDevice(&dev);
    if (!raised[dev]) {
      cudaFuncSetAttribute(attend<32>, cudaFuncAttributeMaxDynamicSharedMemorySize, 90000);
      raised[dev] = true;
    }
  } while (0);
  attend<32><<<n, 64, nbytes>>>(x, n);
}
"#;

#[test]
fn opt_ins_of_the_launched_kernel_are_read() {
    let census = lowering_census_texts(&[("a.cu", OPTED_IN)], &Policy::default());
    let side = &census.side_by_side;
    assert_eq!(side.sites, 3, "{side:?}");
    assert_eq!(side.same, 3, "{side:?}");
    assert_eq!(side.same_kernels, 3, "{side:?}");
    assert_eq!(side.same_paths, side.sites, "{side:?}");
}

/// Six independent tests of one flag's bits make 64 paths through the helper, and the
/// seventh split passes the bound: the paths past it fold, and the launch they make (the
/// one with `u == 0` and `f > 1000`, 112 bytes: `f = 1024` makes it) is recorded as not
/// read, so that the site is never taken as listing every launch it makes.
const PAST_THE_BOUND: &str = r#"
__global__ void k(float* x, int n) {}
static int pick(int f) {
  int u = 0;
  if (f & 1) u += 1;
  if (f & 2) u += 2;
  if (f & 4) u += 4;
  if (f & 8) u += 8;
  if (f & 16) u += 16;
  if (f & 32) u += 32;
  if (f > 1000) return u == 0 ? 7 : 1;
  return 2;
}
extern "C" void run(float* x, int n, int f) {
  int t = pick(f);
  k<<<n, 128, 16 * t>>>(x, n);
}
"#;

#[test]
fn a_launch_on_the_fold_past_the_bound_is_recorded_as_not_read() {
    let census = lowering_census_texts(&[("a.cu", PAST_THE_BOUND)], &Policy::default());
    let side = &census.side_by_side;
    assert_eq!(side.sites, 1, "{side:?}");
    assert_eq!(
        side.different,
        [
            "a.cu:16: interpreter [128, 1, 1]/16 [128, 1, 1]/32 [128, 1, 1]/112 core [128, 1, 1]/16 [128, 1, 1]/32"
        ],
        "{side:?}"
    );
    // The launch the folded paths make is on the site as not checked, with why.
    assert!(
        side.different_sites.iter().any(|s| s.starts_with(
            "core a.cu:16: <<<...>>> k in run [more than 64 paths meet here (128 before merging)"
        )),
        "{side:?}"
    );
}

/// A type chosen per case by a dispatch macro (`using scalar_t = ..;` in each case's
/// block), its size in the shared memory and in the kernel's instantiation; two launches
/// of a macro on two lines the grammar reads as one statement, each at its own line; a
/// host template instantiated explicitly, read with the instantiation's arguments.
const DISPATCHED: &str = r#"
#define DISPATCH_FLOATS(code, ...)                      \
  switch (code) {                                       \
  case 0: { using scalar_t = float; __VA_ARGS__ break; }  \
  case 1: { using scalar_t = double; __VA_ARGS__ break; } \
  default: break;                                       \
  }
template <typename T> __global__ void fill(T* y, int n) {}
template <typename T, int N> __global__ void copy(T* y) {}
#define COPY(T, N) copy<T, N><<<1, N>>>((T*)y)
template <typename T, int WIDTH> void widen(T* y, int n) {
  copy<T, WIDTH><<<n, WIDTH, WIDTH * sizeof(T)>>>(y);
}
template void widen<short, 64>(short*, int);

extern "C" void fill_any(void* y, int n, int code) {
  DISPATCH_FLOATS(code, fill<scalar_t><<<n, 128, 128 * sizeof(scalar_t)>>>((scalar_t*)y, n););
}
extern "C" void copies(void* y) {
  COPY(float, 256);
  COPY(char, 64);
}
"#;

#[test]
fn local_type_aliases_explicit_instantiations_and_invocations_per_line_are_read() {
    let census = lowering_census_texts(&[("a.cu", DISPATCHED)], &Policy::default());
    let side = &census.side_by_side;
    assert_eq!(side.sites, 4, "{side:?}");
    assert_eq!(side.same, 4, "{side:?}");
    assert_eq!(side.same_kernels, 4, "{side:?}");
    assert_eq!(side.same_paths, side.sites, "{side:?}");
}

/// `cudaLaunchKernel` of a kernel held in a variable (cast to `void*`), inside a block a
/// dispatch macro is given: each launch at the line it is written on in the macro's
/// argument, its kernel named as defined (in its namespace), its instantiation per case.
const RUNTIME_LAUNCH: &str = r#"
#define WITH_WIDTH(w, W, ...)                                  \
  if (w == 64) { constexpr int W = 64; __VA_ARGS__ }           \
  else { constexpr int W = 128; __VA_ARGS__ }
namespace rt {
template <int W, typename T>
__global__ void rows(T* x, int n) {}

template <typename T>
cudaError_t run_rows(T* x, int n, int w, cudaStream_t stream) {
  WITH_WIDTH(w, WIDTH, {
    auto kernel = rows<WIDTH, T>;
    void* args[] = {&x, &n};
    dim3 nthrs(WIDTH / 2, 2);
    cudaLaunchKernel((void*)kernel, dim3(n), nthrs, args, WIDTH * sizeof(T), stream);
  })
  return cudaSuccess;
}
}  // namespace rt

extern "C" void rows_f32(float* x, int n, int w, cudaStream_t s) { rt::run_rows(x, n, w, s); }
"#;

#[test]
fn runtime_launches_in_a_macros_argument_are_read_where_written() {
    let census = lowering_census_texts(&[("a.cu", RUNTIME_LAUNCH)], &Policy::default());
    let side = &census.side_by_side;
    assert_eq!(side.sites, 1, "{side:?}");
    assert_eq!(side.same, 1, "{side:?}");
    assert_eq!(side.same_kernels, 1, "{side:?}");
    assert_eq!(side.same_paths, side.sites, "{side:?}");
}

/// `cudaLaunchKernelEx` of a `cudaLaunchConfig_t` declared without an initialiser, its
/// members assigned one by one (the grid and block `dim3`s, the shared memory).
const LAUNCH_EX: &str = r#"
template <int B> __global__ void kx(float* x, int n) {}
extern "C" void run_ex(float* x, int n, int big, cudaStream_t stream) {
  cudaLaunchConfig_t config;
  dim3 nblks(n);
  dim3 nthrs(big ? 256 : 128);
  config.gridDim = nblks;
  config.blockDim = nthrs;
  config.dynamicSmemBytes = 2048;
  config.stream = stream;
  cudaLaunchKernelEx(&config, kx<64>, x, n);
}
"#;

#[test]
fn launch_ex_configurations_assigned_member_by_member_are_read() {
    let census = lowering_census_texts(&[("a.cu", LAUNCH_EX)], &Policy::default());
    let side = &census.side_by_side;
    assert_eq!(side.sites, 1, "{side:?}");
    assert_eq!(side.same, 1, "{side:?}");
    assert_eq!(side.same_kernels, 1, "{side:?}");
    assert_eq!(side.same_paths, side.sites, "{side:?}");
}

/// An `if` chain continued by macros whose expansions begin with `else` (marlin's
/// `if (false) {} CALL_IF2(4, false) CALL_IF2(4, true) .. else { .. }`): each case is the
/// `else` of the one before it, and the chain's closing `else` runs where no case holds.
const MACRO_CHAIN: &str = r#"
template <int T, int B, bool P> __global__ void k(int *x) {}
#define CALL_IF2(NUM_BITS, HAS_PERM)                                  \
  else if (num_bits == NUM_BITS && has_perm == HAS_PERM) {            \
    k<256, NUM_BITS, HAS_PERM><<<1, 256, 0>>>(x);                     \
  }
extern "C" void repack(int *x, int num_bits) {
  bool has_perm = true;
  if (false) {
  }
  CALL_IF2(4, false)
  CALL_IF2(4, true)
  CALL_IF2(8, false)
  CALL_IF2(8, true)
  else {
    k<32, 0, false><<<1, 32, 0>>>(x);
  }
}
"#;

#[test]
fn an_if_chain_continued_by_macros_takes_one_case() {
    let census = lowering_census_texts(&[("a.cu", MACRO_CHAIN)], &Policy::default());
    let side = &census.side_by_side;
    // The interpreter lists the two cases `has_perm` takes and the closing `else` (the
    // cases of `has_perm == false` launch nothing); the core lists the same three sites,
    // with the same launches: the cases of `false` are not taken (each arm of a chain
    // read as a condition not known, they were launches no run makes).
    assert_eq!(side.sites, 3, "{side:?}");
    assert_eq!(side.same, 3, "{side:?}");
    assert_eq!(side.same_paths, 3, "{side:?}");
    assert_eq!(side.sites_listed, 3, "{side:?}");
    assert_eq!(side.same_sites, 3, "{side:?}");
    assert!(side.different_sites.is_empty(), "{side:?}");
}

/// Run-time values filled with the `// occupancy:` comments' candidates, and a comment that
/// cannot be read (its launch not checked), as the interpreter reads them.
const COMMENTS: &str = r#"
__global__ void k(int *x) {}
extern "C" void given(int *x, int n, int threads) {
  // occupancy: block = [128, 256]
  k<<<n, threads>>>(x);
}
extern "C" void paired(int *x, int n, int threads, int bytes) {
  k<<<n, threads, bytes>>>(x);  // occupancy: launches = [(64, 0), (512, 8192)]
}
extern "C" void broken(int *x, int n, int threads) {
  // occupancy: block = [128,
  k<<<n, threads>>>(x);
}
"#;

#[test]
fn comment_candidates_fill_run_time_values() {
    let census = lowering_census_texts(&[("a.cu", COMMENTS)], &Policy::default());
    let side = &census.side_by_side;
    // `given`: blocks 128 and 256; `paired`: (64, 0) and (512, 8192), never crossed; each
    // path marked as taking a comment's candidate. `broken`: listed, not checked, with the
    // comment's line.
    assert_eq!(side.sites, 2, "{side:?}");
    assert_eq!(side.same, 2, "{side:?}");
    assert_eq!(side.same_paths, 2, "{side:?}");
    assert_eq!(side.sites_listed, 3, "{side:?}");
    assert_eq!(side.same_sites, 3, "{side:?}");
}

/// A `cudaDeviceProp` that `cudaGetDeviceProperties` fills: its fields are each target's
/// values from the GPU tables, as the interpreter reads them.
const PROPERTIES: &str = r#"
__global__ void k(int *x) {}
extern "C" void props(int *x, int n) {
  cudaDeviceProp prop;
  cudaGetDeviceProperties(&prop, 0);
  int threads = prop.maxThreadsPerBlock / 4;
  k<<<n, threads, prop.sharedMemPerBlockOptin>>>(x);
}
"#;

#[test]
fn device_properties_are_read_per_target() {
    let census = lowering_census_texts(&[("a.cu", PROPERTIES)], &Policy::default());
    let side = &census.side_by_side;
    // A block of 1024 / 4 = 256 on each target, with its opt-in shared memory (163 KiB on
    // sm_80, 227 KiB on sm_90): the same launches and paths.
    assert_eq!(side.sites, 1, "{side:?}");
    assert_eq!(side.same, 1, "{side:?}");
    assert_eq!(side.same_paths, 1, "{side:?}");
    assert_eq!(side.same_sites, 1, "{side:?}");
}

/// What the build is told was not read: a comment that cannot be read, a macro whose
/// expansion is past the expander's bound (8^6 copies of its argument).
const NOTES: &str = r#"
__global__ void k(int *x) {}
#define EIGHT(a) a a a a a a a a
#define HUGE(a) EIGHT(EIGHT(EIGHT(EIGHT(EIGHT(EIGHT(a))))))
extern "C" void broken(int *x, int n, int threads) {
  // occupancy: block = [128,
  k<<<n, threads>>>(x);
}
extern "C" void huge(int *x, int n) {
  HUGE(n);
  k<<<n, 128>>>(x);
}
"#;

#[test]
fn notes_tell_what_was_not_read_as_the_interpreter_does() {
    let census = lowering_census_texts(&[("a.cu", NOTES)], &Policy::default());
    let side = &census.side_by_side;
    assert_eq!(side.notes_given, 2, "{side:?}");
    assert_eq!(side.same_notes, 2, "{side:?}");
    assert!(side.different_notes.is_empty(), "{side:?}");
}

/// A kernel pointer a picker returns, null on its last path (`return NULL;` after a chain
/// of `if (..) return k;`, as gptq's `pick_gemm_half_q_half_gptq_kernel`), and one set to
/// `nullptr`: a launch of a null pointer makes no launch, so the site's launches are those
/// of the kernels picked, and nothing is left unchecked for the null path.
const NULL_KERNELS: &str = r#"
__global__ void k2(int *x) {}
__global__ void k4(int *x) {}
typedef void (*kernel_t)(int *);
kernel_t pick(int bits) {
  if (bits == 2) return k2;
  if (bits == 4) return k4;
  return NULL;
}
extern "C" void picked(int *x, int n, int bits) {
  kernel_t kernel = pick(bits);
  kernel<<<n, 128>>>(x);
}
extern "C" void none(int *x, int n, int bits) {
  kernel_t kernel = nullptr;
  if (bits == 2) kernel = k2;
  kernel<<<n, 64>>>(x);
}
"#;

#[test]
fn a_null_kernel_pointer_makes_no_launch() {
    let census = lowering_census_texts(&[("a.cu", NULL_KERNELS)], &Policy::default());
    let side = &census.side_by_side;
    assert_eq!(side.sites, 2, "{side:?}");
    assert_eq!(side.same, 2, "{side:?}");
    assert_eq!(side.same_paths, 2, "{side:?}");
    assert_eq!(side.sites_listed, 2, "{side:?}");
    assert_eq!(side.same_sites, 2, "{side:?}");
    // And what both make: the kernels picked, nothing left unchecked for the null path.
    let reading = occupancy_cuda::read_texts_with_policy_by(
        &[("a.cu", NULL_KERNELS)],
        &Policy::default(),
        occupancy_cuda::CppReader::Core,
    );
    type Made = (String, Vec<(String, Option<[u32; 3]>)>);
    let made: Vec<Made> = reading
        .launches
        .iter()
        .map(|l| {
            assert!(l.not_checked.is_empty(), "{l:?}");
            let mut paths: Vec<(String, Option<[u32; 3]>)> = l
                .paths
                .iter()
                .map(|p| (p.kernel.to_string(), p.block.known()))
                .collect();
            paths.sort();
            (l.function.clone(), paths)
        })
        .collect();
    let path = |k: &str, b: u32| (k.to_owned(), Some([b, 1, 1]));
    assert_eq!(
        made,
        [
            ("picked".to_owned(), vec![path("k2", 128), path("k4", 128)]),
            ("none".to_owned(), vec![path("k2", 64)]),
        ]
    );
}

/// A block and a shared memory known only at run time, explained by how the launch writes
/// them (`threads` a parameter of the launcher, `n * 4` an expression), by either reader:
/// the reading core's sites (`CppReader::Core`) say what the interpreter's say.
const WRITTEN: &str = r#"
__global__ void k(int *x) {}
extern "C" void launch(int *x, int n, int threads) {
  k<<<n, threads, n * 4>>>(x);
}
"#;

#[test]
fn a_run_time_value_is_explained_by_how_the_launch_writes_it() {
    use occupancy_cuda::{CppReader, Read, read_texts_with_policy_by};
    let whys = |reader| {
        let reading = read_texts_with_policy_by(&[("a.cu", WRITTEN)], &Policy::default(), reader);
        let [site] = reading.launches.as_slice() else {
            panic!("{:?}", reading.launches)
        };
        let [path] = site.paths.as_slice() else {
            panic!("{site:?}")
        };
        match (&path.block, &path.dynamic_smem_bytes) {
            (Read::Unknown(block), Read::Unknown(smem)) => (block.clone(), smem.clone()),
            other => panic!("{other:?}"),
        }
    };
    // The values' bounds are each reader's own (the core's record leaves out a type's
    // whole range: "unknown"); what the launch writes is said alike.
    for reader in [CppReader::Core, CppReader::Interpreter] {
        let (block, smem) = whys(reader);
        assert!(
            block.starts_with("`threads` is a parameter of `launch`: the block is "),
            "{reader:?}: {block}"
        );
        assert!(
            smem.starts_with("`n * 4`: the dynamic shared memory is "),
            "{reader:?}: {smem}"
        );
    }
}

/// `cudaLaunchKernelEx` configurations value-initialised (`= {}`), a `dim3` member given a
/// number, one carrying a cluster in literals, which both readers read, and one whose
/// cluster is computed, which the reading core does not read: that launch is listed and
/// not checked, never checked as a launch without its cluster.
const CONFIGS: &str = r#"
__global__ void k(float* y) {}
cudaError_t zeroed(float* y, int m, cudaStream_t stream) {
  cudaLaunchConfig_t config = {};
  config.gridDim = dim3(2 * ((m + 127) / 128), 1, 1);
  config.blockDim = 128;
  config.dynamicSmemBytes = 32 * 1024;
  config.stream = stream;
  return cudaLaunchKernelEx(&config, k, y);
}
cudaError_t clustered(float* y, int m, cudaStream_t stream) {
  cudaLaunchConfig_t config = {};
  config.gridDim = dim3(2 * m, 1, 1);
  config.blockDim = dim3(128, 1, 1);
  cudaLaunchAttribute attrs[1];
  attrs[0].id = cudaLaunchAttributeClusterDimension;
  attrs[0].val.clusterDim.x = 2;
  attrs[0].val.clusterDim.y = 1;
  attrs[0].val.clusterDim.z = 1;
  config.attrs = attrs;
  config.numAttrs = 1;
  // occupancy: block = [128]
  return cudaLaunchKernelEx(&config, k, y);
}
cudaError_t computed(float* y, int m, int pair, cudaStream_t stream) {
  cudaLaunchConfig_t config = {};
  config.gridDim = dim3(2 * m, 1, 1);
  config.blockDim = dim3(128, 1, 1);
  cudaLaunchAttribute attrs[1];
  attrs[0].id = cudaLaunchAttributeClusterDimension;
  attrs[0].val.clusterDim.x = pair ? 2 : 1;
  attrs[0].val.clusterDim.y = 1;
  attrs[0].val.clusterDim.z = 1;
  config.attrs = attrs;
  config.numAttrs = 1;
  // occupancy: block = [128]
  return cudaLaunchKernelEx(&config, k, y);
}
"#;

#[test]
fn launch_configurations_value_initialised_are_read_and_attributes_keep_a_launch_unread() {
    use occupancy_cuda::{CppReader, read_texts_with_policy_by};
    let read = |reader| read_texts_with_policy_by(&[("a.cu", CONFIGS)], &Policy::default(), reader);
    let (core, interp) = (read(CppReader::Core), read(CppReader::Interpreter));
    let [zeroed, clustered, computed] = core.launches.as_slice() else {
        panic!("{:?}", core.launches)
    };
    let [path] = zeroed.paths.as_slice() else {
        panic!("{zeroed:?}")
    };
    // `= {}` then member by member: block 128 (`dim3(128)`), 32 KiB, as the interpreter.
    assert_eq!(
        (path.block.known(), path.dynamic_smem_bytes.known()),
        (Some([128, 1, 1]), Some(32768))
    );
    assert_eq!(interp.launches[0].paths[0].block.known(), Some([128, 1, 1]));
    // A cluster of literals: (2, 1, 1), read by both.
    assert_eq!(interp.launches[1].paths[0].cluster, Some([2, 1, 1]));
    let [path] = clustered.paths.as_slice() else {
        panic!("{clustered:?}")
    };
    assert_eq!(
        (path.block.known(), path.cluster),
        (Some([128, 1, 1]), Some([2, 1, 1]))
    );
    // A computed one the core does not read: the launch is listed as not checked rather
    // than checked without its cluster, whatever candidates a comment gives.
    assert!(computed.paths.is_empty(), "{computed:?}");
    assert!(
        computed
            .not_checked
            .iter()
            .any(|why| why.contains("`config.attrs`")),
        "{computed:?}"
    );
}

/// A shared memory computed from an `int` that may be negative, converted to `size_t`
/// (mistralrs-core's `topk`): the reading core reads the launch on two ways, where the
/// `int` is not negative (the sizes it makes, checked) and where it is (sizes of 2^64 less
/// a few `int`s, whose low 32 bits the driver takes: not known, not checked). A size of
/// 2^32 bytes or more is launched with its low 32 bits.
const SIGNED_SIZES: &str = r#"
__global__ void topk(float *x) {}
extern "C" void launch(float *x, int ncols) {
  if (ncols > 1024) return;
  int block = 128;
  if (ncols <= 64) block = 64;
  size_t smem = ncols * sizeof(float) + ncols * sizeof(bool);
  topk<<<1, block, smem>>>(x);
}
extern "C" void past(float *x) {
  topk<<<1, 32, ((size_t)1 << 32) + 64>>>(x);
}
"#;

#[test]
fn a_negative_int_converted_to_a_size_is_read_apart() {
    use occupancy_cuda::{CppReader, Read, read_texts_with_policy_by};
    let reading = read_texts_with_policy_by(
        &[("a.cu", SIGNED_SIZES)],
        &Policy::default(),
        CppReader::Core,
    );
    let [site, past] = reading.launches.as_slice() else {
        panic!("{:?}", reading.launches)
    };
    // 2^32 + 64 bytes: the driver takes the low 32 bits, 64 (measured on an H200).
    let [path] = past.paths.as_slice() else {
        panic!("{past:?}")
    };
    assert_eq!(path.dynamic_smem_bytes.known(), Some(64), "{path:?}");
    let mut made: Vec<(Option<[u32; 3]>, Option<u32>)> = site
        .paths
        .iter()
        .map(|p| (p.block.known(), p.dynamic_smem_bytes.known()))
        .collect();
    made.sort();
    // 0 <= ncols <= 64: block 64, at most 320 B; 64 < ncols <= 1024: block 128, at most
    // 5,120 B (each checked at its most); ncols < 0: block 64, a size not known.
    assert_eq!(
        made,
        [
            (Some([64, 1, 1]), None),
            (Some([64, 1, 1]), Some(320)),
            (Some([128, 1, 1]), Some(5120)),
        ]
    );
    let negative = site
        .paths
        .iter()
        .find_map(|p| match &p.dynamic_smem_bytes {
            Read::Unknown(why) => Some(why.clone()),
            Read::Known(_) => None,
        })
        .unwrap_or_default();
    assert!(
        negative.starts_with("`smem`: the dynamic shared memory is"),
        "{negative}"
    );
}

/// The conditions that lead to each launch, as the check's messages name its paths: a
/// condition that held, one that did not (negated), a `switch`'s case; a loop's test names
/// none. Both readers name them alike.
const CONDITIONS: &str = r#"
__global__ void k(float *x) {}
extern "C" void launch(float *x, int n, int dtype, int rows) {
  for (int r = 0; r < rows; r++) {
    if (n < 256) {
      k<<<1, 128>>>(x);
    } else {
      switch (dtype) {
        case 2: k<<<1, 256>>>(x); break;
        default: break;
      }
    }
  }
}
"#;

/// Each launch path `reader` reads in `text` (one file, `a.cu`): its block where known and
/// the conditions that name it, sorted.
fn blocks_and_conditions(
    text: &str,
    reader: occupancy_cuda::CppReader,
) -> Vec<(Option<[u32; 3]>, Vec<String>)> {
    let reading =
        occupancy_cuda::read_texts_with_policy_by(&[("a.cu", text)], &Policy::default(), reader);
    let mut out: Vec<(Option<[u32; 3]>, Vec<String>)> = reading
        .launches
        .iter()
        .flat_map(|l| l.paths.iter())
        .map(|p| (p.block.known(), p.conditions.clone()))
        .collect();
    out.sort();
    out
}

#[test]
fn a_launch_is_named_by_the_conditions_that_lead_to_it() {
    use occupancy_cuda::CppReader;
    let named = |reader| blocks_and_conditions(CONDITIONS, reader);
    let core = named(CppReader::Core);
    assert_eq!(
        core,
        [
            (Some([128, 1, 1]), vec!["n < 256".to_owned()]),
            (
                Some([256, 1, 1]),
                vec!["!(n < 256)".to_owned(), "dtype == 2".to_owned()]
            ),
        ]
    );
    assert_eq!(named(CppReader::Interpreter), core);
}

/// Two conditions on a field of a struct parameter, which the reader cannot apply to its
/// values: the launch under both is the code's whichever way they go, since no launch of
/// that site took another way; a launch of another site on the other way does not make it
/// uncertain (the reading core compared every site's launches, its `At`s all equal).
const ONE_SITE: &str = r#"
struct P { int splits; };
__global__ void k(float *x) {}
extern "C" void launch(float *x, P p) {
  if (p.splits > 1) {
    if (p.splits <= 2) {
      k<<<1, 64>>>(x);
    }
  } else {
    k<<<1, 256>>>(x);
  }
}
"#;

#[test]
fn a_launch_is_settled_by_the_launches_of_its_own_site() {
    use occupancy_cuda::{CppReader, read_texts_with_policy_by};
    let reading =
        read_texts_with_policy_by(&[("a.cu", ONE_SITE)], &Policy::default(), CppReader::Core);
    let made: Vec<(u32, Option<[u32; 3]>, Vec<String>)> = reading
        .launches
        .iter()
        .flat_map(|l| {
            l.paths
                .iter()
                .map(|p| (l.line, p.block.known(), l.not_checked.clone()))
        })
        .collect();
    assert_eq!(
        made,
        [
            (7, Some([64, 1, 1]), Vec::new()),
            (10, Some([256, 1, 1]), Vec::new())
        ]
    );
}

/// A read whose steps pass the budget of its few bytes of source (4 steps a byte, and for
/// the reading core at least one root's whole budget, 200,000 steps): eight launchers of
/// 64 paths (six tests of six inputs) through 200 statements each. What is not read is
/// said in a note, by either reader, and the launches of the launchers past it are not
/// checked.
fn long_read() -> String {
    let mut text = String::from("__global__ void k(float *x) {}\n");
    for f in 0..8 {
        text += &format!(
            "extern \"C\" void launch{f}(float *x, int n0, int n1, int n2, int n3, int n4, int n5) {{\n\
             int a = 0;\n"
        );
        for i in 0..6 {
            text += &format!("if (n{i} > 7) a = a + {};\n", 1 << i);
        }
        for _ in 0..200 {
            text += "a = a + 1;\n";
        }
        text += "k<<<1, 128 + a>>>(x);\n}\n";
    }
    text
}

#[test]
fn a_read_past_its_budget_says_so() {
    use occupancy_cuda::{CppReader, read_texts_with_policy_by};
    let text = long_read();
    for reader in [CppReader::Core, CppReader::Interpreter] {
        let reading =
            read_texts_with_policy_by(&[("a.cu", text.as_str())], &Policy::default(), reader);
        let spent: Vec<&str> = reading
            .notes
            .iter()
            .filter(|n| n.message.contains("the reader's budget for these files"))
            .map(|n| n.message.as_str())
            .collect();
        // The last launcher is read past the budget: noted, its launch not checked.
        assert!(
            spent.iter().any(|m| m.starts_with("`launch7`: ")),
            "{reader:?}: {:?}",
            reading.notes
        );
        let last = reading.launches.last().expect("the launches");
        assert!(
            last.function == "launch7" && last.paths.is_empty() && !last.not_checked.is_empty(),
            "{reader:?}: {last:?}"
        );
    }
}

/// A block chosen in a helper (`p`) and bound in its caller (`block`): each launch is named
/// by the caller's binding, by either reader.
const CHOSEN_IN_A_HELPER: &str = r#"
__global__ void k(float *x) {}
static int pick(int n) {
  int p = 256;
  while (p < n && p < 1024) p <<= 1;
  return p;
}
extern "C" void launch(float *x, int n) {
  int block = pick(n);
  k<<<1, block>>>(x);
}
"#;

#[test]
fn a_set_chosen_in_a_helper_is_named_by_the_callers_binding() {
    use occupancy_cuda::CppReader;
    let named = |reader| blocks_and_conditions(CHOSEN_IN_A_HELPER, reader);
    let core = named(CppReader::Core);
    assert_eq!(
        core,
        [256, 512, 1024].map(|b| (Some([b, 1, 1]), vec![format!("block = {b}")]))
    );
    assert_eq!(named(CppReader::Interpreter), core);
}

/// The launch paths of the unit `text` read by `reader` under the default policy, each as
/// `of` takes it (its site's line and the path; `None`: left out), sorted, without
/// repeats.
fn paths_of<T: Ord>(
    text: &str,
    reader: occupancy_cuda::CppReader,
    of: impl Fn(u32, &occupancy_cuda::LaunchPath) -> Option<T>,
) -> Vec<T> {
    let reading =
        occupancy_cuda::read_texts_with_policy_by(&[("a.cu", text)], &Policy::default(), reader);
    let mut out: Vec<T> = reading
        .launches
        .iter()
        .flat_map(|l| {
            l.paths
                .iter()
                .filter_map(|p| of(l.line, p))
                .collect::<Vec<_>>()
        })
        .collect();
    out.sort();
    out.dedup();
    out
}

/// A block doubled while below the columns and a cap, and the row cached in shared memory
/// (`cols * 4` bytes, no opt-in): each exit of the loop says which columns reach it, so
/// each block's launch has its own shared memory (the largest its columns make), and past
/// 1,024 threads the columns grow to the 48 KiB limit and over it.
const DOUBLED_TO_THE_COLUMNS: &str = r#"
__global__ void k(float *y, int cols) {}
extern "C" void launch(float *y, int rows, int cols) {
  int block = 32;
  while (block < cols && block < 1024) {
    block <<= 1;
  }
  const size_t smem = static_cast<size_t>(cols) * sizeof(float);
  k<<<rows, block, smem>>>(y, cols);
}
"#;

/// A launch path's block, shared memory (bytes) and first condition.
type BlockSmemLabel = (Option<[u32; 3]>, Option<u32>, Vec<String>);

#[test]
fn a_doubling_loops_exits_narrow_the_input_it_tests() {
    use occupancy_cuda::CppReader;
    let paths = |reader| {
        paths_of(DOUBLED_TO_THE_COLUMNS, reader, |_, p| {
            let smem = p.dynamic_smem_bytes.known()?;
            let first: Vec<String> = p.conditions.first().cloned().into_iter().collect();
            Some((p.block.known(), Some(smem), first))
        })
    };
    let core = paths(CppReader::Core);
    let expected: Vec<BlockSmemLabel> = [
        (32, 128),
        (64, 256),
        (128, 512),
        (256, 1024),
        (512, 2048),
        (1024, 49152),
        (1024, 49156),
    ]
    .into_iter()
    .map(|(b, s)| (Some([b, 1, 1]), Some(s), vec![format!("block = {b}")]))
    .collect();
    assert_eq!(core, expected);
    assert_eq!(paths(CppReader::Interpreter), core);
}

/// A traits struct's static members read through a local alias of one of its
/// instantiations (`using Traits = Traits_<kHeadDim>;`), a member computed from another
/// (`kNThreads` from `kNWarps`) and from the template's parameter: each instantiation's
/// block and shared memory, by either reader.
const TRAITS_THROUGH_AN_ALIAS: &str = r#"
template <int D> struct Traits_ {
  static constexpr int kNWarps = D >= 128 ? 8 : 4;
  static constexpr int kNThreads = kNWarps * 32;
  static constexpr size_t kSmemBytes = D * 512;
};
template <typename T, typename Tr> __global__ void k(T* x) {}
template <typename T, int kHeadDim>
void run(T* x, cudaStream_t stream) {
  using Traits = Traits_<kHeadDim>;
  constexpr size_t smem = Traits::kSmemBytes;
  k<T, Traits><<<1, Traits::kNThreads, smem, stream>>>(x);
}
extern "C" void launch(float* x, int d, cudaStream_t s) {
  if (d == 64) run<float, 64>(x, s); else run<float, 128>(x, s);
}
"#;

#[test]
fn a_traits_structs_members_are_read_through_a_local_alias() {
    use occupancy_cuda::CppReader;
    let paths = |reader| {
        paths_of(TRAITS_THROUGH_AN_ALIAS, reader, |_, p| {
            Some((
                p.kernel.to_string(),
                p.block.known(),
                p.dynamic_smem_bytes.known(),
            ))
        })
    };
    let core = paths(CppReader::Core);
    assert_eq!(
        core,
        [
            (
                "k<float, Traits_<128>>".to_owned(),
                Some([256, 1, 1]),
                Some(65536)
            ),
            (
                "k<float, Traits_<64>>".to_owned(),
                Some([128, 1, 1]),
                Some(32768)
            ),
        ]
    );
    assert_eq!(paths(CppReader::Interpreter), core);
}

/// Constants of one name in several namespaces: each name is the innermost enclosing
/// namespace's (or, qualified, the one the qualifier names), a constant's initialiser is
/// read in its own namespace, an unnamed namespace's hides the enclosing one's from code
/// inside it, and a name declared in two namespaces neither of which encloses the code is
/// not guessed; by either reader.
const NAMESPACES: &str = r#"
__global__ void k(float *x, int n) {}
constexpr int TILE = 16;
namespace cfg { constexpr int TILE = 8; constexpr int kTwice = TILE * 2; }
namespace other { constexpr int kB = 64; }
namespace third { constexpr int kB = 32; }
namespace outer {
constexpr int kW = 96;
namespace { constexpr int kW = 128; void inner(float* x, int n) { k<<<n, kW>>>(x, n); } }
}
namespace other {
void launch_other(float* x, int n) { k<<<n, kB>>>(x, n); k<<<n, TILE>>>(x, n); }
}
extern "C" void run(float* x, int n) {
  k<<<n, TILE>>>(x, n);
  k<<<n, cfg::TILE>>>(x, n);
  dim3 b(cfg::TILE, TILE);
  k<<<n, b>>>(x, n);
  k<<<n, cfg::kTwice>>>(x, n);
  k<<<n, kB>>>(x, n);
  outer::inner(x, n);
}
"#;

#[test]
fn constants_are_looked_up_by_namespace_by_either_reader() {
    use occupancy_cuda::CppReader;
    let blocks = |reader| paths_of(NAMESPACES, reader, |line, p| Some((line, p.block.known())));
    let core = blocks(CppReader::Core);
    assert_eq!(
        core,
        [
            (9, Some([128, 1, 1])),
            (12, Some([16, 1, 1])),
            (12, Some([64, 1, 1])),
            (15, Some([16, 1, 1])),
            (16, Some([8, 1, 1])),
            (18, Some([8, 16, 1])),
            (19, Some([16, 1, 1])),
            (20, None),
        ]
    );
    assert_eq!(blocks(CppReader::Interpreter), core);
}

/// A variable declared in a block hides the parameter of its name only inside it: the
/// kernel's template argument deduced from the argument after the block is the
/// parameter's type again, by either reader.
const HIDDEN_IN_A_BLOCK: &str = r#"
template <typename T> __global__ void dk(T* x, int n) {}
extern "C" void run(float* x, __half* h, int n) {
  { __half* x = h; dk<<<n, 64>>>(x, n); }
  dk<<<n, 96>>>(x, n);
}
"#;

#[test]
fn a_variable_declared_in_a_block_deduces_nothing_after_it() {
    use occupancy_cuda::CppReader;
    let kernels = |reader| {
        paths_of(HIDDEN_IN_A_BLOCK, reader, |_, p| {
            Some((p.kernel.to_string(), p.block.known()))
        })
    };
    let core = kernels(CppReader::Core);
    assert_eq!(
        core,
        [
            ("dk<__half>".to_owned(), Some([64, 1, 1])),
            ("dk<float>".to_owned(), Some([96, 1, 1])),
        ]
    );
    assert_eq!(kernels(CppReader::Interpreter), core);
}

/// A comparison used as a number (`IS_WIDE(c) * 1024`, a function-like macro of the
/// caller's variable) is the `int` 0 or 1, as C++ converts a `bool`, by either reader.
const BOOL_TIMES_BYTES: &str = r#"
__global__ void k(float *x, int n) {}
#define WIDE_COLS 0x400
#define IS_WIDE(c) (c >= WIDE_COLS)
extern "C" void run(float* x, int n) {
  const int cols = 2048;
  k<<<n, 512, IS_WIDE(cols / 2) * 1024>>>(x, n);
  k<<<n, 128, IS_WIDE(cols / 4) * 1024>>>(x, n);
}
"#;

#[test]
fn a_bool_in_arithmetic_is_0_or_1() {
    use occupancy_cuda::CppReader;
    let smem = |reader| {
        paths_of(BOOL_TIMES_BYTES, reader, |line, p| {
            Some((line, p.dynamic_smem_bytes.known()))
        })
    };
    let core = smem(CppReader::Core);
    assert_eq!(core, [(7, Some(1024)), (8, Some(0))]);
    assert_eq!(smem(CppReader::Interpreter), core);
}

/// Overloads told apart by the number of arguments, one taking none (`(void)`) and one
/// with a parameter's default (`elem = 4`, taken where the call leaves it out), by either
/// reader.
const OVERLOADS_BY_ARITY: &str = r#"
__global__ void k(float *x, int n) {}
static int threads_for(int rows) { return rows >= 64 ? 256 : 128; }
static int threads_for(int rows, int cols) { return rows * cols >= 4096 ? 512 : 64; }
static int smem_for(int rows, int cols, int elem = 4) { return rows * cols * elem; }
static int smem_for(void) { return 0; }
extern "C" void run(float* x, int n) {
  k<<<n, threads_for(32), smem_for()>>>(x, n);
  k<<<n, threads_for(64, 64), smem_for(16, 32)>>>(x, n);
  k<<<n, threads_for(64), smem_for(16, 32, 2)>>>(x, n);
}
"#;

#[test]
fn overloads_are_chosen_by_the_arguments_given_and_defaults_fill_the_rest() {
    use occupancy_cuda::CppReader;
    let launches = |reader| {
        paths_of(OVERLOADS_BY_ARITY, reader, |line, p| {
            Some((line, p.block.known(), p.dynamic_smem_bytes.known()))
        })
    };
    let core = launches(CppReader::Core);
    assert_eq!(
        core,
        [
            (8, Some([128, 1, 1]), Some(0)),
            (9, Some([512, 1, 1]), Some(2048)),
            (10, Some([256, 1, 1]), Some(1024)),
        ]
    );
    assert_eq!(launches(CppReader::Interpreter), core);
}

/// A struct filled by a brace initialiser, in order or by designators (`.rows = 9`): each
/// member the value given, a scalar member not given 0 (value-initialised), by either
/// reader.
const BRACE_INITIALISED: &str = r#"
__global__ void k(const float *x, int n) {}
struct launch_args { const float * x; int rows; bool split; long cols; };
static void dispatch(const launch_args & args) {
  if (!args.split) {
    k<<<args.rows, 128, 0>>>(nullptr, 1);
    return;
  }
  k<<<args.rows, 64 * args.cols, 0>>>(nullptr, 2);
}
extern "C" void run(const float * x) {
  const launch_args args = { x, 7, 3 > 2, 4 };
  dispatch(args);
  launch_args named = { .x = x, .rows = 9 };
  k<<<named.rows, 32, 0>>>(nullptr, 3);
  k<<<1, 32, named.cols>>>(nullptr, 4);
}
"#;

/// A launch path's line, grid, block and shared memory (bytes).
type LineGridBlockSmem = (u32, Option<[u32; 3]>, Option<[u32; 3]>, Option<u32>);

#[test]
fn a_structs_members_come_from_its_brace_initialiser_in_order_or_by_designator() {
    use occupancy_cuda::CppReader;
    let launches = |reader| -> Vec<LineGridBlockSmem> {
        paths_of(BRACE_INITIALISED, reader, |line, p| {
            Some((
                line,
                p.grid.known(),
                p.block.known(),
                p.dynamic_smem_bytes.known(),
            ))
        })
    };
    let core = launches(CppReader::Core);
    assert_eq!(
        core,
        [
            (9, Some([7, 1, 1]), Some([256, 1, 1]), Some(0)),
            (15, Some([9, 1, 1]), Some([32, 1, 1]), Some(0)),
            (16, Some([1, 1, 1]), Some([32, 1, 1]), Some(0)),
        ]
    );
    assert_eq!(launches(CppReader::Interpreter), core);
}

/// A loop whose first test fails whatever the clamp in it decides (`i < std::min(n, 4)`
/// from `i = 8`) never launches what its body would (block 64); a `for` whose update is a
/// comma expression (`i++, blk.x = 64`) applies both parts, so the block after the loop is
/// never read as the 32 it had before it.
const LOOP_ENTRY_AND_COMMA_UPDATE: &str = r#"
__global__ void k(float* x) {}
__global__ void k2(float* x) {}
extern "C" void run(float* x, int n, int big) {
  int b = 32, s = 0;
  if (big) { b = 64; s = 8; }
  for (int i = s; i < std::min(n, 4); i++) {
    k<<<1, b>>>(x);
  }
}
extern "C" void run2(float* x, int n) {
  dim3 blk(32);
  for (int i = 0; i < 2; i++, blk.x = 64)
    k<<<1, blk>>>(x);
  k2<<<1, blk>>>(x);
}
"#;

#[test]
fn a_loop_never_entered_launches_nothing_and_a_comma_update_writes_both_parts() {
    use occupancy_cuda::CppReader;
    let blocks = |reader| {
        paths_of(LOOP_ENTRY_AND_COMMA_UPDATE, reader, |line, p| {
            Some((line, p.block.known()))
        })
    };
    let core = blocks(CppReader::Core);
    // `run`: block 32 only, as the interpreter reads it.
    let run: Vec<_> = core.iter().filter(|(line, _)| *line == 8).collect();
    assert_eq!(run, [&(8, Some([32, 1, 1]))]);
    assert_eq!(
        blocks(CppReader::Interpreter)
            .iter()
            .filter(|(line, _)| *line == 8)
            .collect::<Vec<_>>(),
        run
    );
    // `run2`: `k2` runs after `blk.x = 64`: never read as 32 (the core leaves it unknown,
    // the interpreter steps the loop to 64).
    let after: Vec<_> = core.iter().filter(|(line, _)| *line == 15).collect();
    assert!(!after.is_empty(), "{core:?}");
    assert!(
        after.iter().all(|(_, b)| *b != Some([32, 1, 1])),
        "{core:?}"
    );
}

/// A `cudaLaunchConfig_t` initialised by designators, its grid and block as `dim3`s and
/// its shared memory given, the kernel opted in first: the launch as configured, by either
/// reader.
const DESIGNATED_LAUNCH_CONFIG: &str = r#"
__global__ void k(float *x, int n) {}
extern "C" cudaError_t run(float* x, int n, cudaStream_t s) {
  cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, 65536);
  cudaLaunchConfig_t c = {.gridDim = dim3(n), .blockDim = dim3(128), .dynamicSmemBytes = 65536};
  return cudaLaunchKernelEx(&c, k, x, n);
}
"#;

#[test]
fn a_launch_configuration_initialised_by_designators_is_read() {
    use occupancy_cuda::CppReader;
    let launches = |reader| {
        paths_of(DESIGNATED_LAUNCH_CONFIG, reader, |line, p| {
            Some((
                line,
                p.block.known(),
                p.dynamic_smem_bytes.known(),
                p.opt_in_bytes,
            ))
        })
    };
    let core = launches(CppReader::Core);
    assert_eq!(core, [(6, Some([128, 1, 1]), Some(65536), Some(65536))]);
    assert_eq!(launches(CppReader::Interpreter), core);
}
