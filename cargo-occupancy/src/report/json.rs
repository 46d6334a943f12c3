//! `--format json` (and `--json`): each [`Wrapper`] with its plans, rows per target and
//! findings (at level allow too), and the summary's counts.

use occupancy_attr::{Diagnostic, Spec};
use serde_json::{Value as Json, json};

use super::model::{Outcome, Report, Wrapper, attribute_text, counts};

impl Wrapper {
    pub(super) fn to_json(&self) -> Json {
        let mut value = json!({
            "location": self.location,
            "wrapper": self.name,
            "kernel": self.kernel(),
            "conditional": self.conditions,
            "annotated": self.site.is_none() && self.cuda.is_none(),
        });
        if let Some(site) = &self.site {
            value["launch"] = json!(site.how);
            value["via"] = json!(site.via);
            value["kernel_from"] = json!(site.kernel_from);
            value["launches"] = json!(site.launches);
            value["attribute"] = json!(site.args.as_deref().map(attribute_text));
            // The launch and the function it is in are in one file.
            value["attribute_at"] = json!(site.target.as_ref().map(|(_, t)| {
                let file = self.location.rsplit_once(':').map_or("", |(f, _)| f);
                format!("{file}:{}", t.line)
            }));
        }
        if let Some(c) = &self.cuda {
            value["function"] = json!(self.name);
            value["form"] = json!(c.form);
            value["kernel_written"] = json!(c.kernel_written);
            value["path_conditions"] = json!(c.conditions);
        }
        match &self.outcome {
            Outcome::NotChecked(why) => value["not_checked"] = json!(why),
            Outcome::BuildOnly(why) => value["build_only"] = json!(why),
            Outcome::Errors(errors) => value["errors"] = json!(errors),
            Outcome::Constant(inputs, unread) => {
                value["constant_inputs"] = json!(inputs);
                value["unread"] = json!(unread);
            }
            Outcome::Evaluated(spec, evaluation) => {
                value["source"] = json!(spec.source.as_ref().map(|s| s.describe()));
                value["min_occupancy_percent"] =
                    json!(f64::from(spec.min_occupancy.basis_points()) / 100.0);
                value["plans"] = spec.plans.iter().map(plan_json).collect();
                // Members of the family with no cubin for a target: not checked there.
                let left_out: serde_json::Map<String, Json> = spec
                    .targets
                    .iter()
                    .enumerate()
                    .filter_map(|(index, t)| {
                        let names: Vec<&str> = spec
                            .left_out(index)
                            .iter()
                            .map(|k| k.name.as_str())
                            .collect();
                        (!names.is_empty()).then(|| (t.target.to_string(), json!(names)))
                    })
                    .collect();
                value["left_out"] = Json::Object(left_out);
                let mut rows = Vec::new();
                for case in &evaluation.cases {
                    for t in &case.targets {
                        let index = spec
                            .targets
                            .iter()
                            .position(|x| x.target == t.target)
                            .unwrap_or(0);
                        let resources = spec.resources(case.kernel, index);
                        let mut row = json!({
                            "plan": case.plan,
                            "kernel": case.kernel.and_then(|k| spec.kernels.get(k)).map(|k| k.name.clone()),
                            "target": t.target.to_string(),
                            "compute_capability": t.target.arch.cc.to_string(),
                            "block": [t.launch.block.x, t.launch.block.y, t.launch.block.z],
                            "dynamic_smem_bytes": t.launch.dynamic_smem_bytes,
                            "registers_per_thread": t.kernel.registers_per_thread,
                            "static_smem_bytes": t.kernel.static_smem_bytes,
                            "barriers": t.kernel.barriers,
                            // The opt-in (cudaFuncAttributeMaxDynamicSharedMemorySize), bytes;
                            // null: the default 48 KiB limit.
                            "max_dynamic_smem_bytes": t.kernel.max_dynamic_smem_bytes,
                            "cubin": resources.map(|r| r.arch.to_string()),
                        });
                        match &t.occupancy {
                            Ok(o) => {
                                row["blocks_per_sm"] = json!(o.blocks_per_sm);
                                row["active_warps_per_sm"] = json!(o.active_warps_per_sm());
                                row["max_warps_per_sm"] = json!(o.max_warps_per_sm);
                                row["occupancy_percent"] = json!(o.percent());
                                row["limiters"] = json!(o.limiters.to_string());
                            }
                            Err(e) => row["error"] = json!(e.to_string()),
                        }
                        rows.push(row);
                    }
                }
                value["targets"] = json!(rows);
                value["findings"] = evaluation
                    .diagnostics
                    .iter()
                    .map(|d| finding_json(spec, d))
                    .collect();
                value["confirmations"] = spec
                    .confirmations
                    .iter()
                    .map(|c| json!({"expression": c.text, "value": int_json(c.value), "from": c.what}))
                    .collect();
            }
        }
        value
    }
}

/// An integer as a JSON number, or as its decimal text where it is past what JSON readers
/// take as a number (`i128::MIN`, `1 << 100`: beyond `i64` and `u64`).
fn int_json(v: i128) -> Json {
    match (i64::try_from(v), u64::try_from(v)) {
        (Ok(v), _) => json!(v),
        (_, Ok(v)) => json!(v),
        _ => json!(v.to_string()),
    }
}

/// A plan's values (`null` where known only at run time).
fn plan_json(plan: &occupancy_attr::Plan) -> Json {
    let v = |x: &occupancy_attr::Value| x.literal();
    json!({
        "label": plan.label,
        "block": plan.block.iter().map(v).collect::<Vec<_>>(),
        "dynamic_smem_bytes": v(&plan.smem),
        "grid": plan.grid.as_ref().map(|g| g.iter().map(v).collect::<Vec<_>>()),
        "from": plan.origin,
    })
}

fn finding_json(spec: &Spec, d: &Diagnostic) -> Json {
    let f = &d.finding;
    json!({
        "lint": f.lint.name,
        "level": spec.level(f.lint).name(),
        "plan": d.plan,
        "target": f.target.map(|t| t.to_string()),
        "targets": d.targets.iter().map(ToString::to_string).collect::<Vec<_>>(),
        "kernels": d.kernels,
        "message": f.message,
        "notes": f.notes,
        "helps": f.helps,
    })
}

pub(super) fn summary_json(wrappers: &[Wrapper]) -> Json {
    let c = counts(wrappers);
    json!({
        "wrappers": c.wrappers,
        "not_annotated": wrappers.iter().filter(|w| w.site.is_some()).count(),
        "not_checked": c.not_checked,
        "evaluated": c.evaluated,
        "constant": c.constant,
        "errors": c.errors,
        "deny": c.deny,
        "warn": c.warn,
        "conditional": wrappers.iter().filter(|w| !w.conditions.is_empty()).count(),
    })
}

/// The JSON document of `report`.
pub(super) fn document(report: &Report) -> String {
    let Report {
        package,
        crate_dir,
        manifest,
        manifest_origin,
        stale,
        wrappers,
        cuda,
        unreadable,
        failed,
    } = report;
    let cuda_wrappers: &[Wrapper] = cuda.as_ref().map_or(&[], |c| c.wrappers.as_slice());
    let mut json = json!({
        "crate": package,
        "path": crate_dir.display().to_string(),
        "manifest": manifest.as_ref().map(|p| p.display().to_string()),
        "manifest_origin": manifest_origin,
        "manifest_stale": stale,
        "wrappers": wrappers.iter().map(Wrapper::to_json).collect::<Vec<_>>(),
        "unreadable": unreadable,
        "summary": summary_json(wrappers),
        "failed": failed,
    });
    if let Some(c) = &cuda {
        json["cuda_launches"] = cuda_wrappers.iter().map(Wrapper::to_json).collect();
        json["cuda"] = json!({
            "dirs": c.dirs,
            "resources": c.resources,
            "notes": c.notes,
            "launch_sites": c.counts.sites,
            "paths": c.counts.paths,
            "checked": c.counts.checked,
        });
    }
    let mut s = serde_json::to_string_pretty(&json).unwrap_or_default();
    s.push('\n');
    s
}
