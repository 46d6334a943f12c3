#[occupancy::check(kernel = "sgemm_tiled", block = 256)]
fn launch_kernel() {}

#[occupancy::check(cubin = "kernels/sgemm.cubin", fatbin = "kernels/sgemm.fatbin", block = 256, regs = 32)]
fn launch_cubin() {}

fn main() {
    launch_kernel();
    launch_cubin();
}
