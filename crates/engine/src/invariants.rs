//! [`Trace::check_invariants`]: what every trace the engine returns must satisfy.
//!
//! The property tests, the robustness tests and the fuzz target call it on every trace
//! they get; the command line calls it in debug builds. The checks:
//!
//! 1. the steps are the expected ones, in [`StepName::ALL`] order: `x`, then `pe` and
//!    `x_pe` with positions, `x_kv` (and `x_kv_pe`) in cross-attention, then `q` … `output`,
//!    with `q_rot`/`k_rot` exactly when RoPE is on, `k_rep`/`v_rep` exactly when
//!    `h_kv < h`, and `alibi`/`biased` exactly when ALiBi's slopes (one per head) are there;
//! 2. every step's axes are `name.dims_in(layout)` and every axis has its size from
//!    [`Sizes`] (the data's shape included); `h_kv`, when given, divides `h` and is less;
//!    with more than one layer, `resid_in` and `resid_out` too, and the residual stream
//!    is `n_layers + 1` tensors of `(B, T, d_model)`;
//! 3. the tokens and the mask have the sizes of the run;
//! 4. NaN appears only in fully masked rows under the `-inf` fill without attention sinks
//!    (in `weights`, `context`, `concat` and `output`), and such a row of `weights` is NaN
//!    throughout;
//! 5. no infinity outside `masked`, and in `masked` only the fill, only in blocked cells;
//! 6. every other row of `weights` sums to 1 (with attention sinks, to 1 less the sink's
//!    share of the softmax of its `masked` row), and under `-inf` its blocked keys get
//!    exactly 0.
//!
//! [`Sizes`]: crate::trace::Sizes

use crate::scenario::{Fill, Positional};
use crate::step::StepName;
use crate::trace::Trace;

/// A broken invariant: a bug in the engine, never the user's input.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("trace invariant broken: {0}")]
pub struct InvariantError(pub String);

/// How far a weights row's sum may be from 1: T_k roundings of numbers ≤ 1.
const ROW_SUM_TOLERANCE: f64 = 1e-12;

fn fail<T>(message: String) -> Result<T, InvariantError> {
    Err(InvariantError(message))
}

impl Trace {
    /// The steps a trace of this kind must have, in order, without RoPE, ALiBi or grouped
    /// heads.
    pub fn expected_steps(cross: bool, positional: Positional) -> Vec<StepName> {
        Self::expected_steps_with(cross, positional, false, false, false)
    }

    /// The steps a trace must have, in order, with the options `rope`, `grouped`
    /// (`h_kv < h`) and `alibi` on or off, and no softcap (whose `capped` follows
    /// `scaled`).
    pub fn expected_steps_with(
        cross: bool,
        positional: Positional,
        rope: bool,
        grouped: bool,
        alibi: bool,
    ) -> Vec<StepName> {
        let positions = positional == Positional::Sinusoidal;
        StepName::ALL
            .into_iter()
            .filter(|s| !s.is_cross_only() || cross)
            .filter(|s| !s.is_positional() || positions)
            .filter(|s| !s.is_rope_only() || rope)
            .filter(|s| !s.is_grouped_only() || grouped)
            .filter(|s| !s.is_alibi_only() || alibi)
            .filter(|s| {
                !s.is_softcap_only() && !s.is_qk_norm_only() && !s.is_mla_only() && !s.is_layered_only()
            })
            .collect()
    }

    /// Checks every invariant listed in the [module docs](self).
    ///
    /// # Errors
    /// The first broken invariant, in words with the step and index.
    pub fn check_invariants(&self) -> Result<(), InvariantError> {
        self.check_steps()?;
        self.check_tokens_and_mask()?;
        self.check_numbers()
    }

    fn check_steps(&self) -> Result<(), InvariantError> {
        let cross = self.is_cross();
        let alibi = !self.alibi_slopes.is_empty();
        let want =
            Self::expected_steps_with(cross, self.positional, self.rope.is_some(), self.is_grouped(), alibi);
        // `capped` is there exactly when the trace has a softcap, after `scaled`; `q_norm`
        // and `k_norm` exactly when it has QK-norm, after `v_heads`.
        let want: Vec<StepName> = want
            .into_iter()
            .flat_map(|s| {
                let capped = (s == StepName::Scaled && self.softcap.is_some()).then_some(StepName::Capped);
                let normed = (s == StepName::VHeads && self.qk_norm.is_some())
                    .then_some([StepName::QNorm, StepName::KNorm])
                    .into_iter()
                    .flatten();
                std::iter::once(s).chain(capped).chain(normed)
            })
            .collect();
        // MLA: its own steps in place of k, v and k_heads (q_a and q_a_norm with query
        // compression, q_cat with RoPE)
        let want = match &self.mla {
            None => want,
            Some(m) => StepName::ALL
                .into_iter()
                .filter(|s| {
                    let own = match s {
                        StepName::QA | StepName::QANorm => m.q_lora_rank.is_some(),
                        StepName::QCat => self.rope.is_some(),
                        _ => s.is_mla_only(),
                    };
                    (want.contains(s) && !matches!(s, StepName::K | StepName::V | StepName::KHeads)) || own
                })
                .collect(),
        };
        // more than one layer: the residual stream in and out of the layer shown
        let mut want = want;
        if self.n_layers > 1 {
            want.extend([StepName::ResidIn, StepName::ResidOut]);
            want.sort();
        }
        let z = &self.sizes;
        let stream = (self.n_layers + 1) * z.b * z.t * z.d_model;
        if self.layer == 0
            || self.layer > self.n_layers
            || self.resid.len() != if self.n_layers > 1 { stream } else { 0 }
        {
            return fail(format!(
                "layer {} of {} with {} numbers of residual stream",
                self.layer,
                self.n_layers,
                self.resid.len()
            ));
        }
        let got: Vec<StepName> = self.steps.iter().map(|s| s.name).collect();
        if got != want {
            return fail(format!("steps {got:?}, expected {want:?}"));
        }
        if cross != self.sizes.t_k.is_some() || cross != self.kv_lengths.is_some() {
            return fail("kv_tokens, kv_lengths and sizes.T_k disagree on cross-attention".into());
        }
        let z = &self.sizes;
        // d_k is d_model / h, or a head size of its own (the steps' widths are checked below)
        if z.d_model == 0 || z.n_heads == 0 || z.d_k == 0 {
            return fail(format!("sizes d_model {} h {} d_k {}", z.d_model, z.n_heads, z.d_k));
        }
        if let Some(h_kv) = z.n_kv_heads {
            if h_kv == 0 || h_kv >= z.n_heads || !z.n_heads.is_multiple_of(h_kv) {
                return fail(format!("h_kv {h_kv} does not divide h {} into groups of 2 or more", z.n_heads));
            }
        }
        if alibi && self.alibi_slopes.len() != z.n_heads {
            return fail(format!("{} ALiBi slopes for {} heads", self.alibi_slopes.len(), z.n_heads));
        }
        if self.rope.is_some() && !z.d_k.is_multiple_of(2) && self.mla.is_none() {
            return fail(format!("RoPE with an odd d_k = {}", z.d_k));
        }
        let layout = self.layout();
        for s in &self.steps {
            let dims = s.name.dims_in(layout);
            if s.dims != dims {
                return fail(format!("step {} has axes {:?}, expected {dims:?}", s.name, s.dims));
            }
            let sizes: Vec<usize> = dims.iter().map(|&a| self.axis_len(a)).collect();
            if s.shape != sizes || s.data.shape() != sizes.as_slice() {
                return fail(format!(
                    "step {} has shape {:?} (data {:?}), expected {sizes:?}",
                    s.name,
                    s.shape,
                    s.data.shape()
                ));
            }
        }
        Ok(())
    }

    fn check_tokens_and_mask(&self) -> Result<(), InvariantError> {
        let z = &self.sizes;
        let t_k = z.t_k.unwrap_or(z.t);
        let rows_ok = |rows: &[Vec<String>], lengths: &[usize], t: usize| {
            rows.len() == z.b
                && lengths.len() == z.b
                && rows.iter().zip(lengths).all(|(r, &n)| r.len() == t && n >= 1 && n <= t)
        };
        if !rows_ok(&self.tokens, &self.lengths, z.t) || self.sources.len() != z.b {
            return fail(format!("tokens or lengths are not B = {} rows of T = {}", z.b, z.t));
        }
        if let (Some(kv), Some(kv_lengths)) = (&self.kv_tokens, &self.kv_lengths) {
            if !rows_ok(kv, kv_lengths, t_k) {
                return fail(format!("kv tokens are not B = {} rows of T_k = {t_k}", z.b));
            }
        }
        if self.mask.shape != [z.b, z.t, t_k] || self.mask.blocked.len() != z.b * z.t * t_k {
            return fail(format!("mask shape {:?}, expected [{}, {}, {t_k}]", self.mask.shape, z.b, z.t));
        }
        for &[b, i] in &self.fully_masked_rows {
            if b >= z.b || i >= z.t || (0..t_k).any(|j| !self.mask.is_blocked(b, i, j)) {
                return fail(format!("row [{b}, {i}] is listed as fully masked but is not"));
            }
        }
        Ok(())
    }

    /// Is query row `i` of sentence `b` fully masked under the `-inf` fill (so NaN)?
    /// (With attention sinks no row is NaN: a fully blocked row puts its weight on the sink.)
    fn nan_allowed(&self, b: usize, i: usize) -> bool {
        self.mask.config.fill == Fill::NegInf
            && self.sinks.is_empty()
            && self.fully_masked_rows.contains(&[b, i])
    }

    fn check_numbers(&self) -> Result<(), InvariantError> {
        for s in &self.steps {
            // The data iterates in logical row-major order: decode (b, row, col) from the
            // flat position instead of building an index per number.
            let shape = s.data.shape();
            let (rows, cols) = match shape {
                [_, _, r, c] if s.name.has_heads() => (*r, *c),
                [_, r, c] if !s.name.has_heads() => (*r, *c),
                _ => return fail(format!("step {} has rank {}", s.name, shape.len())),
            };
            let per_sentence = s.data.len() / shape.first().copied().unwrap_or(1).max(1);
            let query_rows =
                matches!(s.name, StepName::Weights | StepName::Context | StepName::Concat | StepName::Output);
            for (f, &v) in s.data.iter().enumerate() {
                if v.is_finite() {
                    continue;
                }
                let (b, row, col) =
                    (f / per_sentence.max(1), (f / cols.max(1)) % rows.max(1), f % cols.max(1));
                if v.is_nan() && !(query_rows && self.nan_allowed(b, row)) {
                    return fail(format!(
                        "NaN in step {} (sentence {b}, row {row}, column {col}) outside a fully masked -inf row",
                        s.name
                    ));
                }
                if v.is_infinite() {
                    let ok = s.name == StepName::Masked
                        && v == self.mask.fill_value
                        && self.mask.is_blocked(b, row, col);
                    if !ok {
                        return fail(format!(
                            "{v} in step {} (sentence {b}, row {row}, column {col})",
                            s.name
                        ));
                    }
                }
            }
        }
        self.check_weight_rows()
    }

    fn check_weight_rows(&self) -> Result<(), InvariantError> {
        let Some(weights) = self.step(StepName::Weights) else {
            return fail("no weights step".into());
        };
        let masked = self.step(StepName::Masked);
        if !self.sinks.is_empty() && self.sinks.len() != self.sizes.n_heads {
            return fail(format!("{} attention sinks for {} heads", self.sinks.len(), self.sizes.n_heads));
        }
        for b in 0..self.sizes.b {
            for h in 0..self.sizes.n_heads {
                let Some(m) = weights.matrix(b, h) else {
                    return fail(format!("weights has no matrix for sentence {b}, head {h}"));
                };
                for (i, row) in m.rows().into_iter().enumerate() {
                    if self.nan_allowed(b, i) {
                        if !row.iter().all(|v| v.is_nan()) {
                            return fail(format!("fully masked -inf row [{b}, {h}, {i}] is not all NaN"));
                        }
                        if !self.nan_rows.contains(&[b, h, i]) {
                            return fail(format!("NaN row [{b}, {h}, {i}] missing from nan_rows"));
                        }
                        continue;
                    }
                    // With a sink the row and the sink's share of the softmax sum to 1.
                    let share = match (self.sinks.get(h), masked.and_then(|m| m.matrix(b, h))) {
                        (Some(&sink), Some(scores)) => {
                            let mut row = scores.row(i).to_vec();
                            crate::attention::softmax_with_sink(&mut row, sink)
                        }
                        _ => 0.0,
                    };
                    let sum = row.sum();
                    if (sum + share - 1.0).abs() > ROW_SUM_TOLERANCE * row.len() as f64 {
                        return fail(format!("weights row [{b}, {h}, {i}] sums to {sum}"));
                    }
                    if self.mask.config.fill == Fill::NegInf {
                        let leak =
                            row.iter().enumerate().find(|&(j, &w)| self.mask.is_blocked(b, i, j) && w != 0.0);
                        if let Some((j, w)) = leak {
                            return fail(format!("blocked weight [{b}, {h}, {i}, {j}] = {w} under -inf"));
                        }
                    }
                }
            }
        }
        let listed = self.nan_rows.len();
        let nan = self.nan_rows.iter().filter(|&&[b, _, i]| self.nan_allowed(b, i)).count();
        if listed != nan {
            return fail(format!(
                "nan_rows lists {listed} rows, of which only {nan} are fully masked -inf rows"
            ));
        }
        Ok(())
    }
}
