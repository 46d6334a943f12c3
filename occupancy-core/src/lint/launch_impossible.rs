//! [`LAUNCH_IMPOSSIBLE`]: the launch cannot run on the target (no block fits, or the cluster or
//! grid is invalid). Its declaration, documentation and check.

use super::konst::{self, Impossible};
use super::utils::{analysis_pair, block_text, cluster_error, count, count64, occupancy_text};
use super::{Context, Finding, Input, Level, Lint, Scope, bytes_text, fix};
use crate::analysis;
use crate::arch::{MAX_GRID_DIM, MAX_STATIC_SMEM_PER_BLOCK_BYTES};
use crate::cluster::{ClusterDim, ClusterError};
use crate::occupancy::{GridDim, Occupancy, OccupancyError, ZeroReason};

declare_lint! {
    /// ### What it does
    /// Reports a launch that cannot run on a target: no block fits on an SM (the block has
    /// more threads than the device or the kernel's `__launch_bounds__` allow, its registers
    /// or shared memory exceed the per-block limits, its dynamic shared memory exceeds the
    /// opt-in set on the function, it uses more barriers than the SM has), the opt-in
    /// itself exceeds what the architecture allows, the kernel's static shared memory is
    /// over the 48 KiB ptxas compiles, or a thread-block cluster cannot launch: clusters
    /// before cc 9.0, a cluster over 8 blocks without the non-portable attribute
    /// (`non_portable = true`) or over the architecture's largest (16 on cc 9.0), a grid
    /// that is not a whole number of clusters along each dimension.
    ///
    /// ### Why is this bad
    /// The launch fails at run time (`CUDA_ERROR_INVALID_VALUE`,
    /// `CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES`, `CUDA_ERROR_INVALID_CLUSTER_SIZE`), or the
    /// kernel does not compile. Always an error; its level cannot be changed.
    ///
    /// ### Example
    /// ```text
    /// // 64 KiB of dynamic shared memory without the opt-in: over the 48 KiB default.
    /// #[occupancy::check(block = 256, regs = 32, smem = 64 KiB)]
    /// fn launch(stream: &CudaStream) { /* ... */ }
    /// ```
    /// Use instead (and call `cuFuncSetAttribute` with
    /// `CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES` = 65536 in the wrapper):
    /// ```text
    /// #[occupancy::check(block = 256, regs = 32, smem = 64 KiB, opt_in = 64 KiB)]
    /// fn launch(stream: &CudaStream) { /* ... */ }
    /// ```
    pub static LAUNCH_IMPOSSIBLE = Lint {
        name: "launch_impossible",
        default_level: Level::Deny,
        configurable: false,
        scope: Scope::Target,
        summary: "the launch cannot run on the target (no block fits, or the cluster or grid is invalid)",
        check: launch_impossible,
    };
}

/// The one decision of [`konst::impossible`] (which the macro's `const` check makes too),
/// then the finding with its numbers for the cause it names. Two causes only this lint
/// sees come first and in between: static shared memory over what ptxas compiles, and a
/// cluster launch the driver refuses.
fn launch_impossible(cx: &Context<'_>) -> Option<Finding> {
    let kernel = &cx.spec.kernel;
    if kernel.static_smem_bytes > MAX_STATIC_SMEM_PER_BLOCK_BYTES {
        return static_smem_over_ptxas(cx);
    }
    let cause = konst::impossible(kernel, &cx.spec.launch, &cx.result);
    if cause == Some(Impossible::ExceedsLaunchBounds)
        && let Some(bound) = kernel.max_threads_per_block
    {
        return over_launch_bounds(cx, bound);
    }
    if let Some(error) = cluster_error(cx) {
        return cluster_refused(cx, error);
    }
    cause?;
    match cx.result {
        Err(OccupancyError::OptInOverLimit {
            requested_bytes,
            limit_bytes,
        }) => opt_in_over_limit(cx, requested_bytes, limit_bytes),
        Err(other) => found(
            cx,
            Input::Block,
            format!("{}: {other}", cx.subject(Scope::Target)),
            vec![],
            vec![],
        ),
        Ok(occ) => no_block_fits(cx, &occ),
    }
}

/// A finding of [`LAUNCH_IMPOSSIBLE`] on the context's target.
fn found(
    cx: &Context<'_>,
    input: Input,
    message: String,
    notes: Vec<String>,
    helps: Vec<String>,
) -> Option<Finding> {
    cx.finding(&LAUNCH_IMPOSSIBLE, input, message, notes, helps)
}

/// The help naming the block size with this kernel's highest occupancy, when one launches.
fn best_block(cx: &Context<'_>) -> Option<String> {
    let arch = cx.target.arch;
    let kernel = &cx.spec.kernel;
    let launch = &cx.spec.launch;
    crate::occupancy::max_potential_block_size(arch, kernel, 0, |_| launch.dynamic_smem_bytes)
        .ok()
        .filter(|best| best.block_size > 0)
        .and_then(|best| {
            let l = crate::occupancy::Launch {
                block: crate::occupancy::BlockDim::linear(best.block_size),
                ..*launch
            };
            let occ = crate::occupancy::occupancy(arch, kernel, &l).ok()?;
            Some(format!(
                "block = {} gives this kernel its highest occupancy on {}: {}",
                best.block_size,
                arch.sm,
                occupancy_text(&occ)
            ))
        })
}

/// Static shared memory over the 48 KiB ptxas compiles.
fn static_smem_over_ptxas(cx: &Context<'_>) -> Option<Finding> {
    let subject = cx.subject(Scope::Target);
    let arch = cx.target.arch;
    let kernel = &cx.spec.kernel;
    let launch = &cx.spec.launch;
    found(
        cx,
        Input::StaticSmem,
        format!(
            "{subject}: {} of static shared memory per block cannot be compiled: ptxas allows at most {}, \
             whatever the dynamic shared memory opt-in",
            bytes_text(kernel.static_smem_bytes.into()),
            bytes_text(MAX_STATIC_SMEM_PER_BLOCK_BYTES.into()),
        ),
        vec![format!(
            "ptxas: \"uses too much shared data (0x{:x} bytes, 0x{:x} max)\" (ptxas 12.9 and 13.0, every \
             architecture)",
            kernel.static_smem_bytes, MAX_STATIC_SMEM_PER_BLOCK_BYTES
        )],
        dynamic_instead(arch, kernel, launch).into_iter().collect(),
    )
}

/// A block over the kernel's `__launch_bounds__`, within the device's limit.
fn over_launch_bounds(cx: &Context<'_>, bound: u32) -> Option<Finding> {
    let subject = cx.subject(Scope::Target);
    let launch = &cx.spec.launch;
    let block = launch.block;
    let threads = block.threads();
    found(
        cx,
        Input::Block,
        format!(
            "{subject}: block of {} exceeds the kernel's launch bounds of {}",
            block_text(block, threads),
            count(bound, "thread"),
        ),
        vec![format!(
            "__launch_bounds__({bound}) is compiled into the kernel: a larger block fails to launch \
             (CUDA_ERROR_INVALID_VALUE, measured on an H200), although the driver's occupancy \
             query still counts it"
        )],
        best_block(cx).into_iter().collect(),
    )
}

/// A cluster launch the driver refuses.
fn cluster_refused(cx: &Context<'_>, error: ClusterError) -> Option<Finding> {
    let subject = cx.subject(Scope::Target);
    let arch = cx.target.arch;
    let (input, helps) = match error {
        ClusterError::NotPortable { .. } => (
            Input::Cluster,
            vec![format!(
                "set CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED \
                 (cudaFuncAttributeNonPortableClusterSizeAllowed) to 1 on the function and declare it: \
                 non_portable = true (calc: --non-portable); {} then allows up to {} blocks per cluster",
                arch.sm, arch.cluster_max_nonportable
            )],
        ),
        ClusterError::GridNotMultiple { grid, cluster, .. } => {
            (Input::Grid, whole_cluster_grids(grid, cluster))
        }
        _ => (Input::Cluster, vec![]),
    };
    found(
        cx,
        input,
        format!("{subject}: {error}"),
        vec![
            "the cluster launch fails (CUDA_ERROR_INVALID_CLUSTER_SIZE, measured on an H200)"
                .to_owned(),
        ],
        helps,
    )
}

/// An opt-in over the shared memory the architecture allows per block.
fn opt_in_over_limit(cx: &Context<'_>, requested_bytes: u32, limit_bytes: u32) -> Option<Finding> {
    let subject = cx.subject(Scope::Target);
    let arch = cx.target.arch;
    let kernel = &cx.spec.kernel;
    found(
        cx,
        Input::OptIn,
        format!(
            "{subject}: opt-in of {} of dynamic shared memory exceeds the {} {} allows \
             beside {} of static shared memory",
            bytes_text(requested_bytes.into()),
            bytes_text(limit_bytes.into()),
            arch.sm,
            bytes_text(kernel.static_smem_bytes.into()),
        ),
        vec![format!(
            "{} allows {} of shared memory per block with the opt-in: \
             cuFuncSetAttribute(CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, {requested_bytes}) fails",
            arch.sm,
            bytes_text(arch.smem_per_block_optin_bytes.into()),
        )],
        vec![format!("opt_in = {limit_bytes} at most")],
    )
}

/// No block fits on an SM: the finding for the engine's [`ZeroReason`].
fn no_block_fits(cx: &Context<'_>, occ: &Occupancy) -> Option<Finding> {
    let subject = cx.subject(Scope::Target);
    let arch = cx.target.arch;
    let launch = &cx.spec.launch;
    let block = launch.block;
    let threads = block.threads();
    match occ.zero_reason {
        Some(ZeroReason::BlockTooLarge { threads, limit }) => found(
            cx,
            Input::Block,
            format!(
                "{subject}: block of {} exceeds the {limit} threads per block {} allows",
                block_text(block, threads),
                arch.sm,
            ),
            vec![format!(
                "{} runs at most {limit} threads per block: the launch fails (CUDA_ERROR_INVALID_VALUE)",
                arch.sm
            )],
            best_block(cx).into_iter().collect(),
        ),
        Some(ZeroReason::BlockDimZTooLarge { z, limit }) => found(
            cx,
            Input::Block,
            format!(
                "{subject}: block z dimension {z} exceeds the {limit} {} allows",
                arch.sm
            ),
            vec![format!(
                "a block may be at most {limit} threads deep along z: the launch fails \
                 (CUDA_ERROR_INVALID_VALUE)"
            )],
            vec![format!(
                "block = ({}, {}) has the same {threads} threads",
                block.x,
                u64::from(block.y) * u64::from(block.z)
            )],
        ),
        Some(ZeroReason::RegistersPerThread { registers, limit }) => {
            registers_per_thread(cx, registers, limit)
        }
        Some(ZeroReason::RegistersPerBlock { registers, limit }) => {
            registers_per_block(cx, occ, registers, limit)
        }
        Some(ZeroReason::DynamicSmemOverOptIn {
            dynamic_bytes,
            max_bytes,
        }) => dynamic_over_opt_in(cx, dynamic_bytes, max_bytes),
        Some(ZeroReason::SmemPerBlock {
            allocated_bytes,
            opted_in,
            ..
        }) => smem_per_block(cx, allocated_bytes, opted_in),
        Some(ZeroReason::Barriers {
            barriers,
            available,
        }) => found(
            cx,
            Input::Barriers,
            format!(
                "{subject}: {barriers} barriers per block exceed the {available} per SM on {}",
                arch.sm
            ),
            vec!["no block launches".to_owned()],
            vec![format!("barriers = {available} at most")],
        ),
        None => found(
            cx,
            Input::Block,
            format!("{subject}: no block fits on an SM"),
            vec![],
            vec![],
        ),
    }
}

/// More registers per thread than the architecture allows.
fn registers_per_thread(cx: &Context<'_>, registers: u32, limit: u32) -> Option<Finding> {
    let subject = cx.subject(Scope::Target);
    let arch = cx.target.arch;
    let kernel = &cx.spec.kernel;
    let launch = &cx.spec.launch;
    let mut helps = Vec::new();
    if let Some((regs, occ)) =
        analysis_pair(analysis::registers_for_blocks(arch, kernel, launch, 1))
    {
        helps.push(format!(
            "{regs} regs/thread (e.g. -maxrregcount={regs}) launches and gives {}",
            occupancy_text(&occ)
        ));
    }
    found(
        cx,
        Input::Registers,
        format!(
            "{subject}: {registers} registers per thread exceed the {limit} a thread can \
             have on {} (ptxas's maximum)",
            arch.sm
        ),
        vec![format!(
            "no block launches (CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES)"
        )],
        helps,
    )
}

/// A block whose registers exceed the per-block register file.
fn registers_per_block(
    cx: &Context<'_>,
    occ: &Occupancy,
    registers: u64,
    limit: u32,
) -> Option<Finding> {
    let subject = cx.subject(Scope::Target);
    let arch = cx.target.arch;
    let kernel = &cx.spec.kernel;
    let launch = &cx.spec.launch;
    let block = launch.block;
    let threads = block.threads();
    let warps_rounded = u64::from(occ.warps_per_block).div_ceil(u64::from(arch.sub_partitions))
        * u64::from(arch.sub_partitions);
    let mut helps = Vec::new();
    if let Some((regs, occ)) =
        analysis_pair(analysis::registers_for_blocks(arch, kernel, launch, 1))
    {
        helps.push(format!(
            "{regs} regs/thread (e.g. __launch_bounds__({threads}, 1)) launches and gives {}",
            occupancy_text(&occ)
        ));
    }
    if let Some((size, occ)) = fix::largest_block_that_launches(arch, kernel, launch) {
        helps.push(format!(
            "or block = {size} at {} regs/thread gives {}",
            kernel.registers_per_thread,
            occupancy_text(&occ)
        ));
    }
    found(
        cx,
        Input::Registers,
        format!(
            "{subject}: a block of {} needs {registers} registers, over \
             the {limit} per block {} allows",
            count64(threads, "thread"),
            arch.sm
        ),
        vec![format!(
            "{} regs/thread -> {} per warp x {} warps ({} rounded up to {} sub-partitions) \
             = {registers}: the launch fails (CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES)",
            kernel.registers_per_thread,
            occ.registers_per_warp,
            warps_rounded,
            occ.warps_per_block,
            arch.sub_partitions,
        )],
        helps,
    )
}

/// Dynamic shared memory over the opt-in set on the function.
fn dynamic_over_opt_in(cx: &Context<'_>, dynamic_bytes: u32, max_bytes: u32) -> Option<Finding> {
    let subject = cx.subject(Scope::Target);
    let arch = cx.target.arch;
    let kernel = &cx.spec.kernel;
    let mut helps = Vec::new();
    let allowed = arch
        .smem_per_block_optin_bytes
        .saturating_sub(kernel.static_smem_bytes);
    if dynamic_bytes <= allowed {
        helps.push(format!(
            "opt_in = {dynamic_bytes} (set CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES \
             to {dynamic_bytes}; {} allows up to {allowed})",
            arch.sm
        ));
    }
    helps.push(format!("or smem = {max_bytes} at most"));
    found(
        cx,
        Input::DynamicSmem,
        format!(
            "{subject}: {} of dynamic shared memory per block exceeds the {} opt-in set \
             on the function",
            bytes_text(dynamic_bytes.into()),
            bytes_text(max_bytes.into()),
        ),
        vec![
            "a launch with more dynamic shared memory than \
             CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES fails (CUDA_ERROR_INVALID_VALUE)"
                .to_owned(),
        ],
        helps,
    )
}

/// Static and dynamic shared memory over the per-block limit.
fn smem_per_block(cx: &Context<'_>, allocated_bytes: u64, opted_in: bool) -> Option<Finding> {
    let subject = cx.subject(Scope::Target);
    let arch = cx.target.arch;
    let kernel = &cx.spec.kernel;
    let launch = &cx.spec.launch;
    let static_bytes = kernel.static_smem_bytes;
    let dynamic_bytes = launch.dynamic_smem_bytes;
    let asked = u64::from(static_bytes) + u64::from(dynamic_bytes);
    let input = if dynamic_bytes > 0 {
        Input::DynamicSmem
    } else {
        Input::StaticSmem
    };
    let breakdown = format!(
        "{} static + {} dynamic + {} reserved = {} per block",
        bytes_text(static_bytes.into()),
        bytes_text(dynamic_bytes.into()),
        bytes_text(arch.reserved_smem_per_block_bytes.into()),
        bytes_text(allocated_bytes),
    );
    let max_dynamic = fix::max_dynamic_smem_with_opt_in(arch, kernel, launch);
    let mut helps = Vec::new();
    let message;
    if opted_in || !arch.has_carveout() {
        let limit = if arch.has_carveout() {
            arch.smem_per_block_optin_bytes
        } else {
            arch.smem_per_block_default_bytes
        };
        message = format!(
            "{subject}: {} of static + dynamic shared memory per block exceeds the {} {} \
             allows",
            bytes_text(asked),
            bytes_text(limit.into()),
            arch.sm,
        );
        if let Some(max) = max_dynamic.filter(|_| arch.has_carveout()) {
            helps.push(format!(
                "smem = {max} at most beside {} of static shared memory",
                bytes_text(static_bytes.into())
            ));
        }
    } else {
        message = format!(
            "{subject}: {} of static + dynamic shared memory per block exceeds the {} \
             default without the opt-in",
            bytes_text(asked),
            bytes_text(arch.smem_per_block_default_bytes.into()),
        );
        match max_dynamic {
            Some(max) if dynamic_bytes <= max => helps.push(format!(
                "opt in: opt_in = {dynamic_bytes} (set \
                 CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES to {dynamic_bytes}; {} \
                 allows up to {max})",
                arch.sm
            )),
            Some(max) => helps.push(format!(
                "smem = {max} at most, with opt_in = {max} (the most {} allows beside {} of \
                 static shared memory)",
                arch.sm,
                bytes_text(static_bytes.into())
            )),
            None => {}
        }
    }
    found(cx, input, message, vec![breakdown], helps)
}

/// The help for static shared memory over ptxas's limit: the same bytes allocated
/// dynamically (`extern __shared__`), with the opt-in, when the architecture allows that
/// much per block, and what that launch gives.
fn dynamic_instead(
    arch: &crate::arch::Arch,
    kernel: &crate::occupancy::Kernel,
    launch: &crate::occupancy::Launch,
) -> Option<String> {
    let total = kernel
        .static_smem_bytes
        .checked_add(launch.dynamic_smem_bytes)?;
    let opt_in = kernel.max_dynamic_smem_bytes.unwrap_or(0).max(total);
    let dynamic = crate::occupancy::Kernel {
        static_smem_bytes: 0,
        ..kernel.with_opt_in(opt_in)
    };
    let occ = crate::occupancy::occupancy(arch, &dynamic, &launch.with_dynamic_smem(total)).ok()?;
    (occ.blocks_per_sm > 0).then(|| {
        format!(
            "allocate it dynamically (extern __shared__): static_smem = 0, smem = {total}, opt_in = {opt_in} \
             (CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES) gives {}",
            occupancy_text(&occ)
        )
    })
}

/// The grids nearest to `grid` that are whole numbers of clusters: each dimension rounded
/// up (the kernel then skips the extra blocks), and rounded down where no dimension drops
/// to 0; within the device's grid limits.
fn whole_cluster_grids(grid: GridDim, cluster: ClusterDim) -> Vec<String> {
    let g = grid.to_array();
    let c = [cluster.x, cluster.y, cluster.z];
    let round = |up: bool| -> Option<GridDim> {
        let mut out = [0u32; 3];
        for axis in 0..3 {
            let per = c[axis].max(1);
            let down = g[axis] / per * per;
            let v = if up && down < g[axis] {
                down.checked_add(per)?
            } else {
                down
            };
            if v == 0 || v > MAX_GRID_DIM[axis] {
                return None;
            }
            out[axis] = v;
        }
        Some(GridDim::new(out[0], out[1], out[2]))
    };
    let whole = if cluster.y == 1 && cluster.z == 1 {
        format!("whole clusters of {}", cluster.x)
    } else {
        format!("each dimension a multiple of the cluster's {cluster}")
    };
    let mut helps = Vec::new();
    if let Some(up) = round(true) {
        helps.push(format!(
            "grid = {up} ({whole}; the kernel must skip the {} extra {})",
            up.blocks() - grid.blocks(),
            if up.blocks() - grid.blocks() == 1 {
                "block"
            } else {
                "blocks"
            }
        ));
    }
    if let Some(down) = round(false) {
        let fewer = grid.blocks() - down.blocks();
        helps.push(format!(
            "or grid = {down} ({} fewer, {} work done by the others)",
            count64(fewer, "block"),
            if fewer == 1 { "its" } else { "their" }
        ));
    }
    helps
}
