//! Diagnostics as tokens: the one place that knows how a warning or an error reaches the
//! user, so that another backend (the nightly `proc_macro::Diagnostic`) can replace it.
//!
//! Stable Rust has no warning API for proc macros. A warning is a use of a local
//! `#[deprecated(note = "...")]` item named after the lint, placed in the wrapper's body
//! with the user's span: rustc prints `warning: use of deprecated macro `low_occupancy`:
//! <message>`, `#[allow(deprecated)]` on the function silences it, `-D warnings` makes it an
//! error. The macro never generates a lint attribute itself (a user's
//! `#![forbid(deprecated)]` would reject it).

use proc_macro2::{Ident, Span, TokenStream};
use quote::{quote, quote_spanned};
use syn::LitStr;

/// A warning named `lint` at `span`: a statement for the wrapper's body that expands to
/// nothing.
pub(crate) fn warning(lint: &str, span: Span, text: &str) -> TokenStream {
    let definition = Ident::new(lint, Span::call_site());
    let call = Ident::new(lint, span);
    let note = LitStr::new(text, Span::call_site());
    quote! {
        {
            #[deprecated(note = #note)]
            macro_rules! #definition { () => {} }
            #call!();
        }
    }
}

/// An error at `span`: a statement for the wrapper's body.
pub(crate) fn error(span: Span, text: &str) -> TokenStream {
    let message = LitStr::new(text, span);
    quote_spanned! {span=> ::core::compile_error!(#message); }
}
