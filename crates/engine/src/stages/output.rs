//! Stages 8 and 9: merge the heads side by side again (`concat`), then `concat @ W_O + b_O`
//! (`output`).

use ndarray::{Array3, Array4};

use super::{Plan, Recorder};
use crate::attention;
use crate::error::EngineError;
use crate::reuse::{self, Previous};
use crate::step::{Axis as A, StepName};
use crate::trace::Reshape;
use crate::weights::Weights;

/// Stage 8, merge: the heads side by side again,
/// `context.transpose(1, 2).contiguous().view(B, T, d_model)`.
pub(super) fn merge(
    plan: &Plan<'_>,
    context: Array4<f64>,
    rec: &mut Recorder,
) -> Result<Array3<f64>, EngineError> {
    let concat = attention::merge_heads(context)?; // (b, t_q, d_model)
    let (tq, _) = plan.token_axes();
    // a value head is d_k wide, or MLA's d_v
    let (head_axis, d_v) = match &plan.scenario.mla {
        Some(m) => (A::DV, m.v_head_dim),
        None => (A::DK, plan.d_k),
    };
    rec.push(
        StepName::Concat,
        vec![
            Reshape {
                op: "transpose(1, 2)".into(),
                dims: vec![A::B, tq, A::H, head_axis],
                shape: vec![plan.b, plan.t_q, plan.n_heads, d_v],
            },
            Reshape {
                op: "contiguous().view".into(),
                dims: StepName::Concat.dims_in(plan.layout()),
                shape: vec![plan.b, plan.t_q, plan.n_heads * d_v],
            },
        ],
        concat.clone().into_dyn(),
    );
    Ok(concat)
}

/// Stage 9, output: `concat @ W_O + b_O` (copied for a sentence whose `concat` is the
/// previous trace's).
pub(super) fn output(
    concat: &Array3<f64>,
    w: &Weights,
    prev: Option<&Previous<'_>>,
    rec: &mut Recorder,
) -> Array3<f64> {
    let output = reuse::linear(concat, &w.o, prev.map(|p| (p.concat, p.output))); // (b, t_q, d_model)
    rec.push(StepName::Output, vec![], output.clone().into_dyn());
    output
}
