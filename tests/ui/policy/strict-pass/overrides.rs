#![deny(warnings)]

// partial_warp is allowed by the policy: 100 threads pass.
#[occupancy::check(block = 100, regs = 32)]
fn launch_partial() {}

// The attribute's floor replaces the policy's 75%: 62.5% passes a 50% floor.
#[occupancy::check(block = 256, regs = 48, min_occupancy = 50%)]
fn launch_floor() {}

// The attribute allows what the policy denies.
#[occupancy::check(block = 256, regs = 96, allow(low_occupancy))]
fn launch_allowed() {}

// The policy's targets (sm_90 only) are replaced by the attribute's: 40 regs on sm_86
// (48 warps): 1280 per warp -> 12 warps per sub-partition -> 48 / 8 = 6 blocks = 100%.
#[occupancy::check(block = 256, regs = 40, target = "sm_86")]
fn launch_target() {}

fn main() {
    launch_partial();
    launch_floor();
    launch_allowed();
    launch_target();
}
