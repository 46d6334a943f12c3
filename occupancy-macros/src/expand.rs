//! Code generation: the wrapper, unchanged, with one block statement in front of its body
//! that holds the checks. The block contains only items and macro calls that expand to
//! nothing: it is evaluated during compilation and adds no code.
//!
//! - All values literal: the macro runs the lints ([`occupancy_core::lint::check`]) now and
//!   emits each finding at its level: a warning ([`emit::warning`]), an error
//!   ([`emit::error`]), or nothing.
//! - Some value a constant expression: the macro cannot read it, so it emits `const` items
//!   that run the engine during compilation ([`occupancy_core::lint::konst`]): a
//!   `launch_impossible` or denied lint is a const panic with a fixed message; a warned lint
//!   is a conditional use of a deprecated function (`Check::<{ fires }>::_low_occupancy()`).
//!   The numbers cannot be printed on that path.
//!
//! Generated code names the engine through the facade crate, `::occupancy`, with full paths.

use std::path::Path;

use occupancy_core::lint::konst::Impossible;
use occupancy_core::lint::{
    Finding, Input, LOW_OCCUPANCY, LaunchSpec, Level, Lint, PARTIAL_WARP, check,
};
use occupancy_core::occupancy::{BlockDim, Carveout, Kernel, Launch};
use occupancy_core::policy::Policy;
use proc_macro2::{Ident, Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::{ItemFn, LitStr, Stmt};

use crate::ast::Value;
use crate::emit;
use crate::valid::Spec;

/// The wrapper with the checks for `spec` in front of its body.
pub(crate) fn expand(spec: &Spec, policy_file: Option<&Path>, func: ItemFn) -> TokenStream {
    let mut checks = tracking(policy_file);
    if spec.const_inputs().is_empty() {
        checks.extend(literal_checks(spec));
    } else {
        checks.extend(const_checks(spec));
    }
    with_checks(func, checks)
}

/// `func` with `checks` as a block statement in front of its body; the body's own tokens
/// and spans are untouched.
pub(crate) fn with_checks(mut func: ItemFn, checks: TokenStream) -> TokenStream {
    if !checks.is_empty() {
        let block = syn::Item::Verbatim(quote!({ #checks }));
        func.block.stmts.insert(0, Stmt::Item(block));
    }
    quote!(#func)
}

/// Tells cargo what the expansion depends on besides the source: the policy file and the
/// `OCCUPANCY_POLICY` variable.
fn tracking(policy_file: Option<&Path>) -> TokenStream {
    let var = LitStr::new(Policy::ENV_VAR, Span::call_site());
    let mut tokens = quote! {
        const _: ::core::option::Option<&str> = ::core::option_env!(#var);
    };
    if let Some(path) = policy_file.and_then(Path::to_str) {
        let path = LitStr::new(path, Span::call_site());
        tokens.extend(quote! { const _: &[u8] = ::core::include_bytes!(#path); });
    }
    tokens
}

fn level(spec: &Spec, lint: &Lint) -> Level {
    if lint.configurable {
        spec.levels.get(lint)
    } else {
        lint.default_level
    }
}

/// Every value is known: lint now, with the numbers.
fn literal_checks(spec: &Spec) -> TokenStream {
    let value = |v: &Value| v.literal().unwrap_or(0);
    let mut kernel = Kernel::new(value(&spec.regs))
        .with_static_smem(value(&spec.static_smem))
        .with_barriers(value(&spec.barriers));
    if let Some(v) = &spec.max_threads {
        kernel = kernel.with_max_threads(value(v));
    }
    if let Some(v) = &spec.opt_in {
        kernel = kernel.with_opt_in(value(v));
    }
    if let Some(p) = spec.carveout {
        kernel = kernel.with_carveout(Carveout::Percent(p));
    }
    let [x, y, z] = &spec.block;
    let launch = Launch::new(BlockDim::new(value(x), value(y), value(z)))
        .with_dynamic_smem(value(&spec.smem));
    let targets: Vec<_> = spec.targets.iter().map(|(t, _)| *t).collect();
    let findings = check(&LaunchSpec {
        min_occupancy: spec.min_occupancy,
        ..LaunchSpec::new(&spec.wrapper, &targets, kernel, launch)
    });
    findings.iter().map(|f| report(spec, f)).collect()
}

fn report(spec: &Spec, finding: &Finding) -> TokenStream {
    let span = spec.span_of(finding.input);
    match level(spec, finding.lint) {
        Level::Allow => TokenStream::new(),
        Level::Warn => emit::warning(finding.lint.name, span, &finding.to_string()),
        Level::Deny => emit::error(span, &format!("{}: {finding}", finding.lint.name)),
    }
}

/// Some value is a constant expression: check during compilation, without the numbers.
fn const_checks(spec: &Spec) -> TokenStream {
    let inputs = spec.const_inputs();
    let span = inputs
        .first()
        .map_or(spec.attribute, |input| spec.span_of(*input));
    let given: Vec<String> = inputs.iter().map(|i| format!("`{}`", i.key())).collect();
    let why = format!(
        "= note: computed during compilation from the constant{} given to {}: the numbers \
         cannot be shown\n= help: write the values as literals in the attribute for the \
         numbers and a fix, or run `cargo occupancy calc` with them",
        if given.len() == 1 { "" } else { "s" },
        given.join(", ")
    );
    let path = quote!(::occupancy);
    let tokens = |v: &Value| match v {
        Value::Lit { value, span } => quote_spanned!(*span=> #value),
        Value::Const(expr) => quote!(#expr),
    };
    let regs = tokens(&spec.regs);
    let static_smem = tokens(&spec.static_smem);
    let barriers = tokens(&spec.barriers);
    let mut kernel = quote! {
        #path::occupancy::Kernel::new(#regs)
            .with_static_smem(#static_smem)
            .with_barriers(#barriers)
    };
    if let Some(v) = &spec.max_threads {
        let v = tokens(v);
        kernel.extend(quote!(.with_max_threads(#v)));
    }
    if let Some(v) = &spec.opt_in {
        let v = tokens(v);
        kernel.extend(quote!(.with_opt_in(#v)));
    }
    if let Some(p) = spec.carveout {
        kernel.extend(quote!(.with_carveout(#path::occupancy::Carveout::Percent(#p))));
    }
    let [x, y, z] = &spec.block;
    let (x, y, z) = (tokens(x), tokens(y), tokens(z));
    let smem = tokens(&spec.smem);
    let launch = quote! {
        #path::occupancy::Launch::new(#path::occupancy::BlockDim::new(#x, #y, #z))
            .with_dynamic_smem(#smem)
    };

    // The user's expressions are evaluated here, in the outer block, where only these two
    // names are defined; the checks' own items live in inner blocks they cannot see.
    let mut out = quote! {
        const __OCCUPANCY_KERNEL: #path::occupancy::Kernel = #kernel;
        const __OCCUPANCY_LAUNCH: #path::occupancy::Launch = #launch;
    };
    // partial_warp: once per launch.
    let partial = level(spec, &PARTIAL_WARP);
    if partial != Level::Allow {
        let fires = quote!(#path::lint::konst::partial_warp(__OCCUPANCY_LAUNCH.block, 32));
        let message = format!(
            "{}: threads per block are not a multiple of the 32-thread warp\n{why}",
            spec.wrapper
        );
        let check = conditional(
            &PARTIAL_WARP,
            partial,
            spec.span_of(Input::Block),
            &fires,
            &message,
        );
        out.extend(quote!({ #check }));
    }
    for (target, _) in &spec.targets {
        let arch = format_ident!("{}", target.arch.sm.to_ascii_uppercase());
        let subject = format!("{} on {target}", spec.wrapper);
        let arms = Impossible::ALL.iter().map(|reason| {
            let variant = Ident::new(reason.variant_name(), Span::call_site());
            let message = LitStr::new(
                &format!(
                    "launch_impossible: {subject}: {}; computed during compilation from the \
                     constant{} given to {}",
                    reason.describe(),
                    if given.len() == 1 { "" } else { "s" },
                    given.join(", ")
                ),
                span,
            );
            quote_spanned! {span=>
                ::core::option::Option::Some(#path::lint::konst::Impossible::#variant) => {
                    ::core::panic!("{}", #message)
                }
            }
        });
        let mut body = quote! {
            const RESULT: ::core::result::Result<
                #path::occupancy::Occupancy,
                #path::occupancy::OccupancyError,
            > = #path::occupancy::occupancy(
                &#path::arch::#arch,
                &__OCCUPANCY_KERNEL,
                &__OCCUPANCY_LAUNCH,
            );
            const _: () = match #path::lint::konst::impossible(&__OCCUPANCY_KERNEL, &__OCCUPANCY_LAUNCH, &RESULT) {
                ::core::option::Option::None => {}
                #(#arms)*
            };
        };
        let low = level(spec, &LOW_OCCUPANCY);
        if low != Level::Allow {
            let bp = spec.min_occupancy.basis_points();
            let fires = quote!(#path::lint::konst::below_floor(&RESULT, #bp));
            let message = format!(
                "{subject}: occupancy below the {} floor\n{why}",
                spec.min_occupancy
            );
            body.extend(conditional(&LOW_OCCUPANCY, low, span, &fires, &message));
        }
        out.extend(quote!({ #body }));
    }
    out
}

/// A lint whose condition `fires` is a `bool` constant expression: a const panic (deny) or
/// a conditional deprecation warning (warn), both at `span`.
fn conditional(
    lint: &Lint,
    level: Level,
    span: Span,
    fires: &TokenStream,
    message: &str,
) -> TokenStream {
    match level {
        Level::Allow => TokenStream::new(),
        Level::Deny => {
            let message = LitStr::new(&format!("{}: {message}", lint.name), span);
            quote_spanned! {span=>
                const _: () = if #fires { ::core::panic!("{}", #message) };
            }
        }
        Level::Warn => {
            let function = format_ident!("_{}", lint.name, span = span);
            let note = LitStr::new(message, Span::call_site());
            quote! {
                struct Check<const FIRES: bool>;
                impl Check<true> {
                    #[deprecated(note = #note)]
                    const fn #function() {}
                }
                impl Check<false> {
                    const fn #function() {}
                }
                const _: () = Check::<{ #fires }>::#function();
            }
        }
    }
}
