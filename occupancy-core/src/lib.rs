//! The engine of the `occupancy` linter: CUDA theoretical occupancy, exactly as the driver
//! computes it, for every compute capability from 5.0 to 12.1, with no GPU and no toolkit.
//!
//! - [`arch`]: per-compute-capability limits and named GPUs, each value with its source.
//! - [`occupancy`]: the calculator (`const fn`, no allocation, no I/O).
//! - `device` (feature `cudarc`): a live GPU's limits and a run-time engine-vs-driver check.
//! - [`abstract_int`]: what a launch reader knows of a run-time integer (a finite set, an
//!   interval), shared by the Rust and CUDA C++ launch readers.
//! - [`read`](mod@read): what both launch readers share below their syntax: the path set
//!   (merge, the bound of [`read::paths::MAX_PATHS`] and what happens past it) and the
//!   budget of work.
//! - [`candidates`]: which of the user's run-time candidates fill a launch's block and shared
//!   memory (lists or pairs, never crossed), shared by both launch readers.
//! - [`analysis`]: granularity analysis: the allocation step a configuration wastes and the
//!   smallest change that gains one, waves and tails, best block sizes.
//! - [`file`](mod@file): reading an input file: regular files only, with a size cap.
//! - [`cluster`]: thread-block-cluster occupancy on cc 9.0+ (`cuOccupancyMaxActiveClusters`).
//!
//! ```
//! use occupancy_core::arch::SM_80;
//! use occupancy_core::occupancy::{occupancy, BlockDim, Kernel, Launch};
//!
//! // A100, 256 threads, 40 registers, 8 KiB static shared memory.
//! let kernel = Kernel::new(40).with_static_smem(8 * 1024);
//! let occ = occupancy(&SM_80, &kernel, &Launch::new(BlockDim::linear(256))).unwrap();
//! assert_eq!(occ.blocks_per_sm, 6);
//! assert_eq!(occ.percent(), 75.0);
//! assert_eq!(occ.limiters.to_string(), "registers");
//! ```
#![deny(missing_docs)]

pub mod abstract_int;
pub mod analysis;
pub mod arch;
#[cfg(feature = "build")]
pub mod build;
pub mod candidates;
pub mod cluster;
#[cfg(feature = "cudarc")]
pub mod device;
pub mod file;
pub mod lint;
pub mod occupancy;
#[cfg(feature = "policy")]
pub mod policy;
pub mod read;
#[cfg(feature = "resources")]
pub mod resources;
