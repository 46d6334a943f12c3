//! The attribute's arguments as plain data, straight from the tokens (no checks beyond
//! syntax and literal ranges; those are in `valid.rs`).

use occupancy_core::lint::{Level, MinOccupancy};
use proc_macro2::Span;
use syn::{Expr, Ident, LitStr};

/// A number the attribute was given: a literal (read now) or a constant expression (read by
/// the compiler; the check then runs in a generated `const`).
#[derive(Clone)]
pub enum Value {
    /// A literal, units applied (`8 KiB` -> 8192).
    Lit {
        /// The value.
        value: u32,
        /// The literal's span (the number, and its unit if any).
        span: Span,
    },
    /// A constant expression of type `u32` (`BLOCK`, `TILE * TILE * 4`).
    Const(Box<Expr>),
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

/// `block = 256 | (16, 16) | (8, 8, 4) | BLOCK`, and the same shapes for `grid` and
/// `cluster`: one to three dimensions.
#[derive(Clone)]
pub(crate) struct Dims {
    /// x, then y and z when given.
    pub(crate) dims: Vec<Value>,
}

/// One `key = value` or `key(...)` argument: the key (for spans and messages) and its value.
#[derive(Clone)]
pub(crate) struct Arg<T> {
    pub(crate) key: Ident,
    pub(crate) value: T,
}

/// A percentage that must be whole (`carveout = 50%`).
#[derive(Clone, Copy)]
pub(crate) struct Percent {
    pub(crate) value: u8,
}

/// One lint named in `allow(...)`, `warn(...)` or `deny(...)`.
#[derive(Clone)]
pub(crate) struct LevelArg {
    pub(crate) lint: Ident,
    pub(crate) level: Level,
}

/// Everything the attribute was given. Each field is `None` when the key is absent.
#[derive(Default)]
pub(crate) struct Args {
    pub(crate) block: Option<Arg<Dims>>,
    pub(crate) smem: Option<Arg<Value>>,
    pub(crate) regs: Option<Arg<Value>>,
    pub(crate) static_smem: Option<Arg<Value>>,
    pub(crate) opt_in: Option<Arg<Value>>,
    pub(crate) carveout: Option<Arg<Percent>>,
    pub(crate) barriers: Option<Arg<Value>>,
    pub(crate) max_threads: Option<Arg<Value>>,
    pub(crate) target: Option<Arg<Vec<LitStr>>>,
    pub(crate) min_occupancy: Option<Arg<(MinOccupancy, Span)>>,
    pub(crate) class: Option<Arg<LitStr>>,
    pub(crate) grid: Option<Arg<Dims>>,
    pub(crate) cluster: Option<Arg<Dims>>,
    /// `non_portable = true`: the wrapper sets
    /// `CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED` (clusters above 8 blocks).
    pub(crate) non_portable: Option<Arg<syn::LitBool>>,
    pub(crate) levels: Vec<LevelArg>,
    /// The compiled kernel's name: in the resource manifest, or in `cubin` / `fatbin`.
    pub(crate) kernel: Option<Arg<LitStr>>,
    /// A cubin to read the resources from, relative to the crate.
    pub(crate) cubin: Option<Arg<LitStr>>,
    /// A fatbin to read the resources from, relative to the crate.
    pub(crate) fatbin: Option<Arg<LitStr>>,
    /// Every key written, valid or not (so that a malformed `regs` is not also reported
    /// missing).
    pub(crate) written: Vec<String>,
}
