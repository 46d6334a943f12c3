//! Runs N evaluations of the engine (`engine`: `occupancy()`; `prepared`: the kernel prepared
//! once, then `Prepared::occupancy`) or of the header (`header`, its structs built once) for
//! instruction counting, e.g.
//! `valgrind --tool=callgrind target/release/examples/count engine 100000`; `none` runs the
//! loop alone, to subtract.

use std::hint::black_box;

use occupancy_bench::{DYNAMIC_SMEM, KERNEL};
use occupancy_core::arch::SM_90;
use occupancy_core::occupancy::{BlockDim, Launch, Prepared, occupancy};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let n: u32 = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(100_000);
    let mut total = 0u64;
    match args.get(1).map(String::as_str) {
        Some("engine") => {
            for i in 0..n {
                let launch =
                    Launch::new(BlockDim::linear(1 + i % 1024)).with_dynamic_smem(DYNAMIC_SMEM);
                total += occupancy(black_box(&SM_90), black_box(&KERNEL), black_box(&launch))
                    .map_or(0, |o| o.blocks_per_sm) as u64;
            }
        }
        Some("prepared") => {
            let prepared = Prepared::new(&SM_90, &KERNEL).unwrap();
            for i in 0..n {
                let launch =
                    Launch::new(BlockDim::linear(1 + i % 1024)).with_dynamic_smem(DYNAMIC_SMEM);
                total += black_box(&prepared)
                    .occupancy(black_box(&launch))
                    .map_or(0, |o| o.blocks_per_sm) as u64;
            }
        }
        #[cfg(cuda_occupancy_header)]
        Some("header") => {
            let h = occupancy_bench::header::Header::new(&SM_90, &KERNEL);
            for i in 0..n {
                total += black_box(&h)
                    .blocks_per_sm(1 + i % 1024, DYNAMIC_SMEM)
                    .unwrap_or(0) as u64;
            }
        }
        Some("none") => {
            for i in 0..n {
                total += black_box(1 + i % 1024) as u64;
            }
        }
        _ => {}
    }
    println!("{total}");
}
