//! `cargo occupancy calc`: one configuration, shown like NVIDIA's occupancy calculator.

use std::fmt::Write as _;

use clap::Args;
use occupancy_core::arch::Target;
use occupancy_core::occupancy::{
    BlockDim, Carveout, Kernel, Launch, Occupancy, Resource, UNLIMITED, max_potential_block_size,
    occupancy,
};
use serde_json::json;

use crate::args;

/// Arguments of `calc`.
#[derive(Args, Debug)]
pub struct CalcArgs {
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

impl CalcArgs {
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
pub fn run(a: &CalcArgs) -> Result<String, String> {
    let kernel = a.kernel();
    let launch = Launch::new(a.block).with_dynamic_smem(a.smem);
    let occ = occupancy(a.arch.arch, &kernel, &launch).map_err(|e| e.to_string())?;
    let potential = a
        .arch
        .sm_count()
        .map(|sms| max_potential_block_size(a.arch.arch, &kernel, sms, |_| a.smem))
        .transpose()
        .map_err(|e| e.to_string())?;
    if a.json {
        return Ok(to_json(a, &occ, potential.map(|p| p.min_grid_size)));
    }
    Ok(table(a, &occ, a.arch.sm_count()))
}

fn limit_text(v: u32) -> String {
    if v == UNLIMITED {
        "unlimited".into()
    } else {
        v.to_string()
    }
}

fn table(a: &CalcArgs, occ: &Occupancy, sm_count: Option<u32>) -> String {
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

fn to_json(a: &CalcArgs, occ: &Occupancy, min_grid_size: Option<u32>) -> String {
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
        "min_grid_size": min_grid_size,
    });
    let mut s = serde_json::to_string_pretty(&value).unwrap_or_default();
    s.push('\n');
    s
}
