// The reader's bounds, each an error on the construct it concerns, never a guess: more paths
// than it follows, a loop whose exit it cannot bound, a helper that calls itself, two sets of
// run-time values from one input whose pairs it cannot tell, two conditions on one input
// of which it cannot apply one.
struct LaunchConfig {
    grid_dim: (u32, u32, u32),
    block_dim: (u32, u32, u32),
    shared_mem_bytes: u32,
}

struct Stream;
impl Stream {
    fn launch(&self, _: LaunchConfig) {}
}

// 4 x 8 x 4 = 128 combinations of arms, each its own block: more than 64 paths.
#[occupancy::check(regs = 32, target = "sm_80")]
fn explode(s: &Stream, a: u8, b: u8, c: u8) {
    let x = match a { 0 => 1, 1 => 2, 2 => 3, _ => 4 };
    let y = match b { 0 => 1, 1 => 2, 2 => 3, 3 => 4, 4 => 5, 5 => 6, 6 => 7, _ => 8 };
    let z = match c { 0 => 1, 1 => 2, 2 => 3, _ => 4 };
    s.launch(LaunchConfig { grid_dim: (1, 1, 1), block_dim: (32 * x * y * z, 1, 1), shared_mem_bytes: 0 });
}

// The step depends on the data: no bound the reader can see.
#[occupancy::check(regs = 32, target = "sm_80")]
fn unbounded(s: &Stream, n: u32) {
    let mut b = 32;
    while b < n {
        b += n / 3;
    }
    s.launch(LaunchConfig { grid_dim: (1, 1, 1), block_dim: (b, 1, 1), shared_mem_bytes: 0 });
}

fn halve(n: u32) -> u32 {
    if n > 1024 { halve(n / 2) } else { 256 }
}

#[occupancy::check(regs = 32, target = "sm_80")]
fn recursive(s: &Stream, n: u32) {
    s.launch(LaunchConfig { grid_dim: (1, 1, 1), block_dim: (halve(n), 1, 1), shared_mem_bytes: 0 });
}

// Two sets from `n`: (1024, 512 x 4) is a pair the code makes, (1, 512 x 4) is not.
#[occupancy::check(regs = 32, target = "sm_80")]
fn unrelated(s: &Stream, n: u32) {
    let block = n.min(1024).next_power_of_two();
    let cols = n.min(512).next_power_of_two();
    s.launch(LaunchConfig { grid_dim: (1, 1, 1), block_dim: (block, 1, 1), shared_mem_bytes: cols * 4 });
}

// `n * 3 == 256` says nothing the reader can keep of `n`: (64, 40000) would pair its way
// with the other test's, which no run does.
#[occupancy::check(regs = 32, target = "sm_80")]
fn two_tests(s: &Stream, n: u32) {
    let b = if n * 3 == 256 { 64 } else { 1024 };
    let smem = if n < 256 { 0 } else { 40000 };
    s.launch(LaunchConfig { grid_dim: (1, 1, 1), block_dim: (b, 1, 1), shared_mem_bytes: smem });
}

fn main() {
    explode(&Stream, 0, 0, 0);
    unbounded(&Stream, 100);
    recursive(&Stream, 100);
    unrelated(&Stream, 100);
    two_tests(&Stream, 100);
}
