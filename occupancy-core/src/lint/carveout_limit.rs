//! [`CARVEOUT_LIMIT`]: the carveout preference costs resident blocks. Its declaration,
//! documentation and check.

use super::utils::{analysis_pair, blocks_and_percent, count, running};
use super::{Context, Finding, Input, Level, Lint, Scope, bytes_text};
use crate::analysis;
use crate::occupancy::Carveout;

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
