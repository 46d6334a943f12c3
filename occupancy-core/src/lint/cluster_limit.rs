//! [`CLUSTER_LIMIT`]: a cluster launch holds fewer blocks than the plain launch. Its
//! declaration, documentation and check.

use super::utils::{cluster_error, count};
use super::{Context, Finding, Input, Level, Lint, Scope};
use crate::cluster::{ClusterCount, Topology, cluster_blocks_per_sm_cap, max_active_clusters};

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
