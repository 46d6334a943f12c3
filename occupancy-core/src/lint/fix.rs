//! The searches behind `help:` lines: which value of one input gives the launch what it
//! needs. Plain engine arithmetic: every candidate is evaluated with
//! [`crate::occupancy::occupancy`]; nothing is estimated.

use crate::arch::Arch;
use crate::occupancy::{
    BlockDim, Carveout, Kernel, Launch, Occupancy, available_dynamic_smem, occupancy,
};

/// Resident blocks per SM that a change must reach: the fewest that meet `warps_needed`
/// active warps with `warps_per_block` warps each, or `None` if that many do not fit the
/// SM's warps at this block size.
pub(crate) fn blocks_needed(arch: &Arch, warps_needed: u32, warps_per_block: u32) -> Option<u32> {
    if warps_per_block == 0 {
        return None;
    }
    let blocks = warps_needed.div_ceil(warps_per_block).max(1);
    (blocks * warps_per_block <= arch.max_warps_per_sm()).then_some(blocks)
}

fn blocks(arch: &Arch, kernel: &Kernel, launch: &Launch) -> Option<Occupancy> {
    occupancy(arch, kernel, launch).ok()
}

/// The largest dynamic shared memory per block, below the launch's own, with which at least
/// `wanted` blocks are resident (the engine's [`available_dynamic_smem`]).
pub(crate) fn dynamic_smem_for(
    arch: &Arch,
    kernel: &Kernel,
    launch: &Launch,
    wanted: u32,
) -> Option<(u32, Occupancy)> {
    let bytes = available_dynamic_smem(arch, kernel, launch.block, wanted).ok()?;
    if bytes >= launch.dynamic_smem_bytes {
        return None;
    }
    let occ = blocks(arch, kernel, &launch.with_dynamic_smem(bytes))?;
    Some((bytes, occ))
}

/// The result with no carveout preference, when the kernel sets one that is smaller than
/// the largest carveout and dropping it gives at least `wanted` blocks.
pub(crate) fn default_carveout_for(
    arch: &Arch,
    kernel: &Kernel,
    launch: &Launch,
    wanted: u32,
) -> Option<Occupancy> {
    if kernel.carveout == Carveout::Default {
        return None;
    }
    let k = kernel.with_carveout(Carveout::Default);
    blocks(arch, &k, launch).filter(|occ| occ.blocks_per_sm >= wanted)
}

/// Among 1-D blocks of a multiple of 32 threads up to the thread limit (same kernel, same
/// dynamic shared memory), the one whose occupancy satisfies `good` and whose size is
/// nearest to `threads` (the larger on a tie), other than `threads` itself.
pub(crate) fn block_size_for(
    arch: &Arch,
    kernel: &Kernel,
    launch: &Launch,
    threads: u64,
    good: impl Fn(&Occupancy) -> bool,
) -> Option<(u32, Occupancy)> {
    let limit = kernel.thread_limit(arch);
    let step = arch.warp_size;
    let mut best: Option<(u32, Occupancy)> = None;
    let mut size = step;
    while size <= limit {
        if u64::from(size) != threads {
            let l = Launch {
                block: BlockDim::linear(size),
                ..*launch
            };
            if let Some(occ) = blocks(arch, kernel, &l).filter(|occ| good(occ)) {
                let distance = u64::from(size).abs_diff(threads);
                let better = match best {
                    None => true,
                    Some((b, _)) => distance <= u64::from(b).abs_diff(threads),
                };
                if better {
                    best = Some((size, occ));
                }
            }
        }
        size += step;
    }
    best
}

/// The largest 1-D block (a multiple of 32, up to the thread limit) that launches at all.
pub(crate) fn largest_block_that_launches(
    arch: &Arch,
    kernel: &Kernel,
    launch: &Launch,
) -> Option<(u32, Occupancy)> {
    let step = arch.warp_size;
    let top = kernel.thread_limit(arch) / step * step;
    (1..=top / step).rev().map(|w| w * step).find_map(|size| {
        let l = Launch {
            block: BlockDim::linear(size),
            ..*launch
        };
        blocks(arch, kernel, &l)
            .filter(|occ| occ.blocks_per_sm > 0)
            .map(|occ| (size, occ))
    })
}

/// The largest dynamic shared memory per block with which one block fits once the function
/// opts in to the most the architecture allows beside its static shared memory.
pub(crate) fn max_dynamic_smem_with_opt_in(
    arch: &Arch,
    kernel: &Kernel,
    launch: &Launch,
) -> Option<u32> {
    let opt_in = arch
        .smem_per_block_optin_bytes
        .checked_sub(kernel.static_smem_bytes)?;
    let k = kernel.with_opt_in(opt_in);
    available_dynamic_smem(arch, &k, launch.block, 1).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::arch::{SM_80, SM_90};

    #[test]
    fn smem_searches_are_exact() {
        // sm_90, 256 threads, 32 regs, 40 KiB dynamic: 41 KiB per block, 228 KiB / 41 = 5.
        let kernel = Kernel::new(32);
        let launch = Launch::new(BlockDim::linear(256)).with_dynamic_smem(40 * 1024);
        assert_eq!(
            occupancy(&SM_90, &kernel, &launch).unwrap().blocks_per_sm,
            5
        );
        // 8 blocks: 233472 / 8 = 29184 per block, minus 1024 reserved = 28160 (a multiple
        // of 128).
        let (bytes, occ) = dynamic_smem_for(&SM_90, &kernel, &launch, 8).unwrap();
        assert_eq!((bytes, occ.blocks_per_sm), (28160, 8));
    }

    #[test]
    fn block_search_prefers_the_nearest_size() {
        // sm_80, 64 regs: 2048 per warp, 8 warps per sub-partition, 32 warps per SM.
        // 768 threads (24 warps): 1 block = 37.5%. Nearest size reaching 50% (32 warps):
        // 512 (1 block of 16? no: 32 / 16 = 2 blocks = 32 warps) and 1024 (1 x 32 warps).
        let kernel = Kernel::new(64);
        let launch = Launch::new(BlockDim::linear(768));
        let (size, occ) = block_size_for(&SM_80, &kernel, &launch, 768, |o| {
            o.active_warps_per_sm() >= 32
        })
        .unwrap();
        assert_eq!((size, occ.blocks_per_sm), (1024, 1));
    }

    #[test]
    fn largest_launchable_block() {
        // 255 regs: 8192 per warp; 65536 per block / 8192 = 8 warps = 256 threads.
        let launch = Launch::new(BlockDim::linear(1024));
        let (size, occ) = largest_block_that_launches(&SM_90, &Kernel::new(255), &launch).unwrap();
        assert_eq!((size, occ.blocks_per_sm), (256, 1));
    }

    #[test]
    fn opt_in_maximum() {
        // sm_90: 227 KiB opt-in (232448 B); with 1 KiB reserved, one block holds
        // 232448 - static of dynamic shared memory.
        let launch = Launch::new(BlockDim::linear(128));
        let kernel = Kernel::new(32).with_static_smem(4096);
        assert_eq!(
            max_dynamic_smem_with_opt_in(&SM_90, &kernel, &launch),
            Some(232448 - 4096)
        );
    }
}
