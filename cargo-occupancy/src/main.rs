//! `cargo occupancy`: CUDA occupancy calculator, batch checker and linter CLI.

use clap::{Parser, Subcommand};

mod inspect;

/// CUDA theoretical occupancy, with no GPU and no CUDA toolkit.
#[derive(Parser)]
#[command(name = "cargo-occupancy", bin_name = "cargo occupancy", version)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Resource usage (registers, shared memory, spills, barriers, launch bounds) of compiled
    /// kernels: cubin, fatbin, ptxas -v log, PTX, or a folder of them.
    Inspect(inspect::InspectArgs),
}

fn main() {
    // `cargo occupancy ...` runs `cargo-occupancy occupancy ...`.
    let mut args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    if args.get(1).is_some_and(|a| a == "occupancy") {
        args.remove(1);
    }
    let cli = Cli::parse_from(args);
    let code = match cli.command {
        Command::Inspect(args) => inspect::run(&args),
    };
    std::process::exit(code);
}
