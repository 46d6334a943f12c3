//! `cargo occupancy targets`: every target the attribute, the policy and the CLI accept,
//! with the spellings each takes.

use std::fmt::Write as _;

use occupancy_core::arch::{ARCHS, GPUS};

/// The table: each compute capability (`sm_XX`), then each named GPU with its compute
/// capability, SM count and other accepted names.
pub fn text() -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "Compute capabilities (also written as 9.0, 90 or sm_90a):"
    );
    let sms: Vec<String> = ARCHS
        .iter()
        .map(|arch| format!("{} ({})", arch.sm, arch.cc))
        .collect();
    for line in sms.chunks(6) {
        let _ = writeln!(s, "  {}", line.join(", "));
    }
    let _ = writeln!(
        s,
        "\nGPUs (case, spaces, dashes and the words NVIDIA, GeForce, Tesla, Quadro ignored):"
    );
    let width = GPUS.iter().map(|g| g.name.len()).max().unwrap_or(0);
    let _ = writeln!(s, "  {:width$}  cc    SMs  also", "name");
    for gpu in GPUS {
        let line = format!(
            "  {:width$}  {:<4}  {:>3}  {}",
            gpu.name,
            gpu.arch.cc.to_string(),
            gpu.sm_count,
            gpu.aliases.join(", ")
        );
        let _ = writeln!(s, "{}", line.trim_end());
    }
    let _ = writeln!(
        s,
        "\n{} compute capabilities, {} GPUs; a GPU name also gives the SM count for the grid lints",
        ARCHS.len(),
        GPUS.len()
    );
    s
}
