//! Property: `cargo occupancy batch`, run as a user runs it, answers every configuration
//! exactly as the library's `occupancy()` does, on every architecture, errors included.
//! Each case is 400 random rows sent through one run of the binary.

mod common;

use occupancy_core::arch::{ARCHS, Arch};
use occupancy_core::occupancy::{BlockDim, Carveout, Kernel, Launch, occupancy};
use proptest::prelude::*;

/// One batch row: the inputs of `batch`'s nine columns.
#[derive(Clone, Debug)]
struct Row {
    arch: &'static Arch,
    block_size: u32,
    registers: u32,
    static_smem: u32,
    dynamic_smem: u32,
    max_dynamic_smem: Option<u32>,
    carveout: i32,
    barriers: u32,
    max_threads: u32,
}

impl Row {
    fn tsv(&self) -> String {
        let cc = self.arch.cc;
        format!(
            "{}.{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}",
            cc.major,
            cc.minor,
            self.block_size,
            self.registers,
            self.static_smem,
            self.dynamic_smem,
            self.max_dynamic_smem
                .map_or_else(String::new, |b| b.to_string()),
            self.carveout,
            self.barriers,
            self.max_threads,
        )
    }

    /// The library's answer, in batch's output columns: blocks, warps, occupancy, limiters,
    /// error.
    fn expected(&self) -> [String; 5] {
        let kernel = Kernel::new(self.registers)
            .with_static_smem(self.static_smem)
            .with_barriers(self.barriers)
            .with_max_threads(self.max_threads);
        let kernel = match Carveout::from_attribute(self.carveout) {
            Ok(carveout) => kernel.with_carveout(carveout),
            Err(e) => return error(e.to_string()),
        };
        let kernel = match self.max_dynamic_smem {
            Some(bytes) => kernel.with_max_dynamic_smem_attribute(self.arch, bytes),
            None => kernel,
        };
        let launch =
            Launch::new(BlockDim::linear(self.block_size)).with_dynamic_smem(self.dynamic_smem);
        match occupancy(self.arch, &kernel, &launch) {
            Ok(occ) => [
                occ.blocks_per_sm.to_string(),
                occ.active_warps_per_sm().to_string(),
                format!("{:.4}", occ.fraction()),
                occ.limiters.to_string(),
                String::new(),
            ],
            Err(e) => error(e.to_string()),
        }
    }
}

fn error(message: String) -> [String; 5] {
    [
        "error".into(),
        String::new(),
        String::new(),
        String::new(),
        message,
    ]
}

fn row() -> impl Strategy<Value = Row> {
    (
        prop::sample::select(ARCHS.iter().collect::<Vec<_>>()),
        (0u32..=1100, 0u32..=270),
        (
            prop_oneof![Just(0u32), 0u32..=70_000],
            prop_oneof![Just(0u32), 0u32..=240_000],
            prop::option::of(prop_oneof![3 => 0u32..=100_000, 1 => 0u32..=240_000]),
        ),
        (
            prop_oneof![4 => Just(-1i32), 4 => 0i32..=100, 1 => Just(101)],
            0u32..=20,
            prop_oneof![Just(1024u32), 0u32..=1024],
        ),
    )
        .prop_map(
            |(
                arch,
                (block_size, registers),
                (static_smem, dynamic_smem, max),
                (carveout, barriers, max_threads),
            )| Row {
                arch,
                block_size,
                registers,
                static_smem,
                dynamic_smem,
                max_dynamic_smem: max,
                carveout,
                barriers,
                max_threads,
            },
        )
}

/// Runs the binary's `batch` on `rows`; returns its output rows, split into columns.
fn batch(rows: &[Row]) -> Vec<Vec<String>> {
    let mut input = String::from(
        "arch\tblock_size\tregisters_per_thread\tstatic_smem\tdynamic_smem\tmax_dynamic_smem\tcarveout\tbarriers\tmax_threads_per_block\n",
    );
    for row in rows {
        input.push_str(&row.tsv());
        input.push('\n');
    }
    common::batch(input)
        .lines()
        .skip(1)
        .map(|l| l.split('\t').skip(9).map(str::to_owned).collect())
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn batch_answers_as_the_library(rows in prop::collection::vec(row(), 400)) {
        let got = batch(&rows);
        prop_assert_eq!(got.len(), rows.len());
        // Mostly real answers, some refusals: both paths are compared.
        let answered = got.iter().filter(|cols| cols[0] != "error").count();
        prop_assert!((200..400).contains(&answered), "{answered} of 400 answered");
        for (row, got) in rows.iter().zip(&got) {
            let expected = row.expected();
            prop_assert_eq!(got.as_slice(), expected.as_slice(), "{}", row.tsv());
        }
    }
}
