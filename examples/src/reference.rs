//! CPU references for every kernel in `kernels/`: straightforward loops, accumulating in
//! `f64` so that they are more accurate than the `f32` kernels they check. Shapes and
//! layouts are the kernels' own (row-major, dense unless a leading dimension is given).

/// `a * x[i] + y[i]` (kernels/saxpy.cu `saxpy`).
///
/// # Panics
///
/// If `x` and `y` differ in length.
pub fn saxpy(a: f32, x: &[f32], y: &[f32]) -> Vec<f64> {
    assert_eq!(x.len(), y.len(), "saxpy: x and y lengths");
    x.iter()
        .zip(y)
        .map(|(&x, &y)| f64::from(a) * f64::from(x) + f64::from(y))
        .collect()
}

/// `a[i] + b[i]` (kernels/saxpy.cu `vector_add`).
///
/// # Panics
///
/// If `a` and `b` differ in length.
pub fn vector_add(a: &[f32], b: &[f32]) -> Vec<f64> {
    assert_eq!(a.len(), b.len(), "vector_add: a and b lengths");
    a.iter()
        .zip(b)
        .map(|(&a, &b)| f64::from(a) + f64::from(b))
        .collect()
}

/// The sum of `x` (kernels/reduce.cu `reduce_sum`, both passes).
pub fn sum(x: &[f32]) -> f64 {
    x.iter().map(|&v| f64::from(v)).sum()
}

/// The per-block sums of the first pass of kernels/reduce.cu `reduce_sum` launched with
/// `grid` blocks of `block` threads: its grid-stride loop gives element `i` to block
/// `(i / block) % grid`.
///
/// # Panics
///
/// If `block` or `grid` is 0.
pub fn block_partial_sums(x: &[f32], block: usize, grid: usize) -> Vec<f64> {
    assert!(block > 0 && grid > 0, "block_partial_sums: empty launch");
    let mut partial = vec![0.0f64; grid];
    for (i, &v) in x.iter().enumerate() {
        partial[(i / block) % grid] += f64::from(v);
    }
    partial
}

/// The shape and scalars of `C = alpha * A * B + beta * C`, row-major (kernels/sgemm.cu).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Gemm {
    /// Rows of A and C.
    pub m: usize,
    /// Columns of B and C.
    pub n: usize,
    /// Columns of A, rows of B.
    pub k: usize,
    /// Scale of A * B.
    pub alpha: f32,
    /// Scale of the old C; 0: C is not read.
    pub beta: f32,
}

/// `alpha * A * B + beta * C` as an `m x n` dense row-major matrix, by the naive triple
/// loop. `a` is `m x k` with row stride `lda`, `b` is `k x n` with row stride `ldb`, `c` is
/// `m x n` with row stride `ldc` (read only when `beta != 0`, as in BLAS).
///
/// # Panics
///
/// If a matrix is shorter than its shape and stride need.
pub fn sgemm(
    g: Gemm,
    a: &[f32],
    lda: usize,
    b: &[f32],
    ldb: usize,
    c: &[f32],
    ldc: usize,
) -> Vec<f64> {
    let need =
        |rows: usize, cols: usize, ld: usize| if rows == 0 { 0 } else { (rows - 1) * ld + cols };
    assert!(
        a.len() >= need(g.m, g.k, lda) && lda >= g.k,
        "sgemm: A too short"
    );
    assert!(
        b.len() >= need(g.k, g.n, ldb) && ldb >= g.n,
        "sgemm: B too short"
    );
    if g.beta != 0.0 {
        assert!(
            c.len() >= need(g.m, g.n, ldc) && ldc >= g.n,
            "sgemm: C too short"
        );
    }
    let mut out = vec![0.0f64; g.m * g.n];
    for i in 0..g.m {
        for j in 0..g.n {
            let mut acc = 0.0f64;
            for p in 0..g.k {
                acc += f64::from(a[i * lda + p]) * f64::from(b[p * ldb + j]);
            }
            let mut v = f64::from(g.alpha) * acc;
            if g.beta != 0.0 {
                v += f64::from(g.beta) * f64::from(c[i * ldc + j]);
            }
            out[i * g.n + j] = v;
        }
    }
    out
}

/// Row softmax of a `rows x cols` matrix, max-subtracted (kernels/softmax.cu, both kernels).
///
/// # Panics
///
/// If `x.len() != rows * cols`.
pub fn softmax_rows(x: &[f32], rows: usize, cols: usize) -> Vec<f64> {
    assert_eq!(x.len(), rows * cols, "softmax_rows: shape");
    let mut out = Vec::with_capacity(x.len());
    for row in x.chunks_exact(cols.max(1)).take(rows) {
        let max = row
            .iter()
            .fold(f64::NEG_INFINITY, |m, &v| m.max(f64::from(v)));
        let exps: Vec<f64> = row.iter().map(|&v| (f64::from(v) - max).exp()).collect();
        let total: f64 = exps.iter().sum();
        out.extend(exps.iter().map(|e| e / total));
    }
    out
}

/// What layer normalisation produces: the normalised rows and the per-row statistics.
#[derive(Clone, Debug, PartialEq)]
pub struct LayerNorm {
    /// `rows x cols`: `(x - mean) * rstd * gamma + beta`.
    pub y: Vec<f64>,
    /// Per row: the mean.
    pub mean: Vec<f64>,
    /// Per row: `1 / sqrt(variance + eps)`, the biased (population) variance.
    pub rstd: Vec<f64>,
}

/// Layer normalisation over the last dimension (kernels/layernorm.cu `layernorm_rows`).
///
/// # Panics
///
/// If `x.len() != rows * cols` or `gamma`, `beta` are not `cols` long.
pub fn layernorm_rows(
    x: &[f32],
    gamma: &[f32],
    beta: &[f32],
    rows: usize,
    cols: usize,
    eps: f32,
) -> LayerNorm {
    assert_eq!(x.len(), rows * cols, "layernorm_rows: shape");
    assert!(
        gamma.len() == cols && beta.len() == cols,
        "layernorm_rows: gamma / beta length"
    );
    let mut ln = LayerNorm {
        y: Vec::with_capacity(x.len()),
        mean: Vec::with_capacity(rows),
        rstd: Vec::with_capacity(rows),
    };
    for row in x.chunks_exact(cols.max(1)).take(rows) {
        let n = cols as f64;
        let mean = row.iter().map(|&v| f64::from(v)).sum::<f64>() / n;
        let var = row
            .iter()
            .map(|&v| (f64::from(v) - mean).powi(2))
            .sum::<f64>()
            / n;
        let rstd = 1.0 / (var + f64::from(eps)).sqrt();
        ln.y.extend(
            row.iter()
                .zip(gamma.iter().zip(beta))
                .map(|(&v, (&g, &b))| (f64::from(v) - mean) * rstd * f64::from(g) + f64::from(b)),
        );
        ln.mean.push(mean);
        ln.rstd.push(rstd);
    }
    ln
}

/// The `cols x rows` transpose of a `rows x cols` matrix (kernels/transpose.cu).
///
/// # Panics
///
/// If `x.len() != rows * cols`.
pub fn transpose(x: &[f32], rows: usize, cols: usize) -> Vec<f32> {
    assert_eq!(x.len(), rows * cols, "transpose: shape");
    let mut out = vec![0.0f32; x.len()];
    for r in 0..rows {
        for c in 0..cols {
            out[c * rows + r] = x[r * cols + c];
        }
    }
    out
}

/// Counts of each byte value (kernels/histogram.cu, both passes).
pub fn histogram256(data: &[u8]) -> Vec<u32> {
    let mut bins = vec![0u32; 256];
    for &b in data {
        bins[usize::from(b)] += 1;
    }
    bins
}

/// The per-block histograms of kernels/histogram.cu `histogram256_partial` launched with
/// `grid` blocks of `block` threads, `grid x 256` counts: byte `i` goes to block
/// `(i / block) % grid`.
///
/// # Panics
///
/// If `block` or `grid` is 0.
pub fn histogram256_partials(data: &[u8], block: usize, grid: usize) -> Vec<u32> {
    assert!(block > 0 && grid > 0, "histogram256_partials: empty launch");
    let mut partial = vec![0u32; grid * 256];
    for (i, &b) in data.iter().enumerate() {
        partial[(i / block) % grid * 256 + usize::from(b)] += 1;
    }
    partial
}

/// 2-D cross-correlation of a `width x height` row-major image with a `(2r+1) x (2r+1)`
/// filter, replicating the edge pixels outside the image (kernels/conv2d.cu).
///
/// # Panics
///
/// If `image.len() != width * height` or `filter.len() != (2 radius + 1)^2`.
pub fn conv2d(
    image: &[f32],
    width: usize,
    height: usize,
    filter: &[f32],
    radius: usize,
) -> Vec<f64> {
    let fw = 2 * radius + 1;
    assert_eq!(image.len(), width * height, "conv2d: image shape");
    assert_eq!(filter.len(), fw * fw, "conv2d: filter shape");
    let clamp = |v: isize, n: usize| v.clamp(0, n as isize - 1) as usize;
    let r = radius as isize;
    let mut out = vec![0.0f64; image.len()];
    for y in 0..height {
        for x in 0..width {
            let mut acc = 0.0f64;
            for dy in -r..=r {
                let sy = clamp(y as isize + dy, height);
                for dx in -r..=r {
                    let sx = clamp(x as isize + dx, width);
                    let f = filter[((dy + r) as usize) * fw + (dx + r) as usize];
                    acc += f64::from(f) * f64::from(image[sy * width + sx]);
                }
            }
            out[y * width + x] = acc;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn saxpy_and_vector_add_known_values() {
        assert_eq!(
            saxpy(2.0, &[1.0, -3.0, 0.5], &[10.0, 1.0, -1.0]),
            [12.0, -5.0, 0.0]
        );
        assert_eq!(vector_add(&[1.5, -2.0], &[0.25, 7.0]), [1.75, 5.0]);
    }

    #[test]
    fn sum_known_value() {
        let x: Vec<f32> = (1..=100).map(|v| v as f32).collect();
        assert_eq!(sum(&x), 5050.0);
        assert_eq!(sum(&[]), 0.0);
    }

    #[test]
    fn block_partials_follow_the_grid_stride() {
        // 10 elements, blocks of 2 threads, grid of 3: elements 0,1 and 6,7 -> block 0;
        // 2,3 and 8,9 -> block 1; 4,5 -> block 2.
        let x: Vec<f32> = (1..=10).map(|v| v as f32).collect();
        assert_eq!(
            block_partial_sums(&x, 2, 3),
            [1.0 + 2.0 + 7.0 + 8.0, 3.0 + 4.0 + 9.0 + 10.0, 5.0 + 6.0]
        );
        let p = block_partial_sums(&x, 4, 100);
        assert_eq!(p.iter().sum::<f64>(), 55.0);
        assert_eq!(&p[..4], &[10.0, 26.0, 19.0, 0.0]);
    }

    #[test]
    fn sgemm_tiny_known_case() {
        // [1 2 3]   [ 7  8]   [ 58  64]
        // [4 5 6] x [ 9 10] = [139 154]
        //           [11 12]
        let a = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0];
        let b = [7.0, 8.0, 9.0, 10.0, 11.0, 12.0];
        let g = Gemm {
            m: 2,
            n: 2,
            k: 3,
            alpha: 1.0,
            beta: 0.0,
        };
        // beta == 0: C is not read, so even a NaN C gives the product.
        assert_eq!(
            sgemm(g, &a, 3, &b, 2, &[f32::NAN; 4], 2),
            [58.0, 64.0, 139.0, 154.0]
        );
        // alpha 0.5, beta 2 with C = [1 2; 3 4].
        let g = Gemm {
            alpha: 0.5,
            beta: 2.0,
            ..g
        };
        assert_eq!(
            sgemm(g, &a, 3, &b, 2, &[1.0, 2.0, 3.0, 4.0], 2),
            [31.0, 36.0, 75.5, 85.0]
        );
    }

    #[test]
    fn sgemm_respects_leading_dimensions() {
        // A 2 x 2 stored with lda = 3 (third column is padding and must be ignored).
        let a = [1.0, 2.0, 99.0, 3.0, 4.0, 99.0];
        let b = [5.0, 6.0, 7.0, 8.0]; // 2 x 2, ldb = 2
        let g = Gemm {
            m: 2,
            n: 2,
            k: 2,
            alpha: 1.0,
            beta: 0.0,
        };
        assert_eq!(sgemm(g, &a, 3, &b, 2, &[], 2), [19.0, 22.0, 43.0, 50.0]);
    }

    #[test]
    fn sgemm_identity_gives_the_other_matrix() {
        let n = 5;
        let id: Vec<f32> = (0..n * n)
            .map(|i| if i % (n + 1) == 0 { 1.0 } else { 0.0 })
            .collect();
        let b: Vec<f32> = (0..n * n).map(|i| i as f32 - 7.5).collect();
        let g = Gemm {
            m: n,
            n,
            k: n,
            alpha: 1.0,
            beta: 0.0,
        };
        let want: Vec<f64> = b.iter().map(|&v| f64::from(v)).collect();
        assert_eq!(sgemm(g, &id, n, &b, n, &[], n), want);
    }

    #[test]
    fn softmax_known_values_and_rows_sum_to_one() {
        // softmax(0, 1) = (1, e) / (1 + e); adding a constant to a row changes nothing.
        let e = std::f64::consts::E;
        let s = softmax_rows(&[0.0, 1.0, 100.0, 101.0, -3.0, -3.0], 3, 2);
        let want = [1.0 / (1.0 + e), e / (1.0 + e)];
        for (got, want) in s.iter().zip(want.iter().cycle().take(4).chain(&[0.5, 0.5])) {
            assert!((got - want).abs() < 1e-15, "{got} vs {want}");
        }
        let x = crate::data::floats(1, 7 * 33, -20.0, 20.0);
        let s = softmax_rows(&x, 7, 33);
        for row in s.chunks(33) {
            assert!((row.iter().sum::<f64>() - 1.0).abs() < 1e-12);
            assert!(row.iter().all(|&p| p > 0.0 && p < 1.0));
        }
        // The largest input of a row gets the largest probability.
        let argmax = |r: &[f32]| (0..r.len()).max_by(|&i, &j| r[i].total_cmp(&r[j]));
        let pmax = |r: &[f64]| (0..r.len()).max_by(|&i, &j| r[i].total_cmp(&r[j]));
        assert_eq!(argmax(&x[..33]), pmax(&s[..33]));
    }

    #[test]
    fn softmax_does_not_overflow() {
        let s = softmax_rows(&[1000.0, 1000.0, 1000.0, 1000.0], 1, 4);
        assert_eq!(s, [0.25; 4]);
    }

    #[test]
    fn layernorm_known_row() {
        // x = 1 2 3 4: mean 2.5, variance 1.25.
        let ln = layernorm_rows(
            &[1.0, 2.0, 3.0, 4.0],
            &[1.0, 1.0, 2.0, 2.0],
            &[0.0, 0.0, 0.0, 1.0],
            1,
            4,
            0.0,
        );
        assert_eq!(ln.mean, [2.5]);
        let rstd = 1.0 / 1.25f64.sqrt();
        assert!((ln.rstd[0] - rstd).abs() < 1e-15);
        let want = [
            -1.5 * rstd,
            -0.5 * rstd,
            2.0 * 0.5 * rstd,
            2.0 * 1.5 * rstd + 1.0,
        ];
        for (g, w) in ln.y.iter().zip(want) {
            assert!((g - w).abs() < 1e-12, "{g} vs {w}");
        }
    }

    #[test]
    fn layernorm_rows_have_zero_mean_unit_variance() {
        let (rows, cols) = (4, 257);
        let x = crate::data::floats(2, rows * cols, -3.0, 5.0);
        let ones = vec![1.0; cols];
        let zeros = vec![0.0; cols];
        let ln = layernorm_rows(&x, &ones, &zeros, rows, cols, 1e-5);
        for row in ln.y.chunks(cols) {
            let mean = row.iter().sum::<f64>() / cols as f64;
            let var = row.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / cols as f64;
            assert!(mean.abs() < 1e-12, "{mean}");
            // eps = 1e-5 against a variance of about 5.3 shrinks it by about 2e-6.
            assert!((var - 1.0).abs() < 1e-5 && var < 1.0, "{var}");
        }
    }

    #[test]
    fn transpose_known_and_twice_is_identity() {
        // [1 2 3; 4 5 6] -> [1 4; 2 5; 3 6]
        assert_eq!(
            transpose(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0], 2, 3),
            [1.0, 4.0, 2.0, 5.0, 3.0, 6.0]
        );
        let (rows, cols) = (37, 53);
        let x = crate::data::floats(3, rows * cols, -1.0, 1.0);
        let t = transpose(&x, rows, cols);
        assert_ne!(t, x);
        assert_eq!(transpose(&t, cols, rows), x);
    }

    #[test]
    fn histogram_counts_sum_to_n() {
        let mut data = vec![7u8; 5];
        data.extend([0, 255, 255]);
        let h = histogram256(&data);
        assert_eq!((h[0], h[7], h[255], h[1]), (1, 5, 2, 0));
        let data = crate::data::bytes(4, 12_345, 32);
        let h = histogram256(&data);
        assert_eq!(h.iter().map(|&c| u64::from(c)).sum::<u64>(), 12_345);
    }

    #[test]
    fn histogram_partials_add_up_to_the_histogram() {
        let data = [1u8, 1, 2, 3, 1, 255, 0];
        // block 2, grid 2: bytes 0,1 and 4,5 -> block 0; 2,3 and 6 -> block 1.
        let p = histogram256_partials(&data, 2, 2);
        assert_eq!((p[1], p[255], p[2]), (3, 1, 0));
        assert_eq!((p[256 + 2], p[256 + 3], p[256], p[256 + 1]), (1, 1, 1, 0));
        let data = crate::data::bytes(5, 9_999, 8);
        let p = histogram256_partials(&data, 64, 7);
        let merged: Vec<u32> = (0..256)
            .map(|b| (0..7).map(|g| p[g * 256 + b]).sum())
            .collect();
        assert_eq!(merged, histogram256(&data));
    }

    #[test]
    fn conv2d_identity_box_and_edges() {
        let (w, h) = (5, 4);
        let img: Vec<f32> = (0..w * h).map(|i| i as f32).collect();
        // Identity filter (radius 1): the image itself.
        let mut id = vec![0.0; 9];
        id[4] = 1.0;
        let want: Vec<f64> = img.iter().map(|&v| f64::from(v)).collect();
        assert_eq!(conv2d(&img, w, h, &id, 1), want);
        // Box filter on a constant image: constant * filter sum, edges included.
        let c = conv2d(&[2.0; 20], w, h, &[0.5; 25], 2);
        assert!(c.iter().all(|&v| v == 25.0));
        // "Left neighbour" filter: out[y][x] = in[y][x - 1], clamped at x = 0.
        let mut left = vec![0.0; 9];
        left[3] = 1.0;
        let c = conv2d(&img, w, h, &left, 1);
        assert_eq!(&c[..5], &[0.0, 0.0, 1.0, 2.0, 3.0]);
        assert_eq!(&c[5..10], &[5.0, 5.0, 6.0, 7.0, 8.0]);
    }
}
