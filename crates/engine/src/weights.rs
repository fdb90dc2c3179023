//! The four projections W_Q, W_K, W_V, W_O and their biases.
//!
//! Convention (the paper's): `y = x @ W + b`, with `W` of shape `(d_model_in,
//! d_model_out)`. PyTorch's `nn.Linear.weight` is stored transposed, `(out, in)`.

use std::sync::{Arc, Mutex, OnceLock};

use ndarray::{Array1, Array2};
use rand_chacha::ChaCha8Rng;
use rand_core::SeedableRng;

use crate::embedding::unit;
use crate::error::{check_number, EngineError, Field};
use crate::matmul::Packed;
use crate::scenario::{ExplicitWeights, ProjectionKind, Projections};

/// One linear layer, `y = x @ w + b`. Its numbers cannot change once it is made (there
/// is no `&mut` access), so the packed copy of `w` the wasm kernel reads, made on the
/// first product, is always `w`'s.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Linear {
    w: Array2<f64>,
    b: Array1<f64>,
    packed: PackedOnce,
}

impl Linear {
    /// The layer `x @ w + b`: `w` is `[d_model_in, d_model_out]`, `b` is `[d_model_out]`.
    pub fn new(w: Array2<f64>, b: Array1<f64>) -> Self {
        Self { w, b, packed: PackedOnce::default() }
    }

    /// The first `d_out` columns of the `d × d` identity: output `j` is input `j`. With
    /// `d_out < d` (the key and value projections of grouped-query attention), key/value
    /// head `g` sees columns `g·d_k .. (g+1)·d_k` of the embedding, as query head `g` does.
    fn identity(d: usize, d_out: usize) -> Self {
        Self::new(
            Array2::from_shape_fn((d, d_out), |(i, j)| f64::from(u8::from(i == j))),
            Array1::zeros(d_out),
        )
    }

    /// `[d_model_in, d_model_out]`
    pub fn w(&self) -> &Array2<f64> {
        &self.w
    }

    /// `[d_model_out]`
    pub fn b(&self) -> &Array1<f64> {
        &self.b
    }

    /// `w` as the wasm SIMD kernel reads it, packed on the first call (natively `None`:
    /// matrixmultiply packs for itself). Seeded weights are cached, so typing packs them
    /// once, not per keystroke.
    pub fn packed(&self) -> Option<&Packed> {
        if cfg!(all(target_arch = "wasm32", target_feature = "simd128")) {
            Some(self.packed.0.get_or_init(|| Packed::of(self.w.view())))
        } else {
            None
        }
    }
}

/// The packed copy of a [`Linear`]'s `w`, made once. It is derived from `w`, so two
/// layers are equal when their numbers are, packed or not, and `Debug` does not print
/// it again.
#[derive(Clone, Default)]
struct PackedOnce(OnceLock<Packed>);

impl std::fmt::Debug for PackedOnce {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.0.get().is_some() { "packed" } else { "not packed yet" })
    }
}

impl PartialEq for PackedOnce {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

/// The parameters of one multi-head attention layer.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Weights {
    /// Query projection.
    pub q: Linear,
    /// Key projection.
    pub k: Linear,
    /// Value projection.
    pub v: Linear,
    /// Output projection after concat.
    pub o: Linear,
}

impl Weights {
    /// No weights at all (every matrix 0 × 0): what [`crate::trace::Trace::from_json`] puts in
    /// `params` until the reader restores them with [`build`].
    pub fn empty() -> Self {
        let none = || Linear::new(Array2::zeros((0, 0)), Array1::zeros(0));
        Self { q: none(), k: none(), v: none(), o: none() }
    }
}

/// The number of parameters of a multi-head attention layer: four `d_model × d_model`
/// matrices and four biases, `4·d_model² + 4·d_model`. It does not depend on `h`.
pub fn parameter_count(d_model: usize) -> usize {
    parameter_count_kv(d_model, d_model)
}

/// The number of parameters when the keys and values are `kv_width = h_kv·d_k` wide
/// (grouped-query attention): W_Q and W_O are `d_model × d_model`, W_K and W_V
/// `d_model × kv_width`, plus the biases: `2·d_model² + 2·d_model·kv_width + 2·d_model +
/// 2·kv_width`.
pub fn parameter_count_kv(d_model: usize, kv_width: usize) -> usize {
    parameter_count_heads(d_model, d_model, kv_width)
}

/// The number of parameters when the heads have a size of their own: W_Q is
/// `d_model × q_width` and W_O `q_width × d_model` (`q_width = h·d_k`), W_K and W_V
/// `d_model × kv_width`, plus the biases: `2·d_model·q_width + q_width + d_model +
/// 2·d_model·kv_width + 2·kv_width`.
pub fn parameter_count_heads(d_model: usize, q_width: usize, kv_width: usize) -> usize {
    2 * d_model * q_width + q_width + d_model + 2 * d_model * kv_width + 2 * kv_width
}

/// Xavier (Glorot) uniform: `U(-a, a)` with `a = sqrt(6 / (fan_in + fan_out))`.
fn xavier_uniform(rng: &mut ChaCha8Rng, fan_in: usize, fan_out: usize) -> Array2<f64> {
    let a = (6.0 / (fan_in + fan_out) as f64).sqrt();
    Array2::from_shape_simple_fn((fan_in, fan_out), || a * (2.0 * unit(rng) - 1.0))
}

/// Builds the weights a scenario asks for. `kv_width` is the width of the keys and
/// values, `h_kv·d_k` (`d_model` unless the attention is grouped-query).
///
/// `"seeded"` draws W_Q, W_K, W_V, W_O in that order, each row-major, from one ChaCha8
/// stream seeded with `seed`; the biases are zero.
///
/// # Errors
/// [`EngineError::WeightShape`] or [`EngineError::BadNumber`] for explicit weights.
pub fn build(
    projections: &Projections,
    d_model: usize,
    kv_width: usize,
    seed: u64,
) -> Result<Arc<Weights>, EngineError> {
    build_sized(projections, d_model, d_model, kv_width, seed)
}

/// [`build`] for heads of a size of their own: W_Q is `(d_model, q_width)` and W_O
/// `(q_width, d_model)`, `q_width = h·d_k`. With `q_width = d_model` it is [`build`].
///
/// # Errors
/// As [`build`].
pub fn build_sized(
    projections: &Projections,
    d_model: usize,
    q_width: usize,
    kv_width: usize,
    seed: u64,
) -> Result<Arc<Weights>, EngineError> {
    match projections {
        Projections::Named(ProjectionKind::Identity) => Ok(Arc::new(Weights {
            q: Linear::identity(d_model, q_width),
            k: Linear::identity(d_model, kv_width),
            v: Linear::identity(d_model, kv_width),
            o: Linear::identity(q_width, d_model),
        })),
        Projections::Named(ProjectionKind::Seeded) => Ok(seeded(seed, d_model, q_width, kv_width)),
        Projections::Explicit(e) => explicit(e, d_model, q_width, kv_width).map(Arc::new),
    }
}

/// Seeded weights drawn lately, newest first: `(seed, d_model, q_width, kv_width)` →
/// weights.
/// Typing a sentence changes none of them, so the page draws 4·d_model² numbers once, not
/// per keystroke. The cache changes no result (the same seed always draws the same
/// numbers).
static SEEDED: Mutex<SeededCache> = Mutex::new(Vec::new());

/// `(seed, d_model, q_width, kv_width)` → weights, newest first.
type SeededCache = Vec<((u64, usize, usize, usize), Arc<Weights>)>;

/// How many `(seed, d_model, q_width, kv_width)` keys [`SEEDED`] keeps.
const SEEDED_CACHE_LEN: usize = 4;

/// The Xavier-uniform weights of `seed` and the sizes, from the cache when they are there.
fn seeded(seed: u64, d_model: usize, q_width: usize, kv_width: usize) -> Arc<Weights> {
    let key = (seed, d_model, q_width, kv_width);
    if let Ok(cache) = SEEDED.lock() {
        if let Some((_, w)) = cache.iter().find(|(k, _)| *k == key) {
            return Arc::clone(w);
        }
    }
    let w = Arc::new(draw_seeded_sized(seed, d_model, q_width, kv_width));
    if let Ok(mut cache) = SEEDED.lock() {
        cache.retain(|(k, _)| *k != key);
        cache.insert(0, (key, Arc::clone(&w)));
        cache.truncate(SEEDED_CACHE_LEN);
    }
    w
}

/// W_Q `(d_model, d_model)`, W_K and W_V `(d_model, kv_width)`, W_O `(d_model, d_model)`,
/// in that order, each row-major, from one ChaCha8 stream. With `kv_width = d_model` these
/// are the weights drawn before grouped-query attention existed, number for number.
pub fn draw_seeded(seed: u64, d_model: usize, kv_width: usize) -> Weights {
    draw_seeded_sized(seed, d_model, d_model, kv_width)
}

/// [`draw_seeded`] with W_Q `(d_model, q_width)` and W_O `(q_width, d_model)`, from the
/// same stream in the same order (so with `q_width = d_model` it is [`draw_seeded`]).
pub fn draw_seeded_sized(seed: u64, d_model: usize, q_width: usize, kv_width: usize) -> Weights {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut layer =
        |d_in: usize, d_out: usize| Linear::new(xavier_uniform(&mut rng, d_in, d_out), Array1::zeros(d_out));
    let (q, k, v) = (layer(d_model, q_width), layer(d_model, kv_width), layer(d_model, kv_width));
    Weights { q, k, v, o: layer(q_width, d_model) }
}

fn explicit(e: &ExplicitWeights, d: usize, q: usize, kv: usize) -> Result<Weights, EngineError> {
    Ok(Weights {
        q: linear("w_q", &e.w_q, "b_q", &e.b_q, (d, q), d)?,
        k: linear("w_k", &e.w_k, "b_k", &e.b_k, (d, kv), d)?,
        v: linear("w_v", &e.w_v, "b_v", &e.b_v, (d, kv), d)?,
        o: linear("w_o", &e.w_o, "b_o", &e.b_o, (q, d), d)?,
    })
}

fn linear(
    w_name: &'static str,
    w: &[Vec<f64>],
    b_name: &'static str,
    b: &[f64],
    (d, d_out): (usize, usize),
    d_model: usize,
) -> Result<Linear, EngineError> {
    let shape_error = |found: Vec<usize>| EngineError::WeightShape {
        name: w_name,
        expected: vec![d, d_out],
        found,
        d_model,
    };
    if w.len() != d {
        return Err(shape_error(vec![w.len(), w.first().map_or(0, Vec::len)]));
    }
    if let Some(row) = w.iter().find(|row| row.len() != d_out) {
        return Err(shape_error(vec![w.len(), row.len()]));
    }
    for (i, row) in w.iter().enumerate() {
        for (j, &v) in row.iter().enumerate() {
            check_number(v, Field::Projections, || format!("{w_name}[{i}][{j}]"))?;
        }
    }
    let bias = if b.is_empty() {
        Array1::zeros(d_out)
    } else if b.len() == d_out {
        for (i, &v) in b.iter().enumerate() {
            check_number(v, Field::Projections, || format!("{b_name}[{i}]"))?;
        }
        Array1::from(b.to_vec())
    } else {
        return Err(EngineError::WeightShape {
            name: b_name,
            expected: vec![d_out],
            found: vec![b.len()],
            d_model,
        });
    };
    let flat: Vec<f64> = w.iter().flatten().copied().collect();
    let w = Array2::from_shape_vec((d, d_out), flat).map_err(|_| shape_error(vec![w.len()]))?;
    Ok(Linear::new(w, bias))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seeded_weights_are_cached_and_unchanged_by_the_cache() {
        let seeded = Projections::Named(ProjectionKind::Seeded);
        let a = build(&seeded, 6, 6, 41).unwrap();
        let b = build(&seeded, 6, 6, 41).unwrap();
        assert!(Arc::ptr_eq(&a, &b), "the second build comes from the cache");
        assert_eq!(*a, draw_seeded(41, 6, 6));
        // other seeds and sizes push it out, and it is drawn again, the same
        for seed in 100..110 {
            build(&seeded, 6, 6, seed).unwrap();
        }
        let c = build(&seeded, 6, 6, 41).unwrap();
        assert!(!Arc::ptr_eq(&a, &c));
        assert_eq!(*a, *c);
        assert_ne!(*build(&seeded, 6, 6, 42).unwrap(), *a);
    }

    #[test]
    fn parameter_count_ignores_heads() {
        // 4·512² + 4·512 = 1_050_624, the paper's layer
        assert_eq!(parameter_count(512), 1_050_624);
        assert_eq!(parameter_count(3), 48);
        // GQA, d_model 8, h_kv·d_k = 4: 2·64 + 2·32 + 2·8 + 2·4 = 216
        assert_eq!(parameter_count_kv(8, 4), 216);
        assert_eq!(parameter_count_kv(8, 8), parameter_count(8));
    }

    #[test]
    fn grouped_weights_have_narrow_keys_and_values() {
        let seeded = build(&Projections::Named(ProjectionKind::Seeded), 6, 2, 3).unwrap();
        assert_eq!((seeded.q.w().dim(), seeded.k.w().dim(), seeded.v.w().dim()), ((6, 6), (6, 2), (6, 2)));
        assert_eq!((seeded.k.b().len(), seeded.o.w().dim()), (2, (6, 6)));
        // W_Q is drawn first, so it does not depend on the key width
        assert_eq!(seeded.q, draw_seeded(3, 6, 6).q);
        let id = build(&Projections::Named(ProjectionKind::Identity), 3, 2, 0).unwrap();
        assert_eq!(id.k.w(), &ndarray::array![[1.0, 0.0], [0.0, 1.0], [0.0, 0.0]]);
        let narrow = ExplicitWeights {
            w_q: eye(2),
            b_q: vec![],
            w_k: vec![vec![1.0], vec![2.0]],
            b_k: vec![0.5],
            w_v: vec![vec![1.0], vec![2.0]],
            b_v: vec![],
            w_o: eye(2),
            b_o: vec![],
        };
        let w = build(&Projections::Explicit(Box::new(narrow.clone())), 2, 1, 0).unwrap();
        assert_eq!(w.k.b().to_vec(), vec![0.5]);
        let err = build(&Projections::Explicit(Box::new(narrow)), 2, 2, 0).unwrap_err();
        assert_eq!(
            err,
            EngineError::WeightShape { name: "w_k", expected: vec![2, 2], found: vec![2, 1], d_model: 2 }
        );
    }

    #[test]
    fn seeded_is_deterministic_and_xavier_bounded() {
        let p = Projections::Named(ProjectionKind::Seeded);
        let a = build(&p, 8, 8, 7).unwrap();
        assert_eq!(a, build(&p, 8, 8, 7).unwrap());
        assert_ne!(a, build(&p, 8, 8, 8).unwrap());
        let bound = (6.0f64 / 16.0).sqrt();
        for l in [&a.q, &a.k, &a.v, &a.o] {
            assert!(l.w.iter().all(|v| v.abs() <= bound));
            assert!(l.b.iter().all(|&v| v == 0.0));
        }
        assert_ne!(a.q, a.k);
    }

    fn eye(d: usize) -> Vec<Vec<f64>> {
        (0..d).map(|i| (0..d).map(|j| f64::from(u8::from(i == j))).collect()).collect()
    }

    #[test]
    fn explicit_shape_errors() {
        let good = ExplicitWeights {
            w_q: eye(2),
            b_q: vec![],
            w_k: eye(2),
            b_k: vec![],
            w_v: eye(2),
            b_v: vec![],
            w_o: eye(2),
            b_o: vec![1.0, 2.0],
        };
        let w = build(&Projections::Explicit(Box::new(good.clone())), 2, 2, 0).unwrap();
        assert_eq!(w.o.b().to_vec(), vec![1.0, 2.0]);

        let mut ragged = good.clone();
        ragged.w_k[1].push(3.0);
        let err = build(&Projections::Explicit(Box::new(ragged)), 2, 2, 0).unwrap_err();
        assert_eq!(
            err,
            EngineError::WeightShape { name: "w_k", expected: vec![2, 2], found: vec![2, 3], d_model: 2 }
        );

        let mut bias = good.clone();
        bias.b_v = vec![1.0];
        let err = build(&Projections::Explicit(Box::new(bias)), 2, 2, 0).unwrap_err();
        assert!(matches!(err, EngineError::WeightShape { name: "b_v", .. }));

        let mut inf = good;
        inf.w_o[0][1] = f64::INFINITY;
        let err = build(&Projections::Explicit(Box::new(inf)), 2, 2, 0).unwrap_err();
        assert!(matches!(err, EngineError::BadNumber { ref what, .. } if what == "w_o[0][1]"));
    }
}
