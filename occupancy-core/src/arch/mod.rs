//! Per-compute-capability hardware limits and named GPUs.
//!
//! This module is data: one [`Arch`] row per compute capability and one [`Gpu`] row per
//! named part, each with the sources it was taken from. The occupancy engine reads nothing
//! else about the hardware.
//!
//! Source abbreviations used in the rows:
//!
//! - **PG**: CUDA C++ Programming Guide, "Technical Specifications per Compute Capability"
//!   (CUDA 11 and CUDA 13 editions).
//! - **OCC**: NVIDIA's header-only calculator `cuda_occupancy.h` (CUDA 13.5, PyPI package
//!   `nvidia-cuda-runtime`), used as a test oracle and never copied.
//! - **XLS**: NVIDIA's CUDA Occupancy Calculator spreadsheet (versions 9.0 to 11.1).
//! - **CCCL**: the per-architecture tables in NVIDIA's CCCL (`cuda::arch_traits`).
//! - **TG**: the per-architecture tuning guides (Volta, Ada, Hopper, Blackwell).
//! - **H200**: measured with `cuDeviceGetAttribute` and
//!   `cuOccupancyMaxActiveBlocksPerMultiprocessor` on an NVIDIA H200 (driver 580.159.04).

use core::fmt;

mod gpc;
mod gpus;
mod target;

pub use gpc::{Die, GH100, GPC_LAYOUTS, GpcLayout, LayoutConfidence, Skyline, gpc_layout};
pub use gpus::{Confidence, GPUS, Gpu};
pub use target::{ArchVariant, Target, TargetError};

/// A compute capability, `major.minor` (e.g. 9.0 for Hopper, `sm_90`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ComputeCapability {
    /// Major version (the architecture generation: 9 = Hopper).
    pub major: u8,
    /// Minor version (the variant within the generation).
    pub minor: u8,
}

impl ComputeCapability {
    /// `ComputeCapability { major, minor }`.
    pub const fn new(major: u8, minor: u8) -> Self {
        Self { major, minor }
    }

    /// The number ptxas and NVRTC use in `sm_XY`: `major * 10 + minor` (9.0 -> 90).
    pub const fn sm_number(self) -> u32 {
        self.major as u32 * 10 + self.minor as u32
    }

    /// `self >= other`, usable in `const fn`.
    pub const fn at_least(self, major: u8, minor: u8) -> bool {
        self.major > major || (self.major == major && self.minor >= minor)
    }
}

impl fmt::Display for ComputeCapability {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}", self.major, self.minor)
    }
}

/// Every per-SM and per-block limit the occupancy model needs, for one compute capability.
///
/// All sizes are bytes, all register counts are 32-bit registers. The values and their
/// sources are in the rows of [`ARCHS`]; where sources disagree the row says which one was
/// taken and why (authority: the driver on real hardware, then `cuda_occupancy.h`, then the
/// Programming Guide).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Arch {
    /// The compute capability this row describes.
    pub cc: ComputeCapability,
    /// The ptxas / NVRTC target name without feature suffix, e.g. `"sm_90"`.
    pub sm: &'static str,
    /// Architecture and chip family, e.g. `"Hopper GH100"`.
    pub family: &'static str,
    /// Threads per warp (32 on every NVIDIA GPU so far; PG).
    pub warp_size: u32,
    /// Maximum resident threads per SM (PG; OCC).
    pub max_threads_per_sm: u32,
    /// Maximum resident blocks per SM (PG; OCC `cudaOccMaxBlocksPerMultiprocessor`).
    pub max_blocks_per_sm: u32,
    /// Maximum threads per block (1024 on every cc in this table; PG).
    pub max_threads_per_block: u32,
    /// Maximum z dimension of a block (64 on every cc in this table; PG).
    pub max_block_dim_z: u32,
    /// 32-bit registers per SM (PG).
    pub regs_per_sm: u32,
    /// Maximum registers one block may hold (PG; the register check of OCC).
    pub max_regs_per_block: u32,
    /// Registers per thread above which no block can launch: 255 on every cc (PG's table of
    /// compute capabilities: "maximum number of 32-bit registers per thread: 255"; the most
    /// ptxas allocates). OCC checks 256 from cc 7.0: see the disputed values of [`ARCHS`].
    pub max_regs_per_thread: u32,
    /// Register allocation unit per warp: a warp's registers are rounded up to a multiple
    /// of this (256 on every cc since 3.0; OCC `cudaOccRegAllocationGranularity`, XLS).
    pub reg_alloc_unit_per_warp: u32,
    /// Register-file sub-partitions (warp schedulers) per SM; each holds a quarter (a half on
    /// cc 6.0) of the register file and whole warps only (OCC
    /// `cudaOccSubPartitionsPerMultiprocessor`; XLS "warp allocation granularity").
    pub sub_partitions: u32,
    /// cc 6.0 only: OCC re-checks the per-block register limit as if the SM had this many
    /// sub-partitions (GP10x) and answers 0 blocks if it would fail there. 0 = no such check.
    pub register_recheck_sub_partitions: u32,
    /// Largest shared memory per SM, bytes: the largest carveout (PG
    /// `sharedMemPerMultiprocessor`).
    pub smem_per_sm_bytes: u32,
    /// Shared memory per block without the opt-in, bytes: 48 KiB (PG).
    pub smem_per_block_default_bytes: u32,
    /// Shared memory per block with the opt-in (`cudaFuncAttributeMaxDynamicSharedMemorySize`),
    /// bytes, static plus dynamic, reserved not included (PG `sharedMemPerBlockOptin`).
    pub smem_per_block_optin_bytes: u32,
    /// Shared memory the driver reserves per resident block, bytes (1 KiB from cc 8.0; PG
    /// `reservedSharedMemPerBlock`; H200).
    pub reserved_smem_per_block_bytes: u32,
    /// A block's shared memory is rounded up to a multiple of this, bytes (256 before cc 8.0,
    /// 128 from 8.0; OCC `cudaOccSMemAllocationGranularity`; XLS).
    pub smem_alloc_granularity_bytes: u32,
    /// The shared-memory carveouts the SM supports, KiB, ascending. Empty: the SM has a fixed
    /// [`smem_per_sm_bytes`](Self::smem_per_sm_bytes) (before cc 7.0). PG "configurable
    /// shared memory"; OCC `cudaOccAlignUpShmemSizeVoltaPlus`.
    pub carveouts_kib: &'static [u32],
    /// Block barriers available per SM for the named-barrier limit (cc 9.0+): max blocks per
    /// SM times 2 (9.0, 10.0) or times 1 (10.3, 11.0, 12.x). 0: barriers do not limit
    /// resident blocks on this cc (OCC `cudaOccMaxBlocksPerSMBlockBarrierLimit`, applied
    /// from cc 9.0 on; H200).
    pub barriers_per_sm: u32,
    /// Largest portable thread-block-cluster size (8 on cc 9.0+, 0 = no clusters; PG).
    pub cluster_max_portable: u32,
    /// Largest cluster size with `cudaFuncAttributeNonPortableClusterSizeAllowed` (0 =
    /// unknown or no clusters). cc 9.0: 16 (PG), measured on an H200 (driver 580.159.04):
    /// `cuOccupancyMaxPotentialClusterSize` answers 8 without the attribute and 16 with it;
    /// a launch of 9 blocks per cluster fails without it (`CUDA_ERROR_INVALID_CLUSTER_SIZE`)
    /// and runs with it, one of 16 runs and one of 17 fails
    /// (`tests/data/h200/cluster_limits.tsv`).
    pub cluster_max_nonportable: u32,
}

impl Arch {
    /// Maximum resident warps per SM (`max_threads_per_sm / warp_size`).
    pub const fn max_warps_per_sm(&self) -> u32 {
        self.max_threads_per_sm / self.warp_size
    }

    /// Whether this cc can change its L1 / shared-memory split (cc 7.0 and later).
    pub const fn has_carveout(&self) -> bool {
        !self.carveouts_kib.is_empty()
    }

    /// The smallest supported carveout that holds `bytes`, in bytes; `None` when `bytes`
    /// exceeds the largest one or the SM has a fixed shared memory size.
    ///
    /// A request of 0 bytes gets the 0 KiB carveout where one exists (cc 7.0, 8.x, 9.0 ...),
    /// and the smallest carveout otherwise (cc 7.5: 32 KiB). Source: OCC
    /// `cudaOccAlignUpShmemSizeVoltaPlus`, which the H200 driver agrees with.
    pub const fn carveout_for(&self, bytes: u32) -> Option<u32> {
        let mut i = 0;
        while i < self.carveouts_kib.len() {
            let size = self.carveouts_kib[i] * 1024;
            if size >= bytes {
                return Some(size);
            }
            i += 1;
        }
        None
    }

    /// The row for a compute capability, if the table has it.
    pub const fn from_cc(cc: ComputeCapability) -> Option<&'static Arch> {
        let mut i = 0;
        while i < ARCHS.len() {
            if ARCHS[i].cc.major == cc.major && ARCHS[i].cc.minor == cc.minor {
                return Some(&ARCHS[i]);
            }
            i += 1;
        }
        None
    }
}

/// The largest grid, blocks along x, y and z: 2^31 - 1, 65535, 65535 on every compute
/// capability from 3.0 on (PG "Maximum x-, y- or z-dimension of a grid of thread blocks";
/// `CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X/Y/Z` on the H200).
pub const MAX_GRID_DIM: [u32; 3] = [2_147_483_647, 65_535, 65_535];

/// The most static shared memory (`__shared__` arrays of fixed size) a kernel may have per
/// block, bytes: 48 KiB on every compute capability, whatever the dynamic shared memory
/// opt-in. ptxas refuses more ("Entry function 'k' uses too much shared data (0xc001
/// bytes, 0xc000 max)"): measured with ptxas 12.9 for every architecture of [`ARCHS`] but
/// sm_110 (which it does not know) and with ptxas 13.0 for sm_90 and sm_110
/// (`scripts/gpu/cluster_limits_probe.py`, docs/VERIFIED.md). PG: "kernels
/// relying on shared memory allocations over 48 KB per block ... must use dynamic shared
/// memory (rather than statically sized arrays)".
pub const MAX_STATIC_SMEM_PER_BLOCK_BYTES: u32 = 48 * 1024;

/// A shorthand for the rows below: every field but the ones that differ per cc.
const BASE: Arch = Arch {
    cc: ComputeCapability::new(0, 0),
    sm: "",
    family: "",
    warp_size: 32,
    max_threads_per_sm: 2048,
    max_blocks_per_sm: 32,
    max_threads_per_block: 1024,
    max_block_dim_z: 64,
    regs_per_sm: 65536,
    max_regs_per_block: 65536,
    max_regs_per_thread: 255,
    reg_alloc_unit_per_warp: 256,
    sub_partitions: 4,
    register_recheck_sub_partitions: 0,
    smem_per_sm_bytes: 0,
    smem_per_block_default_bytes: 48 * 1024,
    smem_per_block_optin_bytes: 48 * 1024,
    reserved_smem_per_block_bytes: 0,
    smem_alloc_granularity_bytes: 256,
    carveouts_kib: &[],
    barriers_per_sm: 0,
    cluster_max_portable: 0,
    cluster_max_nonportable: 0,
};

/// Carveouts of cc 7.0 and 7.2 (OCC; PG names 0, 8, 16, 32, 64, 96 KiB for 7.0).
const CARVEOUTS_VOLTA: &[u32] = &[0, 8, 16, 32, 64, 96];
/// Carveouts of cc 7.5: 32 or 64 KiB (PG; OCC).
const CARVEOUTS_TURING: &[u32] = &[32, 64];
/// Carveouts of cc 8.0 and 8.7 (PG; OCC).
const CARVEOUTS_GA100: &[u32] = &[0, 8, 16, 32, 64, 100, 132, 164];
/// Carveouts of cc 8.6, 8.9, 12.0, 12.1 (PG; OCC).
const CARVEOUTS_100K: &[u32] = &[0, 8, 16, 32, 64, 100];
/// Carveouts of cc 9.0, 10.0, 10.3, 11.0 (PG; OCC; the 228 KiB maximum measured on an H200).
const CARVEOUTS_228K: &[u32] = &[0, 8, 16, 32, 64, 100, 132, 164, 196, 228];

/// The table: one row per compute capability, ascending.
///
/// Disputed values (from the sources' disagreement, kept in
/// `ground-truth/arch-specs.tsv` of the project's shared notes) and the choice made:
///
/// - 5.2 `max_regs_per_block`: XLS 11.x says 32768; PG, XLS 9.0 and a GTX TITAN X
///   deviceQuery say 65536. Taken: 65536.
/// - 6.2 `max_regs_per_block`: PG and CCCL say 32768, XLS says 65536. Taken: 32768 (PG).
/// - 7.2 `smem_per_block_optin_bytes`: PG says 96 KiB, two wrapper libraries 48 KiB;
///   unconfirmed on hardware. Taken: 96 KiB (PG).
/// - `max_regs_per_thread` on cc 7.0+: OCC checks 256 (`cudaOccRegAllocationMaxPerThread`),
///   PG lists 255. Taken: 255. No kernel has 256 (ptxas allocates at most 255 and
///   `-maxrregcount` takes at most 255), so the driver never answers for one and OCC's 256
///   is a count no input can reach; a user's `regs = 256` (or `calc --regs 256`) is
///   refused as the hardware refuses it. Every count a kernel can have (0 to 255) gives
///   OCC's answer.
/// - 10.3 `barriers_per_sm`: OCC 12.9 gives 2 per block slot, OCC 13.5 gives 1. Taken: 1
///   (newest).
/// - 12.0 `max_blocks_per_sm`: the Blackwell tuning guide says 32; PG 13, OCC, CCCL and the
///   driver of an RTX 5060 Ti say 24. Taken: 24. `smem_per_sm_bytes`: the tuning guide says
///   128 KiB (the unified L1 size); PG 13, OCC and the driver say 100 KiB. Taken: 100 KiB.
/// - 10.3, 11.0, 12.x `cluster_max_nonportable`: not confirmed anywhere; left 0 (unknown)
///   except 10.0/10.3 (16, Blackwell tuning guide as quoted by third parties).
pub static ARCHS: &[Arch] = &[
    SM_50, SM_52, SM_53, SM_60, SM_61, SM_62, SM_70, SM_72, SM_75, SM_80, SM_86, SM_87, SM_89,
    SM_90, SM_100, SM_103, SM_110, SM_120, SM_121,
];

/// cc 5.0 Maxwell GM10x. Sources: PG 11; OCC 12.9 and 13.5; XLS 11.1. Fixed 64 KiB
/// shared memory per SM.
pub const SM_50: Arch = Arch {
    cc: ComputeCapability::new(5, 0),
    sm: "sm_50",
    family: "Maxwell GM10x",
    max_regs_per_thread: 255,
    smem_per_sm_bytes: 65536,
    ..BASE
};

/// cc 5.2 Maxwell GM20x. Sources: PG 11; OCC; XLS 9.0 and 11.1. Fixed 96 KiB.
pub const SM_52: Arch = Arch {
    cc: ComputeCapability::new(5, 2),
    sm: "sm_52",
    family: "Maxwell GM20x",
    max_regs_per_thread: 255,
    smem_per_sm_bytes: 98304,
    ..BASE
};

/// cc 5.3 Maxwell GM20B (Tegra X1). Sources: PG 11; OCC; XLS 11.1. 32K registers per
/// block; fixed 64 KiB.
pub const SM_53: Arch = Arch {
    cc: ComputeCapability::new(5, 3),
    sm: "sm_53",
    family: "Maxwell GM20B (Tegra X1)",
    max_regs_per_block: 32768,
    max_regs_per_thread: 255,
    smem_per_sm_bytes: 65536,
    ..BASE
};

/// cc 6.0 Pascal GP100. Sources: PG 11; OCC 13.5; CCCL; XLS 11.1. Two register-file
/// sub-partitions, and OCC's extra GP10x register check.
pub const SM_60: Arch = Arch {
    cc: ComputeCapability::new(6, 0),
    sm: "sm_60",
    family: "Pascal GP100",
    max_regs_per_thread: 255,
    sub_partitions: 2,
    register_recheck_sub_partitions: 4,
    smem_per_sm_bytes: 65536,
    ..BASE
};

/// cc 6.1 Pascal GP10x. Sources: PG 11; OCC 13.5; CCCL; XLS 11.1. Fixed 96 KiB.
pub const SM_61: Arch = Arch {
    cc: ComputeCapability::new(6, 1),
    sm: "sm_61",
    family: "Pascal GP10x",
    max_regs_per_thread: 255,
    smem_per_sm_bytes: 98304,
    ..BASE
};

/// cc 6.2 Pascal GP10B (Tegra X2). Sources: PG 11; CCCL; OCC 13.5; XLS 11.1 (which says
/// 64K registers per block; PG and CCCL say 32K, taken).
pub const SM_62: Arch = Arch {
    cc: ComputeCapability::new(6, 2),
    sm: "sm_62",
    family: "Pascal GP10B (Tegra X2)",
    max_regs_per_block: 32768,
    max_regs_per_thread: 255,
    smem_per_sm_bytes: 65536,
    ..BASE
};

/// cc 7.0 Volta GV100. Sources: PG 11; OCC 13.5; CCCL; XLS 11.1; Volta tuning guide.
/// 96 KiB shared memory per SM, 96 KiB per block with the opt-in.
pub const SM_70: Arch = Arch {
    cc: ComputeCapability::new(7, 0),
    sm: "sm_70",
    family: "Volta GV100",
    smem_per_sm_bytes: 98304,
    smem_per_block_optin_bytes: 98304,
    carveouts_kib: CARVEOUTS_VOLTA,
    ..BASE
};

/// cc 7.2 Volta GV10B (Xavier). Sources: PG 11; OCC 13.5. The opt-in maximum (96 KiB,
/// PG) is unconfirmed on hardware.
pub const SM_72: Arch = Arch {
    cc: ComputeCapability::new(7, 2),
    sm: "sm_72",
    family: "Volta GV10B (Xavier)",
    smem_per_sm_bytes: 98304,
    smem_per_block_optin_bytes: 98304,
    carveouts_kib: CARVEOUTS_VOLTA,
    ..BASE
};

/// cc 7.5 Turing TU10x. Sources: PG 11 and 13; OCC 13.5; CCCL; XLS 11.1 (XLS 9.0 listed
/// 32 blocks per SM; later versions and every other source say 16). 1024 threads and 16
/// blocks per SM, 64 KiB shared memory.
pub const SM_75: Arch = Arch {
    cc: ComputeCapability::new(7, 5),
    sm: "sm_75",
    family: "Turing TU10x",
    max_threads_per_sm: 1024,
    max_blocks_per_sm: 16,
    smem_per_sm_bytes: 65536,
    smem_per_block_optin_bytes: 65536,
    carveouts_kib: CARVEOUTS_TURING,
    ..BASE
};

/// cc 8.0 Ampere GA100 (A100). Sources: PG 11 and 13; OCC 13.5; CCCL; XLS 11.1 (which
/// lists 167936 per block = the 163 KiB opt-in plus the 1 KiB reserve).
pub const SM_80: Arch = Arch {
    cc: ComputeCapability::new(8, 0),
    sm: "sm_80",
    family: "Ampere GA100",
    smem_per_sm_bytes: 167936,
    smem_per_block_optin_bytes: 166912,
    reserved_smem_per_block_bytes: 1024,
    smem_alloc_granularity_bytes: 128,
    carveouts_kib: CARVEOUTS_GA100,
    ..BASE
};

/// cc 8.6 Ampere GA10x (RTX 30, A10, A40). Sources: PG 11 and 13; OCC 13.5; CCCL;
/// XLS 11.1. 1536 threads and 16 blocks per SM, 100 KiB shared memory.
pub const SM_86: Arch = Arch {
    cc: ComputeCapability::new(8, 6),
    sm: "sm_86",
    family: "Ampere GA10x",
    max_threads_per_sm: 1536,
    max_blocks_per_sm: 16,
    smem_per_sm_bytes: 102400,
    smem_per_block_optin_bytes: 101376,
    reserved_smem_per_block_bytes: 1024,
    smem_alloc_granularity_bytes: 128,
    carveouts_kib: CARVEOUTS_100K,
    ..BASE
};

/// cc 8.7 Ampere GA10B (Jetson Orin). Sources: PG 11 and 13; OCC 13.5; CCCL (all agree;
/// no driver dump found). GA100-sized shared memory with GA10x thread limits.
pub const SM_87: Arch = Arch {
    cc: ComputeCapability::new(8, 7),
    sm: "sm_87",
    family: "Ampere GA10B (Jetson Orin)",
    max_threads_per_sm: 1536,
    max_blocks_per_sm: 16,
    smem_per_sm_bytes: 167936,
    smem_per_block_optin_bytes: 166912,
    reserved_smem_per_block_bytes: 1024,
    smem_alloc_granularity_bytes: 128,
    carveouts_kib: CARVEOUTS_GA100,
    ..BASE
};

/// cc 8.9 Ada AD10x (RTX 40, L4, L40S). Sources: PG 13; OCC 13.5; CCCL; Ada tuning
/// guide; nvbench on an RTX 4060 Laptop (24 blocks, 1536 threads, 100 KiB per SM).
pub const SM_89: Arch = Arch {
    cc: ComputeCapability::new(8, 9),
    sm: "sm_89",
    family: "Ada AD10x",
    max_threads_per_sm: 1536,
    max_blocks_per_sm: 24,
    smem_per_sm_bytes: 102400,
    smem_per_block_optin_bytes: 101376,
    reserved_smem_per_block_bytes: 1024,
    smem_alloc_granularity_bytes: 128,
    carveouts_kib: CARVEOUTS_100K,
    ..BASE
};

/// cc 9.0 Hopper GH100 (H100, H200, GH200). Sources: PG 13; OCC 13.5; CCCL; Hopper
/// tuning guide; H200 (every value here agrees with the H200's driver attributes and
/// with 3.5 million recorded `cuOccupancyMaxActiveBlocksPerMultiprocessor` answers).
pub const SM_90: Arch = Arch {
    cc: ComputeCapability::new(9, 0),
    sm: "sm_90",
    family: "Hopper GH100",
    smem_per_sm_bytes: 233472,
    smem_per_block_optin_bytes: 232448,
    reserved_smem_per_block_bytes: 1024,
    smem_alloc_granularity_bytes: 128,
    carveouts_kib: CARVEOUTS_228K,
    barriers_per_sm: 64,
    cluster_max_portable: 8,
    cluster_max_nonportable: 16,
    ..BASE
};

/// cc 10.0 Blackwell GB100 (B200, GB200). Sources: PG 13; OCC 12.9 and 13.5; CCCL;
/// Blackwell tuning guide (non-portable cluster size 16, as quoted by third parties).
pub const SM_100: Arch = Arch {
    cc: ComputeCapability::new(10, 0),
    sm: "sm_100",
    family: "Blackwell GB100",
    smem_per_sm_bytes: 233472,
    smem_per_block_optin_bytes: 232448,
    reserved_smem_per_block_bytes: 1024,
    smem_alloc_granularity_bytes: 128,
    carveouts_kib: CARVEOUTS_228K,
    barriers_per_sm: 64,
    cluster_max_portable: 8,
    cluster_max_nonportable: 16,
    ..BASE
};

/// cc 10.3 Blackwell Ultra (B300, GB300). Sources: PG 13; OCC 12.9 and 13.5 (they
/// disagree on the barrier factor; 13.5's 1 per block slot is taken); CCCL.
pub const SM_103: Arch = Arch {
    cc: ComputeCapability::new(10, 3),
    sm: "sm_103",
    family: "Blackwell Ultra GB110",
    smem_per_sm_bytes: 233472,
    smem_per_block_optin_bytes: 232448,
    reserved_smem_per_block_bytes: 1024,
    smem_alloc_granularity_bytes: 128,
    carveouts_kib: CARVEOUTS_228K,
    barriers_per_sm: 32,
    cluster_max_portable: 8,
    cluster_max_nonportable: 16,
    ..BASE
};

/// cc 11.0 Blackwell (Jetson / DRIVE Thor; reported as 10.1 by CUDA 12.9 and earlier).
/// Sources: PG 13 (228 KiB shared memory); OCC 13.5 (24 blocks, 1536 threads per SM,
/// barrier factor 1); CCCL; CUDA 13.0 release notes (sm_101 renamed sm_110).
pub const SM_110: Arch = Arch {
    cc: ComputeCapability::new(11, 0),
    sm: "sm_110",
    family: "Blackwell GB10B (Thor)",
    max_threads_per_sm: 1536,
    max_blocks_per_sm: 24,
    smem_per_sm_bytes: 233472,
    smem_per_block_optin_bytes: 232448,
    reserved_smem_per_block_bytes: 1024,
    smem_alloc_granularity_bytes: 128,
    carveouts_kib: CARVEOUTS_228K,
    barriers_per_sm: 24,
    cluster_max_portable: 8,
    ..BASE
};

/// cc 12.0 Blackwell GB20x (RTX 50, RTX PRO Blackwell). Sources: PG 13; OCC 12.9 and
/// 13.5; CCCL; nvbench on an RTX 5060 Ti (24 blocks per SM). The Blackwell tuning guide's
/// 32 blocks and 128 KiB are not what the driver reports.
pub const SM_120: Arch = Arch {
    cc: ComputeCapability::new(12, 0),
    sm: "sm_120",
    family: "Blackwell GB20x",
    max_threads_per_sm: 1536,
    max_blocks_per_sm: 24,
    smem_per_sm_bytes: 102400,
    smem_per_block_optin_bytes: 101376,
    reserved_smem_per_block_bytes: 1024,
    smem_alloc_granularity_bytes: 128,
    carveouts_kib: CARVEOUTS_100K,
    barriers_per_sm: 24,
    cluster_max_portable: 8,
    ..BASE
};

/// cc 12.1 Blackwell GB10 (DGX Spark). Sources: PG 13; OCC 12.9 and 13.5 (which treat
/// 12.0 and 12.1 identically); CCCL (sm_121 = sm_120).
pub const SM_121: Arch = Arch {
    cc: ComputeCapability::new(12, 1),
    sm: "sm_121",
    family: "Blackwell GB10",
    max_threads_per_sm: 1536,
    max_blocks_per_sm: 24,
    smem_per_sm_bytes: 102400,
    smem_per_block_optin_bytes: 101376,
    reserved_smem_per_block_bytes: 1024,
    smem_alloc_granularity_bytes: 128,
    carveouts_kib: CARVEOUTS_100K,
    barriers_per_sm: 24,
    cluster_max_portable: 8,
    ..BASE
};
