//! The attribute's expansion cache (`occupancy-macros/src/cache.rs`), through plain
//! `cargo check` of a crate made here: a second check replays the stored expansion (shown
//! by editing the stored entry: the edit reaches the build's output), with the same output
//! as the first (the wrapper has a doc comment); an edit to a constant in another module, a
//! policy file created beside `Cargo.toml` and a touch that changes nothing each give what a
//! fresh expansion gives.

use std::path::{Path, PathBuf};
use std::process::Command;

const LIB: &str = r#"mod consts;

pub struct LaunchConfig {
    pub grid_dim: (u32, u32, u32),
    pub block_dim: (u32, u32, u32),
    pub shared_mem_bytes: u32,
}

fn launch(_cfg: LaunchConfig) {}

/// Launches the kernel over `n` elements (a doc comment: its tokens share one place, and the
/// expansion is stored all the same).
#[occupancy::check(regs = 96, target = ["sm_80", "sm_90"])]
pub fn run(n: u32) {
    let cfg = LaunchConfig {
        grid_dim: (n.div_ceil(consts::BLOCK_1), 1, 1),
        block_dim: (consts::BLOCK_1, 1, 1),
        shared_mem_bytes: consts::SMEM * 4,
    };
    launch(cfg);
}
"#;

fn consts(block_0: u32) -> String {
    format!(
        "pub const BLOCK_0: u32 = {block_0};\npub const BLOCK_1: u32 = 2 * BLOCK_0;\n\
         pub const SMEM: u32 = 1024;\n"
    )
}

/// A crate named `name` under the tests' temporary folder, depending on this checkout's
/// `occupancy`, with `files` (path, text) written and no `occupancy.toml` unless among
/// them; its `target/` is kept between runs, its cache emptied.
fn scratch_crate(name: &str, files: &[(&str, &str)]) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    std::fs::create_dir_all(dir.join("src")).unwrap();
    let root = env!("CARGO_MANIFEST_DIR");
    std::fs::write(
        dir.join("Cargo.toml"),
        format!(
            "[package]\nname = \"{name}\"\nversion = \"0.0.0\"\nedition = \"2024\"\n\
             publish = false\n\n[dependencies]\noccupancy = {{ path = {root:?} }}\n\n[workspace]\n"
        ),
    )
    .unwrap();
    let _ = std::fs::remove_file(dir.join("occupancy.toml"));
    for (path, text) in files {
        std::fs::write(dir.join(path), text).unwrap();
    }
    let _ = std::fs::remove_dir_all(entries_dir(&dir));
    dir
}

/// The crate of `LIB`, written again.
fn made_crate() -> PathBuf {
    scratch_crate(
        "expansion-cache",
        &[("src/lib.rs", LIB), ("src/consts.rs", &consts(128))],
    )
}

/// `cargo check` of the crate in `dir` with `vars` set (and none of the variables that would
/// change it from outside): its output, success asserted.
fn cargo_check(dir: &Path, vars: &[(&str, &str)]) -> std::process::Output {
    let output = cargo_check_unasserted(dir, vars);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    output
}

/// [`cargo_check`], whatever its outcome.
fn cargo_check_unasserted(dir: &Path, vars: &[(&str, &str)]) -> std::process::Output {
    Command::new(env!("CARGO"))
        .args(["check", "--manifest-path"])
        .arg(dir.join("Cargo.toml"))
        .env("CARGO_TARGET_DIR", dir.join("target"))
        .env_remove("RUSTFLAGS")
        .env_remove("CARGO_ENCODED_RUSTFLAGS")
        .env_remove("OCCUPANCY_POLICY")
        .env_remove("OCCUPANCY_NO_CACHE")
        .envs(vars.iter().copied())
        .output()
        .expect("run cargo")
}

fn entries_dir(dir: &Path) -> PathBuf {
    dir.join("target/debug/occupancy-expansions")
}

/// `cargo check` after touching `src/lib.rs`: its stderr without the `Finished` line.
fn check(dir: &Path) -> String {
    check_crate(dir, "expansion-cache")
}

/// [`check`] of the crate named `name`.
fn check_crate(dir: &Path, name: &str) -> String {
    let lib = dir.join("src/lib.rs");
    let text = std::fs::read(&lib).unwrap();
    std::fs::write(&lib, text).unwrap();
    let output = cargo_check(dir, &[("CARGO_TERM_COLOR", "never")]);
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    // From the crate's own line: what cargo printed about its dependencies before varies.
    let own = stderr.find(&format!("Checking {name} ")).unwrap_or(0);
    stderr[own..]
        .lines()
        .filter(|l| !l.trim_start().starts_with("Finished"))
        .map(|l| format!("{l}\n"))
        .collect()
}

/// The one stored entry.
fn entry(dir: &Path) -> PathBuf {
    let entries: Vec<PathBuf> = std::fs::read_dir(entries_dir(dir))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(entries.len(), 1, "{entries:?}");
    entries[0].clone()
}

/// Rewrites the stored entry's expansion (its last block, after the sizes of the others),
/// `from` -> `to`, with its sum (of what follows the sum's line) made again.
fn edit_entry(path: &Path, from: &str, to: &str) {
    let text = std::fs::read_to_string(path).unwrap();
    let (head, rest) = text.split_once("\nsum ").unwrap();
    let (_, rest) = rest.split_once('\n').unwrap();
    let (sizes, _) = rest.split_once('\n').unwrap();
    let (deps, refs) = sizes
        .strip_prefix("sizes ")
        .unwrap()
        .split_once(' ')
        .unwrap();
    let expansion_at =
        sizes.len() + 1 + deps.parse::<usize>().unwrap() + refs.parse::<usize>().unwrap();
    assert!(rest[expansion_at..].contains(from), "{rest}");
    let rest = format!(
        "{}{}",
        &rest[..expansion_at],
        rest[expansion_at..].replace(from, to)
    );
    let sum = occupancy_core::file::digest(rest.as_bytes());
    std::fs::write(path, format!("{head}\nsum {sum:016x}\n{rest}")).unwrap();
}

#[test]
fn a_stored_expansion_is_replayed_until_what_it_read_changes() {
    let dir = made_crate();
    let first = check(&dir);
    let floor = "run on sm_90: 25% occupancy (16 of 64 warps), below the 50% floor";
    assert!(first.contains(floor), "{first}");
    let stored = entry(&dir);

    // Replayed: the same output, and the entry is what it comes from.
    assert_eq!(check(&dir), first);
    edit_entry(
        &stored,
        "below the 50% floor",
        "below the 50% floor (replayed)",
    );
    let replayed = check(&dir);
    assert!(replayed.contains("floor (replayed)"), "{replayed}");

    // A constant of another module changes: read again, another finding.
    std::fs::write(dir.join("src/consts.rs"), consts(64)).unwrap();
    let edited = check(&dir);
    assert!(!edited.contains("(replayed)"), "{edited}");
    assert!(
        edited.contains("run on sm_90: 31.25% occupancy (20 of 64 warps), below the 50% floor"),
        "{edited}"
    );
    assert_eq!(check(&dir), edited, "the new expansion replayed");

    // A policy file where none was: looked for before, so noticed.
    std::fs::write(dir.join("occupancy.toml"), "min_occupancy = \"20%\"\n").unwrap();
    let allowed = check(&dir);
    assert!(!allowed.contains("low_occupancy"), "{allowed}");

    // A damaged entry is not used: the expansion is made again.
    let stored = entry(&dir);
    let text = std::fs::read_to_string(&stored).unwrap();
    std::fs::write(&stored, &text[..text.len() / 2]).unwrap();
    assert_eq!(check(&dir), allowed);
}

#[test]
fn occupancy_no_cache_turns_it_off() {
    let dir = scratch_crate(
        "expansion-cache-off",
        &[("src/lib.rs", LIB), ("src/consts.rs", &consts(128))],
    );
    let output = cargo_check(&dir, &[("OCCUPANCY_NO_CACHE", "1")]);
    assert!(
        String::from_utf8_lossy(&output.stderr).contains("25% occupancy (16 of 64 warps)"),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(!entries_dir(&dir).exists());
}

/// A crate of two modules, each with one wrapper of literals that reads the policy file.
fn two_module_crate() -> PathBuf {
    scratch_crate(
        "expansion-cache-tracked",
        &[
            ("src/lib.rs", "mod a;\nmod b;\n"),
            ("src/a.rs", &wrapper("first", 128)),
            ("src/b.rs", &wrapper("second", 192)),
            ("occupancy.toml", "min_occupancy = \"0%\"\n"),
        ],
    )
}

fn wrapper(name: &str, block: u32) -> String {
    format!(
        "#[occupancy::check(block = {block}, regs = 128, target = \"sm_90\")]\n\
         pub fn {name}() {{}}\n"
    )
}

/// The text of every stored entry of the crate in `dir`.
fn entry_texts(dir: &Path) -> Vec<String> {
    std::fs::read_dir(entries_dir(dir))
        .unwrap()
        .map(|e| std::fs::read_to_string(e.unwrap().path()).unwrap())
        .collect()
}

/// The dep-info's line for the policy's variable: cargo rebuilds when it changes.
const VAR_DEP: &str = "# env-dep:OCCUPANCY_POLICY";

/// The files the crate's dep-info lists (cargo rebuilds the crate when one changes).
fn dep_info(dir: &Path) -> String {
    let deps = dir.join("target/debug/deps");
    std::fs::read_dir(&deps)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            p.extension().is_some_and(|e| e == "d")
                && p.file_name()
                    .is_some_and(|n| n.to_string_lossy().starts_with("expansion_cache_tracked"))
        })
        .map(|p| std::fs::read_to_string(p).unwrap())
        .collect()
}

#[test]
fn a_file_read_stays_in_the_dep_info_when_the_attribute_that_included_it_is_gone() {
    let dir = two_module_crate();
    let policy = dir.join("occupancy.toml");
    let policy_text = policy.to_str().unwrap();
    check(&dir);
    assert!(dep_info(&dir).contains(policy_text), "{}", dep_info(&dir));
    assert!(dep_info(&dir).contains(VAR_DEP), "{}", dep_info(&dir));
    // One `include_bytes!` of the policy and one `option_env!` of its variable per
    // compilation: the first wrapper's.
    let entries = entry_texts(&dir);
    assert_eq!(entries.len(), 2);
    let included = format!("\ninc\tfile\t{policy_text}\n");
    let omitted = format!("\nomit\tfile\t{policy_text}\n");
    let (var_included, var_omitted) = (
        "\ninc\tvar\tOCCUPANCY_POLICY\n",
        "\nomit\tvar\tOCCUPANCY_POLICY\n",
    );
    for fact in [&included, &omitted, var_included, var_omitted] {
        assert_eq!(
            entries.iter().filter(|e| e.contains(fact)).count(),
            1,
            "{fact}"
        );
    }

    // The first wrapper's module goes (`src/a.rs` itself unchanged, so that the second's
    // entry, whose record holds every file read before it in the compilation, is still
    // good): that entry omitted the policy, so it is not replayed in a compilation where
    // nothing included the policy; expanded again, it includes it, and the policy stays in
    // the dep-info.
    std::fs::write(dir.join("src/lib.rs"), "mod b;\n").unwrap();
    let quiet = check(&dir);
    assert!(!quiet.contains("low_occupancy"), "{quiet}");
    assert!(dep_info(&dir).contains(policy_text), "{}", dep_info(&dir));
    assert!(dep_info(&dir).contains(VAR_DEP), "{}", dep_info(&dir));
    let entries = entry_texts(&dir);
    assert_eq!(entries.iter().filter(|e| e.contains(&included)).count(), 2);
    assert_eq!(
        entries.iter().filter(|e| e.contains(var_included)).count(),
        2
    );

    // So an edit to the policy rebuilds the crate, and its finding shows.
    std::fs::write(&policy, "min_occupancy = \"50%\"\n").unwrap();
    let output = cargo_check(&dir, &[]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("second on sm_90: 18.75% occupancy (12 of 64 warps), below the 50% floor"),
        "{stderr}"
    );
}

/// Two wrappers of `a` and one of `b` read `super::consts::BLOCK_1` alike; a fourth in `a`
/// declares a constant in its body.
fn shared_confirmations_crate() -> PathBuf {
    let wrapper = |name: &str, item: &str| {
        format!(
            "    #[occupancy::check(regs = 96, target = \"sm_90\")]\n\
             \x20   pub fn {name}(n: u32) {{\n\
             \x20       {item}\n\
             \x20       super::launch(super::LaunchConfig {{\n\
             \x20           grid_dim: (n.div_ceil(super::consts::BLOCK_1), 1, 1),\n\
             \x20           block_dim: (super::consts::BLOCK_1, 1, 1),\n\
             \x20           shared_mem_bytes: 0,\n\
             \x20       }});\n\
             \x20   }}\n"
        )
    };
    let lib = format!(
        "mod consts;\n\n\
         pub struct LaunchConfig {{\n\
         \x20   pub grid_dim: (u32, u32, u32),\n\
         \x20   pub block_dim: (u32, u32, u32),\n\
         \x20   pub shared_mem_bytes: u32,\n\
         }}\n\n\
         fn launch(_cfg: LaunchConfig) {{}}\n\n\
         pub mod a {{\n{}{}{}}}\n\npub mod b {{\n{}}}\n",
        wrapper("first", ""),
        wrapper("second", ""),
        wrapper("own", "const TILE: u32 = 4; let _ = TILE;"),
        wrapper("third", ""),
    );
    scratch_crate(
        "expansion-cache-shared",
        &[("src/lib.rs", &lib), ("src/consts.rs", &consts(128))],
    )
}

/// The number of stored entries of the crate in `dir` that contain `text`.
fn entries_with(dir: &Path, text: &str) -> usize {
    entry_texts(dir).iter().filter(|e| e.contains(text)).count()
}

#[test]
fn a_confirmation_is_made_once_per_module_and_each_wrapper_checks_it_is_in_that_module() {
    let dir = shared_confirmations_crate();
    let first = check_crate(&dir, "expansion-cache-shared");
    for name in ["first", "second", "own", "third"] {
        let finding =
            format!("{name} on sm_90: 25% occupancy (16 of 64 warps), below the 50% floor");
        assert!(first.contains(&finding), "{name}: {first}");
    }
    // `first` makes the confirmation of `a` and defines its marker beside itself; `second`
    // names the marker and makes none; `own`, whose body declares an item, and `third`, in
    // another module, make their own.
    assert_eq!(entry_texts(&dir).len(), 4);
    assert_eq!(entries_with(&dir, "__private :: confirm ::"), 3);
    assert_eq!(
        entries_with(&dir, "(super :: consts :: BLOCK_1) == 256 }"),
        3
    );
    assert_eq!(entries_with(&dir, "const __OCCUPANCY_CONFIRMED_"), 2);
    assert_eq!(entries_with(&dir, "\nomit\tshare\t"), 1);
    assert_eq!(entries_with(&dir, "\ninc\tshare\t"), 2);

    // Replayed: the same findings.
    assert_eq!(check_crate(&dir, "expansion-cache-shared"), first);

    // The constant changes: every wrapper reads it again, `second` included.
    std::fs::write(dir.join("src/consts.rs"), consts(64)).unwrap();
    let edited = check_crate(&dir, "expansion-cache-shared");
    for name in ["first", "second", "own", "third"] {
        let finding =
            format!("{name} on sm_90: 31.25% occupancy (20 of 64 warps), below the 50% floor");
        assert!(edited.contains(&finding), "{name}: {edited}");
    }

    // The marker a wrapper names is checked by the compiler: one that its module does not
    // hold is an error, so a wrapper never relies on a confirmation made in another scope.
    let relying = std::fs::read_dir(entries_dir(&dir))
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| {
            std::fs::read_to_string(p)
                .unwrap()
                .contains("\nomit\tshare\t")
        })
        .unwrap();
    edit_entry(
        &relying,
        "__OCCUPANCY_CONFIRMED_",
        "__OCCUPANCY_CONFIRMED_0",
    );
    let lib = dir.join("src/lib.rs");
    std::fs::write(&lib, std::fs::read(&lib).unwrap()).unwrap();
    let output = cargo_check_unasserted(&dir, &[]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success(), "{stderr}");
    assert!(
        stderr.contains("cannot find value `__OCCUPANCY_CONFIRMED_0"),
        "{stderr}"
    );
}
