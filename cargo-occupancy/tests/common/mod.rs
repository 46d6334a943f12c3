//! Shared by the integration tests that run the binary.

use std::io::Write;
use std::process::{Command, Stdio};

/// Runs `cargo occupancy batch` on `input` (TSV, header first); returns its stdout. Panics
/// if the binary cannot run or exits with an error status.
pub fn batch(input: String) -> String {
    let mut child = Command::new(env!("CARGO_BIN_EXE_cargo-occupancy"))
        .args(["occupancy", "batch"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    // Written from a thread: the output would fill its pipe before the input is all in.
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap().unwrap();
    assert!(out.status.success(), "batch failed: {:?}", out.status);
    String::from_utf8(out.stdout).unwrap()
}
