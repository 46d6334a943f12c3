//! ptxas, run as a program: assembles PTX for one real architecture and reads the resources
//! of every entry from the cubin it writes. PTX records no register counts; only ptxas
//! decides them, per target and per toolkit, so a project that ships PTX has its numbers
//! only this way. The PyPI wheel `nvidia-cuda-nvcc-cu12` carries a self-contained `ptxas`
//! (no GPU, no driver, no CUDA toolkit; `nvidia/cuda_nvcc/bin/ptxas` below site-packages).
//!
//! ```no_run
//! use occupancy_core::build::Ptxas;
//! use occupancy_core::resources::SmTarget;
//! let ptxas = Ptxas::find(None).unwrap();          // $OCCUPANCY_PTXAS, the wheels, CUDA_PATH, PATH
//! let ptx = std::fs::read_to_string("affine.ptx").unwrap();
//! let out = ptxas.assemble(&ptx, "affine.ptx", SmTarget::new(80), &["-maxrregcount=64".into()]).unwrap();
//! for k in &out.kernels {
//!     println!("{}: {} registers, {} B static shared memory", k.name, k.registers_per_thread, k.static_smem_bytes);
//! }
//! ```
//!
//! The PTX's own directives (`.maxnreg`, `.maxntid`, `.reqntid`, `.minnctapersm`) are
//! honoured by ptxas, which records the first three in the cubin; `.minnctapersm` (stored
//! nowhere in a cubin) is taken from the PTX text ([`KernelResources::apply_ptx`]).

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::resources::{KernelResources, ResourceError, SmTarget, Toolkit, cubin, ptx, ptxas};

/// The environment variable naming the ptxas to use: the executable or its folder, or
/// `none` to use none.
pub const ENV_PTXAS: &str = "OCCUPANCY_PTXAS";

/// Where the PyPI wheels put ptxas below `site-packages`, newest first: `nvidia-cuda-nvcc`
/// (CUDA 13) and `nvidia-cuda-nvcc-cu12` / `-cu11`. With both installed, [`Ptxas::find`]
/// takes CUDA 13's; [`Ptxas::find_release`] picks one by its release.
pub(crate) const WHEEL_EXECUTABLES: &[&str] =
    &["nvidia/cu13/bin/ptxas", "nvidia/cuda_nvcc/bin/ptxas"];

/// How to get a ptxas, for messages.
pub(crate) const INSTALL_HINT: &str = "install it with `pip install nvidia-cuda-nvcc-cu12` (ptxas \
     alone, no GPU or CUDA toolkit needed) or set OCCUPANCY_PTXAS=/path/to/ptxas";

/// How [`Ptxas::find`] looks for ptxas.
const TOOL: super::wheels::Tool = super::wheels::Tool {
    executable: "ptxas",
    env: ENV_PTXAS,
    wheel_relative: WHEEL_EXECUTABLES,
    install_hint: INSTALL_HINT,
    release_noun: "a ptxas",
    example_release: "release 12.9",
};

/// Options the assembler sets itself, refused in [`Ptxas::assemble`]'s `options`.
const OWN_OPTIONS: &[&str] = &[
    "-o",
    "--output-file",
    "-arch",
    "--gpu-name",
    "-c",
    "--compile-only",
];

/// A ptxas executable and its release.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ptxas {
    /// The executable.
    pub path: PathBuf,
    /// Its CUDA release (`ptxas --version`: "release 12.9").
    pub version: Toolkit,
}

/// What assembling one PTX module for one architecture gave.
#[derive(Debug, Clone)]
pub struct Assembled {
    /// The cubin ptxas wrote.
    pub cubin: Vec<u8>,
    /// Its `-v` log (the `ptxas info` lines, warnings).
    pub log: String,
    /// Every entry kernel, read from the cubin, with `.minnctapersm` from the PTX and the
    /// log's spill figures where the cubin records none (CUDA 11).
    pub kernels: Vec<KernelResources>,
}

impl Ptxas {
    /// The ptxas at `path`, after asking it its version (`ptxas --version`).
    pub fn at(path: &Path) -> Result<Self, String> {
        TOOL.at(path).map(|(path, version)| Self { path, version })
    }

    /// The ptxas to use: `configured` (an executable, its folder, or `none`), else
    /// `$OCCUPANCY_PTXAS` (the same), else the first that runs of: the PyPI wheels in every
    /// site-packages `python3` reports (`nvidia/cu13/bin/ptxas` of CUDA 13's
    /// `nvidia-cuda-nvcc` before `nvidia/cuda_nvcc/bin/ptxas` of `nvidia-cuda-nvcc-cu12`: the
    /// newest release first), `$CUDA_PATH/bin`, `$CUDA_HOME/bin`, `/usr/local/cuda/bin`, then
    /// `PATH`. Registers differ between releases (a kernel of `kernels/softmax.cu`: 24 with
    /// ptxas 12.9, 22 with 13.5), so a caller that must reproduce a given release's numbers
    /// asks for it with [`Ptxas::find_release`]. The error says why there is none and how to
    /// install one.
    pub fn find(configured: Option<&Path>) -> Result<Self, String> {
        TOOL.find(configured)
            .map(|(path, version)| Self { path, version })
    }

    /// Every ptxas that runs, in [`Ptxas::find`]'s order (`$OCCUPANCY_PTXAS` first when it is
    /// set and runs), without repeats.
    pub fn find_all() -> Vec<Self> {
        let mut out: Vec<Self> = Vec::new();
        let configured = std::env::var_os(ENV_PTXAS)
            .filter(|v| !v.is_empty() && v != "none")
            .map(|v| {
                let p = PathBuf::from(v);
                if p.is_dir() { p.join("ptxas") } else { p }
            });
        for path in configured
            .into_iter()
            .chain(super::wheels::tool_candidates("ptxas", WHEEL_EXECUTABLES))
        {
            if let Ok(p) = Self::at(&path)
                && !out.iter().any(|o| o.path == p.path)
            {
                out.push(p);
            }
        }
        out
    }

    /// The first ptxas of [`Ptxas::find_all`] of this CUDA release (`12.9`): to reproduce the
    /// numbers a record was made with. The error lists the releases found.
    pub fn find_release(release: Toolkit) -> Result<Self, String> {
        let all = Self::find_all();
        let found: Vec<String> = all.iter().map(|p| p.version.to_string()).collect();
        all.into_iter()
            .find(|p| p.version == release)
            .ok_or_else(|| {
                format!(
                    "no ptxas of CUDA {release} found (found: {}): install that release's \
                     `nvidia-cuda-nvcc` wheel (`-cu12` for 12.x) or set OCCUPANCY_PTXAS",
                    if found.is_empty() {
                        "none".to_string()
                    } else {
                        found.join(", ")
                    }
                )
            })
    }

    /// Assembles `ptx` (named `name` in messages, e.g. its file name) for `target` with
    /// `ptxas -arch=<target> -v <options>`, and reads every entry's resources from the cubin.
    /// `options` are passed through (`-maxrregcount=64`, `--maxrregcount 64`, `-O2`); the
    /// output file and architecture are set here and refused there.
    ///
    /// Errors: PTX whose `.target` is above `target` (it cannot run there); a PTX ISA newer
    /// than this ptxas reads, or a target it does not know (with what to install); any other
    /// rejection with ptxas's log; a cubin the reader cannot read.
    pub fn assemble(
        &self,
        ptx_text: &str,
        name: &str,
        target: SmTarget,
        options: &[String],
    ) -> Result<Assembled, ResourceError> {
        let module = ptx::parse(ptx_text)?;
        if let Some(own) = options.iter().find(|o| {
            let flag = o.split('=').next().unwrap_or(o);
            OWN_OPTIONS.contains(&flag)
        }) {
            return Err(ResourceError::new(format!(
                "ptxas option `{own}`: the output file and architecture are set by occupancy \
                 (one cubin per target)"
            )));
        }
        if let Some(t) = module.target
            && t.sm > target.sm
        {
            return Err(ResourceError::new(format!(
                "PTX for {t} (`.target {t}`) cannot be assembled for {target}: the driver \
                 cannot load it there either"
            )));
        }
        let dir = tempfile::Builder::new()
            .prefix("occupancy-ptxas-")
            .tempdir()
            .map_err(|e| ResourceError::new(format!("cannot create a temporary folder: {e}")))?;
        let file_name = Path::new(name)
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".ptx"))
            .unwrap_or_else(|| "module.ptx".to_string());
        let input = dir.path().join(file_name);
        let output = dir.path().join("module.cubin");
        std::fs::write(&input, ptx_text)
            .map_err(|e| ResourceError::new(format!("cannot write {}: {e}", input.display())))?;
        let run = Command::new(&self.path)
            .arg(format!("-arch={target}"))
            .arg("-v")
            .args(options)
            .arg("-o")
            .arg(&output)
            .arg(&input)
            .output()
            .map_err(|e| ResourceError::new(format!("cannot run {}: {e}", self.path.display())))?;
        // The log names the temporary copy: name the PTX as the caller does instead.
        let log = [run.stdout, run.stderr]
            .iter()
            .map(|b| String::from_utf8_lossy(b).into_owned())
            .collect::<Vec<_>>()
            .join("")
            .replace(&input.display().to_string(), name);
        if !run.status.success() {
            return Err(self.rejection(&module, target, options, &log));
        }
        let cubin = std::fs::read(&output).map_err(|e| {
            ResourceError::new(format!(
                "ptxas {} succeeded but wrote no cubin ({e}):\n{}",
                self.version,
                log.trim_end()
            ))
        })?;
        let parsed = cubin::parse(&cubin)
            .map_err(|e| e.context(format!("the cubin ptxas made from {name} for {target}")))?;
        let logged = ptxas::parse(&log).unwrap_or_default();
        let kernels = parsed
            .kernels
            .into_iter()
            .map(|mut k| {
                if let Some(entry) = module.entry(&k.name) {
                    k.apply_ptx(entry);
                }
                if let Some(e) = logged.iter().find(|e| e.name == k.name && e.arch == k.arch) {
                    k.spill_store_bytes = k.spill_store_bytes.or(Some(e.spill_store_bytes));
                    k.spill_load_bytes = k.spill_load_bytes.or(Some(e.spill_load_bytes));
                    k.cumulative_stack_bytes =
                        k.cumulative_stack_bytes.or(e.cumulative_stack_bytes);
                }
                k
            })
            .collect();
        Ok(Assembled {
            cubin,
            log,
            kernels,
        })
    }

    /// The error for a failed run: what the log says, in words, with the log.
    fn rejection(
        &self,
        module: &ptx::PtxModule,
        target: SmTarget,
        options: &[String],
        log: &str,
    ) -> ResourceError {
        let who = format!("ptxas {} ({})", self.version, self.path.display());
        let log = log.trim_end();
        if let Some(rest) = log.split("Unsupported .version ").nth(1) {
            let isa = module
                .version
                .clone()
                .unwrap_or_else(|| rest.split(';').next().unwrap_or("?").to_string());
            let reads = rest
                .split("current version is '")
                .nth(1)
                .and_then(|r| r.split('\'').next())
                .map(|v| format!(", up to {v}"))
                .unwrap_or_default();
            return ResourceError::new(format!(
                "PTX ISA {isa} (`.version {isa}`) is newer than {who} reads{reads}: assemble it \
                 with a newer ptxas (`pip install nvidia-cuda-nvcc` for CUDA 13, or \
                 OCCUPANCY_PTXAS=/path/to/ptxas)\n{log}"
            ));
        }
        if log.contains("is not defined for option 'gpu-name'") {
            return ResourceError::new(format!(
                "{who} cannot assemble for {target}, which it does not know: use the ptxas of a \
                 toolkit that does (OCCUPANCY_PTXAS=/path/to/ptxas)\n{log}"
            ));
        }
        // `ptxas fatal   : Unknown option '-bogus'`, `Invalid value 'abc' for option ..`:
        // the options given, not the PTX.
        if !options.is_empty() && (log.contains("Unknown option") || log.contains("for option '")) {
            return ResourceError::new(format!(
                "{who} refused the options given ({}), before reading the PTX:\n{log}",
                options.join(" ")
            ));
        }
        ResourceError::new(format!("{who} rejected the PTX for {target}:\n{log}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn own_options_are_refused_before_running_anything() {
        let ptxas = Ptxas {
            path: PathBuf::from("/nonexistent/ptxas"),
            version: Toolkit {
                major: 12,
                minor: 9,
            },
        };
        let ptx = ".version 8.8\n.target sm_80\n.address_size 64\n";
        for bad in ["-o", "-arch=sm_90", "--gpu-name=sm_90", "--output-file"] {
            let e = ptxas
                .assemble(ptx, "m.ptx", SmTarget::new(80), &[bad.to_string()])
                .unwrap_err();
            assert!(e.message().contains("set by occupancy"), "{bad}: {e}");
        }
        let e = ptxas
            .assemble(
                ".version 8.8\n.target sm_90\n",
                "m.ptx",
                SmTarget::new(80),
                &[],
            )
            .unwrap_err();
        assert_eq!(
            e.message(),
            "PTX for sm_90 (`.target sm_90`) cannot be assembled for sm_80: the driver cannot \
             load it there either"
        );
        let e = ptxas
            .assemble(
                ".version 8.8\n.target sm_80\n",
                "m.ptx",
                SmTarget::new(80),
                &[],
            )
            .unwrap_err();
        assert!(
            e.message().starts_with("cannot run /nonexistent/ptxas"),
            "{e}"
        );
    }

    #[test]
    fn a_missing_ptxas_says_how_to_install_one() {
        let e = Ptxas::find(Some(Path::new("/nonexistent/bin/ptxas"))).unwrap_err();
        assert!(
            e.starts_with("OCCUPANCY_PTXAS=/nonexistent/bin/ptxas: cannot run"),
            "{e}"
        );
        assert_eq!(
            Ptxas::find(Some(Path::new("none"))).unwrap_err(),
            "OCCUPANCY_PTXAS=none"
        );
    }
}
