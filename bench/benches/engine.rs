//! `cargo bench -p occupancy-bench`: the engine per evaluation and per full sweep, and
//! NVIDIA's `cuda_occupancy.h` on the same inputs in the same run when `CUDA_OCCUPANCY_H`
//! points at it (see `bench/build.rs`).

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use occupancy_bench::{DYNAMIC_SMEM, KERNEL, current_archs, engine_sweep, engine_sweep_prepared};
use occupancy_core::arch::{ARCHS, SM_90};
use occupancy_core::occupancy::{BlockDim, Launch, Prepared, occupancy};

fn one_evaluation(c: &mut Criterion) {
    let mut group = c.benchmark_group("one_evaluation");
    let launch = Launch::new(BlockDim::linear(256)).with_dynamic_smem(DYNAMIC_SMEM);
    group.bench_function("engine", |b| {
        b.iter(|| {
            occupancy(black_box(&SM_90), black_box(&KERNEL), black_box(&launch))
                .map(|o| o.blocks_per_sm)
        })
    });
    // The kernel's launch-independent part computed once, as `Header::new` builds the
    // header's device and function structs once.
    let prepared = Prepared::new(&SM_90, &KERNEL).unwrap();
    group.bench_function("engine_prepared", |b| {
        b.iter(|| {
            black_box(&prepared)
                .occupancy(black_box(&launch))
                .map(|o| o.blocks_per_sm)
        })
    });
    #[cfg(cuda_occupancy_header)]
    {
        let header = occupancy_bench::header::Header::new(&SM_90, &KERNEL);
        group.bench_function("cuda_occupancy_h", |b| {
            b.iter(|| header.blocks_per_sm(black_box(256), black_box(DYNAMIC_SMEM)))
        });
    }
    group.finish();
}

fn sweep(c: &mut Criterion) {
    let current = current_archs();
    let all: Vec<_> = ARCHS.iter().collect();
    let mut group = c.benchmark_group("sweep_1_to_1024");
    group.bench_function("engine/11_current_archs", |b| {
        b.iter(|| engine_sweep(black_box(&current), &KERNEL))
    });
    group.bench_function("engine/all_19_archs", |b| {
        b.iter(|| engine_sweep(black_box(&all), &KERNEL))
    });
    assert_eq!(
        engine_sweep_prepared(&current, &KERNEL),
        engine_sweep(&current, &KERNEL)
    );
    group.bench_function("engine_prepared/11_current_archs", |b| {
        b.iter(|| engine_sweep_prepared(black_box(&current), &KERNEL))
    });
    group.bench_function("engine_prepared/all_19_archs", |b| {
        b.iter(|| engine_sweep_prepared(black_box(&all), &KERNEL))
    });
    #[cfg(cuda_occupancy_header)]
    {
        let headers: Vec<_> = current
            .iter()
            .map(|a| occupancy_bench::header::Header::new(a, &KERNEL))
            .collect();
        let expected = engine_sweep(&current, &KERNEL);
        let got: u64 = headers.iter().map(|h| h.sweep(DYNAMIC_SMEM)).sum();
        assert_eq!(
            got, expected,
            "the header and the engine disagree on the sweep"
        );
        group.bench_function("cuda_occupancy_h/11_current_archs", |b| {
            b.iter(|| {
                headers
                    .iter()
                    .map(|h| h.sweep(black_box(DYNAMIC_SMEM)))
                    .sum::<u64>()
            })
        });
    }
    group.finish();
}

criterion_group!(benches, one_evaluation, sweep);
criterion_main!(benches);
