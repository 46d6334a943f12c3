//! The IR the reader interprets, as plain data: statements, expressions and patterns of
//! the launch code a front end lowered (the Rust front end lowers `syn`'s tree:
//! `occupancy-attr/src/reader/ir.rs`), kept across expansions and run by [`crate::interp`].
//!
//! What launch code is written with has a node: integer, boolean and string literals,
//! paths, arithmetic and comparisons, casts between integer types, the integer methods
//! (`div_ceil`, `min`, `max`, `clamp`, `next_power_of_two`, `pow`), calls, method calls,
//! tuples, struct literals and fields, `if` / `match` with their conditions and patterns,
//! blocks with `let` (patterns included), assignments, loops, `return` / `break`, `?`,
//! closures, `format!`, `matches!`, `assert!`, the diverging macros and cust's `launch!`.
//! Anything else is [`Expr::Opaque`] with a description of what it is, so that a note can
//! say which expression could not be read and why.
//!
//! Expressions of the wrapper's body carry where they are written ([`At`], an index into
//! the front end's span table); those of other files do not. Locations never make two
//! expressions differ: [`At`]'s equality always holds, so that the interpreter recognises
//! the same condition written twice. The tree is at most [`MAX_DEPTH`] deep.

use occupancy_core::abstract_int::Comparison;

/// A Rust integer type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum IntTy {
    /// `u8`.
    U8,
    /// `u16`.
    U16,
    /// `u32`.
    U32,
    /// `u64`.
    U64,
    /// `u128`.
    U128,
    /// `usize`.
    Usize,
    /// `i8`.
    I8,
    /// `i16`.
    I16,
    /// `i32`.
    I32,
    /// `i64`.
    I64,
    /// `i128`.
    I128,
    /// `isize`.
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

    /// The type a name denotes (`u32`), if it is one of these.
    pub fn from_name(name: &str) -> Option<IntTy> {
        IntTy::ALL.iter().find(|(_, n)| *n == name).map(|(t, _)| *t)
    }

    /// The type's name as written (`u32`).
    pub fn name(self) -> &'static str {
        IntTy::ALL
            .iter()
            .find(|(t, _)| *t == self)
            .map_or("?", |(_, n)| n)
    }

    /// Bits; `usize` and `isize` are 64 (every host CUDA runs on is 64-bit; the
    /// compiler's confirmation of the value would catch a 32-bit host).
    pub fn bits(self) -> u32 {
        match self {
            IntTy::U8 | IntTy::I8 => 8,
            IntTy::U16 | IntTy::I16 => 16,
            IntTy::U32 | IntTy::I32 => 32,
            IntTy::U64 | IntTy::I64 | IntTy::Usize | IntTy::Isize => 64,
            IntTy::U128 | IntTy::I128 => 128,
        }
    }

    /// Whether the type is signed.
    pub fn signed(self) -> bool {
        matches!(
            self,
            IntTy::I8 | IntTy::I16 | IntTy::I32 | IntTy::I64 | IntTy::I128 | IntTy::Isize
        )
    }

    /// The smallest value, as an `i128`.
    pub fn min(self) -> i128 {
        if self.signed() {
            // `-(1 << 127)` overflows: shift the sign in instead.
            -1i128 << (self.bits() - 1)
        } else {
            0
        }
    }

    /// The largest value, as an `i128` (`u128::MAX` is capped at `i128::MAX`: values above
    /// it are not evaluated).
    pub fn max(self) -> i128 {
        match (self.signed(), self.bits()) {
            (_, 128) => i128::MAX,
            (true, bits) => (1i128 << (bits - 1)) - 1,
            (false, bits) => (1i128 << bits) - 1,
        }
    }

    /// `value as Self`, with Rust's truncation and sign extension.
    pub fn wrap(self, value: i128) -> i128 {
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

    /// `lo..=hi` as `Self`, where the conversion moves every value of it by the same
    /// multiple of 2^bits (the interval lies within one turn of the type's range: `-8..=-1`
    /// as a `u64` is `2^64 - 8..=2^64 - 1`); `None` where it does not, or a bound is open.
    pub fn wrap_range(self, lo: Option<i128>, hi: Option<i128>) -> Option<(i128, i128)> {
        let (lo, hi) = (lo?, hi?);
        let bits = self.bits();
        if bits >= 127 {
            return (lo >= self.min() && hi <= self.max()).then_some((lo, hi));
        }
        let modulus = 1i128 << bits;
        let turn = |v: i128| v.checked_sub(self.min()).map(|d| d.div_euclid(modulus));
        let (a, b) = (turn(lo)?, turn(hi)?);
        let shift = a.checked_mul(modulus)?;
        (a == b).then(|| (lo - shift, hi - shift))
    }
}

/// A path as written: `TILE`, `crate::consts::TILE`, `Self::BLOCK`, `launch_cfg::<128>`.
#[derive(Clone, Debug, PartialEq)]
pub struct Path {
    /// `::a::b`.
    pub leading_colon: bool,
    /// The segments, in order.
    pub segments: Vec<Segment>,
}

/// One segment of a [`Path`] with its generic arguments.
#[derive(Clone, Debug, PartialEq)]
pub struct Segment {
    /// The identifier.
    pub ident: String,
    /// Its generic arguments (`::<f32>`), in order.
    pub args: Vec<GenericArg>,
}

/// A generic argument: a type (`f32` in `size_of::<f32>`) or a constant (`128`,
/// `{ BLOCK * 2 }`). A single identifier is both (`launch_cfg::<BLOCK>`): it is kept as a
/// constant path and its text serves as the type.
#[derive(Clone, Debug, PartialEq)]
pub struct GenericArg {
    /// The argument's text (`f32`, `BLOCK`, `128`).
    pub text: String,
    /// As a constant expression, when it can be one.
    pub value: Option<Expr>,
}

impl Path {
    /// The one identifier of a path without `::` or generic arguments (`TILE`).
    pub fn single(&self) -> Option<&str> {
        match self.segments.as_slice() {
            [one] if !self.leading_colon && one.args.is_empty() => Some(&one.ident),
            _ => None,
        }
    }

    /// The identifiers, in order.
    pub fn idents(&self) -> Vec<&str> {
        self.segments.iter().map(|s| s.ident.as_str()).collect()
    }

    /// The last identifier (empty for an empty path).
    pub fn last(&self) -> &str {
        self.segments.last().map_or("", |s| s.ident.as_str())
    }

    /// `crate::consts::TILE`, as written (generic arguments included).
    pub fn text(&self) -> String {
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

/// Arithmetic the interpreter knows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Op {
    /// `+`.
    Add,
    /// `-`.
    Sub,
    /// `*`.
    Mul,
    /// `/`.
    Div,
    /// `%`.
    Rem,
    /// `<<`.
    Shl,
    /// `>>`.
    Shr,
    /// `&`.
    BitAnd,
    /// `|`.
    BitOr,
    /// `^`.
    BitXor,
}

impl Op {
    /// The operator as written (`+`).
    pub fn symbol(self) -> &'static str {
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

/// A comparison's operator as written (`<=`).
pub fn comparison_symbol(op: Comparison) -> &'static str {
    match op {
        Comparison::Lt => "<",
        Comparison::Le => "<=",
        Comparison::Gt => ">",
        Comparison::Ge => ">=",
        Comparison::Eq => "==",
        Comparison::Ne => "!=",
    }
}

/// Integer methods the interpreter knows (Rust's semantics, checked).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Method {
    /// `a.div_ceil(b)`.
    DivCeil,
    /// `a.min(b)`.
    Min,
    /// `a.max(b)`.
    Max,
    /// `a.next_power_of_two()`.
    NextPowerOfTwo,
    /// `a.pow(b)`.
    Pow,
    /// `a.clamp(lo, hi)`.
    Clamp,
}

impl Method {
    /// The method a name denotes (`div_ceil`), if it is one of these.
    pub fn from_name(name: &str) -> Option<Method> {
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

    /// The method's name (`div_ceil`).
    pub fn name(self) -> &'static str {
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
    pub fn arity(self) -> usize {
        match self {
            Method::NextPowerOfTwo => 0,
            Method::Clamp => 2,
            _ => 1,
        }
    }
}

/// Where an expression of the wrapper's body is: an index into the front end's span table
/// (the Rust front end's `Lowered::spans`); [`At::NONE`] elsewhere. Always equal to any other `At`: spans
/// never make two expressions differ.
#[derive(Clone, Copy, Debug)]
pub struct At(pub u32);

impl At {
    /// No span (an expression of another file, or of the attribute).
    pub const NONE: At = At(u32::MAX);
}

impl PartialEq for At {
    fn eq(&self, _: &At) -> bool {
        true
    }
}

/// A `format!`'s string and arguments: each path fills the placeholders whose argument it
/// knows as a string or an integer (`format!("{name}{b_size}")` with `name` bound by a
/// `match` arm), the others stay `*`.
#[derive(Clone, Debug, PartialEq)]
pub struct FormatArgs {
    /// The format string as written.
    pub text: String,
    /// The positional arguments, in order.
    pub positional: Vec<Expr>,
    /// `name = expr` arguments, and the names the string captures (`{kernel_name}`).
    pub named: Vec<(String, Expr)>,
}

/// A lowered expression.
#[derive(Clone, Debug, PartialEq)]
pub enum Expr {
    /// An integer literal and its suffix.
    Int(i128, Option<IntTy>),
    /// A boolean literal.
    Bool(bool),
    /// A string literal, and where it is written.
    Str(String, At),
    /// A path (a binding, a constant, a unit variant), and where it is written.
    Path(Path, At),
    /// `-e`.
    Neg(Box<Expr>),
    /// `!e`.
    Not(Box<Expr>),
    /// An arithmetic operation.
    Binary(Op, Box<Expr>, Box<Expr>),
    /// A comparison.
    Compare(Comparison, Box<Expr>, Box<Expr>),
    /// `a && b` (short-circuit).
    And(Box<Expr>, Box<Expr>),
    /// `a || b` (short-circuit).
    Or(Box<Expr>, Box<Expr>),
    /// `e as ty` to an integer type.
    Cast(Box<Expr>, IntTy),
    /// An integer method the interpreter computes.
    Method(Box<Expr>, Method, Vec<Expr>),
    /// `path(args)`: a function of the crate, `size_of::<T>()`, `LaunchConfig::for_num_elems(n)`.
    Call(Path, Vec<Expr>, At),
    /// `receiver.name(args)` for any other method (`load_function`, `launch`, `unwrap`).
    MethodCall(Box<Expr>, String, Vec<Expr>, At),
    /// `(a, b, ..)`.
    Tuple(Vec<Expr>),
    /// `base.0`, `base.name`.
    Field(Box<Expr>, Field),
    /// `if` with its branches (the front end lowers `if let` to a [`Expr::Match`]).
    If(Box<If>),
    /// `match`.
    Match(Box<Match>),
    /// A block expression.
    Block(Box<Block>),
    /// `Name { field: value, ..rest }` (a cudarc `LaunchConfig` among them).
    Struct(Box<StructLit>),
    /// `loop`, `while`, `for`.
    Loop(Box<Loop>),
    /// `place = value`, `place op= value`.
    Assign(Box<Expr>, Option<Op>, Box<Expr>),
    /// `return`, with its value.
    Return(Option<Box<Expr>>),
    /// `break`, with its label and its value.
    Break(Option<String>, Option<Box<Expr>>),
    /// `continue`, with its label.
    Continue(Option<String>),
    /// A labeled block or loop (`'a: { .. }`, `'outer: loop { .. }`): what a `break` or
    /// `continue` with that label leaves or goes round again.
    Labeled(String, Box<Expr>),
    /// Control never gets past it: `panic!`, `unreachable!`, `todo!`.
    Diverge,
    /// `expr?`: the value on the path that goes on.
    Try(Box<Expr>),
    /// `&expr`, `&mut expr`.
    Ref(Box<Expr>, bool),
    /// C++'s pack expansion `rest...` as a call's argument: each value of the parameter pack
    /// `rest` (a tuple) an argument of its own.
    Spread(Box<Expr>),
    /// `|params| body`.
    Closure(Vec<Pat>, Box<Expr>),
    /// `format!("affine_{}", ..)`: the kernel name's glob (`affine_*`), and what each path
    /// fills it with.
    Format(String, At, Box<FormatArgs>),
    /// `assert!(condition)`: the paths where it fails stop there.
    Assert(Box<Expr>),
    /// cust's `launch!(module.kernel<<<grid, block, smem, stream>>>(..))`.
    CustLaunch(Box<CustLaunch>),
    /// A type written where a value may be: a C++ template argument (`float`, `T`,
    /// `vec<half, 2>`, a constant named like a type: `Q4_0`), a `using` alias's value. Its
    /// value is the type, or the value of the binding or constant its single name names.
    Type(Box<TypeExpr>),
    /// An opt-in to more dynamic shared memory per block than the default 48 KiB for a
    /// kernel (C++'s `cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize,
    /// n)`): the kernel's later launches on the path may use up to its bytes.
    OptIn(Box<OptIn>),
    /// `sizeof(type)` (`false`) or `alignof(type)` (`true`) of a type the front end does not
    /// lay out itself (a template's type parameter): the operand is an [`Expr::Type`], laid
    /// out by the front end once the reading knows the type
    /// ([`crate::names::Names::type_layout`]).
    SizeOf(Box<Expr>, bool),
    /// A call of a macro the reader does not read, given these names (`set!(m)`): each
    /// integer binding among them may be assigned there (a launch builder keeps its kernel,
    /// as when lent to a method); what the call is, for notes.
    Havoc(Vec<String>, String),
    /// Not read: what it is (`a closure`, `a call of the method `len``).
    Opaque(String),
}

/// See [`Expr::OptIn`].
#[derive(Clone, Debug, PartialEq)]
pub struct OptIn {
    /// The kernel (a value: a designated kernel, a name bound to one).
    pub kernel: Expr,
    /// The most dynamic shared memory its launches may use, bytes.
    pub bytes: Expr,
}

/// A type as written, its names resolved as far as the front end can before a reading (the
/// unit's aliases): `float`, `T`, `vec<half, 2>*`.
#[derive(Clone, Debug, PartialEq)]
pub struct TypeExpr {
    /// The type's name (`float`, `unsigned int`, `ns::vec`), or a template parameter's or a
    /// local alias's, bound on the path.
    pub name: String,
    /// Its template arguments, each a type or a value.
    pub args: Vec<Expr>,
    /// What follows the name, without spaces (`*`, `**`, `&`), as C++ writes a pointer.
    pub declarator: String,
}

/// `.0` or `.name`.
#[derive(Clone, Debug, PartialEq)]
pub enum Field {
    /// `.0`: a tuple's element.
    Index(u32),
    /// `.name`: a struct's field.
    Named(String),
}

/// `if condition { then } else { otherwise }`.
#[derive(Clone, Debug, PartialEq)]
pub struct If {
    /// The condition.
    pub condition: Expr,
    /// The block run when it holds.
    pub then: Block,
    /// The `else` branch: a block or another `if`.
    pub otherwise: Option<Expr>,
    /// Where the `if` is written.
    pub at: At,
}

/// `match scrutinee { arms }`.
#[derive(Clone, Debug, PartialEq)]
pub struct Match {
    /// The value matched.
    pub scrutinee: Expr,
    /// The arms, in order.
    pub arms: Vec<Arm>,
    /// Where the `match` is written.
    pub at: At,
}

/// `pattern if guard => body`.
#[derive(Clone, Debug, PartialEq)]
pub struct Arm {
    /// The arm's pattern.
    pub pat: Pat,
    /// Its `if` guard.
    pub guard: Option<Expr>,
    /// Its body.
    pub body: Expr,
    /// Where the arm is written.
    pub at: At,
}

/// `{ statements; tail }`.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Block {
    /// The statements, in order.
    pub stmts: Vec<Stmt>,
    /// The value of the block, when its last expression has no `;`.
    pub tail: Option<Expr>,
}

/// A statement.
#[derive(Clone, Debug, PartialEq)]
pub enum Stmt {
    /// `let pattern = value else { .. };`.
    Let(Box<Let>),
    /// An expression statement.
    Expr(Expr),
    /// An item: the name it declares in the value namespace (`const B: u32 = 64;`), if any.
    Item(Option<String>),
}

/// `let pattern = value else { otherwise };` (`value` absent for `let x;`).
#[derive(Clone, Debug, PartialEq)]
pub struct Let {
    /// The pattern bound.
    pub pat: Pat,
    /// The initialiser.
    pub init: Option<Expr>,
    /// `let .. else`'s block (it diverges).
    pub otherwise: Option<Block>,
    /// The integer type the `let` declares (`let n: usize = ..`), if any.
    pub ty: Option<IntTy>,
    /// Where the `let` is written.
    pub at: At,
}

/// A struct literal.
#[derive(Clone, Debug, PartialEq)]
pub struct StructLit {
    /// The last segment of its path (`LaunchConfig`, `Tiling`).
    pub name: String,
    /// The fields given: name, value, where the value is written.
    pub fields: Vec<(String, Expr, At)>,
    /// `..rest`.
    pub rest: Option<Expr>,
    /// Where the literal is written.
    pub at: At,
}

/// A loop.
#[derive(Clone, Debug, PartialEq)]
pub struct Loop {
    /// Which loop.
    pub kind: LoopKind,
    /// The body.
    pub body: Block,
    /// Where the loop is written.
    pub at: At,
}

/// What repeats a loop.
#[derive(Clone, Debug, PartialEq)]
pub enum LoopKind {
    /// `while condition { .. }` (`while let` is lowered with its pattern matched by
    /// [`Pat`] inside a `match`).
    While(Expr),
    /// `loop { .. }`.
    Loop,
    /// `for pattern in iterator { .. }`.
    For(Pat, Expr),
    /// `for pattern in [a, b, c]` or `for pattern in a..b` (`a..=b`): a sequence the
    /// reader steps through, element by element, when its values are known.
    Over(Pat, Seq),
}

/// The sequence of a `for` loop the reader can step through.
#[derive(Clone, Debug, PartialEq)]
pub enum Seq {
    /// `[a, b, c]` (also `&[..]`, `[..].iter()`, `.into_iter()`, `.copied()`).
    List(Vec<Expr>),
    /// `start..end`, or `start..=end` when `inclusive`.
    Range {
        /// The first value.
        start: Box<Expr>,
        /// The bound.
        end: Box<Expr>,
        /// `..=`: `end` is the last value.
        inclusive: bool,
    },
    /// `seq.rev()`: the values last first.
    Rev(Box<Seq>),
    /// `seq.step_by(n)`: the first value and every `n`-th after it.
    StepBy(Box<Seq>, Box<Expr>),
}

impl Seq {
    /// Its expressions, in order (what a loop the reader does not step through evaluates).
    pub fn exprs(&self) -> Vec<&Expr> {
        match self {
            Seq::List(items) => items.iter().collect(),
            Seq::Range { start, end, .. } => vec![start, end],
            Seq::Rev(seq) => seq.exprs(),
            Seq::StepBy(seq, step) => {
                let mut out = seq.exprs();
                out.push(step);
                out
            }
        }
    }
}

/// cust's `launch!(module.kernel<<<grid, block, smem, stream>>>(args))`.
#[derive(Clone, Debug, PartialEq)]
pub struct CustLaunch {
    /// The kernel's name and where it is written.
    pub kernel: Option<(String, At)>,
    /// A tuple of three (a single number or a pair padded with 1s).
    pub grid: Expr,
    /// The block, as `grid` is given.
    pub block: Expr,
    /// The dynamic shared memory, bytes.
    pub smem: Expr,
    /// The `<<<` and each part.
    pub at: At,
    /// Where the grid is written.
    pub grid_at: At,
    /// Where the block is written.
    pub block_at: At,
    /// Where the shared memory is written.
    pub smem_at: At,
    /// The kernel's template arguments (C++'s `k<float, 64><<<..>>>`), each a type
    /// ([`Expr::Type`]) or a value; empty for a kernel that is not a template.
    pub template_args: Vec<Expr>,
}

/// A pattern.
#[derive(Clone, Debug, PartialEq)]
pub enum Pat {
    /// `name`, `mut name`, `name @ sub`.
    Bind(String, Option<Box<Pat>>),
    /// `_`.
    Wild,
    /// `..` in a tuple.
    Rest,
    /// A literal (an integer, negative included, a boolean, a string).
    Lit(Expr),
    /// `lo..=hi`, `lo..hi`, `lo..` (bounds as expressions: literals or constants).
    Range(Option<Expr>, Option<Expr>, bool),
    /// An enum variant or a constant: `DType::F32`, `None`.
    Path(Path),
    /// `(a, b, ..)`.
    Tuple(Vec<Pat>),
    /// `Some(x)`, `Ok(v)`, `Variant(a, b)`.
    TupleStruct(Path, Vec<Pat>),
    /// `Name { field: pat, .. }`.
    Struct(Path, Vec<(String, Pat)>),
    /// `a | b`.
    Or(Vec<Pat>),
    /// What the reader does not follow (the names it binds are unknown).
    Opaque(Vec<String>),
}

/// The deepest tree lowered; deeper is opaque.
pub const MAX_DEPTH: usize = 256;

/// `affine_{}` -> `affine_*` (each `{...}` placeholder a `*`; `{{` and `}}` literal braces).
pub fn glob_of_format(format: &str) -> String {
    fill_format(format, |_| None)
}

/// A `{...}` placeholder of a `format!` string, its format spec (`:>4`) dropped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Placeholder<'a> {
    /// `{}`: the next positional argument, at this 0-based position.
    Next(usize),
    /// `{1}`: the positional argument at this position.
    Position(usize),
    /// `{dtype}`: a name (a variable captured by the format string, or a named argument).
    Named(&'a str),
}

/// What a placeholder of a `format!` string is filled with.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Filled {
    /// A string: a format spec pads or cuts it as `format!` does (`{:>4}`, `{:.2}`).
    Str(String),
    /// An integer: a format spec writes it as `format!` does (`{:02}`, `{:#x}`).
    Int(i128),
    /// One of several integers: a `{a,b,..}` group of each, as the spec writes it.
    Ints(Vec<i128>),
    /// A glob's text (`#`, a group of names): as is without a format spec, `*` with one.
    Glob(String),
}

/// The text a `format!` string makes, each placeholder replaced by `value`'s answer for it,
/// written as its format spec says (`{:02}` of 7 is `07`), or by `*` where it has none or a
/// spec the reader does not write (a width or precision from an argument, `{:e}`, `{:x}`
/// of a negative integer, `{:?}` of a string) (adjacent `*`s merged into one): a kernel's
/// name (`"affine_f32"`), or the glob of a family (`"affine_{}"` -> `"affine_*"`). `{{` and
/// `}}` are literal braces; an unclosed `{` is a placeholder up to the end. `value` is asked
/// once per placeholder, in order.
pub fn fill_format(
    format: &str,
    mut value: impl FnMut(Placeholder<'_>) -> Option<Filled>,
) -> String {
    let mut out = String::new();
    let mut next = 0;
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
                let mut inside = String::new();
                for c in chars.by_ref() {
                    if c == '}' {
                        break;
                    }
                    inside.push(c);
                }
                let (name, spec) = inside.split_once(':').unwrap_or((&inside, ""));
                let name = name.trim();
                // `{:.*}` takes its precision from the next positional argument first.
                if spec.contains(".*") {
                    next += 1;
                }
                let placeholder = if name.is_empty() {
                    next += 1;
                    Placeholder::Next(next - 1)
                } else if let Ok(i) = name.parse::<usize>() {
                    Placeholder::Position(i)
                } else {
                    Placeholder::Named(name)
                };
                let filled = value(placeholder).and_then(|f| written(&f, spec));
                match filled {
                    Some(v) => out.push_str(&v),
                    None if out.ends_with('*') => {}
                    None => out.push('*'),
                }
            }
            c => out.push(c),
        }
    }
    out
}

/// The text `format!` writes for `value` under the format spec `spec` (what follows the
/// `:` of a placeholder), or `None` where the reader does not write it.
fn written(value: &Filled, spec: &str) -> Option<String> {
    if spec.is_empty() {
        return Some(match value {
            Filled::Str(s) | Filled::Glob(s) => s.clone(),
            Filled::Int(v) => v.to_string(),
            Filled::Ints(vs) => {
                let all: Vec<String> = vs.iter().map(i128::to_string).collect();
                format!("{{{}}}", all.join(","))
            }
        });
    }
    let spec = FormatSpec::parse(spec)?;
    match value {
        Filled::Str(s) => spec.string(s),
        Filled::Int(v) => spec.integer(*v),
        Filled::Ints(vs) => {
            let all: Option<Vec<String>> = vs.iter().map(|v| spec.integer(*v)).collect();
            Some(format!("{{{}}}", all?.join(",")))
        }
        Filled::Glob(_) => None,
    }
}

/// A format spec `[[fill]align][sign]['#']['0'][width]['.' precision][type]` with its
/// width and precision written as numbers (`{:>4}`, `{:#06x}`, `{:.2}`).
struct FormatSpec {
    fill: char,
    /// `<`, `^` or `>`, when given.
    align: Option<char>,
    plus: bool,
    minus: bool,
    alternate: bool,
    zero: bool,
    width: usize,
    precision: Option<usize>,
    /// `""` (Display), `?`, `x`, `X`, `o`, `b`, `x?`, `X?`.
    kind: String,
}

/// The widest a spec's width or precision is taken (a name is never this long).
const MAX_FORMAT_WIDTH: usize = 4096;

impl FormatSpec {
    /// `None` for a spec this reader does not write: a width or precision given by an
    /// argument (`{:1$}`, `{:w$}`, `{:.*}`), or a type other than Display, Debug, hex, octal
    /// and binary.
    fn parse(spec: &str) -> Option<FormatSpec> {
        let chars: Vec<char> = spec.chars().collect();
        let mut i = 0;
        let is_align = |c: &char| matches!(c, '<' | '^' | '>');
        let (mut fill, mut align) = (' ', None);
        if chars.len() >= 2 && is_align(&chars[1]) {
            (fill, align) = (chars[0], Some(chars[1]));
            i = 2;
        } else if chars.first().is_some_and(is_align) {
            align = chars.first().copied();
            i = 1;
        }
        let mut flag = |c: char| {
            let hit = chars.get(i) == Some(&c);
            i += usize::from(hit);
            hit
        };
        let plus = flag('+');
        let minus = !plus && flag('-');
        let alternate = flag('#');
        let zero = flag('0');
        let number = |i: &mut usize| {
            let start = *i;
            while chars.get(*i).is_some_and(char::is_ascii_digit) {
                *i += 1;
            }
            let digits: String = chars[start..*i].iter().collect();
            (!digits.is_empty()).then(|| digits.parse::<usize>().ok())
        };
        let width = match number(&mut i) {
            Some(w) => w.filter(|w| *w <= MAX_FORMAT_WIDTH)?,
            None => 0,
        };
        let mut precision = None;
        if chars.get(i) == Some(&'.') {
            i += 1;
            precision = Some(number(&mut i)??).filter(|p| *p <= MAX_FORMAT_WIDTH);
            precision?;
        }
        let kind: String = chars[i..].iter().collect();
        matches!(
            kind.as_str(),
            "" | "?" | "x" | "X" | "o" | "b" | "x?" | "X?"
        )
        .then_some(FormatSpec {
            fill,
            align,
            plus,
            minus,
            alternate,
            zero,
            width,
            precision,
            kind,
        })
    }

    /// An integer as `format!` writes it; `None` for hex, octal or binary of a negative
    /// integer (its two's complement depends on the type).
    fn integer(&self, v: i128) -> Option<String> {
        let (radix, prefix) = match self.kind.trim_end_matches('?') {
            "" => (10, ""),
            "x" | "X" => (16, "0x"),
            "o" => (8, "0o"),
            _ => (2, "0b"),
        };
        if radix != 10 && v < 0 {
            return None;
        }
        let mut digits = match self.kind.trim_end_matches('?') {
            "x" => format!("{:x}", v.unsigned_abs()),
            "X" => format!("{:X}", v.unsigned_abs()),
            "o" => format!("{:o}", v.unsigned_abs()),
            "b" => format!("{:b}", v.unsigned_abs()),
            _ => v.unsigned_abs().to_string(),
        };
        let mut head = String::new();
        if v < 0 {
            head.push('-');
        } else if self.plus {
            head.push('+');
        }
        if self.alternate {
            head.push_str(prefix);
        }
        if self.zero {
            let len = head.len() + digits.len();
            let zeros = "0".repeat(self.width.saturating_sub(len));
            digits.insert_str(0, &zeros);
            return Some(head + &digits);
        }
        Some(self.pad(head + &digits, '>'))
    }

    /// A string as `format!` writes it (precision cuts it to that many characters);
    /// `None` for Debug (quoted, escaped), a type or a sign.
    fn string(&self, s: &str) -> Option<String> {
        if !self.kind.is_empty() || self.plus || self.minus || self.alternate {
            return None;
        }
        let cut: String = match self.precision {
            Some(p) => s.chars().take(p).collect(),
            None => s.to_owned(),
        };
        Some(self.pad(cut, '<'))
    }

    /// `text` padded with the fill to the width, aligned as given (else `default`).
    fn pad(&self, text: String, default: char) -> String {
        let missing = self.width.saturating_sub(text.chars().count());
        let fill = |n: usize| std::iter::repeat_n(self.fill, n).collect::<String>();
        match self.align.unwrap_or(default) {
            '<' => text + &fill(missing),
            '^' => fill(missing / 2) + &text + &fill(missing - missing / 2),
            _ => fill(missing) + &text,
        }
    }
}

/// Calls `f` on every expression of `block`, outermost first, in the order written (at
/// most [`MAX_DEPTH`] deep; patterns' literals and generic arguments are not visited).
pub fn visit_block(block: &Block, f: &mut dyn FnMut(&Expr)) {
    visit_block_at(block, f, 0);
}

/// Calls `f` on `e` and every expression in it, outermost first (as [`visit_block`]).
pub fn visit_expr(e: &Expr, f: &mut dyn FnMut(&Expr)) {
    visit_at(e, f, 0);
}

fn visit_block_at(block: &Block, f: &mut dyn FnMut(&Expr), depth: usize) {
    for s in &block.stmts {
        match s {
            Stmt::Let(l) => {
                l.init.iter().for_each(|e| visit_at(e, f, depth));
                if let Some(o) = &l.otherwise {
                    visit_block_at(o, f, depth);
                }
            }
            Stmt::Expr(e) => visit_at(e, f, depth),
            Stmt::Item(_) => {}
        }
    }
    block.tail.iter().for_each(|e| visit_at(e, f, depth));
}

fn visit_at(e: &Expr, f: &mut dyn FnMut(&Expr), depth: usize) {
    if depth > MAX_DEPTH {
        return;
    }
    f(e);
    let d = depth + 1;
    let each = |items: &[&Expr], f: &mut dyn FnMut(&Expr)| {
        for item in items {
            visit_at(item, f, d);
        }
    };
    match e {
        Expr::Int(..)
        | Expr::Bool(_)
        | Expr::Str(..)
        | Expr::Path(..)
        | Expr::Continue(_)
        | Expr::Diverge
        | Expr::Havoc(..)
        | Expr::Opaque(_)
        | Expr::Return(None)
        | Expr::Break(_, None) => {}
        Expr::Neg(x)
        | Expr::Not(x)
        | Expr::Cast(x, _)
        | Expr::Field(x, _)
        | Expr::Return(Some(x))
        | Expr::Break(_, Some(x))
        | Expr::Labeled(_, x)
        | Expr::Try(x)
        | Expr::Ref(x, _)
        | Expr::Spread(x)
        | Expr::Assert(x)
        | Expr::Closure(_, x) => each(&[x], f),
        Expr::Binary(_, a, b)
        | Expr::Compare(_, a, b)
        | Expr::And(a, b)
        | Expr::Or(a, b)
        | Expr::Assign(a, _, b) => each(&[a, b], f),
        Expr::Method(r, _, args) | Expr::MethodCall(r, _, args, _) => {
            each(&[r], f);
            each(&args.iter().collect::<Vec<_>>(), f);
        }
        Expr::Call(_, args, _) | Expr::Tuple(args) => each(&args.iter().collect::<Vec<_>>(), f),
        Expr::If(i) => {
            each(&[&i.condition], f);
            visit_block_at(&i.then, f, d);
            i.otherwise.iter().for_each(|o| visit_at(o, f, d));
        }
        Expr::Match(m) => {
            each(&[&m.scrutinee], f);
            for arm in &m.arms {
                arm.guard.iter().for_each(|g| visit_at(g, f, d));
                visit_at(&arm.body, f, d);
            }
        }
        Expr::Block(b) => visit_block_at(b, f, d),
        Expr::Struct(s) => {
            for (_, v, _) in &s.fields {
                visit_at(v, f, d);
            }
            s.rest.iter().for_each(|r| visit_at(r, f, d));
        }
        Expr::Loop(l) => {
            match &l.kind {
                LoopKind::While(c) | LoopKind::For(_, c) => each(&[c], f),
                LoopKind::Loop => {}
                LoopKind::Over(_, seq) => each(&seq.exprs(), f),
            }
            visit_block_at(&l.body, f, d);
        }
        Expr::Format(_, _, args) => {
            each(&args.positional.iter().collect::<Vec<_>>(), f);
            each(&args.named.iter().map(|(_, e)| e).collect::<Vec<_>>(), f);
        }
        Expr::CustLaunch(c) => {
            each(&[&c.grid, &c.block, &c.smem], f);
            each(&c.template_args.iter().collect::<Vec<_>>(), f);
        }
        Expr::Type(t) => each(&t.args.iter().collect::<Vec<_>>(), f),
        Expr::SizeOf(t, _) => each(&[t], f),
        Expr::OptIn(o) => each(&[&o.kernel, &o.bytes], f),
    }
}

/// `expr` as a person writes it, for messages: `TILE * 4`, `(n + 1).div_ceil(BLOCK)`.
pub fn text(expr: &Expr) -> String {
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
    let paren = |inner: String, p: u8| {
        if p < parent {
            format!("({inner})")
        } else {
            inner
        }
    };
    match expr {
        Expr::Int(v, _) => v.to_string(),
        Expr::Bool(b) => b.to_string(),
        Expr::Str(s, _) => format!("{s:?}"),
        Expr::Path(p, _) => p.text(),
        Expr::Neg(e) => format!("-{}", text_at(e, 12, d)),
        Expr::Not(e) => format!("!{}", text_at(e, 12, d)),
        Expr::Binary(op, l, r) => {
            let p = precedence(*op);
            paren(
                format!(
                    "{} {} {}",
                    text_at(l, p, d),
                    op.symbol(),
                    text_at(r, p + 1, d)
                ),
                p,
            )
        }
        Expr::Compare(op, l, r) => paren(
            format!(
                "{} {} {}",
                text_at(l, 4, d),
                comparison_symbol(*op),
                text_at(r, 4, d)
            ),
            3,
        ),
        Expr::And(l, r) => paren(format!("{} && {}", text_at(l, 2, d), text_at(r, 3, d)), 2),
        Expr::Or(l, r) => paren(format!("{} || {}", text_at(l, 1, d), text_at(r, 2, d)), 1),
        Expr::Cast(e, ty) => {
            let inner = format!("{} as {}", text_at(e, 11, d), ty.name());
            if parent > 11 {
                format!("({inner})")
            } else {
                inner
            }
        }
        Expr::Method(r, m, args) => match (m, r.as_ref(), args.as_slice()) {
            // `usize::min(1024, n)` as written.
            (Method::Min | Method::Max, Expr::Cast(a, ty), [b]) => {
                format!(
                    "{}::{}({}, {})",
                    ty.name(),
                    m.name(),
                    text_at(a, 0, d),
                    text_at(b, 0, d)
                )
            }
            _ => {
                let args: Vec<String> = args.iter().map(|a| text_at(a, 0, d)).collect();
                format!("{}.{}({})", text_at(r, 13, d), m.name(), args.join(", "))
            }
        },
        Expr::Call(p, args, _) => {
            let args: Vec<String> = args.iter().map(|a| text_at(a, 0, d)).collect();
            format!("{}({})", p.text(), args.join(", "))
        }
        Expr::MethodCall(r, name, args, _) => {
            let args: Vec<String> = args.iter().map(|a| text_at(a, 0, d)).collect();
            format!("{}.{name}({})", text_at(r, 13, d), args.join(", "))
        }
        Expr::Tuple(items) => {
            let items: Vec<String> = items.iter().map(|a| text_at(a, 0, d)).collect();
            format!("({})", items.join(", "))
        }
        Expr::Field(b, Field::Index(i)) => format!("{}.{i}", text_at(b, 13, d)),
        Expr::Field(b, Field::Named(n)) => format!("{}.{n}", text_at(b, 13, d)),
        Expr::If(_) => "if ..".to_owned(),
        Expr::Match(_) => "match ..".to_owned(),
        Expr::Block(_) => "{ .. }".to_owned(),
        Expr::Struct(s) => format!("{} {{ .. }}", s.name),
        Expr::Try(e) => format!("{}?", text_at(e, 13, d)),
        Expr::Ref(e, _) => text_at(e, parent, d),
        Expr::Spread(e) => format!("{}...", text_at(e, 13, d)),
        Expr::Format(glob, ..) => format!("format!({glob:?})"),
        Expr::Opaque(what) | Expr::Havoc(_, what) => what.clone(),
        Expr::Type(t) => {
            let mut out = t.name.clone();
            if !t.args.is_empty() {
                let args: Vec<String> = t.args.iter().map(|a| text_at(a, 0, d)).collect();
                out.push_str(&format!("<{}>", args.join(", ")));
            }
            out + &t.declarator
        }
        Expr::SizeOf(t, align) => format!(
            "{}({})",
            if *align { "alignof" } else { "sizeof" },
            text_at(t, 0, d)
        ),
        _ => "..".to_owned(),
    }
}
