//! The checked launch description ([`Spec`]) that every front end works from.

use std::path::PathBuf;

use occupancy_core::arch::Target;
use occupancy_core::cluster::Cluster;
use occupancy_core::lint::{
    ArtifactFacts, Input, KernelClass, Level, Lint, LintLevels, MinOccupancy, Thresholds,
};
use occupancy_core::occupancy::{BlockDim, Carveout, GridDim, Kernel, Launch};
use occupancy_core::resources::{KernelResources, SmTarget};
use proc_macro2::{Span, TokenStream};

use crate::location::Location;
use crate::value::Value;

/// A checked launch description: the launches the wrapper makes (read from its body, or
/// given in the attribute, one [`Plan`] per combination of run-time candidates), the
/// kernels they launch (one, or a family) with their resources per target, the policy
/// applied (the attribute wins), and what the compiler must confirm.
pub struct Spec {
    /// The wrapper function's name.
    pub wrapper: String,
    /// The targets, in the attribute's (or the policy's) order.
    pub targets: Vec<TargetSpec>,
    /// Where the targets came from.
    pub targets_origin: TargetsOrigin,
    /// The `low_occupancy` floor, resolved by `Policy::floor`: the attribute's
    /// `min_occupancy`, else its `class`'s floor, else the policy's.
    pub min_occupancy: MinOccupancy,
    /// The kernel class the floor came from, if any.
    pub class: Option<KernelClass>,
    /// Lint levels: defaults, then the policy's `[lints]`, then the attribute's.
    pub levels: LintLevels,
    /// The policy's `[thresholds]`.
    pub thresholds: Thresholds,
    /// Every launch to check: each launch of the body, once per combination of its
    /// run-time candidates (or the attribute's `block`, `smem`, `grid`). Never empty.
    pub plans: Vec<Plan>,
    /// The kernels launched, with their resources per target (a family has several); empty
    /// when the attribute gives the resources literally (`regs = N`).
    pub kernels: Vec<KernelSpec>,
    /// Registers per thread given in the attribute (`regs`): overrides the artifact's.
    pub regs: Option<Value>,
    /// Static shared memory per block given in the attribute (`static_smem`), bytes.
    pub static_smem: Option<Value>,
    /// Block barriers given in the attribute (`barriers`).
    pub barriers: Option<Value>,
    /// The launch bounds' max threads per block given in the attribute (`max_threads`).
    pub max_threads: Option<Value>,
    /// The dynamic shared memory opt-in (`opt_in`), bytes.
    pub opt_in: Option<Value>,
    /// The preferred carveout (`carveout`), percent.
    pub carveout: Option<u8>,
    /// The thread-block cluster (`cluster`, cc 9.0+), with `non_portable` applied.
    pub cluster: Option<Cluster>,
    /// `non_portable = true`: the wrapper sets
    /// `CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED`, for the attribute's cluster or
    /// the compiled kernel's `__cluster_dims__`.
    pub non_portable: bool,
    /// Where the kernels' resources come from (`kernel`, `cubin`, `fatbin`), if anywhere.
    pub source: Option<Source>,
    /// Files the result depends on (policy, manifest, cubin, fatbin), absolute: the
    /// expansion `include_bytes!`s them so that cargo rebuilds when one changes.
    pub tracked_files: Vec<PathBuf>,
    /// Environment variables the result depends on: the expansion reads them with
    /// `option_env!` so that cargo rebuilds when one changes.
    pub tracked_vars: Vec<&'static str>,
    /// Values the front end read from names (constants of the crate, helpers' constants,
    /// `const fn`s): the expansion asserts each during compilation.
    pub confirmations: Vec<Confirmation>,
    /// Helpers the body calls and the front end read: the expansion has the compiler check
    /// that the function read is the function called.
    pub helpers: Vec<HelperCheck>,
    /// Where the wrapper's confirmations may be shared with other wrappers' (the macro's
    /// `tracked.rs`): the wrapper's file and module, when the front end found the wrapper
    /// there as the one free function of its name and signature and its body declares no
    /// item (so that a name means in its body what it means in its module); `None`: each
    /// confirmation is made in the wrapper, as always.
    pub shared_scope: Option<String>,
    /// What the front end could not read, and why (for notes on the compile-time path).
    pub unread: Vec<String>,
    /// Where the spec was written, for diagnostics about inputs it did not give: the
    /// attribute's span, or the file and line of a launch read outside an attribute.
    pub attribute: Location,
    /// The key of each input the attribute gave, to point diagnostics at (empty outside an
    /// attribute).
    pub keys: Vec<(Input, Span)>,
}

/// One launch to check: block, dynamic shared memory and grid, with where each is written.
pub struct Plan {
    /// Threads per block, x, y, z.
    pub block: [Value; 3],
    /// Dynamic shared memory per block, bytes.
    pub smem: Value,
    /// Blocks in the grid, x, y, z; `None` when known only at run time (most real grids
    /// depend on the data) and not given as a candidate.
    pub grid: Option<[Value; 3]>,
    /// How messages name this launch when the wrapper has several plans (`block = 32`,
    /// `cfg_small`); `None` when it is the only one.
    pub label: Option<String>,
    /// Where the block is written: the body's expression, else the attribute's key (a
    /// C++ launch: its file and line).
    pub block_span: Location,
    /// Where the dynamic shared memory is written.
    pub smem_span: Location,
    /// Where the grid is written.
    pub grid_span: Location,
    /// Where the configuration came from, for notes (`cudarc's LaunchConfig::for_num_elems
    /// in the body`); `None` for the attribute's keys alone.
    pub origin: Option<String>,
    /// The kernel the path that makes this launch names (`load_function("k_f16")`, or the
    /// glob of a name built at run time): only the kernels of [`Spec::kernels`] that match
    /// it are checked with this plan. `None`: every kernel.
    pub kernel: Option<String>,
    /// The launch calls of the body that make this launch (`.launch(cfg)`, cust's
    /// `launch!`): one plan stands for the same launch made at several calls. Empty for a
    /// launch the attribute's keys alone describe.
    pub launches: Vec<Span>,
    /// Notes every finding on this plan carries: how the body's run-time sets were
    /// enumerated (`` `ncols_pad` from `ncols.next_power_of_two()`: each of 1, 2, 4, ...,
    /// 16384 checked ``).
    pub notes: Vec<String>,
    /// Plans that are the members of one run-time range of one launch share it: their
    /// findings are reported together (the worst member, the others in a note).
    pub range: Option<usize>,
}

/// A kernel of the wrapper and its resources on each target (the cubin the driver would
/// load there: same compute capability, else the highest lower one of the same major
/// version).
pub struct KernelSpec {
    /// Its name (the `__global__` function's, demangled).
    pub name: String,
    /// One per target of [`Spec::targets`], in order; `None` where the kernel, a member of
    /// a family, has no cubin the driver would load on that target: it is not part of the
    /// family there (a kernel named alone has resources on every target).
    pub resources: Vec<Option<KernelResources>>,
    /// The architectures it was compiled for, when it is left out on some target (for the
    /// note that says so); else empty.
    pub compiled_for: Vec<SmTarget>,
}

/// One target of a [`Spec`].
pub struct TargetSpec {
    /// The target.
    pub target: Target,
    /// The string that named it in the attribute; [`Spec::attribute`] when it came from the
    /// policy.
    pub span: Location,
}

/// Where a [`Spec`]'s targets came from, in the order they are looked for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TargetsOrigin {
    /// The attribute's `target`.
    Attribute,
    /// The policy's `targets`.
    Policy,
    /// The targets the crate's build script compiles for (`OCCUPANCY_TARGETS`, set by the
    /// build helper; for a CUDA C++ launch, those its objects hold cubins for), when
    /// neither the attribute nor the policy names any.
    Build,
    /// The built-in defaults (`occupancy_core::policy::DEFAULT_TARGETS`).
    Default,
}

/// An assertion the expansion emits: `expr`, evaluated by the compiler, equals `value`.
pub struct Confirmation {
    /// The expression, valid in the wrapper's body, spanned at what the user wrote.
    pub expr: TokenStream,
    /// The value the front end read.
    pub value: i128,
    /// The expression names `Self` or a generic parameter: it is asserted in an inline
    /// `const { }` in the body (evaluated by `cargo build`, not `cargo check`) rather than
    /// in a `const` item.
    pub in_body: bool,
    /// The expression as a person writes it (`TILE * 4`), for the assertion's message.
    pub text: String,
    /// What it was read from (`` `TILE` = 16 in src/consts.rs ``).
    pub what: String,
    /// Set when the attribute states another value than the front end read: the
    /// assertion is then the attribute's claim about the body's expression.
    pub from_attribute: Option<&'static str>,
    /// Where to report a failed assertion.
    pub span: Span,
    /// The expression names no generic parameter of the wrapper and no `Self`: it means
    /// the same in every function of the wrapper's module whose body declares no item.
    pub shareable: bool,
}

/// A helper function the body calls, read from the crate's sources.
pub struct HelperCheck {
    /// The call's path as written (`launch_cfg::<128>`).
    pub written: TokenStream,
    /// The function read, from the crate root (`crate::launch::launch_cfg::<128>`).
    pub read: TokenStream,
    /// The call, for a failed check.
    pub span: Span,
}

/// Where a kernel's resources were read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Source {
    /// Manifest, cubin or fatbin.
    pub kind: SourceKind,
    /// The kernel's name (or the family's names and globs) as the attribute or the body gave
    /// it (or the only kernel of a cubin/fatbin).
    pub kernel: String,
    /// The file read, absolute.
    pub path: PathBuf,
    /// How to name it to the user: the path as written, or the variable that named it.
    pub shown: String,
}

/// What kind of file a [`Source`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SourceKind {
    /// The resource manifest (`kernel = "name"` alone), found as [`ManifestOrigin`] says.
    Manifest(ManifestOrigin),
    /// `cubin = "path"`.
    Cubin,
    /// `fatbin = "path"`.
    Fatbin,
    /// A host object or static library nvcc built (its `.nv_fatbin` sections): the
    /// resources of a launch read from CUDA C++ host code ([`Spec::external`]).
    Object,
}

/// How `kernel = "name"` found the resource manifest, in the order it looks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ManifestOrigin {
    /// `$OCCUPANCY_MANIFEST`, set by the build helper through `cargo:rustc-env`.
    EnvVar,
    /// `$OUT_DIR/occupancy/manifest.json` (a build script ran, the variable is not set).
    OutDir,
    /// The policy's `manifest` key, relative to the crate.
    Policy,
    /// `kernels.manifest.json` beside the crate's `Cargo.toml`.
    Default,
}

/// A target's engine inputs as [`Value`]s: the attribute's where it gave them, else the
/// artifact's (unspanned literals), else the defaults.
pub(crate) struct KernelValues {
    pub(crate) regs: Value,
    pub(crate) static_smem: Value,
    pub(crate) barriers: Value,
    pub(crate) max_threads: Option<Value>,
}

/// A launch read outside an attribute (CUDA C++ host code, read by `occupancy-cuda`): what
/// [`Spec::external`] needs to check it with the same engine, lints and policy as a
/// wrapper. Its locations are the launch's file and line ([`Location::File`]); its values
/// have no spans.
pub struct ExternalLaunch {
    /// How messages name the launch: the launching function (`launch_softmax`).
    pub name: String,
    /// Where the launch is written (a `.cu` file and line): the spec's
    /// [`Spec::attribute`] and its targets' location.
    pub location: Location,
    /// The launches to check (one per path; block and dynamic shared memory known).
    pub plans: Vec<Plan>,
    /// The kernels launched, with their resources on each of `targets`, in order.
    pub kernels: Vec<KernelSpec>,
    /// The targets checked.
    pub targets: Vec<Target>,
    /// The dynamic shared memory opt-in the host code sets for the kernel before the
    /// launch (`cudaFuncAttributeMaxDynamicSharedMemorySize`), bytes.
    pub opt_in_bytes: Option<u32>,
    /// The launch's thread-block cluster (a `cudaLaunchAttributeClusterDimension`).
    pub cluster: Option<Cluster>,
    /// Where the kernels' resources were read (for the findings' notes).
    pub source: Option<Source>,
    /// Files the result depends on (the objects, the policy).
    pub tracked_files: Vec<PathBuf>,
    /// `targets` are those the objects read are compiled for (the policy names none).
    pub targets_from_build: bool,
}

impl Spec {
    /// The spec of a launch read outside an attribute, under `policy` (its floor, class,
    /// lint levels and thresholds; the launch's own `targets`). [`Spec::evaluate`] then
    /// runs the engine and every lint on it, as for a wrapper.
    pub fn external(launch: ExternalLaunch, policy: &occupancy_core::policy::Policy) -> Spec {
        let (min_occupancy, class) = policy.floor(None, None);
        Spec {
            wrapper: launch.name,
            targets: launch
                .targets
                .into_iter()
                .map(|target| TargetSpec {
                    target,
                    span: launch.location.clone(),
                })
                .collect(),
            targets_origin: if policy.targets_named {
                TargetsOrigin::Policy
            } else if launch.targets_from_build {
                TargetsOrigin::Build
            } else {
                TargetsOrigin::Default
            },
            min_occupancy,
            class,
            levels: policy.lints.clone(),
            thresholds: policy.thresholds,
            plans: launch.plans,
            kernels: launch.kernels,
            regs: None,
            static_smem: None,
            barriers: None,
            max_threads: None,
            opt_in: launch.opt_in_bytes.map(Value::unspanned),
            carveout: None,
            cluster: launch.cluster,
            non_portable: false,
            source: launch.source,
            tracked_files: launch.tracked_files,
            tracked_vars: Vec::new(),
            confirmations: Vec::new(),
            helpers: Vec::new(),
            shared_scope: None,
            unread: Vec::new(),
            attribute: launch.location,
            keys: Vec::new(),
        }
    }

    /// Where to point for `input` on `plan`: the body's expression or the key for the
    /// launch's own values; for a resource the attribute did not give but the compiled
    /// kernel did, the `kernel` (or `cubin`, `fatbin`) key; else the attribute (a launch
    /// read outside an attribute: its file and line, for every input).
    pub fn span_of(&self, input: Input, plan: usize) -> Location {
        if let Some(p) = self.plans.get(plan) {
            match input {
                Input::Block => return p.block_span.clone(),
                Input::DynamicSmem => return p.smem_span.clone(),
                Input::Grid => return p.grid_span.clone(),
                _ => {}
            }
        }
        let key = |input: Input| {
            self.keys
                .iter()
                .find(|(i, _)| *i == input)
                .map(|(_, span)| *span)
        };
        if let Some(span) = key(input) {
            return Location::Span(span);
        }
        let from_artifact = matches!(
            input,
            Input::Registers | Input::StaticSmem | Input::Barriers | Input::MaxThreads
        );
        match key(Input::Kernel) {
            Some(span) if from_artifact || input == Input::Kernel => Location::Span(span),
            _ => self.attribute.clone(),
        }
    }

    /// The level of `lint` for this wrapper (fixed lints keep their default).
    pub fn level(&self, lint: &Lint) -> Level {
        if lint.configurable {
            self.levels.get(lint)
        } else {
            lint.default_level
        }
    }

    /// The engine inputs given as constant expressions the front end could not read, in
    /// attribute order. When there is any, the macro cannot lint now: it emits `const`
    /// checks instead, and [`Spec::evaluate`] returns `None`. (A constant `grid` is not one
    /// of them: the lints that need the grid are skipped instead.)
    pub fn const_inputs(&self) -> Vec<Input> {
        let mut inputs = Vec::new();
        let mut add = |input: Input, value: &Value| {
            if value.literal().is_none() && !inputs.contains(&input) {
                inputs.push(input);
            }
        };
        for plan in &self.plans {
            for dim in &plan.block {
                add(Input::Block, dim);
            }
            add(Input::DynamicSmem, &plan.smem);
        }
        let given = [
            (Input::Registers, &self.regs),
            (Input::StaticSmem, &self.static_smem),
            (Input::Barriers, &self.barriers),
            (Input::MaxThreads, &self.max_threads),
            (Input::OptIn, &self.opt_in),
        ];
        for (input, value) in given {
            if let Some(value) = value {
                add(input, value);
            }
        }
        inputs
    }

    /// The resources of `kernel` (an index into [`Spec::kernels`]) on target `index`;
    /// `None` without one, or when the kernel is not part of the family on that target.
    pub fn resources(&self, kernel: Option<usize>, index: usize) -> Option<&KernelResources> {
        self.kernels.get(kernel?)?.resources.get(index)?.as_ref()
    }

    /// Whether `kernel` is checked on target `index`: always for the attribute's literal
    /// resources (`None`), else when the kernel has a cubin the driver would load there.
    pub fn on_target(&self, kernel: Option<usize>, index: usize) -> bool {
        kernel.is_none() || self.resources(kernel, index).is_some()
    }

    /// The kernels of the family that are not part of it on target `index` (no cubin the
    /// driver would load there), in the family's order.
    pub fn left_out(&self, index: usize) -> Vec<&KernelSpec> {
        self.kernels
            .iter()
            .filter(|k| k.resources.get(index).is_some_and(Option::is_none))
            .collect()
    }

    /// The note on target `index`'s findings when members of the family are left out
    /// there: `not part of the family on compute capability 8.0 (no cubin the driver would
    /// load there): fp8_gemm (compiled for sm_90)`. Names the compute capability, not the
    /// target, so that targets of one architecture share their findings.
    pub fn left_out_note(&self, index: usize) -> Option<String> {
        let target = self.targets.get(index)?;
        let left_out = self.left_out(index);
        if left_out.is_empty() {
            return None;
        }
        // Members compiled for the same architectures together: `a, b (compiled for sm_90)`.
        let mut groups: Vec<(&[SmTarget], Vec<&str>)> = Vec::new();
        for k in left_out {
            match groups
                .iter_mut()
                .find(|(archs, _)| *archs == k.compiled_for.as_slice())
            {
                Some((_, names)) => names.push(&k.name),
                None => groups.push((&k.compiled_for, vec![&k.name])),
            }
        }
        let members: Vec<String> = groups
            .iter()
            .map(|(archs, names)| {
                let archs: Vec<String> = archs.iter().map(SmTarget::to_string).collect();
                format!("{} (compiled for {})", names.join(", "), archs.join(", "))
            })
            .collect();
        Some(format!(
            "not part of the family on compute capability {} (no cubin the driver would load \
             there): {}",
            target.target.arch.cc,
            members.join("; ")
        ))
    }

    /// The engine inputs of `kernel` on target `index`, merged: see [`KernelValues`].
    pub(crate) fn kernel_values(&self, kernel: Option<usize>, index: usize) -> KernelValues {
        let resources = self.resources(kernel, index);
        let from = |given: &Option<Value>, artifact: Option<u32>, default: u32| match given {
            Some(value) => value.clone(),
            None => Value::unspanned(artifact.unwrap_or(default)),
        };
        KernelValues {
            regs: from(&self.regs, resources.map(|r| r.registers_per_thread), 0),
            static_smem: from(&self.static_smem, resources.map(|r| r.static_smem_bytes), 0),
            barriers: from(&self.barriers, resources.and_then(|r| r.barriers), 1),
            max_threads: match &self.max_threads {
                Some(value) => Some(value.clone()),
                None => resources
                    .and_then(KernelResources::max_threads_per_block)
                    .map(Value::unspanned),
            },
        }
    }

    /// `kernel` as the engine sees it on target `index`; `None` when a value is a constant
    /// expression.
    pub fn kernel(&self, kernel: Option<usize>, index: usize) -> Option<Kernel> {
        let values = self.kernel_values(kernel, index);
        let mut k = Kernel::new(values.regs.literal()?)
            .with_static_smem(values.static_smem.literal()?)
            .with_barriers(values.barriers.literal()?);
        if let Some(v) = &values.max_threads {
            k = k.with_max_threads(v.literal()?);
        }
        if let Some(v) = &self.opt_in {
            k = k.with_opt_in(v.literal()?);
        }
        if let Some(p) = self.carveout {
            k = k.with_carveout(Carveout::Percent(p));
        }
        Some(k)
    }

    /// The kernel indices to evaluate: each kernel of the family, or `None` once when the
    /// attribute gives the resources literally.
    pub fn kernel_indices(&self) -> Vec<Option<usize>> {
        if self.kernels.is_empty() {
            vec![None]
        } else {
            (0..self.kernels.len()).map(Some).collect()
        }
    }

    /// The kernel indices to evaluate with plan `plan`: those of [`Spec::kernel_indices`]
    /// that the plan's path launches ([`Plan::kernel`]), all of them when it names none (or
    /// none of the family matches it: the front end reported that as drift).
    ///
    /// A name the globs of two paths match is the path's with the narrower glob: of
    /// `fast_sum_*` and `fast_sum_small_*` (candle's reduce: `format!("{root}_{dtype}")` with
    /// two roots and a dtype the reader does not know), `fast_sum_small_f32` is launched by
    /// the second only. A placeholder stands for one part of a name (a dtype, a size), not
    /// for the text of another path's name; a pairing the code makes with the wider glob's
    /// block is then missed, never one it cannot make reported.
    pub fn plan_kernels(&self, plan: usize) -> Vec<Option<usize>> {
        let all = self.kernel_indices();
        let Some(wanted) = self.plans.get(plan).and_then(|p| p.kernel.as_deref()) else {
            return all;
        };
        let matcher = KernelMatcher::new(wanted);
        let glob = crate::artifact::is_glob(wanted);
        let mut narrower: Vec<KernelMatcher<'_>> = Vec::new();
        for other in self.plans.iter().filter_map(|p| p.kernel.as_deref()) {
            if glob
                && other != wanted
                && crate::artifact::is_glob(other)
                && matcher.matches(other)
                && !narrower.iter().any(|n| n.wanted == other)
            {
                let other = KernelMatcher::new(other);
                if !other.matches(wanted) {
                    narrower.push(other);
                }
            }
        }
        let matched = |k: &Option<usize>, narrowed: bool| {
            k.and_then(|k| self.kernels.get(k)).is_some_and(|k| {
                matcher.matches(&k.name)
                    && !(narrowed && narrower.iter().any(|n| n.matches(&k.name)))
            })
        };
        let matching: Vec<Option<usize>> =
            all.iter().copied().filter(|k| matched(k, true)).collect();
        // A path naming a kernel none of the family is (`k_6` where the manifest has
        // `k_7` and `k_f32`, or a glob matching none) launches none of them: its load fails
        // first (a name the attribute does not cover is drift, the front end's error). Only
        // a wrapper with no named kernel (resources given by keys) is evaluated regardless.
        if self.kernels.is_empty() {
            all
        } else {
            matching
        }
    }

    /// What target `index`'s compiled `kernel` says beyond the engine's inputs: spills,
    /// local memory, the minimum blocks per SM of `__launch_bounds__`. Empty without an
    /// artifact.
    pub fn artifact(&self, kernel: Option<usize>, index: usize) -> ArtifactFacts {
        match self.resources(kernel, index) {
            Some(r) => ArtifactFacts {
                spill_store_bytes: r.spill_store_bytes,
                spill_load_bytes: r.spill_load_bytes,
                local_bytes: Some(r.local_bytes),
                min_blocks_per_sm: r.min_blocks_per_sm,
            },
            None => ArtifactFacts::default(),
        }
    }

    /// The cluster of `kernel` on target `index`: the attribute's, else the compiled
    /// kernel's `__cluster_dims__` (sm_90+ cubins).
    pub fn cluster(&self, kernel: Option<usize>, index: usize) -> Option<Cluster> {
        self.cluster.or_else(|| {
            let resources = self.resources(kernel, index)?;
            let [x, y, z] = resources.cluster_dims?;
            let cluster = Cluster::new(occupancy_core::cluster::ClusterDim::new(x, y, z));
            Some(if self.non_portable {
                cluster.allow_non_portable()
            } else {
                cluster
            })
        })
    }
}

impl Plan {
    /// A launch of known values written at `at` (a launch read outside an attribute: its
    /// values have no spans): `block` threads x, y, z, `smem_bytes` of dynamic shared
    /// memory, the grid when known, and how messages name it.
    pub fn known(
        block: [u32; 3],
        smem_bytes: u32,
        grid: Option<[u32; 3]>,
        label: Option<String>,
        at: Location,
    ) -> Plan {
        Plan {
            block: block.map(Value::unspanned),
            smem: Value::unspanned(smem_bytes),
            grid: grid.map(|g| g.map(Value::unspanned)),
            label,
            block_span: at.clone(),
            smem_span: at.clone(),
            grid_span: at,
            origin: None,
            kernel: None,
            launches: Vec::new(),
            notes: Vec::new(),
            range: None,
        }
    }

    /// The launch (block and dynamic shared memory); `None` when a value is a constant
    /// expression.
    pub fn launch(&self) -> Option<Launch> {
        let [x, y, z] = &self.block;
        let block = BlockDim::new(x.literal()?, y.literal()?, z.literal()?);
        Some(Launch::new(block).with_dynamic_smem(self.smem.literal()?))
    }

    /// The grid; `None` without a grid or when it is a constant.
    pub fn grid_dim(&self) -> Option<GridDim> {
        let [x, y, z] = self.grid.as_ref()?;
        Some(GridDim::new(x.literal()?, y.literal()?, z.literal()?))
    }

    /// Blocks in the grid (x * y * z); `None` without a grid or when it is a constant.
    pub fn grid_blocks(&self) -> Option<u64> {
        self.grid_dim().map(|grid| grid.blocks())
    }
}

impl Source {
    /// `the resource manifest kernels.manifest.json`, `the cubin kernels/sgemm.sm_80.cubin`.
    pub fn describe(&self) -> String {
        match self.kind {
            SourceKind::Manifest(_) => format!("the resource manifest {}", self.shown),
            SourceKind::Cubin => format!("the cubin {}", self.shown),
            SourceKind::Fatbin => format!("the fatbin {}", self.shown),
            SourceKind::Object => format!("the object {}", self.shown),
        }
    }
}

/// Whether the kernel `name` (a family member's) is the one a path names (`wanted`): the
/// same name, the name after a module prefix (`module::name`), or a match of the path's
/// glob (`*` any run of characters, `?` one, `#` an integer's digits), of the name or of
/// the name after a module prefix.
pub fn kernel_matches(wanted: &str, name: &str) -> bool {
    KernelMatcher::new(wanted).matches(name)
}

/// [`kernel_matches`] with `wanted` prepared once, to be matched against many names.
pub struct KernelMatcher<'a> {
    wanted: &'a str,
    glob: Option<crate::artifact::Glob>,
}

impl<'a> KernelMatcher<'a> {
    /// `wanted` prepared.
    pub fn new(wanted: &'a str) -> KernelMatcher<'a> {
        KernelMatcher {
            wanted,
            glob: crate::artifact::is_glob(wanted).then(|| crate::artifact::Glob::new(wanted)),
        }
    }

    /// Whether the kernel `name` is the one wanted (see [`kernel_matches`]).
    pub fn matches(&self, name: &str) -> bool {
        match &self.glob {
            // After a module prefix too, as a name is (`unary::affine_f32` for `affine_*`).
            Some(glob) => {
                glob.matches(name)
                    || name
                        .match_indices("::")
                        .any(|(i, _)| glob.matches(&name[i + 2..]))
            }
            None => {
                name == self.wanted
                    || name
                        .strip_suffix(self.wanted)
                        .is_some_and(|rest| rest.ends_with("::"))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A spec of `plans` (each a block and the kernel its path names) over the `kernels`
    /// named, none with resources: what [`Spec::plan_kernels`] reads.
    fn spec_of(plans: &[(u32, Option<&str>)], kernels: &[&str]) -> Spec {
        let at = || Location::Span(Span::call_site());
        let launch = ExternalLaunch {
            name: "reduce".to_owned(),
            location: at(),
            plans: plans
                .iter()
                .map(|&(block, kernel)| Plan {
                    kernel: kernel.map(str::to_owned),
                    ..Plan::known([block, 1, 1], 0, None, None, at())
                })
                .collect(),
            kernels: kernels
                .iter()
                .map(|name| KernelSpec {
                    name: (*name).to_owned(),
                    resources: Vec::new(),
                    compiled_for: Vec::new(),
                })
                .collect(),
            targets: Vec::new(),
            opt_in_bytes: None,
            cluster: None,
            source: None,
            tracked_files: Vec::new(),
            targets_from_build: false,
        };
        Spec::external(launch, &occupancy_core::policy::Policy::default())
    }

    /// The names of the kernels checked with each plan.
    fn checked(spec: &Spec) -> Vec<Vec<&str>> {
        (0..spec.plans.len())
            .map(|p| {
                spec.plan_kernels(p)
                    .into_iter()
                    .map(|k| k.map_or("(any)", |k| spec.kernels[k].name.as_str()))
                    .collect()
            })
            .collect()
    }

    /// A path's kernel against a family member's name: the same name, the name after a
    /// module prefix, or a glob's match (`{a,b}` groups, `*`, `?`, `#`).
    #[test]
    fn a_kernel_matches_by_name_module_suffix_or_glob() {
        let cases = [
            ("affine_f32", "affine_f32", true),
            ("affine_f32", "unary::affine_f32", true),
            ("affine_f32", "xaffine_f32", false),
            ("affine_f32", "unary:affine_f32", false),
            ("affine_*", "affine_f16", true),
            ("affine_*", "unary::affine_f16", true),
            ("affine_*", "unary::uaffine_f16", false),
            ("affine_{f16,bf16}", "affine_bf16", true),
            ("affine_{f16,bf16}", "affine_f32", false),
            ("cast_{f16,f32}_?8", "cast_f32_u8", true),
            ("cast_{f16,f32}_?8", "cast_f32_u16", false),
            // `format!("gemv_{n}")` of an integer `n` not known.
            ("gemv_#", "gemv_16", true),
            ("gemv_#", "gemv_f32", false),
            ("gemv_#", "quantized::gemv_8", true),
        ];
        for (wanted, name, expected) in cases {
            assert_eq!(kernel_matches(wanted, name), expected, "{wanted} {name}");
            assert_eq!(KernelMatcher::new(wanted).matches(name), expected);
        }
    }

    /// candle's reduce: `fast_sum_*` and `fast_sum_small_*`, each with its own block. A
    /// `fast_sum_small_` kernel is the narrower glob's path's alone; an exact name on
    /// another path takes nothing from a glob (the glob's placeholder may be its dtype).
    #[test]
    fn a_name_two_globs_match_is_the_narrower_globs_paths() {
        let kernels = ["fast_sum_f32", "fast_sum_small_f32", "fast_min_f32"];
        let spec = spec_of(
            &[
                (256, Some("fast_sum_small_*")),
                (1024, Some("fast_sum_*")),
                (64, Some("fast_*")),
                (32, None),
            ],
            &kernels,
        );
        assert_eq!(
            checked(&spec),
            [
                vec!["fast_sum_small_f32"],
                vec!["fast_sum_f32"],
                vec!["fast_min_f32"],
                vec!["fast_sum_f32", "fast_sum_small_f32", "fast_min_f32"],
            ]
        );
        // Only the narrower glob's kernels compiled: the wider path launches none of them
        // (it used to fall back to every kernel, `fast_min_f32` and `fast_sum_small_f32`
        // with its 1024 threads).
        let spec = spec_of(
            &[(256, Some("fast_sum_small_*")), (1024, Some("fast_sum_*"))],
            &["fast_sum_small_f32", "fast_min_f32"],
        );
        assert_eq!(
            checked(&spec),
            [vec!["fast_sum_small_f32"], Vec::<&str>::new()]
        );
        // A path whose name no member has launches none of them (it used to take every
        // one, with its own block).
        let spec = spec_of(
            &[(256, Some("k_6")), (128, Some("k_7")), (64, Some("k_#"))],
            &["k_7", "k_f32"],
        );
        assert_eq!(
            checked(&spec),
            [Vec::<&str>::new(), vec!["k_7"], vec!["k_7"]]
        );
        let spec = spec_of(
            &[(256, Some("fast_sum_f32")), (1024, Some("fast_sum_*"))],
            &kernels,
        );
        assert_eq!(
            checked(&spec),
            [
                vec!["fast_sum_f32"],
                vec!["fast_sum_f32", "fast_sum_small_f32"]
            ]
        );
    }
}
