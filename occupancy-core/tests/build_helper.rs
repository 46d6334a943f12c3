//! The build helper end to end: with NVRTC (the PyPI wheel's libnvrtc: set
//! `OCCUPANCY_TEST_NVRTC=/path/to/libnvrtc.so.12`, or have it in a site-packages `python3`
//! knows; `OCCUPANCY_REQUIRE_NVRTC=1` makes its absence a failure, for CI) and without it
//! (forced with `none`: the committed-manifest fallback).
#![cfg(feature = "build")]

use std::fs;
use std::path::{Path, PathBuf};

use occupancy_core::build::Kernels;
use occupancy_core::resources::manifest::{Manifest, SourceFile, sha256_hex};
use occupancy_core::resources::{cubin, ptxas};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

/// A fresh crate folder with `kernels/probe.cu`.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("occupancy-build-{name}-{}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(dir.join("kernels")).unwrap();
    fs::copy(fixtures().join("probe.cu"), dir.join("kernels/probe.cu")).unwrap();
    dir
}

fn nvrtc_for_tests() -> Option<PathBuf> {
    std::env::var_os("OCCUPANCY_TEST_NVRTC").map(PathBuf::from)
}

#[test]
fn compiles_with_nvrtc_and_writes_everything() {
    let dir = scratch("nvrtc");
    let out = dir.join("out");
    let mut kernels = Kernels::new("kernels")
        .targets(["sm_75", "sm_90a"])
        .manifest("kernels.manifest.json");
    if let Some(p) = nvrtc_for_tests() {
        kernels = kernels.nvrtc(p);
    }
    let mut lines = Vec::new();
    let outcome = kernels
        .run_in(&dir, &out, &mut |l| lines.push(l.to_string()))
        .unwrap();
    if !outcome.compiled {
        assert_ne!(
            std::env::var("OCCUPANCY_REQUIRE_NVRTC").as_deref(),
            Ok("1"),
            "NVRTC not found: {:?}",
            outcome.warnings
        );
        eprintln!("skipped: no NVRTC ({:?})", outcome.warnings);
        return;
    }
    // No committed manifest yet: nothing to warn about.
    assert!(outcome.warnings.is_empty(), "{:?}", outcome.warnings);
    for f in [
        "probe.sm_75.cubin",
        "probe.sm_90a.cubin",
        "probe.ptx",
        "manifest.json",
        "kernels.rs",
    ] {
        assert!(out.join(f).is_file(), "{f} missing");
    }
    let ptx = fs::read_to_string(out.join("probe.ptx")).unwrap();
    assert!(
        ptx.contains(".target sm_75"),
        "PTX is for the lowest target"
    );

    // The manifest holds what the cubins and NVRTC's ptxas log say.
    let manifest = Manifest::load(out.join("manifest.json")).unwrap();
    assert_eq!(manifest, outcome.manifest);
    let source = fs::read(dir.join("kernels/probe.cu")).unwrap();
    assert_eq!(manifest.sources.len(), 1);
    assert_eq!(manifest.sources[0].sha256, sha256_hex(&source));
    for arch in ["sm_75", "sm_90a"] {
        let parsed =
            cubin::parse(&fs::read(out.join(format!("probe.{arch}.cubin"))).unwrap()).unwrap();
        assert_eq!(parsed.arch.to_string(), arch);
        let log = ptxas::parse(&fs::read_to_string(out.join(format!("probe.{arch}.log"))).unwrap())
            .unwrap();
        for entry in &log {
            let k = manifest.lookup(&entry.name, arch).unwrap();
            assert_eq!(k.arch.to_string(), arch);
            assert_eq!(
                (k.registers_per_thread, k.static_smem_bytes),
                (entry.registers, entry.smem_bytes),
                "{}",
                entry.name
            );
        }
        assert_eq!(
            manifest
                .kernels
                .iter()
                .filter(|k| k.resources.arch == parsed.arch)
                .count(),
            log.len()
        );
    }
    // .minnctapersm came from the PTX.
    assert_eq!(
        manifest
            .lookup("k_bounds", "sm_75")
            .unwrap()
            .min_blocks_per_sm,
        Some(2)
    );

    // kernels.rs embeds the artifacts by absolute path.
    let rs = fs::read_to_string(out.join("kernels.rs")).unwrap();
    assert!(rs.contains("pub const COMPILED: bool = true;"));
    assert!(rs.contains("(\"probe\", \"sm_90a\", include_bytes!("));
    assert!(rs.contains(&format!(
        "{:?}",
        out.join("probe.ptx").display().to_string()
    )));

    // Cargo directives.
    let manifest_env = format!(
        "cargo:rustc-env=OCCUPANCY_MANIFEST={}",
        out.join("manifest.json").display()
    );
    assert!(lines.contains(&manifest_env), "{lines:?}");
    assert!(lines.contains(&format!(
        "cargo:rerun-if-changed={}",
        dir.join("kernels/probe.cu").display()
    )));
    assert!(lines.contains(&"cargo:rerun-if-env-changed=OCCUPANCY_NVRTC".to_string()));

    // A committed manifest from another source version is reported as out of date.
    let mut old = manifest.clone();
    old.sources[0].sha256 = sha256_hex(b"an older probe.cu");
    old.write(dir.join("kernels.manifest.json")).unwrap();
    let mut kernels = Kernels::new("kernels")
        .targets(["sm_75"])
        .manifest("kernels.manifest.json");
    if let Some(p) = nvrtc_for_tests() {
        kernels = kernels.nvrtc(p);
    }
    let again = kernels.run_in(&dir, &out, &mut |_| {}).unwrap();
    assert!(
        again.warnings.iter().any(|w| w.contains("out of date")),
        "{:?}",
        again.warnings
    );
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn compile_errors_carry_nvrtc_log() {
    let dir = scratch("broken");
    fs::write(
        dir.join("kernels/broken.cu"),
        "extern \"C\" __global__ void k() { undeclared_thing(); }\n",
    )
    .unwrap();
    let mut kernels = Kernels::new("kernels").targets(["sm_80"]);
    if let Some(p) = nvrtc_for_tests() {
        kernels = kernels.nvrtc(p);
    }
    match kernels.run_in(&dir, &dir.join("out"), &mut |_| {}) {
        Err(e) => {
            assert!(e.0.contains("failed to compile"), "{e}");
            assert!(e.0.contains("broken.cu"), "{e}");
            assert!(e.0.contains("undeclared_thing"), "NVRTC's log: {e}");
        }
        // No NVRTC and no manifest: a clear error too.
        Ok(o) => panic!("a broken kernel built: {o:?}"),
    }
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn falls_back_to_the_committed_manifest_without_nvrtc() {
    let dir = scratch("fallback");
    let out = dir.join("out");
    // A manifest as `cargo occupancy inspect --write-manifest` writes it, from the fixtures.
    let source = fs::read(dir.join("kernels/probe.cu")).unwrap();
    let mut manifest = Manifest::new("test");
    manifest.sources.push(SourceFile {
        file: "probe.cu".into(),
        sha256: sha256_hex(&source),
        toolkit: None,
    });
    let parsed =
        cubin::parse(&fs::read(fixtures().join("nvrtc-12.9/probe.sm_80.cubin")).unwrap()).unwrap();
    manifest.add_kernels(Some("probe.cu"), parsed.kernels);
    manifest.write(dir.join("kernels.manifest.json")).unwrap();

    let run = |lines: &mut Vec<String>| {
        Kernels::new("kernels")
            .targets(["sm_80"])
            .manifest("kernels.manifest.json")
            .nvrtc("none")
            .run_in(&dir, &out, &mut |l| lines.push(l.to_string()))
    };
    let mut lines = Vec::new();
    let outcome = run(&mut lines).unwrap();
    assert!(!outcome.compiled);
    assert_eq!(outcome.warnings.len(), 1, "{:?}", outcome.warnings);
    assert!(
        outcome.warnings[0].contains("not compiled (OCCUPANCY_NVRTC=none)"),
        "{:?}",
        outcome.warnings
    );
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("cargo:warning=CUDA kernels not compiled"))
    );
    assert_eq!(
        Manifest::load(&outcome.manifest_path)
            .unwrap()
            .lookup("k_smem", "sm_86")
            .unwrap()
            .static_smem_bytes,
        4360
    );
    let rs = fs::read_to_string(out.join("kernels.rs")).unwrap();
    assert!(rs.contains("pub const COMPILED: bool = false;"));
    assert!(!rs.contains("include_bytes!"));

    // The source changes: the manifest is stale, and a new file is not in it.
    fs::write(
        dir.join("kernels/probe.cu"),
        [source.as_slice(), b"\n// edited\n"].concat(),
    )
    .unwrap();
    fs::write(
        dir.join("kernels/extra.cu"),
        "extern \"C\" __global__ void k() {}\n",
    )
    .unwrap();
    let outcome = run(&mut Vec::new()).unwrap();
    let w = outcome.warnings.join("\n");
    assert!(
        w.contains("probe.cu changed since the manifest was written"),
        "{w}"
    );
    assert!(w.contains("extra.cu is not in the manifest"), "{w}");

    // No manifest at all: an error that says what to do, not a panic.
    fs::remove_file(dir.join("kernels.manifest.json")).unwrap();
    let e = run(&mut Vec::new()).unwrap_err();
    assert!(e.0.contains("nvidia-cuda-nvrtc-cu12"), "{e}");
    let e = Kernels::new("kernels")
        .nvrtc("none")
        .run_in(&dir, &out, &mut |_| {})
        .unwrap_err();
    assert!(e.0.contains("no committed resource manifest"), "{e}");
    fs::remove_dir_all(&dir).unwrap();
}
