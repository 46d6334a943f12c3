//! Reading an input file: a regular file only, with a size cap, in one place for the macro,
//! the build helper and the CLI.
//!
//! The file type is checked with `metadata` before the file is opened, so that a FIFO (whose
//! `open` blocks until a writer comes) or a device (`/dev/zero` reads forever) is an error
//! naming what it is, and a file over the cap is an error before a byte is read. The read
//! itself stops one byte past the cap (a file that grew after `metadata`), so memory stays
//! within about twice the cap whatever the file.
//!
//! ```
//! use occupancy_core::file::{self, MAX_TEXT_BYTES};
//!
//! let e = file::read(std::path::Path::new("/dev/null"), "policy file", MAX_TEXT_BYTES).unwrap_err();
//! assert_eq!(e.to_string(), "cannot read the policy file /dev/null: it is a character device, not a regular file");
//! ```

use std::fmt;
use std::fs::{File, Metadata};
use std::io::Read;
use std::path::{Path, PathBuf};

/// The cap on a compiled artifact or a tool's output: cubin, fatbin, host ELF, PTX,
/// ptxas log (256 MiB). The largest fatbins NVIDIA ships (one per library, every
/// architecture) are tens of MiB; a kernel's cubin is KiB to a few MiB.
pub const MAX_BINARY_BYTES: u64 = 256 << 20;

/// The cap on a text input: resource manifest, `occupancy.toml`, CUDA or Rust source
/// (16 MiB). A manifest of a thousand kernels on ten targets is about 3 MB; Rust and CUDA
/// sources over 1 MB are generated code.
pub const MAX_TEXT_BYTES: u64 = 16 << 20;

/// Why a file could not be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Reason {
    /// Not a regular file: what it is ("a directory", "a FIFO (named pipe)", ...).
    NotRegular(&'static str),
    /// Over the cap.
    TooLarge {
        /// The file's size, or the cap plus one when it grew while being read.
        bytes: u64,
        /// The cap.
        max_bytes: u64,
    },
    /// [`read_text`] of a file that is not UTF-8: the byte offset of the first bad byte.
    NotUtf8(usize),
    /// The operating system's error (no such file, permission denied, ...).
    Io(std::io::ErrorKind, String),
}

impl fmt::Display for Reason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Reason::NotRegular(what) => write!(f, "it is {what}, not a regular file"),
            Reason::TooLarge { bytes, max_bytes } => write!(
                f,
                "it is {bytes} bytes, over the cap of {max_bytes} bytes ({} MiB) for this kind \
                 of file",
                max_bytes >> 20
            ),
            Reason::NotUtf8(offset) => write!(f, "not UTF-8 (byte {offset})"),
            Reason::Io(_, message) => f.write_str(message),
        }
    }
}

/// A file that could not be read: its path, what it was read as, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileError {
    /// The path as given.
    pub path: PathBuf,
    /// What the file was read as ("cubin", "policy file").
    pub what: String,
    /// Why it could not be read.
    pub reason: Reason,
}

impl FileError {
    /// The file (or a directory on its path) does not exist.
    pub fn is_not_found(&self) -> bool {
        matches!(self.reason, Reason::Io(std::io::ErrorKind::NotFound, _))
    }
}

impl fmt::Display for FileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "cannot read the {} {}: {}",
            self.what,
            self.path.display(),
            self.reason
        )
    }
}

impl std::error::Error for FileError {}

/// What a file of this type is, in words; `None` for a regular file.
pub fn non_regular(metadata: &Metadata) -> Option<&'static str> {
    let file_type = metadata.file_type();
    if file_type.is_file() {
        return None;
    }
    if file_type.is_dir() {
        return Some("a directory");
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if file_type.is_fifo() {
            return Some("a FIFO (named pipe)");
        }
        if file_type.is_char_device() {
            return Some("a character device");
        }
        if file_type.is_block_device() {
            return Some("a block device");
        }
        if file_type.is_socket() {
            return Some("a socket");
        }
    }
    Some("not a regular file")
}

/// The bytes of the regular file at `path` (symbolic links followed), at most `max_bytes`
/// of them; `what` names the file in the error ("cubin", "policy file").
///
/// # Errors
///
/// A [`FileError`]: not found or not permitted ([`Reason::Io`]), a directory, FIFO, device
/// or socket ([`Reason::NotRegular`], decided before the file is opened), or over
/// `max_bytes` ([`Reason::TooLarge`]).
pub fn read(path: &Path, what: &str, max_bytes: u64) -> Result<Vec<u8>, FileError> {
    if !RECORD.lock().is_ok_and(|r| r.is_some()) {
        return read_unrecorded(path, what, max_bytes);
    }
    // The time is taken before the bytes: a write after it changes the time, so the
    // digest decides. A time less than two seconds old is not kept (0): a write within the
    // file system's clock tick would not change it.
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let modified_ns = std::fs::metadata(path).map_or(0, |m| modified_ns_of(&m));
    let recent = now.saturating_sub(modified_ns) < 2_000_000_000;
    let modified_ns = if recent { 0 } else { modified_ns };
    let bytes = match read_unrecorded(path, what, max_bytes) {
        Ok(bytes) => bytes,
        // What failed fails again while the path shows the same; a regular file that could
        // not be read (too large, not permitted) is recorded as `Other`, which no regular
        // file matches: never replayed.
        Err(e) => {
            let seen = match seen_of(path) {
                s @ (Seen::Absent | Seen::Dir | Seen::Other) => s,
                _ => Seen::Other,
            };
            note(path, &seen);
            return Err(e);
        }
    };
    let seen = Seen::Read {
        bytes: bytes.len() as u64,
        modified_ns,
        digest: digest_of_read(path, &bytes),
    };
    note(path, &seen);
    Ok(bytes)
}

/// [`digest`] of the bytes just read from `path`, kept with a copy of the bytes: the front
/// end reads a crate's files again for each attribute (to see that they did not change), and
/// comparing bytes costs a small part of digesting them in a proc macro built at opt-level
/// 0. At most [`DIGESTS_KEPT`] files and [`DIGESTS_KEPT_BYTES`] in all are kept.
fn digest_of_read(path: &Path, bytes: &[u8]) -> u64 {
    static KEPT: std::sync::Mutex<Vec<(PathBuf, Vec<u8>, u64)>> = std::sync::Mutex::new(Vec::new());
    let mut kept = KEPT.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((_, _, d)) = kept.iter().find(|(p, b, _)| p == path && b == bytes) {
        return *d;
    }
    let d = digest(bytes);
    kept.retain(|(p, _, _)| p != path);
    let total: usize = kept.iter().map(|(_, b, _)| b.len()).sum();
    if kept.len() < DIGESTS_KEPT && total + bytes.len() <= DIGESTS_KEPT_BYTES {
        kept.push((path.to_path_buf(), bytes.to_vec(), d));
    }
    d
}

/// The most files [`digest_of_read`] keeps.
const DIGESTS_KEPT: usize = 64;

/// The most bytes [`digest_of_read`] keeps, all files together.
const DIGESTS_KEPT_BYTES: usize = 32 << 20;

fn read_unrecorded(path: &Path, what: &str, max_bytes: u64) -> Result<Vec<u8>, FileError> {
    let fail = |reason| FileError {
        path: path.to_path_buf(),
        what: what.to_owned(),
        reason,
    };
    let io = |e: std::io::Error| fail(Reason::Io(e.kind(), e.to_string()));
    let metadata = std::fs::metadata(path).map_err(io)?;
    if let Some(kind) = non_regular(&metadata) {
        return Err(fail(Reason::NotRegular(kind)));
    }
    if metadata.len() > max_bytes {
        return Err(fail(Reason::TooLarge {
            bytes: metadata.len(),
            max_bytes,
        }));
    }
    let file = File::open(path).map_err(io)?;
    // The file may have been replaced between `metadata` and `open`: check what was opened.
    if let Some(kind) = non_regular(&file.metadata().map_err(io)?) {
        return Err(fail(Reason::NotRegular(kind)));
    }
    let mut bytes = Vec::with_capacity(metadata.len() as usize);
    file.take(max_bytes.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(io)?;
    if bytes.len() as u64 > max_bytes {
        return Err(fail(Reason::TooLarge {
            bytes: bytes.len() as u64,
            max_bytes,
        }));
    }
    Ok(bytes)
}

/// [`read`], as UTF-8 text.
///
/// # Errors
///
/// Those of [`read`], and [`Reason::NotUtf8`].
pub fn read_text(path: &Path, what: &str, max_bytes: u64) -> Result<String, FileError> {
    let bytes = read(path, what, max_bytes)?;
    String::from_utf8(bytes).map_err(|e| FileError {
        path: path.to_path_buf(),
        what: what.to_owned(),
        reason: Reason::NotUtf8(e.utf8_error().valid_up_to()),
    })
}

/// What one look at the file system showed for a path: what the attribute's expansion
/// cache (`occupancy-macros`) records while an expansion runs, and checks again before it
/// replays one. Recorded only between [`start_recording`] and [`recorded`]; otherwise
/// [`probe`], [`canonicalize`] and [`read`] only do their job.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Seen {
    /// Nothing at the path (`NotFound`).
    Absent,
    /// A directory.
    Dir,
    /// A regular file whose type was looked at, not its bytes.
    File,
    /// Something else: a device, a FIFO, a link to nothing, or an error other than
    /// `NotFound`.
    Other,
    /// A regular file read whole: its length, modification time (nanoseconds since the Unix
    /// epoch, 0 where the platform has none) and [`digest`] of its bytes.
    Read {
        /// Its length in bytes.
        bytes: u64,
        /// Its modification time, in nanoseconds since the Unix epoch.
        modified_ns: u128,
        /// [`digest`] of its bytes.
        digest: u64,
    },
    /// [`canonicalize`]d to this path.
    Resolves(PathBuf),
}

/// The paths looked at since [`start_recording`], each with what it showed first.
static RECORD: std::sync::Mutex<Option<Vec<(PathBuf, Seen)>>> = std::sync::Mutex::new(None);

/// Starts recording every [`probe`], [`canonicalize`] and successful [`read`] of this
/// process (no-op if recording already). The record is the process's: a proc macro's
/// expansions within one compilation share it, so each expansion's record holds what the
/// ones before it looked at too (more than it needs, never less).
pub fn start_recording() {
    let mut record = RECORD.lock().unwrap_or_else(|e| e.into_inner());
    record.get_or_insert_with(Vec::new);
}

/// What was recorded since [`start_recording`] (empty if not recording), in the order the
/// paths were first looked at.
pub fn recorded() -> Vec<(PathBuf, Seen)> {
    let record = RECORD.lock().unwrap_or_else(|e| e.into_inner());
    record.clone().unwrap_or_default()
}

fn note(path: &Path, seen: &Seen) {
    let mut record = RECORD.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(record) = record.as_mut()
        && !record.iter().any(|(p, s)| p == path && s == seen)
    {
        record.push((path.to_path_buf(), seen.clone()));
    }
}

/// A 64-bit digest of `bytes`, to tell whether a file changed: [`digest_seeded`] with seed 0.
pub fn digest(bytes: &[u8]) -> u64 {
    digest_seeded(bytes, 0)
}

/// A 64-bit digest of `bytes`: each 8-byte word (little-endian, the last one padded with
/// zeros) mixed into the state by a xor and a folded multiplication (the two halves of the
/// 128-bit product of the state and an odd constant, xored, as wyhash and foldhash mix),
/// then the state's bits spread by a final mix. Not a cryptographic hash: it tells
/// an edited file or a damaged cache entry from the one recorded, where nobody chooses the
/// bytes to collide. Written for speed where it runs, inside proc macros that cargo builds
/// at opt-level 0 (std's SipHash costs about 130 instructions per byte there, this about
/// 24). Different seeds give independent digests of the same bytes.
pub fn digest_seeded(bytes: &[u8], seed: u64) -> u64 {
    const MULTIPLIER: u64 = 0x9e37_79b9_7f4a_7c15;
    // Primitive indexing, shifts and always-inlined arithmetic, no iterator or call per
    // word: at opt-level 0 a `chunks_exact` loop with `from_le_bytes` cost about 50
    // instructions per byte (its precondition checks and calls), this about 24 (callgrind,
    // bench/macro-cost's cache entries).
    let n = bytes.len();
    let mut state = seed ^ (n as u64).wrapping_mul(MULTIPLIER);
    let mut i = 0;
    while i + 8 <= n {
        let word = bytes[i] as u64
            | (bytes[i + 1] as u64) << 8
            | (bytes[i + 2] as u64) << 16
            | (bytes[i + 3] as u64) << 24
            | (bytes[i + 4] as u64) << 32
            | (bytes[i + 5] as u64) << 40
            | (bytes[i + 6] as u64) << 48
            | (bytes[i + 7] as u64) << 56;
        state = folded_multiply(state ^ word, MULTIPLIER);
        i += 8;
    }
    // The last word, padded with zeros.
    let mut last = 0u64;
    let mut shift = 0;
    while i < n {
        last |= (bytes[i] as u64) << shift;
        shift += 8;
        i += 1;
    }
    state = folded_multiply(state ^ last, MULTIPLIER);
    // The final mix of SplitMix64.
    state = (state ^ (state >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    state = (state ^ (state >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    state ^ (state >> 31)
}

/// The low and high halves of the 128-bit product `a * b`, xored.
#[inline(always)]
fn folded_multiply(a: u64, b: u64) -> u64 {
    let product = (a as u128).wrapping_mul(b as u128);
    (product as u64) ^ ((product >> 64) as u64)
}

fn seen_of(path: &Path) -> Seen {
    match std::fs::metadata(path) {
        Ok(m) if m.is_file() => Seen::File,
        Ok(m) if m.is_dir() => Seen::Dir,
        Ok(_) => Seen::Other,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            // A link to nothing is there, as `symlink_metadata` sees it.
            match std::fs::symlink_metadata(path) {
                Ok(_) => Seen::Other,
                Err(_) => Seen::Absent,
            }
        }
        Err(_) => Seen::Other,
    }
}

/// What is at `path` (symbolic links followed): [`Seen::File`], [`Seen::Dir`],
/// [`Seen::Absent`] or [`Seen::Other`]; recorded while recording.
pub fn probe(path: &Path) -> Seen {
    let seen = seen_of(path);
    note(path, &seen);
    seen
}

/// `std::fs::canonicalize`, recorded while recording ([`Seen::Resolves`], or
/// [`Seen::Absent`] for an error).
///
/// # Errors
///
/// Those of `std::fs::canonicalize`.
pub fn canonicalize(path: &Path) -> std::io::Result<PathBuf> {
    let resolved = std::fs::canonicalize(path);
    let seen = match &resolved {
        Ok(p) => Seen::Resolves(p.clone()),
        Err(_) => Seen::Absent,
    };
    note(path, &seen);
    resolved
}

/// Whether `path` still shows what `seen` says: a file read is the same when its length
/// and modification time are, or else when its bytes have the same [`digest`] (an editor's
/// save or a `touch` that changes nothing keeps it). Not recorded.
pub fn still(path: &Path, seen: &Seen) -> bool {
    match seen {
        Seen::Read {
            bytes,
            modified_ns,
            digest: d,
        } => {
            let Ok(m) = std::fs::metadata(path) else {
                return false;
            };
            if m.len() == *bytes && modified_ns_of(&m) == *modified_ns {
                return true;
            }
            m.len() == *bytes
                && read_unrecorded(path, "file", *bytes).is_ok_and(|b| digest(&b) == *d)
        }
        Seen::Resolves(to) => std::fs::canonicalize(path).is_ok_and(|p| p == *to),
        Seen::Absent => std::fs::canonicalize(path).is_err() && seen_of(path) == Seen::Absent,
        other => seen_of(path) == *other,
    }
}

fn modified_ns_of(metadata: &Metadata) -> u128 {
    metadata
        .modified()
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_nanos())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("occupancy-file-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn a_digest_tells_every_one_byte_edit_and_every_length_apart() {
        let text: Vec<u8> = (0..100u8).map(|i| i.wrapping_mul(37)).collect();
        let mut seen = std::collections::HashSet::new();
        for len in 0..=text.len() {
            assert!(seen.insert(digest(&text[..len])), "length {len}");
        }
        // A trailing zero byte is not padding.
        assert_ne!(digest(b"ab"), digest(b"ab\0"));
        for at in 0..text.len() {
            for bit in 0..8 {
                let mut edited = text.clone();
                edited[at] ^= 1 << bit;
                assert!(seen.insert(digest(&edited)), "byte {at}, bit {bit}");
            }
        }
        // Two flipped bits in neighbouring words (a multiplication alone carries a flip of a
        // high bit into no other bit, so that the next word's flip could undo it).
        let mut two = text.clone();
        two[7] ^= 0x40;
        two[11] ^= 0x20;
        assert!(seen.insert(digest(&two)));
        assert_ne!(digest_seeded(&text, 1), digest_seeded(&text, 2));
        assert_eq!(digest(&text), digest_seeded(&text, 0));
    }

    /// The digest as its documentation defines it, written with iterators: the words read
    /// little-endian, the last padded with zeros.
    fn digest_as_documented(bytes: &[u8], seed: u64) -> u64 {
        const M: u64 = 0x9e37_79b9_7f4a_7c15;
        let fold = |a: u64| {
            let p = u128::from(a) * u128::from(M);
            (p as u64) ^ ((p >> 64) as u64)
        };
        let mut state = seed ^ (bytes.len() as u64).wrapping_mul(M);
        let mut words = bytes.chunks_exact(8);
        for w in &mut words {
            state = fold(state ^ u64::from_le_bytes(w.try_into().unwrap()));
        }
        let mut last = [0u8; 8];
        last[..words.remainder().len()].copy_from_slice(words.remainder());
        state = fold(state ^ u64::from_le_bytes(last));
        state = (state ^ (state >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        state = (state ^ (state >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        state ^ (state >> 31)
    }

    #[test]
    fn the_digest_is_the_documented_one_at_every_length() {
        let text: Vec<u8> = (0..=255u8).map(|i| i.wrapping_mul(101) ^ 0x5a).collect();
        for len in 0..=text.len() {
            for seed in [0, 1, 2, u64::MAX] {
                assert_eq!(
                    digest_seeded(&text[..len], seed),
                    digest_as_documented(&text[..len], seed),
                    "length {len}, seed {seed}"
                );
            }
        }
    }

    #[test]
    fn regular_files_up_to_the_cap() {
        let dir = scratch("cap");
        let path = dir.join("a.txt");
        std::fs::write(&path, "0123456789").unwrap();
        assert_eq!(read(&path, "x", 10).unwrap(), b"0123456789");
        assert_eq!(read_text(&path, "x", 10).unwrap(), "0123456789");
        let e = read(&path, "manifest", 9).unwrap_err();
        assert_eq!(
            e.reason,
            Reason::TooLarge {
                bytes: 10,
                max_bytes: 9
            }
        );
        std::fs::write(&path, b"ok\xff").unwrap();
        assert_eq!(
            read_text(&path, "policy file", 10).unwrap_err().to_string(),
            format!(
                "cannot read the policy file {}: not UTF-8 (byte 2)",
                path.display()
            )
        );
        // A file over the cap is refused from its size, before a byte is read (sparse here).
        let big = dir.join("big.json");
        std::fs::File::create(&big)
            .unwrap()
            .set_len(MAX_TEXT_BYTES + 1)
            .unwrap();
        assert_eq!(
            read_text(&big, "resource manifest", MAX_TEXT_BYTES)
                .unwrap_err()
                .to_string(),
            format!(
                "cannot read the resource manifest {}: it is 16777217 bytes, over the cap of \
                 16777216 bytes (16 MiB) for this kind of file",
                big.display()
            )
        );
        let missing = read(&dir.join("none"), "cubin", 10).unwrap_err();
        assert!(missing.is_not_found());
        let e = read(&dir, "cubin", 10).unwrap_err();
        assert_eq!(e.reason, Reason::NotRegular("a directory"));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// `/dev/zero` never ends and a FIFO blocks its reader: both are errors at once.
    #[cfg(unix)]
    #[test]
    fn devices_and_fifos_are_errors_before_a_read() {
        let e = read(Path::new("/dev/zero"), "cubin", MAX_BINARY_BYTES).unwrap_err();
        assert_eq!(
            e.to_string(),
            "cannot read the cubin /dev/zero: it is a character device, not a regular file"
        );
        let dir = scratch("fifo");
        let fifo = dir.join("fifo");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        assert!(made.unwrap().success());
        let e = read(&fifo, "fatbin", MAX_BINARY_BYTES).unwrap_err();
        assert_eq!(e.reason, Reason::NotRegular("a FIFO (named pipe)"));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
