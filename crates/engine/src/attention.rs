//! The math, one function per step, each named after what the tutorials call it.
//!
//! Every function takes and returns plain `ndarray` tensors with the seeds' axis order:
//! `(B, T, d_model)` for token vectors and `(B, h, T, ·)` once split into heads. The
//! reshapes mirror PyTorch: [`view`] is `view`, `permuted_axes` is `permute`/`transpose`.

use ndarray::{s, Array, Array3, Array4, ArrayView2, Dimension, IntoDimension, Zip};

use crate::error::{EngineError, Field};
use crate::matmul::gemm;
use crate::scenario::Rope;
use crate::weights::Linear;

/// PyTorch's `.contiguous().view(shape)`: the same numbers in row-major order, read with
/// another shape.
///
/// # Errors
/// [`EngineError::Reshape`] when the element counts differ.
pub fn view<D: Dimension, E: IntoDimension>(
    a: Array<f64, D>,
    shape: E,
) -> Result<Array<f64, E::Dim>, EngineError> {
    let from = a.shape().to_vec();
    let shape = shape.into_dimension();
    let to = shape.slice().to_vec();
    // `.contiguous()`: lay the numbers out in the order of the current axes first, as a
    // transposed tensor must be before PyTorch lets you `view` it. A tensor that already
    // is contiguous is reused, not copied (as in PyTorch).
    let contiguous = if a.is_standard_layout() { a } else { a.as_standard_layout().into_owned() };
    contiguous.into_shape_with_order(shape).map_err(|_| EngineError::Reshape { op: "view", from, to })
}

/// `x @ W + b`, applied to every token of every sentence.
///
/// # Shapes
/// - x: `[B, T, d_in]`, layer.w: `[d_in, d_out]`, layer.b: `[d_out]`
/// - returns: `[B, T, d_out]`
pub fn linear(x: &Array3<f64>, layer: &Linear) -> Array3<f64> {
    linear_or_known(x, layer, |_, _| None)
}

/// [`linear`], except that a sentence for which `known(b, x_b)` gives its result
/// (`(T, d_out)`) takes a copy of it instead of being computed: the caller vouches that
/// it is what `x_b @ W + b` gives (`crate::reuse` finds it in the previous trace).
pub fn linear_or_known<'a>(
    x: &Array3<f64>,
    layer: &Linear,
    mut known: impl FnMut(usize, ArrayView2<'_, f64>) -> Option<ArrayView2<'a, f64>>,
) -> Array3<f64> {
    let (b, t, _d_in) = x.dim();
    let mut y = Array3::zeros((b, t, layer.w().ncols()));
    for (i, (x_b, mut y_b)) in x.outer_iter().zip(y.outer_iter_mut()).enumerate() {
        if let Some(done) = known(i, x_b).filter(|d| d.dim() == y_b.dim()) {
            y_b.assign(&done);
            continue;
        }
        // y_b = x_b @ W + b, one sentence at a time: (T, d_in) @ (d_in, d_out)
        gemm(x_b, layer.w().view(), layer.packed(), y_b.view_mut());
        y_b += layer.b();
    }
    y
}

/// The width of one head, `d_k = d_model / h`, when `h` divides `d_model`.
///
/// # Errors
/// [`EngineError::ZeroSize`] for `h = 0`, [`EngineError::HeadsDoNotDivide`] otherwise.
pub fn head_width(d_model: usize, n_heads: usize) -> Result<usize, EngineError> {
    if n_heads == 0 {
        return Err(EngineError::ZeroSize { what: "n_heads", field: Field::NHeads });
    }
    if !d_model.is_multiple_of(n_heads) {
        return Err(EngineError::HeadsDoNotDivide { d_model, n_heads });
    }
    Ok(d_model / n_heads)
}

/// Splits `d_model` into `h` heads of `d_k` and moves the head axis before T:
/// `x.view(B, T, h, d_k).transpose(1, 2)`.
///
/// # Shapes
/// - x: `[B, T, d_model]`
/// - returns: `[B, h, T, d_k]`, with `d_k = d_model / h`
///
/// # Errors
/// [`EngineError::ZeroSize`] or [`EngineError::HeadsDoNotDivide`].
pub fn split_heads(x: Array3<f64>, n_heads: usize) -> Result<Array4<f64>, EngineError> {
    let (b, t, d_model) = x.dim();
    let d_k = head_width(d_model, n_heads)?;
    let viewed = view(x, (b, t, n_heads, d_k))?; // (b, t, h, d_k)
    let transposed = viewed.permuted_axes([0, 2, 1, 3]); // (b, h, t, d_k)
    Ok(transposed.as_standard_layout().into_owned())
}

/// Undoes [`split_heads`]: `context.transpose(1, 2).contiguous().view(B, T, d_model)`.
/// Row `t` of the result is head 0's `d_k` numbers for token `t`, then head 1's, …: the
/// heads laid side by side.
///
/// # Shapes
/// - context: `[B, h, T, d_k]`
/// - returns: `[B, T, h·d_k]`
///
/// # Errors
/// None in practice; [`EngineError::Reshape`] is kept for the type.
pub fn merge_heads(context: Array4<f64>) -> Result<Array3<f64>, EngineError> {
    let (b, h, t, d_k) = context.dim();
    let transposed = context.permuted_axes([0, 2, 1, 3]); // (b, t, h, d_k), not contiguous
    view(transposed, (b, t, h * d_k)) // (b, t, d_model)
}

/// `1 / √(mean(x²) + eps)` of one head's row: what RMSNorm multiplies the row by.
pub fn inverse_rms(row: &[f64], eps: f64) -> f64 {
    let mean = row.iter().map(|x| x * x).sum::<f64>() / row.len().max(1) as f64;
    1.0 / (mean + eps).sqrt()
}

/// QK-norm: RMSNorm of every head's row of `d_k` numbers, `w · x / √(mean(x²) + eps)`,
/// one weight `w` shared by all heads (Qwen3's and Gemma 3's `q_norm`, `k_norm`).
///
/// # Shapes
/// - x: `[B, heads, T, d_k]`, weight: `[d_k]`
/// - returns: `[B, heads, T, d_k]`
pub fn rms_norm_heads(x: &Array4<f64>, weight: &[f64], eps: f64) -> Array4<f64> {
    let mut out = x.as_standard_layout().into_owned();
    let d_k = out.dim().3;
    if let (Some(data), true) = (out.as_slice_mut(), d_k > 0) {
        for row in data.chunks_exact_mut(d_k) {
            let r = inverse_rms(row, eps);
            for (x, w) in row.iter_mut().zip(weight) {
                *x = w * (*x * r);
            }
        }
    }
    out
}

/// OLMo 2's QK-norm: RMSNorm of each token's whole projection, all `heads·d_k` numbers
/// together, `w · x / √(mean(x²) + eps)`, the weight `w` one number per number of the
/// projection (head `h`, feature `c` at `h·d_k + c`). The same as `q_norm(q)` on the
/// `(B, T, heads·d_k)` projection, then the split into heads.
///
/// # Shapes
/// - x: `[B, heads, T, d_k]`, weight: `[heads·d_k]`
/// - returns: `[B, heads, T, d_k]`
pub fn rms_norm_whole(x: &Array4<f64>, weight: &[f64], eps: f64) -> Array4<f64> {
    let (b, heads, t, d_k) = x.dim();
    let mut out = x.to_owned();
    for bi in 0..b {
        for ti in 0..t {
            let token = x.slice(ndarray::s![bi, .., ti, ..]); // (heads, d_k)
            let r = inverse_rms(&token.iter().copied().collect::<Vec<f64>>(), eps);
            for h in 0..heads {
                for c in 0..d_k {
                    let w = weight.get(h * d_k + c).copied().unwrap_or(1.0);
                    if let (Some(o), Some(v)) = (out.get_mut((bi, h, ti, c)), x.get((bi, h, ti, c))) {
                        *o = w * (v * r);
                    }
                }
            }
        }
    }
    out
}

/// QK-norm of query (`keys` false) or key heads as `norm` asks: each head apart
/// ([`rms_norm_heads`]) or the whole projection ([`rms_norm_whole`]).
///
/// # Shapes
/// - x: `[B, heads, T, d_k]`
/// - returns: `[B, heads, T, d_k]`
pub fn qk_norm(x: &Array4<f64>, norm: &crate::scenario::QkNorm, keys: bool) -> Array4<f64> {
    let (_, heads, _, d_k) = x.dim();
    let weight = norm.weight(keys, norm.weight_len(heads, d_k));
    if norm.whole_projection {
        rms_norm_whole(x, &weight, norm.eps)
    } else {
        rms_norm_heads(x, &weight, norm.eps)
    }
}

/// Rotates every query or key head at its token's position (RoPE). Each pair of
/// dimensions `(c, partner)` ([`RopeStyle::partner`]) is turned by `pos·θ_i` ([`Rope::angle`]): the first of
/// the pair becomes `x_c·cos − x_partner·sin`, the second `x_c·cos + x_partner·sin`.
/// With [`RopeStyle::Half`] this is Hugging Face's `q * cos + rotate_half(q) * sin`;
/// with [`RopeStyle::Interleaved`], Meta's complex product `q · e^{i·pos·θ}`. Positions
/// count from 0 within each (padded) sentence, as the sinusoidal encoding's do.
///
/// # Shapes
/// - x: `[B, heads, T, d_k]` with `d_k` even
/// - returns: `[B, heads, T, d_k]`
pub fn rotate(x: &Array4<f64>, rope: Rope) -> Array4<f64> {
    rotate_from(x, rope, 0)
}

/// [`rotate`] for tokens at positions `first, first + 1, …`: a decoder turns its one new
/// query and key at their absolute position `t`.
///
/// # Shapes
/// - x: `[B, heads, T, d_k]` with `d_k` even
/// - returns: `[B, heads, T, d_k]`
pub fn rotate_from(x: &Array4<f64>, rope: Rope, first: usize) -> Array4<f64> {
    let (_, _, t, d_k) = x.dim();
    // With a rotary fraction only the first r dimensions turn, as a head of width r would.
    let r = rope.rotary_dims(d_k).min(d_k);
    let angles = ndarray::Array2::from_shape_fn((t, r / 2), |(pos, i)| rope.angle(first + pos, i, r));
    // YaRN's attention factor multiplies cos and sin, as Hugging Face's attention_scaling
    let amp = rope.attention_factor();
    let (cos, sin) = (angles.mapv(|a| a.cos() * amp), angles.mapv(|a| a.sin() * amp));
    let mut out = Array4::zeros(x.dim());
    Zip::indexed(&mut out).for_each(|(b, h, pos, c), y| {
        if c >= r {
            *y = x.get((b, h, pos, c)).copied().unwrap_or(0.0); // beyond the fraction: unchanged
            return;
        }
        let (partner, first) = rope.style.partner(c, r);
        let i = rope.style.pair_index(c, r);
        let (cos, sin) =
            (cos.get((pos, i)).copied().unwrap_or(1.0), sin.get((pos, i)).copied().unwrap_or(0.0));
        let (x_c, x_p) = (
            x.get((b, h, pos, c)).copied().unwrap_or(0.0),
            x.get((b, h, pos, partner)).copied().unwrap_or(0.0),
        );
        // rotate_half puts −x_partner in the first half and x_partner in the second
        let rotated = if first { -x_p } else { x_p };
        *y = x_c * cos + rotated * sin;
    });
    out
}

/// Repeats each key/value head for its group of `n_rep = h / h_kv` query heads, so query
/// head `i` reads key/value head `⌊i / n_rep⌋`: PyTorch's
/// `k.repeat_interleave(n_rep, dim=1)`, Hugging Face's `repeat_kv`.
///
/// # Shapes
/// - x: `[B, h_kv, T, d_k]`
/// - returns: `[B, h_kv·n_rep, T, d_k]`
pub fn repeat_kv(x: &Array4<f64>, n_rep: usize) -> Array4<f64> {
    let (b, h_kv, t, d_k) = x.dim();
    Array4::from_shape_fn((b, h_kv * n_rep, t, d_k), |(bi, h, i, c)| {
        x.get((bi, h / n_rep.max(1), i, c)).copied().unwrap_or(0.0)
    })
}

/// ALiBi's slope per head, as in the paper's code (Press et al., 2022): for `h` a power of
/// two, `m_k = 2^(−8(k+1)/h)` (h = 8: 1/2, 1/4, …, 1/256); otherwise the slopes of the
/// largest power of two `n < h`, then every other slope of `2n` for the remaining heads.
pub fn alibi_slopes(h: usize) -> Vec<f64> {
    fn power_of_two(n: usize) -> Vec<f64> {
        (1..=n).map(|k| 2f64.powf(-8.0 * k as f64 / n as f64)).collect()
    }
    if h == 0 {
        return vec![];
    }
    if h.is_power_of_two() {
        return power_of_two(h);
    }
    let n = 1 << h.ilog2(); // the largest power of two below h
    let mut slopes = power_of_two(n);
    slopes.extend(power_of_two(2 * n).into_iter().step_by(2).take(h - n));
    slopes
}

/// How far key `j` is from query `i` as ALiBi counts it. Under a causal mask, the paper's
/// `j − i` (Press et al., 2022): every key a query sees is at or before it, so this is
/// never positive where it counts. Without one, `j − i` would reward every key after the
/// query (up to `+m·(T − 1)` for the farthest), so the bias takes the symmetric form of
/// bidirectional ALiBi, `−|i − j|`, as MosaicBERT (Portes et al., 2023) and JinaBERT
/// (Günther et al., 2023) do. The symmetric form is chosen over refusing ALiBi without a
/// causal mask because it is the published form for encoders and cross-attention, and a
/// scenario that ran before still runs, with no distance rewarded.
pub fn alibi_distance(causal: bool, i: usize, j: usize) -> f64 {
    let d = j as f64 - i as f64;
    if causal {
        d
    } else {
        -d.abs()
    }
}

/// ALiBi's bias `m_h·(j − i)` for query `i` and key `j` of head `h` under a causal mask,
/// `−m_h·|i − j|` without one ([`alibi_distance`]): 0 on the diagonal, more negative the
/// farther the key is. The same for every sentence.
///
/// # Shapes
/// - returns: `[1, h, T_q, T_k]`
pub fn alibi_bias(slopes: &[f64], t_q: usize, t_k: usize, causal: bool) -> Array4<f64> {
    Array4::from_shape_fn((1, slopes.len(), t_q, t_k), |(_, h, i, j)| {
        slopes.get(h).copied().unwrap_or(0.0) * alibi_distance(causal, i, j)
    })
}

/// `scaled + bias`, the bias broadcast over the sentences.
///
/// # Shapes
/// - scaled: `[B, h, T_q, T_k]`, bias: `[1, h, T_q, T_k]`
/// - returns: `[B, h, T_q, T_k]`
pub fn add_bias(scaled: &Array4<f64>, bias: &Array4<f64>) -> Array4<f64> {
    let mut out = scaled.as_standard_layout().into_owned();
    if let Some(per_head) = bias.outer_iter().next() {
        for mut sentence in out.outer_iter_mut() {
            if sentence.shape() == per_head.shape() {
                sentence += &per_head;
            }
        }
    }
    out
}

/// `a @ b` (or `a @ bᵀ`) for every sentence and head.
///
/// # Shapes
/// - a: `[B, h, M, K]`, b: `[B, h, K, N]` (or `[B, h, N, K]` with `transpose_b`)
/// - returns: `[B, h, M, N]`
fn matmul_per_head(a: &Array4<f64>, b: &Array4<f64>, transpose_b: bool) -> Array4<f64> {
    let (n_b, n_h, m, _) = a.dim();
    let n = if transpose_b { b.dim().2 } else { b.dim().3 };
    let mut out = Array4::zeros((n_b, n_h, m, n));
    for bi in 0..n_b {
        for hi in 0..n_h {
            let a_bh = a.slice(s![bi, hi, .., ..]);
            let b_bh = b.slice(s![bi, hi, .., ..]);
            let b_bh = if transpose_b { b_bh.reversed_axes() } else { b_bh };
            let mut out_bh = out.slice_mut(s![bi, hi, .., ..]);
            gemm(a_bh, b_bh, None, out_bh.view_mut());
        }
    }
    out
}

/// The attention scores `Q Kᵀ`: how well each query matches each key.
///
/// # Shapes
/// - q_heads: `[B, h, T_q, d_k]`, k_heads: `[B, h, T_k, d_k]`
/// - returns: `[B, h, T_q, T_k]`
pub fn attn_scores(q_heads: &Array4<f64>, k_heads: &Array4<f64>) -> Array4<f64> {
    matmul_per_head(q_heads, k_heads, true)
}

/// Divides the scores by `√d_k`, so their spread does not grow with `d_k`.
pub fn scale(scores: &Array4<f64>, d_k: usize) -> Array4<f64> {
    scores / (d_k as f64).sqrt()
}

/// [`scale`], or, with a `factor` of its own, the scores times it (Gemma 2 multiplies by
/// `query_pre_attn_scalar^(−1/2)` instead of dividing by `√d_k`).
pub fn scale_by(scores: &Array4<f64>, d_k: usize, factor: Option<f64>) -> Array4<f64> {
    match factor {
        Some(f) => scores * f,
        None => scale(scores, d_k),
    }
}

/// One score softcapped: `c·tanh(s / c)`, written as Gemma 2's code computes it (divide,
/// tanh, multiply), so the numbers are `transformers`' in float64.
pub fn softcap_one(s: f64, c: f64) -> f64 {
    (s / c).tanh() * c
}

/// Logit softcapping on every score ([`softcap_one`]): close to the score while it is
/// small against `c`, never beyond `±c`.
pub fn softcap(scores: &Array4<f64>, c: f64) -> Array4<f64> {
    scores.mapv(|s| softcap_one(s, c))
}

/// `masked_fill`: every blocked score is *replaced* by `fill`; the same `(B, T, T)` mask
/// is used for every head (`mask.unsqueeze(1)` broadcast over h).
///
/// # Shapes
/// - scaled: `[B, h, T_q, T_k]`, mask: `[B, T_q, T_k]` (`true` = blocked)
/// - returns: `[B, h, T_q, T_k]`
pub fn apply_mask(scaled: &Array4<f64>, mask: &Array3<bool>, fill: f64) -> Array4<f64> {
    let mut masked = scaled.as_standard_layout().into_owned();
    if !mask.iter().any(|&blocked| blocked) {
        return masked; // nothing blocked: a copy is all there is to do
    }
    for (mut per_sentence, mask_b) in masked.outer_iter_mut().zip(mask.outer_iter()) {
        for mut head in per_sentence.outer_iter_mut() {
            Zip::from(&mut head).and(&mask_b).for_each(|score, &blocked| {
                if blocked {
                    *score = fill;
                }
            });
        }
    }
    masked
}

/// Softmax over the last axis (the keys), after subtracting each row's maximum so that
/// large scores cannot overflow `exp`.
///
/// A row whose every entry is `-inf` has maximum `-inf`, and `-inf - (-inf)` is NaN, so
/// the whole row is NaN, exactly as in PyTorch. A row of `-1e9`s becomes uniform.
///
/// # Shapes
/// - masked: `[B, h, T_q, T_k]`
/// - returns: `[B, h, T_q, T_k]`, each row summing to 1 (or all NaN)
pub fn softmax_rows(masked: &Array4<f64>) -> Array4<f64> {
    let mut weights = masked.as_standard_layout().into_owned();
    let n_keys = weights.dim().3;
    // An owned standard-layout array is one contiguous slice in which each row of keys
    // is a run of n_keys numbers (T_k ≥ 1: every sentence has a token).
    if let (Some(data), true) = (weights.as_slice_mut(), n_keys > 0) {
        for row in data.chunks_exact_mut(n_keys) {
            softmax_in_place(row);
        }
    }
    weights
}

/// [`softmax_rows`], or with attention sinks (one logit `s_h` per head) the softmax of
/// each row with `s_h` as one more column, that column then dropped (gpt-oss):
/// `weights = softmax([masked, s_h])[..., :T_k]`. A row then sums to `1 − e^(s_h − m)/Σ`,
/// less than 1; a fully blocked row puts all its weight on the sink (weights 0, no NaN).
///
/// # Shapes
/// - masked: `[B, h, T_q, T_k]`, sinks: `h` numbers
/// - returns: `[B, h, T_q, T_k]`
pub fn softmax_rows_with(masked: &Array4<f64>, sinks: Option<&[f64]>) -> Array4<f64> {
    let Some(sinks) = sinks else { return softmax_rows(masked) };
    let mut weights = masked.as_standard_layout().into_owned();
    let (_, h, t_q, n_keys) = weights.dim();
    if let (Some(data), true) = (weights.as_slice_mut(), n_keys > 0) {
        for (r, row) in data.chunks_exact_mut(n_keys).enumerate() {
            let sink = sinks.get((r / t_q.max(1)) % h.max(1)).copied().unwrap_or(f64::NEG_INFINITY);
            softmax_with_sink(row, sink);
        }
    }
    weights
}

/// One row's softmax with a sink: `m = max(max(row), sink)`, then
/// `row ← exp(row − m) / (Σ exp(row − m) + exp(sink − m))`. Returns the sink's share,
/// `exp(sink − m) / Σ`, the weight the dropped column took.
pub fn softmax_with_sink(row: &mut [f64], sink: f64) -> f64 {
    let max = row.iter().fold(sink, |m, &x| m.max(x));
    for x in row.iter_mut() {
        *x = (*x - max).exp();
    }
    let sink_exp = (sink - max).exp();
    let sum = ndarray::ArrayView1::from(&*row).sum() + sink_exp;
    for e in row.iter_mut() {
        *e /= sum;
    }
    sink_exp / sum
}

/// `row ← exp(row - max(row)) / Σ exp(row - max(row))`. The sum is ndarray's, so the
/// numbers are exactly those of `row.sum()` on an array.
fn softmax_in_place(row: &mut [f64]) {
    let max = row.iter().fold(f64::NEG_INFINITY, |m, &x| m.max(x));
    for x in row.iter_mut() {
        *x = (*x - max).exp();
    }
    let sum = ndarray::ArrayView1::from(&*row).sum();
    for e in row.iter_mut() {
        *e /= sum;
    }
}

/// The weighted sum of the values: `weights @ V`.
///
/// # Shapes
/// - weights: `[B, h, T_q, T_k]`, v_heads: `[B, h, T_k, d_k]`
/// - returns: `[B, h, T_q, d_k]`
pub fn attend(weights: &Array4<f64>, v_heads: &Array4<f64>) -> Array4<f64> {
    matmul_per_head(weights, v_heads, false)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::array;

    #[test]
    fn softmax_of_logs_is_the_normalised_numbers() {
        // softmax(ln[3,1,4]) = [3/8, 1/8, 4/8]
        let x = Array4::from_shape_vec((1, 1, 1, 3), vec![3f64.ln(), 1f64.ln(), 4f64.ln()]).unwrap();
        let w = softmax_rows(&x);
        for (got, want) in w.iter().zip([3.0 / 8.0, 1.0 / 8.0, 4.0 / 8.0]) {
            assert!((got - want).abs() < 1e-12);
        }
    }

    #[test]
    fn softmax_survives_huge_scores_and_teaches_the_nan_row() {
        let x = Array4::from_shape_vec(
            (1, 1, 3, 2),
            vec![1e4, 0.0, f64::NEG_INFINITY, f64::NEG_INFINITY, -1e9, -1e9],
        )
        .unwrap();
        let w = softmax_rows(&x);
        assert_eq!((w[(0, 0, 0, 0)], w[(0, 0, 0, 1)]), (1.0, 0.0)); // exp(-1e4) underflows to 0
        assert!(w[(0, 0, 1, 0)].is_nan() && w[(0, 0, 1, 1)].is_nan()); // 0/0
        assert_eq!((w[(0, 0, 2, 0)], w[(0, 0, 2, 1)]), (0.5, 0.5)); // uniform
    }

    #[test]
    fn split_then_merge_is_the_identity_and_heads_are_column_slices() {
        // x[b, t, c] = 100·b + 10·t + c, B=2, T=3, d_model=6, h=3 (d_k=2)
        let x = Array3::from_shape_fn((2, 3, 6), |(b, t, c)| (100 * b + 10 * t + c) as f64);
        let heads = split_heads(x.clone(), 3).unwrap();
        assert_eq!(heads.dim(), (2, 3, 3, 2));
        // head 1 of sentence 1, token 2 = columns 2..4 of x[1, 2]
        assert_eq!(heads.slice(s![1, 1, 2, ..]).to_vec(), vec![122.0, 123.0]);
        assert_eq!(merge_heads(heads).unwrap(), x);
    }

    #[test]
    fn split_heads_errors() {
        let x = Array3::<f64>::zeros((1, 2, 6));
        assert_eq!(split_heads(x.clone(), 4), Err(EngineError::HeadsDoNotDivide { d_model: 6, n_heads: 4 }));
        assert_eq!(
            split_heads(x.clone(), 0),
            Err(EngineError::ZeroSize { what: "n_heads", field: Field::NHeads })
        );
        assert_eq!(
            view(x, (5, 2)).unwrap_err(),
            EngineError::Reshape { op: "view", from: vec![1, 2, 6], to: vec![5, 2] }
        );
    }

    #[test]
    fn linear_is_x_at_w_plus_b() {
        // [1, 2] @ [[1, 2], [3, 4]] + [10, 20] = [1+6+10, 2+8+20] = [17, 30]
        let layer = Linear::new(array![[1.0, 2.0], [3.0, 4.0]], array![10.0, 20.0]);
        let x = Array3::from_shape_vec((1, 1, 2), vec![1.0, 2.0]).unwrap();
        assert_eq!(linear(&x, &layer).into_raw_vec_and_offset().0, vec![17.0, 30.0]);
    }

    /// The ALiBi paper's slopes (github.com/ofirpress/attention_with_linear_biases,
    /// `get_slopes`): for 6 heads the 4 of n = 4, then every other of n = 8; for 12 the
    /// 8 of n = 8, then every other of n = 16.
    #[test]
    fn alibi_slopes_follow_the_paper_for_any_number_of_heads() {
        let p2 = |n: usize| (1..=n).map(|k| 2f64.powf(-8.0 * k as f64 / n as f64)).collect::<Vec<_>>();
        assert_eq!(alibi_slopes(4), vec![0.25, 0.0625, 0.015625, 0.00390625]);
        let six: Vec<f64> = p2(4).into_iter().chain(p2(8).into_iter().step_by(2).take(2)).collect();
        assert_eq!(alibi_slopes(6), six);
        // 2^(-1), 2^(-3): the odd slopes of n = 8
        assert_eq!(alibi_slopes(6)[4..], [0.5, 0.125]);
        let twelve: Vec<f64> = p2(8).into_iter().chain(p2(16).into_iter().step_by(2).take(4)).collect();
        assert_eq!(alibi_slopes(12), twelve);
        assert_eq!(alibi_slopes(3), vec![2f64.powf(-4.0), 2f64.powf(-8.0), 2f64.powf(-2.0)]);
        assert!(alibi_slopes(0).is_empty());
    }

    /// Under a causal mask the paper's m·(j − i); without one, −m·|i − j|: symmetric, 0 on
    /// the diagonal and never positive, so no key is rewarded for its distance.
    #[test]
    fn alibi_without_causal_is_symmetric_and_never_a_reward() {
        let slopes = alibi_slopes(2); // 1/16, 1/256
        let causal = alibi_bias(&slopes, 3, 4, true);
        assert_eq!(causal[(0, 0, 0, 3)], 3.0 / 16.0); // after the query: blocked by the mask
        assert_eq!(causal[(0, 0, 2, 0)], -2.0 / 16.0);
        let both = alibi_bias(&slopes, 4, 4, false);
        assert_eq!(both[(0, 0, 0, 3)], -3.0 / 16.0);
        assert_eq!(both[(0, 1, 3, 1)], -2.0 / 256.0);
        for h in 0..2 {
            for i in 0..4 {
                for j in 0..4 {
                    assert!(both[(0, h, i, j)] <= 0.0);
                    assert_eq!(both[(0, h, i, j)], both[(0, h, j, i)]);
                    if j <= i {
                        assert_eq!(both[(0, h, i, j)], alibi_bias(&slopes, 4, 4, true)[(0, h, i, j)]);
                    }
                }
            }
        }
    }

    #[test]
    fn softmax_of_no_keys_is_empty_not_a_panic() {
        let w = softmax_rows(&Array4::zeros((1, 1, 2, 0)));
        assert_eq!(w.dim(), (1, 1, 2, 0));
    }

    #[test]
    fn mask_replaces_instead_of_adding() {
        let scaled = Array4::from_elem((1, 2, 1, 2), 5.0);
        let mask = Array3::from_shape_vec((1, 1, 2), vec![false, true]).unwrap();
        let masked = apply_mask(&scaled, &mask, -1e9);
        assert_eq!(masked.into_raw_vec_and_offset().0, vec![5.0, -1e9, 5.0, -1e9]);
    }
}
