//! `#[occupancy::check(...)]`: lints a CUDA launch configuration during `cargo build`.
//!
//! Use it through the facade crate `occupancy` (`occupancy::check`); the generated code
//! names the engine as `::occupancy`, so the user's crate must depend on `occupancy` under
//! that name. See the facade's documentation for the syntax and the policy file.
//!
//! The front end (tokens -> checked spec: parsing, policy, compiled-kernel resources) is the
//! library `occupancy-attr`, shared with `cargo occupancy report`. This crate is the thin
//! proc-macro layer: `lib.rs` (entry) -> `cache.rs` (an expansion kept from an earlier
//! compilation, replayed while nothing it read has changed) or `occupancy_attr::parse` ->
//! `expand.rs` (-> tokens, diagnostics through `emit.rs`, the files read told to cargo once
//! per compilation through `tracked.rs`) -> `cache.rs` (the expansion stored).
#![deny(missing_docs)]
// `proc_macro::Diagnostic` (rust-lang/rust#54140), behind the opt-in feature only.
#![cfg_attr(feature = "nightly", feature(proc_macro_diagnostic))]

use proc_macro::TokenStream;
use proc_macro2::{Delimiter, Span, TokenTree};
use syn::ItemFn;

mod cache;
mod emit;
mod expand;
mod tracked;

use occupancy_attr::{Env, Wrapper};

/// Checks the launch configuration of a CUDA launch wrapper on every target and reports
/// occupancy problems as warnings or errors. See the `occupancy` crate for the syntax.
#[proc_macro_attribute]
pub fn check(args: TokenStream, item: TokenStream) -> TokenStream {
    run(args.into(), item.into()).into()
}

fn run(args: proc_macro2::TokenStream, item: proc_macro2::TokenStream) -> proc_macro2::TokenStream {
    let cache = cache::Cache::open(&args, &item);
    if let Some(replayed) = cache.as_ref().and_then(cache::Cache::replay) {
        return replayed;
    }
    tracked::begin(cache.as_ref().map(cache::Cache::key));
    let out = expand_fresh(args, item);
    let record = tracked::end();
    if let Some(cache) = cache {
        cache.store(&out, &record);
    }
    out
}

/// The expansion, made from the sources (no cache).
fn expand_fresh(
    args: proc_macro2::TokenStream,
    item: proc_macro2::TokenStream,
) -> proc_macro2::TokenStream {
    let attribute = Span::call_site();
    let not_a_function = |item: proc_macro2::TokenStream| {
        let error = syn::Error::new(
            attribute,
            "#[occupancy::check] goes on a function with a body: the launch wrapper",
        );
        let mut out = error.to_compile_error();
        out.extend(item);
        out
    };
    // The body is kept as the tokens it is: parsed only to be read, never printed again.
    let mut trees: Vec<TokenTree> = item.clone().into_iter().collect();
    let body = match trees.pop() {
        Some(TokenTree::Group(g)) if g.delimiter() == Delimiter::Brace => g,
        _ => return not_a_function(item),
    };
    let head: proc_macro2::TokenStream = trees.into_iter().collect();
    if let Err(e) = occupancy_attr::check_signature(&head) {
        let mut out = e.to_compile_error();
        out.extend(item);
        return out;
    }
    let func: ItemFn = match syn::parse2(quote::quote!(#head {})) {
        Ok(func) => func,
        Err(_) => return not_a_function(item),
    };
    let (block, unread) = match occupancy_attr::parse_body(&body) {
        Ok(block) => (Some(block), None),
        Err(why) => (None, Some(why)),
    };
    let wrapper = Wrapper {
        sig: &func.sig,
        body: block.as_ref(),
        unread,
        launch_at: None,
        launch_helper: None,
    };
    let mut env = Env::from_process();
    if proc_macro::is_available()
        && let Some(file) = proc_macro::Span::call_site().local_file()
    {
        let file = std::path::absolute(&file).unwrap_or(file);
        env = env.with_source_file(file);
    }
    let (checks, beside) = match occupancy_attr::parse(args, &wrapper, attribute, &env) {
        Ok(spec) => expand::expand(&spec, &body.stream()),
        Err(e) => (e.to_compile_error(), proc_macro2::TokenStream::new()),
    };
    let mut out = expand::with_checks(head, &body, checks);
    out.extend(beside);
    out
}

#[cfg(test)]
mod tests {
    use quote::quote;

    use super::run;

    static ENV: std::sync::Mutex<()> = std::sync::Mutex::new(());

    /// Expands on `launch` with the built-in policy (this crate has no occupancy.toml).
    fn expand(args: proc_macro2::TokenStream) -> String {
        let _guard = ENV.lock().unwrap_or_else(|e| e.into_inner());
        // SAFETY: every test of this crate that expands holds `ENV`.
        unsafe { std::env::remove_var(occupancy_core::policy::Policy::ENV_VAR) };
        let item = quote! {
            pub fn launch(n: u32) -> u32 { let blocks = n.div_ceil(256); blocks }
        };
        run(args, item).to_string()
    }

    #[test]
    fn passing_wrapper_keeps_its_body_and_adds_only_tracking() {
        let out = expand(quote!(block = 256, regs = 32));
        // The original statements follow the check block, unchanged.
        assert!(
            out.ends_with("let blocks = n . div_ceil (256) ; blocks }"),
            "{out}"
        );
        // The check block holds only the tracking statement, dead code: no warning, no code,
        // and no `const _` item (each costs the compiler about 0.3 ms).
        assert!(
            out.starts_with(
                "pub fn launch (n : u32) -> u32 { { if false { let _ = (:: core :: option_env ! (\"OCCUPANCY_POLICY\") ,"
            ),
            "{out}"
        );
        assert!(!out.contains("const _"), "{out}");
        assert!(!out.contains("macro_rules"), "{out}");
        assert!(!out.contains("compile_error"), "{out}");
    }

    #[test]
    fn warning_is_a_local_deprecated_macro_named_after_the_lint() {
        let out = expand(quote!(block = 256, regs = 96, target = "sm_90"));
        assert!(out.contains("# [deprecated (note = \"launch on sm_90: 25% occupancy (16 of 64 warps), below the 50% floor"), "{out}");
        assert!(
            out.contains("macro_rules ! low_occupancy { () => { } } low_occupancy ! ()"),
            "{out}"
        );
        assert!(!out.contains("allow"), "{out}");
    }

    #[test]
    fn deny_is_an_error_and_the_wrapper_stays() {
        let out = expand(quote!(
            block = 256,
            regs = 96,
            target = "sm_90",
            deny(low_occupancy)
        ));
        assert!(
            out.contains(":: core :: compile_error ! (\"low_occupancy: launch on sm_90"),
            "{out}"
        );
        assert!(out.contains("let blocks = n . div_ceil (256)"), "{out}");
    }

    #[test]
    fn constants_become_const_checks() {
        let out = expand(quote!(block = BLOCK, regs = 32, target = "sm_90"));
        assert!(out.contains(":: occupancy :: arch :: SM_90"), "{out}");
        assert!(
            out.contains("BlockDim :: new (BLOCK , 1u32 , 1u32)"),
            "{out}"
        );
        // The user's expression sits in the outer block, the check's items in an inner one.
        assert!(
            out.contains("const __OCCUPANCY_LAUNCH : :: occupancy :: occupancy :: Launch"),
            "{out}"
        );
        assert!(out.contains("Check :: < { :: occupancy :: lint :: konst :: below_floor (& RESULT , 5000u16) } > :: _low_occupancy ()"), "{out}");
    }

    #[test]
    fn errors_keep_the_wrapper() {
        let out = expand(quote!(blok = 256, regs = 32));
        assert!(out.contains("compile_error"), "{out}");
        assert!(
            out.contains("unknown key `blok`; did you mean `block`?"),
            "{out}"
        );
        assert!(out.contains("pub fn launch (n : u32) -> u32"), "{out}");
        // Not a function: an error, and the item unchanged.
        let _guard = ENV.lock().unwrap_or_else(|e| e.into_inner());
        let out = run(
            quote!(block = 256, regs = 32),
            quote!(
                struct S;
            ),
        )
        .to_string();
        assert!(out.contains("goes on a function with a body"), "{out}");
        assert!(out.ends_with("struct S ;"), "{out}");
    }
}
