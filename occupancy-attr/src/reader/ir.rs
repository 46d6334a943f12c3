//! The Rust front end's lowering: `syn`'s tree to the IR of `occupancy-read`
//! ([`occupancy_read::ir`], re-exported here), lowered once, then kept (for files other than
//! the wrapper's, across expansions, in the source index) and run by its interpreter; and
//! the IR back to tokens (the terms the compiler confirms).
//!
//! What launch code is written with is lowered: integer, boolean and string literals, paths,
//! arithmetic and comparisons, `as` casts between integer types, the integer methods
//! (`div_ceil`, `min`, `max`, `clamp`, `next_power_of_two`, `pow`), calls, method calls,
//! tuples, struct literals and fields, `if` / `match` with their conditions and patterns,
//! blocks with `let` (patterns included), assignments, loops, `return` / `break`, `?`,
//! closures, and the macros `format!`, `matches!`, `assert!`, the diverging ones and cust's
//! `launch!`. Anything else is [`Expr::Opaque`] with a description of what it is, so that a
//! note can say which expression could not be read and why.
//!
//! Expressions of the wrapper's body carry their spans ([`At`], an index into the body's
//! span table: `syn`'s spans cannot be kept across expansions); those of other files do
//! not. Spans never make two expressions differ: [`At`]'s equality always holds, so that
//! the interpreter recognises the same condition written twice.
//!
//! Lowering recurses over `syn`'s tree, so its input must have passed the nesting limits of
//! `limits.rs` first; the lowered tree is bounded the same way ([`MAX_DEPTH`]).

use occupancy_core::abstract_int::Comparison;
pub(crate) use occupancy_read::ir::*;
use proc_macro2::{Span, TokenStream};
use quote::{ToTokens, quote_spanned};
use syn::{BinOp, Lit, Member, UnOp};

fn op_from_syn(op: &BinOp) -> Option<Op> {
    Some(match op {
        BinOp::Add(_) | BinOp::AddAssign(_) => Op::Add,
        BinOp::Sub(_) | BinOp::SubAssign(_) => Op::Sub,
        BinOp::Mul(_) | BinOp::MulAssign(_) => Op::Mul,
        BinOp::Div(_) | BinOp::DivAssign(_) => Op::Div,
        BinOp::Rem(_) | BinOp::RemAssign(_) => Op::Rem,
        BinOp::Shl(_) | BinOp::ShlAssign(_) => Op::Shl,
        BinOp::Shr(_) | BinOp::ShrAssign(_) => Op::Shr,
        BinOp::BitAnd(_) | BinOp::BitAndAssign(_) => Op::BitAnd,
        BinOp::BitOr(_) | BinOp::BitOrAssign(_) => Op::BitOr,
        BinOp::BitXor(_) | BinOp::BitXorAssign(_) => Op::BitXor,
        _ => return None,
    })
}

fn comparison(op: &BinOp) -> Option<Comparison> {
    Some(match op {
        BinOp::Lt(_) => Comparison::Lt,
        BinOp::Le(_) => Comparison::Le,
        BinOp::Gt(_) => Comparison::Gt,
        BinOp::Ge(_) => Comparison::Ge,
        BinOp::Eq(_) => Comparison::Eq,
        BinOp::Ne(_) => Comparison::Ne,
        _ => return None,
    })
}

/// A pattern that must match (`let` without `else`, `for`, a closure's parameters): its
/// capitalised names are bindings again (`let BLOCK = 64;` shadows a constant `BLOCK` as the
/// reader reads it), where [`Lowering::pat`] reads them as variants or constants.
fn irrefutable(pat: Pat) -> Pat {
    match pat {
        Pat::Path(p)
            if !p.leading_colon && p.segments.len() == 1 && p.segments[0].args.is_empty() =>
        {
            Pat::Bind(p.segments[0].ident.clone(), None)
        }
        Pat::Tuple(items) => Pat::Tuple(items.into_iter().map(irrefutable).collect()),
        Pat::TupleStruct(p, items) => {
            Pat::TupleStruct(p, items.into_iter().map(irrefutable).collect())
        }
        Pat::Struct(p, fields) => Pat::Struct(
            p,
            fields
                .into_iter()
                .map(|(n, f)| (n, irrefutable(f)))
                .collect(),
        ),
        Pat::Bind(name, Some(sub)) => Pat::Bind(name, Some(Box::new(irrefutable(*sub)))),
        other => other,
    }
}

/// A lowering: where the spans go (the wrapper's body keeps them, other files do not).
pub(crate) struct Lowering {
    spans: Option<Vec<Span>>,
}

/// The wrapper's body, lowered, with its span table.
pub(crate) struct Lowered {
    pub(crate) block: Block,
    pub(crate) spans: Vec<Span>,
}

impl Lowered {
    /// The span of `at` (the call site for [`At::NONE`]).
    pub(crate) fn span(&self, at: At) -> Span {
        self.spans
            .get(at.0 as usize)
            .copied()
            .unwrap_or_else(Span::call_site)
    }
}

/// Lowers `expr` (an attribute's value, a constant's definition), without spans.
pub(crate) fn lower(expr: &syn::Expr) -> Expr {
    Lowering { spans: None }.expr(expr, 0)
}

/// Lowers a function body of the crate's sources, without spans.
pub(crate) fn lower_fn_body(block: &syn::Block) -> Block {
    Lowering { spans: None }.block(block, 0)
}

/// Lowers a pattern (a parameter of a function of the crate's sources), without spans.
pub(crate) fn lower_pat(pat: &syn::Pat) -> Pat {
    Lowering { spans: None }.pat(pat, 0)
}

/// Lowers the wrapper's body, with its spans.
pub(crate) fn lower_body(block: &syn::Block) -> Lowered {
    let mut lowering = Lowering {
        spans: Some(Vec::new()),
    };
    let block = lowering.block(block, 0);
    Lowered {
        block,
        spans: lowering.spans.unwrap_or_default(),
    }
}

impl Lowering {
    fn at(&mut self, span: Span) -> At {
        match &mut self.spans {
            Some(spans) if spans.len() < u32::MAX as usize - 1 => {
                spans.push(span);
                At(spans.len() as u32 - 1)
            }
            _ => At::NONE,
        }
    }

    fn at_span(&mut self, span: Span) -> At {
        if self.spans.is_none() {
            return At::NONE;
        }
        self.at(span)
    }

    fn at_of(&mut self, node: &impl syn::spanned::Spanned) -> At {
        if self.spans.is_none() {
            return At::NONE;
        }
        self.at(node.span())
    }

    /// The span of `e`'s first token: what a proc macro's span of the whole expression is
    /// on stable Rust (spans do not join there), without printing the expression to tokens
    /// as `Spanned::span` does (the reader takes many spans; that was most of its cost).
    fn at_first(&mut self, e: &syn::Expr) -> At {
        if self.spans.is_none() {
            return At::NONE;
        }
        self.at(first_span(e, 0))
    }

    fn boxed(&mut self, e: &syn::Expr, depth: usize) -> Box<Expr> {
        Box::new(self.expr(e, depth + 1))
    }

    fn exprs<'a>(
        &mut self,
        es: impl IntoIterator<Item = &'a syn::Expr>,
        depth: usize,
    ) -> Vec<Expr> {
        es.into_iter().map(|e| self.expr(e, depth + 1)).collect()
    }

    /// A `format!`'s arguments after its string: positional ones, `name = expr` ones, and the
    /// names the string captures (`{kernel_name}`) as paths.
    fn format_args(
        &mut self,
        text: String,
        args: impl Iterator<Item = syn::Expr>,
        depth: usize,
    ) -> FormatArgs {
        let mut positional = Vec::new();
        let mut named = Vec::new();
        for a in args {
            match &a {
                syn::Expr::Assign(assign) => {
                    if let syn::Expr::Path(p) = &*assign.left
                        && let Some(name) = p.path.get_ident()
                    {
                        named.push((name.to_string(), self.expr(&assign.right, depth + 1)));
                    }
                }
                _ => positional.push(self.expr(&a, depth + 1)),
            }
        }
        let mut captured = Vec::new();
        fill_format(&text, |p| {
            if let Placeholder::Named(name) = p {
                captured.push(name.to_owned());
            }
            None
        });
        for name in captured {
            if named.iter().any(|(n, _)| *n == name) {
                continue;
            }
            if let Ok(path) = syn::parse_str::<syn::Expr>(&name) {
                named.push((name, self.expr(&path, depth + 1)));
            }
        }
        FormatArgs {
            text,
            positional,
            named,
        }
    }

    fn expr(&mut self, expr: &syn::Expr, depth: usize) -> Expr {
        if depth > MAX_DEPTH {
            return Expr::Opaque("an expression nested too deeply".to_owned());
        }
        let d = depth + 1;
        match expr {
            syn::Expr::Lit(lit) => match &lit.lit {
                Lit::Int(int) => int_literal(int),
                Lit::Bool(b) => Expr::Bool(b.value),
                Lit::Str(s) => Expr::Str(s.value(), self.at_span(s.span())),
                Lit::Float(_) => Expr::Opaque("a floating-point number".to_owned()),
                _ => Expr::Opaque("a literal that is not an integer".to_owned()),
            },
            syn::Expr::Path(p) if p.qself.is_none() => {
                let at = self.at_first(expr);
                Expr::Path(path(&p.path, d), at)
            }
            syn::Expr::Path(_) => Expr::Opaque("a qualified path `<T as Trait>::..`".to_owned()),
            syn::Expr::Paren(p) => self.expr(&p.expr, d),
            syn::Expr::Group(g) => self.expr(&g.expr, d),
            syn::Expr::Unary(u) => match u.op {
                UnOp::Neg(_) => Expr::Neg(self.boxed(&u.expr, d)),
                UnOp::Not(_) => Expr::Not(self.boxed(&u.expr, d)),
                // `*x` of an integer reference is the integer.
                _ => self.expr(&u.expr, d),
            },
            syn::Expr::Binary(b) => self.binary(b, d),
            syn::Expr::Cast(c) => match type_name(&c.ty).as_deref().and_then(IntTy::from_name) {
                Some(ty) => Expr::Cast(self.boxed(&c.expr, d), ty),
                None => Expr::Opaque(format!(
                    "a cast to `{}`",
                    c.ty.to_token_stream().to_string().replace(' ', "")
                )),
            },
            syn::Expr::MethodCall(m) => self.method_call(m, d),
            syn::Expr::Call(c) => self.call(c, expr, d),
            syn::Expr::Tuple(t) => Expr::Tuple(self.exprs(&t.elems, d)),
            syn::Expr::Field(f) => {
                let field = match &f.member {
                    Member::Unnamed(index) => Field::Index(index.index),
                    Member::Named(name) => Field::Named(name.to_string()),
                };
                Expr::Field(self.boxed(&f.base, d), field)
            }
            syn::Expr::If(i) => self.if_expr(i, d),
            syn::Expr::Match(m) => self.match_expr(m, d),
            syn::Expr::Block(b) => {
                labeled(&b.label, Expr::Block(Box::new(self.block(&b.block, d))))
            }
            syn::Expr::Const(c) => Expr::Block(Box::new(self.block(&c.block, d))),
            syn::Expr::Unsafe(u) => Expr::Block(Box::new(self.block(&u.block, d))),
            syn::Expr::Async(_) => Expr::Opaque("an `async` block".to_owned()),
            syn::Expr::Struct(s) if s.qself.is_none() => self.struct_lit(s, expr, d),
            syn::Expr::While(w) => labeled(&w.label, self.while_loop(w, d)),
            syn::Expr::Loop(l) => {
                let at = self.at_span(l.loop_token.span);
                let body = self.block(&l.body, d);
                labeled(
                    &l.label,
                    Expr::Loop(Box::new(Loop {
                        kind: LoopKind::Loop,
                        body,
                        at,
                    })),
                )
            }
            syn::Expr::ForLoop(f) => {
                let at = self.at_span(f.for_token.span);
                let pat = irrefutable(self.pat(&f.pat, d));
                let kind = match self.seq(&f.expr, d) {
                    Some(seq) => LoopKind::Over(pat, seq),
                    None => LoopKind::For(pat, self.expr(&f.expr, d)),
                };
                let body = self.block(&f.body, d);
                labeled(&f.label, Expr::Loop(Box::new(Loop { kind, body, at })))
            }
            syn::Expr::Assign(a) => {
                Expr::Assign(self.boxed(&a.left, d), None, self.boxed(&a.right, d))
            }
            syn::Expr::Return(r) => Expr::Return(r.expr.as_ref().map(|e| self.boxed(e, d))),
            syn::Expr::Break(b) => Expr::Break(
                b.label.as_ref().map(label_name),
                b.expr.as_ref().map(|e| self.boxed(e, d)),
            ),
            syn::Expr::Continue(c) => Expr::Continue(c.label.as_ref().map(label_name)),
            syn::Expr::Try(t) => Expr::Try(self.boxed(&t.expr, d)),
            syn::Expr::Reference(r) => Expr::Ref(self.boxed(&r.expr, d), r.mutability.is_some()),
            syn::Expr::Closure(c) => Expr::Closure(
                c.inputs
                    .iter()
                    .map(|p| irrefutable(self.pat(p, d)))
                    .collect(),
                self.boxed(&c.body, d),
            ),
            syn::Expr::Macro(m) => self.mac(&m.mac, d),
            syn::Expr::Let(_) => Expr::Opaque("a `let` condition".to_owned()),
            syn::Expr::Index(_) => Expr::Opaque("an index expression".to_owned()),
            syn::Expr::Await(a) => self.expr(&a.base, d),
            _ => Expr::Opaque("an expression that is not integer arithmetic".to_owned()),
        }
    }

    /// A method call: an integer method the interpreter knows, else a call by name (a
    /// launch, a kernel load, a method of the crate).
    fn method_call(&mut self, m: &syn::ExprMethodCall, d: usize) -> Expr {
        let name = m.method.to_string();
        match Method::from_name(&name) {
            Some(method) if m.turbofish.is_none() && m.args.len() == method.arity() => {
                Expr::Method(self.boxed(&m.receiver, d), method, self.exprs(&m.args, d))
            }
            _ => {
                // The method's name: where a launch or a kernel load is pointed at.
                let at = self.at_span(m.method.span());
                Expr::MethodCall(self.boxed(&m.receiver, d), name, self.exprs(&m.args, d), at)
            }
        }
    }

    /// A call: an integer method called as a function (`u32::min(a, b)`), else a call of
    /// a function by its path.
    fn call(&mut self, c: &syn::ExprCall, expr: &syn::Expr, d: usize) -> Expr {
        match &*c.func {
            syn::Expr::Path(p) if p.qself.is_none() => {
                let callee = path(&p.path, d);
                let args = self.exprs(&c.args, d);
                // `u32::min(a, b)`, `usize::max(..)`, `std::cmp::min(a, b)`: the integer
                // methods called as functions.
                let idents = callee.idents();
                // (A bare `min(a, b)` may be the crate's own function: it is a call,
                // which the interpreter takes as `std::cmp::min` only when no function of
                // the crate has that name.)
                let method = match idents.as_slice() {
                    [.., ty, m] if IntTy::from_name(ty).is_some() => Method::from_name(m),
                    ["std" | "core", "cmp", m] => {
                        Method::from_name(m).filter(|m| matches!(m, Method::Min | Method::Max))
                    }
                    _ => None,
                };
                match method {
                    Some(m) if args.len() == m.arity() + 1 => {
                        let mut args = args;
                        let receiver = args.remove(0);
                        let receiver = match idents.as_slice() {
                            [.., ty, _] => match IntTy::from_name(ty) {
                                Some(ty) => Expr::Cast(Box::new(receiver), ty),
                                None => receiver,
                            },
                            _ => receiver,
                        };
                        Expr::Method(Box::new(receiver), m, args)
                    }
                    _ => {
                        // The whole call where spans join (outside a proc macro: `report`'s
                        // locations), else its first token; without printing it to tokens.
                        let at = self.at_span({
                            let first = first_span(expr, 0);
                            first.join(c.paren_token.span.join()).unwrap_or(first)
                        });
                        Expr::Call(callee, args, at)
                    }
                }
            }
            _ => Expr::Opaque("a call of a computed function".to_owned()),
        }
    }

    /// A `match`: its scrutinee and its arms, each with its pattern and guard.
    fn match_expr(&mut self, m: &syn::ExprMatch, d: usize) -> Expr {
        let at = self.at_span(m.match_token.span);
        let scrutinee = self.expr(&m.expr, d);
        let arms = m
            .arms
            .iter()
            .map(|arm| {
                let (pat, guard) = match &arm.pat {
                    syn::Pat::Guard(g) => (self.pat(&g.pat, d), Some(self.expr(&g.guard, d))),
                    pat => (self.pat(pat, d), None),
                };
                Arm {
                    pat,
                    guard,
                    body: self.expr(&arm.body, d),
                    at: self.at_first(&arm.body),
                }
            })
            .collect();
        Expr::Match(Box::new(Match {
            scrutinee,
            arms,
            at,
        }))
    }

    /// A struct literal (`LaunchConfig { .. }` keeps each field's location).
    fn struct_lit(&mut self, s: &syn::ExprStruct, expr: &syn::Expr, d: usize) -> Expr {
        let at = self.at_span({
            let first = first_span(expr, 0);
            first.join(s.brace_token.span.join()).unwrap_or(first)
        });
        // The whole expression of each field of a launch configuration, for the
        // findings about it (other structs' fields need no span).
        let config = s
            .path
            .segments
            .last()
            .is_some_and(|l| l.ident == "LaunchConfig");
        let name = s
            .path
            .segments
            .last()
            .map_or_else(String::new, |s| s.ident.to_string());
        let mut fields = Vec::new();
        for field in &s.fields {
            let Member::Named(field_name) = &field.member else {
                return Expr::Opaque(format!("a `{name} {{ .. }}` with numbered fields"));
            };
            let field_at = if config {
                self.at_of(&field.expr)
            } else {
                At::NONE
            };
            fields.push((field_name.to_string(), self.expr(&field.expr, d), field_at));
        }
        let rest = s.rest.as_ref().map(|r| self.expr(r, d));
        Expr::Struct(Box::new(StructLit {
            name,
            fields,
            rest,
            at,
        }))
    }

    /// The sequence a `for` loop steps through, when it is written out: an array literal
    /// (`[128, 256]`, `&[..]`, with `.iter()`, `.into_iter()`, `.copied()` or `.cloned()`)
    /// or a range with both ends (`0..n`, `1..=4`), reversed (`.rev()`) or stepped
    /// (`.step_by(32)`).
    fn seq(&mut self, e: &syn::Expr, d: usize) -> Option<Seq> {
        if d > MAX_DEPTH {
            return None;
        }
        match e {
            syn::Expr::Paren(p) => self.seq(&p.expr, d + 1),
            syn::Expr::Group(g) => self.seq(&g.expr, d + 1),
            syn::Expr::Reference(r) => self.seq(&r.expr, d + 1),
            syn::Expr::MethodCall(m) => {
                let method = m.method.to_string();
                match (method.as_str(), m.args.first()) {
                    ("iter" | "into_iter" | "copied" | "cloned", None) => {
                        self.seq(&m.receiver, d + 1)
                    }
                    ("rev", None) => Some(Seq::Rev(Box::new(self.seq(&m.receiver, d + 1)?))),
                    ("step_by", Some(step)) if m.args.len() == 1 => {
                        let seq = self.seq(&m.receiver, d + 1)?;
                        Some(Seq::StepBy(Box::new(seq), self.boxed(step, d)))
                    }
                    _ => None,
                }
            }
            syn::Expr::Array(a) => Some(Seq::List(
                a.elems.iter().map(|e| self.expr(e, d + 1)).collect(),
            )),
            syn::Expr::Range(r) => {
                let (Some(start), Some(end)) = (&r.start, &r.end) else {
                    return None;
                };
                Some(Seq::Range {
                    start: self.boxed(start, d + 1),
                    end: self.boxed(end, d + 1),
                    inclusive: matches!(r.limits, syn::RangeLimits::Closed(_)),
                })
            }
            _ => None,
        }
    }

    /// A `while` loop; `while let` is a loop whose pattern's names are unknown.
    fn while_loop(&mut self, w: &syn::ExprWhile, d: usize) -> Expr {
        let at = self.at_span(w.while_token.span);
        match &*w.cond {
            // `while let pat = e { body }`: a loop that goes round or ends as the pattern
            // matches, which the reader does not tell (both ways), and whose pattern's names
            // are unknown. (It was a `loop`, left only by a `break`: a launch after a `while
            // let` that never breaks was unreachable, "no launch found".)
            syn::Expr::Let(l) => {
                let mut names = Vec::new();
                pattern_names(&l.pat, &mut names, 0);
                let mut body = self.block(&w.body, d);
                let names = Let {
                    pat: Pat::Opaque(names),
                    init: None,
                    otherwise: None,
                    ty: None,
                    at: At::NONE,
                };
                body.stmts.insert(0, Stmt::Let(Box::new(names)));
                let matches = Expr::Opaque("whether a `while let` pattern matches".to_owned());
                Expr::Loop(Box::new(Loop {
                    kind: LoopKind::While(matches),
                    body,
                    at,
                }))
            }
            cond => {
                let kind = LoopKind::While(self.expr(cond, d));
                let body = self.block(&w.body, d);
                Expr::Loop(Box::new(Loop { kind, body, at }))
            }
        }
    }

    fn binary(&mut self, b: &syn::ExprBinary, d: usize) -> Expr {
        if let Some(op) = comparison(&b.op) {
            return Expr::Compare(op, self.boxed(&b.left, d), self.boxed(&b.right, d));
        }
        match &b.op {
            BinOp::And(_) => return Expr::And(self.boxed(&b.left, d), self.boxed(&b.right, d)),
            BinOp::Or(_) => return Expr::Or(self.boxed(&b.left, d), self.boxed(&b.right, d)),
            _ => {}
        }
        let Some(op) = op_from_syn(&b.op) else {
            return Expr::Opaque(format!(
                "a `{}` expression",
                b.op.to_token_stream().to_string().replace(' ', "")
            ));
        };
        let compound = !matches!(
            b.op,
            BinOp::Add(_)
                | BinOp::Sub(_)
                | BinOp::Mul(_)
                | BinOp::Div(_)
                | BinOp::Rem(_)
                | BinOp::Shl(_)
                | BinOp::Shr(_)
                | BinOp::BitAnd(_)
                | BinOp::BitOr(_)
                | BinOp::BitXor(_)
        );
        if compound {
            Expr::Assign(self.boxed(&b.left, d), Some(op), self.boxed(&b.right, d))
        } else {
            Expr::Binary(op, self.boxed(&b.left, d), self.boxed(&b.right, d))
        }
    }

    fn if_expr(&mut self, i: &syn::ExprIf, d: usize) -> Expr {
        let at = self.at_span(i.if_token.span);
        let otherwise = i.else_branch.as_ref().map(|(_, e)| self.expr(e, d));
        let then = self.block(&i.then_branch, d);
        // `if let pat = e { then } else { otherwise }` is a `match`.
        if let syn::Expr::Let(l) = &*i.cond {
            let scrutinee = self.expr(&l.expr, d);
            let pat = self.pat(&l.pat, d);
            let arms = vec![
                Arm {
                    pat,
                    guard: None,
                    body: Expr::Block(Box::new(then)),
                    at,
                },
                Arm {
                    pat: Pat::Wild,
                    guard: None,
                    body: otherwise.unwrap_or(Expr::Block(Box::default())),
                    at,
                },
            ];
            return Expr::Match(Box::new(Match {
                scrutinee,
                arms,
                at,
            }));
        }
        Expr::If(Box::new(If {
            condition: self.expr(&i.cond, d),
            then,
            otherwise,
            at,
        }))
    }

    fn block(&mut self, block: &syn::Block, depth: usize) -> Block {
        let d = depth + 1;
        let mut out = Block::default();
        if depth > MAX_DEPTH {
            out.tail = Some(Expr::Opaque("a block nested too deeply".to_owned()));
            return out;
        }
        for (i, stmt) in block.stmts.iter().enumerate() {
            let last = i + 1 == block.stmts.len();
            match stmt {
                syn::Stmt::Local(local) => {
                    let at = self.at_span(local.let_token.span);
                    let pat = self.pat(&local.pat, d);
                    // Without `else`, a `let` must match: its names bind, whatever their case.
                    let pat = match local.init.as_ref().and_then(|i| i.diverge.as_ref()) {
                        Some(_) => pat,
                        None => irrefutable(pat),
                    };
                    let init = local.init.as_ref().map(|init| self.expr(&init.expr, d));
                    let otherwise = local
                        .init
                        .as_ref()
                        .and_then(|init| init.diverge.as_ref())
                        .map(|(_, e)| Block {
                            tail: Some(self.expr(e, d)),
                            ..Block::default()
                        });
                    let ty = match &local.pat {
                        syn::Pat::Type(t) => type_name(&t.ty).as_deref().and_then(IntTy::from_name),
                        _ => None,
                    };
                    out.stmts.push(Stmt::Let(Box::new(Let {
                        pat,
                        init,
                        otherwise,
                        ty,
                        at,
                    })));
                }
                syn::Stmt::Expr(expr, None) if last => out.tail = Some(self.expr(expr, d)),
                syn::Stmt::Expr(expr, _) => out.stmts.push(Stmt::Expr(self.expr(expr, d))),
                syn::Stmt::Item(item) => out.stmts.push(Stmt::Item(item_name(item))),
                syn::Stmt::Macro(m) => {
                    let e = self.mac(&m.mac, d);
                    if last && m.semi_token.is_none() {
                        out.tail = Some(e);
                    } else {
                        out.stmts.push(Stmt::Expr(e));
                    }
                }
            }
        }
        out
    }

    fn mac(&mut self, mac: &syn::Macro, d: usize) -> Expr {
        let name = mac
            .path
            .segments
            .last()
            .map_or_else(String::new, |s| s.ident.to_string());
        type Args = syn::punctuated::Punctuated<syn::Expr, syn::Token![,]>;
        match name.as_str() {
            "format" => {
                let args = mac.parse_body_with(Args::parse_terminated).ok();
                let mut args = args.into_iter().flatten();
                match args.next() {
                    Some(syn::Expr::Lit(syn::ExprLit {
                        lit: Lit::Str(s), ..
                    })) => {
                        let at = self.at_of(mac);
                        let format = self.format_args(s.value(), args, d);
                        Expr::Format(glob_of_format(&format.text), at, Box::new(format))
                    }
                    _ => Expr::Opaque("a `format!` without a literal format string".to_owned()),
                }
            }
            "matches" => {
                let parsed = mac.parse_body_with(|input: syn::parse::ParseStream<'_>| {
                    let e: syn::Expr = input.parse()?;
                    let _: syn::Token![,] = input.parse()?;
                    let pat = syn::Pat::parse_multi_with_leading_vert(input)?;
                    let guard = if input.peek(syn::Token![if]) {
                        let _: syn::Token![if] = input.parse()?;
                        Some(input.parse::<syn::Expr>()?)
                    } else {
                        None
                    };
                    let _: Option<syn::Token![,]> = input.parse()?;
                    Ok((e, pat, guard))
                });
                match parsed {
                    Ok((e, pat, guard)) => {
                        let at = self.at_of(mac);
                        Expr::Match(Box::new(Match {
                            scrutinee: self.expr(&e, d),
                            arms: vec![
                                Arm {
                                    pat: self.pat(&pat, d),
                                    guard: guard.map(|g| self.expr(&g, d)),
                                    body: Expr::Bool(true),
                                    at,
                                },
                                Arm {
                                    pat: Pat::Wild,
                                    guard: None,
                                    body: Expr::Bool(false),
                                    at,
                                },
                            ],
                            at,
                        }))
                    }
                    Err(_) => Expr::Opaque("a `matches!` the reader cannot parse".to_owned()),
                }
            }
            // `ensure!(cond, ..)` (anyhow's, candle's) returns an error where `cond` fails.
            "assert" | "ensure" => match mac.parse_body_with(Args::parse_terminated) {
                Ok(args) => match args.first() {
                    Some(cond) => Expr::Assert(self.boxed(cond, d)),
                    None => Expr::Opaque(format!("an `{name}!` without a condition")),
                },
                Err(_) => Expr::Opaque(format!("an `{name}!` the reader cannot parse")),
            },
            "assert_eq" | "assert_ne" => match mac.parse_body_with(Args::parse_terminated) {
                Ok(args) if args.len() >= 2 => {
                    let op = if name == "assert_eq" {
                        Comparison::Eq
                    } else {
                        Comparison::Ne
                    };
                    Expr::Assert(Box::new(Expr::Compare(
                        op,
                        self.boxed(&args[0], d),
                        self.boxed(&args[1], d),
                    )))
                }
                _ => Expr::Opaque(format!("an `{name}!` the reader cannot parse")),
            },
            "panic" | "unreachable" | "todo" | "unimplemented" | "bail" => Expr::Diverge,
            crate::apis::LAUNCH_MACRO => self.cust_launch(&mac.tokens, d),
            _ if MACROS_THAT_READ.contains(&name.as_str()) => {
                Expr::Opaque(format!("a call of the macro `{name}!`"))
            }
            // Any other macro may assign the names it is given (`set!(m)` of a local
            // `macro_rules!` writing `$v = $v / 2`).
            _ => {
                let mut names = Vec::new();
                macro_idents(mac.tokens.clone(), &mut names, 0);
                Expr::Havoc(names, format!("a call of the macro `{name}!`"))
            }
        }
    }

    /// cust's `launch!(module.kernel<<<grid, block, smem, stream>>>(args))`: grid and block
    /// are a number or a tuple of two or three.
    fn cust_launch(&mut self, tokens: &TokenStream, d: usize) -> Expr {
        use proc_macro2::TokenTree;
        let trees: Vec<TokenTree> = tokens.clone().into_iter().collect();
        let is = |i: usize, c: char| matches!(trees.get(i), Some(TokenTree::Punct(p)) if p.as_char() == c);
        let Some(open) = (0..trees.len()).find(|&i| is(i, '<') && is(i + 1, '<') && is(i + 2, '<'))
        else {
            return Expr::Opaque("a `launch!` without `<<<`".to_owned());
        };
        let Some(close) =
            (open + 3..trees.len()).find(|&i| is(i, '>') && is(i + 1, '>') && is(i + 2, '>'))
        else {
            return Expr::Opaque("a `launch!` without `>>>`".to_owned());
        };
        let kernel = match open.checked_sub(1).and_then(|i| trees.get(i)) {
            Some(TokenTree::Ident(kernel)) => Some((kernel.to_string(), self.at(kernel.span()))),
            _ => None,
        };
        let inside: TokenStream = trees[open + 3..close].iter().cloned().collect();
        let Ok(parts) = syn::parse::Parser::parse2(
            syn::punctuated::Punctuated::<syn::Expr, syn::Token![,]>::parse_terminated,
            inside,
        ) else {
            return Expr::Opaque("a `launch!` whose configuration does not parse".to_owned());
        };
        let parts: Vec<syn::Expr> = parts.into_iter().collect();
        if parts.len() < 3 {
            return Expr::Opaque("a `launch!` without grid, block and shared memory".to_owned());
        }
        let dims = |this: &mut Self, e: &syn::Expr| -> Expr {
            let one = Expr::Int(1, None);
            match this.expr(e, d) {
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
        let at = trees.get(open).map_or(At::NONE, |t| self.at(t.span()));
        let grid_at = self.at_of(&parts[0]);
        let block_at = self.at_of(&parts[1]);
        let smem_at = self.at_of(&parts[2]);
        Expr::CustLaunch(Box::new(CustLaunch {
            kernel,
            grid: dims(self, &parts[0]),
            block: dims(self, &parts[1]),
            smem: self.expr(&parts[2], d),
            at,
            grid_at,
            block_at,
            smem_at,
            template_args: Vec::new(),
        }))
    }

    fn pat(&mut self, pat: &syn::Pat, depth: usize) -> Pat {
        let d = depth + 1;
        let opaque = |pat: &syn::Pat| {
            let mut names = Vec::new();
            pattern_names(pat, &mut names, 0);
            Pat::Opaque(names)
        };
        if depth > MAX_DEPTH {
            return opaque(pat);
        }
        match pat {
            // `None`, `F32`, `MAX`: rustc resolves an identifier pattern that names a unit
            // variant or a constant in scope as a path, and only else as a new binding. Those
            // are capitalised by Rust's naming rules (bindings are snake_case); as a binding,
            // `None => bail!(..)` would be read as matching every value and end every path.
            syn::Pat::Ident(p)
                if p.by_ref.is_none()
                    && p.mutability.is_none()
                    && p.subpat.is_none()
                    && p.ident
                        .to_string()
                        .starts_with(|c: char| c.is_ascii_uppercase()) =>
            {
                Pat::Path(path(&syn::Path::from(p.ident.clone()), d))
            }
            syn::Pat::Ident(p) if p.by_ref.is_none() => Pat::Bind(
                p.ident.to_string(),
                p.subpat.as_ref().map(|(_, sub)| Box::new(self.pat(sub, d))),
            ),
            syn::Pat::Wild(_) => Pat::Wild,
            syn::Pat::Rest(_) => Pat::Rest,
            syn::Pat::Type(t) => self.pat(&t.pat, d),
            syn::Pat::Paren(p) => self.pat(&p.pat, d),
            syn::Pat::Reference(r) => self.pat(&r.pat, d),
            syn::Pat::Lit(l) => Pat::Lit(self.expr(&syn::Expr::Lit(l.clone()), d)),
            syn::Pat::Range(r) => Pat::Range(
                r.start.as_ref().map(|e| self.expr(e, d)),
                r.end.as_ref().map(|e| self.expr(e, d)),
                matches!(r.limits, syn::RangeLimits::Closed(_)),
            ),
            syn::Pat::Path(p) if p.qself.is_none() => Pat::Path(path(&p.path, d)),
            syn::Pat::Tuple(t) => Pat::Tuple(t.elems.iter().map(|p| self.pat(p, d)).collect()),
            syn::Pat::TupleStruct(t) if t.qself.is_none() => Pat::TupleStruct(
                path(&t.path, d),
                t.elems.iter().map(|p| self.pat(p, d)).collect(),
            ),
            syn::Pat::Struct(s) if s.qself.is_none() => {
                let mut fields = Vec::new();
                for f in &s.fields {
                    match &f.member {
                        Member::Named(name) => fields.push((name.to_string(), self.pat(&f.pat, d))),
                        Member::Unnamed(_) => return opaque(pat),
                    }
                }
                Pat::Struct(path(&s.path, d), fields)
            }
            syn::Pat::Or(o) => Pat::Or(o.cases.iter().map(|p| self.pat(p, d)).collect()),
            syn::Pat::Macro(_) | syn::Pat::Slice(_) | syn::Pat::Guard(_) => opaque(pat),
            // `-1`, `const { .. }`: an expression.
            other => match syn::parse2::<syn::Expr>(other.to_token_stream()) {
                Ok(e) => Pat::Lit(self.expr(&e, d)),
                Err(_) => opaque(pat),
            },
        }
    }
}

/// The span of an expression's first token.
fn first_span(e: &syn::Expr, depth: usize) -> Span {
    if depth > MAX_DEPTH {
        return syn::spanned::Spanned::span(e);
    }
    let d = depth + 1;
    match e {
        syn::Expr::Path(p) => match (&p.qself, p.path.leading_colon, p.path.segments.first()) {
            (None, None, Some(first)) => first.ident.span(),
            _ => syn::spanned::Spanned::span(e),
        },
        syn::Expr::Lit(l) => l.lit.span(),
        syn::Expr::Call(c) => first_span(&c.func, d),
        syn::Expr::MethodCall(m) => first_span(&m.receiver, d),
        syn::Expr::Field(f) => first_span(&f.base, d),
        syn::Expr::Binary(b) => first_span(&b.left, d),
        syn::Expr::Cast(c) => first_span(&c.expr, d),
        syn::Expr::Index(i) => first_span(&i.expr, d),
        syn::Expr::Try(t) => first_span(&t.expr, d),
        syn::Expr::Await(a) => first_span(&a.base, d),
        syn::Expr::Tuple(t) => t.paren_token.span.join(),
        syn::Expr::Paren(p) => p.paren_token.span.join(),
        syn::Expr::Array(a) => a.bracket_token.span.join(),
        syn::Expr::Block(b) if b.label.is_none() => b.block.brace_token.span.join(),
        syn::Expr::Struct(s) => match (&s.qself, s.path.leading_colon, s.path.segments.first()) {
            (None, None, Some(first)) => first.ident.span(),
            _ => syn::spanned::Spanned::span(e),
        },
        syn::Expr::If(i) => i.if_token.span,
        syn::Expr::Match(m) => m.match_token.span,
        syn::Expr::Reference(r) => r.and_token.span,
        syn::Expr::Unary(u) => syn::spanned::Spanned::span(&u.op),
        other => syn::spanned::Spanned::span(other),
    }
}

fn int_literal(int: &syn::LitInt) -> Expr {
    let suffix = int.suffix();
    let ty = if suffix.is_empty() {
        None
    } else {
        match IntTy::from_name(suffix) {
            Some(ty) => Some(ty),
            None => return Expr::Opaque(format!("a literal with the suffix `{suffix}`")),
        }
    };
    match int.base10_digits().parse::<i128>() {
        Ok(value) => Expr::Int(value, ty),
        Err(_) => Expr::Opaque("an integer literal over i128::MAX".to_owned()),
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

/// The names a pattern binds.
pub(crate) fn pattern_names(pat: &syn::Pat, out: &mut Vec<String>, depth: usize) {
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

/// The last identifier of a type path with no generic arguments (`u32`, `core::ffi::c_int`
/// gives `c_int`), for casts and declared types.
pub(crate) fn type_name(ty: &syn::Type) -> Option<String> {
    match ty {
        syn::Type::Path(p) if p.qself.is_none() => {
            let last = p.path.segments.last()?;
            last.arguments.is_none().then(|| last.ident.to_string())
        }
        syn::Type::Group(g) => type_name(&g.elem),
        syn::Type::Paren(p) => type_name(&p.elem),
        _ => None,
    }
}

/// Standard macros that only read what they are given (`println!`, `write!` into its first
/// argument, `vec!`): a call of any other may assign its names.
const MACROS_THAT_READ: &[&str] = &[
    "println",
    "print",
    "eprintln",
    "eprint",
    "write",
    "writeln",
    "format_args",
    "debug_assert",
    "debug_assert_eq",
    "debug_assert_ne",
    "dbg",
    "vec",
    "concat",
    "stringify",
    "include_str",
    "include_bytes",
    "env",
    "option_env",
    "cfg",
    "line",
    "column",
    "file",
    "module_path",
    "trace",
    "debug",
    "info",
    "warn",
    "error",
    "log",
];

/// The most names a macro's tokens are taken to assign.
const MAX_MACRO_NAMES: usize = 64;

/// The identifiers of a macro's tokens, nested groups included, each once (at most
/// [`MAX_MACRO_NAMES`]).
fn macro_idents(tokens: TokenStream, out: &mut Vec<String>, depth: usize) {
    if depth > MAX_DEPTH {
        return;
    }
    for tree in tokens {
        match tree {
            proc_macro2::TokenTree::Ident(i) => {
                let name = i.to_string();
                if out.len() < MAX_MACRO_NAMES && !out.contains(&name) {
                    out.push(name);
                }
            }
            proc_macro2::TokenTree::Group(g) => macro_idents(g.stream(), out, depth + 1),
            _ => {}
        }
    }
}

pub(crate) fn path(p: &syn::Path, depth: usize) -> Path {
    Path {
        leading_colon: p.leading_colon.is_some(),
        segments: p
            .segments
            .iter()
            .map(|s| Segment {
                ident: s.ident.to_string(),
                args: match &s.arguments {
                    syn::PathArguments::AngleBracketed(a) => {
                        a.args.iter().map(|arg| generic_arg(arg, depth)).collect()
                    }
                    _ => Vec::new(),
                },
            })
            .collect(),
    }
}

fn generic_arg(arg: &syn::GenericArgument, depth: usize) -> GenericArg {
    let text = arg.to_token_stream().to_string();
    let value = match arg {
        syn::GenericArgument::Const(e) => Some(Lowering { spans: None }.expr(e, depth + 1)),
        syn::GenericArgument::Type(syn::Type::Path(p)) if p.qself.is_none() => p
            .path
            .get_ident()
            .map(|_| Expr::Path(path(&p.path, depth + 1), At::NONE)),
        _ => None,
    };
    GenericArg { text, value }
}

/// `expr` as Rust tokens at `span` (for the compiler's confirmation of a value): paths as
/// they are, literals with their suffix. `None` for what cannot be written back as a
/// constant expression (run-time parts, blocks, configurations, opaque parts).
pub(crate) fn tokens(expr: &Expr, span: Span) -> Option<TokenStream> {
    Some(match expr {
        Expr::Int(value, ty) => literal(*value, *ty, span),
        Expr::Path(p, _) => path_tokens(p, span)?,
        Expr::Neg(e) => {
            let e = tokens(e, span)?;
            quote_spanned!(span=> (-(#e)))
        }
        Expr::Not(e) => {
            let e = tokens(e, span)?;
            quote_spanned!(span=> (!(#e)))
        }
        Expr::Binary(op, l, r) => {
            let (l, r) = (tokens(l, span)?, tokens(r, span)?);
            let op: TokenStream = op.symbol().parse().ok()?;
            quote_spanned!(span=> ((#l) #op (#r)))
        }
        Expr::Cast(e, ty) => {
            let e = tokens(e, span)?;
            let ty = proc_macro2::Ident::new(ty.name(), span);
            quote_spanned!(span=> ((#e) as #ty))
        }
        Expr::Method(receiver, method, args) => {
            let receiver = tokens(receiver, span)?;
            let args = args
                .iter()
                .map(|a| tokens(a, span))
                .collect::<Option<Vec<_>>>()?;
            // `min`, `max`, `clamp` are `Ord` methods, not callable in a constant on stable
            // Rust: written as the comparisons they are.
            match (method, args.as_slice()) {
                (Method::Min, [b]) => quote_spanned!(span=> {
                    let (a, b) = (#receiver, #b);
                    if a < b { a } else { b }
                }),
                (Method::Max, [b]) => quote_spanned!(span=> {
                    let (a, b) = (#receiver, #b);
                    if a > b { a } else { b }
                }),
                (Method::Clamp, [lo, hi]) => quote_spanned!(span=> {
                    let (x, lo, hi) = (#receiver, #lo, #hi);
                    if x < lo { lo } else if x > hi { hi } else { x }
                }),
                _ => {
                    let name = proc_macro2::Ident::new(method.name(), span);
                    quote_spanned!(span=> (#receiver).#name(#(#args),*))
                }
            }
        }
        Expr::Call(p, args, _) => {
            let p = path_tokens(p, span)?;
            let args = args
                .iter()
                .map(|a| tokens(a, span))
                .collect::<Option<Vec<_>>>()?;
            quote_spanned!(span=> #p(#(#args),*))
        }
        Expr::Field(base, Field::Index(index)) => {
            let base = tokens(base, span)?;
            let index = proc_macro2::Literal::u32_unsuffixed(*index);
            quote_spanned!(span=> (#base).#index)
        }
        Expr::Tuple(elems) => {
            let elems = elems
                .iter()
                .map(|a| tokens(a, span))
                .collect::<Option<Vec<_>>>()?;
            quote_spanned!(span=> (#(#elems,)*))
        }
        _ => return None,
    })
}

/// An integer literal at `span`, suffixed when the type is known.
pub(crate) fn literal(value: i128, ty: Option<IntTy>, span: Span) -> TokenStream {
    let mut lit = match ty {
        Some(ty) => format!("{value}{}", ty.name())
            .parse::<proc_macro2::Literal>()
            .ok(),
        None => None,
    }
    .unwrap_or_else(|| proc_macro2::Literal::i128_unsuffixed(value));
    lit.set_span(span);
    let lit = proc_macro2::TokenTree::Literal(lit);
    if value < 0 {
        // `-5` is two tokens; keep it one expression.
        quote_spanned!(span=> (#lit))
    } else {
        quote_spanned!(span=> #lit)
    }
}

pub(crate) fn path_tokens(p: &Path, span: Span) -> Option<TokenStream> {
    let mut out = TokenStream::new();
    if p.leading_colon {
        out.extend(quote_spanned!(span=> ::));
    }
    for (i, segment) in p.segments.iter().enumerate() {
        if i > 0 {
            out.extend(quote_spanned!(span=> ::));
        }
        let ident = ident(&segment.ident, span)?;
        out.extend(quote_spanned!(span=> #ident));
        if !segment.args.is_empty() {
            let args = segment
                .args
                .iter()
                .map(|a| a.text.parse::<TokenStream>().ok())
                .collect::<Option<Vec<_>>>()?;
            out.extend(quote_spanned!(span=> ::<#(#args),*>));
        }
    }
    Some(out)
}

/// An identifier at `span` (raw identifiers included), `None` for text that is not one.
fn ident(name: &str, span: Span) -> Option<proc_macro2::Ident> {
    let valid = !name.is_empty()
        && name
            .trim_start_matches("r#")
            .chars()
            .all(|c| c == '_' || c.is_alphanumeric());
    if !valid {
        return None;
    }
    Some(match name.strip_prefix("r#") {
        Some(raw) => proc_macro2::Ident::new_raw(raw, span),
        None => proc_macro2::Ident::new(name, span),
    })
}

/// A label's name as the IR holds it (`'outer` -> `outer`).
fn label_name(l: &syn::Lifetime) -> String {
    l.ident.to_string()
}

/// `e` under its label, if it has one (`'a: { .. }`, `'outer: loop { .. }`).
fn labeled(label: &Option<syn::Label>, e: Expr) -> Expr {
    match label {
        Some(l) => Expr::Labeled(label_name(&l.name), Box::new(e)),
        None => e,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lowered(text: &str) -> Expr {
        lower(&syn::parse_str(text).unwrap())
    }

    #[test]
    fn lowers_the_forms_of_launch_code() {
        assert_eq!(lowered("256"), Expr::Int(256, None));
        assert_eq!(lowered("256u32"), Expr::Int(256, Some(IntTy::U32)));
        assert!(matches!(
            lowered("WARP_SIZE as u32"),
            Expr::Cast(_, IntTy::U32)
        ));
        assert!(matches!(
            lowered("n.div_ceil(TILE)"),
            Expr::Method(_, Method::DivCeil, _)
        ));
        assert!(matches!(
            lowered("usize::min(1024, n)"),
            Expr::Method(_, Method::Min, _)
        ));
        assert!(
            matches!(lowered("if n < 1024 { 32 } else { 1024 }"), Expr::If(i) if matches!(i.condition, Expr::Compare(Comparison::Lt, ..)))
        );
        assert!(
            matches!(lowered("match d { F32 => 256, _ => 128 }"), Expr::Match(m) if m.arms.len() == 2 && m.arms[1].pat == Pat::Wild)
        );
        assert!(
            matches!(lowered("size_of::<f32>()"), Expr::Call(p, a, _) if p.segments[0].args[0].text == "f32" && a.is_empty())
        );
        let Expr::Struct(config) = lowered(
            "LaunchConfig { grid_dim: (n, 1, 1), block_dim: (TILE, 4, 1), shared_mem_bytes: 0 }",
        ) else {
            panic!("not a struct")
        };
        assert_eq!(config.name, "LaunchConfig");
        assert_eq!(config.fields[2].1, Expr::Int(0, None));
        assert!(matches!(lowered("f(x)?"), Expr::Try(_)));
        assert_eq!(
            lowered("x as f32"),
            Expr::Opaque("a cast to `f32`".to_owned())
        );
        assert!(matches!(
            lowered("b *= 2"),
            Expr::Assign(_, Some(Op::Mul), _)
        ));
        assert!(
            matches!(lowered("format!(\"affine_{}\", T::NAME)"), Expr::Format(g, ..) if g == "affine_*")
        );
    }

    #[test]
    fn the_same_condition_written_twice_is_equal() {
        let a = lower_body(&syn::parse_str("{ if n < LIMIT { 1 } else { 2 } }").unwrap());
        let b = lower_body(&syn::parse_str("{ if n < LIMIT { 3 } else { 4 } }").unwrap());
        let cond = |l: &Lowered| match &l.block.tail {
            Some(Expr::If(i)) => i.condition.clone(),
            _ => panic!("not an if"),
        };
        assert_eq!(cond(&a), cond(&b));
        assert!(!a.spans.is_empty());
    }

    #[test]
    fn casts_wrap_as_rust_does() {
        assert_eq!(IntTy::U8.wrap(300), 44);
        assert_eq!(IntTy::I8.wrap(200), -56);
        assert_eq!(IntTy::U32.wrap(-1), u32::MAX as i128);
        assert_eq!(IntTy::U16.wrap(65536 + 7), 7);
        assert_eq!(IntTy::I64.min(), i64::MIN as i128);
        assert_eq!(IntTy::U64.max(), u64::MAX as i128);
    }

    #[test]
    fn format_strings_become_globs() {
        assert_eq!(glob_of_format("affine_{}"), "affine_*");
        assert_eq!(glob_of_format("{}_{}_kernel"), "*_*_kernel");
        assert_eq!(glob_of_format("badd_{name}"), "badd_*");
        assert_eq!(glob_of_format("a{{b}}_{}"), "a{b}_*");
    }

    #[test]
    fn format_strings_take_the_values_known() {
        let asked = std::cell::RefCell::new(Vec::new());
        let known = |p: Placeholder<'_>| {
            asked.borrow_mut().push(format!("{p:?}"));
            match p {
                Placeholder::Next(0) => Some(Filled::Str("cast".to_owned())),
                Placeholder::Named("dtype") => Some(Filled::Str("f32".to_owned())),
                _ => None,
            }
        };
        assert_eq!(fill_format("{}_{dtype}_{:>4}{1}_x", known), "cast_f32_*_x");
        // Each placeholder is asked once, in order; `{:>4}` is the next argument's.
        assert_eq!(
            asked.into_inner(),
            ["Next(0)", "Named(\"dtype\")", "Next(1)", "Position(1)"]
        );
        // An integer and a string under one spec: `format!` pads them differently.
        let one = |_: Placeholder<'_>| Some(Filled::Int(1));
        assert_eq!(fill_format("k{:02}_{b:?}_{0:x}_{}", one), "k01_1_1_1");
        let text = |_: Placeholder<'_>| Some(Filled::Str("1".to_owned()));
        assert_eq!(
            fill_format("k{:02}_{}", text),
            format!("k{:02}_{}", "1", "1")
        );
        assert_eq!(fill_format("k{}_{:}", one), "k1_1");
        // `{:.*}` takes two arguments (the precision, then the value): `{}` after it is the
        // third (`format!("k_{:.*}_{}", 0, 8, 16)` is `k_8_16`); its precision is not known
        // here, so its text is not.
        let third =
            |p: Placeholder<'_>| matches!(p, Placeholder::Next(2)).then_some(Filled::Int(16));
        assert_eq!(fill_format("k_{:.*}_{}", third), "k_*_16");
        // A glob's text and several integers.
        let glob = |_: Placeholder<'_>| Some(Filled::Glob("#".to_owned()));
        assert_eq!(fill_format("q{}_{:02}", glob), "q#_*");
        let some = |_: Placeholder<'_>| Some(Filled::Ints(vec![2, 16]));
        assert_eq!(
            fill_format("q{}_{:02}_{:x}", some),
            "q{2,16}_{02,16}_{2,10}"
        );
    }

    /// Every spec the reader writes gives `format!`'s own text; the others are `*`.
    #[test]
    fn format_specs_write_what_format_writes() {
        let int = |v: i128| move |_: Placeholder<'_>| Some(Filled::Int(v));
        let string = |v: &'static str| move |_: Placeholder<'_>| Some(Filled::Str(v.to_owned()));
        macro_rules! same {
            ($spec:literal, $value:expr, $filled:expr) => {
                assert_eq!(
                    fill_format(concat!("k", $spec), $filled),
                    format!(concat!("k", $spec), $value),
                    "{}",
                    $spec
                );
            };
        }
        for v in [0i128, 7, -5, 255, 1_000_000] {
            same!("{:02}", v, int(v));
            same!("{:5}", v, int(v));
            same!("{:<5}", v, int(v));
            same!("{:^6}", v, int(v));
            same!("{:*>4}", v, int(v));
            same!("{:+}", v, int(v));
            same!("{:+05}", v, int(v));
            same!("{:-3}", v, int(v));
            same!("{:?}", v, int(v));
            same!("{:#?}", v, int(v));
            same!("{:.3}", v, int(v));
            same!("{:08.2}", v, int(v));
        }
        for v in [0i128, 7, 255, 4096] {
            same!("{:x}", v, int(v));
            same!("{:X}", v, int(v));
            same!("{:#x}", v, int(v));
            same!("{:#06x}", v, int(v));
            same!("{:o}", v, int(v));
            same!("{:#o}", v, int(v));
            same!("{:b}", v, int(v));
            same!("{:08b}", v, int(v));
            same!("{:#b}", v, int(v));
            same!("{:x?}", v, int(v));
            same!("{:#X?}", v, int(v));
            same!("{:>6x}", v, int(v));
        }
        for v in ["", "ab", "f32", "bf16x8"] {
            same!("{:5}", v, string(v));
            same!("{:05}", v, string(v));
            same!("{:>5}", v, string(v));
            same!("{:^6}", v, string(v));
            same!("{:_<4}", v, string(v));
            same!("{:.2}", v, string(v));
            same!("{:6.1}", v, string(v));
        }
        // Not written: hex of a negative integer (its type's two's complement), exponents,
        // Debug of a string (quoted), widths and precisions from arguments, a sign on a
        // string.
        for spec in ["{:x}", "{:#b}", "{:o}"] {
            assert_eq!(fill_format(&format!("k{spec}"), int(-1)), "k*", "{spec}");
        }
        for spec in [
            "{:e}", "{:E}", "{:1$}", "{:w$}", "{:.1$}", "{:.*}", "{:5.w$}", "{:q}",
        ] {
            assert_eq!(fill_format(&format!("k{spec}"), int(5)), "k*", "{spec}");
        }
        for spec in ["{:?}", "{:+}", "{:#}", "{:x}"] {
            assert_eq!(
                fill_format(&format!("k{spec}"), string("ab")),
                "k*",
                "{spec}"
            );
        }
        // A width past any name is not written (nor allocated).
        assert_eq!(fill_format("k{:99999999999999999999}", int(5)), "k*");
        assert_eq!(fill_format("k{:5000}", int(5)), "k*");
    }

    #[test]
    fn writes_back_what_it_read() {
        let e = lowered("(WARP_SIZE as u32) * crate::consts::TILE / 2");
        let written = tokens(&e, Span::call_site()).unwrap().to_string();
        assert_eq!(
            written,
            "((((((WARP_SIZE) as u32)) * (crate :: consts :: TILE))) / (2))"
        );
        assert!(tokens(&lowered("if a { 1 } else { 2 }"), Span::call_site()).is_none());
        assert_eq!(text(&e), "WARP_SIZE as u32 * crate::consts::TILE / 2");
        assert_eq!(
            text(&lowered("(a + b) * c - (d - e)")),
            "(a + b) * c - (d - e)"
        );
        assert_eq!(
            text(&lowered("(n + 1).div_ceil(B as u32)")),
            "(n + 1).div_ceil(B as u32)"
        );
        assert_eq!(
            text(&lowered("usize::min(1024, n).next_power_of_two()")),
            "usize::min(1024, n).next_power_of_two()"
        );
    }
}
