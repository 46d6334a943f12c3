//! The one launch record and its enumeration: the launches one path's record
//! ([`LaunchRec`]) stands for, one per combination of the members of the run-time sets its
//! values depend on, each a [`Launch`] with its kernel, block, dynamic shared memory and
//! grid known or run time (why, and what is known of them).
//!
//! ```text
//! interp: LaunchRec per path ──launches()──▶ Launch per combination of members ──front end──▶ plans
//!         (values with run-time sets,         (at most 64 per record; otherwise
//!          the members each path allows)       one Launch saying why not)
//! ```
//!
//! A record is located by the IR's [`At`]s: the front end maps them to its own places (a
//! span, a file and line). Its last fields are those only the C++ reader fills today (a
//! kernel's template arguments, its translation unit, the cluster, the opt-in, the
//! shared memory placed at a limit, the path's conditions and targets): the C++ reader
//! turns each of its paths into a record before checking it.

use std::borrow::Cow;
use std::fmt;
use std::rc::Rc;

use serde::Serialize;

use occupancy_core::abstract_int::AbstractInt;

use crate::interp::{HelperRead, Interp, LaunchRec, SourceKey};
use crate::ir::{At, IntTy};
use crate::value::{self, ChoiceId, Int, Kernel, Term, Val};

/// The most launches one launch site of one path expands to (the members of the run-time
/// sets it depends on).
pub const MAX_MEMBER_LAUNCHES: usize = 64;

/// A value of one launch: known, or known only at run time (why, and what is known of it).
#[derive(Clone, Debug)]
pub enum Field {
    /// The value on this launch.
    Known(Int),
    /// Known only at run time.
    RunTime(RunTime),
}

/// A value known only at run time.
#[derive(Clone, Debug)]
pub struct RunTime {
    /// Why (the first run-time input it depends on).
    pub why: String,
    /// What is known of it (bounds, when any).
    pub set: Option<AbstractInt>,
    /// The binding it is exactly the value of, if any: the attribute's candidates stand for
    /// it in a second reading.
    pub source: Option<SourceKey>,
    /// The run-time inputs it depends on.
    pub roots: Vec<value::SourceId>,
    /// It is an integer (of which the reader may know bounds).
    pub int: bool,
    /// C++: it is one run-time input's value, or that value moved by literals (`cols *
    /// 4`): a finite `set` is that input's range, not values chosen apart, and is not
    /// taken member by member (the check takes its largest, as of an interval).
    pub one_input: bool,
}

impl Field {
    /// The value when known and a `u32` (a block dimension, a size in bytes).
    pub fn known_u32(&self) -> Option<u32> {
        match self {
            Field::Known(k) => k.value().and_then(|v| u32::try_from(v).ok()),
            Field::RunTime(_) => None,
        }
    }
}

impl RunTime {
    /// A value the reader knows nothing of, but `why`: no bounds, source or inputs.
    pub fn unread(why: String) -> RunTime {
        RunTime {
            why,
            set: None,
            source: None,
            roots: Vec::new(),
            int: false,
            one_input: false,
        }
    }
}

/// One launch one path makes, with the members of the run-time sets it depends on fixed:
/// the record both front ends turn into plans.
#[derive(Clone, Debug)]
pub struct Launch {
    /// The launch site (0, 1, ... in the order the reading first reaches them).
    pub site: usize,
    /// The name its configuration is bound to (`cfg`), if any.
    pub name: Option<String>,
    /// The whole launch: the call or the construction.
    pub at: At,
    /// Where its block, dynamic shared memory and grid are written (the launch's `at` where
    /// the configuration does not say).
    pub block_at: At,
    /// See `block_at`.
    pub smem_at: At,
    /// See `block_at`.
    pub grid_at: At,
    /// Threads per block, x, y, z; `Err`: the whole value is not a tuple of three (why).
    pub block: Result<[Field; 3], String>,
    /// Dynamic shared memory per block, bytes.
    pub smem: Field,
    /// Blocks in the grid, x, y, z; `Err` as for `block`.
    pub grid: Result<[Field; 3], String>,
    /// The kernel its path launches, when named (a name or a glob, and where).
    pub kernel: Option<Kernel>,
    /// What built the configuration (`a LaunchConfig { .. } literal via the helper ..`).
    pub origin: Option<String>,
    /// Launches of one path that differ only in the members of its run-time sets share it.
    pub group: usize,
    /// What the members of those sets are, for notes.
    pub notes: Vec<String>,
    /// Names read on the path (conditions, constants the values no longer carry): the
    /// compiler confirms each.
    pub reads: Vec<Rc<Term>>,
    /// Helpers called on the path, each confirmed by the compiler.
    pub helpers: Vec<HelperRead>,
    /// Why this launch cannot be read as the code makes it, when it cannot.
    pub error: Option<String>,
    /// Made on the fold of the paths past the bound (`error` says why): the front end
    /// reports the fold where the paths split, and the site makes launches not listed.
    pub folded: bool,
    /// The run-time inputs of the sets taken member by member for it: a value from one of
    /// them cannot take the attribute's candidates independently.
    pub enumerated: Vec<value::SourceId>,
    /// Its path takes the attribute's `block` candidates, bound to the run-time value they
    /// stand for ([`BLOCK_CANDIDATES`]).
    pub block_from_key: bool,
    /// Its path takes the attribute's `smem` candidates, likewise.
    pub smem_from_key: bool,
    /// Its dynamic shared memory, known only at run time, follows from the block's run-time
    /// value alone (`shared_mem_bytes: block * 4`): `block` candidates give it too (set by
    /// the front end, from a reading with candidates for the block).
    pub smem_from_block: bool,
    /// The kernel's template arguments in order: empty for a kernel that is no template
    /// (every Rust launch); `None` where the launch names a template whose arguments are
    /// not known (deduced from the call's arguments, a template parameter never
    /// instantiated).
    pub template_args: Option<Vec<TemplateArg>>,
    /// The source file whose translation unit makes the launch, relative to the crate (a
    /// kernel with internal linkage is that file's); `None` for a Rust launch.
    pub translation_unit: Option<String>,
    /// Set where the dynamic shared memory grows with the input past a limit and this
    /// launch stands for the most that launches or the first value above it.
    pub smem_limit: Option<SmemLimit>,
    /// The thread-block cluster, blocks x, y, z, where the launch sets one.
    pub cluster: Option<[u32; 3]>,
    /// The dynamic shared memory opt-in made for the kernel before the launch on this
    /// path, bytes (`cudaFuncAttributeMaxDynamicSharedMemorySize`).
    pub opt_in_bytes: Option<u32>,
    /// The opt-in made for the kernel on this path is a value known only at run time.
    pub opt_in_at_run_time: bool,
    /// The choices that lead here, in order (`head_dim == 64`, `block = 256`): how
    /// messages tell the paths of one launch apart.
    pub conditions: Vec<String>,
    /// The targets this path is of, where its values are what the device answers there;
    /// empty: of every target.
    pub targets: Vec<String>,
}

/// A template argument of a kernel instantiation.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum TemplateArg {
    /// A type, as C++ spells it after resolving aliases the file makes (`float`, `__half`).
    Type(String),
    /// A non-type argument's value (`64`).
    Value(i128),
    /// A `bool` argument.
    Bool(bool),
}

impl fmt::Display for TemplateArg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TemplateArg::Type(t) => f.write_str(t),
            TemplateArg::Value(v) => write!(f, "{v}"),
            TemplateArg::Bool(b) => write!(f, "{b}"),
        }
    }
}

/// A kernel with its template arguments as messages name it: `softmax`,
/// `flash_fwd<float, 64>`, `flash_fwd<?>` (arguments not known).
pub fn instantiation_text(name: &str, args: Option<&[TemplateArg]>) -> String {
    match args {
        Some([]) => name.to_owned(),
        Some(args) => {
            let args: Vec<String> = args.iter().map(ToString::to_string).collect();
            format!("{name}<{}>", args.join(", "))
        }
        None => format!("{name}<?>"),
    }
}

/// A dynamic shared memory placed at a limit it grows past: see [`Launch::smem_limit`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct SmemLimit {
    /// The limit on static + dynamic shared memory per block, bytes (49152 without an
    /// opt-in).
    pub limit_bytes: u32,
    /// The step of the values the code computes (4 for `n * sizeof(float)`), bytes.
    pub step_bytes: u32,
    /// The first value above the limit (else the most that launches).
    pub above: bool,
}

impl Launch {
    /// The launch at `at`, site `site`, with no kernel, values or notes yet: of no
    /// template, translation unit, cluster, opt-in, condition or target.
    pub fn new(site: usize, at: At) -> Launch {
        Launch {
            site,
            name: None,
            at,
            block_at: at,
            smem_at: at,
            grid_at: at,
            block: Err(String::new()),
            smem: Field::RunTime(RunTime::unread(String::new())),
            grid: Err(String::new()),
            kernel: None,
            origin: None,
            group: 0,
            notes: Vec::new(),
            reads: Vec::new(),
            helpers: Vec::new(),
            error: None,
            folded: false,
            enumerated: Vec::new(),
            block_from_key: false,
            smem_from_key: false,
            smem_from_block: false,
            template_args: Some(Vec::new()),
            translation_unit: None,
            smem_limit: None,
            cluster: None,
            opt_in_bytes: None,
            opt_in_at_run_time: false,
            conditions: Vec::new(),
            targets: Vec::new(),
        }
    }

    /// The kernel with its template arguments as messages name it (`flash_fwd<float, 64>`),
    /// when the path names one.
    pub fn kernel_text(&self) -> Option<String> {
        self.kernel
            .as_ref()
            .map(|k| instantiation_text(&k.name, self.template_args.as_deref()))
    }

    /// `at`, or the launch's own place where `at` is [`At::NONE`] (a name read or a helper
    /// called outside the lowered body).
    pub fn at_or_launch(&self, at: At) -> At {
        if at.0 == At::NONE.0 { self.at } else { at }
    }

    /// The same launch site and path, with no values or notes yet.
    fn clone_shape(&self) -> Launch {
        Launch {
            block: Err(String::new()),
            smem: Field::RunTime(RunTime::unread(String::new())),
            grid: Err(String::new()),
            notes: Vec::new(),
            ..self.clone()
        }
    }
}

/// What the attribute's candidates are called once bound to the run-time value they stand
/// for (the text of the run-time set they make).
pub const BLOCK_CANDIDATES: &str = "the attribute's `block`";
/// See [`BLOCK_CANDIDATES`].
pub const SMEM_CANDIDATES: &str = "the attribute's `smem`";

/// Every launch the interpreter's records stand for, in the order of the paths that make
/// them: each record's launch site numbered in the order the reading first reaches it, its
/// launches (one per combination of members) sharing the record's `group`.
pub fn launches(interp: &Interp<'_>) -> Vec<Launch> {
    let mut sites: Vec<u32> = Vec::new();
    let mut out = Vec::new();
    for (group, rec) in interp.launches.iter().enumerate() {
        let site = match sites.iter().position(|s| *s == rec.at.0) {
            Some(i) => i,
            None => {
                sites.push(rec.at.0);
                sites.len() - 1
            }
        };
        out.extend(instances(interp, rec, site, group));
    }
    out
}

/// The launches of one record: one per combination of the members of the run-time sets its
/// values depend on (the sets bound to names, then the sets written inline in a field).
fn instances(interp: &Interp<'_>, rec: &LaunchRec, site: usize, group: usize) -> Vec<Launch> {
    let mut base = base_launch(rec, site, group);
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
        .chain(rec.fixed.iter().map(|(c, _)| *c))
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
        // A member on a path of its own names it (`block = 64`, a loop's exit).
        for (c, m) in &rec.fixed {
            if let Some(info) = interp.choices.get(*c as usize)
                && info.on_own_paths
                && let Some(v) = info.members.get(*m)
            {
                l.conditions.push(format!("{} = {v}", info.name));
            }
        }
        // Each member taken names the launch (`nthreads = 128`).
        for ((c, members), i) in choices.iter().zip(&combo) {
            if let Some(info) = interp.choices.get(*c as usize)
                && members.len() > 1
                && !info.text.starts_with("the attribute's")
                && let Some(v) = members.get(*i).and_then(|m| info.members.get(*m))
            {
                l.conditions.push(format!("{} = {v}", info.name));
            }
        }
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
                l.smem = field(&driven(&c.smem), interp);
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
fn base_launch(rec: &LaunchRec, site: usize, group: usize) -> Launch {
    let config_at = match &rec.config {
        Val::Config(c) => c.at,
        _ => [rec.at; 4],
    };
    let bare = Launch::new(site, rec.at);
    Launch {
        name: rec.name.clone(),
        block_at: bare.at_or_launch(config_at[0]),
        smem_at: bare.at_or_launch(config_at[1]),
        grid_at: bare.at_or_launch(config_at[2]),
        kernel: rec.kernel.clone(),
        folded: rec.folded.is_some(),
        conditions: rec.conditions.clone(),
        opt_in_bytes: rec
            .opt_in
            .as_ref()
            .and_then(Int::value)
            .and_then(|v| u32::try_from(v).ok()),
        opt_in_at_run_time: rec.opt_in.as_ref().is_some_and(|i| i.value().is_none()),
        template_args: rec
            .kernel
            .as_ref()
            .map_or(Some(Vec::new()), |k| k.template_args.clone()),
        origin: match &rec.config {
            Val::Config(c) => {
                let mut from = c.origin.clone();
                from.reverse();
                Some(from.join(" via "))
            }
            _ => None,
        },
        group,
        reads: rec.reads.clone(),
        helpers: rec.helpers.clone(),
        ..bare
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
    if let Some(why) = &rec.folded {
        return Some(why.to_string());
    }
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

fn bounded_instances(mut out: Vec<Launch>, base: &Launch) -> Vec<Launch> {
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
/// with a set taken member by member already: then the pairs are not known. A set that is
/// one input's range ([`RunTime::one_input`]) is left to the check, as an interval is.
fn inline_sets(l: Launch, texts: &[Rc<str>; 2]) -> Vec<Launch> {
    let set_of = |f: &Field| match f {
        Field::RunTime(r) => r
            .set
            .as_ref()
            .and_then(|s| s.members().map(<[i128]>::to_vec))
            .filter(|m| m.len() > 1)
            .map(|m| (m, r.roots.clone(), r.one_input)),
        Field::Known(_) => None,
    };
    let block_set = match &l.block {
        Ok([x, _, _]) => set_of(x),
        Err(_) => None,
    };
    let smem_set = set_of(&l.smem);
    let ((members, roots, one_input), is_block) = match (block_set, smem_set) {
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
    // One input's range: the launch's value at run time, as an interval is.
    if one_input {
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

/// The dynamic shared memory a launch of `smem` bytes asks the driver for: its low 32
/// bits (`cuLaunchKernel` takes an `unsigned int`; the runtime's `size_t` is cut to it:
/// `<<<1, 64, (1 << 32) + 64>>>` launches with 64 bytes and 2^64 - 5, a negative `int`
/// of -1 times 5 converted to `size_t`, fails as 2^32 - 5 does; measured on an H200,
/// driver 580.159.04). A set of more than one turn of 2^32 is any `u32`. Taken where
/// every value is 2^32 or more (the sizes of a negative `int` converted); a size that
/// grows with an input from below 2^32 stays as it is, read as the launch failing past
/// the device's limit (its values of 2^32 and more wrap, but only inputs of 2^30 and more
/// elements make them).
fn driven(smem: &Val) -> Cow<'_, Val> {
    match smem {
        Val::Int(i) if i.set.bounds().0.is_some_and(|lo| lo > i128::from(u32::MAX)) => {
            Cow::Owned(value::cast(i, IntTy::U32).val)
        }
        other => Cow::Borrowed(other),
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
            one_input: interp.mode.lang == value::Lang::Cpp
                && (i.source.is_some() || i.moved.is_some()),
        }),
        Val::Unknown(u) => Field::RunTime(RunTime {
            source: source(u.source),
            roots: u.roots.clone(),
            ..RunTime::unread(u.why.to_string())
        }),
        Val::Bool(_) | Val::Str(_) | Val::Kernel(_) | Val::Builder(_) => {
            Field::RunTime(RunTime::unread("a value that is not an integer".to_owned()))
        }
        _ => Field::RunTime(RunTime::unread(
            "a tuple where a number was expected".to_owned(),
        )),
    }
}

/// `1, 2, 4` or `1, 2, 4, ..., 1024` for a long list.
fn list(values: &[i128]) -> String {
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
