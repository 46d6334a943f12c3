//! The path set's rules on toy readers (kept out of the published package: `include` in
//! Cargo.toml).

use super::*;

/// A path of a toy reader: a flow, a value per variable, the conditions taken, the
/// names read, and a mark.
#[derive(Clone, Debug, PartialEq)]
struct P {
    flow: u8,
    vals: Vec<Vec<i64>>,
    conds: Vec<&'static str>,
    reads: Vec<&'static str>,
    mark: Option<usize>,
    /// Its state key (0 unless a test sets one).
    key: u64,
}

fn p(flow: u8, vals: &[i64], conds: &[&'static str]) -> P {
    P {
        flow,
        vals: vals.iter().map(|v| vec![*v]).collect(),
        conds: conds.to_vec(),
        reads: Vec::new(),
        mark: None,
        key: 0,
    }
}

impl PathState for P {
    fn same_flow(&self, other: &P) -> bool {
        self.flow == other.flow
    }
    fn same_state(&self, other: &P) -> bool {
        self.flow == other.flow && self.vals == other.vals
    }
    fn state_key(&self) -> u64 {
        self.key
    }
    fn absorb(&mut self, other: P) {
        self.conds.retain(|c| other.conds.contains(c));
        for r in other.reads {
            if !self.reads.contains(&r) {
                self.reads.push(r);
            }
        }
    }
    fn folded(&self) -> bool {
        self.mark.is_some()
    }
    fn mark(&mut self, why: &Overflow) {
        self.mark = Some(why.paths);
    }
    fn join(&mut self, other: P) {
        for (a, b) in self.vals.iter_mut().zip(other.vals) {
            for v in b {
                if !a.contains(&v) {
                    a.push(v);
                }
            }
            a.sort();
        }
        self.conds.retain(|c| other.conds.contains(c));
    }
}

#[test]
fn paths_that_differ_only_in_their_conditions_merge_keeping_what_both_decided() {
    let mut a = p(0, &[32], &["n > 0", "m < 8"]);
    a.reads = vec!["n"];
    let mut b = p(0, &[32], &["n > 0", "m >= 8"]);
    b.reads = vec!["m"];
    let c = p(0, &[64], &["n <= 0"]);
    let s = settle(vec![a, c.clone(), b], MAX_PATHS);
    assert_eq!(s.overflow, None);
    assert_eq!(s.paths.len(), 2);
    assert_eq!(s.paths[0].conds, vec!["n > 0"]);
    assert_eq!(s.paths[0].reads, vec!["n", "m"]);
    assert_eq!(s.paths[1], c);
}

#[test]
fn only_paths_with_equal_keys_are_compared() {
    // Keys as a reader's: a digest of the values (10 for [32], 21 for [64]).
    let keyed = |vals: &[i64], cond: &'static str| P {
        key: vals.iter().map(|v| *v as u64 / 3).sum(),
        ..p(0, vals, &[cond])
    };
    let s = settle(
        vec![keyed(&[32], "a"), keyed(&[64], "b"), keyed(&[32], "c")],
        MAX_PATHS,
    );
    assert_eq!(s.paths.len(), 2);
    assert_eq!((s.paths[0].key, s.paths[1].key), (10, 21));
    assert!(s.paths[0].conds.is_empty());
    // A key that differs where the state does not (no reader's key may) keeps the
    // paths apart: the key is what settle asks first.
    let mut odd = keyed(&[32], "d");
    odd.key = 99;
    let s = settle(vec![keyed(&[32], "a"), odd], MAX_PATHS);
    assert_eq!(s.paths.len(), 2);
}

#[test]
fn the_same_values_on_another_flow_are_another_path() {
    let s = settle(vec![p(0, &[1], &[]), p(1, &[1], &[])], MAX_PATHS);
    assert_eq!(s.paths.len(), 2);
}

#[test]
fn at_the_bound_nothing_is_folded() {
    let paths: Vec<P> = (0..4).map(|i| p(0, &[i], &[])).collect();
    let s = settle(paths.clone(), 4);
    assert_eq!(s.overflow, None);
    assert_eq!(s.paths, paths);
}

#[test]
fn past_the_bound_the_first_are_kept_and_the_rest_folded_into_one_marked_path() {
    // 6 paths of one flow, bound 4: 3 kept exactly, paths 3, 4, 5 united in the fourth.
    let paths: Vec<P> = (0..6).map(|i| p(0, &[i, 10 * i], &[])).collect();
    let s = settle(paths, 4);
    assert_eq!(s.overflow, Some(Overflow { limit: 4, paths: 6 }));
    assert_eq!(s.paths.len(), 4);
    assert_eq!(
        s.paths[..3]
            .iter()
            .map(|q| q.vals[0][0])
            .collect::<Vec<_>>(),
        [0, 1, 2]
    );
    assert!(s.paths[..3].iter().all(|q| !q.folded()));
    let fold = &s.paths[3];
    assert_eq!(fold.mark, Some(6));
    // Values united, each variable on its own: (3, 30), (4, 40), (5, 50) now allow
    // (3, 50), which is why a launch of the fold is not checked.
    assert_eq!(fold.vals, vec![vec![3, 4, 5], vec![30, 40, 50]]);
}

#[test]
fn finished_paths_are_folded_by_their_flow_never_dropped() {
    // 3 live paths and 3 returned ones, bound 4: two folds (one per flow), so only two
    // paths are kept as they are.
    let paths = vec![
        p(0, &[1], &[]),
        p(0, &[2], &[]),
        p(1, &[3], &[]),
        p(0, &[4], &[]),
        p(1, &[5], &[]),
        p(1, &[6], &[]),
    ];
    let s = settle(paths, 4);
    assert!(s.overflow.is_some());
    let got: Vec<(u8, Vec<i64>, bool)> = s
        .paths
        .iter()
        .map(|q| (q.flow, q.vals[0].clone(), q.folded()))
        .collect();
    assert_eq!(
        got,
        vec![
            (0, vec![1], false),
            (0, vec![2], false),
            (1, vec![3, 5, 6], true),
            (0, vec![4], true),
        ]
    );
    // Every value handed in is still on some path.
    let mut all: Vec<i64> = s.paths.iter().flat_map(|q| q.vals[0].clone()).collect();
    all.sort();
    assert_eq!(all, [1, 2, 3, 4, 5, 6]);
}

#[test]
fn a_fold_is_merged_only_with_a_fold() {
    let mut folded = p(0, &[7], &[]);
    folded.mark = Some(70);
    let s = settle(vec![p(0, &[7], &[]), folded.clone()], MAX_PATHS);
    assert_eq!(s.paths.len(), 2);
    assert_eq!(s.paths[1], folded);
    let s = settle(vec![folded.clone(), folded.clone()], MAX_PATHS);
    assert_eq!(s.paths, vec![folded]);
}

#[test]
fn more_flows_than_the_bound_still_leaves_every_path_somewhere() {
    // Bound 1, two flows: nothing is kept as it is, one fold per flow (the bound is
    // exceeded by the folds, never by a path dropped).
    let s = settle(vec![p(0, &[1], &[]), p(1, &[2], &[]), p(0, &[3], &[])], 1);
    let got: Vec<(u8, Vec<i64>)> = s
        .paths
        .iter()
        .map(|q| (q.flow, q.vals[0].clone()))
        .collect();
    assert_eq!(got, vec![(0, vec![1, 3]), (1, vec![2])]);
    assert!(s.paths.iter().all(P::folded));
}

#[test]
fn merging_comes_before_the_bound() {
    // 100 paths with 3 states: no overflow.
    let paths: Vec<P> = (0..100).map(|i| p(0, &[i % 3], &[])).collect();
    let s = settle(paths, 4);
    assert_eq!(s.overflow, None);
    assert_eq!(
        s.paths.iter().map(|q| q.vals[0][0]).collect::<Vec<_>>(),
        [0, 1, 2]
    );
}

#[test]
fn a_split_fits_when_every_path_alive_could_split_alike() {
    assert!(may_fork(1, 64, MAX_PATHS));
    assert!(!may_fork(1, 65, MAX_PATHS));
    assert!(may_fork(32, 2, MAX_PATHS));
    assert!(!may_fork(33, 2, MAX_PATHS));
    assert!(!may_fork(32, 31, MAX_PATHS));
    // One way is no split; no path alive counts as one.
    assert!(may_fork(1000, 1, MAX_PATHS));
    assert!(may_fork(0, 64, MAX_PATHS));
}

/// A path of a toy reader that widens: a known value (which path it is) and the range
/// of one input, `(lo, hi)`; paths of the same known value widen into one.
#[derive(Clone, Debug, PartialEq)]
struct W {
    known: i64,
    range: (i64, i64),
    mark: bool,
}

impl PathState for W {
    fn same_flow(&self, _: &W) -> bool {
        true
    }
    fn same_state(&self, other: &W) -> bool {
        self.known == other.known && self.range == other.range
    }
    fn absorb(&mut self, _: W) {}
    fn widens_to(&self, other: &W) -> bool {
        self.known == other.known
    }
    fn widen(&mut self, other: W) {
        self.range = (
            self.range.0.min(other.range.0),
            self.range.1.max(other.range.1),
        );
    }
    fn folded(&self) -> bool {
        self.mark
    }
    fn mark(&mut self, _: &Overflow) {
        self.mark = true;
    }
    fn join(&mut self, other: W) {
        self.known = self.known.min(other.known);
        self.widen(other);
    }
}

#[test]
fn past_the_bound_paths_that_differ_only_in_ranges_widen_before_any_fold() {
    let w = |known, lo, hi| W {
        known,
        range: (lo, hi),
        mark: false,
    };
    // Within the bound nothing widens: each range stays its path's.
    let within = settle(vec![w(8, 9, 16), w(8, 17, 24)], 2);
    assert_eq!(within.paths, vec![w(8, 9, 16), w(8, 17, 24)]);
    // Past it, the two paths of 8 widen into one (9..=24), the third is kept: no fold.
    let past = settle(vec![w(8, 9, 16), w(16, 1, 8), w(8, 17, 24)], 2);
    assert_eq!(past.paths, vec![w(8, 9, 24), w(16, 1, 8)]);
    assert_eq!(past.overflow, None);
    // Three known values past a bound of 2: widening leaves three, so the last is folded.
    let folded = settle(vec![w(8, 9, 16), w(16, 1, 8), w(24, 0, 0)], 2);
    assert_eq!(folded.paths.len(), 2);
    assert!(folded.paths[1].mark);
    assert!(folded.overflow.is_some());
}
