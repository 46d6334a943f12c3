//! The cluster model against a second, wider recording from the H200's driver
//! (`tests/data/h200/cluster_sweep.tsv`, written by `scripts/gpu/cluster_probe.py` on
//! 2026-11-29, driver 580.159.04): `cuOccupancyMaxActiveClusters` for cluster sizes 1..16,
//! linear and 2-D / 3-D shapes, every plain occupancy 1..32 blocks per SM, three cluster
//! scheduling policies, and the non-portable attribute on and off; plus the SM groups real
//! cluster launches ran on (`cluster_vgpcs.tsv`).

mod common;

use common::read_tsv;
use occupancy::arch::Target;
use occupancy::cluster::{
    Cluster, ClusterDim, ClusterError, SchedulingPolicy, Topology, cluster_blocks_per_sm_cap,
    max_active_clusters, skyline_clusters,
};
use occupancy::occupancy::{BlockDim, Kernel, Launch};

#[test]
fn every_shape_policy_and_occupancy_agrees() {
    let h200 = Target::parse("H200").unwrap();
    let Some(Topology::Skyline { skyline, die }) = Topology::of_target(&h200) else {
        panic!("the H200's skyline is measured");
    };
    let cap = cluster_blocks_per_sm_cap(h200.arch).unwrap();
    let rows = read_tsv("h200/cluster_sweep.tsv");
    assert_eq!(rows.len(), 10368);
    let (mut exact, mut refused) = (0, 0);
    for row in &rows {
        let dim = ClusterDim::new(
            row.u32("cluster_x"),
            row.u32("cluster_y"),
            row.u32("cluster_z"),
        );
        let size = row.u32("cluster_size");
        assert_eq!(u64::from(size), dim.blocks());
        let answer = row.str("max_active_clusters");
        if row.str("non_portable") == "0" && size > 8 {
            // Without the non-portable attribute, above 8 blocks the driver refuses.
            assert_eq!(answer, "CUDA_ERROR_INVALID_CLUSTER_SIZE");
            let engine = max_active_clusters(
                h200.arch,
                &Topology::of_target(&h200).unwrap(),
                &Kernel::new(32),
                &Launch::new(BlockDim::linear(32)),
                &Cluster::new(dim),
            );
            assert!(
                matches!(engine, Err(ClusterError::NotPortable { .. })),
                "{engine:?}"
            );
            refused += 1;
            continue;
        }
        let blocks_per_sm = row.u32("blocks_per_sm").min(cap);
        let policy = match row.str("policy") {
            "unset" => SchedulingPolicy::Default,
            "spread" => SchedulingPolicy::Spread,
            "load_balancing" => SchedulingPolicy::LoadBalancing,
            other => panic!("unknown policy {other}"),
        };
        let model = skyline_clusters(&skyline, die.sms_per_tpc, blocks_per_sm, size, policy);
        assert_eq!(
            model.to_string(),
            answer,
            "shape {dim:?}, policy {}, {} blocks/SM",
            row.str("policy"),
            row.str("blocks_per_sm")
        );
        exact += 1;
    }
    assert_eq!((exact, refused), (6624, 3744));
}

#[test]
fn real_launches_ran_on_the_modelled_sm_groups() {
    // SMs that ran blocks of one cluster together, grouped (union-find over every placement
    // launch): the skyline's virtual GPCs, 8, 16 x 5, 18 x 2 SMs and 4 singleton TPCs.
    let mut sizes: Vec<u32> = read_tsv("h200/cluster_vgpcs.tsv")
        .iter()
        .map(|r| r.u32("sm_count"))
        .collect();
    sizes.sort_unstable();
    assert_eq!(sizes, [2, 2, 2, 2, 8, 16, 16, 16, 16, 16, 18, 18]);
}
