//! The front end of `#[occupancy::check(...)]`: the attribute's tokens, the launch wrapper's
//! signature and the crate's environment in, a checked [`Spec`] (or every problem, each on
//! its token) out; then [`Spec::evaluate`] runs the lints of
//! [`occupancy_core::lint`] on every target.
//!
//! One entry point, [`parse`], serves every front end: the proc macro (`occupancy-macros`,
//! which turns the result into warnings and errors), `cargo occupancy report` (which parses
//! every wrapper of a crate with `syn` and prints a table), and fuzzers. It never panics on
//! any input and does no I/O beyond reading the files the attribute and the policy name.
//!
//! Stages, one file each, data flowing one way:
//!
//! 1. `attr.rs`: tokens -> the arguments as written (`ast.rs`), every syntax error collected;
//! 2. `policy.rs`: the crate's `occupancy.toml` (or `$OCCUPANCY_POLICY`);
//! 3. `artifact.rs`: the kernel's resources per target, from the resource manifest, a cubin
//!    or a fatbin;
//! 4. `valid.rs`: arguments + policy + resources -> [`Spec`], with every value checked;
//! 5. `eval.rs`: [`Spec`] -> [`Evaluation`] (engine results and lint findings per target).
//!
//! ```
//! use occupancy_attr::{Env, parse};
//! use quote::quote;
//!
//! let func: syn::ItemFn = syn::parse_quote!(fn launch_sgemm() {});
//! let env = Env::default(); // no crate directory: built-in policy, no manifest
//! let spec = parse(
//!     quote!(block = (16, 16), regs = 96, target = "sm_90"),
//!     &func.sig,
//!     proc_macro2::Span::call_site(),
//!     &env,
//! )
//! .unwrap();
//! let evaluation = spec.evaluate().unwrap();
//! assert_eq!(evaluation.findings[0].message,
//!     "launch_sgemm on sm_90: 25% occupancy (16 of 64 warps), below the 50% floor");
//! ```
#![deny(missing_docs)]

use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};

use occupancy_core::policy::Policy;
use proc_macro2::{Span, TokenStream};
use syn::Signature;

mod artifact;
mod ast;
mod attr;
mod errors;
mod eval;
mod limits;
mod memo;
mod policy;
mod read;
mod spec;
mod valid;

pub use ast::Value;
pub use attr::KEYS;
pub use eval::{Evaluation, TargetEvaluation};
pub use spec::{ManifestOrigin, Source, SourceKind, Spec, TargetSpec};

use errors::Errors;

/// The environment variable the build helper (`occupancy_core::build`) sets for the crate
/// being compiled, through `cargo:rustc-env`: the absolute path of the resource manifest in
/// effect. `kernel = "name"` reads it first.
pub const MANIFEST_VAR: &str = "OCCUPANCY_MANIFEST";

/// `$OUT_DIR/occupancy/manifest.json`: where the build helper writes the manifest; read when
/// [`MANIFEST_VAR`] is not set but the crate has a build script (`OUT_DIR` is set).
pub const OUT_DIR_MANIFEST: &str = "occupancy/manifest.json";

/// What the front end may read besides the tokens: the crate's directory and a few
/// environment variables. The proc macro takes them from its process
/// ([`Env::from_process`]); `cargo occupancy report` and tests build one.
#[derive(Clone, Debug, Default)]
pub struct Env {
    /// The crate's directory (`CARGO_MANIFEST_DIR`), against which every relative path is
    /// resolved and where `occupancy.toml` and `kernels.manifest.json` are looked for.
    /// `None`: no policy file, no committed manifest, relative paths stay relative.
    pub crate_dir: Option<PathBuf>,
    vars: Vec<(String, OsString)>,
}

impl Env {
    /// The variables the front end reads: `OCCUPANCY_POLICY`, `OCCUPANCY_MANIFEST`, `OUT_DIR`.
    pub const VARS: &'static [&'static str] = &[Policy::ENV_VAR, MANIFEST_VAR, "OUT_DIR"];

    /// The environment of the running process: `CARGO_MANIFEST_DIR` and [`Env::VARS`] (what
    /// cargo gives rustc, and so the proc macro).
    pub fn from_process() -> Env {
        let mut env = Env {
            crate_dir: std::env::var_os("CARGO_MANIFEST_DIR").map(PathBuf::from),
            vars: Vec::new(),
        };
        for name in Env::VARS {
            if let Some(value) = std::env::var_os(name) {
                env = env.with_var(name, value);
            }
        }
        env
    }

    /// An environment for the crate in `crate_dir`, with no variables set.
    pub fn new(crate_dir: impl Into<PathBuf>) -> Env {
        Env {
            crate_dir: Some(crate_dir.into()),
            vars: Vec::new(),
        }
    }

    /// The same environment with `name` set to `value` (replacing an earlier value).
    pub fn with_var(mut self, name: &str, value: impl Into<OsString>) -> Env {
        self.vars.retain(|(n, _)| n != name);
        self.vars.push((name.to_owned(), value.into()));
        self
    }

    /// The value of `name`, if set.
    pub fn var(&self, name: &str) -> Option<&OsStr> {
        self.vars
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_os_str())
    }

    /// `path` resolved against the crate's directory when relative.
    pub fn resolve(&self, path: impl AsRef<Path>) -> PathBuf {
        let path = path.as_ref();
        match &self.crate_dir {
            Some(dir) if path.is_relative() => dir.join(path),
            _ => path.to_path_buf(),
        }
    }
}

/// Checks the tokens of the item the attribute is on (the launch wrapper: signature and
/// body) against the limits on nesting, size and operator chains that keep `syn` (whose
/// parser, `Clone` and `Drop` recurse) within the proc macro's stack; call it before any
/// `syn` parse of the item. Iterative: any input is safe to give it.
///
/// # Errors
///
/// On the first group nested more than 64 levels deep, the first token past 100,000, or
/// the first token of an expression or type chained too deeply to parse within the stack
/// (a 100,000-term sum, `- - - x` 1,000 times).
pub fn check_item_limits(item: &TokenStream) -> Result<(), syn::Error> {
    limits::Limits::BODY.check(item, "the launch wrapper")
}

/// [`check_item_limits`] for one source file of the crate (`file` names it in the message),
/// with the limits of a whole file (2 M tokens).
///
/// # Errors
///
/// As [`check_item_limits`].
pub fn check_source_limits(tokens: &TokenStream, file: &str) -> Result<(), syn::Error> {
    limits::Limits::SOURCE_FILE.check(tokens, file)
}

/// Parses and checks the arguments of one `#[occupancy::check(...)]`: `args` are the tokens
/// inside the parentheses, `sig` the signature of the function it is on (its name is the
/// wrapper's name in messages), `attribute` the span of the attribute (for problems with no
/// token of their own, such as a missing key), `env` the crate's directory and variables.
///
/// Reads the policy file, and the resource manifest, cubin or fatbin the attribute names.
///
/// # Errors
///
/// Every problem found, combined (`syn::Error` iterates over them), each on the span of the
/// token that caused it: malformed or unknown keys (with "did you mean"), values out of
/// range, unknown targets, lints or kernel classes, an unreadable or malformed policy file,
/// manifest, cubin or fatbin, a kernel that is not there, a target with no cubin that runs
/// on it, a cluster on a target without clusters.
pub fn parse(
    args: TokenStream,
    sig: &Signature,
    attribute: Span,
    env: &Env,
) -> Result<Spec, syn::Error> {
    let mut errors = Errors::default();
    let args = attr::parse(args, &mut errors);
    let spec = match policy::load(env, attribute) {
        Ok(loaded) => valid::validate(args, &loaded, env, &sig.ident, attribute)
            .map_err(|e| errors.push(e))
            .ok(),
        Err(e) => {
            errors.push(e);
            None
        }
    };
    match (errors.finish(()), spec) {
        (Ok(()), Some(spec)) => Ok(spec),
        (Err(e), _) => Err(e),
        // Every `None` above comes with an error; this arm only keeps the function total.
        (Ok(()), None) => Err(syn::Error::new(attribute, "invalid #[occupancy::check]")),
    }
}
