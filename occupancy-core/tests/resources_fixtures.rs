//! The cubin and fatbin readers against NVIDIA's own tools, on cubins NVRTC 11.8, 12.9 and
//! 13.5 compiled from `tests/fixtures/probe.cu` (scripts/make-fixtures.py). For every cubin,
//! every kernel and every field is compared with what ptxas printed (`-Xptxas=-v`, the `.log`
//! beside it) and what `cuobjdump --dump-resource-usage` printed (the `.res` beside it); launch
//! bounds and cluster shapes with the PTX directives. No expected number is written here.
#![cfg(feature = "resources")]

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use occupancy_core::resources::{
    self, KernelResources, SmTarget, Toolkit, cubin, fatbin, ptx, ptxas,
};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

/// `cuobjdump --dump-resource-usage` output: per (arch section, function) the `KEY:value` pairs.
/// A plain cubin has one section (arch `None`); a fatbin has one per `arch = sm_XX` header.
fn parse_cuobjdump(text: &str) -> Vec<(Option<String>, String, BTreeMap<String, u64>)> {
    let mut out = Vec::new();
    let mut arch = None;
    let mut function: Option<String> = None;
    for line in text.lines() {
        let line = line.trim();
        if let Some(a) = line.strip_prefix("arch = ") {
            arch = Some(a.to_string());
        } else if let Some(f) = line.strip_prefix("Function ") {
            function = Some(f.trim_end_matches(':').to_string());
        } else if let Some(f) = function.take() {
            let fields = line
                .split_whitespace()
                .filter_map(|kv| kv.split_once(':'))
                .map(|(k, v)| (k.to_string(), v.parse::<u64>().expect("cuobjdump value")))
                .collect();
            out.push((arch.clone(), f, fields));
        }
    }
    out
}

/// The toolkit version of a fixture folder: `nvrtc-12.9` (NVRTC from PyPI, made by
/// `scripts/make-fixtures.py`) or `nvcc-13.0` (nvcc on the H200 machine: `nvcc -cubin
/// -arch=sm_XX -std=c++17 -Xptxas -v probe.cu`, its stderr as the log, `cuobjdump
/// --dump-resource-usage` as the `.res`; `version.txt` is `nvcc --version`).
fn toolkit_version(folder: &str) -> Option<&str> {
    folder
        .strip_prefix("nvrtc-")
        .or_else(|| folder.strip_prefix("nvcc-"))
}

/// Every `(toolkit folder, arch, cubin path)` fixture.
fn cubin_fixtures() -> Vec<(String, String, PathBuf)> {
    let mut out = Vec::new();
    for dir in fs::read_dir(fixtures()).unwrap() {
        let dir = dir.unwrap().path();
        let Some(folder) = dir.file_name().and_then(|n| n.to_str()).map(str::to_string) else {
            continue;
        };
        if toolkit_version(&folder).is_none() {
            continue;
        }
        for file in fs::read_dir(&dir).unwrap() {
            let path = file.unwrap().path();
            let name = path.file_name().unwrap().to_str().unwrap().to_string();
            if let Some(arch) = name
                .strip_prefix("probe.")
                .and_then(|n| n.strip_suffix(".cubin"))
            {
                out.push((folder.clone(), arch.to_string(), path));
            }
        }
    }
    out.sort();
    out
}

fn ptx_of(folder: &str) -> ptx::PtxModule {
    let dir = fixtures().join(folder);
    let file = fs::read_dir(&dir)
        .unwrap()
        .map(|f| f.unwrap().path())
        .find(|p| p.extension().is_some_and(|e| e == "ptx"))
        .expect("one PTX per toolkit");
    ptx::parse(&fs::read_to_string(file).unwrap()).unwrap()
}

/// Compares one kernel read from a cubin with ptxas's and cuobjdump's numbers for it.
fn compare(k: &KernelResources, log: &ptxas::PtxasEntry, res: &BTreeMap<String, u64>, what: &str) {
    let sm = k.arch.sm;
    assert_eq!(
        k.registers_per_thread, log.registers,
        "{what}: registers vs ptxas"
    );
    assert_eq!(
        u64::from(k.registers_per_thread),
        res["REG"],
        "{what}: registers vs cuobjdump"
    );
    assert_eq!(
        k.static_smem_bytes, log.smem_bytes,
        "{what}: static smem vs ptxas"
    );
    // cuobjdump prints the raw section size: with the 1 KiB reserve on sm_90+ (§5.2).
    let raw = u64::from(k.static_smem_bytes);
    let shared = res["SHARED"];
    assert!(
        shared == raw || (sm >= 90 && shared == raw + 1024),
        "{what}: static smem {raw} vs cuobjdump SHARED {shared}"
    );
    assert_eq!(
        k.local_bytes, log.stack_frame_bytes,
        "{what}: stack frame vs ptxas"
    );
    assert_eq!(
        u64::from(
            k.cumulative_stack_bytes
                .expect("cubins record MIN_STACK_SIZE")
        ),
        res["STACK"],
        "{what}: cumulative stack vs cuobjdump"
    );
    if let Some(c) = log.cumulative_stack_bytes {
        assert_eq!(
            k.cumulative_stack_bytes,
            Some(c),
            "{what}: cumulative stack vs ptxas"
        );
    }
    match (k.spill_store_bytes, k.spill_load_bytes) {
        (Some(s), Some(l)) => {
            assert_eq!(s, log.spill_store_bytes, "{what}: spill stores vs ptxas");
            assert_eq!(l, log.spill_load_bytes, "{what}: spill loads vs ptxas");
        }
        (None, None) => {
            // Only when the cubin cannot say: a stack frame and no ANNOTATIONS (CUDA 11).
            assert!(
                k.local_bytes > 0
                    && k.toolkit
                        < Some(Toolkit {
                            major: 12,
                            minor: 9
                        }),
                "{what}: spills unknown"
            );
        }
        other => panic!("{what}: spills half known: {other:?}"),
    }
    if let Some(b) = log.barriers {
        assert_eq!(k.barriers, Some(b), "{what}: barriers vs ptxas");
    }
    assert_eq!(
        u64::from(k.const_bank0_bytes.expect("constant bank 0")),
        res["CONSTANT[0]"],
        "{what}: cmem[0] vs cuobjdump"
    );
    if let Some(&(_, c0)) = log.cmem.iter().find(|(bank, _)| *bank == 0) {
        assert_eq!(k.const_bank0_bytes, Some(c0), "{what}: cmem[0] vs ptxas");
    }
    assert_eq!(res["LOCAL"], 0, "{what}: no legacy .nv.local");
}

#[test]
fn cubins_agree_with_ptxas_and_cuobjdump() {
    let fixtures = cubin_fixtures();
    let mut kernels_checked = 0;
    let mut spilling = 0;
    let mut archs = std::collections::BTreeSet::new();
    for (folder, arch, path) in &fixtures {
        let data = fs::read(path).unwrap();
        let parsed = cubin::parse(&data).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let log = ptxas::parse(&fs::read_to_string(path.with_extension("log")).unwrap()).unwrap();
        let res = parse_cuobjdump(&fs::read_to_string(path.with_extension("res")).unwrap());
        let version = toolkit_version(folder).unwrap();

        assert_eq!(parsed.arch.to_string(), *arch, "{}: arch", path.display());
        assert_eq!(
            parsed.toolkit,
            Some(Toolkit::parse(version).unwrap()),
            "{}: toolkit",
            path.display()
        );
        archs.insert(arch.clone());

        // The same kernels in all three.
        let mut names: Vec<&str> = parsed.kernels.iter().map(|k| k.name.as_str()).collect();
        let mut log_names: Vec<&str> = log.iter().map(|e| e.name.as_str()).collect();
        let mut res_names: Vec<&str> = res.iter().map(|r| r.1.as_str()).collect();
        names.sort();
        log_names.sort();
        res_names.sort();
        assert_eq!(names, log_names, "{}: kernels vs ptxas", path.display());
        assert_eq!(names, res_names, "{}: kernels vs cuobjdump", path.display());
        assert!(
            names.len() >= 11,
            "{}: the probe has 11 to 13 kernels",
            path.display()
        );

        for k in &parsed.kernels {
            let what = format!("{folder} {arch} {}", k.name);
            let l = log.iter().find(|e| e.name == k.name).unwrap();
            assert_eq!(l.arch, k.arch, "{what}: arch vs ptxas");
            let r = &res.iter().find(|r| r.1 == k.name).unwrap().2;
            compare(k, l, r, &what);
            kernels_checked += 1;
            if k.spill_store_bytes.unwrap_or(0) > 0 {
                spilling += 1;
            }
        }

        // Launch bounds, register caps and clusters against the PTX directives.
        let module = ptx_of(folder);
        for k in &parsed.kernels {
            let what = format!("{folder} {arch} {}", k.name);
            let e = module
                .entry(&k.name)
                .unwrap_or_else(|| panic!("{what}: not in the PTX"));
            assert_eq!(k.max_threads, e.max_threads, "{what}: .maxntid");
            assert_eq!(k.required_threads, e.required_threads, "{what}: .reqntid");
            assert_eq!(k.cluster_dims, e.cluster_dims, "{what}: .reqnctapercluster");
            assert_eq!(
                k.max_cluster_rank, e.max_cluster_rank,
                "{what}: .maxclusterrank"
            );
            if let Some(cap) = e.max_registers {
                assert_eq!(k.max_registers, Some(cap), "{what}: .maxnreg");
            }
            assert_eq!(
                k.min_blocks_per_sm, None,
                "{what}: a cubin does not record .minnctapersm"
            );
        }
    }
    // Non-vacuous: the matrix the readers were asked to cover.
    for need in [
        "sm_75", "sm_80", "sm_86", "sm_89", "sm_90", "sm_90a", "sm_100", "sm_100a", "sm_100f",
        "sm_120",
    ] {
        assert!(archs.contains(need), "no fixture for {need}");
    }
    assert!(fixtures.len() >= 21, "{} cubins", fixtures.len());
    assert!(kernels_checked >= 256, "{kernels_checked} kernels compared");
    assert!(spilling >= 18, "{spilling} spilling kernels");
    eprintln!(
        "{} cubins, {kernels_checked} kernels compared, {spilling} with spills",
        fixtures.len()
    );
}

#[test]
fn barrier_encodings_and_launch_bounds_read_as_written() {
    // The probe's kernels are built to have these properties; ptxas agrees (test above).
    for (folder, arch, path) in cubin_fixtures() {
        let parsed = cubin::parse(&fs::read(&path).unwrap()).unwrap();
        let get = |n: &str| parsed.kernels.iter().find(|k| k.name == n).unwrap();
        let what = format!("{folder} {arch}");
        assert_eq!(get("k_bar16").barriers, Some(16), "{what}");
        assert_eq!(get("k_bar4").barriers, Some(4), "{what}");
        assert_eq!(get("k_smem").barriers, Some(1), "{what}");
        assert_eq!(get("k_plain").barriers, Some(0), "{what}");
        assert_eq!(get("k_bounds").max_threads_per_block(), Some(256), "{what}");
        assert_eq!(get("k_plain").max_threads_per_block(), None, "{what}");
        assert_eq!(get("k_smem").static_smem_bytes, 4360, "{what}");
        let tile = get("_Z8tile_sumILi16EEvPfPKfS2_S2_dii");
        assert_eq!(
            tile.demangled.as_deref(),
            Some(
                "void tile_sum<16>(float*, float const*, float const*, float const*, double, int, int)"
            )
        );
        // 4 pointers, a double and two ints.
        assert_eq!(tile.param_bytes, Some(48), "{what}");
        if parsed.arch.sm >= 90 {
            assert_eq!(get("k_cluster").cluster_dims, Some([2, 1, 1]), "{what}");
        }
        let engine = get("k_bar16").to_kernel();
        assert_eq!(
            (engine.barriers, engine.registers_per_thread),
            (16, get("k_bar16").registers_per_thread)
        );
        assert_eq!(get("k_bounds").to_kernel().max_threads_per_block, Some(256));
    }
}

#[test]
fn ptx_supplies_min_blocks_per_sm() {
    let data = fs::read(fixtures().join("nvrtc-12.9/probe.sm_90.cubin")).unwrap();
    let mut kernels = cubin::parse(&data).unwrap().kernels;
    let module = ptx_of("nvrtc-12.9");
    for k in &mut kernels {
        k.apply_ptx(module.entry(&k.name).unwrap());
    }
    let get = |n: &str| kernels.iter().find(|k| k.name == n).unwrap();
    assert_eq!(get("k_bounds").min_blocks_per_sm, Some(2));
    assert_eq!(get("k_maxcluster").min_blocks_per_sm, Some(1));
    assert_eq!(get("k_plain").min_blocks_per_sm, None);
}

#[test]
fn standalone_ptxas_logs_parse() {
    // ptxas 11.8 and 12.9 run on the PTX, compared with the cubin NVRTC of the same version made.
    for (log, cubin_path) in [
        ("ptxas/ptxas-11.8.sm_90.log", "nvrtc-11.8/probe.sm_90.cubin"),
        ("ptxas/ptxas-12.9.sm_90.log", "nvrtc-12.9/probe.sm_90.cubin"),
    ] {
        let entries = ptxas::parse(&fs::read_to_string(fixtures().join(log)).unwrap()).unwrap();
        let kernels = cubin::parse(&fs::read(fixtures().join(cubin_path)).unwrap())
            .unwrap()
            .kernels;
        assert_eq!(entries.len(), kernels.len(), "{log}");
        for e in &entries {
            let k = kernels.iter().find(|k| k.name == e.name).unwrap();
            assert_eq!(
                (e.registers, e.smem_bytes, e.stack_frame_bytes),
                (k.registers_per_thread, k.static_smem_bytes, k.local_bytes),
                "{log} {}",
                e.name
            );
            let r = e.to_resources();
            assert_eq!(
                (r.arch, r.registers_per_thread),
                (SmTarget::parse("sm_90").unwrap(), k.registers_per_thread)
            );
        }
        let has_barriers = entries.iter().all(|e| e.barriers.is_some());
        assert_eq!(
            has_barriers,
            log.contains("12.9"),
            "{log}: `used N barriers` is a CUDA 12 field"
        );
    }
}

#[test]
fn fatbins_hold_the_same_cubins_compressed_or_not() {
    let dir = fixtures().join("fatbin");
    for kind in ["plain", "lz4", "zstd"] {
        let path = dir.join(format!("probe.{kind}.fatbin"));
        let data = fs::read(&path).unwrap();
        let entries = fatbin::parse(&data).unwrap();
        let summary: Vec<(fatbin::EntryKind, String)> = entries
            .iter()
            .map(|e| (e.kind, e.arch.to_string()))
            .collect();
        assert_eq!(
            summary,
            [
                (fatbin::EntryKind::Cubin, "sm_80".to_string()),
                (fatbin::EntryKind::Cubin, "sm_90a".to_string()),
                (fatbin::EntryKind::Ptx, "sm_90".to_string())
            ],
            "{kind}"
        );
        let expected_compression = match kind {
            "plain" => fatbin::Compression::None,
            "lz4" => fatbin::Compression::Lz4,
            _ => fatbin::Compression::Zstd,
        };
        for e in &entries {
            assert_eq!(e.compression, expected_compression, "{kind} {}", e.arch);
        }
        // Byte-identical to the cubins that went in.
        for e in entries
            .iter()
            .filter(|e| e.kind == fatbin::EntryKind::Cubin)
        {
            let original =
                fs::read(fixtures().join(format!("nvrtc-12.9/probe.{}.cubin", e.arch))).unwrap();
            assert_eq!(
                e.data().unwrap().as_ref(),
                original.as_slice(),
                "{kind} {}",
                e.arch
            );
        }
        let ptx_entry = entries
            .iter()
            .find(|e| e.kind == fatbin::EntryKind::Ptx)
            .unwrap();
        // nvFatbin strips comments and indentation: compare what the PTX says.
        let stored = ptx_entry.data().unwrap();
        let stored =
            ptx::parse(std::str::from_utf8(&stored).unwrap().trim_end_matches('\0')).unwrap();
        assert_eq!(stored.entries, ptx_of("nvrtc-12.9").entries, "{kind} PTX");
        assert_eq!(stored.entries.len(), 13, "{kind} PTX");

        // Kernels agree with cuobjdump's reading of the same fatbin.
        let kernels = resources::read(&data).unwrap();
        let res = parse_cuobjdump(&fs::read_to_string(path.with_extension("res")).unwrap());
        assert_eq!(kernels.len(), res.len(), "{kind}");
        for (arch, name, fields) in &res {
            let k = kernels
                .iter()
                .find(|k| &k.name == name && Some(k.arch.to_string()) == *arch)
                .unwrap_or_else(|| panic!("{kind}: {arch:?} {name}"));
            assert_eq!(u64::from(k.registers_per_thread), fields["REG"]);
            assert_eq!(
                u64::from(k.cumulative_stack_bytes.unwrap()),
                fields["STACK"]
            );
            assert_eq!(
                u64::from(k.const_bank0_bytes.unwrap()),
                fields["CONSTANT[0]"]
            );
        }
        // The PTX entry supplies what the cubins lack.
        let bounds: Vec<_> = kernels.iter().filter(|k| k.name == "k_bounds").collect();
        assert_eq!(bounds.len(), 2);
        assert!(
            bounds.iter().all(|k| k.min_blocks_per_sm == Some(2)),
            "{kind}"
        );
    }
}
