//! Comparing a kernel's output with its CPU reference, and poisoning outputs so that an
//! element the kernel never wrote cannot pass for a correct one.

use std::fmt;

/// The value float outputs are filled with before a launch: NaN, which no kernel here
/// produces from the generated inputs and which poisons any sum it enters.
pub const POISON_F32: f32 = f32::NAN;

/// The value integer outputs are filled with before a launch: larger than any count the
/// examples can produce.
pub const POISON_U32: u32 = u32::MAX;

/// `‖out − reference‖₂ / ‖reference‖₂`, computed in `f64`. 0 when both are all zeros;
/// infinite when only the reference is; NaN when `out` holds a NaN.
///
/// # Panics
///
/// If the lengths differ.
pub fn relative_error<A, B>(out: &[A], reference: &[B]) -> f64
where
    A: Copy + Into<f64>,
    B: Copy + Into<f64>,
{
    assert_eq!(out.len(), reference.len(), "relative_error: lengths");
    let (mut diff, mut norm) = (0.0f64, 0.0f64);
    for (&o, &r) in out.iter().zip(reference) {
        let (o, r): (f64, f64) = (o.into(), r.into());
        diff += (o - r) * (o - r);
        norm += r * r;
    }
    if diff.is_nan() {
        f64::NAN
    } else if norm == 0.0 {
        if diff == 0.0 { 0.0 } else { f64::INFINITY }
    } else {
        (diff / norm).sqrt()
    }
}

/// Float outputs still NaN after the launch: never written (or a NaN computed).
pub fn unwritten_f32(out: &[f32]) -> usize {
    out.iter().filter(|v| v.is_nan()).count()
}

/// Integer outputs still [`POISON_U32`] after the launch.
pub fn unwritten_u32(out: &[u32]) -> usize {
    out.iter().filter(|&&v| v == POISON_U32).count()
}

/// One output of one launch checked against its reference.
#[derive(Clone, Debug, PartialEq)]
pub struct Comparison {
    /// What was compared, e.g. `sgemm_tiled C`.
    pub label: String,
    /// [`relative_error`] of the output.
    pub relative_error: f64,
    /// The largest relative error accepted.
    pub tolerance: f64,
    /// Output elements.
    pub elements: usize,
    /// Output elements still poisoned after the launch.
    pub unwritten: usize,
}

impl Comparison {
    /// Compares a float output (poisoned with [`POISON_F32`] before the launch).
    pub fn f32<B: Copy + Into<f64>>(
        label: &str,
        out: &[f32],
        reference: &[B],
        tolerance: f64,
    ) -> Self {
        Self {
            label: label.to_owned(),
            relative_error: relative_error(out, reference),
            tolerance,
            elements: out.len(),
            unwritten: unwritten_f32(out),
        }
    }

    /// Compares an integer output (poisoned with [`POISON_U32`] before the launch).
    pub fn u32(label: &str, out: &[u32], reference: &[u32], tolerance: f64) -> Self {
        Self {
            label: label.to_owned(),
            relative_error: relative_error(out, reference),
            tolerance,
            elements: out.len(),
            unwritten: unwritten_u32(out),
        }
    }

    /// Every element written and the error within tolerance (a NaN error fails).
    pub fn passed(&self) -> bool {
        self.unwritten == 0 && self.relative_error <= self.tolerance
    }
}

impl fmt::Display for Comparison {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: relative error {:.2e} (tolerance {:.0e}), {} of {} elements written: {}",
            self.label,
            self.relative_error,
            self.tolerance,
            self.elements - self.unwritten,
            self.elements,
            if self.passed() { "PASS" } else { "FAIL" }
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_error_known_values() {
        // ‖(3, 4) − (0, 0)‖ / ‖(3, 4)‖ = 1 with out = 0.
        assert_eq!(relative_error(&[0.0f32, 0.0], &[3.0f64, 4.0]), 1.0);
        // out = (3, 4.5): ‖(0, 0.5)‖ / 5 = 0.1.
        assert!((relative_error(&[3.0f32, 4.5], &[3.0f64, 4.0]) - 0.1).abs() < 1e-15);
        assert_eq!(relative_error(&[7u32, 9], &[7u32, 9]), 0.0);
        assert_eq!(relative_error::<f32, f64>(&[0.0], &[0.0]), 0.0);
        assert_eq!(relative_error::<f32, f64>(&[1.0], &[0.0]), f64::INFINITY);
        assert!(relative_error(&[f32::NAN, 1.0], &[1.0f64, 1.0]).is_nan());
    }

    #[test]
    fn poisoned_elements_fail_the_comparison() {
        let reference = [1.0f64, 2.0, 3.0];
        let ok = Comparison::f32("x", &[1.0, 2.0, 3.0], &reference, 1e-6);
        assert!(ok.passed());
        let missed = Comparison::f32("x", &[1.0, POISON_F32, 3.0], &reference, 1e-6);
        assert_eq!(missed.unwritten, 1);
        assert!(!missed.passed());
        let wrong = Comparison::f32("x", &[1.0, 2.1, 3.0], &reference, 1e-6);
        assert_eq!(wrong.unwritten, 0);
        assert!(!wrong.passed());
        let h = Comparison::u32("h", &[5, POISON_U32], &[5, 0], 0.0);
        assert_eq!(h.unwritten, 1);
        assert!(!h.passed());
    }
}
