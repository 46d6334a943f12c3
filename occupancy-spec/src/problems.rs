//! Problems reported all at once, with repeated problems of one kind capped: a list of
//! 10,000 unknown targets, or a policy file with 10,000 bad keys, is the first
//! [`MAX_PER_KIND`] problems and a count, not 3 MB of output for one wrapper. The Rust front
//! end collects its `syn` errors with it; [`crate::load_policy`] its policy problems.

use std::collections::HashMap;
use std::fmt::Display;

use proc_macro2::Span;

/// How many problems of one kind are reported; the rest are counted.
pub const MAX_PER_KIND: usize = 5;

/// A problem found below the front ends, on the token it concerns (an attribute's string,
/// its key): the front end turns it into its own error there.
#[derive(Clone, Debug)]
pub struct Problem {
    /// Where to report it.
    pub span: Span,
    /// What is wrong, in one line.
    pub message: String,
}

impl Problem {
    /// `message` on `span`.
    pub fn new(span: Span, message: impl Into<String>) -> Problem {
        Problem {
            span,
            message: message.into(),
        }
    }
}

/// Problems found so far, each kind (see [`kind`]) capped at [`MAX_PER_KIND`].
pub struct Capped<T> {
    shown: Vec<T>,
    /// Per kind, in the order first seen: problems seen, and the last one shown.
    kinds: Vec<(usize, T)>,
    index: HashMap<String, usize>,
}

impl<T> Default for Capped<T> {
    fn default() -> Self {
        Capped {
            shown: Vec::new(),
            kinds: Vec::new(),
            index: HashMap::new(),
        }
    }
}

impl<T: Clone + Display> Capped<T> {
    /// Adds one problem: shown if fewer than [`MAX_PER_KIND`] of its kind were, else
    /// counted.
    pub fn push(&mut self, problem: T) {
        let kind = kind(&problem.to_string());
        let at = match self.index.get(&kind) {
            Some(&at) => at,
            None => {
                self.index.insert(kind, self.kinds.len());
                self.kinds.push((0, problem.clone()));
                self.kinds.len() - 1
            }
        };
        let (seen, last) = &mut self.kinds[at];
        *seen += 1;
        if *seen <= MAX_PER_KIND {
            *last = problem.clone();
            self.shown.push(problem);
        }
    }

    /// The problems shown, in the order pushed; then, for each kind with more than
    /// [`MAX_PER_KIND`], how many were left out and the last one shown, the kinds with the
    /// most first (in the order first seen among equals).
    pub fn finish(self) -> (Vec<T>, Vec<(usize, T)>) {
        let mut capped: Vec<(usize, T)> = self
            .kinds
            .into_iter()
            .filter(|(seen, _)| *seen > MAX_PER_KIND)
            .map(|(seen, last)| (seen - MAX_PER_KIND, last))
            .collect();
        capped.sort_by_key(|(left_out, _)| std::cmp::Reverse(*left_out));
        (self.shown, capped)
    }
}

/// The line that stands for the problems of a kind left out: `... and 9995 more errors of
/// this kind (the first 5 are shown): unknown target ...`.
pub fn left_out(count: usize, last: &impl Display) -> String {
    format!("... and {count} more errors of this kind (the first {MAX_PER_KIND} are shown): {last}")
}

/// The kind of a problem's message: its first clause (up to a `;`: the suggestions after it
/// differ) with its quoted parts (`` `sm_999` ``, `"x"`) and numbers blanked, so that
/// "unknown target `a`; did you mean .." and "unknown target `b`; known: ..", or the same
/// problem on lines 3 and 4 of a file, are one kind.
pub fn kind(message: &str) -> String {
    let mut out = String::with_capacity(message.len());
    let mut quote = None;
    for c in message.chars() {
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => {}
            None if c == '`' || c == '"' => {
                quote = Some(c);
                out.push('_');
            }
            None if c == ';' => break,
            None if c.is_ascii_digit() => {
                if !out.ends_with('0') {
                    out.push('0');
                }
            }
            None => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_past_the_cap_are_counted_most_first() {
        let mut capped = Capped::default();
        for i in 0..7 {
            capped.push(format!("policy.toml:{i}:1: unknown key `k{i}`"));
        }
        capped.push("duplicate key `regs`".to_owned());
        for i in 0..9 {
            capped.push(format!("unknown target `sm_{i}`; known: sm_50 .. sm_121"));
        }
        let (shown, left) = capped.finish();
        assert_eq!(shown.len(), 11);
        assert_eq!(shown[5], "duplicate key `regs`");
        assert_eq!(
            left,
            [
                (
                    4,
                    "unknown target `sm_4`; known: sm_50 .. sm_121".to_owned()
                ),
                (2, "policy.toml:4:1: unknown key `k4`".to_owned()),
            ]
        );
        assert_eq!(
            left_out(2, &left[1].1),
            "... and 2 more errors of this kind (the first 5 are shown): policy.toml:4:1: \
             unknown key `k4`"
        );
    }
}
