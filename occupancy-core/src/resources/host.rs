//! What a crate's build script made with nvcc: host ELF objects (`nvcc -c`, the `cc` crate's
//! CUDA mode, `bindgen_cuda`) and `ar` static libraries of them, each object carrying its
//! kernels' cubins in a fatbin section.
//!
//! nvcc 13.5 (checked on its PyPI wheel, `nvidia-cuda-nvcc==13.5.37`) puts them in one of two
//! sections of each object:
//!
//! - `.nv_fatbin`: whole-program compilation (`nvcc -c`, the default), one executable cubin
//!   per `-gencode` real architecture holding every kernel of the file; and the object
//!   `nvcc --device-link` writes (`<lib>_dlink.o` in a `cc` crate build), holding the linked
//!   cubins of every relocatable object of the library;
//! - `__nv_relfatbin`: relocatable device code (`-rdc=true`, `--device-c`, which the `cc` crate
//!   passes when a library has more than one CUDA file), one relocatable cubin per
//!   architecture. Kernels with internal linkage get the prefix `__nv_static_<n>_<tu>_` there
//!   (see [`super::instantiation`]).
//!
//! A library built by the `cc` crate from several `.cu` files so holds every kernel twice: in
//! its file's object (relocatable) and in the device-link object (linked). ptxas decided the
//! registers once, in the relocatable cubin; the device link adds only the cumulative stack
//! (`EIATTR_MIN_STACK_SIZE`, which needs the whole call graph) and changes nothing else
//! (checked on every kernel of `occupancy-core/tests/fixtures/nvcc-13.5/libhost.a`), so
//! [`super::read`] merges the two records ([`distinct`]). [`kernels`] keeps every record
//! with where it was found.
//!
//! Archives are read with the `object` crate (GNU and BSD `ar`, `!<arch>\n`). A thin archive
//! (`!<thin>\n`) holds only the paths of its members and is an error here, as is a member
//! that is not an ELF object or whose fatbin is malformed; members with no fatbin section
//! (host-only objects) are skipped.

use object::read::archive::ArchiveFile;

use super::{KernelResources, ResourceError, Result, fatbin};

/// The first bytes of an `ar` archive.
pub const AR_MAGIC: &[u8; 8] = b"!<arch>\n";
/// The first bytes of a thin `ar` archive (members stored as paths, not data).
pub const AR_THIN_MAGIC: &[u8; 8] = b"!<thin>\n";

/// The name of the whole-program fatbin section of an nvcc-built host ELF.
pub const SECTION_FATBIN: &str = ".nv_fatbin";
/// The name of the relocatable-device-code fatbin section (`-rdc=true`, `--device-c`).
pub const SECTION_RELFATBIN: &str = "__nv_relfatbin";

/// The most members an archive may have before it is refused (a library of a thousand `.cu`
/// files has a thousand and one). Bounds the work on a crafted archive of empty members.
pub const MAX_ARCHIVE_MEMBERS: usize = 1 << 16;

/// Which fatbin section a kernel was read from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Section {
    /// `.nv_fatbin`: whole-program or device-linked code.
    Fatbin,
    /// `__nv_relfatbin`: relocatable device code, before the device link.
    RelocatableFatbin,
}

impl Section {
    /// The ELF section name.
    pub const fn name(self) -> &'static str {
        match self {
            Section::Fatbin => SECTION_FATBIN,
            Section::RelocatableFatbin => SECTION_RELFATBIN,
        }
    }
}

/// One kernel for one architecture, found in a host object or an archive member.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HostKernel {
    /// The archive member it came from (`a.o`, as the archive names it), `None` for an object
    /// read on its own.
    pub member: Option<String>,
    /// The section it was read from.
    pub section: Section,
    /// Its resources, with the mangled symbol and the demangled name.
    pub kernel: KernelResources,
}

/// Whether `data` is an `ar` archive (thin or not).
pub fn is_archive(data: &[u8]) -> bool {
    data.starts_with(AR_MAGIC) || data.starts_with(AR_THIN_MAGIC)
}

/// The fatbin entries of one host ELF (executable, shared library or object), from both
/// fatbin sections, each with the section it came from; empty when it has neither (host code
/// only). Errors: not a 64-bit little-endian ELF, section headers or a fatbin section out of
/// the file, a malformed fatbin.
pub fn fatbin_sections(data: &[u8]) -> Result<Vec<(Section, Vec<fatbin::Entry<'_>>)>> {
    use object::read::elf::{FileHeader, SectionHeader};
    let endian = object::LittleEndian;
    let header = object::elf::FileHeader64::<object::LittleEndian>::parse(data)
        .map_err(|e| ResourceError::new(format!("host ELF: {e}")))?;
    let sections = header
        .sections(endian, data)
        .map_err(|e| ResourceError::new(format!("host ELF: section headers: {e}")))?;
    let mut out = Vec::new();
    for which in [Section::Fatbin, Section::RelocatableFatbin] {
        let Some((_, section)) = sections.section_by_name(endian, which.name().as_bytes()) else {
            continue;
        };
        let bytes = section.data(endian, data).map_err(|_| {
            ResourceError::new(format!(
                "host ELF: {} lies past the end of the file",
                which.name()
            ))
        })?;
        let entries =
            fatbin::parse(bytes).map_err(|e| e.context(format!("host ELF {}", which.name())))?;
        out.push((which, entries));
    }
    Ok(out)
}

/// The error for a host ELF with no fatbin section.
pub(crate) fn no_device_code() -> ResourceError {
    ResourceError::new(format!(
        "host ELF: no {SECTION_FATBIN} or {SECTION_RELFATBIN} section (not built by nvcc, or no \
         device code)"
    ))
}

/// Every kernel of a host ELF or of every member of an `ar` archive, per architecture, in
/// file order, with the member and section each came from (duplicates kept: see the module
/// docs; [`super::read`] drops identical ones).
///
/// Errors: a truncated or malformed archive, a thin archive, a member that is not an ELF
/// object (named), a malformed fatbin or cubin (with the member and section), a single object
/// with no fatbin section, an archive none of whose members has one.
pub fn kernels(data: &[u8]) -> Result<Vec<HostKernel>> {
    if !is_archive(data) {
        let found = object_kernels(data, None)?;
        return if found.is_empty() {
            Err(no_device_code())
        } else {
            Ok(found)
        };
    }
    if data.starts_with(AR_THIN_MAGIC) {
        return Err(ResourceError::new(
            "thin archive: its members are paths to other files, not stored in it; read those \
             objects instead",
        ));
    }
    let archive =
        ArchiveFile::parse(data).map_err(|e| ResourceError::new(format!("archive: {e}")))?;
    let mut out = Vec::new();
    let mut with_device_code = 0usize;
    for (index, member) in archive.members().enumerate() {
        let member = member
            .map_err(|e| ResourceError::new(format!("archive: member {}: {e}", index + 1)))?;
        if index >= MAX_ARCHIVE_MEMBERS {
            return Err(ResourceError::new(format!(
                "archive: more than {MAX_ARCHIVE_MEMBERS} members"
            )));
        }
        let name = String::from_utf8_lossy(member.name()).into_owned();
        let bytes = member
            .data(data)
            .map_err(|e| ResourceError::new(format!("archive member {name}: {e}")))?;
        if !bytes.starts_with(b"\x7fELF") {
            return Err(ResourceError::new(format!(
                "archive member {name}: not an ELF object"
            )));
        }
        let found = object_kernels(bytes, Some(&name))?;
        with_device_code += usize::from(!found.is_empty());
        out.extend(found);
    }
    if with_device_code == 0 {
        return Err(ResourceError::new(format!(
            "archive: no member has a {SECTION_FATBIN} or {SECTION_RELFATBIN} section (not built \
             by nvcc, or no device code)"
        )));
    }
    Ok(out)
}

/// The kernels of one host ELF (an archive member when `member` is set); empty when it has
/// no fatbin section.
fn object_kernels(data: &[u8], member: Option<&str>) -> Result<Vec<HostKernel>> {
    let context = |e: ResourceError| match member {
        Some(m) => e.context(format!("archive member {m}")),
        None => e,
    };
    let mut out = Vec::new();
    for (section, entries) in fatbin_sections(data).map_err(context)? {
        let kernels = fatbin::kernels(&entries)
            .map_err(|e| context(e.context(format!("host ELF {}", section.name()))))?;
        out.extend(kernels.into_iter().map(|kernel| HostKernel {
            member: member.map(str::to_string),
            section,
            kernel,
        }));
    }
    Ok(out)
}

/// The kernels of [`kernels`] with the records of one kernel merged: the same symbol and
/// architecture, every field equal or recorded in only one of them (the relocatable cubin
/// lacks the cumulative stack, which only the device link computes), in first-seen order.
/// Two records of one symbol and architecture that disagree (two objects compiled with
/// different flags) are both kept.
pub fn distinct(found: impl IntoIterator<Item = KernelResources>) -> Vec<KernelResources> {
    use std::collections::HashMap;
    let mut out: Vec<KernelResources> = Vec::new();
    let mut seen: HashMap<(String, super::SmTarget), Vec<usize>> = HashMap::new();
    'next: for k in found {
        let slot = seen.entry((k.name.clone(), k.arch)).or_default();
        for &i in slot.iter() {
            if let Some(merged) = merge(&out[i], &k) {
                out[i] = merged;
                continue 'next;
            }
        }
        slot.push(out.len());
        out.push(k);
    }
    out
}

/// One record with the fields of both, when no field has two different values.
fn merge(a: &KernelResources, b: &KernelResources) -> Option<KernelResources> {
    if a == b {
        return Some(a.clone());
    }
    let (serde_json::Value::Object(mut a), serde_json::Value::Object(b)) =
        (serde_json::to_value(a).ok()?, serde_json::to_value(b).ok()?)
    else {
        return None;
    };
    for (key, value) in b {
        match a.get(&key) {
            None | Some(serde_json::Value::Null) => {
                a.insert(key, value);
            }
            Some(mine) if value.is_null() || *mine == value => {}
            Some(_) => return None,
        }
    }
    serde_json::from_value(serde_json::Value::Object(a)).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn malformed_archives_are_errors() {
        assert!(
            kernels(b"!<thin>\n")
                .unwrap_err()
                .message()
                .starts_with("thin archive")
        );
        // An empty archive: no member with device code.
        assert!(
            kernels(b"!<arch>\n")
                .unwrap_err()
                .message()
                .contains("no member has a .nv_fatbin")
        );
        // A member header cut short, and a member whose size runs past the end.
        let e = kernels(b"!<arch>\nshort.o/        0").unwrap_err();
        assert!(e.message().starts_with("archive"), "{e}");
        let mut big = b"!<arch>\n".to_vec();
        big.extend_from_slice(
            format!(
                "{:<16}{:<12}{:<6}{:<6}{:<8}{:<10}`\n",
                "a.o/", 0, 0, 0, 644, 999_999
            )
            .as_bytes(),
        );
        big.extend_from_slice(b"\x7fELF");
        let e = kernels(&big).unwrap_err();
        assert!(e.message().contains("archive"), "{e}");
        // A member that is not an object.
        let mut text = b"!<arch>\n".to_vec();
        text.extend_from_slice(
            format!(
                "{:<16}{:<12}{:<6}{:<6}{:<8}{:<10}`\n",
                "notes.txt/", 0, 0, 0, 644, 6
            )
            .as_bytes(),
        );
        text.extend_from_slice(b"hello\n");
        assert_eq!(
            kernels(&text).unwrap_err().message(),
            "archive member notes.txt: not an ELF object"
        );
    }
}
