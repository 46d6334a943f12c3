//! Diagnostics as tokens: the one place that knows how a warning or an error reaches the
//! user. Two backends, chosen by the cargo feature `nightly` (never detected from the
//! compiler):
//!
//! - stable (default): Rust has no warning API for proc macros. A warning is a use of a
//!   local `#[deprecated(note = "...")]` item named after the lint, placed in the wrapper's
//!   body with the user's span: rustc prints `warning: use of deprecated macro
//!   `low_occupancy`: <message>`, `#[allow(deprecated)]` on the function silences it,
//!   `-D warnings` makes it an error. The macro never generates a lint attribute itself (a
//!   user's `#![forbid(deprecated)]` would reject it). A denied finding is a
//!   `compile_error!` with the same text.
//! - `nightly`: `proc_macro::Diagnostic` (rust-lang/rust#54140): `warning: low_occupancy:
//!   <message>` (or `error:` for a denied finding) at the user's span, each note and help a
//!   `= note:` / `= help:` child. Rustc's lint levels do not apply to these: no `#[allow]`
//!   silences them and `-D warnings` does not make them errors (the crate's README says
//!   so); the attribute's `allow(...)` and `occupancy.toml` `[lints]` do, as on stable.
//!   Outside a proc macro (the crate's unit tests) the stable tokens are emitted.
//!
//! Front-end errors (a bad key, a malformed policy) are `syn::Error`s on both backends.

use occupancy_core::lint::Finding;
use proc_macro2::{Ident, Span, TokenStream};
use quote::{quote, quote_spanned};
use syn::LitStr;

/// A warning about `finding` at `span`: a statement for the wrapper's body (stable), or
/// nothing once the diagnostic is emitted (`nightly`).
///
/// `end`: the last token of the expression `span` starts (the same span for one token). A
/// warning on stable can point at one token only (the deprecated item's name): `span`.
pub(crate) fn warning(span: Span, end: Span, finding: &Finding) -> TokenStream {
    #[cfg(feature = "nightly")]
    if proc_macro::is_available() {
        nightly::emit(
            proc_macro::Level::Warning,
            span.join(end).unwrap_or(span),
            finding,
        );
        return TokenStream::new();
    }
    let _ = end;
    deprecated_use(finding.lint.name, span, &finding.to_string())
}

/// An error for a denied `finding` over `span` to `end` (the first and last tokens of the
/// expression): `<lint>: <message>`, then its notes and helps.
pub(crate) fn denied(span: Span, end: Span, finding: &Finding) -> TokenStream {
    #[cfg(feature = "nightly")]
    if proc_macro::is_available() {
        nightly::emit(
            proc_macro::Level::Error,
            span.join(end).unwrap_or(span),
            finding,
        );
        return TokenStream::new();
    }
    error_over(span, end, &format!("{}: {finding}", finding.lint.name))
}

/// An error from `start` to `end`: a statement for the wrapper's body. Stable proc macros
/// cannot join two spans; rustc spans a macro call from its path to its closing delimiter,
/// so `compile_error!` written with its path at `start` and its parentheses at `end` covers
/// the whole expression (`64 * 1024`, not `64`), as `syn::Error::new_spanned` does.
fn error_over(start: Span, end: Span, text: &str) -> TokenStream {
    let message = LitStr::new(text, start);
    let mut args = proc_macro2::Group::new(proc_macro2::Delimiter::Parenthesis, quote!(#message));
    args.set_span(end);
    let mut semi = proc_macro2::Punct::new(';', proc_macro2::Spacing::Alone);
    semi.set_span(end);
    let mut out = quote_spanned! {start=> ::core::compile_error! };
    out.extend([
        proc_macro2::TokenTree::Group(args),
        proc_macro2::TokenTree::Punct(semi),
    ]);
    out
}

/// A use of a local deprecated macro named `lint`, with `text` as its note: a statement
/// that expands to nothing.
fn deprecated_use(lint: &str, span: Span, text: &str) -> TokenStream {
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

/// The `proc_macro::Diagnostic` backend (nightly compilers only).
#[cfg(feature = "nightly")]
mod nightly {
    use occupancy_core::lint::Finding;
    use proc_macro::{Diagnostic, Level};

    /// Emits `<lint>: <message>` at `span` with one `note` child per note and one `help`
    /// child per help, in the finding's order (children without a span of their own: rustc
    /// renders them `= note:` / `= help:` under the primary span).
    pub(super) fn emit(level: Level, span: proc_macro2::Span, finding: &Finding) {
        let mut diagnostic = Diagnostic::spanned(
            span.unwrap(),
            level,
            format!("{}: {}", finding.lint.name, finding.message),
        );
        for note in &finding.notes {
            diagnostic = diagnostic.note(note.as_str());
        }
        for help in &finding.helps {
            diagnostic = diagnostic.help(help.as_str());
        }
        diagnostic.emit();
    }
}
