//! The checked launch description ([`Spec`]) that every front end works from.

use std::path::PathBuf;

use occupancy_core::arch::Target;
use occupancy_core::cluster::Cluster;
use occupancy_core::lint::{
    ArtifactFacts, Input, KernelClass, Level, Lint, LintLevels, MinOccupancy, Thresholds,
};
use occupancy_core::occupancy::{BlockDim, Carveout, GridDim, Kernel, Launch};
use occupancy_core::resources::KernelResources;
use proc_macro2::Span;

use crate::ast::Value;

/// A checked launch description: the attribute's values with the policy applied (the
/// attribute wins), and the kernel's resources per target when the attribute names a
/// compiled kernel.
pub struct Spec {
    /// The wrapper function's name.
    pub wrapper: String,
    /// The targets, in the attribute's (or the policy's) order, each with its resources.
    pub targets: Vec<TargetSpec>,
    /// The `low_occupancy` floor, resolved by `Policy::floor`: the attribute's
    /// `min_occupancy`, else its `class`'s floor, else the policy's.
    pub min_occupancy: MinOccupancy,
    /// The kernel class the floor came from, if any.
    pub class: Option<KernelClass>,
    /// Lint levels: defaults, then the policy's `[lints]`, then the attribute's.
    pub levels: LintLevels,
    /// The policy's `[thresholds]`.
    pub thresholds: Thresholds,
    /// Threads per block, x, y, z (missing dimensions are literal 1s).
    pub block: [Value; 3],
    /// Dynamic shared memory per block, bytes (`smem`; literal 0 when not given).
    pub smem: Value,
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
    /// Blocks in the grid, x, y, z (`grid`; missing dimensions are literal 1s).
    pub grid: Option<[Value; 3]>,
    /// The thread-block cluster (`cluster`, cc 9.0+), with `non_portable` applied.
    pub cluster: Option<Cluster>,
    /// `non_portable = true`: the wrapper sets
    /// `CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED`, for the attribute's cluster or
    /// the compiled kernel's `__cluster_dims__`.
    pub non_portable: bool,
    /// Where the kernel's resources come from (`kernel`, `cubin`, `fatbin`), if anywhere.
    pub source: Option<Source>,
    /// Files the result depends on (policy, manifest, cubin, fatbin), absolute: the
    /// expansion `include_bytes!`s them so that cargo rebuilds when one changes.
    pub tracked_files: Vec<PathBuf>,
    /// Environment variables the result depends on: the expansion reads them with
    /// `option_env!` so that cargo rebuilds when one changes.
    pub tracked_vars: Vec<&'static str>,
    /// The attribute's span, for diagnostics about inputs it did not give.
    pub attribute: Span,
    /// The key of each input the attribute gave, to point diagnostics at.
    pub(crate) keys: Vec<(Input, Span)>,
}

/// One target of a [`Spec`].
pub struct TargetSpec {
    /// The target.
    pub target: Target,
    /// The string that named it in the attribute; the attribute's span when it came from the
    /// policy.
    pub span: Span,
    /// The resources of the kernel compiled for it (the cubin the driver would load on this
    /// target: same compute capability, else the highest lower one of the same major
    /// version), when the attribute names a compiled kernel.
    pub resources: Option<KernelResources>,
}

/// Where a kernel's resources were read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Source {
    /// Manifest, cubin or fatbin.
    pub kind: SourceKind,
    /// The kernel's name, as the attribute gave it (or the only kernel of a cubin/fatbin).
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

impl Spec {
    /// The span to point at for `input`: its key; for a resource the attribute did not give
    /// but the compiled kernel did, the `kernel` (or `cubin`, `fatbin`) key; else the
    /// attribute.
    pub fn span_of(&self, input: Input) -> Span {
        let key = |input: Input| {
            self.keys
                .iter()
                .find(|(i, _)| *i == input)
                .map(|(_, span)| *span)
        };
        if let Some(span) = key(input) {
            return span;
        }
        let from_artifact = matches!(
            input,
            Input::Registers | Input::StaticSmem | Input::Barriers | Input::MaxThreads
        );
        match key(Input::Kernel) {
            Some(span) if from_artifact || input == Input::Kernel => span,
            _ => self.attribute,
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

    /// The engine inputs given as constant expressions, in attribute order. When there is
    /// any, the macro cannot lint now: it emits `const` checks instead, and
    /// [`Spec::evaluate`] returns `None`. (A constant `grid` is not one of them: the
    /// lints that need the grid are skipped instead.)
    pub fn const_inputs(&self) -> Vec<Input> {
        let mut inputs = Vec::new();
        let mut add = |input: Input, value: &Value| {
            if value.literal().is_none() && !inputs.contains(&input) {
                inputs.push(input);
            }
        };
        for dim in &self.block {
            add(Input::Block, dim);
        }
        add(Input::DynamicSmem, &self.smem);
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

    /// The engine inputs of target `index`, merged: see [`KernelValues`].
    pub(crate) fn kernel_values(&self, index: usize) -> KernelValues {
        let resources = self.targets.get(index).and_then(|t| t.resources.as_ref());
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

    /// The kernel as the engine sees it on target `index`; `None` when a value is a
    /// constant expression.
    pub fn kernel(&self, index: usize) -> Option<Kernel> {
        let values = self.kernel_values(index);
        let mut kernel = Kernel::new(values.regs.literal()?)
            .with_static_smem(values.static_smem.literal()?)
            .with_barriers(values.barriers.literal()?);
        if let Some(v) = &values.max_threads {
            kernel = kernel.with_max_threads(v.literal()?);
        }
        if let Some(v) = &self.opt_in {
            kernel = kernel.with_opt_in(v.literal()?);
        }
        if let Some(p) = self.carveout {
            kernel = kernel.with_carveout(Carveout::Percent(p));
        }
        Some(kernel)
    }

    /// The launch (block and dynamic shared memory); `None` when a value is a constant
    /// expression.
    pub fn launch(&self) -> Option<Launch> {
        let [x, y, z] = &self.block;
        let block = BlockDim::new(x.literal()?, y.literal()?, z.literal()?);
        Some(Launch::new(block).with_dynamic_smem(self.smem.literal()?))
    }

    /// The grid; `None` without a `grid` or when it is a constant.
    pub fn grid_dim(&self) -> Option<GridDim> {
        let [x, y, z] = self.grid.as_ref()?;
        Some(GridDim::new(x.literal()?, y.literal()?, z.literal()?))
    }

    /// Blocks in the grid (x * y * z); `None` without a `grid` or when it is a constant.
    pub fn grid_blocks(&self) -> Option<u64> {
        self.grid_dim().map(|grid| grid.blocks())
    }

    /// What target `index`'s compiled kernel says beyond the engine's inputs: spills, local
    /// memory, the minimum blocks per SM of `__launch_bounds__`. Empty without an artifact.
    pub fn artifact(&self, index: usize) -> ArtifactFacts {
        match self.targets.get(index).and_then(|t| t.resources.as_ref()) {
            Some(r) => ArtifactFacts {
                spill_store_bytes: r.spill_store_bytes,
                spill_load_bytes: r.spill_load_bytes,
                local_bytes: Some(r.local_bytes),
                min_blocks_per_sm: r.min_blocks_per_sm,
            },
            None => ArtifactFacts::default(),
        }
    }

    /// The cluster of target `index`: the attribute's, else the compiled kernel's
    /// `__cluster_dims__` (sm_90+ cubins).
    pub fn cluster(&self, index: usize) -> Option<Cluster> {
        self.cluster.or_else(|| {
            let resources = self.targets.get(index)?.resources.as_ref()?;
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

impl Source {
    /// `the resource manifest kernels.manifest.json`, `the cubin kernels/sgemm.sm_80.cubin`.
    pub fn describe(&self) -> String {
        match self.kind {
            SourceKind::Manifest(_) => format!("the resource manifest {}", self.shown),
            SourceKind::Cubin => format!("the cubin {}", self.shown),
            SourceKind::Fatbin => format!("the fatbin {}", self.shown),
        }
    }
}
