//! Granularity lints: an allocation step or a per-SM limit that costs resident blocks, and
//! the smallest change that gains them back (registers, shared memory, block size, barriers,
//! carveout). Every number comes from [`crate::analysis`], i.e. from the engine.

use super::floor::percent;
use super::lints::{analysis_pair, count, occupancy_text};
use super::{Context, Finding, Input, Level, Lint, Scope, bytes_text};
use crate::analysis;
use crate::occupancy::{Carveout, Occupancy, Resource};

declare_lint! {
    /// ### What it does
    /// Reports registers per thread just above a register allocation step: registers are
    /// allocated per warp in units of 256 (8 per thread), so a kernel at 41 registers pays for
    /// 48. When dropping at most a few registers (the policy's
    /// `thresholds.register_step_max_drop`, 4 by default) adds resident blocks, the lint says
    /// how many, what occupancy that gives, and the register budget of the launch (the most
    /// registers per thread that keeps each occupancy level).
    ///
    /// ### Why is this bad
    /// A register or two decide a whole block per SM: on cc 8.0 with 256 threads, 41
    /// registers give 5 blocks (62.5%) and 40 give 6 (75%). ptxas usually finds the register
    /// when asked (`-maxrregcount` or `__launch_bounds__`), often without spilling.
    ///
    /// ### Example
    /// ```text
    /// #[occupancy::check(block = 256, regs = 41, target = "sm_80")] // 5 blocks, 62.5%
    /// fn launch(stream: &CudaStream) { /* ... */ }
    /// ```
    /// Use instead (compile the kernel with `__launch_bounds__(256, 6)`):
    /// ```text
    /// #[occupancy::check(block = 256, regs = 40, target = "sm_80")] // 6 blocks, 75%
    /// fn launch(stream: &CudaStream) { /* ... */ }
    /// ```
    ///
    /// ### Measured
    /// a compute-bound kernel on an H200, 43 against 39 registers (`__launch_bounds__(256, 6)`,
    /// no spills): 62.5% -> 75% theoretical, 40.6% -> 47.0% achieved, but 0.369 -> 0.397 ms:
    /// not faster (docs/ACHIEVED.md says why).
    pub static REGISTER_STEP = Lint {
        name: "register_step",
        default_level: Level::Warn,
        configurable: true,
        scope: Scope::Target,
        summary: "a few registers per thread fewer would add resident blocks",
        check: register_step,
    };
}

declare_lint! {
    /// ### What it does
    /// Reports shared memory per block just above a boundary: when shaving at most a few
    /// bytes (the policy's `thresholds.smem_step_max_bytes`, 512 by default) of static +
    /// dynamic shared memory per block adds a resident block. The count includes the 1 KiB
    /// the driver reserves per block (cc 8.0+) and the rounding to the 128-byte (256 before
    /// cc 8.0) allocation granularity.
    ///
    /// ### Why is this bad
    /// The SM's shared memory holds whole blocks: on cc 8.6 a block of 50496 B (51584 with
    /// the reserve) fits once in 100 KiB, one of 50176 B fits twice. A few bytes of padding
    /// or a slightly smaller tile often buy a whole block.
    ///
    /// ### Example
    /// ```text
    /// #[occupancy::check(block = 128, regs = 32, smem = 50496, opt_in = 99 KiB, target = "sm_86")]
    /// fn launch(stream: &CudaStream) { /* ... */ } // 1 block/SM
    /// ```
    /// Use instead:
    /// ```text
    /// #[occupancy::check(block = 128, regs = 32, smem = 50176, opt_in = 99 KiB, target = "sm_86")]
    /// fn launch(stream: &CudaStream) { /* ... */ } // 2 blocks/SM
    /// ```
    ///
    /// ### Measured
    /// a shared-memory staged copy on an H200, 57600 against 57344 B per block: 75% -> 100%
    /// theoretical, 0.424 -> 0.364 ms, achieved 73.8% -> 98.2% (docs/ACHIEVED.md).
    pub static SMEM_STEP = Lint {
        name: "smem_step",
        default_level: Level::Warn,
        configurable: true,
        scope: Scope::Target,
        summary: "a few bytes less shared memory per block would add a resident block",
        check: smem_step,
    };
}

declare_lint! {
    /// ### What it does
    /// Reports blocks so small that the architecture's limit of resident blocks per SM (16
    /// on cc 7.5 and 8.6, 24 on 8.9 and 12.x, 32 on 8.0 and 9.0) binds before the SM's warps
    /// are used, and gives the smallest block size that lifts it.
    ///
    /// ### Why is this bad
    /// On cc 8.6, 16 blocks of 64 threads hold 32 of the SM's 48 warps (66.67%) whatever the
    /// kernel's registers and shared memory; 96-thread blocks fill all 48.
    ///
    /// ### Example
    /// ```text
    /// #[occupancy::check(block = 64, regs = 32, target = "sm_86")] // 66.67%
    /// fn launch(stream: &CudaStream) { /* ... */ }
    /// ```
    /// Use instead:
    /// ```text
    /// #[occupancy::check(block = 96, regs = 32, target = "sm_86")] // 100%
    /// fn launch(stream: &CudaStream) { /* ... */ }
    /// ```
    ///
    /// ### Measured
    /// vector_add on an H200, blocks of 32 against 64 threads (one wave each): 0.609 against
    /// 0.445 ms, achieved occupancy 49.1% against 96.9% (docs/ACHIEVED.md).
    pub static BLOCK_LIMIT = Lint {
        name: "block_limit",
        default_level: Level::Warn,
        configurable: true,
        scope: Scope::Target,
        summary: "blocks too small: the resident-block limit binds before the warps are used",
        check: block_limit,
    };
}

declare_lint! {
    /// ### What it does
    /// Reports a kernel whose named barriers (`bar.sync id` with `id` > 0, counted as the
    /// highest id + 1) limit resident blocks (cc 9.0+: the SM has 64 block barriers on 9.0
    /// and 10.0, one per block slot on 10.3, 11.0 and 12.x), with the most barriers per block
    /// that gains a block.
    ///
    /// ### Why is this bad
    /// On cc 9.0, 16 barriers per block allow 4 resident blocks, whatever else the kernel
    /// uses; 8 allow 8.
    ///
    /// ### Example
    /// ```text
    /// #[occupancy::check(block = 128, regs = 32, barriers = 16, target = "sm_90")] // 4 blocks
    /// fn launch(stream: &CudaStream) { /* ... */ }
    /// ```
    /// Use instead (named barrier ids 0 to 3 in the kernel):
    /// ```text
    /// #[occupancy::check(block = 128, regs = 32, barriers = 4, target = "sm_90")] // 16 blocks
    /// fn launch(stream: &CudaStream) { /* ... */ }
    /// ```
    pub static BARRIER_LIMIT = Lint {
        name: "barrier_limit",
        default_level: Level::Warn,
        configurable: true,
        scope: Scope::Target,
        summary: "named barriers per block limit resident blocks",
        check: barrier_limit,
    };
}

declare_lint! {
    /// ### What it does
    /// Reports a preferred shared-memory carveout
    /// (`CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT`) that costs resident blocks:
    /// the driver snaps the percentage up to a supported carveout and grows it only to fit
    /// one block, so a small preference can hold fewer blocks than the default would. Gives
    /// the smallest percentage that keeps every block.
    ///
    /// ### Why is this bad
    /// A carveout of 0% on cc 9.0 leaves 8 KiB of shared memory: with the 1 KiB the driver
    /// reserves per block, 8 blocks per SM at most, where the default allows 16 and more.
    ///
    /// ### Example
    /// ```text
    /// #[occupancy::check(block = 128, regs = 10, carveout = 0%, target = "sm_90")] // 8 blocks
    /// fn launch(stream: &CudaStream) { /* ... */ }
    /// ```
    /// Use instead:
    /// ```text
    /// #[occupancy::check(block = 128, regs = 10, carveout = 4%, target = "sm_90")] // 16 blocks
    /// fn launch(stream: &CudaStream) { /* ... */ }
    /// ```
    pub static CARVEOUT_LIMIT = Lint {
        name: "carveout_limit",
        default_level: Level::Warn,
        configurable: true,
        scope: Scope::Target,
        summary: "the carveout preference costs resident blocks",
        check: carveout_limit,
    };
}

/// The engine's answer when at least one block fits.
fn running(cx: &Context<'_>) -> Option<Occupancy> {
    cx.result.ok().filter(|occ| occ.blocks_per_sm > 0)
}

/// `6 blocks/SM (75%)`.
fn blocks_and_percent(occ: &Occupancy) -> String {
    format!(
        "{}/SM ({})",
        count(occ.blocks_per_sm, "block"),
        percent(occ.active_warps_per_sm(), occ.max_warps_per_sm)
    )
}

fn register_step(cx: &Context<'_>) -> Option<Finding> {
    let occ = running(cx)?;
    if !occ.binding().contains(Resource::Registers) {
        return None;
    }
    let (arch, kernel, launch) = (cx.target.arch, &cx.spec.kernel, &cx.spec.launch);
    let step = analysis::register_step(arch, kernel, launch).ok()??;
    if step.drop() > cx.spec.thresholds.register_step_max_drop {
        return None;
    }
    let (regs, fewer) = (step.registers_per_thread, step.fewer_registers_per_thread);
    let warp = arch.warp_size;
    let per_warp = |r: u32, allocated: u32| {
        if r * warp == allocated {
            format!("{r} x {warp} = {allocated}")
        } else {
            format!("{r} x {warp} = {} rounded up to {allocated}", r * warp)
        }
    };
    let mut notes = vec![format!(
        "registers are allocated per warp in units of {}: {} per warp; {}",
        arch.reg_alloc_unit_per_warp,
        per_warp(regs, step.before.registers_per_warp),
        per_warp(fewer, step.after.registers_per_warp),
    )];
    if let Ok(budget) = analysis::register_budget(arch, kernel, launch) {
        let levels: Vec<String> = budget
            .iter()
            .filter(|level| level.occupancy.blocks_per_sm >= occ.blocks_per_sm)
            .map(|level| {
                format!(
                    "<= {} regs: {}",
                    level.max_registers_per_thread,
                    blocks_and_percent(&level.occupancy)
                )
            })
            .collect();
        notes.push(format!(
            "register budget for {}-thread blocks on {}: {}",
            occ.threads_per_block,
            arch.sm,
            levels.join(", ")
        ));
    }
    cx.finding(&REGISTER_STEP,
        Input::Registers,
        format!(
            "{}: {regs} regs/thread is {} over a register allocation step: {fewer} give {} instead of {}",
            cx.subject(Scope::Target),
            count(step.drop(), "register"),
            blocks_and_percent(&step.after),
            blocks_and_percent(&step.before),
        ),
        notes,
        vec![format!(
            "-maxrregcount={fewer} or __launch_bounds__({}, {}) asks ptxas for at most {fewer} registers",
            occ.threads_per_block, step.after.blocks_per_sm
        )],
    )
}

fn smem_step(cx: &Context<'_>) -> Option<Finding> {
    let occ = running(cx)?;
    if !occ.binding().contains(Resource::SharedMemory) {
        return None;
    }
    let (arch, kernel, launch) = (cx.target.arch, &cx.spec.kernel, &cx.spec.launch);
    let step = analysis::smem_step(arch, kernel, launch).ok()??;
    if step.shave_bytes() > cx.spec.thresholds.smem_step_max_bytes {
        return None;
    }
    let shave = step.shave_bytes();
    let dynamic = launch.dynamic_smem_bytes;
    let (input, help) = if dynamic >= shave {
        (
            Input::DynamicSmem,
            format!(
                "smem = {} ({} less dynamic shared memory per block)",
                dynamic - shave,
                bytes_text(shave.into())
            ),
        )
    } else {
        (
            Input::StaticSmem,
            format!(
                "at most {} of static + dynamic shared memory per block ({} less)",
                bytes_text(step.fewer_smem_bytes.into()),
                bytes_text(shave.into())
            ),
        )
    };
    cx.finding(&SMEM_STEP,
        input,
        format!(
            "{}: shared memory per block is {} over a step: {} of static + dynamic gives {} instead of {}",
            cx.subject(Scope::Target),
            bytes_text(shave.into()),
            bytes_text(step.fewer_smem_bytes.into()),
            blocks_and_percent(&step.after),
            blocks_and_percent(&step.before),
        ),
        vec![format!(
            "{} static + {} dynamic + {} reserved, rounded up to {} = {} per block; {} carveout / {} = {}; \
             {} need at most {} per block",
            bytes_text(kernel.static_smem_bytes.into()),
            bytes_text(dynamic.into()),
            bytes_text(arch.reserved_smem_per_block_bytes.into()),
            arch.smem_alloc_granularity_bytes,
            bytes_text(occ.smem_per_block_bytes),
            bytes_text(occ.smem_per_sm_bytes.into()),
            bytes_text(occ.smem_per_block_bytes),
            count(occ.blocks_per_sm, "block"),
            count(step.after.blocks_per_sm, "block"),
            bytes_text(step.after.smem_per_block_bytes),
        )],
        vec![help],
    )
}

fn block_limit(cx: &Context<'_>) -> Option<Finding> {
    let occ = running(cx)?;
    if !occ.binding().contains(Resource::Blocks)
        || occ.active_warps_per_sm() >= occ.max_warps_per_sm
    {
        return None;
    }
    let (arch, kernel, launch) = (cx.target.arch, &cx.spec.kernel, &cx.spec.launch);
    let change = analysis::larger_block(arch, kernel, launch).ok()??;
    cx.finding(
        &BLOCK_LIMIT,
        Input::Block,
        format!(
            "{}: {}-thread blocks hit the limit of {} resident blocks per SM: {} of {} warps ({})",
            cx.subject(Scope::Target),
            occ.threads_per_block,
            arch.max_blocks_per_sm,
            occ.active_warps_per_sm(),
            occ.max_warps_per_sm,
            percent(occ.active_warps_per_sm(), occ.max_warps_per_sm),
        ),
        vec![format!(
            "{} holds at most {} per SM: {} x {} = {} of {} warps",
            arch.sm,
            count(arch.max_blocks_per_sm, "block"),
            arch.max_blocks_per_sm,
            count(occ.warps_per_block, "warp"),
            occ.active_warps_per_sm(),
            occ.max_warps_per_sm,
        )],
        vec![format!(
            "block = {} gives {}",
            change.value,
            occupancy_text(&change.occupancy)
        )],
    )
}

fn barrier_limit(cx: &Context<'_>) -> Option<Finding> {
    let occ = running(cx)?;
    if !occ.binding().contains(Resource::Barriers) {
        return None;
    }
    let (arch, kernel, launch) = (cx.target.arch, &cx.spec.kernel, &cx.spec.launch);
    let (barriers, better) = analysis_pair(analysis::fewer_barriers(arch, kernel, launch))?;
    cx.finding(
        &BARRIER_LIMIT,
        Input::Barriers,
        format!(
            "{}: {} barriers per block allow {}",
            cx.subject(Scope::Target),
            kernel.barriers,
            blocks_and_percent(&occ),
        ),
        vec![format!(
            "{} has {} block barriers per SM: {} / {} = {}",
            arch.sm,
            arch.barriers_per_sm,
            arch.barriers_per_sm,
            kernel.barriers,
            count(occ.limits.barriers, "block"),
        )],
        vec![format!(
            "barriers = {barriers} (named barrier ids 0 to {}) gives {}",
            barriers - 1,
            blocks_and_percent(&better)
        )],
    )
}

fn carveout_limit(cx: &Context<'_>) -> Option<Finding> {
    let occ = running(cx)?;
    let (arch, kernel, launch) = (cx.target.arch, &cx.spec.kernel, &cx.spec.launch);
    let Carveout::Percent(current) = kernel.carveout else {
        return None;
    };
    let (percent_fix, better) = analysis_pair(analysis::carveout_fix(arch, kernel, launch))?;
    cx.finding(
        &CARVEOUT_LIMIT,
        Input::Carveout,
        format!(
            "{}: the carveout preference of {current}% gives {}; the largest carveout gives {}",
            cx.subject(Scope::Target),
            blocks_and_percent(&occ),
            blocks_and_percent(&better),
        ),
        vec![format!(
            "{current}% of {} is snapped up to the {} carveout: {} / {} per block = {}",
            bytes_text(arch.smem_per_sm_bytes.into()),
            bytes_text(occ.smem_per_sm_bytes.into()),
            bytes_text(occ.smem_per_sm_bytes.into()),
            bytes_text(occ.smem_per_block_bytes),
            count(occ.limits.shared_memory, "block"),
        )],
        vec![format!(
            "carveout = {percent_fix}% (or no preference) gives {}",
            blocks_and_percent(&better)
        )],
    )
}
