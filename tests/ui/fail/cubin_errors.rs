// Missing file.
#[occupancy::check(cubin = "fixtures/missing.cubin", kernel = "k_plain", block = 256)]
fn launch_missing() {}

// Cut off after 3000 bytes.
#[occupancy::check(cubin = "fixtures/truncated.sm_80.cubin", kernel = "k_plain", block = 256)]
fn launch_truncated() {}

// A kernel that is not there: the closest name and every kernel with its targets.
#[occupancy::check(cubin = "fixtures/probe.sm_80.cubin", kernel = "k_plian", block = 256, target = "sm_80")]
fn launch_misspelled() {}

// The sm_80 cubin cannot run on 7.5 or 9.0.
#[occupancy::check(cubin = "fixtures/probe.sm_80.cubin", kernel = "k_plain", block = 256, target = ["sm_75", "sm_86", "H100"])]
fn launch_no_cubin() {}

// Several kernels and no `kernel`.
#[occupancy::check(cubin = "fixtures/probe.sm_80.cubin", block = 256, target = "sm_80")]
fn launch_which() {}

fn main() {
    launch_missing();
    launch_truncated();
    launch_misspelled();
    launch_no_cubin();
    launch_which();
}
