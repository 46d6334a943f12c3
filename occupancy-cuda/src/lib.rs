//! Reads the kernel launches of a crate's CUDA C++ host code (`.cu` / `.cuh` files that a
//! build script compiles with nvcc and Rust calls through FFI) and checks them with the
//! engine, lints and policy of `#[occupancy::check]`.
#![deny(missing_docs)]

mod launch;

pub use launch::{
    Candidates, CudaLaunch, Instantiation, LaunchForm, LaunchPath, Read, ReadNote, Reading,
    TemplateArg,
};

/// The most paths followed through one launching function (and kept per launch site): the
/// same bound as the Rust reader's, [`occupancy_core::abstract_int::MAX_MEMBERS`].
pub const MAX_PATHS: usize = occupancy_core::abstract_int::MAX_MEMBERS;
