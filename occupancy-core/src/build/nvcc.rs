//! nvcc, found for a build script that compiles its `.cu` files into objects and static
//! libraries (whose kernels [`crate::resources::host`] then reads), and for tests. The PyPI
//! wheels of CUDA 13 carry a complete nvcc that needs no GPU, no driver and no CUDA toolkit,
//! only a host C++ compiler (`g++`):
//!
//! ```text
//! pip install nvidia-cuda-nvcc==13.5.37 nvidia-nvvm==13.5.37 nvidia-cuda-crt==13.5.37 \
//!     nvidia-cuda-runtime==13.5.37 nvidia-cuda-cccl==13.3.5.0.6
//! ```
//!
//! puts it at `nvidia/cu13/bin/nvcc` below site-packages, with `cicc`, `ptxas`, `fatbinary`,
//! `nvlink` beside it and the headers under `nvidia/cu13/include` (its `nvcc.profile` points
//! there). CUDA 12's `nvidia-cuda-nvcc-cu12` has only ptxas, no nvcc.
//!
//! ```no_run
//! use occupancy_core::build::Nvcc;
//! // $OCCUPANCY_NVCC, the wheel, $CUDA_PATH / $CUDA_HOME / /usr/local/cuda, then PATH.
//! let nvcc = Nvcc::find(None).unwrap();
//! println!("nvcc {} at {}", nvcc.version, nvcc.path.display());
//! let status = nvcc
//!     .command()
//!     .args(["-c", "src/cuda/gemm.cu", "-o", "gemm.o"])
//!     .args(["-gencode", "arch=compute_90,code=sm_90"])
//!     .status()
//!     .unwrap();
//! assert!(status.success());
//! ```

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::resources::Toolkit;

/// The environment variable naming the nvcc to use: the executable or its folder, or `none`
/// to use none.
pub const ENV_NVCC: &str = "OCCUPANCY_NVCC";

/// Where the PyPI wheels put nvcc below `site-packages`: `nvidia-cuda-nvcc` (CUDA 13).
pub(crate) const WHEEL_EXECUTABLES: &[&str] = &["nvidia/cu13/bin/nvcc"];

/// How to get an nvcc, for messages.
pub(crate) const INSTALL_HINT: &str = "install it with `pip install nvidia-cuda-nvcc==13.5.37 \
     nvidia-nvvm==13.5.37 nvidia-cuda-crt==13.5.37 nvidia-cuda-runtime==13.5.37 \
     nvidia-cuda-cccl==13.3.5.0.6` (no GPU or CUDA toolkit needed; a host g++ is) or set \
     OCCUPANCY_NVCC=/path/to/nvcc";

/// How [`Nvcc::find`] looks for nvcc.
const TOOL: super::wheels::Tool = super::wheels::Tool {
    executable: "nvcc",
    env: ENV_NVCC,
    wheel_relative: WHEEL_EXECUTABLES,
    install_hint: INSTALL_HINT,
    release_noun: "an nvcc",
    example_release: "release 13.5",
};

/// An nvcc executable and its release.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Nvcc {
    /// The executable.
    pub path: PathBuf,
    /// Its CUDA release (`nvcc --version`: "release 13.5, V13.5.37").
    pub version: Toolkit,
}

impl Nvcc {
    /// The nvcc at `path`, after asking it its version (`nvcc --version`).
    pub fn at(path: &Path) -> Result<Self, String> {
        TOOL.at(path).map(|(path, version)| Self { path, version })
    }

    /// The nvcc to use: `configured` (an executable, its folder, or `none`), else
    /// `$OCCUPANCY_NVCC` (the same), else the first that runs of: the PyPI wheel
    /// `nvidia-cuda-nvcc` in every site-packages `python3` reports
    /// (`nvidia/cu13/bin/nvcc`), `$CUDA_PATH/bin`, `$CUDA_HOME/bin`, `/usr/local/cuda/bin`,
    /// then `PATH` (the same search as [`super::Ptxas::find`]). The error says why there is
    /// none and how to install one.
    pub fn find(configured: Option<&Path>) -> Result<Self, String> {
        TOOL.find(configured)
            .map(|(path, version)| Self { path, version })
    }

    /// A command running this nvcc, to add arguments to.
    pub fn command(&self) -> Command {
        Command::new(&self.path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_nvcc_says_how_to_install_one() {
        let e = Nvcc::find(Some(Path::new("/nonexistent/bin/nvcc"))).unwrap_err();
        assert!(
            e.starts_with("OCCUPANCY_NVCC=/nonexistent/bin/nvcc: cannot run"),
            "{e}"
        );
        assert_eq!(
            Nvcc::find(Some(Path::new("none"))).unwrap_err(),
            "OCCUPANCY_NVCC=none"
        );
        assert_eq!(
            super::super::wheels::release_of(
                "nvcc: NVIDIA (R) Cuda compiler driver\nCuda compilation tools, release 13.5, V13.5.37\n"
            ),
            Some(Toolkit {
                major: 13,
                minor: 5
            })
        );
        // Not nvcc: no release line.
        let e = Nvcc::at(Path::new("/bin/true")).unwrap_err();
        assert!(e.contains("did not print an nvcc release"), "{e}");
    }
}
