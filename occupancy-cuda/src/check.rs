//! Checking the launches read: each path's launch, with the resources of the kernel
//! instantiation it names in the objects nvcc built, becomes an
//! [`occupancy_spec::Spec`] under the crate's policy, located at the launch's file and line,
//! and [`occupancy_spec::Spec::evaluate`]
//! runs the engine and every lint on it: one lint evaluation for Rust wrappers and C++
//! launches.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use occupancy_core::arch::{ArchVariant, Target};
use occupancy_core::candidates::fill;
use occupancy_core::cluster::{Cluster, ClusterDim};
use occupancy_core::policy::Policy;
use occupancy_core::resources::instantiation::{
    CompiledName, Instantiation, TemplateArg as CoreArg,
};
use occupancy_core::resources::manifest::loadable_arch;
use occupancy_core::resources::{KernelResources, SmTarget, Variant};
use occupancy_spec::{
    Evaluation, ExternalLaunch, KernelSpec, Location, Plan, Source, SourceKind, Spec,
};

use occupancy_read::launches::{Field, Launch};

use crate::launch::{Candidates, CudaLaunch, LaunchPath, Read, Reading, TemplateArg};

/// The compiled kernels a crate's launches run: every kernel of every object read, with the
/// file it came from.
#[derive(Clone, Debug, Default)]
pub struct Compiled {
    /// Each kernel compiled for each architecture, with the object it was read from.
    pub kernels: Vec<(KernelResources, PathBuf)>,
    /// Objects that could not be read, and why.
    pub problems: Vec<String>,
}

impl Compiled {
    /// Reads the kernels of host objects nvcc built: ELF objects, shared libraries and
    /// executables with a `.nv_fatbin` section (and `ar` archives of them), or fatbins and
    /// cubins.
    pub fn read(objects: &[PathBuf]) -> Compiled {
        let mut out = Compiled::default();
        for path in objects {
            match object_kernels(path) {
                Ok(kernels) => out
                    .kernels
                    .extend(kernels.into_iter().map(|k| (k, path.clone()))),
                Err(why) => out.problems.push(format!("{}: {why}", path.display())),
            }
        }
        out
    }
}

/// The kernels of a [`Compiled`] indexed for one [`check`]: each compiled name parsed once
/// and filed under its unqualified name, and the kernels found for each instantiation
/// launched (from its translation unit) kept: a launch's paths mostly share their kernel,
/// and a crate's launches are checked against every kernel its objects hold.
struct Kernels<'c> {
    compiled: &'c Compiled,
    names: Vec<CompiledName>,
    /// Unqualified name -> indices into `compiled.kernels`, in order.
    by_name: HashMap<String, Vec<usize>>,
    /// The kernels found for each launched kernel, grouped by symbol.
    found: HashMap<KernelKey, Vec<Vec<usize>>>,
    /// The targets checked are those `compiled` holds cubins for ([`check`]).
    targets_from_build: bool,
}

/// A launched kernel: its name, template arguments and translation unit.
type KernelKey = (String, Option<Vec<TemplateArg>>, Option<String>);

impl<'c> Kernels<'c> {
    fn new(compiled: &'c Compiled) -> Kernels<'c> {
        let names: Vec<CompiledName> = compiled
            .kernels
            .iter()
            .map(|(k, _)| CompiledName::of(k))
            .collect();
        let mut by_name: HashMap<String, Vec<usize>> = HashMap::new();
        for (i, n) in names.iter().enumerate() {
            by_name.entry(n.name.clone()).or_default().push(i);
        }
        Kernels {
            compiled,
            names,
            by_name,
            found: HashMap::new(),
            targets_from_build: false,
        }
    }

    /// The kernels a launch makes (from its translation unit), grouped by symbol (each
    /// symbol with its architectures), in the order of [`Compiled::kernels`].
    fn find(&mut self, launch: &Launch) -> Vec<Vec<&'c (KernelResources, PathBuf)>> {
        let key = (
            launch
                .kernel
                .as_ref()
                .map_or_else(String::new, |k| k.name.clone()),
            launch.template_args.clone(),
            launch.translation_unit.clone(),
        );
        let groups = match self.found.get(&key) {
            Some(groups) => groups.clone(),
            None => {
                let groups = self.search(launch);
                self.found.insert(key, groups.clone());
                groups
            }
        };
        groups
            .into_iter()
            .map(|g| g.into_iter().map(|i| &self.compiled.kernels[i]).collect())
            .collect()
    }

    fn search(&self, launch: &Launch) -> Vec<Vec<usize>> {
        let Some(wanted) = wanted(launch) else {
            return Vec::new();
        };
        let mut groups: Vec<Vec<usize>> = Vec::new();
        let candidates = self
            .by_name
            .get(wanted.unqualified_name())
            .map_or(&[][..], Vec::as_slice);
        for &i in candidates {
            if wanted.matches_compiled(&self.names[i]).is_none() {
                continue;
            }
            let symbol = &self.compiled.kernels[i].0.name;
            match groups
                .iter_mut()
                .find(|g| &self.compiled.kernels[g[0]].0.name == symbol)
            {
                Some(g) => g.push(i),
                None => groups.push(vec![i]),
            }
        }
        groups
    }
}

/// Every kernel of an object file (an ELF object or library, an `ar` archive of them, a
/// fatbin or a cubin), by `occupancy_core::resources::read`.
fn object_kernels(path: &Path) -> Result<Vec<KernelResources>, String> {
    let data = occupancy_core::file::read(path, "object", occupancy_core::file::MAX_BINARY_BYTES)
        .map_err(|e| e.reason.to_string())?;
    occupancy_core::resources::read(&data).map_err(|e| e.to_string())
}

/// The instantiation a launch makes, as `occupancy_core::resources::instantiation` matches
/// compiled kernels with it (spellings of types and values, namespaces, anonymous
/// namespaces and internal linkage: see there), launched from its translation unit; `None`
/// when its kernel or template arguments are not known.
fn wanted(launch: &Launch) -> Option<Instantiation> {
    let args = launch.template_args.as_ref()?;
    let wanted = Instantiation::new(launch.kernel.as_ref()?.name.clone()).with_args(
        args.iter()
            .map(|a| match a {
                TemplateArg::Type(t) => CoreArg::Type(t.clone()),
                TemplateArg::Value(v) => CoreArg::Int(*v),
                TemplateArg::Bool(b) => CoreArg::Bool(*b),
            })
            .collect(),
    );
    Some(match &launch.translation_unit {
        Some(unit) => wanted.in_file(Path::new(unit)),
        None => wanted,
    })
}

/// A launch site with each of its paths checked.
pub struct CheckedLaunch {
    /// The launch as read.
    pub launch: CudaLaunch,
    /// One per path of the launch (or per candidate of a run-time value), in order.
    pub paths: Vec<CheckedPath>,
}

/// How many launch sites and paths a check has, and how many of the paths were checked:
/// what the build script's summary and `cargo occupancy report --all` both count. A site
/// with no path read (its kernel is not a `__global__` function of the files read, say)
/// counts as one path, not checked; a run-time value with candidates, as one path each.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PathCounts {
    /// Launch sites (`<<<...>>>` and `cudaLaunchKernelEx` calls read).
    pub sites: usize,
    /// Their paths.
    pub paths: usize,
    /// The paths the engine and the lints ran on.
    pub checked: usize,
}

impl PathCounts {
    /// The counts of `checked`.
    pub fn of(checked: &[CheckedLaunch]) -> PathCounts {
        let mut counts = PathCounts {
            sites: checked.len(),
            ..PathCounts::default()
        };
        for c in checked {
            counts.paths += c.paths.len().max(1);
            counts.checked += c
                .paths
                .iter()
                .filter(|p| matches!(p.outcome, Outcome::Checked(..)))
                .count();
        }
        counts
    }

    /// The paths not checked.
    pub fn not_checked(&self) -> usize {
        self.paths - self.checked
    }
}

impl std::fmt::Display for PathCounts {
    /// `3 launch sites, 4 paths: 2 checked, 2 not checked`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let s = |n: usize| if n == 1 { "" } else { "s" };
        write!(
            f,
            "{} launch site{}, {} path{}: {} checked, {} not checked",
            self.sites,
            s(self.sites),
            self.paths,
            s(self.paths),
            self.checked,
            self.not_checked()
        )
    }
}

/// One path of a launch, checked or not.
pub struct CheckedPath {
    /// The path as read (candidates applied: a run-time block the policy gives candidates
    /// for is one `CheckedPath` per candidate).
    pub path: LaunchPath,
    /// The spec and the evaluation, or why the path is not checked.
    pub outcome: Outcome,
    /// What else to know (`sm_86: no cubin of the kernel runs there, not checked`).
    pub notes: Vec<String>,
}

/// What checking a path gave.
pub enum Outcome {
    /// The engine and the lints ran: the spec (levels, targets, kernels) and their
    /// answer.
    Checked(Box<Spec>, Evaluation),
    /// Not checked, and why (`run time, not checked: ...`).
    NotChecked(String),
}

/// Checks every launch of `reading` under `policy` with the kernels of `compiled`.
pub fn check(reading: &Reading, policy: &Policy, compiled: &Compiled) -> Vec<CheckedLaunch> {
    let mut kernels = Kernels::new(compiled);
    // Where the policy names no targets, those the objects are compiled for, as a wrapper
    // checks the targets the build script compiles for.
    let built = build_targets(policy, compiled);
    kernels.targets_from_build = built.is_some();
    let policy = &match built {
        Some(targets) => Policy {
            targets,
            ..policy.clone()
        },
        None => policy.clone(),
    };
    reading
        .launches
        .iter()
        .map(|launch| check_launch(launch, policy, &mut kernels))
        .collect()
}

/// The architectures `compiled` holds cubins for, in order, as targets; `None` where the
/// policy names targets or there are none.
fn build_targets(policy: &Policy, compiled: &Compiled) -> Option<Vec<Target>> {
    if policy.targets_named {
        return None;
    }
    let mut archs: Vec<SmTarget> = compiled.kernels.iter().map(|(k, _)| k.arch).collect();
    archs.sort();
    archs.dedup();
    let targets: Vec<Target> = archs
        .iter()
        .filter_map(|a| Target::parse(&a.to_string()).ok())
        .collect();
    (!targets.is_empty()).then_some(targets)
}

fn check_launch(launch: &CudaLaunch, policy: &Policy, kernels: &mut Kernels<'_>) -> CheckedLaunch {
    let mut paths = Vec::new();
    for path in &launch.paths {
        for path in with_policy_candidates(path, launch, policy) {
            let (outcome, notes) = check_path(&path, launch, policy, kernels);
            paths.push(CheckedPath {
                path,
                outcome,
                notes,
            });
        }
    }
    CheckedLaunch {
        launch: launch.clone(),
        paths,
    }
}

/// The names `[launches.<name>]` may give a launching function by: as reports name it
/// (`ops::launch_softmax`), then without its namespaces (`launch_softmax`).
fn names(function: &str) -> [&str; 2] {
    [function, function.rsplit("::").next().unwrap_or(function)]
}

/// A note for each `[launches.<name>]` of the policy that names no launching host function
/// of `reading` (a typo: `launch_dd` for `launch_d` is a table no launch reads), with the
/// closest name read: `` occupancy.toml: `[launches.launch_dd]` names no launching host
/// function of the files read; did you mean `launch_d`? ``. None when no file was read.
pub fn unmatched_launch_tables(reading: &Reading, policy: &Policy) -> Vec<String> {
    if reading.files.is_empty() {
        return Vec::new();
    }
    let mut known: Vec<&str> = Vec::new();
    for launch in &reading.launches {
        for n in names(&launch.function) {
            if !known.contains(&n) {
                known.push(n);
            }
        }
    }
    policy
        .launches
        .keys()
        .filter(|k| !known.contains(&k.as_str()))
        .map(|k| {
            let hint = match occupancy_core::lint::closest(k, known.iter().copied()) {
                Some(s) => format!("; did you mean `{s}`?"),
                None if known.is_empty() => " (the files read launch nothing)".to_owned(),
                None => format!(
                    " (launching functions read: {})",
                    known
                        .iter()
                        .take(8)
                        .map(|n| format!("`{n}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            };
            format!(
                "{}: `[launches.{k}]` names no launching host function of the files read{hint}",
                Policy::FILE_NAME
            )
        })
        .collect()
}

/// The path, or one per `[launches.<function>]` candidate (or pair) for what it leaves to
/// run time ([`occupancy_core::candidates::fill`]: never crossed; a refusal is the path
/// with its block unknown, and why).
fn with_policy_candidates(
    path: &LaunchPath,
    launch: &CudaLaunch,
    policy: &Policy,
) -> Vec<LaunchPath> {
    let Some(c) = names(&launch.function)
        .into_iter()
        .find_map(|n| policy.launches.get(n))
    else {
        return vec![path.clone()];
    };
    let known = |r: &Read<[u32; 3]>| match r {
        Read::Known(b) => Some(*b),
        Read::Unknown(_) => None,
    };
    let block = known(&path.block);
    let smem = match &path.dynamic_smem_bytes {
        Read::Known(s) => Some(*s),
        Read::Unknown(_) => None,
    };
    let filled = match fill(&c.given(), block.as_ref(), smem.as_ref()) {
        Ok(filled) => filled,
        Err(refusal) => {
            let mut q = path.clone();
            q.block = Read::Unknown(format!(
                "{refusal} (`launches = [[128, 0], [256, 4096]]` in `[launches.{}]`)",
                launch.function
            ));
            return vec![q];
        }
    };
    let pairs = !c.pairs.is_empty();
    filled
        .into_iter()
        .map(|f| {
            let mut q = path.clone();
            if let Some(i) = f.block {
                let b = if pairs { c.pairs[i].0 } else { c.block[i] };
                q.block = Read::Known(b);
                q.candidates = Candidates::Policy;
                q.conditions.push(format!("block = {}", shape(b)));
            }
            if let Some(i) = f.smem {
                let s = if pairs { c.pairs[i].1 } else { c.smem_bytes[i] };
                q.dynamic_smem_bytes = Read::Known(s);
                q.candidates = Candidates::Policy;
                q.conditions.push(format!("smem = {s}"));
            }
            q
        })
        .collect()
}

fn check_path(
    path: &LaunchPath,
    launch: &CudaLaunch,
    policy: &Policy,
    kernels: &mut Kernels<'_>,
) -> (Outcome, Vec<String>) {
    match check_path_inner(&path.record(), launch, policy, kernels) {
        Ok((outcome, notes)) => (outcome, notes),
        Err(why) => (Outcome::NotChecked(why), Vec::new()),
    }
}

/// Checks the record `path` of a path of `launch`.
fn check_path_inner(
    path: &Launch,
    launch: &CudaLaunch,
    policy: &Policy,
    index: &mut Kernels<'_>,
) -> Result<(Outcome, Vec<String>), String> {
    let (block, smem) = known_values(path, launch)?;
    let kernel = path.kernel_text().unwrap_or_default();
    if path.template_args.is_none() {
        return Err(format!(
            "not checked: the template arguments of `{}` are not known here",
            path.kernel.as_ref().map_or("", |k| k.name.as_str())
        ));
    }
    let groups = index.find(path);
    let compiled = index.compiled;
    if groups.is_empty() {
        return Err(format!(
            "not checked: no compiled kernel `{}` in the objects read{}",
            kernel,
            if compiled.kernels.is_empty() {
                " (none given or found: build first, or pass the objects)"
            } else {
                ""
            }
        ));
    }
    let PerTarget {
        targets,
        kernels,
        left_out,
        objects,
    } = per_target(path, &groups, policy);
    if targets.is_empty() {
        let archs: Vec<String> = groups[0].iter().map(|(k, _)| k.arch.to_string()).collect();
        return Err(format!(
            "not checked: `{}` is compiled for {} only, none of which runs on the policy's targets ({})",
            kernel,
            archs.join(", "),
            policy
                .targets
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    let mut label = vec![kernel.clone()];
    label.extend(path.conditions.iter().cloned());
    let smem = placed_smem(path, smem, &kernels, &mut label);
    let at = Location::File {
        path: launch.file.clone(),
        line: launch.line,
        column: None,
    };
    let plan = Plan::known(
        block,
        smem,
        path.grid.as_ref().ok().and_then(known_dims),
        Some(label.join(", ")),
        at.clone(),
    );
    let cluster = path
        .cluster
        .map(|[x, y, z]| Cluster::new(ClusterDim::new(x, y, z)));
    let source = objects.first().map(|o| Source {
        kind: SourceKind::Object,
        kernel: kernel.clone(),
        path: (*o).clone(),
        shown: o.display().to_string(),
    });
    let spec = Spec::external(
        ExternalLaunch {
            name: launch.function.clone(),
            location: at,
            plans: vec![plan],
            kernels,
            targets,
            opt_in_bytes: path.opt_in_bytes,
            cluster,
            source,
            tracked_files: objects.into_iter().cloned().collect(),
            targets_from_build: index.targets_from_build,
        },
        policy,
    );
    let notes = if left_out.is_empty() {
        Vec::new()
    } else {
        vec![format!(
            "{}: no cubin of `{}` in the objects runs there, not checked",
            left_out.join(", "),
            kernel
        )]
    };
    match spec.evaluate() {
        Some(evaluation) => Ok((Outcome::Checked(Box::new(spec), evaluation), notes)),
        None => Err("not checked: a value the engine cannot take".to_owned()),
    }
}

/// The block and the dynamic shared memory of `path`, or why one is not known (with what
/// to give).
fn known_values(path: &Launch, launch: &CudaLaunch) -> Result<([u32; 3], u32), String> {
    let hint = format!(
        "give candidates with `// occupancy: block = [128, 256]` on the launch, or `[launches.{}]` in occupancy.toml",
        launch.function
    );
    let block = match &path.block {
        Ok(dims) => known_dims(dims).ok_or_else(|| why_not_known(dims)),
        Err(why) => Err(why.clone()),
    };
    let block = match block {
        Ok(b) => b,
        // A refusal of the candidates says what to give itself.
        Err(why) if why.contains("`launches`") => {
            return Err(format!("run time, not checked: the block: {why}"));
        }
        Err(why) => return Err(format!("run time, not checked: the block: {why}; {hint}")),
    };
    let smem = match &path.smem {
        Field::RunTime(r) => {
            return Err(format!(
                "run time, not checked: the dynamic shared memory: {}; {}",
                r.why,
                hint.replace("block = [128, 256]", "smem = [0, 49152]")
            ));
        }
        known => known.known_u32().ok_or_else(|| {
            "not checked: the dynamic shared memory is not a 32-bit value".to_owned()
        })?,
    };
    Ok((block, smem))
}

/// Three known 32-bit dimensions.
fn known_dims(dims: &[Field; 3]) -> Option<[u32; 3]> {
    Some([
        dims[0].known_u32()?,
        dims[1].known_u32()?,
        dims[2].known_u32()?,
    ])
}

/// Why `dims` are not all known: the first run-time dimension's reason.
fn why_not_known(dims: &[Field; 3]) -> String {
    dims.iter()
        .find_map(|d| match d {
            Field::RunTime(r) => Some(r.why.clone()),
            Field::Known(_) => None,
        })
        .unwrap_or_else(|| "a dimension is not a 32-bit value".to_owned())
}

/// The targets `path` is checked on, each symbol's cubin for each, and the objects they
/// come from.
struct PerTarget<'c> {
    /// The policy's targets every symbol of the launch has a cubin for.
    targets: Vec<Target>,
    /// Each symbol's resources, one entry per target of `targets`.
    kernels: Vec<KernelSpec>,
    /// The policy's targets some symbol has no cubin for.
    left_out: Vec<String>,
    objects: Vec<&'c PathBuf>,
}

/// Which of the policy's targets `path` is checked on (a path of some targets, a device
/// query's answers, only on those), with the cubin of each symbol of `groups` that runs
/// there.
fn per_target<'c>(
    path: &Launch,
    groups: &[Vec<&'c (KernelResources, PathBuf)>],
    policy: &Policy,
) -> PerTarget<'c> {
    let mut targets = Vec::new();
    let mut kernels: Vec<KernelSpec> = Vec::new();
    let mut left_out = Vec::new();
    let mut objects: Vec<&PathBuf> = Vec::new();
    for target in &policy.targets {
        // A path of some targets (a device query's answers) is checked on those.
        if !path.targets.is_empty() && !path.targets.contains(&target.to_string()) {
            continue;
        }
        let Some(want) = sm_target(target) else {
            continue;
        };
        // Every symbol must have a cubin that runs there.
        let mut per_kernel = Vec::new();
        for g in groups {
            let arch = loadable_arch(g.iter().map(|(k, _)| k.arch), want);
            match arch.and_then(|a| g.iter().find(|(k, _)| k.arch == a)) {
                Some(entry) => per_kernel.push(*entry),
                None => break,
            }
        }
        if per_kernel.len() != groups.len() {
            left_out.push(target.to_string());
            continue;
        }
        targets.push(*target);
        for (i, (k, obj)) in per_kernel.into_iter().enumerate() {
            if kernels.len() <= i {
                kernels.push(KernelSpec {
                    name: k.display_name().to_owned(),
                    resources: Vec::new(),
                    compiled_for: Vec::new(),
                });
            }
            kernels[i].resources.push(Some(k.clone()));
            if !objects.contains(&obj) {
                objects.push(obj);
            }
        }
    }
    PerTarget {
        targets,
        kernels,
        left_out,
        objects,
    }
}

/// The dynamic shared memory of a path placed at the limit it grows past (`smem` where it
/// has none): static shared memory counts against the same limit, so the most that launches
/// is the limit less the largest static shared memory of `kernels` on these targets (on
/// the step of the code's values), and the first value over it one step more. The label's
/// `smem = ` condition says which.
fn placed_smem(path: &Launch, smem: u32, kernels: &[KernelSpec], label: &mut [String]) -> u32 {
    let Some(l) = path.smem_limit else {
        return smem;
    };
    let static_smem = kernels
        .iter()
        .flat_map(|k| k.resources.iter().flatten())
        .map(|r| r.static_smem_bytes)
        .max()
        .unwrap_or(0);
    let step = l.step_bytes.max(1);
    let most = l.limit_bytes.saturating_sub(static_smem) / step * step;
    let smem = if l.above { most + step } else { most };
    let text = if l.above {
        format!(
            "smem = {smem} (the first value over the limit: {} B with {static_smem} B static)",
            l.limit_bytes
        )
    } else {
        format!(
            "smem = {smem} (the most that launches: {} B with {static_smem} B static)",
            l.limit_bytes
        )
    };
    for c in label.iter_mut() {
        if c.starts_with("smem = ") {
            c.clone_from(&text);
        }
    }
    smem
}

/// The architecture whose cubin a target runs (`sm_90a` for an `a` target).
fn sm_target(target: &Target) -> Option<SmTarget> {
    let mut sm = SmTarget::parse(target.arch.sm).ok()?;
    sm.variant = match target.variant {
        ArchVariant::Generic => Variant::Base,
        ArchVariant::Specific => Variant::Accelerated,
        ArchVariant::Family => Variant::Family,
    };
    Some(sm)
}

/// `256`, `(16, 16)`, `(8, 8, 4)`.
pub(crate) fn shape(d: [u32; 3]) -> String {
    match d {
        [x, 1, 1] => x.to_string(),
        [x, y, 1] => format!("({x}, {y})"),
        [x, y, z] => format!("({x}, {y}, {z})"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The one launch of `src` (a `.cu` file), read.
    fn one_launch(src: &str) -> CudaLaunch {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("src/cuda")).unwrap();
        std::fs::write(dir.path().join("src/cuda/a.cu"), src).unwrap();
        let mut r = crate::read(dir.path(), &[PathBuf::from("src/cuda")]);
        assert_eq!(r.launches.len(), 1, "{:#?}", r.launches);
        r.launches.remove(0)
    }

    const SRC: &str = "__global__ void k(float* x) {}\n\
        extern \"C\" void launch_k(float* x, int t, int bytes) { k<<<1, t, bytes>>>(x); }\n";

    fn filled(policy: &str) -> Vec<String> {
        let launch = one_launch(SRC);
        let policy = Policy::from_toml(policy).unwrap();
        with_policy_candidates(&launch.paths[0], &launch, &policy)
            .iter()
            .map(LaunchPath::summary)
            .collect()
    }

    /// Where the policy names no targets, the C++ launches are checked on those the objects
    /// are compiled for (sm_86 among them), as the wrappers are; it used to be the built-in
    /// sm_80 and sm_90, so a build for sm_86 lost its findings there.
    #[test]
    fn with_no_targets_named_the_objects_architectures_are_the_targets() {
        let kernel = |sm: u32| {
            let k = KernelResources {
                name: "k".to_owned(),
                demangled: None,
                arch: SmTarget::new(sm),
                toolkit: None,
                origin: occupancy_core::resources::Origin::Cubin,
                registers_per_thread: 32,
                static_smem_bytes: 0,
                local_bytes: 0,
                cumulative_stack_bytes: None,
                spill_store_bytes: None,
                spill_load_bytes: None,
                barriers: None,
                max_threads: None,
                required_threads: None,
                min_blocks_per_sm: None,
                max_registers: None,
                cluster_dims: None,
                max_cluster_rank: None,
                const_bank0_bytes: None,
                param_bytes: None,
            };
            (k, PathBuf::from("k.o"))
        };
        let compiled = Compiled {
            kernels: vec![kernel(90), kernel(86), kernel(80), kernel(86)],
            problems: Vec::new(),
        };
        let names = |t: Option<Vec<Target>>| {
            t.map(|t| t.iter().map(ToString::to_string).collect::<Vec<_>>())
        };
        assert_eq!(
            names(build_targets(&Policy::default(), &compiled)),
            Some(vec![
                "sm_80".to_owned(),
                "sm_86".to_owned(),
                "sm_90".to_owned()
            ])
        );
        let named = Policy::from_toml("targets = [\"sm_90\"]\n").unwrap();
        assert_eq!(names(build_targets(&named, &compiled)), None);
        assert_eq!(
            names(build_targets(&Policy::default(), &Compiled::default())),
            None
        );
    }

    #[test]
    fn policy_pairs_fill_together_and_lists_are_never_crossed() {
        assert_eq!(
            filled("[launches.launch_k]\nlaunches = [[32, 128], [[16, 16], 4096]]\n"),
            [
                "k grid 1 block 32 smem 128 B [block = 32, smem = 128]",
                "k grid 1 block (16, 16) smem 4096 B [block = (16, 16), smem = 4096]",
            ]
        );
        let crossed = filled("[launches.launch_k]\nblock = [32, 1024]\nsmem = [128, 4096]\n");
        assert_eq!(crossed.len(), 1, "{crossed:?}");
        assert!(crossed[0].contains("block ?"), "{crossed:?}");
        // One size for both blocks crosses nothing.
        assert_eq!(
            filled("[launches.launch_k]\nblock = [32, 1024]\nsmem = [128]\n").len(),
            2
        );
    }
}
