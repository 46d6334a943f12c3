//! [`REGISTER_SPILL`]: the compiled kernel spills registers to local memory. Its declaration,
//! documentation and check.

use super::floor::percent;
use super::utils::{count, occupancy_text};
use super::{Context, Finding, Input, Level, Lint, Scope};
use crate::analysis;

declare_lint! {
    /// ### What it does
    /// Reports a kernel whose compiled artifact shows register spills (ptxas "spill stores"
    /// / "spill loads", read from the cubin or the ptxas log), or a stack frame of local
    /// memory when the artifact does not say whether it holds spills. Names the bytes and
    /// what the register budget says instead: the most registers per thread that keeps the
    /// launch's resident blocks, or what one block fewer per SM would allow.
    ///
    /// ### Why is this bad
    /// Spilling is the costliest way to buy occupancy: every spilled value is a store and a
    /// load through L1 and L2 (and DRAM when they miss), in the kernel's inner loops as
    /// often as not. A kernel compiled with `-maxrregcount` or `__launch_bounds__` tighter
    /// than its launch needs spills for nothing.
    ///
    /// ### Example
    /// ```text
    /// // Compiled with __launch_bounds__(256, 8): 32 registers, 352 B of spill stores.
    /// #[occupancy::check(kernel = "sgemm_8x8", block = 256, target = "sm_90")]
    /// fn launch(stream: &CudaStream) { /* ... */ }
    /// ```
    /// Use instead: compile with `__launch_bounds__(256, 4)` (64 registers, no spills) and
    /// accept 50% occupancy, or restructure the kernel to need fewer live values.
    pub static REGISTER_SPILL = Lint {
        name: "register_spill",
        default_level: Level::Warn,
        configurable: true,
        scope: Scope::Target,
        summary: "the compiled kernel spills registers to local memory",
        check: register_spill,
    };
}

fn register_spill(cx: &Context<'_>) -> Option<Finding> {
    let occ = cx.result.ok().filter(|occ| occ.blocks_per_sm > 0)?;
    let facts = cx.spec.artifact;
    let subject = cx.subject(Scope::Target);
    let message = match (
        facts.spill_store_bytes,
        facts.spill_load_bytes,
        facts.local_bytes,
    ) {
        (Some(stores), Some(loads), _) if stores > 0 || loads > 0 => format!(
            "{subject}: the kernel spills registers: {stores} B of spill stores and {loads} B of spill loads per thread"
        ),
        (None, None, Some(frame)) if frame > 0 => format!(
            "{subject}: the kernel uses {frame} B of local memory per thread (stack frame); the artifact does not \
             say how much of it is register spills"
        ),
        _ => return None,
    };
    let (arch, kernel, launch) = (cx.target.arch, &cx.spec.kernel, &cx.spec.launch);
    let regs = kernel.registers_per_thread;
    let budget = analysis::register_budget(arch, kernel, launch).ok()?;
    let same = budget
        .iter()
        .find(|level| level.occupancy.blocks_per_sm == occ.blocks_per_sm);
    let fewer = budget
        .iter()
        .find(|level| level.occupancy.blocks_per_sm < occ.blocks_per_sm);
    let threads = occ.threads_per_block;
    let help = match (same, fewer) {
        (Some(level), _) if level.max_registers_per_thread > regs => format!(
            "up to {} regs/thread keep {}/SM ({}): let ptxas use them (-maxrregcount={} or \
             __launch_bounds__({threads}, {})) instead of spilling",
            level.max_registers_per_thread,
            count(occ.blocks_per_sm, "block"),
            percent(occ.active_warps_per_sm(), occ.max_warps_per_sm),
            level.max_registers_per_thread,
            occ.blocks_per_sm,
        ),
        (_, Some(level)) => format!(
            "one step down, {}/SM ({}) allow {} regs/thread (__launch_bounds__({threads}, {})): fewer spills at lower \
             occupancy; measure both",
            count(level.occupancy.blocks_per_sm, "block"),
            percent(level.occupancy.active_warps_per_sm(), level.occupancy.max_warps_per_sm),
            level.max_registers_per_thread,
            level.occupancy.blocks_per_sm,
        ),
        _ => "restructure the kernel to keep fewer values live (smaller register tiles, fewer unrolled \
              iterations)"
            .to_owned(),
    };
    cx.finding(&REGISTER_SPILL,
        Input::Kernel,
        message,
        vec![format!(
            "at {regs} regs/thread the launch gets {}; spills trade that occupancy for local-memory \
             traffic through L1 and L2",
            occupancy_text(&occ)
        )],
        vec![help],
    )
}
