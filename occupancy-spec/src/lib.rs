//! What both front ends of `occupancy` produce and what is done with it: the checked launch
//! description ([`Spec`]), its evaluation by the engine and every lint of
//! [`occupancy_core::lint`] ([`Spec::evaluate`]), the kernels' resources it is checked with
//! (`artifact`: the resource manifest, a cubin or a fatbin), and the policy and environment
//! it is read under ([`Env`], [`load_policy`]).
//!
//! The front ends sit above it and only lower their syntax to it: `occupancy-attr` parses
//! `#[occupancy::check(...)]` and reads the wrapper's body with `syn` into a [`Spec`] whose
//! locations are token spans; `occupancy-cuda` reads CUDA C++ host launches with tree-sitter
//! into [`ExternalLaunch`]es, whose locations are a `.cu` file and line ([`Location`]). So
//! this crate has no parser: no `syn`, no tree-sitter; `proc-macro2` only for the spans and
//! token streams the Rust front end hands down.
//!
//! Modules, data flowing one way:
//!
//! 1. `env.rs` ([`Env`]) and `read.rs`: what may be read, within the crate (the containment
//!    rule); `memo.rs`: a parse reused while a file's text is unchanged;
//! 2. [`policy`]: the crate's `occupancy.toml` (or `$OCCUPANCY_POLICY`);
//! 3. [`artifact`]: the kernels' resources per target, from the resource manifest, a cubin
//!    or a fatbin (one kernel, a list, or a glob);
//! 4. `spec.rs`: [`Spec`], [`Plan`] (one per launch a path makes), [`KernelSpec`], and
//!    [`Spec::external`] for a launch read outside an attribute;
//! 5. `eval.rs`: [`Spec`] -> [`Evaluation`] (engine results per plan, kernel and target;
//!    diagnostics grouped over a family's kernels and over targets with the same result).
//!
//! ```
//! use occupancy_core::arch::Target;
//! use occupancy_core::policy::Policy;
//! use occupancy_spec::{ExternalLaunch, Location, Plan, Spec};
//!
//! let at = Location::File { path: "src/cuda/softmax.cu".into(), line: 12, column: None };
//! let launch = ExternalLaunch {
//!     name: "launch_softmax".into(),
//!     location: at.clone(),
//!     plans: vec![Plan::known([1024, 1, 1], 0, None, None, at)],
//!     kernels: Vec::new(), // no compiled kernel: the engine's defaults
//!     targets: vec![Target::parse("sm_90").unwrap()],
//!     opt_in_bytes: None,
//!     cluster: None,
//!     source: None,
//!     tracked_files: Vec::new(),
//!     targets_from_build: false,
//! };
//! let spec = Spec::external(launch, &Policy::default());
//! let evaluation = spec.evaluate().unwrap();
//! assert_eq!(evaluation.cases[0].targets[0].occupancy.as_ref().unwrap().percent(), 100.0);
//! ```
#![deny(missing_docs)]

use std::path::PathBuf;

use occupancy_core::policy::Policy;

pub mod artifact;
mod env;
mod eval;
mod location;
mod memo;
pub mod policy;
pub mod problems;
mod read;
mod spec;
mod value;

pub use env::{Env, MANIFEST_VAR, OUT_DIR_MANIFEST, TARGETS_VAR};
pub use eval::{Case, Diagnostic, Evaluation, Grouping, TargetEvaluation};
pub use location::Location;
pub use spec::{
    Confirmation, ExternalLaunch, HelperCheck, KernelSpec, ManifestOrigin, Plan, Source,
    SourceKind, Spec, TargetSpec, TargetsOrigin, kernel_matches,
};
pub use value::Value;

/// The policy in effect for the crate `env` describes, as the attribute reads it
/// (`$OCCUPANCY_POLICY`, else `occupancy.toml` beside `Cargo.toml`, else the defaults), and
/// the file read (`None`: the defaults).
///
/// # Errors
///
/// The problems of an unreadable or malformed file, one per line (`path:line:column:
/// message`; past [`problems::MAX_PER_KIND`] of a kind, a count), then a line saying how
/// many there are and what fails until they are fixed, in the words of `reader`
/// ([`policy::LoadError::message`]).
pub fn load_policy(env: &Env, reader: policy::Reader) -> Result<(Policy, Option<PathBuf>), String> {
    policy::load(env)
        .map(|loaded| (loaded.policy, loaded.file))
        .map_err(|e| e.message(reader))
}
