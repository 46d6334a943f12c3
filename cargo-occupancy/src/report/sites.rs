//! Every kernel launch of a crate's Rust code, annotated or not (`report --all`): where it
//! is, the function that launches it, and the attribute a user would write there.
//!
//! A launch is a call of one of cudarc's launch methods with a configuration
//! (`stream.launch_builder(&f)..launch(cfg)`, `.launch_cooperative(cfg)`, the older
//! `LaunchAsync` API's `f.launch(cfg, params)` and `f.launch_on_stream(stream, cfg,
//! params)`; `.launch_async(cfg, ..)`), or cust's `launch!(m.k<<<grid, block, smem,
//! stream>>>(..))`. The function whose body makes it is the *launching function*: the
//! attribute goes there, and reads the launch from the body as it always does. What this
//! module adds is the kernel, where the code names it:
//!
//! - a literal the attribute reads itself (`load_function("saxpy")`, `get_function`,
//!   `get_func(module, "saxpy")`): no key;
//! - a name built by `format!` from a literal stem and a dtype (`format!("affine_{}",
//!   T::NAME)`), directly, through a `let`, or through a crate helper returning one
//!   (`kernel_name::<T>("im2col")` with `format!("{stem}_{}", T::NAME)`): a family glob,
//!   `kernel = "affine_*"`;
//! - a literal given to a crate function that loads by name (`get_func(&m, "col2im")`),
//!   or a `&str` constant of the crate: `kernel = "col2im"`;
//! - a parameter: the names every caller in the crate passes (`launch_elementwise(gpu,
//!   "relu_f32", ..)`), or a closure's parameter, with the names each call of the closure
//!   passes: `kernel = ["gelu_f32", "relu_f32"]`.
//!
//! A launching function whose configuration is a parameter (`fn launch_with(.., cfg:
//! LaunchConfig)`) launches what its callers build: each caller that builds the
//! configuration is the launching function instead (the attribute on it reads the
//! configuration its body builds), one level up. Launches inside `macro_rules!` bodies are
//! read in each expansion where every invocation expands (see `Collector::expand_macros`),
//! else listed with the macro and its invocations. Every launch found is listed: what
//! cannot be read is a row with the reason, never dropped.

use std::collections::BTreeMap;
use std::rc::Rc;

use occupancy_attr::apis;

use super::macro_consts;
use proc_macro2::{Delimiter, Span, TokenStream, TokenTree};
use syn::spanned::Spanned;
use syn::visit::Visit;

/// How deep names are followed (a `let`, a helper's parameter, a caller's argument).
const MAX_FOLLOW: usize = 4;

/// What the reading of launches keeps of a source file once its syntax tree is dropped.
struct FileFacts {
    /// Relative to the crate, for locations (`src/ops.rs`).
    shown: String,
    /// The `cfg` conditions of the `mod` declarations that bring it in (known once every
    /// file is read: set by [`Collector::finish`]).
    conditions: Vec<String>,
    /// Its `use` items, at any depth: where a name it calls comes from.
    uses: Vec<syn::ItemUse>,
    /// Its top-level `macro_rules!`: (name, the line of the name).
    top_macro_rules: Vec<(String, usize)>,
    /// Its functions: this range of [`Collector`]'s.
    funcs: std::ops::Range<usize>,
}

/// A launch found, and how to check it.
pub(crate) struct Launch {
    /// `src/ops.rs:42`: the launch call.
    pub(crate) location: String,
    /// The column (0-based) of the launch method's name in the launching function's own
    /// body, where known: what tells two launches on one line apart.
    pub(crate) column: Option<usize>,
    /// The launching function (`forward`, `Softmax::forward`).
    pub(crate) function: String,
    /// cudarc's `launch_builder(..).launch`, cust's `launch!`, ...
    pub(crate) how: &'static str,
    /// The function the launch goes through when the attribute goes on a caller
    /// (`launch_with at src/elementwise.rs:40`).
    pub(crate) via: Option<String>,
    /// The function it goes through and the index of its configuration parameter, when
    /// the launch is a call of it in a caller (`occupancy_attr::Wrapper::launch_helper`).
    pub(crate) through: Option<(String, usize)>,
    /// The `cfg` conditions it is under.
    pub(crate) conditions: Vec<String>,
    /// The launching function is an expansion of this `macro_rules!` (its attribute goes in
    /// the macro's body, by hand: `--annotate` does not write it).
    pub(crate) expanded_from: Option<String>,
    /// How to check it, or why it cannot be.
    pub(crate) check: Check,
}

/// Where the attribute goes and what it says, or why there is none.
pub(crate) enum Check {
    /// The attribute `#[occupancy::check(<args>)]` on `target`.
    Attribute {
        /// The arguments, as written (`kernel = "affine_*"`, or empty).
        args: String,
        /// Where the kernel's name came from, for notes (`format!("affine_{}", ..) at
        /// src/affine.rs:14`).
        kernel_from: Option<String>,
        /// How many names (or globs) the `kernel` key lists (0: the attribute reads the
        /// one name itself).
        names: usize,
        /// The names are those of the loads bound to the launched function
        /// (`let fill_fn = dev.get_func(..)`), none of another launch's.
        own: bool,
        /// The names (or globs) the `kernel` key lists, as written there (empty: no key).
        kernels: Vec<String>,
        /// The module every load naming the kernel passes as a constant
        /// (`get_or_load_func(name, &kernels::FILL)`: `fill`, lower-cased as a build names
        /// the constant of `fill.cu`'s PTX), when they all pass the same one.
        module: Option<String>,
        target: Box<Target>,
    },
    /// Inside a function with `#[occupancy::check]` already: the wrapper's rows cover it.
    Annotated,
    /// Not read, and why.
    Unread(String),
}

/// The function to annotate.
#[derive(Clone)]
pub(crate) struct Target {
    /// The file's index: the order files were given to [`Collector::add`].
    pub(crate) file: usize,
    pub(crate) sig: syn::Signature,
    pub(crate) body: syn::Block,
    /// The line (1-based) the attribute goes above: the function's first attribute (doc
    /// comments included) or its first token.
    pub(crate) line: usize,
    /// The span of the function's name, for errors.
    pub(crate) span: Span,
}

/// A function of the crate and what its body does, as far as launches go.
struct Func {
    file: usize,
    name: String,
    /// `Softmax` for a method of `impl Softmax`.
    impl_ty: Option<String>,
    sig: syn::Signature,
    body: syn::Block,
    line: usize,
    span: Span,
    conditions: Vec<String>,
    /// It has `#[occupancy::check]` (or `#[check]`, an alias, inside `cfg_attr`).
    annotated: bool,
    params: Vec<Option<String>>,
    /// The traits each type parameter is bound by (the function's and its impl's generics
    /// and `where` clauses): `K` -> `UnaryOpCudaKernel`.
    bounds: Vec<(String, Vec<String>)>,
    scan: Scan,
    /// Its body and scan are whole (see [`Func::lighten`]).
    full: bool,
    /// Made by an expansion of this `macro_rules!`.
    expanded_from: Option<String>,
}

impl Func {
    /// Whether reading the crate's launches may need its body: it launches, loads a
    /// kernel, carries the attribute, or ends in a macro (a name helper's `format!`).
    fn needed(&self) -> bool {
        !self.scan.calls.is_empty()
            || !self.scan.loads.is_empty()
            || self.annotated
            || tail_expr(&self.body).is_some_and(|e| matches!(strip(e), syn::Expr::Macro(_)))
    }

    /// Drops its body and all of its scan but the names and lines of its calls (the
    /// arguments too): enough to find it as a caller, to be read again then.
    fn lighten(&mut self) {
        self.body.stmts = Vec::new();
        let mut callees = std::mem::take(&mut self.scan.callees);
        for c in &mut callees {
            c.args = Vec::new();
        }
        self.scan = Scan {
            callees,
            ..Scan::default()
        };
        self.full = false;
    }
}

/// What a body launches and loads.
#[derive(Default)]
struct Scan {
    calls: Vec<LaunchCall>,
    /// Kernel-loading calls.
    loads: Vec<Load>,
    /// `let name = expr;` (the last binding of each name wins; shadowing is rare here).
    lets: BTreeMap<String, syn::Expr>,
    /// Closures bound by `let`: name -> parameters.
    closures: BTreeMap<String, Vec<Option<String>>>,
    /// Calls of functions and methods.
    callees: Vec<Callee>,
    /// Names assigned to (`x = ..`, `x += ..`) somewhere in the body.
    assigned: Vec<String>,
    /// Names bound by more than one `let` (shadowed).
    rebound: Vec<String>,
    /// For a name bound again, the binding before its last (what the last one's own
    /// initialiser reads by that name: `let name = format!("{name}{b_size}")`).
    earlier: BTreeMap<String, syn::Expr>,
}

/// A call of a function of the crate: the caller's index, the arguments, the call's line
/// and column.
type CallOf = (usize, Vec<syn::Expr>, (usize, usize));

/// A call of a function or method.
struct Callee {
    /// The callee's last name.
    name: String,
    args: Vec<syn::Expr>,
    /// Called with method syntax, `x.f(..)`.
    method_syntax: bool,
    /// The line of the call (its name).
    line: usize,
    /// The column (0-based) where the call starts (its path's first token; a method call's
    /// name): where the attribute's reader places a launch made through it.
    column: usize,
}

/// A call that loads a kernel by name.
struct Load {
    /// `load_function`, `get_func`, ...
    name: String,
    /// A method call (`module.load_function(..)`), not a function's (`get_func(..)`).
    method: bool,
    args: Vec<syn::Expr>,
    /// Inside a closure bound to this name.
    closure: Option<String>,
    /// The branches it is inside (see [`Branch`]).
    branches: Vec<Branch>,
    /// The `let` whose value it is part of (`let fill_fn = dev.get_func(..).unwrap();`).
    bound_to: Option<String>,
}

/// A branch of the body: (the `match` or `if`, numbered in the body; the arm). A load inside
/// one arm of a `match` does not name the kernel of a launch inside another arm of it.
type Branch = (u32, u32);

/// Whether one of `a`'s branches and one of `b`'s are different arms of one `match` or `if`.
fn exclusive(a: &[Branch], b: &[Branch]) -> bool {
    a.iter()
        .any(|(m, arm)| b.iter().any(|(n, other)| m == n && arm != other))
}

/// One launch call.
struct LaunchCall {
    line: usize,
    /// The column (0-based) of the launch method's name, where the attribute's reader
    /// places the launch too: two launches on one line are told apart by it.
    column: Option<usize>,
    how: &'static str,
    /// The configuration argument.
    config: Option<syn::Expr>,
    /// The launched function: `launch_builder`'s argument, or the old API's receiver.
    function: Option<syn::Expr>,
    /// Inside a closure bound to this name.
    closure: Option<String>,
    /// Among the arguments of this macro (`name!(..)`), which are not parsed.
    in_macro: Option<String>,
    /// A cuTile launcher run on a stream ([`apis::Role::TileLaunch`]): listed, never
    /// read.
    tile: bool,
    /// The branches it is inside (see [`Branch`]).
    branches: Vec<Branch>,
    /// The `match` arms it is inside, outermost first: (the scrutinee, a plain name; the
    /// arm's pattern, an enum variant's path), as in `match dtype { DType::U8 => .. }`.
    arms: Vec<Arm>,
    /// The receiver is a struct the function builds (`ConvForward { .. }`): its type's name
    /// and the method called, for the collector's `launches_of` to tell a crate's own
    /// launcher from another crate's operation.
    on_struct: Option<(String, String)>,
}

/// A `match` arm a launch is inside: the name matched and the variant its pattern names.
#[derive(Clone, Debug)]
struct Arm {
    scrutinee: String,
    /// `["DType", "U8"]`.
    variant: Vec<String>,
}

/// A method of an enum that maps each variant to a string, read from the crate:
/// `impl DType { fn as_str(&self) -> &'static str { match self { Self::U8 => "u8", .. } } }`.
struct StrMethod {
    /// The impl's type (`DType`).
    ty: String,
    name: String,
    /// (variant, string), one per arm.
    arms: Vec<(String, String)>,
}

/// A kernel name as the code builds it.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Name {
    /// `"saxpy"`.
    Literal(String),
    /// `affine_*`.
    Glob(String),
    /// One of these names: an associated constant each impl gives its own value
    /// (`Self::FNS[1]`, `K::FWD_FN_NAME`).
    Set(Vec<String>),
    /// One of these names, chosen by the path: the arms of a `match` or `if`
    /// (`let (kernel_name, block_dim) = match dtype { .. }`), each arm's with its own block.
    Chosen(Vec<String>),
    /// The function's parameter at this index.
    Param(usize),
    /// Not known, and why.
    Unknown(String),
}

/// The items of a dependency a name helper of the crate calls (`candle::cuda_backend::
/// kernel_name`, by the path a `use` brings it in from): that function, and the impls of
/// the string methods its body calls (`DType::as_str`); `None` where the dependency is not
/// read. See `super::deps`.
pub(crate) type Dependency<'d> = &'d dyn Fn(&[String]) -> Option<syn::File>;

/// Every launch of a crate, read one file at a time: [`Collector::add`] each file's syntax
/// tree (the caller may drop it after), then [`Collector::finish`].
///
/// Memory: a crate's syntax trees are about 40 bytes per byte of source (mistralrs-core's
/// 5.8 MB of Rust: 217 MB), so none is kept. A function keeps its body and what it calls
/// with which arguments only where the reading may need them: it launches, loads a kernel,
/// carries the attribute or ends in a macro (a name helper's `format!`); the others keep
/// their signature and the names of what they call, and `finish` reads again the files of
/// those that call a launching function (its callers build its configuration or name its
/// kernel).
#[derive(Default)]
pub(crate) struct Collector {
    files: Vec<FileFacts>,
    funcs: Vec<Func>,
    macros: Vec<MacroDef>,
    consts: BTreeMap<String, Vec<String>>,
    assoc: Vec<AssocConst>,
    str_methods: Vec<StrMethod>,
    macro_rules: Vec<MacroRules>,
    macro_calls: Vec<MacroCall>,
    /// Each item macro's invocations: name -> `file:line`s.
    invocations: BTreeMap<String, Vec<String>>,
}

impl Collector {
    /// Reads file `shown` (the next file index), keeping what [`Collector::finish`] needs.
    pub(crate) fn add(&mut self, shown: &str, syntax: &syn::File) {
        let index = self.files.len();
        let start = self.funcs.len();
        let mut collect = Collect {
            file: index,
            shown,
            conditions: Vec::new(),
            impl_ty: None,
            aliases: check_aliases(syntax),
            funcs: &mut self.funcs,
            macros: &mut self.macros,
            consts: &mut self.consts,
            assoc: &mut self.assoc,
            str_methods: &mut self.str_methods,
            macro_rules: &mut self.macro_rules,
            macro_calls: &mut self.macro_calls,
            impl_trait: None,
            impl_bounds: Vec::new(),
        };
        collect.visit_file(syntax);
        for f in &mut self.funcs[start..] {
            if !f.needed() {
                f.lighten();
            }
        }
        let mut calls = Invocations {
            shown,
            out: &mut self.invocations,
        };
        calls.visit_file(syntax);
        let mut uses = Vec::new();
        UseItems(&mut uses).visit_file(syntax);
        let top_macro_rules = syntax
            .items
            .iter()
            .filter_map(|item| match item {
                syn::Item::Macro(m) if m.mac.path.is_ident("macro_rules") => m
                    .ident
                    .as_ref()
                    .map(|i| (i.to_string(), i.span().start().line)),
                _ => None,
            })
            .collect();
        self.files.push(FileFacts {
            shown: shown.to_owned(),
            conditions: Vec::new(),
            uses,
            top_macro_rules,
            funcs: start..self.funcs.len(),
        });
    }

    /// Every launch of the files added. `conditions`: the `cfg` conditions of the `mod`
    /// declarations bringing in each file (by the order they were added); `reparse`: file
    /// `i`'s syntax tree again, for the callers of launching functions (`None`: that file's
    /// callers are read without their arguments, so what they pass is not known);
    /// `dependency`: reads a dependency's name helper.
    pub(crate) fn finish(
        mut self,
        conditions: Vec<Vec<String>>,
        reparse: impl FnMut(usize) -> Option<syn::File>,
        dependency: Dependency<'_>,
    ) -> Vec<Launch> {
        for (file, conditions) in self.files.iter_mut().zip(conditions) {
            file.conditions = conditions;
        }
        for f in &mut self.funcs {
            f.conditions = [self.files[f.file].conditions.as_slice(), &f.conditions].concat();
        }
        for m in &mut self.macros {
            m.conditions = [self.files[m.file].conditions.as_slice(), &m.conditions].concat();
        }
        self.read_callers(reparse);
        // The associated constants of the impls the crate's `macro_rules!` make, per
        // invocation. Of a name two `macro_rules!` define, an invocation expands the last
        // one defined at the top level of its own file before it (textual scope); otherwise
        // it is not read.
        for (file, name, tokens, line, _) in &self.macro_calls {
            if let Some(rules) = expanded_rules(&self.macro_rules, &self.files, *file, name, *line)
            {
                for (trait_, constant, value) in macro_consts::string_consts(rules, tokens) {
                    self.assoc.push(AssocConst {
                        file: *file,
                        trait_,
                        name: constant,
                        values: vec![value],
                        array: false,
                    });
                }
            }
        }
        let expanded = self.expand_macros();
        let crate_ = Crate {
            files: &self.files,
            funcs: &self.funcs,
            consts: &self.consts,
            assoc: &self.assoc,
            str_methods: &self.str_methods,
            under: std::cell::RefCell::new(Vec::new()),
            dependency,
            helpers: std::cell::RefCell::new(BTreeMap::new()),
            dependency_strings: std::cell::RefCell::new(Vec::new()),
        };
        let mut out = Vec::new();
        for (i, f) in self.funcs.iter().enumerate() {
            if f.scan.calls.is_empty() {
                continue;
            }
            crate_.launches_of(i, &mut out);
        }
        for (k, m) in self.macros.iter().enumerate() {
            if !expanded.contains(&k) {
                out.extend(macro_launches(m, self.invocations.get(&m.name)));
            }
        }
        out.sort_by_key(|a| natural(&a.location));
        out
    }

    /// The functions of each expansion of the `macro_rules!` with launches (dfdx's
    /// `impl_cuda_kernels!(f32, "gather_f32", "gather_fwd_f32", ..)`, one impl per dtype),
    /// added to the crate's, each at the macro body's lines (its launches are the body's):
    /// only for a macro every invocation of which is in its own file and expands (see
    /// [`macro_consts::expand`]) to items that parse; else none of its invocations, and its
    /// launches stay unread. The indices of the macros expanded.
    fn expand_macros(&mut self) -> Vec<usize> {
        let mut done = Vec::new();
        for (k, m) in self.macros.iter().enumerate() {
            if m.launches.is_empty() {
                continue;
            }
            let calls: Vec<&MacroCall> =
                self.macro_calls.iter().filter(|c| c.1 == m.name).collect();
            let mut expansions = Vec::new();
            for (file, name, tokens, line, cfgs) in &calls {
                let syntax = (*file == m.file)
                    .then(|| expanded_rules(&self.macro_rules, &self.files, *file, name, *line))
                    .flatten()
                    .and_then(|rules| macro_consts::expand(rules, tokens))
                    .and_then(|tokens| syn::parse2::<syn::File>(tokens).ok());
                match syntax {
                    Some(syntax) => expansions.push((syntax, cfgs)),
                    None => break,
                }
            }
            if calls.is_empty() || expansions.len() != calls.len() {
                continue;
            }
            let facts = &self.files[m.file];
            let first = self.funcs.len();
            for (syntax, cfgs) in expansions {
                let conditions = [m.conditions.as_slice(), cfgs].concat();
                let read = read_file(m.file, &facts.shown, conditions, &syntax);
                self.funcs.extend(read.funcs);
            }
            for f in &mut self.funcs[first..] {
                f.expanded_from = Some(m.name.clone());
            }
            done.push(k);
        }
        done
    }

    /// Reads in full, from their files parsed again, the functions kept without their
    /// bodies that call a function of a launching function's name.
    fn read_callers(&mut self, mut reparse: impl FnMut(usize) -> Option<syn::File>) {
        let launching: std::collections::BTreeSet<&str> = self
            .funcs
            .iter()
            .filter(|f| !f.scan.calls.is_empty())
            .map(|f| f.name.as_str())
            .collect();
        let wanted: Vec<usize> = (0..self.funcs.len())
            .filter(|&i| {
                let f = &self.funcs[i];
                !f.full
                    && f.scan
                        .callees
                        .iter()
                        .any(|c| launching.contains(c.name.as_str()))
            })
            .collect();
        let mut files: Vec<usize> = wanted.iter().map(|&i| self.funcs[i].file).collect();
        files.dedup();
        for file in files {
            let Some(syntax) = reparse(file) else {
                continue;
            };
            let facts = &self.files[file];
            let again = read_file(file, &facts.shown, facts.conditions.clone(), &syntax).funcs;
            // The same file reads to the same functions in the same order; a file changed
            // since is left as it was read first.
            let range = facts.funcs.clone();
            if again.len() != range.len()
                || again
                    .iter()
                    .zip(&self.funcs[range.clone()])
                    .any(|(a, b)| (a.line, &a.name) != (b.line, &b.name))
            {
                continue;
            }
            for (i, full) in range.zip(again) {
                if wanted.binary_search(&i).is_ok() {
                    self.funcs[i] = full;
                }
            }
        }
    }
}

/// Every `use` item of a file, at any depth.
struct UseItems<'o>(&'o mut Vec<syn::ItemUse>);

impl<'ast> Visit<'ast> for UseItems<'_> {
    fn visit_item_use(&mut self, u: &'ast syn::ItemUse) {
        self.0.push(u.clone());
    }
}

/// An item macro invoked: (file, the macro's last name, its input, the line of the name,
/// the `cfg`s on the invocation).
type MacroCall = (usize, String, TokenStream, usize, Vec<String>);

/// A `macro_rules!` of the crate: where it is defined, its name and its rules.
struct MacroRules {
    file: usize,
    /// The line of its name.
    line: usize,
    name: String,
    rules: Vec<macro_consts::Rule>,
}

/// The rules an invocation of `name` at `line` of file `file` expands: the one definition of
/// that name in the crate, else the last one at the top level of the same file before the
/// invocation, when every definition of that name in the file is at its top level (one
/// inside a `mod` block or a function has its own scope, not followed).
fn expanded_rules<'m>(
    defs: &'m [MacroRules],
    files: &[FileFacts],
    file: usize,
    name: &str,
    line: usize,
) -> Option<&'m [macro_consts::Rule]> {
    let named: Vec<&MacroRules> = defs.iter().filter(|d| d.name == name).collect();
    if let [one] = named.as_slice() {
        return Some(&one.rules);
    }
    let top: Vec<usize> = files
        .get(file)?
        .top_macro_rules
        .iter()
        .filter(|(n, _)| n == name)
        .map(|(_, line)| *line)
        .collect();
    let own: Vec<&&MacroRules> = named.iter().filter(|d| d.file == file).collect();
    if own.is_empty() || !own.iter().all(|d| top.contains(&d.line)) {
        return None;
    }
    own.iter()
        .filter(|d| d.line < line)
        .max_by_key(|d| d.line)
        .map(|d| d.rules.as_slice())
}

/// The traits each type parameter of `generics` is bound by, inline and in the `where`
/// clause (each trait by its last name).
fn bounds(generics: &syn::Generics) -> Vec<(String, Vec<String>)> {
    let mut out: Vec<(String, Vec<String>)> = Vec::new();
    let mut add =
        |name: String, list: &syn::punctuated::Punctuated<syn::TypeParamBound, syn::Token![+]>| {
            let traits = list.iter().filter_map(|b| match b {
                syn::TypeParamBound::Trait(t) => {
                    t.path.segments.last().map(|s| s.ident.to_string())
                }
                _ => None,
            });
            match out.iter_mut().find(|(n, _)| *n == name) {
                Some((_, v)) => v.extend(traits),
                None => out.push((name, traits.collect())),
            }
        };
    for p in generics.type_params() {
        add(p.ident.to_string(), &p.bounds);
    }
    for w in generics.where_clause.iter().flat_map(|w| &w.predicates) {
        if let syn::WherePredicate::Type(t) = w
            && let syn::Type::Path(p) = &t.bounded_ty
            && let Some(name) = p.path.get_ident()
        {
            add(name.to_string(), &t.bounds);
        }
    }
    out
}

/// `src/a.rs:9` before `src/a.rs:10`.
fn natural(location: &str) -> (String, usize) {
    match location.rsplit_once(':') {
        Some((file, line)) => (file.to_owned(), line.parse().unwrap_or(0)),
        None => (location.to_owned(), 0),
    }
}

/// A `macro_rules!` body with launches in it.
struct MacroDef {
    /// The file it is in (index).
    file: usize,
    name: String,
    shown: String,
    conditions: Vec<String>,
    /// Lines of the launch calls in its body.
    launches: Vec<(usize, &'static str)>,
    /// Lines of `#[occupancy::check]` in its body.
    attributes: Vec<usize>,
}

struct Crate<'c> {
    files: &'c [FileFacts],
    funcs: &'c [Func],
    consts: &'c BTreeMap<String, Vec<String>>,
    assoc: &'c [AssocConst],
    str_methods: &'c [StrMethod],
    /// The `match` arms the launch being named is inside (set while naming its kernel).
    under: std::cell::RefCell<Vec<Arm>>,
    dependency: Dependency<'c>,
    /// The name helpers of dependencies read, by path (`None`: not readable).
    helpers: std::cell::RefCell<BTreeMap<Vec<String>, Option<Rc<Helper>>>>,
    /// The string methods of the dependencies whose helpers are being read.
    dependency_strings: std::cell::RefCell<Vec<Rc<Helper>>>,
}

/// A dependency's name helper, as the crate's own functions are read.
struct Helper {
    func: Func,
    str_methods: Vec<StrMethod>,
}

impl Crate<'_> {
    fn shown(&self, f: &Func) -> &str {
        &self.files[f.file].shown
    }

    fn function_name(f: &Func) -> String {
        match &f.impl_ty {
            Some(ty) => format!("{ty}::{}", f.name),
            None => f.name.clone(),
        }
    }

    fn target(f: &Func) -> Box<Target> {
        Box::new(Target {
            file: f.file,
            sig: f.sig.clone(),
            body: f.body.clone(),
            line: f.line,
            span: f.span,
        })
    }

    /// Whether the crate defines the method `method` on the type named `ty` (in an `impl`
    /// of it, its own or a trait's).
    fn defines_method(&self, ty: &str, method: &str) -> bool {
        self.funcs
            .iter()
            .any(|g| g.name == method && g.impl_ty.as_deref() == Some(ty))
    }

    /// The launches of function `i`.
    fn launches_of(&self, i: usize, out: &mut Vec<Launch>) {
        let f = &self.funcs[i];
        let shown = self.shown(f).to_owned();
        for call in &f.scan.calls {
            if let Some((ty, method)) = &call.on_struct
                && !self.defines_method(ty, method)
            {
                // Another crate's struct the function builds: not a kernel function or a
                // launch builder (those have private fields and come from their loaders),
                // so its `launch` is that crate's operation (cudarc's cuDNN
                // `ConvForward { .. }.launch(algo, ..)` runs cuDNN's own kernels): no launch
                // site. A crate's own launcher struct (`Func { f, stream }` with its own
                // `launch(cfg, params)`) stays one.
                continue;
            }
            let location = format!("{shown}:{}", call.line);
            let base = Launch {
                location,
                column: call.column,
                function: Self::function_name(f),
                how: call.how,
                via: None,
                through: None,
                conditions: f.conditions.clone(),
                expanded_from: f.expanded_from.clone(),
                check: Check::Unread(String::new()),
            };
            if f.annotated {
                out.push(Launch {
                    check: Check::Annotated,
                    ..base
                });
                continue;
            }
            if call.tile {
                out.push(Launch {
                    check: Check::Unread(
                        "a cuTile tile-kernel launch: cuTile's compiler chooses its CUDA block \
                         and shared memory when it compiles the kernel at run time; the host \
                         code sets only the grid of tile blocks"
                            .to_owned(),
                    ),
                    ..base
                });
                continue;
            }
            if let Some(name) = &call.in_macro {
                out.push(Launch {
                    check: Check::Unread(format!(
                        "the launch is an argument of `{name}!(..)`, which neither the report \
                         nor the attribute parses"
                    )),
                    ..base
                });
                continue;
            }
            // A configuration given by the callers: the attribute goes on them.
            if let Some(p) = call
                .config
                .as_ref()
                .and_then(|c| self.param_of(f, c, call.closure.as_deref()))
            {
                out.extend(self.through_callers(i, p, call, base));
                continue;
            }
            *self.under.borrow_mut() = call.arms.clone();
            let named = self
                .kernel_of(f, Some(call), 0)
                .and_then(|names| self.named_by_callers(i, names));
            self.under.borrow_mut().clear();
            let check = match named.and_then(|names| key(&names, f)) {
                Ok(key) => Check::Attribute {
                    args: key.args,
                    kernel_from: key.kernel_from,
                    names: key.kernels.len(),
                    own: Self::bound_loads(f, call).is_some(),
                    kernels: key.kernels,
                    module: self.loader_module(f, call),
                    target: Self::target(f),
                },
                Err(why) => Check::Unread(why),
            };
            out.push(Launch { check, ..base });
        }
    }

    /// The parameter index of `f` that `expr` (a configuration or a function) names, when
    /// it is a plain parameter the body does not rebind.
    fn param_of(&self, f: &Func, expr: &syn::Expr, closure: Option<&str>) -> Option<usize> {
        let name = ident(expr)?;
        if f.scan.lets.contains_key(&name) {
            return None;
        }
        // A closure's own parameter is not the function's.
        if let Some(c) = closure
            && f.scan
                .closures
                .get(c)
                .is_some_and(|ps| ps.iter().flatten().any(|p| *p == name))
        {
            return None;
        }
        f.params
            .iter()
            .position(|p| p.as_deref() == Some(name.as_str()))
    }

    /// The launches of `callee` (function `i`), whose configuration is its parameter `p`,
    /// made by each caller that builds the configuration.
    fn through_callers(&self, i: usize, p: usize, call: &LaunchCall, base: Launch) -> Vec<Launch> {
        let f = &self.funcs[i];
        let via = format!(
            "{} at {}:{}",
            Self::function_name(f),
            self.shown(f),
            call.line
        );
        if apis::launch_config_arg(&f.name).is_some() {
            return vec![Launch {
                check: Check::Unread(format!(
                    "`{}` stands in for the launch API with the configuration its callers \
                     give: each call of it is listed as a launch",
                    f.name
                )),
                ..base
            }];
        }
        let callers = match self.callers(i) {
            Ok(callers) => callers,
            Err(why) => {
                return vec![Launch {
                    check: Check::Unread(why),
                    ..base
                }];
            }
        };
        if callers.is_empty() {
            return vec![Launch {
                check: Check::Unread(format!(
                    "the configuration is the parameter `{}`, and no function of the crate \
                     calls `{}`",
                    f.params[p].as_deref().unwrap_or("?"),
                    f.name
                )),
                ..base
            }];
        }
        let mut out = Vec::new();
        for (c, args, (line, column)) in callers {
            let caller = &self.funcs[c];
            let launch = Launch {
                location: format!("{}:{line}", self.shown(caller)),
                column: Some(column),
                function: Self::function_name(caller),
                how: base.how,
                via: Some(via.clone()),
                through: Some((f.name.clone(), p)),
                conditions: caller.conditions.clone(),
                expanded_from: caller.expanded_from.clone(),
                check: Check::Unread(String::new()),
            };
            if caller.annotated {
                out.push(Launch {
                    check: Check::Annotated,
                    ..launch
                });
                continue;
            }
            // The kernel: the callee's own naming, else what the caller passes, else the
            // caller's own loads.
            let kernel = match self.kernel_of(f, Some(call), 0) {
                Ok(names) if names.iter().any(|n| matches!(n, Name::Param(_))) => {
                    let mut resolved = Vec::new();
                    for n in names {
                        match n {
                            Name::Param(q) => match args.get(q) {
                                Some(arg) => resolved.push(self.name_of(caller, arg, 0)),
                                None => resolved.push(Name::Unknown(
                                    "the call passes fewer arguments".to_owned(),
                                )),
                            },
                            other => resolved.push(other),
                        }
                    }
                    // A `CudaFunction` passed down: the caller's own loads name it.
                    if resolved.iter().any(|n| matches!(n, Name::Param(_))) || resolved.is_empty() {
                        self.kernel_of(caller, None, 0)
                    } else {
                        Ok(resolved)
                    }
                }
                Ok(names) => Ok(names),
                Err(_) => self.kernel_of(caller, None, 0),
            };
            let check = match kernel.and_then(|names| key(&names, caller)) {
                Ok(key) => Check::Attribute {
                    args: key.args,
                    kernel_from: key.kernel_from,
                    names: key.kernels.len(),
                    own: false,
                    kernels: key.kernels,
                    module: None,
                    target: Self::target(caller),
                },
                Err(why) => Check::Unread(why),
            };
            out.push(Launch { check, ..launch });
        }
        out
    }

    /// `names` with each parameter of function `i` replaced by what every caller passes
    /// (`launch_elementwise(gpu, "relu_f32", ..)`).
    fn named_by_callers(&self, i: usize, names: Vec<Name>) -> Result<Vec<Name>, String> {
        if !names.iter().any(|n| matches!(n, Name::Param(_))) {
            return Ok(names);
        }
        let f = &self.funcs[i];
        let callers = self.callers(i)?;
        if callers.is_empty() {
            return Err(format!(
                "the kernel is a parameter of `{}`, and no function of the crate calls it",
                f.name
            ));
        }
        let mut out = Vec::new();
        for n in names {
            let Name::Param(p) = n else {
                out.push(n);
                continue;
            };
            for (c, args, _) in &callers {
                match args.get(p).map(|a| self.name_of(&self.funcs[*c], a, 1)) {
                    Some(Name::Param(_)) | None => {
                        return Err(format!(
                            "the kernel is the parameter `{}` of `{}`, which `{}` passes on \
                             from its own caller",
                            f.params[p].as_deref().unwrap_or("?"),
                            f.name,
                            self.funcs[*c].name
                        ));
                    }
                    Some(name) => out.push(name),
                }
            }
        }
        Ok(out)
    }

    /// The functions calling function `i`, with the arguments in `i`'s parameter order
    /// (a method call's receiver is its `self`).
    /// The calls of function `i`: (the caller, the arguments, the call's line and column).
    fn callers(&self, i: usize) -> Result<Vec<CallOf>, String> {
        let f = &self.funcs[i];
        let same_name = self.funcs.iter().filter(|g| g.name == f.name).count();
        if same_name > 1 {
            return Err(format!(
                "the configuration comes from the callers of `{}`, and {same_name} functions \
                 of the crate have that name",
                f.name
            ));
        }
        let has_self = matches!(f.sig.inputs.first(), Some(syn::FnArg::Receiver(_)));
        let mut out = Vec::new();
        for (c, g) in self.funcs.iter().enumerate() {
            for call in &g.scan.callees {
                // A free function is called by path only (a method of that name on another
                // type is not it).
                if call.name != f.name || (call.method_syntax && !has_self) {
                    continue;
                }
                if !g.full {
                    return Err(format!(
                        "`{}` calls `{}`, and its file {} could not be read again to see what \
                         it passes",
                        g.name,
                        f.name,
                        self.shown(g)
                    ));
                }
                let mut args = call.args.clone();
                // `x.f(a)`: the receiver is the `self` parameter (`Self::f(x, a)` has it
                // first already).
                if call.method_syntax {
                    args.insert(0, syn::parse_quote!(self));
                }
                out.push((c, args, (call.line, call.column)));
            }
        }
        Ok(out)
    }

    /// The kernel names function `f` launches (at `call`, or anywhere in it).
    fn kernel_of(
        &self,
        f: &Func,
        call: Option<&LaunchCall>,
        depth: usize,
    ) -> Result<Vec<Name>, String> {
        if depth > MAX_FOLLOW {
            return Err("the kernel's name is passed down too many calls".to_owned());
        }
        let closure = call.and_then(|c| c.closure.clone());
        let mut names = Vec::new();
        for load in Self::loads_for(f, call) {
            let in_closure = &load.closure;
            let Some(arg) = self.name_arg(f, &load.name, &load.args, depth) else {
                continue;
            };
            let name = self.name_of(f, arg, depth);
            // A closure's parameter: the names its calls pass.
            if let (Name::Unknown(_), Some(c)) = (&name, in_closure)
                && let Some(p) = ident(arg).and_then(|a| {
                    f.scan
                        .closures
                        .get(c)
                        .and_then(|ps| ps.iter().position(|p| p.as_deref() == Some(a.as_str())))
                })
            {
                for call in &f.scan.callees {
                    if call.name == *c
                        && !call.method_syntax
                        && let Some(a) = call.args.get(p)
                    {
                        names.push(self.name_of(f, a, depth + 1));
                    }
                }
                continue;
            }
            names.push(name);
        }
        if names.is_empty() {
            // The launched function is a parameter: the callers name it.
            if let Some(p) = call
                .and_then(|c| c.function.as_ref())
                .and_then(|e| self.param_of(f, e, closure.as_deref()))
            {
                return Ok(vec![Name::Param(p)]);
            }
            return Err("the kernel is not named in the launching function (no \
                        `load_function`, `get_function` or `get_func` call there)"
                .to_owned());
        }
        Ok(names)
    }

    /// The loads of `f` that may name the kernel of `call` (every load, without one).
    fn loads_for<'f>(f: &'f Func, call: Option<&LaunchCall>) -> impl Iterator<Item = &'f Load> {
        let closure = call.and_then(|c| c.closure.clone());
        let bound = call.and_then(|c| Self::bound_loads(f, c));
        let branches = call.map(|c| c.branches.clone());
        // A load in another closure than the launch's is another launch's, and so is one in
        // another arm of a `match` (or `if`) the launch is inside, and one bound to another
        // name than the launched function.
        f.scan.loads.iter().filter(move |load| {
            !(closure.is_some() && load.closure != closure
                || branches
                    .as_ref()
                    .is_some_and(|b| exclusive(&load.branches, b))
                || bound.is_some() && load.bound_to != bound)
        })
    }

    /// The module the loads naming the kernel of `call` load from, when each passes the
    /// same constant of the kernels' crate (`get_or_load_func(name, &kernels::FILL)`, a
    /// name in capitals): that constant lower-cased (`fill`), as a build names the PTX of
    /// `fill.cu`. Only a hint: the report uses it where the manifest has such a module.
    fn loader_module(&self, f: &Func, call: &LaunchCall) -> Option<String> {
        let mut module: Option<String> = None;
        for load in Self::loads_for(f, Some(call)) {
            // After the name: `get_or_load_func(name, &kernels::FILL)`.
            let found = load.args.iter().skip(1).rev().find_map(|a| {
                let syn::Expr::Path(p) = strip(a) else {
                    return None;
                };
                let last = p.path.segments.last()?.ident.to_string();
                let constant = last.chars().any(|c| c.is_ascii_uppercase())
                    && last
                        .chars()
                        .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_');
                constant.then(|| last.to_ascii_lowercase())
            })?;
            if module.as_ref().is_some_and(|m| *m != found) {
                return None;
            }
            module = Some(found);
        }
        module
    }

    /// The name `call` launches (`fill_fn` of `fill_fn.launch(..)`), when one `let` of `f`
    /// binds loads to it and nothing binds or assigns it again: then its kernel is what
    /// those load.
    fn bound_loads(f: &Func, call: &LaunchCall) -> Option<String> {
        let launched = call.function.as_ref().and_then(ident)?;
        if f.scan.rebound.contains(&launched) || f.scan.assigned.contains(&launched) {
            return None;
        }
        f.scan
            .loads
            .iter()
            .any(|l| l.bound_to.as_deref() == Some(launched.as_str()))
            .then_some(launched)
    }

    /// The argument of a kernel-loading call `load` that names the kernel: the second of
    /// `get_func(module, name)`, else the first the report can read.
    fn name_arg<'e>(
        &self,
        f: &Func,
        load: &str,
        args: &'e [syn::Expr],
        depth: usize,
    ) -> Option<&'e syn::Expr> {
        if let Some(index) = apis::kernel_name_arg(load).filter(|&i| i > 0)
            && args.len() > index
        {
            return args.get(index);
        }
        args.iter()
            .find(|a| !matches!(self.name_of(f, a, depth + 1), Name::Unknown(_)))
            .or(args.first())
    }

    /// The kernel name `expr` builds in `f` (a kernel-loading call: the name it loads).
    fn name_of(&self, f: &Func, expr: &syn::Expr, depth: usize) -> Name {
        if depth > MAX_FOLLOW {
            return Name::Unknown("followed too far".to_owned());
        }
        match strip(expr) {
            syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Str(s),
                ..
            }) => Name::Literal(s.value()),
            syn::Expr::Macro(m) if m.mac.path.is_ident("format") => {
                self.format_name(f, &m.mac.tokens, &BTreeMap::new(), depth)
            }
            syn::Expr::MethodCall(m)
                if matches!(
                    m.method.to_string().as_str(),
                    "as_str" | "to_string" | "to_owned" | "as_ref" | "into"
                ) && m.args.is_empty() =>
            {
                match self.name_of(f, &m.receiver, depth) {
                    Name::Unknown(why) => {
                        self.variant_set(m).map_or(Name::Unknown(why), Name::Glob)
                    }
                    known => known,
                }
            }
            // `let f = module.load_function("x")?`: the function is the kernel it loads.
            syn::Expr::MethodCall(m) if apis::is_loader_like(&m.method.to_string()) => {
                let args: Vec<syn::Expr> = m.args.iter().cloned().collect();
                match self.name_arg(f, &m.method.to_string(), &args, depth) {
                    Some(arg) => self.name_of(f, arg, depth + 1),
                    None => Name::Unknown(format!("`{}` names no kernel", m.method)),
                }
            }
            syn::Expr::Call(c) if matches!(&*c.func, syn::Expr::Path(p) if p.path.segments.last().is_some_and(|s| apis::is_loader_like(&s.ident.to_string()))) =>
            {
                let load = match &*c.func {
                    syn::Expr::Path(p) => p
                        .path
                        .segments
                        .last()
                        .map(|s| s.ident.to_string())
                        .unwrap_or_default(),
                    _ => String::new(),
                };
                let args: Vec<syn::Expr> = c.args.iter().cloned().collect();
                match self.name_arg(f, &load, &args, depth) {
                    Some(arg) => self.name_of(f, arg, depth + 1),
                    None => Name::Unknown(format!("`{load}` names no kernel")),
                }
            }
            // A struct holding the function (`Func { f: load(..)?, .. }`): its loads.
            syn::Expr::Struct(st) => {
                let names: Vec<Name> = st
                    .fields
                    .iter()
                    .map(|field| self.name_of(f, &field.expr, depth + 1))
                    .filter(|n| !matches!(n, Name::Unknown(_)))
                    .collect();
                match names.as_slice() {
                    [one] => one.clone(),
                    _ => Name::Unknown(format!("`{}` is not read", text(expr))),
                }
            }
            syn::Expr::Path(p) => {
                let Some(name) = p.path.get_ident().map(ToString::to_string) else {
                    let last = p.path.segments.last().map(|s| s.ident.to_string());
                    if let Some(value) = last.as_deref().and_then(|l| self.str_const(l)) {
                        return Name::Literal(value);
                    }
                    return match self.assoc_values(f, &p.path, None) {
                        Some(set) => Name::Set(set),
                        None => Name::Unknown(format!("`{}` is not read", text(expr))),
                    };
                };
                if let Some(bound) = f.scan.lets.get(&name) {
                    // `let name = format!("{name}{b_size}")`: the `name` it reads is the
                    // binding before it.
                    if let (syn::Expr::Macro(m), Some(earlier)) =
                        (strip(bound), f.scan.earlier.get(&name))
                        && m.mac.path.is_ident("format")
                    {
                        let values = match self.name_of(f, earlier, depth + 1) {
                            Name::Literal(v) => vec![v],
                            Name::Set(set) | Name::Chosen(set) => set,
                            _ => Vec::new(),
                        };
                        let env = BTreeMap::from([(name, values)]);
                        return self.format_name(f, &m.mac.tokens, &env, depth + 1);
                    }
                    return self.name_of(f, bound, depth + 1);
                }
                if let Some(p) = f.params.iter().position(|p| p.as_deref() == Some(&name)) {
                    return Name::Param(p);
                }
                match self.str_const(&name) {
                    Some(value) => Name::Literal(value),
                    None => Name::Unknown(format!("`{name}` is not read")),
                }
            }
            syn::Expr::Call(c) => self.helper_name(f, c, depth),
            // `Self::FNS[1]`: element 1 of each impl's array.
            syn::Expr::Index(ix) => {
                let index = match strip(&ix.index) {
                    syn::Expr::Lit(syn::ExprLit {
                        lit: syn::Lit::Int(i),
                        ..
                    }) => i.base10_parse::<usize>().ok(),
                    _ => None,
                };
                match (strip(&ix.expr), index) {
                    (syn::Expr::Path(p), Some(i)) => match self.assoc_values(f, &p.path, Some(i)) {
                        Some(set) => Name::Set(set),
                        None => Name::Unknown(format!("`{}` is not read", text(expr))),
                    },
                    _ => {
                        Name::Unknown(format!("`{}` is not a name the report follows", text(expr)))
                    }
                }
            }
            syn::Expr::Match(_) | syn::Expr::If(_) | syn::Expr::Block(_) => {
                self.arms_name(f, expr, None, depth)
            }
            syn::Expr::Field(field) => match &field.member {
                syn::Member::Unnamed(i) => {
                    self.arms_name(f, &field.base, Some(i.index as usize), depth)
                }
                syn::Member::Named(_) => {
                    Name::Unknown(format!("`{}` is not a name the report follows", text(expr)))
                }
            },
            _ => Name::Unknown(format!("`{}` is not a name the report follows", text(expr))),
        }
    }

    /// The names the arms of a `match` or `if` (`expr`, through blocks and `let`s) make, or
    /// element `index` of the tuple each arm makes: the path's own name (arms that return,
    /// `bail!` or panic make none).
    fn arms_name(&self, f: &Func, expr: &syn::Expr, index: Option<usize>, depth: usize) -> Name {
        if depth > MAX_FOLLOW {
            return Name::Unknown("followed too far".to_owned());
        }
        let mut leaves = Vec::new();
        if !self.leaves(f, expr, depth, &mut leaves) || leaves.is_empty() {
            return Name::Unknown(format!("`{}` is not a name the report follows", text(expr)));
        }
        let mut names: Vec<String> = Vec::new();
        for leaf in leaves {
            let picked = match (index, strip(leaf)) {
                (None, e) => e,
                (Some(i), syn::Expr::Tuple(t)) => match t.elems.iter().nth(i) {
                    Some(e) => e,
                    None => return Name::Unknown(format!("`{}` has no element {i}", text(leaf))),
                },
                (Some(_), other) => {
                    return Name::Unknown(format!(
                        "`{}` is not a tuple the report reads",
                        text(other)
                    ));
                }
            };
            // The leaves are parts of `expr`: no deeper than it.
            match self.name_of(f, picked, depth) {
                Name::Literal(n) => names.push(n),
                Name::Chosen(set) => names.extend(set),
                other => return other,
            }
        }
        let mut unique = Vec::new();
        for n in names {
            if !unique.contains(&n) {
                unique.push(n);
            }
        }
        Name::Chosen(unique)
    }

    /// The expressions `expr` can end in: the arms of a `match`, the branches of an `if`,
    /// a block's tail, a `let`'s value; `false` when one is not read.
    fn leaves<'e>(
        &'e self,
        f: &'e Func,
        expr: &'e syn::Expr,
        depth: usize,
        out: &mut Vec<&'e syn::Expr>,
    ) -> bool {
        if depth > MAX_FOLLOW + 8 || out.len() > 256 {
            return false;
        }
        match strip(expr) {
            syn::Expr::Match(m) => m
                .arms
                .iter()
                .all(|arm| diverges(&arm.body) || self.leaves(f, &arm.body, depth + 1, out)),
            syn::Expr::If(i) => {
                let Some((_, other)) = &i.else_branch else {
                    return false;
                };
                let then_ok = match value_of_block(&i.then_branch) {
                    Some(e) => diverges(e) || self.leaves(f, e, depth + 1, out),
                    None => block_diverges(&i.then_branch),
                };
                then_ok && (diverges(other) || self.leaves(f, other, depth + 1, out))
            }
            syn::Expr::Block(b) => match value_of_block(&b.block) {
                Some(e) => diverges(e) || self.leaves(f, e, depth + 1, out),
                None => block_diverges(&b.block),
            },
            syn::Expr::Path(p) if p.path.get_ident().is_some() => {
                let name = p.path.segments[0].ident.to_string();
                match f.scan.lets.get(&name) {
                    Some(bound) => self.leaves(f, bound, depth + 1, out),
                    None => {
                        out.push(expr);
                        true
                    }
                }
            }
            other => {
                out.push(other);
                true
            }
        }
    }

    /// `Self::X` / `K::X` (element `index` of it, for an array): the values every impl of the
    /// crate gives the associated constant `X` (of the caller's file for `Self`, whose impls
    /// for its type are there in the crates read). `None` when no impl gives it a string.
    fn assoc_values(
        &self,
        f: &Func,
        path: &syn::Path,
        index: Option<usize>,
    ) -> Option<Vec<String>> {
        let [ty, name] = [path.segments.first()?, path.segments.last()?];
        if path.segments.len() != 2 {
            return None;
        }
        // `K::X` with `K: Trait`: the impls of those traits (a constant of a supertrait's
        // impls is not read: which impls are `K`'s is not known); with no bound read, the
        // impls of one trait only (two traits' constants of one name are not one set).
        let traits: Option<&[String]> = f
            .bounds
            .iter()
            .find(|(n, _)| ty.ident == n)
            .map(|(_, t)| t.as_slice())
            .filter(|t| !t.is_empty());
        self.assoc_values_of(f, &ty.ident, &name.ident, index, traits)
    }

    /// [`Crate::assoc_values`] from the impls of `traits` (any, if `None`), when they are
    /// impls of one trait.
    fn assoc_values_of(
        &self,
        f: &Func,
        ty: &syn::Ident,
        name: &syn::Ident,
        index: Option<usize>,
        traits: Option<&[String]>,
    ) -> Option<Vec<String>> {
        let own_file = ty == "Self";
        let mut seen_traits: Vec<&Option<String>> = Vec::new();
        let mut values: Vec<String> = Vec::new();
        for c in self.assoc.iter().filter(|c| *name == c.name) {
            if own_file && c.file != f.file || c.array != index.is_some() {
                continue;
            }
            if let Some(traits) = traits
                && !c.trait_.as_ref().is_some_and(|t| traits.contains(t))
            {
                continue;
            }
            if !seen_traits.contains(&&c.trait_) {
                seen_traits.push(&c.trait_);
            }
            let v = match index {
                Some(i) => c.values.get(i)?,
                None => c.values.first()?,
            };
            if !values.contains(v) {
                values.push(v.clone());
            }
        }
        (!values.is_empty() && seen_traits.len() == 1).then_some(values)
    }

    /// `x.as_str()` inside the arm `T::V => ..` of a `match x` that the launch being named
    /// is under: the string the crate's method `as_str` of `impl T` maps `V` to. Only where
    /// `f` never assigns or rebinds `x` (the value matched is the value named), and one
    /// such method of that type is read.
    fn variant_string(&self, f: &Func, expr: &syn::Expr) -> Option<String> {
        let syn::Expr::MethodCall(m) = strip(expr) else {
            return None;
        };
        if !m.args.is_empty() || m.turbofish.is_some() {
            return None;
        }
        let name = ident(&m.receiver)?;
        if f.scan.lets.contains_key(&name) || f.scan.assigned.contains(&name) {
            return None;
        }
        let under = self.under.borrow();
        // The innermost arm on that name decides.
        let arm = under.iter().rev().find(|a| a.scrutinee == name)?;
        let [.., ty, variant] = arm.variant.as_slice() else {
            return None;
        };
        let method = m.method.to_string();
        let strings = self.dependency_strings.borrow();
        let mut tables = self
            .string_methods(&strings)
            .filter(|t| t.ty == *ty && t.name == method);
        let (Some(table), None) = (tables.next(), tables.next()) else {
            return None;
        };
        let mut values = table.arms.iter().filter(|(v, _)| v == variant);
        match (values.next(), values.next()) {
            (Some((_, value)), None) => Some(value.clone()),
            _ => None,
        }
    }

    /// The crate's string methods, then those of the dependencies whose helpers are being
    /// read (`strings`, borrowed from `dependency_strings`).
    fn string_methods<'s>(
        &'s self,
        strings: &'s [Rc<Helper>],
    ) -> impl Iterator<Item = &'s StrMethod> {
        self.str_methods
            .iter()
            .chain(strings.iter().flat_map(|h| h.str_methods.iter()))
    }

    /// The name helper `path` of a dependency (read once), as a function of the caller's
    /// file `file` (for its messages): `None` where the dependency is not read or the path
    /// is not one function of it that the report reads.
    fn dependency_helper(&self, path: &[String], file: usize) -> Option<Rc<Helper>> {
        if let Some(known) = self.helpers.borrow().get(path) {
            return known.clone();
        }
        let read = (self.dependency)(path).and_then(|syntax| {
            let FileRead {
                mut funcs,
                str_methods,
                ..
            } = read_file(file, "", Vec::new(), &syntax);
            let name = path.last()?;
            // The free function itself (the impls' methods are read for their strings only).
            let at = funcs
                .iter()
                .position(|g| g.name == *name && g.impl_ty.is_none())?;
            Some(Rc::new(Helper {
                func: funcs.swap_remove(at),
                str_methods,
            }))
        });
        self.helpers
            .borrow_mut()
            .insert(path.to_vec(), read.clone());
        read
    }

    /// `x.as_str()` with `x` not known, where the receiver's name is the type's
    /// (`self.dtype()`, `T::DTYPE`, `dtype` for `DType`) and one method `as_str` of that type
    /// is read: any of the strings it maps a variant to, as a glob group
    /// (`{u8,u32,..}`, see `occupancy_spec::artifact::alternatives`), which matches only
    /// the spellings the method gives.
    fn variant_set(&self, m: &syn::ExprMethodCall) -> Option<String> {
        let receiver = match strip(&m.receiver) {
            syn::Expr::MethodCall(inner) if inner.args.is_empty() => inner.method.to_string(),
            syn::Expr::Path(p) => p.path.segments.last()?.ident.to_string(),
            syn::Expr::Field(syn::ExprField {
                member: syn::Member::Named(n),
                ..
            }) => n.to_string(),
            _ => return None,
        };
        let plain = |s: &str| s.replace('_', "").to_ascii_lowercase();
        let method = m.method.to_string();
        let strings = self.dependency_strings.borrow();
        let mut tables = self
            .string_methods(&strings)
            .filter(|t| t.name == method && plain(&t.ty) == plain(&receiver));
        let (Some(table), None) = (tables.next(), tables.next()) else {
            return None;
        };
        let mut strings: Vec<&str> = Vec::new();
        for (_, s) in &table.arms {
            if s.contains([',', '{', '}', '*', '?']) {
                return None;
            }
            if !strings.contains(&s.as_str()) {
                strings.push(s);
            }
        }
        (strings.len() > 1).then(|| format!("{{{}}}", strings.join(",")))
    }

    /// A `&str` constant of the crate defined once.
    fn str_const(&self, name: &str) -> Option<String> {
        match self.consts.get(name).map(Vec::as_slice) {
            Some([one]) => Some(one.clone()),
            _ => None,
        }
    }

    /// A crate function returning a name it builds with `format!` (`kernel_name::<T>("x")`).
    fn helper_name(&self, f: &Func, call: &syn::ExprCall, depth: usize) -> Name {
        let syn::Expr::Path(path) = &*call.func else {
            return Name::Unknown(format!("`{}` is not read", text(&call.func)));
        };
        let Some(last) = path.path.segments.last().map(|s| s.ident.to_string()) else {
            return Name::Unknown("a call without a name".to_owned());
        };
        let mut helpers: Vec<&Func> = self.funcs.iter().filter(|g| g.name == last).collect();
        // A bare name resolves in the caller's module first: a function of the caller's own
        // file is the one called (candle-core's `kernel_name` beside another backend's).
        if path.path.segments.len() == 1 && helpers.iter().filter(|g| g.file == f.file).count() == 1
        {
            helpers.retain(|g| g.file == f.file);
        }
        // Else where the caller's file imports it from (`use crate::cuda_backend::kernel_name`
        // in candle-core's sort.rs, beside the Metal backend's own `kernel_name`): the
        // function of that module's file.
        if helpers.len() > 1
            && let Some(from) = imported_from(&self.files[f.file].uses, &last)
            && from[0] == "crate"
        {
            let module = from[1..from.len() - 1].join("/");
            let in_module = |g: &Func| {
                let shown = self.files[g.file].shown.as_str();
                if module.is_empty() {
                    shown == "src/lib.rs"
                } else {
                    shown == format!("src/{module}.rs") || shown == format!("src/{module}/mod.rs")
                }
            };
            if helpers.iter().filter(|g| in_module(g)).count() == 1 {
                helpers.retain(|g| in_module(g));
            }
        }
        let [helper] = helpers.as_slice() else {
            if helpers.is_empty()
                && let Some(from) = imported_from(&self.files[f.file].uses, &last)
                && !matches!(from[0].as_str(), "crate" | "self" | "super")
            {
                if let Some(helper) = self.dependency_helper(&from, f.file) {
                    self.dependency_strings.borrow_mut().push(helper.clone());
                    let name = self.read_helper(f, &helper.func, call, depth);
                    self.dependency_strings.borrow_mut().pop();
                    return name;
                }
                return Name::Unknown(format!(
                    "`{last}` is `{}`, a function of the dependency `{}`, which the report \
                     does not read (`cargo metadata --offline` does not resolve it to sources \
                     here, or its module's file has no such function at its top level): \
                     write `kernel = \"...\"` on the function",
                    from.join("::"),
                    from[0]
                ));
            }
            return Name::Unknown(format!("`{last}` is not a function of the crate read"));
        };
        self.read_helper(f, helper, call, depth)
    }

    /// The name `helper` (a function of the crate, or a dependency's) makes for `call` in
    /// `f`: its tail `format!`, with its parameters bound to the call's arguments.
    fn read_helper(&self, f: &Func, helper: &Func, call: &syn::ExprCall, depth: usize) -> Name {
        let last = &helper.name;
        let Some(tail) = tail_expr(&helper.body) else {
            return Name::Unknown(format!("`{last}` does not end in a `format!`"));
        };
        let syn::Expr::Macro(m) = strip(tail) else {
            return Name::Unknown(format!("`{last}` does not end in a `format!`"));
        };
        if !m.mac.path.is_ident("format") {
            return Name::Unknown(format!("`{last}` does not end in a `format!`"));
        }
        // The helper's parameters bound to the call's arguments, where they are literals or
        // sets of them (`U::KERNEL` of each impl, a `match`'s arms): each name stands for
        // one value of the argument.
        let mut env = BTreeMap::new();
        for (param, arg) in helper.params.iter().zip(&call.args) {
            let values = match self.name_of(f, arg, depth + 1) {
                Name::Literal(value) => vec![value],
                Name::Set(set) | Name::Chosen(set) => set,
                _ => continue,
            };
            if let Some(param) = param {
                env.insert(param.clone(), values);
            }
        }
        self.format_name(helper, &m.mac.tokens, &env, depth + 1)
    }

    /// `format!("affine_{}", T::NAME)` as a glob (`affine_*`), with each placeholder whose
    /// argument is a literal (or a name `env` binds) replaced by it.
    fn format_name(
        &self,
        f: &Func,
        tokens: &TokenStream,
        env: &BTreeMap<String, Vec<String>>,
        depth: usize,
    ) -> Name {
        let parsed = syn::parse::Parser::parse2(
            syn::punctuated::Punctuated::<syn::Expr, syn::Token![,]>::parse_terminated,
            tokens.clone(),
        );
        let Ok(parts) = parsed else {
            return Name::Unknown("a `format!` the report does not parse".to_owned());
        };
        let mut parts = parts.into_iter();
        let Some(syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Str(format),
            ..
        })) = parts.next()
        else {
            return Name::Unknown("a `format!` without a literal format string".to_owned());
        };
        let args: Vec<syn::Expr> = parts.collect();
        // What each placeholder can be: one name, the names the path's arms choose, or
        // nothing known (`*`).
        let values_of = |e: &syn::Expr| -> Option<Vec<String>> {
            if let Some(name) = ident(e)
                && let Some(v) = env.get(&name)
            {
                return Some(v.clone());
            }
            if let syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Int(i),
                ..
            }) = strip(e)
            {
                return Some(vec![i.base10_digits().to_owned()]);
            }
            if let Some(v) = self.variant_string(f, e) {
                return Some(vec![v]);
            }
            match self.name_of(f, e, depth + 1) {
                Name::Literal(v) => Some(vec![v]),
                Name::Chosen(set) => Some(set),
                // A group of the spellings a method gives (`{u8,u32,..}`): kept as written.
                Name::Glob(group) if group.starts_with('{') && group.ends_with('}') => {
                    Some(vec![group])
                }
                _ => None,
            }
        };
        let mut slots: Vec<Option<Vec<String>>> = Vec::new();
        occupancy_attr::fill_format(&format.value(), |p| {
            slots.push(match p {
                occupancy_attr::Placeholder::Next(i) | occupancy_attr::Placeholder::Position(i) => {
                    args.get(i).and_then(values_of)
                }
                occupancy_attr::Placeholder::Named(name) => env.get(name).cloned().or_else(|| {
                    let e: syn::Expr = syn::parse_str(name).ok()?;
                    values_of(&e)
                }),
            });
            None
        });
        // Each combination of the chosen names (a few: an arm's stem and a dtype).
        let combinations = slots
            .iter()
            .flatten()
            .try_fold(1usize, |n, v| n.checked_mul(v.len().max(1)))
            .filter(|n| *n <= 64);
        let Some(combinations) = combinations else {
            return Name::Unknown("a `format!` of too many chosen names".to_owned());
        };
        let mut made: Vec<String> = Vec::new();
        for mut c in 0..combinations {
            let mut slot = 0;
            let name = occupancy_attr::fill_format(&format.value(), |_| {
                let values = slots.get(slot).cloned().flatten();
                slot += 1;
                let values = values.filter(|v| !v.is_empty())?;
                let pick = values[c % values.len()].clone();
                c /= values.len();
                // A name or a group of names as written: a format spec makes it `*`.
                Some(occupancy_attr::Filled::Glob(pick))
            });
            if !made.contains(&name) {
                made.push(name);
            }
        }
        let out = match made.as_slice() {
            [one] => one.clone(),
            many if many.iter().all(|n| !occupancy_attr::is_glob(n)) => return Name::Chosen(made),
            // Each chosen stem with a run-time part (`uexp_{u8,..}`, `ulog_{u8,..}`): one of
            // these families; a stem that is itself unknown is not.
            many if many.iter().all(|n| !n.starts_with('*')) => return Name::Set(made),
            _ => {
                return Name::Unknown("a `format!` of chosen names and run-time values".to_owned());
            }
        };
        if out.starts_with('*') {
            // No literal stem (`format!("{root}_{dtype}")` with `root` unknown): the glob
            // would take every kernel of the manifest, a family no path makes.
            Name::Unknown(format!("its stem is a run-time value (`{out}`)"))
        } else if occupancy_attr::is_glob(&out) {
            Name::Glob(out)
        } else {
            Name::Literal(out)
        }
    }
}

/// The attribute's `kernel` key for a launch.
struct Key {
    /// The arguments, as written (`kernel = "affine_*"`, or empty).
    args: String,
    /// Where the names came from, for notes.
    kernel_from: Option<String>,
    /// The names (or globs) the key lists, sorted (empty: no key).
    kernels: Vec<String>,
}

/// The attribute's arguments for `names` (the kernels `f` launches): nothing when the
/// attribute reads the one literal name itself, else `kernel = ...`; an error when a name is
/// unknown.
fn key(names: &[Name], f: &Func) -> Result<Key, String> {
    let mut written: Vec<String> = Vec::new();
    for n in names {
        match n {
            Name::Literal(s) | Name::Glob(s) => {
                if !written.contains(s) {
                    written.push(s.clone());
                }
            }
            Name::Set(set) | Name::Chosen(set) => {
                for s in set {
                    if !written.contains(s) {
                        written.push(s.clone());
                    }
                }
            }
            Name::Param(p) => {
                return Err(format!(
                    "the kernel is the parameter `{}`, named by the callers",
                    f.params.get(*p).cloned().flatten().unwrap_or_default()
                ));
            }
            Name::Unknown(why) => {
                return Err(format!("the kernel's name is built at run time: {why}"));
            }
        }
    }
    // The attribute reads a literal in `load_function("x")` (and the like) itself.
    let read_itself = written.len() == 1
        && f.scan.loads.iter().any(|load| {
            load.method
                && apis::kernel_name_arg(&load.name).is_some_and(|i| {
                    matches!(load.args.get(i).map(strip), Some(syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Str(s), .. })) if s.value() == written[0])
                })
        });
    if read_itself {
        return Ok(Key {
            args: String::new(),
            kernel_from: None,
            kernels: Vec::new(),
        });
    }
    written.sort();
    let value = match written.as_slice() {
        [one] => format!("{one:?}"),
        many => format!(
            "[{}]",
            many.iter()
                .map(|s| format!("{s:?}"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    };
    let from = if names.iter().any(|n| matches!(n, Name::Glob(_))) {
        "a name built at run time from a literal stem and a dtype"
    } else {
        "the names the code passes"
    };
    Ok(Key {
        args: format!("kernel = {value}"),
        kernel_from: Some(from.to_owned()),
        kernels: written,
    })
}

/// The launches inside a `macro_rules!` body, with the macro's invocations.
fn macro_launches(m: &MacroDef, invocations: Option<&Vec<String>>) -> Vec<Launch> {
    let expanded = match invocations.map(Vec::as_slice) {
        None | Some([]) => "not invoked in the crate's sources".to_owned(),
        Some(at) => format!(
            "expanded {} time{} ({})",
            at.len(),
            if at.len() == 1 { "" } else { "s" },
            at.join(", ")
        ),
    };
    let mut out = Vec::new();
    for (line, how) in &m.launches {
        out.push(Launch {
            location: format!("{}:{line}", m.shown),
            column: None,
            function: format!("macro_rules! {}", m.name),
            how,
            via: None,
            through: None,
            conditions: m.conditions.clone(),
            expanded_from: None,
            check: Check::Unread(format!(
                "inside `macro_rules! {}`, {expanded}: read only once expanded; annotate the \
                 function in the macro's body by hand (the build checks every expansion)",
                m.name
            )),
        });
    }
    out
}

/// Every macro invocation of a file, by the macro's last name: `src/unary.rs:26`.
struct Invocations<'o> {
    shown: &'o str,
    out: &'o mut BTreeMap<String, Vec<String>>,
}

impl<'ast> Visit<'ast> for Invocations<'_> {
    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        if let Some(last) = mac.path.segments.last()
            && last.ident != "macro_rules"
        {
            self.out
                .entry(last.ident.to_string())
                .or_default()
                .push(format!("{}:{}", self.shown, last.ident.span().start().line));
        }
    }
}

/// The `#[occupancy::check]`s written inside `macro_rules!` bodies of `file`: (line, the
/// macro's name). They are checked only by the build, which expands the macro.
pub(crate) fn attributes_in_macros(file: &syn::File) -> Vec<(usize, String)> {
    read_file(0, "", Vec::new(), file)
        .macros
        .into_iter()
        .flat_map(|m| m.attributes.into_iter().map(move |l| (l, m.name.clone())))
        .collect()
}

/// What [`Collect`] finds in one file read on its own (see [`read_file`]).
#[derive(Default)]
struct FileRead {
    funcs: Vec<Func>,
    macros: Vec<MacroDef>,
    str_methods: Vec<StrMethod>,
}

/// Reads `syntax` (file `file`, shown as `shown`, under the `cfg` `conditions`) on its own:
/// a file read again, a macro's expansion, a dependency's module; its constants and macros
/// are not the crate's.
fn read_file(file: usize, shown: &str, conditions: Vec<String>, syntax: &syn::File) -> FileRead {
    let mut read = FileRead::default();
    let mut collect = Collect {
        file,
        shown,
        conditions,
        impl_ty: None,
        aliases: check_aliases(syntax),
        funcs: &mut read.funcs,
        macros: &mut read.macros,
        consts: &mut BTreeMap::new(),
        assoc: &mut Vec::new(),
        str_methods: &mut read.str_methods,
        macro_rules: &mut Vec::new(),
        macro_calls: &mut Vec::new(),
        impl_trait: None,
        impl_bounds: Vec::new(),
    };
    collect.visit_file(syntax);
    read
}

/// Walks a file: its functions, `&str` constants (associated ones too) and macros.
struct Collect<'x> {
    file: usize,
    shown: &'x str,
    conditions: Vec<String>,
    impl_ty: Option<String>,
    /// Names bound to `occupancy::check` by `use` in this file.
    aliases: Vec<String>,
    funcs: &'x mut Vec<Func>,
    macros: &'x mut Vec<MacroDef>,
    consts: &'x mut BTreeMap<String, Vec<String>>,
    assoc: &'x mut Vec<AssocConst>,
    str_methods: &'x mut Vec<StrMethod>,
    /// Each `macro_rules!`, and each item macro invoked: (file, name, input, line).
    macro_rules: &'x mut Vec<MacroRules>,
    macro_calls: &'x mut Vec<MacroCall>,
    /// The trait of the impl being walked, and its generics' bounds.
    impl_trait: Option<String>,
    impl_bounds: Vec<(String, Vec<String>)>,
}

/// A string, or an array of strings, an impl gives an associated constant:
/// `const FNS: &'static [&'static str] = &["unfold_f32", ..]` in `impl HasCudaKernel<f32>`.
struct AssocConst {
    file: usize,
    /// The trait of the impl (its last name), `None` for an inherent impl.
    trait_: Option<String>,
    name: String,
    /// One element for a `&str` constant.
    values: Vec<String>,
    array: bool,
}

impl Collect<'_> {
    fn within(&mut self, attrs: &[syn::Attribute], what: &str, visit: impl FnOnce(&mut Self)) {
        let depth = self.conditions.len();
        self.conditions.extend(super::cfgs(attrs, what));
        visit(self);
        self.conditions.truncate(depth);
    }

    fn is_check(&self, attr: &syn::Attribute) -> bool {
        let path = attr.path();
        let segments: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
        let direct = match segments.as_slice() {
            [a, b] => a == "occupancy" && b == "check",
            [one] => self.aliases.contains(one),
            _ => false,
        };
        direct
            || (path.is_ident("cfg_attr")
                && contains_check(&attr.meta.to_token_stream_lossy(), &self.aliases))
    }

    fn function(
        &mut self,
        attrs: &[syn::Attribute],
        vis: Option<&syn::Visibility>,
        sig: &syn::Signature,
        body: &syn::Block,
    ) {
        let annotated = attrs.iter().any(|a| self.is_check(a));
        // The attribute goes after the doc comments, before the other attributes.
        let head = match vis {
            Some(syn::Visibility::Inherited) | None => sig.span(),
            Some(v) => v.span(),
        };
        let line = attrs
            .iter()
            .filter(|a| !a.path().is_ident("doc"))
            .map(|a| a.pound_token.span.start().line)
            .chain(std::iter::once(head.start().line))
            .min()
            .unwrap_or(1);
        let mut scan = Scan::default();
        let mut walk = Walk {
            scan: &mut scan,
            closure: None,
            arms: Vec::new(),
            branches: Vec::new(),
            forks: 0,
            binding: None,
        };
        walk.visit_block(body);
        self.funcs.push(Func {
            file: self.file,
            name: sig.ident.to_string(),
            impl_ty: self.impl_ty.clone(),
            sig: sig.clone(),
            body: body.clone(),
            line,
            span: sig.ident.span(),
            conditions: self.conditions.clone(),
            annotated,
            expanded_from: None,
            params: sig
                .inputs
                .iter()
                .map(|a| match a {
                    syn::FnArg::Receiver(_) => Some("self".to_owned()),
                    syn::FnArg::Typed(t) => match &*t.pat {
                        syn::Pat::Ident(i) => Some(i.ident.to_string()),
                        _ => None,
                    },
                })
                .collect(),
            bounds: {
                let mut b = self.impl_bounds.clone();
                b.extend(bounds(&sig.generics));
                b
            },
            scan,
            full: true,
        });
    }
}

/// `meta.to_token_stream()` without importing the trait everywhere.
trait Lossy {
    fn to_token_stream_lossy(&self) -> TokenStream;
}

impl Lossy for syn::Meta {
    fn to_token_stream_lossy(&self) -> TokenStream {
        quote::ToTokens::to_token_stream(self)
    }
}

/// Whether `tokens` hold `occupancy::check` (or an alias) as a path.
fn contains_check(tokens: &TokenStream, aliases: &[String]) -> bool {
    let trees: Vec<TokenTree> = tokens.clone().into_iter().collect();
    for (i, tree) in trees.iter().enumerate() {
        match tree {
            TokenTree::Ident(id) if id == "occupancy" => {
                if matches!(trees.get(i + 3), Some(TokenTree::Ident(c)) if c == "check") {
                    return true;
                }
            }
            TokenTree::Ident(id) if aliases.iter().any(|a| id == a) => {
                let after_colons =
                    i >= 2 && matches!(&trees[i - 1], TokenTree::Punct(p) if p.as_char() == ':');
                if !after_colons && matches!(trees.get(i + 1), Some(TokenTree::Group(_))) {
                    return true;
                }
            }
            TokenTree::Group(g) if contains_check(&g.stream(), aliases) => return true,
            _ => {}
        }
    }
    false
}

/// Names bound to `occupancy::check` by the file's `use` items.
fn check_aliases(file: &syn::File) -> Vec<String> {
    let mut out = Vec::new();
    struct Uses<'o>(&'o mut Vec<String>);
    impl<'ast> Visit<'ast> for Uses<'_> {
        fn visit_item_use(&mut self, u: &'ast syn::ItemUse) {
            super::uses(&u.tree, &[], self.0);
        }
    }
    Uses(&mut out).visit_file(file);
    out
}

impl<'ast> Visit<'ast> for Collect<'_> {
    fn visit_item_fn(&mut self, f: &'ast syn::ItemFn) {
        self.within(&f.attrs, &format!("fn {}", f.sig.ident), |this| {
            let outer = this.impl_ty.take();
            this.function(&f.attrs, Some(&f.vis), &f.sig, &f.block);
            syn::visit::visit_item_fn(this, f);
            this.impl_ty = outer;
        });
    }
    fn visit_impl_item_fn(&mut self, f: &'ast syn::ImplItemFn) {
        if let Some(ty) = &self.impl_ty
            && let Some(arms) = variant_strings(&f.sig, &f.block, ty)
        {
            self.str_methods.push(StrMethod {
                ty: ty.clone(),
                name: f.sig.ident.to_string(),
                arms,
            });
        }
        self.within(&f.attrs, &format!("fn {}", f.sig.ident), |this| {
            this.function(&f.attrs, Some(&f.vis), &f.sig, &f.block);
            syn::visit::visit_impl_item_fn(this, f);
        });
    }
    fn visit_trait_item_fn(&mut self, f: &'ast syn::TraitItemFn) {
        self.within(&f.attrs, &format!("fn {}", f.sig.ident), |this| {
            if let Some(body) = &f.default {
                this.function(&f.attrs, None, &f.sig, body);
            }
            syn::visit::visit_trait_item_fn(this, f);
        });
    }
    fn visit_item_mod(&mut self, m: &'ast syn::ItemMod) {
        self.within(&m.attrs, &format!("mod {}", m.ident), |this| {
            syn::visit::visit_item_mod(this, m);
        });
    }
    fn visit_item_impl(&mut self, i: &'ast syn::ItemImpl) {
        let ty = match &*i.self_ty {
            syn::Type::Path(p) => p.path.segments.last().map(|s| s.ident.to_string()),
            _ => None,
        };
        let what = ty
            .as_ref()
            .map_or_else(|| "impl".to_owned(), |t| format!("impl {t}"));
        let trait_ = i
            .trait_
            .as_ref()
            .and_then(|t| t.0.segments.last())
            .map(|s| s.ident.to_string());
        self.within(&i.attrs, &what, |this| {
            let outer = std::mem::replace(&mut this.impl_ty, ty);
            let outer_trait = std::mem::replace(&mut this.impl_trait, trait_);
            let outer_bounds = std::mem::replace(&mut this.impl_bounds, bounds(&i.generics));
            syn::visit::visit_item_impl(this, i);
            this.impl_ty = outer;
            this.impl_trait = outer_trait;
            this.impl_bounds = outer_bounds;
        });
    }
    fn visit_item_trait(&mut self, t: &'ast syn::ItemTrait) {
        self.within(&t.attrs, &format!("trait {}", t.ident), |this| {
            let outer = this.impl_ty.replace(t.ident.to_string());
            syn::visit::visit_item_trait(this, t);
            this.impl_ty = outer;
        });
    }
    fn visit_impl_item_const(&mut self, c: &'ast syn::ImplItemConst) {
        let (values, array) = match strip(&c.expr) {
            syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Str(s),
                ..
            }) => (vec![s.value()], false),
            // `&[..]` (strip takes the reference off).
            syn::Expr::Array(a) => {
                let values: Option<Vec<String>> = a
                    .elems
                    .iter()
                    .map(|e| match strip(e) {
                        syn::Expr::Lit(syn::ExprLit {
                            lit: syn::Lit::Str(s),
                            ..
                        }) => Some(s.value()),
                        _ => None,
                    })
                    .collect();
                match values {
                    Some(v) => (v, true),
                    None => return,
                }
            }
            _ => return,
        };
        self.assoc.push(AssocConst {
            file: self.file,
            trait_: self.impl_trait.clone(),
            name: c.ident.to_string(),
            values,
            array,
        });
    }
    fn visit_item_const(&mut self, c: &'ast syn::ItemConst) {
        if let syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Str(s),
            ..
        }) = &*c.expr
        {
            self.consts
                .entry(c.ident.to_string())
                .or_default()
                .push(s.value());
        }
    }
    fn visit_item_macro(&mut self, m: &'ast syn::ItemMacro) {
        if !m.mac.path.is_ident("macro_rules") {
            if let Some(last) = m.mac.path.segments.last() {
                self.macro_calls.push((
                    self.file,
                    last.ident.to_string(),
                    m.mac.tokens.clone(),
                    last.ident.span().start().line,
                    super::cfgs(&m.attrs, "the macro call"),
                ));
            }
            return;
        }
        let Some(name) = &m.ident else { return };
        self.macro_rules.push(MacroRules {
            file: self.file,
            line: name.span().start().line,
            name: name.to_string(),
            rules: macro_consts::rules(&m.mac.tokens),
        });
        let mut launches = Vec::new();
        let mut attributes = Vec::new();
        scan_tokens(
            &m.mac.tokens,
            &self.aliases,
            &mut launches,
            &mut attributes,
            0,
        );
        if !launches.is_empty() || !attributes.is_empty() {
            self.macros.push(MacroDef {
                file: self.file,
                name: name.to_string(),
                shown: self.shown.to_owned(),
                conditions: self.conditions.clone(),
                launches,
                attributes,
            });
        }
    }
}

/// The (variant, string) arms of a method `fn name(&self) -> &str { match self { Self::A =>
/// "a", .. } }` of `impl ty`; `None` for any other body (an arm that is not a variant of
/// `Self` or `ty` mapped to a string literal).
fn variant_strings(
    sig: &syn::Signature,
    body: &syn::Block,
    ty: &str,
) -> Option<Vec<(String, String)>> {
    if sig.inputs.len() != 1 || !matches!(sig.inputs.first(), Some(syn::FnArg::Receiver(_))) {
        return None;
    }
    let [syn::Stmt::Expr(syn::Expr::Match(m), None)] = body.stmts.as_slice() else {
        return None;
    };
    if ident(&m.expr).as_deref() != Some("self") {
        return None;
    }
    let variant = |p: &syn::Pat| match p {
        syn::Pat::Path(p)
            if p.qself.is_none()
                && p.path.segments.len() == 2
                && (p.path.segments[0].ident == "Self" || p.path.segments[0].ident == ty) =>
        {
            Some(p.path.segments[1].ident.to_string())
        }
        _ => None,
    };
    let mut out = Vec::new();
    for arm in &m.arms {
        let syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Str(value),
            ..
        }) = strip(&arm.body)
        else {
            return None;
        };
        let pats: Vec<&syn::Pat> = match &arm.pat {
            syn::Pat::Or(o) => o.cases.iter().collect(),
            one => vec![one],
        };
        for p in pats {
            out.push((variant(p)?, value.value()));
        }
    }
    Some(out)
}

/// Launch calls and `#[occupancy::check]`s in a macro body's tokens.
fn scan_tokens(
    tokens: &TokenStream,
    aliases: &[String],
    launches: &mut Vec<(usize, &'static str)>,
    attributes: &mut Vec<usize>,
    depth: usize,
) {
    if depth > 64 {
        return;
    }
    let trees: Vec<TokenTree> = tokens.clone().into_iter().collect();
    for (i, tree) in trees.iter().enumerate() {
        match tree {
            TokenTree::Punct(p) if p.as_char() == '.' => {
                if let (Some(TokenTree::Ident(m)), Some(TokenTree::Group(g))) =
                    (trees.get(i + 1), trees.get(i + 2))
                    && g.delimiter() == Delimiter::Parenthesis
                    && !g.stream().is_empty()
                    && let Some(how) = how_of(&m.to_string(), &trees[..i], &g.stream())
                {
                    launches.push((m.span().start().line, how));
                }
            }
            TokenTree::Punct(p) if p.as_char() == '#' => {
                if let Some(TokenTree::Group(g)) = trees.get(i + 1)
                    && g.delimiter() == Delimiter::Bracket
                    && contains_check(&g.stream(), aliases)
                {
                    attributes.push(p.span().start().line);
                }
            }
            TokenTree::Group(g) => {
                scan_tokens(&g.stream(), aliases, launches, attributes, depth + 1)
            }
            _ => {}
        }
    }
}

/// What launch a method call named `method` is, if one, from the tokens of a macro's body:
/// `preceding`, the tokens before its `.`, and `args`, its arguments (see [`launch_how`]).
fn how_of(method: &str, preceding: &[TokenTree], args: &TokenStream) -> Option<&'static str> {
    let builder = preceding
        .iter()
        .any(|t| matches!(t, TokenTree::Ident(i) if i == apis::LAUNCH_BUILDER));
    let one_argument = !args
        .clone()
        .into_iter()
        .any(|t| matches!(t, TokenTree::Punct(p) if p.as_char() == ','));
    launch_how(method, builder || one_argument)
}

/// How the report names a launch by the method `method` ([`apis::launch_config_arg`]),
/// called on cudarc's launch builder (`builder`: the builder is in the receiver, or the call
/// takes the configuration alone, as a builder bound by `let` does) or on the older
/// `LaunchAsync` API (`launch(cfg, params)`); `None` for another method.
fn launch_how(method: &str, builder: bool) -> Option<&'static str> {
    Some(match (method, builder) {
        ("launch", true) => "cudarc launch_builder(..).launch",
        ("launch_cooperative", true) => "cudarc launch_builder(..).launch_cooperative",
        ("launch", false) => "launch (LaunchAsync)",
        ("launch_cooperative", false) => "launch_cooperative (LaunchAsync)",
        ("launch_on_stream", _) => "launch_on_stream (LaunchAsync)",
        ("launch_async", _) => "launch_async",
        _ => return None,
    })
}

/// Walks a function body for launches, loads, `let`s, closures and calls.
struct Walk<'s> {
    scan: &'s mut Scan,
    /// The closure (bound by `let`) being walked.
    closure: Option<String>,
    /// The `match` arms being walked (see [`LaunchCall::arms`]).
    arms: Vec<Arm>,
    /// The branches being walked, and how many `match`es and `if`s were met.
    branches: Vec<Branch>,
    forks: u32,
    /// The name the `let` being walked binds.
    binding: Option<String>,
}

impl Walk<'_> {
    /// The type's name of `receiver` when it is a struct expression, or a name the function
    /// bound to one (`let op = ConvForward { conv: &conv, x: &x, w: &w, y: &y };`).
    fn struct_built(&self, receiver: &syn::Expr) -> Option<String> {
        let bound = match strip(receiver) {
            syn::Expr::Path(p) => p
                .path
                .get_ident()
                .and_then(|name| self.scan.lets.get(&name.to_string())),
            _ => None,
        };
        match strip(bound.unwrap_or(receiver)) {
            syn::Expr::Struct(s) => s.path.segments.last().map(|l| l.ident.to_string()),
            _ => None,
        }
    }
}

impl<'ast> Visit<'ast> for Walk<'_> {
    fn visit_local(&mut self, local: &'ast syn::Local) {
        if let (syn::Pat::Ident(p), Some(init)) = (strip_pat(&local.pat), &local.init) {
            let name = p.ident.to_string();
            if let syn::Expr::Closure(c) = strip(&init.expr) {
                let params = c
                    .inputs
                    .iter()
                    .map(|p| match strip_pat(p) {
                        syn::Pat::Ident(i) => Some(i.ident.to_string()),
                        _ => None,
                    })
                    .collect();
                self.scan.closures.insert(name.clone(), params);
                let outer = self.closure.replace(name);
                self.visit_expr(&c.body);
                self.closure = outer;
                return;
            }
            if let Some(earlier) = self.scan.lets.insert(name.clone(), (*init.expr).clone()) {
                self.scan.rebound.push(name.clone());
                self.scan.earlier.insert(name.clone(), earlier);
            }
            let outer = self.binding.replace(name);
            syn::visit::visit_local(self, local);
            self.binding = outer;
            return;
        }
        // `let (kernel_name, block_dim) = match dtype { .. }`: each name is its element of
        // the value.
        if let (syn::Pat::Tuple(t), Some(init)) = (strip_pat(&local.pat), &local.init) {
            let value = &init.expr;
            for (i, elem) in t.elems.iter().enumerate() {
                if let syn::Pat::Ident(p) = strip_pat(elem) {
                    let index = syn::Index::from(i);
                    self.scan
                        .lets
                        .insert(p.ident.to_string(), syn::parse_quote!((#value).#index));
                }
            }
        }
        syn::visit::visit_local(self, local);
    }

    fn visit_expr_method_call(&mut self, m: &'ast syn::ExprMethodCall) {
        let method = m.method.to_string();
        if let Some(at) = apis::launch_config_arg(&method)
            && !m.args.is_empty()
        {
            let builder = builder_arg(&m.receiver);
            // A builder bound by `let` (`let mut b = stream.launch_builder(&f);
            // b.launch(cfg)`) is not in the receiver: its `launch` takes the configuration
            // alone, the older API's `launch(cfg, params)` two arguments.
            let one_argument = m.args.len() == 1;
            let how =
                launch_how(&method, builder.is_some() || one_argument).unwrap_or("launch_async");
            // The builder's `launch(cfg)` takes the configuration first; the older API's
            // `launch(cfg, params)` too; `launch_on_stream(stream, cfg, params)` second.
            let config = m
                .args
                .iter()
                .nth(if builder.is_some() { 0 } else { at })
                .cloned();
            let function = builder.or_else(|| Some((*m.receiver).clone()));
            let on_struct = self.struct_built(&m.receiver).map(|t| (t, method.clone()));
            self.scan.calls.push(LaunchCall {
                line: m.method.span().start().line,
                column: Some(m.method.span().start().column),
                how,
                config,
                function,
                closure: self.closure.clone(),
                in_macro: None,
                tile: false,
                arms: self.arms.clone(),
                branches: self.branches.clone(),
                on_struct,
            });
        }
        if apis::is_tile_launch(&method) && self.sets_tile_grid(&m.receiver, 0) {
            self.scan.calls.push(LaunchCall {
                line: m.method.span().start().line,
                column: Some(m.method.span().start().column),
                how: "cuTile launcher",
                config: None,
                function: None,
                closure: self.closure.clone(),
                in_macro: None,
                tile: true,
                arms: self.arms.clone(),
                branches: self.branches.clone(),
                on_struct: None,
            });
        }
        if apis::is_loader_like(&method) {
            self.scan.loads.push(Load {
                name: method.clone(),
                method: true,
                args: m.args.iter().cloned().collect(),
                closure: self.closure.clone(),
                branches: self.branches.clone(),
                bound_to: self.binding.clone(),
            });
        }
        self.scan.callees.push(Callee {
            line: m.method.span().start().line,
            column: m.method.span().start().column,
            name: method,
            args: m.args.iter().cloned().collect(),
            method_syntax: true,
        });
        syn::visit::visit_expr_method_call(self, m);
    }

    fn visit_expr_call(&mut self, c: &'ast syn::ExprCall) {
        if let syn::Expr::Path(p) = &*c.func
            && let Some(last) = p.path.segments.last()
        {
            let name = last.ident.to_string();
            if apis::is_loader_like(&name) {
                self.scan.loads.push(Load {
                    name: name.clone(),
                    method: false,
                    args: c.args.iter().cloned().collect(),
                    closure: self.closure.clone(),
                    branches: self.branches.clone(),
                    bound_to: self.binding.clone(),
                });
            }
            // A path call: `f(a)`, `Self::f(self, a)` (the receiver is the first argument).
            self.scan.callees.push(Callee {
                line: last.ident.span().start().line,
                column: syn::spanned::Spanned::span(&*c.func).start().column,
                name,
                args: c.args.iter().cloned().collect(),
                method_syntax: false,
            });
        }
        syn::visit::visit_expr_call(self, c);
    }

    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        // cust's `launch!(m.k<<<grid, block, smem, stream>>>(args))`.
        if mac
            .path
            .segments
            .last()
            .is_some_and(|s| s.ident == apis::LAUNCH_MACRO)
        {
            let trees: Vec<TokenTree> = mac.tokens.clone().into_iter().collect();
            let spelled = mac.tokens.to_string().replace(' ', "");
            if spelled.contains("<<<") {
                let kernel = trees
                    .iter()
                    .position(|t| matches!(t, TokenTree::Punct(p) if p.as_char() == '<'))
                    .and_then(|i| i.checked_sub(1))
                    .and_then(|i| match &trees[i] {
                        TokenTree::Ident(k) => Some(k.to_string()),
                        _ => None,
                    });
                // Where the attribute's reader places the launch: the first `<` of `<<<`.
                let is = |i: usize, c: char| matches!(trees.get(i), Some(TokenTree::Punct(p)) if p.as_char() == c);
                let column = (0..trees.len())
                    .find(|&i| is(i, '<') && is(i + 1, '<') && is(i + 2, '<'))
                    .map(|i| trees[i].span().start())
                    .filter(|start| start.line == mac.path.span().start().line)
                    .map(|start| start.column);
                self.scan.calls.push(LaunchCall {
                    line: mac.path.span().start().line,
                    column,
                    how: "cust launch!",
                    config: None,
                    function: None,
                    closure: self.closure.clone(),
                    in_macro: None,
                    tile: false,
                    arms: self.arms.clone(),
                    branches: self.branches.clone(),
                    on_struct: None,
                });
                if let Some(kernel) = kernel {
                    // The attribute reads cust's kernel name itself, as a literal load.
                    let lit = syn::LitStr::new(&kernel, Span::call_site());
                    self.scan.loads.push(Load {
                        name: "load_function".to_owned(),
                        method: true,
                        args: vec![syn::parse_quote!(#lit)],
                        closure: self.closure.clone(),
                        branches: self.branches.clone(),
                        bound_to: self.binding.clone(),
                    });
                }
                return;
            }
        }
        // Arguments of other macros are not parsed: a launch among them is listed, not
        // read.
        let mut launches = Vec::new();
        scan_tokens(&mac.tokens, &[], &mut launches, &mut Vec::new(), 0);
        let name = mac
            .path
            .segments
            .last()
            .map_or_else(String::new, |s| s.ident.to_string());
        for (line, how) in launches {
            self.scan.calls.push(LaunchCall {
                line,
                column: None,
                how,
                config: None,
                function: None,
                closure: self.closure.clone(),
                in_macro: Some(name.clone()),
                tile: false,
                arms: self.arms.clone(),
                branches: self.branches.clone(),
                on_struct: None,
            });
        }
    }

    fn visit_expr_if(&mut self, i: &'ast syn::ExprIf) {
        self.visit_expr(&i.cond);
        let fork = self.forks;
        self.forks += 1;
        self.branches.push((fork, 0));
        self.visit_block(&i.then_branch);
        self.branches.pop();
        if let Some((_, other)) = &i.else_branch {
            self.branches.push((fork, 1));
            self.visit_expr(other);
            self.branches.pop();
        }
    }

    fn visit_expr_match(&mut self, m: &'ast syn::ExprMatch) {
        self.visit_expr(&m.expr);
        let scrutinee = ident(&m.expr);
        let fork = self.forks;
        self.forks += 1;
        for (index, arm) in m.arms.iter().enumerate() {
            self.branches.push((fork, index as u32));
            let variant = match (&scrutinee, &arm.pat) {
                (Some(_), syn::Pat::Path(p)) if p.qself.is_none() && p.path.segments.len() >= 2 => {
                    Some(
                        p.path
                            .segments
                            .iter()
                            .map(|s| s.ident.to_string())
                            .collect(),
                    )
                }
                _ => None,
            };
            let pushed = match (&scrutinee, variant) {
                (Some(name), Some(variant)) => {
                    self.arms.push(Arm {
                        scrutinee: name.clone(),
                        variant,
                    });
                    true
                }
                _ => false,
            };
            self.visit_expr(&arm.body);
            if pushed {
                self.arms.pop();
            }
            self.branches.pop();
        }
    }

    fn visit_expr_assign(&mut self, a: &'ast syn::ExprAssign) {
        if let Some(name) = ident(&a.left) {
            self.scan.assigned.push(name);
        }
        syn::visit::visit_expr_assign(self, a);
    }

    fn visit_expr_binary(&mut self, b: &'ast syn::ExprBinary) {
        if matches!(
            b.op,
            syn::BinOp::AddAssign(_)
                | syn::BinOp::SubAssign(_)
                | syn::BinOp::MulAssign(_)
                | syn::BinOp::DivAssign(_)
                | syn::BinOp::RemAssign(_)
                | syn::BinOp::BitXorAssign(_)
                | syn::BinOp::BitAndAssign(_)
                | syn::BinOp::BitOrAssign(_)
                | syn::BinOp::ShlAssign(_)
                | syn::BinOp::ShrAssign(_)
        ) && let Some(name) = ident(&b.left)
        {
            self.scan.assigned.push(name);
        }
        syn::visit::visit_expr_binary(self, b);
    }

    fn visit_item(&mut self, _: &'ast syn::Item) {
        // Items nested in the body are functions of their own.
    }
}

/// `launch_builder(&f)`'s argument, in the receiver chain of a launch call.
impl Walk<'_> {
    /// Whether `launcher` is a cuTile launcher: a method chain with a [`apis::TILE_GRID`]
    /// call (`kernels::add(..).grid(..)`), or a name a `let` bound to one.
    fn sets_tile_grid(&self, launcher: &syn::Expr, depth: usize) -> bool {
        match strip(launcher) {
            syn::Expr::MethodCall(m) => {
                m.method == apis::TILE_GRID || self.sets_tile_grid(&m.receiver, depth)
            }
            e => {
                depth < MAX_FOLLOW
                    && ident(e)
                        .and_then(|name| self.scan.lets.get(&name))
                        .is_some_and(|init| self.sets_tile_grid(init, depth + 1))
            }
        }
    }
}

fn builder_arg(receiver: &syn::Expr) -> Option<syn::Expr> {
    let mut at = receiver;
    for _ in 0..256 {
        match strip(at) {
            syn::Expr::MethodCall(m) if m.method == apis::LAUNCH_BUILDER => {
                return m.args.first().cloned();
            }
            syn::Expr::MethodCall(m) => at = &m.receiver,
            _ => return None,
        }
    }
    None
}

/// The single identifier `expr` is (through `&`, parentheses, `*`).
fn ident(expr: &syn::Expr) -> Option<String> {
    match strip(expr) {
        syn::Expr::Path(p) => p.path.get_ident().map(ToString::to_string),
        syn::Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) => ident(&u.expr),
        _ => None,
    }
}

fn strip(e: &syn::Expr) -> &syn::Expr {
    match e {
        syn::Expr::Paren(p) => strip(&p.expr),
        syn::Expr::Group(g) => strip(&g.expr),
        syn::Expr::Reference(r) => strip(&r.expr),
        syn::Expr::Try(t) => strip(&t.expr),
        other => other,
    }
}

fn strip_pat(p: &syn::Pat) -> &syn::Pat {
    match p {
        syn::Pat::Type(t) => strip_pat(&t.pat),
        syn::Pat::Paren(p) => strip_pat(&p.pat),
        other => other,
    }
}

/// The path one of a file's `use` items (at any depth, function bodies included) brings
/// `name` in from: `["candle", "cuda_backend", "kernel_name"]`.
fn imported_from(uses: &[syn::ItemUse], name: &str) -> Option<Vec<String>> {
    fn walk(tree: &syn::UseTree, prefix: &mut Vec<String>, name: &str) -> Option<Vec<String>> {
        match tree {
            syn::UseTree::Path(p) => {
                prefix.push(p.ident.to_string());
                let found = walk(&p.tree, prefix, name);
                prefix.pop();
                found
            }
            syn::UseTree::Name(n) if n.ident == name => {
                let mut path = prefix.clone();
                path.push(name.to_owned());
                Some(path)
            }
            syn::UseTree::Rename(r) if r.rename == name => {
                let mut path = prefix.clone();
                path.push(r.ident.to_string());
                Some(path)
            }
            syn::UseTree::Group(g) => g.items.iter().find_map(|t| walk(t, prefix, name)),
            _ => None,
        }
    }
    uses.iter()
        .find_map(|u| walk(&u.tree, &mut Vec::new(), name))
        .filter(|p| p.len() > 1)
}

/// Whether control never gets past `expr`: `return`, `bail!`, `panic!` and the like.
fn diverges(expr: &syn::Expr) -> bool {
    // `Err(..)?`, also through methods without arguments that keep an error an error
    // (`Err(..).w()?`, a crate's conversion of the error type).
    if let syn::Expr::Try(t) = expr {
        let mut inner = strip(&t.expr);
        while let syn::Expr::MethodCall(m) = inner
            && m.args.is_empty()
            && !matches!(
                m.method.to_string().as_str(),
                "err"
                    | "is_err"
                    | "is_ok"
                    | "unwrap_or_default"
                    | "unwrap_err"
                    | "into_err"
                    | "iter"
                    | "into_iter"
                    | "transpose"
            )
        {
            inner = strip(&m.receiver);
        }
        if let syn::Expr::Call(c) = inner
            && matches!(&*c.func, syn::Expr::Path(p) if p.path.is_ident("Err"))
        {
            return true;
        }
    }
    match strip(expr) {
        syn::Expr::Return(_) => true,
        syn::Expr::Macro(m) => diverging_macro(&m.mac),
        syn::Expr::Block(b) => {
            value_of_block(&b.block).map_or_else(|| block_diverges(&b.block), diverges)
        }
        _ => false,
    }
}

/// The expression a block's value is (its tail without a `;`).
fn value_of_block(block: &syn::Block) -> Option<&syn::Expr> {
    match block.stmts.last()? {
        syn::Stmt::Expr(e, None) => Some(e),
        _ => None,
    }
}

/// Whether a block without a tail ends in a `return ..;` or a diverging macro.
fn block_diverges(block: &syn::Block) -> bool {
    match block.stmts.last() {
        Some(syn::Stmt::Expr(e, _)) => diverges(e),
        Some(syn::Stmt::Macro(m)) => diverging_macro(&m.mac),
        _ => false,
    }
}

/// `bail!`, `panic!`, `unreachable!`, `todo!`, `unimplemented!`.
fn diverging_macro(mac: &syn::Macro) -> bool {
    mac.path.segments.last().is_some_and(|s| {
        matches!(
            s.ident.to_string().as_str(),
            "bail" | "panic" | "unreachable" | "todo" | "unimplemented"
        )
    })
}

/// The expression a block ends with, also as `return expr;`.
fn tail_expr(block: &syn::Block) -> Option<&syn::Expr> {
    match block.stmts.last()? {
        syn::Stmt::Expr(e, None) => Some(e),
        syn::Stmt::Expr(syn::Expr::Return(r), _) => r.expr.as_deref(),
        _ => None,
    }
}

fn text(e: &syn::Expr) -> String {
    quote::ToTokens::to_token_stream(e).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(files: &[(&'static str, &str)]) -> Vec<(String, syn::File)> {
        files
            .iter()
            .map(|(shown, text)| {
                let source = occupancy_attr::parse_source_file(text, shown).unwrap();
                ((*shown).to_owned(), source.syntax)
            })
            .collect()
    }

    /// [`Collector`] over `files` (shown path, text), each tree dropped once added, as
    /// the report does.
    fn find_in(files: &[(&'static str, &str)]) -> Vec<Launch> {
        let mut collector = Collector::default();
        for (shown, syntax) in parse(files) {
            collector.add(&shown, &syntax);
        }
        collector.finish(
            vec![Vec::new(); files.len()],
            |i| parse(&files[i..=i]).pop().map(|(_, syntax)| syntax),
            &|_| None,
        )
    }

    fn launches(files: &[(&'static str, &str)]) -> Vec<(String, String, String)> {
        find_in(files)
            .into_iter()
            .map(|l| {
                let check = match l.check {
                    Check::Attribute { args, target, .. } => {
                        format!(
                            "{} at line {}",
                            super::super::attribute_text(&args),
                            target.line
                        )
                    }
                    Check::Annotated => "annotated".to_owned(),
                    Check::Unread(why) => format!("unread: {why}"),
                };
                (l.location, l.function, check)
            })
            .collect()
    }

    /// How each launch is named: cudarc's builder whether it is chained, bound by `let` or
    /// made by a crate's own `builder()` (its `launch` takes the configuration alone), and
    /// the older `LaunchAsync::launch(cfg, params)`.
    #[test]
    fn a_builder_bound_by_let_is_named_as_the_builder() {
        let found = find_in(&[(
            "src/lib.rs",
            r#"
                fn chained(stream: &Stream, f: &CudaFunction, n: u32) -> Result<()> {
                    unsafe { stream.launch_builder(f).arg(&n).launch(LaunchConfig::for_num_elems(n)) }?;
                    Ok(())
                }
                fn bound(stream: &Stream, f: &CudaFunction, n: u32) -> Result<()> {
                    let mut b = stream.launch_builder(f);
                    b.arg(&n);
                    unsafe { b.launch(LaunchConfig::for_num_elems(n)) }?;
                    Ok(())
                }
                fn own(f: &Func, n: u32) -> Result<()> {
                    let mut builder = f.builder();
                    builder.arg(&n);
                    unsafe { builder.launch(LaunchConfig::for_num_elems(n)) }?;
                    Ok(())
                }
                fn older(f: CudaFunction, n: u32) -> Result<()> {
                    unsafe { f.launch(LaunchConfig::for_num_elems(n), (n,)) }?;
                    Ok(())
                }
                "#,
        )]);
        let hows: Vec<(&str, &str)> = found.iter().map(|l| (l.function.as_str(), l.how)).collect();
        assert_eq!(
            hows,
            [
                ("chained", "cudarc launch_builder(..).launch"),
                ("bound", "cudarc launch_builder(..).launch"),
                ("own", "cudarc launch_builder(..).launch"),
                ("older", "launch (LaunchAsync)"),
            ]
        );
    }

    /// A launch in another macro's arguments (listed, not read) is named as the walk names
    /// it: a builder's `launch(cfg)` by its one argument even where the builder was bound
    /// by `let`, the older API's by its two.
    #[test]
    fn a_launch_in_a_macros_arguments_is_named_as_the_walk_names_it() {
        let found = find_in(&[(
            "src/lib.rs",
            r#"
                fn bound(stream: &Stream, f: &CudaFunction, n: u32) -> Result<()> {
                    let mut b = stream.launch_builder(f);
                    traced!(unsafe { b.launch(LaunchConfig::for_num_elems(n)) });
                    Ok(())
                }
                fn older(f: CudaFunction, n: u32) -> Result<()> {
                    traced!(unsafe { f.launch_cooperative(LaunchConfig::for_num_elems(n), (n,)) });
                    Ok(())
                }
                "#,
        )]);
        let hows: Vec<(&str, &str)> = found.iter().map(|l| (l.function.as_str(), l.how)).collect();
        assert_eq!(
            hows,
            [
                ("bound", "cudarc launch_builder(..).launch"),
                ("older", "launch_cooperative (LaunchAsync)"),
            ]
        );
    }

    /// A cuDNN operation (cudarc's `ConvForward { .. }`, built by the function) has a
    /// `launch(algo, workspace, ..)` that runs cuDNN's own kernels: no launch site, whether
    /// bound by `let` or called on the struct expression; a kernel's launch beside it stays,
    /// and so does the `launch` of a struct the crate defines it on (its own launcher).
    #[test]
    fn a_struct_the_function_builds_launches_no_kernel() {
        let found = find_in(&[(
            "src/conv.rs",
            r#"
                pub struct Func { pub f: CudaFunction }
                impl Func {
                    pub unsafe fn launch(&self, cfg: LaunchConfig, n: u32) -> Result<()> { Ok(()) }
                }
                fn own(f: CudaFunction, n: u32) -> Result<()> {
                    let w = Func { f };
                    unsafe { w.launch(LaunchConfig::for_num_elems(n), n) }?;
                    Ok(())
                }
                fn conv(cudnn: &Cudnn, f: CudaFunction, n: u32) -> Result<()> {
                    let op = ConvForward { conv: &conv, x: &x, w: &w, y: &y };
                    let algo = op.pick_algorithm()?;
                    unsafe { op.launch(algo, Some(&mut workspace), (1.0, 0.0), &img, &filter, &mut out) }?;
                    unsafe { ConvBackwardData { conv: &conv }.launch(algo, None, (1.0, 0.0), &a, &b, &mut c) }?;
                    unsafe { f.launch(LaunchConfig::for_num_elems(n), (n,)) }?;
                    Ok(())
                }
                "#,
        )]);
        let lines: Vec<(&str, &str)> = found.iter().map(|l| (l.location.as_str(), l.how)).collect();
        assert_eq!(
            lines,
            [
                ("src/conv.rs:8", "launch (LaunchAsync)"),
                ("src/conv.rs:16", "launch (LaunchAsync)")
            ]
        );
    }

    #[test]
    fn a_generic_kernel_constant_is_each_impl_a_macro_makes_of_the_bound_trait() {
        // dfdx's style: `macro_rules!` impls of two traits that both name `FWD`; the
        // launch is generic over `K: Unary`, so only the unary impls' names are its kernels.
        let found = launches(&[(
            "src/ops.rs",
            r#"
                pub trait Unary<E> { const FWD: &'static str; }
                pub trait Binary<E> { const FWD: &'static str; }
                macro_rules! unary { ($Op:path, $T:ty, $Fwd:tt) => {
                    impl crate::ops::Unary<$T> for $Op { const FWD: &'static str = $Fwd; }
                }; }
                macro_rules! binary { ($Op:path, $T:ty, $Fwd:tt) => {
                    impl Binary<$T> for $Op { const FWD: &'static str = $Fwd; }
                }; }
                unary!(Abs, f32, "abs_fwd_f32");
                unary!(Abs, f64, "abs_fwd_f64");
                binary!(Add, f32, "badd_fwd_f32");
                impl<E, K: Unary<E>> Run<K, E> for Cuda {
                    fn forward(&self, n: u32) -> Result<()> {
                        let f = self.dev.get_func(K::FWD, K::FWD).unwrap();
                        unsafe { f.launch(LaunchConfig::for_num_elems(n), (n,)) }?;
                        Ok(())
                    }
                }
                impl<E, K> Run2<K, E> for Cuda where K: Binary<E> {
                    fn forward(&self, n: u32) -> Result<()> {
                        let f = self.dev.get_func(K::FWD, K::FWD).unwrap();
                        unsafe { f.launch(LaunchConfig::for_num_elems(n), (n,)) }?;
                        Ok(())
                    }
                }
                fn unbound<K>(dev: &Dev, n: u32) -> Result<()> {
                    let f = dev.get_func(K::FWD, K::FWD).unwrap();
                    unsafe { f.launch(LaunchConfig::for_num_elems(n), (n,)) }?;
                    Ok(())
                }
                "#,
        )]);
        let checks: Vec<&str> = found.iter().map(|(_, _, c)| c.as_str()).collect();
        assert_eq!(
            checks,
            [
                "#[occupancy::check(kernel = [\"abs_fwd_f32\", \"abs_fwd_f64\"])] at line 14",
                "#[occupancy::check(kernel = \"badd_fwd_f32\")] at line 21",
                "unread: the kernel's name is built at run time: `K :: FWD` is not read",
            ]
        );
    }

    #[test]
    fn the_module_constant_every_load_passes_is_the_launchs_module() {
        // candle's style: the loader takes the name and the module's PTX constant.
        let found = find_in(&[(
            "src/storage.rs",
            r#"
                impl Storage {
                    fn fill(&self, n: u32) -> Result<()> {
                        let name = match self.dtype { D::U8 => "fill_u8", D::I16 => "fill_i16" };
                        let func = self.dev.get_or_load_func(name, &kernels::FILL)?;
                        unsafe { func.launch(LaunchConfig::for_num_elems(n), (n,)) }.w()?;
                        Ok(())
                    }
                    fn two(&self, n: u32) -> Result<()> {
                        let a = self.dev.get_or_load_func("a_u8", &kernels::FILL)?;
                        let b = self.dev.get_or_load_func("b_u8", &mods::COPY)?;
                        unsafe { a.launch(LaunchConfig::for_num_elems(n), (n,)) }.w()?;
                        unsafe { b.launch(LaunchConfig::for_num_elems(n), (n,)) }.w()?;
                        Ok(())
                    }
                    fn mixed(&self, n: u32, m: &Module) -> Result<()> {
                        let f = if n > 4 {
                            self.dev.get_or_load_func("c_u8", &kernels::FILL)?
                        } else {
                            self.dev.get_or_load_func("c_f32", &kernels::COPY)?
                        };
                        unsafe { f.launch(LaunchConfig::for_num_elems(n), (n,)) }.w()?;
                        let g = self.dev.get_or_load_func("d_u8", m)?;
                        unsafe { g.launch(LaunchConfig::for_num_elems(n), (n,)) }.w()?;
                        Ok(())
                    }
                }
                "#,
        )]);
        let modules: Vec<(String, Vec<String>, Option<String>)> = found
            .into_iter()
            .map(|l| match l.check {
                Check::Attribute {
                    kernels, module, ..
                } => (l.location, kernels, module),
                _ => (l.location, Vec::new(), None),
            })
            .collect();
        let at = |line: usize, kernels: &[&str], module: Option<&str>| {
            (
                format!("src/storage.rs:{line}"),
                kernels.iter().map(|k| k.to_string()).collect::<Vec<_>>(),
                module.map(str::to_owned),
            )
        };
        assert_eq!(
            modules,
            [
                at(6, &["fill_i16", "fill_u8"], Some("fill")),
                at(12, &["a_u8"], Some("fill")),
                at(13, &["b_u8"], Some("copy")),
                // Two loads that pass different modules, one that passes a variable: none.
                at(22, &["c_f32", "c_u8"], None),
                at(24, &["d_u8"], None),
            ]
        );
    }

    #[test]
    fn a_macro_with_launches_is_read_once_per_invocation() {
        // dfdx's style: one impl per dtype made by a `macro_rules!` whose body launches.
        let found = launches(&[(
            "src/gather.rs",
            r#"
                macro_rules! impl_gather {
                    ($T:ty, $Mod:tt, $Fwd:tt) => {
                        impl GatherKernel<$T> for Cuda {
                            fn forward(&self, n: u32) -> Result<(), Err> {
                                let f = self.dev.get_func($Mod, $Fwd).unwrap();
                                unsafe { f.launch(launch_cfg::<128>(n), (n,)) }?;
                                Ok(())
                            }
                        }
                    };
                }
                #[cfg(feature = "f16")]
                impl_gather!(f16, "gather_f16", "gather_fwd_f16");
                impl_gather!(f32, "gather_f32", "gather_fwd_f32");
                macro_rules! impl_other {
                    ($($T:ty),*) => {
                        fn run(dev: &Dev, n: u32) -> Result<(), Err> {
                            let f = dev.get_func("m", "other").unwrap();
                            unsafe { f.launch(launch_cfg::<64>(n), (n,)) }?;
                            Ok(())
                        }
                    };
                }
                impl_other!(f32, f64);
                "#,
        )]);
        assert_eq!(
            found,
            [
                // Each expansion at the macro body's launch, its kernel read by the attribute.
                (
                    "src/gather.rs:7".to_owned(),
                    "Cuda::forward".to_owned(),
                    "#[occupancy::check] at line 5".to_owned()
                ),
                (
                    "src/gather.rs:7".to_owned(),
                    "Cuda::forward".to_owned(),
                    "#[occupancy::check] at line 5".to_owned()
                ),
                // A matcher the report does not read: not expanded.
                (
                    "src/gather.rs:20".to_owned(),
                    "macro_rules! impl_other".to_owned(),
                    "unread: inside `macro_rules! impl_other`, expanded 1 time \
                     (src/gather.rs:25): read only once expanded; annotate the function in \
                     the macro's body by hand (the build checks every expansion)"
                        .to_owned()
                ),
            ]
        );
        // The invocation's `cfg` is the expansion's.
        let conditions: Vec<Vec<String>> = find_in(&[(
            "src/gather.rs",
            r#"
                macro_rules! m { ($Fwd:tt) => { fn go(dev: &Dev, n: u32) -> Result<(), E> {
                    let f = dev.get_func("m", $Fwd).unwrap();
                    unsafe { f.launch(LaunchConfig::for_num_elems(n), (n,)) }?;
                    Ok(())
                } }; }
                #[cfg(feature = "f16")]
                m!("go_f16");
                "#,
        )])
        .into_iter()
        .map(|l| l.conditions)
        .collect();
        assert_eq!(
            conditions,
            [vec!["cfg(feature = \"f16\") on the macro call".to_owned()]]
        );
    }

    #[test]
    fn a_launch_takes_the_kernels_loaded_into_the_function_it_launches() {
        // dfdx's style: two functions loaded by index into one trait's name lists, each
        // launched once; each launch is its own function's, not the other's.
        let found = launches(&[(
            "src/lib.rs",
            r#"
                trait HasKernel<E> { const MOD: &'static str; const FNS: &'static [&'static str]; }
                impl HasKernel<f32> for Cuda { const MOD: &'static str = "max_f32"; const FNS: &'static [&'static str] = &["max_fwd_f32", "fill_f32"]; }
                impl HasKernel<f64> for Cuda { const MOD: &'static str = "max_f64"; const FNS: &'static [&'static str] = &["max_fwd_f64", "fill_f64"]; }
                impl<E> Cuda where Self: HasKernel<E> {
                    fn forward(&self, n: u32) -> Result<()> {
                        let fill_fn = self.dev.get_func(Self::MOD, Self::FNS[1]).unwrap();
                        let fwd_fn = self.dev.get_func(Self::MOD, Self::FNS[0]).unwrap();
                        unsafe { fill_fn.launch(LaunchConfig::for_num_elems(n), (n,)) }?;
                        unsafe { fwd_fn.launch(LaunchConfig::for_num_elems(n), (n,)) }?;
                        Ok(())
                    }
                }
                "#,
        )]);
        let checks: Vec<&str> = found.iter().map(|(_, _, c)| c.as_str()).collect();
        assert_eq!(
            checks,
            [
                "#[occupancy::check(kernel = [\"fill_f32\", \"fill_f64\"])] at line 6",
                "#[occupancy::check(kernel = [\"max_fwd_f32\", \"max_fwd_f64\"])] at line 6",
            ]
        );
        // One name bound twice, or assigned: which load a launch takes is not followed, so
        // each launch lists both, not as its own (the report leaves them not checked).
        let own = |text: &'static str| -> Vec<(String, bool)> {
            find_in(&[("src/lib.rs", text)])
                .into_iter()
                .map(|l| match l.check {
                    Check::Attribute { args, own, .. } => (args, own),
                    _ => (String::new(), false),
                })
                .collect()
        };
        let both = "kernel = [\"fill\", \"max\"]".to_owned();
        for text in [
            r#"fn shadowed(dev: &Dev, n: u32) -> Result<()> {
                let f = dev.get_func("m", "fill").unwrap();
                unsafe { f.launch(LaunchConfig::for_num_elems(n), (n,)) }?;
                let f = dev.get_func("m", "max").unwrap();
                unsafe { f.launch(LaunchConfig::for_num_elems(n), (n,)) }?;
                Ok(())
            }"#,
            r#"fn assigned(dev: &Dev, n: u32, big: bool) -> Result<()> {
                let mut f = dev.get_func("m", "fill").unwrap();
                if big { f = dev.get_func("m", "max").unwrap(); }
                unsafe { f.launch(LaunchConfig::for_num_elems(n), (n,)) }?;
                unsafe { f.launch(LaunchConfig::for_num_elems(n), (n,)) }?;
                Ok(())
            }"#,
        ] {
            assert_eq!(own(text), [(both.clone(), false), (both.clone(), false)]);
        }
        // A name bound once is the launch's own.
        assert!(
            own(r#"fn once(dev: &Dev, n: u32) -> Result<()> {
                let f = dev.get_func("m", "fill").unwrap();
                let g = dev.get_func("m", "max").unwrap();
                unsafe { f.launch(LaunchConfig::for_num_elems(n), (n,)) }?;
                unsafe { g.launch(LaunchConfig::for_num_elems(n), (n,)) }?;
                Ok(())
            }"#)
            .iter()
            .all(|(_, own)| *own)
        );
    }

    #[test]
    fn names_kernels_where_the_code_names_them() {
        let found = launches(&[(
            "src/lib.rs",
            r#"
                const SOFTMAX: &str = "softmax_f32";
                pub fn kernel_name<T: WithDType>(root: &str) -> String { format!("{root}_{}", T::DTYPE) }
                // candle's style: a name from a helper, loaded through the device's cache.
                pub fn affine<T: WithDType>(dev: &Dev, n: u32) -> Result<()> {
                    let func = dev.get_or_load_func(&kernel_name::<T>("affine"), kernels::AFFINE)?;
                    let cfg = LaunchConfig::for_num_elems(n);
                    unsafe { dev.stream.launch_builder(&func).arg(&n).launch(cfg) }?;
                    Ok(())
                }
                // dfdx's style: a module and a name, both constants.
                pub fn softmax(dev: &Dev, n: u32) -> Result<()> {
                    let f = dev.get_func("softmax", SOFTMAX).unwrap();
                    unsafe { f.launch(LaunchConfig::for_num_elems(n), (n,)) }?;
                    Ok(())
                }
                // A launch among a macro's arguments: listed, not read.
                pub fn traced(dev: &Dev, f: &Func, cfg: LaunchConfig) {
                    trace!(unsafe { dev.stream.launch_builder(f).launch(cfg) });
                }
                // `run` is a method of another type here, not a caller of the free `run`.
                pub fn run(dev: &Dev, cfg: LaunchConfig) {
                    let f = dev.module.load_function("fill_f32").unwrap();
                    unsafe { dev.stream.launch_builder(&f).launch(cfg) }.unwrap();
                }
                pub fn other(engine: &Engine) { engine.run(LaunchConfig::for_num_elems(8)); }
                pub fn caller(dev: &Dev) { run(dev, LaunchConfig { grid_dim: (1, 1, 1), block_dim: (64, 1, 1), shared_mem_bytes: 0 }); }
                "#,
        )]);
        let expected = [
            (
                "src/lib.rs:8",
                "affine",
                "#[occupancy::check(kernel = \"affine_*\")] at line 5",
            ),
            (
                "src/lib.rs:14",
                "softmax",
                "#[occupancy::check(kernel = \"softmax_f32\")] at line 12",
            ),
            (
                "src/lib.rs:19",
                "traced",
                "unread: the launch is an argument of `trace!(..)`, which neither the report nor the attribute parses",
            ),
            // The attribute goes on the caller, which does not load the kernel itself.
            (
                "src/lib.rs:27",
                "caller",
                "#[occupancy::check(kernel = \"fill_f32\")] at line 27",
            ),
        ]
        .map(|(l, f, c)| (l.to_owned(), f.to_owned(), c.to_owned()));
        assert_eq!(found, expected);
    }

    #[test]
    fn a_cutile_launcher_run_on_a_stream_is_listed_with_why_it_is_not_read() {
        // cuTile's style: a generated launcher, its grid of tile blocks set, run later on a
        // stream; compiling it, or running another operation, launches nothing.
        let found = launches(&[(
            "src/lib.rs",
            r#"
                pub fn scale(ctx: &Ctx, x: &Dev, n: usize, warm: bool) -> Result<()> {
                    let launcher = unsafe { tiles::scale(x.ptr(), n as i32) }
                        .generics(vec![n.to_string()])
                        .grid(((n / 128) as u32, 1, 1));
                    if warm {
                        cutile::kernel("scale", || launcher.compile_on(ctx.stream()))?;
                    } else {
                        cutile::kernel("scale", || unsafe { launcher.async_on(ctx.stream()) })?;
                    }
                    let copy = api::zeros::<f32>(&[n]);
                    copy.sync_on(ctx.stream())?;
                    unsafe { tiles::scale(x.ptr(), 1).grid((1, 1, 1)).sync_on(ctx.stream()) }?;
                    Ok(())
                }
                "#,
        )]);
        let why = "unread: a cuTile tile-kernel launch: cuTile's compiler chooses its CUDA \
                   block and shared memory when it compiles the kernel at run time; the host \
                   code sets only the grid of tile blocks";
        let expected = [
            ("src/lib.rs:9", "scale", why),
            ("src/lib.rs:13", "scale", why),
        ]
        .map(|(l, f, c)| (l.to_owned(), f.to_owned(), c.to_owned()));
        assert_eq!(found, expected);
    }

    /// candle-core's backends each define a `kernel_name`: the CUDA backend's at the top of its
    /// file, the Metal one's inside a function of another file. A bare call resolves to the
    /// caller's file, else to the module the caller's file imports it from (`sort.rs`); a
    /// name whose stem itself is a run-time value is no family of the manifest's every kernel.
    #[test]
    fn a_helper_of_the_callers_file_names_the_kernel_and_a_stemless_name_is_unknown() {
        let found = launches(&[
            (
                "src/cuda_backend.rs",
                r#"
                pub fn kernel_name<T: WithDType>(root: &str) -> String { format!("{root}_{}", T::DTYPE) }
                pub fn affine<T: WithDType>(dev: &Dev, n: u32) -> Result<()> {
                    let func = dev.get_or_load_func(&kernel_name::<T>("affine"), kernels::AFFINE)?;
                    unsafe { dev.stream.launch_builder(&func).launch(LaunchConfig::for_num_elems(n)) }?;
                    Ok(())
                }
                pub fn reduce<T: WithDType>(dev: &Dev, n: u32, op: &str) -> Result<()> {
                    let func = dev.get_or_load_func(&kernel_name::<T>(op_name(op)), kernels::REDUCE)?;
                    unsafe { dev.stream.launch_builder(&func).launch(LaunchConfig::for_num_elems(n)) }?;
                    Ok(())
                }
                "#,
            ),
            (
                "src/metal_backend.rs",
                r#"
                pub fn encode() { fn kernel_name(op: &str, suffix: &str) -> String { format!("{op}{suffix}") } }
                "#,
            ),
            (
                "src/sort.rs",
                r#"
                mod cuda {
                    use crate::cuda_backend::{kernel_name, kernels};
                    pub fn asort<T: WithDType>(dev: &Dev, n: u32) -> Result<()> {
                        let func = dev.get_or_load_func(&kernel_name::<T>("asort_asc"), &kernels::SORT)?;
                        unsafe { dev.stream.launch_builder(&func).launch(LaunchConfig::for_num_elems(n)) }?;
                        Ok(())
                    }
                }
                "#,
            ),
        ]);
        assert_eq!(found.len(), 3, "{found:?}");
        assert_eq!(
            found[0].2,
            "#[occupancy::check(kernel = \"affine_*\")] at line 3"
        );
        // Another file's call: the helper of the module its `use` names.
        assert_eq!(
            found[2].2,
            "#[occupancy::check(kernel = \"asort_asc_*\")] at line 4"
        );
        assert!(
            found[1].2.starts_with("unread: ")
                && found[1].2.contains("its stem is a run-time value (`*_*`)"),
            "{:?}",
            found[1]
        );
    }

    /// A caller that neither launches nor loads is kept without its body; it is read again
    /// from its file because it calls a launching function, and what it passes names the
    /// kernel. When its file cannot be read again, its arguments are not known: the launch
    /// is not checked, never checked with a guess.
    #[test]
    fn a_caller_kept_without_its_body_is_read_again_from_its_file() {
        let files = [
            (
                "src/launch.rs",
                r#"
                pub fn launch_unary(dev: &Dev, name: &str, n: u32) -> Result<()> {
                    let func = dev.get_func("unary", name).unwrap();
                    unsafe { func.launch(LaunchConfig::for_num_elems(n), (n,)) }?;
                    Ok(())
                }
                "#,
            ),
            (
                "src/ops.rs",
                r#"
                pub fn relu(dev: &Dev, n: u32) -> Result<()> {
                    let scale = 2 * n;
                    launch_unary(dev, "relu_f32", scale)
                }
                pub fn unrelated(n: u32) -> u32 { let twice = n * 2; twice + 1 }
                "#,
            ),
        ];
        let read = launches(&files);
        assert_eq!(read.len(), 1, "{read:?}");
        assert_eq!(
            read[0].2,
            "#[occupancy::check(kernel = \"relu_f32\")] at line 2"
        );
        let mut collector = Collector::default();
        for (shown, syntax) in parse(&files) {
            collector.add(&shown, &syntax);
        }
        // Only the launching function is whole until `finish` reads the callers again.
        let whole: Vec<&str> = collector
            .funcs
            .iter()
            .filter(|f| f.full)
            .map(|f| f.name.as_str())
            .collect();
        assert_eq!(whole, ["launch_unary"]);
        let unread = collector.finish(vec![Vec::new(); 2], |_| None, &|_| None);
        assert_eq!(unread.len(), 1);
        match &unread[0].check {
            Check::Unread(why) => assert_eq!(
                why,
                "`relu` calls `launch_unary`, and its file src/ops.rs could not be read again \
                 to see what it passes"
            ),
            _ => panic!("checked without the caller's arguments"),
        }
    }

    /// dfdx's style: each impl of a file's trait gives the names as associated constants, a
    /// string or an array indexed at the launch; a generic op's constant (`K::FWD`) is any
    /// impl's of the crate.
    #[test]
    fn associated_constants_name_the_kernels_of_every_impl() {
        let found = launches(&[
            (
                "src/conv.rs",
                r#"
                trait HasKernel<E> { const FNS: &'static [&'static str]; }
                impl HasKernel<f32> for Cuda { const FNS: &'static [&'static str] = &["unfold_f32", "transpose_f32"]; }
                impl HasKernel<f64> for Cuda { const FNS: &'static [&'static str] = &["unfold_f64", "transpose_f64"]; }
                impl<E> ConvKernel<E> for Cuda where Self: HasKernel<E> {
                    fn transpose(&self, n: u32) -> Result<()> {
                        let f = self.dev.get_func("conv", Self::FNS[1]).unwrap();
                        unsafe { f.launch(launch_cfg::<128>(n), (n,)) }?;
                        Ok(())
                    }
                }
                pub fn launch_cfg<const T: u32>(n: u32) -> LaunchConfig {
                    LaunchConfig { grid_dim: (n.div_ceil(T), 1, 1), block_dim: (T, 1, 1), shared_mem_bytes: 0 }
                }
                "#,
            ),
            (
                "src/unary.rs",
                r#"
                impl UnaryKernel for Relu { const FWD: &'static str = "relu_fwd_f32"; }
                impl UnaryKernel for Abs { const FWD: &'static str = "abs_fwd_f32"; }
                pub fn forward<K: UnaryKernel>(dev: &Dev, n: u32) -> Result<()> {
                    let f = dev.get_func("unary", K::FWD).unwrap();
                    unsafe { f.launch(LaunchConfig::for_num_elems(n), (n,)) }?;
                    Ok(())
                }
                "#,
            ),
        ]);
        let checks: Vec<&str> = found.iter().map(|(_, _, c)| c.as_str()).collect();
        assert_eq!(
            checks,
            [
                "#[occupancy::check(kernel = [\"transpose_f32\", \"transpose_f64\"])] at line 6",
                "#[occupancy::check(kernel = [\"abs_fwd_f32\", \"relu_fwd_f32\"])] at line 4",
            ],
            "{found:?}"
        );
    }

    /// candle-core's map style: the crate's name helper takes a stem that is one of several
    /// (a generic op's associated constant, each impl's, or a `match`'s arms, one of which
    /// fails with `Err(..).w()?`) and appends the dtype's spelling: one family per stem.
    /// The impls come from a `macro_rules!` whose constant is `concat!` of its arguments;
    /// another file defines a macro of the same name (its own, textual scope), and a file
    /// that defines one inside a `mod` block is not read.
    #[test]
    fn a_helper_given_one_of_several_stems_names_a_family_per_stem() {
        let found = launches(&[
            (
                "src/op.rs",
                r#"
                pub trait Unary { const KERNEL: &'static str; }
                macro_rules! unary { ($op:ident, $name:literal) => {
                    impl Unary for $op { const KERNEL: &'static str = concat!("u", $name); }
                }; }
                unary!(Exp, "exp");
                unary!(Log, "log");
                impl Unary for Gelu { const KERNEL: &'static str = "ugelu"; }
                "#,
            ),
            (
                "src/tensor.rs",
                r#"
                macro_rules! unary { ($name:ident) => { pub fn $name(&self) -> Self { self.clone() } }; }
                unary!(exp);
                "#,
            ),
            (
                "src/other.rs",
                r#"
                pub trait Other { const KERNEL: &'static str; }
                mod inner {
                    macro_rules! other { ($op:ident, $name:literal) => {
                        impl Other for $op { const KERNEL: &'static str = $name; }
                    }; }
                }
                macro_rules! other { ($op:ident, $name:literal) => {
                    impl Other for $op { const KERNEL: &'static str = $name; }
                }; }
                other!(Sqr, "osqr");
                "#,
            ),
            (
                "src/backend.rs",
                r#"
                pub enum DType { Half, Float }
                impl DType { pub fn as_str(&self) -> &'static str { match self { Self::Half => "f16", Self::Float => "f32" } } }
                pub fn kernel_name<T: WithDType>(root: &str) -> String { let dtype = T::DTYPE.as_str(); format!("{root}_{dtype}") }
                impl<U: Unary> Map1 for U {
                    fn f<T: WithDType>(&self, dev: &Dev, n: u32) -> Result<()> {
                        let func = dev.get_or_load_func(&kernel_name::<T>(U::KERNEL), &kernels::UNARY)?;
                        unsafe { func.builder().launch(LaunchConfig::for_num_elems(n)) }.w()?;
                        Ok(())
                    }
                }
                impl Map1 for IndexSelect {
                    fn f<T: WithDType>(&self, dev: &Dev, n: u32) -> Result<()> {
                        let (name, (ids, _guard)) = match &self.ids {
                            Ids::U32(s) => ("is_u32", ptr(s)),
                            Ids::I64(s) => ("is_i64", ptr(s)),
                            _ => Err(Error::UnexpectedDType { msg: "ids" }).w()?,
                        };
                        let func = dev.get_or_load_func(&kernel_name::<T>(name), &kernels::INDEXING)?;
                        unsafe { func.builder().launch(LaunchConfig::for_num_elems(n)) }.w()?;
                        Ok(())
                    }
                }
                impl<U: Other> Map1 for U {
                    fn f<T: WithDType>(&self, dev: &Dev, n: u32) -> Result<()> {
                        let func = dev.get_or_load_func(&kernel_name::<T>(U::KERNEL), &kernels::OTHER)?;
                        unsafe { func.builder().launch(LaunchConfig::for_num_elems(n)) }.w()?;
                        Ok(())
                    }
                }
                "#,
            ),
        ]);
        let checks: Vec<&str> = found.iter().map(|(_, _, c)| c.as_str()).collect();
        assert_eq!(
            checks,
            [
                "#[occupancy::check(kernel = [\"uexp_{f16,f32}\", \"ugelu_{f16,f32}\", \"ulog_{f16,f32}\"])] at line 6",
                "#[occupancy::check(kernel = [\"is_i64_{f16,f32}\", \"is_u32_{f16,f32}\"])] at line 13",
                "unread: the kernel's name is built at run time: its stem is a run-time value (`*_{f16,f32}`)",
            ],
            "{found:?}"
        );
    }

    /// candle's mul_mat_vec style: the name a `match` binds is bound again by a `format!`
    /// that reads it (`let kernel_name = format!("{kernel_name}{b_size}")`): the stem is the
    /// earlier binding's, the size a run-time value.
    #[test]
    fn a_name_bound_again_from_itself_keeps_its_stem() {
        let found = launches(&[(
            "src/quantized.rs",
            r#"
                fn mat_vec(dev: &Dev, dtype: GgmlDType, b_size: usize) -> Result<()> {
                    let kernel_name = match dtype {
                        GgmlDType::Q4_0 => "mmv_q4_0_",
                        GgmlDType::Q8_0 => "mmv_q8_0_",
                        _ => crate::bail!("unsupported"),
                    };
                    let kernel_name = format!("{kernel_name}{b_size}");
                    let func = dev.get_or_load_func(&kernel_name, &kernels::QUANTIZED)?;
                    unsafe { func.builder().launch(LaunchConfig::for_num_elems(b_size as u32)) }.w()?;
                    Ok(())
                }
                "#,
        )]);
        let checks: Vec<&str> = found.iter().map(|(_, _, c)| c.as_str()).collect();
        assert_eq!(
            checks,
            ["#[occupancy::check(kernel = [\"mmv_q4_0_*\", \"mmv_q8_0_*\"])] at line 2"],
            "{found:?}"
        );
    }

    /// candle's quantized style: a `match` on the dtype binds the name (alone, or with the
    /// block in a tuple), the crate's loader loads it; arms that `bail!` make no name. Two
    /// launches in one function are two sites, each named by the loads that can reach it.
    #[test]
    fn names_chosen_by_match_arms_are_the_kernels() {
        let found = launches(&[(
            "src/quantized.rs",
            r#"
                fn get_rows(dev: &Dev, dtype: GgmlDType, n: usize) -> Result<()> {
                    let (kernel_name, block_dim, strided) = match dtype {
                        GgmlDType::F32 => ("get_rows_f32", BLOCK, true),
                        GgmlDType::Q2K => ("get_rows_q2_K", 64, false),
                        _ => crate::bail!("unsupported dtype {dtype:?}"),
                    };
                    let func = dev.get_or_load_func(kernel_name, &kernels::QUANTIZED)?;
                    let cfg = LaunchConfig { grid_dim: (n as u32, 1, 1), block_dim: (block_dim as u32, 1, 1), shared_mem_bytes: 0 };
                    let mut builder = func.builder();
                    unsafe { builder.launch(cfg) }.w()?;
                    Ok(())
                }
                fn mat_vec(dev: &Dev, dtype: GgmlDType, n: usize) -> Result<()> {
                    let stem = match dtype {
                        GgmlDType::Q4_0 => "mat_vec_q4_0_",
                        GgmlDType::Q8_0 => { "mat_vec_q8_0_" }
                        GgmlDType::F16 => Err(unsupported())?,
                        _ => { return Err(unsupported()); }
                    };
                    let kernel_name = if n > 1 { format!("{stem}{}", 2) } else { format!("{stem}1") };
                    let func = dev.get_or_load_func(&kernel_name, &kernels::QUANTIZED)?;
                    unsafe { func.builder().launch(LaunchConfig::for_num_elems(n as u32)) }.w()?;
                    Ok(())
                }
                fn dequantize(dev: &Dev, dtype: GgmlDType, n: usize) -> Result<()> {
                    let (kernel_name, is_k) = match dtype {
                        GgmlDType::Q4_0 => ("dequantize_q4_0", false),
                        _ => ("dequantize_q2_K", true),
                    };
                    let func = dev.get_or_load_func(kernel_name, &kernels::QUANTIZED)?;
                    let cfg = LaunchConfig::for_num_elems(n as u32);
                    if is_k {
                        unsafe { func.builder().launch(cfg) }.w()?;
                    } else {
                        unsafe { func.builder().launch(cfg) }.w()?;
                    }
                    Ok(())
                }
                "#,
        )]);
        let checks: Vec<&str> = found.iter().map(|(_, _, c)| c.as_str()).collect();
        assert_eq!(
            checks[..2],
            [
                "#[occupancy::check(kernel = [\"get_rows_f32\", \"get_rows_q2_K\"])] at line 2",
                "#[occupancy::check(kernel = [\"mat_vec_q4_0_1\", \"mat_vec_q4_0_2\", \"mat_vec_q8_0_1\", \"mat_vec_q8_0_2\"])] at line 14",
            ],
            "{found:?}"
        );
        // Each launch is its own site: the report keeps the rows of the paths that reach it.
        assert_eq!(found.len(), 4, "{found:?}");
        for (_, function, check) in &found[2..] {
            assert_eq!(function, "dequantize");
            assert_eq!(
                check,
                "#[occupancy::check(kernel = [\"dequantize_q2_K\", \"dequantize_q4_0\"])] at line 26"
            );
        }
    }

    /// candle-core's cast style: the name is built before a `match` on the target dtype with
    /// one launch per arm; under each arm `dtype.as_str()` is the string the crate's `as_str`
    /// maps that variant to. Where the matched name is assigned, or the method maps a variant
    /// twice, the placeholder stays `*`. Outside an arm, `self.dt().as_str()` (a receiver
    /// named as the type `Dt`) is one of the method's spellings, a `{..}` group, never `*`:
    /// `*` would also match kernels of spellings the method never gives.
    #[test]
    fn a_dtype_string_is_read_under_the_arm_of_its_match() {
        let found = launches(&[(
            "src/backend.rs",
            r#"
                pub enum Dt { Half, Float, Byte }
                impl Dt {
                    pub fn as_str(&self) -> &'static str {
                        match self { Self::Half => "f16", Dt::Float => "f32", Self::Byte => "u8" }
                    }
                }
                impl Store {
                    fn convert(&self, dev: &Dev, to: Dt, n: u32) -> Result<()> {
                        let cfg = LaunchConfig::for_num_elems(n);
                        let name = format!("convert_{}_{}", self.dt().as_str(), to.as_str());
                        let func = dev.get_or_load_func(&name, &kernels::CONVERT)?;
                        match to {
                            Dt::Half => unsafe { func.builder().launch(cfg) }.w()?,
                            Dt::Float => { unsafe { func.builder().launch(cfg) }.w()?; }
                            Dt::Byte => bail!("no byte output"),
                        }
                        Ok(())
                    }
                    fn reassigned(&self, dev: &Dev, mut to: Dt, n: u32) -> Result<()> {
                        let name = format!("convert_f32_{}", to.as_str());
                        let func = dev.get_or_load_func(&name, &kernels::CONVERT)?;
                        to = Dt::Float;
                        match to {
                            Dt::Half => unsafe { func.builder().launch(LaunchConfig::for_num_elems(n)) }.w()?,
                            _ => {}
                        }
                        Ok(())
                    }
                }
                "#,
        )]);
        let checks: Vec<(&str, &str)> = found
            .iter()
            .map(|(at, _, c)| (at.as_str(), c.as_str()))
            .collect();
        assert_eq!(
            checks,
            [
                (
                    "src/backend.rs:14",
                    "#[occupancy::check(kernel = \"convert_{f16,f32,u8}_f16\")] at line 9"
                ),
                (
                    "src/backend.rs:15",
                    "#[occupancy::check(kernel = \"convert_{f16,f32,u8}_f32\")] at line 9"
                ),
                (
                    "src/backend.rs:25",
                    "#[occupancy::check(kernel = \"convert_f32_*\")] at line 20"
                ),
            ],
            "{found:?}"
        );
    }

    /// candle-core's copy style: one `match` arm per dtype, each loading its kernel and
    /// launching it: a launch is not named by the loads of the other arms of a `match` it is
    /// inside (whose kernels may not even exist); any other load of the function may name it
    /// (each path's own kernel then picks the rows).
    #[test]
    fn a_load_in_another_arm_does_not_name_the_launch() {
        let found = launches(&[(
            "src/copy.rs",
            r#"
                fn copy(dev: &Dev, src: &Slice, n: u32) -> Result<()> {
                    let cfg = LaunchConfig::for_num_elems(n);
                    match src {
                        Slice::F32(s) => {
                            let func = dev.get_or_load_func("copy_f32", &kernels::UNARY)?;
                            unsafe { func.builder().launch(cfg) }.w()?;
                        }
                        Slice::F16(s) => {
                            if s.is_empty() { return Ok(()); } else {
                                let func = dev.get_or_load_func("copy_f16", &kernels::UNARY)?;
                                unsafe { func.builder().launch(cfg) }.w()?;
                            }
                        }
                    }
                    let func = match src { Slice::F32(_) => dev.get_or_load_func("fill_f32", &M)?, _ => dev.get_or_load_func("fill_f16", &M)? };
                    match src { _ => unsafe { func.builder().launch(cfg) }.w()? }
                    Ok(())
                }
                "#,
        )]);
        let checks: Vec<(&str, &str)> = found
            .iter()
            .map(|(at, _, c)| (at.as_str(), c.as_str()))
            .collect();
        assert_eq!(
            checks,
            [
                (
                    "src/copy.rs:7",
                    "#[occupancy::check(kernel = [\"copy_f32\", \"fill_f16\", \"fill_f32\"])] at line 2"
                ),
                (
                    "src/copy.rs:12",
                    "#[occupancy::check(kernel = [\"copy_f16\", \"fill_f16\", \"fill_f32\"])] at line 2"
                ),
                (
                    "src/copy.rs:17",
                    "#[occupancy::check(kernel = [\"copy_f16\", \"copy_f32\", \"fill_f16\", \"fill_f32\"])] at line 2"
                ),
            ],
            "{found:?}"
        );
    }

    /// candle-nn's style: the name comes from a helper of a dependency, brought in by a `use`
    /// inside the function: the reason names the dependency.
    #[test]
    fn a_helper_of_a_dependency_is_named_in_the_reason() {
        let found = launches(&[(
            "src/ops.rs",
            r#"
                impl Sigmoid {
                    fn cuda_fwd<T: WithDType>(&self, dev: &Dev, n: u32) -> Result<()> {
                        use candle::cuda_backend::{kernel_name, kernels};
                        let func = dev.get_or_load_func(&kernel_name::<T>("usigmoid"), &kernels::UNARY)?;
                        unsafe { func.builder().launch(LaunchConfig::for_num_elems(n)) }.w()?;
                        Ok(())
                    }
                }
                "#,
        )]);
        assert_eq!(
            found,
            [(
                "src/ops.rs:6".to_owned(),
                "Sigmoid::cuda_fwd".to_owned(),
                "unread: the kernel's name is built at run time: `kernel_name` is \
                 `candle::cuda_backend::kernel_name`, a function of the dependency `candle`, \
                 which the report does not read (`cargo metadata --offline` does not resolve \
                 it to sources here, or its module's file has no such function at its top \
                 level): write `kernel = \"...\"` on the function"
                    .to_owned()
            )]
        );
    }

    /// The same, where the dependency is read: its helper and the string method it calls
    /// name the family, as the crate's own would.
    #[test]
    fn a_helper_of_a_dependency_read_names_the_family() {
        let parsed = parse(&[(
            "src/ops.rs",
            r#"
                impl Sigmoid {
                    fn cuda_fwd<T: WithDType>(&self, dev: &Dev, n: u32) -> Result<()> {
                        use basecrate::backend::{kernel_name, kernels};
                        let func = dev.get_or_load_func(&kernel_name::<T>("usigmoid"), &kernels::UNARY)?;
                        unsafe { func.builder().launch(LaunchConfig::for_num_elems(n)) }.w()?;
                        Ok(())
                    }
                }
                fn other(dev: &Dev, n: u32) -> Result<()> {
                    use basecrate::backend::name_of;
                    let func = dev.get_or_load_func(&name_of("k"), &kernels::UNARY)?;
                    unsafe { func.builder().launch(LaunchConfig::for_num_elems(n)) }.w()?;
                    Ok(())
                }
                "#,
        )]);
        // What the report reads of the dependency: the function, and `DType::as_str`.
        let dependency = |path: &[String]| -> Option<syn::File> {
            (path == ["basecrate", "backend", "kernel_name"]).then(|| {
                syn::parse_quote! {
                    pub fn kernel_name<T: WithDType>(root: &str) -> String {
                        let dtype = T::DTYPE.as_str();
                        format!("{root}_{dtype}")
                    }
                    impl DType {
                        pub fn as_str(&self) -> &'static str {
                            match self { Self::F16 => "f16", Self::F32 => "f32" }
                        }
                    }
                }
            })
        };
        let mut collector = Collector::default();
        for (shown, syntax) in &parsed {
            collector.add(shown, syntax);
        }
        let found: Vec<String> = collector
            .finish(vec![Vec::new()], |_| None, &dependency)
            .into_iter()
            .map(|l| match l.check {
                Check::Attribute { args, .. } => args,
                Check::Unread(why) => why,
                Check::Annotated => "annotated".to_owned(),
            })
            .collect();
        assert_eq!(found[0], "kernel = \"usigmoid_{f16,f32}\"");
        assert!(
            found[1].contains(
                "`name_of` is `basecrate::backend::name_of`, a function of the dependency"
            ),
            "{}",
            found[1]
        );
    }
}
