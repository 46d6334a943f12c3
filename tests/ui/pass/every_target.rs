#![deny(warnings)]

// Every architecture of the table and some GPU names, literal and const. 256 threads with
// 32 regs reach 100% everywhere (the warp or block limit binds first).
#[occupancy::check(
    block = 256,
    regs = 32,
    target = [
        "sm_50", "sm_52", "sm_53", "sm_60", "sm_61", "sm_62", "sm_70", "sm_72", "sm_75",
        "sm_80", "sm_86", "sm_87", "sm_89", "sm_90", "sm_100", "sm_103", "sm_110", "sm_120",
        "sm_121", "sm_90a", "sm_100f", "A100", "H100", "RTX 4090", "L40S",
    ],
    min_occupancy = 100%,
)]
fn launch_everywhere() {}

const BLOCK: u32 = 256;

#[occupancy::check(
    block = BLOCK,
    regs = 32,
    target = [
        "sm_50", "sm_52", "sm_53", "sm_60", "sm_61", "sm_62", "sm_70", "sm_72", "sm_75",
        "sm_80", "sm_86", "sm_87", "sm_89", "sm_90", "sm_100", "sm_103", "sm_110", "sm_120",
        "sm_121",
    ],
    min_occupancy = 100%,
)]
fn launch_everywhere_const() {}

fn main() {
    launch_everywhere();
    launch_everywhere_const();
}
