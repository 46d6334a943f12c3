//! Resource manifest (placeholder, filled in below).
