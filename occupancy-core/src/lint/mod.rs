//! Lint findings for one launch configuration: what is wrong, the evidence, and the fix.
//!
//! Pure and free of I/O: [`check`] takes a [`LaunchSpec`] (the wrapper's launch, the
//! kernel's resources, the targets and the occupancy floor), runs the engine
//! ([`crate::occupancy::occupancy`]) on every target and returns [`Finding`]s. Every number
//! in a finding, and every suggested fix, is computed by the engine; the searches for fixes
//! (registers 255 ..= 1, block sizes in multiples of 32, shared memory by bisection) are
//! plain engine arithmetic.
//!
//! The lints, one [`Lint`] each, are listed in [`LINTS`] with a stable snake_case name, a
//! default [`Level`] and documentation in clippy's shape (what it does, why it matters, an
//! example that fires and the fixed version). As in clippy, each lint is one module named
//! after it (`lint/launch_impossible.rs`, ...) holding its declaration, docs and check;
//! what several share is in `utils`, the searches behind `help:` lines in `fix`, and
//! [`konst`] holds the `const fn` forms, among them the one decision of why a launch cannot
//! run ([`konst::impossible`]) that `launch_impossible` reports. Front ends (the `#[occupancy::check]`
//! attribute, `cargo occupancy report`) decide each lint's level with [`LintLevels`] and
//! render findings; a finding names the [`Input`] it is about so that a front end can point
//! at it.
//!
//! ```
//! use occupancy_core::arch::Target;
//! use occupancy_core::lint::{check, LaunchSpec, MinOccupancy};
//! use occupancy_core::occupancy::{BlockDim, Kernel, Launch};
//!
//! let targets = [Target::parse("sm_90").unwrap()];
//! let spec = LaunchSpec {
//!     min_occupancy: MinOccupancy::DEFAULT,
//!     ..LaunchSpec::new("launch_sgemm", &targets, Kernel::new(96), Launch::new(BlockDim::new(16, 16, 1)))
//! };
//! let findings = check(&spec);
//! assert_eq!(findings.len(), 1);
//! assert_eq!(findings[0].lint.name, "low_occupancy");
//! assert_eq!(
//!     findings[0].message,
//!     "launch_sgemm on sm_90: 25% occupancy (16 of 64 warps), below the 50% floor"
//! );
//! ```

use core::fmt;

use crate::arch::Target;
use crate::occupancy::{Kernel, Launch, Occupancy, OccupancyError, occupancy};

/// Declares a lint: its doc comment is both the rustdoc of the `static` and its
/// [`Lint::docs`].
macro_rules! declare_lint {
    (
        $(#[doc = $doc:literal])*
        pub static $NAME:ident = Lint {
            name: $name:literal,
            default_level: $level:expr,
            configurable: $configurable:expr,
            scope: $scope:expr,
            summary: $summary:literal,
            check: $check:path $(,)?
        };
    ) => {
        $(#[doc = $doc])*
        pub static $NAME: Lint = Lint {
            name: $name,
            default_level: $level,
            configurable: $configurable,
            scope: $scope,
            summary: $summary,
            docs: concat!($($doc, "\n"),*),
            check: $check,
        };
    };
}

// Shared helpers, the fix searches and the floor; then one module per lint, in the order
// of [`LINTS`], each with its declaration, documentation and check.
mod fix;
mod floor;
pub mod konst;
mod utils;

mod barrier_limit;
mod block_limit;
mod carveout_limit;
mod cluster_limit;
mod launch_bounds_mismatch;
mod launch_impossible;
mod low_occupancy;
mod partial_warp;
mod register_spill;
mod register_step;
mod smem_step;
mod tail_effect;
mod undersized_grid;

pub use barrier_limit::BARRIER_LIMIT;
pub use block_limit::BLOCK_LIMIT;
pub use carveout_limit::CARVEOUT_LIMIT;
pub use cluster_limit::CLUSTER_LIMIT;
pub use floor::{FloorError, MinOccupancy, percent};
pub use launch_bounds_mismatch::LAUNCH_BOUNDS_MISMATCH;
pub use launch_impossible::LAUNCH_IMPOSSIBLE;
pub use low_occupancy::LOW_OCCUPANCY;
pub use partial_warp::PARTIAL_WARP;
pub use register_spill::REGISTER_SPILL;
pub use register_step::REGISTER_STEP;
pub use smem_step::SMEM_STEP;
pub use tail_effect::TAIL_EFFECT;
pub use undersized_grid::UNDERSIZED_GRID;
pub use utils::count64;

/// How a lint's findings are reported.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Level {
    /// Not reported.
    Allow,
    /// Reported as a warning (an error under `-D warnings`).
    Warn,
    /// Reported as an error: the build fails.
    Deny,
}

impl Level {
    /// Every level, in the order `allow`, `warn`, `deny`.
    pub const ALL: [Level; 3] = [Level::Allow, Level::Warn, Level::Deny];

    /// The name used in `occupancy.toml` and the attribute: `allow`, `warn`, `deny`.
    pub const fn name(self) -> &'static str {
        match self {
            Level::Allow => "allow",
            Level::Warn => "warn",
            Level::Deny => "deny",
        }
    }

    /// The level named `name` (`allow`, `warn`, `deny`; case-sensitive).
    pub fn from_name(name: &str) -> Option<Level> {
        Level::ALL.into_iter().find(|level| level.name() == name)
    }
}

impl fmt::Display for Level {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Whether a lint looks at each target or at the launch alone.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Scope {
    /// Evaluated once per target; findings carry the target.
    Target,
    /// Evaluated once per launch (it does not depend on the GPU); findings carry no target.
    Launch,
}

/// One lint: a stable name, a default level, and its documentation.
#[derive(Debug)]
pub struct Lint {
    /// Stable snake_case name, used in `allow(...)`, `occupancy.toml` `[lints]` and as the
    /// first word of the diagnostic.
    pub name: &'static str,
    /// Level when neither the policy nor the attribute sets one.
    pub default_level: Level,
    /// Whether the level can be changed. `false` for lints about launches that would fail at
    /// run time (`launch_impossible`): always an error.
    pub configurable: bool,
    /// Per target or per launch.
    pub scope: Scope,
    /// One line: what the lint reports.
    pub summary: &'static str,
    /// Markdown, clippy's sections: `### What it does`, `### Why is this bad`,
    /// `### Example` (fires, then the fixed version). The examples are `text` blocks, since a
    /// doctest cannot run the attribute; `occupancy-attr/tests/lint_docs.rs` checks them
    /// (the first fires, the second does not, the numbers their comments state are the
    /// engine's).
    pub docs: &'static str,
    /// The check. Private: lints are added to this module's registry, not from outside.
    pub(crate) check: fn(&Context<'_>) -> Option<Finding>,
}

impl Lint {
    /// The lint named `name`.
    pub fn find(name: &str) -> Option<&'static Lint> {
        LINTS.iter().copied().find(|lint| lint.name == name)
    }

    /// The lint name closest to a misspelled `name`, if one is close enough (Jaro-Winkler
    /// similarity above 0.8, the threshold `darling` uses).
    pub fn suggest(name: &str) -> Option<&'static str> {
        closest(name, LINTS.iter().map(|lint| lint.name))
    }
}

impl PartialEq for Lint {
    fn eq(&self, other: &Self) -> bool {
        self.name == other.name
    }
}

impl Eq for Lint {}

/// Every lint, in the order findings are reported.
pub static LINTS: &[&Lint] = &[
    &LAUNCH_IMPOSSIBLE,
    &LOW_OCCUPANCY,
    &PARTIAL_WARP,
    &REGISTER_STEP,
    &SMEM_STEP,
    &BLOCK_LIMIT,
    &BARRIER_LIMIT,
    &CARVEOUT_LIMIT,
    &REGISTER_SPILL,
    &LAUNCH_BOUNDS_MISMATCH,
    &TAIL_EFFECT,
    &UNDERSIZED_GRID,
    &CLUSTER_LIMIT,
];

/// The candidate closest to `input` by Jaro-Winkler similarity, if above 0.8.
pub fn closest<'a>(input: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    candidates
        .into_iter()
        .map(|c| (strsim::jaro_winkler(input, c), c))
        .filter(|(score, _)| *score > 0.8)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, c)| c)
}

/// A lint level that cannot be set.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LevelError {
    /// No lint has this name.
    UnknownLint {
        /// The name given.
        name: String,
        /// The closest lint name, if any is close.
        suggestion: Option<&'static str>,
    },
    /// The lint's level is fixed (`launch_impossible`).
    NotConfigurable {
        /// The lint.
        lint: &'static str,
    },
}

impl fmt::Display for LevelError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LevelError::UnknownLint { name, suggestion } => {
                write!(f, "unknown lint `{name}`")?;
                match suggestion {
                    Some(s) => write!(f, "; did you mean `{s}`?"),
                    None => write!(f, "; known lints: {}", lint_names()),
                }
            }
            LevelError::NotConfigurable { lint } => write!(
                f,
                "`{lint}` cannot be allowed or lowered: the launch would fail at run time"
            ),
        }
    }
}

impl std::error::Error for LevelError {}

fn lint_names() -> String {
    LINTS
        .iter()
        .map(|lint| format!("`{}`", lint.name))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The level of every lint: defaults, overridden by the policy, overridden by the attribute.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LintLevels {
    levels: Vec<(&'static str, Level)>,
}

impl Default for LintLevels {
    fn default() -> Self {
        Self {
            levels: LINTS
                .iter()
                .map(|lint| (lint.name, lint.default_level))
                .collect(),
        }
    }
}

impl LintLevels {
    /// The level of `lint`.
    pub fn get(&self, lint: &Lint) -> Level {
        self.levels
            .iter()
            .find(|(name, _)| *name == lint.name)
            .map_or(lint.default_level, |(_, level)| *level)
    }

    /// Sets the level of the lint named `name`.
    ///
    /// # Errors
    ///
    /// [`LevelError::UnknownLint`] (with a suggestion) or [`LevelError::NotConfigurable`]
    /// for a lint whose level is fixed (setting it to its default is accepted).
    pub fn set(&mut self, name: &str, level: Level) -> Result<(), LevelError> {
        let lint = Lint::find(name).ok_or_else(|| LevelError::UnknownLint {
            name: name.to_owned(),
            suggestion: Lint::suggest(name),
        })?;
        if !lint.configurable && level != lint.default_level {
            return Err(LevelError::NotConfigurable { lint: lint.name });
        }
        match self.levels.iter_mut().find(|(n, _)| *n == lint.name) {
            Some(entry) => entry.1 = level,
            None => self.levels.push((lint.name, level)),
        }
        Ok(())
    }
}

/// The inputs of the launch a finding is about, so that a front end can point at the
/// argument to change (the attribute keys of the same names).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Input {
    /// Threads per block (`block`).
    Block,
    /// Dynamic shared memory per block (`smem`).
    DynamicSmem,
    /// Registers per thread (`regs`).
    Registers,
    /// Static shared memory per block (`static_smem`).
    StaticSmem,
    /// The dynamic shared memory opt-in (`opt_in`).
    OptIn,
    /// The carveout preference (`carveout`).
    Carveout,
    /// Block barriers (`barriers`).
    Barriers,
    /// The kernel's launch bounds (`max_threads`).
    MaxThreads,
    /// The grid (`grid`).
    Grid,
    /// The thread-block cluster (`cluster`).
    Cluster,
    /// The compiled kernel the resources came from (`kernel`, `cubin`, `fatbin`).
    Kernel,
}

impl Input {
    /// The attribute key of this input: `block`, `smem`, `regs`, `static_smem`, `opt_in`,
    /// `carveout`, `barriers`, `max_threads`, `grid`, `cluster`, `kernel`.
    pub const fn key(self) -> &'static str {
        match self {
            Input::Block => "block",
            Input::DynamicSmem => "smem",
            Input::Registers => "regs",
            Input::StaticSmem => "static_smem",
            Input::OptIn => "opt_in",
            Input::Carveout => "carveout",
            Input::Barriers => "barriers",
            Input::MaxThreads => "max_threads",
            Input::Grid => "grid",
            Input::Cluster => "cluster",
            Input::Kernel => "kernel",
        }
    }
}

/// One problem with a launch on a target.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Finding {
    /// The lint that found it.
    pub lint: &'static Lint,
    /// The target, for [`Scope::Target`] lints.
    pub target: Option<Target>,
    /// The launch wrapper's name.
    pub wrapper: String,
    /// The input to point at (the one to change first).
    pub input: Input,
    /// One line: `launch_sgemm on sm_90: 25% occupancy (16 of 64 warps), below the 50% floor`.
    pub message: String,
    /// Evidence, one line each (rendered `= note: ...`).
    pub notes: Vec<String>,
    /// Fixes, one line each, computed by the engine (rendered `= help: ...`).
    pub helps: Vec<String>,
}

impl fmt::Display for Finding {
    /// The message, then one `= note:` line per note and one `= help:` line per help.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)?;
        for note in &self.notes {
            write!(f, "\n= note: {note}")?;
        }
        for help in &self.helps {
            write!(f, "\n= help: {help}")?;
        }
        Ok(())
    }
}

/// One launch of one wrapper, as the lints see it.
#[derive(Clone, Copy, Debug)]
pub struct LaunchSpec<'a> {
    /// The launch wrapper's name (the function the attribute is on).
    pub wrapper: &'a str,
    /// The targets to evaluate, in order; findings come target by target.
    pub targets: &'a [Target],
    /// The kernel's resources and function attributes.
    pub kernel: Kernel,
    /// Block shape and dynamic shared memory.
    pub launch: Launch,
    /// The occupancy floor of `low_occupancy` (already resolved: the attribute's
    /// `min_occupancy`, else its `class`'s floor, else the policy's).
    pub min_occupancy: MinOccupancy,
    /// The kernel class the floor came from, if any (named in messages).
    pub class: Option<KernelClass>,
    /// The grid (`grid`), for waves, `tail_effect` and `undersized_grid`, and, with a
    /// cluster, for `launch_impossible` (a grid must be a whole number of clusters).
    pub grid: Option<crate::occupancy::GridDim>,
    /// Blocks per thread-block cluster (`cluster`, cc 9.0+), for cluster occupancy.
    pub cluster: Option<crate::cluster::Cluster>,
    /// What the kernel's compiled artifact says beyond the engine's inputs.
    pub artifact: ArtifactFacts,
    /// Thresholds of the granularity lints.
    pub thresholds: Thresholds,
}

impl<'a> LaunchSpec<'a> {
    /// A launch with the default floor, no class, grid, cluster or artifact facts, and the
    /// default thresholds.
    pub fn new(wrapper: &'a str, targets: &'a [Target], kernel: Kernel, launch: Launch) -> Self {
        Self {
            wrapper,
            targets,
            kernel,
            launch,
            min_occupancy: MinOccupancy::DEFAULT,
            class: None,
            grid: None,
            cluster: None,
            artifact: ArtifactFacts::default(),
            thresholds: Thresholds::DEFAULT,
        }
    }
}

/// Facts from the kernel's compiled artifact (cubin, ptxas log, resource manifest) that the
/// occupancy model does not take but the lints use. `None`: the artifact does not say.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct ArtifactFacts {
    /// Bytes stored to local memory by register spills, per thread (ptxas "spill stores").
    pub spill_store_bytes: Option<u32>,
    /// Bytes loaded from local memory by register spills, per thread (ptxas "spill loads").
    pub spill_load_bytes: Option<u32>,
    /// Local memory (stack frame) per thread, bytes (`CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES`).
    pub local_bytes: Option<u32>,
    /// The second argument of `__launch_bounds__` (`.minnctapersm` in the PTX): the
    /// resident blocks per SM the kernel was compiled to reach.
    pub min_blocks_per_sm: Option<u32>,
}

/// Thresholds of the granularity lints: what counts as "a few" (policy `[thresholds]`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Thresholds {
    /// `register_step` fires when dropping at most this many registers per thread adds a
    /// resident block. Default 4: half of the 8-register (256 per warp) allocation step.
    pub register_step_max_drop: u32,
    /// `smem_step` fires when shaving at most this many bytes of shared memory per block
    /// adds a resident block. Default 512: four 128-byte allocation granules.
    pub smem_step_max_bytes: u32,
    /// `tail_effect` fires when the last, partial wave leaves more than this share of the
    /// launch's block slots idle, in basis points. Default 1000 (10%).
    pub tail_effect_max_waste_bp: u32,
}

impl Thresholds {
    /// The defaults: 4 registers, 512 bytes, 10%.
    pub const DEFAULT: Self = Self {
        register_step_max_drop: 4,
        smem_step_max_bytes: 512,
        tail_effect_max_waste_bp: 1000,
    };
}

impl Default for Thresholds {
    fn default() -> Self {
        Self::DEFAULT
    }
}

/// What bounds a kernel's speed, which decides how much occupancy it needs: the default
/// `low_occupancy` floor of a class (`class = "..."` in the attribute or the policy; an
/// explicit `min_occupancy` always wins).
///
/// Occupancy is a means, not the goal. A kernel bound by memory bandwidth or latency needs
/// many warps in flight to hide the latency of its loads (Little's law: bytes in flight =
/// bandwidth x latency), so its floor is high. A compute-dense kernel that keeps its data in
/// registers (register-blocked GEMM, convolutions) issues independent instructions from
/// each warp and reaches full speed at 25-40% occupancy (V. Volkov, "Better performance at
/// lower occupancy", GTC 2010), so its floor is low.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum KernelClass {
    /// Bound by memory bandwidth or latency (element-wise ops, reductions, stencils,
    /// transposes, softmax, layer norm): default floor 62.5% (40 of 64 warps, 30 of 48).
    MemoryBound,
    /// Neither clearly: default floor 37.5% (24 of 64 warps, 18 of 48).
    Balanced,
    /// Bound by arithmetic, with instruction-level parallelism (register-blocked GEMM,
    /// convolution, attention tiles): default floor 25% (16 of 64 warps, 12 of 48).
    ComputeBound,
}

impl KernelClass {
    /// Every class.
    pub const ALL: [KernelClass; 3] = [
        KernelClass::MemoryBound,
        KernelClass::Balanced,
        KernelClass::ComputeBound,
    ];

    /// The name in the attribute and the policy: `memory_bound`, `balanced`, `compute_bound`.
    pub const fn name(self) -> &'static str {
        match self {
            KernelClass::MemoryBound => "memory_bound",
            KernelClass::Balanced => "balanced",
            KernelClass::ComputeBound => "compute_bound",
        }
    }

    /// The class named `name`.
    pub fn from_name(name: &str) -> Option<KernelClass> {
        KernelClass::ALL.into_iter().find(|c| c.name() == name)
    }

    /// The class's default floor (see the variants).
    pub const fn default_floor(self) -> MinOccupancy {
        let bp = match self {
            KernelClass::MemoryBound => 6250,
            KernelClass::Balanced => 3750,
            KernelClass::ComputeBound => 2500,
        };
        match MinOccupancy::from_basis_points(bp) {
            Some(floor) => floor,
            None => MinOccupancy::DEFAULT,
        }
    }
}

impl fmt::Display for KernelClass {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// What a lint's check sees: the launch, one target and the engine's answer for it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Context<'a> {
    pub(crate) spec: &'a LaunchSpec<'a>,
    pub(crate) target: Target,
    pub(crate) result: Result<Occupancy, OccupancyError>,
}

impl Context<'_> {
    /// A finding of `lint` about this context's target.
    pub(crate) fn finding(
        &self,
        lint: &'static Lint,
        input: Input,
        message: String,
        notes: Vec<String>,
        helps: Vec<String>,
    ) -> Option<Finding> {
        Some(Finding {
            lint,
            target: Some(self.target),
            wrapper: self.spec.wrapper.to_owned(),
            input,
            message,
            notes,
            helps,
        })
    }

    /// `launch_sgemm on sm_90` (or `launch_sgemm` for launch-scoped lints).
    pub(crate) fn subject(&self, scope: Scope) -> String {
        match scope {
            Scope::Target => format!("{} on {}", self.spec.wrapper, self.target),
            Scope::Launch => self.spec.wrapper.to_owned(),
        }
    }
}

/// Runs every lint on `spec`: launch-scoped lints first, once (on the first target's
/// architecture), then target-scoped lints on every target in order. Findings are returned
/// whatever their level; [`LintLevels`] decides what to report.
pub fn check(spec: &LaunchSpec<'_>) -> Vec<Finding> {
    let context = |target: &Target| Context {
        spec,
        target: *target,
        result: occupancy(target.arch, &spec.kernel, &spec.launch),
    };
    let mut findings = Vec::new();
    if let Some(first) = spec.targets.first() {
        let cx = context(first);
        let launch_lints = LINTS.iter().filter(|lint| lint.scope == Scope::Launch);
        findings.extend(launch_lints.filter_map(|lint| (lint.check)(&cx)));
    }
    for target in spec.targets {
        let cx = context(target);
        let target_lints = LINTS.iter().filter(|lint| lint.scope == Scope::Target);
        findings.extend(target_lints.filter_map(|lint| (lint.check)(&cx)));
    }
    findings
}

/// Bytes for messages: `8 KiB` when a whole number of KiB, `1234 B` otherwise.
pub fn bytes_text(n: u64) -> String {
    if n >= 1024 && n.is_multiple_of(1024) {
        format!("{} KiB", n / 1024)
    } else {
        format!("{n} B")
    }
}

#[cfg(test)]
mod tests;
