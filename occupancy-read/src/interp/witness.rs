//! Witnesses: values of run-time inputs that take every way a path went, for the tests no
//! range of an input can hold (`(n + 15) / 16 < (n + 7) / 8`, `tiles_x * tiles_y % sms !=
//! 0`). A comparison keeps a [`Probe`] of its operands; where it and another test of the
//! same input would make a path uncertain ([`Interp::decide`]), [`Interp::witness`] searches
//! values of the inputs the path's tests relate, and a path with a witness is one some run
//! of the code takes.

use std::rc::Rc;

use occupancy_core::abstract_int::Comparison;

use super::{Interp, Path, SourceId, Val};
use crate::ir::{self, Expr, IntTy};
use crate::value::{self, Int};

/// A comparison of run-time inputs, each moved by known values, with each other or with
/// constants (`(n + 15) / 16 < (n + 7) / 8`, `tiles_x * tiles_y % sms != 0`), which ranges
/// of the inputs cannot follow: tried at concrete values of the inputs, to find values that
/// take every way a path went ([`Interp::witness`]).
#[derive(Debug, PartialEq, Eq)]
pub(super) struct Probe {
    /// The inputs it reads (each the original of every copy), sorted.
    inputs: Vec<SourceId>,
    /// The comparison.
    op: Comparison,
    /// Its operands.
    sides: [ProbeExpr; 2],
    /// The language whose integer rules compute it.
    lang: value::Lang,
    /// The hash of the fields above, computed once: a witness's [`Question`] holds every
    /// probe of a path, and is hashed at each search.
    hash: u64,
}

impl std::hash::Hash for Probe {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        state.write_u64(self.hash);
    }
}

/// An operand of a [`Probe`].
#[derive(Debug, PartialEq, Eq, Hash)]
pub(super) enum ProbeExpr {
    /// A known value of a type.
    Known(i128, Option<IntTy>),
    /// An input moved by the steps, each value within the type (else no run computes it).
    Moved(SourceId, Vec<value::Step>, Option<IntTy>),
    /// Two operands combined as the language does (`tiles_x * tiles_y`).
    Binary(ir::Op, Box<ProbeExpr>, Box<ProbeExpr>),
}

/// A witness's question, as [`Interp::witness`] asks it: the inputs, the range of each on
/// the path, and the probes with the way each went (the same question on another path has
/// the same answer).
pub(super) type Question = (
    Vec<SourceId>,
    Vec<Option<occupancy_core::abstract_int::AbstractInt>>,
    Vec<(Rc<Probe>, bool)>,
);

/// The deepest [`ProbeExpr`] kept.
const MAX_PROBE_DEPTH: usize = 8;

/// A condition as a witness weighs it: its inputs, whether it is blurred, its probe, the
/// way it went.
type Condition<'p> = (Vec<SourceId>, bool, Option<&'p Rc<Probe>>, bool);

/// The most inputs a witness relates ([`Interp::witness`]).
const MAX_WITNESSED: usize = 3;

/// The most probe tests a witness search makes before it gives up.
const MAX_WITNESS_TRIES: usize = 200_000;

/// The most probe tests the witnesses of one reading make in all: past them, a conflict is
/// left uncertain without a search, so that a body of many conflicts costs a bounded time
/// (each test is a few integer operations).
pub(super) const MAX_WITNESS_TRIES_PER_READING: usize = 2_000_000;

/// Whether values of `inputs` (from `tried`, each input's in order), the first `at.len()`
/// given in `at`, take every probe's way: a depth-first search that tests each probe as
/// soon as its inputs have values, and gives up past [`MAX_WITNESS_TRIES`] tests.
fn search(
    inputs: &[SourceId],
    tried: &[Vec<i128>],
    probes: &[(&Probe, bool)],
    at: &mut Vec<(SourceId, i128)>,
    tries: &mut usize,
) -> bool {
    let k = at.len();
    let Some(&input) = inputs.get(k) else {
        return true;
    };
    // The probes whose last input to take a value is this one.
    let ready: Vec<&(&Probe, bool)> = probes
        .iter()
        .filter(|(p, _)| {
            p.inputs.contains(&input) && p.inputs.iter().all(|i| inputs[..=k].contains(i))
        })
        .collect();
    for v in &tried[k] {
        at.push((input, *v));
        let mut holds = true;
        for (p, way) in &ready {
            *tries += 1;
            if p.holds_at(at) != Some(*way) {
                holds = false;
                break;
            }
        }
        if holds && search(inputs, tried, probes, at, tries) {
            return true;
        }
        at.pop();
        if *tries > MAX_WITNESS_TRIES {
            return false;
        }
    }
    false
}

impl ProbeExpr {
    /// Its value and type where each input is as `at` says; `None` where a step or an
    /// operation leaves its type (no run computes it) or an input has no value.
    fn at(&self, at: &[(SourceId, i128)], lang: value::Lang) -> Option<(i128, Option<IntTy>)> {
        match self {
            ProbeExpr::Known(k, ty) => Some((*k, *ty)),
            ProbeExpr::Moved(input, steps, ty) => {
                let mut x = at.iter().find(|(i, _)| i == input)?.1;
                for step in steps {
                    x = value::step_at(*step, x)?;
                    if ty.is_some_and(|t| x < t.min() || t.max() < x) {
                        return None;
                    }
                }
                Some((x, *ty))
            }
            ProbeExpr::Binary(op, l, r) => {
                let (a, ta) = l.at(at, lang)?;
                let (b, tb) = r.at(at, lang)?;
                let known = |v: i128, ty: Option<IntTy>| match Val::int(v, ty) {
                    Val::Int(i) => Some(i),
                    _ => None,
                };
                match value::binary_in(lang, *op, &known(a, ta)?, &known(b, tb)?, None).val {
                    Val::Int(i) => Some((i.value()?, i.ty)),
                    _ => None,
                }
            }
        }
    }

    /// The inputs it reads.
    fn inputs(&self, out: &mut Vec<SourceId>) {
        match self {
            ProbeExpr::Known(..) => {}
            ProbeExpr::Moved(input, _, _) => {
                if !out.contains(input) {
                    out.push(*input);
                }
            }
            ProbeExpr::Binary(_, l, r) => {
                l.inputs(out);
                r.inputs(out);
            }
        }
    }
}

impl Probe {
    /// Whether the comparison holds where each input is as `at` says; `None` where an
    /// operand is not computed there.
    fn holds_at(&self, at: &[(SourceId, i128)]) -> Option<bool> {
        let (a, _) = self.sides[0].at(at, self.lang)?;
        let (b, _) = self.sides[1].at(at, self.lang)?;
        Some(self.op.holds(a, b))
    }
}

impl Interp<'_> {
    /// The inputs, `shared`'s (the one it is or is moved from) among them, of which some
    /// values take every way `path` went on them and the way `holds` of a new condition on
    /// `roots` (`blurred`, with its `probe`); `None` where none are found. The inputs are
    /// those the conditions relate to `shared` (at most [`MAX_WITNESSED`]); each condition
    /// on them a [`Probe`], or applied to the range of its one input; the values tried
    /// those of each input's range on the path ([`Interp::tried_values`]), in a search that
    /// gives up past [`MAX_WITNESS_TRIES`] tests. Then some run of the code takes the path:
    /// `mmq_x_best` chosen by `if ((n + x - 1) / x < best_tiles)` in a loop over `x`.
    pub(super) fn witness(
        &mut self,
        path: &Path,
        shared: SourceId,
        roots: &[SourceId],
        (holds, blurred, probe): (bool, bool, Option<&Rc<Probe>>),
    ) -> Option<Vec<SourceId>> {
        // An input and the values bound moved from it (`tiles` of `n`) are one input.
        let bases = |roots: &[SourceId]| {
            let mut out: Vec<SourceId> = roots.iter().map(|r| self.base_input(*r)).collect();
            out.sort_unstable();
            out.dedup();
            out
        };
        // The conditions as (their inputs, blurred, probe, way), the new one last.
        let mut conditions: Vec<Condition<'_>> = path
            .decisions
            .iter()
            .map(|d| {
                let probe = if d.facts_of.is_none() {
                    d.probe.as_ref()
                } else {
                    None
                };
                (
                    bases(&d.roots),
                    d.blurred || d.facts_of.is_some(),
                    probe,
                    d.holds,
                )
            })
            .collect();
        conditions.push((bases(roots), blurred, probe, holds));
        // The inputs related to `shared`, through the conditions on several.
        let mut inputs = vec![self.base_input(shared)];
        let mut grown = true;
        while grown {
            grown = false;
            for (ins, _, _, _) in &conditions {
                if ins.iter().any(|i| inputs.contains(i)) {
                    for i in ins {
                        if !inputs.contains(i) {
                            inputs.push(*i);
                            grown = true;
                        }
                    }
                }
            }
            if inputs.len() > MAX_WITNESSED {
                return None;
            }
        }
        let mut probes: Vec<(Rc<Probe>, bool)> = Vec::new();
        for (ins, blurred, probe, way) in &conditions {
            if !ins.iter().any(|i| inputs.contains(i)) {
                continue;
            }
            match probe {
                Some(p) if p.inputs.iter().all(|i| inputs.contains(i)) => {
                    probes.push((Rc::clone(p), *way));
                }
                // Applied to its one input's range.
                _ if !blurred && ins.len() == 1 => {}
                _ => return None,
            }
        }
        // The same question asked on another path (the values tried are those of the
        // inputs' ranges): its answer.
        let ranges: Vec<Option<occupancy_core::abstract_int::AbstractInt>> = inputs
            .iter()
            .map(|i| self.input_range(path, *i).cloned())
            .collect();
        let key = (inputs.clone(), ranges, probes);
        if let Some(found) = self.witness_searches.get(&key) {
            return found.then_some(inputs);
        }
        let probes: Vec<(&Probe, bool)> = key.2.iter().map(|(p, way)| (&**p, *way)).collect();
        let tried: Vec<Vec<i128>> = inputs
            .iter()
            .map(|i| self.tried_values(path, *i))
            .collect::<Option<_>>()?;
        if self.witness_tries > MAX_WITNESS_TRIES_PER_READING {
            return None;
        }
        let mut at: Vec<(SourceId, i128)> = Vec::with_capacity(inputs.len());
        let mut tries = 0usize;
        let found = search(&inputs, &tried, &probes, &mut at, &mut tries);
        self.witness_tries += tries;
        self.witness_searches.insert(key, found);
        found.then_some(inputs)
    }

    /// The values of the input `input` a witness tries ([`Interp::witness`]): its set's
    /// members; else the 64 at each end of its range and those from -64 to 2048 within it
    /// (where sizes and counts are small enough to take each way of a test of a tile
    /// count, a block or a size), the positive ones first, smallest first. `None` where it
    /// has no range on `path`.
    fn tried_values(&self, path: &Path, input: SourceId) -> Option<Vec<i128>> {
        const ENDS: i128 = 64;
        const SMALL: (i128, i128) = (-64, 2048);
        let range = self.input_range(path, input)?;
        match (range.members(), range.bounds()) {
            (Some(m), _) => Some(m.to_vec()),
            (None, (Some(lo), Some(hi))) => {
                let mut spans = [
                    (lo.max(SMALL.0), hi.min(SMALL.1)),
                    (lo, hi.min(lo.saturating_add(ENDS - 1))),
                    (hi.saturating_sub(ENDS - 1).max(lo), hi),
                ];
                spans.sort_unstable();
                // The spans merged, in order; then small positive values first (sizes and
                // counts), smallest first, then 0 and the negative, nearest 0 first.
                let mut merged: Vec<(i128, i128)> = Vec::with_capacity(3);
                for (a, b) in spans.into_iter().filter(|(a, b)| a <= b) {
                    match merged.last_mut() {
                        Some(last) if a <= last.1.saturating_add(1) => last.1 = last.1.max(b),
                        _ => merged.push((a, b)),
                    }
                }
                let positive = merged.iter().flat_map(|&(a, b)| a.max(1)..=b);
                let rest = merged.iter().rev().flat_map(|&(a, b)| (a..=b.min(0)).rev());
                Some(positive.chain(rest).collect())
            }
            _ => None,
        }
    }

    /// `l op r` (of values `x` and `y` on `path`) as a [`Probe`], where each operand is
    /// known, an input moved by known values, or arithmetic of those written with names
    /// and literals (read from the path's bindings, never evaluated again).
    pub(super) fn probe(
        &self,
        (op, l, r): (Comparison, &Expr, &Expr),
        (x, y): (&Int, &Int),
        path: &Path,
    ) -> Option<Rc<Probe>> {
        let side = |e: &Expr, v: &Int| self.probe_int(v).or_else(|| self.probe_expr(e, path, 0));
        let sides = [side(l, x)?, side(r, y)?];
        let mut inputs = Vec::new();
        sides.iter().for_each(|s| s.inputs(&mut inputs));
        inputs.sort_unstable();
        (!inputs.is_empty()).then(|| {
            use std::hash::{Hash, Hasher};
            let lang = self.mode.lang;
            let mut hasher = std::collections::hash_map::DefaultHasher::new();
            (&inputs, op, &sides, lang).hash(&mut hasher);
            Rc::new(Probe {
                inputs,
                op,
                sides,
                lang,
                hash: hasher.finish(),
            })
        })
    }

    /// `i` as a [`ProbeExpr`]: known, or an input moved by known values.
    fn probe_int(&self, i: &Int) -> Option<ProbeExpr> {
        if let Some(k) = i.value() {
            return Some(ProbeExpr::Known(k, i.ty));
        }
        let (input, steps) = i.moved_from()?;
        Some(ProbeExpr::Moved(self.original(input), steps.to_vec(), i.ty))
    }

    /// The expression `e` as a [`ProbeExpr`]: literals, names bound on `path` to what
    /// [`Interp::probe_int`] takes, and arithmetic of those.
    fn probe_expr(&self, e: &Expr, path: &Path, depth: usize) -> Option<ProbeExpr> {
        if depth >= MAX_PROBE_DEPTH {
            return None;
        }
        match e {
            Expr::Int(v, ty) => Some(ProbeExpr::Known(*v, *ty)),
            Expr::Path(p, _) => match path.view(path.lookup(p.single()?)?.val.clone()) {
                Val::Int(i) => self.probe_int(&i),
                _ => None,
            },
            // A named field of a struct bound to a name (`args.nrows_x`).
            Expr::Field(base, ir::Field::Named(field)) => {
                let Expr::Path(p, _) = &**base else {
                    return None;
                };
                let Val::Struct(s) = path.view(path.lookup(p.single()?)?.val.clone()) else {
                    return None;
                };
                match s.fields.iter().find(|(n, _)| n == field)? {
                    (_, Val::Int(i)) => self.probe_int(i),
                    _ => None,
                }
            }
            Expr::Binary(op, a, b) => Some(ProbeExpr::Binary(
                *op,
                Box::new(self.probe_expr(a, path, depth + 1)?),
                Box::new(self.probe_expr(b, path, depth + 1)?),
            )),
            _ => None,
        }
    }
}
