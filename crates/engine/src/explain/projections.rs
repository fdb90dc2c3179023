//! The projections (`q`, `k`, `v`, `output`: a row dotted with a weight column, plus the
//! bias) and their heads: the split into heads (`*_heads`) and, in grouped-query
//! attention, the repeated key/value heads (`k_rep`, `v_rep`), both copies; and QK-norm's
//! normalised heads (`q_norm`, `k_norm`).

use super::explanation::{left_sum, ExplainError, Explanation, Kind, Operand, Param};
use super::read::{bias, cell, four, inconsistent, three, token, weight};
use super::write::{bias_term, normed_term, num, plain, product, tex, tex_name, tex_terms};
use super::Explainer;
use crate::step::StepName;
use crate::weights::Linear;

/// One cell of a linear layer, `input[b,t,:] · W[:,c] + b[c]`: which layer and what to call
/// it. [`Explainer::linear_cell`] explains it.
pub(super) struct LinearCell<'a> {
    /// The step the layer reads.
    pub input: StepName,
    /// The layer.
    pub layer: &'a Linear,
    /// Its weight and bias.
    pub params: (Param, Param),
    /// Its name in PyTorch (`self.w_q`, DeepSeek's `self.kv_b_proj`, …).
    pub py_layer: &'static str,
    /// LaTeX's superscript for `W` and `b` (`Q`, `kv\_a`, …).
    pub letter: &'static str,
    /// Whether the bias is added even when it is zero: the tutorial's `nn.Linear` layers
    /// always have one; DeepSeek's `q_b_proj` and `kv_b_proj` have none, and its other
    /// layers one only with `attention_bias`, so under MLA a bias of zeros is no bias.
    pub bias_always: bool,
    /// Sentences after the first, which says what is dotted with what.
    pub notes: Vec<String>,
}

impl Explainer<'_> {
    /// `q`, `k`, `v`, `output`: `input[b,t,:] · W[:,c] + b[c]`.
    pub(super) fn projection(&self) -> Result<Explanation, ExplainError> {
        let [b, t, _] = three(self.index)?;
        let p = &self.trace.params;
        let mla = self.trace.mla.is_some();
        let (input, layer, params, py_layer, letter) = match self.step {
            StepName::Q => (self.projection_input(false), &p.q, (Param::WQ, Param::BQ), "self.w_q", "Q"),
            StepName::K => (self.projection_input(true), &p.k, (Param::WK, Param::BK), "self.w_k", "K"),
            StepName::V => (self.projection_input(true), &p.v, (Param::WV, Param::BV), "self.w_v", "V"),
            // MLA's PyTorch names W_O as DeepSeek's module does
            _ if mla => (StepName::Concat, &p.o, (Param::WO, Param::BO), "self.o_proj", "O"),
            _ => (StepName::Concat, &p.o, (Param::WO, Param::BO), "self.w_o", "O"),
        };
        let mut notes = vec![];
        if self.step == StepName::Output && self.result.is_nan() {
            notes.push(format!(
                "concat[{b},{t},:] is NaN (a fully masked query row under the -inf fill), so every product and the output are NaN."
            ));
        }
        self.linear_cell(LinearCell { input, layer, params, py_layer, letter, bias_always: !mla, notes })
    }

    /// A cell of a linear layer: the products of row `t` of the input with column `c` of
    /// the weight, then the bias (see [`LinearCell::bias_always`]).
    pub(super) fn linear_cell(&self, cell_of: LinearCell<'_>) -> Result<Explanation, ExplainError> {
        let LinearCell { input, layer, params: (w_name, b_name), py_layer, letter, bias_always, notes: more } =
            cell_of;
        let [b, t, c] = three(self.index)?;
        // the input's width: d_model, h·d_k (h·d_v under MLA) for W_O, a latent's rank
        let width = self.trace.step(input).and_then(|s| s.shape.get(2).copied()).unwrap_or(0);
        let mut terms = Vec::with_capacity(width + 1);
        for d in 0..width {
            let x = cell(self.trace, input, &[b, t, d])?;
            let w = weight(layer, w_name, d, c)?;
            terms.push(product(format!("{input}[{b},{t},{d}] · {}[{d},{c}]", w_name.as_str()), x, w));
        }
        let has_bias = bias_always || layer.b().iter().any(|&v| v != 0.0);
        if has_bias {
            terms.push(bias_term(format!("bias {}[{c}]", b_name.as_str()), bias(layer, b_name, c)?));
        }
        let keys = self.step.rows() == crate::step::Role::Keys;
        let tokens = if keys { self.trace.key_tokens(b) } else { self.trace.query_tokens(b) };
        let what = if has_bias {
            format!("plus the bias: {width} products and 1 bias")
        } else {
            format!("{width} products (the layer has no bias)")
        };
        let mut notes = vec![format!(
            "Row {t} ({}) of {input}, dotted with column {c} of {}, {what}.",
            token(tokens, t),
            w_name.as_str()
        )];
        notes.extend(more);
        self.check(left_sum(terms.iter().map(|t| t.value)), &mut notes);
        // PyTorch's nn.Linear stores W transposed, (out, in): W[:, c] is weight[c].
        let py_in = match input {
            StepName::Concat => "concat",
            StepName::XKv | StepName::XKvPe => "x_kv",
            StepName::QANorm => "q_a",
            StepName::CKv => "c_kv",
            _ => "x",
        };
        let (b_formula, b_tex, b_py) = if has_bias {
            (
                format!(" + {}[c]", b_name.as_str()),
                format!(r" + b^{{{letter}}}_{{{c}}}"),
                format!(" + {py_layer}.bias[{c}]"),
            )
        } else {
            (String::new(), String::new(), String::new())
        };
        let latex = format!(
            r"{} = \sum_{{d}} \mathrm{{{}}}_{{{b},{t},d}}\, W^{{{letter}}}_{{d,{c}}}{b_tex} = {} = {}",
            self.lhs(),
            input.as_str().replace('_', r"\_"),
            tex_terms(&terms),
            tex(self.result)
        );
        let mut operands =
            vec![Operand::step(input, &[Some(b), Some(t), None]), Operand::param(w_name, &[None, Some(c)])];
        if has_bias {
            operands.push(Operand::param(b_name, &[Some(c)]));
        }
        self.done(
            format!("{}[b,t,c] = Σ_d {input}[b,t,d] · {}[d,c]{b_formula}", self.step, w_name.as_str()),
            Kind::Sum,
            terms,
            notes,
            operands,
            format!("({py_in}[{b}, {t}] * {py_layer}.weight[{c}]).sum(){b_py}"),
            latex,
        )
    }

    /// `q_heads`, `k_heads`, `v_heads`: column `h·d_k + j` of `q`, `k`, `v`.
    pub(super) fn head_copy(&self) -> Result<Explanation, ExplainError> {
        let [b, h, t, j] = four(self.index)?;
        let h1 = h + 1; // heads are numbered from 1 in words, as on the cards
                        // The view as the step's own PyTorch line writes it: the lengths `T` (`T_q`, `T_k` in
                        // cross-attention) and `h_kv` key/value heads when grouped.
        let layout = self.trace.layout();
        let length = |keys: bool| match (layout.cross, keys) {
            (false, _) => "T",
            (true, false) => "T_q",
            (true, true) => "T_k",
        };
        let kv_heads = if layout.grouped { "h_kv" } else { "h" };
        let (from, py_view) = match self.step {
            StepName::QHeads => (StepName::Q, format!("q.view(B, {}, h, d_k)", length(false))),
            StepName::KHeads => (StepName::K, format!("k.view(B, {}, {kv_heads}, d_k)", length(true))),
            _ => (StepName::V, format!("v.view(B, {}, {kv_heads}, d_k)", length(true))),
        };
        let d_k = self.d_k();
        let col = h * d_k + j;
        let v = cell(self.trace, from, &[b, t, col])?;
        // the width the view cuts: d_model, h·d_k with a head size of its own, h_kv·d_k when grouped
        let width = self.trace.step(from).and_then(|s| s.shape.get(2).copied()).unwrap_or(0);
        let mut notes = vec![format!(
            "No arithmetic: the view cuts the {width} features of {from} into {} heads of d_k = {d_k}, and transpose(1, 2) puts the head axis first. Head {h1} (index h = {h}), feature {j} is column {h}·{d_k} + {j} = {col} of {from}.",
            width / d_k.max(1)
        )];
        self.check(v, &mut notes);
        self.done(
            format!("{}[b,h,t,j] = {from}[b,t,h·d_k + j]", self.step),
            Kind::Copy,
            vec![plain(format!("{from}[{b},{t},{col}]"), v)],
            notes,
            vec![Operand::cell(from, &[b, t, col])],
            format!("{py_view}[{b}, {t}, {h}, {j}]"),
            format!(r"{} = {} = {}", self.lhs(), tex_name(from.as_str(), &[b, t, col]), tex(self.result)),
        )
    }

    /// `q_norm`, `k_norm`: the head's feature `j` divided by the row's RMS (the head's, or
    /// over the whole projection the token's) and times the weight's `w_j`: one
    /// `TermKind::Normed` term.
    pub(super) fn normed(&self) -> Result<Explanation, ExplainError> {
        let [b, h, t, j] = four(self.index)?;
        let Some(norm) = &self.trace.qk_norm else {
            return inconsistent(format!("{} is in the trace but QK-norm's settings are not", self.step));
        };
        let keys = self.step == StepName::KNorm;
        let (from, short) = if keys { (StepName::KHeads, "k") } else { (StepName::QHeads, "q") };
        let d_k = self.d_k();
        // per head: the head's d_k numbers; over the whole projection (OLMo 2): every head's
        let heads = if keys { self.trace.sizes.kv_heads() } else { self.trace.sizes.n_heads };
        let normed: Vec<[usize; 4]> = if norm.whole_projection {
            (0..heads).flat_map(|hh| (0..d_k).map(move |c| [b, hh, t, c])).collect()
        } else {
            (0..d_k).map(|c| [b, h, t, c]).collect()
        };
        let row = normed.iter().map(|i| cell(self.trace, from, i)).collect::<Result<Vec<f64>, _>>()?;
        let r = crate::attention::inverse_rms(&row, norm.eps);
        let wi = if norm.whole_projection { h * d_k + j } else { j };
        let w = norm.weight(keys, norm.weight_len(heads, d_k)).get(wi).copied().unwrap_or(1.0);
        let x = cell(self.trace, from, &[b, h, t, j])?;
        // one term, w · x / rms, as MLA's RMSNorms write theirs
        let terms = vec![normed_term(format!("w_{wi} · {from}[{b},{h},{t},{j}] / rms"), w, x, r)];
        let mean = row.iter().map(|v| v * v).sum::<f64>() / row.len().max(1) as f64;
        let whose = if norm.whole_projection {
            format!("the token's whole projection, {} numbers of {heads} heads,", row.len())
        } else {
            format!("the head's {d_k} numbers")
        };
        let mut notes = vec![
            format!(
                "RMSNorm of {whose}: their mean square is {}, plus ε = {} gives rms = √{} = {}.",
                num(mean),
                num(norm.eps),
                num(mean + norm.eps),
                num(1.0 / r)
            ),
            format!(
                "Feature {j}, {}, divided by the rms and times the learned weight w_{wi} = {}: every {} leaves with \
                 the same size, so the scores cannot grow with the projections (QK-norm, before RoPE).",
                num(x),
                num(w),
                if norm.whole_projection { "token" } else { "head" }
            ),
        ];
        self.check(w * (x * r), &mut notes);
        let (formula, pytorch) = if norm.whole_projection {
            (
                format!(
                    "{}[b,h,t,j] = w_(h·d_k+j) · {from}[b,h,t,j] / √(mean_h′,c {from}[b,h′,t,c]² + ε)",
                    self.step
                ),
                format!(
                    "self.{short}_norm({short}.transpose(1, 2).reshape(B, {}, -1))[{b}, {t}, {wi}]",
                    if keys && self.trace.is_cross() { "T_k" } else { "T" }
                ),
            )
        } else {
            (
                format!("{}[b,h,t,j] = w_j · {from}[b,h,t,j] / √(mean_c {from}[b,h,t,c]² + ε)", self.step),
                format!("self.{short}_norm({short})[{b}, {h}, {t}, {j}]"),
            )
        };
        self.done(
            formula,
            Kind::Sum,
            terms,
            notes,
            normed.iter().map(|i| Operand::cell(from, i)).collect(),
            pytorch,
            format!(
                r"{} = w_{{{wi}}} \cdot \frac{{{}}}{{\sqrt{{\overline{{x^2}} + \varepsilon}}}} = {} \cdot \frac{{{}}}{{{}}} = {}",
                self.lhs(),
                tex_name(from.as_str(), &[b, h, t, j]),
                tex(w),
                tex(x),
                tex(1.0 / r),
                tex(self.result)
            ),
        )
    }

    /// `k_rep`, `v_rep`: query head `h` reads key/value head `⌊h / (h/h_kv)⌋`.
    pub(super) fn repeated(&self) -> Result<Explanation, ExplainError> {
        let [b, h, t, c] = four(self.index)?;
        let h1 = h + 1; // heads are numbered from 1 in words, as on the cards
        let group = self.trace.sizes.group_size().max(1);
        let kv = h / group;
        let from = if self.step == StepName::KRep {
            self.first_of(&[StepName::KRot, StepName::KNorm, StepName::KHeads])
        } else {
            StepName::VHeads
        };
        let v = cell(self.trace, from, &[b, kv, t, c])?;
        let (n_heads, n_kv) = (self.trace.sizes.n_heads, self.trace.sizes.kv_heads());
        let mut notes = vec![format!(
            "No arithmetic: grouped-query attention keeps h_kv = {n_kv} key/value heads for h = {n_heads} query heads, so each serves a group of h / h_kv = {group}. repeat_interleave({group}, dim=1) copies head {kv} into heads {}..={}; query head {h1} (index h = {h}) reads the K/V head of index ⌊{h} / {group}⌋ = {kv}.",
            kv * group,
            kv * group + group - 1
        )];
        self.check(v, &mut notes);
        let short = if self.step == StepName::KRep { "k" } else { "v" };
        self.done(
            format!("{}[b,h,t,c] = {from}[b,⌊h / (h/h_kv)⌋,t,c]", self.step),
            Kind::Copy,
            vec![plain(format!("{from}[{b},{kv},{t},{c}]"), v)],
            notes,
            vec![Operand::cell(from, &[b, kv, t, c])],
            format!("{short}.repeat_interleave({group}, dim=1)[{b}, {h}, {t}, {c}]"),
            format!(r"{} = {} = {}", self.lhs(), tex_name(from.as_str(), &[b, kv, t, c]), tex(self.result)),
        )
    }
}
