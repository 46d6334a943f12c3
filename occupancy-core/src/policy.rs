//! The crate-wide policy: `occupancy.toml` beside the user's `Cargo.toml`.
//!
//! ```toml
//! # occupancy.toml
//! targets = ["sm_80", "sm_90", "RTX 4090"]   # default targets of every wrapper
//! min_occupancy = 0.5                        # or "50%": the low_occupancy floor
//!
//! class = "balanced"                        # memory_bound | balanced | compute_bound
//! manifest = "kernels.manifest.json"         # committed resource manifest (`kernel = "..."`)
//! read_paths = ["../cuda-artifacts"]          # more directories the attribute may read
//!
//! [lints]
//! low_occupancy = "deny"                     # allow | warn | deny
//! partial_warp = "allow"
//!
//! [launches.launch_softmax]                  # a launching function's run-time values
//! block = [128, 256]                         # threads; [[16, 16], [32, 8]] for 2-D
//! smem = [0, 8192]                           # dynamic shared memory, bytes
//!
//! defines = ["ENABLE_FP8", "QK=256"]          # the CUDA C++ build's -D macros, in full
//!
//! [device_params."launch_mmq_*"]              # an extern "C" function's parameters that
//! warp_size_host = "warp_size"               # its (Rust) caller asked the device for
//! cc = "compute_capability_x100"
//!
//! [thresholds]
//! register_step_max_drop = 4                 # registers per thread ("a few")
//! smem_step_max_bytes = 512                  # shared memory bytes per block
//! tail_effect_max_waste = "10%"              # idle share of the launch's block slots
//! ```
//!
//! Every key is optional; an absent file is the same as an empty one. The defaults:
//!
//! - `targets`: the targets the crate's build script compiles for, when it calls the build
//!   helper (`occupancy_core::build::Kernels::targets`, passed on as `OCCUPANCY_TARGETS`);
//!   else `["sm_80", "sm_90"]`: the A100 and H100/H200 generations, the data-center GPUs
//!   CUDA code is most often tuned for. Consumer GPUs (sm_86, sm_89, sm_120) have fewer
//!   warps per SM (48) and fewer resident blocks (16 or 24), so a crate that targets them
//!   should list them.
//! - `min_occupancy = 0.5` (50%): below half of the SM's warps, memory-bound kernels
//!   usually cannot hide latency; compute-bound kernels that rely on instruction-level
//!   parallelism should set a lower floor.
//! - `class`: none. A class sets the floor of wrappers that give no `min_occupancy`
//!   ([`KernelClass::default_floor`]); `min_occupancy` (here or in the attribute) wins over
//!   any class, and the attribute's `class` wins over this one.
//! - `manifest`: `kernels.manifest.json`. The committed resource manifest that
//!   `kernel = "name"` reads when the build's own manifest (`OCCUPANCY_MANIFEST`, set by the
//!   build helper `occupancy_core::build`) is not there; relative to the crate's directory.
//! - `read_paths`: none. The attribute reads files (policy, manifest, cubin, fatbin) only
//!   inside the package's directory, its workspace root and `OUT_DIR`, after resolving
//!   symbolic links; each directory listed here (absolute, or relative to the crate's
//!   directory) is allowed too, for artifacts kept beside the workspace.
//! - `[lints]`: each lint's default level ([`crate::lint::Lint::default_level`]).
//! - `[launches.<function>]`: none. Candidates for the run-time values of the launches a
//!   function makes, when the code does not bound them (the block is a parameter, the
//!   shared memory grows with the input): `block` (a list of sizes, each a number or a
//!   list of up to three dimensions) and `smem` (bytes). `<function>` is the launching
//!   function as reports name it: a CUDA C++ host function (`launch_softmax`,
//!   `ops::launch_softmax`). Each launch is checked once per candidate; a comment on the
//!   launch (`// occupancy: block = [128, 256]`) wins over this table.
//! - `[device_params.<function>]`: none. Parameters of CUDA C++ host functions called
//!   from Rust (through FFI) whose values the caller asked the device for: each
//!   `parameter = "attribute"` says the parameter holds that device attribute, so the
//!   reader takes each target's value from the GPU tables. `<function>` is a function's
//!   name, qualified or not, where `*` matches any characters (`launch_mmq_gguf_*`). The
//!   attributes ([`DEVICE_ATTRIBUTES`]) are the driver's `CU_DEVICE_ATTRIBUTE_*` names in
//!   lower case (`warp_size`, `multiprocessor_count`, `max_shared_memory_per_block_optin`,
//!   ...) and two encodings of the compute capability: `compute_capability_x100`
//!   (`major * 100 + minor * 10`: 860 for 8.6) and `compute_capability_x10`
//!   (`major * 10 + minor`: 86).
//! - `defines`: not declared. The `-D` macros nvcc compiles the crate's CUDA C++ with
//!   (`NAME` or `NAME=VALUE` each), all of them (`[]`: none). Declared, the C++ reader
//!   decides the `#if` / `#ifdef` branches the build compiles: a macro neither this list
//!   nor the files define, and no toolkit header could (see the reader's `preproc`
//!   module), is undefined. Not declared, each branch is read as a configuration some
//!   build makes.
//! - `[thresholds]`: [`Thresholds::DEFAULT`].
//!
//! Parsing is strict: a syntax error, an unknown key (with "did you mean"), a value of the
//! wrong type, an unknown target or lint, each is a [`PolicyError`] with its line and
//! column. Only parsing lives here; finding and reading the file is the front end's job
//! (the attribute and the CLI look for [`Policy::FILE_NAME`] in the crate's manifest
//! directory, or at the path in [`Policy::ENV_VAR`]).

use core::fmt;
use core::ops::Range;
use std::collections::BTreeMap;

use serde::Deserialize;
use serde::de::{self, IgnoredAny, Visitor};
use toml::Spanned;

use crate::arch::Target;
use crate::lint::{KernelClass, Level, Lint, LintLevels, MinOccupancy, Thresholds, closest};

/// The policy a crate sets for its launch wrappers.
#[derive(Clone, Debug, PartialEq)]
pub struct Policy {
    /// Targets of wrappers that name none (`targets`); [`DEFAULT_TARGETS`] when the file
    /// names none ([`Policy::targets_named`]).
    pub targets: Vec<Target>,
    /// Whether the file names `targets`. When it does not, the attribute checks the targets
    /// the build script compiles (the build helper's `OCCUPANCY_TARGETS`), else
    /// [`Policy::targets`].
    pub targets_named: bool,
    /// The `low_occupancy` floor (`min_occupancy`), when the file sets one.
    pub min_occupancy: Option<MinOccupancy>,
    /// The default kernel class (`class`), when the file sets one.
    pub class: Option<KernelClass>,
    /// Lint levels (`[lints]`).
    pub lints: LintLevels,
    /// Thresholds of the granularity lints (`[thresholds]`).
    pub thresholds: Thresholds,
    /// The committed resource manifest (`manifest`), relative to the crate's directory, when
    /// the file names one ([`Policy::DEFAULT_MANIFEST`] otherwise).
    pub manifest: Option<String>,
    /// Where the `manifest` value is written in the file: 1-based line and column (in
    /// characters), so that a front end that finds the file it names missing can say where.
    pub manifest_line_column: Option<(usize, usize)>,
    /// More directories the attribute may read files in (`read_paths`), as written:
    /// absolute, or relative to the crate's directory.
    pub read_paths: Vec<String>,
    /// Candidates for run-time launch values, per launching function (`[launches.<name>]`).
    pub launches: BTreeMap<String, LaunchCandidates>,
    /// Device attributes host functions receive as parameters, per function pattern
    /// (`[device_params.<function>]`): the parameter's name to the attribute's
    /// ([`DEVICE_ATTRIBUTES`]).
    pub device_params: BTreeMap<String, BTreeMap<String, String>>,
    /// The CUDA C++ build's `-D` macros (`defines`), `NAME` or `NAME=VALUE` each; `None`
    /// when the file does not declare them.
    pub defines: Option<Vec<String>>,
}

/// The device attributes `[device_params.<function>]` may name: the CUDA driver's
/// `CU_DEVICE_ATTRIBUTE_*` enumerators (CUDA Driver API, `CUdevice_attribute`) in lower
/// case, those the GPU tables ([`crate::arch`]) hold a value for, and two encodings of the
/// compute capability (`compute_capability_x100`: `major * 100 + minor * 10`;
/// `compute_capability_x10`: `major * 10 + minor`).
pub const DEVICE_ATTRIBUTES: &[&str] = &[
    "warp_size",
    "compute_capability_major",
    "compute_capability_minor",
    "compute_capability_x100",
    "compute_capability_x10",
    "multiprocessor_count",
    "max_shared_memory_per_block_optin",
    "max_shared_memory_per_block",
    "max_shared_memory_per_multiprocessor",
    "reserved_shared_memory_per_block",
    "max_threads_per_block",
    "max_threads_per_multiprocessor",
    "max_blocks_per_multiprocessor",
    "max_registers_per_block",
    "max_registers_per_multiprocessor",
];

/// Whether `name` (`ns::launch_mmq_gguf_q4_0`) matches `pattern`, where `*` matches any
/// characters: the whole name, or its last segment (`launch_mmq_*`).
pub fn function_matches(pattern: &str, name: &str) -> bool {
    fn glob(p: &[u8], s: &[u8]) -> bool {
        // Iterative glob with one backtrack point: linear in practice, never recursive.
        let (mut pi, mut si, mut star, mut mark) = (0, 0, None, 0);
        while si < s.len() {
            if pi < p.len() && p[pi] != b'*' && p[pi] == s[si] {
                pi += 1;
                si += 1;
            } else if pi < p.len() && p[pi] == b'*' {
                star = Some(pi);
                pi += 1;
                mark = si;
            } else if let Some(st) = star {
                pi = st + 1;
                mark += 1;
                si = mark;
            } else {
                return false;
            }
        }
        p[pi..].iter().all(|c| *c == b'*')
    }
    let last = name.rsplit("::").next().unwrap_or(name);
    glob(pattern.as_bytes(), name.as_bytes()) || glob(pattern.as_bytes(), last.as_bytes())
}

/// The candidates `[launches.<function>]` gives for the run-time values of a function's
/// launches. An empty list: none given.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LaunchCandidates {
    /// Block shapes, threads x, y, z (a number `n` is `[n, 1, 1]`).
    pub block: Vec<[u32; 3]>,
    /// Dynamic shared memory per block, bytes.
    pub smem_bytes: Vec<u32>,
    /// (block shape, dynamic shared memory bytes) chosen together (`launches`): each pair
    /// one launch, never crossed ([`crate::candidates`]); given instead of `block` and
    /// `smem`.
    pub pairs: Vec<([u32; 3], u32)>,
}

impl LaunchCandidates {
    /// The candidates as the shared rule takes them ([`crate::candidates::fill`]).
    pub fn given(&self) -> crate::candidates::Given<'_, [u32; 3], u32> {
        crate::candidates::Given {
            block: &self.block,
            smem: &self.smem_bytes,
            pairs: &self.pairs,
        }
    }
}

impl LaunchCandidates {
    /// The candidates a comment on a CUDA C++ launch gives: the text after `occupancy:` in
    /// `// occupancy: block = [128, (16, 16)], smem = [0, 4096]` or
    /// `// occupancy: launches = [(128, 0), ((16, 16), 4096)]`. The keys and values of a
    /// `[launches.<function>]` table written as its inline table, read and checked by the
    /// same code (a block shape may also be written `(x, y)` / `(x, y, z)`).
    ///
    /// # Errors
    ///
    /// One line, as for the table: text that is not `key = [values], ...`, an unknown key
    /// (with "did you mean"), an empty list, a value that is not a whole number of threads
    /// (bytes) or a block shape, no key at all. Nothing is taken from a comment with an
    /// error.
    pub fn from_comment(text: &str) -> Result<LaunchCandidates, String> {
        const PREFIX: &str = "c = { ";
        // `(16, 16)` is `[16, 16]`: the same length, so spans stay where they were.
        let mut body: String = text
            .trim_end()
            .chars()
            .map(|c| match c {
                '(' => '[',
                ')' => ']',
                c => c,
            })
            .collect();
        // A bare word (`abc`, `2O48`) is not TOML: quoted, it reaches the table's checks
        // and their message (`expected a whole number of threads, found `abc``).
        let mut quoted: Vec<String> = Vec::new();
        let table = loop {
            let doc = format!("{PREFIX}{body} }}");
            match toml::from_str::<toml::Table>(&doc) {
                Ok(mut t) => break t.remove("c"),
                Err(e) => {
                    let span = e.span().map(|r| {
                        r.start.saturating_sub(PREFIX.len())..r.end.saturating_sub(PREFIX.len())
                    });
                    let word = span
                        .as_ref()
                        .and_then(|r| body.get(r.clone()))
                        .map(str::to_owned);
                    match (span, word) {
                        (Some(r), Some(word))
                            if e.message().starts_with("string values must be quoted")
                                && !word.is_empty()
                                && !word.contains(['\'', '"'])
                                && quoted.len() < 64 =>
                        {
                            body.replace_range(r, &format!("'{word}'"));
                            quoted.push(word);
                        }
                        (span, _) => {
                            let at = span
                                .and_then(|r| body.get(r.start..))
                                .map(|rest| {
                                    format!(
                                        " at `{}`",
                                        rest.chars().take(24).collect::<String>().trim_end()
                                    )
                                })
                                .unwrap_or_default();
                            return Err(format!(
                                "expected `block = [..]` and / or `smem = [..]`, or `launches = [..]`: {}{at}",
                                e.message().trim().replace('\n', " ")
                            ));
                        }
                    }
                }
            }
        };
        let table = table.unwrap_or_else(|| toml::Value::Table(toml::Table::new()));
        if table.as_table().is_some_and(toml::Table::is_empty) {
            return Err(
                "no candidates: expected `block = [128, 256]` and / or `smem = [0, 4096]`, or `launches = [(128, 0), (256, 4096)]`"
                    .to_owned(),
            );
        }
        launch_candidates(&table).map_err(|mut why| {
            for word in &quoted {
                why = why.replace(&format!("`\"{word}\"`"), &format!("`{word}`"));
            }
            why
        })
    }
}

/// The top-level keys `occupancy.toml` accepts.
pub const KEYS: &[&str] = &[
    "targets",
    "min_occupancy",
    "class",
    "lints",
    "thresholds",
    "manifest",
    "read_paths",
    "launches",
    "device_params",
    "defines",
];

/// The keys of `[thresholds]`.
pub const THRESHOLD_KEYS: &[&str] = &[
    "register_step_max_drop",
    "smem_step_max_bytes",
    "tail_effect_max_waste",
];

/// The default targets, `sm_80` and `sm_90` (see the module docs for why).
pub const DEFAULT_TARGETS: &[&str] = &["sm_80", "sm_90"];

impl Default for Policy {
    /// The built-in defaults: targets sm_80 and sm_90, 50% floor, default lint levels.
    fn default() -> Self {
        Self {
            targets: DEFAULT_TARGETS
                .iter()
                .filter_map(|name| Target::parse(name).ok())
                .collect(),
            targets_named: false,
            min_occupancy: None,
            class: None,
            lints: LintLevels::default(),
            thresholds: Thresholds::DEFAULT,
            manifest: None,
            manifest_line_column: None,
            read_paths: Vec::new(),
            launches: BTreeMap::new(),
            device_params: BTreeMap::new(),
            defines: None,
        }
    }
}

impl Policy {
    /// The floor of a wrapper and the class it came from: the attribute's `min_occupancy`,
    /// else the attribute's `class` floor, else the policy's `min_occupancy`, else the
    /// policy's `class` floor, else [`MinOccupancy::DEFAULT`] (50%).
    pub fn floor(
        &self,
        min_occupancy: Option<MinOccupancy>,
        class: Option<KernelClass>,
    ) -> (MinOccupancy, Option<KernelClass>) {
        if let Some(floor) = min_occupancy {
            return (floor, None);
        }
        if let Some(class) = class {
            return (class.default_floor(), Some(class));
        }
        if let Some(floor) = self.min_occupancy {
            return (floor, None);
        }
        match self.class {
            Some(class) => (class.default_floor(), Some(class)),
            None => (MinOccupancy::DEFAULT, None),
        }
    }
}

/// One problem in a policy file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PolicyError {
    /// What is wrong, one line.
    pub message: String,
    /// The key it is about (`min_occupancy`, `lints.low_occupancy`), when known.
    pub key: Option<String>,
    /// Byte range in the file, when known.
    pub span: Option<Range<usize>>,
    /// 1-based line of the span's start.
    pub line: Option<usize>,
    /// 1-based column (in characters) of the span's start.
    pub column: Option<usize>,
}

impl PolicyError {
    fn new(
        lines: &Lines<'_>,
        message: String,
        key: Option<String>,
        span: Option<Range<usize>>,
    ) -> Self {
        let (line, column) = match &span {
            Some(span) => {
                let (l, c) = lines.line_column(span.start);
                (Some(l), Some(c))
            }
            None => (None, None),
        };
        Self {
            message: shortened(message),
            key,
            span,
            line,
            column,
        }
    }

    /// `path:line:column: message` (or `path: message` without a position).
    pub fn in_file(&self, path: &str) -> String {
        match (self.line, self.column) {
            (Some(line), Some(column)) => format!("{path}:{line}:{column}: {}", self.message),
            _ => format!("{path}: {}", self.message),
        }
    }
}

/// The most characters of a parser's message kept: TOML's messages quote the value they
/// refuse, which may be a whole 200 KB line.
const MAX_MESSAGE_CHARS: usize = 300;

/// `message` with its middle left out past [`MAX_MESSAGE_CHARS`] (the start names the key,
/// the end says what is wrong), saying how much was left out.
fn shortened(message: String) -> String {
    let count = message.chars().count();
    if count <= MAX_MESSAGE_CHARS {
        return message;
    }
    let keep = MAX_MESSAGE_CHARS / 2;
    let head: String = message.chars().take(keep).collect();
    let tail: String = message.chars().skip(count - keep).collect();
    format!(
        "{head} ...({} characters left out)... {tail}",
        count - 2 * keep
    )
}

impl fmt::Display for PolicyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.line, self.column) {
            (Some(line), Some(column)) => write!(f, "{line}:{column}: {}", self.message),
            _ => f.write_str(&self.message),
        }
    }
}

impl std::error::Error for PolicyError {}

/// The start of every line of a text, found once: a policy with thousands of errors costs
/// a binary search per error, not a scan from the file's start (which made 40,000 bad keys
/// take 10 s).
struct Lines<'a> {
    text: &'a str,
    /// Byte offset of each line's first byte; `[0]` is 0.
    starts: Vec<usize>,
}

impl<'a> Lines<'a> {
    fn new(text: &'a str) -> Self {
        let starts = core::iter::once(0)
            .chain(text.match_indices('\n').map(|(i, _)| i + 1))
            .collect();
        Self { text, starts }
    }

    /// 1-based line and column (in characters) of a byte offset; past the end, the end.
    fn line_column(&self, offset: usize) -> (usize, usize) {
        let offset = offset.min(self.text.len());
        let line = self.starts.partition_point(|&start| start <= offset);
        let start = self.starts[line - 1];
        let column = self
            .text
            .get(start..offset)
            .map_or(0, |s| s.chars().count());
        (line, column + 1)
    }
}

/// The floor as written in TOML: a fraction (`0.5`) or a percentage string (`"50%"`).
struct FloorValue(Result<MinOccupancy, String>);

impl<'de> Deserialize<'de> for FloorValue {
    fn deserialize<D: de::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct FloorVisitor;
        impl Visitor<'_> for FloorVisitor {
            type Value = FloorValue;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a fraction such as 0.5 or a percentage string such as \"50%\"")
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<FloorValue, E> {
                Ok(FloorValue(
                    MinOccupancy::from_fraction_f64(v).map_err(|e| e.message),
                ))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<FloorValue, E> {
                let hint = match v {
                    0..=100 => format!("\"{v}%\" or {}", v as f64 / 100.0),
                    _ => "a percentage string such as \"50%\" or a fraction such as 0.5".to_owned(),
                };
                Ok(FloorValue(Err(format!("`{v}` is ambiguous: write {hint}"))))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<FloorValue, E> {
                let result = match v.trim().strip_suffix('%') {
                    Some(digits) => MinOccupancy::from_percent_str(digits.trim()),
                    None => MinOccupancy::from_fraction_str(v.trim()),
                };
                Ok(FloorValue(result.map_err(|e| e.message)))
            }
        }
        deserializer.deserialize_any(FloorVisitor)
    }
}

#[derive(Deserialize)]
struct RawPolicy {
    targets: Option<Spanned<Vec<Spanned<String>>>>,
    min_occupancy: Option<Spanned<FloorValue>>,
    class: Option<Spanned<String>>,
    lints: Option<BTreeMap<Spanned<String>, Spanned<String>>>,
    thresholds: Option<BTreeMap<Spanned<String>, Spanned<toml::Value>>>,
    manifest: Option<Spanned<String>>,
    read_paths: Option<Vec<Spanned<String>>>,
    launches: Option<BTreeMap<Spanned<String>, Spanned<toml::Value>>>,
    device_params: Option<BTreeMap<Spanned<String>, RawParams>>,
    defines: Option<Vec<Spanned<String>>>,
}

/// One `[device_params.<function>]` table as written: parameter to attribute.
type RawParams = BTreeMap<Spanned<String>, Spanned<String>>;

impl Policy {
    /// The policy file's name, looked for beside the crate's `Cargo.toml`.
    pub const FILE_NAME: &'static str = "occupancy.toml";

    /// The environment variable that, when set, names the policy file to use instead
    /// (absolute, or relative to the crate's manifest directory).
    pub const ENV_VAR: &'static str = "OCCUPANCY_POLICY";

    /// The committed resource manifest looked for beside the crate's `Cargo.toml` when the
    /// file has no `manifest` key (the name the build helper's docs use).
    pub const DEFAULT_MANIFEST: &'static str = "kernels.manifest.json";

    /// Parses the text of a policy file.
    ///
    /// # Errors
    ///
    /// Every problem found, each with its key and position: TOML syntax, unknown keys
    /// (with the closest known key), wrong types, unknown targets or lints, invalid levels
    /// or floors.
    pub fn from_toml(text: &str) -> Result<Policy, Vec<PolicyError>> {
        match Policy::parse_toml(text) {
            (Some(policy), problems) if problems.is_empty() => Ok(policy),
            (_, problems) => Err(problems),
        }
    }

    /// Parses the text of a policy file, keeping what parsed beside the problems: the
    /// policy with every value that parsed (`None` where the text is not TOML, or a value
    /// is of the wrong type), and every problem, in the order of the file. Unknown keys do
    /// not stop the values being read, so that a file's problems are all said at once.
    pub fn parse_toml(text: &str) -> (Option<Policy>, Vec<PolicyError>) {
        let mut errors = Vec::new();
        let policy = Policy::parse_into(text, &mut errors);
        errors.sort_by_key(|e| e.span.as_ref().map_or(0, |span| span.start));
        (policy, errors)
    }

    fn parse_into(text: &str, errors: &mut Vec<PolicyError>) -> Option<Policy> {
        let lines = Lines::new(text);
        let toml_error = |e: toml::de::Error, key: Option<String>| {
            PolicyError::new(&lines, e.message().trim().to_owned(), key, e.span())
        };
        // Pass 1: the keys, so that unknown ones are reported by name with a suggestion.
        let keys: BTreeMap<Spanned<String>, Spanned<IgnoredAny>> = match toml::from_str(text) {
            Ok(keys) => keys,
            Err(e) => {
                errors.push(toml_error(e, None));
                return None;
            }
        };
        for key in keys.keys() {
            if !KEYS.contains(&key.get_ref().as_str()) {
                let message = match closest(key.get_ref(), KEYS.iter().copied()) {
                    Some(s) => format!("unknown key `{}`; did you mean `{s}`?", key.get_ref()),
                    None => format!(
                        "unknown key `{}`; known keys: {}",
                        key.get_ref(),
                        KEYS.iter()
                            .map(|k| format!("`{k}`"))
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                };
                errors.push(PolicyError::new(
                    &lines,
                    message,
                    Some(key.get_ref().clone()),
                    Some(key.span()),
                ));
            }
        }
        // Pass 2: the values (an unknown key is ignored here: it was said above). serde stops
        // at the first value of the wrong type: it is said, its line (or its statement, when
        // it spans lines) blanked out, and the text read again, so that every such value is
        // said at once; the policy is then `None`, as the file is wrong.
        let mut read = text.to_owned();
        let mut wrong_type = false;
        let raw: RawPolicy = loop {
            let e = match toml::from_str(&read) {
                Ok(raw) => break raw,
                Err(e) => e,
            };
            let wrong = e.span().map(|span| wrong_value(&read, span.start, &keys));
            let key = wrong.as_ref().and_then(|w| w.key.clone());
            let mut error = toml_error(e, key.clone());
            if let Some(key) = key {
                error.message = format!("`{key}`: {}", error.message);
            }
            errors.push(error);
            wrong_type = true;
            let range = wrong.and_then(|w| w.statement)?;
            if errors.len() >= MAX_WRONG_TYPES
                || read.len().saturating_mul(errors.len()) >= MAX_READ_AGAIN_BYTES
            {
                errors.push(PolicyError::new(
                    &lines,
                    format!(
                        "the file was read for values of the wrong type {} times: the rest of \
                         it is not checked until these are fixed",
                        errors.len()
                    ),
                    None,
                    None,
                ));
                return None;
            }
            // Blanking a line of a value that spans lines leaves text that is not TOML: then
            // what the next read says would be about the blanking, not the file.
            if !blank(&mut read, range) || read.parse::<toml::Table>().is_err() {
                return None;
            }
        };
        let mut policy = Policy::default();
        if let Some(targets) = raw.targets {
            if targets.get_ref().is_empty() {
                errors.push(PolicyError::new(
                    &lines,
                    "`targets` is empty: name at least one target, e.g. [\"sm_90\"]".into(),
                    Some("targets".into()),
                    Some(targets.span()),
                ));
            }
            policy.targets.clear();
            policy.targets_named = true;
            for name in targets.get_ref() {
                match Target::parse(name.get_ref()) {
                    Ok(target) if policy.targets.contains(&target) => {
                        errors.push(PolicyError::new(
                            &lines,
                            format!("`targets`: `{}` is listed twice", name.get_ref()),
                            Some("targets".into()),
                            Some(name.span()),
                        ));
                    }
                    Ok(target) => policy.targets.push(target),
                    Err(e) => errors.push(PolicyError::new(
                        &lines,
                        format!("`targets`: {e}"),
                        Some("targets".into()),
                        Some(name.span()),
                    )),
                }
            }
        }
        if let Some(floor) = raw.min_occupancy {
            let span = floor.span();
            match floor.into_inner().0 {
                Ok(floor) => policy.min_occupancy = Some(floor),
                Err(message) => errors.push(PolicyError::new(
                    &lines,
                    format!("`min_occupancy`: {message}"),
                    Some("min_occupancy".into()),
                    Some(span),
                )),
            }
        }
        if let Some(class) = raw.class {
            match KernelClass::from_name(class.get_ref()) {
                Some(c) => policy.class = Some(c),
                None => {
                    let names = KernelClass::ALL.map(KernelClass::name);
                    let hint = match closest(class.get_ref(), names) {
                        Some(s) => format!("did you mean `{s}`?"),
                        None => "expected `memory_bound`, `balanced` or `compute_bound`".to_owned(),
                    };
                    let message = format!(
                        "`class`: unknown kernel class `{}`; {hint}",
                        class.get_ref()
                    );
                    errors.push(PolicyError::new(
                        &lines,
                        message,
                        Some("class".into()),
                        Some(class.span()),
                    ));
                }
            }
        }
        if let Some(manifest) = raw.manifest {
            if manifest.get_ref().trim().is_empty() {
                errors.push(PolicyError::new(
                    &lines,
                    "`manifest` is empty: name the committed resource manifest, e.g. \"kernels.manifest.json\"".into(),
                    Some("manifest".into()),
                    Some(manifest.span()),
                ));
            } else {
                policy.manifest_line_column = Some(lines.line_column(manifest.span().start));
                policy.manifest = Some(manifest.into_inner());
            }
        }
        for path in raw.read_paths.into_iter().flatten() {
            if path.get_ref().trim().is_empty() {
                errors.push(PolicyError::new(
                    &lines,
                    "`read_paths`: an empty path; name a directory, e.g. \"../artifacts\"".into(),
                    Some("read_paths".into()),
                    Some(path.span()),
                ));
            } else {
                policy.read_paths.push(path.into_inner());
            }
        }
        for (name, value) in raw.thresholds.iter().flatten() {
            let key = format!("thresholds.{}", name.get_ref());
            match threshold(&mut policy.thresholds, name.get_ref(), value.get_ref()) {
                Ok(()) => {}
                Err(ThresholdError::UnknownKey) => {
                    let message = match closest(name.get_ref(), THRESHOLD_KEYS.iter().copied()) {
                        Some(s) => format!(
                            "`thresholds`: unknown key `{}`; did you mean `{s}`?",
                            name.get_ref()
                        ),
                        None => format!(
                            "`thresholds`: unknown key `{}`; known keys: {}",
                            name.get_ref(),
                            THRESHOLD_KEYS.join(", ")
                        ),
                    };
                    errors.push(PolicyError::new(
                        &lines,
                        message,
                        Some(key),
                        Some(name.span()),
                    ));
                }
                Err(ThresholdError::Value(why)) => {
                    errors.push(PolicyError::new(
                        &lines,
                        format!("`{key}`: {why}"),
                        Some(key),
                        Some(value.span()),
                    ));
                }
            }
        }
        for (name, value) in raw.launches.iter().flatten() {
            let function = name.get_ref().clone();
            match launch_candidates(value.get_ref()) {
                Ok(candidates) => {
                    policy.launches.insert(function, candidates);
                }
                Err(why) => errors.push(PolicyError::new(
                    &lines,
                    format!("`launches.{function}`: {why}"),
                    Some(format!("launches.{function}")),
                    Some(value.span()),
                )),
            }
        }
        if let Some(defines) = raw.defines {
            let mut list = Vec::new();
            for d in defines {
                let name = d.get_ref().split('=').next().unwrap_or("").trim();
                let valid = name
                    .chars()
                    .next()
                    .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
                    && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
                if valid {
                    list.push(d.get_ref().trim().to_owned());
                } else {
                    errors.push(PolicyError::new(
                        &lines,
                        format!(
                            "`defines`: `{}` is not a macro definition; write `NAME` or `NAME=VALUE`, as after nvcc's `-D`",
                            d.get_ref()
                        ),
                        Some("defines".into()),
                        Some(d.span()),
                    ));
                }
            }
            policy.defines = Some(list);
        }
        for (function, params) in raw.device_params.iter().flatten() {
            let function = function.get_ref().clone();
            for (param, attribute) in params {
                let key = format!("device_params.{function}.{}", param.get_ref());
                if DEVICE_ATTRIBUTES.contains(&attribute.get_ref().as_str()) {
                    policy
                        .device_params
                        .entry(function.clone())
                        .or_default()
                        .insert(param.get_ref().clone(), attribute.get_ref().clone());
                    continue;
                }
                let hint = match closest(attribute.get_ref(), DEVICE_ATTRIBUTES.iter().copied()) {
                    Some(s) => format!("did you mean `{s}`?"),
                    None => format!("known attributes: {}", DEVICE_ATTRIBUTES.join(", ")),
                };
                errors.push(PolicyError::new(
                    &lines,
                    format!(
                        "`{key}`: unknown device attribute `{}`; {hint}",
                        attribute.get_ref()
                    ),
                    Some(key),
                    Some(attribute.span()),
                ));
            }
        }
        for (name, level) in raw.lints.iter().flatten() {
            let key = Some(format!("lints.{}", name.get_ref()));
            let Some(parsed) = Level::from_name(level.get_ref()) else {
                let names = Level::ALL.map(Level::name);
                let message = match closest(level.get_ref(), names) {
                    Some(s) => format!(
                        "`lints.{}`: unknown level `{}`; did you mean `{s}`?",
                        name.get_ref(),
                        level.get_ref()
                    ),
                    None => format!(
                        "`lints.{}`: unknown level `{}`; expected `allow`, `warn` or `deny`",
                        name.get_ref(),
                        level.get_ref()
                    ),
                };
                errors.push(PolicyError::new(&lines, message, key, Some(level.span())));
                continue;
            };
            if let Err(e) = policy.lints.set(name.get_ref(), parsed) {
                let span = match Lint::find(name.get_ref()) {
                    Some(_) => level.span(),
                    None => name.span(),
                };
                errors.push(PolicyError::new(
                    &lines,
                    format!("`lints`: {e}"),
                    key,
                    Some(span),
                ));
            }
        }
        (!wrong_type).then_some(policy)
    }
}

/// The most problems a policy file's values of the wrong type are read again for, and the
/// most bytes read again in all (each read parses the whole file: a 1 MiB file is read
/// again at most 16 times).
const MAX_WRONG_TYPES: usize = 64;
const MAX_READ_AGAIN_BYTES: usize = 16 << 20;

/// A value of the wrong type in a policy file: its key as the user would name it, and the
/// byte range of the statement that holds it.
struct WrongValue {
    /// `class`, `lints.low_occupancy`, or `device_params.launch.n` for a value in a
    /// `[device_params.launch]` table.
    key: Option<String>,
    /// What to blank out to read the rest: the value's line, or `key = value` for a
    /// top-level value that spans lines.
    statement: Option<Range<usize>>,
}

/// Where the value at byte `at` of `text` is: a top-level value spanning lines (`keys`, with
/// the span of each key and of its value), else the `key = value` line it is on, under the
/// table the last header line before it names (toml gives a table written under a header
/// the header's span as its value's, so such a value is found by its header).
fn wrong_value(
    text: &str,
    at: usize,
    keys: &BTreeMap<Spanned<String>, Spanned<IgnoredAny>>,
) -> WrongValue {
    let line_start = text[..at].rfind('\n').map_or(0, |n| n + 1);
    let line_end = text[at..].find('\n').map_or(text.len(), |n| at + n);
    let top = keys.iter().find(|(key, value)| {
        value.span() != key.span()
            && value.span().contains(&at)
            && text[value.span()].contains('\n')
    });
    if let Some((key, value)) = top {
        return WrongValue {
            key: Some(key.get_ref().clone()),
            statement: Some(key.span().start..value.span().end),
        };
    }
    // The table: the last header line (`[device_params.launch]`, `[[x]]`) before the value.
    // A line inside a multi-line string (`"""`, `\'\'\'`) is not a header.
    let mut table: Option<String> = None;
    let mut in_string = false;
    for line in text[..line_start].split_inclusive('\n') {
        if !in_string && let Some(name) = header_name(line) {
            table = Some(name);
        }
        let quotes = line.matches("\"\"\"").count() + line.matches("\'\'\'").count();
        in_string ^= quotes % 2 == 1;
    }
    // The key of the value's line (`n = 5`, `lints.low_occupancy = 5`).
    let inner = text[line_start..at]
        .split_once('=')
        .map(|(k, _)| k.trim())
        .filter(|k| !k.is_empty() && !k.contains(['[', '{', ',']));
    let key = match (table, inner) {
        (Some(table), Some(inner)) => Some(format!("{table}.{inner}")),
        (Some(table), None) => Some(table),
        (None, inner) => inner.map(str::to_owned),
    };
    WrongValue {
        key,
        statement: Some(line_start..line_end),
    }
}

/// The table a header line names (`device_params.launch` of `[device_params.launch]  # x`,
/// `device_params."é"` of `[device_params."é"]`), or `None` for any other line.
fn header_name(line: &str) -> Option<String> {
    // The line up to a comment (a `#` outside quotes).
    let mut quoted = false;
    let end = line
        .char_indices()
        .find(|&(_, c)| {
            if c == '"' {
                quoted = !quoted;
            }
            c == '#' && !quoted
        })
        .map_or(line.len(), |(i, _)| i);
    let line = line[..end].trim();
    let inner = line
        .strip_prefix("[[")
        .and_then(|l| l.strip_suffix("]]"))
        .or_else(|| line.strip_prefix('[').and_then(|l| l.strip_suffix(']')))?;
    let name = inner.trim();
    // A key: no brackets, commas, `=` or braces (an array of strings on a line of its own
    // is not a header).
    let key_like = !name.is_empty()
        && !name.contains(['[', ']', ',', '=', '{', '}'])
        && name.matches('"').count() % 2 == 0;
    key_like.then(|| name.to_owned())
}

/// Replaces the bytes of `range` in `text` by spaces (line breaks kept, so that positions
/// and lines stay where they were); `false` when there was nothing left to blank.
fn blank(text: &mut String, range: Range<usize>) -> bool {
    let Some(part) = text.get(range.clone()) else {
        return false;
    };
    if part.trim().is_empty() {
        return false;
    }
    // Every byte but line breaks a space: a multi-byte character becomes as many spaces as
    // it has bytes, so that later offsets stay the same.
    let blanked: String = part
        .bytes()
        .map(|b| {
            if b == b'\n' || b == b'\r' {
                b as char
            } else {
                ' '
            }
        })
        .collect();
    text.replace_range(range, &blanked);
    true
}

/// One `[launches.<function>]` table: `block` and `smem` lists.
fn launch_candidates(value: &toml::Value) -> Result<LaunchCandidates, String> {
    let toml::Value::Table(table) = value else {
        return Err(format!(
            "expected a table such as `{{ block = [128, 256] }}`, found `{value}`"
        ));
    };
    let mut out = LaunchCandidates::default();
    let number = |v: &toml::Value, what: &str| -> Result<u32, String> {
        match v.as_integer() {
            Some(n) if (1..=i64::from(u32::MAX)).contains(&n) => Ok(n as u32),
            Some(0) if what == "bytes" => Ok(0),
            _ => Err(format!("expected a whole number of {what}, found `{v}`")),
        }
    };
    for (key, list) in table {
        let items = match list {
            toml::Value::Array(items) if !items.is_empty() => items,
            _ => {
                return Err(format!(
                    "`{key}`: expected a non-empty list, e.g. [128, 256]"
                ));
            }
        };
        match key.as_str() {
            "block" => {
                for item in items {
                    out.block
                        .push(block_shape(item, &number).map_err(|e| format!("`block`: {e}"))?);
                }
            }
            "smem" => {
                for item in items {
                    out.smem_bytes
                        .push(number(item, "bytes").map_err(|e| format!("`smem`: {e}"))?);
                }
            }
            "launches" => {
                for item in items {
                    let pair = match item {
                        toml::Value::Array(pair) if pair.len() == 2 => pair,
                        _ => {
                            return Err(format!(
                                "`launches`: expected a pair (block, smem) such as (128, 4096) \
                                 or ((16, 16), 0), found `{item}`"
                            ));
                        }
                    };
                    let shape =
                        block_shape(&pair[0], &number).map_err(|e| format!("`launches`: {e}"))?;
                    let smem = number(&pair[1], "bytes").map_err(|e| format!("`launches`: {e}"))?;
                    out.pairs.push((shape, smem));
                }
            }
            other => {
                let hint = match closest(other, ["block", "smem", "launches"]) {
                    Some(s) => format!("did you mean `{s}`?"),
                    None => "expected `block`, `smem` or `launches`".to_owned(),
                };
                return Err(format!("unknown key `{other}`; {hint}"));
            }
        }
    }
    if !out.pairs.is_empty() && (!out.block.is_empty() || !out.smem_bytes.is_empty()) {
        return Err(
            "`launches` gives the block and the shared memory together: give it instead of \
             `block` and `smem`, not beside them"
                .to_owned(),
        );
    }
    Ok(out)
}

/// A block shape: `n` (`[n, 1, 1]`), `[x, y]` or `[x, y, z]`, each a whole number of
/// threads (`number`).
fn block_shape(
    item: &toml::Value,
    number: &dyn Fn(&toml::Value, &str) -> Result<u32, String>,
) -> Result<[u32; 3], String> {
    let dims = match item {
        toml::Value::Array(dims) if (1..=3).contains(&dims.len()) => dims.clone(),
        toml::Value::Integer(_) => vec![item.clone()],
        _ => {
            return Err(format!(
                "expected a size or [x, y] / [x, y, z], found `{item}`"
            ));
        }
    };
    let mut shape = [1u32; 3];
    for (d, v) in shape.iter_mut().zip(&dims) {
        *d = number(v, "threads")?;
    }
    Ok(shape)
}

enum ThresholdError {
    UnknownKey,
    Value(String),
}

/// Sets one `[thresholds]` key.
fn threshold(
    thresholds: &mut Thresholds,
    key: &str,
    value: &toml::Value,
) -> Result<(), ThresholdError> {
    let count = |what: &str| match value.as_integer() {
        Some(n) if (0..=i64::from(u32::MAX)).contains(&n) => Ok(n as u32),
        _ => Err(ThresholdError::Value(format!(
            "expected a whole number of {what}, found `{value}`"
        ))),
    };
    match key {
        "register_step_max_drop" => thresholds.register_step_max_drop = count("registers")?,
        "smem_step_max_bytes" => thresholds.smem_step_max_bytes = count("bytes")?,
        "tail_effect_max_waste" => {
            let floor = match value {
                toml::Value::String(s) => match s.trim().strip_suffix('%') {
                    Some(digits) => MinOccupancy::from_percent_str(digits.trim()),
                    None => MinOccupancy::from_fraction_str(s.trim()),
                },
                toml::Value::Float(f) => MinOccupancy::from_fraction_f64(*f),
                _ => {
                    return Err(ThresholdError::Value(format!(
                        "expected a fraction such as 0.1 or a percentage string such as \"10%\", found `{value}`"
                    )));
                }
            };
            let share = floor.map_err(|e| ThresholdError::Value(e.message))?;
            thresholds.tail_effect_max_waste_bp = u32::from(share.basis_points());
        }
        _ => return Err(ThresholdError::UnknownKey),
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lint::{LOW_OCCUPANCY, PARTIAL_WARP};

    #[test]
    fn launch_candidates_from_a_comment() {
        let ok = |t: &str| LaunchCandidates::from_comment(t).unwrap();
        assert_eq!(
            ok(" block = [128, (16, 16), [8, 8, 4]], smem = [0, 4096]"),
            LaunchCandidates {
                block: vec![[128, 1, 1], [16, 16, 1], [8, 8, 4]],
                smem_bytes: vec![0, 4096],
                pairs: Vec::new(),
            }
        );
        assert_eq!(
            ok(" launches = [(32, 128), ((16, 16), 4096), (1024, 0)]").pairs,
            [([32, 1, 1], 128), ([16, 16, 1], 4096), ([1024, 1, 1], 0)]
        );
        assert_eq!(ok("smem = [49152]").smem_bytes, [49152]);
        assert!(ok("smem = [49152]").block.is_empty());
        let err = |t: &str| LaunchCandidates::from_comment(t).unwrap_err();
        for (text, message) in [
            (
                "block = [128, abc]",
                "`block`: expected a size or [x, y] / [x, y, z], found `abc`",
            ),
            (
                "block = [128, 2O48]",
                "`block`: expected a size or [x, y] / [x, y, z], found `2O48`",
            ),
            (
                "block = [(16, x)]",
                "`block`: expected a whole number of threads, found `x`",
            ),
            (
                "smem = [0, banana]",
                "`smem`: expected a whole number of bytes, found `banana`",
            ),
            (
                "blok = [128, 256]",
                "unknown key `blok`; did you mean `block`?",
            ),
            (
                "block = []",
                "`block`: expected a non-empty list, e.g. [128, 256]",
            ),
            (
                "block = [128, 0]",
                "`block`: expected a whole number of threads, found `0`",
            ),
            (
                "smem = [-4]",
                "`smem`: expected a whole number of bytes, found `-4`",
            ),
            (
                "block = [128, 1.5]",
                "`block`: expected a size or [x, y] / [x, y, z], found `1.5`",
            ),
            (
                "",
                "no candidates: expected `block = [128, 256]` and / or `smem = [0, 4096]`, or `launches = [(128, 0), (256, 4096)]`",
            ),
            (
                "block = [128, 256] tuned on an A100",
                "expected `block = [..]` and / or `smem = [..]`, or `launches = [..]`: missing \
                 comma between key-value pairs, expected `,` at `tuned on an A100`",
            ),
        ] {
            assert_eq!(err(text), message, "{text}");
        }
    }

    #[test]
    fn launch_candidates_per_function() {
        let p = Policy::from_toml(
            "[launches.launch_softmax]\nblock = [128, [16, 16]]\nsmem = [0, 8192]\n\n[launches.\"ops::gemm\"]\nblock = [256]\n",
        )
        .unwrap();
        assert_eq!(
            p.launches["launch_softmax"],
            LaunchCandidates {
                block: vec![[128, 1, 1], [16, 16, 1]],
                smem_bytes: vec![0, 8192],
                pairs: Vec::new(),
            }
        );
        let pairs =
            Policy::from_toml("[launches.f]\nlaunches = [[32, 128], [[16, 16], 4096]]\n").unwrap();
        assert_eq!(
            pairs.launches["f"].pairs,
            [([32, 1, 1], 128), ([16, 16, 1], 4096)]
        );
        assert_eq!(p.launches["ops::gemm"].block, vec![[256, 1, 1]]);
        assert!(p.launches["ops::gemm"].smem_bytes.is_empty());
        for (text, wanted) in [
            (
                "[launches.f]\nblok = [1]\n",
                "1:1: `launches.f`: unknown key `blok`; did you mean `block`?",
            ),
            (
                "[launches.f]\nblock = []\n",
                "1:1: `launches.f`: `block`: expected a non-empty list, e.g. [128, 256]",
            ),
            (
                "[launches.f]\nblock = [0]\n",
                "1:1: `launches.f`: `block`: expected a whole number of threads, found `0`",
            ),
            (
                "[launches.f]\nsmem = [-4]\n",
                "1:1: `launches.f`: `smem`: expected a whole number of bytes, found `-4`",
            ),
            (
                "[launches.f]\nblock = [32]\nlaunches = [[32, 128]]\n",
                "1:1: `launches.f`: `launches` gives the block and the shared memory together: \
                 give it instead of `block` and `smem`, not beside them",
            ),
            (
                "[launches.f]\nlaunches = [[32, 128, 4]]\n",
                "1:1: `launches.f`: `launches`: expected a pair (block, smem) such as (128, 4096) \
                 or ((16, 16), 0), found `[32, 128, 4]`",
            ),
            (
                "[launches.f]\nlaunches = [[[32, 0], 128]]\n",
                "1:1: `launches.f`: `launches`: expected a whole number of threads, found `0`",
            ),
            (
                "[launches]\nf = 3\n",
                "2:5: `launches.f`: expected a table such as `{ block = [128, 256] }`, found `3`",
            ),
        ] {
            assert_eq!(errors(text), [wanted], "{text}");
        }
    }

    fn errors(text: &str) -> Vec<String> {
        Policy::from_toml(text)
            .unwrap_err()
            .iter()
            .map(|e| e.to_string())
            .collect()
    }

    #[test]
    fn empty_file_is_the_default() {
        let policy = Policy::from_toml("").unwrap();
        assert_eq!(policy, Policy::default());
        let names: Vec<String> = policy.targets.iter().map(|t| t.to_string()).collect();
        assert_eq!(names, ["sm_80", "sm_90"]);
        assert_eq!(policy.min_occupancy, None);
        assert_eq!(policy.floor(None, None).0.basis_points(), 5000);
    }

    #[test]
    fn classes_and_thresholds() {
        let policy = Policy::from_toml(
            "class = \"compute_bound\"\n[thresholds]\nregister_step_max_drop = 2\nsmem_step_max_bytes = 256\ntail_effect_max_waste = \"25%\"\n",
        )
        .unwrap();
        assert_eq!(policy.class, Some(KernelClass::ComputeBound));
        assert_eq!(policy.manifest, None);
        let named =
            Policy::from_toml("min_occupancy = \"60%\"\nmanifest = \"cuda/resources.json\"\n")
                .unwrap();
        assert_eq!(named.manifest.as_deref(), Some("cuda/resources.json"));
        assert_eq!(named.manifest_line_column, Some((2, 12)));
        assert_eq!(
            Policy::from_toml("read_paths = [\"../artifacts\", \"/opt/cuda-kernels\"]\n")
                .unwrap()
                .read_paths,
            ["../artifacts", "/opt/cuda-kernels"]
        );
        assert_eq!(
            errors("read_paths = [\"\"]\n"),
            ["1:15: `read_paths`: an empty path; name a directory, e.g. \"../artifacts\""]
        );
        assert_eq!(
            errors("manifest = \"\"\n"),
            [
                "1:12: `manifest` is empty: name the committed resource manifest, e.g. \"kernels.manifest.json\""
            ]
        );
        assert_eq!(
            policy.thresholds,
            Thresholds {
                register_step_max_drop: 2,
                smem_step_max_bytes: 256,
                tail_effect_max_waste_bp: 2500
            }
        );
        // The policy's class sets the floor; the attribute's class or floor wins.
        assert_eq!(
            policy.floor(None, None),
            (
                MinOccupancy::from_basis_points(2500).unwrap(),
                Some(KernelClass::ComputeBound)
            )
        );
        assert_eq!(
            policy
                .floor(None, Some(KernelClass::MemoryBound))
                .0
                .basis_points(),
            6250
        );
        let explicit = MinOccupancy::from_basis_points(3000).unwrap();
        assert_eq!(
            policy.floor(Some(explicit), Some(KernelClass::MemoryBound)),
            (explicit, None)
        );
        // The policy's explicit floor wins over its own class, not over the attribute's class.
        let both = Policy::from_toml("class = \"memory_bound\"\nmin_occupancy = 0.3\n").unwrap();
        assert_eq!(both.floor(None, None).0.basis_points(), 3000);
        assert_eq!(
            both.floor(None, Some(KernelClass::ComputeBound))
                .0
                .basis_points(),
            2500
        );
        assert_eq!(
            errors(
                "class = \"compute\"\n[thresholds]\nregister_step = 2\nsmem_step_max_bytes = -1\n"
            ),
            [
                "1:9: `class`: unknown kernel class `compute`; did you mean `compute_bound`?",
                "3:1: `thresholds`: unknown key `register_step`; did you mean `register_step_max_drop`?",
                "4:23: `thresholds.smem_step_max_bytes`: expected a whole number of bytes, found `-1`",
            ]
        );
    }

    #[test]
    fn reads_every_key() {
        let policy = Policy::from_toml(
            "targets = [\"sm_86\", \"H100\"]\nmin_occupancy = \"37.5%\"\n\n[lints]\nlow_occupancy = \"deny\"\npartial_warp = \"allow\"\n",
        )
        .unwrap();
        let names: Vec<String> = policy.targets.iter().map(|t| t.to_string()).collect();
        assert_eq!(names, ["sm_86", "H100 80GB HBM3"]);
        assert_eq!(policy.min_occupancy.unwrap().basis_points(), 3750);
        assert_eq!(policy.lints.get(&LOW_OCCUPANCY), Level::Deny);
        assert_eq!(policy.lints.get(&PARTIAL_WARP), Level::Allow);
        assert_eq!(
            Policy::from_toml("min_occupancy = 0.25")
                .unwrap()
                .min_occupancy
                .unwrap()
                .basis_points(),
            2500
        );
    }

    #[test]
    fn defines_are_the_builds_macros_in_full() {
        assert_eq!(Policy::from_toml("").unwrap().defines, None);
        assert_eq!(
            Policy::from_toml("defines = []\n").unwrap().defines,
            Some(vec![])
        );
        let policy = Policy::from_toml("defines = [\"ENABLE_FP8\", \"QK=256\"]\n").unwrap();
        assert_eq!(
            policy.defines,
            Some(vec!["ENABLE_FP8".to_owned(), "QK=256".to_owned()])
        );
        assert_eq!(
            errors("defines = [\"-DX\"]\n"),
            [
                "1:12: `defines`: `-DX` is not a macro definition; write `NAME` or `NAME=VALUE`, as after nvcc's `-D`"
            ]
        );
    }

    #[test]
    fn device_params_per_function_pattern() {
        let policy = Policy::from_toml(
            "[device_params.\"launch_mmq_*\"]\ncc = \"compute_capability_x100\"\nwarp_size_host = \"warp_size\"\n",
        )
        .unwrap();
        let params = &policy.device_params["launch_mmq_*"];
        assert_eq!(params["cc"], "compute_capability_x100");
        assert_eq!(params["warp_size_host"], "warp_size");
        assert!(function_matches("launch_mmq_*", "launch_mmq_gguf_q4_0"));
        assert!(function_matches("launch_mmq_*", "ns::launch_mmq_gguf_q4_0"));
        assert!(function_matches("ns::launch", "ns::launch"));
        assert!(!function_matches("launch_mmq_*", "launch_mmvq"));
        assert!(!function_matches("launch", "launch_mmq"));
        assert!(function_matches("*a*b*", "xaxxbx"));
        assert!(!function_matches("*a*b", "xaxxbx"));
        let e = errors("[device_params.launch]\nwarp = \"warpsize\"\n");
        assert_eq!(
            e,
            [
                "2:8: `device_params.launch.warp`: unknown device attribute `warpsize`; did you mean `warp_size`?"
            ]
        );
    }

    #[test]
    fn lines_give_line_and_character_column() {
        let lines = Lines::new("ab\nçd = 1\n\nx");
        assert_eq!(lines.line_column(0), (1, 1));
        assert_eq!(lines.line_column(2), (1, 3));
        assert_eq!(lines.line_column(3), (2, 1));
        // `ç` is two bytes, one character.
        assert_eq!(lines.line_column(5), (2, 2));
        assert_eq!(lines.line_column(11), (3, 1));
        assert_eq!(lines.line_column(12), (4, 1));
        assert_eq!(lines.line_column(99), (4, 2));
    }

    #[test]
    fn thousands_of_bad_keys_each_get_their_line() {
        let text: String = (0..20_000).map(|i| format!("bad_key{i} = 1\n")).collect();
        let errors = Policy::from_toml(&text).unwrap_err();
        assert_eq!(errors.len(), 20_000);
        let last = errors
            .iter()
            .find(|e| e.key.as_deref() == Some("bad_key19999"));
        assert_eq!(last.and_then(|e| e.line), Some(20_000));
    }

    #[test]
    fn errors_name_line_column_and_key() {
        assert_eq!(
            errors("targets = [\"sm_90\"]\nmin_ocupancy = 0.5\n"),
            ["2:1: unknown key `min_ocupancy`; did you mean `min_occupancy`?"]
        );
        assert_eq!(
            errors("min_occupancy = 50\n"),
            ["1:17: `min_occupancy`: `50` is ambiguous: write \"50%\" or 0.5"]
        );
        assert_eq!(
            errors("min_occupancy = 1.5\n"),
            ["1:17: `min_occupancy`: 1.5 is over 100%"]
        );
        assert_eq!(
            errors("targets = [\"sm_90\", \"sm_95\"]\n"),
            [
                "1:21: `targets`: unknown compute capability 9.5 (`sm_95`); did you mean `sm_90` or `sm_100`?"
            ]
        );
        assert_eq!(
            errors("[lints]\nlow_ocupancy = \"deny\"\npartial_warp = \"dney\"\n"),
            [
                "2:1: `lints`: unknown lint `low_ocupancy`; did you mean `low_occupancy`?",
                "3:16: `lints.partial_warp`: unknown level `dney`; did you mean `deny`?",
            ]
        );
        assert_eq!(
            errors("[lints]\nlaunch_impossible = \"allow\"\n"),
            [
                "2:21: `lints`: `launch_impossible` cannot be allowed or lowered: the launch would fail at run time"
            ]
        );
        let syntax = errors("targets = [\"sm_90\"\n");
        assert_eq!(syntax.len(), 1);
        assert!(syntax[0].starts_with("1:"), "{syntax:?}");
        let wrong_type = errors("targets = \"sm_90\"\n");
        assert_eq!(wrong_type.len(), 1);
        assert!(
            wrong_type[0].starts_with("1:11: `targets`: invalid type"),
            "{wrong_type:?}"
        );
    }

    /// Values of the wrong type, at the top level and in tables under a header, are all said
    /// at once, each naming its key (a value in `[device_params.launch]` as
    /// `device_params.launch.n`), beside the other problems; before, serde's first one was
    /// the only problem said.
    #[test]
    fn every_value_of_the_wrong_type_is_said_with_its_key() {
        let text = "targets = \"sm_90\"\nclass = 3\nmin_ocupancy = \"50%\"\n\
                    [device_params.launch]\nn = 5\n\n\
                    [lints]\nlow_occupancy = \"dney\"\n\
                    [device_params.other]\nm = \"max_threads_per_block\"\n";
        let (policy, problems) = Policy::parse_toml(text);
        assert!(policy.is_none());
        let said: Vec<String> = problems.iter().map(ToString::to_string).collect();
        let starts: Vec<&str> = said
            .iter()
            .map(|e| e.split(" invalid type").next().unwrap())
            .collect();
        assert_eq!(
            starts,
            [
                "1:11: `targets`:",
                "2:9: `class`:",
                "3:1: unknown key `min_ocupancy`; did you mean `min_occupancy`?",
                "5:5: `device_params.launch.n`:",
                "8:17: `lints.low_occupancy`: unknown level `dney`; did you mean `deny`?",
            ],
            "{said:#?}"
        );
        assert_eq!(
            problems[3].key.as_deref(),
            Some("device_params.launch.n"),
            "{said:#?}"
        );
        // Headers as written, a comment after them left out.
        let named = |line: &str| header_name(line);
        assert_eq!(
            named("[\"device_params\".f]  # gpu").as_deref(),
            Some("\"device_params\".f")
        );
        assert_eq!(
            named("[device_params.f]  # gpu").as_deref(),
            Some("device_params.f")
        );
        assert_eq!(named("  [[x.y]]\n").as_deref(), Some("x.y"));
        assert_eq!(
            named("[device_params.\"é\"]").as_deref(),
            Some("device_params.\"é\"")
        );
        assert_eq!(named("n = [1, 2]"), None);
        assert_eq!(named("[\"sm_90\", \"sm_80\"]"), None);
    }

    /// A tester's cases: two wrong values of one table, a wrong value beside an unknown
    /// level, dotted keys, CRLF, a value after a multi-line string holding a header-like
    /// line, a comment of 70,000 bytes (a width of over 65,535 panicked in `format!`), and
    /// more wrong values than are read again for.
    #[test]
    fn wrong_values_of_one_table_and_hostile_files() {
        let said = |text: &str| -> Vec<String> {
            let (policy, problems) = Policy::parse_toml(text);
            assert!(policy.is_none(), "{text}");
            problems
                .iter()
                .map(|e| {
                    let e = e.to_string();
                    e.split(" invalid type").next().unwrap().to_owned()
                })
                .collect()
        };
        assert_eq!(
            said("[device_params.launch]\nn = 5\nm = 6\n"),
            [
                "2:5: `device_params.launch.n`:",
                "3:5: `device_params.launch.m`:"
            ]
        );
        assert_eq!(
            said("[lints]\nlow_occupancy = 5\nblock_limit = \"dney\"\n"),
            [
                "2:17: `lints.low_occupancy`:",
                "3:15: `lints.block_limit`: unknown level `dney`; did you mean `deny`?"
            ]
        );
        assert_eq!(
            said("lints.low_occupancy = 5\nlints.block_limit = 6\n"),
            ["1:23: `lints.low_occupancy`:", "2:21: `lints.block_limit`:"]
        );
        assert_eq!(
            said("[device_params.other]\r\nm = 6\r\nclass = 1\r\n"),
            [
                "2:5: `device_params.other.m`:",
                "3:9: `device_params.other.class`:"
            ]
        );
        // The header-like line inside the string is not a header (`n` is `device_params.g`'s);
        // blanking the line of `n` leaves TOML, so `m` is read too.
        let strings =
            said("[device_params.g]\na = \"\"\"\n[x]\n\"\"\"\nn = 5\n[device_params.h]\nm = 6\n");
        assert!(
            strings[0].starts_with("2:5: `device_params.g.a`: unknown device attribute `[x]\n`"),
            "{strings:?}"
        );
        assert_eq!(
            strings[1..],
            ["5:5: `device_params.g.n`:", "7:5: `device_params.h.m`:"]
        );
        let long_comment = format!("[device_params.f]\nn = 5\n#{}\n", "x".repeat(70_000));
        assert_eq!(said(&long_comment), ["2:5: `device_params.f.n`:"]);
        let many: String = (0..100)
            .map(|i| format!("[device_params.f{i}]\nn = {i}\n"))
            .collect();
        let problems = said(&many);
        assert_eq!(problems.len(), MAX_WRONG_TYPES + 1);
        // The note has no line: it sorts first.
        assert!(
            problems[0].starts_with("the file was read for values of the wrong type 64 times"),
            "{problems:?}"
        );
    }
}
