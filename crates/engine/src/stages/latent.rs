//! Stages 3 to 6 under multi-head latent attention (DeepSeek-V2/V3), in place of project,
//! split, norm, rotate and repeat: the query (compressed or not), the latent `c_KV` and
//! the shared RoPE key, the keys and values projected up from the latent, RoPE on the
//! rotated parts only, and each head's query and key put together again.

use ndarray::{concatenate, s, Array3, Array4, Axis};

use super::heads::Heads;
use super::{Plan, Recorder};
use crate::attention;
use crate::error::EngineError;
use crate::mla::{self, Mla, MlaParams, QueryPath};
use crate::scenario::{Rope, RopeStyle};
use crate::step::{Axis as A, StepName};
use crate::trace::Reshape;

/// The MLA stages, recording `q_a`, `q_a_norm`, `q`, `kv_a`, `c_kv`, `k_pe`, `kv_b`,
/// `q_heads`, `k_nope`, `v_heads`, `q_rot`, `k_rot`, `q_cat` and `k_cat`. Returns the
/// heads the attention reads: queries and keys `(b, h, t, d_nope + d_rope)`, values
/// `(b, h, t_k, d_v)`.
pub(super) fn latent(
    plan: &Plan<'_>,
    x_in: &Array3<f64>,
    x_kv_in: Option<&Array3<f64>>,
    p: &MlaParams,
    rec: &mut Recorder,
) -> Result<Heads, EngineError> {
    let Some(m) = plan.scenario.mla.as_ref() else {
        let why = "the latent stage ran without mla";
        return Err(EngineError::Mla { what: "scenario", why });
    };
    let (b, h, t_q, t_k) = (plan.b, plan.n_heads, plan.t_q, plan.t_k);
    let (r_kv, d_nope, d_rope, d_v) = (m.kv_lora_rank, m.qk_nope_head_dim, m.qk_rope_head_dim, m.v_head_dim);
    let kv_source = x_kv_in.unwrap_or(x_in);

    let q = match &p.q {
        QueryPath::Direct(layer) => attention::linear(x_in, layer), // (b, t_q, h·d_k)
        QueryPath::Compressed { down, norm, up } => {
            let q_a = attention::linear(x_in, down); // (b, t_q, r_q)
            rec.push(StepName::QA, vec![], q_a.clone().into_dyn());
            let q_a = mla::rms_norm_rows(&q_a, norm, m.eps);
            rec.push(StepName::QANorm, vec![], q_a.clone().into_dyn());
            attention::linear(&q_a, up) // (b, t_q, h·d_k)
        }
    };
    rec.push(StepName::Q, vec![], q.clone().into_dyn());

    let kv_a = attention::linear(kv_source, &p.kv_a); // (b, t_k, r_kv + d_rope)
    rec.push(StepName::KvA, vec![], kv_a.clone().into_dyn());
    let c_kv = mla::rms_norm_rows(&kv_a.slice(s![.., .., ..r_kv]).to_owned(), &p.kv_a_norm, m.eps); // (b, t_k, r_kv)
    rec.push(StepName::CKv, vec![], c_kv.clone().into_dyn());
    let (_, tk) = plan.token_axes();
    let k_pe = kv_a.slice(s![.., .., r_kv..]).to_owned().insert_axis(Axis(1)); // (b, 1, t_k, d_rope)
    rec.push(
        StepName::KPe,
        vec![Reshape {
            op: "view".into(),
            dims: vec![A::B, A::One, tk, A::DRope],
            shape: vec![b, 1, t_k, d_rope],
        }],
        k_pe.clone().into_dyn(),
    );
    let kv_b = attention::linear(&c_kv, &p.kv_b); // (b, t_k, h·(d_nope + d_v))
    rec.push(StepName::KvB, vec![], kv_b.clone().into_dyn());

    let (tq, _) = plan.token_axes();
    let q_heads = attention::split_heads(q, h)?; // (b, h, t_q, d_k)
    rec.push(
        StepName::QHeads,
        vec![
            Reshape {
                op: "view".into(),
                dims: vec![A::B, tq, A::H, A::DK],
                shape: vec![b, t_q, h, plan.d_k],
            },
            Reshape {
                op: "transpose(1, 2)".into(),
                dims: vec![A::B, A::H, tq, A::DK],
                shape: vec![b, h, t_q, plan.d_k],
            },
        ],
        q_heads.clone().into_dyn(),
    );
    let kv_heads = attention::split_heads(kv_b, h)?; // (b, h, t_k, d_nope + d_v)
    let kv_path = |last: A, width: usize| {
        vec![
            Reshape {
                op: "view".into(),
                dims: vec![A::B, tk, A::H, A::NopeV],
                shape: vec![b, t_k, h, d_nope + d_v],
            },
            Reshape {
                op: "transpose(1, 2)".into(),
                dims: vec![A::B, A::H, tk, A::NopeV],
                shape: vec![b, h, t_k, d_nope + d_v],
            },
            Reshape { op: "slice".into(), dims: vec![A::B, A::H, tk, last], shape: vec![b, h, t_k, width] },
        ]
    };
    let k_nope = kv_heads.slice(s![.., .., .., ..d_nope]).to_owned(); // (b, h, t_k, d_nope)
    rec.push(StepName::KNope, kv_path(A::DNope, d_nope), k_nope.clone().into_dyn());
    let v = kv_heads.slice(s![.., .., .., d_nope..]).to_owned(); // (b, h, t_k, d_v)
    rec.push(StepName::VHeads, kv_path(A::DV, d_v), v.clone().into_dyn());

    let q_pe = q_heads.slice(s![.., .., .., d_nope..]).to_owned(); // (b, h, t_q, d_rope)
    let (q, k_rope) = match plan.scenario.rope {
        Some(rope) => {
            let (q_rot, k_rot) = rotate_parts(&q_pe, &k_pe, rope, m.rope_in_place);
            rec.push(StepName::QRot, vec![], q_rot.clone().into_dyn());
            rec.push(StepName::KRot, vec![], k_rot.clone().into_dyn());
            let q_nope = q_heads.slice(s![.., .., .., ..d_nope]);
            let q = concatenate(Axis(3), &[q_nope, q_rot.view()]).map_err(|_| reshape_error(&q_heads))?;
            rec.push(StepName::QCat, vec![], q.clone().into_dyn());
            (q, k_rot)
        }
        None => (q_heads, k_pe),
    };
    let shared = k_rope.broadcast((b, h, t_k, d_rope)).ok_or_else(|| reshape_error(&k_rope))?;
    let k = concatenate(Axis(3), &[k_nope.view(), shared]).map_err(|_| reshape_error(&k_nope))?; // (b, h, t_k, d_k)
    rec.push(
        StepName::KCat,
        vec![Reshape {
            op: "expand".into(),
            dims: vec![A::B, A::H, tk, A::DRope],
            shape: vec![b, h, t_k, d_rope],
        }],
        k.clone().into_dyn(),
    );
    Ok(Heads { q, k, v })
}

/// RoPE on the rotated parts, the queries' `(b, h, t_q, d_rope)` and the shared key's
/// `(b, 1, t_k, d_rope)`, from position 0: [`rotate_part`] on each.
pub(crate) fn rotate_parts(
    q_pe: &Array4<f64>,
    k_pe: &Array4<f64>,
    rope: Rope,
    in_place: bool,
) -> (Array4<f64>, Array4<f64>) {
    (rotate_part(q_pe, rope, in_place, 0), rotate_part(k_pe, rope, in_place, 0))
}

/// RoPE on a rotated part `(b, heads, t, d_rope)` of tokens at positions `first, first + 1,
/// …`: Hugging Face's `apply_rotary_pos_emb`, or, with the interleaved style, its
/// `apply_rotary_pos_emb_interleave` (evens, then odds, turned as `rotate_half`:
/// DeepSeek-V3), or with `in_place` DeepSeek-V2's `apply_rotary_emb` (each pair `2i, 2i+1`
/// turned where it is, the engine's interleaved rotation).
fn rotate_part(x: &Array4<f64>, rope: Rope, in_place: bool, first: usize) -> Array4<f64> {
    let half = Rope { style: RopeStyle::Half, ..rope };
    match rope.style {
        RopeStyle::Half => attention::rotate_from(x, half, first),
        RopeStyle::Interleaved if in_place => attention::rotate_from(x, rope, first),
        RopeStyle::Interleaved => attention::rotate_from(&mla::deinterleave(x), half, first),
    }
}

/// What a decoder caches of the tokens in `x` (`(b, len, d_model)`, at positions `first,
/// first + 1, …`) under MLA: the latent `c_KV`, `(b, len, r_kv)`, and the shared RoPE key
/// turned at each token's position, `(b, 1, len, d_rope)`.
pub(crate) fn latent_rows(
    x: &Array3<f64>,
    p: &MlaParams,
    m: &Mla,
    rope: Option<Rope>,
    first: usize,
) -> (Array3<f64>, Array4<f64>) {
    let r_kv = m.kv_lora_rank;
    let kv_a = attention::linear(x, &p.kv_a); // (b, len, r_kv + d_rope)
    let c_kv = mla::rms_norm_rows(&kv_a.slice(s![.., .., ..r_kv]).to_owned(), &p.kv_a_norm, m.eps);
    let k_pe = kv_a.slice(s![.., .., r_kv..]).to_owned().insert_axis(Axis(1));
    let k_rope = match rope {
        Some(rope) => rotate_part(&k_pe, rope, m.rope_in_place, first),
        None => k_pe,
    };
    (c_kv, k_rope)
}

/// MLA's queries of the tokens in `x` at positions `first, first + 1, …`, `(b, h, len,
/// d_nope + d_rope)`: projected (or compressed and projected up), split into heads, their
/// last `d_rope` numbers turned by RoPE.
///
/// # Errors
/// [`EngineError::Reshape`] if the query width does not split into `h` heads.
pub(crate) fn latent_queries(
    x: &Array3<f64>,
    p: &MlaParams,
    m: &Mla,
    (h, rope): (usize, Option<Rope>),
    first: usize,
) -> Result<Array4<f64>, EngineError> {
    let q = match &p.q {
        QueryPath::Direct(layer) => attention::linear(x, layer),
        QueryPath::Compressed { down, norm, up } => {
            attention::linear(&mla::rms_norm_rows(&attention::linear(x, down), norm, m.eps), up)
        }
    };
    let q = attention::split_heads(q, h)?; // (b, h, len, d_nope + d_rope)
    let Some(rope) = rope else { return Ok(q) };
    let d_nope = m.qk_nope_head_dim;
    let q_rot = rotate_part(&q.slice(s![.., .., .., d_nope..]).to_owned(), rope, m.rope_in_place, first);
    concatenate(Axis(3), &[q.slice(s![.., .., .., ..d_nope]), q_rot.view()]).map_err(|_| reshape_error(&q))
}

/// Every head's keys and values from what a decoder cached: `k_nope` and `v` projected up
/// from the latent `c_KV` (`kv_b_proj`), and each key `[k_nope, k_rope]` with the one
/// shared RoPE key. Returns keys `(b, h, L, d_nope + d_rope)` and values `(b, h, L, d_v)`.
///
/// # Errors
/// [`EngineError::Reshape`] if `kv_b_proj`'s width does not split into `h` heads.
pub(crate) fn keys_from_latent(
    c_kv: &Array3<f64>,
    k_rope: &Array4<f64>,
    p: &MlaParams,
    m: &Mla,
    h: usize,
) -> Result<(Array4<f64>, Array4<f64>), EngineError> {
    let d_nope = m.qk_nope_head_dim;
    let kv_heads = attention::split_heads(attention::linear(c_kv, &p.kv_b), h)?; // (b, h, L, d_nope + d_v)
    let (b, _, len, _) = kv_heads.dim();
    let shared = k_rope.broadcast((b, h, len, m.qk_rope_head_dim)).ok_or_else(|| reshape_error(k_rope))?;
    let k = concatenate(Axis(3), &[kv_heads.slice(s![.., .., .., ..d_nope]), shared])
        .map_err(|_| reshape_error(&kv_heads))?;
    Ok((k, kv_heads.slice(s![.., .., .., d_nope..]).to_owned()))
}

/// The error of a concatenation or broadcast that the sizes checked before rule out.
fn reshape_error(x: &Array4<f64>) -> EngineError {
    EngineError::Reshape { op: "concatenate", from: x.shape().to_vec(), to: vec![] }
}
