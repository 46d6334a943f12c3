//! `#[occupancy::check(...)]`: lints a CUDA launch configuration during `cargo build`.
//!
//! Use it through the facade crate `occupancy` (`occupancy::check`); the generated code
//! names the engine as `::occupancy`, so the user's crate must depend on `occupancy` under
//! that name. See the facade's documentation for the syntax and the policy file.
//!
//! Stages, one file each (data flows one way):
//! `attr.rs` (tokens -> [`ast::Args`]) -> `valid.rs` (+ `policy.rs`, -> `valid::Spec`) ->
//! `expand.rs` (-> tokens, diagnostics through `emit.rs`).
#![deny(missing_docs)]

use proc_macro::TokenStream;
use proc_macro2::Span;
use quote::ToTokens;
use syn::ItemFn;

mod ast;
mod attr;
mod emit;
mod errors;
mod expand;
mod policy;
mod valid;

use errors::Errors;

/// Checks the launch configuration of a CUDA launch wrapper on every target and reports
/// occupancy problems as warnings or errors. See the `occupancy` crate for the syntax.
#[proc_macro_attribute]
pub fn check(args: TokenStream, item: TokenStream) -> TokenStream {
    run(args.into(), item.into()).into()
}

fn run(args: proc_macro2::TokenStream, item: proc_macro2::TokenStream) -> proc_macro2::TokenStream {
    let attribute = Span::call_site();
    let func: ItemFn = match syn::parse2(item.clone()) {
        Ok(func) => func,
        Err(_) => {
            let error = syn::Error::new(
                attribute,
                "#[occupancy::check] goes on a function with a body: the launch wrapper",
            );
            let mut out = error.to_compile_error();
            out.extend(item);
            return out;
        }
    };
    let mut errors = Errors::default();
    let args = attr::parse(args, &mut errors);
    let loaded = policy::load(attribute).map_err(|e| errors.push(e)).ok();
    let spec = loaded.as_ref().and_then(|loaded| {
        valid::validate(args, &loaded.policy, &func.sig.ident, attribute)
            .map_err(|e| errors.push(e))
            .ok()
    });
    let file = loaded.as_ref().and_then(|l| l.file.as_deref());
    match (errors.finish(()), spec) {
        (Ok(()), Some(spec)) => expand::expand(&spec, file, func),
        (Err(e), _) => expand::with_checks(func, e.to_compile_error()),
        // Unreachable: every `None` above comes with an error.
        (Ok(()), None) => func.into_token_stream(),
    }
}
