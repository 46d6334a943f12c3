//! SAXPY and vector add (kernels/saxpy.cu): grid-stride loops, the grid sized to fill the
//! GPU once, over an odd number of elements.
//!
//! `launch_vector_add` is deliberately sub-optimal: blocks of 64 threads (2 warps) on a GPU
//! that holds at most 16 blocks per SM (cc 8.6) leave a third of the warp slots empty.

use std::process::ExitCode;

use cudarc::driver::{
    CudaFunction, CudaSlice, CudaStream, DriverError, LaunchConfig, PushKernelArg,
};
use occupancy_examples::check::{Comparison, POISON_F32};
use occupancy_examples::harness::{self, Gpu, HarnessError, Report};
use occupancy_examples::{data, reference};

/// Elements: odd, so the last block is partly idle.
const N: usize = 10_000_019;
/// SAXPY's scalar.
const A: f32 = 1.75;
/// Threads per block of `saxpy`.
const SAXPY_BLOCK: u32 = 256;
/// Threads per block of `vector_add` (deliberately small, see the module docs).
const VECTOR_ADD_BLOCK: u32 = 64;

/// `out = a * x + y` over the shortest of `x`, `y`, `out`: `grid` blocks of 256 threads.
#[occupancy::check(kernel = "saxpy", min_occupancy = 75%)]
fn launch_saxpy(
    stream: &CudaStream,
    saxpy: &CudaFunction,
    grid: u32,
    a: f32,
    x: &CudaSlice<f32>,
    y: &CudaSlice<f32>,
    out: &mut CudaSlice<f32>,
) -> Result<LaunchConfig, DriverError> {
    let n = out.len().min(x.len()).min(y.len()) as u64;
    let config = LaunchConfig {
        grid_dim: (grid, 1, 1),
        block_dim: (SAXPY_BLOCK, 1, 1),
        shared_mem_bytes: 0,
    };
    let mut launch = stream.launch_builder(saxpy);
    launch.arg(&n).arg(&a).arg(x).arg(y).arg(out);
    // SAFETY: the arguments match saxpy(unsigned long long n, float a, const float* x,
    // const float* y, float* out), and every buffer holds at least n elements.
    unsafe { launch.launch(config) }?;
    Ok(config)
}

/// `c = a + b` over the shortest of the three: `grid` blocks of 64 threads.
#[occupancy::check(kernel = "vector_add", min_occupancy = 75%)]
// Deliberately sub-optimal (see the module docs): its occupancy warnings stay warnings
// under `-D warnings` (CI runs clippy with it).
#[warn(warnings)]
fn launch_vector_add(
    stream: &CudaStream,
    vector_add: &CudaFunction,
    grid: u32,
    a: &CudaSlice<f32>,
    b: &CudaSlice<f32>,
    c: &mut CudaSlice<f32>,
) -> Result<LaunchConfig, DriverError> {
    let n = c.len().min(a.len()).min(b.len()) as u64;
    let config = LaunchConfig {
        grid_dim: (grid, 1, 1),
        block_dim: (VECTOR_ADD_BLOCK, 1, 1),
        shared_mem_bytes: 0,
    };
    let mut launch = stream.launch_builder(vector_add);
    launch.arg(&n).arg(a).arg(b).arg(c);
    // SAFETY: the arguments match vector_add(unsigned long long n, const float* a,
    // const float* b, float* c), and every buffer holds at least n elements.
    unsafe { launch.launch(config) }?;
    Ok(config)
}

fn inputs() -> (Vec<f32>, Vec<f32>) {
    (data::floats(1, N, -1.0, 1.0), data::floats(2, N, -4.0, 4.0))
}

fn cpu() {
    let (x, y) = inputs();
    let s = harness::timed("saxpy reference", || reference::saxpy(A, &x, &y));
    let v = harness::timed("vector_add reference", || reference::vector_add(&x, &y));
    println!(
        "  {N} elements: sum(a x + y) = {:.6}, sum(x + y) = {:.6}",
        s.iter().sum::<f64>(),
        v.iter().sum::<f64>()
    );
}

fn gpu(gpu: &Gpu, report: &mut Report) -> Result<(), HarnessError> {
    let (x, y) = inputs();
    let (module, artifact) = gpu.load("saxpy")?;
    println!("  kernels/saxpy.cu from {artifact}");
    let stream = gpu.stream();
    let d_x = stream.clone_htod(&x)?;
    let d_y = stream.clone_htod(&y)?;

    let saxpy = module.load_function("saxpy")?;
    let mut d_out = stream.clone_htod(&vec![POISON_F32; N])?;
    let grid = gpu.resident_grid(
        &saxpy,
        SAXPY_BLOCK,
        0,
        N.div_ceil(SAXPY_BLOCK as usize) as u64,
    )?;
    let config = launch_saxpy(stream, &saxpy, grid, A, &d_x, &d_y, &mut d_out)?;
    stream.synchronize()?;
    report.launch(&gpu.launch_report(&saxpy, "saxpy", &config)?);
    let out = stream.clone_dtoh(&d_out)?;
    report.compare(&Comparison::f32(
        "saxpy out",
        &out,
        &reference::saxpy(A, &x, &y),
        1e-6,
    ));

    let vector_add = module.load_function("vector_add")?;
    let mut d_c = stream.clone_htod(&vec![POISON_F32; N])?;
    let grid = gpu.resident_grid(
        &vector_add,
        VECTOR_ADD_BLOCK,
        0,
        N.div_ceil(VECTOR_ADD_BLOCK as usize) as u64,
    )?;
    let config = launch_vector_add(stream, &vector_add, grid, &d_x, &d_y, &mut d_c)?;
    stream.synchronize()?;
    report.launch(&gpu.launch_report(&vector_add, "vector_add", &config)?);
    let c = stream.clone_dtoh(&d_c)?;
    report.compare(&Comparison::f32(
        "vector_add c",
        &c,
        &reference::vector_add(&x, &y),
        1e-6,
    ));
    Ok(())
}

fn main() -> ExitCode {
    harness::run("saxpy", cpu, gpu)
}
