//! A crate that ships PTX (`tests/fixtures/ptx-crate`: `kernels/*.ptx` embedded with
//! `include_str!`, a `kernels/scale.cu` beside them, the build helper in `build.rs` and its
//! `kernels.rs` as the README's "Use it" shows), built with plain cargo from a copy: its
//! wrappers get warnings with ptxas's numbers, a module-qualified name selects one of two
//! same-named kernels and an unqualified one is an error listing both, and a second
//! `cargo build` is fresh (no build-script run, no recompilation) without a committed
//! manifest, with one, and with one and no compiler.
//!
//! Needs ptxas (`pip install nvidia-cuda-nvcc-cu12`, or `OCCUPANCY_PTXAS`) and NVRTC (`pip
//! install nvidia-cuda-nvrtc-cu12`, or `OCCUPANCY_NVRTC`); without them, it skips with a
//! message, and `OCCUPANCY_REQUIRE_PTXAS=1` (set by CI) makes that a failure.

use std::path::{Path, PathBuf};
use std::process::Command;

use occupancy_core::build::{Nvrtc, Ptxas};

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/ptx-crate")
}

fn target_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("target/fixture-ptx-crate")
}

/// A copy of the fixture in a fresh folder, its path dependencies made absolute, without
/// its committed manifest.
fn copy(case: &str) -> PathBuf {
    let dir =
        std::env::temp_dir().join(format!("occupancy-ptx-crate-{}-{case}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    for sub in ["src", "kernels"] {
        std::fs::create_dir_all(dir.join(sub)).unwrap();
        for e in std::fs::read_dir(fixture().join(sub)).unwrap() {
            let e = e.unwrap();
            std::fs::copy(e.path(), dir.join(sub).join(e.file_name())).unwrap();
        }
    }
    for file in ["build.rs", "occupancy.toml", "Cargo.lock"] {
        std::fs::copy(fixture().join(file), dir.join(file)).unwrap();
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let toml = std::fs::read_to_string(fixture().join("Cargo.toml"))
        .unwrap()
        .replace(
            "\"../../../occupancy-core\"",
            &format!("{:?}", root.join("occupancy-core").display().to_string()),
        )
        .replace("\"../../..\"", &format!("{:?}", root.display().to_string()));
    std::fs::write(dir.join("Cargo.toml"), toml).unwrap();
    dir
}

/// `cargo build -v <args>` in `dir` with `envs` set; whether it succeeded and its stderr.
fn build(dir: &Path, args: &[&str], envs: &[(&str, &str)]) -> (bool, String) {
    let mut command = Command::new(env!("CARGO"));
    command
        .args(["build", "-v", "--manifest-path"])
        .arg(dir.join("Cargo.toml"))
        .args(args)
        .env("CARGO_TARGET_DIR", target_dir())
        .env("CARGO_TERM_COLOR", "never")
        .env_remove("RUSTFLAGS")
        .env_remove("CARGO_ENCODED_RUSTFLAGS")
        .env_remove("OCCUPANCY_POLICY")
        .env_remove("OCCUPANCY_MANIFEST")
        .env_remove("OCCUPANCY_WRITE_MANIFEST");
    for (k, v) in envs {
        command.env(k, v);
    }
    let out = command.output().expect("run cargo");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The second of two builds did nothing: the crate is fresh, its build script did not run.
fn assert_fresh(stderr: &str) {
    assert!(stderr.contains("Fresh occupancy-ptx-crate"), "{stderr}");
    assert!(
        !stderr.contains("Compiling occupancy-ptx-crate"),
        "{stderr}"
    );
    assert!(!stderr.contains("Dirty occupancy-ptx-crate"), "{stderr}");
    assert!(
        !stderr.contains("build-script-build`"),
        "the build script ran again:\n{stderr}"
    );
}

/// The wrappers' warnings, with ptxas's numbers for each module's kernel.
fn assert_warnings(stderr: &str) {
    for expected in [
        "warning: use of deprecated macro `low_occupancy`: launch_conv2d on sm_80: 50% occupancy \
         (32 of 64 warps), below the 75% floor",
        "warning: use of deprecated macro `low_occupancy`: launch_conv2d on sm_90: 50% occupancy \
         (32 of 64 warps), below the 75% floor",
        "= note: limited by registers: 40 regs/thread -> 40 x 32 = 1280 per warp -> 16384 per \
         sub-partition / 1280 = 12 warps x 4 sub-partitions / 32 warps per block = 1 block/SM",
        "= note: conv2d_f32: 40 regs/thread, 0 B static shared memory, 0 barriers, from its sm_80 \
         cubin in the resource manifest",
        "= help: 32 regs/thread (e.g. __launch_bounds__(1024, 2)) gives 100%",
        "warning: use of deprecated macro `block_limit`: launch_conv2d_transpose on sm_90: \
         32-thread blocks hit the limit of 32 resident blocks per SM: 32 of 64 warps (50%)",
        "= note: conv2d::transpose_filters_f32: 16 regs/thread, 0 B static shared memory, 0 \
         barriers, from its sm_90 cubin",
        "= note: unfold::transpose_filters_f32: 14 regs/thread, 4224 B static shared memory, 1 \
         barrier, from its sm_80 cubin",
        "warning: use of deprecated macro `block_limit`: launch_softmax on sm_80: 32-thread blocks \
         hit the limit of 32 resident blocks per SM: 32 of 64 warps (50%)",
        // A family by a glob with a module: unfold.ptx's two kernels, not conv2d.ptx's.
        "warning: use of deprecated macro `low_occupancy`: launch_unfold_any (kernel \
         unfold::im2col_f32) on sm_80: 50% occupancy (32 of 64 warps), below the 75% floor",
        "= note: also 1 more kernel of the family, worst first: unfold::transpose_filters_f32 \
         (50%)",
    ] {
        assert!(
            stderr.contains(expected),
            "missing `{expected}` in:\n{stderr}"
        );
    }
    assert!(
        !stderr.contains("launch_affine"),
        "affine_f32/f64 reach 100%:\n{stderr}"
    );
    assert!(
        !stderr.contains("launch_scale"),
        "scale_f32 reaches 100%:\n{stderr}"
    );
}

/// NVRTC and ptxas, or `None`.
fn tools() -> Option<(Nvrtc, Ptxas)> {
    let found = Nvrtc::find(&[], None)
        .map_err(|e| format!("NVRTC: {e}"))
        .and_then(|n| {
            Ptxas::find(None)
                .map(|p| (n, p))
                .map_err(|e| format!("ptxas: {e}"))
        });
    match found {
        Ok(tools) => Some(tools),
        Err(why) => {
            assert_ne!(
                std::env::var("OCCUPANCY_REQUIRE_PTXAS").as_deref(),
                Ok("1"),
                "{why}"
            );
            eprintln!("skipped: {why}");
            None
        }
    }
}

#[test]
fn warnings_with_ptxas_numbers_and_a_fresh_second_build() {
    let Some((nvrtc, ptxas)) = tools() else {
        return;
    };
    let dir = copy("fresh");

    // 1. No committed manifest: ptxas assembles the PTX; the second build is fresh.
    let (ok, stderr) = build(&dir, &[], &[]);
    assert!(ok, "{stderr}");
    assert_warnings(&stderr);
    assert!(
        stderr.contains("build-script-build`"),
        "the first build runs the build script"
    );
    let (ok, stderr) = build(&dir, &[], &[]);
    assert!(ok, "{stderr}");
    assert_fresh(&stderr);
    assert!(
        !dir.join("kernels.manifest.json").exists(),
        "a plain build writes into the crate"
    );

    // 2. An unqualified name two modules define: an error listing both.
    let (ok, stderr) = build(&dir, &["--features", "ambiguous"], &[]);
    assert!(!ok, "{stderr}");
    // The build's manifest, named by its path (the target folder is outside the crate).
    let ambiguous = format!(
        "error: kernel name `transpose_filters_f32` is ambiguous: 2 kernels answer to it; \
         qualify it with its module (the source or artifact file stem): \
         `conv2d::transpose_filters_f32`, `unfold::transpose_filters_f32` (in the resource \
         manifest {}/debug/build/occupancy-ptx-crate-",
        target_dir().display()
    );
    // Named, and through a glob without a module.
    assert_eq!(stderr.matches(&ambiguous).count(), 2, "{stderr}");
    assert!(
        stderr.contains("/out/occupancy/manifest.json)") && !stderr.contains("$OCCUPANCY"),
        "{stderr}"
    );
    assert!(stderr.contains("kernel = \"transpose_*\""), "{stderr}");

    // 3. The committed fallback, written by the command the README gives; then fresh again
    //    (the build after the write sees OCCUPANCY_WRITE_MANIFEST change and reruns once).
    let (ok, stderr) = build(&dir, &[], &[("OCCUPANCY_WRITE_MANIFEST", "1")]);
    assert!(ok, "{stderr}");
    let written = std::fs::read_to_string(dir.join("kernels.manifest.json")).unwrap();
    let (ok, stderr) = build(&dir, &[], &[]);
    assert!(ok, "{stderr}");
    let (ok, stderr) = build(&dir, &[], &[]);
    assert!(ok, "{stderr}");
    assert_fresh(&stderr);
    assert_warnings(&stderr);
    if (ptxas.version.to_string(), nvrtc.version) == ("12.9".to_string(), (12, 9)) {
        assert_eq!(
            written,
            std::fs::read_to_string(fixture().join("kernels.manifest.json")).unwrap(),
            "the fixture's committed manifest is out of date: rebuild it with \
             OCCUPANCY_WRITE_MANIFEST=1 cargo build --manifest-path tests/fixtures/ptx-crate/Cargo.toml"
        );
    }

    // The .cu kernel's numbers are NVRTC's, in the same manifest.
    assert!(written.contains("\"source\": \"scale.cu\""), "{written}");

    // 4. No ptxas: the committed manifest, the same numbers; fresh on the second build.
    let none = [("OCCUPANCY_PTXAS", "none")];
    let (ok, stderr) = build(&dir, &[], &none);
    assert!(ok, "{stderr}");
    assert!(
        stderr.contains(
            "warning: occupancy-ptx-crate@0.0.0: CUDA kernels not compiled (OCCUPANCY_PTXAS=none); \
             using the committed resource manifest"
        ),
        "{stderr}"
    );
    assert_warnings(&stderr);
    let (ok, stderr) = build(&dir, &[], &none);
    assert!(ok, "{stderr}");
    assert_fresh(&stderr);
    std::fs::remove_dir_all(&dir).unwrap();
}
