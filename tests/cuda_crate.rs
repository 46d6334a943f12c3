//! The CUDA C++ test crate (`tests/fixtures/cuda-crate`: `src/cuda/*.cu` compiled by its
//! `build.rs` with nvcc into `libcuda_kernels.a`, launchers called from Rust through FFI),
//! built with plain cargo from a copy: it builds, a second build is fresh, and every launch
//! path of `launch-paths.tsv` finds its kernel instantiation among the library's kernels
//! (`resources::instantiation`) for sm_80 and sm_90, with the engine's answer for each equal
//! to the table in `EXPECTED.md` (rewritten with `OCCUPANCY_WRITE_EXPECTED=1`). And, once the
//! lead has recorded it, the H200 driver's answer for every path
//! (`tests/data/h200/cuda_crate.tsv`, from `scripts/gpu/cuda_crate_occupancy.sh`) against
//! the engine's on the resources the driver reported.
//!
//! Needs nvcc (`pip install nvidia-cuda-nvcc==13.5.37 nvidia-nvvm==13.5.37
//! nvidia-cuda-crt==13.5.37 nvidia-cuda-runtime==13.5.37 nvidia-cuda-cccl==13.3.5.0.6`, or
//! `OCCUPANCY_NVCC`); without it the build tests skip with a message, and
//! `OCCUPANCY_REQUIRE_NVCC=1` (set by CI) makes that a failure.

mod common;

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use occupancy::arch::{Arch, ComputeCapability, GPUS, Target};
use occupancy::cluster::{Cluster, ClusterDim, Topology, max_active_clusters};
use occupancy::lint::{ArtifactFacts, LaunchSpec, check};
use occupancy::occupancy::{BlockDim, Kernel, Launch, Occupancy, occupancy};
use occupancy_core::build::Nvcc;
use occupancy_core::resources::instantiation::Instantiation;
use occupancy_core::resources::{self, KernelResources, SmTarget};

const TARGETS: [u32; 2] = [80, 90];
const BEGIN: &str = "<!-- engine:begin (tests/cuda_crate.rs writes this table) -->";
const END: &str = "<!-- engine:end -->";

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn fixture() -> PathBuf {
    root().join("tests/fixtures/cuda-crate")
}

fn target_dir() -> PathBuf {
    root().join("target/fixture-cuda-crate")
}

/// nvcc, or `None` (a failure when `OCCUPANCY_REQUIRE_NVCC=1`).
fn nvcc() -> Option<Nvcc> {
    match Nvcc::find(None) {
        Ok(n) => Some(n),
        Err(why) => {
            assert_ne!(
                std::env::var("OCCUPANCY_REQUIRE_NVCC").as_deref(),
                Ok("1"),
                "{why}"
            );
            eprintln!("skipped: {why}");
            None
        }
    }
}

/// One row of `launch-paths.tsv`.
#[derive(Debug, Clone)]
struct LaunchPath {
    id: String,
    site: String,
    function: String,
    kernel: String,
    block: BlockDim,
    smem: u32,
    opt_in: Option<u32>,
    cluster: Option<ClusterDim>,
}

fn dims(text: &str) -> [u32; 3] {
    let mut d = [1u32; 3];
    for (i, part) in text.split('x').enumerate() {
        d[i] = part.parse().unwrap_or_else(|_| panic!("bad shape {text}"));
    }
    d
}

fn launch_paths() -> Vec<LaunchPath> {
    let text = std::fs::read_to_string(fixture().join("launch-paths.tsv")).unwrap();
    let mut lines = text.lines().filter(|l| !l.starts_with('#'));
    let header: Vec<&str> = lines.next().unwrap().split('\t').collect();
    assert_eq!(
        header,
        [
            "id", "site", "function", "kernel", "block", "smem", "opt_in", "cluster"
        ]
    );
    lines
        .map(|l| {
            let c: Vec<&str> = l.split('\t').collect();
            let [x, y, z] = dims(c[4]);
            LaunchPath {
                id: c[0].into(),
                site: c[1].into(),
                function: c[2].into(),
                kernel: c[3].into(),
                block: BlockDim::new(x, y, z),
                smem: c[5].parse().unwrap(),
                opt_in: (c[6] != "-").then(|| c[6].parse().unwrap()),
                cluster: (c[7] != "-").then(|| {
                    let [x, y, z] = dims(c[7]);
                    ClusterDim::new(x, y, z)
                }),
            }
        })
        .collect()
}

/// The sources' lines name each path's launch: its kernel, and `<<<` or `cudaLaunchKernelEx`,
/// in its launching function.
#[test]
fn launch_paths_point_at_their_launches() {
    let paths = launch_paths();
    assert_eq!(paths.len(), 40);
    for p in &paths {
        let (file, line) = p.site.rsplit_once(':').unwrap();
        let line: usize = line.parse().unwrap();
        let text = std::fs::read_to_string(fixture().join(file)).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        let at = lines[line - 1];
        let base = p.kernel.split('<').next().unwrap();
        assert!(
            at.contains(base) && (at.contains("<<<") || at.contains("cudaLaunchKernelEx")),
            "{}: line {line} is `{at}`",
            p.id
        );
        let before = lines[..line].join("\n");
        let opens = before
            .rfind(&format!(" {}(", p.function))
            .unwrap_or_else(|| panic!("{}: {} is not defined above line {line}", p.id, p.function));
        assert!(
            !before[opens..].contains("\n}\n"),
            "{}: line {line} is not in {}",
            p.id,
            p.function
        );
    }
}

/// `cargo build -v` in `dir`; whether it succeeded and its stderr.
fn build(dir: &Path) -> (bool, String) {
    let out = Command::new(env!("CARGO"))
        .args(["build", "-v", "--manifest-path"])
        .arg(dir.join("Cargo.toml"))
        .env("CARGO_TARGET_DIR", target_dir())
        .env("CARGO_TERM_COLOR", "never")
        .env_remove("RUSTFLAGS")
        .env_remove("CARGO_ENCODED_RUSTFLAGS")
        .output()
        .expect("run cargo");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The library the build script wrote: in the folder its `cargo:rustc-link-search` gave the
/// crate's compilation (`-L native=<OUT_DIR>` in the `-v` output).
fn library(stderr: &str) -> PathBuf {
    let out_dir = stderr
        .lines()
        .filter(|l| l.contains("--crate-name occupancy_cuda_crate"))
        .find_map(|l| {
            let at = l.find("-L native=")? + "-L native=".len();
            Some(l[at..].split_whitespace().next()?.to_string())
        })
        .unwrap_or_else(|| panic!("no -L native= in:\n{stderr}"));
    PathBuf::from(out_dir).join("libcuda_kernels.a")
}

/// The engine's answer for one path on one target.
struct Answer {
    kernel: KernelResources,
    occupancy: Occupancy,
    clusters: Option<String>,
    /// The lints' findings (names), as `cargo occupancy calc` gives them for this launch at
    /// the policy's 50% floor, without a grid (every grid of the crate is a run-time value).
    lints: Vec<&'static str>,
}

/// The findings of every lint for `k` launched as `path` on `sm`.
fn lints(k: &KernelResources, path: &LaunchPath, sm: u32) -> Vec<&'static str> {
    let targets = [Target::parse(&format!("sm_{sm}")).unwrap()];
    let kernel = match path.opt_in {
        Some(bytes) => k.to_kernel().with_opt_in(bytes),
        None => k.to_kernel(),
    };
    let spec = LaunchSpec {
        cluster: path.cluster.map(Cluster::new),
        artifact: ArtifactFacts {
            spill_store_bytes: k.spill_store_bytes,
            spill_load_bytes: k.spill_load_bytes,
            local_bytes: Some(k.local_bytes),
            min_blocks_per_sm: k.min_blocks_per_sm,
        },
        ..LaunchSpec::new(
            &path.function,
            &targets,
            kernel,
            Launch::new(path.block).with_dynamic_smem(path.smem),
        )
    };
    let mut names: Vec<&'static str> = check(&spec).iter().map(|f| f.lint.name).collect();
    names.dedup();
    names
}

fn arch(sm: u32) -> &'static Arch {
    Arch::from_cc(ComputeCapability::new((sm / 10) as u8, (sm % 10) as u8)).unwrap()
}

/// The engine on `kernel` (its registers, static smem, barriers, launch bounds) launched as
/// `path` on `sm`; on sm_90 a cluster launch also gets the H200's max active clusters.
fn answer(kernel: &Kernel, path: &LaunchPath, sm: u32) -> (Occupancy, Option<String>) {
    let arch = arch(sm);
    let kernel = match path.opt_in {
        Some(bytes) => kernel.with_opt_in(bytes),
        None => *kernel,
    };
    let launch = Launch::new(path.block).with_dynamic_smem(path.smem);
    let occ = occupancy(arch, &kernel, &launch).unwrap();
    let clusters = path.cluster.map(|dim| {
        let h200 = Topology::of_gpu(GPUS.iter().find(|g| g.name == "H200").unwrap());
        match max_active_clusters(arch, &h200, &kernel, &launch, &Cluster::new(dim)) {
            Ok(c) => match c.max_active_clusters.exact() {
                Some(n) => n.to_string(),
                None => format!("{:?}", c.max_active_clusters),
            },
            Err(e) => format!("none ({e})"),
        }
    });
    (occ, clusters)
}

fn limiter(o: &Occupancy) -> String {
    if let Some(z) = &o.zero_reason {
        return format!("cannot launch: {z}");
    }
    o.limiters
        .iter()
        .map(|r| r.name())
        .collect::<Vec<_>>()
        .join(" + ")
}

/// The engine's table for every path and target, from the library's kernels.
fn engine_table(kernels: &[KernelResources]) -> (String, Vec<(LaunchPath, u32, Answer)>) {
    let mut table = String::from(
        "| id | target | compiled kernel | regs | static smem | block | smem | opt-in | blocks/SM | occupancy | limiter | clusters (H200) | findings |\n\
         | --- | --- | --- | ---: | ---: | --- | ---: | ---: | ---: | ---: | --- | --- | --- |\n",
    );
    let mut answers = Vec::new();
    for path in launch_paths() {
        let file = path.site.split(':').next().unwrap();
        let wanted = Instantiation::parse(&path.kernel)
            .unwrap_or_else(|e| panic!("{}: {e}", path.id))
            .in_file(file);
        for sm in TARGETS {
            let found = wanted.find(kernels.iter().filter(|k| k.arch == SmTarget::new(sm)));
            assert_eq!(
                found.len(),
                1,
                "{}: {} on sm_{sm}: {:?}",
                path.id,
                path.kernel,
                found.iter().map(|m| &m.kernel.name).collect::<Vec<_>>()
            );
            assert!(found[0].exact, "{}: not an exact match", path.id);
            let k = found[0].kernel.clone();
            let (occ, clusters) = answer(&k.to_kernel(), &path, sm);
            let found_lints = lints(&k, &path, sm);
            let b = path.block;
            let shape = if b.y * b.z == 1 {
                b.x.to_string()
            } else {
                format!("{}x{}x{}", b.x, b.y, b.z)
            };
            writeln!(
                table,
                "| {} | sm_{sm} | `{}` | {} | {} | {shape} | {} | {} | {} | {:.2}% | {} | {} | {} |",
                path.id,
                k.display_name(),
                k.registers_per_thread,
                k.static_smem_bytes,
                path.smem,
                path.opt_in.map_or("-".to_string(), |b| b.to_string()),
                occ.blocks_per_sm,
                occ.percent(),
                limiter(&occ),
                clusters.as_deref().unwrap_or("-"),
                if found_lints.is_empty() {
                    "-".to_string()
                } else {
                    found_lints.join(", ")
                },
            )
            .unwrap();
            answers.push((
                path.clone(),
                sm,
                Answer {
                    kernel: k,
                    occupancy: occ,
                    clusters,
                    lints: found_lints,
                },
            ));
        }
    }
    (table, answers)
}

#[test]
fn the_crate_builds_fresh_and_every_launch_path_finds_its_kernel() {
    let Some(nvcc) = nvcc() else {
        return;
    };
    let dir = common::copy_cuda_crate(&format!(
        "occupancy-cuda-crate-{}-build",
        std::process::id()
    ));
    let (ok, stderr) = build(&dir);
    assert!(ok, "{stderr}");
    let lib = library(&stderr);
    // A second build does nothing: no build-script run, no recompilation.
    let (ok, again) = build(&dir);
    assert!(ok, "{again}");
    assert!(again.contains("Fresh occupancy-cuda-crate"), "{again}");
    assert!(
        !again.contains("Compiling occupancy-cuda-crate") && !again.contains("build-script-build`"),
        "the second build was not fresh:\n{again}"
    );

    let data = std::fs::read(&lib).unwrap();
    assert_eq!(
        resources::detect(&data),
        Some(resources::InputKind::Archive)
    );
    let kernels = resources::read(&data).unwrap();
    // 7 + 6 + 9 + 6 kernels of elementwise.cu, reduce.cu, attention.cu, gemm.cu, per target.
    assert_eq!(
        kernels.len(),
        28 * 2,
        "{:#?}",
        kernels.iter().map(|k| k.display_name()).collect::<Vec<_>>()
    );
    for k in &kernels {
        assert!(k.barriers.unwrap_or(0) <= 1, "{}: named barriers", k.name);
    }
    let (table, answers) = engine_table(&kernels);
    // Register counts are ptxas's: the recorded table is nvcc 13.5's.
    if nvcc.version.to_string() != "13.5" {
        eprintln!(
            "nvcc {}: EXPECTED.md records nvcc 13.5's registers; every path found its kernel, the \
             table is not compared",
            nvcc.version
        );
        std::fs::remove_dir_all(&dir).unwrap();
        return;
    }
    let expected_path = fixture().join("EXPECTED.md");
    let expected = std::fs::read_to_string(&expected_path).unwrap();
    let start = expected
        .find(BEGIN)
        .expect("EXPECTED.md: no engine table marker")
        + BEGIN.len();
    let end = expected
        .find(END)
        .expect("EXPECTED.md: no engine table end marker");
    let recorded = expected[start..end].trim();
    if std::env::var("OCCUPANCY_WRITE_EXPECTED").as_deref() == Ok("1") {
        let text = format!(
            "{}\n\n{}\n{}",
            &expected[..start],
            table.trim(),
            &expected[end..]
        );
        std::fs::write(&expected_path, text).unwrap();
        eprintln!("wrote the engine table of {}", expected_path.display());
    } else {
        assert_eq!(
            recorded,
            table.trim(),
            "EXPECTED.md's engine table is not what the engine answers on this build: rewrite it \
             with OCCUPANCY_WRITE_EXPECTED=1 cargo test --release --test cuda_crate, and review \
             the findings described there"
        );
    }
    // What the findings in EXPECTED.md rest on, asserted directly.
    let at = |id: &str, sm: u32| {
        &answers
            .iter()
            .find(|(p, s, _)| p.id == id && *s == sm)
            .unwrap_or_else(|| panic!("{id} sm_{sm}"))
            .2
    };
    // A one-warp block stops at the resident-block limit: 32 blocks, 50%.
    for sm in TARGETS {
        let o = &at("copy_segments", sm).occupancy;
        assert_eq!((o.blocks_per_sm, o.percent()), (32, 50.0), "sm_{sm}");
    }
    // 254 registers at 256 threads: one block, 12.5%.
    for sm in TARGETS {
        let a = at("q4_gemm", sm);
        assert_eq!(a.kernel.registers_per_thread, 254);
        assert_eq!(a.occupancy.blocks_per_sm, 1);
        assert_eq!(a.occupancy.percent(), 12.5);
    }
    // 48 KiB less the 128 B of static smem launch without the opt-in; 4 bytes more cannot.
    for sm in TARGETS {
        assert!(at("softmax.1024.max", sm).occupancy.blocks_per_sm > 0);
        assert_eq!(at("softmax.1024.over", sm).occupancy.blocks_per_sm, 0);
    }
    // 96 KiB with the opt-in: one block on sm_80 (164 KiB), two on sm_90 (228 KiB).
    assert_eq!(at("tiled_gemm", 80).occupancy.blocks_per_sm, 1);
    assert_eq!(at("tiled_gemm", 90).occupancy.blocks_per_sm, 2);
    // Clusters need cc 9.0.
    assert!(
        at("cluster_gemv", 80)
            .clusters
            .as_deref()
            .unwrap()
            .starts_with("none")
    );
    // The lints, as the reader must report them.
    assert!(at("cluster_gemv", 80).lints.contains(&"launch_impossible"));
    assert!(
        at("softmax.1024.over", 90)
            .lints
            .contains(&"launch_impossible")
    );
    assert!(
        !at("softmax.1024.max", 90)
            .lints
            .contains(&"launch_impossible")
    );
    assert!(at("q4_gemm", 80).lints.contains(&"low_occupancy"));
    assert!(at("copy_segments", 90).lints.contains(&"block_limit"));
    assert!(at("affine", 90).lints.is_empty());
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The H200's answers recorded by `scripts/gpu/cuda_crate_occupancy.sh`: for every path, the
/// engine on the resources the driver reported (`cudaFuncGetAttributes`) gives the driver's
/// `cudaOccupancyMaxActiveBlocksPerMultiprocessor` (and `cudaOccupancyMaxActiveClusters`).
#[test]
fn the_h200_driver_agrees_on_every_launch_path() {
    let recorded = root().join("tests/data/h200/cuda_crate.tsv");
    let Ok(text) = std::fs::read_to_string(&recorded) else {
        eprintln!(
            "skipped: {} not recorded yet (scripts/gpu/cuda_crate_occupancy.sh on an H200)",
            recorded.display()
        );
        return;
    };
    let paths = launch_paths();
    let mut lines = text.lines().filter(|l| !l.starts_with('#'));
    let header: Vec<&str> = lines.next().unwrap().split('\t').collect();
    let col = |name: &str| {
        header
            .iter()
            .position(|h| *h == name)
            .unwrap_or_else(|| panic!("no column {name}"))
    };
    let mut compared = 0;
    for line in lines {
        let c: Vec<&str> = line.split('\t').collect();
        let path = paths
            .iter()
            .find(|p| p.id == c[col("id")])
            .unwrap_or_else(|| panic!("{line}: not a path of launch-paths.tsv"));
        let n = |name: &str| c[col(name)].parse::<u32>().unwrap();
        let mut kernel = Kernel::new(n("num_regs")).with_static_smem(n("static_smem"));
        if n("max_threads") < 1024 {
            kernel = kernel.with_max_threads(n("max_threads"));
        }
        let (occ, clusters) = answer(&kernel, path, 90);
        assert_eq!(
            occ.blocks_per_sm,
            n("blocks_per_sm"),
            "{line}: the engine says {} blocks/SM",
            occ.blocks_per_sm
        );
        if let Some(clusters) = clusters {
            assert_eq!(clusters, c[col("clusters")], "{line}");
        }
        compared += 1;
    }
    assert_eq!(compared, paths.len(), "every path recorded");
}
