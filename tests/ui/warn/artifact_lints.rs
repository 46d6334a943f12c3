#![deny(deprecated)]

// Lints that read the compiled kernel beyond the engine's inputs.

// register_step: k_regs has 52 registers on sm_80; 48 would give a fifth block.
#[occupancy::check(
    fatbin = "fixtures/probe.fatbin",
    kernel = "k_regs",
    block = 256,
    target = "sm_80",
)]
fn launch_regs() {}

// register_spill: k_spill is capped at 32 registers (__maxnreg__(32)) and spills 480 B
// per thread on sm_80.
#[occupancy::check(
    cubin = "fixtures/probe.sm_80.cubin",
    kernel = "k_spill",
    block = 256,
    target = "sm_80",
)]
fn launch_spill() {}

// launch_bounds_mismatch: k_bounds asks for 2 blocks of 256 threads per SM
// (__launch_bounds__(256, 2)); 100 KiB of dynamic shared memory per block fits 1 on sm_80.
#[occupancy::check(
    fatbin = "fixtures/probe.fatbin",
    kernel = "k_bounds",
    block = 256,
    smem = 100 KiB,
    opt_in = 100 KiB,
    target = "sm_80",
    allow(low_occupancy),
)]
fn launch_bounded() {}

fn main() {
    launch_regs();
    launch_spill();
    launch_bounded();
}
