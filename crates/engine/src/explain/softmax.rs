//! The softmax (`weights`): the row's maximum, every `exp(s − max)` and their sum, and
//! what a blocked key or a fully blocked row does under each fill.

use ndarray::ArrayView1;

use super::explanation::{BlockReason, ExplainError, Explanation, Kind, Operand, Term, TermKind};
use super::read::{cell, four, token};
use super::write::{num, tex, tex_factor};
use super::Explainer;
use crate::scenario::Fill;
use crate::step::{Axis, StepName};

impl Explainer<'_> {
    /// `weights`: the softmax of the masked row.
    pub(super) fn weights(&self) -> Result<Explanation, ExplainError> {
        let [b, h, i, j] = four(self.index)?;
        let h1 = h + 1; // heads are numbered from 1 in words, as on the cards
        let t_k = self.trace.axis_len(Axis::TK);
        let row: Vec<f64> =
            (0..t_k).map(|k| cell(self.trace, StepName::Masked, &[b, h, i, k])).collect::<Result<_, _>>()?;
        // As the engine: the max by fold from −∞, exps, ndarray's sum, then the quotient.
        // With an attention sink, the head's logit is one more column of the softmax
        // (its max and its sum), whose weight is then dropped.
        let sink = self.trace.sinks.get(h).copied();
        let max = row.iter().fold(sink.unwrap_or(f64::NEG_INFINITY), |m, &x| m.max(x));
        let exps: Vec<f64> = row.iter().map(|&s| (s - max).exp()).collect();
        let sink_exp = sink.map(|s| (s - max).exp());
        let sum = ArrayView1::from(exps.as_slice()).sum() + sink_exp.unwrap_or(0.0);
        let numerator = exps.get(j).copied().unwrap_or(f64::NAN);
        let mut terms: Vec<Term> = row
            .iter()
            .zip(&exps)
            .enumerate()
            .map(|(k, (&s, &e))| Term {
                label: format!("exp(masked[{b},{h},{i},{k}] − max)"),
                kind: TermKind::Exp,
                operands: vec![s, max],
                value: e,
            })
            .collect();
        if let (Some(s), Some(e)) = (sink, sink_exp) {
            terms.push(Term {
                label: format!("exp(sink[{h}] − max)"),
                kind: TermKind::Exp,
                operands: vec![s, max],
                value: e,
            });
        }
        let blocked: Vec<usize> = (0..t_k).filter(|&k| self.trace.mask.is_blocked(b, i, k)).collect();
        let fully = !blocked.is_empty() && blocked.len() == t_k;
        let fill = self.trace.mask.config.fill;
        let mut notes = vec![format!(
            "Softmax over the {t_k} keys of {}'s row in head {h1}: subtract the row's maximum {} (so exp cannot overflow), take exp of each, divide by their sum {}.",
            token(self.trace.query_tokens(b), i),
            num(max),
            num(sum)
        )];
        if let (Some(s), Some(e)) = (sink, sink_exp) {
            notes.push(format!(
                "Head {h1} has a learned sink logit {} (gpt-oss): it is one more column of this softmax, with \
                 exp({} − {}) = {} in the sum, and its weight {} is then dropped. So this row's weights sum to {}, not 1: \
                 a query with nothing worth reading can give its attention to no token.",
                num(s),
                num(s),
                num(max),
                num(e),
                num(e / sum),
                num(1.0 - e / sum)
            ));
        }
        if fully && sink.is_some() {
            notes.push(
                "Every key of this row is blocked, so only the sink's column is left: it takes the whole softmax, and \
                 every weight of the row is 0 (no NaN)."
                    .into(),
            );
        } else if fully {
            let mut reasons: Vec<BlockReason> = blocked.iter().flat_map(|&k| self.reasons(b, i, k)).collect();
            reasons.sort_unstable();
            reasons.dedup();
            let reasons: Vec<&str> = reasons
                .into_iter()
                .map(|r| match r {
                    BlockReason::Causal => "causal: later keys",
                    BlockReason::PadKey => "padding: pad keys",
                    BlockReason::PadQuery => "padding: this query is <pad>",
                    BlockReason::Window => "sliding window: keys too far away",
                })
                .collect();
            let why = if reasons.is_empty() { String::new() } else { format!(" ({})", reasons.join(", ")) };
            match fill {
                Fill::NegInf => notes.push(format!(
                    "Every key of this row is blocked{why}, so every score is -inf. The maximum is -inf, and -inf − (-inf) = NaN, so every exp is NaN and the weight is NaN. Mathematically it is 0/0: there is nothing to attend to. PyTorch gives the same NaN row."
                )),
                Fill::LargeNegative => notes.push(format!(
                    "Every key of this row is blocked{why}, so every score is -1e9. Subtracting the maximum (-1e9) leaves 0 everywhere, exp(0) = 1, and the weights are uniform: 1/{t_k} = {}. The row attends to keys it should not see; -inf would give NaN instead.",
                    num(1.0 / t_k as f64)
                )),
            }
        } else if blocked.contains(&j) {
            if self.result == 0.0 || self.result.is_nan() {
                notes.push(format!(
                    "Key {j} is blocked: its score is the fill {}, exp({} − {}) = 0, so its weight is exactly 0.",
                    self.fill_name(),
                    num(row.get(j).copied().unwrap_or(f64::NAN)),
                    num(max)
                ));
            } else {
                notes.push(format!(
                    "Key {j} is blocked, yet its weight is {}: the fill -1e9 is a number, and this row's real scores are so low (maximum {}) that exp(-1e9 − max) does not vanish. The -1e9 fill leaks attention to a blocked key; -inf never does.",
                    num(self.result),
                    num(max)
                ));
            }
        } else if fill == Fill::LargeNegative && !blocked.is_empty() {
            let real_max = row
                .iter()
                .enumerate()
                .filter(|(k, _)| !blocked.contains(k))
                .fold(f64::NEG_INFINITY, |m, (_, &x)| m.max(x));
            if real_max < fill.value() {
                notes.push(format!(
                    "The real scores of this row (maximum {}) are below the fill -1e9, so the blocked keys take the weight: the -1e9 fill leaks; -inf never does.",
                    num(real_max)
                ));
            }
        }
        self.check(numerator / sum, &mut notes);
        let py_row = format!("scores[{b}, {h}, {i}]");
        let (formula, python) = if sink.is_some() {
            (
                "weights[b,h,i,j] = exp(masked[b,h,i,j] − m) / (Σ_k exp(masked[b,h,i,k] − m) + exp(sink[h] − m)), \
                 m = max(max_k masked[b,h,i,k], sink[h])"
                    .to_owned(),
                format!(
                    "torch.cat([{py_row}, sinks[{h}:{}]]).softmax(dim=-1)[{j}]  # the sink's logit last; {}",
                    h + 1,
                    self.scores_here(StepName::Masked)
                ),
            )
        } else {
            (
                "weights[b,h,i,j] = exp(masked[b,h,i,j] − m) / Σ_k exp(masked[b,h,i,k] − m), m = max_k masked[b,h,i,k]".to_owned(),
                format!(
                    "torch.exp({py_row}[{j}] - {py_row}.max()) / torch.exp({py_row} - {py_row}.max()).sum()  # {}",
                    self.scores_here(StepName::Masked)
                ),
            )
        };
        self.done(
            formula,
            Kind::Softmax { max, numerator, sum },
            terms,
            notes,
            vec![Operand::step(StepName::Masked, &[Some(b), Some(h), Some(i), None])],
            python,
            format!(
                r"{} = \frac{{e^{{{} - {}}}}}{{\sum_{{k}} e^{{s_{{k}} - {}}}{}}} = \frac{{{}}}{{{}}} = {}",
                self.lhs(),
                tex(row.get(j).copied().unwrap_or(f64::NAN)),
                tex_factor(max),
                tex_factor(max),
                sink.map_or(String::new(), |s| format!(" + e^{{{} - {}}}", tex(s), tex_factor(max))),
                tex(numerator),
                tex(sum),
                tex(self.result)
            ),
        )
    }
}
