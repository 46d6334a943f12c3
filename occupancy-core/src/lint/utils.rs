//! What several lints share: the text of counts, blocks and occupancies, the engine's answer
//! when a block fits, the waves of a launch on a named GPU, and why a cluster launch
//! cannot run.

use super::Context;
use super::floor::percent;
use crate::analysis::{self, Change, LaunchWaves};
use crate::cluster::{ClusterError, Topology, check_grid, max_active_clusters};
use crate::occupancy::{Occupancy, OccupancyError};

// Shared wording

/// An analysis search's answer as `(value, occupancy)`; an engine error counts as no fix.
pub(super) fn analysis_pair<T>(
    result: Result<Option<Change<T>>, OccupancyError>,
) -> Option<(T, Occupancy)> {
    result.ok().flatten().map(|c| (c.value, c.occupancy))
}

/// `256 threads` or `(16, 16) = 256 threads`.
pub(super) fn block_text(block: crate::occupancy::BlockDim, threads: u64) -> String {
    if block.y == 1 && block.z == 1 {
        count64(threads, "thread")
    } else {
        format!("{block} = {}", count64(threads, "thread"))
    }
}

/// `75% (6 blocks/SM, 48 of 64 warps)`.
pub(super) fn occupancy_text(occ: &Occupancy) -> String {
    format!(
        "{} ({}/SM, {} of {} warps)",
        percent(occ.active_warps_per_sm(), occ.max_warps_per_sm),
        count(occ.blocks_per_sm, "block"),
        occ.active_warps_per_sm(),
        occ.max_warps_per_sm
    )
}

/// `1 block`, `6 blocks`.
pub(super) fn count(n: u32, noun: &str) -> String {
    count64(n.into(), noun)
}

/// `1 thread`, `256 threads`: a count and its noun, singular for 1 (else `s` added); the
/// wording of every message and table that counts threads, warps, blocks or lanes.
pub fn count64(n: u64, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

/// The engine's answer when at least one block fits.
pub(super) fn running(cx: &Context<'_>) -> Option<Occupancy> {
    cx.result.ok().filter(|occ| occ.blocks_per_sm > 0)
}

/// `6 blocks/SM (75%)`.
pub(super) fn blocks_and_percent(occ: &Occupancy) -> String {
    format!(
        "{}/SM ({})",
        count(occ.blocks_per_sm, "block"),
        percent(occ.active_warps_per_sm(), occ.max_warps_per_sm)
    )
}

/// `at most 12.5% achieved: 117 blocks on 132 SMs`: the grid ceiling of `blocks` blocks of
/// this launch ([`analysis::grid_ceiling`]).
pub(super) fn ceiling_text(
    occ: &crate::occupancy::Occupancy,
    sms: u32,
    blocks: u64,
) -> Option<String> {
    let c = analysis::grid_ceiling(occ, sms, blocks)?;
    Some(format!(
        "at most {} achieved: {} on {sms} SMs",
        percent((c * 1e6).round() as u64, 1_000_000u64),
        count(u32::try_from(blocks).unwrap_or(u32::MAX), "block")
    ))
}

/// The waves of the launch on a named GPU, when the spec has a grid and a block fits: for
/// a cluster launch, at the clusters resident at once ([`analysis::launch_waves`]).
pub(super) fn launch_waves(cx: &Context<'_>) -> Option<LaunchWaves> {
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
pub(super) fn wave_note(cx: &Context<'_>, lw: &LaunchWaves) -> String {
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
