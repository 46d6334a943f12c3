//! How much of a crate's CUDA C++ host code the C++ front end lowers to the reading core's
//! IR (issue 25, stage 3; `occupancy_cuda::lowering_census`): of the functions the reader
//! follows, how many are lowered whole, and what is left opaque, most frequent first.
//!
//! ```sh
//! cargo run --release -p occupancy-bench --example cuda_lowering -- <crate dir> <dir>... [--policy <occupancy.toml>]
//! cargo run --release -p occupancy-bench --example cuda_lowering -- --each fuzz/seeds/cuda  # each file a unit
//! ```
//!
//! `--each`: every file under the folders given is a translation unit of its own (`a.cu`),
//! as the `cuda` fuzz target reads an input: the census of them all, and the slowest.

use std::path::PathBuf;

fn main() {
    let mut args = std::env::args().skip(1);
    let mut policy = occupancy_core::policy::Policy::default();
    let mut paths = Vec::new();
    let mut each = false;
    while let Some(a) = args.next() {
        if a == "--each" {
            each = true;
        } else if a == "--policy" {
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
    let census = if each {
        each_file(&paths, &policy)
    } else {
        let Some((crate_dir, dirs)) = paths.split_first() else {
            eprintln!("usage: cuda_lowering <crate dir> <dir>... [--policy <occupancy.toml>]");
            eprintln!("       cuda_lowering --each <dir or file>... [--policy <occupancy.toml>]");
            std::process::exit(2)
        };
        occupancy_cuda::lowering_census(crate_dir, dirs, &policy)
    };
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
    let side = &census.side_by_side;
    out += &format!(
        "the core on the lowered roots, against the interpreter: {} sites, {} the same, {} different, {} not recorded by the core\n",
        side.sites,
        side.same,
        side.different.len(),
        side.not_recorded.len()
    );
    for d in &side.different {
        out += &format!("  different: {d}\n");
    }
    out += &format!(
        "kernels: {} of the sites both record with the same instantiations, {} different\n",
        side.same_kernels,
        side.different_kernels.len()
    );
    for d in &side.different_kernels {
        out += &format!("  different kernels: {d}\n");
    }
    out += &format!(
        "launch paths as the check takes them: {} of the sites both record the same, {} different\n",
        side.same_paths,
        side.different_paths.len()
    );
    for d in &side.different_paths {
        out += &format!("  different paths: {d}\n");
    }
    out += &format!(
        "sites as the check lists them (form, kernel as written, function, why not checked): {} of the interpreter's {} the same\n",
        side.same_sites, side.sites_listed
    );
    for d in &side.different_sites {
        out += &format!("  different site: {d}\n");
    }
    out += &format!(
        "notes: {} of the interpreter's {} the same\n",
        side.same_notes, side.notes_given
    );
    for d in &side.different_notes {
        out += &format!("  different note: {d}\n");
    }
    for d in &side.not_recorded {
        out += &format!("  not recorded: {d}\n");
    }
    for (what, count) in &census.not_lowered {
        out += &format!("{count:6}  {what}\n");
    }
    // A closed pipe (`| head`) ends the output, not the program with a panic.
    let _ = std::io::Write::write_all(&mut std::io::stdout(), out.as_bytes());
}

/// The census of every file under `paths`, each read as a unit of its own.
fn each_file(
    paths: &[PathBuf],
    policy: &occupancy_core::policy::Policy,
) -> occupancy_cuda::LoweringCensus {
    let mut files = Vec::new();
    let mut stack: Vec<PathBuf> = paths.to_vec();
    while let Some(p) = stack.pop() {
        if p.is_dir() {
            stack.extend(
                std::fs::read_dir(&p)
                    .into_iter()
                    .flatten()
                    .flatten()
                    .map(|e| e.path()),
            );
        } else if p.is_file() {
            files.push(p);
        }
    }
    files.sort();
    let mut all = occupancy_cuda::LoweringCensus::default();
    let mut counts = std::collections::BTreeMap::new();
    let mut slowest = (std::time::Duration::ZERO, PathBuf::new());
    for file in &files {
        let text = String::from_utf8_lossy(&std::fs::read(file).unwrap_or_default()).into_owned();
        let start = std::time::Instant::now();
        let census = occupancy_cuda::lowering_census_texts(&[("a.cu", &text)], policy);
        let took = start.elapsed();
        if took > slowest.0 {
            slowest = (took, file.clone());
        }
        all.functions += census.functions;
        all.whole += census.whole;
        all.launches_lowered += census.launches_lowered;
        all.launches_hidden += census.launches_hidden;
        all.side_by_side.sites += census.side_by_side.sites;
        all.side_by_side.same += census.side_by_side.same;
        all.side_by_side.same_kernels += census.side_by_side.same_kernels;
        all.side_by_side.same_paths += census.side_by_side.same_paths;
        all.side_by_side.sites_listed += census.side_by_side.sites_listed;
        all.side_by_side.same_sites += census.side_by_side.same_sites;
        all.side_by_side.notes_given += census.side_by_side.notes_given;
        all.side_by_side.same_notes += census.side_by_side.same_notes;
        all.side_by_side.different_sites.extend(
            census
                .side_by_side
                .different_sites
                .into_iter()
                .map(|d| format!("{}: {d}", file.display())),
        );
        all.side_by_side.different_paths.extend(
            census
                .side_by_side
                .different_paths
                .into_iter()
                .map(|d| format!("{}: {d}", file.display())),
        );
        all.side_by_side.different_kernels.extend(
            census
                .side_by_side
                .different_kernels
                .into_iter()
                .map(|d| format!("{}: {d}", file.display())),
        );
        all.side_by_side.not_recorded.extend(
            census
                .side_by_side
                .not_recorded
                .into_iter()
                .map(|d| format!("{}: {d}", file.display())),
        );
        all.side_by_side.different.extend(
            census
                .side_by_side
                .different
                .into_iter()
                .map(|d| format!("{}: {d}", file.display())),
        );
        for (what, n) in census.not_lowered {
            *counts.entry(what).or_insert(0) += n;
        }
    }
    all.not_lowered = counts.into_iter().collect();
    all.not_lowered.sort_by_key(|e| std::cmp::Reverse(e.1));
    eprintln!(
        "{} files; the slowest {:.3} s: {}",
        files.len(),
        slowest.0.as_secs_f64(),
        slowest.1.display()
    );
    all
}
