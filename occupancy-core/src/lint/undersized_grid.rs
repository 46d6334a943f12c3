//! [`UNDERSIZED_GRID`]: the grid cannot fill the GPU once. Its declaration, documentation and
//! check.

use super::floor::percent;
use super::utils::{ceiling_text, count64, launch_waves, wave_note};
use super::{Context, Finding, Input, Level, Lint, Scope};

declare_lint! {
    /// ### What it does
    /// With a grid and a named GPU target, reports a grid with fewer blocks than the GPU
    /// holds at once (blocks per SM x SMs, or for a cluster launch the clusters resident at
    /// once x blocks per cluster), naming how many SMs get no block at all.
    ///
    /// ### Why is this bad
    /// A launch of one 1024-thread block on an 80-SM V100 uses one SM; 79 sit idle whatever
    /// the kernel's occupancy, and the one SM holds 32 of its 64 warps: at most 50% achieved
    /// occupancy (the grid's ceiling, [`crate::analysis::grid_ceiling`]). Occupancy per SM says nothing about a GPU the grid leaves
    /// empty.
    ///
    /// ### Example
    /// ```text
    /// #[occupancy::check(block = (32, 32), regs = 32, grid = 1, target = "V100")]
    /// fn launch(stream: &CudaStream) { /* ... */ } // at most 50% achieved
    /// ```
    /// Use instead: split the work into a full wave, 160 blocks of 1024 threads at 2 per SM
    /// (one block per SM, 80, still leaves half the block slots idle), e.g. with a
    /// grid-stride loop.
    ///
    /// ### Measured
    /// saxpy on an H200, 117 blocks against 1056: 2.08 against 0.446 ms (4.7x), achieved
    /// occupancy 12.5% (the grid's ceiling) against 96.9% (docs/ACHIEVED.md).
    pub static UNDERSIZED_GRID = Lint {
        name: "undersized_grid",
        default_level: Level::Warn,
        configurable: true,
        scope: Scope::Target,
        summary: "the grid cannot fill the GPU once",
        check: undersized_grid,
    };
}

fn undersized_grid(cx: &Context<'_>) -> Option<Finding> {
    let lw = launch_waves(cx)?;
    let (w, sms) = (lw.waves, lw.sm_count);
    if w.fills_gpu() {
        return None;
    }
    let grid = w.grid_blocks;
    let idle_note = if grid < u64::from(sms) {
        format!("{} of {sms} SMs get no block", u64::from(sms) - grid)
    } else if lw.clusters.is_some() {
        format!(
            "only {grid} of the {} blocks a wave of clusters holds are used ({})",
            w.blocks_per_wave,
            percent(grid, w.blocks_per_wave)
        )
    } else {
        format!(
            "every SM gets a block, but only {grid} of {} block slots are used ({})",
            w.blocks_per_wave,
            percent(grid, w.blocks_per_wave)
        )
    };
    let occ = cx.result.ok()?;
    cx.finding(&UNDERSIZED_GRID,
        Input::Grid,
        format!(
            "{}: a grid of {} cannot fill the GPU once ({} of a wave): {}",
            cx.subject(Scope::Target),
            count64(grid, "block"),
            percent(grid, w.blocks_per_wave),
            ceiling_text(&occ, sms, grid)?,
        ),
        vec![wave_note(cx, &lw), idle_note],
        vec![format!(
            "at least {sms} blocks give every SM one, {} fill the GPU: split the work into more blocks",
            w.blocks_per_wave
        )],
    )
}
