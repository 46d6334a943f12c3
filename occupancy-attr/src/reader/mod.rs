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
//! syn body ──ir.rs──▶ IR ──occupancy_read::interp──▶ records per path ──occupancy_read::launches──▶ Launch per
//!           (spans kept)     (names.rs: the crate's     (+ the members of    (sets enumerated)        launch the code
//!                             sources, as Names)         run-time sets)                               can make
//!                                                                                  ──this file──▶ BodyLaunch (+ spans)
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

use proc_macro2::Span;

use interp::{Interp, Mode, ParamKind, SourceKey};
use ir::{At, Expr, IntTy, Lowered, Pat};
use names::Resolver;
pub(crate) use occupancy_read::launches::{
    BLOCK_CANDIDATES, Field, Launch, RunTime, SMEM_CANDIDATES,
};
use value::{Term, Val};

use crate::apis;
use crate::source::Items;

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

/// One launch of the body: the core's record ([`Launch`]) with its places in the wrapper's
/// source.
pub(crate) struct BodyLaunch {
    /// The launch, its values and what it read.
    pub(crate) record: Launch,
    /// The whole launch, and where its block, shared memory and grid are written.
    pub(crate) span: Span,
    pub(crate) block_span: Span,
    pub(crate) smem_span: Span,
    pub(crate) grid_span: Span,
    /// The kernel its path launches, when named: (name or glob, is a glob, where).
    pub(crate) kernel: Option<(String, bool, Span)>,
    /// The names read on the path (see [`Launch::reads`]), with where to report a failed
    /// confirmation.
    pub(crate) reads: Vec<(std::rc::Rc<Term>, Span)>,
    /// Helpers called on the path: (as written, from the crate root, the call).
    pub(crate) helpers: Vec<(ir::Path, ir::Path, Span)>,
}

impl BodyLaunch {
    /// `record` placed in the body `lowered` (its locations mapped to spans).
    fn new(record: Launch, lowered: &Lowered) -> BodyLaunch {
        let span = |at: At| lowered.span(record.at_or_launch(at));
        BodyLaunch {
            span: span(record.at),
            block_span: span(record.block_at),
            smem_span: span(record.smem_at),
            grid_span: span(record.grid_at),
            kernel: record
                .kernel
                .as_ref()
                .map(|k| (k.name.clone(), k.glob, span(k.at))),
            reads: record
                .reads
                .iter()
                .map(|t| (t.clone(), span(t.at)))
                .collect(),
            helpers: record
                .helpers
                .iter()
                .map(|h| (h.written.clone(), h.read.clone(), span(h.at)))
                .collect(),
            record,
        }
    }
}

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
        chevrons_in_callees: false,
        lang: occupancy_read::value::Lang::Rust,
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
    for l in launches.iter().map(|l| &l.record) {
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
    for l in launches.iter_mut().map(|l| &mut l.record) {
        let Field::RunTime(smem) = &mut l.smem else {
            continue;
        };
        if !matches!(&l.block, Ok([Field::RunTime(_), _, _])) {
            continue;
        }
        let site: Vec<&Launch> = probed
            .iter()
            .map(|p| &p.record)
            .filter(|p| p.at.0 == l.at.0)
            .collect();
        let known = |p: &&Launch| {
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
    // A launch on the fold of the paths past the bound: the error on the construct that
    // split them (`problems`) says why it is not read.
    read.launches = occupancy_read::launches::launches(&interp)
        .into_iter()
        .filter(|l| !l.folded)
        .map(|l| BodyLaunch::new(l, lowered))
        .collect();
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
        | Expr::Spread(x)
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
    for l in launches.iter().map(|l| &l.record) {
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
            chevrons_in_callees: false,
            lang: occupancy_read::value::Lang::Rust,
        },
    );
    let (val, reads) = interp.eval_attribute(&lowered, Some(IntTy::U32));
    (val, text, reads)
}
