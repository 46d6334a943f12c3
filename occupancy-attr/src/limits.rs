//! Limits on token trees, checked before anything recursive (syn's parser, the lowering
//! in `cexpr.rs`, a recursive `Drop`) touches them.
//!
//! (A first version: an iterative scan of nesting depth and token count; the hostile-input
//! work replaces the numbers with measured ones.)

use proc_macro2::{Span, TokenStream, TokenTree};

/// How deep and how large a token tree may be.
pub(crate) struct Limits {
    /// Groups (`()`, `[]`, `{}`) nested inside each other.
    pub(crate) max_depth: usize,
    /// Tokens in all.
    pub(crate) max_tokens: usize,
}

impl Limits {
    /// One attribute's arguments.
    pub(crate) const ATTRIBUTE: Limits = Limits {
        max_depth: 32,
        max_tokens: 20_000,
    };
    /// A wrapper's body, read for its launches.
    pub(crate) const BODY: Limits = Limits {
        max_depth: 64,
        max_tokens: 100_000,
    };
    /// A source file of the crate, read for its constants and helpers.
    pub(crate) const SOURCE_FILE: Limits = Limits {
        max_depth: 64,
        max_tokens: 2_000_000,
    };

    /// `Ok` when `tokens` is within the limits; else an error on the first token past
    /// them, naming `what`.
    pub(crate) fn check(&self, tokens: &TokenStream, what: &str) -> syn::Result<()> {
        let mut stack: Vec<proc_macro2::token_stream::IntoIter> = vec![tokens.clone().into_iter()];
        let mut count = 0usize;
        while let Some(top) = stack.last_mut() {
            let Some(tree) = top.next() else {
                stack.pop();
                continue;
            };
            count += 1;
            if count > self.max_tokens {
                return Err(syn::Error::new(
                    tree.span(),
                    format!("{what} has more than {} tokens", self.max_tokens),
                ));
            }
            if let TokenTree::Group(group) = tree {
                if stack.len() >= self.max_depth {
                    return Err(syn::Error::new(
                        group.span_open(),
                        format!("{what} is nested more than {} levels deep", self.max_depth),
                    ));
                }
                stack.push(group.stream().into_iter());
            }
        }
        let _ = Span::call_site;
        Ok(())
    }
}
