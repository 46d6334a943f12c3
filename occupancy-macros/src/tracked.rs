//! One `include_bytes!` per file and one `option_env!` per variable and compilation.
//!
//! Each expansion tells cargo which files and variables it read (`expand::tracking`): an
//! `include_bytes!` of each file and an `option_env!` of each variable put them in the
//! crate's dep-info, so that an edit to one rebuilds the crate. The compiler interns the
//! bytes of every `include_bytes!` it expands, which for a crate's resource manifest
//! (candle's is 2.3 MB) costs about 9 M instructions each time: more than a replayed
//! expansion; an `option_env!` costs it about 0.2 M (PERFORMANCE.md, section 2). One per
//! file or variable and compilation is all the dep-info needs, so in a compiler process an
//! expansion includes only the facts (files, variables) no earlier expansion of the process
//! included, and lists the others as omitted.
//!
//! With the expansion cache this stays sound: an entry keeps the facts its expansion
//! included and those it omitted; replaying it marks the first as included, and it is
//! replayed only where every fact it omitted has been included by an earlier expansion of
//! the same process (otherwise it is expanded again, and includes them). So every
//! compilation that reads a file or a variable tells the compiler at least once, whichever
//! expansions are replayed and whichever attributes were removed since.
//!
//! Outside a compiler process that writes files (`--out-dir`: rust-analyzer's proc-macro
//! server runs many crates in one process; unit tests), every expansion includes every file.

use std::path::Path;
use std::sync::Mutex;

/// The facts included by an expansion of this process so far.
static INCLUDED: Mutex<Vec<String>> = Mutex::new(Vec::new());

thread_local! {
    /// What the expansion being made on this thread included and omitted (see [`begin`]).
    static CURRENT: std::cell::RefCell<Record> = const {
        std::cell::RefCell::new(Record {
            included: Vec::new(),
            omitted: Vec::new(),
        })
    };
}

/// The facts one expansion included and omitted, each as [`file`] or [`var`] writes it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Record {
    pub(crate) included: Vec<String>,
    pub(crate) omitted: Vec<String>,
}

/// The fact "this compilation read the file `path`", as a record holds it; `None` for a
/// path that is not UTF-8 or holds a tab or a line break (it is not included, and an
/// expansion that reads it is not stored: [`crate::cache`]).
pub(crate) fn file(path: &Path) -> Option<String> {
    let path = path.to_str()?;
    plain(path).then(|| format!("file\t{path}"))
}

/// The fact "this compilation read the variable `name`", as a record holds it.
pub(crate) fn var(name: &str) -> Option<String> {
    plain(name).then(|| format!("var\t{name}"))
}

/// Whether `text` can be part of a cache entry's line: no tab, no line break.
pub(crate) fn plain(text: &str) -> bool {
    // Byte searches: a `char` pattern's search is slow in a macro built at opt-level 0.
    ![b'\t', b'\n', b'\r']
        .iter()
        .any(|b| text.as_bytes().contains(b))
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

/// Whether the expansion being made includes `fact` (from [`file`] or [`var`]): yes unless
/// an earlier expansion of this process did (and facts are included once per process).
/// Recorded either way.
pub(crate) fn include(fact: String) -> bool {
    CURRENT.with_borrow_mut(|current| {
        if current.included.contains(&fact) {
            // Named twice by one expansion: included once, and not listed as omitted (its
            // entry would then wait for itself).
            return false;
        }
        let mut included = lock(&INCLUDED);
        let earlier = once_per_process() && included.contains(&fact);
        if !earlier && !included.contains(&fact) {
            included.push(fact.clone());
        }
        if earlier {
            current.omitted.push(fact);
        } else {
            current.included.push(fact);
        }
        !earlier
    })
}

/// Whether an expansion that omitted `record.omitted` may be replayed here: each of them
/// included by an earlier expansion of this process.
pub(crate) fn may_replay(record: &Record) -> bool {
    let included = lock(&INCLUDED);
    record.omitted.iter().all(|fact| included.contains(fact))
}

/// Marks the facts a replayed expansion includes as included.
pub(crate) fn replayed(record: &Record) {
    let mut included = lock(&INCLUDED);
    for fact in &record.included {
        if !included.contains(fact) {
            included.push(fact.clone());
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
        let policy = file(Path::new("/crate/occupancy.toml")).unwrap();
        assert_eq!(policy, "file\t/crate/occupancy.toml");
        assert!(include(policy.clone()));
        assert!(!include(policy.clone()));
        let record = end();
        assert_eq!(record.included, std::slice::from_ref(&policy));
        assert!(record.omitted.is_empty());
        // Outside a compiler process every expansion includes every file.
        begin();
        assert!(include(policy));
        assert_eq!(end().omitted, Vec::<String>::new());
    }

    #[test]
    fn a_file_and_a_variable_of_one_name_are_two_facts_and_odd_names_none() {
        let (f, v) = (file(Path::new("X")).unwrap(), var("X").unwrap());
        assert_ne!(f, v);
        begin();
        assert!(include(f.clone()) && include(v.clone()));
        assert_eq!(end().included, [f, v]);
        assert_eq!(file(Path::new("/a\tb")), None);
        assert_eq!(var("A\nB"), None);
    }
}
