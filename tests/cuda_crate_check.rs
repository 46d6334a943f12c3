//! The occupancy check of the CUDA C++ test crate's launches in `cargo build`
//! (`tests/fixtures/cuda-crate` with its `occupancy` feature: `build.rs` calls
//! `occupancy_cuda::CudaLaunches::new("src/cuda").objects([&lib]).check()` on the library it
//! built with nvcc), built with plain cargo from a copy:
//!
//! 1. as committed: the build prints EXPECTED.md's findings as cargo warnings at their
//!    `.cu` lines, and its two deny-level ones (softmax's shared memory past 48 KiB, the
//!    cluster launch on sm_80) fail the build script;
//! 2. with candidates for softmax's run-time shared memory (a comment on the launch) and
//!    sm_90 as the only target (`OCCUPANCY_POLICY`), it builds; a second build is fresh; an
//!    edited `.cu` file or policy reruns the check.
//!
//! Needs nvcc (see tests/cuda_crate.rs); without it the test skips with a message, and
//! `OCCUPANCY_REQUIRE_NVCC=1` (set by CI) makes that a failure.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn target_dir() -> PathBuf {
    root().join("target/fixture-cuda-crate-check")
}

/// Whether nvcc is there (a failure when `OCCUPANCY_REQUIRE_NVCC=1`).
fn has_nvcc() -> bool {
    match occupancy_core::build::Nvcc::find(None) {
        Ok(_) => true,
        Err(why) => {
            assert_ne!(
                std::env::var("OCCUPANCY_REQUIRE_NVCC").as_deref(),
                Ok("1"),
                "OCCUPANCY_REQUIRE_NVCC=1 but {why}"
            );
            eprintln!("skipped: {why}");
            false
        }
    }
}

/// `cargo build -v --features occupancy` in `dir`: whether it succeeded, its stderr.
fn build(dir: &Path, policy: Option<&Path>) -> (bool, String) {
    let mut command = Command::new(env!("CARGO"));
    command
        .args(["build", "-v", "--features", "occupancy", "--manifest-path"])
        .arg(dir.join("Cargo.toml"))
        .env("CARGO_TARGET_DIR", target_dir())
        .env("CARGO_TERM_COLOR", "never")
        .env_remove("RUSTFLAGS")
        .env_remove("CARGO_ENCODED_RUSTFLAGS");
    match policy {
        Some(p) => command.env("OCCUPANCY_POLICY", p),
        None => command.env_remove("OCCUPANCY_POLICY"),
    };
    let out = command.output().expect("run cargo");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr),
    )
}

fn has(output: &str, text: &str) {
    assert!(output.contains(text), "missing `{text}` in:\n{output}");
}

#[test]
fn the_build_prints_the_findings_and_fails_on_deny_then_builds_fresh() {
    if !has_nvcc() {
        return;
    }
    let dir = common::copy_cuda_crate(&format!("occupancy-cuda-check-{}", std::process::id()));
    let start = Instant::now();
    let (ok, out) = build(&dir, None);
    eprintln!(
        "first build (nvcc, the check): {:.1} s",
        start.elapsed().as_secs_f64()
    );
    assert!(
        !ok,
        "EXPECTED.md's deny-level findings must fail the build:\n{out}"
    );
    // EXPECTED.md's findings, at their lines (cargo shows a failed build script's output).
    for line in [
        "cargo:warning=src/cuda/elementwise.cu:98: warning: block_limit: launch_copy_segments (copy_segments_kernel) on sm_80: 32-thread blocks hit the limit of 32 resident blocks per SM: 32 of 64 warps (50%)",
        "cargo:warning=src/cuda/elementwise.cu:105: warning: block_limit: launch_row_sum (row_sum_kernel) on sm_90",
        "cargo:warning=src/cuda/reduce.cu:170: warning: block_limit: launch_softmax_cached (softmax_cached_kernel, block = 32, smem = 128 (the largest of 0..=128)) on sm_80",
        "cargo:warning=src/cuda/attention.cu:106: warning: low_occupancy: run_decode_attention (decode_attention_kernel<float, AttentionTraits<64>>, dtype == DTYPE_F32, head_dim == 64) on sm_80: 25% occupancy (16 of 64 warps), below the 50% floor",
        "cargo:warning=src/cuda/attention.cu:106: warning: low_occupancy: run_decode_attention (decode_attention_kernel<float, AttentionTraits<256>>, dtype == DTYPE_F32, head_dim == 256) on sm_90: 37.5% occupancy (24 of 64 warps), below the 50% floor",
        "cargo:warning== note: the same on 2 other paths of this launch: decode_attention_kernel<__half, AttentionTraits<64>>, dtype == DTYPE_F16, head_dim == 64; decode_attention_kernel<__nv_bfloat16, AttentionTraits<64>>, dtype == DTYPE_BF16, head_dim == 64",
        "cargo:warning=src/cuda/gemm.cu:219: warning: low_occupancy: launch_q4_gemm (q4_gemm_kernel) on sm_80: 12.5% occupancy (8 of 64 warps), below the 50% floor",
        "cargo:warning=src/cuda/gemm.cu:240: warning: low_occupancy: launch_tiled_gemm (tiled_gemm_kernel) on sm_80: 12.5% occupancy (8 of 64 warps), below the 50% floor",
        "cargo:warning=src/cuda/gemm.cu:240: warning: low_occupancy: launch_tiled_gemm (tiled_gemm_kernel) on sm_90: 25% occupancy (16 of 64 warps), below the 50% floor",
        "cargo:warning=occupancy: CUDA C++ launches: 19 launch sites, 41 paths: 40 checked, 1 not checked (run-time values, kernels not found)",
        "src/cuda/gemm.cu:258: error: launch_impossible: launch_cluster_gemv (cluster_gemv_kernel) on sm_80: compute capability 8.0 has no thread-block clusters (cc 9.0 and later)",
        "src/cuda/reduce.cu:170: error: launch_impossible: launch_softmax_cached (softmax_cached_kernel, block = 1024, smem = 49028 (the first value over the limit: 49152 B with 128 B static)) on sm_80",
        "error: 3 deny-level occupancy findings in the CUDA C++ launches",
    ] {
        has(&out, line);
    }
    // No finding where EXPECTED.md has none; the opt-ins cover attention and tiled_gemm.
    for quiet in [
        "elementwise.cu:81:",
        "elementwise.cu:87:",
        "elementwise.cu:92:",
        "elementwise.cu:110:",
        "elementwise.cu:117:",
        "reduce.cu:143:",
        "reduce.cu:149:",
        "reduce.cu:156:",
        "gemm.cu:226:",
        "gemm.cu:228:",
        "gemm.cu:230:",
    ] {
        assert!(!out.contains(quiet), "a finding on {quiet}:\n{out}");
    }
    assert!(!out.contains("attention.cu:106: error"), "{out}");
    assert!(!out.contains("gemm.cu:240: error"), "{out}");
    assert!(
        !out.contains(
            "smem = 49024 (the most that launches: 49152 B with 128 B static)) on sm_80: 0"
        ),
        "{out}"
    );

    // Candidates for softmax's run-time shared memory, sm_90 only: it builds.
    let reduce = dir.join("src/cuda/reduce.cu");
    let text = std::fs::read_to_string(&reduce).unwrap();
    let launch = "softmax_cached_kernel<<<rows, block, smem, stream>>>(y, x, cols);";
    assert!(text.contains(launch));
    std::fs::write(
        &reduce,
        text.replace(launch, &format!("{launch} // occupancy: smem = [4096]")),
    )
    .unwrap();
    let policy = dir.join("sm90.toml");
    std::fs::write(&policy, "targets = [\"sm_90\"]\nmin_occupancy = \"50%\"\n").unwrap();
    let start = Instant::now();
    let (ok, out) = build(&dir, Some(&policy));
    eprintln!(
        "second build (nvcc, the check): {:.1} s",
        start.elapsed().as_secs_f64()
    );
    assert!(ok, "{out}");
    has(
        &out,
        "warning: occupancy-cuda-crate@0.0.0: src/cuda/gemm.cu:219: warning: low_occupancy: launch_q4_gemm (q4_gemm_kernel) on sm_90: 12.5%",
    );
    assert!(!out.contains("on sm_80"), "{out}");
    // The build script's timing line: the check of 5 files and 41 paths.
    // A second build does nothing.
    let (ok, again) = build(&dir, Some(&policy));
    assert!(ok, "{again}");
    has(&again, "Fresh occupancy-cuda-crate");
    assert!(
        !again.contains("build-script-build`") && !again.contains("Compiling occupancy-cuda-crate"),
        "the second build was not fresh:\n{again}"
    );
    // An edited source reruns the build script (and so the check).
    std::thread::sleep(std::time::Duration::from_millis(1100));
    let text = std::fs::read_to_string(&reduce).unwrap();
    std::fs::write(&reduce, format!("{text}\n// edited\n")).unwrap();
    let (ok, edited) = build(&dir, Some(&policy));
    assert!(ok, "{edited}");
    has(&edited, "build-script-build`");
    has(&edited, "src/cuda/gemm.cu:219: warning: low_occupancy");
    // So does an edited policy: now sm_80 too, and the cluster launch cannot run there.
    std::thread::sleep(std::time::Duration::from_millis(1100));
    std::fs::write(&policy, "targets = [\"sm_80\", \"sm_90\"]\n").unwrap();
    let (ok, policy_edit) = build(&dir, Some(&policy));
    assert!(!ok, "{policy_edit}");
    has(
        &policy_edit,
        "src/cuda/gemm.cu:258: error: launch_impossible: launch_cluster_gemv (cluster_gemv_kernel) on sm_80",
    );
    let _ = std::fs::remove_dir_all(&dir);
}
