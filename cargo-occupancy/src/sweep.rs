//! `cargo occupancy sweep`: occupancy as one parameter varies, the three graphs of NVIDIA's
//! occupancy calculator (threads per block, registers per thread, shared memory per block)
//! as a table, JSON or SVG.
//!
//! Every point is one call of the engine's [`occupancy`] with one input changed; the table
//! collapses runs of points with the same resident blocks, active warps and limiters into
//! one row (so a block count can take two rows where a second resource starts to tie), and
//! names the steps: the largest value that keeps each resident-block count.
//!
//! The points:
//! - threads per block: multiples of the warp size (32) up to the device's or the launch
//!   bounds' limit, plus the current block size. A block of any size between two multiples
//!   allocates as many warps as the larger one, so it gets the same answer.
//! - registers per thread: 1 to 255 (the most ptxas allocates; the architecture's maximum
//!   where lower), plus the current count.
//! - shared memory per block, static + dynamic (the reserved bytes come on top, as in the
//!   engine): 0 to the per-block limit in steps of the allocation granularity, plus the
//!   current amount. Below the current static size, the static part shrinks too (dynamic
//!   bytes go first). The limit is the 48 KiB default, or the architecture's opt-in maximum
//!   when the kernel opted in (`--opt-in` above the default) or the current amount needs the
//!   opt-in; then every point is evaluated with the largest opt-in the architecture allows
//!   beside the static part (what a wrapper sets with `cuFuncSetAttribute`), so the graph
//!   shows what each amount would give; otherwise without an opt-in. Either way the sweep
//!   ignores a smaller `--opt-in`, which only caps the dynamic bytes a launch may ask for;
//!   the table notes when the configuration as given gets another answer than its point.

use std::fmt::Write as _;

use clap::{Args, ValueEnum};
use occupancy_core::arch::Arch;
use occupancy_core::lint::count64;
use occupancy_core::lint::konst::{Impossible, impossible};
use occupancy_core::occupancy::{
    BlockDim, Carveout, Kernel, Launch, Limiters, Occupancy, OccupancyError, Resource, ZeroReason,
    occupancy,
};
use serde_json::json;

use crate::calc::ConfigArgs;
use crate::plot;

/// Arguments of `sweep`: those of `calc`, the parameter to vary and an optional SVG file.
#[derive(Args, Debug)]
pub struct SweepArgs {
    /// The configuration (the graphs mark it).
    #[command(flatten)]
    pub calc: ConfigArgs,
    /// The parameter to vary: block (threads per block), regs (registers per thread), smem
    /// (static + dynamic shared memory per block) or all three.
    #[arg(long, value_enum, default_value_t = Vary::All)]
    pub vary: Vary,
    /// Also draw the graphs into this SVG file (one chart per varied parameter).
    #[arg(long, value_name = "FILE")]
    pub svg: Option<std::path::PathBuf>,
}

/// `--vary`: one parameter or all three.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Vary {
    /// Threads per block.
    Block,
    /// Registers per thread.
    Regs,
    /// Static + dynamic shared memory per block.
    Smem,
    /// The three, one after the other.
    All,
}

impl Vary {
    fn parameters(self) -> &'static [Parameter] {
        match self {
            Vary::Block => &[Parameter::Block],
            Vary::Regs => &[Parameter::Regs],
            Vary::Smem => &[Parameter::Smem],
            Vary::All => &Parameter::ALL,
        }
    }
}

/// A parameter a sweep varies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Parameter {
    /// Threads per block.
    Block,
    /// Registers per thread.
    Regs,
    /// Static + dynamic shared memory per block, bytes.
    Smem,
}

impl Parameter {
    /// The three, in the order of NVIDIA's calculator.
    pub const ALL: [Parameter; 3] = [Parameter::Block, Parameter::Regs, Parameter::Smem];

    /// The name in `--vary` and in JSON.
    pub const fn name(self) -> &'static str {
        match self {
            Parameter::Block => "block",
            Parameter::Regs => "regs",
            Parameter::Smem => "smem",
        }
    }

    /// Words for the value, with its unit.
    pub const fn words(self) -> &'static str {
        match self {
            Parameter::Block => "threads per block",
            Parameter::Regs => "registers per thread",
            Parameter::Smem => "static + dynamic shared memory per block (B)",
        }
    }

    /// The value with its unit, for labels: `256 threads`, `40 registers`, `8192 B`.
    pub fn value_text(self, value: u32) -> String {
        match self {
            Parameter::Block => count64(value.into(), "thread"),
            Parameter::Regs => format!("{value} registers"),
            Parameter::Smem => format!("{value} B"),
        }
    }

    /// The engine resource this parameter spends (threads spend warps); the graphs colour a
    /// run by it when it is among the limiters.
    pub const fn resource(self) -> Resource {
        match self {
            Parameter::Block => Resource::Warps,
            Parameter::Regs => Resource::Registers,
            Parameter::Smem => Resource::SharedMemory,
        }
    }
}

/// One point of a sweep: a value of the parameter and the engine's answer.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Point {
    /// The parameter's value (threads, registers or bytes).
    pub value: u32,
    /// The occupancy with it.
    pub occupancy: Occupancy,
}

/// Occupancy over the values of one parameter, the others held at the configuration's.
#[derive(Clone, Debug, PartialEq)]
pub struct Sweep {
    /// The varied parameter.
    pub parameter: Parameter,
    /// The configuration's value of the parameter.
    pub current: u32,
    /// Distance between regular points: the warp size, 1 register, or the shared memory
    /// allocation granularity in bytes.
    pub step: u32,
    /// The largest regular point: the thread limit, the register maximum or the per-block
    /// shared memory limit (bytes, static + dynamic).
    pub limit: u32,
    /// Shared memory sweeps: whether the points assume the opt-in (see the module docs).
    pub opt_in: bool,
    /// The points, by increasing value.
    pub points: Vec<Point>,
}

/// A run of consecutive points with the same result.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Run {
    /// The smallest value the run covers: its first point, or for shared memory the byte
    /// after the previous run's last point (bytes between points round up to the next).
    pub from: u32,
    /// Its last point's value.
    pub to: u32,
    /// The answer at its last point (the same blocks, warps and limiters at every point).
    pub occupancy: Occupancy,
}

/// Why no block fits, in a few words that stay the same along a run.
fn zero_cause(reason: Option<ZeroReason>) -> &'static str {
    match reason {
        None => "",
        Some(ZeroReason::BlockTooLarge { .. }) => "block too large",
        Some(ZeroReason::BlockDimZTooLarge { .. }) => "block z too large",
        Some(ZeroReason::RegistersPerThread { .. }) => "too many registers per thread",
        Some(ZeroReason::RegistersPerBlock { .. }) => "too many registers per block",
        Some(ZeroReason::DynamicSmemOverOptIn { .. }) => "dynamic shared memory over the opt-in",
        Some(ZeroReason::SmemPerBlock { .. }) => "too much shared memory per block",
        Some(ZeroReason::Barriers { .. }) => "too many barriers",
    }
}

/// The part of an answer a run keeps equal.
fn result_key(o: &Occupancy) -> (u32, u32, Limiters, &'static str) {
    (
        o.blocks_per_sm,
        o.active_warps_per_sm(),
        o.limiters,
        zero_cause(o.zero_reason),
    )
}

/// The kernel and launch with `total` bytes of static + dynamic shared memory: the static
/// part is kept up to `total`, the rest is dynamic; with `opt_in`, the kernel opts in to
/// the most dynamic shared memory the architecture allows beside its static part.
fn with_smem(
    arch: &Arch,
    kernel: &Kernel,
    launch: &Launch,
    total: u32,
    opt_in: bool,
) -> (Kernel, Launch) {
    let static_bytes = kernel.static_smem_bytes.min(total);
    let max_dynamic = if opt_in {
        Some(arch.smem_per_block_optin_bytes.saturating_sub(static_bytes))
    } else {
        None
    };
    (
        Kernel {
            static_smem_bytes: static_bytes,
            max_dynamic_smem_bytes: max_dynamic,
            ..*kernel
        },
        Launch {
            dynamic_smem_bytes: total - static_bytes,
            ..*launch
        },
    )
}

/// `regular` (increasing) with `current` inserted in order if it is not there.
fn with_current(mut regular: Vec<u32>, current: u32) -> Vec<u32> {
    if let Err(i) = regular.binary_search(&current) {
        regular.insert(i, current);
    }
    regular
}

/// Occupancy of `kernel` launched as `launch` on `arch` as `parameter` varies.
///
/// # Errors
///
/// As [`occupancy`]: input the driver's API refuses (an empty block, a carveout or opt-in
/// out of range).
pub fn sweep(
    arch: &Arch,
    kernel: &Kernel,
    launch: &Launch,
    parameter: Parameter,
) -> Result<Sweep, OccupancyError> {
    // The configuration itself first: its errors are the user's.
    occupancy(arch, kernel, launch)?;
    let warp = arch.warp_size;
    let (current, step, limit, opt_in) = match parameter {
        Parameter::Block => {
            let threads = u32::try_from(launch.block.threads()).unwrap_or(u32::MAX);
            let limit = kernel
                .max_threads_per_block
                .map_or(arch.max_threads_per_block, |t| {
                    t.min(arch.max_threads_per_block)
                });
            (threads, warp, limit, false)
        }
        // ptxas allocates at most 255 (the engine's limit is 256 from cc 7.0, as OCC checks).
        Parameter::Regs => (
            kernel.registers_per_thread,
            1,
            arch.max_regs_per_thread.min(255),
            false,
        ),
        Parameter::Smem => {
            let total = kernel
                .static_smem_bytes
                .saturating_add(launch.dynamic_smem_bytes);
            let reserved = arch.reserved_smem_per_block_bytes;
            let default = arch.smem_per_block_default_bytes;
            let opted_in = kernel.max_dynamic_smem_bytes.is_some_and(|m| {
                u64::from(kernel.static_smem_bytes) + u64::from(reserved) + u64::from(m)
                    > u64::from(default)
            });
            let opt_in = (opted_in || total > default) && arch.smem_per_block_optin_bytes > default;
            let limit = if opt_in {
                arch.smem_per_block_optin_bytes
            } else {
                default
            };
            (total, arch.smem_alloc_granularity_bytes, limit, opt_in)
        }
    };
    let regular: Vec<u32> = match parameter {
        Parameter::Block => (warp..=limit).step_by(warp as usize).collect(),
        Parameter::Regs => (1..=limit).collect(),
        Parameter::Smem => (0..=limit).step_by(step as usize).collect(),
    };
    let mut points = Vec::new();
    for value in with_current(regular, current) {
        let occupancy = match parameter {
            Parameter::Block => occupancy(
                arch,
                kernel,
                &Launch {
                    block: BlockDim::linear(value),
                    ..*launch
                },
            )?,
            Parameter::Regs => occupancy(
                arch,
                &Kernel {
                    registers_per_thread: value,
                    ..*kernel
                },
                launch,
            )?,
            Parameter::Smem => {
                let (k, l) = with_smem(arch, kernel, launch, value, opt_in);
                occupancy(arch, &k, &l)?
            }
        };
        points.push(Point { value, occupancy });
    }
    Ok(Sweep {
        parameter,
        current,
        step,
        limit,
        opt_in,
        points,
    })
}

impl Sweep {
    /// Runs of consecutive points with equal resident blocks, active warps and limiters
    /// (and, with 0 blocks, the same cause).
    pub fn runs(&self) -> Vec<Run> {
        let mut runs: Vec<Run> = Vec::new();
        for p in &self.points {
            match runs.last_mut() {
                Some(run) if result_key(&run.occupancy) == result_key(&p.occupancy) => {
                    run.to = p.value;
                    run.occupancy = p.occupancy;
                }
                last => {
                    let from = match (self.parameter, last) {
                        (Parameter::Smem, Some(prev)) => prev.to + 1,
                        _ => p.value,
                    };
                    runs.push(Run {
                        from,
                        to: p.value,
                        occupancy: p.occupancy,
                    });
                }
            }
        }
        runs
    }

    /// The steps: for each run of points with equal resident blocks (more than 0), the
    /// largest value, with the block count; where a block is lost past it.
    pub fn steps(&self) -> Vec<(u32, u32)> {
        let mut steps: Vec<(u32, u32)> = Vec::new();
        let mut last_blocks = None;
        for p in &self.points {
            let blocks = p.occupancy.blocks_per_sm;
            match steps.last_mut() {
                Some(step) if last_blocks == Some(blocks) && blocks > 0 => step.0 = p.value,
                _ if blocks > 0 => steps.push((p.value, blocks)),
                _ => {}
            }
            last_blocks = Some(blocks);
        }
        steps
    }

    /// The point at the configuration's value.
    pub fn current_point(&self) -> Option<&Point> {
        self.points.iter().find(|p| p.value == self.current)
    }
}

/// The limiters in words: `registers`, `warps, registers`.
pub fn limiter_words(occ: &Occupancy) -> String {
    if occ.blocks_per_sm == 0 {
        return format!("launch fails: {}", zero_cause(occ.zero_reason));
    }
    occ.limiters
        .iter()
        .map(|r| r.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

/// The answer in words: `6 blocks, 48 warps, 75.0%, limiter registers`, or
/// `no block fits: too many registers per block`.
pub fn result_words(occ: &Occupancy) -> String {
    if occ.blocks_per_sm == 0 {
        return format!("no block fits: {}", zero_cause(occ.zero_reason));
    }
    format!(
        "{}, {} warps, {}, limiter {}",
        blocks_text(occ.blocks_per_sm),
        occ.active_warps_per_sm(),
        percent(occ),
        limiter_words(occ)
    )
}

/// Runs `sweep`: the text to print (a table or JSON), after writing the SVG if asked.
pub fn run(a: &SweepArgs) -> Result<String, String> {
    let c = &a.calc;
    if c.regs.is_none() {
        return Err(
            "sweep needs --regs, the kernel's registers per thread (`cargo occupancy \
             inspect` shows them): the graphs of block size and shared memory depend on them"
                .to_owned(),
        );
    }
    let arch = c.arch.arch;
    let kernel = c.kernel();
    let launch = Launch::new(c.block).with_dynamic_smem(c.smem);
    let current = occupancy(arch, &kernel, &launch).map_err(|e| e.to_string())?;
    let sweeps = a
        .vary
        .parameters()
        .iter()
        .map(|&p| sweep(arch, &kernel, &launch, p))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| e.to_string())?;
    if let Some(path) = &a.svg {
        let titles = [format!("Occupancy on {}", target_text(c)), config_text(c)];
        let svg = plot::svg(&titles, &sweeps, &current)?;
        std::fs::write(path, svg).map_err(|e| format!("{}: {e}", path.display()))?;
    }
    if c.json {
        return Ok(to_json(c, &current, &sweeps));
    }
    Ok(table(c, &current, &sweeps))
}

/// The target in words: `H100 80GB HBM3 (sm_90 Hopper GH100, cc 9.0)`.
pub fn target_text(c: &ConfigArgs) -> String {
    let arch = c.arch.arch;
    match c.arch.gpu {
        Some(g) => format!("{} ({} {}, cc {})", g.name, arch.sm, arch.family, arch.cc),
        None => format!("{} ({}, cc {})", arch.sm, arch.family, arch.cc),
    }
}

/// The configuration in words: `256 threads, 40 registers, 0 B static + 0 B dynamic ...`.
pub fn config_text(c: &ConfigArgs) -> String {
    let shape = if c.block.y == 1 && c.block.z == 1 {
        String::new()
    } else {
        format!(" {}", c.block)
    };
    let mut t = format!(
        "{}{shape}, {} registers, {} B static + {} B dynamic shared memory",
        count64(c.block.threads(), "thread"),
        c.regs.unwrap_or(0),
        c.static_smem,
        c.smem
    );
    if let Some(o) = c.opt_in {
        let _ = write!(t, " (opt-in {o} B)");
    }
    if c.barriers != 1 {
        let _ = write!(t, ", {} barriers", c.barriers);
    }
    if let Some(m) = c.max_threads {
        let _ = write!(t, ", launch bounds {m}");
    }
    if let Carveout::Percent(p) = c.carveout {
        let _ = write!(t, ", carveout {p}%");
    }
    t
}

fn blocks_text(blocks: u32) -> String {
    if blocks == 1 {
        "1 block".to_owned()
    } else {
        format!("{blocks} blocks")
    }
}

fn percent(occ: &Occupancy) -> String {
    occupancy_core::lint::percent(occ.active_warps_per_sm(), occ.max_warps_per_sm)
}

/// Why the configuration's launch cannot run, if it cannot: the one decision `calc`'s
/// `launch_impossible` makes (a block over the launch bounds fails although the occupancy
/// counts it, as the driver's query does).
fn launch_fails(c: &ConfigArgs, current: &Occupancy) -> Option<Impossible> {
    let launch = Launch::new(c.block).with_dynamic_smem(c.smem);
    impossible(&c.kernel(), &launch, &Ok(*current))
}

fn table(c: &ConfigArgs, current: &Occupancy, sweeps: &[Sweep]) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "Occupancy sweep on {}: {}",
        target_text(c),
        config_text(c)
    );
    let fails = launch_fails(c, current);
    match (current.zero_reason, fails) {
        (Some(reason), _) if current.blocks_per_sm == 0 => {
            let _ = writeln!(out, "Current: no block fits, the launch fails: {reason}");
        }
        (_, Some(why)) => {
            let _ = writeln!(
                out,
                "Current: the launch fails: {} (the occupancy query counts {} per SM, {})",
                why.describe(),
                blocks_text(current.blocks_per_sm),
                percent(current)
            );
        }
        _ => {
            let _ = writeln!(
                out,
                "Current: {} per SM, {} of {} warps ({}), limiter {}",
                blocks_text(current.blocks_per_sm),
                current.active_warps_per_sm(),
                current.max_warps_per_sm,
                percent(current),
                limiter_words(current)
            );
        }
    }
    for s in sweeps {
        let _ = writeln!(out);
        let _ = writeln!(out, "{}", heading(s, c));
        let runs = s.runs();
        let ranges: Vec<String> = runs
            .iter()
            .map(|r| {
                if r.from == r.to {
                    r.to.to_string()
                } else {
                    format!("{}-{}", r.from, r.to)
                }
            })
            .collect();
        let name = s.parameter.name();
        let width = ranges
            .iter()
            .map(String::len)
            .max()
            .unwrap_or(0)
            .max(name.len());
        let _ = writeln!(out, "  {name:<width$}  blocks  warps  occupancy  limiter");
        for (r, range) in runs.iter().zip(&ranges) {
            let o = &r.occupancy;
            let mark = if (r.from..=r.to).contains(&s.current) {
                format!("  <- current ({})", s.current)
            } else {
                String::new()
            };
            let _ = writeln!(
                out,
                "  {range:<width$}  {:>6}  {:>5}  {:>9}  {}{mark}",
                o.blocks_per_sm,
                o.active_warps_per_sm(),
                percent(o),
                limiter_words(o)
            );
        }
        let steps: Vec<String> = s
            .steps()
            .iter()
            .enumerate()
            .map(|(i, (value, blocks))| {
                if i == 0 {
                    format!("{value} ({blocks} blocks)")
                } else {
                    format!("{value} ({blocks})")
                }
            })
            .collect();
        let _ = writeln!(
            out,
            "  steps (the most {} that keeps each block count): {}",
            match s.parameter {
                Parameter::Block => "threads per block",
                Parameter::Regs => "registers per thread",
                Parameter::Smem => "bytes per block",
            },
            if steps.is_empty() {
                "none (no block fits)".to_owned()
            } else {
                steps.join(", ")
            }
        );
        if let Some(p) = s.current_point()
            && result_key(&p.occupancy) != result_key(current)
        {
            let _ = writeln!(
                out,
                "  note: the configuration as given gets {}; the sweep {}",
                result_words(current),
                match s.parameter {
                    Parameter::Smem if s.opt_in =>
                        "assumes the kernel opts in to the architecture's maximum",
                    Parameter::Smem => "assumes no opt-in",
                    Parameter::Block => "uses 1-D blocks",
                    Parameter::Regs => "point differs",
                }
            );
        }
    }
    out
}

fn heading(s: &Sweep, c: &ConfigArgs) -> String {
    let arch = c.arch.arch;
    match s.parameter {
        Parameter::Block => format!(
            "Threads per block ({} to {} in steps of {}{}; blocks in between act as the next step)",
            s.step,
            s.limit,
            s.step,
            if s.limit < arch.max_threads_per_block {
                ", launch bounds"
            } else {
                ""
            }
        ),
        Parameter::Regs => format!("Registers per thread (1 to {})", s.limit),
        Parameter::Smem => format!(
            "Shared memory per block, static + dynamic in bytes (0 to {} in steps of {}; {} B \
             reserved per block on top; {})",
            s.limit,
            s.step,
            arch.reserved_smem_per_block_bytes,
            if s.opt_in {
                "opt-in to the architecture's maximum assumed"
            } else {
                "default per-block limit, no opt-in"
            }
        ),
    }
}

fn to_json(c: &ConfigArgs, current: &Occupancy, sweeps: &[Sweep]) -> String {
    let point = |value: u32, o: &Occupancy| {
        json!({
            "value": value,
            "blocks_per_sm": o.blocks_per_sm,
            "active_warps_per_sm": o.active_warps_per_sm(),
            "occupancy": o.fraction(),
            "limiters": o.limiters.iter().map(Resource::name).collect::<Vec<_>>(),
        })
    };
    let value = json!({
        "target": c.arch.to_string(),
        "arch": c.arch.arch.sm,
        "compute_capability": c.arch.arch.cc.to_string(),
        "max_warps_per_sm": current.max_warps_per_sm,
        "current": {
            "block": [c.block.x, c.block.y, c.block.z],
            "registers_per_thread": c.regs.unwrap_or(0),
            "static_smem": c.static_smem,
            "dynamic_smem": c.smem,
            "blocks_per_sm": current.blocks_per_sm,
            "active_warps_per_sm": current.active_warps_per_sm(),
            "occupancy": current.fraction(),
            "limiters": current.limiters.iter().map(Resource::name).collect::<Vec<_>>(),
            "launch_error": current
                .zero_reason
                .map(|r| r.to_string())
                .or(launch_fails(c, current).map(|f| f.describe().to_owned())),
        },
        "sweeps": sweeps.iter().map(|s| json!({
            "parameter": s.parameter.name(),
            "unit": s.parameter.words(),
            "current": s.current,
            "step": s.step,
            "limit": s.limit,
            "opt_in_assumed": s.opt_in,
            "steps": s.steps().iter().map(|(v, b)| json!({"value": v, "blocks_per_sm": b}))
                .collect::<Vec<_>>(),
            "points": s.points.iter().map(|p| point(p.value, &p.occupancy)).collect::<Vec<_>>(),
        })).collect::<Vec<_>>(),
    });
    let mut s = serde_json::to_string_pretty(&value).unwrap_or_default();
    s.push('\n');
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use occupancy_core::arch::{SM_80, SM_86, SM_90};

    fn launch(threads: u32) -> Launch {
        Launch::new(BlockDim::linear(threads))
    }

    #[test]
    fn regs_steps_on_sm_80_with_256_threads() {
        let s = sweep(&SM_80, &Kernel::new(40), &launch(256), Parameter::Regs).unwrap();
        assert_eq!(s.points.len(), 255);
        assert_eq!(
            s.steps(),
            [
                (32, 8),
                (40, 6),
                (48, 5),
                (64, 4),
                (80, 3),
                (128, 2),
                (255, 1)
            ]
        );
        let runs = s.runs();
        // 1..=24 warps alone; 25..=32 registers round up to 1024 per warp, as many as 32,
        // and tie with warps at 8 blocks; then registers alone.
        assert_eq!((runs[0].from, runs[0].to), (1, 24));
        assert_eq!(limiter_words(&runs[0].occupancy), "warps");
        assert_eq!((runs[1].from, runs[1].to), (25, 32));
        assert_eq!(limiter_words(&runs[1].occupancy), "warps, registers");
        let r = runs.iter().find(|r| r.to == 40).unwrap();
        assert_eq!((r.from, r.occupancy.blocks_per_sm), (33, 6));
        assert_eq!(r.occupancy.active_warps_per_sm(), 48);
        assert_eq!(limiter_words(&r.occupancy), "registers");
        assert_eq!(s.current_point().unwrap().occupancy.blocks_per_sm, 6);
    }

    #[test]
    fn block_sweep_for_40_registers_on_sm_80() {
        let s = sweep(&SM_80, &Kernel::new(40), &launch(256), Parameter::Block).unwrap();
        assert_eq!(s.points.len(), 32);
        // 40 registers: 1280 per warp, 51 warps in 64 Ki registers (12 per sub-partition,
        // 48 per SM). 32 blocks of 32 threads are the block limit.
        let at = |t: u32| {
            let o = s.points.iter().find(|p| p.value == t).unwrap().occupancy;
            (o.blocks_per_sm, o.active_warps_per_sm())
        };
        assert_eq!(at(32), (32, 32));
        assert_eq!(at(64), (24, 48));
        assert_eq!(at(256), (6, 48));
        assert_eq!(at(288), (5, 45));
        assert_eq!(at(384), (4, 48));
        assert_eq!(at(1024), (1, 32));
        let steps = s.steps();
        assert_eq!(steps[0], (32, 32));
        assert!(steps.contains(&(256, 6)) && steps.contains(&(1024, 1)));
        // A block size between multiples of 32 is a point of its own, with the next one's answer.
        let s = sweep(&SM_80, &Kernel::new(40), &launch(200), Parameter::Block).unwrap();
        assert_eq!(s.points.len(), 33);
        let p = s.current_point().unwrap();
        assert_eq!((p.value, p.occupancy.blocks_per_sm), (200, 6));
    }

    #[test]
    fn smem_steps_on_sm_86_with_the_reserve() {
        // Opted in: up to 99 KiB per block in 128 B steps.
        let kernel = Kernel::new(32).with_opt_in(SM_86.smem_per_block_optin_bytes);
        let s = sweep(
            &SM_86,
            &kernel,
            &launch(128).with_dynamic_smem(50496),
            Parameter::Smem,
        )
        .unwrap();
        assert!(s.opt_in);
        assert_eq!((s.step, s.limit), (128, 101_376));
        let steps = s.steps();
        // 100 KiB per SM (the largest carveout): N blocks take (bytes + 1 KiB) x N.
        assert!(steps.contains(&(50176, 2)), "{steps:?}");
        assert!(steps.contains(&(101_376, 1)), "{steps:?}");
        // 3 blocks: 102400 / 3 = 34133 -> 34048 B allocated, 33024 beside the reserve.
        assert!(steps.contains(&(33024, 3)), "{steps:?}");
        // 128 threads: 12 blocks by warps up to 100 KiB / 12 = 8533 -> 8448 B with reserve.
        assert_eq!(steps[0], (8448 - 1024, 12));
        let runs = s.runs();
        let two = runs
            .iter()
            .find(|r| r.occupancy.blocks_per_sm == 2)
            .unwrap();
        assert_eq!((two.from, two.to), (33025, 50176));
        assert_eq!(s.current_point().unwrap().occupancy.blocks_per_sm, 1);
        // Not opted in: up to 48 KiB, the same steps below it.
        let s = sweep(&SM_86, &Kernel::new(32), &launch(128), Parameter::Smem).unwrap();
        assert!(!s.opt_in);
        assert_eq!(s.limit, 49152);
        assert_eq!(s.steps().last(), Some(&(49152, 2)));
    }

    #[test]
    fn smem_sweep_shrinks_static_below_it_and_notes_a_small_opt_in() {
        // sm_90: 40000 B static; points below it shrink the static part.
        let kernel = Kernel::new(32).with_static_smem(40000);
        let s = sweep(&SM_90, &kernel, &launch(128), Parameter::Smem).unwrap();
        assert_eq!(s.current, 40000);
        // 6 x (37888 + 1024) = 233472 B: 6 blocks up to 37888 B, as analysis::smem_step says.
        assert!(s.steps().contains(&(37888, 6)));
        // A current amount above the default limit without an opt-in extends the sweep.
        let s = sweep(
            &SM_90,
            &Kernel::new(32),
            &launch(128).with_dynamic_smem(60000),
            Parameter::Smem,
        )
        .unwrap();
        assert!(s.opt_in);
        assert_eq!(s.limit, SM_90.smem_per_block_optin_bytes);
        assert_eq!(s.current_point().unwrap().occupancy.blocks_per_sm, 3);
    }
}
