#![deny(deprecated)]

// The cubin says 10 regs (k_plain); the attribute's `regs = 96` wins: 25% on sm_80.
#[occupancy::check(
    cubin = "fixtures/probe.sm_80.cubin",
    kernel = "k_plain",
    regs = 96,
    block = 256,
    target = "sm_80",
)]
fn launch_plain() {}

fn main() {
    launch_plain();
}
