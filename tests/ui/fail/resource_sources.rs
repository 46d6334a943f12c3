#[occupancy::check(cubin = "fixtures/probe.sm_80.cubin", fatbin = "fixtures/probe.fatbin", kernel = "k_plain", block = 256)]
fn launch_both() {}

#[occupancy::check(cubin = "fixtures/probe.fatbin", kernel = "k_plain", block = 256)]
fn launch_fatbin_as_cubin() {}

#[occupancy::check(fatbin = "fixtures/probe.sm_80.cubin", kernel = "k_plain", block = 256)]
fn launch_cubin_as_fatbin() {}

#[occupancy::check(fatbin = "fixtures/probe.manifest.json", kernel = "k_plain", block = 256)]
fn launch_not_a_fatbin() {}

#[occupancy::check(cubin = "", kernel = "k_plain", block = 256)]
fn launch_empty_path() {}

#[occupancy::check(kernel = "", block = 256)]
fn launch_empty_name() {}

// No build manifest here (no OCCUPANCY_MANIFEST, no kernels.manifest.json).
#[occupancy::check(kernel = "k_plain", block = 256)]
fn launch_no_manifest() {}

fn main() {
    launch_both();
    launch_fatbin_as_cubin();
    launch_cubin_as_fatbin();
    launch_not_a_fatbin();
    launch_empty_path();
    launch_empty_name();
    launch_no_manifest();
}
