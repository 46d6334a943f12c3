//! 2-D convolution with a 5 x 5 filter and replicated edges (kernels/conv2d.cu) on a
//! 1920 x 1080 image, the tile plus halo in dynamic shared memory.
//!
//! Two wrappers: `launch_conv2d` with blocks of 32 x 8 threads, and `launch_conv2d_20x20`,
//! deliberately sub-optimal: 20 x 20 = 400 threads is not a multiple of 32, so each block
//! holds 13 warps of which the last is half empty, and the 13-warp blocks also fit the SM
//! badly (4 x 13 = 52 of 64 warps on cc 8.0 / 9.0).

use std::process::ExitCode;

use cudarc::driver::sys::CUresult;
use cudarc::driver::{
    CudaFunction, CudaSlice, CudaStream, DriverError, LaunchConfig, PushKernelArg,
};
use occupancy_examples::check::{Comparison, POISON_F32};
use occupancy_examples::harness::{self, Gpu, HarnessError, Report};
use occupancy_examples::{data, reference};

const WIDTH: usize = 1920;
const HEIGHT: usize = 1080;
const RADIUS: usize = 2;

/// Dynamic shared memory for a `bx x by` block: the tile with its halo, and the filter.
const fn smem_bytes(bx: usize, by: usize, radius: usize) -> u32 {
    let fw = 2 * radius + 1;
    (((bx + 2 * radius) * (by + 2 * radius) + fw * fw) * 4) as u32
}

/// 1,828 bytes: (36 x 12 + 25) floats.
const SMEM_32X8: u32 = smem_bytes(32, 8, RADIUS);
/// 2,404 bytes: (24 x 24 + 25) floats.
const SMEM_20X20: u32 = smem_bytes(20, 20, RADIUS);

/// The configuration of a conv2d launch of `block` threads over a `width` x `height`
/// image: one block per output tile, with `smem` bytes of dynamic shared memory (the tile,
/// its radius-2 halo and the filter). `#[occupancy::check]` reads it through the wrappers'
/// calls, with their arguments.
fn conv2d_config(block: (u32, u32), smem: u32, shape: (usize, usize)) -> LaunchConfig {
    LaunchConfig {
        grid_dim: (
            shape.0.div_ceil(block.0 as usize).max(1) as u32,
            shape.1.div_ceil(block.1 as usize).clamp(1, 65_535) as u32,
            1,
        ),
        block_dim: (block.0, block.1, 1),
        shared_mem_bytes: smem,
    }
}

/// Launches conv2d with `config` over the `width` x `height` image.
fn launch(
    stream: &CudaStream,
    conv2d: &CudaFunction,
    config: LaunchConfig,
    image: &CudaSlice<f32>,
    out: &mut CudaSlice<f32>,
    (width, height): (usize, usize),
    filter: &CudaSlice<f32>,
) -> Result<LaunchConfig, DriverError> {
    let invalid = DriverError(CUresult::CUDA_ERROR_INVALID_VALUE);
    let fw = 2 * RADIUS + 1;
    let len = width.checked_mul(height).ok_or(invalid)?;
    if image.len() < len || out.len() < len || filter.len() < fw * fw {
        return Err(invalid);
    }
    let width = i32::try_from(width).map_err(|_| invalid)?;
    let height = i32::try_from(height).map_err(|_| invalid)?;
    let radius = RADIUS as i32;
    let mut launch = stream.launch_builder(conv2d);
    launch
        .arg(image)
        .arg(out)
        .arg(&width)
        .arg(&height)
        .arg(filter)
        .arg(&radius);
    // SAFETY: the arguments match conv2d(const float* in, float* out, int width,
    // int height, const float* filter, int radius); the buffers were checked against the
    // shape, and the dynamic shared memory is what the kernel needs for this block and
    // radius.
    unsafe { launch.launch(config) }?;
    Ok(config)
}

/// `out` = `image` (width x height) convolved with the 5 x 5 `filter`: blocks of 32 x 8.
#[occupancy::check(kernel = "conv2d", min_occupancy = 75%)]
fn launch_conv2d(
    stream: &CudaStream,
    conv2d: &CudaFunction,
    image: &CudaSlice<f32>,
    out: &mut CudaSlice<f32>,
    shape: (usize, usize),
    filter: &CudaSlice<f32>,
) -> Result<LaunchConfig, DriverError> {
    let config = conv2d_config((32, 8), SMEM_32X8, shape);
    launch(stream, conv2d, config, image, out, shape, filter)
}

/// The same with blocks of 20 x 20 (deliberately not a multiple of 32 threads).
#[occupancy::check(kernel = "conv2d", min_occupancy = 75%)]
// Deliberately sub-optimal (see the module docs): its occupancy warnings stay warnings
// under `-D warnings` (CI runs clippy with it).
#[warn(warnings)]
fn launch_conv2d_20x20(
    stream: &CudaStream,
    conv2d: &CudaFunction,
    image: &CudaSlice<f32>,
    out: &mut CudaSlice<f32>,
    shape: (usize, usize),
    filter: &CudaSlice<f32>,
) -> Result<LaunchConfig, DriverError> {
    let config = conv2d_config((20, 20), SMEM_20X20, shape);
    launch(stream, conv2d, config, image, out, shape, filter)
}

fn inputs() -> (Vec<f32>, Vec<f32>) {
    let fw = 2 * RADIUS + 1;
    (
        data::floats(71, WIDTH * HEIGHT, 0.0, 1.0),
        data::floats(72, fw * fw, -0.2, 0.2),
    )
}

fn cpu() {
    let (image, filter) = inputs();
    let out = harness::timed("conv2d reference", || {
        reference::conv2d(&image, WIDTH, HEIGHT, &filter, RADIUS)
    });
    println!(
        "  {WIDTH} x {HEIGHT}, 5 x 5 filter: sum(out) = {:.6}",
        out.iter().sum::<f64>()
    );
}

type Launcher = fn(
    &CudaStream,
    &CudaFunction,
    &CudaSlice<f32>,
    &mut CudaSlice<f32>,
    (usize, usize),
    &CudaSlice<f32>,
) -> Result<LaunchConfig, DriverError>;

fn gpu(gpu: &Gpu, report: &mut Report) -> Result<(), HarnessError> {
    let (image, filter) = inputs();
    let want = reference::conv2d(&image, WIDTH, HEIGHT, &filter, RADIUS);
    let (module, artifact) = gpu.load("conv2d")?;
    println!("  kernels/conv2d.cu from {artifact}");
    let func = module.load_function("conv2d")?;
    let stream = gpu.stream();
    let d_image = stream.clone_htod(&image)?;
    let d_filter = stream.clone_htod(&filter)?;

    let launchers: [(&str, Launcher); 2] = [
        ("block (32, 8)", launch_conv2d),
        ("block (20, 20)", launch_conv2d_20x20),
    ];
    for (label, launcher) in launchers {
        let mut d_out = stream.clone_htod(&vec![POISON_F32; image.len()])?;
        let config = launcher(
            stream,
            &func,
            &d_image,
            &mut d_out,
            (WIDTH, HEIGHT),
            &d_filter,
        )?;
        stream.synchronize()?;
        report.launch(&gpu.launch_report(&func, "conv2d", &config)?);
        let out = stream.clone_dtoh(&d_out)?;
        report.compare(&Comparison::f32(
            &format!("out ({label})"),
            &out,
            &want,
            1e-5,
        ));
    }
    Ok(())
}

fn main() -> ExitCode {
    harness::run("conv2d", cpu, gpu)
}
