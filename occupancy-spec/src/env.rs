//! What the front ends may read besides their input: the crate's directory and a few
//! environment variables.

use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};

use occupancy_core::policy::Policy;

/// The environment variable the build helper (`occupancy_core::build`) sets for the crate
/// being compiled, through `cargo:rustc-env`: the absolute path of the resource manifest in
/// effect. `kernel = "name"` reads it first.
pub const MANIFEST_VAR: &str = "OCCUPANCY_MANIFEST";

/// The environment variable the build helper sets for the crate being compiled, through
/// `cargo:rustc-env`: the targets the build script compiles for, comma-separated
/// (`sm_80,sm_86,sm_90`). A wrapper that names no `target`, in a crate whose
/// `occupancy.toml` names no `targets`, is checked on these.
pub const TARGETS_VAR: &str = "OCCUPANCY_TARGETS";

/// `$OUT_DIR/occupancy/manifest.json`: where the build helper writes the manifest; read when
/// [`MANIFEST_VAR`] is not set but the crate has a build script (`OUT_DIR` is set).
pub const OUT_DIR_MANIFEST: &str = "occupancy/manifest.json";

/// What the front end may read besides the tokens: the crate's directory and a few
/// environment variables. The proc macro takes them from its process
/// ([`Env::from_process`]); `cargo occupancy report` and tests build one.
#[derive(Clone, Debug, Default)]
pub struct Env {
    /// The crate's directory (`CARGO_MANIFEST_DIR`), against which every relative path is
    /// resolved and where `occupancy.toml` and `kernels.manifest.json` are looked for.
    /// `None`: no policy file, no committed manifest, relative paths stay relative.
    pub crate_dir: Option<PathBuf>,
    /// The file the wrapper is in, absolute (the proc macro's `Span::local_file`): where the
    /// source reader starts. `None`: constants are not resolved from the crate's sources.
    pub source_file: Option<PathBuf>,
    /// The crate name of the package's library (`occupancy_examples`), when the crate being
    /// compiled is another target of the package (an example, a test, a binary): paths
    /// starting with it are read from `src/lib.rs`.
    pub lib_name: Option<String>,
    vars: Vec<(String, OsString)>,
    /// Files the user named outside the crate's code (a command-line argument such as
    /// `report --kernel-manifest`): read wherever they are, since the containment rule is
    /// for paths named inside a crate.
    given_files: Vec<PathBuf>,
}

impl Env {
    /// The variables the front end reads: `OCCUPANCY_POLICY`, `OCCUPANCY_MANIFEST`,
    /// `OCCUPANCY_TARGETS`, `OUT_DIR`.
    pub const VARS: &'static [&'static str] =
        &[Policy::ENV_VAR, MANIFEST_VAR, TARGETS_VAR, "OUT_DIR"];

    /// The environment of the running process: `CARGO_MANIFEST_DIR` and [`Env::VARS`] (what
    /// cargo gives rustc, and so the proc macro).
    pub fn from_process() -> Env {
        let lib_name = std::env::var("CARGO_PKG_NAME")
            .ok()
            .map(|name| name.replace('-', "_"))
            .filter(|lib| std::env::var("CARGO_CRATE_NAME").ok().as_ref() != Some(lib));
        let mut env = Env {
            crate_dir: std::env::var_os("CARGO_MANIFEST_DIR").map(PathBuf::from),
            source_file: None,
            lib_name,
            vars: Vec::new(),
            given_files: Vec::new(),
        };
        for name in Env::VARS {
            if let Some(value) = std::env::var_os(name) {
                env = env.with_var(name, value);
            }
        }
        env
    }

    /// An environment for the crate in `crate_dir`, with no variables set.
    pub fn new(crate_dir: impl Into<PathBuf>) -> Env {
        Env {
            crate_dir: Some(crate_dir.into()),
            source_file: None,
            lib_name: None,
            vars: Vec::new(),
            given_files: Vec::new(),
        }
    }

    /// The same environment with the wrapper's file (absolute) set.
    pub fn with_source_file(mut self, file: impl Into<PathBuf>) -> Env {
        self.source_file = Some(file.into());
        self
    }

    /// The same environment with the package library's crate name set (see
    /// [`Env::lib_name`]).
    pub fn with_lib_name(mut self, name: impl Into<String>) -> Env {
        self.lib_name = Some(name.into());
        self
    }

    /// The same environment with `name` set to `value` (replacing an earlier value).
    pub fn with_var(mut self, name: &str, value: impl Into<OsString>) -> Env {
        self.vars.retain(|(n, _)| n != name);
        self.vars.push((name.to_owned(), value.into()));
        self
    }

    /// The same environment with `file` readable wherever it is: a file the user named on
    /// the command line, not in the crate's code (see [`Env::given_files`]).
    pub fn with_given_file(mut self, file: impl Into<PathBuf>) -> Env {
        self.given_files.push(file.into());
        self
    }

    /// The files given with [`Env::with_given_file`].
    pub fn given_files(&self) -> &[PathBuf] {
        &self.given_files
    }

    /// The value of `name`, if set.
    pub fn var(&self, name: &str) -> Option<&OsStr> {
        self.vars
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_os_str())
    }

    /// `path` resolved against the crate's directory when relative.
    pub fn resolve(&self, path: impl AsRef<Path>) -> PathBuf {
        let path = path.as_ref();
        match &self.crate_dir {
            Some(dir) if path.is_relative() => dir.join(path),
            _ => path.to_path_buf(),
        }
    }
}
