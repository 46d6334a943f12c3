// Malformed input: every case is an error on its token, never a panic.
#[occupancy::check(block = = 3, regs = 32)]
fn a() {}
#[occupancy::check(block = 256 256, regs = 32)]
fn b() {}
#[occupancy::check(block = 256,, regs = 32)]
fn c() {}
#[occupancy::check(block = fn, regs = 32)]
fn d() {}
#[occupancy::check(block = 256, regs = 32, smem = 1e10 KiB)]
fn e() {}
#[occupancy::check(block = 256, regs = 32, target = [1, 2])]
fn f() {}
#[occupancy::check(block = ((16, 16)), regs = 32)]
fn g() {}
#[occupancy::check(block = 256, regs = 32, smem = 99999999999999999999999999999999999999999 KiB)]
fn h() {}
#[occupancy::check(block = 256, regs = 32, min_occupancy = 50 %%)]
fn i() {}
#[occupancy::check(block = 256, regs = 32, deny(low_occupancy = 1))]
fn j() {}
#[occupancy::check(block = 256; regs = 32)]
fn k() {}
#[occupancy::check(self = 3, block = 256, regs = 32)]
fn l() {}
#[occupancy::check(block::x = 1, regs = 32)]
fn m() {}
#[occupancy::check(block = 256, regs = 32, target = "sm_90" "sm_80")]
fn n() {}
#[occupancy::check(block = 4294967295, regs = 4294967295, smem = 4294967295, static_smem = 4294967295, target = "sm_90")]
fn o() {}
#[occupancy::check(block = (4294967295, 4294967295, 4294967295), regs = 32, target = "sm_90")]
fn p() {}
#[occupancy::check(block = 256, regs = 32, smem = 8 KiB KiB)]
fn q() {}
#[occupancy::check(block = 256, regs = 32, target = "sm_90", min_occupancy = 0.00001)]
fn r() {}
#[occupancy::check(block = 256, regs = 32, target = "\u{1F680}")]
fn s() {}

fn main() {
    a(); b(); c(); d(); e(); f(); g(); h(); i(); j(); k(); l(); m(); n(); o(); p(); q(); r(); s();
}
