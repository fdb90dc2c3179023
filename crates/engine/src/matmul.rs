//! Matrix products, `c = a @ b`: the engine's one hot loop.
//!
//! Natively this is ndarray's `general_mat_mul`, i.e. matrixmultiply's kernels (AVX2 and
//! FMA on x86-64). matrixmultiply has no f64 kernel for WebAssembly SIMD (only f32), so in
//! a wasm build with `simd128` (the app's: see `.cargo/config.toml`) the products run on
//! the blocked kernel below, two doubles per instruction:
//!
//! - `b` is packed ([`Packed`]) into strips of 4 columns, each strip `KC × 4` contiguous
//!   (the last strip padded with zeros), so the inner loop reads it sequentially and a
//!   strip stays in L1 while a block of `MC` rows of `a` (in L2) passes over it; a longer
//!   K is done in blocks of `KC`, each continuing from the partial sums of the last;
//! - each block of 4 rows × 4 columns of `c` is 8 two-lane accumulators, and every
//!   `c[i][j]` is `Σ_k a[i][k]·b[k][j]` added up in the order k = 0, 1, …, K−1 (no fused
//!   multiply-add: wasm SIMD has none), as a plain dot product would.
//!
//! The kernel is written once over a two-lane type, [`Lanes`]: `v128` in a wasm SIMD
//! build, a `[f64; 2]` everywhere else. IEEE multiplication and addition are the same
//! per lane either way, so the native tests of the portable instance ([`blocked`]) check
//! the packing, the blocking and the edges of the kernel the browser runs, bit for bit.

use ndarray::{ArrayView2, ArrayViewMut2};

use crate::lanes::Lanes;
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
use crate::lanes::Pair;

/// `c = a @ b` for `a: (M, K)`, `b: (K, N)`, `c: (M, N)`, any strides. `packed`, when
/// given and of `b`'s shape, is `b` already packed ([`Packed::of`]; the seeded weights
/// keep theirs, see [`crate::weights::Linear::packed`]); the native build ignores it.
///
/// # Panics
/// If the shapes do not fit together (a bug in the caller: every caller sizes `c` from
/// `a` and `b`).
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
pub fn gemm(
    a: ArrayView2<'_, f64>,
    b: ArrayView2<'_, f64>,
    packed: Option<&Packed>,
    c: ArrayViewMut2<'_, f64>,
) {
    blocked_with::<Pair>(a, b, packed, c);
}

/// `c = a @ b` for `a: (M, K)`, `b: (K, N)`, `c: (M, N)`, any strides: matrixmultiply's
/// product (`packed` is for the wasm build's kernel).
///
/// # Panics
/// If the shapes do not fit together (a bug in the caller: every caller sizes `c` from
/// `a` and `b`).
#[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
pub fn gemm(
    a: ArrayView2<'_, f64>,
    b: ArrayView2<'_, f64>,
    _packed: Option<&Packed>,
    mut c: ArrayViewMut2<'_, f64>,
) {
    ndarray::linalg::general_mat_mul(1.0, &a, &b, 0.0, &mut c);
}

/// The blocked kernel on `[f64; 2]` lanes: what a wasm SIMD build computes, bit for bit,
/// on any machine. Public for the tests and the benchmark; the engine calls [`gemm`].
pub fn blocked(
    a: ArrayView2<'_, f64>,
    b: ArrayView2<'_, f64>,
    packed: Option<&Packed>,
    c: ArrayViewMut2<'_, f64>,
) {
    blocked_with::<[f64; 2]>(a, b, packed, c);
}

/// A `(K, N)` matrix as the kernel reads it: for each block of `KC` rows, strips of 4
/// columns, each strip `kc × 4` contiguous, the columns past N zero. Packing costs one
/// pass over the matrix: the projections pack their weights once, not per product.
#[derive(Debug, Clone, PartialEq)]
pub struct Packed {
    k: usize,
    n: usize,
    data: Vec<[f64; 4]>,
}

impl Packed {
    /// `b` packed.
    pub fn of(b: ArrayView2<'_, f64>) -> Self {
        let (k, n) = b.dim();
        let strips = n.div_ceil(NR);
        let mut data = Vec::with_capacity(strips * k);
        for k0 in (0..k).step_by(KC) {
            data.extend(pack(b, k0, KC.min(k - k0)));
        }
        Self { k, n, data }
    }

    /// Rows `k0..k0 + kc` (a block that starts at a multiple of `KC`).
    fn block(&self, k0: usize, kc: usize) -> &[[f64; 4]] {
        let strips = self.n.div_ceil(NR);
        self.data.get(k0 * strips..(k0 + kc) * strips).unwrap_or_default()
    }
}

/// Columns per strip of `b`, rows per block of `a`; the block of `K` packed at a time
/// (`KC`: a strip of `KC × 4` is 16 KiB, in L1) and the block of rows of `a` that passes
/// over every strip before the next (`MC`: `MC × KC` is 256 KiB, in L2). KC = 512 rather
/// than 256: d_model = 512 then has no partial sums to reload (timings: BENCHMARKS.md,
/// R4.1).
const NR: usize = 4;
const MR: usize = 4;
const KC: usize = 512;
const MC: usize = 64;

fn blocked_with<L: Lanes>(
    a: ArrayView2<'_, f64>,
    b: ArrayView2<'_, f64>,
    packed: Option<&Packed>,
    mut c: ArrayViewMut2<'_, f64>,
) {
    let (m, k) = a.dim();
    let (k_b, n) = b.dim();
    assert!(k == k_b && c.dim() == (m, n), "gemm: ({m}, {k}) @ ({k_b}, {n}) into {:?}", c.dim());
    if m == 0 || n == 0 {
        return;
    }
    if k == 0 {
        c.fill(0.0); // an empty sum
        return;
    }
    // `a` as rows of K contiguous numbers (a copy only when it is not laid out that way)
    let a = a.as_standard_layout();
    let Some(a) = a.as_slice() else { return };
    let packed_now;
    let packed = match packed {
        Some(p) if (p.k, p.n) == (k, n) => p,
        _ => {
            packed_now = Packed::of(b);
            &packed_now
        }
    };
    match c.as_slice_mut() {
        Some(out) => product::<L>(a, packed, out, m),
        None => {
            let mut out = vec![0.0; m * n];
            product::<L>(a, packed, &mut out, m);
            c.iter_mut().zip(&out).for_each(|(c, &x)| *c = x); // both row-major
        }
    }
}

/// `out (m × n, rows of n) = a (m × k, rows of k) @ b` (packed). Each cell is added up in the
/// order k = 0, 1, …: a block of `KC` continues from the partial sums the previous block
/// left in `out`.
fn product<L: Lanes>(a: &[f64], b: &Packed, out: &mut [f64], m: usize) {
    let (k, n) = (b.k, b.n);
    for k0 in (0..k).step_by(KC) {
        let kc = KC.min(k - k0);
        let first = k0 == 0;
        let packed = b.block(k0, kc);
        // the rows of `a`, columns k0..k0 + kc
        let rows: Vec<&[f64]> =
            a.chunks_exact(k).map(|row| row.get(k0..k0 + kc).unwrap_or_default()).collect();
        for (m0, block) in (0..m).step_by(MC).zip(rows.chunks(MC)) {
            for (j0, strip) in (0..n).step_by(NR).zip(packed.chunks_exact(kc)) {
                let width = NR.min(n - j0);
                let fours = block.chunks_exact(MR);
                let left = fours.remainder();
                let mut i = m0;
                for four in fours {
                    if let [a0, a1, a2, a3] = *four {
                        let acc = [0, 1, 2, 3].map(|r| start::<L>(out, (i + r) * n + j0, width, first));
                        let acc = block4(acc, [a0, a1, a2, a3], strip);
                        for (r, acc) in acc.iter().enumerate() {
                            store(out, (i + r) * n + j0, width, acc);
                        }
                    }
                    i += MR;
                }
                for a0 in left {
                    let acc = start::<L>(out, i * n + j0, width, first);
                    store(out, i * n + j0, width, &block1(acc, a0, strip));
                    i += 1;
                }
            }
        }
    }
}

/// Rows `k0..k0 + kc` of `b` as strips of 4 columns, strip `s` at `s·kc .. (s+1)·kc`,
/// the columns past N zero.
fn pack(b: ArrayView2<'_, f64>, k0: usize, kc: usize) -> Vec<[f64; 4]> {
    let n = b.ncols();
    let mut packed = vec![[0.0; 4]; n.div_ceil(NR) * kc];
    if let Some(b) = b.as_slice() {
        // rows of contiguous numbers (the weights, `V`): strip by strip, 4 at a time
        let rows: Vec<&[f64]> = b.chunks_exact(n).skip(k0).take(kc).collect();
        for (j0, strip) in (0..n).step_by(NR).zip(packed.chunks_exact_mut(kc)) {
            for (to, row) in strip.iter_mut().zip(&rows) {
                match row.get(j0..).and_then(<[f64]>::first_chunk::<4>) {
                    Some(quad) => *to = *quad,
                    None => to.iter_mut().zip(row.get(j0..).unwrap_or_default()).for_each(|(to, &x)| *to = x),
                }
            }
        }
    } else {
        // strided rows (`K_hᵀ`): one number at a time
        for (kk, row) in b.rows().into_iter().skip(k0).take(kc).enumerate() {
            for (j, &x) in row.iter().enumerate() {
                if let Some(to) = packed.get_mut((j / NR) * kc + kk).and_then(|q| q.get_mut(j % NR)) {
                    *to = x;
                }
            }
        }
    }
    packed
}

/// The accumulators of `out[at..at + width]`: zero for the first block of K, else the
/// partial sums the previous block stored.
#[inline(always)]
fn start<L: Lanes>(out: &[f64], at: usize, width: usize, first: bool) -> [L; 2] {
    if first {
        return [L::ZERO; 2];
    }
    let mut x = [0.0; 4];
    for (x, &partial) in x.iter_mut().zip(out.get(at..at + width).unwrap_or_default()) {
        *x = partial;
    }
    let (lo, hi) = L::load4(&x);
    [lo, hi]
}

/// Writes the first `width` of a block row's 4 numbers into `out[at..]`.
#[inline(always)]
fn store<L: Lanes>(out: &mut [f64], at: usize, width: usize, acc: &[L; 2]) {
    let [[x0, x1], [x2, x3]] = acc.map(L::lanes);
    for (to, x) in out.get_mut(at..at + width).unwrap_or_default().iter_mut().zip([x0, x1, x2, x3]) {
        *to = x;
    }
}

/// One row of a block: its two accumulators plus `x` times a packed row `b` of the strip.
#[inline(always)]
fn row_step<L: Lanes>([c0, c1]: [L; 2], x: f64, (b0, b1): (L, L)) -> [L; 2] {
    let x = L::splat(x);
    [c0.mul_add(x, b0), c1.mul_add(x, b1)]
}

/// 4 rows of `a` (each `kc` long) against a packed strip: `[row][pair]` accumulators.
#[inline(always)]
fn block4<L: Lanes>(acc: [[L; 2]; 4], a: [&[f64]; 4], strip: &[[f64; 4]]) -> [[L; 2]; 4] {
    let [mut c0, mut c1, mut c2, mut c3] = acc;
    let [a0, a1, a2, a3] = a;
    let rows = a0.iter().zip(a1).zip(a2).zip(a3);
    for ((((&x0, &x1), &x2), &x3), bk) in rows.zip(strip) {
        let b = L::load4(bk);
        c0 = row_step(c0, x0, b);
        c1 = row_step(c1, x1, b);
        c2 = row_step(c2, x2, b);
        c3 = row_step(c3, x3, b);
    }
    [c0, c1, c2, c3]
}

/// One row of `a` against a packed strip (the rows left over after the blocks of 4).
#[inline(always)]
fn block1<L: Lanes>(acc: [L; 2], a0: &[f64], strip: &[[f64; 4]]) -> [L; 2] {
    a0.iter().zip(strip).fold(acc, |c, (&x0, bk)| row_step(c, x0, L::load4(bk)))
}
