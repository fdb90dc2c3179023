//! What a step says: the PyTorch line a reader of the tutorials would write for it, and
//! the step in words with the sizes that make it concrete.

use super::{mla_steps, Layout, StepName};
use crate::error::number_text;
use crate::scenario::{Fill, RopeScaling, RopeStyle};

/// What a step's PyTorch line and words depend on besides its name: the run's layout,
/// fill, RoPE style, mask and sizes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StepText {
    /// Self- or cross-attention, grouped heads or not.
    pub layout: Layout,
    /// What a blocked score becomes.
    pub fill: Fill,
    /// RoPE's pairing (Hugging Face's `rotate_half` is written when `None`).
    pub rope: Option<RopeStyle>,
    /// A causal mask: ALiBi's bias is `m·(j − i)` with one, `−m·|i − j|` without.
    pub causal: bool,
    /// The factor the scores are multiplied by, when not `1/√d_k`.
    pub scale: Option<f64>,
    /// Logit softcapping's `c`, if any.
    pub softcap: Option<f64>,
    /// QK-norm's ε, when there is QK-norm.
    pub qk_norm_eps: Option<f64>,
    /// QK-norm over the whole projection (OLMo 2), not each head.
    pub qk_norm_whole: bool,
    /// RoPE's rotated dimensions `r`, when a rotary fraction leaves some of `d_k` unturned.
    pub rotary_dims: Option<usize>,
    /// RoPE's scaled frequencies, if any.
    pub rope_scaling: Option<RopeScaling>,
    /// Attention sinks: one learned logit per head in each row's softmax.
    pub sinks: bool,
    /// `d_model`.
    pub d_model: usize,
    /// `h`.
    pub n_heads: usize,
    /// `d_k`.
    pub d_k: usize,
    /// Multi-head latent attention's sizes, if any.
    pub mla: Option<super::MlaText>,
    /// The layer the steps are of, counted from 1 (1 in a one-layer run).
    pub layer: usize,
}

impl StepName {
    /// The PyTorch line a reader of the tutorials would write for this step, one that runs
    /// on the step's inputs and gives the step's tensor. In cross-attention the keys and
    /// values are projected from `x_kv`, and the lengths are written `T_q` and `T_k`, as in
    /// the step's axes; with grouped heads the keys and values split into `h_kv` heads, as
    /// their shape path says. RoPE is written in the style of `rope` (Hugging Face's
    /// `rotate_half` when `None`).
    pub fn pytorch(self, text: &StepText) -> String {
        if let Some(line) = self.latent_pytorch(text) {
            return line;
        }
        let StepText { layout, fill, rope, causal, scale, rotary_dims, sinks, qk_norm_whole, .. } = *text;
        let cross = layout.cross;
        let (kv, t_q, t_k) = if cross { ("x_kv", "T_q", "T_k") } else { ("x", "T", "T") };
        // The key/value heads: `h_kv` of them when grouped (a view into `h` would need
        // h·d_k numbers per token where there are h_kv·d_k).
        let h_kv = if layout.grouped { "h_kv" } else { "h" };
        let rotate = |x: &str| {
            match (rope, rotary_dims) {
            (Some(RopeStyle::Interleaved), None) => format!(
                "{x} = torch.view_as_real(torch.view_as_complex({x}.reshape(*{x}.shape[:-1], -1, 2)) * \
                 freqs_cis).flatten(-2)"
            ),
            (Some(RopeStyle::Interleaved), Some(_)) => format!(
                "{x} = torch.cat([torch.view_as_real(torch.view_as_complex({x}[..., :r].reshape(*{x}.shape[:-1], -1, 2)) \
                 * freqs_cis).flatten(-2), {x}[..., r:]], dim=-1)"
            ),
            // GPT-NeoX's and Phi's partial rotary: the first r dimensions turn, the rest pass
            (_, Some(_)) => {
                format!("{x} = torch.cat([{x}[..., :r] * cos + rotate_half({x}[..., :r]) * sin, {x}[..., r:]], dim=-1)")
            }
            _ => format!("{x} = {x} * cos + rotate_half({x}) * sin"),
        }
        };
        let line = match self {
            // MLA's own steps, recorded only with MLA (its sizes then come with the text)
            mla_steps!() => return self.latent_pytorch(text).unwrap_or_default(),
            Self::X => "x = embedding(tokens)",
            Self::Pe => "pe = self.pe[:, :x.size(1)]",
            Self::XPe => "x = x + self.pe[:, :x.size(1)]",
            Self::XKv => "x_kv = embedding(kv_tokens)",
            Self::XKvPe => "x_kv = x_kv + self.pe[:, :x_kv.size(1)]",
            Self::Q => "q = self.w_q(x)",
            Self::K => return format!("k = self.w_k({kv})"),
            Self::V => return format!("v = self.w_v({kv})"),
            Self::QHeads => return format!("q = q.view(B, {t_q}, h, d_k).transpose(1, 2)"),
            Self::KHeads => return format!("k = k.view(B, {t_k}, {h_kv}, d_k).transpose(1, 2)"),
            Self::VHeads => return format!("v = v.view(B, {t_k}, {h_kv}, d_k).transpose(1, 2)"),
            // OLMo 2 normalises the projection before the split: undo the split, norm, split again
            Self::QNorm if qk_norm_whole => {
                return format!(
                    "q = self.q_norm(q.transpose(1, 2).reshape(B, {t_q}, h * d_k)).view(B, {t_q}, h, d_k).transpose(1, 2)"
                )
            }
            Self::KNorm if qk_norm_whole => {
                return format!(
                    "k = self.k_norm(k.transpose(1, 2).reshape(B, {t_k}, {h_kv} * d_k)).view(B, {t_k}, {h_kv}, d_k).transpose(1, 2)"
                )
            }
            Self::QNorm => "q = self.q_norm(q)",
            Self::KNorm => "k = self.k_norm(k)",
            Self::QRot => return rotate("q"),
            Self::KRot => return rotate("k"),
            Self::KRep => "k = k.repeat_interleave(h // h_kv, dim=1)",
            Self::VRep => "v = v.repeat_interleave(h // h_kv, dim=1)",
            Self::Alibi if causal => {
                return format!(
                    "alibi = slopes.view(1, h, 1, 1) * (torch.arange({t_k}) - torch.arange({t_q}).view(-1, 1))  \
                     # key minus query position"
                )
            }
            Self::Alibi => {
                return format!(
                    "alibi = -slopes.view(1, h, 1, 1) * (torch.arange({t_k}) - torch.arange({t_q}).view(-1, 1)).abs()  \
                     # symmetric: no mask hides the later keys"
                )
            }
            Self::Biased => "scores = scores + alibi",
            Self::Scores => "scores = q @ k.transpose(-2, -1)",
            Self::Scaled if scale.is_some() => "scores = scores * scale",
            Self::Scaled => "scores = scores / math.sqrt(d_k)",
            Self::Capped => "scores = softcap * torch.tanh(scores / softcap)",
            Self::Masked => {
                return format!("scores = scores.masked_fill(mask.unsqueeze(1), {})", fill.pytorch())
            }
            // gpt-oss: the head's sink logit as one more column, dropped after the softmax
            Self::Weights if sinks => {
                return format!(
                    "weights = torch.cat([scores, sinks.view(1, h, 1, 1).expand(B, h, {t_q}, 1)], dim=-1)\
                     .softmax(dim=-1)[..., :-1]"
                )
            }
            Self::Weights => "weights = scores.softmax(dim=-1)",
            Self::Context => "context = weights @ v",
            Self::Concat => {
                let width = if layout.wide { "h * d_k" } else { "d_model" };
                return format!("concat = context.transpose(1, 2).contiguous().view(B, {t_q}, {width})");
            }
            Self::Output => "output = self.w_o(concat)",
            Self::ResidIn => "x = resid  # the residual stream this layer reads",
            Self::ResidOut => "resid = x + output  # what the next layer reads",
        };
        line.to_owned()
    }

    /// The step in words, with the sizes that make it concrete.
    pub fn words(self, text: &StepText) -> String {
        if let Some(words) = self.latent_words(text) {
            return words;
        }
        let StepText {
            layout,
            d_model,
            n_heads,
            d_k,
            fill,
            causal,
            scale,
            softcap,
            qk_norm_eps,
            qk_norm_whole,
            rotary_dims,
            rope_scaling,
            sinks,
            ..
        } = *text;
        let eps = qk_norm_eps.unwrap_or(crate::scenario::QkNorm::DEFAULT_EPS);
        match self {
            mla_steps!() => self.latent_words(text).unwrap_or_default(),
            Self::X => {
                "Look up each token's embedding; shorter sentences are padded with <pad> to the longest"
                    .into()
            }
            Self::Pe => "The sinusoidal positional encoding: PE(pos, 2i) = sin(pos / 10000^(2i/d_model)), \
                         PE(pos, 2i+1) = cos(pos / 10000^(2i/d_model)); the same for every sentence"
                .into(),
            Self::XPe => "Add the positional encoding to every token vector, <pad> included: x + PE".into(),
            Self::XKv => {
                "Look up the embeddings of the sentence the keys and values come from (in a decoder, the \
                          encoder's output)"
                    .into()
            }
            Self::XKvPe => {
                "Add the positional encoding to the key/value tokens, positions counted within their \
                            own sentence"
                    .into()
            }
            Self::Q => "Project every token to a query: x @ W_Q + b_Q".into(),
            Self::K => "Project every token to a key: x @ W_K + b_K".into(),
            Self::V => "Project every token to a value: x @ W_V + b_V".into(),
            Self::QHeads if layout.wide => format!(
                "Split the h·d_k = {} query features into h = {n_heads} heads of d_k = {d_k} (a head size of its \
                 own: W_Q is d_model × h·d_k = {d_model} × {}), then swap T and h",
                n_heads * d_k,
                n_heads * d_k
            ),
            Self::QHeads => {
                format!(
                    "Split d_model = {d_model} into h = {n_heads} heads of d_k = {d_k}, then swap T and h"
                )
            }
            Self::KHeads if layout.grouped => {
                "Split the keys the same way, into h_kv heads of d_k (grouped-query attention: fewer key heads)"
                    .into()
            }
            Self::VHeads if layout.grouped => "Split the values the same way, into h_kv heads of d_k".into(),
            Self::KHeads => "The same split for the keys".into(),
            Self::VHeads => "The same split for the values".into(),
            Self::QNorm if qk_norm_whole => format!(
                "QK-norm over the whole projection: RMSNorm of each token's h·d_k = {} query numbers together, \
                 all heads at once, w · q / √(mean(q²) + ε) with ε = {eps} and a learned weight w of h·d_k \
                 numbers, before RoPE (OLMo 2: q_norm on the projection, before the split into heads)",
                n_heads * d_k
            ),
            Self::KNorm if qk_norm_whole => {
                "The same RMSNorm over each token's whole key projection, h_kv·d_k numbers, with the keys' own \
                 weight"
                    .into()
            }
            Self::QNorm => format!(
                "QK-norm: RMSNorm of each query head over its d_k = {d_k} numbers, w · q / √(mean(q²) + ε) with \
                 ε = {eps} and a learned weight w of d_k numbers, before RoPE: the scores cannot grow with the \
                 queries' size (Qwen3, Gemma 3)"
            ),
            Self::KNorm => "The same RMSNorm for each key head, with the keys' own weight".into(),
            Self::QRot => {
                let turn = match rotary_dims {
                Some(r) => format!(
                    "RoPE on the first r = {r} of a query head's d_k = {d_k} dimensions (a rotary fraction, as in \
                     GPT-NeoX and Phi): turn each of their pairs by its position × θ_i, θ_i = base^(−2i/r); the \
                     other {} pass unchanged",
                    d_k - r
                ),
                None => "RoPE: turn each pair of a query head's dimensions by its position × θ_i, θ_i = base^(−2i/d_k)"
                    .into(),
            };
                match rope_scaling {
                    Some(scaling) => format!("{turn}; θ_i scaled, {}", scaling_words(scaling)),
                    None => turn,
                }
            }
            Self::KRot => "RoPE: turn each key the same way at its own position, so a query·key product \
                           depends only on how far apart they are"
                .into(),
            Self::KRep => "Repeat each key head for its group of query heads (grouped-query attention): \
                           query head i reads key head ⌊i / (h / h_kv)⌋"
                .into(),
            Self::VRep => "Repeat each value head for its group of query heads the same way".into(),
            Self::Alibi if causal => "ALiBi's bias m_h·(j − i): 0 for the query's own position, more negative \
                                      the farther back the key, with a slope m_h per head"
                .into(),
            Self::Alibi => "ALiBi's bias without a causal mask, −m_h·|i − j|: more negative the farther the key, \
                            before or after the query (the symmetric form of bidirectional ALiBi, MosaicBERT, \
                            Portes et al., 2023), with a slope m_h per head. The paper's m_h·(j − i) would reward \
                            every later key"
                .into(),
            Self::Biased if softcap.is_some() => "Add ALiBi's bias to the capped scores".into(),
            Self::Biased => "Add ALiBi's bias to the scaled scores".into(),
            Self::Scores => "Dot every query with every key, in each head: Q Kᵀ".into(),
            Self::Scaled => match scale {
                Some(s) => format!(
                    "Multiply by the scale {s} in place of 1/√d_k = 1/√{d_k} = {:.4} (Gemma 2's \
                     query_pre_attn_scalar^(−1/2))",
                    1.0 / (d_k as f64).sqrt()
                ),
                None => format!("Divide by √d_k = √{d_k} = {:.4}", (d_k as f64).sqrt()),
            },
            // `capped` is only recorded with a softcap; without one the words say what it would be
            Self::Capped => format!(
                "Softcap: c·tanh(s / c){}, close to s while |s| is small, never beyond ±c, so no score can \
                 dominate the softmax (Gemma 2's attn_logit_softcapping)",
                softcap.map_or(String::new(), |c| format!(" with c = {c}"))
            ),
            Self::Masked => format!(
                "Replace every blocked score by {} (masked_fill; the mask is the same for every head)",
                fill.pytorch()
            ),
            Self::Weights if sinks => "Softmax over each row's keys and its head's learned sink logit, then drop \
                                       the sink's column (gpt-oss): a query's weights sum to less than 1, the rest \
                                       goes to no token"
                .into(),
            Self::Weights => "Softmax over each row (the keys): the weights of a query sum to 1".into(),
            Self::Context => "Each query's weighted sum of the values".into(),
            Self::Concat => "Swap h and T back, then lay the heads side by side".into(),
            Self::Output => "Mix the heads: concat @ W_O + b_O".into(),
            Self::ResidIn if text.layer == 1 => {
                "The residual stream entering layer 1, resid[0]: the embeddings (plus the positions); the \
                 layer's projections read it"
                    .into()
            }
            Self::ResidIn => format!(
                "The residual stream entering layer {0}, resid[{1}] = resid[{2}] + layer {1}'s output; this \
                 layer's projections read it",
                text.layer,
                text.layer - 1,
                text.layer - 2
            ),
            Self::ResidOut => format!(
                "Add the layer's output to what it read: resid[{0}] = resid[{1}] + output, what layer {2} reads \
                 (or the model's last hidden state after the last layer)",
                text.layer,
                text.layer - 1,
                text.layer + 1
            ),
        }
    }
}

/// RoPE's scaling in words, with its numbers: which type, and what it does to `θ_i`.
pub fn scaling_words(scaling: RopeScaling) -> String {
    match scaling {
        RopeScaling::Linear { factor } => {
            format!(
                "\"linear\" with factor {0}: every θ_i divided by {0} (position interpolation)",
                number_text(factor)
            )
        }
        RopeScaling::Llama3 {
            factor,
            low_freq_factor,
            high_freq_factor,
            original_max_position_embeddings: old,
        } => {
            format!(
                "\"llama3\" (Llama 3.1) with factor {}, low_freq_factor {}, high_freq_factor {}, \
                 original_max_position_embeddings {}: a θ_i whose wavelength 2π/θ_i is over {} / {} is divided by {}, one \
                 under {} / {} is kept, and those between are blended",
                number_text(factor),
                number_text(low_freq_factor),
                number_text(high_freq_factor),
                number_text(old),
                number_text(old),
                number_text(low_freq_factor),
                number_text(factor),
                number_text(old),
                number_text(high_freq_factor),
            )
        }
        RopeScaling::Yarn {
            factor,
            original_max_position_embeddings: old,
            beta_fast,
            beta_slow,
            truncate,
            ..
        } => {
            format!(
                "\"yarn\" (YaRN) with factor {}, original_max_position_embeddings {}, beta_fast {}, beta_slow {}{}: \
                 a pair that turns more than {} times in {} positions is kept, one that turns fewer than {} times is divided \
                 by {}, those between are blended on a ramp, and the turned dimensions are multiplied by the attention \
                 factor {}",
                number_text(factor),
                number_text(old),
                number_text(beta_fast),
                number_text(beta_slow),
                if truncate { "" } else { ", not truncated" },
                number_text(beta_fast),
                number_text(old),
                number_text(beta_slow),
                number_text(factor),
                number_text(scaling.attention_factor()),
            )
        }
    }
}
