//! `resources::manifest::Manifest::from_json`: the JSON resource manifest the attribute
//! macro reads in every build, then a lookup of each kernel on each target architecture and
//! the engine on what it returns, as the macro does; and `manifest_text::ManifestText`, the
//! macro's reading of the same text for the kernels it names, which must agree: its whole
//! parse is `from_json`'s, and a lookup in the subset one name reaches is the whole
//! manifest's.
#![no_main]

use libfuzzer_sys::fuzz_target;
use occupancy_core::resources::manifest::Manifest;
use occupancy_core::resources::manifest_text::ManifestText;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let scanned = ManifestText::new(text.to_owned());
    let manifest = match Manifest::from_json(text) {
        Ok(m) => m,
        Err(e) => {
            let _ = e.to_string();
            // The scan may leave a malformed entry unparsed, never the whole text.
            if let Ok(t) = &scanned {
                assert!(t.full().is_err());
            }
            return;
        }
    };
    let scanned = scanned.expect("a manifest from_json reads is scanned");
    assert_eq!(scanned.full().as_ref(), Ok(&manifest));
    let _ = manifest.to_json();
    let kernels: Vec<_> = manifest
        .kernels
        .iter()
        .map(|k| k.resources.clone())
        .collect();
    occupancy_fuzz::use_kernels(&kernels);
    for k in manifest.kernels.iter().take(8) {
        let name = k.resources.display_name();
        let subset = scanned.subset(&[name], None).expect("every entry parses");
        for arch in ["sm_80", "sm_90a", "sm_86", &k.resources.arch.to_string()] {
            match (manifest.lookup(name, arch), subset.lookup(name, arch)) {
                (Ok(found), Ok(in_subset)) => {
                    assert_eq!(found, in_subset);
                    let _ = found.to_kernel();
                }
                (Err(e), Err(in_subset)) => {
                    assert_eq!(
                        (&e.choices, &e.conflicting, e.kernel_found, &e.compiled_for),
                        (
                            &in_subset.choices,
                            &in_subset.conflicting,
                            in_subset.kernel_found,
                            &in_subset.compiled_for
                        )
                    );
                    let _ = e.to_string();
                }
                (whole, subset) => panic!("{name} on {arch}: {whole:?} but {subset:?}"),
            }
        }
    }
    if let Err(e) = manifest.lookup("no_such_kernel", "sm_90") {
        let _ = e.to_string();
    }
});
