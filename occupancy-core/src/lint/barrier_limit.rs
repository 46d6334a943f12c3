//! [`BARRIER_LIMIT`]: named barriers per block limit resident blocks. Its declaration,
//! documentation and check.

use super::utils::{analysis_pair, blocks_and_percent, count, running};
use super::{Context, Finding, Input, Level, Lint, Scope};
use crate::analysis;
use crate::occupancy::Resource;

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
