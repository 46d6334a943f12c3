//! A launch read from CUDA C++ host code, as plain data: where it is, which host function
//! makes it, and the launches (kernel instantiation, grid, block, dynamic shared memory,
//! cluster, opt-in) each path through the code makes.

use std::fmt;

use occupancy_read::ir::{At, IntTy};
use occupancy_read::launches::{Field, Launch, RunTime};
use occupancy_read::value::{Int, Kernel};
use serde::Serialize;

/// How the host code launches the kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum LaunchForm {
    /// `kernel<<<grid, block[, smem[, stream]]>>>(args...)`.
    TripleChevron,
    /// `cudaLaunchKernelEx(&config, kernel, args...)` with a `cudaLaunchConfig_t`.
    LaunchKernelEx,
    /// `cudaLaunchKernel(kernel, grid, block, args, smem, stream)`.
    LaunchKernel,
    /// `cuLaunchKernelEx(&config, function, params, extra)` (driver API): its function is a
    /// `CUfunction` loaded at run time (often compiled at run time), not code of the crate's
    /// objects, so it is listed and not checked.
    CuLaunchKernelEx,
}

impl LaunchForm {
    /// How the form is written: `<<<...>>>`, `cudaLaunchKernelEx`, ...
    pub fn written(self) -> &'static str {
        match self {
            LaunchForm::TripleChevron => "<<<...>>>",
            LaunchForm::LaunchKernelEx => "cudaLaunchKernelEx",
            LaunchForm::LaunchKernel => "cudaLaunchKernel",
            LaunchForm::CuLaunchKernelEx => "cuLaunchKernelEx",
        }
    }
}

pub use occupancy_read::launches::{SmemLimit, TemplateArg};

/// The kernel a path launches: the `__global__` function's name as written (namespaces
/// included when written) and its template arguments (empty for a non-template kernel).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct Instantiation {
    /// The kernel's name (`flash_fwd`, `ns::softmax`).
    pub name: String,
    /// Template arguments in order; `None` when the launch names a template whose
    /// arguments the reader could not resolve (deduced from the call's arguments, or a
    /// template parameter of a function the file never instantiates).
    pub template_args: Option<Vec<TemplateArg>>,
}

impl fmt::Display for Instantiation {
    /// `softmax`, `flash_fwd<float, 64>`, `flash_fwd<?>`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&occupancy_read::launches::instantiation_text(
            &self.name,
            self.template_args.as_deref(),
        ))
    }
}

/// A value of a launch: known (one per path), or why it is not.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Read<T> {
    /// The value on this path.
    Known(T),
    /// Known only at run time, or not read: why (`` `n` is a parameter of `launch_softmax` ``).
    Unknown(String),
}

impl<T: Copy> Read<T> {
    /// The value, when known.
    pub fn known(&self) -> Option<T> {
        match self {
            Read::Known(v) => Some(*v),
            Read::Unknown(_) => None,
        }
    }
}

/// Where a path's values came from when the code does not fix them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Candidates {
    /// Every value is the code's own (constants, template arguments, finite sets).
    None,
    /// A run-time value took a candidate from a `// occupancy: block = [..]` comment on
    /// the launch.
    Comment,
    /// A run-time value took a candidate from `occupancy.toml`'s `[cuda_launches]` entry of
    /// the launching function.
    Policy,
}

/// One launch a path through the host code makes.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct LaunchPath {
    /// The kernel launched.
    pub kernel: Instantiation,
    /// Blocks in the grid, x, y, z (most grids depend on the input: then unknown, and the
    /// lints that need a grid are skipped).
    pub grid: Read<[u32; 3]>,
    /// Threads per block, x, y, z.
    pub block: Read<[u32; 3]>,
    /// Dynamic shared memory per block, bytes (0 when the launch gives none).
    pub dynamic_smem_bytes: Read<u32>,
    /// Set when the dynamic shared memory grows with the input past the limit (48 KiB, or
    /// the opt-in) and this path stands for the most that launches or for the first value
    /// above it: the check moves it by the kernel's static shared memory, which counts
    /// against the same limit.
    pub smem_limit: Option<SmemLimit>,
    /// The thread-block cluster, blocks x, y, z, from a `cudaLaunchConfig_t`'s
    /// `cudaLaunchAttributeClusterDimension` attribute; `None` when the launch sets none.
    pub cluster: Option<[u32; 3]>,
    /// The dynamic shared memory opt-in, bytes: the value of
    /// `cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, n)` made
    /// for this kernel before the launch on this path; `None` when none was made.
    pub opt_in_bytes: Option<u32>,
    /// The choices that lead here, in order (`head_dim == 64`, `n < 1024`, `block = 256`):
    /// how messages tell the paths of one launch apart. Empty for a launch with one path.
    pub conditions: Vec<String>,
    /// Whether a run-time value took a candidate the user gave.
    pub candidates: Candidates,
    /// The `.cu` file whose translation unit makes this launch (the launch's own file, or
    /// the file including the header it is written in), relative to the crate: a kernel
    /// with internal linkage is that file's.
    pub translation_unit: String,
    /// The targets this path is of, where its values are what the device answers there
    /// (`cudaDeviceGetAttribute`, `cudaGetDeviceProperties`: the GPU tables' values for
    /// each target): it is checked on those only. Empty: of every target.
    pub targets: Vec<String>,
}

impl LaunchPath {
    /// One line: `k<float, 64> grid 64 block (32, 4) smem 256 B [n == 64]`.
    pub fn summary(&self) -> String {
        let dims = |d: &Read<[u32; 3]>| match d {
            Read::Known([x, 1, 1]) => x.to_string(),
            Read::Known([x, y, 1]) => format!("({x}, {y})"),
            Read::Known([x, y, z]) => format!("({x}, {y}, {z})"),
            Read::Unknown(_) => "?".to_owned(),
        };
        let mut s = format!(
            "{} grid {} block {} smem {}",
            self.kernel,
            dims(&self.grid),
            dims(&self.block),
            match &self.dynamic_smem_bytes {
                Read::Known(b) => format!("{b} B"),
                Read::Unknown(_) => "?".to_owned(),
            }
        );
        if let Some([x, y, z]) = self.cluster {
            s.push_str(&format!(" cluster ({x}, {y}, {z})"));
        }
        if let Some(o) = self.opt_in_bytes {
            s.push_str(&format!(" opt-in {o} B"));
        }
        if !self.conditions.is_empty() {
            s.push_str(&format!(" [{}]", self.conditions.join(", ")));
        }
        if !self.targets.is_empty() {
            s.push_str(&format!(" on {}", self.targets.join(", ")));
        }
        s
    }

    /// The core's launch record of this path: what the check reads (the C++ reader's
    /// interpreter makes `LaunchPath`s; the record is the one both readers' launches are
    /// checked from).
    pub fn record(&self) -> Launch {
        let value = |v: u32| Field::Known(Int::known(i128::from(v), Some(IntTy::U32), None));
        let read = |r: &Read<u32>| match r {
            Read::Known(v) => value(*v),
            Read::Unknown(why) => Field::RunTime(RunTime::unread(why.clone())),
        };
        let dims = |r: &Read<[u32; 3]>| match r {
            Read::Known(d) => Ok(d.map(value)),
            Read::Unknown(why) => Err(why.clone()),
        };
        Launch {
            block: dims(&self.block),
            smem: read(&self.dynamic_smem_bytes),
            grid: dims(&self.grid),
            kernel: Some(Kernel {
                name: self.kernel.name.clone(),
                glob: false,
                at: At::NONE,
                refill: None,
                template_args: self.kernel.template_args.clone(),
            }),
            template_args: self.kernel.template_args.clone(),
            translation_unit: Some(self.translation_unit.clone()),
            smem_limit: self.smem_limit,
            cluster: self.cluster,
            opt_in_bytes: self.opt_in_bytes,
            conditions: self.conditions.clone(),
            targets: self.targets.clone(),
            ..Launch::new(0, At::NONE)
        }
    }

    /// `head_dim == 64, block = 128`, or `None` without conditions.
    pub fn label(&self) -> Option<String> {
        (!self.conditions.is_empty()).then(|| self.conditions.join(", "))
    }
}

/// A launch site read from a `.cu` / `.cuh` file, with every path that reaches it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct CudaLaunch {
    /// The file, relative to the crate's directory, `/`-separated (`src/cuda/softmax.cu`).
    pub file: String,
    /// The 1-based line of the launch (of the macro invocation when a macro wrote it).
    pub line: u32,
    /// The host function that makes the launch (`launch_softmax`, `ns::run<T>`).
    pub function: String,
    /// The form of the launch.
    pub form: LaunchForm,
    /// The kernel as written at the launch (`softmax<T, kBlock>`).
    pub kernel_written: String,
    /// Every distinct launch the paths reaching this site make (at most
    /// [`crate::MAX_PATHS`]); empty when the launch is not checked (see `not_checked`).
    pub paths: Vec<LaunchPath>,
    /// Why some or all of the launch is not checked: a block known only at run time with
    /// no candidates, paths beyond the bound, a kernel compiled at run time.
    pub not_checked: Vec<String>,
}

impl CudaLaunch {
    /// `src/cuda/softmax.cu:42`.
    pub fn location(&self) -> String {
        format!("{}:{}", self.file, self.line)
    }

    /// Says once why the launch (or part of it) is not checked.
    pub(crate) fn not_checked(&mut self, why: String) {
        if !self.not_checked.contains(&why) {
            self.not_checked.push(why);
        }
    }

    /// Adds the launch paths one path of a reading `produced`, the read being of `targets`
    /// targets: the same launch by another path (or on another target) is one entry, with
    /// the conditions both share, of each target it is made on (of every one: its targets
    /// empty); past [`crate::MAX_PATHS`] entries, the rest are not checked.
    pub(crate) fn add_paths(&mut self, produced: Vec<LaunchPath>, targets: usize) {
        for path in produced {
            if let Some(same) = self.paths.iter_mut().find(|q| same_launch(q, &path)) {
                same.conditions.retain(|c| path.conditions.contains(c));
                if same.targets.is_empty() || path.targets.is_empty() {
                    same.targets.clear();
                } else {
                    // Of every target only where another one is added: the same launch
                    // twice on one target is still of that target.
                    let before = same.targets.len();
                    for t in path.targets {
                        if !same.targets.contains(&t) {
                            same.targets.push(t);
                        }
                    }
                    if same.targets.len() > before && same.targets.len() >= targets {
                        same.targets.clear();
                    }
                }
                continue;
            }
            if self.paths.len() >= crate::MAX_PATHS {
                self.not_checked(format!(
                    "more than {} paths reach this launch: the rest are not checked",
                    crate::MAX_PATHS
                ));
                break;
            }
            self.paths.push(path);
        }
    }
}

/// Whether two paths make the same launch (all but the conditions that lead to each and
/// their targets).
fn same_launch(a: &LaunchPath, b: &LaunchPath) -> bool {
    a.kernel == b.kernel
        && a.grid == b.grid
        && a.block == b.block
        && a.dynamic_smem_bytes == b.dynamic_smem_bytes
        && a.cluster == b.cluster
        && a.opt_in_bytes == b.opt_in_bytes
        && a.candidates == b.candidates
}

/// A problem reading the sources, at a place: a file that cannot be read or parsed, an
/// include that leads outside the crate, a macro past the expansion bounds.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ReadNote {
    /// The file, relative to the crate (or as named when outside it).
    pub file: String,
    /// The 1-based line, when it concerns one.
    pub line: Option<u32>,
    /// What happened, one line.
    pub message: String,
}

impl fmt::Display for ReadNote {
    /// `src/cuda/a.cu:12: message`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(line) => write!(f, "{}:{line}: {}", self.file, self.message),
            None => write!(f, "{}: {}", self.file, self.message),
        }
    }
}

/// Everything read from a crate's CUDA C++ sources.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Reading {
    /// Every launch site found, by file then line.
    pub launches: Vec<CudaLaunch>,
    /// The files read, relative to the crate (the `.cu` files given and the headers they
    /// include), in the order read.
    pub files: Vec<String>,
    /// What could not be read, and where.
    pub notes: Vec<ReadNote>,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn path(template_args: Option<Vec<TemplateArg>>) -> LaunchPath {
        LaunchPath {
            kernel: Instantiation {
                name: "flash_fwd".to_owned(),
                template_args,
            },
            grid: Read::Unknown("`n` is a parameter of `run`".to_owned()),
            block: Read::Known([128, 2, 1]),
            dynamic_smem_bytes: Read::Known(49152),
            smem_limit: None,
            cluster: Some([2, 1, 1]),
            opt_in_bytes: Some(100 * 1024),
            conditions: vec!["head_dim == 64".to_owned()],
            candidates: Candidates::None,
            translation_unit: "src/flash.cu".to_owned(),
            targets: vec!["sm_90".to_owned()],
        }
    }

    #[test]
    fn a_path_s_record_carries_its_values_kernel_and_conditions() {
        let p = path(Some(vec![
            TemplateArg::Type("__half".to_owned()),
            TemplateArg::Value(64),
            TemplateArg::Bool(true),
        ]));
        let r = p.record();
        let dims = r.block.as_ref().expect("block known");
        let block: Vec<Option<u32>> = dims.iter().map(Field::known_u32).collect();
        assert_eq!(block, [Some(128), Some(2), Some(1)]);
        assert_eq!(r.smem.known_u32(), Some(49152));
        assert_eq!(
            r.grid.as_ref().err().map(String::as_str),
            Some("`n` is a parameter of `run`")
        );
        assert_eq!(
            r.kernel_text().as_deref(),
            Some("flash_fwd<__half, 64, true>")
        );
        assert_eq!(r.kernel_text(), Some(p.kernel.to_string()));
        assert_eq!(r.translation_unit.as_deref(), Some("src/flash.cu"));
        assert_eq!((r.cluster, r.opt_in_bytes), (Some([2, 1, 1]), Some(102400)));
        assert_eq!(r.conditions, ["head_dim == 64"]);
        assert_eq!(r.targets, ["sm_90"]);
        // Arguments not known, and a kernel that is no template.
        assert_eq!(
            path(None).record().kernel_text().as_deref(),
            Some("flash_fwd<?>")
        );
        assert_eq!(
            path(Some(Vec::new())).record().kernel_text().as_deref(),
            Some("flash_fwd")
        );
        // An unknown dynamic shared memory keeps its reason.
        let mut q = path(None);
        q.dynamic_smem_bytes = Read::Unknown("`smem` is a parameter".to_owned());
        match q.record().smem {
            Field::RunTime(r) => assert_eq!(r.why, "`smem` is a parameter"),
            Field::Known(_) => panic!("known"),
        }
    }
}
