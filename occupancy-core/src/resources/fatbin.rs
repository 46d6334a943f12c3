//! Fatbin containers (§7 of the notes; structures as in `vosen/ZLUDA`, `VivekPanyam/cudaparsers`
//! and `n-eiling/cuda-fatbin-decompression`, checked on nvFatbin 12.9 output).
//!
//! A fatbin is one or more 16-byte-headed containers (magic `0xBA55ED50`), each holding entries
//! with a 64-byte (or longer) header: a cubin (`kind` 2), PTX (`kind` 1) or LTO-IR (`kind` 8)
//! for one architecture, optionally LZ4- (flag `0x2000`) or zstd- (flag `0x8000`) compressed.
//! Host executables and objects built by nvcc carry them in a `.nv_fatbin` section.

use std::borrow::Cow;
use std::io::Read;

use super::{KernelResources, ResourceError, Result, SmTarget, cubin, le, ptx};

/// Magic number at the start of every fatbin container (`FATBIN_MAGIC` in NVIDIA's
/// `fatbinary_section.h` naming; the bytes `50 ED 55 BA`).
pub const FATBIN_MAGIC: u32 = 0xBA55_ED50;
/// Size of a container header, bytes.
pub const FATBIN_CONTAINER_HEADER_BYTES: usize = 16;
/// Smallest entry header, bytes (`header_size` may be larger: 64 to 112 observed).
pub const FATBIN_ENTRY_HEADER_MIN_BYTES: usize = 64;
/// Entry kind: PTX text.
pub const FATBIN_KIND_PTX: u16 = 1;
/// Entry kind: an ELF cubin.
pub const FATBIN_KIND_ELF: u16 = 2;
/// Entry kind: LTO-IR (NVVM bitcode for link-time optimisation).
pub const FATBIN_KIND_LTOIR: u16 = 8;
/// Entry flag: the payload is zlib-compressed (old scheme; not read here).
pub const FATBIN_FLAG_COMPRESSED_OLD: u64 = 0x1000;
/// Entry flag: the payload is one LZ4 raw block.
pub const FATBIN_FLAG_COMPRESSED_LZ4: u64 = 0x2000;
/// Entry flag: the payload is a zstd frame.
pub const FATBIN_FLAG_COMPRESSED_ZSTD: u64 = 0x8000;
/// The largest decompressed entry accepted, bytes (256 MiB): a header claiming more is
/// refused rather than trusted with an allocation. A zstd frame of 33 KB decompresses to
/// 1 GiB; the examples' cubins are under 100 KB.
pub const MAX_DECOMPRESSED_BYTES: u64 = 256 << 20;

/// The most bytes [`kernels`] decompresses from one fatbin's entries in all (1 GiB), checked
/// against the headers' claims before any is decompressed: eight entries of 1 GiB each took
/// 29 s.
pub const MAX_TOTAL_DECOMPRESSED_BYTES: u64 = 1 << 30;

/// What an entry holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EntryKind {
    /// PTX text.
    Ptx,
    /// A cubin.
    Cubin,
    /// LTO-IR.
    LtoIr,
    /// Another kind code.
    Other(u16),
}

/// How an entry's payload is compressed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Compression {
    /// Stored as is.
    None,
    /// An LZ4 raw block.
    Lz4,
    /// A zstd frame.
    Zstd,
    /// The old zlib scheme (flag `0x1000`), which this reader does not decode.
    Old,
}

/// One fatbin entry, its payload borrowed from the input (decompressed on demand).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry<'data> {
    /// What it holds.
    pub kind: EntryKind,
    /// The architecture: the real one for a cubin, the virtual one for PTX.
    pub arch: SmTarget,
    /// The entry header's flags (`0x100000`: an `a` target).
    pub flags: u64,
    /// How the payload is compressed.
    pub compression: Compression,
    /// The decompressed size the header claims (0 when not compressed).
    pub uncompressed_bytes: u64,
    /// The stored payload (compressed or not).
    pub payload: &'data [u8],
    /// Offset of the entry in the input, for messages.
    pub offset: usize,
}

/// Entry-header flag set for `a` targets (observed on sm_90a / sm_100a entries).
pub const FATBIN_FLAG_ARCH_SPECIFIC: u64 = 0x10_0000;

impl<'data> Entry<'data> {
    /// The payload, decompressed. Sizes are checked against the header before any allocation:
    /// an LZ4 block expands at most 255-fold, and nothing over [`MAX_DECOMPRESSED_BYTES`] is
    /// accepted.
    pub fn data(&self) -> Result<Cow<'data, [u8]>> {
        let here = || format!("fatbin entry at offset {:#x} ({})", self.offset, self.arch);
        match self.compression {
            Compression::None => Ok(Cow::Borrowed(self.payload)),
            Compression::Old => Err(ResourceError::new(format!(
                "{}: uses the old zlib compression (flag 0x1000), which is not supported",
                here()
            ))),
            Compression::Lz4 | Compression::Zstd
                if self.uncompressed_bytes > MAX_DECOMPRESSED_BYTES =>
            {
                Err(ResourceError::new(format!(
                    "{}: claims {} decompressed bytes, over the {} byte limit",
                    here(),
                    self.uncompressed_bytes,
                    MAX_DECOMPRESSED_BYTES
                )))
            }
            Compression::Lz4 => {
                let limit = (self.payload.len() as u64)
                    .saturating_mul(255)
                    .saturating_add(16);
                if self.uncompressed_bytes > limit {
                    return Err(ResourceError::new(format!(
                        "{}: claims {} decompressed bytes from {} LZ4 bytes, more than LZ4 can \
                         expand to",
                        here(),
                        self.uncompressed_bytes,
                        self.payload.len()
                    )));
                }
                let out =
                    lz4_flex::block::decompress(self.payload, self.uncompressed_bytes as usize)
                        .map_err(|e| ResourceError::new(format!("{}: LZ4: {e}", here())))?;
                self.check_len(out.len())?;
                Ok(Cow::Owned(out))
            }
            Compression::Zstd => {
                let decoder = ruzstd::decoding::StreamingDecoder::new(self.payload)
                    .map_err(|e| ResourceError::new(format!("{}: zstd: {e}", here())))?;
                // The output grows with what really decodes, never to the claimed size up front.
                let mut out = Vec::new();
                decoder
                    .take(self.uncompressed_bytes.saturating_add(1))
                    .read_to_end(&mut out)
                    .map_err(|e| ResourceError::new(format!("{}: zstd: {e}", here())))?;
                self.check_len(out.len())?;
                Ok(Cow::Owned(out))
            }
        }
    }

    fn check_len(&self, got: usize) -> Result<()> {
        if got as u64 != self.uncompressed_bytes {
            return Err(ResourceError::new(format!(
                "fatbin entry at offset {:#x} ({}): decompressed to {got} bytes, the header says {}",
                self.offset, self.arch, self.uncompressed_bytes
            )));
        }
        Ok(())
    }
}

/// Walks every container and entry. Every size is checked against the input.
pub fn parse(data: &[u8]) -> Result<Vec<Entry<'_>>> {
    let mut entries = Vec::new();
    let mut at = 0usize;
    while at < data.len() {
        // Containers are 8-byte aligned; padding between them is zero.
        if data[at..].iter().take(8).all(|&b| b == 0) && at > 0 {
            at += 8;
            continue;
        }
        let magic = le::u32_at(data, at);
        if magic != Some(FATBIN_MAGIC) {
            return Err(ResourceError::new(match magic {
                Some(m) => format!(
                    "fatbin: bad container magic {m:#010x} at offset {at:#x} (expected {FATBIN_MAGIC:#010x})"
                ),
                None => format!("fatbin: truncated container header at offset {at:#x}"),
            }));
        }
        let (Some(header_size), Some(files_size)) =
            (le::u16_at(data, at + 6), le::u64_at(data, at + 8))
        else {
            return Err(ResourceError::new(format!(
                "fatbin: truncated container header at offset {at:#x}"
            )));
        };
        let start = at
            .checked_add(usize::from(header_size))
            .filter(|_| usize::from(header_size) >= FATBIN_CONTAINER_HEADER_BYTES)
            .ok_or_else(|| {
                ResourceError::new(format!(
                    "fatbin: container header size {header_size} at offset {at:#x} is too small"
                ))
            })?;
        let end = usize::try_from(files_size)
            .ok()
            .and_then(|n| start.checked_add(n))
            .filter(|&end| end <= data.len())
            .ok_or_else(|| {
                ResourceError::new(format!(
                    "fatbin: container at offset {at:#x} claims {files_size} bytes of entries, only {} present",
                    data.len().saturating_sub(start)
                ))
            })?;
        let mut e = start;
        while e < end {
            let entry = parse_entry(data, e, end)?;
            let header = le::u32_at(data, e + 4).unwrap_or(0) as usize;
            let padded = le::u32_at(data, e + 8).unwrap_or(0) as usize;
            entries.push(entry);
            e = e
                .checked_add(header)
                .and_then(|x| x.checked_add(padded))
                .ok_or_else(|| ResourceError::new("fatbin: entry size overflows"))?;
        }
        at = end;
    }
    if entries.is_empty() {
        return Err(ResourceError::new("fatbin: no entries"));
    }
    Ok(entries)
}

fn parse_entry(data: &[u8], e: usize, end: usize) -> Result<Entry<'_>> {
    let trunc = || ResourceError::new(format!("fatbin: truncated entry header at offset {e:#x}"));
    if end - e < FATBIN_ENTRY_HEADER_MIN_BYTES {
        return Err(trunc());
    }
    let kind = le::u16_at(data, e).ok_or_else(trunc)?;
    let header_size = le::u32_at(data, e + 4).ok_or_else(trunc)? as usize;
    let padded = le::u32_at(data, e + 8).ok_or_else(trunc)? as usize;
    let compressed = le::u32_at(data, e + 16).ok_or_else(trunc)? as usize;
    let sm = le::u32_at(data, e + 28).ok_or_else(trunc)?;
    let flags = le::u64_at(data, e + 40).ok_or_else(trunc)?;
    let uncompressed = le::u64_at(data, e + 56).ok_or_else(trunc)?;
    if header_size < FATBIN_ENTRY_HEADER_MIN_BYTES {
        return Err(ResourceError::new(format!(
            "fatbin: entry header size {header_size} at offset {e:#x} is below {FATBIN_ENTRY_HEADER_MIN_BYTES}"
        )));
    }
    let payload_start = e.checked_add(header_size).ok_or_else(trunc)?;
    let stored = if compressed != 0 { compressed } else { padded };
    let payload_end = payload_start.checked_add(stored).ok_or_else(trunc)?;
    let entry_end = payload_start.checked_add(padded).ok_or_else(trunc)?;
    if payload_end > end || entry_end > end {
        return Err(ResourceError::new(format!(
            "fatbin: entry at offset {e:#x} claims {} payload bytes, only {} present",
            stored.max(padded),
            end.saturating_sub(payload_start)
        )));
    }
    let compression = if flags & FATBIN_FLAG_COMPRESSED_ZSTD != 0 {
        Compression::Zstd
    } else if flags & FATBIN_FLAG_COMPRESSED_LZ4 != 0 {
        Compression::Lz4
    } else if flags & FATBIN_FLAG_COMPRESSED_OLD != 0 {
        Compression::Old
    } else {
        Compression::None
    };
    let kind = match kind {
        FATBIN_KIND_PTX => EntryKind::Ptx,
        FATBIN_KIND_ELF => EntryKind::Cubin,
        FATBIN_KIND_LTOIR => EntryKind::LtoIr,
        other => EntryKind::Other(other),
    };
    let mut arch = SmTarget::new(sm);
    if flags & FATBIN_FLAG_ARCH_SPECIFIC != 0 {
        arch.variant = super::Variant::Accelerated;
    }
    Ok(Entry {
        kind,
        arch,
        flags,
        compression,
        uncompressed_bytes: if compression == Compression::None {
            0
        } else {
            uncompressed
        },
        payload: &data[payload_start..payload_end],
        offset: e,
    })
}

/// The fatbin entries of a host ELF (an nvcc-built executable, shared library or object):
/// its `.nv_fatbin` section, then its `__nv_relfatbin` section (relocatable device code), as
/// [`super::host::fatbin_sections`] reads them. An error when it has neither.
pub fn parse_host_elf(data: &[u8]) -> Result<Vec<Entry<'_>>> {
    let sections = super::host::fatbin_sections(data)?;
    if sections.is_empty() {
        return Err(super::host::no_device_code());
    }
    Ok(sections.into_iter().flat_map(|(_, e)| e).collect())
}

/// Every kernel of every cubin entry. `.minnctapersm` is taken from a PTX entry of the same
/// fatbin when there is one (the PTX is the same source compiled for a virtual architecture).
///
/// # Errors
///
/// The entries read (PTX and cubins) claim more than [`MAX_TOTAL_DECOMPRESSED_BYTES`] in
/// all, or one does not decompress or parse.
pub fn kernels(entries: &[Entry<'_>]) -> Result<Vec<KernelResources>> {
    let read = entries
        .iter()
        .filter(|e| matches!(e.kind, EntryKind::Ptx | EntryKind::Cubin));
    let total = read.fold(0u64, |sum, e| {
        sum.saturating_add(match e.compression {
            Compression::None | Compression::Old => e.payload.len() as u64,
            Compression::Lz4 | Compression::Zstd => e.uncompressed_bytes,
        })
    });
    if total > MAX_TOTAL_DECOMPRESSED_BYTES {
        return Err(ResourceError::new(format!(
            "the fatbin's PTX and cubin entries claim {total} bytes in all, over the \
             {MAX_TOTAL_DECOMPRESSED_BYTES} byte limit"
        )));
    }
    let mut ptx_modules = Vec::new();
    for e in entries.iter().filter(|e| e.kind == EntryKind::Ptx) {
        let data = e.data()?;
        let text = String::from_utf8_lossy(&data);
        let text = text.trim_end_matches('\0');
        ptx_modules.push(
            ptx::parse(text).map_err(|err| {
                err.context(format!("fatbin PTX entry at offset {:#x}", e.offset))
            })?,
        );
    }
    let mut out = Vec::new();
    for e in entries.iter().filter(|e| e.kind == EntryKind::Cubin) {
        let data = e.data()?;
        let cubin = cubin::parse(&data).map_err(|err| {
            err.context(format!(
                "fatbin entry at offset {:#x} ({})",
                e.offset, e.arch
            ))
        })?;
        for mut k in cubin.kernels {
            if let Some(p) = ptx_modules.iter().find_map(|m| m.entry(&k.name)) {
                k.apply_ptx(p);
            }
            out.push(k);
        }
    }
    Ok(out)
}
