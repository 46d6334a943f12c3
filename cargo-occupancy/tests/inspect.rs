//! `cargo occupancy inspect` on the resource-reader fixtures of occupancy-core.

use std::path::{Path, PathBuf};
use std::process::Command;

use occupancy_core::resources::manifest::Manifest;
use occupancy_core::resources::ptxas;

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../occupancy-core/tests/fixtures")
}

fn inspect(args: &[&str]) -> (i32, String, String) {
    // As cargo runs it: `cargo-occupancy occupancy inspect ...`.
    let out = Command::new(env!("CARGO_BIN_EXE_cargo-occupancy"))
        .arg("occupancy")
        .arg("inspect")
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

#[test]
fn json_has_every_kernel_with_ptxas_numbers() {
    let cubin = fixtures().join("nvrtc-12.9/probe.sm_90.cubin");
    let (code, stdout, stderr) = inspect(&["--json", cubin.to_str().unwrap()]);
    assert_eq!(code, 0, "{stderr}");
    let rows: Vec<serde_json::Value> = serde_json::from_str(&stdout).unwrap();
    let log = ptxas::parse(&std::fs::read_to_string(cubin.with_extension("log")).unwrap()).unwrap();
    assert_eq!(rows.len(), log.len());
    for row in &rows {
        for key in [
            "kernel",
            "arch",
            "registers_per_thread",
            "static_smem",
            "local_bytes",
            "spill_store_bytes",
            "spill_load_bytes",
            "barriers",
            "max_threads_per_block",
            "cluster_dims",
        ] {
            assert!(row.get(key).is_some(), "{key} missing in {row}");
        }
        let e = log
            .iter()
            .find(|e| row["kernel"] == e.name.as_str())
            .unwrap();
        assert_eq!(row["arch"], "sm_90");
        assert_eq!(row["registers_per_thread"], e.registers);
        assert_eq!(row["static_smem"], e.smem_bytes);
        assert_eq!(row["local_bytes"], e.stack_frame_bytes);
        assert_eq!(row["spill_store_bytes"], e.spill_store_bytes);
        assert_eq!(row["spill_load_bytes"], e.spill_load_bytes);
        assert_eq!(row["barriers"], e.barriers.unwrap());
    }
    let k = |n: &str| rows.iter().find(|r| r["kernel"] == n).unwrap();
    assert_eq!(k("k_bounds")["max_threads_per_block"], 256);
    assert_eq!(k("k_cluster")["cluster_dims"], serde_json::json!([2, 1, 1]));
    assert_eq!(
        k("k_plain")["max_threads_per_block"],
        serde_json::Value::Null
    );
}

#[test]
fn table_reads_a_folder_and_ptx_adds_min_blocks() {
    let dir = fixtures().join("nvrtc-12.9");
    let (code, stdout, stderr) = inspect(&[dir.to_str().unwrap()]);
    assert_eq!(code, 0, "{stderr}");
    // One block per cubin; the ptxas logs beside them are not listed twice.
    assert_eq!(stdout.matches(".cubin:").count(), 6, "{stdout}");
    assert!(!stdout.contains(".log:"), "{stdout}");
    let bounds = stdout
        .lines()
        .find(|l| l.contains("k_bounds") && l.contains("sm_90 "))
        .unwrap();
    let cells: Vec<&str> = bounds.split_whitespace().collect();
    // kernel arch regs smem local spill_st/ld bar max_thr min_blk ...
    assert_eq!(
        &cells[..9],
        [
            "k_bounds", "sm_90", "16", "1024", "0", "0/0", "1", "256", "2"
        ],
        "{bounds}"
    );
    assert!(stdout.contains("tile_sum<16>"), "demangled, short");
}

#[test]
fn every_column_is_one_token() {
    // Issue 13, item 10: `spill st/ld` was two words, so tools that split on whitespace saw
    // an empty `spill` column. Every header and every row of a plain-named cubin now splits
    // into the same 13 cells.
    let cubin = fixtures().join("nvrtc-12.9/probe.sm_90.cubin");
    let (code, stdout, stderr) = inspect(&[cubin.to_str().unwrap()]);
    assert_eq!(code, 0, "{stderr}");
    let mut lines = stdout.lines().skip(1);
    let header: Vec<&str> = lines.next().unwrap().split_whitespace().collect();
    assert_eq!(
        header,
        [
            "kernel",
            "arch",
            "regs",
            "smem",
            "local",
            "spill_st/ld",
            "bar",
            "max_thr",
            "min_blk",
            "maxnreg",
            "cluster",
            "cmem[0]",
            "cuda"
        ]
    );
    let mut rows = 0;
    // The table ends at the first empty line (a note on min blocks follows it).
    for line in lines.take_while(|l| !l.trim().is_empty()) {
        assert_eq!(line.split_whitespace().count(), header.len(), "{line}");
        rows += 1;
    }
    assert_eq!(rows, 13, "{stdout}");
}

#[test]
fn writes_a_manifest_the_macro_can_read() {
    let out = std::env::temp_dir().join(format!("occupancy-inspect-{}.json", std::process::id()));
    let f = fixtures();
    let (code, _, stderr) = inspect(&[
        f.join("fatbin/probe.lz4.fatbin").to_str().unwrap(),
        "--write-manifest",
        out.to_str().unwrap(),
        "--source",
        f.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{stderr}");
    let m = Manifest::load(&out).unwrap();
    assert_eq!(m.sources.len(), 1);
    assert_eq!(m.sources[0].file, "probe.cu");
    let k = m.lookup("k_bounds", "sm_90a").unwrap();
    assert_eq!(
        (k.min_blocks_per_sm, k.max_threads_per_block()),
        (Some(2), Some(256))
    );
    assert!(
        m.lookup("k_bounds", "sm_75")
            .unwrap_err()
            .to_string()
            .contains("k_bounds (sm_80, sm_90a)")
    );
    std::fs::remove_file(out).unwrap();
}

#[test]
fn bad_inputs_are_errors_not_panics() {
    let junk = std::env::temp_dir().join(format!("occupancy-junk-{}.bin", std::process::id()));
    std::fs::write(&junk, [0x13u8, 0x37, 0, 1, 2, 3]).unwrap();
    let (code, _, stderr) = inspect(&[junk.to_str().unwrap()]);
    std::fs::remove_file(&junk).unwrap();
    assert_eq!(code, 1);
    assert!(stderr.contains("not a cubin, fatbin"), "{stderr}");
    let (code, _, stderr) = inspect(&["/nonexistent/x.cubin"]);
    assert_eq!(code, 1);
    assert!(stderr.contains("/nonexistent/x.cubin"), "{stderr}");
    assert!(!stderr.contains("panicked"));
}

#[test]
fn write_manifest_keeps_every_module_of_a_kernel_name() {
    // The same probe kernels from two toolkits, as two modules (file stems) of one build.
    let dir =
        std::env::temp_dir().join(format!("occupancy-inspect-modules-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let f = fixtures();
    let old = dir.join("old.sm_90.cubin");
    let new = dir.join("new.sm_90.cubin");
    std::fs::copy(f.join("nvrtc-11.8/probe.sm_90.cubin"), &old).unwrap();
    std::fs::copy(f.join("nvrtc-12.9/probe.sm_90.cubin"), &new).unwrap();
    let out = dir.join("m.json");
    let (code, _, stderr) = inspect(&[
        old.to_str().unwrap(),
        new.to_str().unwrap(),
        new.to_str().unwrap(), // given twice: not repeated
        "--write-manifest",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{stderr}");
    let m = Manifest::load(&out).unwrap();
    let count = |q: &str| {
        m.kernels
            .iter()
            .filter(|k| k.qualifier() == Some(q))
            .count()
    };
    let old_kernels = cubin_kernels(&old);
    assert_eq!(
        (count("old"), count("new")),
        (old_kernels, cubin_kernels(&new))
    );
    assert_eq!(m.kernels.len(), count("old") + count("new"));
    // Each by its module; the bare name is ambiguous.
    for (q, file) in [("old", &old), ("new", &new)] {
        let k = m.lookup(&format!("{q}::k_regs"), "sm_90").unwrap();
        let want = occupancy_core::resources::read(&std::fs::read(file).unwrap())
            .unwrap()
            .into_iter()
            .find(|k| k.name == "k_regs")
            .unwrap();
        assert_eq!(k.registers_per_thread, want.registers_per_thread, "{q}");
    }
    let e = m.lookup("k_regs", "sm_90").unwrap_err();
    assert_eq!(e.choices, ["new::k_regs", "old::k_regs"]);
    assert_eq!(
        m.kernels
            .iter()
            .find(|k| k.qualifier() == Some("old"))
            .unwrap()
            .artifact
            .as_deref(),
        Some(old.to_str().unwrap())
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

fn cubin_kernels(path: &Path) -> usize {
    occupancy_core::resources::read(&std::fs::read(path).unwrap())
        .unwrap()
        .len()
}

#[test]
fn objects_and_static_libraries_from_nvcc() {
    let dir = fixtures().join("nvcc-13.5");
    let object = dir.join("host.o");
    let archive = dir.join("libhost.a");
    let (code, stdout, stderr) = inspect(&[
        "--json",
        object.to_str().unwrap(),
        archive.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{stderr}");
    let rows: Vec<serde_json::Value> = serde_json::from_str(&stdout).unwrap();
    let of = |p: &Path| {
        rows.iter()
            .filter(|r| r["file"] == p.to_str().unwrap())
            .collect::<Vec<_>>()
    };
    // 12 kernels of host.cu; 14 of host.cu and host_b.cu in the library (each found in its
    // relocatable object and in the device-link object, shown once); sm_80 and sm_90.
    assert_eq!(of(&object).len(), 24);
    assert_eq!(of(&archive).len(), 28);
    let tile = of(&archive)
        .into_iter()
        .find(|r| {
            r["demangled"] == "void (anonymous namespace)::tile_copy<256>(float*, float const*)"
                && r["arch"] == "sm_90"
        })
        .unwrap();
    assert!(
        tile["kernel"].as_str().unwrap().starts_with("__nv_static_"),
        "{tile}"
    );
    assert_eq!(
        (&tile["registers_per_thread"], &tile["static_smem"]),
        (&serde_json::json!(12), &serde_json::json!(1024))
    );
    // The table names them as a person would.
    let (code, stdout, _) = inspect(&[archive.to_str().unwrap()]);
    assert_eq!(code, 0);
    assert!(
        stdout.lines().any(|l| l
            .trim_start()
            .starts_with("ops::detail::axpy<double, 512, false, (unsigned int)8> ")
            && l.contains(" sm_90 ")),
        "{stdout}"
    );
}
