//! Launch configurations that surprised people in public bug reports and forum threads
//! (`tests/data/field-cases.tsv`), one named test per row that gives numbers. The expected
//! values are read from the row itself.

mod common;

use common::{Row, read_tsv};
use occupancy::arch::{Arch, SM_61, SM_70, SM_75, SM_80, SM_86, SM_89, SM_90, Target};
use occupancy::cluster::Cluster;
use occupancy::lint::{LaunchSpec, MinOccupancy, check};
use occupancy::occupancy::{
    BlockDim, Carveout, Kernel, Launch, Occupancy, OccupancyError, Resource, ZeroReason, occupancy,
};

fn case(id: &str) -> Row {
    read_tsv("field-cases.tsv")
        .into_iter()
        .find(|r| r.str("id") == id)
        .unwrap_or_else(|| panic!("no field case {id}"))
}

fn run(arch: &Arch, kernel: Kernel, block: u32, dynamic_smem: u32) -> Occupancy {
    let launch = Launch::new(BlockDim::linear(block)).with_dynamic_smem(dynamic_smem);
    occupancy(arch, &kernel, &launch).unwrap()
}

/// The resources a row's `limiter` column names, e.g. "registers+warps" or
/// "shared memory (8 KB config / 1 KB reserve)".
fn limiters_of(row: &Row) -> Vec<Resource> {
    let text = row.str("limiter");
    let head = text.split('(').next().unwrap();
    head.split('+')
        .map(|word| match word.trim() {
            "registers" => Resource::Registers,
            "warps" => Resource::Warps,
            "blocks" => Resource::Blocks,
            "shared memory" => Resource::SharedMemory,
            other => panic!("unknown limiter {other:?} in {text:?}"),
        })
        .collect()
}

/// Asserts every numeric column of the row that is given (not '-').
fn assert_row(row: &Row, occ: &Occupancy) {
    let id = row.str("id");
    assert_eq!(
        occ.blocks_per_sm,
        row.u32("correct_blocks_per_sm"),
        "case {id}: blocks per SM"
    );
    assert_eq!(
        occ.max_warps_per_sm,
        row.u32("max_warps"),
        "case {id}: max warps"
    );
    if row.str("active_warps") != "-" {
        assert_eq!(
            occ.active_warps_per_sm(),
            row.u32("active_warps"),
            "case {id}: active warps"
        );
    }
    if row.str("occupancy_pct") != "-" {
        let expected: f64 = row.str("occupancy_pct").parse().unwrap();
        assert!(
            (occ.percent() - expected).abs() < 0.005,
            "case {id}: {} % != {expected} %",
            occ.percent()
        );
    }
    for resource in limiters_of(row) {
        assert!(
            occ.binding().contains(resource),
            "case {id}: {resource} not binding in {:?}",
            occ.binding()
        );
    }
    match row.str("launch_ok") {
        "yes" => assert!(
            occ.zero_reason.is_none() && occ.blocks_per_sm > 0,
            "case {id}"
        ),
        no => {
            assert!(no.starts_with("no"), "case {id}: launch_ok {no}");
            assert!(
                occ.zero_reason.is_some(),
                "case {id}: a failing launch needs a reason"
            );
        }
    }
}

/// The largest block size, multiple of 32, that fits at least once.
fn max_legal_block(arch: &Arch, kernel: Kernel) -> u32 {
    (1..=32u32)
        .rev()
        .map(|w| w * 32)
        .find(|&b| run(arch, kernel, b, 0).blocks_per_sm > 0)
        .unwrap_or(0)
}

#[test]
fn case_01_rtx_4090_512_threads_162_registers_cannot_launch() {
    let row = case("1");
    assert_eq!(Target::parse(row.str("gpu")).unwrap().arch, &SM_89);
    let kernel = Kernel::new(row.u32("regs_per_thread"));
    let occ = run(&SM_89, kernel, row.u32("block_threads"), 0);
    assert_row(&row, &occ);
    assert_eq!(
        occ.registers_per_warp,
        168 * 32,
        "168 registers allocated per thread"
    );
    assert!(matches!(
        occ.zero_reason,
        Some(ZeroReason::RegistersPerBlock {
            registers: 86016,
            limit: 65536
        })
    ));
    // "max legal block 384 (1 blk, 12 warps, 25%)"
    assert_eq!(max_legal_block(&SM_89, kernel), 384);
    let legal = run(&SM_89, kernel, 384, 0);
    assert_eq!(
        (
            legal.blocks_per_sm,
            legal.active_warps_per_sm(),
            legal.percent()
        ),
        (1, 12, 25.0)
    );
}

#[test]
fn case_01b_rtx_4090_256_threads_162_registers_fits_one_block() {
    let row = case("1b");
    assert_row(
        &row,
        &run(
            &SM_89,
            Kernel::new(row.u32("regs_per_thread")),
            row.u32("block_threads"),
            0,
        ),
    );
}

#[test]
fn case_03_turing_1024_threads_71_registers_cannot_launch() {
    let row = case("3");
    let kernel = Kernel::new(row.u32("regs_per_thread"));
    let occ = run(&SM_75, kernel, row.u32("block_threads"), 0);
    assert_row(&row, &occ);
    assert_eq!(
        occ.registers_per_block, 73728,
        "72 registers allocated x 1024 threads"
    );
    assert_eq!(max_legal_block(&SM_75, kernel), 896);
}

#[test]
fn case_03b_turing_672_threads_82_registers_fails_the_per_block_hardware_check() {
    let row = case("3b");
    let kernel = Kernel::new(row.u32("regs_per_thread"));
    let occ = run(&SM_75, kernel, row.u32("block_threads"), 0);
    assert_row(&row, &occ);
    // 21 warps rounded up to 24 x 2816 = 67584 > 65536, although 21 x 2816 = 59136 fits.
    assert!(matches!(
        occ.zero_reason,
        Some(ZeroReason::RegistersPerBlock {
            registers: 67584,
            limit: 65536
        })
    ));
    assert_eq!(max_legal_block(&SM_75, kernel), 640);
    let legal = run(&SM_75, kernel, 640, 0);
    assert_eq!(
        (
            legal.blocks_per_sm,
            legal.active_warps_per_sm(),
            legal.percent()
        ),
        (1, 20, 62.5)
    );
}

#[test]
fn case_05_a100_224_threads_92_registers() {
    let row = case("5");
    let occ = run(
        &SM_80,
        Kernel::new(row.u32("regs_per_thread")),
        row.u32("block_threads"),
        0,
    );
    assert_row(&row, &occ);
    assert_eq!(occ.registers_per_warp, 96 * 32);
}

#[test]
fn case_05b_a100_160_threads_92_registers() {
    let row = case("5b");
    let kernel = Kernel::new(row.u32("regs_per_thread"));
    assert_row(&row, &run(&SM_80, kernel, row.u32("block_threads"), 0));
    // "also 320 -> 2 blocks, 640 -> 1 block (20 warps)"
    assert_eq!(run(&SM_80, kernel, 320, 0).blocks_per_sm, 2);
    let big = run(&SM_80, kernel, 640, 0);
    assert_eq!((big.blocks_per_sm, big.active_warps_per_sm()), (1, 20));
}

#[test]
fn case_07_pascal_768_threads_36_registers() {
    let row = case("7");
    assert_eq!(row.str("cc"), SM_61.cc.to_string());
    let occ = run(
        &SM_61,
        Kernel::new(row.u32("regs_per_thread")),
        row.u32("block_threads"),
        0,
    );
    assert_row(&row, &occ);
    // "100% needs <= 32 regs": a 768-thread block caps at 2 blocks (75%) by warps alone, so
    // read it as the register file holding all 64 warps, which a 256-thread block shows.
    let best = (1..=255)
        .rev()
        .find(|&r| run(&SM_61, Kernel::new(r), 256, 0).percent() == 100.0);
    assert_eq!(best, Some(32));
}

#[test]
fn case_10_a100_1024_threads_40_registers() {
    let row = case("10");
    assert_row(
        &row,
        &run(
            &SM_80,
            Kernel::new(row.u32("regs_per_thread")),
            row.u32("block_threads"),
            0,
        ),
    );
}

#[test]
fn case_10b_a100_and_v100_256_threads_40_registers() {
    let row = case("10b");
    let kernel = Kernel::new(row.u32("regs_per_thread"));
    assert_row(&row, &run(&SM_80, kernel, row.u32("block_threads"), 0));
    assert_row(&row, &run(&SM_70, kernel, row.u32("block_threads"), 0));
}

#[test]
fn case_11_ga10x_64_threads_hits_the_16_block_limit() {
    let row = case("11");
    assert_row(
        &row,
        &run(
            &SM_86,
            Kernel::new(row.u32("regs_per_thread")),
            row.u32("block_threads"),
            0,
        ),
    );
}

#[test]
fn case_11b_ga10x_128_threads_64_registers() {
    let row = case("11b");
    assert_row(
        &row,
        &run(
            &SM_86,
            Kernel::new(row.u32("regs_per_thread")),
            row.u32("block_threads"),
            0,
        ),
    );
    // "<= 40 regs would give 12 blocks / 100%"
    let best = (1..=255)
        .rev()
        .find(|&r| run(&SM_86, Kernel::new(r), 128, 0).blocks_per_sm == 12);
    assert_eq!(best, Some(40));
    assert_eq!(run(&SM_86, Kernel::new(40), 128, 0).percent(), 100.0);
}

#[test]
fn case_13_rtx_30xx_1024_threads_is_warp_limited() {
    let row = case("13");
    let kernel = Kernel::new(row.u32("regs_per_thread"));
    assert_row(&row, &run(&SM_86, kernel, row.u32("block_threads"), 0));
    // "512 or 768 threads -> 100%"
    assert_eq!(run(&SM_86, kernel, 512, 0).percent(), 100.0);
    assert_eq!(run(&SM_86, kernel, 768, 0).percent(), 100.0);
}

/// The RTX 3090 rows give only shared memory: any block size whose other limits are higher.
fn rtx3090_smem(dynamic: u32) -> Occupancy {
    let kernel = Kernel::new(32).with_opt_in(SM_86.smem_per_block_optin_bytes);
    run(&SM_86, kernel, 128, dynamic)
}

#[test]
fn case_18_rtx_3090_50496_dynamic_bytes_fit_once() {
    let row = case("18");
    let occ = rtx3090_smem(row.u32("dyn_smem_B"));
    assert_eq!(occ.smem_per_block_bytes, 51584, "allocated per block");
    assert_eq!(occ.blocks_per_sm, row.u32("correct_blocks_per_sm"));
    assert!(occ.binding().contains(Resource::SharedMemory));
}

#[test]
fn case_18b_rtx_3090_49984_dynamic_bytes_fit_twice() {
    let row = case("18b");
    let occ = rtx3090_smem(row.u32("dyn_smem_B"));
    assert_eq!(occ.smem_per_block_bytes, 51072, "allocated per block");
    assert_eq!(occ.blocks_per_sm, row.u32("correct_blocks_per_sm"));
}

#[test]
fn case_19_rtx_3090_static_plus_dynamic_over_the_per_block_limit() {
    let row = case("19");
    let dynamic = row.u32("dyn_smem_B");
    // The thread did not post the static size, only that it was over 256 bytes.
    let static_smem = 512;
    // Opting in to the launch's dynamic size fails: static + dynamic must be <= 101376.
    let kernel = Kernel::new(32).with_static_smem(static_smem);
    let err = occupancy(
        &SM_86,
        &kernel.with_opt_in(dynamic),
        &Launch::new(BlockDim::linear(256)),
    )
    .unwrap_err();
    assert_eq!(
        err,
        OccupancyError::OptInOverLimit {
            requested_bytes: dynamic,
            limit_bytes: 101376 - static_smem
        }
    );
    // With the largest opt-in the driver accepts, the launch still fits 0 times.
    let occ = run(
        &SM_86,
        kernel.with_opt_in(101376 - static_smem),
        256,
        dynamic,
    );
    assert_eq!(occ.blocks_per_sm, row.u32("correct_blocks_per_sm"));
    assert!(matches!(
        occ.zero_reason,
        Some(ZeroReason::DynamicSmemOverOptIn { .. })
    ));
    // 256 static bytes or fewer would launch.
    assert_eq!(
        run(
            &SM_86,
            Kernel::new(32).with_static_smem(256).with_opt_in(dynamic),
            256,
            dynamic
        )
        .blocks_per_sm,
        1
    );
}

#[test]
fn case_21_v100_96_kib_dynamic_without_opt_in_cannot_launch() {
    let row = case("21");
    let kernel = Kernel::new(32);
    let dynamic = row.u32("dyn_smem_B");
    let occ = run(&SM_70, kernel, row.u32("block_threads"), dynamic);
    assert_eq!(occ.blocks_per_sm, row.u32("correct_blocks_per_sm"));
    assert!(matches!(
        occ.zero_reason,
        Some(ZeroReason::SmemPerBlock {
            opted_in: false,
            ..
        })
    ));
    // "with opt-in: 1 block/SM"
    assert_eq!(
        run(
            &SM_70,
            kernel.with_opt_in(dynamic),
            row.u32("block_threads"),
            dynamic
        )
        .blocks_per_sm,
        1
    );
}

#[test]
fn case_22_default_48_kib_includes_static_shared_memory() {
    let row = case("22");
    let dynamic = row.u32("dyn_smem_B");
    let kernel = Kernel::new(row.u32("regs_per_thread")).with_static_smem(row.u32("static_smem_B"));
    let occ = run(&SM_80, kernel, row.u32("block_threads"), dynamic);
    assert_row(&row, &occ);
    // "static 0 -> 3 blocks; with opt-in -> 3 blocks"
    let no_static = Kernel::new(row.u32("regs_per_thread"));
    assert_eq!(
        run(&SM_80, no_static, row.u32("block_threads"), dynamic).blocks_per_sm,
        3
    );
    assert_eq!(
        run(
            &SM_80,
            kernel.with_opt_in(dynamic),
            row.u32("block_threads"),
            dynamic
        )
        .blocks_per_sm,
        3
    );
}

#[test]
fn case_23_turing_opt_in_above_64_kib_is_refused() {
    let row = case("23");
    let dynamic = row.u32("dyn_smem_B");
    let err = occupancy(
        &SM_75,
        &Kernel::new(32).with_opt_in(dynamic),
        &Launch::new(BlockDim::linear(256)).with_dynamic_smem(dynamic),
    )
    .unwrap_err();
    assert_eq!(
        err,
        OccupancyError::OptInOverLimit {
            requested_bytes: 70144,
            limit_bytes: 65536
        }
    );
    assert_eq!(row.u32("correct_blocks_per_sm"), 0);
}

#[test]
fn case_34_hopper_carveout_0_reserves_1_kib_per_block_in_an_8_kib_config() {
    let row = case("34");
    let kernel = Kernel::new(row.u32("regs_per_thread"))
        .with_carveout(Carveout::Percent(row.u32("carveout_pct") as u8));
    let occ = run(&SM_90, kernel, row.u32("block_threads"), 0);
    assert_row(&row, &occ);
    assert_eq!(
        (occ.smem_per_block_bytes, occ.smem_per_sm_bytes),
        (1024, 8 * 1024)
    );
    // "default carveout -> 16 blocks 100%"
    let default = run(
        &SM_90,
        Kernel::new(row.u32("regs_per_thread")),
        row.u32("block_threads"),
        0,
    );
    assert_eq!((default.blocks_per_sm, default.percent()), (16, 100.0));
}

#[test]
fn case_28_h100_cluster_16_needs_the_non_portable_attribute() {
    // "cluster 8 -> 15 clusters (120 CTAs); 16 -> 7 (112) and needs non-portable attr":
    // through the lints, as the attribute, report and calc see it (the cluster counts
    // themselves: tests/clusters_h200.rs).
    let row = case("28");
    assert_eq!(row.str("cc"), "9.0");
    assert!(
        row.str("notes")
            .contains("16 -> 7 (112) and needs non-portable attr")
    );
    let dynamic = row.u32("dyn_smem_B");
    let kernel = Kernel::new(32).with_opt_in(dynamic);
    let launch = Launch::new(BlockDim::linear(row.u32("block_threads"))).with_dynamic_smem(dynamic);
    let h100 = [Target::parse("H100").unwrap()];
    let findings = |cluster: Cluster| {
        // The row's 12.5% is the point of the case: no low_occupancy floor here.
        let spec = LaunchSpec {
            cluster: Some(cluster),
            min_occupancy: MinOccupancy::ZERO,
            ..LaunchSpec::new("launch", &h100, kernel, launch)
        };
        check(&spec)
    };
    // Without the attribute: the launch fails, and the help names the attribute.
    let f = findings(Cluster::linear(16));
    assert_eq!(f.len(), 1, "{f:?}");
    assert_eq!(f[0].lint.name, "launch_impossible");
    assert_eq!(
        f[0].message,
        "launch on H100 80GB HBM3: a cluster of 16 blocks exceeds the portable maximum of 8: set \
         cudaFuncAttributeNonPortableClusterSizeAllowed"
    );
    assert!(f[0].helps[0].contains("CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED"));
    // With it: 7 clusters = 112 blocks at a time, 20 of 132 SMs idle.
    let f = findings(Cluster::linear(16).allow_non_portable());
    let names: Vec<&str> = f.iter().map(|f| f.lint.name).collect();
    assert_eq!(names, ["cluster_limit"]);
    assert!(
        f[0].message.starts_with(
            "launch on H100 80GB HBM3: clusters of 16 hold 7 x 16 = 112 blocks at a time"
        ),
        "{}",
        f[0].message
    );
    assert!(
        f[0].message
            .contains("20 fewer than the 132 of a plain launch"),
        "{}",
        f[0].message
    );
    // Clusters of the row's 4 (portable) need no attribute: 30 clusters = 120 blocks.
    let f = findings(Cluster::linear(row.u32("cluster_size")));
    assert!(
        f[0].message
            .contains("clusters of 4 hold 30 x 4 = 120 blocks"),
        "{}",
        f[0].message
    );
}
