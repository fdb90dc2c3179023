//! Reusing the previous trace's numbers, so that an edit computes only what it changed.
//!
//! A projection is computed one sentence at a time (`x_b @ W + b`,
//! [`attention::linear`]): when a sentence's input rows are, bit for bit, rows of a
//! sentence the previous trace projected with the same weights, its result is that
//! sentence's result, bit for bit (the same operations on the same numbers in the same
//! order). [`crate::run_reusing`] copies it instead. Typing in one of four long
//! sentences then runs the four projections (most of the engine's work) on one sentence
//! instead of four.
//!
//! The same holds for the attention of a sentence ([`attention`]): its scores, weights and
//! context depend only on its own `q`, `k` and `v` heads, its rows of the mask and the
//! fill, each computed per sentence and head (softmax per row). When those are the
//! previous trace's for some sentence, its five attention steps are copied (as
//! contiguous runs of numbers), and the other sentences are computed together. The output
//! projection reads `concat`, so such a sentence's output is copied too.
//!
//! `tests/reuse.rs` checks on random pairs of scenarios (edits, swaps, added and removed
//! sentences, masks, fills, positions, weights, cross-attention) that a reusing run's
//! trace is a fresh run's, bit for bit.

use ndarray::{Array3, Array4, ArrayD, ArrayView, ArrayView2, Axis, Dimension, Ix2};

use crate::attention;
use crate::step::StepName;
use crate::trace::Trace;
use crate::weights::{Linear, Weights};

/// What a run can take from the previous trace: the projections' inputs and outputs,
/// `(B', T, ·)` each, and the attention's heads, results, mask and fill.
pub struct Previous<'a> {
    /// What the query projection read (`x`, or `x_pe`).
    pub x_in: &'a ArrayD<f64>,
    /// What the key and value projections read (`x_in` in self-attention).
    pub x_kv_in: &'a ArrayD<f64>,
    /// `q`.
    pub q: &'a ArrayD<f64>,
    /// `k`.
    pub k: &'a ArrayD<f64>,
    /// `v`.
    pub v: &'a ArrayD<f64>,
    /// What the output projection read.
    pub concat: &'a ArrayD<f64>,
    /// `output`.
    pub output: &'a ArrayD<f64>,
    /// The query, key and value heads the attention read: `q_heads` (or `q_rot`),
    /// `k_heads` (or `k_rot`, or `k_rep`), `v_heads` (or `v_rep`).
    pub heads: [&'a ArrayD<f64>; 3],
    /// `scores`, `scaled`, `masked`, `weights`, `context`: what it computed.
    pub attention: [&'a ArrayD<f64>; 5],
    /// ALiBi's `alibi` and `biased`, when the previous run had them.
    pub alibi: Option<[&'a ArrayD<f64>; 2]>,
    /// The mask, `(B', T_q, T_k)` row-major, `true` = blocked.
    pub blocked: &'a [bool],
    /// The mask's shape.
    pub mask_shape: [usize; 3],
    /// The fill of blocked scores.
    pub fill: f64,
    /// The scale and the softcap of its scores.
    pub scores: (Option<f64>, Option<f64>),
    /// Whether its softmax had attention sinks.
    pub sinks: bool,
}

impl<'a> Previous<'a> {
    /// The parts of `prev` a run with `weights` can take from: `None` unless it was
    /// computed with the same weights (bit for bit), with positions added or not as this
    /// run, and in self- or cross-attention as this run, and with one layer (a layered
    /// trace keeps a later layer's projections, which read the residual stream, not `x`;
    /// a layered run itself never reuses). A trace read from a file has no weights (0 × 0)
    /// and is never used.
    pub fn of(prev: &'a Trace, weights: &Weights, positions: bool, cross: bool) -> Option<Self> {
        let same = std::ptr::eq(&*prev.params, weights) || same_weights(&prev.params, weights);
        if !same
            || prev.n_layers != 1
            || (prev.positional == crate::scenario::Positional::Sinusoidal) != positions
            || prev.is_cross() != cross
        {
            return None;
        }
        let data = |name: StepName| prev.step(name).map(|s| &s.data);
        let x_in = data(if positions { StepName::XPe } else { StepName::X })?;
        let x_kv_in = match (cross, positions) {
            (false, _) => x_in,
            (true, false) => data(StepName::XKv)?,
            (true, true) => data(StepName::XKvPe)?,
        };
        Some(Self {
            x_in,
            x_kv_in,
            q: data(StepName::Q)?,
            k: data(StepName::K)?,
            v: data(StepName::V)?,
            concat: data(StepName::Concat)?,
            output: data(StepName::Output)?,
            heads: [
                data(StepName::QRot).or_else(|| data(StepName::QNorm)).or_else(|| data(StepName::QHeads))?,
                data(StepName::KRep)
                    .or_else(|| data(StepName::KRot))
                    .or_else(|| data(StepName::KNorm))
                    .or_else(|| data(StepName::KHeads))?,
                data(StepName::VRep).or_else(|| data(StepName::VHeads))?,
            ],
            attention: [
                data(StepName::Scores)?,
                data(StepName::Scaled)?,
                data(StepName::Masked)?,
                data(StepName::Weights)?,
                data(StepName::Context)?,
            ],
            alibi: data(StepName::Alibi).zip(data(StepName::Biased)).map(|(a, b)| [a, b]),
            blocked: &prev.mask.blocked,
            mask_shape: prev.mask.shape,
            fill: prev.mask.fill_value,
            scores: (prev.scale, prev.softcap),
            sinks: !prev.sinks.is_empty(),
        })
    }
}

/// The same shape and the same numbers, bit for bit (so NaN = NaN and -0 ≠ 0).
fn same_bits<D: Dimension, E: Dimension>(a: ArrayView<'_, f64, D>, b: ArrayView<'_, f64, E>) -> bool {
    a.shape() == b.shape() && a.iter().zip(b.iter()).all(|(x, y)| x.to_bits() == y.to_bits())
}

/// The sentence of the previous trace that sentence `i` can take its numbers from: `i`
/// itself if it `fits`, else the first other of the `count` that does.
fn matching(i: usize, count: usize, fits: impl Fn(usize) -> bool) -> Option<usize> {
    if i < count && fits(i) {
        Some(i)
    } else {
        (0..count).find(|&j| j != i && fits(j))
    }
}

fn same_linear(a: &Linear, b: &Linear) -> bool {
    same_bits(a.w().view(), b.w().view()) && same_bits(a.b().view(), b.b().view())
}

fn same_weights(a: &Weights, b: &Weights) -> bool {
    same_linear(&a.q, &b.q) && same_linear(&a.k, &b.k) && same_linear(&a.v, &b.v) && same_linear(&a.o, &b.o)
}

/// Sentence `j` of a `(B', T, ·)` tensor as a matrix, if there is one.
fn sentence(a: &ArrayD<f64>, j: usize) -> Option<ArrayView2<'_, f64>> {
    if a.ndim() != 3 || j >= a.len_of(Axis(0)) {
        return None;
    }
    a.index_axis(Axis(0), j).into_dimensionality::<Ix2>().ok()
}

/// [`attention::linear`], copying a sentence whose rows are, bit for bit, those of a
/// sentence of `known.0` (the same index first, then any), from that sentence of
/// `known.1`.
pub fn linear(x: &Array3<f64>, layer: &Linear, known: Option<(&ArrayD<f64>, &ArrayD<f64>)>) -> Array3<f64> {
    let Some((inputs, outputs)) = known else { return attention::linear(x, layer) };
    let count = inputs.len_of(Axis(0)).min(outputs.len_of(Axis(0)));
    attention::linear_or_known(x, layer, |i, x_b| {
        let fits = |j: usize| sentence(inputs, j).is_some_and(|old| same_bits(x_b.view(), old));
        matching(i, count, fits).and_then(|j| sentence(outputs, j))
    })
}

/// What the attention computes, `(B, h, T_q, ·)` each.
pub struct Attended {
    /// `Q Kᵀ`.
    pub scores: Array4<f64>,
    /// `/ √d_k` (or `· scale`).
    pub scaled: Array4<f64>,
    /// `c·tanh(scaled / c)` (softcap only).
    pub capped: Option<Array4<f64>>,
    /// `+ bias` (ALiBi only).
    pub biased: Option<Array4<f64>>,
    /// Blocked scores replaced by the fill.
    pub masked: Array4<f64>,
    /// Softmax over the keys.
    pub weights: Array4<f64>,
    /// `weights @ V`.
    pub context: Array4<f64>,
}

impl Attended {
    /// The steps in the order the trace has them (`biased` after `scaled` when there).
    fn into_vec(self) -> Vec<Array4<f64>> {
        let mut all = vec![self.scores, self.scaled];
        all.extend(self.biased);
        all.extend([self.masked, self.weights, self.context]);
        all
    }

    /// [`Attended::into_vec`] read back.
    fn from_vec(all: Vec<Array4<f64>>, biased: bool) -> Option<Self> {
        let mut it = all.into_iter();
        let (scores, scaled) = (it.next()?, it.next()?);
        let biased = if biased { Some(it.next()?) } else { None };
        // a run with a softcap is never assembled from a previous one (see `attention`)
        Some(Self {
            scores,
            scaled,
            capped: None,
            biased,
            masked: it.next()?,
            weights: it.next()?,
            context: it.next()?,
        })
    }
}

/// Scores, scaled, capped, biased, masked, weights and context (`attention::*`) for every
/// sentence, a sentence whose heads, mask rows, bias, fill and scale are the previous
/// trace's for some sentence copied from it. With a softcap or attention sinks (in this
/// run or the previous one) everything is computed: the copy is an optimisation of typing, not of every
/// option.
///
/// # Shapes
/// - heads: `[B, h, T_q, d_k]`, `[B, h, T_k, d_k]`, `[B, h, T_k, d_k]` (after any repeat)
/// - mask: `[B, T_q, T_k]`, bias: `[1, h, T_q, T_k]`
pub fn attention(
    heads: [&Array4<f64>; 3],
    mask: &Array3<bool>,
    bias: Option<&Array4<f64>>,
    fill: f64,
    d_k: usize,
    (scale, softcap, sinks): (Option<f64>, Option<f64>, Option<&[f64]>),
    prev: Option<&Previous<'_>>,
) -> Attended {
    use attention::{add_bias, apply_mask, attend, attn_scores, scale_by, softmax_rows_with};
    let [q, k, v] = heads;
    let compute = |q: &Array4<f64>, k: &Array4<f64>, v: &Array4<f64>, mask: &Array3<bool>| {
        let scores = attn_scores(q, k);
        let scaled = scale_by(&scores, d_k, scale);
        let capped = softcap.map(|c| attention::softcap(&scaled, c));
        let before_bias = capped.as_ref().unwrap_or(&scaled);
        let biased = bias.map(|bias| add_bias(before_bias, bias));
        let masked = apply_mask(biased.as_ref().unwrap_or(before_bias), mask, fill);
        let weights = softmax_rows_with(&masked, sinks);
        let context = attend(&weights, v);
        Attended { scores, scaled, capped, biased, masked, weights, context }
    };
    let same_scores = |p: &Previous<'_>| {
        p.scores.0.map(f64::to_bits) == scale.map(f64::to_bits)
            && p.scores.1.is_none()
            && softcap.is_none()
            && !p.sinks
            && sinks.is_none()
    };
    let b = q.len_of(Axis(0));
    let (_, t_q, t_k) = mask.dim();
    let same_bias = |p: &Previous<'_>| match (bias, p.alibi) {
        (None, None) => true,
        (Some(new), Some([old, _])) => same_bits(new.view(), old.view()),
        _ => false,
    };
    let Some(p) = prev.filter(|p| {
        p.fill.to_bits() == fill.to_bits()
            && p.mask_shape.get(1..) == Some(&[t_q, t_k][..])
            && p.blocked.len() == p.mask_shape.iter().product::<usize>()
            && same_bias(p)
            && same_scores(p)
    }) else {
        return compute(q, k, v, mask);
    };
    let count = p.mask_shape[0].min(p.heads.iter().map(|a| a.len_of(Axis(0))).min().unwrap_or(0));
    let row = t_q * t_k;
    let from: Vec<Option<usize>> = (0..b)
        .map(|i| {
            let fits = |j: usize| {
                [q, k, v]
                    .iter()
                    .zip(p.heads)
                    .all(|(new, old)| same_bits(new.index_axis(Axis(0), i), old.index_axis(Axis(0), j)))
                    && p.blocked
                        .get(j * row..(j + 1) * row)
                        .is_some_and(|old| mask.index_axis(Axis(0), i).iter().eq(old.iter()))
            };
            matching(i, count, fits)
        })
        .collect();
    let fresh: Vec<usize> = (0..b).filter(|&i| from.get(i).is_some_and(Option::is_none)).collect();
    if fresh.len() == b {
        return compute(q, k, v, mask);
    }
    let computed = (!fresh.is_empty()).then(|| {
        let pick = |a: &Array4<f64>| a.select(Axis(0), &fresh);
        compute(&pick(q), &pick(k), &pick(v), &mask.select(Axis(0), &fresh)).into_vec()
    });
    let h = q.len_of(Axis(1));
    let (scores, context) = ([b, h, t_q, t_k], [b, h, t_q, d_k]);
    let [old_scores, old_scaled, old_masked, old_weights, old_context] = p.attention;
    let mut olds = vec![old_scores, old_scaled];
    olds.extend(p.alibi.map(|[_, biased]| biased));
    olds.extend([old_masked, old_weights, old_context]);
    let mut shapes = vec![scores; olds.len() - 1];
    shapes.push(context);
    // a source that does not fit (which the checks above rule out) means computing all
    let assembled: Option<Vec<Array4<f64>>> = shapes
        .iter()
        .zip(olds)
        .enumerate()
        .map(|(n, (shape, old))| assemble(*shape, &from, computed.as_ref().and_then(|c| c.get(n)), old))
        .collect();
    match assembled.and_then(|all| Attended::from_vec(all, bias.is_some())) {
        Some(all) => all,
        None => compute(q, k, v, mask),
    }
}

/// One `(B, …)` step: sentence `i` from `computed` (in the order of the computed
/// sentences) or from `prev` (sentence `from[i]`), copied as contiguous runs. `None` if
/// a source is not in standard layout or does not have the per-sentence shape.
fn assemble(
    shape: [usize; 4],
    from: &[Option<usize>],
    computed: Option<&Array4<f64>>,
    prev: &ArrayD<f64>,
) -> Option<Array4<f64>> {
    let per: usize = shape.iter().skip(1).product();
    let prev_flat = prev.as_slice().filter(|_| prev.shape().get(1..) == shape.get(1..))?;
    let computed_flat = match computed {
        Some(c) if c.shape().get(1..) == shape.get(1..) => c.as_slice(),
        _ => None,
    };
    let mut out = Vec::with_capacity(shape.iter().product());
    let mut next = 0;
    for source in from {
        let run = match source {
            Some(j) => prev_flat.get(j * per..(j + 1) * per)?,
            None => {
                next += 1;
                computed_flat?.get((next - 1) * per..next * per)?
            }
        };
        out.extend_from_slice(run);
    }
    Array4::from_shape_vec(shape, out).ok()
}
