//! The engine against answers recorded from the CUDA driver on an NVIDIA H200 (cc 9.0,
//! driver 580.159.04): `tests/data/h200/`, described in `tests/data/README.md`.

mod common;

use std::io::Read;

use common::{H200Kernel, barriers_of, data, h200_kernels, read_tsv, tsv};
use occupancy::arch::SM_90;
use occupancy::occupancy::{
    BlockDim, Carveout, Kernel, Launch, OccupancyError, available_dynamic_smem,
    max_potential_block_size, occupancy,
};

const H200_SMS: u32 = 132;
const ALPHABET: &str = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";

/// The engine's kernel for a recorded kernel; `max_dynamic` above the 48 KiB default minus
/// static means the recording had opted in to it.
fn kernel(name: &str, a: &H200Kernel, max_dynamic: u32, carveout: i32) -> Kernel {
    let mut k = Kernel::new(a.num_regs)
        .with_static_smem(a.static_smem)
        .with_barriers(barriers_of(name))
        .with_max_threads(a.max_threads)
        .with_carveout(Carveout::from_attribute(carveout).unwrap());
    k = k.with_max_dynamic_smem_attribute(&SM_90, max_dynamic);
    k
}

#[test]
fn every_recorded_block_size_agrees_with_the_driver() {
    let kernels = h200_kernels();
    let mut gz = String::new();
    flate2::read::GzDecoder::new(std::fs::File::open(data("h200/occupancy.tsv.gz")).unwrap())
        .read_to_string(&mut gz)
        .unwrap();
    let rows = tsv(&gz);
    let (mut checked, mut wrong) = (0u64, Vec::new());
    for row in &rows {
        let name = row.str("kernel");
        let attrs = &kernels[name];
        let k = kernel(
            name,
            attrs,
            row.u32("max_dynamic_smem"),
            row.int("carveout") as i32,
        );
        let dynamic = row.u32("dynamic_smem");
        let answers = row.str("blocks_per_sm_by_block_size");
        assert_eq!(answers.len(), 1024);
        for (i, c) in answers.chars().enumerate() {
            let block = i as u32 + 1;
            let launch = Launch::new(BlockDim::linear(block)).with_dynamic_smem(dynamic);
            let got = occupancy(&SM_90, &k, &launch).unwrap().blocks_per_sm;
            let expected = ALPHABET
                .find(c)
                .unwrap_or_else(|| panic!("unexpected {c:?}")) as u32;
            checked += 1;
            if got != expected {
                wrong.push(format!(
                    "{name} carveout {} dyn {dynamic} block {block}: {got} != {expected}",
                    row.str("carveout")
                ));
            }
        }
    }
    assert_eq!(rows.len(), 3472, "recorded rows");
    assert_eq!(checked, 3472 * 1024);
    assert!(
        wrong.is_empty(),
        "{} of {checked} disagree, first: {:#?}",
        wrong.len(),
        &wrong[..wrong.len().min(10)]
    );
}

#[test]
fn max_potential_block_size_agrees_with_the_driver() {
    let kernels = h200_kernels();
    let rows = read_tsv("h200/potential.tsv");
    assert_eq!(rows.len(), 168);
    for row in rows {
        let name = row.str("kernel");
        let attrs = &kernels[name];
        // The recording set the opt-in to the maximum before asking.
        let k = kernel(name, attrs, attrs.optin, -1);
        let dynamic = row.u32("dynamic_smem");
        let got = max_potential_block_size(&SM_90, &k, H200_SMS, |_| dynamic).unwrap();
        assert_eq!(
            (got.min_grid_size, got.block_size),
            (row.u32("min_grid_size"), row.u32("block_size")),
            "{name} dynamic {dynamic}"
        );
    }
}

/// The driver's `cuOccupancyAvailableDynamicSMemPerBlock` does not subtract the 1 KiB
/// reserved per block when 2 or more blocks are asked for, so its answer fits one block
/// fewer than asked. The engine answers the launchable value: this test asserts that it is
/// exactly 1024 below the driver's in those rows, equal otherwise, that it launches
/// `num_blocks` blocks, and that one byte more does not.
#[test]
fn available_dynamic_smem_is_the_launchable_driver_value() {
    let kernels = h200_kernels();
    let rows = read_tsv("h200/avail_dyn_smem.tsv");
    let (mut equal, mut reserve_corrected, mut errors) = (0, 0, 0);
    for row in &rows {
        let name = row.str("kernel");
        let attrs = &kernels[name];
        let k = kernel(name, attrs, attrs.optin, -1);
        let block = BlockDim::linear(row.u32("block_size"));
        let wanted = row.u32("num_blocks");
        let got = available_dynamic_smem(&SM_90, &k, block, wanted);
        let recorded = row.str("available_dynamic_smem");
        if recorded.starts_with("err") {
            assert!(
                matches!(got, Err(OccupancyError::BlocksDoNotFit { .. })),
                "{name} {block} {wanted}: {got:?}"
            );
            errors += 1;
            continue;
        }
        let driver: u32 = recorded.parse().unwrap();
        let bytes = got.unwrap_or_else(|e| panic!("{name} {block} {wanted}: {e}"));
        let resident = |dynamic: u32| {
            occupancy(&SM_90, &k, &Launch::new(block).with_dynamic_smem(dynamic))
                .unwrap()
                .blocks_per_sm
        };
        assert!(
            resident(bytes) >= wanted,
            "{name} {block} {wanted}: {bytes} does not launch"
        );
        if bytes < attrs.optin - attrs.static_smem {
            assert!(
                resident(bytes + 1) < wanted,
                "{name} {block} {wanted}: {bytes} is not the maximum"
            );
        }
        if wanted == 1 {
            assert_eq!(bytes, driver, "{name} {block} {wanted}");
            equal += 1;
        } else {
            assert_eq!(bytes + 1024, driver, "{name} {block} {wanted}");
            assert!(
                resident(driver) < wanted,
                "the driver's value launches after all"
            );
            reserve_corrected += 1;
        }
    }
    assert_eq!((equal, reserve_corrected, errors), (198, 1533, 5437));
}
