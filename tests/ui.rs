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
//! for trybuild is `$CARGO_TARGET_DIR/tests/trybuild/occupancy`, wherever the target
//! directory is; and the attribute reads only inside that crate (and its workspace and
//! `OUT_DIR`). So the fixtures and policies are copied into it (`fixtures/`, `policy/`)
//! before the cases run, and the cases name `fixtures/probe.sm_80.cubin`.
//!
//! Every group runs under one lock, since the policy and the manifest are given through
//! the environment.

use std::path::{Path, PathBuf};
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
    project_dir();
    // SAFETY: every test of this binary that reads or writes the environment holds `ENV`.
    unsafe {
        for (var, file) in [
            ("OCCUPANCY_POLICY", policy),
            ("OCCUPANCY_MANIFEST", manifest),
        ] {
            match file {
                // Relative to the crate being compiled: trybuild's, where the copies are.
                Some(file) => std::env::set_var(var, file),
                None => std::env::remove_var(var),
            }
        }
    }
    let t = trybuild::TestCases::new();
    cases(&t);
    drop(t); // runs the cases
}

/// trybuild's crate (`$CARGO_TARGET_DIR/tests/trybuild/occupancy`), with copies of
/// `tests/ui/fixtures` and `tests/ui/policy/*.toml` in `fixtures/` and `tests/ui/policy/`.
fn project_dir() -> PathBuf {
    // CARGO_TARGET_TMPDIR is `$CARGO_TARGET_DIR/tmp`; trybuild uses the same target folder.
    let target = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .parent()
        .expect("the target folder")
        .to_path_buf();
    let project = target.join("tests/trybuild/occupancy");
    let source = Path::new(env!("CARGO_MANIFEST_DIR"));
    for (from, to, only_toml) in [
        ("tests/ui/fixtures", "fixtures", false),
        ("tests/ui/policy", "tests/ui/policy", true),
    ] {
        let to = project.join(to);
        std::fs::create_dir_all(&to).unwrap();
        for entry in std::fs::read_dir(source.join(from)).unwrap() {
            let path = entry.unwrap().path();
            let is_toml = path.extension().is_some_and(|e| e == "toml");
            if path.is_file() && (is_toml || !only_toml) {
                std::fs::copy(&path, to.join(path.file_name().unwrap())).unwrap();
            }
        }
    }
    // A FIFO (opening it would block) and a link out of the crate, for ui/fail/hostile_paths.
    let fifo = project.join("fixtures/fifo.cubin");
    if !fifo.exists() {
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        assert!(made.unwrap().success());
    }
    let link = project.join("fixtures/outside.cubin");
    if std::fs::symlink_metadata(&link).is_err() {
        std::os::unix::fs::symlink("/etc/hostname", &link).unwrap();
    }
    project
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
    with_env(None, Some("fixtures/probe.manifest.json"), |t| {
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

/// The policy's `read_paths` allows /dev: /dev/zero is still refused (not a regular file).
#[test]
fn ui_policy_read_paths() {
    with_policy(Some("tests/ui/policy/read_dev.toml"), |t| {
        t.compile_fail("tests/ui/policy/read_dev/*.rs");
    });
}

/// `OCCUPANCY_POLICY` naming a device outside the crate.
#[test]
fn ui_policy_device() {
    with_policy(Some("/dev/zero"), |t| {
        t.compile_fail("tests/ui/policy/device/*.rs");
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
        "missing_manifest",
    ] {
        with_policy(Some(&format!("tests/ui/policy/{name}.toml")), |t| {
            t.compile_fail(format!("tests/ui/policy/malformed/{name}.rs"));
        });
    }
}
