//! verify_driver: every kernel of `kernels/`, compiled for the GPU it runs on, checked
//! against the CUDA driver.
//!
//! For each kernel in the build's resource manifest (read the way `#[occupancy::check(kernel
//! = ...)]` reads it), on the cubin the driver loads:
//!
//! 1. the resource reader's registers, static shared memory and local memory against
//!    `CU_FUNC_ATTRIBUTE_NUM_REGS`, `SHARED_SIZE_BYTES` and `LOCAL_SIZE_BYTES`;
//! 2. the engine against `cuOccupancyMaxActiveBlocksPerMultiprocessor` for every block size
//!    1..=1024, several dynamic shared memory sizes, the opt-in off and on, and several
//!    carveouts;
//! 3. the engine's best block size against `cuOccupancyMaxPotentialBlockSize`;
//! 4. the engine's available dynamic shared memory against
//!    `cuOccupancyAvailableDynamicSMemPerBlock` (the driver's answer is expected to be the
//!    1 KiB per-block reserve above the launchable value for 2 or more blocks);
//! 5. on cc 9.0+, cluster occupancy against `cuOccupancyMaxActiveClusters`;
//! 6. the `cudarc` feature's run-time check (`occupancy_core::device::check_launch`).
//!
//! It prints the counts of agreement and every disagreement, and exits 1 on any. Without a
//! GPU it says so and exits 0. `OCCUPANCY_VERIFY_TSV=path` also writes the counts as TSV.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::process::ExitCode;

use cudarc::driver::sys::{self, CUfunction_attribute};
use cudarc::driver::{CudaFunction, LaunchConfig};
use occupancy_core::arch::{Arch, Target};
use occupancy_core::cluster::{Cluster, ClusterCount, Topology, max_active_clusters};
use occupancy_core::device::{DeviceGpu, check_launch, check_launch_with};
use occupancy_core::occupancy::{
    BlockDim, Carveout, Kernel, Launch, available_dynamic_smem, max_potential_block_size, occupancy,
};
use occupancy_core::resources::KernelResources;
use occupancy_examples::harness::{self, Artifact, Device, Gpu};
use occupancy_examples::kernels;

/// Any error of the verification: the driver's, the harness's or the engine's.
type Error = Box<dyn std::error::Error>;

/// Carveout preferences tried (-1 = no preference).
const CARVEOUTS: [i32; 7] = [-1, 0, 10, 25, 50, 75, 100];
/// Cluster sizes tried on cc 9.0+.
const CLUSTER_SIZES: [u32; 6] = [1, 2, 3, 4, 8, 16];
/// Block sizes of the cluster and available-smem checks.
const SOME_BLOCKS: [u32; 6] = [32, 64, 128, 256, 512, 1024];

/// Agreement counts per comparison, and every disagreement.
#[derive(Default)]
struct Tally {
    counts: BTreeMap<&'static str, (u64, u64)>,
    disagreements: Vec<String>,
}

impl Tally {
    fn record(&mut self, what: &'static str, agrees: bool, detail: impl FnOnce() -> String) {
        let entry = self.counts.entry(what).or_default();
        entry.0 += 1;
        if agrees {
            entry.1 += 1;
        } else {
            self.disagreements.push(format!("{what}: {}", detail()));
        }
    }
}

fn set(func: &CudaFunction, attribute: CUfunction_attribute, value: i32) -> Result<(), Error> {
    func.set_attribute(attribute, value)?;
    Ok(())
}

/// Dynamic shared memory sizes to try for a kernel with `static_smem` bytes of static and an
/// opt-in limit of `opt_in_max` bytes.
fn dynamic_sizes(static_smem: u32, opt_in_max: u32) -> Vec<u32> {
    let default = 49152u32.saturating_sub(static_smem);
    let mut sizes = vec![
        0,
        1,
        1000,
        4096,
        12345,
        32768,
        default,
        default + 1,
        65536,
        100_000,
        150_000,
    ];
    sizes.extend([opt_in_max, opt_in_max + 1]);
    sizes.retain(|&s| s <= opt_in_max + 1);
    sizes.sort_unstable();
    sizes.dedup();
    sizes
}

fn verify_kernel(
    gpu: &Gpu,
    arch: &Arch,
    func: &CudaFunction,
    resources: &KernelResources,
    t: &mut Tally,
) -> Result<(), Error> {
    let name = resources.display_name().to_owned();
    let attr = |a| func.get_attribute(a).map(|v| v as i64);
    // 1. The resource reader against the driver.
    let regs = attr(CUfunction_attribute::CU_FUNC_ATTRIBUTE_NUM_REGS)?;
    t.record(
        "reader: registers per thread",
        regs == i64::from(resources.registers_per_thread),
        || {
            format!(
                "{name}: driver {regs}, reader {}",
                resources.registers_per_thread
            )
        },
    );
    let shared = attr(CUfunction_attribute::CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES)?;
    t.record(
        "reader: static shared memory",
        shared == i64::from(resources.static_smem_bytes),
        || {
            format!(
                "{name}: driver {shared}, reader {}",
                resources.static_smem_bytes
            )
        },
    );
    let local = attr(CUfunction_attribute::CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES)?;
    t.record(
        "reader: local memory",
        local == i64::from(resources.local_bytes),
        || format!("{name}: driver {local}, reader {}", resources.local_bytes),
    );

    let base = resources.to_kernel();
    let static_smem = resources.static_smem_bytes;
    let opt_in_max = arch.smem_per_block_optin_bytes - static_smem;
    let default_dynamic = 49152 - static_smem;
    let sizes = dynamic_sizes(static_smem, opt_in_max);
    for opted_in in [false, true] {
        let max_dynamic = if opted_in {
            opt_in_max
        } else {
            default_dynamic
        };
        set(
            func,
            CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
            max_dynamic as i32,
        )?;
        let opt_in = opted_in.then_some(opt_in_max);
        for carveout in CARVEOUTS {
            set(
                func,
                CUfunction_attribute::CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT,
                carveout,
            )?;
            let kernel = Kernel {
                max_dynamic_smem_bytes: opt_in,
                carveout: Carveout::from_attribute(carveout)?,
                ..base
            };
            // 2. Resident blocks per SM, every block size.
            for &dynamic in &sizes {
                for block in 1..=1024u32 {
                    let engine = occupancy(
                        arch,
                        &kernel,
                        &Launch::new(BlockDim::linear(block)).with_dynamic_smem(dynamic),
                    )?;
                    let driver = func.occupancy_max_active_blocks_per_multiprocessor(
                        block,
                        dynamic as usize,
                        None,
                    );
                    match driver {
                        Ok(n) => t.record("engine: resident blocks per SM", n == engine.blocks_per_sm, || {
                            format!(
                                "{name} block {block} dyn {dynamic} opt-in {opted_in} carveout {carveout}: driver {n}, engine {}",
                                engine.blocks_per_sm
                            )
                        }),
                        // The driver refuses what cannot launch; the engine must answer 0 with a reason.
                        Err(e) => t.record("engine: launches the driver refuses", engine.blocks_per_sm == 0, || {
                            format!(
                                "{name} block {block} dyn {dynamic} opt-in {opted_in} carveout {carveout}: driver {e:?}, engine {}",
                                engine.blocks_per_sm
                            )
                        }),
                    }
                }
            }
        }
        set(
            func,
            CUfunction_attribute::CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT,
            -1,
        )?;
        let kernel = Kernel {
            max_dynamic_smem_bytes: opt_in,
            carveout: Carveout::Default,
            ..base
        };
        for &dynamic in &sizes {
            // 3. The best block size (no smem callback, no block-size limit).
            let (mut min_grid, mut block) = (0i32, 0i32);
            // SAFETY: valid out pointers and a loaded function; no callback.
            let r = unsafe {
                sys::cuOccupancyMaxPotentialBlockSize(
                    &mut min_grid,
                    &mut block,
                    func.cu_function(),
                    None,
                    dynamic as usize,
                    0,
                )
            };
            if r == sys::CUresult::CUDA_SUCCESS {
                let engine = max_potential_block_size(arch, &kernel, gpu.sm_count, |_| dynamic)?;
                let same =
                    (engine.block_size as i32, engine.min_grid_size as i32) == (block, min_grid);
                t.record("engine: max potential block size", same, || {
                    format!(
                        "{name} dyn {dynamic} opt-in {opted_in}: driver ({block}, grid {min_grid}), engine ({}, grid {})",
                        engine.block_size, engine.min_grid_size
                    )
                });
            }
        }
        // 4. Available dynamic shared memory.
        for block in SOME_BLOCKS {
            for blocks in 1..=32u32 {
                let driver = func.occupancy_available_dynamic_smem_per_block(blocks, block);
                let engine = available_dynamic_smem(arch, &kernel, BlockDim::linear(block), blocks);
                match (driver, engine) {
                    (Ok(d), Ok(e)) => {
                        let reserve = u64::from(arch.reserved_smem_per_block_bytes);
                        let expected = if blocks >= 2 { u64::from(e) + reserve } else { u64::from(e) };
                        // The driver's value capped by the function's maximum, as the engine's is.
                        let expected = expected.min(u64::from(opt_in.unwrap_or(default_dynamic)));
                        t.record("engine: available dynamic smem (launchable; driver +reserve for 2+ blocks)", d as u64 == expected, || {
                            format!("{name} block {block} blocks {blocks} opt-in {opted_in}: driver {d}, engine {e}")
                        });
                    }
                    (Err(_), Err(_)) => t.record("engine: available dynamic smem refused by both", true, String::new),
                    (d, e) => t.record("engine: available dynamic smem (launchable; driver +reserve for 2+ blocks)", false, || {
                        format!("{name} block {block} blocks {blocks} opt-in {opted_in}: driver {d:?}, engine {e:?}")
                    }),
                }
            }
        }
    }
    set(
        func,
        CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
        default_dynamic as i32,
    )?;
    // 6. The run-time check of the `cudarc` feature (`occupancy_core::device`), with the
    //    function's attributes read from the driver and with the manifest's resources.
    for block in SOME_BLOCKS {
        let cfg = LaunchConfig {
            grid_dim: (1, 1, 1),
            block_dim: (block, 1, 1),
            shared_mem_bytes: 0,
        };
        let from_driver = check_launch(func, &cfg)?;
        t.record(
            "device::check_launch (driver attributes)",
            from_driver.agrees(),
            || {
                format!(
                    "{name} block {block}: driver {}, engine {}",
                    from_driver.driver_blocks_per_sm, from_driver.engine.blocks_per_sm
                )
            },
        );
        let from_manifest = check_launch_with(func, &cfg, base)?;
        t.record(
            "device::check_launch_with (manifest resources)",
            from_manifest.agrees(),
            || {
                format!(
                    "{name} block {block}: driver {}, engine {}",
                    from_manifest.driver_blocks_per_sm, from_manifest.engine.blocks_per_sm
                )
            },
        );
    }
    Ok(())
}

/// 5. Cluster occupancy on cc 9.0+ (opt-in at the maximum, non-portable sizes allowed).
fn verify_clusters(
    gpu: &Gpu,
    arch: &Arch,
    target: &Target,
    func: &CudaFunction,
    resources: &KernelResources,
    t: &mut Tally,
) -> Result<(), Error> {
    let Some(topology) = Topology::of_target(target) else {
        return Ok(());
    };
    let name = resources.display_name().to_owned();
    let opt_in_max = arch.smem_per_block_optin_bytes - resources.static_smem_bytes;
    set(
        func,
        CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
        opt_in_max as i32,
    )?;
    set(
        func,
        CUfunction_attribute::CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED,
        1,
    )?;
    let kernel = Kernel {
        max_dynamic_smem_bytes: Some(opt_in_max),
        ..resources.to_kernel()
    };
    for size in CLUSTER_SIZES {
        for block in SOME_BLOCKS {
            for dynamic in [0u32, 16384, 65536, 150_000] {
                let mut value: sys::CUlaunchAttributeValue = unsafe { std::mem::zeroed() };
                value.clusterDim = sys::CUlaunchAttributeValue_union__bindgen_ty_1 {
                    x: size,
                    y: 1,
                    z: 1,
                };
                let mut attribute = sys::CUlaunchAttribute {
                    id: sys::CUlaunchAttributeID::CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION,
                    pad: [0; 4],
                    value,
                };
                let config = sys::CUlaunchConfig {
                    gridDimX: 64 * size,
                    gridDimY: 1,
                    gridDimZ: 1,
                    blockDimX: block,
                    blockDimY: 1,
                    blockDimZ: 1,
                    sharedMemBytes: dynamic,
                    hStream: gpu.stream().cu_stream(),
                    attrs: &mut attribute,
                    numAttrs: 1,
                };
                let mut clusters = 0i32;
                // SAFETY: `config` and its one attribute outlive the call; valid out pointer.
                let r = unsafe {
                    sys::cuOccupancyMaxActiveClusters(&mut clusters, func.cu_function(), &config)
                };
                let launch = Launch::new(BlockDim::linear(block)).with_dynamic_smem(dynamic);
                let engine = max_active_clusters(
                    arch,
                    &topology,
                    &kernel,
                    &launch,
                    &Cluster::linear(size).allow_non_portable(),
                );
                match (r, engine) {
                    (sys::CUresult::CUDA_SUCCESS, Ok(e)) => {
                        let agrees = match e.max_active_clusters {
                            ClusterCount::Exact(n) => n as i32 == clusters,
                            bounds => bounds.contains(clusters as u32),
                        };
                        t.record("engine: max active clusters", agrees, || {
                            format!("{name} cluster {size} block {block} dyn {dynamic}: driver {clusters}, engine {}", e.max_active_clusters)
                        });
                    }
                    (sys::CUresult::CUDA_SUCCESS, Err(e)) => t.record("engine: max active clusters", clusters == 0, || {
                        format!("{name} cluster {size} block {block} dyn {dynamic}: driver {clusters}, engine error {e}")
                    }),
                    (r, Ok(e)) => t.record("engine: max active clusters", e.max_active_clusters.exact() == Some(0), || {
                        format!("{name} cluster {size} block {block} dyn {dynamic}: driver {r:?}, engine {}", e.max_active_clusters)
                    }),
                    (_, Err(_)) => t.record("engine: max active clusters", true, String::new),
                }
            }
        }
    }
    Ok(())
}

fn run(gpu: &Gpu) -> Result<Tally, Error> {
    let mut t = Tally::default();
    let device = DeviceGpu::from_context(gpu.context())?;
    println!("verify_driver: on {gpu}");
    for m in &device.table_mismatches {
        println!(
            "  arch table vs driver: {} table {} driver {}",
            m.limit, m.table, m.device
        );
    }
    t.record(
        "arch table: driver attributes",
        device.table_mismatches.is_empty(),
        || {
            format!(
                "{} limits differ from the table",
                device.table_mismatches.len()
            )
        },
    );
    let arch = gpu.arch;
    let target = Target::parse(&gpu.name).unwrap_or(Target::from_arch(arch));
    let manifest = harness::manifest().ok_or("the build embedded no resource manifest")?;
    for stem in kernels::STEMS {
        let (module, artifact) = gpu.load(stem)?;
        let Artifact::Cubin(sm) = artifact else {
            println!(
                "  {stem}: loaded from PTX (no cubin for this GPU); resources cannot be compared"
            );
            continue;
        };
        let file = format!("{stem}.cu");
        let kernels = manifest.kernels.iter().filter(|k| {
            k.source.as_deref() == Some(file.as_str()) && k.resources.arch.to_string() == sm
        });
        for entry in kernels {
            let resources = &entry.resources;
            let func = module.load_function(&resources.name)?;
            let before = t.counts.values().map(|c| c.0).sum::<u64>();
            verify_kernel(gpu, arch, &func, resources, &mut t)?;
            if arch.cluster_max_portable > 0 {
                verify_clusters(gpu, arch, &target, &func, resources, &mut t)?;
            }
            let after = t.counts.values().map(|c| c.0).sum::<u64>();
            println!(
                "  {stem}/{} ({sm} cubin, {} regs): {} comparisons",
                resources.display_name(),
                resources.registers_per_thread,
                after - before
            );
        }
    }
    Ok(t)
}

fn main() -> ExitCode {
    let gpu = match harness::open() {
        Ok(Device::Gpu(gpu)) => gpu,
        Ok(Device::Missing(why)) => {
            println!(
                "verify_driver: no GPU found ({why}); nothing to verify (run it on a machine with a CUDA GPU)"
            );
            return ExitCode::SUCCESS;
        }
        Err(e) => {
            println!("verify_driver: error opening the GPU: {e}");
            return ExitCode::FAILURE;
        }
    };
    let t = match run(&gpu) {
        Ok(t) => t,
        Err(e) => {
            println!("verify_driver: error: {e}");
            return ExitCode::FAILURE;
        }
    };
    let mut tsv = String::from("comparison\tchecked\tagree\n");
    println!("\n{:<80} {:>10} {:>10}", "comparison", "checked", "agree");
    for (what, (checked, agree)) in &t.counts {
        println!("{what:<80} {checked:>10} {agree:>10}");
        let _ = writeln!(tsv, "{what}\t{checked}\t{agree}");
    }
    if let Ok(path) = std::env::var("OCCUPANCY_VERIFY_TSV")
        && let Err(e) = std::fs::write(&path, tsv)
    {
        println!("verify_driver: cannot write {path}: {e}");
    }
    // The first disagreements of each comparison.
    let mut shown: BTreeMap<&str, usize> = BTreeMap::new();
    for d in &t.disagreements {
        let what = d.split(':').next().unwrap_or("");
        let n = shown.entry(what).or_default();
        *n += 1;
        if *n <= 30 {
            println!("DISAGREE {d}");
        }
    }
    if t.disagreements.is_empty() {
        println!("verify_driver: 100% agreement");
        ExitCode::SUCCESS
    } else {
        println!("verify_driver: {} disagreements", t.disagreements.len());
        ExitCode::FAILURE
    }
}
