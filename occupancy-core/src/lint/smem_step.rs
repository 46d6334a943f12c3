//! [`SMEM_STEP`]: a few bytes less shared memory per block would add a resident block. Its
//! declaration, documentation and check.

use super::utils::{blocks_and_percent, count, running};
use super::{Context, Finding, Input, Level, Lint, Scope, bytes_text};
use crate::analysis;
use crate::occupancy::Resource;

declare_lint! {
    /// ### What it does
    /// Reports shared memory per block just above a boundary: when shaving at most a few
    /// bytes (the policy's `thresholds.smem_step_max_bytes`, 512 by default) of static +
    /// dynamic shared memory per block adds a resident block. The count includes the 1 KiB
    /// the driver reserves per block (cc 8.0+) and the rounding to the 128-byte (256 before
    /// cc 8.0) allocation granularity.
    ///
    /// ### Why is this bad
    /// The SM's shared memory holds whole blocks: on cc 8.6 a block of 50496 B (51584 with
    /// the reserve) fits once in 100 KiB, one of 50176 B fits twice. A few bytes of padding
    /// or a slightly smaller tile often buy a whole block.
    ///
    /// ### Example
    /// ```text
    /// #[occupancy::check(block = 128, regs = 32, smem = 50496, opt_in = 99 KiB, target = "sm_86")]
    /// fn launch(stream: &CudaStream) { /* ... */ } // 1 block/SM
    /// ```
    /// Use instead:
    /// ```text
    /// #[occupancy::check(block = 128, regs = 32, smem = 50176, opt_in = 99 KiB, target = "sm_86")]
    /// fn launch(stream: &CudaStream) { /* ... */ } // 2 blocks/SM
    /// ```
    ///
    /// ### Measured
    /// a shared-memory staged copy on an H200, 57600 against 57344 B per block: 75% -> 100%
    /// theoretical, 0.424 -> 0.364 ms, achieved 73.8% -> 98.2% (docs/ACHIEVED.md).
    pub static SMEM_STEP = Lint {
        name: "smem_step",
        default_level: Level::Warn,
        configurable: true,
        scope: Scope::Target,
        summary: "a few bytes less shared memory per block would add a resident block",
        check: smem_step,
    };
}

fn smem_step(cx: &Context<'_>) -> Option<Finding> {
    let occ = running(cx)?;
    if !occ.binding().contains(Resource::SharedMemory) {
        return None;
    }
    let (arch, kernel, launch) = (cx.target.arch, &cx.spec.kernel, &cx.spec.launch);
    let step = analysis::smem_step(arch, kernel, launch).ok()??;
    if step.shave_bytes() > cx.spec.thresholds.smem_step_max_bytes {
        return None;
    }
    let shave = step.shave_bytes();
    let dynamic = launch.dynamic_smem_bytes;
    let (input, help) = if dynamic >= shave {
        (
            Input::DynamicSmem,
            format!(
                "smem = {} ({} less dynamic shared memory per block)",
                dynamic - shave,
                bytes_text(shave.into())
            ),
        )
    } else {
        (
            Input::StaticSmem,
            format!(
                "at most {} of static + dynamic shared memory per block ({} less)",
                bytes_text(step.fewer_smem_bytes.into()),
                bytes_text(shave.into())
            ),
        )
    };
    cx.finding(&SMEM_STEP,
        input,
        format!(
            "{}: shared memory per block is {} over a step: {} of static + dynamic gives {} instead of {}",
            cx.subject(Scope::Target),
            bytes_text(shave.into()),
            bytes_text(step.fewer_smem_bytes.into()),
            blocks_and_percent(&step.after),
            blocks_and_percent(&step.before),
        ),
        vec![format!(
            "{} static + {} dynamic + {} reserved, rounded up to {} = {} per block; {} carveout / {} = {}; \
             {} need at most {} per block",
            bytes_text(kernel.static_smem_bytes.into()),
            bytes_text(dynamic.into()),
            bytes_text(arch.reserved_smem_per_block_bytes.into()),
            arch.smem_alloc_granularity_bytes,
            bytes_text(occ.smem_per_block_bytes),
            bytes_text(occ.smem_per_sm_bytes.into()),
            bytes_text(occ.smem_per_block_bytes),
            count(occ.blocks_per_sm, "block"),
            count(step.after.blocks_per_sm, "block"),
            bytes_text(step.after.smem_per_block_bytes),
        )],
        vec![help],
    )
}
