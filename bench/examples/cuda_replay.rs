//! Replays inputs of the `cuda` fuzz target (`fuzz/src/cuda.rs`, included by path: the
//! same body the fuzzer runs) outside libFuzzer, timed, for profiling the CUDA C++ reader:
//!
//! ```sh
//! cargo build --release -p occupancy-bench --example cuda_replay
//! target/release/examples/cuda_replay fuzz/corpus/cuda                # exec/s, slowest inputs
//! target/release/examples/cuda_replay --repeat 5 fuzz/seeds/cuda tests/fixtures/cuda-crate/src/cuda
//! target/release/examples/cuda_replay --digest fuzz/corpus/cuda > a.txt  # what each input gives
//! valgrind --tool=callgrind target/release/examples/cuda_replay fuzz/corpus/cuda
//! ```
//!
//! `--digest` prints, per input, everything read and checked (launches, paths, notes, each
//! path's findings or why it is not checked), for comparing two versions of the reader;
//! `--times` each input's time per execution (ms).

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

#[path = "../../fuzz/src/cuda.rs"]
mod cuda;

use occupancy_cuda::Outcome;

fn inputs(path: &Path, out: &mut Vec<PathBuf>) {
    if path.is_dir() {
        let mut entries: Vec<PathBuf> = std::fs::read_dir(path)
            .map(|d| d.flatten().map(|e| e.path()).collect())
            .unwrap_or_default();
        entries.sort();
        for e in entries {
            inputs(&e, out);
        }
    } else if path.is_file() {
        out.push(path.to_path_buf());
    }
}

fn main() {
    let mut repeat = 1u32;
    let mut digest = false;
    let mut list = false;
    let mut files = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--repeat" => repeat = args.next().and_then(|n| n.parse().ok()).unwrap_or(1),
            "--digest" => digest = true,
            "--times" => list = true,
            _ => inputs(Path::new(&a), &mut files),
        }
    }
    let mut times: Vec<(Duration, &Path)> = Vec::new();
    let mut total = Duration::ZERO;
    for file in &files {
        let data = std::fs::read(file).unwrap_or_default();
        let start = Instant::now();
        for i in 0..repeat {
            let out = cuda::run(&data);
            if digest && i == 0 {
                print_digest(file, &out);
            }
        }
        let t = start.elapsed();
        if list {
            println!("{:.3} {}", (t / repeat).as_secs_f64() * 1e3, file.display());
        }
        total += t;
        times.push((t / repeat, file));
    }
    if files.is_empty() {
        eprintln!("usage: cuda_replay [--repeat N] [--digest] [--times] FILE_OR_DIR...");
        std::process::exit(2);
    }
    times.sort_by_key(|t| std::cmp::Reverse(t.0));
    let runs = files.len() as f64 * f64::from(repeat);
    eprintln!(
        "{} inputs x {repeat}: {:.3} s, {:.0} executions/s, median {:.3} ms, slowest {:.1} ms",
        files.len(),
        total.as_secs_f64(),
        runs / total.as_secs_f64(),
        times[times.len() / 2].0.as_secs_f64() * 1e3,
        times[0].0.as_secs_f64() * 1e3,
    );
    for (t, f) in times.iter().take(5) {
        eprintln!("  {:8.2} ms  {}", t.as_secs_f64() * 1e3, f.display());
    }
}

fn print_digest(
    file: &Path,
    (reading, checked): &(occupancy_cuda::Reading, Vec<occupancy_cuda::CheckedLaunch>),
) {
    println!("== {}", file.display());
    println!("{reading:?}");
    for c in checked {
        println!("-- {}", c.launch.location());
        for p in &c.paths {
            println!("  {}", p.path.summary());
            match &p.outcome {
                Outcome::Checked(spec, evaluation) => {
                    for d in &evaluation.diagnostics {
                        println!("    {:?}: {}", spec.level(d.finding.lint), d.finding);
                    }
                }
                Outcome::NotChecked(why) => println!("    not checked: {why}"),
            }
            for n in &p.notes {
                println!("    note: {n}");
            }
        }
    }
}
