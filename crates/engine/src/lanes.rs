//! Two f64 lanes: the one type the engine's hot loops (the matrix product in
//! [`crate::matmul`] and the trainer's products in `train::ops`) are written over.
//!
//! [`Pair`] is a wasm `v128` in a wasm SIMD build (the app's: see `.cargo/config.toml`)
//! and a `[f64; 2]` everywhere else. LLVM turns the `[f64; 2]` loops into two-lane
//! instructions natively, but not for wasm, whose cost model keeps them scalar; written
//! over `v128` they run two doubles per instruction in the browser too. Each lane is IEEE
//! multiplication and addition, rounded as the scalar code rounds (no fused
//! multiply-add), so both instances give the same numbers to the bit and the native
//! tests check the arithmetic the browser runs.

/// Two f64 lanes and the operations the kernels need.
pub(crate) trait Lanes: Copy {
    const ZERO: Self;
    fn splat(x: f64) -> Self;
    /// Four numbers as two pairs.
    fn load4(p: &[f64; 4]) -> (Self, Self);
    /// Two pairs written into four numbers.
    fn store4(lo: Self, hi: Self, p: &mut [f64; 4]);
    /// `acc + a·b`, lane by lane, rounded twice (a product, then a sum).
    fn mul_add(self, a: Self, b: Self) -> Self;
    fn lanes(self) -> [f64; 2];
}

impl Lanes for [f64; 2] {
    const ZERO: Self = [0.0; 2];
    #[inline(always)]
    fn splat(x: f64) -> Self {
        [x; 2]
    }
    #[inline(always)]
    fn load4(p: &[f64; 4]) -> (Self, Self) {
        ([p[0], p[1]], [p[2], p[3]])
    }
    #[inline(always)]
    fn store4(lo: Self, hi: Self, p: &mut [f64; 4]) {
        *p = [lo[0], lo[1], hi[0], hi[1]];
    }
    #[inline(always)]
    fn mul_add(self, a: Self, b: Self) -> Self {
        [self[0] + a[0] * b[0], self[1] + a[1] * b[1]]
    }
    #[inline(always)]
    fn lanes(self) -> [f64; 2] {
        self
    }
}

/// The two-lane type of this build.
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
pub(crate) type Pair = simd::V;
/// The two-lane type of this build.
#[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
pub(crate) type Pair = [f64; 2];

#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
mod simd {
    use core::arch::wasm32::{
        f64x2_add, f64x2_extract_lane, f64x2_mul, f64x2_splat, v128, v128_load, v128_store,
    };

    /// A wasm `v128` read as two f64 lanes.
    #[derive(Clone, Copy)]
    pub struct V(v128);

    impl super::Lanes for V {
        const ZERO: Self = V(core::arch::wasm32::f64x2(0.0, 0.0));
        #[inline(always)]
        fn splat(x: f64) -> Self {
            V(f64x2_splat(x))
        }
        #[inline(always)]
        #[allow(unsafe_code)]
        fn load4(p: &[f64; 4]) -> (Self, Self) {
            // SAFETY: `p` is a valid, readable `[f64; 4]`: bytes 0..16 and 16..32 of it
            // (v128_load has no alignment requirement).
            unsafe {
                (V(v128_load(p.as_ptr().cast::<v128>())), V(v128_load(p.as_ptr().add(2).cast::<v128>())))
            }
        }
        #[inline(always)]
        #[allow(unsafe_code)]
        fn store4(lo: Self, hi: Self, p: &mut [f64; 4]) {
            // SAFETY: `p` is a valid, writable `[f64; 4]`: bytes 0..16 and 16..32 of it.
            unsafe {
                v128_store(p.as_mut_ptr().cast::<v128>(), lo.0);
                v128_store(p.as_mut_ptr().add(2).cast::<v128>(), hi.0);
            }
        }
        #[inline(always)]
        fn mul_add(self, a: Self, b: Self) -> Self {
            V(f64x2_add(self.0, f64x2_mul(a.0, b.0)))
        }
        #[inline(always)]
        fn lanes(self) -> [f64; 2] {
            [f64x2_extract_lane::<0>(self.0), f64x2_extract_lane::<1>(self.0)]
        }
    }
}
