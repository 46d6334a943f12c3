//! What a launch reader knows of an integer it cannot compute exactly: the abstract domain
//! shared by the readers of launches (the Rust body reader of `occupancy-attr` and the CUDA
//! C++ host-code reader of `occupancy-cuda`).
//!
//! A launch's block or dynamic shared memory is often a run-time value with a finite range:
//! `n.next_power_of_two().min(1024)`, `int b = 32; while (b < n && b < 1024) b <<= 1;`,
//! `if n < 1024 { n.next_power_of_two() } else { 1024 }`. An [`AbstractInt`] is either a
//! finite set of values (at most [`MAX_MEMBERS`]; one member is a known value) or an
//! interval `lo..=hi` whose bounds may be open (no bound known on that side). Every
//! operation is *sound*: each concrete result of the operation on members of its operands is
//! a member of its abstract result (`tests/abstract_int.rs` checks this on random values).
//!
//! Arithmetic is exact over `i128`; a reader applies its language's integer types (Rust's
//! checked overflow, C++'s wrapping unsigned) by intersecting with the type's range
//! ([`AbstractInt::within`]). Results beyond `i128` become open bounds.
//!
//! Correlation is the reader's job: an operation on two values treats them as independent
//! (`x + y` over every pair). Values chosen together, such as a block size and the shared
//! memory computed from it, must stay together: the reader enumerates a finite set into one
//! path per member ([`AbstractInt::members`]) and computes what depends on it per path.
//!
//! ```
//! use occupancy_core::abstract_int::{AbstractInt, Comparison, loop_exits, Truth};
//!
//! // `usize::min(1024, n).next_power_of_two()` for an unknown `n: usize`.
//! let n = AbstractInt::range(Some(0), Some(u64::MAX as i128));
//! let block = AbstractInt::known(1024).min(&n).next_power_of_two();
//! assert_eq!(block.members(), Some(&[1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024][..]));
//!
//! // `int b = 32; while (b < n && b < 1024) b <<= 1;` for an unknown `n`.
//! let exits = loop_exits(
//!     &AbstractInt::known(32),
//!     |b| if b < 1024 { Truth::Sometimes } else { Truth::Never },
//!     |b| b.checked_mul(2),
//! );
//! assert_eq!(exits.unwrap().members(), Some(&[32, 64, 128, 256, 512, 1024][..]));
//!
//! // `n < 1024` refines an unknown `n` to 0..=1023.
//! let small = n.refine(Comparison::Lt, &AbstractInt::known(1024)).unwrap();
//! assert_eq!(small.bounds(), (Some(0), Some(1023)));
//! ```

use std::fmt;
use std::sync::Arc;

/// The most members a finite set keeps; a larger set becomes its interval. The same bound
/// as the number of launch paths a reader follows.
pub const MAX_MEMBERS: usize = 64;

/// The most values [`loop_exits`] visits before giving up (the loop's values are then
/// unknown).
pub const MAX_LOOP_STEPS: usize = 4096;

/// An integer known exactly, as one of a few values, or as an interval.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct AbstractInt(Repr);

#[derive(Clone, PartialEq, Eq, Hash)]
enum Repr {
    /// Exactly one value.
    One(i128),
    /// Sorted, distinct, 2 to [`MAX_MEMBERS`] values (shared: a clone allocates nothing).
    Set(Arc<[i128]>),
    /// `lo..=hi`, `lo <= hi`, more than [`MAX_MEMBERS`] values; `i128::MIN` / `i128::MAX`
    /// stand for an open bound.
    Range(i128, i128),
}

/// Whether a condition holds for the values an [`AbstractInt`] stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Truth {
    /// For every value.
    Always,
    /// For none.
    Never,
    /// For some values, or not known.
    Sometimes,
}

/// `!condition`.
impl std::ops::Not for Truth {
    type Output = Truth;

    fn not(self) -> Truth {
        match self {
            Truth::Always => Truth::Never,
            Truth::Never => Truth::Always,
            Truth::Sometimes => Truth::Sometimes,
        }
    }
}

impl Truth {
    /// `self && other`.
    pub fn and(self, other: Truth) -> Truth {
        match (self, other) {
            (Truth::Never, _) | (_, Truth::Never) => Truth::Never,
            (Truth::Always, Truth::Always) => Truth::Always,
            _ => Truth::Sometimes,
        }
    }

    /// `self || other`.
    pub fn or(self, other: Truth) -> Truth {
        !(!self).and(!other)
    }
}

/// An integer comparison: `a < b`, `a <= b`, ...
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Comparison {
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
    /// `==`
    Eq,
    /// `!=`
    Ne,
}

impl Comparison {
    /// Whether `a self b` holds.
    pub fn holds(self, a: i128, b: i128) -> bool {
        match self {
            Comparison::Lt => a < b,
            Comparison::Le => a <= b,
            Comparison::Gt => a > b,
            Comparison::Ge => a >= b,
            Comparison::Eq => a == b,
            Comparison::Ne => a != b,
        }
    }

    /// The comparison with its operands swapped (`a < b` is `b > a`).
    pub fn swapped(self) -> Comparison {
        match self {
            Comparison::Lt => Comparison::Gt,
            Comparison::Le => Comparison::Ge,
            Comparison::Gt => Comparison::Lt,
            Comparison::Ge => Comparison::Le,
            other => other,
        }
    }

    /// The comparison that holds exactly when this one does not (`<` is `>=`).
    pub fn negated(self) -> Comparison {
        match self {
            Comparison::Lt => Comparison::Ge,
            Comparison::Le => Comparison::Gt,
            Comparison::Gt => Comparison::Le,
            Comparison::Ge => Comparison::Lt,
            Comparison::Eq => Comparison::Ne,
            Comparison::Ne => Comparison::Eq,
        }
    }
}

const OPEN_LO: i128 = i128::MIN;
const OPEN_HI: i128 = i128::MAX;

impl AbstractInt {
    /// Exactly `value`.
    pub fn known(value: i128) -> AbstractInt {
        AbstractInt(Repr::One(value))
    }

    /// Any integer: nothing is known.
    pub fn unknown() -> AbstractInt {
        AbstractInt(Repr::Range(OPEN_LO, OPEN_HI))
    }

    /// A value in `lo..=hi` (`None`: no bound on that side). An interval of at most
    /// [`MAX_MEMBERS`] values is kept as the set of them. `lo > hi` is taken as the
    /// interval between them.
    pub fn range(lo: Option<i128>, hi: Option<i128>) -> AbstractInt {
        let (mut lo, mut hi) = (lo.unwrap_or(OPEN_LO), hi.unwrap_or(OPEN_HI));
        if lo > hi {
            std::mem::swap(&mut lo, &mut hi);
        }
        Self::from_bounds(lo, hi)
    }

    /// One of `values` (their interval when there are more than [`MAX_MEMBERS`] distinct
    /// ones); `None` when `values` is empty.
    pub fn one_of(values: impl IntoIterator<Item = i128>) -> Option<AbstractInt> {
        let mut values: Vec<i128> = values.into_iter().collect();
        values.sort_unstable();
        values.dedup();
        match (values.first(), values.last()) {
            (Some(&lo), Some(&hi)) if values.len() > MAX_MEMBERS => {
                Some(AbstractInt(Repr::Range(lo, hi)))
            }
            (Some(&one), Some(_)) if values.len() == 1 => Some(AbstractInt(Repr::One(one))),
            (Some(_), Some(_)) => Some(AbstractInt(Repr::Set(values.into()))),
            _ => None,
        }
    }

    /// The canonical form of `lo..=hi` (`lo <= hi`, open bounds as `i128::MIN` / `MAX`).
    fn from_bounds(lo: i128, hi: i128) -> AbstractInt {
        if lo == hi {
            AbstractInt(Repr::One(lo))
        } else if lo != OPEN_LO && hi != OPEN_HI && hi.abs_diff(lo) < MAX_MEMBERS as u128 {
            AbstractInt(Repr::Set((lo..=hi).collect()))
        } else {
            AbstractInt(Repr::Range(lo, hi))
        }
    }

    /// The value, when exactly one is possible.
    pub fn known_value(&self) -> Option<i128> {
        match &self.0 {
            Repr::One(v) => Some(*v),
            _ => None,
        }
    }

    /// Every possible value, sorted, when there are at most [`MAX_MEMBERS`].
    pub fn members(&self) -> Option<&[i128]> {
        match &self.0 {
            Repr::One(v) => Some(std::slice::from_ref(v)),
            Repr::Set(v) => Some(v),
            Repr::Range(..) => None,
        }
    }

    /// The least and greatest possible values (`None`: unbounded on that side).
    pub fn bounds(&self) -> (Option<i128>, Option<i128>) {
        let (lo, hi) = self.hull();
        ((lo != OPEN_LO).then_some(lo), (hi != OPEN_HI).then_some(hi))
    }

    /// Nothing is known: no bound on either side.
    pub fn is_unknown(&self) -> bool {
        self.bounds() == (None, None)
    }

    /// Whether `value` is possible.
    pub fn contains(&self, value: i128) -> bool {
        match &self.0 {
            Repr::One(v) => *v == value,
            Repr::Set(v) => v.binary_search(&value).is_ok(),
            Repr::Range(lo, hi) => (*lo..=*hi).contains(&value),
        }
    }

    fn hull(&self) -> (i128, i128) {
        match &self.0 {
            Repr::One(v) => (*v, *v),
            Repr::Set(v) => (v[0], v[v.len() - 1]),
            Repr::Range(lo, hi) => (*lo, *hi),
        }
    }

    /// A value that is `self` or `other` (the arms of an `if`, the exits of a loop).
    pub fn union(&self, other: &AbstractInt) -> AbstractInt {
        if let (Some(a), Some(b)) = (self.members(), other.members())
            && let Some(set) = AbstractInt::one_of(a.iter().chain(b).copied())
        {
            return set;
        }
        let ((a, b), (c, d)) = (self.hull(), other.hull());
        Self::from_bounds(a.min(c), b.max(d))
    }

    /// The values of `self` within `lo..=hi` (`None`: no bound on that side), such as an
    /// integer type's range; `None` when there are none.
    pub fn within(&self, lo: Option<i128>, hi: Option<i128>) -> Option<AbstractInt> {
        let (lo, hi) = (lo.unwrap_or(OPEN_LO), hi.unwrap_or(OPEN_HI));
        match self.members() {
            Some(v) => AbstractInt::one_of(v.iter().copied().filter(|x| (lo..=hi).contains(x))),
            None => {
                let (a, b) = self.hull();
                let (a, b) = (a.max(lo), b.min(hi));
                (a <= b).then(|| Self::from_bounds(a, b))
            }
        }
    }

    /// Whether `self op other` holds for the values they stand for (taken as independent).
    pub fn compare(&self, op: Comparison, other: &AbstractInt) -> Truth {
        if let (Some(a), Some(b)) = (self.members(), other.members()) {
            let (mut some, mut all) = (false, true);
            for x in a {
                for y in b {
                    let holds = op.holds(*x, *y);
                    some |= holds;
                    all &= holds;
                }
            }
            return match (some, all) {
                (_, true) => Truth::Always,
                (false, _) => Truth::Never,
                _ => Truth::Sometimes,
            };
        }
        let ((a, b), (c, d)) = (self.hull(), other.hull());
        let (always, never) = match op {
            Comparison::Lt => (b < c, a >= d),
            Comparison::Le => (b <= c, a > d),
            Comparison::Gt => (a > d, b <= c),
            Comparison::Ge => (a >= d, b < c),
            // Ranges have more than one member: never all equal.
            Comparison::Eq => (false, b < c || d < a),
            Comparison::Ne => (b < c || d < a, false),
        };
        match (always, never) {
            (true, _) => Truth::Always,
            (_, true) => Truth::Never,
            _ => Truth::Sometimes,
        }
    }

    /// The values of `self` for which `self op other` can hold (an `if` arm's knowledge of
    /// its condition's operand); `None` when there are none.
    pub fn refine(&self, op: Comparison, other: &AbstractInt) -> Option<AbstractInt> {
        if let Some(a) = self.members() {
            let keep = a
                .iter()
                .copied()
                .filter(|x| AbstractInt::known(*x).compare(op, other) != Truth::Never);
            return AbstractInt::one_of(keep);
        }
        let (c, d) = other.hull();
        let (lo, hi) = match op {
            Comparison::Lt => (None, (d != OPEN_HI).then(|| d - 1)),
            Comparison::Le => (None, (d != OPEN_HI).then_some(d)),
            Comparison::Gt => ((c != OPEN_LO).then(|| c + 1), None),
            Comparison::Ge => ((c != OPEN_LO).then_some(c), None),
            Comparison::Eq => ((c != OPEN_LO).then_some(c), (d != OPEN_HI).then_some(d)),
            Comparison::Ne => match other.known_value() {
                // Excluding one end of the interval; an inner value stays possible.
                Some(v) if v == self.hull().0 => (Some(v + 1), None),
                Some(v) if v == self.hull().1 => (None, Some(v - 1)),
                _ => (None, None),
            },
        };
        self.within(lo, hi)
    }

    /// `self + other`.
    pub fn add(&self, other: &AbstractInt) -> AbstractInt {
        self.binary(other, i128::checked_add, |(a, b), (c, d)| {
            (open_add(a, c, OPEN_LO), open_add(b, d, OPEN_HI))
        })
    }

    /// `self - other`.
    pub fn sub(&self, other: &AbstractInt) -> AbstractInt {
        self.add(&other.neg())
    }

    /// `-self`.
    pub fn neg(&self) -> AbstractInt {
        match (self.members(), self.hull()) {
            (Some(v), _) => {
                // `-i128::MIN` does not exist: such a member becomes an open bound.
                if v[0] == i128::MIN {
                    return AbstractInt::unknown();
                }
                AbstractInt::one_of(v.iter().map(|x| -x)).unwrap_or_else(AbstractInt::unknown)
            }
            (None, (lo, hi)) => Self::from_bounds(flip(hi), flip(lo)),
        }
    }

    /// `self * other`.
    pub fn mul(&self, other: &AbstractInt) -> AbstractInt {
        self.binary(other, i128::checked_mul, |(a, b), (c, d)| {
            corners([(a, c), (a, d), (b, c), (b, d)], open_mul)
        })
    }

    /// `self / other`, truncated towards zero (Rust's and C++'s integer division); a zero
    /// divisor has no result (a panic in Rust, undefined in C++).
    pub fn div(&self, other: &AbstractInt) -> AbstractInt {
        self.by_nonzero(other, |x, y| x.checked_div(y), open_div)
    }

    /// `self % other` (the remainder of [`AbstractInt::div`], the dividend's sign).
    pub fn rem(&self, other: &AbstractInt) -> AbstractInt {
        if let Some(r) = self.pointwise(other, |x, y| x.checked_rem(y)) {
            return r;
        }
        let ((a, b), (c, d)) = (self.hull(), other.hull());
        // |x % y| < |y| and |x % y| <= |x|, with the dividend's sign.
        let m = c.unsigned_abs().max(d.unsigned_abs());
        let m = i128::try_from(m.saturating_sub(1)).unwrap_or(OPEN_HI);
        let lo = if a >= 0 { 0 } else { a.max(-m) };
        let hi = if b <= 0 { 0 } else { b.min(m) };
        Self::from_bounds(lo, hi)
    }

    /// `self.div_ceil(other)` for non-negative operands (Rust's `div_ceil`; C++'s
    /// `(x + y - 1) / y` for positive values); other values have no result here.
    pub fn div_ceil(&self, other: &AbstractInt) -> AbstractInt {
        let (Some(x), Some(y)) = (self.within(Some(0), None), other.within(Some(1), None)) else {
            return AbstractInt::unknown();
        };
        x.by_nonzero(
            &y,
            |x, y| Some(x / y + i128::from(x % y != 0)),
            |x, y| match (x, y) {
                (OPEN_HI, _) => OPEN_HI,
                (_, OPEN_HI) => i128::from(x > 0),
                _ => x / y + i128::from(x % y != 0),
            },
        )
    }

    /// `min(self, other)`.
    pub fn min(&self, other: &AbstractInt) -> AbstractInt {
        self.binary(
            other,
            |x, y| Some(x.min(y)),
            |(a, b), (c, d)| (a.min(c), b.min(d)),
        )
    }

    /// `max(self, other)`.
    pub fn max(&self, other: &AbstractInt) -> AbstractInt {
        self.binary(
            other,
            |x, y| Some(x.max(y)),
            |(a, b), (c, d)| (a.max(c), b.max(d)),
        )
    }

    /// `self << other` for shifts of 0 to 126 bits (others have no result: a panic or
    /// undefined behaviour in the source languages).
    pub fn shl(&self, other: &AbstractInt) -> AbstractInt {
        let Some(shift) = other.within(Some(0), Some(126)) else {
            return AbstractInt::unknown();
        };
        let (c, d) = shift.hull();
        self.mul(&AbstractInt::range(Some(1 << c), Some(1 << d)).only_powers_of_two(c, d))
    }

    /// `self >> other` (arithmetic: floor division by a power of two) for shifts of 0 to
    /// 126 bits.
    pub fn shr(&self, other: &AbstractInt) -> AbstractInt {
        let Some(shift) = other.within(Some(0), Some(126)) else {
            return AbstractInt::unknown();
        };
        if let Some(r) = self.pointwise(&shift, |x, s| Some(x >> s)) {
            return r;
        }
        let ((a, b), (c, d)) = (self.hull(), shift.hull());
        let shr = |x: i128, s: i128| match x {
            OPEN_LO | OPEN_HI => x,
            _ => x >> s,
        };
        let (lo, hi) = corners([(a, c), (a, d), (b, c), (b, d)], shr);
        Self::from_bounds(lo, hi)
    }

    /// The powers of two `2^c ..= 2^d` as a set when small (a shift amount's multipliers).
    fn only_powers_of_two(self, c: i128, d: i128) -> AbstractInt {
        AbstractInt::one_of((c..=d).map(|s| 1i128 << s)).unwrap_or(self)
    }

    /// `self.next_power_of_two()` (Rust's: the least power of two `>= self`, 1 for 0) for
    /// non-negative values below 2^126; other values have no result.
    pub fn next_power_of_two(&self) -> AbstractInt {
        let Some(x) = self.within(Some(0), Some(1 << 126)) else {
            return AbstractInt::unknown();
        };
        let npot = |v: i128| -> i128 { (v.max(1) as u128).next_power_of_two() as i128 };
        match (x.members(), x.hull()) {
            (Some(v), _) => {
                AbstractInt::one_of(v.iter().map(|v| npot(*v))).unwrap_or_else(AbstractInt::unknown)
            }
            (None, (lo, hi)) => {
                let (first, last) = (npot(lo).trailing_zeros(), npot(hi).trailing_zeros());
                AbstractInt::one_of((first..=last).map(|s| 1i128 << s))
                    .unwrap_or_else(AbstractInt::unknown)
            }
        }
    }

    /// `self` modulo `2^bits`, in `0..2^bits` (C++'s conversion to an unsigned type of
    /// `bits` bits, 1 to 126: wrap-around); when an interval does not fit, the whole range.
    pub fn wrapping(&self, bits: u32) -> AbstractInt {
        let bits = bits.clamp(1, 126);
        let modulus = 1i128 << bits;
        if let Some(v) = self.members() {
            return AbstractInt::one_of(v.iter().map(|x| x.rem_euclid(modulus)))
                .unwrap_or_else(AbstractInt::unknown);
        }
        let (lo, hi) = self.hull();
        if lo >= 0 && hi < modulus {
            return self.clone();
        }
        Self::from_bounds(0, modulus - 1)
    }

    /// `self & other`, `self | other`, `self ^ other` (`op` one of `&`, `|`, `^`):
    /// pointwise on sets; for intervals, `&` of non-negative values is at most the smaller
    /// bound, `|` and `^` of non-negative values below the next power of two of the larger.
    /// Anything else has no result known here.
    pub fn bitwise(&self, op: char, other: &AbstractInt) -> AbstractInt {
        let f = |x: i128, y: i128| match op {
            '&' => Some(x & y),
            '|' => Some(x | y),
            '^' => Some(x ^ y),
            _ => None,
        };
        if let Some(r) = self.pointwise(other, f) {
            return r;
        }
        let ((a, b), (c, d)) = (self.hull(), other.hull());
        if a < 0 || c < 0 || !matches!(op, '&' | '|' | '^') {
            return AbstractInt::unknown();
        }
        if op == '&' {
            return Self::from_bounds(0, b.min(d));
        }
        match (b.max(d) as u128).checked_next_power_of_two() {
            Some(p) if b != OPEN_HI && d != OPEN_HI && p <= i128::MAX as u128 => {
                Self::from_bounds(0, (p as i128).saturating_mul(2) - 1)
            }
            _ => Self::from_bounds(0, OPEN_HI),
        }
    }

    /// An operation on two values: pointwise on small sets, else `range` on their
    /// intervals; `f`'s `None` (an overflow past `i128`) makes the result unknown.
    fn binary(
        &self,
        other: &AbstractInt,
        f: impl Fn(i128, i128) -> Option<i128>,
        range: impl Fn((i128, i128), (i128, i128)) -> (i128, i128),
    ) -> AbstractInt {
        if let Some(r) = self.pointwise(other, f) {
            return r;
        }
        let (lo, hi) = range(self.hull(), other.hull());
        Self::from_bounds(lo, hi)
    }

    /// `f` over every pair of members, when both are sets and no pair overflows.
    fn pointwise(
        &self,
        other: &AbstractInt,
        f: impl Fn(i128, i128) -> Option<i128>,
    ) -> Option<AbstractInt> {
        let (a, b) = (self.members()?, other.members()?);
        let mut out = Vec::with_capacity(a.len() * b.len());
        for x in a {
            for y in b {
                out.push(f(*x, *y)?);
            }
        }
        AbstractInt::one_of(out)
    }

    /// A division-like operation whose zero divisors have no result: the divisor's
    /// negative and positive parts separately.
    fn by_nonzero(
        &self,
        other: &AbstractInt,
        f: impl Fn(i128, i128) -> Option<i128> + Copy,
        open: impl Fn(i128, i128) -> i128 + Copy,
    ) -> AbstractInt {
        let parts = [other.within(None, Some(-1)), other.within(Some(1), None)];
        let mut result: Option<AbstractInt> = None;
        for part in parts.into_iter().flatten() {
            let r = self.binary(&part, f, |(a, b), (c, d)| {
                corners([(a, c), (a, d), (b, c), (b, d)], open)
            });
            result = Some(match result {
                Some(acc) => acc.union(&r),
                None => r,
            });
        }
        result.unwrap_or_else(AbstractInt::unknown)
    }
}

/// `x + y` with `i128::MIN` / `MAX` as open bounds: `open` when either is open on that side
/// or the sum leaves `i128`.
fn open_add(x: i128, y: i128, open: i128) -> i128 {
    if x == open || y == open {
        return open;
    }
    x.checked_add(y).unwrap_or(open)
}

/// `-x` with open bounds swapped.
fn flip(x: i128) -> i128 {
    match x {
        OPEN_LO => OPEN_HI,
        OPEN_HI => OPEN_LO,
        x => -x,
    }
}

/// `x * y` with open bounds as infinities (0 times anything is 0: the values are finite).
fn open_mul(x: i128, y: i128) -> i128 {
    x.saturating_mul(y)
}

/// `x / y` (truncating) with open bounds as infinities, `y != 0`.
fn open_div(x: i128, y: i128) -> i128 {
    match (x, y) {
        (OPEN_LO | OPEN_HI, _) if y > 0 => x,
        (OPEN_LO, _) => OPEN_HI,
        (OPEN_HI, _) => OPEN_LO,
        (_, OPEN_LO | OPEN_HI) => 0,
        _ => x.checked_div(y).unwrap_or(OPEN_HI),
    }
}

/// The least and greatest of `f` at the corners of an interval product (for functions
/// monotone in each argument on the intervals given).
fn corners(points: [(i128, i128); 4], f: impl Fn(i128, i128) -> i128) -> (i128, i128) {
    let values = points.map(|(x, y)| f(x, y));
    (
        values.iter().copied().min().unwrap_or(OPEN_LO),
        values.iter().copied().max().unwrap_or(OPEN_HI),
    )
}

/// The values a variable holds when `while guard(v) { v = step(v) }` exits, starting from
/// each member of `init`: `guard` says whether the loop goes on for a value (`Sometimes`
/// when that depends on something unknown, such as `v < n` for a run-time `n`), `step` is
/// the body's effect on the variable (`None`: an overflow, a path that does not exit
/// normally).
///
/// `None` when `init` is not a finite set, or the loop visits more than [`MAX_LOOP_STEPS`]
/// values or exits with more than [`MAX_MEMBERS`] (an unbounded loop, as far as a reader
/// can tell).
pub fn loop_exits(
    init: &AbstractInt,
    mut guard: impl FnMut(i128) -> Truth,
    mut step: impl FnMut(i128) -> Option<i128>,
) -> Option<AbstractInt> {
    let mut pending: Vec<i128> = init.members()?.to_vec();
    let mut seen: Vec<i128> = Vec::new();
    let mut exits: Vec<i128> = Vec::new();
    while let Some(v) = pending.pop() {
        if seen.contains(&v) {
            continue;
        }
        seen.push(v);
        if seen.len() > MAX_LOOP_STEPS {
            return None;
        }
        let goes_on = guard(v);
        if goes_on != Truth::Always {
            exits.push(v);
            if exits.len() > MAX_MEMBERS {
                return None;
            }
        }
        if goes_on != Truth::Never
            && let Some(next) = step(v)
        {
            pending.push(next);
        }
    }
    AbstractInt::one_of(exits)
}

impl fmt::Debug for AbstractInt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// `128`, `[32, 64, 128]`, `0..=1023`, `>= 32`, `<= 7`, `unknown`.
impl fmt::Display for AbstractInt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (&self.0, self.bounds()) {
            (Repr::One(v), _) => write!(f, "{v}"),
            (Repr::Set(v), _) => {
                let items: Vec<String> = v.iter().map(i128::to_string).collect();
                write!(f, "[{}]", items.join(", "))
            }
            (_, (Some(lo), Some(hi))) => write!(f, "{lo}..={hi}"),
            (_, (Some(lo), None)) => write!(f, ">= {lo}"),
            (_, (None, Some(hi))) => write!(f, "<= {hi}"),
            (_, (None, None)) => f.write_str("unknown"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(v: &[i128]) -> AbstractInt {
        AbstractInt::one_of(v.iter().copied()).unwrap()
    }

    #[test]
    fn small_intervals_are_sets_and_large_sets_intervals() {
        assert_eq!(AbstractInt::range(Some(1), Some(3)), set(&[1, 2, 3]));
        assert_eq!(AbstractInt::range(Some(0), Some(1023)).members(), None);
        let many = AbstractInt::one_of(0..=64).unwrap();
        assert_eq!(many.bounds(), (Some(0), Some(64)));
        assert_eq!(many.members(), None);
        assert!(AbstractInt::one_of([]).is_none());
    }

    #[test]
    fn the_patterns_of_real_launches() {
        let usize_n = AbstractInt::range(Some(0), None);
        // `if n < 1024 { n.next_power_of_two() } else { 1024 }`
        let then = usize_n
            .refine(Comparison::Lt, &AbstractInt::known(1024))
            .unwrap()
            .next_power_of_two();
        let block = then.union(&AbstractInt::known(1024));
        assert_eq!(
            block.to_string(),
            "[1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024]"
        );
        // `ncols * 4` for a run-time `ncols`: no upper bound.
        let smem = usize_n.mul(&AbstractInt::known(4));
        assert_eq!(smem.bounds(), (Some(0), None));
        assert_eq!(smem.to_string(), ">= 0");
        // `(n + 255) / 256` for n in 1..=4096: 1..=16 blocks.
        let n = AbstractInt::range(Some(1), Some(4096));
        let grid = n
            .add(&AbstractInt::known(255))
            .div(&AbstractInt::known(256));
        assert_eq!(grid, AbstractInt::range(Some(1), Some(16)));
        assert_eq!(n.div_ceil(&AbstractInt::known(256)), grid);
        // `n < 1024 ? 32 : 1024` with n known to be 2000.
        assert_eq!(
            AbstractInt::known(2000).compare(Comparison::Lt, &AbstractInt::known(1024)),
            Truth::Never
        );
    }

    #[test]
    fn shifts_and_halving_loops() {
        let b = set(&[32, 64]).shl(&AbstractInt::known(1));
        assert_eq!(b, set(&[64, 128]));
        assert_eq!(
            AbstractInt::range(Some(0), Some(1000))
                .shr(&AbstractInt::known(2))
                .bounds(),
            (Some(0), Some(250))
        );
        // `int b = 1024; while (b > n) b /= 2;` for n >= 1: every power of two to 1024.
        let exits = loop_exits(
            &AbstractInt::known(1024),
            |b| {
                if b > 1 {
                    Truth::Sometimes
                } else {
                    Truth::Never
                }
            },
            |b| Some(b / 2),
        );
        assert_eq!(exits.unwrap().members().map(<[i128]>::len), Some(11));
        // A loop with no bound the reader can see.
        assert!(
            loop_exits(
                &AbstractInt::known(1),
                |_| Truth::Sometimes,
                |b| Some(b + 1)
            )
            .is_none()
        );
        // One that never stops: no exit at all.
        assert!(loop_exits(&AbstractInt::known(1), |_| Truth::Always, Some).is_none());
    }

    #[test]
    fn unsigned_wrap_around_and_bitwise_operations() {
        // `unsigned x = -1;`, `4294967296u`.
        assert_eq!(
            AbstractInt::known(-1).wrapping(32),
            AbstractInt::known(4294967295)
        );
        assert_eq!(set(&[1 << 32, 5]).wrapping(32), set(&[0, 5]));
        assert_eq!(
            AbstractInt::range(Some(-1), Some(10)).wrapping(32).bounds(),
            (Some(0), Some(4294967295))
        );
        assert_eq!(
            set(&[255, 256]).bitwise('&', &AbstractInt::known(0xf0)),
            set(&[0, 240])
        );
        let n = AbstractInt::range(Some(0), Some(1000));
        assert_eq!(
            n.bitwise('&', &AbstractInt::known(7)).bounds(),
            (Some(0), Some(7))
        );
        assert!(
            n.bitwise('^', &AbstractInt::range(Some(-5), Some(5)))
                .is_unknown()
        );
    }

    #[test]
    fn division_by_a_set_with_zero_skips_zero() {
        assert_eq!(set(&[12]).div(&set(&[0, 3, 4])), set(&[3, 4]));
        assert!(set(&[12]).div(&set(&[0])).is_unknown());
        assert_eq!(set(&[-7]).rem(&set(&[2])), set(&[-1]));
    }
}
