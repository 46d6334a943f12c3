//! Hostile input to the CLI ends fast, bounded and clear: devices, FIFOs, bad bytes,
//! symbolic-link loops. Every run is under a time limit, so that a hang fails the test
//! instead of stalling CI.

#![cfg(unix)]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The most any of these runs may take (each takes milliseconds).
const LIMIT: Duration = Duration::from_secs(60);

/// Runs `cargo-occupancy occupancy <args>` with `stdin`, killed after [`LIMIT`]:
/// (exit code, stdout, stderr).
fn run(args: &[&str], stdin: Stdio) -> (i32, String, String) {
    run_with(args, stdin, Stdio::piped())
}

/// [`run`] with its standard output on `stdout` (the stdout returned is empty unless piped).
fn run_with(args: &[&str], stdin: Stdio, stdout: Stdio) -> (i32, String, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_cargo-occupancy"))
        .arg("occupancy")
        .args(args)
        .env_remove("OCCUPANCY_MANIFEST")
        .env_remove("OCCUPANCY_POLICY")
        .stdin(stdin)
        .stdout(stdout)
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > LIMIT {
            child.kill().unwrap();
            panic!("`{}` ran past {LIMIT:?}", args.join(" "));
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let out = child.wait_with_output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Writes a minimal package manifest (`t` 0.1.0) into `dir`.
fn package(dir: &Path) {
    std::fs::write(
        dir.join("Cargo.toml"),
        "[package]\nname = \"t\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
    )
    .unwrap();
}

/// [`package`] with a `src/lib.rs` of one checked function (so that `report` reads the
/// policy).
fn checked_package(dir: &Path) {
    std::fs::create_dir_all(dir.join("src")).unwrap();
    package(dir);
    std::fs::write(
        dir.join("src/lib.rs"),
        "#[occupancy::check(block = 256, regs = 32, target = [\"sm_90\"])]\npub fn f() {}\n",
    )
    .unwrap();
}

fn mkfifo(path: &Path) {
    assert!(Command::new("mkfifo").arg(path).status().unwrap().success());
}

/// Before: `inspect /dev/zero` read 4-12 GB and ran out of memory; `inspect` on a FIFO hung.
#[test]
fn inspect_names_devices_and_fifos_without_reading_them() {
    let dir = scratch("hostile-inspect");
    let fifo = dir.join("k.cubin");
    mkfifo(&fifo);
    let (code, _, stderr) = run(
        &["inspect", "/dev/zero", fifo.to_str().unwrap()],
        Stdio::null(),
    );
    assert_eq!(code, 1, "{stderr}");
    assert_eq!(
        stderr,
        format!(
            "error: /dev/zero: it is a character device, not a regular file\n\
             error: {}: it is a FIFO (named pipe), not a regular file\n",
            fifo.display()
        )
    );
}

fn probe_cubin() -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../occupancy-core/tests/fixtures/nvrtc-12.9/probe.sm_80.cubin")
        .display()
        .to_string()
}

/// Before: `--write-manifest` read what was at the path first, to leave a file that already
/// held the text untouched: `/dev/zero` grew past 8 GB, a FIFO hung.
#[test]
fn inspect_writes_a_manifest_only_to_a_regular_file() {
    let dir = scratch("hostile-write-manifest");
    let fifo = dir.join("kernels.manifest.json");
    mkfifo(&fifo);
    let cubin = probe_cubin();
    for target in ["/dev/zero", fifo.to_str().unwrap(), dir.to_str().unwrap()] {
        let (code, _, stderr) = run(
            &["inspect", "--write-manifest", target, &cubin],
            Stdio::null(),
        );
        assert_eq!(code, 1, "{stderr}");
        assert!(
            stderr.contains(&format!(
                "error: cannot write resource manifest {target}: it exists and is not a regular file"
            )),
            "{stderr}"
        );
    }
    // A regular file is written, and the table printed.
    let file = dir.join("out.json");
    let (code, stdout, stderr) = run(
        &[
            "inspect",
            "--write-manifest",
            file.to_str().unwrap(),
            &cubin,
        ],
        Stdio::null(),
    );
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("k_spill      sm_80   32"), "{stdout}");
    let written = std::fs::read_to_string(&file).unwrap();
    assert!(written.contains("\"name\": \"k_spill\""), "{written}");
}

/// Before: syn read a number literal's digits in time that grows with their count squared:
/// a test file with a 200,000-digit literal held `report` for 114 s.
#[test]
fn report_leaves_out_a_function_with_an_absurd_number_literal() {
    let dir = scratch("hostile-long-number");
    std::fs::create_dir_all(dir.join("src")).unwrap();
    std::fs::create_dir_all(dir.join("tests")).unwrap();
    package(&dir);
    std::fs::write(dir.join("src/lib.rs"), "").unwrap();
    let digits = "9".repeat(200_000);
    std::fs::write(
        dir.join("tests/big.rs"),
        format!("fn f() {{ let x = {digits}; }}\n"),
    )
    .unwrap();
    let start = Instant::now();
    let (code, _, stderr) = run(&["report", dir.to_str().unwrap()], Stdio::null());
    assert!(
        start.elapsed() < Duration::from_secs(10),
        "{:?}",
        start.elapsed()
    );
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stderr.contains(
            "note: tests/big.rs:1: the body of `fn f` is not read: `fn f` has a number literal \
             of 200000 characters; the limit (1024) keeps the parser's time bounded"
        ),
        "{stderr}"
    );
}

/// Before: `profile --import` opened what it was given: a FIFO hung, `/dev/zero` read 1 GiB.
#[test]
fn profile_imports_only_a_regular_file() {
    let dir = scratch("hostile-profile");
    let fifo = dir.join("app.csv");
    mkfifo(&fifo);
    for (path, kind) in [
        (fifo.to_str().unwrap(), "a FIFO (named pipe)"),
        ("/dev/zero", "a character device"),
    ] {
        let (code, _, stderr) = run(&["profile", "--import", path], Stdio::null());
        assert_eq!(code, 2, "{stderr}");
        assert_eq!(
            stderr,
            format!(
                "error: cannot read the Nsight Compute export {path}: it is {kind}, not a regular file\n"
            )
        );
    }
}

/// Before: a policy file was read up to 16 MiB, and TOML's tree of a 16 MB file of small
/// arrays took 1.5 GB.
#[test]
fn a_policy_file_over_1_mib_is_an_error() {
    let dir = scratch("hostile-policy");
    checked_package(&dir);
    let policy = dir.join("occupancy.toml");
    // At the cap: read (a comment).
    std::fs::write(&policy, format!("#{}\n", "x".repeat((1 << 20) - 2))).unwrap();
    let (code, stdout, stderr) = run(&["report", dir.to_str().unwrap()], Stdio::null());
    assert_eq!(code, 0, "{stdout}{stderr}");
    // One byte over.
    std::fs::write(&policy, format!("#{}\n", "x".repeat((1 << 20) - 1))).unwrap();
    let (code, stdout, stderr) = run(&["report", dir.to_str().unwrap()], Stdio::null());
    assert_eq!((code, stdout.as_str()), (2, ""), "{stderr}");
    assert_eq!(
        stderr,
        format!(
            "error: cannot read the policy file {}: it is 1048577 bytes, over the cap of 1048576 \
             bytes (1 MiB) for this kind of file\n",
            policy.display()
        )
    );
}

/// Before: `--kernel-manifest` given a device or a folder said "no such file".
#[test]
fn report_names_what_a_kernel_manifest_path_is() {
    let dir = scratch("hostile-kernel-manifest");
    package(&dir);
    let folder = dir.join("folder");
    std::fs::create_dir_all(&folder).unwrap();
    for (path, why) in [
        (
            "/dev/zero",
            "it is a character device, not a regular file".to_owned(),
        ),
        (
            folder.to_str().unwrap(),
            "it is a directory, not a regular file".to_owned(),
        ),
        (
            "/nonexistent/kernels.json",
            "No such file or directory (os error 2)".to_owned(),
        ),
    ] {
        let (code, _, stderr) = run(
            &["report", dir.to_str().unwrap(), "--kernel-manifest", path],
            Stdio::null(),
        );
        assert_eq!(code, 2, "{stderr}");
        assert_eq!(stderr, format!("error: --kernel-manifest {path}: {why}\n"));
    }
}

/// Before: every command but `batch` panicked (exit 101, "failed printing to stdout") when
/// its output could not be written: a pipe closed early (`| head`), a full disk.
#[test]
fn a_failed_write_of_the_output_is_an_error_not_a_panic() {
    let cubin = probe_cubin();
    let commands: [&[&str]; 4] = [
        &["targets"],
        &["inspect", &cubin],
        &["calc", "--arch", "sm_90", "--block", "256", "--regs", "32"],
        &["sweep", "--arch", "sm_90", "--block", "256", "--regs", "32"],
    ];
    for args in commands {
        let full = std::fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .unwrap();
        let (code, _, stderr) = run_with(args, Stdio::null(), Stdio::from(full));
        assert_eq!(code, 2, "{args:?}: {stderr}");
        assert_eq!(
            stderr,
            "error: cannot write to standard output: No space left on device (os error 28)\n",
            "{args:?}"
        );
    }
}

/// Before: `batch < /dev/zero` aborted (exit 134, "memory allocation of 8589934592 bytes
/// failed"); one line of bad UTF-8 ended the run without a line number, losing the rows
/// after it.
#[test]
fn batch_streams_and_answers_every_row() {
    let zero = std::fs::File::open("/dev/zero").unwrap();
    let (code, stdout, stderr) = run(&["batch"], Stdio::from(zero));
    assert_eq!(code, 1);
    assert_eq!(stdout, "");
    assert_eq!(
        stderr,
        "error: batch: line 1: the header is longer than 65536 bytes\n"
    );

    let dir = scratch("hostile-batch");
    let input = dir.join("in.tsv");
    let mut file = std::fs::File::create(&input).unwrap();
    file.write_all(b"arch\tblock_size\tregisters_per_thread\nsm_90\t256\t32\n")
        .unwrap();
    file.write_all(b"sm_90\t2\xc3\x28\t32\n").unwrap();
    file.write_all(&vec![b'\t'; 1 << 20]).unwrap();
    file.write_all(b"\nsm_80\t128\t64\n").unwrap();
    drop(file);
    let (code, stdout, stderr) = run(
        &["batch"],
        Stdio::from(std::fs::File::open(&input).unwrap()),
    );
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(stderr, "batch: 2 row(s) with an error\n");
    assert_eq!(
        stdout,
        "arch\tblock_size\tregisters_per_thread\tblocks_per_sm\twarps_per_sm\toccupancy\tlimiters\terror\n\
         sm_90\t256\t32\t8\t64\t1.0000\twarps,registers\t\n\
         \t\t\terror\t\t\t\tline 3: not UTF-8 (byte 7)\n\
         \t\t\terror\t\t\t\tline 4: longer than 65536 bytes\n\
         sm_80\t128\t64\t8\t32\t0.5000\tregisters\t\n"
    );
}

/// Before: a symbolic-link loop in `src/` listed one wrapper 41 times; a FIFO in `src/`
/// hung `report`; a source file linked to /dev/zero took 4.2 GB.
#[test]
fn report_visits_each_file_once_and_skips_devices_and_fifos() {
    let krate = scratch("hostile-report");
    std::fs::create_dir_all(krate.join("src")).unwrap();
    std::fs::write(
        krate.join("Cargo.toml"),
        "[package]\nname = \"hostile\"\nversion = \"0.1.0\"\nedition = \"2024\"\n",
    )
    .unwrap();
    std::fs::write(
        krate.join("src/lib.rs"),
        "#[occupancy::check(block = 256, regs = 32, target = \"sm_90\")]\nfn launch() {}\n",
    )
    .unwrap();
    std::os::unix::fs::symlink(".", krate.join("src/loop")).unwrap();
    std::os::unix::fs::symlink("lib.rs", krate.join("src/again.rs")).unwrap();
    std::os::unix::fs::symlink("/dev/zero", krate.join("src/zero.rs")).unwrap();
    mkfifo(&krate.join("src/fifo.rs"));
    // Another crate beside this one, linked into src/: not followed (`ln -s / src/root`
    // walked the machine: 10 s, 577 MB).
    let outside = scratch("hostile-report-outside");
    std::fs::write(
        outside.join("other.rs"),
        "#[occupancy::check(block = 2048, regs = 32, target = \"sm_90\")]\nfn other() {}\n",
    )
    .unwrap();
    std::os::unix::fs::symlink(&outside, krate.join("src/ext")).unwrap();
    let (code, stdout, stderr) = run(&["report", krate.to_str().unwrap()], Stdio::null());
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    assert_eq!(stdout.matches("launch").count(), 1, "{stdout}");
    // Under its own path, not the link's (`again.rs` sorts first).
    assert!(stdout.contains("src/lib.rs:1 "), "{stdout}");
    assert!(!stdout.contains("other"), "{stdout}");
    let src = krate.join("src");
    assert_eq!(
        stderr,
        format!(
            "note: {}: a FIFO (named pipe), skipped\n\
             note: {}: a link to {}, outside the crate's directory, not followed\n\
             note: {}: a character device, skipped\n",
            src.join("fifo.rs").display(),
            src.join("ext").display(),
            std::fs::canonicalize(&outside).unwrap().display(),
            src.join("zero.rs").display()
        )
    );
}

/// Before: `report --policy missing.toml` said the file was "named by OCCUPANCY_POLICY",
/// and a crate whose `Cargo.toml` is a FIFO or a folder had "no Cargo.toml there".
#[test]
fn report_names_where_a_policy_came_from_and_what_a_manifest_is() {
    let dir = scratch("hostile-report-origin");
    checked_package(&dir);
    let missing = dir.join("missing.toml");
    let (code, stdout, stderr) = run(
        &[
            "report",
            "--policy",
            missing.to_str().unwrap(),
            dir.to_str().unwrap(),
        ],
        Stdio::null(),
    );
    assert_eq!((code, stdout.as_str()), (2, ""), "{stderr}");
    assert!(
        stderr.starts_with(&format!(
            "error: cannot read the policy file {} (given on the command line): ",
            missing.display()
        )),
        "{stderr}"
    );
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(!stderr.contains("OCCUPANCY_POLICY"), "{stderr}");

    let fifo_crate = scratch("hostile-report-fifo-manifest");
    mkfifo(&fifo_crate.join("Cargo.toml"));
    let folder_crate = scratch("hostile-report-folder-manifest");
    std::fs::create_dir_all(folder_crate.join("Cargo.toml")).unwrap();
    for (dir, kind) in [
        (&fifo_crate, "a FIFO (named pipe)"),
        (&folder_crate, "a directory"),
    ] {
        let (code, _, stderr) = run(&["report", dir.to_str().unwrap()], Stdio::null());
        assert_eq!(code, 2, "{stderr}");
        assert!(
            stderr.contains(&format!(
                "{}: {kind}, not a package manifest",
                dir.join("Cargo.toml").display()
            )),
            "{stderr}"
        );
    }
}
