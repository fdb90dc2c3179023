//! Stages 3 to 6: project every token to a query, key and value, split them into heads,
//! rotate the queries and keys (RoPE), and repeat the key/value heads (grouped-query
//! attention).

use ndarray::{Array3, Array4};

use super::{Plan, Recorder};
use crate::attention;
use crate::error::EngineError;
use crate::reuse::{self, Previous};
use crate::step::{Axis as A, StepName};
use crate::trace::Reshape;
use crate::weights::Weights;

/// Stage 3, project: every token into a query, a key and a value, `x @ W + b` (keys and
/// values from the other sentence in cross-attention; `h_kv·d_k` wide when grouped). A
/// sentence the previous trace projected from the same rows is copied from it.
pub(super) fn project(
    x_in: &Array3<f64>,
    x_kv_in: Option<&Array3<f64>>,
    w: &Weights,
    prev: Option<&Previous<'_>>,
    rec: &mut Recorder,
) -> [Array3<f64>; 3] {
    let kv_source = x_kv_in.unwrap_or(x_in);
    let q = reuse::linear(x_in, &w.q, prev.map(|p| (p.x_in, p.q))); // (b, t_q, d_model)
    let k = reuse::linear(kv_source, &w.k, prev.map(|p| (p.x_kv_in, p.k))); // (b, t_k, h_kv·d_k)
    let v = reuse::linear(kv_source, &w.v, prev.map(|p| (p.x_kv_in, p.v))); // (b, t_k, h_kv·d_k)
    rec.push(StepName::Q, vec![], q.clone().into_dyn());
    rec.push(StepName::K, vec![], k.clone().into_dyn());
    rec.push(StepName::V, vec![], v.clone().into_dyn());
    [q, k, v]
}

/// The query, key and value heads on their way to the attention.
pub(super) struct Heads {
    /// `(b, h, t_q, d_k)`
    pub(super) q: Array4<f64>,
    /// `(b, h_kv, t_k, d_k)`, then `(b, h, t_k, d_k)` after [`repeat`]
    pub(super) k: Array4<f64>,
    /// as `k`
    pub(super) v: Array4<f64>,
}

/// Stage 4, split: `d_model` into `h` heads of `d_k` (the keys and values into `h_kv`),
/// then the head axis before T: `x.view(B, T, h, d_k).transpose(1, 2)`.
pub(super) fn split(
    plan: &Plan<'_>,
    [q, k, v]: [Array3<f64>; 3],
    rec: &mut Recorder,
) -> Result<Heads, EngineError> {
    let heads = Heads {
        q: attention::split_heads(q, plan.n_heads)?,    // (b, h, t_q, d_k)
        k: attention::split_heads(k, plan.n_kv_heads)?, // (b, h_kv, t_k, d_k)
        v: attention::split_heads(v, plan.n_kv_heads)?, // (b, h_kv, t_k, d_k)
    };
    let (tq, tk) = plan.token_axes();
    let kv_axis = if plan.grouped() { A::HKv } else { A::H };
    let split_path = |tn: A, len: usize, h_axis: A, h: usize| {
        vec![
            Reshape {
                op: "view".into(),
                dims: vec![A::B, tn, h_axis, A::DK],
                shape: vec![plan.b, len, h, plan.d_k],
            },
            Reshape {
                op: "transpose(1, 2)".into(),
                dims: vec![A::B, h_axis, tn, A::DK],
                shape: vec![plan.b, h, len, plan.d_k],
            },
        ]
    };
    rec.push(StepName::QHeads, split_path(tq, plan.t_q, A::H, plan.n_heads), heads.q.clone().into_dyn());
    rec.push(
        StepName::KHeads,
        split_path(tk, plan.t_k, kv_axis, plan.n_kv_heads),
        heads.k.clone().into_dyn(),
    );
    rec.push(
        StepName::VHeads,
        split_path(tk, plan.t_k, kv_axis, plan.n_kv_heads),
        heads.v.clone().into_dyn(),
    );
    Ok(heads)
}

/// Stage 4b, norm: with QK-norm, every query and key head RMS-normalised with its
/// weight (`q_norm`, `k_norm`), or each token's whole projection (OLMo 2), before RoPE;
/// the values are not normalised.
pub(super) fn norm(plan: &Plan<'_>, heads: Heads, rec: &mut Recorder) -> Heads {
    let Some(norm) = &plan.scenario.qk_norm else { return heads };
    let q = attention::qk_norm(&heads.q, norm, false); // (b, h, t_q, d_k)
    let k = attention::qk_norm(&heads.k, norm, true); // (b, h_kv, t_k, d_k)
    rec.push(StepName::QNorm, vec![], q.clone().into_dyn());
    rec.push(StepName::KNorm, vec![], k.clone().into_dyn());
    Heads { q, k, v: heads.v }
}

/// Stage 5, rotate: with RoPE, every query and key head turned at its position (`q_rot`,
/// `k_rot`); the values are not rotated.
pub(super) fn rotate(plan: &Plan<'_>, heads: Heads, rec: &mut Recorder) -> Heads {
    let Some(rope) = plan.scenario.rope else { return heads };
    let q = attention::rotate(&heads.q, rope); // (b, h, t_q, d_k)
    let k = attention::rotate(&heads.k, rope); // (b, h_kv, t_k, d_k)
    rec.push(StepName::QRot, vec![], q.clone().into_dyn());
    rec.push(StepName::KRot, vec![], k.clone().into_dyn());
    Heads { q, k, v: heads.v }
}

/// Stage 6, repeat: with fewer key/value heads than query heads, each key and value head
/// repeated for its group (`k_rep`, `v_rep`).
pub(super) fn repeat(plan: &Plan<'_>, heads: Heads, rec: &mut Recorder) -> Heads {
    if !plan.grouped() {
        return heads;
    }
    let n_rep = plan.n_heads / plan.n_kv_heads;
    let k = attention::repeat_kv(&heads.k, n_rep); // (b, h, t_k, d_k)
    let v = attention::repeat_kv(&heads.v, n_rep); // (b, h, t_k, d_k)
    let (_, tk) = plan.token_axes();
    let path = |shape: Vec<usize>| {
        vec![
            Reshape {
                op: "unsqueeze(2).expand".into(),
                dims: vec![A::B, A::HKv, A::Group, tk, A::DK],
                shape: vec![plan.b, plan.n_kv_heads, n_rep, plan.t_k, plan.d_k],
            },
            Reshape { op: "reshape".into(), dims: vec![A::B, A::H, tk, A::DK], shape },
        ]
    };
    rec.push(StepName::KRep, path(k.shape().to_vec()), k.clone().into_dyn());
    rec.push(StepName::VRep, path(v.shape().to_vec()), v.clone().into_dyn());
    Heads { q: heads.q, k, v }
}
