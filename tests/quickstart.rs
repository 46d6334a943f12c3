//! The README's quickstart, pasted: each code block of its "Quickstart" section that names
//! a file on its first line (`# Cargo.toml`, `// build.rs`, `// kernels/saxpy.cu`,
//! `// src/lib.rs`, `# occupancy.toml`) is written to a new crate, its path dependencies
//! pointed at this repository, and the crate built with plain `cargo build`: the output is
//! the README's (the `text` block, with the build's hash in the manifest's path), and a
//! second build is fresh.
//!
//! The quickstart's build script compiles its kernel with NVRTC: without NVRTC the build
//! fails with the message saying how to install it (checked), and the rest is skipped with
//! one line, unless `OCCUPANCY_REQUIRE_NVRTC=1` (CI) makes that a failure.

use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The README's "Quickstart" section: (language, first line, text) of each code block.
fn blocks() -> Vec<(String, String, String)> {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let start = readme
        .find("\n## Quickstart\n")
        .expect("a Quickstart section");
    let section = &readme[start + 1..];
    let end = section[3..].find("\n## ").map_or(section.len(), |e| e + 3);
    let mut out = Vec::new();
    let mut rest = &section[..end];
    while let Some(open) = rest.find("```") {
        let after = &rest[open + 3..];
        let (lang, body) = after.split_once('\n').unwrap();
        let close = body.find("```").expect("a closed code block");
        let text = &body[..close];
        out.push((
            lang.to_owned(),
            text.lines().next().unwrap_or("").to_owned(),
            text.to_owned(),
        ));
        rest = &body[close + 3..];
    }
    out
}

/// The crate the quickstart's file blocks make, under the target's tmp folder (its own
/// `target/` inside it kept between runs, as a user's would be).
fn quickstart_crate() -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("quickstart");
    std::fs::create_dir_all(&dir).unwrap();
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.file_name().is_some_and(|n| n != "target") {
            if path.is_dir() {
                std::fs::remove_dir_all(&path).unwrap();
            } else {
                std::fs::remove_file(&path).unwrap();
            }
        }
    }
    let mut files = Vec::new();
    for (lang, first, text) in blocks() {
        let name = first
            .trim_start_matches("# ")
            .trim_start_matches("// ")
            .split([' ', ':'])
            .next()
            .unwrap_or("")
            .to_owned();
        let is_file = matches!(lang.as_str(), "toml" | "rust" | "cuda")
            && (name.ends_with(".toml") || name.ends_with(".rs") || name.ends_with(".cu"));
        if !is_file {
            continue;
        }
        let mut text = text.replace(
            "path = \"../occupancy",
            &format!("path = \"{}", root().display()),
        );
        if name == "Cargo.toml" {
            // The crate lies inside this repository's folder: a workspace of its own.
            text.push_str("\n[workspace]\n");
        }
        let path = dir.join(&name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, text).unwrap();
        files.push(name);
    }
    files.sort();
    assert_eq!(
        files,
        [
            "Cargo.toml",
            "build.rs",
            "kernels/saxpy.cu",
            "occupancy.toml",
            "src/lib.rs"
        ]
    );
    dir
}

/// `cargo build -v` in `dir`: (success, stderr).
fn build(dir: &Path) -> (bool, String) {
    let output = Command::new(env!("CARGO"))
        .args(["build", "-v"])
        .current_dir(dir)
        .env_remove("CARGO_TARGET_DIR")
        .env("CARGO_TERM_COLOR", "never")
        .env_remove("RUSTFLAGS")
        .env_remove("CARGO_ENCODED_RUSTFLAGS")
        .env_remove("OCCUPANCY_POLICY")
        .env_remove("OCCUPANCY_MANIFEST")
        .env_remove("OCCUPANCY_WRITE_MANIFEST")
        .output()
        .expect("run cargo");
    (
        output.status.success(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

/// `my-kernels-<16 hex digits>` (cargo's hash of the build) as `my-kernels-<hash>`.
fn mask_hash(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = rest.find("my-kernels-") {
        let (head, tail) = rest.split_at(at + "my-kernels-".len());
        out.push_str(head);
        let hex = tail.bytes().take_while(u8::is_ascii_hexdigit).count();
        if hex == 16 {
            out.push_str("<hash>");
            rest = &tail[hex..];
        } else {
            rest = tail;
        }
    }
    out.push_str(rest);
    out
}

#[test]
fn the_readme_quickstart_builds_as_shown() {
    let dir = quickstart_crate();
    let expected = blocks()
        .into_iter()
        .find(|(lang, _, _)| lang == "text")
        .expect("the build's output in the README")
        .2;
    let (ok, stderr) = build(&dir);
    if !ok && stderr.contains("cannot compile the CUDA kernels") {
        assert!(
            stderr.contains("pip install nvidia-cuda-nvrtc-cu12"),
            "{stderr}"
        );
        assert_ne!(
            std::env::var("OCCUPANCY_REQUIRE_NVRTC").as_deref(),
            Ok("1"),
            "NVRTC not found: {stderr}"
        );
        eprintln!("skipped: the quickstart needs NVRTC (pip install nvidia-cuda-nvrtc-cu12)");
        return;
    }
    assert!(ok, "{stderr}");
    let shown = mask_hash(&stderr);
    for line in mask_hash(&expected).lines() {
        assert!(
            shown.lines().any(|l| l == line),
            "the README's line {line:?} is not in the build's output:\n{stderr}"
        );
    }
    // In order, as one warning: the README's first lines are the first warning's.
    let first = mask_hash(&expected);
    let first: Vec<&str> = first.lines().take_while(|l| !l.trim().is_empty()).collect();
    assert!(
        shown.contains(&first[..first.len().min(6)].join("\n")),
        "{stderr}"
    );

    let (ok, again) = build(&dir);
    assert!(ok, "{again}");
    assert!(
        again.contains("Fresh my-kernels") && !again.contains("Compiling my-kernels"),
        "{again}"
    );
}
