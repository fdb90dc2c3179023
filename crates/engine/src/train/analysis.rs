//! Taking a trained model apart, exactly: evaluation on a batch, head ablation, removing
//! a head from a later layer's keys (K-composition), and how much of a head's attention
//! lands where a previous-token or an induction head would put it.

use serde::Serialize;

use super::forward::{argmax, forward, Acts, HeadId, Intervention};
use super::model::Model;
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
