//! Running the engine and the lints on a [`Spec`], target by target.
//!
//! The kernel's resources differ per target (ptxas allocates registers per architecture),
//! so [`occupancy_core::lint::check`] runs once per target, with that target's kernel and
//! artifact facts and a one-target [`LaunchSpec`]. Launch-scoped lints (which do not depend
//! on the GPU) are kept from the first target only, as `check` itself does for a list of
//! targets; findings keep `check`'s order: launch-scoped first, then target by target.

use occupancy_core::arch::Target;
use occupancy_core::lint::{Finding, LaunchSpec, Scope, check};
use occupancy_core::occupancy::{Kernel, Launch, Occupancy, OccupancyError, occupancy};
use occupancy_core::resources::KernelResources;

use crate::spec::{Source, SourceKind, Spec};

/// The engine's answer and the lints' findings for every target of a [`Spec`].
#[derive(Clone, Debug)]
pub struct Evaluation {
    /// One per target, in order.
    pub targets: Vec<TargetEvaluation>,
    /// Every finding, whatever its level ([`Spec::level`] decides what to report):
    /// launch-scoped lints first, then target by target.
    pub findings: Vec<Finding>,
}

/// One target of an [`Evaluation`].
#[derive(Clone, Debug)]
pub struct TargetEvaluation {
    /// The target.
    pub target: Target,
    /// The kernel as the engine saw it on this target.
    pub kernel: Kernel,
    /// The launch.
    pub launch: Launch,
    /// The engine's answer.
    pub occupancy: Result<Occupancy, OccupancyError>,
}

impl Spec {
    /// Runs the engine and every lint on each target. `None` when a value is a constant
    /// expression (only the compiler can evaluate it: see [`Spec::const_inputs`]).
    ///
    /// Target-scoped findings on a target whose resources came from a compiled kernel get
    /// one more note saying which cubin and what it holds.
    pub fn evaluate(&self) -> Option<Evaluation> {
        let launch = self.launch()?;
        let grid = self.grid_dim();
        let mut launch_findings = Vec::new();
        let mut target_findings = Vec::new();
        let mut targets = Vec::with_capacity(self.targets.len());
        for (index, target) in self.targets.iter().enumerate() {
            let kernel = self.kernel(index)?;
            let one = [target.target];
            let spec = LaunchSpec {
                min_occupancy: self.min_occupancy,
                class: self.class,
                grid,
                cluster: self.cluster(index),
                artifact: self.artifact(index),
                thresholds: self.thresholds,
                ..LaunchSpec::new(&self.wrapper, &one, kernel, launch)
            };
            for mut finding in check(&spec) {
                match finding.lint.scope {
                    Scope::Launch if index == 0 => launch_findings.push(finding),
                    Scope::Launch => {}
                    Scope::Target => {
                        if let (Some(resources), Some(source)) =
                            (target.resources.as_ref(), self.source.as_ref())
                        {
                            finding.notes.push(self.resources_note(resources, source));
                        }
                        target_findings.push(finding);
                    }
                }
            }
            targets.push(TargetEvaluation {
                target: target.target,
                kernel,
                launch,
                occupancy: occupancy(target.target.arch, &kernel, &launch),
            });
        }
        launch_findings.extend(target_findings);
        Some(Evaluation {
            targets,
            findings: launch_findings,
        })
    }

    /// `transpose_tiled: 39 regs/thread, 4224 B static shared memory, 1 barrier, from its
    /// sm_80 cubin in the resource manifest kernels.manifest.json` (`ptxas -v log` when the
    /// manifest's numbers came from one; and what the attribute overrides).
    fn resources_note(&self, r: &KernelResources, source: &Source) -> String {
        let mut facts = vec![
            format!("{} regs/thread", r.registers_per_thread),
            format!("{} static shared memory", bytes(r.static_smem_bytes)),
        ];
        if let Some(b) = r.barriers {
            facts.push(format!("{b} barrier{}", if b == 1 { "" } else { "s" }));
        }
        match (r.max_threads_per_block(), r.min_blocks_per_sm) {
            (Some(t), Some(m)) => facts.push(format!("__launch_bounds__({t}, {m})")),
            (Some(t), None) => facts.push(format!("__launch_bounds__({t})")),
            _ => {}
        }
        if let Some(spill) = r.spill_store_bytes.filter(|s| *s > 0) {
            facts.push(format!("{spill} B spill stores"));
        }
        let from = match source.kind {
            SourceKind::Cubin => format!("from {}", source.describe()),
            _ => format!("from its {} {} in {}", r.arch, r.origin, source.describe()),
        };
        let mut note = format!("{}: {}, {from}", source.kernel, facts.join(", "));
        let overridden: Vec<&str> = [
            ("regs", self.regs.is_some()),
            ("static_smem", self.static_smem.is_some()),
            ("barriers", self.barriers.is_some()),
            ("max_threads", self.max_threads.is_some()),
        ]
        .into_iter()
        .filter_map(|(key, given)| given.then_some(key))
        .collect();
        if !overridden.is_empty() {
            note.push_str(&format!(
                "; the attribute's `{}` override{} it",
                overridden.join("`, `"),
                if overridden.len() == 1 { "s" } else { "" }
            ));
        }
        note
    }
}

/// `8 KiB` when a whole number of KiB, `4224 B` otherwise.
fn bytes(n: u32) -> String {
    if n >= 1024 && n.is_multiple_of(1024) {
        format!("{} KiB", n / 1024)
    } else {
        format!("{n} B")
    }
}
