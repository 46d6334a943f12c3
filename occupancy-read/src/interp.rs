//! The interpreter: the wrapper's body (and the helpers and `const fn`s it calls, and the
//! constants it names) run over abstract values, one path at a time.
//!
//! A [`Path`] is one way through the code: its bindings (a stack of call frames), what its
//! conditions decided (`Fact`s, so that the same condition twice is the same choice), the
//! members of run-time sets it has fixed or excluded, and the names it read. `if` and
//! `match` split a path where their condition is not decided, refining the variables the
//! condition compares (`n < 1024` makes `n` at most 1023 on the `then` path); a run-time
//! set bound to a name is a [`Val::Choice`], split only where a condition or a value of
//! another set needs one member. A launch is recorded with the path that makes it: its
//! configuration, its kernel, the members of the sets it depends on.
//!
//! Everything is bounded: paths by the rules both readers share
//! ([`occupancy_core::read::paths::settle`] after each construct: the same state merged;
//! past [`MAX_PATHS`], the rest folded into one path whose launches are not read, and an
//! error on the construct that split them), steps (an
//! [`occupancy_core::read::budget::Budget`] of `MAX_STEPS`), nesting (`MAX_NESTING`),
//! calls (`MAX_CALLS`, recursion), loops (`occupancy_core::abstract_int::loop_exits`:
//! 4096 values).

mod witness;

use std::borrow::Cow;
use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use occupancy_core::abstract_int::{AbstractInt, Comparison, Truth, loop_exits};
use occupancy_core::read::budget::Budget;
use occupancy_core::read::paths::{self, Overflow, PathState};
use occupancy_core::read::refine;

use self::witness::Probe;
use crate::apis;
use crate::ir::{
    self, At, Block, Expr, Field, IntTy, Loop, LoopKind, Match, Method, Op, Pat, Path as IrPath,
    Seq, Stmt, StructLit, TypeExpr,
};
use crate::names::{self, ConstDef, Def, FnDef, Generic, ModuleId, Names, Place, Returns};
use crate::shared::Shared;
use crate::value::{
    self, ChoiceId, ConfigVal, Int, Kernel, Refill, Slot, SourceId, Step, StructVal, Term, Unknown,
    Val, moved, moved_back,
};

/// The most paths followed at once, the bound both readers share; past it, the rest are
/// folded ([`paths::settle`]) and the construct that split them is an error.
pub const MAX_PATHS: usize = paths::MAX_PATHS;

/// Expression nodes one expansion may evaluate.
pub const MAX_STEPS: usize = 200_000;

/// The most iterations of `for` loops over known values run one by one, nested loops'
/// multiplied (the interpreter's `stepped`): the C++ reader's bound on a counted loop's.
pub const MAX_STEPPED: usize = 64;

/// The deepest nesting of evaluation (expressions within expressions, calls within calls).
const MAX_NESTING: usize = 160;

/// The deepest nesting of calls and of names defined by names. With [`MAX_NESTING`], sized
/// so that a debug build reads within 4 MiB of stack (measured on `bad_input_is_bounded`
/// of tests/reader.rs; 2 MiB overflows), half of the 8 MiB of rustc's thread that runs
/// proc macros.
const MAX_CALLS: usize = 48;

/// Methods whose result is their receiver's value as far as the reader is concerned.
const TRANSPARENT_METHODS: &[&str] = &[
    "unwrap",
    "expect",
    "clone",
    "to_owned",
    "copied",
    "cloned",
    "as_ref",
    "borrow",
    "into",
    "try_into",
    "unwrap_or_default",
];

/// The name a launch's configuration argument is bound to (`cfg`, `&cfg`), for its label.
fn config_name(arg: Option<&Expr>) -> Option<String> {
    match arg? {
        Expr::Ref(e, _) => config_name(Some(e)),
        Expr::Path(p, _) => p.single().map(str::to_owned),
        _ => None,
    }
}

/// Whether `method`, called on an integer, only reads it (`&self` or `self` by value): the
/// standard library's integer methods the reader does not compute. Any other method may
/// take `&mut self` and change it.
fn reads_only(method: &str) -> bool {
    const READS: &[&str] = &[
        "count_ones",
        "count_zeros",
        "leading_zeros",
        "trailing_zeros",
        "leading_ones",
        "trailing_ones",
        "pow",
        "abs",
        "signum",
        "abs_diff",
        "unsigned_abs",
        "ilog",
        "ilog2",
        "ilog10",
        "isqrt",
        "rem_euclid",
        "div_euclid",
        "rotate_left",
        "rotate_right",
        "swap_bytes",
        "reverse_bits",
        "cmp",
        "partial_cmp",
        "eq",
        "ne",
        "lt",
        "le",
        "gt",
        "ge",
        "hash",
        "fmt",
    ];
    READS.contains(&method)
        || [
            "checked_",
            "saturating_",
            "wrapping_",
            "overflowing_",
            "to_",
            "is_",
            "as_",
        ]
        .iter()
        .any(|prefix| method.starts_with(prefix))
}

/// How names read are written back for the compiler to confirm them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Terms {
    /// No terms (a constant's definition, a `const fn` with known arguments: the name or
    /// call that led there is confirmed instead).
    Off,
    /// As written: the expression is in the wrapper (its attribute or body).
    AsWritten,
    /// From the crate root: the expression is in a helper the wrapper calls.
    FromRoot,
}

/// A run-time input.
pub struct SourceInfo {
    /// Why it is not known: "`n` is a parameter of the wrapper, a run-time value".
    pub what: String,
    /// Where it is bound, stable from one run to the next (for the attribute's candidates).
    pub key: SourceKey,
    /// The input it is a copy of (`let m = n;`): the same value, so a comparison that
    /// narrows one narrows the other.
    pub copy_of: Option<SourceId>,
    /// The input it is moved from by known values (`let tiles = (n + 15) / 16;`): a
    /// function of that input alone (what the reader's witnesses of conditions try).
    pub moves: Option<SourceId>,
}

/// A binding's identity across runs of the interpreter: its name and where it is bound.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct SourceKey {
    /// The name bound.
    pub name: String,
    /// Where it is bound: the index of its location in the body (stable across runs).
    pub at: u32,
}

/// A run-time set bound to a name.
pub struct ChoiceInfo {
    /// Its members, sorted.
    pub members: Vec<i128>,
    /// The name it is bound to, and the expression it comes from (for notes).
    pub name: String,
    /// The expression the set comes from, as written.
    pub text: String,
    /// The run-time inputs it depends on.
    pub roots: Vec<SourceId>,
    /// How to compute it again when a condition later narrows one of its inputs.
    recompute: Option<Recompute>,
    /// How many frames deep it was bound (0: never named again): a binding in a caller
    /// names it anew ([`Interp::named_value`]).
    depth: usize,
    /// Each member is on a path of its own, refined by what the member says of the inputs
    /// (a loop's exits, `Interp::refined_exits`): the member names the path's launches,
    /// though the path allows no other.
    pub on_own_paths: bool,
}

struct Recompute {
    expr: Expr,
    frame: Frame,
}

/// A helper the wrapper calls, read from the crate's sources: the compiler checks that the
/// function read is the function called.
#[derive(Clone, Debug, PartialEq)]
pub struct HelperRead {
    /// The call's path as written in the wrapper.
    pub written: IrPath,
    /// The function read, from the crate root.
    pub read: IrPath,
    /// Where the call is written.
    pub at: At,
}

/// A launch one path makes.
pub struct LaunchRec {
    /// The configuration (a [`Val::Config`], or unknown).
    pub config: Val,
    /// The kernel it launches, when the path names it.
    pub kernel: Option<Kernel>,
    /// Which members of each run-time set the path allows, for the sets in `config`.
    pub masks: Vec<(ChoiceId, u64)>,
    /// The sets this path took one member of (to combine it with another set, or where a
    /// condition decided one member), with the member (its index).
    pub fixed: Vec<(ChoiceId, usize)>,
    /// Sets whose inputs a later condition narrowed without the reader being able to
    /// follow (their members may not all be possible on this path).
    pub stale: Vec<ChoiceId>,
    /// Names read that decided the path or that the values no longer carry.
    pub reads: Vec<Rc<Term>>,
    /// Helpers the path called, each confirmed by the compiler.
    pub helpers: Vec<HelperRead>,
    /// The name the configuration is bound to (`cfg`), if any.
    pub name: Option<String>,
    /// Where the launch is: the call or the construction.
    pub at: At,
    /// Why the path that makes it may be one no run of the code takes, when it may: the
    /// launch is then not checked (two conditions on one run-time input, one of which the
    /// reader could not apply to the input's values), with the splits of the conditions it
    /// could not apply (the numbers the reader gives each condition where it splits paths).
    pub uncertain: Option<(Rc<str>, Vec<u32>)>,
    /// The splits of the first conflict of its path that a witness resolved (values of the
    /// inputs found that take every way the path went; empty: none): where a later one
    /// makes it uncertain, the launch is the code's too where it would be by these splits
    /// (a reading that stopped at the first conflict, as before witnesses, judged it by
    /// them).
    pub witnessed_splits: Vec<u32>,
    /// The ways the conditions on run-time inputs went on its path: (split, holds).
    pub ways: Vec<(u32, bool)>,
    /// Those conditions as a launch's messages name them, in order (`n < 256`,
    /// `!(head_dim == 64)`, `dtype == 2`).
    pub conditions: Vec<String>,
    /// The dynamic shared memory opt-in made for its kernel before it on the path, bytes.
    pub opt_in: Option<Int>,
    /// Made on the fold of the paths past the bound ([`MAX_PATHS`]): its values are united
    /// from several paths, never one launch, so it is not read; why. It says that the
    /// launch site has launches the reading does not list.
    pub folded: Option<Rc<str>>,
}

/// What the interpreter recognises as launches.
pub struct Mode {
    /// The body calls a launch method: only what it passes to one is a launch. Otherwise
    /// every configuration the body builds is one.
    pub launch_calls: bool,
    /// Names used as the `..base` of a `LaunchConfig` literal (not launches themselves).
    pub base_names: Vec<String>,
    /// The attribute's candidates for run-time values: what each input takes instead of
    /// its whole range (a second run, once the first has found which inputs they stand for).
    pub assume: Vec<(SourceKey, Vec<i128>, String)>,
    /// Crate functions that launch the configuration one parameter gives (`fn
    /// launch_with(f: &CudaFunction, cfg: LaunchConfig)`): (name, that parameter's index).
    /// A call of one in the wrapper is a launch call, of what it passes there, with the
    /// kernel it passes (`cargo occupancy report` reads a caller so, for each such call).
    pub launch_helpers: Vec<(String, usize)>,
    /// `<<<...>>>` launches are recorded in every function the wrapper calls, not only in
    /// its own body: a C++ root's launches are often in the templates it calls (a Rust
    /// wrapper's helpers launch for their own wrappers).
    pub chevrons_in_callees: bool,
    /// The integer rules of the language the body is lowered from.
    pub lang: value::Lang,
}

impl Mode {
    /// The same mode without the attribute's candidates (the first reading).
    pub fn clone_without_assumptions(&self) -> Mode {
        Mode {
            launch_calls: self.launch_calls,
            base_names: self.base_names.clone(),
            assume: Vec::new(),
            launch_helpers: self.launch_helpers.clone(),
            chevrons_in_callees: self.chevrons_in_callees,
            lang: self.lang,
        }
    }
}

/// A binding.
#[derive(Clone, Debug)]
struct Binding {
    name: Rc<str>,
    val: Val,
    version: u32,
    /// A configuration built by the wrapper and not launched yet (recorded when its name
    /// goes out of scope, when the body calls no launch method).
    pending: Option<At>,
}

/// A call frame.
#[derive(Clone, Debug)]
struct Frame {
    place: Place,
    terms: Terms,
    env: Shared<Vec<Binding>>,
    /// The wrapper's own frame: configurations built here may be launches.
    wrapper: bool,
    /// Blocks entered in this frame (1: the function's own block).
    blocks: usize,
}

impl Frame {
    /// The binding of `name` made as `version` (not a later one of the same name).
    fn binding(&self, name: &str, version: u32) -> Option<&Binding> {
        self.env
            .iter()
            .find(|b| b.version == version && &*b.name == name)
    }

    fn binding_mut(&mut self, name: &str, version: u32) -> Option<&mut Binding> {
        self.env
            .iter_mut()
            .find(|b| b.version == version && &*b.name == name)
    }
}

/// What a path's next step is.
#[derive(Clone, Debug, PartialEq)]
enum Flow {
    Normal,
    Return(Box<Val>),
    /// `break`, with its label (`None`: the innermost loop's) and its value.
    Break(Option<String>, Box<Val>),
    /// `continue`, with its label.
    Continue(Option<String>),
    /// A panic, `unreachable!()`, a failed `assert!`: the path ends with no launch.
    Diverged,
}

/// What a condition decided on a path.
#[derive(Clone, Debug, PartialEq)]
struct Fact {
    frame: usize,
    expr: Expr,
    versions: Vec<(Rc<str>, u32)>,
    kind: FactKind,
}

/// A parameter of a called helper given a name of the caller as it is (`block_for(big)`),
/// or moved by literals (`block_for(n + 1)`, `block_for(n as usize)`, `block_for(2 * n)`).
struct Alias {
    param: Rc<str>,
    /// The argument as written (`big`, `n + 1`).
    arg: Expr,
    /// The caller's binding and its version at the call.
    caller: (Rc<str>, u32),
    /// What the argument does to the caller's value, in order (empty: the name as it is).
    steps: Vec<Step>,
}

/// The integer type of an operand where it is written plainly: a name bound to an integer
/// of known type, a typed literal, a cast, `sizeof` (a `size_t`); `None` otherwise.
fn operand_ty(e: &Expr, path: &Path) -> Option<IntTy> {
    match e {
        Expr::Path(written, _) => match path.lookup(written.single()?).map(|b| &b.val) {
            Some(Val::Int(i)) => i.ty,
            _ => None,
        },
        Expr::Int(_, ty) => *ty,
        Expr::Cast(_, ty) => Some(*ty),
        Expr::SizeOf(..) => Some(IntTy::Usize),
        _ => None,
    }
}

/// The caller's name an argument moves by literals (`n + 1`, `2 * n`, `(n - 4) as usize`)
/// and the steps from it, innermost first; `None` for any other argument.
fn alias_steps(arg: &Expr) -> Option<(&str, Vec<Step>)> {
    let literal = |e: &Expr| match e {
        Expr::Int(k, _) => Some(*k),
        _ => None,
    };
    let (name, mut steps, step) = match arg {
        Expr::Path(written, _) => return Some((written.single()?, Vec::new())),
        Expr::Cast(inner, ty) => {
            let (name, steps) = alias_steps(inner)?;
            (name, steps, Step::Cast(*ty))
        }
        Expr::Binary(op, l, r) => {
            let (inner, k) = match (literal(l), literal(r)) {
                (None, Some(k)) => (&**l, k),
                (Some(k), None) if matches!(op, Op::Add | Op::Mul) => (&**r, k),
                _ => return None,
            };
            let step = match op {
                Op::Add => Step::Plus(k),
                Op::Sub => Step::Plus(k.checked_neg()?),
                Op::Mul if k >= 1 => Step::Times(k),
                Op::Div if k >= 1 => Step::Div(k),
                _ => return None,
            };
            let (name, steps) = alias_steps(inner)?;
            (name, steps, step)
        }
        _ => return None,
    };
    steps.push(step);
    Some((name, steps))
}

/// Binds a helper's aliased parameters (`block_for(big)`) to the caller's names, `path`'s
/// top frame being the helper's with its parameters bound: what the caller's conditions
/// decided about an aliased name (an earlier helper's `if big`) is the helper's about its
/// parameter. Returns each aliased parameter's binding as bound (name, version): a fact
/// about a later one (`let big = !big;`) is not the caller's.
fn enter_aliases(path: &mut Path, aliases: &[Alias]) -> Vec<Option<(Rc<str>, u32)>> {
    let callee = path.frames.len();
    let bound: Vec<Option<(Rc<str>, u32)>> = aliases
        .iter()
        .map(|a| path.lookup(&a.param).map(|b| (b.name.clone(), b.version)))
        .collect();
    let inherited: Vec<Fact> = aliases
        .iter()
        .zip(&bound)
        .filter_map(|(a, param)| {
            let param = param.clone()?;
            Some(
                path.facts
                    .iter()
                    .filter(|f| {
                        f.frame == callee - 1
                            && f.expr == a.arg
                            && f.versions.as_slice() == std::slice::from_ref(&a.caller)
                    })
                    .map(|f| Fact {
                        frame: callee,
                        expr: Expr::Path(
                            IrPath {
                                leading_colon: false,
                                segments: vec![ir::Segment {
                                    ident: a.param.to_string(),
                                    args: Vec::new(),
                                }],
                            },
                            At::NONE,
                        ),
                        versions: vec![param.clone()],
                        kind: f.kind.clone(),
                    })
                    .collect::<Vec<_>>(),
            )
        })
        .flatten()
        .collect();
    path.facts.extend(inherited);
    bound
}

/// Whether `v` is a known integer or a tuple of known integers (a grid the lints read).
fn known_dims(v: &Val) -> bool {
    match v {
        Val::Tuple(items) => items
            .iter()
            .all(|i| matches!(i, Val::Int(i) if i.value().is_some())),
        Val::Int(i) => i.value().is_some(),
        _ => false,
    }
}

/// The values of `set` outside `excluded` (what a pattern that did not match leaves): the
/// members not in it, or the range beyond it where it covers one end of `set`'s bounds;
/// `None` where that is not one range (`set` as it is is then right) or nothing is left.
fn rest(set: &AbstractInt, excluded: &AbstractInt) -> Option<AbstractInt> {
    if let Some(members) = set.members() {
        return AbstractInt::one_of(members.iter().copied().filter(|&m| !excluded.contains(m)));
    }
    let (lo, hi) = excluded.bounds();
    let (a, b) = set.bounds();
    let covers_low = lo.is_none_or(|lo| a.is_some_and(|a| lo <= a));
    let covers_high = hi.is_none_or(|hi| b.is_some_and(|b| hi >= b));
    match (covers_low, covers_high) {
        (true, false) => set.within(hi?.checked_add(1), None),
        (false, true) => set.within(None, lo?.checked_sub(1)),
        _ => None,
    }
}

/// One way a condition on run-time inputs went on a path: what later conditions on the
/// same inputs are checked against ([`Interp::decide`]).
#[derive(Clone, Debug, PartialEq)]
struct Decision {
    /// The split it is one way of (both ways share it; a path that joins both drops it).
    split: u32,
    /// The splits that test one value in turn (the arms of one `match`), never related to
    /// each other: its own split elsewhere.
    group: u32,
    /// Which way.
    holds: bool,
    /// The inputs the condition depends on (each copy's original).
    roots: Vec<SourceId>,
    /// The path's values do not hold all the condition said of those inputs (`small(n)` of
    /// a function not read, `n * 3 == 256`): a later condition on one of them may go a way
    /// no value of this path takes.
    blurred: bool,
    /// For a match on a value other than an integer, decided by its facts ([`FactKind`]):
    /// the scrutinee and the versions it read. Only a match on the same is related to it.
    facts_of: Option<Rc<str>>,
    /// It excludes one value of a whole input and nothing else (`c == 1` that does not
    /// hold): blurred only because a range cannot show the hole.
    excludes: bool,
    /// A blurred comparison, to decide again from the path's later values ([`Interp::blurred_now`]):
    /// the condition, the depth of the frame it was made in and the bindings it read.
    recheck: Option<Rc<Recheck>>,
    /// The condition as written, without its opening backtick (`` n < 256` ``, `` n < 100`
    /// (in `block_for_u8`) ``: [`Interp::condition_text`]).
    text: Rc<str>,
    /// A comparison of one input's values, to try at concrete values of it ([`Probe`]).
    probe: Option<Rc<Probe>>,
    /// How a launch's conditions name this way, where `text` does not say it (an arm of a
    /// `match` or `switch` matched: `dtype == 2`); an arm not matched is named by none.
    arm: Option<Rc<str>>,
    /// Decided by a loop's test (each iteration would name it again) or by a condition
    /// the reader adds ([`Interp::sign_split`]): named by none.
    unnamed: bool,
}

impl Decision {
    /// How the conditions of a launch made on this way name it: the condition as written
    /// (`n < 256`), negated where it did not hold (`!(n < 256)`); an arm matched, its
    /// scrutinee and pattern (`dtype == 2`); `None` for an arm not matched and a loop's
    /// test.
    fn label(&self) -> Option<String> {
        if self.unnamed {
            return None;
        }
        let written = self.text.split('`').next().unwrap_or_default();
        if self.facts_of.is_some() || written.ends_with(MATCHING_AN_ARM) {
            return self
                .arm
                .as_ref()
                .filter(|_| self.holds)
                .map(|a| a.to_string());
        }
        Some(if self.holds {
            written.to_owned()
        } else {
            format!("!({written})")
        })
    }
}

/// How a match's decisions end as written (`dtype matching an arm`).
const MATCHING_AN_ARM: &str = " matching an arm";

/// A blurred comparison to decide again: the condition, the depth of the frame it was made
/// in and the versions of the bindings it read ([`Interp::blurred_now`]).
type Recheck = (Expr, usize, Vec<(Rc<str>, u32)>);

/// How a condition went, besides its split and way ([`Interp::decide`]): blurred, decided
/// by the facts of a match on a value other than an integer, the exclusion of one value,
/// and its [`Probe`].
type Way = (bool, Option<Rc<str>>, bool, Option<Rc<Probe>>);

#[derive(Clone, Debug, PartialEq)]
enum FactKind {
    Holds(bool),
    Matched(Pat),
    NotMatched(Pat),
}

/// One way through the code.
#[derive(Clone, Debug)]
pub struct Path {
    frames: Shared<Vec<Frame>>,
    masks: Vec<(ChoiceId, u64)>,
    stale: Vec<ChoiceId>,
    facts: Shared<Vec<Fact>>,
    reads: Shared<Vec<Rc<Term>>>,
    helpers: Shared<Vec<HelperRead>>,
    flow: Flow,
    /// Set on the fold of the paths past [`MAX_PATHS`]: a launch this path makes is not
    /// recorded (the error on the construct that split the paths says why).
    overflow: Option<Rc<str>>,
    /// The ways conditions on run-time inputs went to reach here.
    decisions: Shared<Vec<Decision>>,
    /// Why the path may be one no run of the code takes: two conditions on one input, one
    /// of which the reader could not apply to it ([`Interp::decide`]). Its launches are not
    /// checked. With the splits of the conditions the reader could not apply.
    uncertain: Option<(Rc<str>, Vec<u32>)>,
    /// Inputs whose conditions the reader could not apply to their range, but which one
    /// value of each takes all together ([`Interp::witness`]): the path is one some run
    /// takes; a launch whose block or shared memory depends on such an input is uncertain
    /// still (its range may hold values only other ways make), with the reason and splits
    /// given.
    witnessed: Shared<Vec<Witnessed>>,
    /// The dynamic shared memory opt-ins made so far ([`Expr::OptIn`]), the latest of each
    /// kernel: the kernel and the bytes.
    opt_ins: Shared<Vec<(Kernel, Int)>>,
}

type Outs = Vec<(Path, Val)>;

/// An input a path holds witnessed ([`Path::witnessed`]): the input, why its range may
/// hold values only other ways make, and the splits of its conditions.
type Witnessed = (SourceId, Rc<str>, Vec<u32>);

/// A `match`'s scrutinee and the versions of the bindings it reads (what earlier matches on
/// it decided applies while they are the same).
type Scrutinee<'a> = (&'a Expr, &'a [(Rc<str>, u32)]);

/// The interpreter for one expansion.
pub struct Interp<'r> {
    /// The front end's answers about names.
    pub names: &'r mut dyn Names,
    /// What counts as a launch, and the attribute's candidates.
    pub mode: Mode,
    /// The run-time inputs met (parameters, calls not followed), by [`SourceId`].
    pub sources: Vec<SourceInfo>,
    /// The run-time sets bound to names, by [`ChoiceId`].
    pub choices: Vec<ChoiceInfo>,
    /// The launches recorded, one per path and launch site.
    pub launches: Vec<LaunchRec>,
    /// Kernel names the body loads as literals, in order.
    pub kernels: Vec<(String, At)>,
    /// A name built at run time (`format!("affine_{}", ..)`): the glob it suggests.
    pub kernel_pattern: Option<(String, At)>,
    /// Errors on the body's constructs (too many paths), with where.
    pub problems: Vec<(At, String)>,
    /// The steps of this expansion ([`MAX_STEPS`]).
    budget: Budget,
    /// The steps of a whole read of several roots, where the front end gives one
    /// ([`Interp::with_read_budget`]): past it, what is left is unknown as past `budget`.
    read_budget: Option<Budget>,
    nesting: usize,
    /// The tests of the `while` loops being read, and how deep the reading is in one of
    /// them or in a condition of its own ([`Interp::sign_split`]): the conditions decided
    /// there do not name a launch's path.
    loop_tests: Vec<Expr>,
    unnamed_depth: usize,
    calls: Vec<String>,
    next_version: u32,
    /// The conditions that split a path so far ([`Decision::split`]).
    splits: u32,
    /// The `match` whose arms are being tried ([`Decision::group`]).
    match_group: Option<u32>,
    /// The `let` initialiser being evaluated, when it builds a configuration: recorded
    /// through its binding, not where it is built.
    bound_init: Option<*const Expr>,
    /// The places lent mutably as arguments of the method calls being evaluated
    /// (`ds.builder_arg(&mut builder)`): a launch builder lent there keeps its kernel.
    method_loans: Vec<*const Expr>,
    /// Constants evaluated so far, by their path from the crate root.
    cache: HashMap<String, Result<Int, String>>,
    /// The input each named field of an input is (`self.asc` of `self`), by (the whole's
    /// input, the field): two fields are two run-time values, one field read twice is one.
    field_sources: HashMap<(SourceId, String), SourceId>,
    /// How each run-time value bound to a name was computed from other run-time values
    /// (`let bytes = n * 4;`): its initialiser and the frame it was evaluated in, to compute
    /// it again when a condition narrows one of them ([`Interp::recompute_derived`]).
    derived: HashMap<SourceId, Rc<Recompute>>,
    /// The iterations of the `for` loops being stepped through around what is evaluated,
    /// multiplied ([`MAX_STEPPED`]); 0 outside them.
    stepping: usize,
    /// The inputs made for names bound to an input moved by known values, by where they
    /// are bound, with the value each was made for: the same binding of the same value on
    /// two paths (an iteration of a loop run on each) is one input, so that the paths can
    /// merge where nothing else tells them apart.
    bound_inputs: HashMap<SourceKey, Vec<(Int, SourceId)>>,
    /// The probe tests the witnesses made so far ([`witness::MAX_WITNESS_TRIES_PER_READING`]).
    witness_tries: usize,
    /// The searches of witnesses made, by what they depend on (the inputs, the values
    /// tried, the probes and their ways: [`Interp::witness`]), and whether one was found:
    /// paths that hold the same conflict ask the same question.
    witness_searches: HashMap<witness::Question, bool>,
}

fn unknown(why: impl Into<Rc<str>>) -> Val {
    Val::unknown(why)
}

impl Path {
    fn new(frame: Frame) -> Path {
        Path {
            frames: Shared::new(vec![frame]),
            masks: Vec::new(),
            stale: Vec::new(),
            facts: Shared::default(),
            reads: Shared::default(),
            helpers: Shared::default(),
            flow: Flow::Normal,
            overflow: None,
            decisions: Shared::default(),
            uncertain: None,
            witnessed: Shared::default(),
            opt_ins: Shared::default(),
        }
    }

    fn top(&self) -> &Frame {
        // A path always has its first frame.
        &self.frames[self.frames.len() - 1]
    }

    fn top_mut(&mut self) -> &mut Frame {
        let last = self.frames.len() - 1;
        &mut self.frames[last]
    }

    fn lookup(&self, name: &str) -> Option<&Binding> {
        self.top().env.iter().rev().find(|b| &*b.name == name)
    }

    fn lookup_mut(&mut self, name: &str) -> Option<&mut Binding> {
        self.top_mut()
            .env
            .iter_mut()
            .rev()
            .find(|b| &*b.name == name)
    }

    fn normal(&self) -> bool {
        self.flow == Flow::Normal
    }

    /// The members of `choice` this path allows (`all`: its full mask).
    fn mask(&self, choice: ChoiceId, all: u64) -> u64 {
        self.masks
            .iter()
            .find(|(c, _)| *c == choice)
            .map_or(all, |(_, m)| *m)
    }

    fn set_mask(&mut self, choice: ChoiceId, mask: u64) {
        match self.masks.iter_mut().find(|(c, _)| *c == choice) {
            Some((_, m)) => *m = mask,
            None => self.masks.push((choice, mask)),
        }
    }

    /// `v` with the choices this path has fixed (one member allowed) taken as that member.
    fn view(&self, v: Val) -> Val {
        let mut out = v;
        let mut found = Vec::new();
        out.choices(&mut found, 0);
        for c in found {
            if let Some((_, m)) = self.masks.iter().find(|(x, _)| *x == c)
                && m.count_ones() == 1
            {
                out = out.fix(c, m.trailing_zeros() as usize);
            }
        }
        out
    }

    fn read(&mut self, term: Rc<Term>) {
        if !self.reads.contains(&term) {
            self.reads.push(term);
        }
    }

    fn fact(&self, expr: &Expr, versions: &[(Rc<str>, u32)]) -> impl Iterator<Item = &FactKind> {
        let frame = self.frames.len();
        self.facts
            .iter()
            .filter(move |f| f.frame == frame && f.expr == *expr && f.versions == versions)
            .map(|f| &f.kind)
    }
}

fn all_members(n: usize) -> u64 {
    if n >= 64 { u64::MAX } else { (1u64 << n) - 1 }
}

impl<'r> Interp<'r> {
    /// `self`, its steps also taken from `read`, a budget of the whole read this root is
    /// one of (a C++ reading's roots share one: `occupancy-cuda`'s `files::read_budget`).
    pub fn with_read_budget(mut self, read: Budget) -> Interp<'r> {
        self.read_budget = Some(read);
        self
    }

    /// What is left of the read's budget ([`Interp::with_read_budget`]), and whether this
    /// root's own ([`MAX_STEPS`]) was spent.
    pub fn budgets(&self) -> (Option<&Budget>, bool) {
        (self.read_budget.as_ref(), self.budget.spent())
    }

    /// An interpreter for one expansion, asking `names` about names.
    pub fn new(names: &'r mut dyn Names, mode: Mode) -> Interp<'r> {
        Interp {
            names,
            mode,
            sources: Vec::new(),
            choices: Vec::new(),
            launches: Vec::new(),
            kernels: Vec::new(),
            kernel_pattern: None,
            problems: Vec::new(),
            budget: Budget::new(MAX_STEPS),
            read_budget: None,
            nesting: 0,
            loop_tests: Vec::new(),
            unnamed_depth: 0,
            calls: Vec::new(),
            next_version: 0,
            splits: 0,
            match_group: None,
            bound_init: None,
            method_loans: Vec::new(),
            cache: HashMap::new(),
            field_sources: HashMap::new(),
            derived: HashMap::new(),
            stepping: 0,
            bound_inputs: HashMap::new(),
            witness_tries: 0,
            witness_searches: HashMap::new(),
        }
    }

    fn version(&mut self) -> u32 {
        self.next_version += 1;
        self.next_version
    }

    /// A new run-time input.
    fn source(&mut self, what: String, key: SourceKey) -> SourceId {
        self.sources.push(SourceInfo {
            what,
            key,
            copy_of: None,
            moves: None,
        });
        (self.sources.len() - 1) as SourceId
    }

    /// Whether `i` is a run-time input as a whole (or a copy of one): what narrows it is all
    /// that is known of the input.
    fn whole(&self, i: &Int) -> bool {
        i.source.is_some_and(|s| {
            let input = self.original(s);
            i.roots.iter().all(|r| self.original(*r) == input)
        })
    }

    /// The input `s` is a copy of, through every copy (itself when it is none's).
    fn original(&self, s: SourceId) -> SourceId {
        let mut s = s;
        // Each copy's original was made before it: the chain ends.
        while let Some(c) = self.sources.get(s as usize).and_then(|i| i.copy_of) {
            s = c;
        }
        s
    }

    /// The attribute's candidates for the name bound at `key` to `i`, where every one is a
    /// value `i` can take (`b = block.min(1024)` cannot be 2000): a candidate it cannot take
    /// leaves the name as computed, and the plans say which candidate no launch has.
    fn assumed_within(&mut self, key: &SourceKey, i: &Int) -> Option<Val> {
        let (_, values, _) = self.mode.assume.iter().find(|(k, _, _)| k == key)?;
        if values.iter().any(|v| !i.set.contains(*v)) {
            return None;
        }
        self.assumed(key, i.ty)
    }

    /// The attribute's candidates for the input bound at `key`, if any: a choice among them.
    fn assumed(&mut self, key: &SourceKey, ty: Option<IntTy>) -> Option<Val> {
        let (_, values, text) = self.mode.assume.iter().find(|(k, _, _)| k == key)?.clone();
        let members: Vec<i128> = values;
        let vals: Vec<Val> = members.iter().map(|v| Val::int(*v, ty)).collect();
        self.choices.push(ChoiceInfo {
            members,
            name: key.name.clone(),
            text,
            roots: Vec::new(),
            recompute: None,
            depth: 0,
            on_own_paths: false,
        });
        Some(Val::Choice(
            (self.choices.len() - 1) as ChoiceId,
            Rc::new(vals),
        ))
    }

    // ---------------------------------------------------------------- entry points

    /// Runs the wrapper's body: `params` are its parameters (pattern, integer type, what
    /// each is), `generics` the names of its generic parameters.
    pub fn run_wrapper(&mut self, body: &Block, params: &[(Pat, ParamKind)], generics: &[String]) {
        let mut path = Path::new(Frame {
            place: Place::wrapper(),
            terms: Terms::AsWritten,
            env: Shared::default(),
            wrapper: true,
            blocks: 0,
        });
        for name in generics {
            let version = self.version();
            path.top_mut().env.push(Binding {
                name: name.as_str().into(),
                val: unknown(format!(
                    "`{name}` is a generic parameter of the wrapper, known only per instantiation"
                )),
                version,
                pending: None,
            });
        }
        for (index, (pat, kind)) in params.iter().enumerate() {
            let val = self.parameter(pat, kind, index);
            path = self.bind(pat, val, path, At::NONE, None);
        }
        let outs = self.eval_block(body, path, None);
        for (mut path, _) in outs {
            self.leave_scope(&mut path, 0);
        }
        self.settle_uncertain();
    }

    /// A launch of a path that may be one no run takes ([`Path::uncertain`]) stays
    /// uncertain only where the way a condition the reader could not apply went decides
    /// which launch the site makes: where no launch of the site took that condition's other
    /// way (a guard whose other way ends the path: `if data_elems < n * k { bail!(..) }`),
    /// or every one that did makes the same launch, or a certain path makes it too, it is
    /// the code's whichever way the condition goes.
    fn settle_uncertain(&mut self) {
        if self.launches.iter().all(|r| r.uncertain.is_none()) {
            return;
        }
        let same = |a: &LaunchRec, b: &LaunchRec| {
            a.config == b.config && a.kernel == b.kernel && a.masks == b.masks
        };
        // The records of each site (`At`s compare equal whatever they are: by index), and
        // of those the ones that make the same launch: one class each, so that each pair
        // is compared once at most.
        let mut sites: HashMap<u32, Vec<usize>> = HashMap::new();
        for (i, rec) in self.launches.iter().enumerate() {
            sites.entry(rec.at.0).or_default().push(i);
        }
        let mut class = vec![0usize; self.launches.len()];
        for records in sites.values() {
            let mut classes: Vec<usize> = Vec::new();
            for &i in records {
                let rec = &self.launches[i];
                class[i] = match classes.iter().position(|&j| same(rec, &self.launches[j])) {
                    Some(c) => c,
                    None => {
                        classes.push(i);
                        classes.len() - 1
                    }
                };
            }
        }
        let made: Vec<bool> = self
            .launches
            .iter()
            .enumerate()
            .map(|(i, rec)| {
                let Some((_, splits)) = &rec.uncertain else {
                    return false;
                };
                let site = sites.get(&rec.at.0).map_or(&[][..], Vec::as_slice);
                // Whether every launch of the site that took another way of one of `splits`
                // makes the same launch.
                let decided_elsewhere = |splits: &[u32]| {
                    site.iter().all(|&j| {
                        class[j] == class[i]
                            || !self.launches[j].ways.iter().any(|(split, holds)| {
                                splits.contains(split) && !rec.ways.contains(&(*split, *holds))
                            })
                    })
                };
                let certain_too = site.iter().any(|&j| {
                    let other = &self.launches[j];
                    other.uncertain.is_none() && other.folded.is_none() && class[j] == class[i]
                });
                decided_elsewhere(splits)
                    || (!rec.witnessed_splits.is_empty()
                        && decided_elsewhere(&rec.witnessed_splits))
                    || certain_too
            })
            .collect();
        for (rec, made) in self.launches.iter_mut().zip(made) {
            if made {
                rec.uncertain = None;
            }
        }
    }

    /// The value a parameter of the wrapper takes: its type's range.
    fn parameter(&mut self, pat: &Pat, kind: &ParamKind, index: usize) -> Val {
        let name = match pat {
            Pat::Bind(name, None) => name.clone(),
            _ => "a parameter".to_owned(),
        };
        let key = SourceKey {
            name: name.clone(),
            at: u32::MAX - index as u32,
        };
        if let ParamKind::Int(ty) = kind
            && let Some(v) = self.assumed(&key, Some(*ty))
        {
            return v;
        }
        let what = format!("`{name}` is a parameter of the wrapper, a run-time value");
        match kind {
            ParamKind::Int(ty) => {
                let s = self.source(what, key);
                Val::Int(Int::input(Some(*ty), s))
            }
            ParamKind::Bool => Val::Bool(None),
            ParamKind::Known(value, ty) => int_literal(*value, Some(*ty)),
            ParamKind::Ints(tys) => {
                let s = self.source(what, key);
                Val::Tuple(
                    tys.iter()
                        .map(|ty| {
                            let mut i = Int::input(Some(*ty), s);
                            i.source = None;
                            Val::Int(i)
                        })
                        .collect(),
                )
            }
            ParamKind::Other => {
                let s = self.source(what.clone(), key);
                Val::Unknown(Unknown {
                    why: what.into(),
                    roots: vec![s],
                    source: Some(s),
                    panic: false,
                })
            }
        }
    }

    /// Evaluates an expression of the attribute (a constant) in the wrapper's place.
    pub fn eval_attribute(&mut self, expr: &Expr, expected: Option<IntTy>) -> (Val, Vec<Rc<Term>>) {
        let path = Path::new(Frame {
            place: Place::wrapper(),
            terms: Terms::AsWritten,
            env: Shared::default(),
            wrapper: false,
            blocks: 0,
        });
        let outs = self.eval(expr, path, expected);
        match outs.as_slice() {
            [(path, val)] => (path.view(val.clone()), path.reads.to_vec()),
            [] => (unknown("no value"), Vec::new()),
            _ => (unknown("several values"), Vec::new()),
        }
    }

    // ---------------------------------------------------------------- bounds

    fn guard(&mut self) -> Option<Val> {
        if !self.budget.step() {
            return Some(unknown(format!(
                "the evaluation took more than {MAX_STEPS} steps"
            )));
        }
        if let Some(read) = &mut self.read_budget
            && !read.step()
        {
            return Some(unknown(format!(
                "the read of these files took more than {} steps",
                read.limit()
            )));
        }
        if self.nesting > MAX_NESTING {
            return Some(unknown("the code nests too deeply for the reader"));
        }
        None
    }

    /// The outcomes bounded by the readers' one rule ([`paths::settle`]): the same state
    /// merged; past [`MAX_PATHS`], the rest folded into one per flow (its launches not read)
    /// and an error on the construct at `at`.
    fn bounded<T: OutValue>(&mut self, outs: Vec<(Path, T)>, at: At) -> Vec<(Path, T)> {
        if outs.len() < 2 {
            return outs;
        }
        let settled = paths::settle(
            outs.into_iter().map(|(p, v)| Out(p, v)).collect(),
            MAX_PATHS,
        );
        if settled.overflow.is_some() {
            let message = format!(
                "more than {MAX_PATHS} paths through the body from here on: the reader follows \
                 each path to the launch it makes and stops at {MAX_PATHS}; give the launch's \
                 values in the attribute, or choose them in fewer combinations"
            );
            if !self.problems.iter().any(|(_, m)| *m == message) {
                self.problems.push((at, message));
            }
        }
        settled.paths.into_iter().map(|Out(p, v)| (p, v)).collect()
    }

    // ---------------------------------------------------------------- blocks, statements

    fn eval_block(&mut self, block: &Block, mut path: Path, expected: Option<IntTy>) -> Outs {
        let depth = path.top().env.len();
        path.top_mut().blocks += 1;
        // Items of a nested block shadow the module's (those at the top of the wrapper's
        // body are read as its own constants): the reader does not read them, so a name
        // they declare is unknown there rather than resolved to another item.
        if !(path.top().wrapper && path.top().blocks == 1) {
            for stmt in &block.stmts {
                if let Stmt::Item(Some(name)) = stmt {
                    let version = self.version();
                    path.top_mut().env.push(Binding {
                        name: name.as_str().into(),
                        val: unknown(format!("`{name}` is an item declared in a nested block")),
                        version,
                        pending: None,
                    });
                }
            }
        }
        let mut paths = vec![path];
        for stmt in &block.stmts {
            let mut next = Vec::new();
            for path in paths {
                if path.normal() {
                    next.extend(self.exec(stmt, path));
                } else {
                    next.push(path);
                }
            }
            let at = match stmt {
                Stmt::Let(l) => l.init.as_ref().and_then(expr_at).unwrap_or(l.at),
                Stmt::Expr(e) => expr_at(e).unwrap_or(At::NONE),
                Stmt::Item(_) => At::NONE,
            };
            paths = self
                .bounded(next.into_iter().map(|p| (p, ())).collect(), at)
                .into_iter()
                .map(|(p, ())| p)
                .collect();
        }
        let mut outs = Vec::new();
        for path in paths {
            if !path.normal() {
                outs.push((path, Val::Tuple(Vec::new())));
                continue;
            }
            match &block.tail {
                Some(tail) => outs.extend(self.eval(tail, path, expected)),
                None => outs.push((path, Val::Tuple(Vec::new()))),
            }
        }
        for (path, _) in &mut outs {
            self.leave_scope(path, depth);
            path.top_mut().blocks -= 1;
        }
        outs
    }

    /// Drops the bindings above `depth` of the top frame, recording the configurations
    /// among them that are launches (when the body calls no launch method).
    fn leave_scope(&mut self, path: &mut Path, depth: usize) {
        let frame = path.top_mut();
        if depth >= frame.env.len() {
            return;
        }
        let gone: Vec<Binding> = frame.env.drain(depth..).collect();
        if !path.top().wrapper || path.flow == Flow::Diverged {
            return;
        }
        for b in gone.into_iter().rev() {
            if let Some(at) = b.pending {
                let val = path.view(b.val.clone());
                self.record(path, val, None, Some(b.name.to_string()), at);
            }
        }
    }

    fn exec(&mut self, stmt: &Stmt, path: Path) -> Vec<Path> {
        match stmt {
            Stmt::Let(l) => {
                let (pat, init, otherwise, at) = (&l.pat, &l.init, &l.otherwise, &l.at);
                let Some(init) = init else {
                    // `let x;`: assigned later, unknown until then.
                    let val = unknown("declared without a value");
                    return vec![self.bind(pat, val, path, *at, None)];
                };
                let construction = self.is_construction(init, &path);
                let outer = self.bound_init;
                if construction {
                    self.bound_init = Some(init as *const Expr);
                }
                let evaluated = self.eval(init, path, l.ty);
                self.bound_init = outer;
                let mut out = Vec::new();
                for (path, val) in evaluated {
                    if !path.normal() {
                        out.push(path);
                        continue;
                    }
                    // Computing it panics on every value of this path (`1000 / n` where `n`
                    // is 0): the path ends here.
                    if val.panics() {
                        out.push(with_flow(path, Flow::Diverged));
                        continue;
                    }
                    match (pat, otherwise) {
                        (_, None) | (Pat::Bind(..), _) => {
                            let config = has_config(&val);
                            let mut path =
                                self.bind_declared(pat, val, path, *at, Some(init), l.ty);
                            if construction
                                && config
                                && let Pat::Bind(name, None) = pat
                                && !self.mode.base_names.contains(name)
                                && let Some(b) = path.lookup_mut(name)
                            {
                                b.pending = Some(*at);
                            }
                            out.push(path);
                        }
                        (pat, Some(otherwise)) => {
                            // `let pat = value else { diverge };`
                            for (path, matched) in self.pattern(pat, &val, path, None) {
                                if matched {
                                    out.push(path);
                                } else {
                                    out.extend(
                                        self.eval_block(otherwise, path, None)
                                            .into_iter()
                                            .map(|(p, _)| p),
                                    );
                                }
                            }
                        }
                    }
                }
                out
            }
            Stmt::Expr(e) => self
                .eval(e, path, None)
                .into_iter()
                .map(|(p, v)| {
                    if v.panics() && p.normal() {
                        with_flow(p, Flow::Diverged)
                    } else {
                        p
                    }
                })
                .collect(),
            Stmt::Item(_) => vec![path],
        }
    }

    /// Whether `init` builds a configuration that may be launched (the wrapper's frame, no
    /// launch method in the body).
    fn is_construction(&self, init: &Expr, path: &Path) -> bool {
        if self.mode.launch_calls || !path.top().wrapper {
            return false;
        }
        match init {
            Expr::Struct(s) => s.name == "LaunchConfig",
            Expr::Call(..) => true,
            _ => false,
        }
    }

    // ---------------------------------------------------------------- bindings

    /// Binds an irrefutable pattern to `val`. A run-time set bound to a name becomes a
    /// choice; a run-time value bound to a name becomes an input of its own (the
    /// attribute's candidates can stand for it).
    fn bind(&mut self, pat: &Pat, val: Val, path: Path, at: At, init: Option<&Expr>) -> Path {
        self.bind_declared(pat, val, path, at, init, None)
    }

    /// `v` stored in a place of integer type `ty` (a `let`'s, a parameter's, a returned
    /// value's, an assigned variable's): C++ converts an integer of another type to it
    /// (modulo 2^bits for an unsigned type); in Rust the types already agree.
    fn stored(&self, v: Val, ty: Option<IntTy>) -> Val {
        let (value::Lang::Cpp, Some(ty)) = (self.mode.lang, ty) else {
            return v;
        };
        v.map(&mut |v| match v {
            Val::Int(i) if i.ty.is_some_and(|t| t != ty) => value::cast(&i, ty).val,
            other => other,
        })
    }

    /// [`Interp::bind`] for a `let` that declares the integer type `declared` of its name.
    fn bind_declared(
        &mut self,
        pat: &Pat,
        val: Val,
        mut path: Path,
        at: At,
        init: Option<&Expr>,
        declared: Option<IntTy>,
    ) -> Path {
        let val = self.stored(val, declared);
        match pat {
            Pat::Bind(name, sub) => {
                let val = self.named_value(name, val, at, init, &path, declared);
                if let Some(sub) = sub {
                    path = self.bind(sub, val.clone(), path, at, None);
                }
                let version = self.version();
                path.top_mut().env.push(Binding {
                    name: name.as_str().into(),
                    val,
                    version,
                    pending: None,
                });
                path
            }
            Pat::Tuple(pats) => {
                let n = pats.iter().filter(|p| **p != Pat::Rest).count();
                let rest = pats.iter().position(|p| *p == Pat::Rest);
                for (i, p) in pats.iter().enumerate() {
                    if *p == Pat::Rest {
                        continue;
                    }
                    let index = match rest {
                        Some(r) if i > r => None,
                        _ => Some(i),
                    };
                    let item = val.clone().map(&mut |v| match (v, index) {
                        (Val::Tuple(items), Some(i)) if items.len() >= n => items
                            .get(i)
                            .cloned()
                            .unwrap_or_else(|| unknown("no such field")),
                        (Val::Tuple(items), None) if items.len() >= n => {
                            let from_end = pats.len() - i;
                            items
                                .get(items.len() - from_end)
                                .cloned()
                                .unwrap_or_else(|| unknown("no such field"))
                        }
                        (Val::Unknown(u), _) => Val::Unknown(u),
                        _ => unknown("bound by a pattern the reader does not follow"),
                    });
                    path = self.bind(p, item, path, at, None);
                }
                path
            }
            Pat::Struct(_, fields) => {
                for (field, p) in fields {
                    let item = val
                        .clone()
                        .map(&mut |v| field_of(v, &Field::Named(field.clone())));
                    path = self.bind(p, item, path, at, None);
                }
                path
            }
            Pat::TupleStruct(p, pats) if matches!(p.last(), "Some" | "Ok") && pats.len() == 1 => {
                self.bind(&pats[0], val, path, at, None)
            }
            Pat::Wild | Pat::Rest | Pat::Lit(_) | Pat::Range(..) | Pat::Path(_) => path,
            Pat::Opaque(names) => {
                for name in names {
                    let version = self.version();
                    path.top_mut().env.push(Binding {
                        name: name.as_str().into(),
                        val: unknown(format!(
                            "`{name}` is bound by a pattern the reader does not follow"
                        )),
                        version,
                        pending: None,
                    });
                }
                path
            }
            Pat::TupleStruct(..) | Pat::Or(_) => {
                let mut names = Vec::new();
                pat_names(pat, &mut names);
                self.bind(&Pat::Opaque(names), Val::Tuple(Vec::new()), path, at, None)
            }
        }
    }

    /// The value a name is bound to: a run-time set becomes a choice, a run-time value of
    /// no input of its own becomes one. A value the reader does not know, bound to a name of
    /// a `declared` integer type (`let n: usize = dims.iter().product();`), is any value of
    /// that type: an input of its own, as a parameter of that type is.
    fn named_value(
        &mut self,
        name: &str,
        val: Val,
        at: At,
        init: Option<&Expr>,
        path: &Path,
        declared: Option<IntTy>,
    ) -> Val {
        match val {
            // C++: a few values of one input (or the input moved by literals, `cols * 4`
            // of a `cols` a condition narrowed to `0..=32`) are its run-time value, as a
            // range is (the check takes its largest): a set is values chosen apart. Rust
            // checks each member of either.
            Val::Int(i)
                if i.set.members().is_some_and(|m| m.len() > 1)
                    && (self.mode.lang == value::Lang::Rust
                        || (i.source.is_none() && i.moved.is_none())) =>
            {
                let key = SourceKey {
                    name: name.to_owned(),
                    at: at.0,
                };
                if let Some(v) = self.assumed_within(&key, &i) {
                    return v;
                }
                let members = i.set.members().map(<[i128]>::to_vec).unwrap_or_default();
                let vals = members.iter().map(|m| Val::int(*m, i.ty)).collect();
                self.choices.push(ChoiceInfo {
                    members,
                    name: name.to_owned(),
                    text: init.map_or_else(|| name.to_owned(), ir::text),
                    roots: i.roots.clone(),
                    recompute: init.map(|e| Recompute {
                        expr: e.clone(),
                        frame: path.top().clone(),
                    }),
                    depth: path.frames.len(),
                    on_own_paths: false,
                });
                Val::Choice((self.choices.len() - 1) as ChoiceId, Rc::new(vals))
            }
            // C++: a set chosen in a function the reading has left (a helper's `p`), bound
            // in its caller (`int block = pick(cols);`), is named by the caller's binding,
            // as the launches' conditions name it (`block = 128`).
            Val::Choice(c, vals) if self.mode.lang == value::Lang::Cpp => {
                self.named_by_caller(c, name, init, path.frames.len());
                Val::Choice(c, vals)
            }
            // C++: a loop's exit in a helper, on its own path ([`Interp::refined_exits`]),
            // returned to its caller as the member this path fixed: named by the caller's
            // binding too.
            Val::Int(i) if self.mode.lang == value::Lang::Cpp && i.value().is_some() => {
                self.rename_fixed_exit(name, i.value(), init, path);
                Val::Int(i)
            }
            Val::Int(i) if i.value().is_none() && at.0 != At::NONE.0 => {
                let key = SourceKey {
                    name: name.to_owned(),
                    at: at.0,
                };
                if let Some(v) = self.assumed_within(&key, &i) {
                    return v;
                }
                // An input moved by known values (or a copy of one) bound here before: the
                // same value.
                let exact = i.moved.is_some() || i.source.is_some();
                if exact
                    && let Some((_, s)) = self
                        .bound_inputs
                        .get(&key)
                        .and_then(|made| made.iter().find(|(v, _)| v.same_run_time_value(&i)))
                {
                    return Val::Int(Int {
                        roots: value::roots(&i.roots, &[*s]),
                        source: Some(*s),
                        ..i
                    });
                }
                let what = self.why(&i.roots);
                let s = self.source(what, key.clone());
                if exact {
                    let made = self.bound_inputs.entry(key).or_default();
                    if made.len() < MAX_PATHS {
                        made.push((i.clone(), s));
                    }
                }
                self.sources[s as usize].copy_of = i.source.map(|c| self.original(c));
                self.sources[s as usize].moves = i.moved.as_ref().map(|m| self.original(m.input));
                if i.source.is_none()
                    && !i.roots.is_empty()
                    && let Some(init) = init.filter(|e| recomputed_cheaply(e, 0))
                {
                    self.derived.insert(
                        s,
                        Rc::new(Recompute {
                            expr: init.clone(),
                            frame: path.top().clone(),
                        }),
                    );
                }
                Val::Int(Int {
                    roots: value::roots(&i.roots, &[s]),
                    source: Some(s),
                    ..i
                })
            }
            Val::Unknown(u) if u.source.is_none() && at.0 != At::NONE.0 && init.is_some() => {
                let key = SourceKey {
                    name: name.to_owned(),
                    at: at.0,
                };
                if let Some(v) = self.assumed(&key, declared) {
                    return v;
                }
                let s = self.source(u.why.to_string(), key);
                if let Some(ty) = declared
                    && !u.panic
                {
                    return Val::Int(Int::input(Some(ty), s));
                }
                Val::Unknown(Unknown {
                    roots: value::roots(&u.roots, &[s]),
                    source: Some(s),
                    why: u.why,
                    panic: u.panic,
                })
            }
            other => other,
        }
    }

    /// Names anew the one loop exit ([`ChoiceInfo::on_own_paths`]) this path fixed in a
    /// function it has left, whose member is `value`, bound to `name` from `init`.
    fn rename_fixed_exit(
        &mut self,
        name: &str,
        value: Option<i128>,
        init: Option<&Expr>,
        path: &Path,
    ) {
        let depth = path.frames.len();
        let mut left = path.masks.iter().filter_map(|(c, m)| {
            let info = self.choices.get(*c as usize)?;
            let fixed = info.members.get(m.trailing_zeros() as usize).copied();
            (m.count_ones() == 1 && info.on_own_paths && depth < info.depth && fixed == value)
                .then_some(*c)
        });
        if let (Some(c), None) = (left.next(), left.next()) {
            self.named_by_caller(c, name, init, depth);
        }
    }

    /// C++: the set `choice`, bound in a function deeper than `depth` frames that the
    /// reading has left, named by its caller's binding `name` (from `init`), as the
    /// launches' conditions name it.
    fn named_by_caller(&mut self, choice: ChoiceId, name: &str, init: Option<&Expr>, depth: usize) {
        if let Some(info) = self.choices.get_mut(choice as usize)
            && depth < info.depth
        {
            info.name = name.to_owned();
            if let Some(e) = init {
                info.text = ir::text(e);
            }
            info.depth = depth;
        }
    }

    /// Why a value of `roots` is not known: its first input's reason.
    pub fn why(&self, roots: &[SourceId]) -> String {
        roots
            .first()
            .and_then(|s| self.sources.get(*s as usize))
            .map_or_else(|| "a run-time value".to_owned(), |s| s.what.clone())
    }

    // ---------------------------------------------------------------- expressions

    fn eval(&mut self, e: &Expr, path: Path, expected: Option<IntTy>) -> Outs {
        if let Some(v) = self.guard() {
            return vec![(path, v)];
        }
        self.nesting += 1;
        let outs = self.eval_inner(e, path, expected);
        self.nesting -= 1;
        outs
    }

    /// One expression on one path. A dispatch only: each kind is its own function, so that
    /// the frame of this recursion stays small in an unoptimised build (a proc macro's:
    /// every local of every arm of one big `match` would sit in each frame).
    fn eval_inner(&mut self, e: &Expr, path: Path, expected: Option<IntTy>) -> Outs {
        match e {
            Expr::Int(value, ty) => vec![(path, int_literal(*value, ty.or(expected)))],
            Expr::Bool(b) => vec![(path, Val::Bool(Some(*b)))],
            Expr::Str(s, _) => vec![(path, Val::Str(s.clone()))],
            Expr::Path(p, at) => {
                let (path, val) = self.name(p, *at, path, expected);
                vec![(path, val)]
            }
            Expr::Neg(inner) => self.eval_unary(true, inner, path, expected),
            Expr::Not(inner) => self.eval_unary(false, inner, path, expected),
            Expr::Binary(op, l, r) => self.eval_binary(*op, l, r, path, expected),
            Expr::Compare(..) | Expr::And(..) | Expr::Or(..) => self.eval_condition(e, path),
            Expr::Cast(inner, ty) => self.eval_cast(inner, *ty, path),
            Expr::Method(receiver, method, args) => {
                self.eval_method(receiver, *method, args, path, expected)
            }
            Expr::Call(p, args, at) => {
                let outs = self.call(p, args, *at, path);
                self.constructions(e, outs, *at)
            }
            Expr::MethodCall(receiver, name, args, at) => {
                self.method_call(receiver, name, args, *at, path)
            }
            Expr::Tuple(items) => self.eval_tuple(items, path, expected),
            Expr::Field(base, field) => self.eval_field(base, field, path, expected),
            Expr::If(i) => self.eval_if(i, path, expected),
            Expr::Match(m) => self.eval_match(m, path, expected),
            Expr::Block(b) => self.eval_block(b, path, expected),
            Expr::Struct(s) => {
                let outs = self.struct_lit(s, path);
                self.constructions(e, outs, s.at)
            }
            Expr::Loop(l) => self.eval_loop(l, None, path),
            Expr::Assign(place, op, value) => self.assign(place, *op, value, path),
            Expr::Return(value) => self.eval_exit(value.as_deref(), None, path),
            Expr::Break(label, value) => {
                self.eval_exit(value.as_deref(), Some(label.clone()), path)
            }
            Expr::Continue(label) => {
                vec![(with_flow(path, Flow::Continue(label.clone())), unknown(""))]
            }
            Expr::Labeled(label, inner) => self.eval_labeled(label, inner, path, expected),
            Expr::Diverge => vec![(with_flow(path, Flow::Diverged), unknown(""))],
            // `Err(e)?` returns the error: the path ends with no launch.
            Expr::Try(inner) if matches!(&**inner, Expr::Call(p, args, _) if p.idents() == ["Err"] && args.len() == 1) =>
            {
                vec![(with_flow(path, Flow::Diverged), unknown(""))]
            }
            Expr::Try(inner) => self.eval(inner, path, expected),
            Expr::Ref(inner, mutable) => self.eval_ref(inner, *mutable, path, expected),
            // A pack expansion outside a call's arguments (where `call` spreads it).
            Expr::Spread(_) => vec![(path, unknown("a pack expansion outside a call"))],
            Expr::Closure(params, body) => self.eval_closure(params, body, path),
            Expr::Format(glob, at, args) => {
                self.kernel_pattern.get_or_insert((glob.clone(), *at));
                self.eval_format(args, *at, path)
            }
            Expr::Assert(cond) => self.eval_assert(cond, path),
            Expr::CustLaunch(c) => self.eval_cust(c, path),
            Expr::Type(t) => self.eval_type(t, path),
            Expr::SizeOf(t, align) => self.eval_size_of(t, *align, path),
            Expr::OptIn(o) => self.eval_opt_in(o, path),
            Expr::Havoc(names, why) => {
                let mut path = path;
                for name in names {
                    self.havoc_int(&mut path, name);
                }
                vec![(path, unknown(why.as_str()))]
            }
            Expr::Opaque(why) => vec![(path, unknown(why.as_str()))],
        }
    }

    /// A `format!` on each path: the kernel name it makes, each placeholder whose argument
    /// the path knows (a string, an integer) filled in, the others `*` (a glob).
    fn eval_format(&mut self, args: &ir::FormatArgs, at: At, path: Path) -> Outs {
        let mut operands: Vec<(&Expr, Option<IntTy>)> =
            args.positional.iter().map(|e| (e, None)).collect();
        operands.extend(args.named.iter().map(|(_, e)| (e, None)));
        let mut outs = Vec::new();
        for (path, vals) in self.sequence(&operands, path) {
            if !path.normal() {
                outs.push((path, unknown("")));
                continue;
            }
            // What each placeholder is filled with: a string, a known integer, or a run-time
            // integer that is exactly an input (filled again at the launch, [`Refill`]).
            let slot = |v: Option<&Val>| match v.map(|v| path.view(v.clone())) {
                Some(Val::Str(s)) => Slot::Text(ir::Filled::Str(s)),
                Some(Val::Int(i)) => match (i.value(), i.source) {
                    (Some(v), _) => Slot::Text(ir::Filled::Int(v)),
                    (None, Some(source)) => Slot::Input { source, set: i.set },
                    (None, None) => Slot::Integer,
                },
                _ => Slot::Unknown,
            };
            let positional = args.positional.len();
            let mut slots = Vec::new();
            ir::fill_format(&args.text, |p| {
                slots.push(match p {
                    ir::Placeholder::Next(i) | ir::Placeholder::Position(i) if i < positional => {
                        slot(vals.get(i))
                    }
                    ir::Placeholder::Named(n) => args
                        .named
                        .iter()
                        .position(|(m, _)| m == n)
                        .map_or(Slot::Unknown, |i| slot(vals.get(positional + i))),
                    _ => Slot::Unknown,
                });
                None
            });
            let refill = Refill {
                text: args.text.clone(),
                slots,
            };
            let name = refill.fill(|_| None);
            let inputs = refill.slots.iter().any(|s| matches!(s, Slot::Input { .. }));
            let kernel = Kernel {
                glob: occupancy_spec::artifact::is_glob(&name),
                name,
                at,
                refill: inputs.then(|| Rc::new(refill)),
                template_args: Some(Vec::new()),
            };
            outs.push((path, Val::Kernel(kernel)));
        }
        outs
    }

    fn eval_unary(&mut self, neg: bool, inner: &Expr, path: Path, expected: Option<IntTy>) -> Outs {
        self.eval(inner, path, expected)
            .into_iter()
            .map(|(mut path, v)| {
                let v = v.map(&mut |v| match v {
                    Val::Int(i) => {
                        let out = value::unary(neg, &i);
                        out.dropped.into_iter().for_each(|t| path.read(t));
                        out.val
                    }
                    Val::Bool(b) if !neg => Val::Bool(b.map(|b| !b)),
                    other => not_int(other, if neg { "-" } else { "!" }),
                });
                (path, v)
            })
            .collect()
    }

    fn eval_binary(
        &mut self,
        op: ir::Op,
        l: &Expr,
        r: &Expr,
        path: Path,
        expected: Option<IntTy>,
    ) -> Outs {
        if let Some(paths) = self.sign_split_binary(op, l, r, &path) {
            return paths
                .into_iter()
                .flat_map(|p| self.eval_binary_on(op, l, r, p, expected))
                .collect();
        }
        self.eval_binary_on(op, l, r, path, expected)
    }

    /// C++ converts a signed operand to the other's unsigned type where the usual
    /// arithmetic conversions make that type the common one (`ncols * sizeof(float)`):
    /// [`Interp::sign_split`] of the signed operand.
    fn sign_split_binary(
        &mut self,
        op: ir::Op,
        l: &Expr,
        r: &Expr,
        path: &Path,
    ) -> Option<Vec<Path>> {
        let lang = self.mode.lang;
        if lang != value::Lang::Cpp || matches!(op, ir::Op::Shl | ir::Op::Shr) {
            return None;
        }
        let (a, b) = (operand_ty(l, path)?, operand_ty(r, path)?);
        let common = lang.common(lang.promoted(a), lang.promoted(b));
        if common.signed() {
            return None;
        }
        let signed = if a.signed() {
            l
        } else if b.signed() {
            r
        } else {
            return None;
        };
        self.sign_split(signed, path)
    }

    /// C++'s conversion of a signed value that may be negative to an unsigned type wraps
    /// the negative values to the top of the type's range, so that the interval of the
    /// result is the whole range (`size_t smem = ncols * sizeof(float)` of an `int ncols`
    /// knows no bound). Where the value is a name bound to an input, moved by literals, of
    /// a range that holds negative values and others, the path is split on `name < 0`
    /// (the name narrowed on each way), so that each way converts one interval: a launch
    /// on the other way keeps its bounds. `None`: no split, or one that does not narrow
    /// the name exactly or leaves values computed from it before not known.
    fn sign_split(&mut self, signed: &Expr, path: &Path) -> Option<Vec<Path>> {
        let Expr::Path(written, _) = signed else {
            return None;
        };
        let Some(Val::Int(i)) = path.lookup(written.single()?).map(|b| &b.val) else {
            return None;
        };
        let (Some(lo), Some(hi)) = i.set.bounds() else {
            return None;
        };
        if lo >= 0 || hi < 0 || i.moved_from().is_none() || !path.normal() {
            return None;
        }
        let negative = Expr::Compare(
            Comparison::Lt,
            Box::new(signed.clone()),
            Box::new(Expr::Int(0, i.ty)),
        );
        let decided = path.decisions.len();
        // A condition of the reader's own: it names no path.
        self.unnamed_depth += 1;
        let ways = self.condition(&negative, path.clone());
        self.unnamed_depth -= 1;
        // Only a split that narrows the name exactly: one the reader cannot follow would
        // leave the path's launches uncertain, where the conversion alone loses a bound.
        let exact = ways.len() == 2
            && ways.iter().all(|(p, _)| {
                p.normal()
                    && p.uncertain.is_none() == path.uncertain.is_none()
                    && p.stale.len() == path.stale.len()
                    && p.decisions
                        .get(decided..)
                        .is_some_and(|new| new.iter().all(|d| !d.blurred))
            });
        exact.then(|| ways.into_iter().map(|(p, _)| p).collect())
    }

    /// [`Interp::eval_binary`] on a path split no further.
    fn eval_binary_on(
        &mut self,
        op: ir::Op,
        l: &Expr,
        r: &Expr,
        path: Path,
        expected: Option<IntTy>,
    ) -> Outs {
        let lang = self.mode.lang;
        let rhs_expected = if matches!(op, ir::Op::Shl | ir::Op::Shr) {
            None
        } else {
            expected
        };
        // C++: a `bool` operand of arithmetic is the `int` 0 or 1 (`(c >= 1024) * 1024`).
        let promoted = |v: &Val| match (lang, v) {
            (value::Lang::Cpp, Val::Bool(Some(b))) => Val::int(i128::from(*b), Some(IntTy::I32)),
            _ => v.clone(),
        };
        let mut outs = self.operands(&[(l, expected), (r, rhs_expected)], path, |path, vals| {
            let (a, b) = (promoted(&vals[0]), promoted(&vals[1]));
            Val::map2(a, b, &mut |a, b| match (a, b) {
                (Val::Int(a), Val::Int(b)) => {
                    let out = value::binary_in(lang, op, &a, &b, expected);
                    out.dropped.into_iter().for_each(|t| path.read(t));
                    out.val
                }
                (Val::Unknown(u), other) | (other, Val::Unknown(u)) => unknown_with(u, &other),
                _ => unknown(format!(
                    "`{}` on a value that is not an integer",
                    op.symbol()
                )),
            })
        });
        // A division by zero panics, in release builds too: past `1000 / n`, `n` is not 0.
        if matches!(op, ir::Op::Div | ir::Op::Rem) {
            for (path, _) in &mut outs {
                if path.normal()
                    && let Some((name, steps)) = alias_steps(r)
                    && steps.is_empty()
                    && let Some(Val::Int(d)) = path.lookup(name).map(|b| &b.val)
                    && d.set.contains(0)
                    && let Some(nonzero) = rest(&d.set, &AbstractInt::known(0))
                {
                    self.narrow(path, r, nonzero);
                }
            }
        }
        outs
    }

    /// A comparison or `&&` / `||` as a value: each path with what it decided.
    fn eval_condition(&mut self, e: &Expr, path: Path) -> Outs {
        self.condition(e, path)
            .into_iter()
            .map(|(p, holds)| (p, Val::Bool(Some(holds))))
            .collect()
    }

    fn eval_cast(&mut self, inner: &Expr, ty: IntTy, path: Path) -> Outs {
        let split = (self.mode.lang == value::Lang::Cpp
            && !ty.signed()
            && operand_ty(inner, &path).is_some_and(IntTy::signed))
        .then(|| self.sign_split(inner, &path))
        .flatten();
        let paths = split.unwrap_or_else(|| vec![path]);
        paths
            .into_iter()
            .flat_map(|path| self.eval(inner, path, None))
            .map(|(mut path, v)| {
                let v = v.map(&mut |v| match v {
                    Val::Int(i) => {
                        let out = value::cast(&i, ty);
                        out.dropped.into_iter().for_each(|t| path.read(t));
                        out.val
                    }
                    Val::Bool(Some(b)) => Val::int(i128::from(b), Some(ty)),
                    other => other,
                });
                (path, v)
            })
            .collect()
    }

    fn eval_method(
        &mut self,
        receiver: &Expr,
        method: Method,
        args: &[Expr],
        path: Path,
        expected: Option<IntTy>,
    ) -> Outs {
        if let [arg] = args
            && let Some(clamp) = self.as_clamp(receiver, method, arg, &path, expected)
        {
            // Kept where the reader follows both ways: the clamp's condition applied to the
            // input's values, or, for a product of inputs (`min(nh * hs, 512)`), left for a
            // later test of all but one of them to apply ([`Interp::blurred_now`]; one input
            // through a step the reader cannot undo, `n.div_ceil(32).min(1024)`, stays one
            // run-time value, as before); and no
            // launch made uncertain by it (a clamp of `a` after a test of `a > b` it cannot
            // apply, or of a value computed from an input that a later test narrows, stays
            // one run-time value).
            let decided = path.decisions.len();
            let uncertain = path.uncertain.is_some();
            let outs = self.eval_if(&clamp, path.clone(), expected);
            if outs.iter().all(|(p, _)| {
                (uncertain || p.uncertain.is_none())
                    && p.decisions
                        .get(decided..)
                        .is_some_and(|new| new.iter().all(|d| !d.blurred || of_a_product(d)))
            }) {
                return outs;
            }
        }
        let mut operands = vec![(receiver, expected)];
        let arg_expected = if method == Method::Pow {
            Some(IntTy::U32)
        } else {
            expected
        };
        operands.extend(args.iter().map(|a| (a, arg_expected)));
        self.operands(&operands, path, |path, vals| int_method(method, vals, path))
    }

    /// `a.min(b)` or `a.max(b)` (C++'s `std::min(a, b)`) of a known bound and a run-time
    /// interval on both sides of it, as the `if` that clamps (`n.min(512)` is `if n < 512 {
    /// n } else { 512 }`): the bound's launch is a path of its own, checked, and the other
    /// keeps the value narrowed below the bound (docs/READING-CORE.md, stage 3: one rule
    /// for both languages). Only for operands computed again cheaply (names, literals,
    /// arithmetic); a finite set is clamped member by member already.
    fn as_clamp(
        &mut self,
        receiver: &Expr,
        method: Method,
        arg: &Expr,
        path: &Path,
        expected: Option<IntTy>,
    ) -> Option<ir::If> {
        // The way the run-time value is kept first (the order launches are listed in).
        let kept = match method {
            Method::Min => Comparison::Lt,
            Method::Max => Comparison::Gt,
            _ => return None,
        };
        if !recomputed_cheaply(receiver, 0) || !recomputed_cheaply(arg, 0) {
            return None;
        }
        let outs = self.sequence(&[(receiver, expected), (arg, expected)], path.clone());
        let [(p, vals)] = outs.as_slice() else {
            return None;
        };
        let [Val::Int(a), Val::Int(b)] = vals.as_slice() else {
            return None;
        };
        if !p.normal() {
            return None;
        }
        let (run, bound, run_e, bound_e) = match (a.value(), b.value()) {
            (None, Some(_)) if a.set.members().is_none() => (a, b, receiver, arg),
            (Some(_), None) if b.set.members().is_none() => (b, a, arg, receiver),
            _ => return None,
        };
        if value::compare(kept, run, bound) != Truth::Sometimes {
            return None;
        }
        Some(ir::If {
            condition: Expr::Compare(kept, Box::new(run_e.clone()), Box::new(bound_e.clone())),
            then: Block {
                stmts: Vec::new(),
                tail: Some(run_e.clone()),
            },
            otherwise: Some(Expr::Block(Box::new(Block {
                stmts: Vec::new(),
                tail: Some(bound_e.clone()),
            }))),
            at: At::NONE,
        })
    }

    fn eval_tuple(&mut self, items: &[Expr], path: Path, expected: Option<IntTy>) -> Outs {
        let operands: Vec<(&Expr, Option<IntTy>)> = items.iter().map(|e| (e, expected)).collect();
        self.sequence(&operands, path)
            .into_iter()
            .map(|(p, vals)| (p, Val::Tuple(vals)))
            .collect()
    }

    fn eval_field(
        &mut self,
        base: &Expr,
        field: &Field,
        path: Path,
        expected: Option<IntTy>,
    ) -> Outs {
        self.eval(base, path, expected)
            .into_iter()
            .map(|(p, v)| {
                let v = v.map(&mut |v| self.field_value(v, field));
                (p, v)
            })
            .collect()
    }

    /// [`field_of`], where a named field of a run-time input (`self.asc`, `op.cfg.block`)
    /// depends on an input of its own, not on the whole: conditions on two fields of
    /// `self` are on two values (candle's `if self.asc` and `n < self.last_dim`), not two
    /// conditions on one value whose ways go together in a way the reader does not know.
    fn field_value(&mut self, v: Val, field: &Field) -> Val {
        let (Val::Unknown(u), Field::Named(name)) = (&v, field) else {
            return field_of(v, field);
        };
        let whole = match (u.source, u.roots.as_slice()) {
            (Some(s), _) => s,
            (None, &[r]) if self.field_sources.values().any(|&f| f == r) => r,
            _ => return field_of(v, field),
        };
        let whole = self.original(whole);
        let key = (whole, name.clone());
        let part = match self.field_sources.get(&key) {
            Some(&part) => part,
            None => {
                let info = &self.sources[whole as usize];
                let part_name = format!("{}.{name}", info.key.name);
                let at = info.key.at;
                let what = format!("`{part_name}` is a field of a run-time value");
                let part = self.source(
                    what,
                    SourceKey {
                        name: part_name,
                        at,
                    },
                );
                self.field_sources.insert(key, part);
                part
            }
        };
        match field_of(v, field) {
            Val::Unknown(u) => Val::Unknown(Unknown {
                roots: vec![part],
                ..u
            }),
            other => other,
        }
    }

    fn eval_if(&mut self, i: &ir::If, path: Path, expected: Option<IntTy>) -> Outs {
        let mut outs = Vec::new();
        for (path, holds) in self.condition(&i.condition, path) {
            if !path.normal() {
                outs.push((path, unknown("")));
            } else if holds {
                outs.extend(self.eval_block(&i.then, path, expected));
            } else {
                match &i.otherwise {
                    Some(e) => outs.extend(self.eval(e, path, expected)),
                    None => outs.push((path, Val::Tuple(Vec::new()))),
                }
            }
        }
        self.bounded(outs, i.at)
    }

    /// `return value` (`brk` is `None`) or `break 'label value` (`brk` holds the label).
    fn eval_exit(&mut self, value: Option<&Expr>, brk: Option<Option<String>>, path: Path) -> Outs {
        let outs = match value {
            Some(v) => self.eval(v, path, None),
            None => vec![(path, Val::Tuple(Vec::new()))],
        };
        outs.into_iter()
            .map(|(mut p, v)| {
                if p.normal() {
                    p.flow = match &brk {
                        None => Flow::Return(Box::new(v)),
                        Some(label) => Flow::Break(label.clone(), Box::new(v)),
                    };
                }
                (p, unknown(""))
            })
            .collect()
    }

    fn eval_ref(
        &mut self,
        inner: &Expr,
        mutable: bool,
        path: Path,
        expected: Option<IntTy>,
    ) -> Outs {
        let outs = self.eval(inner, path, expected);
        if !mutable {
            return outs;
        }
        // `&mut x`: whatever takes it may change `x`. Except a launch builder's kernel
        // when the builder is an argument of a method call (candle's
        // `ds.builder_arg(&mut builder)`, which pushes arguments): cudarc's `LaunchArgs` has
        // no method that changes its function. Given to a function (`mem::swap`, a crate's
        // `fn swap(b: &mut Builder, ..)`) or bound by `let` (`let r = &mut builder; *r =
        // ..`), it is unknown after, as any value: those can replace the whole builder. A
        // method that replaces it would not be seen; no crate of the corpus has one.
        let Some(name) = place_root(inner) else {
            return outs;
        };
        let pushes_arguments = self.method_loans.contains(&(inner as *const Expr));
        outs.into_iter()
            .map(|(mut p, v)| {
                let version = self.version();
                if let Some(b) = p.lookup_mut(&name)
                    && !(pushes_arguments && matches!(b.val, Val::Builder(_)))
                {
                    let why =
                        format!("`{name}` is lent mutably (`&mut {name}`), which may change it");
                    b.val = match &b.val {
                        // Still a configuration, launched as such: its values are what is
                        // not known (the launch is not lost as "no launch found").
                        Val::Config(c) => Val::Config(Rc::new(ConfigVal {
                            grid: unknown(why.as_str()),
                            block: unknown(why.as_str()),
                            smem: unknown(why.as_str()),
                            origin: c.origin.clone(),
                            at: c.at,
                            texts: [Rc::from(name.as_str()), Rc::from(name.as_str())],
                        })),
                        _ => unknown(why),
                    };
                    b.version = version;
                }
                (p, v)
            })
            .collect()
    }

    /// Launches inside a closure are the body's launches, with its parameters unknown; what
    /// it changes is not seen outside it.
    fn eval_closure(&mut self, params: &[Pat], body: &Expr, path: Path) -> Outs {
        let mut inner = path.clone();
        for p in params {
            let mut names = Vec::new();
            pat_names(p, &mut names);
            for name in names {
                let version = self.version();
                inner.top_mut().env.push(Binding {
                    name: name.as_str().into(),
                    val: unknown(format!("`{name}` is a closure parameter")),
                    version,
                    pending: None,
                });
            }
        }
        let depth = path.top().env.len();
        for (mut p, _) in self.eval(body, inner, None) {
            self.leave_scope(&mut p, depth);
        }
        // What the closure assigns of the enclosing bindings (`let mut fix = || b = 256;`)
        // may change whenever it is called: not known from here on.
        let mut path = path;
        let mut assigned = Vec::new();
        assigned_names(body, &mut assigned, 0);
        for (name, _) in assigned {
            let Some(b) = path.lookup(&name) else {
                continue;
            };
            if matches!(b.val, Val::Int(_)) {
                self.havoc_int(&mut path, &name);
            } else {
                let version = self.version();
                let why = format!("`{name}` is assigned by a closure");
                if let Some(b) = path.lookup_mut(&name) {
                    b.val = unknown(why);
                    b.version = version;
                }
            }
        }
        vec![(path, unknown("a closure"))]
    }

    /// `assert!(cond)`: the paths where it fails stop there.
    fn eval_assert(&mut self, cond: &Expr, path: Path) -> Outs {
        self.condition(cond, path)
            .into_iter()
            .map(|(mut p, holds)| {
                if !holds && p.normal() {
                    p.flow = Flow::Diverged;
                }
                (p, Val::Tuple(Vec::new()))
            })
            .collect()
    }

    fn eval_cust(&mut self, c: &ir::CustLaunch, path: Path) -> Outs {
        let config = Expr::Tuple(vec![
            c.grid.clone(),
            c.block.clone(),
            c.smem.clone(),
            Expr::Tuple(c.template_args.clone()),
        ]);
        let mut outs = Vec::new();
        for (mut path, v) in self.eval(&config, path, Some(IntTy::U32)) {
            if !path.normal() {
                outs.push((path, unknown("")));
                continue;
            }
            let (v, template_args) = match v {
                Val::Tuple(mut parts) if parts.len() == 4 => {
                    let args = match parts.pop() {
                        Some(Val::Tuple(args)) => template_args(&args),
                        _ => None,
                    };
                    (Val::Tuple(parts), args)
                }
                other => (other, None),
            };
            let v = v.map(&mut |v| match v {
                Val::Tuple(mut parts) if parts.len() == 3 => {
                    let smem = parts.pop().unwrap_or_else(|| unknown(""));
                    let block = parts.pop().unwrap_or_else(|| unknown(""));
                    let grid = parts.pop().unwrap_or_else(|| unknown(""));
                    Val::Config(Rc::new(ConfigVal {
                        grid,
                        block,
                        smem,
                        origin: vec!["cust's `launch!`".to_owned()],
                        at: [c.block_at, c.smem_at, c.grid_at, c.at],
                        texts: [ir::text(&c.block).into(), ir::text(&c.smem).into()],
                    }))
                }
                other => other,
            });
            // A C++ name bound to a kernel (`auto k = softmax<float>; k<<<..>>>`): that
            // kernel; bound to anything else (`NULL`, a value not read), no kernel known.
            // (cust's `launch!(module.name<<<..>>>)` names a member, not a binding.)
            let cpp = self.mode.lang == value::Lang::Cpp;
            let bound = c.kernel.as_ref().filter(|_| cpp).and_then(|(name, _)| {
                path.lookup(name).map(|b| match path.view(b.val.clone()) {
                    Val::Kernel(k) => Some(k),
                    _ => None,
                })
            });
            let kernel = bound.unwrap_or_else(|| {
                c.kernel.as_ref().map(|(name, at)| {
                    self.kernels.push((name.clone(), *at));
                    Kernel {
                        name: name.clone(),
                        glob: false,
                        at: *at,
                        refill: None,
                        template_args: template_args.clone(),
                    }
                })
            });
            if path.top().wrapper || self.mode.chevrons_in_callees {
                self.record(&mut path, v, kernel, None, c.at);
            }
            outs.push((path, unknown("")));
        }
        outs
    }

    /// A type written where a value may be ([`Expr::Type`]): the binding or the constant
    /// its single name names (a template parameter, a `using` alias, an enumerator), else
    /// the type, its name resolved through a binding to a type and its arguments evaluated.
    fn eval_type(&mut self, t: &ir::TypeExpr, path: Path) -> Outs {
        let single = t.args.is_empty() && t.declarator.is_empty();
        let named = IrPath {
            leading_colon: false,
            segments: t.name.split("::").map(names::seg).collect(),
        };
        let base = match path.lookup(&t.name) {
            Some(b) if single => return vec![(path.clone(), path.view(b.val.clone()))],
            Some(b) => match &b.val {
                Val::Type(ty) => Some(ty.to_string()),
                _ => None,
            },
            None => None,
        };
        let base = match base {
            Some(b) => b,
            None => {
                let place = path.top().place.clone();
                match self.names.resolve(&named, &place) {
                    Ok(Def::Const(..) | Def::Builtin(..)) if single => {
                        let (path, v) = self.name(&named, At::NONE, path, None);
                        return vec![(path, v)];
                    }
                    Ok(Def::Type(_, name)) => name,
                    _ => t.name.clone(),
                }
            }
        };
        if t.args.is_empty() {
            return vec![(path, Val::Type(format!("{base}{}", t.declarator).into()))];
        }
        let operands: Vec<(&Expr, Option<IntTy>)> = t.args.iter().map(|a| (a, None)).collect();
        self.operands(&operands, path, |_, vals| match template_args(vals) {
            Some(args) => Val::Type(
                format!(
                    "{}{}",
                    crate::launches::instantiation_text(&base, Some(&args)),
                    t.declarator
                )
                .into(),
            ),
            None => unknown(format!(
                "a template argument of `{}` not known here",
                ir::text(&Expr::Type(Box::new(t.clone())))
            )),
        })
    }

    /// An opt-in ([`Expr::OptIn`]): on each path where the kernel is known, the latest for
    /// it (bytes not an integer: known only at run time). Its value (an error code) is not
    /// read.
    fn eval_opt_in(&mut self, o: &ir::OptIn, path: Path) -> Outs {
        let operands = [(&o.kernel, None), (&o.bytes, Some(IntTy::U32))];
        let mut outs = Vec::new();
        for (mut path, vals) in self.sequence(&operands, path) {
            if !path.normal() {
                outs.push((path, unknown("")));
                continue;
            }
            if let [Val::Kernel(k), bytes] = vals.as_slice() {
                let bytes = match bytes {
                    Val::Int(i) => i.clone(),
                    _ => Int {
                        set: AbstractInt::unknown(),
                        ty: Some(IntTy::U32),
                        term: None,
                        roots: bytes.roots(),
                        source: None,
                        moved: None,
                    },
                };
                path.opt_ins.retain(|(other, _)| !same_kernel(other, k));
                path.opt_ins.push((k.clone(), bytes));
            }
            outs.push((path, unknown("the error code of an opt-in")));
        }
        outs
    }

    /// `sizeof(T)` or `alignof(T)` ([`Expr::SizeOf`]): the layout the front end gives the
    /// type the path binds.
    fn eval_size_of(&mut self, t: &Expr, align: bool, path: Path) -> Outs {
        let mut outs = Vec::new();
        for (path, v) in self.eval(t, path, None) {
            let layout = match &v {
                Val::Type(ty) => self
                    .names
                    .type_layout(ty)
                    .ok_or_else(|| unknown(format!("the layout of `{ty}` is not read"))),
                Val::Unknown(_) => Err(v.clone()),
                _ => Err(unknown(format!("`{}` is not a type", ir::text(t)))),
            };
            match layout {
                Ok((_, alignment)) if align => {
                    outs.push((path, Val::int(i128::from(alignment), Some(IntTy::Usize))));
                }
                Ok((size, _)) => outs.extend(self.eval(&size, path, Some(IntTy::Usize))),
                Err(v) => outs.push((path, v)),
            }
        }
        outs
    }

    /// Evaluates `operands` in order on `path` (each may split it), then applies `f` on
    /// each path once the operands hold values of at most one run-time set.
    fn operands(
        &mut self,
        operands: &[(&Expr, Option<IntTy>)],
        path: Path,
        mut f: impl FnMut(&mut Path, &[Val]) -> Val,
    ) -> Outs {
        let mut outs = Vec::new();
        for (path, vals) in self.sequence(operands, path) {
            if !path.normal() {
                outs.push((path, unknown("")));
                continue;
            }
            for (mut path, vals) in self.split(path, vals) {
                let v = f(&mut path, &vals);
                outs.push((path, v));
            }
        }
        outs
    }

    /// Evaluates `operands` in order, threading the paths.
    fn sequence(
        &mut self,
        operands: &[(&Expr, Option<IntTy>)],
        path: Path,
    ) -> Vec<(Path, Vec<Val>)> {
        let mut acc: Vec<(Path, Vec<Val>)> = vec![(path, Vec::with_capacity(operands.len()))];
        for (e, expected) in operands {
            let mut next = Vec::new();
            for (path, vals) in acc {
                if !path.normal() {
                    next.push((path, vals));
                    continue;
                }
                let mut outs = self.eval(e, path, *expected);
                // The last way takes the values so far; the others, copies.
                let last = outs.pop();
                for (p, v) in outs {
                    let mut vals = vals.clone();
                    vals.push(v);
                    next.push((p, vals));
                }
                if let Some((p, v)) = last {
                    let mut vals = vals;
                    vals.push(v);
                    next.push((p, vals));
                }
            }
            acc = next;
        }
        acc
    }

    /// Splits `path` so that `vals` hold values of at most one run-time set: a value of a
    /// second set is taken member by member (one path each), so that no pairing of the two
    /// is made that the code cannot make.
    fn split(&mut self, path: Path, vals: Vec<Val>) -> Vec<(Path, Vec<Val>)> {
        let mut found = Vec::new();
        for v in &vals {
            v.choices(&mut found, 0);
        }
        if found.len() < 2 {
            return vec![(path, vals)];
        }
        let mut acc = vec![(path, vals)];
        for c in &found[1..] {
            let mut next = Vec::new();
            for (path, vals) in acc {
                next.extend(self.fork_on(path, *c).into_iter().map(|p| {
                    let vals = vals.iter().map(|v| p.view(v.clone())).collect();
                    (p, vals)
                }));
            }
            acc = self.bounded(next, At::NONE);
        }
        acc
    }

    /// One path per member of `choice` this path allows, each with that member fixed.
    fn fork_on(&mut self, path: Path, choice: ChoiceId) -> Vec<Path> {
        let n = self
            .choices
            .get(choice as usize)
            .map_or(0, |c| c.members.len());
        let mask = path.mask(choice, all_members(n));
        let mut out = Vec::new();
        for i in 0..n.min(64) {
            if mask & (1 << i) != 0 {
                let mut p = path.clone();
                p.set_mask(choice, 1 << i);
                out.push(p);
            }
        }
        out
    }

    /// C++: `Traits::kNThreads` where the path binds `Traits` to a type (`using Traits =
    /// AttentionTraits<kHeadDim>;`, a template's type parameter), or
    /// `AttentionTraits<kHeadDim>::kNThreads` whose arguments the path gives: the member of
    /// the type, its scope spelled as the type's value (`AttentionTraits<64>`), for the
    /// front end to answer.
    fn member_of_bound_type(&mut self, p: &IrPath, path: &Path) -> Option<IrPath> {
        if self.mode.lang != value::Lang::Cpp || p.segments.len() < 2 {
            return None;
        }
        let first = &p.segments[0];
        let ty = if first.args.is_empty() {
            match path
                .lookup(&first.ident)
                .map(|b| path.view(b.val.clone()))?
            {
                Val::Type(ty) => ty.to_string(),
                _ => return None,
            }
        } else {
            let t = ir::TypeExpr {
                name: first.ident.clone(),
                args: first
                    .args
                    .iter()
                    .map(|a| {
                        a.value.clone().unwrap_or_else(|| {
                            Expr::Type(Box::new(ir::TypeExpr {
                                name: a.text.clone(),
                                args: Vec::new(),
                                declarator: String::new(),
                            }))
                        })
                    })
                    .collect(),
                declarator: String::new(),
            };
            match self.eval_type(&t, path.clone()).as_slice() {
                [(_, Val::Type(ty))] => ty.to_string(),
                _ => return None,
            }
        };
        if ty == first.ident {
            return None;
        }
        let mut member = p.clone();
        member.segments[0] = names::seg(&ty);
        Some(member)
    }

    // ---------------------------------------------------------------- names

    /// The value of a path expression.
    fn name(&mut self, p: &IrPath, at: At, path: Path, expected: Option<IntTy>) -> (Path, Val) {
        if let Some(name) = p.single()
            && let Some(b) = path.lookup(name)
        {
            let v = path.view(b.val.clone());
            return (path, v);
        }
        if let Some(member) = self.member_of_bound_type(p, &path) {
            return self.name(&member, at, path, expected);
        }
        let frame = path.top().clone();
        // A constant declared at the top of the wrapper's body.
        if let Some(name) = p.single()
            && frame.terms == Terms::AsWritten
            && let Some(def) =
                names::unique(self.names.body_consts().iter().filter(|c| c.name == name))
        {
            let def = def.clone();
            let (module, _) = self.names.place(&frame.place);
            let known = self.const_value(&def, module, None, &format!("body::{name}"));
            return (
                path,
                self.named(known, p, at, frame.terms, "the wrapper's body"),
            );
        }
        // `Option::None` as written; a bare `None`, where the crate defines no such name.
        if is_none_path(p) && p.single().is_none() {
            return (path, Val::Nothing);
        }
        let def = match self.names.resolve(p, &frame.place) {
            Ok(def) => def,
            Err(_) if is_none_path(p) => return (path, Val::Nothing),
            Err(why) => return (path, unknown(why)),
        };
        let val = match def {
            Def::Const(def, module, self_ty) => {
                let key = format!(
                    "{}::{}{}",
                    module.text(self.names.lib_name()),
                    self_ty
                        .as_deref()
                        .map_or(String::new(), |t| format!("{t}::")),
                    def.name
                );
                let place = self.names.place_of(&module);
                let known = self.const_value(&def, Some(module.clone()), self_ty.clone(), &key);
                match (frame.terms, known) {
                    (Terms::FromRoot, Ok(k)) => {
                        match self.names.root_path(&module, self_ty.as_deref(), &def) {
                            Ok(root) => Val::Int(Int {
                                term: Some(Rc::new(Term {
                                    expr: Expr::Path(root, At::NONE),
                                    in_body: false,
                                    names: vec![format!(
                                        "`{}` = {} in {place}",
                                        def.name,
                                        k.value().unwrap_or_default()
                                    )],
                                    at,
                                    value: k.value().unwrap_or_default(),
                                })),
                                ..k
                            }),
                            Err(why) => unknown(why),
                        }
                    }
                    (Terms::FromRoot, Err(why)) => unknown(why),
                    (terms, known) => self.named(known, p, at, terms, &place),
                }
            }
            Def::Builtin(value, ty) => {
                // A fact of the language: `u32::MAX` names the same everywhere, unless a
                // crate item shadows `u32` (then the lookup found that item instead).
                let term = match frame.terms {
                    Terms::Off => None,
                    _ => Some(Term {
                        expr: Expr::Path(p.clone(), At::NONE),
                        in_body: false,
                        names: Vec::new(),
                        at,
                        value,
                    }),
                };
                Val::Int(Int::known(value, Some(ty), term))
            }
            Def::Primitive(_) | Def::Fn(..) | Def::Module(_) | Def::Type(..) => {
                unknown(format!("`{}` is not a constant", p.text()))
            }
            Def::External(krate) => unknown(format!(
                "`{}` is from the crate `{krate}`, whose sources are not read",
                p.text()
            )),
            Def::Kernel(name) => self.kernel_designated(name, p, at, &path),
        };
        let _ = expected;
        let val = path.view(val);
        (path, val)
    }

    /// The kernel `name` designated as a value (`softmax<float, 128>`), its template
    /// arguments those written on the path's last segment, evaluated on `path` (constants:
    /// where one takes several values, the instantiation is not known).
    fn kernel_designated(&mut self, name: String, p: &IrPath, at: At, path: &Path) -> Val {
        let args: Vec<&Expr> = p
            .segments
            .last()
            .map(|s| s.args.iter().filter_map(|a| a.value.as_ref()).collect())
            .unwrap_or_default();
        let written = p.segments.last().map_or(0, |s| s.args.len());
        let mut vals = Vec::new();
        for a in &args {
            match self.eval(a, path.clone(), None).as_slice() {
                [(_, v)] => vals.push(v.clone()),
                _ => vals.push(unknown("")),
            }
        }
        let template_args = (vals.len() == written)
            .then(|| template_args(&vals))
            .flatten();
        self.kernels.push((name.clone(), at));
        let kernel = Kernel {
            name,
            glob: false,
            at,
            refill: None,
            template_args,
        };
        Val::Kernel(kernel)
    }

    /// A constant's value with the name as written as its term.
    fn named(
        &self,
        known: Result<Int, String>,
        p: &IrPath,
        at: At,
        terms: Terms,
        place: &str,
    ) -> Val {
        match known {
            Ok(k) => {
                let term = match terms {
                    Terms::Off => None,
                    _ => Some(Rc::new(Term {
                        expr: Expr::Path(p.clone(), At::NONE),
                        in_body: p.segments.first().is_some_and(|s| s.ident == "Self"),
                        names: vec![format!(
                            "`{}` = {} in {place}",
                            p.text(),
                            k.value().unwrap_or_default()
                        )],
                        at,
                        value: k.value().unwrap_or_default(),
                    })),
                };
                Val::Int(Int { term, ..k })
            }
            Err(why) => unknown(why),
        }
    }

    /// The value of a constant's definition, evaluated once per expansion.
    fn const_value(
        &mut self,
        def: &ConstDef,
        module: Option<ModuleId>,
        self_ty: Option<String>,
        key: &str,
    ) -> Result<Int, String> {
        if let Some(known) = self.cache.get(key) {
            return known.clone();
        }
        if self.calls.iter().any(|k| k == key) {
            return Err(format!("`{}` is defined in terms of itself", def.name));
        }
        if self.calls.len() > MAX_CALLS {
            return Err(format!("names nest more than {MAX_CALLS} deep"));
        }
        // A definition under `#[cfg]` is used (a second one of the name would have made it
        // ambiguous); that its value may depend on the configuration is the compiler's
        // confirmation's to catch.
        let Some(ty) = def.ty else {
            return Err(format!(
                "`{}` is a `{}`, not an integer",
                def.name, def.ty_text
            ));
        };
        self.calls.push(key.to_owned());
        let place = match module {
            Some(m) => Place::module(m, self_ty),
            None => Place {
                module: None,
                self_ty: None,
                at_wrapper: false,
            },
        };
        let path = Path::new(Frame {
            place,
            terms: Terms::Off,
            env: Shared::default(),
            wrapper: false,
            blocks: 0,
        });
        let outs = self.eval(&def.expr, path, Some(ty));
        self.calls.pop();
        let known = match outs.as_slice() {
            [(_, Val::Int(k))] if k.value().is_some() => {
                let value = k.value().unwrap_or_default();
                if value < ty.min() || value > ty.max() {
                    Err(format!(
                        "`{}` = {value} does not fit its type {}",
                        def.name,
                        ty.name()
                    ))
                } else {
                    Ok(Int::known(value, Some(ty), None))
                }
            }
            [(_, Val::Unknown(u))] => Err(format!("`{}` could not be read: {}", def.name, u.why)),
            _ => Err(format!("`{}` is not a single integer", def.name)),
        };
        self.cache.insert(key.to_owned(), known.clone());
        known
    }

    // ---------------------------------------------------------------- calls

    /// cudarc's `LaunchConfig::for_num_elems(n)` (0.5.1 to 0.19.x: 1024 threads,
    /// `n.div_ceil(1024)` blocks, 0 B).
    fn for_num_elems(&mut self, n: &Expr, at: At, path: Path) -> Outs {
        let mut outs = Vec::new();
        for (mut path, n) in self.eval(n, path, Some(IntTy::U32)) {
            let v = n.map(&mut |n| {
                let block = Val::int(1024, Some(IntTy::U32));
                let grid_x = int_method(Method::DivCeil, &[n, block.clone()], &mut path);
                let one = || Val::int(1, Some(IntTy::U32));
                Val::Config(Rc::new(ConfigVal {
                    grid: Val::Tuple(vec![grid_x, one(), one()]),
                    block: Val::Tuple(vec![block, one(), one()]),
                    smem: Val::int(0, Some(IntTy::U32)),
                    origin: vec![
                        "cudarc's `LaunchConfig::for_num_elems` (1024 threads, 0 B)".to_owned(),
                    ],
                    at: [at; 4],
                    texts: ["1024".into(), "0".into()],
                }))
            });
            outs.push((path, v));
        }
        outs
    }

    /// `size_of::<T>()` / `align_of::<T>()` of std (not a function of the crate of that
    /// name): the size of a primitive `T`, with its term.
    fn primitive_size_of(&mut self, p: &IrPath, at: At, path: Path) -> Outs {
        let frame = path.top().clone();
        let ty = p
            .segments
            .last()
            .and_then(|s| s.args.first())
            .map(|a| a.text.replace(' ', ""));
        let Some(size) = ty.as_deref().and_then(names::primitive_size) else {
            return vec![(
                path,
                unknown(format!(
                    "`{}()` is the size of a type other than a primitive, which the \
                     reader does not compute",
                    p.text()
                )),
            )];
        };
        let term = match frame.terms {
            Terms::Off => None,
            Terms::AsWritten => Some(Term {
                expr: Expr::Call(p.clone(), Vec::new(), At::NONE),
                in_body: false,
                names: Vec::new(),
                at,
                value: size,
            }),
            Terms::FromRoot => Some(Term {
                expr: Expr::Call(names::core_mem(p), Vec::new(), At::NONE),
                in_body: false,
                names: Vec::new(),
                at: At::NONE,
                value: size,
            }),
        };
        vec![(path, Val::Int(Int::known(size, Some(IntTy::Usize), term)))]
    }

    fn call(&mut self, p: &IrPath, args: &[Expr], at: At, path: Path) -> Outs {
        let idents = p.idents();
        if let Some(call) = LibraryCall::of(&idents, args.len()) {
            return self.library_call(call, args, at, path);
        }
        if let Some(p) = self.launch_helper(&idents, &path) {
            return self.helper_launch(idents.last().copied().unwrap_or(""), p, args, at, path);
        }
        if matches!(idents.last(), Some(&("size_of" | "align_of")))
            && args.is_empty()
            && !matches!(self.names.resolve(p, &path.top().place), Ok(Def::Fn(..)))
        {
            return self.primitive_size_of(p, at, path);
        }
        let Some(spread) = spread_args(args, &path) else {
            let why = "a pack expansion of no parameter pack the reader holds";
            return self.opaque_call(args, why.to_owned(), path);
        };
        let args = spread.as_ref();
        let frame = path.top().clone();
        let (def, module, self_ty) = match self.names.resolve_call(p, &frame.place, args.len()) {
            Ok(Def::Fn(def, module, self_ty)) => (def, module, self_ty),
            Ok(Def::External(krate)) => {
                let why = format!(
                    "`{}` is a function of the crate `{krate}`, whose sources are not read",
                    p.text()
                );
                return self.opaque_call(args, why, path);
            }
            Ok(_) => {
                let why = format!("`{}` is not a function", p.text());
                return self.opaque_call(args, why, path);
            }
            // `min(a, b)` / `max(a, b)` imported from `std::cmp`.
            Err(_) if matches!(idents.as_slice(), ["min" | "max"]) && args.len() == 2 => {
                let method = if idents[0] == "min" {
                    Method::Min
                } else {
                    Method::Max
                };
                return self.operands(&[(&args[0], None), (&args[1], None)], path, |path, vals| {
                    int_method(method, vals, path)
                });
            }
            Err(why) => return self.opaque_call(args, why, path),
        };
        // A function that never returns (`fn fail(..) -> !`): the path ends there.
        if def.returns == Returns::Never {
            let ended = self.opaque_call(args, String::new(), path);
            return ended
                .into_iter()
                .map(|(p, v)| (with_flow(p, Flow::Diverged), v))
                .collect();
        }
        let key = self.call_key(&module, &def, args.len());
        let packed = packed_args(&def, args);
        let args = packed.as_ref();
        if def.params.len() != args.len() {
            let why = format!(
                "`{}` takes {} arguments, given {}",
                def.name,
                def.params.len(),
                args.len()
            );
            return self.opaque_call(args, why, path);
        }
        if self.calls.contains(&key) {
            let why = format!("`{}` calls itself", def.name);
            return self.opaque_call(args, why, path);
        }
        if self.calls.len() > MAX_CALLS {
            let why = format!("calls nest more than {MAX_CALLS} deep");
            return self.opaque_call(args, why, path);
        }
        let (operands, generic_names) = call_operands(p, &def, args);
        let refs: Vec<(&Expr, Option<IntTy>)> = operands.iter().map(|(e, t)| (e, *t)).collect();
        let mut outs = Vec::new();
        for (path, vals) in self.sequence(&refs, path) {
            if !path.normal() {
                outs.push((path, unknown("")));
                continue;
            }
            let before = (def.returns == Returns::Text).then(|| path.clone());
            // Parameters given a name of the caller as it is (`block_for(big)`): what the
            // helper's conditions decide about them is the caller's to keep. Not a name the
            // arguments assign (`f(k, { k = 200; false })`): its binding after them is not
            // the value given.
            let lang = self.mode.lang;
            let mut assigned = Vec::new();
            args.iter()
                .for_each(|a| assigned_names(a, &mut assigned, 0));
            let assigned: Vec<String> = assigned.into_iter().map(|(n, _)| n).collect();
            let aliases: Vec<Alias> = def
                .params
                .iter()
                .zip(args)
                .filter_map(|((pat, ty), arg)| match pat {
                    Pat::Bind(param, None) => {
                        let (written, mut steps) = alias_steps(arg)?;
                        // C++ converts the argument to the parameter's type (an `int` given
                        // to a `uint32_t` wraps where it is negative: no alias there).
                        if let (value::Lang::Cpp, Some(ty)) = (lang, ty) {
                            steps.push(Step::Cast(*ty));
                        }
                        if assigned.iter().any(|n| n == written) {
                            return None;
                        }
                        let caller = path.lookup(written)?;
                        Some(Alias {
                            param: param.as_str().into(),
                            arg: arg.clone(),
                            caller: (caller.name.clone(), caller.version),
                            steps,
                        })
                    }
                    _ => None,
                })
                .collect();
            let returned = self.invoke(
                &def,
                &module,
                self_ty.as_deref(),
                (p, at),
                &generic_names,
                &aliases,
                vals,
                path,
            );
            // A name the helper chooses on several paths: which one goes with which of
            // the caller's paths is not known here (see `Returns::Text`).
            match before {
                Some(before) if returned.iter().filter(|(p, _)| p.normal()).count() > 1 => {
                    let why = format!(
                        "`{}` chooses the name on several paths, which are not tied to the \
                         caller's conditions",
                        def.name
                    );
                    outs.push((before, unknown(why)));
                }
                _ => outs.extend(returned),
            }
        }
        outs
    }

    /// A call of cudarc's or the standard library's that the reader knows: what it gives.
    fn library_call(&mut self, call: LibraryCall, args: &[Expr], at: At, path: Path) -> Outs {
        match call {
            LibraryCall::ForNumElems => self.for_num_elems(&args[0], at, path),
            LibraryCall::Inner => self.eval(&args[0], path, None),
            LibraryCall::Exit => vec![(with_flow(path, Flow::Diverged), unknown(""))],
            LibraryCall::From(ty) => self.eval_cast(&args[0], ty, path),
        }
    }

    /// A call the reader does not follow: its arguments are evaluated (what they change is
    /// seen), its value is a run-time value.
    fn opaque_call(&mut self, args: &[Expr], why: String, path: Path) -> Outs {
        let refs: Vec<(&Expr, Option<IntTy>)> = args.iter().map(|a| (a, None)).collect();
        self.sequence(&refs, path)
            .into_iter()
            .map(|(p, vals)| {
                // What it returns may depend on the run-time inputs it is given.
                let roots = vals
                    .iter()
                    .fold(Vec::new(), |acc, v| value::roots(&acc, &v.roots()));
                let v = Val::Unknown(Unknown {
                    why: why.as_str().into(),
                    roots,
                    source: None,
                    panic: false,
                });
                (p, v)
            })
            .collect()
    }

    /// What a call of `def` given `arity` arguments is known by among the calls being
    /// read (`calls`, where one calling itself is refused): overloads of one name taking
    /// different numbers are different functions, and a variadic one calling itself on a
    /// shorter pack is no recursion.
    fn call_key(&self, module: &ModuleId, def: &FnDef, arity: usize) -> String {
        format!(
            "{}::{}/{arity}",
            module.text(self.names.lib_name()),
            def.name
        )
    }

    /// Runs a function of the crate on argument values (`written`: the call's path and
    /// place; `aliases`: its parameters given a caller's name as it is).
    #[allow(clippy::too_many_arguments)]
    fn invoke(
        &mut self,
        def: &FnDef,
        module: &ModuleId,
        self_ty: Option<&str>,
        (written, at): (&IrPath, At),
        generic_names: &[String],
        aliases: &[Alias],
        vals: Vec<Val>,
        mut path: Path,
    ) -> Outs {
        let caller = path.top().clone();
        let all_known = vals
            .iter()
            .all(|v| matches!(v, Val::Int(i) if i.value().is_some()));
        let const_call = def.is_const && matches!(def.returns, Returns::Int(_)) && all_known;
        if caller.terms == Terms::Off && !const_call {
            let why = if def.returns == Returns::Config {
                format!("`{}` builds a LaunchConfig", def.name)
            } else {
                format!("`{}` is not a `const fn` of known arguments", def.name)
            };
            return vec![(path, unknown(why))];
        }
        // A `const fn` of known arguments is a constant expression itself: the call, with
        // each argument's term (or value), confirms the result. Anything else is a helper:
        // the names it reads are confirmed from the crate root, and the function read is
        // checked to be the function called.
        let terms = if const_call {
            Terms::Off
        } else {
            Terms::FromRoot
        };
        let root = if caller.terms == Terms::Off {
            None
        } else {
            match self.names.fn_root_path(module, self_ty, def, written) {
                Ok(root) => Some(root),
                Err(why) => return vec![(path, unknown(why))],
            }
        };
        // The compiler confirms a helper by naming its function item, which a function
        // generic over types has only with them: one the call does not give them to cannot
        // be confirmed, so it is not read.
        let types_unnamed = written.segments.last().is_none_or(|s| s.args.is_empty());
        if !const_call && caller.wrapper && def.generic_over_types && types_unnamed {
            let why = format!(
                "`{}` is generic over types the call does not name, so the compiler cannot be \
                 asked to confirm that it is the function read",
                def.name
            );
            return vec![(path, unknown(why))];
        }
        if !const_call
            && caller.wrapper
            && let Some(root) = &root
        {
            let read = HelperRead {
                written: written.clone(),
                read: root.clone(),
                at,
            };
            if !path.helpers.contains(&read) {
                path.helpers.push(read);
            }
        }
        let key = self.call_key(
            module,
            def,
            arity(def, &vals[generic_names.len().min(vals.len())..]),
        );
        let mut frame = Frame {
            place: Place::module(module.clone(), self_ty.map(str::to_owned)),
            terms,
            env: Shared::default(),
            wrapper: false,
            blocks: 0,
        };
        let (generics, args) = vals.split_at(generic_names.len().min(vals.len()));
        for (name, v) in generic_names.iter().zip(generics) {
            let version = self.version();
            frame.env.push(Binding {
                name: name.as_str().into(),
                val: v.clone(),
                version,
                pending: None,
            });
        }
        path.frames.push(frame);
        for ((pat, ty), v) in def.params.iter().zip(args) {
            let v = self.stored(v.clone(), *ty);
            path = self.bind(pat, typed_argument(v, *ty), path, At::NONE, None);
        }
        let bound = enter_aliases(&mut path, aliases);
        self.calls.push(key);
        let ret_ty = match def.returns {
            Returns::Int(ty) => Some(ty),
            _ => None,
        };
        let outs = self.eval_block(def.body.get(), path, ret_ty);
        self.calls.pop();
        let place = module.text(self.names.lib_name());
        let mut results = Vec::new();
        for (mut path, v) in outs {
            let v = match std::mem::replace(&mut path.flow, Flow::Normal) {
                Flow::Return(v) => *v,
                Flow::Diverged => {
                    path.flow = Flow::Diverged;
                    v
                }
                _ => v,
            };
            let v = self.stored(v, ret_ty);
            self.return_to_caller(&mut path, aliases, &bound);
            let v = v.map(&mut |v| match v {
                Val::Int(mut i) if const_call && caller.terms != Terms::Off => {
                    i.ty = ret_ty.or(i.ty);
                    let callee = (caller.terms == Terms::FromRoot)
                        .then_some(())
                        .and(root.as_ref());
                    i.term =
                        const_fn_term(&i, &vals, written, callee, &def.name, &place).map(Rc::new);
                    Val::Int(i)
                }
                Val::Int(mut i) => {
                    i.ty = ret_ty.or(i.ty);
                    if caller.terms == Terms::Off || !const_call {
                        i.term = if const_call { None } else { i.term };
                    }
                    Val::Int(i)
                }
                Val::Config(c) => {
                    let mut c = (*c).clone();
                    c.origin
                        .push(format!("the helper `{}` in {place}", def.name));
                    if caller.wrapper {
                        c.at = [at; 4];
                    }
                    Val::Config(Rc::new(c))
                }
                Val::Unknown(u) if def.returns == Returns::Config => Val::Unknown(Unknown {
                    why: format!("in the helper `{}`: {}", def.name, u.why).into(),
                    ..u
                }),
                other => other,
            });
            results.push((path, v));
        }
        results
    }

    /// Leaves a helper's frame (`path`'s top) for the caller's, with what the helper
    /// learnt about its aliased parameters as bound (`bound`, from [`enter_aliases`]): what
    /// a condition on one decided (`if big`, `match dtype`) is the caller's fact about its
    /// own name, so that a later test of it there goes the same way and the helper's value
    /// is never paired with the other way's; what a comparison narrowed one to (`if n <
    /// 256`) is what the caller's name is on this path.
    fn return_to_caller(
        &mut self,
        path: &mut Path,
        aliases: &[Alias],
        bound: &[Option<(Rc<str>, u32)>],
    ) {
        let callee = path.frames.len();
        let kept: Vec<Fact> = path
            .facts
            .iter()
            .filter(|f| f.frame == callee)
            .filter_map(|f| {
                let Expr::Path(p, _) = &f.expr else {
                    return None;
                };
                let (alias, param) = aliases
                    .iter()
                    .zip(bound)
                    .find(|(a, _)| p.single() == Some(&*a.param))?;
                let as_bound = param
                    .as_ref()
                    .is_some_and(|param| f.versions.as_slice() == std::slice::from_ref(param));
                as_bound.then(|| Fact {
                    frame: callee - 1,
                    expr: alias.arg.clone(),
                    versions: vec![alias.caller.clone()],
                    kind: f.kind.clone(),
                })
            })
            .collect();
        // What a comparison narrowed an aliased parameter to (`if n < 256`, the binding
        // as bound) is what the caller's name is on this path.
        let narrowed: Vec<(&Alias, AbstractInt)> = aliases
            .iter()
            .zip(bound)
            .filter_map(|(a, param)| {
                let (name, version) = param.as_ref()?;
                match &path.top().binding(name, *version)?.val {
                    Val::Int(i) => Some((a, i.set.clone())),
                    _ => None,
                }
            })
            .collect();
        path.frames.pop();
        path.facts.retain(|f| f.frame <= path.frames.len());
        path.facts.extend(kept);
        // One caller's name may be given to several parameters (`pick(n, n)`): each
        // narrowing applies to what the call gave, and they meet (a parameter the helper
        // left as given narrows nothing).
        let mut given: Vec<((Rc<str>, u32), AbstractInt)> = Vec::new();
        for (alias, set) in narrowed {
            let (name, version) = &alias.caller;
            let Some(b) = path.top_mut().binding_mut(name, *version) else {
                continue;
            };
            let Val::Int(i) = &mut b.val else { continue };
            let at_call = match given.iter().find(|(c, _)| c == &alias.caller) {
                Some((_, at_call)) => at_call.clone(),
                None => {
                    given.push((alias.caller.clone(), i.set.clone()));
                    i.set.clone()
                }
            };
            // What the parameter was given, and the caller's values that give what the
            // helper narrowed it to (`n + 1 < 256` is `n < 255`).
            let Some(given) = moved(&alias.steps, &at_call) else {
                continue;
            };
            if set == given {
                continue;
            }
            let Some(set) = moved_back(&alias.steps, &set) else {
                continue;
            };
            i.set = if i.set == at_call && alias.steps.is_empty() {
                set
            } else {
                // Both narrowed, or moved: the members of one within the other's bounds.
                let (lo, hi) = set.bounds();
                i.set.within(lo, hi).unwrap_or_else(|| i.set.clone())
            };
            if let Some(s) = i.source {
                self.recheck(path, s);
            }
        }
    }

    /// Configurations the wrapper builds right here (a literal, cudarc's helper, a helper of
    /// the crate): launches when the body calls no launch method and they are not bound by
    /// `let` (a binding is recorded when it goes out of scope, with its last value).
    fn constructions(&mut self, e: &Expr, mut outs: Outs, at: At) -> Outs {
        if self.mode.launch_calls || self.bound_init == Some(e as *const Expr) {
            return outs;
        }
        for (path, v) in &mut outs {
            if path.top().wrapper && path.normal() && has_config(v) {
                let v = v.clone();
                self.record(path, v, None, None, at);
            }
        }
        outs
    }

    /// The kernel `name` of a module whose name is built at run time (dfdx's
    /// `get_func(&format!("concat_{}", E::NAME), "fwd")`): the family `concat_*::fwd`, the
    /// kernels of that name in the modules the pattern matches (a resource manifest's module
    /// is its file's stem). The glob it suggests for the attribute is the qualified one.
    fn qualified_kernel(&mut self, module: &Kernel, name: &str, at: At) -> Val {
        let qualified = format!("{}::{name}", module.name);
        if let Some((glob, glob_at)) = &mut self.kernel_pattern
            && *glob == module.name
        {
            *glob = qualified.clone();
            *glob_at = at;
        }
        Val::Kernel(Kernel {
            name: qualified,
            glob: true,
            at,
            refill: None,
            template_args: Some(Vec::new()),
        })
    }

    fn method_call(
        &mut self,
        receiver: &Expr,
        name: &str,
        args: &[Expr],
        at: At,
        path: Path,
    ) -> Outs {
        let mut operands: Vec<(&Expr, Option<IntTy>)> = vec![(receiver, None)];
        operands.extend(args.iter().map(|a| (a, None)));
        let loans = self.method_loans.len();
        self.method_loans
            .extend(args.iter().filter_map(|a| match a {
                Expr::Ref(inner, true) => Some(&**inner as *const Expr),
                _ => None,
            }));
        let sequenced = self.sequence(&operands, path);
        self.method_loans.truncate(loans);
        let mut outs = Vec::new();
        for (mut path, vals) in sequenced {
            if !path.normal() {
                outs.push((path, unknown("")));
                continue;
            }
            let recv = vals[0].clone();
            let args = &vals[1..];
            let v = match name {
                loader if apis::is_loader_like(loader) => {
                    // A loader of the table names its argument (`get_func(module, name)`); a
                    // crate's own loader, the argument that names a kernel
                    // (`get_or_load_func(name, &MODULE)`).
                    let index = apis::kernel_name_arg(loader).unwrap_or_else(|| {
                        args.iter()
                            .position(|a| matches!(a, Val::Str(_) | Val::Kernel(_)))
                            .unwrap_or(0)
                    });
                    let module = apis::module_name_arg(loader).and_then(|i| args.get(i));
                    match args.get(index) {
                        Some(Val::Str(s)) => {
                            let kat = match self.arg_at(&operands, index + 1) {
                                At(x) if x != At::NONE.0 => At(x),
                                _ => at,
                            };
                            match module {
                                Some(Val::Kernel(m)) if run_time_module(m) => {
                                    self.qualified_kernel(m, s, kat)
                                }
                                _ => {
                                    self.kernels.push((s.clone(), kat));
                                    Val::Kernel(Kernel {
                                        name: s.clone(),
                                        glob: false,
                                        at: kat,
                                        refill: None,
                                        template_args: Some(Vec::new()),
                                    })
                                }
                            }
                        }
                        Some(Val::Kernel(k)) => Val::Kernel(k.clone()),
                        _ => unknown(format!("a kernel loaded by `{name}` with a run-time name")),
                    }
                }
                // A loaded function's own builder (`func.builder()`, a crate's wrapper of
                // `launch_builder`).
                "builder" if matches!(recv, Val::Kernel(_)) => match &recv {
                    Val::Kernel(k) => Val::Builder(Some(k.clone())),
                    _ => Val::Builder(None),
                },
                apis::LAUNCH_BUILDER => Val::Builder(match args.first() {
                    Some(Val::Kernel(k)) => Some(k.clone()),
                    _ => None,
                }),
                "arg" | "args" if matches!(recv, Val::Builder(_)) => recv.clone(),
                m if apis::launch_config_arg(m).is_some() => {
                    if self.mode.launch_calls && path.top().wrapper {
                        let kernel = match &recv {
                            Val::Kernel(k) | Val::Builder(Some(k)) => Some(k.clone()),
                            _ => None,
                        };
                        for (i, a) in args.iter().enumerate() {
                            if has_config(a) {
                                let name = config_name(operands.get(i + 1).map(|(e, _)| *e));
                                self.record(&mut path, a.clone(), kernel.clone(), name, at);
                            }
                        }
                    }
                    unknown(format!("the result of `.{m}`"))
                }
                m if TRANSPARENT_METHODS.contains(&m) => match recv {
                    // `None.unwrap()` panics: no launch follows on this path.
                    Val::Nothing if matches!(m, "unwrap" | "expect") => {
                        Val::panic(format!("`.{m}()` of `None`"))
                    }
                    Val::Nothing if m == "unwrap_or_default" => unknown("a type's default"),
                    Val::Int(mut i) if m == "into" || m == "try_into" => {
                        i.ty = None;
                        i.term = None;
                        Val::Int(i)
                    }
                    other => other,
                },
                _ => {
                    // A method the reader does not know, on an integer binding: it may take
                    // `&mut self` (`m.add_assign(1000)`, a crate trait's `m.bump()`), so the
                    // binding is any value of its type after it, no longer a copy of an input.
                    if let Expr::Path(p, _) = receiver
                        && !reads_only(name)
                        && let Some(binding) = p.single()
                    {
                        self.havoc_int(&mut path, binding);
                    }
                    unknown(format!("a call of the method `{name}`"))
                }
            };
            outs.push((path, v));
        }
        outs
    }

    /// The integer binding `name` (if it is one) changed where the reader cannot follow:
    /// any value of its type after it, no longer a copy of an input, its facts dropped (a
    /// new version).
    fn havoc_int(&mut self, path: &mut Path, name: &str) {
        let Some(Val::Int(i)) = path.lookup(name).map(|b| &b.val) else {
            return;
        };
        let havocked = Val::Int(Int {
            set: i.ty.map_or_else(AbstractInt::unknown, |t| {
                AbstractInt::range(Some(t.min()), Some(t.max()))
            }),
            ty: i.ty,
            term: None,
            roots: i.roots.clone(),
            source: None,
            moved: None,
        });
        let version = self.version();
        if let Some(b) = path.lookup_mut(name) {
            b.val = havocked;
            b.version = version;
        }
    }

    fn arg_at(&self, operands: &[(&Expr, Option<IntTy>)], index: usize) -> At {
        match operands.get(index).map(|(e, _)| *e) {
            Some(Expr::Str(_, at)) => *at,
            Some(Expr::Ref(e, _)) => match &**e {
                Expr::Str(_, at) | Expr::Format(_, at, _) => *at,
                _ => At::NONE,
            },
            Some(Expr::Format(_, at, _)) => *at,
            _ => At::NONE,
        }
    }

    // ---------------------------------------------------------------- structs, configs

    fn struct_lit(&mut self, s: &StructLit, path: Path) -> Outs {
        let is_config = s.name == "LaunchConfig";
        let mut operands: Vec<(&Expr, Option<IntTy>)> = s
            .fields
            .iter()
            .map(|(_, e, _)| (e, is_config.then_some(IntTy::U32)))
            .collect();
        if let Some(rest) = &s.rest {
            operands.push((rest, None));
        }
        let mut outs = Vec::new();
        for (path, vals) in self.sequence(&operands, path) {
            if !path.normal() {
                outs.push((path, unknown("")));
                continue;
            }
            // Fields may hold values of different run-time sets: the launch takes their
            // combinations (and refuses those it cannot pair).
            {
                let rest = s.rest.as_ref().and_then(|_| vals.last().cloned());
                let v = if is_config {
                    self.config_lit(s, &vals, rest)
                } else {
                    let mut fields: Vec<(String, Val)> = s
                        .fields
                        .iter()
                        .zip(&vals)
                        .map(|((n, _, _), v)| (n.clone(), v.clone()))
                        .collect();
                    if let Some(Val::Struct(base)) = &rest {
                        for (n, v) in &base.fields {
                            if !fields.iter().any(|(f, _)| f == n) {
                                fields.push((n.clone(), v.clone()));
                            }
                        }
                    }
                    Val::Struct(Rc::new(StructVal {
                        name: s.name.clone(),
                        fields,
                    }))
                };
                outs.push((path, v));
            }
        }
        outs
    }

    fn config_lit(&mut self, s: &StructLit, vals: &[Val], rest: Option<Val>) -> Val {
        let mut grid = None;
        let mut block = None;
        let mut smem = None;
        let mut at = [s.at, s.at, s.at, s.at];
        let mut texts: [Rc<str>; 2] = ["".into(), "".into()];
        for ((name, e, field_at), v) in s.fields.iter().zip(vals) {
            match name.as_str() {
                "grid_dim" => {
                    grid = Some(v.clone());
                    at[2] = *field_at;
                }
                "block_dim" => {
                    block = Some(v.clone());
                    at[0] = *field_at;
                    texts[0] = block_text(e).into();
                }
                "shared_mem_bytes" => {
                    smem = Some(v.clone());
                    at[1] = *field_at;
                    texts[1] = ir::text(e).into();
                }
                other => return unknown(format!("a `LaunchConfig` with a field `{other}`")),
            }
        }
        let from_rest = |field: &str, pick: fn(&ConfigVal) -> Val| -> Val {
            match &rest {
                Some(Val::Config(c)) => pick(c),
                Some(Val::Unknown(u)) => Val::Unknown(u.clone()),
                Some(_) => unknown("`..base` that is not a LaunchConfig"),
                None => unknown(format!("`{field}` is not given")),
            }
        };
        let (grid, block, smem) = (
            grid.unwrap_or_else(|| from_rest("grid_dim", |c| c.grid.clone())),
            block.unwrap_or_else(|| from_rest("block_dim", |c| c.block.clone())),
            smem.unwrap_or_else(|| from_rest("shared_mem_bytes", |c| c.smem.clone())),
        );
        Val::Config(Rc::new(ConfigVal {
            grid,
            block,
            smem,
            origin: vec!["a `LaunchConfig { .. }` literal".to_owned()],
            at,
            texts,
        }))
    }

    /// Records a launch on `path`.
    fn record(
        &mut self,
        path: &mut Path,
        config: Val,
        kernel: Option<Kernel>,
        name: Option<String>,
        at: At,
    ) {
        // The fold of the paths past the bound: values united from several paths are never
        // a launch; recorded as one not read (the error on the construct that split them,
        // [`Interp::bounded`], says why), so that the site is known to make more.
        let folded = path.overflow.clone();
        let kernel = kernel.map(|k| refilled(k, path));
        let mut config = path.view(config);
        let mut uncertain = path.uncertain.clone();
        if uncertain.is_none()
            && let Some(why) = self.unwitnessed(path, &config)
        {
            match self.blurred(path, &config) {
                Some(blurred) => config = blurred,
                None => uncertain = Some(why),
            }
        }
        let mut found = Vec::new();
        config.choices(&mut found, 0);
        let masks = found
            .iter()
            .map(|c| {
                let n = self.choices.get(*c as usize).map_or(0, |i| i.members.len());
                (*c, path.mask(*c, all_members(n)))
            })
            .collect();
        let stale = found
            .iter()
            .copied()
            .filter(|c| path.stale.contains(c))
            .collect();
        let fixed = path
            .masks
            .iter()
            .filter(|(c, m)| m.count_ones() == 1 && !found.contains(c))
            .map(|(c, m)| (*c, m.trailing_zeros() as usize))
            .collect();
        let opt_in = kernel.as_ref().and_then(|k| {
            path.opt_ins
                .iter()
                .rev()
                .find(|(o, _)| same_kernel(o, k))
                .map(|(_, bytes)| bytes.clone())
        });
        self.launches.push(LaunchRec {
            config,
            kernel,
            masks,
            fixed,
            stale,
            reads: path.reads.to_vec(),
            helpers: path.helpers.to_vec(),
            name,
            at,
            uncertain,
            witnessed_splits: path
                .witnessed
                .first()
                .map(|(_, _, splits)| splits.clone())
                .unwrap_or_default(),
            ways: path.decisions.iter().map(|d| (d.split, d.holds)).collect(),
            conditions: path.decisions.iter().filter_map(Decision::label).collect(),
            opt_in,
            folded,
        });
    }

    /// Why a launch of `config` on `path` is uncertain though some run takes the path
    /// ([`Path::witnessed`]): its block or shared memory depends on an input whose
    /// conditions the reader could not apply to its range, or its grid does and is known
    /// (the lints read a known grid).
    fn unwitnessed(&self, path: &Path, config: &Val) -> Option<(Rc<str>, Vec<u32>)> {
        let Val::Config(c) = config else {
            return path
                .witnessed
                .first()
                .map(|(_, why, splits)| (why.clone(), splits.clone()));
        };
        let mut read: Vec<SourceId> = value::roots(&c.block.roots(), &c.smem.roots());
        if known_dims(&c.grid) {
            read = value::roots(&read, &c.grid.roots());
        }
        let read: Vec<SourceId> = read
            .into_iter()
            .map(|r| self.base_input(self.original(r)))
            .collect();
        path.witnessed
            .iter()
            .find(|(input, _, _)| read.contains(input))
            .map(|(_, why, splits)| (why.clone(), splits.clone()))
    }

    /// `config` with each block and shared memory value that depends on an input of
    /// [`Path::witnessed`] and is not known made known only at run time, without bounds: the
    /// path is one some run takes, but the ranges of that input's values on it may hold
    /// values of the other ways its conditions go, so they are no claim; `None` where such a
    /// value is known (a claim the reader cannot make) or `config` is not a configuration.
    fn blurred(&self, path: &Path, config: &Val) -> Option<Val> {
        let Val::Config(c) = config else {
            return None;
        };
        let witnessed = |roots: &[SourceId]| {
            roots.iter().any(|r| {
                let input = self.base_input(self.original(*r));
                path.witnessed.iter().any(|(w, _, _)| *w == input)
            })
        };
        fn blur(v: &Val, witnessed: &dyn Fn(&[SourceId]) -> bool) -> Option<Val> {
            Some(match v {
                Val::Int(i) if witnessed(&i.roots) => {
                    if i.value().is_some() {
                        return None;
                    }
                    Val::Int(Int {
                        set: i.ty.map_or_else(AbstractInt::unknown, |ty| {
                            AbstractInt::range(Some(ty.min()), Some(ty.max()))
                        }),
                        moved: None,
                        ..i.clone()
                    })
                }
                Val::Tuple(items) => Val::Tuple(
                    items
                        .iter()
                        .map(|i| blur(i, witnessed))
                        .collect::<Option<_>>()?,
                ),
                Val::Choice(choice, members) => Val::Choice(
                    *choice,
                    Rc::new(
                        members
                            .iter()
                            .map(|m| blur(m, witnessed))
                            .collect::<Option<_>>()?,
                    ),
                ),
                other => other.clone(),
            })
        }
        // A known grid that depends on the input stays a claim (the lints read it).
        if known_dims(&c.grid) && witnessed(&c.grid.roots()) {
            return None;
        }
        let mut out = (**c).clone();
        out.block = blur(&c.block, &witnessed)?;
        out.smem = blur(&c.smem, &witnessed)?;
        Some(Val::Config(Rc::new(out)))
    }

    /// The index of the configuration parameter of the crate function `idents` calls, where
    /// it is one that launches it ([`Mode::launch_helpers`]) and the wrapper calls it.
    fn launch_helper(&self, idents: &[&str], path: &Path) -> Option<usize> {
        if !self.mode.launch_calls || !path.top().wrapper {
            return None;
        }
        let name = idents.last()?;
        self.mode
            .launch_helpers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, p)| *p)
    }

    /// A call of a crate function `name` that launches the configuration its parameter `p`
    /// gives ([`Interp::launch_helper`]), made by the wrapper: on each path, a launch of what
    /// the call passes there, with the kernel it passes (a loaded function, a builder), at
    /// the call. The function itself is not entered: what it launches is that.
    fn helper_launch(&mut self, name: &str, p: usize, args: &[Expr], at: At, path: Path) -> Outs {
        let operands: Vec<(&Expr, Option<IntTy>)> = args.iter().map(|a| (a, None)).collect();
        let written = config_name(args.get(p));
        let mut outs = Vec::new();
        for (mut path, vals) in self.sequence(&operands, path) {
            if path.normal()
                && let Some(config) = vals.get(p).filter(|v| has_config(v))
            {
                let kernel = vals.iter().find_map(|v| match v {
                    Val::Kernel(k) | Val::Builder(Some(k)) => Some(k.clone()),
                    _ => None,
                });
                self.record(&mut path, config.clone(), kernel, written.clone(), at);
            }
            outs.push((path, unknown(format!("the result of `{name}`"))));
        }
        outs
    }

    // ---------------------------------------------------------------- conditions

    /// The paths on which `cond` holds and those on which it does not, each refined by what
    /// it decided.
    fn condition(&mut self, cond: &Expr, path: Path) -> Vec<(Path, bool)> {
        if let Some(v) = self.guard() {
            let _ = v;
            return vec![(path.clone(), true), (path, false)];
        }
        self.nesting += 1;
        let test = self.loop_tests.iter().any(|t| t == cond);
        self.unnamed_depth += usize::from(test);
        let out = self.condition_inner(cond, path);
        self.unnamed_depth -= usize::from(test);
        self.nesting -= 1;
        out
    }

    fn condition_inner(&mut self, cond: &Expr, path: Path) -> Vec<(Path, bool)> {
        match cond {
            Expr::Not(inner) => {
                return self
                    .condition(inner, path)
                    .into_iter()
                    .map(|(p, holds)| (p, !holds))
                    .collect();
            }
            Expr::And(l, r) => {
                let mut out = Vec::new();
                for (p, holds) in self.condition(l, path) {
                    if holds && p.normal() {
                        out.extend(self.condition(r, p));
                    } else {
                        out.push((p, false));
                    }
                }
                return out;
            }
            Expr::Or(l, r) => {
                let mut out = Vec::new();
                for (p, holds) in self.condition(l, path) {
                    if !holds && p.normal() {
                        out.extend(self.condition(r, p));
                    } else {
                        out.push((p, true));
                    }
                }
                return out;
            }
            _ => {}
        }
        // A condition decided earlier on this path, on the same bindings.
        let versions = self.versions(cond, &path);
        let known = path.fact(cond, &versions).find_map(|k| match k {
            FactKind::Holds(holds) => Some(*holds),
            _ => None,
        });
        if let Some(holds) = known {
            return vec![(path, holds)];
        }
        if let Expr::Compare(op, l, r) = cond {
            let mut out = Vec::new();
            for (path, vals) in self.sequence(&[(l, None), (r, None)], path) {
                if !path.normal() {
                    out.push((path, false));
                    continue;
                }
                let vals = match self.mode.lang {
                    value::Lang::Cpp => bools_as_ints(vals),
                    value::Lang::Rust => vals,
                };
                // `dtype == DType::F16`, `name != "k_a"`: a match of the value against the
                // variant or the string, whose facts a `match` on the value follows.
                if matches!(op, Comparison::Eq | Comparison::Ne)
                    && !holds_int(&vals[0])
                    && !holds_int(&vals[1])
                    && let Some((e, v, pat)) = as_pattern(l, r, &vals)
                {
                    let versions = self.versions(e, &path);
                    for (p, matched) in self.pattern(&pat, &v, path, Some((e, &versions))) {
                        out.push((p, matched == (*op == Comparison::Eq)));
                    }
                    continue;
                }
                for (path, vals) in self.split(path, vals) {
                    out.extend(self.compare((*op, l, r), cond, &vals[0], &vals[1], path));
                }
            }
            return self.decided(out, cond, &versions);
        }
        let mut out = Vec::new();
        for (path, v) in self.eval(cond, path, None) {
            if !path.normal() {
                out.push((path, false));
                continue;
            }
            match v.truth() {
                Truth::Always => out.push((path, true)),
                Truth::Never => out.push((path, false)),
                Truth::Sometimes => {
                    let mut yes = path.clone();
                    let mut no = path;
                    // `if flag`: the flag is known on each side.
                    if let Expr::Path(p, _) = cond
                        && let Some(name) = p.single()
                    {
                        if let Some(b) = yes.lookup_mut(name) {
                            b.val = Val::Bool(Some(true));
                        }
                        if let Some(b) = no.lookup_mut(name) {
                            b.val = Val::Bool(Some(false));
                        }
                    }
                    // A value of run-time inputs the reader cannot test (`small(n)` of a
                    // function not read): neither way says anything of them.
                    let roots = v.roots();
                    if !roots.is_empty() {
                        let split = self.next_split();
                        let text = self.condition_text(cond);
                        let way = (true, None, false, None);
                        self.decide(&mut yes, (split, split, true), &roots, way.clone(), &text);
                        self.decide(&mut no, (split, split, false), &roots, way, &text);
                    }
                    out.push((yes, true));
                    out.push((no, false));
                }
            }
        }
        self.decided(out, cond, &versions)
    }

    /// Records what `cond` decided on each path (when it is about bindings that do not
    /// change, or about nothing that changes at all).
    fn decided(
        &mut self,
        out: Vec<(Path, bool)>,
        cond: &Expr,
        versions: &[(Rc<str>, u32)],
    ) -> Vec<(Path, bool)> {
        let split = out.len() > 1;
        out.into_iter()
            .map(|(mut p, holds)| {
                if split {
                    let frame = p.frames.len();
                    p.facts.push(Fact {
                        frame,
                        expr: cond.clone(),
                        versions: versions.to_vec(),
                        kind: FactKind::Holds(holds),
                    });
                }
                (p, holds)
            })
            .collect()
    }

    /// How a condition is named in messages: as written, with the helper it is in
    /// (`` `n < 100` (in `block_for_u8`) ``).
    fn condition_text(&self, cond: &Expr) -> Rc<str> {
        let written = ir::text(cond);
        match self.calls.last() {
            Some(key) => {
                let name = key.rsplit("::").next().unwrap_or(key);
                // A function's key ends in its arity ([`Interp::call_key`]).
                let name = name.rsplit_once('/').map_or(name, |(name, _)| name);
                format!("{written}` (in `{name}`)").into()
            }
            None => format!("{written}`").into(),
        }
    }

    /// How the blurred comparison `path.decisions[i]` stands by the path's values now:
    /// `Some(true)`, decided the way it went (`n != 8` after `n == 16` narrowed `n` to 16),
    /// or now applicable to the one input it reads (`nh * hs < 512` after `hs == 64`: `nh`
    /// narrowed below 8 on this path): no longer blurred, nothing of it left for a later
    /// test to contradict; `Some(false)`, decided the other way (`n != 8` after `n == 8`), or
    /// no value of its input taking the way it went: no run takes the path; `None`, neither.
    /// Read in the frame it was made in (a helper's test narrows its caller's bindings of the
    /// same input too; applied only there), while the names it reads are the bindings it
    /// read.
    fn blurred_now(&mut self, path: &mut Path, i: usize) -> Option<bool> {
        let d = &path.decisions[i];
        let recheck = d.recheck.clone()?;
        let went = d.holds;
        let (cond, frame, versions) = &*recheck;
        if !d.blurred || *frame == 0 || *frame > path.frames.len() {
            return None;
        }
        let Expr::Compare(op, l, r) = cond else {
            return None;
        };
        let here = *frame == path.frames.len();
        let mut probe;
        let at = if here {
            &*path
        } else {
            probe = path.clone();
            probe.frames.truncate(*frame);
            &probe
        };
        if self.versions(cond, at) != *versions {
            return None;
        }
        let (a, b) = (self.eval_quiet(l, at)?, self.eval_quiet(r, at)?);
        let kept = match compare_vals(*op, &a, &b) {
            Truth::Always => went,
            Truth::Never => !went,
            Truth::Sometimes => {
                let (Val::Int(x), Val::Int(y), true) = (&a, &b, here) else {
                    return None;
                };
                // Applied where each operand is narrowed as a whole (a constant, an input
                // moved by known values) and the narrowed values decide it this way.
                let sides = refine::sides(&x.set, *op, &y.set, Truth::Sometimes);
                let Some(side) = sides.into_iter().find(|s| s.holds == went) else {
                    return Some(false);
                };
                let mut p = path.clone();
                let exact = (
                    self.narrow_operand(&mut p, l, x, side.left.clone()),
                    self.narrow_operand(&mut p, r, y, side.right.clone()),
                );
                let decided = compare_vals(
                    *op,
                    &Val::Int(Int {
                        set: side.left,
                        ..x.clone()
                    }),
                    &Val::Int(Int {
                        set: side.right,
                        ..y.clone()
                    }),
                ) == if went { Truth::Always } else { Truth::Never };
                match exact {
                    (None, _) | (_, None) => return Some(false),
                    (Some(true), Some(true)) if decided => {
                        *path = p;
                        true
                    }
                    _ => return None,
                }
            }
        };
        if kept {
            path.decisions[i].blurred = false;
        }
        Some(kept)
    }

    /// A new split's number ([`Decision::split`]).
    fn next_split(&mut self) -> u32 {
        self.splits += 1;
        self.splits
    }

    /// Both ways of `cond`, a condition on the inputs `roots` that the reader cannot apply
    /// to their values.
    fn blind_split(&mut self, path: Path, roots: &[SourceId], cond: &Expr) -> Vec<(Path, bool)> {
        let split = self.next_split();
        let text = self.condition_text(cond);
        [true, false]
            .into_iter()
            .map(|holds| {
                let mut p = path.clone();
                self.decide(
                    &mut p,
                    (split, split, holds),
                    roots,
                    (true, None, false, None),
                    &text,
                );
                (p, holds)
            })
            .collect()
    }

    /// Records on `path` that `text`, a condition on the run-time inputs `roots`, went the
    /// way `holds` at the split `split`; `blurred`: the path's values do not hold all the
    /// condition said of those inputs. Where a blurred condition and another one depend on
    /// one input, the path may be one no run of the code takes (`if small(n)` of a function
    /// not read, then `if n < 256`: two of the four ways are impossible, and which two is not
    /// known): the path is marked uncertain, and its launches are not checked. A blurred
    /// one the path's values now decide is cured, or, decided the other way, ends the path
    /// (`k != 128` of a caller's `else`, then a helper's `k == 128`: no run goes there).
    /// Not uncertain where one value of the input takes every way the path went, each
    /// condition on it a [`Probe`] or applied to its range ([`Interp::witness`]).
    fn decide(
        &mut self,
        path: &mut Path,
        (split, group, holds): (u32, u32, bool),
        roots: &[SourceId],
        (blurred, facts_of, excludes, probe): Way,
        text: &Rc<str>,
    ) {
        let mut roots: Vec<SourceId> = roots.iter().map(|r| self.original(*r)).collect();
        roots.sort_unstable();
        roots.dedup();
        if roots.is_empty() {
            return;
        }
        let mut conflict = None;
        let mut witnessed = Vec::new();
        for i in 0..path.decisions.len() {
            if path.uncertain.is_some() {
                break;
            }
            let d = &path.decisions[i];
            let Some(&shared) = d.roots.iter().find(|r| roots.contains(r)) else {
                continue;
            };
            let loose = d.blurred || blurred || d.facts_of != facts_of;
            if d.group == group || !loose {
                continue;
            }
            // Two exclusions, or one and a test the values hold.
            let both_exclude = (excludes && d.excludes)
                || (d.facts_of == facts_of
                    && ((excludes && !d.blurred) || (d.excludes && !blurred)));
            // An earlier comparison this one's narrowing decided is not a conflict.
            if !blurred && d.facts_of == facts_of {
                match self.blurred_now(path, i) {
                    Some(true) => continue,
                    // A later test contradicted it: no run of the code takes this path.
                    Some(false) => {
                        path.flow = Flow::Diverged;
                        return;
                    }
                    None => {}
                }
            }
            // Two exclusions of one value each of the input (`c == 1` that failed, then
            // `c == 2`: an `else if` chain), or one and a test its values hold (`blocks == 0`
            // that failed, then `blocks > 65535`), hold together while its range keeps a
            // value besides all the path excludes (a later test that leaves only excluded
            // values is related to each, and cured or a conflict there).
            if both_exclude && self.room_besides_exclusions(path, shared) {
                continue;
            }
            let way = (holds, blurred, probe.as_ref());
            if facts_of.is_none()
                && let Some(inputs) = self.witness(path, shared, &roots, way)
            {
                for input in inputs {
                    if !path.witnessed.iter().any(|(w, _, _)| *w == input)
                        && !witnessed.iter().any(|(_, w)| *w == input)
                    {
                        witnessed.push((i, input));
                    }
                }
                continue;
            }
            conflict = Some((i, shared));
            break;
        }
        for (i, input) in witnessed {
            let (why, splits) =
                self.conflict_note(path, i, input, split, (blurred, &facts_of), text);
            path.witnessed.push((input, why, splits));
        }
        if let Some((i, input)) = conflict {
            let note = self.conflict_note(path, i, input, split, (blurred, &facts_of), text);
            path.uncertain = Some(note);
        }
        path.decisions.push(Decision {
            split,
            group,
            recheck: None,
            facts_of,
            holds,
            roots,
            blurred,
            excludes,
            text: text.clone(),
            probe,
            arm: None,
            unnamed: self.unnamed_depth > 0,
        });
    }

    /// Why a path whose conditions `text` (split `split`, `blurred` or decided by the facts
    /// `facts_of`) and `path.decisions[i]` both depend on `input` may be one no run takes,
    /// with the splits of the two the reader could not apply.
    fn conflict_note(
        &self,
        path: &Path,
        i: usize,
        input: SourceId,
        split: u32,
        (blurred, facts_of): (bool, &Option<Rc<str>>),
        text: &Rc<str>,
    ) -> (Rc<str>, Vec<u32>) {
        let d = &path.decisions[i];
        let unread = if d.blurred || (!blurred && d.facts_of.is_some()) {
            &d.text
        } else {
            text
        };
        let input = self.why(&[input]);
        let input = input.split(" is ").next().unwrap_or("a run-time value");
        let examples = match input.strip_prefix('`').and_then(|n| n.strip_suffix('`')) {
            Some(x) if !x.contains('`') => {
                format!(" (`{x} < 256`, `{x} + 1 < 257`, `(2 * {x}) as u64 < 512`)")
            }
            _ => String::new(),
        };
        // The splits not related to the other: a blurred one, or a match's decided by
        // facts the other does not follow.
        let loose = |b: bool, f: &Option<Rc<str>>| b || f.is_some();
        let splits = [
            (d.split, loose(d.blurred, &d.facts_of)),
            (split, loose(blurred, facts_of)),
        ]
        .into_iter()
        .filter_map(|(s, b)| b.then_some(s))
        .collect();
        (
            format!(
                "the conditions `{} and `{text} both depend on {input}, and the reader \
                 cannot apply `{unread} to its values: which ways they go together is not \
                 known, so this launch is not checked; test {input} itself or moved by \
                 literals{examples}, there or in a helper given it",
                d.text,
            )
            .into(),
            splits,
        )
    }

    /// The input `r` is, or is moved from ([`SourceInfo::moves`]).
    fn base_input(&self, r: SourceId) -> SourceId {
        self.sources
            .get(r as usize)
            .and_then(|s| s.moves)
            .unwrap_or(r)
    }

    /// The values of the run-time input `input` on `path`: those of its latest binding as
    /// a whole (or of a copy of it).
    fn input_range<'p>(&self, path: &'p Path, input: SourceId) -> Option<&'p AbstractInt> {
        path.frames.iter().rev().find_map(|f| {
            f.env.iter().rev().find_map(|b| match &b.val {
                Val::Int(i) if i.source.is_some_and(|s| self.original(s) == input) => Some(&i.set),
                _ => None,
            })
        })
    }

    /// Whether the run-time input `input`'s range on `path` holds more values than the
    /// path's decisions exclude one by one, and one more (the exclusion being made).
    fn room_besides_exclusions(&self, path: &Path, input: SourceId) -> bool {
        let excluded = path
            .decisions
            .iter()
            .filter(|d| d.excludes && d.roots.contains(&input))
            .count() as i128;
        match self.input_range(path, input).map(AbstractInt::bounds) {
            Some((Some(lo), Some(hi))) => hi.saturating_sub(lo) > excluded,
            Some(_) => true,
            None => false,
        }
    }

    /// The versions of the bindings `e` reads on `path`.
    fn versions(&self, e: &Expr, path: &Path) -> Vec<(Rc<str>, u32)> {
        let mut names = Vec::new();
        free_names(e, &mut names, 0);
        names
            .into_iter()
            .filter_map(|n| path.lookup(&n).map(|b| (b.name.clone(), b.version)))
            .collect()
    }

    /// `a op b` on one path: decided, or split with each side refined.
    fn compare(
        &mut self,
        (op, l, r): (Comparison, &Expr, &Expr),
        cond: &Expr,
        a: &Val,
        b: &Val,
        mut path: Path,
    ) -> Vec<(Path, bool)> {
        // A comparison over one run-time set: its members on each side.
        let mut found = Vec::new();
        a.choices(&mut found, 0);
        b.choices(&mut found, 0);
        if let Some(&c) = found.first() {
            let n = self.choices.get(c as usize).map_or(0, |i| i.members.len());
            let mask = path.mask(c, all_members(n));
            let (mut yes, mut no) = (0u64, 0u64);
            for i in 0..n.min(64) {
                if mask & (1 << i) == 0 {
                    continue;
                }
                match compare_vals(op, &a.fix(c, i), &b.fix(c, i)) {
                    Truth::Always => yes |= 1 << i,
                    Truth::Never => no |= 1 << i,
                    Truth::Sometimes => {
                        yes |= 1 << i;
                        no |= 1 << i;
                    }
                }
            }
            let mut out = Vec::new();
            for (m, holds) in [(yes, true), (no, false)] {
                if m != 0 {
                    let mut p = path.clone();
                    p.set_mask(c, m);
                    out.push((p, holds));
                }
            }
            return out;
        }
        let truth = compare_vals(op, a, b);
        for v in [a, b] {
            if let Val::Int(i) = v
                && let Some(t) = &i.term
            {
                path.read(t.clone());
            }
        }
        match truth {
            Truth::Always => vec![(path, true)],
            Truth::Never => vec![(path, false)],
            Truth::Sometimes => {
                let roots = value::roots(&a.roots(), &b.roots());
                let (Val::Int(x), Val::Int(y)) = (a, b) else {
                    return self.blind_split(path, &roots, cond);
                };
                // The ways it goes ([`refine::sides`]), each operand that names a binding
                // narrowed on each.
                let split = self.next_split();
                let text = self.condition_text(cond);
                let probe = self.probe((op, l, r), (x, y), &path);
                let mut out = Vec::new();
                for side in refine::sides(&x.set, op, &y.set, truth) {
                    let mut p = path.clone();
                    // Whether the values hold what this way says of the inputs: each
                    // operand a constant or an input narrowed as a whole, and the narrowed
                    // values deciding the comparison this way.
                    let decided = compare_vals(
                        op,
                        &Val::Int(Int {
                            set: side.left.clone(),
                            ..x.clone()
                        }),
                        &Val::Int(Int {
                            set: side.right.clone(),
                            ..y.clone()
                        }),
                    ) == if side.holds {
                        Truth::Always
                    } else {
                        Truth::Never
                    };
                    let (Some(exact_l), Some(exact_r)) = (
                        self.narrow_operand(&mut p, l, x, side.left),
                        self.narrow_operand(&mut p, r, y, side.right),
                    ) else {
                        // No value of the input takes this way.
                        continue;
                    };
                    let blurred = !(decided && exact_l && exact_r);
                    // `x == k` that does not hold, `x != k` that does: one value of a whole
                    // input excluded, which a range cannot show.
                    let excludes = blurred
                        && exact_l
                        && exact_r
                        && matches!(
                            (cond, side.holds),
                            (Expr::Compare(Comparison::Eq, ..), false)
                                | (Expr::Compare(Comparison::Ne, ..), true)
                        );
                    self.decide(
                        &mut p,
                        (split, split, side.holds),
                        &roots,
                        (blurred, None, excludes, probe.clone()),
                        &text,
                    );
                    // Blurred only because the values cannot hold this way (`n != 8` over a
                    // range), on operands that are the inputs: a later narrowing of them may
                    // decide it. (Not where an operand is not an input as a whole: its own
                    // narrowing would decide it, and say nothing of the input.)
                    // Or on operands no binding of which this way narrowed (`nh * hs`, both
                    // inputs): a later narrowing of all but one of their inputs may make it
                    // applicable ([`Interp::blurred_now`]).
                    let untouched =
                        |e: &Expr, v: &Int| alias_steps(e).is_none() && v.moved_from().is_none();
                    if blurred && (exact_l || untouched(l, x)) && (exact_r || untouched(r, y)) {
                        let recheck = (cond.clone(), p.frames.len(), self.versions(cond, &p));
                        if let Some(d) = p.decisions.last_mut() {
                            d.recheck = Some(Rc::new(recheck));
                        }
                    }
                    out.push((p, side.holds));
                }
                out
            }
        }
    }

    /// Narrows the binding `e` names (if it names an integer one) to `narrowed`, what a
    /// comparison says of it on this path ([`refine::sides`]). Returns whether the binding
    /// is a run-time input as a whole (or a copy of one) and now holds all that `narrowed`
    /// says of it: every binding of that input is narrowed with it, so that a later test of
    /// the input goes the same way.
    fn narrow(&mut self, path: &mut Path, e: &Expr, narrowed: AbstractInt) -> bool {
        // A name, or a name moved by literals (`n + 1 < 100`, `(n as u32) < 100`): the
        // name's values whose expression is in `narrowed`.
        let Some((name, steps)) = alias_steps(e) else {
            return false;
        };
        let Some(b) = path.lookup_mut(name) else {
            return false;
        };
        let Val::Int(i) = &mut b.val else {
            return false;
        };
        let whole = self.whole(i);
        let narrowed = if steps.is_empty() {
            narrowed
        } else {
            let Some(back) = moved(&steps, &i.set).and_then(|_| moved_back(&steps, &narrowed))
            else {
                return false;
            };
            let (lo, hi) = back.bounds();
            let Some(set) = i.set.within(lo, hi) else {
                return false;
            };
            // The values kept must all move into `narrowed` (`2 * n < 7`: `n` up to 3).
            if moved(&steps, &set).is_none_or(|m| {
                let (a, b) = m.bounds();
                let (lo, hi) = narrowed.bounds();
                lo.is_some_and(|lo| a.is_none_or(|a| a < lo))
                    || hi.is_some_and(|hi| b.is_none_or(|b| b > hi))
            }) {
                return false;
            }
            set
        };
        let before = std::mem::replace(&mut i.set, narrowed.clone());
        if let Some(s) = i.source {
            // Every binding that is exactly the same input, or a copy of it, holds the same
            // value (`let m = n;`, a helper's parameter given `n`): narrowed with it, so that
            // a later test of the other goes the same way.
            let (lo, hi) = narrowed.bounds();
            let original = self.original(s);
            let mut touched = vec![s];
            for frame in &mut path.frames {
                for other in &mut frame.env {
                    if let Val::Int(o) = &mut other.val
                        && let Some(t) = o.source
                        && self.original(t) == original
                        && o.set != narrowed
                    {
                        o.set = if o.set == before {
                            narrowed.clone()
                        } else {
                            o.set.within(lo, hi).unwrap_or_else(|| o.set.clone())
                        };
                        if !touched.contains(&t) {
                            touched.push(t);
                        }
                    }
                }
            }
            for t in touched {
                self.recheck(path, t);
            }
            self.recompute_derived(path, original, &narrowed);
        }
        whole
    }

    /// A condition narrowed the input `input` to `narrowed`: each run-time value of the
    /// current frame computed from it earlier (`let bytes = n * 4;`, [`Interp::derived`]) is
    /// computed again from its initialiser, with the narrowed input and the values computed
    /// again before it, and keeps what both readings allow (`n == 64` makes `bytes` 256).
    fn recompute_derived(&mut self, path: &mut Path, input: SourceId, narrowed: &AbstractInt) {
        let (lo, hi) = narrowed.bounds();
        for b in 0..path.top().env.len() {
            let binding = &path.top().env[b];
            let Val::Int(i) = &binding.val else { continue };
            let Some(s) = i.source else { continue };
            if !i.roots.iter().any(|r| self.original(*r) == input) {
                continue;
            }
            let Some(r) = self.derived.get(&s).cloned() else {
                continue;
            };
            // The frame it was computed in, with what is known now of the same bindings.
            let mut frame = r.frame.clone();
            for other in &mut frame.env {
                if let Some(now) = path
                    .top()
                    .env
                    .iter()
                    .find(|n| n.name == other.name && n.version == other.version)
                {
                    other.val = now.val.clone();
                }
                if let Val::Int(o) = &mut other.val
                    && o.source.is_some_and(|t| self.original(t) == input)
                {
                    o.set = o.set.within(lo, hi).unwrap_or_else(|| o.set.clone());
                }
            }
            let mut probe = Path::new(frame);
            probe.masks = path.masks.clone();
            let mut again: Option<AbstractInt> = None;
            // The names the initialiser reads again (constants its value no longer carries):
            // the compiler confirms them as for any value read.
            let mut reads = Vec::new();
            for (p, v) in self.eval(&r.expr, probe, None) {
                match v {
                    Val::Int(x) if p.normal() => {
                        reads.extend(p.reads);
                        reads.extend(x.term);
                        again = Some(match again {
                            Some(a) => a.union(&x.set),
                            None => x.set,
                        });
                    }
                    _ => {
                        again = None;
                        break;
                    }
                }
            }
            let Some(again) = again else { continue };
            reads.into_iter().for_each(|t| path.read(t));
            let (a, z) = again.bounds();
            if let Some(Val::Int(i)) = path.top_mut().env.get_mut(b).map(|b| &mut b.val)
                && let Some(set) = i.set.within(a, z)
            {
                i.set = set;
            }
        }
    }

    /// Narrows what the operand `e`, of value `v`, names or is to `narrowed` (what a
    /// comparison says of it on this path): the binding it names ([`Interp::narrow`]), and
    /// the input it is moved by literals ([`Interp::narrow_moved`]). Returns whether the
    /// path's values now hold all that `narrowed` says of the inputs `v` depends on; `None`
    /// where no value of its input takes this way.
    fn narrow_operand(
        &mut self,
        path: &mut Path,
        e: &Expr,
        v: &Int,
        narrowed: AbstractInt,
    ) -> Option<bool> {
        let by_name = self.narrow(path, e, narrowed.clone());
        if by_name || v.roots.is_empty() {
            return Some(true);
        }
        // A value that is an input, moved or not, where no binding names it as it is
        // (`p.v` of `P { v: n }`, `n + 1` given to a helper).
        let Some((input, steps)) = v.moved_from() else {
            return Some(false);
        };
        let input = self.original(input);
        self.narrow_moved(path, input, steps, &narrowed)
    }

    /// Narrows every binding of the input `input` to the values that `steps` move into
    /// `narrowed`; returns whether they all do (the narrowing is exact), `None` where none
    /// does.
    fn narrow_moved(
        &mut self,
        path: &mut Path,
        input: SourceId,
        steps: &[Step],
        narrowed: &AbstractInt,
    ) -> Option<bool> {
        let Some(back) = moved_back(steps, narrowed) else {
            return Some(false);
        };
        let (lo, hi) = back.bounds();
        let mut exact = true;
        let mut touched = Vec::new();
        for frame in &mut path.frames {
            for other in &mut frame.env {
                if let Val::Int(o) = &mut other.val
                    && let Some(t) = o.source
                    && self.original(t) == input
                    && o.roots.iter().all(|r| self.original(*r) == input)
                {
                    match o.set.within(lo, hi) {
                        None => return None,
                        Some(set) => {
                            let (a, b) = moved(steps, &set).map_or((None, None), |m| m.bounds());
                            let (nlo, nhi) = narrowed.bounds();
                            exact &= nlo.is_none_or(|l| a.is_some_and(|a| a >= l))
                                && nhi.is_none_or(|h| b.is_some_and(|b| b <= h));
                            o.set = set;
                        }
                    }
                    if !touched.contains(&t) {
                        touched.push(t);
                    }
                }
            }
        }
        for t in &touched {
            self.recheck(path, *t);
        }
        Some(exact && !touched.is_empty())
    }

    /// A condition narrowed the input `s`: the run-time sets computed from it earlier keep
    /// only the members still possible (computed again from their expression), or are
    /// marked stale on the path when that cannot be done.
    fn recheck(&mut self, path: &mut Path, s: SourceId) {
        for c in 0..self.choices.len() {
            if !self.choices[c].roots.contains(&s) {
                continue;
            }
            let c = c as ChoiceId;
            let Some(r) = &self.choices[c as usize].recompute else {
                if !path.stale.contains(&c) {
                    path.stale.push(c);
                }
                continue;
            };
            let mut frame = r.frame.clone();
            let expr = r.expr.clone();
            // The input's narrowed value, wherever the frame holds it.
            let narrowed: Option<Val> = path
                .top()
                .env
                .iter()
                .find(|b| matches!(&b.val, Val::Int(i) if i.source == Some(s)))
                .map(|b| b.val.clone());
            let Some(narrowed) = narrowed else { continue };
            for b in &mut frame.env {
                if matches!(&b.val, Val::Int(i) if i.source == Some(s)) {
                    b.val = narrowed.clone();
                }
            }
            let mut probe = Path::new(frame);
            probe.masks = path.masks.clone();
            let outs = self.eval(&expr, probe, None);
            let mut possible: Option<AbstractInt> = None;
            for (_, v) in &outs {
                match v {
                    Val::Int(i) => {
                        possible = Some(match possible {
                            Some(p) => p.union(&i.set),
                            None => i.set.clone(),
                        })
                    }
                    _ => {
                        possible = None;
                        break;
                    }
                }
            }
            let members = self.choices[c as usize].members.clone();
            match possible {
                Some(set) => {
                    let n = members.len();
                    let mut mask = path.mask(c, all_members(n));
                    for (i, m) in members.iter().enumerate().take(64) {
                        if !set.contains(*m) {
                            mask &= !(1 << i);
                        }
                    }
                    path.set_mask(c, mask);
                }
                None => {
                    if !path.stale.contains(&c) {
                        path.stale.push(c);
                    }
                }
            }
        }
    }

    // ---------------------------------------------------------------- match

    fn eval_match(&mut self, m: &Match, path: Path, expected: Option<IntTy>) -> Outs {
        let mut outs = Vec::new();
        for (path, scrutinee) in self.eval(&m.scrutinee, path, None) {
            if !path.normal() {
                outs.push((path, unknown("")));
                continue;
            }
            let versions = self.versions(&m.scrutinee, &path);
            let depth = path.top().env.len();
            // Each path goes through the arms in order until one matches; a path no arm
            // matches (as far as the reader can tell) does not go on.
            let mut pending = vec![path];
            let group = self.next_split();
            for arm in &m.arms {
                let mut next = Vec::new();
                for path in pending {
                    let outer = self.match_group.replace(group);
                    let tried = self.pattern(
                        &arm.pat,
                        &scrutinee,
                        path,
                        Some((&m.scrutinee, versions.as_slice())),
                    );
                    self.match_group = outer;
                    for (p, matched) in tried {
                        if !matched {
                            next.push(p);
                            continue;
                        }
                        let taken = match &arm.guard {
                            None => vec![(p, true)],
                            Some(g) => self.condition(g, p),
                        };
                        for (mut p, holds) in taken {
                            if holds {
                                for (mut q, v) in self.eval(&arm.body, p, expected) {
                                    self.leave_scope(&mut q, depth);
                                    outs.push((q, v));
                                }
                            } else {
                                // The guard failed: the arm's bindings go.
                                p.top_mut().env.truncate(depth);
                                next.push(p);
                            }
                        }
                    }
                }
                pending = next;
                if pending.is_empty() {
                    break;
                }
            }
        }
        self.bounded(outs, m.at)
    }

    /// Whether `val` matches `pat` on `path`: the paths where it does (with the pattern's
    /// names bound) and where it does not. `scrutinee`: the expression matched and the
    /// versions of what it reads, for the facts of earlier matches on it.
    fn pattern(
        &mut self,
        pat: &Pat,
        val: &Val,
        path: Path,
        scrutinee: Option<Scrutinee<'_>>,
    ) -> Vec<(Path, bool)> {
        let val = path.view(val.clone());
        // What earlier matches on the same scrutinee decided.
        if let Some((expr, versions)) = scrutinee {
            let decided = path.fact(expr, versions).find_map(|kind| match kind {
                FactKind::Matched(p) if p == pat => Some(true),
                FactKind::Matched(p) if disjoint(p, pat) => Some(false),
                FactKind::NotMatched(p) if p == pat => Some(false),
                _ => None,
            });
            match decided {
                Some(true) => return vec![(self.bind(pat, val, path, At::NONE, None), true)],
                Some(false) => return vec![(path, false)],
                None => {}
            }
        }
        let truth = self.pattern_truth(pat, &val, &path);
        let out = match truth {
            Truth::Always => vec![(self.bind(pat, val.clone(), path, At::NONE, None), true)],
            Truth::Never => vec![(path, false)],
            Truth::Sometimes => self.split_pattern(pat, &val, path, scrutinee.map(|(e, _)| e)),
        };
        // What a split decided, for a later match on the same scrutinee: needed where the
        // scrutinee's value cannot be narrowed instead (an integer variable is).
        let narrowed = matches!(val, Val::Int(_))
            && matches!(scrutinee, Some((Expr::Path(p, _), _)) if p.single().is_some());
        if let Some((expr, versions)) = scrutinee
            && out.len() > 1
            && !narrowed
        {
            let frame = out.first().map_or(0, |(p, _)| p.frames.len());
            return out
                .into_iter()
                .map(|(mut p, matched)| {
                    p.facts.push(Fact {
                        frame,
                        expr: expr.clone(),
                        versions: versions.to_vec(),
                        kind: if matched {
                            FactKind::Matched(pat.clone())
                        } else {
                            FactKind::NotMatched(pat.clone())
                        },
                    });
                    (p, matched)
                })
                .collect();
        }
        out
    }

    /// A pattern that may or may not match: split, refining an integer scrutinee where the
    /// pattern is a literal or a range, and a run-time set member by member.
    fn split_pattern(
        &mut self,
        pat: &Pat,
        val: &Val,
        path: Path,
        scrutinee: Option<&Expr>,
    ) -> Vec<(Path, bool)> {
        let mut found = Vec::new();
        val.choices(&mut found, 0);
        if let Some(&c) = found.first() {
            let mut out = Vec::new();
            for p in self.fork_on(path, c) {
                let v = p.view(val.clone());
                out.extend(self.pattern(pat, &v, p, None));
            }
            return out;
        }
        // A value other than an integer is related to another test only where it is an
        // input itself (`dt`, a copy of it), not by what it was read from (`cfg.momentum`
        // and `cfg.weight_decay` are two values of one input).
        let roots = match val {
            Val::Unknown(u) if !holds_int(val) => u.source.into_iter().collect(),
            _ if !holds_int(val) => Vec::new(),
            _ => val.roots(),
        };
        let split = self.next_split();
        let text = self.condition_text(&Expr::Opaque(format!(
            "{}{MATCHING_AN_ARM}",
            scrutinee.map_or_else(|| "a value".to_owned(), ir::text)
        )));
        let mut out = Vec::new();
        // Where it matches, the values within the pattern; where it does not, the rest
        // (`0..=255 => .., _ => ..`: 256 and up), where the rest is one range or a set.
        // (The rest only of a pattern whose values are exact: a literal whose value is a
        // range of possibilities excludes one of them, not all.)
        let ways: [(bool, Option<AbstractInt>); 2] = match val {
            Val::Int(i) => match self.pattern_range(pat, &path) {
                Some((range, exact)) => {
                    // The scrutinee as the earlier arms left it (`0 => return` first: 1 and
                    // up), not as it was evaluated before them.
                    let set = self.current_set(&path, i);
                    let (lo, hi) = range.bounds();
                    let rest = exact.then(|| rest(&set, &range)).flatten();
                    [(true, set.within(lo, hi)), (false, rest)]
                }
                None => [(true, None), (false, None)],
            },
            _ => [(true, None), (false, None)],
        };
        for (matched, narrowed) in ways {
            let mut side = path.clone();
            let mut exact = false;
            if let (Val::Int(i), Some(narrowed)) = (val, narrowed) {
                let e = scrutinee.cloned().unwrap_or(Expr::Opaque(String::new()));
                match self.narrow_operand(&mut side, &e, i, narrowed) {
                    // No value of the input matches this way.
                    None => continue,
                    Some(x) => exact = x,
                }
            }
            // A value other than an integer matched through its scrutinee: what the way
            // decided is a fact ([`Interp::pattern`]) a later match on it follows.
            let facts_of = scrutinee
                .filter(|_| !holds_int(val))
                .map(|e| Rc::from(format!("{}@{:?}", ir::text(e), self.versions(e, &side))));
            // The arms of one `match` test one value in turn: never a pair to relate.
            let group = self.match_group.unwrap_or(split);
            let way = (split, group, matched);
            let blurred = !exact && facts_of.is_none();
            let decided = side.decisions.len();
            self.decide(
                &mut side,
                way,
                &roots,
                (blurred, facts_of, false, None),
                &text,
            );
            let written = match pat {
                Pat::Lit(lit) => Some(ir::text(lit)),
                Pat::Path(p) => Some(p.text()),
                _ => None,
            };
            if let (Some(d), Some(written), Some(s)) =
                (side.decisions.get_mut(decided), written, scrutinee)
            {
                d.arm = Some(format!("{} == {written}", ir::text(s)).into());
            }
            let side = if matched {
                self.bind(pat, val.clone(), side, At::NONE, None)
            } else {
                side
            };
            out.push((side, matched));
        }
        out
    }

    /// What `i`, an input moved by literals (or not moved), is on `path`: the input's values
    /// there moved by the steps; `i`'s own values where no binding holds the input.
    fn current_set(&self, path: &Path, i: &Int) -> AbstractInt {
        let Some((input, steps)) = i.moved_from() else {
            return i.set.clone();
        };
        let input = self.original(input);
        let held = path.frames.iter().rev().find_map(|f| {
            f.env.iter().rev().find_map(|b| match &b.val {
                Val::Int(o)
                    if o.source.is_some_and(|s| self.original(s) == input) && self.whole(o) =>
                {
                    Some(o.set.clone())
                }
                _ => None,
            })
        });
        match held.and_then(|set| moved(steps, &set)) {
            Some(set) => {
                let (lo, hi) = set.bounds();
                i.set.within(lo, hi).unwrap_or(set)
            }
            None => i.set.clone(),
        }
    }

    /// The integers a literal, range or or-pattern matches, and whether those are all it
    /// matches (a literal whose value is a range of possibilities matches one of them).
    fn pattern_range(&mut self, pat: &Pat, path: &Path) -> Option<(AbstractInt, bool)> {
        if let Pat::Or(alternatives) = pat {
            let mut all: Option<(AbstractInt, bool)> = None;
            for p in alternatives {
                let (range, exact) = self.pattern_range(p, path)?;
                all = Some(match all {
                    Some((a, e)) => (a.union(&range), e && exact),
                    None => (range, exact),
                });
            }
            return all;
        }
        let range = self.pattern_range_one(pat, path)?;
        let exact = matches!(pat, Pat::Range(..)) || range.known_value().is_some();
        Some((range, exact))
    }

    /// The integers a literal or range pattern matches.
    fn pattern_range_one(&mut self, pat: &Pat, path: &Path) -> Option<AbstractInt> {
        match pat {
            Pat::Lit(e) => match self.eval_quiet(e, path)? {
                Val::Int(i) => Some(i.set),
                _ => None,
            },
            Pat::Range(lo, hi, inclusive) => {
                let lo = match lo {
                    Some(e) => Some(match self.eval_quiet(e, path)? {
                        Val::Int(i) => i.value()?,
                        _ => return None,
                    }),
                    None => None,
                };
                let hi = match hi {
                    Some(e) => Some(match self.eval_quiet(e, path)? {
                        Val::Int(i) => i.value()? - i128::from(!*inclusive),
                        _ => return None,
                    }),
                    None => None,
                };
                Some(AbstractInt::range(lo, hi))
            }
            Pat::Path(p) => match self.eval_quiet(&Expr::Path(p.clone(), At::NONE), path)? {
                Val::Int(i) => Some(i.set),
                _ => None,
            },
            _ => None,
        }
    }

    /// The value of a constant expression (a pattern's literal or bound) on `path`.
    fn eval_quiet(&mut self, e: &Expr, path: &Path) -> Option<Val> {
        let outs = self.eval(e, path.clone(), None);
        match outs.as_slice() {
            [(_, v)] => Some(v.clone()),
            _ => None,
        }
    }

    /// Whether `val` matches `pat`, as far as the reader can tell.
    fn pattern_truth(&mut self, pat: &Pat, val: &Val, path: &Path) -> Truth {
        match pat {
            Pat::Wild | Pat::Rest | Pat::Opaque(_) => Truth::Always,
            Pat::Bind(_, None) => Truth::Always,
            Pat::Bind(_, Some(sub)) => self.pattern_truth(sub, val, path),
            Pat::Or(cases) => {
                let mut truth = Truth::Never;
                for c in cases {
                    truth = truth.or(self.pattern_truth(c, val, path));
                }
                truth
            }
            Pat::Tuple(pats) => match val {
                Val::Tuple(items) if !pats.contains(&Pat::Rest) && items.len() == pats.len() => {
                    let mut truth = Truth::Always;
                    for (p, v) in pats.iter().zip(items) {
                        truth = truth.and(self.pattern_truth(p, v, path));
                    }
                    truth
                }
                _ => Truth::Sometimes,
            },
            Pat::Lit(Expr::Bool(b)) => match val {
                Val::Bool(Some(v)) => {
                    if v == b {
                        Truth::Always
                    } else {
                        Truth::Never
                    }
                }
                _ => Truth::Sometimes,
            },
            Pat::Lit(Expr::Str(s, _)) => match val {
                Val::Str(v) => {
                    if v == s {
                        Truth::Always
                    } else {
                        Truth::Never
                    }
                }
                _ => Truth::Sometimes,
            },
            // `None` against an `Option` the reader follows: `None` itself, or what a
            // `Some` holds (never `None`).
            Pat::Path(p) if is_none_path(p) => match val {
                Val::Nothing => Truth::Always,
                Val::Unknown(_) | Val::Choice(..) => Truth::Sometimes,
                _ => Truth::Never,
            },
            Pat::Lit(_) | Pat::Range(..) | Pat::Path(_) => match val {
                Val::Int(i) => match self.pattern_range_one(pat, path) {
                    Some(range) => {
                        if i.set.within(range.bounds().0, range.bounds().1).is_none() {
                            Truth::Never
                        } else if range
                            .bounds()
                            .0
                            .is_none_or(|lo| i.set.bounds().0.is_some_and(|x| x >= lo))
                            && range
                                .bounds()
                                .1
                                .is_none_or(|hi| i.set.bounds().1.is_some_and(|x| x <= hi))
                            && (range.known_value().is_none()
                                || i.set.known_value() == range.known_value())
                        {
                            Truth::Always
                        } else {
                            Truth::Sometimes
                        }
                    }
                    None => Truth::Sometimes,
                },
                _ => Truth::Sometimes,
            },
            Pat::TupleStruct(p, pats) if matches!(p.last(), "Some" | "Ok") && pats.len() == 1 => {
                match val {
                    Val::Unknown(_) => Truth::Sometimes,
                    Val::Nothing => Truth::Never,
                    v => self.pattern_truth(&pats[0], v, path),
                }
            }
            Pat::TupleStruct(..) | Pat::Struct(..) => match (pat, val) {
                (Pat::Struct(_, fields), Val::Struct(s)) => {
                    let mut truth = Truth::Always;
                    for (name, p) in fields {
                        let v = s
                            .fields
                            .iter()
                            .find(|(n, _)| n == name)
                            .map_or_else(|| unknown(""), |(_, v)| v.clone());
                        truth = truth.and(self.pattern_truth(p, &v, path));
                    }
                    truth
                }
                _ => Truth::Sometimes,
            },
        }
    }

    // ---------------------------------------------------------------- assignments, loops

    fn assign(&mut self, place: &Expr, op: Option<ir::Op>, value: &Expr, path: Path) -> Outs {
        let Some(root) = place_root(place) else {
            // `*p = ..`, `v[i] = ..`: not a binding the reader follows.
            return self
                .eval(value, path, None)
                .into_iter()
                .map(|(p, _)| (p, Val::Tuple(Vec::new())))
                .collect();
        };
        let computed = match op {
            Some(op) => Expr::Binary(op, Box::new(place.clone()), Box::new(value.clone())),
            None => value.clone(),
        };
        let expected = match path.lookup(&root).map(|b| &b.val) {
            Some(Val::Int(i)) => i.ty,
            _ => None,
        };
        let mut outs = Vec::new();
        for (mut path, v) in self.eval(&computed, path, expected) {
            if !path.normal() {
                outs.push((path, Val::Tuple(Vec::new())));
                continue;
            }
            let v = self.stored(v, expected);
            let version = self.version();
            let new = match path.lookup(&root) {
                Some(b) => {
                    let v = if matches!(place, Expr::Path(..)) {
                        self.named_value(&root, v, At::NONE, None, &path, None)
                    } else {
                        v
                    };
                    Some(update(&b.val, place, v))
                }
                None => None,
            };
            if let (Some(new), Some(b)) = (new, path.lookup_mut(&root)) {
                b.val = new;
                b.version = version;
            }
            outs.push((path, Val::Tuple(Vec::new())));
        }
        outs
    }

    /// A labeled block or loop: a `break` with its label leaves it with the break's value
    /// (`'a: { if x { break 'a 64; } 128 }` is 64 or 128); a loop's own `break` and
    /// `continue` with its label are its own.
    fn eval_labeled(
        &mut self,
        label: &str,
        inner: &Expr,
        path: Path,
        expected: Option<IntTy>,
    ) -> Outs {
        if let Expr::Loop(l) = inner {
            return self.eval_loop(l, Some(label), path);
        }
        self.eval(inner, path, expected)
            .into_iter()
            .map(
                |(mut p, v)| match std::mem::replace(&mut p.flow, Flow::Normal) {
                    Flow::Break(Some(l), value) if l == label => (p, *value),
                    other => {
                        p.flow = other;
                        (p, v)
                    }
                },
            )
            .collect()
    }

    fn eval_loop(&mut self, l: &Loop, label: Option<&str>, path: Path) -> Outs {
        let test = match &l.kind {
            LoopKind::While(test) => Some(test.clone()),
            _ => None,
        };
        let pushed = test.map(|t| self.loop_tests.push(t)).is_some();
        let outs = self.eval_loop_inner(l, label, path);
        if pushed {
            self.loop_tests.pop();
        }
        outs
    }

    fn eval_loop_inner(&mut self, l: &Loop, label: Option<&str>, path: Path) -> Outs {
        if let LoopKind::Over(pat, seq) = &l.kind
            && let Some(outs) = self.stepped(l, pat, seq, label, &path)
        {
            return outs;
        }
        if let Some(paths) = self.bounded_while(l, &path) {
            return paths
                .into_iter()
                .map(|p| (p, Val::Tuple(Vec::new())))
                .collect();
        }
        if let Some(outs) = self.counted_while(l, label, &path) {
            return outs;
        }
        // Any other loop: what it assigns is unknown inside and after it; its body is read
        // once (for the launches it makes).
        let mut names = Vec::new();
        assigned_names_block(&l.body, &mut names, 0);
        // Each name's integer type, as bound before the loop.
        let assigned: Vec<(String, Option<IntTy>)> = names
            .into_iter()
            .filter_map(|(n, ints_only)| match path.lookup(&n).map(|b| &b.val) {
                Some(Val::Int(i)) => Some((n, i.ty)),
                _ if ints_only => None,
                _ => Some((n, None)),
            })
            .collect();
        let mut entry = Vec::new();
        let mut after = Vec::new();
        match &l.kind {
            LoopKind::While(cond) => {
                // Every iteration follows the first, whose test holds on the values before
                // the loop: those the loop does not assign keep what it says of them in
                // every iteration (`for (k = 2; k <= n; k <<= 1)` runs its body only where
                // `n >= 2`), and a path where it fails never runs the body and leaves with
                // the values it had. Taken where the first test decides exactly (known
                // values, the members of a set): a test of a run-time input would be one
                // more condition the body's tests of it must be related to.
                let decided = path.decisions.len();
                let first = self.condition(cond, path.clone());
                let exact = first.iter().all(|(p, _)| {
                    p.decisions.len() == decided
                        && p.uncertain.is_some() == path.uncertain.is_some()
                });
                // A first test that fails on every way (`i < std::min(n, 4)` from `i = 8`,
                // split by the clamp): the body never runs, whatever the ways decided.
                let never = first
                    .iter()
                    .all(|(p, holds)| !holds && p.uncertain.is_none());
                let (tests, entered) = if exact || never {
                    (first, true)
                } else {
                    let path = self.havoc(path, &assigned, l.at);
                    (self.condition(cond, path), false)
                };
                for (p, holds) in tests {
                    if holds && p.normal() {
                        entry.push(if entered {
                            self.havoc(p, &assigned, l.at)
                        } else {
                            p
                        });
                    } else {
                        after.push((p, Val::Tuple(Vec::new())));
                    }
                }
            }
            LoopKind::For(pat, iter) => {
                let path = self.havoc(path, &assigned, l.at);
                self.enter_for(pat, iter, path, &mut entry, &mut after);
            }
            LoopKind::Over(pat, seq) => {
                // Not stepped through: its elements evaluated, the pattern's names unknown.
                let path = self.havoc(path, &assigned, l.at);
                let iter = Expr::Tuple(seq.exprs().into_iter().cloned().collect());
                self.enter_for(pat, &iter, path, &mut entry, &mut after);
            }
            LoopKind::Loop => entry.push(self.havoc(path, &assigned, l.at)),
        }
        // The paths that never ran the body (a `while` whose first test fails).
        let never_entered = if matches!(l.kind, LoopKind::While(_)) {
            after.len()
        } else {
            0
        };
        let mut outs = Vec::new();
        // A `loop` is left only by a `break`: a path that reaches the end of its body goes
        // round again, from a state the havoc above already stands for (`loop {}` never
        // ends).
        let only_break = matches!(l.kind, LoopKind::Loop);
        // A `break` or `continue` of this loop: unlabeled, or with its label.
        let mine = |l: &Option<String>| l.as_deref().is_none_or(|l| Some(l) == label);
        for p in entry {
            let depth = p.top().env.len();
            for (mut q, _) in self.eval_block(&l.body, p, None) {
                q.top_mut().env.truncate(depth);
                match std::mem::replace(&mut q.flow, Flow::Normal) {
                    Flow::Continue(l) if only_break && mine(&l) => {}
                    Flow::Normal if only_break => {}
                    // `loop { break 256 }`: the loop's value.
                    Flow::Break(l, value) if mine(&l) => after.push((q, *value)),
                    Flow::Continue(l) if mine(&l) => after.push((q, Val::Tuple(Vec::new()))),
                    Flow::Normal => after.push((q, Val::Tuple(Vec::new()))),
                    other => {
                        q.flow = other;
                        outs.push((q, Val::Tuple(Vec::new())));
                    }
                }
            }
        }
        for (i, (p, value)) in after.into_iter().enumerate() {
            let p = if i < never_entered {
                p
            } else {
                self.havoc(p, &assigned, l.at)
            };
            outs.push((p, value));
        }
        self.bounded(outs, l.at)
    }

    /// A `for` loop read once: `iter` evaluated on `path`, each path both leaving the loop
    /// (`after`) and entering the body with the pattern's names unknown (`entry`).
    fn enter_for(
        &mut self,
        pat: &Pat,
        iter: &Expr,
        path: Path,
        entry: &mut Vec<Path>,
        after: &mut Outs,
    ) {
        for (p, _) in self.eval(iter, path, None) {
            after.push((p.clone(), Val::Tuple(Vec::new())));
            let mut names = Vec::new();
            pat_names(pat, &mut names);
            entry.push(self.bind(
                &Pat::Opaque(names),
                Val::Tuple(Vec::new()),
                p,
                At::NONE,
                None,
            ));
        }
    }

    /// The values `seq` steps through on `path`, when each is known and there are at most
    /// [`MAX_STEPPED`] (divided by the iterations of the loops being stepped through around
    /// this one): known integers of a list or a range, or strings of a list.
    fn seq_values(&mut self, seq: &Seq, path: &Path) -> Option<Vec<Val>> {
        // Evaluated aside (`eval_quiet`): only what evaluates the same there, literals,
        // names and arithmetic of them (a value read from a constant carries its term for
        // the compiler to confirm), never a call.
        if !seq.exprs().iter().all(|e| plain(e, 0)) {
            return None;
        }
        let room = MAX_STEPPED / self.stepping.max(1);
        let values = match seq {
            Seq::List(items) => {
                if items.len() > room {
                    return None;
                }
                let mut out = Vec::new();
                for e in items {
                    let v = self.eval_quiet(e, path)?;
                    let known = matches!(&v, Val::Int(i) if i.value().is_some());
                    if !(known || matches!(v, Val::Str(_))) {
                        return None;
                    }
                    out.push(v);
                }
                out
            }
            Seq::Range { .. } => self.range_values(seq, 1, room, path)?,
            Seq::Rev(inner) => {
                let mut values = self.seq_values(inner, path)?;
                values.reverse();
                values
            }
            Seq::StepBy(inner, step) => {
                // `step_by(0)` panics: not stepped (the loop read once says nothing of it).
                let Val::Int(n) = self.eval_quiet(step, path)? else {
                    return None;
                };
                let n = n.value().filter(|n| *n > 0)?;
                match &**inner {
                    Seq::Range { .. } => self.range_values(inner, n, room, path)?,
                    other => {
                        let every = usize::try_from(n).ok()?;
                        self.seq_values(other, path)?
                            .into_iter()
                            .step_by(every)
                            .collect()
                    }
                }
            }
        };
        (values.len() <= room).then_some(values)
    }

    /// The values of the range `seq` taken every `step` from its start, when its ends are
    /// known and they are at most `room`.
    fn range_values(
        &mut self,
        seq: &Seq,
        step: i128,
        room: usize,
        path: &Path,
    ) -> Option<Vec<Val>> {
        let Seq::Range {
            start,
            end,
            inclusive,
        } = seq
        else {
            return None;
        };
        let (Val::Int(a), Val::Int(b)) =
            (self.eval_quiet(start, path)?, self.eval_quiet(end, path)?)
        else {
            return None;
        };
        let (first, bound) = (a.value()?, b.value()?);
        let last = if *inclusive {
            bound
        } else {
            bound.checked_sub(1)?
        };
        // An empty range (`4..2`) runs no iteration.
        let count = if last < first {
            0
        } else {
            (last.checked_sub(first)? / step).checked_add(1)?
        };
        if usize::try_from(count).ok()? > room {
            return None;
        }
        let ty = a.ty.or(b.ty);
        Some((0..count).map(|k| Val::int(first + k * step, ty)).collect())
    }

    /// A `for` loop over a sequence whose values are known ([`Interp::seq_values`]), run
    /// element by element on every path: a path leaves where its body breaks (or returns),
    /// the others go on with the next element, and those left after the last leave too, so
    /// that what the body chooses under a test (`if n <= b { block = b; break; }`) is the
    /// set its paths choose. `None` (the loop is read once, what it assigns unknown) when
    /// the values are not known or too many.
    fn stepped(
        &mut self,
        l: &Loop,
        pat: &Pat,
        seq: &Seq,
        label: Option<&str>,
        path: &Path,
    ) -> Option<Outs> {
        let values = self.seq_values(seq, path)?;
        let depth = path.top().env.len();
        let mut running = vec![(path.clone(), Val::Tuple(Vec::new()))];
        let mut outs = Vec::new();
        let outer = self.stepping;
        self.stepping = outer.max(1) * values.len().max(1);
        for v in values {
            let mut next = Vec::new();
            for (p, _) in running {
                let p = self.bind(pat, v.clone(), p, At::NONE, None);
                self.iteration((l, label, depth), p, &mut next, &mut outs);
            }
            running = self.bounded(next, l.at);
            if running.is_empty() {
                break;
            }
        }
        self.stepping = outer;
        outs.extend(running);
        Some(self.bounded(outs, l.at))
    }

    /// One run of the body of `l` (labelled `label`) from `path`, its bindings cut back to
    /// the `depth` the loop began with: the paths that go round again (the end of the
    /// body, a `continue` of this loop) into `next`, those that leave (a `break` of this
    /// loop, a return, a panic) into `outs`. What [`Interp::stepped`] and
    /// [`Interp::counted_while`] do each iteration.
    fn iteration(
        &mut self,
        (l, label, depth): (&Loop, Option<&str>, usize),
        path: Path,
        next: &mut Outs,
        outs: &mut Outs,
    ) {
        let mine = |l: &Option<String>| l.as_deref().is_none_or(|l| Some(l) == label);
        for (mut q, _) in self.eval_block(&l.body, path, None) {
            q.top_mut().env.truncate(depth);
            match std::mem::replace(&mut q.flow, Flow::Normal) {
                Flow::Normal => next.push((q, Val::Tuple(Vec::new()))),
                Flow::Continue(l) if mine(&l) => next.push((q, Val::Tuple(Vec::new()))),
                Flow::Break(l, _) if mine(&l) => outs.push((q, Val::Tuple(Vec::new()))),
                other => {
                    q.flow = other;
                    outs.push((q, Val::Tuple(Vec::new())));
                }
            }
        }
    }

    /// A `while` loop a counter ends (C++'s `for (x = 8; x <= x_max && best > 1; x += 8)`,
    /// lowered with its update at the end of the body; Rust's `while x <= x_max { ..; x += 8
    /// }`), run iteration by iteration on every path as [`Interp::stepped`] runs a `for`: a
    /// path leaves where the condition fails or the body breaks (or returns), so that what
    /// the body chooses under a test (`if tiles < best { best_x = x; }`) is the set its
    /// paths choose. Taken where one conjunct of the condition reads only known values and a
    /// name the body's last statement assigns (the counter), and that statement alone, run
    /// from the values before the loop, makes the conjunct fail within the room left of
    /// [`MAX_STEPPED`]; `None` (the loop is read once, what it assigns unknown) otherwise, or
    /// where a path still runs after that many iterations (the body changes the counter too).
    fn counted_while(&mut self, l: &Loop, label: Option<&str>, path: &Path) -> Option<Outs> {
        let LoopKind::While(cond) = &l.kind else {
            return None;
        };
        let update = match (&l.body.tail, l.body.stmts.last()) {
            (Some(e), _) | (None, Some(Stmt::Expr(e))) => e,
            _ => return None,
        };
        let Expr::Assign(place, _, _) = update else {
            return None;
        };
        let Expr::Path(counter, _) = &**place else {
            return None;
        };
        let counter = counter.single()?;
        let mut conjuncts = Vec::new();
        and_operands(cond, &mut conjuncts, 0);
        let room = MAX_STEPPED / self.stepping.max(1);
        // The iterations the counter alone allows, by its bounding conjunct.
        let count = conjuncts
            .into_iter()
            .filter(|c| matches!(c, Expr::Compare(_, a, b) if plain(a, 0) && plain(b, 0)))
            .find_map(|c| {
                let mut names = Vec::new();
                free_names(c, &mut names, 0);
                if !names.iter().any(|n| n == counter) {
                    return None;
                }
                let mut q = path.clone();
                for k in 0..=room {
                    match self.eval_quiet(c, &q)? {
                        Val::Bool(Some(false)) => return Some(k),
                        Val::Bool(Some(true)) => {}
                        _ => return None,
                    }
                    let [(next, _)] = <[_; 1]>::try_from(self.eval(update, q, None)).ok()?;
                    q = next;
                }
                None
            })?;
        let depth = path.top().env.len();
        let mut running = vec![(path.clone(), Val::Tuple(Vec::new()))];
        let mut outs = Vec::new();
        let outer = self.stepping;
        let problems = self.problems.len();
        self.stepping = outer.max(1) * count.max(1);
        for _ in 0..=room {
            let mut next = Vec::new();
            for (p, _) in running {
                for (q, holds) in self.condition(cond, p) {
                    if !holds || !q.normal() {
                        outs.push((q, Val::Tuple(Vec::new())));
                    } else {
                        self.iteration((l, label, depth), q, &mut next, &mut outs);
                    }
                }
            }
            running = self.bounded(next, l.at);
            let folded = |outs: &Outs| outs.iter().any(|(p, _)| p.overflow.is_some());
            if running.is_empty() || folded(&running) || folded(&outs) {
                break;
            }
        }
        self.stepping = outer;
        let outs = self.bounded(outs, l.at);
        // Paths folded past the bound make no launch the reader checks: the loop read once
        // instead (its launches read, what it assigns unknown).
        if !running.is_empty() || outs.iter().any(|(p, _)| p.overflow.is_some()) {
            self.problems.truncate(problems);
            return None;
        }
        Some(outs)
    }

    /// `names` unknown on `path` (assigned in the loop at `at`, which the reader does not
    /// bound): an integer of a known type is any value of that type (its type does not
    /// change), an input of its own; anything else is not known.
    fn havoc(&mut self, mut path: Path, names: &[(String, Option<IntTy>)], at: At) -> Path {
        for (name, ty) in names {
            let version = self.version();
            let why = format!("`{name}` is assigned in a loop whose exit the reader cannot bound");
            // What it held before the loop may still be in it (`m += 1000` from `m = n`).
            let before = path.lookup(name).map(|b| b.val.roots()).unwrap_or_default();
            let val = match ty {
                Some(ty) => {
                    let key = SourceKey {
                        name: name.clone(),
                        at: at.0,
                    };
                    let mut i = Int::input(Some(*ty), self.source(why, key));
                    i.roots = value::roots(&before, &i.roots);
                    Val::Int(i)
                }
                None => unknown(why),
            };
            if let Some(b) = path.lookup_mut(name) {
                b.val = val;
                b.version = version;
            }
        }
        path
    }

    /// `while condition { x = ..; }` where the body only assigns one integer variable: the
    /// values it can leave the loop with (`abstract_int::loop_exits`), a run-time set.
    /// The integer type of what `var` is compared with in `cond` (`x` in `n < x`), if known.
    fn compared_type(&mut self, cond: &Expr, var: &str, path: &Path) -> Option<IntTy> {
        let Expr::Compare(_, l, r) = cond else {
            return None;
        };
        let is_var = |e: &Expr| matches!(e, Expr::Path(p, _) if p.single() == Some(var));
        let other = match (is_var(l), is_var(r)) {
            (true, false) => r,
            (false, true) => l,
            _ => return None,
        };
        // A name or a field of one: read without effects (no call is made twice).
        if !matches!(other.as_ref(), Expr::Path(..) | Expr::Field(..)) {
            return None;
        }
        match self.eval_quiet(other, path)? {
            Val::Int(i) => i.ty,
            _ => None,
        }
    }

    fn bounded_while(&mut self, l: &Loop, path: &Path) -> Option<Vec<Path>> {
        let LoopKind::While(cond) = &l.kind else {
            return None;
        };
        let mut stmts: Vec<&Expr> = Vec::new();
        for s in &l.body.stmts {
            match s {
                Stmt::Expr(e @ Expr::Assign(..)) => stmts.push(e),
                _ => return None,
            }
        }
        match &l.body.tail {
            Some(t @ Expr::Assign(..)) => stmts.push(t),
            Some(_) => return None,
            None => {}
        }
        let mut names = Vec::new();
        for s in &stmts {
            if let Expr::Assign(place, _, _) = s {
                match &**place {
                    Expr::Path(p, _) => names.push(p.single()?.to_owned()),
                    _ => return None,
                }
            }
        }
        names.dedup();
        let [var] = names.as_slice() else {
            return None;
        };
        let init = match path.lookup(var).map(|b| path.view(b.val.clone()))? {
            Val::Int(i) => i,
            Val::Choice(c, _) => {
                // A set: its members one by one.
                let mut out = Vec::new();
                for p in self.fork_on(path.clone(), c) {
                    out.extend(self.bounded_while(l, &p)?);
                }
                return Some(out);
            }
            _ => return None,
        };
        init.set.members()?;
        // An untyped literal (`let mut n = 1; while n < x`) has the type of what it is
        // compared with, as Rust infers it: its steps overflow where the program's do.
        let ty = init.ty.or_else(|| self.compared_type(cond, var, path));
        // The inputs the exits depend on: the condition's.
        let mut roots = init.roots.clone();
        let mut cond_names = Vec::new();
        free_names(cond, &mut cond_names, 0);
        for n in &cond_names {
            if let Some(b) = path.lookup(n) {
                roots = value::roots(&roots, &b.val.roots());
            }
        }
        let (exits, walk) = self.walk_loop(cond, var, ty, &stmts, &init.set, path)?;
        let mut p = path.clone();
        let on_inputs = !roots.is_empty();
        let exit_count = exits.members().map_or(usize::MAX, <[i128]>::len);
        let val = Val::Int(Int {
            set: exits,
            ty,
            term: None,
            roots,
            source: None,
            moved: None,
        });
        let val = self.named_value(var, val, l.at, None, &p, None);
        if let Val::Choice(c, _) = &val
            && let Some(info) = self.choices.get_mut(*c as usize)
        {
            info.text = format!("while {}", ir::text(cond));
        }
        let version = self.version();
        if let Some(b) = p.lookup_mut(var) {
            b.val = val.clone();
            b.version = version;
        }
        match val {
            Val::Choice(c, _)
                if on_inputs
                    && exit_count <= MAX_REFINED_EXITS
                    && self.mode.lang == value::Lang::Cpp =>
            {
                // Each path's inputs now say which member it is: the set no longer depends
                // on them in a way the reader cannot relate.
                if let Some(info) = self.choices.get_mut(c as usize) {
                    info.roots.clear();
                    info.on_own_paths = true;
                }
                Some(self.refined_exits(&walk, p, c))
            }
            _ => Some(vec![p]),
        }
    }

    /// The values `while (cond) { stmts }` leaves with, its counter `var` of type `ty`
    /// starting at `init` on `path` (`loop_exits`), with how the test went at each value
    /// and the steps taken; `None` where a step is not one known value.
    fn walk_loop<'a>(
        &mut self,
        cond: &'a Expr,
        var: &'a str,
        ty: Option<IntTy>,
        stmts: &[&Expr],
        init: &AbstractInt,
        path: &Path,
    ) -> Option<(AbstractInt, LoopWalk<'a>)> {
        let mut unknown_step = false;
        let with = |v: i128| {
            let mut p = path.clone();
            if let Some(b) = p.lookup_mut(var) {
                b.val = Val::int(v, ty);
            }
            p
        };
        // How the test went at each value, and the steps taken: where the exits' values
        // say something of the test's run-time inputs (below).
        let mut truths: Vec<(i128, Truth)> = Vec::new();
        let mut steps: Vec<(i128, i128)> = Vec::new();
        let this = RefCell::new(&mut *self);
        let exits = loop_exits(
            init,
            |v| {
                let outs = this.borrow_mut().condition(cond, with(v));
                let holds: Vec<bool> = outs.iter().map(|(_, h)| *h).collect();
                let truth = match (holds.contains(&true), holds.contains(&false)) {
                    (true, false) => Truth::Always,
                    (false, true) => Truth::Never,
                    _ => Truth::Sometimes,
                };
                truths.push((v, truth));
                truth
            },
            |v| {
                let mut p = with(v);
                for s in stmts {
                    let outs = this.borrow_mut().eval(s, p, ty);
                    let Ok([(q, _)]) = <[(Path, Val); 1]>::try_from(outs) else {
                        unknown_step = true;
                        return None;
                    };
                    p = q;
                }
                let next = match p.lookup(var).map(|b| &b.val) {
                    Some(Val::Int(i)) if i.value().is_some() => i.value(),
                    // An overflow: a panic, no exit on that path.
                    Some(Val::Unknown(u)) if u.why.contains("overflows") => None,
                    _ => {
                        unknown_step = true;
                        None
                    }
                };
                if let Some(n) = next {
                    steps.push((v, n));
                }
                next
            },
        );
        let exits = exits?;
        if unknown_step {
            return None;
        }
        Some((
            exits,
            LoopWalk {
                cond,
                var,
                ty,
                starts: init.members().unwrap_or_default().to_vec(),
                truths,
                steps,
            },
        ))
    }

    /// The paths leaving a loop [`Interp::bounded_while`] read, one per exit value of its
    /// counter (the members of the set `choice`), each refined by what its test says of
    /// the other names there: it failed at the exit's value and, where one value stepped
    /// to it and the loop did not start at it, held at that value (`block = 64` leaves
    /// `while (block < cols)` only where `32 < cols <= 64`). A test that went one way
    /// whatever the inputs says nothing and is not applied.
    fn refined_exits(&mut self, walk: &LoopWalk<'_>, path: Path, choice: ChoiceId) -> Vec<Path> {
        let truth = |v: i128| walk.truths.iter().find(|(x, _)| *x == v).map(|(_, t)| *t);
        let mut out = Vec::new();
        for q in self.fork_on(path, choice) {
            let Some((counter, version)) = q.lookup(walk.var).map(|b| (b.val.clone(), b.version))
            else {
                out.push(q);
                continue;
            };
            let Some(v) = (match q.view(counter.clone()) {
                Val::Int(i) => i.value(),
                _ => None,
            }) else {
                out.push(q);
                continue;
            };
            let mut paths = vec![q];
            let from: Vec<i128> = walk
                .steps
                .iter()
                .filter(|(_, n)| *n == v)
                .map(|(x, _)| *x)
                .collect();
            if let [u] = from.as_slice()
                && !walk.starts.contains(&v)
                && truth(*u) == Some(Truth::Sometimes)
            {
                paths = self.tested_at(walk, paths, *u, true);
            }
            if truth(v) == Some(Truth::Sometimes) {
                paths = self.tested_at(walk, paths, v, false);
            }
            for mut r in paths {
                if let Some(b) = r.lookup_mut(walk.var) {
                    b.val = counter.clone();
                    b.version = version;
                }
                out.push(r);
            }
        }
        out
    }

    /// The ways through `paths` on which the loop's test went `holds` with its counter at
    /// `value` (bound afresh, so that what the test decided is not taken for the exit's).
    fn tested_at(
        &mut self,
        walk: &LoopWalk<'_>,
        paths: Vec<Path>,
        value: i128,
        holds: bool,
    ) -> Vec<Path> {
        let mut out = Vec::new();
        for mut p in paths {
            let version = self.version();
            if let Some(b) = p.lookup_mut(walk.var) {
                b.val = Val::int(value, walk.ty);
                b.version = version;
            }
            out.extend(
                self.condition(walk.cond, p)
                    .into_iter()
                    .filter(|(p, h)| *h == holds && p.normal())
                    .map(|(p, _)| p),
            );
        }
        out
    }
}

/// The most exits of a loop [`Interp::bounded_while`] steps through that C++ reads on
/// paths of their own ([`Interp::refined_exits`]): a block doubled up to a cap has a few
/// (32 to 1024: 6); more stay one set, read once by the code after the loop (a size rounded
/// up to a power of two, `while (n < x) n *= 2;` of an `int`, has 31). Rust keeps the exits
/// one set, whose launches its diagnostics report together (`b` from `while b < n`).
const MAX_REFINED_EXITS: usize = 16;

/// A loop [`Interp::bounded_while`] stepped through: its test, its counter and the
/// counter's type, the values it started from, how the test went at each value met and
/// the steps taken (from, to).
struct LoopWalk<'a> {
    cond: &'a Expr,
    var: &'a str,
    ty: Option<IntTy>,
    starts: Vec<i128>,
    truths: Vec<(i128, Truth)>,
    steps: Vec<(i128, i128)>,
}

/// How a parameter of the wrapper is read.
#[derive(Clone, Debug, PartialEq)]
pub enum ParamKind {
    /// An integer of that type: its type's range.
    Int(IntTy),
    /// A `bool`: either value.
    Bool,
    /// A tuple of integers.
    Ints(Vec<IntTy>),
    /// An integer of that type whose value this reading knows (C++: a parameter the policy
    /// says holds a device attribute, read once per target's value).
    Known(i128, IntTy),
    /// Anything else: unknown.
    Other,
}

/// An integer literal of type `ty` (its suffix's, else the one expected).
fn int_literal(value: i128, ty: Option<IntTy>) -> Val {
    match ty {
        Some(t) if value < t.min() || value > t.max() => {
            unknown(format!("`{value}` does not fit {}", t.name()))
        }
        _ => Val::int(value, ty),
    }
}

/// `path` with its next step `flow`.
/// `k` with its `format!` placeholders filled again from what `path` knows now of the
/// inputs they were filled from (the latest binding that is exactly each input).
fn refilled(k: Kernel, path: &Path) -> Kernel {
    let Some(refill) = k.refill.clone() else {
        return k;
    };
    let name = refill.fill(|source| {
        path.frames
            .iter()
            .rev()
            .flat_map(|f| f.env.iter().rev())
            .find_map(|b| match &b.val {
                Val::Int(i) if i.source == Some(source) => Some(i.set.clone()),
                _ => None,
            })
    });
    Kernel {
        glob: occupancy_spec::artifact::is_glob(&name),
        name,
        ..k
    }
}

/// Whether `a` and `b` are one kernel: the same name (without template arguments as
/// written) and the same template arguments.
fn same_kernel(a: &Kernel, b: &Kernel) -> bool {
    let base = |k: &Kernel| {
        k.name
            .split('<')
            .next()
            .unwrap_or_default()
            .split_whitespace()
            .collect::<String>()
    };
    base(a) == base(b) && a.template_args == b.template_args
}

/// Template arguments as values (types, known integers and `bool`s): `None` where one is
/// not known.
fn template_args(vals: &[Val]) -> Option<Vec<crate::launches::TemplateArg>> {
    use crate::launches::TemplateArg;
    vals.iter()
        .map(|v| match v {
            Val::Type(t) => Some(TemplateArg::Type(t.to_string())),
            Val::Int(i) => i.value().map(TemplateArg::Value),
            Val::Bool(Some(b)) => Some(TemplateArg::Bool(*b)),
            _ => None,
        })
        .collect()
}

/// An argument as the parameter of integer type `ty` receives it: a value not known to be
/// an integer (a field of a run-time struct, `self.last_dim`) is one of that type, any of
/// its values, depending on what the argument depends on.
fn typed_argument(v: Val, ty: Option<IntTy>) -> Val {
    match (ty, v) {
        (Some(ty), Val::Unknown(u)) if !u.panic => Val::Int(Int {
            set: AbstractInt::range(Some(ty.min()), Some(ty.max())),
            ty: Some(ty),
            term: None,
            roots: u.roots,
            source: u.source,
            moved: None,
        }),
        (_, v) => v,
    }
}

/// Whether `module`, the module name a loader is given, is built at run time with a part
/// of its own (`concat_*`, not `*`): a name it qualifies stands for the kernels of that name
/// in the modules the pattern matches.
fn run_time_module(module: &Kernel) -> bool {
    module.glob && module.name.chars().any(|c| c != '*')
}

fn with_flow(mut path: Path, flow: Flow) -> Path {
    path.flow = flow;
    path
}

/// A value that is not an integer where one is needed.
fn not_int(v: Val, symbol: &str) -> Val {
    match v {
        Val::Unknown(u) => Val::Unknown(u),
        _ => unknown(format!("`{symbol}` on a value that is not an integer")),
    }
}

/// An unknown combined with another value: still unknown, with both's inputs.
fn unknown_with(u: Unknown, other: &Val) -> Val {
    Val::Unknown(Unknown {
        roots: value::roots(&u.roots, &other.roots()),
        source: None,
        why: u.why,
        panic: u.panic,
    })
}

/// An integer method on evaluated operands (receiver first).
fn int_method(method: Method, vals: &[Val], path: &mut Path) -> Val {
    let mut acc: Val = Val::Tuple(Vec::new());
    for v in vals {
        acc = Val::map2(acc, v.clone(), &mut |t, v| match t {
            Val::Tuple(mut items) => {
                items.push(v);
                Val::Tuple(items)
            }
            other => other,
        });
    }
    acc.map(&mut |t| {
        let Val::Tuple(items) = t else { return t };
        if let Some(Val::Unknown(u)) = items.iter().find(|v| matches!(v, Val::Unknown(_))) {
            let mut roots = u.roots.clone();
            for v in &items {
                roots = value::roots(&roots, &v.roots());
            }
            return Val::Unknown(Unknown {
                why: u.why.clone(),
                roots,
                source: None,
                panic: u.panic,
            });
        }
        let ints: Vec<&Int> = items
            .iter()
            .filter_map(|v| match v {
                Val::Int(i) => Some(i),
                _ => None,
            })
            .collect();
        if ints.len() != method.arity() + 1 {
            return unknown(format!(
                "`.{}` on a value that is not an integer",
                method.name()
            ));
        }
        let out = value::method(method, ints[0], &ints[1..]);
        out.dropped.into_iter().for_each(|t| path.read(t));
        out.val
    })
}

/// `a op b` on values (integers; anything else is not known).
fn compare_vals(op: Comparison, a: &Val, b: &Val) -> Truth {
    match (a, b) {
        (Val::Int(a), Val::Int(b)) => value::compare(op, a, b),
        (Val::Bool(Some(a)), Val::Bool(Some(b))) => equality(op, a == b),
        (Val::Str(a), Val::Str(b)) => equality(op, a == b),
        _ => Truth::Sometimes,
    }
}

/// `==` / `!=` of two values known to be `equal` or not.
fn equality(op: Comparison, equal: bool) -> Truth {
    match (op, equal) {
        (Comparison::Eq, true) | (Comparison::Ne, false) => Truth::Always,
        (Comparison::Eq, false) | (Comparison::Ne, true) => Truth::Never,
        _ => Truth::Sometimes,
    }
}

/// `.0` / `.name` of a value.
fn field_of(v: Val, field: &Field) -> Val {
    match (v, field) {
        (Val::Tuple(mut items), Field::Index(i)) if (*i as usize) < items.len() => {
            items.swap_remove(*i as usize)
        }
        (Val::Struct(s), Field::Named(n)) => s.fields.iter().find(|(f, _)| f == n).map_or_else(
            || unknown(format!("no field `.{n}` here")),
            |(_, v)| v.clone(),
        ),
        (Val::Config(c), Field::Named(n)) => match n.as_str() {
            "grid_dim" => c.grid.clone(),
            "block_dim" => c.block.clone(),
            "shared_mem_bytes" => c.smem.clone(),
            _ => unknown(format!("no field `.{n}` in a LaunchConfig")),
        },
        // A part of a run-time value depends on it but is not it: the attribute's candidates
        // for the part (`self.block`) are not the whole's (`self`).
        (Val::Unknown(u), _) => Val::Unknown(Unknown { source: None, ..u }),
        (_, Field::Index(i)) => unknown(format!("no field `.{i}` here")),
        (_, Field::Named(n)) => unknown(format!("the field `.{n}`")),
    }
}

/// The variable an assignment's place starts from (`cfg` in `cfg.grid_dim.0`).
fn place_root(e: &Expr) -> Option<String> {
    match e {
        Expr::Path(p, _) => p.single().map(str::to_owned),
        Expr::Field(base, _) => place_root(base),
        _ => None,
    }
}

/// `old` with the part `place` names replaced by `new`.
fn update(old: &Val, place: &Expr, new: Val) -> Val {
    match place {
        Expr::Path(..) => new,
        Expr::Field(base, field) => {
            let inner = match base.as_ref() {
                Expr::Path(..) => old.clone(),
                b => {
                    // The value at `base`, from the root down.
                    project(old, b).unwrap_or_else(|| unknown("a field the reader does not follow"))
                }
            };
            let replaced = old_with(inner, field, new);
            match base.as_ref() {
                Expr::Path(..) => replaced,
                b => update(old, b, replaced),
            }
        }
        _ => unknown("an assignment the reader does not follow"),
    }
}

/// The value at `place` inside `root`'s value.
fn project(root: &Val, place: &Expr) -> Option<Val> {
    match place {
        Expr::Path(..) => Some(root.clone()),
        Expr::Field(base, field) => Some(field_of(project(root, base)?, field)),
        _ => None,
    }
}

/// `v` with `field` set to `new`.
fn old_with(v: Val, field: &Field, new: Val) -> Val {
    match (v, field) {
        (Val::Tuple(mut items), Field::Index(i)) if (*i as usize) < items.len() => {
            items[*i as usize] = new;
            Val::Tuple(items)
        }
        (Val::Struct(s), Field::Named(n)) => {
            let mut s = (*s).clone();
            match s.fields.iter_mut().find(|(f, _)| f == n) {
                Some((_, v)) => *v = new,
                None => s.fields.push((n.clone(), new)),
            }
            Val::Struct(Rc::new(s))
        }
        (Val::Config(c), Field::Named(n)) => {
            let mut c = (*c).clone();
            match n.as_str() {
                "grid_dim" => c.grid = new,
                "block_dim" => c.block = new,
                "shared_mem_bytes" => c.smem = new,
                _ => {}
            }
            Val::Config(Rc::new(c))
        }
        (Val::Choice(c, vals), field) => Val::Choice(
            c,
            Rc::new(
                vals.iter()
                    .map(|v| old_with(v.clone(), field, new.clone()))
                    .collect(),
            ),
        ),
        (other, _) => other,
    }
}

/// Where a construct that may split paths is written.
fn expr_at(e: &Expr) -> Option<At> {
    let at = match e {
        Expr::If(i) => i.at,
        Expr::Match(m) => m.at,
        Expr::Loop(l) => l.at,
        Expr::Call(_, _, at) | Expr::MethodCall(_, _, _, at) => *at,
        Expr::Struct(s) => s.at,
        Expr::Try(inner) | Expr::Ref(inner, _) => return expr_at(inner),
        _ => return None,
    };
    (at.0 != At::NONE.0).then_some(at)
}

/// `(x, 1, 1)` as `x`: the block's expression as a person reads it.
fn block_text(e: &Expr) -> String {
    match e {
        Expr::Tuple(items)
            if items.len() == 3 && items[1..].iter().all(|i| *i == Expr::Int(1, None)) =>
        {
            ir::text(&items[0])
        }
        other => ir::text(other),
    }
}

/// Whether `v` is, or holds, a launch configuration.
pub fn has_config(v: &Val) -> bool {
    match v {
        Val::Config(_) => true,
        Val::Choice(_, vals) => vals.iter().any(has_config),
        _ => false,
    }
}

/// The term of a `const fn`'s result: the call, with each argument's term (or value).
fn const_fn_term(
    result: &Int,
    args: &[Val],
    callee: &IrPath,
    root: Option<&IrPath>,
    name: &str,
    place: &str,
) -> Option<Term> {
    let value = result.value()?;
    let mut terms = Vec::new();
    let mut names = Vec::new();
    let mut in_body = callee.segments.first().is_some_and(|s| s.ident == "Self");
    for a in args {
        let Val::Int(a) = a else { return None };
        terms.push(value::written(a)?);
        if let Some(t) = &a.term {
            names.extend(t.names.iter().cloned());
            in_body |= t.in_body;
        }
    }
    names.push(format!("`{name}(..)` = {value} in {place}"));
    let callee = root.cloned().unwrap_or_else(|| callee.clone());
    Some(Term {
        expr: Expr::Call(callee, terms, At::NONE),
        in_body,
        names,
        at: At::NONE,
        value,
    })
}

/// Whether two patterns match no value in common: enum variants (or constants) written as
/// paths with different last names.
fn disjoint(a: &Pat, b: &Pat) -> bool {
    let last = |p: &Pat| match p {
        Pat::Path(p) => Some(p.last().to_owned()),
        Pat::TupleStruct(p, _) | Pat::Struct(p, _) => Some(p.last().to_owned()),
        _ => None,
    };
    match (a, b) {
        (Pat::Or(cases), other) | (other, Pat::Or(cases)) => {
            cases.iter().all(|c| disjoint(c, other))
        }
        _ => matches!((last(a), last(b)), (Some(x), Some(y)) if x != y),
    }
}

/// The names a pattern binds.
fn pat_names(pat: &Pat, out: &mut Vec<String>) {
    match pat {
        Pat::Bind(n, sub) => {
            out.push(n.clone());
            if let Some(sub) = sub {
                pat_names(sub, out);
            }
        }
        Pat::Tuple(ps) | Pat::TupleStruct(_, ps) | Pat::Or(ps) => {
            ps.iter().for_each(|p| pat_names(p, out))
        }
        Pat::Struct(_, fields) => fields.iter().for_each(|(_, p)| pat_names(p, out)),
        Pat::Opaque(names) => out.extend(names.iter().cloned()),
        _ => {}
    }
}

/// The single-identifier names an expression reads.
fn free_names(e: &Expr, out: &mut Vec<String>, depth: usize) {
    if depth > ir::MAX_DEPTH {
        return;
    }
    let d = depth + 1;
    match e {
        Expr::Path(p, _) => {
            if let Some(n) = p.single()
                && !out.iter().any(|o| o == n)
            {
                out.push(n.to_owned());
            }
        }
        Expr::Neg(x)
        | Expr::Not(x)
        | Expr::Cast(x, _)
        | Expr::Try(x)
        | Expr::Ref(x, _)
        | Expr::Spread(x)
        | Expr::Field(x, _) => free_names(x, out, d),
        Expr::Binary(_, a, b) | Expr::Compare(_, a, b) | Expr::And(a, b) | Expr::Or(a, b) => {
            free_names(a, out, d);
            free_names(b, out, d);
        }
        Expr::Method(r, _, args) | Expr::MethodCall(r, _, args, _) => {
            free_names(r, out, d);
            args.iter().for_each(|a| free_names(a, out, d));
        }
        Expr::Call(_, args, _) | Expr::Tuple(args) => {
            args.iter().for_each(|a| free_names(a, out, d))
        }
        _ => {}
    }
}

/// The operands of `e`'s `&&`s, left to right (`e` itself when it is not one).
fn and_operands<'e>(e: &'e Expr, out: &mut Vec<&'e Expr>, depth: usize) {
    match e {
        Expr::And(a, b) if depth <= ir::MAX_DEPTH => {
            and_operands(a, out, depth + 1);
            and_operands(b, out, depth + 1);
        }
        _ => out.push(e),
    }
}

/// Whether `e` is a literal, a name or arithmetic of them: what evaluates with no effect on
/// the path (no call, no block, no assignment).
fn plain(e: &Expr, depth: usize) -> bool {
    if depth > ir::MAX_DEPTH {
        return false;
    }
    match e {
        Expr::Int(..) | Expr::Bool(_) | Expr::Str(..) | Expr::Path(..) => true,
        Expr::Neg(x) | Expr::Not(x) | Expr::Cast(x, _) | Expr::Ref(x, _) => plain(x, depth + 1),
        Expr::Binary(_, a, b) => plain(a, depth + 1) && plain(b, depth + 1),
        _ => false,
    }
}

/// The variables a block assigns or lends mutably (for a loop the reader does not bound),
/// each with whether only an integer binding of that name may change (a macro given it, the
/// receiver of a method that may take `&mut self`: a launch builder keeps its kernel there).
fn assigned_names_block(b: &Block, out: &mut Vec<(String, bool)>, depth: usize) {
    for s in &b.stmts {
        match s {
            Stmt::Let(l) => {
                if let Some(e) = &l.init {
                    assigned_names(e, out, depth);
                }
            }
            Stmt::Expr(e) => assigned_names(e, out, depth),
            Stmt::Item(_) => {}
        }
    }
    if let Some(t) = &b.tail {
        assigned_names(t, out, depth);
    }
}

fn assigned_names(e: &Expr, out: &mut Vec<(String, bool)>, depth: usize) {
    if depth > ir::MAX_DEPTH {
        return;
    }
    let d = depth + 1;
    match e {
        Expr::Assign(place, _, value) => {
            if let Some(n) = place_root(place) {
                push_changed(out, n, false);
            }
            assigned_names(value, out, d);
        }
        Expr::Ref(inner, true) => {
            if let Some(n) = place_root(inner) {
                push_changed(out, n, false);
            }
        }
        Expr::Havoc(names, _) => {
            for n in names {
                push_changed(out, n.clone(), true);
            }
        }
        Expr::If(i) => {
            assigned_names(&i.condition, out, d);
            assigned_names_block(&i.then, out, d);
            if let Some(o) = &i.otherwise {
                assigned_names(o, out, d);
            }
        }
        Expr::Match(m) => {
            assigned_names(&m.scrutinee, out, d);
            for a in &m.arms {
                assigned_names(&a.body, out, d);
            }
        }
        Expr::Block(b) => assigned_names_block(b, out, d),
        Expr::Loop(l) => assigned_names_block(&l.body, out, d),
        Expr::Neg(x)
        | Expr::Not(x)
        | Expr::Cast(x, _)
        | Expr::Try(x)
        | Expr::Field(x, _)
        | Expr::Ref(x, false)
        | Expr::Spread(x)
        | Expr::Labeled(_, x)
        | Expr::Return(Some(x))
        | Expr::Break(_, Some(x))
        | Expr::Assert(x) => assigned_names(x, out, d),
        Expr::Struct(s) => {
            s.fields
                .iter()
                .for_each(|(_, v, _)| assigned_names(v, out, d));
            if let Some(rest) = &s.rest {
                assigned_names(rest, out, d);
            }
        }
        Expr::Binary(_, a, b) | Expr::Compare(_, a, b) | Expr::And(a, b) | Expr::Or(a, b) => {
            assigned_names(a, out, d);
            assigned_names(b, out, d);
        }
        Expr::MethodCall(r, name, args, _) => {
            if let Expr::Path(p, _) = &**r
                && let Some(n) = p.single()
                && !reads_only(name)
            {
                push_changed(out, n.to_owned(), true);
            }
            assigned_names(r, out, d);
            args.iter().for_each(|a| assigned_names(a, out, d));
        }
        Expr::Method(r, _, args) => {
            assigned_names(r, out, d);
            args.iter().for_each(|a| assigned_names(a, out, d));
        }
        Expr::Call(_, args, _) | Expr::Tuple(args) => {
            args.iter().for_each(|a| assigned_names(a, out, d))
        }
        _ => {}
    }
}

/// Adds `name` to `out` once; an assignment (`ints_only` false) outweighs a change to an
/// integer binding only.
fn push_changed(out: &mut Vec<(String, bool)>, name: String, ints_only: bool) {
    match out.iter_mut().find(|(n, _)| *n == name) {
        Some((_, only)) => *only &= ints_only,
        None => out.push((name, ints_only)),
    }
}

/// An outcome of evaluation on one path (the path and the value it computed), as the path
/// set's rules see it ([`paths::settle`]).
struct Out<T>(Path, T);

/// A value computed on a path, folded with another's when their paths are folded.
trait OutValue: PartialEq + Sized {
    /// `other` folded into `self`: kept where equal, else unknown for `why`.
    fn fold(&mut self, other: Self, why: &Rc<str>);
}

impl OutValue for () {
    fn fold(&mut self, _: (), _: &Rc<str>) {}
}

impl OutValue for Val {
    fn fold(&mut self, other: Val, why: &Rc<str>) {
        if *self != other {
            *self = unknown(why.clone());
        }
    }
}

impl OutValue for Vec<Val> {
    fn fold(&mut self, other: Vec<Val>, why: &Rc<str>) {
        if self.len() != other.len() {
            self.iter_mut().for_each(|v| *v = unknown(why.clone()));
            return;
        }
        for (a, b) in self.iter_mut().zip(other) {
            a.fold(b, why);
        }
    }
}

impl<T: OutValue> PathState for Out<T> {
    fn same_flow(&self, other: &Self) -> bool {
        std::mem::discriminant(&self.0.flow) == std::mem::discriminant(&other.0.flow)
    }

    fn same_state(&self, other: &Self) -> bool {
        self.1 == other.1 && same_state(&self.0, &other.0)
    }

    /// What both conditions decided; the names and helpers either read.
    fn absorb(&mut self, other: Self) {
        let p = other.0;
        merge_decisions(&mut self.0, &p);
        merge_reads(&mut self.0, &p.facts, p.reads, p.helpers);
    }

    fn widens_to(&self, other: &Self) -> bool {
        self.1 == other.1 && same_state_but_ranges(&self.0, &other.0)
    }

    /// Each integer the union of both; what both conditions decided; uncertain where
    /// either is (the union holds the values of both).
    fn widen(&mut self, other: Self) {
        for (x, y) in self.0.frames.iter_mut().zip(&other.0.frames) {
            for (p, q) in x.env.iter_mut().zip(&y.env) {
                if let (Val::Int(a), Val::Int(b)) = (&mut p.val, &q.val)
                    && a.set != b.set
                {
                    a.set = a.set.union(&b.set);
                }
            }
        }
        let uncertain = self
            .0
            .uncertain
            .clone()
            .or_else(|| other.0.uncertain.clone());
        let mut witnessed = self.0.witnessed.clone();
        for w in &other.0.witnessed {
            if !witnessed.iter().any(|(input, _, _)| *input == w.0) {
                witnessed.push(w.clone());
            }
        }
        self.absorb(other);
        self.0.uncertain = uncertain;
        self.0.witnessed = witnessed;
    }

    fn folded(&self) -> bool {
        self.0.overflow.is_some()
    }

    fn mark(&mut self, why: &Overflow) {
        self.0.overflow = Some(why.to_string().into());
    }

    fn join(&mut self, other: Self) {
        let why = self
            .0
            .overflow
            .clone()
            .unwrap_or_else(|| Rc::from("more paths than the reader follows"));
        self.1.fold(other.1, &why);
        join(&mut self.0, other.0, &why);
    }
}

/// `other` folded into `q` (of the same flow): a binding that differs is unknown for `why`,
/// a run-time set allows the members either allows, the facts are those both decided, the
/// names and helpers those either read.
fn join(q: &mut Path, p: Path, why: &Rc<str>) {
    for (a, b) in q.frames.iter_mut().zip(&p.frames) {
        let same_shape =
            a.env.len() == b.env.len() && a.env.iter().zip(&b.env).all(|(x, y)| x.name == y.name);
        for (i, x) in a.env.iter_mut().enumerate() {
            if !same_shape || b.env.get(i).is_none_or(|y| y.val != x.val) {
                x.val = unknown(why.clone());
            }
        }
    }
    q.masks
        .retain_mut(|(c, m)| match p.masks.iter().find(|(d, _)| d == c) {
            Some((_, n)) => {
                *m |= *n;
                true
            }
            // A set the other path did not narrow: every member.
            None => false,
        });
    merge_decisions(q, &p);
    for c in p.stale {
        if !q.stale.contains(&c) {
            q.stale.push(c);
        }
    }
    merge_reads(q, &p.facts, p.reads, p.helpers);
    if let (Flow::Return(v), Flow::Return(w)) = (&mut q.flow, &p.flow)
        && v != w
    {
        **v = unknown(why.clone());
    }
}

/// Another path's `facts`, `reads` and `helpers` merged into `q`'s: the facts both decided,
/// the names and helpers either read.
fn merge_reads(
    q: &mut Path,
    facts: &[Fact],
    reads: impl IntoIterator<Item = Rc<Term>>,
    helpers: impl IntoIterator<Item = HelperRead>,
) {
    q.facts.retain(|f| facts.contains(f));
    for r in reads {
        q.read(r);
    }
    for h in helpers {
        if !q.helpers.contains(&h) {
            q.helpers.push(h);
        }
    }
}

/// A call of cudarc's or the standard library's that the reader knows.
#[derive(Clone, Copy)]
enum LibraryCall {
    /// cudarc's `LaunchConfig::for_num_elems(n)`.
    ForNumElems,
    /// `Ok(x)`, `Some(x)`: the value inside.
    Inner,
    /// `std::process::exit(1)`, `abort()`: the standard library's ends of the process, no
    /// launch follows.
    Exit,
    /// `u64::from(n)`: the standard library's conversions between integer types are
    /// lossless, a cast that keeps the value.
    From(IntTy),
}

/// Whether `p` is the prelude's `None` as written (`None`, `Option::None`,
/// `std::option::Option::None`, `core::option::Option::None`).
fn is_none_path(p: &IrPath) -> bool {
    let idents = p.idents();
    matches!(
        idents.as_slice(),
        ["None"] | ["Option", "None"] | ["std" | "core", "option", "Option", "None"]
    )
}

impl LibraryCall {
    /// The call a path written `idents` given `n_args` arguments is, if the reader knows it.
    fn of(idents: &[&str], n_args: usize) -> Option<Self> {
        if idents.ends_with(&["LaunchConfig", "for_num_elems"]) && n_args == 1 {
            return Some(Self::ForNumElems);
        }
        if matches!(idents, ["Ok" | "Some"]) && n_args == 1 {
            return Some(Self::Inner);
        }
        if matches!(
            idents,
            ["std", "process", "exit" | "abort"] | ["process", "exit" | "abort"]
        ) {
            return Some(Self::Exit);
        }
        if let [ty, "from"] = idents
            && n_args == 1
        {
            return IntTy::from_name(ty).map(Self::From);
        }
        None
    }
}

/// Whether `e` is computed again at no cost and with no effect: a literal, a name, a field
/// of one, and arithmetic, casts and integer methods of those.
fn recomputed_cheaply(e: &Expr, depth: usize) -> bool {
    if depth > 8 {
        return false;
    }
    let d = depth + 1;
    match e {
        Expr::Int(..) | Expr::Path(..) => true,
        Expr::Neg(x) | Expr::Cast(x, _) | Expr::Field(x, _) => recomputed_cheaply(x, d),
        Expr::Binary(_, a, b) => recomputed_cheaply(a, d) && recomputed_cheaply(b, d),
        Expr::Method(r, _, args) => {
            recomputed_cheaply(r, d) && args.iter().all(|a| recomputed_cheaply(a, d))
        }
        _ => false,
    }
}

/// What a call of `def` written `p` evaluates in the caller's frame and binds in the
/// callee's: its const generics (from the turbofish) and its arguments, each with its type;
/// and the const generics' names.
fn call_operands(
    p: &IrPath,
    def: &FnDef,
    args: &[Expr],
) -> (Vec<(Expr, Option<IntTy>)>, Vec<String>) {
    let turbofish = p.segments.last().map_or(&[][..], |s| s.args.as_slice());
    let default = |i: usize| def.generic_defaults.get(i).and_then(Option::as_ref);
    // Every argument written, or the leading ones and, for the rest's constants, their
    // defaults (C++, where types left out are deduced from the arguments).
    let explicit = turbofish.len() <= def.generics.len()
        && (turbofish.len()..def.generics.len())
            .all(|i| def.generics[i].constant().is_none() || default(i).is_some());
    let mut operands: Vec<(Expr, Option<IntTy>)> = Vec::new();
    let mut generic_names = Vec::new();
    for (i, param) in def.generics.iter().enumerate() {
        let Some(name) = param.bound() else { continue };
        let name = &name.to_owned();
        let written = turbofish.get(i).and_then(|a| a.value.as_ref());
        let e = match (explicit, written, default(i)) {
            (true, Some(e), _) => e.clone(),
            // A type written as a name the front end could not tell from a value.
            (true, None, _) if matches!(param, Generic::Type(_)) && i < turbofish.len() => {
                Expr::Type(Box::new(TypeExpr {
                    name: turbofish[i].text.clone(),
                    args: Vec::new(),
                    declarator: String::new(),
                }))
            }
            (_, _, None) if matches!(param, Generic::Type(_)) => Expr::Opaque(format!(
                "the type `{name}` of `{}` is deduced from the arguments, which the reader does not do here",
                def.name
            )),
            (true, None, Some(d)) if i >= turbofish.len() => of_the_callee_alone(d, def)
                .unwrap_or_else(|| {
                    Expr::Opaque(format!(
                        "the default of `{name}` of `{}` names another template parameter",
                        def.name
                    ))
                }),
            _ => Expr::Opaque(format!(
                "the const generic `{name}` of `{}` is inferred",
                def.name
            )),
        };
        generic_names.push(name.clone());
        operands.push((e, None));
    }
    for ((_, ty), a) in def.params.iter().zip(args) {
        operands.push((a.clone(), *ty));
    }
    (operands, generic_names)
}

/// A generic parameter's default argument `d`, when it names none of `def`'s generic
/// parameters (those mean the callee's, which the caller's frame, where operands are
/// evaluated, does not have).
fn of_the_callee_alone(d: &Expr, def: &FnDef) -> Option<Expr> {
    let mut names_a_parameter = false;
    crate::ir::visit_expr(d, &mut |e| {
        if let Expr::Path(p, _) = e
            && def
                .generics
                .iter()
                .filter_map(Generic::bound)
                .any(|g| p.single() == Some(g))
        {
            names_a_parameter = true;
        }
    });
    (!names_a_parameter).then(|| d.clone())
}

/// `value == Enum::Variant` or `value == "text"` (either way round) as the value, its
/// expression, and the pattern it is compared with.
fn as_pattern<'e>(l: &'e Expr, r: &'e Expr, vals: &[Val]) -> Option<(&'e Expr, Val, Pat)> {
    // A variant or a constant (`DType::F16`, `F16`), not a variable (`other`).
    let pattern = |e: &Expr| match e {
        Expr::Path(p, _)
            if p.segments.len() > 1 || p.last().starts_with(|c: char| c.is_ascii_uppercase()) =>
        {
            Some(Pat::Path(p.clone()))
        }
        Expr::Str(..) => Some(Pat::Lit(e.clone())),
        _ => None,
    };
    match (pattern(r), pattern(l)) {
        (Some(pat), _) if !matches!(l, Expr::Str(..)) => Some((l, vals.first()?.clone(), pat)),
        (_, Some(pat)) => Some((r, vals.get(1)?.clone(), pat)),
        _ => None,
    }
}

/// Whether `v` is or holds an integer (a tuple's field): a match on it tests the integer,
/// which a fact on the match does not relate to a comparison of it.
/// A blurred comparison of two or more inputs that a later test may make applicable (a
/// clamp of a product: `nh * hs < 512`).
fn of_a_product(d: &Decision) -> bool {
    d.recheck.is_some() && d.roots.len() >= 2
}

/// A call's arguments with each C++ pack expansion (`rest...` of a parameter pack bound to
/// a tuple) spread into one argument per value (`rest.0`, `rest.1`); `None` where one
/// expands something else.
fn spread_args<'a>(args: &'a [Expr], path: &Path) -> Option<Cow<'a, [Expr]>> {
    if !args.iter().any(|a| matches!(a, Expr::Spread(_))) {
        return Some(Cow::Borrowed(args));
    }
    let mut out = Vec::with_capacity(args.len());
    for a in args {
        let Expr::Spread(pack) = a else {
            out.push(a.clone());
            continue;
        };
        let Expr::Path(p, _) = &**pack else {
            return None;
        };
        let Val::Tuple(items) = &path.lookup(p.single()?)?.val else {
            return None;
        };
        for i in 0..items.len() {
            let i = u32::try_from(i).ok()?;
            out.push(Expr::Field(pack.clone(), Field::Index(i)));
        }
    }
    Some(Cow::Owned(out))
}

/// How many arguments a call gave `def`, from the values of its parameters (a pack's tuple
/// counts each of its values).
fn arity(def: &FnDef, params: &[Val]) -> usize {
    match (def.pack, params.last()) {
        (true, Some(Val::Tuple(rest))) => params.len() - 1 + rest.len(),
        _ => params.len(),
    }
}

/// A call's arguments to `def`, the ones a C++ parameter pack takes (every one from its
/// place on) as one tuple.
fn packed_args<'a>(def: &FnDef, args: &'a [Expr]) -> Cow<'a, [Expr]> {
    match def.params.len().checked_sub(1) {
        Some(fixed) if def.pack && args.len() >= fixed => {
            let mut all = args[..fixed].to_vec();
            all.push(Expr::Tuple(args[fixed..].to_vec()));
            Cow::Owned(all)
        }
        _ => Cow::Borrowed(args),
    }
}

/// C++ converts a known `bool` compared with an integer to an `int`, 0 or 1: `f(x) != 0`
/// of a function returning `bool`, as the C++ front end writes a condition that is not a
/// comparison.
fn bools_as_ints(vals: Vec<Val>) -> Vec<Val> {
    if !vals.iter().any(holds_int) {
        return vals;
    }
    vals.into_iter()
        .map(|v| match v {
            Val::Bool(Some(b)) => Val::int(i128::from(b), Some(IntTy::I32)),
            other => other,
        })
        .collect()
}

fn holds_int(v: &Val) -> bool {
    match v {
        Val::Int(_) | Val::Choice(..) => true,
        Val::Tuple(items) => items.iter().any(holds_int),
        _ => false,
    }
}

/// Another path's decisions merged into `q`'s: the ways both went (both ways of a split
/// joined are no longer a way taken), uncertain only where both are (a launch either makes
/// is made where the other is possible).
fn merge_decisions(q: &mut Path, p: &Path) {
    // A way is its split and side (the rest is the same for both paths that took it).
    let mut taken: Vec<(u32, bool)> = p.decisions.iter().map(|d| (d.split, d.holds)).collect();
    taken.sort_unstable();
    q.decisions
        .retain(|d| taken.binary_search(&(d.split, d.holds)).is_ok());
    if p.uncertain.is_none() {
        q.uncertain = None;
    }
    q.witnessed
        .retain(|(input, _, _)| p.witnessed.iter().any(|(w, _, _)| w == input));
}

/// Whether `a` and `b` hold the same state except for the sets of some run-time integers
/// ([`Int::same_run_time_value`]): what [`paths::settle`] widens past the bound.
fn same_state_but_ranges(a: &Path, b: &Path) -> bool {
    a.flow == b.flow
        && a.flow != Flow::Diverged
        // A path some run takes is not widened with one that may be none's.
        && a.uncertain.is_some() == b.uncertain.is_some()
        && a.opt_ins == b.opt_ins
        && a.masks == b.masks
        && a.stale == b.stale
        && a.frames.len() == b.frames.len()
        && a.frames.iter().zip(&b.frames).all(|(x, y)| {
            x.env.len() == y.env.len()
                && x.env.iter().zip(&y.env).all(|(p, q)| {
                    p.name == q.name
                        && p.pending.is_some() == q.pending.is_some()
                        && match (&p.val, &q.val) {
                            (Val::Int(a), Val::Int(b)) => a == b || a.same_run_time_value(b),
                            (v, w) => v == w,
                        }
                })
        })
}

/// Whether `a` and `b` hold the same state. Paths that differ mostly differ in what they
/// bound last (the arm a `match` took), so frames and bindings are compared from the
/// latest back: the first difference ends the comparison (29,266 comparisons for
/// candle-core's 31 wrappers, most of them between paths that differ).
fn same_state(a: &Path, b: &Path) -> bool {
    // Paths that ended (a panic, `Err(e)?`) make no launch whatever they hold: one stands
    // for all (they would fill the bound of 64 paths otherwise).
    if a.flow == Flow::Diverged && b.flow == Flow::Diverged {
        return true;
    }
    a.flow == b.flow
        && a.masks == b.masks
        && a.stale == b.stale
        && a.opt_ins == b.opt_ins
        && a.frames.len() == b.frames.len()
        && a.frames
            .iter()
            .rev()
            .zip(b.frames.iter().rev())
            .all(|(x, y)| {
                x.env.len() == y.env.len()
                    && x.env.iter().rev().zip(y.env.iter().rev()).all(|(p, q)| {
                        p.name == q.name
                            && p.val == q.val
                            && p.pending.is_some() == q.pending.is_some()
                    })
            })
}
