//! Build-script helper: compiles a folder of CUDA C++ kernels with NVRTC (loaded at run time,
//! no CUDA toolkit needed) to a cubin per target architecture and to PTX, assembles the
//! folder's PTX files with ptxas for each target, records their resources in a manifest, and
//! generates a Rust file that embeds the artifacts.
//!
//! ```no_run
//! // build.rs: fn main() {
//! occupancy_core::build::Kernels::new("../kernels")     // *.cu and *.ptx, relative to CARGO_MANIFEST_DIR
//!     .targets(["sm_75", "sm_80", "sm_86", "sm_89", "sm_90"])
//!     .manifest("kernels.manifest.json")               // committed fallback, same base
//!     .compile();                                      // exits with a clear message on error
//! // }
//! ```
//!
//! ```text
//! // src/lib.rs
//! mod kernels {
//!     include!(concat!(env!("OUT_DIR"), "/occupancy/kernels.rs"));
//! }
//! // kernels::COMPILED, kernels::cubin("sgemm", "sm_80"), kernels::ptx("sgemm"), kernels::MANIFEST
//! ```
//!
//! A crate that ships PTX (built elsewhere by nvcc, embedded with
//! `include_str!("../kernels/affine.ptx")`) points the helper at the folder of those files:
//! each is assembled by ptxas ([`Ptxas`]) for every target at or above its `.target` (a PTX
//! for `sm_80` is not assembled for `sm_75`, where the driver cannot load it either), with
//! [`Kernels::ptxas_option`]s such as `-maxrregcount=64`. Kernel names need only be unique
//! per file: the manifest qualifies each with its file stem (`affine::affine_f32`), so two
//! files may not share a stem (`a.cu` and `a.ptx`).
//!
//! Outputs, in `$OUT_DIR/occupancy/`: `<stem>.<sm>.cubin` for every source and target,
//! `<stem>.ptx` for a `.cu` (compiled for the lowest target, so the driver can JIT it on any
//! newer GPU), `<stem>.<sm>.log` (the `ptxas -v` log, NVRTC's or ptxas's), `manifest.json` and
//! `kernels.rs`. The build script also prints `cargo:rustc-env=OCCUPANCY_MANIFEST=<manifest in
//! effect>` and `cargo:rustc-env=OCCUPANCY_TARGETS=sm_80,sm_86` (the targets, which the
//! attribute checks when neither it nor `occupancy.toml` names targets), and `cargo:rerun-if-changed` /
//! `rerun-if-env-changed` lines for the folder, its files, the committed manifest when it
//! exists, and the variables below. It writes nothing outside `OUT_DIR` unless asked
//! (`OCCUPANCY_WRITE_MANIFEST=1`), so a second `cargo build` is fresh: the build script does
//! not rerun and the crate is not recompiled.
//!
//! Finding NVRTC (needed for `.cu` files): `OCCUPANCY_NVRTC` = path of `libnvrtc.so*` or of
//! its folder, or `none` to force the fallback; otherwise the PyPI wheels
//! (`nvidia-cuda-nvrtc`, `nvidia-cuda-nvrtc-cu12`, `nvidia-cuda-nvrtc-cu11`) in any
//! site-packages `python3` reports, `CUDA_PATH` / `CUDA_HOME` / `/usr/local/cuda`, then the
//! system loader. The first library whose supported architectures cover every target is
//! used. Finding ptxas (needed for `.ptx` files): `OCCUPANCY_PTXAS`, then the same places
//! ([`Ptxas::find`]; the wheels are `nvidia-cuda-nvcc` for CUDA 13, taken first, and
//! `nvidia-cuda-nvcc-cu12`; [`Ptxas::find_release`] picks one release).
//!
//! A crate that compiles its `.cu` files with nvcc itself (host launchers in C++, a static
//! library linked through FFI) finds it with [`Nvcc::find`] (`OCCUPANCY_NVCC`, the CUDA 13
//! wheel `nvidia-cuda-nvcc`, the toolkit, `PATH`); the kernels of the objects and libraries
//! it makes are read by [`crate::resources::host`].
//!
//! Without the compiler a folder needs, the committed manifest is used (written earlier by
//! this helper with `OCCUPANCY_WRITE_MANIFEST=1`, or by `cargo occupancy inspect
//! --write-manifest`), with a `cargo:warning` saying so and one per source file that changed
//! since; `kernels.rs` then has `COMPILED = false` and no artifacts. A kernel that fails to
//! compile is a build error with NVRTC's or ptxas's log.

mod nvcc;
mod nvrtc;
mod ptxas;
mod wheels;

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use crate::resources::manifest::{Manifest, SourceFile, sha256_hex};
use crate::resources::{SmTarget, Toolkit, cubin, ptx};

pub use nvcc::{ENV_NVCC, Nvcc};
pub use nvrtc::Nvrtc;
pub use ptxas::{Assembled, ENV_PTXAS, Ptxas};

/// Environment variable: path of libnvrtc (file or folder), or `none` to skip compiling.
pub const ENV_NVRTC: &str = "OCCUPANCY_NVRTC";
/// Environment variable: set to `1` to rewrite the committed manifest after compiling.
pub const ENV_WRITE_MANIFEST: &str = "OCCUPANCY_WRITE_MANIFEST";
/// The variable set for the crate being built: absolute path of the manifest in effect.
pub const ENV_MANIFEST: &str = "OCCUPANCY_MANIFEST";
/// The variable set for the crate being built: the targets compiled for, comma-separated
/// (`sm_80,sm_86,sm_90`). The attribute checks these when neither it nor `occupancy.toml`
/// names targets.
pub const ENV_TARGETS: &str = "OCCUPANCY_TARGETS";

/// A folder of CUDA kernels to compile from `build.rs`.
#[derive(Debug, Clone)]
pub struct Kernels {
    dir: PathBuf,
    targets: Vec<String>,
    manifest: Option<PathBuf>,
    options: Vec<String>,
    nvrtc: Option<PathBuf>,
    ptxas_options: Vec<String>,
    ptxas: Option<PathBuf>,
    write_manifest: Option<bool>,
}

/// What [`Kernels::try_compile`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome {
    /// `true`: compiled (NVRTC for `.cu`, ptxas for `.ptx`); `false`: fell back to the
    /// committed manifest.
    pub compiled: bool,
    /// The manifest in effect (also in `OCCUPANCY_MANIFEST`).
    pub manifest_path: PathBuf,
    /// The manifest's content.
    pub manifest: Manifest,
    /// The `cargo:warning` lines printed.
    pub warnings: Vec<String>,
}

/// A build failure: the message says what to do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BuildError(pub String);

impl std::fmt::Display for BuildError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for BuildError {}

/// The compilers a folder needs, found.
struct Tools {
    nvrtc: Option<Nvrtc>,
    ptxas: Option<Ptxas>,
}

/// What compiling produced besides the manifest: the embedded artifacts.
struct Artifacts {
    /// `(stem, target, path)` of every cubin.
    cubins: Vec<(String, SmTarget, PathBuf)>,
    /// `(stem, path)` of every module's PTX.
    ptx: Vec<(String, PathBuf)>,
    /// Warnings: PTX files assembled for no target (all below their `.target`).
    unused: Vec<String>,
}

impl Kernels {
    /// The `*.cu` and `*.ptx` files of `dir` (relative to `CARGO_MANIFEST_DIR`), for `sm_80`
    /// until [`Kernels::targets`] says otherwise.
    pub fn new(dir: impl AsRef<Path>) -> Self {
        Self {
            dir: dir.as_ref().to_path_buf(),
            targets: vec!["sm_80".to_string()],
            manifest: None,
            options: vec!["--std=c++17".to_string()],
            nvrtc: None,
            ptxas_options: Vec::new(),
            ptxas: None,
            write_manifest: None,
        }
    }

    /// Real architectures to compile for (`sm_75`, `sm_90a`, ...).
    pub fn targets<I, S>(mut self, targets: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        self.targets = targets
            .into_iter()
            .map(|s| s.as_ref().to_string())
            .collect();
        self
    }

    /// The committed fallback manifest (relative to `CARGO_MANIFEST_DIR`), used when NVRTC or
    /// ptxas is not available and written only when `OCCUPANCY_WRITE_MANIFEST=1` (and then
    /// only if its content changes).
    pub fn manifest(mut self, path: impl AsRef<Path>) -> Self {
        self.manifest = Some(path.as_ref().to_path_buf());
        self
    }

    /// An extra NVRTC option (`-DTILE=16`, `--use_fast_math`, `-I...`). Default: `--std=c++17`.
    pub fn option(mut self, option: impl Into<String>) -> Self {
        self.options.push(option.into());
        self
    }

    /// An option passed to ptxas when it assembles the `.ptx` files (`-maxrregcount=64`,
    /// `-O2`); the same options as the crate's run time passes the driver's JIT, so that the
    /// numbers match. Default: none.
    pub fn ptxas_option(mut self, option: impl Into<String>) -> Self {
        self.ptxas_options.push(option.into());
        self
    }

    /// Use this libnvrtc (a file or its folder; `none`: do not compile), whatever
    /// `OCCUPANCY_NVRTC` says (meant for tests and tools). Default: `OCCUPANCY_NVRTC`, then a
    /// search (see the module docs).
    pub fn nvrtc(mut self, path: impl AsRef<Path>) -> Self {
        self.nvrtc = Some(path.as_ref().to_path_buf());
        self
    }

    /// Use this ptxas (the executable or its folder; `none`: do not assemble), whatever
    /// `OCCUPANCY_PTXAS` says (meant for tests and tools). Default: [`Ptxas::find`].
    pub fn ptxas(mut self, path: impl AsRef<Path>) -> Self {
        self.ptxas = Some(path.as_ref().to_path_buf());
        self
    }

    /// Whether to rewrite the committed manifest after compiling, whatever
    /// `OCCUPANCY_WRITE_MANIFEST` says (meant for tests and tools). Default: that variable is
    /// `1`.
    pub fn write_manifest(mut self, write: bool) -> Self {
        self.write_manifest = Some(write);
        self
    }

    /// [`Kernels::try_compile`], printing the error and exiting with status 1 on failure: the
    /// form for `build.rs`, where the message then appears in cargo's output.
    pub fn compile(self) {
        if let Err(e) = self.try_compile() {
            eprintln!("error: occupancy: {e}");
            std::process::exit(1);
        }
    }

    /// Compiles (or falls back), writes the outputs and prints the cargo directives.
    pub fn try_compile(self) -> Result<Outcome, BuildError> {
        let env = |name: &str| {
            std::env::var_os(name).map(PathBuf::from).ok_or_else(|| {
                BuildError(format!("{name} is not set: call this from a build script"))
            })
        };
        let crate_dir = env("CARGO_MANIFEST_DIR")?;
        let out_dir = env("OUT_DIR")?.join("occupancy");
        self.run_in(&crate_dir, &out_dir, &mut |line| println!("{line}"))
    }

    /// The work of [`Kernels::try_compile`] outside a build script (tests, tools): paths are
    /// relative to `crate_dir`, outputs go to `out_dir` itself, and `emit` receives each
    /// `cargo:` line instead of standard output.
    pub fn run_in(
        &self,
        crate_dir: &Path,
        out_dir: &Path,
        emit: &mut dyn FnMut(&str),
    ) -> Result<Outcome, BuildError> {
        let dir = crate_dir.join(&self.dir);
        let manifest_src = self.manifest.as_ref().map(|m| crate_dir.join(m));
        let targets: Vec<SmTarget> = self
            .targets
            .iter()
            .map(|t| SmTarget::parse(t).map_err(|e| BuildError(format!("target {e}"))))
            .collect::<Result<_, _>>()?;
        if targets.is_empty() {
            return Err(BuildError("no target architectures given".into()));
        }
        std::fs::create_dir_all(out_dir)
            .map_err(|e| BuildError(format!("cannot create {}: {e}", out_dir.display())))?;

        emit(&format!("cargo:rerun-if-changed={}", dir.display()));
        emit(&format!("cargo:rerun-if-env-changed={ENV_NVRTC}"));
        emit(&format!("cargo:rerun-if-env-changed={ENV_PTXAS}"));
        emit(&format!("cargo:rerun-if-env-changed={ENV_WRITE_MANIFEST}"));
        // A path that does not exist would make cargo rerun the build script on every build
        // ("the file ... is missing"): the committed manifest is watched once it exists (it
        // is then written by OCCUPANCY_WRITE_MANIFEST=1, a change cargo sees anyway).
        if let Some(m) = manifest_src.as_ref().filter(|m| m.is_file()) {
            emit(&format!("cargo:rerun-if-changed={}", m.display()));
        }
        let files = kernel_files(&dir)?;
        for f in &files {
            emit(&format!("cargo:rerun-if-changed={}", dir.join(f).display()));
        }

        let mut warnings = Vec::new();
        let outcome = match self.find_tools(&files, &targets) {
            Ok(tools) => {
                let (manifest, artifacts) =
                    self.compile_all(&tools, &dir, &files, &targets, out_dir)?;
                warnings.extend(artifacts.unused.iter().cloned());
                let path = out_dir.join("manifest.json");
                manifest
                    .write(&path)
                    .map_err(|e| BuildError(e.to_string()))?;
                if let Some(src) = &manifest_src {
                    let write = self.write_manifest.unwrap_or_else(|| {
                        std::env::var(ENV_WRITE_MANIFEST).is_ok_and(|v| v == "1")
                    });
                    if write {
                        manifest.write(src).map_err(|e| BuildError(e.to_string()))?;
                    } else if let Ok(committed) = Manifest::load(src)
                        && committed.sources != manifest.sources
                    {
                        warnings.push(format!(
                                "the committed resource manifest {} is out of date (sources or toolkit changed); \
                                 rebuild with {ENV_WRITE_MANIFEST}=1 to refresh it",
                                src.display()
                            ));
                    }
                }
                write_kernels_rs(out_dir, true, &files, &artifacts, &targets, &path)?;
                Outcome {
                    compiled: true,
                    manifest_path: path,
                    manifest,
                    warnings,
                }
            }
            Err(why) => {
                let Some(src) = &manifest_src else {
                    return Err(BuildError(format!(
                        "cannot compile the CUDA kernels in {}: {why}; and no committed resource manifest \
                         was given (Kernels::manifest). Install NVRTC (pip install nvidia-cuda-nvrtc-cu12) \
                         for .cu files and ptxas (pip install nvidia-cuda-nvcc-cu12) for .ptx files, set \
                         {ENV_NVRTC}=/path/to/libnvrtc.so / {ENV_PTXAS}=/path/to/ptxas, or commit a manifest \
                         written by `cargo occupancy inspect --write-manifest`.",
                        dir.display()
                    )));
                };
                let manifest = Manifest::load(src).map_err(|e| {
                    BuildError(format!(
                        "cannot compile the CUDA kernels: {why}; and the committed manifest is unusable: {e}. \
                         Install NVRTC (pip install nvidia-cuda-nvrtc-cu12) for .cu files and ptxas \
                         (pip install nvidia-cuda-nvcc-cu12) for .ptx files, or set {ENV_NVRTC} / {ENV_PTXAS}."
                    ))
                })?;
                warnings.push(format!(
                    "CUDA kernels not compiled ({why}); using the committed resource manifest {}",
                    src.display()
                ));
                for stale in manifest.stale_sources(&dir, &files) {
                    warnings.push(format!(
                        "resource manifest {} is out of date: {stale}",
                        src.display()
                    ));
                }
                let path = out_dir.join("manifest.json");
                manifest
                    .write(&path)
                    .map_err(|e| BuildError(e.to_string()))?;
                let none = Artifacts {
                    cubins: Vec::new(),
                    ptx: Vec::new(),
                    unused: Vec::new(),
                };
                write_kernels_rs(out_dir, false, &files, &none, &targets, &path)?;
                Outcome {
                    compiled: false,
                    manifest_path: path,
                    manifest,
                    warnings,
                }
            }
        };
        for w in &outcome.warnings {
            emit(&format!("cargo:warning={w}"));
        }
        emit(&format!(
            "cargo:rustc-env={ENV_MANIFEST}={}",
            outcome.manifest_path.display()
        ));
        let names: Vec<String> = targets.iter().map(SmTarget::to_string).collect();
        emit(&format!(
            "cargo:rustc-env={ENV_TARGETS}={}",
            names.join(",")
        ));
        Ok(outcome)
    }

    /// NVRTC when there is a `.cu` file, ptxas when there is a `.ptx` file; or why not.
    fn find_tools(&self, files: &[String], targets: &[SmTarget]) -> Result<Tools, String> {
        let nvrtc = match files.iter().any(|f| f.ends_with(".cu")) {
            true => Some(find_nvrtc(targets, self.nvrtc.as_deref())?),
            false => None,
        };
        let ptxas = match files.iter().any(|f| f.ends_with(".ptx")) {
            true => Some(Ptxas::find(self.ptxas.as_deref())?),
            false => None,
        };
        Ok(Tools { nvrtc, ptxas })
    }

    fn compile_all(
        &self,
        tools: &Tools,
        dir: &Path,
        files: &[String],
        targets: &[SmTarget],
        out_dir: &Path,
    ) -> Result<(Manifest, Artifacts), BuildError> {
        let generator = match (&tools.nvrtc, &tools.ptxas) {
            (Some(_), Some(_)) => " (NVRTC, ptxas)",
            (None, Some(_)) => " (ptxas)",
            _ => " (NVRTC)",
        };
        let mut manifest = Manifest::new(format!(
            "occupancy-core {}{generator}",
            env!("CARGO_PKG_VERSION")
        ));
        let mut artifacts = Artifacts {
            cubins: Vec::new(),
            ptx: Vec::new(),
            unused: Vec::new(),
        };
        for file in files {
            let path = dir.join(file);
            let source = crate::file::read(&path, "kernel source", crate::file::MAX_TEXT_BYTES)
                .map_err(|e| BuildError(e.to_string()))?;
            let sha256 = sha256_hex(&source);
            let text = String::from_utf8(source)
                .map_err(|_| BuildError(format!("{} is not UTF-8", path.display())))?;
            let stem = stem(file);
            let (toolkit, kernels) = match (&tools.nvrtc, &tools.ptxas) {
                (Some(nvrtc), _) if file.ends_with(".cu") => {
                    self.compile_cu(nvrtc, &text, file, dir, targets, out_dir, &mut artifacts)?
                }
                (_, Some(ptxas)) if file.ends_with(".ptx") => {
                    self.assemble_ptx(ptxas, &text, file, targets, out_dir, &mut artifacts)?
                }
                _ => continue,
            };
            if file.ends_with(".ptx") {
                artifacts.ptx.push((stem.to_string(), path.clone()));
            }
            manifest.sources.push(SourceFile {
                file: file.clone(),
                sha256,
                toolkit: Some(toolkit),
            });
            manifest.add_kernels(Some(file), kernels);
        }
        manifest.sort();
        Ok((manifest, artifacts))
    }

    /// One `.cu` file with NVRTC for every target.
    #[allow(clippy::too_many_arguments)]
    fn compile_cu(
        &self,
        nvrtc: &Nvrtc,
        text: &str,
        file: &str,
        dir: &Path,
        targets: &[SmTarget],
        out_dir: &Path,
        artifacts: &mut Artifacts,
    ) -> Result<(Toolkit, Vec<crate::resources::KernelResources>), BuildError> {
        let toolkit = Toolkit {
            major: nvrtc.version.0,
            minor: nvrtc.version.1,
        };
        let stem = stem(file);
        let lowest = targets.iter().min_by_key(|t| (t.sm, t.variant)).copied();
        let mut kernels = Vec::new();
        for &target in targets {
            let mut options = vec![
                format!("--gpu-architecture={target}"),
                "-Xptxas=-v".to_string(),
                format!("-I{}", dir.display()),
            ];
            options.extend(self.options.iter().cloned());
            let out = nvrtc.compile(text, file, &options).map_err(|log| {
                BuildError(format!(
                    "NVRTC {toolkit} ({}) failed to compile {} for {target}:\n{log}",
                    nvrtc.path.display(),
                    dir.join(file).display()
                ))
            })?;
            let cubin_path = out_dir.join(format!("{stem}.{target}.cubin"));
            write(&cubin_path, &out.cubin)?;
            write(
                &out_dir.join(format!("{stem}.{target}.log")),
                out.log.as_bytes(),
            )?;
            artifacts
                .cubins
                .push((stem.to_string(), target, cubin_path));
            if Some(target) == lowest {
                let ptx_path = out_dir.join(format!("{stem}.ptx"));
                write(&ptx_path, out.ptx.as_bytes())?;
                artifacts.ptx.push((stem.to_string(), ptx_path));
            }
            let parsed = cubin::parse(&out.cubin).map_err(|e| {
                BuildError(format!(
                    "reading the cubin NVRTC made from {file} for {target}: {e}"
                ))
            })?;
            let module = ptx::parse(&out.ptx).ok();
            kernels.extend(parsed.kernels.into_iter().map(|mut k| {
                if let Some(entry) = module.as_ref().and_then(|m| m.entry(&k.name)) {
                    k.apply_ptx(entry);
                }
                k
            }));
        }
        Ok((toolkit, kernels))
    }

    /// One `.ptx` file with ptxas for every target at or above its `.target`.
    fn assemble_ptx(
        &self,
        ptxas: &Ptxas,
        text: &str,
        file: &str,
        targets: &[SmTarget],
        out_dir: &Path,
        artifacts: &mut Artifacts,
    ) -> Result<(Toolkit, Vec<crate::resources::KernelResources>), BuildError> {
        let module = ptx::parse(text).map_err(|e| BuildError(format!("{file}: {e}")))?;
        let stem = stem(file);
        let mut kernels = Vec::new();
        for &target in targets {
            if module.target.is_some_and(|t| t.sm > target.sm) {
                continue;
            }
            let out = ptxas
                .assemble(text, file, target, &self.ptxas_options)
                .map_err(|e| BuildError(format!("assembling {file} for {target}: {e}")))?;
            let cubin_path = out_dir.join(format!("{stem}.{target}.cubin"));
            write(&cubin_path, &out.cubin)?;
            write(
                &out_dir.join(format!("{stem}.{target}.log")),
                out.log.as_bytes(),
            )?;
            artifacts
                .cubins
                .push((stem.to_string(), target, cubin_path));
            kernels.extend(out.kernels);
        }
        if let Some(t) = module
            .target
            .filter(|t| targets.iter().all(|x| x.sm < t.sm))
        {
            artifacts.unused.push(format!(
                "{file} is PTX for {t} (`.target {t}`): not assembled for any target ({}), \
                 where the driver cannot load it; its kernels are not in the manifest",
                targets
                    .iter()
                    .map(SmTarget::to_string)
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
        Ok((ptxas.version, kernels))
    }
}

/// `sgemm.cu` -> `sgemm`, `affine.ptx` -> `affine`.
fn stem(file: &str) -> &str {
    file.strip_suffix(".cu")
        .or_else(|| file.strip_suffix(".ptx"))
        .unwrap_or(file)
}

fn write(path: &Path, bytes: &[u8]) -> Result<(), BuildError> {
    std::fs::write(path, bytes)
        .map_err(|e| BuildError(format!("cannot write {}: {e}", path.display())))
}

/// The `*.cu` and `*.ptx` file names of `dir`, sorted; two files may not share a stem (it
/// qualifies their kernels' names).
fn kernel_files(dir: &Path) -> Result<Vec<String>, BuildError> {
    let entries = std::fs::read_dir(dir).map_err(|e| {
        BuildError(format!(
            "cannot read the kernels folder {}: {e}",
            dir.display()
        ))
    })?;
    let mut files: Vec<String> = entries
        .flatten()
        .filter(|e| e.path().is_file())
        .filter_map(|e| e.file_name().to_str().map(str::to_string))
        .filter(|n| n.ends_with(".cu") || n.ends_with(".ptx"))
        .collect();
    files.sort();
    for pair in files.windows(2) {
        if stem(&pair[0]) == stem(&pair[1]) {
            return Err(BuildError(format!(
                "{} and {} in {} share the stem `{}`, which qualifies their kernels' names \
                 (`{}::kernel`): keep one of them in the folder",
                pair[0],
                pair[1],
                dir.display(),
                stem(&pair[0]),
                stem(&pair[0])
            )));
        }
    }
    Ok(files)
}

impl Nvrtc {
    /// The libnvrtc the build helper uses for `targets`: `configured` (a file, its folder, or
    /// `none`), else `$OCCUPANCY_NVRTC`, else the search of the module docs; the first library
    /// whose supported architectures cover every target (any, for no targets). The error
    /// says why there is none.
    pub fn find(targets: &[SmTarget], configured: Option<&Path>) -> Result<Self, String> {
        find_nvrtc(targets, configured)
    }
}

/// The NVRTC to use, or why there is none.
fn find_nvrtc(targets: &[SmTarget], configured: Option<&Path>) -> Result<Nvrtc, String> {
    // An explicit choice in code (tests, tools) wins over the environment.
    let choice = configured
        .map(|p| p.as_os_str().to_owned())
        .or_else(|| std::env::var_os(ENV_NVRTC));
    let candidates = match choice {
        Some(v) if v == "none" || v.is_empty() => {
            return Err(format!("{ENV_NVRTC}={}", v.to_string_lossy()));
        }
        Some(v) => {
            let p = PathBuf::from(&v);
            let c = if p.is_dir() {
                nvrtc::in_dir(&p)
            } else {
                vec![p]
            };
            if c.is_empty() {
                return Err(format!(
                    "{ENV_NVRTC}={}: no libnvrtc.so* there",
                    v.to_string_lossy()
                ));
            }
            c
        }
        None => nvrtc::candidates(),
    };
    let mut errors = Vec::new();
    let mut fallback = None;
    for path in candidates {
        match Nvrtc::load(&path) {
            Ok(n) => {
                let supported = n.supported_archs();
                if targets.iter().all(|t| supported.contains(&t.sm)) {
                    return Ok(n);
                }
                errors.push(format!(
                    "{} (NVRTC {}.{}) lacks some targets",
                    path.display(),
                    n.version.0,
                    n.version.1
                ));
                fallback.get_or_insert(n);
            }
            Err(e) => errors.push(e),
        }
    }
    match fallback {
        // Let NVRTC itself say which target it rejects.
        Some(n) => Ok(n),
        None => Err(match errors.as_slice() {
            [] => "no libnvrtc found".to_string(),
            _ => format!(
                "no libnvrtc found (install the pip package nvidia-cuda-nvrtc-cu12 or set {ENV_NVRTC})"
            ),
        }),
    }
}

/// Generates `kernels.rs`: the artifacts embedded with `include_bytes!` / `include_str!`.
fn write_kernels_rs(
    out_dir: &Path,
    compiled: bool,
    files: &[String],
    artifacts: &Artifacts,
    targets: &[SmTarget],
    manifest: &Path,
) -> Result<(), BuildError> {
    let mut s = String::new();
    let lit = |p: &Path| format!("{:?}", p.display().to_string());
    let _ = writeln!(
        s,
        "// Generated by occupancy_core::build; include!() it, do not edit."
    );
    let _ = writeln!(
        s,
        "/// `true`: the kernels were compiled in this build (NVRTC, ptxas); `false`: a compiler was"
    );
    let _ = writeln!(
        s,
        "/// not available, the committed resource manifest was used and no cubin or PTX is embedded."
    );
    let _ = writeln!(
        s,
        "#[allow(dead_code)]\npub const COMPILED: bool = {compiled};"
    );
    let _ = writeln!(
        s,
        "/// The target architectures (compiled for when `COMPILED`)."
    );
    let t: Vec<String> = targets
        .iter()
        .map(|t| format!("{:?}", t.to_string()))
        .collect();
    let _ = writeln!(
        s,
        "#[allow(dead_code)]\npub const TARGETS: &[&str] = &[{}];",
        t.join(", ")
    );
    let st: Vec<String> = files.iter().map(|f| format!("{:?}", stem(f))).collect();
    let _ = writeln!(s, "/// The kernel source stems (`sgemm` for `sgemm.cu`).");
    let _ = writeln!(
        s,
        "#[allow(dead_code)]\npub const STEMS: &[&str] = &[{}];",
        st.join(", ")
    );
    let _ = writeln!(s, "/// The resource manifest (JSON) in effect.");
    let _ = writeln!(
        s,
        "#[allow(dead_code)]\npub const MANIFEST: &str = include_str!({});",
        lit(manifest)
    );
    let _ = writeln!(
        s,
        "#[allow(dead_code)]\nstatic CUBINS: &[(&str, &str, &[u8])] = &["
    );
    for (stem, target, path) in &artifacts.cubins {
        let _ = writeln!(
            s,
            "    ({stem:?}, {:?}, include_bytes!({})),",
            target.to_string(),
            lit(path)
        );
    }
    let _ = writeln!(
        s,
        "];\n#[allow(dead_code)]\nstatic PTX: &[(&str, &str)] = &["
    );
    for (stem, path) in &artifacts.ptx {
        let _ = writeln!(s, "    ({stem:?}, include_str!({})),", lit(path));
    }
    let _ = writeln!(s, "];");
    let _ = writeln!(
        s,
        "/// The cubin of `stem` (`sgemm`) for `sm` (`sm_80`); `None` when not compiled."
    );
    let _ = writeln!(
        s,
        "#[allow(dead_code)]\npub fn cubin(stem: &str, sm: &str) -> Option<&'static [u8]> {{\n    CUBINS.iter().find(|(s, a, _)| *s == stem && *a == sm).map(|(_, _, b)| *b)\n}}"
    );
    let _ = writeln!(
        s,
        "/// The PTX of `stem`: compiled for the lowest target from a `.cu`, the file itself for a `.ptx`; `None` when not compiled."
    );
    let _ = writeln!(
        s,
        "#[allow(dead_code)]\npub fn ptx(stem: &str) -> Option<&'static str> {{\n    PTX.iter().find(|(s, _)| *s == stem).map(|(_, p)| *p)\n}}"
    );
    write(&out_dir.join("kernels.rs"), s.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stems_and_folder_listing() {
        assert_eq!(stem("sgemm.cu"), "sgemm");
        assert_eq!(stem("affine.ptx"), "affine");
        let e = kernel_files(Path::new("/nonexistent/kernels")).unwrap_err();
        assert!(
            e.0.contains("cannot read the kernels folder /nonexistent/kernels"),
            "{e}"
        );
    }

    #[test]
    fn two_files_may_not_share_a_stem() {
        let dir = std::env::temp_dir().join(format!("occupancy-stems-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        for f in ["a.cu", "a.ptx", "b.ptx", "notes.txt"] {
            std::fs::write(dir.join(f), "").unwrap();
        }
        let e = kernel_files(&dir).unwrap_err();
        assert!(e.0.starts_with("a.cu and a.ptx in "), "{e}");
        assert!(e.0.contains("share the stem `a`"), "{e}");
        std::fs::remove_file(dir.join("a.cu")).unwrap();
        assert_eq!(kernel_files(&dir).unwrap(), ["a.ptx", "b.ptx"]);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
