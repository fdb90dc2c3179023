//! [`crate::run_reusing`] as a sequence of stages, one function each:
//!
//! ```text
//! plan ─▶ embed ─▶ positions ─▶ project ─▶ split ─▶ rotate ─▶ repeat
//!      ─▶ attend (score, scale, bias, mask, softmax, context) ─▶ merge ─▶ output
//! ```
//!
//! Each stage reads what the one before it returned and records its steps in a
//! [`Recorder`]; a stage whose option is off (positions, RoPE, grouped heads, ALiBi)
//! passes its input through and records nothing. A new variant of attention is a new
//! stage here and a new [`StepName`], not a branch inside another stage.
//!
//! The math of each stage is in [`crate::attention`]; what a stage may copy from the
//! previous trace instead of computing is in [`crate::reuse`].
//!
//! The files: [`Plan`] (`plan.rs`, every check that needs no numbers) and [`Recorder`]
//! (`recorder.rs`); the stages, `embed.rs` (embed, positions), `heads.rs` (project,
//! split, rotate, repeat), `attend.rs` (bias, attend) and `output.rs` (merge, output);
//! here, [`run`] puts them in order, and `inputs` gives decoding and tiling their start.

mod attend;
mod embed;
mod heads;
mod latent;
mod output;
mod plan;
mod recorder;

pub use plan::Plan;
pub use recorder::Recorder;

use ndarray::Array3;

use crate::attention;
use crate::embedding;
use crate::error::EngineError;
use crate::mask;
use crate::mla;
use crate::reuse::Previous;
use crate::scenario::{Rope, Scenario};
use crate::step::StepName;
use crate::tokenize;
use crate::trace::{self, Trace};
use crate::weights::{self, Weights};
use attend::{attend, bias};
use embed::{embed, positions};
use heads::{norm, project, repeat, rotate, split};
use latent::latent;
pub(crate) use latent::{keys_from_latent, latent_queries, latent_rows};
use output::{merge, output};

/// What decoding and tiling start from: the checked sizes and options, the weights, and
/// every token's input row (after the positional encoding, if any).
pub(crate) struct Inputs {
    pub b: usize,
    pub t_q: usize,
    pub t_k: usize,
    pub n_heads: usize,
    pub n_kv_heads: usize,
    pub d_k: usize,
    pub cross: bool,
    pub lengths: Vec<usize>,
    pub kv_lengths: Vec<usize>,
    pub mask: crate::scenario::MaskConfig,
    pub rope: Option<Rope>,
    pub alibi_slopes: Vec<f64>,
    /// The scores' factor in place of `1/√d_k`, if any (with MLA's `mscale_all_dim`, its m²).
    pub scale: Option<f64>,
    /// Logit softcapping's `c`, if any.
    pub softcap: Option<f64>,
    /// QK-norm, if any.
    pub qk_norm: Option<crate::scenario::QkNorm>,
    /// The attention sinks' logits, one per head, if any.
    pub sinks: Option<Vec<f64>>,
    /// Multi-head latent attention's option and weights, if on: the queries, keys and
    /// values come from these, and `w` holds its `W_O` only.
    pub mla: Option<(mla::Mla, mla::MlaParams)>,
    pub w: std::sync::Arc<Weights>,
    /// `(B, T_q, d_model)`: what the query projection reads.
    pub x_in: Array3<f64>,
    /// `(B, T_k, d_model)`: what the key and value projections read.
    pub x_kv_in: Array3<f64>,
}

/// [`Inputs`] of a scenario: the first two stages of [`run`], without recording them.
///
/// # Errors
/// As [`run`].
pub(crate) fn inputs(scenario: &Scenario) -> Result<Inputs, EngineError> {
    let plan = Plan::of(scenario)?;
    if plan.n_layers > 1 {
        let why = "the decoding and tiles views run one layer (the run and its trace have them all): set \
                   n_layers to 1 to see them"
            .to_owned();
        return Err(EngineError::Layers { n_layers: plan.n_layers, why });
    }
    let mut rec = Recorder::new(&plan);
    let (q_width, kv_width) = (plan.q_width(), plan.n_kv_heads * plan.d_k);
    let mla = match &scenario.mla {
        Some(m) => Some((m.clone(), mla::build(m, plan.d_model, plan.n_heads, scenario.layer_seed(0))?)),
        None => None,
    };
    let w = match &mla {
        // MLA's W_O is its own; it has no W_Q, W_K, W_V of this shape
        Some((_, p)) => std::sync::Arc::new(Weights { o: p.o.clone(), ..Weights::empty() }),
        None => weights::build_sized(&scenario.projections, plan.d_model, q_width, kv_width, scenario.seed)?,
    };
    let embedded = embed(&plan, &mut rec)?;
    let (x_in, x_kv_in) = positions(&plan, &embedded, &mut rec);
    Ok(Inputs {
        b: plan.b,
        t_q: plan.t_q,
        t_k: plan.t_k,
        n_heads: plan.n_heads,
        n_kv_heads: plan.n_kv_heads,
        d_k: plan.d_k,
        cross: plan.cross(),
        lengths: plan.batch.lengths.clone(),
        kv_lengths: plan.kv_lengths().to_vec(),
        mask: scenario.mask,
        rope: scenario.rope,
        alibi_slopes: if scenario.alibi { attention::alibi_slopes(plan.n_heads) } else { vec![] },
        scale: plan.score_scale(),
        softcap: scenario.softcap,
        qk_norm: scenario.qk_norm.clone(),
        sinks: scenario.sinks.clone(),
        mla,
        w,
        x_kv_in: x_kv_in.unwrap_or_else(|| x_in.clone()),
        x_in,
    })
}

/// What one layer computed that the trace keeps: its output, its projections and
/// ALiBi's slopes.
struct LayerRun {
    output: Array3<f64>,
    w: std::sync::Arc<Weights>,
    latent_params: Option<mla::MlaParams>,
    slopes: Option<Vec<f64>>,
}

/// One attention layer on `x_in` (and `x_kv_in` in cross-attention), stages 3 to 9,
/// recorded in `rec`: the projections of seed `seed`, the heads, the scores and the
/// output.
fn layer(
    plan: &Plan<'_>,
    x_in: &Array3<f64>,
    x_kv_in: Option<&Array3<f64>>,
    mask: &ndarray::Array3<bool>,
    seed: u64,
    previous: Option<&Trace>,
    rec: &mut Recorder,
) -> Result<LayerRun, EngineError> {
    let scenario = plan.scenario;
    let kv_width = plan.n_kv_heads * plan.d_k;
    let latent_params =
        scenario.mla.as_ref().map(|m| mla::build(m, plan.d_model, plan.n_heads, seed)).transpose()?;
    let w = match &latent_params {
        // MLA has no W_Q, W_K, W_V of this shape: the trace's params keep its W_O only
        Some(p) => std::sync::Arc::new(Weights { o: p.o.clone(), ..Weights::empty() }),
        None => weights::build_sized(&scenario.projections, plan.d_model, plan.q_width(), kv_width, seed)?,
    };
    let prev = match latent_params {
        Some(_) => None,
        None => previous.and_then(|p| Previous::of(p, &w, plan.positions(), plan.cross())),
    };
    let prev = prev.as_ref();
    let heads = match &latent_params {
        Some(p) => latent(plan, x_in, x_kv_in, p, rec)?,
        None => {
            let projected = project(x_in, x_kv_in, &w, prev, rec);
            let heads = split(plan, projected, rec)?;
            let heads = norm(plan, heads, rec);
            let heads = rotate(plan, heads, rec);
            repeat(plan, heads, rec)
        }
    };
    let bias = bias(plan, rec);
    let context = attend(plan, &heads, mask, bias.as_ref().map(|(b, _)| b), prev, rec);
    let concat = merge(plan, context, rec)?;
    let output = output(&concat, &w, prev, rec);
    Ok(LayerRun { output, w, latent_params, slopes: bias.map(|(_, slopes)| slopes) })
}

/// The whole run, stage by stage: see the [module docs](self). With more than one layer,
/// every layer runs stages 3 to 9 on the residual stream, `resid[l+1] = resid[l] +
/// output_l`, and the trace records the shown layer's steps (with `resid_in` and
/// `resid_out`) and the whole stream.
pub fn run(scenario: &Scenario, previous: Option<&Trace>) -> Result<Trace, EngineError> {
    let plan = Plan::of(scenario)?;
    let mut rec = Recorder::new(&plan);
    let embedded = embed(&plan, &mut rec)?;
    let (x_in, x_kv_in) = positions(&plan, &embedded, &mut rec);
    let mask = mask::build_cross(&plan.batch.lengths, plan.t_q, plan.kv_lengths(), plan.t_k, &scenario.mask); // (b, t_q, t_k)
    let fully_masked_rows = mask::fully_masked_rows(&mask);
    let layered = plan.n_layers > 1;
    if layered && plan.fill() == crate::scenario::Fill::NegInf && scenario.sinks.is_none() {
        if let Some(&[b, i]) = fully_masked_rows.first() {
            return Err(EngineError::Layers {
                n_layers: plan.n_layers,
                why: format!(
                    "query {} of sentence {} is fully masked, so under the -inf fill its row is NaN, and a \
                     NaN row would reach every row of the next layer through the values (0 · NaN = NaN): \
                     use the -1e9 fill, or block padding keys only",
                    i + 1,
                    b + 1
                ),
            });
        }
    }
    // the stream: resid[0] is what the first layer reads, resid[l + 1] = resid[l] + output_l
    let mut resid = vec![x_in];
    let mut shown = None;
    for l in 0..plan.n_layers {
        let mut elsewhere = Recorder::new(&plan);
        let into = if l == plan.shown { &mut rec } else { &mut elsewhere };
        // reuse compares inputs with a one-layer trace's: only a one-layer run may copy
        let previous = if layered { None } else { previous };
        let x = resid.last().cloned().unwrap_or_default();
        let run = layer(&plan, &x, x_kv_in.as_ref(), &mask, scenario.layer_seed(l), previous, into)?;
        if layered {
            let next = &x + &run.output;
            if next.iter().any(|v| !v.is_finite()) {
                let why = format!(
                    "the residual stream after layer {} is not finite: the inputs are too large for {} \
                     layers to add up (make the embeddings or weights smaller)",
                    l + 1,
                    plan.n_layers
                );
                return Err(EngineError::Layers { n_layers: plan.n_layers, why });
            }
            if l == plan.shown {
                rec.push(StepName::ResidIn, vec![], x.into_dyn());
                rec.push(StepName::ResidOut, vec![], next.clone().into_dyn());
            }
            resid.push(next);
        }
        if l == plan.shown {
            shown = Some(run);
        }
    }
    let Some(LayerRun { w, latent_params, slopes, .. }) = shown else {
        return Err(EngineError::NoSuchLayer { layer: plan.shown + 1, n_layers: plan.n_layers });
    };
    let resid: Vec<f64> =
        if layered { resid.iter().flat_map(|r| r.iter().copied()).collect() } else { vec![] };

    let steps = rec.into_steps();
    // A NaN row is NaN in every column, so column 0 tells (and scans T times less).
    let nan_rows = steps
        .iter()
        .find(|s| s.name == StepName::Weights)
        .and_then(|s| s.data.view().into_dimensionality::<ndarray::Ix4>().ok())
        .map(|weights| {
            weights
                .index_axis(ndarray::Axis(3), 0)
                .indexed_iter()
                .filter(|(_, v)| v.is_nan())
                .map(|((bi, hi, i), _)| [bi, hi, i])
                .collect()
        })
        .unwrap_or_default();
    let (mb, mt, mk) = mask.dim();
    Ok(Trace {
        tokens: plan.batch.texts(),
        lengths: plan.batch.lengths.clone(),
        kv_tokens: plan.kv_batch.as_ref().map(tokenize::Batch::texts),
        kv_lengths: plan.kv_batch.as_ref().map(|kv| kv.lengths.clone()),
        sources: embedded.sources,
        kv_sources: embedded.kv_sources,
        positional: scenario.positional,
        rope: scenario.rope,
        alibi_slopes: slopes.unwrap_or_default(),
        scale: plan.score_scale(),
        softcap: scenario.softcap,
        qk_norm: scenario.qk_norm.clone(),
        sinks: scenario.sinks.clone().unwrap_or_default(),
        mla: scenario.mla.as_ref().map(mla::Mla::sizes),
        feature_names: embedding::lexicon(plan.d_model).map(|l| l.dims.iter().map(|&d| d.into()).collect()),
        sizes: trace::Sizes {
            b: plan.b,
            t: plan.t_q,
            t_k: plan.cross().then_some(plan.t_k),
            d_model: plan.d_model,
            n_heads: plan.n_heads,
            d_k: plan.d_k,
            n_kv_heads: plan.grouped().then_some(plan.n_kv_heads),
        },
        mask: trace::MaskTrace {
            config: scenario.mask,
            fill_value: plan.fill().value(),
            convention: "true = blocked".into(),
            shape: [mb, mt, mk],
            blocked: mask.iter().copied().collect(),
        },
        fully_masked_rows,
        nan_rows,
        n_layers: plan.n_layers,
        layer: plan.shown + 1,
        resid,
        steps,
        params: w,
        mla_params: latent_params.map(std::sync::Arc::new),
    })
}
