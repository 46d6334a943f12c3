//! A launch's values as the C++ check takes them, one implementation for both C++ readers
//! (the interpreter's values and the reading core's records, issue 25's stage 4): a
//! block or shared memory of a few values, one launch each; shared memory that grows with
//! the input at its largest value within the limit, or at the limit and the first value
//! past it ([`smem_bounds`], [`smem_limit`]); run-time values filled with the `//
//! occupancy:` comment's candidates ([`occupancy_core::candidates::fill`]), never
//! crossed; and the label that tells a path's launches apart.

use occupancy_core::abstract_int::AbstractInt;
use occupancy_core::candidates::fill;
use occupancy_core::policy::LaunchCandidates;

use crate::MAX_PATHS;
use crate::launch::{Candidates, Read, SmemLimit};

/// A dimension's three values as one read: known where each is, else why not.
pub(crate) fn dims_of(d: &[AbstractInt; 3], what: &str) -> Read<[u32; 3]> {
    let mut out = [0u32; 3];
    for (o, x) in out.iter_mut().zip(d) {
        match x.known_value().and_then(|x| u32::try_from(x).ok()) {
            Some(x) => *o = x,
            None => {
                return Read::Unknown(format!("the {what} is {x} here, known only at run time"));
            }
        }
    }
    Read::Known(out)
}

/// The (block, smem) pairs of a launch on one path: its values, one per member of a
/// finite set, with the comment's candidates for what is known only at run time
/// ([`occupancy_core::candidates::fill`]: never crossed). Each with where it came from and
/// a label when there are several.
pub(crate) fn block_smem(
    block: Result<[AbstractInt; 3], String>,
    smem: Result<AbstractInt, String>,
    comment: &LaunchCandidates,
    opt_in: Option<u32>,
    opt_in_at_run_time: bool,
) -> Vec<LaunchChoice> {
    let blocks = code_blocks(block);
    let given_smem = !comment.smem_bytes.is_empty() || !comment.pairs.is_empty();
    let smems = code_smems(smem, given_smem, opt_in, opt_in_at_run_time);
    // Both sets from the code: independent values would be a cross product; keep the
    // block's, and the shared memory's only when it is one value.
    let smems = if blocks.len() > 1 && smems.len() > 1 {
        vec![(
            Read::Unknown(
                "one of several values, independent of the block's as far as the reader can tell"
                    .to_owned(),
            ),
            None,
        )]
    } else {
        smems
    };
    let mut out = Vec::new();
    for b in &blocks {
        for s in &smems {
            out.extend(from_candidates(b, s, comment));
        }
    }
    out
}

/// A value known only at run time, with how the launch writes it (`origin`, from
/// [`written_origin`]) in front of the reason.
pub(crate) fn explained<T>(r: Read<T>, origin: &Option<String>) -> Read<T> {
    match (r, origin) {
        (Read::Unknown(why), Some(o)) if !why.contains(o.as_str()) => {
            Read::Unknown(format!("{o}: {why}"))
        }
        (r, _) => r,
    }
}

/// How a launch writes a value, for the reason it is known only at run time:
/// `` `threads` is a parameter of `launch_scale_any` `` where `written` is a parameter of
/// `function` (`is_param`), else `` `n * 4` ``; `None` where nothing is written.
pub(crate) fn written_origin(written: &str, is_param: bool, function: &str) -> Option<String> {
    let written = written.trim();
    if written.is_empty() {
        return None;
    }
    Some(if is_param {
        format!("`{written}` is a parameter of `{function}`")
    } else {
        format!("`{}`", crate::syntax::clip(written, 40))
    })
}

/// A value as the code gives it, with its label when it is one of several.
pub(crate) type Choice<T> = (Read<T>, Option<String>);

/// The block shapes the code launches: one per member of its finite sets, else one read.
fn code_blocks(block: Result<[AbstractInt; 3], String>) -> Vec<Choice<[u32; 3]>> {
    let d = match block {
        Ok(d) => d,
        Err(why) => return vec![(Read::Unknown(why), None)],
    };
    let sets: Vec<Option<&[i128]>> = d.iter().map(AbstractInt::members).collect();
    let (Some(x), Some(y), Some(z)) = (sets[0], sets[1], sets[2]) else {
        return vec![(dims_of(&d, "block"), None)];
    };
    if x.len() * y.len() * z.len() > MAX_PATHS {
        return vec![(dims_of(&d, "block"), None)];
    }
    let several = x.len() * y.len() * z.len() > 1;
    let mut v = Vec::new();
    for a in x {
        for b in y {
            for c in z {
                match (u32::try_from(*a), u32::try_from(*b), u32::try_from(*c)) {
                    (Ok(a), Ok(b), Ok(c)) => {
                        let label = several.then(|| format!("block = {}", shape([a, b, c])));
                        v.push((Read::Known([a, b, c]), label));
                    }
                    _ => v.push((
                        Read::Unknown(format!("a block of {a} x {b} x {c} threads")),
                        None,
                    )),
                }
            }
        }
    }
    v
}

/// The dynamic shared memory sizes the code launches: a few values each; a run-time value
/// the user gives candidates for (`given`) stays unknown for them to fill; else, growing
/// past the limit, its bounds ([`smem_bounds`]).
fn code_smems(
    smem: Result<AbstractInt, String>,
    given: bool,
    opt_in: Option<u32>,
    opt_in_at_run_time: bool,
) -> Vec<Choice<u32>> {
    let v = match smem {
        Ok(v) => v,
        Err(why) => return vec![(Read::Unknown(why), None)],
    };
    let v = &v;
    match v.members() {
        // A few values: each; more (an interval's worth, `cols * 4` for cols <= 32): its
        // bounds, as for an interval.
        Some(m) if m.len() <= 8 => {
            let several = m.len() > 1;
            m.iter()
                .map(|x| match u32::try_from(*x) {
                    Ok(x) => (Read::Known(x), several.then(|| format!("smem = {x}"))),
                    Err(_) => (
                        Read::Unknown(format!("{x} bytes of dynamic shared memory")),
                        None,
                    ),
                })
                .collect()
        }
        _ if given => vec![(
            Read::Unknown(format!(
                "the dynamic shared memory is {v} bytes here, known only at run time"
            )),
            None,
        )],
        _ => smem_bounds(v, opt_in, opt_in_at_run_time).unwrap_or_else(|| {
            // It may grow past the limit, but from 0 (or below): no least value tells
            // which sizes the input makes, so no size is checked for it.
            let unguarded = v.bounds().1.is_none_or(|hi| hi > 48 * 1024);
            vec![(
                Read::Unknown(format!(
                    "the dynamic shared memory is {v} bytes here, known only at run time{}",
                    if unguarded {
                        " (it starts at 0 or below: a guard that keeps it above 0, such as `if (n <= 0) return;`, has it checked at the limit and above it)"
                    } else {
                        ""
                    }
                )),
                None,
            )]
        }),
    }
}

/// One code launch (block `b`, shared memory `s`) with the comment's candidates filling
/// what it leaves to run time: one choice per candidate (pair), or the launch as it is
/// with the reason when the candidates cannot fill it.
fn from_candidates(
    b: &Choice<[u32; 3]>,
    s: &Choice<u32>,
    comment: &LaunchCandidates,
) -> Vec<LaunchChoice> {
    let known_b = match &b.0 {
        Read::Known(k) => Some(k),
        Read::Unknown(_) => None,
    };
    let known_s = match &s.0 {
        Read::Known(k) => Some(k),
        Read::Unknown(_) => None,
    };
    let filled = match fill(&comment.given(), known_b, known_s) {
        Ok(filled) => filled,
        Err(refusal) => {
            return vec![(
                Read::Unknown(format!(
                    "{refusal} (`// occupancy: launches = [(128, 0), (256, 4096)]`)"
                )),
                s.0.clone(),
                Candidates::None,
                None,
            )];
        }
    };
    let pairs = !comment.pairs.is_empty();
    filled
        .into_iter()
        .map(|f| {
            let block = f.block.map(|i| {
                if pairs {
                    comment.pairs[i].0
                } else {
                    comment.block[i]
                }
            });
            let smem = f.smem.map(|i| {
                if pairs {
                    comment.pairs[i].1
                } else {
                    comment.smem_bytes[i]
                }
            });
            let mut label: Vec<String> = Vec::new();
            let block = match block {
                Some(d) => {
                    label.push(format!("block = {}", shape(d)));
                    Read::Known(d)
                }
                None => {
                    label.extend(b.1.clone());
                    b.0.clone()
                }
            };
            let smem_read = match smem {
                Some(x) => {
                    label.push(format!("smem = {x}"));
                    Read::Known(x)
                }
                None => {
                    label.extend(s.1.clone());
                    s.0.clone()
                }
            };
            let candidates = if f.block.is_some() || f.smem.is_some() {
                Candidates::Comment
            } else {
                Candidates::None
            };
            let label = (!label.is_empty()).then(|| label.join(", "));
            (block, smem_read, candidates, label)
        })
        .collect()
}

/// A (block, dynamic shared memory) to check, where its values came from, its label.
pub(crate) type LaunchChoice = (Read<[u32; 3]>, Read<u32>, Candidates, Option<String>);

/// For shared memory growing from `lo` past `limit`: the step of its values (the power of
/// two, up to 16, dividing `lo`), the largest multiple of it within the limit, and `limit`.
fn limit_step(lo: i128, limit: i128) -> (i128, i128, i128) {
    let step = (0..=4)
        .rev()
        .map(|k| 1i128 << k)
        .find(|s| lo % s == 0)
        .unwrap_or(1);
    (step, limit / step * step, limit)
}

/// The limit a path's shared memory was placed at by [`smem_bounds`] (it grows past it),
/// for the check to move it below the limit less the kernel's static shared memory.
pub(crate) fn smem_limit(v: &AbstractInt, opt_in: Option<u32>, value: u32) -> Option<SmemLimit> {
    if v.members().is_some_and(|m| m.len() <= 8) {
        return None;
    }
    let (lo, hi) = v.bounds();
    let lo = lo?.max(0);
    let limit = opt_in.map_or(48 * 1024, i128::from).max(48 * 1024);
    if hi.is_some_and(|h| h <= limit) || lo == 0 {
        return None;
    }
    let (step, under, _) = limit_step(lo, limit);
    let value = i128::from(value);
    (value == under || value == under + step).then(|| SmemLimit {
        limit_bytes: u32::try_from(limit).unwrap_or(u32::MAX),
        step_bytes: u32::try_from(step).unwrap_or(1),
        above: value > under,
    })
}

/// The launches to check for dynamic shared memory known as an interval that grows with
/// the input (`cols * sizeof(float)`): occupancy only falls as it grows, so its largest
/// value when that is within the limit (48 KiB, or the opt-in); else the limit itself
/// and the first value above it (a multiple of the power of two, up to 16, that
/// divides the least value: the element size of `n * sizeof(T)`), where the launch fails.
/// `None` when nothing bounds it from below (a plain run-time value: candidates needed);
/// not checked past the limit when the opt-in is a run-time value too, or when the least
/// value is odd (the sizes the input makes at the limit are then not known: `5 * n`).
pub(crate) fn smem_bounds(
    v: &AbstractInt,
    opt_in: Option<u32>,
    opt_in_at_run_time: bool,
) -> Option<Vec<Choice<u32>>> {
    const DEFAULT_LIMIT: i128 = 48 * 1024;
    let (lo, hi) = v.bounds();
    let v = match (lo, hi) {
        (Some(l), Some(h)) => format!("{l}..={h}"),
        _ => v.to_string(),
    };
    let lo = lo?.max(0);
    let limit = opt_in.map_or(DEFAULT_LIMIT, i128::from).max(DEFAULT_LIMIT);
    if let Some(hi) = hi
        && hi <= limit
    {
        let hi = u32::try_from(hi).ok()?;
        return Some(vec![(
            Read::Known(hi),
            Some(format!("smem = {hi} (the largest of {v})")),
        )]);
    }
    if lo == 0 {
        return None;
    }
    let unknown = |why: String| Some(vec![(Read::Unknown(why), None)]);
    if opt_in_at_run_time {
        return unknown(format!(
            "the dynamic shared memory is {v} bytes here, known only at run time, and so is the opt-in (`cudaFuncAttributeMaxDynamicSharedMemorySize`) that bounds it"
        ));
    }
    let (step, under, _) = limit_step(lo, limit);
    if step == 1 {
        // An odd least value: `n` bytes, or `5 * n` (which makes no size between its
        // multiples): the sizes at the limit are not known, only the bounds.
        return unknown(format!(
            "the dynamic shared memory is {v} bytes here, known only at run time; it grows past the limit from an odd size, so which sizes at the limit the input makes is not known"
        ));
    }
    let mut out = Vec::new();
    let what = if opt_in.is_some() {
        "the opt-in"
    } else {
        "48 KiB without an opt-in"
    };
    if under >= lo {
        let under = u32::try_from(under).ok()?;
        out.push((
            Read::Known(under),
            Some(format!(
                "smem = {under} (at the limit, {what}; {v} grows with the input)"
            )),
        ));
    }
    let above = u32::try_from(under + step).ok()?;
    out.push((
        Read::Known(above),
        Some(format!(
            "smem = {above} (above {what}; {v} grows with the input)"
        )),
    ));
    Some(out)
}

/// `256`, `(16, 16)`, `(8, 8, 4)`.
fn shape(d: [u32; 3]) -> String {
    match d {
        [x, 1, 1] => x.to_string(),
        [x, y, 1] => format!("({x}, {y})"),
        [x, y, z] => format!("({x}, {y}, {z})"),
    }
}

/// Run-time candidates from the `// occupancy: block = [128, 256], smem = [0, 4096]` (or
/// `launches = [(128, 0), (256, 4096)]`) comments on the launch's line and the comment
/// lines right above it, read by the policy's own reader
/// ([`occupancy_core::policy::LaunchCandidates::from_comment`]); several comments add up.
/// A comment with an error gives nothing: `Err((line, why))`, the line of the comment.
/// `read` keeps each comment's reading by its text.
pub(crate) fn site_candidates(
    e: crate::index::At<'_>,
    read: &mut std::collections::HashMap<String, Result<LaunchCandidates, String>>,
) -> Result<LaunchCandidates, (u32, String)> {
    let mut out = LaunchCandidates::default();
    let row = e.node.start_position().row;
    // The launch's line and the lines above it, read from the launch outwards (not the
    // whole file split into lines at every launch recorded: a launch is recorded once per
    // path).
    let text = e.code.text.as_str();
    let start = e.node.start_byte().min(text.len());
    let line_start = text
        .get(..start)
        .and_then(|t| t.rfind('\n'))
        .map_or(0, |i| i + 1);
    let line_end = text
        .get(start..)
        .and_then(|t| t.find('\n'))
        .map_or(text.len(), |i| start + i);
    let line = text.get(line_start..line_end).unwrap_or("");
    let line = line.strip_suffix('\r').unwrap_or(line);
    // (row, the comment's text after `//`)
    let mut comments: Vec<(usize, &str)> = Vec::new();
    if let Some(at) = line.find("//") {
        comments.push((row, &line[at + 2..]));
    }
    let above = text.get(..line_start.saturating_sub(1)).unwrap_or("");
    if line_start > 0 {
        for (r, l) in (0..row).rev().zip(above.rsplit('\n')) {
            match l.trim().strip_prefix("//") {
                Some(text) => comments.push((r, text)),
                None => break,
            }
        }
    }
    for (r, text) in comments {
        let Some(rest) = text.trim_start().strip_prefix("occupancy:") else {
            continue;
        };
        // In an expansion every line is the invocation's.
        let line = e
            .code
            .fixed_line
            .unwrap_or_else(|| u32::try_from(r + 1).unwrap_or(u32::MAX));
        let reading = match read.get(rest) {
            Some(r) => r.clone(),
            None => {
                let r = LaunchCandidates::from_comment(rest);
                if read.len() < 4096 {
                    read.insert(rest.to_owned(), r.clone());
                }
                r
            }
        };
        match reading {
            Ok(c) => {
                out.block.extend(c.block);
                out.smem_bytes.extend(c.smem_bytes);
                out.pairs.extend(c.pairs);
            }
            Err(why) => return Err((line, why)),
        }
        if !out.pairs.is_empty() && (!out.block.is_empty() || !out.smem_bytes.is_empty()) {
            return Err((
                line,
                "`launches` gives the block and the shared memory together: give it instead \
                 of `block` and `smem`, not beside them"
                    .to_owned(),
            ));
        }
    }
    Ok(out)
}
