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
mod tests;
