//! The report's text table: for each launch a line saying where it is and what it launches,
//! then one row per target with the launch's block and dynamic shared memory, the
//! occupancy, the limiter and the findings on that target.
//!
//! ```text
//! location  wrapper -> kernel
//!   target  block     smem  occupancy             limiter          findings
//! examples/conv2d.rs:100  launch_conv2d_20x20 -> conv2d
//!   sm_75   (20, 20)  0 B   81.25% (26/32 warps)  warps,registers  partial_warp (warn)
//! ```
//!
//! Laid out for a [`WIDTH`]-column terminal: the columns are as wide as their widest cell;
//! findings that would pass the width continue on lines of their own under the findings
//! column (or, when the columns before it leave too little room, on indented lines under
//! the row); errors and notes wrap at spaces with a hanging indent. What produces the rows
//! (a checked wrapper, or another kind of launch site) is the caller's: [`Launch`] holds
//! only text.

use std::fmt::Write as _;

/// The width the table is laid out for, in columns.
pub(crate) const WIDTH: usize = 100;

/// The fewest columns the findings get beside the row; with less room they go under it.
const MIN_FINDINGS_COLUMNS: usize = 20;

/// One launch site of the table.
pub(crate) struct Launch {
    /// Where: `src/lib.rs:42`, relative to the crate.
    pub(crate) location: String,
    /// What launches: the wrapper, with the launch's label when it has several
    /// (`launch_softmax (block = 32)`).
    pub(crate) subject: String,
    /// The kernel, when known.
    pub(crate) kernel: Option<String>,
    /// After the kernel on the launch's line: `[not annotated]`.
    pub(crate) tag: Option<String>,
    /// One per target.
    pub(crate) rows: Vec<Row>,
    /// Errors (shown with `--findings-only` too), each one line of text before wrapping.
    pub(crate) errors: Vec<String>,
    /// Notes (left out with `--findings-only` unless the launch is shown), each one line of
    /// text before wrapping.
    pub(crate) notes: Vec<String>,
}

/// One target of a [`Launch`].
pub(crate) struct Row {
    /// `sm_80`, `H200`.
    pub(crate) target: String,
    /// `256`, `(16, 16)`.
    pub(crate) block: String,
    /// The launch's dynamic shared memory per block: `0 B`, `48 KiB`.
    pub(crate) smem: String,
    /// `81.25% (26/32 warps)`, `0% (cannot launch)`.
    pub(crate) occupancy: String,
    /// `warps,registers`.
    pub(crate) limiter: String,
    /// The reported findings on this target: `low_occupancy (warn)`; empty: none.
    pub(crate) findings: Vec<String>,
}

const HEADER: [&str; 6] = [
    "target",
    "block",
    "smem",
    "occupancy",
    "limiter",
    "findings",
];

impl Row {
    fn cells(&self) -> [&str; 5] {
        [
            &self.target,
            &self.block,
            &self.smem,
            &self.occupancy,
            &self.limiter,
        ]
    }
}

/// The table's text. `findings_only`: only the rows with a finding, and the launches with
/// such a row or an error.
pub(crate) fn render(launches: &[Launch], findings_only: bool) -> String {
    let shown: Vec<(&Launch, Vec<&Row>)> = launches
        .iter()
        .map(|l| {
            let rows: Vec<&Row> = l
                .rows
                .iter()
                .filter(|r| !findings_only || !r.findings.is_empty())
                .collect();
            (l, rows)
        })
        .filter(|(l, rows)| !findings_only || !rows.is_empty() || !l.errors.is_empty())
        .collect();
    // Column widths over the rows shown (the header's names at least).
    let mut widths = [0usize; 5];
    for (w, name) in widths.iter_mut().zip(HEADER) {
        *w = name.len();
    }
    for (_, rows) in &shown {
        for row in rows {
            for (w, cell) in widths.iter_mut().zip(row.cells()) {
                *w = (*w).max(cell.chars().count());
            }
        }
    }
    // Where the findings column starts: the indent, then each column and two spaces.
    let findings_at = 2 + widths.iter().map(|w| w + 2).sum::<usize>();
    let beside = findings_at + MIN_FINDINGS_COLUMNS <= WIDTH;

    let mut s = String::new();
    s.push_str("location  wrapper -> kernel\n");
    let header = HEADER.map(str::to_owned);
    push_row(&mut s, &widths, &header[..5], &[header[5].clone()], beside);
    for (launch, rows) in shown {
        let _ = write!(s, "{}  {}", launch.location, launch.subject);
        if let Some(kernel) = &launch.kernel {
            let _ = write!(s, " -> {kernel}");
        }
        if let Some(tag) = &launch.tag {
            let _ = write!(s, "  {tag}");
        }
        s.push('\n');
        for row in rows {
            let findings = if row.findings.is_empty() {
                vec!["-".to_owned()]
            } else {
                row.findings.clone()
            };
            push_row(
                &mut s,
                &widths,
                &row.cells().map(str::to_owned),
                &findings,
                beside,
            );
        }
        for error in &launch.errors {
            wrap(&mut s, &format!("error: {error}"), 2, 4);
        }
        if !findings_only || !launch.errors.is_empty() {
            for note in &launch.notes {
                wrap(&mut s, note, 2, 4);
            }
        }
    }
    s
}

/// One row: the cells padded to their widths, then the findings joined by `, ` as far as
/// they fit, the rest on continuation lines under the findings column; or, when `beside`
/// is false or a finding is wider than the findings column, each line of findings under
/// the row, indented.
fn push_row(
    s: &mut String,
    widths: &[usize; 5],
    cells: &[String],
    findings: &[String],
    beside: bool,
) {
    let mut line = String::from("  ");
    for (cell, w) in cells.iter().zip(widths) {
        let _ = write!(line, "{cell:<w$}  ");
    }
    let at = line.chars().count();
    // A finding wider than the findings column puts this row's findings under it.
    let fits = findings.iter().all(|f| at + f.chars().count() < WIDTH);
    let (first_room, indent) = if beside && fits {
        (WIDTH - at, at)
    } else {
        (0, 6)
    };
    let mut lines = pack(findings, first_room, WIDTH - indent).into_iter();
    // The first line is the row's own (empty when nothing fits there).
    let first = lines.next().unwrap_or_default();
    line.push_str(&first);
    s.push_str(line.trim_end());
    s.push('\n');
    for rest in lines {
        let _ = writeln!(s, "{:indent$}{rest}", "");
    }
}

/// `items` joined by `, ` into lines: the first at most `first` columns (it may be left
/// empty when the first item does not fit there), the others at most `rest`; an item wider
/// than a line gets a line of its own.
fn pack(items: &[String], first: usize, rest: usize) -> Vec<String> {
    let mut lines: Vec<String> = vec![String::new()];
    let mut room = first;
    for (i, item) in items.iter().enumerate() {
        let last = lines.last_mut().expect("one line at least");
        let sep = if i + 1 < items.len() { "," } else { "" };
        let piece = format!("{item}{sep}");
        let needed = if last.is_empty() {
            piece.chars().count()
        } else {
            piece.chars().count() + 1
        };
        if needed <= room || (last.is_empty() && room == rest) {
            if !last.is_empty() {
                last.push(' ');
            }
            last.push_str(&piece);
            room = room.saturating_sub(needed);
        } else {
            lines.push(piece.clone());
            room = rest.saturating_sub(piece.chars().count());
        }
    }
    lines
}

/// `text` wrapped at spaces to [`WIDTH`]: the first line indented `first`, the others
/// `hanging`; a word longer than a line is left whole.
pub(crate) fn wrap(s: &mut String, text: &str, first: usize, hanging: usize) {
    let mut line = " ".repeat(first);
    let mut empty = true;
    for word in text.split(' ') {
        let len = line.chars().count();
        if !empty && len + 1 + word.chars().count() > WIDTH {
            s.push_str(line.trim_end());
            s.push('\n');
            line = " ".repeat(hanging);
            empty = true;
        }
        if !empty {
            line.push(' ');
        }
        line.push_str(word);
        empty = false;
    }
    s.push_str(line.trim_end());
    s.push('\n');
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(target: &str, findings: &[&str]) -> Row {
        Row {
            target: target.to_owned(),
            block: "(20, 20)".to_owned(),
            smem: "0 B".to_owned(),
            occupancy: "81.25% (26/32 warps)".to_owned(),
            limiter: "warps,registers".to_owned(),
            findings: findings.iter().map(|f| (*f).to_owned()).collect(),
        }
    }

    fn launch(rows: Vec<Row>) -> Launch {
        Launch {
            location: "examples/conv2d.rs:100".to_owned(),
            subject: "launch_conv2d_20x20".to_owned(),
            kernel: Some("conv2d".to_owned()),
            tag: None,
            rows,
            errors: Vec::new(),
            notes: Vec::new(),
        }
    }

    #[test]
    fn rows_fit_the_width_and_long_findings_continue_under_their_column() {
        let table = render(
            &[launch(vec![
                row("sm_75", &["partial_warp (warn)"]),
                row(
                    "GeForce RTX 5090",
                    &[
                        "partial_warp (warn)",
                        "low_occupancy (warn)",
                        "block_limit (warn)",
                    ],
                ),
                row("sm_80", &[]),
            ])],
            false,
        );
        let expected = "\
location  wrapper -> kernel
  target            block     smem  occupancy             limiter          findings
examples/conv2d.rs:100  launch_conv2d_20x20 -> conv2d
  sm_75             (20, 20)  0 B   81.25% (26/32 warps)  warps,registers  partial_warp (warn)
  GeForce RTX 5090  (20, 20)  0 B   81.25% (26/32 warps)  warps,registers  partial_warp (warn),
                                                                           low_occupancy (warn),
                                                                           block_limit (warn)
  sm_80             (20, 20)  0 B   81.25% (26/32 warps)  warps,registers  -
";
        assert_eq!(table, expected);
        assert!(table.lines().all(|l| l.chars().count() <= WIDTH), "{table}");
    }

    #[test]
    fn findings_only_keeps_the_rows_with_findings_and_the_errors() {
        let mut failed = launch(Vec::new());
        failed.subject = "launch_typo".to_owned();
        failed.kernel = None;
        failed.errors.push(format!(
            "src/lib.rs:13:20: {}",
            "a long message that goes on and on ".repeat(4).trim_end()
        ));
        let mut quiet = launch(vec![row("sm_80", &[])]);
        quiet.notes.push("^ conditional".to_owned());
        let table = render(
            &[
                launch(vec![
                    row("sm_75", &["partial_warp (warn)"]),
                    row("sm_80", &[]),
                ]),
                quiet,
                failed,
            ],
            true,
        );
        let expected = "\
location  wrapper -> kernel
  target  block     smem  occupancy             limiter          findings
examples/conv2d.rs:100  launch_conv2d_20x20 -> conv2d
  sm_75   (20, 20)  0 B   81.25% (26/32 warps)  warps,registers  partial_warp (warn)
examples/conv2d.rs:100  launch_typo
  error: src/lib.rs:13:20: a long message that goes on and on a long message that goes on and on a
    long message that goes on and on a long message that goes on and on
";
        assert_eq!(table, expected);
    }

    #[test]
    fn findings_go_under_the_row_when_the_columns_leave_too_little_room() {
        let mut wide = row("sm_80", &["low_occupancy (warn)", "register_step (warn)"]);
        wide.limiter = "warps,registers,shared_memory,blocks,barriers".to_owned();
        let table = render(&[launch(vec![wide])], false);
        let rows: Vec<&str> = table.lines().skip(4).collect();
        assert_eq!(
            rows,
            [
                "  sm_80   (20, 20)  0 B   81.25% (26/32 warps)  warps,registers,shared_memory,blocks,barriers",
                "      low_occupancy (warn), register_step (warn)",
            ]
        );
        assert!(table.lines().all(|l| l.chars().count() <= WIDTH), "{table}");
    }

    #[test]
    fn a_finding_wider_than_the_column_goes_under_its_row_only() {
        let mut narrow = row("sm_80", &["block_limit (warn)"]);
        narrow.limiter = "shared_memory,registers".to_owned();
        narrow.smem = "2097152 KiB".to_owned();
        let wide = row("sm_86", &["launch_impossible (deny)"]);
        let table = render(&[launch(vec![narrow, wide])], false);
        let rows: Vec<&str> = table.lines().skip(3).collect();
        assert_eq!(
            rows,
            [
                "  sm_80   (20, 20)  2097152 KiB  81.25% (26/32 warps)  shared_memory,registers  block_limit (warn)",
                "  sm_86   (20, 20)  0 B          81.25% (26/32 warps)  warps,registers",
                "      launch_impossible (deny)",
            ]
        );
        assert!(table.lines().all(|l| l.chars().count() <= WIDTH), "{table}");
    }
}
