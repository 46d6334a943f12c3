//! The path set of a reader: how many paths it follows, which ones merge, and what happens
//! past the bound (the rules are in the [module docs of `read`](super)).
//!
//! A reader's path (its bindings, conditions, opt-ins, how control leaves it) implements
//! [`PathState`]; [`settle`] bounds a set of them after each construct, and [`may_fork`]
//! says whether a split that the reader may leave undone fits in the bound.

use std::fmt;

/// The most distinct paths a reader follows at once (and, in the C++ reader, keeps per
/// launch site). Equal to [`crate::abstract_int::MAX_MEMBERS`]: a set of values becomes at
/// most this many paths.
pub const MAX_PATHS: usize = 64;

/// One path of a reader, as far as the path set's rules need to know it.
pub trait PathState: Sized {
    /// Whether `self` and `other` leave the construct the same way (both go on, both
    /// return, both break out of a loop...): only such paths are merged or folded together.
    fn same_flow(&self, other: &Self) -> bool;

    /// Whether `self` and `other` hold the same state (same flow, same values, same
    /// opt-ins) and differ at most in the conditions that led to them: one path stands for
    /// both without losing anything.
    fn same_state(&self, other: &Self) -> bool;

    /// A summary of what [`PathState::same_state`] compares: paths of the same state have
    /// the same key, so [`settle`] compares only paths whose keys are equal (each path's
    /// key is taken once, where comparing every pair of 64 paths variable by variable took
    /// more than half of a slow read's time). The default, 0 for every path, compares all.
    fn state_key(&self) -> u64 {
        0
    }

    /// Merges `other`, of the [same state](PathState::same_state), into `self`: the
    /// conditions both decided, the names either read.
    fn absorb(&mut self, other: Self);

    /// Whether `self` and `other` (neither folded) hold the same state except for what
    /// they know of some run-time values (the ranges the conditions each took narrowed an
    /// input to): one path holding the union of each such value stands for both, its
    /// launches still checked. The default: never.
    fn widens_to(&self, _other: &Self) -> bool {
        false
    }

    /// Merges `other`, which `self` [widens to](PathState::widens_to), into `self`: each
    /// value the union of both, the conditions both decided, the names either read.
    fn widen(&mut self, other: Self) {
        self.absorb(other);
    }

    /// Whether this path is a fold of several ([`PathState::mark`]): a launch it makes is
    /// not checked.
    fn folded(&self) -> bool;

    /// Marks this path as the fold of the paths past the bound, for the reason `why`.
    fn mark(&mut self, why: &Overflow);

    /// Folds `other` (of the [same flow](PathState::same_flow)) into `self`, a marked path:
    /// each value is the union of both (a value one of them lacks is unknown), the
    /// conditions those both decided; `self` stays marked.
    fn join(&mut self, other: Self);
}

/// More distinct paths met at one construct than the bound allows.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Overflow {
    /// The bound ([`MAX_PATHS`] for both readers).
    pub limit: usize,
    /// How many paths were handed to [`settle`] (before merging).
    pub paths: usize,
}

impl fmt::Display for Overflow {
    /// "more than 64 paths meet here (80 before merging): the values of those past the
    /// 64th are united, so a launch they make is not checked".
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "more than {limit} paths meet here ({paths} before merging): the values of those \
             past the {limit}th are united, so a launch they make is not checked",
            limit = self.limit,
            paths = self.paths
        )
    }
}

/// A path set after [`settle`].
#[derive(Debug)]
pub struct Settled<S> {
    /// At most the bound given to [`settle`], in the order they came: merged paths where
    /// the first of them was, the folds last.
    pub paths: Vec<S>,
    /// Set when paths past the bound were folded.
    pub overflow: Option<Overflow>,
}

/// Bounds `paths` to `limit` (at least 1; [`MAX_PATHS`] for both readers):
///
/// 1. a path of the [same state](PathState::same_state) as an earlier one (and folded
///    alike) is [absorbed](PathState::absorb) into it: nothing is lost;
/// 2. past `limit` distinct paths, paths that differ only in what they know of run-time
///    values are [widened](PathState::widen) into one, in the order they came (a loop run iteration by iteration whose every test of
///    an input narrows it two ways: what the launch reads stays exact, the input's range
///    is the union of the ranges);
/// 3. past `limit` distinct paths still, the first ones are kept as they are and the
///    others are folded, one fold per [flow](PathState::same_flow) (going on, returned, ...), the
///    fold [marked](PathState::mark) with the [`Overflow`]; as many of the first are kept
///    as leave room for the folds. No path is dropped: every one is kept, absorbed or
///    folded.
///
/// Comparisons are at most `paths.len() × limit`: past the bound, a path is compared only
/// with the kept ones.
pub fn settle<S: PathState>(paths: Vec<S>, limit: usize) -> Settled<S> {
    let limit = limit.max(1);
    let handed = paths.len();
    let mut kept: Vec<S> = Vec::with_capacity(handed.min(limit));
    // The state key of each kept path (absorbing a path of the same state keeps it).
    let mut keys: Vec<u64> = Vec::with_capacity(handed.min(limit));
    let mut rest: Vec<S> = Vec::new();
    for p in paths {
        let key = p.state_key();
        match kept
            .iter()
            .zip(&keys)
            .position(|(q, &k)| k == key && q.folded() == p.folded() && q.same_state(&p))
        {
            Some(i) => kept[i].absorb(p),
            None if kept.len() < limit => {
                kept.push(p);
                keys.push(key);
            }
            None => rest.push(p),
        }
    }
    if !rest.is_empty() {
        (kept, rest) = widened(kept, rest, limit);
    }
    if rest.is_empty() {
        return Settled {
            paths: kept,
            overflow: None,
        };
    }
    let overflow = Overflow {
        limit,
        paths: handed,
    };
    // Room for one fold per flow among the paths folded.
    let mut folded = rest;
    while !kept.is_empty() && kept.len() + flows(&folded) > limit {
        if let Some(last) = kept.pop() {
            folded.insert(0, last);
        }
    }
    let mut folds: Vec<S> = Vec::new();
    for p in folded {
        match folds.iter_mut().find(|f| f.same_flow(&p)) {
            Some(f) => f.join(p),
            None => {
                let mut p = p;
                p.mark(&overflow);
                folds.push(p);
            }
        }
    }
    kept.append(&mut folds);
    Settled {
        paths: kept,
        overflow: Some(overflow),
    }
}

/// `kept` (at `limit`) and the `rest` past it after widening: each path, in order, is
/// widened into the first earlier one it [widens to](PathState::widens_to); the first
/// `limit` of those left are kept. Comparisons are at most `(kept + rest) × (kept + rest)`.
fn widened<S: PathState>(kept: Vec<S>, rest: Vec<S>, limit: usize) -> (Vec<S>, Vec<S>) {
    let mut all: Vec<S> = Vec::with_capacity(kept.len() + rest.len());
    for p in kept.into_iter().chain(rest) {
        match all
            .iter()
            .position(|q| !q.folded() && !p.folded() && q.widens_to(&p))
        {
            Some(i) => all[i].widen(p),
            None => all.push(p),
        }
    }
    let rest = all.split_off(all.len().min(limit));
    (all, rest)
}

/// How many flows (classes of [`PathState::same_flow`]) `paths` hold.
fn flows<S: PathState>(paths: &[S]) -> usize {
    let mut firsts: Vec<&S> = Vec::new();
    for p in paths {
        if !firsts.iter().any(|f| f.same_flow(p)) {
            firsts.push(p);
        }
    }
    firsts.len()
}

/// Whether one of `alive` paths may split into `ways` paths (one per member of a finite
/// set) within `limit`, counting every path alive as splitting alike: `alive × ways ≤
/// limit`. A split a reader may leave undone (a variable that keeps its set instead) is
/// made only then; a split it must make (a condition not decided) is bounded by
/// [`settle`].
pub fn may_fork(alive: usize, ways: usize, limit: usize) -> bool {
    ways < 2 || alive.max(1).saturating_mul(ways) <= limit
}

#[cfg(test)]
mod tests {
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
}
