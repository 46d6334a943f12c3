//! The reader on small CUDA C++ crates written here: each launch form, each way the code
//! writes its values, the paths, and bad input.

use std::path::{Path, PathBuf};

use occupancy_cuda::{CudaLaunch, LaunchForm, Read, Reading};

/// Writes `files` (path relative to a fresh crate directory, text) and reads `src/cuda`.
fn read(files: &[(&str, &str)]) -> (tempfile::TempDir, Reading) {
    let dir = tempfile::tempdir().unwrap();
    for (path, text) in files {
        let path = dir.path().join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    let reading = occupancy_cuda::read(dir.path(), &[PathBuf::from("src/cuda")]);
    (dir, reading)
}

fn one(files: &[(&str, &str)]) -> Vec<String> {
    let (_dir, r) = read(files);
    summaries(&r)
}

/// Every launch as `line: path summary` (and `line: not checked: why`).
fn summaries(r: &Reading) -> Vec<String> {
    let mut out = Vec::new();
    for l in &r.launches {
        for p in &l.paths {
            out.push(format!("{}: {}", l.line, p.summary()));
        }
        for n in &l.not_checked {
            out.push(format!("{}: not checked: {n}", l.line));
        }
    }
    out
}

/// Every note of a reading, as printed.
fn notes_of(r: &Reading) -> Vec<String> {
    r.notes.iter().map(ToString::to_string).collect()
}

fn launch(r: &Reading, line: u32) -> &CudaLaunch {
    r.launches
        .iter()
        .find(|l| l.line == line)
        .unwrap_or_else(|| panic!("no launch on line {line}: {:#?}", summaries(r)))
}

const KERNELS: &str = r#"
template <typename T, int N> __global__ void tk(T* x, int n) {}
__global__ void k(float* x, int n) {}
"#;

#[test]
fn literals_defines_constants_enumerators_and_traits_members() {
    let src = format!(
        r#"{KERNELS}
#define BLOCK 128
#define SMEM (BLOCK * sizeof(float))
namespace cfg {{ constexpr int kThreads = 256; }}
enum {{ kWarps = 4, kMore }};
struct Traits {{ static constexpr int kNThreads = kWarps * 32; static const unsigned kSmem = 4096; }};
template <typename T, int kBlockM> struct Tile {{
  static constexpr int kThreads = kBlockM * 2;
  static constexpr int kSmemBytes = kBlockM * kBlockM * sizeof(T);
}};
extern "C" void run(float* x, int n, cudaStream_t s) {{
  k<<<n, 64>>>(x, n);
  k<<<n, BLOCK, SMEM, s>>>(x, n);
  k<<<n, cfg::kThreads, 0, s>>>(x, n);
  k<<<n, kMore * 32, 0, s>>>(x, n);
  k<<<dim3(n, 2), Traits::kNThreads, Traits::kSmem, s>>>(x, n);
  using KT = Tile<__half, 64>;
  tk<float, KT::kThreads><<<16, KT::kThreads, KT::kSmemBytes, s>>>(x, n);
  constexpr int kLocal = 2 * 16;
  k<<<4, dim3(kLocal, 32)>>>(x, n);
}}
"#
    );
    let got = one(&[("src/cuda/a.cu", &src)]);
    assert_eq!(
        got,
        [
            "15: k grid ? block 64 smem 0 B",
            "16: k grid ? block 128 smem 512 B",
            "17: k grid ? block 256 smem 0 B",
            "18: k grid ? block 160 smem 0 B",
            "19: k grid ? block 128 smem 4096 B",
            "21: tk<float, 128> grid 16 block 128 smem 8192 B",
            "23: k grid 4 block (32, 32) smem 0 B",
        ]
    );
}

#[test]
fn a_dispatch_keeps_each_cases_values_together() {
    let src = format!(
        r#"{KERNELS}
template <typename T, int kHeadDim>
void launch_attn(T* x, int n, cudaStream_t s) {{
  constexpr int kBlock = kHeadDim <= 64 ? 128 : 256;
  constexpr size_t smem = kHeadDim * kBlock * sizeof(T);
  tk<T, kHeadDim><<<n, kBlock, smem, s>>>(x, n);
}}
extern "C" void attn(float* x, int head_dim, int n, cudaStream_t s) {{
  switch (head_dim) {{
    case 64: launch_attn<float, 64>(x, n, s); break;
    case 128: launch_attn<float, 128>(x, n, s); break;
    case 256: launch_attn<float, 256>(x, n, s); break;
    default: break;
  }}
}}
"#
    );
    let (_d, r) = read(&[("src/cuda/a.cu", &src)]);
    let l = launch(&r, 9);
    assert_eq!(l.function, "launch_attn");
    assert_eq!(
        summaries(&r),
        [
            "9: tk<float, 64> grid ? block 128 smem 32768 B [head_dim == 64]",
            "9: tk<float, 128> grid ? block 256 smem 131072 B [head_dim == 128]",
            "9: tk<float, 256> grid ? block 256 smem 262144 B [head_dim == 256]",
        ]
    );
}

#[test]
fn dispatch_macros_expand_to_one_launch_per_case() {
    let src = format!(
        r#"{KERNELS}
#define HEADDIM_SWITCH(HD, ...)                  \
  switch (HD) {{                                  \
    case 32: {{ constexpr int kHd = 32; __VA_ARGS__ }} break; \
    case 96: {{ constexpr int kHd = 96; __VA_ARGS__ }} break; \
    default: break;                              \
  }}
template <int D> void go(float* x, int n) {{ tk<float, D><<<n, D * 2, D * 4>>>(x, n); }}
extern "C" void run(float* x, int hd, int n) {{
  HEADDIM_SWITCH(hd, go<kHd>(x, n););
}}
"#
    );
    assert_eq!(
        one(&[("src/cuda/a.cu", &src)]),
        [
            "11: tk<float, 32> grid ? block 64 smem 128 B [hd == 32]",
            "11: tk<float, 96> grid ? block 192 smem 384 B [hd == 96]",
        ]
    );
}

#[test]
fn run_time_blocks_from_finite_sets() {
    let src = format!(
        r#"{KERNELS}
static int next_pow2(int n) {{ int p = 1; while (p < n) p <<= 1; return p; }}
static unsigned round_up_pow2(unsigned v) {{ v--; v |= v >> 1; v |= v >> 2; v |= v >> 4; v |= v >> 8; v |= v >> 16; return v + 1; }}
extern "C" void run(float* x, int n, int head_dim) {{
  int block = 32;
  while (block < head_dim && block < 1024) block <<= 1;
  k<<<n, block, block * sizeof(float)>>>(x, n);
  int b2 = std::min(next_pow2(n), 1024);
  k<<<n, b2>>>(x, n);
  int b3 = n < 1024 ? 32 : 1024;
  k<<<n, b3>>>(x, n);
  unsigned b4 = min(round_up_pow2(n), 256u);
  k<<<n, b4>>>(x, n);
}}
"#
    );
    let (_d, r) = read(&[("src/cuda/a.cu", &src)]);
    let blocks = |line| -> Vec<String> {
        launch(&r, line)
            .paths
            .iter()
            .map(|p| {
                let b = p.block.known().map_or("?".into(), |b| b[0].to_string());
                let s = p
                    .dynamic_smem_bytes
                    .known()
                    .map_or("?".into(), |s| s.to_string());
                format!("{b}/{s}")
            })
            .collect()
    };
    // The shared memory follows the block on each path: 6 launches, not 6 x 6.
    assert_eq!(
        blocks(10),
        [
            "32/128",
            "64/256",
            "128/512",
            "256/1024",
            "512/2048",
            "1024/4096"
        ]
    );
    assert_eq!(
        blocks(12),
        [
            "1/0", "2/0", "4/0", "8/0", "16/0", "32/0", "64/0", "128/0", "256/0", "512/0", "1024/0"
        ]
    );
    assert_eq!(blocks(14), ["32/0", "1024/0"]);
    assert_eq!(
        blocks(16),
        [
            "1/0", "2/0", "4/0", "8/0", "16/0", "32/0", "64/0", "128/0", "256/0"
        ]
    );
}

#[test]
fn launch_kernel_ex_with_a_cluster_and_an_opt_in() {
    let src = format!(
        r#"{KERNELS}
constexpr int kSmem = 96 * 1024;
extern "C" void run(float* x, int n, cudaStream_t s) {{
  cudaFuncSetAttribute(tk<float, 8>, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmem);
  cudaLaunchConfig_t config = {{0}};
  config.gridDim = dim3(132, 1, 1);
  config.blockDim = dim3(256, 1, 1);
  config.dynamicSmemBytes = kSmem;
  config.stream = s;
  cudaLaunchAttribute attribute[1];
  attribute[0].id = cudaLaunchAttributeClusterDimension;
  attribute[0].val.clusterDim.x = 2;
  attribute[0].val.clusterDim.y = 1;
  attribute[0].val.clusterDim.z = 1;
  config.attrs = attribute;
  config.numAttrs = 1;
  cudaLaunchKernelEx(&config, tk<float, 8>, x, n);
  cudaLaunchKernel((const void*)k, dim3(n), dim3(512), nullptr, 1024, s);
  cudaLaunchConfig_t c2 = {{.gridDim = dim3(n), .blockDim = dim3(64), .dynamicSmemBytes = 0}};
  cudaLaunchKernelEx(&c2, k, x, n);
  cuLaunchKernelEx(&drv, fn, params, nullptr);
}}
"#
    );
    let (_d, r) = read(&[("src/cuda/a.cu", &src)]);
    assert_eq!(
        summaries(&r),
        [
            "20: tk<float, 8> grid 132 block 256 smem 98304 B cluster (2, 1, 1) opt-in 98304 B",
            "21: k grid ? block 512 smem 1024 B",
            "23: k grid ? block 64 smem 0 B",
            "24: not checked: cuLaunchKernelEx launches a CUfunction loaded at run time (often compiled at run time, e.g. by NVRTC), not code of the crate's objects: not checked",
        ]
    );
    assert_eq!(launch(&r, 20).form, LaunchForm::LaunchKernelEx);
    assert_eq!(launch(&r, 21).form, LaunchForm::LaunchKernel);
    assert_eq!(launch(&r, 24).form, LaunchForm::CuLaunchKernelEx);
}

#[test]
fn unknown_blocks_say_why_and_comments_give_candidates() {
    let src = format!(
        r#"{KERNELS}
extern "C" void run(float* x, int n, int threads, int cols) {{
  k<<<n, threads>>>(x, n);
  // occupancy: block = [128, 256]
  k<<<n, threads, cols * 4>>>(x, n);
  k<<<n, threads, 0>>>(x, n); // occupancy: block = [(16, 16)], smem = [0]
}}
"#
    );
    let (_d, r) = read(&[("src/cuda/a.cu", &src)]);
    let l = launch(&r, 6);
    assert_eq!(l.paths.len(), 1);
    match &l.paths[0].block {
        Read::Unknown(why) => assert!(why.contains("known only at run time"), "{why}"),
        Read::Known(b) => panic!("block {b:?}"),
    }
    assert_eq!(
        summaries(&r)[1..],
        [
            "8: k grid ? block 128 smem ? [block = 128]",
            "8: k grid ? block 256 smem ? [block = 256]",
            "9: k grid ? block (16, 16) smem 0 B [block = (16, 16)]",
        ]
    );
    assert_eq!(
        launch(&r, 8).paths[0].candidates,
        occupancy_cuda::Candidates::Comment
    );
}

#[test]
fn comment_candidates_for_two_values_are_pairs_never_crossed() {
    let src = format!(
        r#"{KERNELS}
extern "C" void run(float* x, int n, int threads, int bytes) {{
  // occupancy: block = [32, 1024], smem = [128, 4096, 65536]
  k<<<n, threads, bytes>>>(x, n);
  // occupancy: launches = [(32, 128), (1024, 4096), ((16, 16), 65536)]
  k<<<n, threads, bytes>>>(x, n);
  // occupancy: launches = [(32, 128), (1024, 4096), (1024, 8192)]
  k<<<n, 1024, bytes>>>(x, n);
  // occupancy: launches = [(32, 128)]
  k<<<n, threads, 0>>>(x, n);
  // occupancy: block = [32, 1024], smem = [4096]
  k<<<n, threads, bytes>>>(x, n);
}}
"#
    );
    let (_d, r) = read(&[("src/cuda/a.cu", &src)]);
    let all = summaries(&r);
    // Two lists of several values for two run-time values: refused, with how to give pairs.
    let crossed: Vec<&String> = all.iter().filter(|s| s.starts_with("7: ")).collect();
    assert_eq!(crossed.len(), 1, "{all:#?}");
    assert!(
        crossed[0].contains("block ?"),
        "the block stays unknown: {all:#?}"
    );
    match &launch(&r, 7).paths[0].block {
        Read::Unknown(why) => assert!(
            why.contains("2 `block` and 3 `smem` candidates") && why.contains("launches = ["),
            "{why}"
        ),
        Read::Known(b) => panic!("block {b:?}"),
    }
    let lines =
        |line: &str| -> Vec<&String> { all.iter().filter(|s| s.starts_with(line)).collect() };
    assert_eq!(
        lines("9: "),
        [
            "9: k grid ? block 32 smem 128 B [block = 32, smem = 128]",
            "9: k grid ? block 1024 smem 4096 B [block = 1024, smem = 4096]",
            "9: k grid ? block (16, 16) smem 65536 B [block = (16, 16), smem = 65536]",
        ]
    );
    // The code states the block: the pairs with that block give the shared memory.
    assert_eq!(
        lines("11: "),
        [
            "11: k grid ? block 1024 smem 4096 B [smem = 4096]",
            "11: k grid ? block 1024 smem 8192 B [smem = 8192]",
        ]
    );
    // The code states 0 B and no pair has it: not checked, never a pair's block with 0 B.
    assert_eq!(lines("13: ").len(), 1, "{all:#?}");
    assert!(lines("13: ")[0].contains("block ?"), "{all:#?}");
    // One shared memory candidate crosses nothing.
    assert_eq!(
        lines("15: "),
        [
            "15: k grid ? block 32 smem 4096 B [block = 32, smem = 4096]",
            "15: k grid ? block 1024 smem 4096 B [block = 1024, smem = 4096]",
        ]
    );
}

#[test]
fn functions_a_macro_defines_at_file_scope_are_read_where_it_is_invoked() {
    let src = r#"
#define TILE 128
template <typename T, int BITS> __global__ void unpack_kernel(const T* in, T* out, int n) {}
__global__ void scale_f32(float* x, int n) {}

static int cdiv(int a, int b) { return (a + b - 1) / b; }

#define DEFINE_UNPACK(bits, T, suffix)                                  \
  extern "C" void unpack_##bits##bit_##suffix(const T* in, T* out,      \
                                             int n) {                  \
    unpack_kernel<T, bits><<<cdiv(n, TILE), TILE>>>(in, out, n);        \
  }

// 2- and 4-bit launchers
DEFINE_UNPACK(2, float, f32) /* f32 */ DEFINE_UNPACK(4, float, f32)

namespace ops {
#define DEFINE_SCALE(NAME, THREADS) \
  extern "C" void NAME(float* x, int n) { scale_f32<<<n, THREADS>>>(x, n); }
DEFINE_SCALE(scale_small, 64);
}

void body_only(float* x, int n) {
  DEFINE_UNPACK(8, float, f32)
}

#define BOTH_WIDTHS(T,                                                   \
                    suffix)                                             \
  DEFINE_UNPACK(16, T, suffix) DEFINE_UNPACK(32, T, suffix)
BOTH_WIDTHS(double, f64)
"#;
    let (_d, r) = read(&[("src/cuda/a.cu", src)]);
    let all = summaries(&r);
    // Each invocation (line 15) defines a launcher, whose launch is at its line in the
    // `#define`.
    assert_eq!(
        all,
        [
            "11: unpack_kernel<float, 2> grid ? block 128 smem 0 B",
            "11: unpack_kernel<float, 4> grid ? block 128 smem 0 B",
            "19: scale_f32 grid ? block 64 smem 0 B",
            // Through a macro that only invokes definers: at that invocation's line.
            "30: unpack_kernel<double, 16> grid ? block 128 smem 0 B",
            "30: unpack_kernel<double, 32> grid ? block 128 smem 0 B",
        ],
    );
    let functions: Vec<&str> = r
        .launches
        .iter()
        .filter(|l| l.line == 11 || l.line == 30)
        .map(|l| l.function.as_str())
        .collect();
    // A macro that only invokes definers defines too.
    assert_eq!(
        functions,
        [
            "unpack_2bit_f32",
            "unpack_4bit_f32",
            "unpack_16bit_f64",
            "unpack_32bit_f64"
        ]
    );
    // Inside a function body it is a statement, not a definition: not expanded there.
    assert!(
        !all.iter().any(|s| s.contains("unpack_kernel<float, 8>")),
        "{all:#?}"
    );
}

#[test]
fn a_macro_defined_in_a_function_and_a_product_in_a_dim3_constructor() {
    let src = r#"
#define LANES 32
template <typename T, int D> __global__ void rows_kernel(const T* x, int n) {}
template <typename T>
void launch_rows(const T* x, int n, int d, cudaStream_t s) {
  constexpr int ROWS = 4;
  const dim3 block(LANES * ROWS);
#define RUN_ROWS(D) rows_kernel<T, D><<<n, block, 0, s>>>(x, n)
  switch (d) {
  case 64: RUN_ROWS(64); break;
  case 128: RUN_ROWS(128); break;
  default: break;
  }
#undef RUN_ROWS
}
extern "C" void rows_f32(const float* x, int n, int d, cudaStream_t s) { launch_rows(x, n, d, s); }
"#;
    let (_d, r) = read(&[("src/cuda/a.cu", src)]);
    assert_eq!(
        summaries(&r),
        [
            "10: rows_kernel<float, 64> grid ? block 128 smem 0 B [d == 64]",
            "11: rows_kernel<float, 128> grid ? block 128 smem 0 B [d == 128]",
        ]
    );
}

#[test]
fn cpp_integer_semantics() {
    let src = format!(
        r#"{KERNELS}
extern "C" void run(float* x, int n) {{
  unsigned u = 0u - 1u;
  k<<<1, (u >> 22) + 1>>>(x, n);
  int h = 0x40 | 0x100;
  k<<<1, h, sizeof(double) * 3 + sizeof(float4)>>>(x, n);
  long big = 1L << 40;
  k<<<1, (int)(big >> 32)>>>(x, n);
  k<<<1, 1000 / 3 * 3 % 512>>>(x, n);
}}
"#
    );
    assert_eq!(
        one(&[("src/cuda/a.cu", &src)]),
        [
            "7: k grid 1 block 1024 smem 0 B",
            "9: k grid 1 block 320 smem 40 B",
            "11: k grid 1 block 256 smem 0 B",
            "12: k grid 1 block 487 smem 0 B",
        ]
    );
}

#[test]
fn headers_inside_the_crate_and_explicit_instantiations() {
    let header = "#pragma once\nconstexpr int kHeaderBlock = 384;\n";
    let src = format!(
        r#"#include "common.cuh"
#include "../../include/shared.h"
#include "missing.cuh"
#include <cuda_runtime.h>
{KERNELS}
template <typename T, int B> void launch_t(T* x, int n) {{ tk<T, B><<<n, B>>>(x, n); }}
template void launch_t<float, 64>(float*, int);
extern "C" void run(float* x, int n) {{ k<<<n, kHeaderBlock + kShared>>>(x, n); }}
"#
    );
    let (_d, r) = read(&[
        ("src/cuda/a.cu", &src),
        ("src/cuda/common.cuh", header),
        ("include/shared.h", "constexpr int kShared = 128;\n"),
    ]);
    assert_eq!(
        summaries(&r),
        [
            "9: tk<float, 64> grid ? block 64 smem 0 B",
            "11: k grid ? block 512 smem 0 B",
        ]
    );
    assert_eq!(
        r.files,
        ["src/cuda/a.cu", "src/cuda/common.cuh", "include/shared.h"]
    );
}

#[cfg(unix)]
#[test]
fn nothing_outside_the_crate_and_no_device_files() {
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(
        outside.path().join("evil.cuh"),
        "constexpr int kEvil = 64;\n",
    )
    .unwrap();
    let src = format!(
        r#"#include "evil.cuh"
{KERNELS}
extern "C" void run(float* x, int n) {{ k<<<n, kEvil>>>(x, n); }}
"#
    );
    let dir = tempfile::tempdir().unwrap();
    let cuda = dir.path().join("src/cuda");
    std::fs::create_dir_all(&cuda).unwrap();
    std::fs::write(cuda.join("a.cu"), src).unwrap();
    std::os::unix::fs::symlink(outside.path().join("evil.cuh"), cuda.join("evil.cuh")).unwrap();
    std::os::unix::fs::symlink("/dev/zero", cuda.join("zero.cu")).unwrap();
    let r = occupancy_cuda::read(dir.path(), &[PathBuf::from("src/cuda")]);
    let notes = notes_of(&r);
    assert!(
        notes
            .iter()
            .any(|n| n.contains("leads outside the crate's directory")),
        "{notes:#?}"
    );
    assert!(notes.iter().any(|n| n.contains("zero.cu")), "{notes:#?}");
    let l = &r.launches[0];
    assert!(matches!(&l.paths[0].block, Read::Unknown(why) if why.contains("kEvil")));
}

#[test]
fn bad_input_ends_with_notes() {
    let deep = format!("int x = {}1{};", "(".repeat(20_000), ")".repeat(20_000));
    let bomb = "#define A0 x x\n#define A1 A0 A0\n#define A2 A1 A1\n#define A3 A2 A2\n#define A4 A3 A3\n#define A5 A4 A4\n#define A6 A5 A5\n#define A7 A6 A6\n#define A8 A7 A7\n#define A9 A8 A8\n#define B0 A9 A9 A9 A9 A9 A9 A9 A9\n#define B1 B0 B0 B0 B0 B0 B0 B0 B0\n#define B2 B1 B1 B1 B1 B1 B1 B1 B1\n__global__ void k(int) {}\nextern \"C\" void run(int n) { k<<<1, B2>>>(n); }\n";
    let recursion = "template <int N> void r(int n) { r<N + 1>(n); k<<<1, N>>>(n); }\n__global__ void k(int) {}\nextern \"C\" void go(int n) { r<1>(n); }\n";
    let garbage = "}}}{{{ <<<>>> extern \"C\" void f( { k<<<,>>>(; #define\n";
    let (_d, r) = read(&[
        ("src/cuda/deep.cu", &deep),
        ("src/cuda/bomb.cu", bomb),
        ("src/cuda/rec.cu", recursion),
        ("src/cuda/garbage.cu", garbage),
    ]);
    let bomb_launch = r
        .launches
        .iter()
        .find(|l| l.file.ends_with("bomb.cu"))
        .unwrap();
    assert!(
        matches!(&bomb_launch.paths[0].block, Read::Unknown(why) if why.contains("KiB")),
        "{:?}",
        bomb_launch.paths
    );
    // Template recursion stops at the call depth; each depth's launch is read.
    let rec = r
        .launches
        .iter()
        .find(|l| l.file.ends_with("rec.cu"))
        .unwrap();
    assert!(rec.paths.len() >= 8, "{:?}", rec.paths);
    assert!(r.notes.iter().any(|n| n.file.ends_with("garbage.cu")));
}

#[test]
fn recursion_of_one_instantiation_is_followed_once() {
    // `go` reaches itself through each arm of a dispatch: followed down to the call depth,
    // that is 3^12 calls, each expanding the macro again: the step budget ran out before
    // the launch after the dispatch was read.
    let src = format!(
        r#"{KERNELS}
#define DISPATCH(D, ...) switch (D) {{ case 64: {{ constexpr int kD = 64; __VA_ARGS__ }} break; case 128: {{ constexpr int kD = 128; __VA_ARGS__ }} break; case 256: {{ constexpr int kD = 256; __VA_ARGS__ }} break; }}
template <typename T, int D> void go(T* x, int n, int d) {{
  DISPATCH(d, go<T, kD>(x, n, n);)
  tk<T, D><<<n, D>>>(x, n);
}}
extern "C" void run(float* x, int n, int d) {{ DISPATCH(d, go<float, kD>(x, n, d);) }}
"#
    );
    let (_d, r) = read(&[("src/cuda/a.cu", &src)]);
    assert_eq!(
        summaries(&r),
        [
            "8: tk<float, 64> grid ? block 64 smem 0 B [d == 64]",
            "8: tk<float, 128> grid ? block 128 smem 0 B [d == 128]",
            "8: tk<float, 256> grid ? block 256 smem 0 B [d == 256]",
        ],
        "{:#?}",
        r.notes
    );
    let notes = notes_of(&r);
    assert!(
        notes
            .iter()
            .any(|n| n.contains("calls itself (with the same template arguments)")),
        "{notes:?}"
    );
    assert!(!notes.iter().any(|n| n.contains("steps")), "{notes:?}");
}

#[test]
fn launches_no_path_reaches_are_listed() {
    let src = format!(
        r#"{KERNELS}
static void helper(float* x, int n) {{ k<<<n, 128>>>(x, n); }}
using fn_t = void (*)(float*, int);
extern "C" fn_t pick() {{ return helper; }}
"#
    );
    let (_d, r) = read(&[("src/cuda/a.cu", &src)]);
    // `helper` is named by `pick`, so it is not a root; nothing calls it.
    let l = launch(&r, 5);
    assert!(l.paths.is_empty());
    assert!(
        l.not_checked[0].contains("no path the reader follows"),
        "{:?}",
        l.not_checked
    );
}

#[allow(dead_code)]
fn unused(_: &Path) {}

#[test]
fn a_dispatch_macro_with_a_lambda_and_no_semicolon() {
    let src = r#"
#define DISPATCH_TYPES(dtype, ...)                 \
    switch (dtype) {                               \
    case 0: { using scalar_t = float; __VA_ARGS__(); break; }   \
    case 1: { using scalar_t = __half; __VA_ARGS__(); break; }  \
    default: break;                                \
    }
template <typename T> __global__ void norm(T* y, int n) {}
constexpr int kWarps = 8;
extern "C" void launch_norm(void* y, int n, int dtype, cudaStream_t s) {
    DISPATCH_TYPES(dtype, [&] {
        norm<scalar_t><<<n, kWarps * 32, 0, s>>>(
            static_cast<scalar_t*>(y), n);
    })
}
"#;
    let (_d, r) = read(&[("src/cuda/a.cu", src)]);
    // The launch is reported at its own line inside the macro's argument.
    assert_eq!(
        summaries(&r),
        [
            "12: norm<float> grid ? block 256 smem 0 B [dtype == 0]",
            "12: norm<__half> grid ? block 256 smem 0 B [dtype == 1]",
        ]
    );
}

#[test]
fn launches_inside_expressions_and_unknown_wrappers() {
    let src = format!(
        r#"{KERNELS}
extern "C" cudaError_t run(float* x, int n, cudaStream_t s) {{
  CUDA_CHECK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, 65536));
  cudaLaunchConfig_t c = {{.gridDim = dim3(n), .blockDim = dim3(128), .dynamicSmemBytes = 65536}};
  return cudaLaunchKernelEx(&c, k, x, n);
}}
"#
    );
    assert_eq!(
        one(&[("src/cuda/a.cu", &src)]),
        ["8: k grid ? block 128 smem 65536 B opt-in 65536 B"]
    );
}

#[test]
fn shared_memory_that_grows_with_the_input_is_checked_at_its_bounds() {
    // The block from a doubling loop, the shared memory from the same input: each block
    // carries the columns that lead to it (cols <= b, and > b / 2 after a step), so the
    // largest shared memory per block; at 1024 threads nothing bounds cols: the most that
    // launches without an opt-in, and the first multiple of 4 above it.
    let src = format!(
        r#"{KERNELS}
extern "C" void softmax(float* x, int rows, int cols) {{
  int block = 32;
  while (block < cols && block < 1024) {{ block <<= 1; }}
  const size_t smem = static_cast<size_t>(cols) * sizeof(float);
  k<<<rows, block, smem>>>(x, cols);
}}
"#
    );
    let (_d, r) = read(&[("src/cuda/a.cu", &src)]);
    let got: Vec<String> = launch(&r, 9)
        .paths
        .iter()
        .map(|p| {
            format!(
                "{}/{}",
                p.block.known().unwrap()[0],
                p.dynamic_smem_bytes.known().unwrap()
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            "32/128",
            "64/256",
            "128/512",
            "256/1024",
            "512/2048",
            "1024/49152",
            "1024/49156"
        ]
    );
}

#[test]
fn alignment_specifiers_and_cuda_qualifiers_parse_without_a_note() {
    // `__align__(N)` made tree-sitter fail ("does not parse `16) unsigned char`") on every
    // build; it is blanked before parsing, lines kept (a line break inside it too).
    let src = r#"#define kSmemBlock 192
struct __align__(16) Pair { float a, b, c, d; };
struct __builtin_align__(8) Half2 { short x, y; };
__device__ __forceinline__ int twice(int a) { return 2 * a; }
__device__ __host__ inline int half(int a) { return a / 2; }
__global__ void __launch_bounds__(256, 2) k(float* __restrict__ x, int n) {
  extern __shared__ __align__(16) unsigned char smem_raw[];
  __shared__ __align__(
      8) float tile[32];
  __shared__ float more[8] __attribute__((aligned(16)));
}
extern "C" void run(float* __restrict__ x, int n) {
  k<<<n, kSmemBlock, 4096>>>(x, n);
  constexpr int kAfter = 64;
  k<<<n, kAfter * 2>>>(x, n);
}
"#;
    let (_d, r) = read(&[("src/cuda/a.cu", src)]);
    let notes = notes_of(&r);
    assert!(notes.is_empty(), "{notes:#?}");
    assert_eq!(
        summaries(&r),
        [
            "13: k grid ? block 192 smem 4096 B",
            "15: k grid ? block 128 smem 0 B",
        ]
    );
    // Before the fix-up the same file gave a note at line 7; a name that only contains
    // `__align__` is left alone (and still does not parse here).
    let (_d, r) = read(&[(
        "src/cuda/a.cu",
        &src.replace("__align__(16) unsigned", "my__align__(16) unsigned"),
    )]);
    let notes = notes_of(&r);
    assert_eq!(notes.len(), 1, "{notes:#?}");
    assert!(notes[0].starts_with("src/cuda/a.cu:7: "), "{notes:#?}");
}

#[test]
fn a_bad_candidate_comment_is_an_error_at_its_line_and_never_half_applied() {
    // Issue 20: `[128, abc]` and `[128, 2O48]` checked only 128; `blok` and `smem = [0,
    // banana]` were ignored without a word.
    let src = format!(
        r#"{KERNELS}
extern "C" void run(float* x, int n, int threads) {{
  // occupancy: block = [128, abc]
  k<<<n, threads>>>(x, n);
  k<<<n, threads>>>(x, n); // occupancy: block = [128, 2O48]
  // occupancy: blok = [128, 256]
  k<<<n, threads>>>(x, n);
  // occupancy: block = [64]
  // occupancy: smem = [0, banana]
  k<<<n, threads, 0>>>(x, n);
  // tuned for occupancy: 50% on an A100 (prose, not candidates)
  // occupancy: block = [(8, 4)]
  k<<<n, threads>>>(x, n);
}}
"#
    );
    let (_d, r) = read(&[("src/cuda/a.cu", &src)]);
    assert_eq!(
        summaries(&r),
        [
            "7: not checked: the `// occupancy:` comment on line 6 is not read: `block`: expected a size or [x, y] / [x, y, z], found `abc`",
            "8: not checked: the `// occupancy:` comment on line 8 is not read: `block`: expected a size or [x, y] / [x, y, z], found `2O48`",
            "10: not checked: the `// occupancy:` comment on line 9 is not read: unknown key `blok`; did you mean `block`?",
            "13: not checked: the `// occupancy:` comment on line 12 is not read: `smem`: expected a whole number of bytes, found `banana`",
            "16: k grid ? block (8, 4) smem 0 B [block = (8, 4)]",
        ]
    );
    let notes = notes_of(&r);
    assert_eq!(
        notes,
        [
            "src/cuda/a.cu:6: `// occupancy:` comment not read (the launch on line 7 is not checked): `block`: expected a size or [x, y] / [x, y, z], found `abc`",
            "src/cuda/a.cu:8: `// occupancy:` comment not read (the launch on line 8 is not checked): `block`: expected a size or [x, y] / [x, y, z], found `2O48`",
            "src/cuda/a.cu:9: `// occupancy:` comment not read (the launch on line 10 is not checked): unknown key `blok`; did you mean `block`?",
            "src/cuda/a.cu:12: `// occupancy:` comment not read (the launch on line 13 is not checked): `smem`: expected a whole number of bytes, found `banana`",
        ]
    );
}

#[test]
fn launch_tables_that_name_no_launching_function_are_noted() {
    // Issue 20: `[launches.launch_dd]` (the function is `launch_d`) gave no warning.
    let src = format!(
        r#"{KERNELS}
namespace ops {{ void launch_d(float* x, int n, int t) {{ k<<<n, t>>>(x, n); }} }}
extern "C" void launch_scale(float* x, int n, int t) {{ ops::launch_d(x, n, t); k<<<n, t>>>(x, n); }}
"#
    );
    let r = occupancy_cuda::read_texts(&[("src/cuda/a.cu", &src)]);
    let policy = occupancy_core::policy::Policy::from_toml(
        "[launches.launch_dd]\nblock = [128]\n[launches.\"ops::launch_d\"]\nblock = [64]\n\
         [launches.launch_scale]\nblock = [256]\n[launches.zzz]\nsmem = [0]\n",
    )
    .unwrap();
    assert_eq!(
        occupancy_cuda::unmatched_launch_tables(&r, &policy),
        [
            "occupancy.toml: `[launches.launch_dd]` names no launching host function of the files read; did you mean `launch_d`?",
            "occupancy.toml: `[launches.zzz]` names no launching host function of the files read (launching functions read: `ops::launch_d`, `launch_d`, `launch_scale`)",
        ]
    );
    // Nothing read: nothing to compare with.
    let empty = occupancy_cuda::read_texts(&[]);
    assert!(occupancy_cuda::unmatched_launch_tables(&empty, &policy).is_empty());
}

/// `dim3 block(TILE, TILE);` is read by the grammar as a function declaration (C++'s most
/// vexing parse); with constants for arguments it is the variable the compiler makes, never
/// a default `dim3` of 1 thread. A real local function declaration gives no value.
#[test]
fn dim3_constructed_from_constants_is_a_variable_not_a_function() {
    let src = format!(
        r#"{KERNELS}
#define TILE 16
constexpr int kTile = 8;
struct Traits {{ static constexpr int kN = 64; }};
extern "C" void run(float* x, int n, cudaStream_t s) {{
  dim3 a(TILE, TILE);
  k<<<n, a, 0, s>>>(x, n);
  dim3 b(kTile);
  k<<<n, b, 0, s>>>(x, n);
  dim3 c(Traits::kN, kTile, TILE);
  k<<<n, c, 0, s>>>(x, n);
  dim3 d(int);
  k<<<n, d(3), 0, s>>>(x, n);
  dim3 e;
  k<<<n, e, 0, s>>>(x, n);
}}
"#
    );
    let got = one(&[("src/cuda/a.cu", &src)]);
    assert_eq!(
        got[..3],
        [
            "10: k grid ? block (16, 16) smem 0 B",
            "12: k grid ? block 8 smem 0 B",
            "14: k grid ? block (64, 8, 16) smem 0 B"
        ]
    );
    assert_eq!(got[3], "16: k grid ? block ? smem 0 B");
    assert_eq!(got[4], "18: k grid ? block 1 smem 0 B");
    assert_eq!(got.len(), 5, "{got:?}");
}

/// Shared memory that grows with the input is checked at the limit and above it once the
/// code bounds it above 0 (the least value gives the sizes the input makes); from 0 or
/// below it is not checked, and the reason says what makes it checked.
#[test]
fn growing_shared_memory_needs_a_least_value() {
    let src = format!(
        r#"{KERNELS}
extern "C" void unguarded(float* x, int n, cudaStream_t s) {{
  const size_t smem = n * sizeof(float);
  k<<<1, 256, smem, s>>>(x, n);
}}
extern "C" void guarded(float* x, int n, cudaStream_t s) {{
  if (n <= 0) return;
  const size_t smem = n * sizeof(float);
  k<<<1, 256, smem, s>>>(x, n);
}}
"#
    );
    let (_dir, r) = read(&[("src/cuda/a.cu", &src)]);
    let unguarded = &launch(&r, 7).paths;
    assert_eq!(unguarded.len(), 1);
    match &unguarded[0].dynamic_smem_bytes {
        Read::Unknown(why) => assert!(
            why.ends_with("known only at run time (it starts at 0 or below: a guard that keeps it above 0, such as `if (n <= 0) return;`, has it checked at the limit and above it)"),
            "{why}"
        ),
        known => panic!("{known:?}"),
    }
    let guarded: Vec<String> = launch(&r, 12).paths.iter().map(|p| p.summary()).collect();
    assert_eq!(guarded.len(), 2, "{guarded:?}");
    assert!(guarded[0].contains("smem 49152 B"), "{guarded:?}");
    assert!(guarded[1].contains("smem 49156 B"), "{guarded:?}");
}

/// A template kernel launched without its arguments (`dk<<<g, b>>>(x, y, n)`): its type
/// parameter deduced from the variables passed, through a host template called without
/// arguments too; never from a template the files do not instantiate, nor where the
/// arguments disagree or a non-type parameter has no default.
#[test]
fn template_arguments_deduced_from_the_launch() {
    let src = format!(
        r#"{KERNELS}
template <typename T> __global__ void dk(const T* x, T* y, int n) {{}}
template <typename T, int kBlock = 128> __global__ void dn(T* y, int n) {{}}
template <typename T> void never(T* x, int n, cudaStream_t s) {{
  dk<<<1, 128, 0, s>>>(x, x, n);
}}
template <typename T> void called(const T* x, T* y, int n, cudaStream_t s) {{
  dk<<<1, 256, 0, s>>>(x, y, n);
}}
extern "C" void run(const __half* xh, __half* yh, float* yf, int n, cudaStream_t s) {{
  dk<<<1, 64, 0, s>>>(xh, yh, n);
  called(xh, yh, n, s);
  dn<<<1, 32, 0, s>>>(yf, n);
  float* local[2];
  dk<<<1, 96, 0, s>>>(yf, local, n);
  dk<<<1, 160, 0, s>>>(xh, yf, n);
  tk<<<1, 192, 0, s>>>(yf, n);
}}
"#
    );
    let got = one(&[("src/cuda/a.cu", &src)]);
    let deduced = |line: u32| {
        format!(
            "{line}: not checked: `dk`: the template arguments of `dk` are deduced from the launch's arguments, and not all of them are read (the reader deduces a type parameter from a variable declared with it, `const T* x`, or a cast to it); write them (`dk<...>`)"
        )
    };
    assert_eq!(
        got,
        [
            "8: dk<?> grid 1 block 128 smem 0 B".to_owned(),
            deduced(8),
            "11: dk<__half> grid 1 block 256 smem 0 B".to_owned(),
            "14: dk<__half> grid 1 block 64 smem 0 B".to_owned(),
            "16: dn<float, 128> grid 1 block 32 smem 0 B".to_owned(),
            // `local` is a `float*[2]`: `T*` against `float**` is `T = float*`, which
            // disagrees with `x`'s `float`; `xh` and `yf` disagree; `tk`'s `int N` has no
            // default.
            "18: dk<?> grid 1 block 96 smem 0 B".to_owned(),
            deduced(18),
            "19: dk<?> grid 1 block 160 smem 0 B".to_owned(),
            deduced(19),
            "20: tk<?> grid 1 block 192 smem 0 B".to_owned(),
            deduced(20)
                .replace("`dk`", "`tk`")
                .replace("dk<...>", "tk<...>"),
        ]
    );
}

#[test]
fn a_variable_declared_in_a_block_or_a_for_is_gone_after_it() {
    let src = format!(
        r#"{KERNELS}
template <typename T> __global__ void dk(T* x, int n) {{}}
constexpr int TILE = 16;
extern "C" void run(float* x, __half* h, int n) {{
  int block = 256;
  {{ int block = 128; k<<<n, block>>>(x, n); }}
  k<<<n, block>>>(x, n);
  int i = 7;
  for (int i = 0; i < 4; ++i) {{}}
  k<<<n, i * 32>>>(x, n);
  {{ __half* x = h; dk<<<n, 64>>>(x, n); }}
  dk<<<n, 96>>>(x, n);
  {{ constexpr int TILE = 4; dim3 b(TILE, TILE); k<<<n, b>>>(x, n); }}
  dim3 b(TILE, TILE);
  k<<<n, b>>>(x, n);
  int c = 64;
  {{ c = 512; int c = 32; (void)c; }}
  k<<<n, c>>>(x, n);
}}
"#
    );
    assert_eq!(
        one(&[("src/cuda/a.cu", &src)]),
        [
            "9: k grid ? block 128 smem 0 B",
            "10: k grid ? block 256 smem 0 B",
            "13: k grid ? block 224 smem 0 B",
            "14: dk<__half> grid ? block 64 smem 0 B",
            "15: dk<float> grid ? block 96 smem 0 B",
            "16: k grid ? block (4, 4) smem 0 B",
            "18: k grid ? block (16, 16) smem 0 B",
            "21: k grid ? block ? smem 0 B",
        ]
    );
}

/// Constants of the same name in different namespaces are told apart as C++ does: the
/// innermost enclosing namespace that declares one, the namespace a qualifier names; one
/// declared only in namespaces around none of the code is read only when it is one.
#[test]
fn constants_are_looked_up_by_namespace() {
    let src = format!(
        r#"{KERNELS}
constexpr int TILE = 16;
namespace cfg {{ constexpr int TILE = 8; constexpr int kTwice = TILE * 2; }}
namespace other {{ constexpr int kB = 64; }}
namespace third {{ constexpr int kB = 32; }}
namespace solo {{ constexpr int kOnly = 96; }}
namespace other {{
void launch_other(float* x, int n, cudaStream_t s) {{
  k<<<n, kB, 0, s>>>(x, n);
  k<<<n, TILE, 0, s>>>(x, n);
}}
}}
extern "C" void run(float* x, int n, cudaStream_t s) {{
  k<<<n, TILE, 0, s>>>(x, n);
  k<<<n, cfg::TILE, 0, s>>>(x, n);
  dim3 b(cfg::TILE, TILE);
  k<<<n, b, 0, s>>>(x, n);
  k<<<n, cfg::kTwice, 0, s>>>(x, n);
  k<<<n, kOnly, 0, s>>>(x, n);
  k<<<n, kB, 0, s>>>(x, n);
}}
"#
    );
    let got = one(&[("src/cuda/a.cu", &src)]);
    assert_eq!(
        got[..7],
        [
            "12: k grid ? block 64 smem 0 B",
            "13: k grid ? block 16 smem 0 B",
            "17: k grid ? block 16 smem 0 B",
            "18: k grid ? block 8 smem 0 B",
            "20: k grid ? block (8, 16) smem 0 B",
            "21: k grid ? block 16 smem 0 B",
            "22: k grid ? block 96 smem 0 B",
        ]
    );
    assert_eq!(got.len(), 8, "{got:?}");
    assert!(got[7].starts_with("23: k grid ? block ?"), "{got:?}");
    let (_dir, r) = read(&[("src/cuda/a.cu", &src)]);
    match &launch(&r, 23).paths[0].block {
        Read::Unknown(why) => assert!(
            why.contains(
                "`kB`: declared in 2 namespaces (other, third), none enclosing the code read"
            ),
            "{why}"
        ),
        known => panic!("{known:?}"),
    }
}

/// A kernel name with several definitions (a template and a plain overload, or `#if`
/// alternatives) launched without template arguments: C++ picks one by the arguments,
/// which is not read; with explicit arguments it is the template's instantiation.
#[test]
fn overloaded_kernels_are_not_guessed() {
    let src = format!(
        r#"{KERNELS}
template <typename T> __global__ void ok(const T* x, int n) {{}}
__global__ void ok(const float* x, int n) {{}}
extern "C" void run(const float* x, int n, cudaStream_t s) {{
  ok<<<n, 32, 0, s>>>(x, n);
  ok<float><<<n, 64, 0, s>>>(x, n);
}}
"#
    );
    let got = one(&[("src/cuda/a.cu", &src)]);
    assert_eq!(
        got,
        [
            "8: ok<?> grid ? block 32 smem 0 B",
            "8: not checked: `ok`: `ok` names 2 kernels (overloads, or `#if` alternatives): which one the launch calls is not read",
            "9: ok<float> grid ? block 64 smem 0 B",
        ]
    );
}

/// `T*` against a `const float*` deduces `T = const float`, another kernel than
/// `mk<float>` (its own symbol): not deduced; `const T*` takes either.
#[test]
fn a_const_argument_is_not_deduced_into_a_plain_pointer() {
    let src = format!(
        r#"{KERNELS}
template <typename T> __global__ void mk(T* x, int n) {{}}
template <typename T> __global__ void ck(const T* x, int n) {{}}
extern "C" void run(const float* cx, float* x, float* const px, int n, cudaStream_t s) {{
  mk<<<n, 32, 0, s>>>(cx, n);
  mk<<<n, 64, 0, s>>>(x, n);
  mk<<<n, 96, 0, s>>>(px, n);
  ck<<<n, 128, 0, s>>>(cx, n);
  ck<<<n, 160, 0, s>>>(x, n);
}}
"#
    );
    let got = one(&[("src/cuda/a.cu", &src)]);
    assert_eq!(got.len(), 6, "{got:?}");
    assert_eq!(got[0], "8: mk<?> grid ? block 32 smem 0 B");
    assert_eq!(got[2], "9: mk<float> grid ? block 64 smem 0 B");
    assert_eq!(got[3], "10: mk<float> grid ? block 96 smem 0 B");
    assert_eq!(got[4], "11: ck<float> grid ? block 128 smem 0 B");
    assert_eq!(got[5], "12: ck<float> grid ? block 160 smem 0 B");
}

/// An unnamed namespace's constant hides the enclosing namespace's of the same name from
/// code inside it; from outside, both are visible (C++ rejects the name as ambiguous):
/// not read. Nested namespaces are named from an enclosing one (`b::kD` in `a`).
#[test]
fn an_unnamed_namespace_hides_the_enclosing_constants_inside_it() {
    let src = format!(
        r#"{KERNELS}
namespace {{ constexpr int kA = 64; }}
constexpr int kB = 32;
namespace {{ constexpr int kB = 128; void inner(float* x, int n, cudaStream_t s) {{ k<<<n, kB, 0, s>>>(x, n); k<<<n, kA, 0, s>>>(x, n); }} }}
extern "C" {{
constexpr int kC = 96;
void outer(float* x, int n, cudaStream_t s) {{ k<<<n, kA, 0, s>>>(x, n); k<<<n, kC, 0, s>>>(x, n); k<<<n, kB, 0, s>>>(x, n); }}
}}
namespace a {{ namespace b {{ constexpr int kD = 256; }} }}
namespace a {{ void deep(float* x, int n, cudaStream_t s) {{ k<<<n, b::kD, 0, s>>>(x, n); k<<<n, a::b::kD, 0, s>>>(x, n); }} }}
struct L {{ static void run(float* x, int n, cudaStream_t s) {{ k<<<n, kB, 0, s>>>(x, n); }} }};
"#
    );
    let (_dir, r) = read(&[("src/cuda/a.cu", &src)]);
    let got: Vec<String> = r
        .launches
        .iter()
        .flat_map(|l| {
            l.paths
                .iter()
                .map(move |p| format!("{} {}: {}", l.line, l.function, p.summary()))
        })
        .collect();
    assert_eq!(
        got,
        [
            "7 inner: k grid ? block 128 smem 0 B",
            "7 inner: k grid ? block 64 smem 0 B",
            "10 outer: k grid ? block 64 smem 0 B",
            "10 outer: k grid ? block 96 smem 0 B",
            "10 outer: k grid ? block ? smem 0 B",
            "13 a::deep: k grid ? block 256 smem 0 B",
            "14 L::run: k grid ? block ? smem 0 B",
        ]
    );
    match &launch(&r, 14).paths[0].block {
        Read::Unknown(why) => assert!(
            why.contains("`kB`: declared both in an unnamed namespace and outside it"),
            "{why}"
        ),
        known => panic!("{known:?}"),
    }
}

/// A variable whose address goes to a call the reader does not follow may be written by
/// it: marlin's repack launch starts `max_shared_mem` at 0, asks the device for its opt-in
/// shared memory into it and launches with that; it was read as 0 B. The value is now run
/// time from the call on, inside a `CHECK(..)` macro too, and a variable only read by
/// such a call keeps its value.
#[test]
fn a_variable_a_call_may_write_through_its_address_is_run_time_after_it() {
    let src = format!(
        r#"{KERNELS}
extern "C" void run(float* x, int n, cudaStream_t s) {{
  int smem = 0;
  cudaDeviceGetAttribute(&smem, cudaDevAttrMaxSharedMemoryPerBlockOptin, 0);
  k<<<n, 256, smem, s>>>(x, n);
  int block = 128;
  CUDA_CHECK(cudaOccupancyMaxPotentialBlockSize(&n, &block, k, 0, 0));
  k<<<n, block, 0, s>>>(x, n);
  int kept = 64;
  log_value(kept);
  k<<<n, kept, 0, s>>>(x, n);
}}
"#
    );
    let got = one(&[("src/cuda/a.cu", &src)]);
    assert_eq!(got.len(), 3, "{got:#?}");
    assert!(
        got[0].starts_with("8: k grid ? block 256 smem ?"),
        "{got:#?}"
    );
    assert!(
        got[1].starts_with("11: k grid ? block ? smem 0 B"),
        "{got:#?}"
    );
    assert_eq!(got[2], "14: k grid ? block 64 smem 0 B");
    let (_dir, r) = read(&[("src/cuda/a.cu", &src)]);
    // Read for no target, the device's answer is of none: run time, never the 0.
    let why = format!("{:?}", launch(&r, 8).paths[0]);
    assert!(
        why.contains("`smem` is the device's answer to `cudaDevAttrMaxSharedMemoryPerBlockOptin`: a value of each target, and this path is of no one target"),
        "{why}"
    );
}

/// Reads `src` as `src/cuda/a.cu` for `targets`: each launch as `line: summary`.
fn on_targets(src: &str, targets: &[&str]) -> Vec<String> {
    let targets: Vec<occupancy_core::arch::Target> = targets
        .iter()
        .map(|t| occupancy_core::arch::Target::parse(t).unwrap())
        .collect();
    summaries(&occupancy_cuda::read_texts_for(
        &[("src/cuda/a.cu", src)],
        &targets,
    ))
}

/// A warp-size query, made in a helper and passed down: the block is the target's warp
/// size (32 on every target of the tables), so one launch for both targets, as candle's
/// mmq launchers build `dim3(warp_size, 256 / warp_size)`.
#[test]
fn a_warp_size_query_is_the_targets_warp_size() {
    let src = format!(
        r#"{KERNELS}
static int device_warp_size(int dev) {{
  int ws = 0;
  CUDA_CHECK(cudaDeviceGetAttribute(&ws, cudaDevAttrWarpSize, dev));
  return ws;
}}
static void launch_tiles(float* x, int n, int warp_size, cudaStream_t s) {{
  const int nwarps = 256 / warp_size;
  const dim3 block(warp_size, nwarps, 1);
  k<<<n, block, 0, s>>>(x, n);
}}
extern "C" void run(float* x, int n, cudaStream_t s) {{
  int dev;
  cudaGetDevice(&dev);
  launch_tiles(x, n, device_warp_size(dev), s);
}}
"#
    );
    assert_eq!(
        on_targets(&src, &["sm_80", "sm_90"]),
        ["13: k grid ? block (32, 8) smem 0 B"]
    );
}

/// `cudaGetDeviceProperties` then a field: the opt-in shared memory per block of each
/// target (163 KiB on sm_80, 227 KiB on sm_90), opted in first: one path per target.
#[test]
fn a_device_property_is_each_targets_value() {
    let src = format!(
        r#"{KERNELS}
extern "C" void run(float* x, int n, cudaStream_t s) {{
  cudaDeviceProp prop;
  cudaGetDeviceProperties(&prop, 0);
  const cudaDeviceProp* props = &prop;
  size_t smem = props->sharedMemPerBlockOptin;
  cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, smem);
  k<<<prop.multiProcessorCount, prop.warpSize * 4, smem, s>>>(x, n);
}}
"#
    );
    assert_eq!(
        on_targets(&src, &["sm_80", "H100"]),
        [
            "11: k grid ? block 128 smem 166912 B opt-in 166912 B on sm_80",
            "11: k grid 132 block 128 smem 232448 B opt-in 232448 B on H100 80GB HBM3",
        ]
    );
}

/// The compute capability asked of the device decides a branch and a size per target:
/// `major * 10 + minor` is 80 on sm_80 and 90 on sm_90.
#[test]
fn a_compute_capability_query_decides_per_target() {
    let src = format!(
        r#"{KERNELS}
static int compute_capability(int dev) {{
  int major = 0, minor = 0;
  cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev);
  cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev);
  return major * 10 + minor;
}}
extern "C" void run(float* x, int n, cudaStream_t s) {{
  const int cc = compute_capability(0);
  int block = 128;
  if (cc >= 90) {{
    block = 256;
  }}
  const int smem = cc >= 90 ? 64 * 1024 : 32 * 1024;
  k<<<n, block, smem, s>>>(x, n);
}}
"#
    );
    assert_eq!(
        on_targets(&src, &["sm_80", "sm_90"]),
        [
            "18: k grid ? block 128 smem 32768 B on sm_80",
            "18: k grid ? block 256 smem 65536 B on sm_90",
        ]
    );
}

/// A query the GPU tables cannot answer stays run time, with the reason: the clock rate,
/// or the SM count of a target that names a compute capability and no GPU.
#[test]
fn a_query_the_tables_cannot_answer_is_not_checked_with_the_reason() {
    let src = format!(
        r#"{KERNELS}
extern "C" void run(float* x, int n, cudaStream_t s) {{
  int clock = 1, sms = 1;
  cudaDeviceGetAttribute(&clock, cudaDevAttrClockRate, 0);
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  k<<<n, clock, 0, s>>>(x, n);
  k<<<n, 128, sms * 1024, s>>>(x, n);
}}
"#
    );
    let targets = [occupancy_core::arch::Target::parse("sm_80").unwrap()];
    let r = occupancy_cuda::read_texts_for(&[("src/cuda/a.cu", &src)], &targets);
    let block = format!("{:?}", launch(&r, 9).paths[0].block);
    assert!(
        block.contains(
            "`clock`: `cudaDevAttrClockRate` is not in the GPU tables: known only at run time"
        ),
        "{block}"
    );
    let smem = format!("{:?}", launch(&r, 10).paths[0].dynamic_smem_bytes);
    assert!(
        smem.contains("the number of SMs differs between GPUs of compute capability 8.0"),
        "{smem}"
    );
    assert_eq!(launch(&r, 10).paths[0].targets, ["sm_80"]);
}

/// `#if` groups that split a statement or a declaration (ggml's MMQ code: `if (i < n) {`
/// in one branch and `{` in the other, `__launch_bounds__` chosen per platform before a
/// kernel, a `?:` whose values are chosen by `#ifdef`) are read as one branch, as a build
/// compiles it: with the build's `-D` macros declared (`defines = []`), the branch it
/// compiles; without, the first a CUDA build may (never a HIP one). Before, the grammar
/// failed on the whole file (a note on every build).
#[test]
fn conditional_groups_that_split_statements_are_read_as_one_branch() {
    let src = format!(
        r#"{KERNELS}
template <int B>
#ifdef GGML_USE_HIP
    __launch_bounds__(B, 2)
#else
    __launch_bounds__(B, 1)
#endif
__global__ void lb(float* x, int n) {{}}
extern "C" void run(float* x, int n, bool wide) {{
  const int block = wide ?
#ifdef FORCE_BIG
      512 : 256;
#else
      128 : 64;
#endif
#if defined(GGML_USE_HIP)
  if (n > 64) {{
#else
  {{
#endif
    k<<<n, block>>>(x, n);
  }}
  lb<256><<<n, 256>>>(x, n);
}}
"#
    );
    let shown = |r: &Reading| -> Vec<String> {
        summaries(r)
            .iter()
            .map(|l| l.split(" [").next().unwrap_or(l).to_owned())
            .collect()
    };
    let r = occupancy_cuda::read_texts(&[("src/cuda/a.cu", &src)]);
    let notes = notes_of(&r);
    assert!(notes.is_empty(), "{notes:#?}");
    assert_eq!(
        shown(&r),
        [
            "24: k grid ? block 256 smem 0 B",
            "24: k grid ? block 512 smem 0 B",
            "26: lb<256> grid ? block 256 smem 0 B",
        ]
    );
    let policy = occupancy_core::policy::Policy::from_toml("defines = []\n").unwrap();
    let r = occupancy_cuda::read_texts_with_policy(&[("src/cuda/a.cu", &src)], &policy);
    assert_eq!(
        shown(&r),
        [
            "24: k grid ? block 64 smem 0 B",
            "24: k grid ? block 128 smem 0 B",
            "26: lb<256> grid ? block 256 smem 0 B",
        ]
    );
}

/// Macros that stand for declaration specifiers (flashinfer's `FLASHINFER_INLINE`,
/// CuTe's `CUTE_HOST_DEVICE` from headers the package does not carry) and a macro that
/// defines a member function inside a struct (flashinfer's `REGISTER_LOGITS_TRANSFORM(..,
/// { .. })`) derailed the grammar, a note on every build; a specifier macro that says
/// `__global__` still declares a kernel.
#[test]
fn specifier_macros_and_member_defining_macros_parse_without_a_note() {
    let src = r#"
#define MY_INLINE inline __attribute__((always_inline)) __device__
#define KERNEL_SPEC static __global__
MY_INLINE float twice(float a) { return 2 * a; }
CUTE_HOST_DEVICE int ceil_div(int a, int b) { return (a + b - 1) / b; }
KERNEL_SPEC void kk(float* x, int n) {}
#define MEMBER(name, ...) \
  template <typename T> __device__ T name(T v) { __VA_ARGS__ }
struct Variant {
  MEMBER(transform, { return v; });
};
template <typename P> struct Other : Variant {
  MEMBER(again, { if (v > 0) { return v; } return -v; });
};
extern "C" void run(float* x, int n) { kk<<<n, 128>>>(x, n); }
"#;
    let (_d, r) = read(&[("src/cuda/a.cu", src)]);
    let notes = notes_of(&r);
    assert!(notes.is_empty(), "{notes:#?}");
    assert_eq!(summaries(&r), ["15: kk grid ? block 128 smem 0 B"]);
}

/// A dispatch chain continued by macros (`if (false) {} LAUNCH_IF(..) LAUNCH_IF(..) else
/// { .. }`, as marlin's repack launchers write it): each `else if` arm keeps its condition,
/// so `perm == false` never launches when `perm` is `true`, and an arm runs only on the
/// paths no earlier arm took (`bits <= 1` is taken by the first `if`, so `bits == 1` is
/// never reached).
#[test]
fn an_else_if_chain_continued_by_macros_keeps_its_conditions() {
    let src = format!(
        r#"{KERNELS}
#define LAUNCH_IF(BITS, PERM) \
  else if (bits == BITS && perm == PERM) {{ \
    k<<<n, 64 * BITS, 0, s>>>(x, n); \
  }}
extern "C" void run(float* x, int n, int bits, cudaStream_t s) {{
  bool perm = true;
  if (bits <= 1) {{
    k<<<n, 32, 0, s>>>(x, n);
  }}
  LAUNCH_IF(1, true)
  LAUNCH_IF(2, false)
  LAUNCH_IF(2, true)
  LAUNCH_IF(8, true)
  else {{
    return;
  }}
}}
"#
    );
    let (_d, r) = read(&[("src/cuda/a.cu", &src)]);
    let got = summaries(&r);
    let shown: Vec<&str> = got
        .iter()
        .map(|l| l.split(" [").next().unwrap_or(l))
        .collect();
    assert_eq!(
        shown,
        [
            "12: k grid ? block 32 smem 0 B",
            "16: k grid ? block 128 smem 0 B",
            "17: k grid ? block 512 smem 0 B",
        ],
        "{got:#?}"
    );
    // The closing `else` follows an invocation, not an `if`: it is read as the chain's.
    let notes = notes_of(&r);
    assert!(notes.is_empty(), "{notes:#?}");
}

/// Preprocessor lines and macros that derailed tree-sitter on real crates, each followed
/// by a launch that was lost or a note on every build: `_Pragma("unroll")` in a macro that
/// defines a kernel (candle's binary and unary ops), `#pragma unroll` between a `for` and
/// its body, an `#ifndef` group that continues an `else if` chain (mistral.rs' MoE
/// dispatch), a `/* */` comment inside a launcher's `#define` (afq), an object-like macro
/// written as a statement with no `;` (flash-attn's `FLASH_UNSUPPORTED_ARCH`), a
/// temporary of a dependent type (`typename Traits::Layout{}`), a chain of `else if`
/// macro cases closed by an `else` (marlin's `CALL_IF(..);` .. `else { .. }`), and a
/// `#define` with an empty replacement and a space after it (marlin's `CHECK`).
#[test]
fn pragmas_split_chains_and_statement_macros_parse_without_a_note() {
    let src = format!(
        r#"{KERNELS}
#define SCALE_OP(NAME) \
  __global__ void NAME(float* x, int n) {{ \
    _Pragma("unroll") \
    for (int j = 0; j < 4; j++) {{ x[j] *= 2.0f; }} \
  }}
SCALE_OP(scale_f32)
#define UNSUPPORTED printf("unsupported");
struct Traits {{ struct Layout {{}}; }};
template <typename T> int rank(T) {{ return 1; }}
template <typename Tr> int layout_rank() {{ return rank(typename Tr::Layout{{}}); }}
#define LAUNCHER(NAME, THREADS) \
  extern "C" void NAME(float* x, int n) {{ \
    /* one thread per element */ \
    k<<<(n + THREADS - 1) / THREADS, THREADS>>>(x, n); \
  }}
LAUNCHER(launch_wide, 256)
extern "C" void run(float* x, int n, int dtype) {{
  float acc[4];
#pragma unroll
  for (int i = 0; i < 4; i++)
#pragma unroll
    acc[i] = 0;
  if (dtype == 0) {{
    k<<<n, 128>>>(x, n);
  }}
#ifndef NO_BF16_KERNEL
  else if (dtype == 1) {{
    k<<<n, 64>>>(x, n);
  }}
#endif
  else {{
    UNSUPPORTED
  }}
}}
#define CASE(T) else if (t == T) {{ k<<<n, T>>>(x, n); }}
#define CASES(T) CASE(T) CASE(2 * T)
extern "C" void pick(float* x, int n, int t) {{
  if (false) {{
  }}
  CASES(32);
  else {{
    k<<<n, 16>>>(x, n);
  }}
}}
#define CHECK(cond, ...) {trailing}
namespace late {{ extern "C" void tail(float* x, int n) {{ k<<<n, 8>>>(x, n); }} }}
"#,
        trailing = " "
    );
    let (_d, r) = read(&[("src/cuda/a.cu", &src)]);
    let notes = notes_of(&r);
    assert!(notes.is_empty(), "{notes:#?}");
    assert_eq!(
        summaries(&r),
        [
            "18: k grid ? block 256 smem 0 B",
            "28: k grid ? block 128 smem 0 B [dtype == 0]",
            "32: k grid ? block 64 smem 0 B [!(dtype == 0), dtype == 1]",
            "44: k grid ? block 32 smem 0 B [t == 32]",
            "44: k grid ? block 64 smem 0 B [!(t == 32), t == 2 * 32]",
            "46: k grid ? block 16 smem 0 B [!(t == 32), !(t == 2 * 32)]",
            "50: k grid ? block 8 smem 0 B",
        ]
    );
}

/// Device queries written oddly (no arguments, a pointer instead of an address, an
/// attribute given as a number, a property read before it is filled) are read without a
/// panic, and what they leave is not a device value.
#[test]
fn odd_device_queries_are_read_without_guessing() {
    let src = format!(
        r#"{KERNELS}
extern "C" void run(float* x, int n, int* out, cudaStream_t s) {{
  cudaDeviceProp prop;
  cudaDeviceGetAttribute();
  cudaDeviceGetAttribute(out, cudaDevAttrWarpSize, 0);
  int ws = 32;
  cudaDeviceGetAttribute(&ws, 12345, 0);
  k<<<n, prop.warpSize, 0, s>>>(x, n);
  k<<<n, ws, 0, s>>>(x, n);
  cudaGetDeviceProperties(&prop);
  k<<<n, prop.maxThreadsPerBlock, prop.totalGlobalMem, s>>>(x, n);
}}
"#
    );
    let got = on_targets(&src, &["sm_80", "sm_90"]);
    assert_eq!(
        got,
        [
            "11: k grid ? block ? smem 0 B",
            "12: k grid ? block ? smem 0 B",
            "14: k grid ? block 1024 smem ?",
        ],
        "{got:#?}"
    );
}

/// An `extern "C"` launcher whose caller (Rust, through FFI) asked the device for the
/// compute capability, the SM count, the opt-in shared memory and the warp size, and
/// passes them as parameters (as candle's mmq launchers take `cc`, `nsm`, `smpbo`,
/// `warp_size`).
const FFI_DEVICE: &str = r#"
template <int X> __global__ void mm(float* x, int n) {}
static size_t tile_bytes(int x, int cc, int warp) {
  return cc >= 800 ? x * 1024 + warp * 4 : x * 512;
}
template <int X>
static void run_tile(float* x, int n, int cc, int nsm, int warp, cudaStream_t s) {
  const dim3 block(warp, 256 / warp, 1);
  const int smem = tile_bytes(X, cc, warp);
  mm<X><<<nsm, block, smem, s>>>(x, n);
}
extern "C" void launch_mm_f32(float* x, int n, int cc, int nsm, long long smpbo, int warp,
                              void* stream) {
  cudaStream_t s = (cudaStream_t)stream;
  if (cc >= 900) {
    run_tile<64>(x, n, cc, nsm, warp, s);
  } else {
    run_tile<32>(x, n, cc, nsm, warp, s);
  }
}
"#;

fn with_policy(src: &str, policy: &str) -> Vec<String> {
    let policy = occupancy_core::policy::Policy::from_toml(policy).unwrap();
    summaries(&occupancy_cuda::read_texts_with_policy(
        &[("src/cuda/a.cu", src)],
        &policy,
    ))
}

/// `[device_params.<function>]` says which parameters hold device attributes: each is the
/// target's value from the GPU tables (compute capability 8.0 is 800 and 9.0 is 900 in
/// the `x100` encoding; the warp size 32; the SM count only where the target names a GPU,
/// 132 on the H100 SXM).
#[test]
fn declared_device_params_are_each_targets_values() {
    let policy = r#"
targets = ["sm_80", "H100"]
[device_params."launch_mm_*"]
cc = "compute_capability_x100"
nsm = "multiprocessor_count"
smpbo = "max_shared_memory_per_block_optin"
warp = "warp_size"
"#;
    assert_eq!(
        with_policy(FFI_DEVICE, policy),
        [
            "10: mm<32> grid ? block (32, 8) smem 32896 B on sm_80",
            "10: mm<64> grid 132 block (32, 8) smem 65664 B on H100 80GB HBM3",
        ]
    );
}

/// A tile chosen at run time by a counted loop (the smallest count of tiles for an input
/// size the reader cannot know, among tiles that fit the opt-in shared memory, in steps
/// of 8 below 48 and 16 from there): run iteration by iteration, the launches are the
/// tiles the loop can choose (never 56 or 72), with the target's shared memory. Each
/// tile's paths stay apart (they differ in `ntiles_best`), so its label keeps the test
/// every one of them passed (`ntiles < ntiles_best`, once however many iterations took it).
#[test]
fn a_tile_chosen_by_a_counted_loop_is_the_set_it_can_choose() {
    let src = r#"
template <int X> __global__ void mm(float* x, int n) {}
template <int X>
static void run_tile(float* x, int n, int warp, cudaStream_t s) {
  mm<X><<<n, dim3(warp, 256 / warp, 1), X * 1024, s>>>(x, n);
}
extern "C" void launch_mm_f32(float* x, int n, long long ncols, long long smpbo, int warp,
                              void* s) {
  int best = 0;
  int ntiles_best = 2147483647;
  for (int t = 8; t <= 80 && ntiles_best > 1; t += 8) {
    const int granularity = t >= 48 ? 16 : 8;
    if (t % granularity != 0) continue;
    if (t * 1024 > smpbo) continue;
    const int ntiles = (ncols + t - 1) / t;
    if (ntiles < ntiles_best) { best = t; ntiles_best = ntiles; }
  }
  switch (best) {
    case 8: run_tile<8>(x, n, warp, (cudaStream_t)s); break;
    case 48: run_tile<48>(x, n, warp, (cudaStream_t)s); break;
    case 56: run_tile<56>(x, n, warp, (cudaStream_t)s); break;
    case 64: run_tile<64>(x, n, warp, (cudaStream_t)s); break;
    case 72: run_tile<72>(x, n, warp, (cudaStream_t)s); break;
    case 80: run_tile<80>(x, n, warp, (cudaStream_t)s); break;
    default: break;
  }
}
"#;
    // sm_86's opt-in maximum is 101376 B (the GPU tables): every tile up to 80 KiB fits.
    let policy = r#"
targets = ["sm_86"]
[device_params.launch_mm_f32]
smpbo = "max_shared_memory_per_block_optin"
warp = "warp_size"
"#;
    assert_eq!(
        with_policy(src, policy),
        [
            "5: mm<8> grid ? block (32, 8) smem 8192 B [ntiles < ntiles_best, best == 8] on sm_86",
            "5: mm<48> grid ? block (32, 8) smem 49152 B [ntiles < ntiles_best, best == 48] on sm_86",
            "5: mm<64> grid ? block (32, 8) smem 65536 B [ntiles < ntiles_best, best == 64] on sm_86",
            "5: mm<80> grid ? block (32, 8) smem 81920 B [ntiles < ntiles_best, best == 80] on sm_86",
        ]
    );
}

/// `dim3 block(std::min(v, 512))` with `v` a run-time value: two paths, as the `if` that
/// clamps would make: 512 where `v` reaches it (checked), `v` below it (run time); `max`
/// likewise from below. A finite set is clamped exactly, with no extra path.
#[test]
fn a_clamp_to_a_constant_is_a_path_of_its_own() {
    let src = format!(
        r#"{KERNELS}
extern "C" void run(float* x, int n, int heads, int dim, cudaStream_t s) {{
  dim3 block(std::min(heads * dim, 512));
  k<<<n, block, 0, s>>>(x, n);
  int t = max(dim, 64);
  k<<<n, t, 0, s>>>(x, n);
  int u = std::min(128, 64);
  k<<<n, u, 0, s>>>(x, n);
}}
"#
    );
    let got = one(&[("src/cuda/a.cu", &src)]);
    assert_eq!(
        got,
        [
            "7: k grid ? block 512 smem 0 B [heads * dim >= 512]",
            "7: k grid ? block ? smem 0 B [heads * dim < 512]",
            "9: k grid ? block 64 smem 0 B [dim <= 64]",
            "9: k grid ? block ? smem 0 B [dim > 64]",
            "11: k grid ? block 64 smem 0 B",
        ]
    );
    let (_d, r) = read(&[("src/cuda/a.cu", &src)]);
    match &launch(&r, 7).paths[1].block {
        Read::Unknown(why) => assert!(why.contains("-2147483648..=511"), "{why}"),
        known => panic!("{known:?}"),
    }
}

/// A statement macro whose arguments are types (`CALL(uint16_t, float);`), which the
/// grammar reads as a broken declaration, is expanded: one launch per use, each with its
/// instantiation; and a typedef that renames a CUDA type under `#ifdef USE_ROCM`
/// (`typedef __hip_bfloat16 __nv_bfloat16;`) is not the CUDA build's type.
#[test]
fn statement_macros_with_type_arguments_and_rocm_typedefs() {
    let src = format!(
        r#"{KERNELS}
#ifdef USE_ROCM
typedef __hip_bfloat16 __nv_bfloat16;
#endif
template <typename T, typename C> __global__ void ck(T* x, C* c, int n) {{}}
#define CALL_CK(T, C) ck<T, C><<<n, 256, 0, s>>>(reinterpret_cast<T*>(x), reinterpret_cast<C*>(c), n);
extern "C" void run(void* x, void* c, int n, int dt, cudaStream_t s) {{
  if (dt == 0) {{
    CALL_CK(uint16_t, uint8_t);
  }} else if (dt == 1) {{
    CALL_CK(__nv_bfloat16, uint8_t);
  }} else {{
    CALL_CK(float, float);
  }}
}}
"#
    );
    assert_eq!(
        one(&[("src/cuda/a.cu", &src)]),
        [
            "12: ck<uint16_t, uint8_t> grid ? block 256 smem 0 B [dt == 0]",
            "14: ck<__nv_bfloat16, uint8_t> grid ? block 256 smem 0 B [!(dt == 0), dt == 1]",
            "16: ck<float, float> grid ? block 256 smem 0 B [!(dt == 0), !(dt == 1)]",
        ]
    );
}

/// Shared memory growing past the limit is checked there only when the sizes the input
/// makes at the limit are known: not from an odd least value (`5 * n` makes 1285, 1290,
/// .. and no size between), nor when the opt-in that bounds it is a run-time value.
#[test]
fn shared_memory_past_the_limit_needs_known_sizes() {
    let src = format!(
        r#"{KERNELS}
extern "C" void odd(float* x, int n, cudaStream_t s) {{
  if (n <= 256) return;
  size_t smem = n * sizeof(float) + n * sizeof(bool);
  k<<<1, 512, smem, s>>>(x, n);
}}
extern "C" void opted(float* x, int n, cudaStream_t s) {{
  if (n <= 0) return;
  size_t smem = n * sizeof(float);
  cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, smem);
  k<<<1, 256, smem, s>>>(x, n);
}}
"#
    );
    let (_d, r) = read(&[("src/cuda/a.cu", &src)]);
    for (line, want) in [(8, "1285..="), (14, "and so is the opt-in")] {
        let paths = &launch(&r, line).paths;
        assert_eq!(paths.len(), 1, "{line}");
        match &paths[0].dynamic_smem_bytes {
            Read::Unknown(why) => assert!(why.contains(want), "{line}: {why}"),
            known => panic!("{line}: {known:?}"),
        }
    }
}

#[test]
fn sizeof_lays_out_the_codes_own_structs() {
    let src = format!(
        r#"{KERNELS}
#define QK_A 32
#define QK_B 256
typedef struct {{
    __half d;          // scale
    int8_t qs[QK_A];   // quants
}} blk_a;
typedef struct {{
    uint8_t sc[QK_B/16];
    uint8_t q[QK_B/4];
    half2 dm;
}} blk_b;
struct tagged {{ char tag; float4 v; }};
struct wide {{ double x; char c; }};
typedef struct {{ float3 p; short s; }} point;
union word {{ char c[6]; int i; }};
struct outer {{ blk_a a; char c; }};
struct with_members {{ static constexpr int kRows = 4; int x; __device__ int twice() const {{ return 2 * x; }} }};
struct flags {{ int a : 3; int b : 5; }};
struct opt {{
    int n;
#ifdef WIDE_OPT
    double extra[2];
#endif
}};
template <typename B>
void launch_blocks(float* x, int n, cudaStream_t s) {{
  k<<<n, 128, 4 * sizeof(B), s>>>(x, n);
}}
extern "C" void run(float* x, int n, cudaStream_t s) {{
  k<<<n, 32, sizeof(blk_a) * 4 + 1024, s>>>(x, n);
  k<<<n, 32, sizeof(blk_b), s>>>(x, n);
  k<<<n, 32, sizeof(struct tagged), s>>>(x, n);
  k<<<n, 32, sizeof(wide) + alignof(float4), s>>>(x, n);
  k<<<n, 32, sizeof(point) + sizeof(union word), s>>>(x, n);
  k<<<n, 32, sizeof(outer) + sizeof(with_members), s>>>(x, n);
  k<<<n, 32, sizeof(flags), s>>>(x, n);
  k<<<n, 32, sizeof(opt), s>>>(x, n);
  launch_blocks<blk_b>(x, n, s);
  k<<<n, 32, sizeof(float*), s>>>(x, n);
}}
"#
    );
    let (_d, r) = read(&[("src/cuda/a.cu", &src)]);
    assert_eq!(
        summaries(&r),
        [
            "31: k grid ? block 128 smem 336 B",
            "34: k grid ? block 32 smem 1160 B",
            "35: k grid ? block 32 smem 84 B",
            "36: k grid ? block 32 smem 32 B",
            "37: k grid ? block 32 smem 32 B",
            "38: k grid ? block 32 smem 24 B",
            "39: k grid ? block 32 smem 40 B",
            "40: k grid ? block 32 smem ?",
            "41: k grid ? block 32 smem 4 B [smem = 4]",
            "41: k grid ? block 32 smem 24 B [smem = 24]",
            "43: k grid ? block 32 smem 8 B",
        ]
    );
    // A bit-field is not laid out: the launch says why.
    let Read::Unknown(why) = &launch(&r, 40).paths[0].dynamic_smem_bytes else {
        panic!("a bit-field's struct has no size");
    };
    assert!(why.contains("`int a : 3;`: a bit-field"), "{why}");
}

#[test]
fn a_dispatchs_kernel_is_never_paired_with_another_cases_shared_memory() {
    // The size is chosen by one `if` chain (its implicit `else` keeps the default), the
    // kernel by another on the same variable: the default's size goes only with the
    // kernel of a kind no earlier test ruled out.
    let src = format!(
        r#"{KERNELS}
typedef struct {{ __half d; int8_t qs[32]; }} blk_small;
typedef struct {{ half2 dm; uint8_t qs[128]; }} blk_big;
typedef struct {{ uint8_t ql[128]; uint8_t qh[64]; __half d; }} blk_wide;
extern "C" void run(float* x, int n, int kind, cudaStream_t s) {{
  size_t bytes = sizeof(blk_wide);
  if (kind == 0) {{
    bytes = sizeof(blk_small);
  }} else if (kind == 1) {{
    bytes = sizeof(blk_big);
  }}
  if (kind == 0) {{
    tk<float, 0><<<n, 128, bytes * 8, s>>>(x, n);
  }} else if (kind == 1) {{
    tk<float, 1><<<n, 128, bytes * 8, s>>>(x, n);
  }} else if (kind == 2) {{
    tk<float, 2><<<n, 128, bytes * 8, s>>>(x, n);
  }}
}}
"#
    );
    let got = one(&[("src/cuda/a.cu", &src)]);
    assert_eq!(
        got,
        [
            "16: tk<float, 0> grid ? block 128 smem 272 B [kind == 0]",
            "18: tk<float, 1> grid ? block 128 smem 1056 B [!(kind == 0), kind == 1]",
            "20: tk<float, 2> grid ? block 128 smem 1552 B [!(kind == 0), !(kind == 1), kind == 2]",
        ]
    );
}

#[test]
fn the_builds_defines_decide_the_if_branches_it_compiles() {
    let src = format!(
        r#"{KERNELS}
#ifdef SMALL_TILES
#define TILE 64
#else
#define TILE 256
#endif
typedef struct {{
    uint8_t qs[TILE/4];
#ifdef SMALL_TILES
    uint8_t scales[2];
#else
    uint8_t scales[12];
#endif
    __half d;
}} blk;
extern "C" void run(float* x, int n, cudaStream_t s) {{
#if defined(FAST_PATH) && !defined(__CUDA_ARCH__)
  k<<<n, 64, 0, s>>>(x, n);
#else
  k<<<n, 128, sizeof(blk), s>>>(x, n);
#endif
}}
"#
    );
    let files = [("src/cuda/a.cu", src.as_str())];
    let read = |policy: &str| {
        let policy = occupancy_core::policy::Policy::from_toml(policy).unwrap();
        summaries(&occupancy_cuda::read_texts_with_policy(&files, &policy))
    };
    // Not declared: each configuration (the two `#ifdef`s crossed: their macro is not
    // known to be one).
    assert_eq!(
        read(""),
        [
            "21: k grid ? block 64 smem 0 B [#if defined(FAST_PATH) && !defined(__CUDA_AR...]",
            "23: k grid ? block 128 smem 20 B [#else, smem = 20]",
            "23: k grid ? block 128 smem 30 B [#else, smem = 30]",
            "23: k grid ? block 128 smem 68 B [#else, smem = 68]",
            "23: k grid ? block 128 smem 78 B [#else, smem = 78]",
        ]
    );
    // Declared: `qs[64]`, `scales[12]`, `d`: 78 bytes.
    assert_eq!(read("defines = []"), ["23: k grid ? block 128 smem 78 B"]);
    assert_eq!(
        read("defines = [\"SMALL_TILES\"]"),
        ["23: k grid ? block 128 smem 20 B"]
    );
    assert_eq!(
        read("defines = [\"FAST_PATH=1\"]"),
        ["21: k grid ? block 64 smem 0 B"]
    );
}

/// Overloads told apart by how many arguments a call passes: a helper declared with one,
/// two and three parameters (the last with a default) gives each call its own body, not
/// the first definition's.
#[test]
fn an_overload_is_chosen_by_the_number_of_arguments() {
    let src = format!(
        r#"{KERNELS}
static int threads_for(int rows) {{ return rows >= 64 ? 256 : 128; }}
static int threads_for(int rows, int cols) {{ return rows * cols >= 4096 ? 512 : 64; }}
static int smem_for(int rows, int cols, int elem = 4) {{ return rows * cols * elem; }}
static int smem_for(void) {{ return 0; }}
extern "C" void run(float* x, int n, cudaStream_t s) {{
  k<<<n, threads_for(32), smem_for(), s>>>(x, n);
  k<<<n, threads_for(64, 64), smem_for(16, 32), s>>>(x, n);
  k<<<n, threads_for(64), smem_for(16, 32, 2), s>>>(x, n);
}}
"#
    );
    assert_eq!(
        one(&[("src/cuda/a.cu", &src)]),
        [
            "10: k grid ? block 128 smem 0 B",
            "11: k grid ? block 512 smem 2048 B",
            "12: k grid ? block 256 smem 1024 B",
        ]
    );
}

/// A variadic template that recurses on the rest of its pack (`Ts... rest`, `rest...`):
/// the overload with the pack takes any number of arguments from its place on, the one
/// without it ends the recursion; each level binds the pack's arguments.
#[test]
fn a_variadic_helper_binds_its_pack_and_recurses() {
    let src = format!(
        r#"{KERNELS}
constexpr int widest(const int best) {{ return best; }}
template <class... Ts>
constexpr int widest(const int best, const int next, Ts... rest) {{
  return next > best ? widest(next, rest...) : widest(best, rest...);
}}
extern "C" void run(float* x, int n, cudaStream_t s) {{
  k<<<n, widest(32, 128, 64), 0, s>>>(x, n);
  k<<<n, widest(96, 32, 64, 256, 128), widest(0, 1024, 512), s>>>(x, n);
}}
"#
    );
    assert_eq!(
        one(&[("src/cuda/a.cu", &src)]),
        [
            "11: k grid ? block 128 smem 0 B",
            "12: k grid ? block 256 smem 1024 B",
        ]
    );
}

/// `__CUDA_ARCH_LIST__` (nvcc defines it in host code too) is the architecture of each
/// target's build: a host helper that picks the highest compiled architecture at or
/// below the device's, as ggml's does, decides a launch per target (sm_90's build has
/// none at or below 8.9: `-1`, a literal the grammar writes with its sign). Before any
/// target is read, the list is unknown, and so is what depends on it.
#[test]
fn the_arch_list_is_each_targets_architecture() {
    let src = format!(
        r#"{KERNELS}
#ifdef __CUDA_ARCH_LIST__
constexpr int highest_arch_impl(const int /*arch*/, const int cur) {{
  return cur == 0 ? -1 : cur;
}}
template <class... Archs>
constexpr int highest_arch_impl(const int arch, const int cur, const int first, Archs... rest) {{
  if (first <= arch && first > cur) {{
    return highest_arch_impl(arch, first, rest...);
  }}
  return highest_arch_impl(arch, cur, rest...);
}}
constexpr int highest_arch(const int arch) {{
  return highest_arch_impl(arch, 0, __CUDA_ARCH_LIST__);
}}
#else
static int highest_arch(const int arch) {{ return 1000; }}
#endif
extern "C" void run(float* x, int n, cudaStream_t s) {{
  const int arch = highest_arch(890);
  const int block = arch >= 800 ? 64 * (arch / 100) : 32;
  k<<<n, block, 0, s>>>(x, n);
}}
"#
    );
    assert_eq!(
        on_targets(&src, &["sm_80", "sm_86", "sm_90"]),
        [
            "25: k grid ? block 512 smem 0 B on sm_80, sm_86",
            "25: k grid ? block 32 smem 0 B on sm_90",
        ]
    );
    let r = occupancy_cuda::read_texts(&[("src/cuda/a.cu", &src)]);
    let block = format!("{:?}", launch(&r, 25).paths[0].block);
    assert!(
        block.contains("`__CUDA_ARCH_LIST__`: the architectures the build compiles, a value of each target, and this path is of no one target"),
        "{block}"
    );
}

/// A function-like macro used as a value names the caller's variables: `IS_WIDE(cols)`
/// expands to `(cols >= WIDE_COLS)` and is read with `cols` as the path holds it, so a
/// helper's branch on it is decided where `cols` is known.
#[test]
fn a_function_like_macro_reads_the_callers_variables() {
    let src = format!(
        r#"{KERNELS}
#define WIDE_COLS 0x400
#define IS_WIDE(c) (c >= WIDE_COLS)
static int threads_for(const int cols) {{
  return IS_WIDE(cols) ? 512 : 128;
}}
extern "C" void run(float* x, int n, cudaStream_t s) {{
  const int cols = 2048;
  k<<<n, threads_for(cols), IS_WIDE(cols / 2) * 1024, s>>>(x, n);
  k<<<n, threads_for(cols / 4), 0, s>>>(x, n);
}}
"#
    );
    assert_eq!(
        one(&[("src/cuda/a.cu", &src)]),
        [
            "12: k grid ? block 512 smem 1024 B",
            "13: k grid ? block 128 smem 0 B",
        ]
    );
}

/// A plain struct filled by a brace initialiser, positionally or by designator, carries its
/// members' values into the functions it is passed to (a member it does not give is 0, as
/// C++ value-initialises it): a branch on one of them is decided, and a launch no path
/// makes says that its function was read.
#[test]
fn a_structs_members_from_its_brace_initialiser() {
    let src = format!(
        r#"{KERNELS}
struct launch_args {{ const float * x; int rows; bool split; long cols; }};
static void dispatch(const launch_args & args, cudaStream_t s) {{
  if (!args.split) {{
    k<<<args.rows, 128, 0, s>>>(nullptr, 1);
    return;
  }}
  k<<<args.rows, 64 * args.cols, 0, s>>>(nullptr, 2);
}}
extern "C" void run(const float * x, cudaStream_t s) {{
  const launch_args args = {{ x, 7, 3 > 2, 4 }};
  dispatch(args, s);
  launch_args named = {{ .x = x, .rows = 9 }};
  k<<<named.rows, 32, 0, s>>>(nullptr, 3);
  k<<<1, 32, named.cols, s>>>(nullptr, 4);
}}
"#
    );
    let (_dir, r) = read(&[("src/cuda/a.cu", &src)]);
    assert_eq!(
        summaries(&r),
        [
            "8: not checked: no path the reader follows reaches this launch: `dispatch` is read, but none of its paths gets here (a condition false for the targets and the build read, or a step on the way the reader does not follow)",
            "11: k grid 7 block 256 smem 0 B",
            "17: k grid 9 block 32 smem 0 B",
            "18: k grid 1 block 32 smem 0 B",
        ]
    );
}

/// ggml's opt-in idiom: `static bool raised[..]; if (!raised[dev]) { cudaFuncSetAttribute(..);
/// raised[dev] = true; }` runs once per program, so the launch after it is opted in on
/// every path (not a path where it is not, which could not launch).
#[test]
fn an_opt_in_behind_a_static_once_guard_holds_on_every_path() {
    let src = format!(
        r#"{KERNELS}
#define RAISE_LIMIT(kernel, nbytes) \
  do {{ \
    static bool raised[16] = {{false}}; \
    int dev; cudaGetDevice(&dev); \
    if (!raised[dev]) {{ \
      cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, nbytes); \
      raised[dev] = true; \
    }} \
  }} while (0)
extern "C" void run(float * x, int n, cudaStream_t s) {{
  const int nbytes = 80000;
  RAISE_LIMIT(k, nbytes);
  k<<<n, 256, nbytes, s>>>(x, n);
  static bool warned = false;
  if (!warned) {{
    warned = n > 4;
  }}
  k<<<n, 128, nbytes, s>>>(x, n);
}}
"#
    );
    assert_eq!(
        one(&[("src/cuda/a.cu", &src)]),
        [
            "17: k grid ? block 256 smem 80000 B opt-in 80000 B",
            "22: k grid ? block 128 smem 80000 B opt-in 80000 B",
        ]
    );
}

/// A host function defined under `#if __CUDA_ARCH__ >= 800` at file scope is built only
/// by nvcc's device passes, where host code is not compiled: the host program has the
/// `#else` stub. Its launch is listed, never given rows; the stub is the one called.
#[test]
fn host_functions_under_cuda_arch_are_not_in_the_host_program() {
    let src = format!(
        r#"{KERNELS}
#if __CUDA_ARCH__ >= 800
extern "C" void run_wide(float * x, int n) {{
  k<<<n, 256>>>(x, n);
}}
#else
extern "C" void run_wide(float * x, int n) {{
  assert(false);
}}
#endif
extern "C" void run(float * x, int n) {{
  run_wide(x, n);
  k<<<n, 64>>>(x, n);
}}
"#
    );
    assert_eq!(
        one(&[("src/cuda/a.cu", &src)]),
        [
            "7: not checked: not in the host program: `run_wide` is defined in an `#if` branch only nvcc's device passes compile (`__CUDA_ARCH__` is undefined in host code), so the host code never makes this launch",
            "16: k grid ? block 64 smem 0 B",
        ]
    );
}

/// A variable computed from a run-time value before a `switch` or `if` on that value is
/// narrowed by the case: `smem = max(2048, 8 * head_size)` is 2048 under `case 64:` and
/// 4096 under `case 512:`, never 2048 with the 512 kernel (the `max` split's other path
/// ends at the case); a ternary on the value (`rows`) keeps only the arm the condition
/// allows, until the variable is written.
#[test]
fn a_case_narrows_what_was_computed_from_its_value() {
    let src = format!(
        r#"{KERNELS}
#define ROUND_UP(a, b) (((a) + (b) - 1) / (b))
extern "C" void run(float* x, int head_size, int n, cudaStream_t s) {{
  constexpr int kWarps = 4;
  int logits = 512 * sizeof(float);
  int outputs = (kWarps / 2) * head_size * sizeof(float);
  int smem = std::max(logits, outputs);
  int rows = (n <= 1) ? 1 : 2;
  int padded = ROUND_UP(head_size, 32) * 32;
  switch (head_size) {{
    case 64: tk<float, 64><<<n, 128, smem, s>>>(x, n); break;
    case 512: tk<float, 512><<<n, 128, smem, s>>>(x, n); break;
    case 80: tk<float, 80><<<n, padded, 0, s>>>(x, n); break;
    default: break;
  }}
  if (n == 1) {{
    k<<<n, 32 * rows, 0, s>>>(x, n);
  }}
  rows = 4;
  if (n == 1) {{
    k<<<n, 64 * rows, 0, s>>>(x, n);
  }}
}}
"#
    );
    let got = one(&[("src/cuda/a.cu", &src)]);
    let cases: Vec<&String> = got.iter().filter(|l| !l.contains("not checked")).collect();
    assert_eq!(
        cases,
        [
            "14: tk<float, 64> grid ? block 128 smem 2048 B [outputs <= 2048, head_size == 64]",
            "15: tk<float, 512> grid ? block 128 smem 4096 B [outputs > 2048, head_size == 512]",
            "16: tk<float, 80> grid ? block 96 smem 0 B [outputs <= 2048, head_size == 80]",
            // The path of `rows = 2` cannot have `n == 1`.
            "20: k grid 1 block 32 smem 0 B [rows = 1, n == 1]",
            // `rows` written since: the ternary no longer says what it holds.
            "24: k grid 1 block 256 smem 0 B [rows = 1, n == 1]",
        ]
    );
}

/// A template kernel's type parameter is deduced from an argument written as a cast
/// (`reinterpret_cast<const half*>(input)`, `static_cast`, a C-style cast) as from a
/// variable declared with that type; two arguments that disagree deduce nothing.
#[test]
fn a_kernels_type_is_deduced_from_a_cast_argument() {
    let src = format!(
        r#"{KERNELS}
template <typename T> __global__ void gk(const T* x, T* y, int n) {{}}
extern "C" void run(const void* x, void* y, int n, int dtype, cudaStream_t s) {{
  if (dtype == 0) {{
    gk<<<n, 128, 0, s>>>(reinterpret_cast<const half *>(x), reinterpret_cast<half *>(y), n);
  }} else if (dtype == 1) {{
    gk<<<n, 256, 0, s>>>(static_cast<const float*>(x), (float *)y, n);
  }} else {{
    gk<<<n, 64, 0, s>>>(reinterpret_cast<const half *>(x), (float *)y, n);
  }}
}}
"#
    );
    let got = one(&[("src/cuda/a.cu", &src)]);
    assert_eq!(
        got,
        [
            "8: gk<half> grid ? block 128 smem 0 B [dtype == 0]",
            "10: gk<float> grid ? block 256 smem 0 B [!(dtype == 0), dtype == 1]",
            "12: gk<?> grid ? block 64 smem 0 B [!(dtype == 0), !(dtype == 1)]",
            "12: not checked: `gk`: the template arguments of `gk` are deduced from the launch's arguments, and not all of them are read (the reader deduces a type parameter from a variable declared with it, `const T* x`, or a cast to it); write them (`gk<...>`)",
        ]
    );
}

/// A kernel chosen through a function pointer by a helper that returns `NULL` when no
/// case matches: the launch is each kernel the helper can return (a null pointer
/// launches nothing), with the caller's block.
#[test]
fn a_function_pointer_picked_among_kernels_or_null() {
    let src = format!(
        r#"{KERNELS}
template <bool first, int M> __global__ void qk(const float* a, int n) {{}}
typedef void (*fp_qk)(const float*, int);
fp_qk pick(bool first, const int m, const int bit) {{
  if (m == 1) {{
    if (bit == 4) return qk<true, 1>;
  }}
  if (m == 2) {{
    if (bit == 4) return qk<true, 2>;
  }}
  return NULL;
}}
extern "C" void run(const float* a, int n, int m, int bit) {{
  fp_qk kernel = pick(true, m, bit);
  kernel<<<n, 128, 0>>>(a, n);
}}
"#
    );
    assert_eq!(
        one(&[("src/cuda/a.cu", &src)]),
        [
            "18: qk<true, 2> grid ? block 128 smem 0 B",
            "18: qk<true, 1> grid ? block 128 smem 0 B",
        ]
    );
}

/// A function-like macro whose parameter list continues on the next line (`A, \` then
/// `G, T)`) substitutes every parameter, the ones after the continuation too.
#[test]
fn macro_parameters_after_a_line_continuation() {
    let src = r#"
template <int T, int M, int G> __global__ void mk(int n) {}
#define __CALL_IF(M_BLOCKS, N_BLOCKS, \
                  GROUP_BLOCKS, NUM_THREADS)                           \
  else if (m == M_BLOCKS && g == GROUP_BLOCKS) {                       \
    mk<NUM_THREADS, M_BLOCKS, GROUP_BLOCKS><<<1, NUM_THREADS, 0>>>(n); \
  }
#define CALL_IF(NUM_THREADS)       \
  __CALL_IF(1, 2, -1, NUM_THREADS) \
  __CALL_IF(1, 2, 4, NUM_THREADS)
extern "C" void run(int n, int m, int g) {
  if (false) {
  }
  CALL_IF(128)
  else {
  }
}
"#;
    assert_eq!(
        one(&[("src/cuda/a.cu", src)]),
        [
            "14: mk<128, 1, -1> grid 1 block 128 smem 0 B [m == 1 && g == -1]",
            "14: mk<128, 1, 4> grid 1 block 128 smem 0 B [!(m == 1 && g == -1), m == 1 && g == 4]",
        ]
    );
}

/// A function template of a header that no file instantiates is read once for the crate,
/// not once per `.cu` that includes it (its parameters are unknown in each): the same
/// launches and reasons as a crate of one unit; a unit's own instantiation still reads it
/// with its arguments.
#[test]
fn an_uninstantiated_header_template_is_read_once() {
    let header = format!(
        r#"#pragma once
{KERNELS}
template <int B> void launch_b(float* x, int n) {{ k<<<n, B>>>(x, n); }}
template <typename T> void launch_any(T* x, int n) {{ tk<T, 4><<<n, 128>>>(x, n); }}
"#
    );
    let unit = |name: &str| {
        format!(
            "#include \"common.cuh\"\nextern \"C\" void run_{name}(float* x, int n) {{ k<<<n, 32>>>(x, n); }}\n"
        )
    };
    let one_unit = {
        let (_d, r) = read(&[
            ("src/cuda/a.cu", &unit("a")),
            ("src/cuda/common.cuh", &header),
        ]);
        summaries(&r)
    };
    let (_d, r) = read(&[
        ("src/cuda/a.cu", &unit("a")),
        ("src/cuda/b.cu", &unit("b")),
        (
            "src/cuda/c.cu",
            "#include \"common.cuh\"\ntemplate void launch_b<256>(float*, int);\n",
        ),
        ("src/cuda/common.cuh", &header),
    ]);
    let three_units = summaries(&r);
    assert!(
        one_unit.iter().all(|s| three_units.contains(s)),
        "{one_unit:#?}\n{three_units:#?}"
    );
    // c.cu's instantiation, beside the reading with `B` unknown (once, not once per unit).
    let line6: Vec<&String> = three_units
        .iter()
        .filter(|s| s.starts_with("6: "))
        .collect();
    assert_eq!(
        line6,
        [
            "6: k grid ? block ? smem 0 B",
            "6: k grid ? block 256 smem 0 B"
        ],
        "{three_units:#?}"
    );
    assert_eq!(
        three_units.iter().filter(|s| s.starts_with("7: ")).count(),
        one_unit.iter().filter(|s| s.starts_with("7: ")).count(),
        "{three_units:#?}"
    );
}

/// Seven tests of a run-time flag make 128 paths, each with its own `t`: the first 63
/// stay as they are (block and shared memory chosen together), the other 65 are folded
/// into one whose `t` is any of theirs, so its launch (which could pair one path's block
/// with another's shared memory) is not checked, with the reason
/// ([`occupancy_core::read::paths::settle`]).
#[test]
fn past_64_paths_the_launch_of_the_fold_is_not_checked_and_the_others_are_exact() {
    let src = r#"
__global__ void k(float* x, int n) {}
extern "C" void run(float* x, int n, int f, cudaStream_t s) {
  int t = 0;
  if (f & 1) t += 1;
  if (f & 2) t += 2;
  if (f & 4) t += 4;
  if (f & 8) t += 8;
  if (f & 16) t += 16;
  if (f & 32) t += 32;
  if (f & 64) t += 64;
  k<<<n, 32 * (t % 4 + 1), 128 * t, s>>>(x, n);
}
"#;
    let (_dir, r) = read(&[("src/cuda/a.cu", src)]);
    let l = launch(&r, 12);
    assert_eq!(l.paths.len(), 63, "{:#?}", summaries(&r));
    // Each exact path's block and shared memory come from the same `t`.
    let mut ts = Vec::new();
    for p in &l.paths {
        let (Read::Known([bx, 1, 1]), Read::Known(smem)) = (&p.block, &p.dynamic_smem_bytes) else {
            panic!("{}", p.summary());
        };
        let t = smem / 128;
        assert_eq!(*bx, 32 * (t % 4 + 1), "{}", p.summary());
        ts.push(t);
    }
    ts.sort();
    ts.dedup();
    assert_eq!(ts.len(), 63);
    assert_eq!(
        l.not_checked,
        [
            "more than 64 paths meet here (128 before merging): the values of those past the \
          64th are united, so a launch they make is not checked"
        ]
    );
}

/// 64 paths return from a helper and 64 go on (each with its own `u`): past the bound the
/// returned paths are folded with each other, never dropped, so the caller still sees every
/// value the helper returns: 7 comes only from the last returned path (`u == 0`), which
/// the bound used to cut.
#[test]
fn past_64_paths_a_returned_value_is_folded_never_dropped() {
    let src = r#"
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
extern "C" void run(float* x, int n, int f, cudaStream_t s) {
  int t = pick(f);
  k<<<n, 128, 16 * t, s>>>(x, n);
}
"#;
    let (_dir, r) = read(&[("src/cuda/a.cu", src)]);
    assert_eq!(
        summaries(&r),
        [
            "16: k grid ? block 128 smem 16 B [t = 1]",
            "16: k grid ? block 128 smem 32 B [t = 2]",
            "16: k grid ? block 128 smem 112 B [t = 7]",
        ]
    );
}

#[test]
fn a_macro_invoked_with_types_is_read_without_a_note() {
    // Paged attention's style: `CALL_LAUNCHER(__nv_bfloat16, uint8_t, ..);`, which
    // tree-sitter takes for a function declarator it cannot place; the reader expands it
    // where it stands, so it is no "does not parse" note on every build.
    let src = r#"template <typename T, typename C> __global__ void k(T* x, C* c) {}
namespace vllm { constexpr int kSmall = 128; constexpr int kLarge = 256; }
#define CALL_LAUNCHER(T, C, N) k<T, C><<<1, N>>>((T*)out, (C*)cache)
extern "C" void run(void* out, void* cache, int kind) {
  if (kind == 3) {
    CALL_LAUNCHER(__nv_bfloat16, uint8_t,
                  vllm::kSmall);
  } else {
    CALL_LAUNCHER(float, float, vllm::kLarge);
  }
}
"#;
    let (_d, r) = read(&[("src/cuda/a.cu", src)]);
    let notes = notes_of(&r);
    assert!(notes.is_empty(), "{notes:#?}");
    assert_eq!(
        summaries(&r),
        [
            "6: k<__nv_bfloat16, uint8_t> grid 1 block 128 smem 0 B [kind == 3]",
            "9: k<float, float> grid 1 block 256 smem 0 B [!(kind == 3)]",
        ]
    );
    // The same statement naming no macro of the files is still a note.
    let (_d, r) = read(&[(
        "src/cuda/a.cu",
        &src.replace("#define CALL_LAUNCHER", "#define OTHER_LAUNCHER"),
    )]);
    let notes = notes_of(&r);
    assert_eq!(notes.len(), 1, "{notes:#?}");
    assert!(
        notes[0].starts_with(
            "src/cuda/a.cu:6: tree-sitter's C++ grammar does not parse `CALL_LAUNCHER("
        ),
        "{notes:#?}"
    );
}

/// Statement macros whose arguments mix types and numbers (`CALL(float, float, 256);`):
/// the grammar reads them as one broken declaration (two in a row, as one error). Each is
/// expanded where it stands, at its own line, with no note; before, none was read.
#[test]
fn statement_macros_with_types_and_numbers_are_each_read() {
    let src = r#"
template <typename T, typename C, int N> __global__ void kc(T* out, C* cache) {}
#define CALL(T, C, N) kc<T, C, N><<<1, N>>>((T*)out, (C*)cache)
extern "C" void run(void* out, void* cache, int n) {
  CALL(float, float, 256);
  CALL(__nv_bfloat16, uint8_t, 128);
}
"#;
    let (_d, r) = read(&[("src/cuda/a.cu", src)]);
    let notes = notes_of(&r);
    assert!(notes.is_empty(), "{notes:#?}");
    assert_eq!(
        summaries(&r),
        [
            "5: kc<float, float, 256> grid 1 block 256 smem 0 B",
            "6: kc<__nv_bfloat16, uint8_t, 128> grid 1 block 128 smem 0 B",
        ]
    );
}
