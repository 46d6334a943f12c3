//! `resources::manifest::Manifest::from_json`: the JSON resource manifest the attribute
//! macro reads in every build, then a lookup of each kernel on each target architecture and
//! the engine on what it returns, as the macro does.
#![no_main]

use libfuzzer_sys::fuzz_target;
use occupancy_core::resources::manifest::Manifest;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let manifest = match Manifest::from_json(text) {
        Ok(m) => m,
        Err(e) => {
            let _ = e.to_string();
            return;
        }
    };
    let _ = manifest.to_json();
    let kernels: Vec<_> = manifest
        .kernels
        .iter()
        .map(|k| k.resources.clone())
        .collect();
    occupancy_fuzz::use_kernels(&kernels);
    for k in manifest.kernels.iter().take(8) {
        let name = k.resources.display_name();
        for arch in ["sm_80", "sm_90a", "sm_86", &k.resources.arch.to_string()] {
            match manifest.lookup(name, arch) {
                Ok(found) => {
                    let _ = found.to_kernel();
                }
                Err(e) => {
                    let _ = e.to_string();
                }
            }
        }
    }
    if let Err(e) = manifest.lookup("no_such_kernel", "sm_90") {
        let _ = e.to_string();
    }
});
