//! Parsed files kept for the next expansion.
//!
//! rustc loads a proc macro once per crate and calls it once per wrapper, and every wrapper
//! of a crate reads the same policy file and resource manifest: parsing them again each time
//! cost up to 2 ms per wrapper in a debug build (a 40 KB manifest through serde_json at
//! opt-level 0). A file is still read from disk on every call; only its parse is reused, and
//! only when the text is the same as last time. The result is therefore exactly what parsing
//! gives, a function of the file's bytes: nothing can go stale, in rustc or in a long-lived
//! proc-macro server such as rust-analyzer's.

use std::sync::Mutex;

/// A one-entry memo of `parse(text)`, keyed by the whole text.
pub(crate) struct Memo<T> {
    last: Mutex<Option<(String, T)>>,
}

impl<T: Clone> Memo<T> {
    pub(crate) const fn new() -> Self {
        Self {
            last: Mutex::new(None),
        }
    }

    /// `parse(&text)`, or the value it gave for the same text last time.
    pub(crate) fn get_or_parse(&self, text: String, parse: impl FnOnce(&str) -> T) -> T {
        // A panic elsewhere while the lock was held leaves a whole entry or none: use it.
        let mut last = self.last.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((key, value)) = last.as_ref()
            && *key == text
        {
            return value.clone();
        }
        let value = parse(&text);
        *last = Some((text, value.clone()));
        value
    }
}

#[cfg(test)]
mod tests {
    use std::cell::Cell;

    use super::Memo;

    #[test]
    fn parses_again_only_when_the_text_changes() {
        let memo: Memo<usize> = Memo::new();
        let calls = Cell::new(0);
        let parse = |text: &str| {
            calls.set(calls.get() + 1);
            text.len()
        };
        assert_eq!(memo.get_or_parse("abc".into(), parse), 3);
        assert_eq!(memo.get_or_parse("abc".into(), parse), 3);
        assert_eq!(calls.get(), 1);
        assert_eq!(memo.get_or_parse("abcd".into(), parse), 4);
        assert_eq!(memo.get_or_parse("abc".into(), parse), 3);
        assert_eq!(calls.get(), 3);
    }
}
