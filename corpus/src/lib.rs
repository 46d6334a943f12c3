//! Empty: this package only names the corpus for `cargo fetch`.
