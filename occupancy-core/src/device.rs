//! Live-device support (feature `cudarc`): the limits of a real GPU, a kernel's attributes
//! from the driver, and a run-time check of the engine against
//! `cuOccupancyMaxActiveBlocksPerMultiprocessor`.
//!
//! For launch wrappers whose configuration is only known at run time: the attribute checks
//! what it can at compile time, and [`check_launch`] compares the engine with the driver
//! for the configuration actually launched.

use std::fmt;

use cudarc::driver::sys::{self, CUdevice_attribute, CUfunction_attribute};
use cudarc::driver::{CudaContext, CudaFunction, DriverError, LaunchConfig, result};

use crate::arch::{Arch, ComputeCapability};
use crate::occupancy::{BlockDim, Carveout, Kernel, Launch, Occupancy, OccupancyError, occupancy};

/// A GPU as its driver describes it.
#[derive(Clone, Debug, PartialEq)]
pub struct DeviceGpu {
    /// `cuDeviceGetName`.
    pub name: String,
    /// The engine's limits for the device: the [`crate::arch::ARCHS`] row of its compute
    /// capability, with every limit the driver reports replaced by the driver's value.
    pub arch: Arch,
    /// `CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT`.
    pub sm_count: u32,
    /// Limits where the driver and the table disagree (empty when the table is right).
    pub table_mismatches: Vec<LimitMismatch>,
}

/// A limit on which the driver and the arch table disagree.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LimitMismatch {
    /// The [`Arch`] field.
    pub limit: &'static str,
    /// The table's value.
    pub table: u32,
    /// The driver's value.
    pub device: u32,
}

/// Errors of the live-device functions.
#[derive(Debug)]
pub enum DeviceError {
    /// A CUDA driver call failed.
    Driver(DriverError),
    /// The device's compute capability is not in [`crate::arch::ARCHS`].
    UnknownComputeCapability(ComputeCapability),
    /// The engine refused the configuration.
    Occupancy(OccupancyError),
}

impl fmt::Display for DeviceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Driver(e) => write!(f, "CUDA driver error: {e:?}"),
            Self::UnknownComputeCapability(cc) => {
                write!(
                    f,
                    "compute capability {cc} is not in the arch table; update occupancy-core"
                )
            }
            Self::Occupancy(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for DeviceError {}

impl From<DriverError> for DeviceError {
    fn from(e: DriverError) -> Self {
        Self::Driver(e)
    }
}

impl From<OccupancyError> for DeviceError {
    fn from(e: OccupancyError) -> Self {
        Self::Occupancy(e)
    }
}

fn attribute(device: sys::CUdevice, attribute: CUdevice_attribute) -> Result<u32, DriverError> {
    // SAFETY: `device` is a valid device handle from the driver; the call only reads.
    let value = unsafe { result::device::get_attribute(device, attribute) }?;
    Ok(u32::try_from(value).unwrap_or(0))
}

impl DeviceGpu {
    /// Reads the GPU of `ctx`.
    ///
    /// # Errors
    ///
    /// [`DeviceError::Driver`] if an attribute query fails,
    /// [`DeviceError::UnknownComputeCapability`] for a cc the table lacks.
    pub fn from_context(ctx: &CudaContext) -> Result<Self, DeviceError> {
        ctx.bind_to_thread()?;
        let name = ctx.name()?;
        Self::from_device(ctx.cu_device(), name)
    }

    fn from_device(device: sys::CUdevice, name: String) -> Result<Self, DeviceError> {
        use CUdevice_attribute::*;
        let get = |a| attribute(device, a);
        let cc = ComputeCapability::new(
            get(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR)? as u8,
            get(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR)? as u8,
        );
        let table = *Arch::from_cc(cc).ok_or(DeviceError::UnknownComputeCapability(cc))?;
        let mut arch = table;
        let mut table_mismatches = Vec::new();
        let live: [(&'static str, &mut u32, CUdevice_attribute); 11] = [
            (
                "warp_size",
                &mut arch.warp_size,
                CU_DEVICE_ATTRIBUTE_WARP_SIZE,
            ),
            (
                "max_threads_per_sm",
                &mut arch.max_threads_per_sm,
                CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR,
            ),
            (
                "max_blocks_per_sm",
                &mut arch.max_blocks_per_sm,
                CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR,
            ),
            (
                "max_threads_per_block",
                &mut arch.max_threads_per_block,
                CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK,
            ),
            (
                "max_block_dim_z",
                &mut arch.max_block_dim_z,
                CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z,
            ),
            (
                "regs_per_sm",
                &mut arch.regs_per_sm,
                CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR,
            ),
            (
                "max_regs_per_block",
                &mut arch.max_regs_per_block,
                CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK,
            ),
            (
                "smem_per_sm_bytes",
                &mut arch.smem_per_sm_bytes,
                CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR,
            ),
            (
                "smem_per_block_default_bytes",
                &mut arch.smem_per_block_default_bytes,
                CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK,
            ),
            (
                "smem_per_block_optin_bytes",
                &mut arch.smem_per_block_optin_bytes,
                CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
            ),
            (
                "reserved_smem_per_block_bytes",
                &mut arch.reserved_smem_per_block_bytes,
                CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK,
            ),
        ];
        for (limit, field, attr) in live {
            let device_value = get(attr)?;
            if device_value != *field {
                table_mismatches.push(LimitMismatch {
                    limit,
                    table: *field,
                    device: device_value,
                });
                *field = device_value;
            }
        }
        let sm_count = get(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)?;
        Ok(Self {
            name,
            arch,
            sm_count,
            table_mismatches,
        })
    }
}

fn function_attribute(
    func: &CudaFunction,
    attribute: CUfunction_attribute,
) -> Result<i32, DriverError> {
    func.get_attribute(attribute)
}

/// The engine's [`Kernel`] for a loaded function on a GPU of `arch`, from the driver's
/// attributes: `NUM_REGS`, `SHARED_SIZE_BYTES`, `MAX_THREADS_PER_BLOCK`,
/// `MAX_DYNAMIC_SHARED_SIZE_BYTES` ([`Kernel::with_max_dynamic_smem_attribute`]) and
/// `PREFERRED_SHARED_MEMORY_CARVEOUT`.
///
/// The driver has no attribute for named barriers: `barriers` is 1 (only `__syncthreads`);
/// set it from the cubin (`crate::resources`) for kernels with named barriers on cc 9.0+.
///
/// # Errors
///
/// [`DeviceError::Driver`] if an attribute query fails; [`DeviceError::Occupancy`] for a
/// carveout outside -1..=100.
pub fn kernel_of(func: &CudaFunction, arch: &Arch) -> Result<Kernel, DeviceError> {
    use CUfunction_attribute::*;
    let get = |a| function_attribute(func, a);
    let non_negative = |v: i32| u32::try_from(v).unwrap_or(0);
    let carveout =
        Carveout::from_attribute(get(CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT)?)?;
    Ok(Kernel::new(non_negative(get(CU_FUNC_ATTRIBUTE_NUM_REGS)?))
        .with_static_smem(non_negative(get(CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES)?))
        .with_max_threads(non_negative(get(CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK)?))
        .with_max_dynamic_smem_attribute(
            arch,
            non_negative(get(CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES)?),
        )
        .with_carveout(carveout))
}

/// The engine's answer and the driver's for one launch.
#[derive(Clone, Debug, PartialEq)]
pub struct LaunchCheck {
    /// The device the check ran on.
    pub gpu: DeviceGpu,
    /// The engine's occupancy for the launch.
    pub engine: Occupancy,
    /// `cuOccupancyMaxActiveBlocksPerMultiprocessor` for the same function, block size and
    /// dynamic shared memory.
    pub driver_blocks_per_sm: u32,
}

impl LaunchCheck {
    /// Whether the engine and the driver agree on resident blocks per SM.
    pub fn agrees(&self) -> bool {
        self.engine.blocks_per_sm == self.driver_blocks_per_sm
    }
}

/// Compares the engine with the driver for `func` launched as `cfg` on the current device,
/// with the function's resources read from the driver ([`kernel_of`]).
///
/// # Errors
///
/// As [`check_launch_with`].
pub fn check_launch(func: &CudaFunction, cfg: &LaunchConfig) -> Result<LaunchCheck, DeviceError> {
    let gpu = function_gpu(func)?;
    let kernel = kernel_of(func, &gpu.arch)?;
    compare(gpu, func, cfg, &kernel)
}

/// [`check_launch`] with the kernel's resources given (e.g. read from its cubin, which also
/// knows its named barriers).
///
/// # Errors
///
/// [`DeviceError::Driver`] if a driver call fails, [`DeviceError::UnknownComputeCapability`]
/// for a device the table lacks, [`DeviceError::Occupancy`] if the engine refuses the input.
pub fn check_launch_with(
    func: &CudaFunction,
    cfg: &LaunchConfig,
    kernel: Kernel,
) -> Result<LaunchCheck, DeviceError> {
    compare(function_gpu(func)?, func, cfg, &kernel)
}

/// The GPU `func` was loaded on.
fn function_gpu(func: &CudaFunction) -> Result<DeviceGpu, DeviceError> {
    // `get_attribute` binds the function's context to this thread; ask it for its device.
    function_attribute(func, CUfunction_attribute::CU_FUNC_ATTRIBUTE_NUM_REGS)?;
    let mut device: sys::CUdevice = 0;
    // SAFETY: a context is current on this thread (bound above); `device` is a valid out pointer.
    unsafe { sys::cuCtxGetDevice(&mut device) }.result()?;
    let mut name = [0 as std::ffi::c_char; 256];
    // SAFETY: `name` holds 256 bytes as the length says; the driver NUL-terminates it.
    unsafe { sys::cuDeviceGetName(name.as_mut_ptr(), name.len() as i32, device) }.result()?;
    // SAFETY: NUL-terminated by the driver within the buffer.
    let name = unsafe { std::ffi::CStr::from_ptr(name.as_ptr()) }
        .to_string_lossy()
        .into_owned();
    DeviceGpu::from_device(device, name)
}

/// The engine's answer and the driver's for `func` launched as `cfg` on `gpu`.
fn compare(
    gpu: DeviceGpu,
    func: &CudaFunction,
    cfg: &LaunchConfig,
    kernel: &Kernel,
) -> Result<LaunchCheck, DeviceError> {
    let (x, y, z) = cfg.block_dim;
    let launch = Launch::new(BlockDim::new(x, y, z)).with_dynamic_smem(cfg.shared_mem_bytes);
    let engine = occupancy(&gpu.arch, kernel, &launch)?;
    let driver_blocks_per_sm = func.occupancy_max_active_blocks_per_multiprocessor(
        x * y * z,
        cfg.shared_mem_bytes as usize,
        None,
    )?;
    Ok(LaunchCheck {
        gpu,
        engine,
        driver_blocks_per_sm,
    })
}
