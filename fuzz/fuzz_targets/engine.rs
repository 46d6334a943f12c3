//! The engine on arbitrary inputs: every architecture and named GPU of the tables x any
//! kernel and launch through `occupancy`, `max_potential_block_size`,
//! `available_dynamic_smem`, every function of `analysis`, cluster occupancy, and every lint
//! (`lint::check`, findings rendered). None may panic or overflow: the attribute macro runs
//! them on whatever numbers a user writes.
#![no_main]

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use occupancy_core::analysis;
use occupancy_core::arch::{ARCHS, GPUS, Target};
use occupancy_core::cluster::{Cluster, ClusterDim, Topology, max_active_clusters};
use occupancy_core::lint::{
    ArtifactFacts, KernelClass, LaunchSpec, LintLevels, MinOccupancy, Thresholds, check,
};
use occupancy_core::occupancy::{
    BlockDim, Carveout, GridDim, Kernel, Launch, available_dynamic_smem, max_potential_block_size,
    occupancy,
};

#[derive(Debug, Arbitrary)]
struct Input {
    /// Index into ARCHS + GPUS (modulo), one per target.
    targets: Vec<u8>,
    registers_per_thread: u32,
    static_smem_bytes: u32,
    barriers: u32,
    max_threads_per_block: Option<u32>,
    opt_in_bytes: Option<u32>,
    /// `cudaFuncAttributePreferredSharedMemoryCarveout` as written (-1, 0..=100, or bad).
    carveout: Option<i32>,
    block: (u32, u32, u32),
    dynamic_smem_bytes: u32,
    /// Dynamic shared memory per block size: `base + per_thread * threads` (saturating).
    smem_per_thread: u32,
    sm_count: u32,
    blocks_per_sm: u32,
    grid: Option<(u32, u32, u32)>,
    cluster: Option<(u32, u32, u32, bool)>,
    min_occupancy_bp: u16,
    class: Option<u8>,
    thresholds: (u32, u32, u32),
    artifact: (Option<u32>, Option<u32>, Option<u32>, Option<u32>),
}

fn target(index: u8) -> Target {
    let i = usize::from(index) % (ARCHS.len() + GPUS.len());
    match ARCHS.get(i) {
        Some(arch) => Target::from_arch(arch),
        None => Target::from_gpu(&GPUS[i - ARCHS.len()]),
    }
}

fuzz_target!(|input: Input| {
    let mut kernel = Kernel::new(input.registers_per_thread)
        .with_static_smem(input.static_smem_bytes)
        .with_barriers(input.barriers);
    kernel.max_threads_per_block = input.max_threads_per_block;
    kernel.max_dynamic_smem_bytes = input.opt_in_bytes;
    if let Some(value) = input.carveout {
        match Carveout::from_attribute(value) {
            Ok(c) => kernel.carveout = c,
            Err(e) => {
                let _ = e.to_string();
            }
        }
    }
    let (x, y, z) = input.block;
    let launch = Launch::new(BlockDim::new(x, y, z)).with_dynamic_smem(input.dynamic_smem_bytes);
    let per_block = |threads: u32| {
        input
            .dynamic_smem_bytes
            .saturating_add(input.smem_per_thread.saturating_mul(threads))
    };
    let targets: Vec<Target> = input.targets.iter().take(4).map(|&i| target(i)).collect();
    let cluster = input.cluster.map(|(x, y, z, non_portable)| {
        let c = Cluster::new(ClusterDim::new(x, y, z));
        if non_portable {
            c.allow_non_portable()
        } else {
            c
        }
    });

    for t in &targets {
        let arch = t.arch;
        let _ = t.to_string();
        match occupancy(arch, &kernel, &launch) {
            Ok(occ) => {
                let _ = (occ.fraction(), occ.percent(), occ.binding());
                let _ = occ.limiters.to_string();
                let _ = occ.active_threads_per_sm();
                let grid_blocks = input.grid.map_or(0, |(x, y, z)| GridDim::new(x, y, z).blocks());
                if let Some(w) = analysis::waves(&occ, input.sm_count, grid_blocks) {
                    let _ = (w.waves(), w.waves_started(), w.tail_idle(), w.tail_waste());
                    let _ = w.fills_gpu();
                }
            }
            Err(e) => {
                let _ = e.to_string();
            }
        }
        let _ = max_potential_block_size(arch, &kernel, input.sm_count, per_block);
        let _ = available_dynamic_smem(arch, &kernel, launch.block, input.blocks_per_sm);
        if let Ok(Some(step)) = analysis::register_step(arch, &kernel, &launch) {
            let _ = step.drop();
        }
        let _ = analysis::register_budget(arch, &kernel, &launch);
        if let Ok(Some(step)) = analysis::smem_step(arch, &kernel, &launch) {
            let _ = step.shave_bytes();
        }
        let _ = analysis::free_dynamic_smem(arch, &kernel, &launch);
        let _ = analysis::larger_block(arch, &kernel, &launch);
        let _ = analysis::fewer_barriers(arch, &kernel, &launch);
        let _ = analysis::carveout_fix(arch, &kernel, &launch);
        let _ = analysis::best_block_sizes(arch, &kernel, per_block);
        if let Some(c) = &cluster {
            let topology = Topology::of_target(t).unwrap_or(Topology::SmCount(input.sm_count));
            match max_active_clusters(arch, &topology, &kernel, &launch, c) {
                Ok(clusters) => {
                    let _ = clusters.block_slots();
                }
                Err(e) => {
                    let _ = e.to_string();
                }
            }
        }
    }

    let class = input
        .class
        .map(|c| KernelClass::ALL[usize::from(c) % KernelClass::ALL.len()]);
    let spec = LaunchSpec {
        min_occupancy: MinOccupancy::from_basis_points(input.min_occupancy_bp)
            .unwrap_or(MinOccupancy::DEFAULT),
        class,
        grid: input.grid.map(|(x, y, z)| GridDim::new(x, y, z)),
        cluster,
        artifact: ArtifactFacts {
            spill_store_bytes: input.artifact.0,
            spill_load_bytes: input.artifact.1,
            local_bytes: input.artifact.2,
            min_blocks_per_sm: input.artifact.3,
        },
        thresholds: Thresholds {
            register_step_max_drop: input.thresholds.0,
            smem_step_max_bytes: input.thresholds.1,
            tail_effect_max_waste_bp: input.thresholds.2,
        },
        ..LaunchSpec::new("launch", &targets, kernel, launch)
    };
    let levels = LintLevels::default();
    for finding in check(&spec) {
        let _ = finding.to_string();
        let _ = levels.get(finding.lint);
    }
});
