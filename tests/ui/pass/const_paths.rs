#![deny(warnings)]

const BLOCK: u32 = 256;
const TILE: u32 = 16;
const REGS: u32 = 32;
const SMEM_BYTES: u32 = 8 * 1024;

mod config {
    pub const THREADS: u32 = 128;
}

// Constants read from the file, each value confirmed by the compiler in a generated const.
#[occupancy::check(block = BLOCK, regs = REGS, smem = SMEM_BYTES)]
fn launch_paths() {}

#[occupancy::check(block = (TILE, TILE), regs = 32, smem = TILE * TILE * 4)]
fn launch_exprs() {}

#[occupancy::check(block = config::THREADS, regs = 32, opt_in = 64 * 1024, smem = 16 * 1024, max_threads = config::THREADS)]
fn launch_module_path() {}

// A partial-warp block allowed, as a constant.
#[occupancy::check(block = BLOCK - 56, regs = REGS, allow(partial_warp))]
fn launch_partial_allowed() {}

struct S;
impl S {
    #[occupancy::check(block = BLOCK, regs = REGS, barriers = 1 + 1)]
    fn method<T>(&self, _t: T) {}
}

fn main() {
    launch_paths();
    launch_exprs();
    launch_module_path();
    launch_partial_allowed();
    S.method(1);
    launch_unread();
}

// What the front end cannot read stays on the compile-time path: the compiler checks it.
const FROM_CORE: u32 = core::mem::size_of::<[u8; 256]>() as u32;

#[occupancy::check(block = FROM_CORE, regs = REGS)]
fn launch_unread() {}
