#![deny(warnings)]

// Resources read from committed binaries (paths relative to the crate: trybuild's, where
// tests/ui.rs copies tests/ui/fixtures to fixtures/). probe.sm_80.cubin: k_plain 10 regs;
// on sm_86 the sm_80 cubin is the one the driver loads. 256 threads: sm_80 8 blocks = 64 of 64 warps, sm_86
// 6 blocks = 48 of 48 warps: 100%.
#[occupancy::check(
    cubin = "fixtures/probe.sm_80.cubin",
    kernel = "k_plain",
    block = 256,
    target = ["sm_80", "sm_86", "A100"],
)]
fn launch_plain() {}

// The fatbin holds sm_80 and sm_90a cubins: k_regs has 52 registers on sm_80 (4 blocks of 8
// warps = 50%) and 46 on sm_90 (5 blocks = 62.5%): both meet a 50% floor. (On sm_80,
// register_step would point out that 48 registers give a fifth block: allowed here.)
#[occupancy::check(
    fatbin = "fixtures/probe.fatbin",
    kernel = "k_regs",
    block = 256,
    target = ["sm_80", "sm_90"],
    min_occupancy = 50%,
    allow(register_step),
)]
fn launch_regs() {}

// A literal `regs` overrides the cubin's: 32 registers -> 100%.
#[occupancy::check(
    cubin = "fixtures/probe.sm_80.cubin",
    kernel = "k_regs",
    regs = 32,
    block = 256,
    target = "sm_80",
    min_occupancy = 90%,
)]
fn launch_override() {}

// k_bounds: __launch_bounds__(256, 2); 256 threads is within the bounds.
#[occupancy::check(fatbin = "fixtures/probe.fatbin", kernel = "k_bounds", block = 256, target = "sm_90")]
fn launch_bounded() {}

fn main() {
    launch_plain();
    launch_regs();
    launch_override();
    launch_bounded();
}
