//! [`Shared`]: a value that clones in O(1) and copies itself only when written while
//! shared. A reader clones a path at every branch and test (a probe of a clamp's operands
//! keeps neither side; a refinement writes one variable); paths hold every binding,
//! condition and opt-in, so cloning them whole was most of the readers' time (the C++
//! interpreter's on marlin's 48-arm `else if` dispatches; the core's on candle's `min`s).

use std::ops::{Deref, DerefMut};
use std::rc::Rc;

/// A copy-on-write value: reads see the shared one; the first write through a clone
/// copies it ([`Rc::make_mut`]).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Shared<T: Clone>(Rc<T>);

impl<T: Clone> Shared<T> {
    /// `value`, not yet shared.
    pub fn new(value: T) -> Shared<T> {
        Shared(Rc::new(value))
    }
}

impl<T: Clone + PartialEq> Shared<T> {
    /// Whether both hold the same value: the same one shared, or equal ones.
    pub fn same(&self, other: &Shared<T>) -> bool {
        Rc::ptr_eq(&self.0, &other.0) || *self.0 == *other.0
    }
}

impl<T: Clone> Shared<T> {
    /// The value, taken where not shared, else copied.
    pub fn into_inner(self) -> T {
        Rc::try_unwrap(self.0).unwrap_or_else(|shared| (*shared).clone())
    }
}

impl<'a, T: Clone> IntoIterator for &'a Shared<Vec<T>> {
    type Item = &'a T;
    type IntoIter = std::slice::Iter<'a, T>;
    fn into_iter(self) -> Self::IntoIter {
        self.0.iter()
    }
}

impl<'a, T: Clone> IntoIterator for &'a mut Shared<Vec<T>> {
    type Item = &'a mut T;
    type IntoIter = std::slice::IterMut<'a, T>;
    fn into_iter(self) -> Self::IntoIter {
        Rc::make_mut(&mut self.0).iter_mut()
    }
}

impl<T: Clone> IntoIterator for Shared<Vec<T>> {
    type Item = T;
    type IntoIter = std::vec::IntoIter<T>;
    fn into_iter(self) -> Self::IntoIter {
        self.into_inner().into_iter()
    }
}

impl<T: Clone> Deref for Shared<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.0
    }
}

impl<T: Clone> DerefMut for Shared<T> {
    fn deref_mut(&mut self) -> &mut T {
        Rc::make_mut(&mut self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_write_after_a_clone_copies_and_leaves_the_other_as_it_was() {
        let mut a = Shared::new(vec![1, 2]);
        let b = a.clone();
        assert!(Rc::ptr_eq(&a.0, &b.0));
        a.push(3);
        assert_eq!((&*a, &*b), (&vec![1, 2, 3], &vec![1, 2]));
        assert!(!Rc::ptr_eq(&a.0, &b.0));
        // Not shared: written in place.
        let before = Rc::as_ptr(&a.0);
        a.push(4);
        assert_eq!(Rc::as_ptr(&a.0), before);
    }
}
