//! Thread-block-cluster occupancy against `cuOccupancyMaxActiveClusters` answers recorded
//! on an NVIDIA H200 (cc 9.0, 132 SMs, driver 580.159.04): `tests/data/h200/clusters.tsv`.
//!
//! Each row: a probe kernel (attributes in `kernels.json`), a cluster size (the cluster
//! dimension launch attribute's x; grid x = 64 x cluster size), a block size and dynamic
//! shared memory, with the opt-in set to the maximum and non-portable sizes allowed.

mod common;

use std::collections::BTreeMap;

use common::{barriers_of, h200_kernels, read_tsv};
use occupancy::arch::{GH100, GPUS, Gpu, SM_90};
use occupancy::cluster::{
    Basis, Cluster, ClusterCount, ClusterOccupancy, Topology, max_active_clusters,
};
use occupancy::occupancy::{BlockDim, Kernel, Launch};

fn gpu(name: &str) -> &'static Gpu {
    GPUS.iter().find(|g| g.name == name).unwrap()
}

struct Recorded {
    kernel: Kernel,
    launch: Launch,
    cluster_size: u32,
    clusters: u32,
    what: String,
}

fn recorded() -> Vec<Recorded> {
    let attrs = h200_kernels();
    read_tsv("h200/clusters.tsv")
        .into_iter()
        .map(|row| {
            let name = row.str("kernel");
            let a = &attrs[name];
            let kernel = Kernel::new(a.num_regs)
                .with_static_smem(a.static_smem)
                .with_barriers(barriers_of(name))
                .with_max_threads(a.max_threads)
                .with_opt_in(a.optin);
            let launch = Launch::new(BlockDim::linear(row.u32("block_size")))
                .with_dynamic_smem(row.u32("dynamic_smem"));
            Recorded {
                kernel,
                launch,
                cluster_size: row.u32("cluster_size"),
                clusters: row.u32("max_active_clusters"),
                what: format!(
                    "{name} cluster {} block {} dyn {}",
                    row.str("cluster_size"),
                    row.str("block_size"),
                    row.str("dynamic_smem")
                ),
            }
        })
        .collect()
}

fn answer(topology: &Topology, r: &Recorded) -> ClusterOccupancy {
    let cluster = Cluster::linear(r.cluster_size).allow_non_portable();
    max_active_clusters(&SM_90, topology, &r.kernel, &r.launch, &cluster)
        .unwrap_or_else(|e| panic!("{}: {e}", r.what))
}

#[test]
fn every_recorded_h200_answer_is_exact() {
    let rows = recorded();
    assert_eq!(rows.len(), 3240);
    let h200 = Topology::of_gpu(gpu("H200"));
    let mut capped = 0;
    let mut per_size: BTreeMap<u32, usize> = BTreeMap::new();
    for r in &rows {
        let got = answer(&h200, r);
        assert_eq!(got.basis, Basis::Measured);
        assert_eq!(
            got.max_active_clusters,
            ClusterCount::Exact(r.clusters),
            "{}: plain occupancy {} blocks per SM",
            r.what,
            got.occupancy.blocks_per_sm
        );
        if got.occupancy.blocks_per_sm > 8 {
            capped += 1;
        }
        *per_size.entry(r.cluster_size).or_default() += 1;
    }
    // The cap of 8 blocks per SM decides 68 of the 540 configurations (plain occupancy 9
    // to 32) at every cluster size ...
    assert_eq!(capped, 68 * 6, "rows above the cap");
    // ... and every cluster size was replayed.
    assert_eq!(
        per_size.into_iter().collect::<Vec<_>>(),
        [(1, 540), (2, 540), (3, 540), (4, 540), (8, 540), (16, 540)]
    );
}

#[test]
fn cluster_size_1_is_132_times_the_capped_occupancy() {
    let h200 = Topology::of_gpu(gpu("H200"));
    for r in recorded().iter().filter(|r| r.cluster_size == 1) {
        let got = answer(&h200, r);
        assert_eq!(
            r.clusters,
            132 * got.occupancy.blocks_per_sm.min(8),
            "{}",
            r.what
        );
    }
}

#[test]
fn bounds_without_the_skyline_contain_every_recorded_answer() {
    let die_only = Topology::Die {
        die: &GH100,
        sm_count: 132,
    };
    let sm_only = Topology::SmCount(132);
    let h100 = Topology::of_gpu(gpu("H100 80GB HBM3"));
    let mut die_exact = 0;
    for r in &recorded() {
        for topology in [&die_only, &sm_only, &h100] {
            let got = answer(topology, r).max_active_clusters;
            assert!(got.contains(r.clusters), "{}: {got} ({topology:?})", r.what);
        }
        let inferred = answer(&h100, r).max_active_clusters;
        assert_eq!(inferred.model(), Some(r.clusters), "{}", r.what);
        if answer(&die_only, r).max_active_clusters.exact().is_some() {
            die_exact += 1;
        }
    }
    // Sizes 1 and 2, and the 16 configurations where no block fits, do not depend on the
    // layout.
    assert_eq!(die_exact, 540 * 2 + 4 * 16);
}

/// The first number after `marker` in `text`.
fn number_after(text: &str, marker: &str) -> u32 {
    let rest = &text[text
        .find(marker)
        .unwrap_or_else(|| panic!("{marker:?} in {text:?}"))
        + marker.len()..];
    let digits: String = rest
        .trim_start()
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    digits.parse().unwrap()
}

#[test]
fn field_case_28_h100_sxm_clusters_of_4_8_16() {
    let row = read_tsv("field-cases.tsv")
        .into_iter()
        .find(|r| r.str("id") == "28")
        .expect("field case 28");
    assert_eq!(row.str("cc"), "9.0");
    let dynamic = row.u32("dyn_smem_B");
    let kernel = Kernel::new(32).with_opt_in(dynamic);
    let launch = Launch::new(BlockDim::linear(row.u32("block_threads"))).with_dynamic_smem(dynamic);
    let expected = [
        (
            row.u32("cluster_size"),
            number_after(row.str("correct_blocks_per_sm"), ";"),
        ),
        (8, number_after(row.str("notes"), "cluster 8 ->")),
        (16, number_after(row.str("notes"), "16 ->")),
    ];
    assert_eq!(expected, [(4, 30), (8, 15), (16, 7)]);
    for topology in [
        Topology::of_gpu(gpu("H100 80GB HBM3")),
        Topology::of_gpu(gpu("H200")),
    ] {
        for (size, clusters) in expected {
            let cluster = Cluster::linear(size).allow_non_portable();
            let got = max_active_clusters(&SM_90, &topology, &kernel, &launch, &cluster).unwrap();
            assert_eq!(got.occupancy.blocks_per_sm, 1);
            assert_eq!(got.max_active_clusters.model(), Some(clusters), "{size}");
            assert!(got.max_active_clusters.contains(clusters));
        }
    }
    // "16 needs the non-portable attribute".
    let h100 = Topology::of_gpu(gpu("H100 80GB HBM3"));
    let portable_only = Cluster::linear(16);
    assert!(max_active_clusters(&SM_90, &h100, &kernel, &launch, &portable_only).is_err());
}
