//! Multi-head latent attention's own steps (DeepSeek-V2/V3, in the names of Hugging Face's
//! `DeepseekV3Attention`): the projections `q_a`, `q`, `kv_a` and `kv_b` (a row dotted
//! with a weight column, [`Explainer::linear_cell`]); the RMSNorms `q_a_norm` and `c_kv`;
//! the slices `k_pe`, `k_nope` and `v_heads` (copies); RoPE on the rotated parts `q_rot`
//! and `k_rot`, in DeepSeek's three layouts; and each head's query and key put together
//! again, `q_cat` and `k_cat` (copies). `q_heads` is the split every model has
//! (`head_copy`).

use super::explanation::{left_sum, ExplainError, Explanation, Kind, Operand, Param};
use super::projections::LinearCell;
use super::read::{cell, four, inconsistent, three};
use super::write::{normed_term, num, plain, product, tex, tex_name, tex_terms};
use super::Explainer;
use crate::mla::{Mla, MlaParams, QueryPath};
use crate::scenario::RopeStyle;
use crate::step::StepName;

impl Explainer<'_> {
    /// MLA's sizes, which every step of its own needs.
    fn mla_sizes(&self) -> Result<&Mla, ExplainError> {
        match &self.trace.mla {
            Some(m) => Ok(m),
            None => inconsistent(format!("{} is in the trace but MLA's settings are not", self.step)),
        }
    }

    /// MLA's weights: the run's own (a trace read from JSON does not hold them).
    fn mla_weights(&self) -> Result<&MlaParams, ExplainError> {
        match self.trace.mla_params.as_deref() {
            Some(p) => Ok(p),
            None => {
                inconsistent(format!("{} needs MLA's weights, and this trace does not hold them", self.step))
            }
        }
    }

    /// `T`, or in cross-attention `T_k`: the key/value sentences' length as the PyTorch
    /// lines call it.
    fn t_k_name(&self) -> &'static str {
        if self.trace.layout().cross {
            "T_k"
        } else {
            "T"
        }
    }

    /// `q_a`, `q`, `kv_a`, `kv_b` under MLA: `input[b,t,:] · W[:,c]`, plus the bias when
    /// the layer has one.
    pub(super) fn latent_projection(&self) -> Result<Explanation, ExplainError> {
        let (m, p) = (self.mla_sizes()?, self.mla_weights()?);
        let [_, _, c] = three(self.index)?;
        let (h1, j) = (c / self.d_k().max(1) + 1, c % self.d_k().max(1));
        let d_nope = m.qk_nope_head_dim;
        let query_column = || {
            let part = if j < d_nope {
                format!("its unrotated part q_nope, number {j} of d_nope = {d_nope}")
            } else if self.trace.rope.is_some() {
                format!(
                    "its rotated part, number {} of d_rope = {}, which RoPE turns",
                    j - d_nope,
                    m.qk_rope_head_dim
                )
            } else {
                format!(
                    "its last d_rope = {} numbers, the ones that meet the shared key k_pe",
                    m.qk_rope_head_dim
                )
            };
            format!("Column {c} is head {h1}'s query, feature {j}: {part}.")
        };
        let (input, layer, params, py_layer, letter, note) = match (self.step, &p.q) {
            (StepName::QA, QueryPath::Compressed { down, .. }) => (
                self.projection_input(false),
                down,
                (Param::WQA, Param::BQA),
                "self.q_a_proj",
                r"q\_a",
                format!(
                    "q_a_proj compresses the token to the query's latent of r_q = {} numbers; this is number {c}, \
                     before its RMSNorm (q_a_layernorm).",
                    down.w().ncols()
                ),
            ),
            (StepName::Q, QueryPath::Compressed { up, .. }) => {
                (StepName::QANorm, up, (Param::WQB, Param::BQB), "self.q_b_proj", r"q\_b", query_column())
            }
            (StepName::Q, QueryPath::Direct(layer)) => {
                (self.projection_input(false), layer, (Param::WQ, Param::BQ), "self.q_proj", "Q", query_column())
            }
            (StepName::KvA, _) => {
                let r_kv = m.kv_lora_rank;
                let note = if c < r_kv {
                    format!(
                        "Columns 0 to {} are the latent (c_kv after its RMSNorm); column {c} is the latent's number {c}.",
                        r_kv - 1
                    )
                } else {
                    format!(
                        "The last d_rope = {} columns are the RoPE key every head shares (k_pe); column {c} is its \
                         number {c} − r_kv = {}.",
                        m.qk_rope_head_dim,
                        c - r_kv
                    )
                };
                let input = self.projection_input(true);
                (input, &p.kv_a, (Param::WKvA, Param::BKvA), "self.kv_a_proj_with_mqa", r"kv\_a", note)
            }
            (StepName::KvB, _) => {
                let width = (d_nope + m.v_head_dim).max(1);
                let (h, k) = (c / width, c % width);
                // heads are named from 1 as on the cards; columns and numbers count from 0
                let head = format!("head {} (index h = {h})", h + 1);
                let note = if k < d_nope {
                    format!(
                        "kv_b_proj holds W_UK and W_UV side by side for each head, d_nope + d_v = {width} columns a \
                         head: column {c} is {head}'s key part k_nope, number {k} (a column of W_UK)."
                    )
                } else {
                    format!(
                        "kv_b_proj holds W_UK and W_UV side by side for each head, d_nope + d_v = {width} columns a \
                         head: column {c} is {head}'s value, number {} (a column of W_UV).",
                        k - d_nope
                    )
                };
                (StepName::CKv, &p.kv_b, (Param::WKvB, Param::BKvB), "self.kv_b_proj", r"kv\_b", note)
            }
            _ => {
                return inconsistent(format!("{} does not match the trace's query path under MLA", self.step));
            }
        };
        self.linear_cell(LinearCell {
            input,
            layer,
            params,
            py_layer,
            letter,
            bias_always: false,
            notes: vec![note],
        })
    }

    /// `q_a_norm`, `c_kv`: number `c` of a token's row times the row's inverse RMS and the
    /// norm's weight `w_c` (`DeepseekV3RMSNorm`).
    pub(super) fn latent_norm(&self) -> Result<Explanation, ExplainError> {
        let (m, p) = (self.mla_sizes()?, self.mla_weights()?);
        let [b, t, c] = three(self.index)?;
        let (from, weights, module, py_in, part) = match (self.step, &p.q) {
            (StepName::QANorm, QueryPath::Compressed { norm, .. }) => {
                (StepName::QA, norm.as_slice(), "q_a_layernorm", "q_a", String::new())
            }
            (StepName::CKv, _) => (
                StepName::KvA,
                p.kv_a_norm.as_slice(),
                "kv_a_layernorm",
                "kv_a[..., :kv_lora_rank]",
                format!(
                    " (the first r_kv = {} of kv_a; the last d_rope = {}, the RoPE key, are not normed)",
                    m.kv_lora_rank, m.qk_rope_head_dim
                ),
            ),
            _ => {
                return inconsistent(format!("{} does not match the trace's query path under MLA", self.step))
            }
        };
        let width = weights.len();
        let row = (0..width).map(|d| cell(self.trace, from, &[b, t, d])).collect::<Result<Vec<f64>, _>>()?;
        let r = crate::attention::inverse_rms(&row, m.eps);
        let (Some(&w), Some(&x)) = (weights.get(c), row.get(c)) else {
            return inconsistent(format!("{module} has no weight {c}"));
        };
        let mean = row.iter().map(|v| v * v).sum::<f64>() / width.max(1) as f64;
        let mut notes = vec![
            format!(
                "RMSNorm ({module}) of the token's {width} numbers{part}: their mean square is {}, plus ε = {} gives \
                 rms = √{} = {}.",
                num(mean),
                num(m.eps),
                num(mean + m.eps),
                num(1.0 / r)
            ),
            format!(
                "Number {c}, {}, divided by the rms and times the learned weight w_{c} = {}: every token's latent \
                 leaves with the same size.",
                num(x),
                num(w)
            ),
        ];
        self.check(w * (x * r), &mut notes);
        self.done(
            format!("{}[b,t,c] = w_c · {from}[b,t,c] / √(mean_d {from}[b,t,d]² + ε), d < {width}", self.step),
            Kind::Sum,
            vec![normed_term(format!("w_{c} · {from}[{b},{t},{c}] / rms"), w, x, r)],
            notes,
            (0..width).map(|d| Operand::cell(from, &[b, t, d])).collect(),
            format!("self.{module}({py_in})[{b}, {t}, {c}]"),
            format!(
                r"{} = w_{{{c}}} \cdot \frac{{{}}}{{\sqrt{{\overline{{x^2}} + \varepsilon}}}} = {} \cdot \frac{{{}}}{{{}}} = {}",
                self.lhs(),
                tex_name(from.as_str(), &[b, t, c]),
                tex(w),
                tex(x),
                tex(1.0 / r),
                tex(self.result)
            ),
        )
    }

    /// `k_pe`, `k_nope`, `v_heads` under MLA: one number of `kv_a` or `kv_b`, no arithmetic.
    pub(super) fn latent_slice(&self) -> Result<Explanation, ExplainError> {
        let m = self.mla_sizes()?;
        let [b, h, t, j] = four(self.index)?;
        let (d_nope, d_v, r_kv) = (m.qk_nope_head_dim, m.v_head_dim, m.kv_lora_rank);
        let width = d_nope + d_v;
        let view = format!("kv_b.view(B, {}, h, d_nope + d_v)", self.t_k_name());
        let (from, col, note, py) = match self.step {
            StepName::KPe => (
                StepName::KvA,
                r_kv + j,
                format!(
                    "No arithmetic: k_pe is the last d_rope = {} numbers of kv_a, one RoPE key per token that every \
                     head shares (DeepSeek's decoupled RoPE): number {j} is column r_kv + {j} = {} of kv_a.",
                    m.qk_rope_head_dim,
                    r_kv + j
                ),
                format!("kv_a[{b}, {t}, kv_lora_rank + {j}]"),
            ),
            StepName::KNope => (
                StepName::KvB,
                h * width + j,
                format!(
                    "No arithmetic: the view cuts kv_b into h heads of d_nope + d_v = {width} numbers, and a head's \
                     first d_nope = {d_nope} are its key part k_nope. Head {} (index h = {h}), number {j} is column \
                     {h}·{width} + {j} = {} of kv_b.",
                    h + 1,
                    h * width + j
                ),
                format!("{view}[{b}, {t}, {h}, {j}]"),
            ),
            _ => (
                StepName::KvB,
                h * width + d_nope + j,
                format!(
                    "No arithmetic: the view cuts kv_b into h heads of d_nope + d_v = {width} numbers, and a head's \
                     last d_v = {d_v} are its value. Head {} (index h = {h}), number {j} is column {h}·{width} + \
                     {d_nope} + {j} = {} of kv_b.",
                    h + 1,
                    h * width + d_nope + j
                ),
                format!("{view}[{b}, {t}, {h}, d_nope + {j}]"),
            ),
        };
        let v = cell(self.trace, from, &[b, t, col])?;
        let mut notes = vec![note];
        self.check(v, &mut notes);
        self.done(
            match self.step {
                StepName::KPe => "k_pe[b,0,t,j] = kv_a[b,t,r_kv + j]".into(),
                StepName::KNope => "k_nope[b,h,t,j] = kv_b[b,t,h·(d_nope + d_v) + j]".into(),
                _ => "v_heads[b,h,t,j] = kv_b[b,t,h·(d_nope + d_v) + d_nope + j]".into(),
            },
            Kind::Copy,
            vec![plain(format!("{from}[{b},{t},{col}]"), v)],
            notes,
            vec![Operand::cell(from, &[b, t, col])],
            py,
            format!(r"{} = {} = {}", self.lhs(), tex_name(from.as_str(), &[b, t, col]), tex(self.result)),
        )
    }

    /// `q_rot`, `k_rot` under MLA: RoPE on a query head's last `d_rope` numbers or on the
    /// shared key `k_pe`, in `rotate_half`'s layout, DeepSeek-V3's interleaved one
    /// (`apply_rotary_pos_emb_interleave`: the pairs `2i, 2i+1`, written evens first, then
    /// odds) or DeepSeek-V2's (`apply_rotary_emb`: each pair turned where it is).
    pub(super) fn latent_rotated(&self) -> Result<Explanation, ExplainError> {
        let m = self.mla_sizes()?;
        let [b, h, t, c] = four(self.index)?;
        let rope = self.rope()?;
        let (r, d_nope) = (m.qk_rope_head_dim, m.qk_nope_head_dim);
        let half = r / 2;
        // the rotated part's own index k → the cell of the step it is read from
        let (from, offset, who) = if self.step == StepName::QRot {
            (
                StepName::QHeads,
                d_nope,
                format!("query head {} (index h = {h})'s last d_rope = {r} numbers (q[..., d_nope:])", h + 1),
            )
        } else {
            (StepName::KPe, 0, format!("the RoPE key k_pe that all {} heads share", self.trace.sizes.n_heads))
        };
        let at = |k: usize| [b, h, t, offset + k];
        // DeepSeek-V3 turns its interleaved pairs as rotate_half turns the evens, then the odds
        let gathered = |k: usize| if k < half { 2 * k } else { 2 * (k - half) + 1 };
        let (src_c, src_p, first, i, layout) = match rope.style {
            RopeStyle::Half => {
                let (p, first) = RopeStyle::Half.partner(c, r);
                let pairing = format!("rotate_half pairs number i with i + d_rope/2, so {c} goes with {p}");
                (c, p, first, c % half.max(1), pairing)
            }
            RopeStyle::Interleaved if m.rope_in_place => {
                let (p, first) = RopeStyle::Interleaved.partner(c, r);
                let pairing = format!(
                    "DeepSeek-V2 turns each pair 2i, 2i+1 of the weights' layout where it is, as one complex number \
                     (its apply_rotary_emb), so {c} goes with {p}"
                );
                (c, p, first, c / 2, pairing)
            }
            RopeStyle::Interleaved => {
                let (p, first) = RopeStyle::Half.partner(c, r);
                let (sc, sp) = (gathered(c), gathered(p));
                let pairing = format!(
                    "DeepSeek-V3's weights lay the pairs out interleaved (rope_interleave): numbers 2i and 2i+1 turn \
                     together, and apply_rotary_pos_emb_interleave writes the turned pairs' first numbers, then \
                     their second ones, so output {c} is pair i = {}'s {} number, read from {sc} and {sp}",
                    c % half.max(1),
                    if first { "first" } else { "second" }
                );
                (sc, sp, first, c % half.max(1), pairing)
            }
        };
        let angle = rope.angle(t, i, r);
        let amp = rope.attention_factor();
        let (cos, sin) = (angle.cos() * amp, angle.sin() * amp);
        let (x_c, x_p) = (cell(self.trace, from, &at(src_c))?, cell(self.trace, from, &at(src_p))?);
        let signed = if first { -x_p } else { x_p };
        let sign = if first { "−" } else { "+" };
        let label = |k: usize| tex_free_label(from, &at(k));
        let terms = vec![
            product(format!("{} · cos(angle)", label(src_c)), x_c, cos),
            product(format!("{sign}{} · sin(angle)", label(src_p)), signed, sin),
        ];
        let scaled = if rope.scaling.is_some() { ", scaled" } else { "" };
        let mut notes = vec![
            format!("RoPE turns {who} by an angle that grows with the token's position: {layout}."),
            format!(
                "Position {t}, pair i = {i}: angle = pos · θ_i = {t} · base^(−2i/d_rope){scaled} = {t} · {}^(−{}/{r}){scaled} \
                 = {} radians; cos = {}, sin = {}.",
                num(rope.base),
                2 * i,
                num(angle),
                num(cos),
                num(sin)
            ),
        ];
        if let Some(scaling) = rope.scaling {
            notes.push(format!(
                "θ_i is scaled ({}): base^(−2i/d_rope) = {} becomes {}.",
                crate::step::scaling_words(scaling),
                num(1.0 / rope.base.powf((2 * i) as f64 / r as f64)),
                num(rope.inv_freq(i, r))
            ));
        }
        if amp != 1.0 {
            notes.push(format!("YaRN's attention factor {} multiplies cos and sin.", num(amp)));
        }
        self.check(left_sum(terms.iter().map(|t| t.value)), &mut notes);
        self.done(
            format!(
                "{}[b,h,t,{c}] = {from}[b,h,t,{}]·cos(t·θ_{i}) {sign} {from}[b,h,t,{}]·sin(t·θ_{i})",
                self.step,
                offset + src_c,
                offset + src_p
            ),
            Kind::Sum,
            terms.clone(),
            notes,
            vec![Operand::cell(from, &at(src_c)), Operand::cell(from, &at(src_p))],
            self.own_line_at(&[b, h, t, c])?,
            format!(r"{} = {} = {}", self.lhs(), tex_terms(&terms), tex(self.result)),
        )
    }

    /// `q_cat`, `k_cat`: a head's unrotated part, then its rotated one (for a key, the
    /// RoPE key every head shares), no arithmetic.
    pub(super) fn latent_cat(&self) -> Result<Explanation, ExplainError> {
        let m = self.mla_sizes()?;
        let [b, h, t, c] = four(self.index)?;
        let d_nope = m.qk_nope_head_dim;
        let (from, at, py, note) = if self.step == StepName::QCat {
            if c < d_nope {
                let note =
                    format!("its unrotated part, number {c} of d_nope = {d_nope}, as q_heads holds it");
                (StepName::QHeads, [b, h, t, c], format!("q[{b}, {h}, {t}, {c}]"), note)
            } else {
                let k = c - d_nope;
                let note = format!("its turned part, number {c} − d_nope = {k} of q_rot");
                (StepName::QRot, [b, h, t, k], format!("q_rot[{b}, {h}, {t}, {k}]"), note)
            }
        } else if c < d_nope {
            let note = format!(
                "head {} (index h = {h})'s own key part k_nope, number {c} of d_nope = {d_nope}",
                h + 1
            );
            (StepName::KNope, [b, h, t, c], format!("k_nope[{b}, {h}, {t}, {c}]"), note)
        } else {
            let k = c - d_nope;
            let shared =
                if self.trace.step(StepName::KRot).is_some() { StepName::KRot } else { StepName::KPe };
            let note = format!(
                "the RoPE key all heads share, number {c} − d_nope = {k} of {shared}: the same number in every head"
            );
            (shared, [b, 0, t, k], format!("{shared}[{b}, 0, {t}, {k}]"), note)
        };
        let v = cell(self.trace, from, &at)?;
        let whose = if self.step == StepName::QCat { "query" } else { "key" };
        let mut notes = vec![format!(
            "No arithmetic: torch.cat puts each {whose} head together again, d_nope = {d_nope} unrotated numbers, then \
             d_rope = {} turned ones; number {c} is {note}.",
            m.qk_rope_head_dim
        )];
        self.check(v, &mut notes);
        // the two parts by the names the pipeline gives them (k_rot, or k_pe without RoPE)
        let rotated = |turned: StepName, plain: StepName| {
            if self.trace.step(turned).is_some() {
                turned
            } else {
                plain
            }
        };
        let parts = if self.step == StepName::QCat {
            format!("q_nope, {}", rotated(StepName::QRot, StepName::QHeads))
        } else {
            format!("k_nope, {}", rotated(StepName::KRot, StepName::KPe))
        };
        self.done(
            format!("{}[b,h,t,c] = [{parts}][c]", self.step),
            Kind::Copy,
            vec![plain(tex_free_label(from, &at), v)],
            notes,
            vec![Operand::cell(from, &at)],
            py,
            format!(r"{} = {} = {}", self.lhs(), tex_name(from.as_str(), &at), tex(self.result)),
        )
    }

    /// The step's own PyTorch line's right-hand side, indexed at one cell: what the line
    /// assigns, at `index`.
    fn own_line_at(&self, index: &[usize]) -> Result<String, ExplainError> {
        let line = self.trace.step(self.step).map(|s| s.pytorch.as_str()).unwrap_or_default();
        match line.split_once(" = ") {
            Some((_, rhs)) => Ok(format!("({rhs})[{}]", super::write::py(index))),
            None => inconsistent(format!("{}'s PyTorch line assigns nothing", self.step)),
        }
    }
}

/// A cell's label in the terms, e.g. `kv_b[0,1,2]`.
fn tex_free_label(step: StepName, index: &[usize]) -> String {
    format!("{step}[{}]", super::write::comma(index))
}
