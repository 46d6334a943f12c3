//! Zero run-time cost: in a release build, the machine code of a launch wrapper that carries
//! a passing `#[occupancy::check]` is the same as that of the same function without it.
//!
//! Builds `tests/fixtures/user-crate` (whose `saxpy_checked` and `saxpy_plain` differ only
//! by the attribute) with `cargo rustc --release -- --emit=asm` and compares the two
//! functions' assembly, with their names and local label numbers taken out; when LLVM has
//! merged the two into one (the checked function emitted as an alias of the plain one),
//! that is the proof.

use std::path::PathBuf;
use std::process::Command;

fn fixture() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/user-crate")
}

/// The assembly of the function whose symbol contains `name`, from its label to `.Lfunc_end`,
/// with the symbol and the function-specific parts of local labels normalised.
fn function_asm(asm: &str, name: &str) -> Vec<String> {
    let lines: Vec<&str> = asm.lines().collect();
    let start = lines
        .iter()
        .position(|l| l.ends_with(':') && !l.starts_with('.') && l.contains(name))
        .unwrap_or_else(|| panic!("no function {name} in the assembly"));
    let symbol = lines[start].trim_end_matches(':').to_owned();
    lines[start + 1..]
        .iter()
        .take_while(|l| !l.starts_with(".Lfunc_end"))
        .map(|l| l.replace(&symbol, "FUNCTION"))
        .map(|l| {
            // `.LBB12_3` -> `.LBB_3`: the first number is the function's index in the file.
            let mut out = String::new();
            let mut rest = l.as_str();
            while let Some(i) = rest.find(".LBB") {
                out.push_str(&rest[..i + 4]);
                rest = &rest[i + 4..];
                let digits = rest.find('_').unwrap_or(0);
                rest = &rest[digits..];
            }
            out.push_str(rest);
            out
        })
        .filter(|l| !l.trim_start().starts_with(".cfi") && !l.trim_start().starts_with('#'))
        .collect()
}

#[test]
fn checked_wrapper_compiles_to_the_same_machine_code() {
    let target = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/zero-cost");
    let out = Command::new(env!("CARGO"))
        .args([
            "rustc",
            "--release",
            "--lib",
            "-q",
            "--",
            "--emit=asm",
            "-C",
            "debuginfo=0",
        ])
        .current_dir(fixture())
        .env("CARGO_TARGET_DIR", &target)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let deps = target.join("release/deps");
    let asm_file = std::fs::read_dir(&deps)
        .unwrap()
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| {
            p.extension().is_some_and(|e| e == "s")
                && p.file_name()
                    .is_some_and(|n| n.to_string_lossy().starts_with("occupancy_user_crate"))
        })
        .max_by_key(|p| p.metadata().and_then(|m| m.modified()).ok())
        .expect("an .s file");
    let asm = std::fs::read_to_string(asm_file).unwrap();
    // LLVM merges identical functions: the checked one may be emitted as an alias of the
    // plain one (`checked = plain`), the strongest proof that their code is the same.
    let alias = asm.lines().any(|l| {
        l.split_once(" = ").is_some_and(|(left, right)| {
            left.contains("saxpy_checked") && right.contains("saxpy_plain")
        })
    });
    if alias {
        let plain = function_asm(&asm, "saxpy_plain");
        assert!(
            plain
                .iter()
                .filter(|l| l.starts_with('\t') && !l.starts_with("\t."))
                .count()
                > 10,
            "{plain:#?}"
        );
        return;
    }
    let checked = function_asm(&asm, "saxpy_checked");
    let plain = function_asm(&asm, "saxpy_plain");
    let instructions = checked
        .iter()
        .filter(|l| l.starts_with('\t') && !l.starts_with("\t."))
        .count();
    assert!(instructions > 10, "{checked:#?}");
    assert_eq!(checked, plain);
}
