#![deny(deprecated)]

// Values chosen together stay together: one launch per path through the body, never a
// pairing the code cannot make. Each finding names its path by its values.
struct LaunchConfig {
    grid_dim: (u32, u32, u32),
    block_dim: (u32, u32, u32),
    shared_mem_bytes: u32,
}

struct Stream;
impl Stream {
    fn launch(&self, _: LaunchConfig) {}
}

enum DType {
    F16,
    F32,
    F64,
}

// A tuple bound from a `match`: (32, 1 warp), (128, 4 warps), (256, 8 warps).
#[occupancy::check(regs = 32, target = "sm_80")]
fn softmax(s: &Stream, dtype: DType, rows: u32) {
    let (block_dim, nwarps) = match dtype {
        DType::F16 => (32, 1),
        DType::F32 => (128, 4),
        DType::F64 => (256, 8),
    };
    s.launch(LaunchConfig { grid_dim: (rows, 1, 1), block_dim: (block_dim, 1, 1), shared_mem_bytes: nwarps * 32 * 4 });
}

// The same condition twice is one choice: (1024, 48 KiB) and (32, 128 B); never
// (32, 48 KiB), which would run at 4.69%.
#[occupancy::check(regs = 32, target = "sm_80")]
fn reduce(s: &Stream, n: u32, wide: bool) {
    let threads = if wide { 1024 } else { 32 };
    let smem = if wide { 48 * 1024 } else { 128 };
    s.launch(LaunchConfig { grid_dim: (n, 1, 1), block_dim: (threads, 1, 1), shared_mem_bytes: smem });
}

// A helper returning a struct: its values per arm.
struct Tiling {
    threads: u32,
    smem: u32,
}

fn tiling(dtype: DType) -> Tiling {
    match dtype {
        DType::F64 => Tiling { threads: 32, smem: 16384 },
        _ => Tiling { threads: 256, smem: 8192 },
    }
}

#[occupancy::check(regs = 32, target = "sm_80")]
fn tiled(s: &Stream, n: u32, dtype: DType) {
    let t = tiling(dtype);
    s.launch(LaunchConfig { grid_dim: (n, 1, 1), block_dim: (t.threads, 1, 1), shared_mem_bytes: t.smem });
}

// A parameter shadowed by a `let` of the same name: the `let` is what is launched.
fn launch_cfg<const NUM_THREADS: u32>(n: u32) -> LaunchConfig {
    LaunchConfig { grid_dim: (n.div_ceil(NUM_THREADS), 1, 1), block_dim: (NUM_THREADS, 1, 1), shared_mem_bytes: 0 }
}

#[occupancy::check(regs = 32, target = "sm_80")]
fn unary(s: &Stream, cfg: LaunchConfig, n: u32) {
    let _ = cfg;
    let cfg = launch_cfg::<32>(n);
    s.launch(cfg);
}

fn main() {
    let s = Stream;
    softmax(&s, DType::F32, 10);
    reduce(&s, 10, true);
    tiled(&s, 10, DType::F16);
    unary(&s, launch_cfg::<64>(1), 10);
}
