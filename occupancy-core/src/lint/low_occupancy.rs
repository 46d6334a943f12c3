//! [`LOW_OCCUPANCY`]: theoretical occupancy below the policy floor. Its declaration,
//! documentation and check.

use super::floor::percent;
use super::utils::{analysis_pair, count, occupancy_text};
use super::{Context, Finding, Input, Level, Lint, Scope, bytes_text, fix};
use crate::analysis;
use crate::occupancy::{Occupancy, Resource};

declare_lint! {
    /// ### What it does
    /// Reports a launch whose theoretical occupancy (active warps per SM / the SM's maximum)
    /// on a target is below the policy floor (`min_occupancy`, 50% unless configured), with
    /// the limiting resource, its arithmetic, and the largest registers per thread, the
    /// shared memory per block or the block size that reaches the floor.
    ///
    /// ### Why is this bad
    /// Few resident warps leave the SM little to switch to while warps wait on memory, so
    /// latency shows. Kernels that hide latency by instruction-level parallelism (tiled
    /// GEMMs) can run well below 50%: lower the floor for them (`min_occupancy = 25%`) or
    /// `allow(low_occupancy)`.
    ///
    /// ### Example
    /// ```text
    /// // sm_90: 96 regs -> 3072 per warp -> 5 warps per sub-partition -> 2 blocks of 8 warps
    /// // = 16 of 64 warps (25%).
    /// #[occupancy::check(block = 256, regs = 96, target = "sm_90")]
    /// fn launch(stream: &CudaStream) { /* ... */ }
    /// ```
    /// Use instead (compile the kernel with `__launch_bounds__(256, 4)`):
    /// ```text
    /// #[occupancy::check(block = 256, regs = 64, target = "sm_90")]
    /// fn launch(stream: &CudaStream) { /* ... */ }
    /// ```
    ///
    /// ### Measured
    /// on an H200, sgemm_tiled at 75% with `__launch_bounds__(256, 8)` (32 registers, a few
    /// spills): 6.89 -> 6.58 ms; sgemm_128x128_8x8 at 25% forced to 64 registers for 50%: 4.46
    /// -> 37.9 ms, 8.5 times slower from spills (docs/ACHIEVED.md).
    pub static LOW_OCCUPANCY = Lint {
        name: "low_occupancy",
        default_level: Level::Warn,
        configurable: true,
        scope: Scope::Target,
        summary: "theoretical occupancy below the policy floor",
        check: low_occupancy,
    };
}

fn low_occupancy(cx: &Context<'_>) -> Option<Finding> {
    let occ = cx.result.ok().filter(|occ| occ.blocks_per_sm > 0)?;
    let floor = cx.spec.min_occupancy;
    if floor.is_met_by(&occ) {
        return None;
    }
    let arch = cx.target.arch;
    let binding = occ.binding();
    let notes = binding
        .iter()
        .map(|resource| limiter_note(cx, &occ, resource))
        .collect();
    let input = [
        Resource::Registers,
        Resource::SharedMemory,
        Resource::Barriers,
        Resource::Warps,
        Resource::Blocks,
    ]
    .into_iter()
    .find(|r| binding.contains(*r))
    .map_or(Input::Block, |r| match r {
        Resource::Registers => Input::Registers,
        Resource::SharedMemory if cx.spec.launch.dynamic_smem_bytes > 0 => Input::DynamicSmem,
        Resource::SharedMemory => Input::StaticSmem,
        Resource::Barriers => Input::Barriers,
        Resource::Warps | Resource::Blocks => Input::Block,
    });
    let mut helps = Vec::new();
    let kernel = &cx.spec.kernel;
    let launch = &cx.spec.launch;
    let wanted = fix::blocks_needed(
        arch,
        floor.warps_needed(occ.max_warps_per_sm),
        occ.warps_per_block,
    );
    if let Some(wanted) = wanted {
        if binding.contains(Resource::Registers)
            && let Some((regs, new)) =
                analysis_pair(analysis::registers_for_blocks(arch, kernel, launch, wanted))
        {
            helps.push(format!(
                "{regs} regs/thread (e.g. __launch_bounds__({}, {})) gives {}",
                occ.threads_per_block,
                new.blocks_per_sm,
                percent(new.active_warps_per_sm(), new.max_warps_per_sm),
            ));
        }
        if binding.contains(Resource::SharedMemory) {
            if let Some(new) = fix::default_carveout_for(arch, kernel, launch, wanted) {
                helps.push(format!(
                    "the largest carveout (leave carveout unset) gives {}",
                    percent(new.active_warps_per_sm(), new.max_warps_per_sm)
                ));
            } else if launch.dynamic_smem_bytes > 0 {
                if let Some((bytes_fit, new)) = fix::dynamic_smem_for(arch, kernel, launch, wanted)
                {
                    helps.push(format!(
                        "at most {} of dynamic shared memory per block (smem = {bytes_fit}) \
                         gives {}",
                        bytes_text(bytes_fit.into()),
                        percent(new.active_warps_per_sm(), new.max_warps_per_sm)
                    ));
                }
            } else if let Some((bytes_fit, new)) =
                analysis_pair(analysis::smem_for_blocks(arch, kernel, launch, wanted))
            {
                helps.push(format!(
                    "{} of static shared memory per block gives {}",
                    bytes_text(bytes_fit.into()),
                    percent(new.active_warps_per_sm(), new.max_warps_per_sm)
                ));
            }
        }
        if binding.contains(Resource::Barriers)
            && let Some((barriers, new)) =
                analysis_pair(analysis::barriers_for_blocks(arch, kernel, launch, wanted))
        {
            helps.push(format!(
                "barriers = {barriers} gives {}",
                percent(new.active_warps_per_sm(), new.max_warps_per_sm)
            ));
        }
    }
    if let Some((size, new)) = fix::block_size_for(
        arch,
        kernel,
        launch,
        u64::from(occ.threads_per_block),
        |o| floor.is_met_by(o),
    ) {
        let same_smem = if launch.dynamic_smem_bytes > 0 {
            " with the same dynamic shared memory"
        } else {
            ""
        };
        helps.push(format!(
            "block = {size}{same_smem} gives {}",
            occupancy_text(&new)
        ));
    }
    if helps.is_empty() {
        helps.push(format!(
            "no change of registers, shared memory, barriers or block size alone reaches {floor} on {}",
            arch.sm
        ));
    }
    Some(Finding {
        lint: &LOW_OCCUPANCY,
        target: Some(cx.target),
        wrapper: cx.spec.wrapper.to_owned(),
        input,
        message: format!(
            "{}: {} occupancy ({} of {} warps), below the {floor} floor",
            cx.subject(Scope::Target),
            percent(occ.active_warps_per_sm(), occ.max_warps_per_sm),
            occ.active_warps_per_sm(),
            occ.max_warps_per_sm,
        ),
        notes,
        helps,
    })
}

/// The arithmetic of one binding limit, e.g. `limited by registers: 40 regs/thread -> 40 x
/// 32 = 1280 per warp -> 16384 per sub-partition / 1280 = 12 warps x 4 / 8 warps per block
/// = 6 blocks/SM`.
fn limiter_note(cx: &Context<'_>, occ: &Occupancy, resource: Resource) -> String {
    let arch = cx.target.arch;
    let kernel = &cx.spec.kernel;
    let launch = &cx.spec.launch;
    let n = occ.limits.get(resource);
    let wpb = occ.warps_per_block;
    match resource {
        Resource::Warps => format!(
            "limited by warps: {} = {} per block -> {} warps per SM / {wpb} = {}/SM",
            count(occ.threads_per_block, "thread"),
            count(wpb, "warp"),
            occ.max_warps_per_sm,
            count(n, "block")
        ),
        Resource::Registers => {
            let regs = kernel.registers_per_thread;
            let raw = u64::from(regs) * u64::from(arch.warp_size);
            let per_warp = if raw == u64::from(occ.registers_per_warp) {
                format!("{regs} x {} = {raw} per warp", arch.warp_size)
            } else {
                format!(
                    "{regs} x {} = {raw} rounded up to {} per warp",
                    arch.warp_size, occ.registers_per_warp
                )
            };
            let per_sub = arch.regs_per_sm / arch.sub_partitions;
            let warps_per_sub = per_sub / occ.registers_per_warp.max(1);
            format!(
                "limited by registers: {regs} regs/thread -> {per_warp} -> {per_sub} per \
                 sub-partition / {} = {warps_per_sub} warps x {} sub-partitions / {wpb} warps per \
                 block = {}/SM",
                occ.registers_per_warp,
                arch.sub_partitions,
                count(n, "block")
            )
        }
        Resource::SharedMemory => {
            let raw = u64::from(kernel.static_smem_bytes)
                + u64::from(launch.dynamic_smem_bytes)
                + u64::from(arch.reserved_smem_per_block_bytes);
            let per_block = if raw == occ.smem_per_block_bytes {
                format!("{} per block", bytes_text(raw))
            } else {
                format!(
                    "{} rounded up to {} per block",
                    bytes_text(raw),
                    bytes_text(occ.smem_per_block_bytes)
                )
            };
            format!(
                "limited by shared memory: {} static + {} dynamic + {} reserved = {per_block} -> \
                 {} carveout / {} = {}/SM",
                bytes_text(kernel.static_smem_bytes.into()),
                bytes_text(launch.dynamic_smem_bytes.into()),
                bytes_text(arch.reserved_smem_per_block_bytes.into()),
                bytes_text(occ.smem_per_sm_bytes.into()),
                bytes_text(occ.smem_per_block_bytes),
                count(n, "block"),
            )
        }
        Resource::Blocks => format!(
            "limited by blocks: {} holds at most {n} resident blocks per SM, {} each",
            arch.sm,
            count(wpb, "warp")
        ),
        Resource::Barriers => format!(
            "limited by barriers: {} per SM / {} per block = {}/SM",
            arch.barriers_per_sm,
            kernel.barriers,
            count(n, "block")
        ),
    }
}
