//! How a comparison splits a path: the one rule both readers refine their values by.
//!
//! `if (n < 1024)` with `n` in `0..=4096`: the path where it holds knows `n` in `0..=1023`,
//! the other `1024..=4096`. Each reader compares its own values (the Rust reader knows
//! when two names are the same input, the C++ reader what an earlier `else` ruled out) and
//! binds the narrowed values to its own variables; which ways the comparison can go and
//! what each operand is on each of them is decided here.

use crate::abstract_int::{AbstractInt, Comparison, Truth};

/// One way a comparison `left op right` can go: whether it holds there, and each operand
/// narrowed to the values for which it goes this way.
#[derive(Clone, Debug, PartialEq)]
pub struct Side {
    /// `true`: the comparison holds on this side (the `then` of an `if`).
    pub holds: bool,
    /// The comparison this side knows: `op` where it holds, its negation where not.
    pub op: Comparison,
    /// The left operand's values on this side.
    pub left: AbstractInt,
    /// The right operand's values on this side.
    pub right: AbstractInt,
}

/// The ways `left op right` can go, the side where it holds first: a way that `truth` (the
/// reader's own decision of the comparison, which may know more than the two values) rules
/// out is absent, and so is a way that no value of an operand can take (`x < 0` for `x` in
/// `0..=9` never holds). Each operand is narrowed against the other's values before either
/// is narrowed (`x < y` with `x` in `0..=9` and `y` in `5..=20`: where it holds, `x` stays
/// `0..=9` and `y` is `5..=20`; where not, `x` is `5..=9` and `y` is `5..=9`).
pub fn sides(left: &AbstractInt, op: Comparison, right: &AbstractInt, truth: Truth) -> Vec<Side> {
    let mut out = Vec::with_capacity(2);
    for (holds, c, possible) in [
        (true, op, truth != Truth::Never),
        (false, op.negated(), truth != Truth::Always),
    ] {
        if !possible {
            continue;
        }
        let (Some(l), Some(r)) = (left.refine(c, right), right.refine(c.swapped(), left)) else {
            continue;
        };
        out.push(Side {
            holds,
            op: c,
            left: l,
            right: r,
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn range(lo: i128, hi: i128) -> AbstractInt {
        AbstractInt::range(Some(lo), Some(hi))
    }

    fn hull(a: &AbstractInt) -> (i128, i128) {
        match a.bounds() {
            (Some(lo), Some(hi)) => (lo, hi),
            other => panic!("unbounded: {other:?}"),
        }
    }

    fn bounds(s: &Side) -> (bool, (i128, i128), (i128, i128)) {
        (s.holds, hull(&s.left), hull(&s.right))
    }

    #[test]
    fn an_undecided_bound_narrows_each_side() {
        let n = range(0, 4096);
        let k = AbstractInt::known(1024);
        let got = sides(&n, Comparison::Lt, &k, n.compare(Comparison::Lt, &k));
        assert_eq!(
            got.iter().map(bounds).collect::<Vec<_>>(),
            [
                (true, (0, 1023), (1024, 1024)),
                (false, (1024, 4096), (1024, 1024))
            ]
        );
        assert_eq!(got[1].op, Comparison::Ge);
    }

    #[test]
    fn both_operands_narrow_each_against_the_others_values() {
        let (x, y) = (range(0, 9), range(5, 20));
        let got = sides(&x, Comparison::Lt, &y, x.compare(Comparison::Lt, &y));
        assert_eq!(
            got.iter().map(bounds).collect::<Vec<_>>(),
            [(true, (0, 9), (5, 20)), (false, (5, 9), (5, 9))]
        );
    }

    #[test]
    fn a_set_keeps_the_members_that_go_each_way() {
        let tile = AbstractInt::one_of([8, 16, 48, 64, 80]).unwrap();
        let k = AbstractInt::known(48);
        let got = sides(&tile, Comparison::Ge, &k, Truth::Sometimes);
        assert_eq!(got[0].left.members(), Some(&[48, 64, 80][..]));
        assert_eq!(got[1].left.members(), Some(&[8, 16][..]));
        assert_eq!(got[1].op, Comparison::Lt);
    }

    #[test]
    fn a_decided_comparison_has_one_side() {
        let (x, k) = (range(0, 9), AbstractInt::known(100));
        let got = sides(&x, Comparison::Lt, &k, Truth::Always);
        assert_eq!(
            got.iter().map(bounds).collect::<Vec<_>>(),
            [(true, (0, 9), (100, 100))]
        );
        let got = sides(&x, Comparison::Gt, &k, Truth::Never);
        assert_eq!(
            got.iter().map(bounds).collect::<Vec<_>>(),
            [(false, (0, 9), (100, 100))]
        );
    }

    #[test]
    fn a_side_no_value_can_take_is_absent_even_when_the_reader_could_not_decide() {
        // The reader said "sometimes" (it knew less), but no `x` in 0..=9 is below 0.
        let (x, zero) = (range(0, 9), AbstractInt::known(0));
        let got = sides(&x, Comparison::Lt, &zero, Truth::Sometimes);
        assert_eq!(
            got.iter().map(bounds).collect::<Vec<_>>(),
            [(false, (0, 9), (0, 0))]
        );
    }

    #[test]
    fn not_equal_to_an_end_of_a_range_drops_that_end() {
        let (x, zero) = (range(0, 9), AbstractInt::known(0));
        let got = sides(&x, Comparison::Ne, &zero, Truth::Sometimes);
        assert_eq!(
            got.iter().map(bounds).collect::<Vec<_>>(),
            [(true, (1, 9), (0, 0)), (false, (0, 0), (0, 0))]
        );
    }
}
