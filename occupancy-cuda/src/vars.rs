//! [`Vars`]: a path's variables (or their types, or what they are known not to hold) by
//! name. Paths fork at every branch and copy these maps on their first write after a
//! fork ([`occupancy_read::shared::Shared`]), so a copy must be cheap: the names are `Rc<str>`
//! shared by every copy (a copy allocates its table, not one string per variable), and
//! hashed with rustc's Fx hash (short keys; a slow map costs only time, which the step
//! budget bounds, so no defence against chosen collisions is needed).

use std::collections::hash_map::{HashMap, Iter};
use std::hash::{Hash, Hasher};
use std::rc::Rc;

use rustc_hash::{FxBuildHasher, FxHasher};

/// Values by variable name.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Vars<V>(HashMap<Rc<str>, V, FxBuildHasher>);

impl<V> Default for Vars<V> {
    fn default() -> Vars<V> {
        Vars(HashMap::default())
    }
}

impl<V> Vars<V> {
    pub(crate) fn get(&self, name: &str) -> Option<&V> {
        self.0.get(name)
    }

    pub(crate) fn contains_key(&self, name: &str) -> bool {
        self.0.contains_key(name)
    }

    /// `name`'s value, bound first to `value()` where it has none.
    pub(crate) fn get_or_insert_with(&mut self, name: &str, value: impl FnOnce() -> V) -> &mut V {
        if !self.0.contains_key(name) {
            self.0.insert(name.into(), value());
        }
        // Bound just above when it was not.
        self.0.get_mut(name).expect("bound")
    }

    /// Binds `name` to `value`, returning what it held.
    pub(crate) fn insert(&mut self, name: impl Into<Rc<str>>, value: V) -> Option<V> {
        self.0.insert(name.into(), value)
    }

    pub(crate) fn remove(&mut self, name: &str) -> Option<V> {
        self.0.remove(name)
    }

    pub(crate) fn iter(&self) -> Iter<'_, Rc<str>, V> {
        self.0.iter()
    }

    /// A digest of the bindings that does not depend on their order: the sum of one hash
    /// per binding, of its name and of what `value` feeds for its value. Equal maps have
    /// equal digests when `value` feeds equal values the same.
    pub(crate) fn digest(&self, value: impl Fn(&V, &mut FxHasher)) -> u64 {
        self.0.iter().fold(0u64, |sum, (name, v)| {
            let mut h = FxHasher::default();
            name.hash(&mut h);
            value(v, &mut h);
            sum.wrapping_add(h.finish())
        })
    }
}

impl<V> FromIterator<(Rc<str>, V)> for Vars<V> {
    fn from_iter<I: IntoIterator<Item = (Rc<str>, V)>>(items: I) -> Vars<V> {
        Vars(items.into_iter().collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_copy_shares_the_names_and_a_write_to_it_leaves_the_original() {
        let mut a: Vars<i32> = Vars::default();
        a.insert("block", 128);
        a.insert(String::from("smem"), 4096);
        let mut b = a.clone();
        let (ka, kb) = (
            a.iter()
                .find(|(k, _)| &***k == "block")
                .map(|(k, _)| k.clone()),
            b.iter()
                .find(|(k, _)| &***k == "block")
                .map(|(k, _)| k.clone()),
        );
        assert!(Rc::ptr_eq(&ka.unwrap(), &kb.unwrap()));
        assert_eq!(b.insert("block", 256), Some(128));
        assert_eq!((a.get("block"), b.get("block")), (Some(&128), Some(&256)));
        assert_ne!(a, b);
        b.insert("block", 128);
        assert_eq!(a, b);
        assert_eq!(b.remove("smem"), Some(4096));
        assert!(!b.contains_key("smem") && a.contains_key("smem"));
        assert_eq!((a.iter().count(), b.iter().count()), (2, 1));
        *b.get_or_insert_with("block", || 0) += 1;
        *b.get_or_insert_with("grid", || 7) += 1;
        assert_eq!((b.get("block"), b.get("grid")), (Some(&129), Some(&8)));
    }

    #[test]
    fn the_digest_follows_the_bindings_not_their_order() {
        let feed = |v: &i32, h: &mut FxHasher| v.hash(h);
        let a: Vars<i32> = [("block", 128), ("smem", 4096), ("grid", 7)]
            .into_iter()
            .map(|(k, v)| (Rc::from(k), v))
            .collect();
        let mut b: Vars<i32> = Vars::default();
        for (k, v) in [("grid", 7), ("block", 128), ("smem", 4096)] {
            b.insert(k, v);
        }
        assert_eq!(a.digest(feed), b.digest(feed));
        b.insert("block", 256);
        assert_ne!(a.digest(feed), b.digest(feed));
        b.insert("block", 128);
        b.insert("extra", 0);
        assert_ne!(a.digest(feed), b.digest(feed));
        assert_eq!(Vars::<i32>::default().digest(feed), 0);
    }
}
