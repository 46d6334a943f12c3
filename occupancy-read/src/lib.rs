//! The launch reading core: the IR a front end lowers launch code to ([`ir`]), the abstract
//! values the reader computes ([`value`]), and the path-sensitive interpreter that runs the
//! IR and records the launches each path makes ([`interp`]), asking the front end about
//! names through [`names::Names`]; [`launches`] is the one launch record both readers check
//! from and the enumeration of a path's record into launches; [`apis`] is the one table of
//! the cudarc and cust launch and loader APIs.
//!
//! ```text
//! front end (syn: occupancy-attr) ──lowers──▶ ir ──interp (value, names::Names)──▶ records per path
//!     ──launches──▶ Launch per launch the code can make ◀── the C++ reader's paths (LaunchPath::record)
//! ```
//!
//! Nothing here parses: no syn, no tree-sitter. Paths are bounded by the
//! rules of `occupancy_core::read` (merged, at most 64, the rest folded, none dropped) and
//! by its step budget. The plan to bring the CUDA C++ reader onto this core is in the
//! repository's `docs/READING-CORE.md`.
#![deny(missing_docs)]

pub mod apis;
pub mod interp;
pub mod ir;
pub mod launches;
pub mod names;
pub mod shared;
pub mod value;
