//! The `#[occupancy::check]` attribute (in progress).
