//! `policy::Policy::from_toml`: the text of `occupancy.toml`, which the attribute macro reads
//! inside every `cargo build`.
#![no_main]

use libfuzzer_sys::fuzz_target;
use occupancy_core::lint::{LaunchSpec, check};
use occupancy_core::occupancy::{BlockDim, GridDim, Kernel, Launch};
use occupancy_core::policy::Policy;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    match Policy::from_toml(text) {
        Ok(policy) => {
            // The policy's targets, floor, class, levels and thresholds on a launch with a
            // register step, a shared-memory step and a tail, as the macro would lint it.
            let (min_occupancy, class) = policy.floor(None, None);
            let kernel = Kernel::new(40).with_static_smem(9000).with_barriers(2);
            let launch = Launch::new(BlockDim::new(16, 12, 1)).with_dynamic_smem(1000);
            let spec = LaunchSpec {
                min_occupancy,
                class,
                grid: Some(GridDim::linear(1000)),
                thresholds: policy.thresholds,
                ..LaunchSpec::new("launch", &policy.targets, kernel, launch)
            };
            for finding in check(&spec) {
                let _ = policy.lints.get(finding.lint);
                let _ = finding.to_string();
            }
        }
        Err(errors) => {
            for e in &errors {
                let _ = e.to_string();
                let _ = e.in_file("occupancy.toml");
            }
        }
    }
});
