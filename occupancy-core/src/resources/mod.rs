//! Kernel resource usage read from what NVIDIA's compiler really produced: registers per
//! thread, static shared memory, local memory, spills, barriers, launch bounds, cluster shape.
//!
//! Only ptxas knows these numbers (they change with the toolkit version and the target
//! architecture), so they are read from its output, with no CUDA toolkit installed:
//!
//! - [`cubin`]: a cubin (ELF, `EM_CUDA`), per entry kernel;
//! - [`fatbin`]: a fatbin container (every cubin and PTX entry, LZ4 or zstd compressed or not),
//!   or a host ELF with a `.nv_fatbin` section;
//! - [`host`]: what a build script made with nvcc: host objects and `ar` static libraries of
//!   them (`.nv_fatbin` and relocatable `__nv_relfatbin` sections);
//! - [`instantiation`]: a kernel instantiation as a C++ launch names it (`ops::gemm<float, 128>`)
//!   matched to the compiled kernels' symbols, internal-linkage hashes masked;
//! - [`ptxas`]: the text of `ptxas -v` / `nvcc -Xptxas -v` / an NVRTC program log;
//! - [`ptx`]: PTX performance directives (`.maxntid`, `.minnctapersm`, ...), the only place
//!   where the minimum blocks per SM of `__launch_bounds__` survives;
//! - [`manifest`]: the JSON resource manifest the build helper and `cargo occupancy inspect
//!   --write-manifest` write and the attribute macro reads.
//!
//! [`read`] takes any of the binary or text inputs and tells them apart by content.
//! Facts about the formats are from `shared/notes/cubin-format.md` (checked on cubins of
//! NVRTC 11.8, 12.9 and 13.5 and on an H200 driver); the section numbers (§) below refer to it.

use std::fmt;

use crate::occupancy::Kernel;

pub mod cubin;
pub mod fatbin;
pub mod host;
pub mod instantiation;
pub mod manifest;
pub mod manifest_text;
mod nvinfo;
pub mod ptx;
pub mod ptxas;

pub use nvinfo::eiattr;

/// A malformed or unsupported input. The message names what was wrong and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResourceError {
    message: String,
}

impl ResourceError {
    /// An error with this message.
    pub fn new(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
        }
    }

    /// The message, without a trailing period.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The same error with `context: ` in front (e.g. the file or fatbin entry it came from).
    pub fn context(self, context: impl fmt::Display) -> Self {
        Self::new(format!("{context}: {}", self.message))
    }
}

impl fmt::Display for ResourceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for ResourceError {}

/// Short for `Result<T, ResourceError>`.
pub type Result<T> = std::result::Result<T, ResourceError>;

/// An architecture-specific feature-set suffix of a real architecture (`sm_90a`, `sm_100f`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub enum Variant {
    /// The base target (`sm_90`): runs on this and later compute capabilities.
    #[default]
    Base,
    /// `a`: architecture-specific features, runs only on exactly this compute capability.
    Accelerated,
    /// `f`: family-specific features, runs on this compute capability's family.
    Family,
}

/// A real GPU architecture a cubin was compiled for, as ptxas names it (`sm_90a`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SmTarget {
    /// The SM number: compute capability major * 10 + minor (90 for `sm_90`).
    pub sm: u32,
    /// `a` / `f` suffix.
    pub variant: Variant,
}

impl SmTarget {
    /// The base target `sm_<sm>`.
    pub const fn new(sm: u32) -> Self {
        Self {
            sm,
            variant: Variant::Base,
        }
    }

    /// Parses `sm_90`, `sm_90a`, `sm_100f`, `compute_90` (as `sm_90`), `90`, `90a`, `9.0`.
    pub fn parse(text: &str) -> Result<Self> {
        let t = text.trim();
        let rest = t
            .strip_prefix("sm_")
            .or_else(|| t.strip_prefix("compute_"))
            .unwrap_or(t);
        let (digits, variant) = match rest.as_bytes().last() {
            Some(b'a') => (&rest[..rest.len() - 1], Variant::Accelerated),
            Some(b'f') => (&rest[..rest.len() - 1], Variant::Family),
            _ => (rest, Variant::Base),
        };
        let sm = if let Some((major, minor)) = digits.split_once('.') {
            match (major.parse::<u32>(), minor.parse::<u32>()) {
                (Ok(a), Ok(b)) if b < 10 && a < 100 => Some(a * 10 + b),
                _ => None,
            }
        } else if !digits.is_empty()
            && digits.len() <= 4
            && digits.bytes().all(|b| b.is_ascii_digit())
        {
            digits.parse::<u32>().ok()
        } else {
            None
        };
        match sm {
            Some(sm) if sm >= 10 => Ok(Self { sm, variant }),
            _ => Err(ResourceError::new(format!(
                "`{text}` is not a GPU architecture (expected e.g. `sm_90`, `sm_90a`, `sm_100f`)"
            ))),
        }
    }

    /// The compute capability as `(major, minor)`: `sm_90a` -> (9, 0).
    pub const fn compute_capability(self) -> (u32, u32) {
        (self.sm / 10, self.sm % 10)
    }

    /// The same SM number without the `a` / `f` suffix.
    pub const fn base(self) -> Self {
        Self::new(self.sm)
    }
}

impl fmt::Display for SmTarget {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let suffix = match self.variant {
            Variant::Base => "",
            Variant::Accelerated => "a",
            Variant::Family => "f",
        };
        write!(f, "sm_{}{suffix}", self.sm)
    }
}

impl std::str::FromStr for SmTarget {
    type Err = ResourceError;
    fn from_str(s: &str) -> Result<Self> {
        Self::parse(s)
    }
}

impl serde::Serialize for SmTarget {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> serde::Deserialize<'de> for SmTarget {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        let s = <std::borrow::Cow<'de, str>>::deserialize(d)?;
        Self::parse(&s).map_err(serde::de::Error::custom)
    }
}

/// A CUDA toolkit release (`12.9`): the ptxas that produced a cubin or a log.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Toolkit {
    /// Major version (12).
    pub major: u32,
    /// Minor version (9).
    pub minor: u32,
}

impl Toolkit {
    /// From the `major * 10 + minor` encoding of `EIATTR_CUDA_API_VERSION` and ABI v7
    /// `e_version` (129 -> 12.9).
    pub const fn from_encoded(value: u32) -> Self {
        Self {
            major: value / 10,
            minor: value % 10,
        }
    }

    /// Parses `12.9` (a third component, as in `12.9.86`, is ignored).
    pub fn parse(text: &str) -> Result<Self> {
        let mut parts = text.trim().split('.');
        let major = parts.next().and_then(|p| p.parse().ok());
        let minor = parts.next().and_then(|p| p.parse().ok());
        match (major, minor) {
            (Some(major), Some(minor)) => Ok(Self { major, minor }),
            _ => Err(ResourceError::new(format!(
                "`{text}` is not a CUDA toolkit version (expected e.g. `12.9`)"
            ))),
        }
    }
}

impl fmt::Display for Toolkit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}", self.major, self.minor)
    }
}

impl serde::Serialize for Toolkit {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> serde::Deserialize<'de> for Toolkit {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        let s = <std::borrow::Cow<'de, str>>::deserialize(d)?;
        Self::parse(&s).map_err(serde::de::Error::custom)
    }
}

/// Where a [`KernelResources`] was read from (recorded in the resource manifest as
/// `"origin": "cubin"` or `"ptxas_log"`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Origin {
    /// A cubin (ELF), on its own or inside a fatbin.
    Cubin,
    /// A `ptxas -v` log: no launch bounds, cluster shape or constant bank sizes.
    PtxasLog,
}

impl fmt::Display for Origin {
    /// What to call the artifact in a message: `cubin`, `ptxas -v log`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Origin::Cubin => "cubin",
            Origin::PtxasLog => "ptxas -v log",
        })
    }
}

/// The resources of one entry kernel compiled for one real architecture.
///
/// Byte counts are per block for shared memory and per thread for local memory, as the CUDA
/// driver reports them (`CU_FUNC_ATTRIBUTE_*`). `None` means "not recorded in the input", never
/// zero: each field says which inputs record it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct KernelResources {
    /// The symbol name, mangled for C++ kernels (`_Z8tile_sumILi16EEvPf...`), plain for
    /// `extern "C"` ones.
    pub name: String,
    /// The demangled C++ name (`void tile_sum<16>(float*, ...)`); `None` for a name that is
    /// not mangled.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub demangled: Option<String>,
    /// The real architecture the code was compiled for (`sm_90a`).
    pub arch: SmTarget,
    /// The toolkit whose ptxas compiled it, when the input records it (cubins do).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub toolkit: Option<Toolkit>,
    /// What it was read from.
    pub origin: Origin,
    /// Registers per thread (`EIATTR_REGCOUNT`; ptxas "Used N registers";
    /// `CU_FUNC_ATTRIBUTE_NUM_REGS`).
    pub registers_per_thread: u32,
    /// Static shared memory per block, bytes, as the driver counts it
    /// (`CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES`; ptxas "N bytes smem"). On sm_90 and later a
    /// cubin's `.nv.shared.<kernel>` also holds a 1 KiB reserved prefix, which is not counted
    /// here (§5.2, checked on an H200).
    pub static_smem_bytes: u32,
    /// Local memory per thread, bytes: the stack frame (`EIATTR_FRAME_SIZE`; ptxas "N bytes
    /// stack frame"; the driver's `CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES`).
    pub local_bytes: u32,
    /// Stack including callees, bytes (`EIATTR_MIN_STACK_SIZE`; ptxas "cumulative stack
    /// size"); `None` where not recorded (ptxas logs before CUDA 12 and logs that omit zero).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cumulative_stack_bytes: Option<u32>,
    /// Bytes stored to local memory by register spills, per thread (ptxas "N bytes spill
    /// stores"). From a cubin: the `SpillRefill` instructions that `EIATTR_ANNOTATIONS`
    /// points at (CUDA 12.9+, §5.4), 0 when the kernel has no stack frame; `None` when the
    /// cubin does not say (CUDA 11.x with a stack frame).
    pub spill_store_bytes: Option<u32>,
    /// Bytes loaded back from spills, per thread (ptxas "N bytes spill loads"); as above.
    pub spill_load_bytes: Option<u32>,
    /// Block barriers: the highest barrier id the kernel uses + 1, so 1 for a kernel that only
    /// calls `__syncthreads()` and 0 for one with no barrier at all (ptxas "used N barriers";
    /// ABI v7 `.text` `sh_flags` bits 20-24, ABI v8 `EIATTR_NUM_BARRIERS`, §5.6). `None` in a
    /// CUDA 11 ptxas log, which does not print it.
    pub barriers: Option<u32>,
    /// `__launch_bounds__` first argument / `.maxntid` as `[x, y, z]` (`EIATTR_MAX_THREADS`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_threads: Option<[u32; 3]>,
    /// `.reqntid` as `[x, y, z]` (`EIATTR_REQNTID`): the only block shape it launches with.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub required_threads: Option<[u32; 3]>,
    /// `__launch_bounds__` second argument / `.minnctapersm`: minimum resident blocks per SM.
    /// Not stored in a cubin (§5.5): only set when the PTX was read too
    /// ([`KernelResources::apply_ptx`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_blocks_per_sm: Option<u32>,
    /// The register cap ptxas compiled under (`EIATTR_MAXREG_COUNT`: `__maxnreg__`,
    /// `.maxnreg`, `-maxrregcount`, or derived from `__launch_bounds__`; 255 = no cap).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_registers: Option<u32>,
    /// Required cluster shape `[x, y, z]` (`__cluster_dims__`, `.reqnctapercluster`;
    /// `EIATTR_CTA_PER_CLUSTER`), sm_90+.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cluster_dims: Option<[u32; 3]>,
    /// Max blocks per cluster (`__launch_bounds__` third argument, `.maxclusterrank`;
    /// `EIATTR_MAX_CLUSTER_RANK`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_cluster_rank: Option<u32>,
    /// Size of constant bank 0 (driver constants + parameters), bytes (`.nv.constant0.<kernel>`;
    /// ptxas `cmem[0]`, which ptxas stops printing on sm_90+).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub const_bank0_bytes: Option<u32>,
    /// Kernel parameter bytes (`EIATTR_CBANK_PARAM_SIZE`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub param_bytes: Option<u32>,
}

impl KernelResources {
    /// The function's max threads per block from `__launch_bounds__` / `.maxntid`
    /// (x * y * z), as the driver reports it in `CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK`.
    /// `None`: only the device limit applies. (`.reqntid` alone does not lower the driver's
    /// value, §3 of the notes.)
    pub fn max_threads_per_block(&self) -> Option<u32> {
        self.max_threads
            .map(|[x, y, z]| x.saturating_mul(y).saturating_mul(z))
    }

    /// The names a user may look this kernel up by: the symbol, the demangled name, and the
    /// demangled name without its parameter list (`tile_sum<16>`).
    pub fn names(&self) -> Vec<&str> {
        let mut names = vec![self.name.as_str()];
        if let Some(d) = &self.demangled {
            names.push(d.as_str());
            if let Some(short) = short_name(d) {
                names.push(short);
            }
        }
        names
    }

    /// The name to show a person: for C++ the demangled name without return type and
    /// parameters (`tile_sum<16>`), else the symbol.
    pub fn display_name(&self) -> &str {
        match self.demangled.as_deref() {
            Some(d) => short_name(d).unwrap_or(d),
            None => &self.name,
        }
    }

    /// Takes what only the PTX knows (the minimum blocks per SM) from its `.entry` of the
    /// same name; fills launch bounds and cluster shape when the binary had none.
    pub fn apply_ptx(&mut self, entry: &ptx::PtxEntry) {
        if entry.min_blocks_per_sm.is_some() {
            self.min_blocks_per_sm = entry.min_blocks_per_sm;
        }
        if self.max_threads.is_none() {
            self.max_threads = entry.max_threads;
        }
        if self.required_threads.is_none() {
            self.required_threads = entry.required_threads;
        }
        if self.cluster_dims.is_none() {
            self.cluster_dims = entry.cluster_dims;
        }
        if self.max_cluster_rank.is_none() {
            self.max_cluster_rank = entry.max_cluster_rank;
        }
    }

    /// The engine's view of this kernel: registers per thread, static shared memory, barriers
    /// and the launch-bounds max threads per block. Opt-in and carveout are launch-site
    /// settings, left at their defaults.
    ///
    /// Barriers map one to one: the engine's `barriers` is "highest barrier id + 1", exactly
    /// what ptxas reports ("used 1 barriers" for `__syncthreads()` only, which the H200 ground
    /// truth calls `b1`); 0 (no barrier at all) makes the engine skip the barrier limit. When
    /// the input did not record barriers (a CUDA 11 ptxas log) this assumes 1, the engine's
    /// default; barriers only limit occupancy for 2 or more on every architecture in the table.
    pub fn to_kernel(&self) -> Kernel {
        let kernel = Kernel::new(self.registers_per_thread)
            .with_static_smem(self.static_smem_bytes)
            .with_barriers(self.barriers.unwrap_or(1));
        match self.max_threads_per_block() {
            Some(threads) => kernel.with_max_threads(threads),
            None => kernel,
        }
    }
}

impl From<&KernelResources> for Kernel {
    fn from(k: &KernelResources) -> Self {
        k.to_kernel()
    }
}

/// `void ns::f<16>(float*, int)` -> `ns::f<16>`: the demangled name without its return type
/// and parameter list, or `None` when it has no parameter list.
pub(crate) fn short_name(demangled: &str) -> Option<&str> {
    let open = demangled.rfind('(')?;
    // The parameter list is the last top-level "(...)"; template arguments may nest parens.
    let head = demangled[..open].trim_end();
    // Drop a leading return type: the last space outside <...>.
    let mut depth = 0i32;
    let mut cut = 0;
    for (i, c) in head.char_indices() {
        match c {
            '<' | '(' => depth += 1,
            '>' | ')' => depth -= 1,
            ' ' if depth == 0 => cut = i + 1,
            _ => {}
        }
    }
    let short = &head[cut..];
    (!short.is_empty()).then_some(short)
}

/// Demangles a C++ (Itanium ABI) symbol; `None` for a plain (`extern "C"`) name. nvcc's
/// `__nv_static_<n>_<tu>_` prefix of internal-linkage kernels in relocatable device code is
/// left out ([`instantiation::strip_nv_static`]).
pub fn demangle(name: &str) -> Option<String> {
    let (name, _) = instantiation::strip_nv_static(name);
    if !name.starts_with("_Z") {
        return None;
    }
    let symbol = cpp_demangle::Symbol::new(name).ok()?;
    symbol.demangle().ok()
}

/// What kind of input some bytes are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InputKind {
    /// An ELF file with `e_machine == EM_CUDA`.
    Cubin,
    /// Any other ELF file (a host binary or object that may carry `.nv_fatbin` or
    /// `__nv_relfatbin`).
    HostElf,
    /// An `ar` archive (a static library of host objects, `!<arch>\n`; `!<thin>\n` too,
    /// which [`read`] refuses).
    Archive,
    /// A fatbin container (magic `0xBA55ED50`).
    Fatbin,
    /// PTX text (has a `.target` / `.entry` directive).
    Ptx,
    /// A `ptxas -v` log or an NVRTC program log.
    PtxasLog,
}

/// Tells inputs apart by content, not by file name; `None` when it is none of them.
pub fn detect(data: &[u8]) -> Option<InputKind> {
    if data.starts_with(b"\x7fELF") {
        // e_machine at offset 18 (little endian).
        return Some(match data.get(18..20) {
            Some([lo, hi]) if u16::from_le_bytes([*lo, *hi]) == cubin::EM_CUDA => InputKind::Cubin,
            _ => InputKind::HostElf,
        });
    }
    if data.starts_with(&fatbin::FATBIN_MAGIC.to_le_bytes()) {
        return Some(InputKind::Fatbin);
    }
    if host::is_archive(data) {
        return Some(InputKind::Archive);
    }
    let text = std::str::from_utf8(data).ok()?;
    if text.contains("ptxas") && (text.contains("Used ") || text.contains("Compiling entry")) {
        return Some(InputKind::PtxasLog);
    }
    if text.contains(".entry") || text.contains(".target") {
        return Some(InputKind::Ptx);
    }
    None
}

/// Reads every kernel from a cubin, a fatbin (its cubins; its PTX entries supply
/// `.minnctapersm`), a host ELF with `.nv_fatbin` / `__nv_relfatbin` (an nvcc-built object,
/// shared library or executable), an `ar` archive of such objects, or a ptxas log. PTX alone
/// carries no register counts: use [`ptx::parse`] for it. From host objects and archives a
/// record that repeats an earlier one exactly is dropped ([`host::distinct`]); use
/// [`host::kernels`] for the member and section of each.
pub fn read(data: &[u8]) -> Result<Vec<KernelResources>> {
    match detect(data) {
        Some(InputKind::Cubin) => Ok(cubin::parse(data)?.kernels),
        Some(InputKind::Fatbin) => fatbin::kernels(&fatbin::parse(data)?),
        Some(InputKind::HostElf | InputKind::Archive) => Ok(host::distinct(
            host::kernels(data)?.into_iter().map(|k| k.kernel),
        )),
        Some(InputKind::PtxasLog) => {
            let text = std::str::from_utf8(data)
                .map_err(|_| ResourceError::new("ptxas log is not UTF-8"))?;
            Ok(ptxas::parse(text)?
                .into_iter()
                .map(|e| e.to_resources())
                .collect())
        }
        Some(InputKind::Ptx) => Err(ResourceError::new(
            "PTX records no register counts (only ptxas decides them): read the cubin, a \
             fatbin or a ptxas -v log instead",
        )),
        None => Err(ResourceError::new(
            "not a cubin, fatbin, host ELF, archive, PTX or ptxas log (no ELF, fatbin or ar \
             magic, no ptxas lines)",
        )),
    }
}

/// Little-endian readers with bounds checks: every read is an `Option`, so a short input can
/// never index out of bounds.
pub(crate) mod le {
    pub fn u16_at(data: &[u8], at: usize) -> Option<u16> {
        let b = data.get(at..at.checked_add(2)?)?;
        Some(u16::from_le_bytes([b[0], b[1]]))
    }
    pub fn u32_at(data: &[u8], at: usize) -> Option<u32> {
        let b = data.get(at..at.checked_add(4)?)?;
        Some(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }
    pub fn u64_at(data: &[u8], at: usize) -> Option<u64> {
        let b = data.get(at..at.checked_add(8)?)?;
        let mut a = [0u8; 8];
        a.copy_from_slice(b);
        Some(u64::from_le_bytes(a))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sm_target_parses_and_prints_suffixes() {
        for (text, shown) in [
            ("sm_90a", "sm_90a"),
            ("sm_100f", "sm_100f"),
            ("compute_80", "sm_80"),
            ("8.6", "sm_86"),
            ("120", "sm_120"),
        ] {
            assert_eq!(SmTarget::parse(text).unwrap().to_string(), shown);
        }
        assert_eq!(
            SmTarget::parse("sm_90a").unwrap().variant,
            Variant::Accelerated
        );
        for bad in ["", "sm_", "sm_x", "H100", "sm_9", "9.10"] {
            assert!(SmTarget::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn short_names_drop_return_type_and_parameters() {
        assert_eq!(
            short_name("void tile_sum<16>(float*, float const*)"),
            Some("tile_sum<16>")
        );
        assert_eq!(
            short_name("void ns::k<(int)3, float>(int)"),
            Some("ns::k<(int)3, float>")
        );
        assert_eq!(short_name("k_plain"), None);
    }

    #[test]
    fn demangles_only_mangled_names() {
        assert_eq!(
            demangle("_Z8tile_sumILi16EEvPfPKfS2_S2_dii").as_deref(),
            Some(
                "void tile_sum<16>(float*, float const*, float const*, float const*, double, int, int)"
            )
        );
        assert_eq!(demangle("k_plain"), None);
    }

    #[test]
    fn detect_tells_inputs_apart() {
        assert_eq!(detect(b"\x7fELF"), Some(InputKind::HostElf));
        assert_eq!(
            detect(&[0x50, 0xed, 0x55, 0xba, 1, 0]),
            Some(InputKind::Fatbin)
        );
        assert_eq!(
            detect(b"ptxas info    : Used 10 registers"),
            Some(InputKind::PtxasLog)
        );
        assert_eq!(
            detect(b".version 8.8\n.target sm_90\n"),
            Some(InputKind::Ptx)
        );
        assert_eq!(detect(b"hello"), None);
        assert!(
            read(b"hello")
                .unwrap_err()
                .message()
                .contains("not a cubin")
        );
    }
}
