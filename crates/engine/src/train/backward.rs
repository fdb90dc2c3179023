//! The backward pass: the forward's stages in reverse, each through its `ops` backward.
//!
//! ```text
//! dlogits = (probs − onehot) / n_targets            dW_U = resid[L]ᵀ dlogits,  dresid = dlogits W_Uᵀ
//! for each layer l, last first (dresid holds dL/dresid[l+1]):
//!     dW_O += zᵀ dresid,  db_O += Σ dresid,  dz = dresid W_Oᵀ
//!     per head: dattn = dz_h v_hᵀ,  dv_h += attnᵀ dz_h
//!               dS = attn ∘ (dattn − rowsum(dattn ∘ attn))          (the softmax Jacobian)
//!               dq_h += dS k_h / √d_k,  dk_h += dSᵀ q_h / √d_k
//!     dW_{Q,K,V} += resid[l]ᵀ d{q,k,v},  db_{Q,V} += Σ d{q,v},  db_K = 0 (softmax ignores it)
//!     dresid += dq W_Qᵀ + dk W_Kᵀ + dv W_Vᵀ          (the residual path keeps dresid itself)
//! dE[token] += dresid[0],  dP[t] += dresid[0]  (learned positions)
//! ```

use super::forward::Acts;
use super::model::Model;
use super::ops::{self, HeadDims};

/// The backward's buffers, made once for a batch size and reused every step.
#[derive(Debug, Clone)]
pub struct Scratch {
    dresid: Vec<f64>,
    dz: Vec<f64>,
    dq: Vec<f64>,
    dk: Vec<f64>,
    dv: Vec<f64>,
    dattn: Vec<f64>,
    ds: Vec<f64>,
    dlogits: Vec<f64>,
}

impl Scratch {
    /// Buffers for batches of `b` sequences of `model`.
    pub fn new(model: &Model, b: usize) -> Self {
        let dm = &model.dims;
        let (t, d) = (dm.t, dm.d_model);
        Self {
            dresid: vec![0.0; b * t * d],
            dz: vec![0.0; t * d],
            dq: vec![0.0; t * d],
            dk: vec![0.0; t * d],
            dv: vec![0.0; t * d],
            dattn: vec![0.0; t * t],
            ds: vec![0.0; t * t],
            dlogits: vec![0.0; b * t * dm.vocab],
        }
    }

    /// dL/d(resid[0]) after [`backward`]: the gradient of the embedded input.
    pub fn d_input(&self) -> &[f64] {
        &self.dresid
    }
}

/// A weight and its bias, stored one after the other, as two gradient slices to write.
fn weight_and_bias(grads: &mut [f64], w: usize, n_w: usize, n_b: usize) -> (&mut [f64], &mut [f64]) {
    let both = grads.get_mut(w..w + n_w + n_b).unwrap_or(&mut []);
    let n_w = n_w.min(both.len());
    both.split_at_mut(n_w)
}

/// The gradients flowing into each weight's output, kept for explaining a gradient cell:
/// `dW[i, j] = Σ_{b,t} input[b, t, i]·upstream[b, t, j]` ([`crate::train::analysis::explain_gradient`]).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Upstream {
    /// Per layer, `(B, T, d)`: dL/dq.
    pub dq: Vec<Vec<f64>>,
    /// Per layer: dL/dk.
    pub dk: Vec<Vec<f64>>,
    /// Per layer: dL/dv.
    pub dv: Vec<Vec<f64>>,
    /// Per layer: dL/d(the layer's output, `z @ W_O + b_O`) = dL/dresid[l+1].
    pub dout: Vec<Vec<f64>>,
    /// `(B, T, vocab)`: dL/dlogits.
    pub dlogits: Vec<f64>,
}

/// Writes into `grads` (the model's layout) the gradient of the mean cross-entropy of the
/// forward that filled `acts` (which must have run without an intervention), and, when
/// `record` is given, copies into it the gradients that flow into each weight's output.
pub fn backward(
    model: &Model,
    tokens: &[usize],
    targets: &[i64],
    acts: &Acts,
    s: &mut Scratch,
    grads: &mut [f64],
    mut record: Option<&mut Upstream>,
) {
    let dm = &model.dims;
    let (t, d, h, v_n) = (dm.t, dm.d_model, dm.n_heads, dm.vocab);
    let (seq, dims) = (t * d, HeadDims { t, d, d_k: dm.d_k() });
    grads.fill(0.0);
    ops::cross_entropy_backward(&acts.probs, targets, v_n, acts.count, &mut s.dlogits);
    if let Some(r) = record.as_deref_mut() {
        let per_layer = || vec![vec![0.0; acts.b * seq]; dm.n_layers];
        *r = Upstream {
            dq: per_layer(),
            dk: per_layer(),
            dv: per_layer(),
            dout: per_layer(),
            dlogits: s.dlogits.clone(),
        };
    }
    s.dresid.fill(0.0);
    let last = acts.resid.last().map(Vec::as_slice).unwrap_or(&[]);
    let w_u = model.slice(model.layout.w_u, d * v_n);
    let dw_u = grads.get_mut(model.layout.w_u..model.layout.w_u + d * v_n).unwrap_or(&mut []);
    ops::linear_backward(last, w_u, &s.dlogits, (d, v_n), dw_u, &mut [], Some(&mut s.dresid));

    for (l, o) in model.layout.layers.iter().enumerate().rev() {
        let w = |off: usize| model.slice(off, d * d);
        let (Some(x_all), Some(q_all), Some(k_all), Some(v_all), Some(z_all), Some(attn_all)) =
            (acts.resid.get(l), acts.q.get(l), acts.k.get(l), acts.v.get(l), acts.z.get(l), acts.attn.get(l))
        else {
            continue;
        };
        for b in 0..acts.b {
            let x = ops::row(x_all, b, seq);
            let (q, k, v, z) = (
                ops::row(q_all, b, seq),
                ops::row(k_all, b, seq),
                ops::row(v_all, b, seq),
                ops::row(z_all, b, seq),
            );
            let Some(dout) = s.dresid.get_mut(b * seq..(b + 1) * seq) else { continue };
            let keep = |to: Option<&mut Vec<f64>>, from: &[f64]| {
                if let Some(slot) = to.and_then(|v| v.get_mut(b * seq..(b + 1) * seq)) {
                    slot.copy_from_slice(from);
                }
            };
            keep(record.as_deref_mut().and_then(|r| r.dout.get_mut(l)), dout);
            // out = z @ W_O + b_O
            s.dz.fill(0.0);
            let (dw_o, db_o) = weight_and_bias(grads, o.w_o, d * d, d);
            ops::linear_backward(z, w(o.w_o), dout, (d, d), dw_o, db_o, Some(&mut s.dz));
            // each head: z_h = softmax(mask(q_h k_hᵀ / √d_k)) @ v_h
            s.dq.fill(0.0);
            s.dk.fill(0.0);
            s.dv.fill(0.0);
            for hh in 0..h {
                let p = ops::row(attn_all, b * h + hh, t * t);
                ops::attend_backward(p, v, &s.dz, hh, dims, &mut s.dattn, &mut s.dv);
                ops::softmax_backward(p, &s.dattn, &mut s.ds, t);
                ops::scores_backward(&s.ds, q, k, hh, dims, &mut s.dq, &mut s.dk);
            }
            keep(record.as_deref_mut().and_then(|r| r.dq.get_mut(l)), &s.dq);
            keep(record.as_deref_mut().and_then(|r| r.dk.get_mut(l)), &s.dk);
            keep(record.as_deref_mut().and_then(|r| r.dv.get_mut(l)), &s.dv);
            // q, k, v = x @ W + b; dout already holds the residual path's gradient.
            // dL/db_K is exactly 0 and is left so: adding b_K to every key adds q_i·b_K to
            // every score of row i, which the softmax ignores (Σ_j dS_ij = 0). Summing dk
            // would give that 0 plus roundoff (~1e-17), and Adam divides by √v, so the
            // roundoff alone would move b_K by up to lr a step.
            for (off_w, dy, bias) in [(o.w_q, &s.dq, true), (o.w_k, &s.dk, false), (o.w_v, &s.dv, true)] {
                let (dw, db) = weight_and_bias(grads, off_w, d * d, d);
                let db = if bias { db } else { &mut [] };
                ops::linear_backward(x, w(off_w), dy, (d, d), dw, db, Some(dout));
            }
        }
    }

    let (de, dp) = match model.layout.p {
        Some(p) => {
            let (de, rest) = grads.split_at_mut(p.min(grads.len()));
            (de.get_mut(model.layout.e..).unwrap_or(&mut []), rest.get_mut(..t * d))
        }
        None => (grads.get_mut(model.layout.e..model.layout.e + v_n * d).unwrap_or(&mut []), None),
    };
    ops::embed_backward(&s.dresid, tokens, t, d, de, dp);
}
