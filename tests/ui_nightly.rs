//! The diagnostics of the `nightly` backend (`proc_macro::Diagnostic`), as `trybuild`
//! snapshots in `tests/ui-nightly/`: every case fails to compile, so that its warnings
//! are in the `.stderr` too.
//!
//! Only with the `nightly` feature, which needs a nightly compiler; the stable test command
//! and CI compile nothing here. Run them with `scripts/test-nightly.sh` (it skips with a
//! message where no nightly toolchain is installed), or:
//!
//! ```sh
//! cargo +nightly test --release --features nightly --test ui_nightly
//! ```
//!
//! The snapshots follow the nightly compiler's rendering: refresh them with
//! `TRYBUILD=overwrite` after a nightly update, and review the difference.
#![cfg(feature = "nightly")]

#[test]
fn ui_nightly() {
    // The built-in policy, and a copy of the committed probe manifest for `kernel = "..."`
    // inside trybuild's crate (`$CARGO_TARGET_DIR/tests/trybuild/occupancy`, where the cases
    // compile), since the attribute reads only inside the crate being compiled; the path
    // is relative to that crate.
    let target = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .parent()
        .expect("the target folder");
    let fixtures = target.join("tests/trybuild/occupancy/fixtures");
    std::fs::create_dir_all(&fixtures).unwrap();
    std::fs::copy(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/ui/fixtures/probe.manifest.json"),
        fixtures.join("probe.manifest.json"),
    )
    .unwrap();
    // SAFETY: this binary's only test; nothing else reads the environment meanwhile.
    unsafe {
        std::env::remove_var("OCCUPANCY_POLICY");
        std::env::set_var("OCCUPANCY_MANIFEST", "fixtures/probe.manifest.json");
    }
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui-nightly/*.rs");
}
