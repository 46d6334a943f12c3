//! `cargo occupancy`: CUDA theoretical occupancy from the command line.
//!
//! Installed as `cargo-occupancy`, it runs as a cargo subcommand (`cargo occupancy calc ...`)
//! or on its own (`cargo-occupancy calc ...`).

mod args;
mod batch;
mod calc;
mod inspect;
mod output;
mod plot;
mod profile;
mod report;
mod sweep;
mod targets;

use std::ffi::OsString;
use std::io::Write;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// CUDA theoretical occupancy, exactly as the driver computes it, with no GPU.
#[derive(Parser, Debug)]
#[command(name = "cargo-occupancy", bin_name = "cargo occupancy", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// One launch configuration: allocated resources, each resource's block limit, the
    /// limiter, resident blocks, active warps, occupancy; then every lint's findings.
    ///
    /// Exit status, as for `report`: 0 without a deny-level finding; 1 with one (the launch
    /// cannot run: `launch_impossible`); 2 when calc cannot run (bad arguments).
    Calc(calc::CalcArgs),
    /// Many configurations: TSV with a header on stdin, answers appended as TSV on stdout.
    Batch,
    /// Resource usage (registers, shared memory, spills, barriers, launch bounds) of compiled
    /// kernels: cubin, fatbin, ptxas -v log, PTX (assembled by ptxas for each --arch), or a
    /// folder of them.
    Inspect(inspect::InspectArgs),
    /// Occupancy as threads per block, registers per thread or shared memory per block
    /// vary: the three graphs of NVIDIA's calculator as a table, JSON or SVG.
    Sweep(sweep::SweepArgs),
    /// Every `#[occupancy::check]` of a crate on each of its targets: block, dynamic shared
    /// memory, occupancy, limiter and findings as a table (each finding on every target it
    /// concerns; `--findings-only` for those rows alone), JSON or SARIF 2.1.0 (`--format`);
    /// exits 1 on a deny-level finding (for CI).
    ///
    /// It reads the source text of src/, examples/, benches/ and tests/ and does not
    /// evaluate `cfg`: a wrapper inside `#[cfg_attr(predicate, occupancy::check(...))]`, or
    /// under an item or module with `#[cfg(...)]` (`#[cfg(feature = "x")] mod m;` included),
    /// is checked as if the predicate held and marked conditional (a `^ conditional, under
    /// ...` line; `conditional` in the JSON).
    ///
    /// `--all`: every kernel launch of the crate's Rust code, annotated or not, each
    /// launching function read as the attribute would read it (the kernel named from the
    /// code), marked `[not annotated]`; `--annotate` then writes `#[occupancy::check(...)]`
    /// where the build gives the same findings.
    ///
    /// Exit status: 0 when no wrapper has a deny-level finding or an error; 1 when one has,
    /// conditional wrappers included, or a file does not parse; 2 when the report cannot run
    /// (no crate there, a policy file that cannot be read or has problems: each said once).
    Report(report::ReportArgs),
    /// Theoretical occupancy beside what Nsight Compute measured, per launch: the engine's
    /// and ncu's block limits, achieved occupancy, waves, the grid's ceiling and the gap.
    ///
    /// `--import FILE.csv`: an ncu CSV export (`ncu --section LaunchStats --section Occupancy
    /// --csv ./app`, or `ncu --import report.ncu-rep --csv`; `.gz` too). `-- <command>`: runs
    /// the command under ncu (when it is on the PATH). Exit status: 0 when the engine agrees
    /// with ncu on every launch, 1 when not, 2 when it cannot run.
    Profile(profile::ProfileArgs),
    /// Every target accepted by `--arch`, the attribute's `target` and the policy's
    /// `targets`: compute capabilities and GPU names, with SM counts and other spellings.
    Targets,
}

fn main() -> ExitCode {
    let mut argv: Vec<OsString> = std::env::args_os().collect();
    // `cargo occupancy ...` runs `cargo-occupancy occupancy ...`.
    if argv.get(1).is_some_and(|a| a == "occupancy") {
        argv.remove(1);
    }
    let cli = Cli::parse_from(argv);
    let result = match cli.command {
        // inspect prints its own errors, one per input.
        Command::Inspect(a) => return inspect::run(&a),
        Command::Report(a) => return report::run(&a),
        Command::Profile(a) => return profile::run(&a),
        Command::Calc(a) => {
            return match calc::run(&a) {
                Ok(calc) => {
                    if let Err(code) = output::print(&calc.text) {
                        return code;
                    }
                    if calc.denied {
                        ExitCode::FAILURE
                    } else {
                        ExitCode::SUCCESS
                    }
                }
                Err(message) => {
                    let _ = writeln!(std::io::stderr(), "error: {message}");
                    ExitCode::from(2)
                }
            };
        }
        Command::Targets => {
            return output::print(&targets::text()).map_or_else(|c| c, |()| ExitCode::SUCCESS);
        }
        Command::Sweep(a) => match sweep::run(&a) {
            Ok(text) => return output::print(&text).map_or_else(|c| c, |()| ExitCode::SUCCESS),
            Err(message) => Err(message),
        },
        Command::Batch => {
            // Buffers of 64 KiB each way: the rows are short and many.
            let stdin = std::io::BufReader::with_capacity(1 << 16, std::io::stdin().lock());
            let stdout = std::io::BufWriter::with_capacity(1 << 16, std::io::stdout().lock());
            batch::run(stdin, stdout).map(|errors| {
                if errors > 0 {
                    let _ = writeln!(std::io::stderr(), "batch: {errors} row(s) with an error");
                }
            })
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            let _ = writeln!(std::io::stderr(), "error: {message}");
            ExitCode::FAILURE
        }
    }
}
