//! The launches to check ([`Plan`]s): what the body launches, merged with the attribute's
//! `block`, `smem` and `grid` keys.
//!
//! - A value the body states (a literal, a constant the reader resolved, a member of a
//!   run-time set it enumerated) is used as is; a key that states other values is drift: an
//!   error on both spans.
//! - A value the body leaves to run time takes the key's candidates (which the reader has
//!   bound to the run-time value they stand for, where it could: see `reader/mod.rs`);
//!   without them, `block` and `smem` are an error at the body's expression saying how to
//!   give candidates and what bound is known, and `grid` is simply unknown (the grid lints
//!   then do not run).
//! - Each launch of each path is one plan per candidate of what it leaves to run time; the
//!   same configuration twice is one plan. Candidates are never paired with a value that
//!   depends on the same run-time input (that pairing may be one the code cannot make).
//! - Without a readable launch in the body, the keys alone make the plans (`block` is then
//!   required).
//!
//! Every value read from a name becomes a [`Confirmation`] for the compiler.

use occupancy_core::candidates::{Filled, Given as Filling, fill};
use occupancy_core::lint::bytes_text;
use proc_macro2::Span;
use syn::{Error, Ident};

use crate::ast::{Arg, Candidates, Dims, LaunchPair, Value};
use crate::errors::Errors;
use crate::reader::value::{Int, Term};
use crate::reader::{BodyLaunch, BodyRead, Field, RunTime, ir};
use crate::spec::{Confirmation, HelperCheck, Plan};

/// The most plans one wrapper checks (launches x run-time candidates).
pub(crate) const MAX_PLANS: usize = 64;

/// The attribute's `block`, `smem`, `grid` (their constants already resolved).
pub(crate) struct Keys<'a> {
    pub(crate) block: Option<&'a Arg<Candidates<Dims>>>,
    pub(crate) smem: Option<&'a Arg<Candidates<Value>>>,
    pub(crate) grid: Option<&'a Arg<Candidates<Dims>>>,
    /// `launches = [(block, smem), ..]`: pairs chosen together (never beside `block` and
    /// `smem`: `valid.rs` refuses that).
    pub(crate) launches: Option<&'a Arg<Vec<LaunchPair>>>,
    /// A `block`, `smem` or `launches` written but not read (its error is reported): a
    /// run-time value it would give is not reported again.
    pub(crate) malformed: bool,
}

impl Keys<'_> {
    /// The literal candidates, for the reader to bind to run-time values.
    pub(crate) fn candidates(&self) -> crate::reader::Candidates {
        crate::reader::Candidates {
            block: self.block.and_then(|arg| {
                literal_dims(&arg.value)
                    .map(|v| v.into_iter().map(|d| [d[0], d[1], d[2]]).collect())
            }),
            smem: self
                .smem
                .and_then(|arg| arg.value.items.iter().map(Value::literal).collect()),
            block_given: self.block.is_some() || self.launches.is_some(),
        }
    }
}

/// What [`plans`] gives besides the plans.
#[derive(Default)]
pub(crate) struct Read {
    pub(crate) confirmations: Vec<Confirmation>,
    pub(crate) helpers: Vec<HelperCheck>,
}

/// The plans for `keys` and the launches of `body` (`None`: the body was not read, with
/// why in `unread`).
pub(crate) fn plans(
    keys: &Keys<'_>,
    block_written: bool,
    body: Option<&BodyRead>,
    unread: Option<&str>,
    attribute: Span,
    out: &mut Read,
    errors: &mut Errors,
) -> Vec<Plan> {
    let launches: &[BodyLaunch] = body.map_or(&[], |b| b.launches.as_slice());
    for (span, message) in body.map_or(&[][..], |b| b.problems.as_slice()) {
        errors.push(Error::new(*span, message));
    }
    let mut plans = Vec::new();
    if launches.is_empty() {
        if keys.block.is_none() && keys.launches.is_none() {
            if block_written {
                // A malformed `block` was reported already: a "missing" error is noise.
                return Vec::new();
            }
            let message = match (body, unread) {
                (_, Some(why)) => format!(
                    "missing `block`: the body was not read ({why}); give the threads per \
                     block, e.g. `block = 256` or `block = (16, 16)`"
                ),
                // A function that launches nothing the reader can see: say so, what it
                // looks for, and that keys describe a launch made elsewhere.
                (Some(_), None) => "no launch found: the body builds no launch configuration \
                     the attribute reads (it looks for a cudarc `LaunchConfig { .. }` literal, \
                     inline or bound with `let`, `LaunchConfig::for_num_elems(n)`, a call of a \
                     function of the crate that returns a `LaunchConfig` (methods are not \
                     read), and cust's `launch!`); for a launch made elsewhere, describe it with \
                     keys: `block = 256` or `block = (16, 16)`, and `smem` and `grid` where it \
                     sets them"
                    .to_owned(),
                (None, None) => "missing `block`: there is no body to read; give the threads \
                     per block, e.g. `block = 256` or `block = (16, 16)`"
                    .to_owned(),
            };
            errors.push(Error::new(attribute, message));
            return Vec::new();
        }
        // The keys alone: the block and the shared memory are both the keys' (an absent
        // `smem` is 0 B, stated), paired as the shared rule pairs run-time values.
        let given = KeyCandidates::new(keys);
        let smem_stated = (keys.smem.is_none() && keys.launches.is_none()).then_some(Some(0));
        match fill(&given.given(), None, smem_stated.as_ref()) {
            Ok(filled) => {
                let pairs: Vec<_> = filled
                    .into_iter()
                    .filter_map(|f| {
                        let block = given.block(f.block?);
                        let smem = match f.smem {
                            Some(i) => given.smem(i),
                            None => (Vec::new(), Span::call_site()),
                        };
                        Some((block, smem))
                    })
                    .collect();
                let grids = grid_values(keys).unwrap_or_else(|| vec![(Vec::new(), attribute)]);
                push_plans(&pairs, &grids, &Shared::default(), &mut plans);
            }
            Err(refusal) => errors.push(Error::new(attribute, refusal_message(refusal))),
        }
    } else {
        let sites = launches
            .iter()
            .map(|l| l.record.site)
            .max()
            .map_or(0, |s| s + 1);
        for site in 0..sites {
            let rows: Vec<&BodyLaunch> =
                launches.iter().filter(|l| l.record.site == site).collect();
            let Some(first) = rows.first() else { continue };
            let name = match &first.record.name {
                Some(n) => format!("`{n}`"),
                None => format!("launch {}", site + 1),
            };
            let before = plans.len();
            site_plans(&rows, &name, keys, out, errors, &mut plans);
            if sites > 1 {
                for plan in &mut plans[before..] {
                    plan.label = Some(name.clone());
                }
            }
        }
    }
    dedupe(&mut plans);
    if plans.len() > MAX_PLANS {
        errors.push(Error::new(
            attribute,
            format!(
                "{} combinations of launches and candidates: at most {MAX_PLANS} are checked; \
                 give fewer candidates",
                plans.len()
            ),
        ));
        plans.truncate(MAX_PLANS);
    }
    label(&mut plans);
    plans
}

/// The three values of a launch, in the order of [`Row::values`].
const BLOCK: usize = 0;
const SMEM: usize = 1;
const GRID: usize = 2;
const FIELDS: [&str; 3] = ["block", "smem", "grid"];

/// A key and its literal candidates (`None` when one is a constant expression).
type Given<'k> = (&'k Ident, Option<Vec<Vec<u32>>>);

/// A value of one launch as the body gives it: known (each dimension, with the
/// confirmation it needs), or known only at run time.
type Values = Result<Vec<Int>, Box<RunTime>>;

/// One launch of the body: its block (3 values), dynamic shared memory (1) and grid (3).
struct Row<'b> {
    launch: &'b BodyLaunch,
    values: [Values; 3],
}

/// What the plans of one launch share besides their values.
#[derive(Default, Clone)]
struct Shared {
    origin: Option<String>,
    kernel: Option<String>,
    /// The launch call (see [`Plan::launches`]).
    launch: Option<Span>,
    notes: Vec<String>,
    range: Option<usize>,
}

/// Reports each message once per launch site (several paths of one launch may fail alike).
#[derive(Default)]
struct Reporter {
    reported: Vec<String>,
}

impl Reporter {
    fn report(&mut self, errors: &mut Errors, span: Span, message: String) {
        if !self.reported.contains(&message) {
            errors.push(Error::new(span, message.clone()));
            self.reported.push(message);
        }
    }
}

/// The plans of one launch site of the body: one per launch its paths make, times the keys'
/// candidates for what it leaves to run time.
fn site_plans(
    launches: &[&BodyLaunch],
    name: &str,
    keys: &Keys<'_>,
    out: &mut Read,
    errors: &mut Errors,
    plans: &mut Vec<Plan>,
) {
    let mut reporter = Reporter::default();
    let mut rows: Vec<Row<'_>> = Vec::new();
    for launch in launches {
        match &launch.record.error {
            Some(why) => reporter.report(errors, launch.span, why.clone()),
            None => rows.push(Row::of(launch)),
        }
    }
    if rows.is_empty() {
        return;
    }
    check_drift(&mut rows, name, keys, out, errors);
    let stated = Stated::of(&rows);
    // Launches of one path that differ only in the members of a run-time set: a range.
    let groups: Vec<usize> = rows.iter().map(|r| r.launch.record.group).collect();
    for row in rows {
        let members = groups
            .iter()
            .filter(|g| **g == row.launch.record.group)
            .count();
        row_plans(
            row,
            members,
            keys,
            &stated,
            out,
            errors,
            &mut reporter,
            plans,
        );
    }
}

/// The blocks and dynamic shared memory sizes the paths of one site state themselves (not
/// taken from the keys' candidates): a candidate equal to one, which a path where the value
/// is run time cannot take, is that launch of the site (`smem = [4 KiB, 16 KiB]` for
/// `ncols.min(4096) * 4`: 16 KiB where `ncols >= 4096`), checked on its own path.
#[derive(Default)]
struct Stated {
    blocks: Vec<[u32; 3]>,
    smems: Vec<u32>,
}

impl Stated {
    fn of(rows: &[Row<'_>]) -> Stated {
        let mut stated = Stated::default();
        for row in rows {
            let record = &row.launch.record;
            let (block, smem) = row.literals();
            if let (Some(Some(b)), false) = (block, record.block_from_key) {
                stated.blocks.push(b);
            }
            if let (Some(Some(s)), false) = (smem, record.smem_from_key || record.smem_from_block) {
                stated.smems.push(s);
            }
        }
        stated
    }

    /// Drops from `filled` the candidates another path of the site states (its launches):
    /// the rest stand for this path's run-time values (all of them where none is left:
    /// then the error says which).
    fn keep_own(&self, filled: &mut Vec<Filled>, launch: &BodyLaunch, given: &KeyCandidates<'_>) {
        let own: Vec<Filled> = filled
            .iter()
            .filter(|f| !self.elsewhere(launch, f, given))
            .cloned()
            .collect();
        if !own.is_empty() {
            *filled = own;
        }
    }

    /// Whether candidate `f` is one this row's run-time values cannot take and another path
    /// of the site states.
    fn elsewhere(&self, launch: &BodyLaunch, f: &Filled, given: &KeyCandidates<'_>) -> bool {
        let block = f.block.is_some_and(|i| {
            let (values, _) = given.block(i);
            let dims: Option<Vec<u32>> = values.iter().map(Value::literal).collect();
            let unreachable = launch.record.block.as_ref().is_ok_and(|fields| {
                fields
                    .iter()
                    .zip(&values)
                    .any(|(field, value)| outside(field, value).is_some())
            });
            unreachable
                && dims.is_some_and(|d| self.blocks.iter().any(|b| b.as_slice() == d.as_slice()))
        });
        let smem = f.smem.is_some_and(|i| {
            let (values, _) = given.smem(i);
            values.first().is_some_and(|value| {
                outside(&launch.record.smem, value).is_some()
                    && value.literal().is_some_and(|v| self.smems.contains(&v))
            })
        });
        block || smem
    }
}

impl<'b> Row<'b> {
    /// The block and the shared memory the row states: `None` where run time, `Some(None)`
    /// where known but not a literal `u32` (a value the compiler confirms).
    #[allow(clippy::type_complexity)]
    fn literals(&self) -> (Option<Option<[u32; 3]>>, Option<Option<u32>>) {
        let literal = |field: usize| -> Option<Option<Vec<u32>>> {
            let known = self.values[field].as_ref().ok()?;
            Some(
                known
                    .iter()
                    .map(|k| k.value().and_then(|v| u32::try_from(v).ok()))
                    .collect(),
            )
        };
        (
            literal(BLOCK).map(|d| d.and_then(|d| <[u32; 3]>::try_from(d).ok())),
            literal(SMEM).map(|d| d.and_then(|d| d.first().copied())),
        )
    }

    /// The values `launch` (read without an error) states.
    fn of(launch: &'b BodyLaunch) -> Row<'b> {
        let dims = |d: &Result<[Field; 3], String>| -> Values {
            match d {
                Ok(fields) => fields.iter().map(u32_value).collect::<Result<Vec<_>, _>>(),
                Err(why) => Err(Box::new(RunTime::unread(why.clone()))),
            }
        };
        Row {
            launch,
            values: [
                dims(&launch.record.block),
                u32_value(&launch.record.smem).map(|k| vec![k]),
                dims(&launch.record.grid),
            ],
        }
    }
}

/// Drift: a key that states other values than the body, where the body states them on every
/// path (`rows`, at least one), for `block`, `smem`, `grid` and `launches`. Where the key's
/// one value differs from the body's one reading only in values read from names, the key
/// wins and the compiler checks the body's expression against it (the reader may have
/// misread a name; the compiler settles it).
fn check_drift(
    rows: &mut [Row<'_>],
    name: &str,
    keys: &Keys<'_>,
    out: &mut Read,
    errors: &mut Errors,
) {
    let Some(first) = rows.first() else { return };
    let spans = [
        first.launch.block_span,
        first.launch.smem_span,
        first.launch.grid_span,
    ];

    // The keys' values: their literal candidates (`None` for a key with a constant the
    // front end could not read), each with its key.
    let given: [Option<Given<'_>>; 3] = [
        keys.block.map(|arg| (&arg.key, literal_dims(&arg.value))),
        keys.smem.map(|arg| {
            let values = arg
                .value
                .items
                .iter()
                .map(|v| v.literal().map(|v| vec![v]))
                .collect();
            (&arg.key, values)
        }),
        keys.grid.map(|arg| (&arg.key, literal_dims(&arg.value))),
    ];

    // A value a path takes from the key's candidates is the key's, not the body's: where
    // one does, the body does not state the field on every path (`n.min(512)`: 512, and
    // `n` below it, which the candidates stand for), and the candidates are checked
    // against the run-time value instead.
    let from_key: [bool; 3] = [BLOCK, SMEM, GRID].map(|field| {
        rows.iter().any(|r| {
            let record = &r.launch.record;
            match field {
                BLOCK => record.block_from_key,
                SMEM => record.smem_from_key || record.smem_from_block,
                _ => false,
            }
        })
    });
    let single = rows.len() == 1;
    for field in [BLOCK, SMEM, GRID] {
        let Some((key, Some(given))) = &given[field] else {
            continue;
        };
        if from_key[field] {
            continue;
        }
        let Some(body): Option<Vec<Vec<u32>>> = rows
            .iter()
            .map(|r| {
                r.values[field].as_ref().ok().map(|v| {
                    v.iter()
                        .map(|k| k.value().unwrap_or_default() as u32)
                        .collect()
                })
            })
            .collect()
        else {
            continue;
        };
        if same_set(given, &body) {
            continue;
        }
        let reconciled = single
            && given.len() == 1
            && rows[0].values[field]
                .as_mut()
                .is_ok_and(|v| reconcile(v, &given[0], FIELDS[field], spans[field], out));
        if !reconciled {
            let shown = |v: &[Vec<u32>]| match field {
                SMEM => list_text(v.iter().map(|b| bytes_text(u64::from(b[0])))),
                _ => dims_list(&v.iter().map(|d| [d[0], d[1], d[2]]).collect::<Vec<_>>()),
            };
            drift(
                errors,
                key,
                FIELDS[field],
                &shown(given),
                &shown(&body),
                spans[field],
                name,
            );
        }
    }

    // `launches` where the body states both values on every path: the pairs must be its.
    if let Some(arg) = keys.launches
        && !from_key[BLOCK]
        && !from_key[SMEM]
        && let Some(given) = arg
            .value
            .iter()
            .map(|p| Some((literal3(&three(&p.block))?, p.smem.literal()?)))
            .collect::<Option<Vec<([u32; 3], u32)>>>()
        && let Some(body) = rows
            .iter()
            .map(|r| {
                let b = r.values[BLOCK].as_ref().ok()?;
                let s = r.values[SMEM].as_ref().ok()?;
                let v = |k: &Int| k.value().and_then(|v| u32::try_from(v).ok());
                Some(([v(&b[0])?, v(&b[1])?, v(&b[2])?], v(&s[0])?))
            })
            .collect::<Option<Vec<([u32; 3], u32)>>>()
        && !same_set(&given, &body)
    {
        let shown = |v: &[([u32; 3], u32)]| {
            list_text(
                v.iter()
                    .map(|(b, s)| format!("({}, {})", dims_text(*b), bytes_text(u64::from(*s)))),
            )
        };
        drift(
            errors,
            &arg.key,
            "launches",
            &shown(&given),
            &shown(&body),
            spans[BLOCK],
            name,
        );
    }
}

/// The plans of one launch (`row`, one of the `members` launches of its path that differ
/// only in the members of a run-time set): each value as the body states it (confirmed
/// where read from a name); what it leaves to run time, the keys' candidates or pairs
/// (never crossed); else (block, smem) an error.
#[allow(clippy::too_many_arguments)]
fn row_plans(
    row: Row<'_>,
    members: usize,
    keys: &Keys<'_>,
    site: &Stated,
    out: &mut Read,
    errors: &mut Errors,
    reporter: &mut Reporter,
    plans: &mut Vec<Plan>,
) {
    let launch = row.launch;
    let spans = [launch.block_span, launch.smem_span, launch.grid_span];
    for field in [BLOCK, SMEM, GRID] {
        if let Ok(known) = &row.values[field] {
            known.iter().for_each(|k| confirm(k, spans[field], out));
        }
    }
    let (stated_block, stated_smem) = row.literals();
    let given = KeyCandidates::new(keys);
    // A value the attribute's candidate gives (bound to the run-time value it stands for)
    // is the candidate's: findings on it point at the candidate as written.
    let plan_spans = [
        stated_block
            .flatten()
            .filter(|_| launch.record.block_from_key)
            .and_then(|b| given.block_at(b))
            .unwrap_or(spans[BLOCK]),
        stated_smem
            .flatten()
            .filter(|_| launch.record.smem_from_key)
            .and_then(|b| given.smem_at(b))
            .unwrap_or(spans[SMEM]),
        spans[GRID],
    ];
    let stated = |field: usize| -> Option<(Vec<Value>, Span)> {
        let known = row.values[field].as_ref().ok()?;
        Some((
            known.iter().map(|k| lit(k, spans[field])).collect(),
            plan_spans[field],
        ))
    };
    let mut filled: Vec<Filled> =
        match fill(&given.given(), stated_block.as_ref(), stated_smem.as_ref()) {
            Ok(filled) => filled,
            Err(refusal) => {
                if !keys.malformed {
                    reporter.report(errors, launch.span, refusal_message(refusal));
                }
                return;
            }
        };
    site.keep_own(&mut filled, launch, &given);
    let mut from_keys: Vec<(usize, &RunTime)> = Vec::new();
    let mut missing = false;
    let block_taken = filled.iter().any(|f| f.block.is_some());
    // Shared memory computed from the run-time block: `block` candidates give both, and
    // the block's error says so (one error, asking for what fixes both).
    let smem_follows = launch.record.smem_from_block && row.values[BLOCK].is_err() && !block_taken;
    for (field, taken) in [
        (BLOCK, block_taken),
        (SMEM, filled.iter().any(|f| f.smem.is_some())),
    ] {
        if let Err(run_time) = &row.values[field] {
            if taken {
                from_keys.push((field, run_time));
            } else {
                // A malformed key's error stands; the shared memory's is in the block's.
                let reported_elsewhere = keys.malformed || (field == SMEM && smem_follows);
                if !reported_elsewhere {
                    let mut message = run_time_message(field, run_time, smem_follows);
                    if field == SMEM && block_taken && run_time.source.is_none() {
                        // The block took candidates, and this size is computed from a value
                        // that is not a name (`self.block * 4`): a candidate stands for a
                        // name only.
                        message.push_str(
                            "; where it is computed from the value the block is (`self.block * \
                             4`), bind that value to a name first (`let block = self.block;`) \
                             and use the name in both: the block's candidates then give it",
                        );
                    }
                    reporter.report(errors, spans[field], message);
                }
                missing = true;
            }
        }
    }
    if missing {
        return;
    }
    let grids = match &row.values[GRID] {
        Ok(_) => stated(GRID).into_iter().collect(),
        Err(run_time) => match grid_values(keys) {
            Some(values) => {
                from_keys.push((GRID, run_time));
                values
            }
            None => vec![(Vec::new(), spans[GRID])],
        },
    };
    let pairs: Vec<_> = filled
        .iter()
        .filter_map(|f| {
            let block = match f.block {
                Some(i) => given.block(i),
                None => stated(BLOCK)?,
            };
            let smem = match f.smem {
                Some(i) => given.smem(i),
                None => stated(SMEM)?,
            };
            Some((block, smem))
        })
        .collect();
    if let Some((span, message)) = unreachable_candidate(launch, &filled, &given) {
        reporter.report(errors, span, message);
        return;
    }
    // Candidates stand for the value as given, independently of the rest of the
    // launch: never paired with a value that depends on the same run-time input.
    let shared_input = shares_input(launch, &from_keys);
    if shared_input {
        reporter.report(
            errors,
            launch.span,
            "the attribute's candidates stand for values this launch also computes other \
             values from: checked independently, they would pair values the code cannot \
             launch together; bind the run-time value with `let` and compute the block and \
             the shared memory from it (the candidates then stand for it)"
                .to_owned(),
        );
        return;
    }
    confirm_path(launch, out);
    let shared = Shared {
        origin: launch.record.origin.clone(),
        kernel: launch.kernel.as_ref().map(|(k, _, _)| k.clone()),
        launch: Some(launch.span),
        notes: launch.record.notes.clone(),
        range: (members > 1).then_some(launch.record.group),
    };
    push_plans(&pairs, &grids, &shared, plans);
}

/// The first candidate the body's run-time value cannot take (`block = [256, 2000]` for
/// `block.min(1024)`, or for `w as u32` of a `u8`): no launch has it, so it is an error on
/// the candidate, where it is written.
fn unreachable_candidate(
    launch: &BodyLaunch,
    filled: &[Filled],
    given: &KeyCandidates<'_>,
) -> Option<(Span, String)> {
    let (v, span, what, bound) = first_unreachable(launch, filled, given)?;
    Some((
        span,
        format!(
            "the candidate {v} is not a value this launch's {what} can take: the body \
             computes it as {bound}; give the values it launches"
        ),
    ))
}

/// [`unreachable_candidate`]'s candidate: its value, where it is written, what it is for and
/// the values the body computes (`0..=1024`).
fn first_unreachable(
    launch: &BodyLaunch,
    filled: &[Filled],
    given: &KeyCandidates<'_>,
) -> Option<(i128, Span, &'static str, String)> {
    for f in filled {
        if let (Some(i), Ok(dims)) = (f.block, &launch.record.block) {
            let (values, span) = given.block(i);
            for (field, value) in dims.iter().zip(&values) {
                if let Some((v, bound)) = outside(field, value) {
                    return Some((v, span, "block", bound));
                }
            }
        }
        if let Some(i) = f.smem {
            let (values, span) = given.smem(i);
            if let Some((v, bound)) = values
                .first()
                .and_then(|value| outside(&launch.record.smem, value))
            {
                return Some((v, span, "dynamic shared memory", bound));
            }
        }
    }
    None
}

/// Candidate `value` when the run-time value `field` cannot take it: the value and the set
/// the body computes (`0..=1024`).
fn outside(field: &Field, value: &Value) -> Option<(i128, String)> {
    let Field::RunTime(RunTime { set: Some(set), .. }) = field else {
        return None;
    };
    let v = i128::from(value.literal()?);
    (!set.contains(v)).then(|| (v, set.to_string()))
}

/// Whether a value the attribute's candidates stand for (`from_keys`: the field and its
/// run-time value) depends on a run-time input the launch also takes member by member, or
/// another such value does: candidates checked independently would then pair values the
/// code cannot launch together.
fn shares_input(launch: &BodyLaunch, from_keys: &[(usize, &RunTime)]) -> bool {
    from_keys.iter().enumerate().any(|(i, (f, r))| {
        *f != GRID
            && (r.roots.iter().any(|s| launch.record.enumerated.contains(s))
                || from_keys[i + 1..]
                    .iter()
                    .any(|(g, q)| *g != GRID && r.roots.iter().any(|s| q.roots.contains(s))))
    })
}

/// What the compiler must confirm for the path of `launch`: the names it read (conditions,
/// constants its values no longer carry) and the helpers it called (each once).
fn confirm_path(launch: &BodyLaunch, out: &mut Read) {
    for (term, span) in &launch.reads {
        confirm_term(term, *span, out);
    }
    for (written, read, span) in &launch.helpers {
        let span = *span;
        if let (Some(written), Some(read)) = (
            ir::tokens(&ir::Expr::Path(written.clone(), ir::At::NONE), span),
            ir::tokens(&ir::Expr::Path(read.clone(), ir::At::NONE), span),
        ) && !out
            .helpers
            .iter()
            .any(|h| h.read.to_string() == read.to_string())
        {
            out.helpers.push(HelperCheck {
                written,
                read,
                span,
            });
        }
    }
}

/// The error for a block or shared memory known only at run time, with what is known of it
/// (`smem_follows`: the shared memory is computed from this block, and follows from its
/// candidates).
fn run_time_message(field: usize, run_time: &RunTime, smem_follows: bool) -> String {
    let (what, example) = match field {
        BLOCK => ("the block size", "block = [32, 1024]"),
        _ => ("the dynamic shared memory", "smem = [4 KiB, 64 KiB]"),
    };
    let shown = |v: i128| match field {
        SMEM => u64::try_from(v).map_or_else(|_| v.to_string(), bytes_text),
        _ => v.to_string(),
    };
    let bound = match run_time.set.as_ref().map(|s| s.bounds()) {
        Some((Some(lo), Some(hi))) if lo > 0 => {
            format!("it is between {} and {}", shown(lo), shown(hi))
        }
        Some((_, Some(hi))) => format!("it is at most {}", shown(hi)),
        Some((Some(lo), None)) if lo > 0 => format!("it is at least {}", shown(lo)),
        _ if run_time.int => "no bound is known".to_owned(),
        _ => String::new(),
    };
    let why = if bound.is_empty() {
        run_time.why.clone()
    } else {
        format!("{}; {bound}", run_time.why)
    };
    if field == BLOCK && smem_follows {
        return format!(
            "{what} of this launch is known only at run time ({why}), and its dynamic shared \
             memory is computed from it: give the block's candidates in the attribute, \
             `{example}`, and each is checked with the shared memory it gives (no `smem` \
             key); or check the launch when it runs with \
             `occupancy_core::device::check_launch` (feature `cudarc`)"
        );
    }
    format!(
        "{what} of this launch is known only at run time ({why}): give its candidates in the \
         attribute, `{example}`, and each is checked; or check the launch when it runs with \
         `occupancy_core::device::check_launch` (feature `cudarc`)"
    )
}

/// A launch value's dimensions (one for the shared memory; none: the default) and where
/// they are written.
type Spanned = (Vec<Value>, Span);

/// One plan for every (block, shared memory) of `pairs` with every grid of `grids` (an
/// empty value: the default, 0 B of shared memory, or no grid).
fn push_plans(
    pairs: &[(Spanned, Spanned)],
    grids: &[Spanned],
    shared: &Shared,
    plans: &mut Vec<Plan>,
) {
    for ((b, b_span), (s, s_span)) in pairs {
        for (g, g_span) in grids {
            plans.push(Plan {
                block: to3(b),
                smem: s.first().cloned().unwrap_or(Value::unspanned(0)),
                grid: (!g.is_empty()).then(|| to3(g)),
                label: None,
                block_span: (*b_span).into(),
                smem_span: (*s_span).into(),
                grid_span: (*g_span).into(),
                origin: shared.origin.clone(),
                kernel: shared.kernel.clone(),
                launches: shared.launch.into_iter().collect(),
                notes: shared.notes.clone(),
                range: shared.range,
            });
        }
    }
}

/// The attribute's `block` / `smem` candidates or `launches` pairs: their literal values
/// for the shared rule ([`fill`]; `None` for a constant expression, equal to no value the
/// body states), and each as values with the key's span.
struct KeyCandidates<'k> {
    keys: &'k Keys<'k>,
    block: Vec<Option<[u32; 3]>>,
    smem: Vec<Option<u32>>,
    pairs: Vec<(Option<[u32; 3]>, Option<u32>)>,
}

impl<'k> KeyCandidates<'k> {
    fn new(keys: &'k Keys<'k>) -> Self {
        KeyCandidates {
            keys,
            block: keys.block.map_or_else(Vec::new, |arg| {
                arg.value
                    .items
                    .iter()
                    .map(|d| literal3(&three(d)))
                    .collect()
            }),
            smem: keys.smem.map_or_else(Vec::new, |arg| {
                arg.value.items.iter().map(Value::literal).collect()
            }),
            pairs: keys.launches.map_or_else(Vec::new, |arg| {
                arg.value
                    .iter()
                    .map(|p| (literal3(&three(&p.block)), p.smem.literal()))
                    .collect()
            }),
        }
    }

    fn given(&self) -> Filling<'_, Option<[u32; 3]>, Option<u32>> {
        Filling {
            block: &self.block,
            smem: &self.smem,
            pairs: &self.pairs,
        }
    }

    /// Block candidate `i` (of the pairs when pairs were given).
    fn block(&self, i: usize) -> (Vec<Value>, Span) {
        match (self.keys.launches, self.keys.block) {
            (Some(arg), _) => {
                let block = &arg.value[i].block;
                (
                    three(block).to_vec(),
                    dims_span(block).unwrap_or(arg.key.span()),
                )
            }
            (None, Some(arg)) => {
                let block = &arg.value.items[i];
                let at = arg.value.list.then(|| dims_span(block)).flatten();
                (three(block).to_vec(), at.unwrap_or(arg.key.span()))
            }
            (None, None) => (Vec::new(), Span::call_site()),
        }
    }

    /// Shared memory candidate `i` (of the pairs when pairs were given).
    fn smem(&self, i: usize) -> (Vec<Value>, Span) {
        match (self.keys.launches, self.keys.smem) {
            (Some(arg), _) => {
                let smem = &arg.value[i].smem;
                (
                    vec![smem.clone()],
                    value_span(smem).unwrap_or(arg.key.span()),
                )
            }
            (None, Some(arg)) => {
                let smem = &arg.value.items[i];
                let at = arg.value.list.then(|| value_span(smem)).flatten();
                (vec![smem.clone()], at.unwrap_or(arg.key.span()))
            }
            (None, None) => (Vec::new(), Span::call_site()),
        }
    }

    /// Where the `block` candidate equal to `block` is written (its first number): the
    /// place of a finding on the launch that takes it in place of a run-time block.
    fn block_at(&self, block: [u32; 3]) -> Option<Span> {
        let arg = self.keys.block?;
        let i = self.block.iter().position(|c| *c == Some(block))?;
        dims_span(arg.value.items.get(i)?)
    }

    /// Where the `smem` candidate equal to `smem` is written, likewise.
    fn smem_at(&self, smem: u32) -> Option<Span> {
        let arg = self.keys.smem?;
        let i = self.smem.iter().position(|c| *c == Some(smem))?;
        value_span(arg.value.items.get(i)?)
    }
}

/// Where a value is written; `None` for a constant expression (its tokens, no one span).
fn value_span(value: &Value) -> Option<Span> {
    match value {
        Value::Lit { span, .. } => Some(*span),
        Value::Const(_) => None,
    }
}

/// Where a block or grid shape is written: its first number.
fn dims_span(dims: &Dims) -> Option<Span> {
    value_span(dims.dims.first()?)
}

/// Why the keys' candidates cannot fill a launch, with the attribute's way to give pairs.
fn refusal_message(refusal: occupancy_core::candidates::Refusal) -> String {
    format!("{refusal}: `launches = [(32, 128), (1024, 4 KiB)]`")
}

/// The `grid` key's candidates as values with the key's span.
fn grid_values(keys: &Keys<'_>) -> Option<Vec<(Vec<Value>, Span)>> {
    keys.grid.map(|arg| {
        arg.value
            .items
            .iter()
            .map(|d| (three(d).to_vec(), arg.key.span()))
            .collect()
    })
}

/// The literal dimensions of every candidate; `None` when one is a constant expression.
fn literal_dims(c: &Candidates<Dims>) -> Option<Vec<Vec<u32>>> {
    c.items
        .iter()
        .map(|d| literal3(&three(d)).map(|v| v.to_vec()))
        .collect()
}

fn to3(v: &[Value]) -> [Value; 3] {
    let one = || Value::unspanned(1);
    [
        v.first().cloned().unwrap_or_else(one),
        v.get(1).cloned().unwrap_or_else(one),
        v.get(2).cloned().unwrap_or_else(one),
    ]
}

/// The attribute's `given` over the body's reading `body`, where they differ only in values
/// read from names: those become the attribute's, each with an assertion that the body's
/// expression has that value. `false` (nothing changed) where a differing value is a
/// literal of the body: then it is drift.
fn reconcile(
    body: &mut [Int],
    given: &[u32],
    key: &'static str,
    span: Span,
    out: &mut Read,
) -> bool {
    let differing: Vec<usize> = (0..body.len().min(given.len()))
        .filter(|&i| body[i].value() != Some(i128::from(given[i])))
        .collect();
    if differing.iter().any(|&i| body[i].term.is_none()) {
        return false;
    }
    for i in differing {
        confirm_as(&body[i], i128::from(given[i]), Some(key), span, out);
        body[i] = Int::known(i128::from(given[i]), body[i].ty, None);
    }
    true
}

fn drift(
    errors: &mut Errors,
    key: &Ident,
    name: &str,
    given: &str,
    body: &str,
    body_span: Span,
    launch: &str,
) {
    let which = if launch.starts_with('`') {
        format!(" ({launch})")
    } else {
        String::new()
    };
    errors.push(Error::new(
        key.span(),
        format!(
            "`{name} = {given}` differs from what the body launches{which}: {body}; the \
             attribute must check the launch the body makes: remove `{name}` (the body states \
             it) or make them agree"
        ),
    ));
    let what = if name == "launches" {
        "(block, smem)"
    } else {
        name
    };
    errors.push(Error::new(
        body_span,
        format!("the body launches {what} {body} here, not {given}"),
    ));
}

/// One value of a launch as a `u32`: known, or known only at run time.
fn u32_value(f: &Field) -> Result<Int, Box<RunTime>> {
    match f {
        Field::Known(k)
            if k.value()
                .is_some_and(|v| (0..=i128::from(u32::MAX)).contains(&v)) =>
        {
            Ok(k.clone())
        }
        Field::Known(k) => Err(Box::new(RunTime::unread(format!(
            "{} is not a u32",
            k.value().unwrap_or_default()
        )))),
        Field::RunTime(r) => Err(Box::new(r.clone())),
    }
}

fn lit(k: &Int, span: Span) -> Value {
    Value::Lit {
        value: k.value().unwrap_or_default() as u32,
        span,
    }
}

/// Records the compiler's confirmation of `k`, if it was read from names.
pub(crate) fn confirm(k: &Int, span: Span, out: &mut Read) {
    if let Some(value) = k.value() {
        confirm_as(k, value, None, span, out);
    }
}

/// Records the compiler's confirmation of a name read on a launch's path (a condition, a
/// constant combined with a run-time value), at `span`.
pub(crate) fn confirm_term(term: &Term, span: Span, out: &mut Read) {
    let k = Int::known(term.value, None, Some(term.clone()));
    confirm_as(&k, term.value, None, span, out);
}

fn confirm_as(k: &Int, value: i128, key: Option<&'static str>, span: Span, out: &mut Read) {
    let Some(term) = &k.term else { return };
    let Some(expr) = ir::tokens(&term.expr, span) else {
        return;
    };
    let text = expr.to_string();
    if out
        .confirmations
        .iter()
        .any(|c| c.value == value && c.expr.to_string() == text)
    {
        return;
    }
    out.confirmations.push(Confirmation {
        expr,
        value,
        in_body: term.in_body,
        text: ir::text(&term.expr),
        what: term.names.join("; "),
        from_attribute: key,
        span,
        // Set by the front end once the wrapper's generic parameters are known (`lib.rs`).
        shareable: false,
    });
}

fn literal3(v: &[Value; 3]) -> Option<[u32; 3]> {
    Some([v[0].literal()?, v[1].literal()?, v[2].literal()?])
}

fn same_set<T: PartialEq>(a: &[T], b: &[T]) -> bool {
    a.iter().all(|x| b.contains(x)) && b.iter().all(|x| a.contains(x))
}

/// `(128, 1, 1)` as `128`, `(16, 16, 1)` as `(16, 16)`.
pub(crate) fn dims_text(d: [u32; 3]) -> String {
    match d {
        [x, 1, 1] => x.to_string(),
        [x, y, 1] => format!("({x}, {y})"),
        [x, y, z] => format!("({x}, {y}, {z})"),
    }
}

fn dims_list(v: &[[u32; 3]]) -> String {
    let mut distinct: Vec<[u32; 3]> = Vec::new();
    for d in v {
        if !distinct.contains(d) {
            distinct.push(*d);
        }
    }
    list_text(distinct.into_iter().map(dims_text))
}

fn list_text(items: impl Iterator<Item = String>) -> String {
    let mut items: Vec<String> = items.collect();
    items.dedup();
    match items.len() {
        1 => items.remove(0),
        n if n > 12 => format!(
            "[{}, ..., {}] ({n} values)",
            items[..3].join(", "),
            items[n - 1]
        ),
        _ => format!("[{}]", items.join(", ")),
    }
}

/// x, y, z from one to three dimensions (missing ones are 1).
pub(crate) fn three(dims: &Dims) -> [Value; 3] {
    let mut values = dims.dims.iter().cloned();
    [
        values.next().unwrap_or(Value::unspanned(1)),
        values.next().unwrap_or(Value::unspanned(1)),
        values.next().unwrap_or(Value::unspanned(1)),
    ]
}

/// The same configuration twice (from two arms, or a key candidate equal to another) is
/// checked once.
fn dedupe(plans: &mut Vec<Plan>) {
    let key = |p: &Plan| {
        let v = |x: &Value| x.literal();
        (
            p.block.iter().map(v).collect::<Vec<_>>(),
            v(&p.smem),
            p.grid.as_ref().map(|g| g.iter().map(v).collect::<Vec<_>>()),
            p.label.clone(),
            p.kernel.clone(),
        )
    };
    // The first plan of each configuration, and the launch calls of the others that make it.
    let mut seen: Vec<(_, usize)> = Vec::new();
    let mut kept: Vec<Plan> = Vec::new();
    for p in plans.drain(..) {
        let k = key(&p);
        // Constant expressions cannot be compared: keep them all.
        if k.0.iter().any(Option::is_none) || k.1.is_none() {
            kept.push(p);
            continue;
        }
        match seen.iter().find(|(s, _)| *s == k) {
            Some(&(_, i)) => {
                for span in p.launches {
                    // `Span` has no equality; its `Debug` is its position (`bytes(lo..hi)`)
                    // where positions are known, as in the report that reads the list.
                    let at = |s: &Span| format!("{s:?}");
                    if !kept[i].launches.iter().any(|s| at(s) == at(&span)) {
                        kept[i].launches.push(span);
                    }
                }
            }
            None => {
                seen.push((k, kept.len()));
                kept.push(p);
            }
        }
    }
    *plans = kept;
}

/// Names each plan by what tells it apart from the others: its launch (when the body has
/// several), then its block, shared memory and grid where they differ.
fn label(plans: &mut [Plan]) {
    if plans.len() < 2 {
        return;
    }
    let blocks: Vec<Option<[u32; 3]>> = plans.iter().map(|p| literal3(&p.block)).collect();
    let smems: Vec<Option<u32>> = plans.iter().map(|p| p.smem.literal()).collect();
    let grids: Vec<Option<[u32; 3]>> = plans
        .iter()
        .map(|p| p.grid.as_ref().and_then(literal3))
        .collect();
    let differs = |v: &[Option<_>]| v.windows(2).any(|w| w[0] != w[1]);
    let (db, ds, dg) = (
        differs(&blocks),
        differs(
            &smems
                .iter()
                .map(|s| s.map(|s| [s, 0, 0]))
                .collect::<Vec<_>>(),
        ),
        differs(&grids),
    );
    for (i, plan) in plans.iter_mut().enumerate() {
        let mut parts: Vec<String> = plan.label.take().into_iter().collect();
        if db && let Some(b) = blocks[i] {
            parts.push(format!("block = {}", dims_text(b)));
        }
        if ds && let Some(s) = smems[i] {
            parts.push(format!("smem = {}", bytes_text(u64::from(s))));
        }
        if dg && let Some(g) = grids[i] {
            parts.push(format!("grid = {}", dims_text(g)));
        }
        plan.label = (!parts.is_empty()).then(|| parts.join(", "));
    }
}
