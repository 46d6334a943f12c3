//! Checks that need more than syntax: required keys, reserved keys, targets, lint levels,
//! value ranges. Produces the [`Spec`] that expansion works from, with the policy applied
//! (attribute values win over the policy).

use occupancy_core::arch::Target;
use occupancy_core::lint::{Input, LintLevels, MinOccupancy};
use occupancy_core::policy::Policy;
use proc_macro2::Span;
use syn::{Error, Ident, Result};

use crate::ast::{Arg, Args, Value};
use crate::errors::Errors;

/// A checked launch description, ready for expansion.
pub(crate) struct Spec {
    /// The wrapper function's name.
    pub(crate) wrapper: String,
    /// Targets, each with the span of the string that named it (the attribute's span when
    /// it came from the policy).
    pub(crate) targets: Vec<(Target, Span)>,
    pub(crate) min_occupancy: MinOccupancy,
    pub(crate) levels: LintLevels,
    /// x, y, z (missing dimensions are literal 1s).
    pub(crate) block: [Value; 3],
    pub(crate) smem: Value,
    pub(crate) regs: Value,
    pub(crate) static_smem: Value,
    pub(crate) barriers: Value,
    pub(crate) max_threads: Option<Value>,
    pub(crate) opt_in: Option<Value>,
    pub(crate) carveout: Option<u8>,
    /// The key of each input the attribute gave, to point diagnostics at.
    keys: Vec<(Input, Span)>,
    /// The attribute's span, for diagnostics about inputs it did not give.
    pub(crate) attribute: Span,
}

impl Spec {
    /// The span to point at for `input`: its key, or the attribute when it was not given.
    pub(crate) fn span_of(&self, input: Input) -> Span {
        self.keys
            .iter()
            .find(|(i, _)| *i == input)
            .map_or(self.attribute, |(_, span)| *span)
    }

    /// The inputs given as constant expressions, in attribute order.
    pub(crate) fn const_inputs(&self) -> Vec<Input> {
        let mut inputs = Vec::new();
        let mut add = |input: Input, value: &Value| {
            if value.literal().is_none() && !inputs.contains(&input) {
                inputs.push(input);
            }
        };
        for dim in &self.block {
            add(Input::Block, dim);
        }
        add(Input::DynamicSmem, &self.smem);
        add(Input::Registers, &self.regs);
        add(Input::StaticSmem, &self.static_smem);
        add(Input::Barriers, &self.barriers);
        if let Some(v) = &self.max_threads {
            add(Input::MaxThreads, v);
        }
        if let Some(v) = &self.opt_in {
            add(Input::OptIn, v);
        }
        inputs
    }
}

/// Checks `args` against each other and the policy.
///
/// # Errors
///
/// Every problem, combined, each on its token.
pub(crate) fn validate(
    args: Args,
    policy: &Policy,
    wrapper: &Ident,
    attribute: Span,
) -> Result<Spec> {
    let mut errors = Errors::default();
    let mut keys = Vec::new();
    let mut key = |input: Input, arg_key: &Ident| keys.push((input, arg_key.span()));

    // Resources: literal `regs` for now; `kernel`, `cubin` and `fatbin` are reserved.
    for reserved in [&args.kernel, &args.cubin, &args.fatbin]
        .into_iter()
        .flatten()
    {
        errors.push(Error::new(
            reserved.key.span(),
            format!(
                "`{}` is reserved for reading resources from compiled kernels and is not \
                 supported yet; give `regs = N` (and `static_smem = N`) instead",
                reserved.key
            ),
        ));
    }
    let block = match &args.block {
        Some(Arg { key: k, value }) => {
            key(Input::Block, k);
            let mut dims = value.dims.iter().cloned();
            [
                dims.next().unwrap_or(lit(1)),
                dims.next().unwrap_or(lit(1)),
                dims.next().unwrap_or(lit(1)),
            ]
        }
        None if written(&args, "block") => [lit(1), lit(1), lit(1)],
        None => {
            errors.push(Error::new(
                attribute,
                "missing `block`: the threads per block of the launch, e.g. `block = 256` or \
                 `block = (16, 16)`",
            ));
            [lit(1), lit(1), lit(1)]
        }
    };
    let regs = match &args.regs {
        Some(Arg { key: k, value }) => {
            key(Input::Registers, k);
            value.clone()
        }
        None => {
            if !written(&args, "regs")
                && args.kernel.is_none()
                && args.cubin.is_none()
                && args.fatbin.is_none()
            {
                errors.push(Error::new(
                    attribute,
                    "missing `regs`: the kernel's registers per thread (ptxas -v: `Used N \
                     registers`), e.g. `regs = 40`",
                ));
            }
            lit(0)
        }
    };
    let mut optional = |arg: &Option<Arg<Value>>, input: Input| {
        arg.as_ref().map(|Arg { key: k, value }| {
            key(input, k);
            value.clone()
        })
    };
    let smem = optional(&args.smem, Input::DynamicSmem).unwrap_or(lit(0));
    let static_smem = optional(&args.static_smem, Input::StaticSmem).unwrap_or(lit(0));
    let barriers = optional(&args.barriers, Input::Barriers).unwrap_or(lit(1));
    let max_threads = optional(&args.max_threads, Input::MaxThreads);
    let opt_in = optional(&args.opt_in, Input::OptIn);
    let carveout = args.carveout.as_ref().map(|Arg { key: k, value }| {
        key(Input::Carveout, k);
        value.value
    });

    // Constants are evaluated in an item inside the body, where `Self` does not exist.
    for value in block
        .iter()
        .chain([&smem, &regs, &static_smem, &barriers])
        .chain(max_threads.iter())
        .chain(opt_in.iter())
    {
        if let Value::Const(expr) = value
            && let Some(token) = find_self(quote::ToTokens::to_token_stream(expr))
        {
            errors.push(Error::new(
                token.span(),
                "`Self` cannot be used in the attribute: the check is an item inside the \
                 function; name the type instead (`Gemm::TILE`)",
            ));
        }
    }

    // Ranges the hardware and toolchain define (the lints handle everything else).
    if let Value::Lit { value, span } = barriers
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

    // Targets: the attribute's, else the policy's.
    let mut targets: Vec<(Target, Span)> = Vec::new();
    match &args.target {
        Some(Arg { value, .. }) => {
            for name in value {
                match Target::parse(&name.value()) {
                    Ok(target) if targets.iter().any(|(t, _)| *t == target) => {
                        errors.push(Error::new(
                            name.span(),
                            format!("target `{}` is listed twice", name.value()),
                        ));
                    }
                    Ok(target) => targets.push((target, name.span())),
                    Err(e) => errors.push(Error::new(name.span(), e)),
                }
            }
        }
        None => targets.extend(policy.targets.iter().map(|t| (*t, attribute))),
    }

    let (min_occupancy, _class) =
        policy.floor(args.min_occupancy.as_ref().map(|arg| arg.value.0), None);

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

    errors.finish(Spec {
        wrapper: wrapper.to_string(),
        targets,
        min_occupancy,
        levels,
        block,
        smem,
        regs,
        static_smem,
        barriers,
        max_threads,
        opt_in,
        carveout,
        keys,
        attribute,
    })
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

fn lit(value: u32) -> Value {
    Value::Lit {
        value,
        span: Span::call_site(),
    }
}
