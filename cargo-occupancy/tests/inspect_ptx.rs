//! `cargo occupancy inspect --arch sm_XX file.ptx` against `ptxas -v` itself, on the PTX NVRTC
//! makes of the project's kernels (`kernels/*.cu`) and the probe kernels
//! (`occupancy-core/tests/fixtures/probe.cu`) for compute_75, compute_80 and compute_90,
//! assembled for every real architecture from sm_75 to sm_90 that can run them, with every
//! ptxas release installed (CUDA 12.9 and 13.5 in CI); and the sm_90 numbers of ptxas 12.9
//! against the H200 driver's JIT of the same PTX (`tests/data/h200/jit_vs_ptxas.tsv`, which
//! recorded that the JIT and ptxas 12.9 agree; ptxas 13.5 gives other registers for some).
//!
//! Needs NVRTC (`pip install nvidia-cuda-nvrtc-cu12`, or `OCCUPANCY_TEST_NVRTC`) and ptxas
//! (`pip install nvidia-cuda-nvcc-cu12`, or `OCCUPANCY_PTXAS`); without them it skips with a
//! message, and `OCCUPANCY_REQUIRE_PTXAS=1` (set by CI) makes that a failure.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use occupancy_core::build::{Nvrtc, Ptxas};
use occupancy_core::resources::Toolkit;
use occupancy_core::resources::ptxas::{self, PtxasEntry};

/// The ptxas release whose numbers `tests/data/h200/jit_vs_ptxas.tsv` compares with the H200
/// driver's JIT (its `pypi_*` columns: ptxas 12.9.86 from `nvidia-cuda-nvcc-cu12`).
const JIT_RECORD_PTXAS: Toolkit = Toolkit {
    major: 12,
    minor: 9,
};

const VIRTUAL: [u32; 3] = [75, 80, 90];
const REAL: [u32; 5] = [75, 80, 86, 89, 90];

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn sources() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(root().join("kernels"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "cu"))
        .collect();
    files.sort();
    files.push(root().join("occupancy-core/tests/fixtures/probe.cu"));
    files
}

/// NVRTC and ptxas, or `None` (a failure when `OCCUPANCY_REQUIRE_PTXAS=1`).
fn tools() -> Option<(Nvrtc, Ptxas)> {
    let nvrtc = std::env::var_os("OCCUPANCY_TEST_NVRTC").map(PathBuf::from);
    let found = Nvrtc::find(&[], nvrtc.as_deref())
        .map_err(|e| format!("NVRTC: {e}"))
        .and_then(|n| {
            Ptxas::find(None)
                .map(|p| (n, p))
                .map_err(|e| format!("ptxas: {e}"))
        });
    match found {
        Ok(tools) => Some(tools),
        Err(why) => {
            assert_ne!(
                std::env::var("OCCUPANCY_REQUIRE_PTXAS").as_deref(),
                Ok("1"),
                "{why}"
            );
            eprintln!("skipped: {why}");
            None
        }
    }
}

/// `ptxas -arch=sm_<sm> -v file` run here, its log parsed.
fn ptxas_v(ptxas: &Ptxas, file: &Path, sm: u32, out: &Path) -> Vec<PtxasEntry> {
    let run = Command::new(&ptxas.path)
        .arg(format!("-arch=sm_{sm}"))
        .arg("-v")
        .arg("-o")
        .arg(out)
        .arg(file)
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let log =
        String::from_utf8_lossy(&run.stdout).into_owned() + &String::from_utf8_lossy(&run.stderr);
    ptxas::parse(&log).unwrap()
}

fn inspect(args: &[String]) -> Vec<serde_json::Value> {
    inspect_with(args, None)
}

/// `inspect --json args` with `OCCUPANCY_PTXAS` set to `ptxas` when given.
fn inspect_with(args: &[String], ptxas: Option<&Ptxas>) -> Vec<serde_json::Value> {
    let mut command = Command::new(env!("CARGO_BIN_EXE_cargo-occupancy"));
    command.args(["occupancy", "inspect", "--json"]).args(args);
    if let Some(p) = ptxas {
        command.env("OCCUPANCY_PTXAS", &p.path);
    }
    let out = command.output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn inspect_on_ptx_equals_ptxas_v() {
    let Some((nvrtc, default_ptxas)) = tools() else {
        return;
    };
    let dir = tempfile_dir("inspect-ptx");
    let mut files_by_virtual = Vec::new();
    for virt in VIRTUAL {
        let mut files = Vec::new();
        for src in sources() {
            let stem = src.file_stem().unwrap().to_string_lossy().into_owned();
            let text = std::fs::read_to_string(&src).unwrap();
            let options = [
                format!("--gpu-architecture=compute_{virt}"),
                "--std=c++17".to_string(),
                format!("-I{}", src.parent().unwrap().display()),
            ];
            let out = nvrtc
                .compile(&text, &format!("{stem}.cu"), &options)
                .unwrap();
            let file = dir.join(format!("{stem}.compute_{virt}.ptx"));
            std::fs::write(&file, out.ptx).unwrap();
            files.push(file);
        }
        files_by_virtual.push((virt, files));
    }
    // Every release installed, the one inspect takes by default first.
    let mut releases = vec![default_ptxas.clone()];
    for p in Ptxas::find_all() {
        if !releases.iter().any(|r| r.version == p.version) {
            releases.push(p);
        }
    }
    // (ptxas release) -> (file name, kernel) -> inspect's sm_90 row, for the JIT comparison.
    let mut sm90_by_release: BTreeMap<Toolkit, BTreeMap<(String, String), serde_json::Value>> =
        BTreeMap::new();
    for ptxas in &releases {
        let sm90 = sm90_by_release.entry(ptxas.version).or_default();
        let compared = compare_with_ptxas_v(ptxas, &files_by_virtual, &dir, sm90);
        // 9 modules, 10 (PTX, target) pairs: 12 kernels of kernels/ and 11 probe kernels (13
        // at compute_90) x 5 + 4 targets, and 25 x 1 = 232. A kernel added or removed changes
        // it: update the figure (and docs/VERIFIED.md).
        assert_eq!(compared, 232, "(kernel, PTX, target) triples compared");
        eprintln!(
            "inspect = ptxas -v ({} {}) on {compared} (kernel, PTX, target) triples",
            ptxas.path.display(),
            ptxas.version
        );
    }

    // The JIT record is of ptxas 12.9's numbers: that release's rows, wherever it is.
    let sm90 = match sm90_by_release.get(&JIT_RECORD_PTXAS) {
        Some(rows) => rows,
        None => {
            let why = Ptxas::find_release(JIT_RECORD_PTXAS).unwrap_err();
            assert_ne!(
                std::env::var("OCCUPANCY_REQUIRE_PTXAS").as_deref(),
                Ok("1"),
                "the H200 JIT record needs ptxas {JIT_RECORD_PTXAS}: {why}"
            );
            eprintln!("skipped the H200 JIT comparison: {why}");
            std::fs::remove_dir_all(&dir).unwrap();
            return;
        }
    };
    // The same PTX (by SHA-256) as the H200's driver JIT-compiled: the same numbers.
    let record = std::fs::read_to_string(root().join("tests/data/h200/jit_vs_ptxas.tsv")).unwrap();
    let mut lines = record.lines().filter(|l| !l.starts_with('#'));
    let header: Vec<&str> = lines.next().unwrap().split('\t').collect();
    let col = |name: &str| header.iter().position(|h| *h == name).unwrap();
    let (mut same_ptx, mut other_ptx) = (0, 0);
    for line in lines {
        let c: Vec<&str> = line.split('\t').collect();
        let file = dir.join(c[col("ptx")]);
        let text = std::fs::read(&file).unwrap();
        if occupancy_core::resources::manifest::sha256_hex(&text) != c[col("ptx_sha256")] {
            other_ptx += 1; // a kernel changed since the record (or another NVRTC)
            continue;
        }
        let row = sm90
            .iter()
            .find(|((f, _), r)| {
                f == c[col("ptx")]
                    && (r["demangled"] == c[col("kernel")] || r["kernel"] == c[col("kernel")])
            })
            .map(|(_, r)| r)
            .unwrap_or_else(|| panic!("{line}: not in inspect's sm_90 rows"));
        let jit = |k: &str| c[col(k)].parse::<u64>().unwrap();
        assert_eq!(
            (
                row["registers_per_thread"].as_u64(),
                row["static_smem"].as_u64(),
                row["local_bytes"].as_u64()
            ),
            (
                Some(jit("jit_regs")),
                Some(jit("jit_smem")),
                Some(jit("jit_local"))
            ),
            "{line}"
        );
        same_ptx += 1;
    }
    eprintln!(
        "= the H200 driver's JIT on {same_ptx} kernels of the same PTX ({other_ptx} of other PTX skipped)"
    );
    // NVRTC 12.9 (CI's) makes the very PTX the H200 loaded: every recorded kernel compared.
    if nvrtc.version == (12, 9) {
        assert_eq!(
            (same_ptx, other_ptx),
            (71, 0),
            "recorded kernels: same PTX, other PTX"
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Inspect with `ptxas` against `ptxas -v` of the same ptxas, on every PTX for every real
/// architecture that can run it; the sm_90 rows go to `sm90`. Returns the triples compared.
fn compare_with_ptxas_v(
    ptxas: &Ptxas,
    files_by_virtual: &[(u32, Vec<PathBuf>)],
    dir: &Path,
    sm90: &mut BTreeMap<(String, String), serde_json::Value>,
) -> usize {
    let mut compared = 0;
    for (virt, files) in files_by_virtual {
        let reals: Vec<u32> = REAL.into_iter().filter(|&sm| sm >= *virt).collect();
        let mut args: Vec<String> = reals
            .iter()
            .flat_map(|sm| ["--arch".into(), format!("sm_{sm}")])
            .collect();
        args.extend(files.iter().map(|f| f.display().to_string()));
        let rows = inspect_with(&args, Some(ptxas));
        for file in files {
            for &sm in &reals {
                let arch = format!("sm_{sm}");
                let mine: Vec<&serde_json::Value> = rows
                    .iter()
                    .filter(|r| {
                        r["file"] == file.display().to_string().as_str()
                            && r["arch"] == arch.as_str()
                    })
                    .collect();
                let log = ptxas_v(ptxas, file, sm, &dir.join("check.cubin"));
                let what = format!("{} on {arch}", file.display());
                assert_eq!(mine.len(), log.len(), "{what}: kernels");
                assert!(!log.is_empty(), "{what}");
                for e in &log {
                    let r = mine
                        .iter()
                        .find(|r| r["kernel"] == e.name.as_str())
                        .unwrap_or_else(|| panic!("{what}: no {} from inspect", e.name));
                    let got = (
                        &r["registers_per_thread"],
                        &r["static_smem"],
                        &r["local_bytes"],
                        &r["spill_store_bytes"],
                        &r["spill_load_bytes"],
                        &r["barriers"],
                    );
                    let want = (
                        &serde_json::json!(e.registers),
                        &serde_json::json!(e.smem_bytes),
                        &serde_json::json!(e.stack_frame_bytes),
                        &serde_json::json!(e.spill_store_bytes),
                        &serde_json::json!(e.spill_load_bytes),
                        &serde_json::json!(e.barriers),
                    );
                    assert_eq!(
                        got, want,
                        "{what}: {} (regs, smem, stack, spill st/ld, barriers)",
                        e.name
                    );
                    // ptxas prints the cumulative stack only when it is not 0, cmem[0] only below sm_90.
                    assert_eq!(
                        r["cumulative_stack_bytes"].as_u64().unwrap_or(0),
                        u64::from(e.cumulative_stack_bytes.unwrap_or(0)),
                        "{what}: {} cumulative stack",
                        e.name
                    );
                    if let Some(&(_, cmem0)) = e.cmem.iter().find(|(bank, _)| *bank == 0) {
                        assert_eq!(r["const_bank0_bytes"], cmem0, "{what}: {} cmem[0]", e.name);
                    }
                    compared += 1;
                    if sm == 90 {
                        let name = file.file_name().unwrap().to_string_lossy().into_owned();
                        sm90.insert((name, e.name.clone()), (*r).clone());
                    }
                }
            }
        }
    }
    compared
}

#[test]
fn ptx_errors_say_what_to_do() {
    let Some((_, ptxas)) = tools() else { return };
    let dir = tempfile_dir("inspect-ptx-errors");
    let ptx = |version: &str, target: &str, body: &str| {
        format!(
            ".version {version}\n.target {target}\n.address_size 64\n.visible .entry k() {{\n{body}\nret;\n}}\n"
        )
    };
    // A newer PTX ISA than this ptxas reads: says so, with ptxas's log.
    let newer = dir.join("newer.ptx");
    std::fs::write(&newer, ptx("99.9", "sm_80", "")).unwrap();
    let rejected = dir.join("rejected.ptx");
    std::fs::write(&rejected, ptx("7.0", "sm_80", "not_an_instruction;")).unwrap();
    let high = dir.join("high.ptx");
    std::fs::write(&high, ptx("8.0", "sm_90", "")).unwrap();
    let run = |args: &[&str]| {
        let out = Command::new(env!("CARGO_BIN_EXE_cargo-occupancy"))
            .args(["occupancy", "inspect"])
            .args(args)
            .output()
            .unwrap();
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let (code, _, err) = run(&["--arch", "sm_80", newer.to_str().unwrap()]);
    assert_eq!(code, Some(1));
    assert!(
        err.contains("PTX ISA 99.9 (`.version 99.9`) is newer than ptxas"),
        "{err}"
    );
    assert!(
        err.contains("Unsupported .version 99.9"),
        "ptxas's log: {err}"
    );
    assert!(
        err.contains(&format!("{}, line", newer.display())),
        "the log names the file: {err}"
    );
    let (code, _, err) = run(&["--arch", "sm_80", rejected.to_str().unwrap()]);
    assert_eq!(code, Some(1));
    assert!(err.contains(&format!("ptxas {} (", ptxas.version)), "{err}");
    assert!(err.contains("rejected the PTX for sm_80"), "{err}");
    assert!(err.contains("not_an_instruction"), "ptxas's log: {err}");
    // Below its .target: not assembled (the driver cannot load it there either).
    let (code, out, err) = run(&["--arch", "sm_80", "--arch", "sm_90", high.to_str().unwrap()]);
    assert_eq!(code, Some(0), "{err}");
    assert!(
        err.contains("PTX for sm_90 (`.target sm_90`): not assembled for sm_80"),
        "{err}"
    );
    assert!(out.contains(" k ") && out.contains("sm_90"), "{out}");
    let (code, _, err) = run(&["--arch", "sm_80", high.to_str().unwrap()]);
    assert_eq!(code, Some(1), "{err}");
    // No ptxas: how to install one.
    let out = Command::new(env!("CARGO_BIN_EXE_cargo-occupancy"))
        .args([
            "occupancy",
            "inspect",
            "--arch",
            "sm_90",
            high.to_str().unwrap(),
        ])
        .env("OCCUPANCY_PTXAS", dir.join("no-such-ptxas"))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("OCCUPANCY_PTXAS=") && err.contains("cannot run"),
        "{err}"
    );
    // None anywhere (no PATH, so no python3 to find the wheels either): how to install one.
    // Not where a toolkit sits at the fixed place the search also tries.
    if !Path::new("/usr/local/cuda/bin/ptxas").exists() {
        let empty = dir.join("empty-path");
        std::fs::create_dir_all(&empty).unwrap();
        let out = Command::new(env!("CARGO_BIN_EXE_cargo-occupancy"))
            .args(["occupancy", "inspect", "--arch", "sm_90"])
            .arg(&high)
            .env_remove("OCCUPANCY_PTXAS")
            .env_remove("CUDA_PATH")
            .env_remove("CUDA_HOME")
            .env("PATH", &empty)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{err}");
        assert!(
            err.contains("no ptxas found")
                && err.contains("install it with `pip install nvidia-cuda-nvcc-cu12`"),
            "{err}"
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn ptx_directives_and_ptxas_options_are_honoured() {
    let Some((_, _)) = tools() else { return };
    let dir = tempfile_dir("inspect-ptx-directives");
    // probe.cu's k_regs needs 46 registers on sm_90 (see inspect_on_ptx_equals_ptxas_v):
    // capped by -maxrregcount, by .maxnreg, and by .maxntid + .minnctapersm.
    let ptx = std::fs::read_to_string(
        root().join("occupancy-core/tests/fixtures/nvrtc-12.9/probe.sm_90.ptx"),
    )
    .unwrap();
    let file = dir.join("probe.ptx");
    std::fs::write(&file, &ptx).unwrap();
    let row = |rows: &[serde_json::Value], k: &str| {
        rows.iter().find(|r| r["kernel"] == k).unwrap().clone()
    };
    let plain = inspect(&["--arch".into(), "sm_90".into(), file.display().to_string()]);
    assert_eq!(row(&plain, "k_regs")["registers_per_thread"], 46);
    assert_eq!(row(&plain, "k_regs")["max_registers"], 255);
    let capped = inspect(&[
        "--arch".into(),
        "sm_90".into(),
        "--ptxas-option=-maxrregcount=32".into(),
        file.display().to_string(),
    ]);
    assert_eq!(row(&capped, "k_regs")["registers_per_thread"], 32);
    assert_eq!(row(&capped, "k_regs")["max_registers"], 32);
    // The PTX's own directives: __launch_bounds__(256, 2) and __maxnreg__(32) survive.
    assert_eq!(row(&plain, "k_bounds")["max_threads_per_block"], 256);
    assert_eq!(row(&plain, "k_bounds")["min_blocks_per_sm"], 2);
    assert_eq!(row(&plain, "k_bounds")["max_registers"], 128);
    assert_eq!(row(&plain, "k_spill")["max_registers"], 32);
    // .reqntid and .maxntid + .minnctapersm written into the PTX by hand.
    let edited = add_directive(&ptx, "k_regs", ".maxntid 512, 1, 1\n.minnctapersm 3");
    let edited = add_directive(&edited, "k_plain", ".reqntid 128, 2, 1");
    let file2 = dir.join("probe_edited.ptx");
    std::fs::write(&file2, edited).unwrap();
    let rows = inspect(&["--arch".into(), "sm_90".into(), file2.display().to_string()]);
    let regs = row(&rows, "k_regs");
    // 65536 / (512 x 3) = 42.7 -> 40 (a multiple of 8): ptxas's cap, and the registers under it.
    assert_eq!(regs["max_registers"], 40, "{regs}");
    assert!(
        regs["registers_per_thread"].as_u64().unwrap() <= 40,
        "{regs}"
    );
    assert_eq!(regs["max_threads_per_block"], 512);
    assert_eq!(regs["min_blocks_per_sm"], 3);
    assert_eq!(
        row(&rows, "k_plain")["required_threads"],
        serde_json::json!([128, 2, 1])
    );
    // An option ptxas does not know, or a bad value, is the options' fault, not the PTX's.
    for (option, log) in [
        ("--ptxas-option=--bogus", "Unknown option '-bogus'"),
        (
            "--ptxas-option=-maxrregcount=abc",
            "Invalid value 'abc' for option 'maxrregcount'",
        ),
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_cargo-occupancy"))
            .args(["occupancy", "inspect", "--arch", "sm_90", option])
            .arg(&file)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{err}");
        let given = option.trim_start_matches("--ptxas-option=");
        assert!(
            err.contains(&format!(
                "refused the options given ({given}), before reading the PTX:"
            )) && err.contains(log)
                && !err.contains("rejected the PTX"),
            "{err}"
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `ptx` with `directives` after the parameter list of `.entry name(`.
fn add_directive(ptx: &str, name: &str, directives: &str) -> String {
    let start = ptx.find(&format!(".entry {name}(")).unwrap();
    let close = start + ptx[start..].find("\n)").unwrap() + 2;
    format!("{}\n{directives}{}", &ptx[..close], &ptx[close..])
}

fn tempfile_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("occupancy-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}
