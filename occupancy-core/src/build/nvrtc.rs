//! NVRTC, loaded at run time (`libloading`): no CUDA toolkit at build time, no link-time
//! dependency. The PyPI wheels `nvidia-cuda-nvrtc` (CUDA 13), `nvidia-cuda-nvrtc-cu12` and
//! `nvidia-cuda-nvrtc-cu11` ship a self-contained `libnvrtc.so` that compiles for any `sm_XX`
//! with no GPU and no driver (§9 of `shared/notes/cubin-format.md`).

use std::ffi::{CStr, CString, c_char, c_int, c_void};
use std::path::{Path, PathBuf};

type Program = *mut c_void;
type Status = c_int;

/// `NVRTC_SUCCESS`.
const NVRTC_SUCCESS: Status = 0;

/// The NVRTC entry points used here (all present since CUDA 11.1).
struct Api {
    version: unsafe extern "C" fn(*mut c_int, *mut c_int) -> Status,
    get_error_string: unsafe extern "C" fn(Status) -> *const c_char,
    create_program: unsafe extern "C" fn(
        *mut Program,
        *const c_char,
        *const c_char,
        c_int,
        *const *const c_char,
        *const *const c_char,
    ) -> Status,
    compile_program: unsafe extern "C" fn(Program, c_int, *const *const c_char) -> Status,
    destroy_program: unsafe extern "C" fn(*mut Program) -> Status,
    get_program_log_size: unsafe extern "C" fn(Program, *mut usize) -> Status,
    get_program_log: unsafe extern "C" fn(Program, *mut c_char) -> Status,
    get_cubin_size: unsafe extern "C" fn(Program, *mut usize) -> Status,
    get_cubin: unsafe extern "C" fn(Program, *mut c_char) -> Status,
    get_ptx_size: unsafe extern "C" fn(Program, *mut usize) -> Status,
    get_ptx: unsafe extern "C" fn(Program, *mut c_char) -> Status,
    get_num_supported_archs: unsafe extern "C" fn(*mut c_int) -> Status,
    get_supported_archs: unsafe extern "C" fn(*mut c_int) -> Status,
}

/// A loaded libnvrtc.
pub struct Nvrtc {
    api: Api,
    /// Where it was loaded from.
    pub path: PathBuf,
    /// `(major, minor)` from `nvrtcVersion`.
    pub version: (u32, u32),
    // Keeps the function pointers valid; dropped last.
    _lib: libloading::Library,
}

/// What one compilation produced.
pub struct Output {
    /// The cubin (`nvrtcGetCUBIN`).
    pub cubin: Vec<u8>,
    /// The PTX (`nvrtcGetPTX`), without the trailing NUL.
    pub ptx: String,
    /// The program log (warnings; ptxas -v lines when asked for).
    pub log: String,
}

impl Nvrtc {
    /// Loads libnvrtc from `path` (a file, or a bare name the system loader searches).
    pub fn load(path: &Path) -> Result<Self, String> {
        // SAFETY: loading a shared library runs its initialisers; libnvrtc's are those of a
        // normal CUDA installation. The symbols below are looked up with NVRTC's documented
        // C signatures (nvrtc.h, CUDA 11.1+).
        unsafe {
            let lib = libloading::Library::new(path)
                .map_err(|e| format!("cannot load {}: {e}", path.display()))?;
            macro_rules! sym {
                ($name:literal) => {
                    *lib.get(concat!($name, "\0").as_bytes())
                        .map_err(|e| format!("{}: no symbol {}: {e}", path.display(), $name))?
                };
            }
            let api = Api {
                version: sym!("nvrtcVersion"),
                get_error_string: sym!("nvrtcGetErrorString"),
                create_program: sym!("nvrtcCreateProgram"),
                compile_program: sym!("nvrtcCompileProgram"),
                destroy_program: sym!("nvrtcDestroyProgram"),
                get_program_log_size: sym!("nvrtcGetProgramLogSize"),
                get_program_log: sym!("nvrtcGetProgramLog"),
                get_cubin_size: sym!("nvrtcGetCUBINSize"),
                get_cubin: sym!("nvrtcGetCUBIN"),
                get_ptx_size: sym!("nvrtcGetPTXSize"),
                get_ptx: sym!("nvrtcGetPTX"),
                get_num_supported_archs: sym!("nvrtcGetNumSupportedArchs"),
                get_supported_archs: sym!("nvrtcGetSupportedArchs"),
            };
            let (mut major, mut minor) = (0, 0);
            let status = (api.version)(&mut major, &mut minor);
            if status != NVRTC_SUCCESS {
                return Err(format!(
                    "{}: nvrtcVersion failed ({status})",
                    path.display()
                ));
            }
            Ok(Self {
                api,
                path: path.to_path_buf(),
                version: (major.max(0) as u32, minor.max(0) as u32),
                _lib: lib,
            })
        }
    }

    /// The SM numbers this NVRTC compiles for (`nvrtcGetSupportedArchs`: 75, 80, ...).
    pub fn supported_archs(&self) -> Vec<u32> {
        let mut n: c_int = 0;
        // SAFETY: documented signatures; the buffer has room for `n` ints.
        unsafe {
            if (self.api.get_num_supported_archs)(&mut n) != NVRTC_SUCCESS
                || !(0..=1024).contains(&n)
            {
                return Vec::new();
            }
            let mut archs = vec![0 as c_int; n as usize];
            if (self.api.get_supported_archs)(archs.as_mut_ptr()) != NVRTC_SUCCESS {
                return Vec::new();
            }
            archs
                .into_iter()
                .filter_map(|a| u32::try_from(a).ok())
                .collect()
        }
    }

    fn error_string(&self, status: Status) -> String {
        // SAFETY: nvrtcGetErrorString returns a static NUL-terminated string (or null).
        unsafe {
            let p = (self.api.get_error_string)(status);
            if p.is_null() {
                format!("NVRTC error {status}")
            } else {
                CStr::from_ptr(p).to_string_lossy().into_owned()
            }
        }
    }

    /// Compiles CUDA C++ `source` (named `name` in messages) with `options`
    /// (`--gpu-architecture=sm_80`, ...). A failed compilation is an error holding NVRTC's log.
    pub fn compile(&self, source: &str, name: &str, options: &[String]) -> Result<Output, String> {
        let src = CString::new(source).map_err(|_| format!("{name}: contains a NUL byte"))?;
        let cname = CString::new(name).map_err(|_| format!("{name}: name contains a NUL byte"))?;
        let opts: Vec<CString> = options
            .iter()
            .map(|o| {
                CString::new(o.as_str()).map_err(|_| format!("option {o:?} contains a NUL byte"))
            })
            .collect::<Result<_, _>>()?;
        let opt_ptrs: Vec<*const c_char> = opts.iter().map(|o| o.as_ptr()).collect();
        let mut prog: Program = std::ptr::null_mut();
        // SAFETY: NVRTC's documented call sequence; every buffer is sized by the matching
        // *Size call, pointers outlive the calls, and the program is destroyed on every path.
        unsafe {
            let status = (self.api.create_program)(
                &mut prog,
                src.as_ptr(),
                cname.as_ptr(),
                0,
                std::ptr::null(),
                std::ptr::null(),
            );
            if status != NVRTC_SUCCESS {
                return Err(format!(
                    "{name}: nvrtcCreateProgram: {}",
                    self.error_string(status)
                ));
            }
            let result = self.compile_inner(prog, name, &opt_ptrs);
            (self.api.destroy_program)(&mut prog);
            result
        }
    }

    unsafe fn compile_inner(
        &self,
        prog: Program,
        name: &str,
        opts: &[*const c_char],
    ) -> Result<Output, String> {
        // SAFETY: see `compile`.
        unsafe {
            let status = (self.api.compile_program)(prog, opts.len() as c_int, opts.as_ptr());
            let log = self
                .read(
                    prog,
                    self.api.get_program_log_size,
                    self.api.get_program_log,
                )
                .unwrap_or_default();
            let log = String::from_utf8_lossy(log.strip_suffix(&[0]).unwrap_or(&log)).into_owned();
            if status != NVRTC_SUCCESS {
                return Err(format!(
                    "{name}: {}\n{}",
                    self.error_string(status),
                    log.trim_end()
                ));
            }
            let cubin = self
                .read(prog, self.api.get_cubin_size, self.api.get_cubin)
                .map_err(|e| format!("{name}: nvrtcGetCUBIN: {e}"))?;
            let ptx = self
                .read(prog, self.api.get_ptx_size, self.api.get_ptx)
                .map_err(|e| format!("{name}: nvrtcGetPTX: {e}"))?;
            let ptx =
                String::from_utf8_lossy(ptx.split(|&b| b == 0).next().unwrap_or(&[])).into_owned();
            Ok(Output { cubin, ptx, log })
        }
    }

    unsafe fn read(
        &self,
        prog: Program,
        size: unsafe extern "C" fn(Program, *mut usize) -> Status,
        get: unsafe extern "C" fn(Program, *mut c_char) -> Status,
    ) -> Result<Vec<u8>, String> {
        // SAFETY: the buffer has the size NVRTC reported.
        unsafe {
            let mut n = 0usize;
            let status = size(prog, &mut n);
            if status != NVRTC_SUCCESS {
                return Err(self.error_string(status));
            }
            let mut buf = vec![0u8; n];
            if n > 0 {
                let status = get(prog, buf.as_mut_ptr().cast());
                if status != NVRTC_SUCCESS {
                    return Err(self.error_string(status));
                }
            }
            Ok(buf)
        }
    }
}

/// Library file names, newest first (the CUDA 11 wheel's library is `libnvrtc.so.11.2`).
pub const LIBRARY_NAMES: &[&str] = &[
    "libnvrtc.so.13",
    "libnvrtc.so.12",
    "libnvrtc.so.11.2",
    "libnvrtc.so",
];

/// Where the PyPI wheels put the library, below a `site-packages` folder.
pub const WHEEL_LIBRARIES: &[&str] = &[
    "nvidia/cu13/lib/libnvrtc.so.13",
    "nvidia/cuda_nvrtc/lib/libnvrtc.so.12",
    "nvidia/cuda_nvrtc/lib/libnvrtc.so.11.2",
];

/// Candidate libraries in the order they are tried: the PyPI wheels' in every site-packages
/// Python reports (and a few common prefixes), then CUDA installations (`CUDA_PATH`,
/// `CUDA_HOME`, `/usr/local/cuda`), then bare names for the system loader.
pub fn candidates() -> Vec<PathBuf> {
    let mut out = super::wheels::installed(WHEEL_LIBRARIES);
    for var in ["CUDA_PATH", "CUDA_HOME"] {
        if let Some(dir) = std::env::var_os(var) {
            out.extend(
                LIBRARY_NAMES
                    .iter()
                    .map(|n| Path::new(&dir).join("lib64").join(n))
                    .filter(|p| p.is_file()),
            );
        }
    }
    out.extend(
        LIBRARY_NAMES
            .iter()
            .map(|n| Path::new("/usr/local/cuda/lib64").join(n))
            .filter(|p| p.is_file()),
    );
    out.extend(LIBRARY_NAMES.iter().map(PathBuf::from));
    out
}

/// Libraries in a folder given by the user (`OCCUPANCY_NVRTC=/path/to/lib`).
pub fn in_dir(dir: &Path) -> Vec<PathBuf> {
    LIBRARY_NAMES
        .iter()
        .map(|n| dir.join(n))
        .filter(|p| p.is_file())
        .collect()
}
