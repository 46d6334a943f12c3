pub struct LaunchConfig { pub grid_dim: (u32, u32, u32), pub block_dim: (u32, u32, u32), pub shared_mem_bytes: u32 }
fn launch(_: LaunchConfig) {}
fn halve(n: u32) -> u32 { if n > 1024 { halve(n / 2) } else { n } }
#[occupancy::check(regs = 32)]
pub fn explode(a: u8, b: u8, c: u8, n: u32) {
    let x = match a { 0 => 1, 1 => 2, 2 => 3, _ => 4 };
    let y = match b { 0 => 1, 1 => 2, 2 => 3, 3 => 4, 4 => 5, 5 => 6, 6 => 7, _ => 8 };
    let z = match c { 0 => 1, 1 => 2, 2 => 3, _ => 4 };
    let mut k = 0u32;
    while k < n { k += n / 3; }
    let p = n.min(1024).next_power_of_two();
    let q = n.min(512).next_power_of_two();
    launch(LaunchConfig { grid_dim: (halve(n), 1, 1), block_dim: (32 * x * y * z + k, 1, 1), shared_mem_bytes: p * q });
}
