//! The occupancy calculator: resident blocks per SM for one kernel, launch and architecture.
//!
//! Pure integer arithmetic, `const fn`, no allocation, no I/O. The model is the one the CUDA
//! driver implements for `cuOccupancyMaxActiveBlocksPerMultiprocessor`; it reproduces every
//! one of 3.5 million answers recorded from an H200's driver and NVIDIA's `cuda_occupancy.h`
//! (CUDA 13.5) on every architecture of [`crate::arch::ARCHS`] (see the tests).
//!
//! Per SM, a block is resident whole or not at all; the resident blocks are the minimum of
//! one limit per resource:
//!
//! 1. **warps**: `max_warps_per_sm / ceil(threads / 32)`; 0 if the block has more threads
//!    than the device allows (the function's launch bounds do not enter: see
//!    [`Kernel::max_threads_per_block`]).
//! 2. **blocks**: the architecture's maximum resident blocks per SM.
//! 3. **registers**: a warp's registers are rounded up to 256; the register file is split in
//!    sub-partitions that hold whole warps:
//!    `(regs_per_sm / sub_partitions / regs_per_warp) * sub_partitions / warps_per_block`;
//!    0 if the block's warps, rounded up to the sub-partitions, need more than the
//!    per-block register limit.
//! 4. **shared memory**: static + dynamic + the driver's reserved bytes, rounded to the
//!    allocation granularity, into the carveout in effect (the preference snapped up to a
//!    supported size, grown to fit one block if needed).
//! 5. **barriers** (cc 9.0+): named barriers available per SM / barriers per block.

use core::fmt;

use crate::arch::Arch;

/// A per-resource limit that does not limit (the resource is not used).
pub const UNLIMITED: u32 = u32::MAX;

/// Threads per block in up to three dimensions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct BlockDim {
    /// Threads along x.
    pub x: u32,
    /// Threads along y.
    pub y: u32,
    /// Threads along z.
    pub z: u32,
}

impl BlockDim {
    /// A block of `(x, y, z)` threads.
    pub const fn new(x: u32, y: u32, z: u32) -> Self {
        Self { x, y, z }
    }

    /// A one-dimensional block of `threads` threads.
    pub const fn linear(threads: u32) -> Self {
        Self {
            x: threads,
            y: 1,
            z: 1,
        }
    }

    /// Threads per block, `x * y * z` (u64, saturating: three `u32::MAX` dimensions do not
    /// fit in a u64).
    pub const fn threads(&self) -> u64 {
        (self.x as u64 * self.y as u64).saturating_mul(self.z as u64)
    }
}

impl fmt::Display for BlockDim {
    /// `256` for a 1-D block, `(16, 16)` or `(8, 8, 4)` otherwise.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.y, self.z) {
            (1, 1) => write!(f, "{}", self.x),
            (_, 1) => write!(f, "({}, {})", self.x, self.y),
            _ => write!(f, "({}, {}, {})", self.x, self.y, self.z),
        }
    }
}

/// Blocks in a grid in up to three dimensions (`gridDim`). The occupancy of one SM does
/// not depend on it; waves, tails and cluster launches do.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct GridDim {
    /// Blocks along x.
    pub x: u32,
    /// Blocks along y.
    pub y: u32,
    /// Blocks along z.
    pub z: u32,
}

impl GridDim {
    /// A grid of `(x, y, z)` blocks.
    pub const fn new(x: u32, y: u32, z: u32) -> Self {
        Self { x, y, z }
    }

    /// A one-dimensional grid of `blocks` blocks.
    pub const fn linear(blocks: u32) -> Self {
        Self {
            x: blocks,
            y: 1,
            z: 1,
        }
    }

    /// Blocks in the grid, `x * y * z` (u64, saturating: three `u32::MAX` dimensions do
    /// not fit in a u64; a grid that large exceeds the device's limits anyway,
    /// [`crate::arch::MAX_GRID_DIM`]).
    pub const fn blocks(&self) -> u64 {
        (self.x as u64 * self.y as u64).saturating_mul(self.z as u64)
    }

    /// `[x, y, z]`.
    pub const fn to_array(self) -> [u32; 3] {
        [self.x, self.y, self.z]
    }
}

impl fmt::Display for GridDim {
    /// `1024` for a 1-D grid, `(64, 64)` or `(8, 8, 2)` otherwise.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.y, self.z) {
            (1, 1) => write!(f, "{}", self.x),
            (_, 1) => write!(f, "({}, {})", self.x, self.y),
            _ => write!(f, "({}, {}, {})", self.x, self.y, self.z),
        }
    }
}

/// The function's preferred shared-memory carveout
/// (`CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Carveout {
    /// Not set (-1): the driver may use the largest carveout.
    #[default]
    Default,
    /// A percentage, 0..=100, of the largest shared memory per SM. The driver snaps it up to
    /// the next supported carveout and grows it further if one block needs more.
    Percent(u8),
}

impl Carveout {
    /// From the driver's attribute value: -1 = [`Carveout::Default`], 0..=100 = percent.
    ///
    /// # Errors
    ///
    /// [`OccupancyError::CarveoutOutOfRange`] for anything else.
    pub const fn from_attribute(value: i32) -> Result<Self, OccupancyError> {
        match value {
            -1 => Ok(Self::Default),
            0..=100 => Ok(Self::Percent(value as u8)),
            _ => Err(OccupancyError::CarveoutOutOfRange { value }),
        }
    }

    /// The driver's attribute value: -1 or the percentage.
    pub const fn to_attribute(self) -> i32 {
        match self {
            Self::Default => -1,
            Self::Percent(p) => p as i32,
        }
    }
}

/// What the compiled kernel uses and the function attributes the launch code sets.
///
/// Where each comes from: registers, static shared memory, barriers and max threads from the
/// compiled cubin or the ptxas log (`crate::resources` reads them);
/// `max_dynamic_smem_bytes` and `carveout` from `cuFuncSetAttribute` calls in the wrapper.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Kernel {
    /// Registers per thread (`CU_FUNC_ATTRIBUTE_NUM_REGS`).
    pub registers_per_thread: u32,
    /// Static shared memory per block, bytes (`CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES`; without
    /// the 1 KiB reserve that sm_90+ cubins include in `.nv.shared.<kernel>`).
    pub static_smem_bytes: u32,
    /// Block barriers the kernel uses (highest named-barrier id + 1; 1 when it only uses
    /// `__syncthreads`). Limits resident blocks on cc 9.0 and later.
    pub barriers: u32,
    /// The function's max threads per block (`__launch_bounds__` first argument, or
    /// `CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK`); `None`: only the device limit applies.
    ///
    /// It bounds the block sizes [`max_potential_block_size`] searches (as
    /// `cuOccupancyMaxPotentialBlockSize` does), and a launch of more threads fails. It does
    /// not enter [`occupancy`]: `cuOccupancyMaxActiveBlocksPerMultiprocessor` ignores it
    /// (measured on an H200: a kernel compiled with `__launch_bounds__(256)` is answered 4
    /// blocks per SM for 436-thread blocks), and so does `cuda_occupancy.h`. The lints
    /// report such a launch as `launch_impossible`.
    pub max_threads_per_block: Option<u32>,
    /// The dynamic shared memory opt-in (`CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES`),
    /// bytes; `None`: not set, the default 48 KiB per block (static + dynamic) applies.
    pub max_dynamic_smem_bytes: Option<u32>,
    /// Preferred shared-memory carveout.
    pub carveout: Carveout,
}

impl Kernel {
    /// A kernel using `registers_per_thread` registers, no static shared memory, one barrier,
    /// no launch bounds, no opt-in and the default carveout.
    pub const fn new(registers_per_thread: u32) -> Self {
        Self {
            registers_per_thread,
            static_smem_bytes: 0,
            barriers: 1,
            max_threads_per_block: None,
            max_dynamic_smem_bytes: None,
            carveout: Carveout::Default,
        }
    }

    /// With `bytes` of static shared memory per block.
    pub const fn with_static_smem(mut self, bytes: u32) -> Self {
        self.static_smem_bytes = bytes;
        self
    }

    /// With `barriers` block barriers.
    pub const fn with_barriers(mut self, barriers: u32) -> Self {
        self.barriers = barriers;
        self
    }

    /// With a max-threads-per-block bound (`__launch_bounds__`).
    pub const fn with_max_threads(mut self, threads: u32) -> Self {
        self.max_threads_per_block = Some(threads);
        self
    }

    /// With the dynamic shared memory opt-in set to `bytes`.
    pub const fn with_opt_in(mut self, bytes: u32) -> Self {
        self.max_dynamic_smem_bytes = Some(bytes);
        self
    }

    /// With the function's `CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES` as the driver
    /// reports it: at its default (the 48 KiB per block minus the static shared memory) the
    /// function has not changed it (`None`); above, it opted in; below, it lowered its own
    /// limit, and a launch with more dynamic shared memory fails, as the driver refuses it.
    /// Set the static shared memory first.
    pub const fn with_max_dynamic_smem_attribute(mut self, arch: &Arch, bytes: u32) -> Self {
        let default = arch
            .smem_per_block_default_bytes
            .saturating_sub(self.static_smem_bytes);
        self.max_dynamic_smem_bytes = if bytes == default { None } else { Some(bytes) };
        self
    }

    /// With a carveout preference.
    pub const fn with_carveout(mut self, carveout: Carveout) -> Self {
        self.carveout = carveout;
        self
    }

    /// The most threads per block the kernel can be launched with on `arch`: the device's
    /// limit, or the launch bounds when smaller.
    pub const fn thread_limit(&self, arch: &Arch) -> u32 {
        match self.max_threads_per_block {
            Some(t) => min(t, arch.max_threads_per_block),
            None => arch.max_threads_per_block,
        }
    }
}

/// One launch configuration: block shape and dynamic shared memory per block.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Launch {
    /// Threads per block.
    pub block: BlockDim,
    /// Dynamic shared memory per block, bytes (the launch's `sharedMemBytes`).
    pub dynamic_smem_bytes: u32,
}

impl Launch {
    /// A launch of `block` threads with no dynamic shared memory.
    pub const fn new(block: BlockDim) -> Self {
        Self {
            block,
            dynamic_smem_bytes: 0,
        }
    }

    /// With `bytes` of dynamic shared memory per block.
    pub const fn with_dynamic_smem(mut self, bytes: u32) -> Self {
        self.dynamic_smem_bytes = bytes;
        self
    }
}

/// A resource that limits resident blocks per SM.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Resource {
    /// Resident warps per SM.
    Warps,
    /// The register file.
    Registers,
    /// Shared memory.
    SharedMemory,
    /// Resident blocks per SM.
    Blocks,
    /// Block barriers (cc 9.0+).
    Barriers,
}

impl Resource {
    /// All resources, in the order reports list them.
    pub const ALL: [Resource; 5] = [
        Resource::Warps,
        Resource::Registers,
        Resource::SharedMemory,
        Resource::Blocks,
        Resource::Barriers,
    ];

    /// The stable snake_case name used in machine output: `warps`, `registers`,
    /// `shared_memory`, `blocks`, `barriers`.
    pub const fn name(self) -> &'static str {
        match self {
            Resource::Warps => "warps",
            Resource::Registers => "registers",
            Resource::SharedMemory => "shared_memory",
            Resource::Blocks => "blocks",
            Resource::Barriers => "barriers",
        }
    }

    const fn bit(self) -> u8 {
        1 << self as u8
    }
}

impl fmt::Display for Resource {
    /// Words for messages: `warps`, `registers`, `shared memory`, `blocks`, `barriers`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Resource::SharedMemory => "shared memory",
            other => other.name(),
        })
    }
}

/// A set of [`Resource`]s.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Limiters(u8);

impl Limiters {
    /// No resource.
    pub const EMPTY: Self = Self(0);

    /// Whether `resource` is in the set.
    pub const fn contains(self, resource: Resource) -> bool {
        self.0 & resource.bit() != 0
    }

    /// The set plus `resource`.
    pub const fn with(self, resource: Resource) -> Self {
        Self(self.0 | resource.bit())
    }

    /// Whether the set is empty.
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The resources in the set, in [`Resource::ALL`] order.
    pub fn iter(self) -> impl Iterator<Item = Resource> {
        Resource::ALL.into_iter().filter(move |r| self.contains(*r))
    }
}

impl fmt::Debug for Limiters {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set().entries(self.iter()).finish()
    }
}

impl fmt::Display for Limiters {
    /// Comma-separated snake_case names: `registers,shared_memory`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, r) in self.iter().enumerate() {
            if i > 0 {
                f.write_str(",")?;
            }
            f.write_str(r.name())?;
        }
        Ok(())
    }
}

/// Resident blocks per SM each resource alone would allow. [`UNLIMITED`] where the resource
/// is not used (no registers, no shared memory, no barrier limit on this cc).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct BlockLimits {
    /// From resident warps per SM (0 when the block is too large).
    pub warps: u32,
    /// From the register file (0 when one block cannot hold its registers).
    pub registers: u32,
    /// From shared memory (0 when one block's shared memory exceeds the per-block limit).
    pub shared_memory: u32,
    /// The architecture's maximum resident blocks per SM.
    pub blocks: u32,
    /// From block barriers (cc 9.0+ only).
    pub barriers: u32,
}

impl BlockLimits {
    /// The limit of one resource.
    pub const fn get(&self, resource: Resource) -> u32 {
        match resource {
            Resource::Warps => self.warps,
            Resource::Registers => self.registers,
            Resource::SharedMemory => self.shared_memory,
            Resource::Blocks => self.blocks,
            Resource::Barriers => self.barriers,
        }
    }
}

/// Why no block fits on an SM: the launch would fail.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ZeroReason {
    /// More threads than the device allows (1024).
    BlockTooLarge {
        /// Threads per block.
        threads: u64,
        /// The device's max threads per block.
        limit: u32,
    },
    /// The block's z dimension exceeds the device's (64).
    BlockDimZTooLarge {
        /// The block's z.
        z: u32,
        /// The device's max block z.
        limit: u32,
    },
    /// More registers per thread than the architecture allows.
    RegistersPerThread {
        /// Registers per thread.
        registers: u32,
        /// The architecture's maximum.
        limit: u32,
    },
    /// The block's registers (warps rounded up to the sub-partitions) exceed the per-block
    /// register limit.
    RegistersPerBlock {
        /// Registers the block needs: registers per warp x warps rounded up to the
        /// sub-partition count.
        registers: u64,
        /// The architecture's registers per block.
        limit: u32,
    },
    /// Dynamic shared memory above the function's opt-in value
    /// (`CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES`).
    DynamicSmemOverOptIn {
        /// Dynamic shared memory asked for, bytes.
        dynamic_bytes: u32,
        /// The function's maximum, bytes.
        max_bytes: u32,
    },
    /// Static + dynamic (+ reserved) shared memory exceeds the per-block limit: 48 KiB
    /// without the opt-in, the architecture's opt-in maximum with it.
    SmemPerBlock {
        /// Shared memory the block needs, reserved bytes included, rounded to the granularity.
        allocated_bytes: u64,
        /// The per-block limit, reserved bytes included.
        limit_bytes: u32,
        /// Whether the function had opted in.
        opted_in: bool,
    },
    /// The kernel uses more block barriers than the SM has.
    Barriers {
        /// Barriers per block.
        barriers: u32,
        /// Barriers per SM.
        available: u32,
    },
}

impl fmt::Display for ZeroReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Self::BlockTooLarge { threads, limit } => {
                write!(f, "{threads} threads per block exceed the limit of {limit}")
            }
            Self::BlockDimZTooLarge { z, limit } => {
                write!(f, "block z dimension {z} exceeds the limit of {limit}")
            }
            Self::RegistersPerThread { registers, limit } => {
                write!(
                    f,
                    "{registers} registers per thread exceed the {limit} a thread can have"
                )
            }
            Self::RegistersPerBlock { registers, limit } => write!(
                f,
                "the block needs {registers} registers (warps rounded up to the register-file \
                 sub-partitions), over the {limit} per block"
            ),
            Self::DynamicSmemOverOptIn {
                dynamic_bytes,
                max_bytes,
            } => write!(
                f,
                "{dynamic_bytes} B of dynamic shared memory exceed the function's maximum of \
                 {max_bytes} B (CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES)"
            ),
            Self::SmemPerBlock {
                allocated_bytes,
                limit_bytes,
                opted_in: false,
            } => write!(
                f,
                "{allocated_bytes} B of shared memory per block (reserved included) exceed the \
                 {limit_bytes} B allowed without the dynamic shared memory opt-in"
            ),
            Self::SmemPerBlock {
                allocated_bytes,
                limit_bytes,
                opted_in: true,
            } => write!(
                f,
                "{allocated_bytes} B of shared memory per block (reserved included) exceed the \
                 {limit_bytes} B per-block maximum"
            ),
            Self::Barriers {
                barriers,
                available,
            } => {
                write!(
                    f,
                    "{barriers} barriers per block exceed the {available} per SM"
                )
            }
        }
    }
}

/// Input the calculator refuses, as the driver's API would.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum OccupancyError {
    /// A block dimension is 0.
    EmptyBlock {
        /// The block.
        block: BlockDim,
    },
    /// A carveout attribute outside -1..=100.
    CarveoutOutOfRange {
        /// The value.
        value: i32,
    },
    /// The opt-in asks for more dynamic shared memory than the architecture allows beside
    /// the kernel's static shared memory: `cuFuncSetAttribute` fails with
    /// `CUDA_ERROR_INVALID_VALUE`.
    OptInOverLimit {
        /// The opt-in value, bytes.
        requested_bytes: u32,
        /// The most the function may opt in to: per-block opt-in limit minus static, bytes.
        limit_bytes: u32,
    },
    /// The function's max threads per block is 0 (no launch bounds give that).
    ZeroMaxThreadsPerBlock,
    /// Available dynamic shared memory was asked for 0 resident blocks.
    NoBlocksWanted,
    /// Available dynamic shared memory was asked for more resident blocks than fit even
    /// with no dynamic shared memory.
    BlocksDoNotFit {
        /// Resident blocks asked for.
        wanted: u32,
        /// Resident blocks possible with no dynamic shared memory.
        possible: u32,
    },
}

impl fmt::Display for OccupancyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Self::EmptyBlock { block } => write!(f, "block {block} has a zero dimension"),
            Self::CarveoutOutOfRange { value } => {
                write!(
                    f,
                    "carveout {value} is outside -1 (default) and 0..=100 percent"
                )
            }
            Self::OptInOverLimit {
                requested_bytes,
                limit_bytes,
            } => write!(
                f,
                "opt-in of {requested_bytes} bytes of dynamic shared memory exceeds the \
                 {limit_bytes} bytes this architecture allows beside the static shared memory"
            ),
            Self::ZeroMaxThreadsPerBlock => {
                f.write_str("the function's max threads per block is 0")
            }
            Self::NoBlocksWanted => f.write_str("0 resident blocks asked for"),
            Self::BlocksDoNotFit { wanted, possible } => write!(
                f,
                "{wanted} resident blocks asked for, but only {possible} fit with no dynamic \
                 shared memory"
            ),
        }
    }
}

impl std::error::Error for OccupancyError {}

/// The calculator's answer for one kernel, launch and architecture.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Occupancy {
    /// Resident blocks per SM: the minimum of [`limits`](Self::limits).
    pub blocks_per_sm: u32,
    /// Threads per block.
    pub threads_per_block: u32,
    /// Warps per block, `ceil(threads / 32)`.
    pub warps_per_block: u32,
    /// The SM's maximum resident warps.
    pub max_warps_per_sm: u32,
    /// Each resource's block limit.
    pub limits: BlockLimits,
    /// The limiting resources, as NVIDIA's `cuda_occupancy.h` reports them: the resources
    /// among warps, registers, shared memory and blocks whose limit equals the smallest of
    /// those four, plus barriers when the barrier limit equals the final count. (The barrier
    /// limit is applied last, so a barrier-bound result can also list the resource that was
    /// smallest before it.) [`binding`](Self::binding) gives the limits equal to the result.
    pub limiters: Limiters,
    /// Registers allocated per warp: `registers_per_thread * 32` rounded up to 256.
    pub registers_per_warp: u32,
    /// Registers allocated per block: registers per warp x warps per block (u64: a block
    /// of 2^32 - 1 threads at 32 registers asks for 137,438,953,472; saturating only past
    /// u64, which no `u32` block with at most 65536 registers per thread reaches).
    pub registers_per_block: u64,
    /// Shared memory allocated per block, bytes: static + dynamic + reserved, rounded up to
    /// the allocation granularity (u64: static and dynamic are each up to `u32::MAX`).
    pub smem_per_block_bytes: u64,
    /// Shared memory per SM in effect (the carveout), bytes.
    pub smem_per_sm_bytes: u32,
    /// Why no block fits, when [`blocks_per_sm`](Self::blocks_per_sm) is 0.
    pub zero_reason: Option<ZeroReason>,
}

impl Occupancy {
    /// Active warps per SM: resident blocks x warps per block.
    pub const fn active_warps_per_sm(&self) -> u32 {
        self.blocks_per_sm * self.warps_per_block
    }

    /// Theoretical occupancy: active warps / max warps per SM, 0.0 ..= 1.0.
    pub const fn fraction(&self) -> f64 {
        self.active_warps_per_sm() as f64 / self.max_warps_per_sm as f64
    }

    /// Theoretical occupancy in percent, 0.0 ..= 100.0.
    pub const fn percent(&self) -> f64 {
        self.fraction() * 100.0
    }

    /// Active threads per SM: resident blocks x threads per block.
    pub const fn active_threads_per_sm(&self) -> u32 {
        self.blocks_per_sm * self.threads_per_block
    }

    /// The shared-memory limit on resident blocks were the SM's shared memory configured
    /// to `smem_per_sm_bytes` (a carveout, e.g. the one the driver chose for a launch, which
    /// Nsight Compute reports as "Shared Memory Configuration Size" and computes its "Block
    /// Limit Shared Mem" at): that size / [`smem_per_block_bytes`](Self::smem_per_block_bytes),
    /// rounded down. [`UNLIMITED`] when a block needs no shared memory; 0 when one block's
    /// shared memory exceeds the per-block limit (the launch cannot run).
    pub const fn shared_memory_limit_at(&self, smem_per_sm_bytes: u32) -> u32 {
        if self.limits.shared_memory == 0 {
            return 0;
        }
        match (smem_per_sm_bytes as u64).checked_div(self.smem_per_block_bytes) {
            // At most `smem_per_sm_bytes`, which is a u32.
            Some(blocks) => blocks as u32,
            None => UNLIMITED,
        }
    }

    /// The resources whose limit equals [`blocks_per_sm`](Self::blocks_per_sm) exactly.
    pub const fn binding(&self) -> Limiters {
        let mut set = Limiters::EMPTY;
        let mut i = 0;
        while i < Resource::ALL.len() {
            let r = Resource::ALL[i];
            if self.limits.get(r) == self.blocks_per_sm {
                set = set.with(r);
            }
            i += 1;
        }
        set
    }
}

const fn min(a: u32, b: u32) -> u32 {
    if a < b { a } else { b }
}

/// Divisors below this use [`RECIPROCALS`] instead of a hardware division.
const RECIPROCAL_DIVISORS: usize = 2048;

/// `RECIPROCALS[d] = ceil(2^40 / d)`: `floor(x / d) = (x * RECIPROCALS[d]) >> 40` exactly for
/// every `x < 2^20` and `0 < d < 2^20` (the rounding error, below `x / 2^40 < 2^-20`, never
/// reaches the next integer because `x / d` is at least `1/d > 2^-20` below it). Every
/// division in the model has small operands; a multiply replaces a 10 to 40 cycle divide.
static RECIPROCALS: [u64; RECIPROCAL_DIVISORS] = {
    let mut table = [0u64; RECIPROCAL_DIVISORS];
    let mut d = 1;
    while d < RECIPROCAL_DIVISORS {
        table[d] = (1u64 << 40).div_ceil(d as u64);
        d += 1;
    }
    table
};

/// `x / y` for `y > 0`: a multiplication by a tabulated reciprocal when the operands are
/// small (always, for real configurations), a hardware division otherwise.
#[inline(always)]
const fn div(x: u64, y: u64) -> u64 {
    if x < (1 << 20) && y < RECIPROCAL_DIVISORS as u64 {
        (x * RECIPROCALS[y as usize]) >> 40
    } else {
        x / y
    }
}

/// `x / y` for `y > 0`; a shift when `y` is a power of two.
#[inline(always)]
const fn div_floor(x: u64, y: u64) -> u64 {
    if y.is_power_of_two() {
        x >> y.trailing_zeros()
    } else {
        div(x, y)
    }
}

/// `ceil(x / y)` for `y > 0`; a shift when `y` is a power of two (warp size, allocation units
/// and sub-partition counts all are).
#[inline(always)]
const fn div_ceil(x: u64, y: u64) -> u64 {
    if y.is_power_of_two() {
        x.saturating_add(y - 1) >> y.trailing_zeros()
    } else {
        div(x + (y - 1), y)
    }
}

/// `x` rounded up to a multiple of `y > 0`.
#[inline(always)]
const fn round_up(x: u64, y: u64) -> u64 {
    if y.is_power_of_two() {
        x.saturating_add(y - 1) & !(y - 1)
    } else {
        div_ceil(x, y) * y
    }
}

/// Saturating u64 -> u32.
const fn sat(x: u64) -> u32 {
    if x > u32::MAX as u64 {
        u32::MAX
    } else {
        x as u32
    }
}

/// Checks the function attributes alone: the carveout and the opt-in.
#[inline(always)]
const fn check_kernel(arch: &Arch, kernel: &Kernel) -> Result<(), OccupancyError> {
    if let Some(0) = kernel.max_threads_per_block {
        return Err(OccupancyError::ZeroMaxThreadsPerBlock);
    }
    if let Carveout::Percent(p) = kernel.carveout
        && p > 100
    {
        return Err(OccupancyError::CarveoutOutOfRange { value: p as i32 });
    }
    if let Some(requested) = kernel.max_dynamic_smem_bytes {
        let limit = arch
            .smem_per_block_optin_bytes
            .saturating_sub(kernel.static_smem_bytes);
        if requested > limit {
            return Err(OccupancyError::OptInOverLimit {
                requested_bytes: requested,
                limit_bytes: limit,
            });
        }
    }
    Ok(())
}

/// The carveout preference in bytes, snapped up to a supported size (cc 7.0+), or the fixed
/// shared memory per SM (before 7.0).
#[inline(always)]
const fn preferred_smem_per_sm(arch: &Arch, carveout: Carveout) -> u32 {
    if !arch.has_carveout() {
        return arch.smem_per_sm_bytes;
    }
    let wanted = match carveout {
        // The largest carveout is the SM's shared memory (an invariant the tests check).
        Carveout::Default => return arch.smem_per_sm_bytes,
        Carveout::Percent(p) => (p as u64 * arch.smem_per_sm_bytes as u64 / 100) as u32,
    };
    match arch.carveout_for(wanted) {
        Some(bytes) => bytes,
        // Unreachable for valid percentages: the largest carveout is smem_per_sm_bytes.
        None => arch.smem_per_sm_bytes,
    }
}

/// The per-block shared memory limit (reserved bytes included) and whether it is the
/// opt-in one. Follows the driver: the opt-in limit applies once the function's static +
/// reserved + max dynamic exceeds the 48 KiB default.
#[inline(always)]
const fn smem_limit_per_block(arch: &Arch, kernel: &Kernel) -> (u32, bool) {
    let reserved = arch.reserved_smem_per_block_bytes as u64;
    let opted_in = match kernel.max_dynamic_smem_bytes {
        Some(max_dynamic) => {
            kernel.static_smem_bytes as u64 + reserved + max_dynamic as u64
                > arch.smem_per_block_default_bytes as u64
        }
        None => false,
    };
    let base = if opted_in && arch.has_carveout() {
        arch.smem_per_block_optin_bytes
    } else {
        arch.smem_per_block_default_bytes
    };
    (base + arch.reserved_smem_per_block_bytes, opted_in)
}

/// Registers allocated per warp: `registers_per_thread * 32` rounded up to the allocation
/// unit.
#[inline(always)]
const fn regs_per_warp(arch: &Arch, registers_per_thread: u32) -> u64 {
    round_up(
        registers_per_thread as u64 * arch.warp_size as u64,
        arch.reg_alloc_unit_per_warp as u64,
    )
}

/// Registers one block needs for the per-block check: registers per warp x warps rounded up
/// to the sub-partition count.
#[inline(always)]
const fn regs_assumed_per_block(
    arch: &Arch,
    registers_per_thread: u32,
    warps_per_block: u64,
    sub_partitions: u32,
) -> u64 {
    regs_per_warp(arch, registers_per_thread)
        .saturating_mul(round_up(warps_per_block, sub_partitions as u64))
}

/// The register limit on resident blocks with `sub_partitions` register-file
/// sub-partitions, for registers allocated `per_warp` registers per warp (the per-thread
/// limit already checked), from the prepared warps per sub-partition.
#[inline(always)]
const fn register_limit(
    arch: &Arch,
    per_warp: u64,
    warps_per_sub_partition: u64,
    warps_per_block: u64,
    sub_partitions: u32,
) -> u32 {
    // The assumed registers bound the plain per-block count (rounding only adds warps).
    let assumed = per_warp.saturating_mul(round_up(warps_per_block, sub_partitions as u64));
    if assumed > arch.max_regs_per_block as u64 {
        return 0;
    }
    if per_warp == 0 {
        return UNLIMITED;
    }
    sat(div(
        warps_per_sub_partition * sub_partitions as u64,
        warps_per_block,
    ))
}

/// Warps one sub-partition's registers hold at `per_warp` registers per warp.
#[inline(always)]
const fn warps_per_sub_partition(arch: &Arch, per_warp: u64, sub_partitions: u32) -> u64 {
    if per_warp == 0 || sub_partitions == 0 {
        return 0;
    }
    div(
        div_floor(arch.regs_per_sm as u64, sub_partitions as u64),
        per_warp,
    )
}

/// Why no block fits, for a result with 0 resident blocks: the first limit that is 0, in
/// the order warps (block size), registers, shared memory, barriers.
const fn explain_zero(
    arch: &Arch,
    kernel: &Kernel,
    launch: &Launch,
    limits: &BlockLimits,
    smem_per_block: u64,
) -> ZeroReason {
    let block = launch.block;
    let threads = block.threads();
    let warps_per_block = div_ceil(threads, arch.warp_size as u64);
    if limits.warps == 0 {
        if block.z > arch.max_block_dim_z && threads <= arch.max_threads_per_block as u64 {
            return ZeroReason::BlockDimZTooLarge {
                z: block.z,
                limit: arch.max_block_dim_z,
            };
        }
        return ZeroReason::BlockTooLarge {
            threads,
            limit: arch.max_threads_per_block,
        };
    }
    if limits.registers == 0 {
        let registers = kernel.registers_per_thread;
        if registers > arch.max_regs_per_thread {
            return ZeroReason::RegistersPerThread {
                registers,
                limit: arch.max_regs_per_thread,
            };
        }
        let mut assumed =
            regs_assumed_per_block(arch, registers, warps_per_block, arch.sub_partitions);
        if assumed <= arch.max_regs_per_block as u64 {
            // Only the GP10x re-check failed.
            assumed = regs_assumed_per_block(
                arch,
                registers,
                warps_per_block,
                arch.register_recheck_sub_partitions,
            );
        }
        return ZeroReason::RegistersPerBlock {
            registers: assumed,
            limit: arch.max_regs_per_block,
        };
    }
    if limits.shared_memory == 0 {
        if let Some(max_bytes) = kernel.max_dynamic_smem_bytes
            && launch.dynamic_smem_bytes > max_bytes
        {
            return ZeroReason::DynamicSmemOverOptIn {
                dynamic_bytes: launch.dynamic_smem_bytes,
                max_bytes,
            };
        }
        let (limit_bytes, opted_in) = smem_limit_per_block(arch, kernel);
        return ZeroReason::SmemPerBlock {
            allocated_bytes: smem_per_block,
            limit_bytes,
            opted_in,
        };
    }
    ZeroReason::Barriers {
        barriers: kernel.barriers,
        available: arch.barriers_per_sm,
    }
}

/// Resident blocks per SM for `kernel` launched as `launch` on `arch`: what
/// `cuOccupancyMaxActiveBlocksPerMultiprocessor` answers (and `cudaOccMaxActiveBlocksPerMultiprocessor`
/// of `cuda_occupancy.h`, limiters included).
///
/// A launch that cannot run (block too large, too many registers, too much shared memory,
/// dynamic shared memory over the opt-in) is not an error: it is an [`Occupancy`] with 0
/// blocks and a [`ZeroReason`], as the driver answers 0.
///
/// # Errors
///
/// [`OccupancyError::EmptyBlock`], [`OccupancyError::CarveoutOutOfRange`],
/// [`OccupancyError::OptInOverLimit`], [`OccupancyError::ZeroMaxThreadsPerBlock`]: input
/// the driver's API refuses.
pub const fn occupancy(
    arch: &Arch,
    kernel: &Kernel,
    launch: &Launch,
) -> Result<Occupancy, OccupancyError> {
    match Prepared::new(arch, kernel) {
        Ok(prepared) => prepared.occupancy(launch),
        Err(e) => Err(e),
    }
}

/// Registers per thread as Nsight Compute reports them for a launch ("Registers Per
/// Thread", `launch__registers_per_thread`): the kernel's `CU_FUNC_ATTRIBUTE_NUM_REGS`, but
/// at least 16. Measured with Nsight Compute 2025.3 on an H200 (cc 9.0): kernels of 5, 12 and
/// 14 registers are reported as 16; 23, 25, 30, 32, 34, 39, 40, 43, 64, 121 and 128 as
/// themselves (no rounding to the 8-register allocation step). It does not change the
/// occupancy: up to 16 registers per thread, the register file never limits.
pub const fn reported_registers_per_thread(registers_per_thread: u32) -> u32 {
    if registers_per_thread < NCU_MIN_REGISTERS_PER_THREAD {
        NCU_MIN_REGISTERS_PER_THREAD
    } else {
        registers_per_thread
    }
}

/// The fewest registers per thread Nsight Compute reports (see
/// [`reported_registers_per_thread`]).
const NCU_MIN_REGISTERS_PER_THREAD: u32 = 16;

/// The shared-memory configuration (carveout) the driver sets for a launch, bytes per SM:
/// what Nsight Compute reports as "Shared Memory Configuration Size" and computes its
/// "Block Limit Shared Mem" at. `None` where it is not known: other compute capabilities
/// than 9.0 (not measured), a carveout preference other than the default (see below), a
/// launch that cannot run.
///
/// With the default preference the driver does not take the largest carveout (228 KiB on
/// sm_90): it takes a small one that still holds the launch's resident blocks, with room
/// to spare. Measured with Nsight Compute 2025.3 on an H200 (driver 580) over 893 launches
/// of the default preference (`scripts/gpu/smem_config.py`, the examples and
/// `scripts/gpu/lint_effect.py`; `tests/data/h200/ncu/`); this rule gives the reported size
/// for 891 of them. With `B` = [`occupancy`]'s resident blocks (at the largest carveout),
/// `S` = its shared memory per block (static + dynamic + the 1 KiB reserve, rounded to
/// 128 B) and `carveout(x)` = [`Arch::carveout_for`]:
///
/// - a kernel without static or dynamic shared memory: `carveout(N x S)`, `N` =
///   min(28, 4096 / threads per block), twice that for blocks of 640 threads or fewer that
///   are 2 or more per SM (32 KiB for blocks of 384 threads or fewer, 16 KiB for 512, 8 KiB
///   for 768 to 1024);
/// - shared memory limits the resident blocks: `carveout(B x S)`, the smallest that holds
///   them;
/// - otherwise room for about twice the resident blocks, but not above 132 KiB unless the
///   blocks need it: `max(carveout(B x S), min(carveout(N x S), 132 KiB))`, `N` = min(2 x B,
///   24 + B / 4), or `N` = B for one resident block or blocks of more than 896 threads.
///
/// The two launches it misses: 16 resident blocks of 64 and 96 threads with 128 B of static
/// shared memory (64 KiB reported, 32 KiB given); the same blocks of 128 threads get 32 KiB.
///
/// An explicit carveout preference is not modelled: the launches measured with 0 to 100%
/// got the preference snapped up to a supported carveout, grown to hold one block (as
/// [`occupancy`] models it and `cuOccupancyMaxActiveBlocksPerMultiprocessor` answers) for
/// most sizes, but a larger one for small blocks of 3 KiB (64 KiB for a 10% preference, for
/// which the occupancy API answers at 32 KiB), so the launch can hold more blocks than the
/// occupancy API says.
///
/// # Errors
///
/// As [`occupancy`].
pub fn launch_carveout_bytes(
    arch: &Arch,
    kernel: &Kernel,
    launch: &Launch,
) -> Result<Option<u32>, OccupancyError> {
    let occ = occupancy(arch, kernel, launch)?;
    if !(arch.cc.major == 9 && arch.cc.minor == 0)
        || kernel.carveout != Carveout::Default
        || occ.blocks_per_sm == 0
    {
        return Ok(None);
    }
    let blocks = occ.blocks_per_sm as u64;
    let per_block = occ.smem_per_block_bytes;
    let threads = occ.threads_per_block as u64;
    let carveout = |bytes: u64| {
        u32::try_from(bytes)
            .ok()
            .and_then(|b| arch.carveout_for(b))
            .unwrap_or(arch.smem_per_sm_bytes)
    };
    let holding_blocks = carveout(blocks * per_block);
    let data = kernel.static_smem_bytes as u64 + launch.dynamic_smem_bytes as u64;
    if data == 0 {
        let doubled = if threads <= 640 && blocks >= 2 { 2 } else { 1 };
        let n = (doubled * 4096 / threads).min(28);
        return Ok(Some(holding_blocks.max(carveout(n * per_block))));
    }
    if occ.limits.shared_memory <= occ.blocks_per_sm {
        return Ok(Some(holding_blocks));
    }
    let n = if blocks == 1 || threads > 896 {
        blocks
    } else {
        (2 * blocks).min(24 + blocks / 4)
    };
    let capped = carveout(n * per_block).min(DEFAULT_CARVEOUT_ROOM_CAP_BYTES);
    Ok(Some(holding_blocks.max(capped)))
}

/// The largest carveout the driver takes for room beyond the resident blocks (see
/// [`launch_carveout_bytes`]; measured on an H200).
const DEFAULT_CARVEOUT_ROOM_CAP_BYTES: u32 = 132 * 1024;

/// The part of the calculation that depends on the kernel and the architecture alone,
/// prepared once for many launches: [`occupancy`] is `Prepared::new(arch, kernel)` then
/// [`Prepared::occupancy`]; a sweep over block sizes or shared memory sizes prepares once.
#[derive(Clone, Copy, Debug)]
pub struct Prepared<'a> {
    arch: &'a Arch,
    kernel: Kernel,
    /// Maximum resident warps per SM.
    max_warps: u32,
    /// Registers allocated per warp.
    regs_per_warp: u64,
    /// Whether the kernel's registers per thread exceed the architecture's.
    regs_over_limit: bool,
    /// Warps per sub-partition's registers (and for the cc 6.0 re-check).
    warps_per_sub_partition: u64,
    recheck_warps_per_sub_partition: u64,
    /// Static + reserved shared memory per block, bytes.
    smem_fixed_bytes: u64,
    /// The per-block shared memory limit, reserved included.
    smem_limit_per_block: u32,
    /// The carveout preference snapped to a supported size.
    preferred_smem_per_sm: u32,
    /// The barrier limit.
    barriers: u32,
}

impl<'a> Prepared<'a> {
    /// Checks the kernel's function attributes and prepares its launch-independent limits.
    ///
    /// # Errors
    ///
    /// [`OccupancyError::CarveoutOutOfRange`], [`OccupancyError::OptInOverLimit`],
    /// [`OccupancyError::ZeroMaxThreadsPerBlock`].
    #[inline(always)]
    pub const fn new(arch: &'a Arch, kernel: &Kernel) -> Result<Self, OccupancyError> {
        if let Err(e) = check_kernel(arch, kernel) {
            return Err(e);
        }
        let per_warp = regs_per_warp(arch, kernel.registers_per_thread);
        Ok(Self {
            arch,
            kernel: *kernel,
            max_warps: div_floor(arch.max_threads_per_sm as u64, arch.warp_size as u64) as u32,
            regs_per_warp: per_warp,
            regs_over_limit: kernel.registers_per_thread > arch.max_regs_per_thread,
            warps_per_sub_partition: warps_per_sub_partition(arch, per_warp, arch.sub_partitions),
            recheck_warps_per_sub_partition: warps_per_sub_partition(
                arch,
                per_warp,
                arch.register_recheck_sub_partitions,
            ),
            smem_fixed_bytes: kernel.static_smem_bytes as u64
                + arch.reserved_smem_per_block_bytes as u64,
            smem_limit_per_block: smem_limit_per_block(arch, kernel).0,
            preferred_smem_per_sm: preferred_smem_per_sm(arch, kernel.carveout),
            barriers: if arch.barriers_per_sm > 0 && kernel.barriers > 0 {
                div(arch.barriers_per_sm as u64, kernel.barriers as u64) as u32
            } else {
                UNLIMITED
            },
        })
    }

    /// The architecture this was prepared for.
    pub const fn arch(&self) -> &'a Arch {
        self.arch
    }

    /// The kernel this was prepared for.
    pub const fn kernel(&self) -> &Kernel {
        &self.kernel
    }

    /// The shared-memory limit on resident blocks and the shared memory per SM in effect.
    #[inline(always)]
    const fn smem_limit(&self, launch: &Launch, smem_per_block: u64) -> (u32, u32) {
        let preferred = self.preferred_smem_per_sm;
        if let Some(max_bytes) = self.kernel.max_dynamic_smem_bytes
            && launch.dynamic_smem_bytes > max_bytes
        {
            return (0, preferred);
        }
        if smem_per_block > self.smem_limit_per_block as u64 {
            return (0, preferred);
        }
        if smem_per_block == 0 {
            return (UNLIMITED, preferred);
        }
        // The carveout grows to the smallest size that holds one block.
        let smem_per_sm = if (preferred as u64) < smem_per_block {
            match self.arch.carveout_for(smem_per_block as u32) {
                Some(bytes) => bytes,
                None => self.arch.smem_per_sm_bytes,
            }
        } else {
            preferred
        };
        // Both are multiples of the granularity: divide in granules to keep the divisor small.
        let granule = self.arch.smem_alloc_granularity_bytes as u64;
        (
            sat(div(
                div_floor(smem_per_sm as u64, granule),
                div_floor(smem_per_block, granule),
            )),
            smem_per_sm,
        )
    }

    /// Resident blocks per SM for one launch of the prepared kernel (see [`occupancy`]).
    ///
    /// # Errors
    ///
    /// [`OccupancyError::EmptyBlock`].
    #[inline(always)]
    pub const fn occupancy(&self, launch: &Launch) -> Result<Occupancy, OccupancyError> {
        let (arch, kernel) = (self.arch, &self.kernel);
        let block = launch.block;
        if block.x == 0 || block.y == 0 || block.z == 0 {
            return Err(OccupancyError::EmptyBlock { block });
        }
        let threads = block.threads();
        let warps_per_block = div_ceil(threads, arch.warp_size as u64);
        let max_warps = self.max_warps;

        // 1. Warps (0 for a block over the thread or z-dimension limit).
        // The device's limit only: the driver's occupancy ignores the function's launch bounds.
        let warps = if threads > arch.max_threads_per_block as u64 || block.z > arch.max_block_dim_z
        {
            0
        } else {
            sat(div(max_warps as u64, warps_per_block))
        };

        // 2. Blocks.
        let blocks = arch.max_blocks_per_sm;

        // 3. Registers (cc 6.0: also as if GP10x).
        let per_warp = self.regs_per_warp;
        let mut registers = if self.regs_over_limit {
            0
        } else {
            register_limit(
                arch,
                per_warp,
                self.warps_per_sub_partition,
                warps_per_block,
                arch.sub_partitions,
            )
        };
        if registers > 0
            && arch.register_recheck_sub_partitions > 0
            && register_limit(
                arch,
                per_warp,
                self.recheck_warps_per_sub_partition,
                warps_per_block,
                arch.register_recheck_sub_partitions,
            ) == 0
        {
            registers = 0;
        }

        // 4. Shared memory.
        let smem_per_block = round_up(
            self.smem_fixed_bytes + launch.dynamic_smem_bytes as u64,
            arch.smem_alloc_granularity_bytes as u64,
        );
        let (shared_memory, smem_per_sm) = self.smem_limit(launch, smem_per_block);

        // 5. Barriers (cc 9.0+).
        let barriers = self.barriers;

        let limits = BlockLimits {
            warps,
            registers,
            shared_memory,
            blocks,
            barriers,
        };
        let before_barriers = min(min(warps, registers), min(shared_memory, blocks));
        let blocks_per_sm = min(before_barriers, barriers);
        let mut limiters = Limiters::EMPTY;
        if warps == before_barriers {
            limiters = limiters.with(Resource::Warps);
        }
        if registers == before_barriers {
            limiters = limiters.with(Resource::Registers);
        }
        if shared_memory == before_barriers {
            limiters = limiters.with(Resource::SharedMemory);
        }
        if blocks == before_barriers {
            limiters = limiters.with(Resource::Blocks);
        }
        if barriers == blocks_per_sm {
            limiters = limiters.with(Resource::Barriers);
        }
        Ok(Occupancy {
            blocks_per_sm,
            threads_per_block: sat(threads),
            warps_per_block: sat(warps_per_block),
            max_warps_per_sm: max_warps,
            limits,
            limiters,
            registers_per_warp: sat(per_warp),
            registers_per_block: per_warp.saturating_mul(warps_per_block),
            smem_per_block_bytes: smem_per_block,
            smem_per_sm_bytes: smem_per_sm,
            zero_reason: if blocks_per_sm == 0 {
                Some(explain_zero(arch, kernel, launch, &limits, smem_per_block))
            } else {
                None
            },
        })
    }
}

/// The block size with the highest occupancy, what `cuOccupancyMaxPotentialBlockSize` and
/// `cudaOccMaxPotentialOccupancyBlockSize` answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PotentialBlockSize {
    /// Threads per block (1-D).
    pub block_size: u32,
    /// Resident blocks per SM at that block size.
    pub blocks_per_sm: u32,
    /// The smallest grid that fills every SM once: blocks per SM x SM count.
    pub min_grid_size: u32,
}

/// The block size that maximises resident threads per SM, searching multiples of 32 from the
/// largest allowed size (device or launch-bounds limit) down, keeping the largest block on
/// ties and stopping once occupancy reaches 100%; the same search as the driver's
/// `cuOccupancyMaxPotentialBlockSize`. `dynamic_smem(block_size)` gives the dynamic shared
/// memory per block, bytes, for each candidate (`|_| 0` for none).
///
/// # Errors
///
/// As [`occupancy`]. A kernel that fits at no block size gives `block_size` 0.
pub fn max_potential_block_size(
    arch: &Arch,
    kernel: &Kernel,
    sm_count: u32,
    dynamic_smem: impl Fn(u32) -> u32,
) -> Result<PotentialBlockSize, OccupancyError> {
    let prepared = Prepared::new(arch, kernel)?;
    let limit = kernel.thread_limit(arch);
    let granularity = arch.warp_size;
    let mut best = PotentialBlockSize {
        block_size: 0,
        blocks_per_sm: 0,
        min_grid_size: 0,
    };
    let mut best_threads = 0u32;
    let mut aligned = limit.div_ceil(granularity) * granularity;
    while aligned > 0 {
        let block_size = min(limit, aligned);
        let launch =
            Launch::new(BlockDim::linear(block_size)).with_dynamic_smem(dynamic_smem(block_size));
        let occ = prepared.occupancy(&launch)?;
        let threads = occ.active_threads_per_sm();
        if threads > best_threads {
            best_threads = threads;
            best = PotentialBlockSize {
                block_size,
                blocks_per_sm: occ.blocks_per_sm,
                min_grid_size: occ.blocks_per_sm.saturating_mul(sm_count),
            };
        }
        if best_threads == arch.max_threads_per_sm {
            break;
        }
        aligned -= granularity;
    }
    Ok(best)
}

/// The most dynamic shared memory per block, bytes, with which `blocks_per_sm` blocks of
/// `block` threads are still resident together: the value a launch can really use.
///
/// `cuOccupancyAvailableDynamicSMemPerBlock` on the H200 (driver 580) answers 1 KiB more
/// than this whenever `blocks_per_sm` >= 2: it does not subtract the 1 KiB reserved per
/// block, and a launch with its answer fits one block fewer. This function answers what
/// launches (as `cuda_occupancy.h` of CUDA 13.x does), found as the largest value for which
/// [`occupancy`] still gives `blocks_per_sm`, capped by the function's dynamic limit (the
/// opt-in, or 48 KiB minus static).
///
/// # Errors
///
/// As [`occupancy`]; [`OccupancyError::NoBlocksWanted`] for 0 blocks;
/// [`OccupancyError::BlocksDoNotFit`] when even no dynamic shared memory gives fewer blocks.
pub const fn available_dynamic_smem(
    arch: &Arch,
    kernel: &Kernel,
    block: BlockDim,
    blocks_per_sm: u32,
) -> Result<u32, OccupancyError> {
    if blocks_per_sm == 0 {
        return Err(OccupancyError::NoBlocksWanted);
    }
    match occupancy(arch, kernel, &Launch::new(block)) {
        Ok(occ) if occ.blocks_per_sm < blocks_per_sm => {
            return Err(OccupancyError::BlocksDoNotFit {
                wanted: blocks_per_sm,
                possible: occ.blocks_per_sm,
            });
        }
        Ok(_) => {}
        Err(e) => return Err(e),
    }
    let max_dynamic = match kernel.max_dynamic_smem_bytes {
        Some(bytes) => bytes,
        None => arch
            .smem_per_block_default_bytes
            .saturating_sub(kernel.static_smem_bytes),
    };
    // Largest `bytes` in 0..=max_dynamic with fits(bytes); fits is monotone and fits(0) holds.
    let (mut lo, mut hi) = (0u32, max_dynamic);
    while lo < hi {
        let mid = lo + (hi - lo).div_ceil(2);
        match fits(arch, kernel, block, mid, blocks_per_sm) {
            Ok(true) => lo = mid,
            Ok(false) => hi = mid - 1,
            Err(e) => return Err(e),
        }
    }
    Ok(lo)
}

/// Whether `blocks_per_sm` blocks fit with `dynamic_bytes` of dynamic shared memory each.
const fn fits(
    arch: &Arch,
    kernel: &Kernel,
    block: BlockDim,
    dynamic_bytes: u32,
    blocks_per_sm: u32,
) -> Result<bool, OccupancyError> {
    match occupancy(
        arch,
        kernel,
        &Launch::new(block).with_dynamic_smem(dynamic_bytes),
    ) {
        Ok(occ) => Ok(occ.blocks_per_sm >= blocks_per_sm),
        Err(e) => Err(e),
    }
}
