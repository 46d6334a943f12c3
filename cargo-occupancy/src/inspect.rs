//! `cargo occupancy inspect FILE...`: the resources of compiled kernels, read from cubins,
//! fatbins, host ELFs with `.nv_fatbin` or `__nv_relfatbin` (nvcc-built objects `.o`, shared
//! libraries, executables), `ar` static libraries of such objects (`.a`, as a build script
//! makes them with nvcc), ptxas `-v` logs and PTX, like
//! `cuobjdump --dump-resource-usage` but with no CUDA toolkit installed. PTX is assembled
//! with ptxas for each `--arch` (ptxas from the PyPI wheel `nvidia-cuda-nvcc-cu12`, or
//! `$OCCUPANCY_PTXAS`); without `--arch` it only supplies `.minnctapersm` and the other
//! directives to the cubins given with it.

use std::collections::HashSet;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use occupancy_core::build::Ptxas;
use occupancy_core::resources::manifest::{Manifest, SourceFile, sha256_hex};
use occupancy_core::resources::{self, InputKind, KernelResources, SmTarget, ptx};

/// Arguments of `inspect`.
#[derive(Debug, clap::Args)]
pub struct InspectArgs {
    /// Cubins, fatbins, nvcc-built host objects (.o) and static libraries (.a), host binaries
    /// with a .nv_fatbin section, ptxas -v logs, PTX files, or folders of them (searched
    /// recursively; files of other kinds there are skipped).
    #[arg(required = true, value_name = "FILE")]
    pub files: Vec<PathBuf>,
    /// Print a JSON array, one object per kernel and architecture.
    #[arg(long)]
    pub json: bool,
    /// Also write the resource manifest the build helper and the attribute macro read.
    #[arg(long, value_name = "PATH")]
    pub write_manifest: Option<PathBuf>,
    /// Folder of the .cu sources, to record their SHA-256 in the manifest (so a build without
    /// NVRTC can tell when the manifest is older than the sources).
    #[arg(long, value_name = "DIR", requires = "write_manifest")]
    pub source: Option<PathBuf>,
    /// Assemble the PTX inputs with ptxas for this real architecture (sm_80, sm_90a);
    /// repeat for several. A PTX is not assembled below its own `.target`.
    #[arg(long = "arch", value_name = "ARCH", value_parser = arch)]
    pub archs: Vec<SmTarget>,
    /// An option for ptxas when it assembles PTX (`--ptxas-option=-maxrregcount=64`); repeat
    /// for several.
    #[arg(
        long = "ptxas-option",
        value_name = "OPTION",
        allow_hyphen_values = true
    )]
    pub ptxas_options: Vec<String>,
}

fn arch(s: &str) -> Result<SmTarget, String> {
    SmTarget::parse(s).map_err(|e| e.to_string())
}

/// One kernel as found, with the file it came from.
struct Found {
    file: PathBuf,
    kernel: KernelResources,
}

/// Runs the command; returns the process exit code (0 ok, 1 some input failed).
pub fn run(args: &InspectArgs) -> ExitCode {
    let mut failed = false;
    let mut found: Vec<Found> = Vec::new();
    let mut ptx_modules: Vec<(PathBuf, ptx::PtxModule)> = Vec::new();
    let mut ptxas: Option<Result<Ptxas, String>> = None;
    for (path, explicit) in expand(&args.files) {
        let data = match occupancy_core::file::read(
            &path,
            "input",
            occupancy_core::file::MAX_BINARY_BYTES,
        ) {
            Ok(d) => d,
            Err(e) => {
                eprintln!("error: {}: {}", path.display(), e.reason);
                failed = true;
                continue;
            }
        };
        let kind = resources::detect(&data);
        let result = match kind {
            Some(InputKind::Ptx) => {
                let text = String::from_utf8_lossy(&data);
                match ptx::parse(&text) {
                    Ok(m) => {
                        let assembled = if args.archs.is_empty() {
                            Ok(Vec::new())
                        } else {
                            let ptxas = ptxas.get_or_insert_with(|| Ptxas::find(None));
                            assemble(ptxas, &text, &m, &path, args)
                        };
                        ptx_modules.push((path.clone(), m));
                        assembled
                    }
                    Err(e) => Err(e),
                }
            }
            Some(_) => resources::read(&data),
            None if !explicit => continue,
            None => resources::read(&data),
        };
        match result {
            Ok(kernels) => found.extend(kernels.into_iter().map(|kernel| Found {
                file: path.clone(),
                kernel,
            })),
            Err(e) if explicit || kind.is_some() => {
                eprintln!("error: {}: {e}", path.display());
                failed = true;
            }
            Err(_) => {}
        }
    }
    // A ptxas log beside its cubin (as the build helper leaves them) says less: drop it.
    let from_cubins: HashSet<(String, String, SmTarget)> = found
        .iter()
        .filter(|f| f.kernel.origin == resources::Origin::Cubin)
        .map(|f| (stem(&f.file), f.kernel.name.clone(), f.kernel.arch))
        .collect();
    found.retain(|f| {
        f.kernel.origin == resources::Origin::Cubin
            || !from_cubins.contains(&(stem(&f.file), f.kernel.name.clone(), f.kernel.arch))
    });
    // PTX supplies the minimum blocks per SM (and bounds a ptxas log lacks): the PTX of the
    // same module (file stem), else the only PTX with an entry of that name.
    for f in &mut found {
        let same_module = ptx_modules
            .iter()
            .filter(|(p, _)| stem(p) == stem(&f.file))
            .find_map(|(_, m)| m.entry(&f.kernel.name));
        let mut any = ptx_modules
            .iter()
            .filter_map(|(_, m)| m.entry(&f.kernel.name));
        let only = match (any.next(), any.next()) {
            (Some(e), None) => Some(e),
            _ => None,
        };
        if let Some(entry) = same_module.or(only) {
            f.kernel.apply_ptx(entry);
        }
    }

    let mut out = String::new();
    if args.json {
        let rows: Vec<serde_json::Value> = found.iter().map(json_row).collect();
        let _ = writeln!(
            out,
            "{}",
            serde_json::to_string_pretty(&rows).unwrap_or_else(|_| "[]".into())
        );
    } else {
        out.push_str(&table(&found));
        // With --arch every PTX was assembled (or its error printed).
        let ptx_only: Vec<_> = ptx_modules
            .iter()
            .filter(|_| args.archs.is_empty())
            .flat_map(|(p, m)| m.entries.iter().map(move |e| (p, e)))
            .filter(|(_, e)| !found.iter().any(|f| f.kernel.name == e.name))
            .collect();
        if !ptx_only.is_empty() {
            let _ = writeln!(
                out,
                "\nPTX entries with no compiled code given (ptxas decides registers: give --arch sm_XX to \
                 assemble the PTX, or pass the cubin or a ptxas -v log):"
            );
            for (p, e) in ptx_only {
                let _ = writeln!(
                    out,
                    "  {} ({}): maxntid {} min blocks/SM {} maxnreg {} cluster {}",
                    e.name,
                    p.display(),
                    opt_dims(e.max_threads),
                    opt(e.min_blocks_per_sm),
                    opt(e.max_registers),
                    opt_dims(e.cluster_dims)
                );
            }
        }
        if found
            .iter()
            .any(|f| f.kernel.min_blocks_per_sm.is_none() && f.kernel.max_threads.is_some())
        {
            let _ = writeln!(
                out,
                "\nnote: min blocks/SM (2nd __launch_bounds__ argument) is not stored in a cubin; pass the PTX too to see it"
            );
        }
    }
    if let Err(code) = crate::output::print(&out) {
        return code;
    }

    if let Some(path) = &args.write_manifest {
        match manifest(&found, args.source.as_deref()) {
            Ok(m) => {
                if let Err(e) = m.write(path) {
                    eprintln!("error: {e}");
                    failed = true;
                } else {
                    eprintln!(
                        "wrote {} ({} kernels, {} sources)",
                        path.display(),
                        m.kernels.len(),
                        m.sources.len()
                    );
                }
            }
            Err(e) => {
                eprintln!("error: {e}");
                failed = true;
            }
        }
    }
    if found.is_empty() && !failed && ptx_modules.is_empty() {
        eprintln!("error: no kernels found");
        failed = true;
    }
    if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

/// The kernels of one PTX module assembled by ptxas for every `--arch` at or above its
/// `.target` (a note for the others); an error when ptxas is missing, rejects the PTX, or no
/// `--arch` can run it.
fn assemble(
    ptxas: &Result<Ptxas, String>,
    text: &str,
    module: &ptx::PtxModule,
    path: &Path,
    args: &InspectArgs,
) -> resources::Result<Vec<KernelResources>> {
    let ptxas = ptxas
        .as_ref()
        .map_err(|e| resources::ResourceError::new(e.clone()))?;
    let name = path.display().to_string();
    let mut kernels = Vec::new();
    let mut skipped = Vec::new();
    for &target in &args.archs {
        match module.target {
            Some(t) if t.sm > target.sm => skipped.push(target.to_string()),
            _ => kernels.extend(
                ptxas
                    .assemble(text, &name, target, &args.ptxas_options)?
                    .kernels,
            ),
        }
    }
    if let Some(t) = module.target.filter(|_| !skipped.is_empty()) {
        let message = format!(
            "PTX for {t} (`.target {t}`): not assembled for {}, where the driver cannot load it",
            skipped.join(", ")
        );
        if skipped.len() == args.archs.len() {
            return Err(resources::ResourceError::new(message));
        }
        eprintln!("note: {name}: {message}");
    }
    Ok(kernels)
}

/// Files to read: explicit ones (`true`), and every file under the given folders (`false`).
fn expand(paths: &[PathBuf]) -> Vec<(PathBuf, bool)> {
    let mut out = Vec::new();
    for p in paths {
        if p.is_dir() {
            let mut files = Vec::new();
            walk(p, &mut files, 0);
            files.sort();
            out.extend(files.into_iter().map(|f| (f, false)));
        } else {
            out.push((p.clone(), true));
        }
    }
    out
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>, depth: usize) {
    if depth > 16 {
        return;
    }
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        match e.file_type() {
            Ok(t) if t.is_dir() => walk(&p, out, depth + 1),
            Ok(t) if t.is_file() => out.push(p),
            _ => {}
        }
    }
}

/// The module stem of a file (`probe` for `out/probe.sm_80.cubin`), which qualifies its
/// kernels' names in the manifest.
fn stem(path: &Path) -> String {
    resources::manifest::module_stem(&path.to_string_lossy()).to_string()
}

fn opt(v: Option<u32>) -> String {
    v.map_or_else(|| "-".to_string(), |v| v.to_string())
}

fn opt_dims(v: Option<[u32; 3]>) -> String {
    v.map_or_else(|| "-".to_string(), |[x, y, z]| format!("{x}x{y}x{z}"))
}

fn json_row(f: &Found) -> serde_json::Value {
    let k = &f.kernel;
    serde_json::json!({
        "kernel": k.name,
        "demangled": k.demangled,
        "arch": k.arch.to_string(),
        "registers_per_thread": k.registers_per_thread,
        "static_smem": k.static_smem_bytes,
        "local_bytes": k.local_bytes,
        "spill_store_bytes": k.spill_store_bytes,
        "spill_load_bytes": k.spill_load_bytes,
        "barriers": k.barriers,
        "max_threads_per_block": k.max_threads_per_block(),
        "cluster_dims": k.cluster_dims,
        "max_cluster_rank": k.max_cluster_rank,
        "min_blocks_per_sm": k.min_blocks_per_sm,
        "max_registers": k.max_registers,
        "required_threads": k.required_threads,
        "cumulative_stack_bytes": k.cumulative_stack_bytes,
        "const_bank0_bytes": k.const_bank0_bytes,
        "param_bytes": k.param_bytes,
        "toolkit": k.toolkit.map(|t| t.to_string()),
        "origin": k.origin,
        "file": f.file.display().to_string(),
    })
}

fn table(found: &[Found]) -> String {
    let header = [
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
        "cuda",
    ];
    let mut rows: Vec<Vec<String>> = Vec::new();
    let mut last_file: Option<&Path> = None;
    let mut out = String::new();
    let flush = |rows: &mut Vec<Vec<String>>, out: &mut String| {
        if rows.is_empty() {
            return;
        }
        let mut widths: Vec<usize> = header.iter().map(|h| h.len()).collect();
        for r in rows.iter() {
            for (w, c) in widths.iter_mut().zip(r) {
                *w = (*w).max(c.chars().count());
            }
        }
        let line = |cells: &[String]| {
            let mut s = String::from(" ");
            for (i, (c, w)) in cells.iter().zip(&widths).enumerate() {
                // Text columns left-aligned, numbers right-aligned.
                if i < 2 {
                    s.push_str(&format!(" {c:<w$}"));
                } else {
                    s.push_str(&format!(" {c:>w$}"));
                }
            }
            s.trim_end().to_string() + "\n"
        };
        out.push_str(&line(&header.map(String::from)));
        for r in rows.drain(..) {
            out.push_str(&line(&r));
        }
    };
    for f in found {
        if last_file != Some(f.file.as_path()) {
            flush(&mut rows, &mut out);
            if last_file.is_some() {
                out.push('\n');
            }
            out.push_str(&format!("{}:\n", f.file.display()));
            last_file = Some(&f.file);
        }
        let k = &f.kernel;
        let spills = match (k.spill_store_bytes, k.spill_load_bytes) {
            (Some(s), Some(l)) => format!("{s}/{l}"),
            _ => "?".to_string(),
        };
        let max_thr = match (k.max_threads_per_block(), k.required_threads) {
            (Some(t), _) => t.to_string(),
            (None, Some([x, y, z])) => format!("={x}x{y}x{z}"),
            _ => "-".to_string(),
        };
        let cluster = match (k.cluster_dims, k.max_cluster_rank) {
            (Some(d), _) => opt_dims(Some(d)),
            (None, Some(r)) => format!("<={r}"),
            _ => "-".to_string(),
        };
        rows.push(vec![
            k.display_name().to_string(),
            k.arch.to_string(),
            k.registers_per_thread.to_string(),
            k.static_smem_bytes.to_string(),
            k.local_bytes.to_string(),
            spills,
            opt(k.barriers),
            max_thr,
            opt(k.min_blocks_per_sm),
            opt(k.max_registers),
            cluster,
            opt(k.const_bank0_bytes),
            k.toolkit.map_or_else(|| "-".to_string(), |t| t.to_string()),
        ]);
    }
    flush(&mut rows, &mut out);
    out
}

/// The manifest of what was found; with `source`, every `.cu` there is hashed and a kernel is
/// attributed to the source whose stem starts its file name (`sgemm.sm_80.cubin` -> `sgemm.cu`).
fn manifest(found: &[Found], source: Option<&Path>) -> Result<Manifest, String> {
    let mut m = Manifest::new(concat!(
        "cargo-occupancy ",
        env!("CARGO_PKG_VERSION"),
        " inspect"
    ));
    let mut sources: Vec<String> = Vec::new();
    if let Some(dir) = source {
        let entries =
            std::fs::read_dir(dir).map_err(|e| format!("--source {}: {e}", dir.display()))?;
        for e in entries.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            if name.ends_with(".cu") && e.path().is_file() {
                sources.push(name);
            }
        }
        sources.sort();
        if sources.is_empty() {
            return Err(format!("--source {}: no .cu files there", dir.display()));
        }
    }
    let mut seen: HashSet<(&Path, &str, SmTarget)> = HashSet::new();
    for f in found {
        // Every (artifact, kernel) pair: one kernel name may be in several modules, each
        // qualified by its file's stem. Only a file given twice is not repeated.
        let key = (f.file.as_path(), f.kernel.name.as_str(), f.kernel.arch);
        if !seen.insert(key) {
            continue;
        }
        let file_name = f
            .file
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let src = sources
            .iter()
            .filter(|s| {
                let stem = s.trim_end_matches(".cu");
                file_name.starts_with(&format!("{stem}.")) || file_name == stem
            })
            .max_by_key(|s| s.len())
            .cloned();
        m.add_artifact_kernels(
            &f.file.display().to_string(),
            src.as_deref(),
            [f.kernel.clone()],
        );
    }
    if let Some(dir) = source {
        for s in &sources {
            let path = dir.join(s);
            let bytes =
                occupancy_core::file::read(&path, "source", occupancy_core::file::MAX_TEXT_BYTES)
                    .map_err(|e| format!("{}: {}", path.display(), e.reason))?;
            let toolkit = m
                .kernels
                .iter()
                .filter(|k| k.source.as_deref() == Some(s.as_str()))
                .find_map(|k| k.resources.toolkit);
            m.sources.push(SourceFile {
                file: s.clone(),
                sha256: sha256_hex(&bytes),
                toolkit,
            });
        }
    }
    m.sort();
    Ok(m)
}
