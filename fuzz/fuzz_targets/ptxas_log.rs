//! `resources::ptxas::parse`: `ptxas -v` / NVRTC program-log text.
#![no_main]

use libfuzzer_sys::fuzz_target;
use occupancy_core::resources::ptxas;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    match ptxas::parse(text) {
        Ok(entries) => {
            let kernels: Vec<_> = entries.iter().map(|e| e.to_resources()).collect();
            occupancy_fuzz::use_kernels(&kernels);
        }
        Err(e) => {
            let _ = e.to_string();
        }
    }
});
