//! Build-script helper: compiles a folder of CUDA C++ kernels with NVRTC (loaded at run time,
//! no CUDA toolkit needed) to a cubin per target architecture and to PTX, records their
//! resources in a manifest, and generates a Rust file that embeds the artifacts.
//!
//! ```no_run
//! // build.rs: fn main() {
//! occupancy_core::build::Kernels::new("../kernels")     // *.cu, relative to CARGO_MANIFEST_DIR
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
//! Outputs, in `$OUT_DIR/occupancy/`: `<stem>.<sm>.cubin` for every source and target,
//! `<stem>.ptx` (compiled for the lowest target, so the driver can JIT it on any newer GPU),
//! `<stem>.<sm>.log` (NVRTC's log with `ptxas -v`), `manifest.json` and `kernels.rs`. The build
//! script also prints `cargo:rustc-env=OCCUPANCY_MANIFEST=<manifest in effect>` (read by the
//! attribute macro) and `cargo:rerun-if-changed` / `rerun-if-env-changed` lines.
//!
//! Finding NVRTC: `OCCUPANCY_NVRTC` = path of `libnvrtc.so*` or of its folder, or `none` to
//! force the fallback; otherwise the PyPI wheels (`nvidia-cuda-nvrtc`, `nvidia-cuda-nvrtc-cu12`,
//! `nvidia-cuda-nvrtc-cu11`) in any site-packages `python3` reports, `CUDA_PATH` / `CUDA_HOME` /
//! `/usr/local/cuda`, then the system loader. The first library whose supported architectures
//! cover every target is used.
//!
//! Without NVRTC the committed manifest is used (written earlier by this helper with
//! `OCCUPANCY_WRITE_MANIFEST=1`, or by `cargo occupancy inspect --write-manifest`), with a
//! `cargo:warning` saying so and one per source file that changed since; `kernels.rs` then has
//! `COMPILED = false` and no artifacts. A kernel that fails to compile is a build error with
//! NVRTC's log.

mod nvrtc;

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use crate::resources::manifest::{Manifest, SourceFile, sha256_hex};
use crate::resources::{SmTarget, Toolkit, cubin, ptx};

pub use nvrtc::Nvrtc;

/// Environment variable: path of libnvrtc (file or folder), or `none` to skip compiling.
pub const ENV_NVRTC: &str = "OCCUPANCY_NVRTC";
/// Environment variable: set to `1` to rewrite the committed manifest after compiling.
pub const ENV_WRITE_MANIFEST: &str = "OCCUPANCY_WRITE_MANIFEST";
/// The variable set for the crate being built: absolute path of the manifest in effect.
pub const ENV_MANIFEST: &str = "OCCUPANCY_MANIFEST";

/// A folder of CUDA kernels to compile from `build.rs`.
#[derive(Debug, Clone)]
pub struct Kernels {
    dir: PathBuf,
    targets: Vec<String>,
    manifest: Option<PathBuf>,
    options: Vec<String>,
    nvrtc: Option<PathBuf>,
}

/// What [`Kernels::try_compile`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome {
    /// `true`: compiled with NVRTC; `false`: fell back to the committed manifest.
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

impl Kernels {
    /// The `*.cu` files of `dir` (relative to `CARGO_MANIFEST_DIR`), for `sm_80` until
    /// [`Kernels::targets`] says otherwise.
    pub fn new(dir: impl AsRef<Path>) -> Self {
        Self {
            dir: dir.as_ref().to_path_buf(),
            targets: vec!["sm_80".to_string()],
            manifest: None,
            options: vec!["--std=c++17".to_string()],
            nvrtc: None,
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

    /// The committed fallback manifest (relative to `CARGO_MANIFEST_DIR`), used when NVRTC is
    /// not available and rewritten when `OCCUPANCY_WRITE_MANIFEST=1`.
    pub fn manifest(mut self, path: impl AsRef<Path>) -> Self {
        self.manifest = Some(path.as_ref().to_path_buf());
        self
    }

    /// An extra NVRTC option (`-DTILE=16`, `--use_fast_math`, `-I...`). Default: `--std=c++17`.
    pub fn option(mut self, option: impl Into<String>) -> Self {
        self.options.push(option.into());
        self
    }

    /// Use this libnvrtc (a file or its folder; `none`: do not compile), whatever
    /// `OCCUPANCY_NVRTC` says (meant for tests and tools). Default: `OCCUPANCY_NVRTC`, then a
    /// search (see the module docs).
    pub fn nvrtc(mut self, path: impl AsRef<Path>) -> Self {
        self.nvrtc = Some(path.as_ref().to_path_buf());
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
        emit(&format!("cargo:rerun-if-env-changed={ENV_WRITE_MANIFEST}"));
        if let Some(m) = &manifest_src {
            emit(&format!("cargo:rerun-if-changed={}", m.display()));
        }
        let files = cu_files(&dir)?;
        for f in &files {
            emit(&format!("cargo:rerun-if-changed={}", dir.join(f).display()));
        }

        let mut warnings = Vec::new();
        let found = find_nvrtc(&targets, self.nvrtc.as_deref());
        let outcome = match found {
            Ok(nvrtc) => {
                let manifest = self.compile_all(&nvrtc, &dir, &files, &targets, out_dir)?;
                let path = out_dir.join("manifest.json");
                manifest
                    .write(&path)
                    .map_err(|e| BuildError(e.to_string()))?;
                if let Some(src) = &manifest_src {
                    if std::env::var(ENV_WRITE_MANIFEST).is_ok_and(|v| v == "1") {
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
                write_kernels_rs(out_dir, true, &files, &targets, &path)?;
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
                         was given (Kernels::manifest). Install NVRTC (pip install nvidia-cuda-nvrtc-cu12), \
                         set {ENV_NVRTC}=/path/to/libnvrtc.so, or commit a manifest written by \
                         `cargo occupancy inspect --write-manifest`.",
                        dir.display()
                    )));
                };
                let manifest = Manifest::load(src).map_err(|e| {
                    BuildError(format!(
                        "cannot compile the CUDA kernels: {why}; and the committed manifest is unusable: {e}. \
                         Install NVRTC (pip install nvidia-cuda-nvrtc-cu12) or set {ENV_NVRTC}."
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
                write_kernels_rs(out_dir, false, &files, &targets, &path)?;
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
        Ok(outcome)
    }

    fn compile_all(
        &self,
        nvrtc: &Nvrtc,
        dir: &Path,
        files: &[String],
        targets: &[SmTarget],
        out_dir: &Path,
    ) -> Result<Manifest, BuildError> {
        let toolkit = Toolkit {
            major: nvrtc.version.0,
            minor: nvrtc.version.1,
        };
        let mut manifest = Manifest::new(concat!(
            "occupancy-core ",
            env!("CARGO_PKG_VERSION"),
            " (NVRTC)"
        ));
        let lowest = targets.iter().min_by_key(|t| (t.sm, t.variant)).copied();
        for file in files {
            let path = dir.join(file);
            let source = crate::file::read(&path, "kernel source", crate::file::MAX_TEXT_BYTES)
                .map_err(|e| BuildError(e.to_string()))?;
            manifest.sources.push(SourceFile {
                file: file.clone(),
                sha256: sha256_hex(&source),
                toolkit: Some(toolkit),
            });
            let text = String::from_utf8(source)
                .map_err(|_| BuildError(format!("{} is not UTF-8", path.display())))?;
            let stem = stem(file);
            for &target in targets {
                let mut options = vec![
                    format!("--gpu-architecture={target}"),
                    "-Xptxas=-v".to_string(),
                    format!("-I{}", dir.display()),
                ];
                options.extend(self.options.iter().cloned());
                let out = nvrtc.compile(&text, file, &options).map_err(|log| {
                    BuildError(format!(
                        "NVRTC {toolkit} ({}) failed to compile {} for {target}:\n{log}",
                        nvrtc.path.display(),
                        path.display()
                    ))
                })?;
                write(&out_dir.join(format!("{stem}.{target}.cubin")), &out.cubin)?;
                write(
                    &out_dir.join(format!("{stem}.{target}.log")),
                    out.log.as_bytes(),
                )?;
                if Some(target) == lowest {
                    write(&out_dir.join(format!("{stem}.ptx")), out.ptx.as_bytes())?;
                }
                let parsed = cubin::parse(&out.cubin).map_err(|e| {
                    BuildError(format!(
                        "reading the cubin NVRTC made from {file} for {target}: {e}"
                    ))
                })?;
                let module = ptx::parse(&out.ptx).ok();
                let kernels = parsed.kernels.into_iter().map(|mut k| {
                    if let Some(entry) = module.as_ref().and_then(|m| m.entry(&k.name)) {
                        k.apply_ptx(entry);
                    }
                    k
                });
                manifest.add_kernels(Some(file), kernels);
            }
        }
        manifest.sort();
        Ok(manifest)
    }
}

fn stem(file: &str) -> &str {
    file.strip_suffix(".cu").unwrap_or(file)
}

fn write(path: &Path, bytes: &[u8]) -> Result<(), BuildError> {
    std::fs::write(path, bytes)
        .map_err(|e| BuildError(format!("cannot write {}: {e}", path.display())))
}

/// The `*.cu` file names of `dir`, sorted.
fn cu_files(dir: &Path) -> Result<Vec<String>, BuildError> {
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
        .filter(|n| n.ends_with(".cu"))
        .collect();
    files.sort();
    Ok(files)
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
        "/// `true`: NVRTC compiled the kernels in this build; `false`: it was not available, the"
    );
    let _ = writeln!(
        s,
        "/// committed resource manifest was used and no cubin or PTX is embedded."
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
    for f in files.iter().filter(|_| compiled) {
        for t in targets {
            let p = out_dir.join(format!("{}.{t}.cubin", stem(f)));
            let _ = writeln!(
                s,
                "    ({:?}, {:?}, include_bytes!({})),",
                stem(f),
                t.to_string(),
                lit(&p)
            );
        }
    }
    let _ = writeln!(
        s,
        "];\n#[allow(dead_code)]\nstatic PTX: &[(&str, &str)] = &["
    );
    for f in files.iter().filter(|_| compiled) {
        let p = out_dir.join(format!("{}.ptx", stem(f)));
        let _ = writeln!(s, "    ({:?}, include_str!({})),", stem(f), lit(&p));
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
        "/// The PTX of `stem`, compiled for the lowest target; `None` when not compiled."
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
        let e = cu_files(Path::new("/nonexistent/kernels")).unwrap_err();
        assert!(
            e.0.contains("cannot read the kernels folder /nonexistent/kernels"),
            "{e}"
        );
    }
}
