//! SGEMM, `C = alpha * A * B + beta * C` row-major (kernels/sgemm.cu), with odd sizes and
//! padded leading dimensions. Each kernel runs twice: with beta = 0 on a NaN-filled C (C
//! must not be read), then with beta != 0 on that result.
//!
//! - `sgemm_tiled`: 64 x 64 tiles, 16 x 16 threads, 4 x 4 outputs per thread. 40 registers
//!   on sm_86 to sm_90 but 80 on sm_100 / sm_120 (NVRTC 12.9): 37.5% on a B200, under the
//!   wrapper's 50% floor.
//! - `sgemm_128x128_8x8`: 128 x 128 tiles, 256 threads, 8 x 8 outputs per thread: 117 to 125
//!   registers per thread, so registers limit it to 2 resident blocks (16 warps) per SM.

use std::process::ExitCode;

use cudarc::driver::sys::CUresult;
use cudarc::driver::{
    CudaFunction, CudaSlice, CudaStream, DriverError, LaunchConfig, PushKernelArg,
};
use occupancy_examples::check::{Comparison, POISON_F32};
use occupancy_examples::data;
use occupancy_examples::harness::{self, Gpu, HarnessError, Report};
use occupancy_examples::reference::{self, Gemm};

const M: usize = 517;
const N: usize = 771;
const K: usize = 333;
/// Leading dimensions, each larger than the row: the kernels must honour them.
const LDA: usize = K + 5;
const LDB: usize = N + 3;
const LDC: usize = N + 1;

/// The kernel's scalar arguments, checked against the buffers: `CUDA_ERROR_INVALID_VALUE`
/// for a size over `i32::MAX`, a leading dimension under the row length, or a buffer too
/// short for its shape.
struct GemmArgs {
    m: i32,
    n: i32,
    k: i32,
    lda: i32,
    ldb: i32,
    ldc: i32,
}

impl GemmArgs {
    fn new(
        g: Gemm,
        a: usize,
        lda: usize,
        b: usize,
        ldb: usize,
        c: usize,
        ldc: usize,
    ) -> Result<Self, DriverError> {
        let invalid = DriverError(CUresult::CUDA_ERROR_INVALID_VALUE);
        let fits = |len: usize, rows: usize, cols: usize, ld: usize| {
            ld >= cols
                && (rows == 0
                    || cols == 0
                    || (rows - 1)
                        .checked_mul(ld)
                        .and_then(|v| v.checked_add(cols))
                        .is_some_and(|need| need <= len))
        };
        if !(fits(a, g.m, g.k, lda) && fits(b, g.k, g.n, ldb) && fits(c, g.m, g.n, ldc)) {
            return Err(invalid);
        }
        let i = |v: usize| i32::try_from(v).map_err(|_| invalid);
        Ok(Self {
            m: i(g.m)?,
            n: i(g.n)?,
            k: i(g.k)?,
            lda: i(lda)?,
            ldb: i(ldb)?,
            ldc: i(ldc)?,
        })
    }
}

/// `C = alpha A B + beta C` with `sgemm_tiled`: blocks of 16 x 16 threads, one per 64 x 64
/// tile of C.
#[occupancy::check(kernel = "sgemm_tiled", min_occupancy = 50%)]
#[allow(clippy::too_many_arguments)]
// Deliberately sub-optimal on Blackwell (80 registers): its occupancy warning stays a
// warning under `-D warnings` (CI runs clippy with it).
#[warn(warnings)]
fn launch_sgemm_tiled(
    stream: &CudaStream,
    sgemm_tiled: &CudaFunction,
    g: Gemm,
    a: &CudaSlice<f32>,
    lda: usize,
    b: &CudaSlice<f32>,
    ldb: usize,
    c: &mut CudaSlice<f32>,
    ldc: usize,
) -> Result<LaunchConfig, DriverError> {
    let args = GemmArgs::new(g, a.len(), lda, b.len(), ldb, c.len(), ldc)?;
    let config = LaunchConfig {
        grid_dim: (g.n.div_ceil(64) as u32, g.m.div_ceil(64) as u32, 1),
        block_dim: (16, 16, 1),
        shared_mem_bytes: 0,
    };
    let mut launch = stream.launch_builder(sgemm_tiled);
    launch.arg(&args.m).arg(&args.n).arg(&args.k).arg(&g.alpha);
    launch.arg(a).arg(&args.lda).arg(b).arg(&args.ldb);
    launch.arg(&g.beta).arg(c).arg(&args.ldc);
    // SAFETY: the arguments match sgemm_tiled(int M, int N, int K, float alpha,
    // const float* A, int lda, const float* B, int ldb, float beta, float* C, int ldc), and
    // GemmArgs checked every buffer against its shape.
    unsafe { launch.launch(config) }?;
    Ok(config)
}

/// `C = alpha A B + beta C` with `sgemm_128x128_8x8`: blocks of 256 threads, one per
/// 128 x 128 tile of C.
#[occupancy::check(kernel = "sgemm_128x128_8x8", min_occupancy = 25%)]
#[allow(clippy::too_many_arguments)]
fn launch_sgemm_128x128(
    stream: &CudaStream,
    sgemm: &CudaFunction,
    g: Gemm,
    a: &CudaSlice<f32>,
    lda: usize,
    b: &CudaSlice<f32>,
    ldb: usize,
    c: &mut CudaSlice<f32>,
    ldc: usize,
) -> Result<LaunchConfig, DriverError> {
    let args = GemmArgs::new(g, a.len(), lda, b.len(), ldb, c.len(), ldc)?;
    let config = LaunchConfig {
        grid_dim: (g.n.div_ceil(128) as u32, g.m.div_ceil(128) as u32, 1),
        block_dim: (256, 1, 1),
        shared_mem_bytes: 0,
    };
    let mut launch = stream.launch_builder(sgemm);
    launch.arg(&args.m).arg(&args.n).arg(&args.k).arg(&g.alpha);
    launch.arg(a).arg(&args.lda).arg(b).arg(&args.ldb);
    launch.arg(&g.beta).arg(c).arg(&args.ldc);
    // SAFETY: the arguments match sgemm_128x128_8x8 (same signature as sgemm_tiled), and
    // GemmArgs checked every buffer against its shape.
    unsafe { launch.launch(config) }?;
    Ok(config)
}

fn inputs() -> (Vec<f32>, Vec<f32>) {
    // Padding elements hold values too: a kernel that ignores lda / ldb reads them.
    (
        data::floats(21, M * LDA, -1.0, 1.0),
        data::floats(22, K * LDB, -1.0, 1.0),
    )
}

/// A * B in f64, m x n dense.
fn product(a: &[f32], b: &[f32]) -> Vec<f64> {
    let g = Gemm {
        m: M,
        n: N,
        k: K,
        alpha: 1.0,
        beta: 0.0,
    };
    reference::sgemm(g, a, LDA, b, LDB, &[], LDC)
}

/// The m x n valid part of C (row stride LDC), and how many padding elements are no longer
/// the poison (written out of bounds).
fn valid_part(c: &[f32]) -> (Vec<f32>, usize) {
    let mut valid = Vec::with_capacity(M * N);
    let mut padding_written = 0;
    for row in c.chunks(LDC) {
        valid.extend_from_slice(&row[..N]);
        padding_written += row[N..].iter().filter(|v| !v.is_nan()).count();
    }
    (valid, padding_written)
}

fn cpu() {
    let (a, b) = inputs();
    let ab = harness::timed("A * B reference (naive triple loop, f64)", || {
        product(&a, &b)
    });
    println!(
        "  {M} x {N} x {K}: sum(A B) = {:.6}",
        ab.iter().sum::<f64>()
    );
}

type Launcher = fn(
    &CudaStream,
    &CudaFunction,
    Gemm,
    &CudaSlice<f32>,
    usize,
    &CudaSlice<f32>,
    usize,
    &mut CudaSlice<f32>,
    usize,
) -> Result<LaunchConfig, DriverError>;

fn gpu(gpu: &Gpu, report: &mut Report) -> Result<(), HarnessError> {
    let (a, b) = inputs();
    let ab = product(&a, &b);
    let (module, artifact) = gpu.load("sgemm")?;
    println!("  kernels/sgemm.cu from {artifact}");
    let stream = gpu.stream();
    let d_a = stream.clone_htod(&a)?;
    let d_b = stream.clone_htod(&b)?;

    let kernels: [(&str, Launcher); 2] = [
        ("sgemm_tiled", launch_sgemm_tiled),
        ("sgemm_128x128_8x8", launch_sgemm_128x128),
    ];
    for (name, launch) in kernels {
        let func = module.load_function(name)?;
        let mut d_c = stream.clone_htod(&vec![POISON_F32; M * LDC])?;

        // beta = 0: C is write-only, so the NaN poison must not leak into the result.
        let g0 = Gemm {
            m: M,
            n: N,
            k: K,
            alpha: 1.5,
            beta: 0.0,
        };
        let config = launch(stream, &func, g0, &d_a, LDA, &d_b, LDB, &mut d_c, LDC)?;
        stream.synchronize()?;
        report.launch(&gpu.launch_report(&func, name, &config)?);
        let (c0, padding_written) = valid_part(&stream.clone_dtoh(&d_c)?);
        let want0: Vec<f64> = ab.iter().map(|v| 1.5 * v).collect();
        report.compare(&Comparison::f32(
            &format!("{name} C (beta = 0)"),
            &c0,
            &want0,
            1e-5,
        ));
        report.expect(
            &format!("{name}: padding columns of C untouched ({padding_written} written)"),
            padding_written == 0,
        );

        // beta != 0: C is read and updated. 0.25 A B + 2 (1.5 A B) = 3.25 A B: no
        // cancellation (alpha -0.75, beta 0.5 would give 0, and a relative error of noise).
        let g1 = Gemm {
            alpha: 0.25,
            beta: 2.0,
            ..g0
        };
        let config = launch(stream, &func, g1, &d_a, LDA, &d_b, LDB, &mut d_c, LDC)?;
        stream.synchronize()?;
        let (c1, _) = valid_part(&stream.clone_dtoh(&d_c)?);
        let want1: Vec<f64> = ab
            .iter()
            .zip(&c0)
            .map(|(v, &c)| 0.25 * v + 2.0 * f64::from(c))
            .collect();
        println!(
            "  launch {name} again: grid {:?}, alpha 0.25, beta 2",
            config.grid_dim
        );
        report.compare(&Comparison::f32(
            &format!("{name} C (beta = 2)"),
            &c1,
            &want1,
            1e-5,
        ));
    }
    Ok(())
}

fn main() -> ExitCode {
    harness::run("sgemm", cpu, gpu)
}
