//! [`LAUNCH_BOUNDS_MISMATCH`]: the launch does not reach the kernel's __launch_bounds__ min
//! blocks per SM. Its declaration, documentation and check.

use super::utils::{count, occupancy_text};
use super::{Context, Finding, Input, Level, Lint, Scope};
use crate::analysis;
use crate::occupancy::{BlockDim, Launch, Occupancy, Resource};

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

/// The limiting resources of `occ`, for a note: `registers, shared memory`.
fn binding_words(occ: &Occupancy) -> String {
    occ.binding()
        .iter()
        .map(|r| r.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}
