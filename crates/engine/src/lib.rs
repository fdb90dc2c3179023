//! The attention engine: one pure function from a [`Scenario`] to a [`Trace`].
//!
//! ```text
//! sentences ──tokenize──▶ tokens (B×T, padded) ──embed──▶ x (B,T,d_model)
//!   ──W_Q,W_K,W_V──▶ q,k,v (B,T,d_model) ──view+transpose──▶ (B,h,T,d_k)
//!   ──QKᵀ──▶ scores (B,h,T,T) ──/√d_k──▶ scaled ──mask──▶ masked ──softmax──▶ weights
//!   ──@V──▶ context (B,h,T,d_k) ──transpose+view──▶ concat (B,T,d_model) ──W_O──▶ output
//! ```
//!
//! With `"positional": "sinusoidal"`, `x_pe = x + PE` (and `x_kv_pe` in cross-attention)
//! come right after `x` (and `x_kv`), and the projections read from them.
//!
//! This crate depends on nothing web (no leptos, web-sys, wasm-bindgen or plotters: a
//! web import here does not compile), reads no clock and does no I/O. It never panics on
//! input: every problem is an [`EngineError`]. Every trace it returns passes
//! [`Trace::check_invariants`].

// The engine must never panic on input: no unwrap, expect, panic or unchecked slice
// indexing outside its unit tests.
#![cfg_attr(
    not(test),
    deny(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)
)]
#![deny(unsafe_code)]
#![warn(missing_docs)]

pub mod attention;
pub mod embedding;
pub mod error;
pub mod explain;
pub mod export;
pub mod invariants;
pub mod mask;
pub mod matmul;
pub mod positional;
pub mod reuse;
pub mod scenario;
pub mod step;
pub mod tokenize;
pub mod trace;
pub mod weights;

pub use error::EngineError;
pub use explain::{
    explain, top_terms, BlockReason, ExplainError, Explanation, Kind, Operand, Param, Tensor, Term,
};
pub use invariants::InvariantError;
pub use scenario::{
    ExplicitWeights, Fill, MaskConfig, Padding, Positional, ProjectionKind, Projections, Scenario,
};
pub use step::{Axis, Role, StepName};
pub use trace::{Reshape, Sizes, Step, Trace};

use ndarray::{Array2, Array3, ArrayD};

/// The documented size limits. They keep one run under about 200 MB and a second even in
/// the browser; the page truncates input to them with a notice.
pub mod limits {
    /// Most sentences in one batch (B).
    pub const MAX_BATCH: usize = 16;
    /// Most tokens in one sentence (T).
    pub const MAX_TOKENS: usize = 512;
    /// Widest token vector (d_model).
    pub const MAX_D_MODEL: usize = 1024;
    /// Most heads (h).
    pub const MAX_HEADS: usize = 64;
    /// Most attention cells, B·h·T², in one `(B, h, T, T)` tensor (2²²: e.g. B=1, h=16,
    /// T=512, or B=4, h=8, T=256).
    pub const MAX_ATTENTION_CELLS: usize = 1 << 22;
    /// Largest magnitude of an input number (embedding, weight or bias). With |x|, |W| ≤
    /// 1e30 and d_model ≤ 1024, no product or sum in the pipeline can exceed ~1e130, so
    /// nothing overflows to infinity and the only possible NaN is a fully masked `-inf`
    /// row.
    pub const MAX_ABS_INPUT: f64 = 1e30;
}

/// Checks the sizes against the limits and returns `d_k`.
fn check_sizes(scenario: &Scenario) -> Result<usize, EngineError> {
    let (d_model, n_heads) = (scenario.d_model, scenario.n_heads);
    if d_model == 0 {
        return Err(EngineError::ZeroSize { what: "d_model" });
    }
    if n_heads == 0 {
        return Err(EngineError::ZeroSize { what: "n_heads" });
    }
    if d_model > limits::MAX_D_MODEL {
        return Err(EngineError::TooLarge {
            what: "d_model".into(),
            value: d_model,
            max: limits::MAX_D_MODEL,
        });
    }
    if n_heads > limits::MAX_HEADS {
        return Err(EngineError::TooLarge {
            what: "h (n_heads)".into(),
            value: n_heads,
            max: limits::MAX_HEADS,
        });
    }
    attention::head_width(d_model, n_heads)
}

/// Builds a step from its name: the axes, words and PyTorch line come from [`StepName`].
fn step(name: StepName, ctx: &StepContext, shape_path: Vec<Reshape>, data: ArrayD<f64>) -> Step {
    Step {
        name,
        op: name.words(ctx.d_model, ctx.n_heads, ctx.d_k, ctx.fill),
        pytorch: name.pytorch(ctx.fill, ctx.cross),
        dims: name.dims(ctx.cross),
        shape: data.shape().to_vec(),
        shape_path,
        data,
    }
}

/// What a step's words and axes depend on.
struct StepContext {
    cross: bool,
    d_model: usize,
    n_heads: usize,
    d_k: usize,
    fill: Fill,
}

/// `x + PE` for every sentence, positions counted from 0 within each (padded) sentence.
fn add_positions(x: &Array3<f64>, pe: &Array2<f64>) -> Array3<f64> {
    let mut out = x.clone();
    for mut sentence in out.outer_iter_mut() {
        sentence += pe;
    }
    out
}

/// Runs multi-head scaled dot-product attention on a scenario and records every
/// step: `softmax(QKᵀ/√d_k + mask)V` for each head, then concat and `W_O`.
///
/// # Errors
/// Any [`EngineError`]: bad sizes, empty or too long input, wrong embedding or weight
/// shapes, non-finite numbers. Never panics.
pub fn run(scenario: &Scenario) -> Result<Trace, EngineError> {
    run_reusing(scenario, None)
}

/// [`run`], taking from `previous` the projections of every sentence whose input rows
/// did not change: typing in one of four long sentences projects one sentence instead
/// of four (the projections are most of the work). The trace is [`run`]'s, bit for bit;
/// `previous` may be any trace (one with other sizes or weights, or read from a file,
/// is not used). See [`reuse`].
///
/// # Errors
/// As [`run`].
pub fn run_reusing(scenario: &Scenario, previous: Option<&Trace>) -> Result<Trace, EngineError> {
    use attention::*;
    use step::Axis as A;
    let d_k = check_sizes(scenario)?;
    let (d_model, n_heads) = (scenario.d_model, scenario.n_heads);

    // 1. Tokens, padded to the longest sentence (and, for cross-attention, the key/value
    //    sentences padded to theirs).
    let batch = tokenize::batch(&scenario.sentences)?;
    let kv_batch = match &scenario.kv_sentences {
        None => None,
        Some(kv) if kv.len() != scenario.sentences.len() => {
            return Err(EngineError::BatchMismatch { queries: scenario.sentences.len(), keys: kv.len() })
        }
        Some(kv) => Some(tokenize::batch(kv)?),
    };
    let (b, t) = (batch.b(), batch.t);
    let t_k = kv_batch.as_ref().map_or(t, |kv| kv.t);
    let cells = b * n_heads * t * t_k;
    if cells > limits::MAX_ATTENTION_CELLS {
        return Err(EngineError::TooLarge {
            what: format!("B·h·T_q·T_k (attention cells, B={b}, h={n_heads}, T_q={t}, T_k={t_k})"),
            value: cells,
            max: limits::MAX_ATTENTION_CELLS,
        });
    }
    let cross = kv_batch.is_some();
    let ctx = StepContext { cross, d_model, n_heads, d_k, fill: scenario.mask.fill };
    let mut steps = Vec::with_capacity(StepName::ALL.len());

    // 2. Parameters, embeddings and (optionally) positions.
    let (x, sources) = embedding::embed(&batch, d_model, &scenario.embeddings)?;
    let (x_kv, kv_sources) = match &kv_batch {
        Some(kv) => {
            let (x_kv, kv_sources) = embedding::embed(kv, d_model, &scenario.embeddings)?;
            (Some(x_kv), Some(kv_sources))
        }
        None => (None, None),
    };
    let w = weights::build(&scenario.projections, d_model, scenario.seed)?;
    let positions = scenario.positional == Positional::Sinusoidal;

    steps.push(step(StepName::X, &ctx, vec![], x.clone().into_dyn()));
    let x_in = if positions {
        let pe = positional::table(t, d_model);
        let x_pe = add_positions(&x, &pe);
        let pe3 = pe.insert_axis(ndarray::Axis(0));
        steps.push(step(StepName::Pe, &ctx, vec![], pe3.into_dyn()));
        steps.push(step(StepName::XPe, &ctx, vec![], x_pe.clone().into_dyn()));
        x_pe
    } else {
        x
    };
    let x_kv_in = match x_kv {
        Some(x_kv) => {
            steps.push(step(StepName::XKv, &ctx, vec![], x_kv.clone().into_dyn()));
            if positions {
                let x_kv_pe = add_positions(&x_kv, &positional::table(t_k, d_model));
                steps.push(step(StepName::XKvPe, &ctx, vec![], x_kv_pe.clone().into_dyn()));
                Some(x_kv_pe)
            } else {
                Some(x_kv)
            }
        }
        None => None,
    };

    // 3. Project every token into a query, a key and a value (keys and values from the
    //    other sentence in cross-attention).
    //    A sentence the previous trace projected from the same rows is copied from it.
    let kv_source = x_kv_in.as_ref().unwrap_or(&x_in);
    let prev = previous.and_then(|p| reuse::Previous::of(p, &w, positions, cross));
    let prev = prev.as_ref();
    let q = reuse::linear(&x_in, &w.q, prev.map(|p| (p.x_in, p.q))); // (b, t_q, d_model)
    let k = reuse::linear(kv_source, &w.k, prev.map(|p| (p.x_kv_in, p.k))); // (b, t_k, d_model)
    let v = reuse::linear(kv_source, &w.v, prev.map(|p| (p.x_kv_in, p.v)));

    // 4. Split d_model into h heads of d_k and put the head axis before T.
    let q_heads = split_heads(q.clone(), n_heads)?; // (b, h, t_q, d_k)
    let k_heads = split_heads(k.clone(), n_heads)?; // (b, h, t_k, d_k)
    let v_heads = split_heads(v.clone(), n_heads)?;
    steps.push(step(StepName::Q, &ctx, vec![], q.into_dyn()));
    steps.push(step(StepName::K, &ctx, vec![], k.into_dyn()));
    steps.push(step(StepName::V, &ctx, vec![], v.into_dyn()));

    // 5.–7. Every query against every key, scaled by √d_k; blocked pairs get the fill;
    //    softmax turns each row into weights; each query's weighted sum of the values.
    //    A sentence whose heads and mask rows are the previous trace's is copied from it.
    let k_lengths = kv_batch.as_ref().map_or(&batch.lengths, |kv| &kv.lengths);
    let mask = mask::build_cross(&batch.lengths, t, k_lengths, t_k, &scenario.mask); // (b, t_q, t_k)
    let fill = scenario.mask.fill.value();
    // (b, h, t_q, t_k) four times, then (b, h, t_q, d_k)
    let [scores, scaled, masked, weights, context] =
        reuse::attention([&q_heads, &k_heads, &v_heads], &mask, fill, d_k, prev);

    // Then the heads side by side, then W_O.
    let concat = merge_heads(context.clone())?; // (b, t_q, d_model)
    let output = reuse::linear(&concat, &w.o, prev.map(|p| (p.concat, p.output)));

    let fully_masked_rows = mask::fully_masked_rows(&mask);
    // A NaN row is NaN in every column, so column 0 tells (and scans T times less).
    let nan_rows = weights
        .index_axis(ndarray::Axis(3), 0)
        .indexed_iter()
        .filter(|(_, v)| v.is_nan())
        .map(|((bi, hi, i), _)| [bi, hi, i])
        .collect();

    let (tq, tk) = if cross { (A::TQ, A::TK) } else { (A::T, A::T) };
    let split_path = |tn: A, len: usize| {
        vec![
            Reshape {
                op: "view".into(),
                dims: vec![A::B, tn, A::H, A::DK],
                shape: vec![b, len, n_heads, d_k],
            },
            Reshape {
                op: "transpose(1, 2)".into(),
                dims: vec![A::B, A::H, tn, A::DK],
                shape: vec![b, n_heads, len, d_k],
            },
        ]
    };
    steps.push(step(StepName::QHeads, &ctx, split_path(tq, t), q_heads.into_dyn()));
    steps.push(step(StepName::KHeads, &ctx, split_path(tk, t_k), k_heads.into_dyn()));
    steps.push(step(StepName::VHeads, &ctx, split_path(tk, t_k), v_heads.into_dyn()));
    steps.push(step(
        StepName::Scores,
        &ctx,
        vec![Reshape {
            op: "k.transpose(-2, -1)".into(),
            dims: vec![A::B, A::H, A::DK, tk],
            shape: vec![b, n_heads, d_k, t_k],
        }],
        scores.into_dyn(),
    ));
    steps.push(step(StepName::Scaled, &ctx, vec![], scaled.into_dyn()));
    steps.push(step(
        StepName::Masked,
        &ctx,
        vec![
            Reshape { op: "mask".into(), dims: vec![A::B, tq, tk], shape: vec![b, t, t_k] },
            Reshape {
                op: "mask.unsqueeze(1)".into(),
                dims: vec![A::B, A::One, tq, tk],
                shape: vec![b, 1, t, t_k],
            },
            Reshape {
                op: "broadcast".into(),
                dims: StepName::Masked.dims(cross),
                shape: vec![b, n_heads, t, t_k],
            },
        ],
        masked.into_dyn(),
    ));
    steps.push(step(StepName::Weights, &ctx, vec![], weights.into_dyn()));
    steps.push(step(StepName::Context, &ctx, vec![], context.into_dyn()));
    steps.push(step(
        StepName::Concat,
        &ctx,
        vec![
            Reshape {
                op: "transpose(1, 2)".into(),
                dims: vec![A::B, tq, A::H, A::DK],
                shape: vec![b, t, n_heads, d_k],
            },
            Reshape {
                op: "contiguous().view".into(),
                dims: StepName::Concat.dims(cross),
                shape: vec![b, t, d_model],
            },
        ],
        concat.into_dyn(),
    ));
    steps.push(step(StepName::Output, &ctx, vec![], output.into_dyn()));

    let (mb, mt, mk) = mask.dim();
    Ok(Trace {
        tokens: batch.texts(),
        lengths: batch.lengths.clone(),
        kv_tokens: kv_batch.as_ref().map(tokenize::Batch::texts),
        kv_lengths: kv_batch.as_ref().map(|kv| kv.lengths.clone()),
        sources,
        kv_sources,
        positional: scenario.positional,
        feature_names: embedding::lexicon(d_model).map(|l| l.dims.iter().map(|&d| d.into()).collect()),
        sizes: trace::Sizes { b, t, t_k: cross.then_some(t_k), d_model, n_heads, d_k },
        mask: trace::MaskTrace {
            config: scenario.mask,
            fill_value: fill,
            convention: "true = blocked".into(),
            shape: [mb, mt, mk],
            blocked: mask.iter().copied().collect(),
        },
        fully_masked_rows,
        nan_rows,
        steps,
        params: w,
    })
}

/// What `x.view(B, h, T, d_k)` gives when the `transpose(1, 2)` is forgotten: the
/// numbers of a `(B, T, d_model)` step read straight into `(B, h, T, d_k)`. Row `t` of
/// "head i" is then not token `t`'s slice for head i, but whatever numbers come next in
/// memory. The shapes lesson shows it; the engine never uses it.
///
/// # Errors
/// As [`attention::head_width`], or [`EngineError::Reshape`] for a step that is not
/// `(B, T, d_model)`.
pub fn view_without_transpose(step: &Step, n_heads: usize) -> Result<ndarray::Array4<f64>, EngineError> {
    let [b, t, d_model] = step.shape.as_slice() else {
        return Err(EngineError::Reshape { op: "view", from: step.shape.clone(), to: vec![] });
    };
    let d_k = attention::head_width(*d_model, n_heads)?;
    attention::view(step.data.clone(), (*b, n_heads, *t, d_k))
}

/// Reads a scenario from JSON and runs it.
///
/// # Errors
/// [`EngineError::Json`] for unreadable JSON, then as [`run`].
pub fn run_json(scenario_json: &str) -> Result<Trace, EngineError> {
    run(&Scenario::from_json(scenario_json)?)
}
