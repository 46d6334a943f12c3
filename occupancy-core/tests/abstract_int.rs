//! Soundness of the launch readers' abstract integers (`occupancy_core::abstract_int`):
//! for random abstract values and random members of them, every concrete result of an
//! operation is a member of the abstract result, a refinement keeps every member for which
//! the condition holds, and a comparison that says `Always` / `Never` is right for every
//! pair.

use occupancy_core::abstract_int::{AbstractInt, Comparison, Truth, loop_exits};
use proptest::prelude::*;

/// An abstract value and a few of its members: a small set, or an interval (bounded or
/// open on a side) sampled at its ends and inside.
fn value() -> impl Strategy<Value = (AbstractInt, Vec<i128>)> {
    let set = prop::collection::vec(-5000i128..5000, 1..12).prop_map(|v| {
        let a = AbstractInt::one_of(v.iter().copied()).unwrap();
        (a, v)
    });
    let range = (
        -100_000i128..100_000,
        0i128..1_000_000,
        any::<bool>(),
        any::<bool>(),
        prop::collection::vec(0i128..1_000_000, 1..6),
    )
        .prop_map(|(lo, width, open_lo, open_hi, picks)| {
            let hi = lo + width;
            let a = AbstractInt::range((!open_lo).then_some(lo), (!open_hi).then_some(hi));
            let mut members: Vec<i128> = picks.iter().map(|p| lo + p % (width + 1)).collect();
            members.push(lo);
            members.push(hi);
            if open_lo {
                members.push(lo - 7_777_777);
            }
            if open_hi {
                members.push(hi + 7_777_777);
            }
            (a, members)
        });
    prop_oneof![set, range]
}

fn comparison() -> impl Strategy<Value = Comparison> {
    prop_oneof![
        Just(Comparison::Lt),
        Just(Comparison::Le),
        Just(Comparison::Gt),
        Just(Comparison::Ge),
        Just(Comparison::Eq),
        Just(Comparison::Ne),
    ]
}

type Op = (
    &'static str,
    fn(&AbstractInt, &AbstractInt) -> AbstractInt,
    fn(i128, i128) -> Option<i128>,
);

const OPS: &[Op] = &[
    ("add", AbstractInt::add, i128::checked_add),
    ("sub", AbstractInt::sub, i128::checked_sub),
    ("mul", AbstractInt::mul, i128::checked_mul),
    ("div", AbstractInt::div, i128::checked_div),
    ("rem", AbstractInt::rem, i128::checked_rem),
    ("min", AbstractInt::min, |x, y| Some(x.min(y))),
    ("max", AbstractInt::max, |x, y| Some(x.max(y))),
    ("div_ceil", AbstractInt::div_ceil, |x, y| {
        (x >= 0 && y > 0).then(|| x / y + i128::from(x % y != 0))
    }),
    ("shl", AbstractInt::shl, |x, s| {
        (0..=126)
            .contains(&s)
            .then(|| x.checked_mul(1 << s))
            .flatten()
    }),
    ("shr", AbstractInt::shr, |x, s| {
        (0..=126).contains(&s).then(|| x >> s)
    }),
    ("and", |a, b| a.bitwise('&', b), |x, y| Some(x & y)),
    ("or", |a, b| a.bitwise('|', b), |x, y| Some(x | y)),
    ("xor", |a, b| a.bitwise('^', b), |x, y| Some(x ^ y)),
];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(4000))]

    #[test]
    fn operations_contain_every_concrete_result((a, xs) in value(), (b, ys) in value()) {
        for (name, abstract_op, concrete) in OPS {
            let r = abstract_op(&a, &b);
            for x in &xs {
                for y in &ys {
                    if let Some(z) = concrete(*x, *y) {
                        prop_assert!(r.contains(z), "{name}: {x} op {y} = {z} not in {a} op {b} = {r}");
                    }
                }
            }
        }
        let (n, neg, union) = (a.next_power_of_two(), a.neg(), a.union(&b));
        for x in &xs {
            if (0..1i128 << 100).contains(x) {
                let p = (*x.max(&1) as u128).next_power_of_two() as i128;
                prop_assert!(n.contains(p), "next_power_of_two({x}) = {p} not in {n}");
            }
            prop_assert!(neg.contains(-x));
            prop_assert!(union.contains(*x));
        }
        for y in &ys {
            prop_assert!(union.contains(*y));
        }
        for bits in [8u32, 32, 64] {
            let wrapped = a.wrapping(bits);
            for x in &xs {
                let w = x.rem_euclid(1i128 << bits);
                prop_assert!(wrapped.contains(w), "{x} mod 2^{bits} = {w} not in {wrapped}");
            }
        }
    }

    #[test]
    fn refinements_and_comparisons_are_sound((a, xs) in value(), (b, ys) in value(), op in comparison()) {
        let refined = a.refine(op, &b);
        let truth = a.compare(op, &b);
        // Members of `a` next to members of `b`, where a refinement's bound lies.
        let near = ys.iter().flat_map(|y| [y - 1, *y, y + 1]).filter(|x| a.contains(*x));
        let xs: Vec<i128> = xs.iter().copied().chain(near).collect();
        for x in &xs {
            for y in &ys {
                let holds = op.holds(*x, *y);
                if holds {
                    prop_assert!(refined.as_ref().is_some_and(|r| r.contains(*x)),
                        "{x} {op:?} {y} holds, but {x} is not in {a} refined: {refined:?}");
                }
                match truth {
                    Truth::Always => prop_assert!(holds, "{a} {op:?} {b} said always; {x}, {y}"),
                    Truth::Never => prop_assert!(!holds, "{a} {op:?} {b} said never; {x}, {y}"),
                    Truth::Sometimes => {}
                }
            }
        }
    }

    #[test]
    fn loop_exits_are_every_value_a_loop_can_stop_at(start in 1i128..64, limit in 1i128..5000, factor in 2i128..4) {
        // `v = start; while v < n && v < limit { v *= factor }` for any n: it stops at each
        // value it reaches.
        let exits = loop_exits(
            &AbstractInt::known(start),
            |v| if v < limit { Truth::Sometimes } else { Truth::Never },
            |v| v.checked_mul(factor),
        ).unwrap();
        for n in 0..6000 {
            let mut v = start;
            while v < n && v < limit {
                v *= factor;
            }
            prop_assert!(exits.contains(v), "n = {n}: stops at {v}, not in {exits}");
        }
    }
}

#[test]
fn display_says_what_is_known() {
    assert_eq!(AbstractInt::known(128).to_string(), "128");
    assert_eq!(
        AbstractInt::one_of([64, 32, 128, 64]).unwrap().to_string(),
        "[32, 64, 128]"
    );
    assert_eq!(
        AbstractInt::range(Some(0), Some(1023)).to_string(),
        "0..=1023"
    );
    assert_eq!(AbstractInt::range(Some(32), None).to_string(), ">= 32");
    assert_eq!(AbstractInt::unknown().to_string(), "unknown");
}
