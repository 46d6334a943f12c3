//! One `include_bytes!` per file and compilation.
//!
//! Each expansion tells cargo which files it read (`expand::tracking`): an `include_bytes!`
//! of each puts the file in the crate's dep-info, so that an edit to it rebuilds the crate.
//! The compiler interns the bytes of every `include_bytes!` it expands, which for a crate's
//! resource manifest (candle's is 2.3 MB) costs about 9 M instructions each time: more than
//! a replayed expansion (PERFORMANCE.md, section 2). One per file and compilation is all the
//! dep-info needs, so in a compiler process an expansion includes only the files no earlier
//! expansion of the process included, and lists the others as omitted.
//!
//! With the expansion cache this stays sound: an entry keeps the files its expansion
//! included and those it omitted; replaying it marks the first as included, and it is
//! replayed only where every file it omitted has been included by an earlier expansion of
//! the same process (otherwise it is expanded again, and includes them). So every
//! compilation that reads a file includes it at least once, whichever expansions are
//! replayed and whichever attributes were removed since.
//!
//! Outside a compiler process that writes files (`--out-dir`: rust-analyzer's proc-macro
//! server runs many crates in one process; unit tests), every expansion includes every file.

use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// The files included by an expansion of this process so far.
static INCLUDED: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

thread_local! {
    /// What the expansion being made on this thread included and omitted (see [`begin`]).
    static CURRENT: std::cell::RefCell<Record> = const {
        std::cell::RefCell::new(Record {
            included: Vec::new(),
            omitted: Vec::new(),
        })
    };
}

/// The files one expansion included and omitted.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Record {
    pub(crate) included: Vec<PathBuf>,
    pub(crate) omitted: Vec<PathBuf>,
}

/// Whether files are included once per process: in a compiler process with an `--out-dir`.
fn once_per_process() -> bool {
    crate::cache::in_compiler()
}

/// Starts the record of an expansion.
pub(crate) fn begin() {
    CURRENT.with_borrow_mut(|current| *current = Record::default());
}

/// The record of the expansion made since [`begin`].
pub(crate) fn end() -> Record {
    CURRENT.with_borrow_mut(std::mem::take)
}

/// Whether the expansion being made includes `file`: yes unless an earlier expansion of this
/// process did (and files are included once per process). Recorded either way.
pub(crate) fn include(file: &Path) -> bool {
    CURRENT.with_borrow_mut(|current| {
        if current.included.iter().any(|f| f == file) {
            // Named twice by one expansion: included once, and not listed as omitted (its
            // entry would then wait for itself).
            return false;
        }
        let mut included = lock(&INCLUDED);
        let earlier = once_per_process() && included.iter().any(|f| f == file);
        if earlier {
            current.omitted.push(file.to_path_buf());
        } else {
            current.included.push(file.to_path_buf());
            if !included.iter().any(|f| f == file) {
                included.push(file.to_path_buf());
            }
        }
        !earlier
    })
}

/// Whether an expansion that omitted `record.omitted` may be replayed here: each of them
/// included by an earlier expansion of this process.
pub(crate) fn may_replay(record: &Record) -> bool {
    let included = lock(&INCLUDED);
    record
        .omitted
        .iter()
        .all(|file| included.iter().any(|f| f == file))
}

/// Marks the files a replayed expansion includes as included.
pub(crate) fn replayed(record: &Record) {
    let mut included = lock(&INCLUDED);
    for file in &record.included {
        if !included.iter().any(|f| f == file) {
            included.push(file.clone());
        }
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_named_twice_by_one_expansion_is_included_once_and_not_omitted() {
        begin();
        let file = Path::new("/crate/occupancy.toml");
        assert!(include(file));
        assert!(!include(file));
        let record = end();
        assert_eq!(record.included, [file.to_path_buf()]);
        assert!(record.omitted.is_empty());
        // Outside a compiler process every expansion includes every file.
        begin();
        assert!(include(file));
        assert_eq!(end().omitted, Vec::<PathBuf>::new());
    }
}
