//! Compiles the C++ shim around NVIDIA's `cuda_occupancy.h` when the header is available.
//!
//! The header is never part of this repository: point `CUDA_OCCUPANCY_H` at it (the file or
//! its folder), or install it with `pip install nvidia-cuda-runtime` (into
//! `site-packages/nvidia/cu13/include/`), where this script finds it through `python3`.
//! Without it the benchmarks run the engine alone and the header oracle test skips (fails
//! with `OCCUPANCY_REQUIRE_HEADER=1`). The script reruns when the header appears where pip
//! puts it (it watches the `nvidia` package folders and the site-packages folders of that
//! `python3`, only those that exist, so that a build with nothing new is fresh), and when
//! `CUDA_OCCUPANCY_H`, `PATH` or `VIRTUAL_ENV` changes.

use std::path::PathBuf;

fn main() {
    println!("cargo:rerun-if-env-changed=CUDA_OCCUPANCY_H");
    println!("cargo:rerun-if-changed=cpp/header_shim.cpp");
    println!("cargo::rustc-check-cfg=cfg(cuda_occupancy_header)");
    let path = match std::env::var_os("CUDA_OCCUPANCY_H") {
        Some(path) => PathBuf::from(path),
        None => {
            let pip = pip_header();
            // Rerun when the header appears where pip would put it (or goes away), and when
            // another `python3` may be the one found; cargo walks each folder watched for
            // its newest file, so the smallest one that would change is watched.
            println!("cargo:rerun-if-env-changed=PATH");
            println!("cargo:rerun-if-env-changed=VIRTUAL_ENV");
            for place in &pip.watch {
                println!("cargo:rerun-if-changed={}", place.display());
            }
            match pip.header_dir {
                Some(dir) => dir,
                None => return,
            }
        }
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

/// Where `python3` (the one on the PATH) has NVIDIA's pip packages.
struct Pip {
    /// The folder of `cuda_occupancy.h` of the `nvidia-cuda-runtime` package, if installed.
    header_dir: Option<PathBuf>,
    /// What to watch for the header to appear or go: the header itself when installed;
    /// else each `nvidia` package folder, and each `site-packages` folder that has none
    /// (where `pip install` would create it).
    watch: Vec<PathBuf>,
}

/// [`Pip`] for the `python3` on the PATH (nothing when there is none).
fn pip_header() -> Pip {
    const FIND: &str = "import importlib.util as u, pathlib as p, site\n\
        s = u.find_spec('nvidia')\n\
        roots = list(s.submodule_search_locations) if s else []\n\
        h = next((h for r in roots for h in sorted(p.Path(r).glob('*/include/cuda_occupancy.h'))), None)\n\
        print(h or '')\n\
        sites = site.getsitepackages() + [site.getusersitepackages()]\n\
        for d in roots + [d for d in sites if not p.Path(d, 'nvidia').is_dir()]: print(d)";
    let mut pip = Pip {
        header_dir: None,
        watch: Vec::new(),
    };
    let Ok(out) = std::process::Command::new("python3")
        .args(["-c", FIND])
        .output()
    else {
        return pip;
    };
    let text = String::from_utf8_lossy(&out.stdout);
    let mut lines = text.lines();
    let header = lines.next().map(PathBuf::from).filter(|h| h.is_file());
    match header {
        Some(header) => {
            pip.header_dir = header.parent().map(PathBuf::from);
            pip.watch.push(header);
        }
        // Only folders that exist: a missing one would rerun every build.
        None => pip
            .watch
            .extend(lines.map(PathBuf::from).filter(|d| d.is_dir())),
    }
    pip
}
