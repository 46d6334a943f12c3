//! `cargo occupancy calc`: one configuration, shown like NVIDIA's occupancy calculator.

use std::fmt::Write as _;

use clap::Args;
use occupancy_core::analysis;
use occupancy_core::analysis::LaunchWaves;
use occupancy_core::arch::Target;
use occupancy_core::cluster::{Cluster, ClusterDim, Topology, max_active_clusters};
use occupancy_core::lint::{
    ArtifactFacts, Finding, KernelClass, LaunchSpec, Level, LintLevels, MinOccupancy, TAIL_EFFECT,
    Thresholds, check, percent,
};
use occupancy_core::occupancy::{
    BlockDim, Carveout, GridDim, Kernel, Launch, Occupancy, Resource, UNLIMITED, occupancy,
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
    /// Registers per thread, as ptxas allocated them (`cargo occupancy inspect` shows a
    /// kernel's). A thread has at most 255; up to 65536 (an SM's register file) are taken,
    /// to show why a launch with more cannot run. Without it, calc shows what the other
    /// resources allow and the register budget: the most registers per thread for each
    /// occupancy. sweep needs it.
    #[arg(long, value_parser = clap::value_parser!(u32).range(0..=65536))]
    pub regs: Option<u32>,
    /// Static shared memory per block: bytes (`4096`, `4096B`) or KiB (`8KiB`, `8K`: 1024
    /// bytes each). `8KB` is refused as ambiguous (1000 or 1024 bytes).
    #[arg(long, default_value = "0", value_parser = args::bytes)]
    pub static_smem: u32,
    /// Dynamic shared memory per block, as --static-smem: `4096`, `48KiB`.
    #[arg(long, default_value = "0", value_parser = args::bytes)]
    pub smem: u32,
    /// The function's dynamic shared memory opt-in (MAX_DYNAMIC_SHARED_SIZE_BYTES), as
    /// --static-smem: `65536`, `100KiB`.
    #[arg(long, value_parser = args::bytes)]
    pub opt_in: Option<u32>,
    /// Preferred carveout: default, -1 or 0..100 (percent).
    #[arg(long, default_value = "default", value_parser = args::carveout)]
    pub carveout: Carveout,
    /// Block barriers per block (1 = only __syncthreads).
    #[arg(long, default_value_t = 1)]
    pub barriers: u32,
    /// The kernel's max threads per block (__launch_bounds__ first argument, 1 to 1024).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=1024))]
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
    /// The grid: blocks as a count, `XxY` or `XxYxZ`, for waves, tail_effect and
    /// undersized_grid on a named GPU (and, with --cluster, a whole number of clusters).
    #[arg(long, value_parser = args::grid)]
    pub grid: Option<GridDim>,
    /// Blocks per thread-block cluster (cc 9.0+): `3`, `2x1` or `2x2x1`. Above 8 blocks
    /// it needs --non-portable.
    #[arg(long, value_parser = args::cluster)]
    pub cluster: Option<ClusterDim>,
    /// The function sets CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED: clusters
    /// above the portable 8 blocks, up to 16 on cc 9.0.
    #[arg(long, requires = "cluster")]
    pub non_portable: bool,
    /// The kernel's minimum resident blocks per SM (__launch_bounds__ second argument,
    /// `.minnctapersm`), for launch_bounds_mismatch.
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
    pub min_blocks: Option<u32>,
    /// The low_occupancy floor: 50%, 0.5 (default: the class's floor, else 50%).
    #[arg(long, value_parser = args::floor)]
    pub min_occupancy: Option<MinOccupancy>,
    /// Kernel class, which sets the default floor: memory_bound, balanced, compute_bound.
    #[arg(long, value_parser = args::class)]
    pub class: Option<KernelClass>,
}

impl ConfigArgs {
    /// The kernel these arguments describe.
    /// Registers per thread absent (calc without `--regs`) are 0: no register limit.
    pub(crate) fn kernel(&self) -> Kernel {
        Kernel {
            registers_per_thread: self.regs.unwrap_or(0),
            static_smem_bytes: self.static_smem,
            barriers: self.barriers,
            max_threads_per_block: self.max_threads,
            max_dynamic_smem_bytes: self.opt_in,
            carveout: self.carveout,
        }
    }
}

/// What `calc` prints, and whether a finding is deny-level.
pub struct Calc {
    /// The table (or JSON), findings and suggestions.
    pub text: String,
    /// Whether a finding is deny-level (`launch_impossible`): the exit status is then 1, as
    /// for `cargo occupancy report`.
    pub denied: bool,
}

impl CalcArgs {
    /// The thread-block cluster, with the non-portable attribute as given.
    fn cluster(&self) -> Option<Cluster> {
        self.cluster.map(|dim| {
            let cluster = Cluster::new(dim);
            if self.non_portable {
                cluster.allow_non_portable()
            } else {
                cluster
            }
        })
    }
}

/// Runs `calc`: the text to print and whether a finding is deny-level, or an error message
/// for input it cannot evaluate.
pub fn run(c: &CalcArgs) -> Result<Calc, String> {
    let a = &c.config;
    let kernel = a.kernel();
    let launch = Launch::new(a.block).with_dynamic_smem(a.smem);
    let targets = [a.arch];
    let (min_occupancy, class) = match (c.min_occupancy, c.class) {
        (Some(floor), _) => (floor, None),
        (None, Some(class)) => (class.default_floor(), Some(class)),
        (None, None) => (MinOccupancy::DEFAULT, None),
    };
    let spec = LaunchSpec {
        min_occupancy,
        class,
        grid: c.grid,
        cluster: c.cluster(),
        artifact: ArtifactFacts {
            min_blocks_per_sm: c.min_blocks,
            ..ArtifactFacts::default()
        },
        ..LaunchSpec::new("launch", &targets, kernel, launch)
    };
    let findings = check(&spec);
    let levels = LintLevels::default();
    let denied = findings.iter().any(|f| levels.get(f.lint) == Level::Deny);
    // A kernel the calculator refuses (an opt-in over the architecture's limit): no table,
    // but the findings say why the launch cannot run.
    let occ = match occupancy(a.arch.arch, &kernel, &launch) {
        Ok(occ) => Some(occ),
        Err(_) if denied => None,
        Err(e) => return Err(e.to_string()),
    };
    let suggestions = match &occ {
        Some(occ) => suggestions(c, &kernel, &launch, occ, &findings),
        None => Vec::new(),
    };
    if a.json {
        return Ok(Calc {
            text: to_json(c, occ.as_ref(), &findings, &suggestions),
            denied,
        });
    }
    let mut out = match &occ {
        Some(occ) => table(c, occ),
        None => heading(a),
    };
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
        let level = levels.get(f.lint);
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
    if !suggestions.is_empty() {
        let _ = writeln!(out);
        let _ = writeln!(out, "Suggestions");
        for (what, text) in &suggestions {
            let _ = writeln!(out, "  {what:<34}{text}");
        }
    }
    Ok(Calc { text: out, denied })
}

/// Blocks of the whole GPU resident at once for this launch, with or without clusters
/// ([`analysis::launch_waves`]); `None` without a named GPU or when it is unknown.
fn at_a_time(c: &CalcArgs, kernel: &Kernel, launch: &Launch) -> Option<LaunchWaves> {
    let cluster = c.cluster();
    analysis::launch_waves(&c.config.arch, kernel, launch, cluster.as_ref(), 0)
}

/// Suggestions beyond the findings, as (label, text) rows: the block sizes with the best
/// occupancy, the register budget, the shared memory free to add, waves and clusters.
fn suggestions(
    c: &CalcArgs,
    kernel: &Kernel,
    launch: &Launch,
    occ: &Occupancy,
    findings: &[Finding],
) -> Vec<(String, String)> {
    let a = &c.config;
    let arch = a.arch.arch;
    let mut rows = Vec::new();
    let blocks = |o: &Occupancy| {
        let noun = if o.blocks_per_sm == 1 {
            "block"
        } else {
            "blocks"
        };
        format!(
            "{} {noun}/SM, {}",
            o.blocks_per_sm,
            percent(o.active_warps_per_sm(), o.max_warps_per_sm)
        )
    };
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
            format!(
                "register budget ({})",
                occupancy_core::lint::count64(occ.threads_per_block.into(), "thread")
            ),
            levels.join("; "),
        ));
    }
    if occ.blocks_per_sm > 0
        && let Ok(free) = analysis::free_dynamic_smem(arch, kernel, launch)
    {
        rows.push((
            "dynamic smem free to add".to_owned(),
            format!(
                "{free} B more per block still give {} blocks/SM",
                occ.blocks_per_sm
            ),
        ));
    }
    if let Some(grid) = c.grid {
        let cluster = c.cluster();
        if let Some(lw) =
            analysis::launch_waves(&a.arch, kernel, launch, cluster.as_ref(), grid.blocks())
        {
            let w = lw.waves;
            let last = if w.tail_blocks == 0 {
                w.blocks_per_wave
            } else {
                w.tail_blocks
            };
            let mut text = format!(
                "{:.2} ({} blocks at a time; last wave {last} blocks, {} of its slots idle)",
                w.waves(),
                w.blocks_per_wave,
                percent(w.blocks_per_wave - last, w.blocks_per_wave)
            );
            // An idle share shown without a tail_effect finding: say why there is none.
            let tail_found = findings.iter().any(|f| *f.lint == TAIL_EFFECT);
            if w.tail_blocks > 0 && !tail_found {
                let slots = w.waves_started() * w.blocks_per_wave;
                let threshold = Thresholds::DEFAULT.tail_effect_max_waste_bp;
                let why = if w.full_waves == 0 {
                    "the grid is less than one wave (undersized_grid's case)".to_owned()
                } else {
                    format!(
                        "{} of the launch's block slots idle, within tail_effect's {} \
                         (thresholds.tail_effect_max_waste)",
                        percent(slots - w.grid_blocks, slots),
                        percent(threshold, 10_000u32)
                    )
                };
                text.push_str(&format!("; no tail_effect: {why}"));
            }
            rows.push(("waves".to_owned(), text));
        }
    }
    if let (Some(cluster), Some(topology)) = (c.cluster(), Topology::of_target(&a.arch))
        && let Ok(r) = max_active_clusters(arch, &topology, kernel, launch, &cluster)
    {
        rows.push((
            format!("clusters of {} at a time", cluster.dim),
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

/// `  threads per block                 256 (8 warps)`: one row of the table.
fn row(out: &mut String, k: &str, v: String) {
    let _ = writeln!(out, "  {k:<34}{v}");
}

/// The first line and the inputs.
fn heading(a: &ConfigArgs) -> String {
    let arch = a.arch.arch;
    let mut out = String::new();
    let gpu = match a.arch.gpu {
        Some(g) => format!("{} ({} SMs), ", g.name, g.sm_count),
        None => String::new(),
    };
    // The shape only where it says more than the thread count: `(16, 16)`.
    let shape = if a.block.y == 1 && a.block.z == 1 {
        String::new()
    } else {
        format!(" {}", a.block)
    };
    let _ = writeln!(
        out,
        "Occupancy of {}-thread blocks{shape} on {gpu}{} {} (cc {})",
        a.block.threads(),
        arch.sm,
        arch.family,
        arch.cc
    );
    out
}

/// The inputs the lints read beyond the configuration: grid, cluster, minimum blocks.
fn launch_inputs(out: &mut String, c: &CalcArgs) {
    if let Some(m) = c.min_blocks {
        row(out, "launch bounds (min blocks per SM)", m.to_string());
    }
    let shape = |text: String, blocks: u64, linear: bool| {
        if linear {
            format!("{blocks} blocks")
        } else {
            format!("{text} = {blocks} blocks")
        }
    };
    if let Some(grid) = c.grid {
        let text = shape(grid.to_string(), grid.blocks(), grid.y == 1 && grid.z == 1);
        row(out, "grid", text);
    }
    if let Some(cluster) = c.cluster {
        row(
            out,
            "cluster",
            format!(
                "{}{}",
                shape(
                    cluster.to_string(),
                    cluster.blocks(),
                    cluster.y == 1 && cluster.z == 1
                ),
                if c.non_portable {
                    ", non-portable sizes allowed"
                } else {
                    ""
                }
            ),
        );
    }
}

fn table(c: &CalcArgs, occ: &Occupancy) -> String {
    let a = &c.config;
    let arch = a.arch.arch;
    let mut out = heading(a);
    let _ = writeln!(out);
    let _ = writeln!(out, "Inputs");
    row(
        &mut out,
        "threads per block",
        format!(
            "{} ({} warp{})",
            occ.threads_per_block,
            occ.warps_per_block,
            if occ.warps_per_block == 1 { "" } else { "s" }
        ),
    );
    row(
        &mut out,
        "registers per thread",
        a.regs.map_or_else(
            || "not given (--regs): no register limit below".to_owned(),
            |r| r.to_string(),
        ),
    );
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
    launch_inputs(&mut out, c);
    let _ = writeln!(out);
    let _ = writeln!(out, "Allocated");
    if let Some(regs) = a.regs {
        row(
            &mut out,
            "registers per warp",
            format!(
                "{} ({regs} x 32 rounded up to a multiple of {})",
                occ.registers_per_warp, arch.reg_alloc_unit_per_warp
            ),
        );
    }
    if a.regs.is_some() {
        row(
            &mut out,
            "registers per block",
            occ.registers_per_block.to_string(),
        );
    }
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
    let percent = occupancy_core::lint::percent(occ.active_warps_per_sm(), occ.max_warps_per_sm);
    row(
        &mut out,
        "theoretical occupancy",
        match a.regs {
            Some(_) => percent,
            None => format!(
                "{percent} at most: registers not given; the register budget below gives the \
                 most registers per thread for each occupancy"
            ),
        },
    );
    if let Some(sms) = a.arch.sm_count() {
        let plain = u64::from(occ.blocks_per_sm) * u64::from(sms);
        let fill = match at_a_time(
            c,
            &a.kernel(),
            &Launch::new(a.block).with_dynamic_smem(a.smem),
        ) {
            Some(LaunchWaves {
                waves,
                clusters: Some((clusters, size)),
                ..
            }) => format!(
                "{} ({clusters} clusters of {size}; {plain} without clusters, {sms} SMs)",
                waves.blocks_per_wave
            ),
            _ => format!("{plain} ({sms} SMs)"),
        };
        row(&mut out, "blocks to fill the GPU once", fill);
    }
    if let Some(reason) = occ.zero_reason {
        row(&mut out, "launch fails", reason.to_string());
    }
    out
}

/// The JSON form: the table's numbers (null where the calculator refused the kernel), the
/// findings and the suggestions.
fn to_json(
    c: &CalcArgs,
    occ: Option<&Occupancy>,
    findings: &[Finding],
    suggestions: &[(String, String)],
) -> String {
    let a = &c.config;
    let limit = |v: u32| {
        if v == UNLIMITED {
            serde_json::Value::Null
        } else {
            json!(v)
        }
    };
    let kernel = a.kernel();
    let launch = Launch::new(a.block).with_dynamic_smem(a.smem);
    let min_grid_size = occ
        .and_then(|_| at_a_time(c, &kernel, &launch))
        .map(|lw| lw.waves.blocks_per_wave);
    let levels = LintLevels::default();
    let mut value = json!({
        "target": a.arch.to_string(),
        "arch": a.arch.arch.sm,
        "compute_capability": a.arch.arch.cc.to_string(),
        "sm_count": a.arch.sm_count(),
        "inputs": {
            "block": [a.block.x, a.block.y, a.block.z],
            "threads_per_block": a.block.threads(),
            "registers_per_thread": a.regs,
            "static_smem": a.static_smem,
            "dynamic_smem": a.smem,
            "max_dynamic_smem": a.opt_in,
            "carveout": a.carveout.to_attribute(),
            "barriers": a.barriers,
            "max_threads_per_block": a.max_threads,
            "min_blocks_per_sm": c.min_blocks,
            "grid": c.grid.map(GridDim::to_array),
            "cluster": c.cluster.map(|d| [d.x, d.y, d.z]),
            "non_portable_cluster_size_allowed": c.non_portable,
        },
        "min_grid_size": min_grid_size,
        "findings": findings.iter().map(|f| json!({
            "lint": f.lint.name,
            "level": levels.get(f.lint).name(),
            "message": f.message,
            "notes": f.notes,
            "helps": f.helps,
        })).collect::<Vec<_>>(),
        "suggestions": suggestions.iter().map(|(k, v)| json!({"what": k, "text": v})).collect::<Vec<_>>(),
    });
    let numbers = match occ {
        Some(occ) => json!({
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
        }),
        None => json!({
            "allocated": null,
            "limits": null,
            "limiters": [],
            "blocks_per_sm": 0,
            "warps_per_block": null,
            "active_warps_per_sm": 0,
            "max_warps_per_sm": a.arch.arch.max_warps_per_sm(),
            "occupancy": 0.0,
            "launch_error": findings.first().map(|f| f.message.clone()),
        }),
    };
    if let (Some(object), serde_json::Value::Object(more)) = (value.as_object_mut(), numbers) {
        object.extend(more);
    }
    let mut s = serde_json::to_string_pretty(&value).unwrap_or_default();
    s.push('\n');
    s
}
