//! The device side of the examples: finding a GPU, loading the embedded kernels, reporting
//! a launch's occupancy (the engine's answer next to the driver's) and the `main` every
//! example shares ([`run`]).

use std::fmt;
use std::process::ExitCode;
use std::sync::{Arc, OnceLock};

use cudarc::driver::sys::{CUdevice_attribute, CUfunction_attribute};
use cudarc::driver::{
    CudaContext, CudaFunction, CudaModule, CudaStream, DriverError, LaunchConfig, sys,
};
use cudarc::nvrtc::Ptx;
use occupancy_core::arch::{Arch, ComputeCapability};
use occupancy_core::occupancy::{
    BlockDim, Carveout, Kernel, Launch, Occupancy, OccupancyError, occupancy,
};
use occupancy_core::resources::manifest::Manifest;

use crate::check::Comparison;
use crate::kernels;

/// What can go wrong on the GPU path.
#[derive(Debug)]
pub enum HarnessError {
    /// A CUDA driver call failed.
    Driver(DriverError),
    /// The build script found no NVRTC, so no kernel is embedded.
    NotCompiled,
    /// Neither a cubin for the device's architecture nor PTX was embedded for a `.cu` file.
    NoArtifact {
        /// The `.cu` file stem.
        stem: String,
        /// The device's `sm_XY`.
        sm: String,
    },
    /// The engine has no table for the device's compute capability.
    UnknownArch(ComputeCapability),
    /// The engine refused the launch (see [`OccupancyError`]).
    Engine(OccupancyError),
    /// The driver gave a function attribute out of range.
    Attribute {
        /// The attribute.
        name: &'static str,
        /// Its value.
        value: i32,
    },
}

impl fmt::Display for HarnessError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Driver(e) => write!(f, "CUDA driver: {e}"),
            Self::NotCompiled => f.write_str(
                "no kernels are embedded in this binary: the build found no NVRTC. Rebuild \
                 where libnvrtc is available (pip install nvidia-cuda-nvrtc-cu12)",
            ),
            Self::NoArtifact { stem, sm } => {
                write!(
                    f,
                    "no cubin for {sm} and no PTX embedded for kernels/{stem}.cu"
                )
            }
            Self::UnknownArch(cc) => {
                write!(f, "the engine has no table for compute capability {cc}")
            }
            Self::Engine(e) => write!(f, "occupancy engine: {e}"),
            Self::Attribute { name, value } => {
                write!(f, "driver attribute {name} = {value} is out of range")
            }
        }
    }
}

impl std::error::Error for HarnessError {}

impl From<DriverError> for HarnessError {
    fn from(e: DriverError) -> Self {
        Self::Driver(e)
    }
}

impl From<OccupancyError> for HarnessError {
    fn from(e: OccupancyError) -> Self {
        Self::Engine(e)
    }
}

/// A GPU, or why there is none.
pub enum Device {
    /// The first CUDA device, with a context and a stream.
    Gpu(Gpu),
    /// No usable GPU: the reason, for the user.
    Missing(String),
}

/// Opens the first CUDA device. No driver library, or a driver with no device, is
/// [`Device::Missing`], not an error.
///
/// # Errors
///
/// A driver call failing on a present device, or a device whose compute capability the
/// engine does not know.
pub fn open() -> Result<Device, HarnessError> {
    // SAFETY: only tries to load libcuda with dlopen; no CUDA function is called.
    if !unsafe { sys::is_culib_present() } {
        return Ok(Device::Missing(
            "the CUDA driver library (libcuda.so) could not be loaded".to_owned(),
        ));
    }
    match CudaContext::device_count() {
        Err(e) => return Ok(Device::Missing(format!("cuInit failed: {e}"))),
        Ok(0) => {
            return Ok(Device::Missing(
                "the CUDA driver reports no device".to_owned(),
            ));
        }
        Ok(_) => {}
    }
    let ctx = CudaContext::new(0)?;
    let (major, minor) = ctx.compute_capability()?;
    let cc = ComputeCapability::new(
        u8::try_from(major).map_err(|_| HarnessError::Attribute {
            name: "COMPUTE_CAPABILITY_MAJOR",
            value: major,
        })?,
        u8::try_from(minor).map_err(|_| HarnessError::Attribute {
            name: "COMPUTE_CAPABILITY_MINOR",
            value: minor,
        })?,
    );
    let arch = Arch::from_cc(cc).ok_or(HarnessError::UnknownArch(cc))?;
    let sm_count = ctx.attribute(CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)?;
    let sm_count = non_negative("MULTIPROCESSOR_COUNT", sm_count)?;
    let mut driver_version = 0;
    // SAFETY: writes one int.
    unsafe { sys::cuDriverGetVersion(&mut driver_version) }.result()?;
    Ok(Device::Gpu(Gpu {
        name: ctx.name()?,
        stream: ctx.default_stream(),
        ctx,
        arch,
        cubin_sm: cubin_target(cc),
        sm_count,
        driver_version,
    }))
}

/// The embedded cubin target the driver can run on `cc`, as it would pick one from a
/// fatbin: the exact `sm_XY`, else the highest target of the same major version not above
/// it (an `sm_80` cubin runs on 8.6). `None`: only PTX can run there.
pub fn cubin_target(cc: ComputeCapability) -> Option<&'static str> {
    let number = |t: &str| t.strip_prefix("sm_").and_then(|n| n.parse::<u32>().ok());
    let device = cc.sm_number();
    kernels::TARGETS
        .iter()
        .copied()
        .filter_map(|t| Some((t, number(t)?)))
        .filter(|&(_, n)| n / 10 == device / 10 && n <= device)
        .max_by_key(|&(_, n)| n)
        .map(|(t, _)| t)
}

/// The resource manifest the build used (NVRTC's, or the committed fallback); `None` if it
/// does not parse (then a message is printed once).
pub fn manifest() -> Option<&'static Manifest> {
    static MANIFEST: OnceLock<Option<Manifest>> = OnceLock::new();
    MANIFEST
        .get_or_init(|| match Manifest::from_json(kernels::MANIFEST) {
            Ok(m) => Some(m),
            Err(e) => {
                println!("  (the embedded resource manifest does not parse: {e})");
                None
            }
        })
        .as_ref()
}

fn non_negative(name: &'static str, value: i32) -> Result<u32, HarnessError> {
    u32::try_from(value).map_err(|_| HarnessError::Attribute { name, value })
}

/// The first CUDA device: context, default stream and the facts the examples print.
pub struct Gpu {
    ctx: Arc<CudaContext>,
    stream: Arc<CudaStream>,
    /// Device name, e.g. `NVIDIA H200`.
    pub name: String,
    /// The engine's table for the device's compute capability.
    pub arch: &'static Arch,
    /// The embedded cubin target loaded on this device ([`cubin_target`]); `None`: PTX.
    pub cubin_sm: Option<&'static str>,
    /// SMs on the device.
    pub sm_count: u32,
    /// The driver's CUDA version, e.g. 13000 for 13.0.
    pub driver_version: i32,
}

impl fmt::Display for Gpu {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} (compute capability {}, {} SMs, driver CUDA {}.{})",
            self.name,
            self.arch.cc,
            self.sm_count,
            self.driver_version / 1000,
            self.driver_version % 1000 / 10
        )
    }
}

/// Where a loaded module came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Artifact {
    /// The cubin compiled at build time for the device's `sm_XY`.
    Cubin(&'static str),
    /// PTX, compiled for the device by the driver's JIT (registers may differ from the
    /// build-time resources).
    Ptx,
}

impl fmt::Display for Artifact {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Cubin(sm) => write!(f, "the {sm} cubin"),
            Self::Ptx => f.write_str("PTX (JIT-compiled by the driver)"),
        }
    }
}

impl Gpu {
    /// The device's context.
    pub fn context(&self) -> &Arc<CudaContext> {
        &self.ctx
    }

    /// The stream every example launches on.
    pub fn stream(&self) -> &Arc<CudaStream> {
        &self.stream
    }

    /// Loads `kernels/<stem>.cu`: the cubin the driver can run on this device
    /// ([`cubin_target`]) if the build compiled one, else the PTX.
    ///
    /// # Errors
    ///
    /// [`HarnessError::NotCompiled`], [`HarnessError::NoArtifact`], or the driver's error.
    pub fn load(&self, stem: &str) -> Result<(Arc<CudaModule>, Artifact), HarnessError> {
        if !kernels::COMPILED {
            return Err(HarnessError::NotCompiled);
        }
        if let Some(sm) = self.cubin_sm
            && let Some(cubin) = kernels::cubin(stem, sm)
        {
            let module = self.ctx.load_module(Ptx::from_binary(cubin.to_vec()))?;
            return Ok((module, Artifact::Cubin(sm)));
        }
        if let Some(ptx) = kernels::ptx(stem) {
            let module = self.ctx.load_module(Ptx::from_src(ptx))?;
            return Ok((module, Artifact::Ptx));
        }
        Err(HarnessError::NoArtifact {
            stem: stem.to_owned(),
            sm: self.arch.sm.to_owned(),
        })
    }

    /// A grid that fills the GPU once: resident blocks per SM (the driver's answer) times
    /// the SM count, but no more than `work_blocks` and at least 1. For grid-stride kernels.
    ///
    /// # Errors
    ///
    /// The driver's error.
    pub fn resident_grid(
        &self,
        func: &CudaFunction,
        block_threads: u32,
        dynamic_smem_bytes: u32,
        work_blocks: u64,
    ) -> Result<u32, HarnessError> {
        let per_sm = func.occupancy_max_active_blocks_per_multiprocessor(
            block_threads,
            dynamic_smem_bytes as usize,
            None,
        )?;
        let full = u64::from(per_sm.max(1)) * u64::from(self.sm_count);
        Ok(full.min(work_blocks).max(1).min(u64::from(u32::MAX)) as u32)
    }

    /// The occupancy of `func` launched as `config`: computed by the engine from the
    /// function's attributes as the driver reports them (registers, static shared memory,
    /// max threads per block, dynamic shared memory opt-in, carveout), and answered by the
    /// driver (`cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags`, default flags).
    ///
    /// # Errors
    ///
    /// The driver's error, an attribute out of range, or the engine refusing the launch.
    pub fn launch_report(
        &self,
        func: &CudaFunction,
        kernel: &str,
        config: &LaunchConfig,
    ) -> Result<LaunchReport, HarnessError> {
        let attr = |a: CUfunction_attribute, name: &'static str| -> Result<u32, HarnessError> {
            non_negative(name, func.get_attribute(a)?)
        };
        let resources = FunctionResources {
            registers_per_thread: attr(
                CUfunction_attribute::CU_FUNC_ATTRIBUTE_NUM_REGS,
                "NUM_REGS",
            )?,
            static_smem_bytes: attr(
                CUfunction_attribute::CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES,
                "SHARED_SIZE_BYTES",
            )?,
            local_bytes: attr(
                CUfunction_attribute::CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES,
                "LOCAL_SIZE_BYTES",
            )?,
            max_threads_per_block: attr(
                CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK,
                "MAX_THREADS_PER_BLOCK",
            )?,
            max_dynamic_smem_bytes: attr(
                CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                "MAX_DYNAMIC_SHARED_SIZE_BYTES",
            )?,
            carveout: Carveout::from_attribute(func.get_attribute(
                CUfunction_attribute::CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT,
            )?)?,
        };
        let build = match (self.cubin_sm, manifest()) {
            (Some(sm), Some(m)) => m.lookup(kernel, sm).ok().map(|k| BuildResources {
                sm,
                registers_per_thread: k.registers_per_thread,
                static_smem_bytes: k.static_smem_bytes,
                barriers: k.barriers,
            }),
            _ => None,
        };
        let mut kernel_model = resources.kernel(self.arch);
        // The driver does not report barriers; the cubin does.
        if let Some(barriers) = build.and_then(|b| b.barriers) {
            kernel_model = kernel_model.with_barriers(barriers);
        }
        let (x, y, z) = config.block_dim;
        let launch = Launch::new(BlockDim::new(x, y, z)).with_dynamic_smem(config.shared_mem_bytes);
        let engine = occupancy(self.arch, &kernel_model, &launch)?;
        let driver_blocks_per_sm = func.occupancy_max_active_blocks_per_multiprocessor(
            x * y * z,
            config.shared_mem_bytes as usize,
            None,
        )?;
        Ok(LaunchReport {
            kernel: kernel.to_owned(),
            config: *config,
            resources,
            build,
            engine,
            driver_blocks_per_sm,
            sm_count: self.sm_count,
        })
    }
}

/// A loaded function's resources and attributes, as the driver reports them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FunctionResources {
    /// `CU_FUNC_ATTRIBUTE_NUM_REGS`.
    pub registers_per_thread: u32,
    /// `CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES`: static shared memory, bytes.
    pub static_smem_bytes: u32,
    /// `CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES`: local memory per thread (stack, spills), bytes.
    pub local_bytes: u32,
    /// `CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK`: the smaller of the launch bounds, the
    /// device limit and what the register count allows.
    pub max_threads_per_block: u32,
    /// `CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES`: 48 KiB minus the static shared
    /// memory unless the launch code raised it (the opt-in), bytes.
    pub max_dynamic_smem_bytes: u32,
    /// `CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT`.
    pub carveout: Carveout,
}

impl FunctionResources {
    /// The engine's kernel model. The opt-in is set only when the attribute exceeds its
    /// default (48 KiB minus static), i.e. when the launch code opted in. Barriers are the
    /// engine's default, 1 (`__syncthreads` only): the driver does not report them
    /// ([`Gpu::launch_report`] takes them from the build manifest when it has them).
    pub fn kernel(&self, arch: &Arch) -> Kernel {
        Kernel::new(self.registers_per_thread)
            .with_static_smem(self.static_smem_bytes)
            .with_max_threads(self.max_threads_per_block)
            .with_max_dynamic_smem_attribute(arch, self.max_dynamic_smem_bytes)
            .with_carveout(self.carveout)
    }
}

/// A kernel's resources in the build's manifest, for the cubin loaded on the device.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BuildResources {
    /// The cubin's target.
    pub sm: &'static str,
    /// Registers per thread the resource reader found in the cubin.
    pub registers_per_thread: u32,
    /// Static shared memory, bytes, the resource reader found in the cubin.
    pub static_smem_bytes: u32,
    /// Block barriers the cubin records (highest id + 1), if it does.
    pub barriers: Option<u32>,
}

/// One launch: configuration, resources, and the occupancy from the engine and the driver.
#[derive(Clone, Debug)]
pub struct LaunchReport {
    /// Kernel name.
    pub kernel: String,
    /// Grid, block and dynamic shared memory of the launch.
    pub config: LaunchConfig,
    /// The function's resources as the driver reports them.
    pub resources: FunctionResources,
    /// The same kernel's resources in the build's manifest (what the attribute macro reads),
    /// when the module was loaded from a cubin.
    pub build: Option<BuildResources>,
    /// The engine's answer.
    pub engine: Occupancy,
    /// `cuOccupancyMaxActiveBlocksPerMultiprocessor`'s answer.
    pub driver_blocks_per_sm: u32,
    /// SMs on the device.
    pub sm_count: u32,
}

impl LaunchReport {
    /// Whether the engine's resident blocks per SM equal the driver's.
    pub fn agrees(&self) -> bool {
        self.engine.blocks_per_sm == self.driver_blocks_per_sm
    }

    /// Whether the build manifest's registers and static shared memory equal the driver's
    /// (`true` when there is no manifest entry to compare).
    pub fn build_matches(&self) -> bool {
        self.build.is_none_or(|b| {
            b.registers_per_thread == self.resources.registers_per_thread
                && b.static_smem_bytes == self.resources.static_smem_bytes
        })
    }
}

fn dim3(d: (u32, u32, u32)) -> String {
    match d {
        (x, 1, 1) => x.to_string(),
        (x, y, 1) => format!("({x}, {y})"),
        (x, y, z) => format!("({x}, {y}, {z})"),
    }
}

impl fmt::Display for LaunchReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (c, r, e) = (&self.config, &self.resources, &self.engine);
        let grid_blocks =
            u64::from(c.grid_dim.0) * u64::from(c.grid_dim.1) * u64::from(c.grid_dim.2);
        writeln!(
            f,
            "  launch {}: grid {} x block {} ({} threads), {} B dynamic shared memory",
            self.kernel,
            dim3(c.grid_dim),
            dim3(c.block_dim),
            e.threads_per_block,
            c.shared_mem_bytes
        )?;
        writeln!(
            f,
            "    resources (driver): {} registers/thread, {} B static shared memory, {} B local, \
             max {} threads/block, max dynamic shared memory {} B, carveout {}",
            r.registers_per_thread,
            r.static_smem_bytes,
            r.local_bytes,
            r.max_threads_per_block,
            r.max_dynamic_smem_bytes,
            r.carveout.to_attribute()
        )?;
        if let Some(b) = self.build {
            writeln!(
                f,
                "    resources (build manifest, {} cubin): {} registers/thread, {} B static shared memory: {}",
                b.sm,
                b.registers_per_thread,
                b.static_smem_bytes,
                if self.build_matches() {
                    "same as the driver"
                } else {
                    "DIFFERENT from the driver"
                }
            )?;
        }
        let limiters = if e.blocks_per_sm == 0 {
            "nothing fits".to_owned()
        } else {
            e.limiters.to_string()
        };
        writeln!(
            f,
            "    engine: {} blocks/SM, {} of {} warps, {:.2}% occupancy (limited by {limiters}; \
             warps {} | registers {} | shared memory {} | blocks {})",
            e.blocks_per_sm,
            e.active_warps_per_sm(),
            e.max_warps_per_sm,
            e.percent(),
            e.limits.warps,
            e.limits.registers,
            fmt_limit(e.limits.shared_memory),
            e.limits.blocks,
        )?;
        let resident = u64::from(self.driver_blocks_per_sm) * u64::from(self.sm_count);
        let waves = if resident == 0 {
            f64::INFINITY
        } else {
            grid_blocks as f64 / resident as f64
        };
        write!(
            f,
            "    driver: {} blocks/SM (cuOccupancyMaxActiveBlocksPerMultiprocessor): {}; \
             grid = {:.2} waves of {} resident blocks",
            self.driver_blocks_per_sm,
            if self.agrees() {
                "agrees with the engine"
            } else {
                "DISAGREES with the engine"
            },
            waves,
            resident
        )
    }
}

fn fmt_limit(v: u32) -> String {
    if v == occupancy_core::occupancy::UNLIMITED {
        "-".to_owned()
    } else {
        v.to_string()
    }
}

/// Collects an example's results on the GPU and decides its exit status.
#[derive(Debug, Default)]
pub struct Report {
    failures: Vec<String>,
}

impl Report {
    /// Prints a launch report; an engine/driver disagreement is a failure.
    pub fn launch(&mut self, r: &LaunchReport) {
        println!("{r}");
        if !r.agrees() {
            self.failures.push(format!(
                "{}: engine {} blocks/SM, driver {}",
                r.kernel, r.engine.blocks_per_sm, r.driver_blocks_per_sm
            ));
        }
        if !r.build_matches() {
            self.failures.push(format!(
                "{}: build manifest resources {:?}, driver {:?}",
                r.kernel, r.build, r.resources
            ));
        }
    }

    /// Prints a comparison; a failed one is a failure.
    pub fn compare(&mut self, c: &Comparison) {
        println!("    {c}");
        if !c.passed() {
            self.failures.push(c.to_string());
        }
    }

    /// Prints a yes/no check; `false` is a failure.
    pub fn expect(&mut self, what: &str, ok: bool) {
        println!("    {what}: {}", if ok { "PASS" } else { "FAIL" });
        if !ok {
            self.failures.push(what.to_owned());
        }
    }

    /// Prints the verdict; `ExitCode::FAILURE` if anything failed.
    pub fn finish(self, example: &str) -> ExitCode {
        if self.failures.is_empty() {
            println!("{example}: PASS");
            ExitCode::SUCCESS
        } else {
            println!("{example}: FAIL");
            for f in &self.failures {
                println!("  - {f}");
            }
            ExitCode::FAILURE
        }
    }
}

/// The `main` of every example: on a GPU, `gpu` launches and checks; without one, `cpu`
/// runs the CPU reference and the example exits 0 saying that no GPU was found. (The
/// engine's occupancy of each wrapper on each target is what `#[occupancy::check]` prints
/// at build time, and `cargo occupancy report examples` lists: read from the wrappers' own
/// launch code, stated once.)
pub fn run(
    example: &str,
    cpu: impl FnOnce(),
    gpu: impl FnOnce(&Gpu, &mut Report) -> Result<(), HarnessError>,
) -> ExitCode {
    match open() {
        Ok(Device::Missing(why)) => {
            println!("{example}: no GPU found ({why}); running the CPU reference only");
            cpu();
            println!("{example}: CPU reference done; nothing was launched (no GPU)");
            ExitCode::SUCCESS
        }
        Ok(Device::Gpu(device)) => {
            println!("{example}: on {device}");
            let mut report = Report::default();
            let result = gpu(&device, &mut report);
            match result {
                Ok(()) => report.finish(example),
                Err(e) => {
                    println!("{example}: error: {e}");
                    ExitCode::FAILURE
                }
            }
        }
        Err(e) => {
            println!("{example}: error opening the GPU: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Runs `f`, printing how long it took: `label: <ms> ms`.
pub fn timed<T>(label: &str, f: impl FnOnce() -> T) -> T {
    let start = std::time::Instant::now();
    let out = f();
    println!("  {label}: {:.1} ms", start.elapsed().as_secs_f64() * 1e3);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use occupancy_core::arch::{SM_80, SM_90};

    #[test]
    fn cubin_target_follows_the_driver_compatibility_rule() {
        if !kernels::COMPILED {
            return; // built without NVRTC: TARGETS is empty, no cubin to choose
        }
        let t = |major, minor| cubin_target(ComputeCapability::new(major, minor));
        assert_eq!(t(9, 0), Some("sm_90"));
        assert_eq!(t(8, 6), Some("sm_86"));
        // Jetson Orin (8.7) runs the sm_86 cubin; GB300 (10.3) the sm_100 one; 12.1 sm_120.
        assert_eq!(t(8, 7), Some("sm_86"));
        assert_eq!(t(10, 3), Some("sm_100"));
        assert_eq!(t(12, 1), Some("sm_120"));
        // Nothing of the same major at or below: PTX only.
        assert_eq!(t(7, 0), None);
        assert_eq!(t(11, 0), None);
    }

    fn resources(static_smem_bytes: u32, max_dynamic_smem_bytes: u32) -> FunctionResources {
        FunctionResources {
            registers_per_thread: 24,
            static_smem_bytes,
            local_bytes: 0,
            max_threads_per_block: 1024,
            max_dynamic_smem_bytes,
            carveout: Carveout::Default,
        }
    }

    #[test]
    fn opt_in_only_when_the_attribute_was_raised() {
        // The driver's default is 48 KiB minus the static shared memory: not an opt-in.
        assert_eq!(
            resources(128, 49_152 - 128)
                .kernel(&SM_90)
                .max_dynamic_smem_bytes,
            None
        );
        assert_eq!(
            resources(128, 65_536).kernel(&SM_90).max_dynamic_smem_bytes,
            Some(65_536)
        );
    }

    #[test]
    fn softmax_cached_occupancy_from_driver_attributes() {
        // softmax_rows_cached on sm_90: 24 registers, 128 B static, 64 KiB dynamic with the
        // opt-in, 512 threads: 128 + 65536 + 1024 reserved = 66688 B per block, 3 fit in the
        // 228 KiB carveout: 3 x 16 = 48 of 64 warps.
        let k = resources(128, 65_536).kernel(&SM_90);
        let l = Launch::new(BlockDim::linear(512)).with_dynamic_smem(65_536);
        let o = occupancy(&SM_90, &k, &l).unwrap();
        assert_eq!(
            (
                o.blocks_per_sm,
                o.active_warps_per_sm(),
                o.smem_per_block_bytes
            ),
            (3, 48, 66_688)
        );
        // Without the opt-in the same launch cannot run.
        let o = occupancy(&SM_90, &resources(128, 49_152 - 128).kernel(&SM_90), &l).unwrap();
        assert_eq!(o.blocks_per_sm, 0);
        // On sm_80 (164 KiB) two fit.
        let o = occupancy(&SM_80, &resources(128, 65_536).kernel(&SM_80), &l).unwrap();
        assert_eq!(o.blocks_per_sm, 2);
    }

    #[test]
    fn launch_report_says_whether_engine_and_driver_agree() {
        let k = resources(0, 49_152).kernel(&SM_90);
        let config = LaunchConfig {
            grid_dim: (264, 1, 1),
            block_dim: (256, 1, 1),
            shared_mem_bytes: 0,
        };
        let engine = occupancy(&SM_90, &k, &Launch::new(BlockDim::linear(256))).unwrap();
        let mut report = LaunchReport {
            kernel: "k".to_owned(),
            config,
            resources: resources(0, 49_152),
            build: Some(BuildResources {
                sm: "sm_90",
                registers_per_thread: 24,
                static_smem_bytes: 0,
                barriers: Some(1),
            }),
            engine,
            driver_blocks_per_sm: 8,
            sm_count: 132,
        };
        assert!(report.agrees() && report.build_matches());
        let text = report.to_string();
        assert!(
            text.contains("8 blocks/SM, 64 of 64 warps, 100.00% occupancy"),
            "{text}"
        );
        assert!(
            text.contains("grid = 0.25 waves of 1056 resident blocks"),
            "{text}"
        );
        report.driver_blocks_per_sm = 7;
        report.build = Some(BuildResources {
            registers_per_thread: 32,
            ..report.build.unwrap()
        });
        assert!(!report.agrees() && !report.build_matches());
        assert!(
            report.to_string().contains("DISAGREES") && report.to_string().contains("DIFFERENT")
        );
    }
}
