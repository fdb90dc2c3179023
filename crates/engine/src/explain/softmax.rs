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
        let mut row = Vec::with_capacity(t_k);
        for k in 0..t_k {
            row.push(cell(self.trace, StepName::Masked, &[b, h, i, k])?);
        }
        // As the engine: the max by fold from −∞, exps, ndarray's sum, then the quotient.
        let max = row.iter().fold(f64::NEG_INFINITY, |m, &x| m.max(x));
        let exps: Vec<f64> = row.iter().map(|&s| (s - max).exp()).collect();
        let sum = ArrayView1::from(exps.as_slice()).sum();
        let numerator = exps.get(j).copied().unwrap_or(f64::NAN);
        let terms: Vec<Term> = row
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
        let blocked: Vec<usize> = (0..t_k).filter(|&k| self.trace.mask.is_blocked(b, i, k)).collect();
        let fully = !blocked.is_empty() && blocked.len() == t_k;
        let fill = self.trace.mask.config.fill;
        let mut notes = vec![format!(
            "Softmax over the {t_k} keys of {}'s row in head {h1}: subtract the row's maximum {} (so exp cannot overflow), take exp of each, divide by their sum {}.",
            token(self.trace.query_tokens(b), i),
            num(max),
            num(sum)
        )];
        if fully {
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
        self.done(
            "weights[b,h,i,j] = exp(masked[b,h,i,j] − m) / Σ_k exp(masked[b,h,i,k] − m), m = max_k masked[b,h,i,k]".into(),
            Kind::Softmax { max, numerator, sum },
            terms,
            notes,
            vec![Operand::step(StepName::Masked, &[Some(b), Some(h), Some(i), None])],
            format!("torch.exp({py_row}[{j}] - {py_row}.max()) / torch.exp({py_row} - {py_row}.max()).sum()  # scores after masked_fill"),
            format!(
                r"{} = \frac{{e^{{{} - {}}}}}{{\sum_{{k}} e^{{s_{{k}} - {}}}}} = \frac{{{}}}{{{}}} = {}",
                self.lhs(),
                tex(row.get(j).copied().unwrap_or(f64::NAN)),
                tex_factor(max),
                tex_factor(max),
                tex(numerator),
                tex(sum),
                tex(self.result)
            ),
        )
    }
}
