//! Property tests of the engine over every architecture: invariants that must hold for any
//! input, and suggested fixes that must deliver what they promise.

use occupancy_core::analysis::{
    carveout_fix, fewer_barriers, free_dynamic_smem, larger_block, register_step, smem_step,
};
use occupancy_core::arch::{ARCHS, Arch};
use occupancy_core::occupancy::{
    BlockDim, Carveout, Kernel, Launch, Resource, available_dynamic_smem, max_potential_block_size,
    occupancy,
};
use proptest::prelude::*;

fn arch() -> impl Strategy<Value = &'static Arch> {
    (0..ARCHS.len()).prop_map(|i| &ARCHS[i])
}

fn carveout() -> impl Strategy<Value = Carveout> {
    prop_oneof![
        Just(Carveout::Default),
        (0u8..=100).prop_map(Carveout::Percent)
    ]
}

/// A valid kernel for `arch`: the opt-in never exceeds what the architecture allows.
fn kernel(arch: &'static Arch) -> impl Strategy<Value = Kernel> {
    (
        0u32..=256,
        0u32..=49152,
        0u32..=16,
        prop::option::of(1u32..=1024),
        prop::option::of(0u32..=240_000),
        carveout(),
    )
        .prop_map(
            move |(regs, static_smem, barriers, max_threads, opt_in, carveout)| {
                let static_smem = static_smem.min(arch.smem_per_block_optin_bytes);
                Kernel {
                    registers_per_thread: regs,
                    static_smem_bytes: static_smem,
                    barriers,
                    max_threads_per_block: max_threads,
                    max_dynamic_smem_bytes: opt_in
                        .map(|o| o.min(arch.smem_per_block_optin_bytes - static_smem)),
                    carveout,
                }
            },
        )
}

fn launch() -> impl Strategy<Value = Launch> {
    (1u32..=1100, 0u32..=240_000, 0u32..=3).prop_map(|(threads, dynamic, shape)| {
        let block = match shape {
            0 => BlockDim::linear(threads),
            1 => BlockDim::new(32, threads.div_ceil(32), 1),
            2 => BlockDim::new(16, 16, threads.div_ceil(256)),
            _ => BlockDim::new(8, 8, threads.div_ceil(64)),
        };
        // Small dynamic sizes are the interesting ones half the time.
        Launch::new(block).with_dynamic_smem(if dynamic % 2 == 0 {
            dynamic / 16
        } else {
            dynamic
        })
    })
}

fn case() -> impl Strategy<Value = (&'static Arch, Kernel, Launch)> {
    arch().prop_flat_map(|a| (Just(a), kernel(a), launch()))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 4000, ..ProptestConfig::default() })]

    #[test]
    fn occupancy_is_a_fraction_and_warps_fit((arch, kernel, launch) in case()) {
        let occ = occupancy(arch, &kernel, &launch).unwrap();
        prop_assert!(occ.fraction() <= 1.0);
        prop_assert!(occ.active_warps_per_sm() <= arch.max_warps_per_sm());
        prop_assert!(occ.blocks_per_sm <= arch.max_blocks_per_sm);
        prop_assert_eq!(occ.blocks_per_sm == 0, occ.zero_reason.is_some());
    }

    #[test]
    fn limiters_follow_the_header_convention((arch, kernel, launch) in case()) {
        let occ = occupancy(arch, &kernel, &launch).unwrap();
        let l = occ.limits;
        let primary = l.warps.min(l.registers).min(l.shared_memory).min(l.blocks);
        prop_assert_eq!(occ.blocks_per_sm, primary.min(l.barriers));
        for r in [Resource::Warps, Resource::Registers, Resource::SharedMemory, Resource::Blocks] {
            prop_assert_eq!(occ.limiters.contains(r), l.get(r) == primary, "{:?}", r);
        }
        prop_assert_eq!(occ.limiters.contains(Resource::Barriers), l.barriers == occ.blocks_per_sm);
        for r in Resource::ALL {
            prop_assert_eq!(occ.binding().contains(r), l.get(r) == occ.blocks_per_sm, "{:?}", r);
        }
        prop_assert!(!occ.binding().is_empty());
    }

    #[test]
    fn more_resources_never_add_blocks((arch, kernel, launch) in case(), extra in 1u32..64, bytes in 1u32..20_000) {
        let base = occupancy(arch, &kernel, &launch).unwrap().blocks_per_sm;
        let more_regs = Kernel { registers_per_thread: kernel.registers_per_thread + extra, ..kernel };
        prop_assert!(occupancy(arch, &more_regs, &launch).unwrap().blocks_per_sm <= base);
        let more_barriers = Kernel { barriers: kernel.barriers + extra, ..kernel };
        prop_assert!(occupancy(arch, &more_barriers, &launch).unwrap().blocks_per_sm <= base);
        let more_dynamic = launch.with_dynamic_smem(launch.dynamic_smem_bytes + bytes);
        prop_assert!(occupancy(arch, &kernel, &more_dynamic).unwrap().blocks_per_sm <= base);
        let opt_in = kernel.max_dynamic_smem_bytes.unwrap_or(0);
        if kernel.static_smem_bytes + bytes + opt_in <= arch.smem_per_block_optin_bytes {
            let more_static = Kernel { static_smem_bytes: kernel.static_smem_bytes + bytes, ..kernel };
            prop_assert!(occupancy(arch, &more_static, &launch).unwrap().blocks_per_sm <= base);
        }
    }

    #[test]
    fn suggested_fixes_deliver_what_they_promise((arch, kernel, launch) in case()) {
        let before = occupancy(arch, &kernel, &launch).unwrap();
        if let Some(step) = register_step(arch, &kernel, &launch).unwrap() {
            let k = Kernel { registers_per_thread: step.fewer_registers_per_thread, ..kernel };
            prop_assert_eq!(occupancy(arch, &k, &launch).unwrap(), step.after);
            prop_assert!(step.after.blocks_per_sm > before.blocks_per_sm);
            // No register count between the two adds a block.
            for r in step.fewer_registers_per_thread + 1..kernel.registers_per_thread {
                let k = Kernel { registers_per_thread: r, ..kernel };
                prop_assert_eq!(occupancy(arch, &k, &launch).unwrap().blocks_per_sm, before.blocks_per_sm);
            }
        }
        if let Some(step) = smem_step(arch, &kernel, &launch).unwrap() {
            prop_assert!(step.after.blocks_per_sm > before.blocks_per_sm);
            prop_assert!(step.fewer_smem_bytes < step.smem_bytes);
        }
        if let Some(change) = larger_block(arch, &kernel, &launch).unwrap() {
            let l = Launch { block: BlockDim::linear(change.value), ..launch };
            prop_assert_eq!(occupancy(arch, &kernel, &l).unwrap(), change.occupancy);
            prop_assert!(change.occupancy.active_warps_per_sm() > before.active_warps_per_sm());
        }
        if let Some(change) = fewer_barriers(arch, &kernel, &launch).unwrap() {
            let k = Kernel { barriers: change.value, ..kernel };
            prop_assert_eq!(occupancy(arch, &k, &launch).unwrap().blocks_per_sm, change.occupancy.blocks_per_sm);
            prop_assert!(change.occupancy.blocks_per_sm > before.blocks_per_sm);
        }
        if let Some(change) = carveout_fix(arch, &kernel, &launch).unwrap() {
            let k = Kernel { carveout: Carveout::Percent(change.value), ..kernel };
            prop_assert!(occupancy(arch, &k, &launch).unwrap().blocks_per_sm > before.blocks_per_sm);
            if change.value > 0 {
                let k = Kernel { carveout: Carveout::Percent(change.value - 1), ..kernel };
                prop_assert!(occupancy(arch, &k, &launch).unwrap().blocks_per_sm < change.occupancy.blocks_per_sm);
            }
        }
        let free = free_dynamic_smem(arch, &kernel, &launch).unwrap();
        if before.blocks_per_sm > 0 {
            let l = launch.with_dynamic_smem(launch.dynamic_smem_bytes + free);
            prop_assert_eq!(occupancy(arch, &kernel, &l).unwrap().blocks_per_sm, before.blocks_per_sm);
        }
    }

    #[test]
    fn available_dynamic_smem_launches_and_is_maximal((arch, kernel, launch) in case(), wanted in 1u32..40) {
        let resident = |bytes: u32| {
            occupancy(arch, &kernel, &Launch { dynamic_smem_bytes: bytes, ..launch }).unwrap().blocks_per_sm
        };
        match available_dynamic_smem(arch, &kernel, launch.block, wanted) {
            Ok(bytes) => {
                prop_assert!(resident(bytes) >= wanted);
                let default_cap = arch.smem_per_block_default_bytes.saturating_sub(kernel.static_smem_bytes);
                if bytes < kernel.max_dynamic_smem_bytes.unwrap_or(default_cap) {
                    prop_assert!(resident(bytes + 1) < wanted);
                }
            }
            Err(_) => prop_assert!(resident(0) < wanted),
        }
    }

    #[test]
    fn potential_block_size_is_never_beaten(
        (arch, kernel) in arch().prop_flat_map(|a| (Just(a), kernel(a))),
        dynamic in 0u32..60_000,
    ) {
        let best = max_potential_block_size(arch, &kernel, 100, |_| dynamic).unwrap();
        let limit = kernel.max_threads_per_block.unwrap_or(1024).min(arch.max_threads_per_block);
        let best_threads = best.block_size * best.blocks_per_sm;
        for threads in 1..=limit {
            let launch = Launch::new(BlockDim::linear(threads)).with_dynamic_smem(dynamic);
            let occ = occupancy(arch, &kernel, &launch).unwrap();
            prop_assert!(occ.active_threads_per_sm() <= best_threads, "{} threads beat {:?}", threads, best);
        }
        prop_assert_eq!(best.min_grid_size, best.blocks_per_sm * 100);
    }
}
