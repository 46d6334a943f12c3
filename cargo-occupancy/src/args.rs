//! Value parsers for command-line arguments: targets, block shapes, byte sizes, carveouts.

use occupancy_core::arch::{MAX_GRID_DIM, Target};
use occupancy_core::cluster::ClusterDim;
use occupancy_core::lint::{KernelClass, MinOccupancy};
use occupancy_core::occupancy::{BlockDim, Carveout, GridDim};

/// A target: `sm_90`, `9.0`, `H100`, `RTX 4090`...
pub fn target(s: &str) -> Result<Target, String> {
    Target::parse(s).map_err(|e| e.to_string())
}

/// One to three dimensions: `256`, `16x16`, `8x8x4`, `16,16` or `(16, 16)`; missing ones
/// are 1. `None` when it is not such a shape.
fn dims(s: &str) -> Option<[u32; 3]> {
    let inner = s.trim().trim_start_matches('(').trim_end_matches(')');
    let dims: Vec<u32> = inner
        .split(['x', 'X', ','])
        .map(|d| d.trim().parse::<u32>())
        .collect::<Result<_, _>>()
        .ok()?;
    match dims.as_slice() {
        [x] => Some([*x, 1, 1]),
        [x, y] => Some([*x, *y, 1]),
        [x, y, z] => Some([*x, *y, *z]),
        _ => None,
    }
}

/// A block shape: `256`, `16x16`, `8x8x4`, `16,16` or `(16, 16)`; every dimension at least
/// 1, at most 2^32 - 1 threads in all (so that every figure `calc` shows is exact; a block
/// of more than 1024 threads cannot launch on any GPU).
pub fn block(s: &str) -> Result<BlockDim, String> {
    let [x, y, z] =
        dims(s).ok_or_else(|| format!("`{s}` is not a block shape: write 256, 16x16 or 8x8x4"))?;
    let block = BlockDim::new(x, y, z);
    if x == 0 || y == 0 || z == 0 {
        return Err(format!("block `{s}` has a zero dimension"));
    }
    if block.threads() > u64::from(u32::MAX) {
        return Err(format!(
            "block `{s}` has {} threads: at most {} are taken (and a block launches with at most 1024)",
            block.threads(),
            u32::MAX
        ));
    }
    Ok(block)
}

/// A byte count: `4096`, `4096B`, `8KiB`, `8 KiB`, `8K` (KiB and K are 1024 bytes). `KB`
/// is refused: SI makes it 1000 bytes, NVIDIA's documents write it for 1024 ("48 KB of
/// shared memory"), so either reading would surprise someone.
pub fn bytes(s: &str) -> Result<u32, String> {
    let t = s.trim();
    let split = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (number, unit) = t.split_at(split);
    let n: u64 = number
        .parse()
        .map_err(|_| format!("`{s}` is not a size in bytes: write 4096, 4096B or 8KiB"))?;
    let unit = unit.trim();
    let scale = match unit.to_ascii_lowercase().as_str() {
        "" | "b" => 1,
        "k" | "kib" => 1024,
        "kb" => {
            return Err(format!(
                "`{s}`: `{unit}` is ambiguous (1000 bytes in SI, 1024 in NVIDIA's documents): \
                 write {n}KiB for {} bytes, or {} for {n} thousand",
                n.saturating_mul(1024),
                n.saturating_mul(1000)
            ));
        }
        _ => {
            return Err(format!(
                "`{s}`: unknown unit `{unit}` (use B, or KiB or K: 1024 bytes)"
            ));
        }
    };
    n.checked_mul(scale)
        .and_then(|b| u32::try_from(b).ok())
        .ok_or_else(|| format!("`{s}` is too large"))
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

/// A grid: `1024`, `64x64`, `(64, 64)` or `8x8x8`, within the device's limits
/// ([`MAX_GRID_DIM`]).
pub fn grid(s: &str) -> Result<GridDim, String> {
    let [x, y, z] =
        dims(s).ok_or_else(|| format!("`{s}` is not a grid: write 1024, 64x64 or 8x8x8"))?;
    for ((axis, n), max) in ["x", "y", "z"].iter().zip([x, y, z]).zip(MAX_GRID_DIM) {
        if n == 0 {
            return Err(format!("grid `{s}` has a zero dimension"));
        }
        if n > max {
            return Err(format!(
                "grid `{s}`: {n} blocks along {axis} exceed the {max} a grid may have"
            ));
        }
    }
    Ok(GridDim::new(x, y, z))
}

/// A thread-block cluster shape: `2`, `2x1`, `2x2x1` or `(2, 2, 1)`; every dimension at
/// least 1. Whether the target allows it is the lints' call (`launch_impossible`).
pub fn cluster(s: &str) -> Result<ClusterDim, String> {
    let [x, y, z] =
        dims(s).ok_or_else(|| format!("`{s}` is not a cluster shape: write 2, 2x1 or 2x2x1"))?;
    if x == 0 || y == 0 || z == 0 {
        return Err(format!("cluster `{s}` has a zero dimension"));
    }
    Ok(ClusterDim::new(x, y, z))
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
        assert!(block("0x4").is_err());
        assert_eq!(block("4294967295"), Ok(BlockDim::new(u32::MAX, 1, 1)));
        assert!(
            block("65536x65536")
                .unwrap_err()
                .contains("4294967296 threads")
        );
        assert_eq!(grid("(4, 3)"), Ok(GridDim::new(4, 3, 1)));
        assert!(grid("1x70000").is_err());
        assert_eq!(cluster("3"), Ok(ClusterDim::new(3, 1, 1)));
        assert_eq!(cluster("2x1x1"), Ok(ClusterDim::new(2, 1, 1)));
        assert_eq!(cluster("(2, 2)"), Ok(ClusterDim::new(2, 2, 1)));
        assert!(cluster("2x0").is_err());
        assert_eq!(bytes("8KiB"), Ok(8192));
        assert_eq!(bytes("8kib"), Ok(8192));
        assert_eq!(bytes("8K"), Ok(8192));
        assert_eq!(bytes("8k"), Ok(8192));
        assert_eq!(bytes("4096B"), Ok(4096));
        assert_eq!(bytes("48 KiB"), Ok(49152));
        assert_eq!(bytes("100"), Ok(100));
        assert!(bytes("8MB").is_err());
        // Past u64 once scaled: refused, not wrapped to a small size.
        assert!(bytes("18014398509481985K").is_err());
        assert!(bytes("99999999999").is_err());
        assert_eq!(carveout("50%"), Ok(Carveout::Percent(50)));
        assert_eq!(carveout("-1"), Ok(Carveout::Default));
        assert!(carveout("101").is_err());
    }
}
