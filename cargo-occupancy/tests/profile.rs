//! `cargo occupancy profile --import` on the Nsight Compute exports recorded on an H200
//! (tests/data/h200/ncu/): the engine's theoretical occupancy and block limits against
//! ncu's, and the grid ceiling against the achieved occupancy.

use std::path::PathBuf;
use std::process::Command;

use serde_json::Value;

fn data(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/data/h200/ncu")
        .join(name)
}

/// (exit code, stdout) of `profile --import FILE --json` (no crate: no wrapper names).
fn profile_json(name: &str) -> (i32, Vec<Value>) {
    let out = Command::new(env!("CARGO_BIN_EXE_cargo-occupancy"))
        .args(["occupancy", "profile", "--json", "--import"])
        .arg(data(name))
        .current_dir(std::env::temp_dir())
        .output()
        .unwrap();
    let json: Value = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
    (
        out.status.code().unwrap_or(-1),
        json.as_array().cloned().unwrap_or_default(),
    )
}

const EXAMPLES: [&str; 8] = [
    "saxpy",
    "reduce",
    "sgemm",
    "softmax",
    "layernorm",
    "transpose",
    "histogram",
    "conv2d",
];

fn f(v: &Value) -> f64 {
    v.as_f64().unwrap_or(f64::NAN)
}

/// Every launch of every export: the engine equals ncu (theoretical occupancy, the four
/// block limits, the driver's shared-memory configuration); the grid ceiling is at or above
/// the achieved occupancy, and within 1.5 points of it below one block per SM.
fn check_launches(name: &str, launches: &[Value]) -> usize {
    let mut under_one_block_per_sm = 0;
    for l in launches {
        let what = format!("{name} launch {}: {l}", l["id"]);
        assert_eq!(l["disagreements"], Value::Array(vec![]), "{what}");
        assert_eq!(
            f(&l["theoretical_occupancy"]),
            f(&l["ncu_theoretical_occupancy"]),
            "{what}"
        );
        for limit in ["registers", "shared_memory", "warps", "blocks"] {
            assert!(l["limits"][limit].is_u64(), "{what}");
            assert_eq!(
                l["limits"][limit], l["ncu_limits"][limit],
                "{limit}: {what}"
            );
        }
        assert_eq!(l["smem_config_bytes"], l["ncu_smem_config_bytes"], "{what}");
        let (ceiling, achieved) = (f(&l["grid_ceiling_occupancy"]), f(&l["achieved_occupancy"]));
        assert!(
            ceiling >= achieved,
            "ceiling {ceiling} < achieved {achieved}: {what}"
        );
        let grid: u64 = l["grid"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| d.as_u64().unwrap())
            .product();
        if grid < 132 {
            under_one_block_per_sm += 1;
            assert!(
                ceiling - achieved <= 1.5,
                "ceiling {ceiling}, achieved {achieved}: {what}"
            );
        }
    }
    under_one_block_per_sm
}

#[test]
fn engine_equals_ncu_on_every_launch_of_the_examples() {
    let mut launches = 0;
    let mut small = 0;
    for name in EXAMPLES {
        let (code, json) = profile_json(&format!("{name}.csv"));
        assert_eq!(code, 0, "{name}");
        assert!(!json.is_empty(), "{name}");
        small += check_launches(name, &json);
        launches += json.len();
    }
    assert_eq!(launches, 17);
    // histogram's merge and reduce's second pass (1 block), transpose's 128 blocks, the two
    // sgemm kernels' 117 and 35 blocks (twice each).
    assert_eq!(small, 7);
}

#[test]
fn engine_equals_ncu_on_the_lints_before_and_after() {
    let (code, json) = profile_json("lint_effect.csv");
    assert_eq!(code, 0);
    assert_eq!(json.len(), 16);
    check_launches("lint_effect", &json);
    // undersized_grid before: 117 blocks of 8 warps at 8 per SM: one block per busy SM.
    let l = &json[14];
    assert_eq!(l["grid"], serde_json::json!([117, 1, 1]));
    assert_eq!(f(&l["theoretical_occupancy"]), 100.0);
    assert_eq!(f(&l["grid_ceiling_occupancy"]), 12.5);
    assert_eq!(f(&l["achieved_occupancy"]), 12.46);
    // tail_effect before: 1320 blocks = 1.25 waves of 1056. From one full wave on the
    // ceiling is the theoretical occupancy: it achieved 81.76%, well above the 62.5% that
    // two waves of equal blocks would give.
    let l = &json[12];
    assert_eq!(f(&l["grid_ceiling_occupancy"]), 100.0);
    assert_eq!(f(&l["waves_per_sm"]), 1.25);
    assert_eq!(f(&l["achieved_occupancy"]), 81.76);
}

#[test]
fn the_known_examples_values() {
    let (_, saxpy) = profile_json("saxpy.csv");
    let l = &saxpy[0];
    assert_eq!(l["kernel"], "saxpy");
    assert_eq!(l["registers_per_thread"], 16);
    assert_eq!(l["smem_config_bytes"], 32768);
    assert_eq!(l["limits"]["shared_memory"], 32);
    assert_eq!(f(&l["achieved_occupancy"]), 92.5);
    let (_, sgemm) = profile_json("sgemm.csv");
    let l = &sgemm[0];
    assert_eq!(l["kernel"], "sgemm_tiled");
    assert_eq!(f(&l["theoretical_occupancy"]), 75.0);
    assert_eq!(f(&l["grid_ceiling_occupancy"]), 12.5);
    assert_eq!(l["smem_config_bytes"], 135168);
    assert_eq!(l["limits"]["shared_memory"], 14);
    let (_, transpose) = profile_json("transpose.csv");
    assert_eq!(transpose[0]["smem_config_bytes"], 102400);
    assert_eq!(transpose[0]["limits"]["shared_memory"], 19);
}

/// The probe sweeps of scripts/gpu/smem_config.py: (launches of the default carveout, those
/// whose shared-memory configuration the engine predicts). Its set C sets a carveout
/// preference, which the CSV does not carry: only default-carveout launches (per the plan)
/// are held to equality.
fn sweep(export: &str, plan: &str) -> (usize, usize) {
    let (_, json) = profile_json(export);
    let plan = std::fs::read_to_string(data(plan)).unwrap();
    let rows: Vec<Vec<&str>> = plan
        .lines()
        .skip(1)
        .map(|l| l.split('\t').collect())
        .collect();
    assert_eq!(rows.len(), json.len());
    let mut default = 0;
    let mut config_agrees = 0;
    for (row, l) in rows.iter().zip(&json) {
        if row[8] != "-1" {
            continue;
        }
        default += 1;
        let what = format!("{row:?}: {l}");
        assert_eq!(
            f(&l["theoretical_occupancy"]),
            f(&l["ncu_theoretical_occupancy"]),
            "{what}"
        );
        for limit in ["registers", "shared_memory", "warps", "blocks"] {
            assert_eq!(
                l["limits"][limit], l["ncu_limits"][limit],
                "{limit}: {what}"
            );
        }
        assert!(
            f(&l["grid_ceiling_occupancy"]) >= f(&l["achieved_occupancy"]),
            "{what}"
        );
        config_agrees += usize::from(l["smem_config_bytes"] == l["ncu_smem_config_bytes"]);
    }
    (default, config_agrees)
}

#[test]
fn the_shared_memory_configuration_sweeps() {
    assert_eq!(
        sweep("smem_config.csv.gz", "smem_config.plan.tsv"),
        (398, 398)
    );
    // The two it misses: 16 blocks of 64 and 96 threads with 128 B of static shared memory.
    assert_eq!(
        sweep("smem_config_g.csv.gz", "smem_config_g.plan.tsv"),
        (462, 460)
    );
}

#[test]
fn ncus_other_layouts() {
    // --log-file: the same CSV without the program's output.
    let (code, json) = profile_json("saxpy.log-file.csv");
    assert_eq!((code, json.len()), (0, 2));
    // `ncu --import --csv` prints sizes in Kbyte, rounded: reported, not hidden.
    let (code, json) = profile_json("saxpy.import.csv");
    assert_eq!((code, json.len()), (1, 2));
    let d = json[0]["disagreements"].to_string();
    assert!(
        d.contains("reserved shared memory per block: engine 1024 B, ncu 1020 B"),
        "{d}"
    );
}

/// A CSV of one launch in ncu's layout, with the values given; the launch stands for
/// cuDNN's flash-attention kernel on the H200 (131 KiB dynamic shared memory, run under a
/// 228 KiB configuration its library chose); its other numbers are this test's.
fn flash_attention_csv(name: &str, ncu_theoretical: &str) -> PathBuf {
    let base = "\"7\",\"2214\",\"python\",\"host\",\"cudnn_sdpa_flash_fprop\",\"1\",\"7\",\
                \"(384, 1, 1)\",\"(264, 1, 1)\",\"0\",\"9.0\"";
    let metrics = [
        (
            "Launch Statistics",
            "Registers Per Thread",
            "register/thread",
            "168",
        ),
        (
            "Launch Statistics",
            "Shared Memory Configuration Size",
            "byte",
            "233,472",
        ),
        (
            "Launch Statistics",
            "Driver Shared Memory Per Block",
            "byte/block",
            "1,024",
        ),
        (
            "Launch Statistics",
            "Dynamic Shared Memory Per Block",
            "byte/block",
            "134,144",
        ),
        (
            "Launch Statistics",
            "Static Shared Memory Per Block",
            "byte/block",
            "0",
        ),
        ("Launch Statistics", "# SMs", "SM", "132"),
        ("Launch Statistics", "Waves Per SM", "", "2"),
        ("Occupancy", "Block Limit SM", "block", "32"),
        ("Occupancy", "Block Limit Registers", "block", "1"),
        ("Occupancy", "Block Limit Shared Mem", "block", "1"),
        ("Occupancy", "Block Limit Warps", "block", "5"),
        ("Occupancy", "Theoretical Occupancy", "%", ncu_theoretical),
        ("Occupancy", "Achieved Occupancy", "%", "18.21"),
    ];
    let mut csv = String::from(
        "\"ID\",\"Process ID\",\"Process Name\",\"Host Name\",\"Kernel Name\",\"Context\",\
         \"Stream\",\"Block Size\",\"Grid Size\",\"Device\",\"CC\",\"Section Name\",\
         \"Metric Name\",\"Metric Unit\",\"Metric Value\"\n",
    );
    for (section, metric, unit, value) in metrics {
        csv.push_str(&format!(
            "{base},\"{section}\",\"{metric}\",\"{unit}\",\"{value}\"\n"
        ));
    }
    let path = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name);
    std::fs::write(&path, csv).unwrap();
    path
}

/// Launch IDs are ncu's integers; a larger shared-memory configuration than the default
/// carveout gives (the engine predicts 132 KiB for 131 KiB + 1 KiB reserved, the library
/// asked for 228 KiB) with the same occupancy and block limits is a note, exit 0; with an
/// occupancy that differs it is a disagreement, exit 1.
#[test]
fn a_carveout_preference_is_a_note_unless_the_occupancy_differs() {
    let run = |path: PathBuf| {
        let out = Command::new(env!("CARGO_BIN_EXE_cargo-occupancy"))
            .args(["occupancy", "profile", "--json", "--import"])
            .arg(path)
            .current_dir(std::env::temp_dir())
            .output()
            .unwrap();
        let json: Value = serde_json::from_slice(&out.stdout).unwrap();
        (out.status.code(), json[0].clone())
    };
    let (code, launch) = run(flash_attention_csv("carveout-same.csv", "18.75"));
    assert_eq!(code, Some(0), "{launch:#}");
    assert!(
        launch["id"].is_u64() && launch["process_id"].is_u64(),
        "{launch}"
    );
    assert_eq!(
        (launch["id"].as_u64(), launch["process_id"].as_u64()),
        (Some(7), Some(2214))
    );
    assert_eq!(launch["theoretical_occupancy"], 18.75);
    assert_eq!(
        (
            launch["smem_config_bytes"].as_u64(),
            launch["ncu_smem_config_bytes"].as_u64()
        ),
        (Some(132 * 1024), Some(228 * 1024))
    );
    assert_eq!(launch["disagreements"], Value::Array(vec![]));
    assert!(
        launch["notes"].to_string().contains(
            "engine predicts 132 KiB (the default carveout), ncu reports 228 KiB: a larger \
             configuration than needed, with the same occupancy and block limits: the carveout \
             preference the program or a library set"
        ),
        "{launch:#}"
    );

    let (code, launch) = run(flash_attention_csv("carveout-differs.csv", "12.50"));
    assert_eq!(code, Some(1), "{launch:#}");
    let d = launch["disagreements"].to_string();
    assert!(
        d.contains("theoretical occupancy: engine 18.75%, ncu 12.5%"),
        "{d}"
    );
    assert!(
        d.contains("engine predicts 132 KiB (the default carveout), ncu reports 228 KiB"),
        "{d}"
    );
}

#[test]
fn names_the_wrapper_and_checks_its_registers() {
    let out = Command::new(env!("CARGO_BIN_EXE_cargo-occupancy"))
        .args(["occupancy", "profile", "--import"])
        .arg(data("saxpy.csv"))
        .arg("--crate")
        .arg(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../examples"))
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(out.status.success(), "{text}");
    assert!(
        text.contains("wrapper                    launch_saxpy (examples/saxpy.rs:"),
        "{text}"
    );
    assert!(
        text.contains("wrapper                    launch_vector_add (examples/saxpy.rs:"),
        "{text}"
    );
    assert!(
        text.contains("2 launches; the engine agrees with ncu on every one"),
        "{text}"
    );
}

#[test]
fn bad_input_is_an_error() {
    let run = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_cargo-occupancy"))
            .args(["occupancy", "profile"])
            .args(args)
            .env("PATH", "")
            .output()
            .unwrap()
    };
    let out = run(&["--import", "/nonexistent.csv"]);
    assert_eq!(out.status.code(), Some(2));
    let out = run(&["--", "./app"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("ncu is not on the PATH"));
    let empty = std::env::temp_dir().join("cargo-occupancy-profile-empty.csv");
    std::fs::write(&empty, "no csv here\n").unwrap();
    let out = run(&["--import", empty.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
}

/// Before: a launch whose `Registers Per Thread` was `NaN`, or whose block was not three
/// numbers, was "the export lacks the block size or registers per thread".
#[test]
fn an_unreadable_value_is_named_with_what_the_export_holds() {
    let text = std::fs::read_to_string(data("saxpy.csv")).unwrap();
    let edited: Vec<String> = text
        .lines()
        .map(|l| {
            if l.starts_with("\"0\",") && l.contains("\"Registers Per Thread\"") {
                l.replace("\"register/thread\",\"16\"", "\"register/thread\",\"NaN\"")
            } else if l.starts_with("\"1\",") {
                l.replace("\"(64, 1, 1)\"", "\"(64, 1\"")
            } else {
                l.to_owned()
            }
        })
        .collect();
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("profile-unreadable");
    std::fs::create_dir_all(&dir).unwrap();
    let csv = dir.join("bad.csv");
    std::fs::write(&csv, edited.join("\n")).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_cargo-occupancy"))
        .args(["occupancy", "profile", "--import"])
        .arg(&csv)
        .current_dir(std::env::temp_dir())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(
        stdout.contains("disagreement: the export's `Registers Per Thread` is `NaN`, not a count"),
        "{stdout}"
    );
    assert!(
        stdout.contains("disagreement: the export's block size `(64, 1` is not three counts"),
        "{stdout}"
    );
}
