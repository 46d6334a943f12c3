//! Granularity analysis: which allocation step a configuration wastes, and the exact change
//! that gains a step.
//!
//! Every function here is pure engine arithmetic: it re-runs [`occupancy`] on changed inputs
//! (fewer registers, fewer bytes, another block size, carveout or barrier count) and reports
//! the smallest change that adds resident blocks, so each suggestion is, by construction,
//! what the driver would answer for the changed kernel. No I/O; the lint layer turns these
//! numbers into findings.

use crate::arch::{Arch, Target};
use crate::cluster::{Cluster, Topology, max_active_clusters};
use crate::occupancy::{
    BlockDim, Carveout, Kernel, Launch, Occupancy, OccupancyError, Prepared, Resource,
    available_dynamic_smem, occupancy,
};

/// Dropping registers per thread to the next allocation step adds resident blocks.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RegisterStep {
    /// Registers per thread now.
    pub registers_per_thread: u32,
    /// The most registers per thread that gives more resident blocks.
    pub fewer_registers_per_thread: u32,
    /// The occupancy now.
    pub before: Occupancy,
    /// The occupancy with [`fewer_registers_per_thread`](Self::fewer_registers_per_thread).
    pub after: Occupancy,
}

impl RegisterStep {
    /// Registers per thread to drop.
    pub const fn drop(&self) -> u32 {
        self.registers_per_thread - self.fewer_registers_per_thread
    }
}

/// The most registers per thread ptxas allocates (`-maxrregcount` takes at most 255): every
/// architecture's [`Arch::max_regs_per_thread`](crate::arch::Arch::max_regs_per_thread).
pub const PTXAS_MAX_REGISTERS: u32 = 255;

/// The largest register count below the kernel's own (searching down from
/// `min(registers - 1, 255)` to 1) with which at least `wanted` blocks are resident;
/// `None` when no such count exists.
///
/// # Errors
///
/// As [`occupancy`].
pub fn registers_for_blocks(
    arch: &Arch,
    kernel: &Kernel,
    launch: &Launch,
    wanted: u32,
) -> Result<Option<Change<u32>>, OccupancyError> {
    let start = kernel
        .registers_per_thread
        .saturating_sub(1)
        .min(arch.max_regs_per_thread)
        .min(PTXAS_MAX_REGISTERS);
    for registers in (1..=start).rev() {
        let occ = occupancy(
            arch,
            &Kernel {
                registers_per_thread: registers,
                ..*kernel
            },
            launch,
        )?;
        if occ.blocks_per_sm >= wanted {
            return Ok(Some(Change {
                value: registers,
                occupancy: occ,
            }));
        }
    }
    Ok(None)
}

/// The largest register count below the kernel's that adds resident blocks, with both
/// occupancies; `None` when no register count below the current one adds a block (registers
/// do not limit, or another resource binds first).
///
/// Example (cc 8.0, 256 threads): 41 registers allocate 48 per thread (1536 per warp,
/// 5 blocks); 40 registers allocate 1280 per warp, 6 blocks.
///
/// # Errors
///
/// As [`occupancy`].
pub fn register_step(
    arch: &Arch,
    kernel: &Kernel,
    launch: &Launch,
) -> Result<Option<RegisterStep>, OccupancyError> {
    let before = occupancy(arch, kernel, launch)?;
    Ok(
        registers_for_blocks(arch, kernel, launch, before.blocks_per_sm + 1)?.map(|change| {
            RegisterStep {
                registers_per_thread: kernel.registers_per_thread,
                fewer_registers_per_thread: change.value,
                before,
                after: change.occupancy,
            }
        }),
    )
}

/// One level of the register budget: the most registers per thread that still gives
/// `occupancy.blocks_per_sm` resident blocks.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BudgetLevel {
    /// The most registers per thread for this level.
    pub max_registers_per_thread: u32,
    /// The occupancy at that register count.
    pub occupancy: Occupancy,
}

/// The register budget: for every resident-block count the kernel can reach by changing its
/// registers alone, the most registers per thread that reaches it, highest occupancy first.
/// (What `__launch_bounds__(threads, min_blocks)` or `-maxrregcount` should ask ptxas for.)
///
/// # Errors
///
/// As [`occupancy`].
pub fn register_budget(
    arch: &Arch,
    kernel: &Kernel,
    launch: &Launch,
) -> Result<Vec<BudgetLevel>, OccupancyError> {
    let mut levels: Vec<BudgetLevel> = Vec::new();
    for registers in 0..=arch.max_regs_per_thread.min(PTXAS_MAX_REGISTERS) {
        let occ = occupancy(
            arch,
            &Kernel {
                registers_per_thread: registers,
                ..*kernel
            },
            launch,
        )?;
        if occ.blocks_per_sm == 0 {
            break;
        }
        match levels.last_mut() {
            Some(last) if last.occupancy.blocks_per_sm == occ.blocks_per_sm => {
                *last = BudgetLevel {
                    max_registers_per_thread: registers,
                    occupancy: occ,
                };
            }
            _ => levels.push(BudgetLevel {
                max_registers_per_thread: registers,
                occupancy: occ,
            }),
        }
    }
    Ok(levels)
}

/// Shared memory per block sits just above a boundary: shaving a few bytes adds a block.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SmemStep {
    /// Static + dynamic shared memory per block now, bytes (reserved not included).
    pub smem_bytes: u32,
    /// The most static + dynamic bytes per block that gives more resident blocks.
    pub fewer_smem_bytes: u32,
    /// The occupancy now.
    pub before: Occupancy,
    /// The occupancy with [`fewer_smem_bytes`](Self::fewer_smem_bytes).
    pub after: Occupancy,
}

impl SmemStep {
    /// Bytes per block to shave.
    pub const fn shave_bytes(&self) -> u32 {
        self.smem_bytes - self.fewer_smem_bytes
    }
}

/// The kernel with `total` bytes of static + dynamic shared memory, taken off the dynamic
/// part first and then the static part.
fn with_total_smem(kernel: &Kernel, launch: &Launch, total: u32) -> (Kernel, Launch) {
    let static_bytes = kernel.static_smem_bytes.min(total);
    (
        Kernel {
            static_smem_bytes: static_bytes,
            ..*kernel
        },
        Launch {
            dynamic_smem_bytes: total - static_bytes,
            ..*launch
        },
    )
}

fn blocks_with_total_smem(
    arch: &Arch,
    kernel: &Kernel,
    launch: &Launch,
    total: u32,
) -> Result<u32, OccupancyError> {
    let (k, l) = with_total_smem(kernel, launch, total);
    Ok(occupancy(arch, &k, &l)?.blocks_per_sm)
}

/// The largest static + dynamic shared memory per block below the current total with which
/// at least `wanted` blocks are resident (bytes come off the dynamic part first, then the
/// static part), with its occupancy; `None` when even no shared memory gives that many.
///
/// # Errors
///
/// As [`occupancy`].
pub fn smem_for_blocks(
    arch: &Arch,
    kernel: &Kernel,
    launch: &Launch,
    wanted: u32,
) -> Result<Option<Change<u32>>, OccupancyError> {
    let total = kernel
        .static_smem_bytes
        .saturating_add(launch.dynamic_smem_bytes);
    if total == 0 || blocks_with_total_smem(arch, kernel, launch, 0)? < wanted {
        return Ok(None);
    }
    // Blocks fall as bytes grow: find the largest total below the current with `wanted` blocks.
    let (mut lo, mut hi) = (0u32, total - 1);
    while lo < hi {
        let mid = lo + (hi - lo).div_ceil(2);
        if blocks_with_total_smem(arch, kernel, launch, mid)? >= wanted {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    let (k, l) = with_total_smem(kernel, launch, lo);
    Ok(Some(Change {
        value: lo,
        occupancy: occupancy(arch, &k, &l)?,
    }))
}

/// The largest static + dynamic shared memory per block below the current one that adds
/// resident blocks (bytes come off the dynamic part first); `None` when no amount of
/// shared memory adds a block (shared memory does not limit, or another resource binds).
///
/// # Errors
///
/// As [`occupancy`].
pub fn smem_step(
    arch: &Arch,
    kernel: &Kernel,
    launch: &Launch,
) -> Result<Option<SmemStep>, OccupancyError> {
    let before = occupancy(arch, kernel, launch)?;
    let total = kernel
        .static_smem_bytes
        .saturating_add(launch.dynamic_smem_bytes);
    Ok(
        smem_for_blocks(arch, kernel, launch, before.blocks_per_sm + 1)?.map(|change| SmemStep {
            smem_bytes: total,
            fewer_smem_bytes: change.value,
            before,
            after: change.occupancy,
        }),
    )
}

/// Dynamic shared memory per block that could be added without losing a resident block,
/// bytes (0 when the launch cannot run).
///
/// # Errors
///
/// As [`occupancy`].
pub fn free_dynamic_smem(
    arch: &Arch,
    kernel: &Kernel,
    launch: &Launch,
) -> Result<u32, OccupancyError> {
    let blocks = occupancy(arch, kernel, launch)?.blocks_per_sm;
    if blocks == 0 {
        return Ok(0);
    }
    let most = available_dynamic_smem(arch, kernel, launch.block, blocks)?;
    Ok(most.saturating_sub(launch.dynamic_smem_bytes))
}

/// A change of one launch or kernel parameter and the occupancy it gives.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Change<T> {
    /// The new value.
    pub value: T,
    /// The occupancy with it.
    pub occupancy: Occupancy,
}

/// The smallest block size above the current one (multiples of 32, up to the device or
/// launch-bounds limit) that lifts the resident-block limit: whose occupancy is higher and
/// at which that limit no longer holds warps back (the SM's warps all used, or blocks not
/// what binds) and at least as high as the smallest higher size's (registers or shared
/// memory may bind lower once blocks grow); else that smallest higher size. For blocks
/// too small to fill the SM before the resident-block limit binds: on cc 8.6, 32-thread
/// blocks (16 of 48 warps) give 96, not 64, which is limited the same way (32 of 48).
/// `None` when no larger block raises occupancy.
///
/// # Errors
///
/// As [`occupancy`].
pub fn larger_block(
    arch: &Arch,
    kernel: &Kernel,
    launch: &Launch,
) -> Result<Option<Change<u32>>, OccupancyError> {
    let prepared = Prepared::new(arch, kernel)?;
    let before = prepared.occupancy(launch)?;
    let limit = kernel.thread_limit(arch);
    // A block over every limit saturates `threads_per_block` at u32::MAX: nothing is larger.
    let Some(first) = (before.threads_per_block / arch.warp_size + 1).checked_mul(arch.warp_size)
    else {
        return Ok(None);
    };
    let mut higher: Option<Change<u32>> = None;
    for threads in (first..=limit).step_by(arch.warp_size as usize) {
        let occ = prepared.occupancy(&Launch {
            block: BlockDim::linear(threads),
            ..*launch
        })?;
        if occ.active_warps_per_sm() <= before.active_warps_per_sm() {
            continue;
        }
        let change = Change {
            value: threads,
            occupancy: occ,
        };
        let held_back = occ.binding().contains(Resource::Blocks)
            && occ.active_warps_per_sm() < occ.max_warps_per_sm;
        if !held_back {
            // Unless another limit then binds lower than a smaller size reached.
            return Ok(Some(match higher {
                Some(h) if h.occupancy.active_warps_per_sm() > occ.active_warps_per_sm() => h,
                _ => change,
            }));
        }
        higher.get_or_insert(change);
    }
    Ok(higher)
}

/// The most barriers per block below the kernel's own with which at least `wanted` blocks
/// are resident (cc 9.0+, where barriers limit residency).
///
/// # Errors
///
/// As [`occupancy`].
pub fn barriers_for_blocks(
    arch: &Arch,
    kernel: &Kernel,
    launch: &Launch,
    wanted: u32,
) -> Result<Option<Change<u32>>, OccupancyError> {
    // Only the counts that can answer, so that `u32::MAX` barriers do not take 4 billion
    // engine calls: counts above the SM's barriers fit no block (fewer than any `wanted` >
    // 0), and without a barrier limit (before cc 9.0) every count gives the same occupancy,
    // so the highest one answers for all.
    let mut highest = kernel.barriers.saturating_sub(1);
    if arch.barriers_per_sm > 0 && wanted > 0 {
        highest = highest.min(arch.barriers_per_sm);
    }
    let lowest = if arch.barriers_per_sm == 0 {
        highest.max(1)
    } else {
        1
    };
    for barriers in (lowest..=highest).rev() {
        let occ = occupancy(
            arch,
            &Kernel {
                barriers,
                ..*kernel
            },
            launch,
        )?;
        if occ.blocks_per_sm >= wanted {
            return Ok(Some(Change {
                value: barriers,
                occupancy: occ,
            }));
        }
    }
    Ok(None)
}

/// The most barriers per block below the current count that adds resident blocks (cc 9.0+).
///
/// # Errors
///
/// As [`occupancy`].
pub fn fewer_barriers(
    arch: &Arch,
    kernel: &Kernel,
    launch: &Launch,
) -> Result<Option<Change<u32>>, OccupancyError> {
    let before = occupancy(arch, kernel, launch)?;
    barriers_for_blocks(arch, kernel, launch, before.blocks_per_sm + 1)
}

/// When a carveout preference costs resident blocks: the smallest carveout percentage that
/// gives as many blocks as the default carveout. `None` when the preference costs nothing or
/// the kernel has no preference.
///
/// # Errors
///
/// As [`occupancy`].
pub fn carveout_fix(
    arch: &Arch,
    kernel: &Kernel,
    launch: &Launch,
) -> Result<Option<Change<u8>>, OccupancyError> {
    let Carveout::Percent(current) = kernel.carveout else {
        return Ok(None);
    };
    let before = occupancy(arch, kernel, launch)?;
    let best = occupancy(
        arch,
        &Kernel {
            carveout: Carveout::Default,
            ..*kernel
        },
        launch,
    )?;
    if best.blocks_per_sm <= before.blocks_per_sm {
        return Ok(None);
    }
    for percent in current..=100 {
        let occ = occupancy(
            arch,
            &Kernel {
                carveout: Carveout::Percent(percent),
                ..*kernel
            },
            launch,
        )?;
        if occ.blocks_per_sm == best.blocks_per_sm {
            return Ok(Some(Change {
                value: percent,
                occupancy: occ,
            }));
        }
    }
    Ok(None)
}

/// The block sizes (multiples of 32, up to the device or launch-bounds limit) that reach the
/// highest occupancy for this kernel, most resident blocks first, then smaller blocks.
/// `dynamic_smem(threads)` gives the dynamic shared memory per block for a block size.
///
/// # Errors
///
/// As [`occupancy`].
pub fn best_block_sizes(
    arch: &Arch,
    kernel: &Kernel,
    dynamic_smem: impl Fn(u32) -> u32,
) -> Result<Vec<Change<u32>>, OccupancyError> {
    let prepared = Prepared::new(arch, kernel)?;
    let limit = kernel.thread_limit(arch);
    let mut all = Vec::new();
    for threads in (arch.warp_size..=limit).step_by(arch.warp_size as usize) {
        let launch =
            Launch::new(BlockDim::linear(threads)).with_dynamic_smem(dynamic_smem(threads));
        all.push(Change {
            value: threads,
            occupancy: prepared.occupancy(&launch)?,
        });
    }
    let best = all
        .iter()
        .map(|c| c.occupancy.active_warps_per_sm())
        .max()
        .unwrap_or(0);
    if best == 0 {
        return Ok(Vec::new());
    }
    all.retain(|c| c.occupancy.active_warps_per_sm() == best);
    all.sort_by_key(|c| (std::cmp::Reverse(c.occupancy.blocks_per_sm), c.value));
    Ok(all)
}

/// How a grid runs in waves of resident blocks on a GPU.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Waves {
    /// Blocks in the grid.
    pub grid_blocks: u64,
    /// Blocks resident at once on the whole GPU: blocks per SM x SM count, or for a cluster
    /// launch the clusters resident at once x blocks per cluster ([`launch_waves`]).
    pub blocks_per_wave: u64,
    /// Full waves.
    pub full_waves: u64,
    /// Blocks in the last, partial wave (0 when the grid is a whole number of waves).
    pub tail_blocks: u64,
}

impl Waves {
    /// Waves as a fraction: grid blocks / blocks per wave.
    pub fn waves(&self) -> f64 {
        self.grid_blocks as f64 / self.blocks_per_wave as f64
    }

    /// Waves the launch takes, the partial one included.
    pub const fn waves_started(&self) -> u64 {
        self.full_waves + (self.tail_blocks > 0) as u64
    }

    /// The share of the last wave's block slots left idle, 0.0 ..= 1.0.
    pub fn tail_idle(&self) -> f64 {
        if self.tail_blocks == 0 {
            0.0
        } else {
            1.0 - self.tail_blocks as f64 / self.blocks_per_wave as f64
        }
    }

    /// The share of the launch's block-slot time left idle by the tail, 0.0 ..= 1.0
    /// (assuming blocks of equal duration): idle slots of the last wave / all slots.
    pub fn tail_waste(&self) -> f64 {
        let started = self.waves_started();
        if started == 0 {
            0.0
        } else {
            self.tail_idle() / started as f64
        }
    }

    /// Whether the grid fills the GPU at least once.
    pub const fn fills_gpu(&self) -> bool {
        self.grid_blocks >= self.blocks_per_wave
    }
}

/// Waves of a grid of `grid_blocks` blocks with `occupancy` on a GPU of `sm_count` SMs (a
/// plain launch; [`launch_waves`] takes clusters into account); `None` when no block fits
/// (the launch cannot run) or the GPU has no SMs.
pub fn waves(occupancy: &Occupancy, sm_count: u32, grid_blocks: u64) -> Option<Waves> {
    waves_of(
        occupancy.blocks_per_sm as u64 * sm_count as u64,
        grid_blocks,
    )
}

/// Waves of `grid_blocks` blocks, `blocks_per_wave` at a time; `None` for 0 at a time.
fn waves_of(blocks_per_wave: u64, grid_blocks: u64) -> Option<Waves> {
    if blocks_per_wave == 0 {
        return None;
    }
    Some(Waves {
        grid_blocks,
        blocks_per_wave,
        full_waves: grid_blocks / blocks_per_wave,
        tail_blocks: grid_blocks % blocks_per_wave,
    })
}

/// The highest achieved occupancy a grid allows, 0.0 ..= 1.0: the *grid ceiling*.
///
/// Achieved occupancy (Nsight Compute's `sm__warps_active.avg.pct_of_peak_sustained_active`)
/// averages the active warps of each SM over the cycles that SM is active. The block
/// scheduler spreads a grid over the SMs one block each first, so a grid of fewer blocks
/// than SMs gives each busy SM one block: `warps per block / max warps per SM`, whatever the
/// theoretical occupancy (117 blocks of 8 warps on an H200: 12.5% against 75%). A grid of
/// less than one wave (blocks per SM x SMs) gives each SM at most `ceil(grid / SMs)` blocks.
/// From one full wave on, the ceiling is the theoretical occupancy: a partial last wave
/// costs time, but blocks end at different times and the SMs left idle by the tail are not
/// active, so it lowers the average far less than equal-duration waves suggest (measured:
/// 1.25 waves of saxpy achieve 81.8%, not the 62.5% of equal waves). `None` when no block
/// fits or the GPU has no SMs.
///
/// Measured on an H200 (`tests/data/h200/ncu/`): for every launch of the examples, the
/// lints' before/after kernels and the probes' grids of 1 to 5000 blocks, the achieved
/// occupancy is at or below this ceiling, and within 1.5 points of it for grids of fewer
/// blocks than SMs.
pub fn grid_ceiling(occupancy: &Occupancy, sm_count: u32, grid_blocks: u64) -> Option<f64> {
    let w = waves(occupancy, sm_count, grid_blocks)?;
    if w.full_waves > 0 {
        return Some(occupancy.fraction());
    }
    let per_sm = grid_blocks
        .div_ceil(u64::from(sm_count))
        .min(u64::from(occupancy.blocks_per_sm));
    Some(
        per_sm as f64 * f64::from(occupancy.warps_per_block)
            / f64::from(occupancy.max_warps_per_sm),
    )
}

/// The waves of one launch on a named GPU, and what sets how many blocks run at once.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LaunchWaves {
    /// The waves.
    pub waves: Waves,
    /// SMs on the GPU.
    pub sm_count: u32,
    /// Resident blocks per SM: the plain occupancy, or for a cluster launch the plain
    /// occupancy capped for cluster launches ([`crate::cluster::cluster_blocks_per_sm_cap`]).
    pub blocks_per_sm: u32,
    /// For a cluster launch: the clusters resident at once
    /// ([`crate::cluster::ClusterCount::model`]) and the blocks per cluster. A wave is then
    /// their product, which GPC packing can make smaller than SMs x blocks per SM.
    pub clusters: Option<(u32, u32)>,
}

/// The waves of a grid of `grid_blocks` blocks of `kernel` launched as `launch` on
/// `target`, with or without thread-block clusters.
///
/// A plain launch runs SMs x blocks per SM at a time. A cluster launch runs
/// `cuOccupancyMaxActiveClusters` x cluster size at a time, as [`crate::cluster`] models it:
/// on an H200, clusters of 3 of a 256-thread, 32-register kernel hold 327 x 3 = 981 blocks,
/// not the plain 1056.
///
/// `None` when the target names no GPU (no SM count), no block fits, the cluster cannot
/// launch ([`crate::cluster::ClusterError`]), or only bounds are known for the clusters at
/// a time (no model answer, e.g. cc 10.0 parts whose GPC layout is unknown).
pub fn launch_waves(
    target: &Target,
    kernel: &Kernel,
    launch: &Launch,
    cluster: Option<&Cluster>,
    grid_blocks: u64,
) -> Option<LaunchWaves> {
    let sm_count = target.sm_count()?;
    match cluster {
        None => {
            let occ = occupancy(target.arch, kernel, launch).ok()?;
            Some(LaunchWaves {
                waves: waves(&occ, sm_count, grid_blocks)?,
                sm_count,
                blocks_per_sm: occ.blocks_per_sm,
                clusters: None,
            })
        }
        Some(cluster) => {
            let topology = Topology::of_target(target)?;
            let r = max_active_clusters(target.arch, &topology, kernel, launch, cluster).ok()?;
            let clusters = r.max_active_clusters.model()?;
            Some(LaunchWaves {
                waves: waves_of(r.blocks_at_a_time()?, grid_blocks)?,
                sm_count,
                blocks_per_sm: r.blocks_per_sm,
                clusters: Some((clusters, r.cluster_size)),
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::arch::{SM_75, SM_80, SM_86, SM_90};

    fn launch(threads: u32) -> Launch {
        Launch::new(BlockDim::linear(threads))
    }

    #[test]
    fn grid_ceiling_of_small_grids_partial_and_full_waves() {
        // H200 (132 SMs), 256 threads, 40 registers: 6 blocks of 8 warps per SM (75%).
        let occ = occupancy(&SM_90, &Kernel::new(40), &launch(256)).unwrap();
        assert_eq!(occ.blocks_per_sm, 6);
        assert_eq!(grid_ceiling(&occ, 132, 117), Some(0.125));
        assert_eq!(grid_ceiling(&occ, 132, 132), Some(0.125));
        assert_eq!(grid_ceiling(&occ, 132, 133), Some(0.25));
        assert_eq!(grid_ceiling(&occ, 132, 791), Some(0.75));
        assert_eq!(grid_ceiling(&occ, 132, 792), Some(0.75));
        assert_eq!(grid_ceiling(&occ, 132, 1300), Some(0.75));
        assert_eq!(grid_ceiling(&occ, 0, 1300), None);
    }

    #[test]
    fn register_step_41_to_40_on_sm_80_adds_a_block() {
        let step = register_step(&SM_80, &Kernel::new(41), &launch(256))
            .unwrap()
            .unwrap();
        assert_eq!((step.drop(), step.fewer_registers_per_thread), (1, 40));
        assert_eq!(
            (step.before.blocks_per_sm, step.after.blocks_per_sm),
            (5, 6)
        );
        assert_eq!((step.before.percent(), step.after.percent()), (62.5, 75.0));
        // 33 -> 32 gives the next step too.
        let step = register_step(&SM_80, &Kernel::new(33), &launch(256))
            .unwrap()
            .unwrap();
        assert_eq!(
            (step.fewer_registers_per_thread, step.after.blocks_per_sm),
            (32, 8)
        );
        // 40 is on a step: the next one down is 32 (8 registers, no "few").
        let step = register_step(&SM_80, &Kernel::new(40), &launch(256))
            .unwrap()
            .unwrap();
        assert_eq!((step.drop(), step.after.blocks_per_sm), (8, 8));
        // Registers do not limit: no step.
        assert_eq!(
            register_step(&SM_80, &Kernel::new(16), &launch(1024)).unwrap(),
            None
        );
    }

    #[test]
    fn register_budget_lists_each_level() {
        let budget = register_budget(&SM_80, &Kernel::new(100), &launch(256)).unwrap();
        let levels: Vec<(u32, u32)> = budget
            .iter()
            .map(|l| (l.occupancy.blocks_per_sm, l.max_registers_per_thread))
            .collect();
        // 8 blocks up to 32 regs, 6 up to 40, 5 up to 48, 4 up to 64, 3 up to 80, 2 up to
        // 128, 1 up to 255.
        assert_eq!(
            levels,
            [
                (8, 32),
                (6, 40),
                (5, 48),
                (4, 64),
                (3, 80),
                (2, 128),
                (1, 255)
            ]
        );
    }

    #[test]
    fn smem_step_finds_the_bytes_to_shave() {
        // cc 8.6, 50496 B dynamic (+1 KiB reserved, 51584 allocated): 1 block of 100 KiB.
        let kernel = Kernel::new(32).with_opt_in(SM_86.smem_per_block_optin_bytes);
        let l = launch(128).with_dynamic_smem(50496);
        let step = smem_step(&SM_86, &kernel, &l).unwrap().unwrap();
        // Two blocks need 51200 B each with the reserve: 50176 B of static + dynamic.
        assert_eq!((step.fewer_smem_bytes, step.shave_bytes()), (50176, 320));
        assert_eq!(
            (step.before.blocks_per_sm, step.after.blocks_per_sm),
            (1, 2)
        );
        // Static bytes are shaved once the dynamic ones are gone.
        let kernel = Kernel::new(32).with_static_smem(40000);
        let step = smem_step(&SM_90, &kernel, &launch(128)).unwrap().unwrap();
        assert_eq!(step.before.blocks_per_sm, 5);
        assert_eq!(step.after.blocks_per_sm, 6);
        // 6 x (37888 + 1024) = 233472 fits exactly.
        assert_eq!(step.fewer_smem_bytes, 37888);
        // No shared memory: nothing to shave.
        assert_eq!(
            smem_step(&SM_90, &Kernel::new(32), &launch(128)).unwrap(),
            None
        );
    }

    #[test]
    fn free_dynamic_smem_is_the_slack_before_losing_a_block() {
        // sm_90, 30000 B + 1 KiB reserve -> 31104 allocated: 7 blocks in 228 KiB. 7 blocks
        // allow 233472 / 7 = 33353 -> 33280 B each, 32256 beside the reserve.
        let kernel = Kernel::new(32).with_opt_in(100 * 1024);
        let l = launch(128).with_dynamic_smem(30000);
        assert_eq!(occupancy(&SM_90, &kernel, &l).unwrap().blocks_per_sm, 7);
        assert_eq!(
            free_dynamic_smem(&SM_90, &kernel, &l).unwrap(),
            32256 - 30000
        );
    }

    #[test]
    fn larger_block_lifts_the_block_limit() {
        // cc 8.6: 16 blocks of 64 threads = 32 of 48 warps; 96 threads fill the SM.
        let change = larger_block(&SM_86, &Kernel::new(32), &launch(64))
            .unwrap()
            .unwrap();
        assert_eq!((change.value, change.occupancy.percent()), (96, 100.0));
        // cc 7.5: 16 blocks of 32 threads = 16 of 32 warps; 64 threads fill it.
        let change = larger_block(&SM_75, &Kernel::new(32), &launch(32))
            .unwrap()
            .unwrap();
        assert_eq!(change.value, 64);
        // cc 8.6 from 32 threads: 64 raises occupancy (16 -> 32 of 48 warps) but the block
        // limit still holds it back; 96 lifts it.
        let change = larger_block(&SM_86, &Kernel::new(32), &launch(32))
            .unwrap()
            .unwrap();
        assert_eq!((change.value, change.occupancy.percent()), (96, 100.0));
        // 64 registers a thread: 96 threads lift the block limit, but registers then hold
        // 10 blocks (30 of 48 warps), under 64 threads' 32 of 48: 64 stays the answer.
        let change = larger_block(&SM_86, &Kernel::new(64), &launch(32))
            .unwrap()
            .unwrap();
        assert_eq!(
            (change.value, change.occupancy.active_warps_per_sm()),
            (64, 32)
        );
        // No size lifts it within `__launch_bounds__(64)`: the smallest higher one.
        let bounded = Kernel {
            max_threads_per_block: Some(64),
            ..Kernel::new(32)
        };
        let change = larger_block(&SM_86, &bounded, &launch(32))
            .unwrap()
            .unwrap();
        assert_eq!(
            (change.value, change.occupancy.active_warps_per_sm()),
            (64, 32)
        );
    }

    #[test]
    fn fewer_barriers_and_carveout_fix() {
        // cc 9.0, 128 threads, 16 barriers: 64 / 16 = 4 blocks; 12 barriers give 64 / 12 = 5.
        let kernel = Kernel::new(32).with_barriers(16);
        let change = fewer_barriers(&SM_90, &kernel, &launch(128))
            .unwrap()
            .unwrap();
        assert_eq!((change.value, change.occupancy.blocks_per_sm), (12, 5));
        // cc 9.0, 128 threads, 10 regs, carveout 0%: 8 blocks (8 KiB); default: 16.
        let kernel = Kernel::new(10).with_carveout(Carveout::Percent(0));
        let change = carveout_fix(&SM_90, &kernel, &launch(128))
            .unwrap()
            .unwrap();
        assert_eq!(change.occupancy.blocks_per_sm, 16);
        // 16 blocks need 16 x 1 KiB: 4% of 228 KiB (9338 B) snaps up to the 16 KiB carveout,
        // 3% (7004 B) only to 8 KiB.
        assert_eq!(change.value, 4);
        assert_eq!(
            carveout_fix(&SM_90, &Kernel::new(10), &launch(128)).unwrap(),
            None
        );
    }

    #[test]
    fn best_block_sizes_break_ties_toward_more_blocks() {
        // cc 8.0, 32 registers: every block size dividing 2048 reaches 100%.
        let best = best_block_sizes(&SM_80, &Kernel::new(32), |_| 0).unwrap();
        assert_eq!(best[0].value, 64, "32 blocks of 64 threads");
        assert!(best.iter().all(|c| c.occupancy.percent() == 100.0));
        // With 96 registers: 5 warps per sub-partition, 20 warps per SM, reached by every
        // block size whose warps divide 20.
        let best = best_block_sizes(&SM_80, &Kernel::new(96), |_| 0).unwrap();
        let sizes: Vec<(u32, u32)> = best
            .iter()
            .map(|c| (c.value, c.occupancy.blocks_per_sm))
            .collect();
        assert_eq!(
            sizes,
            [(32, 20), (64, 10), (128, 5), (160, 4), (320, 2), (640, 1)]
        );
    }

    #[test]
    fn waves_and_tail() {
        let occ = occupancy(&SM_90, &Kernel::new(32), &launch(256)).unwrap();
        assert_eq!(occ.blocks_per_sm, 8);
        // H100: 132 SMs x 8 = 1056 blocks per wave; 1300 blocks = 1 wave + 244.
        let w = waves(&occ, 132, 1300).unwrap();
        assert_eq!(
            (w.full_waves, w.tail_blocks, w.waves_started()),
            (1, 244, 2)
        );
        assert!((w.tail_idle() - (1.0 - 244.0 / 1056.0)).abs() < 1e-12);
        assert!((w.tail_waste() - (1.0 - 244.0 / 1056.0) / 2.0).abs() < 1e-12);
        assert!(w.fills_gpu());
        let small = waves(&occ, 132, 100).unwrap();
        assert!(!small.fills_gpu());
        assert_eq!(waves(&occ, 132, 2112).unwrap().tail_waste(), 0.0);
    }
}
