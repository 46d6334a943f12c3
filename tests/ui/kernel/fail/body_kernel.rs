// `kernel` that names another kernel than the body loads is drift; a glob that matches
// nothing lists what there is; a name built at run time suggests a glob.
struct Module;
impl Module {
    fn load_function(&self, _: &str) -> u32 {
        0
    }
}

#[occupancy::check(kernel = "k_plain", block = 256, target = "sm_90")]
fn launch_other(module: &Module) {
    module.load_function("k_regs");
}

#[occupancy::check(kernel = "affine_*", block = 256, target = "sm_90")]
fn launch_none() {}

#[occupancy::check(block = 256, target = "sm_90")]
fn launch_format(module: &Module, name: &str) {
    module.load_function(&format!("affine_{}", name));
}

fn main() {
    launch_other(&Module);
    launch_none();
    launch_format(&Module, "f32");
}
