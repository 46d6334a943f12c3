//! Row softmax (kernels/softmax.cu), one block per row.
//!
//! - `softmax_rows`: rows of 3001 floats read from global memory three times.
//! - `softmax_rows_cached`: rows of 16384 floats cached in 64 KiB of dynamic shared memory,
//!   above the 48 KiB default: the wrapper raises `CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES`
//!   (the opt-in) first. Shared memory limits it (3 blocks per SM on cc 9.0, 1 on 8.6 / 8.9),
//!   and it cannot run on cc 7.5 at all (64 KiB opt-in limit, and the kernel also has 128 B
//!   of static shared memory), so that target is left out.

use std::process::ExitCode;

use cudarc::driver::sys::{CUfunction_attribute, CUresult};
use cudarc::driver::{
    CudaFunction, CudaSlice, CudaStream, DriverError, LaunchConfig, PushKernelArg,
};
use occupancy_examples::check::{Comparison, POISON_F32};
use occupancy_examples::harness::{self, Gpu, HarnessError, Report};
use occupancy_examples::{data, reference};

const ROWS: usize = 1000;
const COLS: usize = 3001;
const CACHED_ROWS: usize = 600;
const CACHED_COLS: usize = 16_384;
/// Threads per block of `softmax_rows`.
const BLOCK: u32 = 256;
/// Threads per block of `softmax_rows_cached`.
const CACHED_BLOCK: u32 = 512;
/// The longest row `softmax_rows_cached` takes: its dynamic shared memory is 4 bytes per
/// column, 64 KiB here.
const MAX_CACHED_COLS: usize = 16_384;

/// Softmax of each `cols`-long row of `input` into `out`, one row per block in flight:
/// `grid` blocks (capped at the number of rows) of 256 threads.
#[occupancy::check(kernel = "softmax_rows", min_occupancy = 75%)]
fn launch_softmax_rows(
    stream: &CudaStream,
    softmax_rows: &CudaFunction,
    grid: u32,
    input: &CudaSlice<f32>,
    out: &mut CudaSlice<f32>,
    cols: usize,
) -> Result<LaunchConfig, DriverError> {
    let (rows, cols) = shape(input.len().min(out.len()), cols)?;
    let config = LaunchConfig {
        grid_dim: (grid.min(rows.max(1) as u32), 1, 1),
        block_dim: (BLOCK, 1, 1),
        shared_mem_bytes: 0,
    };
    let mut launch = stream.launch_builder(softmax_rows);
    launch.arg(input).arg(out).arg(&rows).arg(&cols);
    // SAFETY: the arguments match softmax_rows(const float* in, float* out, int rows,
    // int cols), and both buffers hold rows * cols elements.
    unsafe { launch.launch(config) }?;
    Ok(config)
}

/// Softmax of each `cols`-long row (at most 16384) with the row cached in `cols * 4` bytes
/// of dynamic shared memory: `grid` blocks (capped at the rows) of 512 threads. Raises the
/// function's dynamic shared memory limit to 64 KiB first.
#[occupancy::check(kernel = "softmax_rows_cached", smem = 64 KiB, opt_in = 64 KiB, target = ["sm_80", "sm_86", "sm_89", "H200", "B200", "RTX 5090"], min_occupancy = 25%)]
fn launch_softmax_rows_cached(
    stream: &CudaStream,
    softmax_rows_cached: &CudaFunction,
    grid: u32,
    input: &CudaSlice<f32>,
    out: &mut CudaSlice<f32>,
    cols: usize,
) -> Result<LaunchConfig, DriverError> {
    if cols > MAX_CACHED_COLS {
        return Err(DriverError(CUresult::CUDA_ERROR_INVALID_VALUE));
    }
    let (rows, cols_i32) = shape(input.len().min(out.len()), cols)?;
    softmax_rows_cached.set_attribute(
        CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
        (MAX_CACHED_COLS * 4) as i32,
    )?;
    let config = LaunchConfig {
        grid_dim: (grid.min(rows.max(1) as u32), 1, 1),
        block_dim: (CACHED_BLOCK, 1, 1),
        shared_mem_bytes: (cols * 4) as u32,
    };
    let mut launch = stream.launch_builder(softmax_rows_cached);
    launch.arg(input).arg(out).arg(&rows).arg(&cols_i32);
    // SAFETY: the arguments match softmax_rows_cached(const float* in, float* out,
    // int rows, int cols); both buffers hold rows * cols elements and the launch gives
    // cols * 4 bytes of dynamic shared memory, within the limit just set.
    unsafe { launch.launch(config) }?;
    Ok(config)
}

/// (rows, cols) as the kernel's ints: the whole rows in `len` elements.
fn shape(len: usize, cols: usize) -> Result<(i32, i32), DriverError> {
    let invalid = DriverError(CUresult::CUDA_ERROR_INVALID_VALUE);
    let rows = len.checked_div(cols).ok_or(invalid)?;
    Ok((
        i32::try_from(rows).map_err(|_| invalid)?,
        i32::try_from(cols).map_err(|_| invalid)?,
    ))
}

fn inputs() -> (Vec<f32>, Vec<f32>) {
    (
        data::floats(31, ROWS * COLS, -8.0, 8.0),
        data::floats(32, CACHED_ROWS * CACHED_COLS, -30.0, 30.0),
    )
}

fn cpu() {
    let (x, xc) = inputs();
    let s = harness::timed("softmax reference, 1000 x 3001", || {
        reference::softmax_rows(&x, ROWS, COLS)
    });
    let sc = harness::timed("softmax reference, 600 x 16384", || {
        reference::softmax_rows(&xc, CACHED_ROWS, CACHED_COLS)
    });
    println!(
        "  row sums: {:.12} and {:.12} (1 each)",
        s[..COLS].iter().sum::<f64>(),
        sc[..CACHED_COLS].iter().sum::<f64>()
    );
}

fn gpu(gpu: &Gpu, report: &mut Report) -> Result<(), HarnessError> {
    let (x, xc) = inputs();
    let (module, artifact) = gpu.load("softmax")?;
    println!("  kernels/softmax.cu from {artifact}");
    let stream = gpu.stream();

    let softmax_rows = module.load_function("softmax_rows")?;
    let d_x = stream.clone_htod(&x)?;
    let mut d_out = stream.clone_htod(&vec![POISON_F32; x.len()])?;
    let grid = gpu.resident_grid(&softmax_rows, BLOCK, 0, ROWS as u64)?;
    let config = launch_softmax_rows(stream, &softmax_rows, grid, &d_x, &mut d_out, COLS)?;
    stream.synchronize()?;
    report.launch(&gpu.launch_report(&softmax_rows, "softmax_rows", &config)?);
    let out = stream.clone_dtoh(&d_out)?;
    report.compare(&Comparison::f32(
        "softmax_rows out",
        &out,
        &reference::softmax_rows(&x, ROWS, COLS),
        1e-5,
    ));

    let cached = module.load_function("softmax_rows_cached")?;
    let d_xc = stream.clone_htod(&xc)?;
    let mut d_outc = stream.clone_htod(&vec![POISON_F32; xc.len()])?;
    // The grid is sized after the opt-in: without it the driver answers 0 blocks per SM.
    cached.set_attribute(
        CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
        (MAX_CACHED_COLS * 4) as i32,
    )?;
    let grid = gpu.resident_grid(
        &cached,
        CACHED_BLOCK,
        (CACHED_COLS * 4) as u32,
        CACHED_ROWS as u64,
    )?;
    let config =
        launch_softmax_rows_cached(stream, &cached, grid, &d_xc, &mut d_outc, CACHED_COLS)?;
    stream.synchronize()?;
    report.launch(&gpu.launch_report(&cached, "softmax_rows_cached", &config)?);
    let outc = stream.clone_dtoh(&d_outc)?;
    let want = reference::softmax_rows(&xc, CACHED_ROWS, CACHED_COLS);
    report.compare(&Comparison::f32(
        "softmax_rows_cached out",
        &outc,
        &want,
        1e-5,
    ));
    Ok(())
}

fn main() -> ExitCode {
    harness::run("softmax", cpu, gpu)
}
