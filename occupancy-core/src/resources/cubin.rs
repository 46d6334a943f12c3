//! Cubin (CUDA ELF) reader: the resources of every entry kernel (§0, §2-§5 of the notes).
//!
//! ELF parsing is the `object` crate's (with its `unaligned` feature: CUDA 13 cubins for
//! sm_90+ have section and program header tables that are not 8-byte aligned, §6).
//! A kernel is an `STT_FUNC` symbol with `st_other & STO_CUDA_ENTRY`; its attributes come from
//! the global `.nv.info` (keyed by symbol index) and from its own `.nv.info.<kernel>`,
//! `.nv.shared.<kernel>`, `.nv.constant0.<kernel>` and `.text.<kernel>` sections.

use std::collections::HashMap;

use object::LittleEndian as LE;
use object::elf::{FileHeader64, SHT_SYMTAB, STT_FUNC};
use object::read::elf::{FileHeader, SectionHeader, Sym};

use super::nvinfo::{self, Record, eiattr::*};
use super::{KernelResources, Origin, ResourceError, Result, SmTarget, Toolkit, Variant, le};

/// `e_machine` of CUDA ELF files.
pub const EM_CUDA: u16 = 190;
/// `EI_ABIVERSION` of the first CUDA ELF ABI (`ELFABIVERSION_CUDA_V1`, LLVM): SM in `e_flags`
/// bits 0-7. CUDA 11.x and 12.x for sm_90 and earlier.
pub const ELFABIVERSION_CUDA_V1: u8 = 7;
/// `EI_ABIVERSION` of the second CUDA ELF ABI (`ELFABIVERSION_CUDA_V2`, LLVM): SM in `e_flags`
/// bits 8-15. CUDA 12.8+ for sm_100+, every target from CUDA 13.0.
pub const ELFABIVERSION_CUDA_V2: u8 = 8;
/// ABI v1 `e_flags`: the SM number (`EF_CUDA_SM`).
pub const EF_CUDA_SM: u32 = 0xff;
/// ABI v1 `e_flags`: an `a` target (`EF_CUDA_ACCELERATORS`).
pub const EF_CUDA_ACCELERATORS: u32 = 0x800;
/// ABI v2 `e_flags`: the SM number (`EF_CUDA_SM_MASK`).
pub const EF_CUDA_SM_MASK: u32 = 0xff00;
/// ABI v2 `e_flags`: the SM number's shift (`EF_CUDA_SM_OFFSET`).
pub const EF_CUDA_SM_OFFSET: u32 = 8;
/// ABI v2 `e_flags`: an `a` target (`EF_CUDA_ACCELERATORS` in the newer LLVM; set by 12.9,
/// not by 13.x, which records it only in `.nv.compat`).
pub const EF_CUDA_ACCELERATORS_V2: u32 = 0x8;
/// `st_other` bit of an entry (`__global__`) function: cuobjdump prints `ENTRY`.
pub const STO_CUDA_ENTRY: u8 = 0x10;
/// `sh_type` of `.nv.info` sections (`SHT_CUDA_INFO`).
pub const SHT_CUDA_INFO: u32 = 0x7000_0000;
/// `sh_type` of `.nv.compat` (`SHT_CUDA_COMPAT_INFO`).
pub const SHT_CUDA_COMPAT_INFO: u32 = 0x7000_0086;
/// ABI v1 `.text.<kernel>` `sh_flags`: the barrier count, bits 20-24 (`SHF_BARRIERS`; a
/// 4-bit mask, as some parsers use, breaks at 16 barriers).
pub const SHF_BARRIERS_MASK: u64 = 0x01f0_0000;
/// Shift of [`SHF_BARRIERS_MASK`].
pub const SHF_BARRIERS_SHIFT: u32 = 20;
/// Bytes at the start of `.nv.shared.<kernel>` reserved on sm_90 and later in a linked
/// (`ET_EXEC`) cubin, which the driver's `CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES` does not count
/// (§5.2, H200). A relocatable (`ET_REL`) cubin, as nvcc `--device-c` makes, has no such
/// prefix: the device link adds it (checked on nvcc 13.5: 1024 B of `__shared__` data is a
/// 0x400-byte section before the link and a 0x800-byte one after).
pub const SM90_SHARED_RESERVED_BYTES: u64 = 1024;

/// SASS opcode (low 12 bits of a Volta+ 128-bit instruction) of `STL`, a spill store (§5.4).
pub const OPCODE_STL: u64 = 0x387;
/// SASS opcode of `LDL`, a refill load (§5.4).
pub const OPCODE_LDL: u64 = 0x983;

/// A parsed cubin.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cubin {
    /// The real architecture (`sm_90a`).
    pub arch: SmTarget,
    /// `EI_ABIVERSION`: 7 or 8.
    pub abi_version: u8,
    /// The toolkit of the ptxas that wrote it, when recorded.
    pub toolkit: Option<Toolkit>,
    /// Every entry kernel, in symbol-table order.
    pub kernels: Vec<KernelResources>,
}

/// Per-symbol values of the global `.nv.info`.
#[derive(Default, Clone, Copy)]
struct Global {
    registers: Option<u32>,
    frame: Option<u32>,
    min_stack: Option<u32>,
}

fn elf_err(what: &str) -> impl Fn(object::read::Error) -> ResourceError + '_ {
    move |e| ResourceError::new(format!("cubin: {what}: {e}"))
}

/// Parses a cubin. Every offset and size is checked; malformed input is an error.
pub fn parse(data: &[u8]) -> Result<Cubin> {
    if data.len() < 64 {
        return Err(ResourceError::new(format!(
            "cubin: truncated: {} bytes, an ELF64 header needs 64",
            data.len()
        )));
    }
    if !data.starts_with(b"\x7fELF") {
        return Err(ResourceError::new(
            "cubin: not an ELF file (no \\x7fELF magic)",
        ));
    }
    let header = FileHeader64::<LE>::parse(data).map_err(elf_err("ELF header"))?;
    let endian = LE;
    let machine = header.e_machine(endian).0;
    if machine != EM_CUDA {
        return Err(ResourceError::new(format!(
            "cubin: ELF machine is {machine}, not EM_CUDA ({EM_CUDA}): not a CUDA cubin (a host \
             binary? its kernels are in the .nv_fatbin section)"
        )));
    }
    let abi_version = header.e_ident().abi_version;
    let flags = header.e_flags(endian).0;
    let sections = header
        .sections(endian, data)
        .map_err(elf_err("section headers"))?;
    let symbols = sections
        .symbols(endian, data, SHT_SYMTAB)
        .map_err(elf_err("symbol table"))?;

    header
        .program_headers(endian, data)
        .map_err(elf_err("program headers"))?;

    // Section name -> index, once; every section's bytes must lie inside the file (a cut-off
    // file is refused even when the kernels' own sections survived).
    let mut by_name: HashMap<&[u8], usize> = HashMap::with_capacity(sections.len());
    for (index, section) in sections.enumerate() {
        let name = sections
            .section_name(endian, section)
            .map_err(elf_err("section name"))?;
        if let Some((offset, size)) = section.file_range(endian)
            && offset
                .checked_add(size)
                .is_none_or(|end| end > data.len() as u64)
        {
            return Err(ResourceError::new(format!(
                "cubin: section {} lies past the end of the file ({} bytes)",
                String::from_utf8_lossy(name),
                data.len()
            )));
        }
        by_name.entry(name).or_insert(index.0);
    }
    let section = |name: &[u8]| {
        by_name
            .get(name)
            .and_then(|&i| sections.section(object::SectionIndex(i)).ok())
    };
    let section_data = |name: &str, s: &object::elf::SectionHeader64<LE>| -> Result<&[u8]> {
        s.data(endian, data).map_err(|_| {
            ResourceError::new(format!(
                "cubin: section {name} lies past the end of the file ({} bytes)",
                data.len()
            ))
        })
    };

    // Architecture (§2.1).
    let is_v2 = abi_version >= ELFABIVERSION_CUDA_V2;
    let sm = if is_v2 {
        (flags & EF_CUDA_SM_MASK) >> EF_CUDA_SM_OFFSET
    } else {
        flags & EF_CUDA_SM
    };
    if sm == 0 {
        return Err(ResourceError::new(format!(
            "cubin: no SM number in e_flags {flags:#x} (ELF ABI version {abi_version})"
        )));
    }
    let mut variant = if (!is_v2 && flags & EF_CUDA_ACCELERATORS != 0)
        || (is_v2 && flags & EF_CUDA_ACCELERATORS_V2 != 0)
    {
        Variant::Accelerated
    } else {
        Variant::Base
    };
    if let Some(s) = section(b".nv.compat")
        && s.sh_type(endian).0 == SHT_CUDA_COMPAT_INFO
    {
        let records = nvinfo::records(section_data(".nv.compat", s)?, ".nv.compat")?;
        if records
            .iter()
            .any(|r| r.attribute == nvinfo::EICOMPAT_ATTR_CUDA_ACCELERATOR_TARGET && r.value == 1)
        {
            variant = Variant::Accelerated;
        }
    }
    let mut toolkit = None;
    if let Some(s) = section(b".note.nv.tkinfo") {
        let note = section_data(".note.nv.tkinfo", s)?;
        if let Some(v) = tkinfo_arch_variant(note, sm) {
            variant = v;
        }
        toolkit = tkinfo_release(note);
    }
    let arch = SmTarget { sm, variant };

    // Global .nv.info: registers, frame and stack per symbol index.
    let mut globals: HashMap<u32, Global> = HashMap::new();
    if let Some(s) = section(b".nv.info")
        && s.sh_type(endian).0 == SHT_CUDA_INFO
    {
        for r in nvinfo::records(section_data(".nv.info", s)?, ".nv.info")? {
            let (Some(sym), Some(value)) = (r.word(0), r.word(1)) else {
                continue;
            };
            let g = globals.entry(sym).or_default();
            match r.attribute {
                EIATTR_REGCOUNT => g.registers = Some(value),
                EIATTR_FRAME_SIZE => g.frame = Some(value),
                EIATTR_MIN_STACK_SIZE => g.min_stack = Some(value),
                _ => {}
            }
        }
    }

    let mut kernels = Vec::new();
    for (index, sym) in symbols.enumerate() {
        if sym.st_type() != STT_FUNC || sym.st_other().0 & STO_CUDA_ENTRY == 0 {
            continue;
        }
        let raw_name = symbols
            .symbol_name(endian, sym)
            .map_err(elf_err("symbol name"))?;
        let name = String::from_utf8_lossy(raw_name).into_owned();
        let g = globals.get(&(index.0 as u32)).copied().unwrap_or_default();
        let Some(registers) = g.registers else {
            return Err(ResourceError::new(format!(
                "cubin: kernel {name}: no EIATTR_REGCOUNT in .nv.info"
            )));
        };

        // Per-kernel attributes.
        let mut k = KernelResources {
            demangled: super::demangle(&name),
            name,
            arch,
            toolkit,
            origin: Origin::Cubin,
            registers_per_thread: registers,
            static_smem_bytes: 0,
            local_bytes: g.frame.unwrap_or(0),
            cumulative_stack_bytes: g.min_stack,
            spill_store_bytes: None,
            spill_load_bytes: None,
            barriers: Some(0),
            max_threads: None,
            required_threads: None,
            min_blocks_per_sm: None,
            max_registers: None,
            cluster_dims: None,
            max_cluster_rank: None,
            const_bank0_bytes: None,
            param_bytes: None,
        };
        let suffix = |prefix: &str| {
            let mut v = prefix.as_bytes().to_vec();
            v.extend_from_slice(raw_name);
            v
        };
        let info_name = suffix(".nv.info.");
        let mut annotations: Vec<u32> = Vec::new();
        let mut api_version = None;
        if let Some(s) = section(&info_name).filter(|s| s.sh_type(endian).0 == SHT_CUDA_INFO) {
            let label = String::from_utf8_lossy(&info_name).into_owned();
            for r in nvinfo::records(section_data(&label, s)?, &label)? {
                apply_kernel_record(&mut k, &r, &mut annotations, &mut api_version);
            }
        }
        if k.toolkit.is_none() {
            k.toolkit = api_version.map(Toolkit::from_encoded);
        }
        if k.toolkit.is_none() && !is_v2 && header.e_version(endian) > 1 {
            k.toolkit = Some(Toolkit::from_encoded(header.e_version(endian)));
        }

        // .text.<k>: barriers (ABI v1) and the spill instructions.
        let text_name = suffix(".text.");
        let text = section(&text_name);
        if !is_v2 && let Some(t) = text {
            k.barriers =
                Some(((t.sh_flags(endian).0 & SHF_BARRIERS_MASK) >> SHF_BARRIERS_SHIFT) as u32);
        }
        if !annotations.is_empty() {
            let text = match text {
                Some(t) => section_data(&String::from_utf8_lossy(&text_name), t)?,
                None => &[],
            };
            (k.spill_store_bytes, k.spill_load_bytes) = match spill_bytes(text, &annotations) {
                Some((s, l)) => (Some(s), Some(l)),
                None => (None, None),
            };
        } else if k.local_bytes == 0 || k.toolkit.is_some_and(|t| t >= ANNOTATIONS_SINCE) {
            // Without a stack frame nothing can spill; from 12.9 on every spill is annotated.
            (k.spill_store_bytes, k.spill_load_bytes) = (Some(0), Some(0));
        }

        // Static shared memory (§5.2) and constant bank 0 (§5.8).
        if let Some(s) = section(&suffix(".nv.shared.")) {
            let size = s.sh_size(endian);
            let linked = header.e_type(endian) != object::elf::ET_REL;
            let size = if linked && sm >= 90 && size >= SM90_SHARED_RESERVED_BYTES {
                size - SM90_SHARED_RESERVED_BYTES
            } else {
                size
            };
            k.static_smem_bytes = u32::try_from(size).map_err(|_| {
                ResourceError::new(format!(
                    "cubin: kernel {}: shared memory size {size} is out of range",
                    k.name
                ))
            })?;
        }
        if let Some(s) = section(&suffix(".nv.constant0.")) {
            k.const_bank0_bytes = u32::try_from(s.sh_size(endian)).ok();
        }
        kernels.push(k);
    }
    Ok(Cubin {
        arch,
        abi_version,
        toolkit: toolkit.or_else(|| kernels.iter().find_map(|k| k.toolkit)),
        kernels,
    })
}

/// The first toolkit seen to annotate every spill instruction (§5.4; 11.8 did not; 12.0-12.8
/// were not checked, so their cubins with a stack frame report spills as unknown).
const ANNOTATIONS_SINCE: Toolkit = Toolkit {
    major: 12,
    minor: 9,
};

fn apply_kernel_record(
    k: &mut KernelResources,
    r: &Record<'_>,
    annotations: &mut Vec<u32>,
    api_version: &mut Option<u32>,
) {
    match r.attribute {
        EIATTR_MAX_THREADS => k.max_threads = r.dims(),
        EIATTR_REQNTID => k.required_threads = r.dims(),
        EIATTR_MAXREG_COUNT => k.max_registers = Some(u32::from(r.value)),
        EIATTR_CBANK_PARAM_SIZE => k.param_bytes = Some(u32::from(r.value)),
        EIATTR_NUM_BARRIERS => k.barriers = Some(u32::from(r.value)),
        EIATTR_CTA_PER_CLUSTER => k.cluster_dims = r.dims(),
        EIATTR_MAX_CLUSTER_RANK => k.max_cluster_rank = r.word(0),
        EIATTR_CUDA_API_VERSION => *api_version = r.word(0),
        EIATTR_ANNOTATIONS => {
            let mut words = r.words();
            while let (Some(kind), Some(offset)) = (words.next(), words.next()) {
                if kind == nvinfo::ANNOTATION_SPILL_REFILL {
                    annotations.push(offset);
                }
            }
        }
        _ => {}
    }
}

/// Sums the widths of the STL / LDL instructions at the annotated offsets (§5.4): `(stores,
/// loads)` in bytes, or `None` when an offset is out of the section or holds another opcode
/// (an instruction encoding this reader does not know).
fn spill_bytes(text: &[u8], offsets: &[u32]) -> Option<(u32, u32)> {
    let (mut stores, mut loads) = (0u32, 0u32);
    for &offset in offsets {
        let at = usize::try_from(offset).ok()?;
        let lo = le::u64_at(text, at)?;
        let hi = le::u64_at(text, at.checked_add(8)?)?;
        // Width field: instruction bits 73-75.
        let bytes = match (hi >> 9) & 0x7 {
            0 | 1 => 1,
            2 | 3 => 2,
            4 => 4,
            5 => 8,
            6 => 16,
            _ => return None,
        };
        match lo & 0xfff {
            OPCODE_STL => stores = stores.checked_add(bytes)?,
            OPCODE_LDL => loads = loads.checked_add(bytes)?,
            _ => return None,
        }
    }
    Some((stores, loads))
}

/// `-arch sm_100f` on the ptxas command line recorded in `.note.nv.tkinfo` (§2.1): the only
/// place the `f` suffix survives. Ignored unless its SM number matches `e_flags`.
fn tkinfo_arch_variant(note: &[u8], sm: u32) -> Option<Variant> {
    let text = String::from_utf8_lossy(note);
    let rest = &text[text.find("-arch")? + 5..];
    let token: String = rest
        .trim_start_matches(['=', ' '])
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
        .collect();
    let target = SmTarget::parse(&token).ok()?;
    (target.sm == sm).then_some(target.variant)
}

/// `release 13.5` in `.note.nv.tkinfo`.
fn tkinfo_release(note: &[u8]) -> Option<Toolkit> {
    let text = String::from_utf8_lossy(note);
    let rest = &text[text.find("release ")? + 8..];
    let version: String = rest
        .chars()
        .take_while(|c| c.is_ascii_digit() || *c == '.')
        .collect();
    Toolkit::parse(&version).ok()
}
