//! Taking a trained model apart, exactly: evaluation on a batch, head ablation, removing
//! a head from a later layer's keys (K-composition), and how much of a head's attention
//! lands where a previous-token or an induction head would put it.

use serde::{Deserialize, Serialize};

use super::backward::{backward, Scratch, Upstream};
use super::forward::{argmax, forward, Acts, HeadId, Intervention};
use super::model::Model;
use super::run::nan_if_null;
use super::tasks::Batch;

/// The model's behaviour on one batch.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Evaluation {
    /// Mean cross-entropy over the batch's targets.
    pub loss: f64,
    /// Fraction of targets predicted right.
    pub accuracy: f64,
    /// `(B, T)`: the most likely next token at every position.
    pub predictions: Vec<usize>,
    /// Per layer, `(B, h, T, T)`: the attention weights.
    pub attention: Vec<Vec<f64>>,
}

/// Runs `model` on `batch` with `iv` applied.
pub fn evaluate(model: &Model, batch: &Batch, iv: &Intervention) -> Evaluation {
    let mut acts = Acts::new(model, batch.b);
    let loss = forward(model, &batch.tokens, &batch.targets, &mut acts, iv);
    let vocab = model.dims.vocab;
    Evaluation {
        loss,
        accuracy: acts.accuracy(&batch.targets, vocab),
        predictions: acts.probs.chunks_exact(vocab.max(1)).map(argmax).collect(),
        attention: acts.attn,
    }
}

/// The model with `head`'s output zeroed (see [`Intervention::ablate`]).
pub fn ablate(model: &Model, batch: &Batch, head: HeadId) -> Evaluation {
    evaluate(model, batch, &Intervention { ablate: vec![head], ..Intervention::default() })
}

/// The model with `source`'s output removed from layer `layer`'s keys only (see
/// [`Intervention::keys_without`]): what the later layer's keys read from that head.
pub fn without_k_composition(model: &Model, batch: &Batch, source: HeadId, layer: usize) -> Evaluation {
    evaluate(model, batch, &Intervention { keys_without: vec![(source, layer)], ..Intervention::default() })
}

/// Head `head`'s weight on key `j` from query `i`, averaged over the pairs `key_of`
/// names: `key_of(b, i)` is the key query `i` of sequence `b` should read, or `None` to
/// skip the query. 0 when no pair is named.
pub fn mean_weight_on(
    eval: &Evaluation,
    model: &Model,
    batch: &Batch,
    head: HeadId,
    key_of: impl Fn(usize, usize) -> Option<usize>,
) -> f64 {
    let (t, h) = (model.dims.t, model.dims.n_heads);
    let Some(attn) = eval.attention.get(head.layer) else { return 0.0 };
    let (mut sum, mut n) = (0.0, 0usize);
    for b in 0..batch.b {
        for i in 0..t {
            if let Some(&w) = key_of(b, i).and_then(|j| attn.get(((b * h + head.head) * t + i) * t + j)) {
                sum += w;
                n += 1;
            }
        }
    }
    if n == 0 {
        0.0
    } else {
        sum / n as f64
    }
}

/// How much a head attends to the previous token: its mean weight on key `i − 1` over
/// queries `i ≥ 1`.
pub fn previous_token_score(eval: &Evaluation, model: &Model, batch: &Batch, head: HeadId) -> f64 {
    mean_weight_on(eval, model, batch, head, |_, i| i.checked_sub(1))
}

/// How much a head behaves as an induction head: its mean weight, from each query with a
/// target whose token occurred before, on the key just after that token's most recent
/// earlier occurrence (on `induction` sequences of period `p`, key `i − p + 1`).
pub fn induction_score(eval: &Evaluation, model: &Model, batch: &Batch, head: HeadId) -> f64 {
    let t = model.dims.t;
    mean_weight_on(eval, model, batch, head, |b, i| {
        let (tokens, targets) =
            (batch.tokens.get(b * t..(b + 1) * t)?, batch.targets.get(b * t..(b + 1) * t)?);
        let (&token, &target) = (tokens.get(i)?, targets.get(i)?);
        let earlier = tokens.get(..i)?.iter().rposition(|&x| x == token)?;
        (target >= 0).then_some(earlier + 1)
    })
}

/// One chain-rule term of a weight's gradient: token `t` of sequence `b` contributes
/// `input·upstream` (the weight's input there, times the gradient flowing into its output).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct GradTerm {
    /// The sequence.
    pub b: usize,
    /// The position.
    pub t: usize,
    /// `input[b, t, i]`: what the weight multiplied.
    #[serde(deserialize_with = "nan_if_null")]
    pub input: f64,
    /// `upstream[b, t, j]`: dL/d(its output).
    #[serde(deserialize_with = "nan_if_null")]
    pub upstream: f64,
    /// `input·upstream`.
    #[serde(deserialize_with = "nan_if_null")]
    pub product: f64,
}

/// A weight's gradient cell, as the sum of its chain-rule terms.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GradientCell {
    /// The parameter (`layers[l].W_Q`, …, `W_U`).
    pub name: String,
    /// What the input is (`resid[l]`, `z[l]`, `resid[L]`) and the upstream (`dq[l]`, …).
    pub input: String,
    /// The upstream's name.
    pub upstream: String,
    /// dL/dW[i, j]: the sum of the terms.
    #[serde(deserialize_with = "nan_if_null")]
    pub value: f64,
    /// Every `(b, t)` term, largest `|product|` first (zeros left out).
    pub terms: Vec<GradTerm>,
}

/// Why dL/dW[i, j] of a weight (`layers[l].W_Q`, `W_K`, `W_V`, `W_O`, or `W_U`) is what it
/// is on `batch`: `Σ_{b,t} input[b, t, i]·upstream[b, t, j]`, with the input the residual
/// stream entering the layer (the contexts `z` for `W_O`, the last stream for `W_U`) and
/// the upstream dL/d(the weight's output). `None` for another name or `i`, `j` out of
/// range.
pub fn explain_gradient(
    model: &Model,
    batch: &Batch,
    name: &str,
    i: usize,
    j: usize,
) -> Option<GradientCell> {
    let dm = &model.dims;
    let (t, d, n_layers) = (dm.t, dm.d_model, dm.n_layers);
    let mut acts = Acts::new(model, batch.b);
    forward(model, &batch.tokens, &batch.targets, &mut acts, &Intervention::default());
    let mut grads = vec![0.0; model.params.len()];
    let mut up = Upstream::default();
    backward(
        model,
        &batch.tokens,
        &batch.targets,
        &acts,
        &mut Scratch::new(model, batch.b),
        &mut grads,
        Some(&mut up),
    );
    let (input, upstream, names, width_out): (&[f64], &[f64], (String, String), usize) = if name == "W_U" {
        (acts.resid.get(n_layers)?, &up.dlogits, (format!("resid[{n_layers}]"), "dlogits".into()), dm.vocab)
    } else {
        let rest = name.strip_prefix("layers[")?;
        let (l, w) = rest.split_once("].")?;
        let l: usize = l.parse().ok()?;
        let (input, upstream, up_name) = match w {
            "W_Q" => (acts.resid.get(l)?, up.dq.get(l)?, "dq"),
            "W_K" => (acts.resid.get(l)?, up.dk.get(l)?, "dk"),
            "W_V" => (acts.resid.get(l)?, up.dv.get(l)?, "dv"),
            "W_O" => (acts.z.get(l)?, up.dout.get(l)?, "dout"),
            _ => return None,
        };
        let input_name = if w == "W_O" { format!("z[{l}]") } else { format!("resid[{l}]") };
        (input.as_slice(), upstream.as_slice(), (input_name, format!("{up_name}[{l}]")), d)
    };
    if i >= d || j >= width_out {
        return None;
    }
    let mut terms: Vec<GradTerm> = (0..batch.b * t)
        .filter_map(|bt| {
            let (x, g) = (*input.get(bt * d + i)?, *upstream.get(bt * width_out + j)?);
            (x * g != 0.0).then_some(GradTerm { b: bt / t, t: bt % t, input: x, upstream: g, product: x * g })
        })
        .collect();
    let spec = model.layout.specs.iter().find(|s| s.name == name)?;
    let value = *grads.get(spec.offset + i * width_out + j)?;
    terms.sort_by(|a, b| b.product.abs().total_cmp(&a.product.abs()));
    Some(GradientCell { name: name.to_owned(), input: names.0, upstream: names.1, value, terms })
}
