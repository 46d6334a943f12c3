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
//!
//! # Module-qualified names
//!
//! Kernel names are unique only within a module (one PTX file, one `.cu` file), so every
//! entry keeps the file it came from, and its *qualifier* is that file's stem
//! ([`ManifestKernel::qualifier`]: `conv2d` for `conv2d.cu`, `conv2d.ptx` or
//! `conv2d.sm_80.cubin`). A lookup name is `"kernel"` or `"qualifier::kernel"`
//! (`"conv2d::transpose_filters_f32"`); an unqualified name that more than one module
//! defines is an error listing the qualified choices ([`LookupError::choices`]).
//! [`Manifest::kernel_names`] lists every (qualifier, kernel) pair, for tools that match
//! names themselves (families, globs).

use std::collections::{BTreeSet, HashMap};
use std::fmt;
use std::path::Path;

#[cfg(feature = "source-hashes")]
use sha2::{Digest, Sha256};

use super::{KernelResources, ResourceError, Result, SmTarget, Toolkit, Variant, short_name};

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

/// The names a manifest's kernels answer to, each with its kernels' positions
/// ([`Manifest::name_index`]).
#[derive(Debug, Clone, Default)]
pub struct NameIndex {
    entries: HashMap<String, Vec<usize>>,
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
    /// The compiled file it was read from, when that is all that is known (the path
    /// `cargo occupancy inspect --write-manifest` was given: `build/conv2d.sm_80.cubin`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub artifact: Option<String>,
    /// Its resources.
    #[serde(flatten)]
    pub resources: KernelResources,
}

impl ManifestKernel {
    /// The module the kernel belongs to: the [`module_stem`] of its source, else of its
    /// artifact (`conv2d` for `conv2d.cu`); `None` when the manifest records neither.
    pub fn qualifier(&self) -> Option<&str> {
        self.source
            .as_deref()
            .or(self.artifact.as_deref())
            .map(module_stem)
    }

    /// Whether `name` names this kernel: one of [`KernelResources::names`], alone or after
    /// its qualifier and `::` (`conv2d::transpose_filters_f32`).
    pub fn answers_to(&self, name: &str) -> bool {
        // Asked of every kernel of a manifest per lookup: without allocating.
        let is_mine = |n: &str| {
            n == self.resources.name
                || self
                    .resources
                    .demangled
                    .as_deref()
                    .is_some_and(|d| n == d || short_name(d) == Some(n))
        };
        if is_mine(name) {
            return true;
        }
        match name.split_once("::") {
            Some((qualifier, rest)) => self.qualifier() == Some(qualifier) && is_mine(rest),
            None => false,
        }
    }
}

/// The module stem of a source or artifact file: its name without folders, extension and
/// a `.sm_XX` / `.compute_XX` architecture part: `kernels/conv2d.cu`, `conv2d.ptx`,
/// `out/conv2d.sm_90a.cubin` -> `conv2d`; `my.kernels.ptx` -> `my.kernels`.
pub fn module_stem(file: &str) -> &str {
    let name = file.rsplit(['/', '\\']).next().unwrap_or(file);
    let stem = match name.rsplit_once('.') {
        Some((stem, _)) if !stem.is_empty() => stem,
        _ => name,
    };
    match stem.rsplit_once('.') {
        Some((head, arch))
            if !head.is_empty()
                && (arch.starts_with("sm_") || arch.starts_with("compute_"))
                && SmTarget::parse(arch).is_ok() =>
        {
            head
        }
        _ => stem,
    }
}

/// Of the architectures a kernel was compiled for, the one whose cubin the CUDA driver
/// loads on `want`: `want` itself, else the same SM number with another suffix, else the
/// highest base target of the same major version not above it (an `sm_80` cubin runs on
/// 8.6, an `sm_90a` one only on 9.0). `None`: none of them runs there.
pub fn loadable_arch(
    available: impl IntoIterator<Item = SmTarget>,
    want: SmTarget,
) -> Option<SmTarget> {
    let available: Vec<SmTarget> = available.into_iter().collect();
    let exact = available.iter().find(|a| **a == want);
    let same_sm = || available.iter().find(|a| a.sm == want.sm);
    let compatible = || {
        available
            .iter()
            .filter(|a| a.variant == Variant::Base && a.sm / 10 == want.sm / 10 && a.sm <= want.sm)
            .max_by_key(|a| a.sm)
    };
    exact.or_else(same_sm).or_else(compatible).copied()
}

/// One kernel of the manifest (one symbol in one module), with every architecture it was
/// compiled for: what [`Manifest::kernel_names`] lists.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KernelName<'a> {
    /// Its module ([`ManifestKernel::qualifier`]).
    pub qualifier: Option<&'a str>,
    /// Its symbol (mangled for C++, plain for `extern "C"`).
    pub symbol: &'a str,
    /// The name to show ([`KernelResources::display_name`]: `tile_sum<16>`).
    pub display: &'a str,
    /// The architectures it was compiled for, sorted.
    pub archs: Vec<SmTarget>,
    /// The shortest name [`Manifest::lookup`] selects exactly this kernel by: the display
    /// name when no other kernel answers to it, else `qualifier::display`, else
    /// `qualifier::symbol` (C++ overloads in one module), else the symbol.
    pub selector: String,
}

impl KernelName<'_> {
    /// `conv2d::transpose_filters_f32`: the display name after the qualifier (the display
    /// name alone without one), whether or not another module shares the name.
    pub fn qualified(&self) -> String {
        match self.qualifier {
            Some(q) => format!("{q}::{}", self.display),
            None => self.display.to_string(),
        }
    }
}

/// A kernel or architecture the manifest does not have, or a name it cannot resolve to one
/// kernel, with what it does have.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LookupError {
    /// The name asked for.
    pub kernel: String,
    /// The architecture asked for.
    pub arch: String,
    /// Every kernel, by its [`KernelName::selector`], with the architectures it was compiled for.
    pub available: Vec<(String, Vec<SmTarget>)>,
    /// `true`: exactly one kernel answers to the name, and it was not compiled for this
    /// architecture (nor one whose cubin the driver would load there).
    pub kernel_found: bool,
    /// The architectures that one kernel was compiled for, when `kernel_found`.
    pub compiled_for: Vec<SmTarget>,
    /// A close kernel name, when there is no kernel of that name and one is close.
    pub suggestion: Option<String>,
    /// Several kernels answer to the name (one kernel name in several modules): their
    /// selectors (`conv2d::transpose_filters_f32`), one of which to write instead.
    pub choices: Vec<String>,
    /// The one kernel the name selects has different resources for this architecture in
    /// entries read from different artifacts (two builds of one module): those artifacts.
    pub conflicting: Vec<String>,
    /// The kernels that could be meant, closest first, bounded ([`Manifest::listing`]):
    /// what the message shows instead of every kernel.
    pub listing: String,
}

impl fmt::Display for LookupError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if !self.choices.is_empty() {
            return write!(
                f,
                "kernel name `{}` is ambiguous: {} kernels answer to it; qualify it with its \
                 module (the source or artifact file stem): {}",
                self.kernel,
                self.choices.len(),
                self.choices
                    .iter()
                    .map(|c| format!("`{c}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            );
        }
        if !self.conflicting.is_empty() {
            return write!(
                f,
                "kernel `{}` has different resources for {} in entries read from {}: keep the \
                 artifacts of one build only",
                self.kernel,
                self.arch,
                self.conflicting.join(", ")
            );
        }
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
        write!(f, "; {}", self.listing)
    }
}

/// How many kernels a message about a name lists (the closest to the name).
pub const LISTED_KERNELS: usize = 5;

/// The longest kernel name a listing shows whole, characters (C++ template instantiations
/// run to hundreds); longer ones are cut with `...`.
const LISTED_NAME_CHARS: usize = 100;

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

    /// Pretty JSON, with a trailing newline (stable: kernels sorted by source, artifact,
    /// name, arch).
    pub fn to_json(&self) -> String {
        let mut sorted = self.clone();
        sorted.sort();
        let mut s = serde_json::to_string_pretty(&sorted).unwrap_or_default();
        s.push('\n');
        s
    }

    /// Writes [`Manifest::to_json`] to `path`, creating parent folders. A file that already
    /// holds exactly that text is left untouched (its modification time too, so that cargo
    /// does not see a change); the file is read for that only when it is a regular file of
    /// the text's length.
    ///
    /// # Errors
    ///
    /// `path` exists and is not a regular file (a folder, a device, a FIFO: nothing is read
    /// from or written to it), or a folder cannot be created or the file written.
    pub fn write(&self, path: impl AsRef<Path>) -> Result<()> {
        let path = path.as_ref();
        let json = self.to_json();
        if let Ok(meta) = std::fs::metadata(path) {
            if !meta.is_file() {
                return Err(ResourceError::new(format!(
                    "cannot write resource manifest {}: it exists and is not a regular file",
                    path.display()
                )));
            }
            if meta.len() == json.len() as u64
                && std::fs::read(path).is_ok_and(|old| old == json.as_bytes())
            {
                return Ok(());
            }
        }
        if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            std::fs::create_dir_all(parent).map_err(|e| {
                ResourceError::new(format!("cannot create {}: {e}", parent.display()))
            })?;
        }
        std::fs::write(path, json).map_err(|e| {
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
            (&a.source, &a.artifact, &a.resources.name, a.resources.arch).cmp(&(
                &b.source,
                &b.artifact,
                &b.resources.name,
                b.resources.arch,
            ))
        });
    }

    /// Adds kernels compiled from one source file (or from none known).
    pub fn add_kernels(
        &mut self,
        source: Option<&str>,
        kernels: impl IntoIterator<Item = KernelResources>,
    ) {
        self.add(source, None, kernels);
    }

    /// Adds kernels read from one artifact file (`build/conv2d.sm_80.cubin`), compiled from
    /// `source` when known; every entry is kept, whatever other artifacts hold.
    pub fn add_artifact_kernels(
        &mut self,
        artifact: &str,
        source: Option<&str>,
        kernels: impl IntoIterator<Item = KernelResources>,
    ) {
        self.add(source, Some(artifact), kernels);
    }

    fn add(
        &mut self,
        source: Option<&str>,
        artifact: Option<&str>,
        kernels: impl IntoIterator<Item = KernelResources>,
    ) {
        self.kernels
            .extend(kernels.into_iter().map(|resources| ManifestKernel {
                source: source.map(str::to_string),
                artifact: artifact.map(str::to_string),
                resources,
            }));
    }

    /// Every kernel (one symbol in one module) with its architectures and the name that
    /// selects it, sorted by qualifier and display name. Tools that match names themselves
    /// (a family `affine_*`) match against these and look each up by its
    /// [`KernelName::selector`].
    pub fn kernel_names(&self) -> Vec<KernelName<'_>> {
        // One pass with maps: a manifest is input, and may be large.
        let mut index: HashMap<(Option<&str>, &str), usize> = HashMap::new();
        let mut kernels: Vec<(&ManifestKernel, BTreeSet<SmTarget>)> = Vec::new();
        for k in &self.kernels {
            let key = (k.qualifier(), k.resources.name.as_str());
            let i = *index.entry(key).or_insert_with(|| {
                kernels.push((k, BTreeSet::new()));
                kernels.len() - 1
            });
            kernels[i].1.insert(k.resources.arch);
        }
        // Every name a kernel answers to without a qualifier, and with its qualifier ->
        // the kernels.
        let mut by_name: HashMap<&str, Vec<usize>> = HashMap::new();
        let mut by_qualified: HashMap<(&str, &str), Vec<usize>> = HashMap::new();
        for (i, (k, _)) in kernels.iter().enumerate() {
            for name in k.resources.names() {
                let list = by_name.entry(name).or_default();
                if list.last() != Some(&i) {
                    list.push(i);
                }
                if let Some(q) = k.qualifier() {
                    let list = by_qualified.entry((q, name)).or_default();
                    if list.last() != Some(&i) {
                        list.push(i);
                    }
                }
            }
        }
        // Whether `name` selects kernel `i` alone, as `groups` (and so `lookup`) decides:
        // every kernel that answers to it is `i` (two lists, read until another shows).
        let selects_only = |name: &str, i: usize| {
            let whole = by_name.get(name).into_iter().flatten();
            let qualified = name
                .split_once("::")
                .and_then(|(q, rest)| by_qualified.get(&(q, rest)))
                .into_iter()
                .flatten();
            let mut answering = whole.chain(qualified).peekable();
            answering.peek().is_some() && answering.all(|&j| j == i)
        };
        let mut out: Vec<KernelName<'_>> = kernels
            .iter()
            .enumerate()
            .map(|(i, (k, archs))| {
                let (qualifier, symbol) = (k.qualifier(), k.resources.name.as_str());
                let display = k.resources.display_name();
                let mut tries = vec![display.to_string()];
                if let Some(q) = qualifier {
                    tries.push(format!("{q}::{display}"));
                    tries.push(format!("{q}::{symbol}"));
                }
                tries.push(symbol.to_string());
                let selector = tries
                    .iter()
                    .find(|name| selects_only(name, i))
                    .unwrap_or(&tries[tries.len() - 1])
                    .clone();
                KernelName {
                    qualifier,
                    symbol,
                    display,
                    archs: archs.iter().copied().collect(),
                    selector,
                }
            })
            .collect();
        out.sort_by(|a, b| {
            (a.qualifier, a.display, a.symbol).cmp(&(b.qualifier, b.display, b.symbol))
        });
        out
    }

    /// Every name a kernel of the manifest answers to ([`ManifestKernel::answers_to`]), each
    /// with the kernels that do: for [`Manifest::lookup_indexed`], which then finds a name's
    /// kernels without asking every kernel of the manifest. Valid for the manifest as it is
    /// now (build it again after changing `kernels`).
    pub fn name_index(&self) -> NameIndex {
        let mut entries: HashMap<String, Vec<usize>> = HashMap::new();
        for (i, k) in self.kernels.iter().enumerate() {
            let r = &k.resources;
            let mut mine: Vec<&str> = vec![r.name.as_str()];
            if let Some(d) = r.demangled.as_deref() {
                mine.push(d);
                mine.extend(short_name(d));
            }
            // `q::name`, as `answers_to` splits a name at its first `::`.
            let qualified: Vec<String> = match k.qualifier() {
                Some(q) if !q.contains("::") => mine.iter().map(|m| format!("{q}::{m}")).collect(),
                _ => Vec::new(),
            };
            for name in mine.into_iter().map(str::to_owned).chain(qualified) {
                let at = entries.entry(name).or_default();
                if at.last() != Some(&i) {
                    at.push(i);
                }
            }
        }
        NameIndex { entries }
    }

    /// [`Manifest::lookup`], finding the kernels `kernel` names in `index` (this manifest's
    /// [`Manifest::name_index`]): the same result, without a pass over every kernel.
    pub fn lookup_indexed(
        &self,
        kernel: &str,
        arch: &str,
        index: &NameIndex,
    ) -> std::result::Result<&KernelResources, Box<LookupError>> {
        let kernels = index
            .entries
            .get(kernel)
            .map(|at| at.iter().filter_map(|&i| self.kernels.get(i)).collect())
            .unwrap_or_default();
        self.lookup_among(kernel, arch, kernels)
    }

    /// `kernels` (in manifest order), one group per kernel (qualifier and symbol).
    fn grouped(kernels: Vec<&ManifestKernel>) -> Vec<Vec<&ManifestKernel>> {
        let mut index: HashMap<(Option<&str>, &str), usize> = HashMap::new();
        let mut groups: Vec<Vec<&ManifestKernel>> = Vec::new();
        for k in kernels {
            let key = (k.qualifier(), k.resources.name.as_str());
            let i = *index.entry(key).or_insert_with(|| {
                groups.push(Vec::new());
                groups.len() - 1
            });
            groups[i].push(k);
        }
        groups
    }

    /// The resources of `kernel` for `arch` (`sm_86`, `8.6`, `sm_90a`). `kernel` is its
    /// symbol, its demangled name, the demangled name without parameters, or an `extern "C"`
    /// name, optionally after its module qualifier and `::` (`conv2d::transpose_filters_f32`,
    /// see the module docs). A name that several modules define is an error listing them,
    /// unless every one of them has the same resources for `arch` (then those).
    ///
    /// When there is no cubin for exactly that architecture, the one the CUDA driver would
    /// load is used: same SM number with another suffix, else the highest base target of the
    /// same major version not above it (an `sm_80` cubin runs on 8.6). The returned resources'
    /// `arch` says which.
    pub fn lookup(
        &self,
        kernel: &str,
        arch: &str,
    ) -> std::result::Result<&KernelResources, Box<LookupError>> {
        self.lookup_among(
            kernel,
            arch,
            self.kernels
                .iter()
                .filter(|k| k.answers_to(kernel))
                .collect(),
        )
    }

    /// [`Manifest::lookup`] of `kernel`, given the entries that answer to it (in manifest
    /// order).
    fn lookup_among<'m>(
        &'m self,
        kernel: &str,
        arch: &str,
        kernels: Vec<&'m ManifestKernel>,
    ) -> std::result::Result<&'m KernelResources, Box<LookupError>> {
        let groups = Self::grouped(kernels);
        let many = match groups.as_slice() {
            [] => return Err(self.lookup_error(kernel, arch, None)),
            [one] => return self.lookup_in(kernel, arch, one),
            many => many,
        };
        // Which module's kernel is launched does not matter where each gives the same
        // resources on this target (one header's kernel compiled into many modules: dfdx's
        // `fill_with_f16` in 44). One pass, no error built per module.
        let want = SmTarget::parse(arch).ok();
        let mut each = many
            .iter()
            .map(|g| want.and_then(|w| Self::loadable_resources(g, w)));
        if let Some(Some(first)) = each.next()
            && each.all(|r| r == Some(first))
        {
            return Ok(first);
        }
        let names = self.kernel_names();
        let selectors: HashMap<(Option<&str>, &str), &str> = names
            .iter()
            .map(|n| ((n.qualifier, n.symbol), n.selector.as_str()))
            .collect();
        let mut e = self.lookup_error(kernel, arch, None);
        e.suggestion = None;
        e.choices = many
            .iter()
            .filter_map(|g| {
                selectors
                    .get(&(g[0].qualifier(), g[0].resources.name.as_str()))
                    .map(|s| s.to_string())
            })
            .collect();
        Err(e)
    }

    /// The resources of the cubin of `group` (one kernel's cubins for several
    /// architectures) the driver loads on `want`, when there is one and its copies agree.
    fn loadable_resources<'m>(
        group: &[&'m ManifestKernel],
        want: SmTarget,
    ) -> Option<&'m KernelResources> {
        let chosen = loadable_arch(group.iter().map(|k| k.resources.arch), want)?;
        let mut same = group
            .iter()
            .map(|k| &k.resources)
            .filter(|r| r.arch == chosen);
        let first = same.next()?;
        same.all(|r| r == first).then_some(first)
    }

    /// The resources for `arch` of the one kernel `group` holds (its cubins for several
    /// architectures), for [`Manifest::lookup`] of `kernel`.
    fn lookup_in<'m>(
        &self,
        kernel: &str,
        arch: &str,
        group: &[&'m ManifestKernel],
    ) -> std::result::Result<&'m KernelResources, Box<LookupError>> {
        let want = SmTarget::parse(arch).ok();
        if let Some(found) = want.and_then(|w| Self::loadable_resources(group, w)) {
            return Ok(found);
        }
        // Why not: no cubin the driver loads, or copies of it that disagree.
        let chosen = want.and_then(|w| loadable_arch(group.iter().map(|k| k.resources.arch), w));
        let Some(chosen) = chosen else {
            return Err(self.lookup_error(kernel, arch, Some(group)));
        };
        let same: Vec<&ManifestKernel> = group
            .iter()
            .copied()
            .filter(|k| k.resources.arch == chosen)
            .collect();
        let mut e = self.lookup_error(kernel, &chosen.to_string(), Some(group));
        e.kernel_found = false;
        e.compiled_for.clear();
        e.conflicting = same
            .iter()
            .map(|k| {
                k.artifact
                    .clone()
                    .or_else(|| k.source.clone())
                    .unwrap_or_else(|| "an unnamed file".to_string())
            })
            .collect();
        Err(e)
    }

    /// The error for `kernel` on `arch`: `found` is the one kernel that answers to the name,
    /// when there is one.
    fn lookup_error(
        &self,
        kernel: &str,
        arch: &str,
        found: Option<&[&ManifestKernel]>,
    ) -> Box<LookupError> {
        let names = self.kernel_names();
        let available = names
            .iter()
            .map(|n| (n.selector.clone(), n.archs.clone()))
            .collect();
        let mut compiled_for: Vec<SmTarget> = found
            .map(|g| g.iter().map(|k| k.resources.arch).collect())
            .unwrap_or_default();
        compiled_for.sort();
        compiled_for.dedup();
        let suggestion = if found.is_some() {
            None
        } else {
            suggestion(kernel, &names)
        };
        Box::new(LookupError {
            kernel: kernel.to_string(),
            arch: arch.to_string(),
            available,
            kernel_found: found.is_some(),
            compiled_for,
            suggestion,
            choices: Vec::new(),
            conflicting: Vec::new(),
            listing: listing(kernel, &names),
        })
    }

    /// The kernels `name` could mean, for a message about a name that selects none (a
    /// typo, a glob that matches nothing): [`LISTED_KERNELS`] at most, closest to the name
    /// first, each with its architectures, and how many are not listed:
    /// `it has 13 kernels, the closest: k_regs (sm_80, sm_90), ..., and 8 more`. A name
    /// qualified with a module the manifest has (`conv2d::transpose*`) is compared with that
    /// module's kernels only; an empty name lists the first few. Its length is bounded
    /// whatever the manifest holds.
    pub fn listing(&self, name: &str) -> String {
        listing(name, &self.kernel_names())
    }

    /// Compares the recorded source hashes with the files in `kernels_dir`: one line per file
    /// that changed, is new, or is gone since the manifest was written. Empty: up to date.
    /// (Feature `source-hashes`.)
    #[cfg(feature = "source-hashes")]
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

/// The kernels `name` could mean: with a module the manifest has (`conv2d::...`), that
/// module's; else all. With the module, and the name without it.
fn could_mean<'n, 'a>(
    name: &'n str,
    names: &'a [KernelName<'a>],
) -> (Option<&'n str>, &'n str, Vec<&'a KernelName<'a>>) {
    let (module, wanted) = match name.split_once("::") {
        Some((q, rest)) if names.iter().any(|n| n.qualifier == Some(q)) => (Some(q), rest),
        _ => (None, name),
    };
    let pool = names
        .iter()
        .filter(|n| module.is_none_or(|q| n.qualifier == Some(q)))
        .collect();
    (module, wanted, pool)
}

/// The name to suggest for `name`, which selects no kernel: the one kernel of that name in
/// another module than the one written; else, among the kernels it could mean, the one
/// whose name (display name or symbol) is closest, if close, written as
/// [`KernelName::selector`] (so that it selects that kernel alone); none when that name is
/// several kernels' (the listing shows them).
fn suggestion(name: &str, names: &[KernelName<'_>]) -> Option<String> {
    let (module, wanted, pool) = could_mean(name, names);
    // The name itself in another module: the module was the mistake.
    if module.is_some() {
        let exact: Vec<&KernelName<'_>> = names
            .iter()
            .filter(|n| n.display == wanted || n.symbol == wanted)
            .collect();
        if let [one] = exact.as_slice() {
            return Some(one.qualified());
        }
    }
    let score = |n: &KernelName<'_>| {
        strsim::jaro_winkler(wanted, n.display).max(strsim::jaro_winkler(wanted, n.symbol))
    };
    let (best, kernel) = pool
        .iter()
        .map(|n| (score(n), *n))
        .filter(|(score, _)| *score > 0.8)
        .max_by(|a, b| a.0.total_cmp(&b.0))?;
    let tied = pool
        .iter()
        .filter(|n| n.display == kernel.display && score(n) == best)
        .count();
    (tied == 1).then(|| kernel.selector.clone())
}

/// [`Manifest::listing`] over `names`.
fn listing(name: &str, names: &[KernelName<'_>]) -> String {
    // A module the manifest has narrows the kernels that could be meant to its own.
    let (module, wanted, pool) = could_mean(name, names);
    if pool.is_empty() {
        return "it has no kernels".to_owned();
    }
    // Wildcards say nothing about closeness: compare the literal parts.
    let literal: String = wanted
        .chars()
        .filter(|c| !matches!(c, '*' | '?' | '#'))
        .collect();
    let mut ranked: Vec<(f64, &KernelName<'_>)> = pool
        .iter()
        .map(|n| (strsim::jaro_winkler(&literal, n.display), *n))
        .collect();
    // Closest first; the manifest's (sorted) order among equals.
    ranked.sort_by(|a, b| b.0.total_cmp(&a.0));
    let shown: Vec<String> = ranked
        .iter()
        .take(LISTED_KERNELS)
        .map(|(_, n)| {
            let archs: Vec<String> = n.archs.iter().map(SmTarget::to_string).collect();
            let selector: String = if n.selector.chars().count() > LISTED_NAME_CHARS {
                let cut: String = n.selector.chars().take(LISTED_NAME_CHARS).collect();
                format!("{cut}...")
            } else {
                n.selector.clone()
            };
            format!("{selector} ({})", archs.join(", "))
        })
        .collect();
    let whose = match module {
        Some(q) => format!(" of module `{q}`"),
        None => String::new(),
    };
    let count = pool.len();
    let noun = if count == 1 { "kernel" } else { "kernels" };
    // No name (a choice to make): the first few, in the manifest's order.
    let closest = if name.is_empty() { "" } else { ", the closest" };
    if count <= LISTED_KERNELS {
        format!("it has {count} {noun}{whose}: {}", shown.join(", "))
    } else {
        format!(
            "it has {count} {noun}{whose}{closest}: {}, and {} more",
            shown.join(", "),
            count - LISTED_KERNELS
        )
    }
}

/// SHA-256 of `bytes`, lower-case hex. (Feature `source-hashes`.)
#[cfg(feature = "source-hashes")]
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
            // SHA-256 of "x".
            sha256: "2d711642b726b04401627ca9fbac32f5c8530fb1903cc4db02258717921a4881".into(),
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

    /// 500 kernels, the 100 names of each of 5 modules (as candle's `binary.cu`,
    /// `unary.cu`, ...), for sm_80 and sm_90.
    fn large() -> Manifest {
        let ops = [
            "add", "sub", "mul", "div", "max", "min", "pow", "exp", "log", "sqrt", "tanh", "gelu",
            "silu", "relu", "neg", "abs", "sin", "cos", "copy", "where",
        ];
        let mut m = Manifest::new("test");
        for module in ["binary", "unary", "affine", "reduce", "indexing"] {
            let source = format!("{module}.cu");
            let mut kernels = Vec::new();
            for op in ops {
                for dtype in ["f32", "f16", "bf16", "f64", "u8"] {
                    for arch in ["sm_80", "sm_90"] {
                        kernels.push(kernel(&format!("{op}_{dtype}"), arch, 32));
                    }
                }
            }
            m.add_kernels(Some(&source), kernels);
        }
        m.sort();
        m
    }

    #[test]
    fn the_name_index_finds_what_a_pass_over_every_kernel_finds() {
        let mut m = large();
        m.add_kernels(
            Some("kernels/a.cu"),
            [
                kernel("k_a", "sm_80", 40),
                kernel("k_a", "sm_90a", 42),
                kernel("_Z8tile_sumILi16EEvPf", "sm_75", 16),
                kernel("_ZN2ns1kILi3EEEvi", "sm_80", 24),
            ],
        );
        // One name in two modules with other resources: an ambiguity, the same both ways.
        m.add_kernels(Some("b.cu"), [kernel("k_a", "sm_80", 64)]);
        let index = m.name_index();
        let mut probes = vec![
            "nope".to_owned(),
            "a::nope".to_owned(),
            "binary::".to_owned(),
            "::k_a".to_owned(),
            "c::k_a".to_owned(),
            "a::b::k_a".to_owned(),
            String::new(),
        ];
        for k in &m.kernels {
            let r = &k.resources;
            let mut names = vec![r.name.clone()];
            if let Some(d) = &r.demangled {
                names.push(d.clone());
                names.extend(short_name(d).map(str::to_owned));
            }
            for n in names {
                probes.extend(k.qualifier().map(|q| format!("{q}::{n}")));
                probes.push(n);
            }
        }
        assert!(probes.iter().any(|p| p == "ns::k<3>"), "{probes:?}");
        for name in &probes {
            for arch in ["sm_75", "sm_80", "sm_86", "sm_90", "sm_90a"] {
                assert_eq!(
                    m.lookup_indexed(name, arch, &index),
                    m.lookup(name, arch),
                    "{name} on {arch}"
                );
            }
        }
    }

    #[test]
    fn a_name_that_selects_no_kernel_lists_the_closest_few() {
        let m = large();
        // Unqualified: five modules define `gelu_f16`, so no single suggestion; the closest
        // five of the 500, and a count, in a few hundred bytes (16 KB when every kernel was
        // listed).
        let e = m.lookup("gelu_fp16", "sm_80").unwrap_err();
        assert_eq!(e.suggestion, None);
        assert_eq!(
            e.to_string(),
            "no kernel `gelu_fp16` in the manifest; it has 500 kernels, the closest: \
             affine::gelu_f16 (sm_80, sm_90), binary::gelu_f16 (sm_80, sm_90), \
             indexing::gelu_f16 (sm_80, sm_90), reduce::gelu_f16 (sm_80, sm_90), \
             unary::gelu_f16 (sm_80, sm_90), and 495 more"
        );
        // Qualified with a module: that module's kernels only, and a name that selects one.
        let e = m.lookup("unary::gelu_fp16", "sm_80").unwrap_err();
        assert_eq!(e.suggestion.as_deref(), Some("unary::gelu_f16"));
        let listing = m.listing("unary::gleu_*");
        assert!(
            listing.starts_with("it has 100 kernels of module `unary`, the closest: unary::gelu_"),
            "{listing}"
        );
        assert_eq!(listing.matches("unary::").count(), 5, "{listing}");
        assert!(listing.ends_with(", and 95 more"), "{listing}");
        // A module the manifest does not have: every kernel could be meant.
        assert!(
            m.listing("conv::gelu_f16")
                .starts_with("it has 500 kernels, the closest: ")
        );
        // Bounded whatever the names: a 300-character C++ instantiation is cut.
        let mut long = Manifest::new("test");
        let name = format!("kernel_{}", "x".repeat(300));
        long.add_kernels(Some("t.cu"), [kernel(&name, "sm_80", 32)]);
        let listing = long.listing("other");
        assert_eq!(
            listing,
            format!("it has 1 kernel: kernel_{}... (sm_80)", "x".repeat(93))
        );
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
            "no kernel `k_b` in the manifest (did you mean `k_a`?); it has 2 kernels: k_a (sm_80, sm_90a), tile_sum<16> (sm_75)"
        );
        let e = m.lookup("k_a", "sm_75").unwrap_err();
        assert!(
            e.to_string()
                .starts_with("kernel `k_a` was not compiled for sm_75"),
            "{e}"
        );
    }

    #[test]
    fn module_stems_drop_folders_extensions_and_architectures() {
        for (file, stem) in [
            ("conv2d.cu", "conv2d"),
            ("kernels/conv2d.ptx", "conv2d"),
            ("out/conv2d.sm_90a.cubin", "conv2d"),
            ("conv2d.compute_80.ptx", "conv2d"),
            ("my.kernels.ptx", "my.kernels"),
            ("probe.lz4.fatbin", "probe.lz4"),
            ("noext", "noext"),
            (".hidden", ".hidden"),
        ] {
            assert_eq!(module_stem(file), stem, "{file}");
        }
    }

    #[test]
    fn one_name_of_equal_resources_in_several_modules_is_those() {
        // A header's kernel compiled into two modules: the same on sm_80, not on sm_90.
        let mut m = Manifest::new("test");
        m.add_kernels(
            Some("max_to.cu"),
            [kernel("fill", "sm_80", 12), kernel("fill", "sm_90", 10)],
        );
        m.add_kernels(
            Some("min_to.cu"),
            [kernel("fill", "sm_80", 12), kernel("fill", "sm_90", 11)],
        );
        let r = m.lookup("fill", "sm_86").unwrap();
        assert_eq!((r.registers_per_thread, r.arch), (12, SmTarget::new(80)));
        let e = m.lookup("fill", "sm_90").unwrap_err();
        assert_eq!(e.choices, ["max_to::fill", "min_to::fill"]);
        // Each module's own is still named by its qualifier.
        assert_eq!(
            m.lookup("min_to::fill", "sm_90")
                .unwrap()
                .registers_per_thread,
            11
        );
        // A target only one module has cubins for is ambiguous too: which is launched there
        // is not known.
        m.add_kernels(Some("sum_to.cu"), [kernel("fill", "sm_75", 12)]);
        assert!(!m.lookup("fill", "sm_75").unwrap_err().choices.is_empty());
    }

    #[test]
    fn qualified_names_select_one_module() {
        let mut m = sample();
        m.add_kernels(Some("b.cu"), [kernel("k_a", "sm_80", 30)]);
        m.add_artifact_kernels("build/c.sm_80.cubin", None, [kernel("k_c", "sm_80", 20)]);
        // One name, two modules: an error listing the qualified choices, on every target.
        for arch in ["sm_80", "sm_75"] {
            let e = m.lookup("k_a", arch).unwrap_err();
            assert_eq!(e.choices, ["a::k_a", "b::k_a"]);
            assert!(!e.kernel_found);
            assert_eq!(
                e.to_string(),
                "kernel name `k_a` is ambiguous: 2 kernels answer to it; qualify it with its \
                 module (the source or artifact file stem): `a::k_a`, `b::k_a`"
            );
        }
        assert_eq!(
            m.lookup("a::k_a", "sm_80").unwrap().registers_per_thread,
            40
        );
        assert_eq!(
            m.lookup("a::k_a", "sm_90").unwrap().registers_per_thread,
            42
        );
        assert_eq!(
            m.lookup("b::k_a", "sm_86").unwrap().registers_per_thread,
            30
        );
        let e = m.lookup("b::k_a", "sm_90").unwrap_err();
        assert!(e.kernel_found);
        assert_eq!(e.compiled_for, [SmTarget::new(80)]);
        // The artifact's stem qualifies when no source is known; unique names need none.
        assert_eq!(
            m.lookup("c::k_c", "sm_80").unwrap().registers_per_thread,
            20
        );
        assert_eq!(m.lookup("k_c", "sm_80").unwrap().registers_per_thread, 20);
        assert_eq!(
            m.lookup("a::tile_sum<16>", "sm_75")
                .unwrap()
                .registers_per_thread,
            16
        );
        let e = m.lookup("b::tile_sum<16>", "sm_75").unwrap_err();
        assert!(!e.kernel_found && e.choices.is_empty());
        assert_eq!(
            e.to_string(),
            "no kernel `b::tile_sum<16>` in the manifest (did you mean `a::tile_sum<16>`?); it \
             has 1 kernel of module `b`: b::k_a (sm_80)"
        );
        // Every (qualifier, kernel) pair, with the name that selects it.
        let names: Vec<(Option<&str>, &str, String, String)> = m
            .kernel_names()
            .into_iter()
            .map(|n| (n.qualifier, n.display, n.selector.clone(), n.qualified()))
            .collect();
        assert_eq!(
            names,
            [
                (Some("a"), "k_a", "a::k_a".into(), "a::k_a".into()),
                (
                    Some("a"),
                    "tile_sum<16>",
                    "tile_sum<16>".into(),
                    "a::tile_sum<16>".into()
                ),
                (Some("b"), "k_a", "b::k_a".into(), "b::k_a".into()),
                (Some("c"), "k_c", "k_c".into(), "c::k_c".into()),
            ]
        );
        for n in m.kernel_names() {
            let k = m.lookup(&n.selector, &n.archs[0].to_string()).unwrap();
            assert_eq!(k.name, n.symbol);
        }
        // The JSON keeps the artifact.
        let back = Manifest::from_json(&m.to_json()).unwrap();
        assert_eq!(
            back.lookup("c::k_c", "sm_80").unwrap().registers_per_thread,
            20
        );
    }

    #[test]
    fn large_manifests_list_every_module() {
        // 20,000 modules defining one kernel name, each for two architectures (a manifest is
        // input: the lists and errors are built with maps, one pass each; this took a
        // minute when they compared pairs, 0.3 s since). Two register counts: which module's
        // is launched matters.
        let mut m = Manifest::new("test");
        for i in 0..20_000 {
            let regs = 32 + i % 2;
            m.add_kernels(
                Some(&format!("m{i}.ptx")),
                [kernel("k", "sm_80", regs), kernel("k", "sm_90", regs)],
            );
        }
        let e = m.lookup("k", "sm_80").unwrap_err();
        assert_eq!(e.choices.len(), 20_000);
        // No module has a cubin for sm_75: one error, not one per module.
        assert_eq!(m.lookup("k", "sm_75").unwrap_err().choices.len(), 20_000);
        assert_eq!(
            (e.choices[0].as_str(), e.choices[19_999].as_str()),
            ("m0::k", "m19999::k")
        );
        assert_eq!(
            m.lookup("m19999::k", "sm_86").unwrap().registers_per_thread,
            33
        );
        let names = m.kernel_names();
        assert_eq!(names.len(), 20_000);
        assert!(
            names
                .iter()
                .all(|n| n.selector == n.qualified() && n.archs.len() == 2)
        );
        assert!(m.lookup("nothing", "sm_80").is_err());
    }

    #[test]
    fn one_module_from_two_builds_must_agree() {
        let mut m = Manifest::new("test");
        m.add_artifact_kernels("x/c.sm_80.cubin", None, [kernel("k_c", "sm_80", 20)]);
        m.add_artifact_kernels("y/c.sm_80.cubin", None, [kernel("k_c", "sm_80", 20)]);
        assert_eq!(
            m.lookup("c::k_c", "sm_86").unwrap().registers_per_thread,
            20
        );
        m.add_artifact_kernels("z/c.sm_80.cubin", None, [kernel("k_c", "sm_80", 24)]);
        let e = m.lookup("k_c", "sm_86").unwrap_err();
        assert_eq!(
            e.conflicting,
            ["x/c.sm_80.cubin", "y/c.sm_80.cubin", "z/c.sm_80.cubin"]
        );
        assert_eq!(
            e.to_string(),
            "kernel `k_c` has different resources for sm_80 in entries read from \
             x/c.sm_80.cubin, y/c.sm_80.cubin, z/c.sm_80.cubin: keep the artifacts of one build \
             only"
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

    #[cfg(feature = "source-hashes")]
    #[test]
    fn hashes_are_sha256() {
        assert_eq!(
            sha256_hex(b"abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        assert_eq!(
            sha256_hex(b"x"),
            "2d711642b726b04401627ca9fbac32f5c8530fb1903cc4db02258717921a4881"
        );
    }
}
