//! Sum reduction (kernels/reduce.cu) in two passes: a grid that fills the GPU once writes
//! one partial sum per block, then a single block sums the partials.

use std::process::ExitCode;

use cudarc::driver::{
    CudaFunction, CudaSlice, CudaStream, DriverError, LaunchConfig, PushKernelArg,
};
use occupancy_examples::check::{Comparison, POISON_F32};
use occupancy_examples::harness::{self, Gpu, HarnessError, Report};
use occupancy_examples::{data, reference};

/// Elements: 2^24 + 12345, not a multiple of the block.
const N: usize = (1 << 24) + 12_345;
/// Threads per block: at most 256, the kernel's `__launch_bounds__`.
const BLOCK: u32 = 256;

/// One pass of `reduce_sum`: `partial[b]` = the sum of block `b`'s grid-stride share of
/// `input`, for `grid` blocks of 256 threads; `grid` is capped at `partial.len()`.
#[occupancy::check(kernel = "reduce_sum", min_occupancy = 75%)]
fn launch_reduce_sum(
    stream: &CudaStream,
    reduce_sum: &CudaFunction,
    grid: u32,
    input: &CudaSlice<f32>,
    partial: &mut CudaSlice<f32>,
) -> Result<LaunchConfig, DriverError> {
    let n = input.len() as u64;
    let grid = grid.min(u32::try_from(partial.len()).unwrap_or(u32::MAX));
    let config = LaunchConfig {
        grid_dim: (grid, 1, 1),
        block_dim: (BLOCK, 1, 1),
        shared_mem_bytes: 0,
    };
    let mut launch = stream.launch_builder(reduce_sum);
    launch.arg(input).arg(&n).arg(partial);
    // SAFETY: the arguments match reduce_sum(const float* in, unsigned long long n,
    // float* partial); `input` holds n elements and `partial` at least `grid`.
    unsafe { launch.launch(config) }?;
    Ok(config)
}

fn input() -> Vec<f32> {
    // Positive values: the sum is well-conditioned, so a relative error means something.
    data::floats(11, N, 0.0, 1.0)
}

fn cpu() {
    let x = input();
    let total = harness::timed("sum reference", || reference::sum(&x));
    println!("  {N} elements: sum = {total:.6}");
}

fn gpu(gpu: &Gpu, report: &mut Report) -> Result<(), HarnessError> {
    let x = input();
    let (module, artifact) = gpu.load("reduce")?;
    println!("  kernels/reduce.cu from {artifact}");
    let reduce_sum = module.load_function("reduce_sum")?;
    let stream = gpu.stream();
    let d_x = stream.clone_htod(&x)?;

    let grid = gpu.resident_grid(&reduce_sum, BLOCK, 0, N.div_ceil(BLOCK as usize) as u64)?;
    let mut d_partial = stream.clone_htod(&vec![POISON_F32; grid as usize])?;
    let config = launch_reduce_sum(stream, &reduce_sum, grid, &d_x, &mut d_partial)?;
    stream.synchronize()?;
    report.launch(&gpu.launch_report(&reduce_sum, "reduce_sum", &config)?);
    let partial = stream.clone_dtoh(&d_partial)?;
    let want = reference::block_partial_sums(&x, BLOCK as usize, grid as usize);
    report.compare(&Comparison::f32(
        "per-block partial sums",
        &partial,
        &want,
        1e-5,
    ));

    let mut d_total = stream.clone_htod(&[POISON_F32])?;
    let config = launch_reduce_sum(stream, &reduce_sum, 1, &d_partial, &mut d_total)?;
    stream.synchronize()?;
    report.launch(&gpu.launch_report(&reduce_sum, "reduce_sum", &config)?);
    let total = stream.clone_dtoh(&d_total)?;
    report.compare(&Comparison::f32(
        "total",
        &total,
        &[reference::sum(&x)],
        1e-5,
    ));
    println!(
        "    total {} (reference {:.3})",
        total[0],
        reference::sum(&x)
    );
    Ok(())
}

fn main() -> ExitCode {
    harness::run("reduce", cpu, gpu)
}
