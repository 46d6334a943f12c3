//! Where NVIDIA's PyPI wheels put their files: below every `site-packages` folder the
//! Python on `PATH` reports (and the active virtual environment's). Both NVRTC
//! (`nvidia-cuda-nvrtc-cu12`: `nvidia/cuda_nvrtc/lib/`) and ptxas (`nvidia-cuda-nvcc-cu12`:
//! `nvidia/cuda_nvcc/bin/`) are found there.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// The `site-packages` (and other `sys.path`) folders of `python3` (else `python`), then
/// those of `$VIRTUAL_ENV`; asked once per process.
pub(crate) fn site_packages() -> &'static [PathBuf] {
    static ROOTS: OnceLock<Vec<PathBuf>> = OnceLock::new();
    ROOTS.get_or_init(|| {
        let mut roots: Vec<PathBuf> = Vec::new();
        for python in ["python3", "python"] {
            let out = std::process::Command::new(python)
                .args([
                    "-c",
                    "import site,sys\nfor p in list(getattr(site,'getsitepackages',lambda:[])())+[site.getusersitepackages()]+sys.path: print(p)",
                ])
                .output();
            if let Some(out) = out.ok().filter(|o| o.status.success()) {
                roots.extend(
                    String::from_utf8_lossy(&out.stdout)
                        .lines()
                        .filter(|l| !l.is_empty())
                        .map(PathBuf::from),
                );
                break;
            }
        }
        if let Some(venv) = std::env::var_os("VIRTUAL_ENV")
            && let Ok(dirs) = std::fs::read_dir(Path::new(&venv).join("lib"))
        {
            roots.extend(dirs.flatten().map(|d| d.path().join("site-packages")));
        }
        roots
    })
}

/// The files `relative` (each below a `site-packages` folder) that exist, in the order of
/// [`site_packages`] then of `relative`, without repeats.
pub(crate) fn installed(relative: &[&str]) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = Vec::new();
    for root in site_packages() {
        for rel in relative {
            let p = root.join(rel);
            if p.is_file() && !out.contains(&p) {
                out.push(p);
            }
        }
    }
    out
}

/// Every place a CUDA command-line tool (`ptxas`, `nvcc`) may be, in the order the finders
/// try them: the PyPI wheels' `wheel_relative` paths below every site-packages folder
/// ([`installed`]), then `$CUDA_PATH/bin`, `$CUDA_HOME/bin`, `/usr/local/cuda/bin` and every
/// `PATH` folder; only files that exist, without repeats.
pub(crate) fn tool_candidates(executable: &str, wheel_relative: &[&str]) -> Vec<PathBuf> {
    let mut candidates = installed(wheel_relative);
    let mut dirs: Vec<PathBuf> = ["CUDA_PATH", "CUDA_HOME"]
        .iter()
        .filter_map(std::env::var_os)
        .map(|d| PathBuf::from(d).join("bin"))
        .collect();
    dirs.push(PathBuf::from("/usr/local/cuda/bin"));
    if let Some(path) = std::env::var_os("PATH") {
        dirs.extend(std::env::split_paths(&path));
    }
    for p in dirs.iter().map(|d| d.join(executable)) {
        if p.is_file() && !candidates.contains(&p) {
            candidates.push(p);
        }
    }
    candidates
}

/// The CUDA release a tool's `--version` printed (`... release 13.5, V13.5.37`).
pub(crate) fn release_of(version_output: &str) -> Option<crate::resources::Toolkit> {
    version_output
        .split("release ")
        .nth(1)
        .and_then(|rest| rest.split([',', ' ', '\n']).next())
        .and_then(|v| crate::resources::Toolkit::parse(v).ok())
}
