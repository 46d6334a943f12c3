//! The attribute's arguments as plain data, straight from the tokens (no checks beyond
//! syntax and literal ranges; those are in `valid.rs`).

use occupancy_core::lint::{Level, MinOccupancy};
use proc_macro2::Span;
use syn::{Ident, LitStr};

pub(crate) use occupancy_spec::Value;

/// `block = 256 | (16, 16) | (8, 8, 4) | BLOCK`, and the same shapes for `grid` and
/// `cluster`: one to three dimensions.
#[derive(Clone)]
pub(crate) struct Dims {
    /// x, then y and z when given.
    pub(crate) dims: Vec<Value>,
}

/// One value, or a list of run-time candidates (`block = [32, 1024]`).
#[derive(Clone)]
pub(crate) struct Candidates<T> {
    pub(crate) items: Vec<T>,
    /// Written as a list `[...]`.
    pub(crate) list: bool,
}

/// One pair of `launches = [(32, 128), ((16, 16), 4 KiB)]`: a block and the dynamic shared
/// memory launched with it.
#[derive(Clone)]
pub(crate) struct LaunchPair {
    pub(crate) block: Dims,
    pub(crate) smem: Value,
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
    pub(crate) block: Option<Arg<Candidates<Dims>>>,
    pub(crate) smem: Option<Arg<Candidates<Value>>>,
    /// `launches = [(block, smem), ..]`: run-time candidates chosen together.
    pub(crate) launches: Option<Arg<Vec<LaunchPair>>>,
    pub(crate) regs: Option<Arg<Value>>,
    pub(crate) static_smem: Option<Arg<Value>>,
    pub(crate) opt_in: Option<Arg<Value>>,
    pub(crate) carveout: Option<Arg<Percent>>,
    pub(crate) barriers: Option<Arg<Value>>,
    pub(crate) max_threads: Option<Arg<Value>>,
    pub(crate) target: Option<Arg<Vec<LitStr>>>,
    pub(crate) min_occupancy: Option<Arg<(MinOccupancy, Span)>>,
    pub(crate) class: Option<Arg<LitStr>>,
    pub(crate) grid: Option<Arg<Candidates<Dims>>>,
    pub(crate) cluster: Option<Arg<Dims>>,
    /// `non_portable = true`: the wrapper sets
    /// `CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED` (clusters above 8 blocks).
    pub(crate) non_portable: Option<Arg<syn::LitBool>>,
    pub(crate) levels: Vec<LevelArg>,
    /// The compiled kernel's name (`"saxpy"`), names (`["affine_f32", "affine_f16"]`) or a
    /// glob (`"affine_*"`): in the resource manifest, or in `cubin` / `fatbin`.
    pub(crate) kernel: Option<Arg<Candidates<LitStr>>>,
    /// A cubin to read the resources from, relative to the crate.
    pub(crate) cubin: Option<Arg<LitStr>>,
    /// A fatbin to read the resources from, relative to the crate.
    pub(crate) fatbin: Option<Arg<LitStr>>,
    /// Every key written, valid or not (so that a malformed `regs` is not also reported
    /// missing).
    pub(crate) written: Vec<String>,
}
