//! The build-script call on objects nvcc builds here: findings as cargo warnings at the
//! `.cu` line, deny-level findings collected, the policy's levels and candidates, the
//! rerun-if-changed lines and the record for `report`.
//!
//! Needs nvcc (`occupancy_core::build::Nvcc::find`); skips with a message without it,
//! unless `OCCUPANCY_REQUIRE_NVCC=1` (set by CI).

use std::path::PathBuf;

use occupancy_cuda::{CudaLaunches, Outcome};

/// nvcc (occupancy's finder: `OCCUPANCY_NVCC`, the PyPI wheel, CUDA_PATH, PATH), or
/// `None` after the skip message; a failure when `OCCUPANCY_REQUIRE_NVCC=1`.
fn nvcc() -> Option<occupancy_core::build::Nvcc> {
    match occupancy_core::build::Nvcc::find(None) {
        Ok(n) => Some(n),
        Err(why) => {
            assert_ne!(
                std::env::var("OCCUPANCY_REQUIRE_NVCC").as_deref(),
                Ok("1"),
                "OCCUPANCY_REQUIRE_NVCC=1 but {why}"
            );
            eprintln!("skipped: {why}");
            None
        }
    }
}

const SOURCE: &str = r#"#include <cuda_runtime.h>
#define BLOCK 1024
template <typename T, int N> __global__ void scale(T* x, int n) {
  __shared__ T tile[N];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) { tile[threadIdx.x % N] = x[i]; __syncthreads(); x[i] = tile[(threadIdx.x + 1) % N] * 2; }
}
__global__ void heavy(float* x, int n) {
  extern __shared__ float s[];
  float acc[64];
  for (int j = 0; j < 64; j++) acc[j] = x[(threadIdx.x + j) % n];
  float t = 0; for (int j = 0; j < 64; j++) t += acc[j] * acc[63 - j];
  s[threadIdx.x] = t; __syncthreads(); x[threadIdx.x] = s[(threadIdx.x + 1) % blockDim.x];
}
extern "C" void launch_scale(float* x, int n, int head, cudaStream_t s) {
  switch (head) {
    case 32: scale<float, 32><<<(n + 31) / 32, 32, 0, s>>>(x, n); break;
    case 128: scale<float, 128><<<(n + 127) / 128, 128, 0, s>>>(x, n); break;
  }
}
extern "C" void launch_heavy(float* x, int n, cudaStream_t s) {
  heavy<<<n, BLOCK, 64 * 1024, s>>>(x, n);
}
extern "C" void launch_any(float* x, int n, int threads, cudaStream_t s) {
  scale<float, 128><<<n, threads, 0, s>>>(x, n);
}
"#;

/// A crate with `src/cuda/k.cu`, compiled by nvcc for sm_80 and sm_90 into a static
/// library: (crate dir, library).
fn crate_with_library(policy: Option<&str>) -> Option<(tempfile::TempDir, PathBuf)> {
    let nvcc = nvcc()?;
    let dir = tempfile::tempdir().unwrap();
    let cuda = dir.path().join("src/cuda");
    std::fs::create_dir_all(&cuda).unwrap();
    std::fs::write(cuda.join("k.cu"), SOURCE).unwrap();
    std::fs::write(dir.path().join("Cargo.toml"), "[package]\nname = \"k\"\n").unwrap();
    if let Some(p) = policy {
        std::fs::write(dir.path().join("occupancy.toml"), p).unwrap();
    }
    let object = dir.path().join("k.o");
    let status = nvcc
        .command()
        .args(["-c", "-o"])
        .arg(&object)
        .arg(cuda.join("k.cu"))
        .args([
            "-gencode",
            "arch=compute_80,code=sm_80",
            "-gencode",
            "arch=compute_90,code=sm_90",
        ])
        .status()
        .unwrap();
    assert!(status.success());
    let lib = dir.path().join("libk.a");
    let status = nvcc
        .command()
        .arg("--lib")
        .arg("-o")
        .arg(&lib)
        .arg(&object)
        .status()
        .unwrap();
    assert!(status.success());
    Some((dir, lib))
}

#[test]
fn findings_are_cargo_warnings_at_the_cu_line_and_deny_fails() {
    let Some((dir, lib)) = crate_with_library(None) else {
        return;
    };
    let out = dir.path().join("out");
    let report = CudaLaunches::new("src/cuda")
        .crate_dir(dir.path())
        .objects([&lib])
        .out_dir(&out)
        .try_check()
        .unwrap();
    let lines = report.cargo_lines.join("\n");
    assert!(
        lines.contains("cargo:warning=src/cuda/k.cu:17: warning: block_limit: launch_scale (scale<float, 32>, head == 32) on sm_80: 32-thread blocks hit the limit of 32 resident blocks per SM: 32 of 64 warps (50%)"),
        "{lines}"
    );
    assert!(
        lines
            .contains("cargo:warning== help: block = 64 gives 100% (32 blocks/SM, 64 of 64 warps)")
    );
    // head == 128 runs at 100%: nothing on line 18.
    assert!(!lines.contains("k.cu:18"), "{lines}");
    // 1024 threads x 80 registers cannot launch: deny-level, on both targets.
    assert_eq!(report.denied.len(), 2, "{:#?}", report.denied);
    assert!(report.denied[0].starts_with("src/cuda/k.cu:22: error: launch_impossible: launch_heavy (heavy) on sm_80: a block of 1024 threads needs"));
    // The run-time block of launch_any: listed, not checked.
    let any = report.checked.iter().find(|c| c.launch.line == 25).unwrap();
    match &any.paths[0].outcome {
        Outcome::NotChecked(why) => {
            assert!(why.starts_with("run time, not checked: the block"), "{why}")
        }
        Outcome::Checked(..) => panic!("a run-time block was checked"),
    }
    assert!(
        lines.contains(
            "occupancy: CUDA C++ launches: 4 launch sites, 4 paths: 3 checked, 1 not checked"
        ),
        "{lines}"
    );
    // Rerun on the sources and the library (outside OUT_DIR), not on a missing policy.
    assert!(lines.contains(&format!("cargo:rerun-if-changed={}", lib.display())));
    assert!(lines.contains("/src/cuda/k.cu\n"), "{lines}");
    assert!(
        !lines
            .lines()
            .any(|l| l.starts_with("cargo:rerun-if-changed=") && l.ends_with("occupancy.toml")),
        "{lines}"
    );
    // No policy names targets: those the library is compiled for, said so.
    assert!(
        lines.contains("= note: targets sm_80, sm_90: the ones the build script compiles for"),
        "{lines}"
    );
    let record: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(out.join(occupancy_cuda::OUT_DIR_RECORD)).unwrap(),
    )
    .unwrap();
    assert_eq!(record["objects"][0], lib.display().to_string());
    assert_eq!(record["dirs"][0], "src/cuda");
}

#[test]
fn the_policy_sets_levels_targets_and_candidates() {
    let policy = "targets = [\"sm_90\", \"sm_86\"]\n[lints]\nblock_limit = \"allow\"\nlaunch_impossible = \"deny\"\n\n[launches.launch_any]\nblock = [96, 1024]\n";
    let Some((dir, lib)) = crate_with_library(Some(policy)) else {
        return;
    };
    let report = CudaLaunches::new("src/cuda")
        .crate_dir(dir.path())
        .objects([&lib])
        .out_dir(dir.path().join("out"))
        .try_check()
        .unwrap();
    let lines = report.cargo_lines.join("\n");
    assert!(!lines.contains("block_limit"), "{lines}");
    assert!(lines.contains(&format!(
        "cargo:rerun-if-changed={}",
        dir.path().join("occupancy.toml").display()
    )));
    let any = report.checked.iter().find(|c| c.launch.line == 25).unwrap();
    let blocks: Vec<String> = any
        .paths
        .iter()
        .map(|p| match &p.outcome {
            Outcome::Checked(spec, e) => format!(
                "{} on {}: {:.2}%",
                spec.plans[0].label.as_deref().unwrap_or(""),
                e.cases[0].targets[0].target,
                e.cases[0].targets[0].occupancy.as_ref().unwrap().percent()
            ),
            Outcome::NotChecked(why) => why.clone(),
        })
        .collect();
    // sm_86 has an sm_80 cubin that runs there; sm_90 its own.
    assert_eq!(
        blocks,
        [
            "scale<float, 128>, block = 96 on sm_90: 98.44%",
            "scale<float, 128>, block = 1024 on sm_90: 100.00%",
        ]
    );
    let Outcome::Checked(spec, _) = &any.paths[0].outcome else {
        unreachable!()
    };
    let targets: Vec<String> = spec.targets.iter().map(|t| t.target.to_string()).collect();
    assert_eq!(targets, ["sm_90", "sm_86"]);
}

/// A crate with no Rust attribute and `src/cuda/k.cu` holding `source`, with `policy` as its
/// `occupancy.toml` when given.
fn cuda_only_crate(source: &str, policy: Option<&str>) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let cuda = dir.path().join("src/cuda");
    std::fs::create_dir_all(&cuda).unwrap();
    std::fs::write(cuda.join("k.cu"), source).unwrap();
    std::fs::write(dir.path().join("Cargo.toml"), "[package]\nname = \"k\"\n").unwrap();
    if let Some(p) = policy {
        std::fs::write(dir.path().join("occupancy.toml"), p).unwrap();
    }
    dir
}

/// Before: a bad target in the policy of a crate with no Rust attribute ended with "every
/// #[occupancy::check] of the crate reads it": the build script's check is what reads it
/// there. (No nvcc needed: the policy is read before anything else.)
#[test]
fn a_bad_policy_names_the_build_scripts_check_as_its_reader() {
    let dir = cuda_only_crate(SOURCE, Some("targets = [\"sm_95\"]\n"));
    let policy = dir.path().join("occupancy.toml");
    let error = match CudaLaunches::new("src/cuda")
        .crate_dir(dir.path())
        .try_check()
    {
        Ok(_) => panic!("a bad policy was accepted"),
        Err(e) => e,
    };
    assert_eq!(
        error,
        format!(
            "{0}:1:12: `targets`: unknown compute capability 9.5 (`sm_95`); did you mean `sm_90` \
             or `sm_100`?\n\
             the policy file {0} has 1 problem (above); the build script's check of the CUDA C++ \
             launches (occupancy_cuda::CudaLaunches) reads it and fails the build until it is \
             fixed",
            policy.display()
        )
    );
    assert!(!error.contains("#[occupancy::check]"), "{error}");
}
