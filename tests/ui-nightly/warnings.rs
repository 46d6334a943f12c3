// The nightly backend: each finding is a `proc_macro::Diagnostic` warning named after its
// lint, at the key it is about, with its notes and helps as children. A denied finding
// at the end makes the case fail to compile, so that the warnings are snapshotted too.

// 200 threads = 7 warps (a partial warp); 128 regs -> 4096 per warp -> 4 warps per
// sub-partition -> 16 / 7 = 2 blocks = 14 of 64 warps = 21.88% on both targets.
#[occupancy::check(block = 200, regs = 128, target = ["sm_80", "sm_90"])]
fn launch_everything_wrong() {}

// k_regs in the resource manifest (`OCCUPANCY_MANIFEST`, set by tests/ui_nightly.rs): its
// sm_80 cubin has 52 regs -> 1792 per warp -> 4 blocks = 50% < 60%; 4 registers over an
// allocation step. The warnings point at `kernel`, where the registers came from.
#[occupancy::check(kernel = "k_regs", block = 256, target = "sm_80", min_occupancy = 60%)]
fn launch_regs() {}

// Denied: `error: low_occupancy: ...` with the same children.
#[occupancy::check(block = (16, 16), regs = 96, target = "sm_90", deny(low_occupancy))]
fn launch_sgemm() {}

fn main() {
    launch_everything_wrong();
    launch_regs();
    launch_sgemm();
}
