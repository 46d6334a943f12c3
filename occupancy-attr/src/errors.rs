//! Collecting errors so that all are reported at once (serde's `Ctxt`, simplified), with
//! repeated errors of one kind capped ([`occupancy_spec::problems`]): a list of 10,000
//! unknown targets, or a policy file with 10,000 bad keys, is the first
//! [`occupancy_spec::problems::MAX_PER_KIND`] errors and a count, not 3 MB of output for one
//! wrapper.

use occupancy_spec::problems::{Capped, left_out};
use syn::Error;

/// Errors found so far.
#[derive(Default)]
pub(crate) struct Errors {
    capped: Capped<Error>,
}

impl Errors {
    /// Adds one (or several combined) errors.
    pub(crate) fn push(&mut self, error: Error) {
        for error in error {
            self.capped.push(error);
        }
    }

    /// `Ok(value)` if nothing was pushed, else every error combined (after each kind's
    /// first [`occupancy_spec::problems::MAX_PER_KIND`], one error with the count of the
    /// rest).
    pub(crate) fn finish<T>(self, value: T) -> Result<T, Error> {
        let (shown, capped) = self.capped.finish();
        let mut shown = shown.into_iter();
        let Some(mut combined) = shown.next() else {
            return Ok(value);
        };
        for error in shown {
            combined.combine(error);
        }
        for (count, last) in capped {
            combined.combine(Error::new(last.span(), left_out(count, &last)));
        }
        Err(combined)
    }
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
