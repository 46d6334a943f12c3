//! Shared pieces of the benchmarks: the inputs, and (when built with `CUDA_OCCUPANCY_H`) a
//! safe wrapper over NVIDIA's `cuda_occupancy.h` through a small C++ shim.

use occupancy_core::arch::{ARCHS, Arch};
use occupancy_core::occupancy::{BlockDim, Kernel, Launch, Prepared, occupancy};

/// The eleven architectures NVIDIA ships today, sm_75 .. sm_121 (the benchmark's "every
/// architecture").
pub fn current_archs() -> Vec<&'static Arch> {
    ARCHS
        .iter()
        .filter(|a| a.cc.major >= 8 || (a.cc.major == 7 && a.cc.minor == 5))
        .collect()
}

/// The kernel every benchmark evaluates: 40 registers, 4 KiB static shared memory.
pub const KERNEL: Kernel = Kernel::new(40).with_static_smem(4096);
/// Dynamic shared memory per block in the benchmarks, bytes.
pub const DYNAMIC_SMEM: u32 = 8192;

/// Resident blocks summed over block sizes 1..=1024 on each arch: one full sweep, one
/// [`occupancy`] call per point (the same work as the header's sweep).
pub fn engine_sweep(archs: &[&Arch], kernel: &Kernel) -> u64 {
    let mut total = 0u64;
    for arch in archs {
        for threads in 1..=1024 {
            let launch = Launch::new(BlockDim::linear(threads)).with_dynamic_smem(DYNAMIC_SMEM);
            if let Ok(occ) = occupancy(arch, kernel, &launch) {
                total += occ.blocks_per_sm as u64;
            }
        }
    }
    total
}

/// The same sweep with the kernel prepared once per arch ([`Prepared`]), as `cargo
/// occupancy sweep` and the potential-block-size search run it.
pub fn engine_sweep_prepared(archs: &[&Arch], kernel: &Kernel) -> u64 {
    let mut total = 0u64;
    for arch in archs {
        let Ok(prepared) = Prepared::new(arch, kernel) else {
            continue;
        };
        for threads in 1..=1024 {
            let launch = Launch::new(BlockDim::linear(threads)).with_dynamic_smem(DYNAMIC_SMEM);
            if let Ok(occ) = prepared.occupancy(&launch) {
                total += occ.blocks_per_sm as u64;
            }
        }
    }
    total
}

/// NVIDIA's `cuda_occupancy.h` through the C++ shim in `cpp/header_shim.cpp`.
#[cfg(cuda_occupancy_header)]
pub mod header {
    use occupancy_core::arch::Arch;
    use occupancy_core::occupancy::Kernel;

    #[repr(C)]
    struct ShimDevice {
        major: i32,
        minor: i32,
        max_threads_per_block: i32,
        max_threads_per_sm: i32,
        regs_per_block: i32,
        regs_per_sm: i32,
        warp_size: i32,
        smem_per_block: i64,
        smem_per_sm: i64,
        smem_per_block_optin: i64,
        reserved_smem_per_block: i64,
    }

    #[repr(C)]
    struct ShimKernel {
        registers: i32,
        max_threads: i32,
        barriers: i32,
        carveout: i32,
        opted_in: i32,
        static_smem: i64,
        max_dynamic_smem: i64,
    }

    unsafe extern "C" {
        fn shim_blocks_per_sm(
            d: *const ShimDevice,
            k: *const ShimKernel,
            block_size: i32,
            dynamic_smem: i64,
        ) -> i32;
        fn shim_sweep(
            d: *const ShimDevice,
            k: *const ShimKernel,
            max_block: i32,
            dynamic_smem: i64,
        ) -> i64;
    }

    /// The header's inputs for one arch and kernel, prepared once.
    pub struct Header {
        device: ShimDevice,
        kernel: ShimKernel,
    }

    impl Header {
        /// The header's view of `arch` and `kernel` (limits from the engine's arch table).
        pub fn new(arch: &Arch, kernel: &Kernel) -> Self {
            let default_dynamic = arch
                .smem_per_block_default_bytes
                .saturating_sub(kernel.static_smem_bytes);
            Self {
                device: ShimDevice {
                    major: arch.cc.major.into(),
                    minor: arch.cc.minor.into(),
                    max_threads_per_block: arch.max_threads_per_block as i32,
                    max_threads_per_sm: arch.max_threads_per_sm as i32,
                    regs_per_block: arch.max_regs_per_block as i32,
                    regs_per_sm: arch.regs_per_sm as i32,
                    warp_size: arch.warp_size as i32,
                    smem_per_block: arch.smem_per_block_default_bytes.into(),
                    smem_per_sm: arch.smem_per_sm_bytes.into(),
                    smem_per_block_optin: arch.smem_per_block_optin_bytes.into(),
                    reserved_smem_per_block: arch.reserved_smem_per_block_bytes.into(),
                },
                kernel: ShimKernel {
                    registers: kernel.registers_per_thread as i32,
                    max_threads: kernel.max_threads_per_block.unwrap_or(1024) as i32,
                    barriers: kernel.barriers as i32,
                    carveout: kernel.carveout.to_attribute(),
                    opted_in: kernel.max_dynamic_smem_bytes.is_some() as i32,
                    static_smem: kernel.static_smem_bytes.into(),
                    max_dynamic_smem: kernel
                        .max_dynamic_smem_bytes
                        .unwrap_or(default_dynamic)
                        .into(),
                },
            }
        }

        /// `cudaOccMaxActiveBlocksPerMultiprocessor`; `None` where the header refuses the input.
        pub fn blocks_per_sm(&self, block_size: u32, dynamic_smem: u32) -> Option<u32> {
            // SAFETY: both pointers are to live, initialised repr(C) structs the shim only reads.
            let r = unsafe {
                shim_blocks_per_sm(
                    &self.device,
                    &self.kernel,
                    block_size as i32,
                    dynamic_smem.into(),
                )
            };
            u32::try_from(r).ok()
        }

        /// Resident blocks summed over block sizes 1..=1024 (the loop runs in C++).
        pub fn sweep(&self, dynamic_smem: u32) -> u64 {
            // SAFETY: as in `blocks_per_sm`.
            let r = unsafe { shim_sweep(&self.device, &self.kernel, 1024, dynamic_smem.into()) };
            r as u64
        }
    }
}
