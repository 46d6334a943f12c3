//! `cargo occupancy sweep` as a user runs it.

use std::process::Command;

use serde_json::Value;

fn run(sub: &str, args: &[&str]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_cargo-occupancy"))
        .arg("occupancy")
        .arg(sub)
        .args(args)
        .output()
        .unwrap();
    (
        out.status.success(),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

fn sweep(args: &[&str]) -> (bool, String, String) {
    run("sweep", args)
}

fn sweep_json(args: &[&str]) -> Value {
    let mut all = args.to_vec();
    all.push("--json");
    let (ok, out, err) = sweep(&all);
    assert!(ok, "{err}");
    serde_json::from_str(&out).unwrap()
}

/// `(value, blocks_per_sm)` of each step of the first sweep.
fn steps(v: &Value) -> Vec<(u64, u64)> {
    v["sweeps"][0]["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["value"].as_u64().unwrap(),
                s["blocks_per_sm"].as_u64().unwrap(),
            )
        })
        .collect()
}

/// The point of the first sweep at `value`: (blocks, active warps, limiters).
fn point(v: &Value, value: u64) -> (u64, u64, Vec<String>) {
    let p = v["sweeps"][0]["points"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["value"] == value)
        .unwrap_or_else(|| panic!("no point at {value}"));
    (
        p["blocks_per_sm"].as_u64().unwrap(),
        p["active_warps_per_sm"].as_u64().unwrap(),
        p["limiters"]
            .as_array()
            .unwrap()
            .iter()
            .map(|l| l.as_str().unwrap().to_owned())
            .collect(),
    )
}

#[test]
fn regs_table_collapses_runs_and_names_the_steps() {
    let (ok, out, err) = sweep(&[
        "--arch", "sm_80", "--block", "256", "--regs", "40", "--vary", "regs",
    ]);
    assert!(ok, "{err}");
    assert!(out.contains("Registers per thread (1 to 255)"), "{out}");
    assert!(
        out.contains("  1-24          8     64       100%  warps\n"),
        "{out}"
    );
    // 25-32 registers also round up to 1024 per warp: registers tie with warps at 8 blocks.
    assert!(
        out.contains("  25-32         8     64       100%  warps, registers\n"),
        "{out}"
    );
    assert!(
        out.contains("  33-40         6     48        75%  registers  <- current (40)\n"),
        "{out}"
    );
    assert!(
        out.contains("  129-255       1      8      12.5%  registers\n"),
        "{out}"
    );
    assert!(
        out.contains(
            "steps (the most registers per thread that keeps each block count): 32 (8 blocks), \
             40 (6), 48 (5), 64 (4), 80 (3), 128 (2), 255 (1)\n"
        ),
        "{out}"
    );
    // One row per change, not 255.
    let rows = out
        .lines()
        .filter(|l| l.starts_with("  ") && l.contains('%'));
    assert_eq!(rows.count(), 8, "{out}");
}

#[test]
fn regs_json_has_every_point_and_the_steps() {
    let v = sweep_json(&[
        "--arch", "A100", "--block", "256", "--regs", "40", "--vary", "regs",
    ]);
    let s = &v["sweeps"][0];
    assert_eq!(s["parameter"], "regs");
    assert_eq!(s["points"].as_array().unwrap().len(), 255);
    assert_eq!(
        steps(&v),
        [
            (32, 8),
            (40, 6),
            (48, 5),
            (64, 4),
            (80, 3),
            (128, 2),
            (255, 1)
        ]
    );
    assert_eq!(point(&v, 41), (5, 40, vec!["registers".to_owned()]));
    assert_eq!(v["current"]["blocks_per_sm"], 6);
    assert_eq!(s["points"][39]["occupancy"], 0.75);
}

#[test]
fn block_sweep_for_40_registers_on_sm_80() {
    let v = sweep_json(&[
        "--arch", "sm_80", "--block", "256", "--regs", "40", "--vary", "block",
    ]);
    assert_eq!(v["sweeps"][0]["points"].as_array().unwrap().len(), 32);
    // 40 registers: 1280 per warp, 12 warps per sub-partition, 48 per SM.
    assert_eq!(point(&v, 32), (32, 32, vec!["blocks".to_owned()]));
    assert_eq!(point(&v, 64), (24, 48, vec!["registers".to_owned()]));
    assert_eq!(point(&v, 160), (9, 45, vec!["registers".to_owned()]));
    assert_eq!(point(&v, 224), (6, 42, vec!["registers".to_owned()]));
    assert_eq!(point(&v, 256), (6, 48, vec!["registers".to_owned()]));
    // 768 threads (24 warps): 64 / 24 = 2 by warps too.
    assert_eq!(
        point(&v, 768),
        (2, 48, vec!["warps".to_owned(), "registers".to_owned()])
    );
    assert_eq!(point(&v, 800), (1, 25, vec!["registers".to_owned()]));
    assert_eq!(
        steps(&v),
        [
            (32, 32),
            (64, 24),
            (96, 16),
            (128, 12),
            (160, 9),
            (192, 8),
            (256, 6),
            (288, 5),
            (384, 4),
            (512, 3),
            (768, 2),
            (1024, 1)
        ]
    );
}

#[test]
fn block_sweep_stops_at_launch_bounds_and_shows_blocks_that_cannot_launch() {
    let (ok, out, err) = sweep(&[
        "--arch",
        "sm_90",
        "--block",
        "200",
        "--regs",
        "96",
        "--max-threads",
        "640",
        "--vary",
        "block",
    ]);
    assert!(ok, "{err}");
    assert!(
        out.contains("(32 to 640 in steps of 32, launch bounds;"),
        "{out}"
    );
    // 200 threads is a point of its own: 7 warps, 2 blocks of 96-register warps.
    assert!(out.contains("<- current (200)"), "{out}");
    let v = sweep_json(&[
        "--arch", "sm_90", "--block", "200", "--regs", "96", "--vary", "block",
    ]);
    // 96 registers: 3072 per warp, 5 per sub-partition, 20 per SM.
    assert_eq!(point(&v, 200).0, 2);
    assert_eq!(point(&v, 640), (1, 20, vec!["registers".to_owned()]));
    // 672 threads = 21 warps, rounded up to 24 (4 sub-partitions) x 3072 > 65536 registers
    // per block: the launch fails.
    assert_eq!(point(&v, 672).0, 0);
    let (_, out, _) = sweep(&[
        "--arch", "sm_90", "--block", "200", "--regs", "96", "--vary", "block",
    ]);
    assert!(
        out.contains(
            "672-1024       0      0         0%  launch fails: too many registers per block"
        ),
        "{out}"
    );
}

#[test]
fn smem_sweep_on_sm_86_with_the_reserve() {
    // Opted in: static + dynamic from 0 to 99 KiB in 128 B steps; 1 KiB reserved per block.
    let args = [
        "--arch", "sm_86", "--block", "128", "--regs", "32", "--smem", "50496", "--opt-in",
        "99KiB", "--vary", "smem",
    ];
    let v = sweep_json(&args);
    let s = &v["sweeps"][0];
    assert_eq!(
        (s["step"].as_u64(), s["limit"].as_u64()),
        (Some(128), Some(101_376))
    );
    assert_eq!(s["opt_in_assumed"], true);
    // 793 regular points (0, 128, ..., 101376) and the current 50496.
    assert_eq!(s["points"].as_array().unwrap().len(), 794);
    // 100 KiB per SM: N blocks fit while N x (bytes + 1024, rounded to 128) <= 102400.
    assert_eq!(
        steps(&v),
        [
            (7424, 12),
            (8192, 11),
            (9216, 10),
            (10240, 9),
            (11776, 8),
            (13568, 7),
            (16000, 6),
            (19456, 5),
            (24576, 4),
            (33024, 3),
            (50176, 2),
            (101_376, 1)
        ]
    );
    assert_eq!(point(&v, 50176).0, 2);
    assert_eq!(point(&v, 50304).0, 1);
    let (ok, out, _) = sweep(&args);
    assert!(ok);
    assert!(
        out.contains("  33025-50176        2      8     16.67%  shared memory\n"),
        "{out}"
    );
    assert!(
        out.contains("  50177-101376       1      4      8.33%  shared memory  <- current (50496)"),
        "{out}"
    );
    // Without the opt-in the sweep ends at the 48 KiB default, 2 blocks still at its end.
    let v = sweep_json(&[
        "--arch", "sm_86", "--block", "128", "--regs", "32", "--vary", "smem",
    ]);
    assert_eq!(v["sweeps"][0]["limit"], 49152);
    assert_eq!(steps(&v).last(), Some(&(49152, 2)));
}

#[test]
fn smem_sweep_notes_a_configuration_that_needs_the_opt_in() {
    let (ok, out, err) = sweep(&[
        "--arch", "sm_86", "--block", "256", "--regs", "32", "--smem", "60KiB", "--vary", "smem",
    ]);
    assert!(ok, "{err}");
    assert!(out.contains("Current: no block fits"), "{out}");
    assert!(
        out.contains("  50177-101376       1      8     16.67%  shared memory  <- current (61440)"),
        "{out}"
    );
    assert!(
        out.contains("note: the configuration as given gets no block fits: too much shared memory"),
        "{out}"
    );
}

#[test]
fn every_point_agrees_with_calc() {
    // The sweep's points are the engine's answers: spot-check against `calc`.
    let v = sweep_json(&[
        "--arch",
        "H100",
        "--block",
        "16x16",
        "--regs",
        "72",
        "--static-smem",
        "12KiB",
        "--smem",
        "20000",
        "--opt-in",
        "64KiB",
        "--barriers",
        "4",
    ]);
    let calc_blocks = |args: &[&str]| {
        let mut all = args.to_vec();
        all.push("--json");
        let (ok, out, err) = run("calc", &all);
        let c: Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {err}"));
        let blocks = c["blocks_per_sm"].as_u64().unwrap();
        // calc's exit status is 1 exactly for a launch that cannot run (launch_impossible).
        assert_eq!(ok, blocks > 0, "{out}");
        blocks
    };
    let base = [
        "--arch",
        "H100",
        "--barriers",
        "4",
        "--opt-in",
        "64KiB",
        "--static-smem",
        "12KiB",
    ];
    let sweeps = v["sweeps"].as_array().unwrap();
    assert_eq!(sweeps.len(), 3);
    let blocks_at = |i: usize, value: u64| {
        sweeps[i]["points"]
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["value"] == value)
            .unwrap()["blocks_per_sm"]
            .as_u64()
            .unwrap()
    };
    for threads in ["96", "256", "512", "1024"] {
        let mut a = base.to_vec();
        a.extend(["--block", threads, "--regs", "72", "--smem", "20000"]);
        assert_eq!(blocks_at(0, threads.parse().unwrap()), calc_blocks(&a));
    }
    for regs in ["16", "56", "72", "168"] {
        let mut a = base.to_vec();
        a.extend(["--block", "256", "--regs", regs, "--smem", "20000"]);
        assert_eq!(blocks_at(1, regs.parse().unwrap()), calc_blocks(&a));
    }
    // Shared memory points above the static 12 KiB keep it and add dynamic bytes.
    for total in [12288u64, 40960, 61440, 77824] {
        let dynamic = (total - 12288).to_string();
        let mut a = base.to_vec();
        a.extend(["--block", "256", "--regs", "72", "--smem", &dynamic]);
        assert_eq!(blocks_at(2, total), calc_blocks(&a), "{total}");
    }
    assert_eq!(v["current"]["blocks_per_sm"], 3);
}

#[test]
fn svg_is_written_with_the_current_configuration_marked() {
    let dir = std::env::temp_dir().join(format!("occupancy-sweep-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("regs.svg");
    let (ok, out, err) = sweep(&[
        "--arch",
        "sm_80",
        "--block",
        "256",
        "--regs",
        "40",
        "--vary",
        "regs",
        "--svg",
        file.to_str().unwrap(),
    ]);
    assert!(ok, "{err}");
    // The table still goes to stdout.
    assert!(out.contains("33-40"), "{out}");
    let svg = std::fs::read_to_string(&file).unwrap();
    assert!(svg.starts_with("<svg"), "{}", &svg[..100]);
    assert!(svg.trim_end().ends_with("</svg>"));
    assert!(
        svg.contains("current (40 registers): 6 blocks, 48 warps, 75%, limiter registers"),
        "no current label"
    );
    // The red point.
    assert!(svg.contains(r##"fill="#D62728""##));
    assert!(svg.contains("Varying registers per thread"));
    assert!(svg.contains("limiter: registers") && svg.contains("limiter: warps"));
    // Steps are labelled.
    assert!(svg.contains("\n128\n") && svg.contains("\n255\n"));
    assert!(!svg.contains("Varying threads per block"));

    // All three, stacked.
    let file = dir.join("all.svg");
    let (ok, _, err) = sweep(&[
        "--arch",
        "sm_86",
        "--block",
        "128",
        "--regs",
        "32",
        "--smem",
        "50496",
        "--opt-in",
        "99KiB",
        "--svg",
        file.to_str().unwrap(),
        "--json",
    ]);
    assert!(ok, "{err}");
    let svg = std::fs::read_to_string(&file).unwrap();
    assert!(svg.starts_with("<svg"));
    for caption in [
        "Varying threads per block",
        "Varying registers per thread",
        "Varying shared memory per block",
    ] {
        assert!(svg.contains(caption), "{caption}");
    }
    assert!(svg.contains("current (50496 B): 1 block, 4 warps, 8.33%, limiter shared memory"));
    assert_eq!(svg.matches("current (").count(), 3);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn bad_input_is_an_error() {
    let (ok, _, err) = sweep(&[
        "--arch", "sm_80", "--block", "256", "--regs", "40", "--vary", "threads",
    ]);
    assert!(!ok);
    assert!(
        err.contains("possible values: block, regs, smem, all"),
        "{err}"
    );
    let (ok, _, err) = sweep(&[
        "--arch",
        "sm_80",
        "--block",
        "256",
        "--regs",
        "40",
        "--svg",
        "/nonexistent-dir/x.svg",
    ]);
    assert!(!ok);
    assert!(err.contains("/nonexistent-dir/x.svg"), "{err}");
    // The engine refuses an opt-in above the architecture's maximum.
    let (ok, _, err) = sweep(&[
        "--arch", "sm_86", "--block", "256", "--regs", "40", "--opt-in", "200KiB",
    ]);
    assert!(!ok);
    assert!(err.contains("opt-in of 204800 bytes"), "{err}");
}

/// Before: a block over the kernel's launch bounds was "Current: 8 blocks per SM (100%)"
/// with no launch error, where `calc` reports `launch_impossible` (the launch fails; the
/// occupancy query counts the blocks, as the driver's does).
#[test]
fn a_block_over_the_launch_bounds_is_a_failed_launch_as_calc_says() {
    let args = [
        "--arch",
        "H100",
        "--block",
        "256",
        "--regs",
        "32",
        "--max-threads",
        "64",
    ];
    let (ok, out, err) = sweep(&args);
    assert!(ok, "{err}");
    assert_eq!(
        out.lines().nth(1),
        Some(
            "Current: the launch fails: the block has more threads than the kernel's launch \
             bounds allow (the occupancy query counts 8 blocks per SM, 100%)"
        ),
        "{out}"
    );
    let v = sweep_json(&args);
    assert_eq!(
        v["current"]["launch_error"],
        "the block has more threads than the kernel's launch bounds allow"
    );
    assert_eq!(v["current"]["blocks_per_sm"], 8);
    let (ok, calc, _) = run("calc", &args);
    assert!(!ok);
    assert!(calc.contains("deny[launch_impossible]"), "{calc}");
    // Within the bounds, no error.
    let v = sweep_json(&[
        "--arch",
        "H100",
        "--block",
        "64",
        "--regs",
        "32",
        "--max-threads",
        "64",
    ]);
    assert_eq!(v["current"]["launch_error"], Value::Null);
}
