// The sort style: the padded row decides both the block (capped at 1024 threads) and the
// shared memory (4 bytes per padded column). Each launch pairs them as the code does: the
// one launch that cannot run is (1024 threads, 64 KiB) for rows of 8193 to 16384 columns,
// never (32 threads, 64 KiB).
struct LaunchConfig {
    grid_dim: (u32, u32, u32),
    block_dim: (u32, u32, u32),
    shared_mem_bytes: u32,
}

struct Stream;
impl Stream {
    fn launch(&self, _: LaunchConfig) {}
}

#[occupancy::check(regs = 32, target = "sm_80", allow(partial_warp, block_limit))]
fn sort_rows(s: &Stream, nrows: u32, ncols: u32) {
    if ncols > 16384 {
        return;
    }
    let ncols_pad = ncols.next_power_of_two();
    let cfg = LaunchConfig {
        grid_dim: (1, nrows, 1),
        block_dim: (ncols_pad.min(1024), 1, 1),
        shared_mem_bytes: ncols_pad * 4,
    };
    s.launch(cfg);
}

// Keys where the body states the values are drift, even when they are among them.
#[occupancy::check(regs = 32, target = "sm_80", block = [32, 1024], smem = [128, 64 KiB])]
fn sort_keyed(s: &Stream, nrows: u32, ncols: u32) {
    if ncols > 16384 {
        return;
    }
    let ncols_pad = ncols.next_power_of_two();
    s.launch(LaunchConfig { grid_dim: (1, nrows, 1), block_dim: (ncols_pad.min(1024), 1, 1), shared_mem_bytes: ncols_pad * 4 });
}

fn main() {
    sort_rows(&Stream, 1, 100);
    sort_keyed(&Stream, 1, 100);
}
