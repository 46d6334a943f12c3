//! `resources::host`: what a build script made with nvcc, any bytes as a host ELF object or
//! an `ar` archive of them (`.nv_fatbin`, `__nv_relfatbin`), then the kernels merged as
//! `resources::read` does, and the launch-side names (`resources::instantiation`) of each
//! kernel matched back to the kernels; and the input's text as a kernel name to parse and
//! match.
#![no_main]

use libfuzzer_sys::fuzz_target;
use occupancy_core::resources::host;
use occupancy_core::resources::instantiation::{CompiledName, Instantiation, masked_symbol};

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let typed = Instantiation::parse(&text).ok();
    match host::kernels(data) {
        Ok(found) => {
            for k in &found {
                let _ = (k.member.as_deref(), k.section.name());
            }
            let kernels = host::distinct(found.into_iter().map(|k| k.kernel));
            occupancy_fuzz::use_kernels(&kernels);
            for k in &kernels {
                let _ = masked_symbol(&k.name);
                let name = CompiledName::of(k);
                let mut wanted = Instantiation::new(format!("{}::{}", name.scope.join("::"), name.name));
                wanted.args = name.args.clone();
                // A kernel always matches its own name and arguments.
                assert!(wanted.matches(k).is_some(), "{} does not match {wanted}", k.name);
                let _ = wanted.find(&kernels).len();
            }
            if let Some(t) = &typed {
                let _ = t.find(&kernels).len();
            }
        }
        Err(e) => {
            let _ = e.to_string();
        }
    }
    let _ = masked_symbol(&text);
});
