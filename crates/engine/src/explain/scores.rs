//! The scores (`Σ_d q·k`), their scaling by `√d_k`, and the mask (`masked`: kept, or
//! replaced by the fill, and why a pair is blocked).

use super::explanation::{left_sum, BlockReason, ExplainError, Explanation, Kind, Operand, Term};
use super::read::{cell, four};
use super::write::{comma, num, plain, product, tex, tex_name, tex_terms};
use super::Explainer;
use crate::scenario::Padding;
use crate::step::StepName;

impl Explainer<'_> {
    /// `scores`: `Σ_d q·k`.
    pub(super) fn scores(&self) -> Result<Explanation, ExplainError> {
        let [b, h, i, j] = four(self.index)?;
        let h1 = h + 1; // heads are numbered from 1 in words, as on the cards
        let (terms, sum) = self.dot(b, h, i, j)?;
        let mut notes = vec![format!(
            "How well {} match in head {h1}: the dot product of the query's and the key's d_k = {} features.",
            self.pair(b, i, j),
            self.d_k()
        )];
        self.check(sum, &mut notes);
        let mut pytorch = format!("(q[{b}, {h}, {i}] * k[{b}, {h}, {j}]).sum()");
        if let Some(m) = &self.trace.mla {
            let n = m.qk_nope_head_dim.min(terms.len());
            let (nope, rope) = terms.split_at(n);
            let part = |ts: &[Term]| num(left_sum(ts.iter().map(|t| t.value)));
            notes.push(format!(
                "Under multi-head latent attention the key is [k_nope, k_rot]. The first d_nope = {n} products \
                 are the unrotated part, q_nope · k_nope, with k_nope projected up from the latent c_KV \
                 (kv_b_proj): {}. The last d_rope = {} are the rotated part, q_rot · k_rot, with the one RoPE \
                 key every head shares: {}.",
                part(nope),
                rope.len(),
                part(rope)
            ));
            if let Some(absorbed) = self.trace.absorbed_scores().and_then(|a| a.get([b, h, i, j]).copied()) {
                notes.push(format!(
                    "With W_UK absorbed into the query, (q_nope · W_UKᵀ) · c_KV + q_rot · k_rot gives {}: the \
                     same score, read from the cached latent without forming the key.",
                    num(absorbed)
                ));
            }
            pytorch = format!(
                "(q[{b}, {h}, {i}, :{n}] * k[{b}, {h}, {j}, :{n}]).sum() + (q[{b}, {h}, {i}, {n}:] * k[{b}, {h}, {j}, {n}:]).sum()"
            );
        }
        let latex = format!(
            r"{} = \sum_{{d}} q_{{{b},{h},{i},d}}\, k_{{{b},{h},{j},d}} = {} = {}",
            self.lhs(),
            tex_terms(&terms),
            tex(self.result)
        );
        self.done(
            "scores[b,h,i,j] = Σ_d q[b,h,i,d] · k[b,h,j,d]".into(),
            Kind::Sum,
            terms,
            notes,
            vec![
                Operand::step(self.q_source(), &[Some(b), Some(h), Some(i), None]),
                Operand::step(self.k_source(), &[Some(b), Some(h), Some(j), None]),
            ],
            pytorch,
            latex,
        )
    }

    /// The products of a query row and a key row, and their left-to-right sum.
    fn dot(&self, b: usize, h: usize, i: usize, j: usize) -> Result<(Vec<Term>, f64), ExplainError> {
        let mut terms = Vec::with_capacity(self.d_k());
        let (q_step, k_step) = (self.q_source(), self.k_source());
        for d in 0..self.d_k() {
            let q = cell(self.trace, q_step, &[b, h, i, d])?;
            let k = cell(self.trace, k_step, &[b, h, j, d])?;
            terms.push(product(format!("q[{b},{h},{i},{d}] · k[{b},{h},{j},{d}]"), q, k));
        }
        let sum = left_sum(terms.iter().map(|t| t.value));
        Ok((terms, sum))
    }

    /// `scaled`: `scores / √d_k`.
    pub(super) fn scaled(&self) -> Result<Explanation, ExplainError> {
        let [b, h, i, j] = four(self.index)?;
        let d_k = self.d_k();
        let score = cell(self.trace, StepName::Scores, self.index)?;
        if let Some(factor) = self.trace.scale {
            let terms = vec![product(format!("scores[{}] · scale", comma(self.index)), score, factor)];
            let mut notes = vec![format!(
                "The score of {} times the scale {} (in place of 1/√d_k = {}): Gemma 2 scales by \
                 query_pre_attn_scalar^(−1/2), which need not be the head size.",
                self.pair(b, i, j),
                num(factor),
                num(1.0 / (d_k as f64).sqrt())
            )];
            self.check(score * factor, &mut notes);
            return self.done(
                "scaled[b,h,i,j] = scores[b,h,i,j] · scale".into(),
                Kind::Sum,
                terms,
                notes,
                vec![Operand::cell(StepName::Scores, self.index)],
                format!("(q[{b}, {h}, {i}] * k[{b}, {h}, {j}]).sum() * scale"),
                format!(
                    r"{} = {} \cdot {} = {} \cdot {} = {}",
                    self.lhs(),
                    tex_name("scores", self.index),
                    tex(factor),
                    tex(score),
                    tex(factor),
                    tex(self.result)
                ),
            );
        }
        let root = (d_k as f64).sqrt();
        let mut notes = vec![format!(
            "The score of {} divided by √d_k = √{d_k} = {}, so that the spread of the scores does not grow with d_k.",
            self.pair(b, i, j),
            num(root)
        )];
        self.check(score / root, &mut notes);
        self.done(
            "scaled[b,h,i,j] = scores[b,h,i,j] / √d_k".into(),
            Kind::Quotient { numerator: score, denominator: root },
            vec![
                plain(format!("scores[{}]", comma(self.index)), score),
                plain(format!("√d_k = √{d_k}"), root),
            ],
            notes,
            vec![Operand::cell(StepName::Scores, self.index)],
            format!("(q[{b}, {h}, {i}] * k[{b}, {h}, {j}]).sum() / math.sqrt(d_k)"),
            format!(
                r"{} = \frac{{{}}}{{\sqrt{{{d_k}}}}} = \frac{{{}}}{{{}}} = {}",
                self.lhs(),
                tex_name("scores", self.index),
                tex(score),
                tex(root),
                tex(self.result)
            ),
        )
    }

    /// `capped`: the scaled score softcapped, `c·tanh(s / c)`.
    pub(super) fn capped(&self) -> Result<Explanation, ExplainError> {
        let [b, h, i, j] = four(self.index)?;
        let Some(c) = self.trace.softcap else {
            return Err(ExplainError::Inconsistent("a capped score without a softcap".into()));
        };
        let scaled = cell(self.trace, StepName::Scaled, self.index)?;
        let value = crate::attention::softcap_one(scaled, c);
        let terms = vec![plain(format!("{} · tanh({} / {})", num(c), num(scaled), num(c)), value)];
        let mut notes = vec![
            format!(
                "The scaled score of {}, {}, softcapped at c = {}: c·tanh(s / c) stays close to s while |s| is small \
                 against c, and never goes beyond ±c, so one score cannot swamp the softmax.",
                self.pair(b, i, j),
                num(scaled),
                num(c)
            ),
            format!("Here tanh({} / {}) = {}, so the score becomes {}.", num(scaled), num(c), num((scaled / c).tanh()), num(value)),
        ];
        self.check(value, &mut notes);
        self.done(
            "capped[b,h,i,j] = c · tanh(scaled[b,h,i,j] / c)".into(),
            Kind::Sum,
            terms,
            notes,
            vec![Operand::cell(StepName::Scaled, self.index)],
            format!(
                "softcap * torch.tanh(scores[{b}, {h}, {i}, {j}] / softcap)  # {}",
                self.scores_here(StepName::Scaled)
            ),
            format!(
                r"{} = {} \tanh\left(\frac{{{}}}{{{}}}\right) = {}",
                self.lhs(),
                tex(c),
                tex(scaled),
                tex(c),
                tex(self.result)
            ),
        )
    }

    /// Why query `i` of sentence `b` may not see key `j`, from the mask settings.
    pub(super) fn reasons(&self, b: usize, i: usize, j: usize) -> Vec<BlockReason> {
        let config = &self.trace.mask.config;
        let mut reasons = Vec::new();
        if config.causal && j > i {
            reasons.push(BlockReason::Causal);
        }
        if crate::mask::outside_window(config, i, j) {
            reasons.push(BlockReason::Window);
        }
        if config.padding != Padding::None && j >= self.trace.key_length(b) {
            reasons.push(BlockReason::PadKey);
        }
        if config.padding == Padding::KeysAndQueries && i >= self.trace.query_length(b) {
            reasons.push(BlockReason::PadQuery);
        }
        reasons
    }

    fn reason_words(&self, b: usize, i: usize, j: usize, reason: BlockReason) -> String {
        match reason {
            BlockReason::Causal => format!("the causal mask blocks key {j}, which comes after query {i} (j > i)"),
            BlockReason::Window => {
                let config = &self.trace.mask.config;
                let w = config.window.unwrap_or(0);
                // with kept first keys, the keys 0..n stay visible beside the window
                let kept = config.keep_first.map_or(String::new(), |n| {
                    format!(" (besides the {n} kept first key{}, 0..={})", if n == 1 { "" } else { "s" }, n - 1)
                });
                if config.causal {
                    format!(
                        "the sliding window of {w} keys lets query {i} see only keys {}..={i}{kept}, and key {j} is older",
                        (i + 1).saturating_sub(w)
                    )
                } else {
                    format!("the sliding window of {w} blocks key {j}: |{i} − {j}| = {} ≥ {w}{kept}", i.abs_diff(j))
                }
            }
            BlockReason::PadKey => format!(
                "key {j} is <pad> (sentence {b} has {} real key tokens) and the padding mask blocks pad keys",
                self.trace.key_length(b)
            ),
            BlockReason::PadQuery => format!(
                "query {i} is <pad> (sentence {b} has {} real tokens) and padding \"keys_and_queries\" blocks its whole row",
                self.trace.query_length(b)
            ),
        }
    }

    pub(super) fn fill_name(&self) -> &'static str {
        self.trace.mask.config.fill.pytorch()
    }

    /// `masked`: kept, or replaced by the fill.
    pub(super) fn masked(&self) -> Result<Explanation, ExplainError> {
        let [b, h, i, j] = four(self.index)?;
        let blocked = self.trace.mask.is_blocked(b, i, j);
        let reasons = if blocked { self.reasons(b, i, j) } else { vec![] };
        let fill = self.trace.mask.fill_value;
        let source = self.masked_source();
        let scaled = cell(self.trace, source, self.index)?;
        let mut notes = Vec::new();
        let (terms, recomputed, pytorch, latex) = if blocked {
            let why: Vec<String> = reasons.iter().map(|&r| self.reason_words(b, i, j, r)).collect();
            if why.is_empty() {
                notes.push(format!(
                    "The trace's mask blocks {} (mask[{b},{i},{j}] is true).",
                    self.pair(b, i, j)
                ));
            } else {
                notes.push(format!("Blocked: {}.", why.join("; and ")));
            }
            notes.push(format!(
                "masked_fill replaces the score {} by the fill {} (it replaces, it does not add).",
                num(scaled),
                self.fill_name()
            ));
            (
                vec![plain("fill".into(), fill)],
                fill,
                format!("{}  # mask[{b}, {i}, {j}] is True: blocked", self.fill_name()),
                format!(r"{} = {}\quad(\text{{blocked}})", self.lhs(), tex(self.result)),
            )
        } else {
            let config = &self.trace.mask.config;
            if crate::mask::kept_beyond_window(config, i, j) {
                notes.push(format!(
                    "Key {j} is outside the sliding window of {} keys, but it is one of the {} kept first keys \
                     (StreamingLLM's attention sinks), which every query keeps seeing.",
                    config.window.unwrap_or(0),
                    config.keep_first.unwrap_or(0)
                ));
            }
            notes.push(format!(
                "Not blocked ({} may attend), so the {} score is kept unchanged.",
                self.pair(b, i, j),
                source
            ));
            (
                vec![plain(format!("{source}[{}]", comma(self.index)), scaled)],
                scaled,
                format!(
                    "scores[{b}, {h}, {i}, {j}]  # mask[{b}, {i}, {j}] is False: kept; {}",
                    self.scores_here(source)
                ),
                format!(r"{} = {} = {}", self.lhs(), tex_name(source.as_str(), self.index), tex(self.result)),
            )
        };
        self.check(recomputed, &mut notes);
        self.done(
            format!("masked[b,h,i,j] = {} if mask[b,i,j] else {source}[b,h,i,j]", self.fill_name()),
            Kind::Masked { blocked, reasons, fill },
            terms,
            notes,
            vec![Operand::cell(source, self.index)],
            pytorch,
            latex,
        )
    }
}
