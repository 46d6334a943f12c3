//! Compiles the C++ shim around NVIDIA's `cuda_occupancy.h` when the header is available.
//!
//! The header is never part of this repository: point `CUDA_OCCUPANCY_H` at it (the file or
//! its folder), or install it with `pip install nvidia-cuda-runtime` (into
//! `site-packages/nvidia/cu13/include/`), where this script finds it through `python3`.
//! Without it the benchmarks run the engine alone and the header oracle test skips (fails
//! with `OCCUPANCY_REQUIRE_HEADER=1`).

use std::path::PathBuf;

fn main() {
    println!("cargo:rerun-if-env-changed=CUDA_OCCUPANCY_H");
    println!("cargo:rerun-if-changed=cpp/header_shim.cpp");
    println!("cargo::rustc-check-cfg=cfg(cuda_occupancy_header)");
    let Some(path) = std::env::var_os("CUDA_OCCUPANCY_H")
        .map(PathBuf::from)
        .or_else(pip_header)
    else {
        return;
    };
    let dir = if path.is_dir() {
        path
    } else {
        path.parent().map(PathBuf::from).unwrap_or_default()
    };
    if !dir.join("cuda_occupancy.h").is_file() {
        println!(
            "cargo:warning=CUDA_OCCUPANCY_H={}: no cuda_occupancy.h there; benchmarking the engine alone",
            dir.display()
        );
        return;
    }
    cc::Build::new()
        .cpp(true)
        .file("cpp/header_shim.cpp")
        .include(&dir)
        .opt_level(2)
        .flag_if_supported("-std=c++17")
        .compile("header_shim");
    println!("cargo:rustc-cfg=cuda_occupancy_header");
}

/// The folder of `cuda_occupancy.h` in the `nvidia-cuda-runtime` package of the `python3`
/// on the PATH, if installed.
fn pip_header() -> Option<PathBuf> {
    const FIND: &str = "import importlib.util as u, pathlib as p; s = u.find_spec('nvidia'); \
        print(next((str(h.parent) for r in (s.submodule_search_locations if s else []) \
        for h in sorted(p.Path(r).glob('*/include/cuda_occupancy.h'))), ''))";
    let out = std::process::Command::new("python3")
        .args(["-c", FIND])
        .output()
        .ok()?;
    let dir = String::from_utf8(out.stdout).ok()?;
    let dir = PathBuf::from(dir.trim());
    dir.join("cuda_occupancy.h").is_file().then_some(dir)
}
