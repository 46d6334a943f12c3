//! The report's model: one [`Wrapper`] per launch site (a wrapper with the attribute, a
//! launching function without it, a path of a CUDA C++ launch), its [`Outcome`], and the
//! [`Counts`] the summaries are made of. The renderers (`text`, `json`, `sarif`) and the
//! CUDA C++ section (`cuda`) share these types.

use std::path::PathBuf;

use occupancy_attr::{Evaluation, Spec};
use occupancy_core::lint::Level;

use super::cuda::CudaSection;
use super::sites;

/// One launch site's result: a wrapper with `#[occupancy::check]`, or (`--all`) a launching
/// function without one. (The row model of every kind of launch site: a location, the
/// launching function, the kernel or family, the numbers per target.)
pub(crate) struct Wrapper {
    /// `file:line` of the attribute, the file relative to the crate; for a launching
    /// function not annotated, of its launch.
    pub(crate) location: String,
    /// The wrapper or launching function.
    pub(crate) name: String,
    /// The `cfg` / `cfg_attr` predicates it is under; evaluated as if they held.
    pub(crate) conditions: Vec<String>,
    pub(crate) outcome: Outcome,
    /// For a launching function not annotated: how it launches, and the attribute it would
    /// take. `None`: annotated.
    pub(crate) site: Option<Site>,
    /// For a path of a CUDA C++ launch (`report --all`): what the launch is.
    pub(crate) cuda: Option<CudaSite>,
}

/// A launch found by `--all` in a function without the attribute.
pub(crate) struct Site {
    /// `cudarc launch_builder(..).launch`, `cust launch!`, ...
    pub(crate) how: &'static str,
    /// The function it launches through, when the attribute goes on its caller.
    pub(crate) via: Option<String>,
    /// Where the kernel's name came from, when the code builds it.
    pub(crate) kernel_from: Option<String>,
    /// The attribute's arguments it is read with (and `--annotate` writes).
    pub(crate) args: Option<String>,
    /// Where `--annotate` writes the attribute.
    pub(crate) target: Option<(PathBuf, sites::Target)>,
    /// How many launches of the function this covers (1, or the calls in one function).
    pub(crate) launches: usize,
    /// The function is an expansion of this `macro_rules!`: `--annotate` leaves it.
    pub(crate) expanded_from: Option<String>,
}

/// A path of a CUDA C++ launch shown as a [`Wrapper`] (its `name` is the launching host
/// function, its `location` the `.cu` file and line).
pub(crate) struct CudaSite {
    /// `<<<...>>>`, `cudaLaunchKernelEx`, ...
    pub(crate) form: &'static str,
    /// The kernel as written at the launch.
    pub(crate) kernel_written: String,
    /// The kernel instantiation the path launches (`softmax<float, 128>`).
    pub(crate) instantiation: Option<String>,
    /// The choices that lead to this path.
    pub(crate) conditions: Vec<String>,
}

pub(crate) enum Outcome {
    /// Not checked now, and why: a launch the report found but cannot read (a run-time
    /// block with no candidates, a kernel named at run time, a launch inside a macro).
    NotChecked(Vec<String>),
    /// Checked only by the build: `#[occupancy::check]` inside a `macro_rules!` body.
    BuildOnly(String),
    /// Front-end errors: `line:column: message` each.
    Errors(Vec<String>),
    /// A value the compiler must evaluate: the inputs given as constants, and why the
    /// reader could not evaluate them.
    Constant(Vec<&'static str>, Vec<String>),
    /// Evaluated: the spec (for levels) and the evaluation.
    Evaluated(Box<Spec>, Evaluation),
}

impl Wrapper {
    pub(super) fn fails(&self) -> bool {
        match &self.outcome {
            Outcome::Errors(_) => true,
            Outcome::Constant(..) | Outcome::NotChecked(_) | Outcome::BuildOnly(_) => false,
            Outcome::Evaluated(spec, evaluation) => evaluation
                .diagnostics
                .iter()
                .any(|d| spec.level(d.finding.lint) == Level::Deny),
        }
    }

    pub(super) fn kernel(&self) -> Option<String> {
        if let Some(c) = &self.cuda {
            return Some(
                c.instantiation
                    .clone()
                    .unwrap_or_else(|| c.kernel_written.clone()),
            );
        }
        match &self.outcome {
            Outcome::Evaluated(spec, _) => spec.source.as_ref().map(|s| s.kernel.clone()),
            _ => None,
        }
    }
}

/// The attribute with `args`: `#[occupancy::check(kernel = "x")]`, `#[occupancy::check]`.
pub(crate) fn attribute_text(args: &str) -> String {
    if args.is_empty() {
        "#[occupancy::check]".to_owned()
    } else {
        format!("#[occupancy::check({args})]")
    }
}

/// `src/a.rs:9` before `src/a.rs:10`.
pub(super) fn natural(location: &str) -> (String, usize) {
    match location.rsplit_once(':') {
        Some((file, line)) => (file.to_owned(), line.parse().unwrap_or(0)),
        None => (location.to_owned(), 0),
    }
}

pub(super) struct Counts {
    pub(super) wrappers: usize,
    pub(super) evaluated: usize,
    pub(super) constant: usize,
    /// Not checked now (a launch not read, or an attribute inside a macro).
    pub(super) not_checked: usize,
    pub(super) errors: usize,
    pub(super) deny: usize,
    pub(super) warn: usize,
}

pub(super) fn counts(wrappers: &[Wrapper]) -> Counts {
    counts_of(&wrappers.iter().collect::<Vec<_>>())
}

pub(super) fn counts_of(wrappers: &[&Wrapper]) -> Counts {
    let mut c = Counts {
        wrappers: wrappers.len(),
        evaluated: 0,
        constant: 0,
        not_checked: 0,
        errors: 0,
        deny: 0,
        warn: 0,
    };
    for w in wrappers {
        match &w.outcome {
            Outcome::Errors(e) => c.errors += e.len(),
            Outcome::Constant(..) => c.constant += 1,
            Outcome::NotChecked(_) | Outcome::BuildOnly(_) => c.not_checked += 1,
            Outcome::Evaluated(spec, evaluation) => {
                c.evaluated += 1;
                for d in &evaluation.diagnostics {
                    match spec.level(d.finding.lint) {
                        Level::Deny => c.deny += 1,
                        Level::Warn => c.warn += 1,
                        Level::Allow => {}
                    }
                }
            }
        }
    }
    c
}

/// What the report found in a crate, for its renderers (`text`, `json`, `sarif`).
pub(super) struct Report {
    /// The package's name.
    pub(super) package: String,
    /// Its folder.
    pub(super) crate_dir: PathBuf,
    /// The resource manifest in effect, where it came from, and why it is stale if it is.
    pub(super) manifest: Option<PathBuf>,
    pub(super) manifest_origin: &'static str,
    pub(super) stale: Option<String>,
    /// The Rust launch sites, in the order the files were walked, each file in line order.
    pub(super) wrappers: Vec<Wrapper>,
    /// The CUDA C++ launches (`--all`).
    pub(super) cuda: Option<CudaSection>,
    /// `file: reason` for each `.rs` file that cannot be read or parsed.
    pub(super) unreadable: Vec<String>,
    /// Whether a deny-level finding, an error or an unreadable file fails the report.
    pub(super) failed: bool,
}

impl Report {
    /// The paths of the CUDA C++ launches (none without `--all`).
    pub(super) fn cuda_wrappers(&self) -> &[Wrapper] {
        self.cuda.as_ref().map_or(&[], |c| c.wrappers.as_slice())
    }
}
