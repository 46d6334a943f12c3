//! The interpreter: follows each path through the host code of a translation unit, from its
//! roots (functions no other function names: the `extern "C"` launchers Rust calls, and
//! explicit instantiations), into the functions they call (templates instantiated with the
//! caller's arguments), with an abstract value per variable, and records the launches each
//! path makes.
//!
//! Values chosen together stay together: an `if`, `switch` or `#if` whose condition is not
//! known splits the path (each side refined by its condition), and a variable assigned a
//! finite set of values (a doubling loop's exits, `n < 1024 ? 32 : 1024`) splits it into
//! one path per value, so that what is computed from it follows (while
//! [`occupancy_core::read::paths::may_fork`] allows it).
//!
//! The path set follows the rules both readers share ([`occupancy_core::read`]): after each
//! statement [`occupancy_core::read::paths::settle`] merges the paths that differ only in
//! their conditions and, past [`crate::MAX_PATHS`], folds the rest into one path per flow
//! (values united, [`Path::overflow`] set), never dropping one; a launch a folded path
//! makes is not checked. The steps of one root are an [`occupancy_core::read::budget::Budget`]
//! ([`MAX_STEPS`]), and so are the steps of the whole read ([`crate::files::read_budget`]: a
//! number per byte of source, so that the reader's time grows with its input's size and no
//! faster).

use std::collections::{HashMap, HashSet};
use std::rc::Rc;

use occupancy_core::abstract_int::{AbstractInt, Comparison, Truth, loop_exits};
use occupancy_core::arch::Target;
use occupancy_core::policy::LaunchCandidates;
use occupancy_core::read::budget::Budget;
use occupancy_core::read::paths::{self, Overflow, PathState};
use occupancy_core::read::refine;

use crate::MAX_PATHS;
use crate::choices::{block_smem, dims_of, explained, smem_limit};
use crate::device::{self, DeviceParams, declared_attribute};
use crate::files::{PARSED_BYTES_PER_STEP, STEPS_PER_SOURCE_BYTE};
use crate::index::{
    At, Constant, Function, Index, Init, Struct, Taken, chosen, declared_name, has_const,
    pointer_depth, preproc_branches, template_params, vexing_arguments,
};
use crate::launch::{
    Candidates, CudaLaunch, Instantiation, LaunchForm, LaunchPath, Read, ReadNote, TemplateArg,
};
use crate::macros::{Expander, paren_list};
use crate::memo::Memo;
use crate::preproc::Decider;
use crate::reach::Reach;
use crate::syntax::{Code, Field, Kind, clip, field_children};
use crate::value::{Attr, Config, IntType, KernelRef, Ty, TyArg, Val};
use crate::vars::Vars;
use occupancy_read::shared::Shared;

mod sizeof;

/// The deepest call chain followed (template recursion ends here).
const MAX_CALL_DEPTH: usize = 12;
/// The deepest expression or statement nesting evaluated (deeper is unknown).
const MAX_NESTING: usize = 200;
/// The most iterations of a counted loop run one by one ([`Interp::unrolled`]).
const MAX_UNROLL: usize = 64;
/// The most statements and expressions evaluated from one root. The real-crate corpus's
/// costliest root takes 90,137 (candle-kernels' `launch_mmq_gguf_*` with the device's
/// parameters given, `corpus/policy/candle-kernels.toml`), every other one under 16,000
/// (mistralrs-core's `asort_*` 9,612). A read of less than 32 KB of source runs out of
/// its own budget first ([`STEPS_PER_SOURCE_BYTE`]).
const MAX_STEPS: usize = 128_000;

/// How control leaves a statement on a path.
#[derive(Clone, Debug, PartialEq)]
enum Flow {
    Normal,
    Break,
    Continue,
    Return(Option<Val>),
}

/// One path: the variables' values, the choices made, the opt-ins set.
#[derive(Clone, Debug)]
struct Path {
    env: Shared<Vars<Val>>,
    /// The declared type of each variable of the path (its type resolved under the
    /// template arguments, its pointers, whether `const` qualifies the type: `const T* x`
    /// with `T = float` is `(float, 1, true)`),
    /// from which a call deduces template arguments.
    types: Shared<Vars<(Ty, u8, bool)>>,
    conditions: Shared<Vec<String>>,
    /// `cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, n)`
    /// made on this path, in order.
    opt_ins: Shared<Vec<(KernelRef, AbstractInt)>>,
    flow: Flow,
    /// The target this path runs on (an index into [`Interp::targets`]), where the unit
    /// asks the device: its queries are that target's values.
    target: Option<usize>,
    /// The last `if` this path left took its consequence: an `else` arm a macro adds to
    /// the chain after it ([`Interp::expand_statements`]) is not for this path.
    chain_taken: bool,
    /// Values a variable is known not to hold (`else` of `if (t == 0)`), which its
    /// interval cannot say: each with the variable's value when they were learnt (a
    /// variable written since has none).
    excluded: Shared<Vars<(Val, Vec<i128>)>>,
    /// Variables computed from others that a condition may narrow later, in the order
    /// they were declared ([`Interp::narrow_dependents`]).
    defs: Shared<Vec<Def>>,
    /// Set on the fold of the paths past [`MAX_PATHS`] ([`paths::settle`]): why a launch
    /// this path makes is not checked.
    overflow: Option<Rc<str>>,
}

impl PathState for Path {
    fn same_flow(&self, other: &Path) -> bool {
        std::mem::discriminant(&self.flow) == std::mem::discriminant(&other.flow)
    }

    fn same_state(&self, other: &Path) -> bool {
        self.flow == other.flow
            && self.target == other.target
            && self.chain_taken == other.chain_taken
            && self.env.same(&other.env)
            && self.types.same(&other.types)
            && self.opt_ins.same(&other.opt_ins)
            && self.excluded.same(&other.excluded)
            && self.defs.same(&other.defs)
    }

    /// The variables' values and the path's target: the parts of the state that tell
    /// paths apart most often, digested once per path per [`paths::settle`].
    fn state_key(&self) -> u64 {
        let target = self.target.map_or(0, |t| t as u64 + 1);
        self.env.digest(|v, h| v.fingerprint(h))
            ^ target.rotate_left(32)
            ^ u64::from(self.chain_taken)
    }

    /// The conditions both took (in this path's order).
    fn absorb(&mut self, other: Path) {
        if !self.conditions.same(&other.conditions) {
            self.conditions.retain(|c| other.conditions.contains(c));
        }
    }

    fn folded(&self) -> bool {
        self.overflow.is_some()
    }

    fn mark(&mut self, why: &Overflow) {
        self.overflow = Some(why.to_string().into());
    }

    fn join(&mut self, other: Path) {
        *self = join(self, &other);
    }
}

/// A variable's initialiser, remembered while neither the variable nor what it reads is
/// written: `int smem = std::max(2048, 8 * head_size);` before `switch (head_size)`, so
/// that `case 512:` narrows `smem` to 4096 (and a path that took `smem = 2048` ends
/// there) instead of pairing the case with a size it cannot have.
#[derive(Clone, Debug, PartialEq)]
struct Def {
    name: String,
    /// The declared type, that the value is converted to.
    ty: String,
    /// The initialiser, as written.
    text: String,
    /// The variables it reads, each with its value when the variable was last computed.
    inputs: Vec<(String, Val)>,
    /// The variable's value then.
    value: Val,
}

/// The most initialisers a path remembers ([`Def`]).
const MAX_DEFS: usize = 32;

impl Path {
    fn new() -> Path {
        Path {
            env: Shared::default(),
            types: Shared::default(),
            conditions: Shared::default(),
            opt_ins: Shared::default(),
            flow: Flow::Normal,
            target: None,
            chain_taken: false,
            excluded: Shared::default(),
            defs: Shared::default(),
            overflow: None,
        }
    }

    fn live(&self) -> bool {
        self.flow == Flow::Normal
    }

    /// `name` is written: an initialiser that computed it, or that reads it, no longer
    /// says what it holds.
    fn forget(&mut self, name: &str) {
        if self
            .defs
            .iter()
            .any(|d| d.name == name || d.inputs.iter().any(|(n, _)| n == name))
        {
            self.defs
                .retain(|d| d.name != name && d.inputs.iter().all(|(n, _)| n != name));
        }
    }

    /// Whether `name` is known not to hold `value` (and has not been written since).
    fn excludes(&self, name: &str, value: i128) -> bool {
        self.excluded
            .get(name)
            .is_some_and(|(at, values)| self.env.get(name) == Some(at) && values.contains(&value))
    }

    /// Learns that `name` (now `current`) does not hold `value`.
    fn exclude(&mut self, name: &str, current: Val, value: i128) {
        let entry = self
            .excluded
            .get_or_insert_with(name, || (current.clone(), Vec::new()));
        if entry.0 != current {
            *entry = (current, Vec::new());
        }
        if entry.1.len() < 64 && !entry.1.contains(&value) {
            entry.1.push(value);
        }
    }
}

/// The function being interpreted, for messages.
#[derive(Clone)]
struct Frame {
    function: String,
    /// The function is defined inside an unnamed namespace.
    anonymous: bool,
    /// Its parameters' names.
    params: Vec<String>,
    /// The instantiation: the body's node and the template parameters' values.
    instance: Instance,
}

/// A function instantiation being interpreted: its body's node id and its template
/// parameters' values.
type Instance = (usize, Vec<Option<Val>>);

/// An invocation's text as written and its first line, where it is not a node of its own
/// (one of several in an error node).
type Written = (String, u32);

/// The instantiation of `f` a path's environment binds.
fn instance(f: &Function<'_>, path: Option<&Path>) -> Instance {
    let values = f
        .template
        .iter()
        .map(|t| path.and_then(|p| p.env.get(&t.name).cloned()))
        .collect();
    (f.body.node.id(), values)
}

/// The interpreter of one translation unit.
pub(crate) struct Interp<'t, 's> {
    index: &'s Index<'t>,
    sites: &'s mut Vec<CudaLaunch>,
    notes: &'s mut Vec<ReadNote>,
    frames: Vec<Frame>,
    /// Struct contexts (a member's initialiser sees the other members and the template
    /// arguments).
    structs: Vec<(Ty, Vars<Val>)>,
    /// The steps of the root being read ([`MAX_STEPS`]).
    budget: Budget,
    /// The steps of the whole read, every unit and root ([`crate::files::read_budget`]).
    read_budget: &'s mut Budget,
    nesting: usize,
    /// Constants being evaluated (a cycle is unknown).
    evaluating: Vec<String>,
    /// The namespaces names are looked up from while a constant's value is computed (its
    /// own), innermost last; else the interpreted function's.
    constant_scopes: Vec<(Vec<String>, bool)>,
    globals: HashMap<String, Val>,
    expansions: HashMap<String, Rc<Code>>,
    /// Each function-like macro use's expansion (`name`, arguments), made once: a
    /// dispatch macro runs on every path and in every call that reaches it.
    invoked: HashMap<(String, Option<String>), Result<String, String>>,
    /// Each `// occupancy:` comment's text read ([`crate::choices::site_candidates`]): a launch is recorded
    /// once per path, its comment read once.
    comments: HashMap<String, Result<LaunchCandidates, String>>,
    /// The number of paths alive in the statement list being executed.
    batch: usize,
    /// The unit's `.cu` file, relative to the crate.
    unit: String,
    /// How the launch being recorded writes its block and dynamic shared memory, for the
    /// reasons of values known only at run time.
    written: [String; 2],
    /// How many loops with a launch in their body are being unrolled, outside in.
    unrolling_launches: usize,
    /// The targets a device query is answered for: each root of a unit that asks the
    /// device runs once per target ([`Path::target`]).
    targets: Vec<Target>,
    /// The unit's files ask the device (`cudaDeviceGetAttribute`, `cudaGetDeviceProperties`).
    asks_device: bool,
    /// The policy's `[device_params.<function>]`: parameters that hold device attributes.
    device_params: &'s DeviceParams,
    /// Which `#if` branches the build compiles, where known.
    decider: Option<&'s Decider<'s>>,
    /// Which functions of the unit may reach a launch.
    reach: Rc<Reach>,
    /// The values of calls made for their value by functions that cannot launch
    /// ([`crate::memo`]).
    calls: Memo<CallBucket, CallKey, Vec<Option<Val>>>,
    /// The functions whose bodies a path entered (their body nodes' ids).
    entered: HashSet<usize>,
}

/// What a call's answer is stored under: the callee's instantiation (its body's node), the
/// path's target, the number of paths alive (a split inside depends on it) and the depth.
type CallBucket = (usize, Option<usize>, usize, usize);

/// The rest of what a call's answer depends on: its template arguments and argument
/// values, and the interpreter's state its body can read (the call stack, for the depth
/// bound and recursion; the scopes constants are looked up from; the constants being
/// evaluated; the struct contexts).
#[derive(PartialEq)]
struct CallKey {
    targs: Vec<Result<TyArg, String>>,
    values: Vec<Val>,
    stack: Vec<Instance>,
    scopes: Vec<(Vec<String>, bool)>,
    evaluating: Vec<String>,
    structs: Vec<(Ty, Vars<Val>)>,
}

impl<'t, 's> Interp<'t, 's> {
    pub(crate) fn new(
        index: &'s Index<'t>,
        sites: &'s mut Vec<CudaLaunch>,
        notes: &'s mut Vec<ReadNote>,
        device_params: &'s DeviceParams,
        read_budget: &'s mut Budget,
    ) -> Interp<'t, 's> {
        Interp {
            index,
            sites,
            notes,
            frames: Vec::new(),
            structs: Vec::new(),
            budget: Budget::new(MAX_STEPS),
            read_budget,
            nesting: 0,
            evaluating: Vec::new(),
            constant_scopes: Vec::new(),
            globals: HashMap::new(),
            expansions: HashMap::new(),
            invoked: HashMap::new(),
            comments: HashMap::new(),
            batch: 1,
            unrolling_launches: 0,
            unit: String::new(),
            written: Default::default(),
            targets: Vec::new(),
            asks_device: false,
            device_params,
            decider: None,
            reach: Rc::new(Reach::of(index)),
            calls: Memo::new(),
            entered: HashSet::new(),
        }
    }

    /// Decides `#if` conditions in the host code read with `decider`.
    pub(crate) fn deciding(mut self, decider: &'s Decider<'s>) -> Interp<'t, 's> {
        self.decider = Some(decider);
        self
    }

    /// The targets the unit's device queries are answered for, when `asks_device` (the
    /// unit's files name a query): then each root runs once per target.
    pub(crate) fn on_targets(mut self, targets: &[Target], asks_device: bool) -> Interp<'t, 's> {
        self.targets = targets.to_vec();
        self.asks_device = asks_device;
        self
    }

    /// The root's path, or one per target where the unit asks the device.
    fn per_target(&self, path: Path) -> Vec<Path> {
        if !self.asks_device || self.targets.is_empty() {
            return vec![path];
        }
        (0..self.targets.len())
            .map(|i| {
                let mut p = path.clone();
                p.target = Some(i);
                p
            })
            .collect()
    }

    /// The unit's `.cu` file (its first), for the launches' [`LaunchPath::translation_unit`].
    pub(crate) fn in_unit(mut self, file: &str) -> Interp<'t, 's> {
        self.unit = file.to_owned();
        self
    }

    /// Whether a path entered `f`'s body (after [`Interp::run`]).
    pub(crate) fn entered(&self, f: &Function<'_>) -> bool {
        self.entered.contains(&f.body.node.id())
    }

    /// Interprets every root of the unit. `header_templates_read`: the function templates
    /// of headers that no file instantiates, already read as roots by an earlier unit
    /// (file, line, whether that unit asked the device): their reading, with every template
    /// parameter unknown, is the same in each unit that includes the header, so it is done
    /// once.
    pub(crate) fn run(&mut self, header_templates_read: &mut HashSet<(String, u32, bool)>) {
        let index = self.index;
        let instantiated: Vec<&str> = index
            .instantiations
            .iter()
            .filter_map(|i| i.field(Field::Name).map(|n| n.text()))
            .map(|n| n.rsplit("::").next().unwrap_or(n))
            .collect();
        let reach = self.reach.clone();
        for f in &index.all_functions {
            if f.is_kernel || !index.is_root(f) || !reach.may_launch(f) {
                continue;
            }
            // A template the unit instantiates explicitly runs with those arguments only.
            if f.is_template && instantiated.contains(&f.name.as_str()) {
                continue;
            }
            if f.is_template
                && f.body.code.shown != self.unit
                && !header_templates_read.insert((
                    f.body.code.shown.clone(),
                    f.body.line(),
                    self.asks_device,
                ))
            {
                continue;
            }
            self.budget.reset();
            let mut path = Path::new();
            for t in &f.template {
                let why = format!(
                    "template parameter `{}` of `{}`: the files read do not instantiate it",
                    t.name, f.qualified
                );
                let v = match &t.default {
                    Some(d) if t.is_type => Val::Type(self.type_of(*d, &path)),
                    Some(d) => self.eval(*d, &path),
                    None => Val::unknown(why),
                };
                path.env.insert(t.name.clone(), v);
            }
            let paths = self.per_target(path);
            self.enter(f, paths, None);
            self.note_budget(f);
        }
        // Explicit instantiations of host function templates are roots too.
        for inst in &index.instantiations {
            let Some(name) = inst.field(Field::Name) else {
                continue;
            };
            let name = name.text().rsplit("::").next().unwrap_or("").to_owned();
            let Some(fs) = index.functions.get(&name) else {
                continue;
            };
            let Some(f) = fs.iter().find(|f| !f.is_kernel && f.is_template) else {
                continue;
            };
            if !reach.may_launch(f) {
                continue;
            }
            self.budget.reset();
            let path = Path::new();
            let args = inst
                .field(Field::Arguments)
                .map(|a| self.template_args(a, &path))
                .unwrap_or_default();
            let mut path = Path::new();
            self.bind_template(f, &args, &mut path);
            let paths = self.per_target(path);
            self.enter(f, paths, None);
            self.note_budget(f);
        }
    }

    /// After root `f`: a note where a budget ran out in it, so that what was not read is
    /// said.
    fn note_budget(&mut self, f: &Function<'t>) {
        let message = if self.budget.spent() {
            format!(
                "`{}`: more than {MAX_STEPS} steps of interpretation: the rest is not read",
                f.qualified
            )
        } else if self.read_budget.spent() {
            format!(
                "`{}`: the reader's budget for these files ({} steps, {STEPS_PER_SOURCE_BYTE} \
                 per byte of source, the parse of file-scope macro expansions included) is \
                 spent: the rest is not read",
                f.qualified,
                self.read_budget.limit()
            )
        } else {
            return;
        };
        self.notes.push(ReadNote {
            file: f.body.code.shown.clone(),
            line: Some(f.body.line()),
            message,
        });
    }

    /// Runs `f`'s body on `paths` whose environment holds its template arguments; binds
    /// its parameters to `args` (unknown when `None`). Returns the paths that leave it.
    fn enter(
        &mut self,
        f: &Function<'t>,
        mut paths: Vec<Path>,
        args: Option<Vec<Val>>,
    ) -> Vec<Path> {
        if !paths.is_empty() {
            self.entered.insert(f.body.node.id());
        }
        for path in &mut paths {
            for (i, p) in f.params.iter().enumerate() {
                if p.name.is_empty() {
                    continue;
                }
                // A pack takes every argument from its place on.
                let given = match &args {
                    Some(a) if p.pack => Some(Val::Pack(a.get(i..).unwrap_or_default().to_vec())),
                    Some(a) => a.get(i).cloned(),
                    None => None,
                };
                let v = match given {
                    Some(v) => v,
                    None => match p.default {
                        Some(d) if args.is_some() => self.eval(d, path),
                        _ => self.param_value(&p.name, &p.ty, &f.qualified, path.target),
                    },
                };
                let v = match v {
                    Val::Pack(vs) => {
                        Val::Pack(vs.into_iter().map(|v| self.declared(&p.ty, v)).collect())
                    }
                    v => self.declared(&p.ty, v),
                };
                path.env.insert(p.name.clone(), v);
                match p.ty_node {
                    Some(t) if !p.pack && p.ty != "auto" && names_known_types(&p.ty, path) => {
                        let ty = self.type_of(t, path);
                        path.types
                            .insert(p.name.clone(), (ty, p.pointers, p.is_const));
                    }
                    _ => {
                        path.types.remove(&p.name);
                    }
                }
            }
        }
        self.frames.push(Frame {
            function: f.qualified.clone(),
            anonymous: f.anonymous,
            params: f.params.iter().map(|p| p.name.clone()).collect(),
            instance: instance(f, paths.first()),
        });
        let out = self.exec_block(f.body, paths);
        self.frames.pop();
        out
    }

    /// A parameter's value when the caller is not read (Rust, through FFI): the target's
    /// value of the device attribute the policy declares it holds
    /// (`[device_params.<function>]`); else its type's range for an integer, unknown
    /// otherwise.
    fn param_value(&self, name: &str, ty: &str, function: &str, target: Option<usize>) -> Val {
        if let Some(attribute) = self.declared_attribute(function, name) {
            let int = IntType::from_name(ty).unwrap_or(IntType::I64);
            let why = |why: String| {
                Val::unknown(format!(
                    "`{name}` of `{function}` holds the device's `{attribute}` (occupancy.toml, `[device_params]`): {why}"
                ))
            };
            return match target.and_then(|t| self.targets.get(t)) {
                Some(t) => match device::declared(attribute, t) {
                    Ok(v) => Val::Int(AbstractInt::known(v), int),
                    Err(e) => why(e),
                },
                None => why("known per target, and none is read".to_owned()),
            };
        }
        match IntType::from_name(ty) {
            Some(t) => {
                let (lo, hi) = t.range();
                Val::Int(AbstractInt::range(Some(lo), Some(hi)), t)
            }
            None => Val::unknown(format!(
                "`{name}` is a parameter of `{function}`, a run-time value"
            )),
        }
    }

    /// The device attribute the policy declares parameter `param` of `function` holds.
    fn declared_attribute(&self, function: &str, param: &str) -> Option<&str> {
        declared_attribute(self.device_params, function, param)
    }

    /// `v` converted to the declared type `ty` (an integer type converts; `dim3` from an
    /// integer; others as they are).
    fn declared(&self, ty: &str, v: Val) -> Val {
        let ty = ty.trim();
        if let Some(t) = IntType::from_name(ty) {
            return match v {
                Val::Int(x, _) => match t.convert(&x) {
                    Some(x) => Val::Int(x, t),
                    None => Val::unknown(format!("overflows `{ty}`")),
                },
                other => other,
            };
        }
        if ty == "dim3" || ty == "const dim3" {
            return match v.to_dim3() {
                Ok(d) => Val::Dim3(d),
                Err(_) => v,
            };
        }
        v
    }

    fn frame_name(&self) -> String {
        self.frames
            .last()
            .map_or_else(String::new, |f| f.function.clone())
    }

    /// Takes one step of the root's budget and of the read's: `false` once either is
    /// spent.
    fn step(&mut self) -> bool {
        self.budget.step() && self.read_budget.step()
    }

    /// Whether the root's budget or the read's is spent: what is evaluated now is unknown.
    fn spent(&self) -> bool {
        self.budget.spent() || self.read_budget.spent()
    }

    // ----------------------------------------------------------------------------------
    // Statements.

    fn exec_block<'a>(&mut self, block: At<'a>, mut paths: Vec<Path>) -> Vec<Path>
    where
        't: 'a,
    {
        let statements = match block.kind() {
            Some(Kind::CompoundStatement | Kind::TranslationUnit | Kind::DeclarationList) => {
                block.children()
            }
            _ => vec![block],
        };
        for s in statements {
            if !paths.iter().any(Path::live) {
                break;
            }
            paths = self.exec(s, paths);
        }
        paths
    }

    fn exec<'a>(&mut self, s: At<'a>, paths: Vec<Path>) -> Vec<Path>
    where
        't: 'a,
    {
        if !self.step() || self.nesting > MAX_NESTING {
            return paths;
        }
        self.nesting += 1;
        let (live, mut done): (Vec<Path>, Vec<Path>) = paths.into_iter().partition(Path::live);
        let saved = self.batch;
        self.batch = live.len().max(1) + done.len();
        let mut out = match s.kind() {
            Some(Kind::CompoundStatement) => {
                let names = block_names(s);
                self.scoped(&names, live, |this, ps| this.exec_block(s, ps))
            }
            Some(Kind::ExpressionStatement) => {
                let mut out = Vec::new();
                for p in live {
                    match s.children().first() {
                        Some(e) => out.extend(self.exec_expr(*e, p)),
                        None => out.push(p),
                    }
                }
                out
            }
            Some(Kind::Declaration) => {
                let mut out = Vec::new();
                for p in live {
                    out.extend(self.declare(s, p));
                }
                out
            }
            Some(Kind::AliasDeclaration | Kind::TypeDefinition) => self.exec_alias(s, live),
            Some(Kind::IfStatement) => self.exec_if(s, live),
            Some(Kind::SwitchStatement) => self.exec_switch(s, live),
            Some(
                Kind::WhileStatement | Kind::ForStatement | Kind::DoStatement | Kind::ForRangeLoop,
            ) => {
                let names: Vec<(String, bool)> = s
                    .field(Field::Initializer)
                    .filter(|i| i.kind() == Some(Kind::Declaration))
                    .map(|d| {
                        declaration_names(d)
                            .into_iter()
                            .map(|n| (n, false))
                            .collect()
                    })
                    .unwrap_or_default();
                self.scoped(&names, live, |this, ps| this.exec_loop(s, ps))
            }
            Some(Kind::ReturnStatement) => self.exec_return(s, live),
            Some(Kind::BreakStatement) => live
                .into_iter()
                .map(|mut p| {
                    p.flow = Flow::Break;
                    p
                })
                .collect(),
            Some(Kind::ContinueStatement) => live
                .into_iter()
                .map(|mut p| {
                    p.flow = Flow::Continue;
                    p
                })
                .collect(),
            Some(Kind::PreprocIf | Kind::PreprocIfdef) => self.exec_preproc_if(s, live),
            None if s.node.is_error() => self.exec_statement_macros(s, live),
            // The `else` closing a chain of macro cases, as the files were prepared
            // ([`crate::prepare::CHAIN_ELSE_LABEL`]): for the paths no case took.
            Some(Kind::LabeledStatement)
                if s.children().first().map(|l| l.text())
                    == Some(crate::prepare::CHAIN_ELSE_LABEL) =>
            {
                let (mut out, rest): (Vec<Path>, Vec<Path>) =
                    live.into_iter().partition(|p| p.chain_taken);
                match s.children().last() {
                    Some(inner) => out.extend(self.exec(*inner, rest)),
                    None => out.extend(rest),
                }
                out
            }
            Some(Kind::LabeledStatement | Kind::AttributedStatement) => match s.children().last() {
                Some(inner) => self.exec(*inner, live),
                None => live,
            },
            Some(Kind::TryStatement) => match s.field(Field::Body) {
                Some(body) => self.exec_block(body, live),
                None => live,
            },
            _ => live,
        };
        self.batch = saved;
        self.nesting -= 1;
        out.append(&mut done);
        self.compact(out)
    }

    /// `using T = float;` / `typedef float T;`: the name stands for the type on each path.
    fn exec_alias<'a>(&mut self, s: At<'a>, live: Vec<Path>) -> Vec<Path>
    where
        't: 'a,
    {
        let mut out = Vec::new();
        for mut p in live {
            if let (Some(name), Some(ty)) = (
                s.field(Field::Name)
                    .map(|n| n.text().to_owned())
                    .or_else(|| {
                        s.field(Field::Declarator)
                            .map(|d| d.text().trim().to_owned())
                    }),
                s.field(Field::Type),
            ) {
                let t = self.type_of(ty, &p);
                p.env.insert(name, Val::Type(t));
            }
            out.push(p);
        }
        out
    }

    /// `return e;`: `e`'s effects, then the path returns its value.
    fn exec_return<'a>(&mut self, s: At<'a>, live: Vec<Path>) -> Vec<Path>
    where
        't: 'a,
    {
        let mut out = Vec::new();
        for p in live {
            let expr = s.children().first().copied();
            let ps = match expr {
                Some(e) => self.effects(e, p, 0),
                None => vec![p],
            };
            for mut q in ps {
                let v = expr.map(|e| self.eval(e, &q));
                q.flow = Flow::Return(v);
                out.push(q);
            }
        }
        out
    }

    /// `CALL(uint16_t, float);`, `CALL(float, float, 256); CALL(..);`: statement macros
    /// whose arguments are types, which the grammar reads as broken declarations (an error
    /// node `s`): each macro's expansion is run, in order.
    fn exec_statement_macros<'a>(&mut self, s: At<'a>, live: Vec<Path>) -> Vec<Path>
    where
        't: 'a,
    {
        let is_macro = |name: &str| {
            self.index
                .macros
                .get(name)
                .is_some_and(|m| m.iter().any(|m| m.params.is_some()))
        };
        let text = s.text();
        let invoked: Vec<(String, String, Written)> = crate::macros::invocations(text, is_macro)
            .unwrap_or_default()
            .into_iter()
            .map(|i| {
                // Each at its own line (the error can span several).
                let below = text[..i.range.start].matches('\n').count();
                let line = s
                    .line()
                    .saturating_add(u32::try_from(below).unwrap_or(u32::MAX));
                let written = &text[i.range];
                (
                    i.name.to_owned(),
                    i.args.to_owned(),
                    (written.to_owned(), line),
                )
            })
            .collect();
        let mut live = live;
        for (name, args, written) in invoked {
            let mut out = Vec::new();
            for p in live {
                out.extend(self.expand_written(s, &name, Some(args.clone()), p, Some(&written)));
            }
            live = out;
        }
        live
    }

    /// Runs `run` on each path and then ends the scope that declares `names`: a variable
    /// (or alias) declared in a block or a `for`'s initialiser is gone after it, and the
    /// one it shadowed is back (`int block = 256; { int block = 128; }` launches 256).
    /// A name flagged `true` was used in the block before its declaration there (the
    /// outer variable, perhaps assigned): unknown after the block.
    fn scoped(
        &mut self,
        names: &[(String, bool)],
        paths: Vec<Path>,
        mut run: impl FnMut(&mut Self, Vec<Path>) -> Vec<Path>,
    ) -> Vec<Path> {
        if names.is_empty() {
            return run(self, paths);
        }
        let mut out = Vec::new();
        for p in paths {
            let saved: Vec<_> = names
                .iter()
                .map(|(n, _)| (p.env.get(n).cloned(), p.types.get(n).cloned()))
                .collect();
            for mut q in run(self, vec![p]) {
                for ((name, used_before), (v, t)) in names.iter().zip(&saved) {
                    q.forget(name);
                    match (used_before, v) {
                        (true, Some(_)) => {
                            q.env.insert(
                                name.clone(),
                                Val::unknown(format!(
                                    "`{name}` is used in a block that then declares its own `{name}`"
                                )),
                            );
                        }
                        (_, Some(v)) => {
                            q.env.insert(name.clone(), v.clone());
                        }
                        (_, None) => {
                            q.env.remove(name);
                        }
                    }
                    match t {
                        Some(t) if !used_before => {
                            q.types.insert(name.clone(), t.clone());
                        }
                        _ => {
                            q.types.remove(name);
                        }
                    }
                }
                out.push(q);
            }
        }
        out
    }

    /// The paths bounded by the readers' one rule ([`paths::settle`]): the same state
    /// merged, past [`MAX_PATHS`] the rest folded (a launch of the fold is not checked).
    fn compact(&mut self, paths: Vec<Path>) -> Vec<Path> {
        if paths.len() < 2 {
            return paths;
        }
        paths::settle(paths, MAX_PATHS).paths
    }

    /// A declaration: each declarator's variable gets its initial value.
    fn declare<'a>(&mut self, s: At<'a>, p: Path) -> Vec<Path>
    where
        't: 'a,
    {
        let ty_node = s.field(Field::Type);
        let ty = ty_node.map_or("", |t| t.text()).to_owned();
        let mut paths = vec![p];
        let declarators: Vec<At<'a>> = field_children(s.node, Field::Declarator)
            .into_iter()
            .map(|n| s.with(n))
            .collect();
        for d in declarators {
            // `int t = m > pad ? pad : m;` on a finite set `pad`: one path per member, so
            // that `t` stays paired with `pad` where a later condition narrows `pad`
            // (`for (k = 2; k <= pad; ..)` never launches with `pad = 1`).
            if d.kind() == Some(Kind::InitDeclarator)
                && let Some(cond) = d
                    .field(Field::Value)
                    .filter(|v| v.kind() == Some(Kind::ConditionalExpression))
                    .and_then(|v| v.field(Field::Condition))
            {
                let mut names: Vec<String> =
                    crate::index::identifiers(cond.text()).into_iter().collect();
                names.sort();
                for name in names {
                    paths = paths
                        .into_iter()
                        .flat_map(|q| self.split(q, &name))
                        .collect();
                }
            }
            let mut next = Vec::new();
            for p in paths {
                let (name_node, value) = if d.kind() == Some(Kind::InitDeclarator) {
                    (d.field(Field::Declarator), d.field(Field::Value))
                } else {
                    (Some(d), None)
                };
                let Some(name_node) = name_node else {
                    next.push(p);
                    continue;
                };
                let Some(name) = declared_name(name_node) else {
                    next.push(p);
                    continue;
                };
                let is_array = name_node.kind() == Some(Kind::ArrayDeclarator);
                let mut p = match value {
                    Some(value) => {
                        let mut ps = self.effects(value, p, 0);
                        if ps.len() != 1 {
                            next.extend(ps);
                            continue;
                        }
                        ps.remove(0)
                    }
                    None => p,
                };
                let vexing = (name_node.kind() == Some(Kind::FunctionDeclarator))
                    .then(|| vexing_arguments(name_node));
                let v = match (value, vexing) {
                    (Some(value), _) => self.initial(&ty, value, &p),
                    (None, Some(Some(args))) => {
                        let args: Vec<Val> = args
                            .iter()
                            .map(|(a, factor)| {
                                let a_val = self.vexing_argument(*a, &p);
                                match factor {
                                    Some(f) => binary("*", &a_val, &self.name(f.text(), *f, &p)),
                                    None => a_val,
                                }
                            })
                            .collect();
                        let texts: Vec<&str> = args_text(name_node);
                        self.constructed(&ty, args, &texts)
                    }
                    (None, Some(None)) => {
                        Val::unknown(format!("`{name}` is declared as a function here"))
                    }
                    (None, None) if is_array && ty.contains("cudaLaunchAttribute") => {
                        let n = name_node
                            .field(Field::Size)
                            .and_then(|n| {
                                self.eval(n, &p).as_int().and_then(|(v, _)| v.known_value())
                            })
                            .unwrap_or(1)
                            .clamp(0, 64);
                        Val::Attrs(vec![Attr::default(); n as usize])
                    }
                    (None, None) if ty == "dim3" => Val::Dim3([
                        AbstractInt::known(1),
                        AbstractInt::known(1),
                        AbstractInt::known(1),
                    ]),
                    (None, None) if ty.contains("cudaLaunchConfig_t") => {
                        Val::Config(Config::default())
                    }
                    (None, None) => {
                        Val::unknown(format!("`{name}` is not initialised where declared"))
                    }
                };
                let v = if ty == "auto" || ty.contains("auto") {
                    v
                } else {
                    self.declared(&ty, v)
                };
                match ty_node {
                    Some(t)
                        if !ty.contains("auto")
                            && name_node.kind() != Some(Kind::FunctionDeclarator)
                            && names_known_types(&ty, &p) =>
                    {
                        let declared = self.type_of(t, &p);
                        p.types.insert(
                            name.clone(),
                            (declared, pointer_depth(Some(name_node)), has_const(s)),
                        );
                    }
                    _ => {
                        p.types.remove(&name);
                    }
                }
                p.forget(&name);
                p.env.insert(name.clone(), v);
                let mut made = match value {
                    Some(value) => match self.clamp_split(&name, value, p) {
                        Ok(both) => both,
                        Err(p) => self.split(p, &name),
                    },
                    None => self.split(p, &name),
                };
                if let Some(value) = value {
                    for q in &mut made {
                        self.remember(q, &name, &ty, value);
                    }
                }
                next.extend(made);
            }
            paths = next;
        }
        paths
    }

    /// Remembers how the variable `name` (of type `ty`) was computed from `value`, when a
    /// later condition on what it reads may narrow it ([`Def`]): an integer computed
    /// without writing anything from variables of which one at least has several values
    /// (itself one value where a split chose it: `std::max(2048, n)` on the path of 2048). The variables a macro of the initialiser reads count as read.
    fn remember(&mut self, p: &mut Path, name: &str, ty: &str, value: At<'_>) {
        if p.defs.len() >= MAX_DEFS
            || matches!(
                value.kind(),
                Some(Kind::ArgumentList | Kind::InitializerList)
            )
            || value.text().len() > 400
        {
            return;
        }
        let current = match p.env.get(name) {
            Some(v @ Val::Int(..)) => v.clone(),
            _ => return,
        };
        let mut written = Vec::new();
        assigned_names(value, &mut written, 0);
        if !written.is_empty() || !self.only_arithmetic(value, 0) {
            return;
        }
        let mut read = crate::index::identifiers(value.text());
        let mut pending: Vec<String> = read.iter().cloned().collect();
        let mut expanded = 0;
        while let Some(word) = pending.pop() {
            let Some(macros) = self.index.macros.get(&word) else {
                continue;
            };
            expanded += 1;
            if expanded > 16 {
                return;
            }
            for m in macros {
                for w in crate::index::identifiers(&m.body) {
                    if read.insert(w.clone()) {
                        pending.push(w);
                    }
                }
            }
        }
        let mut inputs: Vec<(String, Val)> = read
            .into_iter()
            .filter(|w| w != name)
            .filter_map(|w| p.env.get(&w).cloned().map(|v| (w, v)))
            .collect();
        let several = |v: &Val| matches!(v, Val::Int(x, _) if x.known_value().is_none());
        if !inputs.iter().any(|(_, v)| several(v)) {
            return;
        }
        inputs.sort_by(|a, b| a.0.cmp(&b.0));
        let def = Def {
            name: name.to_owned(),
            ty: ty.to_owned(),
            text: value.text().to_owned(),
            inputs,
            value: current,
        };
        p.defs.push(def);
    }

    /// Whether `e` calls nothing but `min` / `max` and macros: computed again cheaply (a
    /// call of the unit's functions is not, under a loop's conditions).
    fn only_arithmetic(&self, e: At<'_>, depth: usize) -> bool {
        if depth > 32 {
            return false;
        }
        if matches!(e.kind(), Some(Kind::LambdaExpression | Kind::NewExpression)) {
            return false;
        }
        if e.kind() == Some(Kind::CallExpression) {
            let name = e.field(Field::Function).map_or("", |f| f.text());
            let simple = name.rsplit("::").next().unwrap_or(name).trim();
            let pure = matches!(simple, "min" | "max" | "imin" | "imax" | "umin" | "umax")
                || self
                    .index
                    .macros
                    .get(simple)
                    .is_some_and(|m| m.iter().all(|m| m.params.is_some()));
            if !pure {
                return false;
            }
        }
        e.children()
            .into_iter()
            .all(|c| self.only_arithmetic(c, depth + 1))
    }

    /// After a condition narrowed the variables of `before` (each with its value before)
    /// on `p`, what was computed from them: each remembered initialiser ([`Def`]) that
    /// reads one of them, neither it nor its inputs written since, is evaluated again and
    /// its variable narrowed to the values both evaluations allow, in the order they were
    /// declared (what is computed from it follows). `None` when a variable has no value
    /// left: the path cannot be (`case 512:` on the path where `smem` took 2048).
    fn narrow_dependents(
        &mut self,
        mut p: Path,
        before: &[(String, Val)],
        at: At<'_>,
    ) -> Option<Path> {
        if before.is_empty()
            || !p.defs.iter().any(|d| {
                d.inputs
                    .iter()
                    .any(|(n, _)| before.iter().any(|(b, _)| b == n))
            })
        {
            return Some(p);
        }
        let mut before: Vec<(String, Val)> = before.to_vec();
        for i in 0..p.defs.len() {
            let d = p.defs[i].clone();
            let prior = |n: &str, before: &[(String, Val)], p: &Path| {
                before
                    .iter()
                    .find(|(b, _)| b == n)
                    .map(|(_, v)| v.clone())
                    .or_else(|| p.env.get(n).cloned())
            };
            if !d
                .inputs
                .iter()
                .any(|(n, _)| before.iter().any(|(b, _)| b == n))
            {
                continue;
            }
            let unwritten = prior(&d.name, &before, &p).as_ref() == Some(&d.value)
                && d.inputs
                    .iter()
                    .all(|(n, v)| prior(n, &before, &p).as_ref() == Some(v));
            if !unwritten {
                continue;
            }
            let again = self.eval_text(&d.text, at, &p);
            let again = if d.ty.contains("auto") {
                again
            } else {
                self.declared(&d.ty, again)
            };
            let (Val::Int(old, t), Some((new, _))) = (&d.value, again.as_int()) else {
                continue;
            };
            let narrowed = old.refine(Comparison::Eq, new)?;
            let inputs = d
                .inputs
                .iter()
                .map(|(n, v)| {
                    (
                        n.clone(),
                        p.env.get(n).cloned().unwrap_or_else(|| v.clone()),
                    )
                })
                .collect();
            let value = Val::Int(narrowed, *t);
            if value != d.value {
                before.push((d.name.clone(), d.value.clone()));
                p.env.insert(d.name.clone(), value.clone());
            }
            p.defs[i] = Def { inputs, value, ..d };
        }
        Some(p)
    }

    /// `x = min(v, K)` (or `max`, or `dim3 b(min(v, K))`) with `K` a constant and `v` a
    /// run-time value on both sides of it: two paths, as the `if` that clamps would make,
    /// one where the clamp holds (`K`, `v >= K`) and one with `v` below it (`v < K`), so
    /// that the constant's launch is checked and the other stays run time. `Err` gives the
    /// path back when the initialiser is no such clamp or the paths are at their bound.
    #[expect(
        clippy::result_large_err,
        reason = "`Err` hands the caller's path back unchanged, it is not an error value"
    )]
    fn clamp_split<'a>(&mut self, name: &str, value: At<'a>, p: Path) -> Result<Vec<Path>, Path>
    where
        't: 'a,
    {
        let mut call = value;
        if matches!(
            call.kind(),
            Some(Kind::ArgumentList | Kind::InitializerList)
        ) {
            match call.children().first() {
                Some(first) => call = *first,
                None => return Err(p),
            }
        }
        while call.kind() == Some(Kind::ParenthesizedExpression) {
            match call.children().first() {
                Some(inner) => call = *inner,
                None => return Err(p),
            }
        }
        if call.kind() != Some(Kind::CallExpression) || !paths::may_fork(self.batch, 2, MAX_PATHS) {
            return Err(p);
        }
        let simple = call
            .field(Field::Function)
            .map_or("", |f| f.text())
            .rsplit("::")
            .next()
            .unwrap_or("")
            .trim()
            .to_owned();
        let is_min = match simple.as_str() {
            "min" | "imin" | "umin" => true,
            "max" | "imax" | "umax" => false,
            _ => return Err(p),
        };
        let args: Vec<At<'a>> = call
            .field(Field::Arguments)
            .map(|a| a.children())
            .unwrap_or_default();
        if args.len() != 2 {
            return Err(p);
        }
        let (a, b) = (self.eval(args[0], &p), self.eval(args[1], &p));
        let (Some((x, t)), Some((y, u))) = (a.as_int(), b.as_int()) else {
            return Err(p);
        };
        // A finite set clamps exactly already (`min(next_pow2(n), 1024)`): only an interval
        // is split.
        let (run, bound, run_at) = match (x.known_value(), y.known_value()) {
            (None, Some(k)) if x.members().is_none() => (x.clone(), k, args[0]),
            (Some(k), None) if y.members().is_none() => (y.clone(), k, args[1]),
            _ => return Err(p),
        };
        let ty = IntType::common(t, u);
        let k = AbstractInt::known(bound);
        let (held, free) = if is_min {
            (Comparison::Ge, Comparison::Lt)
        } else {
            (Comparison::Le, Comparison::Gt)
        };
        let (Some(_), Some(rest)) = (run.refine(held, &k), run.refine(free, &k)) else {
            return Err(p);
        };
        if run.compare(held, &k) != Truth::Sometimes {
            return Err(p);
        }
        let text = clip(run_at.text(), 40);
        let sign = |c: Comparison| match c {
            Comparison::Ge => ">=",
            Comparison::Lt => "<",
            Comparison::Le => "<=",
            _ => ">",
        };
        let mut out = Vec::new();
        for (v, cmp) in [(k.clone(), held), (rest, free)] {
            let mut q = p.clone();
            let new = match q.env.get(name) {
                Some(Val::Dim3(d)) => {
                    let mut d = d.clone();
                    d[0] = v;
                    Val::Dim3(d)
                }
                Some(Val::Int(..)) => Val::Int(v, ty),
                _ => return Err(p),
            };
            q.env.insert(name.to_owned(), new);
            push_condition(&mut q, format!("{text} {} {bound}", sign(cmp)));
            out.push(q);
        }
        self.batch += 1;
        Ok(out)
    }

    /// The value a declaration's initialiser gives, for its type.
    fn initial<'a>(&mut self, ty: &str, value: At<'a>, p: &Path) -> Val
    where
        't: 'a,
    {
        let items = || value.children();
        match value.kind() {
            Some(Kind::ArgumentList | Kind::InitializerList) if ty == "dim3" => {
                let items = items();
                let args: Vec<Val> = items.iter().take(3).map(|i| self.eval(*i, p)).collect();
                let texts: Vec<&str> = items.iter().map(|i| i.text()).collect();
                self.constructed(ty, args, &texts)
            }
            Some(Kind::InitializerList) if ty.contains("cudaLaunchConfig_t") => {
                let mut config = Config::default();
                for (i, item) in items().into_iter().enumerate() {
                    if item.kind() == Some(Kind::InitializerPair) {
                        let field = item
                            .field(Field::Designator)
                            .map(|d| d.text().trim_start_matches('.').to_owned())
                            .unwrap_or_default();
                        if let Some(v) = item.field(Field::Value) {
                            let v = self.eval(v, p);
                            set_config_field(&mut config, &field, v, None);
                        }
                    } else {
                        let field = ["gridDim", "blockDim", "dynamicSmemBytes"].get(i);
                        if let Some(field) = field {
                            let v = self.eval(item, p);
                            set_config_field(&mut config, field, v, None);
                        }
                    }
                }
                Val::Config(config)
            }
            Some(Kind::InitializerList) if ty.contains("cudaLaunchAttribute") => {
                Val::Attrs(vec![Attr::default(); items().len().min(64)])
            }
            Some(Kind::InitializerList) if let Some(names) = self.data_members(ty) => {
                Val::Fields(self.aggregate(&names, &items(), p))
            }
            Some(Kind::ArgumentList | Kind::InitializerList) => match items().first() {
                Some(first) if items().len() == 1 => self.eval(*first, p),
                _ => Val::unknown("an aggregate the reader does not follow"),
            },
            _ => self.eval(value, p),
        }
    }

    /// The data members of the plain struct `ty` names, in declaration order, each with
    /// whether it has a default member initialiser: a struct of the files read with one
    /// definition, no base class, and members that no `#if` chooses among; `None` for any
    /// other type.
    fn data_members(&self, ty: &str) -> Option<Vec<(String, bool)>> {
        let name = short(ty.trim_start_matches("struct ").trim());
        let [spec] = self.index.records.get(name)?.as_slice() else {
            return None;
        };
        if spec
            .children()
            .iter()
            .any(|c| c.kind() == Some(Kind::BaseClassClause))
        {
            return None;
        }
        let mut names = Vec::new();
        for m in spec.field(Field::Body)?.children() {
            match m.kind() {
                Some(Kind::FieldDeclaration) => {
                    if m.text().split_whitespace().any(|w| w == "static") {
                        continue;
                    }
                    let declarators = field_children(m.node, Field::Declarator);
                    if declarators.is_empty() {
                        // An anonymous struct or union member: its members are not named here.
                        return None;
                    }
                    let defaulted = m.field(Field::DefaultValue).is_some();
                    for d in declarators {
                        let d = m.with(d);
                        if d.kind() != Some(Kind::FunctionDeclarator) {
                            names.push((declared_name(d)?, defaulted));
                        }
                    }
                }
                Some(
                    Kind::PreprocIf | Kind::PreprocIfdef | Kind::PreprocElse | Kind::PreprocElif,
                ) => return None,
                _ => {}
            }
        }
        (names.len() <= 64).then_some(names)
    }

    /// A brace initialiser's values for the members `members` ([`Self::data_members`]):
    /// positional items in order, designated ones (`.n = 5`) by name; a member it does not
    /// give is value-initialised, as C++ does (0), unless it has a default member
    /// initialiser (not read: unknown).
    fn aggregate<'a>(
        &mut self,
        members: &[(String, bool)],
        items: &[At<'a>],
        p: &Path,
    ) -> Vec<(String, Val)>
    where
        't: 'a,
    {
        let mut given: Vec<(String, Val)> = Vec::new();
        for (i, item) in items.iter().enumerate() {
            let (name, value) = if item.kind() == Some(Kind::InitializerPair) {
                let name = item
                    .field(Field::Designator)
                    .map(|d| d.text().trim_start_matches('.').to_owned());
                (name, item.field(Field::Value))
            } else {
                (members.get(i).map(|(n, _)| n.clone()), Some(*item))
            };
            if let (Some(name), Some(value)) = (name, value) {
                let v = self.eval(value, p);
                given.push((name, v));
            }
        }
        members
            .iter()
            .map(|(name, defaulted)| {
                let v = match given.iter().find(|(n, _)| n == name) {
                    Some((_, v)) => v.clone(),
                    None if *defaulted => Val::unknown(format!(
                        "`{name}`: a default member initialiser the reader does not read"
                    )),
                    None => Val::int(0, IntType::I32),
                };
                (name.clone(), v)
            })
            .collect()
    }

    /// A variable of type `ty` constructed from `args` (their source `texts`, for messages):
    /// `dim3` from up to three integers (the rest 1), another type from one value.
    fn constructed(&self, ty: &str, args: Vec<Val>, texts: &[&str]) -> Val {
        if ty == "dim3" {
            let mut d = [
                AbstractInt::known(1),
                AbstractInt::known(1),
                AbstractInt::known(1),
            ];
            for (i, arg) in args.into_iter().take(3).enumerate() {
                match arg.as_int() {
                    Some((v, _)) => d[i] = v.clone(),
                    None => {
                        return Val::unknown(format!(
                            "`{}` is not read",
                            clip(texts.get(i).copied().unwrap_or_default(), 40)
                        ));
                    }
                }
            }
            return Val::Dim3(d);
        }
        match <[Val; 1]>::try_from(args) {
            Ok([v]) => v,
            Err(_) => Val::unknown("an aggregate the reader does not follow"),
        }
    }

    /// The value of an argument of a construction the grammar read as a parameter's type
    /// ([`vexing_arguments`]): the constant or variable it names.
    fn vexing_argument<'a>(&mut self, arg: At<'a>, p: &Path) -> Val
    where
        't: 'a,
    {
        match arg.kind() {
            Some(Kind::QualifiedIdentifier) => self.qualified(arg, p),
            _ => self.name(arg.text(), arg, p),
        }
    }

    /// When `name` holds a finite set of values, one path per value (while the paths stay
    /// within the bound), so that what is computed from it follows.
    fn split(&mut self, p: Path, name: &str) -> Vec<Path> {
        let Some(Val::Int(v, t)) = p.env.get(name) else {
            return vec![p];
        };
        let Some(members) = v.members() else {
            return vec![p];
        };
        if members.len() < 2 || !paths::may_fork(self.batch, members.len(), MAX_PATHS) {
            return vec![p];
        }
        let (members, t) = (members.to_vec(), *t);
        self.batch = self.batch + members.len() - 1;
        members
            .into_iter()
            .map(|m| {
                let mut q = p.clone();
                q.env.insert(name.to_owned(), Val::int(m, t));
                q.conditions.push(format!("{name} = {m}"));
                q
            })
            .collect()
    }

    fn exec_if<'a>(&mut self, s: At<'a>, paths: Vec<Path>) -> Vec<Path>
    where
        't: 'a,
    {
        let mut out = Vec::new();
        for p in paths {
            let mut p = p;
            let cond_clause = s.field(Field::Condition);
            let mut cond = cond_clause;
            if let Some(c) = cond_clause
                && c.kind() == Some(Kind::ConditionClause)
            {
                if let Some(init) = c.field(Field::Initializer) {
                    let mut ps = self.exec(init, vec![p.clone()]);
                    if ps.len() == 1 {
                        p = ps.remove(0);
                    }
                }
                cond = c.field(Field::Value);
            }
            let Some(cond) = cond else {
                out.push(p);
                continue;
            };
            if s.field(Field::Alternative).is_none() && once_guard(s, cond) {
                // After `static bool done; if (!done) { ..; done = true; }` the body has
                // run, in this call or an earlier one: what it set that outlives the call
                // (a kernel's opt-in to more shared memory) holds on every path.
                match s.field(Field::Consequence) {
                    Some(c) => out.extend(self.exec(c, vec![p])),
                    None => out.push(p),
                }
                continue;
            }
            let (t, f) = self.branch(cond, &p);
            let label = clip(cond.text(), 60);
            let both = t.is_some() && f.is_some();
            if let Some(mut t) = t {
                if both {
                    t.conditions.push(label.clone());
                }
                let taken = match s.field(Field::Consequence) {
                    Some(c) => self.exec(c, vec![t]),
                    None => vec![t],
                };
                out.extend(taken.into_iter().map(|mut q| {
                    q.chain_taken = true;
                    q
                }));
            }
            if let Some(mut f) = f {
                if both {
                    f.conditions.push(format!("!({label})"));
                }
                f.chain_taken = false;
                match s.field(Field::Alternative) {
                    Some(alt) => {
                        // `else_clause` wraps the statement.
                        let stmt = if alt.kind() == Some(Kind::ElseClause) {
                            alt.children().first().copied()
                        } else {
                            Some(alt)
                        };
                        match stmt {
                            Some(stmt) => out.extend(self.exec(stmt, vec![f])),
                            None => out.push(f),
                        }
                    }
                    None => out.push(f),
                }
            }
        }
        out
    }

    /// `#if` / `#ifdef` inside a function: the branch the build compiles where the
    /// conditions are decided ([`crate::preproc`]: host code, the build's `-D` macros),
    /// else each branch is a build some configuration makes, so each is a path.
    fn exec_preproc_if<'a>(&mut self, s: At<'a>, paths: Vec<Path>) -> Vec<Path>
    where
        't: 'a,
    {
        let branches = preproc_branches(s);
        if let Some(decider) = self.decider {
            match chosen(&branches, decider, true) {
                Taken::Branch(body) => {
                    let mut ps = paths;
                    for stmt in body {
                        ps = self.exec(stmt, ps);
                    }
                    return ps;
                }
                Taken::None => return paths,
                Taken::Each => {}
            }
        }
        // Undecided: each written branch (an `#if` without `#else` runs its body, as
        // before: the configuration that skips it launches nothing there).
        let written: Vec<_> = branches
            .into_iter()
            .filter(|b| !b.directive.is_empty())
            .collect();
        let mut out = Vec::new();
        let several = written.len() > 1;
        for b in written {
            let label = match b.directive {
                "#else" => "#else".to_owned(),
                d => format!(
                    "{d} {}",
                    b.condition.map_or_else(String::new, |c| clip(c.text(), 40))
                ),
            };
            let mut ps: Vec<Path> = paths
                .iter()
                .cloned()
                .map(|mut p| {
                    if several {
                        p.conditions.push(label.clone());
                    }
                    p
                })
                .collect();
            for stmt in b.body {
                ps = self.exec(stmt, ps);
            }
            out.extend(ps);
        }
        out
    }

    fn exec_switch<'a>(&mut self, s: At<'a>, paths: Vec<Path>) -> Vec<Path>
    where
        't: 'a,
    {
        let Some(cond) = s.field(Field::Condition) else {
            return paths;
        };
        let cond = cond.field(Field::Value).unwrap_or(cond);
        let Some(body) = s.field(Field::Body) else {
            return paths;
        };
        let cases: Vec<At<'a>> = body
            .children()
            .into_iter()
            .filter(|c| c.kind() == Some(Kind::CaseStatement))
            .collect();
        let cond_text = clip(cond.text(), 40);
        let var = (cond.kind() == Some(Kind::Identifier)).then(|| cond.text().to_owned());
        let mut out = Vec::new();
        for p in paths {
            let value = self.eval(cond, &p);
            let int = value.as_int().map(|(v, _)| v.clone());
            let mut matched_any = Vec::new();
            let mut default_at = None;
            for (i, case) in cases.iter().enumerate() {
                let Some(v) = case.field(Field::Value) else {
                    default_at = Some(i);
                    continue;
                };
                let cv = self.eval(v, &p);
                let cv = cv.as_int().map(|(v, _)| v.clone());
                let truth = match (&int, &cv) {
                    (Some(a), Some(b)) => a.compare(Comparison::Eq, b),
                    _ => Truth::Sometimes,
                };
                if let Some(b) = cv.as_ref().and_then(AbstractInt::known_value) {
                    matched_any.push(b);
                }
                if truth == Truth::Never {
                    continue;
                }
                let mut q = p.clone();
                push_condition(&mut q, format!("{cond_text} == {}", clip(v.text(), 30)));
                if let (Some(var), Some(cv)) = (&var, &cv)
                    && let Some(Val::Int(x, t)) = q.env.get(var).cloned()
                    && let Some(r) = x.refine(Comparison::Eq, cv)
                {
                    let old = Val::Int(x, t);
                    q.env.insert(var.clone(), Val::Int(r, t));
                    match self.narrow_dependents(q, &[(var.clone(), old)], *case) {
                        Some(r) => q = r,
                        None => continue,
                    }
                }
                out.extend(self.run_cases(&cases[i..], q));
            }
            // The default (or no case at all), for values no case matches.
            let covered = match int.as_ref().and_then(AbstractInt::members) {
                Some(members) => members.iter().all(|m| matched_any.contains(m)),
                None => false,
            };
            if !covered {
                let mut q = p.clone();
                if let (Some(var), Some(Val::Int(x, t))) =
                    (&var, var.as_ref().and_then(|v| q.env.get(v)).cloned())
                {
                    let old = Val::Int(x.clone(), t);
                    let mut x = Some(x);
                    for m in &matched_any {
                        x = x.and_then(|x| x.refine(Comparison::Ne, &AbstractInt::known(*m)));
                    }
                    match x {
                        Some(x) => {
                            q.env.insert(var.clone(), Val::Int(x, t));
                            match self.narrow_dependents(q, &[(var.clone(), old)], s) {
                                Some(r) => q = r,
                                None => continue,
                            }
                        }
                        None => continue,
                    }
                }
                match default_at {
                    Some(i) => {
                        q.conditions.push(format!("{cond_text}: default"));
                        out.extend(self.run_cases(&cases[i..], q));
                    }
                    None => out.push(q),
                }
            }
        }
        out.into_iter()
            .map(|mut p| {
                if p.flow == Flow::Break {
                    p.flow = Flow::Normal;
                }
                p
            })
            .collect()
    }

    /// The statements of `cases[0]` and, falling through, of the next ones until a
    /// `break`.
    fn run_cases<'a>(&mut self, cases: &[At<'a>], p: Path) -> Vec<Path>
    where
        't: 'a,
    {
        let mut paths = vec![p];
        for case in cases {
            let value = case.field(Field::Value).map(|v| v.node);
            for stmt in case.children() {
                if Some(stmt.node) == value {
                    continue;
                }
                if !paths.iter().any(Path::live) {
                    return paths;
                }
                paths = self.exec(stmt, paths);
            }
            if !paths.iter().any(Path::live) {
                break;
            }
        }
        paths
    }

    fn exec_loop<'a>(&mut self, s: At<'a>, mut paths: Vec<Path>) -> Vec<Path>
    where
        't: 'a,
    {
        if let Some(init) = s.field(Field::Initializer) {
            paths = match init.kind() {
                Some(Kind::Declaration) => self.exec(init, paths),
                _ => paths
                    .into_iter()
                    .flat_map(|p| self.exec_expr(init, p))
                    .collect(),
            };
        }
        let cond = s
            .field(Field::Condition)
            .map(|c| c.field(Field::Value).unwrap_or(c));
        let update = s.field(Field::Update);
        let Some(body) = s.field(Field::Body) else {
            return paths;
        };
        let line = s.line();
        let mut assigned = Vec::new();
        assigned_names(body, &mut assigned, 0);
        if let Some(u) = update {
            assigned_names(u, &mut assigned, 0);
        }
        let simple = assigned.len() == 1 && !has_effects(body, 0);
        // A counter the loop declares, that alone changes, in a body with no effects
        // (`for (int i = 0; i < n; i++) idx[i] = i;`): nothing after the loop can tell how
        // often it ran, so it is not run.
        if simple
            && s.field(Field::Initializer).is_some_and(|init| {
                init.kind() == Some(Kind::Declaration)
                    && crate::index::identifiers(init.text()).contains(&assigned[0])
            })
        {
            return paths;
        }
        // A `for` whose counters reach only kernel arguments (a bitonic sort's
        // `for (int k = 2; k <= n; k <<= 1) for (int j = k >> 1; j > 0; j >>= 1)
        // sort<<<blocks, threads>>>(x, j, k);`) makes the same launches on every
        // iteration: its body is read once, on the paths whose condition lets it run.
        if let Some(cond) = cond
            && repeats_the_same_launches(s)
        {
            // Its own counters only: a nested loop's are declared (and shadow) inside.
            let counters = s
                .field(Field::Initializer)
                .map(declaration_names)
                .unwrap_or_default();
            let mut out = Vec::new();
            for p in paths {
                let (held, failed) = self.branch(cond, &p);
                out.extend(failed);
                if let Some(q) = held {
                    out.extend(self.run_loop_once(body, None, &counters, line, q));
                }
            }
            return out;
        }
        let mut out = Vec::new();
        for p in paths {
            if simple
                && let Some(cond) = cond
                && let Some(Val::Int(init, t)) = p.env.get(&assigned[0]).cloned()
            {
                let var = assigned[0].as_str();
                let do_first = s.kind() == Some(Kind::DoStatement);
                if let Some((exits, steps)) =
                    self.counter_exits(var, init, t, do_first, cond, body, update, &p)
                {
                    out.extend(self.leave_counted_loop(p, var, exits, t, &steps, cond, do_first));
                    continue;
                }
            }
            if let Some(exits) = self.unrolled(cond, body, update, &p) {
                out.extend(exits);
                continue;
            }
            // A condition that writes and calls nothing, tested on entry: where it fails
            // the body never runs and the path leaves as it came (a `do` body runs
            // first). Where it may also hold, the body runs once from the path as it
            // came: what the condition says there need not hold after the loop (the body
            // may change it in ways the reader does not see, `bump(&n)`).
            let p = match cond {
                Some(cond)
                    if s.kind() != Some(Kind::DoStatement) && writes_only(cond, &[], false, 0) =>
                {
                    match self.branch(cond, &p) {
                        (None, failed) => {
                            out.extend(failed);
                            continue;
                        }
                        (Some(q), None) => q,
                        (Some(_), Some(failed)) => {
                            out.push(failed);
                            p
                        }
                    }
                }
                _ => p,
            };
            out.extend(self.run_loop_once(body, update, &assigned, line, p));
        }
        out
    }

    /// The values a loop's lone counter `var` (of type `t`, starting at `init`) leaves the
    /// loop with, by running the condition and the body (and the update) value by value;
    /// with each step taken (value -> next value). `None` where a step is not known.
    #[allow(clippy::too_many_arguments)]
    fn counter_exits<'a>(
        &mut self,
        var: &str,
        init: AbstractInt,
        t: IntType,
        do_first: bool,
        cond: At<'a>,
        body: At<'a>,
        update: Option<At<'a>>,
        p: &Path,
    ) -> Option<(AbstractInt, Vec<(i128, i128)>)>
    where
        't: 'a,
    {
        // Each step taken (value -> next value), to refine the paths by the
        // conditions that led to each exit.
        let mut steps: Vec<(i128, i128)> = Vec::new();
        let exits = {
            let steps = &mut steps;
            let mut guard_path = p.clone();
            let mut step_path = p.clone();
            let start = if do_first {
                // A `do` body runs once before the first test.
                let mut q = p.clone();
                q.env.insert(var.to_owned(), Val::Int(init.clone(), t));
                let ran = self.exec(body, vec![q]);
                match ran.as_slice() {
                    [q] if q.live() => q
                        .env
                        .get(var)
                        .and_then(|v| v.as_int())
                        .map(|(v, _)| v.clone()),
                    _ => None,
                }
            } else {
                Some(init.clone())
            };
            let this = std::cell::RefCell::new(&mut *self);
            start.and_then(|start| {
                loop_exits(
                    &start,
                    |x| {
                        guard_path.env.insert(var.to_owned(), Val::int(x, t));
                        this.borrow_mut().truth(cond, &guard_path)
                    },
                    |x| {
                        step_path.env.insert(var.to_owned(), Val::int(x, t));
                        let mut this = this.borrow_mut();
                        let mut ran = this.exec(body, vec![step_path.clone()]);
                        if let Some(u) = update {
                            ran = ran.into_iter().flat_map(|q| this.exec_expr(u, q)).collect();
                        }
                        let next = match ran.as_slice() {
                            [q] if q.live() || q.flow == Flow::Continue => q
                                .env
                                .get(var)
                                .and_then(|v| v.as_int())
                                .and_then(|(v, _)| v.known_value()),
                            _ => None,
                        };
                        if let Some(n) = next {
                            steps.push((x, n));
                        }
                        next
                    },
                )
            })
        };
        exits.map(|exits| (exits, steps))
    }

    /// The paths leaving a counted loop, one per exit value of its counter `var`: each
    /// refined by the condition failing at that value and holding at the value that
    /// stepped to it (when one did).
    #[allow(clippy::too_many_arguments)]
    fn leave_counted_loop<'a>(
        &mut self,
        p: Path,
        var: &str,
        exits: AbstractInt,
        t: IntType,
        steps: &[(i128, i128)],
        cond: At<'a>,
        do_first: bool,
    ) -> Vec<Path>
    where
        't: 'a,
    {
        let mut out = Vec::new();
        let mut q = p;
        q.env.insert(var.to_owned(), Val::Int(exits, t));
        for mut r in self.split(q, var) {
            // An exit at `v`: the condition failed at `v` and held at the value
            // that stepped to it (when one did): what that says of the other
            // variables (`cols <= 64` and `cols > 32` for `block = 64`).
            if let Some(v) = r
                .env
                .get(var)
                .and_then(Val::as_int)
                .and_then(|(v, _)| v.known_value())
            {
                let came_from: Vec<i128> = steps
                    .iter()
                    .filter(|(_, n)| *n == v)
                    .map(|(x, _)| *x)
                    .collect();
                if let [u] = came_from.as_slice()
                    && !do_first
                {
                    r.env.insert(var.to_owned(), Val::int(*u, t));
                    if let (Some(held), _) = self.branch(cond, &r) {
                        r = held;
                    }
                    r.env.insert(var.to_owned(), Val::int(v, t));
                }
                if let (_, Some(failed)) = self.branch(cond, &r) {
                    r = failed;
                }
            }
            out.push(r);
        }
        out
    }

    /// Whether `conjunct` compares `counter` with a bound that fails it only at its type's
    /// extreme on `p` (`row < nrows`, `nrows` a parameter: only at `INT_MAX`; `i < n -
    /// k`): no counted run of MAX_UNROLL steps ends there.
    fn run_time_bound<'a>(&mut self, conjunct: At<'a>, counter: &str, p: &Path) -> bool
    where
        't: 'a,
    {
        let (Some(l), Some(op), Some(r)) = (
            conjunct.field(Field::Left),
            conjunct.field(Field::Operator),
            conjunct.field(Field::Right),
        ) else {
            return false;
        };
        let is_counter = |e: At<'_>| e.kind() == Some(Kind::Identifier) && e.text() == counter;
        // Which way the counter must go past the bound for the conjunct to fail:
        // `i < b` fails at `i >= max(b)`, so `max(b)` must be the type's greatest.
        let (bound, upward) = match (is_counter(l), is_counter(r), op.text()) {
            (true, false, "<" | "<=") | (false, true, ">" | ">=") => {
                (if is_counter(l) { r } else { l }, true)
            }
            (true, false, ">" | ">=") | (false, true, "<" | "<=") => {
                (if is_counter(l) { r } else { l }, false)
            }
            _ => return false,
        };
        if conjunct.kind() != Some(Kind::BinaryExpression) || mentions(bound.text(), counter) {
            return false;
        }
        match self.eval(bound, p) {
            Val::Unknown(_) => true,
            Val::Int(x, t) => {
                let (lo, hi) = t.range();
                match (x.bounds(), upward) {
                    ((_, None), true) | ((None, _), false) => true,
                    ((_, Some(b)), true) => b >= hi,
                    ((Some(a), _), false) => a <= lo,
                }
            }
            _ => false,
        }
    }

    /// Any other loop: what it assigns is unknown after it; its body runs once with those
    /// values unknown (its launches are read).
    fn run_loop_once<'a>(
        &mut self,
        body: At<'a>,
        update: Option<At<'a>>,
        assigned: &[String],
        line: u32,
        p: Path,
    ) -> Vec<Path>
    where
        't: 'a,
    {
        let mut out = Vec::new();
        let mut q = p;
        for name in assigned {
            if q.env.contains_key(name) {
                q.env.insert(
                    name.clone(),
                    Val::unknown(format!("`{name}` changes in the loop at line {line}")),
                );
            }
        }
        let mut ran = self.exec(body, vec![q]);
        if let Some(u) = update {
            ran = ran.into_iter().flat_map(|q| self.exec_expr(u, q)).collect();
        }
        for mut r in ran {
            if matches!(r.flow, Flow::Break | Flow::Continue) {
                r.flow = Flow::Normal;
            }
            for name in assigned {
                if r.env.contains_key(name) {
                    r.env.insert(
                        name.clone(),
                        Val::unknown(format!("`{name}` changes in the loop at line {line}")),
                    );
                }
            }
            out.push(r);
        }
        out
    }

    /// A `for` loop whose counter alone ends it (`for (x = 8; x <= x_max && best > 1; x += 8)`
    /// with `x` and `x_max` known, `x` written only by the update): run iteration by
    /// iteration on every path, each path leaving where its condition fails or its body
    /// breaks, so what the body chooses (`best = x` under a test) is the set its paths
    /// choose. `None` (the caller forgets what the loop assigns) past [`MAX_UNROLL`]
    /// iterations or when the counter's bound is not known.
    fn unrolled<'a>(
        &mut self,
        cond: Option<At<'a>>,
        body: At<'a>,
        update: Option<At<'a>>,
        p: &Path,
    ) -> Option<Vec<Path>>
    where
        't: 'a,
    {
        let (cond, update) = (cond?, update?);
        // A loop with a launch inside a loop with a launch being unrolled runs once per
        // iteration of the outer one, with what it assigns unknown: unrolled too, a
        // launch nested in two loops would be read up to MAX_UNROLL squared times per path
        // (a bitonic sort's `for k .. for j ..` around one launch).
        let launches = contains_kind(body, Kind::KernelCallSyntax, 0);
        if launches && self.unrolling_launches > 0 {
            return None;
        }
        let mut counter = Vec::new();
        assigned_names(update, &mut counter, 0);
        let [counter] = counter.as_slice() else {
            return None;
        };
        let mut in_body = Vec::new();
        assigned_names(body, &mut in_body, 0);
        if in_body.contains(counter) {
            return None;
        }
        // The counter's bound: one conjunct of the condition that mentions only the counter
        // and known values fails within MAX_UNROLL updates.
        let conjuncts = conjuncts(cond);
        // A bound read at run time (`row < nrows` with `nrows` a parameter, anything an
        // `int` holds) ends no iteration: not tried MAX_UNROLL times to find that out.
        if conjuncts
            .iter()
            .filter(|c| mentions(c.text(), counter))
            .all(|c| self.run_time_bound(*c, counter, p))
        {
            return None;
        }
        let mut q = p.clone();
        let mut ends = false;
        for _ in 0..MAX_UNROLL {
            q.env.get(counter)?.as_int()?.0.known_value()?;
            if conjuncts
                .iter()
                .any(|c| mentions(c.text(), counter) && self.truth(*c, &q) == Truth::Never)
            {
                ends = true;
                break;
            }
            let mut next = self.exec_expr(update, q);
            if next.len() != 1 {
                return None;
            }
            q = next.remove(0);
        }
        if !ends {
            return None;
        }
        let mut live = vec![p.clone()];
        let mut exits = Vec::new();
        self.unrolling_launches += usize::from(launches);
        for _ in 0..=MAX_UNROLL {
            if live.is_empty() || self.spent() {
                break;
            }
            let mut next = Vec::new();
            for q in live {
                let (held, failed) = self.branch(cond, &q);
                exits.extend(failed);
                let Some(held) = held else { continue };
                for mut r in self.exec(body, vec![held]) {
                    match r.flow {
                        Flow::Break => {
                            r.flow = Flow::Normal;
                            exits.push(r);
                        }
                        Flow::Return(_) => exits.push(r),
                        Flow::Normal | Flow::Continue => {
                            r.flow = Flow::Normal;
                            next.extend(self.exec_expr(update, r));
                        }
                    }
                }
            }
            live = self.compact(next);
            exits = self.compact(exits);
        }
        self.unrolling_launches -= usize::from(launches);
        exits.extend(live);
        Some(exits)
    }

    // ----------------------------------------------------------------------------------
    // Expressions with effects.

    /// An expression evaluated for its effects: assignments, launches, opt-ins, calls of
    /// the unit's functions, macro invocations.
    fn exec_expr<'a>(&mut self, e: At<'a>, mut p: Path) -> Vec<Path>
    where
        't: 'a,
    {
        if !self.step() {
            return vec![p];
        }
        match e.kind() {
            Some(Kind::AssignmentExpression) => self.assign(e, p),
            Some(Kind::UpdateExpression) => {
                if let Some(arg) = e.field(Field::Argument) {
                    let delta = if e.text().contains("++") { 1 } else { -1 };
                    if let Some((v, t)) = self.eval(arg, &p).as_int().map(|(v, t)| (v.clone(), t)) {
                        let r = v.add(&AbstractInt::known(delta));
                        let r = t
                            .convert(&r)
                            .map_or_else(|| Val::unknown("overflow"), |r| Val::Int(r, t));
                        self.store(arg, r, &mut p);
                    } else {
                        self.store(arg, Val::unknown("changed by ++/--"), &mut p);
                    }
                }
                vec![p]
            }
            Some(Kind::CommaExpression) => {
                let mut paths = vec![p];
                for part in [e.field(Field::Left), e.field(Field::Right)]
                    .into_iter()
                    .flatten()
                {
                    paths = paths
                        .into_iter()
                        .flat_map(|q| self.exec_expr(part, q))
                        .collect();
                }
                paths
            }
            Some(Kind::ParenthesizedExpression) => match e.children().first() {
                Some(inner) => self.exec_expr(*inner, p),
                None => vec![p],
            },
            Some(Kind::CallExpression) => self.call_statement(e, p),
            Some(Kind::Identifier) => {
                // `LAUNCH_ALL;`: an object-like macro as a statement.
                let name = e.text();
                if self
                    .index
                    .macros
                    .get(name)
                    .is_some_and(|m| m.iter().any(|m| m.params.is_none()))
                {
                    return self.expand_statements(e, name, None, p);
                }
                vec![p]
            }
            _ => {
                // Other expressions may hold calls with effects (`x = f(), y`): not followed.
                vec![p]
            }
        }
    }

    fn assign<'a>(&mut self, e: At<'a>, mut p: Path) -> Vec<Path>
    where
        't: 'a,
    {
        let (Some(left), Some(right)) = (e.field(Field::Left), e.field(Field::Right)) else {
            return vec![p];
        };
        let op = e
            .field(Field::Operator)
            .map_or("=", |o| o.text())
            .to_owned();
        // `config.attrs = attrs;`: the array is read at the launch, by name.
        if op == "="
            && left.kind() == Some(Kind::FieldExpression)
            && left
                .field(Field::Member)
                .is_some_and(|f| f.text() == "attrs")
            && let Some(base) = left.field(Field::Argument)
            && let Some(Val::Config(mut c)) = p.env.get(base.text()).cloned()
        {
            c.attrs = Some(strip_casts(right).text().to_owned());
            p.forget(base.text());
            p.env.insert(base.text().to_owned(), Val::Config(c));
            return vec![p];
        }
        // `status = cudaDeviceGetAttribute(&v, ..)`: what the query writes.
        if right.kind() == Some(Kind::CallExpression) {
            self.device_query(right, &mut p);
        }
        let rhs = self.eval(right, &p);
        let v = if op == "=" {
            rhs
        } else {
            let current = self.eval(left, &p);
            let bin = op.trim_end_matches('=');
            binary(bin, &current, &rhs)
        };
        let v = match (self.eval(left, &p), v) {
            (Val::Int(_, t), Val::Int(x, _)) => match t.convert(&x) {
                Some(x) => Val::Int(x, t),
                None => Val::unknown("overflows its type"),
            },
            (_, v) => v,
        };
        self.store(left, v, &mut p);
        if left.kind() == Some(Kind::Identifier) {
            let name = left.text().to_owned();
            return self.split(p, &name);
        }
        vec![p]
    }

    /// Stores `v` into the place `left` names: a variable, a `dim3`'s or a config's
    /// member, an attribute's member.
    fn store<'a>(&mut self, left: At<'a>, v: Val, p: &mut Path)
    where
        't: 'a,
    {
        match left.kind() {
            Some(Kind::Identifier) => {
                p.forget(left.text());
                p.env.insert(left.text().to_owned(), v);
            }
            Some(Kind::ParenthesizedExpression) => {
                if let Some(inner) = left.children().first() {
                    self.store(*inner, v, p);
                }
            }
            Some(Kind::FieldExpression) => {
                // The member path from the variable: `cfg.blockDim.x`, `attrs[0].val.clusterDim.x`.
                let mut fields = Vec::new();
                let mut index = None;
                let mut at = left;
                let mut guard = 0;
                while guard < 16 {
                    guard += 1;
                    match at.kind() {
                        Some(Kind::FieldExpression) => {
                            if let Some(f) = at.field(Field::Member) {
                                fields.push(f.text().to_owned());
                            }
                            match at.field(Field::Argument) {
                                Some(a) => at = a,
                                None => return,
                            }
                        }
                        Some(Kind::SubscriptExpression) => {
                            let i = at
                                .field(Field::Indices)
                                .and_then(|i| i.children().first().copied())
                                .or_else(|| at.field(Field::Index))
                                .and_then(|i| {
                                    self.eval(i, p).as_int().and_then(|(v, _)| v.known_value())
                                });
                            index = i;
                            match at.field(Field::Argument) {
                                Some(a) => at = a,
                                None => return,
                            }
                        }
                        Some(Kind::PointerExpression | Kind::ParenthesizedExpression) => {
                            match at
                                .field(Field::Argument)
                                .or_else(|| at.children().first().copied())
                            {
                                Some(a) => at = a,
                                None => return,
                            }
                        }
                        _ => break,
                    }
                }
                fields.reverse();
                let name = at.text().to_owned();
                let mut current = p.env.get(&name).cloned();
                let arrow_config = match &current {
                    None | Some(Val::Unknown(_)) => None,
                    Some(other) => Some(other.clone()),
                };
                let updated = match arrow_config {
                    Some(Val::Config(mut c)) => {
                        let field = fields.first().cloned().unwrap_or_default();
                        let rest = fields.get(1).map(String::as_str);
                        set_config_field(&mut c, &field, v, rest);
                        Some(Val::Config(c))
                    }
                    Some(Val::Dim3(mut d)) => {
                        if let (Some(f), Some((x, _))) = (fields.first(), v.as_int()) {
                            match f.as_str() {
                                "x" => d[0] = x.clone(),
                                "y" => d[1] = x.clone(),
                                "z" => d[2] = x.clone(),
                                _ => {}
                            }
                        }
                        Some(Val::Dim3(d))
                    }
                    Some(Val::Attrs(mut attrs)) => {
                        if let Some(i) = index.and_then(|i| usize::try_from(i).ok())
                            && let Some(a) = attrs.get_mut(i)
                        {
                            let joined = fields.join(".");
                            match joined.as_str() {
                                "id" => a.id = Some(right_text(&v)),
                                "val.clusterDim.x" => {
                                    a.cluster[0] = v.as_int().map(|(x, _)| x.clone())
                                }
                                "val.clusterDim.y" => {
                                    a.cluster[1] = v.as_int().map(|(x, _)| x.clone())
                                }
                                "val.clusterDim.z" => {
                                    a.cluster[2] = v.as_int().map(|(x, _)| x.clone())
                                }
                                _ => {}
                            }
                        }
                        Some(Val::Attrs(attrs))
                    }
                    _ => None,
                };
                if let Some(u) = updated {
                    current = Some(u);
                }
                p.forget(&name);
                if let Some(c) = current {
                    p.env.insert(name, c);
                }
            }
            _ => {}
        }
    }

    /// A call as a statement: a launch, an opt-in, a macro invocation, a function of the
    /// unit (followed, with its template arguments and the argument values), or anything
    /// else (no effect the reader follows).
    fn call_statement<'a>(&mut self, e: At<'a>, p: Path) -> Vec<Path>
    where
        't: 'a,
    {
        let Some(function) = e.field(Field::Function) else {
            return vec![p];
        };
        if let Some(config) = e
            .children()
            .into_iter()
            .find(|c| c.kind() == Some(Kind::KernelCallSyntax))
        {
            self.chevron_launch(e, function, config, &p);
            return vec![p];
        }
        let name = match function.kind() {
            Some(Kind::TemplateFunction) => function.field(Field::Name).map_or("", |n| n.text()),
            _ => function.text(),
        };
        let simple = name.rsplit("::").next().unwrap_or(name).trim();
        let args: Vec<At<'a>> = e
            .field(Field::Arguments)
            .map(|a| a.children())
            .unwrap_or_default();
        let mut p = p;
        if self.device_query(e, &mut p) {
            return vec![p];
        }
        match simple {
            "cudaLaunchKernelEx" | "cudaLaunchKernelExC" => {
                self.launch_ex(e, &args, &p);
                return vec![p];
            }
            "cudaLaunchKernel" | "cudaLaunchCooperativeKernel" => {
                self.launch_kernel(e, &args, &p);
                return vec![p];
            }
            "cuLaunchKernelEx" | "cuLaunchKernel" | "cuLaunchCooperativeKernel" => {
                self.record_unchecked(
                    e,
                    LaunchForm::CuLaunchKernelEx,
                    args.get(1).or(args.first()).map_or("", |a| a.text()),
                    format!(
                        "{simple} launches a CUfunction loaded at run time (often compiled at run time, e.g. by NVRTC), not code of the crate's objects: not checked"
                    ),
                );
                return vec![p];
            }
            "cudaFuncSetAttribute" => {
                if args.len() == 3
                    && args[1].text().contains("MaxDynamicSharedMemorySize")
                    && let Val::Kernels(ks) = self.eval(strip_casts(args[0]), &p)
                    && let Some((v, _)) =
                        self.eval(args[2], &p).as_int().map(|(v, t)| (v.clone(), t))
                {
                    for k in ks {
                        p.opt_ins.push((k, v.clone()));
                    }
                }
                return vec![p];
            }
            _ => {}
        }
        // A function-like macro of the unit.
        if function.kind() == Some(Kind::Identifier)
            && self
                .index
                .macros
                .get(simple)
                .is_some_and(|m| m.iter().any(|m| m.params.is_some()))
        {
            let open = e
                .field(Field::Arguments)
                .map(|a| a.node.start_byte())
                .unwrap_or(function.node.end_byte());
            let args_text = paren_list(&e.code.text, open).map(|(t, _)| t.to_owned());
            return self.expand_statements(e, simple, args_text, p);
        }
        // A lambda called in place: its body, with the enclosing variables.
        if function.kind() == Some(Kind::LambdaExpression)
            && let Some(body) = function.field(Field::Body)
        {
            return self
                .exec_block(body, vec![p])
                .into_iter()
                .map(|mut q| {
                    if matches!(q.flow, Flow::Return(_)) {
                        q.flow = Flow::Normal;
                    }
                    q
                })
                .collect();
        }
        // A function of the unit: followed (its values known).
        if self.callee(simple, None).is_some()
            && let Ok(values) = self.argument_values(&args, &p)
            && let Some(f) = self.callee(simple, Some(values.len()))
        {
            return self
                .call(f, function, &args, values, p, false)
                .into_iter()
                .map(|(q, _)| q)
                .collect();
        }
        // Anything else (`CUDA_CHECK(...)` from a header not read): what its arguments do.
        self.forget_written(e, &mut p, 0);
        let mut paths = vec![p];
        for a in args {
            paths = paths
                .into_iter()
                .flat_map(|q| self.effects(a, q, 0))
                .collect();
        }
        paths
    }

    /// A variable whose address a call the reader does not follow takes
    /// (`cudaDeviceGetAttribute(&max_smem, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev)`,
    /// inside `CHECK(..)` too) may be written by it: from here on it is known only at run
    /// time, never the value it was initialised with (marlin's repack launch was read with
    /// the `0` it starts as, where it asks the device for its whole opt-in shared memory).
    fn forget_written<'a>(&mut self, call: At<'a>, p: &mut Path, depth: usize)
    where
        't: 'a,
    {
        if depth > 8 || self.device_query(call, p) {
            return;
        }
        let callee = call
            .field(Field::Function)
            .map_or("", |f| f.text())
            .to_owned();
        for a in call
            .field(Field::Arguments)
            .map(|a| a.children())
            .unwrap_or_default()
        {
            match a.kind() {
                Some(Kind::PointerExpression)
                    if a.field(Field::Operator).is_some_and(|o| o.text() == "&")
                        || a.text().starts_with('&') =>
                {
                    if let Some(target) = a.field(Field::Argument)
                        && target.kind() == Some(Kind::Identifier)
                    {
                        let why = format!(
                            "`{}` is written by `{}(..)`, known only at run time",
                            target.text(),
                            clip(&callee, 40)
                        );
                        self.store(target, Val::unknown(why), p);
                    }
                }
                Some(Kind::CallExpression) => self.forget_written(a, p, depth + 1),
                _ => {}
            }
        }
    }

    /// A device query: `cudaDeviceGetAttribute(&v, attr, dev)`, `cuDeviceGetAttribute(..)`
    /// or `cudaGetDeviceProperties(&prop, dev)`. What it writes is the path's target's
    /// value from the GPU tables ([`crate::device`]; `prop` becomes [`Val::Device`], read
    /// field by field), or known only at run time (a value the tables do not hold, a path
    /// of no one target): never the value the variable had. Whether `call` is one.
    fn device_query<'a>(&mut self, call: At<'a>, p: &mut Path) -> bool
    where
        't: 'a,
    {
        let name = call.field(Field::Function).map_or("", |f| f.text());
        let simple = name.rsplit("::").next().unwrap_or(name).trim();
        let props = matches!(
            simple,
            "cudaGetDeviceProperties" | "cudaGetDeviceProperties_v2"
        );
        if !props && !matches!(simple, "cudaDeviceGetAttribute" | "cuDeviceGetAttribute") {
            return false;
        }
        let args = call
            .field(Field::Arguments)
            .map(|a| a.children())
            .unwrap_or_default();
        let written = args.first().and_then(|a| {
            let address = a.kind() == Some(Kind::PointerExpression)
                && (a.field(Field::Operator).is_some_and(|o| o.text() == "&")
                    || a.text().starts_with('&'));
            address.then(|| a.field(Field::Argument)).flatten()
        });
        let Some(written) = written else {
            return true;
        };
        let asked = if props {
            "its properties".to_owned()
        } else {
            format!("`{}`", clip(args.get(1).map_or("", |a| a.text()), 60))
        };
        let v = match p.target.and_then(|i| self.targets.get(i)) {
            None => Val::unknown(format!(
                "`{}` is the device's answer to {asked}: a value of each target, and this path is of no one target",
                clip(written.text(), 40)
            )),
            Some(_) if props => Val::Device,
            Some(t) => match device::attribute(args.get(1).map_or("", |a| a.text()), t) {
                Ok(v) => Val::int(v, IntType::I32),
                Err(why) => Val::unknown(format!("`{}`: {why}", clip(written.text(), 40))),
            },
        };
        self.store(written, v, p);
        true
    }

    /// The effects of the launches and opt-ins inside an expression evaluated for its
    /// value (`return cudaLaunchKernelEx(...)`, `cudaError_t e = cudaFuncSetAttribute(...)`,
    /// `CHECK(cudaFuncSetAttribute(...))`); calls of the unit's functions are followed by
    /// the evaluation itself.
    fn effects<'a>(&mut self, e: At<'a>, p: Path, depth: usize) -> Vec<Path>
    where
        't: 'a,
    {
        if depth > 32 || !self.step() {
            return vec![p];
        }
        match e.kind() {
            Some(Kind::LambdaExpression) => vec![p],
            Some(Kind::CallExpression) => {
                let function = e.field(Field::Function);
                let name = function.map_or("", |f| match f.kind() {
                    Some(Kind::TemplateFunction) => f.field(Field::Name).map_or("", |n| n.text()),
                    _ => f.text(),
                });
                let simple = name.rsplit("::").next().unwrap_or(name).trim();
                let is_launch = e
                    .children()
                    .iter()
                    .any(|c| c.kind() == Some(Kind::KernelCallSyntax))
                    || matches!(
                        simple,
                        "cudaLaunchKernelEx"
                            | "cudaLaunchKernelExC"
                            | "cudaLaunchKernel"
                            | "cudaLaunchCooperativeKernel"
                            | "cuLaunchKernelEx"
                            | "cuLaunchKernel"
                            | "cuLaunchCooperativeKernel"
                            | "cudaFuncSetAttribute"
                    );
                if is_launch {
                    return self.call_statement(e, p);
                }
                let mut p = p;
                if self.device_query(e, &mut p) {
                    return vec![p];
                }
                let known =
                    self.index.macros.contains_key(simple) || self.callee(simple, None).is_some();
                if known {
                    return vec![p];
                }
                let args = e
                    .field(Field::Arguments)
                    .map(|a| a.children())
                    .unwrap_or_default();
                let mut paths = vec![p];
                for a in args {
                    paths = paths
                        .into_iter()
                        .flat_map(|q| self.effects(a, q, depth + 1))
                        .collect();
                }
                paths
            }
            _ => {
                let mut paths = vec![p];
                for c in e.children() {
                    paths = paths
                        .into_iter()
                        .flat_map(|q| self.effects(c, q, depth + 1))
                        .collect();
                }
                paths
            }
        }
    }

    /// The host function of the unit that a call of `name` with `count` arguments calls,
    /// if any: among its overloads, the first whose parameters take `count` arguments,
    /// one without a parameter pack before one with (C++ prefers the non-variadic
    /// function); the first definition when `count` is not known or no overload takes it.
    fn callee(&self, name: &str, count: Option<usize>) -> Option<&'s Function<'t>> {
        let index = self.index;
        let mut overloads = index.functions.get(name)?.iter().filter(|f| !f.is_kernel);
        let first = overloads.clone().next()?;
        let Some(count) = count else {
            return Some(first);
        };
        let exact = overloads.clone().find(|f| takes(f, count) == Some(false));
        exact
            .or_else(|| overloads.find(|f| takes(f, count) == Some(true)))
            .or(Some(first))
    }

    /// The values a call passes its callee, in order: each argument's, a pack expansion
    /// (`rest...`) as the pack's values, and `__CUDA_ARCH_LIST__` (nvcc's list of the
    /// architectures it compiles, in host code too) as the path's target's (the build
    /// that runs on a target compiled for it). `Err`: why how many there are is not known.
    fn argument_values<'a>(&mut self, args: &[At<'a>], p: &Path) -> Result<Vec<Val>, String>
    where
        't: 'a,
    {
        let mut out = Vec::with_capacity(args.len());
        for a in args {
            match a.kind() {
                Some(Kind::ParameterPackExpansion) => {
                    let pattern = a.children().into_iter().next();
                    match pattern.and_then(|n| p.env.get(n.text())) {
                        Some(Val::Pack(vs)) => out.extend(vs.iter().cloned()),
                        _ => {
                            return Err(format!(
                                "`{}`: a pack expansion of no parameter pack the reader holds",
                                clip(a.text(), 40)
                            ));
                        }
                    }
                }
                Some(Kind::Identifier) if a.text() == "__CUDA_ARCH_LIST__" => {
                    match p.target.and_then(|t| self.targets.get(t)) {
                        Some(t) => out.extend(
                            device::arch_list(t)
                                .into_iter()
                                .map(|v| Val::int(v, IntType::I32)),
                        ),
                        None => {
                            return Err(
                                "`__CUDA_ARCH_LIST__`: the architectures the build compiles, a value of each target, and this path is of no one target"
                                    .to_owned(),
                            );
                        }
                    }
                }
                _ => out.push(self.eval(*a, p)),
            }
        }
        Ok(out)
    }

    /// Calls `f` from path `p`: its template arguments from `function` (`f<T, 64>`), its
    /// parameters from `args`. The paths that return, each with its return value (the
    /// caller's variables, the callee's conditions and opt-ins).
    fn call<'a>(
        &mut self,
        f: &'s Function<'t>,
        function: At<'a>,
        args: &[At<'a>],
        values: Vec<Val>,
        p: Path,
        for_value: bool,
    ) -> Vec<(Path, Option<Val>)>
    where
        't: 'a,
    {
        if self.frames.len() >= MAX_CALL_DEPTH {
            return vec![(p, None)];
        }
        let mut targs = match function.kind() {
            Some(Kind::TemplateFunction) => function
                .field(Field::Arguments)
                .map(|a| self.template_args(a, &p))
                .unwrap_or_default(),
            _ => Vec::new(),
        };
        if f.is_template && targs.iter().all(Result::is_ok) {
            let deduced = self.deduce(f, targs.len(), args, &p);
            targs.extend(deduced.into_iter().map(Ok));
        }
        let mut callee = Path::new();
        callee.conditions = p.conditions.clone();
        callee.opt_ins = p.opt_ins.clone();
        callee.target = p.target;
        callee.overflow = p.overflow.clone();
        self.bind_template(f, &targs, &mut callee);
        bind_type_packs(f, values.len(), &mut callee);
        // Recursion of one instantiation (a call of the function, with the same template
        // arguments, that is being interpreted): followed once, not down to the depth
        // bound: each level would read the same launches again, and two calls per level
        // (a dispatch's arms) double the work at each of them.
        let key = instance(f, Some(&callee));
        if self.frames.iter().any(|fr| fr.instance == key) {
            self.note(
                function,
                format!(
                    "`{}` calls itself (with the same template arguments): the recursive call is not followed",
                    clip(function.text(), 60)
                ),
            );
            return vec![(p, None)];
        }
        // Made for its value by a function that cannot launch: the same inputs, the same
        // values (the paths' conditions and opt-ins are the caller's concern, not read).
        let memo = (for_value && !self.reach.may_launch(f)).then(|| {
            let bucket = (f.body.node.id(), p.target, self.batch, self.frames.len());
            let key = CallKey {
                targs: targs.clone(),
                values: values.clone(),
                stack: self.frames.iter().map(|fr| fr.instance.clone()).collect(),
                scopes: self.constant_scopes.clone(),
                evaluating: self.evaluating.clone(),
                structs: self.structs.clone(),
            };
            (bucket, key)
        });
        if let Some((bucket, key)) = &memo
            && let Some(answers) = self.calls.get(bucket, key)
        {
            return answers.iter().map(|v| (p.clone(), v.clone())).collect();
        }
        let before = (self.notes.len(), self.sites.len(), self.spent());
        let saved_batch = self.batch;
        let out = self.enter(f, vec![callee], Some(values));
        self.batch = saved_batch;
        if let Some((bucket, key)) = memo
            && before == (self.notes.len(), self.sites.len(), false)
            && !self.spent()
            && !out.iter().any(Path::folded)
        {
            let answers = out
                .iter()
                .map(|q| match &q.flow {
                    Flow::Return(v) => v.clone(),
                    _ => None,
                })
                .collect();
            self.calls.insert(bucket, key, answers);
        }
        out.into_iter()
            .map(|q| {
                let mut r = p.clone();
                r.conditions = q.conditions;
                r.opt_ins = q.opt_ins;
                r.overflow = q.overflow;
                let v = match q.flow {
                    Flow::Return(v) => v,
                    _ => None,
                };
                (r, v)
            })
            .collect()
    }

    /// The template arguments after the `explicit` ones that a call of `f` with `args`
    /// deduces ([temp.deduct.call], the plain cases): a type parameter `T` from each
    /// parameter declared `T`, `const T*`, `T&`, `T* __restrict__` (the type alone, as many
    /// pointers as the argument's) whose argument is a variable of the path with its
    /// declared type (`const float* x`: `T = float`); every such argument must agree. Stops
    /// at the first parameter it cannot deduce (a non-type one, one no argument gives):
    /// [`Self::bind_template`] gives it its default or says it is not read.
    fn deduce<'a>(
        &mut self,
        f: &Function<'t>,
        explicit: usize,
        args: &[At<'a>],
        p: &Path,
    ) -> Vec<TyArg>
    where
        't: 'a,
    {
        let mut out = Vec::new();
        for t in f.template.iter().skip(explicit) {
            if !t.is_type || t.pack {
                break;
            }
            let mut found: Option<Ty> = None;
            for (param, arg) in f.params.iter().zip(args) {
                if param.ty.trim() != t.name {
                    continue;
                }
                let Some((ty, pointers, is_const)) = (arg.kind() == Some(Kind::Identifier))
                    .then(|| p.types.get(arg.text()).cloned())
                    .flatten()
                    .or_else(|| self.cast_type(*arg, p))
                else {
                    continue;
                };
                let (ty, pointers, is_const) = (&ty, &pointers, &is_const);
                if *pointers != param.pointers || (*pointers > 0 && *is_const && !param.is_const) {
                    // `T*` against `float**` deduces `T = float*`, against `float` nothing,
                    // against `const float*` `T = const float`: not a type this reads.
                    return out;
                }
                match &found {
                    None => found = Some(ty.clone()),
                    Some(other) if other == ty => {}
                    Some(_) => return out,
                }
            }
            match found {
                Some(ty) => out.push(TyArg::Type(ty)),
                None => break,
            }
        }
        out
    }

    /// The type an argument written as a cast has (`reinterpret_cast<const half*>(x)`,
    /// `static_cast<float*>(p)`, `(const float*)x`): the type, its pointers, whether
    /// `const` qualifies it; `None` for any other argument.
    fn cast_type(&mut self, arg: At<'_>, p: &Path) -> Option<(Ty, u8, bool)> {
        let descriptor = crate::index::cast_descriptor(arg)?;
        let base = descriptor.field(Field::Type)?;
        if !names_known_types(base.text(), p) {
            return None;
        }
        let pointers = pointer_depth(descriptor.field(Field::Declarator));
        Some((self.type_of(base, p), pointers, has_const(descriptor)))
    }

    /// A template kernel launched without template arguments (`k<<<g, b>>>(x, n)`): its
    /// arguments deduced from the launch's ([`Self::deduce`]), the rest from their
    /// defaults; as it was when some is neither.
    fn deduce_kernel<'a>(&mut self, r: KernelRef, args: &[At<'a>], p: &Path) -> KernelRef
    where
        't: 'a,
    {
        if r.args.is_ok() || self.index.kernel_definitions(&r.name) > 1 {
            return r;
        }
        let Some(f) = self.index.kernel(&r.name) else {
            return r;
        };
        let deduced = self.deduce(f, 0, args, p);
        let mut bound = Path::new();
        let targs: Vec<Result<TyArg, String>> = deduced.into_iter().map(Ok).collect();
        self.bind_template(f, &targs, &mut bound);
        let mut out = Vec::new();
        for t in &f.template {
            match bound.env.get(&t.name) {
                Some(Val::Type(ty)) => out.push(TyArg::Type(ty.clone())),
                Some(v) => match v.as_int().and_then(|(x, _)| x.known_value()) {
                    Some(x) => out.push(TyArg::Value(x)),
                    None => return r,
                },
                None => return r,
            }
        }
        KernelRef {
            name: r.name,
            args: Ok(out),
        }
    }

    /// Binds `f`'s template parameters to `args` (defaults after them; unknown past).
    fn bind_template(&mut self, f: &Function<'t>, args: &[Result<TyArg, String>], path: &mut Path) {
        for (i, t) in f.template.iter().enumerate() {
            if t.pack {
                // A pack takes the explicit arguments from its place on.
                let given = args.get(i..).unwrap_or_default();
                let v = given
                    .iter()
                    .map(|a| match a {
                        Ok(TyArg::Type(ty)) => Val::Type(ty.clone()),
                        Ok(TyArg::Value(v)) => {
                            Val::int(*v, IntType::from_name(&t.ty).unwrap_or(IntType::I32))
                        }
                        Err(why) => Val::unknown(why.clone()),
                    })
                    .collect();
                path.env.insert(t.name.clone(), Val::Pack(v));
                continue;
            }
            let v = match args.get(i) {
                Some(Ok(TyArg::Type(ty))) => Val::Type(ty.clone()),
                Some(Ok(TyArg::Value(v))) => {
                    Val::int(*v, IntType::from_name(&t.ty).unwrap_or(IntType::I32))
                }
                Some(Err(why)) => Val::unknown(why.clone()),
                None => match t.default {
                    Some(d) if t.is_type => Val::Type(self.type_of(d, path)),
                    Some(d) => self.eval(d, path),
                    None => Val::unknown(format!(
                        "template parameter `{}` of `{}`: not deduced from the call's arguments (the reader deduces a type parameter from a variable declared with it, `const T* x`, or a cast to it)",
                        t.name, f.qualified
                    )),
                },
            };
            path.env.insert(t.name.clone(), v);
        }
    }

    /// Expands the macro invocation at `e` and runs the statements it expands to.
    fn expand_statements<'a>(
        &mut self,
        e: At<'a>,
        name: &str,
        args: Option<String>,
        p: Path,
    ) -> Vec<Path>
    where
        't: 'a,
    {
        self.expand_written(e, name, args, p, None)
    }

    /// [`Interp::expand_statements`] of an invocation written as `written` (its text and
    /// first line) inside `e` (an error node that holds several).
    fn expand_written<'a>(
        &mut self,
        e: At<'a>,
        name: &str,
        args: Option<String>,
        p: Path,
        written: Option<&Written>,
    ) -> Vec<Path>
    where
        't: 'a,
    {
        let key = (name.to_owned(), args);
        let expanded = match self.invoked.get(&key) {
            Some(r) => r.clone(),
            None => {
                let mut expander = Expander::new(&self.index.macros);
                let r = expander.invoke(name, key.1.as_deref()).map_err(|err| err.0);
                if self.invoked.len() < 4096 {
                    self.invoked.insert(key, r.clone());
                }
                r
            }
        };
        let text = match expanded {
            Ok(t) => t,
            Err(err) => {
                self.note(e, format!("`{name}`: {err}"));
                return vec![p];
            }
        };
        // `else if (c) { .. }` (or `else { .. }`): a macro that continues an `if` chain
        // across invocations (`if (false) {} CALL_IF(4) CALL_IF(8) else { .. }`): its arm is
        // for the paths no earlier arm of the chain took.
        let text = match text.trim_start().strip_prefix("else") {
            Some(rest) if rest.starts_with(|c: char| c.is_whitespace() || c == '{') => {
                if p.chain_taken {
                    return vec![p];
                }
                rest.to_owned()
            }
            _ => text,
        };
        let wrapped = format!("void __occupancy_expansion__() {{\n{text}\n;}}");
        let code = self.parsed(wrapped, e, written);
        let Some(root) = code.root() else {
            return vec![p];
        };
        let at = At {
            node: root,
            code: &code,
        };
        let Some(body) = crate::index::find_kind(at, Kind::CompoundStatement, 3) else {
            return vec![p];
        };
        self.exec_block(body, vec![p])
    }

    /// `text` parsed, an expansion of the invocation at `at` (or written as `written`
    /// inside it): remembered by where it is and what it says.
    fn parsed<'a>(&mut self, text: String, at: At<'a>, written: Option<&Written>) -> Rc<Code> {
        let line = written.map_or_else(|| at.line(), |w| w.1);
        let key = format!("{}:{line}:{text}", at.code.shown);
        if let Some(code) = self.expansions.get(&key) {
            return code.clone();
        }
        // Parsing is work the steps count too: one per PARSED_BYTES_PER_STEP bytes. Past
        // the budget nothing more is parsed (what it would have read is not read, and
        // the root's note says so).
        let room = |b: &Budget| b.limit().saturating_sub(b.taken());
        let cost = text.len() / PARSED_BYTES_PER_STEP + 1;
        // A parse the budget cannot pay for is not started: one step past what is left
        // spends it.
        let affordable = cost.min(room(&self.budget).min(room(self.read_budget)) + 1);
        for _ in 0..affordable {
            if !self.step() {
                break;
            }
        }
        let spent = self.spent();
        let text = if spent { String::new() } else { text };
        let mut code = Code::parse(text, at.code.shown.clone(), Some(line));
        let (invocation, first_line) = match written {
            Some((text, line)) => (text.clone(), *line),
            None => (at.text().to_owned(), at.code.line(at.node)),
        };
        code.origin = Some(Rc::new(crate::syntax::Origin::new(
            invocation,
            first_line,
            at.code.origin.clone(),
        )));
        let code = Rc::new(code);
        // An expansion not parsed for want of budget is not remembered: a later root,
        // with a budget of its own, parses it.
        if !spent && self.expansions.len() < 4096 {
            self.expansions.insert(key, code.clone());
        }
        code
    }

    fn note(&mut self, at: At<'_>, message: String) {
        let note = ReadNote {
            file: at.code.shown.clone(),
            line: Some(at.line()),
            message,
        };
        if !self.notes.contains(&note) && self.notes.len() < 1000 {
            self.notes.push(note);
        }
    }

    // ----------------------------------------------------------------------------------
    // Launches.

    fn chevron_launch<'a>(&mut self, e: At<'a>, function: At<'a>, config: At<'a>, p: &Path)
    where
        't: 'a,
    {
        let items = config.children();
        let kernels = self.eval(function, p);
        let kernels = match (kernels, e.field(Field::Arguments)) {
            (Val::Kernels(refs), Some(args))
                if matches!(
                    function.kind(),
                    Some(Kind::Identifier | Kind::QualifiedIdentifier)
                ) =>
            {
                let args = args.children();
                Val::Kernels(
                    refs.into_iter()
                        .map(|r| self.deduce_kernel(r, &args, p))
                        .collect(),
                )
            }
            (kernels, _) => kernels,
        };
        self.written = [
            items
                .get(1)
                .map_or_else(String::new, |b| b.text().to_owned()),
            items
                .get(2)
                .map_or_else(String::new, |s| s.text().to_owned()),
        ];
        let grid = items.first().map(|g| self.eval(*g, p));
        let block = items.get(1).map(|b| self.eval(*b, p));
        let smem = match items.get(2) {
            Some(s) => self.eval(*s, p),
            None => Val::int(0, IntType::U64),
        };
        let (Some(grid), Some(block)) = (grid, block) else {
            self.note(
                e,
                "a <<<...>>> launch with fewer than 2 arguments".to_owned(),
            );
            return;
        };
        self.record(
            e,
            LaunchForm::TripleChevron,
            function.text(),
            kernels,
            grid,
            block,
            smem,
            None,
            p,
        );
    }

    fn launch_ex<'a>(&mut self, e: At<'a>, args: &[At<'a>], p: &Path)
    where
        't: 'a,
    {
        let (Some(config), Some(kernel)) = (args.first(), args.get(1)) else {
            return;
        };
        let kernels = self.eval(strip_casts(*kernel), p);
        let config = match self.eval(*config, p) {
            Val::Config(c) => c,
            other => {
                let why = format!("the launch configuration is not read: {}", other.why());
                self.record(
                    e,
                    LaunchForm::LaunchKernelEx,
                    kernel.text(),
                    kernels,
                    Val::unknown(why.clone()),
                    Val::unknown(why.clone()),
                    Val::unknown(why),
                    None,
                    p,
                );
                return;
            }
        };
        let mut cluster = None;
        if let Some(name) = &config.attrs
            && let Some(Val::Attrs(attrs)) = p.env.get(name)
        {
            let n = config
                .num_attrs
                .as_int()
                .and_then(|(v, _)| v.known_value())
                .unwrap_or(attrs.len() as i128);
            for a in attrs.iter().take(usize::try_from(n).unwrap_or(0)) {
                if a.id
                    .as_deref()
                    .is_some_and(|id| id.contains("ClusterDimension"))
                {
                    cluster = Some(a.cluster.clone());
                }
            }
        }
        self.record(
            e,
            LaunchForm::LaunchKernelEx,
            kernel.text(),
            kernels,
            *config.grid,
            *config.block,
            *config.smem,
            cluster,
            p,
        );
    }

    fn launch_kernel<'a>(&mut self, e: At<'a>, args: &[At<'a>], p: &Path)
    where
        't: 'a,
    {
        let Some(kernel) = args.first() else {
            return;
        };
        let kernels = self.eval(strip_casts(*kernel), p);
        let grid = args
            .get(1)
            .map_or_else(|| Val::unknown("no grid"), |g| self.eval(*g, p));
        let block = args
            .get(2)
            .map_or_else(|| Val::unknown("no block"), |b| self.eval(*b, p));
        let smem = args
            .get(4)
            .map_or_else(|| Val::int(0, IntType::U64), |s| self.eval(*s, p));
        self.record(
            e,
            LaunchForm::LaunchKernel,
            strip_casts(*kernel).text(),
            kernels,
            grid,
            block,
            smem,
            None,
            p,
        );
    }

    fn site_index(&mut self, e: At<'_>, form: LaunchForm, kernel_written: &str) -> usize {
        let file = e.code.shown.clone();
        let line = e.line();
        let kernel_written = clip(kernel_written, 80);
        if let Some(i) = self.sites.iter().position(|s| {
            s.file == file && s.line == line && s.form == form && s.kernel_written == kernel_written
        }) {
            return i;
        }
        self.sites.push(CudaLaunch {
            file,
            line,
            function: self.frame_name(),
            form,
            kernel_written,
            paths: Vec::new(),
            not_checked: Vec::new(),
        });
        self.sites.len() - 1
    }

    fn record_unchecked(&mut self, e: At<'_>, form: LaunchForm, kernel: &str, why: String) {
        let i = self.site_index(e, form, kernel);
        self.not_checked(i, why);
    }

    #[allow(clippy::too_many_arguments)]
    fn record<'a>(
        &mut self,
        e: At<'a>,
        form: LaunchForm,
        kernel_written: &str,
        kernels: Val,
        grid: Val,
        block: Val,
        smem: Val,
        cluster: Option<[Option<AbstractInt>; 3]>,
        p: &Path,
    ) where
        't: 'a,
    {
        let i = self.site_index(e, form, kernel_written);
        let written = std::mem::take(&mut self.written);
        if let Some(why) = &p.overflow {
            self.not_checked(i, why.to_string());
            return;
        }
        let origins = [self.origin(&written[0]), self.origin(&written[1])];
        let kernels = match kernels {
            Val::Kernels(ks) => ks,
            // A null function pointer (`NULL`, `nullptr`) makes no launch (the launch fails
            // with `cudaErrorInvalidDeviceFunction`): nothing to check on this path.
            Val::Int(x, _) if x.known_value() == Some(0) => return,
            other => {
                let why = format!(
                    "the kernel `{}` is not a __global__ function of the files read ({})",
                    clip(kernel_written, 60),
                    other.why()
                );
                self.not_checked(i, why);
                return;
            }
        };
        let comment = match crate::choices::site_candidates(e, &mut self.comments) {
            Ok(c) => c,
            Err((line, why)) => {
                self.comment_not_read(e, i, line, why);
                return;
            }
        };
        let grid = dims(&grid, "grid");
        let cluster = cluster.and_then(|c| {
            let mut out = [1u32; 3];
            for (o, v) in out.iter_mut().zip(c) {
                *o = u32::try_from(v?.known_value()?).ok()?;
            }
            Some(out)
        });
        let mut produced: Vec<LaunchPath> = Vec::new();
        let mut why_not = Vec::new();
        for k in &kernels {
            if let Err(why) = &k.args {
                why_not.push(format!("`{}`: {why}", k.name));
            }
            produced
                .extend(self.kernel_paths(k, &grid, cluster, &block, &smem, &comment, &origins, p));
        }
        for why in why_not {
            self.not_checked(i, why);
        }
        self.add_paths(i, produced);
    }

    /// Says once, on the launch at site `i`, why it (or part of it) is not checked.
    fn not_checked(&mut self, i: usize, why: String) {
        self.sites[i].not_checked(why);
    }

    /// A launch whose `// occupancy:` comment (on `line`) cannot be read: not checked, with
    /// a note for the build saying why.
    fn comment_not_read(&mut self, e: At<'_>, i: usize, line: u32, why: String) {
        // Never half a comment: the launch is not checked, and the build says why.
        let note = ReadNote {
            file: e.code.shown.clone(),
            line: Some(line),
            message: format!(
                "`// occupancy:` comment not read (the launch on line {} is not checked): {why}",
                e.line()
            ),
        };
        if !self.notes.contains(&note) && self.notes.len() < 1000 {
            self.notes.push(note);
        }
        let why = format!("the `// occupancy:` comment on line {line} is not read: {why}");
        self.not_checked(i, why);
    }

    /// The kernel `k` as launched: its name and template arguments, `bool` parameters'
    /// values as `true` / `false`.
    fn instantiation(&self, k: &KernelRef) -> Instantiation {
        let bools = self.index.bool_template_params(&k.name);
        Instantiation {
            name: k.name.clone(),
            template_args: k.args.as_ref().ok().map(|a| {
                a.iter()
                    .enumerate()
                    .map(|(i, a)| match (a, bools.get(i)) {
                        (TyArg::Value(v), Some(true)) => TemplateArg::Bool(*v != 0),
                        _ => a.to_template_arg(),
                    })
                    .collect()
            }),
        }
    }

    /// The launch paths of kernel `k` on path `p`: one per block size and shared memory
    /// the code and the `// occupancy:` comment allow, under the path's conditions.
    #[allow(clippy::too_many_arguments)]
    fn kernel_paths(
        &self,
        k: &KernelRef,
        grid: &Read<[u32; 3]>,
        cluster: Option<[u32; 3]>,
        block: &Val,
        smem: &Val,
        comment: &LaunchCandidates,
        origins: &[Option<String>; 2],
        p: &Path,
    ) -> Vec<LaunchPath> {
        let instantiation = self.instantiation(k);
        let opt_in = p
            .opt_ins
            .iter()
            .rev()
            .find(|(kk, _)| kk == k)
            .and_then(|(_, v)| v.known_value())
            .and_then(|v| u32::try_from(v).ok());
        let opt_in_at_run_time = p
            .opt_ins
            .iter()
            .rev()
            .find(|(kk, _)| kk == k)
            .is_some_and(|(_, v)| v.known_value().is_none());
        let mut produced = Vec::new();
        for (block, smem_read, candidates, label) in block_smem(
            block.to_dim3(),
            smem.as_int()
                .map(|(v, _)| v.clone())
                .ok_or_else(|| smem.why()),
            comment,
            opt_in,
            opt_in_at_run_time,
        ) {
            let limit = match (&smem_read, candidates) {
                (Read::Known(s), Candidates::None) => {
                    smem.as_int().and_then(|(v, _)| smem_limit(v, opt_in, *s))
                }
                _ => None,
            };
            let block = explained(block, &origins[0]);
            let smem_read = explained(smem_read, &origins[1]);
            // A condition taken twice (a loop's test on two iterations) is said once.
            let mut conditions: Vec<String> = Vec::with_capacity(p.conditions.len() + 1);
            for c in p.conditions.iter() {
                if !conditions.contains(c) {
                    conditions.push(c.clone());
                }
            }
            if let Some(l) = label
                && !conditions.contains(&l)
            {
                conditions.push(l);
            }
            produced.push(LaunchPath {
                kernel: instantiation.clone(),
                grid: grid.clone(),
                block,
                dynamic_smem_bytes: smem_read,
                smem_limit: limit,
                cluster,
                opt_in_bytes: opt_in,
                conditions,
                candidates,
                translation_unit: self.unit.clone(),
                targets: p
                    .target
                    .and_then(|t| self.targets.get(t))
                    .map(|t| vec![t.to_string()])
                    .unwrap_or_default(),
            });
        }
        produced
    }

    /// Adds launch paths to the launch at site `i` ([`CudaLaunch::add_paths`]).
    fn add_paths(&mut self, i: usize, produced: Vec<LaunchPath>) {
        let targets = self.targets.len();
        self.sites[i].add_paths(produced, targets);
    }

    /// How a launch value is written, for the reason it is known only at run time:
    /// `` `threads` is a parameter of `launch_scale_any` ``, `` `n * 4` ``.
    fn origin(&self, written: &str) -> Option<String> {
        let is_param = self
            .frames
            .last()
            .is_some_and(|f| f.params.iter().any(|p| p == written.trim()));
        crate::choices::written_origin(written, is_param, &self.frame_name())
    }

    // ----------------------------------------------------------------------------------
    // Values.

    /// Whether `cond` holds on `p`.
    fn truth<'a>(&mut self, cond: At<'a>, p: &Path) -> Truth
    where
        't: 'a,
    {
        let (t, f) = self.branch(cond, p);
        match (t.is_some(), f.is_some()) {
            (true, false) => Truth::Always,
            (false, true) => Truth::Never,
            _ => Truth::Sometimes,
        }
    }

    /// The path where `cond` holds and the one where it does not, each refined by it;
    /// `None` for a side no value allows.
    fn branch<'a>(&mut self, cond: At<'a>, p: &Path) -> (Option<Path>, Option<Path>)
    where
        't: 'a,
    {
        if self.nesting > MAX_NESTING {
            return (Some(p.clone()), Some(p.clone()));
        }
        self.nesting += 1;
        let out = self.branch_inner(cond, p);
        self.nesting -= 1;
        out
    }

    fn branch_inner<'a>(&mut self, cond: At<'a>, p: &Path) -> (Option<Path>, Option<Path>)
    where
        't: 'a,
    {
        match cond.kind() {
            Some(Kind::ParenthesizedExpression | Kind::ConditionClause) => {
                if let Some(inner) = cond
                    .field(Field::Value)
                    .or_else(|| cond.children().first().copied())
                {
                    return self.branch(inner, p);
                }
            }
            Some(Kind::UnaryExpression)
                if cond.field(Field::Operator).is_some_and(|o| o.text() == "!") =>
            {
                if let Some(arg) = cond.field(Field::Argument) {
                    let (t, f) = self.branch(arg, p);
                    return (f, t);
                }
            }
            Some(Kind::BinaryExpression) => {
                let op = cond.field(Field::Operator).map_or("", |o| o.text());
                let (Some(l), Some(r)) = (cond.field(Field::Left), cond.field(Field::Right)) else {
                    return (Some(p.clone()), Some(p.clone()));
                };
                match op {
                    "&&" => {
                        let (lt, lf) = self.branch(l, p);
                        let (t, rf) = match &lt {
                            Some(q) => self.branch(r, q),
                            None => (None, None),
                        };
                        let f = match (lf, rf) {
                            (None, None) => None,
                            (Some(f), None) | (None, Some(f)) => Some(f),
                            (Some(_), Some(_)) => Some(p.clone()),
                        };
                        return (t, f);
                    }
                    "||" => {
                        let (lt, lf) = self.branch(l, p);
                        let (rt, f) = match &lf {
                            Some(q) => self.branch(r, q),
                            None => (None, None),
                        };
                        let t = match (lt, rt) {
                            (None, None) => None,
                            (Some(t), None) | (None, Some(t)) => Some(t),
                            (Some(_), Some(_)) => Some(p.clone()),
                        };
                        return (t, f);
                    }
                    _ => {}
                }
                if let Some(cmp) = comparison(op) {
                    let (a, b) = (self.eval(l, p), self.eval(r, p));
                    let (Some((x, _)), Some((y, _))) = (a.as_int(), b.as_int()) else {
                        return (Some(p.clone()), Some(p.clone()));
                    };
                    let mut truth = x.compare(cmp, y);
                    // A value an earlier test ruled out (`else if (t == 1)` after
                    // `if (t == 0)`): the comparison is decided.
                    let ruled_out = |name: At<'_>, other: &AbstractInt| {
                        name.kind() == Some(Kind::Identifier)
                            && other
                                .known_value()
                                .is_some_and(|k| p.excludes(name.text(), k))
                    };
                    if ruled_out(l, y) || ruled_out(r, x) {
                        match cmp {
                            Comparison::Eq => truth = Truth::Never,
                            Comparison::Ne => truth = Truth::Always,
                            _ => {}
                        }
                    }
                    // The ways the comparison goes ([`refine::sides`]), each operand that is a
                    // variable narrowed on each, with what it held before (for its dependents).
                    let (mut t, mut f) = (None, None);
                    for side in refine::sides(x, cmp, y, truth) {
                        let mut q = p.clone();
                        let mut before = Vec::new();
                        for (name, now, other, c) in [
                            (l, side.left, y, side.op),
                            (r, side.right, x, side.op.swapped()),
                        ] {
                            if name.kind() == Some(Kind::Identifier)
                                && let Some(Val::Int(v, t)) = q.env.get(name.text()).cloned()
                            {
                                let refined = Val::Int(now, t);
                                if refined != Val::Int(v.clone(), t) {
                                    before.push((name.text().to_owned(), Val::Int(v, t)));
                                }
                                q.env.insert(name.text().to_owned(), refined.clone());
                                if c == Comparison::Ne
                                    && let Some(k) = other.known_value()
                                    && let Val::Int(now, _) = &refined
                                    && now.contains(k)
                                {
                                    q.exclude(name.text(), refined, k);
                                }
                            }
                        }
                        if side.holds {
                            t = Some((q, before));
                        } else {
                            f = Some((q, before));
                        }
                    }
                    let mut narrowed = |side: Option<(Path, Vec<(String, Val)>)>| {
                        side.and_then(|(q, before)| self.narrow_dependents(q, &before, cond))
                    };
                    return (narrowed(t), narrowed(f));
                }
            }
            _ => {}
        }
        let v = self.eval(cond, p);
        match v.as_int() {
            Some((x, _)) => {
                let truth = x.compare(Comparison::Ne, &AbstractInt::known(0));
                (
                    (truth != Truth::Never).then(|| p.clone()),
                    (truth != Truth::Always).then(|| p.clone()),
                )
            }
            None => (Some(p.clone()), Some(p.clone())),
        }
    }

    /// The value of an expression on a path.
    fn eval<'a>(&mut self, e: At<'a>, p: &Path) -> Val
    where
        't: 'a,
    {
        if !self.step() {
            return Val::unknown("the reader's step budget ran out");
        }
        if self.nesting > MAX_NESTING {
            return Val::unknown("nested too deeply");
        }
        self.nesting += 1;
        let v = self.eval_inner(e, p);
        self.nesting -= 1;
        v
    }

    fn eval_inner<'a>(&mut self, e: At<'a>, p: &Path) -> Val
    where
        't: 'a,
    {
        match e.kind() {
            Some(Kind::NumberLiteral) => number(e.text()),
            Some(Kind::True) => Val::int(1, IntType::I32),
            Some(Kind::False | Kind::Null | Kind::Nullptr) => Val::int(0, IntType::I32),
            Some(Kind::CharLiteral) => {
                let t = e.text().trim_matches('\'');
                match t.chars().next() {
                    Some(c) if t.chars().count() == 1 => Val::int(c as i128, IntType::I32),
                    _ => Val::unknown("a character literal"),
                }
            }
            Some(Kind::ParenthesizedExpression) => match e.children().first() {
                Some(inner) => self.eval(*inner, p),
                None => Val::unknown("()"),
            },
            Some(Kind::Identifier) => self.name(e.text(), e, p),
            Some(Kind::QualifiedIdentifier) => self.qualified(e, p),
            Some(Kind::TemplateFunction) => self.template_function(e, p),
            Some(Kind::FieldExpression) => self.field_access(e, p),
            Some(Kind::PointerExpression) => {
                // `&config`: the config itself; `*p`: unknown.
                let is_address = e.field(Field::Operator).is_some_and(|o| o.text() == "&")
                    || e.text().starts_with('&');
                match e.field(Field::Argument) {
                    Some(a) if is_address => self.eval(a, p),
                    _ => Val::unknown(format!("`{}` reads memory", clip(e.text(), 40))),
                }
            }
            Some(Kind::CastExpression) => {
                let ty = e.field(Field::Type).map_or("", |t| t.text()).to_owned();
                let v = match e.field(Field::Value) {
                    Some(v) => self.eval(v, p),
                    None => return Val::unknown("a cast"),
                };
                self.cast(&ty, v)
            }
            Some(Kind::SizeofExpression) => self.size_of(e, p),
            Some(Kind::AlignofExpression) => self.align_of(e, p),
            Some(Kind::UnaryExpression) => self.unary_expression(e, p),
            Some(Kind::BinaryExpression) => {
                let op = e.field(Field::Operator).map_or("", |o| o.text()).to_owned();
                let (Some(l), Some(r)) = (e.field(Field::Left), e.field(Field::Right)) else {
                    return Val::unknown("a binary expression");
                };
                if comparison(&op).is_some() || op == "&&" || op == "||" {
                    return match self.truth(e, p) {
                        Truth::Always => Val::int(1, IntType::I32),
                        Truth::Never => Val::int(0, IntType::I32),
                        Truth::Sometimes => {
                            Val::Int(AbstractInt::range(Some(0), Some(1)), IntType::I32)
                        }
                    };
                }
                let (a, b) = (self.eval(l, p), self.eval(r, p));
                binary(&op, &a, &b)
            }
            Some(Kind::ConditionalExpression) => self.conditional_expression(e, p),
            Some(Kind::CallExpression) => self.eval_call(e, p),
            Some(Kind::InitializerList) => {
                let items = e.children();
                match items.as_slice() {
                    [one] => self.eval(*one, p),
                    _ => Val::unknown("an initializer list"),
                }
            }
            Some(Kind::CompoundLiteralExpression) => match e.field(Field::Value) {
                Some(v) => self.eval(v, p),
                None => Val::unknown("a compound literal"),
            },
            Some(Kind::AssignmentExpression) => match e.field(Field::Right) {
                Some(r) => self.eval(r, p),
                None => Val::unknown("an assignment"),
            },
            Some(Kind::TypeDescriptor | Kind::PrimitiveType | Kind::TypeIdentifier) => {
                // A template argument that names a value (`launch<kD>`).
                self.type_or_value(e, p)
            }
            _ => Val::unknown(format!("`{}` is not read", clip(e.text(), 40))),
        }
    }

    /// A member read, `a.b`: of a `dim3`, a launch config, a struct's fields or the
    /// device's properties.
    fn field_access<'a>(&mut self, e: At<'a>, p: &Path) -> Val
    where
        't: 'a,
    {
        let Some(arg) = e.field(Field::Argument) else {
            return Val::unknown("a member");
        };
        let field = e.field(Field::Member).map_or("", |f| f.text());
        match self.eval(arg, p) {
            Val::Dim3(d) => match field {
                "x" => Val::Int(d[0].clone(), IntType::U32),
                "y" => Val::Int(d[1].clone(), IntType::U32),
                "z" => Val::Int(d[2].clone(), IntType::U32),
                _ => Val::unknown(format!("dim3 has no member `{field}`")),
            },
            Val::Config(c) => match field {
                "gridDim" => *c.grid,
                "blockDim" => *c.block,
                "dynamicSmemBytes" => *c.smem,
                _ => Val::unknown(format!("`{field}` of a cudaLaunchConfig_t")),
            },
            Val::Fields(fields) => match fields.into_iter().find(|(n, _)| n == field) {
                Some((_, v)) => v,
                None => Val::unknown(format!(
                    "`{}`: no such member of the struct",
                    clip(e.text(), 40)
                )),
            },
            Val::Device => match p.target.and_then(|i| self.targets.get(i)) {
                Some(t) => match device::property(field, t) {
                    Ok((v, ty)) => Val::int(v, ty),
                    Err(why) => Val::unknown(format!("`{}`: {why}", clip(e.text(), 40))),
                },
                None => Val::unknown(format!(
                    "`{}`: a device property of no one target",
                    clip(e.text(), 40)
                )),
            },
            other => Val::unknown(format!("`{}`: {}", clip(e.text(), 40), other.why())),
        }
    }

    /// A unary expression, `-x`, `+x`, `!x`, `~x`, on an integer.
    fn unary_expression<'a>(&mut self, e: At<'a>, p: &Path) -> Val
    where
        't: 'a,
    {
        let op = e.field(Field::Operator).map_or("", |o| o.text());
        let Some(arg) = e.field(Field::Argument) else {
            return Val::unknown("a unary expression");
        };
        let v = self.eval(arg, p);
        let Some((x, t)) = v.as_int() else {
            return v;
        };
        let r = match op {
            "-" => x.neg(),
            "+" => x.clone(),
            "!" => match x.compare(Comparison::Eq, &AbstractInt::known(0)) {
                Truth::Always => AbstractInt::known(1),
                Truth::Never => AbstractInt::known(0),
                Truth::Sometimes => AbstractInt::range(Some(0), Some(1)),
            },
            "~" => x.neg().sub(&AbstractInt::known(1)),
            _ => return Val::unknown(format!("`{op}`")),
        };
        let t = if op == "!" { IntType::I32 } else { t };
        match t.convert(&r) {
            Some(r) => Val::Int(r, t),
            None => Val::unknown("overflow"),
        }
    }

    /// A conditional expression, `c ? t : f`: the branch the condition allows, or both
    /// joined.
    fn conditional_expression<'a>(&mut self, e: At<'a>, p: &Path) -> Val
    where
        't: 'a,
    {
        let (Some(c), Some(t), Some(f)) = (
            e.field(Field::Condition),
            e.field(Field::Consequence),
            e.field(Field::Alternative),
        ) else {
            return Val::unknown("a conditional expression");
        };
        let (pt, pf) = self.branch(c, p);
        match (pt, pf) {
            (Some(pt), None) => self.eval(t, &pt),
            (None, Some(pf)) => self.eval(f, &pf),
            (Some(pt), Some(pf)) => {
                let (a, b) = (self.eval(t, &pt), self.eval(f, &pf));
                let joined = a.join(&b);
                match (&a, &b, &joined) {
                    (Val::Int(_, ta), Val::Int(_, tb), Val::Int(v, _)) => {
                        Val::Int(v.clone(), IntType::common(*ta, *tb))
                    }
                    _ => joined,
                }
            }
            (None, None) => Val::unknown("no value of the condition is possible"),
        }
    }

    /// A name: a variable of the path, a member of the struct being read, a constant or
    /// enumerator of the unit, an object-like macro, a kernel.
    fn name<'a>(&mut self, name: &str, at: At<'a>, p: &Path) -> Val
    where
        't: 'a,
    {
        if let Some(v) = p.env.get(name) {
            return v.clone();
        }
        if let Some((ty, bindings)) = self.structs.last().cloned() {
            if let Some(v) = bindings.get(name) {
                return v.clone();
            }
            let v = self.member(&ty, name, 0);
            if !matches!(v, Val::Unknown(_)) {
                return v;
            }
        }
        match self.global(name, at) {
            // The C library's null pointer constant, where the files do not define it.
            Val::Unknown(_) if name == "NULL" && !self.index.macros.contains_key(name) => {
                Val::int(0, IntType::I32)
            }
            v => v,
        }
    }

    /// A name of the unit: a kernel, a constant or enumerator, an object-like macro.
    fn global<'a>(&mut self, name: &str, at: At<'a>) -> Val
    where
        't: 'a,
    {
        let index = self.index;
        if let Some(k) = index.kernel(name) {
            let definitions = index.kernel_definitions(name);
            let args = if definitions > 1 {
                Err(format!(
                    "`{name}` names {definitions} kernels (overloads, or `#if` alternatives): which one the launch calls is not read"
                ))
            } else if k.is_template {
                Err(format!(
                    "the template arguments of `{name}` are deduced from the launch's arguments, and not all of them are read (the reader deduces a type parameter from a variable declared with it, `const T* x`, or a cast to it); write them (`{name}<...>`)"
                ))
            } else {
                Ok(Vec::new())
            };
            return Val::Kernels(vec![KernelRef {
                name: k.qualified.clone(),
                args,
            }]);
        }
        self.global_constant(name, None, at)
    }

    /// A namespace-scope constant, enumerator or object-like macro named `name`, written
    /// with the namespaces `qualifier` (`cfg::TILE`: `["cfg"]`) or none: C++'s lookup, the
    /// innermost enclosing namespace of the code being read that declares it first (same-
    /// named constants of one namespace, `#if` alternatives, are joined); a name that
    /// only namespaces around none of it declare is read when one of them does, else it is
    /// unknown (which one a `using` makes visible is not read).
    fn global_constant<'a>(&mut self, name: &str, qualifier: Option<&[String]>, at: At<'a>) -> Val
    where
        't: 'a,
    {
        let index = self.index;
        let scope = match index.constants.get(name) {
            Some(constants) => match self.constant_scope(constants, qualifier) {
                Ok(scope) => Some(scope),
                Err(why) => return Val::unknown(format!("`{name}`: {why}")),
            },
            None => None,
        };
        let key = match &scope {
            Some((scope, anonymous)) => format!(
                "{}{}::{name}",
                scope.join("::"),
                if *anonymous { "::{anonymous}" } else { "" }
            ),
            None => name.to_owned(),
        };
        if let Some(v) = self.globals.get(&key) {
            return v.clone();
        }
        if self.evaluating.contains(&key) || self.evaluating.len() > 64 {
            return Val::unknown(format!("`{name}` is defined in terms of itself"));
        }
        self.evaluating.push(key.clone());
        let mut result: Option<Val> = None;
        if let (Some(constants), Some((scope, anonymous))) = (index.constants.get(name), &scope) {
            self.constant_scopes.push((scope.clone(), *anonymous));
            for c in constants
                .iter()
                .filter(|c| c.scope == *scope && c.anonymous == *anonymous)
            {
                let v = self.constant(c, name, &Vars::default());
                result = Some(match result {
                    None => v,
                    Some(r) => r.join(&v),
                });
            }
            self.constant_scopes.pop();
        }
        if result.is_none()
            && let Some(defs) = index.macros.get(name)
        {
            for m in defs.iter().filter(|m| m.params.is_none()).take(8) {
                let mut expander = Expander::new(&index.macros);
                let v = match expander.expand(&m.body) {
                    Ok(text) => self.eval_text(&text, at, &Path::new()),
                    Err(e) => Val::unknown(e.0),
                };
                result = Some(match result {
                    None => v,
                    Some(r) => r.join(&v),
                });
            }
        }
        self.evaluating.pop();
        let v = result.unwrap_or_else(|| {
            Val::unknown(format!("`{name}` is not a constant of the files read"))
        });
        self.globals.insert(key, v.clone());
        v
    }

    /// The namespace whose `constants` (all named alike) a name written with `qualifier`
    /// means, looked up from the constant being computed or the function being read.
    fn constant_scope(
        &self,
        constants: &[Constant<'t>],
        qualifier: Option<&[String]>,
    ) -> Result<(Vec<String>, bool), String> {
        let (from, inside_anonymous): (Vec<String>, bool) = match self.constant_scopes.last() {
            Some(scope) => scope.clone(),
            None => {
                let f = self.frame_name();
                let mut parts: Vec<String> = f.split("::").map(str::to_owned).collect();
                parts.pop();
                (parts, self.frames.last().is_some_and(|f| f.anonymous))
            }
        };
        crate::index::constant_scope(constants, qualifier, &from, inside_anonymous)
    }

    /// The value of a constant (`bindings`: the template arguments of its struct).
    fn constant(&mut self, c: &Constant<'t>, name: &str, bindings: &Vars<Val>) -> Val {
        match &c.init {
            Init::Expr(e, ty) => {
                let mut p = Path::new();
                p.env = Shared::new(bindings.clone());
                let v = self.eval(*e, &p);
                if ty.trim().is_empty() || ty.contains("auto") {
                    v
                } else {
                    self.declared(ty, v)
                }
            }
            Init::NextAfter(None) => Val::int(0, IntType::I32),
            Init::NextAfter(Some(prev)) => {
                let prev_v = match self.structs.last().cloned() {
                    Some((ty, _)) => self.member(&ty, prev, 0),
                    None => self.global_by_name(prev),
                };
                let _ = name;
                binary("+", &prev_v, &Val::int(1, IntType::I32))
            }
        }
    }

    fn global_by_name(&mut self, name: &str) -> Val {
        let code = self.index.all_functions.first().map(|f| f.body);
        match code {
            Some(at) => self.global(name, at),
            None => match self
                .index
                .constants
                .get(name)
                .and_then(|c| c.first())
                .cloned()
            {
                Some(c) => self.constant(&c, name, &Vars::default()),
                None => Val::unknown(format!("`{name}` is not known")),
            },
        }
    }

    /// Expression text (a macro's expansion) evaluated on `p`: a function-like macro's
    /// expansion names the caller's variables (`IS_NVIDIA(cc)` is `(cc < 0x100000)`).
    fn eval_text<'a>(&mut self, text: &str, at: At<'a>, p: &Path) -> Val
    where
        't: 'a,
    {
        let wrapped = format!("auto __occupancy_value__ = ({text});");
        let code = self.parsed(wrapped, at, None);
        let Some(root) = code.root() else {
            return Val::unknown("a macro that does not parse");
        };
        let at = At {
            node: root,
            code: &code,
        };
        let Some(decl) = crate::index::find_kind(at, Kind::InitDeclarator, 3) else {
            return Val::unknown(format!(
                "`{}` does not parse as an expression",
                clip(text, 40)
            ));
        };
        match decl.field(Field::Value) {
            Some(v) => self.eval(v, p),
            None => Val::unknown("a macro that does not parse"),
        }
    }

    /// `A::B::c`: a struct's member (`Traits::kThreads`, `Tr<float, 4>::kBlock`,
    /// `KT::kBlock` for a type alias or template parameter), or a namespace's constant.
    fn qualified<'a>(&mut self, e: At<'a>, p: &Path) -> Val
    where
        't: 'a,
    {
        let Some(name) = e.field(Field::Name) else {
            return Val::unknown("a qualified name");
        };
        if name.kind() == Some(Kind::QualifiedIdentifier) {
            // `ns::Traits::k`: drop a namespace, or resolve a nested member.
            if let Some(scope) = e.field(Field::Scope)
                && let Some(ty) = self.scope_type(scope, p)
            {
                // `Outer::Inner::k`: the alias `Inner` of `Outer`.
                if let Some(inner_scope) = name.field(Field::Scope)
                    && let Some(inner_name) = name.field(Field::Name)
                {
                    let inner = self.member_type(&ty, inner_scope.text());
                    if let Some(inner) = inner {
                        return self.member(&inner, inner_name.text(), 0);
                    }
                }
            }
            return self.qualified(name, p);
        }
        if name.kind() == Some(Kind::TemplateFunction) {
            return self.template_function(name, p);
        }
        let member = name.text();
        match e.field(Field::Scope) {
            Some(scope) => match self.scope_type(scope, p) {
                Some(ty) => self.member(&ty, member, 0),
                // A namespace: its constant (or, if none, a kernel or macro of that name).
                None => {
                    let qualifier: Vec<String> = scope
                        .text()
                        .split("::")
                        .map(|s| s.trim().to_owned())
                        .filter(|s| !s.is_empty())
                        .collect();
                    match self.index.kernel(member) {
                        Some(_) => self.name(member, e, p),
                        None => self.global_constant(member, Some(&qualifier), e),
                    }
                }
            },
            None => self.name(member, e, p),
        }
    }

    /// The type a scope names, when it is a struct the reader knows (or a type alias /
    /// template parameter bound to one); `None` for a namespace.
    fn scope_type<'a>(&mut self, scope: At<'a>, p: &Path) -> Option<Ty>
    where
        't: 'a,
    {
        let ty = self.type_of(scope, p);
        self.index
            .structs
            .contains_key(short(&ty.name))
            .then_some(ty)
    }

    fn member_type(&mut self, ty: &Ty, name: &str) -> Option<Ty> {
        let index = self.index;
        let s = index.structs.get(short(&ty.name))?.first()?;
        let alias = *s.aliases.get(name)?;
        let bindings = self.bindings(s, ty);
        self.structs.push((ty.clone(), bindings.clone()));
        let mut p = Path::new();
        p.env = Shared::new(bindings);
        let t = self.type_of(alias, &p);
        self.structs.pop();
        Some(t)
    }

    /// A struct's template parameters bound to a type's arguments.
    fn bindings(&mut self, s: &Struct<'t>, ty: &Ty) -> Vars<Val> {
        let mut out = Vars::default();
        let mut p = Path::new();
        for (i, t) in s.template.iter().enumerate() {
            let v = match ty.args.get(i) {
                Some(TyArg::Type(t)) => Val::Type(t.clone()),
                Some(TyArg::Value(v)) => {
                    Val::int(*v, IntType::from_name(&t.ty).unwrap_or(IntType::I32))
                }
                None => match t.default {
                    Some(d) if t.is_type => Val::Type(self.type_of(d, &p)),
                    Some(d) => self.eval(d, &p),
                    None => {
                        Val::unknown(format!("template parameter `{}` of `{}`", t.name, ty.name))
                    }
                },
            };
            out.insert(t.name.clone(), v.clone());
            p.env.insert(t.name.clone(), v);
        }
        out
    }

    /// A static member of a struct type (its bases searched too).
    fn member(&mut self, ty: &Ty, name: &str, depth: usize) -> Val {
        let index = self.index;
        let Some(s) = index.structs.get(short(&ty.name)).and_then(|s| s.first()) else {
            return Val::unknown(format!("`{}` is not a struct of the files read", ty));
        };
        let key = format!("{ty}::{name}");
        if self.evaluating.contains(&key) || depth > 16 || self.structs.len() > 32 {
            return Val::unknown(format!("`{key}` is defined in terms of itself"));
        }
        let bindings = self.bindings(s, ty);
        if let Some(c) = s.members.get(name) {
            self.evaluating.push(key.clone());
            self.structs.push((ty.clone(), bindings.clone()));
            let v = self.constant(c, name, &bindings);
            self.structs.pop();
            self.evaluating.pop();
            return v;
        }
        for base in s.bases.clone() {
            let mut p = Path::new();
            p.env = Shared::new(bindings.clone());
            self.structs.push((ty.clone(), bindings.clone()));
            let base_ty = self.type_of(base, &p);
            self.structs.pop();
            let v = self.member(&base_ty, name, depth + 1);
            if !matches!(v, Val::Unknown(_)) {
                return v;
            }
        }
        Val::unknown(format!(
            "`{ty}` has no constant member `{name}` the reader knows"
        ))
    }

    /// `k<float, 4>` as a kernel; `f<64>` for a function template (its value is unknown).
    fn template_function<'a>(&mut self, e: At<'a>, p: &Path) -> Val
    where
        't: 'a,
    {
        let name = e.field(Field::Name).map_or("", |n| n.text()).to_owned();
        let args = e
            .field(Field::Arguments)
            .map(|a| self.template_args(a, p))
            .unwrap_or_default();
        let index = self.index;
        match index.kernel(&name) {
            Some(k) => {
                let mut resolved = Vec::new();
                let mut error = None;
                for a in args {
                    match a {
                        Ok(a) => resolved.push(a),
                        Err(why) => error = Some(why),
                    }
                }
                // Defaults of the kernel's own template parameters after those given.
                if error.is_none() && resolved.len() < k.template.len() {
                    let mut q = Path::new();
                    for (i, t) in k.template.iter().enumerate() {
                        if let Some(a) = resolved.get(i) {
                            let v = match a {
                                TyArg::Type(t) => Val::Type(t.clone()),
                                TyArg::Value(v) => Val::int(*v, IntType::I32),
                            };
                            q.env.insert(t.name.clone(), v);
                            continue;
                        }
                        match t.default {
                            Some(d) if t.is_type => resolved.push(TyArg::Type(self.type_of(d, &q))),
                            Some(d) => {
                                match self.eval(d, &q).as_int().and_then(|(v, _)| v.known_value()) {
                                    Some(v) => resolved.push(TyArg::Value(v)),
                                    None => {
                                        error = Some(format!(
                                            "the default of `{}` is not read",
                                            t.name
                                        ));
                                        break;
                                    }
                                }
                            }
                            None => {
                                error = Some(format!(
                                    "template parameter `{}` is deduced from the launch's arguments, which the reader does not do",
                                    t.name
                                ));
                                break;
                            }
                        }
                    }
                }
                Val::Kernels(vec![KernelRef {
                    name: k.qualified.clone(),
                    args: match error {
                        Some(why) => Err(why),
                        None => Ok(resolved),
                    },
                }])
            }
            None => Val::unknown(format!(
                "`{}` is not a kernel or constant of the files read",
                clip(e.text(), 40)
            )),
        }
    }

    /// The arguments of a `<...>` list: types or values.
    fn template_args<'a>(&mut self, list: At<'a>, p: &Path) -> Vec<Result<TyArg, String>>
    where
        't: 'a,
    {
        list.children()
            .into_iter()
            .map(|a| match self.type_or_value(a, p) {
                Val::Type(t) => Ok(TyArg::Type(t)),
                Val::Int(v, _) => match v.known_value() {
                    Some(v) => Ok(TyArg::Value(v)),
                    None => Err(format!(
                        "template argument `{}` is {v} here",
                        clip(a.text(), 30)
                    )),
                },
                other => Err(format!(
                    "template argument `{}`: {}",
                    clip(a.text(), 30),
                    other.why()
                )),
            })
            .collect()
    }

    /// A template argument: a value when it names or computes one, else a type.
    fn type_or_value<'a>(&mut self, a: At<'a>, p: &Path) -> Val
    where
        't: 'a,
    {
        let inner = match a.kind() {
            Some(Kind::TypeDescriptor) if a.field(Field::Declarator).is_none() => {
                a.field(Field::Type).unwrap_or(a)
            }
            _ => a,
        };
        match inner.kind() {
            Some(Kind::TypeIdentifier | Kind::Identifier) => {
                let name = inner.text();
                match p.env.get(name) {
                    Some(v @ (Val::Type(_) | Val::Int(..))) => return v.clone(),
                    Some(Val::Unknown(why)) => return Val::Unknown(why.clone()),
                    _ => {}
                }
                if let Some((_, b)) = self.structs.last()
                    && let Some(v) = b.get(name)
                {
                    return v.clone();
                }
                let index = self.index;
                let is_value = index.constants.contains_key(name)
                    || index
                        .macros
                        .get(name)
                        .is_some_and(|m| m.iter().any(|m| m.params.is_none()));
                if is_value {
                    return self.global(name, inner);
                }
                Val::Type(self.type_of(inner, p))
            }
            Some(
                Kind::PrimitiveType
                | Kind::SizedTypeSpecifier
                | Kind::TemplateType
                | Kind::TypeDescriptor
                | Kind::StructSpecifier,
            ) => Val::Type(self.type_of(inner, p)),
            Some(Kind::QualifiedIdentifier) => {
                let v = self.qualified(inner, p);
                match v {
                    Val::Unknown(_) => Val::Type(self.type_of(inner, p)),
                    v => v,
                }
            }
            _ => self.eval(inner, p),
        }
    }

    /// The type a type node names, aliases and template parameters resolved.
    fn type_of<'a>(&mut self, t: At<'a>, p: &Path) -> Ty
    where
        't: 'a,
    {
        if self.nesting > MAX_NESTING {
            return Ty::named(t.text());
        }
        self.nesting += 1;
        let ty = self.type_of_inner(t, p);
        self.nesting -= 1;
        ty
    }

    fn type_of_inner<'a>(&mut self, t: At<'a>, p: &Path) -> Ty
    where
        't: 'a,
    {
        match t.kind() {
            Some(Kind::TypeDescriptor) => {
                let base = t
                    .field(Field::Type)
                    .map_or_else(|| Ty::named(t.text()), |b| self.type_of(b, p));
                match t.field(Field::Declarator) {
                    Some(d) => Ty::named(format!("{base}{}", d.text().replace(' ', ""))),
                    None => base,
                }
            }
            Some(Kind::PrimitiveType | Kind::SizedTypeSpecifier) => {
                Ty::named(t.text().split_whitespace().collect::<Vec<_>>().join(" "))
            }
            Some(Kind::TypeIdentifier | Kind::Identifier | Kind::NamespaceIdentifier) => {
                let name = t.text();
                if let Some(Val::Type(ty)) = p.env.get(name) {
                    return ty.clone();
                }
                if let Some((sty, b)) = self.structs.last().cloned() {
                    if let Some(Val::Type(ty)) = b.get(name) {
                        return ty.clone();
                    }
                    if let Some(ty) = self.member_type(&sty, name) {
                        return ty;
                    }
                }
                let index = self.index;
                if let Some(alias) = index.aliases.get(name).copied() {
                    // `typedef struct {..} S;`: the struct is `S`.
                    if matches!(
                        alias.kind(),
                        Some(Kind::StructSpecifier | Kind::ClassSpecifier | Kind::UnionSpecifier)
                    ) && alias.field(Field::Name).is_none()
                    {
                        return Ty::named(name);
                    }
                    let key = format!("type {name}");
                    if !self.evaluating.contains(&key) && self.evaluating.len() < 64 {
                        self.evaluating.push(key);
                        let ty = self.type_of(alias, &Path::new());
                        self.evaluating.pop();
                        return ty;
                    }
                }
                Ty::named(name)
            }
            Some(Kind::TemplateType) => {
                let name = t.field(Field::Name).map_or("", |n| n.text()).to_owned();
                let args = t
                    .field(Field::Arguments)
                    .map(|a| self.template_args(a, p))
                    .unwrap_or_default();
                Ty {
                    name,
                    args: args
                        .into_iter()
                        .map(|a| a.unwrap_or_else(|why| TyArg::Type(Ty::named(format!("?{why}")))))
                        .collect(),
                }
            }
            Some(Kind::QualifiedIdentifier) => {
                let (Some(scope), Some(name)) = (t.field(Field::Scope), t.field(Field::Name))
                else {
                    return Ty::named(t.text());
                };
                if let Some(sty) = self.scope_type(scope, p)
                    && let Some(ty) = self.member_type(&sty, name.text())
                {
                    return ty;
                }
                let inner = self.type_of(name, p);
                if self.index.structs.contains_key(short(&inner.name)) {
                    return inner;
                }
                // A namespace-qualified type keeps its namespace (`cutlass::half_t`).
                Ty {
                    name: format!("{}::{}", scope.text(), inner.name),
                    args: inner.args,
                }
            }
            Some(Kind::StructSpecifier | Kind::ClassSpecifier) => match t.field(Field::Name) {
                Some(n) => self.type_of(n, p),
                None => Ty::named(t.text()),
            },
            _ => Ty::named(t.text().split_whitespace().collect::<Vec<_>>().join(" ")),
        }
    }

    fn cast(&self, ty: &str, v: Val) -> Val {
        match IntType::from_name(ty) {
            Some(t) => match v {
                Val::Int(x, _) => match t.convert(&x) {
                    Some(x) => Val::Int(x, t),
                    None => Val::unknown(format!("does not fit `{ty}`")),
                },
                other => other,
            },
            None if ty.trim() == "dim3" => match v.to_dim3() {
                Ok(d) => Val::Dim3(d),
                Err(_) => v,
            },
            // `(void*)kernel` and the like keep the kernel.
            None => v,
        }
    }

    /// A call's value: `dim3(...)`, `min` / `max`, casts, a helper of the unit
    /// (interpreted; `next_pow2`-like helpers recognised when their body is not), a
    /// function-like macro.
    fn eval_call<'a>(&mut self, e: At<'a>, p: &Path) -> Val
    where
        't: 'a,
    {
        let Some(function) = e.field(Field::Function) else {
            return Val::unknown("a call");
        };
        let args: Vec<At<'a>> = e
            .field(Field::Arguments)
            .map(|a| a.children())
            .unwrap_or_default();
        let (name, targs) = match function.kind() {
            Some(Kind::TemplateFunction) => (
                function.field(Field::Name).map_or("", |n| n.text()),
                function.field(Field::Arguments),
            ),
            _ => (function.text(), None),
        };
        let simple = name.rsplit("::").next().unwrap_or(name).trim();
        match simple {
            "dim3" | "uint3" | "make_uint3" => {
                let mut d = [
                    AbstractInt::known(1),
                    AbstractInt::known(1),
                    AbstractInt::known(1),
                ];
                for (i, a) in args.iter().take(3).enumerate() {
                    match self.eval(*a, p).as_int() {
                        Some((v, _)) => d[i] = v.clone(),
                        None => {
                            return Val::unknown(format!("`{}` is not read", clip(a.text(), 40)));
                        }
                    }
                }
                return Val::Dim3(d);
            }
            "min" | "max" | "fmin" | "fmax" | "imin" | "imax" | "umin" | "umax"
                if args.len() == 2 =>
            {
                let (a, b) = (self.eval(args[0], p), self.eval(args[1], p));
                let (Some((x, t)), Some((y, u))) = (a.as_int(), b.as_int()) else {
                    return Val::unknown(format!(
                        "`{}`: {}",
                        clip(e.text(), 40),
                        if a.as_int().is_none() {
                            a.why()
                        } else {
                            b.why()
                        }
                    ));
                };
                let r = if simple.ends_with("min") {
                    x.min(y)
                } else {
                    x.max(y)
                };
                return Val::Int(r, IntType::common(t, u));
            }
            "static_cast" | "reinterpret_cast" | "const_cast" => {
                let ty = targs
                    .map_or("", |a| a.text().trim_matches(|c| c == '<' || c == '>'))
                    .to_owned();
                let v = match args.first() {
                    Some(a) => self.eval(*a, p),
                    None => return Val::unknown("a cast"),
                };
                return self.cast(&ty, v);
            }
            _ => {}
        }
        let index = self.index;
        if function.kind() == Some(Kind::Identifier)
            && index
                .macros
                .get(simple)
                .is_some_and(|m| m.iter().any(|m| m.params.is_some()))
        {
            let open = e
                .field(Field::Arguments)
                .map(|a| a.node.start_byte())
                .unwrap_or(function.node.end_byte());
            let Some((args_text, _)) = paren_list(&e.code.text, open) else {
                return Val::unknown("a macro call that does not close");
            };
            let mut expander = Expander::new(&index.macros);
            return match expander.invoke(simple, Some(args_text)) {
                Ok(text) => self.eval_text(&text, e, p),
                Err(err) => Val::unknown(err.0),
            };
        }
        if self.callee(simple, None).is_some() {
            let values = match self.argument_values(&args, p) {
                Ok(values) => values,
                Err(why) => return Val::unknown(why),
            };
            let Some(f) = self.callee(simple, Some(values.len())) else {
                return Val::unknown(format!("`{simple}`: no overload"));
            };
            let results = self.call(f, function, &args, values, p.clone(), true);
            let mut value: Option<Val> = None;
            for (_, v) in results {
                let v = v.unwrap_or_else(|| {
                    Val::unknown(format!("`{simple}` returns no value the reader follows"))
                });
                value = Some(match value {
                    None => v,
                    Some(acc) => acc.join(&v),
                });
            }
            let v = value.unwrap_or_else(|| Val::unknown(format!("`{simple}` does not return")));
            if let Val::Int(x, _) = &v
                && (x.members().is_some() || !is_next_pow2(simple))
            {
                return v;
            }
            if is_next_pow2(simple) && args.len() == 1 {
                return self.next_pow2(args[0], p);
            }
            return v;
        }
        if is_next_pow2(simple) && args.len() == 1 {
            return self.next_pow2(args[0], p);
        }
        Val::unknown(format!(
            "`{}` calls `{simple}`, which the reader does not follow",
            clip(e.text(), 40)
        ))
    }

    fn next_pow2<'a>(&mut self, arg: At<'a>, p: &Path) -> Val
    where
        't: 'a,
    {
        match self.eval(arg, p) {
            Val::Int(x, t) => {
                let r = x.next_power_of_two();
                match t.convert(&r) {
                    Some(r) => Val::Int(r, t),
                    None => Val::unknown("overflow"),
                }
            }
            other => other,
        }
    }
}

/// The kernel expression of `cudaLaunchKernel((void*)k, ...)` without its casts.
fn strip_casts(mut at: At<'_>) -> At<'_> {
    for _ in 0..8 {
        match at.kind() {
            Some(Kind::CastExpression) => match at.field(Field::Value) {
                Some(v) => at = v,
                None => break,
            },
            Some(Kind::CallExpression)
                if at
                    .field(Field::Function)
                    .is_some_and(|f| f.text().contains("_cast")) =>
            {
                match at
                    .field(Field::Arguments)
                    .and_then(|a| a.children().first().copied())
                {
                    Some(v) => at = v,
                    None => break,
                }
            }
            Some(Kind::PointerExpression | Kind::ParenthesizedExpression) => {
                match at
                    .field(Field::Argument)
                    .or_else(|| at.children().first().copied())
                {
                    Some(v) => at = v,
                    None => break,
                }
            }
            _ => break,
        }
    }
    at
}

/// Whether `if (cond) body` (no `else`) runs its body once per program: `cond` reads a
/// `static` variable of the enclosing blocks (declared before the `if`), and the body
/// assigns that variable (`done = true;`, `raised[dev] = true;`).
fn once_guard(s: At<'_>, cond: At<'_>) -> bool {
    let Some(body) = s.field(Field::Consequence) else {
        return false;
    };
    let read = crate::index::identifiers(cond.text());
    let mut statics = Vec::new();
    let mut child = s.node;
    while let Some(parent) = child.parent() {
        if Kind::of(parent) == Some(Kind::FunctionDefinition) {
            break;
        }
        let mut cursor = parent.walk();
        for sibling in parent.children(&mut cursor) {
            if sibling.start_byte() >= child.start_byte() {
                break;
            }
            let d = s.with(sibling);
            if d.kind() == Some(Kind::Declaration)
                && d.children()
                    .iter()
                    .any(|c| c.kind() == Some(Kind::StorageClassSpecifier) && c.text() == "static")
            {
                for n in field_children(d.node, Field::Declarator) {
                    if let Some(name) = declared_name(d.with(n))
                        && read.contains(&name)
                    {
                        statics.push(name);
                    }
                }
            }
        }
        child = parent;
    }
    !statics.is_empty() && assigns_any(body, &statics, 0)
}

/// Whether `at` assigns one of `names` (`name = ..` or `name[..] = ..`), looked for at
/// most a few levels of statements down.
fn assigns_any(at: At<'_>, names: &[String], depth: usize) -> bool {
    if depth > 8 {
        return false;
    }
    if at.kind() == Some(Kind::AssignmentExpression)
        && let Some(left) = at.field(Field::Left)
    {
        let mut target = left;
        while target.kind() == Some(Kind::SubscriptExpression) {
            match target.field(Field::Argument) {
                Some(a) => target = a,
                None => break,
            }
        }
        if target.kind() == Some(Kind::Identifier) && names.iter().any(|n| n == target.text()) {
            return true;
        }
    }
    at.children()
        .into_iter()
        .any(|c| assigns_any(c, names, depth + 1))
}

fn short(name: &str) -> &str {
    name.rsplit("::").next().unwrap_or(name)
}

fn is_next_pow2(name: &str) -> bool {
    let n = name.to_ascii_lowercase().replace('_', "");
    (n.contains("pow2")
        || n.contains("poweroftwo")
        || n.contains("powerof2")
        || n.contains("pow_2"))
        && (n.contains("next") || n.contains("roundup") || n.contains("ceil"))
}

fn comparison(op: &str) -> Option<Comparison> {
    Some(match op {
        "<" => Comparison::Lt,
        "<=" => Comparison::Le,
        ">" => Comparison::Gt,
        ">=" => Comparison::Ge,
        "==" => Comparison::Eq,
        "!=" => Comparison::Ne,
        _ => return None,
    })
}

/// A C++ integer literal with its type, as the lowering reads it ([`crate::lower::number`]),
/// promoted.
fn number(text: &str) -> Val {
    // The grammar reads a sign written before the digits as part of the literal (`-1`):
    // the unary operator on the literal after it.
    if let Some(rest) = text.strip_prefix('-') {
        return match number(rest.trim_start()) {
            Val::Int(x, t) => match t.convert(&x.neg()) {
                Some(r) => Val::Int(r, t),
                None => Val::unknown("overflow"),
            },
            other => other,
        };
    }
    if let Some(rest) = text.strip_prefix('+') {
        return number(rest.trim_start());
    }
    match crate::lower::number(text) {
        Some((v, ty)) => Val::int(v, IntType::of(ty)),
        None => {
            let t = text.to_ascii_lowercase();
            let float = t.contains('.') || (t.contains('e') && !t.starts_with("0x"));
            Val::unknown(if float {
                format!("`{text}` is not an integer")
            } else {
                format!("`{text}` is not an integer the reader reads")
            })
        }
    }
}

/// `a op b` with C++'s conversions.
fn binary(op: &str, a: &Val, b: &Val) -> Val {
    let (Some((x, t)), Some((y, u))) = (a.as_int(), b.as_int()) else {
        let why = if a.as_int().is_none() {
            a.why()
        } else {
            b.why()
        };
        return Val::Unknown(why.into());
    };
    let ty = match op {
        "<<" | ">>" => t,
        _ => IntType::common(t, u),
    };
    let r = match op {
        "+" => x.add(y),
        "-" => x.sub(y),
        "*" => x.mul(y),
        "/" => x.div(y),
        "%" => x.rem(y),
        "<<" => x.shl(y),
        ">>" => x.shr(y),
        "&" | "|" | "^" => x.bitwise(op.chars().next().unwrap_or('&'), y),
        _ => return Val::unknown(format!("the operator `{op}`")),
    };
    // Operands converted to the common type first (unsigned wrap-around of a negative).
    let r = if matches!(ty, IntType::U32 | IntType::U64)
        && (x.bounds().0.is_some_and(|v| v < 0) || y.bounds().0.is_some_and(|v| v < 0))
    {
        match (ty.convert(x), ty.convert(y)) {
            (Some(x2), Some(y2)) => binary_raw(op, &x2, &y2).unwrap_or(r),
            _ => r,
        }
    } else {
        r
    };
    match ty.convert(&r) {
        Some(r) => Val::Int(r, ty),
        None => Val::unknown(format!("`{op}` overflows its type here")),
    }
}

fn binary_raw(op: &str, x: &AbstractInt, y: &AbstractInt) -> Option<AbstractInt> {
    Some(match op {
        "+" => x.add(y),
        "-" => x.sub(y),
        "*" => x.mul(y),
        "/" => x.div(y),
        "%" => x.rem(y),
        _ => return None,
    })
}

/// Two paths' knowledge joined (values united, conditions their common prefix), of the
/// same flow ([`PathState::same_flow`]: two returns return the union of their values), the
/// fold's mark kept ([`PathState::join`]).
fn join(a: &Path, b: &Path) -> Path {
    let mut env = Vars::default();
    for (k, v) in a.env.iter() {
        if let Some(w) = b.env.get(k) {
            env.insert(k.clone(), v.join(w));
        }
    }
    let common = a
        .conditions
        .iter()
        .zip(b.conditions.iter())
        .take_while(|(x, y)| x == y)
        .count();
    let types = a
        .types
        .iter()
        .filter(|(k, t)| b.types.get(k) == Some(t))
        .map(|(k, t)| (k.clone(), t.clone()))
        .collect();
    Path {
        env: Shared::new(env),
        types: Shared::new(types),
        conditions: Shared::new(a.conditions[..common].to_vec()),
        opt_ins: Shared::new(
            a.opt_ins
                .iter()
                .filter(|o| b.opt_ins.contains(o))
                .cloned()
                .collect(),
        ),
        flow: match (&a.flow, &b.flow) {
            (Flow::Return(Some(v)), Flow::Return(Some(w))) => Flow::Return(Some(v.join(w))),
            (Flow::Return(_), Flow::Return(_)) => Flow::Return(None),
            (flow, _) => flow.clone(),
        },
        // Paths of two targets joined are of neither: their device queries are run time.
        target: a.target.filter(|t| b.target == Some(*t)),
        chain_taken: a.chain_taken && b.chain_taken,
        excluded: Shared::default(),
        defs: Shared::default(),
        overflow: a.overflow.clone().or_else(|| b.overflow.clone()),
    }
}

fn set_config_field(c: &mut Config, field: &str, v: Val, sub: Option<&str>) {
    match (field, sub) {
        ("gridDim", None) => *c.grid = v.to_dim3().map_or(v, Val::Dim3),
        ("blockDim", None) => *c.block = v.to_dim3().map_or(v, Val::Dim3),
        ("gridDim" | "blockDim", Some(axis)) => {
            let target = if field == "gridDim" {
                &mut c.grid
            } else {
                &mut c.block
            };
            if let (Val::Dim3(d), Some((x, _))) = (&mut **target, v.as_int()) {
                match axis {
                    "x" => d[0] = x.clone(),
                    "y" => d[1] = x.clone(),
                    "z" => d[2] = x.clone(),
                    _ => {}
                }
            }
        }
        ("dynamicSmemBytes", _) => *c.smem = v,
        ("numAttrs", _) => *c.num_attrs = v,
        _ => {}
    }
}

fn right_text(v: &Val) -> String {
    match v {
        Val::Unknown(why) => why.to_string(),
        other => format!("{other:?}"),
    }
}

/// The names a statement assigns (`x = `, `x += `, `x++`), nested statements included.
/// The operands of `a && b && c` (parentheses looked through); `[cond]` otherwise.
fn conjuncts(cond: At<'_>) -> Vec<At<'_>> {
    let mut out = Vec::new();
    let mut stack = vec![cond];
    while let Some(c) = stack.pop() {
        if out.len() + stack.len() > 64 {
            out.push(c);
            continue;
        }
        match c.kind() {
            Some(Kind::ParenthesizedExpression) => match c.children().as_slice() {
                [inner] => stack.push(*inner),
                _ => out.push(c),
            },
            Some(Kind::BinaryExpression)
                if c.field(Field::Operator).is_some_and(|o| o.text() == "&&") =>
            {
                stack.extend(c.field(Field::Right));
                stack.extend(c.field(Field::Left));
            }
            _ => out.push(c),
        }
    }
    out
}

fn assigned_names(at: At<'_>, out: &mut Vec<String>, depth: usize) {
    if depth > 64 {
        return;
    }
    match at.kind() {
        Some(Kind::AssignmentExpression) => {
            if let Some(l) = at.field(Field::Left)
                && l.kind() == Some(Kind::Identifier)
                && !out.iter().any(|n| n == l.text())
            {
                out.push(l.text().to_owned());
            }
        }
        Some(Kind::UpdateExpression) => {
            if let Some(a) = at.field(Field::Argument)
                && a.kind() == Some(Kind::Identifier)
                && !out.iter().any(|n| n == a.text())
            {
                out.push(a.text().to_owned());
            }
        }
        _ => {}
    }
    for c in at.children() {
        assigned_names(c, out, depth + 1);
    }
}

/// Whether `s` is a `for` loop that declares its counters, whose body only launches
/// kernels or runs such loops, where the counters (its own and the nested loops') are read
/// only by the loops' own headers and by kernel arguments, never by a launch's
/// configuration or kernel: every iteration makes the same launches, so reading the body
/// once finds them all ([`Interp::exec_loop`]).
fn repeats_the_same_launches(s: At<'_>) -> bool {
    let mut counters = Vec::new();
    if !launch_loop(s, &mut counters, 0) {
        return false;
    }
    // Nothing but the counters is written (`k<<<g, b>>>(x, n++)` writes `n`).
    let mut written = Vec::new();
    assigned_names(s, &mut written, 0);
    written.iter().all(|w| counters.contains(w))
}

/// [`repeats_the_same_launches`] of the loop `s` inside loops with `counters`.
fn launch_loop(s: At<'_>, counters: &mut Vec<String>, depth: usize) -> bool {
    if depth > 16 || s.kind() != Some(Kind::ForStatement) {
        return false;
    }
    let (Some(init), Some(cond), Some(update), Some(body)) = (
        s.field(Field::Initializer),
        s.field(Field::Condition),
        s.field(Field::Update),
        s.field(Field::Body),
    ) else {
        return false;
    };
    // The header computes, and nothing else: no call (which could launch or write).
    if init.kind() != Some(Kind::Declaration)
        || [init, cond, update]
            .into_iter()
            .any(|h| contains_kind(h, Kind::CallExpression, 0))
    {
        return false;
    }
    let declared = declaration_names(init);
    // The update writes the counters by name and nothing else (`blk.x = 64`, `(b) *= 2`,
    // a macro that could write anything: not this rule); the condition writes nothing.
    if declared.is_empty()
        || !writes_only(update, &declared, true, 0)
        || !writes_only(cond, &[], false, 0)
        || !writes_only(init, &[], false, 0)
    {
        return false;
    }
    counters.extend(declared);
    launch_body(body, counters, depth)
}

/// Whether every write in `at` is an assignment or `++`/`--` of one of `names` by name,
/// with no call anywhere; `whole`: `at` is nothing but such writes, joined by commas (an
/// update that is an identifier may be a macro that writes).
fn writes_only(at: At<'_>, names: &[String], whole: bool, depth: usize) -> bool {
    if depth > 64 {
        return false;
    }
    let target = match at.kind() {
        Some(Kind::AssignmentExpression) => at.field(Field::Left),
        Some(Kind::UpdateExpression) => at.field(Field::Argument),
        Some(Kind::CallExpression) => return false,
        Some(Kind::CommaExpression) if whole => {
            return at
                .children()
                .into_iter()
                .all(|c| writes_only(c, names, true, depth + 1));
        }
        _ if whole => return false,
        _ => None,
    };
    if let Some(t) = target
        && !(t.kind() == Some(Kind::Identifier) && names.iter().any(|n| n == t.text()))
    {
        return false;
    }
    // The written value's expression (and anything else) writes nothing.
    let parts = match at.kind() {
        Some(Kind::AssignmentExpression) => at.field(Field::Right).into_iter().collect(),
        Some(Kind::UpdateExpression) => Vec::new(),
        _ => at.children(),
    };
    parts
        .into_iter()
        .all(|c| writes_only(c, &[], false, depth + 1))
}

fn launch_body(s: At<'_>, counters: &mut Vec<String>, depth: usize) -> bool {
    if depth > 64 {
        return false;
    }
    match s.kind() {
        Some(Kind::CompoundStatement) => s
            .children()
            .into_iter()
            .all(|c| launch_body(c, counters, depth + 1)),
        Some(Kind::ForStatement) => launch_loop(s, counters, depth + 1),
        Some(Kind::ExpressionStatement) => {
            let [call] = s.children()[..] else {
                return false;
            };
            let config = call
                .children()
                .into_iter()
                .find(|c| c.kind() == Some(Kind::KernelCallSyntax));
            match (call.kind(), call.field(Field::Function), config) {
                // A launch that writes nothing (`k<<<g, b>>>(x, n++)` would).
                // (and calls nothing: a helper or macro in an argument could write).
                (Some(Kind::CallExpression), Some(kernel), Some(config)) => {
                    call.field(Field::Arguments)
                        .is_some_and(|a| writes_only(a, &[], false, 0))
                        && !counters
                            .iter()
                            .any(|c| mentions(kernel.text(), c) || mentions(config.text(), c))
                }
                _ => false,
            }
        }
        _ => false,
    }
}

/// Whether a loop body does more than compute: calls, launches, `break`, `return`,
/// declarations.
/// Whether a node of `kind` is in `at` (depth-bounded; past the bound, yes).
fn contains_kind(at: At<'_>, kind: Kind, depth: usize) -> bool {
    if depth > 64 {
        return true;
    }
    at.kind() == Some(kind)
        || at
            .children()
            .into_iter()
            .any(|c| contains_kind(c, kind, depth + 1))
}

fn has_effects(at: At<'_>, depth: usize) -> bool {
    if depth > 64 {
        return true;
    }
    if matches!(
        at.kind(),
        Some(
            Kind::CallExpression
                | Kind::BreakStatement
                | Kind::ReturnStatement
                | Kind::GotoStatement
                | Kind::Declaration
        )
    ) {
        return true;
    }
    at.children().into_iter().any(|c| has_effects(c, depth + 1))
}

/// A launch value as a `dim3` of `u32`, or why not.
fn dims(v: &Val, what: &str) -> Read<[u32; 3]> {
    match v.to_dim3() {
        Ok(d) => dims_of(&d, what),
        Err(why) => Read::Unknown(why),
    }
}

/// Adds a condition to a path, once.
fn push_condition(p: &mut Path, condition: String) {
    if p.conditions.last() != Some(&condition) {
        p.conditions.push(condition);
    }
}

#[allow(dead_code)]
fn unused(_: &[At<'_>]) {
    let _ = template_params;
}

/// The names a block's own statements declare (variables and aliases; not those of the
/// blocks nested in it), each with whether an earlier statement of the block uses it.
fn block_names(block: At<'_>) -> Vec<(String, bool)> {
    let statements = block.children();
    let mut out: Vec<(String, bool)> = Vec::new();
    for (i, s) in statements.iter().enumerate() {
        let names = match s.kind() {
            Some(Kind::Declaration) => declaration_names(*s),
            Some(Kind::AliasDeclaration) => s
                .field(Field::Name)
                .map(|n| vec![n.text().to_owned()])
                .unwrap_or_default(),
            Some(Kind::TypeDefinition) => s
                .field(Field::Declarator)
                .map(|d| vec![d.text().trim().to_owned()])
                .unwrap_or_default(),
            _ => continue,
        };
        for name in names {
            if out.iter().any(|(n, _)| *n == name) {
                continue;
            }
            let used = statements[..i].iter().any(|e| mentions(e.text(), &name));
            out.push((name, used));
        }
    }
    out
}

/// The names of the variables a declaration statement declares.
fn declaration_names(d: At<'_>) -> Vec<String> {
    field_children(d.node, Field::Declarator)
        .into_iter()
        .filter_map(|n| {
            let n = d.with(n);
            let n = match n.kind() {
                Some(Kind::InitDeclarator) => n.field(Field::Declarator)?,
                _ => n,
            };
            declared_name(n)
        })
        .collect()
}

/// Whether `text` has `name` as a whole word.
fn mentions(text: &str, name: &str) -> bool {
    text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .any(|w| w == name)
}

/// The source texts of [`vexing_arguments`]' parameters, for messages.
fn args_text(declarator: At<'_>) -> Vec<&str> {
    declarator
        .field(Field::Parameters)
        .map(|ps| ps.children().into_iter().map(|c| c.text()).collect())
        .unwrap_or_default()
}

/// Whether the type written `ty` names no template parameter the path leaves unknown (a
/// parameter of a template the files never instantiate, bound to an unknown value): such
/// a type is no type a call could deduce.
/// Whether `f`'s parameters take `count` arguments: `Some(true)` through a parameter pack,
/// `Some(false)` without one, `None` if they cannot (`f(void)` takes none).
fn takes(f: &Function<'_>, count: usize) -> Option<bool> {
    let params: Vec<_> = f
        .params
        .iter()
        .filter(|p| !(p.name.is_empty() && p.ty.trim() == "void" && p.pointers == 0))
        .collect();
    let pack = params.iter().any(|p| p.pack);
    let fixed = params.iter().filter(|p| !p.pack).count();
    let required = params
        .iter()
        .filter(|p| !p.pack && p.default.is_none())
        .count();
    if pack {
        (count >= required).then_some(true)
    } else {
        (required <= count && count <= fixed).then_some(false)
    }
}

/// A template type pack that a function parameter pack declares (`class... Ts` of
/// `Ts... rest`), not given explicitly: one element per argument the parameter pack
/// takes of `count`. Its types are not read; its length tells the instantiations apart
/// (a variadic function that recurses on a shorter pack is another instantiation).
fn bind_type_packs(f: &Function<'_>, count: usize, path: &mut Path) {
    for t in f.template.iter().filter(|t| t.pack && t.is_type) {
        let Some(at) = f
            .params
            .iter()
            .position(|p| p.pack && p.ty.trim() == t.name)
        else {
            continue;
        };
        let n = count.saturating_sub(at);
        if matches!(path.env.get(&t.name), Some(Val::Pack(given)) if !given.is_empty()) {
            continue;
        }
        let why = format!(
            "a type of the pack `{}` of `{}`, deduced from an argument: not read",
            t.name, f.qualified
        );
        path.env
            .insert(t.name.clone(), Val::Pack(vec![Val::unknown(why); n]));
    }
}

fn names_known_types(ty: &str, p: &Path) -> bool {
    ty.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty())
        .all(|w| !matches!(p.env.get(w), Some(v) if !matches!(v, Val::Type(_))))
}
