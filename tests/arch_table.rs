//! The arch and GPU tables against the researched sources in `tests/data/arch-specs.tsv` and
//! `tests/data/gpus.tsv`: a transcription error in the tables fails here.

mod common;

use common::read_tsv;
use occupancy::arch::{ARCHS, GPUS, Target};

#[test]
fn every_arch_row_matches_the_researched_specs() {
    let rows = read_tsv("arch-specs.tsv");
    assert_eq!(rows.len(), ARCHS.len());
    for row in rows {
        let sm = row.str("sm_target").split_whitespace().next().unwrap();
        let a = ARCHS
            .iter()
            .find(|a| a.sm == sm)
            .unwrap_or_else(|| panic!("{sm} missing"));
        assert_eq!(a.cc.to_string(), row.str("cc"), "{sm}");
        let check = |col: &str, v: u32| assert_eq!(v, row.u32(col), "{sm} {col}");
        check("warp_size", a.warp_size);
        check("max_threads_per_sm", a.max_threads_per_sm);
        check("max_warps_per_sm", a.max_warps_per_sm());
        check("max_blocks_per_sm", a.max_blocks_per_sm);
        check("max_threads_per_block", a.max_threads_per_block);
        check("regs_per_sm", a.regs_per_sm);
        check("max_regs_per_block", a.max_regs_per_block);
        check("reg_alloc_unit_regs_per_warp", a.reg_alloc_unit_per_warp);
        check("sub_partitions", a.sub_partitions);
        check("smem_per_sm_max_bytes", a.smem_per_sm_bytes);
        check(
            "smem_per_block_default_bytes",
            a.smem_per_block_default_bytes,
        );
        check("smem_per_block_optin_bytes", a.smem_per_block_optin_bytes);
        check(
            "reserved_smem_per_block_bytes",
            a.reserved_smem_per_block_bytes,
        );
        check(
            "smem_alloc_granularity_bytes",
            a.smem_alloc_granularity_bytes,
        );
        // The PG's 255 on every cc (cuda_occupancy.h checks 256 from cc 7.0, a count no
        // kernel can have: see the disputed values of `occupancy_core::arch::ARCHS`).
        check("max_regs_per_thread", a.max_regs_per_thread);
        let carveouts = row.str("smem_carveouts_kb");
        if carveouts.starts_with("NA") {
            assert!(a.carveouts_kib.is_empty(), "{sm}");
        } else {
            let kib: Vec<u32> = carveouts.split(',').map(|s| s.parse().unwrap()).collect();
            assert_eq!(a.carveouts_kib, kib.as_slice(), "{sm}");
            // The largest carveout is the SM's shared memory: the engine relies on it.
            assert_eq!(kib.last().unwrap() * 1024, a.smem_per_sm_bytes, "{sm}");
        }
        match row.str("barrier_factor_per_block_slot") {
            "NA" => assert_eq!(a.barriers_per_sm, 0, "{sm}"),
            factor => {
                let per_sm = factor.parse::<u32>().unwrap() * a.max_blocks_per_sm;
                assert_eq!(
                    a.barriers_per_sm,
                    if a.cc.major >= 9 { per_sm } else { 0 },
                    "{sm}"
                );
            }
        }
        match row.str("cluster_max_portable") {
            "NA" => assert_eq!(a.cluster_max_portable, 0, "{sm}"),
            v => assert_eq!(a.cluster_max_portable.to_string(), v, "{sm}"),
        }
        match row.str("cluster_max_nonportable") {
            "NA" | "unknown" => assert_eq!(a.cluster_max_nonportable, 0, "{sm}"),
            v => assert_eq!(a.cluster_max_nonportable.to_string(), v, "{sm}"),
        }
    }
}

#[test]
fn every_gpu_row_matches_and_parses_by_name() {
    let rows = read_tsv("gpus.tsv");
    assert!(GPUS.len() >= 25);
    assert_eq!(rows.len(), GPUS.len());
    for (row, gpu) in rows.iter().zip(GPUS) {
        assert_eq!(gpu.arch.cc.to_string(), row.str("cc"), "{}", gpu.name);
        assert_eq!(gpu.sm_count, row.u32("sm_count"), "{}", gpu.name);
        let target = Target::parse(gpu.name).unwrap();
        assert_eq!(target.gpu, Some(gpu));
        for alias in gpu.aliases {
            assert_eq!(
                Target::parse(alias).unwrap().gpu,
                Some(gpu),
                "alias {alias}"
            );
        }
    }
}

#[test]
fn every_arch_parses_from_its_names() {
    for a in ARCHS {
        for spelling in [
            a.sm.to_owned(),
            a.cc.to_string(),
            a.cc.sm_number().to_string(),
            format!("{}a", a.sm),
        ] {
            let t = Target::parse(&spelling).unwrap_or_else(|e| panic!("{spelling}: {e}"));
            assert_eq!(t.arch, a, "{spelling}");
        }
    }
}
