//! The attribute's diagnostics, as `trybuild` snapshots (the `.stderr` files are the
//! specification: review them like code).
//!
//! - `ui/pass`: compile with `#![deny(warnings)]`: no warning.
//! - `ui/warn`: warnings, made errors by `#![deny(deprecated)]` so that their text is
//!   snapshotted.
//! - `ui/fail`: errors.
//! - `ui/policy/*`: the same, with `OCCUPANCY_POLICY` naming a policy file.
//!
//! Every group runs under one lock, since the policy is given through the environment.

use std::path::Path;
use std::sync::Mutex;

static ENV: Mutex<()> = Mutex::new(());

fn with_policy(policy: Option<&str>, cases: impl FnOnce(&trybuild::TestCases)) {
    let _guard = ENV.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    // SAFETY: every test of this binary that reads or writes the environment holds `ENV`.
    unsafe {
        match policy {
            Some(file) => std::env::set_var("OCCUPANCY_POLICY", root.join(file)),
            None => std::env::remove_var("OCCUPANCY_POLICY"),
        }
    }
    let t = trybuild::TestCases::new();
    cases(&t);
    drop(t); // runs the cases
}

#[test]
fn ui() {
    with_policy(None, |t| {
        t.pass("tests/ui/pass/*.rs");
        t.compile_fail("tests/ui/warn/*.rs");
        t.compile_fail("tests/ui/fail/*.rs");
    });
}

#[test]
fn ui_policy_strict() {
    with_policy(Some("tests/ui/policy/strict.toml"), |t| {
        t.pass("tests/ui/policy/strict-pass/*.rs");
        t.compile_fail("tests/ui/policy/strict/*.rs");
    });
}

/// One malformed policy file per run: `malformed/<name>.rs` with `<name>.toml`.
#[test]
fn ui_policy_malformed() {
    for name in [
        "syntax",
        "unknown_keys",
        "bad_values",
        "wrong_type",
        "missing",
    ] {
        with_policy(Some(&format!("tests/ui/policy/{name}.toml")), |t| {
            t.compile_fail(format!("tests/ui/policy/malformed/{name}.rs"));
        });
    }
}
