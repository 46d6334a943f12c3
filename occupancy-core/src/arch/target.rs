//! Parsing what users write for a target: `sm_90`, `sm_90a`, `9.0`, `90`, `H100`, `RTX 4090`.

use core::fmt;

use super::{ARCHS, Arch, ComputeCapability, GPUS, Gpu};

/// The suffix of an architecture-specific target (`sm_90a`, `sm_100f`).
///
/// It changes which instructions the compiled code may use, never the occupancy limits.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ArchVariant {
    /// `sm_90`: runs on this and later compute capabilities.
    Generic,
    /// `sm_90a`: architecture-specific features, runs on exactly this cc.
    Specific,
    /// `sm_100f`: family-specific features (CUDA 12.9+), runs on the family.
    Family,
}

/// A target the linter evaluates a launch for: a compute capability, optionally a named GPU
/// (which adds the SM count).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Target {
    /// The compute capability's limits.
    pub arch: &'static Arch,
    /// `a` / `f` suffix, if the user wrote one.
    pub variant: ArchVariant,
    /// The named part, when the target was given as a GPU name.
    pub gpu: Option<&'static Gpu>,
}

impl Target {
    /// A generic target for a compute capability row.
    pub const fn from_arch(arch: &'static Arch) -> Self {
        Self {
            arch,
            variant: ArchVariant::Generic,
            gpu: None,
        }
    }

    /// A target for a named GPU.
    pub const fn from_gpu(gpu: &'static Gpu) -> Self {
        Self {
            arch: gpu.arch,
            variant: ArchVariant::Generic,
            gpu: Some(gpu),
        }
    }

    /// SMs on the GPU, when the target names one.
    pub const fn sm_count(&self) -> Option<u32> {
        match self.gpu {
            Some(gpu) => Some(gpu.sm_count),
            None => None,
        }
    }

    /// Parses a target.
    ///
    /// Accepted, case-insensitive: `sm_90`, `sm90`, `compute_90`, `sm_90a`, `sm_100f`, `9.0`,
    /// `90`, `10.3`, `103` (the last digit is the minor version), `sm_101` (CUDA 12.9's name
    /// for cc 11.0), and GPU names and aliases from [`GPUS`] ignoring case, spaces, dashes,
    /// underscores and the words NVIDIA, GeForce, Tesla and Quadro (`H100`, `h100-sxm`,
    /// `RTX 4090`, `nvidia geforce rtx 4090`).
    ///
    /// # Errors
    ///
    /// [`TargetError`] names the input and lists up to three close known names.
    pub fn parse(input: &str) -> Result<Self, TargetError> {
        let trimmed = input.trim();
        if let Some(result) = parse_compute_capability(trimmed) {
            return result.map_err(|cc| TargetError::unknown_cc(input, cc));
        }
        let key = normalize(trimmed);
        if !key.is_empty()
            && let Some(gpu) = spellings()
                .iter()
                .filter(|(normalised, _, _)| *normalised == key)
                .find_map(|(_, _, canonical)| GPUS.iter().find(|gpu| gpu.name == *canonical))
        {
            return Ok(Self::from_gpu(gpu));
        }
        Err(TargetError::unknown_name(input))
    }
}

impl fmt::Display for Target {
    /// `sm_90a` for a compute capability, the GPU's name for a named part.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(gpu) = self.gpu {
            return f.write_str(gpu.name);
        }
        f.write_str(self.arch.sm)?;
        match self.variant {
            ArchVariant::Generic => Ok(()),
            ArchVariant::Specific => f.write_str("a"),
            ArchVariant::Family => f.write_str("f"),
        }
    }
}

impl core::str::FromStr for Target {
    type Err = TargetError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::parse(s)
    }
}

/// A target string that names no known compute capability or GPU.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TargetError {
    /// What the user wrote.
    pub input: String,
    /// The compute capability it parsed to, when it had the shape of one (`sm_95` -> 9.5).
    pub compute_capability: Option<ComputeCapability>,
    /// Up to three known targets closest to the input, best first.
    pub suggestions: Vec<&'static str>,
}

impl TargetError {
    /// Suggests the nearest known compute capabilities below and above `cc`: a digit swap
    /// (`sm_35` -> `sm_53`) is not a near miss, the next architecture is.
    fn unknown_cc(input: &str, cc: ComputeCapability) -> Self {
        let below = ARCHS.iter().filter(|a| a.cc < cc).max_by_key(|a| a.cc);
        let above = ARCHS.iter().filter(|a| a.cc > cc).min_by_key(|a| a.cc);
        let suggestions = below.into_iter().chain(above).map(|a| a.sm).collect();
        Self {
            input: input.to_owned(),
            compute_capability: Some(cc),
            suggestions,
        }
    }

    fn unknown_name(input: &str) -> Self {
        Self {
            input: input.to_owned(),
            compute_capability: None,
            suggestions: closest(input),
        }
    }
}

impl fmt::Display for TargetError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.compute_capability {
            Some(cc) => write!(f, "unknown compute capability {cc} (`{}`)", self.input)?,
            None => write!(f, "unknown target `{}`", self.input)?,
        }
        match self.suggestions.as_slice() {
            [] => write!(
                f,
                "; known: sm_50 .. sm_121 or a GPU name such as H100 (`cargo occupancy targets` lists them)"
            ),
            [one] => write!(f, "; did you mean `{one}`?"),
            many => {
                f.write_str("; did you mean ")?;
                for (i, name) in many.iter().enumerate() {
                    let sep = match i {
                        0 => "",
                        i if i + 1 == many.len() => " or ",
                        _ => ", ",
                    };
                    write!(f, "{sep}`{name}`")?;
                }
                f.write_str("?")
            }
        }
    }
}

impl std::error::Error for TargetError {}

/// `Some(Ok(row))` for a known cc, `Some(Err(cc))` for a cc-shaped input the table lacks,
/// `None` when the input is not cc-shaped at all.
fn parse_compute_capability(input: &str) -> Option<Result<Target, ComputeCapability>> {
    let lower = input.to_ascii_lowercase();
    let rest = ["sm_", "sm", "compute_", "cc"]
        .iter()
        .find_map(|prefix| lower.strip_prefix(prefix))
        .unwrap_or(&lower)
        .trim();
    let (digits, variant) = match rest.as_bytes().last()? {
        b'a' => (&rest[..rest.len() - 1], ArchVariant::Specific),
        b'f' => (&rest[..rest.len() - 1], ArchVariant::Family),
        _ => (rest, ArchVariant::Generic),
    };
    let cc = if let Some((major, minor)) = digits.split_once('.') {
        ComputeCapability::new(small_number(major)?, small_number(minor)?)
    } else {
        // ASCII digits only: the split below is a byte index (`sٖ` has 3 bytes, 2 chars).
        if digits.len() < 2 || digits.len() > 3 || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        let (major, minor) = digits.split_at(digits.len() - 1);
        ComputeCapability::new(small_number(major)?, small_number(minor)?)
    };
    // CUDA 12.9 and earlier call Thor sm_101; CUDA 13.0 renamed it sm_110.
    let cc = if cc == ComputeCapability::new(10, 1) {
        ComputeCapability::new(11, 0)
    } else {
        cc
    };
    Some(match Arch::from_cc(cc) {
        Some(arch) => Ok(Target {
            arch,
            variant,
            gpu: None,
        }),
        None => Err(cc),
    })
}

fn small_number(s: &str) -> Option<u8> {
    if s.is_empty() || s.len() > 2 || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}

/// Lowercase ASCII letters and digits only, without brand words.
fn normalize(name: &str) -> String {
    let mut words: Vec<String> = name
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_ascii_lowercase)
        .collect();
    words.retain(|w| !matches!(w.as_str(), "nvidia" | "geforce" | "tesla" | "quadro"));
    words.concat()
}

/// The longest input, in characters once normalised, that gets suggestions: the longest
/// GPU name normalises to 19. Jaro-Winkler is quadratic in the length, and a garbage target
/// of 4 KB (a fuzzed `batch` row, a policy full of them) took milliseconds per target.
const MAX_SUGGESTED_CHARS: usize = 64;

/// Every accepted spelling, normalised once: `(normalised, spelling, canonical name)`.
fn spellings() -> &'static [(String, &'static str, &'static str)] {
    static SPELLINGS: std::sync::OnceLock<Vec<(String, &'static str, &'static str)>> =
        std::sync::OnceLock::new();
    SPELLINGS.get_or_init(|| {
        let gpu_names = GPUS.iter().flat_map(|gpu| {
            core::iter::once((gpu.name, gpu.name))
                .chain(gpu.aliases.iter().map(move |alias| (*alias, gpu.name)))
        });
        ARCHS
            .iter()
            .map(|arch| (arch.sm, arch.sm))
            .chain(gpu_names)
            .map(|(spelling, canonical)| (normalize(spelling), spelling, canonical))
            .collect()
    })
}

/// Up to three targets closest to `input`, one per canonical name, each shown in its
/// closest accepted spelling (`H1000` -> `H100`, not `H100 80GB HBM3`); none for an input
/// over [`MAX_SUGGESTED_CHARS`].
fn closest(input: &str) -> Vec<&'static str> {
    let key = normalize(input);
    if key.len() > MAX_SUGGESTED_CHARS {
        return Vec::new();
    }
    let mut scored: Vec<(f64, &'static str, &'static str)> = spellings()
        .iter()
        .map(|(normalised, spelling, canonical)| {
            (
                strsim::jaro_winkler(&key, normalised),
                *spelling,
                *canonical,
            )
        })
        .filter(|(score, _, _)| *score > 0.7)
        .collect();
    // Best first; among equal scores the shortest spelling (`RTX 4090` and `GeForce RTX
    // 4090` normalise alike), then the table's order (the sort is stable).
    scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.len().cmp(&b.1.len())));
    let mut seen: Vec<&'static str> = Vec::new();
    let mut out: Vec<&'static str> = Vec::new();
    for (_, spelling, canonical) in scored {
        if !seen.contains(&canonical) {
            seen.push(canonical);
            out.push(spelling);
        }
        if out.len() == 3 {
            break;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sm(input: &str) -> String {
        Target::parse(input)
            .map(|t| t.to_string())
            .unwrap_or_else(|e| e.to_string())
    }

    #[test]
    fn compute_capability_spellings() {
        assert_eq!(sm("sm_90"), "sm_90");
        assert_eq!(sm("SM90"), "sm_90");
        assert_eq!(sm("sm_90a"), "sm_90a");
        assert_eq!(sm("sm_100f"), "sm_100f");
        assert_eq!(sm("compute_80"), "sm_80");
        assert_eq!(sm("9.0"), "sm_90");
        assert_eq!(sm("90"), "sm_90");
        assert_eq!(sm("10.3"), "sm_103");
        assert_eq!(sm("121"), "sm_121");
        assert_eq!(sm("sm_101"), "sm_110");
        assert_eq!(sm("7.5"), "sm_75");
    }

    #[test]
    fn gpu_names() {
        let h100 = Target::parse("H100").unwrap();
        assert_eq!(h100.gpu.unwrap().sm_count, 132);
        assert_eq!(h100.arch.cc, ComputeCapability::new(9, 0));
        assert_eq!(Target::parse("h100-sxm").unwrap(), h100);
        assert_eq!(Target::parse("NVIDIA H100 80GB HBM3").unwrap(), h100);
        assert_eq!(Target::parse("H100 PCIe").unwrap().sm_count(), Some(114));
        let rtx = Target::parse("RTX 4090").unwrap();
        assert_eq!((rtx.arch.sm, rtx.sm_count()), ("sm_89", Some(128)));
        assert_eq!(Target::parse("nvidia geforce rtx 4090").unwrap(), rtx);
        assert_eq!(Target::parse("a100").unwrap().sm_count(), Some(108));
    }

    #[test]
    fn long_garbage_gets_no_suggestions_and_no_quadratic_time() {
        let longest = spellings().iter().map(|(n, _, _)| n.len()).max().unwrap();
        assert!(longest <= MAX_SUGGESTED_CHARS, "{longest}");
        assert_eq!(longest, 19, "the const's comment");
        let garbage = "h100x".repeat(1_000);
        let err = Target::parse(&garbage).unwrap_err();
        assert!(err.suggestions.is_empty());
        assert!(
            err.to_string()
                .ends_with("; known: sm_50 .. sm_121 or a GPU name such as H100 (`cargo occupancy targets` lists them)")
        );
    }

    #[test]
    fn unknown_names_suggest_close_ones() {
        let err = Target::parse("H1000").unwrap_err();
        assert_eq!(err.compute_capability, None);
        assert_eq!(err.suggestions[0], "H100", "{err}");
        // Each suggestion is a spelling that parses.
        for name in &err.suggestions {
            assert!(Target::parse(name).is_ok(), "{name}");
        }
        let err = Target::parse("H10").unwrap_err();
        assert_eq!(err.suggestions[0], "H100", "{err}");
        // An unknown compute capability suggests its neighbours, not digit swaps.
        assert_eq!(
            Target::parse("sm_95").unwrap_err().suggestions,
            ["sm_90", "sm_100"]
        );
        assert_eq!(Target::parse("sm_35").unwrap_err().suggestions, ["sm_50"]);
        assert_eq!(Target::parse("sm_130").unwrap_err().suggestions, ["sm_121"]);
        let err = Target::parse("sm_95").unwrap_err();
        assert_eq!(err.compute_capability, Some(ComputeCapability::new(9, 5)));
        assert!(
            err.to_string()
                .starts_with("unknown compute capability 9.5 (`sm_95`)"),
            "{err}"
        );
        let err = Target::parse("RTX 4900").unwrap_err();
        assert_eq!(err.suggestions[0], "RTX 4090", "{err}");
        assert!(Target::parse("").is_err());
        assert!(Target::parse("sm_").is_err());
    }
}
