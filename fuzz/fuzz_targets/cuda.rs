//! `occupancy_cuda`: the CUDA C++ launch reader on any text, then every path it reads
//! checked with the engine and the lints (`occupancy_fuzz::cuda::run`, shared with
//! `bench/examples/cuda_replay.rs`, which times it on the corpus).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = occupancy_fuzz::cuda::run(data);
});
