//! Shared code of the `occupancy` example programs: real CUDA kernels (`kernels/*.cu`)
//! launched through `cudarc`, each checked against a CPU reference, with its occupancy as
//! computed by the engine and as answered by the CUDA driver.
//!
//! - [`kernels`]: the compiled kernels (cubins per architecture, PTX) embedded by the build
//!   script.
//! - [`data`]: deterministic input generation.
//! - [`reference`](mod@reference): CPU references for every kernel, in `f64` where they accumulate.
//! - [`check`]: relative error and output poisoning.
//! - [`harness`]: the device, module loading, occupancy reports and the example driver
//!   ([`harness::run`]) that falls back to the CPU path when no GPU is present.
#![deny(missing_docs)]

pub mod check;
pub mod data;
pub mod harness;
pub mod reference;

/// The kernels compiled by the build script: `cubin(stem, sm)`, `ptx(stem)`, `COMPILED`.
#[allow(missing_docs)]
pub mod kernels {
    include!(concat!(env!("OUT_DIR"), "/occupancy/kernels.rs"));
}
