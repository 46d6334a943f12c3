//! The attribute's diagnostics, as `trybuild` snapshots (the `.stderr` files are the
//! specification: review them like code).
//!
//! - `ui/pass`: compile with `#![deny(warnings)]`: no warning.
//! - `ui/warn`: warnings, made errors by `#![deny(deprecated)]` so that their text is
//!   snapshotted.
//! - `ui/fail`: errors.
//! - `ui/policy/*`: the same, with `OCCUPANCY_POLICY` naming a policy file.
//! - `ui/kernel/*`: resources from a resource manifest, with `OCCUPANCY_MANIFEST` naming
//!   `ui/fixtures/probe.manifest.json` (as the build helper does for a crate).
//!
//! `cubin = "..."` / `fatbin = "..."` paths are relative to the crate being compiled, which
//! for trybuild is `target/tests/trybuild/occupancy`: the cases reach `tests/ui/fixtures`
//! through `../../../../` (the default target directory).
//!
//! Every group runs under one lock, since the policy and the manifest are given through
//! the environment.

use std::path::Path;
use std::sync::Mutex;

static ENV: Mutex<()> = Mutex::new(());

fn with_policy(policy: Option<&str>, cases: impl FnOnce(&trybuild::TestCases)) {
    with_env(policy, None, cases);
}

fn with_env(
    policy: Option<&str>,
    manifest: Option<&str>,
    cases: impl FnOnce(&trybuild::TestCases),
) {
    let _guard = ENV.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    // SAFETY: every test of this binary that reads or writes the environment holds `ENV`.
    unsafe {
        for (var, file) in [
            ("OCCUPANCY_POLICY", policy),
            ("OCCUPANCY_MANIFEST", manifest),
        ] {
            match file {
                Some(file) => std::env::set_var(var, root.join(file)),
                None => std::env::remove_var(var),
            }
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

#[test]
fn ui_kernel_manifest() {
    with_env(None, Some("tests/ui/fixtures/probe.manifest.json"), |t| {
        t.pass("tests/ui/kernel/pass/*.rs");
        t.compile_fail("tests/ui/kernel/warn/*.rs");
        t.compile_fail("tests/ui/kernel/fail/*.rs");
    });
}

/// The policy names the committed manifest and the kernel class.
#[test]
fn ui_policy_manifest() {
    with_policy(Some("tests/ui/policy/manifest.toml"), |t| {
        t.compile_fail("tests/ui/policy/manifest/*.rs");
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
