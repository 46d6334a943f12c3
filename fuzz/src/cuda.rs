//! The body of the `cuda` fuzz target, on its own so that `bench/examples/cuda_replay.rs`
//! (included there by path) times and compares exactly what the fuzzer runs.
//!
//! The CUDA C++ launch reader on any text, split into up to four files at lines
//! `//@file <name>` (so that `#include "..."` between them, macros and templates of one
//! file used by another are fuzzed too), then each path checked with the engine and the
//! lints on a kernel whose demangled name is the path's own instantiation (so that every
//! value the reader lets through reaches `Spec::evaluate`); then the same files lowered to
//! the reading core's IR and read by the core (`occupancy_cuda::lowering_census_texts`).

use occupancy_core::policy::Policy;
use occupancy_core::resources::{KernelResources, Origin, SmTarget};
use occupancy_cuda::{CheckedLaunch, Compiled, Outcome, Reading};

/// Reads `data` as the target does and checks every path; returns what was read and
/// checked (the fuzz target drops it; the replay prints it).
pub fn run(data: &[u8]) -> (Reading, Vec<CheckedLaunch>) {
    let text = String::from_utf8_lossy(data);
    let mut files: Vec<(String, String)> = Vec::new();
    let mut name = "a.cu".to_owned();
    let mut current = String::new();
    for line in text.split_inclusive('\n') {
        if let Some(next) = line.trim_end().strip_prefix("//@file ")
            && files.len() < 3
        {
            files.push((
                std::mem::replace(&mut name, next.trim().to_owned()),
                std::mem::take(&mut current),
            ));
            continue;
        }
        current.push_str(line);
    }
    files.push((name, current));
    let given: Vec<(&str, &str)> = files
        .iter()
        .map(|(n, t)| (n.as_str(), t.as_str()))
        .collect();
    // Read for the policy's targets, as the build script and `report` do, so that device
    // queries are answered per target here too.
    let policy = Policy::default();
    let reading = occupancy_cuda::read_texts_with_policy(&given, &policy);
    let mut compiled = Compiled::default();
    for l in &reading.launches {
        let _ = (l.location(), l.form.written());
        for p in &l.paths {
            let _ = (p.summary(), p.label());
            for sm in [80, 90] {
                compiled.kernels.push((
                    KernelResources {
                        name: format!("{}", p.kernel),
                        demangled: Some(format!("void {}()", p.kernel)),
                        arch: SmTarget::new(sm),
                        toolkit: None,
                        origin: Origin::Cubin,
                        registers_per_thread: 40,
                        static_smem_bytes: 1024,
                        local_bytes: 0,
                        cumulative_stack_bytes: None,
                        spill_store_bytes: Some(0),
                        spill_load_bytes: Some(0),
                        barriers: Some(1),
                        max_threads: None,
                        required_threads: None,
                        min_blocks_per_sm: None,
                        max_registers: None,
                        cluster_dims: None,
                        max_cluster_rank: None,
                        const_bank0_bytes: None,
                        param_bytes: None,
                    },
                    "fuzz.o".into(),
                ));
            }
        }
    }
    for n in &reading.notes {
        let _ = n.to_string();
    }
    let checked = occupancy_cuda::check(&reading, &policy, &compiled);
    for c in &checked {
        for p in &c.paths {
            match &p.outcome {
                Outcome::Checked(spec, evaluation) => {
                    for d in &evaluation.diagnostics {
                        let _ = (spec.level(d.finding.lint), d.finding.to_string());
                    }
                }
                Outcome::NotChecked(why) => {
                    let _ = why.len();
                }
            }
        }
    }
    // The C++ front end's lowering and the reading core on the same roots (issue 25's
    // stage 3: the reader that replaces the interpreter is fuzzed before it does).
    let census = occupancy_cuda::lowering_census_texts(&given, &policy);
    let _ = census.side_by_side.same;
    (reading, checked)
}
