//! The forward pass, keeping what the backward needs:
//!
//! ```text
//! resid[0] = E[tokens] + positions                                   (B, T, d)
//! for each layer l:   q, k, v = resid[l] @ W_{Q,K,V} + b_{Q,K,V}         (B, T, d)
//!     per head:       attn = softmax(mask(q_h k_hᵀ / √d_k))              (B, h, T, T)
//!                     z_h = attn @ v_h                                   (B, T, d), heads side by side
//!                     resid[l+1] = resid[l] + z @ W_O + b_O
//! logits = resid[L] @ W_U;   loss = mean cross-entropy over targets ≠ −1
//! ```
//!
//! An [`Intervention`] takes the model apart for analysis (a head's output zeroed, or a
//! head's output removed from a later layer's keys only); training never uses one.

use super::model::Model;
use super::ops::{self, HeadDims};
use crate::mask;

/// One head: `layer` and `head` from 0.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct HeadId {
    /// The layer, from 0.
    pub layer: usize,
    /// The head within it, from 0.
    pub head: usize,
}

/// Changes to the forward pass for analysis.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Intervention {
    /// Heads whose output is zeroed (ablation): their columns of `z` are 0 before `W_O`,
    /// so they add nothing to the residual stream. Their attention weights are still
    /// computed (and kept).
    pub ablate: Vec<HeadId>,
    /// K-composition removed: `(source, layer)` makes `layer`'s keys read the residual
    /// stream without `source`'s contribution, `z_source @ W_O[source's rows]` (its share
    /// of the output; the layer's `b_O` belongs to no head and stays). Queries and values
    /// still read the whole stream. `source.layer` must be below `layer`.
    pub keys_without: Vec<(HeadId, usize)>,
}

impl Intervention {
    /// True when nothing is changed.
    pub fn is_none(&self) -> bool {
        self.ablate.is_empty() && self.keys_without.is_empty()
    }
}

/// The activations of one forward pass over a batch of `b` sequences, kept for the
/// backward (and for the maps the Learn view draws). Made once and reused every step.
#[derive(Debug, Clone)]
pub struct Acts {
    /// Sequences in the batch.
    pub b: usize,
    /// `(T, T)`: may query `i` not attend to key `j` (`crate::mask::blocked`).
    pub blocked: Vec<bool>,
    /// `n_layers + 1` residual streams, each `(B, T, d)`.
    pub resid: Vec<Vec<f64>>,
    /// Per layer, `(B, T, d)`: queries, keys, values and the heads' contexts side by side.
    pub q: Vec<Vec<f64>>,
    /// Keys, per layer.
    pub k: Vec<Vec<f64>>,
    /// Values, per layer.
    pub v: Vec<Vec<f64>>,
    /// Contexts (before `W_O`), per layer.
    pub z: Vec<Vec<f64>>,
    /// Per layer, `(B, h, T, T)`: the attention weights.
    pub attn: Vec<Vec<f64>>,
    /// `(B, T, vocab)`: the logits.
    pub logits: Vec<f64>,
    /// `(B, T, vocab)`: their softmax, the predicted distribution.
    pub probs: Vec<f64>,
    /// One head's `(T, T)` scores, reused.
    scores: Vec<f64>,
    /// The mean cross-entropy of the last forward.
    pub loss: f64,
    /// How many targets it averaged over.
    pub count: usize,
}

impl Acts {
    /// Buffers for a batch of `b` sequences of `model`.
    pub fn new(model: &Model, b: usize) -> Self {
        let dm = &model.dims;
        let (t, d, l) = (dm.t, dm.d_model, dm.n_layers);
        let blocked = (0..t * t).map(|ij| mask::blocked(&dm.mask, t, t, ij / t, ij % t)).collect();
        let tensor = |n: usize| vec![0.0; n];
        Self {
            b,
            blocked,
            resid: (0..=l).map(|_| tensor(b * t * d)).collect(),
            q: (0..l).map(|_| tensor(b * t * d)).collect(),
            k: (0..l).map(|_| tensor(b * t * d)).collect(),
            v: (0..l).map(|_| tensor(b * t * d)).collect(),
            z: (0..l).map(|_| tensor(b * t * d)).collect(),
            attn: (0..l).map(|_| tensor(b * dm.n_heads * t * t)).collect(),
            logits: tensor(b * t * dm.vocab),
            probs: tensor(b * t * dm.vocab),
            scores: tensor(t * t),
            loss: 0.0,
            count: 0,
        }
    }

    /// The fraction of targets whose most likely token (the first, on a tie) is the
    /// target; 0 with no target.
    pub fn accuracy(&self, targets: &[i64], vocab: usize) -> f64 {
        let mut right = 0usize;
        for (p_row, &target) in self.probs.chunks_exact(vocab.max(1)).zip(targets) {
            if target >= 0 && argmax(p_row) == target as usize {
                right += 1;
            }
        }
        if self.count == 0 {
            0.0
        } else {
            right as f64 / self.count as f64
        }
    }
}

/// The index of the largest number (the first of equals).
pub fn argmax(row: &[f64]) -> usize {
    row.iter()
        .enumerate()
        .fold((0, f64::NEG_INFINITY), |(bi, bv), (i, &v)| if v > bv { (i, v) } else { (bi, bv) })
        .0
}

/// `n` numbers from `offset` of a buffer with `n`-sized blocks: block `i`.
fn block(a: &[f64], i: usize, n: usize) -> &[f64] {
    ops::row(a, i, n)
}

fn block_mut(a: &mut [f64], i: usize, n: usize) -> &mut [f64] {
    a.get_mut(i * n..(i + 1) * n).unwrap_or(&mut [])
}

/// Runs the model on `tokens` (`(B, T)`, row-major) and scores it against `targets`
/// (−1 = no target), filling `acts`. Returns the mean cross-entropy.
pub fn forward(model: &Model, tokens: &[usize], targets: &[i64], acts: &mut Acts, iv: &Intervention) -> f64 {
    let dm = &model.dims;
    let (t, d, h, d_k) = (dm.t, dm.d_model, dm.n_heads, dm.d_k());
    let seq = t * d;
    let dims = HeadDims { t, d, d_k };
    let pos: &[f64] = match model.layout.p {
        Some(p) => model.slice(p, t * d),
        None => &model.sinusoids,
    };
    if let Some(x0) = acts.resid.first_mut() {
        ops::embed(model.slice(model.layout.e, dm.vocab * d), pos, tokens, t, d, x0);
    }
    for (l, o) in model.layout.layers.iter().enumerate() {
        let w = |off: usize, n: usize| model.slice(off, n);
        let (before, after) = acts.resid.split_at_mut(l + 1);
        let (Some(x_all), Some(out_all)) = (before.last(), after.first_mut()) else { break };
        let n_z = acts.z.len();
        let (z_before, z_rest) = acts.z.split_at_mut(l.min(n_z));
        let (Some(q_all), Some(k_all), Some(v_all), Some(z_all), Some(attn_all)) = (
            acts.q.get_mut(l),
            acts.k.get_mut(l),
            acts.v.get_mut(l),
            z_rest.first_mut(),
            acts.attn.get_mut(l),
        ) else {
            break;
        };
        let removed: Vec<HeadId> =
            iv.keys_without.iter().filter(|(_, to)| *to == l).map(|(from, _)| *from).collect();
        for b in 0..acts.b {
            let x = block(x_all, b, seq);
            let q = block_mut(q_all, b, seq);
            ops::linear(x, w(o.w_q, d * d), w(o.b_q, d), q, d, d);
            let k = block_mut(k_all, b, seq);
            if removed.is_empty() {
                ops::linear(x, w(o.w_k, d * d), w(o.b_k, d), k, d, d);
            } else {
                let key_input = without_heads(model, z_before, &removed, x, b, l);
                ops::linear(&key_input, w(o.w_k, d * d), w(o.b_k, d), k, d, d);
            }
            let v = block_mut(v_all, b, seq);
            ops::linear(x, w(o.w_v, d * d), w(o.b_v, d), v, d, d);
            let (q, k, v) = (block(q_all, b, seq), block(k_all, b, seq), block(v_all, b, seq));
            let z = block_mut(z_all, b, seq);
            for hh in 0..h {
                let p = block_mut(attn_all, b * h + hh, t * t);
                ops::scores(q, k, &acts.blocked, hh, dims, &mut acts.scores);
                ops::softmax(&acts.scores, p, t);
                ops::attend(p, v, hh, dims, z);
                if iv.ablate.contains(&HeadId { layer: l, head: hh }) {
                    for z_row in z.chunks_exact_mut(d.max(1)) {
                        ops::head_mut(z_row, hh, d_k).fill(0.0);
                    }
                }
            }
            let out = block_mut(out_all, b, seq);
            ops::linear(z, w(o.w_o, d * d), w(o.b_o, d), out, d, d);
            ops::axpy(out, 1.0, x);
        }
    }
    let last = acts.resid.last().map(Vec::as_slice).unwrap_or(&[]);
    ops::linear(last, model.slice(model.layout.w_u, d * dm.vocab), &[], &mut acts.logits, d, dm.vocab);
    let (loss, count) = ops::cross_entropy(&acts.logits, targets, dm.vocab, &mut acts.probs);
    acts.loss = loss;
    acts.count = count;
    loss
}

/// One head's contribution to the residual stream for sequence `b`: `z_h @ W_O[h's rows]`
/// (`(T, d)`), from the contexts already computed.
pub fn head_contribution(model: &Model, z: &[Vec<f64>], from: HeadId, b: usize) -> Vec<f64> {
    let dm = &model.dims;
    let (t, d, d_k) = (dm.t, dm.d_model, dm.d_k());
    let mut out = vec![0.0; t * d];
    let (Some(o), Some(z_l)) = (model.layout.layers.get(from.layer), z.get(from.layer)) else {
        return out;
    };
    let w_o = model.slice(o.w_o, d * d);
    let w_o_rows = w_o.get(from.head * d_k * d..(from.head + 1) * d_k * d).unwrap_or(&[]);
    for (z_row, out_row) in block(z_l, b, t * d).chunks_exact(d.max(1)).zip(out.chunks_exact_mut(d.max(1))) {
        ops::mm(ops::head(z_row, from.head, d_k), w_o_rows, out_row, d_k, d);
    }
    out
}

/// `x` (sequence `b`'s residual stream entering `layer`) minus the contributions of the
/// `removed` heads of earlier layers.
fn without_heads(
    model: &Model,
    z: &[Vec<f64>],
    removed: &[HeadId],
    x: &[f64],
    b: usize,
    layer: usize,
) -> Vec<f64> {
    let mut key_input = x.to_vec();
    for &from in removed.iter().filter(|f| f.layer < layer) {
        ops::axpy(&mut key_input, -1.0, &head_contribution(model, z, from, b));
    }
    key_input
}
