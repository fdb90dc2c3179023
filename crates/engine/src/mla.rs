//! Multi-head latent attention (MLA), as DeepSeek-V2 and V3 compute it (Hugging Face's
//! `DeepseekV3Attention`).
//!
//! Every token is projected down to a small latent `c_KV` (`kv_lora_rank` numbers, then
//! RMSNorm) and to one RoPE key `k_rope` (`qk_rope_head_dim` numbers) shared by every head.
//! The per-head keys' unrotated part `k_nope` and the values are projected up from `c_KV`;
//! each head's key is `[k_nope, k_rope]`. The query is `x @ W_Q` (or, with `q_lora_rank`,
//! projected down, normalised and up again), and only its last `qk_rope_head_dim`
//! numbers turn with RoPE. A decoder caches `c_KV` and `k_rope`, not the keys and values:
//! [`cache_bytes_per_token`].
//!
//! Here: the built [`MlaParams`] (the scenario's [`Mla`] option and its [`MlaWeights`] are
//! in `mla_option.rs`), the math the `latent` stage reads, the absorbed scores
//! ([`absorbed_scores`]) and the cache sizes.

use crate::attention;
use crate::embedding::unit;
use crate::error::{check_number, EngineError, Field};
pub use crate::mla_option::{Mla, MlaWeights};
use crate::weights::Linear;
use ndarray::{s, Array1, Array2, Array3, Array4, Axis};
use rand_chacha::ChaCha8Rng;
use rand_core::SeedableRng;

/// YaRN's `m = 0.1·mscale·ln(factor) + 1`, 1 for a factor of at most 1 (Hugging Face's
/// `yarn_get_mscale`).
pub fn yarn_mscale(factor: f64, mscale: f64) -> f64 {
    if factor <= 1.0 {
        1.0
    } else {
        0.1 * mscale * factor.ln() + 1.0
    }
}

/// How the query is made: one projection, or down to `r_q`, RMSNorm, and up.
#[derive(Debug, Clone, PartialEq)]
pub enum QueryPath {
    /// `q_proj`: `x @ W_Q + b`.
    Direct(Linear),
    /// `q_b_proj(q_a_layernorm(q_a_proj(x)))`.
    Compressed {
        /// `q_a_proj`, `(d_model, r_q)`.
        down: Linear,
        /// `q_a_layernorm`'s weight, `(r_q)`.
        norm: Vec<f64>,
        /// `q_b_proj`, `(r_q, h·d_k)`.
        up: Linear,
    },
}

/// MLA's weights, built and checked.
#[derive(Debug, Clone, PartialEq)]
pub struct MlaParams {
    /// The query's projection(s).
    pub q: QueryPath,
    /// `kv_a_proj_with_mqa`, `(d_model, r_kv + d_rope)`.
    pub kv_a: Linear,
    /// `kv_a_layernorm`'s weight, `(r_kv)`.
    pub kv_a_norm: Vec<f64>,
    /// `kv_b_proj`, `(r_kv, h·(d_nope + d_v))`.
    pub kv_b: Linear,
    /// `o_proj`, `(h·d_v, d_model)`.
    pub o: Linear,
}

/// A matrix of MLA's weights, checked against its shape.
fn matrix(name: &'static str, rows: &[Vec<f64>], shape: (usize, usize)) -> Result<Array2<f64>, EngineError> {
    let found = vec![rows.len(), rows.first().map_or(0, Vec::len)];
    if rows.len() != shape.0 || rows.iter().any(|r| r.len() != shape.1) {
        return Err(EngineError::MlaWeightShape { name, expected: vec![shape.0, shape.1], found });
    }
    for (i, row) in rows.iter().enumerate() {
        for (j, &v) in row.iter().enumerate() {
            check_number(v, Field::Mla, || format!("mla.weights.{name}[{i}][{j}]"))?;
        }
    }
    Ok(Array2::from_shape_fn(shape, |(i, j)| rows.get(i).and_then(|r| r.get(j)).copied().unwrap_or(0.0)))
}

/// A bias or norm weight of `len` numbers: `empty` when omitted, else checked.
fn vector(name: &'static str, v: &[f64], len: usize, empty: f64) -> Result<Array1<f64>, EngineError> {
    if v.is_empty() {
        return Ok(Array1::from_elem(len, empty));
    }
    if v.len() != len {
        return Err(EngineError::MlaWeightShape { name, expected: vec![len], found: vec![v.len()] });
    }
    for (i, &x) in v.iter().enumerate() {
        check_number(x, Field::Mla, || format!("mla.weights.{name}[{i}]"))?;
    }
    Ok(Array1::from_vec(v.to_vec()))
}

/// One linear layer of MLA's weights.
fn linear(
    (w_name, w): (&'static str, &[Vec<f64>]),
    (b_name, b): (&'static str, &[f64]),
    shape: (usize, usize),
) -> Result<Linear, EngineError> {
    Ok(Linear::new(matrix(w_name, w, shape)?, vector(b_name, b, shape.1, 0.0)?))
}

/// The weights `mla` asks for: its own, or drawn from `seed` (Xavier uniform, in the order
/// query, `kv_a`, `kv_b`, `o`; zero biases; norm weights of ones).
///
/// # Errors
/// [`EngineError::MlaWeightShape`] or [`EngineError::BadNumber`] for given weights;
/// [`EngineError::Mla`] when a query weight of the other path is given.
pub fn build(mla: &Mla, d_model: usize, n_heads: usize, seed: u64) -> Result<MlaParams, EngineError> {
    let (r_kv, d_rope) = (mla.kv_lora_rank, mla.qk_rope_head_dim);
    let q_width = n_heads * mla.d_k();
    let kv_b_width = n_heads * (mla.qk_nope_head_dim + mla.v_head_dim);
    let o_rows = n_heads * mla.v_head_dim;
    let Some(w) = &mla.weights else {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut xavier = |rows: usize, cols: usize| {
            let a = (6.0 / (rows + cols) as f64).sqrt();
            Linear::new(
                Array2::from_shape_simple_fn((rows, cols), || a * (2.0 * unit(&mut rng) - 1.0)),
                Array1::zeros(cols),
            )
        };
        let q = match mla.q_lora_rank {
            None => QueryPath::Direct(xavier(d_model, q_width)),
            Some(r_q) => {
                let down = xavier(d_model, r_q);
                QueryPath::Compressed { down, norm: vec![1.0; r_q], up: xavier(r_q, q_width) }
            }
        };
        let kv_a = xavier(d_model, r_kv + d_rope);
        let kv_b = xavier(r_kv, kv_b_width);
        let o = xavier(o_rows, d_model);
        return Ok(MlaParams { q, kv_a, kv_a_norm: vec![1.0; r_kv], kv_b, o });
    };
    let q = match mla.q_lora_rank {
        None => {
            if !(w.w_q_a.is_empty() && w.w_q_b.is_empty() && w.q_a_norm.is_empty()) {
                let why = "w_q_a, q_a_norm and w_q_b need q_lora_rank; without it the query is x @ w_q";
                return Err(EngineError::Mla { what: "weights", why });
            }
            QueryPath::Direct(linear(("w_q", &w.w_q), ("b_q", &w.b_q), (d_model, q_width))?)
        }
        Some(r_q) => {
            if !w.w_q.is_empty() {
                let why = "w_q is the query without q_lora_rank; with it the query is w_q_a, q_a_norm, w_q_b";
                return Err(EngineError::Mla { what: "weights", why });
            }
            QueryPath::Compressed {
                down: linear(("w_q_a", &w.w_q_a), ("b_q_a", &w.b_q_a), (d_model, r_q))?,
                norm: vector("q_a_norm", &w.q_a_norm, r_q, 1.0)?.to_vec(),
                up: linear(("w_q_b", &w.w_q_b), ("b_q_b", &w.b_q_b), (r_q, q_width))?,
            }
        }
    };
    Ok(MlaParams {
        q,
        kv_a: linear(("w_kv_a", &w.w_kv_a), ("b_kv_a", &w.b_kv_a), (d_model, r_kv + d_rope))?,
        kv_a_norm: vector("kv_a_norm", &w.kv_a_norm, r_kv, 1.0)?.to_vec(),
        kv_b: linear(("w_kv_b", &w.w_kv_b), ("b_kv_b", &w.b_kv_b), (r_kv, kv_b_width))?,
        o: linear(("w_o", &w.w_o), ("b_o", &w.b_o), (o_rows, d_model))?,
    })
}

/// RMSNorm of every token's row, `w · x / √(mean(x²) + eps)` (`DeepseekV3RMSNorm`).
///
/// # Shapes
/// - x: `[B, T, n]`, weight: `[n]`
/// - returns: `[B, T, n]`
pub fn rms_norm_rows(x: &Array3<f64>, weight: &[f64], eps: f64) -> Array3<f64> {
    attention::rms_norm_heads(&x.clone().insert_axis(Axis(1)), weight, eps).index_axis_move(Axis(1), 0)
}

/// DeepSeek's interleaved RoPE layout gathered into `rotate_half`'s: the even dimensions,
/// then the odd ones (`x[..., 0::2]`, `x[..., 1::2]`), as Hugging Face's
/// `apply_rotary_pos_emb_interleave` reads its pairs.
///
/// # Shapes
/// - x: `[B, heads, T, d]` with `d` even
/// - returns: `[B, heads, T, d]`
pub fn deinterleave(x: &Array4<f64>) -> Array4<f64> {
    let half = x.dim().3 / 2;
    Array4::from_shape_fn(x.dim(), |(b, h, t, c)| {
        let from = if c < half { 2 * c } else { 2 * (c - half) + 1 };
        x.get((b, h, t, from)).copied().unwrap_or(0.0)
    })
}

/// The scores with `W_UK` absorbed into the query, from the cached latent without ever
/// forming a key: for head `h`, `q_nope_h · W_UK,hᵀ` is a query in the latent's space, so
/// `score = (q_nope_h W_UK,hᵀ) · c_KV + q_rot_h · k_rot`, the same numbers as
/// `[q_nope, q_rot] · [c_KV W_UK,h, k_rot]` (`kv_b_proj` has no bias in DeepSeek; a bias
/// `b_h` adds `q_nope_h · b_h`, kept here).
///
/// # Shapes
/// - q_nope: `[B, h, T_q, d_nope]`, q_rot: `[B, h, T_q, d_rope]`
/// - c_kv: `[B, T_k, r_kv]`, k_rot: `[B, 1, T_k, d_rope]`
/// - kv_b: `(r_kv, h·(d_nope + d_v))`
/// - returns: `[B, h, T_q, T_k]`, unscaled
pub fn absorbed_scores(
    q_nope: &Array4<f64>,
    q_rot: &Array4<f64>,
    c_kv: &Array3<f64>,
    k_rot: &Array4<f64>,
    kv_b: &Linear,
    d_v: usize,
) -> Array4<f64> {
    let (b, h, t_q, d_nope) = q_nope.dim();
    let t_k = c_kv.dim().1;
    let step = d_nope + d_v;
    let mut out = Array4::zeros((b, h, t_q, t_k));
    for hi in 0..h {
        let w_uk = kv_b.w().slice(s![.., hi * step..hi * step + d_nope]); // (r_kv, d_nope)
        let b_uk = kv_b.b().slice(s![hi * step..hi * step + d_nope]);
        for bi in 0..b {
            let qn = q_nope.slice(s![bi, hi, .., ..]); // (t_q, d_nope)
            let absorbed = qn.dot(&w_uk.t()); // (t_q, r_kv): the query in the latent's space
            let latent = absorbed.dot(&c_kv.index_axis(Axis(0), bi).t()); // (t_q, t_k)
            let from_bias = qn.dot(&b_uk); // (t_q)
            let rope = q_rot.slice(s![bi, hi, .., ..]).dot(&k_rot.slice(s![bi, 0, .., ..]).t());
            let mut o = out.slice_mut(s![bi, hi, .., ..]);
            o.assign(&(&latent + &rope));
            for (mut row, add) in o.outer_iter_mut().zip(from_bias.iter()) {
                row += *add;
            }
        }
    }
    out
}

/// What a decoder caches per token and layer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CacheKind {
    /// Keys and values of `kv_heads` heads (MHA: `h`; GQA: `h_kv`; MQA: 1), keys `d_k`
    /// and values `d_v` wide.
    Heads {
        /// Key/value heads cached.
        kv_heads: u64,
        /// Width of a key head.
        d_k: u64,
        /// Width of a value head.
        d_v: u64,
    },
    /// MLA: the latent `c_KV` and the shared RoPE key, `r_kv + d_rope` numbers.
    Latent {
        /// `kv_lora_rank`.
        kv_lora_rank: u64,
        /// `qk_rope_head_dim`.
        d_rope: u64,
    },
}

/// The bytes one token takes in the cache over `layers` layers at `bytes` per number:
/// `layers · kv_heads · (d_k + d_v) · bytes`, or MLA's `layers · (r_kv + d_rope) · bytes`.
/// DeepSeek-V3 (61 layers, r_kv = 512, d_rope = 64) in bf16: 61·576·2 = 70 272 bytes.
pub fn cache_bytes_per_token(kind: CacheKind, layers: u64, bytes: u64) -> u64 {
    let numbers = match kind {
        CacheKind::Heads { kv_heads, d_k, d_v } => kv_heads * (d_k + d_v),
        CacheKind::Latent { kv_lora_rank, d_rope } => kv_lora_rank + d_rope,
    };
    layers * numbers * bytes
}

/// What an MLA layer caches per token, in numbers, beside what it stands in for: every
/// head's key and value (MHA with MLA's head sizes) and the token's own vector `x`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LatentCache {
    /// `r_kv`, the latent's width.
    pub kv_lora_rank: u64,
    /// `d_rope`, the shared RoPE key's width.
    pub d_rope: u64,
    /// `h`.
    pub n_heads: u64,
    /// `d_k = d_nope + d_rope`, a query/key head's width.
    pub d_k: u64,
    /// `d_v`, a value head's width.
    pub d_v: u64,
    /// `d_model`, the width of `x`.
    pub d_model: u64,
}

/// Whether an MLA latent saves anything (DeepSeek-V2 §2.1.2 takes `r_kv ≪ h·d_h`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Compression {
    /// The cache is smaller than every head's key and value, and the latent no wider than
    /// the token's vector.
    Compresses,
    /// `r_kv > d_model`: `c_KV = RMSNorm(x · W_DKV)` is made from `x` by a linear map and a
    /// per-row scale (times the norm's fixed weight), so every latent lies in one
    /// `d_model`-wide subspace: the extra numbers hold nothing `x` does not, and a smaller
    /// latent would hold as much.
    WiderThanInput,
    /// `r_kv + d_rope ≥ h·(d_k + d_v)`: the cache is no smaller than every head's key and
    /// value.
    NoSmallerThanHeads,
}

impl LatentCache {
    /// The cache of `mla` in a model of `d_model` and `n_heads`.
    pub fn new(mla: &Mla, d_model: usize, n_heads: usize) -> Self {
        Self {
            kv_lora_rank: mla.kv_lora_rank as u64,
            d_rope: mla.qk_rope_head_dim as u64,
            n_heads: n_heads as u64,
            d_k: mla.d_k() as u64,
            d_v: mla.v_head_dim as u64,
            d_model: d_model as u64,
        }
    }

    /// Numbers a token caches per layer: `r_kv + d_rope`.
    pub fn latent(&self) -> u64 {
        cache_bytes_per_token(
            CacheKind::Latent { kv_lora_rank: self.kv_lora_rank, d_rope: self.d_rope },
            1,
            1,
        )
    }

    /// Numbers every head's key and value take per token and layer: `h·(d_k + d_v)`.
    pub fn heads(&self) -> u64 {
        cache_bytes_per_token(CacheKind::Heads { kv_heads: self.n_heads, d_k: self.d_k, d_v: self.d_v }, 1, 1)
    }

    /// Whether the latent saves anything; the cache's size is checked first.
    pub fn compression(&self) -> Compression {
        if self.latent() >= self.heads() {
            Compression::NoSmallerThanHeads
        } else if self.kv_lora_rank > self.d_model {
            Compression::WiderThanInput
        } else {
            Compression::Compresses
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_latent_compresses_until_it_is_wider_than_x_or_the_heads() {
        let cache = |r_kv| LatentCache::new(&Mla::sized(r_kv, 4, 2, 4), 8, 2);
        assert_eq!((cache(3).latent(), cache(3).heads()), (5, 20));
        assert_eq!(cache(8).compression(), Compression::Compresses);
        assert_eq!(cache(9).compression(), Compression::WiderThanInput);
        assert_eq!(cache(17).compression(), Compression::WiderThanInput);
        assert_eq!(cache(18).compression(), Compression::NoSmallerThanHeads);
        // DeepSeek-V3: 512 + 64 against 128·(192 + 128), and d_model = 7168
        let v3 = LatentCache::new(&Mla::sized(512, 128, 64, 128), 7168, 128);
        assert_eq!((v3.latent(), v3.heads(), v3.compression()), (576, 40_960, Compression::Compresses));
    }

    #[test]
    fn a_latent_wider_than_x_lies_in_a_d_model_wide_subspace() {
        // r_kv = 12 > d_model = 8: the c_KV rows of many tokens span at most 8 dimensions
        let mut s = crate::scenario::Scenario::identity(&["a b c d e f g h i j k l m n"], 8, 2);
        s.projections = crate::scenario::Projections::Named(crate::scenario::ProjectionKind::Seeded);
        s.mla = Some(Mla::sized(12, 4, 2, 4));
        let t = crate::run(&s).unwrap();
        let c = t.step(crate::step::StepName::CKv).unwrap();
        let rows = c.data.view().into_shape_with_order((14, 12)).unwrap().to_owned();
        assert_eq!(rank(rows), 8);
    }

    /// The rank of a matrix, by Gaussian elimination with partial pivoting.
    fn rank(mut m: Array2<f64>) -> usize {
        let (n, k) = m.dim();
        let mut r = 0;
        for c in 0..k {
            let Some(p) = (r..n).max_by(|&a, &b| m[[a, c]].abs().total_cmp(&m[[b, c]].abs())) else { break };
            if m[[p, c]].abs() < 1e-9 {
                continue;
            }
            for j in 0..k {
                m.swap([r, j], [p, j]);
            }
            for i in r + 1..n {
                let f = m[[i, c]] / m[[r, c]];
                for j in 0..k {
                    m[[i, j]] -= f * m[[r, j]];
                }
            }
            r += 1;
        }
        r
    }

    #[test]
    fn deepseek_v3_cache_per_token_beside_mha_gqa_and_mqa() {
        // DeepSeek-V3: 61 layers, 128 heads, d_k = 128 + 64 = 192, d_v = 128, bf16.
        let (layers, bf16) = (61, 2);
        let latent = CacheKind::Latent { kv_lora_rank: 512, d_rope: 64 };
        let heads = |kv_heads| CacheKind::Heads { kv_heads, d_k: 192, d_v: 128 };
        assert_eq!(cache_bytes_per_token(latent, layers, bf16), 70_272); // 61·576·2
        assert_eq!(cache_bytes_per_token(heads(128), layers, bf16), 4_997_120); // 61·128·320·2
        assert_eq!(cache_bytes_per_token(heads(8), layers, bf16), 312_320); // 61·8·320·2
        assert_eq!(cache_bytes_per_token(heads(1), layers, bf16), 39_040); // 61·320·2
                                                                           // the same as the key/value cache's formula when d_k = d_v
        let llama = CacheKind::Heads { kv_heads: 8, d_k: 128, d_v: 128 };
        assert_eq!(cache_bytes_per_token(llama, 32, 2), crate::decode::cache_bytes(32, 8, 128, 2, 1));
    }

    #[test]
    fn mscale_is_one_without_stretch() {
        assert_eq!(yarn_mscale(1.0, 1.0), 1.0);
        assert_eq!(yarn_mscale(0.5, 1.0), 1.0);
        assert!((yarn_mscale(40.0, 1.0) - (0.1 * 40f64.ln() + 1.0)).abs() < 1e-15);
    }

    #[test]
    fn deinterleave_gathers_evens_then_odds() {
        let x = Array4::from_shape_vec((1, 1, 1, 6), vec![0.0, 1.0, 2.0, 3.0, 4.0, 5.0]).unwrap();
        assert_eq!(deinterleave(&x).iter().copied().collect::<Vec<_>>(), vec![0.0, 2.0, 4.0, 1.0, 3.0, 5.0]);
    }
}

#[cfg(test)]
mod run_tests {
    use super::*;
    use crate::scenario::{Rope, RopeScaling, RopeStyle, Scenario};
    use crate::step::StepName;

    fn scenario(q_lora_rank: Option<usize>, style: RopeStyle) -> Scenario {
        let mut s = Scenario::identity(&["the cat sat on the mat", "a dog"], 8, 3);
        s.projections = crate::scenario::Projections::Named(crate::scenario::ProjectionKind::Seeded);
        s.seed = 5;
        s.mask.causal = true;
        s.rope = Some(Rope::new(style));
        s.mla = Some(Mla { q_lora_rank, ..Mla::sized(4, 3, 4, 2) });
        s
    }

    fn step(trace: &crate::Trace, name: StepName) -> ndarray::ArrayD<f64> {
        trace.step(name).map(|s| s.data.clone()).expect("step")
    }

    /// Every axis name on the way to a step, and on the step, names the size shown: the
    /// view of `kv_b` into heads is `d_nope + d_v` wide per head, not `h·(d_nope + d_v)`.
    #[test]
    fn every_shape_is_the_size_its_axis_names() {
        for (rank, style) in [(None, RopeStyle::Half), (Some(5), RopeStyle::Interleaved)] {
            let trace = crate::run(&scenario(rank, style)).unwrap();
            for st in &trace.steps {
                let paths = st.shape_path.iter().map(|r| (&r.dims, &r.shape));
                for (dims, shape) in paths.chain([(&st.dims, &st.shape)]) {
                    let named: Vec<usize> = dims.iter().map(|&a| trace.axis_len(a)).collect();
                    assert_eq!(&named, shape, "{}: {dims:?}", st.name);
                }
            }
        }
    }

    #[test]
    fn absorbing_w_uk_into_the_query_gives_the_same_scores() {
        for (rank, style) in [(None, RopeStyle::Half), (Some(5), RopeStyle::Interleaved)] {
            let s = scenario(rank, style);
            let trace = crate::run(&s).unwrap();
            let m = s.mla.as_ref().unwrap();
            let params = build(m, 8, 3, s.seed).unwrap();
            let q = step(&trace, StepName::QCat).into_dimensionality::<ndarray::Ix4>().unwrap();
            let q_nope = q.slice(s![.., .., .., ..3]).to_owned();
            let q_rot = step(&trace, StepName::QRot).into_dimensionality().unwrap();
            let c_kv = step(&trace, StepName::CKv).into_dimensionality().unwrap();
            let k_rot = step(&trace, StepName::KRot).into_dimensionality().unwrap();
            let absorbed = absorbed_scores(&q_nope, &q_rot, &c_kv, &k_rot, &params.kv_b, 2);
            assert_eq!(trace.absorbed_scores(), Some(absorbed.clone()), "the trace's own weights");
            let scores = step(&trace, StepName::Scores);
            let worst = absorbed.iter().zip(scores.iter()).map(|(a, b)| (a - b).abs()).fold(0.0, f64::max);
            assert!(worst <= 1e-12, "absorbed scores differ by {worst}");
            // and the absorbed query is r_kv wide, not d_nope: what the cache is read with
            assert_eq!(c_kv.dim().2, 4);
        }
    }

    #[test]
    fn the_trace_has_the_latent_steps_and_values_of_their_own_width() {
        let trace = crate::run(&scenario(Some(5), RopeStyle::Half)).unwrap();
        trace.check_invariants().unwrap();
        assert_eq!(trace.step(StepName::CKv).unwrap().shape, vec![2, 6, 4]);
        assert_eq!(trace.step(StepName::KPe).unwrap().shape, vec![2, 1, 6, 4]);
        assert_eq!(trace.step(StepName::VHeads).unwrap().shape, vec![2, 3, 6, 2]);
        assert_eq!(trace.step(StepName::Concat).unwrap().shape, vec![2, 6, 6]);
        assert!(trace.step(StepName::K).is_none() && trace.step(StepName::KHeads).is_none());
        // every head's key ends with the same shared RoPE key
        let k = step(&trace, StepName::KCat);
        for h in 1..3 {
            for (a, b) in k.slice(s![.., 0, .., 3..]).iter().zip(k.slice(s![.., h, .., 3..]).iter()) {
                assert_eq!(a, b);
            }
        }
    }

    #[test]
    fn mscale_all_dim_multiplies_the_scale_by_m_squared() {
        let mut s = scenario(None, RopeStyle::Half);
        let scaling = RopeScaling::Linear { factor: 4.0 };
        s.rope = Some(Rope { scaling: Some(scaling), ..Rope::new(RopeStyle::Half) });
        s.mla.as_mut().unwrap().mscale_all_dim = Some(0.5);
        let trace = crate::run(&s).unwrap();
        let m = 0.1 * 0.5 * 4f64.ln() + 1.0;
        let want = m * m / 7f64.sqrt();
        assert!((trace.scale.unwrap() - want).abs() < 1e-15);
        let (scores, scaled) = (step(&trace, StepName::Scores), step(&trace, StepName::Scaled));
        for (a, b) in scores.iter().zip(scaled.iter()) {
            assert!((a * want - b).abs() <= 1e-12 * b.abs().max(1.0));
        }
    }

    #[test]
    fn every_mla_error_names_the_mla_field() {
        use crate::error::Field;
        type Edit = fn(&mut Scenario);
        let edits: [(Edit, Field); 9] = [
            (|s| s.mla.as_mut().unwrap().kv_lora_rank = 0, Field::Mla),
            (|s| s.mla.as_mut().unwrap().qk_rope_head_dim = 3, Field::Mla),
            (|s| s.mla.as_mut().unwrap().eps = 0.0, Field::Mla),
            (|s| s.mla.as_mut().unwrap().mscale_all_dim = Some(1.0), Field::Mla),
            (|s| s.mla.as_mut().unwrap().v_head_dim = 2000, Field::Mla),
            (|s| s.d_head = Some(4), Field::Mla),
            (|s| s.n_kv_heads = Some(1), Field::NKvHeads),
            (
                |s| {
                    s.projections =
                        crate::scenario::Projections::Named(crate::scenario::ProjectionKind::Identity)
                },
                Field::Mla,
            ),
            (
                |s| {
                    // 6 rows of w_o needed: h·d_v
                    let w = MlaWeights::uncompressed(
                        vec![vec![0.0; 21]; 8],
                        vec![vec![0.0; 8]; 8],
                        vec![vec![0.0; 15]; 4],
                        vec![vec![0.0; 8]; 5],
                    );
                    s.mla.as_mut().unwrap().weights = Some(Box::new(w));
                },
                Field::Mla,
            ),
        ];
        for (edit, field) in edits {
            let mut s = scenario(None, RopeStyle::Half);
            edit(&mut s);
            let e = crate::run(&s).unwrap_err();
            assert_eq!(e.field(), field, "{e}");
        }
        // fewer key/value heads: beside h_kv, in the page's words
        let mut s = scenario(None, RopeStyle::Half);
        s.n_kv_heads = Some(1);
        let e = crate::run(&s).unwrap_err().to_string();
        assert!(e.starts_with("h_kv = 1 with MLA on: MLA has no key/value heads to share"), "{e}");
        assert!(e.contains("set h_kv to h = 3, or turn MLA off") && !e.contains("n_kv_heads"), "{e}");
    }

    /// DeepSeek-V2's layout turns each pair where it is: its q_rot and k_rot, gathered
    /// evens-then-odds, are DeepSeek-V3's, each pair is the plain interleaved turn of the
    /// weights' own pair, and the scores, weights and output are V3's to the last bits
    /// rounding allows. Without the interleaved style it is refused by name.
    #[test]
    fn deepseek_v2_turns_the_pairs_in_place() {
        for rank in [None, Some(5)] {
            let v3 = scenario(rank, RopeStyle::Interleaved);
            let mut v2 = v3.clone();
            v2.mla.as_mut().unwrap().rope_in_place = true;
            let (t3, t2) = (crate::run(&v3).unwrap(), crate::run(&v2).unwrap());
            for name in [StepName::QRot, StepName::KRot] {
                let (a, b) = (step(&t3, name), step(&t2, name));
                assert_eq!(a, deinterleave(&b.into_dimensionality().unwrap()).into_dyn(), "{name:?}");
            }
            // the shared key of token 2 is the interleaved turn of k_pe's own pairs
            let (k_pe, k_rot) = (step(&t2, StepName::KPe), step(&t2, StepName::KRot));
            let row: Vec<f64> = (0..4).map(|c| k_pe[[1, 0, 2, c]]).collect();
            let base = v2.rope.unwrap().base;
            for i in 0..2 {
                // pair (2i, 2i+1) as the complex number x0 + i·x1, times e^{i·2·θ_i}
                let angle = 2.0 * base.powf(-(2.0 * i as f64) / 4.0);
                let (x0, x1) = (row[2 * i], row[2 * i + 1]);
                let want = [x0 * angle.cos() - x1 * angle.sin(), x1 * angle.cos() + x0 * angle.sin()];
                for (c, w) in want.iter().enumerate() {
                    let got = k_rot[[1, 0, 2, 2 * i + c]];
                    assert!((got - w).abs() <= 1e-15, "k_rot[{}]: {got} vs {w}", 2 * i + c);
                }
            }
            // (the export turns the pairs in place too: attention-export's latent.rs tests)
            let q_rot = t2.step(StepName::QRot).unwrap();
            assert!(q_rot.pytorch.contains("torch.stack(") && q_rot.pytorch.ends_with(".flatten(-2)"));
            assert!(
                q_rot.op.contains("DeepSeek-V2")
                    && t3.step(StepName::QRot).unwrap().op.contains("evens first")
            );
            for name in [StepName::Scores, StepName::Weights, StepName::Output] {
                let (a, b) = (step(&t3, name), step(&t2, name));
                let worst = a.iter().zip(b.iter()).map(|(x, y)| (x - y).abs()).fold(0.0, f64::max);
                assert!(worst <= 1e-12, "{name:?} differs by {worst}");
            }
        }
        let mut half = scenario(None, RopeStyle::Half);
        half.mla.as_mut().unwrap().rope_in_place = true;
        let e = crate::run(&half).map(|_| ()).unwrap_err();
        assert_eq!(e.field(), crate::error::Field::Mla);
        assert!(e.to_string().contains("rope_in_place"), "{e}");
    }

    #[test]
    fn the_scenario_json_reads_mla_and_refuses_unknown_fields() {
        let s = scenario(Some(5), RopeStyle::Interleaved);
        assert_eq!(Scenario::from_json(&s.to_json()).unwrap(), s);
        let typo = s.to_json().replace("\"kv_lora_rank\"", "\"kv_rank\"");
        let e = Scenario::from_json(&typo).unwrap_err();
        assert_eq!(e.field(), crate::error::Field::Scenario);
        assert!(e.to_string().contains("kv_rank"), "{e}");
    }
}
