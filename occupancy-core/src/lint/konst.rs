//! `const fn` forms of the lints, for launches whose values are only known to the compiler.
//!
//! When the attribute is given a constant (`block = BLOCK`, `smem = TILE * TILE * 4`), the
//! macro cannot read its value; it generates a `const` item that runs the engine and these
//! functions during compilation. A violation still fails the build or warns, but the
//! message cannot carry the computed numbers (a const panic takes a fixed string), so it
//! names the reason only; `cargo occupancy calc` gives the numbers.

use crate::occupancy::{BlockDim, Kernel, Launch, Occupancy, OccupancyError, ZeroReason};

/// Why a launch cannot run, without the numbers: a [`ZeroReason`] or an
/// [`OccupancyError`] reduced to its kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Impossible {
    /// [`ZeroReason::BlockTooLarge`].
    BlockTooLarge,
    /// More threads than the kernel's launch bounds (which the occupancy itself ignores, as
    /// the driver's does; see [`crate::occupancy::Kernel::max_threads_per_block`]).
    ExceedsLaunchBounds,
    /// [`ZeroReason::BlockDimZTooLarge`].
    BlockDimZTooLarge,
    /// [`ZeroReason::RegistersPerThread`].
    RegistersPerThread,
    /// [`ZeroReason::RegistersPerBlock`].
    RegistersPerBlock,
    /// [`ZeroReason::DynamicSmemOverOptIn`].
    DynamicSmemOverOptIn,
    /// [`ZeroReason::SmemPerBlock`].
    SmemPerBlock,
    /// [`ZeroReason::Barriers`].
    Barriers,
    /// [`OccupancyError::EmptyBlock`].
    EmptyBlock,
    /// [`OccupancyError::CarveoutOutOfRange`].
    CarveoutOutOfRange,
    /// [`OccupancyError::OptInOverLimit`].
    OptInOverLimit,
    /// Any other refusal of the engine, or 0 blocks without a reason.
    Other,
}

impl Impossible {
    /// Every kind, for code generation.
    pub const ALL: [Impossible; 12] = [
        Impossible::BlockTooLarge,
        Impossible::ExceedsLaunchBounds,
        Impossible::BlockDimZTooLarge,
        Impossible::RegistersPerThread,
        Impossible::RegistersPerBlock,
        Impossible::DynamicSmemOverOptIn,
        Impossible::SmemPerBlock,
        Impossible::Barriers,
        Impossible::EmptyBlock,
        Impossible::CarveoutOutOfRange,
        Impossible::OptInOverLimit,
        Impossible::Other,
    ];

    /// The variant's name, as written in Rust (`BlockTooLarge`).
    pub const fn variant_name(self) -> &'static str {
        match self {
            Impossible::BlockTooLarge => "BlockTooLarge",
            Impossible::ExceedsLaunchBounds => "ExceedsLaunchBounds",
            Impossible::BlockDimZTooLarge => "BlockDimZTooLarge",
            Impossible::RegistersPerThread => "RegistersPerThread",
            Impossible::RegistersPerBlock => "RegistersPerBlock",
            Impossible::DynamicSmemOverOptIn => "DynamicSmemOverOptIn",
            Impossible::SmemPerBlock => "SmemPerBlock",
            Impossible::Barriers => "Barriers",
            Impossible::EmptyBlock => "EmptyBlock",
            Impossible::CarveoutOutOfRange => "CarveoutOutOfRange",
            Impossible::OptInOverLimit => "OptInOverLimit",
            Impossible::Other => "Other",
        }
    }

    /// What is wrong, in words, without numbers.
    pub const fn describe(self) -> &'static str {
        match self {
            Impossible::BlockTooLarge => "the block has more threads than the device allows",
            Impossible::ExceedsLaunchBounds => {
                "the block has more threads than the kernel's launch bounds allow"
            }
            Impossible::BlockDimZTooLarge => "the block's z dimension exceeds 64",
            Impossible::RegistersPerThread => {
                "the kernel uses more registers per thread than the architecture allows"
            }
            Impossible::RegistersPerBlock => {
                "the block's registers exceed the per-block register limit"
            }
            Impossible::DynamicSmemOverOptIn => {
                "the dynamic shared memory exceeds the opt-in set on the function"
            }
            Impossible::SmemPerBlock => {
                "the block's shared memory exceeds the per-block limit (48 KiB without the opt-in)"
            }
            Impossible::Barriers => "the kernel uses more barriers than the SM has",
            Impossible::EmptyBlock => "a block dimension is 0",
            Impossible::CarveoutOutOfRange => "the carveout is outside 0..=100%",
            Impossible::OptInOverLimit => {
                "the opt-in exceeds the shared memory the architecture allows per block"
            }
            Impossible::Other => "no block fits on an SM",
        }
    }
}

/// Why the launch of `kernel` as `launch` cannot run, given the engine's `result` for it,
/// or `None` when it can: the one decision of the cause, which the `launch_impossible`
/// lint makes its finding from and the macro's `const` check reports.
///
/// A block over the device's thread limit is that ([`Impossible::BlockTooLarge`]), whatever
/// the kernel's launch bounds; else a block over the launch bounds is
/// [`Impossible::ExceedsLaunchBounds`] (the occupancy counts it, as the driver's query
/// does; the launch fails), before what else the engine refuses.
pub const fn impossible(
    kernel: &Kernel,
    launch: &Launch,
    result: &Result<Occupancy, OccupancyError>,
) -> Option<Impossible> {
    if let Ok(occ) = result
        && occ.blocks_per_sm == 0
        && let Some(ZeroReason::BlockTooLarge { .. }) = occ.zero_reason
    {
        return Some(Impossible::BlockTooLarge);
    }
    if let Some(bound) = kernel.max_threads_per_block
        && launch.block.threads() > bound as u64
    {
        return Some(Impossible::ExceedsLaunchBounds);
    }
    match result {
        Err(OccupancyError::EmptyBlock { .. }) => Some(Impossible::EmptyBlock),
        Err(OccupancyError::CarveoutOutOfRange { .. }) => Some(Impossible::CarveoutOutOfRange),
        Err(OccupancyError::OptInOverLimit { .. }) => Some(Impossible::OptInOverLimit),
        Err(_) => Some(Impossible::Other),
        Ok(occ) if occ.blocks_per_sm > 0 => None,
        Ok(occ) => Some(match occ.zero_reason {
            Some(ZeroReason::BlockTooLarge { .. }) => Impossible::BlockTooLarge,
            Some(ZeroReason::BlockDimZTooLarge { .. }) => Impossible::BlockDimZTooLarge,
            Some(ZeroReason::RegistersPerThread { .. }) => Impossible::RegistersPerThread,
            Some(ZeroReason::RegistersPerBlock { .. }) => Impossible::RegistersPerBlock,
            Some(ZeroReason::DynamicSmemOverOptIn { .. }) => Impossible::DynamicSmemOverOptIn,
            Some(ZeroReason::SmemPerBlock { .. }) => Impossible::SmemPerBlock,
            Some(ZeroReason::Barriers { .. }) => Impossible::Barriers,
            None => Impossible::Other,
        }),
    }
}

/// `low_occupancy`: at least one block fits and the occupancy is below
/// `floor_basis_points` / 100 percent.
pub const fn below_floor(
    result: &Result<Occupancy, OccupancyError>,
    floor_basis_points: u16,
) -> bool {
    match result {
        Ok(occ) if occ.blocks_per_sm > 0 => {
            (occ.active_warps_per_sm() as u64) * 10000
                < floor_basis_points as u64 * occ.max_warps_per_sm as u64
        }
        _ => false,
    }
}

/// `partial_warp`: threads per block not a multiple of `warp_size` (32 on every
/// architecture of [`crate::arch::ARCHS`]).
pub const fn partial_warp(block: BlockDim, warp_size: u32) -> bool {
    warp_size > 0 && !block.threads().is_multiple_of(warp_size as u64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::arch::SM_90;
    use crate::occupancy::occupancy;

    const K96: Kernel = Kernel::new(96);
    const L256: Launch = Launch::new(BlockDim::linear(256));
    const LOW: Result<Occupancy, OccupancyError> = occupancy(&SM_90, &K96, &L256);

    #[test]
    fn const_forms_agree_with_the_lints() {
        // 96 regs, 256 threads on sm_90: 2 blocks = 16 of 64 warps = 25%.
        const FIRES: bool = below_floor(&LOW, 5000);
        const QUIET: bool = below_floor(&LOW, 2500);
        const { assert!(FIRES) };
        const { assert!(!QUIET) };
        assert_eq!(impossible(&K96, &L256, &LOW), None);
        let (k32, big) = (Kernel::new(32), Launch::new(BlockDim::new(64, 32, 1)));
        let result = occupancy(&SM_90, &k32, &big);
        assert_eq!(
            impossible(&k32, &big, &result),
            Some(Impossible::BlockTooLarge)
        );
        assert!(!below_floor(&result, 10000));
        let over = Launch::new(BlockDim::linear(128)).with_dynamic_smem(64 * 1024);
        let result = occupancy(&SM_90, &k32, &over);
        assert_eq!(
            impossible(&k32, &over, &result),
            Some(Impossible::SmemPerBlock)
        );
        // 512 threads of a __launch_bounds__(256) kernel: the occupancy counts them (as the
        // driver's query does), the launch fails.
        let (bounded, l512) = (
            Kernel::new(32).with_max_threads(256),
            Launch::new(BlockDim::linear(512)),
        );
        let result = occupancy(&SM_90, &bounded, &l512);
        assert_eq!(result.unwrap().blocks_per_sm, 4);
        assert_eq!(
            impossible(&bounded, &l512, &result),
            Some(Impossible::ExceedsLaunchBounds)
        );
        // 2048 threads of the same kernel: over the device's 1024 first.
        let l2048 = Launch::new(BlockDim::linear(2048));
        let result = occupancy(&SM_90, &bounded, &l2048);
        assert_eq!(
            impossible(&bounded, &l2048, &result),
            Some(Impossible::BlockTooLarge)
        );
        // 512 threads with an opt-in over sm_90's 227 KiB: the launch bounds are named
        // first, as the lint names them.
        let too_much = bounded.with_opt_in(300 * 1024);
        let result = occupancy(&SM_90, &too_much, &l512);
        assert!(matches!(result, Err(OccupancyError::OptInOverLimit { .. })));
        assert_eq!(
            impossible(&too_much, &l512, &result),
            Some(Impossible::ExceedsLaunchBounds)
        );
        assert!(partial_warp(BlockDim::new(10, 10, 1), 32));
        assert!(!partial_warp(BlockDim::new(16, 8, 1), 32));
    }
}
