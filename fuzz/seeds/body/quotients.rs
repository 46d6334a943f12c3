pub struct LaunchConfig { pub grid_dim: (u32, u32, u32), pub block_dim: (u32, u32, u32), pub shared_mem_bytes: u32 }
pub struct Stream;
impl Stream { pub fn launch(&self, _: LaunchConfig) {} }
fn pick(k: u32) -> u32 {
    let half = k / 2;
    if half <= 32 { return 32; }
    if (half + 1) / 3 <= 64 { return 64; }
    256
}
#[occupancy::check(regs = 32, target = "sm_80")]
pub fn halves(s: &Stream, k: u32, m: u32) {
    let mut block = pick(k);
    let mut i = 0;
    while i < m / 7 {
        'inner: loop { if k / 4 < 8 { block = 128; break 'inner; } block = 512; break; }
        'b: { if i > 3 { break 'b; } i += 1; }
        i += 2;
    }
    let quarter = -(k as i64) / 4;
    let smem = if quarter > -16 { 1024 } else { 4096 };
    s.launch(LaunchConfig { grid_dim: (k, 1, 1), block_dim: (block, 1, 1), shared_mem_bytes: smem });
}
