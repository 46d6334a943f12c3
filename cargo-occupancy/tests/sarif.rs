//! `cargo occupancy report --format sarif`: the log validates against the SARIF 2.1.0 schema
//! (the OASIS standard's, committed in `tests/data/`), holds one result per reported
//! finding at the attribute key, and the lints as rules.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Runs `cargo-occupancy occupancy report <args>` (as cargo runs it), with no manifest or
/// policy from the environment: (exit code, stdout, stderr).
fn report(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_cargo-occupancy"))
        .arg("occupancy")
        .arg("report")
        .args(args)
        .env_remove("OCCUPANCY_MANIFEST")
        .env_remove("OCCUPANCY_POLICY")
        .env_remove("CARGO_TARGET_DIR")
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

fn parse(stdout: &str, stderr: &str) -> Value {
    serde_json::from_str(stdout).unwrap_or_else(|e| panic!("{e}: {stdout}{stderr}"))
}

/// The schema's complaints about `log`, one line each (none: valid). Formats (`uri`) are
/// checked too.
fn schema_errors(log: &Value) -> Vec<String> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/sarif-schema-2.1.0.json");
    let schema: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let validator = jsonschema::options()
        .should_validate_formats(true)
        .build(&schema)
        .unwrap();
    validator
        .iter_errors(log)
        .map(|e| format!("{}: {e}", e.instance_path()))
        .collect()
}

/// The source text a result's region covers (one line).
fn region_text(result: &Value) -> String {
    let location = &result["locations"][0]["physicalLocation"];
    let uri = location["artifactLocation"]["uri"].as_str().unwrap();
    let path = uri.strip_prefix("file://").unwrap();
    let region = &location["region"];
    let line = region["startLine"].as_u64().unwrap() as usize;
    assert_eq!(region["endLine"], region["startLine"], "{region}");
    let (start, end) = (
        region["startColumn"].as_u64().unwrap() as usize,
        region["endColumn"].as_u64().unwrap() as usize,
    );
    let text = std::fs::read_to_string(path).unwrap();
    let line: Vec<char> = text.lines().nth(line - 1).unwrap().chars().collect();
    line[start - 1..end - 1].iter().collect()
}

/// The results as (rule, level, wrapper, target, key the region covers).
fn results(log: &Value) -> Vec<(String, String, String, String, String)> {
    let rules = &log["runs"][0]["tool"]["driver"]["rules"];
    log["runs"][0]["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            let index = r["ruleIndex"].as_u64().unwrap() as usize;
            assert_eq!(rules[index]["id"], r["ruleId"], "ruleIndex names the rule");
            (
                r["ruleId"].as_str().unwrap().to_owned(),
                r["level"].as_str().unwrap().to_owned(),
                r["properties"]["wrapper"].as_str().unwrap().to_owned(),
                r["properties"]["target"].as_str().unwrap_or("-").to_owned(),
                region_text(r),
            )
        })
        .collect()
}

#[test]
fn examples_log_validates_with_one_result_per_finding() {
    let examples = root().join("examples");
    let manifest = examples.join("kernels.manifest.json");
    let args = [
        examples.to_str().unwrap(),
        "--kernel-manifest",
        manifest.to_str().unwrap(),
    ];
    let (code, stdout, stderr) = report(&[&["--format", "sarif"], &args[..]].concat());
    assert_eq!(code, 0, "{stdout}{stderr}");
    let log = parse(&stdout, &stderr);
    assert_eq!(schema_errors(&log), Vec::<String>::new());
    assert_eq!(log["version"], "2.1.0");

    // The same findings as the JSON report, those reported (warn or deny) and in its order.
    let (code, stdout, stderr) = report(&[&["--json"], &args[..]].concat());
    assert_eq!(code, 0);
    let json = parse(&stdout, &stderr);
    let mut reported = Vec::new();
    for w in json["wrappers"].as_array().unwrap() {
        for f in w["findings"].as_array().unwrap() {
            if f["level"] != "allow" {
                reported.push((w, f));
            }
        }
    }
    let run = &log["runs"][0];
    let sarif = run["results"].as_array().unwrap();
    assert_eq!(sarif.len(), reported.len());
    assert_eq!(sarif.len(), 5, "the 5 warnings of the examples' build");
    for (result, (w, f)) in sarif.iter().zip(&reported) {
        assert_eq!(result["ruleId"], f["lint"]);
        assert_eq!(result["properties"]["wrapper"], w["wrapper"]);
        // The message as the build prints it: the line with the numbers, notes, helps.
        let text = result["message"]["text"].as_str().unwrap();
        let first = f["message"].as_str().unwrap();
        assert!(text.starts_with(&format!("{first}\n= note: ")), "{text}");
        // The file of the wrapper's attribute, as an absolute URI.
        let file = w["location"].as_str().unwrap().split(':').next().unwrap();
        let uri = result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
            .as_str()
            .unwrap();
        assert!(
            uri.starts_with("file:///") && uri.ends_with(&format!("/examples/{file}")),
            "{uri}"
        );
    }
    assert_eq!(
        results(&log),
        [
            (
                "partial_warp",
                "warning",
                "launch_conv2d_20x20",
                "-",
                "conv2d_config((20, 20), SMEM_20X20, shape)"
            ),
            (
                "low_occupancy",
                "warning",
                "launch_vector_add",
                "sm_86",
                "(VECTOR_ADD_BLOCK, 1, 1)"
            ),
            (
                "block_limit",
                "warning",
                "launch_vector_add",
                "sm_86",
                "(VECTOR_ADD_BLOCK, 1, 1)"
            ),
            (
                "low_occupancy",
                "warning",
                "launch_sgemm_tiled",
                "B200",
                "kernel"
            ),
            (
                "low_occupancy",
                "warning",
                "launch_transpose",
                "sm_80",
                "kernel"
            ),
        ]
        .map(|(a, b, c, d, e)| (a.into(), b.into(), c.into(), d.into(), e.into()))
    );
    let vector_add = &sarif[1];
    assert_eq!(
        vector_add["message"]["text"]
            .as_str()
            .unwrap()
            .lines()
            .next(),
        Some("launch_vector_add on sm_86: 66.67% occupancy (32 of 48 warps), below the 75% floor")
    );
    // The block is read from the body: the result points at the body's `block_dim`, the
    // line of examples/examples/saxpy.rs that states it.
    let source = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/examples/saxpy.rs"),
    )
    .unwrap();
    let line = source
        .lines()
        .position(|l| l.contains("block_dim: (VECTOR_ADD_BLOCK, 1, 1)"))
        .unwrap()
        + 1;
    assert_eq!(
        vector_add["locations"][0]["physicalLocation"]["region"]["startLine"], line as u64,
        "the body's block_dim"
    );

    // Every lint is a rule, in the lints' order, with its documentation as help.
    let rules = run["tool"]["driver"]["rules"].as_array().unwrap();
    let ids: Vec<&str> = rules.iter().map(|r| r["id"].as_str().unwrap()).collect();
    assert_eq!(
        ids,
        [
            "launch_impossible",
            "low_occupancy",
            "partial_warp",
            "register_step",
            "smem_step",
            "block_limit",
            "barrier_limit",
            "carveout_limit",
            "register_spill",
            "launch_bounds_mismatch",
            "tail_effect",
            "undersized_grid",
            "cluster_limit",
        ]
    );
    for rule in rules {
        let help = rule["help"]["markdown"].as_str().unwrap();
        assert!(
            help.starts_with("### What it does\n") && help.contains("\n### Example\n"),
            "{help}"
        );
        let level = &rule["defaultConfiguration"]["level"];
        let expected = if rule["id"] == "launch_impossible" {
            "error"
        } else {
            "warning"
        };
        assert_eq!(level, expected, "{}", rule["id"]);
    }
    assert_eq!(run["tool"]["driver"]["name"], "cargo-occupancy");
    assert_eq!(run["columnKind"], "unicodeCodePoints");
    assert_eq!(
        run["invocations"][0]["toolExecutionNotifications"],
        serde_json::json!([])
    );
}

#[test]
fn deny_findings_are_errors_and_attribute_errors_notifications() {
    let crate_dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/report-deny");
    let (code, stdout, stderr) = report(&["--format", "sarif", crate_dir.to_str().unwrap()]);
    assert_eq!(code, 1, "deny-level findings fail, as in the other formats");
    let log = parse(&stdout, &stderr);
    assert_eq!(schema_errors(&log), Vec::<String>::new());
    assert_eq!(
        results(&log),
        [
            ("low_occupancy", "error", "launch_gemm", "sm_90", "regs"),
            (
                "launch_impossible",
                "error",
                "launch_wide",
                "sm_90",
                "block"
            ),
            (
                "launch_impossible",
                "error",
                "launch_bounded",
                "sm_80",
                "block"
            ),
        ]
        .map(|(a, b, c, d, e)| (a.into(), b.into(), c.into(), d.into(), e.into()))
    );
    // `#[occupancy::check(block = 256, regs = 96)]` on line 5: `regs` at columns 33-36.
    assert_eq!(
        log["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"],
        serde_json::json!({"startLine": 5, "startColumn": 33, "endLine": 5, "endColumn": 37})
    );
    let notifications = &log["runs"][0]["invocations"][0]["toolExecutionNotifications"];
    assert_eq!(
        notifications.as_array().unwrap().len(),
        1,
        "{notifications}"
    );
    assert_eq!(notifications[0]["level"], "error");
    assert_eq!(
        notifications[0]["message"]["text"],
        "launch_typo: error: src/lib.rs:13:20: unknown key `blok`; did you mean `block`?"
    );
}

/// The schema check is not vacuous: a wrong level, a missing message and a column of 0
/// are each rejected.
#[test]
fn the_schema_rejects_what_sarif_does_not_allow() {
    let crate_dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/report-deny");
    let (_, stdout, stderr) = report(&["--format", "sarif", crate_dir.to_str().unwrap()]);
    let log = parse(&stdout, &stderr);
    let mut wrong_level = log.clone();
    wrong_level["runs"][0]["results"][0]["level"] = "deny".into();
    let mut no_message = log.clone();
    no_message["runs"][0]["results"][0]
        .as_object_mut()
        .unwrap()
        .remove("message");
    let mut column_zero = log.clone();
    column_zero["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"]["startColumn"] =
        0.into();
    for broken in [wrong_level, no_message, column_zero] {
        assert!(!schema_errors(&broken).is_empty());
    }
}

/// `--json` stays the alias of `--format json`; the two cannot be combined.
#[test]
fn json_flag_is_format_json() {
    let crate_dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/report-deny");
    let dir = crate_dir.to_str().unwrap();
    let (_, alias, _) = report(&["--json", dir]);
    let (_, format, _) = report(&["--format", "json", dir]);
    assert!(
        alias.starts_with("{\n  \"crate\": \"report-deny\""),
        "{alias}"
    );
    assert_eq!(alias, format);
    let (_, table, _) = report(&["--format", "table", dir]);
    let (_, default, _) = report(&[dir]);
    assert!(table.starts_with("crate report-deny ("), "{table}");
    assert_eq!(table, default);
    let (code, _, stderr) = report(&["--json", "--format", "sarif", dir]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("cannot be used with"), "{stderr}");
}
