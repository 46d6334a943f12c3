//! Compile-time theoretical-occupancy lint for CUDA kernel launches.
//!
//! This facade re-exports the engine ([`occupancy_core`]: [`arch`], [`occupancy`],
//! [`lint`], ...) and the attribute [`check`]. Depend on this crate, under its own name
//! `occupancy`: the attribute's generated code refers to `::occupancy::...`.
//!
//! # `#[occupancy::check(...)]`
//!
//! Put it on a launch wrapper (a free function or a method with a body) and write the launch
//! as you always do: the attribute reads the configuration from the body. During
//! `cargo build` it computes the theoretical occupancy of the launch on every target and
//! reports, at the offending expression, a launch below the policy floor or one that wastes
//! the hardware, with the numbers and a fix computed by the engine; a launch that cannot
//! run fails the build.
//!
//! ```
//! # #[derive(Clone, Copy)] struct LaunchConfig { grid_dim: (u32, u32, u32), block_dim: (u32, u32, u32), shared_mem_bytes: u32 }
//! # fn launch(_: LaunchConfig) {}
//! const TILE: u32 = 64;
//!
//! #[occupancy::check(regs = 64, target = ["sm_80", "H100"])]
//! fn launch_sgemm(m: u32, n: u32) {
//!     let cfg = LaunchConfig {
//!         grid_dim: (n.div_ceil(TILE), m.div_ceil(TILE), 1),
//!         block_dim: (TILE / 4, TILE / 4, 1),
//!         shared_mem_bytes: 8 * 1024,
//!     };
//!     launch(cfg); // cudarc: unsafe { stream.launch_builder(&f).arg(..).launch(cfg) }
//! }
//! # fn main() { launch_sgemm(100, 100) }
//! ```
//!
//! With `regs = 96` and no `target` (so the policy's default targets, sm_80 and sm_90),
//! `cargo build` prints one warning per target; the one for sm_90:
//!
//! ```text
//! warning: use of deprecated macro `low_occupancy`: launch_sgemm on sm_90: 25% occupancy (16 of 64 warps), below the 50% floor
//!          = note: limited by registers: 96 regs/thread -> 96 x 32 = 3072 per warp -> 16384 per sub-partition / 3072 = 5 warps x 4 sub-partitions / 8 warps per block = 2 blocks/SM
//!          = help: 64 regs/thread (e.g. __launch_bounds__(256, 4)) gives 50%
//!  --> src/lib.rs:5:20
//!   |
//! 5 | #[occupancy::check(regs = 96)]
//!   |                    ^^^^
//! ```
//!
//! A denied lint is an error with the same text (`error: low_occupancy: launch_sgemm on
//! sm_90: ...`); `launch_impossible` is always one: one per launch that cannot run, naming
//! every target it cannot run on (`on sm_80, sm_90:`), with no other finding for that
//! launch there. A finding on a launch whose value is one of the attribute's candidates
//! points at that candidate as written (`2000` in `block = [128, 2000]`).
//!
//! ## How the attribute finds the launch
//!
//! The attribute reads the body as it runs: one path at a time through its `if`s, `match`es,
//! `let`s (patterns included), assignments and loops, into the helpers it calls, and a
//! launch is a configuration one path makes:
//!
//! - a cudarc `LaunchConfig { grid_dim, block_dim, shared_mem_bytes }` literal (`..base`
//!   included), inline in the launch call or bound with `let` (fields assigned later,
//!   `cfg.block_dim = (128, 1, 1)`, included);
//! - cudarc's `LaunchConfig::for_num_elems(n)`: 1024 threads, `n.div_ceil(1024)` blocks and
//!   0 B of dynamic shared memory in every cudarc release from 0.5.1 to 0.19 (read from
//!   their sources; 0.12.2 computes one block more for some `n`, before 0.5.1 it was one
//!   block of `n` threads);
//! - a call of the crate's own function returning a `LaunchConfig`, built from its const
//!   generic parameters, constants and arguments (`launch_cfg::<128>(n)`), bound with `let`
//!   or passed to a launch method;
//! - cust's `launch!(module.kernel<<<grid, block, smem, stream>>>(...))`.
//!
//! When the body calls a launch method (`.launch(cfg)`, `.launch_cooperative`,
//! `.launch_on_stream`, `.launch_async`), the configurations passed to it are the launches;
//! otherwise every configuration it builds is. A wrapper with several launches checks each
//! (messages name them: ``launch_two_pass (`merge`) on sm_90: ...``). A kernel loaded by a
//! literal name (`load_function("saxpy")`, `get_function`, `get_func`, cust's
//! `module.saxpy<<<..>>>`) stands in for `kernel`; when each path loads its own and
//! launches it (`let (f, threads) = match dtype { .. => (m.load_function("cast_f16")?, 64),
//! .. }; f.launch(..)`, or `stream.launch_builder(&f)`), each kernel is checked with its own
//! path's launch only.
//!
//! The values are read from the crate's sources: literals; `let` bindings (shadowing
//! included: a parameter shadowed by a `let` of the same name is the `let`); constants in
//! the same file, through `use` imports, `crate::` / `super::` / `self::` paths and inline
//! modules, in the package's library (from an example, test or binary:
//! `my_crate::consts::TILE`), associated constants (`Self::BLOCK`, `Gemm::TILE`), constants
//! declared in the body; integer arithmetic with Rust's checked semantics, `as` casts
//! between integer types, `div_ceil`, `min`, `max`, `clamp`, `next_power_of_two`, `pow`,
//! `size_of::<primitive>()`, `u32::MAX`; the crate's `const fn`s and its functions returning
//! an integer, a tuple, a struct or a `LaunchConfig`. Each file is parsed once per
//! compilation. Not read: items made by macros, `#[cfg]` (two definitions of one name are
//! not used), other crates' items, method calls on run-time values: those are run-time
//! values to the reader.
//!
//! **Every value read from a name is confirmed by the compiler**, and so is every name a
//! path's condition or a run-time set's bound was read from: the expansion asserts that the
//! expression, evaluated by rustc, is the value used (`const _: () = assert!(TILE / 4
//! == 16, "...")`; a `Self::` or generic expression in an inline `const { }` in the body,
//! which `cargo build` evaluates and `cargo check` does not), and that a helper read is the
//! function called. A wrong read (a name shadowed by a macro-made item, a constant that
//! depends on `#[cfg]`) is a build error at the expression, never a lint about another
//! launch; writing the value in the attribute (`block = 32`) makes the compiler check the
//! body's expression against it instead. Within one compilation an expression is confirmed
//! once per module: a free function whose body declares no item relies on the
//! confirmation an earlier wrapper of its module made (the same expression text and value)
//! and names the hidden `__OCCUPANCY_CONFIRMED_..` constant that wrapper defined beside
//! itself, which compiles only in that module.
//!
//! A key that states another value than the body (`block = 256` on a body that launches
//! 128 threads) is an error on both. Keys are for what the body cannot state.
//!
//! ## Run-time values: paths, ranges, candidates
//!
//! **Values chosen together stay together.** Each path through the body is one launch:
//! `let (block, warps) = match dtype { .. }`, arms that pick the kernel, the block and the
//! shared memory together, a helper's tuple or struct, the same condition twice (`if wide`
//! for the block, `if wide` again for the shared memory) are one launch per arm, never a
//! pairing the code cannot make. Each finding names its path by its values
//! (`launch_softmax (block = 32, smem = 128 B) on sm_80: ...`).
//!
//! **Run-time values with few enough values need no key.** A parameter of a primitive
//! integer type (`u8` to `u128`, `i8` to `i128`, `usize`, `isize`, behind `&` too) stands
//! for its type's whole range, a bound only: a value is checked value by value when it has
//! at most 64, which no type's range is (`u8` has 256). A `bool` parameter is either value,
//! each a path; any other parameter is unknown. A condition narrows a range (`if n < 1024`,
//! `assert!(cols <= 8192)`, an early `return`), and `min`, `max`, `clamp`,
//! `next_power_of_two` and doubling loops (`let mut b = 32; while b < n && b < 1024 { b *=
//! 2; }`) give a finite set of values: each is checked,
//! a set bound to a name member by member wherever it is used (`let pad =
//! ncols.next_power_of_two();` then `block_dim: (pad.min(1024), 1, 1), shared_mem_bytes:
//! pad * 4` pairs 1024 threads with 64 KiB, never 32 threads with it; a member whose values
//! overflow their type panics, so it is not a launch). The findings of one such range are
//! one diagnostic per lint and target: the worst member's, with a note listing the others
//! (`also 4 more launches of the same run-time range, worst first: block = 2, smem = 8 B;
//! ...`) and one saying what was checked (`` `pad` from `ncols.next_power_of_two()`: each of
//! 1, 2, 4, ..., 16384 checked ``).
//!
//! **Other run-time values need candidates**: `smem = ncols * 4` takes them from its
//! key, `block = [32, 1024]`, `smem = [4 KiB, 64 KiB]`, `grid = [(64, 64), 132]`, and a
//! candidate stands for the run-time value it replaces: `block = [32, 1024]` on a body whose
//! block is `threads` and whose shared memory is `threads * 4` checks (32, 128 B) and (1024,
//! 4 KiB); without them, that body gets one error, on the block, saying that `block`
//! candidates give the shared memory too. Candidates are never paired with a value computed from the same run-time input
//! in another way (an error says so), and never crossed: a block and a shared memory that
//! are two run-time values with several candidates each are an error saying to give the
//! pairs the code launches, `launches = [(32, 128), (1024, 64 KiB)]`. A `block` or `smem` known only at run time with no
//! candidates is an error at the body's expression saying what bound is known, if any (or
//! check at run time with `occupancy_core::device::check_launch`, feature `cudarc`); a
//! run-time grid is not an error: the grid lints (waves, `tail_effect`, `undersized_grid`)
//! then run only on candidates, if given.
//!
//! The reading is bounded: at most 64 paths (past that, an error on the `if` or `match`
//! that splits them), 64 launches per launch site, loops of at most 4096 values, calls 48
//! deep (a helper that calls itself is not followed), 200,000 steps.
//!
//! ## Kernel families
//!
//! `kernel = ["affine_f32", "affine_f16"]` or `kernel = "affine_*"` (a glob: `*` any run of
//! characters, `?` one; over the manifest, cubin or fatbin) checks each kernel. One
//! diagnostic per lint and target names the worst kernel, with a note listing the others
//! it concerns, worst first (`also 2 more kernels of the family, worst first: affine_f16
//! (37.5%), ...`), so that a family of 89 kernels does not print 89 warnings; and the
//! launches of one wrapper whose findings point at one token (the arms of a `match`, each
//! with its own block and kernels of the family, all reported at `kernel`) share it too
//! (`also 48 more launches of `mul_mat_vec_via_q8_1` here, worst first: ...`). A body that
//! names its kernel at run time (`format!("affine_{}", T::NAME)`) gets the glob suggested.
//! A member with no cubin the driver would load on a target (fp8 kernels built for `sm_90`
//! only) is not part of the family on that target: the others are checked there, and the
//! findings there say which members were left out (`not part of the family on compute
//! capability 8.0 (...): affine_f8e4m3 (compiled for sm_90)`); a target where no member is
//! left is an error on `kernel`. (A kernel named alone must run on every target.)
//! Likewise, targets with the same result (`"sm_89", "RTX 4090", "L4"`) share one
//! diagnostic that names them all.
//!
//! ## Keys
//!
//! | key | value | default |
//! |---|---|---|
//! | `block` | threads per block: `256`, `(16, 16)`, `(8, 8, 4)`, constants, or candidates `[32, 1024]` | read from the body; required where it states none |
//! | `kernel` | the compiled kernel's name (`"sgemm_tiled"`, a C++ kernel's demangled `"tile<16>"` or its symbol), a list `["a", "b"]` or a glob `"affine_*"`: the resources per target come from the resource manifest, or from `cubin` / `fatbin` | the body's `load_function("...")`, else none |
//! | `cubin` | a cubin to read the resources from, relative to the crate's directory | none |
//! | `fatbin` | a fatbin (or an nvcc-built host binary with a `.nv_fatbin` section), relative to the crate's directory | none |
//! | `regs` | registers per thread (ptxas `-v`: `Used N registers`); with `kernel` / `cubin` / `fatbin`, overrides the compiled kernel's | required without `kernel`, `cubin`, `fatbin` |
//! | `smem` | dynamic shared memory per block: `8192`, `512 B`, `8 KiB`, `48 KB`, `1.5 KiB`, `8KiB`, a constant, candidates `[4 KiB, 64 KiB]` | read from the body, else `0` |
//! | `launches` | run-time (block, dynamic shared memory) pairs chosen together, instead of `block` and `smem`: `[(32, 128), ((16, 16), 4 KiB)]` | none |
//! | `static_smem` | static shared memory per block, same forms (ptxas: `N bytes smem`) | `0` |
//! | `opt_in` | the dynamic shared memory opt-in the wrapper sets (`CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES`), same forms | not set (48 KiB per block) |
//! | `carveout` | preferred shared-memory carveout, a whole percentage: `50%` or `0.5` | not set (the driver's default) |
//! | `barriers` | block barriers the kernel uses, 0 to 16 | the compiled kernel's, else `1` |
//! | `max_threads` | the kernel's `__launch_bounds__` max threads, 1 to 1024 | the compiled kernel's, else none |
//! | `grid` | blocks in the grid: `1024`, `(64, 64)`, `(x, y, z)`, constants, candidates (for waves and tails) | read from the body, else none |
//! | `cluster` | blocks per thread-block cluster: `2`, `(2, 1)`, `(2, 1, 1)`; literal; cc 9.0+ targets only; with `grid`, each grid dimension must be a multiple of the cluster's | the compiled kernel's `__cluster_dims__`, else none |
//! | `non_portable` | `true` when the wrapper sets `CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED`: clusters over the portable 8 blocks (up to 16 on cc 9.0); without it such a cluster is `launch_impossible` | `false` |
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
//! | `launch_impossible` | deny, fixed | 0 blocks fit, or the launch fails: block over 1024 threads or the launch bounds, more than 255 registers per thread, registers or shared memory over the per-block limits, dynamic shared memory over the opt-in, opt-in over the architecture's limit, static shared memory over the 48 KiB ptxas compiles, an invalid cluster (before cc 9.0, over 8 blocks without `non_portable`, over 16, a grid that is not a whole number of clusters) |
//! | `low_occupancy` | warn | theoretical occupancy below the floor on a target |
//! | `partial_warp` | warn | threads per block not a multiple of 32 |
//! | `register_step` | warn | dropping a few registers per thread (policy `thresholds.register_step_max_drop`, 4) adds resident blocks |
//! | `smem_step` | warn | shaving a few bytes of shared memory per block (`thresholds.smem_step_max_bytes`, 512) adds a resident block |
//! | `block_limit` | warn | blocks so small the resident-block limit binds before the warps are used |
//! | `barrier_limit` | warn | named barriers per block limit resident blocks (cc 9.0+) |
//! | `carveout_limit` | warn | the carveout preference costs resident blocks |
//! | `register_spill` | warn | the compiled kernel spills registers (needs `kernel` / `cubin` / `fatbin`) |
//! | `launch_bounds_mismatch` | warn | the launch does not reach the kernel's `__launch_bounds__` min blocks per SM |
//! | `tail_effect` | warn | with `grid` on a named GPU: the last wave leaves over 10% (`thresholds.tail_effect_max_waste`) of the launch's block slots idle (a cluster launch's wave: the clusters resident at once x cluster size) |
//! | `undersized_grid` | warn | with `grid` on a named GPU: the grid cannot fill the GPU once (likewise) |
//! | `cluster_limit` | warn | with `cluster`: the cluster launch holds fewer blocks than the plain launch |
//!
//! Their documentation: [`lint::LINTS`]. Warnings are ordinary rustc warnings (of the
//! `deprecated` lint, the only warning a proc macro can raise on stable Rust): they show
//! in `cargo build` for the crate's own code, `-D warnings` turns them into errors, and
//! `#[allow(deprecated)]` on the wrapper silences them (prefer `allow(low_occupancy)`,
//! which does not hide real deprecations). Cargo hides warnings of dependencies, so only
//! the crate's author sees them. rust-analyzer draws them as a strikethrough on the key.
//!
//! With the `nightly` feature, on a nightly compiler only (it is never turned on by
//! detecting the compiler), findings go through `proc_macro::Diagnostic` instead:
//! `warning: low_occupancy: launch_sgemm on sm_90: ...` (`error: ...` when denied) at the
//! same key, each note and help a `= note:` / `= help:` child. Those are not rustc lints:
//! `#[allow(deprecated)]` and `#[allow(warnings)]` do not silence them, `-D warnings` and
//! `#![deny(warnings)]` do not make them errors (rustc's `-A warnings` and cargo's
//! `--cap-lints allow` for dependencies do hide them); use the attribute's `allow(..)` /
//! `deny(..)` or `occupancy.toml`'s `[lints]`. Wrappers with constant values keep the
//! `const` check and its deprecation warning.
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
//!    (`occupancy_core::build::Kernels`, which compiles `kernels/*.cu` with NVRTC, assembles
//!    `kernels/*.ptx` with ptxas and prints
//!    `cargo:rustc-env=OCCUPANCY_MANIFEST=$OUT_DIR/occupancy/manifest.json`);
//! 2. `$OUT_DIR/occupancy/manifest.json`, when the crate has a build script;
//! 3. the policy's `manifest = "path"`, relative to the crate's directory;
//! 4. `kernels.manifest.json` beside `Cargo.toml` (the committed fallback the build helper
//!    also uses when NVRTC is missing; write it with `OCCUPANCY_WRITE_MANIFEST=1 cargo build`
//!    or `cargo occupancy inspect --write-manifest`).
//!
//! Kernel names need only be unique per module: a name may carry the stem of the file its
//! kernel was compiled or read from (`kernel = "conv2d::transpose_filters_f32"` for
//! `conv2d.cu`, `conv2d.ptx` or `conv2d.sm_80.cubin`), and a name that several modules
//! define is an error listing the qualified choices.
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
//! 256 MiB for a cubin or fatbin, 16 MiB for a manifest and 1 MiB for a policy file; a
//! fatbin entry decompresses to at most 256 MiB, a fatbin's entries to 1 GiB in all.
//!
//! Cargo rebuilds the crate when a file read (manifest, cubin, fatbin) or
//! `OCCUPANCY_MANIFEST` changes (the expansion `include_bytes!`s the file and reads the
//! variable with `option_env!`); rust-analyzer does not re-expand on such a change.
//!
//! ## Constants the reader cannot evaluate
//!
//! A constant expression of the attribute the source reader cannot evaluate (a constant of
//! another crate, `size_of` of a non-primitive type; each must then be a `u32`) is left to
//! the compiler: the check runs in a generated `const` item, evaluated with the engine's
//! `const fn`s, for three lints: `launch_impossible` and a denied `low_occupancy` or
//! `partial_warp` fail the build with a const-evaluation error; a warned one warns (the
//! warning reads "use of deprecated associated function `...::Check::<true>::_low_occupancy`").
//! Their messages cannot carry the numbers or a fix, and say which name could not be read
//! and why. The other lints need known values and are not checked for such a wrapper.
//!
//! ## Policy: `occupancy.toml`
//!
//! Beside the crate's `Cargo.toml` (or at the path in the environment variable
//! `OCCUPANCY_POLICY`, absolute or relative to the crate's directory):
//!
//! ```toml
//! targets = ["sm_80", "sm_90"]   # default targets (without it: those build.rs compiles, else sm_80, sm_90)
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
//! errors with "did you mean"; a `manifest` naming a file that is not there is an error with
//! the path as written and where it was looked for. Each attribute reports the file's
//! problems in one error (every attribute of the crate reads the file). The attribute's own
//! values win over the policy. Cargo
//! rebuilds the crate when the file is edited or deleted or the variable changes; it cannot
//! know about a file that did not exist at the last build (after creating one, touch a
//! source file: cargo on stable has no way to watch for a new file without rerunning every
//! build), and rust-analyzer does not re-expand on a policy change.
//!
//! ## Cost
//!
//! None at run time: the wrapper's body is unchanged; the attribute adds one block
//! statement in front of it that holds only items and macro calls expanding to nothing.
#![deny(missing_docs)]

pub use occupancy_core::*;
pub use occupancy_macros::check;

/// What the attribute's expansion calls; not part of the API.
#[doc(hidden)]
pub mod __private {
    /// The compiler's answer to "is the expression the value the attribute read?", for
    /// [`confirm`]'s bound.
    pub struct Same<const SAME: bool>;

    /// Holds for [`Same`]`<true>` only: a value the attribute read from the crate's sources
    /// (`READ`) is the one the compiler computes.
    #[diagnostic::on_unimplemented(
        message = "#[occupancy::check] read this expression as {READ} from the crate's sources, but the compiler computes another value",
        label = "not {READ}: the check would be about another launch",
        note = "a name shadowed by an item the reader does not see (made by a macro?), or a constant that depends on #[cfg]; write the value in the attribute (`block = ...`, `smem = ...`) and the compiler checks the expression against it"
    )]
    pub trait Confirmed<const READ: i128> {}

    impl<const READ: i128> Confirmed<READ> for Same<true> {}

    /// Type-checks only when `SAME`: the expansion's confirmation of a value read from the
    /// crate's sources (`confirm::<{ EXPR == 16 }, 16>()`, in dead code: rustc evaluates the
    /// constant argument when it type-checks the wrapper, `cargo check` included).
    pub const fn confirm<const SAME: bool, const READ: i128>()
    where
        Same<SAME>: Confirmed<READ>,
    {
    }

    /// Holds for [`Same`]`<true>` only: the body's expression has the value the attribute's
    /// key states (`VALUE`), where the reader had read another.
    #[diagnostic::on_unimplemented(
        message = "the attribute of #[occupancy::check] says {VALUE} for this expression, but the compiler computes another value",
        label = "not {VALUE}",
        note = "the attribute must check the launch the body makes: make the key agree with the body, or remove it"
    )]
    pub trait Stated<const VALUE: i128> {}

    impl<const VALUE: i128> Stated<VALUE> for Same<true> {}

    /// [`confirm`] for a value the attribute states over the reader's.
    pub const fn confirm_stated<const SAME: bool, const VALUE: i128>()
    where
        Same<SAME>: Stated<VALUE>,
    {
    }

    /// Type-checks only when both arguments are the same function item (each function has
    /// its own type): the expansion's check that the helper the front end read is the one
    /// the body calls. Never called: it sits in dead code.
    pub const fn same_item<T>(_: &T, _: &T) {}
}
