//! What a cluster launch may be, against an H200's driver (`tests/data/h200/cluster_limits.tsv`,
//! written by `scripts/gpu/cluster_limits_probe.py`, driver 580.159.04): the non-portable
//! maximum, real launches with and without the non-portable attribute and with grids that
//! are or are not a whole number of clusters, the clusters resident at once that set a
//! cluster launch's wave, and ptxas's limit on static shared memory.

mod common;

use common::{Row, read_tsv};
use occupancy::arch::{MAX_STATIC_SMEM_PER_BLOCK_BYTES, SM_90, Target};
use occupancy::cluster::{
    Cluster, ClusterCount, ClusterDim, ClusterError, Topology, max_active_clusters,
};
use occupancy::lint::{LaunchSpec, check};
use occupancy::occupancy::{BlockDim, GridDim, Kernel, Launch};

fn rows(what: &str) -> Vec<Row> {
    read_tsv("h200/cluster_limits.tsv")
        .into_iter()
        .filter(|r| r.str("what") == what)
        .collect()
}

/// The numbers of `(8, 1, 1)` after `label` in `text`.
fn dims_after(text: &str, label: &str) -> [u32; 3] {
    let rest = &text[text.find(label).unwrap() + label.len()..];
    let inner = &rest[rest.find('(').unwrap() + 1..rest.find(')').unwrap()];
    let v: Vec<u32> = inner
        .split(',')
        .map(|n| n.trim().parse().unwrap())
        .collect();
    [v[0], v[1], v[2]]
}

/// The probe kernel: 10 registers (recorded), 256 threads, no shared memory: 8 blocks/SM.
fn probe() -> (Kernel, Launch) {
    let regs = rows("num_regs")[0].u32("answer");
    assert_eq!(regs, 10);
    (Kernel::new(regs), Launch::new(BlockDim::linear(256)))
}

#[test]
fn the_non_portable_maximum_is_16_and_the_portable_8() {
    let answers: Vec<(String, u32)> = rows("max_potential_cluster_size")
        .iter()
        .map(|r| (r.str("input").to_owned(), r.u32("answer")))
        .collect();
    assert_eq!(
        answers,
        [
            ("non_portable=0".to_owned(), SM_90.cluster_max_portable),
            ("non_portable=1".to_owned(), SM_90.cluster_max_nonportable),
        ]
    );
    assert_eq!(
        (SM_90.cluster_max_portable, SM_90.cluster_max_nonportable),
        (8, 16)
    );
}

#[test]
fn every_recorded_launch_runs_exactly_when_the_lints_allow_it() {
    let h200 = [Target::parse("H200").unwrap()];
    let (kernel, launch) = probe();
    let launches = rows("launch");
    assert_eq!(launches.len(), 12);
    let (mut ran, mut failed) = (0, 0);
    for row in &launches {
        let input = row.str("input");
        let [cx, cy, cz] = dims_after(input, "cluster");
        let [gx, gy, gz] = dims_after(input, "grid");
        let mut cluster = Cluster::new(ClusterDim::new(cx, cy, cz));
        if input.ends_with("non_portable=1") {
            cluster = cluster.allow_non_portable();
        }
        let spec = LaunchSpec {
            grid: Some(GridDim::new(gx, gy, gz)),
            cluster: Some(cluster),
            ..LaunchSpec::new("probe", &h200, kernel, launch)
        };
        let impossible = check(&spec)
            .iter()
            .any(|f| f.lint.name == "launch_impossible");
        let answer = row.str("answer");
        if answer.starts_with("CUDA_SUCCESS") {
            assert!(!impossible, "{input}: ran on the H200");
            ran += 1;
        } else {
            assert!(
                answer.starts_with("CUDA_ERROR_INVALID_CLUSTER_SIZE"),
                "{input}: {answer}"
            );
            assert!(impossible, "{input}: failed on the H200 ({answer})");
            failed += 1;
        }
    }
    assert_eq!((ran, failed), (6, 6));
}

#[test]
fn clusters_at_a_time_agree_and_17_is_refused() {
    let h200 = Topology::of_target(&Target::parse("H200").unwrap()).unwrap();
    let (kernel, launch) = probe();
    for row in rows("max_active_clusters") {
        let input = row.str("input");
        let size: u32 = input["cluster ".len()..input.find(',').unwrap()]
            .parse()
            .unwrap();
        let got = max_active_clusters(
            &SM_90,
            &h200,
            &kernel,
            &launch,
            &Cluster::linear(size).allow_non_portable(),
        );
        if size <= 16 {
            let got = got.unwrap();
            assert_eq!(
                got.max_active_clusters,
                ClusterCount::Exact(row.u32("answer"))
            );
            if size == 3 {
                // One wave of the cluster launch: 327 x 3 = 981 blocks, not 8 x 132 = 1056.
                assert_eq!(got.blocks_at_a_time(), Some(981));
            }
        } else {
            // The occupancy query answers for 17 (16 clusters), but the launch fails (see
            // the launch rows): the engine refuses it, as the launch does.
            assert_eq!(row.u32("answer"), 16);
            assert!(
                matches!(got, Err(ClusterError::TooLarge { max: 16, .. })),
                "{got:?}"
            );
        }
    }
}

#[test]
fn ptxas_compiles_at_most_48_kib_of_static_shared_memory() {
    let checked = rows("ptxas_static_smem");
    assert_eq!(checked.len(), 4);
    for row in checked {
        let input = row.str("input");
        let bytes: u32 = input.split_whitespace().nth(1).unwrap().parse().unwrap();
        let compiled = row.str("answer") == "ok";
        assert_eq!(
            compiled,
            bytes <= MAX_STATIC_SMEM_PER_BLOCK_BYTES,
            "{input}"
        );
        if !compiled {
            assert!(
                row.str("answer")
                    .contains("uses too much shared data (0xc001 bytes, 0xc000 max)")
            );
        }
    }
}
