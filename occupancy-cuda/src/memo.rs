//! Calls made again with the same inputs, answered from the first: a helper that computes a
//! value (`mmq_get_nbytes_shared<type>(mmq_x, mmq_y, cc, ..)`) is called on every path and
//! in every iteration of the loop that picks a tile, with the same arguments on most of
//! them; following its body again gives the same answer at the same cost each time.
//!
//! The interpreter decides what makes two calls the same (the callee, its template and
//! argument values, the target, the call stack, everything else its body can read) and
//! stores only calls that left no trace besides their value (no launch, no note, within
//! the step budget). Entries are kept in buckets by a cheap key and compared in full
//! within one; past [`MAX_ENTRIES`] nothing more is stored.

use std::collections::HashMap;
use std::hash::Hash;

/// The most calls remembered per translation unit.
pub(crate) const MAX_ENTRIES: usize = 4096;

/// Answers of calls by their inputs: `B` a cheap hashable part of the inputs, `K` the
/// rest (compared with `==`), `V` the answer.
pub(crate) struct Memo<B, K, V> {
    buckets: HashMap<B, Vec<(K, V)>>,
    len: usize,
}

impl<B: Hash + Eq, K: PartialEq, V> Memo<B, K, V> {
    pub(crate) fn new() -> Memo<B, K, V> {
        Memo {
            buckets: HashMap::new(),
            len: 0,
        }
    }

    /// The answer stored for these inputs.
    pub(crate) fn get(&self, bucket: &B, key: &K) -> Option<&V> {
        self.buckets
            .get(bucket)?
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v)
    }

    /// Stores an answer (nothing past [`MAX_ENTRIES`]).
    pub(crate) fn insert(&mut self, bucket: B, key: K, value: V) {
        if self.len >= MAX_ENTRIES {
            return;
        }
        self.len += 1;
        self.buckets.entry(bucket).or_default().push((key, value));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_only_equal_inputs() {
        let mut m: Memo<u32, String, i32> = Memo::new();
        m.insert(1, "a".to_owned(), 10);
        m.insert(1, "b".to_owned(), 20);
        assert_eq!(m.get(&1, &"a".to_owned()), Some(&10));
        assert_eq!(m.get(&1, &"b".to_owned()), Some(&20));
        assert_eq!(m.get(&1, &"c".to_owned()), None);
        assert_eq!(m.get(&2, &"a".to_owned()), None);
    }

    #[test]
    fn stores_nothing_past_the_bound() {
        let mut m: Memo<usize, usize, usize> = Memo::new();
        for i in 0..MAX_ENTRIES + 10 {
            m.insert(i % 7, i, i);
        }
        assert_eq!(m.get(&0, &0), Some(&0));
        let last = MAX_ENTRIES + 9;
        assert_eq!(m.get(&(last % 7), &last), None);
    }
}
