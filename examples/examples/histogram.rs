//! 256-bin byte histogram (kernels/histogram.cu), privatised per block: pass 1 counts into
//! shared memory with shared-memory atomics and writes one 256-bin histogram per block;
//! pass 2, a single block, adds them up. No global atomics, so every output count is
//! written exactly once and can be checked against a poison value.

use std::process::ExitCode;

use cudarc::driver::sys::CUresult;
use cudarc::driver::{
    CudaFunction, CudaSlice, CudaStream, DriverError, LaunchConfig, PushKernelArg,
};
use occupancy_examples::check::{Comparison, POISON_U32};
use occupancy_examples::harness::{self, Gpu, HarnessError, Report};
use occupancy_examples::{data, reference};

/// Bytes: odd, skewed towards values below 32.
const N: usize = 50_000_017;
const BINS: usize = 256;
/// Threads per block of both passes.
const BLOCK: u32 = 256;

/// Pass 1: block `b` of `grid` (capped at `partial.len() / 256`) counts its grid-stride
/// share of `data` into `partial[b * 256 ..][..256]`. Blocks of 256 threads.
#[occupancy::check(kernel = "histogram256_partial", min_occupancy = 75%)]
fn launch_histogram_partial(
    stream: &CudaStream,
    histogram256_partial: &CudaFunction,
    grid: u32,
    data: &CudaSlice<u8>,
    partial: &mut CudaSlice<u32>,
) -> Result<LaunchConfig, DriverError> {
    let blocks = u32::try_from(partial.len() / BINS).unwrap_or(u32::MAX);
    if blocks == 0 {
        return Err(DriverError(CUresult::CUDA_ERROR_INVALID_VALUE));
    }
    let n = data.len() as u64;
    let config = LaunchConfig {
        grid_dim: (grid.clamp(1, blocks), 1, 1),
        block_dim: (BLOCK, 1, 1),
        shared_mem_bytes: 0,
    };
    let mut launch = stream.launch_builder(histogram256_partial);
    launch.arg(data).arg(&n).arg(partial);
    // SAFETY: the arguments match histogram256_partial(const unsigned char* data,
    // unsigned long long n, unsigned int* partial); `data` holds n bytes and `partial`
    // 256 counts per block of the grid.
    unsafe { launch.launch(config) }?;
    Ok(config)
}

/// Pass 2: `bins[b]` = the sum of bin `b` over the first `num_partials` histograms of
/// `partial`. One block of 256 threads (one per bin).
// One block by design (256 bins, merged once): undersized_grid is expected here.
#[occupancy::check(kernel = "histogram256_merge", allow(undersized_grid))]
fn launch_histogram_merge(
    stream: &CudaStream,
    histogram256_merge: &CudaFunction,
    partial: &CudaSlice<u32>,
    num_partials: usize,
    bins: &mut CudaSlice<u32>,
) -> Result<LaunchConfig, DriverError> {
    let invalid = DriverError(CUresult::CUDA_ERROR_INVALID_VALUE);
    if bins.len() < BINS || partial.len() / BINS < num_partials {
        return Err(invalid);
    }
    let num_partials = i32::try_from(num_partials).map_err(|_| invalid)?;
    let config = LaunchConfig {
        grid_dim: (1, 1, 1),
        block_dim: (BLOCK, 1, 1),
        shared_mem_bytes: 0,
    };
    let mut launch = stream.launch_builder(histogram256_merge);
    launch.arg(partial).arg(&num_partials).arg(bins);
    // SAFETY: the arguments match histogram256_merge(const unsigned int* partial,
    // int num_partials, unsigned int* bins); both were checked against their lengths.
    unsafe { launch.launch(config) }?;
    Ok(config)
}

fn input() -> Vec<u8> {
    data::bytes(61, N, 32)
}

fn cpu() {
    let bytes = input();
    let h = harness::timed("histogram reference", || reference::histogram256(&bytes));
    let total: u64 = h.iter().map(|&c| u64::from(c)).sum();
    println!(
        "  {N} bytes: bin 0 = {}, bin 255 = {}, total = {total}",
        h[0], h[255]
    );
}

fn gpu(gpu: &Gpu, report: &mut Report) -> Result<(), HarnessError> {
    let bytes = input();
    let (module, artifact) = gpu.load("histogram")?;
    println!("  kernels/histogram.cu from {artifact}");
    let partial_fn = module.load_function("histogram256_partial")?;
    let merge_fn = module.load_function("histogram256_merge")?;
    let stream = gpu.stream();
    let d_bytes = stream.clone_htod(&bytes)?;

    let grid = gpu.resident_grid(&partial_fn, BLOCK, 0, N.div_ceil(BLOCK as usize) as u64)?;
    let mut d_partial = stream.clone_htod(&vec![POISON_U32; grid as usize * BINS])?;
    let config = launch_histogram_partial(stream, &partial_fn, grid, &d_bytes, &mut d_partial)?;
    stream.synchronize()?;
    report.launch(&gpu.launch_report(&partial_fn, "histogram256_partial", &config)?);
    let partial = stream.clone_dtoh(&d_partial)?;
    let want = reference::histogram256_partials(&bytes, BLOCK as usize, grid as usize);
    report.compare(&Comparison::u32(
        "per-block histograms",
        &partial,
        &want,
        0.0,
    ));

    let mut d_bins = stream.clone_htod(&vec![POISON_U32; BINS])?;
    let config = launch_histogram_merge(stream, &merge_fn, &d_partial, grid as usize, &mut d_bins)?;
    stream.synchronize()?;
    report.launch(&gpu.launch_report(&merge_fn, "histogram256_merge", &config)?);
    let bins = stream.clone_dtoh(&d_bins)?;
    report.compare(&Comparison::u32(
        "bins",
        &bins,
        &reference::histogram256(&bytes),
        0.0,
    ));
    Ok(())
}

fn main() -> ExitCode {
    harness::run("histogram", cpu, gpu)
}
