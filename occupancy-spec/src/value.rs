//! A number of a launch or a kernel, as the front ends give it.

use proc_macro2::{Span, TokenStream};

/// A number of the launch: known now (a literal, or a constant the source reader resolved
/// and the expansion has the compiler confirm), or a constant expression only the compiler
/// can evaluate (the check then runs in a generated `const`).
#[derive(Clone)]
pub enum Value {
    /// Known now: a literal with its units applied (`8 KiB` -> 8192), or a value read from
    /// the crate's sources.
    Lit {
        /// The value.
        value: u32,
        /// Where it is written (the literal, the constant, the body's expression); the
        /// call site for a value with no token of its own (a default, a C++ launch's).
        span: Span,
    },
    /// A constant expression of type `u32` (`BLOCK`, `TILE * TILE * 4`) that the source
    /// reader could not evaluate: its tokens as written (one parsed expression), which the
    /// expansion gives the compiler.
    Const(TokenStream),
}

impl Value {
    /// The literal value, `None` for a constant expression.
    pub fn literal(&self) -> Option<u32> {
        match self {
            Value::Lit { value, .. } => Some(*value),
            Value::Const(_) => None,
        }
    }

    /// A literal with no span of its own (a default the attribute did not write).
    pub fn unspanned(value: u32) -> Value {
        Value::Lit {
            value,
            span: Span::call_site(),
        }
    }
}
