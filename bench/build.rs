//! Compiles the C++ shim around NVIDIA's `cuda_occupancy.h` when the header is available.
//!
//! The header is never part of this repository: point `CUDA_OCCUPANCY_H` at it (the file or
//! its folder; `pip install nvidia-cuda-runtime` puts it in
//! `site-packages/nvidia/cu13/include/`). Without it the benchmarks run the engine alone.

use std::path::PathBuf;

fn main() {
    println!("cargo:rerun-if-env-changed=CUDA_OCCUPANCY_H");
    println!("cargo:rerun-if-changed=cpp/header_shim.cpp");
    println!("cargo::rustc-check-cfg=cfg(cuda_occupancy_header)");
    let Some(path) = std::env::var_os("CUDA_OCCUPANCY_H").map(PathBuf::from) else {
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
