//! [`REGISTER_STEP`]: a few registers per thread fewer would add resident blocks. Its
//! declaration, documentation and check.

use super::utils::{blocks_and_percent, count, running};
use super::{Context, Finding, Input, Level, Lint, Scope};
use crate::analysis;
use crate::occupancy::Resource;

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
