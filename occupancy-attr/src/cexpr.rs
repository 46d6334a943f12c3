//! The integer expressions the source reader evaluates, as plain data: lowered from `syn`
//! once, then kept (for files other than the wrapper's, across expansions) and evaluated
//! by `resolve.rs`.
//!
//! Only what launch configurations are written with is lowered: integer literals, paths,
//! arithmetic, `as` casts between integer types, `div_ceil` / `min` / `max` /
//! `next_power_of_two` / `pow` / `clamp`, calls (`size_of::<f32>()`, a crate's `const fn`,
//! a crate's helper returning a `LaunchConfig`, cudarc's `LaunchConfig::for_num_elems`),
//! tuples and tuple fields (`block.0`), `if` / `match` arms, blocks with `let` bindings, and
//! `LaunchConfig { .. }` literals. Anything else is [`Expr::Opaque`] with a description of
//! what it is, so that a note can say which expression could not be read and why.
//!
//! Lowering recurses over `syn`'s tree, so its input must have passed the nesting limits of
//! `limits.rs` first; the lowered tree is bounded the same way.

use proc_macro2::{Span, TokenStream};
use quote::{ToTokens, quote_spanned};
use syn::{BinOp, Lit, Member, UnOp};

/// A Rust integer type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum IntTy {
    U8,
    U16,
    U32,
    U64,
    U128,
    Usize,
    I8,
    I16,
    I32,
    I64,
    I128,
    Isize,
}

impl IntTy {
    const ALL: [(IntTy, &'static str); 12] = [
        (IntTy::U8, "u8"),
        (IntTy::U16, "u16"),
        (IntTy::U32, "u32"),
        (IntTy::U64, "u64"),
        (IntTy::U128, "u128"),
        (IntTy::Usize, "usize"),
        (IntTy::I8, "i8"),
        (IntTy::I16, "i16"),
        (IntTy::I32, "i32"),
        (IntTy::I64, "i64"),
        (IntTy::I128, "i128"),
        (IntTy::Isize, "isize"),
    ];

    pub(crate) fn from_name(name: &str) -> Option<IntTy> {
        IntTy::ALL.iter().find(|(_, n)| *n == name).map(|(t, _)| *t)
    }

    pub(crate) fn name(self) -> &'static str {
        IntTy::ALL
            .iter()
            .find(|(t, _)| *t == self)
            .map_or("?", |(_, n)| n)
    }

    /// Bits; `usize` and `isize` are 64 (every host CUDA runs on is 64-bit; the
    /// compiler's confirmation of the value would catch a 32-bit host).
    pub(crate) fn bits(self) -> u32 {
        match self {
            IntTy::U8 | IntTy::I8 => 8,
            IntTy::U16 | IntTy::I16 => 16,
            IntTy::U32 | IntTy::I32 => 32,
            IntTy::U64 | IntTy::I64 | IntTy::Usize | IntTy::Isize => 64,
            IntTy::U128 | IntTy::I128 => 128,
        }
    }

    pub(crate) fn signed(self) -> bool {
        matches!(
            self,
            IntTy::I8 | IntTy::I16 | IntTy::I32 | IntTy::I64 | IntTy::I128 | IntTy::Isize
        )
    }

    /// The smallest value, as an `i128`.
    pub(crate) fn min(self) -> i128 {
        if self.signed() {
            -(1i128 << (self.bits() - 1).min(127))
        } else {
            0
        }
    }

    /// The largest value, as an `i128` (`u128::MAX` is capped at `i128::MAX`: values above
    /// it are not evaluated).
    pub(crate) fn max(self) -> i128 {
        match (self.signed(), self.bits()) {
            (_, 128) => i128::MAX,
            (true, bits) => (1i128 << (bits - 1)) - 1,
            (false, bits) => (1i128 << bits) - 1,
        }
    }

    /// `value as Self`, with Rust's truncation and sign extension.
    pub(crate) fn wrap(self, value: i128) -> i128 {
        let bits = self.bits();
        if bits == 128 {
            return value;
        }
        let modulus = 1i128 << bits;
        let low = value.rem_euclid(modulus);
        if self.signed() && low > self.max() {
            low - modulus
        } else {
            low
        }
    }
}

/// A path as written: `TILE`, `crate::consts::TILE`, `Self::BLOCK`, `launch_cfg::<128>`.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Path {
    /// `::a::b`.
    pub(crate) leading_colon: bool,
    pub(crate) segments: Vec<Segment>,
}

/// One segment of a [`Path`] with its generic arguments.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Segment {
    pub(crate) ident: String,
    pub(crate) args: Vec<GenericArg>,
}

/// A generic argument: a type (`f32` in `size_of::<f32>`) or a constant (`128`,
/// `{ BLOCK * 2 }`). A single identifier is both (`launch_cfg::<BLOCK>`): it is kept as a
/// constant path and its text serves as the type.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct GenericArg {
    /// The argument's text (`f32`, `BLOCK`, `128`).
    pub(crate) text: String,
    /// As a constant expression, when it can be one.
    pub(crate) value: Option<Expr>,
}

impl Path {
    /// A path of one identifier.
    pub(crate) fn ident(name: &str) -> Path {
        Path {
            leading_colon: false,
            segments: vec![Segment {
                ident: name.to_owned(),
                args: Vec::new(),
            }],
        }
    }

    pub(crate) fn single(&self) -> Option<&str> {
        match self.segments.as_slice() {
            [one] if !self.leading_colon && one.args.is_empty() => Some(&one.ident),
            _ => None,
        }
    }

    pub(crate) fn idents(&self) -> Vec<&str> {
        self.segments.iter().map(|s| s.ident.as_str()).collect()
    }

    /// `crate::consts::TILE`, as written (generic arguments included).
    pub(crate) fn text(&self) -> String {
        let mut out = String::new();
        if self.leading_colon {
            out.push_str("::");
        }
        for (i, segment) in self.segments.iter().enumerate() {
            if i > 0 {
                out.push_str("::");
            }
            out.push_str(&segment.ident);
            if !segment.args.is_empty() {
                let args: Vec<&str> = segment.args.iter().map(|a| a.text.as_str()).collect();
                out.push_str(&format!("::<{}>", args.join(", ")));
            }
        }
        out
    }
}

/// Arithmetic the evaluator knows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Op {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
    Shl,
    Shr,
    BitAnd,
    BitOr,
    BitXor,
}

impl Op {
    fn from_syn(op: &BinOp) -> Option<Op> {
        Some(match op {
            BinOp::Add(_) => Op::Add,
            BinOp::Sub(_) => Op::Sub,
            BinOp::Mul(_) => Op::Mul,
            BinOp::Div(_) => Op::Div,
            BinOp::Rem(_) => Op::Rem,
            BinOp::Shl(_) => Op::Shl,
            BinOp::Shr(_) => Op::Shr,
            BinOp::BitAnd(_) => Op::BitAnd,
            BinOp::BitOr(_) => Op::BitOr,
            BinOp::BitXor(_) => Op::BitXor,
            _ => return None,
        })
    }

    pub(crate) fn symbol(self) -> &'static str {
        match self {
            Op::Add => "+",
            Op::Sub => "-",
            Op::Mul => "*",
            Op::Div => "/",
            Op::Rem => "%",
            Op::Shl => "<<",
            Op::Shr => ">>",
            Op::BitAnd => "&",
            Op::BitOr => "|",
            Op::BitXor => "^",
        }
    }
}

/// Integer methods the evaluator knows (Rust's semantics, checked).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Method {
    DivCeil,
    Min,
    Max,
    NextPowerOfTwo,
    Pow,
    Clamp,
}

impl Method {
    fn from_name(name: &str) -> Option<Method> {
        Some(match name {
            "div_ceil" => Method::DivCeil,
            "min" => Method::Min,
            "max" => Method::Max,
            "next_power_of_two" => Method::NextPowerOfTwo,
            "pow" => Method::Pow,
            "clamp" => Method::Clamp,
            _ => return None,
        })
    }

    pub(crate) fn name(self) -> &'static str {
        match self {
            Method::DivCeil => "div_ceil",
            Method::Min => "min",
            Method::Max => "max",
            Method::NextPowerOfTwo => "next_power_of_two",
            Method::Pow => "pow",
            Method::Clamp => "clamp",
        }
    }

    /// Arguments besides the receiver.
    pub(crate) fn arity(self) -> usize {
        match self {
            Method::NextPowerOfTwo => 0,
            Method::Clamp => 2,
            _ => 1,
        }
    }
}

/// The three fields of a cudarc `LaunchConfig` literal, each `None` when not written
/// (then `rest`, the `..base` of a struct update, supplies it).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct ConfigExpr {
    pub(crate) grid: Option<Box<Expr>>,
    pub(crate) block: Option<Box<Expr>>,
    pub(crate) smem: Option<Box<Expr>>,
    pub(crate) rest: Option<Box<Expr>>,
}

/// A lowered expression.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Expr {
    /// An integer literal and its suffix.
    Int(i128, Option<IntTy>),
    Path(Path),
    Neg(Box<Expr>),
    Not(Box<Expr>),
    Binary(Op, Box<Expr>, Box<Expr>),
    Cast(Box<Expr>, IntTy),
    Method(Box<Expr>, Method, Vec<Expr>),
    /// `path(args)`: a function of the crate, `size_of::<T>()`, `LaunchConfig::for_num_elems(n)`.
    Call(Path, Vec<Expr>),
    Tuple(Vec<Expr>),
    /// `base.0`.
    Field(Box<Expr>, u32),
    /// The arms of an `if` / `else` chain or a `match`: one of them is the value, chosen at
    /// run time (the condition is not evaluated).
    Choice(Vec<Expr>),
    /// `{ let a = ..; tail }`.
    Block(Vec<(String, Expr)>, Box<Expr>),
    /// A `LaunchConfig { grid_dim, block_dim, shared_mem_bytes }` literal.
    Config(ConfigExpr),
    /// Not read: what it is (`a call to `f`, `a closure`).
    Opaque(String),
}

/// Lowers `expr`. `depth` bounds the recursion (the input passed `limits.rs`, this is a
/// second guard for trees built from several inputs).
pub(crate) fn lower(expr: &syn::Expr) -> Expr {
    lower_at(expr, 0)
}

/// The deepest tree lowered; deeper is opaque.
const MAX_DEPTH: usize = 256;

fn lower_at(expr: &syn::Expr, depth: usize) -> Expr {
    if depth > MAX_DEPTH {
        return Expr::Opaque("an expression nested too deeply".to_owned());
    }
    let down = |e: &syn::Expr| Box::new(lower_at(e, depth + 1));
    match expr {
        syn::Expr::Lit(lit) => match &lit.lit {
            Lit::Int(int) => int_literal(int),
            Lit::Str(_) => Expr::Opaque("a string".to_owned()),
            Lit::Float(_) => Expr::Opaque("a floating-point number".to_owned()),
            _ => Expr::Opaque("a literal that is not an integer".to_owned()),
        },
        syn::Expr::Path(p) if p.qself.is_none() => Expr::Path(path(&p.path, depth)),
        syn::Expr::Path(_) => Expr::Opaque("a qualified path `<T as Trait>::..`".to_owned()),
        syn::Expr::Paren(p) => lower_at(&p.expr, depth + 1),
        syn::Expr::Group(g) => lower_at(&g.expr, depth + 1),
        syn::Expr::Unary(u) => match u.op {
            UnOp::Neg(_) => Expr::Neg(down(&u.expr)),
            UnOp::Not(_) => Expr::Not(down(&u.expr)),
            _ => Expr::Opaque("a dereference".to_owned()),
        },
        syn::Expr::Binary(b) => match Op::from_syn(&b.op) {
            Some(op) => Expr::Binary(op, down(&b.left), down(&b.right)),
            None => Expr::Opaque(format!(
                "a `{}` expression",
                b.op.to_token_stream().to_string().replace(' ', "")
            )),
        },
        syn::Expr::Cast(c) => match type_name(&c.ty).as_deref().and_then(IntTy::from_name) {
            Some(ty) => Expr::Cast(down(&c.expr), ty),
            None => Expr::Opaque(format!(
                "a cast to `{}`",
                c.ty.to_token_stream().to_string().replace(' ', "")
            )),
        },
        syn::Expr::MethodCall(m) => match Method::from_name(&m.method.to_string()) {
            Some(method) if m.turbofish.is_none() && m.args.len() == method.arity() => {
                Expr::Method(
                    down(&m.receiver),
                    method,
                    m.args.iter().map(|a| lower_at(a, depth + 1)).collect(),
                )
            }
            _ => Expr::Opaque(format!("a call of the method `{}`", m.method)),
        },
        syn::Expr::Call(c) => match &*c.func {
            syn::Expr::Path(p) if p.qself.is_none() => Expr::Call(
                path(&p.path, depth),
                c.args.iter().map(|a| lower_at(a, depth + 1)).collect(),
            ),
            _ => Expr::Opaque("a call of a computed function".to_owned()),
        },
        syn::Expr::Tuple(t) => {
            Expr::Tuple(t.elems.iter().map(|e| lower_at(e, depth + 1)).collect())
        }
        syn::Expr::Field(f) => match &f.member {
            Member::Unnamed(index) => Expr::Field(down(&f.base), index.index),
            Member::Named(name) => Expr::Opaque(format!("the field `.{name}`")),
        },
        syn::Expr::If(i) => {
            let mut arms = vec![block(&i.then_branch, depth)];
            match &i.else_branch {
                Some((_, otherwise)) => match lower_at(otherwise, depth + 1) {
                    Expr::Choice(more) => arms.extend(more),
                    other => arms.push(other),
                },
                None => return Expr::Opaque("an `if` without `else`".to_owned()),
            }
            Expr::Choice(arms)
        }
        syn::Expr::Match(m) => {
            if m.arms.is_empty() {
                return Expr::Opaque("a `match` without arms".to_owned());
            }
            Expr::Choice(
                m.arms
                    .iter()
                    .map(|arm| lower_at(&arm.body, depth + 1))
                    .collect(),
            )
        }
        syn::Expr::Block(b) if b.label.is_none() => block(&b.block, depth),
        syn::Expr::Const(c) => block(&c.block, depth),
        syn::Expr::Unsafe(u) => block(&u.block, depth),
        syn::Expr::Struct(s) if s.qself.is_none() => config(s, depth),
        syn::Expr::Macro(_) => Expr::Opaque("a macro call".to_owned()),
        syn::Expr::Closure(_) => Expr::Opaque("a closure".to_owned()),
        syn::Expr::Index(_) => Expr::Opaque("an index expression".to_owned()),
        syn::Expr::Reference(_) => Expr::Opaque("a reference".to_owned()),
        syn::Expr::Try(_) => Expr::Opaque("a `?` expression".to_owned()),
        _ => Expr::Opaque("an expression that is not integer arithmetic".to_owned()),
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

/// A function body or block: `let NAME (: ty)? = expr;` statements and a tail expression
/// (or a final `return expr;`).
pub(crate) fn lower_block(b: &syn::Block) -> Expr {
    block(b, 0)
}

fn block(block: &syn::Block, depth: usize) -> Expr {
    let mut lets = Vec::new();
    let mut tail = None;
    for (i, stmt) in block.stmts.iter().enumerate() {
        let last = i + 1 == block.stmts.len();
        match stmt {
            syn::Stmt::Local(local) => {
                let Some(name) = pattern_name(&local.pat) else {
                    return Expr::Opaque("a `let` with a pattern".to_owned());
                };
                let Some(init) = &local.init else {
                    return Expr::Opaque(format!("`let {name};` without a value"));
                };
                if init.diverge.is_some() {
                    return Expr::Opaque("a `let ... else`".to_owned());
                }
                lets.push((name, lower_at(&init.expr, depth + 1)));
            }
            syn::Stmt::Expr(expr, None) if last => tail = Some(lower_at(expr, depth + 1)),
            syn::Stmt::Expr(syn::Expr::Return(ret), _) if last => match &ret.expr {
                Some(expr) => tail = Some(lower_at(expr, depth + 1)),
                None => return Expr::Opaque("a `return` without a value".to_owned()),
            },
            // Items in the block (a local `const`) are not seen by this reader.
            syn::Stmt::Item(_) => {
                return Expr::Opaque("a block with items in it".to_owned());
            }
            _ => return Expr::Opaque("a block with statements other than `let`".to_owned()),
        }
    }
    match tail {
        Some(tail) if lets.is_empty() => tail,
        Some(tail) => Expr::Block(lets, Box::new(tail)),
        None => Expr::Opaque("a block without a value".to_owned()),
    }
}

/// `LaunchConfig { grid_dim, block_dim, shared_mem_bytes, ..rest }`; other structs are
/// opaque.
fn config(s: &syn::ExprStruct, depth: usize) -> Expr {
    let is_config = s
        .path
        .segments
        .last()
        .is_some_and(|segment| segment.ident == "LaunchConfig");
    if !is_config {
        let name = s
            .path
            .segments
            .last()
            .map_or_else(String::new, |s| s.ident.to_string());
        return Expr::Opaque(format!("a `{name} {{ .. }}` value"));
    }
    let mut out = ConfigExpr {
        grid: None,
        block: None,
        smem: None,
        rest: s
            .rest
            .as_ref()
            .map(|rest| Box::new(lower_at(rest, depth + 1))),
    };
    for field in &s.fields {
        let Member::Named(name) = &field.member else {
            return Expr::Opaque("a `LaunchConfig` with a numbered field".to_owned());
        };
        let value = Some(Box::new(lower_at(&field.expr, depth + 1)));
        match name.to_string().as_str() {
            "grid_dim" => out.grid = value,
            "block_dim" => out.block = value,
            "shared_mem_bytes" => out.smem = value,
            other => return Expr::Opaque(format!("a `LaunchConfig` with a field `{other}`")),
        }
    }
    Expr::Config(out)
}

/// The name a simple pattern binds: `x`, `mut x`, `x: u32`.
pub(crate) fn pattern_name(pat: &syn::Pat) -> Option<String> {
    match pat {
        syn::Pat::Ident(p) if p.by_ref.is_none() && p.subpat.is_none() => Some(p.ident.to_string()),
        syn::Pat::Type(t) => pattern_name(&t.pat),
        _ => None,
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
        syn::GenericArgument::Const(e) => Some(lower_at(e, depth + 1)),
        syn::GenericArgument::Type(syn::Type::Path(p)) if p.qself.is_none() => p
            .path
            .get_ident()
            .map(|_| Expr::Path(path(&p.path, depth + 1))),
        _ => None,
    };
    GenericArg { text, value }
}

/// `expr` as Rust tokens at `span` (for the compiler's confirmation of a value): paths as
/// they are, literals with their suffix. `None` for what cannot be written back (opaque
/// parts, choices, configs).
pub(crate) fn tokens(expr: &Expr, span: Span) -> Option<TokenStream> {
    Some(match expr {
        Expr::Int(value, ty) => literal(*value, *ty, span),
        Expr::Path(p) => path_tokens(p, span)?,
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
        Expr::Call(p, args) => {
            let p = path_tokens(p, span)?;
            let args = args
                .iter()
                .map(|a| tokens(a, span))
                .collect::<Option<Vec<_>>>()?;
            quote_spanned!(span=> #p(#(#args),*))
        }
        Expr::Field(base, index) => {
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
        Expr::Choice(_) | Expr::Block(..) | Expr::Config(_) | Expr::Opaque(_) => return None,
    })
}

/// `expr` as a person writes it, for messages: `TILE * 4`, `(n + 1).div_ceil(BLOCK)`.
pub(crate) fn text(expr: &Expr) -> String {
    text_at(expr, 0, 0)
}

/// Binding strength of an operator, for parentheses in [`text`].
fn precedence(op: Op) -> u8 {
    match op {
        Op::Mul | Op::Div | Op::Rem => 10,
        Op::Add | Op::Sub => 9,
        Op::Shl | Op::Shr => 8,
        Op::BitAnd => 7,
        Op::BitXor => 6,
        Op::BitOr => 5,
    }
}

fn text_at(expr: &Expr, parent: u8, depth: usize) -> String {
    if depth > MAX_DEPTH {
        return "..".to_owned();
    }
    let d = depth + 1;
    match expr {
        Expr::Int(v, _) => v.to_string(),
        Expr::Path(p) => p.text(),
        Expr::Neg(e) => format!("-{}", text_at(e, 12, d)),
        Expr::Not(e) => format!("!{}", text_at(e, 12, d)),
        Expr::Binary(op, l, r) => {
            let p = precedence(*op);
            let inner = format!(
                "{} {} {}",
                text_at(l, p, d),
                op.symbol(),
                text_at(r, p + 1, d)
            );
            if p < parent {
                format!("({inner})")
            } else {
                inner
            }
        }
        Expr::Cast(e, ty) => {
            let inner = format!("{} as {}", text_at(e, 11, d), ty.name());
            if parent > 11 {
                format!("({inner})")
            } else {
                inner
            }
        }
        Expr::Method(r, m, args) => {
            let args: Vec<String> = args.iter().map(|a| text_at(a, 0, d)).collect();
            format!("{}.{}({})", text_at(r, 13, d), m.name(), args.join(", "))
        }
        Expr::Call(p, args) => {
            let args: Vec<String> = args.iter().map(|a| text_at(a, 0, d)).collect();
            format!("{}({})", p.text(), args.join(", "))
        }
        Expr::Tuple(items) => {
            let items: Vec<String> = items.iter().map(|a| text_at(a, 0, d)).collect();
            format!("({})", items.join(", "))
        }
        Expr::Field(b, i) => format!("{}.{i}", text_at(b, 13, d)),
        Expr::Choice(_) => "if/match".to_owned(),
        Expr::Block(..) => "{ .. }".to_owned(),
        Expr::Config(_) => "LaunchConfig { .. }".to_owned(),
        Expr::Opaque(what) => what.clone(),
    }
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

fn path_tokens(p: &Path, span: Span) -> Option<TokenStream> {
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
        assert!(
            matches!(lowered("if n < 1024 { 32 } else { 1024 }"), Expr::Choice(a) if a.len() == 2)
        );
        assert!(
            matches!(lowered("if a { 1 } else if b { 2 } else { 3 }"), Expr::Choice(a) if a.len() == 3)
        );
        assert!(
            matches!(lowered("match d { F32 => 256, _ => 128 }"), Expr::Choice(a) if a.len() == 2)
        );
        assert!(
            matches!(lowered("size_of::<f32>()"), Expr::Call(p, a) if p.segments[0].args[0].text == "f32" && a.is_empty())
        );
        let Expr::Config(config) = lowered(
            "LaunchConfig { grid_dim: (n, 1, 1), block_dim: (TILE, 4, 1), shared_mem_bytes: 0 }",
        ) else {
            panic!("not a config")
        };
        assert!(matches!(config.block.as_deref(), Some(Expr::Tuple(t)) if t.len() == 3));
        assert_eq!(config.smem.as_deref(), Some(&Expr::Int(0, None)));
        assert!(config.rest.is_none());
        assert_eq!(
            lowered("f(x)?"),
            Expr::Opaque("a `?` expression".to_owned())
        );
        assert_eq!(
            lowered("x as f32"),
            Expr::Opaque("a cast to `f32`".to_owned())
        );
        assert_eq!(
            lowered("if c { 1 }"),
            Expr::Opaque("an `if` without `else`".to_owned())
        );
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
    }
}
