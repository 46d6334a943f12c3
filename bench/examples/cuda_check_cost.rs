//! What the CUDA C++ check adds to a crate's build script: `CudaLaunches::try_check` (read
//! the `.cu` files and the headers they include, read the objects' cubins, check every
//! launch path, render the findings) timed on a crate whose objects nvcc already built:
//!
//! ```sh
//! cargo build --release -p occupancy-bench --example cuda_check_cost
//! target/release/examples/cuda_check_cost CRATE_DIR SOURCES_DIR OBJECT... [--repeat N]
//! ```
//!
//! For the CUDA C++ test crate, with the static library its build script made
//! (`OCCUPANCY_REQUIRE_NVCC=1 cargo test --release --test cuda_crate` leaves it under the
//! target directory's `cuda-crate-*/` builds; `find target -name libcuda_kernels.a`):
//!
//! ```sh
//! target/release/examples/cuda_check_cost tests/fixtures/cuda-crate src/cuda \
//!     $(find target -name libcuda_kernels.a | head -1) --repeat 20
//! ```
//!
//! Prints the fastest and the median of the runs, in all and per `.cu` file (the headers
//! each includes are read with it).

use std::path::PathBuf;
use std::time::Duration;

fn main() {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let mut repeat = 10usize;
    if let Some(i) = args.iter().position(|a| a == "--repeat") {
        repeat = args
            .get(i + 1)
            .and_then(|n| n.parse().ok())
            .filter(|&n| n > 0)
            .unwrap_or_else(|| usage());
        args.drain(i..i + 2);
    }
    if args.len() < 3 {
        usage();
    }
    let crate_dir = PathBuf::from(&args[0]);
    let out_dir = std::env::temp_dir().join(format!("cuda-check-cost-{}", std::process::id()));
    let launches = occupancy_cuda::CudaLaunches::new(&args[1])
        .crate_dir(&crate_dir)
        .objects(&args[2..])
        .out_dir(&out_dir);
    let mut times: Vec<Duration> = Vec::new();
    let mut summary = String::new();
    let mut cu_files = 1u32;
    for _ in 0..repeat {
        let report = launches.try_check().unwrap_or_else(|e| {
            eprintln!("error: {e}");
            std::process::exit(1);
        });
        times.push(report.elapsed);
        let cu = report
            .reading
            .files
            .iter()
            .filter(|f| f.ends_with(".cu"))
            .count();
        cu_files = u32::try_from(cu).unwrap_or(u32::MAX).max(1);
        let paths: usize = report.checked.iter().map(|c| c.paths.len()).sum();
        summary = format!(
            "{} files ({cu} .cu), {} launch sites, {paths} paths, {} cargo lines",
            report.reading.files.len(),
            report.reading.launches.len(),
            report.cargo_lines.len()
        );
    }
    let _ = std::fs::remove_dir_all(&out_dir);
    times.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    let (fastest, median) = (ms(times[0]), ms(times[times.len() / 2]));
    let per = f64::from(cu_files);
    println!("{summary}");
    println!(
        "try_check, {repeat} runs: fastest {fastest:.2} ms, median {median:.2} ms; per .cu file {:.2} / {:.2} ms",
        fastest / per,
        median / per
    );
}

fn usage() -> ! {
    eprintln!("usage: cuda_check_cost CRATE_DIR SOURCES_DIR OBJECT... [--repeat N]");
    std::process::exit(2);
}
