pub struct LaunchConfig { pub grid_dim: (u32, u32, u32), pub block_dim: (u32, u32, u32), pub shared_mem_bytes: u32 }
pub struct Stream;
impl Stream { pub fn launch(&self, _: LaunchConfig) {} }
pub const WARP_SIZE: usize = 32;
pub const MAX_BLOCK: u32 = 1024;
pub struct Dev;
pub struct Module;
pub const QUANTIZED: Module = Module;
pub struct Func;
impl Func { pub fn builder(&self) -> Builder { Builder } }
pub struct Builder;
impl Builder { pub fn launch(&mut self, _: LaunchConfig) -> Result<(), ()> { Ok(()) } }
impl Dev { pub fn get_or_load_func(&self, _: &str, _: &Module) -> Result<Func, ()> { Ok(Func) } }
#[occupancy::check(regs = 32, target = "sm_80")]
pub fn gemv(dev: &Dev, wide: bool, tile: usize, n: u32) -> Result<(), ()> {
    let (rows, block) = if wide { (16, 256) } else { (4, 64) };
    let name = format!("gemv_{rows:02}_{:#x}_{tile:>3}_{:.*}", block, 2, 1);
    match tile { 1..=3 => {} _ => return Err(()) }
    let func = dev.get_or_load_func(&name, &QUANTIZED)?;
    func.builder().launch(LaunchConfig { grid_dim: (n, 1, 1), block_dim: (block as u32, 1, 1), shared_mem_bytes: 0 })?;
    Ok(())
}
