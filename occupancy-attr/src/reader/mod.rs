//! The reader: the launches a wrapper's body makes, as the user wrote them, one per path.
//!
//! It is the reading core of `occupancy-read` (its interpreter `occupancy_read::interp`
//! over the body, the helpers it calls and the constants it names, with an explicit
//! abstract value, `occupancy_read::value`: a known integer, one of a few values, an
//! interval of `occupancy_core::abstract_int`, a tuple, a struct, a configuration, a kernel,
//! or unknown with the reason) run on the body this front end lowers, its names answered
//! from the crate's sources.
//!
//! ```text
//! syn body ──ir.rs──▶ IR ──occupancy_read::interp──▶ launches per path ──this file──▶ BodyLaunch per
//!           (spans kept)     (names.rs: the crate's     (+ the members of      launch the code can make
//!                             sources, as Names)         run-time sets)         (sets enumerated)
//! ```
//!
//! What it reads:
//!
//! - the configuration of each launch: a cudarc `LaunchConfig { grid_dim, block_dim,
//!   shared_mem_bytes }` literal (`..base` included), cudarc's
//!   `LaunchConfig::for_num_elems(n)`, a function of the crate returning a `LaunchConfig`
//!   (`launch_cfg::<128>(n)`), cust's `launch!(module.kernel<<<grid, block, smem,
//!   stream>>>(..))`. When the body calls a launch method (`.launch(cfg)`,
//!   `.launch_cooperative(cfg)`, `.launch_on_stream(..)`, `.launch_async(..)`), what it
//!   passes to one is a launch; otherwise every configuration it builds is, except one used
//!   only as the `..base` of another;
//! - values chosen together stay together: `if` / `match` arms are paths (a tuple, a
//!   struct, a helper's return, the kernel, block and shared memory picked by one arm are
//!   one launch), the same condition twice is one choice, and a run-time set bound to a
//!   name (`let pad = ncols.next_power_of_two();`) is taken member by member wherever it is
//!   used, so that the block and the shared memory computed from it stay paired;
//! - run-time values with a finite range need no key: parameters take their type's range,
//!   conditions narrow it (`if n < 1024`), `min` / `max` / `clamp` / `next_power_of_two`
//!   and doubling loops (`while b < n && b < 1024 { b *= 2; }`) give finite sets, each
//!   member checked;
//! - the kernel each path launches: `load_function("saxpy")`, `get_func(module, "saxpy")`,
//!   `format!("affine_{}", ..)` (a glob), cust's `module.saxpy<<<..>>>`; the receiver of the
//!   launch (`func.launch(..)`, `stream.launch_builder(&func)`).
//!
//! The attribute's candidates for a value the body leaves to run time bind the run-time
//! value they stand for (`block = [32, 1024]` on `block_dim: (threads, 1, 1),
//! shared_mem_bytes: threads * 4`): the body is read again with `threads` one of them, so
//! that the shared memory follows.

pub(crate) use occupancy_read::interp;
pub(crate) mod ir;
pub(crate) mod names;
pub(crate) use occupancy_read::value;

use occupancy_core::abstract_int::AbstractInt;
use proc_macro2::Span;

use interp::{Interp, LaunchRec, Mode, ParamKind, SourceKey};
use ir::{At, Expr, IntTy, Lowered, Pat};
use names::Resolver;
use value::{ChoiceId, Int, Kernel, Term, Val};

use crate::apis;
use crate::source::Items;

/// The most launches one launch site of one path expands to (the members of the run-time
/// sets it depends on).
pub(crate) const MAX_MEMBER_LAUNCHES: usize = 64;

/// What the body says.
#[derive(Default)]
pub(crate) struct BodyRead {
    /// Every launch the code can make, in order of the paths that make them.
    pub(crate) launches: Vec<BodyLaunch>,
    /// Kernel names the body loads as literals, in order.
    pub(crate) kernels: Vec<(String, Span)>,
    /// A name built at run time (`format!("affine_{}", T::NAME)`): the glob it suggests.
    pub(crate) kernel_pattern: Option<(String, Span)>,
    /// Errors on the body's constructs (too many paths).
    pub(crate) problems: Vec<(Span, String)>,
}

/// A value of one launch: known, or known only at run time (why, and what is known of it).
#[derive(Clone, Debug)]
pub(crate) enum Field {
    Known(Int),
    RunTime(RunTime),
}

/// A value known only at run time.
#[derive(Clone, Debug)]
pub(crate) struct RunTime {
    /// Why (the first run-time input it depends on).
    pub(crate) why: String,
    /// What is known of it (bounds, when any).
    pub(crate) set: Option<AbstractInt>,
    /// The binding it is exactly the value of, if any: the attribute's candidates stand for
    /// it in a second reading.
    pub(crate) source: Option<SourceKey>,
    /// The run-time inputs it depends on.
    pub(crate) roots: Vec<value::SourceId>,
    /// It is an integer (of which the reader may know bounds).
    pub(crate) int: bool,
}

impl RunTime {
    /// A value the reader knows nothing of, but `why`: no bounds, source or inputs.
    fn unread(why: String) -> RunTime {
        RunTime {
            why,
            set: None,
            source: None,
            roots: Vec::new(),
            int: false,
        }
    }
}

/// One launch one path of the body makes, with the members of the run-time sets it depends
/// on fixed.
pub(crate) struct BodyLaunch {
    /// The launch site (0, 1, ... in the order the body first reaches them).
    pub(crate) site: usize,
    /// The name its configuration is bound to (`cfg`), if any.
    pub(crate) name: Option<String>,
    /// The whole launch, and where its block, shared memory and grid are written.
    pub(crate) span: Span,
    pub(crate) block_span: Span,
    pub(crate) smem_span: Span,
    pub(crate) grid_span: Span,
    /// x, y, z; `Err`: the whole value is not a tuple of three (why).
    pub(crate) block: Result<[Field; 3], String>,
    pub(crate) smem: Field,
    pub(crate) grid: Result<[Field; 3], String>,
    /// The kernel its path launches, when named: (name or glob, is a glob, where).
    pub(crate) kernel: Option<(String, bool, Span)>,
    /// What built the configuration (`a LaunchConfig { .. } literal via the helper ..`).
    pub(crate) origin: Option<String>,
    /// Launches of one path that differ only in the members of its run-time sets share it.
    pub(crate) group: usize,
    /// What the members of those sets are, for notes.
    pub(crate) notes: Vec<String>,
    /// Names read on the path (conditions, constants the values no longer carry), with
    /// where to report a failed confirmation.
    pub(crate) reads: Vec<(std::rc::Rc<Term>, Span)>,
    /// Helpers called on the path: (as written, from the crate root, the call).
    pub(crate) helpers: Vec<(ir::Path, ir::Path, Span)>,
    /// Why this launch cannot be read as the code makes it, when it cannot.
    pub(crate) error: Option<String>,
    /// The run-time inputs of the sets taken member by member for it: a value from one of
    /// them cannot take the attribute's candidates independently.
    pub(crate) enumerated: Vec<value::SourceId>,
    /// Where the launch is in the lowered body: the same in every reading of it.
    pub(crate) at: u32,
    /// Its path takes the attribute's `block` candidates, bound to the run-time value they
    /// stand for (see [`assumptions`]).
    pub(crate) block_from_key: bool,
    /// Its path takes the attribute's `smem` candidates, likewise.
    pub(crate) smem_from_key: bool,
    /// Its dynamic shared memory, known only at run time, follows from the block's run-time
    /// value alone (`shared_mem_bytes: block * 4`): `block` candidates give it too
    /// ([`mark_smem_from_block`]).
    pub(crate) smem_from_block: bool,
}

/// What the attribute's candidates are called once bound to the run-time value they stand
/// for (the text of the run-time set they make).
const BLOCK_CANDIDATES: &str = "the attribute's `block`";
const SMEM_CANDIDATES: &str = "the attribute's `smem`";

/// The block sizes a probe reading gives a run-time block ([`block_probe`]): values within
/// every integer type's range.
const PROBE_BLOCKS: [i128; 3] = [32, 64, 96];

/// The attribute's candidates for the block and the shared memory (literals only).
#[derive(Default, Clone)]
pub(crate) struct Candidates {
    pub(crate) block: Option<Vec<[u32; 3]>>,
    pub(crate) smem: Option<Vec<u32>>,
    /// The attribute gives the block (`block`, literal or not, or `launches` pairs): the
    /// body's run-time block is not an error, so nothing is read to explain one.
    pub(crate) block_given: bool,
}

/// The constants declared at the top of the body (`const NAME: u32 = ...;`), visible in all
/// of it. (Items in nested blocks are not read: a name they declare is unknown there.)
pub(crate) fn items(block: &syn::Block) -> Items {
    let consts: Vec<syn::Item> = block
        .stmts
        .iter()
        .filter_map(|stmt| match stmt {
            syn::Stmt::Item(item @ syn::Item::Const(_)) => Some(item.clone()),
            _ => None,
        })
        .collect();
    Items::from_syn(&consts)
}

/// The names of `sig`'s type and const generic parameters (lifetimes left out).
pub(crate) fn generic_names(sig: &syn::Signature) -> Vec<String> {
    sig.generics
        .params
        .iter()
        .filter_map(|p| match p {
            syn::GenericParam::Const(c) => Some(c.ident.to_string()),
            syn::GenericParam::Type(t) => Some(t.ident.to_string()),
            syn::GenericParam::Lifetime(_) => None,
        })
        .collect()
}

/// Reads the launches of `block`, the body of a wrapper with signature `sig`, resolving
/// names through `resolver`; `candidates`: the attribute's, for values the body leaves to
/// run time.
pub(crate) fn read_body(
    block: &syn::Block,
    sig: &syn::Signature,
    resolver: &mut Resolver,
    candidates: &Candidates,
    launch_helper: Option<&(String, usize)>,
) -> BodyRead {
    if !may_launch(block) {
        // Nothing in the body can build or launch a configuration: nothing to run (the
        // kernels it loads still stand in for `kernel`).
        let mut loads = Loads::default();
        syn::visit::Visit::visit_block(&mut loads, block);
        return BodyRead {
            launches: Vec::new(),
            kernels: loads.kernels,
            kernel_pattern: loads.pattern,
            problems: Vec::new(),
        };
    }
    let lowered = ir::lower_body(block);
    let params = params(sig);
    let generics = generic_names(sig);
    let mut mode = Mode {
        launch_calls: false,
        base_names: Vec::new(),
        assume: Vec::new(),
        launch_helpers: launch_helper.into_iter().cloned().collect(),
    };
    scan(&lowered.block, &mut mode, 0);
    let mut read = run(
        &lowered,
        &params,
        &generics,
        resolver,
        mode.clone_without_assumptions(),
    );
    // The attribute's candidates stand for the run-time values they are given for: read
    // again with those values bound to them, so that what is computed from them follows.
    let assume = assumptions(&read.launches, candidates);
    if !assume.is_empty() {
        let mut mode = mode.clone_without_assumptions();
        mode.assume = assume;
        read = run(&lowered, &params, &generics, resolver, mode);
    }
    // A run-time block without candidates: would candidates for it give the shared memory
    // too? A reading with some says (the error then asks for `block` alone).
    let probe = block_probe(&read.launches, candidates);
    if !probe.is_empty() {
        mode.assume = probe;
        let probed = run(&lowered, &params, &generics, resolver, mode);
        mark_smem_from_block(&mut read.launches, &probed.launches);
    }
    read
}

/// Candidates ([`PROBE_BLOCKS`]) for each run-time block value the attribute gives none
/// for, where the launch's shared memory is a run-time value too: the assumptions of a
/// reading that shows whether the shared memory follows from the block.
fn block_probe(
    launches: &[BodyLaunch],
    candidates: &Candidates,
) -> Vec<(SourceKey, Vec<i128>, String)> {
    let mut out: Vec<(SourceKey, Vec<i128>, String)> = Vec::new();
    if candidates.block_given {
        return out;
    }
    for l in launches {
        if let (Ok([Field::RunTime(x), Field::Known(_), Field::Known(_)]), Field::RunTime(_)) =
            (&l.block, &l.smem)
            && l.error.is_none()
            && let Some(key) = &x.source
            && !out.iter().any(|(k, _, _)| k == key)
        {
            out.push((
                key.clone(),
                PROBE_BLOCKS.to_vec(),
                BLOCK_CANDIDATES.to_owned(),
            ));
        }
    }
    out
}

/// Marks the launches of `launches` whose block and shared memory are run-time values and
/// whose site, in the reading with candidates for the block (`probed`), launches only
/// known shared memory: candidates for the block give it. Where the shared memory stays
/// unknown there for one reason, that reason (the input left once the block is given) is
/// the one its error names.
fn mark_smem_from_block(launches: &mut [BodyLaunch], probed: &[BodyLaunch]) {
    for l in launches {
        let Field::RunTime(smem) = &mut l.smem else {
            continue;
        };
        if !matches!(&l.block, Ok([Field::RunTime(_), _, _])) {
            continue;
        }
        let site: Vec<&BodyLaunch> = probed.iter().filter(|p| p.at == l.at).collect();
        let known = |p: &&BodyLaunch| {
            p.error.is_none()
                && matches!(p.smem, Field::Known(_))
                && matches!(&p.block, Ok(b) if b.iter().all(|f| matches!(f, Field::Known(_))))
        };
        l.smem_from_block = !site.is_empty() && site.iter().all(known);
        let whys: Vec<&str> = site
            .iter()
            .filter_map(|p| match &p.smem {
                Field::RunTime(r) if p.error.is_none() => Some(r.why.as_str()),
                _ => None,
            })
            .collect();
        if let Some(why) = whys.first()
            && whys.len() == site.len()
            && whys.iter().all(|w| w == why)
        {
            smem.why = (*why).to_owned();
        }
    }
}

/// One reading of the body.
fn run(
    lowered: &Lowered,
    params: &[(Pat, ParamKind)],
    generics: &[String],
    resolver: &mut Resolver,
    mode: Mode,
) -> BodyRead {
    let mut interp = Interp::new(resolver, mode);
    interp.run_wrapper(&lowered.block, params, generics);
    let span = |at: At| lowered.span(at);
    let mut read = BodyRead {
        launches: Vec::new(),
        kernels: interp
            .kernels
            .iter()
            .map(|(n, at)| (n.clone(), span(*at)))
            .collect(),
        kernel_pattern: interp
            .kernel_pattern
            .as_ref()
            .map(|(g, at)| (g.clone(), span(*at))),
        problems: interp
            .problems
            .iter()
            .map(|(at, m)| (span(*at), m.clone()))
            .collect(),
    };
    let mut sites: Vec<u32> = Vec::new();
    let records = std::mem::take(&mut interp.launches);
    for (group, rec) in records.iter().enumerate() {
        let site = match sites.iter().position(|s| *s == rec.at.0) {
            Some(i) => i,
            None => {
                sites.push(rec.at.0);
                sites.len() - 1
            }
        };
        read.launches
            .extend(instances(&interp, rec, site, group, lowered));
    }
    read
}

/// The wrapper's parameters as the interpreter takes them.
fn params(sig: &syn::Signature) -> Vec<(Pat, ParamKind)> {
    sig.inputs
        .iter()
        .map(|input| match input {
            syn::FnArg::Receiver(_) => (Pat::Bind("self".to_owned(), None), ParamKind::Other),
            syn::FnArg::Typed(t) => (ir::lower_pat(&t.pat), param_kind(&t.ty)),
        })
        .collect()
}

fn param_kind(ty: &syn::Type) -> ParamKind {
    match ty {
        syn::Type::Reference(r) => param_kind(&r.elem),
        syn::Type::Paren(p) => param_kind(&p.elem),
        syn::Type::Group(g) => param_kind(&g.elem),
        syn::Type::Tuple(t) => {
            let tys: Option<Vec<IntTy>> = t
                .elems
                .iter()
                .map(|e| ir::type_name(e).as_deref().and_then(IntTy::from_name))
                .collect();
            match tys {
                Some(tys) if !tys.is_empty() => ParamKind::Ints(tys),
                _ => ParamKind::Other,
            }
        }
        other => match ir::type_name(other).as_deref() {
            Some("bool") => ParamKind::Bool,
            Some(name) => IntTy::from_name(name).map_or(ParamKind::Other, ParamKind::Int),
            None => ParamKind::Other,
        },
    }
}

/// Whether anything in the body can build or launch a configuration: a `LaunchConfig`
/// literal, a call (a helper's, cudarc's `for_num_elems`), a launch method, cust's
/// `launch!`. A body with none is not lowered or run at all (most of the cost of reading
/// one). A look over `syn`'s tree with no allocation.
fn may_launch(block: &syn::Block) -> bool {
    struct Finder(bool);
    impl<'ast> syn::visit::Visit<'ast> for Finder {
        fn visit_expr(&mut self, e: &'ast syn::Expr) {
            if self.0 {
                return;
            }
            match e {
                syn::Expr::Call(_) => self.0 = true,
                syn::Expr::Struct(s)
                    if s.path
                        .segments
                        .last()
                        .is_some_and(|l| l.ident == "LaunchConfig") =>
                {
                    self.0 = true
                }
                syn::Expr::MethodCall(m)
                    if apis::launch_config_arg(&m.method.to_string()).is_some() =>
                {
                    self.0 = true
                }
                _ => syn::visit::visit_expr(self, e),
            }
        }
        fn visit_macro(&mut self, m: &'ast syn::Macro) {
            if m.path
                .segments
                .last()
                .is_some_and(|s| s.ident == apis::LAUNCH_MACRO)
            {
                self.0 = true;
            }
        }
        fn visit_item(&mut self, _: &'ast syn::Item) {}
    }
    let mut finder = Finder(false);
    syn::visit::Visit::visit_block(&mut finder, block);
    finder.0
}

/// The kernels a body that launches nothing loads by a literal name, and a name it builds
/// with `format!` (the glob it suggests).
#[derive(Default)]
struct Loads {
    kernels: Vec<(String, Span)>,
    pattern: Option<(String, Span)>,
}

impl<'ast> syn::visit::Visit<'ast> for Loads {
    fn visit_expr_method_call(&mut self, m: &'ast syn::ExprMethodCall) {
        let index = apis::kernel_name_arg(&m.method.to_string());
        let mut arg = index.and_then(|i| m.args.iter().nth(i));
        while let Some(syn::Expr::Reference(r)) = arg {
            arg = Some(&r.expr);
        }
        match arg {
            Some(syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Str(s),
                ..
            })) => self.kernels.push((s.value(), s.span())),
            Some(syn::Expr::Macro(mac)) if mac.mac.path.is_ident("format") => {
                if let ir::Expr::Format(glob, ..) = ir::lower(&syn::Expr::Macro(mac.clone())) {
                    self.pattern
                        .get_or_insert((glob, syn::spanned::Spanned::span(mac)));
                }
            }
            _ => {}
        }
        syn::visit::visit_expr_method_call(self, m);
    }
    fn visit_item(&mut self, _: &'ast syn::Item) {}
}

/// Whether the body calls a launch method, and the names it uses as a `..base`.
fn scan(block: &ir::Block, mode: &mut Mode, depth: usize) {
    for stmt in &block.stmts {
        match stmt {
            ir::Stmt::Let(l) => {
                if let Some(e) = &l.init {
                    scan_expr(e, mode, depth);
                }
                if let Some(b) = &l.otherwise {
                    scan(b, mode, depth + 1);
                }
            }
            ir::Stmt::Expr(e) => scan_expr(e, mode, depth),
            ir::Stmt::Item(_) => {}
        }
    }
    if let Some(t) = &block.tail {
        scan_expr(t, mode, depth);
    }
}

fn scan_expr(e: &Expr, mode: &mut Mode, depth: usize) {
    if depth > ir::MAX_DEPTH {
        return;
    }
    let d = depth + 1;
    match e {
        Expr::MethodCall(r, name, args, _) => {
            if apis::launch_config_arg(name).is_some() {
                mode.launch_calls = true;
            }
            scan_expr(r, mode, d);
            args.iter().for_each(|a| scan_expr(a, mode, d));
        }
        Expr::Struct(s) => {
            if s.name == "LaunchConfig"
                && let Some(Expr::Path(p, _)) = &s.rest
                && let Some(n) = p.single()
            {
                mode.base_names.push(n.to_owned());
            }
            s.fields.iter().for_each(|(_, e, _)| scan_expr(e, mode, d));
            if let Some(r) = &s.rest {
                scan_expr(r, mode, d);
            }
        }
        Expr::If(i) => {
            scan_expr(&i.condition, mode, d);
            scan(&i.then, mode, d);
            if let Some(o) = &i.otherwise {
                scan_expr(o, mode, d);
            }
        }
        Expr::Match(m) => {
            scan_expr(&m.scrutinee, mode, d);
            m.arms.iter().for_each(|a| scan_expr(&a.body, mode, d));
        }
        Expr::Block(b) => scan(b, mode, d),
        Expr::Loop(l) => scan(&l.body, mode, d),
        Expr::Closure(_, body) => scan_expr(body, mode, d),
        Expr::Neg(x)
        | Expr::Not(x)
        | Expr::Cast(x, _)
        | Expr::Try(x)
        | Expr::Ref(x, _)
        | Expr::Field(x, _)
        | Expr::Assert(x) => scan_expr(x, mode, d),
        Expr::Binary(_, a, b) | Expr::Compare(_, a, b) | Expr::And(a, b) | Expr::Or(a, b) => {
            scan_expr(a, mode, d);
            scan_expr(b, mode, d);
        }
        Expr::Assign(a, _, b) => {
            scan_expr(a, mode, d);
            scan_expr(b, mode, d);
        }
        Expr::Method(r, _, args) => {
            scan_expr(r, mode, d);
            args.iter().for_each(|a| scan_expr(a, mode, d));
        }
        Expr::Call(p, args, _) => {
            let name = p.segments.last().map(|s| s.ident.as_str());
            if mode
                .launch_helpers
                .iter()
                .any(|(n, _)| Some(n.as_str()) == name)
            {
                mode.launch_calls = true;
            }
            args.iter().for_each(|a| scan_expr(a, mode, d))
        }
        Expr::Tuple(args) => args.iter().for_each(|a| scan_expr(a, mode, d)),
        Expr::Return(Some(x)) | Expr::Break(_, Some(x)) | Expr::Labeled(_, x) => {
            scan_expr(x, mode, d)
        }
        _ => {}
    }
}

/// The attribute's candidates as bindings of the run-time values they stand for: the block's
/// x when the body's block is `(value, y, z)` with `y` and `z` known, the shared memory when
/// it is a run-time value of its own.
fn assumptions(
    launches: &[BodyLaunch],
    candidates: &Candidates,
) -> Vec<(SourceKey, Vec<i128>, String)> {
    let mut out: Vec<(SourceKey, Vec<i128>, String)> = Vec::new();
    let mut add = |key: &SourceKey, values: Vec<i128>, what: &str| {
        // More candidates than one run-time set holds are checked as given (and past 64
        // plans, refused with the count).
        if values.len() <= occupancy_core::abstract_int::MAX_MEMBERS
            && !out.iter().any(|(k, _, _)| k == key)
        {
            out.push((key.clone(), values, what.to_owned()));
        }
    };
    for l in launches {
        let mut block_binding = None;
        if let (Some(block), Ok([Field::RunTime(x), y, z])) = (&candidates.block, &l.block)
            && let Some(key) = &x.source
            && let (Field::Known(y), Field::Known(z)) = (y, z)
            && block
                .iter()
                .all(|c| Some(i128::from(c[1])) == y.value() && Some(i128::from(c[2])) == z.value())
        {
            let mut values: Vec<i128> = block.iter().map(|c| i128::from(c[0])).collect();
            values.dedup();
            block_binding = Some((key, values));
        }
        let mut smem_binding = None;
        if let (Some(smem), Field::RunTime(s)) = (&candidates.smem, &l.smem)
            && let Some(key) = &s.source
        {
            let mut values: Vec<i128> = smem.iter().map(|v| i128::from(*v)).collect();
            values.dedup();
            smem_binding = Some((key, values));
        }
        // Two run-time values bound to several candidates each would be read as every
        // block with every size: neither is bound, and the plans refuse the crossing
        // (`occupancy_core::candidates`), saying how to give pairs.
        if let (Some((bk, bv)), Some((sk, sv))) = (&block_binding, &smem_binding)
            && bk != sk
            && bv.len() > 1
            && sv.len() > 1
        {
            continue;
        }
        if let Some((key, values)) = block_binding {
            add(key, values, BLOCK_CANDIDATES);
        }
        if let Some((key, values)) = smem_binding {
            add(key, values, SMEM_CANDIDATES);
        }
    }
    out
}

/// The launches of one record: one per combination of the members of the run-time sets its
/// values depend on (the sets bound to names, then the sets written inline in a field).
fn instances(
    interp: &Interp<'_>,
    rec: &LaunchRec,
    site: usize,
    group: usize,
    lowered: &Lowered,
) -> Vec<BodyLaunch> {
    let mut base = base_launch(rec, site, group, lowered);
    // The choices, with the members this path allows.
    let mut choices: Vec<(ChoiceId, Vec<usize>)> = Vec::new();
    for (c, mask) in &rec.masks {
        let n = interp
            .choices
            .get(*c as usize)
            .map_or(0, |i| i.members.len());
        let members: Vec<usize> = (0..n.min(64)).filter(|i| mask & (1 << i) != 0).collect();
        choices.push((*c, members));
    }
    let involved: Vec<ChoiceId> = choices
        .iter()
        .map(|(c, _)| *c)
        .chain(rec.fixed.iter().copied())
        .collect();
    let takes = |text: &str| {
        involved.iter().any(|c| {
            interp
                .choices
                .get(*c as usize)
                .is_some_and(|i| i.text == text)
        })
    };
    base.block_from_key = takes(BLOCK_CANDIDATES);
    base.smem_from_key = takes(SMEM_CANDIDATES);
    let base = base;
    let error = |why: String| {
        let mut l = base.clone_shape();
        l.error = Some(why);
        vec![l]
    };
    if let Some(why) = refusal(interp, rec, &choices, &involved) {
        return error(why);
    }
    let mut enumerated: Vec<value::SourceId> = Vec::new();
    for c in &involved {
        if let Some(info) = interp.choices.get(*c as usize) {
            enumerated = value::roots(&enumerated, &info.roots);
        }
    }
    // The members some launch is made with (not those whose values panic).
    let mut launched: Vec<Vec<usize>> = vec![Vec::new(); choices.len()];
    let mut out = Vec::new();
    let mut combo = vec![0usize; choices.len()];
    let out = loop {
        let mut config = rec.config.clone();
        for ((c, members), i) in choices.iter().zip(&combo) {
            if let Some(m) = members.get(*i) {
                config = config.fix(*c, *m);
            }
        }
        let texts = match &config {
            Val::Config(c) => c.texts.clone(),
            _ => ["".into(), "".into()],
        };
        let mut l = base.clone_shape();
        l.enumerated = enumerated.clone();
        // A member whose launch values panic (overflow their type) is not launched.
        let panics = match &config {
            Val::Config(c) => [&c.block, &c.smem, &c.grid].iter().any(|v| match v {
                Val::Tuple(items) => items.iter().any(Val::panics),
                other => other.panics(),
            }),
            other => other.panics(),
        };
        if panics && !choices.is_empty() {
            if next(&mut combo, &choices) {
                continue;
            }
            break out;
        }
        for ((launched, (_, members)), i) in launched.iter_mut().zip(&choices).zip(&combo) {
            if let Some(m) = members.get(*i)
                && !launched.contains(m)
            {
                launched.push(*m);
            }
        }
        match config {
            Val::Config(c) => {
                l.block = dims(&c.block, "block_dim", interp);
                l.smem = field(&c.smem, interp);
                l.grid = dims(&c.grid, "grid_dim", interp);
            }
            other => {
                let why = match other {
                    Val::Unknown(u) => u.why.to_string(),
                    _ => "not a launch configuration".to_owned(),
                };
                l.block = Err(why.clone());
                l.smem = Field::RunTime(RunTime::unread(why.clone()));
                l.grid = Err(why);
            }
        }
        out.extend(inline_sets(l, &texts));
        if !next(&mut combo, &choices) {
            break out;
        }
    };
    let notes = member_notes(interp, &choices, &mut launched);
    let mut out = out;
    for l in &mut out {
        l.notes.splice(0..0, notes.iter().cloned());
    }
    bounded_instances(out, &base)
}

/// A launch of `rec` with its locations, kernel and reads, its values not yet taken.
fn base_launch(rec: &LaunchRec, site: usize, group: usize, lowered: &Lowered) -> BodyLaunch {
    let span = |at: At| lowered.span(at);
    let config_at = match &rec.config {
        Val::Config(c) => c.at,
        _ => [rec.at; 4],
    };
    let at_or = |at: At| if at.0 == At::NONE.0 { rec.at } else { at };
    BodyLaunch {
        site,
        name: rec.name.clone(),
        span: span(rec.at),
        block_span: span(at_or(config_at[0])),
        smem_span: span(at_or(config_at[1])),
        grid_span: span(at_or(config_at[2])),
        block: Err(String::new()),
        smem: Field::RunTime(RunTime::unread(String::new())),
        grid: Err(String::new()),
        kernel: rec
            .kernel
            .as_ref()
            .map(|k: &Kernel| (k.name.clone(), k.glob, span(k.at))),
        origin: match &rec.config {
            Val::Config(c) => {
                let mut from = c.origin.clone();
                from.reverse();
                Some(from.join(" via "))
            }
            _ => None,
        },
        group,
        notes: Vec::new(),
        reads: rec
            .reads
            .iter()
            .map(|t| (t.clone(), span(at_or(t.at))))
            .collect(),
        helpers: rec
            .helpers
            .iter()
            .map(|h| (h.written.clone(), h.read.clone(), span(at_or(h.at))))
            .collect(),
        error: None,
        enumerated: Vec::new(),
        at: rec.at.0,
        block_from_key: false,
        smem_from_key: false,
        smem_from_block: false,
    }
}

/// Why the launches of `rec` are not enumerated, if they are not: a set a later condition
/// narrows, two sets of one run-time input combined, or too many combinations of the
/// members of `choices` (`involved`: the sets of `choices` and those `rec` fixes).
fn refusal(
    interp: &Interp<'_>,
    rec: &LaunchRec,
    choices: &[(ChoiceId, Vec<usize>)],
    involved: &[ChoiceId],
) -> Option<String> {
    if let Some((why, _)) = &rec.uncertain {
        return Some(why.to_string());
    }
    if let Some(c) = rec.stale.first()
        && let Some(info) = interp.choices.get(*c as usize)
    {
        return Some(format!(
            "`{}` (from `{}`) depends on a run-time value that a later condition narrows in a \
             way the reader cannot follow: which of its values this launch uses is not known; \
             compute it after the condition",
            info.name, info.text
        ));
    }
    // Two sets from the same run-time input, combined: which pairs the code makes is not
    // known to the reader.
    for (i, a) in involved.iter().enumerate() {
        for b in &involved[i + 1..] {
            let (Some(x), Some(y)) = (
                interp.choices.get(*a as usize),
                interp.choices.get(*b as usize),
            ) else {
                continue;
            };
            if let Some(s) = x.roots.iter().find(|s| y.roots.contains(s)) {
                return Some(format!(
                    "`{}` and `{}` both depend on {}, in ways the reader cannot relate: which \
                     pairs of their values this launch uses is not known; compute one from the \
                     other",
                    x.name,
                    y.name,
                    interp
                        .why(&[*s])
                        .split(" is ")
                        .next()
                        .unwrap_or("a run-time value")
                ));
            }
        }
    }
    let combinations: usize = choices
        .iter()
        .map(|(_, m)| m.len().max(1))
        .try_fold(1usize, |acc, n| acc.checked_mul(n))
        .unwrap_or(usize::MAX);
    if combinations > MAX_MEMBER_LAUNCHES {
        return Some(format!(
            "this launch takes more than {MAX_MEMBER_LAUNCHES} combinations of run-time values \
             ({combinations}): at most {MAX_MEMBER_LAUNCHES} are checked; give the launch's values \
             in the attribute"
        ));
    }
    None
}

/// How the sets were taken: for each of `choices` but the attribute's, the members some
/// launch was made with (`launched`, sorted here), as a note.
fn member_notes(
    interp: &Interp<'_>,
    choices: &[(ChoiceId, Vec<usize>)],
    launched: &mut [Vec<usize>],
) -> Vec<String> {
    let mut notes = Vec::new();
    for ((c, _), members) in choices.iter().zip(launched.iter_mut()) {
        if let Some(info) = interp.choices.get(*c as usize)
            && !info.text.starts_with("the attribute's")
            && !members.is_empty()
        {
            members.sort_unstable();
            let values: Vec<i128> = members
                .iter()
                .filter_map(|i| info.members.get(*i).copied())
                .collect();
            notes.push(format!(
                "`{}` from `{}`: each of {} checked",
                info.name,
                info.text,
                list(&values)
            ));
        }
    }
    notes
}

/// The next combination of members (`false` after the last).
fn next(combo: &mut [usize], choices: &[(ChoiceId, Vec<usize>)]) -> bool {
    for (k, c) in combo.iter_mut().enumerate() {
        *c += 1;
        if *c < choices[k].1.len() {
            return true;
        }
        *c = 0;
    }
    false
}

fn bounded_instances(mut out: Vec<BodyLaunch>, base: &BodyLaunch) -> Vec<BodyLaunch> {
    if out.len() > MAX_MEMBER_LAUNCHES {
        let n = out.len();
        out.truncate(1);
        let mut l = base.clone_shape();
        l.error = Some(format!(
            "this launch takes more than {MAX_MEMBER_LAUNCHES} combinations of run-time values \
             ({n}): at most {MAX_MEMBER_LAUNCHES} are checked; give the launch's values in the \
             attribute"
        ));
        return vec![l];
    }
    out
}

/// A launch whose block x or shared memory is a finite set not bound to a name (written
/// inline): one launch per member, unless both are, or the set shares its run-time input
/// with a set taken member by member already: then the pairs are not known.
fn inline_sets(l: BodyLaunch, texts: &[std::rc::Rc<str>; 2]) -> Vec<BodyLaunch> {
    let set_of = |f: &Field| match f {
        Field::RunTime(r) => r
            .set
            .as_ref()
            .and_then(|s| s.members().map(<[i128]>::to_vec))
            .filter(|m| m.len() > 1)
            .map(|m| (m, r.roots.clone())),
        Field::Known(_) => None,
    };
    let block_set = match &l.block {
        Ok([x, _, _]) => set_of(x),
        Err(_) => None,
    };
    let smem_set = set_of(&l.smem);
    let ((members, roots), is_block) = match (block_set, smem_set) {
        (None, None) => return vec![l],
        (Some(_), Some(_)) => {
            let mut l = l;
            l.error = Some(
                "the block size and the dynamic shared memory both take several values at run \
                 time, computed separately: which pairs the code launches is not known; compute \
                 them from one `let` (the reader then checks each value of it)"
                    .to_owned(),
            );
            return vec![l];
        }
        (Some(b), None) => (b, true),
        (None, Some(s)) => (s, false),
    };
    if roots.iter().any(|r| l.enumerated.contains(r)) {
        let mut l = l;
        l.error = Some(format!(
            "the {} takes several values at run time, from an input that another value of this \
             launch also depends on: which pairs the code launches is not known; compute it from \
             that value",
            if is_block {
                "block size"
            } else {
                "dynamic shared memory"
            }
        ));
        return vec![l];
    }
    let what = if is_block {
        "the block"
    } else {
        "the shared memory"
    };
    let text = if is_block { &texts[0] } else { &texts[1] };
    let note = if text.is_empty() {
        format!("{what}: each of {} checked", list(&members))
    } else {
        format!("{what} from `{text}`: each of {} checked", list(&members))
    };
    let enumerated = value::roots(&l.enumerated, &roots);
    members
        .iter()
        .map(|m| {
            let mut one = l.clone_shape();
            one.notes = l.notes.clone();
            one.notes.push(note.clone());
            one.enumerated = enumerated.clone();
            one.block = l.block.clone();
            one.smem = l.smem.clone();
            one.grid = l.grid.clone();
            let known = Field::Known(Int::known(*m, Some(IntTy::U32), None));
            if is_block {
                if let Ok(b) = &mut one.block {
                    b[0] = known;
                }
            } else {
                one.smem = known;
            }
            one
        })
        .collect()
}

impl BodyLaunch {
    /// The same launch site and path, with no values yet.
    fn clone_shape(&self) -> BodyLaunch {
        BodyLaunch {
            site: self.site,
            name: self.name.clone(),
            span: self.span,
            block_span: self.block_span,
            smem_span: self.smem_span,
            grid_span: self.grid_span,
            block: Err(String::new()),
            smem: Field::RunTime(RunTime::unread(String::new())),
            grid: Err(String::new()),
            kernel: self.kernel.clone(),
            origin: self.origin.clone(),
            group: self.group,
            notes: Vec::new(),
            reads: self.reads.clone(),
            helpers: self.helpers.clone(),
            error: self.error.clone(),
            enumerated: self.enumerated.clone(),
            at: self.at,
            block_from_key: self.block_from_key,
            smem_from_key: self.smem_from_key,
            smem_from_block: self.smem_from_block,
        }
    }
}

/// A dimension tuple: three values, or why not.
fn dims(v: &Val, name: &str, interp: &Interp<'_>) -> Result<[Field; 3], String> {
    match v {
        Val::Tuple(items) if items.len() == 3 => Ok([
            field(&items[0], interp),
            field(&items[1], interp),
            field(&items[2], interp),
        ]),
        Val::Unknown(u) => Err(u.why.to_string()),
        Val::Choice(..) => Err(format!("`{name}` takes several values at run time")),
        _ => Err(format!("`{name}` is not a tuple of three")),
    }
}

/// One value of a launch.
fn field(v: &Val, interp: &Interp<'_>) -> Field {
    let source = |s: Option<u32>| {
        s.and_then(|s| interp.sources.get(s as usize))
            .map(|s| s.key.clone())
    };
    match v {
        Val::Int(i) if i.value().is_some() => Field::Known(i.clone()),
        Val::Int(i) => Field::RunTime(RunTime {
            why: interp.why(&i.roots),
            set: (!i.set.is_unknown() && !i.is_type_range()).then(|| i.set.clone()),
            source: source(i.source),
            roots: i.roots.clone(),
            int: true,
        }),
        Val::Unknown(u) => Field::RunTime(RunTime {
            why: u.why.to_string(),
            set: None,
            source: source(u.source),
            roots: u.roots.clone(),
            int: false,
        }),
        Val::Bool(_) | Val::Str(_) | Val::Kernel(_) | Val::Builder(_) => Field::RunTime(RunTime {
            why: "a value that is not an integer".to_owned(),
            set: None,
            source: None,
            roots: Vec::new(),
            int: false,
        }),
        _ => Field::RunTime(RunTime {
            why: "a tuple where a number was expected".to_owned(),
            set: None,
            source: None,
            roots: Vec::new(),
            int: false,
        }),
    }
}

/// `1, 2, 4` or `1, 2, 4, ..., 1024` for a long list.
pub(crate) fn list(values: &[i128]) -> String {
    let text: Vec<String> = values.iter().map(i128::to_string).collect();
    if text.len() > 8 {
        format!(
            "{}, ..., {}",
            text[..3].join(", "),
            text.last().map_or("", String::as_str)
        )
    } else {
        text.join(", ")
    }
}

/// Evaluates a constant of the attribute (`block = TILE * 4`) in the wrapper's place: its
/// value, or why it cannot be read; the names it read, for the compiler to confirm.
pub(crate) fn eval_attribute(
    expr: &syn::Expr,
    resolver: &mut Resolver,
) -> (Val, String, Vec<std::rc::Rc<Term>>) {
    let lowered = ir::lower(expr);
    let text = ir::text(&lowered);
    let mut interp = Interp::new(
        resolver,
        Mode {
            launch_calls: false,
            base_names: Vec::new(),
            assume: Vec::new(),
            launch_helpers: Vec::new(),
        },
    );
    let (val, reads) = interp.eval_attribute(&lowered, Some(IntTy::U32));
    (val, text, reads)
}
