//! Checks that need more than syntax: required keys, targets, lint levels, value ranges,
//! kernel classes, clusters, and the compiled kernels' resources; the attribute's constants
//! resolved from the crate's sources, and the launches merged with the body's
//! (`plans.rs`). Produces the [`Spec`] every front end works from, with the policy applied
//! (attribute values win).

use occupancy_core::arch::{MAX_GRID_DIM, Target};
use occupancy_core::cluster::{Cluster, ClusterDim};
use occupancy_core::lint::{Input, KernelClass, closest};
use proc_macro2::Span;
use syn::{Error, Ident, Result};

use crate::artifact::{self, WantedKernels, WantedTarget};
use crate::ast::{Arg, Args, Candidates, Dims, Value};
use crate::body::BodyRead;
use crate::cexpr;
use crate::errors::Errors;
use crate::plans::{self, Keys, Read};
use crate::policy::Loaded;
use crate::resolve::{Resolver, Scope, Val};
use crate::spec::{SourceKind, Spec, TargetSpec, TargetsOrigin};
use crate::{Env, MANIFEST_VAR, TARGETS_VAR};
use occupancy_core::policy::Policy;

/// What the front end read besides the attribute: the evaluator over the crate's sources,
/// the scope the attribute's constants are written in, and the body.
pub(crate) struct Reading<'r> {
    pub(crate) resolver: &'r mut Resolver,
    /// The wrapper's scope (its module and `Self`), for the attribute's constants.
    pub(crate) scope: Scope,
    /// The body's launches; `None` when it was not read.
    pub(crate) body: Option<BodyRead>,
    /// Why the body or the sources were not read.
    pub(crate) unread: Option<String>,
}

/// Checks `args` against each other, the policy, the body and the compiled kernels.
///
/// # Errors
///
/// Every problem, combined, each on its token.
pub(crate) fn validate(
    mut args: Args,
    loaded: &Loaded,
    env: &Env,
    wrapper: &Ident,
    attribute: Span,
    reading: Reading<'_>,
) -> Result<Spec> {
    let policy = &loaded.policy;
    let mut errors = Errors::default();
    let mut keys = Vec::new();
    let mut read = Read::default();
    let mut unread: Vec<String> = Vec::new();

    // The attribute's constants, resolved where the source reader can.
    {
        let mut resolve = |value: &mut Value| {
            resolve_value(
                value,
                reading.resolver,
                &reading.scope,
                &mut read,
                &mut unread,
            );
        };
        for arg in [&mut args.block, &mut args.grid].into_iter().flatten() {
            for dims in &mut arg.value.items {
                dims.dims.iter_mut().for_each(&mut resolve);
            }
        }
        if let Some(arg) = &mut args.smem {
            arg.value.items.iter_mut().for_each(&mut resolve);
        }
        for arg in [
            &mut args.regs,
            &mut args.static_smem,
            &mut args.barriers,
            &mut args.max_threads,
            &mut args.opt_in,
        ]
        .into_iter()
        .flatten()
        {
            resolve(&mut arg.value);
        }
    }

    // Why the body or the sources were not read: the wrapper's own reason, else why the
    // wrapper's module is not known, if the body or the attribute needed it.
    let why_unread = reading
        .unread
        .clone()
        .or_else(|| reading.resolver.location_note().map(str::to_owned));
    unread.splice(0..0, why_unread.clone());

    let mut key = |input: Input, arg_key: &Ident| keys.push((input, arg_key.span()));
    if let Some(arg) = &args.block {
        key(Input::Block, &arg.key);
    }
    if let Some(arg) = &args.smem {
        key(Input::DynamicSmem, &arg.key);
    }
    if let Some(arg) = &args.grid {
        key(Input::Grid, &arg.key);
    }
    let body = reading.body.as_ref();
    // The launches: the body's, merged with the keys.
    let plan_keys = Keys {
        block: args.block.as_ref(),
        smem: args.smem.as_ref(),
        grid: args.grid.as_ref(),
    };
    let plans = plans::plans(
        &plan_keys,
        written(&args, "block"),
        body,
        why_unread.as_deref(),
        attribute,
        &mut read,
        &mut errors,
    );

    let body_kernel = body_kernel(&args, body, &mut errors);
    let has_source = args.kernel.is_some()
        || args.cubin.is_some()
        || args.fatbin.is_some()
        || body_kernel.is_some();
    if args.regs.is_none()
        && !has_source
        && !["regs", "kernel", "cubin", "fatbin"]
            .iter()
            .any(|k| written(&args, k))
    {
        let mut message = "missing the kernel's resources: `kernel = \"name\"` (from the build's \
             resource manifest), `cubin = \"path\"`, `fatbin = \"path\"`, or `regs = N` (ptxas \
             -v: `Used N registers`)"
            .to_owned();
        if let Some((glob, _)) = body.and_then(|b| b.kernel_pattern.as_ref()) {
            message.push_str(&format!(
                "; the body names its kernel at run time: `kernel = \"{glob}\"` checks every \
                 kernel that matches"
            ));
        } else if let Some(b) = body
            && b.kernels.len() > 1
        {
            let names: Vec<&str> = b.kernels.iter().map(|(n, _)| n.as_str()).collect();
            message.push_str(&format!(
                "; the body loads several kernels ({}): name them with `kernel = [...]`",
                names.join(", ")
            ));
        }
        errors.push(Error::new(attribute, message));
    }
    let mut optional = |arg: &Option<Arg<Value>>, input: Input| {
        arg.as_ref().map(|Arg { key: k, value }| {
            key(input, k);
            value.clone()
        })
    };
    let regs = optional(&args.regs, Input::Registers);
    let static_smem = optional(&args.static_smem, Input::StaticSmem);
    let barriers = optional(&args.barriers, Input::Barriers);
    let max_threads = optional(&args.max_threads, Input::MaxThreads);
    let opt_in = optional(&args.opt_in, Input::OptIn);
    let carveout = args.carveout.as_ref().map(|Arg { key: k, value }| {
        key(Input::Carveout, k);
        value.value
    });

    // Constants the reader could not resolve are evaluated in an item inside the body,
    // where `Self` does not exist.
    let attribute_values = args
        .block
        .iter()
        .chain(args.grid.iter())
        .flat_map(|a| a.value.items.iter().flat_map(|d| d.dims.iter()))
        .chain(args.smem.iter().flat_map(|a| a.value.items.iter()))
        .chain(regs.iter())
        .chain(static_smem.iter())
        .chain(barriers.iter())
        .chain(max_threads.iter())
        .chain(opt_in.iter());
    for value in attribute_values {
        if let Value::Const(expr) = value
            && let Some(token) = find_self(quote::ToTokens::to_token_stream(expr))
        {
            errors.push(Error::new(
                token.span(),
                "`Self` cannot be used in the attribute here: the source reader could not \
                 resolve this constant, and the compile-time check is an item inside the \
                 function; name the type instead (`Gemm::TILE`)",
            ));
        }
    }

    // Ranges the hardware and toolchain define (the lints handle everything else).
    if let Some(Value::Lit { value, span }) = barriers
        && value > 16
    {
        errors.push(Error::new(
            span,
            format!("{value} barriers: a block has at most 16 (named barriers 0 to 15)"),
        ));
    }
    if let Some(Value::Lit { value, span }) = max_threads
        && !(1..=1024).contains(&value)
    {
        errors.push(Error::new(
            span,
            format!("max_threads = {value}: `__launch_bounds__` takes 1 to 1024 threads per block"),
        ));
    }

    // Targets: the attribute's, else the policy's, else the build script's, else the
    // defaults.
    let mut targets: Vec<WantedTarget> = Vec::new();
    let mut targets_origin = TargetsOrigin::Attribute;
    let mut tracked_targets = false;
    match &args.target {
        Some(Arg { value, .. }) => {
            for name in value {
                match Target::parse(&name.value()) {
                    Ok(target) if targets.iter().any(|t| t.target == target) => {
                        errors.push(Error::new(
                            name.span(),
                            format!("target `{}` is listed twice", name.value()),
                        ));
                    }
                    Ok(target) => targets.push(WantedTarget {
                        target,
                        span: name.span(),
                        from_attribute: true,
                    }),
                    Err(e) => errors.push(Error::new(name.span(), e)),
                }
            }
        }
        None => {
            let built = build_targets(env, policy);
            if !policy.targets_named {
                tracked_targets = true;
            }
            targets_origin = match (&built, policy.targets_named) {
                (_, true) => TargetsOrigin::Policy,
                (Some(_), false) => TargetsOrigin::Build,
                (None, false) => TargetsOrigin::Default,
            };
            targets.extend(
                built
                    .unwrap_or_else(|| policy.targets.clone())
                    .into_iter()
                    .map(|target| WantedTarget {
                        target,
                        span: attribute,
                        from_attribute: false,
                    }),
            );
        }
    }

    // The kernel class and the floor.
    let class = args.class.as_ref().and_then(|Arg { value, .. }| {
        let name = value.value();
        match KernelClass::from_name(&name) {
            Some(class) => Some(class),
            None => {
                let names = KernelClass::ALL.map(KernelClass::name);
                let hint = match closest(&name, names) {
                    Some(s) => format!("did you mean `{s}`?"),
                    None => "expected `memory_bound`, `balanced` or `compute_bound`".to_owned(),
                };
                errors.push(Error::new(
                    value.span(),
                    format!("unknown kernel class `{name}`; {hint}"),
                ));
                None
            }
        }
    });
    let (min_occupancy, class) =
        policy.floor(args.min_occupancy.as_ref().map(|arg| arg.value.0), class);

    // The cluster: literal, and only where the targets have clusters. Above the portable
    // size it needs `non_portable = true` (else `launch_impossible` says so).
    let non_portable = args
        .non_portable
        .as_ref()
        .is_some_and(|arg| arg.value.value);
    let cluster = args
        .cluster
        .as_ref()
        .and_then(|arg| cluster(arg, &targets, &mut errors))
        .map(|c| {
            if non_portable {
                c.allow_non_portable()
            } else {
                c
            }
        });
    if let Some(Arg { key: k, .. }) = &args.cluster {
        key(Input::Cluster, k);
    }
    for plan in &plans {
        if let Some(grid) = &plan.grid {
            grid_checks(plan.grid_span, grid, &mut errors);
        }
    }

    // Levels: the policy's, then the attribute's.
    let mut levels = policy.lints.clone();
    let mut seen: Vec<String> = Vec::new();
    for level_arg in &args.levels {
        let name = level_arg.lint.to_string();
        if seen.contains(&name) {
            errors.push(Error::new(
                level_arg.lint.span(),
                format!("`{name}` is given a level twice"),
            ));
            continue;
        }
        seen.push(name.clone());
        if let Err(e) = levels.set(&name, level_arg.level) {
            errors.push(Error::new(level_arg.lint.span(), e));
        }
    }

    // The compiled kernels' resources, per target.
    let wanted = args
        .kernel
        .as_ref()
        .map(WantedKernels::from_arg)
        .or(body_kernel);
    let resolved = artifact::resolve(&args, wanted, policy, env, &targets, &mut errors);
    let mut tracked_files: Vec<std::path::PathBuf> = loaded.file.iter().cloned().collect();
    let mut tracked_vars = vec![occupancy_core::policy::Policy::ENV_VAR];
    if tracked_targets {
        tracked_vars.push(TARGETS_VAR);
    }
    let mut kernels = Vec::new();
    let source = resolved.map(|resolved| {
        keys.push((Input::Kernel, resolved.key_span));
        tracked_files.push(resolved.source.path.clone());
        if matches!(resolved.source.kind, SourceKind::Manifest(_)) {
            tracked_vars.push(MANIFEST_VAR);
        }
        kernels = resolved.kernels;
        resolved.source
    });
    // A kernel compiled with `__cluster_dims__` launches with exactly that cluster.
    if let (Some(Arg { key: k, .. }), Some(given)) = (&args.cluster, cluster) {
        let compiled = kernels
            .iter()
            .flat_map(|k| k.resources.iter().flatten())
            .find_map(|r| r.cluster_dims);
        if let Some([x, y, z]) = compiled
            && ClusterDim::new(x, y, z) != given.dim
        {
            errors.push(Error::new(
                k.span(),
                format!(
                    "the kernel is compiled with __cluster_dims__({x}, {y}, {z}): a launch cannot choose another \
                     cluster shape (CUDA_ERROR_INVALID_CLUSTER_SIZE); remove `cluster` or make it ({x}, {y}, {z})"
                ),
            ));
        }
    }

    // `non_portable` is about cluster launches: the attribute's or the compiled kernel's.
    if let Some(Arg { key: k, .. }) = &args.non_portable
        && args.cluster.is_none()
        && !kernels
            .iter()
            .flat_map(|k| k.resources.iter().flatten())
            .any(|r| r.cluster_dims.is_some())
    {
        errors.push(Error::new(
            k.span(),
            "`non_portable` applies to thread-block cluster launches: add `cluster = ...` or remove it",
        ));
    }

    errors.finish(Spec {
        wrapper: wrapper.to_string(),
        targets: targets
            .into_iter()
            .map(|wanted| TargetSpec {
                target: wanted.target,
                span: wanted.span,
            })
            .collect(),
        targets_origin,
        min_occupancy,
        class,
        levels,
        thresholds: policy.thresholds,
        plans,
        kernels,
        regs,
        static_smem,
        barriers,
        max_threads,
        opt_in,
        carveout,
        cluster,
        non_portable,
        source,
        tracked_files,
        tracked_vars,
        confirmations: read.confirmations,
        helpers: read.helpers,
        unread,
        attribute,
        keys,
    })
}

/// A constant of the attribute, resolved from the crate's sources when the reader can
/// (then a literal, with the compiler's confirmation recorded); else left to the
/// compile-time path, with why in `unread`.
fn resolve_value(
    value: &mut Value,
    resolver: &mut Resolver,
    scope: &Scope,
    read: &mut Read,
    unread: &mut Vec<String>,
) {
    let Value::Const(expr) = value else { return };
    let span = syn::spanned::Spanned::span(&**expr);
    let lowered = cexpr::lower(expr);
    let eval = resolver.eval(&lowered, scope, Some(cexpr::IntTy::U32));
    let text = cexpr::text(&lowered);
    match eval.as_slice() {
        [b] if b.picks.is_empty() => match &b.val {
            Val::Int(k) if (0..=i128::from(u32::MAX)).contains(&k.value) => {
                plans::confirm(k, span, read);
                *value = Value::Lit {
                    value: k.value as u32,
                    span,
                };
            }
            Val::Int(k) => unread.push(format!("`{text}` = {} is not a u32", k.value)),
            Val::Unknown(why) if why.starts_with(&format!("`{text}`")) => unread.push(why.clone()),
            Val::Unknown(why) => unread.push(format!("`{text}`: {why}")),
            _ => unread.push(format!("`{text}` is not a number")),
        },
        _ => unread.push(format!("`{text}` has several values")),
    }
}

/// The kernel the body names as a literal, when the attribute does not: the one name the
/// body loads. A `kernel` that names another single kernel than the body is drift.
fn body_kernel(args: &Args, body: Option<&BodyRead>, errors: &mut Errors) -> Option<WantedKernels> {
    let body = body?;
    let mut names: Vec<&(String, Span)> = Vec::new();
    for k in &body.kernels {
        if !names.iter().any(|n| n.0 == k.0) {
            names.push(k);
        }
    }
    let [(name, span)] = names.as_slice() else {
        return None;
    };
    match &args.kernel {
        Some(Arg {
            value: Candidates { items, list: false },
            key,
        }) => {
            let given = items.first()?.value();
            if !artifact::is_glob(&given)
                && given != *name
                && !given.ends_with(&format!("::{name}"))
            {
                errors.push(Error::new(
                    key.span(),
                    format!("`kernel = \"{given}\"`, but the body loads the kernel `{name}`: the attribute must check the kernel the body launches"),
                ));
                errors.push(Error::new(
                    *span,
                    format!("the body loads `{name}` here, not `{given}`"),
                ));
            }
            None
        }
        Some(_) => None,
        None if args.cubin.is_some() || args.fatbin.is_some() || args.regs.is_none() => {
            Some(WantedKernels {
                names: vec![(name.clone(), *span)],
                key_span: *span,
            })
        }
        None => None,
    }
}

/// `cluster = 2 | (2, 1) | (2, 1, 1)`: literal, on targets with clusters (cc 9.0+), within
/// each target's largest cluster. Whether a size above the portable maximum (8) may launch
/// is the lints' call (`non_portable`).
fn cluster(arg: &Arg<Dims>, targets: &[WantedTarget], errors: &mut Errors) -> Option<Cluster> {
    let mut dims = [1u32; 3];
    for (slot, value) in dims.iter_mut().zip(&arg.value.dims) {
        match value {
            Value::Lit { value, .. } => *slot = *value,
            Value::Const(expr) => {
                errors.push(Error::new_spanned(
                    expr,
                    "`cluster` takes literal numbers: 2, (2, 1) or (2, 1, 1)",
                ));
                return None;
            }
        }
    }
    let dim = ClusterDim::new(dims[0], dims[1], dims[2]);
    let blocks = dim.blocks();
    let without: Vec<String> = targets
        .iter()
        .filter(|t| t.target.arch.cluster_max_portable == 0)
        .map(|t| format!("{} ({})", t.target, t.target.arch.cc))
        .collect();
    if !without.is_empty() {
        errors.push(Error::new(
            arg.key.span(),
            format!(
                "thread-block clusters need compute capability 9.0 or later; {} {} none: \
                 remove `cluster` or {}",
                without.join(", "),
                if without.len() == 1 { "has" } else { "have" },
                if without.len() == 1 {
                    "that target"
                } else {
                    "those targets"
                }
            ),
        ));
        return None;
    }
    for t in targets {
        let arch = t.target.arch;
        let max = arch.cluster_max_nonportable.max(arch.cluster_max_portable);
        if blocks > u64::from(max) {
            let why = if arch.cluster_max_nonportable == 0 {
                format!(
                    "the portable maximum is {}, and the non-portable maximum of {} is unknown",
                    arch.cluster_max_portable, arch.sm
                )
            } else {
                format!("the most {} allows is {max}", arch.sm)
            };
            errors.push(Error::new(
                arg.key.span(),
                format!(
                    "a cluster of {} blocks cannot launch on {}: {why}",
                    cluster_text(dim),
                    t.target
                ),
            ));
            return None;
        }
    }
    Some(Cluster::new(dim))
}

/// The grid's literal dimensions against the device's limits ([`MAX_GRID_DIM`]). (That a
/// cluster launch's grid is a whole number of clusters is `launch_impossible`'s.)
fn grid_checks(span: Span, grid: &[Value; 3], errors: &mut Errors) {
    let literal: Vec<Option<u32>> = grid.iter().map(Value::literal).collect();
    for ((axis, value), max) in ["x", "y", "z"].iter().zip(&literal).zip(MAX_GRID_DIM) {
        match value {
            Some(0) => errors.push(Error::new(span, format!("the grid's {axis} dimension is 0"))),
            Some(n) if *n > max => errors.push(Error::new(
                span,
                format!("the grid's {axis} dimension {n} exceeds the {max} blocks a grid may have along {axis}"),
            )),
            _ => {}
        }
    }
}

/// `16`, `(8, 4) = 32`, or just the shape when the count would not fit in a u64.
fn cluster_text(dim: ClusterDim) -> String {
    match (dim.y, dim.z, dim.blocks()) {
        (1, 1, n) => n.to_string(),
        (_, _, u64::MAX) => dim.to_string(),
        (_, _, n) => format!("{dim} = {n}"),
    }
}

/// The first `Self` in `tokens`, groups included.
fn find_self(tokens: proc_macro2::TokenStream) -> Option<proc_macro2::Ident> {
    tokens.into_iter().find_map(|tree| match tree {
        proc_macro2::TokenTree::Ident(ident) if ident == "Self" => Some(ident),
        proc_macro2::TokenTree::Group(group) => find_self(group.stream()),
        _ => None,
    })
}

fn written(args: &Args, key: &str) -> bool {
    args.written.iter().any(|k| k == key)
}

/// The targets the crate's build script compiles for, when the policy names none and the
/// build helper set [`TARGETS_VAR`]: each name it lists that is a known target, in order,
/// once. `None` when the policy names targets, the variable is unset or it lists none.
fn build_targets(env: &Env, policy: &Policy) -> Option<Vec<Target>> {
    if policy.targets_named {
        return None;
    }
    let value = env.var(TARGETS_VAR)?.to_str()?;
    let mut out: Vec<Target> = Vec::new();
    for target in value.split(',').filter_map(|name| Target::parse(name).ok()) {
        if !out.contains(&target) {
            out.push(target);
        }
    }
    (!out.is_empty()).then_some(out)
}
