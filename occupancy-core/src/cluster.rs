//! Thread-block-cluster occupancy (cc 9.0+): what `cuOccupancyMaxActiveClusters` answers,
//! the most clusters of a given size that can be resident on the whole GPU at once.
//!
//! Pure integer arithmetic, `const fn`, no allocation, no I/O.
//!
//! ```
//! use occupancy_core::arch::Target;
//! use occupancy_core::cluster::{Cluster, ClusterCount, Topology, max_active_clusters};
//! use occupancy_core::occupancy::{BlockDim, Kernel, Launch};
//!
//! // One 256-thread block per SM (224 KiB of dynamic shared memory), clusters of 8.
//! let h200 = Target::parse("H200").unwrap();
//! let topology = Topology::of_target(&h200).unwrap();
//! let kernel = Kernel::new(32).with_opt_in(229_376);
//! let launch = Launch::new(BlockDim::linear(256)).with_dynamic_smem(229_376);
//! let r = max_active_clusters(h200.arch, &topology, &kernel, &launch, &Cluster::linear(8))
//!     .unwrap();
//! // 15 clusters = 120 blocks: 12 of the 132 SMs stay idle.
//! assert_eq!(r.max_active_clusters, ClusterCount::Exact(15));
//! ```
//!
//! # The model
//!
//! 1. **Blocks per SM.** `b` = the plain occupancy of the kernel and launch
//!    ([`crate::occupancy::occupancy`]), capped for cluster launches: the H200's driver
//!    grants a cluster launch at most [`CLUSTER_BLOCKS_PER_SM_CC90`] = 8 resident blocks per
//!    SM, even at cluster size 1 where the same plain launch fits 16 to 32
//!    ([`cluster_blocks_per_sm_cap`]).
//! 2. **Virtual GPCs.** A cluster runs inside one virtual GPC ([`crate::arch::Skyline`]):
//!    the part's skyline of multi-TPC virtual GPCs plus its singleton TPCs, each a virtual
//!    GPC of 2 SMs.
//! 3. **One block per SM per cluster** (default and spread scheduling policies; see
//!    [`SchedulingPolicy`]). The blocks of one cluster sit on distinct SMs. A
//!    virtual GPC of `s` SMs then holds `floor(s * b / c)` clusters of `c` blocks when
//!    `s >= c`, and none when `s < c`. (`floor(s * b / c)` is reachable: cluster `i` takes
//!    SMs `i*c .. i*c+c-1` modulo `s`, which are distinct when `c <= s` and load no SM with
//!    more than `ceil(k*c/s) <= b` blocks.)
//! 4. The answer is the sum over the virtual GPCs.
//!
//! For the H200 (132 SMs) the skyline is 4, 8, 8, 8, 8, 8, 9, 9 TPCs plus 4 singleton TPCs,
//! i.e. virtual GPCs of 8, 16 x 5, 18, 18 SMs and 2 x 4. So at one block per SM: clusters of
//! 2 use all 66 TPCs (66), clusters of 16 fit only in the seven virtual GPCs of 16+ SMs (7),
//! and clusters of 8 reach 15 (120 SMs), not 16.
//!
//! # Evidence
//!
//! - All 3,240 answers recorded from an H200's driver (`tests/clusters_h200.rs`: 15
//!   kernels x 9 block sizes x 4 dynamic shared memory sizes x cluster sizes 1, 2, 3, 4, 8,
//!   16) agree exactly. They reduce to 42 distinct (cluster size, capped blocks per SM)
//!   pairs; `scripts/cluster_model_search.py` tries every grouping of the 66 TPCs into
//!   groups of 1..9 TPCs (235,899) under four model families (blocks of a cluster may share
//!   an SM; one block per SM, as above; `b` independent one-block layers; cluster size
//!   rounded up to a power of two), and only this family with this one grouping fits.
//! - The grouping is the structure NVIDIA's resource manager documents for Hopper: virtual
//!   GPCs ordered by TPC count plus "singleton TPC holders" (`ctrl2080gr.h`, see
//!   [`crate::arch::GPC_LAYOUTS`]). Blocks of one cluster land on distinct SMs in public
//!   `%smid` traces on an H100 (accel-sim/gpu-app-collection PR 87).
//! - An H100 SXM (field case 28) answers 30, 15 and 7 clusters of 4, 8 and 16 at one block
//!   per SM, as this model does with the H200's skyline.
//!
//! # Limits
//!
//! - Exact ([`ClusterCount::Exact`]) only where the skyline was measured (H200) and the
//!   cap is known (cc 9.0), or where the answer does not depend on the layout (cluster
//!   sizes 1 and 2: every virtual GPC holds whole TPCs of 2 SMs).
//! - H100 SXM and GH200 use the H200's skyline as an inferred layout: the answer is
//!   [`ClusterCount::Bounds`] over every layout the GH100 die allows, with the skyline's
//!   value as `model`.
//! - H100 PCIe (114 SMs = 57 TPCs) and H20: GH100 parts with an unknown skyline; bounds
//!   over every layout of at most 8 virtual GPCs of at most 9 TPCs plus at most 16
//!   singleton TPCs.
//! - Other parts (B200, B300, RTX 50, DGX Spark, Thor): only the SM count is known. The
//!   upper bound is `floor(sm_count * b / c)`; the lower bound assumes 2 SMs per TPC and
//!   that the portable cluster size (8) always fits one virtual GPC. The cluster cap of
//!   8 blocks per SM is measured on cc 9.0 only: elsewhere the upper bound uses the
//!   uncapped `b` and the lower bound assumes the cap is no lower than 8.
//! - A second recording (`tests/clusters_h200_sweep.rs`, 10,368 answers from
//!   `scripts/gpu/cluster_probe.py`): every cluster size 1..16, 2-D and 3-D shapes, plain
//!   occupancies 1..32, the three scheduling policies and the non-portable attribute on and
//!   off. The shape does not matter, only the size; the policy does: with
//!   [`SchedulingPolicy::LoadBalancing`] the blocks of a cluster may share an SM (a virtual
//!   GPC of `s` SMs holds `floor(s * b / c)` clusters even when `s < c`), with the default
//!   and spread policies they may not. All 6,624 numeric answers agree; the 3,744 sizes
//!   above 8 without the non-portable attribute are refused, as
//!   [`ClusterError::NotPortable`] says. Real cluster launches of exactly the answered count
//!   were all co-resident, one more was not, and the SMs they ran on group into the
//!   skyline's virtual GPCs (8, 16 x 5, 18 x 2 SMs and 4 singleton TPCs).

use core::fmt;

use crate::arch::{
    Arch, ComputeCapability, Die, Gpu, LayoutConfidence, Skyline, Target, gpc_layout,
};
use crate::occupancy::{GridDim, Kernel, Launch, Occupancy, OccupancyError, occupancy};

/// Blocks of one cluster along each axis (the launch attribute
/// `CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION`, or `__cluster_dims__`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ClusterDim {
    /// Blocks along x.
    pub x: u32,
    /// Blocks along y.
    pub y: u32,
    /// Blocks along z.
    pub z: u32,
}

impl ClusterDim {
    /// A cluster of `(x, y, z)` blocks.
    pub const fn new(x: u32, y: u32, z: u32) -> Self {
        Self { x, y, z }
    }

    /// A one-dimensional cluster of `blocks` blocks.
    pub const fn linear(blocks: u32) -> Self {
        Self {
            x: blocks,
            y: 1,
            z: 1,
        }
    }

    /// Blocks per cluster, `x * y * z` (u64, saturating: three `u32::MAX` dimensions do not
    /// fit in a u64).
    pub const fn blocks(&self) -> u64 {
        (self.x as u64 * self.y as u64).saturating_mul(self.z as u64)
    }
}

impl fmt::Display for ClusterDim {
    /// `4` for a 1-D cluster, `(4, 2)` or `(2, 2, 2)` otherwise.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.y, self.z) {
            (1, 1) => write!(f, "{}", self.x),
            (_, 1) => write!(f, "({}, {})", self.x, self.y),
            _ => write!(f, "({}, {}, {})", self.x, self.y, self.z),
        }
    }
}

/// How the driver places a cluster's blocks
/// (`CU_LAUNCH_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE`).
///
/// Measured on an H200 (`tests/clusters_h200_sweep.rs`): with the default or the spread
/// policy the blocks of one cluster run on distinct SMs; with load balancing they may share
/// an SM, so a virtual GPC of `s` SMs holds `floor(s * b / c)` clusters even when `s < c`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum SchedulingPolicy {
    /// No preference (`CU_CLUSTER_SCHEDULING_POLICY_DEFAULT`): as [`Self::Spread`].
    #[default]
    Default,
    /// `CU_CLUSTER_SCHEDULING_POLICY_SPREAD`: a cluster's blocks on distinct SMs.
    Spread,
    /// `CU_CLUSTER_SCHEDULING_POLICY_LOAD_BALANCING`: a cluster's blocks may share an SM.
    LoadBalancing,
}

impl SchedulingPolicy {
    /// Whether blocks of one cluster may share an SM.
    pub const fn packs(self) -> bool {
        matches!(self, Self::LoadBalancing)
    }
}

/// A cluster launch: the cluster shape, whether the function allows non-portable cluster
/// sizes (`CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED` = 1), and the scheduling
/// policy.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Cluster {
    /// Blocks per cluster along each axis.
    pub dim: ClusterDim,
    /// Whether cluster sizes above the portable maximum (8) are allowed.
    pub non_portable_allowed: bool,
    /// The scheduling policy preference.
    pub policy: SchedulingPolicy,
}

impl Cluster {
    /// A cluster of `dim` blocks, non-portable sizes not allowed.
    pub const fn new(dim: ClusterDim) -> Self {
        Self {
            dim,
            non_portable_allowed: false,
            policy: SchedulingPolicy::Default,
        }
    }

    /// A one-dimensional cluster of `blocks` blocks, non-portable sizes not allowed.
    pub const fn linear(blocks: u32) -> Self {
        Self::new(ClusterDim::linear(blocks))
    }

    /// With non-portable cluster sizes allowed.
    pub const fn allow_non_portable(mut self) -> Self {
        self.non_portable_allowed = true;
        self
    }

    /// With a scheduling policy preference.
    pub const fn with_policy(mut self, policy: SchedulingPolicy) -> Self {
        self.policy = policy;
        self
    }
}

/// Most resident blocks per SM a cluster launch gets on cc 9.0, whatever the plain
/// occupancy: measured on an H200 (driver 580.159.04), where `cuOccupancyMaxActiveClusters`
/// at cluster size 1 answers 132 x min(blocks per SM, 8) for plain occupancies of 1 to 32.
pub const CLUSTER_BLOCKS_PER_SM_CC90: u32 = 8;

/// The cap on resident blocks per SM of cluster launches on `arch`, where measured: 8 on
/// cc 9.0 ([`CLUSTER_BLOCKS_PER_SM_CC90`]); `None` elsewhere (unknown).
pub const fn cluster_blocks_per_sm_cap(arch: &Arch) -> Option<u32> {
    if arch.cc.major == 9 && arch.cc.minor == 0 {
        Some(CLUSTER_BLOCKS_PER_SM_CC90)
    } else {
        None
    }
}

/// What the engine knows of how a GPU groups its SMs for clusters.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Topology {
    /// The virtual-GPC skyline is known.
    Skyline {
        /// The virtual GPCs.
        skyline: Skyline,
        /// The die (SMs per TPC, and the layouts it allows for bounds).
        die: &'static Die,
    },
    /// Only the die and the SM count are known.
    Die {
        /// The die.
        die: &'static Die,
        /// SMs on the part.
        sm_count: u32,
    },
    /// Only the SM count is known.
    SmCount(u32),
}

impl Topology {
    /// The most specific topology known for a named GPU ([`crate::arch::GPC_LAYOUTS`], else
    /// its SM count).
    pub const fn of_gpu(gpu: &Gpu) -> Self {
        match gpc_layout(gpu) {
            Some(layout) => match layout.skyline {
                Some(skyline) => Self::Skyline {
                    skyline,
                    die: layout.die,
                },
                None => Self::Die {
                    die: layout.die,
                    sm_count: gpu.sm_count,
                },
            },
            None => Self::SmCount(gpu.sm_count),
        }
    }

    /// The topology of a target that names a GPU; `None` for a bare compute capability.
    pub const fn of_target(target: &Target) -> Option<Self> {
        match target.gpu {
            Some(gpu) => Some(Self::of_gpu(gpu)),
            None => None,
        }
    }

    /// SMs on the GPU.
    pub const fn sm_count(&self) -> u32 {
        match self {
            Self::Skyline { skyline, die } => skyline.tpc_count() * die.sms_per_tpc,
            Self::Die { sm_count, .. } => *sm_count,
            Self::SmCount(n) => *n,
        }
    }
}

/// How the cluster count was found.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ClusterCount {
    /// The driver's answer.
    Exact(u32),
    /// The driver's answer lies in `lower..=upper`.
    Bounds {
        /// Fewest clusters any layout the part allows would give.
        lower: u32,
        /// Most clusters any layout the part allows would give.
        upper: u32,
        /// The model's answer with an inferred layout, when there is one.
        model: Option<u32>,
    },
}

impl ClusterCount {
    /// The exact answer, if known.
    pub const fn exact(&self) -> Option<u32> {
        match *self {
            Self::Exact(n) => Some(n),
            Self::Bounds { .. } => None,
        }
    }

    /// The exact answer, or the model's answer with an inferred layout.
    pub const fn model(&self) -> Option<u32> {
        match *self {
            Self::Exact(n) => Some(n),
            Self::Bounds { model, .. } => model,
        }
    }

    /// The lower bound (the answer, when exact).
    pub const fn lower(&self) -> u32 {
        match *self {
            Self::Exact(n) | Self::Bounds { lower: n, .. } => n,
        }
    }

    /// The upper bound (the answer, when exact).
    pub const fn upper(&self) -> u32 {
        match *self {
            Self::Exact(n) | Self::Bounds { upper: n, .. } => n,
        }
    }

    /// Whether `clusters` is a possible driver answer.
    pub const fn contains(&self, clusters: u32) -> bool {
        self.lower() <= clusters && clusters <= self.upper()
    }
}

impl fmt::Display for ClusterCount {
    /// `30`, `26..=33 (model 30)` or `2..=33`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Self::Exact(n) => write!(f, "{n}"),
            Self::Bounds {
                lower,
                upper,
                model: Some(m),
            } => write!(f, "{lower}..={upper} (model {m})"),
            Self::Bounds {
                lower,
                upper,
                model: None,
            } => write!(f, "{lower}..={upper}"),
        }
    }
}

/// What the answer rests on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Basis {
    /// A measured skyline and a measured blocks-per-SM cap.
    Measured,
    /// An inferred skyline ([`LayoutConfidence::Inferred`]) or an unmeasured cap.
    Inferred,
    /// The die's limits only (no skyline).
    DieOnly,
    /// The SM count only.
    SmCountOnly,
}

/// The answer for one kernel, launch and cluster shape on one GPU.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ClusterOccupancy {
    /// Blocks per cluster.
    pub cluster_size: u32,
    /// Whether the size is within the portable maximum (8 on cc 9.0+): it needs no
    /// non-portable attribute and runs on every part of the compute capability.
    pub portable: bool,
    /// The plain occupancy of the kernel and launch.
    pub occupancy: Occupancy,
    /// The cap on resident blocks per SM of cluster launches, when known
    /// ([`cluster_blocks_per_sm_cap`]).
    pub blocks_per_sm_cap: Option<u32>,
    /// Resident blocks per SM a cluster launch gets: the plain occupancy, capped where the
    /// cap is known.
    pub blocks_per_sm: u32,
    /// SMs on the GPU.
    pub sm_count: u32,
    /// The most co-resident clusters on the GPU (`cuOccupancyMaxActiveClusters`).
    pub max_active_clusters: ClusterCount,
    /// What the answer rests on.
    pub basis: Basis,
}

impl ClusterOccupancy {
    /// Resident blocks of the whole GPU a cluster launch could use, with no GPC packing
    /// loss: SMs x [`blocks_per_sm`](Self::blocks_per_sm).
    pub const fn block_slots(&self) -> u64 {
        self.sm_count as u64 * self.blocks_per_sm as u64
    }

    /// Blocks of the whole GPU resident at once in a cluster launch: the most co-resident
    /// clusters ([`ClusterCount::model`]) x blocks per cluster. This, not SMs x blocks per
    /// SM, is one wave of a cluster launch: H200, clusters of 3 of a 256-thread kernel at 8
    /// blocks per SM hold 327 x 3 = 981 blocks, against 1056 for the plain launch
    /// (`cuOccupancyMaxActiveClusters` on an H200, `tests/data/h200/cluster_limits.tsv`).
    /// `None` where only bounds are known.
    pub const fn blocks_at_a_time(&self) -> Option<u64> {
        match self.max_active_clusters.model() {
            Some(n) => Some(n as u64 * self.cluster_size as u64),
            None => None,
        }
    }
}

/// The axes' names, for messages: `x`, `y`, `z`.
const AXES: [&str; 3] = ["x", "y", "z"];

/// Whether `grid` is a whole number of clusters of `dim` along every axis, as a cluster
/// launch requires (PG, "Thread Block Clusters": the grid dimension must be a multiple of
/// the cluster size). Measured on an H200: clusters of 3 in a grid of 999 blocks launch, in
/// a grid of 1000 they fail with `CUDA_ERROR_INVALID_CLUSTER_SIZE`; so do clusters of
/// (2, 2) in a (4, 3) grid and of (1, 1, 2) in a (4, 4, 3) grid
/// (`tests/data/h200/cluster_limits.tsv`).
///
/// # Errors
///
/// [`ClusterError::EmptyCluster`] for a zero cluster dimension; else
/// [`ClusterError::GridNotMultiple`] for the first axis that is not a multiple.
pub const fn check_grid(grid: &GridDim, dim: &ClusterDim) -> Result<(), ClusterError> {
    let g = grid.to_array();
    let c = [dim.x, dim.y, dim.z];
    let mut axis = 0;
    while axis < 3 {
        if c[axis] == 0 {
            return Err(ClusterError::EmptyCluster { dim: *dim });
        }
        if !g[axis].is_multiple_of(c[axis]) {
            return Err(ClusterError::GridNotMultiple {
                axis,
                grid: *grid,
                cluster: *dim,
            });
        }
        axis += 1;
    }
    Ok(())
}

/// Input the calculator refuses, as the driver would.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ClusterError {
    /// The compute capability has no thread-block clusters (before 9.0).
    Unsupported {
        /// The compute capability.
        cc: ComputeCapability,
    },
    /// A cluster dimension is 0.
    EmptyCluster {
        /// The cluster shape.
        dim: ClusterDim,
    },
    /// Above the portable maximum without the non-portable attribute: the launch fails
    /// (`CUDA_ERROR_INVALID_CLUSTER_SIZE`).
    NotPortable {
        /// Blocks per cluster.
        blocks: u64,
        /// The portable maximum (8).
        portable_max: u32,
    },
    /// Above the largest cluster the compute capability allows: 16 on cc 9.0 with the
    /// non-portable attribute; the portable maximum where the non-portable one is unknown.
    TooLarge {
        /// Blocks per cluster.
        blocks: u64,
        /// The largest cluster known to be allowed.
        max: u32,
        /// Whether the compute capability's non-portable maximum is known (0 in
        /// [`Arch::cluster_max_nonportable`] = unknown).
        non_portable_known: bool,
    },
    /// The kernel and launch are refused by the occupancy calculator.
    Occupancy(OccupancyError),
    /// The grid is not a whole number of clusters along `axis`: the launch fails
    /// (`CUDA_ERROR_INVALID_CLUSTER_SIZE`, measured on an H200). Returned by
    /// [`check_grid`], never by [`max_active_clusters`] (which takes no grid).
    GridNotMultiple {
        /// The axis: 0 = x, 1 = y, 2 = z.
        axis: usize,
        /// The grid.
        grid: GridDim,
        /// The cluster shape.
        cluster: ClusterDim,
    },
}

impl fmt::Display for ClusterError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Self::Unsupported { cc } => write!(
                f,
                "compute capability {cc} has no thread-block clusters (cc 9.0 and later)"
            ),
            Self::EmptyCluster { dim } => write!(f, "cluster {dim} has a zero dimension"),
            Self::NotPortable {
                blocks,
                portable_max,
            } => write!(
                f,
                "a cluster of {blocks} blocks exceeds the portable maximum of {portable_max}: \
                 set cudaFuncAttributeNonPortableClusterSizeAllowed"
            ),
            Self::TooLarge {
                blocks,
                max,
                non_portable_known: true,
            } => write!(
                f,
                "a cluster of {blocks} blocks exceeds the maximum of {max} on this compute \
                 capability"
            ),
            Self::TooLarge {
                blocks,
                max,
                non_portable_known: false,
            } => write!(
                f,
                "a cluster of {blocks} blocks exceeds the portable maximum of {max}, and the \
                 non-portable maximum of this compute capability is unknown"
            ),
            Self::Occupancy(e) => e.fmt(f),
            Self::GridNotMultiple {
                axis,
                grid,
                cluster,
            } => {
                let axis = axis.min(2);
                let (name, g) = (AXES[axis], grid.to_array()[axis]);
                let c = [cluster.x, cluster.y, cluster.z][axis];
                if grid.y == 1 && grid.z == 1 && cluster.y == 1 && cluster.z == 1 {
                    write!(
                        f,
                        "a grid of {g} blocks is not a whole number of clusters of {c}"
                    )
                } else {
                    write!(
                        f,
                        "the grid's {name} dimension {g} is not a multiple of the cluster's {c} \
                         (grid {grid}, cluster {cluster})"
                    )
                }
            }
        }
    }
}

impl std::error::Error for ClusterError {}

const fn min(a: u32, b: u32) -> u32 {
    if a < b { a } else { b }
}

/// Clusters of `cluster_size` blocks that one virtual GPC of `sms` SMs holds at
/// `blocks_per_sm` resident blocks per SM: one block per SM per cluster, unless the policy
/// packs ([`SchedulingPolicy::LoadBalancing`]).
pub const fn vgpc_clusters(
    sms: u32,
    blocks_per_sm: u32,
    cluster_size: u32,
    policy: SchedulingPolicy,
) -> u32 {
    if cluster_size == 0 || (sms < cluster_size && !policy.packs()) {
        return 0;
    }
    (sms as u64 * blocks_per_sm as u64 / cluster_size as u64) as u32
}

/// Clusters a whole skyline holds: the sum of [`vgpc_clusters`] over its virtual GPCs.
pub const fn skyline_clusters(
    skyline: &Skyline,
    sms_per_tpc: u32,
    blocks_per_sm: u32,
    cluster_size: u32,
    policy: SchedulingPolicy,
) -> u32 {
    let per_singleton = vgpc_clusters(sms_per_tpc, blocks_per_sm, cluster_size, policy);
    let mut total = skyline.singleton_tpcs * per_singleton;
    let mut i = 0;
    while i < skyline.vgpc_tpcs.len() {
        total += vgpc_clusters(
            skyline.vgpc_tpcs[i] * sms_per_tpc,
            blocks_per_sm,
            cluster_size,
            policy,
        );
        i += 1;
    }
    total
}

/// Largest TPC count [`die_range`] enumerates.
const MAX_DP_TPCS: usize = 160;
const UNREACHED: u32 = u32::MAX;

/// Fewest and most clusters over every layout of `tpcs` TPCs the die allows: up to
/// `max_gpcs` virtual GPCs of 0..=`max_tpcs_per_gpc` TPCs plus up to `max_singleton_tpcs`
/// singleton TPCs. `None` when no such layout holds `tpcs` TPCs (or `tpcs` is too large to
/// enumerate).
pub const fn die_range(
    die: &Die,
    tpcs: u32,
    blocks_per_sm: u32,
    cluster_size: u32,
    policy: SchedulingPolicy,
) -> Option<(u32, u32)> {
    if tpcs as usize >= MAX_DP_TPCS {
        return None;
    }
    let t_max = tpcs as usize;
    // lo[t] / hi[t]: fewest / most clusters of `g` virtual GPCs holding t TPCs.
    let mut lo = [UNREACHED; MAX_DP_TPCS];
    let mut hi = [0u32; MAX_DP_TPCS];
    lo[0] = 0;
    let mut g = 0;
    while g < die.max_gpcs {
        let mut next_lo = [UNREACHED; MAX_DP_TPCS];
        let mut next_hi = [0u32; MAX_DP_TPCS];
        let mut t = 0;
        while t <= t_max {
            if lo[t] != UNREACHED {
                let mut k = 0;
                while k <= die.max_tpcs_per_gpc as usize && t + k <= t_max {
                    let v = vgpc_clusters(
                        k as u32 * die.sms_per_tpc,
                        blocks_per_sm,
                        cluster_size,
                        policy,
                    );
                    let (a, b) = (lo[t] + v, hi[t] + v);
                    if next_lo[t + k] == UNREACHED || a < next_lo[t + k] {
                        next_lo[t + k] = a;
                    }
                    if b > next_hi[t + k] {
                        next_hi[t + k] = b;
                    }
                    k += 1;
                }
            }
            t += 1;
        }
        lo = next_lo;
        hi = next_hi;
        g += 1;
    }
    let per_singleton = vgpc_clusters(die.sms_per_tpc, blocks_per_sm, cluster_size, policy);
    let mut best: Option<(u32, u32)> = None;
    let mut s = 0;
    while s <= die.max_singleton_tpcs && s <= tpcs {
        let rest = (tpcs - s) as usize;
        if lo[rest] != UNREACHED {
            let (a, b) = (lo[rest] + s * per_singleton, hi[rest] + s * per_singleton);
            best = match best {
                None => Some((a, b)),
                Some((x, y)) => Some((min(x, a), if b > y { b } else { y })),
            };
        }
        s += 1;
    }
    best
}

/// Bounds from the SM count alone: at most every SM's blocks in clusters; at least the
/// clusters one virtual GPC of the portable cluster size holds (sizes 1 and 2: every SM
/// used, 2 SMs per TPC).
const fn sm_count_range(
    sm_count: u32,
    portable_max: u32,
    lower_blocks: u32,
    upper_blocks: u32,
    cluster_size: u32,
    policy: SchedulingPolicy,
) -> (u32, u32) {
    let upper = vgpc_clusters(
        sm_count,
        upper_blocks,
        cluster_size,
        SchedulingPolicy::LoadBalancing,
    );
    let lower = if cluster_size <= 2 {
        vgpc_clusters(sm_count, lower_blocks, cluster_size, policy)
    } else {
        vgpc_clusters(portable_max, lower_blocks, cluster_size, policy)
    };
    (lower, upper)
}

/// Max active clusters of `cluster` blocks for `kernel` launched as `launch` on `arch`, on
/// a GPU of the given `topology`: what `cuOccupancyMaxActiveClusters` answers (see the
/// module documentation for the model and where it is exact).
///
/// A launch where no block fits answers exactly 0 clusters, as the driver does.
///
/// # Errors
///
/// [`ClusterError::Unsupported`] before cc 9.0; [`ClusterError::EmptyCluster`];
/// [`ClusterError::NotPortable`] above 8 blocks without the non-portable attribute;
/// [`ClusterError::TooLarge`] above 16 blocks (cc 9.0); [`ClusterError::Occupancy`] for a
/// kernel or launch the occupancy calculator refuses.
pub const fn max_active_clusters(
    arch: &Arch,
    topology: &Topology,
    kernel: &Kernel,
    launch: &Launch,
    cluster: &Cluster,
) -> Result<ClusterOccupancy, ClusterError> {
    if arch.cluster_max_portable == 0 {
        return Err(ClusterError::Unsupported { cc: arch.cc });
    }
    let dim = cluster.dim;
    if dim.x == 0 || dim.y == 0 || dim.z == 0 {
        return Err(ClusterError::EmptyCluster { dim });
    }
    let blocks = dim.blocks();
    let portable_max = arch.cluster_max_portable;
    let non_portable_known = arch.cluster_max_nonportable > 0;
    let max = if arch.cluster_max_nonportable > portable_max {
        arch.cluster_max_nonportable
    } else {
        portable_max
    };
    if blocks > max as u64 {
        return Err(ClusterError::TooLarge {
            blocks,
            max,
            non_portable_known,
        });
    }
    if blocks > portable_max as u64 && !cluster.non_portable_allowed {
        return Err(ClusterError::NotPortable {
            blocks,
            portable_max,
        });
    }
    let cluster_size = blocks as u32;
    let policy = cluster.policy;
    let occ = match occupancy(arch, kernel, launch) {
        Ok(occ) => occ,
        Err(e) => return Err(ClusterError::Occupancy(e)),
    };
    let cap = cluster_blocks_per_sm_cap(arch);
    let plain = occ.blocks_per_sm;
    // Blocks per SM for the lower and upper bounds: equal where the cap is known;
    // elsewhere the cap is assumed no lower than cc 9.0's.
    let (b_lo, b_hi) = match cap {
        Some(c) => (min(plain, c), min(plain, c)),
        None => (min(plain, CLUSTER_BLOCKS_PER_SM_CC90), plain),
    };
    let sm_count = topology.sm_count();
    let (lower, upper, model, mut basis) = match *topology {
        Topology::Skyline { skyline, die } => {
            let lo_model = skyline_clusters(&skyline, die.sms_per_tpc, b_lo, cluster_size, policy);
            let hi_model = skyline_clusters(&skyline, die.sms_per_tpc, b_hi, cluster_size, policy);
            match skyline.confidence {
                LayoutConfidence::Measured => (lo_model, hi_model, Some(lo_model), Basis::Measured),
                LayoutConfidence::Inferred => {
                    let tpcs = skyline.tpc_count();
                    match (
                        die_range(die, tpcs, b_lo, cluster_size, policy),
                        die_range(die, tpcs, b_hi, cluster_size, policy),
                    ) {
                        (Some((lo, _)), Some((_, hi))) => (lo, hi, Some(lo_model), Basis::Inferred),
                        _ => {
                            let (lo, hi) = sm_count_range(
                                sm_count,
                                portable_max,
                                b_lo,
                                b_hi,
                                cluster_size,
                                policy,
                            );
                            (lo, hi, Some(lo_model), Basis::Inferred)
                        }
                    }
                }
            }
        }
        Topology::Die { die, sm_count } => {
            let tpcs = sm_count / die.sms_per_tpc;
            match (
                die_range(die, tpcs, b_lo, cluster_size, policy),
                die_range(die, tpcs, b_hi, cluster_size, policy),
            ) {
                (Some((lo, _)), Some((_, hi))) => (lo, hi, None, Basis::DieOnly),
                _ => {
                    let (lo, hi) =
                        sm_count_range(sm_count, portable_max, b_lo, b_hi, cluster_size, policy);
                    (lo, hi, None, Basis::SmCountOnly)
                }
            }
        }
        Topology::SmCount(n) => {
            let (lo, hi) = sm_count_range(n, portable_max, b_lo, b_hi, cluster_size, policy);
            (lo, hi, None, Basis::SmCountOnly)
        }
    };
    if cap.is_none() && matches!(basis, Basis::Measured) {
        basis = Basis::Inferred;
    }
    let count = if plain == 0 {
        ClusterCount::Exact(0)
    } else if lower == upper || (cap.is_some() && matches!(basis, Basis::Measured)) {
        ClusterCount::Exact(lower)
    } else {
        ClusterCount::Bounds {
            lower,
            upper,
            model,
        }
    };
    Ok(ClusterOccupancy {
        cluster_size,
        portable: cluster_size <= portable_max,
        occupancy: occ,
        blocks_per_sm_cap: cap,
        blocks_per_sm: b_hi,
        sm_count,
        max_active_clusters: count,
        basis,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::arch::{GPUS, SM_80, SM_90, SM_100};
    use crate::occupancy::BlockDim;

    fn gpu(name: &str) -> &'static Gpu {
        GPUS.iter().find(|g| g.name == name).unwrap()
    }

    /// Field case 28: 256 threads, 229376 B dynamic shared memory with the opt-in (1 block
    /// per SM).
    fn case_28(topology: &Topology, cluster: Cluster) -> ClusterOccupancy {
        let kernel = Kernel::new(32).with_opt_in(229_376);
        let launch = Launch::new(BlockDim::linear(256)).with_dynamic_smem(229_376);
        max_active_clusters(&SM_90, topology, &kernel, &launch, &cluster).unwrap()
    }

    #[test]
    fn field_case_28_h100_sxm_gives_30_15_7_clusters() {
        let h100 = Topology::of_gpu(gpu("H100 80GB HBM3"));
        for (size, want) in [(4, 30), (8, 15), (16, 7)] {
            let r = case_28(&h100, Cluster::linear(size).allow_non_portable());
            assert_eq!(r.occupancy.blocks_per_sm, 1);
            assert_eq!(r.max_active_clusters.model(), Some(want), "cluster {size}");
            assert!(r.max_active_clusters.contains(want));
            assert_eq!(r.basis, Basis::Inferred);
            assert_eq!(r.portable, size <= 8);
        }
        // 30 clusters of 4 = 120 blocks: 12 of the 132 SMs idle, as the case says.
        let r = case_28(&h100, Cluster::linear(4));
        assert_eq!(
            r.block_slots() - 4 * r.max_active_clusters.model().unwrap() as u64,
            12
        );
    }

    #[test]
    fn field_case_28_is_exact_on_the_h200() {
        let h200 = Topology::of_gpu(gpu("H200"));
        for (size, want) in [(1, 132), (2, 66), (3, 39), (4, 30), (8, 15), (16, 7)] {
            let r = case_28(&h200, Cluster::linear(size).allow_non_portable());
            assert_eq!(
                r.max_active_clusters,
                ClusterCount::Exact(want),
                "cluster {size}"
            );
            assert_eq!(r.basis, Basis::Measured);
        }
    }

    #[test]
    fn field_case_28_cluster_16_needs_the_non_portable_attribute() {
        let h100 = Topology::of_gpu(gpu("H100 80GB HBM3"));
        let kernel = Kernel::new(32).with_opt_in(229_376);
        let launch = Launch::new(BlockDim::linear(256)).with_dynamic_smem(229_376);
        let err = max_active_clusters(&SM_90, &h100, &kernel, &launch, &Cluster::linear(16));
        assert_eq!(
            err,
            Err(ClusterError::NotPortable {
                blocks: 16,
                portable_max: 8
            })
        );
        let err = max_active_clusters(
            &SM_90,
            &h100,
            &kernel,
            &launch,
            &Cluster::new(ClusterDim::new(4, 4, 2)).allow_non_portable(),
        );
        assert_eq!(
            err,
            Err(ClusterError::TooLarge {
                blocks: 32,
                max: 16,
                non_portable_known: true
            })
        );
        let err = max_active_clusters(&SM_90, &h100, &kernel, &launch, &Cluster::linear(0));
        assert!(matches!(err, Err(ClusterError::EmptyCluster { .. })));
        let err = max_active_clusters(&SM_80, &h100, &kernel, &launch, &Cluster::linear(2));
        assert!(matches!(err, Err(ClusterError::Unsupported { .. })));
    }

    #[test]
    fn cluster_launches_are_capped_at_8_blocks_per_sm_on_cc_9_0() {
        // 32 threads, no shared memory: 32 resident blocks in a plain launch.
        let kernel = Kernel::new(16);
        let launch = Launch::new(BlockDim::linear(32));
        let h200 = Topology::of_gpu(gpu("H200"));
        let r = max_active_clusters(&SM_90, &h200, &kernel, &launch, &Cluster::linear(1)).unwrap();
        assert_eq!(r.occupancy.blocks_per_sm, 32);
        assert_eq!(r.blocks_per_sm, 8);
        assert_eq!(r.max_active_clusters, ClusterCount::Exact(1056));
        // 8 blocks per SM, clusters of 8: 124 = 8 x (8 + 16 x 5 + 18 x 2) / 8, not 132.
        let r = max_active_clusters(&SM_90, &h200, &kernel, &launch, &Cluster::linear(8)).unwrap();
        assert_eq!(r.max_active_clusters, ClusterCount::Exact(124));
    }

    #[test]
    fn bounds_hold_the_model_and_collapse_for_sizes_1_and_2() {
        let kernel = Kernel::new(32).with_opt_in(100_000);
        let launch = Launch::new(BlockDim::linear(128)).with_dynamic_smem(100_000);
        let pcie = Topology::of_gpu(gpu("H100 PCIe"));
        assert_eq!(pcie.sm_count(), 114);
        for size in [1, 2, 3, 4, 8, 16] {
            let c = Cluster::linear(size).allow_non_portable();
            let r = max_active_clusters(&SM_90, &pcie, &kernel, &launch, &c).unwrap();
            assert_eq!(r.blocks_per_sm, 2);
            assert_eq!(r.basis, Basis::DieOnly);
            let count = r.max_active_clusters;
            assert!(count.upper() <= 114 * 2 / size);
            if size <= 2 {
                assert_eq!(count, ClusterCount::Exact(114 * 2 / size));
            } else {
                assert!(count.lower() < count.upper(), "{count}");
            }
        }
        // The inferred H100 SXM bounds contain the H200's exact answers.
        let h100 = Topology::of_gpu(gpu("H100 80GB HBM3"));
        let h200 = Topology::of_gpu(gpu("H200"));
        for size in 1..=16 {
            let c = Cluster::linear(size).allow_non_portable();
            let a = max_active_clusters(&SM_90, &h100, &kernel, &launch, &c).unwrap();
            let b = max_active_clusters(&SM_90, &h200, &kernel, &launch, &c).unwrap();
            let exact = b.max_active_clusters.exact().unwrap();
            assert!(a.max_active_clusters.contains(exact), "cluster {size}");
            assert_eq!(a.max_active_clusters.model(), Some(exact));
        }
    }

    #[test]
    fn unknown_cap_and_layout_give_wide_bounds_on_b200() {
        let b200 = Topology::of_gpu(gpu("B200"));
        assert_eq!(b200, Topology::SmCount(148));
        let kernel = Kernel::new(16);
        let launch = Launch::new(BlockDim::linear(64));
        let r = max_active_clusters(&SM_100, &b200, &kernel, &launch, &Cluster::linear(4)).unwrap();
        assert_eq!(r.occupancy.blocks_per_sm, 32);
        assert_eq!(r.blocks_per_sm_cap, None);
        // Upper: all 148 SMs x 32 blocks; lower: one 8-SM virtual GPC at 8 blocks per SM.
        assert_eq!(
            r.max_active_clusters,
            ClusterCount::Bounds {
                lower: 16,
                upper: 1184,
                model: None
            }
        );
        assert_eq!(r.max_active_clusters.to_string(), "16..=1184");
    }

    #[test]
    fn no_resident_block_means_no_cluster() {
        let kernel = Kernel::new(32);
        let launch = Launch::new(BlockDim::linear(256)).with_dynamic_smem(60_000);
        let pcie = Topology::of_gpu(gpu("H100 PCIe"));
        let r = max_active_clusters(&SM_90, &pcie, &kernel, &launch, &Cluster::linear(4)).unwrap();
        assert_eq!(r.occupancy.blocks_per_sm, 0);
        assert_eq!(r.max_active_clusters, ClusterCount::Exact(0));
    }

    #[test]
    fn die_range_matches_a_brute_force_on_small_dies() {
        let die = Die {
            name: "test",
            max_gpcs: 3,
            max_tpcs_per_gpc: 4,
            sms_per_tpc: 2,
            max_singleton_tpcs: 2,
            source: "",
        };
        for tpcs in 0..=15u32 {
            for b in 1..=3 {
                for c in 1..=9 {
                    let mut best: Option<(u32, u32)> = None;
                    for s in 0..=2u32.min(tpcs) {
                        for g0 in 0..=4 {
                            for g1 in 0..=4 {
                                for g2 in 0..=4 {
                                    if g0 + g1 + g2 + s != tpcs {
                                        continue;
                                    }
                                    let v = [g0, g1, g2]
                                        .iter()
                                        .map(|&t| {
                                            vgpc_clusters(2 * t, b, c, SchedulingPolicy::Default)
                                        })
                                        .sum::<u32>()
                                        + s * vgpc_clusters(2, b, c, SchedulingPolicy::Default);
                                    best = Some(best.map_or((v, v), |(x, y)| (x.min(v), y.max(v))));
                                }
                            }
                        }
                    }
                    assert_eq!(
                        die_range(&die, tpcs, b, c, SchedulingPolicy::Default),
                        best,
                        "tpcs {tpcs} b {b} c {c}"
                    );
                }
            }
        }
    }
}
