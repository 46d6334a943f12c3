//! A user's crate (`tests/fixtures/user-crate`, outside the workspace) built with plain
//! cargo: the warnings show in `cargo build`, the policy file and `OCCUPANCY_POLICY` are
//! honoured and tracked (cargo rebuilds when they change), `-D warnings` escalates, a
//! passing wrapper compiles to the same code as without the attribute, and
//! `kernel = "..."` reads the committed `kernels.manifest.json` or the one
//! `OCCUPANCY_MANIFEST` names, both tracked.

use std::path::{Path, PathBuf};
use std::process::Command;

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/user-crate")
}

fn target_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("target/fixture-user-crate")
}

/// A folder for edited policy and manifest files inside the user's crate (git-ignored):
/// the attribute reads only inside the package, its workspace and `OUT_DIR`.
fn edits_dir() -> PathBuf {
    let dir = fixture().join("target/edits");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Runs `cargo <args[0]> --manifest-path <fixture> <args[1..]>`; returns whether it
/// succeeded and its stderr.
fn cargo(args: &[&str], policy: Option<&Path>) -> (bool, String) {
    cargo_with(args, policy, None)
}

/// [`cargo`] with `OCCUPANCY_MANIFEST` set to `manifest` (removed when `None`).
fn cargo_with(args: &[&str], policy: Option<&Path>, manifest: Option<&Path>) -> (bool, String) {
    let mut command = Command::new(env!("CARGO"));
    command
        .arg(args[0])
        .arg("--manifest-path")
        .arg(fixture().join("Cargo.toml"))
        .args(&args[1..])
        .env("CARGO_TARGET_DIR", target_dir())
        .env("CARGO_TERM_COLOR", "never")
        .env_remove("RUSTFLAGS")
        .env_remove("CARGO_ENCODED_RUSTFLAGS");
    match policy {
        Some(path) => command.env("OCCUPANCY_POLICY", path),
        None => command.env_remove("OCCUPANCY_POLICY"),
    };
    match manifest {
        Some(path) => command.env("OCCUPANCY_MANIFEST", path),
        None => command.env_remove("OCCUPANCY_MANIFEST"),
    };
    let output = command.output().expect("run cargo");
    (
        output.status.success(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

const SM90_WARNING: &str = "warning: use of deprecated macro `low_occupancy`: launch_sgemm on \
     sm_90: 25% occupancy (16 of 64 warps), below the 50% floor";

#[test]
fn warnings_policy_and_zero_cost() {
    // 1. Plain `cargo build`, the crate's own occupancy.toml: two warnings with numbers and
    //    fixes, at the `regs` key; the partial warp is allowed by the policy.
    let (ok, stderr) = cargo(&["build"], None);
    assert!(ok, "{stderr}");
    assert!(stderr.contains(SM90_WARNING), "{stderr}");
    assert!(
        stderr.contains(
            "warning: use of deprecated macro `low_occupancy`: launch_sgemm on sm_80: 25% \
             occupancy (16 of 64 warps), below the 50% floor"
        ),
        "{stderr}"
    );
    assert!(
        stderr.contains(
            "= note: limited by registers: 96 regs/thread -> 96 x 32 = 3072 per warp -> 16384 \
             per sub-partition / 3072 = 5 warps x 4 sub-partitions / 8 warps per block = 2 \
             blocks/SM"
        ),
        "{stderr}"
    );
    assert!(
        stderr.contains("= help: 64 regs/thread (e.g. __launch_bounds__(256, 4)) gives 50%"),
        "{stderr}"
    );
    assert!(stderr.contains("--> src/lib.rs:5:38"), "{stderr}");
    assert!(!stderr.contains("partial_warp"), "{stderr}");
    assert_eq!(stderr.matches("use of deprecated").count(), 2, "{stderr}");

    // 2. `-D warnings` (for this crate only) makes them errors.
    let (ok, stderr) = cargo(&["rustc", "--lib", "--", "-D", "warnings"], None);
    assert!(!ok, "{stderr}");
    assert!(
        stderr.contains("error: use of deprecated macro `low_occupancy`: launch_sgemm on sm_90"),
        "{stderr}"
    );

    // 3. OCCUPANCY_POLICY selects another file: low_occupancy denied, sm_90 only. Cargo must
    //    rebuild for the variable alone (the expansion reads it through `option_env!`).
    let strict = fixture().join("strict.toml");
    let (ok, stderr) = cargo(&["build"], Some(&strict));
    assert!(!ok, "{stderr}");
    assert!(
        stderr.contains(
            "error: low_occupancy: launch_sgemm on sm_90: 25% occupancy (16 of 64 warps), below \
             the 50% floor"
        ),
        "{stderr}"
    );
    assert!(!stderr.contains("sm_80"), "{stderr}");

    // 4. Editing the policy file rebuilds (the expansion `include_bytes!`s it).
    let work = edits_dir().join("policy-edit.toml");
    std::fs::create_dir_all(target_dir()).unwrap();
    std::fs::write(&work, "min_occupancy = 0.25\n").unwrap();
    let (ok, stderr) = cargo(&["build"], Some(&work));
    assert!(ok, "{stderr}");
    assert!(!stderr.contains("low_occupancy"), "{stderr}");
    std::thread::sleep(std::time::Duration::from_millis(1100));
    std::fs::write(&work, "min_occupancy = \"50%\"\ntargets = [\"sm_90\"]\n").unwrap();
    let (ok, stderr) = cargo(&["build"], Some(&work));
    assert!(ok, "{stderr}");
    assert!(stderr.contains(SM90_WARNING), "{stderr}");
    // This file does not allow partial_warp: it warns now too.
    assert_eq!(
        stderr
            .matches("use of deprecated macro `low_occupancy`")
            .count(),
        1,
        "{stderr}"
    );
    assert!(
        stderr.contains("use of deprecated macro `partial_warp`: launch_odd: block of 100 threads"),
        "{stderr}"
    );

    // 5. Zero cost: the checked wrapper's LLVM IR (unoptimised, so nothing added could be
    //    optimised away) is the same as the plain function's.
    let (ok, stderr) = cargo(
        &[
            "rustc",
            "--lib",
            "--",
            "--emit=llvm-ir",
            "-C",
            "debuginfo=0",
        ],
        None,
    );
    assert!(ok, "{stderr}");
    let deps = target_dir().join("debug/deps");
    let ir_file = std::fs::read_dir(&deps)
        .unwrap()
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| {
            p.extension().is_some_and(|e| e == "ll")
                && p.file_name()
                    .is_some_and(|n| n.to_string_lossy().starts_with("occupancy_user_crate"))
        })
        .max_by_key(|p| p.metadata().and_then(|m| m.modified()).ok())
        .expect("an .ll file");
    let ir = std::fs::read_to_string(ir_file).unwrap();
    let checked = function_body(&ir, "saxpy_checked");
    let plain = function_body(&ir, "saxpy_plain");
    assert!(checked.lines().count() > 10, "{checked}");
    assert_eq!(checked, plain);
}

/// The body of the LLVM function whose mangled name contains `name`, with that name
/// replaced so that two functions can be compared.
fn function_body(ir: &str, name: &str) -> String {
    let start = ir
        .lines()
        .position(|l| l.starts_with("define") && l.contains(name))
        .unwrap_or_else(|| panic!("no function {name} in the IR"));
    let lines: Vec<&str> = ir.lines().skip(start).take_while(|l| *l != "}").collect();
    let text = lines.join("\n");
    // The header holds the mangled name (with a hash) and an attribute-group number.
    let mut body: Vec<String> = text.lines().skip(1).map(str::to_owned).collect();
    body.insert(0, String::from("define"));
    body.join("\n")
}

/// `kernel = "k_plain"`: the crate's committed kernels.manifest.json (10 and 12 registers:
/// 100%), or the file `OCCUPANCY_MANIFEST` names; cargo rebuilds when that file or the
/// variable changes.
#[test]
fn kernel_resources_from_the_manifest_are_tracked() {
    let k_plain = |regs: u32| {
        format!(
            "{{\"format\": 1, \"kernels\": [\
             {{\"name\": \"k_plain\", \"arch\": \"sm_80\", \"origin\": \"cubin\", \"registers_per_thread\": {regs}, \
               \"static_smem_bytes\": 0, \"local_bytes\": 0, \"spill_store_bytes\": 0, \"spill_load_bytes\": 0, \"barriers\": 0}},\
             {{\"name\": \"k_plain\", \"arch\": \"sm_90\", \"origin\": \"cubin\", \"registers_per_thread\": {regs}, \
               \"static_smem_bytes\": 0, \"local_bytes\": 0, \"spill_store_bytes\": 0, \"spill_load_bytes\": 0, \"barriers\": 0}}]}}"
        )
    };
    let warning = "warning: use of deprecated macro `low_occupancy`: launch_plain on sm_90: 25% \
                   occupancy (16 of 64 warps), below the 50% floor";

    // The committed manifest: no warning about launch_plain.
    let (ok, stderr) = cargo_with(&["build"], None, None);
    assert!(ok, "{stderr}");
    assert!(!stderr.contains("launch_plain"), "{stderr}");

    // OCCUPANCY_MANIFEST (as a build script would set it) wins: 96 registers, 25%.
    let edited = edits_dir().join("manifest-edit.json");
    std::fs::create_dir_all(target_dir()).unwrap();
    std::fs::write(&edited, k_plain(96)).unwrap();
    let (ok, stderr) = cargo_with(&["build"], None, Some(&edited));
    assert!(ok, "{stderr}");
    assert!(stderr.contains(warning), "{stderr}");
    assert!(
        stderr.contains(
            "= note: k_plain: 96 regs/thread, 0 B static shared memory, 0 barriers, from its \
             sm_90 cubin in the resource manifest target/edits/manifest-edit.json"
        ),
        "{stderr}"
    );

    // Editing that file rebuilds (the expansion `include_bytes!`s it): 32 registers, 100%.
    std::thread::sleep(std::time::Duration::from_millis(1100));
    std::fs::write(&edited, k_plain(32)).unwrap();
    let (ok, stderr) = cargo_with(&["build"], None, Some(&edited));
    assert!(ok, "{stderr}");
    assert!(!stderr.contains("launch_plain"), "{stderr}");

    // And back to 96, then unsetting the variable rebuilds with the committed manifest.
    std::thread::sleep(std::time::Duration::from_millis(1100));
    std::fs::write(&edited, k_plain(96)).unwrap();
    let (ok, stderr) = cargo_with(&["build"], None, Some(&edited));
    assert!(ok && stderr.contains(warning), "{stderr}");
    let (ok, stderr) = cargo_with(&["build"], None, None);
    assert!(ok, "{stderr}");
    assert!(!stderr.contains("launch_plain"), "{stderr}");
}
