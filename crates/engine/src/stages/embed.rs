//! Stages 1 and 2: embed every token (`x`, `x_kv`), then, with the sinusoidal encoding,
//! add the positions (`pe`, `x_pe`, `x_kv_pe`).

use ndarray::{Array2, Array3};

use super::{Plan, Recorder};
use crate::embedding::{self, Source};
use crate::error::EngineError;
use crate::positional;
use crate::step::StepName;

/// The token vectors a run starts from.
pub(super) struct Embedded {
    pub(super) x: Array3<f64>,
    pub(super) sources: Vec<Vec<Source>>,
    pub(super) x_kv: Option<Array3<f64>>,
    pub(super) kv_sources: Option<Vec<Vec<Source>>>,
}

/// Stage 1, embed: look up every token's vector (`x`, and `x_kv` in cross-attention).
pub(super) fn embed(plan: &Plan<'_>, rec: &mut Recorder) -> Result<Embedded, EngineError> {
    let embeddings = &plan.scenario.embeddings;
    let (x, sources) = embedding::embed(&plan.batch, plan.d_model, embeddings)?; // (b, t_q, d_model)
    rec.push(StepName::X, vec![], x.clone().into_dyn());
    let (x_kv, kv_sources) = match &plan.kv_batch {
        Some(kv) => {
            let (x_kv, kv_sources) = embedding::embed(kv, plan.d_model, embeddings)?; // (b, t_k, d_model)
            rec.push(StepName::XKv, vec![], x_kv.clone().into_dyn());
            (Some(x_kv), Some(kv_sources))
        }
        None => (None, None),
    };
    Ok(Embedded { x, sources, x_kv, kv_sources })
}

/// `x + PE` for every sentence, positions counted from 0 within each (padded) sentence.
fn add_positions(x: &Array3<f64>, pe: &Array2<f64>) -> Array3<f64> {
    let mut out = x.clone();
    for mut sentence in out.outer_iter_mut() {
        sentence += pe;
    }
    out
}

/// Stage 2, positions: with the sinusoidal encoding, `x + PE` (`pe`, `x_pe`, `x_kv_pe`);
/// without it, the embeddings unchanged. Returns what the query and the key/value
/// projections read.
pub(super) fn positions(
    plan: &Plan<'_>,
    e: &Embedded,
    rec: &mut Recorder,
) -> (Array3<f64>, Option<Array3<f64>>) {
    if !plan.positions() {
        return (e.x.clone(), e.x_kv.clone());
    }
    let pe = positional::table(plan.t_q, plan.d_model); // (t_q, d_model)
    let x_pe = add_positions(&e.x, &pe);
    rec.push(StepName::Pe, vec![], pe.insert_axis(ndarray::Axis(0)).into_dyn()); // (1, t_q, d_model)
    rec.push(StepName::XPe, vec![], x_pe.clone().into_dyn());
    let x_kv_pe = e.x_kv.as_ref().map(|x_kv| {
        let x_kv_pe = add_positions(x_kv, &positional::table(plan.t_k, plan.d_model));
        rec.push(StepName::XKvPe, vec![], x_kv_pe.clone().into_dyn());
        x_kv_pe
    });
    (x_pe, x_kv_pe)
}
