// Paths that lead out of the crate are errors naming the rule and where they led, before a
// byte is read; so is a FIFO (tests/ui.rs makes fixtures/fifo.cubin, and
// fixtures/outside.cubin, a link to /etc/hostname), which would block the build.
#[occupancy::check(cubin = "/etc/passwd", kernel = "k_plain", block = 256)]
fn absolute() {}

#[occupancy::check(cubin = "../../../../../../../../../../../../etc/hostname", kernel = "k_plain", block = 256)]
fn parent() {}

#[occupancy::check(cubin = "fixtures/outside.cubin", kernel = "k_plain", block = 256)]
fn link_out() {}

#[occupancy::check(cubin = "/dev/zero", kernel = "k_plain", block = 256)]
fn device() {}

#[occupancy::check(fatbin = "fixtures/fifo.cubin", kernel = "k_plain", block = 256)]
fn fifo() {}

#[occupancy::check(cubin = "fixtures", kernel = "k_plain", block = 256)]
fn directory() {}

fn main() {
    absolute();
    parent();
    link_out();
    device();
    fifo();
    directory();
}
