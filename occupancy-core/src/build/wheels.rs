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

/// A CUDA command-line tool the finders look for ([`super::Ptxas`], [`super::Nvcc`]): one
/// search and one version check for both.
pub(crate) struct Tool {
    /// The executable's name (`ptxas`).
    pub executable: &'static str,
    /// The environment variable naming it (`OCCUPANCY_PTXAS`).
    pub env: &'static str,
    /// Where the PyPI wheels put it below site-packages, newest first.
    pub wheel_relative: &'static [&'static str],
    /// How to get one, for the error when none is found.
    pub install_hint: &'static str,
    /// "a ptxas" / "an nvcc", and a release as `--version` prints it (`release 12.9`), for
    /// the error when it prints none.
    pub release_noun: &'static str,
    /// See `release_noun`.
    pub example_release: &'static str,
}

impl Tool {
    /// The executable at `path` and its release, asked with `--version`.
    pub(crate) fn at(&self, path: &Path) -> Result<(PathBuf, crate::resources::Toolkit), String> {
        let out = std::process::Command::new(path)
            .arg("--version")
            .output()
            .map_err(|e| format!("cannot run {}: {e}", path.display()))?;
        let text = String::from_utf8_lossy(&out.stdout);
        match release_of(&text) {
            Some(version) if out.status.success() => Ok((path.to_path_buf(), version)),
            _ => Err(format!(
                "{} --version did not print {} release (\"{}\"): {}",
                path.display(),
                self.release_noun,
                self.example_release,
                text.trim()
            )),
        }
    }

    /// The executable `configured` names (the file, its folder, or `none`), else the one the
    /// environment variable names (the same), else the first of [`tool_candidates`] that
    /// runs. The error says why there is none and how to install one.
    pub(crate) fn find(
        &self,
        configured: Option<&Path>,
    ) -> Result<(PathBuf, crate::resources::Toolkit), String> {
        let env = self.env;
        let choice = configured
            .map(|p| p.as_os_str().to_owned())
            .or_else(|| std::env::var_os(env));
        if let Some(v) = choice {
            if v == "none" || v.is_empty() {
                return Err(format!("{env}={}", v.to_string_lossy()));
            }
            let p = PathBuf::from(&v);
            let exe = if p.is_dir() {
                p.join(self.executable)
            } else {
                p
            };
            return self
                .at(&exe)
                .map_err(|e| format!("{env}={}: {e}", v.to_string_lossy()));
        }
        let mut errors = Vec::new();
        for path in tool_candidates(self.executable, self.wheel_relative) {
            match self.at(&path) {
                Ok(found) => return Ok(found),
                Err(e) => errors.push(e),
            }
        }
        let tried = if errors.is_empty() {
            String::new()
        } else {
            format!(" ({})", errors.join("; "))
        };
        Err(format!(
            "no {} found{tried}: {}",
            self.executable, self.install_hint
        ))
    }
}
