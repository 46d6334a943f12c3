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

use std::io::{BufRead, Write};

use occupancy_core::arch::{Arch, Target};
use occupancy_core::occupancy::{
    BlockDim, Carveout, Kernel, Launch, Limiters, Occupancy, occupancy,
};

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
            // `arch,block_size,..`: comma-separated, one column to a tab reader.
            let hint = if names.len() == 1 && header.contains(',') {
                " (the header has commas and no tab: batch reads tab-separated values; \
                 convert a CSV with `tr ',' '\\t'`)"
            } else {
                ""
            };
            return Err(format!(
                "batch: the header lacks the required column(s) {}{hint}",
                missing.join(", ")
            ));
        }
        Ok(Self {
            index,
            width: names.len(),
        })
    }
}

/// The cell of `column` parsed as a number; `None` when the column is absent or empty.
fn number<T: std::str::FromStr>(
    cells: &[Option<&str>; 9],
    column: usize,
) -> Result<Option<T>, String> {
    match cells[column].map(trimmed).filter(|c| !c.is_empty()) {
        None => Ok(None),
        Some(text) => text
            .parse()
            .map(Some)
            .map_err(|_| format!("{}: `{text}` is not a valid number", COLUMNS[column])),
    }
}

/// `cell` without surrounding whitespace, as `str::trim` gives it: the cell itself when it
/// starts and ends with a visible ASCII character (every cell of a well-formed file), which
/// saves the scan a million rows would otherwise pay.
fn trimmed(cell: &str) -> &str {
    match (cell.as_bytes().first(), cell.as_bytes().last()) {
        (Some(first), Some(last)) if first.is_ascii_graphic() && last.is_ascii_graphic() => cell,
        _ => cell.trim(),
    }
}

/// Whether a line is blank (nothing but whitespace), as `str::trim` decides, checking the
/// first character before scanning.
fn blank(line: &str) -> bool {
    line.chars().next().is_none_or(char::is_whitespace) && line.trim().is_empty()
}

/// What rows share, computed once: the architecture of each name, the text of each
/// occupancy fraction and of each set of limiters (a few dozen of each in a million rows).
#[derive(Default)]
struct Cache {
    archs: Vec<(String, &'static Arch)>,
    /// By `active * 65 + max` warps (both at most 64 on every architecture).
    fractions: Vec<Option<String>>,
    limiters: Vec<(Limiters, String)>,
}

impl Cache {
    fn arch(&mut self, name: &str) -> Result<&'static Arch, String> {
        if let Some((_, arch)) = self.archs.iter().find(|(n, _)| n == name) {
            return Ok(arch);
        }
        let arch = Target::parse(name).map_err(|e| e.to_string())?.arch;
        // Bounded: a file of made-up names costs a parse per row, not memory.
        if self.archs.len() < 64 {
            self.archs.push((name.to_owned(), arch));
        }
        Ok(arch)
    }

    /// Appends `0.7500`: the fraction of the SM's warps, 4 decimals.
    fn push_fraction(&mut self, occ: &Occupancy, out: &mut Vec<u8>) {
        let (active, max) = (occ.active_warps_per_sm(), occ.max_warps_per_sm);
        if active > 64 || max > 64 {
            out.extend_from_slice(format!("{:.4}", occ.fraction()).as_bytes());
            return;
        }
        if self.fractions.is_empty() {
            self.fractions.resize(65 * 65, None);
        }
        let text = self.fractions[(active * 65 + max) as usize]
            .get_or_insert_with(|| format!("{:.4}", occ.fraction()));
        out.extend_from_slice(text.as_bytes());
    }

    /// `warps,registers`.
    fn limiters(&mut self, occ: &Occupancy) -> &str {
        let at = match self.limiters.iter().position(|(l, _)| *l == occ.limiters) {
            Some(at) => at,
            None => {
                self.limiters.push((occ.limiters, occ.limiters.to_string()));
                self.limiters.len() - 1
            }
        };
        &self.limiters[at].1
    }
}

/// Appends `n` in decimal.
fn push_u32(out: &mut Vec<u8>, n: u32) {
    let mut digits = [0u8; 10];
    let mut at = digits.len();
    let mut n = n;
    loop {
        at -= 1;
        digits[at] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    out.extend_from_slice(&digits[at..]);
}

/// Evaluates one row (its engine columns, [`COLUMNS`] order).
fn evaluate(cells: &[Option<&str>; 9], cache: &mut Cache) -> Result<Occupancy, String> {
    let arch_name = cells[0]
        .map(trimmed)
        .filter(|c| !c.is_empty())
        .ok_or("arch: missing")?;
    let arch = cache.arch(arch_name)?;
    let block_size: u32 = number(cells, 1)?.ok_or("block_size: missing")?;
    let registers: u32 = number(cells, 2)?.ok_or("registers_per_thread: missing")?;
    let static_smem: u32 = number(cells, 3)?.unwrap_or(0);
    let dynamic_smem: u32 = number(cells, 4)?.unwrap_or(0);
    let max_dynamic: Option<u32> = number(cells, 5)?;
    let carveout: i32 = number(cells, 6)?.unwrap_or(-1);
    let barriers: u32 = number(cells, 7)?.unwrap_or(1);
    let max_threads: u32 = number(cells, 8)?.unwrap_or(1024);
    let mut kernel = Kernel::new(registers)
        .with_static_smem(static_smem)
        .with_barriers(barriers)
        .with_max_threads(max_threads)
        .with_carveout(Carveout::from_attribute(carveout).map_err(|e| e.to_string())?);
    if let Some(bytes) = max_dynamic {
        kernel = kernel.with_max_dynamic_smem_attribute(arch, bytes);
    }
    let launch = Launch::new(BlockDim::linear(block_size)).with_dynamic_smem(dynamic_smem);
    occupancy(arch, &kernel, &launch).map_err(|e| e.to_string())
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

/// The longest input line read (64 KiB): a real row has fewer than 100 bytes. A longer
/// line is a row error, and its bytes past the cap are skipped, not stored.
pub const MAX_LINE_BYTES: usize = 64 << 10;

/// One input line, without its line end.
enum Line {
    /// The line's bytes, in the buffer [`next_line`] was given ([`text`] checks them).
    Bytes,
    /// Longer than [`MAX_LINE_BYTES`].
    TooLong,
    /// Not UTF-8: the byte offset of the first bad byte.
    NotUtf8(usize),
}

/// The next line of `input`, read into `buf` (at most [`MAX_LINE_BYTES`] of it); `None` at
/// the end of the input. A line over the cap is skipped to its end when `skip` (a row),
/// else left at the cap (the header: the run stops there).
fn next_line(
    input: &mut impl BufRead,
    buf: &mut Vec<u8>,
    skip: bool,
) -> std::io::Result<Option<Line>> {
    buf.clear();
    let mut too_long = false;
    let mut any = false;
    loop {
        let available = match input.fill_buf() {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if available.is_empty() {
            break;
        }
        any = true;
        let end = available.iter().position(|&b| b == b'\n');
        let chunk = &available[..end.unwrap_or(available.len())];
        if !too_long {
            if buf.len() + chunk.len() > MAX_LINE_BYTES {
                too_long = true;
                buf.clear();
                if !skip {
                    break;
                }
            } else {
                buf.extend_from_slice(chunk);
            }
        }
        let used = end.map_or(available.len(), |i| i + 1);
        input.consume(used);
        if end.is_some() {
            break;
        }
    }
    if !any {
        return Ok(None);
    }
    if too_long {
        return Ok(Some(Line::TooLong));
    }
    if buf.last() == Some(&b'\r') {
        buf.pop();
    }
    Ok(Some(Line::Bytes))
}

/// The text of a line [`next_line`] read into `buf`, or [`Line::NotUtf8`].
fn text(buf: &[u8]) -> Result<&str, Line> {
    std::str::from_utf8(buf).map_err(|e| Line::NotUtf8(e.valid_up_to()))
}

/// Runs `batch` from `input` to `output`, streaming: memory stays within a few lines
/// whatever the input. Returns the number of rows with an error.
///
/// # Errors
///
/// An empty input, a header that is not UTF-8, over [`MAX_LINE_BYTES`] or without the
/// required columns, or an I/O error. A row that is not UTF-8 or too long is a row error
/// with its line number, and the rows after it are answered.
pub fn run(mut input: impl BufRead, mut output: impl Write) -> Result<usize, String> {
    let io = |e: std::io::Error| format!("batch: {e}");
    let mut buf = Vec::new();
    let mut number = 0usize;
    let header = loop {
        number += 1;
        match next_line(&mut input, &mut buf, false).map_err(io)? {
            None => return Err("batch: empty input (expected a TSV header line)".into()),
            Some(Line::TooLong) => {
                return Err(format!(
                    "batch: line {number}: the header is longer than {MAX_LINE_BYTES} bytes"
                ));
            }
            Some(Line::NotUtf8(at)) => {
                return Err(format!(
                    "batch: line {number}: the header is not UTF-8 (byte {at})"
                ));
            }
            Some(Line::Bytes) => match text(&buf) {
                // A UTF-8 byte-order mark (spreadsheets write one) is not part of a name.
                Ok(line) if !line.trim().is_empty() && !line.starts_with('#') => {
                    break line.strip_prefix('\u{feff}').unwrap_or(line).to_owned();
                }
                Ok(_) => {}
                Err(_) => {
                    let at = std::str::from_utf8(&buf).map_or_else(|e| e.valid_up_to(), |_| 0);
                    return Err(format!(
                        "batch: line {number}: the header is not UTF-8 (byte {at})"
                    ));
                }
            },
        }
    };
    let layout = Layout::new(&header)?;
    // As given (only a `\r` line end dropped), so that its columns line up with the rows'
    // (a trailing tab is an empty column).
    writeln!(output, "{header}\t{}", output_columns(&header).join("\t")).map_err(io)?;
    let mut cache = Cache::default();
    let mut errors = 0;
    let empty_row = vec![""; layout.width].join("\t");
    // The column (of [`COLUMNS`]) at each position of the header.
    let mut column_at: Vec<Option<usize>> = vec![None; layout.width];
    for (column, position) in layout.index.iter().enumerate() {
        if let Some(p) = position {
            column_at[*p] = Some(column);
        }
    }
    let mut out = Vec::with_capacity(256);
    while let Some(line) = next_line(&mut input, &mut buf, true).map_err(io)? {
        number += 1;
        out.clear();
        let line = match line {
            Line::Bytes => text(&buf),
            other => Err(other),
        };
        let text = match line {
            Ok(text) => text,
            Err(line) => {
                errors += 1;
                let why = match line {
                    Line::NotUtf8(at) => format!("not UTF-8 (byte {at})"),
                    _ => format!("longer than {MAX_LINE_BYTES} bytes"),
                };
                writeln!(output, "{empty_row}\terror\t\t\t\tline {number}: {why}").map_err(io)?;
                continue;
            }
        };
        if blank(text) || text.starts_with('#') {
            continue;
        }
        // One pass over the cells: the engine's columns picked out, the fields counted.
        let mut cells: [Option<&str>; 9] = [None; 9];
        let mut fields = 0;
        for (position, cell) in text.split('\t').enumerate() {
            fields = position + 1;
            if let Some(Some(column)) = column_at.get(position) {
                cells[*column] = Some(cell);
            }
        }
        // The input columns as the header has them, so that ours always line up: the line
        // itself when it has the header's fields (almost always), else padded or cut.
        if fields == layout.width {
            out.extend_from_slice(text.as_bytes());
        } else {
            let mut echoed: Vec<&str> = text.split('\t').take(layout.width).collect();
            echoed.resize(layout.width, "");
            out.extend_from_slice(echoed.join("\t").as_bytes());
        }
        let result = if fields == layout.width {
            evaluate(&cells, &mut cache)
        } else {
            Err(format!(
                "the row has {fields} fields, the header {}",
                layout.width
            ))
        };
        match result {
            Ok(occ) => {
                out.push(b'\t');
                push_u32(&mut out, occ.blocks_per_sm);
                out.push(b'\t');
                push_u32(&mut out, occ.active_warps_per_sm());
                out.push(b'\t');
                cache.push_fraction(&occ, &mut out);
                out.push(b'\t');
                out.extend_from_slice(cache.limiters(&occ).as_bytes());
                out.extend_from_slice(b"\t\n");
            }
            Err(message) => {
                errors += 1;
                let message = message.replace(['\t', '\n', '\r'], " ");
                out.extend_from_slice(b"\terror\t\t\t\t");
                out.extend_from_slice(message.as_bytes());
                out.push(b'\n');
            }
        }
        output.write_all(&out).map_err(io)?;
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

    /// fuzz and field report: one line of bad bytes aborted the run without a line number
    /// and lost the rows after it.
    #[test]
    fn bad_bytes_and_long_lines_are_row_errors_with_their_line_number() {
        let mut input = b"arch\tblock_size\tregisters_per_thread\nsm_90\t256\t32\n".to_vec();
        input.extend_from_slice(b"sm_90\t25\xff6\t32\n");
        input.extend_from_slice(&vec![b'x'; MAX_LINE_BYTES + 1]);
        input.extend_from_slice(b"\nsm_80\t128\t64\r\n");
        let mut out = Vec::new();
        assert_eq!(run(&input[..], &mut out), Ok(2));
        let out = String::from_utf8(out).unwrap();
        let rows: Vec<&str> = out.lines().collect();
        assert_eq!(rows.len(), 5, "{out}");
        assert_eq!(rows[1], "sm_90\t256\t32\t8\t64\t1.0000\twarps,registers\t");
        assert_eq!(rows[2], "\t\t\terror\t\t\t\tline 3: not UTF-8 (byte 8)");
        assert_eq!(
            rows[3],
            "\t\t\terror\t\t\t\tline 4: longer than 65536 bytes"
        );
        assert_eq!(rows[4], "sm_80\t128\t64\t8\t32\t0.5000\tregisters\t");
        // A header of NUL bytes without an end (`batch < /dev/zero`) stops at the cap.
        let zeros = std::io::BufReader::new(std::io::repeat(0));
        assert_eq!(
            run(zeros, std::io::sink()),
            Err("batch: line 1: the header is longer than 65536 bytes".into())
        );
        assert_eq!(
            run(&b"\xffarch\n"[..], std::io::sink()),
            Err("batch: line 1: the header is not UTF-8 (byte 0)".into())
        );
    }

    #[test]
    fn a_byte_order_mark_is_skipped_and_a_comma_header_is_named() {
        let mut out = Vec::new();
        let input = "\u{feff}arch\tblock_size\tregisters_per_thread\nsm_90\t256\t32\n";
        assert_eq!(run(input.as_bytes(), &mut out), Ok(0));
        let out = String::from_utf8(out).unwrap();
        assert!(out.starts_with("arch\tblock_size"), "{out:?}");
        assert!(
            out.lines()
                .nth(1)
                .unwrap()
                .ends_with("\t1.0000\twarps,registers\t")
        );
        assert_eq!(
            run(
                &b"arch,block_size,registers_per_thread\n"[..],
                std::io::sink()
            ),
            Err(
                "batch: the header lacks the required column(s) arch, block_size, \
                 registers_per_thread (the header has commas and no tab: batch reads \
                 tab-separated values; convert a CSV with `tr ',' '\\t'`)"
                    .into()
            )
        );
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

    /// The fast paths give what `str::trim` gives, Unicode whitespace included.
    #[test]
    fn trimmed_and_blank_agree_with_trim() {
        for text in [
            "",
            " ",
            "\t",
            "12",
            " 12",
            "12 ",
            " 12 ",
            "\u{a0}12",
            "12\u{2003}",
            "\u{a0}",
            "a b",
            "\u{3000}\u{3000}",
            "é",
            " é ",
        ] {
            assert_eq!(trimmed(text), text.trim(), "{text:?}");
            assert_eq!(blank(text), text.trim().is_empty(), "{text:?}");
        }
    }

    #[test]
    fn missing_required_columns_is_an_error() {
        let err = run("arch\tblock_size\n".as_bytes(), Vec::new()).unwrap_err();
        assert!(err.contains("registers_per_thread"), "{err}");
    }
}
