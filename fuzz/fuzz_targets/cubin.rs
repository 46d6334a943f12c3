//! `resources::cubin::parse`: a cubin (CUDA ELF) straight to the cubin reader, whatever its
//! magic or machine says.
#![no_main]

use libfuzzer_sys::fuzz_target;
use occupancy_core::resources::cubin;

fuzz_target!(|data: &[u8]| {
    match cubin::parse(data) {
        Ok(c) => {
            let _ = c.arch.to_string();
            occupancy_fuzz::use_kernels(&c.kernels);
        }
        Err(e) => {
            let _ = e.to_string();
        }
    }
});
