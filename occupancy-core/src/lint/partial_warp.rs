//! [`PARTIAL_WARP`]: threads per block not a multiple of the warp size. Its declaration,
//! documentation and check.

use super::floor::percent;
use super::utils::{block_text, count64};
use super::{Context, Finding, Input, Level, Lint, Scope};

declare_lint! {
    /// ### What it does
    /// Reports a block whose thread count is not a multiple of the warp size (32).
    ///
    /// ### Why is this bad
    /// Threads run in whole warps: the last warp of every block has idle lanes, yet it
    /// takes registers, a scheduler slot and a place in the SM's warp limit like a full one.
    ///
    /// ### Example
    /// ```text
    /// #[occupancy::check(block = (10, 10), regs = 32)] // 100 threads: 4 warps, 28 idle lanes
    /// fn launch(stream: &CudaStream) { /* ... */ }
    /// ```
    /// Use instead:
    /// ```text
    /// #[occupancy::check(block = (16, 8), regs = 32)] // 128 threads: 4 full warps
    /// fn launch(stream: &CudaStream) { /* ... */ }
    /// ```
    ///
    /// ### Measured
    /// conv2d on an H200, blocks of (20, 20) against (32, 12): 1.173 -> 1.088 ms, achieved
    /// occupancy 78.2% -> 90.6% (docs/ACHIEVED.md).
    pub static PARTIAL_WARP = Lint {
        name: "partial_warp",
        default_level: Level::Warn,
        configurable: true,
        scope: Scope::Launch,
        summary: "threads per block not a multiple of the warp size",
        check: partial_warp,
    };
}

fn partial_warp(cx: &Context<'_>) -> Option<Finding> {
    let warp = u64::from(cx.target.arch.warp_size);
    let block = cx.spec.launch.block;
    let threads = block.threads();
    if threads == 0 || threads.is_multiple_of(warp) {
        return None;
    }
    let warps = threads.div_ceil(warp);
    let idle = warp - threads % warp;
    // Suggest only blocks that can launch: multiples of the warp within the
    // architecture's threads per block (and the kernel's launch bounds).
    let arch = cx.target.arch;
    let limit = u64::from(cx.spec.kernel.thread_limit(arch));
    let down = threads / warp * warp;
    let up = down.saturating_add(warp);
    let sizes: Vec<String> = [down, up]
        .into_iter()
        .filter(|&n| n > 0 && n <= limit)
        .map(|n| n.to_string())
        .collect();
    let help = if sizes.is_empty() {
        let by = if limit < u64::from(arch.max_threads_per_block) {
            "the kernel's launch bounds allow".to_owned()
        } else {
            format!("{} allows", arch.sm)
        };
        if limit >= warp {
            format!(
                "a block of at most {} threads (a multiple of {warp}; the most {by} is {limit})",
                limit / warp * warp,
            )
        } else {
            format!(
                "a block of at most {} (the most {by})",
                count64(limit, "thread")
            )
        }
    } else {
        format!(
            "a block of {} threads (a multiple of {warp})",
            sizes.join(" or ")
        )
    };
    Some(Finding {
        lint: &PARTIAL_WARP,
        target: None,
        wrapper: cx.spec.wrapper.to_owned(),
        input: Input::Block,
        message: format!(
            "{}: block of {} is not a multiple of the {warp}-thread warp",
            cx.subject(Scope::Launch),
            block_text(block, threads)
        ),
        notes: vec![format!(
            "{} per block: the last runs {} of {warp} lanes, {} per block ({}) idle \
             but allocated like busy ones",
            count64(warps, "warp"),
            threads % warp,
            count64(idle, "lane"),
            percent(idle, warps.saturating_mul(warp))
        )],
        helps: vec![help],
    })
}
