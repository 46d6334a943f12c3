//! `cargo occupancy calc`: one configuration, shown like NVIDIA's occupancy calculator.

use std::fmt::Write as _;

use clap::Args;
use occupancy_core::analysis;
use occupancy_core::arch::Target;
use occupancy_core::cluster::{Cluster, Topology, max_active_clusters};
use occupancy_core::lint::{Finding, KernelClass, LaunchSpec, LintLevels, MinOccupancy, check};
use occupancy_core::occupancy::{
    BlockDim, Carveout, Kernel, Launch, Occupancy, Resource, UNLIMITED, occupancy,
};
use serde_json::json;

use crate::args;

/// The configuration `calc` and `sweep` share: target, kernel and launch.
#[derive(Args, Debug)]
pub struct ConfigArgs {
    /// Target: compute capability (sm_90, 9.0, 90) or GPU name (H100, "RTX 4090").
    #[arg(long, value_parser = args::target)]
    pub arch: Target,
    /// Threads per block: 256, 16x16 or 8x8x4.
    #[arg(long, value_parser = args::block)]
    pub block: BlockDim,
    /// Registers per thread.
    #[arg(long)]
    pub regs: u32,
    /// Static shared memory per block (bytes, or with a KiB suffix).
    #[arg(long, default_value = "0", value_parser = args::bytes)]
    pub static_smem: u32,
    /// Dynamic shared memory per block (bytes, or with a KiB suffix).
    #[arg(long, default_value = "0", value_parser = args::bytes)]
    pub smem: u32,
    /// The function's dynamic shared memory opt-in (MAX_DYNAMIC_SHARED_SIZE_BYTES), bytes.
    #[arg(long, value_parser = args::bytes)]
    pub opt_in: Option<u32>,
    /// Preferred carveout: default, -1 or 0..100 (percent).
    #[arg(long, default_value = "default", value_parser = args::carveout)]
    pub carveout: Carveout,
    /// Block barriers per block (1 = only __syncthreads).
    #[arg(long, default_value_t = 1)]
    pub barriers: u32,
    /// The kernel's max threads per block (__launch_bounds__).
    #[arg(long)]
    pub max_threads: Option<u32>,
    /// Print JSON instead of a table.
    #[arg(long)]
    pub json: bool,
}

/// Arguments of `calc`: the configuration, and what the lints need beyond it.
#[derive(Args, Debug)]
pub struct CalcArgs {
    /// The configuration.
    #[command(flatten)]
    pub config: ConfigArgs,
    /// Blocks in the grid (a count, `XxY` or `XxYxZ`), for waves, tail_effect and undersized_grid
    /// on a named GPU.
    #[arg(long, value_parser = args::grid)]
    pub grid: Option<u64>,
    /// Blocks per thread-block cluster (cc 9.0+; above 8 needs the non-portable attribute,
    /// assumed set).
    #[arg(long)]
    pub cluster: Option<u32>,
    /// The low_occupancy floor: 50%, 0.5 (default: the class's floor, else 50%).
    #[arg(long, value_parser = args::floor)]
    pub min_occupancy: Option<MinOccupancy>,
    /// Kernel class, which sets the default floor: memory_bound, balanced, compute_bound.
    #[arg(long, value_parser = args::class)]
    pub class: Option<KernelClass>,
}

impl ConfigArgs {
    /// The kernel these arguments describe.
    pub(crate) fn kernel(&self) -> Kernel {
        Kernel {
            registers_per_thread: self.regs,
            static_smem_bytes: self.static_smem,
            barriers: self.barriers,
            max_threads_per_block: self.max_threads,
            max_dynamic_smem_bytes: self.opt_in,
            carveout: self.carveout,
        }
    }
}

/// Runs `calc`: the text to print, or an error message.
pub fn run(c: &CalcArgs) -> Result<String, String> {
    let a = &c.config;
    let kernel = a.kernel();
    let launch = Launch::new(a.block).with_dynamic_smem(a.smem);
    let occ = occupancy(a.arch.arch, &kernel, &launch).map_err(|e| e.to_string())?;
    let targets = [a.arch];
    let (min_occupancy, class) = match (c.min_occupancy, c.class) {
        (Some(floor), _) => (floor, None),
        (None, Some(class)) => (class.default_floor(), Some(class)),
        (None, None) => (MinOccupancy::DEFAULT, None),
    };
    let spec = LaunchSpec {
        min_occupancy,
        class,
        grid_blocks: c.grid,
        cluster: c.cluster.map(|n| Cluster::linear(n).allow_non_portable()),
        ..LaunchSpec::new("launch", &targets, kernel, launch)
    };
    let findings = check(&spec);
    let suggestions = suggestions(c, &kernel, &launch, &occ);
    if a.json {
        return Ok(to_json(a, &occ, &findings, &suggestions));
    }
    let mut out = table(a, &occ, a.arch.sm_count());
    let _ = writeln!(out);
    let _ = writeln!(
        out,
        "Findings (floor {min_occupancy}{})",
        class.map_or(String::new(), |c| format!(", {c}"))
    );
    if findings.is_empty() {
        let _ = writeln!(out, "  none");
    }
    for f in &findings {
        let level = LintLevels::default().get(f.lint);
        let _ = writeln!(
            out,
            "  {level}[{}]: {}",
            f.lint.name,
            f.message
                .trim_start_matches("launch on ")
                .trim_start_matches("launch: ")
        );
        for note in &f.notes {
            let _ = writeln!(out, "      = note: {note}");
        }
        for help in &f.helps {
            let _ = writeln!(out, "      = help: {help}");
        }
    }
    let _ = writeln!(out);
    let _ = writeln!(out, "Suggestions");
    for (what, text) in &suggestions {
        let _ = writeln!(out, "  {what:<34}{text}");
    }
    Ok(out)
}

/// Suggestions beyond the findings, as (label, text) rows: the block sizes with the best
/// occupancy, the register budget, the shared memory free to add, waves and clusters.
fn suggestions(
    c: &CalcArgs,
    kernel: &Kernel,
    launch: &Launch,
    occ: &Occupancy,
) -> Vec<(String, String)> {
    let a = &c.config;
    let arch = a.arch.arch;
    let mut rows = Vec::new();
    let blocks = |o: &Occupancy| format!("{} blocks/SM, {:.1}%", o.blocks_per_sm, o.percent());
    if let Ok(best) = analysis::best_block_sizes(arch, kernel, |_| launch.dynamic_smem_bytes)
        && !best.is_empty()
    {
        let sizes: Vec<String> = best
            .iter()
            .take(4)
            .map(|c| format!("{} ({})", c.value, blocks(&c.occupancy)))
            .collect();
        rows.push(("best block sizes".to_owned(), sizes.join(", ")));
    }
    if let Ok(budget) = analysis::register_budget(arch, kernel, launch)
        && !budget.is_empty()
    {
        let levels: Vec<String> = budget
            .iter()
            .take(5)
            .map(|l| {
                format!(
                    "<= {}: {}",
                    l.max_registers_per_thread,
                    blocks(&l.occupancy)
                )
            })
            .collect();
        rows.push((
            format!("register budget ({} threads)", occ.threads_per_block),
            levels.join("; "),
        ));
    }
    if occ.blocks_per_sm > 0
        && let Ok(free) = analysis::free_dynamic_smem(arch, kernel, launch)
    {
        rows.push((
            "dynamic smem free to add".to_owned(),
            format!("{free} B per block keep {} blocks/SM", occ.blocks_per_sm),
        ));
    }
    if let (Some(grid), Some(sms)) = (c.grid, a.arch.sm_count())
        && let Some(w) = analysis::waves(occ, sms, grid)
    {
        rows.push((
            "waves".to_owned(),
            format!(
                "{:.2} ({} blocks at a time; last wave {} blocks, {:.1}% of its slots idle)",
                w.waves(),
                w.blocks_per_wave,
                if w.tail_blocks == 0 {
                    w.blocks_per_wave
                } else {
                    w.tail_blocks
                },
                w.tail_idle() * 100.0
            ),
        ));
    }
    if let (Some(n), Some(topology)) = (c.cluster, Topology::of_target(&a.arch))
        && let Ok(r) = max_active_clusters(
            arch,
            &topology,
            kernel,
            launch,
            &Cluster::linear(n).allow_non_portable(),
        )
    {
        rows.push((
            format!("clusters of {n} at a time"),
            format!(
                "{} ({} blocks/SM for cluster launches)",
                r.max_active_clusters, r.blocks_per_sm
            ),
        ));
    }
    rows
}

fn limit_text(v: u32) -> String {
    if v == UNLIMITED {
        "unlimited".into()
    } else {
        v.to_string()
    }
}

fn table(a: &ConfigArgs, occ: &Occupancy, sm_count: Option<u32>) -> String {
    let arch = a.arch.arch;
    let mut out = String::new();
    let gpu = match a.arch.gpu {
        Some(g) => format!("{} ({} SMs), ", g.name, g.sm_count),
        None => String::new(),
    };
    let _ = writeln!(
        out,
        "Occupancy of {}-thread blocks ({}) on {gpu}{} {} (cc {})",
        occ.threads_per_block, a.block, arch.sm, arch.family, arch.cc
    );
    let _ = writeln!(out);
    let _ = writeln!(out, "Inputs");
    let row = |out: &mut String, k: &str, v: String| {
        let _ = writeln!(out, "  {k:<34}{v}");
    };
    row(
        &mut out,
        "threads per block",
        format!("{} ({} warps)", occ.threads_per_block, occ.warps_per_block),
    );
    row(&mut out, "registers per thread", a.regs.to_string());
    row(
        &mut out,
        "static shared memory per block",
        format!("{} B", a.static_smem),
    );
    row(
        &mut out,
        "dynamic shared memory per block",
        format!("{} B", a.smem),
    );
    row(
        &mut out,
        "dynamic shared memory opt-in",
        match a.opt_in {
            Some(b) => format!("{b} B"),
            None => format!(
                "not set ({} B per block, static included)",
                arch.smem_per_block_default_bytes
            ),
        },
    );
    row(
        &mut out,
        "carveout preference",
        match a.carveout {
            Carveout::Default => "default".into(),
            Carveout::Percent(p) => format!("{p}%"),
        },
    );
    row(&mut out, "barriers per block", a.barriers.to_string());
    if let Some(t) = a.max_threads {
        row(&mut out, "launch bounds (max threads)", t.to_string());
    }
    let _ = writeln!(out);
    let _ = writeln!(out, "Allocated");
    row(
        &mut out,
        "registers per warp",
        format!(
            "{} ({} x 32 rounded up to {})",
            occ.registers_per_warp, a.regs, arch.reg_alloc_unit_per_warp
        ),
    );
    row(
        &mut out,
        "registers per block",
        occ.registers_per_block.to_string(),
    );
    row(
        &mut out,
        "shared memory per block",
        format!(
            "{} B ({} static + {} dynamic + {} reserved, rounded to {})",
            occ.smem_per_block_bytes,
            a.static_smem,
            a.smem,
            arch.reserved_smem_per_block_bytes,
            arch.smem_alloc_granularity_bytes
        ),
    );
    row(
        &mut out,
        "shared memory per SM (carveout)",
        format!(
            "{} B ({} KiB)",
            occ.smem_per_sm_bytes,
            occ.smem_per_sm_bytes / 1024
        ),
    );
    let _ = writeln!(out);
    let _ = writeln!(out, "Resident blocks per SM allowed by");
    for r in Resource::ALL {
        let v = occ.limits.get(r);
        if r == Resource::Barriers && arch.barriers_per_sm == 0 {
            continue;
        }
        let mark = if occ.limiters.contains(r) {
            "  <- limiter"
        } else {
            ""
        };
        row(&mut out, &r.to_string(), format!("{}{mark}", limit_text(v)));
    }
    let _ = writeln!(out);
    let _ = writeln!(out, "Result");
    row(
        &mut out,
        "resident blocks per SM",
        occ.blocks_per_sm.to_string(),
    );
    row(
        &mut out,
        "active warps per SM",
        format!("{} of {}", occ.active_warps_per_sm(), occ.max_warps_per_sm),
    );
    row(
        &mut out,
        "theoretical occupancy",
        format!("{:.1}%", occ.percent()),
    );
    if let Some(sms) = sm_count {
        row(
            &mut out,
            "blocks to fill the GPU once",
            format!("{} ({} SMs)", occ.blocks_per_sm * sms, sms),
        );
    }
    if let Some(reason) = occ.zero_reason {
        row(&mut out, "launch fails", reason.to_string());
    }
    out
}

fn to_json(
    a: &ConfigArgs,
    occ: &Occupancy,
    findings: &[Finding],
    suggestions: &[(String, String)],
) -> String {
    let limit = |v: u32| {
        if v == UNLIMITED {
            serde_json::Value::Null
        } else {
            json!(v)
        }
    };
    let value = json!({
        "target": a.arch.to_string(),
        "arch": a.arch.arch.sm,
        "compute_capability": a.arch.arch.cc.to_string(),
        "sm_count": a.arch.sm_count(),
        "inputs": {
            "block": [a.block.x, a.block.y, a.block.z],
            "threads_per_block": occ.threads_per_block,
            "registers_per_thread": a.regs,
            "static_smem": a.static_smem,
            "dynamic_smem": a.smem,
            "max_dynamic_smem": a.opt_in,
            "carveout": a.carveout.to_attribute(),
            "barriers": a.barriers,
            "max_threads_per_block": a.max_threads,
        },
        "allocated": {
            "registers_per_warp": occ.registers_per_warp,
            "registers_per_block": occ.registers_per_block,
            "smem_per_block": occ.smem_per_block_bytes,
            "smem_per_sm": occ.smem_per_sm_bytes,
        },
        "limits": {
            "warps": limit(occ.limits.warps),
            "registers": limit(occ.limits.registers),
            "shared_memory": limit(occ.limits.shared_memory),
            "blocks": limit(occ.limits.blocks),
            "barriers": limit(occ.limits.barriers),
        },
        "limiters": occ.limiters.iter().map(Resource::name).collect::<Vec<_>>(),
        "blocks_per_sm": occ.blocks_per_sm,
        "warps_per_block": occ.warps_per_block,
        "active_warps_per_sm": occ.active_warps_per_sm(),
        "max_warps_per_sm": occ.max_warps_per_sm,
        "occupancy": occ.fraction(),
        "launch_error": occ.zero_reason.map(|r| r.to_string()),
        "min_grid_size": a.arch.sm_count().map(|sms| occ.blocks_per_sm * sms),
        "findings": findings.iter().map(|f| json!({
            "lint": f.lint.name,
            "level": LintLevels::default().get(f.lint).name(),
            "message": f.message,
            "notes": f.notes,
            "helps": f.helps,
        })).collect::<Vec<_>>(),
        "suggestions": suggestions.iter().map(|(k, v)| json!({"what": k, "text": v})).collect::<Vec<_>>(),
    });
    let mut s = serde_json::to_string_pretty(&value).unwrap_or_default();
    s.push('\n');
    s
}
