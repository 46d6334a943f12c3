// Every problem in the attribute is reported in one pass, the wrapper is still emitted
// (main can call it: no follow-on "cannot find function").
#[occupancy::check(blok = 256, regs = 32, regs = 40, smem = 8 kb, target = "sm_95", deny(low_ocupancy))]
fn launch() -> u32 {
    7
}

fn main() {
    assert_eq!(launch(), 7);
}
