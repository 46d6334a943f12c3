//! Deterministic input generation: the same seed gives the same input on every machine, so a
//! failure on the GPU can be replayed on the CPU.

/// SplitMix64 (Steele, Lea, Flood, "Fast splittable pseudorandom number generators",
/// OOPSLA 2014): a 64-bit state, one add and three xor-shift-multiplies per output. Not for
/// cryptography; for test inputs it is fast, tiny and fixed forever (a library generator
/// may change its stream between versions).
#[derive(Clone, Debug)]
pub struct Rng {
    state: u64,
}

impl Rng {
    /// A generator seeded with `seed`.
    pub const fn new(seed: u64) -> Self {
        Self { state: seed }
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in `[0, 1)`, 24 random bits (every value exactly representable in `f32`).
    pub fn unit_f32(&mut self) -> f32 {
        (self.next_u64() >> 40) as f32 * (1.0 / (1u32 << 24) as f32)
    }

    /// Uniform in `[lo, hi)` but never within 2^-10 of zero: a zero input hides bugs (an
    /// unwritten output, a missing term), so none is generated.
    pub fn nonzero_f32(&mut self, lo: f32, hi: f32) -> f32 {
        loop {
            let v = lo + (hi - lo) * self.unit_f32();
            if v.abs() >= 1.0 / 1024.0 {
                return v;
            }
        }
    }
}

/// `n` floats uniform in `[lo, hi)`, none within 2^-10 of zero ([`Rng::nonzero_f32`]).
///
/// # Panics
///
/// If `[lo, hi)` holds no value at least 2^-10 away from zero (it would never return).
pub fn floats(seed: u64, n: usize, lo: f32, hi: f32) -> Vec<f32> {
    assert!(
        lo.abs().max(hi.abs()) > 1.0 / 1024.0 && lo < hi,
        "[{lo}, {hi}) has no value away from zero"
    );
    let mut rng = Rng::new(seed);
    (0..n).map(|_| rng.nonzero_f32(lo, hi)).collect()
}

/// `n` bytes over 0..=255, skewed: half of the draws at or above `skew_below` are folded
/// into `0..skew_below`, so about half the bytes are low and histogram bins do not all hold
/// about the same count. `skew_below == 0`: uniform.
pub fn bytes(seed: u64, n: usize, skew_below: u8) -> Vec<u8> {
    let mut rng = Rng::new(seed);
    (0..n)
        .map(|_| {
            let r = rng.next_u64();
            let b = r as u8;
            if r >> 63 == 1 && b >= skew_below && skew_below > 0 {
                ((r >> 8) % skew_below as u64) as u8
            } else {
                b
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splitmix64_matches_the_reference_stream() {
        // First outputs of SplitMix64 seeded with 1234567 (the reference implementation
        // by Vigna, splitmix64.c).
        let mut rng = Rng::new(1_234_567);
        assert_eq!(rng.next_u64(), 6_457_827_717_110_365_317);
        assert_eq!(rng.next_u64(), 3_203_168_211_198_807_973);
        assert_eq!(rng.next_u64(), 9_817_491_932_198_370_423);
    }

    #[test]
    fn same_seed_same_floats_and_no_zeros() {
        let a = floats(7, 10_000, -1.0, 1.0);
        assert_eq!(a, floats(7, 10_000, -1.0, 1.0));
        assert_ne!(a, floats(8, 10_000, -1.0, 1.0));
        assert!(
            a.iter()
                .all(|v| v.abs() >= 1.0 / 1024.0 && (-1.0..1.0).contains(v))
        );
        // Both signs show up.
        assert!(a.iter().any(|v| *v < 0.0) && a.iter().any(|v| *v > 0.0));
    }

    #[test]
    fn skewed_bytes_favour_low_values() {
        let b = bytes(3, 100_000, 16);
        let low = b.iter().filter(|&&v| v < 16).count();
        // Uniform would give 1/16 = 6250; half the draws go low, so about 50000 + 3125.
        assert!((50_000..56_000).contains(&low), "{low}");
        assert!(b.contains(&0) && b.contains(&255));
    }
}
