//! Compile-time theoretical-occupancy lint for CUDA kernel launches.
//!
//! This facade re-exports the engine ([`occupancy_core`]).
#![deny(missing_docs)]

pub use occupancy_core::*;
