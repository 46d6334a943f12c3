//! Interim build script: writes `$OUT_DIR/occupancy/kernels.rs` with no embedded kernels
//! (`COMPILED = false`), the same interface `occupancy_core::build::Kernels` will generate
//! once it exists. Replaced by the real helper when the `resources` branch lands.

use std::{env, fs, path::PathBuf};

fn main() {
    let out = PathBuf::from(env::var_os("OUT_DIR").expect("cargo sets OUT_DIR")).join("occupancy");
    fs::create_dir_all(&out).expect("create $OUT_DIR/occupancy");
    fs::write(
        out.join("kernels.rs"),
        "/// Whether the kernels were compiled at build time.\n\
         pub const COMPILED: bool = false;\n\
         /// The cubin of `stem`.cu for `sm`, if compiled.\n\
         pub fn cubin(_stem: &str, _sm: &str) -> Option<&'static [u8]> { None }\n\
         /// The PTX of `stem`.cu, if compiled.\n\
         pub fn ptx(_stem: &str) -> Option<&'static str> { None }\n",
    )
    .expect("write kernels.rs");
    println!("cargo::rerun-if-changed=build.rs");
}
