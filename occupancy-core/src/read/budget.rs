//! [`Budget`]: the work one root of a reader (a Rust wrapper, a C++ launcher) may do.

/// A count of evaluation steps against a limit: once more than `limit` steps are taken
/// the budget is spent, and stays spent until [`Budget::reset`]. What a reader evaluates
/// past it is unknown with the budget's reason, never guessed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Budget {
    steps: usize,
    limit: usize,
}

impl Budget {
    /// A budget of `limit` steps, none taken.
    pub const fn new(limit: usize) -> Budget {
        Budget { steps: 0, limit }
    }

    /// Takes one step: `true` while at most `limit` steps have been taken (this one
    /// included), `false` from the step after the last one allowed.
    pub fn step(&mut self) -> bool {
        self.steps = self.steps.saturating_add(1);
        self.steps <= self.limit
    }

    /// Takes `n` steps at once (work counted in steps, such as a parse of `n` times so many
    /// bytes): `true` while at most `limit` steps have been taken, as [`Budget::step`].
    pub fn take(&mut self, n: usize) -> bool {
        self.steps = self.steps.saturating_add(n);
        self.steps <= self.limit
    }

    /// Whether more than `limit` steps have been taken.
    pub fn spent(&self) -> bool {
        self.steps > self.limit
    }

    /// The steps allowed.
    pub fn limit(&self) -> usize {
        self.limit
    }

    /// The steps taken so far (more than [`Budget::limit`] once spent).
    pub fn taken(&self) -> usize {
        self.steps
    }

    /// No step taken: the start of another root.
    pub fn reset(&mut self) {
        self.steps = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_last_step_allowed_is_the_limit_and_the_next_one_spends_it() {
        let mut b = Budget::new(3);
        assert_eq!([b.step(), b.step(), b.step()], [true; 3]);
        assert!(!b.spent());
        assert!(!b.step());
        assert!(b.spent());
        // Spent stays spent: every later step is refused too.
        assert!(!b.step());
        assert_eq!(b.taken(), 5);
        b.reset();
        assert!(!b.spent());
        assert!(b.step());
    }

    #[test]
    fn steps_taken_at_once_count_as_many_steps() {
        let mut b = Budget::new(10);
        assert!(b.take(7));
        assert_eq!(b.taken(), 7);
        assert!(b.take(3));
        assert!(!b.spent());
        assert!(!b.step());
        let mut b = Budget::new(10);
        assert!(!b.take(11));
        assert!(b.spent());
        assert!(!b.take(usize::MAX));
        assert_eq!(b.taken(), usize::MAX);
    }

    #[test]
    fn a_budget_of_nothing_refuses_the_first_step() {
        let mut b = Budget::new(0);
        assert!(!b.spent());
        assert!(!b.step());
        assert!(b.spent());
    }
}
