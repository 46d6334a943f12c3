//! `.nv.info` / `.nv.info.<kernel>` / `.nv.compat` attribute records (§4 of the notes).
//!
//! A section is a packed sequence of 4-byte-aligned little-endian records: byte 0 the format
//! (`EIFMT_*`), byte 1 the attribute (`EIATTR_*`), then a value whose size the format gives.
//! Unknown attributes are skipped by their format, so new toolkits do not break the reader.

use super::{ResourceError, Result, le};

/// Record format: no value (4-byte record).
pub const EIFMT_NVAL: u8 = 0x01;
/// Record format: one byte value in byte 2 (4-byte record).
pub const EIFMT_BVAL: u8 = 0x02;
/// Record format: one u16 value in bytes 2-3 (4-byte record).
pub const EIFMT_HVAL: u8 = 0x03;
/// Record format: u16 payload length in bytes 2-3, then the payload (u32 words).
pub const EIFMT_SVAL: u8 = 0x04;

/// `EIATTR_*` attribute codes, named as cuobjdump prints them (§4.1; names from
/// `redplait/denvdis` `test/eiattrs.inc`, cross-checked with cuobjdump 13.5).
pub mod eiattr {
    /// `.maxntid` / `__launch_bounds__` first argument: SVAL `[x, y, z]` (per kernel).
    pub const EIATTR_MAX_THREADS: u8 = 0x05;
    /// `.reqntid`: SVAL `[x, y, z]` (per kernel).
    pub const EIATTR_REQNTID: u8 = 0x10;
    /// Stack frame bytes: SVAL `[symbol index, bytes]` (global `.nv.info`).
    pub const EIATTR_FRAME_SIZE: u8 = 0x11;
    /// Cumulative stack bytes: SVAL `[symbol index, bytes]` (global `.nv.info`).
    pub const EIATTR_MIN_STACK_SIZE: u8 = 0x12;
    /// Kernel parameter bytes: HVAL (per kernel).
    pub const EIATTR_CBANK_PARAM_SIZE: u8 = 0x19;
    /// Register cap ptxas compiled under: HVAL (per kernel).
    pub const EIATTR_MAXREG_COUNT: u8 = 0x1b;
    /// Registers per thread: SVAL `[symbol index, registers]` (global `.nv.info`).
    pub const EIATTR_REGCOUNT: u8 = 0x2f;
    /// Toolkit as `major * 10 + minor`: SVAL `[value]` (per kernel).
    pub const EIATTR_CUDA_API_VERSION: u8 = 0x37;
    /// Required cluster shape: SVAL `[x, y, z]` (per kernel).
    pub const EIATTR_CTA_PER_CLUSTER: u8 = 0x3d;
    /// The kernel has an explicit cluster shape: NVAL (per kernel).
    pub const EIATTR_EXPLICIT_CLUSTER: u8 = 0x3e;
    /// Max blocks per cluster: SVAL `[n]` (per kernel).
    pub const EIATTR_MAX_CLUSTER_RANK: u8 = 0x3f;
    /// Named-barrier count under ELF ABI v8: BVAL (per kernel; absent when 0).
    pub const EIATTR_NUM_BARRIERS: u8 = 0x4c;
    /// Instruction annotations: SVAL pairs `[kind, .text offset]`; kind 1 = SpillRefill.
    pub const EIATTR_ANNOTATIONS: u8 = 0x55;
}

/// `.nv.compat` attribute: the cubin targets an `a` architecture (BVAL 1), §2.1.
pub const EICOMPAT_ATTR_CUDA_ACCELERATOR_TARGET: u8 = 0x09;

/// `EIATTR_ANNOTATIONS` kind of a spill store or refill load instruction.
pub const ANNOTATION_SPILL_REFILL: u32 = 1;

/// One attribute record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Record<'data> {
    /// `EIFMT_*`.
    pub format: u8,
    /// `EIATTR_*` (or `EICOMPAT_ATTR_*` in `.nv.compat`).
    pub attribute: u8,
    /// The BVAL / HVAL value (0 for NVAL and SVAL).
    pub value: u16,
    /// The SVAL payload (empty otherwise).
    pub payload: &'data [u8],
}

impl Record<'_> {
    /// The `i`-th u32 word of an SVAL payload.
    pub fn word(&self, i: usize) -> Option<u32> {
        le::u32_at(self.payload, i.checked_mul(4)?)
    }

    /// The payload as u32 words (whole words only).
    pub fn words(&self) -> impl Iterator<Item = u32> + '_ {
        self.payload
            .chunks_exact(4)
            .map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]))
    }

    /// `[x, y, z]` from a 12-byte SVAL.
    pub fn dims(&self) -> Option<[u32; 3]> {
        Some([self.word(0)?, self.word(1)?, self.word(2)?])
    }
}

/// Parses every record of an attribute section. `section` names it in errors.
pub fn records<'data>(data: &'data [u8], section: &str) -> Result<Vec<Record<'data>>> {
    // Each record takes at least 4 bytes, which caps the vector by the input length.
    let mut out = Vec::with_capacity(data.len() / 4);
    let mut at = 0usize;
    while at < data.len() {
        let start = at;
        let bad = |what: &str| {
            ResourceError::new(format!(
                "{section}: malformed attribute record at offset {start:#x}: {what}"
            ))
        };
        let (Some(&format), Some(&attribute), Some(value)) =
            (data.get(at), data.get(at + 1), le::u16_at(data, at + 2))
        else {
            return Err(bad("truncated record header"));
        };
        let mut record = Record {
            format,
            attribute,
            value: 0,
            payload: &[],
        };
        at += 4;
        match format {
            EIFMT_NVAL => {}
            EIFMT_BVAL => record.value = value & 0xff,
            EIFMT_HVAL => record.value = value,
            EIFMT_SVAL => {
                let len = usize::from(value);
                let Some(payload) = data.get(at..at + len) else {
                    return Err(bad(&format!(
                        "attribute {attribute:#04x} claims {len} payload bytes, {} left",
                        data.len().saturating_sub(at)
                    )));
                };
                record.payload = payload;
                at += len;
            }
            other => return Err(bad(&format!("unknown format byte {other:#04x}"))),
        }
        out.push(record);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_each_format() {
        let data = [
            0x04, 0x2f, 0x08, 0x00, 7, 0, 0, 0, 40, 0, 0, 0, // SVAL REGCOUNT [7, 40]
            0x03, 0x1b, 0xff, 0x00, // HVAL MAXREG 255
            0x02, 0x4c, 0x10, 0x00, // BVAL NUM_BARRIERS 16
            0x01, 0x3e, 0x00, 0x00, // NVAL EXPLICIT_CLUSTER
        ];
        let r = records(&data, ".nv.info").unwrap();
        assert_eq!(r.len(), 4);
        assert_eq!(
            (r[0].attribute, r[0].word(0), r[0].word(1)),
            (0x2f, Some(7), Some(40))
        );
        assert_eq!((r[1].attribute, r[1].value), (0x1b, 255));
        assert_eq!((r[2].attribute, r[2].value), (0x4c, 16));
        assert_eq!((r[3].format, r[3].attribute), (EIFMT_NVAL, 0x3e));
    }

    #[test]
    fn rejects_truncation_and_unknown_formats() {
        let e = records(&[0x04, 0x2f, 0x40, 0x00, 1, 2], ".nv.info").unwrap_err();
        assert!(
            e.message().contains("claims 64 payload bytes, 2 left"),
            "{e}"
        );
        let e = records(&[0x04, 0x2f], ".nv.info").unwrap_err();
        assert!(e.message().contains("truncated record header"), "{e}");
        let e = records(&[0x09, 0x2f, 0, 0], ".nv.info.k").unwrap_err();
        assert!(e.message().contains("unknown format byte 0x09"), "{e}");
    }
}
