//! Code generation: the wrapper, unchanged (its body's tokens are not even re-printed), with
//! one block statement in front of its body that holds the checks. The block contains only
//! items, inline `const` blocks and macro calls that expand to nothing: it is evaluated
//! during compilation and adds no code.
//!
//! - All values known: the macro runs the lints now ([`occupancy_attr::Spec::evaluate`],
//!   plan by plan, kernel by kernel, target by target with each target's compiled kernel)
//!   and emits each diagnostic at its level: a warning ([`emit::warning`]), an error
//!   ([`emit::denied`]), or nothing.
//! - Every value the front end read from a name (a constant of the crate, a `const fn`, a
//!   helper's constants) is confirmed during compilation: `confirm::<{ TERM == value },
//!   value>()` in dead code, which type-checks only when the compiler's value is the one
//!   read (`Self` and generic parameters: an inline `const { assert!(..) }` in the body
//!   instead, evaluated by `cargo build`); each helper read is checked to be the function
//!   called (`same_item(&written, &read)`, dead code that only type-checks when both are the
//!   same function item). See [`confirmations`].
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

use occupancy_attr::{Diagnostic, Grouping, Plan, Spec, Value};
use occupancy_core::lint::konst::Impossible;
use occupancy_core::lint::{Input, LOW_OCCUPANCY, Level, Lint, PARTIAL_WARP};
use proc_macro2::{Delimiter, Group, Ident, Span, TokenStream, TokenTree};
use quote::{format_ident, quote, quote_spanned};
use syn::LitStr;

use crate::emit;
use crate::tracked::{self, Shared};

/// The checks for `spec`: tracking, confirmations, and the diagnostics (or the
/// compile-time path); and the items to put beside the function (the markers of the
/// confirmations it shares: [`confirmations`]).
/// `body`: the wrapper's body, where the expressions diagnostics point at are.
pub(crate) fn expand(spec: &Spec, body: &TokenStream) -> (TokenStream, TokenStream) {
    let mut checks = tracking(spec);
    let (confirmed, beside) = confirmations(spec);
    checks.extend(confirmed);
    // One error per launch that cannot run, whatever the targets' architectures.
    match spec.evaluate_grouped(Grouping::OnePerPlace) {
        Some(evaluation) => {
            checks.extend(evaluation.diagnostics.iter().map(|d| report(spec, d, body)));
        }
        None => checks.extend(const_checks(spec)),
    }
    (checks, beside)
}

/// The function: its head as it was, its body's tokens as they were with `checks` as a
/// block statement in front; the body keeps its own span.
pub(crate) fn with_checks(head: TokenStream, body: &Group, checks: TokenStream) -> TokenStream {
    let mut stream = TokenStream::new();
    if !checks.is_empty() {
        stream.extend(quote!({ #checks }));
    }
    stream.extend(body.stream());
    let mut group = Group::new(Delimiter::Brace, stream);
    group.set_span(body.span());
    let mut out = head;
    out.extend([TokenTree::Group(group)]);
    out
}

/// The compiler's confirmation of every value read from a name, and of every helper read:
/// calls in dead code (`if false { ... }`) that type-check only when the expression is the
/// value read (`confirm::<{ (TILE / 4) == 16 }, 16>()`: rustc evaluates the constant argument
/// when it type-checks the wrapper, `cargo check` included, with no item of its own) and when
/// the helper read is the function called. An expression that names `Self` or a generic
/// parameter cannot be a constant argument: it is asserted in an inline `const { }` in the
/// body instead (evaluated by `cargo build`, not `cargo check`).
///
/// A confirmation another wrapper of the same module made in this compilation is not made
/// again ([`tracked::share`]): the wrapper names that one's marker constant instead
/// (`let _ = self::__OCCUPANCY_CONFIRMED_..;` in the dead code), which compiles only where
/// the marker is, in that wrapper's module. The wrapper that makes a shared confirmation
/// defines the marker beside the function (the second part returned) and names it too.
fn confirmations(spec: &Spec) -> (TokenStream, TokenStream) {
    let mut dead = TokenStream::new();
    let mut in_body = TokenStream::new();
    let mut beside = TokenStream::new();
    for c in &spec.confirmations {
        let expr = &c.expr;
        let value = proc_macro2::Literal::i128_unsuffixed(c.value);
        if c.in_body {
            let message = match c.from_attribute {
                None => format!(
                    "#[occupancy::check] read `{}` as {} from the crate's sources ({}), but the \
                     compiler computes another value: the check would be about another launch \
                     (a shadowed name? a #[cfg]-dependent constant?); write the value in the \
                     attribute (`block = ...`, `smem = ...`) and the compiler checks it instead",
                    c.text, c.value, c.what
                ),
                Some(key) => format!(
                    "#[occupancy::check]: the attribute's `{key}` says {} for the body's `{}`, \
                     but the compiler computes another value: the attribute must check the \
                     launch the body makes",
                    c.value, c.text
                ),
            };
            let message = LitStr::new(&message, c.span);
            in_body.extend(quote_spanned! {c.span=>
                const { ::core::assert!((#expr) == #value, #message) };
            });
        } else {
            let kind = c.from_attribute.map_or("confirm", |_| "stated");
            let shared = spec
                .shared_scope
                .as_deref()
                .filter(|_| c.shareable)
                .and_then(|scope| tracked::share(scope, &expr.to_string(), c.value, kind));
            if let Some(Shared::Here(marker) | Shared::Elsewhere(marker)) = &shared {
                let marker = Ident::new(marker, Span::call_site());
                dead.extend(quote!(let _ = self::#marker;));
                if let Some(Shared::Here(_)) = shared {
                    beside.extend(quote!(#[doc(hidden)] const #marker: () = ();));
                } else {
                    continue;
                }
            }
            let read = proc_macro2::Literal::i128_unsuffixed(c.value);
            let check = match c.from_attribute {
                None => quote_spanned!(c.span=> confirm),
                Some(_) => quote_spanned!(c.span=> confirm_stated),
            };
            dead.extend(quote_spanned! {c.span=>
                ::occupancy::__private::#check::<{ (#expr) == #value }, #read>();
            });
        }
    }
    for h in &spec.helpers {
        let (written, read) = (&h.written, &h.read);
        dead.extend(quote_spanned!(h.span=> ::occupancy::__private::same_item(&#written, &#read);));
    }
    let mut out = in_body;
    if !dead.is_empty() {
        out.extend(quote!(if false { #dead }));
    }
    (out, beside)
}

/// Tells cargo what the expansion depends on besides the source: the files and the variables
/// read (each once per compilation: `tracked.rs`); and has the compiler type-check a constant `grid`, which the macro does
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
    // One `option_env!` per variable and one `include_bytes!` per file and compilation
    // (`tracked.rs`); a name no entry can hold is told every time (and the expansion that
    // read it is not stored: its record has the same name).
    let once = |fact: Option<String>| fact.is_none_or(crate::tracked::include);
    let vars = spec
        .tracked_vars
        .iter()
        .filter(|var| once(crate::tracked::var(var)))
        .map(|var| {
            let var = LitStr::new(var, Span::call_site());
            quote!(::core::option_env!(#var))
        });
    let files = spec
        .tracked_files
        .iter()
        .filter(|p| once(crate::tracked::file(p)))
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
    for plan in &spec.plans {
        for dim in plan.grid.iter().flatten() {
            if let Value::Const(expr) = dim {
                tokens.extend(quote! { const _: u32 = #expr; });
            }
        }
    }
    tokens
}

fn report(spec: &Spec, diagnostic: &Diagnostic, body: &TokenStream) -> TokenStream {
    let finding = &diagnostic.finding;
    let span = spec.span_of(finding.input, diagnostic.plan).span();
    let end = expression_end(body.clone(), span).unwrap_or(span);
    match spec.level(finding.lint) {
        Level::Allow => TokenStream::new(),
        Level::Warn => emit::warning(span, end, finding),
        Level::Deny => emit::denied(span, end, finding),
    }
}

/// The last token of the expression in `tokens` (the body's) that starts where `start`
/// does: that token and those after it up to the `,` or `;` that ends it at its level
/// (`64 * 1024` in `shared_mem_bytes: 64 * 1024,`). `None` when no token of `tokens`
/// starts there (a key of the attribute). The front end's spans are an expression's first
/// token, since stable proc macros cannot join spans.
fn expression_end(tokens: TokenStream, start: Span) -> Option<Span> {
    let at = start.start();
    let trees: Vec<TokenTree> = tokens.into_iter().collect();
    for (i, tree) in trees.iter().enumerate() {
        if tree.span().start() == at {
            let end = trees[i + 1..]
                .iter()
                .take_while(
                    |t| !matches!(t, TokenTree::Punct(p) if matches!(p.as_char(), ',' | ';')),
                )
                .last()
                .map_or(tree.span(), TokenTree::span);
            return Some(end);
        }
        if let TokenTree::Group(group) = tree {
            let (open, close) = (group.span().start(), group.span().end());
            let inside = (open.line, open.column) < (at.line, at.column)
                && (at.line, at.column) < (close.line, close.column);
            if inside {
                return expression_end(group.stream(), start);
            }
        }
    }
    None
}

/// Some value is a constant expression: check during compilation, without the numbers.
fn const_checks(spec: &Spec) -> TokenStream {
    spec.plans
        .iter()
        .enumerate()
        .map(|(p, plan)| {
            let checks = const_plan(spec, p, plan);
            quote!({ #checks })
        })
        .collect()
}

/// The compile-time checks of one plan, for every kernel and target.
fn const_plan(spec: &Spec, p: usize, plan: &Plan) -> TokenStream {
    let inputs = spec.const_inputs();
    let span = inputs.first().map_or(spec.attribute.span(), |input| {
        spec.span_of(*input, p).span()
    });
    let given: Vec<String> = inputs.iter().map(|i| format!("`{}`", i.key())).collect();
    let unread: String = spec
        .unread
        .iter()
        .map(|why| format!("\n= note: not read from the crate's sources: {why}"))
        .collect();
    let why = format!(
        "= note: computed during compilation from the constant{} given to {}: the numbers \
         cannot be shown{unread}\n= help: write the values as literals in the attribute for \
         the numbers and a fix, or run `cargo occupancy calc` with them",
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
    let [x, y, z] = &plan.block;
    let (x, y, z) = (tokens(x), tokens(y), tokens(z));
    let smem = tokens(&plan.smem);
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
            subject(spec, plan, None)
        );
        let check = conditional(
            &PARTIAL_WARP,
            partial,
            spec.span_of(Input::Block, p).span(),
            &fires,
            &message,
        );
        out.extend(quote!({ #check }));
    }
    for (index, target) in spec.targets.iter().enumerate() {
        for k in spec.kernel_indices() {
            if !spec.on_target(k, index) {
                continue;
            }
            let kernel = target_kernel(spec, k, index);
            let target = &target.target;
            let arch = format_ident!("{}", target.arch.sm.to_ascii_uppercase());
            let subject = format!("{} on {target}", subject(spec, plan, k));
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
    }
    out
}

/// The wrapper's name with the plan's label and the family's kernel, as messages name it.
fn subject(spec: &Spec, plan: &Plan, kernel: Option<usize>) -> String {
    let mut parts: Vec<String> = plan.label.iter().cloned().collect();
    if spec.kernels.len() > 1
        && let Some(k) = kernel.and_then(|k| spec.kernels.get(k))
    {
        parts.push(format!("kernel {}", k.name));
    }
    if parts.is_empty() {
        spec.wrapper.clone()
    } else {
        format!("{} ({})", spec.wrapper, parts.join(", "))
    }
}

/// The kernel of target `index` in the const path: the attribute's values (in
/// `__OCCUPANCY_KERNEL`) where it gave them, the compiled kernel's literals elsewhere.
fn target_kernel(spec: &Spec, kernel: Option<usize>, index: usize) -> TokenStream {
    let path = quote!(::occupancy);
    let Some(r) = spec.resources(kernel, index) else {
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
