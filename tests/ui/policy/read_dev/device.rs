// With /dev allowed by the policy's `read_paths`, /dev/zero is still refused before a byte
// is read: it is not a regular file (it would be read until memory runs out).
#[occupancy::check(cubin = "/dev/zero", kernel = "k_plain", block = 256)]
fn device() {}

fn main() {
    device();
}
