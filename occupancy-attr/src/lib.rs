//! The front end of `#[occupancy::check(...)]`: the attribute's tokens, the launch
//! wrapper (signature and body) and the crate's environment in, a checked [`Spec`] (or every
//! problem, each on its token) out; then [`Spec::evaluate`] runs the lints of
//! [`occupancy_core::lint`] on every launch, kernel and target.
//!
//! One entry point, [`parse`], serves every front end: the proc macro (`occupancy-macros`,
//! which turns the result into warnings, errors and compile-time confirmations), `cargo
//! occupancy report` (which parses every wrapper of a crate with `syn` and prints a table),
//! and fuzzers. It never panics on any input and does no I/O beyond reading the files the
//! attribute and the policy name and the crate's own sources.
//!
//! What the spec is, its evaluation, the kernels' resources and the policy are below this
//! crate, in `occupancy-spec` (shared with the CUDA C++ reader, `occupancy-cuda`), and
//! re-exported here: [`Spec`], [`Plan`], [`Evaluation`], [`Env`], [`load_policy`]. This
//! crate lowers the attribute and the Rust body to them.
//!
//! Stages, one file each, data flowing one way:
//!
//! 1. `attr.rs`: tokens -> the arguments as written (`ast.rs`), every syntax error collected
//!    (after the nesting limits of `limits.rs`);
//! 2. `policy.rs`: the crate's `occupancy.toml` (or `$OCCUPANCY_POLICY`), read by
//!    `occupancy_spec::policy`, its problems as errors on the attribute;
//! 3. `source.rs`: the crate's sources as an index (modules, constants, functions, impls,
//!    imports), each file parsed once per compilation (a function's body only when the
//!    reader first runs the function);
//! 4. `reader/`: the launches the wrapper's body makes, one per path through it: the body
//!    lowered to `occupancy-read`'s IR (`reader/ir.rs`) and run by its interpreter
//!    (`occupancy_read::interp`) into the helpers and `const fn`s it calls and the
//!    constants it names (`reader/names.rs`: name resolution in the crate's sources, as
//!    `occupancy_read::names::Names`), with an explicit abstract value
//!    (`occupancy_read::value`: known integers, finite sets, intervals, tuples,
//!    configurations, kernels) and a term the compiler confirms for every value read from
//!    a name;
//! 5. `artifact.rs`: the kernels' resources per target, from the resource manifest, a cubin
//!    or a fatbin (one kernel, a list, or a glob), found by `occupancy_spec::artifact`;
//! 6. `valid.rs` (in stages) and `plans.rs`: arguments + policy + body + resources ->
//!    [`Spec`], with every value checked, drift between the attribute and the body an error,
//!    one [`Plan`] per launch the code can make and run-time candidate;
//! 7. `occupancy-spec`'s `eval.rs`: [`Spec`] -> [`Evaluation`] (engine results per plan, kernel and target;
//!    diagnostics grouped over a family's kernels and over targets with the same result).
//!
//! ```
//! use occupancy_attr::{Env, Wrapper, parse};
//! use quote::quote;
//!
//! let func: syn::ItemFn = syn::parse_quote!(fn launch_sgemm() {
//!     let cfg = LaunchConfig { grid_dim: (64, 64, 1), block_dim: (16, 16, 1), shared_mem_bytes: 0 };
//!     launch(cfg);
//! });
//! let env = Env::default(); // no crate directory: built-in policy, no manifest
//! let spec = parse(
//!     quote!(regs = 96, target = "sm_90"),
//!     &Wrapper::new(&func.sig, &func.block),
//!     proc_macro2::Span::call_site(),
//!     &env,
//! )
//! .unwrap();
//! let evaluation = spec.evaluate().unwrap();
//! assert_eq!(evaluation.diagnostics[0].finding.message,
//!     "launch_sgemm on sm_90: 25% occupancy (16 of 64 warps), below the 50% floor");
//! ```
#![deny(missing_docs)]

extern crate proc_macro;

use proc_macro2::{Span, TokenStream};
use syn::{Block, Signature};

pub use occupancy_read::apis;
mod artifact;
mod ast;
mod attr;
mod errors;
mod limits;
mod plans;
mod policy;
mod reader;
mod source;
mod split;
mod valid;

/// The spec and what is done with it live below the front ends, in `occupancy-spec`; the
/// stages here name them as before.
use occupancy_spec as spec;

pub use attr::KEYS;
pub use occupancy_read::ir::{Filled, Placeholder, fill_format};
pub use occupancy_spec::artifact::{glob_match, is_glob};
/// What reads the policy, for [`load_policy`]'s message (`occupancy_spec::policy::Reader`).
pub use occupancy_spec::policy::Reader as PolicyReader;
pub use occupancy_spec::{
    Case, Confirmation, Diagnostic, Env, Evaluation, ExternalLaunch, Grouping, HelperCheck,
    KernelSpec, Location, MANIFEST_VAR, ManifestOrigin, OUT_DIR_MANIFEST, Plan, Source, SourceKind,
    Spec, TARGETS_VAR, TargetEvaluation, TargetSpec, TargetsOrigin, Value, load_policy,
};
pub use split::{Skipped, SourceFile};

use errors::Errors;

/// The launch wrapper the attribute is on, as the front end sees it.
pub struct Wrapper<'a> {
    /// Its signature (its name is the wrapper's name in messages; its parameters and
    /// generics are run-time values to the body reader).
    pub sig: &'a Signature,
    /// Its body, read for the launches it makes; `None` when not read.
    pub body: Option<&'a Block>,
    /// Why the body was not read (too deeply nested, say), for the notes.
    pub unread: Option<String>,
    /// Read for one launch of the body only, as `cargo occupancy report` reads each launch
    /// of a function that makes several: the paths of the other launches are left out
    /// before anything is checked (their kernels need not be in `kernel`). `None`: every
    /// launch, as the attribute reads its wrapper.
    pub launch_at: Option<LaunchAt>,
    /// A crate function that launches the configuration one of its parameters gives (`fn
    /// launch_with(f: &CudaFunction, cfg: LaunchConfig)`): its name and that parameter's
    /// index. Each call of it in the body is a launch of what the call passes there, with
    /// the kernel it passes, at the call (as `cargo occupancy report` reads the callers of
    /// such a function). `None`: only cudarc's and cust's launch calls are launch calls.
    pub launch_helper: Option<(String, usize)>,
}

/// Where one launch call is written in the wrapper's file: the launch method's name (`launch`
/// of `builder.launch(cfg)`), as [`Wrapper::launch_at`] selects it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LaunchAt {
    /// The line, 1-based.
    pub line: usize,
    /// The column of the method's name, 0-based (`proc_macro2::LineColumn`'s), where known:
    /// it tells two launches on one line apart. Paths reaching a launch at this line and
    /// column are kept; where none does, or the column is not known, those reaching a
    /// launch on the line; where none does either, every path.
    pub column: Option<usize>,
}

impl LaunchAt {
    /// Whether a launch starting at `start` is this one: at its line and known column.
    pub fn is_at(&self, start: proc_macro2::LineColumn) -> bool {
        start.line == self.line && Some(start.column) == self.column
    }

    /// Whether a launch starting at `start` is on this one's line.
    pub fn is_on_line(&self, start: proc_macro2::LineColumn) -> bool {
        start.line == self.line
    }
}

impl<'a> Wrapper<'a> {
    /// A wrapper with a body to read.
    pub fn new(sig: &'a Signature, body: &'a Block) -> Wrapper<'a> {
        Wrapper {
            sig,
            body: Some(body),
            unread: None,
            launch_at: None,
            launch_helper: None,
        }
    }

    /// A wrapper whose body is not read (the attribute's keys alone).
    pub fn signature(sig: &'a Signature) -> Wrapper<'a> {
        Wrapper {
            sig,
            body: None,
            unread: None,
            launch_at: None,
            launch_helper: None,
        }
    }
}

/// Parses and checks the arguments of one `#[occupancy::check(...)]`: `args` are the tokens
/// inside the parentheses, `wrapper` the function it is on, `attribute` the span of the
/// attribute (for problems with no token of their own, such as a missing key), `env` the
/// crate's directory, the wrapper's file and the variables.
///
/// Reads the launches the body makes (see the crate docs), the constants they and the
/// attribute name from the crate's sources, the policy file, and the resource manifest,
/// cubin or fatbin the attribute names.
///
/// # Errors
///
/// Every problem found, combined (`syn::Error` iterates over them), each on the span of the
/// token that caused it: malformed or unknown keys (with "did you mean"), values out of
/// range, a key that differs from what the body launches, a block or shared memory known
/// only at run time without candidates, unknown targets, lints or kernel classes, an
/// unreadable or malformed policy file, manifest, cubin or fatbin, a kernel that is not
/// there, a target with no cubin that runs on it, a cluster on a target without clusters.
pub fn parse(
    args: TokenStream,
    wrapper: &Wrapper<'_>,
    attribute: Span,
    env: &Env,
) -> Result<Spec, syn::Error> {
    let mut errors = Errors::default();
    let args = attr::parse(args, &mut errors);
    let sig = wrapper.sig;
    let spec = match policy::load(env, attribute) {
        Ok(loaded) => {
            // The crate's sources are read, and the wrapper located there, only when a name
            // needs resolving.
            let located = match (&env.crate_dir, &env.source_file) {
                (Some(dir), Some(file)) => Some(reader::names::Wrapper {
                    package_dir: dir.clone(),
                    file: file.clone(),
                    name: sig.ident.to_string(),
                    signature: quote::ToTokens::to_token_stream(sig),
                }),
                _ => None,
            };
            let body_items = wrapper.body.map(reader::items).unwrap_or_default();
            let mut resolver =
                reader::names::Resolver::new(located, env.lib_name.clone(), body_items);
            valid::validate(args, &loaded, env, wrapper, attribute, &mut resolver)
                .map_err(|e| errors.push(e))
                .ok()
                .map(|spec| with_shared_scope(spec, wrapper, &resolver))
        }
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

/// `spec` with what its confirmations may share ([`Spec`]'s `shared_scope`, each
/// confirmation's `shareable`): a name in the expression of a confirmation means what it
/// means in the wrapper's module where the wrapper is a free function found exactly
/// ([`reader::names::Resolver::shared_scope`]), its body declares no item at its top level
/// (an item, or a macro call that may make one: any but the standard library's statement
/// macros), and the expression names none of its generic parameters.
fn with_shared_scope(
    mut spec: Spec,
    wrapper: &Wrapper<'_>,
    resolver: &reader::names::Resolver,
) -> Spec {
    let generics = reader::generic_names(wrapper.sig);
    for c in &mut spec.confirmations {
        c.shareable = !c.in_body && !names_any(c.expr.clone(), &generics);
    }
    spec.shared_scope = wrapper
        .body
        .filter(|body| declares_no_item(body))
        .and_then(|_| resolver.shared_scope());
    spec
}

/// Whether `tokens` hold an identifier in `names` (or `Self`), at any depth.
fn names_any(tokens: TokenStream, names: &[String]) -> bool {
    tokens.into_iter().any(|tree| match tree {
        proc_macro2::TokenTree::Ident(i) => i == "Self" || names.iter().any(|n| i == n),
        proc_macro2::TokenTree::Group(g) => names_any(g.stream(), names),
        _ => false,
    })
}

/// Whether the top level of `body` declares no item: no item statement, and no macro
/// statement but the standard library's, which make none.
fn declares_no_item(body: &Block) -> bool {
    const STATEMENT_MACROS: [&str; 16] = [
        "assert",
        "assert_eq",
        "assert_ne",
        "debug_assert",
        "debug_assert_eq",
        "debug_assert_ne",
        "dbg",
        "eprint",
        "eprintln",
        "panic",
        "print",
        "println",
        "todo",
        "unimplemented",
        "unreachable",
        "write",
    ];
    let known = |mac: &syn::Macro| {
        mac.path
            .get_ident()
            .is_some_and(|name| STATEMENT_MACROS.iter().any(|known| name == known))
    };
    body.stmts.iter().all(|stmt| match stmt {
        syn::Stmt::Item(_) => false,
        syn::Stmt::Macro(m) => known(&m.mac),
        // A macro ending the body is expanded as a statement too.
        syn::Stmt::Expr(syn::Expr::Macro(m), _) => known(&m.mac),
        syn::Stmt::Local(_) | syn::Stmt::Expr(..) => true,
    })
}

/// The wrapper's body parsed for reading, or why it is not read: tokens nested deeper or
/// more numerous than the front end parses safely (`syn` and the reader recurse), or a body
/// that does not parse. Not reading a body is not an error: the attribute's keys still work.
pub fn parse_body(body: &proc_macro2::Group) -> Result<Block, String> {
    limits::Limits::BODY
        .check(&body.stream(), "the body")
        .map_err(|e| e.to_string())?;
    syn::parse2(proc_macro2::TokenTree::Group(body.clone()).into())
        .map_err(|e| format!("it does not parse: {e}"))
}

/// Checks that the wrapper's tokens outside its body (attributes, signature) are within the
/// nesting limits `syn` parses safely.
///
/// # Errors
///
/// An error on the first token past the limits.
pub fn check_signature(tokens: &TokenStream) -> Result<(), syn::Error> {
    limits::Limits::BODY.check(tokens, "the function's signature")
}

/// Checks one source file's tokens (`file` names it in the message) against the limits that
/// keep `syn` (whose parser, `Clone` and `Drop` recurse) within the stack: call it before
/// `syn` parses a file. Iterative: any input is safe to give it.
///
/// # Errors
///
/// On the first group nested too deeply, the first token past 2 M, or the first token of
/// an expression or type chained too deeply to parse within the stack.
pub fn check_source_limits(tokens: &TokenStream, file: &str) -> Result<(), syn::Error> {
    limits::Limits::SOURCE_FILE.check(tokens, file)
}

/// Parses one source file of the crate (`file` names it in messages) the way every reader
/// of this crate does, `cargo occupancy report` included: within the limits that keep
/// `syn` within the stack, item by item, so that an item past them (a trait with 82 `+`
/// bounds, a deeply nested type) is left out, with a [`Skipped`] entry, rather than making
/// the rest of the file unreadable (a function past them keeps its signature with an empty
/// body). Never panics or overflows the stack, whatever the text.
///
/// # Errors
///
/// When the text does not lex, or the items kept do not parse.
pub fn parse_source_file(text: &str, file: &str) -> Result<SourceFile, syn::Error> {
    let tokens: TokenStream = text
        .parse()
        .map_err(|e: proc_macro2::LexError| syn::Error::new(e.span(), e))?;
    split::parse_file(tokens, file)
}
