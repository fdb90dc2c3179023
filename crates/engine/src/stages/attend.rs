//! Stage 7: ALiBi's bias, then the attention itself (scores, scale, bias, mask, softmax,
//! context), copied per sentence from the previous trace where it can be.

use ndarray::{Array3, Array4};

use super::heads::Heads;
use super::{Plan, Recorder};
use crate::attention;
use crate::reuse::{self, Previous};
use crate::step::{Axis as A, StepName};
use crate::trace::Reshape;

/// Stage 7a, bias: with ALiBi, its bias `m_h·(j − i)`, or `−m_h·|i − j|` without a causal
/// mask (`alibi`, `(1, h, t_q, t_k)`), and the slopes; nothing without it.
pub(super) fn bias(plan: &Plan<'_>, rec: &mut Recorder) -> Option<(Array4<f64>, Vec<f64>)> {
    if !plan.scenario.alibi {
        return None;
    }
    let slopes = attention::alibi_slopes(plan.n_heads);
    let bias = attention::alibi_bias(&slopes, plan.t_q, plan.t_k, plan.scenario.mask.causal); // (1, h, t_q, t_k)
    rec.push(StepName::Alibi, vec![], bias.clone().into_dyn());
    Some((bias, slopes))
}

/// Stage 7b, attend: scores `Q Kᵀ`, scaled by `√d_k`, plus the bias, blocked pairs
/// replaced by the fill, softmax over the keys, then each query's weighted sum of the
/// values. A sentence whose heads, mask rows and bias are the previous trace's is copied
/// from it ([`reuse::attention`]). Returns the context, `(b, h, t_q, d_k)`.
pub(super) fn attend(
    plan: &Plan<'_>,
    heads: &Heads,
    mask: &Array3<bool>,
    bias: Option<&Array4<f64>>,
    prev: Option<&Previous<'_>>,
    rec: &mut Recorder,
) -> Array4<f64> {
    let fill = plan.fill().value();
    let scores = (plan.score_scale(), plan.scenario.softcap, plan.scenario.sinks.as_deref());
    let out = reuse::attention([&heads.q, &heads.k, &heads.v], mask, bias, fill, plan.d_k, scores, prev);
    let (tq, tk) = plan.token_axes();
    let (b, h, t_q, t_k) = (plan.b, plan.n_heads, plan.t_q, plan.t_k);
    rec.push(
        StepName::Scores,
        vec![Reshape {
            op: "k.transpose(-2, -1)".into(),
            dims: vec![A::B, A::H, A::DK, tk],
            shape: vec![b, h, plan.d_k, t_k],
        }],
        out.scores.into_dyn(),
    );
    rec.push(StepName::Scaled, vec![], out.scaled.into_dyn());
    if let Some(capped) = out.capped {
        rec.push(StepName::Capped, vec![], capped.into_dyn());
    }
    if let Some(biased) = out.biased {
        rec.push(StepName::Biased, vec![], biased.into_dyn());
    }
    rec.push(
        StepName::Masked,
        vec![
            Reshape { op: "mask".into(), dims: vec![A::B, tq, tk], shape: vec![b, t_q, t_k] },
            Reshape {
                op: "mask.unsqueeze(1)".into(),
                dims: vec![A::B, A::One, tq, tk],
                shape: vec![b, 1, t_q, t_k],
            },
            Reshape {
                op: "broadcast".into(),
                dims: StepName::Masked.dims_in(plan.layout()),
                shape: vec![b, h, t_q, t_k],
            },
        ],
        out.masked.into_dyn(),
    );
    rec.push(StepName::Weights, vec![], out.weights.into_dyn());
    rec.push(StepName::Context, vec![], out.context.clone().into_dyn());
    out.context
}
