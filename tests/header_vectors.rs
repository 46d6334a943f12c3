//! The engine against NVIDIA's `cuda_occupancy.h` (CUDA 13.5): 400 random launch
//! configurations per architecture, sm_75 .. sm_121, every column (`tests/data/header-vectors.tsv`).

mod common;

use common::{arch, read_tsv};
use occupancy::occupancy::{BlockDim, Carveout, Kernel, Launch, UNLIMITED, occupancy};

fn limit(v: u32) -> String {
    if v == UNLIMITED {
        "inf".into()
    } else {
        v.to_string()
    }
}

#[test]
fn every_vector_agrees_in_every_column() {
    let rows = read_tsv("header-vectors.tsv");
    assert_eq!(rows.len(), 4400);
    let mut wrong = Vec::new();
    for (i, row) in rows.iter().enumerate() {
        let arch = arch(row.str("arch"));
        let static_smem = row.u32("static_smem");
        let max_dynamic = row.u32("max_dynamic_smem");
        let mut kernel = Kernel::new(row.u32("registers_per_thread"))
            .with_static_smem(static_smem)
            .with_barriers(row.u32("barriers"))
            .with_max_threads(row.u32("max_threads_per_block"))
            .with_carveout(Carveout::from_attribute(row.int("carveout") as i32).unwrap());
        kernel = kernel.with_max_dynamic_smem_attribute(arch, max_dynamic);
        let launch = Launch::new(BlockDim::linear(row.u32("block_size")))
            .with_dynamic_smem(row.u32("dynamic_smem"));
        let occ = occupancy(arch, &kernel, &launch).unwrap();
        let barrier_limit = if arch.barriers_per_sm == 0 {
            "-1".to_owned()
        } else {
            limit(occ.limits.barriers)
        };
        let got = [
            ("blocks_per_sm", occ.blocks_per_sm.to_string()),
            ("limiters", occ.limiters.to_string()),
            ("limit_registers", limit(occ.limits.registers)),
            ("limit_shared_memory", limit(occ.limits.shared_memory)),
            ("limit_warps", limit(occ.limits.warps)),
            ("limit_blocks", limit(occ.limits.blocks)),
            ("limit_barriers", barrier_limit),
            (
                "allocated_registers_per_block",
                occ.registers_per_block.to_string(),
            ),
            (
                "allocated_smem_per_block",
                occ.smem_per_block_bytes.to_string(),
            ),
        ];
        for (column, value) in got {
            if row.str(column) != value {
                wrong.push(format!(
                    "row {}: {column}: engine {value}, header {}",
                    i + 2,
                    row.str(column)
                ));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "{} mismatches: {:#?}",
        wrong.len(),
        &wrong[..wrong.len().min(20)]
    );
}
