//! What the fuzz targets share: after a reader accepts an input, push what it returned
//! through the code the attribute macro and the CLI run next, so that a value the reader
//! lets through but the engine cannot take (an overflow, an impossible shape) is found too.

pub mod cuda;

use occupancy_core::arch::ARCHS;
use occupancy_core::occupancy::{BlockDim, Launch, occupancy};
use occupancy_core::resources::KernelResources;

/// Uses every kernel a reader returned as the front ends do: its names, its engine kernel,
/// and its occupancy at 256 threads on its own architecture (when the table has it).
pub fn use_kernels(kernels: &[KernelResources]) {
    for k in kernels {
        let _ = k.names();
        let _ = k.display_name();
        let _ = k.max_threads_per_block();
        let kernel = k.to_kernel();
        if let Some(arch) = ARCHS.iter().find(|a| a.cc.sm_number() == k.arch.sm) {
            let _ = occupancy(arch, &kernel, &Launch::new(BlockDim::linear(256)));
        }
        let _ = format!("{} {}", k.arch, k.arch.base());
        if let Some(t) = k.toolkit {
            let _ = t.to_string();
        }
    }
}
