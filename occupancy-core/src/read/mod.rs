//! What both launch readers share, below their syntax (no syn, no tree-sitter): the set of
//! paths an interpreter follows and the budget that bounds its work. The Rust reader
//! (`occupancy-attr/src/reader/`) and the CUDA C++ reader (`occupancy-cuda/src/interp.rs`)
//! keep their own state per path (bindings, conditions, opt-ins) and hand it to these rules
//! through [`paths::PathState`], so that a path set is bounded, merged and folded one way.
//!
//! # How the readers keep their paths
//!
//! - **Fork.** A path splits where a condition is not decided (`if`, `match` / `switch`,
//!   `&&`, `? :`), and where a value of a finite set must be taken member by member: the
//!   Rust reader keeps such a set lazily as a `Val::Choice` and forks on it only where a
//!   condition or a second set needs one member (`fork_on`); the C++ reader splits a
//!   variable holding a finite set eagerly (`split`, one path per member), but only while
//!   [`paths::may_fork`] allows it (else the variable keeps its set, unsplit).
//! - **Refine.** Each side of a split is refined by what its condition says
//!   (`n < 1024` makes `n` at most 1023): [`refine::sides`] decides which ways a
//!   comparison goes and what each operand is on each (a way no value can take is no
//!   path); each reader decides the comparison with what it knows more (the Rust reader's
//!   same inputs, the C++ reader's values an `else` ruled out) and binds the narrowed
//!   values to its own variables (the Rust reader where the comparison is undecided, the
//!   C++ reader on every side).
//! - **Join.** After each statement (and each `match`, loop and operand sequence), the
//!   reader hands its paths to [`paths::settle`]: paths whose state is the same but for the
//!   conditions that led to them are merged ([`paths::PathState::absorb`]: what both
//!   decided, what either read), which loses nothing.
//! - **Overflow.** Past [`paths::MAX_PATHS`] distinct paths, the first ones are kept as
//!   they are and the rest are folded, each into one path of its flow (going on, returned,
//!   broken out of...) whose values are the union of theirs ([`paths::PathState::join`]).
//!   No path is dropped: a finished path (one that returned) is folded like the others, so
//!   its caller still sees every value it may return. A union of values chosen on
//!   different paths may pair one path's kernel with another's block, so a launch a fold
//!   makes is never checked: the C++ reader lists it as not checked with the
//!   [`paths::Overflow`]'s reason ("more than 64 paths meet here ..."), the Rust reader
//!   records no launch for it and reports the overflow as an error on the construct that
//!   split the paths (the attribute asks for the values instead). The C++ reader also keeps
//!   at most 64 launch paths per launch site ("more than 64 paths reach this launch: the
//!   rest are not checked").
//! - **Budget.** [`budget::Budget`]: the steps of evaluation one root (a wrapper, a C++
//!   launcher) may take; past it every further evaluation is unknown with the budget's
//!   reason. Each reader sets its own limit (200,000 in the proc macro, 128,000 for C++
//!   launchers); nesting and call depth stay per reader (they guard each one's stack).
//!
//! Before this module the readers disagreed: past 64 paths the Rust reader cut the outcomes
//! to 64 after its error (merging identical ones first); the C++ reader merged nothing,
//! joined every live path into one (crossing values chosen together with no note) and cut
//! the finished ones to 63 (a caller no longer saw what the others returned); it allowed a
//! `min` / `max` clamp split while one path more fitted (`alive + 1 <= 64`) but a set split
//! only while every path could split alike (`alive * members <= 64`), now both the latter;
//! each kept its own bound and step counter.

pub mod budget;
pub mod paths;
pub mod refine;
