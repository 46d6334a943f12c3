//! What cargo notices of a crate's `occupancy.toml` (and resource manifest), built with plain
//! `cargo build` as a user builds: an edit and a deletion take effect on the next build, with
//! or without a build script, and the build after it is fresh. A file created where the last
//! build found none is not noticed until the crate recompiles for another reason: cargo on
//! stable has no way to watch for a new file without rerunning every build (measured in
//! docs/PERFORMANCE.md, "What cargo notices"), so the README says to touch a source file.
//! These tests hold the README to that.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

/// Scratch crates share one target folder (outside them), so that each builds only itself.
fn target_dir() -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).join("policy-files-target")
}

/// A crate `name` under the target's tmp folder with one wrapper: 64-thread blocks, 66.67%
/// on sm_86 (16 blocks of 2 warps), below a 70% or 75% floor, above the default 50%. With
/// `build_script`, a build.rs that calls the build helper on an empty `kernels/` folder
/// (no compiler needed).
fn scratch(name: &str, build_script: bool) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("src")).unwrap();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut toml = format!(
        "[package]\nname = \"{name}\"\nversion = \"0.0.0\"\nedition = \"2024\"\n\n\
         [dependencies]\noccupancy = {{ path = {:?} }}\n",
        root.display().to_string()
    );
    if build_script {
        toml.push_str(&format!(
            "\n[build-dependencies]\noccupancy-core = {{ path = {:?}, features = [\"build\"] }}\n",
            root.join("occupancy-core").display().to_string()
        ));
        std::fs::create_dir_all(dir.join("kernels")).unwrap();
        std::fs::write(
            dir.join("build.rs"),
            "fn main() {\n    occupancy_core::build::Kernels::new(\"kernels\")\n        \
             .targets([\"sm_80\", \"sm_86\"])\n        .compile();\n}\n",
        )
        .unwrap();
    }
    toml.push_str("\n[workspace]\n");
    std::fs::write(dir.join("Cargo.toml"), toml).unwrap();
    std::fs::write(
        dir.join("src/lib.rs"),
        "#[occupancy::check(block = 64, regs = 32, target = [\"sm_80\", \"sm_86\"])]\n\
         pub fn launch() {}\n",
    )
    .unwrap();
    dir
}

/// `cargo build -v` of the crate in `dir`: its stderr (the build must succeed).
fn build(dir: &Path) -> String {
    let output = Command::new(env!("CARGO"))
        .args(["build", "-v", "--manifest-path"])
        .arg(dir.join("Cargo.toml"))
        .env("CARGO_TARGET_DIR", target_dir())
        .env("CARGO_TERM_COLOR", "never")
        .env_remove("RUSTFLAGS")
        .env_remove("CARGO_ENCODED_RUSTFLAGS")
        .env_remove("OCCUPANCY_POLICY")
        .env_remove("OCCUPANCY_MANIFEST")
        .output()
        .expect("run cargo");
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(output.status.success(), "{stderr}");
    stderr
}

/// The floor in the `low_occupancy` warning on sm_86 (`Some(75)`), or `None` without one.
fn floor(stderr: &str) -> Option<u32> {
    let head = "launch on sm_86: 66.67% occupancy (32 of 48 warps), below the ";
    let at = stderr.find(head)? + head.len();
    stderr[at..].split('%').next()?.parse().ok()
}

/// Whether the build compiled nothing of the crate (and ran no build script).
fn fresh(stderr: &str, name: &str) -> bool {
    stderr.contains(&format!("Fresh {name}"))
        && !stderr.contains(&format!("Compiling {name}"))
        && !stderr.contains("build-script-build`")
}

/// Writes `text` to `path` with a modification time later than any build so far (the
/// file systems cargo runs on may keep whole seconds).
fn write_later(path: &Path, text: &str) {
    std::thread::sleep(Duration::from_millis(1100));
    std::fs::write(path, text).unwrap();
}

/// The sequence a user goes through, on one crate.
fn create_edit_delete(name: &str, build_script: bool) {
    let dir = scratch(name, build_script);
    let policy = dir.join("occupancy.toml");

    // A policy from the first build on: its floor, and a fresh second build.
    std::fs::write(&policy, "min_occupancy = \"75%\"\n").unwrap();
    assert_eq!(floor(&build(&dir)), Some(75));
    let again = build(&dir);
    assert!(fresh(&again, name), "{again}");
    assert_eq!(floor(&again), Some(75), "the replayed warning");

    // Edited: the next build has the new floor; the one after is fresh.
    write_later(&policy, "min_occupancy = \"70%\"\n");
    assert_eq!(floor(&build(&dir)), Some(70));
    assert!(fresh(&build(&dir), name));

    // Deleted: the defaults (50%: no low_occupancy); then fresh.
    std::fs::remove_file(&policy).unwrap();
    let stderr = build(&dir);
    assert!(
        stderr.contains("the file `occupancy.toml` is missing"),
        "{stderr}"
    );
    assert_eq!(floor(&stderr), None, "{stderr}");
    assert!(fresh(&build(&dir), name));

    // Created where the last build had none: cargo does not notice (the README says so);
    // touching a source file makes the next build read it.
    write_later(&policy, "min_occupancy = \"75%\"\n");
    let stale = build(&dir);
    assert!(fresh(&stale, name), "{stale}");
    assert_eq!(floor(&stale), None);
    write_later(
        &dir.join("src/lib.rs"),
        &std::fs::read_to_string(dir.join("src/lib.rs")).unwrap(),
    );
    assert_eq!(floor(&build(&dir)), Some(75));
    assert!(fresh(&build(&dir), name));
}

#[test]
fn policy_without_a_build_script() {
    create_edit_delete("policy-files-plain", false);
}

#[test]
fn policy_with_the_build_helper() {
    create_edit_delete("policy-files-helper", true);
}
