//! The matrix product. `matmul::blocked` is the kernel a wasm SIMD build runs (on
//! `[f64; 2]` lanes instead of `v128`, the same IEEE operations per lane): every `c[i][j]`
//! must be the plain dot product `Σ_k a[i][k]·b[k][j]` added up in order, bit for bit,
//! for every shape (the blocks of 4 rows and 4 columns and what is left over), every
//! layout (transposed, sliced) and every value (NaN, ±∞, signed zeros). `matmul::gemm`
//! (matrixmultiply natively) must agree with it to rounding.

use attention_engine::matmul::{blocked, gemm, Packed};
use ndarray::{s, Array2, ArrayView2};
use proptest::prelude::*;

/// The reference: a dot product per cell, k = 0, 1, … in order, starting from +0.
fn naive(a: ArrayView2<'_, f64>, b: ArrayView2<'_, f64>) -> Array2<f64> {
    let (m, k) = a.dim();
    let n = b.ncols();
    Array2::from_shape_fn((m, n), |(i, j)| (0..k).fold(0.0, |acc, kk| acc + a[[i, kk]] * b[[kk, j]]))
}

fn same_bits(got: &Array2<f64>, want: &Array2<f64>) -> bool {
    got.dim() == want.dim()
        && got.iter().zip(want).all(|(x, y)| x.to_bits() == y.to_bits() || (x.is_nan() && y.is_nan()))
}

/// Which layout `b` is read in: as stored, transposed (the scores' `K_hᵀ`), or a slice
/// of a wider matrix (a sentence or a head of a larger tensor).
#[derive(Debug, Clone, Copy)]
enum Layout {
    Rows,
    Transposed,
    Sliced,
}

fn value() -> impl Strategy<Value = f64> {
    prop_oneof![
        8 => -4.0f64..4.0,
        1 => prop_oneof![Just(0.0), Just(-0.0), Just(1e300), Just(-1e-300), Just(-1e9)],
        1 => prop_oneof![Just(f64::NAN), Just(f64::INFINITY), Just(f64::NEG_INFINITY)],
    ]
}

fn case() -> impl Strategy<Value = (Array2<f64>, Array2<f64>, Layout, Layout)> {
    // sizes around the block size (4) and beyond it, including 0 and 1
    (0usize..14, 0usize..11, 0usize..14)
        .prop_flat_map(|(m, k, n)| {
            (
                proptest::collection::vec(value(), m * k),
                proptest::collection::vec(value(), k * n),
                prop_oneof![Just(Layout::Rows), Just(Layout::Transposed), Just(Layout::Sliced)],
                prop_oneof![Just(Layout::Rows), Just(Layout::Transposed), Just(Layout::Sliced)],
                Just((m, k, n)),
            )
        })
        .prop_map(|(a, b, la, lb, (m, k, n))| {
            (Array2::from_shape_vec((m, k), a).unwrap(), Array2::from_shape_vec((k, n), b).unwrap(), la, lb)
        })
}

/// Stores `x` in the given layout and returns a matrix whose view reads as `x`.
fn stored(x: &Array2<f64>, layout: Layout) -> Array2<f64> {
    match layout {
        Layout::Rows => x.clone(),
        // stored transposed: `.t()` of it reads as x, with strides (1, rows)
        Layout::Transposed => x.t().as_standard_layout().into_owned(),
        // stored inside a wider, taller matrix of junk
        Layout::Sliced => {
            let (r, c) = x.dim();
            let mut wide = Array2::from_elem((r + 2, c + 3), 7.5);
            wide.slice_mut(s![1..r + 1, 2..c + 2]).assign(x);
            wide
        }
    }
}

fn view(stored: &Array2<f64>, layout: Layout, dim: (usize, usize)) -> ArrayView2<'_, f64> {
    match layout {
        Layout::Rows => stored.view(),
        Layout::Transposed => stored.t(),
        Layout::Sliced => stored.slice(s![1..dim.0 + 1, 2..dim.1 + 2]),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn the_blocked_kernel_is_the_plain_dot_product_bit_for_bit((a, b, la, lb) in case()) {
        let (sa, sb) = (stored(&a, la), stored(&b, lb));
        let (va, vb) = (view(&sa, la, a.dim()), view(&sb, lb, b.dim()));
        // the layouts read back as the matrices (bit for bit: NaN != NaN)
        prop_assert!(same_bits(&va.to_owned(), &a) && same_bits(&vb.to_owned(), &b));
        let want = naive(a.view(), b.view());
        // `c` starts full of junk: the kernel overwrites, it does not accumulate
        let mut c = Array2::from_elem((a.nrows(), b.ncols()), -3.25);
        blocked(va, vb, None, c.view_mut());
        prop_assert!(same_bits(&c, &want), "a {:?}\nb {:?}\ngot {:?}\nwant {:?}", a, b, c, want);
    }

    #[test]
    fn gemm_agrees_with_the_dot_product_on_finite_numbers(
        (m, k, n) in (1usize..20, 1usize..20, 1usize..20),
        seed in any::<u64>(),
        transposed in any::<bool>(),
    ) {
        let mut x = seed | 1;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 11) as f64 / (1u64 << 53) as f64 * 8.0 - 4.0
        };
        let a = Array2::from_shape_fn((m, k), |_| next());
        let b = Array2::from_shape_fn((k, n), |_| next());
        let sb = stored(&b, if transposed { Layout::Transposed } else { Layout::Rows });
        let vb = if transposed { sb.t() } else { sb.view() };
        let want = naive(a.view(), b.view());
        let mut c = Array2::from_elem((m, n), f64::NAN);
        gemm(a.view(), vb, None, c.view_mut());
        for (got, want) in c.iter().zip(&want) {
            prop_assert!((got - want).abs() <= 1e-12 * (1.0 + want.abs()), "{} vs {}", got, want);
        }
    }
}

/// Shapes beyond one block of the kernel's cache blocking (K in blocks of 512, rows of
/// `a` in blocks of 64): a sentence's projection `(T, d_model) @ (d_model, d_model)` at
/// the page's sizes and beyond, a head's `Q Kᵀ`, and odd sizes across the block edges.
#[test]
fn engine_sized_products_match_bit_for_bit() {
    let shapes = [
        (7, 5, 15),
        (32, 64, 64),
        (128, 32, 128),
        (33, 17, 9),
        (70, 300, 9),
        (5, 520, 13),
        (130, 257, 6),
        (64, 512, 64),
        (67, 600, 5),
        (66, 1030, 7),
        (3, 1025, 4),
    ];
    for &(m, k, n) in &shapes {
        let a = Array2::from_shape_fn((m, k), |(i, j)| ((i * 31 + j * 17) % 23) as f64 / 7.0 - 1.5);
        let kt = Array2::from_shape_fn((n, k), |(i, j)| ((i * 13 + j * 29) % 19) as f64 / 5.0 - 1.8);
        let want = naive(a.view(), kt.t());
        let mut c = Array2::zeros((m, n));
        blocked(a.view(), kt.t(), None, c.view_mut());
        assert!(same_bits(&c, &want), "({m}, {k}) @ ({k}, {n})");
        // packed beforehand (as the projections keep their weights), the same numbers
        let packed = Packed::of(kt.t());
        let mut again = Array2::from_elem((m, n), 9.0);
        blocked(a.view(), kt.t(), Some(&packed), again.view_mut());
        assert!(same_bits(&again, &want), "({m}, {k}) @ ({k}, {n}), packed beforehand");
        // a packing of another shape is not used
        let other = Packed::of(a.view());
        let mut third = Array2::from_elem((m, n), 9.0);
        blocked(a.view(), kt.t(), Some(&other), third.view_mut());
        assert!(same_bits(&third, &want), "({m}, {k}) @ ({k}, {n}), another packing offered");
    }
}
