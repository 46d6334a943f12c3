//! Inputs the fuzz targets in `fuzz/` found to panic, overflow or hang, each kept as a test
//! of the normal suite once fixed. (The attribute macro runs this code inside `cargo build`
//! on whatever a user writes: a panic there is an ICE-like failure of rustc, a hang is a
//! build that never ends.)

use occupancy_core::analysis::{
    PTXAS_MAX_REGISTERS, barriers_for_blocks, fewer_barriers, larger_block, register_step,
};
use occupancy_core::arch::{SM_80, SM_90, Target};
use occupancy_core::cluster::{Cluster, ClusterDim, ClusterError, Topology, max_active_clusters};
use occupancy_core::occupancy::{BlockDim, Kernel, Launch};

/// fuzz target `engine`: a block of more than `u32::MAX` threads saturates
/// `threads_per_block`, and the next warp multiple above it overflowed a u32.
#[test]
fn larger_block_of_a_block_over_u32_threads() {
    let launch = Launch::new(BlockDim::new(65536, 65536, 1));
    assert_eq!(larger_block(&SM_80, &Kernel::new(32), &launch), Ok(None));
    let launch = Launch::new(BlockDim::new(u32::MAX, u32::MAX, u32::MAX));
    assert_eq!(larger_block(&SM_90, &Kernel::new(0), &launch), Ok(None));
}

/// fuzz target `engine` (timeout): `u32::MAX` registers per thread were walked down one
/// register at a time, 4 billion engine calls (main also fixed it, by starting at ptxas's
/// maximum).
#[test]
fn register_step_from_u32_max_registers() {
    let launch = Launch::new(BlockDim::linear(256));
    let step = register_step(&SM_80, &Kernel::new(u32::MAX), &launch)
        .unwrap()
        .unwrap();
    // 255 registers x 32 threads -> 8192 per warp (256-register steps) x 8 warps = the SM's
    // 65536: 1 block.
    assert_eq!(PTXAS_MAX_REGISTERS, 255);
    assert_eq!(step.fewer_registers_per_thread, 255);
    assert_eq!(
        (step.before.blocks_per_sm, step.after.blocks_per_sm),
        (0, 1)
    );
    assert_eq!(step.drop(), u32::MAX - 255);
}

/// fuzz target `engine` (timeout): `u32::MAX` barriers per block were walked down one at a
/// time (`fewer_barriers`, and the `barriers_for_blocks` it and the lints call).
#[test]
fn fewer_barriers_from_u32_max_barriers() {
    let kernel = Kernel::new(32).with_barriers(u32::MAX);
    let launch = Launch::new(BlockDim::linear(256));
    let change = fewer_barriers(&SM_90, &kernel, &launch).unwrap().unwrap();
    // sm_90 has 64 barriers per SM: 64 per block leave room for exactly one block.
    assert_eq!((change.value, change.occupancy.blocks_per_sm), (64, 1));
    // Before cc 9.0 barriers do not limit occupancy: no count below gains anything, and the
    // highest count below answers for all of them (8 blocks of 8 warps fill the 64).
    assert_eq!(fewer_barriers(&SM_80, &kernel, &launch), Ok(None));
    let same = barriers_for_blocks(&SM_80, &kernel, &launch, 8)
        .unwrap()
        .unwrap();
    assert_eq!(
        (same.value, same.occupancy.blocks_per_sm),
        (u32::MAX - 1, 8)
    );
    assert_eq!(barriers_for_blocks(&SM_80, &kernel, &launch, 9), Ok(None));
    // `wanted` 0 is met by the first count tried, whatever its occupancy.
    let any = barriers_for_blocks(&SM_90, &kernel, &launch, 0)
        .unwrap()
        .unwrap();
    assert_eq!((any.value, any.occupancy.blocks_per_sm), (u32::MAX - 1, 0));
}

/// fuzz target `engine`: `x * y * z` of a cluster overflowed a u64.
#[test]
fn cluster_of_more_than_u64_blocks() {
    let dim = ClusterDim::new(u32::MAX, u32::MAX, u32::MAX);
    assert_eq!(dim.blocks(), u64::MAX);
    let result = max_active_clusters(
        &SM_90,
        &Topology::SmCount(132),
        &Kernel::new(32),
        &Launch::new(BlockDim::linear(128)),
        &Cluster::new(dim).allow_non_portable(),
    );
    assert!(
        matches!(
            result,
            Err(ClusterError::TooLarge {
                blocks: u64::MAX,
                max: 16,
                ..
            })
        ),
        "{result:?}"
    );
}

/// fuzz target `policy`: a target of three bytes that are not all ASCII digits (`s` and a
/// two-byte combining mark) was split at byte 2, inside the mark. The attribute's `target`
/// takes the same parser.
#[test]
fn target_with_a_multibyte_char_in_the_digits() {
    for input in ["s\u{656}", "\u{656}0", "sm_9\u{e9}", "9\u{656}"] {
        let e = Target::parse(input).unwrap_err();
        assert_eq!((e.input.as_str(), e.compute_capability), (input, None));
    }
    assert_eq!(Target::parse("sm_90").unwrap().to_string(), "sm_90");
}

#[cfg(feature = "policy")]
#[test]
fn policy_with_a_multibyte_target() {
    use occupancy_core::policy::Policy;
    // The fuzzer's input, as found.
    let text = "targets = [\"s\u{656}\", \"smPPPH100PPnts\"]";
    let errors: Vec<String> = Policy::from_toml(text)
        .unwrap_err()
        .iter()
        .map(|e| e.to_string())
        .collect();
    assert_eq!(errors.len(), 2, "{errors:?}");
    assert!(
        errors[0].starts_with("1:12: `targets`: unknown target `s\u{656}`"),
        "{errors:?}"
    );
}

/// fuzz target `host` (panic): an anonymous namespace's length prefix in a symbol (here, in a
/// host ELF's bytes read as text) ended inside a multi-byte character, and masking sliced
/// the string there.
#[cfg(feature = "resources")]
#[test]
fn masked_symbol_with_a_length_inside_a_character() {
    use occupancy_core::resources::instantiation::masked_symbol;
    let text = "_ZN39_GLOBAL__N__\u{fffd}\u{fffd}_7_seed_cu_643 tile";
    assert_eq!(masked_symbol(text), text);
    assert_eq!(
        masked_symbol("x12_GLOBAL__N_\u{e9}y"),
        "x12_GLOBAL__N_\u{e9}y"
    );
}
