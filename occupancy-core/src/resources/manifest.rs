//! The resource manifest: per kernel and target architecture, the resources ptxas gave it,
//! plus per CUDA source file a SHA-256 of its content and the toolkit that compiled it.
//!
//! Written by the build helper ([`crate::build`]) and by `cargo occupancy inspect
//! --write-manifest`; read by the attribute macro, which finds it through the
//! `OCCUPANCY_MANIFEST` environment variable the build helper sets. JSON:
//!
//! ```json
//! {
//!   "format": 1,
//!   "generator": "occupancy-core 0.1.0",
//!   "sources": [{ "file": "sgemm.cu", "sha256": "9f2c...", "toolkit": "12.9" }],
//!   "kernels": [{ "source": "sgemm.cu", "name": "sgemm_tiled", "arch": "sm_80",
//!                 "toolkit": "12.9", "origin": "cubin", "registers_per_thread": 40,
//!                 "static_smem_bytes": 8192, "local_bytes": 0, "spill_store_bytes": 0,
//!                 "spill_load_bytes": 0, "barriers": 1, "max_threads": [256, 1, 1] }]
//! }
//! ```
//!
//! ```
//! use occupancy_core::resources::manifest::Manifest;
//! # let json = r#"{"format":1,"sources":[],"kernels":[{"name":"k","arch":"sm_80","origin":"cubin",
//! #   "registers_per_thread":40,"static_smem_bytes":0,"local_bytes":0,"spill_store_bytes":0,
//! #   "spill_load_bytes":0,"barriers":1}]}"#;
//! let manifest = Manifest::from_json(json).unwrap();            // or Manifest::load(path)
//! let k = manifest.lookup("k", "sm_86").unwrap();                // the sm_80 cubin runs on 8.6
//! assert_eq!((k.registers_per_thread, k.arch.to_string().as_str()), (40, "sm_80"));
//! assert!(manifest.lookup("q", "sm_80").unwrap_err().to_string().contains("k (sm_80)"));
//! ```

use std::fmt;
use std::path::Path;

use sha2::{Digest, Sha256};

use super::{KernelResources, ResourceError, Result, SmTarget, Toolkit, Variant};

/// The manifest format version this code writes and reads.
pub const FORMAT: u32 = 1;

/// A resource manifest.
#[derive(Debug, Clone, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub struct Manifest {
    /// [`FORMAT`].
    pub format: u32,
    /// What wrote it (`occupancy-core 0.1.0`, `cargo-occupancy 0.1.0`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub generator: Option<String>,
    /// The CUDA source files the kernels came from, when known.
    #[serde(default)]
    pub sources: Vec<SourceFile>,
    /// Every kernel, once per target architecture.
    pub kernels: Vec<ManifestKernel>,
}

/// One CUDA source file the manifest describes.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct SourceFile {
    /// Its path relative to the kernels folder (`sgemm.cu`), `/`-separated.
    pub file: String,
    /// SHA-256 of its content, lower-case hex.
    pub sha256: String,
    /// The toolkit that compiled it (NVRTC's version), when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub toolkit: Option<Toolkit>,
}

/// One kernel for one architecture.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ManifestKernel {
    /// The [`SourceFile::file`] it was compiled from, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    /// Its resources.
    #[serde(flatten)]
    pub resources: KernelResources,
}

/// A kernel or architecture the manifest does not have, with what it does have.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LookupError {
    /// The name asked for.
    pub kernel: String,
    /// The architecture asked for.
    pub arch: String,
    /// Each kernel's display name with the architectures it was compiled for.
    pub available: Vec<(String, Vec<SmTarget>)>,
    /// `true`: the kernel exists, not for this architecture.
    pub kernel_found: bool,
    /// A close kernel name, when there is one.
    pub suggestion: Option<String>,
}

impl fmt::Display for LookupError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.kernel_found {
            write!(
                f,
                "kernel `{}` was not compiled for {} (nor a compatible architecture)",
                self.kernel, self.arch
            )?;
        } else {
            write!(f, "no kernel `{}` in the manifest", self.kernel)?;
            if let Some(s) = &self.suggestion {
                write!(f, " (did you mean `{s}`?)")?;
            }
        }
        if self.available.is_empty() {
            return write!(f, "; the manifest has no kernels");
        }
        write!(f, "; it has: ")?;
        for (i, (name, archs)) in self.available.iter().enumerate() {
            let archs: Vec<String> = archs.iter().map(SmTarget::to_string).collect();
            write!(
                f,
                "{}{name} ({})",
                if i > 0 { ", " } else { "" },
                archs.join(", ")
            )?;
        }
        Ok(())
    }
}

impl std::error::Error for LookupError {}

impl Manifest {
    /// An empty manifest written by `generator`.
    pub fn new(generator: impl Into<String>) -> Self {
        Self {
            format: FORMAT,
            generator: Some(generator.into()),
            sources: Vec::new(),
            kernels: Vec::new(),
        }
    }

    /// Reads a manifest file.
    pub fn load(path: impl AsRef<Path>) -> Result<Self> {
        let path = path.as_ref();
        let text = crate::file::read_text(path, "resource manifest", crate::file::MAX_TEXT_BYTES)
            .map_err(|e| ResourceError::new(e.to_string()))?;
        Self::from_json(&text).map_err(|e| e.context(path.display()))
    }

    /// Parses manifest JSON.
    pub fn from_json(text: &str) -> Result<Self> {
        let m: Self = serde_json::from_str(text)
            .map_err(|e| ResourceError::new(format!("resource manifest: {e}")))?;
        if m.format != FORMAT {
            return Err(ResourceError::new(format!(
                "resource manifest format {} is not supported (this version reads {FORMAT}); regenerate it",
                m.format
            )));
        }
        Ok(m)
    }

    /// Pretty JSON, with a trailing newline (stable: kernels sorted by source, name, arch).
    pub fn to_json(&self) -> String {
        let mut sorted = self.clone();
        sorted.sort();
        let mut s = serde_json::to_string_pretty(&sorted).unwrap_or_default();
        s.push('\n');
        s
    }

    /// Writes [`Manifest::to_json`] to `path`, creating parent folders.
    pub fn write(&self, path: impl AsRef<Path>) -> Result<()> {
        let path = path.as_ref();
        if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            std::fs::create_dir_all(parent).map_err(|e| {
                ResourceError::new(format!("cannot create {}: {e}", parent.display()))
            })?;
        }
        std::fs::write(path, self.to_json()).map_err(|e| {
            ResourceError::new(format!(
                "cannot write resource manifest {}: {e}",
                path.display()
            ))
        })
    }

    /// Sorts sources and kernels into their stable order.
    pub fn sort(&mut self) {
        self.sources.sort_by(|a, b| a.file.cmp(&b.file));
        self.kernels.sort_by(|a, b| {
            (&a.source, &a.resources.name, a.resources.arch).cmp(&(
                &b.source,
                &b.resources.name,
                b.resources.arch,
            ))
        });
    }

    /// Adds kernels read from one source file (or none).
    pub fn add_kernels(
        &mut self,
        source: Option<&str>,
        kernels: impl IntoIterator<Item = KernelResources>,
    ) {
        self.kernels
            .extend(kernels.into_iter().map(|resources| ManifestKernel {
                source: source.map(str::to_string),
                resources,
            }));
    }

    /// The resources of `kernel` (its symbol, its demangled name, the demangled name without
    /// parameters, or an `extern "C"` name) for `arch` (`sm_86`, `8.6`, `sm_90a`).
    ///
    /// When there is no cubin for exactly that architecture, the one the CUDA driver would
    /// load is used: same SM number with another suffix, else the highest base target of the
    /// same major version not above it (an `sm_80` cubin runs on 8.6). The returned resources'
    /// `arch` says which.
    pub fn lookup(
        &self,
        kernel: &str,
        arch: &str,
    ) -> std::result::Result<&KernelResources, LookupError> {
        let wanted = SmTarget::parse(arch).ok();
        let candidates: Vec<&KernelResources> = self
            .kernels
            .iter()
            .map(|k| &k.resources)
            .filter(|k| k.names().contains(&kernel))
            .collect();
        if let Some(want) = wanted {
            let exact = candidates.iter().find(|k| k.arch == want);
            let same_sm = || candidates.iter().find(|k| k.arch.sm == want.sm);
            let compatible = || {
                candidates
                    .iter()
                    .filter(|k| {
                        k.arch.variant == Variant::Base
                            && k.arch.sm / 10 == want.sm / 10
                            && k.arch.sm <= want.sm
                    })
                    .max_by_key(|k| k.arch.sm)
            };
            if let Some(k) = exact.or_else(same_sm).or_else(compatible) {
                return Ok(k);
            }
        }
        Err(self.lookup_error(kernel, arch, !candidates.is_empty()))
    }

    fn lookup_error(&self, kernel: &str, arch: &str, kernel_found: bool) -> LookupError {
        let mut available: Vec<(String, Vec<SmTarget>)> = Vec::new();
        for k in &self.kernels {
            let name = k
                .resources
                .demangled
                .as_deref()
                .and_then(super::short_name)
                .unwrap_or(&k.resources.name);
            match available.iter_mut().find(|(n, _)| n == name) {
                Some((_, archs)) => {
                    if !archs.contains(&k.resources.arch) {
                        archs.push(k.resources.arch);
                    }
                }
                None => available.push((name.to_string(), vec![k.resources.arch])),
            }
        }
        for (_, archs) in &mut available {
            archs.sort();
        }
        available.sort();
        let suggestion = if kernel_found {
            None
        } else {
            self.kernels
                .iter()
                .flat_map(|k| k.resources.names())
                .map(|n| (strsim::jaro_winkler(kernel, n), n))
                .filter(|(score, _)| *score > 0.8)
                .max_by(|a, b| a.0.total_cmp(&b.0))
                .map(|(_, n)| n.to_string())
        };
        LookupError {
            kernel: kernel.to_string(),
            arch: arch.to_string(),
            available,
            kernel_found,
            suggestion,
        }
    }

    /// Compares the recorded source hashes with the files in `kernels_dir`: one line per file
    /// that changed, is new, or is gone since the manifest was written. Empty: up to date.
    pub fn stale_sources(&self, kernels_dir: &Path, files: &[String]) -> Vec<String> {
        let mut out = Vec::new();
        for file in files {
            match self.sources.iter().find(|s| &s.file == file) {
                None => out.push(format!("{file} is not in the manifest")),
                Some(s) => match crate::file::read(
                    &kernels_dir.join(file),
                    "kernel source",
                    crate::file::MAX_TEXT_BYTES,
                ) {
                    Ok(bytes) if sha256_hex(&bytes) == s.sha256 => {}
                    Ok(_) => out.push(format!("{file} changed since the manifest was written")),
                    Err(e) => out.push(format!("{file}: {}", e.reason)),
                },
            }
        }
        for s in &self.sources {
            if !files.contains(&s.file) {
                out.push(format!(
                    "{} is in the manifest but no longer in {}",
                    s.file,
                    kernels_dir.display()
                ));
            }
        }
        out
    }
}

/// SHA-256 of `bytes`, lower-case hex.
pub fn sha256_hex(bytes: &[u8]) -> String {
    let digest = Sha256::digest(bytes);
    let mut s = String::with_capacity(64);
    for b in digest.iter() {
        s.push_str(&format!("{b:02x}"));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::resources::Origin;

    fn kernel(name: &str, arch: &str, regs: u32) -> KernelResources {
        KernelResources {
            name: name.into(),
            demangled: crate::resources::demangle(name),
            arch: SmTarget::parse(arch).unwrap(),
            toolkit: Some(Toolkit {
                major: 12,
                minor: 9,
            }),
            origin: Origin::Cubin,
            registers_per_thread: regs,
            static_smem_bytes: 4360,
            local_bytes: 0,
            cumulative_stack_bytes: Some(0),
            spill_store_bytes: Some(0),
            spill_load_bytes: Some(0),
            barriers: Some(1),
            max_threads: Some([256, 1, 1]),
            required_threads: None,
            min_blocks_per_sm: Some(2),
            max_registers: Some(128),
            cluster_dims: None,
            max_cluster_rank: None,
            const_bank0_bytes: Some(380),
            param_bytes: Some(20),
        }
    }

    fn sample() -> Manifest {
        let mut m = Manifest::new("test");
        m.sources.push(SourceFile {
            file: "a.cu".into(),
            sha256: sha256_hex(b"x"),
            toolkit: None,
        });
        m.add_kernels(
            Some("a.cu"),
            [
                kernel("k_a", "sm_80", 40),
                kernel("k_a", "sm_90a", 42),
                kernel("_Z8tile_sumILi16EEvPf", "sm_75", 16),
            ],
        );
        m
    }

    #[test]
    fn round_trips_through_json() {
        let m = sample();
        let back = Manifest::from_json(&m.to_json()).unwrap();
        let mut sorted = m.clone();
        sorted.sort();
        assert_eq!(back, sorted);
        assert!(m.to_json().contains("\"arch\": \"sm_90a\""));
    }

    #[test]
    fn lookup_by_any_name_and_compatible_arch() {
        let m = sample();
        assert_eq!(m.lookup("k_a", "sm_80").unwrap().registers_per_thread, 40);
        assert_eq!(m.lookup("k_a", "8.9").unwrap().arch.to_string(), "sm_80");
        assert_eq!(m.lookup("k_a", "sm_90").unwrap().registers_per_thread, 42);
        assert_eq!(
            m.lookup("tile_sum<16>", "sm_75")
                .unwrap()
                .registers_per_thread,
            16
        );
        assert_eq!(
            m.lookup("void tile_sum<16>(float*)", "sm_75")
                .unwrap()
                .registers_per_thread,
            16
        );
        assert!(
            m.lookup("_Z8tile_sumILi16EEvPf", "sm_86")
                .unwrap_err()
                .kernel_found
        );
        let e = m.lookup("k_b", "sm_80").unwrap_err();
        assert_eq!(e.suggestion.as_deref(), Some("k_a"));
        assert_eq!(
            e.to_string(),
            "no kernel `k_b` in the manifest (did you mean `k_a`?); it has: k_a (sm_80, sm_90a), tile_sum<16> (sm_75)"
        );
        let e = m.lookup("k_a", "sm_75").unwrap_err();
        assert!(
            e.to_string()
                .starts_with("kernel `k_a` was not compiled for sm_75"),
            "{e}"
        );
    }

    #[test]
    fn rejects_other_formats_and_bad_json() {
        assert!(
            Manifest::from_json("{\"format\":2,\"kernels\":[]}")
                .unwrap_err()
                .message()
                .contains("format 2")
        );
        assert!(Manifest::from_json("{").is_err());
        let bad_arch = r#"{"format":1,"kernels":[{"name":"k","arch":"gfx90","origin":"cubin","registers_per_thread":1,"static_smem_bytes":0,"local_bytes":0,"spill_store_bytes":null,"spill_load_bytes":null,"barriers":null}]}"#;
        assert!(
            Manifest::from_json(bad_arch)
                .unwrap_err()
                .message()
                .contains("gfx90")
        );
    }

    #[test]
    fn hashes_are_sha256() {
        assert_eq!(
            sha256_hex(b"abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }
}
