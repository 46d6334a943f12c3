//! Collecting errors so that all are reported at once (serde's `Ctxt`, simplified).

use syn::Error;

/// Errors found so far.
#[derive(Default)]
pub(crate) struct Errors {
    combined: Option<Error>,
}

impl Errors {
    /// Adds one (or several combined) errors.
    pub(crate) fn push(&mut self, error: Error) {
        match &mut self.combined {
            Some(combined) => combined.combine(error),
            None => self.combined = Some(error),
        }
    }

    /// `Ok(value)` if nothing was pushed, else every error combined.
    pub(crate) fn finish<T>(self, value: T) -> Result<T, Error> {
        match self.combined {
            Some(e) => Err(e),
            None => Ok(value),
        }
    }
}
