//! `cargo occupancy batch`: any bytes on stdin. The module is the CLI's own
//! (`cargo-occupancy/src/batch.rs`); what is looked for: a panic, an overflow, a hang, or
//! memory growing with the input instead of the 64 KiB line cap; and, on every input, one
//! output row per input row after the header.
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "../../cargo-occupancy/src/batch.rs"]
#[allow(dead_code)]
mod batch;

fuzz_target!(|data: &[u8]| {
    let mut out = Vec::new();
    if let Ok(errors) = batch::run(data, &mut out) {
        // Every line after the header is answered or an error row, never dropped:
        // comments and blank lines only are skipped.
        let rows = out.split(|&b| b == b'\n').filter(|l| !l.is_empty()).count();
        assert!(rows >= 1 + errors, "{rows} rows for {errors} errors");
        let text = String::from_utf8(out).expect("batch writes UTF-8");
        let width = text.lines().next().map_or(0, |h| h.split('\t').count());
        for line in text.lines() {
            assert_eq!(line.split('\t').count(), width, "ragged output row {line:?}");
        }
    }
});
