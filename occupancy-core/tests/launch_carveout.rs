//! The shared-memory configuration the driver chooses for a launch, what Nsight Compute
//! reports as registers per thread, and the shared-memory limit at a configuration: the
//! values ncu 2025.3 reported for the examples' launches on an H200
//! (tests/data/h200/ncu/*.csv; every recorded launch is checked by cargo-occupancy's
//! `profile` tests).

use occupancy_core::arch::{SM_80, SM_90};
use occupancy_core::occupancy::{
    BlockDim, Carveout, Kernel, Launch, launch_carveout_bytes, occupancy,
    reported_registers_per_thread,
};

const KIB: u32 = 1024;

/// (configuration, shared-memory limit at it) for a launch on sm_90.
fn config(kernel: Kernel, block: BlockDim, dynamic: u32) -> (u32, u32) {
    let launch = Launch::new(block).with_dynamic_smem(dynamic);
    let bytes = launch_carveout_bytes(&SM_90, &kernel, &launch)
        .unwrap()
        .unwrap();
    let occ = occupancy(&SM_90, &kernel, &launch).unwrap();
    (bytes, occ.shared_memory_limit_at(bytes))
}

#[test]
fn the_examples_configurations_on_the_h200() {
    // saxpy: no shared memory, 256 threads: 32 KiB, 32 blocks of the 1 KiB reserve.
    assert_eq!(
        config(Kernel::new(14), BlockDim::linear(256), 0),
        (32 * KIB, 32)
    );
    // transpose_tiled: 4224 B static, 8 blocks: 100 KiB, 19 blocks.
    let transpose = Kernel::new(32).with_static_smem(4224);
    assert_eq!(
        config(transpose, BlockDim::new(32, 8, 1), 0),
        (100 * KIB, 19)
    );
    // sgemm_tiled: 8448 B static, 6 blocks (registers): 132 KiB, 14 blocks.
    let sgemm = Kernel::new(40).with_static_smem(8448);
    assert_eq!(config(sgemm, BlockDim::new(16, 16, 1), 0), (132 * KIB, 14));
    // sgemm_128x128_8x8: 2 blocks (registers): 64 KiB, 7 blocks.
    let sgemm128 = Kernel::new(121).with_static_smem(8192);
    assert_eq!(config(sgemm128, BlockDim::linear(256), 0), (64 * KIB, 7));
    // softmax_rows_cached: 64 KiB dynamic, shared memory limits to 3: 196 KiB.
    let cached = Kernel::new(24).with_static_smem(128).with_opt_in(64 * KIB);
    assert_eq!(
        config(cached, BlockDim::linear(512), 64 * KIB),
        (196 * KIB, 3)
    );
    // conv2d: (32, 8) with 1828 B dynamic gets 64 KiB, (20, 20) with 2404 B 32 KiB.
    assert_eq!(
        config(Kernel::new(30), BlockDim::new(32, 8, 1), 1828),
        (64 * KIB, 22)
    );
    assert_eq!(
        config(Kernel::new(30), BlockDim::new(20, 20, 1), 2404),
        (32 * KIB, 9)
    );
    // layernorm_rows: 128 B static, 16 blocks of 128 threads: 32 KiB, 28 blocks.
    let layernorm = Kernel::new(25).with_static_smem(128);
    assert_eq!(config(layernorm, BlockDim::linear(128), 0), (32 * KIB, 28));
    // No shared memory, 1024 threads: 8 KiB.
    assert_eq!(
        config(Kernel::new(14), BlockDim::linear(1024), 0),
        (8 * KIB, 8)
    );
}

#[test]
fn unmodelled_cases_are_none() {
    let launch = Launch::new(BlockDim::linear(256));
    let kernel = Kernel::new(32);
    assert_eq!(launch_carveout_bytes(&SM_80, &kernel, &launch), Ok(None));
    let preferred = kernel.with_carveout(Carveout::Percent(50));
    assert_eq!(launch_carveout_bytes(&SM_90, &preferred, &launch), Ok(None));
    // A launch that cannot run: 2048 threads.
    let too_big = Launch::new(BlockDim::linear(2048));
    assert_eq!(launch_carveout_bytes(&SM_90, &kernel, &too_big), Ok(None));
}

#[test]
fn ncu_reports_at_least_16_registers() {
    assert_eq!(reported_registers_per_thread(5), 16);
    assert_eq!(reported_registers_per_thread(14), 16);
    assert_eq!(reported_registers_per_thread(16), 16);
    assert_eq!(reported_registers_per_thread(43), 43);
    assert_eq!(reported_registers_per_thread(121), 121);
}
