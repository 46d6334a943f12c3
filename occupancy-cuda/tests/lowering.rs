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
void helper(int n) { k<<<n, 96>>>(n); }
extern "C" void calls(int n) { helper(n); }
"#;

#[test]
fn the_core_on_lowered_roots_makes_what_the_interpreter_reads() {
    let census = lowering_census_texts(&[("a.cu", UNIT)], &Policy::default());
    let side = &census.side_by_side;
    assert_eq!(side.sites, 8, "{side:?}");
    // direct, named (both ways of the condition), dims, konst (a constant and a helper),
    // mac (a macro's value), picked (a switch: 32, 64 or 512), and the launch in `helper`,
    // which the root `calls` calls (a C++ root's launches are recorded in its callees too).
    assert_eq!(side.same, 7, "{side:?}");
    // `128 * sizeof(float)` multiplies an `int` by a `size_t`: C++ converts the `int`, the
    // core follows Rust's types and does not (the per-language integer rules are still to
    // come), so the shared memory is unknown there.
    assert_eq!(
        side.different,
        ["a.cu:16: interpreter [128, 1, 1]/512 core [128, 1, 1]/?"]
    );
    assert_eq!(side.not_recorded, 0);
    assert_eq!(census.launches_lowered, 8);
    assert_eq!(census.whole, census.functions);
}
