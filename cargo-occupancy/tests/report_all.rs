//! `cargo occupancy report --all` and `--annotate` on `tests/fixtures/adopt`: a crate of 33
//! launching functions in the styles of real Rust CUDA code (36 once `unary_op!`'s four
//! expansions are read), none annotated. `--all` lists
//! every launch with its kernel family and numbers per target (or why it is not checked);
//! `--annotate` writes the attribute where the build then gives the same findings, and
//! never leaves the tree half-edited.
//!
//! The annotating tests build a copy of the fixture with cargo (its own target folder under
//! this build's tmp folder, shared by them).

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn fixture() -> PathBuf {
    root().join("tests/fixtures/adopt")
}

/// The target folder the copies build in.
fn target_dir() -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).join("adopt-target")
}

/// `cargo-occupancy occupancy report <args>` in `dir` (the crate): (exit code, stdout,
/// stderr).
fn report(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_cargo-occupancy"))
        .arg("occupancy")
        .arg("report")
        .args(args)
        .env_remove("OCCUPANCY_MANIFEST")
        .env_remove("OCCUPANCY_POLICY")
        .env_remove("RUSTFLAGS")
        .env_remove("CARGO_ENCODED_RUSTFLAGS")
        .env("CARGO_TARGET_DIR", target_dir())
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

/// `report --json` (`all`: `--all`) on `krate`, which must exit with `code`.
fn json(krate: &Path, all: bool, code: i32) -> Value {
    let manifest = krate.join("kernels.manifest.json");
    let mut args = vec![
        "--json",
        krate.to_str().unwrap(),
        "--kernel-manifest",
        manifest.to_str().unwrap(),
    ];
    if all {
        args.push("--all");
    }
    let (exit, stdout, stderr) = report(&args);
    assert_eq!(exit, code, "{stdout}{stderr}");
    serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{e}: {stdout}{stderr}"))
}

/// One line per entry: location, function, the attribute it is read with, then each
/// kernel (and plan label) on each target with its occupancy; or why it is not checked.
fn lines(report: &Value) -> Vec<String> {
    let mut out = Vec::new();
    for w in report["wrappers"].as_array().unwrap() {
        let head = format!(
            "{}  {}",
            w["location"].as_str().unwrap(),
            w["wrapper"].as_str().unwrap()
        );
        if let Some(why) = w["not_checked"].as_array() {
            let why = why[0].as_str().unwrap();
            let why: String = why.chars().take(60).collect();
            out.push(format!("{head}  not checked: {why}"));
            continue;
        }
        let rows: Vec<String> = w["targets"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| {
                let plan = &w["plans"][t["plan"].as_u64().unwrap() as usize]["label"];
                let label = plan.as_str().map_or(String::new(), |l| format!(" ({l})"));
                format!(
                    "{}{label} {} {:.2}",
                    t["kernel"].as_str().unwrap_or("-"),
                    t["target"].as_str().unwrap(),
                    t["occupancy_percent"].as_f64().unwrap()
                )
            })
            .collect();
        let attribute = w["attribute"].as_str().unwrap_or("annotated");
        out.push(format!("{head}  {attribute}: {}", rows.join(", ")));
    }
    out
}

/// The fixture's numbers, checked by hand against the occupancy model (sm_80 and sm_90:
/// 64 warps and 32 blocks per SM, sm_86: 48 warps and 16 blocks; the kernels use 8 to 40
/// registers, which never limit these blocks):
/// - 1024-thread blocks (`for_num_elems`, `SUM_BLOCK`): 2 blocks on sm_80/sm_90 (100%),
///   1 on sm_86 (32 of 48 warps: 66.67%);
/// - 32-thread blocks (`WARP_SIZE as u32`, `Self::BLOCK`, the 32 arm): the block limit,
///   32 of 64 warps (50%), 16 of 48 (33.33%);
/// - 64-thread blocks (`launch_cfg::<64>`, cust's `(32, 2)`): 100%, and 16 blocks of 2
///   warps on sm_86 (66.67%);
/// - 96-thread blocks: 21 blocks of 3 warps = 63 of 64 (98.44%), 16 on sm_86 (100%);
/// - 128 to 512 threads: 100%.
///
/// The fp8 members (`affine_f8e4m3`, `cast_f8e4m3_f32`) have sm_90 cubins only: left out
/// of their families on sm_80 and sm_86; `fp8_scale`, launched alone, is checked on sm_90.
/// Three launches need the path-sensitive reader (issue 19, items 2 and 3): their rows say
/// why they are not checked yet.
const EXPECTED: &str = "\
src/affine.rs:26  affine  #[occupancy::check(kernel = \"affine_*\")]: affine_f32 sm_80 100.00, affine_f32 sm_86 66.67, affine_f32 sm_90 100.00, affine_f64 sm_80 100.00, affine_f64 sm_86 66.67, affine_f64 sm_90 100.00, affine_f8e4m3 sm_90 100.00, affine_u32 sm_80 100.00, affine_u32 sm_86 66.67, affine_u32 sm_90 100.00
src/binary.rs:11  add_mul  #[occupancy::check(kernel = [\"badd_f32\", \"bmul_f32\"])]: badd_f32 sm_80 100.00, badd_f32 sm_86 100.00, badd_f32 sm_90 100.00, bmul_f32 sm_80 100.00, bmul_f32 sm_86 100.00, bmul_f32 sm_90 100.00
src/cast.rs:17  cast  #[occupancy::check(kernel = \"cast_*_*\")]: cast_f32_f64 sm_80 100.00, cast_f32_f64 sm_86 100.00, cast_f32_f64 sm_90 100.00, cast_f64_f32 sm_80 100.00, cast_f64_f32 sm_86 100.00, cast_f64_f32 sm_90 100.00, cast_f8e4m3_f32 sm_90 100.00
src/cast.rs:25  fp8_scale  #[occupancy::check(target = \"sm_90\")]: fp8_scale sm_90 100.00
src/conv.rs:12  im2col  #[occupancy::check(kernel = \"im2col_*\")]: im2col_f32 sm_80 100.00, im2col_f32 sm_86 66.67, im2col_f32 sm_90 100.00, im2col_f64 sm_80 100.00, im2col_f64 sm_86 66.67, im2col_f64 sm_90 100.00
src/conv.rs:19  col2im  #[occupancy::check(kernel = \"col2im_f32\")]: col2im_f32 sm_80 100.00, col2im_f32 sm_86 66.67, col2im_f32 sm_90 100.00
src/conv.rs:32  conv1d  #[occupancy::check]: conv1d_f32 sm_80 100.00, conv1d_f32 sm_86 100.00, conv1d_f32 sm_90 100.00
src/cust_style.rs:14  macro_rules! launch  not checked: inside `macro_rules! launch`, expanded 2 times (src/cust_sty
src/cust_style.rs:20  transpose  #[occupancy::check]: transpose_f32 sm_80 100.00, transpose_f32 sm_86 100.00, transpose_f32 sm_90 100.00
src/cust_style.rs:26  gemv_cust  #[occupancy::check]: gemv_f32 sm_80 100.00, gemv_f32 sm_86 66.67, gemv_f32 sm_90 100.00
src/elementwise.rs:12  launch_elementwise  #[occupancy::check(kernel = [\"gelu_f32\", \"relu_f32\", \"silu_f32\"])]: gelu_f32 sm_80 100.00, gelu_f32 sm_86 66.67, gelu_f32 sm_90 100.00, relu_f32 sm_80 100.00, relu_f32 sm_86 66.67, relu_f32 sm_90 100.00, silu_f32 sm_80 100.00, silu_f32 sm_86 66.67, silu_f32 sm_90 100.00
src/elementwise.rs:37  fill  #[occupancy::check]: fill_f32 sm_80 100.00, fill_f32 sm_86 66.67, fill_f32 sm_90 100.00
src/elementwise.rs:47  copy2d  #[occupancy::check(kernel = \"copy2d_f32\")]: copy2d_f32 sm_80 100.00, copy2d_f32 sm_86 100.00, copy2d_f32 sm_90 100.00
src/index.rs:10  index_select  #[occupancy::check]: index_select_f32 sm_80 100.00, index_select_f32 sm_86 100.00, index_select_f32 sm_90 100.00
src/index.rs:16  gather  #[occupancy::check]: gather_f32 sm_80 100.00, gather_f32 sm_86 100.00, gather_f32 sm_90 100.00
src/index.rs:23  scatter_add  #[occupancy::check]: scatter_add_f32 sm_80 100.00, scatter_add_f32 sm_86 66.67, scatter_add_f32 sm_90 100.00
src/index.rs:30  where_cond  #[occupancy::check]: where_f32 sm_80 100.00, where_f32 sm_86 100.00, where_f32 sm_90 100.00
src/legacy.rs:39  Func::launch  not checked: `launch` stands in for the launch API with the configuration
src/legacy.rs:52  old_fill  #[occupancy::check]: fill_f32 sm_80 100.00, fill_f32 sm_86 66.67, fill_f32 sm_90 100.00
src/legacy.rs:58  old_gather  #[occupancy::check]: gather_f32 sm_80 98.44, gather_f32 sm_86 100.00, gather_f32 sm_90 98.44
src/matmul.rs:22  Gemm::run  #[occupancy::check]: gemm_tiled sm_80 100.00, gemm_tiled sm_86 100.00, gemm_tiled sm_90 100.00
src/matmul.rs:34  gemv  #[occupancy::check]: gemv_f32 sm_80 100.00, gemv_f32 sm_86 100.00, gemv_f32 sm_90 100.00
src/matmul.rs:48  copy_vec  #[occupancy::check]: fill_f32 sm_80 100.00, fill_f32 sm_86 100.00, fill_f32 sm_90 100.00
src/quant.rs:29  dequantize  #[occupancy::check(kernel = \"dequantize_*\")]: dequantize_q4_0 sm_80 50.00, dequantize_q4_0 sm_86 33.33, dequantize_q4_0 sm_90 50.00, dequantize_q8_0 sm_80 50.00, dequantize_q8_0 sm_86 33.33, dequantize_q8_0 sm_90 50.00
src/quant.rs:40  matmul_q4  #[occupancy::check]: matmul_q4 sm_80 100.00, matmul_q4 sm_86 100.00, matmul_q4 sm_90 100.00
src/reduce.rs:15  sum  #[occupancy::check]: sum_f32 sm_80 100.00, sum_f32 sm_86 66.67, sum_f32 sm_90 100.00
src/reduce.rs:24  argmax  #[occupancy::check]: argmax_f32 (block = 1) sm_80 28.12, argmax_f32 (block = 1) sm_86 22.92, argmax_f32 (block = 1) sm_90 39.06, argmax_f32 (block = 2) sm_80 28.12, argmax_f32 (block = 2) sm_86 22.92, argmax_f32 (block = 2) sm_90 39.06, argmax_f32 (block = 4) sm_80 28.12, argmax_f32 (block = 4) sm_86 22.92, argmax_f32 (block = 4) sm_90 39.06, argmax_f32 (block = 8) sm_80 28.12, argmax_f32 (block = 8) sm_86 22.92, argmax_f32 (block = 8) sm_90 39.06, argmax_f32 (block = 16) sm_80 28.12, argmax_f32 (block = 16) sm_86 22.92, argmax_f32 (block = 16) sm_90 39.06, argmax_f32 (block = 32) sm_80 28.12, argmax_f32 (block = 32) sm_86 22.92, argmax_f32 (block = 32) sm_90 39.06, argmax_f32 (block = 64) sm_80 56.25, argmax_f32 (block = 64) sm_86 45.83, argmax_f32 (block = 64) sm_90 78.12, argmax_f32 (block = 128) sm_80 100.00, argmax_f32 (block = 128) sm_86 91.67, argmax_f32 (block = 128) sm_90 100.00, argmax_f32 (block = 256) sm_80 100.00, argmax_f32 (block = 256) sm_86 100.00, argmax_f32 (block = 256) sm_90 100.00, argmax_f32 (block = 512) sm_80 100.00, argmax_f32 (block = 512) sm_86 100.00, argmax_f32 (block = 512) sm_90 100.00, argmax_f32 (block = 1024) sm_80 100.00, argmax_f32 (block = 1024) sm_86 66.67, argmax_f32 (block = 1024) sm_90 100.00
src/reduce.rs:44  Softmax::forward  #[occupancy::check]: softmax_f32 sm_80 50.00, softmax_f32 sm_86 33.33, softmax_f32 sm_90 50.00
src/reduce.rs:66  layer_norm  #[occupancy::check]: layer_norm_f32 (block = 32, smem = 128 B) sm_80 50.00, layer_norm_f32 (block = 32, smem = 128 B) sm_86 33.33, layer_norm_f32 (block = 32, smem = 128 B) sm_90 50.00, layer_norm_f32 (block = 1024, smem = 4 KiB) sm_80 100.00, layer_norm_f32 (block = 1024, smem = 4 KiB) sm_86 66.67, layer_norm_f32 (block = 1024, smem = 4 KiB) sm_90 100.00
src/reduce.rs:79  rms_norm  #[occupancy::check]: rms_norm_f32 (block = 1024) sm_80 100.00, rms_norm_f32 (block = 1024) sm_86 66.67, rms_norm_f32 (block = 1024) sm_90 100.00, rms_norm_f32 (block = 32) sm_80 50.00, rms_norm_f32 (block = 32) sm_86 33.33, rms_norm_f32 (block = 32) sm_90 50.00
src/reduce.rs:87  grid_sum  #[occupancy::check]: grid_sum_f32 sm_80 100.00, grid_sum_f32 sm_86 100.00, grid_sum_f32 sm_90 100.00
src/sort.rs:14  arg_sort  #[occupancy::check]: asort_asc_f32 (block = 1, smem = 4 B) sm_80 50.00, asort_asc_f32 (block = 1, smem = 4 B) sm_86 33.33, asort_asc_f32 (block = 1, smem = 4 B) sm_90 50.00, asort_asc_f32 (block = 2, smem = 8 B) sm_80 50.00, asort_asc_f32 (block = 2, smem = 8 B) sm_86 33.33, asort_asc_f32 (block = 2, smem = 8 B) sm_90 50.00, asort_asc_f32 (block = 4, smem = 16 B) sm_80 50.00, asort_asc_f32 (block = 4, smem = 16 B) sm_86 33.33, asort_asc_f32 (block = 4, smem = 16 B) sm_90 50.00, asort_asc_f32 (block = 8, smem = 32 B) sm_80 50.00, asort_asc_f32 (block = 8, smem = 32 B) sm_86 33.33, asort_asc_f32 (block = 8, smem = 32 B) sm_90 50.00, asort_asc_f32 (block = 16, smem = 64 B) sm_80 50.00, asort_asc_f32 (block = 16, smem = 64 B) sm_86 33.33, asort_asc_f32 (block = 16, smem = 64 B) sm_90 50.00, asort_asc_f32 (block = 32, smem = 128 B) sm_80 50.00, asort_asc_f32 (block = 32, smem = 128 B) sm_86 33.33, asort_asc_f32 (block = 32, smem = 128 B) sm_90 50.00, asort_asc_f32 (block = 64, smem = 256 B) sm_80 100.00, asort_asc_f32 (block = 64, smem = 256 B) sm_86 66.67, asort_asc_f32 (block = 64, smem = 256 B) sm_90 100.00, asort_asc_f32 (block = 128, smem = 512 B) sm_80 100.00, asort_asc_f32 (block = 128, smem = 512 B) sm_86 100.00, asort_asc_f32 (block = 128, smem = 512 B) sm_90 100.00, asort_asc_f32 (block = 256, smem = 1 KiB) sm_80 100.00, asort_asc_f32 (block = 256, smem = 1 KiB) sm_86 100.00, asort_asc_f32 (block = 256, smem = 1 KiB) sm_90 100.00, asort_asc_f32 (block = 512, smem = 2 KiB) sm_80 100.00, asort_asc_f32 (block = 512, smem = 2 KiB) sm_86 100.00, asort_asc_f32 (block = 512, smem = 2 KiB) sm_90 100.00, asort_asc_f32 (block = 1024, smem = 4 KiB) sm_80 100.00, asort_asc_f32 (block = 1024, smem = 4 KiB) sm_86 66.67, asort_asc_f32 (block = 1024, smem = 4 KiB) sm_90 100.00, asort_asc_f32 (block = 1024, smem = 8 KiB) sm_80 100.00, asort_asc_f32 (block = 1024, smem = 8 KiB) sm_86 66.67, asort_asc_f32 (block = 1024, smem = 8 KiB) sm_90 100.00, asort_asc_f32 (block = 1024, smem = 16 KiB) sm_80 100.00, asort_asc_f32 (block = 1024, smem = 16 KiB) sm_86 66.67, asort_asc_f32 (block = 1024, smem = 16 KiB) sm_90 100.00, asort_asc_f32 (block = 1024, smem = 32 KiB) sm_80 100.00, asort_asc_f32 (block = 1024, smem = 32 KiB) sm_86 66.67, asort_asc_f32 (block = 1024, smem = 32 KiB) sm_90 100.00, asort_asc_f32 (block = 1024, smem = 64 KiB) sm_80 0.00, asort_asc_f32 (block = 1024, smem = 64 KiB) sm_86 0.00, asort_asc_f32 (block = 1024, smem = 64 KiB) sm_90 0.00, asort_asc_f32 (block = 1024, smem = 128 KiB) sm_80 0.00, asort_asc_f32 (block = 1024, smem = 128 KiB) sm_86 0.00, asort_asc_f32 (block = 1024, smem = 128 KiB) sm_90 0.00, asort_asc_f32 (block = 1024, smem = 256 KiB) sm_80 0.00, asort_asc_f32 (block = 1024, smem = 256 KiB) sm_86 0.00, asort_asc_f32 (block = 1024, smem = 256 KiB) sm_90 0.00, asort_asc_f32 (block = 1024, smem = 512 KiB) sm_80 0.00, asort_asc_f32 (block = 1024, smem = 512 KiB) sm_86 0.00, asort_asc_f32 (block = 1024, smem = 512 KiB) sm_90 0.00, asort_asc_f32 (block = 1024, smem = 1024 KiB) sm_80 0.00, asort_asc_f32 (block = 1024, smem = 1024 KiB) sm_86 0.00, asort_asc_f32 (block = 1024, smem = 1024 KiB) sm_90 0.00, asort_asc_f32 (block = 1024, smem = 2048 KiB) sm_80 0.00, asort_asc_f32 (block = 1024, smem = 2048 KiB) sm_86 0.00, asort_asc_f32 (block = 1024, smem = 2048 KiB) sm_90 0.00, asort_asc_f32 (block = 1024, smem = 4096 KiB) sm_80 0.00, asort_asc_f32 (block = 1024, smem = 4096 KiB) sm_86 0.00, asort_asc_f32 (block = 1024, smem = 4096 KiB) sm_90 0.00, asort_asc_f32 (block = 1024, smem = 8192 KiB) sm_80 0.00, asort_asc_f32 (block = 1024, smem = 8192 KiB) sm_86 0.00, asort_asc_f32 (block = 1024, smem = 8192 KiB) sm_90 0.00, asort_asc_f32 (block = 1024, smem = 16384 KiB) sm_80 0.00, asort_asc_f32 (block = 1024, smem = 16384 KiB) sm_86 0.00, asort_asc_f32 (block = 1024, smem = 16384 KiB) sm_90 0.00, asort_asc_f32 (block = 1024, smem = 32768 KiB) sm_80 0.00, asort_asc_f32 (block = 1024, smem = 32768 KiB) sm_86 0.00, asort_asc_f32 (block = 1024, smem = 32768 KiB) sm_90 0.00, asort_asc_f32 (block = 1024, smem = 65536 KiB) sm_80 0.00, asort_asc_f32 (block = 1024, smem = 65536 KiB) sm_86 0.00, asort_asc_f32 (block = 1024, smem = 65536 KiB) sm_90 0.00, asort_asc_f32 (block = 1024, smem = 131072 KiB) sm_80 0.00, asort_asc_f32 (block = 1024, smem = 131072 KiB) sm_86 0.00, asort_asc_f32 (block = 1024, smem = 131072 KiB) sm_90 0.00, asort_asc_f32 (block = 1024, smem = 262144 KiB) sm_80 0.00, asort_asc_f32 (block = 1024, smem = 262144 KiB) sm_86 0.00, asort_asc_f32 (block = 1024, smem = 262144 KiB) sm_90 0.00, asort_asc_f32 (block = 1024, smem = 524288 KiB) sm_80 0.00, asort_asc_f32 (block = 1024, smem = 524288 KiB) sm_86 0.00, asort_asc_f32 (block = 1024, smem = 524288 KiB) sm_90 0.00, asort_asc_f32 (block = 1024, smem = 1048576 KiB) sm_80 0.00, asort_asc_f32 (block = 1024, smem = 1048576 KiB) sm_86 0.00, asort_asc_f32 (block = 1024, smem = 1048576 KiB) sm_90 0.00, asort_asc_f32 (block = 1024, smem = 2097152 KiB) sm_80 0.00, asort_asc_f32 (block = 1024, smem = 2097152 KiB) sm_86 0.00, asort_asc_f32 (block = 1024, smem = 2097152 KiB) sm_90 0.00
src/unary.rs:19  exp  #[occupancy::check(kernel = \"uexp_*\")]: uexp_f32 sm_80 100.00, uexp_f32 sm_86 66.67, uexp_f32 sm_90 100.00, uexp_f64 sm_80 100.00, uexp_f64 sm_86 66.67, uexp_f64 sm_90 100.00
src/unary.rs:19  log  #[occupancy::check(kernel = \"ulog_*\")]: ulog_f32 sm_80 100.00, ulog_f32 sm_86 66.67, ulog_f32 sm_90 100.00, ulog_f64 sm_80 100.00, ulog_f64 sm_86 66.67, ulog_f64 sm_90 100.00
src/unary.rs:19  neg  #[occupancy::check(kernel = \"uneg_*\")]: uneg_f32 sm_80 100.00, uneg_f32 sm_86 66.67, uneg_f32 sm_90 100.00, uneg_f64 sm_80 100.00, uneg_f64 sm_86 66.67, uneg_f64 sm_90 100.00
src/unary.rs:19  sqrt  #[occupancy::check(kernel = \"usqrt_*\")]: usqrt_f32 sm_80 100.00, usqrt_f32 sm_86 66.67, usqrt_f32 sm_90 100.00, usqrt_f64 sm_80 100.00, usqrt_f64 sm_86 66.67, usqrt_f64 sm_90 100.00";

#[test]
fn report_all_lists_every_launch_with_its_family_and_numbers() {
    let report = json(&fixture(), true, 1);
    assert_eq!(lines(&report).join("\n"), EXPECTED);
    // arg_sort's 64 KiB launch (rows of 16,384 columns) cannot run without the opt-in: a
    // deny-level finding, so the report exits 1.
    assert_eq!(report["failed"], true);
    // Every entry is a launching function not annotated.
    let wrappers = report["wrappers"].as_array().unwrap();
    assert!(wrappers.iter().all(|w| w["annotated"] == false));
    let affine = &wrappers[0];
    assert_eq!(
        affine["left_out"],
        serde_json::json!({"sm_80": ["affine_f8e4m3"], "sm_86": ["affine_f8e4m3"]})
    );
    assert_eq!(affine["launch"], "cudarc launch_builder(..).launch");
    assert_eq!(affine["attribute_at"], "src/affine.rs:7");
    // Through a helper: the launch is the caller's call, the attribute goes on the caller.
    let fill = wrappers.iter().find(|w| w["wrapper"] == "fill").unwrap();
    assert_eq!(fill["via"], "launch_with at src/elementwise.rs:30");
    assert_eq!(fill["attribute_at"], "src/elementwise.rs:34");
    assert_eq!(
        report["summary"],
        serde_json::json!({"wrappers": 36, "not_annotated": 36, "not_checked": 2,
            "evaluated": 34, "constant": 0, "errors": 0, "deny": 3, "warn": 54, "conditional": 0})
    );
    // Without --all, none of them: the crate has no wrapper.
    let plain = json(&fixture(), false, 0);
    assert_eq!(plain["wrappers"], serde_json::json!([]));
}

#[test]
fn report_all_table_marks_what_is_not_annotated() {
    let krate = fixture();
    let manifest = krate.join("kernels.manifest.json");
    let (code, stdout, stderr) = report(&[
        "--all",
        krate.to_str().unwrap(),
        "--kernel-manifest",
        manifest.to_str().unwrap(),
    ]);
    assert_eq!(code, 1, "{stdout}{stderr}");
    // The 82-bound trait is left out with a note; the constant beside it is read.
    assert!(
        stderr.contains("note: src/dtype.rs:8: `trait WithDType` is not read"),
        "{stderr}"
    );
    for expected in [
        "src/affine.rs:26  affine -> affine_f32  [not annotated]",
        "  sm_80: not part of the family on compute capability 8.0 (no cubin the driver would load there):",
        "src/elementwise.rs:37  fill -> fill_f32  [not annotated]",
        "  ^ cudarc launch_builder(..).launch; through launch_with at src/elementwise.rs:30; read as",
        "36 launches in 36 functions not annotated: 34 evaluated, 0 with constants, 2 not checked",
    ] {
        assert!(stdout.contains(expected), "{expected:?} not in:\n{stdout}");
    }
    // affine's sm_86 row: 1024 threads, one block of 32 warps.
    let row: Vec<&str> = stdout
        .lines()
        .skip_while(|l| !l.starts_with("src/affine.rs:26  affine -> affine_f32"))
        .nth(2)
        .unwrap()
        .split("  ")
        .map(str::trim)
        .filter(|c| !c.is_empty())
        .collect();
    assert_eq!(
        row,
        [
            "sm_86",
            "1024",
            "0 B",
            "66.67% (32/48 warps)",
            "warps",
            "low_occupancy (warn)"
        ]
    );
    assert!(stdout.lines().all(|l| l.chars().count() <= 100), "{stdout}");
}

/// A copy of the fixture in a fresh folder, its path dependencies made absolute.
fn copy(case: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("adopt-{case}"));
    let _ = std::fs::remove_dir_all(&dir);
    for sub in ["src", "kernels"] {
        std::fs::create_dir_all(dir.join(sub)).unwrap();
        for e in std::fs::read_dir(fixture().join(sub)).unwrap() {
            let e = e.unwrap();
            std::fs::copy(e.path(), dir.join(sub).join(e.file_name())).unwrap();
        }
    }
    for file in [
        "build.rs",
        "occupancy.toml",
        "Cargo.lock",
        "kernels.manifest.json",
    ] {
        std::fs::copy(fixture().join(file), dir.join(file)).unwrap();
    }
    let root = std::fs::canonicalize(root()).unwrap();
    let toml = std::fs::read_to_string(fixture().join("Cargo.toml"))
        .unwrap()
        .replace(
            "\"../../../occupancy-core\"",
            &format!("{:?}", root.join("occupancy-core").display().to_string()),
        )
        .replace("\"../../..\"", &format!("{:?}", root.display().to_string()));
    std::fs::write(dir.join("Cargo.toml"), toml).unwrap();
    dir
}

/// Every file under `dir/src`, with its text.
fn sources(dir: &Path) -> Vec<(PathBuf, String)> {
    let mut out: Vec<(PathBuf, String)> = std::fs::read_dir(dir.join("src"))
        .unwrap()
        .map(|e| {
            let p = e.unwrap().path();
            let text = std::fs::read_to_string(&p).unwrap();
            (p, text)
        })
        .collect();
    out.sort();
    out
}

/// The first lines of the findings a report gives at warn level (of the wrappers `only`
/// names, or all), as the stable backend prints them: `use of deprecated macro `<lint>`:
/// <message>`.
fn report_findings(report: &Value, only: &[&str]) -> Vec<String> {
    let mut out: Vec<String> = report["wrappers"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|w| only.is_empty() || only.contains(&w["wrapper"].as_str().unwrap_or("")))
        .flat_map(|w| w["findings"].as_array().cloned().unwrap_or_default())
        .filter(|f| f["level"] == "warn")
        .map(|f| {
            format!(
                "use of deprecated macro `{}`: {}",
                f["lint"].as_str().unwrap(),
                f["message"].as_str().unwrap()
            )
        })
        .collect();
    out.sort();
    out
}

/// `cargo build` of `dir`: the first lines of its `use of deprecated macro` warnings, and
/// its stderr.
fn build_findings(dir: &Path) -> (Vec<String>, String) {
    let output = Command::new(env!("CARGO"))
        .args(["build", "--message-format=short", "--manifest-path"])
        .arg(dir.join("Cargo.toml"))
        .env("CARGO_TARGET_DIR", target_dir())
        .env("CARGO_TERM_COLOR", "never")
        .env_remove("RUSTFLAGS")
        .env_remove("CARGO_ENCODED_RUSTFLAGS")
        .env_remove("OCCUPANCY_POLICY")
        .env_remove("OCCUPANCY_MANIFEST")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(output.status.success(), "{stderr}");
    let mut found: Vec<String> = stderr
        .lines()
        .filter_map(|l| l.split_once(": warning: use of deprecated macro `"))
        .map(|(_, rest)| format!("use of deprecated macro `{rest}"))
        .collect();
    found.sort();
    (found, stderr)
}

#[test]
fn annotate_writes_the_attribute_where_the_build_gives_the_reports_findings() {
    let dir = copy("annotate");
    let before = json(&dir, true, 1);
    let manifest = dir.join("kernels.manifest.json");
    let (code, stdout, stderr) = report(&[
        "--annotate",
        dir.to_str().unwrap(),
        "--kernel-manifest",
        manifest.to_str().unwrap(),
    ]);
    assert_eq!(code, 1, "{stdout}{stderr}");
    let summary = &stdout[stdout
        .find("annotated 29 launching functions:")
        .unwrap_or_else(|| panic!("{stdout}"))..];
    for expected in [
        "  src/affine.rs:7  affine  #[occupancy::check(kernel = \"affine_*\")]",
        "  src/cast.rs:22  fp8_scale  #[occupancy::check(target = \"sm_90\")]",
        "  src/elementwise.rs:34  fill  #[occupancy::check]",
        "  src/reduce.rs:37  Softmax::forward  #[occupancy::check]",
        "  src/reduce.rs:20  argmax  #[occupancy::check]",
        "  src/reduce.rs:71  rms_norm  #[occupancy::check]",
        "not annotated 7 launch sites:",
        "  src/sort.rs:14  arg_sort: a deny-level finding (launch_impossible): annotated, the build would fail",
        "  src/unary.rs:19  exp: inside `macro_rules! unary_op`, read once per expansion: annotate the function in the macro's body by hand",
        "  src/unary.rs:19  sqrt: inside `macro_rules! unary_op`, read once per expansion: annotate",
        "the originals of the edited files are in ",
    ] {
        assert!(
            summary.contains(expected),
            "{expected:?} not in:\n{summary}"
        );
    }
    // The attribute above the function, after its doc comment, indented as it.
    let reduce = std::fs::read_to_string(dir.join("src/reduce.rs")).unwrap();
    assert!(
        reduce.contains(
            "    /// An associated constant.\n    #[occupancy::check]\n    pub fn forward("
        ),
        "{reduce}"
    );
    // The build now gives the findings the report gave before (but arg_sort's and those of
    // unary_op!'s expansions, which are not annotated; two merged into a worse launch's
    // warning at the same token), and `report` without --all lists the 29 wrappers with
    // them.
    let (built, stderr) = build_findings(&dir);
    let expected: Vec<String> = report_findings(&before, &[])
        .into_iter()
        .filter(|f| {
            !["arg_sort", "exp", "log", "neg", "sqrt"]
                .iter()
                .any(|w| f.contains(&format!("`: {w} (")))
        })
        .collect();
    // Every warning the build gives is one the report gives; the report's others are
    // launches of a wrapper whose findings point at the same token as a worse one's: the
    // build gives that one warning, and its note names them (one warning per lint, target
    // and token).
    let extra: Vec<&String> = built.iter().filter(|b| !expected.contains(b)).collect();
    assert!(extra.is_empty(), "{extra:?}\n{stderr}");
    let merged: Vec<&String> = expected.iter().filter(|e| !built.contains(e)).collect();
    assert_eq!(
        merged,
        [
            "use of deprecated macro `low_occupancy`: layer_norm (block = 1024, smem = 4 KiB) on sm_86: 66.67% occupancy (32 of 48 warps), below the 75% floor",
            "use of deprecated macro `low_occupancy`: rms_norm (block = 1024) on sm_86: 66.67% occupancy (32 of 48 warps), below the 75% floor",
        ],
        "{stderr}"
    );
    for named in [
        "block = 1024, smem = 4 KiB (66.67%)",
        "block = 1024 (66.67%)",
    ] {
        assert!(
            stderr
                .lines()
                .any(|l| l.contains("= note: also ") && l.contains(named)),
            "{named}: {stderr}"
        );
    }
    assert_eq!(built.len(), 41, "{stderr}");
    let after = json(&dir, false, 0);
    assert_eq!(after["summary"]["wrappers"], 29);
    assert_eq!(report_findings(&after, &[]), expected);
    // Again: nothing more to annotate, nothing changed.
    let edited = sources(&dir);
    let (code, stdout, _) = report(&[
        "--annotate",
        dir.to_str().unwrap(),
        "--kernel-manifest",
        manifest.to_str().unwrap(),
    ]);
    assert_eq!(code, 1);
    assert!(
        stdout.contains("annotated 0 launching functions:"),
        "{stdout}"
    );
    assert_eq!(sources(&dir), edited);
}

#[test]
fn annotate_with_features_annotates_a_launch_gated_by_one_of_them() {
    // `affine` behind `#[cfg(feature = "gpu")] pub mod affine;`, as candle-core keeps its
    // CUDA backend behind its `cuda` feature.
    let dir = copy("features");
    let toml = std::fs::read_to_string(dir.join("Cargo.toml")).unwrap();
    let toml = toml.replace("[workspace]", "[features]\ngpu = []\n\n[workspace]");
    std::fs::write(dir.join("Cargo.toml"), toml).unwrap();
    let lib = dir.join("src/lib.rs");
    let text = std::fs::read_to_string(&lib).unwrap();
    let text = text.replace(
        "pub mod affine;",
        "#[cfg(feature = \"gpu\")]\npub mod affine;",
    );
    std::fs::write(&lib, text).unwrap();
    let manifest = dir.join("kernels.manifest.json");
    let manifest = manifest.to_str().unwrap();
    let path = dir.to_str().unwrap();
    // Without the feature: the others, not affine, and what would annotate it.
    let (code, stdout, stderr) = report(&["--annotate", path, "--kernel-manifest", manifest]);
    assert_eq!(code, 1, "{stdout}{stderr}");
    assert!(
        stdout.contains("annotated 28 launching functions:"),
        "{stdout}"
    );
    assert!(
        stdout.contains(
            "  src/affine.rs:26  affine: under cfg(feature = \"gpu\") on mod affine (src/lib.rs:15): a build may leave it out, so the report cannot compare (a feature's: name it in --features)"
        ),
        "{stdout}"
    );
    let affine = std::fs::read_to_string(dir.join("src/affine.rs")).unwrap();
    assert!(!affine.contains("occupancy::check"), "{affine}");
    // With it: the build compiles the module, and the attribute is written there alone.
    let (code, stdout, stderr) = report(&[
        "--annotate",
        path,
        "--kernel-manifest",
        manifest,
        "--features",
        "gpu",
    ]);
    assert_eq!(code, 1, "{stdout}{stderr}");
    assert!(
        stdout.contains(
            "annotated 1 launching function:\n  src/affine.rs:7  affine  #[occupancy::check(kernel = \"affine_*\")]"
        ),
        "{stdout}"
    );
    let affine = std::fs::read_to_string(dir.join("src/affine.rs")).unwrap();
    assert!(
        affine.contains("#[occupancy::check(kernel = \"affine_*\")]\npub fn affine<"),
        "{affine}"
    );
    // `--features` needs `--annotate`.
    let (code, _, stderr) = report(&["--all", path, "--features", "gpu"]);
    assert_eq!(code, 2, "{stderr}");
}

#[test]
fn annotate_leaves_the_tree_as_it_was_when_it_cannot_verify() {
    // A crate that does not build for another reason: nothing can be compared, every file
    // is as it was, exit 2.
    let dir = copy("broken");
    let lib = dir.join("src/lib.rs");
    let text = std::fs::read_to_string(&lib).unwrap() + "\npub fn broken() -> u32 { \"x\" }\n";
    std::fs::write(&lib, text).unwrap();
    let before = sources(&dir);
    let (code, stdout, stderr) = report(&["--annotate", dir.to_str().unwrap()]);
    assert_eq!(code, 2, "{stdout}{stderr}");
    assert!(
        stderr.contains("the crate does not build with the attributes in place, for a reason outside the functions annotated (src/lib.rs:"),
        "{stderr}"
    );
    assert_eq!(sources(&dir), before);
    // No dependency on occupancy: nothing written, and said why.
    let dir = copy("no-dependency");
    let toml = std::fs::read_to_string(dir.join("Cargo.toml")).unwrap();
    let toml: String = toml
        .lines()
        .filter(|l| !l.starts_with("occupancy = "))
        .map(|l| format!("{l}\n"))
        .collect();
    std::fs::write(dir.join("Cargo.toml"), toml).unwrap();
    let before = sources(&dir);
    let (code, stdout, stderr) = report(&["--annotate", dir.to_str().unwrap()]);
    assert_eq!(code, 1, "{stdout}{stderr}");
    assert!(
        stdout.contains("annotated 0 launching functions:"),
        "{stdout}"
    );
    assert!(
        stdout.contains("  src/affine.rs:26  affine: the crate does not depend on `occupancy`"),
        "{stdout}"
    );
    assert_eq!(sources(&dir), before);
}

/// The SARIF log of `--all`: a result per finding of the launching functions, at the body's
/// expression the finding is about, marked not annotated; the 2 launches not checked are
/// notifications.
#[test]
fn report_all_sarif_has_a_result_per_finding() {
    let krate = fixture();
    let manifest = krate.join("kernels.manifest.json");
    let (code, stdout, stderr) = report(&[
        "--all",
        "--format",
        "sarif",
        krate.to_str().unwrap(),
        "--kernel-manifest",
        manifest.to_str().unwrap(),
    ]);
    assert_eq!(code, 1, "{stdout}{stderr}");
    let log: Value = serde_json::from_str(&stdout).unwrap();
    let results = log["runs"][0]["results"].as_array().unwrap();
    // 54 warnings and arg_sort's 3 launch_impossible.
    assert_eq!(results.len(), 57);
    assert!(
        results
            .iter()
            .all(|r| r["properties"]["annotated"] == false)
    );
    // affine's finding on sm_86 points at `LaunchConfig::for_num_elems(n as u32)`.
    let affine = &results[0];
    assert_eq!(affine["ruleId"], "low_occupancy");
    assert_eq!(
        affine["locations"][0]["physicalLocation"]["region"],
        serde_json::json!({"startLine": 16, "startColumn": 15, "endLine": 16, "endColumn": 52})
    );
    let notes = log["runs"][0]["invocations"][0]["toolExecutionNotifications"]
        .as_array()
        .unwrap();
    assert_eq!(notes.len(), 2);
}
