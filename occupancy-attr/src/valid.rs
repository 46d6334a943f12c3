//! From the attribute's arguments, the policy, the wrapper's body and the compiled kernels
//! to the [`Spec`] every front end works from, in stages that each do one thing:
//!
//! 1. [`attribute_constants`]: the attribute's constants resolved from the crate's sources;
//! 2. the body read (`reader`), the attribute's candidates bound to what they stand for;
//! 3. [`plans::plans`]: the launches, merged with the keys;
//! 4. [`body_kernel`]: the kernels the body names, against the attribute's `kernel`;
//! 5. [`resources_given`]: that the kernel's resources come from somewhere;
//! 6. [`given_values`]: the resources given literally, and their ranges;
//! 7. [`targets`], [`floor`], [`cluster`], [`levels`]: policy and attribute merged
//!    (attribute values win);
//! 8. [`artifact::resolve`] and [`compiled_cluster`]: the compiled kernels' resources per
//!    target, and what they impose.

use occupancy_core::arch::{MAX_GRID_DIM, Target};
use occupancy_core::cluster::{Cluster, ClusterDim};
use occupancy_core::lint::{Input, KernelClass, LintLevels, MinOccupancy, closest};
use occupancy_core::policy::Policy;
use proc_macro2::Span;
use syn::{Error, Result};

use crate::artifact::{self, WantedKernels, WantedTarget};
use crate::ast::{Arg, Args, Candidates, Dims, Value};
use crate::errors::Errors;
use crate::plans::{self, Keys, Read};
use crate::policy::Loaded;
use crate::reader::{self, BodyRead, names::Resolver, value::Val};
use crate::spec::{KernelSpec, Plan, SourceKind, Spec, TargetSpec, TargetsOrigin};
use crate::{Env, MANIFEST_VAR, TARGETS_VAR, Wrapper};

/// Checks `args` against each other, the policy, the wrapper's body and the compiled
/// kernels.
///
/// # Errors
///
/// Every problem, combined, each on its token.
pub(crate) fn validate(
    mut args: Args,
    loaded: &Loaded,
    env: &Env,
    wrapper: &Wrapper<'_>,
    attribute: Span,
    resolver: &mut Resolver,
) -> Result<Spec> {
    let policy = &loaded.policy;
    let mut errors = Errors::default();
    let mut keys: Vec<(Input, Span)> = Vec::new();
    let mut read = Read::default();

    // 1-3: the launches.
    let mut unread = attribute_constants(&mut args, resolver, &mut read);
    let plan_keys = plan_keys(&args, &mut errors);
    let body = wrapper.body.map(|b| {
        let helper = wrapper.launch_helper.as_ref();
        reader::read_body(b, wrapper.sig, resolver, &plan_keys.candidates(), helper)
    });
    // Why the body or the sources were not read: the wrapper's own reason, else why the
    // wrapper's module is not known, if the body or the attribute needed it.
    let why_unread = wrapper
        .unread
        .clone()
        .or_else(|| resolver.location_note().map(str::to_owned));
    unread.splice(0..0, why_unread.clone());
    let mut plans = plans::plans(
        &plan_keys,
        written(&args, "block"),
        body.as_ref(),
        why_unread.as_deref(),
        attribute,
        &mut read,
        &mut errors,
    );
    if let Some(at) = wrapper.launch_at {
        let exactly = |p: &Plan| p.launches.iter().any(|s| at.is_at(s.start()));
        let on_line = |p: &Plan| p.launches.iter().any(|s| at.is_on_line(s.start()));
        if plans.iter().any(exactly) {
            plans.retain(exactly);
        } else if plans.iter().any(on_line) {
            plans.retain(on_line);
        }
    }
    launch_key_spans(&args, &mut keys);
    for plan in &plans {
        if let Some(grid) = &plan.grid {
            grid_checks(plan.grid_span.span(), grid, &mut errors);
        }
    }

    // 4-6: the kernel and the resources given.
    let body_kernel = body_kernel(&args, body.as_ref(), &plans, &mut errors);
    resources_given(
        &args,
        body.as_ref(),
        body_kernel.is_some(),
        attribute,
        &mut errors,
    );
    let given = given_values(&args, &mut keys, &mut errors);

    // 7: policy and attribute.
    let (targets, targets_origin) = targets(&args, policy, env, attribute, &mut errors);
    let (min_occupancy, class) = floor(&args, policy, &mut errors);
    let non_portable = args
        .non_portable
        .as_ref()
        .is_some_and(|arg| arg.value.value);
    let cluster = attribute_cluster(&args, &targets, non_portable, &mut keys, &mut errors);
    let levels = levels(&args, policy, &mut errors);

    // 8: the compiled kernels' resources, per target.
    let wanted = args
        .kernel
        .as_ref()
        .map(artifact::wanted_kernels)
        .or(body_kernel);
    let resolved = artifact::resolve(
        &args,
        wanted,
        policy,
        env,
        &targets,
        &mut || resolver.embedded_module(),
        &mut errors,
    );
    let (mut tracked_files, mut tracked_vars) = tracked(&args, loaded);
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
    compiled_cluster(&args, cluster, &kernels, &mut errors);

    errors.finish(Spec {
        wrapper: wrapper.sig.ident.to_string(),
        targets: targets
            .into_iter()
            .map(|wanted| TargetSpec {
                target: wanted.target,
                span: wanted.span.into(),
            })
            .collect(),
        targets_origin,
        min_occupancy,
        class,
        levels,
        thresholds: policy.thresholds,
        plans,
        kernels,
        regs: given.regs,
        static_smem: given.static_smem,
        barriers: given.barriers,
        max_threads: given.max_threads,
        opt_in: given.opt_in,
        carveout: given.carveout,
        cluster,
        non_portable,
        source,
        tracked_files,
        tracked_vars,
        confirmations: read.confirmations,
        helpers: read.helpers,
        shared_scope: None,
        unread,
        attribute: attribute.into(),
        keys,
    })
}

/// The keys the launches are planned with, and an error for `launches` beside `block` or
/// `smem` (the pairs are then taken, the others left aside).
fn plan_keys<'a>(args: &'a Args, errors: &mut Errors) -> Keys<'a> {
    if let Some(pairs) = &args.launches {
        for other in [
            args.block.as_ref().map(|a| &a.key),
            args.smem.as_ref().map(|a| &a.key),
        ]
        .into_iter()
        .flatten()
        {
            errors.push(Error::new(
                pairs.key.span(),
                format!(
                    "`launches` gives the block and the shared memory together: give it \
                     instead of `{other}`, not beside it"
                ),
            ));
        }
    }
    let paired = args.launches.is_some();
    Keys {
        block: args.block.as_ref().filter(|_| !paired),
        smem: args.smem.as_ref().filter(|_| !paired),
        grid: args.grid.as_ref(),
        launches: args.launches.as_ref(),
        malformed: [
            ("block", args.block.is_some()),
            ("smem", args.smem.is_some()),
            ("launches", paired),
        ]
        .iter()
        .any(|(key, read)| !read && written(args, key)),
    }
}

/// The spans of the keys that give a launch's values, each with the lint input it gives.
fn launch_key_spans(args: &Args, keys: &mut Vec<(Input, Span)>) {
    for (input, arg) in [
        (Input::Block, args.block.as_ref().map(|a| &a.key)),
        (Input::DynamicSmem, args.smem.as_ref().map(|a| &a.key)),
        (Input::Block, args.launches.as_ref().map(|a| &a.key)),
        (Input::DynamicSmem, args.launches.as_ref().map(|a| &a.key)),
        (Input::Grid, args.grid.as_ref().map(|a| &a.key)),
    ] {
        if let Some(key) = arg {
            keys.push((input, key.span()));
        }
    }
}

/// The attribute's `cluster`, checked against the targets (portable unless
/// `non_portable`); its key's span goes to `keys`.
fn attribute_cluster(
    args: &Args,
    targets: &[WantedTarget],
    non_portable: bool,
    keys: &mut Vec<(Input, Span)>,
    errors: &mut Errors,
) -> Option<Cluster> {
    let arg = args.cluster.as_ref()?;
    keys.push((Input::Cluster, arg.key.span()));
    cluster(arg, targets, errors).map(|c| {
        if non_portable {
            c.allow_non_portable()
        } else {
            c
        }
    })
}

/// The files and environment variables the expansion depends on before the kernels are
/// resolved: the policy file and variable, and the targets' variable unless the attribute
/// or the policy names the targets.
fn tracked(args: &Args, loaded: &Loaded) -> (Vec<std::path::PathBuf>, Vec<&'static str>) {
    let files = loaded.file.iter().cloned().collect();
    let mut vars = vec![occupancy_core::policy::Policy::ENV_VAR];
    if args.target.is_none() && !loaded.policy.targets_named {
        vars.push(TARGETS_VAR);
    }
    (files, vars)
}

/// Stage 1: the attribute's constants, resolved from the crate's sources where the reader
/// can (then literals, with the compiler's confirmation recorded); what it cannot resolve is
/// left to the compile-time path, with why in the list returned.
fn attribute_constants(args: &mut Args, resolver: &mut Resolver, read: &mut Read) -> Vec<String> {
    let mut unread = Vec::new();
    let mut resolve = |value: &mut Value| resolve_value(value, resolver, read, &mut unread);
    for arg in [&mut args.block, &mut args.grid].into_iter().flatten() {
        for dims in &mut arg.value.items {
            dims.dims.iter_mut().for_each(&mut resolve);
        }
    }
    if let Some(arg) = &mut args.smem {
        arg.value.items.iter_mut().for_each(&mut resolve);
    }
    if let Some(arg) = &mut args.launches {
        for pair in &mut arg.value {
            pair.block.dims.iter_mut().for_each(&mut resolve);
            resolve(&mut pair.smem);
        }
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
    unread
}

/// A constant of the attribute, resolved from the crate's sources when the reader can
/// (then a literal, with the compiler's confirmation recorded); else left to the
/// compile-time path, with why in `unread`.
fn resolve_value(
    value: &mut Value,
    resolver: &mut Resolver,
    read: &mut Read,
    unread: &mut Vec<String>,
) {
    let Value::Const(tokens) = value else {
        return;
    };
    let span = syn::spanned::Spanned::span(&*tokens);
    // The tokens of the one expression the attribute's parser read: they parse again.
    let Ok(expr) = syn::parse2::<syn::Expr>(tokens.clone()) else {
        unread.push(format!("`{tokens}` is not an expression"));
        return;
    };
    let (val, text, _) = reader::eval_attribute(&expr, resolver);
    match val {
        Val::Int(k) => match k.value() {
            Some(v) if (0..=i128::from(u32::MAX)).contains(&v) => {
                plans::confirm(&k, span, read);
                *value = Value::Lit {
                    value: v as u32,
                    span,
                };
            }
            Some(v) => unread.push(format!("`{text}` = {v} is not a u32")),
            None => unread.push(format!("`{text}` has several values")),
        },
        Val::Unknown(u) if u.why.starts_with(&format!("`{text}`")) => {
            unread.push(u.why.to_string())
        }
        Val::Unknown(u) => unread.push(format!("`{text}`: {}", u.why)),
        Val::Choice(..) => unread.push(format!("`{text}` has several values")),
        _ => unread.push(format!("`{text}` is not a number")),
    }
}

/// Stage 4: the kernels the body names as literals, when the attribute does not: the one
/// name the body loads, or the kernel each path launches (a family). A `kernel` that names
/// another single kernel than the body, or a family none of whose members a path launches,
/// is drift.
fn body_kernel(
    args: &Args,
    body: Option<&BodyRead>,
    plans: &[Plan],
    errors: &mut Errors,
) -> Option<WantedKernels> {
    let body = body?;
    // What the launches name, path by path, else what the body loads.
    let mut names: Vec<(String, Span)> = Vec::new();
    let launched: Vec<&(String, bool, Span)> = body
        .launches
        .iter()
        .filter_map(|l| l.kernel.as_ref())
        .collect();
    let every_launch_names_one = !body.launches.is_empty()
        && body
            .launches
            .iter()
            .all(|l| l.kernel.is_some() || l.record.error.is_some());
    if every_launch_names_one {
        for (name, _, span) in launched {
            if !names.iter().any(|n| n.0 == *name) {
                names.push((name.clone(), *span));
            }
        }
    } else {
        for k in &body.kernels {
            if !names.iter().any(|n| n.0 == k.0) {
                names.push(k.clone());
            }
        }
    }
    match &args.kernel {
        Some(Arg {
            value: Candidates { items, list: false },
            key,
        }) if names.len() == 1 => {
            let (name, span) = &names[0];
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
        Some(Arg { value, key }) => {
            // Each path's kernel must be one the attribute names.
            let given: Vec<String> = value.items.iter().map(syn::LitStr::value).collect();
            for plan in plans {
                let Some(wanted) = &plan.kernel else { continue };
                // The body's `gemv_{1,2,4}` is covered where each of its names is
                // (`kernel = "gemv_#"`).
                let covered = given.iter().any(|g| {
                    g == wanted
                        || crate::spec::kernel_matches(g, wanted)
                        || crate::spec::kernel_matches(wanted, g)
                        || occupancy_spec::artifact::alternatives(wanted)
                            .iter()
                            .all(|w| w != wanted && crate::spec::kernel_matches(g, w))
                });
                if !covered && let Some((_, span)) = names.iter().find(|(n, _)| n == wanted) {
                    errors.push(Error::new(
                        key.span(),
                        format!("`kernel` does not name `{wanted}`, which the body launches: the attribute must check the kernels the body launches"),
                    ));
                    errors.push(Error::new(
                        *span,
                        format!("the body launches `{wanted}` here"),
                    ));
                    break;
                }
            }
            None
        }
        None if names.is_empty() => None,
        None if names.len() > 1 && !every_launch_names_one => None,
        None if args.cubin.is_some() || args.fatbin.is_some() || args.regs.is_none() => {
            let key_span = names[0].1;
            Some(WantedKernels { names, key_span })
        }
        None => None,
    }
}

/// Stage 5: the kernel's resources come from somewhere: `kernel`, `cubin`, `fatbin`, the
/// body's kernel, or `regs`.
fn resources_given(
    args: &Args,
    body: Option<&BodyRead>,
    body_kernel: bool,
    attribute: Span,
    errors: &mut Errors,
) {
    let has_source =
        args.kernel.is_some() || args.cubin.is_some() || args.fatbin.is_some() || body_kernel;
    if args.regs.is_some()
        || has_source
        || ["regs", "kernel", "cubin", "fatbin"]
            .iter()
            .any(|k| written(args, k))
    {
        return;
    }
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
        let mut names: Vec<&str> = Vec::new();
        for (n, _) in &b.kernels {
            if !names.contains(&n.as_str()) {
                names.push(n);
            }
        }
        message.push_str(&format!(
            "; the body loads several kernels ({}): name them with `kernel = [...]`",
            names.join(", ")
        ));
    }
    errors.push(Error::new(attribute, message));
}

/// The resources and other values the attribute gives literally.
struct Given {
    regs: Option<Value>,
    static_smem: Option<Value>,
    barriers: Option<Value>,
    max_threads: Option<Value>,
    opt_in: Option<Value>,
    carveout: Option<u8>,
}

/// Stage 6: the resources given literally (their keys recorded for diagnostics), within the
/// ranges the hardware and toolchain define; a constant the reader could not resolve that
/// names `Self` (the compile-time check cannot).
fn given_values(args: &Args, keys: &mut Vec<(Input, Span)>, errors: &mut Errors) -> Given {
    let mut optional = |arg: &Option<Arg<Value>>, input: Input| {
        arg.as_ref().map(|Arg { key: k, value }| {
            keys.push((input, k.span()));
            value.clone()
        })
    };
    let given = Given {
        regs: optional(&args.regs, Input::Registers),
        static_smem: optional(&args.static_smem, Input::StaticSmem),
        barriers: optional(&args.barriers, Input::Barriers),
        max_threads: optional(&args.max_threads, Input::MaxThreads),
        opt_in: optional(&args.opt_in, Input::OptIn),
        carveout: args.carveout.as_ref().map(|Arg { key: k, value }| {
            keys.push((Input::Carveout, k.span()));
            value.value
        }),
    };
    // Constants the reader could not resolve are evaluated in an item inside the body,
    // where `Self` does not exist.
    let attribute_values = args
        .block
        .iter()
        .chain(args.grid.iter())
        .flat_map(|a| a.value.items.iter().flat_map(|d| d.dims.iter()))
        .chain(args.smem.iter().flat_map(|a| a.value.items.iter()))
        .chain(
            args.launches
                .iter()
                .flat_map(|a| a.value.iter())
                .flat_map(|p| p.block.dims.iter().chain(std::iter::once(&p.smem))),
        )
        .chain(given.regs.iter())
        .chain(given.static_smem.iter())
        .chain(given.barriers.iter())
        .chain(given.max_threads.iter())
        .chain(given.opt_in.iter());
    for value in attribute_values {
        if let Value::Const(expr) = value
            && let Some(token) = find_self(expr.clone())
        {
            errors.push(Error::new(
                token.span(),
                "`Self` cannot be used in the attribute here: the source reader could not \
                 resolve this constant, and the compile-time check is an item inside the \
                 function; name the type instead (`Gemm::TILE`)",
            ));
        }
    }
    if let Some(Value::Lit { value, span }) = given.barriers
        && value > 16
    {
        errors.push(Error::new(
            span,
            format!("{value} barriers: a block has at most 16 (named barriers 0 to 15)"),
        ));
    }
    if let Some(Value::Lit { value, span }) = given.max_threads
        && !(1..=1024).contains(&value)
    {
        errors.push(Error::new(
            span,
            format!("max_threads = {value}: `__launch_bounds__` takes 1 to 1024 threads per block"),
        ));
    }
    given
}

/// Stage 7: the targets: the attribute's, else the policy's, else the build script's (the
/// build helper's [`TARGETS_VAR`]), else the defaults; and where they came from.
fn targets(
    args: &Args,
    policy: &Policy,
    env: &Env,
    attribute: Span,
    errors: &mut Errors,
) -> (Vec<WantedTarget>, TargetsOrigin) {
    let mut targets: Vec<WantedTarget> = Vec::new();
    if let Some(Arg { value, .. }) = &args.target {
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
        return (targets, TargetsOrigin::Attribute);
    }
    let built = build_targets(env, policy);
    let origin = match (&built, policy.targets_named) {
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
    (targets, origin)
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

/// Stage 7: the kernel class and the `low_occupancy` floor.
fn floor(args: &Args, policy: &Policy, errors: &mut Errors) -> (MinOccupancy, Option<KernelClass>) {
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
    policy.floor(args.min_occupancy.as_ref().map(|arg| arg.value.0), class)
}

/// Stage 7: lint levels: the policy's, then the attribute's.
fn levels(args: &Args, policy: &Policy, errors: &mut Errors) -> LintLevels {
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
    levels
}

/// Stage 8: what the compiled kernels impose: a kernel compiled with `__cluster_dims__`
/// launches with exactly that cluster; `non_portable` is about cluster launches (the
/// attribute's or the compiled kernel's).
fn compiled_cluster(
    args: &Args,
    cluster: Option<Cluster>,
    kernels: &[KernelSpec],
    errors: &mut Errors,
) {
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
}

/// `cluster = 2 | (2, 1) | (2, 1, 1)`: literal, on targets with clusters (cc 9.0+), within
/// each target's largest cluster. Whether a size above the portable maximum (8) may launch
/// is the lints' call (`non_portable`).
/// Stage 7: the cluster.
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
