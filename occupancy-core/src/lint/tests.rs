//! Findings checked against hand arithmetic (see each comment).

use super::*;
use crate::occupancy::{BlockDim, Carveout};

fn run(targets: &[&str], kernel: Kernel, launch: Launch, floor: MinOccupancy) -> Vec<Finding> {
    let targets: Vec<Target> = targets.iter().map(|t| Target::parse(t).unwrap()).collect();
    check(&LaunchSpec {
        min_occupancy: floor,
        ..LaunchSpec::new("launch", &targets, kernel, launch)
    })
}

fn texts(findings: &[Finding]) -> Vec<String> {
    findings
        .iter()
        .map(|f| format!("{}: {f}", f.lint.name))
        .collect()
}

#[test]
fn low_occupancy_registers() {
    // sm_90, 256 threads = 8 warps, 96 regs: 96 x 32 = 3072 per warp; 65536 / 4 = 16384 per
    // sub-partition / 3072 = 5 warps x 4 = 20 warps / 8 = 2 blocks = 16 of 64 warps = 25%.
    // 50% needs 32 warps = 4 blocks = 8 warps per sub-partition = 2048 per warp = 64 regs.
    // No block size helps: 96 regs hold 20 warps per SM at any block size.
    let findings = run(
        &["sm_90"],
        Kernel::new(96),
        Launch::new(BlockDim::new(16, 16, 1)),
        MinOccupancy::DEFAULT,
    );
    assert_eq!(
        texts(&findings),
        [
            "low_occupancy: launch on sm_90: 25% occupancy (16 of 64 warps), below the 50% floor\n\
          = note: limited by registers: 96 regs/thread -> 96 x 32 = 3072 per warp -> 16384 per \
          sub-partition / 3072 = 5 warps x 4 sub-partitions / 8 warps per block = 2 blocks/SM\n\
          = help: 64 regs/thread (e.g. __launch_bounds__(256, 4)) gives 50%"
        ]
    );
    assert_eq!(findings[0].input, Input::Registers);
    assert_eq!(findings[0].target.unwrap().arch.sm, "sm_90");
}

#[test]
fn low_occupancy_rounded_registers_and_floor() {
    // sm_80, 128 threads = 4 warps, 37 regs: 37 x 32 = 1184 -> 1280; 16384 / 1280 = 12
    // warps x 4 = 48 / 4 = 12 blocks = 48 of 64 = 75%: below an 80% floor. 80% = 51.2 warps
    // -> 52 -> 13 blocks -> 13 warps per sub-partition (52 / 4) -> 16384 / 13 = 1260 -> 1024
    // per warp (multiples of 256) -> 32 regs; 32 regs gives 16 blocks = 100%.
    let floor = MinOccupancy::from_percent_str("80").unwrap();
    let findings = run(
        &["sm_80"],
        Kernel::new(37),
        Launch::new(BlockDim::linear(128)),
        floor,
    );
    assert_eq!(findings.len(), 1);
    assert_eq!(
        findings[0].message,
        "launch on sm_80: 75% occupancy (48 of 64 warps), below the 80% floor"
    );
    assert_eq!(
        findings[0].notes,
        [
            "limited by registers: 37 regs/thread -> 37 x 32 = 1184 rounded up to 1280 per warp -> \
          16384 per sub-partition / 1280 = 12 warps x 4 sub-partitions / 4 warps per block = \
          12 blocks/SM"
        ]
    );
    assert_eq!(
        findings[0].helps[0],
        "32 regs/thread (e.g. __launch_bounds__(128, 16)) gives 100%"
    );
}

#[test]
fn low_occupancy_shared_memory_and_carveout() {
    // sm_90, carveout 10% of 228 KiB = 23347 B -> the 32 KiB carveout; 8 KiB dynamic + 1 KiB
    // reserved = 9 KiB per block -> 32 / 9 = 3 blocks x 8 warps = 24 of 64 = 37.5%.
    let findings = run(
        &["sm_90"],
        Kernel::new(32).with_carveout(Carveout::Percent(10)),
        Launch::new(BlockDim::linear(256)).with_dynamic_smem(8 * 1024),
        MinOccupancy::DEFAULT,
    );
    assert_eq!(
        texts(&findings),
        [
            "low_occupancy: launch on sm_90: 37.5% occupancy (24 of 64 warps), below the 50% floor\n\
          = note: limited by shared memory: 0 B static + 8 KiB dynamic + 1 KiB reserved = 9 KiB \
          per block -> 32 KiB carveout / 9 KiB = 3 blocks/SM\n\
          = help: the largest carveout (leave carveout unset) gives 100%\n\
          = help: block = 352 with the same dynamic shared memory gives 51.56% (3 blocks/SM, 33 \
          of 64 warps)"
        ]
    );
    assert_eq!(findings[0].input, Input::DynamicSmem);

    // Default carveout, 40 KiB dynamic + 24 KiB static + 1 KiB = 65 KiB -> 228 / 65 = 3
    // blocks = 24 warps. 4 blocks: 233472 / 4 = 58368 - 1024 - 24576 = 32768 dynamic.
    let findings = run(
        &["sm_90"],
        Kernel::new(32)
            .with_static_smem(24 * 1024)
            .with_opt_in(40 * 1024),
        Launch::new(BlockDim::linear(256)).with_dynamic_smem(40 * 1024),
        MinOccupancy::DEFAULT,
    );
    assert_eq!(
        findings[0].message.split(": ").nth(1),
        Some("37.5% occupancy (24 of 64 warps), below the 50% floor")
    );
    assert_eq!(
        findings[0].helps[0],
        "at most 32 KiB of dynamic shared memory per block (smem = 32768) gives 50%"
    );
}

#[test]
fn low_occupancy_block_limit_suggests_a_block_size() {
    // sm_86: 32 threads = 1 warp, at most 16 resident blocks -> 16 of 48 warps = 33.33%.
    // The nearest block reaching 24 warps: 64 threads -> 16 x 2 = 32 of 48 = 66.67%.
    let findings = run(
        &["sm_86"],
        Kernel::new(32),
        Launch::new(BlockDim::linear(32)),
        MinOccupancy::DEFAULT,
    );
    assert_eq!(
        texts(&findings),
        [
            "low_occupancy: launch on sm_86: 33.33% occupancy (16 of 48 warps), below the 50% floor\n\
          = note: limited by blocks: sm_86 holds at most 16 resident blocks per SM, 1 warp each\n\
          = help: block = 64 gives 66.67% (16 blocks/SM, 32 of 48 warps)"
        ]
    );
}

#[test]
fn no_finding_at_or_above_the_floor() {
    // 64 regs, 256 threads on sm_90: exactly 4 blocks = 32 of 64 warps = 50%: meets 50%.
    let findings = run(
        &["sm_80", "sm_90"],
        Kernel::new(64),
        Launch::new(BlockDim::linear(256)),
        MinOccupancy::DEFAULT,
    );
    assert!(findings.is_empty(), "{:?}", texts(&findings));
    // 65 regs: 2080 -> 2304 per warp -> 7 warps per sub-partition -> 28 / 8 = 3 blocks.
    let findings = run(
        &["sm_90"],
        Kernel::new(65),
        Launch::new(BlockDim::linear(256)),
        MinOccupancy::DEFAULT,
    );
    assert_eq!(
        findings[0].message,
        "launch on sm_90: 37.5% occupancy (24 of 64 warps), below the 50% floor"
    );
    // A zero floor never fires.
    assert!(
        run(
            &["sm_90"],
            Kernel::new(255),
            Launch::new(BlockDim::linear(256)),
            MinOccupancy::ZERO
        )
        .is_empty()
    );
}

#[test]
fn partial_warp_once_per_launch() {
    // (10, 10) = 100 threads = 4 warps; the last has 4 lanes, 28 of 128 lanes idle = 21.875%.
    let findings = run(
        &["sm_80", "sm_90"],
        Kernel::new(32),
        Launch::new(BlockDim::new(10, 10, 1)),
        MinOccupancy::ZERO,
    );
    assert_eq!(
        texts(&findings),
        [
            "partial_warp: launch: block of (10, 10) = 100 threads is not a multiple of the 32-thread \
          warp\n\
          = note: 4 warps per block: the last runs 4 of 32 lanes, 28 lanes per block (21.88%) idle \
          but allocated like busy ones\n\
          = help: a block of 96 or 128 threads (a multiple of 32)"
        ]
    );
    assert_eq!(findings[0].target, None);
}

#[test]
fn launch_impossible_reasons() {
    let zero = MinOccupancy::ZERO;
    // Block over 1024 threads.
    let f = run(
        &["sm_90"],
        Kernel::new(32),
        Launch::new(BlockDim::new(64, 32, 1)),
        zero,
    );
    assert_eq!(
        f[0].message,
        "launch on sm_90: block of (64, 32) = 2048 threads exceeds the 1024 threads per block sm_90 allows"
    );
    assert_eq!(
        f[0].helps,
        [
            "block = 1024 gives this kernel its highest occupancy on sm_90: 100% (2 blocks/SM, 64 of 64 warps)"
        ]
    );
    // Over the launch bounds.
    let f = run(
        &["sm_90"],
        Kernel::new(32).with_max_threads(256),
        Launch::new(BlockDim::linear(512)),
        zero,
    );
    assert_eq!(
        f[0].message,
        "launch on sm_90: block of 512 threads exceeds the kernel's launch bounds of 256 threads"
    );
    // Registers per block: 255 regs -> 8160 -> 8192 per warp x 32 warps = 262144 > 65536.
    // 1 block of 32 warps fits at 2048 per warp = 64 regs; 255 regs fit 8 warps = 256 threads.
    let f = run(
        &["sm_90"],
        Kernel::new(255),
        Launch::new(BlockDim::linear(1024)),
        zero,
    );
    assert_eq!(f[0].input, Input::Registers);
    assert_eq!(
        f[0].helps,
        [
            "64 regs/thread (e.g. __launch_bounds__(1024, 1)) launches and gives 50% (1 block/SM, 32 of 64 warps)",
            "or block = 256 at 255 regs/thread gives 12.5% (1 block/SM, 8 of 64 warps)",
        ]
    );
    // 64 KiB dynamic without the opt-in, on two targets.
    let f = run(
        &["sm_90", "sm_75"],
        Kernel::new(32),
        Launch::new(BlockDim::linear(256)).with_dynamic_smem(64 * 1024),
        zero,
    );
    assert_eq!(
        texts(&f),
        [
            "launch_impossible: launch on sm_90: 64 KiB of static + dynamic shared memory per block \
             exceeds the 48 KiB default without the opt-in\n\
             = note: 0 B static + 64 KiB dynamic + 1 KiB reserved = 65 KiB per block\n\
             = help: opt in: opt_in = 65536 (set CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES \
             to 65536; sm_90 allows up to 232448)",
            "launch_impossible: launch on sm_75: 64 KiB of static + dynamic shared memory per block \
             exceeds the 48 KiB default without the opt-in\n\
             = note: 0 B static + 64 KiB dynamic + 0 B reserved = 64 KiB per block\n\
             = help: opt in: opt_in = 65536 (set CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES \
             to 65536; sm_75 allows up to 65536)",
        ]
    );
    // The opt-in itself over sm_90's 227 KiB.
    let f = run(
        &["sm_90"],
        Kernel::new(32).with_opt_in(240 * 1024),
        Launch::new(BlockDim::linear(256)),
        zero,
    );
    assert_eq!(f[0].input, Input::OptIn);
    assert_eq!(f[0].helps, ["opt_in = 232448 at most"]);
}

#[test]
fn levels() {
    let mut levels = LintLevels::default();
    assert_eq!(levels.get(&LOW_OCCUPANCY), Level::Warn);
    assert_eq!(levels.get(&LAUNCH_IMPOSSIBLE), Level::Deny);
    levels.set("low_occupancy", Level::Deny).unwrap();
    assert_eq!(levels.get(&LOW_OCCUPANCY), Level::Deny);
    assert_eq!(
        levels
            .set("launch_impossible", Level::Allow)
            .unwrap_err()
            .to_string(),
        "`launch_impossible` cannot be allowed or lowered: the launch would fail at run time"
    );
    levels.set("launch_impossible", Level::Deny).unwrap();
    assert_eq!(
        levels
            .set("low_occupancy_", Level::Allow)
            .unwrap_err()
            .to_string(),
        "unknown lint `low_occupancy_`; did you mean `low_occupancy`?"
    );
    for lint in LINTS {
        assert!(lint.docs.contains("### What it does"), "{}", lint.name);
        assert!(lint.docs.contains("### Example"), "{}", lint.name);
        assert_eq!(Lint::find(lint.name), Some(*lint));
    }
}

#[test]
fn extreme_inputs_do_not_panic() {
    let max = u32::MAX;
    for block in [
        BlockDim::new(max, 1, 1),
        BlockDim::new(max, max, max),
        BlockDim::new(1, 1, max),
        BlockDim::new(1000, 1, 1),
    ] {
        for kernel in [
            Kernel::new(max).with_static_smem(max),
            Kernel::new(max).with_barriers(max).with_max_threads(max),
            Kernel::new(0)
                .with_opt_in(max)
                .with_carveout(Carveout::Percent(100)),
            Kernel::new(255).with_max_threads(1).with_barriers(0),
        ] {
            for smem in [0, max] {
                let findings = run(
                    &["sm_50", "sm_60", "sm_75", "sm_90", "sm_120"],
                    kernel,
                    Launch::new(block).with_dynamic_smem(smem),
                    MinOccupancy::from_percent_str("100").unwrap(),
                );
                assert!(!findings.is_empty());
            }
        }
    }
}
