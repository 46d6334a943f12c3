//! A crate written in the launch styles of real Rust CUDA code
//! (`tests/fixtures/launch-styles`: cudarc's `for_num_elems`, a `LaunchConfig` literal with
//! constants of another module cast with `as`, a crate helper with a const generic, an
//! associated constant, a run-time choice between literal sizes, shared memory that grows
//! with the data, a family of kernels named at run time (by `format!` or by the crate's own
//! name helper), a backend module declared under
//! `cfg`s next to a stand-in of the same name), built with plain `cargo build`:
//! every style gets its warnings with numbers, at the body's expression, with no `block` or
//! `smem` key at all.

use std::path::{Path, PathBuf};
use std::process::Command;

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/launch-styles")
}

/// `cargo build` of the fixture (its own target folder under this build's tmp folder, so
/// that any `CARGO_TARGET_DIR` works); its stderr.
fn build() -> String {
    let output = Command::new(env!("CARGO"))
        .arg("build")
        .arg("--manifest-path")
        .arg(fixture().join("Cargo.toml"))
        .env(
            "CARGO_TARGET_DIR",
            Path::new(env!("CARGO_TARGET_TMPDIR")).join("launch-styles"),
        )
        .env("CARGO_TERM_COLOR", "never")
        .env_remove("RUSTFLAGS")
        .env_remove("CARGO_ENCODED_RUSTFLAGS")
        .env_remove("OCCUPANCY_POLICY")
        .env_remove("OCCUPANCY_MANIFEST")
        .output()
        .expect("run cargo");
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(output.status.success(), "{stderr}");
    stderr
}

/// The warning whose first line is `warning: use of deprecated macro `lint`: first`, with its
/// notes, helps and location (up to the next blank line).
fn warning<'a>(stderr: &'a str, lint: &str, first: &str) -> &'a str {
    let head = format!("warning: use of deprecated macro `{lint}`: {first}\n");
    let start = stderr
        .find(&head)
        .unwrap_or_else(|| panic!("no warning {head:?} in:\n{stderr}"));
    let rest = &stderr[start..];
    &rest[..rest.find("\n\n").unwrap_or(rest.len())]
}

#[test]
fn every_style_gets_its_numbers() {
    let stderr = build();

    // 1. cudarc's `for_num_elems`: 1024 threads, one block of 32 warps on cc 8.6.
    let w = warning(
        &stderr,
        "low_occupancy",
        "exp_elems on sm_86: 66.67% occupancy (32 of 48 warps), below the 75% floor",
    );
    assert!(
        w.contains(
            "= note: limited by warps: 1024 threads = 32 warps per block -> 48 warps per SM / 32 = 1 block/SM"
        ),
        "{w}"
    );
    assert!(
        w.contains("= help: block = 768 gives 100% (2 blocks/SM, 48 of 48 warps)"),
        "{w}"
    );
    assert!(
        w.contains("--> src/ops/unary.rs:9:15") && w.contains("LaunchConfig::for_num_elems"),
        "{w}"
    );

    // 2. A literal with constants of another module, `WARP_SIZE as u32` x ROWS_PER_BLOCK =
    //    64 threads.
    let w = warning(
        &stderr,
        "block_limit",
        "tiles on sm_86: 64-thread blocks hit the limit of 16 resident blocks per SM: 32 of 48 warps (66.67%)",
    );
    assert!(
        w.contains("block_dim: (WARP_SIZE as u32, ROWS_PER_BLOCK, 1)"),
        "{w}"
    );

    // 3. The crate's helper `launch_cfg::<32>`.
    let w = warning(
        &stderr,
        "low_occupancy",
        "exp_helper on sm_86: 33.33% occupancy (16 of 48 warps), below the 75% floor",
    );
    assert!(
        w.contains(
            "= note: limited by blocks: sm_86 holds at most 16 resident blocks per SM, 1 warp each"
        ),
        "{w}"
    );
    assert!(w.contains("launch_cfg::<32>(numel as u32)"), "{w}");

    // 4. `Self::BLOCK` in an impl.
    let w = warning(
        &stderr,
        "block_limit",
        "rows on sm_80: 32-thread blocks hit the limit of 32 resident blocks per SM: 32 of 64 warps (50%)",
    );
    assert!(w.contains("block_dim: (Self::BLOCK, 1, 1)"), "{w}");

    // 5. A run-time choice: the 32 arm, with its own shared memory (the arms stay together:
    //    no plan pairs 32 threads with the 1024 arm's 4 KiB). Both arms launch at one
    //    place: one warning per lint and target there, the worst arm's, naming the other.
    warning(
        &stderr,
        "low_occupancy",
        "choose (block = 32, smem = 128 B) on sm_80: 50% occupancy (32 of 64 warps), below the 75% floor",
    );
    let w = warning(
        &stderr,
        "low_occupancy",
        "choose (block = 32, smem = 128 B) on sm_86: 33.33% occupancy (16 of 48 warps), below the 75% floor",
    );
    assert!(
        w.contains(
            "= note: also 1 more launch of `choose` here, worst first: block = 1024, smem = 4 KiB (66.67%)"
        ),
        "{w}"
    );
    assert_eq!(
        stderr.matches("low_occupancy`: choose").count(),
        2,
        "one warning per target for both arms: {stderr}"
    );
    assert!(
        !stderr.contains("choose (block = 32, smem = 4 KiB)"),
        "{stderr}"
    );

    // 6. Shared memory that grows with the data, through the padded row that also decides
    //    the block: each padded size up to the guard's 8192 checked, block and shared memory
    //    paired as the code pairs them (1024 threads with 32 KiB, never 32 threads with it),
    //    the findings of the range in one diagnostic per lint and target.
    let w = warning(
        &stderr,
        "low_occupancy",
        "sort_rows (block = 1, smem = 4 B) on sm_86: 33.33% occupancy (16 of 48 warps), below the 75% floor",
    );
    assert!(
        w.contains(
            "= note: `ncols_pad` from `ncols.next_power_of_two()`: each of 1, 2, 4, ..., 8192 checked"
        ),
        "{w}"
    );
    assert!(
        w.contains("block = 64, smem = 256 B (66.67%)")
            && w.contains("block = 1024, smem = 32 KiB (66.67%)"),
        "{w}"
    );
    assert!(w.contains("block_dim: (ncols_pad.min(1024), 1, 1)"), "{w}");
    assert!(!stderr.contains("block = 32, smem = 32 KiB"), "{stderr}");
    assert_eq!(
        stderr.matches("low_occupancy`: sort_rows").count(),
        2,
        "one diagnostic per target for the whole range: {stderr}"
    );

    // 7. A family of kernels named at run time: one warning for the three, worst first.
    let w = warning(
        &stderr,
        "low_occupancy",
        "badd (kernel badd_f32) on sm_86: 66.67% occupancy (32 of 48 warps), below the 75% floor",
    );
    assert!(
        w.contains(
            "= note: also 2 more kernels of the family, worst first: badd_f64 (66.67%), badd_u32 (66.67%)"
        ),
        "{w}"
    );
    // One diagnostic for the family's three kernels on sm_86, none on sm_80 (all at 100%).
    assert_eq!(stderr.matches("badd (kernel").count(), 1, "{stderr}");
    //    The name built by the crate's own helper (`kernel_name::<T>(root)`, candle's) from
    //    a root a `match` chose with the block: the family with each arm's block, and the
    //    build (which had the compiler confirm the helper read) succeeded.
    let w = warning(
        &stderr,
        "block_limit",
        "badd_sized (block = 64, kernel badd_f32) on sm_86: 64-thread blocks hit the limit of 16 resident blocks per SM: 32 of 48 warps (66.67%)",
    );
    assert!(
        w.contains(
            "also 2 more kernels of the family, worst first: badd_f64 (66.67%), badd_u32 (66.67%)"
        ),
        "{w}"
    );
    warning(
        &stderr,
        "low_occupancy",
        "badd_sized (block = 1024, kernel badd_f32) on sm_86: 66.67% occupancy (32 of 48 warps), below the 75% floor",
    );

    // 8. A module declared twice under opposite `cfg`s (candle-core's `quantized::cuda`):
    //    the file's declaration is the one compiled with it, and the block comes from that
    //    module's private helpers, `pad(1, WARP)` = 32 threads. The build above succeeded:
    //    the compiler found the helpers where the expansion named them.
    let w = warning(
        &stderr,
        "low_occupancy",
        "quantize_rows on sm_86: 33.33% occupancy (16 of 48 warps), below the 75% floor",
    );
    assert!(
        w.contains("--> src/quantized/cuda.rs:21:20")
            && w.contains("block_dim: (pad(1, WARP) as u32, 1, 1)"),
        "{w}"
    );
    //    Beside it, a helper generic over types (candle's `slice_ptr`), whose function item
    //    cannot be named for the compiler without them: not read, and the launch, which
    //    does not use its result, still checked (it had failed the build: "type annotations
    //    needed").
    let w = warning(
        &stderr,
        "low_occupancy",
        "select_rows on sm_86: 33.33% occupancy (16 of 48 warps), below the 75% floor",
    );
    assert!(w.contains("--> src/quantized/cuda.rs:44:20"), "{w}");
    //    One level up, `gpu` declared twice: where `gpu::ops` is in the module tree is not
    //    known, so its helpers are named from the wrapper's module (`self::warps`, and
    //    `super::warps` from `gpu::ops::inner`), 64 and 32 threads.
    let w = warning(
        &stderr,
        "block_limit",
        "gpu_rows on sm_86: 64-thread blocks hit the limit of 16 resident blocks per SM: 32 of 48 warps (66.67%)",
    );
    assert!(w.contains("--> src/gpu/ops.rs:15:20"), "{w}");
    let w = warning(
        &stderr,
        "low_occupancy",
        "gpu_inner_rows on sm_80: 50% occupancy (32 of 64 warps), below the 75% floor",
    );
    assert!(w.contains("block_dim: (warps(1), 1, 1)"), "{w}");
}
