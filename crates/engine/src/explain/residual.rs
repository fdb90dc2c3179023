//! The residual stream of a run of more than one layer: what the layer shown reads
//! (`resid_in`) and the sum it hands on (`resid_out = resid_in + output`).

use super::explanation::{ExplainError, Explanation, Kind, Operand};
use super::read::{cell, three, token};
use super::write::{comma, num, plain, py, tex, tex_name};
use super::Explainer;
use crate::step::StepName;

impl Explainer<'_> {
    /// `resid_in`: in layer 1 a copy of the embeddings (plus the positions); in a later
    /// layer the previous layer's sum, which that layer's `resid_out` explains.
    pub(super) fn resid_in(&self) -> Result<Explanation, ExplainError> {
        let [b, t, c] = three(self.index)?;
        let layer = self.trace.layer;
        let who = token(self.trace.query_tokens(b), t);
        if layer <= 1 {
            let from = if self.trace.step(StepName::XPe).is_some() { StepName::XPe } else { StepName::X };
            let v = cell(self.trace, from, &[b, t, c])?;
            let mut notes = vec![format!(
                "No arithmetic: layer 1 reads the embeddings{} of {who} as they are, resid[0] = {from}.",
                if from == StepName::XPe { " plus the positions" } else { "" }
            )];
            self.check(v, &mut notes);
            return self.done(
                format!("resid_in[b,t,c] = {from}[b,t,c]"),
                Kind::Copy,
                vec![plain(format!("{from}[{}]", comma(self.index)), v)],
                notes,
                vec![Operand::cell(from, &[b, t, c])],
                format!("x[{}]", py(self.index)),
                format!(r"{} = {} = {}", self.lhs(), tex_name(from.as_str(), self.index), tex(self.result)),
            );
        }
        let notes = vec![format!(
            "resid[{0}] of {who} is layer {0}'s resid_out: resid[{1}] + layer {0}'s output. Pick layer {0} to see that sum.",
            layer - 1,
            layer - 2
        )];
        self.done(
            format!("resid_in[b,t,c] = resid[{}][b,t,c]", layer - 1),
            Kind::Copy,
            vec![plain(format!("resid[{}][{}]", layer - 1, comma(self.index)), self.result)],
            notes,
            vec![],
            format!("resid[{}]", py(self.index)),
            format!(
                r"{} = \mathrm{{resid}}^{{({})}}_{{{}}} = {}",
                self.lhs(),
                layer - 1,
                comma(self.index),
                tex(self.result)
            ),
        )
    }

    /// `resid_out`: what the layer read plus what it wrote.
    pub(super) fn resid_out(&self) -> Result<Explanation, ExplainError> {
        let [b, t, c] = three(self.index)?;
        let layer = self.trace.layer;
        let x = cell(self.trace, StepName::ResidIn, &[b, t, c])?;
        let out = cell(self.trace, StepName::Output, &[b, t, c])?;
        let mut notes = vec![format!(
            "Layer {layer} adds its output for {} to the residual stream it read: resid[{layer}] = resid[{}] + output = {} + {}.",
            token(self.trace.query_tokens(b), t),
            layer - 1,
            num(x),
            num(out)
        )];
        self.check(x + out, &mut notes);
        self.done(
            "resid_out[b,t,c] = resid_in[b,t,c] + output[b,t,c]".into(),
            Kind::Sum,
            vec![
                plain(format!("resid_in[{}]", comma(self.index)), x),
                plain(format!("output[{}]", comma(self.index)), out),
            ],
            notes,
            vec![Operand::cell(StepName::ResidIn, &[b, t, c]), Operand::cell(StepName::Output, &[b, t, c])],
            format!("x[{0}] + output[{0}]", py(self.index)),
            format!(
                r"{} = {} + {} = {} + {} = {}",
                self.lhs(),
                tex_name("resid_in", self.index),
                tex_name("output", self.index),
                tex(x),
                tex(out),
                tex(self.result)
            ),
        )
    }
}
