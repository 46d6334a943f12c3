//! The reading core run on lowered C++ (issue 25, stage 3's side-by-side step): a root of
//! the unit lowered, its names answered from the unit's index ([`UnitNames`]), run by
//! `occupancy_read`'s interpreter, and the launches it records, by file and line, for
//! comparison with what `interp.rs` reads ([`crate::LoweringCensus::side_by_side`]).
//!
//! A launch is recorded in the root's body and in the functions it calls
//! (`Mode::chevrons_in_callees`; their bodies lowered on first call, their places after the
//! root's in one table). Its integers follow C++'s rules (`Mode::lang`: conversions,
//! unsigned wrap-around), a root whose parameters the policy says hold device attributes
//! (`[device_params]`) is read once per target's values, and a root of a unit that asks the
//! device (`cudaDeviceGetAttribute`, lowered to a path the unit's names answer per target)
//! or names `__CUDA_ARCH_LIST__` once per target. Types are values: a template's type
//! parameters are bound per call, the unit's aliases resolved ([`Def::Type`]), `sizeof` of
//! one laid out per instantiation (`Names::type_layout`), and a `__global__` function named
//! as a value is a kernel ([`Def::Kernel`]). The roots are the core's own ([`roots`]). What
//! the core does not do for C++ yet, and so where the two differ by design: it reads no
//! `cudaLaunchKernelEx` attributes (a cluster) and no floating-point value, and its records
//! carry no conditions (`[cuda_launches]` candidates are the check's, for both). A null
//! function pointer (`NULL`, `nullptr`) is a kernel pointer that designates no kernel
//! ([`super::NULL_KERNEL`]): a path that launches it makes no launch. A function
//! parameter pack (`Archs... rest`) takes the rest of a call's arguments as a tuple that
//! `rest...` spreads again, and of a name's overloads the one taking the call's number of
//! arguments is read ([`Names::resolve_call`]).

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::sync::Arc;

use occupancy_core::arch::Target;
use occupancy_core::read::budget::Budget;
use occupancy_read::interp::{Interp, Mode, ParamKind};
use occupancy_read::ir::{Block, IntTy, Pat, Path, Stmt};
use occupancy_read::names::{
    ConstDef, CrateId, Def, FnBody, FnDef, Generic, ModuleId, Names, Place, Returns, Vis, seg,
};

use occupancy_read::launches::Launch;

use super::{LaunchWritten, Lowered, Unit, expression, function, function_at, int_type, is_dim3};
use crate::device::{self, DeviceParams, declared_attribute};
use crate::index::Function;
use crate::launch::{CudaLaunch, ReadNote};
use crate::reach::Reach;
use crate::syntax::{Field, Kind};

/// One launch as the side by side compares it: (block, dynamic shared memory, opt-in),
/// each `None` where it is not known (the opt-in: where none is made).
pub(crate) type Config = (Option<[u32; 3]>, Option<u32>, Option<u32>);

/// What one launch site makes on the paths of a reading.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Made {
    /// The launches' configurations.
    pub(crate) configs: BTreeSet<Config>,
    /// The kernels' instantiations (`k<float, 64>`, `k<?>` where an argument is not known).
    pub(crate) kernels: BTreeSet<String>,
    /// The launch paths the check takes ([`path_key`]; the core's from
    /// [`super::record::launch_paths`], of the records it could read), each with the
    /// targets of the readings that make it (`""`: a reading of every target).
    pub(crate) paths: BTreeMap<String, BTreeSet<String>>,
}

/// A launch path as the side by side compares it: all the check reads of it but the
/// conditions that lead to it (the core does not carry them yet) and its targets.
pub(crate) fn path_key(p: &crate::launch::LaunchPath) -> String {
    let mut p = p.clone();
    p.conditions.clear();
    p.targets.clear();
    format!(
        "{} (limit {:?}, candidates {:?}, unit {})",
        squeezed(&p.summary()),
        p.smem_limit,
        p.candidates,
        p.translation_unit
    )
}

/// `key` of a path made on `targets` (none, or `""`: on every one) of the `all` read: as the C++
/// check lists it, one entry of every target where it is made on each (`interp.rs`'s
/// `add_paths`), else with the targets.
pub(crate) fn with_targets(key: &str, targets: &BTreeSet<String>, all: usize) -> String {
    if targets.is_empty() || targets.contains("") || targets.len() >= all {
        return key.to_owned();
    }
    let on: Vec<&str> = targets.iter().map(String::as_str).collect();
    format!("{key} on {}", on.join(", "))
}

impl Made {
    /// What the check's site `launch` makes: the configurations, the kernels' instantiations
    /// and the launch paths ([`path_key`]) of its paths, each path with its targets (one of
    /// every target: `""`; several paths of one key, as the same launch with an unknown grid
    /// whose reason names each target's architecture, made on each of their targets).
    pub(crate) fn of(launch: &CudaLaunch) -> Made {
        let mut made = Made::default();
        for p in &launch.paths {
            made.configs.insert((
                p.block.known(),
                p.dynamic_smem_bytes.known(),
                p.opt_in_bytes,
            ));
            made.kernels.insert(squeezed(&p.kernel.to_string()));
            let targets = made.paths.entry(path_key(p)).or_default();
            if p.targets.is_empty() {
                targets.insert(String::new());
            }
            targets.extend(p.targets.iter().cloned());
        }
        made
    }

    /// Adds what `other` makes.
    pub(crate) fn extend(&mut self, other: Made) {
        self.configs.extend(other.configs);
        self.kernels.extend(other.kernels);
        for (key, targets) in other.paths {
            self.paths.entry(key).or_default().extend(targets);
        }
    }
}

/// A launch site: its file and line, and its kernel as written with no white space (a
/// macro that expands to several launches places them all at its invocation's line).
pub(crate) type SiteKey = (String, u32, String);

/// `kernel` as a [`SiteKey`] writes it.
pub(crate) fn squeezed(kernel: &str) -> String {
    kernel.split_whitespace().collect()
}

/// The roots of a unit the core reads: each host function no other function of the unit
/// calls (or `extern "C"`) that may reach a launch ([`Reach`]), a template with its
/// parameters unknown (but those the unit instantiates explicitly), and each explicit
/// instantiation of a host template (`template void run<float>(..);`) with its arguments
/// (the instantiation, `Some`), as the interpreter chooses them.
fn roots<'u, 't>(unit: Unit<'u>) -> Vec<(&'u Function<'t>, Option<crate::index::At<'t>>)>
where
    'u: 't,
{
    let index = unit.index;
    let reach = Reach::of(index);
    let named = |i: &crate::index::At<'_>| {
        i.field(Field::Name)
            .map(|n| n.text().rsplit("::").next().unwrap_or("").to_owned())
    };
    let instantiated: Vec<String> = index.instantiations.iter().filter_map(named).collect();
    let mut out: Vec<(&Function<'_>, Option<crate::index::At<'_>>)> = index
        .all_functions
        .iter()
        .filter(|f| !f.is_kernel && index.is_root(f) && reach.may_launch(f))
        .filter(|f| !(f.is_template && instantiated.contains(&f.name)))
        .map(|f| (f, None))
        .collect();
    for inst in &index.instantiations {
        let Some(f) = named(inst)
            .and_then(|name| index.functions.get(&name))
            .and_then(|fs| fs.iter().find(|f| !f.is_kernel && f.is_template))
        else {
            continue;
        };
        if reach.may_launch(f) {
            out.push((f, Some(*inst)));
        }
    }
    out
}

/// The launch sites the core reads on the roots of a unit ([`roots`]), added to `sites` as
/// the check takes them (a site: its file, line, form and kernel as written; its paths
/// converted by [`super::record::launch_paths`], one entry per distinct launch; why a
/// part is not checked). A root of a unit that `asks_device` (a device attribute query,
/// `__CUDA_ARCH_LIST__`) is read once per target, with that target's answers; one with
/// parameters `device_params` says hold device attributes once per distinct assignment of
/// their values on `targets`. A template of a header that no file instantiates, read as a
/// root by an earlier unit (`header_templates_read`: its file, line and whether that unit
/// asked the device), is not read again: with every template parameter unknown, its
/// reading is the same in each unit that includes the header (the interpreter's rule).
/// Returns the functions a reading entered (the roots and the functions they call), by
/// their bodies' node ids, as the interpreter's `entered`.
pub(crate) fn unit_sites(
    unit: Unit<'_>,
    translation_unit: &str,
    (targets, asks_device): (&[Target], bool),
    device_params: &DeviceParams,
    out: &mut CoreRead,
) -> HashSet<usize> {
    let mut entered = HashSet::new();
    for (f, instantiation) in roots(unit) {
        if instantiation.is_none()
            && f.is_template
            && f.body.code.shown != translation_unit
            && !out.header_templates_read.insert((
                f.body.code.shown.clone(),
                f.body.line(),
                asks_device,
            ))
        {
            continue;
        }
        entered.insert(f.body.node.id());
        let lowered = match instantiation {
            Some(inst) => super::types::instantiation(f, inst, unit),
            None => function(f, unit),
        };
        let mut names = UnitNames {
            unit,
            places: lowered.places,
            notes: lowered.notes,
            launches: lowered
                .launches
                .into_iter()
                .map(|(at, w)| (at.0, w))
                .collect(),
            functions: HashMap::new(),
            entered: HashSet::new(),
            target: None,
            root: namespace_of(f),
        };
        for (target, params) in per_target_params(f, targets, device_params, asks_device) {
            names.target = target;
            let mode = Mode {
                launch_calls: false,
                base_names: Vec::new(),
                assume: Vec::new(),
                launch_helpers: Vec::new(),
                chevrons_in_callees: true,
                lang: occupancy_read::value::Lang::Cpp,
            };
            let mut interp = Interp::new(&mut names, mode);
            if let Some(read) = out.read_budget.take() {
                interp = interp.with_read_budget(read);
            }
            // A template read as a root: its parameters known only per instantiation (an
            // explicit one binds them in its call).
            let generics: Vec<String> = match instantiation {
                Some(_) => Vec::new(),
                None => f
                    .template
                    .iter()
                    .filter(|t| !t.pack)
                    .map(|t| t.name.clone())
                    .collect(),
            };
            interp.run_wrapper(&lowered.body, &params, &generics);
            let launches = occupancy_read::launches::launches(&interp);
            let (read, own_spent) = interp.budgets();
            out.read_budget = read.cloned();
            drop(interp);
            if let Some(note) = budget_note(f, own_spent, out.read_budget.as_ref()) {
                add_note(&mut out.notes, note);
            }
            for launch in launches {
                let (Some((file, line)), Some(written)) = (
                    names.places.get(launch.at.0 as usize),
                    names.launches.get(&launch.at.0),
                ) else {
                    continue;
                };
                let site = site(&mut out.sites, (file, *line), written);
                // A template read as a root with its parameters unknown: what its launches'
                // template arguments are not known for.
                let uninstantiated = (!generics.is_empty()).then_some(f.qualified.as_str());
                let read = Read {
                    unit,
                    translation_unit,
                    target,
                    targets: targets.len(),
                    uninstantiated,
                };
                record(site, &launch, &read, written, &mut out.notes);
            }
        }
        entered.extend(names.entered);
        for note in names.notes {
            add_note(&mut out.notes, note);
        }
    }
    entered
}

/// What the core reads of a crate's units, unit after unit ([`unit_sites`]).
#[derive(Default)]
pub(crate) struct CoreRead {
    /// The launch sites, as the check takes them.
    pub(crate) sites: Vec<CudaLaunch>,
    /// What the build is told was not read.
    pub(crate) notes: Vec<ReadNote>,
    /// The templates of headers no file instantiates read so far: file, line, and whether
    /// the unit that read it asked the device.
    header_templates_read: HashSet<(String, u32, bool)>,
    /// The steps of the whole read, every unit and root ([`crate::files::read_budget`]);
    /// `None`: each root has only its own ([`occupancy_read::interp::MAX_STEPS`]).
    pub(crate) read_budget: Option<Budget>,
}

/// The note after root `f` where a budget ran out in it (`own_spent`: its own; else the
/// whole read's), so that what was not read is said, as the interpreter says it.
fn budget_note(f: &Function<'_>, own_spent: bool, read: Option<&Budget>) -> Option<ReadNote> {
    let message = if own_spent {
        format!(
            "`{}`: more than {} steps of interpretation: the rest is not read",
            f.qualified,
            occupancy_read::interp::MAX_STEPS
        )
    } else if let Some(read) = read.filter(|r| r.spent()) {
        format!(
            "`{}`: the reader's budget for these files ({} steps, {} per byte of source, the \
             parse of file-scope macro expansions included) is spent: the rest is not read",
            f.qualified,
            read.limit(),
            crate::files::STEPS_PER_SOURCE_BYTE
        )
    } else {
        return None;
    };
    Some(ReadNote {
        file: f.body.code.shown.clone(),
        line: Some(f.body.line()),
        message,
    })
}

/// Adds `note` to `notes`, once, at most 1,000 in all (as the interpreter's).
fn add_note(notes: &mut Vec<ReadNote>, note: ReadNote) {
    if !notes.contains(&note) && notes.len() < 1000 {
        notes.push(note);
    }
}

/// The site of `sites` at `file` and `line` written as `written`, added where there is
/// none.
fn site<'s>(
    sites: &'s mut Vec<CudaLaunch>,
    (file, line): (&str, u32),
    written: &LaunchWritten,
) -> &'s mut CudaLaunch {
    let kernel_written = crate::syntax::clip(&written.kernel, 80);
    let at = sites.iter().position(|s| {
        s.file == file
            && s.line == line
            && s.form == written.form
            && s.kernel_written == kernel_written
    });
    let at = at.unwrap_or_else(|| {
        sites.push(CudaLaunch {
            file: file.to_owned(),
            line,
            function: written.function.clone(),
            form: written.form,
            kernel_written,
            paths: Vec::new(),
            not_checked: Vec::new(),
        });
        sites.len() - 1
    });
    &mut sites[at]
}

/// What one reading of a root is: its unit, the target it answers device queries for and
/// how many targets the read is of, and the template it reads with its parameters unknown
/// (`None`: none).
struct Read<'r> {
    unit: Unit<'r>,
    translation_unit: &'r str,
    target: Option<Target>,
    targets: usize,
    uninstantiated: Option<&'r str>,
}

/// Adds what the core's record `launch` of the reading `read` makes to its site, its
/// run-time values filled with the `// occupancy:` comment's `candidates`: its paths, or why
/// it is not checked.
fn record(
    site: &mut CudaLaunch,
    launch: &Launch,
    read: &Read<'_>,
    written: &LaunchWritten,
    notes: &mut Vec<ReadNote>,
) {
    if let Some(why) = launch.error.as_ref().or(written.unread.as_ref()) {
        site.not_checked(why.clone());
        return;
    }
    // Never half a comment: a launch whose comment cannot be read is not checked.
    let candidates = match &written.candidates {
        Ok(c) => c,
        Err((line, why)) => {
            let note = ReadNote {
                file: site.file.clone(),
                line: Some(*line),
                message: format!(
                    "`// occupancy:` comment not read (the launch on line {} is not checked): {why}",
                    site.line
                ),
            };
            add_note(notes, note);
            site.not_checked(format!(
                "the `// occupancy:` comment on line {line} is not read: {why}"
            ));
            return;
        }
    };
    let Some(kernel) = &launch.kernel else {
        site.not_checked(format!(
            "the kernel `{}` is not a __global__ function of the files read",
            crate::syntax::clip(&site.kernel_written, 60)
        ));
        return;
    };
    // A launch of a null function pointer makes no launch: nothing to check on this path.
    if kernel.name == super::NULL_KERNEL {
        return;
    }
    if launch.template_args.is_none() {
        site.not_checked(match read.uninstantiated {
            Some(template) => format!(
                "`{}`: its template arguments depend on the template parameters of `{template}`, which the files read do not instantiate",
                kernel.name
            ),
            None => format!("`{}`: its template arguments are not known", kernel.name),
        });
    }
    let paths = super::record::launch_paths(
        launch,
        (candidates, &written.origins, written.cluster),
        read.unit,
        read.translation_unit,
        read.target.as_ref(),
    );
    site.add_paths(paths, read.targets);
}

/// One reading of a root: the target it answers device queries for (`None`: no one
/// target), and its parameters.
type Run = (Option<Target>, Vec<(Pat, ParamKind)>);

/// A root's parameters, one list per distinct assignment of the device attributes
/// `device_params` says some of them hold on `targets` (one list where none is declared):
/// a declared one is its target's value from the GPU tables (unknown where the tables do
/// not have it), other integers their C++ type's range, the rest unknown. Where the unit
/// `asks_device`, one list per target, with the target its answers are read for.
fn per_target_params(
    f: &Function<'_>,
    targets: &[Target],
    device_params: &DeviceParams,
    asks_device: bool,
) -> Vec<Run> {
    let attributes: Vec<Option<&str>> = f
        .params
        .iter()
        .map(|p| declared_attribute(device_params, &f.qualified, &p.name))
        .collect();
    let each = |target: Option<&Target>| -> Vec<(Pat, ParamKind)> {
        f.params
            .iter()
            .zip(&attributes)
            .map(|(p, attribute)| {
                let int = (p.pointers == 0).then(|| int_type(&p.ty)).flatten();
                let kind = match (attribute, target) {
                    (Some(a), Some(t)) => match device::declared(a, t) {
                        Ok(v) => ParamKind::Known(v, int.unwrap_or(IntTy::I64)),
                        Err(_) => ParamKind::Other,
                    },
                    (Some(_), None) => ParamKind::Other,
                    (None, _) => match int {
                        Some(ty) => ParamKind::Int(ty),
                        None if p.pointers == 0 && p.ty.split_whitespace().any(|w| w == "bool") => {
                            ParamKind::Bool
                        }
                        None => ParamKind::Other,
                    },
                };
                (Pat::Bind(p.name.clone(), None), kind)
            })
            .collect()
    };
    if asks_device && !targets.is_empty() {
        return targets.iter().map(|t| (Some(*t), each(Some(t)))).collect();
    }
    if attributes.iter().all(Option::is_none) || targets.is_empty() {
        return vec![(None, each(None))];
    }
    let mut runs: Vec<Vec<(Pat, ParamKind)>> = Vec::new();
    for params in targets.iter().map(|t| each(Some(t))) {
        if !runs.contains(&params) {
            runs.push(params);
        }
    }
    runs.into_iter().map(|params| (None, params)).collect()
}

/// The unit's names as the core asks for them: namespace-scope constants (their
/// initialisers lowered) and functions (their bodies lowered). Everything is in one module;
/// nothing is confirmed by a compiler (C++ has no confirmations), so a root path is the name.
struct UnitNames<'i> {
    unit: Unit<'i>,
    /// Where each [`occupancy_read::ir::At`] of the root and of the functions lowered for
    /// it is ([`function_at`] numbers each body's after the last).
    places: Vec<(String, u32)>,
    /// Each launch of those bodies as written ([`super::Lowered::launches`]).
    launches: HashMap<u32, LaunchWritten>,
    /// The functions lowered for a call, by their bodies' node ids.
    entered: HashSet<usize>,
    /// What the lowerings of those bodies tell the build ([`super::Lowered::notes`]).
    notes: Vec<ReadNote>,
    /// The functions lowered so far, by name.
    functions: HashMap<String, Def>,
    /// The target this reading answers device queries and `__CUDA_ARCH_LIST__` for (`None`:
    /// a reading of no one target, where they are unknown).
    target: Option<Target>,
    /// The namespaces the root is defined in ([`namespace_of`]), where its names are
    /// looked up.
    root: ModuleId,
}

fn unit_module() -> ModuleId {
    ModuleId {
        krate: CrateId::Local,
        path: Vec::new(),
    }
}

/// The segment that marks a module as an unnamed namespace's (inside the namespaces of the
/// path before it).
const UNNAMED: &str = "{anonymous}";

/// The namespaces (and classes) `scope`, inside an unnamed namespace there where
/// `anonymous`, as the core's module: where the names of a function or a constant's
/// initialiser defined there are looked up ([`crate::index::constant_scope`]).
fn module_of(scope: &[String], anonymous: bool) -> ModuleId {
    let mut path = scope.to_vec();
    if anonymous {
        path.push(UNNAMED.to_owned());
    }
    ModuleId {
        krate: CrateId::Local,
        path,
    }
}

/// The parameters `f` declares: none for `(void)`.
fn declared_params<'f, 't>(f: &'f Function<'t>) -> &'f [crate::index::Param<'t>] {
    match f.params.as_slice() {
        [only] if only.ty.trim() == "void" && only.pointers == 0 && only.name.is_empty() => &[],
        all => all,
    }
}

/// The module of the namespaces `f` is defined in (`ns::Launcher::run`: `ns::Launcher`).
fn namespace_of(f: &Function<'_>) -> ModuleId {
    let mut scope: Vec<String> = f.qualified.split("::").map(str::to_owned).collect();
    scope.pop();
    module_of(&scope, f.anonymous)
}

/// A function's body, lowered when the front end is asked for it.
#[derive(Debug)]
struct Body(Block);

impl FnBody for Body {
    fn get(&self) -> &Block {
        &self.0
    }
}

impl Names for UnitNames<'_> {
    fn body_consts(&self) -> &[ConstDef] {
        &[]
    }

    fn place(&mut self, place: &Place) -> (Option<ModuleId>, Option<String>) {
        (Some(self.module(place)), None)
    }

    fn place_of(&mut self, _: &ModuleId) -> String {
        "the translation unit".to_owned()
    }

    fn resolve(&mut self, path: &Path, place: &Place) -> Result<Def, String> {
        if let [scope, member] = path.segments.as_slice() {
            let scope = super::types::type_text(scope);
            if let Some((expr, ty_text)) =
                super::types::struct_member(self.unit, &scope, &member.ident)
            {
                return Ok(Def::Const(
                    ConstDef {
                        name: member.ident.clone(),
                        ty: int_type(&ty_text),
                        ty_text,
                        expr,
                        vis: Vis::Pub,
                    },
                    unit_module(),
                    Some(scope),
                ));
            }
        }
        let name = path.last();
        if let Some(value) = self.asked(path) {
            let (value, ty) = value?;
            return Ok(Def::Const(
                ConstDef {
                    name: name.to_owned(),
                    ty: Some(ty),
                    ty_text: ty.name().to_owned(),
                    expr: occupancy_read::ir::Expr::Int(value, Some(ty)),
                    vis: Vis::Pub,
                },
                unit_module(),
                None,
            ));
        }
        if let Some(constants) = self.unit.index.constants.get(name) {
            // C++'s lookup from the namespaces of the code read (a constant's initialiser
            // is read in its own): the innermost that declares it, or the one the
            // qualifier names from there.
            let module = self.module(place);
            let inside_anonymous = module.path.last().is_some_and(|s| s == UNNAMED);
            let from = &module.path[..module.path.len() - usize::from(inside_anonymous)];
            let qualifier: Vec<String> = path
                .segments
                .split_last()
                .map(|(_, before)| before.iter().map(|s| s.ident.clone()).collect())
                .unwrap_or_default();
            let qualifier = (!qualifier.is_empty()).then_some(qualifier.as_slice());
            let (scope, anonymous) =
                crate::index::constant_scope(constants, qualifier, from, inside_anonymous)
                    .map_err(|why| format!("`{name}`: {why}"))?;
            if let Some(c) = constants
                .iter()
                .find(|c| c.scope == scope && c.anonymous == anonymous)
            {
                let (ty_text, expr) = super::types::constant_init(&c.init, self.unit);
                return Ok(Def::Const(
                    ConstDef {
                        name: name.to_owned(),
                        ty: int_type(&ty_text),
                        ty_text,
                        expr,
                        vis: Vis::Pub,
                    },
                    module_of(&scope, anonymous),
                    None,
                ));
            }
        }
        if let [segment] = path.segments.as_slice()
            && let Some(ty) = super::types::alias_type(self.unit, &segment.ident)
        {
            return Ok(Def::Type(unit_module(), ty));
        }
        // The null pointer constant: a kernel pointer that designates no kernel.
        if let [segment] = path.segments.as_slice()
            && segment.ident == super::NULL_KERNEL
        {
            return Ok(Def::Kernel(super::NULL_KERNEL.to_owned()));
        }
        // A kernel by the name its definition has (`flashinfer::MergeStateKernel`, written
        // `MergeStateKernel` inside the namespace), as the objects' symbols name it.
        if let Some(kernel) = self.unit.index.kernel(name) {
            return Ok(Def::Kernel(kernel.qualified.clone()));
        }
        self.function(path, None)
    }

    fn type_layout(&mut self, ty: &str) -> Option<(occupancy_read::ir::Expr, u64)> {
        super::types::type_layout(self.unit, ty)
    }

    fn resolve_call(&mut self, path: &Path, place: &Place, arity: usize) -> Result<Def, String> {
        if self.asked(path).is_some() || self.unit.index.constants.contains_key(path.last()) {
            return self.resolve(path, place);
        }
        self.function(path, Some(arity))
    }

    fn lib_name(&self) -> Option<&str> {
        None
    }

    fn root_path(&mut self, _: &ModuleId, _: Option<&str>, def: &ConstDef) -> Result<Path, String> {
        Ok(Path {
            leading_colon: false,
            segments: vec![seg(&def.name)],
        })
    }

    fn fn_root_path(
        &mut self,
        _: &ModuleId,
        _: Option<&str>,
        _: &FnDef,
        written: &Path,
    ) -> Result<Path, String> {
        Ok(written.clone())
    }
}

impl UnitNames<'_> {
    /// The module of the code at `place`: the root's at its place, else the one its
    /// function or constant is defined in.
    fn module(&self, place: &Place) -> ModuleId {
        match &place.module {
            Some(m) if !place.at_wrapper => m.clone(),
            _ => self.root.clone(),
        }
    }

    /// The unit's host function `path` names, lowered on first use: of its overloads, the
    /// one taking `arity` arguments (from its parameters without a default to all of them,
    /// or at least those before a parameter pack) where a call gives that many, else the
    /// first; lowered per number of arguments given, the parameters left out bound to
    /// their defaults at the top of its body.
    fn function(&mut self, path: &Path, arity: Option<usize>) -> Result<Def, String> {
        let name = path.last();
        let takes = |f: &&Function<'_>| {
            let params = declared_params(f);
            let n = params.len();
            // The parameters before the first with a default must be given.
            let required = params.iter().take_while(|p| p.default.is_none()).count();
            arity.is_none_or(|a| {
                if params.last().is_some_and(|p| p.pack) {
                    a + 1 >= n
                } else {
                    (required..=n).contains(&a)
                }
            })
        };
        let overloads: Vec<&Function<'_>> = self
            .unit
            .index
            .functions
            .get(name)
            .map(|fs| fs.iter().filter(|f| !f.is_kernel).collect())
            .unwrap_or_default();
        let Some(at) = overloads
            .iter()
            .position(takes)
            .or_else(|| (!overloads.is_empty()).then_some(0))
        else {
            return Err(format!(
                "`{}` is not a constant or function of the unit",
                path.text()
            ));
        };
        let f = overloads[at];
        let params = declared_params(f);
        // The parameters the call gives; the others take their defaults.
        let given = match arity {
            Some(a) if !params.last().is_some_and(|p| p.pack) => a.min(params.len()),
            _ => params.len(),
        };
        let key = format!("{name}#{at}#{given}");
        if let Some(def) = self.functions.get(&key) {
            return Ok(def.clone());
        }
        self.entered.insert(f.body.node.id());
        let base = u32::try_from(self.places.len()).unwrap_or(u32::MAX);
        let Lowered {
            mut body,
            places,
            launches,
            notes,
            ..
        } = function_at(f, self.unit, base);
        let defaults: Vec<Stmt> = params[given..]
            .iter()
            .filter_map(|p| {
                let value = expression(p.default?, self.unit);
                let ty = (p.pointers == 0).then(|| int_type(&p.ty)).flatten();
                Some(Stmt::Let(Box::new(occupancy_read::ir::Let {
                    pat: Pat::Bind(p.name.clone(), None),
                    init: Some(value),
                    otherwise: None,
                    ty,
                    at: occupancy_read::ir::At::NONE,
                })))
            })
            .collect();
        body.stmts.splice(0..0, defaults);
        self.notes.extend(notes);
        self.places.extend(places);
        self.launches
            .extend(launches.into_iter().map(|(at, w)| (at.0, w)));
        let def = Def::Fn(
            FnDef {
                name: name.to_owned(),
                vis: Vis::Pub,
                is_const: false,
                // A pack (`int... Ns`) is not one value: not bound.
                generics: f
                    .template
                    .iter()
                    .map(|t| match (t.pack, t.is_type) {
                        (true, _) => Generic::Unbound,
                        (false, true) => Generic::Type(t.name.clone()),
                        (false, false) => Generic::Const(t.name.clone()),
                    })
                    .collect(),
                generic_defaults: f
                    .template
                    .iter()
                    .map(|t| {
                        t.default.map(|d| match t.is_type {
                            true => super::type_default(d, self.unit),
                            false => expression(d, self.unit),
                        })
                    })
                    .collect(),
                params: params[..given]
                    .iter()
                    .map(|p| {
                        let ty = (p.pointers == 0).then(|| int_type(&p.ty)).flatten();
                        (Pat::Bind(p.name.clone(), None), ty)
                    })
                    .collect(),
                // Whether the compiler can confirm the function item without its types: a
                // Rust question. Nothing of a C++ read is confirmed, and a template's types
                // deduced from the arguments change no integer the core reads (`sizeof` of
                // a type parameter is left unknown by the lowering).
                generic_over_types: false,
                returns: returns(f),
                pack: params.last().is_some_and(|p| p.pack),
                body: Arc::new(Body(body)),
            },
            namespace_of(f),
            None,
        );
        self.functions.insert(key, def.clone());
        Ok(def)
    }

    /// What the reading's target answers for `path`, when it is a question to the device: a
    /// device attribute query as lowered (`cudaDeviceGetAttribute::cudaDevAttrWarpSize`, an
    /// `int`) or `__CUDA_ARCH_LIST__` (the target's architecture, nvcc's list for a build
    /// of that target alone: [`device::arch_list`]). `Err`: why it is not known here.
    fn asked(&self, path: &Path) -> Option<Result<(i128, IntTy), String>> {
        let no_target = |what: &str| {
            Err(format!(
                "{what}: a value of each target, and this reading is of no one target"
            ))
        };
        match path.idents().as_slice() {
            ["__CUDA_ARCH_LIST__"] => Some(match &self.target {
                Some(t) => match device::arch_list(t).as_slice() {
                    [one] => Ok((*one, IntTy::I32)),
                    _ => Err("`__CUDA_ARCH_LIST__` of several architectures".to_owned()),
                },
                None => no_target("`__CUDA_ARCH_LIST__`"),
            }),
            [super::DEVICE_ATTRIBUTE, attribute] => Some(match &self.target {
                Some(t) => device::attribute(attribute, t).map(|v| (v, IntTy::I32)),
                None => no_target(&format!("`{attribute}`")),
            }),
            [super::DEVICE_PROPERTY, field] => Some(match &self.target {
                Some(t) => device::property(field, t).map(|(v, ty)| (v, ty.lowered())),
                None => no_target(&format!("`cudaDeviceProp::{field}`")),
            }),
            [name] => standard_limit(name).map(Ok),
            _ => None,
        }
    }
}

/// The value and type of a limit macro of `<climits>` and `<cstdint>` (`INT_MAX`,
/// `SIZE_MAX`), which a unit includes but the reader does not read, on LP64 (as nvcc's
/// host compilers on Linux): a unit's own macro or constant of that name is taken first.
fn standard_limit(name: &str) -> Option<(i128, IntTy)> {
    Some(match name {
        "CHAR_BIT" => (8, IntTy::I32),
        "SCHAR_MAX" | "INT8_MAX" => (i8::MAX.into(), IntTy::I32),
        "SCHAR_MIN" | "INT8_MIN" => (i8::MIN.into(), IntTy::I32),
        "UCHAR_MAX" | "UINT8_MAX" => (u8::MAX.into(), IntTy::I32),
        "SHRT_MAX" | "INT16_MAX" => (i16::MAX.into(), IntTy::I32),
        "SHRT_MIN" | "INT16_MIN" => (i16::MIN.into(), IntTy::I32),
        "USHRT_MAX" | "UINT16_MAX" => (u16::MAX.into(), IntTy::I32),
        "INT_MAX" | "INT32_MAX" => (i32::MAX.into(), IntTy::I32),
        "INT_MIN" | "INT32_MIN" => (i32::MIN.into(), IntTy::I32),
        "UINT_MAX" | "UINT32_MAX" => (u32::MAX.into(), IntTy::U32),
        "LONG_MAX" | "LLONG_MAX" | "INT64_MAX" => (i64::MAX.into(), IntTy::I64),
        "LONG_MIN" | "LLONG_MIN" | "INT64_MIN" => (i64::MIN.into(), IntTy::I64),
        "ULONG_MAX" | "ULLONG_MAX" | "UINT64_MAX" | "SIZE_MAX" => (u64::MAX.into(), IntTy::U64),
        _ => return None,
    })
}

/// What `f` returns as the core reads it: an integer of its C++ type, a `dim3` (values
/// chosen together), else nothing the core reads.
fn returns(f: &Function<'_>) -> Returns {
    let ty = f
        .body
        .node
        .parent()
        .filter(|d| Kind::of(*d) == Some(Kind::FunctionDefinition))
        .and_then(|d| crate::syntax::child(d, Field::Type))
        .map_or("", |t| f.body.code.text(t));
    match int_type(ty) {
        Some(ty) => Returns::Int(ty),
        None if is_dim3(ty) => Returns::Value,
        None if ty.trim() == "bool" => Returns::Bool,
        None => Returns::Other,
    }
}
