//! The attribute's keys for the kernels' resources (`kernel`, `cubin`, `fatbin`) handed to
//! [`occupancy_spec::artifact::resolve`], which finds and reads the resource manifest, cubin
//! or fatbin (the order and the rules are in its docs); its problems become errors on their
//! tokens.

use occupancy_core::policy::Policy;
use occupancy_spec::artifact::{self, Binary};
pub(crate) use occupancy_spec::artifact::{Resolved, WantedKernels, WantedTarget, is_glob};
use syn::{Error, LitStr};

use crate::Env;
use crate::ast::{Arg, Args, Candidates};
use crate::errors::Errors;
use crate::spec::SourceKind;

/// What the attribute's `kernel` gives.
pub(crate) fn wanted_kernels(arg: &Arg<Candidates<LitStr>>) -> WantedKernels {
    WantedKernels {
        names: arg
            .value
            .items
            .iter()
            .map(|l| (l.value(), l.span()))
            .collect(),
        key_span: arg.key.span(),
    }
}

/// Reads the resources of the kernels `wanted` names (or the only kernel of the attribute's
/// cubin or fatbin), for every target. `None` when nothing names a kernel, or on an error
/// (pushed to `errors`). `embedded_module`: the module of the compiled file the wrapper's
/// source file embeds, for a name several modules define (see
/// [`occupancy_spec::artifact::resolve`]).
pub(crate) fn resolve(
    args: &Args,
    wanted: Option<WantedKernels>,
    policy: &Policy,
    env: &Env,
    targets: &[WantedTarget],
    embedded_module: &mut dyn FnMut() -> Option<String>,
    errors: &mut Errors,
) -> Option<Resolved> {
    let binary = |kind: SourceKind, arg: &Arg<LitStr>| Binary {
        kind,
        written: arg.value.value(),
        span: arg.value.span(),
        key_span: arg.key.span(),
    };
    let binary = match (&args.cubin, &args.fatbin) {
        (Some(_), Some(fatbin)) => {
            errors.push(Error::new(
                fatbin.key.span(),
                "`cubin` and `fatbin` are two sources of the same resources: give one",
            ));
            return None;
        }
        (Some(cubin), None) => Some(binary(SourceKind::Cubin, cubin)),
        (None, Some(fatbin)) => Some(binary(SourceKind::Fatbin, fatbin)),
        (None, None) => None,
    };
    let mut problems = Vec::new();
    let resolved = artifact::resolve(
        binary.as_ref(),
        wanted,
        policy,
        env,
        targets,
        embedded_module,
        &mut problems,
    );
    for problem in problems {
        errors.push(Error::new(problem.span, problem.message));
    }
    resolved
}
