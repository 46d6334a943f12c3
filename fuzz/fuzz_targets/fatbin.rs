//! `resources::fatbin`: container parsing, every entry's decompression (LZ4, zstd), then
//! the kernels of its cubins with their PTX directives; and the same bytes as a host ELF
//! carrying `.nv_fatbin`.
#![no_main]

use libfuzzer_sys::fuzz_target;
use occupancy_core::resources::fatbin;

fuzz_target!(|data: &[u8]| {
    match fatbin::parse(data) {
        Ok(entries) => {
            for entry in &entries {
                let _ = entry.arch.to_string();
                if let Ok(bytes) = entry.data() {
                    let _ = bytes.len();
                }
            }
            if let Ok(kernels) = fatbin::kernels(&entries) {
                occupancy_fuzz::use_kernels(&kernels);
            }
        }
        Err(e) => {
            let _ = e.to_string();
        }
    }
    if let Ok(entries) = fatbin::parse_host_elf(data) {
        let _ = fatbin::kernels(&entries);
    }
});
