//! Collecting errors so that all are reported at once (serde's `Ctxt`, simplified), with
//! repeated errors of one kind capped: a list of 10,000 unknown targets, or a policy file
//! with 10,000 bad keys, is the first [`MAX_PER_KIND`] errors and a count, not 3 MB of
//! output for one wrapper.

use std::collections::HashMap;

use syn::Error;

/// How many errors of one kind are reported; the rest are counted.
pub(crate) const MAX_PER_KIND: usize = 5;

/// Errors found so far.
#[derive(Default)]
pub(crate) struct Errors {
    combined: Option<Error>,
    /// Per kind: errors seen, and the last one reported (for the count's span).
    kinds: HashMap<String, (usize, Error)>,
}

impl Errors {
    /// Adds one (or several combined) errors.
    pub(crate) fn push(&mut self, error: Error) {
        for error in error {
            let (seen, last) = self
                .kinds
                .entry(kind(&error.to_string()))
                .or_insert_with(|| (0, error.clone()));
            *seen += 1;
            if *seen > MAX_PER_KIND {
                continue;
            }
            *last = error.clone();
            match &mut self.combined {
                Some(combined) => combined.combine(error),
                None => self.combined = Some(error),
            }
        }
    }

    /// `Ok(value)` if nothing was pushed, else every error combined (after each kind's
    /// first [`MAX_PER_KIND`], one error with the count of the rest).
    pub(crate) fn finish<T>(self, value: T) -> Result<T, Error> {
        let Some(mut combined) = self.combined else {
            return Ok(value);
        };
        let mut capped: Vec<(usize, Error)> = self
            .kinds
            .into_values()
            .filter(|(seen, _)| *seen > MAX_PER_KIND)
            .collect();
        capped.sort_by_key(|(seen, _)| std::cmp::Reverse(*seen));
        for (seen, last) in capped {
            combined.combine(Error::new(
                last.span(),
                format!(
                    "... and {} more errors of this kind (the first {MAX_PER_KIND} are shown): {last}",
                    seen - MAX_PER_KIND
                ),
            ));
        }
        Err(combined)
    }
}

/// The kind of an error message: its first clause (up to a `;`: the suggestions after it
/// differ) with its quoted parts (`` `sm_999` ``, `"x"`) and numbers blanked, so that
/// "unknown target `a`; did you mean .." and "unknown target `b`; known: ..", or the same
/// problem on lines 3 and 4 of a file, are one kind.
fn kind(message: &str) -> String {
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
    use proc_macro2::Span;

    #[test]
    fn repeated_errors_of_one_kind_are_capped_with_a_count() {
        let mut errors = Errors::default();
        for i in 0..10_000 {
            errors.push(Error::new(
                Span::call_site(),
                format!("unknown target `sm_{i}`; known: sm_50 .. sm_121"),
            ));
        }
        errors.push(Error::new(Span::call_site(), "duplicate key `regs`"));
        errors.push(Error::new(Span::call_site(), "policy.toml:3:1: bad"));
        errors.push(Error::new(Span::call_site(), "policy.toml:4:1: bad"));
        let messages: Vec<String> = errors
            .finish(())
            .unwrap_err()
            .into_iter()
            .map(|e| e.to_string())
            .collect();
        assert_eq!(
            messages,
            [
                "unknown target `sm_0`; known: sm_50 .. sm_121",
                "unknown target `sm_1`; known: sm_50 .. sm_121",
                "unknown target `sm_2`; known: sm_50 .. sm_121",
                "unknown target `sm_3`; known: sm_50 .. sm_121",
                "unknown target `sm_4`; known: sm_50 .. sm_121",
                "duplicate key `regs`",
                "policy.toml:3:1: bad",
                "policy.toml:4:1: bad",
                "... and 9995 more errors of this kind (the first 5 are shown): unknown target `sm_4`; known: sm_50 .. sm_121",
            ]
        );
    }
}
