//! Findings checked against hand arithmetic (see each comment).

use super::*;
use crate::occupancy::{BlockDim, Carveout, GridDim};

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

/// The findings of one lint only.
fn only<'a>(lint: &Lint, findings: &'a [Finding]) -> Vec<&'a Finding> {
    findings.iter().filter(|f| f.lint == lint).collect()
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
    let findings: Vec<Finding> = only(&LOW_OCCUPANCY, &findings)
        .into_iter()
        .cloned()
        .collect();
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
    // block_limit reports the same launch (see its own test).
    let findings: Vec<Finding> = only(&LOW_OCCUPANCY, &findings)
        .into_iter()
        .cloned()
        .collect();
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
fn one_thread_one_warp_one_bound_are_singular() {
    // Issue 20: "block of 1 threads", "1 warps per block". A block of 1 thread: 1 warp with
    // 31 of 32 lanes idle; the help is 32 threads.
    let findings = run(
        &["sm_90"],
        Kernel::new(32),
        Launch::new(BlockDim::linear(1)),
        MinOccupancy::ZERO,
    );
    assert_eq!(
        texts(&findings),
        [
            "partial_warp: launch: block of 1 thread is not a multiple of the 32-thread warp\n\
          = note: 1 warp per block: the last runs 1 of 32 lanes, 31 lanes per block (96.88%) idle \
          but allocated like busy ones\n\
          = help: a block of 32 threads (a multiple of 32)",
            "block_limit: launch on sm_90: 1-thread blocks hit the limit of 32 resident blocks per \
          SM: 32 of 64 warps (50%)\n\
          = note: sm_90 holds at most 32 blocks per SM: 32 x 1 warp = 32 of 64 warps\n\
          = help: block = 64 gives 100% (32 blocks/SM, 64 of 64 warps)"
        ]
    );
    // __launch_bounds__(1): a block of 2 is over it; the most that launches is 1 thread.
    let f = run(
        &["sm_90"],
        Kernel::new(32).with_max_threads(1),
        Launch::new(BlockDim::linear(2)),
        MinOccupancy::ZERO,
    );
    assert_eq!(
        texts(&f),
        [
            "partial_warp: launch: block of 2 threads is not a multiple of the 32-thread warp\n\
          = note: 1 warp per block: the last runs 2 of 32 lanes, 30 lanes per block (93.75%) idle \
          but allocated like busy ones\n\
          = help: a block of at most 1 thread (the most the kernel's launch bounds allow)",
            "launch_impossible: launch on sm_90: block of 2 threads exceeds the kernel's launch \
          bounds of 1 thread\n\
          = note: __launch_bounds__(1) is compiled into the kernel: a larger block fails to launch \
          (CUDA_ERROR_INVALID_VALUE, measured on an H200), although the driver's occupancy query \
          still counts it\n\
          = help: block = 1 gives this kernel its highest occupancy on sm_90: 50% (32 blocks/SM, 32 \
          of 64 warps)"
        ]
    );
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

// ---------------------------------------------------------------------------------------
// Granularity, artifact and grid lints: each pinned where it must fire, with the exact
// numbers of its help, and where it must not.

/// The findings of one lint for a spec built by `edit` from a default spec (floor 0%, so
/// that `low_occupancy` stays out of the way).
fn lint_findings(
    lint: &Lint,
    targets: &[&str],
    kernel: Kernel,
    launch: Launch,
    edit: impl FnOnce(&mut LaunchSpec<'_>),
) -> Vec<Finding> {
    let targets: Vec<Target> = targets.iter().map(|t| Target::parse(t).unwrap()).collect();
    let mut spec = LaunchSpec {
        min_occupancy: MinOccupancy::ZERO,
        ..LaunchSpec::new("launch", &targets, kernel, launch)
    };
    edit(&mut spec);
    check(&spec)
        .into_iter()
        .filter(|f| f.lint == lint)
        .collect()
}

#[test]
fn register_step_41_to_40_on_sm_80() {
    // 41 x 32 = 1312 -> 1536 per warp: 16384 / 1536 = 10 warps x 4 / 8 = 5 blocks (62.5%).
    // 40 x 32 = 1280: 12 warps x 4 / 8 = 6 blocks (75%).
    let f = lint_findings(
        &REGISTER_STEP,
        &["sm_80"],
        Kernel::new(41),
        Launch::new(BlockDim::linear(256)),
        |_| {},
    );
    assert_eq!(
        texts(&f),
        [
            "register_step: launch on sm_80: 41 regs/thread is 1 register over a register allocation step: 40 give \
          6 blocks/SM (75%) instead of 5 blocks/SM (62.5%)\n\
          = note: registers are allocated per warp in units of 256: 41 x 32 = 1312 rounded up to 1536 per warp; \
          40 x 32 = 1280\n\
          = note: register budget for 256-thread blocks on sm_80: <= 32 regs: 8 blocks/SM (100%), <= 40 regs: \
          6 blocks/SM (75%), <= 48 regs: 5 blocks/SM (62.5%)\n\
          = help: -maxrregcount=40 or __launch_bounds__(256, 6) asks ptxas for at most 40 registers"
        ]
    );
    assert_eq!(f[0].input, Input::Registers);
    // 33 -> 32: 6 -> 8 blocks.
    let f = lint_findings(
        &REGISTER_STEP,
        &["sm_80"],
        Kernel::new(33),
        Launch::new(BlockDim::linear(256)),
        |_| {},
    );
    assert!(
        f[0].message.contains("33 regs/thread is 1 register over"),
        "{}",
        f[0].message
    );
    assert!(
        f[0].message
            .contains("32 give 8 blocks/SM (100%) instead of 6 blocks/SM (75%)"),
        "{}",
        f[0].message
    );
    // 40 sits on a step (the next one is 8 registers down): silent at the default threshold,
    // fires when the policy allows 8.
    let at_step = || (Kernel::new(40), Launch::new(BlockDim::linear(256)));
    let (k, l) = at_step();
    assert!(lint_findings(&REGISTER_STEP, &["sm_80"], k, l, |_| {}).is_empty());
    let (k, l) = at_step();
    let f = lint_findings(&REGISTER_STEP, &["sm_80"], k, l, |s| {
        s.thresholds.register_step_max_drop = 8
    });
    assert!(
        f[0].message.contains("is 8 registers over"),
        "{}",
        f[0].message
    );
    // Registers do not bind (1024 threads, 16 regs: warp-limited): silent.
    assert!(
        lint_findings(
            &REGISTER_STEP,
            &["sm_80"],
            Kernel::new(16),
            Launch::new(BlockDim::linear(1024)),
            |_| {}
        )
        .is_empty()
    );
}

#[test]
fn smem_step_320_bytes_on_sm_86() {
    // 50496 + 1024 = 51520 -> 51584 per block: 102400 / 51584 = 1 block (4 of 48 warps).
    // 2 blocks need 51200 per block: 50176 B of static + dynamic, 320 B less.
    let kernel = Kernel::new(32).with_opt_in(101376);
    let f = lint_findings(
        &SMEM_STEP,
        &["sm_86"],
        kernel,
        Launch::new(BlockDim::linear(128)).with_dynamic_smem(50496),
        |_| {},
    );
    assert_eq!(
        texts(&f),
        [
            "smem_step: launch on sm_86: shared memory per block is 320 B over a step: 49 KiB of static + dynamic \
          gives 2 blocks/SM (16.67%) instead of 1 block/SM (8.33%)\n\
          = note: 0 B static + 50496 B dynamic + 1 KiB reserved, rounded up to 128 = 51584 B per block; 100 KiB \
          carveout / 51584 B = 1 block; 2 blocks need at most 50 KiB per block\n\
          = help: smem = 50176 (320 B less dynamic shared memory per block)"
        ]
    );
    // 824 B over the step: beyond the default 512.
    let f = lint_findings(
        &SMEM_STEP,
        &["sm_86"],
        kernel,
        Launch::new(BlockDim::linear(128)).with_dynamic_smem(51000),
        |_| {},
    );
    assert!(f.is_empty());
}

#[test]
fn block_limit_on_sm_86_and_sm_75() {
    let f = lint_findings(
        &BLOCK_LIMIT,
        &["sm_86"],
        Kernel::new(32),
        Launch::new(BlockDim::linear(64)),
        |_| {},
    );
    assert_eq!(
        texts(&f),
        [
            "block_limit: launch on sm_86: 64-thread blocks hit the limit of 16 resident blocks per SM: 32 of 48 \
          warps (66.67%)\n\
          = note: sm_86 holds at most 16 blocks per SM: 16 x 2 warps = 32 of 48 warps\n\
          = help: block = 96 gives 100% (16 blocks/SM, 48 of 48 warps)"
        ]
    );
    // cc 7.5 (16 blocks, 32 warps): 32-thread blocks use half; 64 fill it.
    let f = lint_findings(
        &BLOCK_LIMIT,
        &["sm_75"],
        Kernel::new(32),
        Launch::new(BlockDim::linear(32)),
        |_| {},
    );
    assert_eq!(
        f[0].helps,
        ["block = 64 gives 100% (16 blocks/SM, 32 of 32 warps)"]
    );
    // With 4 KiB of dynamic shared memory: 96 threads fill cc 8.6 with 4 KiB kept (16 blocks
    // x (4 + 1 reserved) KiB = 80 of 100 KiB); grown with the block to 6 KiB, 7 KiB a block
    // fit 14 times in 100 KiB: 42 of 48 warps. The help says both.
    let f = lint_findings(
        &BLOCK_LIMIT,
        &["sm_86"],
        Kernel::new(32),
        Launch::new(BlockDim::linear(64)).with_dynamic_smem(4096),
        |_| {},
    );
    assert_eq!(
        f[0].helps,
        [
            "block = 96 gives 100% (16 blocks/SM, 48 of 48 warps) with the dynamic shared memory \
          kept at 4096 B; grown with the block to 6144 B, 87.5% (14 blocks/SM, 42 of 48 warps)"
        ]
    );
    // 1-thread blocks of 4000 B: grown to 64 threads, 256,000 B, over what a block may
    // have: that block cannot launch, which the help says (not "0%").
    let f = lint_findings(
        &BLOCK_LIMIT,
        &["sm_80"],
        Kernel::new(32),
        Launch::new(BlockDim::linear(1)).with_dynamic_smem(4000),
        |_| {},
    );
    assert!(
        f[0].helps[0].ends_with("grown with the block to 256000 B, which cannot launch"),
        "{:?}",
        f[0].helps
    );
    // 512 B: grown to 768 B, 96 threads still fill the SM: the help says one figure.
    let f = lint_findings(
        &BLOCK_LIMIT,
        &["sm_86"],
        Kernel::new(32),
        Launch::new(BlockDim::linear(64)).with_dynamic_smem(512),
        |_| {},
    );
    assert_eq!(
        f[0].helps,
        ["block = 96 gives 100% (16 blocks/SM, 48 of 48 warps)"]
    );
    // 96 threads fill cc 8.6 exactly: silent.
    assert!(
        lint_findings(
            &BLOCK_LIMIT,
            &["sm_86"],
            Kernel::new(32),
            Launch::new(BlockDim::linear(96)),
            |_| {}
        )
        .is_empty()
    );
}

#[test]
fn barrier_limit_on_sm_90_only() {
    // 64 barriers per SM / 16 = 4 blocks of 4 warps = 16 of 64 (25%); 12 barriers: 5 blocks.
    let kernel = Kernel::new(32).with_barriers(16);
    let f = lint_findings(
        &BARRIER_LIMIT,
        &["sm_90", "sm_80"],
        kernel,
        Launch::new(BlockDim::linear(128)),
        |_| {},
    );
    assert_eq!(
        texts(&f),
        [
            "barrier_limit: launch on sm_90: 16 barriers per block allow 4 blocks/SM (25%)\n\
          = note: sm_90 has 64 block barriers per SM: 64 / 16 = 4 blocks\n\
          = help: barriers = 12 (named barrier ids 0 to 11) gives 5 blocks/SM (31.25%)"
        ]
    );
}

#[test]
fn carveout_limit_on_sm_90() {
    // Field case 34: carveout 0% -> the 8 KiB carveout; 1 KiB reserved per block -> 8 blocks
    // (50%); no preference -> 16 (100%); 4% (9338 B) snaps to 16 KiB, 3% (7004 B) to 8 KiB.
    let kernel = Kernel::new(10).with_carveout(Carveout::Percent(0));
    let f = lint_findings(
        &CARVEOUT_LIMIT,
        &["sm_90"],
        kernel,
        Launch::new(BlockDim::linear(128)),
        |_| {},
    );
    assert_eq!(
        texts(&f),
        [
            "carveout_limit: launch on sm_90: the carveout preference of 0% gives 8 blocks/SM (50%); the largest \
          carveout gives 16 blocks/SM (100%)\n\
          = note: 0% of 228 KiB is snapped up to the 8 KiB carveout: 8 KiB / 1 KiB per block = 8 blocks\n\
          = help: carveout = 4% (or no preference) gives 16 blocks/SM (100%)"
        ]
    );
    let kernel = Kernel::new(10).with_carveout(Carveout::Percent(4));
    assert!(
        lint_findings(
            &CARVEOUT_LIMIT,
            &["sm_90"],
            kernel,
            Launch::new(BlockDim::linear(128)),
            |_| {}
        )
        .is_empty()
    );
}

#[test]
fn register_spill_names_the_bytes_and_the_budget() {
    // sm_90, 256 threads, 32 regs: 8 blocks (100%), the most at 32 regs; one step down,
    // 6 blocks (75%) allow 40 regs.
    let spills = |s: &mut LaunchSpec<'_>| {
        s.artifact = ArtifactFacts {
            spill_store_bytes: Some(352),
            spill_load_bytes: Some(380),
            local_bytes: Some(192),
            min_blocks_per_sm: Some(8),
        }
    };
    let f = lint_findings(
        &REGISTER_SPILL,
        &["sm_90"],
        Kernel::new(32),
        Launch::new(BlockDim::linear(256)),
        spills,
    );
    assert_eq!(
        texts(&f),
        [
            "register_spill: launch on sm_90: the kernel spills registers: 352 B of spill stores and 380 B of spill \
          loads per thread\n\
          = note: at 32 regs/thread the launch gets 100% (8 blocks/SM, 64 of 64 warps); spills trade that \
          occupancy for local-memory traffic through L1 and L2\n\
          = help: one step down, 6 blocks/SM (75%) allow 40 regs/thread (__launch_bounds__(256, 6)): fewer spills \
          at lower occupancy; measure both"
        ]
    );
    // 36 regs spilling at 6 blocks: up to 40 keep 6.
    let f = lint_findings(
        &REGISTER_SPILL,
        &["sm_90"],
        Kernel::new(36),
        Launch::new(BlockDim::linear(256)),
        spills,
    );
    assert_eq!(
        f[0].helps,
        [
            "up to 40 regs/thread keep 6 blocks/SM (75%): let ptxas use them (-maxrregcount=40 or \
          __launch_bounds__(256, 6)) instead of spilling"
        ]
    );
    // A stack frame with no spills (a local array): silent. Unknown spills: said so.
    let frame = |spills: Option<u32>| {
        move |s: &mut LaunchSpec<'_>| {
            s.artifact = ArtifactFacts {
                spill_store_bytes: spills,
                spill_load_bytes: spills,
                local_bytes: Some(64),
                min_blocks_per_sm: None,
            }
        }
    };
    assert!(
        lint_findings(
            &REGISTER_SPILL,
            &["sm_90"],
            Kernel::new(32),
            Launch::new(BlockDim::linear(256)),
            frame(Some(0))
        )
        .is_empty()
    );
    let f = lint_findings(
        &REGISTER_SPILL,
        &["sm_90"],
        Kernel::new(32),
        Launch::new(BlockDim::linear(256)),
        frame(None),
    );
    assert!(f[0].message.ends_with("the kernel uses 64 B of local memory per thread (stack frame); the artifact does not say how much of it is register spills"), "{}", f[0].message);
    // No artifact facts (literal regs): silent.
    assert!(
        lint_findings(
            &REGISTER_SPILL,
            &["sm_90"],
            Kernel::new(32),
            Launch::new(BlockDim::linear(256)),
            |_| {}
        )
        .is_empty()
    );
}

#[test]
fn launch_bounds_mismatch_when_min_blocks_are_not_reached() {
    // __launch_bounds__(256, 4) on sm_86 with 48 KiB dynamic: 49152 + 1024 = 50176 per block
    // -> 102400 / 50176 = 2 blocks. 4 blocks: 102400 / 4 = 25600 - 1024 = 24576 B.
    let kernel = Kernel::new(32).with_max_threads(256).with_opt_in(49152);
    let launch = Launch::new(BlockDim::linear(256)).with_dynamic_smem(49152);
    let with_bounds = |s: &mut LaunchSpec<'_>| s.artifact.min_blocks_per_sm = Some(4);
    let f = lint_findings(
        &LAUNCH_BOUNDS_MISMATCH,
        &["sm_86"],
        kernel,
        launch,
        with_bounds,
    );
    assert_eq!(
        texts(&f),
        [
            "launch_bounds_mismatch: launch on sm_86: the kernel's __launch_bounds__(256, 4) asks for 4 blocks per \
          SM, this launch gets 2\n\
          = note: this launch is limited by shared memory: 33.33% (2 blocks/SM, 16 of 48 warps)\n\
          = help: at most 24576 B of static + dynamic shared memory per block reaches 4 blocks\n\
          = help: or compile with __launch_bounds__(256, 2): ptxas may then use more registers per thread"
        ]
    );
    // 4 blocks reached: silent.
    let launch = Launch::new(BlockDim::linear(256)).with_dynamic_smem(24576);
    assert!(
        lint_findings(
            &LAUNCH_BOUNDS_MISMATCH,
            &["sm_86"],
            kernel,
            launch,
            with_bounds
        )
        .is_empty()
    );
}

#[test]
fn tail_effect_and_undersized_grid_on_named_gpus() {
    // H100: 8 blocks of 256 threads per SM x 132 SMs = 1056 at a time; 1300 blocks = 1 wave
    // + 244: the tail idles 812 / 1056 of its slots, over 2 waves = 38.45% of the launch.
    let grid = |n: u32| move |s: &mut LaunchSpec<'_>| s.grid = Some(GridDim::linear(n));
    let f = lint_findings(
        &TAIL_EFFECT,
        &["H100", "sm_90"],
        Kernel::new(32),
        Launch::new(BlockDim::linear(256)),
        grid(1300),
    );
    assert_eq!(
        texts(&f),
        [
            "tail_effect: launch on H100 80GB HBM3: a grid of 1300 blocks runs 1.23 waves: the last wave fills 244 of \
          1056 block slots, 38.45% of the launch's block slots idle; the last wave alone: at most 25% achieved: 244 \
          blocks on 132 SMs\n\
          = note: 1056 blocks at a time: 8/SM x 132 SMs on H100 80GB HBM3\n\
          = help: a grid of 1056 or 2112 blocks is a whole number of waves (more or less work per block), or loop \
          over the work with a grid of 1056 (grid-stride)"
        ]
    );
    // 100000 blocks = 94.7 waves: the tail wastes 0.32%.
    assert!(
        lint_findings(
            &TAIL_EFFECT,
            &["H100"],
            Kernel::new(32),
            Launch::new(BlockDim::linear(256)),
            grid(100_000)
        )
        .is_empty()
    );
    // Field case 30: one 32x32 block on a V100 (80 SMs, 2 blocks of 1024 per SM): one SM
    // holds its 32 warps, half of the 64 it could.
    let f = lint_findings(
        &UNDERSIZED_GRID,
        &["V100"],
        Kernel::new(32),
        Launch::new(BlockDim::new(32, 32, 1)),
        grid(1),
    );
    assert_eq!(
        texts(&f),
        [
            "undersized_grid: launch on Tesla V100-SXM2-16GB: a grid of 1 block cannot fill the GPU once (0.63% of a \
          wave): at most 50% achieved: 1 block on 80 SMs\n\
          = note: 160 blocks at a time: 2/SM x 80 SMs on Tesla V100-SXM2-16GB\n\
          = note: 79 of 80 SMs get no block\n\
          = help: at least 80 blocks give every SM one, 160 fill the GPU: split the work into more blocks"
        ]
    );
    // A grid under a wave is undersized, not a tail; no grid or no GPU name: silent.
    assert!(
        lint_findings(
            &TAIL_EFFECT,
            &["V100"],
            Kernel::new(32),
            Launch::new(BlockDim::new(32, 32, 1)),
            grid(1)
        )
        .is_empty()
    );
    assert!(
        lint_findings(
            &UNDERSIZED_GRID,
            &["sm_70"],
            Kernel::new(32),
            Launch::new(BlockDim::new(32, 32, 1)),
            grid(1)
        )
        .is_empty()
    );
    assert!(
        lint_findings(
            &UNDERSIZED_GRID,
            &["V100"],
            Kernel::new(32),
            Launch::new(BlockDim::new(32, 32, 1)),
            |_| {}
        )
        .is_empty()
    );
}

#[test]
fn cluster_limit_and_cluster_errors() {
    use crate::cluster::Cluster;
    // H200, one 256-thread block per SM (224 KiB dynamic): clusters of 16 hold 7 = 112
    // blocks, 20 fewer than 132; clusters of 2 hold 66 = 132.
    let kernel = Kernel::new(32).with_opt_in(229_376);
    let launch = Launch::new(BlockDim::linear(256)).with_dynamic_smem(229_376);
    let cluster = |n: u32| {
        move |s: &mut LaunchSpec<'_>| s.cluster = Some(Cluster::linear(n).allow_non_portable())
    };
    let f = lint_findings(&CLUSTER_LIMIT, &["H200"], kernel, launch, cluster(16));
    assert_eq!(
        f[0].message,
        "launch on H200: clusters of 16 hold 7 x 16 = 112 blocks at a time, 20 fewer than the 132 of a plain launch \
         (1/SM x 132 SMs)"
    );
    assert!(lint_findings(&CLUSTER_LIMIT, &["H200"], kernel, launch, cluster(2)).is_empty());
    // Bare sm_90, 128-thread blocks: 16 resident plain, 8 for a cluster launch.
    let f = lint_findings(
        &CLUSTER_LIMIT,
        &["sm_90"],
        Kernel::new(32),
        Launch::new(BlockDim::linear(128)),
        cluster(2),
    );
    assert_eq!(
        f[0].message,
        "launch on sm_90: a cluster launch holds 8 blocks per SM, the plain launch 16"
    );
    // Clusters on cc 8.0, or 16 without the non-portable attribute: the launch fails.
    let f = lint_findings(
        &LAUNCH_IMPOSSIBLE,
        &["sm_80"],
        Kernel::new(32),
        Launch::new(BlockDim::linear(128)),
        cluster(2),
    );
    assert_eq!(f[0].input, Input::Cluster);
    assert!(
        f[0].message
            .contains("compute capability 8.0 has no thread-block clusters"),
        "{}",
        f[0].message
    );
    let portable = |s: &mut LaunchSpec<'_>| s.cluster = Some(Cluster::linear(16));
    let f = lint_findings(
        &LAUNCH_IMPOSSIBLE,
        &["sm_90"],
        Kernel::new(32),
        Launch::new(BlockDim::linear(128)),
        portable,
    );
    assert_eq!(f.len(), 1);
    assert!(
        f[0].helps[0].contains("NON_PORTABLE_CLUSTER_SIZE_ALLOWED"),
        "{:?}",
        f[0].helps
    );
}

/// Renders every finding of `lints` for one launch on `targets`, whatever the floor.
fn findings_of(
    lints: &[&Lint],
    targets: &[&str],
    kernel: Kernel,
    launch: Launch,
    edit: impl FnOnce(&mut LaunchSpec<'_>),
) -> Vec<String> {
    let targets: Vec<Target> = targets.iter().map(|t| Target::parse(t).unwrap()).collect();
    let mut spec = LaunchSpec {
        min_occupancy: MinOccupancy::ZERO,
        ..LaunchSpec::new("launch", &targets, kernel, launch)
    };
    edit(&mut spec);
    texts(
        &check(&spec)
            .into_iter()
            .filter(|f| lints.contains(&f.lint))
            .collect::<Vec<_>>(),
    )
}

#[test]
fn a_grid_that_is_not_a_whole_number_of_clusters_cannot_launch() {
    use crate::cluster::{Cluster, ClusterDim};
    // Issue 13, item 1: H100, 256 threads, 32 regs, clusters of 3, grid 1000 (measured on
    // an H200: CUDA_ERROR_INVALID_CLUSTER_SIZE; 999 launches).
    let one_d = |grid: u32| {
        move |s: &mut LaunchSpec<'_>| {
            s.grid = Some(GridDim::linear(grid));
            s.cluster = Some(Cluster::linear(3));
        }
    };
    let f = findings_of(
        &[&LAUNCH_IMPOSSIBLE],
        &["H100"],
        Kernel::new(32),
        Launch::new(BlockDim::linear(256)),
        one_d(1000),
    );
    assert_eq!(
        f,
        [
            "launch_impossible: launch on H100 80GB HBM3: a grid of 1000 blocks is not a whole number of clusters \
             of 3\n\
             = note: the cluster launch fails (CUDA_ERROR_INVALID_CLUSTER_SIZE, measured on an H200)\n\
             = help: grid = 1002 (whole clusters of 3; the kernel must skip the 2 extra blocks)\n\
             = help: or grid = 999 (1 block fewer, its work done by the others)"
        ]
    );
    assert!(
        findings_of(
            &[&LAUNCH_IMPOSSIBLE],
            &["H100"],
            Kernel::new(32),
            Launch::new(BlockDim::linear(256)),
            one_d(999)
        )
        .is_empty()
    );
    // Each dimension: a (4, 3) grid of (2, 2) clusters; the input to point at is the grid.
    let targets = [Target::parse("H200").unwrap()];
    let spec = LaunchSpec {
        grid: Some(GridDim::new(4, 3, 1)),
        cluster: Some(Cluster::new(ClusterDim::new(2, 2, 1))),
        ..LaunchSpec::new(
            "launch",
            &targets,
            Kernel::new(32),
            Launch::new(BlockDim::linear(256)),
        )
    };
    let f = check(&spec);
    let impossible = only(&LAUNCH_IMPOSSIBLE, &f);
    assert_eq!(impossible.len(), 1);
    assert_eq!(impossible[0].input, Input::Grid);
    assert_eq!(
        impossible[0].to_string(),
        "launch on H200: the grid's y dimension 3 is not a multiple of the cluster's 2 (grid (4, 3), cluster \
         (2, 2))\n\
         = note: the cluster launch fails (CUDA_ERROR_INVALID_CLUSTER_SIZE, measured on an H200)\n\
         = help: grid = (4, 4) (each dimension a multiple of the cluster's (2, 2); the kernel must skip the 4 \
         extra blocks)\n\
         = help: or grid = (4, 2) (4 blocks fewer, their work done by the others)"
    );
    // A grid of 1 block with clusters of 2: only rounding up helps.
    let f = findings_of(
        &[&LAUNCH_IMPOSSIBLE],
        &["sm_90"],
        Kernel::new(32),
        Launch::new(BlockDim::linear(256)),
        |s| {
            s.grid = Some(GridDim::linear(1));
            s.cluster = Some(Cluster::linear(2));
        },
    );
    assert_eq!(f.len(), 1);
    assert!(
        f[0].ends_with(
            "= help: grid = 2 (whole clusters of 2; the kernel must skip the 1 extra block)"
        ),
        "{f:?}"
    );
}

#[test]
fn clusters_over_8_need_the_non_portable_attribute() {
    use crate::cluster::{Cluster, ClusterDim};
    // Issue 13, item 2: measured on an H200, clusters of 9 fail to launch without
    // CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED and run with it; 16 runs, 17 fails.
    let launch = Launch::new(BlockDim::linear(128));
    for dim in [ClusterDim::linear(9), ClusterDim::new(4, 4, 1)] {
        let f = findings_of(
            &[&LAUNCH_IMPOSSIBLE],
            &["H200"],
            Kernel::new(32),
            launch,
            |s| s.cluster = Some(Cluster::new(dim)),
        );
        assert_eq!(
            f,
            [format!(
                "launch_impossible: launch on H200: a cluster of {} blocks exceeds the portable maximum of 8: set \
                 cudaFuncAttributeNonPortableClusterSizeAllowed\n\
                 = note: the cluster launch fails (CUDA_ERROR_INVALID_CLUSTER_SIZE, measured on an H200)\n\
                 = help: set CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED \
                 (cudaFuncAttributeNonPortableClusterSizeAllowed) to 1 on the function and declare it: \
                 non_portable = true (calc: --non-portable); sm_90 then allows up to 16 blocks per cluster",
                dim.blocks()
            )]
        );
        let allowed = findings_of(
            &[&LAUNCH_IMPOSSIBLE],
            &["H200"],
            Kernel::new(32),
            launch,
            |s| s.cluster = Some(Cluster::new(dim).allow_non_portable()),
        );
        assert!(allowed.is_empty(), "{allowed:?}");
    }
    let f = findings_of(
        &[&LAUNCH_IMPOSSIBLE],
        &["H200"],
        Kernel::new(32),
        launch,
        |s| s.cluster = Some(Cluster::linear(17).allow_non_portable()),
    );
    assert_eq!(
        f,
        [
            "launch_impossible: launch on H200: a cluster of 17 blocks exceeds the maximum of 16 on this compute \
          capability\n\
          = note: the cluster launch fails (CUDA_ERROR_INVALID_CLUSTER_SIZE, measured on an H200)"
        ]
    );
}

#[test]
fn waves_of_a_cluster_launch_use_the_clusters_at_a_time() {
    use crate::cluster::Cluster;
    // Issue 13, item 3: H200, 256 threads, 32 regs: 8 blocks/SM, 1056 at a time plainly;
    // clusters of 3 hold 21 + 5 x 42 + 2 x 48 = 327 clusters = 981 blocks
    // (cuOccupancyMaxActiveClusters on the H200: 327). A grid of 999 fills the GPU once.
    let kernel = Kernel::new(32);
    let launch = Launch::new(BlockDim::linear(256));
    let clusters_of_3 = |grid: u32| {
        move |s: &mut LaunchSpec<'_>| {
            s.grid = Some(GridDim::linear(grid));
            s.cluster = Some(Cluster::linear(3));
        }
    };
    let grid_lints: [&Lint; 2] = [&UNDERSIZED_GRID, &TAIL_EFFECT];
    assert_eq!(
        findings_of(&grid_lints, &["H200"], kernel, launch, clusters_of_3(999)),
        [
            "tail_effect: launch on H200: a grid of 999 blocks runs 1.02 waves: the last wave fills 18 of 981 block \
             slots, 49.08% of the launch's block slots idle; the last wave alone: at most 12.5% achieved: 18 blocks \
             on 132 SMs\n\
             = note: 981 blocks at a time: 327 clusters of 3 on H200 (cluster launches: at most 8/SM x 132 SMs, \
             less what GPC packing leaves idle)\n\
             = help: a grid of 981 or 1962 blocks is a whole number of waves (more or less work per block), or loop \
             over the work with a grid of 981 (grid-stride)"
        ]
    );
    assert_eq!(
        findings_of(&grid_lints, &["H200"], kernel, launch, clusters_of_3(972)),
        [
            "undersized_grid: launch on H200: a grid of 972 blocks cannot fill the GPU once (99.08% of a wave): at most \
             100% achieved: 972 blocks on 132 SMs\n\
             = note: 981 blocks at a time: 327 clusters of 3 on H200 (cluster launches: at most 8/SM x 132 SMs, \
             less what GPC packing leaves idle)\n\
             = note: only 972 of the 981 blocks a wave of clusters holds are used (99.08%)\n\
             = help: at least 132 blocks give every SM one, 981 fill the GPU: split the work into more blocks"
        ]
    );
    // 981 = one full wave: neither lint.
    assert!(findings_of(&grid_lints, &["H200"], kernel, launch, clusters_of_3(981)).is_empty());
    // The same grid without clusters: 999 of 1056 is undersized.
    let f = findings_of(&grid_lints, &["H200"], kernel, launch, |s| {
        s.grid = Some(GridDim::linear(999))
    });
    assert_eq!(f.len(), 1);
    assert!(
        f[0].starts_with(
            "undersized_grid: launch on H200: a grid of 999 blocks cannot fill the GPU once (94.6"
        ),
        "{f:?}"
    );
}

#[test]
fn static_shared_memory_over_48_kib_cannot_be_compiled() {
    // Issue 13, item 4: 51584 B static with a 64 KiB opt-in on sm_86 passed; ptxas refuses
    // it ("uses too much shared data (0xc980 bytes, 0xc000 max)").
    let kernel = Kernel::new(32).with_static_smem(51_584).with_opt_in(65_536);
    let f = findings_of(
        &[&LAUNCH_IMPOSSIBLE],
        &["sm_86"],
        kernel,
        Launch::new(BlockDim::linear(256)),
        |_| {},
    );
    // The dynamic alternative: 51584 + 1024 reserved = 52608 B per block; 100 KiB per SM
    // holds 1 block of 8 warps = 8 of 48 warps.
    assert_eq!(
        f,
        [
            "launch_impossible: launch on sm_86: 51584 B of static shared memory per block cannot be compiled: ptxas \
             allows at most 48 KiB, whatever the dynamic shared memory opt-in\n\
             = note: ptxas: \"uses too much shared data (0xc980 bytes, 0xc000 max)\" (ptxas 12.9 and 13.0, every \
             architecture)\n\
             = help: allocate it dynamically (extern __shared__): static_smem = 0, smem = 51584, opt_in = 65536 \
             (CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES) gives 16.67% (1 block/SM, 8 of 48 warps)"
        ]
    );
    // 48 KiB exactly compiles (and fits without the opt-in).
    assert!(
        findings_of(
            &[&LAUNCH_IMPOSSIBLE],
            &["sm_86"],
            Kernel::new(32).with_static_smem(49_152),
            Launch::new(BlockDim::linear(256)),
            |_| {}
        )
        .is_empty()
    );
    // Over 48 KiB and over what any opt-in allows (sm_75: 64 KiB): no dynamic fix either.
    let f = findings_of(
        &[&LAUNCH_IMPOSSIBLE],
        &["sm_75"],
        Kernel::new(32).with_static_smem(50_000),
        Launch::new(BlockDim::linear(256)).with_dynamic_smem(20_000),
        |_| {},
    );
    assert_eq!(f.len(), 1);
    assert!(!f[0].contains("help"), "{f:?}");
}

#[test]
fn partial_warp_suggests_only_blocks_that_launch() {
    // Issue 13, item 6: 2^32 - 1 threads: 4294967264 and 4294967296 are no fixes.
    let f = findings_of(
        &[&PARTIAL_WARP],
        &["sm_90"],
        Kernel::new(32),
        Launch::new(BlockDim::linear(u32::MAX)),
        |_| {},
    );
    assert_eq!(f.len(), 1);
    assert!(
        f[0].ends_with(
            "= help: a block of at most 1024 threads (a multiple of 32; the most sm_90 allows is 1024)"
        ),
        "{f:?}"
    );
    // 1000 threads: 992 launches, 1024 too; with __launch_bounds__(1000) only 992.
    let f = findings_of(
        &[&PARTIAL_WARP],
        &["sm_90"],
        Kernel::new(32),
        Launch::new(BlockDim::linear(1000)),
        |_| {},
    );
    assert!(
        f[0].ends_with("= help: a block of 992 or 1024 threads (a multiple of 32)"),
        "{f:?}"
    );
    let f = findings_of(
        &[&PARTIAL_WARP],
        &["sm_90"],
        Kernel::new(32).with_max_threads(1000),
        Launch::new(BlockDim::linear(1000)),
        |_| {},
    );
    assert!(
        f[0].ends_with("= help: a block of 992 threads (a multiple of 32)"),
        "{f:?}"
    );
}
