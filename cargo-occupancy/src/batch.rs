//! `cargo occupancy batch`: many configurations as TSV on stdin, answers as TSV on stdout.
//!
//! The header names the columns, in any order: `arch`, `block_size` and
//! `registers_per_thread` are required; `static_smem` (default 0), `dynamic_smem` (0),
//! `max_dynamic_smem` (not opted in), `carveout` (-1), `barriers` (1) and
//! `max_threads_per_block` (1024) are optional; other columns are carried through. As in the
//! recorded driver data, a `max_dynamic_smem` above 48 KiB minus the static shared memory
//! means the function opted in to that much; at or below it, the default limit applies.
//!
//! Output: the input columns as given, then `blocks_per_sm`, `warps_per_sm`, `occupancy`
//! (fraction, 4 decimals), `limiters` (comma list, `cuda_occupancy.h` convention) and
//! `error` (empty when fine). An appended column whose name the input already has (a file
//! of expected answers, say) is named `engine_<name>` instead (`engine_blocks_per_sm`),
//! so that every output column has one name: the input's columns keep theirs. A row the engine refuses, or one with more or fewer fields
//! than the header, gets `error` in `blocks_per_sm` and the reason in `error` (its input
//! columns padded or cut to the header's); the other rows go on. A `max_dynamic_smem` below
//! the default is a function that lowered its own limit: more dynamic shared memory than
//! that fails, as the driver refuses such a launch.

use std::collections::HashMap;
use std::io::{BufRead, Write};

use occupancy_core::arch::{Arch, Target};
use occupancy_core::occupancy::{BlockDim, Carveout, Kernel, Launch, occupancy};

/// Input columns the engine reads.
const COLUMNS: [&str; 9] = [
    "arch",
    "block_size",
    "registers_per_thread",
    "static_smem",
    "dynamic_smem",
    "max_dynamic_smem",
    "carveout",
    "barriers",
    "max_threads_per_block",
];
const REQUIRED: [&str; 3] = ["arch", "block_size", "registers_per_thread"];

/// Column positions in the input header.
struct Layout {
    index: [Option<usize>; 9],
    /// Columns in the header.
    width: usize,
}

impl Layout {
    fn new(header: &str) -> Result<Self, String> {
        let names: Vec<&str> = header.split('\t').map(str::trim).collect();
        let mut index = [None; 9];
        for (slot, column) in index.iter_mut().zip(COLUMNS) {
            *slot = names.iter().position(|n| *n == column);
        }
        for (i, name) in names.iter().enumerate() {
            if !name.is_empty() && names[..i].contains(name) {
                return Err(format!("batch: the header names the column `{name}` twice"));
            }
        }
        let missing: Vec<&str> = REQUIRED
            .into_iter()
            .filter(|c| !names.contains(c))
            .collect();
        if !missing.is_empty() {
            return Err(format!(
                "batch: the header lacks the required column(s) {}",
                missing.join(", ")
            ));
        }
        Ok(Self {
            index,
            width: names.len(),
        })
    }

    fn get<'a>(&self, cells: &[&'a str], column: usize) -> Option<&'a str> {
        self.index[column]
            .and_then(|i| cells.get(i))
            .map(|c| c.trim())
            .filter(|c| !c.is_empty())
    }
}

/// The cell of `column` parsed as a number; `None` when the column is absent or empty.
fn number<T: std::str::FromStr>(
    cells: &[&str],
    layout: &Layout,
    column: usize,
) -> Result<Option<T>, String> {
    match layout.get(cells, column) {
        None => Ok(None),
        Some(text) => text
            .parse()
            .map(Some)
            .map_err(|_| format!("{}: `{text}` is not a valid number", COLUMNS[column])),
    }
}

/// Evaluates one row: `blocks_per_sm, warps_per_sm, occupancy, limiters`.
fn evaluate(
    cells: &[&str],
    layout: &Layout,
    archs: &mut HashMap<String, &'static Arch>,
) -> Result<(u32, u32, f64, String), String> {
    let arch_name = layout.get(cells, 0).ok_or("arch: missing")?;
    let arch = match archs.get(arch_name) {
        Some(a) => *a,
        None => {
            let a = Target::parse(arch_name).map_err(|e| e.to_string())?.arch;
            archs.insert(arch_name.to_owned(), a);
            a
        }
    };
    let block_size: u32 = number(cells, layout, 1)?.ok_or("block_size: missing")?;
    let registers: u32 = number(cells, layout, 2)?.ok_or("registers_per_thread: missing")?;
    let static_smem: u32 = number(cells, layout, 3)?.unwrap_or(0);
    let dynamic_smem: u32 = number(cells, layout, 4)?.unwrap_or(0);
    let max_dynamic: Option<u32> = number(cells, layout, 5)?;
    let carveout: i32 = number(cells, layout, 6)?.unwrap_or(-1);
    let barriers: u32 = number(cells, layout, 7)?.unwrap_or(1);
    let max_threads: u32 = number(cells, layout, 8)?.unwrap_or(1024);
    let mut kernel = Kernel::new(registers)
        .with_static_smem(static_smem)
        .with_barriers(barriers)
        .with_max_threads(max_threads)
        .with_carveout(Carveout::from_attribute(carveout).map_err(|e| e.to_string())?);
    if let Some(bytes) = max_dynamic {
        kernel = kernel.with_max_dynamic_smem_attribute(arch, bytes);
    }
    let launch = Launch::new(BlockDim::linear(block_size)).with_dynamic_smem(dynamic_smem);
    let occ = occupancy(arch, &kernel, &launch).map_err(|e| e.to_string())?;
    Ok((
        occ.blocks_per_sm,
        occ.active_warps_per_sm(),
        occ.fraction(),
        occ.limiters.to_string(),
    ))
}

/// Columns `batch` appends.
const OUTPUT: [&str; 5] = [
    "blocks_per_sm",
    "warps_per_sm",
    "occupancy",
    "limiters",
    "error",
];

/// The names of the appended columns for an input `header`: [`OUTPUT`], each prefixed with
/// `engine_` (again, if need be) where the input already has a column of that name.
fn output_columns(header: &str) -> Vec<String> {
    let input: Vec<&str> = header.split('\t').map(str::trim).collect();
    OUTPUT
        .iter()
        .map(|name| {
            let mut name = (*name).to_owned();
            while input.contains(&name.as_str()) {
                name.insert_str(0, "engine_");
            }
            name
        })
        .collect()
}

/// Runs `batch` from `input` to `output`. Returns the number of rows with an error.
pub fn run(input: impl BufRead, mut output: impl Write) -> Result<usize, String> {
    let io = |e: std::io::Error| format!("batch: {e}");
    let mut lines = input.lines();
    let header = loop {
        match lines.next() {
            None => return Err("batch: empty input (expected a TSV header line)".into()),
            Some(line) => {
                let line = line.map_err(io)?;
                if !line.trim().is_empty() && !line.starts_with('#') {
                    break line;
                }
            }
        }
    };
    let layout = Layout::new(&header)?;
    let header = header.trim_end();
    writeln!(output, "{header}\t{}", output_columns(header).join("\t")).map_err(io)?;
    let mut archs = HashMap::new();
    let mut errors = 0;
    for line in lines {
        let line = line.map_err(io)?;
        if line.trim().is_empty() || line.starts_with('#') {
            continue;
        }
        let cells: Vec<&str> = line.trim_end_matches(['\r', '\n']).split('\t').collect();
        // The input columns as the header has them, so that ours always line up.
        let mut echoed: Vec<&str> = cells.iter().copied().take(layout.width).collect();
        echoed.resize(layout.width, "");
        let row = echoed.join("\t");
        let result = if cells.len() == layout.width {
            evaluate(&cells, &layout, &mut archs)
        } else {
            Err(format!(
                "the row has {} fields, the header {}",
                cells.len(),
                layout.width
            ))
        };
        match result {
            Ok((blocks, warps, fraction, limiters)) => writeln!(
                output,
                "{row}\t{blocks}\t{warps}\t{fraction:.4}\t{limiters}\t"
            )
            .map_err(io)?,
            Err(message) => {
                errors += 1;
                let message = message.replace(['\t', '\n'], " ");
                writeln!(output, "{row}\terror\t\t\t\t{message}").map_err(io)?
            }
        }
    }
    Ok(errors)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn batch(input: &str) -> String {
        let mut out = Vec::new();
        run(input.as_bytes(), &mut out).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn columns_in_any_order_and_errors_per_row() {
        let out = batch(
            "registers_per_thread\tblock_size\tarch\tnote\n\
             40\t256\tsm_80\tseed example\n\
             40\t256\tsm_99\tbad arch\n\
             32\t0\tsm_90\tempty block\n\
             x\t256\tsm_90\tbad number\n\
             32\t256\tH100\tgpu name\n",
        );
        let rows: Vec<Vec<&str>> = out.lines().map(|l| l.split('\t').collect()).collect();
        assert_eq!(
            rows[0][4..],
            [
                "blocks_per_sm",
                "warps_per_sm",
                "occupancy",
                "limiters",
                "error"
            ]
        );
        assert_eq!(rows[1][4..], ["6", "48", "0.7500", "registers", ""]);
        assert_eq!(rows[2][4], "error");
        assert!(
            rows[2][8].contains("unknown compute capability 9.9"),
            "{}",
            rows[2][8]
        );
        assert_eq!(rows[3][4], "error");
        assert!(
            rows[4][8].contains("registers_per_thread: `x`"),
            "{}",
            rows[4][8]
        );
        assert_eq!(rows[5][4..8], ["8", "64", "1.0000", "warps,registers"]);
    }

    #[test]
    fn max_dynamic_smem_above_the_default_means_opted_in() {
        let out = batch(
            "arch\tblock_size\tregisters_per_thread\tstatic_smem\tdynamic_smem\tmax_dynamic_smem\n\
             sm_90\t128\t32\t0\t65536\t49152\n\
             sm_90\t128\t32\t0\t65536\t65536\n",
        );
        let rows: Vec<Vec<&str>> = out.lines().map(|l| l.split('\t').collect()).collect();
        assert_eq!(rows[1][6], "0", "not opted in: 64 KiB does not fit");
        assert_eq!(rows[2][6], "3", "opted in: 3 x 65 KiB in 228 KiB");
    }

    #[test]
    fn ragged_rows_keep_the_columns_aligned() {
        let out =
            batch("arch\tblock_size\tregisters_per_thread\nsm_80\t256\t32\textra\nsm_80\t256\n");
        for line in out.lines() {
            assert_eq!(line.split('\t').count(), 8, "{line:?}");
        }
        let rows: Vec<Vec<&str>> = out.lines().map(|l| l.split('\t').collect()).collect();
        assert_eq!(rows[1][..4], ["sm_80", "256", "32", "error"]);
        assert_eq!(rows[1][7], "the row has 4 fields, the header 3");
        assert_eq!(rows[2][..4], ["sm_80", "256", "", "error"]);
        let err = run(
            "arch\tblock_size\tregisters_per_thread\tarch\n".as_bytes(),
            Vec::new(),
        )
        .unwrap_err();
        assert!(err.contains("`arch` twice"), "{err}");
    }

    #[test]
    fn a_lowered_max_dynamic_smem_is_enforced_as_the_driver_does() {
        // sm_80, static 0: the default is 49152. 32768 lowers it: 40000 B fails there.
        let out = batch(
            "arch\tblock_size\tregisters_per_thread\tdynamic_smem\tmax_dynamic_smem\n\
             sm_80\t256\t32\t40000\t32768\n\
             sm_80\t256\t32\t40000\t49152\n",
        );
        let rows: Vec<Vec<&str>> = out.lines().map(|l| l.split('\t').collect()).collect();
        assert_eq!(rows[1][5], "0");
        assert_eq!(rows[2][5], "4");
    }

    #[test]
    fn appended_columns_the_input_already_has_are_prefixed() {
        // Issue 13, item 11: expected answers in the input (header-vectors.tsv has
        // `blocks_per_sm` and `limiters`) keep their names; the engine's are `engine_*`.
        let out = batch(
            "arch\tblock_size\tregisters_per_thread\tblocks_per_sm\tlimiters\tengine_limiters\n\
             sm_80\t256\t40\t6\tregisters\tx\n",
        );
        let rows: Vec<Vec<&str>> = out.lines().map(|l| l.split('\t').collect()).collect();
        assert_eq!(
            rows[0],
            [
                "arch",
                "block_size",
                "registers_per_thread",
                "blocks_per_sm",
                "limiters",
                "engine_limiters",
                "engine_blocks_per_sm",
                "warps_per_sm",
                "occupancy",
                "engine_engine_limiters",
                "error"
            ]
        );
        assert_eq!(rows[1][6..], ["6", "48", "0.7500", "registers", ""]);
        let mut names = rows[0].clone();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), rows[0].len(), "every column has its own name");
    }

    #[test]
    fn missing_required_columns_is_an_error() {
        let err = run("arch\tblock_size\n".as_bytes(), Vec::new()).unwrap_err();
        assert!(err.contains("registers_per_thread"), "{err}");
    }
}
