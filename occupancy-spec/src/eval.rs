//! Running the engine and the lints on a [`Spec`]: every plan, every kernel of the family,
//! every target; then the findings grouped into diagnostics.
//!
//! The kernel's resources differ per target (ptxas allocates registers per architecture),
//! so [`occupancy_core::lint::check`] runs once per (plan, kernel, target), with that
//! target's kernel and artifact facts and a one-target [`LaunchSpec`]. Launch-scoped lints
//! (which do not depend on the GPU) are kept from the first target only, as `check` itself
//! does for a list of targets. A member of a family with no cubin for a target is not
//! checked there; its target-scoped findings there carry a note naming the members left
//! out.
//!
//! Grouping, so that a family of 89 kernels or a target list with three names of one
//! architecture does not print the same warning many times:
//!
//! 1. one diagnostic per lint, plan and target for all the kernels it fires on, and for all
//!    the members of a run-time range of one launch (`Plan::range`: the block sizes a
//!    `next_power_of_two().min(1024)` can take): the worst finding (lowest occupancy on that
//!    target), with a note listing the others, worst first; with [`Grouping::OnePerPlace`]
//!    (the attribute's expansion), those of one lint and target whose worst findings are
//!    reported at one token are then one, over every plan;
//! 2. then one per distinct result: targets whose diagnostics are the same but for the
//!    target's name (`sm_89`, `RTX 4090`, `L4`) are named together in one; with
//!    [`Grouping::OneErrorPerLaunch`] (the attribute's and the report's Rust wrappers),
//!    `launch_impossible` on targets of any architecture too (`on sm_80, sm_90: block of
//!    2000 threads exceeds the 1024 threads per block sm_80 / sm_90 allows`).
//!
//! A launch that cannot run on a target gets no other finding there (its occupancy, warps
//! or grid are moot), and none of the launch-scoped lints (`partial_warp`) when it can run
//! on no target: the error alone.

use occupancy_core::arch::Target;
use occupancy_core::lint::{Finding, LAUNCH_IMPOSSIBLE, LaunchSpec, Scope, bytes_text, check};
use occupancy_core::occupancy::{Kernel, Launch, Occupancy, OccupancyError, occupancy};
use occupancy_core::resources::KernelResources;

use crate::spec::{Source, SourceKind, Spec, TargetsOrigin};

/// The most members of a group (kernels of a family, launches of a run-time range) a
/// finding's note names beside the worst; the rest are counted.
pub const MAX_NAMED_MEMBERS: usize = 12;

/// The engine's answer and the lints' diagnostics for every plan, kernel and target of a
/// [`Spec`].
#[derive(Clone, Debug)]
pub struct Evaluation {
    /// One per (plan, kernel), plans in order, kernels in order within each.
    pub cases: Vec<Case>,
    /// Every diagnostic, whatever its level ([`Spec::level`] decides what to report):
    /// launch-scoped lints first, then target by target, plan by plan.
    pub diagnostics: Vec<Diagnostic>,
}

/// One plan with one kernel, on every target.
#[derive(Clone, Debug)]
pub struct Case {
    /// Index into [`Spec::plans`].
    pub plan: usize,
    /// Index into [`Spec::kernels`]; `None` when the attribute gives the resources.
    pub kernel: Option<usize>,
    /// One per target the kernel is checked on (a member of a family is not where it has
    /// no cubin: [`Spec::on_target`]), in order.
    pub targets: Vec<TargetEvaluation>,
}

/// One target of a [`Case`].
#[derive(Clone, Debug)]
pub struct TargetEvaluation {
    /// The target.
    pub target: Target,
    /// The kernel as the engine saw it on this target.
    pub kernel: Kernel,
    /// The launch.
    pub launch: Launch,
    /// The engine's answer.
    pub occupancy: Result<Occupancy, OccupancyError>,
}

/// A finding as it is reported: for one plan, for one or more kernels and targets.
#[derive(Clone, Debug)]
pub struct Diagnostic {
    /// The finding (of the worst kernel; naming every target it concerns).
    pub finding: Finding,
    /// Index into [`Spec::plans`].
    pub plan: usize,
    /// The kernels it concerns, worst first (empty without compiled kernels).
    pub kernels: Vec<String>,
    /// Every (plan, kernel) case it stands for, worst first: `(plan, its worst kernel)`
    /// first, then the family's other kernels and the other members of a run-time range,
    /// which its note lists (indices into [`Spec::plans`] and [`Spec::kernels`]).
    pub members: Vec<(usize, Option<usize>)>,
    /// The targets it concerns (empty for launch-scoped lints).
    pub targets: Vec<Target>,
}

/// A finding of one plan and kernel, with the occupancy percent on its target (-1 where
/// the launch cannot run).
type Member = (usize, Option<usize>, Finding, f64);

/// A token's start and end ([`crate::Location::place`]).
type Place = ((usize, usize), (usize, usize));

/// Worst first: the lowest occupancy on its target (an impossible launch, -1, first of
/// all); a stable sort keeps the plans' and the family's order among equals.
fn worst_first(a: &Member, b: &Member) -> std::cmp::Ordering {
    a.3.total_cmp(&b.3)
}

/// Which targets' diagnostics [`Spec::evaluate_grouped`] names together.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Grouping {
    /// Targets of one architecture whose diagnostics differ only in the target's name.
    SameArchitecture,
    /// Those, and `launch_impossible` on targets of any architecture that it states alike
    /// but for the architecture: one error per launch that cannot run.
    OneErrorPerLaunch,
    /// Those of [`Grouping::OneErrorPerLaunch`], and the first stage's diagnostics of one
    /// lint and target reported at one token ([`Spec::span_of`] of their worst finding) as
    /// one, for every plan, kernel and member of a run-time range they stand for: the
    /// attribute's expansion, whose diagnostics are warnings at a token (the arms of a
    /// `match` that launch the kernels of one `kernel = [...]` family with their own blocks
    /// are one warning at `kernel` per target, not one per arm). Not for a report that tells
    /// its launch sites apart ([`Diagnostic::plan`] is the worst member's). A diagnostic of
    /// a file's line is not merged.
    OnePerPlace,
}

impl Spec {
    /// [`Spec::evaluate_grouped`] with [`Grouping::SameArchitecture`] (a C++ launch's
    /// build-script lines: one per architecture).
    pub fn evaluate(&self) -> Option<Evaluation> {
        self.evaluate_grouped(Grouping::SameArchitecture)
    }

    /// Runs the engine and every lint on each plan, kernel and target. `None` when a value
    /// is a constant expression the front end could not read (only the compiler can
    /// evaluate it: see [`Spec::const_inputs`]).
    ///
    /// Target-scoped findings on a target whose resources came from a compiled kernel get
    /// one more note saying which artifact and what it holds.
    pub fn evaluate_grouped(&self, grouping: Grouping) -> Option<Evaluation> {
        let family = self.kernels.len() > 1;
        let mut cases = Vec::new();
        // (plan, kernel, finding, occupancy percent on its target) in check order.
        let mut found: Vec<Member> = Vec::new();
        for (p, plan) in self.plans.iter().enumerate() {
            let launch = plan.launch()?;
            let grid = plan.grid_dim();
            for k in self.plan_kernels(p) {
                let mut parts: Vec<String> = plan.label.iter().cloned().collect();
                if family && let Some(kernel) = k.and_then(|k| self.kernels.get(k)) {
                    parts.push(format!("kernel {}", kernel.name));
                }
                let subject = if parts.is_empty() {
                    self.wrapper.clone()
                } else {
                    format!("{} ({})", self.wrapper, parts.join(", "))
                };
                let mut targets = Vec::with_capacity(self.targets.len());
                let mut case_found = Vec::new();
                for (index, target) in self.targets.iter().enumerate() {
                    // A member of the family with no cubin for this target is not part of
                    // the family there.
                    if !self.on_target(k, index) {
                        continue;
                    }
                    let first_target = targets.is_empty();
                    let kernel = self.kernel(k, index)?;
                    let one = [target.target];
                    let spec = LaunchSpec {
                        min_occupancy: self.min_occupancy,
                        class: self.class,
                        grid,
                        cluster: self.cluster(k, index),
                        artifact: self.artifact(k, index),
                        thresholds: self.thresholds,
                        ..LaunchSpec::new(&subject, &one, kernel, launch)
                    };
                    let result = occupancy(target.target.arch, &kernel, &launch);
                    let percent = result.as_ref().map_or(-1.0, Occupancy::percent);
                    for mut finding in check(&spec) {
                        match finding.lint.scope {
                            Scope::Launch if !first_target => continue,
                            Scope::Launch => {}
                            Scope::Target => {
                                if let Some(note) = self.targets_note() {
                                    finding.notes.push(note);
                                }
                                if let (Some(resources), Some(source)) =
                                    (self.resources(k, index), self.source.as_ref())
                                {
                                    let name = k
                                        .and_then(|k| self.kernels.get(k))
                                        .map_or("", |k| k.name.as_str());
                                    finding
                                        .notes
                                        .push(self.resources_note(name, resources, source));
                                }
                                if let Some(note) = self.left_out_note(index) {
                                    finding.notes.push(note);
                                }
                            }
                        }
                        finding.notes.extend(plan.notes.iter().cloned());
                        case_found.push((p, k, finding, percent));
                    }
                    targets.push(TargetEvaluation {
                        target: target.target,
                        kernel,
                        launch,
                        occupancy: result,
                    });
                }
                found.extend(only_the_error_where_impossible(case_found, &targets));
                cases.push(Case {
                    plan: p,
                    kernel: k,
                    targets,
                });
            }
        }
        let by_kernel = self.group_kernels(found, grouping == Grouping::OnePerPlace);
        Some(Evaluation {
            cases,
            diagnostics: group_targets(by_kernel, grouping),
        })
    }

    /// Stage 1: one diagnostic per (plan or range, lint, target) over the kernels and range
    /// members it fires on; with `by_place`, those then merged where their worst members
    /// are reported at one token ([`Spec::merge_at_places`]).
    fn group_kernels(&self, found: Vec<Member>, by_place: bool) -> Vec<Diagnostic> {
        let mut groups: Vec<Vec<Member>> = Vec::new();
        let mut keys: Vec<((bool, usize), &'static str, Option<Target>)> = Vec::new();
        for (p, k, finding, percent) in found {
            let group = match self.plans.get(p).and_then(|plan| plan.range) {
                Some(range) => (true, range),
                None => (false, p),
            };
            let key = (group, finding.lint.name, finding.target);
            match keys.iter().position(|x| *x == key) {
                Some(i) => groups[i].push((p, k, finding, percent)),
                None => {
                    keys.push(key);
                    groups.push(vec![(p, k, finding, percent)]);
                }
            }
        }
        if by_place {
            groups = self.merge_at_places(groups);
        }
        // Launch-scoped findings first, as `check` orders them.
        let mut out: Vec<Diagnostic> = Vec::new();
        for mut members in groups {
            members.sort_by(worst_first);
            let kernel_name =
                |k: Option<usize>| k.and_then(|k| self.kernels.get(k)).map(|k| k.name.clone());
            let mut kernels: Vec<String> = Vec::new();
            for (_, k, _, _) in &members {
                if let Some(name) = kernel_name(*k)
                    && !kernels.contains(&name)
                {
                    kernels.push(name);
                }
            }
            let cases: Vec<(usize, Option<usize>)> =
                members.iter().map(|(p, k, _, _)| (*p, *k)).collect();
            let (plan, _, mut finding, _) = members[0].clone();
            let one_plan = members.iter().all(|m| m.0 == plan);
            let range_of = |p: usize| self.plans.get(p).and_then(|plan| plan.range);
            let one_range =
                range_of(plan).is_some() && members.iter().all(|m| range_of(m.0) == range_of(plan));
            if members.len() > 1 {
                let family = self.kernels.len() > 1;
                let others: Vec<String> = members[1..]
                    .iter()
                    .map(|(p, k, _, percent)| {
                        let mut name = Vec::new();
                        if !one_plan
                            && let Some(label) = self.plans.get(*p).and_then(|p| p.label.clone())
                        {
                            name.push(label);
                        }
                        if family && let Some(kernel) = kernel_name(*k) {
                            name.push(if one_plan {
                                kernel
                            } else {
                                format!("kernel {kernel}")
                            });
                        }
                        let name = name.join(", ");
                        if *percent >= 0.0 && finding.target.is_some() {
                            format!("{name} ({})", percent_text(*percent))
                        } else {
                            name
                        }
                    })
                    .collect();
                let n = others.len();
                let launches = if n == 1 { "launch" } else { "launches" };
                let what = if one_plan {
                    format!("kernel{} of the family", if n == 1 { "" } else { "s" })
                } else if one_range {
                    format!("{launches} of the same run-time range")
                } else {
                    format!("{launches} of `{}` here", self.wrapper)
                };
                // Past a screenful the rest are counted, not named (candle's reduce makes 42
                // launches of one range): `cargo occupancy report` lists each.
                let mut named =
                    others[..n.min(MAX_NAMED_MEMBERS)].join(if one_plan { ", " } else { "; " });
                if n > MAX_NAMED_MEMBERS {
                    named.push_str(&format!(
                        "; and {} more (`cargo occupancy report` lists each)",
                        n - MAX_NAMED_MEMBERS
                    ));
                }
                finding
                    .notes
                    .push(format!("also {n} more {what}, worst first: {named}"));
            }
            let targets = finding.target.into_iter().collect();
            out.push(Diagnostic {
                finding,
                plan,
                kernels,
                members: cases,
                targets,
            });
        }
        let (mut launch, target): (Vec<_>, Vec<_>) = out
            .into_iter()
            .partition(|d| d.finding.lint.scope == Scope::Launch);
        launch.extend(target);
        launch
    }

    /// Groups of one lint and target whose worst members are reported at one token, as one
    /// group (in the order of their first).
    fn merge_at_places(&self, groups: Vec<Vec<Member>>) -> Vec<Vec<Member>> {
        type Key = (Place, &'static str, Option<Target>);
        let mut out: Vec<Vec<Member>> = Vec::new();
        let mut keys: Vec<Option<Key>> = Vec::new();
        for mut members in groups {
            members.sort_by(worst_first);
            let (p, _, finding, _) = &members[0];
            let key = self
                .span_of(finding.input, *p)
                .place()
                .map(|place| (place, finding.lint.name, finding.target));
            match key.and_then(|key| keys.iter().position(|k| *k == Some(key))) {
                Some(i) => out[i].extend(members),
                None => {
                    keys.push(key);
                    out.push(members);
                }
            }
        }
        out
    }

    /// `targets sm_80, sm_86: the ones the build script compiles for (occupancy.toml names
    /// no targets)`, when that is where the targets came from.
    fn targets_note(&self) -> Option<String> {
        (self.targets_origin == TargetsOrigin::Build).then(|| {
            let names: Vec<String> = self.targets.iter().map(|t| t.target.to_string()).collect();
            format!(
                "targets {}: the ones the build script compiles for (occupancy.toml names no \
                 targets)",
                names.join(", ")
            )
        })
    }

    /// `transpose_tiled: 39 regs/thread, 4224 B static shared memory, 1 barrier, from its
    /// sm_80 cubin in the resource manifest kernels.manifest.json` (and what the attribute
    /// overrides; `ptxas -v log` when the manifest's numbers came from one).
    fn resources_note(&self, kernel: &str, r: &KernelResources, source: &Source) -> String {
        let mut facts = vec![
            format!("{} regs/thread", r.registers_per_thread),
            format!(
                "{} static shared memory",
                bytes_text(r.static_smem_bytes.into())
            ),
        ];
        if let Some(b) = r.barriers {
            facts.push(format!("{b} barrier{}", if b == 1 { "" } else { "s" }));
        }
        match (r.max_threads_per_block(), r.min_blocks_per_sm) {
            (Some(t), Some(m)) => facts.push(format!("__launch_bounds__({t}, {m})")),
            (Some(t), None) => facts.push(format!("__launch_bounds__({t})")),
            _ => {}
        }
        if let Some(spill) = r.spill_store_bytes.filter(|s| *s > 0) {
            facts.push(format!("{spill} B spill stores"));
        }
        let from = match source.kind {
            SourceKind::Cubin => format!("from {}", source.describe()),
            _ => format!("from its {} {} in {}", r.arch, r.origin, source.describe()),
        };
        let name = if kernel.is_empty() {
            &source.kernel
        } else {
            kernel
        };
        let mut note = format!("{name}: {}, {from}", facts.join(", "));
        let overridden: Vec<&str> = [
            ("regs", self.regs.is_some()),
            ("static_smem", self.static_smem.is_some()),
            ("barriers", self.barriers.is_some()),
            ("max_threads", self.max_threads.is_some()),
        ]
        .into_iter()
        .filter_map(|(key, given)| given.then_some(key))
        .collect();
        if !overridden.is_empty() {
            note.push_str(&format!(
                "; the attribute's `{}` override{} it",
                overridden.join("`, `"),
                if overridden.len() == 1 { "s" } else { "" }
            ));
        }
        note
    }
}

/// The findings of one plan and kernel on its `targets`, less those beside a
/// `launch_impossible`: on a target where the launch cannot run, only the error; where it
/// can run on no target, no launch-scoped finding either.
fn only_the_error_where_impossible<T>(
    found: Vec<(usize, Option<usize>, Finding, T)>,
    targets: &[TargetEvaluation],
) -> Vec<(usize, Option<usize>, Finding, T)> {
    let impossible: Vec<Target> = found
        .iter()
        .filter(|(_, _, f, _)| *f.lint == LAUNCH_IMPOSSIBLE)
        .filter_map(|(_, _, f, _)| f.target)
        .collect();
    let runs_somewhere = targets.iter().any(|t| !impossible.contains(&t.target));
    found
        .into_iter()
        .filter(|(_, _, f, _)| {
            *f.lint == LAUNCH_IMPOSSIBLE
                || f.target
                    .map_or(runs_somewhere, |target| !impossible.contains(&target))
        })
        .collect()
}

/// Stage 2: diagnostics that differ only in their target's name, as one naming them all
/// (of one architecture; any, for `launch_impossible` with [`Grouping::OneErrorPerLaunch`]).
fn group_targets(diagnostics: Vec<Diagnostic>, grouping: Grouping) -> Vec<Diagnostic> {
    let mut out: Vec<Diagnostic> = Vec::new();
    for d in diagnostics {
        let Some(target) = d.targets.first().copied() else {
            out.push(d);
            continue;
        };
        let masked = mask(&d.finding, &target);
        let masked_arch = mask_arch(&d.finding, &target);
        let across = grouping != Grouping::SameArchitecture && *d.finding.lint == LAUNCH_IMPOSSIBLE;
        let same = out.iter_mut().find(|o| {
            o.plan == d.plan
                && o.finding.lint == d.finding.lint
                && o.kernels == d.kernels
                && o.targets.first().is_some_and(|t| {
                    if t.arch.cc == target.arch.cc {
                        mask(&o.finding, t) == masked
                    } else {
                        across && mask_arch(&o.finding, t) == masked_arch
                    }
                })
        });
        match same {
            Some(o) => o.targets.push(target),
            None => out.push(d),
        }
    }
    for d in &mut out {
        if d.targets.len() > 1 {
            name_targets(d);
        }
    }
    out
}

/// The subject of a diagnostic for several targets names them all (`on sm_80, sm_90:`);
/// where they are of several architectures, what the text says of the first's is said of
/// each (`the 1024 threads per block sm_80 / sm_90 allows`).
fn name_targets(d: &mut Diagnostic) {
    let first = d.targets[0];
    let all: Vec<String> = d.targets.iter().map(ToString::to_string).collect();
    let mut archs: Vec<&str> = Vec::new();
    for t in &d.targets {
        if !archs.contains(&t.arch.sm) {
            archs.push(t.arch.sm);
        }
    }
    let each = archs.join(" / ");
    let several = archs.len() > 1;
    let needle = format!(" on {first}");
    let message = &mut d.finding.message;
    let Some(at) = message.find(&needle) else {
        return;
    };
    let mut rest = message.split_off(at + needle.len());
    message.truncate(at);
    message.push_str(&format!(" on {}", all.join(", ")));
    if several {
        rest = rest.replace(first.arch.sm, &each);
        for line in d.finding.notes.iter_mut().chain(d.finding.helps.iter_mut()) {
            *line = line.replace(first.arch.sm, &each);
        }
    }
    message.push_str(&rest);
}

/// The finding's text with its target's name (in the message's subject, `... on sm_89:`)
/// replaced, for comparing across targets.
fn mask(f: &Finding, target: &Target) -> (String, Vec<String>, Vec<String>) {
    let subject = format!(" on {target}");
    (
        f.message.replacen(&subject, " on \u{0}", 1),
        f.notes.clone(),
        f.helps.clone(),
    )
}

/// The finding's text with its target's name and architecture (`sm_90`) replaced wherever
/// they are, for comparing across architectures.
fn mask_arch(f: &Finding, target: &Target) -> (String, Vec<String>, Vec<String>) {
    let name = target.to_string();
    let hide = |text: &String| {
        text.replace(&name, "\u{0}")
            .replace(target.arch.sm, "\u{0}")
    };
    (
        hide(&f.message),
        f.notes.iter().map(hide).collect(),
        f.helps.iter().map(hide).collect(),
    )
}

/// `37.5%`, `66.67%`.
fn percent_text(percent: f64) -> String {
    let rounded = (percent * 100.0).round() / 100.0;
    let text = format!("{rounded:.2}");
    let text = text.trim_end_matches('0').trim_end_matches('.');
    format!("{text}%")
}
