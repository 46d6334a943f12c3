//! `--format table`: the [`table::Launch`]es of the wrappers (a launch per plan and kernel,
//! a row per target, notes on how a launch not annotated was read and on its `cfg`), and
//! the summary lines under the table. [`table`] lays them out.

use occupancy_attr::{Diagnostic, Spec, TargetEvaluation};
use occupancy_core::lint::{LAUNCH_IMPOSSIBLE, Level, bytes_text, percent};

use std::fmt::Write as _;

use super::cuda::CudaSection;
use super::model::{Outcome, Report, Wrapper, attribute_text, counts, counts_of};
use super::table;

/// `low_occupancy (warn)`, one per reported finding.
fn findings_cells(spec: &Spec, findings: &[&Diagnostic]) -> Vec<String> {
    findings
        .iter()
        .map(|d| d.finding.lint)
        .filter(|lint| spec.level(lint) != Level::Allow)
        .map(|lint| format!("{} ({})", lint.name, spec.level(lint)))
        .collect()
}

/// The table's launches: per wrapper, one per plan and kernel (its label and kernel in the
/// heading), each with a row per target; errors and notes under them.
pub(super) fn launches(wrappers: &[Wrapper]) -> Vec<table::Launch> {
    let mut out = Vec::new();
    for w in wrappers {
        let first = out.len();
        let launch = |subject: String, kernel: Option<String>| table::Launch {
            location: w.location.clone(),
            subject,
            kernel,
            tag: None,
            rows: Vec::new(),
            errors: Vec::new(),
            notes: Vec::new(),
        };
        match &w.outcome {
            Outcome::Errors(errors) => {
                let mut l = launch(w.name.clone(), w.kernel());
                l.errors.clone_from(errors);
                out.push(l);
            }
            Outcome::NotChecked(why) => {
                let mut l = launch(w.name.clone(), w.kernel());
                // A CUDA C++ path's reasons say "not checked" themselves.
                let prefix = if w.cuda.is_some() {
                    ""
                } else {
                    "not checked: "
                };
                l.notes.extend(why.iter().map(|w| format!("{prefix}{w}")));
                out.push(l);
            }
            Outcome::BuildOnly(why) => {
                let mut l = launch(w.name.clone(), None);
                l.notes.push(why.clone());
                out.push(l);
            }
            Outcome::Constant(inputs, unread) => {
                let mut l = launch(w.name.clone(), w.kernel());
                l.notes.push(format!(
                    "not evaluated: constant {} (checked by the compiler){}",
                    inputs.join(", "),
                    if unread.is_empty() {
                        String::new()
                    } else {
                        format!("; not read: {}", unread.join("; "))
                    }
                ));
                out.push(l);
            }
            Outcome::Evaluated(spec, evaluation) => {
                for case in &evaluation.cases {
                    let plan = &spec.plans[case.plan];
                    let case_kernel = case
                        .kernel
                        .and_then(|k| spec.kernels.get(k))
                        .map(|k| k.name.clone());
                    // A finding concerns this case when the case is one it stands for: its
                    // plan with its kernel, or a member of the family or the run-time range
                    // its note lists.
                    let of_case = |d: &&Diagnostic| {
                        d.members
                            .iter()
                            .any(|&(p, k)| p == case.plan && (k.is_none() || k == case.kernel))
                    };
                    let subject = match &plan.label {
                        Some(label) => format!("{} ({label})", w.name),
                        None => w.name.clone(),
                    };
                    let mut l = launch(subject, case_kernel.clone().or_else(|| w.kernel()));
                    for t in &case.targets {
                        // Launch-scoped findings (no targets) concern every target.
                        let findings: Vec<&Diagnostic> = evaluation
                            .diagnostics
                            .iter()
                            .filter(|d| d.targets.is_empty() || d.targets.contains(&t.target))
                            .filter(of_case)
                            .collect();
                        l.rows.push(row(spec, t, &findings));
                    }
                    out.push(l);
                }
            }
        }
        if let Outcome::Evaluated(spec, _) = &w.outcome
            && let Some(last) = out[first..].last_mut()
        {
            // Members of the family left out where they have no cubin.
            for (index, t) in spec.targets.iter().enumerate() {
                if let Some(note) = spec.left_out_note(index) {
                    last.notes.push(format!("{}: {note}", t.target));
                }
            }
        }
        notes(w, &mut out[first..]);
    }
    out
}

/// The row of one target: the launch, its occupancy (or why it cannot launch), the
/// limiter and the reported `findings` on it.
fn row(spec: &Spec, t: &TargetEvaluation, findings: &[&Diagnostic]) -> table::Row {
    let impossible = findings
        .iter()
        .any(|d| *d.finding.lint == LAUNCH_IMPOSSIBLE);
    let (occupancy, limiter) = match &t.occupancy {
        Ok(o) if o.blocks_per_sm == 0 => ("0% (cannot launch)".to_owned(), o.limiters.to_string()),
        // Fits by the occupancy model, refused at launch (the kernel's
        // __launch_bounds__).
        Ok(_) if impossible => ("0% (cannot launch)".to_owned(), "launch bounds".to_owned()),
        Ok(o) => (
            format!(
                "{} ({}/{} warps)",
                percent(o.active_warps_per_sm(), o.max_warps_per_sm),
                o.active_warps_per_sm(),
                o.max_warps_per_sm
            ),
            o.limiters.to_string(),
        ),
        Err(e) => (format!("error: {e}"), "-".to_owned()),
    };
    table::Row {
        target: t.target.to_string(),
        block: t.launch.block.to_string(),
        smem: bytes_text(t.launch.dynamic_smem_bytes.into()),
        occupancy,
        limiter,
        findings: findings_cells(spec, findings),
    }
}

/// The notes under a wrapper's last launch (`launches`: its launches in the table): how a
/// launch not annotated was read, and the `cfg` it is under.
fn notes(w: &Wrapper, launches: &mut [table::Launch]) {
    if let Some(site) = &w.site {
        for l in launches.iter_mut() {
            l.tag = Some("[not annotated]".to_owned());
        }
        if let Some(last) = launches.last_mut() {
            let mut said = vec![site.how.to_owned()];
            if site.launches > 1 {
                said.push(format!("{} launches", site.launches));
            }
            if let Some(via) = &site.via {
                said.push(format!("through {via}"));
            }
            if let Some(from) = &site.kernel_from {
                said.push(format!("kernel: {from}"));
            }
            if let Some(args) = &site.args {
                said.push(format!("read as {}", attribute_text(args)));
            }
            last.notes.push(format!("^ {}", said.join("; ")));
        }
    }
    if !w.conditions.is_empty()
        && let Some(last) = launches.last_mut()
    {
        last.notes
            .push(format!("^ {}", conditional_note(&w.conditions)));
    }
}

/// `conditional, under cfg_attr(not(feature = "x")): checked as if the predicate held`.
fn conditional_note(conditions: &[String]) -> String {
    format!(
        "conditional, under {}: checked as if {} held",
        conditions.join(" and "),
        if conditions.len() == 1 {
            "the predicate"
        } else {
            "the predicates"
        }
    )
}

/// Two lines: the wrappers by outcome, then the findings and errors (with `--all`, a line
/// on the launching functions not annotated first).
pub(super) fn summary_text(wrappers: &[Wrapper]) -> String {
    let (plain, found): (Vec<&Wrapper>, Vec<&Wrapper>) =
        wrappers.iter().partition(|w| w.site.is_none());
    let mut text = String::new();
    if !found.is_empty() {
        let f = counts_of(&found);
        let launches: usize = found
            .iter()
            .filter_map(|w| w.site.as_ref())
            .map(|s| s.launches)
            .sum();
        // One entry per launch: the functions are the distinct (file, name) pairs.
        let functions = found
            .iter()
            .map(|w| (super::model::natural(&w.location).0, w.name.as_str()))
            .collect::<std::collections::BTreeSet<_>>()
            .len();
        text.push_str(&format!(
            "{} launch{} in {} function{} not annotated: {} evaluated, {} with constants, {} \
             not checked\n",
            launches,
            if launches == 1 { "" } else { "es" },
            functions,
            plural(functions),
            f.evaluated,
            f.constant,
            f.not_checked,
        ));
    }
    let c = counts(wrappers);
    let p = counts_of(&plain);
    text + &format!(
        "{} wrapper{}: {} evaluated, {} with constants left to the compiler, {} with errors{}\n\
         findings: {} deny-level, {} warning{}; {} error{}\n",
        p.wrappers,
        plural(p.wrappers),
        p.evaluated,
        p.constant,
        plain
            .iter()
            .filter(|w| matches!(w.outcome, Outcome::Errors(_)))
            .count(),
        if p.not_checked > 0 {
            format!(", {} checked only by the build", p.not_checked)
        } else {
            String::new()
        },
        c.deny,
        c.warn,
        plural(c.warn),
        c.errors,
        plural(c.errors),
    ) + &conditional_summary(wrappers)
}

/// The line on the conditional wrappers, if any: how many, and what they add to the exit
/// status.
fn conditional_summary(wrappers: &[Wrapper]) -> String {
    let some: Vec<&Wrapper> = wrappers
        .iter()
        .filter(|w| !w.conditions.is_empty())
        .collect();
    if some.is_empty() {
        return String::new();
    }
    let c = counts_of(&some);
    format!(
        "{} conditional wrapper{} (under #[cfg] or cfg_attr, which report does not evaluate; \
         checked as if the predicates held): {} deny-level finding{}, {} error{} among them, \
         counted in the exit status like the others\n",
        c.wrappers,
        plural(c.wrappers),
        c.deny,
        plural(c.deny),
        c.errors,
        plural(c.errors),
    )
}

pub(super) fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

/// The table of `report`: the header, the Rust launches, the summary, then the CUDA C++
/// launches (`findings_only`: only the targets with a reported finding). A kind of launch
/// the crate has none of is one line saying so, without its manifest, table or summary.
pub(super) fn document(report: &Report, findings_only: bool) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "crate {} ({})",
        report.package,
        report.crate_dir.display()
    );
    if report.wrappers.is_empty() {
        table::wrap(&mut s, &no_rust_launches(report.cuda.is_some()), 0, 2);
    } else {
        rust_table(&mut s, report, findings_only);
    }
    for line in &report.unreadable {
        table::wrap(
            &mut s,
            &format!("error: cannot read {line} (its wrappers are not checked)"),
            0,
            2,
        );
    }
    if !report.wrappers.is_empty() {
        s.push('\n');
        for line in summary_text(&report.wrappers).lines() {
            table::wrap(&mut s, line, 0, 2);
        }
    }
    if let Some(c) = &report.cuda {
        s.push('\n');
        cuda_section(&mut s, c, findings_only);
    }
    s
}

/// The line that stands for the Rust section of a crate with nothing in it (`all`:
/// `--all`, which looks for every launch, not only the attributes).
fn no_rust_launches(all: bool) -> String {
    let place = "in the crate's Rust code (src/, examples/, benches/, tests/)";
    if all {
        format!("Rust launches: none found {place}")
    } else {
        format!(
            "#[occupancy::check] wrappers: none found {place}; `--all` lists every kernel \
             launch, annotated or not, and the CUDA C++ ones"
        )
    }
}

/// The resource manifest the Rust wrappers read (and whether it is stale), then their table.
fn rust_table(s: &mut String, report: &Report, findings_only: bool) {
    let manifest_line = match &report.manifest {
        Some(path) => format!(
            "resource manifest: {} ({})",
            path.strip_prefix(&report.crate_dir)
                .unwrap_or(path)
                .display(),
            report.manifest_origin
        ),
        None => format!("resource manifest: {}", report.manifest_origin),
    };
    table::wrap(s, &manifest_line, 0, 2);
    if let Some(warning) = &report.stale {
        table::wrap(s, &format!("warning: {warning}"), 0, 2);
    }
    s.push('\n');
    s.push_str(&table::render(&launches(&report.wrappers), findings_only));
}

/// The CUDA C++ launches (`--all`): where they were read and their resources, the table,
/// the notes and the counts; or, with no launch site, one line saying so (and the notes).
fn cuda_section(s: &mut String, c: &CudaSection, findings_only: bool) {
    if c.counts.sites == 0 {
        let line = match (c.files, c.dirs.is_empty()) {
            (_, true) => format!(
                "CUDA C++ launches: none: no source folder found (looked for {})",
                super::cuda::DEFAULT_DIRS.join(", ")
            ),
            (0, false) => format!(
                "CUDA C++ launches: none: no .cu / .cuh file under {}",
                c.dirs.join(", ")
            ),
            (n, false) => format!(
                "CUDA C++ launches: none in the {n} .cu / .cuh file{} read under {}",
                plural(n),
                c.dirs.join(", ")
            ),
        };
        table::wrap(s, &line, 0, 2);
        for note in &c.notes {
            table::wrap(s, &format!("note: {note}"), 0, 2);
        }
        return;
    }
    let header = format!(
        "CUDA C++ launches ({}; resources: {})",
        c.dirs.join(", "),
        c.resources
    );
    table::wrap(s, &header, 0, 2);
    s.push('\n');
    s.push_str(&table::render(&launches(&c.wrappers), findings_only));
    for note in &c.notes {
        table::wrap(s, &format!("note: {note}"), 0, 2);
    }
    let counts = counts(&c.wrappers);
    s.push('\n');
    let line = format!(
        "{}; {} deny-level finding{}, {} warning{}",
        c.counts,
        counts.deny,
        plural(counts.deny),
        counts.warn,
        plural(counts.warn),
    );
    table::wrap(s, &line, 0, 2);
}
