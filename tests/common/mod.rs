//! Shared helpers for the tests: reading the recorded data in `tests/data/`, copying the
//! CUDA C++ test crate.
#![allow(dead_code)]

use std::collections::HashMap;
use std::path::PathBuf;

use occupancy::arch::{ARCHS, Arch};

/// `tests/data/<rel>`.
pub fn data(rel: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(rel)
}

/// One TSV row, by column name.
pub struct Row(pub HashMap<String, String>);

impl Row {
    pub fn str(&self, key: &str) -> &str {
        self.0
            .get(key)
            .unwrap_or_else(|| panic!("column {key} missing"))
            .as_str()
    }
    pub fn int(&self, key: &str) -> i64 {
        let v = self.str(key);
        v.parse()
            .unwrap_or_else(|_| panic!("column {key}: {v:?} is not an integer"))
    }
    pub fn u32(&self, key: &str) -> u32 {
        u32::try_from(self.int(key)).unwrap_or_else(|_| panic!("column {key} out of u32 range"))
    }
}

/// Rows of a TSV file whose first non-comment line is the header.
pub fn tsv(text: &str) -> Vec<Row> {
    let mut lines = text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty());
    let header: Vec<&str> = lines.next().expect("header").split('\t').collect();
    lines
        .map(|line| {
            let cells = line.split('\t').map(str::to_owned);
            Row(header.iter().map(|h| h.to_string()).zip(cells).collect())
        })
        .collect()
}

pub fn read_tsv(rel: &str) -> Vec<Row> {
    tsv(&std::fs::read_to_string(data(rel)).unwrap())
}

/// The arch row for `sm_XY`.
pub fn arch(sm: &str) -> &'static Arch {
    ARCHS
        .iter()
        .find(|a| a.sm == sm)
        .unwrap_or_else(|| panic!("no arch {sm}"))
}

/// Barriers per block from an H200 probe kernel name `n<N>_s<S>_b<B>_r<R>`.
pub fn barriers_of(kernel: &str) -> u32 {
    let b = kernel
        .split('_')
        .find_map(|p| p.strip_prefix('b'))
        .expect("b<B> in kernel name");
    b.parse().unwrap()
}

/// A probe kernel's attributes as the H200's driver reported them (`h200/kernels.json`).
pub struct H200Kernel {
    /// `CU_FUNC_ATTRIBUTE_NUM_REGS`.
    pub num_regs: u32,
    /// `SHARED_SIZE_BYTES`.
    pub static_smem: u32,
    /// `MAX_THREADS_PER_BLOCK`.
    pub max_threads: u32,
    /// The opt-in limit that was set for the opt-in rows.
    pub optin: u32,
}

/// Every recorded probe kernel, by name.
pub fn h200_kernels() -> HashMap<String, H200Kernel> {
    let text = std::fs::read_to_string(data("h200/kernels.json")).unwrap();
    let json: serde_json::Value = serde_json::from_str(&text).unwrap();
    let get = |v: &serde_json::Value, k: &str| v[k].as_u64().unwrap() as u32;
    json.as_object()
        .unwrap()
        .iter()
        .map(|(name, v)| {
            let attrs = H200Kernel {
                num_regs: get(v, "num_regs"),
                static_smem: get(v, "shared_size_bytes"),
                max_threads: get(v, "max_threads_per_block"),
                optin: get(v, "max_dynamic_shared_size_bytes_optin"),
            };
            (name.clone(), attrs)
        })
        .collect()
}

/// A copy of the CUDA C++ test crate `tests/fixtures/cuda-crate` in a fresh temporary
/// folder named `name` (sources, build.rs, policy, lock file), its path dependencies on
/// this workspace's crates made absolute so that it builds from there.
pub fn copy_cuda_crate(name: &str) -> PathBuf {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let fixture = root.join("tests/fixtures/cuda-crate");
    let dir = std::env::temp_dir().join(name);
    let _ = std::fs::remove_dir_all(&dir);
    for sub in ["src", "src/cuda"] {
        std::fs::create_dir_all(dir.join(sub)).unwrap();
        for e in std::fs::read_dir(fixture.join(sub)).unwrap() {
            let e = e.unwrap();
            if e.file_type().unwrap().is_file() {
                std::fs::copy(e.path(), dir.join(sub).join(e.file_name())).unwrap();
            }
        }
    }
    for file in ["build.rs", "occupancy.toml", "Cargo.lock"] {
        std::fs::copy(fixture.join(file), dir.join(file)).unwrap();
    }
    let mut toml = std::fs::read_to_string(fixture.join("Cargo.toml")).unwrap();
    for dep in ["occupancy-core", "occupancy-cuda"] {
        toml = toml.replace(
            &format!("\"../../../{dep}\""),
            &format!("{:?}", root.join(dep).display().to_string()),
        );
    }
    std::fs::write(dir.join("Cargo.toml"), toml).unwrap();
    dir
}
