//! The occupancy floor a policy sets: [`MinOccupancy`], exact in basis points.

use core::fmt;

use crate::occupancy::Occupancy;

/// A floor on theoretical occupancy, in basis points (hundredths of a percent, 0..=10000).
///
/// Integer so that comparisons are exact and usable in `const fn`: an occupancy of
/// `active / max` warps meets the floor when `active * 10000 >= basis_points * max`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct MinOccupancy {
    basis_points: u16,
}

/// A floor that is not a number between 0% and 100% with at most two decimals of a percent.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FloorError {
    /// What is wrong, one line, e.g. "150% is over 100%".
    pub message: String,
}

impl fmt::Display for FloorError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for FloorError {}

impl MinOccupancy {
    /// No floor (0%): `low_occupancy` never fires.
    pub const ZERO: Self = Self { basis_points: 0 };

    /// The built-in default floor, 50%.
    pub const DEFAULT: Self = Self { basis_points: 5000 };

    /// A floor of `basis_points` / 100 percent; `None` above 10000 (100%).
    pub const fn from_basis_points(basis_points: u16) -> Option<Self> {
        if basis_points > 10000 {
            None
        } else {
            Some(Self { basis_points })
        }
    }

    /// The floor in basis points (5000 = 50%).
    pub const fn basis_points(self) -> u16 {
        self.basis_points
    }

    /// Whether `occupancy` reaches the floor: active warps / max warps >= floor, exactly.
    pub const fn is_met_by(self, occupancy: &Occupancy) -> bool {
        self.is_met_by_warps(occupancy.active_warps_per_sm(), occupancy.max_warps_per_sm)
    }

    /// Whether `active_warps` of `max_warps` per SM reach the floor, exactly.
    pub const fn is_met_by_warps(self, active_warps: u32, max_warps: u32) -> bool {
        active_warps as u64 * 10000 >= self.basis_points as u64 * max_warps as u64
    }

    /// The fewest active warps per SM that reach the floor on an SM of `max_warps`.
    pub const fn warps_needed(self, max_warps: u32) -> u32 {
        (self.basis_points as u64 * max_warps as u64).div_ceil(10000) as u32
    }

    /// Parses a percentage written in decimal without the `%` sign: `"50"`, `"37.5"`,
    /// `"12.25"`.
    ///
    /// # Errors
    ///
    /// Not a decimal number, more than two decimals, or over 100.
    pub fn from_percent_str(digits: &str) -> Result<Self, FloorError> {
        let bp = decimal_scaled(digits, 2).ok_or_else(|| {
            error(format!(
                "`{digits}%` is not a percentage with at most two decimals"
            ))
        })?;
        Self::checked(bp, || format!("{digits}%"))
    }

    /// Parses a fraction of 1 written in decimal: `"0.5"`, `"0.375"`, `"1.0"`.
    ///
    /// # Errors
    ///
    /// Not a decimal number, finer than 0.0001, or over 1.
    pub fn from_fraction_str(digits: &str) -> Result<Self, FloorError> {
        let bp = decimal_scaled(digits, 4).ok_or_else(|| {
            error(format!(
                "`{digits}` is not a fraction with at most four decimals"
            ))
        })?;
        Self::checked(bp, || digits.to_owned())
    }

    /// From a fraction given as a float (a TOML value): `0.5` -> 50%.
    ///
    /// # Errors
    ///
    /// Not finite, negative, over 1, or finer than 0.0001.
    pub fn from_fraction_f64(fraction: f64) -> Result<Self, FloorError> {
        let scaled = fraction * 10000.0;
        let rounded = scaled.round();
        if !scaled.is_finite() || (scaled - rounded).abs() > 1e-6 || rounded < 0.0 {
            return Err(error(format!(
                "`{fraction}` is not a fraction between 0 and 1 with at most four decimals"
            )));
        }
        Self::checked(rounded as u64, || fraction.to_string())
    }

    fn checked(bp: u64, shown: impl Fn() -> String) -> Result<Self, FloorError> {
        if bp > 10000 {
            return Err(error(format!("{} is over 100%", shown())));
        }
        Ok(Self {
            basis_points: bp as u16,
        })
    }
}

impl Default for MinOccupancy {
    fn default() -> Self {
        Self::DEFAULT
    }
}

impl fmt::Display for MinOccupancy {
    /// `50%`, `37.5%`, `12.25%`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (whole, hundredths) = (self.basis_points / 100, self.basis_points % 100);
        match hundredths {
            0 => write!(f, "{whole}%"),
            h if h % 10 == 0 => write!(f, "{whole}.{}%", h / 10),
            h => write!(f, "{whole}.{h:02}%"),
        }
    }
}

fn error(message: String) -> FloorError {
    FloorError { message }
}

/// `digits` (`"37.5"`, `"50"`, `"0.375"`) times 10^`scale`, if it is a plain non-negative
/// decimal with at most `scale` decimals and fits.
fn decimal_scaled(digits: &str, scale: u32) -> Option<u64> {
    let digits = digits.replace('_', "");
    let (whole, frac) = match digits.split_once('.') {
        Some((w, f)) => (w, f),
        None => (digits.as_str(), ""),
    };
    let all_digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    if whole.is_empty() || !all_digits(whole) || !all_digits(frac) || whole.len() > 6 {
        return None;
    }
    let frac = frac.trim_end_matches('0');
    if frac.len() > scale as usize {
        return None;
    }
    let whole: u64 = whole.parse().ok()?;
    let mut frac_value: u64 = if frac.is_empty() {
        0
    } else {
        frac.parse().ok()?
    };
    for _ in frac.len()..scale as usize {
        frac_value *= 10;
    }
    Some(whole * 10u64.pow(scale) + frac_value)
}

/// Theoretical occupancy as a percentage for messages, `active_warps` of `max_warps`:
/// `37.5%`, `75%`, `2.08%` (two decimals at most, rounded half up, trailing zeros dropped;
/// `0%` when `max_warps` is 0).
pub fn percent(active_warps: impl Into<u64>, max_warps: impl Into<u64>) -> String {
    let (active, max) = (
        u128::from(active_warps.into()),
        u128::from(max_warps.into()),
    );
    if max == 0 {
        return "0%".into();
    }
    // Hundredths of a percent, rounded half up, in integers.
    let hundredths = (active * 10000 * 2 + max) / (2 * max);
    let (whole, frac) = (hundredths / 100, hundredths % 100);
    match frac {
        0 => format!("{whole}%"),
        f if f % 10 == 0 => format!("{whole}.{}%", f / 10),
        f => format!("{whole}.{f:02}%"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_percent_and_fraction_exactly() {
        assert_eq!(
            MinOccupancy::from_percent_str("50").unwrap().basis_points(),
            5000
        );
        assert_eq!(
            MinOccupancy::from_percent_str("37.5")
                .unwrap()
                .basis_points(),
            3750
        );
        assert_eq!(
            MinOccupancy::from_percent_str("12.25")
                .unwrap()
                .basis_points(),
            1225
        );
        assert_eq!(
            MinOccupancy::from_fraction_str("0.375")
                .unwrap()
                .basis_points(),
            3750
        );
        assert_eq!(
            MinOccupancy::from_fraction_str("1.0")
                .unwrap()
                .basis_points(),
            10000
        );
        assert_eq!(
            MinOccupancy::from_fraction_f64(0.5).unwrap().basis_points(),
            5000
        );
        assert_eq!(
            MinOccupancy::from_fraction_f64(0.3).unwrap().basis_points(),
            3000
        );
        assert!(MinOccupancy::from_percent_str("12.345").is_err());
        assert!(MinOccupancy::from_percent_str("101").is_err());
        assert!(MinOccupancy::from_fraction_str("1.5").is_err());
        assert!(MinOccupancy::from_fraction_f64(-0.1).is_err());
        assert!(MinOccupancy::from_fraction_f64(f64::NAN).is_err());
        assert!(MinOccupancy::from_percent_str("").is_err());
        assert!(MinOccupancy::from_percent_str("1e3").is_err());
    }

    #[test]
    fn floor_is_exact_at_the_boundary() {
        let half = MinOccupancy::DEFAULT;
        assert!(half.is_met_by_warps(32, 64));
        assert!(!half.is_met_by_warps(31, 64));
        assert!(half.is_met_by_warps(24, 48));
        assert_eq!(half.warps_needed(64), 32);
        assert_eq!(half.warps_needed(48), 24);
        let third = MinOccupancy::from_percent_str("33.33").unwrap();
        assert_eq!(third.warps_needed(64), 22); // 21.33 warps -> 22
    }

    #[test]
    fn displays() {
        assert_eq!(MinOccupancy::DEFAULT.to_string(), "50%");
        assert_eq!(
            MinOccupancy::from_percent_str("37.5").unwrap().to_string(),
            "37.5%"
        );
        assert_eq!(
            MinOccupancy::from_percent_str("12.05").unwrap().to_string(),
            "12.05%"
        );
        assert_eq!(percent(24u32, 64u32), "37.5%");
        assert_eq!(percent(48u32, 64u32), "75%");
        assert_eq!(percent(1u32, 48u32), "2.08%");
        assert_eq!(percent(1u32, 64u32), "1.56%");
        assert_eq!(percent(12u32, 64u32), "18.75%");
    }
}
