//! The context (`Σ_j weights · v`) and the heads laid side by side again (`concat`, a
//! copy).

use super::explanation::{left_sum, ExplainError, Explanation, Kind, Operand};
use super::read::{cell, four, three, token};
use super::write::{plain, product, tex, tex_name, tex_terms};
use super::Explainer;
use crate::step::{Axis, StepName};

impl Explainer<'_> {
    /// `context`: `Σ_j w[i,j] · v[j,c]`.
    pub(super) fn context(&self) -> Result<Explanation, ExplainError> {
        let [b, h, i, c] = four(self.index)?;
        let h1 = h + 1; // heads are numbered from 1 in words, as on the cards
        let t_k = self.trace.axis_len(Axis::TK);
        let mut terms = Vec::with_capacity(t_k);
        for j in 0..t_k {
            let w = cell(self.trace, StepName::Weights, &[b, h, i, j])?;
            let v = cell(self.trace, self.v_source(), &[b, h, j, c])?;
            terms.push(product(format!("weights[{b},{h},{i},{j}] · v[{b},{h},{j},{c}]"), w, v));
        }
        let mut notes = vec![format!(
            "{}'s weighted average of feature {c} of the {t_k} values in head {h1}: each value times the weight the query gives its key.",
            token(self.trace.query_tokens(b), i)
        )];
        if self.result.is_nan() {
            notes.push("The weights row is NaN (every key blocked under the -inf fill), so every term, and the sum, is NaN.".into());
        }
        self.check(left_sum(terms.iter().map(|t| t.value)), &mut notes);
        let latex = format!(
            r"{} = \sum_{{j}} w_{{{b},{h},{i},j}}\, v_{{{b},{h},j,{c}}} = {} = {}",
            self.lhs(),
            tex_terms(&terms),
            tex(self.result)
        );
        self.done(
            "context[b,h,i,c] = Σ_j weights[b,h,i,j] · v[b,h,j,c]".into(),
            Kind::Sum,
            terms,
            notes,
            vec![
                Operand::step(StepName::Weights, &[Some(b), Some(h), Some(i), None]),
                Operand::step(self.v_source(), &[Some(b), Some(h), None, Some(c)]),
            ],
            format!("(weights[{b}, {h}, {i}] * v[{b}, {h}, :, {c}]).sum()"),
            latex,
        )
    }

    /// `concat`: `context[b, ⌊c / d_k⌋, t, c mod d_k]` (`d_v` in place of `d_k` under MLA,
    /// where it is the value heads' width).
    pub(super) fn concat(&self) -> Result<Explanation, ExplainError> {
        let [b, t, c] = three(self.index)?;
        let d_k = self.d_v().max(1);
        let (h, j) = (c / d_k, c % d_k);
        let v = cell(self.trace, StepName::Context, &[b, h, t, j])?;
        let mut notes = vec![format!(
            "No arithmetic: transpose(1, 2) and view lay the heads side by side, so column {c} is head ⌊{c} / {d_k}⌋ = {h}, feature {c} mod {d_k} = {j} (both counted from 0)."
        )];
        self.check(v, &mut notes);
        let width = if self.trace.mla.is_some() { "d_v" } else { "d_k" };
        self.done(
            format!("concat[b,t,c] = context[b, ⌊c / {width}⌋, t, c mod {width}]"),
            Kind::Copy,
            vec![plain(format!("context[{b},{h},{t},{j}]"), v)],
            notes,
            vec![Operand::cell(StepName::Context, &[b, h, t, j])],
            format!("context[{b}, {h}, {t}, {j}]"),
            format!(r"{} = {} = {}", self.lhs(), tex_name("context", &[b, h, t, j]), tex(self.result)),
        )
    }
}
