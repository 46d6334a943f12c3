//! The reading core's launch records as the C++ check reads them (issue 25, stage 4's
//! converter, measured beside the interpreter's paths by [`crate::lowering_census`]): one
//! [`LaunchPath`] per block and shared memory the check takes ([`crate::choices`], the
//! interpreter's rules, shared), with the kernel's instantiation, the grid, the opt-in,
//! the translation unit and the target of the reading.
//!
//! A cluster is the lowering's, read from literals (`lower::cluster_of`).

use occupancy_core::abstract_int::AbstractInt;
use occupancy_core::arch::Target;
use occupancy_core::policy::LaunchCandidates;
use occupancy_read::launches::{Field, Launch, TemplateArg};

use super::Unit;
use crate::choices::{block_smem, dims_of, explained, smem_limit};
use crate::launch::{Candidates, Instantiation, LaunchPath, Read};

/// The launch paths the check takes for `launch` (none where the core could not read it:
/// its `error` says why), its run-time values filled with the `// occupancy:` comment's
/// `candidates` and, where still known only at run time, explained by how the launch
/// writes its block and shared memory (`origins`), in its `cluster`, made in the unit
/// `translation_unit` on `target`'s reading.
pub(crate) fn launch_paths(
    launch: &Launch,
    (candidates, origins, cluster): (&LaunchCandidates, &[Option<String>; 2], Option<[u32; 3]>),
    unit: Unit<'_>,
    translation_unit: &str,
    target: Option<&Target>,
) -> Vec<LaunchPath> {
    if launch.error.is_some() {
        return Vec::new();
    }
    let Some(kernel) = &launch.kernel else {
        return Vec::new();
    };
    let kernel = instantiation(&kernel.name, launch.template_args.as_deref(), unit);
    let grid = match dims(&launch.grid) {
        Ok(d) => dims_of(&d, "grid"),
        Err(why) => Read::Unknown(why),
    };
    let smem = value(&launch.smem);
    let opt_in = launch.opt_in_bytes;
    let mut out = Vec::new();
    for (block, smem_read, candidates, label) in block_smem(
        dims(&launch.block),
        smem.clone(),
        candidates,
        opt_in,
        launch.opt_in_at_run_time,
    ) {
        let limit = match (&smem_read, candidates, &smem) {
            (Read::Known(s), Candidates::None, Ok(v)) => smem_limit(v, opt_in, *s),
            _ => None,
        };
        out.push(LaunchPath {
            kernel: kernel.clone(),
            grid: grid.clone(),
            block: explained(block, &origins[0]),
            dynamic_smem_bytes: explained(smem_read, &origins[1]),
            smem_limit: limit,
            cluster,
            opt_in_bytes: opt_in,
            conditions: launch.conditions.iter().cloned().chain(label).collect(),
            candidates,
            translation_unit: translation_unit.to_owned(),
            targets: target.map(|t| vec![t.to_string()]).unwrap_or_default(),
        });
    }
    out
}

/// The kernel `name` (as the core names it: written with its template arguments, or as
/// defined) with `args`, a `bool` parameter's value as `true` or `false` (as the objects'
/// symbols spell it).
fn instantiation(name: &str, args: Option<&[TemplateArg]>, unit: Unit<'_>) -> Instantiation {
    let base = name.split('<').next().unwrap_or(name).trim().to_owned();
    let bools = unit.index.bool_template_params(&base);
    Instantiation {
        name: base,
        template_args: args.map(|args| {
            args.iter()
                .enumerate()
                .map(|(i, a)| match (a, bools.get(i)) {
                    (TemplateArg::Value(v), Some(true)) => TemplateArg::Bool(*v != 0),
                    _ => a.clone(),
                })
                .collect()
        }),
    }
}

/// A value of the record as the check's rules take it: what is known of an integer (its
/// value, or its run-time set or bounds), else why it is not one.
fn value(f: &Field) -> Result<AbstractInt, String> {
    match f {
        Field::Known(i) => Ok(i.set.clone()),
        Field::RunTime(r) if r.int => Ok(r.set.clone().unwrap_or_else(AbstractInt::unknown)),
        Field::RunTime(r) => Err(r.why.clone()),
    }
}

/// Three values of the record (a block, a grid), as [`value`].
fn dims(d: &Result<[Field; 3], String>) -> Result<[AbstractInt; 3], String> {
    let [x, y, z] = d.as_ref().map_err(Clone::clone)?;
    Ok([value(x)?, value(y)?, value(z)?])
}
