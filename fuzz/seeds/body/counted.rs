pub struct LaunchConfig { pub grid_dim: (u32, u32, u32), pub block_dim: (u32, u32, u32), pub shared_mem_bytes: u32 }
fn launch(_: LaunchConfig) {}
fn narrow(n: u32) -> u32 { if (n as u8) < 100 { 64 } else { 1024 } }
#[occupancy::check(regs = 32)]
pub fn tiles(ncols: u32, rows: u64) {
    let mut best = 0u32;
    let mut tiles_best = u32::MAX;
    let mut x = 8u32;
    while x <= 128 && tiles_best > 1 {
        let gran = if x >= 48 { 16 } else { 8 };
        if x % gran == 0 {
            let t = (ncols + x - 1) / x;
            if t < tiles_best { best = x; tiles_best = t; }
        }
        x += 8;
    }
    let b = narrow(rows as u32);
    let smem = if ncols < 100 { 0 } else { best * 128 };
    launch(LaunchConfig { grid_dim: (tiles_best, 1, 1), block_dim: (b, 1, 1), shared_mem_bytes: smem });
}
