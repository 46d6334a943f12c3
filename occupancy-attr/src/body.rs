//! Reading the launches a wrapper's body makes, as the user wrote them.
//!
//! A launch is a configuration the body builds:
//!
//! - a cudarc `LaunchConfig { grid_dim, block_dim, shared_mem_bytes }` literal (`..base`
//!   included), inline or bound with `let`;
//! - cudarc's `LaunchConfig::for_num_elems(n)`;
//! - a call of the crate's own helper returning a `LaunchConfig` (`launch_cfg::<128>(n)`),
//!   bound with `let` or passed straight to a launch method;
//! - cust's `launch!(module.kernel<<<grid, block, smem, stream>>>(...))`.
//!
//! When the body calls a launch method (`.launch(cfg)`, `.launch_cooperative(cfg)`,
//! `.launch_on_stream(..)`, `.launch_async(..)`), the configurations passed to it are the
//! launches; otherwise every configuration it builds is, except one used only as the
//! `..base` of another. Each launch's values are evaluated by `resolve.rs` in the body's
//! scope: `let` bindings in order (shadowing included), the wrapper's parameters and
//! anything bound by a pattern as run-time values, constants from the crate's sources.
//!
//! The kernel's name, when written as a literal (`load_function("saxpy")`,
//! `get_function("saxpy")`, `get_func("module", "saxpy")`, cust's `module.saxpy<<<..>>>`),
//! may stand in for the attribute's `kernel`.

use proc_macro2::{Span, TokenStream, TokenTree};
use syn::spanned::Spanned;
use syn::visit::Visit;

use crate::cexpr::{self, Expr};
use crate::resolve::{Eval, Resolver, Scope};
use crate::source::Items;

/// Methods that launch a kernel with a configuration argument (cudarc's `LaunchArgs`
/// since 0.13, `LaunchAsync` before).
const LAUNCH_METHODS: &[&str] = &[
    "launch",
    "launch_cooperative",
    "launch_on_stream",
    "launch_async",
];

/// One launch the body makes.
pub(crate) struct BodyLaunch {
    /// The name its configuration is bound to (`cfg`), if any.
    pub(crate) name: Option<String>,
    /// The expression that builds the configuration.
    pub(crate) span: Span,
    /// The `block_dim` / `shared_mem_bytes` / `grid_dim` expressions of a literal (else the
    /// construction's span).
    pub(crate) block_span: Span,
    pub(crate) smem_span: Span,
    pub(crate) grid_span: Span,
    /// The configuration, per run-time choice.
    pub(crate) value: Eval,
}

/// What the body says.
#[derive(Default)]
pub(crate) struct BodyRead {
    pub(crate) launches: Vec<BodyLaunch>,
    /// Kernel names written as literals, in order.
    pub(crate) kernels: Vec<(String, Span)>,
    /// A name built at run time (`format!("affine_{}", T::NAME)`): the glob it suggests.
    pub(crate) kernel_pattern: Option<(String, Span)>,
}

/// A configuration expression found by the walk, before evaluation.
struct Construction<'a> {
    name: Option<String>,
    expr: &'a syn::Expr,
    /// The scope at that point.
    scope: Scope,
    /// A call of a launch method takes it.
    launched: bool,
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

/// Reads `block` in `scope` (the wrapper's module, `Self`, its parameters as opaque names).
pub(crate) fn read(block: &syn::Block, mut scope: Scope, resolver: &mut Resolver) -> BodyRead {
    // Names assigned to after their `let` (`b = 1024;`, `x += 1`, `&mut x`) have no one value
    // the reader knows: unknown everywhere. A configuration's own name is handled field by
    // field instead (`cfg.grid_dim = ..` leaves its block read).
    let mut mutations = Mutations::default();
    mutations.visit_block(block);
    for (name, _) in &mutations.assigned {
        if !mutations.configs.contains(name) {
            scope
                .opaque
                .push((name.clone(), "assigned after its `let`".to_owned()));
        }
    }
    let mut walk = Walk {
        scope,
        found: Vec::new(),
        launched_names: Vec::new(),
        launched_exprs: Vec::new(),
        bound: Vec::new(),
        base_names: Vec::new(),
        kernels: Vec::new(),
        kernel_pattern: None,
        cust: Vec::new(),
    };
    walk.block(block, 0);
    let any_launch_call = !walk.launched_names.is_empty() || !walk.launched_exprs.is_empty();
    let mut read = BodyRead {
        launches: Vec::new(),
        kernels: walk.kernels,
        kernel_pattern: walk.kernel_pattern,
    };
    for c in walk.found {
        let launched = c.launched
            || c.name
                .as_ref()
                .is_some_and(|n| walk.launched_names.contains(n));
        let used_as_base_only = c
            .name
            .as_ref()
            .is_some_and(|n| walk.base_names.contains(n) && !walk.launched_names.contains(n));
        let counts = if any_launch_call {
            launched
        } else {
            !used_as_base_only
        };
        if !counts {
            continue;
        }
        let lowered = cexpr::lower(c.expr);
        let mut value = match &c.name {
            Some(name) => resolver.eval(&Expr::Path(cexpr::Path::ident(name)), &c.scope, None),
            None => resolver.eval(&lowered, &c.scope, None),
        };
        if let Some(name) = &c.name {
            for (_, field) in mutations.assigned.iter().filter(|(n, _)| n == name) {
                value = crate::resolve::map(value, |v| reassigned(v, name, field.as_deref()));
            }
        }
        if !value
            .iter()
            .any(|b| matches!(b.val, crate::resolve::Val::Config(_)))
        {
            // A call that turned out not to build a configuration.
            if !matches!(lowered, Expr::Config(_)) && !is_for_num_elems(&lowered) {
                continue;
            }
        }
        let (block_span, smem_span, grid_span) = field_spans(c.expr);
        read.launches.push(BodyLaunch {
            name: c.name,
            span: c.expr.span(),
            block_span,
            smem_span,
            grid_span,
            value,
        });
    }
    for (macro_tokens, scope) in walk.cust {
        if let Some(launch) = cust_launch(&macro_tokens, &scope, resolver, &mut read.kernels) {
            read.launches.push(launch);
        }
    }
    read
}

/// A configuration whose `field` (or the whole of it) is assigned after it is built: that
/// part is unknown.
fn reassigned(v: crate::resolve::Val, name: &str, field: Option<&str>) -> crate::resolve::Val {
    use crate::resolve::Val;
    let Val::Config(mut c) = v else { return v };
    let why = |f: &str| Val::Unknown(format!("`{name}.{f}` is assigned after `{name}` is built"));
    match field {
        Some("block_dim") => c.block = why("block_dim"),
        Some("grid_dim") => c.grid = why("grid_dim"),
        Some("shared_mem_bytes") => c.smem = why("shared_mem_bytes"),
        Some(_) => {}
        None => {
            let whole = Val::Unknown(format!(
                "`{name}` is assigned or lent mutably after it is built"
            ));
            c.block = whole.clone();
            c.grid = whole.clone();
            c.smem = whole;
        }
    }
    Val::Config(c)
}

/// What the body assigns after a `let`, found before the walk. (A method taking `&mut self`
/// on a local is not seen; the integers the reader reads are `Copy` values whose methods
/// the reader knows do not mutate them.)
#[derive(Default)]
struct Mutations {
    /// (name, the field assigned, or `None` for the whole value).
    assigned: Vec<(String, Option<String>)>,
    /// Names bound by `let` to a configuration (a literal or a call).
    configs: Vec<String>,
}

impl Mutations {
    /// `target` is assigned to (`cfg.block_dim = ..`, `cfg = ..`, `x += ..`) or lent
    /// mutably.
    fn record(&mut self, target: &syn::Expr) {
        match strip(target) {
            syn::Expr::Path(p) => {
                if let Some(name) = p.path.get_ident() {
                    self.assigned.push((name.to_string(), None));
                }
            }
            syn::Expr::Field(f) => match (strip(&f.base), &f.member) {
                (syn::Expr::Path(p), syn::Member::Named(field)) if p.path.get_ident().is_some() => {
                    let name = p
                        .path
                        .get_ident()
                        .map(ToString::to_string)
                        .unwrap_or_default();
                    self.assigned.push((name, Some(field.to_string())));
                }
                _ => self.record(&f.base),
            },
            syn::Expr::Index(i) => self.record(&i.expr),
            _ => {}
        }
    }
}

impl<'ast> syn::visit::Visit<'ast> for Mutations {
    fn visit_local(&mut self, local: &'ast syn::Local) {
        if let (Some(name), Some(init)) = (cexpr::pattern_name(&local.pat), &local.init)
            && matches!(strip(&init.expr), syn::Expr::Struct(_) | syn::Expr::Call(_))
        {
            self.configs.push(name);
        }
        syn::visit::visit_local(self, local);
    }
    fn visit_expr_assign(&mut self, e: &'ast syn::ExprAssign) {
        self.record(&e.left);
        syn::visit::visit_expr_assign(self, e);
    }
    fn visit_expr_binary(&mut self, e: &'ast syn::ExprBinary) {
        if is_compound_assignment(&e.op) {
            self.record(&e.left);
        }
        syn::visit::visit_expr_binary(self, e);
    }
    fn visit_expr_reference(&mut self, e: &'ast syn::ExprReference) {
        if e.mutability.is_some() {
            self.record(&e.expr);
        }
        syn::visit::visit_expr_reference(self, e);
    }
}

/// `+=`, `*=`, ...
fn is_compound_assignment(op: &syn::BinOp) -> bool {
    use syn::BinOp as B;
    matches!(
        op,
        B::AddAssign(_)
            | B::SubAssign(_)
            | B::MulAssign(_)
            | B::DivAssign(_)
            | B::RemAssign(_)
            | B::BitXorAssign(_)
            | B::BitAndAssign(_)
            | B::BitOrAssign(_)
            | B::ShlAssign(_)
            | B::ShrAssign(_)
    )
}

fn is_for_num_elems(e: &Expr) -> bool {
    matches!(e, Expr::Call(p, _) if p.idents().ends_with(&["LaunchConfig", "for_num_elems"]))
}

/// The spans of a `LaunchConfig` literal's fields, or the expression's span thrice.
fn field_spans(expr: &syn::Expr) -> (Span, Span, Span) {
    let whole = expr.span();
    let syn::Expr::Struct(s) = expr else {
        return (whole, whole, whole);
    };
    let field = |name: &str| {
        s.fields
            .iter()
            .find(|f| matches!(&f.member, syn::Member::Named(n) if n == name))
            .map_or(whole, |f| f.expr.span())
    };
    (
        field("block_dim"),
        field("shared_mem_bytes"),
        field("grid_dim"),
    )
}

struct Walk<'a> {
    scope: Scope,
    found: Vec<Construction<'a>>,
    launched_names: Vec<String>,
    launched_exprs: Vec<*const syn::Expr>,
    /// Constructions bound by `let` (recorded with their name).
    bound: Vec<*const syn::Expr>,
    base_names: Vec<String>,
    kernels: Vec<(String, Span)>,
    kernel_pattern: Option<(String, Span)>,
    cust: Vec<(TokenStream, Scope)>,
}

/// The deepest statement nesting walked (the body passed `limits.rs` already).
const MAX_DEPTH: usize = 128;

impl<'a> Walk<'a> {
    fn block(&mut self, block: &'a syn::Block, depth: usize) {
        if depth > MAX_DEPTH {
            return;
        }
        let mark = (self.scope.locals.len(), self.scope.opaque.len());
        // Items of a nested block shadow the module's (the top-level ones are read as the
        // body's items): the reader does not read them, so a name they declare is unknown
        // there rather than resolved to another item of the same name.
        if depth > 0 {
            for stmt in &block.stmts {
                if let syn::Stmt::Item(item) = stmt
                    && let Some(name) = item_name(item)
                {
                    self.scope
                        .opaque
                        .push((name, "an item declared in a nested block".to_owned()));
                }
            }
        }
        for stmt in &block.stmts {
            self.stmt(stmt, depth + 1);
        }
        self.scope.locals.truncate(mark.0);
        self.scope.opaque.truncate(mark.1);
    }

    fn stmt(&mut self, stmt: &'a syn::Stmt, depth: usize) {
        match stmt {
            syn::Stmt::Local(local) => {
                let bound = local.init.as_ref().filter(|init| {
                    init.diverge.is_none()
                        && cexpr::pattern_name(&local.pat).is_some()
                        && self.is_construction(&init.expr)
                });
                if let Some(init) = bound {
                    // Recorded below through its binding, not again by the walk.
                    self.bound.push(strip(&init.expr) as *const _);
                }
                if let Some(init) = &local.init {
                    self.expr(&init.expr, depth + 1);
                    if let Some((_, diverge)) = &init.diverge {
                        self.expr(diverge, depth + 1);
                    }
                }
                match (cexpr::pattern_name(&local.pat), &local.init) {
                    (Some(name), Some(init)) if init.diverge.is_none() => {
                        let lowered = cexpr::lower(&init.expr);
                        self.bind(name.clone(), lowered);
                        if bound.is_some() {
                            // Evaluated through the binding, so that a run-time choice in it
                            // is the same choice wherever the name is used.
                            self.found.push(Construction {
                                name: Some(name),
                                expr: &init.expr,
                                scope: self.scope.clone(),
                                launched: false,
                            });
                        }
                    }
                    _ => self.opaque_pattern(
                        &local.pat,
                        "bound by a pattern the reader does not follow",
                    ),
                }
            }
            syn::Stmt::Expr(e, _) => self.expr(e, depth + 1),
            syn::Stmt::Macro(m) => self.mac(&m.mac),
            syn::Stmt::Item(_) => {}
        }
    }

    /// Binds `name` to `expr`, evaluated when a launch first uses it.
    fn bind(&mut self, name: String, expr: Expr) {
        self.scope.bind_deferred(name, expr);
    }

    fn opaque_pattern(&mut self, pat: &syn::Pat, what: &str) {
        let mut names = Vec::new();
        pattern_names(pat, &mut names, 0);
        for name in names {
            self.scope.opaque.push((name, what.to_owned()));
        }
    }

    /// A configuration built right here (a literal or cudarc's helper), or a call that may
    /// be a helper's (checked when evaluated).
    fn is_construction(&self, e: &syn::Expr) -> bool {
        match e {
            syn::Expr::Struct(s) => s
                .path
                .segments
                .last()
                .is_some_and(|l| l.ident == "LaunchConfig"),
            syn::Expr::Call(c) => matches!(&*c.func, syn::Expr::Path(_)),
            syn::Expr::Paren(p) => self.is_construction(&p.expr),
            _ => false,
        }
    }

    fn expr(&mut self, e: &'a syn::Expr, depth: usize) {
        if depth > MAX_DEPTH {
            return;
        }
        let d = depth + 1;
        match e {
            syn::Expr::Struct(s) => {
                if s.path
                    .segments
                    .last()
                    .is_some_and(|l| l.ident == "LaunchConfig")
                {
                    if let Some(rest) = &s.rest
                        && let syn::Expr::Path(p) = &**rest
                        && let Some(name) = p.path.get_ident()
                    {
                        self.base_names.push(name.to_string());
                    }
                    // A literal not bound by `let` (bound ones are recorded by `stmt`).
                    if !self.bound.contains(&(e as *const _)) {
                        self.found.push(Construction {
                            name: None,
                            expr: e,
                            scope: self.scope.clone(),
                            launched: self.launched_exprs.contains(&(e as *const _)),
                        });
                    }
                }
                for f in &s.fields {
                    self.expr(&f.expr, d);
                }
                if let Some(rest) = &s.rest {
                    self.expr(rest, d);
                }
            }
            syn::Expr::MethodCall(m) => {
                let method = m.method.to_string();
                if LAUNCH_METHODS.contains(&method.as_str()) {
                    for arg in &m.args {
                        match strip(arg) {
                            syn::Expr::Path(p) if p.path.get_ident().is_some() => {
                                if let Some(name) = p.path.get_ident() {
                                    self.launched_names.push(name.to_string());
                                }
                            }
                            inner @ (syn::Expr::Struct(_) | syn::Expr::Call(_)) => {
                                self.launched_exprs.push(inner as *const _);
                                if matches!(inner, syn::Expr::Call(_)) {
                                    self.found.push(Construction {
                                        name: None,
                                        expr: inner,
                                        scope: self.scope.clone(),
                                        launched: true,
                                    });
                                }
                            }
                            _ => {}
                        }
                    }
                }
                self.kernel_name(&method, &m.args);
                self.expr(&m.receiver, d);
                for a in &m.args {
                    self.expr(a, d);
                }
            }
            syn::Expr::Call(c) => {
                if let syn::Expr::Path(p) = &*c.func
                    && p.path.segments.len() >= 2
                    && p.path
                        .segments
                        .last()
                        .is_some_and(|s| s.ident == "for_num_elems")
                    && !self.bound.contains(&(e as *const _))
                    && !self.launched_exprs.contains(&(e as *const _))
                {
                    self.found.push(Construction {
                        name: None,
                        expr: e,
                        scope: self.scope.clone(),
                        launched: self.launched_exprs.contains(&(e as *const _)),
                    });
                }
                self.expr(&c.func, d);
                for a in &c.args {
                    self.expr(a, d);
                }
            }
            syn::Expr::Block(b) => self.block(&b.block, d),
            syn::Expr::Unsafe(u) => self.block(&u.block, d),
            syn::Expr::Const(c) => self.block(&c.block, d),
            syn::Expr::Async(a) => self.block(&a.block, d),
            syn::Expr::Loop(l) => self.block(&l.body, d),
            syn::Expr::While(w) => {
                self.expr(&w.cond, d);
                self.block(&w.body, d);
            }
            syn::Expr::ForLoop(f) => {
                self.expr(&f.expr, d);
                let mark = self.scope.opaque.len();
                self.opaque_pattern(&f.pat, "a loop variable");
                self.block(&f.body, d);
                self.scope.opaque.truncate(mark);
            }
            syn::Expr::If(i) => {
                let mark = self.scope.opaque.len();
                self.expr(&i.cond, d);
                self.block(&i.then_branch, d);
                self.scope.opaque.truncate(mark);
                if let Some((_, e)) = &i.else_branch {
                    self.expr(e, d);
                }
            }
            syn::Expr::Let(l) => {
                self.expr(&l.expr, d);
                self.opaque_pattern(&l.pat, "bound by a pattern the reader does not follow");
            }
            syn::Expr::Match(m) => {
                self.expr(&m.expr, d);
                for arm in &m.arms {
                    let mark = self.scope.opaque.len();
                    self.opaque_pattern(&arm.pat, "bound by a `match` pattern");
                    self.expr(&arm.body, d);
                    self.scope.opaque.truncate(mark);
                }
            }
            syn::Expr::Closure(c) => {
                let mark = self.scope.opaque.len();
                for input in &c.inputs {
                    self.opaque_pattern(input, "a closure parameter");
                }
                self.expr(&c.body, d);
                self.scope.opaque.truncate(mark);
            }
            syn::Expr::Macro(m) => self.mac(&m.mac),
            syn::Expr::Try(t) => self.expr(&t.expr, d),
            syn::Expr::Paren(p) => self.expr(&p.expr, d),
            syn::Expr::Group(g) => self.expr(&g.expr, d),
            syn::Expr::Reference(r) => self.expr(&r.expr, d),
            syn::Expr::Return(r) => {
                if let Some(e) = &r.expr {
                    self.expr(e, d);
                }
            }
            syn::Expr::Tuple(t) => {
                for e in &t.elems {
                    self.expr(e, d);
                }
            }
            syn::Expr::Array(a) => {
                for e in &a.elems {
                    self.expr(e, d);
                }
            }
            syn::Expr::Assign(a) => {
                self.expr(&a.left, d);
                self.expr(&a.right, d);
            }
            syn::Expr::Binary(b) => {
                self.expr(&b.left, d);
                self.expr(&b.right, d);
            }
            syn::Expr::Unary(u) => self.expr(&u.expr, d),
            syn::Expr::Field(f) => self.expr(&f.base, d),
            syn::Expr::Index(i) => {
                self.expr(&i.expr, d);
                self.expr(&i.index, d);
            }
            syn::Expr::Cast(c) => self.expr(&c.expr, d),
            syn::Expr::Await(a) => self.expr(&a.base, d),
            _ => {}
        }
    }

    /// A kernel name written as a literal.
    fn kernel_name(
        &mut self,
        method: &str,
        args: &syn::punctuated::Punctuated<syn::Expr, syn::Token![,]>,
    ) {
        let index = match method {
            "load_function" | "get_function" => 0,
            "get_func" => 1,
            _ => return,
        };
        match args.iter().nth(index).map(strip) {
            Some(syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Str(s),
                ..
            })) => self.kernels.push((s.value(), s.span())),
            Some(syn::Expr::Macro(m)) if m.mac.path.is_ident("format") => {
                if let Ok(format) = m.mac.parse_body_with(
                    syn::punctuated::Punctuated::<syn::Expr, syn::Token![,]>::parse_terminated,
                ) && let Some(syn::Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Str(s),
                    ..
                })) = format.first()
                {
                    let glob = glob_of_format(&s.value());
                    self.kernel_pattern = Some((glob, m.span()));
                }
            }
            _ => {}
        }
    }

    fn mac(&mut self, mac: &'a syn::Macro) {
        if mac
            .path
            .segments
            .last()
            .is_some_and(|s| s.ident == "launch")
        {
            self.cust.push((mac.tokens.clone(), self.scope.clone()));
        }
    }
}

/// The name an item declares in the value namespace, if any.
fn item_name(item: &syn::Item) -> Option<String> {
    Some(match item {
        syn::Item::Const(c) => c.ident.to_string(),
        syn::Item::Static(s) => s.ident.to_string(),
        syn::Item::Fn(f) => f.sig.ident.to_string(),
        _ => return None,
    })
}

/// `affine_{}` -> `affine_*` (each `{...}` placeholder a `*`; `{{` and `}}` literal braces).
fn glob_of_format(format: &str) -> String {
    let mut out = String::new();
    let mut chars = format.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '{' if chars.peek() == Some(&'{') => {
                chars.next();
                out.push('{');
            }
            '}' if chars.peek() == Some(&'}') => {
                chars.next();
                out.push('}');
            }
            '{' => {
                for c in chars.by_ref() {
                    if c == '}' {
                        break;
                    }
                }
                if !out.ends_with('*') {
                    out.push('*');
                }
            }
            c => out.push(c),
        }
    }
    out
}

fn strip(e: &syn::Expr) -> &syn::Expr {
    match e {
        syn::Expr::Paren(p) => strip(&p.expr),
        syn::Expr::Group(g) => strip(&g.expr),
        syn::Expr::Reference(r) => strip(&r.expr),
        other => other,
    }
}

/// The names a pattern binds.
fn pattern_names(pat: &syn::Pat, out: &mut Vec<String>, depth: usize) {
    if depth > 64 {
        return;
    }
    let d = depth + 1;
    match pat {
        syn::Pat::Ident(p) => {
            out.push(p.ident.to_string());
            if let Some((_, sub)) = &p.subpat {
                pattern_names(sub, out, d);
            }
        }
        syn::Pat::Type(t) => pattern_names(&t.pat, out, d),
        syn::Pat::Tuple(t) => t.elems.iter().for_each(|p| pattern_names(p, out, d)),
        syn::Pat::TupleStruct(t) => t.elems.iter().for_each(|p| pattern_names(p, out, d)),
        syn::Pat::Struct(s) => s.fields.iter().for_each(|f| pattern_names(&f.pat, out, d)),
        syn::Pat::Slice(s) => s.elems.iter().for_each(|p| pattern_names(p, out, d)),
        syn::Pat::Or(o) => o.cases.iter().for_each(|p| pattern_names(p, out, d)),
        syn::Pat::Reference(r) => pattern_names(&r.pat, out, d),
        syn::Pat::Paren(p) => pattern_names(&p.pat, out, d),
        _ => {}
    }
}

/// cust's `launch!(module.kernel<<<grid, block, smem, stream>>>(args))`: grid and block
/// are a number or a tuple of two or three.
fn cust_launch(
    tokens: &TokenStream,
    scope: &Scope,
    resolver: &mut Resolver,
    kernels: &mut Vec<(String, Span)>,
) -> Option<BodyLaunch> {
    let trees: Vec<TokenTree> = tokens.clone().into_iter().collect();
    let is =
        |i: usize, c: char| matches!(trees.get(i), Some(TokenTree::Punct(p)) if p.as_char() == c);
    let open = (0..trees.len()).find(|&i| is(i, '<') && is(i + 1, '<') && is(i + 2, '<'))?;
    let close =
        (open + 3..trees.len()).find(|&i| is(i, '>') && is(i + 1, '>') && is(i + 2, '>'))?;
    if let Some(TokenTree::Ident(kernel)) = open.checked_sub(1).and_then(|i| trees.get(i)) {
        kernels.push((kernel.to_string(), kernel.span()));
    }
    let inside: TokenStream = trees[open + 3..close].iter().cloned().collect();
    let parts: Vec<syn::Expr> = syn::parse::Parser::parse2(
        syn::punctuated::Punctuated::<syn::Expr, syn::Token![,]>::parse_terminated,
        inside,
    )
    .ok()?
    .into_iter()
    .collect();
    if parts.len() < 3 {
        return None;
    }
    let dims = |e: &syn::Expr| -> Expr {
        let one = Expr::Int(1, None);
        match cexpr::lower(e) {
            Expr::Tuple(mut t) if (1..=3).contains(&t.len()) => {
                while t.len() < 3 {
                    t.push(one.clone());
                }
                Expr::Tuple(t)
            }
            Expr::Tuple(_) => Expr::Opaque("a tuple of more than three dimensions".to_owned()),
            other => Expr::Tuple(vec![other, one.clone(), one]),
        }
    };
    let config = Expr::Config(cexpr::ConfigExpr {
        grid: Some(Box::new(dims(&parts[0]))),
        block: Some(Box::new(dims(&parts[1]))),
        smem: Some(Box::new(cexpr::lower(&parts[2]))),
        rest: None,
    });
    let value = resolver.eval(&config, scope, None);
    let span = trees
        .get(open)
        .map_or_else(Span::call_site, TokenTree::span);
    Some(BodyLaunch {
        name: None,
        span,
        block_span: parts[1].span(),
        smem_span: parts[2].span(),
        grid_span: parts[0].span(),
        value,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn format_strings_become_globs() {
        assert_eq!(glob_of_format("affine_{}"), "affine_*");
        assert_eq!(glob_of_format("{}_{}_kernel"), "*_*_kernel");
        assert_eq!(glob_of_format("badd_{name}"), "badd_*");
        assert_eq!(glob_of_format("a{{b}}_{}"), "a{b}_*");
    }
}
