//! Grid-level lints on a named GPU: waves and their tail, grids too small to fill the GPU
//! once, and thread-block clusters that hold fewer blocks than a plain launch. They need the
//! target's SM count (a GPU name such as `H100`, not a bare `sm_90`) and, for the waves, the
//! grid (`grid = ...` in the attribute).

use super::floor::percent;
use super::lints::{count, count64};
use super::{Context, Finding, Input, Level, Lint, Scope};
use crate::analysis::{self, LaunchWaves};
use crate::cluster::{
    ClusterCount, ClusterError, Topology, check_grid, cluster_blocks_per_sm_cap,
    max_active_clusters,
};

declare_lint! {
    /// ### What it does
    /// With a grid (`grid = 1300`) and a named GPU target, counts the waves the grid runs in
    /// (blocks per SM x SMs at a time; for a cluster launch, the clusters resident at once x
    /// blocks per cluster, as `crate::cluster` models them) and reports a last, partial wave
    /// that leaves more than the policy's share (`thresholds.tail_effect_max_waste`, 10% by
    /// default) of the launch's block slots idle, assuming blocks of equal duration.
    ///
    /// ### Why is this bad
    /// A grid of 1300 blocks on an H100 at 8 blocks per SM (1056 at a time) runs one full
    /// wave and a second at 23%: the launch takes two waves' time for 1.23 waves of work, and
    /// 38% of its block slots sit idle; while the last wave runs alone, its 244 blocks on 132
    /// SMs allow at most 25% achieved occupancy.
    ///
    /// ### Example
    /// ```text
    /// #[occupancy::check(block = 256, regs = 32, grid = 1300, target = "H100")]
    /// fn launch(stream: &CudaStream) { /* ... */ } // last wave: at most 25% achieved
    /// ```
    /// Use instead: a whole number of waves (`grid = 1056`, more work per block), or a
    /// grid-stride loop over one wave.
    ///
    /// ### Measured
    /// saxpy on an H200, 1.25 waves (1320 blocks) against a grid-stride wave of 1056: 0.555
    /// against 0.448 ms, achieved occupancy 81.8% against 96.9% (docs/ACHIEVED.md).
    pub static TAIL_EFFECT = Lint {
        name: "tail_effect",
        default_level: Level::Warn,
        configurable: true,
        scope: Scope::Target,
        summary: "the grid's last wave leaves much of the GPU idle",
        check: tail_effect,
    };
}

declare_lint! {
    /// ### What it does
    /// With a grid and a named GPU target, reports a grid with fewer blocks than the GPU
    /// holds at once (blocks per SM x SMs, or for a cluster launch the clusters resident at
    /// once x blocks per cluster), naming how many SMs get no block at all.
    ///
    /// ### Why is this bad
    /// A launch of one 1024-thread block on an 80-SM V100 uses one SM; 79 sit idle whatever
    /// the kernel's occupancy, and the one SM holds 32 of its 64 warps: at most 50% achieved
    /// occupancy (the grid's ceiling, [`crate::analysis::grid_ceiling`]). Occupancy per SM says nothing about a GPU the grid leaves
    /// empty.
    ///
    /// ### Example
    /// ```text
    /// #[occupancy::check(block = (32, 32), regs = 32, grid = 1, target = "V100")]
    /// fn launch(stream: &CudaStream) { /* ... */ } // at most 50% achieved
    /// ```
    /// Use instead: split the work into a full wave, 160 blocks of 1024 threads at 2 per SM
    /// (one block per SM, 80, still leaves half the block slots idle), e.g. with a
    /// grid-stride loop.
    ///
    /// ### Measured
    /// saxpy on an H200, 117 blocks against 1056: 2.08 against 0.446 ms (4.7x), achieved
    /// occupancy 12.5% (the grid's ceiling) against 96.9% (docs/ACHIEVED.md).
    pub static UNDERSIZED_GRID = Lint {
        name: "undersized_grid",
        default_level: Level::Warn,
        configurable: true,
        scope: Scope::Target,
        summary: "the grid cannot fill the GPU once",
        check: undersized_grid,
    };
}

declare_lint! {
    /// ### What it does
    /// With `cluster = N` (thread-block clusters, cc 9.0+), reports when a cluster launch
    /// holds fewer blocks at a time than the same plain launch would: the driver grants
    /// cluster launches at most 8 resident blocks per SM on cc 9.0 (measured on an H200),
    /// and clusters must fit inside one GPC, so SMs in GPCs too small for a cluster stay
    /// idle. On a named GPU it gives `cuOccupancyMaxActiveClusters` as the engine predicts it
    /// (`crate::cluster`), exact on the H200.
    ///
    /// ### Why is this bad
    /// On an H100, clusters of 8 blocks with one block per SM hold 15 clusters = 120 blocks:
    /// 12 of the 132 SMs are idle for the whole launch; clusters of 16 hold 7 (112 SMs).
    ///
    /// ### Example
    /// ```text
    /// // A non-portable cluster size: the wrapper sets the attribute that allows it.
    /// #[occupancy::check(block = 256, regs = 32, smem = 224 KiB, opt_in = 224 KiB, cluster = 16, non_portable = true, target = "H200")]
    /// fn launch(stream: &CudaStream) { /* ... */ } // 7 clusters: 112 of 132 SMs
    /// ```
    /// Use instead: `cluster = 2` (66 clusters, every SM), if the algorithm allows.
    pub static CLUSTER_LIMIT = Lint {
        name: "cluster_limit",
        default_level: Level::Warn,
        configurable: true,
        scope: Scope::Target,
        summary: "a cluster launch holds fewer blocks than the plain launch",
        check: cluster_limit,
    };
}

/// `at most 12.5% achieved: 117 blocks on 132 SMs`: the grid ceiling of `blocks` blocks of
/// this launch ([`analysis::grid_ceiling`]).
fn ceiling_text(occ: &crate::occupancy::Occupancy, sms: u32, blocks: u64) -> Option<String> {
    let c = analysis::grid_ceiling(occ, sms, blocks)?;
    Some(format!(
        "at most {} achieved: {} on {sms} SMs",
        percent((c * 1e6).round() as u64, 1_000_000u64),
        count(u32::try_from(blocks).unwrap_or(u32::MAX), "block")
    ))
}

/// The waves of the launch on a named GPU, when the spec has a grid and a block fits: for
/// a cluster launch, at the clusters resident at once ([`analysis::launch_waves`]).
fn launch_waves(cx: &Context<'_>) -> Option<LaunchWaves> {
    let grid = cx.spec.grid?;
    cx.result.ok().filter(|occ| occ.blocks_per_sm > 0)?;
    // A grid that is not a whole number of clusters does not launch (launch_impossible).
    if let Some(cluster) = cx.spec.cluster
        && check_grid(&grid, &cluster.dim).is_err()
    {
        return None;
    }
    analysis::launch_waves(
        &cx.target,
        &cx.spec.kernel,
        &cx.spec.launch,
        cx.spec.cluster.as_ref(),
        grid.blocks(),
    )
}

/// `1056 blocks at a time: 8/SM x 132 SMs on H200`, or for a cluster launch `981 blocks at
/// a time: 327 clusters of 3 on H200 (8/SM x 132 SMs without GPC packing)`.
fn wave_note(cx: &Context<'_>, lw: &LaunchWaves) -> String {
    let at_a_time = count64(lw.waves.blocks_per_wave, "block");
    match lw.clusters {
        None => format!(
            "{at_a_time} at a time: {}/SM x {} SMs on {}",
            lw.blocks_per_sm, lw.sm_count, cx.target
        ),
        Some((clusters, size)) => format!(
            "{at_a_time} at a time: {} of {size} on {} (cluster launches: at most {}/SM x {} SMs, less what \
             GPC packing leaves idle)",
            count(clusters, "cluster"),
            cx.target,
            lw.blocks_per_sm,
            lw.sm_count
        ),
    }
}

fn tail_effect(cx: &Context<'_>) -> Option<Finding> {
    let lw = launch_waves(cx)?;
    let w = lw.waves;
    if w.full_waves == 0 || w.tail_blocks == 0 {
        return None;
    }
    let waste_bp = (w.tail_waste() * 10000.0).round() as u32;
    if waste_bp <= cx.spec.thresholds.tail_effect_max_waste_bp {
        return None;
    }
    let per_wave = w.blocks_per_wave;
    let (down, up) = (w.full_waves * per_wave, (w.full_waves + 1) * per_wave);
    let occ = cx.result.ok()?;
    let sms = lw.sm_count;
    cx.finding(&TAIL_EFFECT,
        Input::Grid,
        format!(
            "{}: a grid of {} blocks runs {:.2} waves: the last wave fills {} of {per_wave} block slots, \
             {} of the launch's block slots idle; the last wave alone: {}",
            cx.subject(Scope::Target),
            w.grid_blocks,
            w.waves(),
            w.tail_blocks,
            percent(waste_bp, 10000u32),
            ceiling_text(&occ, sms, w.tail_blocks)?,
        ),
        vec![wave_note(cx, &lw)],
        vec![format!(
            "a grid of {down} or {up} blocks is a whole number of waves (more or less work per block), or \
             loop over the work with a grid of {per_wave} (grid-stride)"
        )],
    )
}

fn undersized_grid(cx: &Context<'_>) -> Option<Finding> {
    let lw = launch_waves(cx)?;
    let (w, sms) = (lw.waves, lw.sm_count);
    if w.fills_gpu() {
        return None;
    }
    let grid = w.grid_blocks;
    let idle_note = if grid < u64::from(sms) {
        format!("{} of {sms} SMs get no block", u64::from(sms) - grid)
    } else if lw.clusters.is_some() {
        format!(
            "only {grid} of the {} blocks a wave of clusters holds are used ({})",
            w.blocks_per_wave,
            percent(grid, w.blocks_per_wave)
        )
    } else {
        format!(
            "every SM gets a block, but only {grid} of {} block slots are used ({})",
            w.blocks_per_wave,
            percent(grid, w.blocks_per_wave)
        )
    };
    let occ = cx.result.ok()?;
    cx.finding(&UNDERSIZED_GRID,
        Input::Grid,
        format!(
            "{}: a grid of {} cannot fill the GPU once ({} of a wave): {}",
            cx.subject(Scope::Target),
            count64(grid, "block"),
            percent(grid, w.blocks_per_wave),
            ceiling_text(&occ, sms, grid)?,
        ),
        vec![wave_note(cx, &lw), idle_note],
        vec![format!(
            "at least {sms} blocks give every SM one, {} fill the GPU: split the work into more blocks",
            w.blocks_per_wave
        )],
    )
}

fn cluster_limit(cx: &Context<'_>) -> Option<Finding> {
    let cluster = cx.spec.cluster?;
    let occ = cx.result.ok().filter(|occ| occ.blocks_per_sm > 0)?;
    // A cluster launch that cannot run is launch_impossible's.
    if cluster_error(cx).is_some() {
        return None;
    }
    let (arch, kernel, launch) = (cx.target.arch, &cx.spec.kernel, &cx.spec.launch);
    let size = cluster.dim.blocks();
    let mut notes = Vec::new();
    let capped = match cluster_blocks_per_sm_cap(arch) {
        Some(cap) if cap < occ.blocks_per_sm => {
            notes.push(format!(
                "cluster launches hold at most {cap} blocks per SM on {} (measured on an H200); the plain launch \
                 holds {}",
                arch.sm,
                occ.blocks_per_sm
            ));
            cap
        }
        _ => occ.blocks_per_sm,
    };
    let mut message = None;
    if let Some(topology) = Topology::of_target(&cx.target)
        && let Ok(r) = max_active_clusters(arch, &topology, kernel, launch, &cluster)
    {
        let plain = u64::from(topology.sm_count()) * u64::from(occ.blocks_per_sm);
        let clusters = match r.max_active_clusters {
            ClusterCount::Exact(n) => Some(n),
            ClusterCount::Bounds { model, .. } => model,
        };
        if let Some(n) = clusters {
            let held = u64::from(n) * size;
            if held < plain {
                let how = match r.max_active_clusters {
                    ClusterCount::Exact(_) => String::new(),
                    bounds => format!(" (layout inferred; {bounds} clusters possible)"),
                };
                message = Some(format!(
                    "{}: clusters of {size} hold {n} x {size} = {held} blocks at a time{how}, {} fewer than the \
                     {plain} of a plain launch ({}/SM x {} SMs)",
                    cx.subject(Scope::Target),
                    plain - held,
                    occ.blocks_per_sm,
                    topology.sm_count(),
                ));
                let packed = u64::from(n) * size;
                let slots = r.block_slots();
                if packed < slots {
                    notes.push(format!(
                        "a cluster's blocks run on distinct SMs of one GPC: {} of {slots} cluster block slots cannot \
                         hold a whole cluster",
                        slots - packed
                    ));
                }
            }
        }
    } else if capped < occ.blocks_per_sm {
        message = Some(format!(
            "{}: a cluster launch holds {} per SM, the plain launch {}",
            cx.subject(Scope::Target),
            count(capped, "block"),
            occ.blocks_per_sm
        ));
    }
    cx.finding(&CLUSTER_LIMIT,
        Input::Cluster,
        message?,
        notes,
        vec![format!(
            "smaller clusters pack better (size 2 always fills whole TPCs); or give each block more work so \
             fewer, larger blocks ({capped}/SM or fewer) lose nothing to the cap"
        )],
    )
}

/// Why a cluster launch cannot run on the target (cc before 9.0, a size over the portable
/// maximum without the non-portable attribute, a size over the largest allowed, a grid that
/// is not a whole number of clusters).
pub(super) fn cluster_error(cx: &Context<'_>) -> Option<ClusterError> {
    let cluster = cx.spec.cluster?;
    // The checks do not depend on the GPU's layout: any topology validates.
    let topology = Topology::SmCount(1);
    match max_active_clusters(
        cx.target.arch,
        &topology,
        &cx.spec.kernel,
        &cx.spec.launch,
        &cluster,
    ) {
        Err(ClusterError::Occupancy(_)) | Ok(_) => {}
        Err(e) => return Some(e),
    }
    check_grid(&cx.spec.grid?, &cluster.dim).err()
}
