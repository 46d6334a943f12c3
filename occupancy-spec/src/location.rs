//! Where a launch or one of its values is written: a token of Rust source, or a line of a
//! file the compiler never sees.

use proc_macro2::Span;

/// Where a launch, or one of its values, is written: what a diagnostic points at.
///
/// The Rust front end (the attribute, the wrapper's body) has tokens, and the proc macro
/// reports on their spans; the CUDA C++ reader has a `.cu` file and a line, which a proc
/// macro cannot point at but a build script's `cargo:warning` and `cargo occupancy report`
/// name.
#[derive(Clone, Debug)]
pub enum Location {
    /// A token of Rust source. Its line and column are the file's in a proc macro, or
    /// outside one with proc-macro2's `span-locations` feature.
    Span(Span),
    /// A line of a file read outside the compiler (CUDA C++ host code).
    File {
        /// The file as the reader names it: relative to the crate's directory,
        /// `/`-separated (`src/cuda/softmax.cu`).
        path: String,
        /// The 1-based line.
        line: u32,
        /// The 1-based column, when the reader records one; `None`: the whole line.
        column: Option<u32>,
    },
}

impl Location {
    /// The span to give the compiler: the token's, else [`Span::call_site`] (a proc macro
    /// has no span in a file of another language).
    pub fn span(&self) -> Span {
        match self {
            Location::Span(span) => *span,
            Location::File { .. } => Span::call_site(),
        }
    }

    /// A token's place, where its span starts and ends as `(line, column)` pairs (lines
    /// 1-based, columns 0-based: proc-macro2's `LineColumn`): two spans at one place are
    /// reported at one place. `None` for a line of a file.
    pub fn place(&self) -> Option<((usize, usize), (usize, usize))> {
        match self {
            Location::Span(span) => {
                let (start, end) = (span.start(), span.end());
                Some(((start.line, start.column), (end.line, end.column)))
            }
            Location::File { .. } => None,
        }
    }
}

impl From<Span> for Location {
    fn from(span: Span) -> Location {
        Location::Span(span)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_line_has_no_token_to_point_at() {
        let at = Location::File {
            path: "src/cuda/softmax.cu".to_owned(),
            line: 12,
            column: None,
        };
        assert_eq!(
            format!("{:?}", at.span()),
            format!("{:?}", Span::call_site())
        );
        assert!(matches!(
            at,
            Location::File { ref path, line: 12, column: None } if path == "src/cuda/softmax.cu"
        ));
        assert!(matches!(
            Location::from(Span::call_site()),
            Location::Span(_)
        ));
    }
}
