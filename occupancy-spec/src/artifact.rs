//! The kernel's resources per target, from what the attribute names:
//!
//! - `kernel = "name"` alone: the resource manifest, looked for in this order:
//!   1. `$OCCUPANCY_MANIFEST` (absolute, or relative to the crate): the build helper
//!      (`occupancy_core::build::Kernels`) sets it for the crate through `cargo:rustc-env`,
//!      pointing at `$OUT_DIR/occupancy/manifest.json`;
//!   2. `$OUT_DIR/occupancy/manifest.json` when the crate has a build script;
//!   3. the policy's `manifest = "path"` (relative to the crate);
//!   4. `kernels.manifest.json` beside the crate's `Cargo.toml` (the committed fallback).
//! - `cubin = "path"` / `fatbin = "path"` (relative to the crate): that file, with
//!   `kernel = "name"` choosing among its kernels (optional when it holds only one).
//!
//! The name may carry its module, the stem of the file it was compiled from or read from
//! (`kernel = "conv2d::transpose_filters_f32"`); a name that several modules define must
//! (see [`Manifest::lookup`]). A family's glob with a module (`"conv2d::affine_*"`) matches
//! the qualified names, one without (`"affine_*"`) the names alone.
//!
//! On each target the resources are those of the cubin the CUDA driver would load there:
//! the same compute capability, else the highest lower one of the same major version (an
//! `sm_80` cubin runs on 8.6), as [`Manifest::lookup`] does. A kernel named alone must have
//! one on every target; a member of a family (a list or a glob) with none for a target is
//! not part of the family there (fp8 kernels built for sm_90 only), and a target with no
//! member left is the error.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use occupancy_core::arch::Target;
use occupancy_core::file;
use occupancy_core::policy::Policy;
use occupancy_core::resources::manifest::{LookupError, Manifest, NameIndex};
use occupancy_core::resources::manifest_text::ManifestText;
use occupancy_core::resources::{InputKind, ResourceError, SmTarget, cubin, detect, fatbin};
use proc_macro2::Span;

use crate::memo::Memo;
use crate::problems::Problem;
use crate::read::Roots;
use crate::spec::{KernelSpec, ManifestOrigin, Source, SourceKind};
use crate::{Env, MANIFEST_VAR, OUT_DIR_MANIFEST};

/// The resources found: where, and for each kernel of the family, per target (in the
/// order given).
pub struct Resolved {
    /// The file read.
    pub source: Source,
    /// Each kernel of the family (globs expanded), with its resources per target.
    pub kernels: Vec<KernelSpec>,
    /// The key to point at for the compiled kernel (`kernel`, else `cubin` / `fatbin`).
    pub key_span: Span,
}

/// One target to find resources for: the target, the span of the string that named it, and
/// whether the attribute named it (else the policy did: problems then go on the kernel).
pub struct WantedTarget {
    /// The target.
    pub target: Target,
    /// The string that named it (the attribute's span when the policy did).
    pub span: Span,
    /// Whether the attribute named it.
    pub from_attribute: bool,
}

/// The kernels asked for: names and globs, each with its span, and the span of what named
/// them (the `kernel` key, or the body's literal).
pub struct WantedKernels {
    /// Each name or glob as written, with the span of its string.
    pub names: Vec<(String, Span)>,
    /// What named them.
    pub key_span: Span,
}

/// The cubin or fatbin the attribute names (`cubin = "path"`, `fatbin = "path"`).
pub struct Binary {
    /// [`SourceKind::Cubin`] or [`SourceKind::Fatbin`].
    pub kind: SourceKind,
    /// The path as written, relative to the crate.
    pub written: String,
    /// The span of the string.
    pub span: Span,
    /// The span of the key.
    pub key_span: Span,
}

/// The characters that stand for others in a glob: `*`, `?` and `#` ([`glob_match`]).
const WILDCARDS: [char; 3] = ['*', '?', '#'];

/// Whether `name` is a glob (`affine_*`, `conv?d`, `cast_{f16,f32}_u8`, `gemv_#`).
pub fn is_glob(name: &str) -> bool {
    name.contains(WILDCARDS) || (name.contains('{') && alternatives(name).len() > 1)
}

/// The most names one pattern's `{a,b,..}` groups may stand for; a pattern of more is matched
/// as written (its braces literal).
pub const MAX_ALTERNATIVES: usize = 256;

/// The patterns `pattern`'s `{a,b,..}` groups stand for, each group replaced by one of its
/// comma-separated alternatives (groups do not nest): `cast_{f16,f32}_u8` is `cast_f16_u8`
/// and `cast_f32_u8`. A pattern without a closed group, or of more than
/// [`MAX_ALTERNATIVES`] names, is itself.
pub fn alternatives(pattern: &str) -> Vec<String> {
    let mut out = vec![String::new()];
    let mut rest = pattern;
    while let Some(open) = rest.find('{') {
        let Some(close) = rest[open..].find('}').map(|c| open + c) else {
            break;
        };
        let group = &rest[open + 1..close];
        if group.contains('{') {
            return vec![pattern.to_owned()];
        }
        let choices: Vec<&str> = group.split(',').collect();
        if out.len().saturating_mul(choices.len()) > MAX_ALTERNATIVES {
            return vec![pattern.to_owned()];
        }
        let head = &rest[..open];
        out = out
            .iter()
            .flat_map(|o| choices.iter().map(move |c| format!("{o}{head}{c}")))
            .collect();
        rest = &rest[close + 1..];
    }
    out.into_iter().map(|o| o + rest).collect()
}

/// Whether `name` matches `pattern`: `*` matches any run of characters, `?` one character,
/// `#` an integer as Rust's `{}` writes one (one or more ASCII digits, a `-` allowed
/// first: what `format!("gemv_{n}")` makes of an integer `n` not known), `{a,b}` either
/// alternative (see [`alternatives`]); the rest matches itself.
pub fn glob_match(pattern: &str, name: &str) -> bool {
    if !pattern.contains('{') {
        return wildcard_match(pattern, name);
    }
    Glob::new(pattern).matches(name)
}

/// A pattern prepared to be matched against many names, as [`glob_match`] matches it: its
/// `{a,b}` groups expanded once, not per name (14 alternatives for candle's dtype groups,
/// each a string built, in a proc macro built at opt-level 0).
pub struct Glob {
    alternatives: Vec<String>,
}

impl Glob {
    /// `pattern` prepared.
    pub fn new(pattern: &str) -> Glob {
        Glob {
            alternatives: alternatives(pattern),
        }
    }

    /// Whether `name` matches the pattern.
    pub fn matches(&self, name: &str) -> bool {
        self.alternatives
            .iter()
            .any(|p| Wildcard::new(p).matches(name))
    }
}

/// [`glob_match`] without `{..}` groups.
fn wildcard_match(pattern: &str, name: &str) -> bool {
    Wildcard::new(pattern).matches(name)
}

/// A pattern of `*` and `?` prepared to be matched against many names: the literal text
/// before its first wildcard and after its last, which every name it matches begins and
/// ends with, refuse most names by two comparisons (a manifest's 5,000 names per attribute,
/// in a proc macro built at opt-level 0, where the full match costs a loop per character).
struct Wildcard<'a> {
    pattern: &'a str,
    /// Bytes before the first wildcard; the whole pattern where it has none.
    head: &'a str,
    /// Bytes after the last wildcard (empty where it has none).
    tail: &'a str,
    wild: bool,
}

impl<'a> Wildcard<'a> {
    fn new(pattern: &'a str) -> Wildcard<'a> {
        let wildcard = |c: char| WILDCARDS.contains(&c);
        match (pattern.find(wildcard), pattern.rfind(wildcard)) {
            (Some(first), Some(last)) => Wildcard {
                pattern,
                head: &pattern[..first],
                tail: &pattern[last + 1..],
                wild: true,
            },
            _ => Wildcard {
                pattern,
                head: pattern,
                tail: "",
                wild: false,
            },
        }
    }

    fn matches(&self, name: &str) -> bool {
        if !self.wild {
            return self.pattern == name;
        }
        if name.len() < self.head.len() + self.tail.len()
            || !name.starts_with(self.head)
            || !name.ends_with(self.tail)
        {
            return false;
        }
        if self.pattern.contains('#') {
            return integer_wildcard_match(self.pattern, name);
        }
        // Kernel names are ASCII: bytes then, without collecting; `?` is one character.
        if self.pattern.is_ascii() && name.is_ascii() {
            return wildcard_match_in(self.pattern.as_bytes(), name.as_bytes(), b'*', b'?');
        }
        let (p, n): (Vec<char>, Vec<char>) =
            (self.pattern.chars().collect(), name.chars().collect());
        wildcard_match_in(&p, &n, '*', '?')
    }
}

/// [`wildcard_match`] of a pattern with a `#` (an integer): the set of the name's
/// characters each prefix of the pattern can have matched, one pattern character at a time
/// (`#` must backtrack over digit runs, which the two-pointer match cannot); O(pattern x
/// name^2) at worst, on names that passed the head and tail test.
fn integer_wildcard_match(pattern: &str, name: &str) -> bool {
    let n: Vec<char> = name.chars().collect();
    // `at[j]`: the pattern read so far can have matched the name's first `j` characters.
    let mut at = vec![false; n.len() + 1];
    at[0] = true;
    for p in pattern.chars() {
        let mut next = vec![false; n.len() + 1];
        match p {
            '*' => {
                let mut reached = false;
                for j in 0..=n.len() {
                    reached |= at[j];
                    next[j] = reached;
                }
            }
            '#' => {
                for k in (0..n.len()).filter(|&k| at[k]) {
                    let start = if n[k] == '-' { k + 1 } else { k };
                    for j in start..n.len() {
                        if !n[j].is_ascii_digit() {
                            break;
                        }
                        next[j + 1] = true;
                    }
                }
            }
            _ => {
                for j in (0..n.len()).filter(|&j| at[j]) {
                    next[j + 1] = p == '?' || n[j] == p;
                }
            }
        }
        if !next.contains(&true) {
            return false;
        }
        at = next;
    }
    at[n.len()]
}

/// [`wildcard_match`] over characters `p` and `n`, `star` and `one` its two wildcards.
fn wildcard_match_in<T: PartialEq + Copy>(p: &[T], n: &[T], star: T, one: T) -> bool {
    // The classic two-pointer match with backtracking to the last `*`: linear in practice,
    // O(p * n) at worst, no recursion.
    let (mut i, mut j) = (0, 0);
    let mut last_star: Option<(usize, usize)> = None;
    while j < n.len() {
        if i < p.len() && (p[i] == one || p[i] == n[j]) {
            i += 1;
            j += 1;
        } else if i < p.len() && p[i] == star {
            last_star = Some((i, j));
            i += 1;
        } else if let Some((si, sj)) = last_star {
            i = si + 1;
            j = sj + 1;
            last_star = Some((si, sj + 1));
        } else {
            return false;
        }
    }
    p[i..].iter().all(|c| *c == star)
}

/// `name` qualified with `embedded_module()` (asked only here), when `ambiguous`, the error
/// of a name several modules define, lists that module's.
fn embedded_choice(
    ambiguous: &LookupError,
    name: &str,
    embedded_module: &mut dyn FnMut() -> Option<String>,
) -> Option<String> {
    if name.contains("::") || ambiguous.choices.is_empty() {
        return None;
    }
    let qualified = format!("{}::{name}", embedded_module()?);
    ambiguous.choices.contains(&qualified).then_some(qualified)
}

/// Reads the resources of the kernels `wanted` names (or the only kernel of `binary`, a
/// cubin or fatbin; else the resource manifest), for every target. `None` when nothing
/// names a kernel, or on a problem (pushed to `problems`, each on the token it concerns):
/// an empty name, an unreadable or malformed file, a kernel or glob that is not there, a
/// kernel named twice, a kernel with no cubin the driver would load on a target, a target
/// on which no member of the family has one.
///
/// A name several modules of the manifest define is the one of `embedded_module()`'s
/// module when that is one of them: the module of the one compiled file the wrapper's
/// source file embeds (`include_str!(concat!(env!("OUT_DIR"), "/conv2d.ptx"))`), asked only
/// for such a name.
pub fn resolve(
    binary: Option<&Binary>,
    wanted: Option<WantedKernels>,
    policy: &Policy,
    env: &Env,
    targets: &[WantedTarget],
    embedded_module: &mut dyn FnMut() -> Option<String>,
    problems: &mut Vec<Problem>,
) -> Option<Resolved> {
    let errors = problems;
    if let Some(w) = &wanted
        && let Some((_, span)) = w.names.iter().find(|(n, _)| n.trim().is_empty())
    {
        errors.push(Problem::new(
            *span,
            "the kernel name is empty: give the name of the `__global__` function",
        ));
        return None;
    }
    let (opened, source, wanted) = open(binary, wanted, policy, env, errors)?;
    // Asked once, though the kernels may be resolved twice (below).
    let mut embedded: Option<Option<String>> = None;
    let embedded_module = &mut || embedded.get_or_insert_with(&mut *embedded_module).clone();
    let resolve_in = |manifest: &Indexed,
                      embedded_module: &mut dyn FnMut() -> Option<String>,
                      errors: &mut Vec<Problem>| {
        resolve_kernels(manifest, &source, &wanted, targets, embedded_module, errors)
    };
    let text = match opened {
        Opened::Binary(manifest) => return resolve_in(&manifest, embedded_module, errors),
        Opened::Manifest(text) => text,
    };
    // The entries the names reach first (`ManifestText::subset`); where that finds a
    // problem, the whole manifest, so that the message lists what a name could mean.
    let cannot_use = |e: ResourceError, errors: &mut Vec<Problem>| {
        errors.push(Problem::new(
            wanted.names.first().map_or(wanted.key_span, |n| n.1),
            format!("cannot use the resource manifest {}: {e}", source.shown),
        ));
    };
    let (literal, globs) = asked_names(&wanted);
    let literal: Vec<&str> = literal.iter().map(String::as_str).collect();
    let prepared: Vec<Wildcard> = globs.iter().map(|p| Wildcard::new(p)).collect();
    let matches = |n: &str| prepared.iter().any(|p| p.matches(n));
    let matches = (!globs.is_empty()).then_some(&matches as &dyn Fn(&str) -> bool);
    match text.text.subset(&literal, matches) {
        Ok(subset) => {
            let mut found = Vec::new();
            let resolved = resolve_in(&Indexed::new(subset), embedded_module, &mut found);
            if found.is_empty() {
                return resolved;
            }
        }
        Err(e) => {
            cannot_use(e, errors);
            return None;
        }
    }
    let full = text.full().map_err(|e| cannot_use(e, errors)).ok()?;
    resolve_in(&full, embedded_module, errors)
}

/// [`resolve`]'s work once the manifest (or binary) is open: the kernels `wanted` names in
/// `manifest`, per target.
fn resolve_kernels(
    manifest: &Indexed,
    source: &Source,
    wanted: &WantedKernels,
    targets: &[WantedTarget],
    embedded_module: &mut dyn FnMut() -> Option<String>,
    errors: &mut Vec<Problem>,
) -> Option<Resolved> {
    let names = expand_names(wanted, manifest, source, errors)?;
    // A family is more than one name, or a glob: a member with no cubin for a target is
    // not part of the family there (fp8 kernels built for sm_90 only); a single name must
    // run on every target.
    let family = names.len() > 1 || wanted.names.iter().any(|(n, _)| is_glob(n));
    let mut kernels = Vec::with_capacity(names.len());
    let mut missing = false;
    for (written, name_span) in &names {
        let found = kernel_spec(
            manifest,
            source,
            (written, *name_span),
            family,
            targets,
            embedded_module,
            errors,
        )?;
        missing |= found.is_none();
        kernels.extend(found);
    }
    if missing || !every_target_has_a_member(&kernels, wanted, source, targets, errors) {
        return None;
    }
    Some(Resolved {
        source: source.clone(),
        kernels,
        key_span: wanted.key_span,
    })
}

/// The names `wanted` gives as names (a glob's `{..}` alternatives without wildcards are
/// names too), and the wildcard patterns.
fn asked_names(wanted: &WantedKernels) -> (Vec<String>, Vec<String>) {
    let (mut literal, mut globs) = (Vec::new(), Vec::new());
    for (name, _) in &wanted.names {
        if !is_glob(name) {
            literal.push(name.clone());
            continue;
        }
        for p in alternatives(name) {
            if p.contains(WILDCARDS) {
                globs.push(p);
            } else {
                literal.push(p);
            }
        }
    }
    (literal, globs)
}

/// What [`open`] opened: a cubin or fatbin, read whole; or a manifest's text, whose entries
/// are parsed as names reach them.
enum Opened {
    Binary(Arc<Indexed>),
    Manifest(Arc<Loaded>),
}

/// The manifest (or the attribute's cubin or fatbin, read as one) and the kernels wanted
/// of it: the binary's only kernel when the attribute names none. `None` when it cannot be
/// read, the problem pushed.
fn open(
    binary: Option<&Binary>,
    wanted: Option<WantedKernels>,
    policy: &Policy,
    env: &Env,
    errors: &mut Vec<Problem>,
) -> Option<(Opened, Source, WantedKernels)> {
    let roots = Roots::new(env, &policy.read_paths);
    match binary {
        Some(file) => {
            let kind = file.kind;
            let (path, manifest) = read_binary(file, env, &roots)
                .map_err(|e| errors.push(e))
                .ok()?;
            let manifest = Arc::new(Indexed::new(manifest));
            let wanted = match wanted {
                Some(w) => w,
                None => WantedKernels {
                    names: vec![(
                        only_kernel(&manifest.manifest, file)
                            .map_err(|e| errors.push(e))
                            .ok()?,
                        file.span,
                    )],
                    key_span: file.key_span,
                },
            };
            let source = Source {
                kind,
                kernel: names_text(&wanted),
                path,
                shown: file.written.clone(),
            };
            Some((Opened::Binary(manifest), source, wanted))
        }
        None => {
            let wanted = wanted?;
            let first = wanted.names.first()?;
            let (path, origin, shown) = find_manifest(policy, env, &first.0, first.1)
                .map_err(|e| errors.push(e))
                .ok()?;
            let manifest = load_manifest(&path, &roots)
                .map_err(|e| {
                    errors.push(Problem::new(
                        first.1,
                        format!("cannot use the resource manifest {shown}: {e}"),
                    ));
                })
                .ok()?;
            let source = Source {
                kind: SourceKind::Manifest(origin),
                kernel: names_text(&wanted),
                path,
                shown,
            };
            Some((Opened::Manifest(manifest), source, wanted))
        }
    }
}

/// Every name `wanted` gives, globs expanded in the manifest's order (sorted by name),
/// duplicates once, each with the span of what named it. `None` when a glob matches
/// nothing or a name is listed twice, the problems pushed.
fn expand_names(
    wanted: &WantedKernels,
    manifest: &Indexed,
    source: &Source,
    errors: &mut Vec<Problem>,
) -> Option<Vec<(String, Span)>> {
    let mut names: Vec<(String, Span)> = Vec::new();
    let mut failed = false;
    for (name, span) in &wanted.names {
        if is_glob(name) {
            let matching = glob_matches(name, manifest);
            if matching.is_empty() {
                errors.push(Problem::new(
                    *span,
                    format!(
                        "no kernel matches `{name}` in {}; {}",
                        source.describe(),
                        manifest.manifest.listing(name)
                    ),
                ));
                failed = true;
            }
            for m in matching {
                if !names.iter().any(|(n, _)| *n == m) {
                    names.push((m, *span));
                }
            }
        } else if names.iter().any(|(n, _)| n == name) {
            errors.push(Problem::new(
                *span,
                format!("kernel `{name}` is listed twice"),
            ));
            failed = true;
        } else {
            names.push((name.clone(), *span));
        }
    }
    (!failed).then_some(names)
}

/// The kernels of `manifest` glob `name` matches: `conv2d::affine_*` matches
/// module-qualified names, `affine_*` the names alone.
fn glob_matches(name: &str, manifest: &Indexed) -> Vec<String> {
    // The pattern's `{..}` alternatives once, not once per name.
    let patterns = alternatives(name);
    let prepared: Vec<Wildcard> = patterns.iter().map(|p| Wildcard::new(p)).collect();
    let matches = |n: &str| prepared.iter().any(|p| p.matches(n));
    // Alternatives without a wildcard (`affine_{f16,f32}`) are whole names: each
    // found by a binary search of the sorted names, not matched against all of them.
    let literal = !name.contains("::") && !patterns.iter().any(|p| p.contains(WILDCARDS));
    if literal {
        let available = manifest.available();
        let mut found: Vec<String> = patterns
            .iter()
            .filter(|p| {
                available
                    .binary_search_by(|(n, _)| n.as_str().cmp(p.as_str()))
                    .is_ok()
            })
            .cloned()
            .collect();
        found.sort();
        found.dedup();
        found
    } else if name.contains("::") {
        manifest
            .qualified()
            .iter()
            .filter(|n| matches(n))
            .cloned()
            .collect()
    } else {
        manifest
            .available()
            .iter()
            .map(|(n, _)| n)
            .filter(|n| matches(n))
            .cloned()
            .collect()
    }
}

/// Kernel `written`'s resources on each target (`None` where a member of a `family` has no
/// cubin that runs there); a name several modules define is the embedded module's when it
/// is one of them. `None` when the lookup fails for good (the problem pushed, nothing more
/// is resolved); `Some(None)` when the kernel has no cubin for some target (each such
/// target's problem pushed; the other names are still looked up).
fn kernel_spec(
    manifest: &Indexed,
    source: &Source,
    (written, name_span): (&str, Span),
    family: bool,
    targets: &[WantedTarget],
    embedded_module: &mut dyn FnMut() -> Option<String>,
    errors: &mut Vec<Problem>,
) -> Option<Option<KernelSpec>> {
    let mut name = written.to_owned();
    let (mark, mut missing) = (errors.len(), false);
    let mut resources = Vec::with_capacity(targets.len());
    let mut compiled_for = Vec::new();
    let mut target_index = 0;
    while let Some(target) = targets.get(target_index) {
        target_index += 1;
        match manifest
            .manifest
            .lookup_indexed(&name, &arch_name(&target.target), &manifest.names)
        {
            Ok(found) => resources.push(Some(found.clone())),
            Err(e) if !e.choices.is_empty() || !e.conflicting.is_empty() => {
                if name == written
                    && let Some(qualified) = embedded_choice(&e, written, embedded_module)
                {
                    // Read again, from the first target, as that module's kernel.
                    name = qualified;
                    errors.truncate(mark);
                    missing = false;
                    resources.clear();
                    compiled_for.clear();
                    target_index = 0;
                    continue;
                }
                errors.push(Problem::new(
                    name_span,
                    format!("{e} (in {})", source.describe()),
                ));
                return None;
            }
            Err(e) if !e.kernel_found => {
                errors.push(Problem::new(name_span, not_found(&e, source)));
                return None;
            }
            Err(e) if family => {
                compiled_for.clone_from(&e.compiled_for);
                resources.push(None);
            }
            Err(e) => {
                let span = if target.from_attribute {
                    target.span
                } else {
                    name_span
                };
                errors.push(Problem::new(
                    span,
                    no_cubin_for(&e, &target.target, &name, source),
                ));
                missing = true;
            }
        }
    }
    Some((!missing).then_some(KernelSpec {
        name,
        resources,
        compiled_for,
    }))
}

/// Whether every target has a member of the family with a cubin that runs there; for each
/// that has none (nothing to check there), the problem pushed.
fn every_target_has_a_member(
    kernels: &[KernelSpec],
    wanted: &WantedKernels,
    source: &Source,
    targets: &[WantedTarget],
    errors: &mut Vec<Problem>,
) -> bool {
    let mut all = true;
    for (index, target) in targets.iter().enumerate() {
        if kernels.iter().all(|k| k.resources[index].is_none()) {
            let members: Vec<String> = kernels
                .iter()
                .map(|k| {
                    let archs: Vec<String> =
                        k.compiled_for.iter().map(SmTarget::to_string).collect();
                    format!("{} ({})", k.name, archs.join(", "))
                })
                .collect();
            let family: Vec<String> = wanted.names.iter().map(|(n, _)| format!("`{n}`")).collect();
            errors.push(Problem::new(
                wanted.key_span,
                format!(
                    "no kernel of the family {} has a cubin that runs on {} (compute \
                     capability {}) in {}: it has {}, and the driver loads a cubin of the same \
                     compute capability, or of a lower one with the same major version; \
                     remove the target or build a kernel of the family for it",
                    family.join(", "),
                    target.target,
                    target.target.arch.cc,
                    source.describe(),
                    members.join(", ")
                ),
            ));
            all = false;
        }
    }
    all
}

/// `saxpy`, or `affine_f32, affine_f16` for a family.
fn names_text(wanted: &WantedKernels) -> String {
    wanted
        .names
        .iter()
        .map(|(n, _)| n.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

/// The name to look a target up by: `sm_90a` when the attribute wrote a suffix, else the
/// compute capability (`sm_86` for `RTX 3090`).
fn arch_name(target: &Target) -> String {
    match target.gpu {
        Some(_) => target.arch.sm.to_owned(),
        None => target.to_string(),
    }
}

/// A manifest with what [`resolve`] asks of it: the kernels each name selects, and the
/// lists globs are matched against; made per wrapper for its cubin or fatbin or for the
/// subset of a manifest its names reach, and once per manifest text for the whole manifest
/// (`Loaded::full`). candle's manifest has 5,000 entries;
/// a family of 20 globs over 14 dtypes asked every entry of it 560 times (20 G
/// instructions for 16 wrappers in a debug build, docs/PERFORMANCE.md).
struct Indexed {
    manifest: Manifest,
    names: NameIndex,
    available: OnceLock<Vec<(String, Vec<SmTarget>)>>,
    qualified: OnceLock<Vec<String>>,
}

impl Indexed {
    fn new(manifest: Manifest) -> Indexed {
        Indexed {
            names: manifest.name_index(),
            manifest,
            available: OnceLock::new(),
            qualified: OnceLock::new(),
        }
    }

    /// [`available`] of the manifest.
    fn available(&self) -> &[(String, Vec<SmTarget>)] {
        self.available.get_or_init(|| available(&self.manifest))
    }

    /// Every kernel's module-qualified name (`conv2d::im2col_f32`).
    fn qualified(&self) -> &[String] {
        self.qualified.get_or_init(|| {
            self.manifest
                .kernel_names()
                .iter()
                .map(|n| n.qualified())
                .collect()
        })
    }
}

/// A manifest file's text as [`resolve`] uses it, kept while the file's text is the same
/// (`memo.rs`): scanned once; the entries a wrapper's names reach parsed for it
/// ([`ManifestText::subset`]); the whole manifest parsed and indexed only when asked.
struct Loaded {
    text: ManifestText,
    full: OnceLock<Result<Arc<Indexed>, ResourceError>>,
}

impl Loaded {
    /// The whole manifest, indexed (parsed the first time it is asked for).
    fn full(&self) -> Result<Arc<Indexed>, ResourceError> {
        self.full
            .get_or_init(|| self.text.full().map(|m| Arc::new(Indexed::new(m))))
            .clone()
    }
}

/// The manifest at `path` (within `roots`), scanned, with the scan of an unchanged file
/// reused (see [`Memo`]).
fn load_manifest(path: &Path, roots: &Roots) -> Result<Arc<Loaded>, ResourceError> {
    static SCANNED: Memo<Result<Arc<Loaded>, ResourceError>> = Memo::new();
    let text = roots
        .read_text(path, "resource manifest", file::MAX_TEXT_BYTES)
        .map_err(|e| {
            ResourceError::new(format!(
                "cannot read resource manifest {}: {e}",
                path.display()
            ))
        })?;
    SCANNED
        .get_or_parse(text, |text| {
            ManifestText::new(text.to_owned()).map(|text| {
                Arc::new(Loaded {
                    text,
                    full: OnceLock::new(),
                })
            })
        })
        .map_err(|e| e.context(path.display()))
}

/// Finds the manifest for `kernel = "..."` (the order is in the module docs).
fn find_manifest(
    policy: &Policy,
    env: &Env,
    kernel: &str,
    kernel_span: Span,
) -> Result<(PathBuf, ManifestOrigin, String), Problem> {
    if let Some(value) = env.var(MANIFEST_VAR).filter(|v| !v.is_empty()) {
        let path = env.resolve(PathBuf::from(value));
        let shown = shown_path(env, &path);
        return Ok((path, ManifestOrigin::EnvVar, shown));
    }
    if let Some(out_dir) = env.var("OUT_DIR").filter(|v| !v.is_empty()) {
        let path = PathBuf::from(out_dir).join(OUT_DIR_MANIFEST);
        if file::probe(&path) == file::Seen::File {
            let shown = shown_path(env, &path);
            return Ok((path, ManifestOrigin::OutDir, shown));
        }
    }
    if let Some(file) = &policy.manifest {
        return Ok((env.resolve(file), ManifestOrigin::Policy, file.clone()));
    }
    let default = Policy::DEFAULT_MANIFEST;
    match &env.crate_dir {
        Some(dir) if file::probe(&dir.join(default)) == file::Seen::File => Ok((
            dir.join(default),
            ManifestOrigin::Default,
            default.to_owned(),
        )),
        dir => {
            let place = match dir {
                Some(_) => "beside the crate's Cargo.toml",
                None => "in the crate",
            };
            Err(Problem::new(
                kernel_span,
                format!(
                    "no resource manifest to read `{kernel}` from: no build script gives one (a \
                     build.rs calling occupancy_core::build::Kernels does) and there is no \
                     {default} {place} (or the policy's `manifest`); or give \
                     `cubin = \"path\"`, `fatbin = \"path\"` or `regs = N`"
                ),
            ))
        }
    }
}

/// Reads a cubin or fatbin, relative to the crate; its kernels as a manifest.
fn read_binary(file: &Binary, env: &Env, roots: &Roots) -> Result<(PathBuf, Manifest), Problem> {
    let kind = file.kind;
    let written = &file.written;
    let what = match kind {
        SourceKind::Cubin => "cubin",
        _ => "fatbin",
    };
    if written.trim().is_empty() {
        return Err(Problem::new(
            file.span,
            format!("the {what} path is empty: give a path relative to the crate"),
        ));
    }
    let path = env.resolve(written);
    let bytes = roots
        .read(&path, what, file::MAX_BINARY_BYTES)
        .map_err(|e| {
            // Where the path led, unless inside the crate's directory (`kernels/k.cubin`).
            let resolved = lexical(&path);
            let inside = env
                .crate_dir
                .as_ref()
                .is_some_and(|dir| resolved.starts_with(lexical(dir)));
            let resolved = if inside {
                String::new()
            } else {
                format!(" ({})", resolved.display())
            };
            let hint = if Path::new(written).is_relative() {
                "; paths are relative to the crate's directory"
            } else {
                ""
            };
            Problem::new(
                file.span,
                format!("cannot read the {what} `{written}`{resolved}: {e}{hint}"),
            )
        })?;
    let fail = |e: occupancy_core::resources::ResourceError| {
        Problem::new(
            file.span,
            format!("cannot read the {what} `{written}`: {e}"),
        )
    };
    let kernels = match (kind, detect(&bytes)) {
        (SourceKind::Cubin, Some(InputKind::Fatbin)) => {
            return Err(Problem::new(
                file.span,
                format!("`{written}` is a fatbin, not a cubin: write `fatbin = \"{written}\"`"),
            ));
        }
        (SourceKind::Cubin, _) => cubin::parse(&bytes).map_err(fail)?.kernels,
        (_, Some(InputKind::Cubin)) => {
            return Err(Problem::new(
                file.span,
                format!("`{written}` is a cubin, not a fatbin: write `cubin = \"{written}\"`"),
            ));
        }
        (_, Some(InputKind::Fatbin)) => {
            fatbin::kernels(&fatbin::parse(&bytes).map_err(fail)?).map_err(fail)?
        }
        (_, Some(InputKind::HostElf)) => {
            fatbin::kernels(&fatbin::parse_host_elf(&bytes).map_err(fail)?).map_err(fail)?
        }
        (_, _) => {
            return Err(Problem::new(
                file.span,
                format!(
                    "cannot read the fatbin `{written}`: not a fatbin (no magic 0x{:08X}) nor a \
                     host ELF with a .nv_fatbin section",
                    fatbin::FATBIN_MAGIC
                ),
            ));
        }
    };
    let mut manifest = Manifest::new(concat!("occupancy-spec ", env!("CARGO_PKG_VERSION")));
    manifest.add_kernels(None, kernels);
    let path = std::path::absolute(&path).unwrap_or(path);
    Ok((path, manifest))
}

/// The name of the only kernel of a cubin or fatbin, or a problem listing them.
fn only_kernel(manifest: &Manifest, file: &Binary) -> Result<String, Problem> {
    let kernels = available(manifest);
    let what = match file.kind {
        SourceKind::Cubin => "cubin",
        _ => "fatbin",
    };
    match kernels.as_slice() {
        [(name, _)] => Ok(name.clone()),
        [] => Err(Problem::new(
            file.span,
            format!("the {what} `{}` holds no kernel", file.written),
        )),
        _ => Err(Problem::new(
            file.span,
            format!(
                "the {what} `{}` holds more than one kernel: choose one with `kernel = \"...\"`; \
                 {}",
                file.written,
                manifest.listing("")
            ),
        )),
    }
}

/// Every kernel's display name with its architectures, sorted.
fn available(manifest: &Manifest) -> Vec<(String, Vec<SmTarget>)> {
    let mut out: BTreeMap<&str, BTreeSet<SmTarget>> = BTreeMap::new();
    for k in &manifest.kernels {
        out.entry(k.resources.display_name())
            .or_default()
            .insert(k.resources.arch);
    }
    out.into_iter()
        .map(|(name, archs)| (name.to_owned(), archs.into_iter().collect()))
        .collect()
}

fn not_found(e: &LookupError, source: &Source) -> String {
    let mut message = format!("no kernel `{}` in {}", e.kernel, source.describe());
    if let Some(s) = &e.suggestion {
        message.push_str(&format!(" (did you mean `{s}`?)"));
    }
    if e.available.is_empty() {
        message.push_str(": it holds no kernel");
    } else {
        message.push_str(&format!("; {}", e.listing));
    }
    message
}

fn no_cubin_for(e: &LookupError, target: &Target, kernel: &str, source: &Source) -> String {
    let archs: Vec<String> = e.compiled_for.iter().map(SmTarget::to_string).collect();
    format!(
        "`{}` has no cubin that runs on {target} (compute capability {}) in {}: it was \
         compiled for {} (the driver loads a cubin of the same compute capability, or of a \
         lower one with the same major version)",
        kernel,
        target.arch.cc,
        source.describe(),
        archs.join(", ")
    )
}

/// How messages name a file the attribute found (not one it was given as written): relative
/// to the crate's directory when inside it (`target/debug/build/k-1f2e/out/occupancy/manifest.json`),
/// else the whole path.
fn shown_path(env: &Env, path: &Path) -> String {
    let resolved = lexical(path);
    env.crate_dir
        .as_ref()
        .and_then(|dir| resolved.strip_prefix(lexical(dir)).ok())
        .filter(|relative| !relative.as_os_str().is_empty())
        .unwrap_or(&resolved)
        .display()
        .to_string()
}

/// `path` with `.` and `..` components resolved by name (the file need not exist), for
/// messages.
fn lexical(path: &std::path::Path) -> PathBuf {
    use std::path::Component;
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir if out.file_name().is_some() => {
                out.pop();
            }
            // `/..` is `/`.
            Component::ParentDir if out.has_root() => {}
            other => out.push(other),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each kernel resolved with its registers on sm_80, or the problems.
    type Resolution = Result<Vec<(String, u32)>, Vec<String>>;

    /// `resolve` of `names` in a crate whose committed manifest has `kernels` (name, source
    /// file, registers on sm_80), with `embedded` as the wrapper file's embedded module:
    /// (the registers of each kernel resolved, or the problems; how often `embedded` was
    /// asked).
    fn resolve_in(
        kernels: &[(&str, &str, u32)],
        names: &[&str],
        embedded: Option<&str>,
    ) -> (Resolution, usize) {
        let dir = std::env::temp_dir().join(format!(
            "occupancy-spec-embedded-{}-{}",
            std::process::id(),
            names.join("-").replace(['*', ':'], "_")
        ));
        std::fs::create_dir_all(&dir).unwrap();
        let entries: Vec<String> = kernels
            .iter()
            .map(|(name, source, regs)| {
                format!(
                    r#"{{"source": "{source}", "name": "{name}", "arch": "sm_80", "origin": "cubin", "registers_per_thread": {regs}, "static_smem_bytes": 0, "local_bytes": 0, "barriers": 0, "max_registers": 255}}"#
                )
            })
            .collect();
        std::fs::write(
            dir.join("kernels.manifest.json"),
            format!(
                r#"{{"format": 1, "generator": "test", "sources": [], "kernels": [{}]}}"#,
                entries.join(", ")
            ),
        )
        .unwrap();
        let wanted = WantedKernels {
            names: names
                .iter()
                .map(|n| (n.to_string(), Span::call_site()))
                .collect(),
            key_span: Span::call_site(),
        };
        let targets = [WantedTarget {
            target: Target::parse("sm_80").unwrap(),
            span: Span::call_site(),
            from_attribute: false,
        }];
        let mut asked = 0;
        let mut problems = Vec::new();
        let resolved = resolve(
            None,
            Some(wanted),
            &Policy::default(),
            &Env::new(&dir),
            &targets,
            &mut || {
                asked += 1;
                embedded.map(str::to_owned)
            },
            &mut problems,
        );
        std::fs::remove_dir_all(&dir).unwrap();
        let out = match resolved {
            Some(r) => Ok(r
                .kernels
                .iter()
                .map(|k| {
                    let regs = k.resources[0].as_ref().unwrap().registers_per_thread;
                    (k.name.clone(), regs)
                })
                .collect()),
            None => Err(problems.into_iter().map(|p| p.message).collect()),
        };
        (out, asked)
    }

    #[test]
    fn a_name_of_several_modules_is_the_embedded_modules() {
        let kernels = [
            ("transpose", "src/conv2d/conv2d.cu", 32),
            ("transpose", "src/convtrans2d/convtrans2d.cu", 38),
            ("unfold", "src/conv2d/conv2d.cu", 20),
        ];
        assert_eq!(
            resolve_in(&kernels, &["transpose"], Some("convtrans2d")),
            (Ok(vec![("convtrans2d::transpose".to_owned(), 38)]), 1)
        );
        // A glob's ambiguous member too; a name only one module has needs no module.
        assert_eq!(
            resolve_in(&kernels, &["*"], Some("conv2d")),
            (
                Ok(vec![
                    ("conv2d::transpose".to_owned(), 32),
                    ("unfold".to_owned(), 20)
                ]),
                1
            )
        );
        assert_eq!(
            resolve_in(&kernels, &["unfold"], Some("conv2d")),
            (Ok(vec![("unfold".to_owned(), 20)]), 0)
        );
        // No embedded file, or one of a module without the name: still ambiguous.
        for embedded in [None, Some("pool")] {
            let (out, asked) = resolve_in(&kernels, &["transpose"], embedded);
            assert_eq!(asked, 1);
            let problems = out.unwrap_err();
            assert!(
                problems.len() == 1
                    && problems[0].starts_with("kernel name `transpose` is ambiguous"),
                "{problems:?}"
            );
        }
        // A name written with its module is that module's, whatever the file embeds.
        assert_eq!(
            resolve_in(&kernels, &["conv2d::transpose"], Some("convtrans2d")),
            (Ok(vec![("conv2d::transpose".to_owned(), 32)]), 0)
        );
    }

    /// The prepared pattern's quick refusal (its literal head and tail) never refuses a name
    /// the full match takes, nor takes one it refuses: every pattern of up to 4 of `a`, `b`,
    /// `*`, `?`, `é` against every name of up to 4 of `a`, `b`, `é`.
    #[test]
    fn a_prepared_wildcard_matches_as_the_full_match_does() {
        fn all(alphabet: &[char], max: usize) -> Vec<String> {
            let mut out = vec![String::new()];
            let mut last = vec![String::new()];
            for _ in 0..max {
                last = last
                    .iter()
                    .flat_map(|s| alphabet.iter().map(move |c| format!("{s}{c}")))
                    .collect();
                out.extend(last.iter().cloned());
            }
            out
        }
        let (mut taken, mut checked) = (0, 0);
        for pattern in all(&['a', 'b', '*', '?', 'é'], 4) {
            let prepared = Wildcard::new(&pattern);
            let p: Vec<char> = pattern.chars().collect();
            for name in all(&['a', 'b', 'é'], 4) {
                let n: Vec<char> = name.chars().collect();
                let full = wildcard_match_in(&p, &n, '*', '?');
                assert_eq!(prepared.matches(&name), full, "{pattern:?} {name:?}");
                taken += usize::from(full);
                checked += 1;
            }
        }
        assert_eq!(checked, 781 * 121);
        assert!(taken > 5_000, "{taken}");
    }

    #[test]
    fn brace_groups_match_only_their_alternatives() {
        let pattern = "cast_{bf16,f32,f8e4m3}_u8";
        assert!(is_glob(pattern));
        assert_eq!(
            alternatives(pattern),
            ["cast_bf16_u8", "cast_f32_u8", "cast_f8e4m3_u8"]
        );
        assert!(glob_match(pattern, "cast_f32_u8"));
        // A spelling no alternative gives is not matched, as `*` would match it.
        assert!(!glob_match(pattern, "cast_f8_e4m3_u8"));
        assert!(glob_match("cast_*_u8", "cast_f8_e4m3_u8"));
        // Two groups cross; a group mixes with wildcards.
        assert_eq!(alternatives("{a,b}_{x,y}").len(), 4);
        assert!(glob_match("{affine,ucopy}_f*", "ucopy_f64"));
        assert!(!glob_match("{affine,ucopy}_f*", "uelu_f64"));
    }

    /// `?` is one character, not one byte: names outside ASCII match as characters.
    #[test]
    fn wildcards_match_characters() {
        assert!(glob_match("k_?", "k_a"));
        assert!(!glob_match("k_?", "k_ab"));
        assert!(glob_match("k_?", "k_\u{3bb}"));
        assert!(glob_match("k_*\u{3bb}", "k_x\u{3bb}"));
        assert!(!glob_match("k_?x", "k_\u{3bb}"));
        assert!(glob_match("*_f*_*", "affine_f32_v2"));
        assert!(!glob_match("*_f*_*", "affine_f32"));
        assert!(glob_match("**", ""));
    }

    /// `#` is an integer as `{}` writes it: digits, a `-` allowed first, never nothing and
    /// never letters (`format!("k_{n}")` of an `n` not known does not make `k_f32`).
    #[test]
    fn the_integer_wildcard_matches_digits_only() {
        assert!(is_glob("k_#"));
        assert!(glob_match("k_#", "k_0"));
        assert!(glob_match("k_#", "k_1024"));
        assert!(glob_match("k_#", "k_-3"));
        assert!(!glob_match("k_#", "k_"));
        assert!(!glob_match("k_#", "k_f32"));
        assert!(!glob_match("k_#", "k_32f"));
        assert!(!glob_match("k_#", "k_-"));
        // Backtracking: the run of digits may end before the name's last digit.
        assert!(glob_match("k_#1", "k_11"));
        assert!(!glob_match("k_#1", "k_1"));
        assert!(glob_match("k_#_#", "k_32_8"));
        assert!(!glob_match("k_#_#", "k_32_x"));
        assert!(glob_match("*_#", "gemv_q4_k_16"));
        assert!(glob_match("{a,b}_#", "b_7"));
        assert!(!glob_match("{a,b}_#", "c_7"));
        assert!(glob_match("k?#*", "kx5tail"));
    }

    #[test]
    fn malformed_or_huge_brace_groups_are_literal() {
        assert!(!is_glob("k{a"));
        assert!(glob_match("k{a", "k{a"));
        assert!(!is_glob("k{a}"));
        assert_eq!(alternatives("k{{a,b}}"), ["k{{a,b}}"]);
        let huge = "{a,b,c,d}".repeat(5);
        assert_eq!(alternatives(&huge), vec![huge.clone()]);
        assert!(glob_match(&huge, &huge));
    }
}
