//! Compile-time theoretical-occupancy lint for CUDA kernel launches.
//!
//! This facade re-exports the engine ([`occupancy_core`]: [`arch`], [`occupancy`],
//! [`lint`], ...) and the attribute [`check`]. Depend on this crate, under its own name
//! `occupancy`: the attribute's generated code refers to `::occupancy::...`.
//!
//! # `#[occupancy::check(...)]`
//!
//! Put it on a launch wrapper (a free function or a method with a body). During
//! `cargo build` it computes the theoretical occupancy of the launch on every target and
//! reports, at the offending argument, a launch below the policy floor or one that wastes
//! the hardware, with the numbers and a fix computed by the engine; a launch that cannot
//! run fails the build.
//!
//! ```
//! #[occupancy::check(block = (16, 16), regs = 64, smem = 8 KiB, target = ["sm_80", "H100"])]
//! fn launch_sgemm() {
//!     // cudarc: stream.launch_builder(&f).arg(..).launch(cfg) with block_dim (16, 16, 1)
//!     //         and shared_mem_bytes 8192
//! }
//! # fn main() { launch_sgemm() }
//! ```
//!
//! With `regs = 96` and no `target` (so the policy's default targets, sm_80 and sm_90),
//! `cargo build` prints one warning per target; the one for sm_90:
//!
//! ```text
//! warning: use of deprecated macro `low_occupancy`: launch_sgemm on sm_90: 25% occupancy (16 of 64 warps), below the 50% floor
//!          = note: limited by registers: 96 regs/thread -> 96 x 32 = 3072 per warp -> 16384 per sub-partition / 3072 = 5 warps x 4 sub-partitions / 8 warps per block = 2 blocks/SM
//!          = help: 64 regs/thread (e.g. __launch_bounds__(256, 4)) gives 50%
//!  --> src/lib.rs:5:38
//!   |
//! 5 | #[occupancy::check(block = (16, 16), regs = 96)]
//!   |                                      ^^^^
//! ```
//!
//! A denied lint is an error with the same text (`error: low_occupancy: launch_sgemm on
//! sm_90: ...`); `launch_impossible` is always one.
//!
//! ## Keys
//!
//! | key | value | default |
//! |---|---|---|
//! | `block` | threads per block: `256`, `(16, 16)`, `(8, 8, 4)`, a constant, or a tuple of constants | required |
//! | `kernel` | the compiled kernel's name (`"sgemm_tiled"`, a C++ kernel's demangled `"tile<16>"` or its symbol): its resources per target come from the resource manifest, or from `cubin` / `fatbin` | none |
//! | `cubin` | a cubin to read the resources from, relative to the crate's directory | none |
//! | `fatbin` | a fatbin (or an nvcc-built host binary with a `.nv_fatbin` section), relative to the crate's directory | none |
//! | `regs` | registers per thread (ptxas `-v`: `Used N registers`); with `kernel` / `cubin` / `fatbin`, overrides the compiled kernel's | required without `kernel`, `cubin`, `fatbin` |
//! | `smem` | dynamic shared memory per block: `8192`, `512 B`, `8 KiB`, `48 KB`, `1.5 KiB`, `8KiB`, a constant | `0` |
//! | `static_smem` | static shared memory per block, same forms (ptxas: `N bytes smem`) | `0` |
//! | `opt_in` | the dynamic shared memory opt-in the wrapper sets (`CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES`), same forms | not set (48 KiB per block) |
//! | `carveout` | preferred shared-memory carveout, a whole percentage: `50%` or `0.5` | not set (the driver's default) |
//! | `barriers` | block barriers the kernel uses, 0 to 16 | the compiled kernel's, else `1` |
//! | `max_threads` | the kernel's `__launch_bounds__` max threads, 1 to 1024 | the compiled kernel's, else none |
//! | `grid` | blocks in the grid: `1024`, `(64, 64)`, `(x, y, z)`, constants (for waves and tails) | none |
//! | `cluster` | blocks per thread-block cluster: `2`, `(2, 1)`, `(2, 1, 1)`; literal; cc 9.0+ targets only | the compiled kernel's `__cluster_dims__`, else none |
//! | `class` | the kernel class, which sets the floor: `"memory_bound"` (62.5%), `"balanced"` (37.5%), `"compute_bound"` (25%) | policy `class` |
//! | `target` | `"sm_90"` or `["sm_80", "H100", "RTX 4090"]`: compute capabilities (`sm_90`, `sm_90a`, `9.0`) or GPU names | policy `targets` |
//! | `min_occupancy` | the `low_occupancy` floor: `50%`, `37.5%` or `0.5`; wins over any `class` | the class's floor, else policy `min_occupancy` |
//! | `allow(..)`, `warn(..)`, `deny(..)` | lint levels for this wrapper: `allow(low_occupancy, partial_warp)` | policy `[lints]` |
//!
//! Units: `B` (bytes), `KiB` and `KB` both mean 1024 bytes (the CUDA documentation writes
//! "KB" for 1024 bytes of shared memory); there is no 1000-byte unit. A size must come to a
//! whole number of bytes. `static_smem`, `barriers` and `max_threads` given literally
//! override the compiled kernel's too.
//!
//! Every problem in the arguments is an error on its token, all reported at once: unknown
//! keys (with "did you mean"), duplicates, wrong types, out-of-range values, unknown targets
//! (with the closest names), unknown lints.
//!
//! ## Lints
//!
//! | lint | default | what |
//! |---|---|---|
//! | `launch_impossible` | deny, fixed | 0 blocks fit, or the launch fails: block over 1024 threads or the launch bounds, registers or shared memory over the per-block limits, dynamic shared memory over the opt-in, opt-in over the architecture's limit, an invalid cluster |
//! | `low_occupancy` | warn | theoretical occupancy below the floor on a target |
//! | `partial_warp` | warn | threads per block not a multiple of 32 |
//! | `register_step` | warn | dropping a few registers per thread (policy `thresholds.register_step_max_drop`, 4) adds resident blocks |
//! | `smem_step` | warn | shaving a few bytes of shared memory per block (`thresholds.smem_step_max_bytes`, 512) adds a resident block |
//! | `block_limit` | warn | blocks so small the resident-block limit binds before the warps are used |
//! | `barrier_limit` | warn | named barriers per block limit resident blocks (cc 9.0+) |
//! | `carveout_limit` | warn | the carveout preference costs resident blocks |
//! | `register_spill` | warn | the compiled kernel spills registers (needs `kernel` / `cubin` / `fatbin`) |
//! | `launch_bounds_mismatch` | warn | the launch does not reach the kernel's `__launch_bounds__` min blocks per SM |
//! | `tail_effect` | warn | with `grid` on a named GPU: the last wave leaves over 10% (`thresholds.tail_effect_max_waste`) of the launch's block slots idle |
//! | `undersized_grid` | warn | with `grid` on a named GPU: the grid cannot fill the GPU once |
//! | `cluster_limit` | warn | with `cluster`: the cluster launch holds fewer blocks than the plain launch |
//!
//! Their documentation: [`lint::LINTS`]. Warnings are ordinary rustc warnings (of the
//! `deprecated` lint, the only warning a proc macro can raise on stable Rust): they show
//! in `cargo build` for the crate's own code, `-D warnings` turns them into errors, and
//! `#[allow(deprecated)]` on the wrapper silences them (prefer `allow(low_occupancy)`,
//! which does not hide real deprecations). Cargo hides warnings of dependencies, so only
//! the crate's author sees them. rust-analyzer draws them as a strikethrough on the key.
//!
//! ## Resources from the compiled kernel
//!
//! Registers per thread are decided by ptxas, per architecture and toolkit version, so the
//! attribute reads them (with static shared memory, barriers, `__launch_bounds__`, spills,
//! local memory and `__cluster_dims__`) from what the compiler produced:
//!
//! ```text
//! #[occupancy::check(kernel = "sgemm_tiled", block = (16, 16), target = ["sm_80", "H100"])]
//! #[occupancy::check(cubin = "kernels/sgemm.sm_80.cubin", kernel = "sgemm_tiled", block = 256)]
//! #[occupancy::check(fatbin = "kernels/sgemm.fatbin", block = 256)] // its only kernel
//! ```
//!
//! `kernel = "name"` alone reads the resource manifest, the first found of:
//!
//! 1. `$OCCUPANCY_MANIFEST`: set for the crate by a build script that uses the build helper
//!    (`occupancy_core::build::Kernels`, which compiles `kernels/*.cu` with NVRTC and prints
//!    `cargo:rustc-env=OCCUPANCY_MANIFEST=$OUT_DIR/occupancy/manifest.json`);
//! 2. `$OUT_DIR/occupancy/manifest.json`, when the crate has a build script;
//! 3. the policy's `manifest = "path"`, relative to the crate's directory;
//! 4. `kernels.manifest.json` beside `Cargo.toml` (the committed fallback the build helper
//!    also uses when NVRTC is missing; write it with `OCCUPANCY_WRITE_MANIFEST=1 cargo build`
//!    or `cargo occupancy inspect --write-manifest`).
//!
//! On each target the resources are those of the cubin the CUDA driver would load there:
//! the same compute capability (an `sm_90a` cubin on 9.0), else the highest lower one of the
//! same major version (the `sm_80` cubin on an RTX 3090, cc 8.6). A kernel that is not in
//! the manifest, cubin or fatbin is an error listing the kernels and the targets each was
//! compiled for; a target with no cubin that runs on it is an error on that target. A
//! launch with more threads per block than the kernel's `__launch_bounds__` is
//! `launch_impossible`. Warnings about such a target add a note with the compiled kernel's
//! numbers and the cubin they came from.
//!
//! Files are read only inside the package's directory, its workspace root and `OUT_DIR`,
//! after resolving symbolic links, and in the directories the policy's `read_paths` lists;
//! anything else is an error naming the rule and where the path led. Only regular files are
//! read (a device, a FIFO or a directory is an error naming it, before it is opened), up to
//! 256 MiB for a cubin or fatbin and 16 MiB for a manifest or policy file.
//!
//! Cargo rebuilds the crate when a file read (manifest, cubin, fatbin) or
//! `OCCUPANCY_MANIFEST` changes (the expansion `include_bytes!`s the file and reads the
//! variable with `option_env!`); rust-analyzer does not re-expand on such a change.
//!
//! ## Constants
//!
//! Values given as constant expressions (`block = BLOCK`, `smem = TILE * TILE * 4`,
//! `block = (TILE, TILE)`; each must be a `u32`) cannot be read by the macro. The check then
//! runs in a generated `const` item, evaluated by the compiler with the engine's
//! `const fn`s, for three lints: `launch_impossible` and a denied `low_occupancy` or
//! `partial_warp` fail the build with a const-evaluation error; a warned one warns (the
//! warning reads "use of deprecated associated function `...::Check::<true>::_low_occupancy`").
//! Their messages cannot carry the numbers or a fix. The other lints (`register_step`,
//! `smem_step`, `block_limit`, `carveout_limit`, `barrier_limit`, `register_spill`,
//! `launch_bounds_mismatch`, `tail_effect`, `undersized_grid`, `cluster_limit`) need the
//! values as literals and are not checked for a wrapper with constants.
//! `cargo occupancy report` substitutes constants it finds defined in the same file, so it
//! can report more than the build. Constants must be reachable from the function body (not
//! `Self::CONST`: the check is an item inside the body).
//!
//! ## Policy: `occupancy.toml`
//!
//! Beside the crate's `Cargo.toml` (or at the path in the environment variable
//! `OCCUPANCY_POLICY`, absolute or relative to the crate's directory):
//!
//! ```toml
//! targets = ["sm_80", "sm_90"]   # default targets (built-in default: sm_80, sm_90)
//! min_occupancy = 0.5            # or "50%" (built-in default: 50%)
//! class = "balanced"             # default kernel class: its floor when no min_occupancy
//! manifest = "kernels.manifest.json"  # committed resource manifest (relative to the crate)
//! read_paths = ["../artifacts"]  # more directories the attribute may read (relative to the crate)
//!
//! [lints]
//! low_occupancy = "deny"         # allow | warn | deny
//! partial_warp = "allow"
//!
//! [thresholds]
//! register_step_max_drop = 4     # registers per thread "a few" means
//! smem_step_max_bytes = 512      # shared memory bytes per block
//! tail_effect_max_waste = "10%"  # idle share of the last wave's block slots
//! ```
//!
//! A malformed file is an error naming the file, line, column and key; unknown keys are
//! errors with "did you mean". The attribute's own values win over the policy. Cargo
//! rebuilds the crate when the file or the variable changes; it cannot know about a file
//! that did not exist at the last build (after creating one, touch a source file), and
//! rust-analyzer does not re-expand on a policy change.
//!
//! ## Cost
//!
//! None at run time: the wrapper's body is unchanged; the attribute adds one block
//! statement in front of it that holds only items and macro calls expanding to nothing.
#![deny(missing_docs)]

pub use occupancy_core::*;
pub use occupancy_macros::check;
