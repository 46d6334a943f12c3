//! Layer normalisation over rows (kernels/layernorm.cu): normalised rows plus the per-row
//! mean and 1 / standard deviation, one block of 128 threads per row.

use std::process::ExitCode;

use cudarc::driver::sys::CUresult;
use cudarc::driver::{
    CudaFunction, CudaSlice, CudaStream, DriverError, LaunchConfig, PushKernelArg,
};
use occupancy_examples::check::{Comparison, POISON_F32};
use occupancy_examples::harness::{self, Gpu, HarnessError, Report};
use occupancy_examples::{data, reference};

const ROWS: usize = 2048;
const COLS: usize = 1531;
const EPS: f32 = 1e-5;
/// Threads per block.
const BLOCK: u32 = 128;

/// The outputs of one layer-norm launch.
struct LayerNormOut<'a> {
    y: &'a mut CudaSlice<f32>,
    mean: &'a mut CudaSlice<f32>,
    rstd: &'a mut CudaSlice<f32>,
}

/// Layer norm of the `cols`-long rows of `x` with `gamma`, `beta` (`cols` each): `grid`
/// blocks (capped at the rows) of 128 threads.
#[occupancy::check(kernel = "layernorm_rows", min_occupancy = 75%)]
#[allow(clippy::too_many_arguments)]
fn launch_layernorm_rows(
    stream: &CudaStream,
    layernorm_rows: &CudaFunction,
    grid: u32,
    x: &CudaSlice<f32>,
    gamma: &CudaSlice<f32>,
    beta: &CudaSlice<f32>,
    out: LayerNormOut<'_>,
    cols: usize,
    eps: f32,
) -> Result<LaunchConfig, DriverError> {
    let invalid = DriverError(CUresult::CUDA_ERROR_INVALID_VALUE);
    let rows = x.len().min(out.y.len()).checked_div(cols).ok_or(invalid)?;
    if gamma.len() < cols || beta.len() < cols || out.mean.len() < rows || out.rstd.len() < rows {
        return Err(invalid);
    }
    let rows = i32::try_from(rows).map_err(|_| invalid)?;
    let cols = i32::try_from(cols).map_err(|_| invalid)?;
    let config = LaunchConfig {
        grid_dim: (grid.min(rows.max(1) as u32), 1, 1),
        block_dim: (BLOCK, 1, 1),
        shared_mem_bytes: 0,
    };
    let mut launch = stream.launch_builder(layernorm_rows);
    launch
        .arg(x)
        .arg(gamma)
        .arg(beta)
        .arg(out.y)
        .arg(out.mean)
        .arg(out.rstd);
    launch.arg(&rows).arg(&cols).arg(&eps);
    // SAFETY: the arguments match layernorm_rows(const float* x, const float* gamma,
    // const float* beta, float* y, float* mean_out, float* rstd_out, int rows, int cols,
    // float eps), and every buffer was checked against rows and cols.
    unsafe { launch.launch(config) }?;
    Ok(config)
}

fn inputs() -> (Vec<f32>, Vec<f32>, Vec<f32>) {
    (
        // An offset mean, as activations often have: the two-pass variance must cope.
        data::floats(41, ROWS * COLS, 2.0, 6.0),
        data::floats(42, COLS, 0.5, 1.5),
        data::floats(43, COLS, -0.5, 0.5),
    )
}

fn cpu() {
    let (x, gamma, beta) = inputs();
    let ln = harness::timed("layernorm reference", || {
        reference::layernorm_rows(&x, &gamma, &beta, ROWS, COLS, EPS)
    });
    println!(
        "  {ROWS} x {COLS}: row 0 mean {:.6}, rstd {:.6}",
        ln.mean[0], ln.rstd[0]
    );
}

fn gpu(gpu: &Gpu, report: &mut Report) -> Result<(), HarnessError> {
    let (x, gamma, beta) = inputs();
    let (module, artifact) = gpu.load("layernorm")?;
    println!("  kernels/layernorm.cu from {artifact}");
    let func = module.load_function("layernorm_rows")?;
    let stream = gpu.stream();
    let d_x = stream.clone_htod(&x)?;
    let d_gamma = stream.clone_htod(&gamma)?;
    let d_beta = stream.clone_htod(&beta)?;
    let mut d_y = stream.clone_htod(&vec![POISON_F32; x.len()])?;
    let mut d_mean = stream.clone_htod(&vec![POISON_F32; ROWS])?;
    let mut d_rstd = stream.clone_htod(&vec![POISON_F32; ROWS])?;

    let grid = gpu.resident_grid(&func, BLOCK, 0, ROWS as u64)?;
    let out = LayerNormOut {
        y: &mut d_y,
        mean: &mut d_mean,
        rstd: &mut d_rstd,
    };
    let config =
        launch_layernorm_rows(stream, &func, grid, &d_x, &d_gamma, &d_beta, out, COLS, EPS)?;
    stream.synchronize()?;
    report.launch(&gpu.launch_report(&func, "layernorm_rows", &config)?);

    let want = reference::layernorm_rows(&x, &gamma, &beta, ROWS, COLS, EPS);
    report.compare(&Comparison::f32(
        "y",
        &stream.clone_dtoh(&d_y)?,
        &want.y,
        1e-5,
    ));
    report.compare(&Comparison::f32(
        "mean",
        &stream.clone_dtoh(&d_mean)?,
        &want.mean,
        1e-5,
    ));
    report.compare(&Comparison::f32(
        "rstd",
        &stream.clone_dtoh(&d_rstd)?,
        &want.rstd,
        1e-5,
    ));
    Ok(())
}

fn main() -> ExitCode {
    harness::run("layernorm", cpu, gpu)
}
