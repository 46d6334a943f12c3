//! `resources::ptx::parse`: PTX performance directives (`.maxntid`, `.minnctapersm`, ...),
//! then applied to a kernel as the fatbin reader and the build helper do.
#![no_main]

use libfuzzer_sys::fuzz_target;
use occupancy_core::resources::{KernelResources, Origin, SmTarget, ptx};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    match ptx::parse(text) {
        Ok(module) => {
            let mut kernels = Vec::new();
            for entry in &module.entries {
                let _ = module.entry(&entry.name);
                let mut k = KernelResources {
                    name: entry.name.clone(),
                    demangled: occupancy_core::resources::demangle(&entry.name),
                    arch: module.target.unwrap_or(SmTarget::new(80)),
                    toolkit: None,
                    origin: Origin::Cubin,
                    registers_per_thread: 32,
                    static_smem_bytes: 0,
                    local_bytes: 0,
                    cumulative_stack_bytes: None,
                    spill_store_bytes: None,
                    spill_load_bytes: None,
                    barriers: Some(1),
                    max_threads: None,
                    required_threads: None,
                    min_blocks_per_sm: None,
                    max_registers: None,
                    cluster_dims: None,
                    max_cluster_rank: None,
                    const_bank0_bytes: None,
                    param_bytes: None,
                };
                k.apply_ptx(entry);
                kernels.push(k);
            }
            occupancy_fuzz::use_kernels(&kernels);
        }
        Err(e) => {
            let _ = e.to_string();
        }
    }
});
