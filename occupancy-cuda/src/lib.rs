//! Reads the kernel launches of a crate's CUDA C++ host code (`.cu` / `.cuh` files that a
//! build script compiles with nvcc and Rust calls through FFI) and checks them with the
//! engine, lints and policy of `#[occupancy::check]`.
//!
//! ```no_run
//! // build.rs, after compiling src/cuda/*.cu into $OUT_DIR/libkernels.a with nvcc:
//! let lib = std::path::Path::new(&std::env::var("OUT_DIR").unwrap()).join("libkernels.a");
//! occupancy_cuda::CudaLaunches::new("src/cuda").objects([&lib]).check();
//! ```
//!
//! Stages, one module each, data flowing one way:
//!
//! 1. `files`: the `.cu` / `.cuh` files of the folders given and the headers they include
//!    inside the crate, read once (regular files, [`MAX_FILE_BYTES`], [`MAX_FILES`]);
//!    `syntax`: each parsed by tree-sitter's CUDA grammar within [`MAX_PARSE_TIME`];
//! 2. `index`: the names of each translation unit (a `.cu` and its headers): macros,
//!    constants, enumerators, structs and their static members, aliases, functions,
//!    explicit instantiations; `macros`: the files' own macros expanded in text, bounded;
//! 3. `interp`: every path from the unit's roots (the `extern "C"` launchers, functions no
//!    other names, explicit instantiations; `reach`: only those from which a launch can be
//!    reached by name) into the functions they call, with
//!    [`occupancy_core::abstract_int`] values, recording each launch's paths
//!    ([`Reading`], [`CudaLaunch`], [`LaunchPath`]);
//! 4. `check`: each path with its kernel's resources from the objects ([`Compiled`]) as an
//!    [`occupancy_spec::Spec`] ([`occupancy_spec::Spec::external`], located at the launch's
//!    file and line), evaluated by [`occupancy_spec::Spec::evaluate`] ([`CheckedLaunch`]),
//!    as the attribute's front end does for a Rust wrapper;
//! 5. `build`: the build-script call ([`CudaLaunches`]): cargo warnings, deny-level
//!    failures, `rerun-if-changed`, the record `cargo occupancy report --all` reads.
//!
//! Nothing here runs a preprocessor or a compiler, follows an include outside the crate, or
//! panics on any input: what is not read is in [`Reading::notes`] with its file and line,
//! and a launch that is not checked says why.
#![deny(missing_docs)]

mod build;
mod check;
mod choices;
mod device;
mod files;
mod index;
mod interp;
mod launch;
mod layout;
mod lower;
mod macros;
mod memo;
mod prepare;
mod preproc;
mod reach;
mod syntax;
mod value;
mod vars;

use std::path::{Path, PathBuf};

pub use build::{BuildReport, CudaLaunches, OUT_DIR_RECORD};
pub use check::{
    CheckedLaunch, CheckedPath, Compiled, Outcome, PathCounts, check, unmatched_launch_tables,
};
pub use files::{MAX_FILE_BYTES, MAX_FILES};
pub use launch::{
    Candidates, CudaLaunch, Instantiation, LaunchForm, LaunchPath, Read, ReadNote, Reading,
    SmemLimit, TemplateArg,
};
pub use syntax::MAX_PARSE_TIME;

/// The most paths followed through one launching function (and kept per launch site): the
/// bound both readers share, [`occupancy_core::read::paths::MAX_PATHS`]; past it, the rest
/// are folded into one whose launches are not checked ([`occupancy_core::read`]).
pub const MAX_PATHS: usize = occupancy_core::read::paths::MAX_PATHS;

/// Reads every launch of the `.cu` / `.cuh` files under `dirs` (relative to `crate_dir`,
/// or absolute inside it; a file may be named too) and of the headers they include inside
/// the crate.
///
/// Each `.cu` file is a translation unit with the headers it includes; a header no `.cu`
/// includes is read on its own. Never fails: what cannot be read is in
/// [`Reading::notes`], with its file and line.
pub fn read(crate_dir: &Path, dirs: &[PathBuf]) -> Reading {
    read_for(crate_dir, dirs, &[])
}

/// [`read`] for `targets`: what the host code asks the device (`cudaDeviceGetAttribute`,
/// `cudaGetDeviceProperties`) is each target's value from the GPU tables, and a launch
/// computed from it has one path per target ([`LaunchPath::targets`]). Without targets
/// (as [`read`]) such values are known only at run time.
pub fn read_for(
    crate_dir: &Path,
    dirs: &[PathBuf],
    targets: &[occupancy_core::arch::Target],
) -> Reading {
    let build = preproc::Build::default();
    read_sources(
        &files::Sources::read(crate_dir, dirs, &build),
        targets,
        &device::DeviceParams::new(),
        &build,
    )
}

/// [`read_for`] the policy's targets, with its `[device_params.<function>]`: a parameter
/// of a host function called through FFI that the policy says holds a device attribute
/// (`warp_size_host = "warp_size"`) is each target's value from the GPU tables, as a
/// device query the code makes itself. What the build script and `cargo occupancy report`
/// read.
pub fn read_with_policy(
    crate_dir: &Path,
    dirs: &[PathBuf],
    policy: &occupancy_core::policy::Policy,
) -> Reading {
    read_with_policy_by(crate_dir, dirs, policy, CppReader::Interpreter)
}

/// Which reader makes a [`Reading`] of C++ host code.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum CppReader {
    /// The interpreter over the syntax (`interp.rs`): what builds and `report` use.
    #[default]
    Interpreter,
    /// The reading core over the host code lowered to its IR (`lower.rs`, `lower/core.rs`;
    /// issue 25, stage 4): the reader to switch to once the corpus check gives the same
    /// rows with it. Not yet: the conditions that lead to each path, clusters of
    /// `cudaLaunchKernelEx`, a budget of the whole read (each root has the core's own) and
    /// its notes (docs/READING-CORE.md). `cargo occupancy report` takes it where the
    /// environment sets `OCCUPANCY_CPP_READER=core`.
    Core,
}

/// [`read_with_policy`] by `reader`.
pub fn read_with_policy_by(
    crate_dir: &Path,
    dirs: &[PathBuf],
    policy: &occupancy_core::policy::Policy,
    reader: CppReader,
) -> Reading {
    let build = preproc::Build::from_defines(policy.defines.as_deref());
    read_by(
        &files::Sources::read(crate_dir, dirs, &build),
        policy,
        &build,
        reader,
    )
}

/// [`read_texts`] under `policy`, as [`read_with_policy`].
pub fn read_texts_with_policy(
    files: &[(&str, &str)],
    policy: &occupancy_core::policy::Policy,
) -> Reading {
    read_texts_with_policy_by(files, policy, CppReader::Interpreter)
}

/// [`read_texts_with_policy`] by `reader`.
pub fn read_texts_with_policy_by(
    files: &[(&str, &str)],
    policy: &occupancy_core::policy::Policy,
    reader: CppReader,
) -> Reading {
    let build = preproc::Build::from_defines(policy.defines.as_deref());
    read_by(
        &files::Sources::from_texts(files, &build),
        policy,
        &build,
        reader,
    )
}

/// The reading of `sources` under `policy` by `reader`.
fn read_by(
    sources: &files::Sources,
    policy: &occupancy_core::policy::Policy,
    build: &preproc::Build,
    reader: CppReader,
) -> Reading {
    match reader {
        CppReader::Interpreter => {
            read_sources(sources, &policy.targets, &policy.device_params, build)
        }
        CppReader::Core => core_reading(sources, policy, build),
    }
}

/// [`read`] on sources given as text, `(name, text)` each (names relative to an imagined
/// crate directory, `.cu` for translation units): `#include "..."` resolves among them.
/// For tools and fuzzing; nothing is read from disk.
pub fn read_texts(files: &[(&str, &str)]) -> Reading {
    read_texts_for(files, &[])
}

/// [`read_texts`] for `targets`, as [`read_for`].
pub fn read_texts_for(files: &[(&str, &str)], targets: &[occupancy_core::arch::Target]) -> Reading {
    let build = preproc::Build::default();
    read_sources(
        &files::Sources::from_texts(files, &build),
        targets,
        &device::DeviceParams::new(),
        &build,
    )
}

fn read_sources(
    sources: &files::Sources,
    targets: &[occupancy_core::arch::Target],
    device_params: &device::DeviceParams,
    build: &preproc::Build,
) -> Reading {
    read_units(
        sources,
        targets,
        device_params,
        build,
        &mut |_, _, _, _, _| {},
    )
}

/// What [`read_units`] hands each unit to: its index, its `#if` decider, which of its
/// functions a path entered, whether it asks the device, and its file as shown.
type EachUnit<'a> = dyn FnMut(&index::Index<'_>, &preproc::Decider<'_>, &[bool], bool, &str) + 'a;

/// [`read_sources`], handing `each_unit` every unit's index and which of its functions
/// (`index.all_functions`, by position) a path entered.
fn read_units(
    sources: &files::Sources,
    targets: &[occupancy_core::arch::Target],
    device_params: &device::DeviceParams,
    build: &preproc::Build,
    each_unit: &mut EachUnit<'_>,
) -> Reading {
    let mut sites = Vec::new();
    let mut notes = sources.notes.clone();
    let mut header_templates_read = std::collections::HashSet::new();
    let mut budget = files::read_budget(sources.read_bytes, sources.expanded_bytes);
    for_units(
        sources,
        build,
        device_params,
        &mut |index, decider, asks_device, unit_file| {
            let mut interp =
                interp::Interp::new(index, &mut sites, &mut notes, device_params, &mut budget)
                    .deciding(decider)
                    .in_unit(unit_file)
                    .on_targets(targets, asks_device);
            interp.run(&mut header_templates_read);
            let entered: Vec<bool> = index
                .all_functions
                .iter()
                .map(|f| interp.entered(f))
                .collect();
            each_unit(index, decider, &entered, asks_device, unit_file);
            unreached(index, decider, &entered, &mut sites);
        },
    );
    reading_of(sources, sites, notes)
}

/// The [`Reading`] the reading core makes of `sources` under `policy`
/// ([`CppReader::Core`]): each unit's roots lowered and read by the core
/// (`lower::unit_sites`), the launches no path reaches listed as for the interpreter.
fn core_reading(
    sources: &files::Sources,
    policy: &occupancy_core::policy::Policy,
    build: &preproc::Build,
) -> Reading {
    let mut core = lower::CoreRead::default();
    // The core takes a step per expression of each path (the interpreter's steps are
    // coarser): its read has at least one root's whole budget, so that a small unit is read
    // as far as its one root may go.
    let read = files::read_budget(sources.read_bytes, sources.expanded_bytes);
    let mut budget = occupancy_core::read::budget::Budget::new(
        read.limit().max(occupancy_read::interp::MAX_STEPS),
    );
    budget.take(read.taken());
    core.read_budget = Some(budget);
    let device_params = &policy.device_params;
    for_units(
        sources,
        build,
        device_params,
        &mut |index, decider, asks_device, unit_file| {
            let unit = lower::Unit {
                index,
                decider: Some(decider),
            };
            let targets = (policy.targets.as_slice(), asks_device);
            let entered = lower::unit_sites(unit, unit_file, targets, device_params, &mut core);
            let entered: Vec<bool> = index
                .all_functions
                .iter()
                .map(|f| entered.contains(&f.body.node.id()))
                .collect();
            unreached(index, decider, &entered, &mut core.sites);
        },
    );
    let mut notes = sources.notes.clone();
    notes.extend(core.notes);
    reading_of(sources, core.sites, notes)
}

/// What a reader is handed of each translation unit of `sources`: its index, its `#if`
/// decider, whether it asks the device (a device query in its files, or a parameter the
/// policy's `device_params` declares), and its file as shown.
type ReadUnit<'a> = dyn FnMut(&index::Index<'_>, &preproc::Decider<'_>, bool, &str) + 'a;

/// Hands `read` each translation unit of `sources`, indexed under `build`.
fn for_units(
    sources: &files::Sources,
    build: &preproc::Build,
    device_params: &device::DeviceParams,
    read: &mut ReadUnit<'_>,
) {
    for unit in sources.units() {
        let codes: Vec<&syntax::Code> = unit.iter().map(|&i| &sources.files[i]).collect();
        let decider = preproc::Decider::new(build, codes.iter().map(|c| c.text.as_str()));
        let index = index::Index::build(&codes, &decider);
        let unit_file = codes.first().map_or(String::new(), |c| c.shown.clone());
        let asks_device = codes.iter().any(|c| device::asks_device(&c.text))
            || device::declares_device_params(&index, device_params);
        read(&index, &decider, asks_device, &unit_file);
    }
}

/// The reading of `sources` made of a reader's `sites` (sorted by file and line) and
/// `notes`.
fn reading_of(
    sources: &files::Sources,
    mut sites: Vec<CudaLaunch>,
    notes: Vec<ReadNote>,
) -> Reading {
    sites.sort_by(|a, b| (&a.file, a.line).cmp(&(&b.file, b.line)));
    Reading {
        launches: sites,
        files: sources.files.iter().map(|c| c.shown.clone()).collect(),
        notes,
    }
}

/// How much of the host code the reader follows the C++ front end lowers to the reading
/// core's IR ([`occupancy_read::ir`]): issue 25's stage 3, where C++ is lowered beside the
/// interpreter that reads it today, measured on real crates
/// (`cargo run --release -p occupancy-bench --example cuda_lowering -- <crate> <dirs>`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LoweringCensus {
    /// The functions a path of the reader entered (`__global__` kernels are not host code),
    /// each counted once per translation unit that reads it.
    pub functions: usize,
    /// Of those, the ones lowered with nothing left opaque.
    pub whole: usize,
    /// The `<<<...>>>` launches lowered in those functions (the macros' expansions
    /// included; a launch in a header read by two units counts twice).
    pub launches_lowered: usize,
    /// The `<<<...>>>` launches written inside constructs left opaque (a lambda, say).
    pub launches_hidden: usize,
    /// What was left opaque, by what it is (a tree-sitter node kind or a construct), with
    /// how many times, the most frequent first.
    pub not_lowered: Vec<(String, usize)>,
    /// The reading core run on the lowered roots, beside the interpreter that reads them
    /// today.
    pub side_by_side: SideBySide,
}

/// The launches the reading core records on the lowered roots against what the C++
/// interpreter reads, site by site (a site: a `.cu` file and line of a launch the
/// interpreter lists, and its kernel as written): each site's set of (block, dynamic shared
/// memory) over its paths,
/// a value not known on a path counted as such. The core's shared memory known as an
/// interval that grows with the input counts as the values the C++ check puts it at (its
/// largest, or the limit and the first value past it: `choices::smem_bounds`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SideBySide {
    /// Sites the interpreter gives paths for.
    pub sites: usize,
    /// Of those, the sites the core records the same set for.
    pub same: usize,
    /// Sites both read, with different sets: `file:line: interpreter .. core ..`.
    pub different: Vec<String>,
    /// Sites the core records nothing for (a launch no lowered path reaches, or whose kernel
    /// the two write differently): `file:line: kernel` as the interpreter writes it.
    pub not_recorded: Vec<String>,
    /// Of the sites both record, those whose kernels' instantiations over the paths are
    /// the same (`k<float, 64>`; the template arguments as each reads them).
    pub same_kernels: usize,
    /// Sites both record with different instantiations: `file:line: interpreter .. core ..`.
    pub different_kernels: Vec<String>,
    /// Of the sites both record, those whose launch paths as the check takes them are the
    /// same (the core's converted by `lower/record.rs`: kernel instantiation, grid, block,
    /// shared memory and its limit, opt-in, cluster, unit and target; not the conditions
    /// that lead to each).
    pub same_paths: usize,
    /// Sites both record with different paths: `file:line: interpreter only .. core only ..`.
    pub different_paths: Vec<String>,
    /// The launch sites the interpreter lists, each with its file, line, form, kernel as
    /// written, function and why a part is not checked (the launches no path reaches listed
    /// from the syntax for both, with the functions each reader entered).
    pub sites_listed: usize,
    /// Of those, the ones the core lists alike ([`CudaLaunch`] but its paths).
    pub same_sites: usize,
    /// Sites either lists and the other does not list alike: `interpreter ..` or `core ..`.
    pub different_sites: Vec<String>,
    /// The notes the interpreter adds to those of the files (what it did not read).
    pub notes_given: usize,
    /// Of those, the ones the core gives too.
    pub same_notes: usize,
    /// Notes either gives and the other does not: `interpreter ..` or `core ..`.
    pub different_notes: Vec<String>,
}

/// The [`LoweringCensus`] of a [`read`] of `dirs` under `crate_dir` (the policy's
/// targets, defines and device parameters as [`read_with_policy`]).
pub fn lowering_census(
    crate_dir: &Path,
    dirs: &[PathBuf],
    policy: &occupancy_core::policy::Policy,
) -> LoweringCensus {
    let build = preproc::Build::from_defines(policy.defines.as_deref());
    census_of(
        files::Sources::read(crate_dir, dirs, &build),
        policy,
        &build,
    )
}

/// [`lowering_census`] of sources given as text, as [`read_texts_with_policy`].
pub fn lowering_census_texts(
    files: &[(&str, &str)],
    policy: &occupancy_core::policy::Policy,
) -> LoweringCensus {
    let build = preproc::Build::from_defines(policy.defines.as_deref());
    census_of(files::Sources::from_texts(files, &build), policy, &build)
}

fn census_of(
    sources: files::Sources,
    policy: &occupancy_core::policy::Policy,
    build: &preproc::Build,
) -> LoweringCensus {
    let mut census = LoweringCensus::default();
    let mut counts: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    let source_notes = sources.notes.clone();
    let reading = read_units(
        &sources,
        &policy.targets,
        &policy.device_params,
        build,
        &mut |index, decider, entered, _, _| {
            let unit = lower::Unit {
                index,
                decider: Some(decider),
            };
            for (f, _) in index
                .all_functions
                .iter()
                .zip(entered)
                .filter(|(f, entered)| **entered && !f.is_kernel)
            {
                let lowered = lower::function(f, unit);
                census.functions += 1;
                census.launches_hidden += lowered.hidden_launches;
                occupancy_read::ir::visit_block(&lowered.body, &mut |e| {
                    census.launches_lowered +=
                        usize::from(matches!(e, occupancy_read::ir::Expr::CustLaunch(_)));
                });
                census.whole += usize::from(lowered.not_lowered.is_empty());
                for (_, what) in lowered.not_lowered {
                    *counts.entry(what).or_default() += 1;
                }
            }
        },
    );
    let core = core_reading(&sources, policy, build);
    let mut by_site: std::collections::BTreeMap<lower::SiteKey, lower::Made> =
        std::collections::BTreeMap::new();
    for launch in &core.launches {
        by_site
            .entry((
                launch.file.clone(),
                launch.line,
                lower::squeezed(&launch.kernel_written),
            ))
            .or_default()
            .extend(lower::Made::of(launch));
    }
    census.side_by_side = side_by_side(&reading, &by_site, policy.targets.len());
    compare_sites(&reading, &core.launches, &mut census.side_by_side);
    // The notes each reader adds to those of the files.
    let notes = |all: &[ReadNote]| -> std::collections::BTreeSet<String> {
        all.iter()
            .filter(|n| !source_notes.contains(n))
            .map(ToString::to_string)
            .collect()
    };
    let side = &mut census.side_by_side;
    (side.notes_given, side.same_notes, side.different_notes) =
        compared(&notes(&reading.notes), &notes(&core.notes));
    census.not_lowered = counts.into_iter().collect();
    census
        .not_lowered
        .sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    census
}

/// [`SideBySide`] of the interpreter's `reading` and the core's launches by site, read for
/// `targets` targets.
fn side_by_side(
    reading: &Reading,
    core: &std::collections::BTreeMap<lower::SiteKey, lower::Made>,
    targets: usize,
) -> SideBySide {
    let shown = |made: &lower::Made| {
        let items: Vec<String> = made
            .configs
            .iter()
            .map(|(block, smem, opt_in)| {
                let block = block.map_or("?".to_owned(), |b| format!("{b:?}"));
                let smem = smem.map_or("?".to_owned(), |s| s.to_string());
                match opt_in {
                    Some(o) => format!("{block}/{smem}/opt-in {o}"),
                    None => format!("{block}/{smem}"),
                }
            })
            .collect();
        items.join(" ")
    };
    let mut out = SideBySide::default();
    for launch in reading.launches.iter().filter(|l| !l.paths.is_empty()) {
        out.sites += 1;
        let old = lower::Made::of(launch);
        let key = (
            launch.file.clone(),
            launch.line,
            lower::squeezed(&launch.kernel_written),
        );
        // A kernel written longer than the interpreter keeps (`clip`: 80 characters and
        // `...`) is the core's whose text starts with what is kept.
        // Else what the core records at the line (a kernel held in a variable, which the
        // core names by the kernel each path holds).
        let (file, line) = (key.0.clone(), key.1);
        let at_line = || {
            core.range((file.clone(), line, String::new())..)
                .take_while(|((f, l, _), _)| *f == file && *l == line)
        };
        let made = core
            .get(&key)
            .or_else(|| {
                let kept = key.2.strip_suffix("...")?;
                at_line()
                    .find(|((_, _, kernel), _)| kernel.starts_with(kept))
                    .map(|(_, made)| made)
            })
            .cloned()
            .or_else(|| {
                at_line().fold(None, |all: Option<lower::Made>, (_, made)| {
                    let mut all = all.unwrap_or_default();
                    all.extend(made.clone());
                    Some(all)
                })
            });
        let made = made.as_ref();
        match made {
            None => out.not_recorded.push(format!(
                "{}:{}: {}",
                launch.file, launch.line, launch.kernel_written
            )),
            Some(made) => {
                let kernels: std::collections::BTreeSet<String> =
                    made.kernels.iter().map(|k| lower::squeezed(k)).collect();
                if kernels == old.kernels {
                    out.same_kernels += 1;
                } else {
                    let list = |k: &std::collections::BTreeSet<String>| {
                        k.iter().cloned().collect::<Vec<_>>().join(" ")
                    };
                    out.different_kernels.push(format!(
                        "{}:{}: interpreter {} core {}",
                        launch.file,
                        launch.line,
                        list(&old.kernels),
                        list(&kernels)
                    ));
                }
                let keys = |m: &lower::Made, all: usize| -> std::collections::BTreeSet<String> {
                    m.paths
                        .iter()
                        .map(|(key, targets)| lower::with_targets(key, targets, all))
                        .collect()
                };
                let (old_paths, core_paths) = (keys(&old, targets), keys(made, targets));
                if core_paths == old_paths {
                    out.same_paths += 1;
                } else {
                    let only =
                        |a: &std::collections::BTreeSet<String>,
                         b: &std::collections::BTreeSet<String>| {
                            a.difference(b)
                                .take(3)
                                .cloned()
                                .collect::<Vec<_>>()
                                .join("; ")
                        };
                    out.different_paths.push(format!(
                        "{}:{}: interpreter only {} core only {}",
                        launch.file,
                        launch.line,
                        only(&old_paths, &core_paths),
                        only(&core_paths, &old_paths)
                    ));
                }
                if made.configs == old.configs {
                    out.same += 1;
                } else {
                    out.different.push(format!(
                        "{}:{}: interpreter {} core {}",
                        launch.file,
                        launch.line,
                        shown(&old),
                        shown(made)
                    ));
                }
            }
        }
    }
    out
}

/// The sites of the interpreter's `reading` against the core's `core`, on all but their
/// paths: [`SideBySide::same_sites`].
fn compare_sites(reading: &Reading, core: &[CudaLaunch], out: &mut SideBySide) {
    let shown = |l: &CudaLaunch| {
        let mut reasons = l.not_checked.clone();
        reasons.sort();
        format!(
            "{}:{}: {} {} in {} [{}]",
            l.file,
            l.line,
            l.form.written(),
            l.kernel_written,
            l.function,
            reasons.join("; ")
        )
    };
    let old: std::collections::BTreeSet<String> = reading.launches.iter().map(shown).collect();
    let new: std::collections::BTreeSet<String> = core.iter().map(shown).collect();
    (out.sites_listed, out.same_sites, out.different_sites) = compared(&old, &new);
}

/// What the interpreter gives (`old`) against what the core gives (`new`): how many the
/// interpreter gives, how many of those the core gives too, and each given by one only
/// (`interpreter ..`, `core ..`).
fn compared(
    old: &std::collections::BTreeSet<String>,
    new: &std::collections::BTreeSet<String>,
) -> (usize, usize, Vec<String>) {
    let one_only = old
        .difference(new)
        .map(|s| format!("interpreter {s}"))
        .chain(new.difference(old).map(|s| format!("core {s}")));
    (old.len(), old.intersection(new).count(), one_only.collect())
}

/// Every launch written in a function body that no followed path reached (a function
/// called only through a pointer, say, or a branch no path takes): listed, not checked,
/// never dropped; one in an `#if` branch the build does not compile is not a launch.
/// `entered[i]`: whether a path entered `index.all_functions[i]`.
fn unreached(
    index: &index::Index<'_>,
    decider: &preproc::Decider<'_>,
    entered: &[bool],
    sites: &mut Vec<CudaLaunch>,
) {
    let absent = index.not_in_host_code.iter().map(|f| (f, None));
    let functions = index
        .all_functions
        .iter()
        .enumerate()
        .map(|(i, f)| (f, Some(i)));
    for (f, i) in functions.chain(absent) {
        let why = if i.is_none() {
            format!(
                "not in the host program: `{}` is defined in an `#if` branch only nvcc's device passes compile (`__CUDA_ARCH__` is undefined in host code), so the host code never makes this launch",
                f.qualified
            )
        } else if i.and_then(|i| entered.get(i)).copied().unwrap_or(false) {
            format!(
                "no path the reader follows reaches this launch: `{}` is read, but none of its paths gets here (a condition false for the targets and the build read, or a step on the way the reader does not follow)",
                f.qualified
            )
        } else {
            format!(
                "no path the reader follows reaches this launch (`{}` is not called from a function it reads, or only through a pointer or a macro it does not expand)",
                f.qualified
            )
        };
        if f.is_kernel {
            continue;
        }
        let code = f.body.code;
        let mut stack = vec![f.body.node];
        let mut visited = 0usize;
        while let Some(n) = stack.pop() {
            visited += 1;
            if visited > 2_000_000 {
                break;
            }
            if syntax::Kind::of(n) == Some(syntax::Kind::CallExpression) {
                let function = syntax::child(n, syntax::Field::Function);
                let name = function.map_or("", |f| code.text(f));
                let form = if let Some(k) = n
                    .children(&mut n.walk())
                    .find(|c| syntax::Kind::of(*c) == Some(syntax::Kind::KernelCallSyntax))
                {
                    let _ = k;
                    Some(LaunchForm::TripleChevron)
                } else {
                    match name.rsplit("::").next().unwrap_or(name) {
                        "cudaLaunchKernelEx" | "cudaLaunchKernelExC" => {
                            Some(LaunchForm::LaunchKernelEx)
                        }
                        "cudaLaunchKernel" | "cudaLaunchCooperativeKernel" => {
                            Some(LaunchForm::LaunchKernel)
                        }
                        "cuLaunchKernelEx" | "cuLaunchKernel" | "cuLaunchCooperativeKernel" => {
                            Some(LaunchForm::CuLaunchKernelEx)
                        }
                        _ => None,
                    }
                };
                if let Some(form) = form {
                    let line = code.line(n);
                    let seen = sites
                        .iter()
                        .any(|s| s.file == code.shown && s.line == line && s.form == form);
                    if !seen {
                        let kernel_written = match form {
                            LaunchForm::TripleChevron => name.to_owned(),
                            _ => syntax::child(n, syntax::Field::Arguments)
                                .and_then(|a| {
                                    let args = syntax::named_children(a);
                                    let at = if form == LaunchForm::LaunchKernel {
                                        0
                                    } else {
                                        1
                                    };
                                    args.get(at).map(|k| code.text(*k).to_owned())
                                })
                                .unwrap_or_default(),
                        };
                        sites.push(CudaLaunch {
                            file: code.shown.clone(),
                            line,
                            function: f.qualified.clone(),
                            form,
                            kernel_written: syntax::clip(&kernel_written, 80),
                            paths: Vec::new(),
                            not_checked: vec![why.clone()],
                        });
                    }
                }
            }
            if matches!(
                syntax::Kind::of(n),
                Some(syntax::Kind::PreprocIf | syntax::Kind::PreprocIfdef)
            ) {
                let at = index::At { node: n, code };
                match index::chosen(&index::preproc_branches(at), decider, true) {
                    index::Taken::Branch(body) => {
                        stack.extend(body.into_iter().map(|b| b.node));
                        continue;
                    }
                    index::Taken::None => continue,
                    index::Taken::Each => {}
                }
            }
            let mut cursor = n.walk();
            stack.extend(n.children(&mut cursor));
        }
    }
}
