//! Evaluation: each attribute found, and each launch `--all` found in a function without
//! one, parsed and evaluated by the attribute's own front end (`occupancy_attr::parse`,
//! then `Spec::evaluate`) into a [`Wrapper`].

use std::cell::OnceCell;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use occupancy_attr::{Env, Grouping, LaunchAt};
use proc_macro2::Span;
use syn::visit::Visit;

use occupancy_core::resources::manifest::Manifest;

use super::finder::{Finder, Found};
use super::fit;
use super::model::{Outcome, Site, Wrapper};
use super::sites;
use super::walk::Parsed;

/// Parses and evaluates one attribute with the attribute's own front end.
pub(super) fn evaluate(file: &Parsed, found: Found, env: &Env) -> Wrapper {
    let shown = &file.shown;
    let location = format!("{shown}:{}", found.line);
    let name = found.sig.ident.to_string();
    let at = |span: Span| {
        let at = span.start();
        format!("{shown}:{}:{}", at.line, at.column + 1)
    };
    let conditions = found.conditions;
    let env = env.clone().with_source_file(&file.path);
    // A body left out as past the parser's limits is not read, as the macro does not read
    // it: the attribute's keys still check the launch.
    let unread = file
        .skipped
        .iter()
        .find(|s| {
            s.body_of.as_deref() == Some(name.as_str())
                && found.body.as_ref().is_some_and(|b| {
                    let (at, body) = (s.span.start(), b.brace_token.span.open().start());
                    (at.line, at.column) == (body.line, body.column)
                })
        })
        .map(|s| format!("the body was not read: {}", s.why));
    let wrapper = occupancy_attr::Wrapper {
        sig: &found.sig,
        body: if unread.is_some() {
            None
        } else {
            found.body.as_ref()
        },
        unread,
        launch_at: found.launch_at,
        launch_helper: found.launch_helper.clone(),
    };
    let outcome = match occupancy_attr::parse(found.args, &wrapper, found.attribute, &env) {
        Err(errors) => Outcome::Errors(
            errors
                .into_iter()
                .map(|e| format!("{}: {e}", at(e.span())))
                .collect(),
        ),
        // As the build reports them: one error per launch that cannot run.
        Ok(spec) => match spec.evaluate_grouped(Grouping::OneErrorPerLaunch) {
            Some(evaluation) => Outcome::Evaluated(Box::new(spec), evaluation),
            None => Outcome::Constant(
                spec.const_inputs().iter().map(|i| i.key()).collect(),
                spec.unread.clone(),
            ),
        },
    };
    Wrapper {
        location,
        name,
        conditions,
        outcome,
        site: None,
        cuda: None,
    }
}

/// For a launching function the attribute rejects on some of the policy's targets only (a
/// kernel compiled for sm_90 alone): the targets it is accepted on and those it is not,
/// when both are some. Only when the arguments name no target.
fn runnable_targets(file: &Parsed, found: &Found, env: &Env) -> Option<(Vec<String>, Vec<String>)> {
    if found.args.to_string().contains("target") {
        return None;
    }
    let env_file = env.clone().with_source_file(&file.path);
    let (policy, _) =
        occupancy_attr::load_policy(&env_file, occupancy_attr::PolicyReader::Report).ok()?;
    let (mut kept, mut dropped) = (Vec::new(), Vec::new());
    for target in &policy.targets {
        let name = target.to_string();
        let mut args = found.args.clone();
        if !args.is_empty() {
            args.extend(quote::quote!(,));
        }
        args.extend(quote::quote!(target = #name));
        let one = Found {
            args,
            ..found.clone()
        };
        match evaluate(file, one, env).outcome {
            Outcome::Errors(_) => dropped.push(name),
            _ => kept.push(name),
        }
    }
    (!kept.is_empty() && !dropped.is_empty()).then_some((kept, dropped))
}

/// The launches `--all` found in functions without the attribute, read as the attribute
/// would read them: one entry per launch call, with the rows of the paths that reach it (a
/// function making several launches is read once per launch, for that launch's paths only:
/// `occupancy_attr::Wrapper::launch_at`, so that its key need not name the kernels of the
/// others). `manifest`: the resource manifest the report reads, which
/// the kernel names the code loads are fitted to ([`fit`]) where the attribute rejects them.
pub(super) fn unannotated(
    parsed: &[Parsed],
    launches: Vec<sites::Launch>,
    env: &Env,
    manifest: Option<&Path>,
) -> Vec<Wrapper> {
    // Read once, when a launch needs it.
    let loaded: OnceCell<Option<Manifest>> = OnceCell::new();
    let manifest = || {
        loaded
            .get_or_init(|| manifest.and_then(|p| Manifest::load(p).ok()))
            .as_ref()
    };
    // How many launches each launching function makes: (file, the attribute's line).
    let mut per_target: BTreeMap<(usize, usize), usize> = BTreeMap::new();
    for launch in &launches {
        if let sites::Check::Attribute { target, .. } = &launch.check {
            *per_target.entry((target.file, target.line)).or_default() += 1;
        }
    }
    let mut out: Vec<Wrapper> = Vec::new();
    for launch in launches {
        let site = Site {
            how: launch.how,
            via: launch.via.clone(),
            kernel_from: None,
            args: None,
            target: None,
            launches: 1,
            expanded_from: launch.expanded_from.clone(),
        };
        match launch.check {
            // The wrapper's own rows cover it.
            sites::Check::Annotated => {}
            sites::Check::Unread(why) => out.push(Wrapper {
                location: launch.location,
                name: launch.function,
                conditions: launch.conditions,
                outcome: Outcome::NotChecked(vec![why]),
                site: Some(site),
                cuda: None,
            }),
            sites::Check::Attribute {
                args,
                kernel_from,
                names,
                own,
                kernels,
                module,
                target,
            } => {
                let at = LaunchAt {
                    line: super::model::natural(&launch.location).1,
                    column: launch.column,
                };
                let shared = per_target
                    .get(&(target.file, target.line))
                    .is_some_and(|n| *n > 1);
                let loads = Loads {
                    kernels: &kernels,
                    module: module.as_deref(),
                    manifest: &manifest,
                };
                let mut w = attribute_site(
                    parsed,
                    env,
                    site,
                    (args, kernel_from),
                    &loads,
                    &target,
                    (
                        &launch.conditions,
                        shared.then_some(at),
                        launch.through.clone(),
                    ),
                );
                if shared {
                    only_launch_at(&mut w, at, names > 1 && !own);
                }
                w.location = launch.location;
                w.name = launch.function;
                out.push(w);
            }
        }
    }
    out
}

/// The kernels a launch's loads name, and the manifest to fit them to.
struct Loads<'l, 'm> {
    /// The names (or globs) of the `kernel` key, as written.
    kernels: &'l [String],
    /// The module the loads name.
    module: Option<&'l str>,
    /// The report's resource manifest, read on first use.
    manifest: &'l dyn Fn() -> Option<&'m Manifest>,
}

/// One launching function read with the attribute `args` would have (`site`: how it
/// launches; `kernel_from`: where its names came from; `launch_at`: the launch read, of a
/// function making several; `launch_helper`: the crate function its launches go through). Where the attribute rejects the names the loads give, they
/// are fitted to the manifest ([`fit::fit`]).
fn attribute_site(
    parsed: &[Parsed],
    env: &Env,
    mut site: Site,
    (args, mut kernel_from): (String, Option<String>),
    loads: &Loads<'_, '_>,
    target: &sites::Target,
    (conditions, launch_at, launch_helper): (&[String], Option<LaunchAt>, Option<(String, usize)>),
) -> Wrapper {
    let file = &parsed[target.file];
    let mut found = Found {
        line: target.line,
        args: written_at(&args, target.span),
        sig: target.sig.clone(),
        body: Some(target.body.clone()),
        attribute: target.span,
        conditions: conditions.to_vec(),
        launch_at,
        launch_helper,
    };
    let mut w = evaluate(file, found.clone(), env);
    let mut args = args;
    if matches!(w.outcome, Outcome::Errors(_))
        && !loads.kernels.is_empty()
        && let Some(manifest) = (loads.manifest)()
    {
        match fit::fit(loads.kernels, loads.module, manifest) {
            fit::Fit::Same => {}
            fit::Fit::Names(kernels, note) => {
                args = fit::key(&kernels);
                found.args = written_at(&args, target.span);
                w = evaluate(file, found.clone(), env);
                kernel_from = Some(match kernel_from {
                    Some(from) => format!("{from}; {note}"),
                    None => note,
                });
            }
            fit::Fit::NoLaunch(why) => w.outcome = Outcome::NotChecked(vec![why]),
        }
    }
    // A kernel with cubins for some of the crate's targets only (fp8 kernels for sm_90)
    // launches only there: checked on those, the others said.
    if matches!(w.outcome, Outcome::Errors(_))
        && let Some((kept, dropped)) = runnable_targets(file, &found, env)
    {
        let list = kept
            .iter()
            .map(|t| format!("{t:?}"))
            .collect::<Vec<_>>()
            .join(", ");
        let key = if kept.len() == 1 {
            format!("target = {list}")
        } else {
            format!("target = [{list}]")
        };
        args = if args.is_empty() {
            key
        } else {
            format!("{args}, {key}")
        };
        let narrowed = Found {
            args: written_at(&args, target.span),
            ..found.clone()
        };
        w = evaluate(file, narrowed, env);
        site.kernel_from = Some(format!(
            "the kernel runs on {} only: it has no cubin for {}",
            kept.join(", "),
            dropped.join(", ")
        ));
    }
    // What the attribute would reject is not checked yet: no failure.
    if let Outcome::Errors(errors) = &w.outcome {
        w.outcome = Outcome::NotChecked(errors.clone());
    }
    if site.kernel_from.is_none() {
        site.kernel_from = kernel_from;
    }
    site.args = Some(args);
    site.target = Some((file.path.clone(), target.clone()));
    w.site = Some(site);
    w
}

/// The arguments `args` of an attribute the code does not carry, as if written at `at`
/// (the launching function's name): parsed from their text, their tokens would point at
/// line 1 of that text in the attribute's errors.
fn written_at(args: &str, at: Span) -> proc_macro2::TokenStream {
    fn respan(stream: proc_macro2::TokenStream, at: Span) -> proc_macro2::TokenStream {
        stream
            .into_iter()
            .map(|mut tree| {
                if let proc_macro2::TokenTree::Group(g) = &tree {
                    let mut group = proc_macro2::Group::new(g.delimiter(), respan(g.stream(), at));
                    group.set_span(at);
                    tree = proc_macro2::TokenTree::Group(group);
                } else {
                    tree.set_span(at);
                }
                tree
            })
            .collect()
    }
    respan(args.parse().unwrap_or_default(), at)
}

/// Keeps of `w` (a function making several launches) the rows and findings of the plans
/// whose launch call is at `at`: another launch's paths are not this one's. A launch no
/// plan reaches is not checked; nor one reached by a path that does not name its kernel
/// when the key lists several (`several`: they may be other launches' kernels; not when
/// they are the loads bound to this launch's function).
fn only_launch_at(w: &mut Wrapper, at: LaunchAt, several: bool) {
    let Outcome::Evaluated(spec, evaluation) = &mut w.outcome else {
        return;
    };
    // The launch at this line and column where the column is known (a launch no path
    // reaches has no plan there, though another launch of its line has), else at this line
    // (`occupancy_attr::Wrapper::launch_at`).
    let reaches = |plan: usize| {
        spec.plans.get(plan).is_some_and(|p| {
            p.launches.iter().any(|s| match at.column {
                Some(_) => at.is_at(s.start()),
                None => at.is_on_line(s.start()),
            })
        })
    };
    evaluation.cases.retain(|c| reaches(c.plan));
    evaluation.diagnostics.retain(|d| reaches(d.plan));
    let why = if evaluation.cases.is_empty() {
        Some(format!(
            "no path of `{}` the reader follows makes this launch",
            spec.wrapper
        ))
    } else if several
        && spec.kernels.len() > 1
        && evaluation
            .cases
            .iter()
            .any(|c| spec.plans.get(c.plan).is_some_and(|p| p.kernel.is_none()))
    {
        Some(format!(
            "`{}` makes several launches, and a path to this one does not name its kernel \
             among the {} its launches name: its rows would pair them all with this launch",
            spec.wrapper,
            spec.kernels.len()
        ))
    } else {
        None
    };
    if let Some(why) = why {
        w.outcome = Outcome::NotChecked(vec![why]);
    }
}

/// The attributes of one file: each found (with the `cfg`s around it in the file), and
/// those inside a `macro_rules!` (line, the macro's name).
pub(super) struct Annotations {
    found: Vec<Found>,
    in_macros: Vec<(usize, String)>,
}

/// The attributes of the file `syntax`.
pub(super) fn annotations(syntax: &syn::File) -> Annotations {
    let mut finder = Finder::new(syntax, Vec::new());
    finder.visit_file(syntax);
    Annotations {
        found: finder.found,
        in_macros: sites::attributes_in_macros(syntax),
    }
}

/// Every attribute of the `parsed` files (`annotations`, one per file), evaluated
/// (`inherited`: the `cfg`s of the `mod` declarations that bring each file in), and one
/// entry for each inside a `macro_rules!`.
pub(super) fn annotated(
    parsed: &[Parsed],
    annotations: Vec<Annotations>,
    inherited: &BTreeMap<PathBuf, Vec<String>>,
    env: &Env,
) -> Vec<Wrapper> {
    let mut wrappers = Vec::new();
    for (file, annotations) in parsed.iter().zip(annotations) {
        let conditions = inherited.get(&file.path).cloned().unwrap_or_default();
        for mut found in annotations.found {
            found.conditions = [conditions.as_slice(), &found.conditions].concat();
            wrappers.push(evaluate(file, found, env));
        }
        // `#[occupancy::check]` written inside a `macro_rules!` body: only its expansions
        // can be checked, which the build does.
        for (line, name) in annotations.in_macros {
            wrappers.push(Wrapper {
                location: format!("{}:{line}", file.shown),
                name: format!("macro_rules! {name}"),
                conditions: conditions.clone(),
                outcome: Outcome::BuildOnly(format!(
                    "checked only by the build: the attribute is inside `macro_rules! {name}`, \
                     whose expansions the report does not see"
                )),
                site: None,
                cuda: None,
            });
        }
    }
    wrappers
}
