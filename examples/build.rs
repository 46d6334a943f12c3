//! Compiles `../kernels/*.cu` with NVRTC for every target architecture and embeds the
//! cubins, PTX and resource manifest (`$OUT_DIR/occupancy/kernels.rs`, included by
//! `src/lib.rs`). Without NVRTC the committed `kernels.manifest.json` stands in for the
//! resources and no kernel is embedded (the examples then cannot launch on a GPU).
//! Refresh the committed manifest with `OCCUPANCY_WRITE_MANIFEST=1 cargo build -p occupancy-examples`.

fn main() {
    occupancy_core::build::Kernels::new("../kernels")
        .targets([
            "sm_75", "sm_80", "sm_86", "sm_89", "sm_90", "sm_100", "sm_120",
        ])
        .manifest("kernels.manifest.json")
        .compile();
}
