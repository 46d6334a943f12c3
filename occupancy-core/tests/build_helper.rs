//! The build helper end to end: with NVRTC (the PyPI wheel's libnvrtc: set
//! `OCCUPANCY_TEST_NVRTC=/path/to/libnvrtc.so.12`, or have it in a site-packages `python3`
//! knows; `OCCUPANCY_REQUIRE_NVRTC=1` makes its absence a failure, for CI) and without it
//! (forced with `none`: the committed-manifest fallback).
#![cfg(feature = "build")]

use std::fs;
use std::path::{Path, PathBuf};

use occupancy_core::build::{Kernels, Nvrtc};
use occupancy_core::resources::manifest::{Manifest, SourceFile, sha256_hex};
use occupancy_core::resources::{SmTarget, cubin, ptxas};

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

/// Whether NVRTC is there for `targets` (`OCCUPANCY_TEST_NVRTC`, else the helper's own
/// search); without it the caller skips, after one line saying so, unless
/// `OCCUPANCY_REQUIRE_NVRTC=1` makes that a failure.
fn have_nvrtc(targets: &[&str]) -> bool {
    let targets: Vec<SmTarget> = targets
        .iter()
        .map(|t| SmTarget::parse(t).unwrap())
        .collect();
    match Nvrtc::find(&targets, nvrtc_for_tests().as_deref()) {
        Ok(_) => true,
        Err(why) => {
            assert_ne!(
                std::env::var("OCCUPANCY_REQUIRE_NVRTC").as_deref(),
                Ok("1"),
                "NVRTC not found: {why}"
            );
            eprintln!("skipped: no NVRTC: {why}");
            false
        }
    }
}

#[test]
fn compiles_with_nvrtc_and_writes_everything() {
    if !have_nvrtc(&["sm_75", "sm_90a"]) {
        return;
    }
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
    assert!(outcome.compiled, "{:?}", outcome.warnings);
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
    if !have_nvrtc(&["sm_80"]) {
        return;
    }
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
    assert!(
        rs.contains("pub const TARGETS: &[&str] = &[\"sm_80\"];"),
        "{rs}"
    );
    assert!(
        rs.contains("pub const STEMS: &[&str] = &[\"probe\"];"),
        "{rs}"
    );

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

/// ptxas for the PTX tests, or `None` (a failure when `OCCUPANCY_REQUIRE_PTXAS=1`).
fn ptxas_for_tests() -> Option<occupancy_core::build::Ptxas> {
    match occupancy_core::build::Ptxas::find(None) {
        Ok(p) => Some(p),
        Err(why) => {
            assert_ne!(
                std::env::var("OCCUPANCY_REQUIRE_PTXAS").as_deref(),
                Ok("1"),
                "ptxas not found: {why}"
            );
            eprintln!("skipped: {why}");
            None
        }
    }
}

/// A small PTX module of this test's own, for sm_75 and later: `k_plain`, the name of a probe
/// kernel too, with `.maxntid 128`.
const SMALL_PTX: &str = "\
.version 7.0
.target sm_75
.address_size 64

.visible .entry k_plain(
\t.param .u64 k_plain_param_0
)
.maxntid 128, 1, 1
{
\t.reg .b32 \t%r<2>;
\t.reg .b64 \t%rd<4>;
\tld.param.u64 \t%rd1, [k_plain_param_0];
\tcvta.to.global.u64 \t%rd2, %rd1;
\tmov.u32 \t%r1, %tid.x;
\tmul.wide.u32 \t%rd3, %r1, 4;
\tadd.s64 \t%rd2, %rd2, %rd3;
\tst.global.u32 \t[%rd2], %r1;
\tret;
}
";

#[test]
fn assembles_ptx_files_per_target_with_qualified_names() {
    let Some(ptxas) = ptxas_for_tests() else {
        return;
    };
    let dir = scratch("ptx");
    fs::remove_file(dir.join("kernels/probe.cu")).unwrap();
    fs::copy(
        fixtures().join("nvrtc-12.9/probe.sm_90.ptx"),
        dir.join("kernels/probe.ptx"),
    )
    .unwrap();
    fs::write(dir.join("kernels/small.ptx"), SMALL_PTX).unwrap();
    let out = dir.join("out");
    let kernels = || {
        Kernels::new("kernels")
            .targets(["sm_75", "sm_90"])
            .manifest("kernels.manifest.json")
            .nvrtc("none") // no .cu here: NVRTC is not needed
    };
    let mut lines = Vec::new();
    let outcome = kernels()
        .run_in(&dir, &out, &mut |l| lines.push(l.to_string()))
        .unwrap();
    assert!(outcome.compiled, "{:?}", outcome.warnings);
    assert!(outcome.warnings.is_empty(), "{:?}", outcome.warnings);
    // probe.ptx is for sm_90: not assembled for sm_75; small.ptx for both.
    for f in [
        "probe.sm_90.cubin",
        "probe.sm_90.log",
        "small.sm_75.cubin",
        "small.sm_90.cubin",
    ] {
        assert!(out.join(f).is_file(), "{f} missing");
    }
    assert!(!out.join("probe.sm_75.cubin").exists());
    let m = &outcome.manifest;
    assert_eq!(
        m.sources
            .iter()
            .map(|s| (s.file.as_str(), s.toolkit))
            .collect::<Vec<_>>(),
        [
            ("probe.ptx", Some(ptxas.version)),
            ("small.ptx", Some(ptxas.version))
        ]
    );
    // The numbers are ptxas's own (its -v log beside the cubin).
    let log = ptxas::parse(&fs::read_to_string(out.join("probe.sm_90.log")).unwrap()).unwrap();
    assert_eq!(log.len(), 13);
    for e in &log {
        let k = m.lookup(&format!("probe::{}", e.name), "sm_90").unwrap();
        assert_eq!(
            (
                k.registers_per_thread,
                k.static_smem_bytes,
                k.local_bytes,
                k.barriers
            ),
            (e.registers, e.smem_bytes, e.stack_frame_bytes, e.barriers),
            "{}",
            e.name
        );
    }
    assert_eq!(
        m.lookup("k_bounds", "sm_90").unwrap().min_blocks_per_sm,
        Some(2),
        ".minnctapersm from the PTX"
    );
    // k_plain is in both modules: qualified, or an error listing both.
    let e = m.lookup("k_plain", "sm_90").unwrap_err();
    assert_eq!(e.choices, ["probe::k_plain", "small::k_plain"]);
    let small = m.lookup("small::k_plain", "sm_75").unwrap();
    assert_eq!(
        (
            small.arch.to_string().as_str(),
            small.max_threads_per_block()
        ),
        ("sm_75", Some(128))
    );
    assert!(
        m.lookup("probe::k_plain", "sm_75")
            .unwrap_err()
            .kernel_found
    );
    // kernels.rs embeds what was assembled, and the PTX files themselves.
    let rs = fs::read_to_string(out.join("kernels.rs")).unwrap();
    assert!(
        rs.contains("(\"probe\", \"sm_90\", include_bytes!("),
        "{rs}"
    );
    assert!(!rs.contains("(\"probe\", \"sm_75\""), "{rs}");
    assert!(
        rs.contains("(\"small\", \"sm_75\", include_bytes!("),
        "{rs}"
    );
    assert!(rs.contains(&format!(
        "(\"small\", include_str!({:?}))",
        dir.join("kernels/small.ptx").display().to_string()
    )));
    // Cargo directives: ptxas's variable; no committed manifest yet, so it is not watched
    // (a missing file would rerun the build script on every build).
    assert!(lines.contains(&"cargo:rerun-if-env-changed=OCCUPANCY_PTXAS".to_string()));
    assert!(
        !lines.iter().any(|l| l.contains("kernels.manifest.json")),
        "{lines:?}"
    );

    // Writing it (OCCUPANCY_WRITE_MANIFEST=1) once, then again: an unchanged one is left
    // untouched, so that cargo sees no change.
    let write = || {
        kernels()
            .write_manifest(true)
            .run_in(&dir, &out, &mut |_| {})
    };
    write().unwrap();
    let first = fs::metadata(dir.join("kernels.manifest.json")).and_then(|m| m.modified());
    std::thread::sleep(std::time::Duration::from_millis(20));
    write().unwrap();
    let second = fs::metadata(dir.join("kernels.manifest.json")).and_then(|m| m.modified());
    assert_eq!(
        first.unwrap(),
        second.unwrap(),
        "rewritten with the same content"
    );
    let mut lines = Vec::new();
    kernels()
        .run_in(&dir, &out, &mut |l| lines.push(l.to_string()))
        .unwrap();
    assert!(lines.contains(&format!(
        "cargo:rerun-if-changed={}",
        dir.join("kernels.manifest.json").display()
    )));

    // Without ptxas: the committed manifest, with a warning that says why.
    let fallback = kernels()
        .ptxas("none")
        .run_in(&dir, &out, &mut |_| {})
        .unwrap();
    assert!(!fallback.compiled);
    assert!(
        fallback.warnings[0].contains("not compiled (OCCUPANCY_PTXAS=none)"),
        "{:?}",
        fallback.warnings
    );
    assert_eq!(
        fallback.manifest.lookup("small::k_plain", "sm_75").unwrap(),
        small
    );
    fs::remove_file(dir.join("kernels.manifest.json")).unwrap();
    let e = kernels()
        .ptxas("none")
        .run_in(&dir, &out, &mut |_| {})
        .unwrap_err();
    assert!(e.0.contains("pip install nvidia-cuda-nvcc-cu12"), "{e}");

    // PTX for a higher architecture than every target: a warning, no kernels.
    let only75 = Kernels::new("kernels").targets(["sm_75"]).nvrtc("none");
    let o = only75.run_in(&dir, &out, &mut |_| {}).unwrap();
    assert_eq!(
        o.warnings,
        [
            "probe.ptx is PTX for sm_90 (`.target sm_90`): not assembled for any target (sm_75), \
          where the driver cannot load it; its kernels are not in the manifest"
        ]
    );
    assert!(o.manifest.lookup("probe::k_plain", "sm_90").is_err());

    // PTX that ptxas rejects: a build error with ptxas's log.
    fs::write(
        dir.join("kernels/broken.ptx"),
        SMALL_PTX.replace("ret;", "not_an_instruction;\n\tret;"),
    )
    .unwrap();
    let e = kernels().run_in(&dir, &out, &mut |_| {}).unwrap_err();
    assert!(
        e.0.starts_with("assembling broken.ptx for sm_75: ptxas"),
        "{e}"
    );
    assert!(e.0.contains("not_an_instruction"), "ptxas's log: {e}");
    fs::remove_dir_all(&dir).unwrap();
}
