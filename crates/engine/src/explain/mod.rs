//! The arithmetic behind one cell: [`explain`] takes a trace, a step and an index and
//! returns every number that went into that cell, recomputed from the trace's own
//! tensors and [`Trace::params`] (the inputs the engine actually used).
//!
//! For the sum steps (`x_pe`, `x_kv_pe`, `q`, `k`, `v`, MLA's `q_a`, `kv_a`, `kv_b`,
//! `scores`, `context`, `output`) the [`Term`]s add up, left to right, to the trace's value
//! (up to the rounding of the engine's matrix product, which may sum in another order); the
//! bias is a term. The RMSNorms (QK-norm's `q_norm` and `k_norm`, per head or over the whole
//! projection, and MLA's `q_a_norm` and `c_kv`) are one term, `w · x / rms`, whose operands
//! are the weight, the number read and the row's rms ([`TermKind::Normed`]). Copies name
//! the cell they copy, quotients their numerator and denominator, `masked` why a cell is
//! blocked, and `weights` the row's maximum, every `exp(s − max)` and their sum.
//!
//! Nothing here panics: a step the trace does not have, or an index out of range, is an
//! [`ExplainError`].
//!
//! The pieces: [`Explanation`] and the types it is made of (`explanation.rs`); reading the
//! trace without panicking (`read.rs`); writing numbers, indices and LaTeX (`write.rs`);
//! and one file per group of steps: the embeddings (`embedding.rs`), the positions
//! (`positions.rs`: `pe`, `x_pe`, RoPE, ALiBi), the projections and their heads
//! (`projections.rs`), the scores, scaling and mask (`scores.rs`), the softmax
//! (`softmax.rs`), the context and concat (`context.rs`), and multi-head latent
//! attention's own steps (`mla.rs`: its projections, RMSNorms, slices, RoPE and
//! concatenations).

mod context;
mod embedding;
mod explanation;
mod mla;
mod positions;
mod projections;
mod read;
mod residual;
mod scores;
mod softmax;
mod write;

pub use explanation::{BlockReason, ExplainError, Explanation, Kind, Operand, Param, Tensor, Term, TermKind};

use crate::step::{Axis, StepName};
use crate::trace::Trace;
use explanation::left_sum;
use read::{cell, token};
use write::{num, tex_name};

/// The `n` terms of largest magnitude (largest first; NaN counts as largest), and the
/// left-to-right sum of the others (0 when there are none). For long sums, which the page
/// lists as "the largest contributions, and the rest".
pub fn top_terms(explanation: &Explanation, n: usize) -> (Vec<&Term>, f64) {
    let mut order: Vec<usize> = (0..explanation.terms.len()).collect();
    let magnitude = |i: usize| explanation.terms.get(i).map_or(0.0, |t| t.value.abs());
    order.sort_by(|&a, &b| magnitude(b).total_cmp(&magnitude(a)).then(a.cmp(&b)));
    let (top, rest) = order.split_at(n.min(order.len()));
    let mut rest = rest.to_vec();
    rest.sort_unstable();
    let rest_sum = left_sum(rest.iter().filter_map(|&i| explanation.terms.get(i)).map(|t| t.value));
    (top.iter().filter_map(|&i| explanation.terms.get(i)).collect(), rest_sum)
}

/// Explains cell `index` of `step` in `trace`: the formula, the terms recomputed from the
/// trace's inputs and parameters, notes, the cells read, PyTorch and LaTeX.
///
/// # Errors
/// [`ExplainError::NoSuchStep`], [`ExplainError::WrongRank`] or
/// [`ExplainError::OutOfRange`] for a bad request; [`ExplainError::Inconsistent`] for a
/// trace that does not hold together. Never panics.
pub fn explain(trace: &Trace, step: StepName, index: &[usize]) -> Result<Explanation, ExplainError> {
    let s = trace.step(step).ok_or(ExplainError::NoSuchStep(step))?;
    if index.len() != s.shape.len() {
        return Err(ExplainError::WrongRank { step, expected: s.shape.len(), found: index.len() });
    }
    for (n, (&i, &len)) in index.iter().zip(&s.shape).enumerate() {
        if i >= len {
            let axis = s.dims.get(n).copied().unwrap_or(Axis::One);
            return Err(ExplainError::OutOfRange { step, axis, index: i, len });
        }
    }
    // the steps MLA replaces (a run under MLA never records them)
    let replaced_by_mla = matches!(
        step,
        StepName::K
            | StepName::V
            | StepName::KHeads
            | StepName::QNorm
            | StepName::KNorm
            | StepName::KRep
            | StepName::VRep
    );
    let mla = trace.mla.is_some();
    if mla && replaced_by_mla {
        return Err(ExplainError::NotUnderMla(step));
    }
    let result = cell(trace, step, index)?;
    let ex = Explainer { trace, step, index, result };
    match step {
        StepName::X | StepName::XKv => ex.embedding(),
        StepName::Pe => ex.pe(),
        StepName::XPe | StepName::XKvPe => ex.plus_pe(),
        StepName::Q if mla => ex.latent_projection(),
        StepName::QA | StepName::KvA | StepName::KvB => ex.latent_projection(),
        StepName::Q | StepName::K | StepName::V | StepName::Output => ex.projection(),
        StepName::QANorm | StepName::CKv => ex.latent_norm(),
        StepName::VHeads if mla => ex.latent_slice(),
        StepName::KPe | StepName::KNope => ex.latent_slice(),
        StepName::QHeads | StepName::KHeads | StepName::VHeads => ex.head_copy(),
        StepName::QNorm | StepName::KNorm => ex.normed(),
        StepName::QRot | StepName::KRot if mla => ex.latent_rotated(),
        StepName::QRot | StepName::KRot => ex.rotated(),
        StepName::QCat | StepName::KCat => ex.latent_cat(),
        StepName::KRep | StepName::VRep => ex.repeated(),
        StepName::Scores => ex.scores(),
        StepName::Scaled => ex.scaled(),
        StepName::Capped => ex.capped(),
        StepName::Alibi => ex.alibi(),
        StepName::Biased => ex.biased(),
        StepName::Masked => ex.masked(),
        StepName::Weights => ex.weights(),
        StepName::Context => ex.context(),
        StepName::Concat => ex.concat(),
        StepName::ResidIn => ex.resid_in(),
        StepName::ResidOut => ex.resid_out(),
    }
}

/// What every explanation of one cell starts from; one method per kind of step, in the
/// files of this module.
struct Explainer<'a> {
    trace: &'a Trace,
    step: StepName,
    index: &'a [usize],
    result: f64,
}

impl Explainer<'_> {
    #[allow(clippy::too_many_arguments)]
    fn done(
        &self,
        formula: String,
        kind: Kind,
        terms: Vec<Term>,
        notes: Vec<String>,
        operands: Vec<Operand>,
        pytorch: String,
        latex: String,
    ) -> Result<Explanation, ExplainError> {
        Ok(Explanation {
            step: self.step,
            index: self.index.to_vec(),
            formula,
            kind,
            terms,
            result: self.result,
            notes,
            operands,
            pytorch,
            latex,
        })
    }

    fn d_model(&self) -> usize {
        self.trace.sizes.d_model
    }

    fn d_k(&self) -> usize {
        self.trace.sizes.d_k
    }

    fn lhs(&self) -> String {
        tex_name(self.step.as_str(), self.index)
    }

    /// The note that compares a recomputed number with the trace's, when they differ.
    fn check(&self, recomputed: f64, notes: &mut Vec<String>) {
        let same = recomputed == self.result
            || (recomputed.is_nan() && self.result.is_nan())
            || (recomputed - self.result).abs() <= 1e-12 * self.result.abs().max(1.0);
        if !same {
            notes.push(format!(
                "Recomputed here as {}, but the trace holds {}: the trace was not made by this engine.",
                num(recomputed),
                num(self.result)
            ));
        }
    }

    /// The first of `order` the trace has (the last one if none).
    fn first_of(&self, order: &[StepName]) -> StepName {
        order
            .iter()
            .copied()
            .find(|&s| self.trace.step(s).is_some())
            .unwrap_or_else(|| order.last().copied().unwrap_or(StepName::X))
    }

    /// A value head's width: `d_k`, or MLA's `d_v`.
    fn d_v(&self) -> usize {
        self.trace.mla.as_ref().map_or(self.d_k(), |m| m.v_head_dim)
    }

    /// The query heads the scores read: `q_rot` with RoPE, else `q_heads`; under MLA
    /// `q_cat` (the unrotated part beside the turned one) with RoPE, else `q_heads`.
    fn q_source(&self) -> StepName {
        if self.trace.mla.is_some() {
            return self.first_of(&[StepName::QCat, StepName::QHeads]);
        }
        self.first_of(&[StepName::QRot, StepName::QNorm, StepName::QHeads])
    }

    /// The key heads the scores read: `k_rep` when grouped, `k_rot` with RoPE, else
    /// `k_heads`; under MLA `k_cat`, each head's `[k_nope, k_rope]`.
    fn k_source(&self) -> StepName {
        if self.trace.mla.is_some() {
            return StepName::KCat;
        }
        self.first_of(&[StepName::KRep, StepName::KRot, StepName::KNorm, StepName::KHeads])
    }

    /// The value heads the context reads: `v_rep` when grouped, else `v_heads`.
    fn v_source(&self) -> StepName {
        self.first_of(&[StepName::VRep, StepName::VHeads])
    }

    /// The scores the mask reads: `biased` with ALiBi, else `capped` with a softcap, else
    /// `scaled`.
    fn masked_source(&self) -> StepName {
        self.first_of(&[StepName::Biased, StepName::Capped, StepName::Scaled])
    }

    /// The comment a cell's PyTorch line carries where it reads `scores`: the page's PyTorch
    /// lines reassign `scores` at every step (scale, cap, bias, mask), so just before this
    /// step's line runs, `scores` holds the `holds` step, not the raw `q @ kᵀ`.
    fn scores_here(&self, holds: StepName) -> String {
        if holds == StepName::Scores {
            "scores here is q @ kᵀ".into()
        } else {
            format!("scores here is the {holds} step: each line above reassigns scores")
        }
    }

    /// The scores ALiBi's bias is added to: `capped` with a softcap, else `scaled`.
    fn bias_source(&self) -> StepName {
        self.first_of(&[StepName::Capped, StepName::Scaled])
    }

    /// The step `q`, `k` and `v` read from: `resid_in` with more than one layer, `x_pe` /
    /// `x_kv_pe` with positions, `x_kv` in cross-attention, else `x`.
    fn projection_input(&self, keys: bool) -> StepName {
        let order: &[StepName] = if keys {
            &[StepName::ResidIn, StepName::XKvPe, StepName::XKv, StepName::XPe, StepName::X]
        } else {
            &[StepName::ResidIn, StepName::XPe, StepName::X]
        };
        order.iter().copied().find(|&s| self.trace.step(s).is_some()).unwrap_or(StepName::X)
    }

    /// The query and key tokens of a `(B, h, T_q, T_k)` cell.
    fn pair(&self, b: usize, i: usize, j: usize) -> String {
        format!(
            "query {} and key {}",
            token(self.trace.query_tokens(b), i),
            token(self.trace.key_tokens(b), j)
        )
    }
}

#[cfg(test)]
mod tests {
    use super::write::plain;
    use super::*;

    fn term(value: f64) -> Term {
        plain(String::new(), value)
    }

    #[test]
    fn top_terms_are_the_largest_and_the_rest_is_summed_in_order() {
        let e = Explanation {
            step: StepName::Q,
            index: vec![0, 0, 0],
            formula: String::new(),
            kind: Kind::Sum,
            terms: [0.5, -3.0, 1.0, 0.25, 2.0].into_iter().map(term).collect(),
            result: 0.75,
            notes: vec![],
            operands: vec![],
            pytorch: String::new(),
            latex: String::new(),
        };
        assert_eq!(e.terms_sum(), 0.75);
        let (top, rest) = top_terms(&e, 2);
        assert_eq!(top.iter().map(|t| t.value).collect::<Vec<_>>(), vec![-3.0, 2.0]);
        assert_eq!(rest, 0.5 + 1.0 + 0.25);
        let (top, rest) = top_terms(&e, 0);
        assert!(top.is_empty());
        assert_eq!(rest, 0.75);
        let mut nan = e;
        nan.terms.push(term(f64::NAN));
        let (top, _) = top_terms(&nan, 1);
        assert!(top[0].value.is_nan(), "NaN is listed first");
        assert_eq!(left_sum(std::iter::empty()), 0.0);
    }
}
