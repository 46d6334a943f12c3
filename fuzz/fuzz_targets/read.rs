//! `resources::read`: any bytes, told apart by content (cubin, fatbin, host ELF, ptxas log,
//! PTX), as `cargo occupancy inspect` and the build helper read files.
#![no_main]

use libfuzzer_sys::fuzz_target;
use occupancy_core::resources;

fuzz_target!(|data: &[u8]| {
    let _ = resources::detect(data);
    match resources::read(data) {
        Ok(kernels) => occupancy_fuzz::use_kernels(&kernels),
        Err(e) => {
            let _ = e.to_string();
        }
    }
});
