//! Lints on what the compiled kernel says about itself: register spills, and
//! `__launch_bounds__` that the launch contradicts. They need the kernel's artifact (a cubin,
//! a ptxas log or a resource manifest: `kernel = "..."` in the attribute); with literal
//! `regs = N` they stay silent.

use super::floor::percent;
use super::lints::{count, occupancy_text};
use super::{Context, Finding, Input, Level, Lint, Scope};
use crate::analysis;
use crate::occupancy::{BlockDim, Launch, Occupancy, Resource};

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

declare_lint! {
    /// ### What it does
    /// Reports a launch that contradicts the kernel's `__launch_bounds__(max_threads,
    /// min_blocks)`: the resident blocks per SM it gets on a target are fewer than the
    /// `min_blocks` the kernel was compiled for (ptxas limited its registers for that many
    /// blocks of `max_threads`). A block with more threads than `max_threads` cannot launch
    /// at all and is reported by `launch_impossible`.
    ///
    /// ### Why is this bad
    /// ptxas traded registers (and maybe spills) for `min_blocks` resident blocks; if the
    /// launch cannot reach them, because its blocks differ from `max_threads` or shared
    /// memory or barriers bind first, the kernel pays for occupancy it does not get.
    ///
    /// ### Example
    /// ```text
    /// // Kernel: __launch_bounds__(256, 4); launched with 48 KiB of shared memory per block.
    /// #[occupancy::check(kernel = "tile", block = 256, smem = 48 KiB, target = "sm_86")]
    /// fn launch(stream: &CudaStream) { /* ... */ } // 2 blocks/SM: min_blocks 4 not reached
    /// ```
    /// Use instead: a tile that fits 4 blocks (`smem = 24 KiB`), or `__launch_bounds__(256, 2)`
    /// so that ptxas may use more registers.
    pub static LAUNCH_BOUNDS_MISMATCH = Lint {
        name: "launch_bounds_mismatch",
        default_level: Level::Warn,
        configurable: true,
        scope: Scope::Target,
        summary: "the launch does not reach the kernel's __launch_bounds__ min blocks per SM",
        check: launch_bounds_mismatch,
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

/// The limiting resources of `occ`, for a note: `registers, shared memory`.
fn binding_words(occ: &Occupancy) -> String {
    occ.binding()
        .iter()
        .map(|r| r.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

fn launch_bounds_mismatch(cx: &Context<'_>) -> Option<Finding> {
    let occ = cx.result.ok().filter(|occ| occ.blocks_per_sm > 0)?;
    let min_blocks = cx.spec.artifact.min_blocks_per_sm?;
    if occ.blocks_per_sm >= min_blocks {
        return None;
    }
    let (arch, kernel, launch) = (cx.target.arch, &cx.spec.kernel, &cx.spec.launch);
    let bounds = kernel.max_threads_per_block;
    let bounds_text = match bounds {
        Some(t) => format!("__launch_bounds__({t}, {min_blocks})"),
        None => format!(".minnctapersm {min_blocks}"),
    };
    let mut notes = vec![format!(
        "this launch is limited by {}: {}",
        binding_words(&occ),
        occupancy_text(&occ)
    )];
    let mut helps = Vec::new();
    if let Some(t) = bounds
        && t != occ.threads_per_block
    {
        notes.push(format!(
            "ptxas sized the kernel's registers for {} of {}; this launch uses {}-thread blocks",
            count(min_blocks, "block"),
            count(t, "thread"),
            occ.threads_per_block
        ));
        let at_bounds = crate::occupancy::occupancy(
            arch,
            kernel,
            &Launch {
                block: BlockDim::linear(t),
                ..*launch
            },
        );
        if let Ok(other) = at_bounds
            && other.blocks_per_sm >= min_blocks
        {
            helps.push(format!(
                "block = {t} (the launch bounds' size) gives {}",
                occupancy_text(&other)
            ));
        }
    }
    if occ.binding().contains(Resource::SharedMemory)
        && let Ok(Some(change)) = analysis::smem_for_blocks(arch, kernel, launch, min_blocks)
    {
        helps.push(format!(
            "at most {} B of static + dynamic shared memory per block reaches {}",
            change.value,
            count(min_blocks, "block")
        ));
    }
    helps.push(format!(
        "or compile with __launch_bounds__({}, {}): ptxas may then use more registers per thread",
        bounds.unwrap_or(occ.threads_per_block),
        occ.blocks_per_sm
    ));
    cx.finding(
        &LAUNCH_BOUNDS_MISMATCH,
        Input::Kernel,
        format!(
            "{}: the kernel's {bounds_text} asks for {} per SM, this launch gets {}",
            cx.subject(Scope::Target),
            count(min_blocks, "block"),
            occ.blocks_per_sm
        ),
        notes,
        helps,
    )
}
