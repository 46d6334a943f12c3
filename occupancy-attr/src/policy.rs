//! The crate's policy file, read by [`occupancy_spec::policy::load`], with its problems as
//! one error on the attribute.

pub(crate) use occupancy_spec::policy::Loaded;
use occupancy_spec::policy::{self, Reader};
use proc_macro2::Span;
use syn::Error;

use crate::Env;

/// Reads the policy for the crate `env` describes.
///
/// # Errors
///
/// An unreadable file named by `OCCUPANCY_POLICY`, or the problems in the file (each with
/// the file, line, column and key, then a line saying how many there are): one error on
/// `span` (the attribute). Every wrapper of the crate reads the file, so each reports it
/// (a proc macro's output depends on its input alone); one error each, not one per problem.
pub(crate) fn load(env: &Env, span: Span) -> Result<Loaded, Error> {
    policy::load(env).map_err(|e| Error::new(span, e.message(Reader::Attribute)))
}
