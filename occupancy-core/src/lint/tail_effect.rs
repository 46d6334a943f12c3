//! [`TAIL_EFFECT`]: the grid's last wave leaves much of the GPU idle. Its declaration,
//! documentation and check.

use super::floor::percent;
use super::utils::{ceiling_text, launch_waves, wave_note};
use super::{Context, Finding, Input, Level, Lint, Scope};

declare_lint! {
    /// ### What it does
    /// With a grid (`grid = 1300`) and a named GPU target, counts the waves the grid runs in
    /// (blocks per SM x SMs at a time; for a cluster launch, the clusters resident at once x
    /// blocks per cluster, as `crate::cluster` models them) and reports a last, partial wave
    /// that leaves more than the policy's share (`thresholds.tail_effect_max_waste`, 10% by
    /// default) of the launch's block slots idle, assuming blocks of equal duration.
    ///
    /// ### Why is this bad
    /// A grid of 1300 blocks on an H100 at 8 blocks per SM (1056 at a time) runs one full
    /// wave and a second at 23%: the launch takes two waves' time for 1.23 waves of work, and
    /// 38% of its block slots sit idle; while the last wave runs alone, its 244 blocks on 132
    /// SMs allow at most 25% achieved occupancy.
    ///
    /// ### Example
    /// ```text
    /// #[occupancy::check(block = 256, regs = 32, grid = 1300, target = "H100")]
    /// fn launch(stream: &CudaStream) { /* ... */ } // last wave: at most 25% achieved
    /// ```
    /// Use instead: a whole number of waves (`grid = 1056`, more work per block), or a
    /// grid-stride loop over one wave.
    ///
    /// ### Measured
    /// saxpy on an H200, 1.25 waves (1320 blocks) against a grid-stride wave of 1056: 0.555
    /// against 0.448 ms, achieved occupancy 81.8% against 96.9% (docs/ACHIEVED.md).
    pub static TAIL_EFFECT = Lint {
        name: "tail_effect",
        default_level: Level::Warn,
        configurable: true,
        scope: Scope::Target,
        summary: "the grid's last wave leaves much of the GPU idle",
        check: tail_effect,
    };
}

fn tail_effect(cx: &Context<'_>) -> Option<Finding> {
    let lw = launch_waves(cx)?;
    let w = lw.waves;
    if w.full_waves == 0 || w.tail_blocks == 0 {
        return None;
    }
    let waste_bp = (w.tail_waste() * 10000.0).round() as u32;
    if waste_bp <= cx.spec.thresholds.tail_effect_max_waste_bp {
        return None;
    }
    let per_wave = w.blocks_per_wave;
    let (down, up) = (w.full_waves * per_wave, (w.full_waves + 1) * per_wave);
    let occ = cx.result.ok()?;
    let sms = lw.sm_count;
    cx.finding(&TAIL_EFFECT,
        Input::Grid,
        format!(
            "{}: a grid of {} blocks runs {:.2} waves: the last wave fills {} of {per_wave} block slots, \
             {} of the launch's block slots idle; the last wave alone: {}",
            cx.subject(Scope::Target),
            w.grid_blocks,
            w.waves(),
            w.tail_blocks,
            percent(waste_bp, 10000u32),
            ceiling_text(&occ, sms, w.tail_blocks)?,
        ),
        vec![wave_note(cx, &lw)],
        vec![format!(
            "a grid of {down} or {up} blocks is a whole number of waves (more or less work per block), or \
             loop over the work with a grid of {per_wave} (grid-stride)"
        )],
    )
}
