//! Value parsers for command-line arguments: targets, block shapes, byte sizes, carveouts.

use occupancy_core::arch::Target;
use occupancy_core::lint::{KernelClass, MinOccupancy};
use occupancy_core::occupancy::{BlockDim, Carveout};

/// A target: `sm_90`, `9.0`, `H100`, `RTX 4090`...
pub fn target(s: &str) -> Result<Target, String> {
    Target::parse(s).map_err(|e| e.to_string())
}

/// A block shape: `256`, `16x16`, `8x8x4`, `16,16` or `(16, 16)`.
pub fn block(s: &str) -> Result<BlockDim, String> {
    let inner = s.trim().trim_start_matches('(').trim_end_matches(')');
    let dims: Result<Vec<u32>, _> = inner
        .split(['x', 'X', ','])
        .map(|d| d.trim().parse::<u32>())
        .collect();
    let bad = || format!("`{s}` is not a block shape: write 256, 16x16 or 8x8x4");
    match dims.map_err(|_| bad())?.as_slice() {
        [x] => Ok(BlockDim::new(*x, 1, 1)),
        [x, y] => Ok(BlockDim::new(*x, *y, 1)),
        [x, y, z] => Ok(BlockDim::new(*x, *y, *z)),
        _ => Err(bad()),
    }
}

/// A byte count: `4096`, `4096B`, `8KiB`, `8 KiB`, `8K` (KiB and K are 1024 bytes).
pub fn bytes(s: &str) -> Result<u32, String> {
    let t = s.trim();
    let split = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (number, unit) = t.split_at(split);
    let n: u64 = number
        .parse()
        .map_err(|_| format!("`{s}` is not a size in bytes"))?;
    let scale = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1,
        "k" | "kib" | "kb" => 1024,
        _ => {
            return Err(format!(
                "`{s}`: unknown unit `{}` (use B or KiB)",
                unit.trim()
            ));
        }
    };
    u32::try_from(n * scale).map_err(|_| format!("`{s}` is too large"))
}

/// A carveout: `default`, `-1`, or a percentage `50` / `50%`.
pub fn carveout(s: &str) -> Result<Carveout, String> {
    let t = s.trim().trim_end_matches('%');
    if t.eq_ignore_ascii_case("default") {
        return Ok(Carveout::Default);
    }
    let value: i32 = t
        .parse()
        .map_err(|_| format!("`{s}` is not a carveout: -1, default or 0..100"))?;
    Carveout::from_attribute(value).map_err(|e| e.to_string())
}

/// Blocks in a grid: `1024`, `64x64`, `(64, 64)` or `8x8x8`.
pub fn grid(s: &str) -> Result<u64, String> {
    let dims = block(s).map_err(|_| format!("`{s}` is not a grid: write 1024, 64x64 or 8x8x8"))?;
    if dims.threads() == 0 {
        return Err(format!("grid `{s}` has a zero dimension"));
    }
    Ok(dims.threads())
}

/// An occupancy floor: `50%`, `37.5%` or a fraction `0.5`.
pub fn floor(s: &str) -> Result<MinOccupancy, String> {
    let t = s.trim();
    let parsed = match t.strip_suffix('%') {
        Some(digits) => MinOccupancy::from_percent_str(digits.trim()),
        None => MinOccupancy::from_fraction_str(t),
    };
    parsed.map_err(|e| e.message)
}

/// A kernel class: `memory_bound`, `balanced` or `compute_bound`.
pub fn class(s: &str) -> Result<KernelClass, String> {
    KernelClass::from_name(s.trim()).ok_or_else(|| {
        format!("`{s}` is not a kernel class: memory_bound, balanced or compute_bound")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_blocks_sizes_and_carveouts() {
        assert_eq!(block("256"), Ok(BlockDim::new(256, 1, 1)));
        assert_eq!(block("16x16"), Ok(BlockDim::new(16, 16, 1)));
        assert_eq!(block("(8, 8, 4)"), Ok(BlockDim::new(8, 8, 4)));
        assert!(block("16x").is_err());
        assert!(block("1x2x3x4").is_err());
        assert_eq!(bytes("8KiB"), Ok(8192));
        assert_eq!(bytes("48 KiB"), Ok(49152));
        assert_eq!(bytes("100"), Ok(100));
        assert!(bytes("8MB").is_err());
        assert!(bytes("99999999999").is_err());
        assert_eq!(carveout("50%"), Ok(Carveout::Percent(50)));
        assert_eq!(carveout("-1"), Ok(Carveout::Default));
        assert!(carveout("101").is_err());
    }
}
