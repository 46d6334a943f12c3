//! Code generation: the wrapper, unchanged, with one block statement in front of its body
//! that holds the checks. The block contains only items and macro calls that expand to
//! nothing: it is evaluated during compilation and adds no code.
//!
//! - All values literal: the macro runs the lints now ([`occupancy_attr::Spec::evaluate`],
//!   target by target with each target's compiled kernel) and emits each finding at its level: a warning ([`emit::warning`]), an error
//!   ([`emit::denied`]), or nothing.
//! - Some value a constant expression: the macro cannot read it, so it emits `const` items
//!   that run the engine during compilation ([`occupancy_core::lint::konst`]): a
//!   `launch_impossible` or denied lint is a const panic with a fixed message; a warned lint
//!   is a conditional use of a deprecated function (`Check::<{ fires }>::_low_occupancy()`).
//!   The numbers cannot be printed on that path. Resources read from a compiled kernel are
//!   literals in those items, one kernel per target.
//! - Cargo is told what the result depends on besides the source: `include_bytes!` of every
//!   file read (policy, manifest, cubin, fatbin) and `option_env!` of every variable read.
//!
//! Generated code names the engine through the facade crate, `::occupancy`, with full paths.

use occupancy_attr::{Spec, Value};
use occupancy_core::lint::konst::Impossible;
use occupancy_core::lint::{Finding, Input, LOW_OCCUPANCY, Level, Lint, PARTIAL_WARP};
use proc_macro2::{Ident, Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::{ItemFn, LitStr, Stmt};

use crate::emit;

/// The wrapper with the checks for `spec` in front of its body.
pub(crate) fn expand(spec: &Spec, func: ItemFn) -> TokenStream {
    let mut checks = tracking(spec);
    match spec.evaluate() {
        Some(evaluation) => {
            checks.extend(evaluation.findings.iter().map(|f| report(spec, f)));
        }
        None => checks.extend(const_checks(spec)),
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

/// Tells cargo what the expansion depends on besides the source: the files read and the
/// variables read; and has the compiler type-check a constant `grid`, which the macro does
/// not use otherwise.
///
/// The `include_bytes!` and `option_env!` are enough for rustc to list the files and
/// variables in the crate's dep-info; their values are not needed. They sit in an
/// `if false { let _ = (...); }` statement: type-checked with the wrapper, never compiled to
/// code, so no file's bytes reach even a debug binary. That costs the compiler about
/// 0.13 ms per wrapper, where a `const _` item per file or variable cost about 0.2 ms each
/// and a never-called closure 0.35 ms (`bench/macro-cost`, docs/PERFORMANCE.md). It is
/// allowed in a `const fn` too.
fn tracking(spec: &Spec) -> TokenStream {
    let vars = spec.tracked_vars.iter().map(|var| {
        let var = LitStr::new(var, Span::call_site());
        quote!(::core::option_env!(#var))
    });
    let files = spec
        .tracked_files
        .iter()
        .filter_map(|p| p.to_str())
        .map(|path| {
            let path = LitStr::new(path, Span::call_site());
            quote!(::core::include_bytes!(#path))
        });
    let tracked: Vec<TokenStream> = vars.chain(files).collect();
    let mut tokens = TokenStream::new();
    if !tracked.is_empty() {
        tokens.extend(quote!(if false { let _ = (#(#tracked,)*); }));
    }
    for dim in spec.grid.iter().flatten() {
        if let Value::Const(expr) = dim {
            tokens.extend(quote! { const _: u32 = #expr; });
        }
    }
    tokens
}

fn report(spec: &Spec, finding: &Finding) -> TokenStream {
    let span = spec.span_of(finding.input);
    match spec.level(finding.lint) {
        Level::Allow => TokenStream::new(),
        Level::Warn => emit::warning(span, finding),
        Level::Deny => emit::denied(span, finding),
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
    // The attribute's own values, evaluated once in the outer block; what it does not give
    // comes from each target's compiled kernel (literals) in the target's block.
    let or_default = |v: &Option<Value>, default: u32| match v {
        Some(v) => tokens(v),
        None => quote!(#default),
    };
    let regs = or_default(&spec.regs, 0);
    let static_smem = or_default(&spec.static_smem, 0);
    let barriers = or_default(&spec.barriers, 1);
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
    let partial = spec.level(&PARTIAL_WARP);
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
    for (index, target) in spec.targets.iter().enumerate() {
        let kernel = target_kernel(spec, index);
        let target = &target.target;
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
            const KERNEL: #path::occupancy::Kernel = #kernel;
            const RESULT: ::core::result::Result<
                #path::occupancy::Occupancy,
                #path::occupancy::OccupancyError,
            > = #path::occupancy::occupancy(
                &#path::arch::#arch,
                &KERNEL,
                &__OCCUPANCY_LAUNCH,
            );
            const _: () = match #path::lint::konst::impossible(&KERNEL, &__OCCUPANCY_LAUNCH, &RESULT) {
                ::core::option::Option::None => {}
                #(#arms)*
            };
        };
        let low = spec.level(&LOW_OCCUPANCY);
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

/// The kernel of target `index` in the const path: the attribute's values (in
/// `__OCCUPANCY_KERNEL`) where it gave them, the compiled kernel's literals elsewhere.
fn target_kernel(spec: &Spec, index: usize) -> TokenStream {
    let path = quote!(::occupancy);
    let Some(r) = spec.targets.get(index).and_then(|t| t.resources.as_ref()) else {
        return quote!(__OCCUPANCY_KERNEL);
    };
    let field = |given: bool, field: TokenStream, artifact: TokenStream| {
        if given {
            quote!(__OCCUPANCY_KERNEL.#field)
        } else {
            artifact
        }
    };
    let regs = r.registers_per_thread;
    let regs = field(
        spec.regs.is_some(),
        quote!(registers_per_thread),
        quote!(#regs),
    );
    let static_smem = r.static_smem_bytes;
    let static_smem = field(
        spec.static_smem.is_some(),
        quote!(static_smem_bytes),
        quote!(#static_smem),
    );
    let barriers = r.barriers.unwrap_or(1);
    let barriers = field(spec.barriers.is_some(), quote!(barriers), quote!(#barriers));
    let max_threads = match r.max_threads_per_block() {
        Some(t) => quote!(::core::option::Option::Some(#t)),
        None => quote!(::core::option::Option::None),
    };
    let max_threads = field(
        spec.max_threads.is_some(),
        quote!(max_threads_per_block),
        max_threads,
    );
    quote! {
        #path::occupancy::Kernel {
            registers_per_thread: #regs,
            static_smem_bytes: #static_smem,
            barriers: #barriers,
            max_threads_per_block: #max_threads,
            ..__OCCUPANCY_KERNEL
        }
    }
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
