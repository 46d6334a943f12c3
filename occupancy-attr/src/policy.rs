//! The crate's policy file, read by [`occupancy_spec::policy::load`], with its problems as
//! errors on the attribute.

pub(crate) use occupancy_spec::policy::Loaded;
use occupancy_spec::policy::{self, LoadError};
use proc_macro2::Span;
use syn::Error;

use crate::Env;
use crate::errors::Errors;

/// Reads the policy for the crate `env` describes.
///
/// # Errors
///
/// An unreadable file named by `OCCUPANCY_POLICY`, or any problem in the file (each with
/// the file, line, column and key), on `span` (the attribute), then one error saying how
/// many there are.
pub(crate) fn load(env: &Env, span: Span) -> Result<Loaded, Error> {
    match policy::load(env) {
        Ok(loaded) => Ok(loaded),
        Err(LoadError::Unreadable(message)) => Err(Error::new(span, message)),
        Err(LoadError::Invalid { problems, summary }) => {
            let mut errors = Errors::default();
            for problem in problems {
                errors.push(Error::new(span, problem));
            }
            let summary = Error::new(span, summary);
            match errors.finish(()) {
                Ok(()) => Err(summary),
                Err(mut all) => {
                    all.combine(summary);
                    Err(all)
                }
            }
        }
    }
}
