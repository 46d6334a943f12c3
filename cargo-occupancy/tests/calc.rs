//! `cargo occupancy calc` as a user runs it.

use std::process::Command;

/// Runs `cargo occupancy calc <args>`: (exit status, stdout, stderr).
fn calc(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_cargo-occupancy"))
        .arg("occupancy")
        .arg("calc")
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

/// The `Findings` section of calc's output.
fn findings(out: &str) -> &str {
    let start = out.find("Findings").unwrap_or(0);
    let end = out[start..]
        .find("\nSuggestions")
        .map_or(out.len(), |e| start + e);
    &out[start..end]
}

#[test]
fn table_marks_the_limiter_and_gives_the_result() {
    let (code, out, _) = calc(&[
        "--arch",
        "A100",
        "--block",
        "256",
        "--regs",
        "40",
        "--static-smem",
        "8KiB",
    ]);
    assert_eq!(code, 0);
    assert!(
        out.starts_with("Occupancy of 256-thread blocks on A100-SXM4-80GB (108 SMs), sm_80"),
        "{out}"
    );
    assert!(
        out.contains("threads per block                 256 (8 warps)\n"),
        "{out}"
    );
    assert!(
        out.contains(
            "registers per warp                1280 (40 x 32 rounded up to a multiple of 256)"
        ),
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
        out.contains("theoretical occupancy             75%"),
        "{out}"
    );
    assert!(
        out.contains("blocks to fill the GPU once       648 (108 SMs)"),
        "{out}"
    );
    // A 2-D block shows its shape; one warp is singular; percentages as the lints write them.
    let (_, out, _) = calc(&["--arch", "sm_86", "--block", "16x2", "--regs", "32"]);
    assert!(
        out.starts_with("Occupancy of 32-thread blocks (16, 2) on sm_86"),
        "{out}"
    );
    assert!(
        out.contains("threads per block                 32 (1 warp)\n"),
        "{out}"
    );
    assert!(
        out.contains("theoretical occupancy             33.33%\n"),
        "{out}"
    );
}

#[test]
fn json_has_the_numbers() {
    let (code, out, _) = calc(&[
        "--arch", "sm_90", "--block", "16x16", "--regs", "64", "--smem", "48KiB", "--opt-in",
        "64KiB", "--json",
    ]);
    assert_eq!(code, 0);
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
    // A launch that cannot run is a deny-level finding: exit status 1, as for `report`.
    let (code, out, _) = calc(&[
        "--arch", "sm_86", "--block", "256", "--regs", "32", "--smem", "60KiB",
    ]);
    assert_eq!(code, 1);
    assert!(out.contains("resident blocks per SM            0"), "{out}");
    assert!(
        out.contains("allowed without the dynamic shared memory opt-in"),
        "{out}"
    );
    // Bad arguments: calc cannot run, exit status 2.
    let (code, _, err) = calc(&["--arch", "H1000", "--block", "256", "--regs", "32"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("unknown target `H1000`") && err.contains("H100"),
        "{err}"
    );
}

#[test]
fn findings_and_suggestions() {
    // sm_80, 256 threads, 41 regs: one register over a step (5 -> 6 blocks).
    let (code, out, _) = calc(&[
        "--arch", "sm_80", "--block", "256", "--regs", "41", "--json",
    ]);
    assert_eq!(code, 0, "warnings only");
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
            .starts_with("<= 32: 8 blocks/SM, 100%; <= 40: 6 blocks/SM, 75%")
    );
    // Field case 30: one 32x32 block on an 80-SM V100.
    let (code, out, _) = calc(&[
        "--arch", "V100", "--block", "32x32", "--regs", "32", "--grid", "1",
    ]);
    assert_eq!(code, 0);
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

// Issue 13: field cases the engine got wrong, and CLI corrections. Each test is one item.

#[test]
fn item_1_a_grid_not_a_multiple_of_the_cluster_cannot_launch() {
    let (code, out, _) = calc(&[
        "--arch",
        "H100",
        "--block",
        "256",
        "--regs",
        "32",
        "--cluster",
        "3",
        "--grid",
        "1000",
    ]);
    assert_eq!(code, 1, "{out}");
    let f = findings(&out);
    assert!(
        f.contains(
            "deny[launch_impossible]: H100 80GB HBM3: a grid of 1000 blocks is not a whole number of clusters of 3\n\
             \x20     = note: the cluster launch fails (CUDA_ERROR_INVALID_CLUSTER_SIZE, measured on an H200)\n\
             \x20     = help: grid = 1002 (whole clusters of 3; the kernel must skip the 2 extra blocks)\n\
             \x20     = help: or grid = 999 (1 block fewer, its work done by the others)"
        ),
        "{f}"
    );
    // The grid's waves are not reported for a launch that does not run.
    assert!(
        !f.contains("tail_effect") && !f.contains("undersized_grid"),
        "{f}"
    );
    let (code, out, _) = calc(&[
        "--arch",
        "H100",
        "--block",
        "256",
        "--regs",
        "32",
        "--cluster",
        "3",
        "--grid",
        "999",
    ]);
    assert_eq!(code, 0, "{out}");
    // 1 to 3 dimensions, each checked.
    let (code, out, _) = calc(&[
        "--arch",
        "H200",
        "--block",
        "256",
        "--regs",
        "32",
        "--cluster",
        "2x2x1",
        "--grid",
        "4x3",
    ]);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("the grid's y dimension 3 is not a multiple of the cluster's 2 (grid (4, 3), cluster (2, 2))"),
        "{out}"
    );
    assert!(
        out.contains("cluster                           (2, 2) = 4 blocks"),
        "{out}"
    );
    let (code, _, err) = calc(&[
        "--arch",
        "H200",
        "--block",
        "256",
        "--regs",
        "32",
        "--cluster",
        "2x0",
    ]);
    assert_eq!(code, 2);
    assert!(err.contains("cluster `2x0` has a zero dimension"), "{err}");
}

#[test]
fn item_2_clusters_over_8_need_non_portable() {
    let args = [
        "--arch",
        "H200",
        "--block",
        "128",
        "--regs",
        "32",
        "--cluster",
        "12",
    ];
    let (code, out, _) = calc(&args);
    assert_eq!(code, 1, "{out}");
    let f = findings(&out);
    assert!(
        f.contains(
            "deny[launch_impossible]: H200: a cluster of 12 blocks exceeds the portable maximum of 8: set \
             cudaFuncAttributeNonPortableClusterSizeAllowed"
        ),
        "{f}"
    );
    assert!(f.contains("non_portable = true (calc: --non-portable); sm_90 then allows up to 16 blocks per cluster"), "{f}");
    // With the attribute: 12 runs (8 blocks/SM for cluster launches: 5 x 10 + 2 x 12 = 74
    // clusters on the H200); 17 does not (measured: CUDA_ERROR_INVALID_CLUSTER_SIZE).
    let (code, out, _) = calc(&[&args[..], &["--non-portable"]].concat());
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains("cluster                           12 blocks, non-portable sizes allowed"),
        "{out}"
    );
    assert!(
        out.contains("clusters of 12 at a time          74 (8 blocks/SM for cluster launches)"),
        "{out}"
    );
    let (code, out, _) = calc(&[
        "--arch",
        "H200",
        "--block",
        "128",
        "--regs",
        "32",
        "--cluster",
        "17",
        "--non-portable",
    ]);
    assert_eq!(code, 1);
    assert!(
        out.contains("a cluster of 17 blocks exceeds the maximum of 16 on this compute capability"),
        "{out}"
    );
    // --non-portable is about clusters.
    let (code, _, err) = calc(&[
        "--arch",
        "H200",
        "--block",
        "128",
        "--regs",
        "32",
        "--non-portable",
    ]);
    assert_eq!(code, 2);
    assert!(err.contains("--cluster"), "{err}");
}

#[test]
fn item_3_waves_of_a_cluster_launch_use_the_cluster_capped_capacity() {
    // H200, clusters of 3, 256 threads, 32 regs: 327 clusters = 981 blocks at a time
    // (cuOccupancyMaxActiveClusters on the H200), not the plain 1056. 999 blocks fill the
    // GPU once and leave a tail of 18.
    let (code, out, _) = calc(&[
        "--arch",
        "H200",
        "--block",
        "256",
        "--regs",
        "32",
        "--cluster",
        "3",
        "--grid",
        "999",
    ]);
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains("blocks to fill the GPU once       981 (327 clusters of 3; 1056 without clusters, 132 SMs)"),
        "{out}"
    );
    let f = findings(&out);
    assert!(!f.contains("undersized_grid"), "{f}");
    assert!(
        f.contains(
            "warn[tail_effect]: H200: a grid of 999 blocks runs 1.02 waves: the last wave fills 18 of 981 block \
             slots, 49.08% of the launch's block slots idle"
        ),
        "{f}"
    );
    assert!(
        out.contains("waves                             1.02 (981 blocks at a time; last wave 18 blocks, 98.17% of its slots idle)"),
        "{out}"
    );
    let (_, out, _) = calc(&[
        "--arch",
        "H200",
        "--block",
        "256",
        "--regs",
        "32",
        "--cluster",
        "3",
        "--json",
    ]);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["min_grid_size"], 981);
    // Without clusters, 999 of 1056 is undersized.
    let (_, out, _) = calc(&[
        "--arch", "H200", "--block", "256", "--regs", "32", "--grid", "999",
    ]);
    assert!(
        findings(&out).contains(
            "warn[undersized_grid]: H200: a grid of 999 blocks cannot fill the GPU once (94.6"
        ),
        "{out}"
    );
}

#[test]
fn item_4_static_shared_memory_over_48_kib_cannot_be_compiled() {
    let (code, out, _) = calc(&[
        "--arch",
        "sm_86",
        "--block",
        "256",
        "--regs",
        "32",
        "--static-smem",
        "51584",
        "--opt-in",
        "64KiB",
    ]);
    assert_eq!(code, 1, "{out}");
    let f = findings(&out);
    assert!(
        f.contains(
            "deny[launch_impossible]: sm_86: 51584 B of static shared memory per block cannot be compiled: ptxas \
             allows at most 48 KiB, whatever the dynamic shared memory opt-in"
        ),
        "{f}"
    );
    assert!(
        f.contains("uses too much shared data (0xc980 bytes, 0xc000 max)"),
        "{f}"
    );
    assert!(
        f.contains("static_smem = 0, smem = 51584, opt_in = 65536 (CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES) gives 16.67% (1 block/SM, 8 of 48 warps)"),
        "{f}"
    );
    // 48 KiB exactly compiles.
    let (code, out, _) = calc(&[
        "--arch",
        "sm_86",
        "--block",
        "256",
        "--regs",
        "32",
        "--static-smem",
        "48KiB",
    ]);
    assert_eq!(code, 0, "{out}");
}

#[test]
fn item_5_min_blocks_reports_launch_bounds_mismatch() {
    // __launch_bounds__(256, 4) on sm_86 with 48 KiB of dynamic shared memory: 2 blocks/SM.
    let args = [
        "--arch",
        "sm_86",
        "--block",
        "256",
        "--regs",
        "32",
        "--smem",
        "48KiB",
        "--max-threads",
        "256",
    ];
    let (code, out, _) = calc(&[&args[..], &["--min-blocks", "4"]].concat());
    assert_eq!(code, 0, "{out}");
    let f = findings(&out);
    assert!(
        f.contains(
            "warn[launch_bounds_mismatch]: sm_86: the kernel's __launch_bounds__(256, 4) asks for 4 blocks per SM, \
             this launch gets 2"
        ),
        "{f}"
    );
    assert!(
        f.contains(
            "= help: at most 24576 B of static + dynamic shared memory per block reaches 4 blocks"
        ),
        "{f}"
    );
    assert!(out.contains("launch bounds (min blocks per SM) 4"), "{out}");
    // Reached, or not given: silent.
    let (_, out, _) = calc(&[&args[..], &["--min-blocks", "2"]].concat());
    assert!(!out.contains("launch_bounds_mismatch"), "{out}");
    let (_, out, _) = calc(&args);
    assert!(!out.contains("launch_bounds_mismatch"), "{out}");
    let (code, _, _) = calc(&[&args[..], &["--min-blocks", "0"]].concat());
    assert_eq!(code, 2);
}

#[test]
fn item_6_no_figure_saturates_and_no_fix_exceeds_the_limits() {
    let (code, out, _) = calc(&["--arch", "sm_90", "--block", "4294967295", "--regs", "32"]);
    assert_eq!(code, 1, "{out}");
    // 4294967295 threads = 134217728 warps x 1024 registers per warp.
    assert!(
        out.contains("threads per block                 4294967295 (134217728 warps)"),
        "{out}"
    );
    assert!(
        out.contains("registers per block               137438953472\n"),
        "{out}"
    );
    assert!(!out.contains("4294967296"), "{out}");
    assert!(
        out.contains("= help: a block of at most 1024 threads (a multiple of 32; the most sm_90 allows is 1024)"),
        "{out}"
    );
    // Shared memory past u32: 4294967295 static + 4294967295 dynamic + 1 KiB reserved.
    let (_, out, _) = calc(&[
        "--arch",
        "sm_90",
        "--block",
        "256",
        "--regs",
        "32",
        "--static-smem",
        "4294967295",
        "--smem",
        "4294967295",
    ]);
    assert!(
        out.contains("shared memory per block           8589935616 B"),
        "{out}"
    );
    // Inputs whose figures would not fit are refused: a block of 2^32 threads, a register
    // count past an SM's register file.
    let (code, _, err) = calc(&["--arch", "sm_90", "--block", "65536x65536", "--regs", "32"]);
    assert_eq!(code, 2);
    assert!(err.contains("4294967296 threads"), "{err}");
    let (code, _, _) = calc(&["--arch", "sm_90", "--block", "256", "--regs", "65537"]);
    assert_eq!(code, 2);
}

#[test]
fn item_7_exit_status_follows_reports_rule() {
    // 0: no deny-level finding (warnings are fine).
    let (code, out, _) = calc(&["--arch", "sm_90", "--block", "100", "--regs", "32"]);
    assert_eq!(code, 0);
    assert!(out.contains("warn[partial_warp]"), "{out}");
    // 1: a deny-level finding, in the table and in the JSON.
    for json in [false, true] {
        let mut args = vec!["--arch", "sm_90", "--block", "2048", "--regs", "32"];
        if json {
            args.push("--json");
        }
        let (code, out, _) = calc(&args);
        assert_eq!(code, 1, "{out}");
        assert!(out.contains("launch_impossible"), "{out}");
    }
    // 1 also when the calculator refuses the kernel (an opt-in over the architecture's
    // limit): the finding says why, there is no table.
    let (code, out, _) = calc(&[
        "--arch", "sm_90", "--block", "256", "--regs", "32", "--opt-in", "300KiB",
    ]);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("deny[launch_impossible]: sm_90: opt-in of 300 KiB of dynamic shared memory exceeds the 227 KiB"),
        "{out}"
    );
    assert!(!out.contains("Resident blocks per SM allowed by"), "{out}");
    // 2: calc cannot run (bad arguments).
    let (code, _, err) = calc(&["--arch", "sm_90", "--block", "0", "--regs", "32"]);
    assert_eq!(code, 2);
    assert!(err.contains("zero dimension"), "{err}");
}

/// `cargo occupancy targets` lists what `--arch` takes, and every name it lists is taken.
#[test]
fn targets_lists_every_accepted_target_and_each_is_accepted() {
    let out = Command::new(env!("CARGO_BIN_EXE_cargo-occupancy"))
        .args(["occupancy", "targets"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.ends_with("19 compute capabilities, 51 GPUs; a GPU name also gives the SM count for the grid lints\n"),
        "{text}"
    );
    let h200 = text
        .lines()
        .find(|l| l.trim_start().starts_with("H200 "))
        .unwrap();
    assert_eq!(
        h200.split_whitespace().collect::<Vec<_>>(),
        ["H200", "9.0", "132", "H200", "SXM,", "H200", "SXM", "141GB"]
    );
    assert!(text.contains("sm_90 (9.0), sm_100 (10.0)"), "{text}");
    // Every GPU row's name runs calc (the name is the row's text before the cc column).
    let gpus: Vec<&str> = text
        .lines()
        .skip_while(|l| !l.starts_with("GPUs"))
        .skip(2)
        .take_while(|l| !l.is_empty())
        .map(|l| l.trim_start().split("  ").next().unwrap())
        .collect();
    assert_eq!(gpus.len(), 51);
    for gpu in gpus {
        let (code, _, err) = calc(&["--arch", gpu, "--block", "256", "--regs", "32"]);
        assert_eq!(code, 0, "{gpu}: {err}");
    }
}

/// The waves row says why there is no tail_effect finding when it shows an idle share, and
/// every percentage is written one way (two decimals at most, as the findings write them:
/// 93.75%, not 93.8%).
#[test]
fn waves_without_a_tail_finding_say_why_and_percentages_match_the_findings() {
    // 2000 blocks on an H100, 1056 at a time: the last wave leaves 112 of 1056 slots idle
    // (10.61%), 112 of the launch's 2112 (5.3%): within the 10% threshold.
    let (code, out, _) = calc(&[
        "--arch", "H100", "--block", "256", "--regs", "32", "--grid", "2000",
    ]);
    assert_eq!(code, 0, "{out}");
    assert!(findings(&out).contains("none"), "{out}");
    assert!(
        out.contains(
            "waves                             1.89 (1056 blocks at a time; last wave 944 blocks, \
             10.61% of its slots idle); no tail_effect: 5.3% of the launch's block slots idle, \
             within tail_effect's 10% (thresholds.tail_effect_max_waste)"
        ),
        "{out}"
    );
    // With the finding, no such words.
    let (_, out, _) = calc(&[
        "--arch", "H100", "--block", "256", "--regs", "32", "--grid", "1200",
    ]);
    assert!(findings(&out).contains("warn[tail_effect]"), "{out}");
    assert!(!out.contains("no tail_effect"), "{out}");
    // 160 threads, 48 registers on an A100: the budget's percentages as the lints write them.
    let (_, out, _) = calc(&["--arch", "A100", "--block", "160", "--regs", "48"]);
    assert!(
        out.contains(
            "register budget (160 threads)     <= 32: 12 blocks/SM, 93.75%; <= 40: 9 blocks/SM, \
             70.31%; <= 48: 8 blocks/SM, 62.5%"
        ),
        "{out}"
    );
}

#[test]
fn item_9_a_thread_has_at_most_255_registers_everywhere_calc_says_it() {
    // 255 launches (one 256-thread block of them fills an sm_80 register file).
    let (code, out, _) = calc(&["--arch", "sm_80", "--block", "256", "--regs", "255"]);
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains("resident blocks per SM            1\n"),
        "{out}"
    );
    // 256 and 300: the table's reason and the finding name the same limit, 255 (the
    // occupancy header's 256 is a count no kernel has).
    for regs in ["256", "300"] {
        let (code, out, _) = calc(&["--arch", "sm_80", "--block", "256", "--regs", regs]);
        assert_eq!(code, 1, "{out}");
        assert!(
            out.contains(&format!(
                "launch fails                      {regs} registers per thread exceed the 255 a \
                 thread can have\n"
            )),
            "{out}"
        );
        assert!(
            out.contains(&format!(
                "deny[launch_impossible]: sm_80: {regs} registers per thread exceed the 255 a \
                 thread can have on sm_80"
            )),
            "{out}"
        );
        assert!(!out.contains("limit of 256"), "{out}");
    }
}

#[test]
fn item_10_without_regs_calc_gives_the_ceiling_and_the_register_budget() {
    let (code, out, err) = calc(&["--arch", "A100", "--block", "256"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.contains(
            "registers per thread              not given (--regs): no register limit below"
        ),
        "{out}"
    );
    assert!(
        out.contains("registers                         unlimited\n"),
        "{out}"
    );
    assert!(
        out.contains("theoretical occupancy             100% at most: registers not given"),
        "{out}"
    );
    assert!(
        out.contains(
            "register budget (256 threads)     <= 32: 8 blocks/SM, 100%; <= 40: 6 blocks/SM, 75%"
        ),
        "{out}"
    );
    // No allocated registers to show without a count.
    assert!(!out.contains("registers per warp"), "{out}");
    let (code, out, _) = calc(&["--arch", "A100", "--block", "256", "--json"]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["inputs"]["registers_per_thread"], serde_json::Value::Null);
    assert_eq!(v["blocks_per_sm"], 8);
    // sweep's graphs depend on the registers: it says so.
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_cargo-occupancy"))
        .args(["occupancy", "sweep", "--arch", "A100", "--block", "256"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("sweep needs --regs"), "{err}");
}

#[test]
fn item_10_sizes_take_kib_and_k_and_refuse_the_ambiguous_kb() {
    for (given, bytes) in [
        ("8KiB", 8192),
        ("8 KiB", 8192),
        ("8k", 8192),
        ("8K", 8192),
        ("8000", 8000),
        ("8000B", 8000),
    ] {
        let (code, out, err) = calc(&[
            "--arch",
            "A100",
            "--block",
            "256",
            "--regs",
            "32",
            "--static-smem",
            given,
        ]);
        assert_eq!(code, 0, "{given}: {err}");
        assert!(
            out.contains(&format!("static shared memory per block    {bytes} B\n")),
            "{given}: {out}"
        );
    }
    for given in ["8kb", "8KB", "8 kB"] {
        let (code, out, err) = calc(&[
            "--arch",
            "A100",
            "--block",
            "256",
            "--regs",
            "32",
            "--static-smem",
            given,
        ]);
        assert_eq!(code, 2, "{given}: {out}");
        assert!(
            err.contains("is ambiguous (1000 bytes in SI, 1024 in NVIDIA's documents): write 8KiB for 8192 bytes, or 8000 for 8 thousand"),
            "{given}: {err}"
        );
    }
}
