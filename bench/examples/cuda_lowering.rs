//! How much of a crate's CUDA C++ host code the C++ front end lowers to the reading core's
//! IR (issue 25, stage 3; `occupancy_cuda::lowering_census`): of the functions the reader
//! follows, how many are lowered whole, and what is left opaque, most frequent first.
//!
//! ```sh
//! cargo run --release -p occupancy-bench --example cuda_lowering -- <crate dir> <dir>... [--policy <occupancy.toml>]
//! ```

use std::path::PathBuf;

fn main() {
    let mut args = std::env::args().skip(1);
    let mut policy = occupancy_core::policy::Policy::default();
    let mut paths = Vec::new();
    while let Some(a) = args.next() {
        if a == "--policy" {
            let file = args.next().unwrap_or_default();
            let text = std::fs::read_to_string(&file).unwrap_or_else(|e| {
                eprintln!("{file}: {e}");
                std::process::exit(2)
            });
            policy = occupancy_core::policy::Policy::from_toml(&text).unwrap_or_else(|e| {
                eprintln!("{file}: {e:?}");
                std::process::exit(2)
            });
        } else {
            paths.push(PathBuf::from(a));
        }
    }
    let Some((crate_dir, dirs)) = paths.split_first() else {
        eprintln!("usage: cuda_lowering <crate dir> <dir>... [--policy <occupancy.toml>]");
        std::process::exit(2)
    };
    let census = occupancy_cuda::lowering_census(crate_dir, dirs, &policy);
    let percent = |a: usize, b: usize| 100.0 * a as f64 / b.max(1) as f64;
    let mut out = String::new();
    out += &format!(
        "{} functions followed, {} lowered whole ({:.1}%); <<<...>>> launches: {} lowered, {} inside what is not\n",
        census.functions,
        census.whole,
        percent(census.whole, census.functions),
        census.launches_lowered,
        census.launches_hidden,
    );
    for (what, count) in &census.not_lowered {
        out += &format!("{count:6}  {what}\n");
    }
    // A closed pipe (`| head`) ends the output, not the program with a panic.
    let _ = std::io::Write::write_all(&mut std::io::stdout(), out.as_bytes());
}
