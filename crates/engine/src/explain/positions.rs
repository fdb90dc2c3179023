//! Positions: the sinusoidal encoding (`pe`) and its sum with the embeddings (`x_pe`,
//! `x_kv_pe`), RoPE's rotation (`q_rot`, `k_rot`), and ALiBi's bias (`alibi`) and its
//! sum with the scaled scores (`biased`).

use ndarray::IxDyn;

use super::explanation::{left_sum, ExplainError, Explanation, Kind, Operand};
use super::read::{cell, four, inconsistent, three, token};
use super::write::{comma, num, plain, product, py, tex, tex_factor, tex_name, tex_terms};
use super::Explainer;
use crate::positional;
use crate::scenario::Rope;
use crate::step::StepName;

impl Explainer<'_> {
    /// `pe`: a sine or cosine.
    pub(super) fn pe(&self) -> Result<Explanation, ExplainError> {
        let [_, pos, c] = three(self.index)?;
        let d_model = self.d_model();
        let i = c / 2;
        let angle = positional::angle(pos, c, d_model);
        let sine = c.is_multiple_of(2);
        let f = if sine { "sin" } else { "cos" };
        let value = if sine { angle.sin() } else { angle.cos() };
        let mut notes = vec![
            format!(
                "Position {pos}, column c = {c}: i = c / 2 = {i}, so the angle is {pos} / 10000^({}/{d_model}) = {}.",
                2 * i,
                num(angle)
            ),
            format!(
                "Even columns take the sine and odd ones the cosine, so PE = {f}({}) = {}.",
                num(angle),
                num(value)
            ),
        ];
        self.check(value, &mut notes);
        self.done(
            "PE(pos, 2i) = sin(pos / 10000^(2i/d_model)), PE(pos, 2i+1) = cos(pos / 10000^(2i/d_model))"
                .into(),
            Kind::Positional { pos, i, angle, sine },
            vec![plain(format!("{f}({pos} / 10000^({}/{d_model}))", 2 * i), value)],
            notes,
            vec![],
            format!("math.{f}({pos} / 10000 ** ({} / {d_model}))", 2 * i),
            format!(
                r"{} = \{f}\left(\frac{{{pos}}}{{10000^{{{}/{d_model}}}}}\right) = \{f}({}) = {}",
                self.lhs(),
                2 * i,
                tex(angle),
                tex(self.result)
            ),
        )
    }

    /// `x_pe`, `x_kv_pe`: the embedding plus the positional encoding.
    pub(super) fn plus_pe(&self) -> Result<Explanation, ExplainError> {
        let [b, t, c] = three(self.index)?;
        let (x_name, tokens) = if self.step == StepName::XKvPe {
            (StepName::XKv, self.trace.key_tokens(b))
        } else {
            (StepName::X, self.trace.query_tokens(b))
        };
        let x = cell(self.trace, x_name, &[b, t, c])?;
        let pe_step = self.trace.step(StepName::Pe);
        let pe_in_trace = pe_step.and_then(|s| s.data.get(IxDyn(&[0, t, c]))).copied();
        let pe = pe_in_trace.unwrap_or_else(|| positional::value(t, c, self.d_model()));
        let mut notes = vec![format!(
            "Token {} at position {t} gets PE[{t},{c}] = {} added to its embedding {} (padding gets a position too).",
            token(tokens, t),
            num(pe),
            num(x)
        )];
        let mut operands = vec![Operand::cell(x_name, &[b, t, c])];
        if pe_in_trace.is_some() {
            operands.push(Operand::cell(StepName::Pe, &[0, t, c]));
        } else {
            notes.push(format!(
                "The pe step holds the query positions only; position {t} of the key/value sentence is computed from the same formula."
            ));
        }
        let terms =
            vec![plain(format!("{x_name}[{}]", comma(self.index)), x), plain(format!("PE[{t},{c}]"), pe)];
        self.check(x + pe, &mut notes);
        let x_py = if self.step == StepName::XKvPe { "x_kv" } else { "x" };
        self.done(
            format!("{}[b,t,c] = {x_name}[b,t,c] + PE[t,c]", self.step),
            Kind::Sum,
            terms,
            notes,
            operands,
            format!("{x_py}[{}] + self.pe[0, {t}, {c}]", py(self.index)),
            format!(
                r"{} = {} + \mathrm{{PE}}_{{{t},{c}}} = {} + {} = {}",
                self.lhs(),
                tex_name(x_name.as_str(), self.index),
                tex(x),
                tex_factor(pe),
                tex(self.result)
            ),
        )
    }

    /// RoPE's settings, which every turned query and key needs.
    pub(super) fn rope(&self) -> Result<Rope, ExplainError> {
        match self.trace.rope {
            Some(rope) => Ok(rope),
            None => inconsistent(format!("{} is in the trace but RoPE's settings are not", self.step)),
        }
    }

    /// `q_rot`, `k_rot`: RoPE turns a pair of a head's dimensions by `pos·θ_i`.
    pub(super) fn rotated(&self) -> Result<Explanation, ExplainError> {
        let [b, h, t, c] = four(self.index)?;
        let rope = self.rope()?;
        let (from, short) = if self.step == StepName::QRot {
            (self.first_of(&[StepName::QNorm, StepName::QHeads]), "q")
        } else {
            (self.first_of(&[StepName::KNorm, StepName::KHeads]), "k")
        };
        let d_k = self.d_k();
        // A rotary fraction turns the first r dimensions only, as a head of width r.
        let r = rope.rotary_dims(d_k).min(d_k);
        if c >= r {
            let x = cell(self.trace, from, &[b, h, t, c])?;
            let mut notes = vec![format!(
                "RoPE turns only the first r = {r} of the {d_k} dimensions of each head (a rotary fraction of {}, as in \
                 GPT-NeoX and Phi); dimension {c} passes unchanged.",
                num(rope.fraction.unwrap_or(1.0))
            )];
            self.check(x, &mut notes);
            return self.done(
                format!("{}[b,h,t,c] = {from}[b,h,t,c] for c ≥ r = {r}", self.step),
                Kind::Copy,
                vec![plain(format!("{from}[{b},{h},{t},{c}]"), x)],
                notes,
                vec![Operand::cell(from, &[b, h, t, c])],
                format!("{short}[..., r:][{b}, {h}, {t}, {}]", c - r),
                format!(
                    r"{} = {} = {}",
                    self.lhs(),
                    tex_name(from.as_str(), &[b, h, t, c]),
                    tex(self.result)
                ),
            );
        }
        let (partner, first) = rope.style.partner(c, r);
        let i = rope.style.pair_index(c, r);
        let angle = rope.angle(t, i, r);
        // YaRN's attention factor multiplies cos and sin (1 for every other RoPE)
        let amp = rope.attention_factor();
        let (cos, sin) = (angle.cos() * amp, angle.sin() * amp);
        let x_c = cell(self.trace, from, &[b, h, t, c])?;
        let x_p = cell(self.trace, from, &[b, h, t, partner])?;
        let signed = if first { -x_p } else { x_p };
        let sign = if first { "−" } else { "+" };
        let terms = vec![
            product(format!("{from}[{b},{h},{t},{c}] · cos(angle)"), x_c, cos),
            product(format!("{sign}{from}[{b},{h},{t},{partner}] · sin(angle)"), signed, sin),
        ];
        let recomputed = left_sum(terms.iter().map(|t| t.value));
        let pairing = match rope.style {
            crate::scenario::RopeStyle::Half => format!("\"half\" pairs dimension i with i + d_k/2 (Hugging Face's rotate_half), so {c} goes with {partner}"),
            crate::scenario::RopeStyle::Interleaved => format!("\"interleaved\" pairs dimensions 2i and 2i+1 (the RoFormer paper, Meta's Llama code), so {c} goes with {partner}"),
        };
        let who = if self.step == StepName::QRot { "query" } else { "key" };
        let mut notes = vec![
            format!(
                "RoPE turns each pair of a {who} head's dimensions by an angle that grows with the token's position: {pairing}."
            ),
            format!(
                "Position {t}, pair i = {i}: angle = pos · θ_i = {t} · base^(−2i/r){} = {t} · {}^(−{}/{r}){} = {} radians (r = {r} of d_k = {d_k} dimensions turn); cos = {}, sin = {}.",
                if rope.scaling.is_some() { ", scaled" } else { "" },
                num(rope.base),
                2 * i,
                if rope.scaling.is_some() { ", scaled" } else { "" },
                num(angle),
                num(cos),
                num(sin)
            ),
        ];
        if let Some(scaling) = rope.scaling {
            let unscaled = 1.0 / rope.base.powf((2 * i) as f64 / r as f64);
            notes.push(format!(
                "θ_i is scaled ({}): base^(−2i/r) = {} becomes {}, so angle = {t} · {}.",
                crate::step::scaling_words(scaling),
                num(unscaled),
                num(rope.inv_freq(i, r)),
                num(rope.inv_freq(i, r))
            ));
        }
        if amp != 1.0 {
            notes.push(format!(
                "YaRN's attention factor {} multiplies cos and sin (Hugging Face's attention_scaling; freqs_cis has that length), so the turned dimensions are {} times as long.",
                num(amp),
                num(amp)
            ));
        }
        notes.extend([
            "A turn keeps the vector's length, and a query turned by its position dotted with a key turned by its own depends only on how far apart they are.".to_owned(),
        ]);
        self.check(recomputed, &mut notes);
        let x = if r < d_k { format!("{short}[..., :r]") } else { short.to_owned() };
        let pytorch = match rope.style {
            crate::scenario::RopeStyle::Half => format!("({x} * cos + rotate_half({x}) * sin)[{b}, {h}, {t}, {c}]"),
            crate::scenario::RopeStyle::Interleaved => format!(
                "torch.view_as_real(torch.view_as_complex({x}.reshape(*{short}.shape[:-1], -1, 2)) * freqs_cis).flatten(-2)[{b}, {h}, {t}, {c}]"
            ),
        };
        self.done(
            format!(
                "{}[b,h,t,c] = {from}[b,h,t,c]·cos(t·θ_i) {sign} {from}[b,h,t,{}]·sin(t·θ_i)",
                self.step,
                if first { "c+pair" } else { "c−pair" }
            ),
            Kind::Sum,
            terms.clone(),
            notes,
            vec![Operand::cell(from, &[b, h, t, c]), Operand::cell(from, &[b, h, t, partner])],
            pytorch,
            format!(r"{} = {} = {}", self.lhs(), tex_terms(&terms), tex(self.result)),
        )
    }

    /// `alibi`: head `h`'s slope times how far key `j` is from query `i`.
    pub(super) fn alibi(&self) -> Result<Explanation, ExplainError> {
        let [_, h, i, j] = four(self.index)?;
        let h1 = h + 1; // heads are numbered from 1 in words, as on the cards
        let Some(&slope) = self.trace.alibi_slopes.get(h) else {
            return inconsistent(format!("no ALiBi slope for head {h}"));
        };
        let causal = self.trace.mask.config.causal;
        let distance = crate::attention::alibi_distance(causal, i, j);
        let n = self.trace.sizes.n_heads;
        let rule = if n.is_power_of_two() {
            format!("m = 2^(−8·{}/{n}) = {} (the paper numbers heads from 1)", h + 1, num(slope))
        } else {
            format!("m = {} (for {n} heads, not a power of two, the paper takes the slopes of the nearest smaller power of two and every other slope of the next one)", num(slope))
        };
        let mut notes = vec![
            format!("ALiBi adds a penalty that grows with distance instead of adding positions to the embeddings. Head {h1} (h = {h}, counted from 0) has the slope {rule}."),
        ];
        // Without a causal mask the distance is −|i − j| (bidirectional ALiBi's symmetric
        // form): the paper's j − i would reward the keys after the query.
        let (formula, term, py, tex_distance) = if causal {
            notes.push(format!(
                "Key {j} is j − i = {} positions from query {i}, so the bias is {} · {} = {}.",
                num(distance),
                num(slope),
                num(distance),
                num(self.result)
            ));
            if j > i {
                // the paper's j − i is positive past the query: a bonus no query ever gets
                notes.push(format!(
                    "Key {j} comes after query {i}, so this bias is positive, but the causal mask blocks                      the key in the masked step: no query ever reads a bias for a later key."
                ));
            }
            (
                "m_h · (j − i)",
                format!("m_{h} · (j − i) = m_{h} · ({j} − {i})"),
                format!("slopes[{h}] * ({j} - {i})"),
                format!("({j} - {i})"),
            )
        } else {
            notes.push(format!("Without a causal mask the bias is symmetric, −m·|i − j| (bidirectional ALiBi, as in MosaicBERT): key {j} is |i − j| = {} positions from query {i}, before or after it, so the bias is {} · {} = {}.", num(-distance), num(slope), num(distance), num(self.result)));
            (
                "−m_h · |i − j|",
                format!("−m_{h} · |i − j| = m_{h} · −|{i} − {j}|"),
                format!("-slopes[{h}] * abs({j} - {i})"),
                format!("(-|{i} - {j}|)"),
            )
        };
        self.check(slope * distance, &mut notes);
        self.done(
            format!("alibi[0,h,i,j] = {formula}"),
            Kind::Sum,
            vec![product(term, slope, distance)],
            notes,
            vec![],
            py,
            format!(
                r"{} = m_{{{h}}} \cdot {tex_distance} = {} \cdot {} = {}",
                self.lhs(),
                tex(slope),
                tex(distance),
                tex(self.result)
            ),
        )
    }

    /// `biased`: the scaled score plus ALiBi's bias.
    pub(super) fn biased(&self) -> Result<Explanation, ExplainError> {
        let [b, h, i, j] = four(self.index)?;
        let h1 = h + 1; // heads are numbered from 1 in words, as on the cards
        let source = self.bias_source();
        let scaled = cell(self.trace, source, self.index)?;
        let bias = cell(self.trace, StepName::Alibi, &[0, h, i, j])?;
        let terms = vec![
            plain(format!("{source}[{}]", comma(self.index)), scaled),
            plain(format!("alibi[0,{h},{i},{j}]"), bias),
        ];
        let mut notes = vec![format!(
            "The scaled score of {} plus ALiBi's bias for head {h1}: the farther back the key, the lower the score.",
            self.pair(b, i, j)
        )];
        self.check(left_sum(terms.iter().map(|t| t.value)), &mut notes);
        self.done(
            format!("biased[b,h,i,j] = {source}[b,h,i,j] + alibi[0,h,i,j]"),
            Kind::Sum,
            terms.clone(),
            notes,
            vec![Operand::cell(source, self.index), Operand::cell(StepName::Alibi, &[0, h, i, j])],
            format!("scores[{b}, {h}, {i}, {j}] + alibi[0, {h}, {i}, {j}]  # {}", self.scores_here(source)),
            format!(r"{} = {} = {}", self.lhs(), tex_terms(&terms), tex(self.result)),
        )
    }
}
