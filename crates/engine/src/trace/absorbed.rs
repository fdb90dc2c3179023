//! Multi-head latent attention's absorbed scores for a trace: [`crate::mla::absorbed_scores`]
//! on the trace's own tensors and weights.

use ndarray::{s, Array4, Ix3, Ix4};

use super::Trace;
use crate::step::StepName;

impl Trace {
    /// The scores with `W_UK` absorbed into the query ([`crate::mla::absorbed_scores`]), from
    /// the trace's own `q_cat` (its first `d_nope` numbers), `q_rot`, `c_kv`, `k_rot` and
    /// `kv_b_proj`: `None` when the trace has no MLA with RoPE, or no weights (a trace read
    /// from JSON).
    ///
    /// # Shapes
    /// - returns: `[B, h, T_q, T_k]`, the trace's `scores`
    pub fn absorbed_scores(&self) -> Option<Array4<f64>> {
        let m = self.mla.as_ref()?;
        let params = self.mla_params.as_ref()?;
        let four = |name| self.step(name)?.data.clone().into_dimensionality::<Ix4>().ok();
        let q = four(StepName::QCat)?;
        let q_nope = q.slice(s![.., .., .., ..m.qk_nope_head_dim]).to_owned();
        let q_rot = four(StepName::QRot)?;
        let k_rot = four(StepName::KRot)?;
        let c_kv = self.step(StepName::CKv)?.data.clone().into_dimensionality::<Ix3>().ok()?;
        Some(crate::mla::absorbed_scores(&q_nope, &q_rot, &c_kv, &k_rot, &params.kv_b, m.v_head_dim))
    }
}
