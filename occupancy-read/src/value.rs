//! The abstract values the interpreter computes, and Rust's integer semantics on them.
//!
//! An integer ([`Int`]) is an [`AbstractInt`] (the one integer domain of the project:
//! exactly known, one of a few values, or an interval) with its Rust type, the run-time
//! inputs it depends on ([`SourceId`]s: a parameter, a call the reader does not follow),
//! and, when it is known and read from names, the [`Term`] the compiler evaluates to
//! confirm it. Arithmetic is Rust's checked arithmetic: a value that would overflow its
//! type is a panic, so it is not among the results; a known value that overflows is
//! [`Val::Unknown`] with the reason.
//!
//! A value that depends on a run-time set bound to a name (`let pad = n.next_power_of_two()`)
//! is a [`Val::Choice`]: one value per member of that set, so that everything computed from
//! it stays paired with the member it came from. Operations map over a choice's members;
//! values of two different choices are never combined here: the interpreter first splits
//! the path on one of them ([`crate::interp`]).

use std::rc::Rc;

use occupancy_core::abstract_int::{AbstractInt, Comparison, Truth};

use crate::ir::{At, Expr, Filled, IntTy, Method, Op};

/// A run-time input: an index into the interpreter's table of them (a parameter of the
/// wrapper, a call it does not follow, a `let` of a run-time value).
pub type SourceId = u32;

/// A run-time set bound to a name: an index into the interpreter's table of choices.
pub type ChoiceId = u32;

/// An expression the compiler evaluates to confirm a value read from names.
#[derive(Clone, Debug, PartialEq)]
pub struct Term {
    /// Valid in the wrapper's body (paths as written there, or from the crate root).
    pub expr: Expr,
    /// It names `Self` or a generic parameter: it can only be evaluated in the body (an
    /// inline `const { }`), not in an item.
    pub in_body: bool,
    /// The names read, with where each was found (`TILE` = 16 in src/consts.rs).
    pub names: Vec<String>,
    /// Where the name is written in the wrapper's body ([`At::NONE`] elsewhere).
    pub at: At,
    /// The value read.
    pub value: i128,
}

/// An integer.
#[derive(Clone, Debug, PartialEq)]
pub struct Int {
    /// Its possible values, within its type's range.
    pub set: AbstractInt,
    /// Its Rust type, when known.
    pub ty: Option<IntTy>,
    /// How the compiler confirms it: only for a known value read from names.
    pub term: Option<Rc<Term>>,
    /// The run-time inputs it depends on, sorted (empty: a constant).
    pub roots: Vec<SourceId>,
    /// It is exactly this input's value (so that a key's candidates can stand for it).
    pub source: Option<SourceId>,
    /// It is an input's value moved by literals (`n + 1`, `2 * n`, `(n - 4) as usize`): a
    /// comparison of it says what the input is.
    pub moved: Option<Rc<Moved>>,
}

/// An input's value moved by literals: see [`Int::moved`].
#[derive(Clone, Debug, PartialEq)]
pub struct Moved {
    /// The input.
    pub input: SourceId,
    /// The steps from it, first first (never empty).
    pub steps: Vec<Step>,
}

impl Int {
    /// Whether `self` and `other` are one run-time value known two ways: everything but
    /// the set the same, and it depends on an input (two known values are two values).
    pub fn same_run_time_value(&self, other: &Int) -> bool {
        !self.roots.is_empty()
            && self.roots == other.roots
            && self.source == other.source
            && self.moved == other.moved
            && self.ty == other.ty
            && self.term == other.term
    }

    /// The input this value is, moved by the steps returned (none: the input itself).
    pub fn moved_from(&self) -> Option<(SourceId, &[Step])> {
        match (&self.moved, self.source) {
            (Some(m), _) => Some((m.input, &m.steps)),
            (None, Some(s)) => Some((s, &[])),
            (None, None) => None,
        }
    }

    /// This value moved by `more`, where it is an input moved by literals.
    fn moved_by(&self, more: &[Step]) -> Option<Rc<Moved>> {
        let (input, steps) = self.moved_from()?;
        let mut steps = steps.to_vec();
        steps.extend_from_slice(more);
        Some(Rc::new(Moved { input, steps }))
    }
}

/// A value.
#[derive(Clone, Debug, PartialEq)]
pub enum Val {
    /// An integer.
    Int(Int),
    /// A boolean, `None` when not known.
    Bool(Option<bool>),
    /// A string (a kernel's name, a `format!` result).
    Str(String),
    /// A kernel function, as the body loads it.
    Kernel(Kernel),
    /// cudarc's launch builder (`stream.launch_builder(&f)`), with its kernel if known.
    Builder(Option<Kernel>),
    /// A tuple.
    Tuple(Vec<Val>),
    /// A struct value.
    Struct(Rc<StructVal>),
    /// A launch configuration.
    Config(Rc<ConfigVal>),
    /// One value per member of a run-time set bound to a name.
    Choice(ChoiceId, Rc<Vec<Val>>),
    /// A C++ type (a template's type argument, a `using` alias's value), as C++ spells it
    /// with the front end's aliases resolved: `float`, `__half`, `vec<float, 4>*`.
    Type(Rc<str>),
    /// `None`: an `Option` without a value (`Some(v)` is `v` itself: the reader follows what
    /// an `Option` holds, and tells the two apart only in patterns).
    Nothing,
    /// Not known, and why.
    Unknown(Unknown),
}

/// A value the reader does not know, and why.
#[derive(Clone, Debug, PartialEq)]
pub struct Unknown {
    /// Why it is not known.
    pub why: Rc<str>,
    /// The run-time inputs it depends on.
    pub roots: Vec<SourceId>,
    /// The input it is exactly the value of, if any.
    pub source: Option<SourceId>,
    /// Computing it panics (an overflow, a division by zero): no launch follows on a path
    /// that computes it.
    pub panic: bool,
}

/// A kernel loaded by name (`load_function("saxpy")`), or by a name built at run time
/// (`format!("affine_{}", ..)`: a glob).
#[derive(Clone, Debug, PartialEq)]
pub struct Kernel {
    /// The name, or the glob of a name built at run time.
    pub name: String,
    /// `name` is a glob.
    pub glob: bool,
    /// Where the name is written.
    pub at: At,
    /// For a name a `format!` filled in part from run-time integers: how to fill it again
    /// from what a later path knows of them.
    pub refill: Option<Rc<Refill>>,
    /// Its template arguments (C++'s `k<float, 64>`; empty for a kernel that is not a
    /// template); `None` where some is not known on the path.
    pub template_args: Option<Vec<crate::launches::TemplateArg>>,
}

/// A `format!` name with placeholders filled from run-time inputs
/// (`format!("{stem}{b_size}")` with `b_size` checked to be 1..=8): what a launch's path has
/// learnt of those inputs since the name was made (`match b_size { 2..=4 => .. }`) names
/// only the kernels that path can load (`stem{2,3,4}`).
#[derive(Clone, Debug, PartialEq)]
pub struct Refill {
    /// The format string.
    pub text: String,
    /// What each placeholder was filled with, in order.
    pub slots: Vec<Slot>,
}

/// What a placeholder of a [`Refill`] was filled with.
#[derive(Clone, Debug, PartialEq)]
pub enum Slot {
    /// A value the name has whatever the path (a string, a known integer).
    Text(Filled),
    /// A run-time integer: exactly the input `source`, which could be any of `set` then.
    Input {
        /// The input.
        source: SourceId,
        /// Its values when the name was made.
        set: AbstractInt,
    },
    /// An integer not known, and no input: `#` (digits, [`occupancy_spec::artifact::glob_match`]).
    Integer,
    /// Not known: `*`.
    Unknown,
}

/// The most names a [`Refill`] spells out as `{a,b,..}` groups; past it a placeholder is
/// `*` (the glob matcher's own bound is [`occupancy_spec::artifact::MAX_ALTERNATIVES`]).
pub const MAX_SPELLED_NAMES: usize = 64;

impl Refill {
    /// The name, each input's placeholder filled from `set_of` (its values on the path, or
    /// `None` to take those it had when the name was made): one value as its digits, a few
    /// as a `{a,b,..}` group, more as `#` (an integer's digits).
    pub fn fill(&self, mut set_of: impl FnMut(SourceId) -> Option<AbstractInt>) -> String {
        let sets: Vec<Option<AbstractInt>> = self
            .slots
            .iter()
            .map(|s| match s {
                Slot::Input { source, set } => Some(set_of(*source).unwrap_or_else(|| set.clone())),
                _ => None,
            })
            .collect();
        // Groups while their names, multiplied, stay few.
        let mut names = 1usize;
        let texts: Vec<Option<Filled>> = self
            .slots
            .iter()
            .zip(&sets)
            .map(|(slot, set)| match (slot, set) {
                (Slot::Text(t), _) => Some(t.clone()),
                (Slot::Input { .. }, Some(set)) => match set.members() {
                    Some([one]) => Some(Filled::Int(*one)),
                    Some(members) if names.saturating_mul(members.len()) <= MAX_SPELLED_NAMES => {
                        names *= members.len();
                        Some(Filled::Ints(members.to_vec()))
                    }
                    _ => Some(Filled::Glob("#".to_owned())),
                },
                (Slot::Integer, _) => Some(Filled::Glob("#".to_owned())),
                _ => None,
            })
            .collect();
        let mut next = texts.into_iter();
        crate::ir::fill_format(&self.text, |_| next.next().flatten())
    }
}

/// A struct value (`Tiling { threads, smem }`).
#[derive(Clone, Debug, PartialEq)]
pub struct StructVal {
    /// The struct's name.
    pub name: String,
    /// Its fields, in order.
    pub fields: Vec<(String, Val)>,
}

/// A launch configuration: `grid_dim`, `block_dim` (tuples of three), `shared_mem_bytes`.
#[derive(Clone, Debug, PartialEq)]
pub struct ConfigVal {
    /// `grid_dim` (a tuple of three).
    pub grid: Val,
    /// `block_dim` (a tuple of three).
    pub block: Val,
    /// `shared_mem_bytes`.
    pub smem: Val,
    /// What built it, innermost first: `a LaunchConfig { .. } literal`, cudarc's
    /// `for_num_elems`, a helper.
    pub origin: Vec<String>,
    /// Where its fields are written in the wrapper's body (the construction's span when not
    /// a literal there): block, smem, grid, the whole.
    pub at: [At; 4],
    /// The block's and the shared memory's expressions as written, for notes.
    pub texts: [Rc<str>; 2],
}

impl Val {
    /// A value not known, for the reason `why`.
    pub fn unknown(why: impl Into<Rc<str>>) -> Val {
        Val::Unknown(Unknown {
            why: why.into(),
            roots: Vec::new(),
            source: None,
            panic: false,
        })
    }

    /// What a panicking computation gives (Rust's checked arithmetic).
    pub fn panic(why: impl Into<Rc<str>>) -> Val {
        Val::Unknown(Unknown {
            why: why.into(),
            roots: Vec::new(),
            source: None,
            panic: true,
        })
    }

    /// Whether computing it panics.
    pub fn panics(&self) -> bool {
        matches!(self, Val::Unknown(u) if u.panic)
    }

    /// A known integer from literals.
    pub fn int(value: i128, ty: Option<IntTy>) -> Val {
        Val::Int(Int::known(value, ty, None))
    }

    /// The run-time inputs it depends on.
    pub fn roots(&self) -> Vec<SourceId> {
        let mut out = Vec::new();
        self.visit_roots(&mut out, 0);
        out.sort_unstable();
        out.dedup();
        out
    }

    fn visit_roots(&self, out: &mut Vec<SourceId>, depth: usize) {
        if depth > 32 {
            return;
        }
        match self {
            Val::Int(i) => out.extend(&i.roots),
            Val::Unknown(u) => out.extend(&u.roots),
            Val::Tuple(items) => items.iter().for_each(|v| v.visit_roots(out, depth + 1)),
            Val::Struct(s) => s
                .fields
                .iter()
                .for_each(|(_, v)| v.visit_roots(out, depth + 1)),
            Val::Config(c) => {
                for v in [&c.grid, &c.block, &c.smem] {
                    v.visit_roots(out, depth + 1);
                }
            }
            Val::Choice(_, vals) => vals.iter().for_each(|v| v.visit_roots(out, depth + 1)),
            Val::Bool(_)
            | Val::Str(_)
            | Val::Kernel(_)
            | Val::Builder(_)
            | Val::Type(_)
            | Val::Nothing => {}
        }
    }

    /// The choices it depends on, in order of first appearance.
    pub fn choices(&self, out: &mut Vec<ChoiceId>, depth: usize) {
        if depth > 32 {
            return;
        }
        match self {
            Val::Choice(c, vals) => {
                if !out.contains(c) {
                    out.push(*c);
                }
                vals.iter().for_each(|v| v.choices(out, depth + 1));
            }
            Val::Tuple(items) => items.iter().for_each(|v| v.choices(out, depth + 1)),
            Val::Struct(s) => s.fields.iter().for_each(|(_, v)| v.choices(out, depth + 1)),
            Val::Config(c) => {
                for v in [&c.grid, &c.block, &c.smem] {
                    v.choices(out, depth + 1);
                }
            }
            _ => {}
        }
    }

    /// The value with `choice` taken as its member `member` everywhere in it.
    pub fn fix(&self, choice: ChoiceId, member: usize) -> Val {
        self.fix_at(choice, member, 0)
    }

    fn fix_at(&self, choice: ChoiceId, member: usize, depth: usize) -> Val {
        if depth > 32 {
            return self.clone();
        }
        let d = depth + 1;
        match self {
            Val::Choice(c, vals) if *c == choice => vals.get(member).map_or_else(
                || Val::unknown("a member of a run-time set"),
                |v| v.fix_at(choice, member, d),
            ),
            Val::Choice(c, vals) => Val::Choice(
                *c,
                Rc::new(vals.iter().map(|v| v.fix_at(choice, member, d)).collect()),
            ),
            Val::Tuple(items) => {
                Val::Tuple(items.iter().map(|v| v.fix_at(choice, member, d)).collect())
            }
            Val::Struct(s) => Val::Struct(Rc::new(StructVal {
                name: s.name.clone(),
                fields: s
                    .fields
                    .iter()
                    .map(|(n, v)| (n.clone(), v.fix_at(choice, member, d)))
                    .collect(),
            })),
            Val::Config(c) => Val::Config(Rc::new(ConfigVal {
                grid: c.grid.fix_at(choice, member, d),
                block: c.block.fix_at(choice, member, d),
                smem: c.smem.fix_at(choice, member, d),
                origin: c.origin.clone(),
                at: c.at,
                texts: c.texts.clone(),
            })),
            other => other.clone(),
        }
    }

    /// `f` on the value, or on each member of a choice.
    pub fn map(self, f: &mut impl FnMut(Val) -> Val) -> Val {
        match self {
            Val::Choice(c, vals) => {
                Val::Choice(c, Rc::new(vals.iter().cloned().map(&mut *f).collect()))
            }
            other => f(other),
        }
    }

    /// `f` on two values, member by member where they are the same choice. Two different
    /// choices are never given (the interpreter splits the path first); if they are, the
    /// result is unknown rather than a pairing the code cannot make.
    pub fn map2(a: Val, b: Val, f: &mut impl FnMut(Val, Val) -> Val) -> Val {
        match (a, b) {
            (Val::Choice(c, xs), Val::Choice(d, ys)) if c == d => Val::Choice(
                c,
                Rc::new(
                    xs.iter()
                        .zip(ys.iter())
                        .map(|(x, y)| f(x.clone(), y.clone()))
                        .collect(),
                ),
            ),
            (Val::Choice(..), Val::Choice(..)) => {
                Val::unknown("two run-time sets combined (the reader splits them first)")
            }
            (Val::Choice(c, xs), y) => Val::Choice(
                c,
                Rc::new(xs.iter().map(|x| f(x.clone(), y.clone())).collect()),
            ),
            (x, Val::Choice(c, ys)) => Val::Choice(
                c,
                Rc::new(ys.iter().map(|y| f(x.clone(), y.clone())).collect()),
            ),
            (x, y) => f(x, y),
        }
    }

    /// Its truth, when it is a boolean.
    pub fn truth(&self) -> Truth {
        match self {
            Val::Bool(Some(true)) => Truth::Always,
            Val::Bool(Some(false)) => Truth::Never,
            _ => Truth::Sometimes,
        }
    }
}

impl Int {
    /// Exactly `value` (`term`: how the compiler confirms it, when read from names).
    pub fn known(value: i128, ty: Option<IntTy>, term: Option<Term>) -> Int {
        Int {
            set: AbstractInt::known(value),
            ty,
            term: term.map(Rc::new),
            roots: Vec::new(),
            source: None,
            moved: None,
        }
    }

    /// Any value of `ty` (of no known type: any integer), from the run-time input `source`.
    pub fn input(ty: Option<IntTy>, source: SourceId) -> Int {
        let set = match ty {
            Some(ty) => AbstractInt::range(Some(ty.min()), Some(ty.max())),
            None => AbstractInt::unknown(),
        };
        Int {
            set,
            ty,
            term: None,
            roots: vec![source],
            source: Some(source),
            moved: None,
        }
    }

    /// The value, when exactly known.
    pub fn value(&self) -> Option<i128> {
        self.set.known_value()
    }

    /// The run-time range of its type: nothing more is known of it than its type.
    pub fn is_type_range(&self) -> bool {
        match self.ty {
            Some(ty) => self.set.bounds() == (Some(ty.min()), Some(ty.max())),
            None => self.set.is_unknown(),
        }
    }
}

/// `a` and `b`'s roots, merged.
pub fn roots(a: &[SourceId], b: &[SourceId]) -> Vec<SourceId> {
    let mut out: Vec<SourceId> = a.iter().chain(b).copied().collect();
    out.sort_unstable();
    out.dedup();
    out
}

/// The expression that writes a known value back: its term, else the literal.
pub fn written(k: &Int) -> Option<Expr> {
    let value = k.value()?;
    Some(match &k.term {
        Some(t) => t.expr.clone(),
        None => Expr::Int(value, k.ty),
    })
}

/// The term of a value computed as `expr` from `parts` (`None` when all are literals).
fn term_of(parts: &[&Int], expr: Expr, value: i128) -> Option<Rc<Term>> {
    if parts.iter().all(|k| k.term.is_none()) {
        return None;
    }
    let mut names = Vec::new();
    let mut at = At::NONE;
    for k in parts {
        if let Some(t) = &k.term {
            if at.0 == At::NONE.0 {
                at = t.at;
            }
            for n in &t.names {
                if !names.contains(n) {
                    names.push(n.clone());
                }
            }
        }
    }
    Some(Rc::new(Term {
        expr,
        in_body: parts
            .iter()
            .any(|k| k.term.as_ref().is_some_and(|t| t.in_body)),
        names,
        at,
        value,
    }))
}

/// What an operation gives: the value, and the terms of the known operands whose
/// confirmation the result no longer carries (a known constant combined with a run-time
/// value: the interpreter records them as read on the path).
pub struct Outcome {
    /// The result.
    pub val: Val,
    /// The terms the result no longer carries.
    pub dropped: Vec<Rc<Term>>,
}

impl Outcome {
    fn of(val: Val) -> Outcome {
        Outcome {
            val,
            dropped: Vec::new(),
        }
    }
}

/// The result of an operation on known values or abstract ones: exact with a term when all
/// are known, else the abstract result within the type, the known operands' terms dropped.
fn finish(
    parts: &[&Int],
    ty: Option<IntTy>,
    set: AbstractInt,
    expr: Option<Expr>,
    what: impl FnOnce() -> String,
) -> Outcome {
    let roots = parts
        .iter()
        .fold(Vec::new(), |acc, p| roots(&acc, &p.roots));
    let within = match ty {
        Some(ty) => set.within(Some(ty.min()), Some(ty.max())),
        None => Some(set),
    };
    let all_known = parts.iter().all(|p| p.value().is_some());
    let Some(set) = within else {
        let why = match ty {
            Some(ty) => format!("{} overflows {}", what(), ty.name()),
            None => format!("{} overflows", what()),
        };
        return Outcome {
            val: Val::Unknown(Unknown {
                why: why.into(),
                roots,
                source: None,
                panic: true,
            }),
            dropped: dropped(parts),
        };
    };
    if all_known && set.known_value().is_some() {
        let value = set.known_value().unwrap_or_default();
        let term = expr.and_then(|e| term_of(parts, e, value));
        return Outcome::of(Val::Int(Int {
            set,
            ty,
            term,
            roots,
            source: None,
            moved: None,
        }));
    }
    Outcome {
        val: Val::Int(Int {
            set,
            ty,
            term: None,
            roots,
            source: None,
            moved: None,
        }),
        dropped: dropped(parts),
    }
}

fn dropped(parts: &[&Int]) -> Vec<Rc<Term>> {
    parts.iter().filter_map(|p| p.term.clone()).collect()
}

/// `-x`, `!x`.
pub fn unary(neg: bool, v: &Int) -> Outcome {
    let expr = written(v).map(|e| {
        if neg {
            Expr::Neg(Box::new(e))
        } else {
            Expr::Not(Box::new(e))
        }
    });
    let set = if neg {
        v.set.neg()
    } else {
        match (v.ty, v.set.members()) {
            (Some(ty), Some(members)) => AbstractInt::one_of(members.iter().map(|x| ty.wrap(!x)))
                .unwrap_or_else(AbstractInt::unknown),
            _ => AbstractInt::unknown(),
        }
    };
    if !neg && v.ty.is_none() {
        return Outcome {
            val: Val::unknown("`!` on an integer of unknown type"),
            dropped: dropped(&[v]),
        };
    }
    let symbol = if neg { "-" } else { "!" };
    let shown = v.value().map(|x| format!("`{symbol}{x}`"));
    let mut out = finish(&[v], v.ty, set, expr, || {
        shown.unwrap_or_else(|| format!("`{symbol}`"))
    });
    if neg && let Val::Int(i) = &mut out.val {
        i.moved = v.moved_by(&[Step::Neg]);
    }
    out
}

/// The integer rules of the language a front end lowers (rule 3 of docs/READING-CORE.md):
/// what an operation between two types does, and whether it may overflow.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Lang {
    /// Rust: both operands of one type (else "mismatched types"), checked arithmetic (an
    /// overflow panics: the path ends).
    #[default]
    Rust,
    /// C++ on LP64 (nvcc on Linux): the integer promotions and the usual arithmetic
    /// conversions (`int * size_t` is a `size_t`), unsigned arithmetic wrapping modulo
    /// 2^bits, a signed overflow undefined behaviour (no run makes it: the path ends, as
    /// Rust's panic does), and a value stored or passed converted to the type declared.
    Cpp,
}

impl Lang {
    /// The type an operand of type `ty` has in arithmetic: C++ promotes the types below
    /// `int` to `int` (`short`, `unsigned char`); Rust keeps it.
    pub fn promoted(self, ty: IntTy) -> IntTy {
        match (self, ty) {
            (Lang::Cpp, IntTy::I8 | IntTy::U8 | IntTy::I16 | IntTy::U16) => IntTy::I32,
            (Lang::Cpp, IntTy::Isize) => IntTy::I64,
            (Lang::Cpp, IntTy::Usize) => IntTy::U64,
            _ => ty,
        }
    }

    /// C++'s usual arithmetic conversions of two promoted operand types: the wider type;
    /// of two of one width, the unsigned one.
    pub fn common(self, a: IntTy, b: IntTy) -> IntTy {
        match a.bits().cmp(&b.bits()) {
            std::cmp::Ordering::Greater => a,
            std::cmp::Ordering::Less => b,
            std::cmp::Ordering::Equal if a.signed() => b,
            std::cmp::Ordering::Equal => a,
        }
    }
}

/// `a op b` under `lang`'s rules; `expected`: the type an untyped literal takes. Rust's is
/// [`binary`]. C++'s converts both operands to their common type (a shift: the left's
/// promoted type) and computes there, an unsigned result wrapping.
pub fn binary_in(lang: Lang, op: Op, l: &Int, r: &Int, expected: Option<IntTy>) -> Outcome {
    let (Lang::Cpp, Some(a), Some(b)) = (lang, l.ty, r.ty) else {
        return binary(op, l, r, expected);
    };
    let (a, b) = (lang.promoted(a), lang.promoted(b));
    let shift = matches!(op, Op::Shl | Op::Shr);
    let ty = if shift { a } else { lang.common(a, b) };
    let convert = |v: &Int, to: IntTy| -> Int {
        if v.ty == Some(to) {
            return v.clone();
        }
        match cast(v, to).val {
            Val::Int(i) => i,
            _ => v.clone(),
        }
    };
    let l = convert(l, ty);
    let r = if shift { convert(r, b) } else { convert(r, ty) };
    if op == Op::Shl
        && ty.signed()
        && let Some(out) = signed_shl(&l, &r, ty)
    {
        return out;
    }
    if ty.signed() || shift {
        return binary(op, &l, &r, Some(ty));
    }
    // Unsigned: computed without bounds, then reduced modulo 2^bits (`cast`), the
    // operands keeping what they are (an input moved stays moved where nothing wraps).
    let wide = |v: &Int| Int {
        ty: Some(IntTy::I128),
        ..v.clone()
    };
    let out = binary(op, &wide(&l), &wide(&r), Some(IntTy::I128));
    match out.val {
        Val::Int(i) => {
            let mut wrapped = cast(&i, ty);
            wrapped.dropped.extend(out.dropped);
            wrapped
        }
        other => Outcome {
            val: other,
            dropped: out.dropped,
        },
    }
}

/// C++17's `x << s` of a signed `x` of known members: `x * 2^s` where `x` is not
/// negative and the product fits the type's unsigned counterpart (converted back: `1 << 31`
/// is `INT_MIN`), else undefined behaviour, which no run makes: those members are dropped,
/// and with none left the path ends as on an overflow. `None`: not members (the caller's
/// rule).
fn signed_shl(l: &Int, r: &Int, ty: IntTy) -> Option<Outcome> {
    let (xs, ss) = (l.set.members()?, r.set.members()?);
    // (No C++ integer type of 128 bits: those keep the caller's rule.)
    let limit = 1i128.checked_shl(ty.bits()).filter(|_| ty.bits() < 127)? - 1;
    let defined: Vec<i128> = xs
        .iter()
        .flat_map(|&x| ss.iter().map(move |&s| (x, s)))
        .filter_map(|(x, s)| {
            let s = u32::try_from(s).ok().filter(|s| *s < ty.bits())?;
            let v = x
                .checked_shl(s)
                .filter(|v| x >= 0 && *v >> s == x && *v <= limit)?;
            Some(ty.wrap(v))
        })
        .collect();
    let Some(set) = AbstractInt::one_of(defined) else {
        return Some(Outcome {
            val: Val::panic(format!("`<<` of a {} overflows", ty.name())),
            dropped: dropped(&[l, r]),
        });
    };
    let expr = match (written(l), written(r)) {
        (Some(a), Some(b)) => Some(Expr::Binary(Op::Shl, Box::new(a), Box::new(b))),
        _ => None,
    };
    Some(finish(&[l, r], Some(ty), set, expr, || "`<<`".to_owned()))
}

/// `a op b` with Rust's checked semantics; `expected`: the type an untyped literal takes.
pub fn binary(op: Op, l: &Int, r: &Int, expected: Option<IntTy>) -> Outcome {
    let shift = matches!(op, Op::Shl | Op::Shr);
    let ty = if shift {
        l.ty.or(expected)
    } else {
        l.ty.or(r.ty).or(expected)
    };
    if !shift
        && let (Some(a), Some(b)) = (l.ty, r.ty)
        && a != b
    {
        return Outcome {
            val: Val::unknown(format!(
                "`{}` between a {} and a {} (mismatched types)",
                op.symbol(),
                a.name(),
                b.name()
            )),
            dropped: dropped(&[l, r]),
        };
    }
    let expr = match (written(l), written(r)) {
        (Some(a), Some(b)) => Some(Expr::Binary(op, Box::new(a), Box::new(b))),
        _ => None,
    };
    let shown = match (l.value(), r.value()) {
        (Some(x), Some(y)) => Some(format!("`{x} {} {y}`", op.symbol())),
        _ => None,
    };
    let what = || {
        shown
            .clone()
            .unwrap_or_else(|| format!("`{}`", op.symbol()))
    };
    let (a, b) = (&l.set, &r.set);
    if matches!(op, Op::Div | Op::Rem) && b.known_value() == Some(0) {
        return Outcome {
            val: Val::panic(if op == Op::Div {
                "division by zero"
            } else {
                "remainder by zero"
            }),
            dropped: dropped(&[l, r]),
        };
    }
    let set = match op {
        Op::Add => a.add(b),
        Op::Sub => a.sub(b),
        Op::Mul => a.mul(b),
        Op::Div => a.div(b),
        Op::Rem => a.rem(b),
        Op::Shl | Op::Shr => {
            let bits = ty.map_or(128, IntTy::bits);
            let Some(shift) = b.within(Some(0), Some(i128::from(bits) - 1)) else {
                return Outcome {
                    val: Val::panic(format!("{} overflows", what())),
                    dropped: dropped(&[l, r]),
                };
            };
            if op == Op::Shr {
                a.shr(&shift)
            } else {
                // Rust's `<<` drops the bits shifted out (no overflow check on them).
                match (a.members(), shift.members()) {
                    (Some(xs), Some(ss)) => AbstractInt::one_of(xs.iter().flat_map(|x| {
                        ss.iter().map(move |s| match ty {
                            Some(t) => t.wrap(x << s),
                            None => x.checked_shl(*s as u32).unwrap_or(0),
                        })
                    }))
                    .unwrap_or_else(AbstractInt::unknown),
                    _ => ty.map_or_else(AbstractInt::unknown, |t| {
                        AbstractInt::range(Some(t.min()), Some(t.max()))
                    }),
                }
            }
        }
        Op::BitAnd | Op::BitOr | Op::BitXor => match (a.members(), b.members()) {
            (Some(xs), Some(ys)) => AbstractInt::one_of(xs.iter().flat_map(|x| {
                ys.iter().map(move |y| match op {
                    Op::BitAnd => x & y,
                    Op::BitOr => x | y,
                    _ => x ^ y,
                })
            }))
            .unwrap_or_else(AbstractInt::unknown),
            _ => ty.map_or_else(AbstractInt::unknown, |t| {
                AbstractInt::range(Some(t.min()), Some(t.max()))
            }),
        },
    };
    // An input moved by a literal (`n + 1`, `n - 4`, `2 * n`) stays that input, moved.
    let steps = match (op, l.value(), r.value()) {
        (Op::Add, None, Some(k)) => Some((l, vec![Step::Plus(k)])),
        (Op::Add, Some(k), None) => Some((r, vec![Step::Plus(k)])),
        (Op::Sub, None, Some(k)) => k.checked_neg().map(|k| (l, vec![Step::Plus(k)])),
        (Op::Sub, Some(k), None) => Some((r, vec![Step::Neg, Step::Plus(k)])),
        (Op::Mul, None, Some(k)) if k >= 1 => Some((l, vec![Step::Times(k)])),
        (Op::Mul, Some(k), None) if k >= 1 => Some((r, vec![Step::Times(k)])),
        (Op::Div, None, Some(k)) if k >= 1 => Some((l, vec![Step::Div(k)])),
        _ => None,
    };
    let mut out = finish(&[l, r], ty, set, expr, what);
    if let Some((base, steps)) = steps
        && let Val::Int(i) = &mut out.val
    {
        i.moved = base.moved_by(&steps);
    }
    out
}

/// `v as ty`: Rust's truncation.
pub fn cast(v: &Int, ty: IntTy) -> Outcome {
    let expr = written(v).map(|e| Expr::Cast(Box::new(e), ty));
    let (lo, hi) = v.set.bounds();
    let set = match v.set.members() {
        Some(members) => AbstractInt::one_of(members.iter().map(|x| ty.wrap(*x)))
            .unwrap_or_else(AbstractInt::unknown),
        None if lo.is_some_and(|lo| lo >= ty.min()) && hi.is_some_and(|hi| hi <= ty.max()) => {
            v.set.clone()
        }
        None => match ty.wrap_range(lo, hi) {
            Some((lo, hi)) => AbstractInt::range(Some(lo), Some(hi)),
            None => AbstractInt::range(Some(ty.min()), Some(ty.max())),
        },
    };
    let mut out = finish(&[v], Some(ty), set, expr, String::new);
    // A lossless cast of an input is still that input (a key's candidates can stand for it);
    // another is the input moved and wrapped into the type.
    if let Val::Int(i) = &mut out.val {
        if i.set == v.set {
            i.source = v.source;
            i.moved = v.moved.clone();
        } else {
            i.moved = v.moved_by(&[Step::Wrap(ty)]);
        }
    }
    out
}

/// An integer method: `receiver.method(args)`.
pub fn method(method: Method, receiver: &Int, args: &[&Int]) -> Outcome {
    let ty = receiver.ty.or_else(|| args.iter().find_map(|a| a.ty));
    let expr = match (
        written(receiver),
        args.iter().map(|a| written(a)).collect::<Option<Vec<_>>>(),
    ) {
        (Some(r), Some(a)) => Some(Expr::Method(Box::new(r), method, a)),
        _ => None,
    };
    let mut parts: Vec<&Int> = vec![receiver];
    parts.extend(args.iter().copied());
    let fail = |why: &str| Outcome {
        val: Val::panic(why.to_owned()),
        dropped: dropped(&parts),
    };
    let x = &receiver.set;
    let arg = |i: usize| &args[i].set;
    let set = match method {
        Method::DivCeil => {
            if arg(0).known_value() == Some(0) {
                return fail("`div_ceil` by zero");
            }
            if x.bounds().1.is_some_and(|hi| hi < 0) || arg(0).bounds().1.is_some_and(|hi| hi < 0) {
                return fail("`div_ceil` of a negative number");
            }
            x.div_ceil(arg(0))
        }
        Method::Min => x.min(arg(0)),
        Method::Max => x.max(arg(0)),
        Method::Clamp => {
            let (lo, hi) = (arg(0), arg(1));
            if let (Some(lo), Some(hi)) = (lo.known_value(), hi.known_value())
                && lo > hi
            {
                return fail("`clamp` with min > max (a panic)");
            }
            x.max(lo).min(hi)
        }
        Method::NextPowerOfTwo => {
            if x.bounds().1.is_some_and(|hi| hi < 0) {
                return fail("`next_power_of_two` of a negative number");
            }
            // A value above the type's largest power of two has no next one (a panic).
            let largest = ty.map_or(1i128 << 126, |t| 1i128 << (t.bits().min(127) - 1));
            match x.within(Some(0), Some(largest)) {
                Some(x) => x.next_power_of_two(),
                None => return fail("`.next_power_of_two` overflows"),
            }
        }
        Method::Pow => match (x.members(), arg(0).members()) {
            (Some(xs), Some(es)) => {
                let values: Option<Vec<i128>> = xs
                    .iter()
                    .flat_map(|x| {
                        es.iter()
                            .map(move |e| u32::try_from(*e).ok().and_then(|e| x.checked_pow(e)))
                    })
                    .collect();
                match values.and_then(AbstractInt::one_of) {
                    Some(set) => set,
                    None => return fail("`.pow` overflows"),
                }
            }
            _ => ty.map_or_else(AbstractInt::unknown, |t| {
                AbstractInt::range(Some(t.min()), Some(t.max()))
            }),
        },
    };
    finish(&parts, ty, set, expr, || format!("`.{}`", method.name()))
}

/// Whether `a op b` holds.
pub fn compare(op: Comparison, a: &Int, b: &Int) -> Truth {
    a.set.compare(op, &b.set)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn k(v: i128, ty: IntTy) -> Int {
        Int::known(v, Some(ty), None)
    }

    fn int(o: Outcome) -> Int {
        match o.val {
            Val::Int(i) => i,
            other => panic!("{other:?}"),
        }
    }

    /// A conversion moves an interval that lies within one turn of the type's range by
    /// that turn (what C++ and Rust's `as` compute for each member); one over two turns is
    /// the whole range.
    #[test]
    fn a_conversion_moves_an_interval_within_one_turn() {
        use IntTy::*;
        let range = |lo: i128, hi: i128, ty| Int {
            set: AbstractInt::range(Some(lo), Some(hi)),
            ..k(0, ty)
        };
        let bounds = |i: &Int, ty| int(cast(i, ty)).set.bounds();
        let two64 = 1i128 << 64;
        // `(size_t)n` of an `int n` in -2^31..=-1: 2^64 - 2^31..=2^64 - 1.
        assert_eq!(
            bounds(&range(i32::MIN.into(), -1, I32), U64),
            (Some(two64 + i128::from(i32::MIN)), Some(two64 - 1))
        );
        // 5 times that, 2^66 - 5 * 2^31..=2^66 - 5, is still one turn: 2^64 - 5 * 2^31..
        assert_eq!(
            bounds(
                &range(4 * two64 + 5 * i128::from(i32::MIN), 4 * two64 - 5, I128),
                U64
            ),
            (Some(two64 + 5 * i128::from(i32::MIN)), Some(two64 - 5))
        );
        // `(unsigned char)x` of 256..=300 is 0..=44; of 200..=300, two turns, any byte.
        assert_eq!(bounds(&range(256, 300, I32), U8), (Some(0), Some(44)));
        assert_eq!(bounds(&range(200, 300, I32), U8), (Some(0), Some(255)));
        // `(int)x` of 2^31..=2^31 + 100 (signed: the turn starts at -2^31).
        let top = 1i128 << 31;
        assert_eq!(
            bounds(&range(top, top + 100, I64), I32),
            (Some(-top), Some(-top + 100))
        );
        // -100..=0 as a `u32` is 0 and 2^32 - 100..: two turns, the whole range.
        assert_eq!(
            bounds(&range(-100, 0, I32), U32),
            (Some(0), Some(u32::MAX.into()))
        );
    }

    /// C++'s usual arithmetic conversions and unsigned wrap-around, against what a C++
    /// compiler computes for each expression (LP64); Rust's rules for the same operands.
    #[test]
    fn cpp_converts_operands_and_wraps_unsigned_results() {
        use IntTy::*;
        let cpp = |op, a: Int, b: Int| int(binary_in(Lang::Cpp, op, &a, &b, None));
        let shown = |i: Int| (i.value(), i.ty);
        // `128 * sizeof(float)`: `int * size_t` is a `size_t`.
        assert_eq!(
            shown(cpp(Op::Mul, k(128, I32), k(4, U64))),
            (Some(512), Some(U64))
        );
        // `-1 + 0u`: the `int` converted to `unsigned`.
        assert_eq!(
            shown(cpp(Op::Add, k(-1, I32), k(0, U32))),
            (Some(4294967295), Some(U32))
        );
        // `0u - 1u` wraps; `0ul - 1` too, in 64 bits.
        assert_eq!(
            shown(cpp(Op::Sub, k(0, U32), k(1, U32))),
            (Some(4294967295), Some(U32))
        );
        assert_eq!(
            shown(cpp(Op::Sub, k(0, U64), k(1, I32))),
            (Some(u64::MAX.into()), Some(U64))
        );
        // `-5l + 3u`: a `long` holds every `unsigned`, so the sum is a `long`.
        assert_eq!(
            shown(cpp(Op::Add, k(-5, I64), k(3, U32))),
            (Some(-2), Some(I64))
        );
        // `(unsigned char)200 + (unsigned char)100`: both promoted to `int`.
        assert_eq!(
            shown(cpp(Op::Add, k(200, U8), k(100, U8))),
            (Some(300), Some(I32))
        );
        // `(short)1 << 20`: the left operand's promoted type.
        assert_eq!(
            shown(cpp(Op::Shl, k(1, I16), k(20, U64))),
            (Some(1 << 20), Some(I32))
        );
        // C++17's signed `<<`: `1 << 31` and `(1 << 30) << 1` are `INT_MIN` (the product
        // fits an `unsigned`); `INT_MIN << 1`, `-1 << 1` and `1 << 32` are undefined.
        assert_eq!(
            shown(cpp(Op::Shl, k(1, I32), k(31, I32))),
            (Some(i32::MIN.into()), Some(I32))
        );
        assert_eq!(
            shown(cpp(Op::Shl, k(1 << 30, I32), k(1, I32))),
            (Some(i32::MIN.into()), Some(I32))
        );
        for (x, s) in [(i128::from(i32::MIN), 1), (-1, 1), (1, 32), (3, 31)] {
            let ub = binary_in(Lang::Cpp, Op::Shl, &k(x, I32), &k(s, I32), None);
            assert!(ub.val.panics(), "{x} << {s}: {:?}", ub.val);
        }
        // `INT_MAX + 1` is undefined behaviour: no run makes it.
        let over = binary_in(
            Lang::Cpp,
            Op::Add,
            &k(i32::MAX.into(), I32),
            &k(1, I32),
            None,
        );
        assert!(over.val.panics(), "{:?}", over.val);
        // Rust: the same operands of two types are an error, not a conversion.
        let rust = binary_in(Lang::Rust, Op::Mul, &k(128, I32), &k(4, U64), None);
        assert!(matches!(rust.val, Val::Unknown(_)), "{:?}", rust.val);
        // A run-time `unsigned` plus one: the sum may wrap to 0, so it is any `unsigned`.
        let n = Int {
            set: AbstractInt::range(Some(0), Some(u32::MAX.into())),
            ..k(0, U32)
        };
        let sum = cpp(Op::Add, n, k(1, I32));
        assert_eq!(sum.set.bounds(), (Some(0), Some(u32::MAX.into())));
    }

    /// `moved_back` of a division gives exactly the values whose quotient (truncated
    /// towards zero) lies in the range, for ranges on both sides of zero.
    #[test]
    fn a_quotient_is_moved_back_to_exactly_its_dividends() {
        for k in [1i128, 2, 3, 4, 7] {
            for (lo, hi) in [(0, 0), (1, 3), (-3, -1), (-2, 2), (5, 5), (-4, 0)] {
                let back =
                    moved_back(&[Step::Div(k)], &AbstractInt::range(Some(lo), Some(hi))).unwrap();
                let dividends: Vec<i128> = (-60..=60)
                    .filter(|x| (lo..=hi).contains(&(x / k)))
                    .collect();
                assert_eq!(
                    back.bounds(),
                    (dividends.first().copied(), dividends.last().copied()),
                    "x / {k} in {lo}..={hi}"
                );
                // And forward: the quotients of those values are the range.
                let forward = moved(&[Step::Div(k)], &back).unwrap();
                assert_eq!(
                    forward.bounds(),
                    (Some(lo), Some(hi)),
                    "x / {k} in {lo}..={hi}"
                );
            }
        }
    }

    #[test]
    fn checked_arithmetic_drops_the_overflowing_values() {
        let n = Int::input(Some(IntTy::U32), 0);
        let pad = int(method(Method::NextPowerOfTwo, &n, &[]));
        assert_eq!(pad.set.members().map(<[i128]>::len), Some(32));
        let smem = int(binary(Op::Mul, &pad, &k(4, IntTy::U32), None));
        // 2^30 * 4 and 2^31 * 4 overflow u32: a panic, not a launch.
        assert_eq!(smem.set.members().map(<[i128]>::len), Some(30));
        assert_eq!(smem.roots, [0]);
        let Val::Unknown(u) = binary(
            Op::Mul,
            &k(4_000_000_000, IntTy::U32),
            &k(2, IntTy::U32),
            None,
        )
        .val
        else {
            panic!()
        };
        assert_eq!(&*u.why, "`4000000000 * 2` overflows u32");
    }

    #[test]
    fn casts_truncate_and_keep_their_input() {
        let n = Int::input(Some(IntTy::U16), 3);
        let wide = int(cast(&n, IntTy::U64));
        assert_eq!(wide.source, Some(3));
        let narrow = int(cast(&Int::input(Some(IntTy::U64), 4), IntTy::U8));
        assert_eq!(narrow.set.bounds(), (Some(0), Some(255)));
        assert_eq!(narrow.source, None);
        assert_eq!(int(cast(&k(300, IntTy::U32), IntTy::U8)).value(), Some(44));
    }
}

/// One step from a caller's name to the argument a helper is given.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Step {
    /// `+ k` (`- k` is `+ -k`).
    Plus(i128),
    /// `* k`, `k` at least 1.
    Times(i128),
    /// `/ k`, `k` at least 1 (truncated towards zero, as Rust and C++ divide).
    Div(i128),
    /// `-x` (`10 - n` is `-n` then `+ 10`).
    Neg,
    /// `as ty`: the value as it is where the caller's values all fit `ty` (checked at the
    /// call, [`moved`]).
    Cast(IntTy),
    /// Converted to `ty` where the values need not fit: modulo 2^bits into its range
    /// (Rust's `as`, C++'s conversion to the type of a variable). Not undone
    /// ([`moved_back`]): a range of the result says nothing exact of the input.
    Wrap(IntTy),
}

/// What an expression moving a name by `steps` gives where the name is `set`; `None`
/// where a cast changes a value of it (`n as u8` of an `n` up to 1000).
pub fn moved(steps: &[Step], set: &AbstractInt) -> Option<AbstractInt> {
    let mut set = set.clone();
    for step in steps {
        set = match *step {
            Step::Plus(k) => set.add(&AbstractInt::known(k)),
            Step::Times(k) => set.mul(&AbstractInt::known(k)),
            Step::Div(k) => set.div(&AbstractInt::known(k)),
            Step::Neg => set.neg(),
            Step::Cast(ty) => match set.bounds() {
                (Some(lo), Some(hi)) if ty.min() <= lo && hi <= ty.max() => set,
                _ => return None,
            },
            Step::Wrap(ty) => match (set.members(), set.bounds()) {
                (_, (Some(lo), Some(hi))) if ty.min() <= lo && hi <= ty.max() => set,
                (Some(members), _) => AbstractInt::one_of(members.iter().map(|x| ty.wrap(*x)))?,
                (_, (lo, hi)) => match ty.wrap_range(lo, hi) {
                    Some((lo, hi)) => AbstractInt::range(Some(lo), Some(hi)),
                    None => AbstractInt::range(Some(ty.min()), Some(ty.max())),
                },
            },
        };
    }
    Some(set)
}

/// `step` taken from the value `x`; `None` where it leaves `i128` or a cast changes `x`.
pub fn step_at(step: Step, x: i128) -> Option<i128> {
    match step {
        Step::Plus(k) => x.checked_add(k),
        Step::Times(k) => x.checked_mul(k),
        // Truncated towards zero, as Rust and C++ divide (`k` is at least 1).
        Step::Div(k) => x.checked_div(k),
        Step::Neg => x.checked_neg(),
        Step::Cast(ty) => (ty.min() <= x && x <= ty.max()).then_some(x),
        Step::Wrap(ty) => Some(ty.wrap(x)),
    }
}

/// The name's values whose moved value (by `steps`) lies in `narrowed`: the steps undone,
/// last first, as bounds or members.
pub fn moved_back(steps: &[Step], narrowed: &AbstractInt) -> Option<AbstractInt> {
    let mut set = narrowed.clone();
    for step in steps.iter().rev() {
        set = match *step {
            Step::Plus(k) => set.sub(&AbstractInt::known(k)),
            Step::Cast(_) => set,
            Step::Wrap(_) => return None,
            Step::Neg => set.neg(),
            Step::Div(k) => {
                // `x / k` in `lo..=hi`: `x` from the first value whose quotient is `lo` to
                // the last whose quotient is `hi` (a quotient of 0 takes `-(k - 1)..=k - 1`).
                let (lo, hi) = set.bounds();
                let first = |q: i128| {
                    let base = q.checked_mul(k)?;
                    if q > 0 {
                        Some(base)
                    } else {
                        base.checked_sub(k - 1)
                    }
                };
                let last = |q: i128| {
                    let base = q.checked_mul(k)?;
                    if q < 0 {
                        Some(base)
                    } else {
                        base.checked_add(k - 1)
                    }
                };
                let lo = match lo {
                    Some(q) => Some(first(q)?),
                    None => None,
                };
                let hi = match hi {
                    Some(q) => Some(last(q)?),
                    None => None,
                };
                AbstractInt::range(lo, hi)
            }
            Step::Times(k) => match set.members() {
                Some(members) => {
                    AbstractInt::one_of(members.iter().filter(|m| *m % k == 0).map(|m| m / k))?
                }
                None => {
                    let (lo, hi) = set.bounds();
                    AbstractInt::range(
                        lo.map(|lo| lo.div_euclid(k) + i128::from(lo.rem_euclid(k) != 0)),
                        hi.map(|hi| hi.div_euclid(k)),
                    )
                }
            },
        };
    }
    Some(set)
}
