//! `cargo occupancy report` on the examples crate and on small fixture crates.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

/// Runs `cargo-occupancy occupancy report <args>` (as cargo runs it), with no manifest or
/// policy from the environment: (exit code, stdout, stderr).
fn report(args: &[&str]) -> (i32, String, String) {
    report_in(args, None)
}

/// [`report`] with `CARGO_TARGET_DIR` set to `target_dir`.
fn report_in(args: &[&str], target_dir: Option<&Path>) -> (i32, String, String) {
    let mut command = Command::new(env!("CARGO_BIN_EXE_cargo-occupancy"));
    command
        .arg("occupancy")
        .arg("report")
        .args(args)
        .env_remove("OCCUPANCY_MANIFEST")
        .env_remove("OCCUPANCY_POLICY")
        .env_remove("CARGO_TARGET_DIR");
    if let Some(dir) = target_dir {
        command.env("CARGO_TARGET_DIR", dir);
    }
    let out = command.output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

/// A fresh crate `CARGO_TARGET_TMPDIR/<dir>` for package `name`, with `src/lib.rs`.
fn scratch_crate(dir: &str, name: &str, lib_rs: &str) -> PathBuf {
    let krate = Path::new(env!("CARGO_TARGET_TMPDIR")).join(dir);
    let _ = std::fs::remove_dir_all(&krate);
    std::fs::create_dir_all(krate.join("src")).unwrap();
    std::fs::write(
        krate.join("Cargo.toml"),
        format!("[package]\nname = \"{name}\"\nversion = \"0.0.0\"\nedition = \"2024\"\n"),
    )
    .unwrap();
    std::fs::write(krate.join("src/lib.rs"), lib_rs).unwrap();
    krate
}

fn json(args: &[&str]) -> (i32, Value) {
    let mut all = vec!["--json"];
    all.extend_from_slice(args);
    let (code, stdout, stderr) = report(&all);
    let value = serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{e}: {stdout}{stderr}"));
    (code, value)
}

fn wrapper<'a>(report: &'a Value, name: &str) -> &'a Value {
    report["wrappers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|w| w["wrapper"] == name)
        .unwrap_or_else(|| panic!("no wrapper {name} in {report:#}"))
}

/// (target, percent, findings as `lint (level)`) of each target of a wrapper.
fn rows(w: &Value) -> Vec<(String, f64, Vec<String>)> {
    w["targets"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            let target = t["target"].as_str().unwrap().to_owned();
            let findings = w["findings"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|f| f["target"] == t["target"])
                .map(|f| {
                    format!(
                        "{} ({})",
                        f["lint"].as_str().unwrap(),
                        f["level"].as_str().unwrap()
                    )
                })
                .collect();
            (target, t["occupancy_percent"].as_f64().unwrap(), findings)
        })
        .collect()
}

/// Every wrapper of the examples, with the committed manifest (the same numbers as a build
/// with NVRTC 12.9): the warnings the build shows, and no failure.
#[test]
fn examples_list_every_wrapper() {
    let examples = root().join("examples");
    let manifest = examples.join("kernels.manifest.json");
    let (code, stdout, stderr) = report(&[
        examples.to_str().unwrap(),
        "--kernel-manifest",
        manifest.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    let wrappers = [
        ("examples/conv2d.rs", "launch_conv2d"),
        ("examples/conv2d.rs", "launch_conv2d_20x20"),
        ("examples/histogram.rs", "launch_histogram_partial"),
        ("examples/histogram.rs", "launch_histogram_merge"),
        ("examples/layernorm.rs", "launch_layernorm_rows"),
        ("examples/reduce.rs", "launch_reduce_sum"),
        ("examples/saxpy.rs", "launch_saxpy"),
        ("examples/saxpy.rs", "launch_vector_add"),
        ("examples/sgemm.rs", "launch_sgemm_tiled"),
        ("examples/sgemm.rs", "launch_sgemm_128x128"),
        ("examples/softmax.rs", "launch_softmax_rows"),
        ("examples/softmax.rs", "launch_softmax_rows_cached"),
        ("examples/transpose.rs", "launch_transpose"),
    ];
    for (file, name) in wrappers {
        let line = stdout
            .lines()
            .find(|l| l.split_whitespace().nth(1) == Some(name))
            .unwrap_or_else(|| panic!("{name} missing:\n{stdout}"));
        assert!(line.starts_with(&format!("{file}:")), "{line}");
    }
    assert!(
        stdout.contains(
            "13 wrappers: 13 evaluated, 0 with constants left to the compiler, 0 with errors\n\
             findings: 0 deny-level, 5 warnings; 0 errors\n"
        ),
        "{stdout}"
    );

    let (code, report) = json(&[
        examples.to_str().unwrap(),
        "--kernel-manifest",
        manifest.to_str().unwrap(),
    ]);
    assert_eq!(code, 0);
    assert_eq!(report["wrappers"].as_array().unwrap().len(), 13);
    assert_eq!(report["manifest_origin"], "--kernel-manifest");
    // vector_add, 64 threads: the 16-block limit of sm_86 leaves 32 of 48 warps.
    let vector_add = rows(wrapper(&report, "launch_vector_add"));
    let sm86 = vector_add.iter().find(|r| r.0 == "sm_86").unwrap();
    assert!((sm86.1 - 200.0 / 3.0).abs() < 1e-9, "{sm86:?}");
    assert_eq!(sm86.2, ["low_occupancy (warn)", "block_limit (warn)"]);
    // transpose_tiled: 39 regs on sm_80 -> 75%, below its 80% floor; 100% elsewhere.
    let transpose = rows(wrapper(&report, "launch_transpose"));
    let percents: Vec<f64> = transpose.iter().map(|r| r.1).collect();
    assert_eq!(percents, [100.0, 75.0, 100.0, 100.0, 100.0, 100.0, 100.0]);
    let tiled = wrapper(&report, "launch_sgemm_tiled");
    let b200 = &tiled["targets"][5];
    assert_eq!(
        (
            b200["target"].as_str(),
            b200["registers_per_thread"].as_u64(),
            b200["cubin"].as_str()
        ),
        (Some("B200"), Some(80), Some("sm_100"))
    );
    assert_eq!(b200["occupancy_percent"], 37.5);
    // The merge pass allows undersized_grid: in the JSON at level allow, not in the table.
    let merge = wrapper(&report, "launch_histogram_merge");
    let levels: Vec<&str> = merge["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["level"].as_str().unwrap())
        .collect();
    assert!(
        !levels.is_empty() && levels.iter().all(|l| *l == "allow"),
        "{levels:?}"
    );
}

#[test]
fn warnings_only_exit_zero_and_every_spelling_is_found() {
    let (code, stdout, stderr) = report(&[fixture("report-warn").to_str().unwrap()]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    // The policy's `manifest` is the one in effect (the crate has no build script, so no
    // build output).
    assert!(
        stdout.replace("\n  ", " ").contains("resource manifest: none from a build: the crate has no build.rs (pass --kernel-manifest); `kernel = ...` falls back to the policy's `manifest`, else kernels.manifest.json"),
        "{stdout}"
    );
    let (code, report) = json(&[
        "--manifest-path",
        fixture("report-warn/Cargo.toml").to_str().unwrap(),
    ]);
    assert_eq!(code, 0);
    let names: Vec<(&str, &str)> = report["wrappers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| {
            (
                w["location"].as_str().unwrap(),
                w["wrapper"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        names,
        [
            ("src/lib.rs:10", "launch_regs"),
            ("src/lib.rs:14", "launch_min"),
            ("src/lib.rs:18", "launch_plain"),
            ("src/tiles.rs:7", "launch"),
            ("examples/demo.rs:3", "launch_demo"),
        ]
    );
    // `use occupancy::check` + `#[check]`, `block = BLOCK` with `const BLOCK: u32 = 2 * 128`:
    // the manifest's k_regs, 52 and 46 registers.
    let regs = wrapper(&report, "launch_regs");
    assert_eq!(regs["kernel"], "k_regs");
    assert_eq!(
        rows(regs),
        [
            (
                "sm_80".to_owned(),
                50.0,
                vec![
                    "low_occupancy (warn)".to_owned(),
                    "register_step (allow)".to_owned()
                ]
            ),
            (
                "sm_90".to_owned(),
                62.5,
                vec!["low_occupancy (warn)".to_owned()]
            ),
        ]
    );
    assert_eq!(
        wrapper(&report, "launch_min")["constant_inputs"],
        serde_json::json!(["block"])
    );
    // A method, its cubin relative to the crate: the sm_80 cubin on sm_86 too.
    let tiles = wrapper(&report, "launch");
    let cubins: Vec<&str> = tiles["targets"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["cubin"].as_str().unwrap())
        .collect();
    assert_eq!(cubins, ["sm_80", "sm_80"]);
    assert_eq!(tiles["findings"][0]["lint"], "partial_warp");
    assert_eq!(tiles["findings"][0]["level"], "allow");
    assert_eq!(rows(wrapper(&report, "launch_demo"))[0].1, 25.0);
    assert_eq!(report["summary"]["deny"], 0);
    assert_eq!(report["summary"]["warn"], 3);
    assert_eq!(report["failed"], false);
}

#[test]
fn deny_findings_and_errors_exit_one() {
    let (code, stdout, stderr) = report(&[fixture("report-deny").to_str().unwrap()]);
    assert_eq!(code, 1, "{stdout}{stderr}");
    // Each wrapper's heading line, then its target's row (or its error).
    let lines: Vec<&str> = stdout.lines().collect();
    let row = |name: &str| {
        let at = lines
            .iter()
            .position(|l| !l.starts_with(' ') && l.split_whitespace().nth(1) == Some(name))
            .unwrap_or_else(|| panic!("{name}: {stdout}"));
        lines[at + 1]
    };
    assert!(
        row("launch_gemm").contains("256    0 B   25% (16/64 warps)"),
        "{stdout}"
    );
    assert!(
        row("launch_gemm").ends_with("low_occupancy (deny)"),
        "{stdout}"
    );
    assert!(
        row("launch_wide").contains("2048   0 B   0% (cannot launch)"),
        "{stdout}"
    );
    assert!(
        row("launch_wide").ends_with("launch_impossible (deny)"),
        "{stdout}"
    );
    assert_eq!(
        row("launch_typo"),
        "  error: src/lib.rs:13:20: unknown key `blok`; did you mean `block`?",
        "{stdout}"
    );
    assert!(row("launch_ok").contains("100% (64/64 warps)"), "{stdout}");
    assert!(
        row("launch_bounded").contains("0% (cannot launch)  launch bounds"),
        "{stdout}"
    );
    assert!(
        row("launch_bounded").ends_with("launch_impossible (deny)"),
        "{stdout}"
    );
    assert!(
        stdout.contains(
            "5 wrappers: 4 evaluated, 0 with constants left to the compiler, 1 with errors\n\
             findings: 3 deny-level, 0 warnings; 1 error\n"
        ),
        "{stdout}"
    );
}

/// The table: one finding over several targets (the three 9.0 targets share one) is shown
/// on each of their rows, with each row's block and dynamic shared memory; every line fits
/// 100 columns; `--findings-only` keeps the rows with a finding.
#[test]
fn table_shows_each_finding_on_every_target_it_concerns() {
    let krate = scratch_crate(
        "report-table",
        "report-table",
        r#"
/// 96 registers: 25% everywhere.
#[occupancy::check(block = (16, 16), smem = 8 KiB, regs = 96, target = ["sm_90", "H100", "H200", "sm_80"])]
pub fn launch_gemm() {}

/// Fine everywhere.
#[occupancy::check(block = 256, regs = 32, target = ["sm_90", "sm_80"])]
pub fn launch_fine() {}

/// 48 threads: a partial warp (the launch's, on every target), and on sm_86 the limit of 16
/// blocks: below a 75% floor.
#[occupancy::check(block = 48, regs = 32, min_occupancy = 75%, target = ["sm_86", "sm_89"])]
pub fn launch_odd() {}
"#,
    );
    let table = |args: &[&str]| {
        let mut all = vec![krate.to_str().unwrap()];
        all.extend_from_slice(args);
        let (code, stdout, stderr) = report(&all);
        assert_eq!(code, 0, "{stdout}{stderr}");
        for line in stdout.lines() {
            assert!(
                line.chars().count() <= 100,
                "{line:?} is wider than 100 columns"
            );
        }
        stdout
            .lines()
            .skip_while(|l| !l.starts_with("location"))
            .take_while(|l| !l.is_empty())
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert_eq!(
        table(&[]),
        "\
location  wrapper -> kernel
  target          block     smem   occupancy             limiter          findings
src/lib.rs:3  launch_gemm
  sm_90           (16, 16)  8 KiB  25% (16/64 warps)     registers        low_occupancy (warn)
  H100 80GB HBM3  (16, 16)  8 KiB  25% (16/64 warps)     registers        low_occupancy (warn)
  H200            (16, 16)  8 KiB  25% (16/64 warps)     registers        low_occupancy (warn)
  sm_80           (16, 16)  8 KiB  25% (16/64 warps)     registers        low_occupancy (warn)
src/lib.rs:7  launch_fine
  sm_90           256       0 B    100% (64/64 warps)    warps,registers  -
  sm_80           256       0 B    100% (64/64 warps)    warps,registers  -
src/lib.rs:12  launch_odd
  sm_86           48        0 B    66.67% (32/48 warps)  blocks           partial_warp (warn),
                                                                          low_occupancy (warn),
                                                                          block_limit (warn)
  sm_89           48        0 B    100% (48/48 warps)    warps,blocks     partial_warp (warn)"
    );
    assert_eq!(
        table(&["--findings-only"]),
        "\
location  wrapper -> kernel
  target          block     smem   occupancy             limiter       findings
src/lib.rs:3  launch_gemm
  sm_90           (16, 16)  8 KiB  25% (16/64 warps)     registers     low_occupancy (warn)
  H100 80GB HBM3  (16, 16)  8 KiB  25% (16/64 warps)     registers     low_occupancy (warn)
  H200            (16, 16)  8 KiB  25% (16/64 warps)     registers     low_occupancy (warn)
  sm_80           (16, 16)  8 KiB  25% (16/64 warps)     registers     low_occupancy (warn)
src/lib.rs:12  launch_odd
  sm_86           48        0 B    66.67% (32/48 warps)  blocks        partial_warp (warn),
                                                                       low_occupancy (warn),
                                                                       block_limit (warn)
  sm_89           48        0 B    100% (48/48 warps)    warps,blocks  partial_warp (warn)"
    );
    // The JSON names the targets of the one finding.
    let (_, value) = json(&[krate.to_str().unwrap()]);
    let gemm = wrapper(&value, "launch_gemm");
    let targets: Vec<Vec<&str>> = gemm["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            f["targets"]
                .as_array()
                .unwrap()
                .iter()
                .map(|t| t.as_str().unwrap())
                .collect()
        })
        .collect();
    assert_eq!(
        targets,
        [vec!["sm_90", "H100 80GB HBM3", "H200"], vec!["sm_80"]]
    );
}

/// A path given on the command line is the user's choice: `--kernel-manifest
/// ../elsewhere/kernels.manifest.json`, outside the crate and its workspace, is read (the
/// containment rule is for paths named inside the crate's code, which still apply: the
/// attribute's `cubin` there is refused).
#[test]
fn a_kernel_manifest_given_on_the_command_line_is_read_wherever_it_is() {
    let base = Path::new(env!("CARGO_TARGET_TMPDIR")).join("report-given");
    let krate = scratch_crate(
        "report-given/crate",
        "report-given",
        r#"
#[occupancy::check(kernel = "k_regs", block = 256, target = "sm_90")]
pub fn launch() {}

#[occupancy::check(cubin = "../elsewhere/probe.sm_80.cubin", kernel = "k_regs", block = 256, target = "sm_80")]
pub fn launch_cubin() {}
"#,
    );
    // Its own workspace: `../elsewhere` is outside both.
    let toml = krate.join("Cargo.toml");
    let text = std::fs::read_to_string(&toml).unwrap();
    std::fs::write(&toml, format!("{text}\n[workspace]\n")).unwrap();
    let elsewhere = base.join("elsewhere");
    std::fs::create_dir_all(&elsewhere).unwrap();
    let fixtures = root().join("tests/ui/fixtures");
    std::fs::copy(
        fixtures.join("probe.manifest.json"),
        elsewhere.join("kernels.manifest.json"),
    )
    .unwrap();
    std::fs::copy(
        fixtures.join("probe.sm_80.cubin"),
        elsewhere.join("probe.sm_80.cubin"),
    )
    .unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_cargo-occupancy"))
        .args(["occupancy", "report", "--json", "--kernel-manifest"])
        .arg("../elsewhere/kernels.manifest.json")
        .current_dir(&krate)
        .env_remove("OCCUPANCY_MANIFEST")
        .env_remove("OCCUPANCY_POLICY")
        .env_remove("CARGO_TARGET_DIR")
        .output()
        .unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    let value: Value = serde_json::from_str(&stdout).unwrap();
    // k_regs: 46 registers on sm_90, 62.5%.
    let launch = wrapper(&value, "launch");
    assert_eq!(launch.get("errors"), None, "{stdout}");
    assert_eq!(rows(launch)[0].1, 62.5, "{stdout}");
    // The crate's own path to a file outside it is still refused.
    let errors = wrapper(&value, "launch_cubin")["errors"].to_string();
    assert!(
        errors.contains("outside the package's directory, its workspace root and a file given on the command line"),
        "{errors}"
    );
    assert_eq!(out.status.code(), Some(1));
}

/// A resource manifest records the SHA-256 of each kernel source it was written from: after
/// an edit of one, report says the manifest is older than the sources and how to refresh it
/// (the build's: `cargo build`; the committed one: `OCCUPANCY_WRITE_MANIFEST=1 cargo build`).
#[test]
fn a_manifest_older_than_its_sources_is_reported() {
    let krate = scratch_crate(
        "report-stale",
        "report-stale",
        "#[occupancy::check(kernel = \"k_plain\", block = 256, target = \"sm_90\")]\n\
         pub fn launch() {}\n",
    );
    let toml = krate.join("Cargo.toml");
    let text = std::fs::read_to_string(&toml).unwrap();
    std::fs::write(&toml, format!("{text}\n[workspace]\n")).unwrap();
    std::fs::create_dir_all(krate.join("kernels")).unwrap();
    let probe = root().join("occupancy-core/tests/fixtures/probe.cu");
    let source = std::fs::read(&probe).unwrap();
    std::fs::write(krate.join("kernels/probe.cu"), &source).unwrap();
    // The probe manifest, as the build helper writes it: with its source's hash.
    let mut manifest: Value = serde_json::from_str(
        &std::fs::read_to_string(root().join("tests/ui/fixtures/probe.manifest.json")).unwrap(),
    )
    .unwrap();
    manifest["sources"] = serde_json::json!([{
        "file": "probe.cu",
        "sha256": occupancy_core::resources::manifest::sha256_hex(&source),
    }]);
    // A build's output: the manifest in OUT_DIR, and the build script's directives.
    let build = krate.join("target/debug/build/report-stale-0123456789abcdef");
    std::fs::create_dir_all(build.join("out/occupancy")).unwrap();
    std::fs::write(
        build.join("out/occupancy/manifest.json"),
        manifest.to_string(),
    )
    .unwrap();
    std::fs::write(
        build.join("output"),
        format!(
            "cargo:rerun-if-changed={}\ncargo:rustc-env=OCCUPANCY_TARGETS=sm_90\n",
            krate.join("kernels").display()
        ),
    )
    .unwrap();
    let path = krate.to_str().unwrap();

    let (code, stdout, _) = report(&[path]);
    assert_eq!(code, 0, "{stdout}");
    assert!(!stdout.contains("older"), "{stdout}");

    // The kernel is edited; no build since.
    std::fs::write(
        krate.join("kernels/probe.cu"),
        [source.as_slice(), b"\n// edited\n"].concat(),
    )
    .unwrap();
    std::fs::write(krate.join("kernels/extra.cu"), "// new\n").unwrap();
    let warning = "warning: the resource manifest is older than its kernel sources in kernels/ \
                   (extra.cu is not in the manifest; probe.cu changed since the manifest was \
                   written): the numbers below are those of the sources it was written from; \
                   `cargo build` writes it afresh";
    let (code, stdout, _) = report(&[path]);
    assert_eq!(code, 0, "{stdout}");
    assert!(stdout.replace("\n  ", " ").contains(warning), "{stdout}");
    let (_, value) = json(&[path]);
    assert_eq!(
        value["manifest_stale"].as_str(),
        Some(&warning["warning: ".len()..])
    );

    // Without the build, the committed manifest: refreshed another way.
    std::fs::remove_dir_all(krate.join("target")).unwrap();
    std::fs::write(krate.join("kernels.manifest.json"), manifest.to_string()).unwrap();
    let (_, stdout, _) = report(&[path]);
    assert!(
        stdout.replace("\n  ", " ").contains(
            "are those of the sources it was written from; `OCCUPANCY_WRITE_MANIFEST=1 cargo \
             build` (or `cargo occupancy inspect --write-manifest`) writes it afresh"
        ),
        "{stdout}"
    );
}

/// Without --kernel-manifest, the newest `target/*/build/<package>-*/out/occupancy/manifest.json`.
#[test]
fn finds_the_newest_build_manifest() {
    let work = Path::new(env!("CARGO_TARGET_TMPDIR")).join("report-newest");
    let _ = std::fs::remove_dir_all(&work);
    let krate = work.join("crate");
    std::fs::create_dir_all(krate.join("src")).unwrap();
    std::fs::write(
        krate.join("Cargo.toml"),
        "[package]\nname = \"newest\"\nversion = \"0.0.0\"\nedition = \"2024\"\n",
    )
    .unwrap();
    // The parent is the crate's workspace, whose target/ cargo builds into (and where the
    // attribute may read).
    std::fs::write(
        work.join("Cargo.toml"),
        "[workspace]\nmembers = [\"crate\"]\n",
    )
    .unwrap();
    std::fs::write(
        krate.join("src/lib.rs"),
        "#[occupancy::check(kernel = \"k_plain\", block = 256, target = \"sm_90\")]\nfn launch() {}\n",
    )
    .unwrap();
    let probe =
        std::fs::read_to_string(root().join("tests/ui/fixtures/probe.manifest.json")).unwrap();
    let with_regs = |regs: u32| {
        let mut m: Value = serde_json::from_str(&probe).unwrap();
        for k in m["kernels"].as_array_mut().unwrap() {
            if k["name"] == "k_plain" {
                k["registers_per_thread"] = regs.into();
            }
        }
        m.to_string()
    };
    let write = |dir: &str, regs: u32| {
        let out = work.join(dir).join("out/occupancy");
        std::fs::create_dir_all(&out).unwrap();
        std::fs::write(out.join("manifest.json"), with_regs(regs)).unwrap();
    };
    // In the crate's target/ and in a parent's; another package's is ignored.
    write("crate/target/release/build/newest-0123abcd", 64);
    std::thread::sleep(std::time::Duration::from_millis(20));
    write("target/debug/build/newest-89ef4567", 128);
    std::thread::sleep(std::time::Duration::from_millis(20));
    write("target/debug/build/newest-extra-01234567", 200);
    let (code, found) = json(&[krate.to_str().unwrap()]);
    assert_eq!(code, 0, "{found:#}");
    assert_eq!(found["manifest_origin"], "the newest build");
    assert!(
        found["manifest"]
            .as_str()
            .unwrap()
            .ends_with("target/debug/build/newest-89ef4567/out/occupancy/manifest.json"),
        "{found:#}"
    );
    assert_eq!(
        found["wrappers"][0]["targets"][0]["registers_per_thread"],
        128
    );
    // 128 regs -> 4096 per warp -> 4 warps per sub-partition -> 16 / 8 = 2 blocks = 25%.
    assert_eq!(
        found["wrappers"][0]["targets"][0]["occupancy_percent"],
        25.0
    );

    // A newer build under a `CARGO_TARGET_DIR` outside the workspace: used, and readable
    // (the attribute reads its build script's OUT_DIR in that build).
    let outside = Path::new(env!("CARGO_TARGET_TMPDIR")).join("report-newest-target");
    let _ = std::fs::remove_dir_all(&outside);
    std::thread::sleep(std::time::Duration::from_millis(20));
    let out = outside.join("debug/build/newest-4567cdef/out/occupancy");
    std::fs::create_dir_all(&out).unwrap();
    std::fs::write(out.join("manifest.json"), with_regs(64)).unwrap();
    let (code, stdout, stderr) = report_in(&["--json", krate.to_str().unwrap()], Some(&outside));
    assert_eq!(code, 0, "{stdout}{stderr}");
    let found: Value = serde_json::from_str(&stdout).unwrap();
    assert!(
        found["manifest"].as_str().unwrap().ends_with(
            "report-newest-target/debug/build/newest-4567cdef/out/occupancy/manifest.json"
        ),
        "{found:#}"
    );
    // 64 regs -> 2048 per warp -> 8 warps per sub-partition -> 32 / 8 = 4 blocks = 50%.
    assert_eq!(
        found["wrappers"][0]["targets"][0]["occupancy_percent"], 50.0,
        "{found:#}"
    );

    // Not a crate.
    let (code, _, stderr) = report(&[work.join("target").to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(stderr.contains("no Cargo.toml there"), "{stderr}");
}

#[test]
fn a_file_that_does_not_parse_fails_the_report() {
    let krate = scratch_crate(
        "report-unparsable",
        "unparsable",
        "#[occupancy::check(block = 256, regs = 32)]\nfn ok() {}\n",
    );
    // A deny-level wrapper the report cannot see behind a syntax error.
    std::fs::write(
        krate.join("src/broken.rs"),
        "#[occupancy::check(block = 2048, regs = 32)]\nfn bad( {}\n",
    )
    .unwrap();
    let (code, out, _) = report(&[krate.to_str().unwrap()]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("error: cannot read src/broken.rs:2:"), "{out}");
    let (code, found) = json(&[krate.to_str().unwrap()]);
    assert_eq!(code, 1);
    assert_eq!(found["failed"], true);
}

/// Wrappers inside `cfg_attr` (nested too) are found; those and the ones under `#[cfg]`
/// items and `#[cfg] mod` files are checked as if the predicate held, marked conditional,
/// and fail the report like any other. A `usize` constant and a cast are read with their
/// types, as the macro reads them (the compiler confirms the values).
#[test]
fn conditional_wrappers_are_checked_and_marked() {
    let (code, stdout, stderr) = report(&[fixture("report-cfg").to_str().unwrap()]);
    assert_eq!(code, 1, "{stdout}{stderr}");
    // From the table's header on.
    let body: Vec<&str> = stdout
        .lines()
        .skip_while(|l| !l.starts_with("location"))
        .collect();
    let expected = r#"location  wrapper -> kernel
  target  block  smem  occupancy           limiter                 findings
src/broken/deeper.rs:3  launch_deeper
  sm_90   128    0 B   100% (64/64 warps)  warps,registers         -
  ^ conditional, under cfg(feature = "broken") on mod broken (src/lib.rs:7): checked as if the
    predicate held
src/broken.rs:5  launch_broken
  sm_90   2048   0 B   0% (cannot launch)  warps                   launch_impossible (deny)
  ^ conditional, under cfg(feature = "broken") on mod broken (src/lib.rs:7): checked as if the
    predicate held
src/lib.rs:13  launch_plain
  sm_90   256    0 B   100% (64/64 warps)  warps,registers         -
src/lib.rs:17  launch_nodeny
  sm_90   256    0 B   25% (16/64 warps)   registers               low_occupancy (deny)
  ^ conditional, under cfg_attr(not(feature = "nodeny")): checked as if the predicate held
src/lib.rs:24  launch_nested
  sm_90   128    0 B   100% (64/64 warps)  warps,registers         -
  ^ conditional, under cfg_attr(feature = "fast") and cfg_attr(target_os = "linux"): checked as if
    the predicates held
src/lib.rs:29  launch_usize
  sm_90   256    0 B   100% (64/64 warps)  warps,registers         -
src/lib.rs:33  launch_cast
  sm_90   256    0 B   100% (64/64 warps)  warps,registers         -
src/lib.rs:39  launch_test
  sm_90   64     0 B   100% (64/64 warps)  warps,registers,blocks  -
  ^ conditional, under cfg(test) on mod tests: checked as if the predicate held

8 wrappers: 8 evaluated, 0 with constants left to the compiler, 0 with errors
findings: 2 deny-level, 0 warnings; 0 errors
5 conditional wrappers (under #[cfg] or cfg_attr, which report does not evaluate; checked as if the
  predicates held): 2 deny-level findings, 0 errors among them, counted in the exit status like the
  others"#;
    assert_eq!(body.join("\n"), expected, "{stdout}");

    let (code, report) = json(&[fixture("report-cfg").to_str().unwrap()]);
    assert_eq!(code, 1);
    let conditional: Vec<(&str, Vec<&str>)> = report["wrappers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| {
            let predicates = w["conditional"]
                .as_array()
                .unwrap()
                .iter()
                .map(|c| c.as_str().unwrap())
                .collect();
            (w["wrapper"].as_str().unwrap(), predicates)
        })
        .collect();
    let broken = r#"cfg(feature = "broken") on mod broken (src/lib.rs:7)"#;
    assert_eq!(
        conditional,
        [
            ("launch_deeper", vec![broken]),
            ("launch_broken", vec![broken]),
            ("launch_plain", vec![]),
            (
                "launch_nodeny",
                vec![r#"cfg_attr(not(feature = "nodeny"))"#]
            ),
            (
                "launch_nested",
                vec![
                    r#"cfg_attr(feature = "fast")"#,
                    r#"cfg_attr(target_os = "linux")"#
                ]
            ),
            ("launch_usize", vec![]),
            ("launch_cast", vec![]),
            ("launch_test", vec!["cfg(test) on mod tests"]),
        ]
    );
    // The usize constant is read and confirmed: `BU` = 256 from the file.
    assert_eq!(
        wrapper(&report, "launch_usize")["confirmations"],
        serde_json::json!([{"expression": "BU", "value": 256, "from": "`BU` = 256 in src/lib.rs"}])
    );
    assert_eq!(
        rows(wrapper(&report, "launch_nodeny")),
        [(
            "sm_90".to_owned(),
            25.0,
            vec!["low_occupancy (deny)".to_owned()]
        )]
    );
    assert_eq!(report["summary"]["conditional"], 5);
    assert_eq!(report["summary"]["deny"], 2);
    assert_eq!(report["summary"]["errors"], 0);
    assert_eq!(report["failed"], true);
}

/// Issue 13, item 9: a resource manifest written from a ptxas -v log (by `inspect
/// --write-manifest`) is named as such in the note, not as a cubin.
#[test]
fn a_manifest_from_a_ptxas_log_is_named_as_one() {
    // k_call from the log: 32 registers, 64 B stack frame; 40 KiB of dynamic shared memory
    // give 5 blocks of 8 warps on sm_90 (62.5%), under an 80% floor.
    let krate = scratch_crate(
        "report-ptxas-log",
        "from-log",
        "#[occupancy::check(kernel = \"k_call\", block = 256, smem = 40 KiB, min_occupancy = 80%, target = \"sm_90\")]\nfn launch() {}\n",
    );
    let log = root().join("occupancy-core/tests/fixtures/ptxas/ptxas-12.9.sm_90.log");
    let manifest = krate.join("kernels.manifest.json");
    let out = Command::new(env!("CARGO_BIN_EXE_cargo-occupancy"))
        .args([
            "occupancy",
            "inspect",
            log.to_str().unwrap(),
            "--write-manifest",
        ])
        .arg(&manifest)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let (code, found) = json(&[krate.to_str().unwrap()]);
    assert_eq!(code, 0, "{found:#}");
    let w = wrapper(&found, "launch");
    let finding = &w["findings"][0];
    assert_eq!(finding["lint"], "low_occupancy", "{w:#}");
    let notes: Vec<&str> = finding["notes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n.as_str().unwrap())
        .collect();
    let note = notes.last().unwrap();
    assert!(
        note.starts_with("k_call: 32 regs/thread, 0 B static shared memory")
            && note.contains("from its sm_90 ptxas -v log in the resource manifest"),
        "{notes:#?}"
    );
    assert!(!note.contains("cubin"), "{note}");
}

/// A grid that is not a whole number of clusters does not launch: launch_impossible in
/// report as in the attribute and calc; a whole number of clusters launches.
#[test]
fn a_grid_of_partial_clusters_cannot_launch() {
    let krate = scratch_crate(
        "report-clusters",
        "clusters",
        "#[occupancy::check(block = 256, regs = 32, cluster = 3, grid = 1000, target = \"H200\")]\n\
         fn launch_partial() {}\n\
         #[occupancy::check(block = 256, regs = 32, cluster = 3, grid = 999, target = \"H200\")]\n\
         fn launch_whole() {}\n",
    );
    let (code, report) = json(&[krate.to_str().unwrap()]);
    assert_eq!(code, 1, "{report:#}");
    let partial = &wrapper(&report, "launch_partial")["findings"];
    assert_eq!(partial.as_array().map(Vec::len), Some(1), "{partial:#}");
    assert_eq!(partial[0]["lint"], "launch_impossible");
    assert_eq!(partial[0]["level"], "deny");
    let message = partial[0]["message"].as_str().unwrap();
    assert!(
        message.contains("a grid of 1000 blocks is not a whole number of clusters"),
        "{message}"
    );
    let whole = &wrapper(&report, "launch_whole")["findings"];
    assert!(
        whole
            .as_array()
            .unwrap()
            .iter()
            .all(|f| f["lint"] != "launch_impossible"),
        "{whole:#}"
    );
}

/// Issue 19, item 1: a member of a family with no cubin for a target (k_cluster: sm_90
/// only) is left out there, listed as such, and the rest of the family is checked; a
/// target with no member left is an error on the `kernel` key.
#[test]
fn family_members_are_left_out_where_they_have_no_cubin() {
    let krate = scratch_crate(
        "report-family-targets",
        "family_targets",
        "#[occupancy::check(kernel = [\"k_regs\", \"k_cluster\"], block = 256, target = [\"sm_80\", \"sm_90\"])]\n\
         fn launch_list() {}\n\
         #[occupancy::check(kernel = \"k_*cluster\", block = 128, target = [\"sm_80\", \"sm_90\"])]\n\
         fn launch_empty() {}\n",
    );
    let manifest = root().join("tests/ui/fixtures/probe.manifest.json");
    let (code, report) = json(&[
        krate.to_str().unwrap(),
        "--kernel-manifest",
        manifest.to_str().unwrap(),
    ]);
    assert_eq!(code, 1, "{report:#}");
    let list = wrapper(&report, "launch_list");
    let cases: Vec<(String, String, f64)> = list["targets"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            (
                t["kernel"].as_str().unwrap().to_owned(),
                t["target"].as_str().unwrap().to_owned(),
                t["occupancy_percent"].as_f64().unwrap(),
            )
        })
        .collect();
    // k_regs: 52 registers on sm_80 (4 blocks of 8 warps), 46 on sm_90 (5 blocks);
    // k_cluster: 10 registers, sm_90 only.
    let expected = [
        ("k_regs", "sm_80", 50.0),
        ("k_regs", "sm_90", 62.5),
        ("k_cluster", "sm_90", 100.0),
    ]
    .map(|(k, t, p)| (k.to_owned(), t.to_owned(), p));
    assert_eq!(cases, expected);
    assert_eq!(
        list["left_out"],
        serde_json::json!({"sm_80": ["k_cluster"]})
    );
    assert!(list.get("errors").is_none(), "{list:#}");
    let empty = wrapper(&report, "launch_empty");
    let errors = empty["errors"].as_array().unwrap();
    assert_eq!(errors.len(), 1, "{empty:#}");
    assert!(
        errors[0].as_str().unwrap().starts_with(
            "src/lib.rs:3:20: no kernel of the family `k_*cluster` has a cubin that runs on sm_80"
        ),
        "{empty:#}"
    );
}

/// Issue 19, item 4: an item the report does not need (a trait with 82 `+` bounds, a type
/// nested 70 deep) no longer makes it refuse the file: it is left out with a note, and the
/// wrappers of the file are checked; a wrapper whose body is past the limits is checked
/// from its keys, as the build does.
#[test]
fn items_past_the_limits_are_left_out_not_the_file() {
    let bounds = (0..82)
        .map(|i| format!("std::ops::Add<Output = T{i}>"))
        .collect::<Vec<_>>()
        .join(" + ");
    let deep = format!("{}u8{}", "(".repeat(70), ",)".repeat(70));
    let body = format!("{}1{}", "(".repeat(100), ")".repeat(100));
    let krate = scratch_crate(
        "report-item-limits",
        "item_limits",
        &format!(
            "pub trait WithDType: {bounds} {{}}\n\
             pub type Deep = {deep};\n\
             const BLOCK: u32 = 64;\n\
             #[occupancy::check(block = BLOCK, regs = 32, target = \"sm_90\")]\n\
             fn launch() {{}}\n\
             #[occupancy::check(block = 256, regs = 96, target = \"sm_90\")]\n\
             fn deep_body() {{ let _ = {body}; }}\n"
        ),
    );
    let (code, stdout, stderr) = report(&["--json", krate.to_str().unwrap()]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert!(
        stderr.contains(
            "note: src/lib.rs:1: `trait WithDType` is not read: `trait WithDType`: this expression or type chains too many operators and groups"
        ),
        "{stderr}"
    );
    assert!(
        stderr.contains(
            "note: src/lib.rs:2: `type Deep` is not read: `type Deep` is nested more than 64 levels deep"
        ),
        "{stderr}"
    );
    let report: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(report["unreadable"], serde_json::json!([]));
    // BLOCK read from the file: 64 threads, 32 blocks of 2 warps on sm_90.
    assert_eq!(
        rows(wrapper(&report, "launch")),
        [("sm_90".to_owned(), 100.0, Vec::new())]
    );
    // The keys alone: 256 threads at 96 registers, 2 blocks of 8 warps.
    assert_eq!(
        rows(wrapper(&report, "deep_body")),
        [(
            "sm_90".to_owned(),
            25.0,
            vec!["low_occupancy (warn)".to_owned()]
        )]
    );
}

/// `report --all`: the CUDA C++ launches of a crate's `src/cuda/*.cu` beside its wrappers,
/// checked with the kernels of `--kernel-manifest` (no build), in the table, JSON and
/// SARIF; a run-time block is listed as not checked; a deny-level finding fails the report.
#[test]
fn all_lists_the_cuda_launches_beside_the_wrappers() {
    let krate = scratch_crate("report-all", "cuda_launchers", "pub fn nothing() {}\n");
    std::fs::create_dir_all(krate.join("src/cuda")).unwrap();
    std::fs::write(
        krate.join("src/cuda/k.cu"),
        r#"#define BLOCK 1024
template <typename T, int N> __global__ void scale(T* x, int n) {}
__global__ void heavy(float* x, int n) {}
extern "C" void launch_scale(float* x, int n, int head, cudaStream_t s) {
  switch (head) {
    case 32: scale<float, 32><<<(n + 31) / 32, 32, 0, s>>>(x, n); break;
    case 128: scale<float, 128><<<(n + 127) / 128, 128, 0, s>>>(x, n); break;
  }
}
extern "C" void launch_heavy(float* x, int n, int threads, cudaStream_t s) {
  heavy<<<n, BLOCK, 64 * 1024, s>>>(x, n);
  heavy<<<n, threads, 0, s>>>(x, n);
}
"#,
    )
    .unwrap();
    // Registers as ptxas gave them (nvcc 13.5: 10 for scale, 80 for heavy), both targets.
    let kernel = |symbol: &str, regs: u32, sm: u32| {
        format!(
            "{{\"name\": \"{symbol}\", \"arch\": \"sm_{sm}\", \"origin\": \"cubin\", \"registers_per_thread\": {regs}, \
              \"static_smem_bytes\": 0, \"local_bytes\": 0, \"spill_store_bytes\": 0, \"spill_load_bytes\": 0, \"barriers\": 1}}"
        )
    };
    let mut kernels = Vec::new();
    for sm in [80, 90] {
        kernels.push(kernel("_Z5scaleIfLi32EEvPT_i", 10, sm));
        kernels.push(kernel("_Z5scaleIfLi128EEvPT_i", 10, sm));
        kernels.push(kernel("_Z5heavyPfi", 80, sm));
    }
    let manifest = krate.join("kernels.json");
    std::fs::write(
        &manifest,
        format!("{{\"format\": 1, \"kernels\": [{}]}}", kernels.join(", ")),
    )
    .unwrap();
    let dir = krate.to_str().unwrap();
    let m = manifest.to_str().unwrap();

    // Without --all: the Rust side only.
    let (code, out, _) = report(&[dir, "--kernel-manifest", m]);
    assert_eq!(code, 0, "{out}");
    assert!(!out.contains("k.cu"), "{out}");

    let (code, out, err) = report(&[dir, "--all", "--kernel-manifest", m]);
    assert_eq!(
        code, 1,
        "the 1024 x 80-register launch cannot run: {out}{err}"
    );
    assert!(out.contains("CUDA C++ launches (src; resources:"), "{out}");
    assert!(out.contains("src/cuda/k.cu:6"), "{out}");
    assert!(
        out.contains("launch_scale (scale<float, 32>, head == 32)"),
        "{out}"
    );
    assert!(out.contains("block_limit (warn)"), "{out}");
    assert!(out.contains("launch_impossible (deny)"), "{out}");
    assert!(
        out.contains("block run time, smem 0 B: run time, not checked: the block"),
        "{out}"
    );
    assert!(
        out.contains(
            "4 launch sites, 4 paths: 3 checked, 1 not checked; 2 deny-level findings, 2 warnings"
        ),
        "{out}"
    );

    let (_, out, _) = report(&[dir, "--all", "--kernel-manifest", m, "--json"]);
    let json: Value = serde_json::from_str(&out).unwrap();
    let launches = json["cuda_launches"].as_array().unwrap();
    assert_eq!(launches.len(), 4);
    let scale32 = &launches[0];
    assert_eq!(scale32["location"], "src/cuda/k.cu:6");
    assert_eq!(scale32["function"], "launch_scale");
    assert_eq!(scale32["form"], "<<<...>>>");
    assert_eq!(scale32["kernel"], "scale<float, 32>");
    assert_eq!(scale32["path_conditions"][0], "head == 32");
    let row = &scale32["targets"][0];
    assert_eq!(row["target"], "sm_80");
    assert_eq!(row["block"][0], 32);
    assert_eq!(row["registers_per_thread"], 10);
    assert_eq!(row["occupancy_percent"], 50.0);
    assert!(
        launches[3]["not_checked"][0]
            .as_str()
            .unwrap()
            .contains("`threads` is a parameter of `launch_heavy`"),
        "{:#}",
        launches[3]
    );
    assert_eq!(json["cuda"]["launch_sites"], 4);

    let (_, out, _) = report(&[dir, "--all", "--kernel-manifest", m, "--format", "sarif"]);
    let sarif: Value = serde_json::from_str(&out).unwrap();
    let results = sarif["runs"][0]["results"].as_array().unwrap();
    let impossible = results
        .iter()
        .find(|r| r["ruleId"] == "launch_impossible")
        .unwrap();
    let location = &impossible["locations"][0]["physicalLocation"];
    assert!(
        location["artifactLocation"]["uri"]
            .as_str()
            .unwrap()
            .ends_with("src/cuda/k.cu")
    );
    assert_eq!(location["region"]["startLine"], 11);
}

/// Issue 19, item 4: a wrapper written by `macro_rules!` (the attribute in the macro's body,
/// with `$name` fragments) cannot be evaluated without expansion: listed as checked only
/// by the build, with its location, never dropped.
#[test]
fn wrappers_made_by_macros_are_listed_as_checked_by_the_build() {
    let krate = scratch_crate(
        "report-macro-wrappers",
        "macro_wrappers",
        "macro_rules! launchers {\n\
         \x20   ($($name:ident => $kernel:literal),*) => {$(\n\
         \x20       #[occupancy::check(kernel = $kernel, block = 256)]\n\
         \x20       pub fn $name() {}\n\
         \x20   )*};\n\
         }\n\
         launchers!(launch_a => \"k_plain\", launch_b => \"k_regs\");\n\
         #[occupancy::check(block = 256, regs = 32, target = \"sm_90\")]\n\
         fn plain() {}\n",
    );
    let (code, listed) = json(&[krate.to_str().unwrap()]);
    assert_eq!(code, 0, "{listed:#}");
    let made = wrapper(&listed, "macro_rules! launchers");
    assert_eq!(made["location"], "src/lib.rs:3");
    assert_eq!(
        made["build_only"],
        "checked only by the build: the attribute is inside `macro_rules! launchers`, whose expansions the report does not see"
    );
    assert_eq!(wrapper(&listed, "plain")["annotated"], true);
    let (code, stdout, _) = report(&[krate.to_str().unwrap()]);
    assert_eq!(code, 0);
    assert!(
        stdout.contains("src/lib.rs:3  macro_rules! launchers\n  checked only by the build: the attribute is inside `macro_rules! launchers`"),
        "{stdout}"
    );
    assert!(
        stdout.contains("2 wrappers: 1 evaluated, 0 with constants left to the compiler, 0 with errors, 1 checked only by the\n  build"),
        "{stdout}"
    );
}

/// `report --all` on the CUDA C++ test crate (`tests/fixtures/cuda-crate`), its library
/// built by nvcc here and recorded as its build's check records it: every launch site of
/// EXPECTED.md is listed (19 `<<<` / `cudaLaunchKernelEx` lines, 41 paths; none dropped), 40 paths checked with the
/// library's kernels, `launch_scale_any`'s run-time block not checked, and the deny-level
/// findings fail the report. Needs nvcc (skips with a message without it, unless
/// `OCCUPANCY_REQUIRE_NVCC=1`).
#[test]
fn all_lists_every_launch_of_the_cuda_crate() {
    let nvcc = match occupancy_core::build::Nvcc::find(None) {
        Ok(n) => n,
        Err(why) => {
            assert_ne!(
                std::env::var("OCCUPANCY_REQUIRE_NVCC").as_deref(),
                Ok("1"),
                "{why}"
            );
            eprintln!("skipped: {why}");
            return;
        }
    };
    let krate = scratch_crate("report-cuda-crate", "cuda_crate_copy", "pub fn f() {}\n");
    let cuda = krate.join("src/cuda");
    std::fs::create_dir_all(&cuda).unwrap();
    let sources = root().join("tests/fixtures/cuda-crate/src/cuda");
    for e in std::fs::read_dir(&sources).unwrap() {
        let e = e.unwrap();
        std::fs::copy(e.path(), cuda.join(e.file_name())).unwrap();
    }
    std::fs::copy(
        root().join("tests/fixtures/cuda-crate/occupancy.toml"),
        krate.join("occupancy.toml"),
    )
    .unwrap();
    // As the fixture's build.rs builds it, into a build's OUT_DIR with the check's record.
    let target = krate.join("target");
    let out_dir = target.join("debug/build/cuda_crate_copy-0123456789abcdef/out");
    std::fs::create_dir_all(out_dir.join("occupancy")).unwrap();
    let mut objects = Vec::new();
    let mut files: Vec<PathBuf> = std::fs::read_dir(&cuda)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "cu"))
        .collect();
    files.sort();
    for f in &files {
        let o = out_dir.join(f.file_stem().unwrap()).with_extension("o");
        let status = nvcc
            .command()
            .args(["-c", "-O3", "-std=c++17", "-Xcompiler", "-fPIC"])
            .arg("-I")
            .arg(&cuda)
            .arg("-o")
            .arg(&o)
            .arg(f)
            .args([
                "-gencode",
                "arch=compute_80,code=sm_80",
                "-gencode",
                "arch=compute_90,code=sm_90",
            ])
            .status()
            .unwrap();
        assert!(status.success());
        objects.push(o);
    }
    let lib = out_dir.join("libcuda_kernels.a");
    let status = nvcc
        .command()
        .arg("--lib")
        .arg("-o")
        .arg(&lib)
        .args(&objects)
        .status()
        .unwrap();
    assert!(status.success());
    std::fs::write(
        out_dir.join("occupancy/cuda-launches.json"),
        serde_json::json!({"crate_dir": krate, "dirs": ["src/cuda"], "objects": [lib]}).to_string(),
    )
    .unwrap();

    let (code, out) = json(&[krate.to_str().unwrap(), "--all"]);
    assert_eq!(code, 1, "deny-level findings fail the report");
    // EXPECTED.md's 17 launches, the `if` chain's three `<<<` lines each a site: 19.
    assert_eq!(out["cuda"]["launch_sites"], 19, "{:#}", out["cuda"]);
    assert_eq!(out["cuda"]["paths"], 41);
    assert_eq!(out["cuda"]["checked"], 40);
    let launches = out["cuda_launches"].as_array().unwrap();
    let mut sites: Vec<String> = launches
        .iter()
        .map(|l| l["location"].as_str().unwrap().to_owned())
        .collect();
    sites.dedup();
    assert_eq!(
        sites,
        [
            "src/cuda/attention.cu:106",
            "src/cuda/elementwise.cu:81",
            "src/cuda/elementwise.cu:87",
            "src/cuda/elementwise.cu:92",
            "src/cuda/elementwise.cu:98",
            "src/cuda/elementwise.cu:105",
            "src/cuda/elementwise.cu:110",
            "src/cuda/elementwise.cu:117",
            "src/cuda/elementwise.cu:123",
            "src/cuda/gemm.cu:219",
            "src/cuda/gemm.cu:226",
            "src/cuda/gemm.cu:228",
            "src/cuda/gemm.cu:230",
            "src/cuda/gemm.cu:240",
            "src/cuda/gemm.cu:258",
            "src/cuda/reduce.cu:143",
            "src/cuda/reduce.cu:149",
            "src/cuda/reduce.cu:156",
            "src/cuda/reduce.cu:170",
        ]
    );
    let scale_any = launches
        .iter()
        .find(|l| l["location"] == "src/cuda/elementwise.cu:123")
        .unwrap();
    assert!(
        scale_any["not_checked"][0]
            .as_str()
            .unwrap()
            .contains("`block` is a parameter of `launch_scale_any`"),
        "{scale_any:#}"
    );
    let clamp = launches
        .iter()
        .find(|l| l["location"] == "src/cuda/elementwise.cu:110")
        .unwrap();
    assert_eq!(clamp["targets"][0]["occupancy_percent"], 100.0, "{clamp:#}");
}

/// A crate of three wrappers, each of which reads the policy.
const THREE_WRAPPERS: &str = "#[occupancy::check(block = 256, regs = 32)]\npub fn launch_a() {}\n\
     #[occupancy::check(block = 128, regs = 32)]\npub fn launch_b() {}\n\
     #[occupancy::check(block = 64, regs = 32)]\npub fn launch_c() {}\n";

/// Before: `report --policy missing.toml` printed the error once per wrapper, at each
/// wrapper's line, and exited 1 (as for a deny-level finding). A file given on the command
/// line that cannot be read keeps the report from running: one error naming it, exit 2, as
/// for `--kernel-manifest`; nothing on stdout in any format.
#[test]
fn a_policy_file_that_cannot_be_read_is_one_error_and_exit_2() {
    let krate = scratch_crate("report-policy-missing", "policy_missing", THREE_WRAPPERS);
    let missing = krate.join("missing.toml");
    for format in ["table", "json", "sarif"] {
        for all in [false, true] {
            let mut args = vec![
                krate.to_str().unwrap(),
                "--policy",
                missing.to_str().unwrap(),
                "--format",
                format,
            ];
            if all {
                args.push("--all");
            }
            let (code, stdout, stderr) = report(&args);
            assert_eq!((code, stdout.as_str()), (2, ""), "{args:?}: {stderr}");
            assert_eq!(
                stderr,
                format!(
                    "error: cannot read the policy file {} (given on the command line): No such \
                     file or directory (os error 2)\n",
                    missing.display()
                ),
                "{args:?}"
            );
        }
    }
}

/// Before: each problem of `occupancy.toml` was an error on every wrapper, followed by a
/// line counting them on every wrapper (two errors per wrapper for one typo, hundreds on a
/// large crate), and `--all` added them once more as "cannot read ..." under the table.
/// Now each problem is said once, with the file and line, then one line saying what fails.
#[test]
fn each_problem_of_the_policy_is_reported_once() {
    let krate = scratch_crate("report-policy-typo", "policy_typo", THREE_WRAPPERS);
    let policy = krate.join("occupancy.toml");
    std::fs::write(&policy, "min_ocupancy = \"75%\"\ntargts = [\"sm_90\"]\n").unwrap();
    let shown = policy.display();
    let expected = format!(
        "error: {shown}:1:1: unknown key `min_ocupancy`; did you mean `min_occupancy`?\n\
         error: {shown}:2:1: unknown key `targts`; did you mean `targets`?\n\
         error: the policy file {shown} has 2 problems (above); `cargo occupancy report` reads \
         it and checks nothing until it is fixed\n"
    );
    for extra in [&[][..], &["--all"], &["--json"], &["--format", "sarif"]] {
        let mut args = vec![krate.to_str().unwrap()];
        args.extend_from_slice(extra);
        let (code, stdout, stderr) = report(&args);
        assert_eq!((code, stdout.as_str()), (2, ""), "{args:?}: {stderr}");
        assert_eq!(stderr, expected, "{args:?}");
    }
    // A bad value: the same, at the value's line and column.
    std::fs::write(&policy, "targets = [\"sm_80\", \"sm_95\"]\n").unwrap();
    let (code, _, stderr) = report(&[krate.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert_eq!(
        stderr,
        format!(
            "error: {shown}:1:21: `targets`: unknown compute capability 9.5 (`sm_95`); did you \
             mean `sm_90` or `sm_100`?\n\
             error: the policy file {shown} has 1 problem (above); `cargo occupancy report` \
             reads it and checks nothing until it is fixed\n"
        )
    );
}

/// Before: `manifest = "..."` naming a file that does not exist was accepted without a word
/// (the report fell back to nothing, or read the build's manifest instead).
#[test]
fn a_policy_manifest_that_is_not_there_is_an_error_naming_where_it_was_looked_for() {
    let krate = scratch_crate("report-policy-manifest", "policy_manifest", THREE_WRAPPERS);
    let policy = krate.join("occupancy.toml");
    std::fs::write(
        &policy,
        "min_occupancy = \"60%\"\nmanifest = \"kernelz.manifest.json\"\n",
    )
    .unwrap();
    let (code, stdout, stderr) = report(&[krate.to_str().unwrap()]);
    assert_eq!((code, stdout.as_str()), (2, ""), "{stderr}");
    assert_eq!(
        stderr,
        format!(
            "error: {}:2:12: `manifest`: `kernelz.manifest.json`: no such file; looked for {} \
             (relative to the crate's directory)\n\
             error: the policy file {} has 1 problem (above); `cargo occupancy report` reads it \
             and checks nothing until it is fixed\n",
            policy.display(),
            krate.join("kernelz.manifest.json").display(),
            policy.display()
        )
    );
    // The same file once it is there: the report runs.
    std::fs::copy(
        root().join("tests/ui/fixtures/probe.manifest.json"),
        krate.join("kernelz.manifest.json"),
    )
    .unwrap();
    let (code, stdout, stderr) = report(&[krate.to_str().unwrap()]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert!(stdout.contains("3 wrappers: 3 evaluated"), "{stdout}");
}

/// C++ launchers of the kernels of the committed nvcc 13.5 library
/// (`occupancy-core/tests/fixtures/nvcc-13.5/libhost.a`): one checked, one whose kernel the
/// library lacks, one with a run-time block, and one of a kernel the files do not define (a
/// site with no path read).
const LAUNCHERS: &str = "\
extern \"C\" __global__ void c_linkage_kernel(int* x) { x[threadIdx.x] = 7; }
__global__ void scale_rows(float* x, float s) { x[threadIdx.x] *= s; }
extern \"C\" void launch_a(int* x, cudaStream_t s) {
    c_linkage_kernel<<<1, 32, 0, s>>>(x);
}
extern \"C\" void launch_b(float* f, cudaStream_t s) {
    scale_rows<<<1, 128, 0, s>>>(f, 2.0f);
}
extern \"C\" void launch_c(float* f, int block, cudaStream_t s) {
    scale_rows<<<1, block, 0, s>>>(f, 2.0f);
}
extern \"C\" void launch_d(int* x, cudaStream_t s) {
    defined_elsewhere<<<1, 64, 0, s>>>(x);
}
";

/// A crate with no Rust launch and `src/cuda/k.cu` holding [`LAUNCHERS`], checked as its
/// build script would check it (`CudaLaunches`, the record in a build's `OUT_DIR`): the
/// crate, and the lines the build script gives cargo.
fn checked_cuda_crate(dir: &str, name: &str) -> (PathBuf, Vec<String>) {
    let krate = scratch_crate(dir, name, "pub fn f() {}\n");
    std::fs::create_dir_all(krate.join("src/cuda")).unwrap();
    std::fs::write(krate.join("src/cuda/k.cu"), LAUNCHERS).unwrap();
    let out_dir = krate.join(format!("target/debug/build/{name}-0123456789abcdef/out"));
    let library = root().join("occupancy-core/tests/fixtures/nvcc-13.5/libhost.a");
    let build = occupancy_cuda::CudaLaunches::new("src/cuda")
        .crate_dir(&krate)
        .out_dir(&out_dir)
        .objects([library])
        .try_check()
        .unwrap();
    (krate, build.cargo_lines)
}

/// Before: the build script said "3 of 3 C++ launch paths are not checked" where `report
/// --all` said "4 launch sites, 4 paths: 1 checked, 3 not checked" (the build did not count
/// a site with no path read among the paths, but counted it as not checked). One count
/// now, in the same words.
#[test]
fn the_build_script_and_the_report_count_cpp_launches_alike() {
    let (krate, cargo_lines) = checked_cuda_crate("report-cuda-counts", "cuda_counts");
    let counts = "4 launch sites, 4 paths: 1 checked, 3 not checked";
    let summary: Vec<&String> = cargo_lines
        .iter()
        .filter(|l| l.contains("paths:"))
        .collect();
    assert_eq!(
        summary,
        [&format!(
            "cargo:warning=occupancy: CUDA C++ launches: {counts} (run-time values, kernels not \
             found); `cargo occupancy report --all` lists those not checked with the reason"
        )]
    );
    let (code, stdout, stderr) = report(&[krate.to_str().unwrap(), "--all"]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert!(
        stdout.ends_with(&format!("\n{counts}; 0 deny-level findings, 2 warnings\n")),
        "{stdout}"
    );
    let (_, json) = json(&[krate.to_str().unwrap(), "--all"]);
    assert_eq!(
        (
            &json["cuda"]["launch_sites"],
            &json["cuda"]["paths"],
            &json["cuda"]["checked"]
        ),
        (&4.into(), &4.into(), &1.into())
    );
    assert_eq!(json["cuda_launches"].as_array().unwrap().len(), 4);
}

/// Before: `report --all` on a crate whose launches are all C++ printed the Rust section
/// anyway: the "no build output found" manifest note (a Rust `kernel = ...` matter), an
/// empty table and "0 wrappers: ..." summary lines. Now one line says there is none.
#[test]
fn a_cpp_only_crate_has_no_empty_rust_section() {
    let (krate, _) = checked_cuda_crate("report-cuda-only", "cuda_only");
    let (code, stdout, stderr) = report(&[krate.to_str().unwrap(), "--all"]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    let head = format!(
        "crate cuda_only ({})\nRust launches: none found in the crate's Rust code (src/, \
         examples/, benches/, tests/)\n\nCUDA C++ launches (src/cuda; resources:",
        krate.display()
    );
    assert!(stdout.starts_with(&head), "{stdout}");
    for absent in ["resource manifest", "0 wrappers", "findings: "] {
        assert!(!stdout.contains(absent), "{absent}: {stdout}");
    }
    // Without --all: the one line, with what --all adds.
    let (code, stdout, _) = report(&[krate.to_str().unwrap()]);
    assert_eq!(code, 0);
    assert_eq!(
        stdout,
        format!(
            "crate cuda_only ({})\n#[occupancy::check] wrappers: none found in the crate's Rust \
             code (src/, examples/, benches/,\n  tests/); `--all` lists every kernel launch, \
             annotated or not, and the CUDA C++ ones\n",
            krate.display()
        )
    );
    // The JSON keeps its shape: no wrappers, the counts.
    let (_, json) = json(&[krate.to_str().unwrap(), "--all"]);
    assert_eq!(json["wrappers"], serde_json::json!([]));
    assert_eq!(json["summary"]["wrappers"], 0);
    assert_eq!(
        json["manifest_origin"]
            .as_str()
            .map(|o| o.starts_with("none from a build: the crate has no build.rs")),
        Some(true)
    );
}

/// Before: on a Rust crate whose `.cu` files define kernels that it compiles with NVRTC at
/// run time (no C++ launch), `report --all` printed a C++ section with an empty table and
/// "0 launch sites, 0 paths: ...". Now one line says there is no launch in them.
#[test]
fn a_rust_crate_with_kernel_sources_only_has_one_cpp_line() {
    let krate = scratch_crate("report-nvrtc-kernels", "nvrtc_kernels", THREE_WRAPPERS);
    std::fs::create_dir_all(krate.join("kernels")).unwrap();
    std::fs::write(
        krate.join("kernels/saxpy.cu"),
        "extern \"C\" __global__ void saxpy(unsigned n, float a, const float* x, float* y)\n\
         { unsigned i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) y[i] += a * x[i]; }\n",
    )
    .unwrap();
    let (code, stdout, stderr) = report(&[krate.to_str().unwrap(), "--all"]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert!(
        stdout.ends_with(
            "3 wrappers: 3 evaluated, 0 with constants left to the compiler, 0 with errors\n\
             findings: 0 deny-level, 0 warnings; 0 errors\n\n\
             CUDA C++ launches: none in the 1 .cu / .cuh file read under src, kernels\n"
        ),
        "{stdout}"
    );
    // A crate with no CUDA source at all.
    std::fs::remove_dir_all(krate.join("kernels")).unwrap();
    let (_, stdout, _) = report(&[krate.to_str().unwrap(), "--all"]);
    assert!(
        stdout.ends_with("\n\nCUDA C++ launches: none: no .cu / .cuh file under src\n"),
        "{stdout}"
    );
    let (_, json) = json(&[krate.to_str().unwrap(), "--all"]);
    assert_eq!(json["cuda"]["launch_sites"], 0);
    assert_eq!(json["cuda_launches"], serde_json::json!([]));
}

/// A candidate that cannot launch, on targets of two architectures: the report counts one
/// deny-level finding for it, as the build reports one error, and lists no lesser finding
/// (`partial_warp`: 2000 is not a multiple of 32) on the launch that cannot run.
#[test]
fn an_impossible_candidate_is_one_error_and_nothing_else() {
    let krate = scratch_crate(
        "report-impossible-candidate",
        "impossible_candidate",
        "#[occupancy::check(regs = 32, target = [\"sm_80\", \"sm_90\"], block = [128, 2000])]\n\
         pub fn launch_keys() {}\n",
    );
    let (code, out, err) = report(&[krate.to_str().unwrap()]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(
        out.contains("findings: 1 deny-level, 0 warnings; 0 errors"),
        "{out}"
    );
    assert_eq!(out.matches("launch_impossible (deny)").count(), 2, "{out}");
    assert!(!out.contains("partial_warp"), "{out}");
}

/// A new user's crate without a build script or manifest: `--all` reads its one launch as
/// `kernel = "affine_*"`, which has no resources to read. The error points at the launching
/// function (it pointed at line 1, column 10: the attribute's text, which the code does not
/// carry), and the manifest note says there is no build script rather than "build first".
#[test]
fn an_unannotated_functions_errors_point_at_it_and_no_build_script_is_said() {
    let krate = scratch_crate(
        "report-no-build-script",
        "no_build_script",
        "use std::sync::Arc;
pub struct LaunchConfig { pub grid_dim: (u32, u32, u32), pub block_dim: (u32, u32, u32), pub shared_mem_bytes: u32 }
pub trait WithDType { const DTYPE: &'static str; }
pub struct Dev;
pub struct Func;
pub struct Builder;
pub static UNARY: u8 = 0;
impl Func { pub fn builder(&self) -> Builder { Builder } }
impl Builder { pub fn launch(self, _: LaunchConfig) -> Result<(), ()> { Ok(()) } }
impl Dev { pub fn get_or_load_func(&self, _: &str, _: &u8) -> Result<Func, ()> { Ok(Func) } }
pub fn kernel_name<T: WithDType>(root: &str) -> String { format!(\"{root}_{}\", T::DTYPE) }

pub fn affine<T: WithDType>(dev: &Arc<Dev>, n: u32) -> Result<(), ()> {
    let f = dev.get_or_load_func(&kernel_name::<T>(\"affine\"), &UNARY)?;
    f.builder().launch(LaunchConfig { grid_dim: (n, 1, 1), block_dim: (256, 1, 1), shared_mem_bytes: 0 })
}
",
    );
    let (_, value) = json(&[krate.to_str().unwrap(), "--all"]);
    let w = wrapper(&value, "affine");
    assert_eq!(w["attribute"], "#[occupancy::check(kernel = \"affine_*\")]");
    let why = w["not_checked"][0].as_str().unwrap();
    assert!(
        why.starts_with("src/lib.rs:13:8: no resource manifest to read `affine_*` from"),
        "{why}"
    );
    let (_, stdout, _) = report(&[krate.to_str().unwrap(), "--all"]);
    assert!(
        stdout
            .replace("\n  ", " ")
            .contains("resource manifest: none from a build: the crate has no build.rs"),
        "{stdout}"
    );
}

/// The members of a run-time range share one diagnostic per lint and target (the worst
/// member's, the others in its note): each member's row names the lints that fire on it,
/// not only the worst one's (block = 64 showed `-` though `block_limit` flags it).
#[test]
fn every_member_of_a_range_names_its_findings_in_the_table() {
    let krate = scratch_crate(
        "report-range-rows",
        "range_rows",
        "pub struct LaunchConfig { pub grid_dim: (u32, u32, u32), pub block_dim: (u32, u32, u32), pub shared_mem_bytes: u32 }
pub struct Stream;
impl Stream { pub fn launch(&self, _: LaunchConfig) {} }

#[occupancy::check(regs = 32, target = \"sm_86\")]
pub fn doubling(s: &Stream, n: u32) {
    let mut b = 32;
    while b < n && b < 1024 {
        b *= 2;
    }
    s.launch(LaunchConfig { grid_dim: (n.div_ceil(b), 1, 1), block_dim: (b, 1, 1), shared_mem_bytes: 0 });
}
",
    );
    let (code, stdout, stderr) = report(&[krate.to_str().unwrap()]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    let row = |block: &str| {
        let head = format!("doubling (block = {block})\n");
        let at = stdout
            .find(&head)
            .unwrap_or_else(|| panic!("{head}: {stdout}"));
        stdout[at + head.len()..].lines().next().unwrap().to_owned()
    };
    assert!(
        row("32").ends_with("low_occupancy (warn), block_limit (warn)"),
        "{stdout}"
    );
    assert!(row("64").ends_with("block_limit (warn)"), "{stdout}");
    assert!(row("128").ends_with(" -"), "{stdout}");
    // Two diagnostics in all, as the build reports them.
    assert!(
        stdout.contains("findings: 0 deny-level, 2 warnings"),
        "{stdout}"
    );
}

/// Launches through a crate helper that launches the configuration it is given
/// (`launch_with(&f, cfg)`): each call is an entry with the rows of what that call passes,
/// a configuration bound with `let` included (before, such a configuration was a launch
/// where its name went out of scope, not at the call: every entry said no path made it),
/// and two calls on one line are told apart by their columns.
#[test]
fn launches_through_a_helper_are_read_at_each_call() {
    let krate = scratch_crate(
        "report-through-helper",
        "through_helper",
        "pub struct LaunchConfig { pub grid_dim: (u32, u32, u32), pub block_dim: (u32, u32, u32), pub shared_mem_bytes: u32 }
pub struct Dev;
pub struct Func;
pub struct Builder;
pub static M: u8 = 0;
impl Func { pub fn builder(&self) -> Builder { Builder } }
impl Builder { pub fn launch(self, _: LaunchConfig) -> Result<(), ()> { Ok(()) } }
impl Dev { pub fn get_or_load_func(&self, _: &str, _: &u8) -> Result<Func, ()> { Ok(Func) } }

pub fn launch_with(f: &Func, cfg: LaunchConfig) -> Result<(), ()> { f.builder().launch(cfg) }

pub fn through_helper(dev: &Dev, n: u32) -> Result<(), ()> {
    let f = dev.get_or_load_func(\"k_plain\", &M)?;
    let small = LaunchConfig { grid_dim: (n, 1, 1), block_dim: (160, 1, 1), shared_mem_bytes: 0 };
    let big = LaunchConfig { grid_dim: (n, 1, 1), block_dim: (800, 1, 1), shared_mem_bytes: 0 };
    launch_with(&f, small)?; launch_with(&f, big)?;
    launch_with(&f, LaunchConfig { grid_dim: (n, 1, 1), block_dim: (96, 1, 1), shared_mem_bytes: 0 })
}
",
    );
    let manifest = root().join("tests/fixtures/user-crate/kernels.manifest.json");
    let (_, stdout, stderr) = report(&[
        "--json",
        krate.to_str().unwrap(),
        "--all",
        "--kernel-manifest",
        manifest.to_str().unwrap(),
    ]);
    let value: Value = serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{e}: {stderr}"));
    let entries: Vec<(String, Vec<u64>)> = value["wrappers"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|w| w["wrapper"] == "through_helper")
        .map(|w| {
            let blocks: std::collections::BTreeSet<u64> = w["targets"]
                .as_array()
                .unwrap_or_else(|| panic!("rows: {w:#}"))
                .iter()
                .map(|t| t["block"][0].as_u64().unwrap())
                .collect();
            (
                w["location"].as_str().unwrap().to_owned(),
                blocks.into_iter().collect(),
            )
        })
        .collect();
    assert_eq!(
        entries,
        [
            ("src/lib.rs:16".to_owned(), vec![160]),
            ("src/lib.rs:16".to_owned(), vec![800]),
            ("src/lib.rs:17".to_owned(), vec![96]),
        ]
    );
}

/// Two launches written on one line are two entries of `--all`, each with its own path's
/// rows (the launch is told apart by its column, not its line alone: before, each entry held
/// both launches' rows, so every row was listed twice); and the summary counts them as
/// launches of one function.
#[test]
fn two_launches_on_one_line_are_listed_once_each() {
    let krate = scratch_crate(
        "report-one-line",
        "one_line",
        "pub struct LaunchConfig { pub grid_dim: (u32, u32, u32), pub block_dim: (u32, u32, u32), pub shared_mem_bytes: u32 }
pub struct Dev;
pub struct Func;
pub struct Builder;
pub static M: u8 = 0;
impl Func { pub fn builder(&self) -> Builder { Builder } }
impl Builder { pub fn launch(self, _: LaunchConfig) -> Result<(), ()> { Ok(()) } }
impl Dev { pub fn get_or_load_func(&self, _: &str, _: &u8) -> Result<Func, ()> { Ok(Func) } }

pub fn one_line(dev: &Dev, big: bool, n: u32) -> Result<(), ()> {
    let f = dev.get_or_load_func(\"k_plain\", &M)?;
    if big { f.builder().launch(LaunchConfig { grid_dim: (n, 1, 1), block_dim: (64, 1, 1), shared_mem_bytes: 0 }) } else { f.builder().launch(LaunchConfig { grid_dim: (n, 1, 1), block_dim: (256, 1, 1), shared_mem_bytes: 0 }) }
}

pub fn dead_on_one_line(dev: &Dev, k: u32, n: u32) -> Result<(), ()> {
    let f = dev.get_or_load_func(\"k_plain\", &M)?;
    if k > 5 && k < 3 { f.builder().launch(LaunchConfig { grid_dim: (n, 1, 1), block_dim: (32, 1, 1), shared_mem_bytes: 0 }) } else { f.builder().launch(LaunchConfig { grid_dim: (n, 1, 1), block_dim: (1024, 1, 1), shared_mem_bytes: 0 }) }
}
",
    );
    let manifest = root().join("tests/fixtures/user-crate/kernels.manifest.json");
    let args = [
        krate.to_str().unwrap(),
        "--all",
        "--kernel-manifest",
        manifest.to_str().unwrap(),
    ];
    let mut with_json = vec!["--json"];
    with_json.extend_from_slice(&args);
    let (_, stdout, stderr) = report(&with_json);
    let value: Value = serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{e}: {stderr}"));
    let of = |name: &str| -> Vec<Value> {
        value["wrappers"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|w| w["wrapper"] == name)
            .cloned()
            .collect()
    };
    let blocks: Vec<Vec<u64>> = of("one_line")
        .iter()
        .map(|w| {
            assert_eq!(w["location"], "src/lib.rs:12", "{w}");
            w["targets"]
                .as_array()
                .unwrap()
                .iter()
                .map(|t| t["block"][0].as_u64().unwrap())
                .collect::<std::collections::BTreeSet<u64>>()
                .into_iter()
                .collect()
        })
        .collect();
    assert_eq!(blocks, [vec![64], vec![256]]);
    // A launch no path makes (`k > 5 && k < 3`) is said so; its neighbour on the line keeps
    // its own rows (it lent them to the dead launch when a launch was told by its line).
    let dead = of("dead_on_one_line");
    assert_eq!(dead.len(), 2, "{dead:#?}");
    assert!(
        dead[0]["not_checked"][0]
            .as_str()
            .is_some_and(|w| w.starts_with("no path of `dead_on_one_line`")),
        "{:#?}",
        dead[0]
    );
    assert!(
        dead[1]["targets"]
            .as_array()
            .unwrap()
            .iter()
            .all(|t| t["block"][0] == 1024),
        "{:#?}",
        dead[1]
    );
    let (_, stdout, _) = report(&args);
    assert!(
        stdout.contains("4 launches in 2 functions not annotated: 3 evaluated"),
        "{stdout}"
    );
}

/// A value the compiler confirms past `i64` and `u64` (`i128::MIN`, `1 << 100`) is written
/// in `--json` as its decimal text, where it panicked the report (a tester's case).
#[test]
fn json_writes_confirmed_values_past_64_bits_as_text() {
    let krate = scratch_crate(
        "report-json-i128",
        "report-json-i128",
        r#"
pub struct LaunchConfig { pub grid_dim: (u32, u32, u32), pub block_dim: (u32, u32, u32), pub shared_mem_bytes: u32 }
pub struct Stream;
impl Stream { pub fn launch(&self, _: LaunchConfig) {} }
pub const LIMIT: u128 = 1 << 100;

#[occupancy::check(regs = 32, target = "sm_80")]
pub fn launch_min(s: &Stream, n: i128) {
    let b = if n == i128::MIN { 256 } else { 512 };
    s.launch(LaunchConfig { grid_dim: (1, 1, 1), block_dim: (b, 1, 1), shared_mem_bytes: 0 });
}

#[occupancy::check(regs = 32, target = "sm_80")]
pub fn launch_limit(s: &Stream, n: u128) {
    let b = if n > LIMIT { 256 } else { 512 };
    s.launch(LaunchConfig { grid_dim: (1, 1, 1), block_dim: (b, 1, 1), shared_mem_bytes: 0 });
}
"#,
    );
    let (_, report) = json(&[krate.to_str().unwrap()]);
    let values = |name: &str| -> Vec<Value> {
        wrapper(&report, name)["confirmations"]
            .as_array()
            .unwrap_or_else(|| panic!("{name}: {report}"))
            .iter()
            .map(|c| c["value"].clone())
            .collect()
    };
    assert!(
        values("launch_min").contains(&Value::from("-170141183460469231731687303715884105728")),
        "{report}"
    );
    assert!(
        values("launch_limit").contains(&Value::from("1267650600228229401496703205376")),
        "{report}"
    );
}
