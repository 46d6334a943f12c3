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

/// The cache keys of the expansions this process has made or replayed (see [`first`]).
static EXPANDED: Mutex<Vec<u128>> = Mutex::new(Vec::new());

thread_local! {
    /// What the expansion being made on this thread included and omitted (see [`begin`]).
    static CURRENT: std::cell::RefCell<Record> = const {
        std::cell::RefCell::new(Record {
            included: Vec::new(),
            omitted: Vec::new(),
        })
    };
    /// The cache key of the expansion being made, when it may share confirmations.
    static SHARING: std::cell::Cell<Option<u128>> = const { std::cell::Cell::new(None) };
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

/// Starts the record of an expansion; `sharing`: its cache key, when it may share
/// confirmations with other expansions of this process ([`share`]).
pub(crate) fn begin(sharing: Option<u128>) {
    CURRENT.with_borrow_mut(|current| *current = Record::default());
    SHARING.set(sharing.filter(|_| once_per_process()));
}

/// Whether this process has not yet made or replayed an expansion with the cache key `key`
/// (recorded now). A second one is the same attribute on the same tokens at the same place
/// of the same file: a file compiled as two modules (`#[path]` twice, `include!`), whose
/// names may mean other things in each; it is neither replayed nor shares a confirmation.
pub(crate) fn first(key: u128) -> bool {
    let mut expanded = lock(&EXPANDED);
    if expanded.contains(&key) {
        return false;
    }
    expanded.push(key);
    true
}

/// Where a confirmation is made, for the expansion being made ([`share`]).
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Shared {
    /// Here: the expansion makes it, and defines the marker constant (`__OCCUPANCY_...`)
    /// beside the function, which it and the expansions that rely on it name.
    Here(String),
    /// In another expansion of this process, which defined this marker constant: the
    /// expansion names it (`self::MARKER`), so that the compiler checks that the two
    /// functions are in one module, and makes no confirmation of its own.
    Elsewhere(String),
}

/// Where the confirmation `expr == value` (`kind`: `confirm` or `stated`) of a wrapper in
/// `scope` (`Spec::shared_scope`) is made: in an earlier expansion of this process that made
/// it in the same scope, else here; `None` (made here, shared with none) where the
/// expansion may not share ([`begin`]) or a part holds a tab or a line break.
///
/// Confirming an expression once per module rather than once per wrapper is the most the
/// compiler's work on a crate of many wrappers can be cut (docs/PERFORMANCE.md, section 2):
/// each confirmation is a constant body to type-check, evaluate and borrow-check. What the
/// front end cannot know, whether two wrappers are in one module, the compiler checks: a
/// wrapper that relies on another's confirmation names the marker constant that one
/// defined, as `self::` names only what its own module holds (or imports).
pub(crate) fn share(scope: &str, expr: &str, value: i128, kind: &str) -> Option<Shared> {
    let seed = SHARING.get()?;
    if ![scope, expr].into_iter().all(plain) {
        return None;
    }
    let fact = format!("share\t{scope}\t{expr}\t{value}\t{kind}\t");
    let earlier = lock(&INCLUDED)
        .iter()
        .find_map(|f| f.strip_prefix(&fact).map(str::to_owned));
    if let Some(marker) = earlier {
        CURRENT.with_borrow_mut(|current| current.omitted.push(format!("{fact}{marker}")));
        return Some(Shared::Elsewhere(marker));
    }
    // Unique to this wrapper (its cache key) and this confirmation: two wrappers that both
    // make it in one module never define one name twice.
    let mut text = fact.clone().into_bytes();
    text.extend_from_slice(&seed.to_le_bytes());
    let marker = format!(
        "__OCCUPANCY_CONFIRMED_{:016X}{:016X}",
        occupancy_core::file::digest_seeded(&text, 1),
        occupancy_core::file::digest_seeded(&text, 2)
    );
    include(format!("{fact}{marker}"));
    Some(Shared::Here(marker))
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
        begin(None);
        let policy = file(Path::new("/crate/occupancy.toml")).unwrap();
        assert_eq!(policy, "file\t/crate/occupancy.toml");
        assert!(include(policy.clone()));
        assert!(!include(policy.clone()));
        let record = end();
        assert_eq!(record.included, std::slice::from_ref(&policy));
        assert!(record.omitted.is_empty());
        // Outside a compiler process every expansion includes every file.
        begin(None);
        assert!(include(policy));
        assert_eq!(end().omitted, Vec::<String>::new());
    }

    #[test]
    fn a_confirmation_is_made_by_the_first_wrapper_of_its_scope_and_relied_on_by_the_next() {
        // Outside a compiler process nothing is shared.
        begin(Some(1));
        assert_eq!(share("lib.rs crate::a", "(B) == 256", 256, "confirm"), None);
        end();
        // In one (what `begin` allows there), the first makes it, with a marker of its own.
        let share_in = |key: u128, scope: &str, expr: &str, value: i128| {
            begin(None);
            SHARING.set(Some(key));
            let shared = share(scope, expr, value, "confirm");
            (shared, end())
        };
        let (making, made) = share_in(7, "/c/lib.rs crate::a", "super :: B", 256);
        let Some(Shared::Here(marker)) = making else {
            panic!("{making:?}")
        };
        assert!(
            marker.starts_with("__OCCUPANCY_CONFIRMED_") && marker.len() == 54,
            "{marker}"
        );
        let fact = format!("share\t/c/lib.rs crate::a\tsuper :: B\t256\tconfirm\t{marker}");
        assert_eq!(made.included, std::slice::from_ref(&fact));
        // The next wrapper of that scope relies on it, and its record says so.
        let (second, relied) = share_in(8, "/c/lib.rs crate::a", "super :: B", 256);
        assert_eq!(second, Some(Shared::Elsewhere(marker.clone())));
        assert_eq!(relied.omitted, [fact]);
        assert!(relied.included.is_empty());
        // Another scope, another value or a text no record holds: made there.
        for (scope, expr, value) in [
            ("/c/lib.rs crate::b", "super :: B", 256),
            ("/c/lib.rs crate::a", "super :: B", 128),
        ] {
            let (other, _) = share_in(9, scope, expr, value);
            assert!(
                matches!(&other, Some(Shared::Here(m)) if *m != marker),
                "{other:?}"
            );
        }
        assert_eq!(share_in(10, "/c/a\tb.rs crate", "B", 1).0, None);
        // A wrapper's key is its own: the first expansion with it only.
        assert!(first(u128::MAX - 3));
        assert!(!first(u128::MAX - 3));
    }

    #[test]
    fn a_file_and_a_variable_of_one_name_are_two_facts_and_odd_names_none() {
        let (f, v) = (file(Path::new("X")).unwrap(), var("X").unwrap());
        assert_ne!(f, v);
        begin(None);
        assert!(include(f.clone()) && include(v.clone()));
        assert_eq!(end().included, [f, v]);
        assert_eq!(file(Path::new("/a\tb")), None);
        assert_eq!(var("A\nB"), None);
    }
}
