//! [`BLOCK_LIMIT`]: blocks too small: the resident-block limit binds before the warps are used.
//! Its declaration, documentation and check.

use super::floor::percent;
use super::utils::{count, occupancy_text, running};
use super::{Context, Finding, Input, Level, Lint, Scope};
use crate::analysis;
use crate::occupancy::{BlockDim, Launch, Prepared, Resource};

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
        vec![help(cx, occ.threads_per_block, &change)],
    )
}

/// `block = 96 gives 100% (...)`, with the dynamic shared memory as launched; where the
/// launch has some and a size that grows with the block (`block * 4` bytes, which the lint
/// cannot tell from a constant) would give another occupancy, that one too.
fn help(cx: &Context<'_>, threads: u32, change: &analysis::Change<u32>) -> String {
    let (arch, kernel, launch) = (cx.target.arch, &cx.spec.kernel, &cx.spec.launch);
    let mut text = format!(
        "block = {} gives {}",
        change.value,
        occupancy_text(&change.occupancy)
    );
    let smem = launch.dynamic_smem_bytes;
    if smem == 0 || threads == 0 {
        return text;
    }
    let scaled = u64::from(smem) * u64::from(change.value) / u64::from(threads);
    let Ok(scaled) = u32::try_from(scaled) else {
        return text;
    };
    let grown = Launch::new(BlockDim::linear(change.value)).with_dynamic_smem(scaled);
    let Ok(occ) = Prepared::new(arch, kernel).and_then(|p| p.occupancy(&grown)) else {
        return text;
    };
    if occ.active_warps_per_sm() != change.occupancy.active_warps_per_sm() {
        let grown = if occ.blocks_per_sm == 0 {
            "which cannot launch".to_owned()
        } else {
            occupancy_text(&occ)
        };
        text.push_str(&format!(
            " with the dynamic shared memory kept at {smem} B; grown with the block to \
             {scaled} B, {grown}"
        ));
    }
    text
}
