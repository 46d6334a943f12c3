//! `cargo occupancy calc` as a user runs it.

use std::process::Command;

fn calc(args: &[&str]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_cargo-occupancy"))
        .arg("occupancy")
        .arg("calc")
        .args(args)
        .output()
        .unwrap();
    (
        out.status.success(),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

#[test]
fn table_marks_the_limiter_and_gives_the_result() {
    let (ok, out, _) = calc(&[
        "--arch",
        "A100",
        "--block",
        "256",
        "--regs",
        "40",
        "--static-smem",
        "8KiB",
    ]);
    assert!(ok);
    assert!(out.contains("A100-SXM4-80GB (108 SMs)"), "{out}");
    assert!(
        out.contains("registers per warp                1280 (40 x 32 rounded up to 256)"),
        "{out}"
    );
    assert!(
        out.contains("registers                         6  <- limiter"),
        "{out}"
    );
    assert!(
        out.contains("shared memory                     18\n"),
        "{out}"
    );
    assert!(
        out.contains("active warps per SM               48 of 64"),
        "{out}"
    );
    assert!(
        out.contains("theoretical occupancy             75.0%"),
        "{out}"
    );
    assert!(
        out.contains("blocks to fill the GPU once       648 (108 SMs)"),
        "{out}"
    );
}

#[test]
fn json_has_the_numbers() {
    let (ok, out, _) = calc(&[
        "--arch", "sm_90", "--block", "16x16", "--regs", "64", "--smem", "48KiB", "--opt-in",
        "64KiB", "--json",
    ]);
    assert!(ok);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["blocks_per_sm"], 4);
    assert_eq!(
        v["limiters"],
        serde_json::json!(["registers", "shared_memory"])
    );
    assert_eq!(v["allocated"]["smem_per_block"], 50176);
    assert_eq!(v["occupancy"], 0.5);
}

#[test]
fn impossible_launch_says_why_and_bad_input_is_an_error() {
    let (ok, out, _) = calc(&[
        "--arch", "sm_86", "--block", "256", "--regs", "32", "--smem", "60KiB",
    ]);
    assert!(ok);
    assert!(out.contains("resident blocks per SM            0"), "{out}");
    assert!(
        out.contains("allowed without the dynamic shared memory opt-in"),
        "{out}"
    );
    let (ok, _, err) = calc(&["--arch", "H1000", "--block", "256", "--regs", "32"]);
    assert!(!ok);
    assert!(
        err.contains("unknown target `H1000`") && err.contains("H100"),
        "{err}"
    );
}

#[test]
fn findings_and_suggestions() {
    // sm_80, 256 threads, 41 regs: one register over a step (5 -> 6 blocks).
    let (ok, out, _) = calc(&[
        "--arch", "sm_80", "--block", "256", "--regs", "41", "--json",
    ]);
    assert!(ok);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let findings = v["findings"].as_array().unwrap();
    assert_eq!(findings.len(), 1, "{findings:?}");
    assert_eq!(findings[0]["lint"], "register_step");
    assert_eq!(findings[0]["level"], "warn");
    assert!(
        findings[0]["message"]
            .as_str()
            .unwrap()
            .contains("40 give 6 blocks/SM (75%) instead of 5 blocks/SM (62.5%)")
    );
    let suggestions = v["suggestions"].as_array().unwrap();
    let budget = suggestions
        .iter()
        .find(|s| s["what"] == "register budget (256 threads)")
        .unwrap();
    assert!(
        budget["text"]
            .as_str()
            .unwrap()
            .starts_with("<= 32: 8 blocks/SM, 100.0%; <= 40: 6 blocks/SM, 75.0%")
    );
    // Field case 30: one 32x32 block on an 80-SM V100.
    let (ok, out, _) = calc(&[
        "--arch", "V100", "--block", "32x32", "--regs", "32", "--grid", "1",
    ]);
    assert!(ok);
    assert!(out.contains("warn[undersized_grid]: Tesla V100-SXM2-16GB: a grid of 1 block cannot fill the GPU once"), "{out}");
    assert!(out.contains("= note: 79 of 80 SMs get no block"), "{out}");
    // A compute-bound class lowers the floor: 37.5% is fine there, not at the default 50%.
    let low = ["--arch", "sm_90", "--block", "256", "--regs", "72"];
    let (_, out, _) = calc(&low);
    assert!(out.contains("warn[low_occupancy]"), "{out}");
    let (_, out, _) = calc(&[&low[..], &["--class", "compute_bound"]].concat());
    assert!(
        !out.contains("low_occupancy") && out.contains("Findings (floor 25%, compute_bound)"),
        "{out}"
    );
}
