//! Taking a trained model apart, exactly: evaluation on a batch, head ablation, removing
//! a head from a later layer's keys (K-composition), and how much of a head's attention
//! lands where a previous-token or an induction head would put it.

use serde::{Deserialize, Serialize};

use super::backward::{backward, Scratch, Upstream};
use super::forward::{argmax, forward, Acts, HeadId, Intervention};
use super::model::Model;
use super::run::{nan_if_null, nans_if_null};
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

/// What switching one head off does: the loss and the predictions with its output zeroed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HeadEffect {
    /// The head switched off.
    pub head: HeadId,
    /// The loss with it off.
    #[serde(deserialize_with = "nan_if_null")]
    pub loss: f64,
    /// That loss minus the whole model's.
    #[serde(deserialize_with = "nan_if_null")]
    pub loss_change: f64,
    /// The accuracy with it off.
    #[serde(deserialize_with = "nan_if_null")]
    pub accuracy: f64,
    /// How many scored positions (target ≠ −1) predict another token than with every head on.
    pub predictions_changed: usize,
    /// `(B, T)`: the most likely next token at every position with it off.
    pub predictions: Vec<usize>,
}

/// What a later layer's keys read from an earlier head: the model with `source`'s output
/// removed from `layer`'s keys only (queries, values and every other layer unchanged).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct KComposition {
    /// The earlier head taken out of the keys.
    pub source: HeadId,
    /// The later layer whose keys no longer read it.
    pub layer: usize,
    /// The loss without it.
    #[serde(deserialize_with = "nan_if_null")]
    pub loss: f64,
    /// That loss minus the whole model's.
    #[serde(deserialize_with = "nan_if_null")]
    pub loss_change: f64,
    /// Per head of `layer`: how far its attention moved, the mean over sequences and
    /// queries of the total variation `½·Σ_j |a'_ij − a_ij|` between the rows before and
    /// after (0 = unchanged, 1 = moved entirely elsewhere).
    #[serde(deserialize_with = "nans_if_null")]
    pub attention_moved: Vec<f64>,
    /// Per head of `layer`: its induction score ([`induction_score`]) with the whole model.
    #[serde(deserialize_with = "nans_if_null")]
    pub induction_before: Vec<f64>,
    /// Per head of `layer`: its induction score without `source` in the keys.
    #[serde(deserialize_with = "nans_if_null")]
    pub induction_after: Vec<f64>,
    /// How many scored positions predict another token than with the whole model.
    pub predictions_changed: usize,
}

/// The circuit taken apart on one batch: every head switched off in turn, and every
/// earlier head removed from every later layer's keys in turn.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CircuitReport {
    /// The whole model's loss.
    #[serde(deserialize_with = "nan_if_null")]
    pub loss: f64,
    /// The whole model's accuracy.
    #[serde(deserialize_with = "nan_if_null")]
    pub accuracy: f64,
    /// One per head, layer by layer.
    pub ablations: Vec<HeadEffect>,
    /// One per (earlier head, later layer), by source then layer.
    pub k_composition: Vec<KComposition>,
    /// The heads the prediction depends on: those whose ablation raises the loss, the
    /// largest rise first (a head whose ablation leaves the loss equal or lower is left out).
    pub depends_on: Vec<HeadId>,
}

/// The number of scored positions whose predicted token differs between two evaluations.
pub(super) fn predictions_changed(a: &Evaluation, b: &Evaluation, targets: &[i64]) -> usize {
    a.predictions.iter().zip(&b.predictions).zip(targets).filter(|((x, y), &t)| t >= 0 && x != y).count()
}

/// Mean total variation, over sequences and queries, between head `head`'s attention rows
/// in two `(B, h, T, T)` tensors.
pub(super) fn attention_moved(before: &[f64], after: &[f64], t: usize, head: usize, h: usize) -> f64 {
    let rows = before.len() / (t * t).max(1);
    let (mut sum, mut n) = (0.0, 0usize);
    for bh in (0..rows).filter(|bh| bh % h.max(1) == head) {
        for i in 0..t {
            let at = (bh * t + i) * t;
            let (Some(x), Some(y)) = (before.get(at..at + t), after.get(at..at + t)) else { continue };
            sum += 0.5 * x.iter().zip(y).map(|(x, y)| (y - x).abs()).sum::<f64>();
            n += 1;
        }
    }
    if n == 0 {
        0.0
    } else {
        sum / n as f64
    }
}

/// Takes `model` apart on `batch`: the ablation of each head and the K-composition of
/// each earlier head into each later layer, with the heads the prediction depends on.
pub fn circuit(model: &Model, batch: &Batch) -> CircuitReport {
    let (n_layers, h, t) = (model.dims.n_layers, model.dims.n_heads, model.dims.t);
    let base = evaluate(model, batch, &Intervention::default());
    let heads: Vec<HeadId> =
        (0..n_layers).flat_map(|layer| (0..h).map(move |head| HeadId { layer, head })).collect();
    let ablations: Vec<HeadEffect> = heads
        .iter()
        .map(|&head| {
            let e = ablate(model, batch, head);
            HeadEffect {
                head,
                loss: e.loss,
                loss_change: e.loss - base.loss,
                accuracy: e.accuracy,
                predictions_changed: predictions_changed(&base, &e, &batch.targets),
                predictions: e.predictions,
            }
        })
        .collect();
    let mut k_composition = Vec::new();
    for &source in &heads {
        for layer in source.layer + 1..n_layers {
            let e = without_k_composition(model, batch, source, layer);
            let (before, after) = (
                base.attention.get(layer).map(Vec::as_slice).unwrap_or(&[]),
                e.attention.get(layer).map(Vec::as_slice).unwrap_or(&[]),
            );
            let reader = |head| HeadId { layer, head };
            k_composition.push(KComposition {
                source,
                layer,
                loss: e.loss,
                loss_change: e.loss - base.loss,
                attention_moved: (0..h).map(|hh| attention_moved(before, after, t, hh, h)).collect(),
                induction_before: (0..h).map(|hh| induction_score(&base, model, batch, reader(hh))).collect(),
                induction_after: (0..h).map(|hh| induction_score(&e, model, batch, reader(hh))).collect(),
                predictions_changed: predictions_changed(&base, &e, &batch.targets),
            });
        }
    }
    let mut rising: Vec<&HeadEffect> = ablations.iter().filter(|a| a.loss_change > 0.0).collect();
    rising.sort_by(|a, b| b.loss_change.total_cmp(&a.loss_change));
    CircuitReport {
        loss: base.loss,
        accuracy: base.accuracy,
        depends_on: rising.iter().map(|a| a.head).collect(),
        ablations,
        k_composition,
    }
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
