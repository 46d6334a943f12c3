//! The worked examples the project was specified with, on an A100 (cc 8.0, 164 KiB of
//! shared memory per SM).

use occupancy::arch::{SM_80, Target};
use occupancy::occupancy::{BlockDim, Kernel, Launch, Resource, occupancy};

#[test]
fn a100_256_threads_40_registers_8_kib_static_is_register_limited_at_75_percent() {
    let a100 = Target::parse("A100").unwrap();
    assert_eq!(a100.arch, &SM_80);
    let kernel = Kernel::new(40).with_static_smem(8 * 1024);
    let occ = occupancy(a100.arch, &kernel, &Launch::new(BlockDim::linear(256))).unwrap();
    assert_eq!(
        (occ.blocks_per_sm, occ.active_warps_per_sm(), occ.percent()),
        (6, 48, 75.0)
    );
    assert_eq!(
        occ.limiters.iter().collect::<Vec<_>>(),
        [Resource::Registers]
    );
    assert_eq!(occ.registers_per_warp, 1280);
}

#[test]
fn a100_with_32_registers_reaches_8_blocks_and_100_percent() {
    let kernel = Kernel::new(32).with_static_smem(8 * 1024);
    let occ = occupancy(&SM_80, &kernel, &Launch::new(BlockDim::linear(256))).unwrap();
    assert_eq!((occ.blocks_per_sm, occ.percent()), (8, 100.0));
}

#[test]
fn a100_with_40_kib_shared_memory_is_shared_memory_limited_at_50_percent() {
    assert_eq!(SM_80.smem_per_sm_bytes, 164 * 1024);
    let launch = Launch::new(BlockDim::linear(256)).with_dynamic_smem(40 * 1024);
    let occ = occupancy(&SM_80, &Kernel::new(40), &launch).unwrap();
    assert_eq!((occ.blocks_per_sm, occ.percent()), (4, 50.0));
    assert_eq!(
        occ.limiters.iter().collect::<Vec<_>>(),
        [Resource::SharedMemory]
    );
    // 40 KiB + the 1 KiB the driver reserves per block: 4 x 41 KiB = 164 KiB.
    assert_eq!(occ.smem_per_block_bytes, 41 * 1024);
}
