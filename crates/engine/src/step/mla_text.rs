//! What the steps of multi-head latent attention say: their PyTorch lines (Hugging Face's
//! `DeepseekV3Attention` names: `self.q_a_proj`, `self.kv_a_proj_with_mqa`, …) and their
//! words, which [`StepName::pytorch`] and [`StepName::words`] (`text.rs`) ask first through
//! `latent_pytorch` and `latent_words`. A step MLA does not change is left to `text.rs`.

use super::{MlaText, StepName, StepText};
use crate::error::number_text;
use crate::scenario::RopeStyle;

/// RoPE on MLA's rotated parts, `{x}` the part (`q[..., d_nope:]` or `k_pe`): Hugging
/// Face's `apply_rotary_pos_emb`, or with DeepSeek's interleaved layout its
/// `apply_rotary_pos_emb_interleave` (the even dimensions, then the odd ones, turned), or
/// with `in_place` DeepSeek-V2's `apply_rotary_emb` (each pair turned where it is).
fn rotate(out: &str, even: &str, odd: &str, whole: &str, style: Option<RopeStyle>, in_place: bool) -> String {
    match style {
        Some(RopeStyle::Interleaved) if in_place => format!(
            "{out} = torch.stack([{even} * cos[..., :d_rope // 2] - {odd} * sin[..., :d_rope // 2], \
             {odd} * cos[..., :d_rope // 2] + {even} * sin[..., :d_rope // 2]], dim=-1).flatten(-2)"
        ),
        Some(RopeStyle::Interleaved) => format!(
            "{out} = torch.cat([{even} * cos[..., :d_rope // 2] - {odd} * sin[..., :d_rope // 2], \
             {odd} * cos[..., :d_rope // 2] + {even} * sin[..., :d_rope // 2]], dim=-1)"
        ),
        _ => format!("{out} = {whole} * cos + rotate_half({whole}) * sin"),
    }
}

/// The PyTorch line of `step` under MLA, or `None` for a step MLA leaves as it is.
impl StepName {
    /// The step's PyTorch line under MLA (MLA's own steps always), or `None`.
    pub(super) fn latent_pytorch(self, text: &StepText) -> Option<String> {
        let m = text.mla.or_else(|| self.is_mla_only().then(MlaText::default))?;
        pytorch(self, text, m)
    }

    /// The step's words under MLA (MLA's own steps always), or `None`.
    pub(super) fn latent_words(self, text: &StepText) -> Option<String> {
        let m = text.mla.or_else(|| self.is_mla_only().then(MlaText::default))?;
        words(self, text, m)
    }
}

fn pytorch(step: StepName, text: &StepText, m: MlaText) -> Option<String> {
    let cross = text.layout.cross;
    let (kv, t_q, t_k) = if cross { ("x_kv", "T_q", "T_k") } else { ("x", "T", "T") };
    let style = text.rope;
    let k_rope = if style.is_some() { "k_rot" } else { "k_pe" };
    Some(match step {
        StepName::QA => "q_a = self.q_a_proj(x)".into(),
        StepName::QANorm => "q_a = self.q_a_layernorm(q_a)".into(),
        StepName::Q if m.q_lora_rank.is_some() => "q = self.q_b_proj(q_a)".into(),
        StepName::Q => "q = self.q_proj(x)".into(),
        StepName::KvA => format!("kv_a = self.kv_a_proj_with_mqa({kv})"),
        StepName::CKv => "c_kv = self.kv_a_layernorm(kv_a[..., :kv_lora_rank])".into(),
        StepName::KPe => format!("k_pe = kv_a[..., kv_lora_rank:].view(B, 1, {t_k}, d_rope)"),
        StepName::KvB => "kv_b = self.kv_b_proj(c_kv)".into(),
        StepName::KNope => {
            format!("k_nope = kv_b.view(B, {t_k}, h, d_nope + d_v).transpose(1, 2)[..., :d_nope]")
        }
        StepName::VHeads => format!("v = kv_b.view(B, {t_k}, h, d_nope + d_v).transpose(1, 2)[..., d_nope:]"),
        StepName::QRot => rotate(
            "q_rot",
            "q[..., d_nope::2]",
            "q[..., d_nope + 1::2]",
            "q[..., d_nope:]",
            style,
            m.rope_in_place,
        ),
        StepName::KRot => {
            rotate("k_rot", "k_pe[..., 0::2]", "k_pe[..., 1::2]", "k_pe", style, m.rope_in_place)
        }
        StepName::QCat => "q = torch.cat([q[..., :d_nope], q_rot], dim=-1)".into(),
        StepName::KCat => format!("k = torch.cat([k_nope, {k_rope}.expand(B, h, {t_k}, d_rope)], dim=-1)"),
        StepName::Scaled if m.mscale.is_some() || text.scale.is_some() => "scores = scores * scale".into(),
        StepName::Concat => format!("concat = context.transpose(1, 2).contiguous().view(B, {t_q}, h * d_v)"),
        StepName::Output => "output = self.o_proj(concat)".into(),
        _ => return None,
    })
}

/// The words of `step` under MLA, or `None` for a step MLA leaves as it is.
fn words(step: StepName, text: &StepText, m: MlaText) -> Option<String> {
    let MlaText { q_lora_rank, kv_lora_rank: r_kv, d_nope, d_rope, d_v, mscale, rope_in_place, eps } = m;
    let (h, d_k, d_model) = (text.n_heads, text.d_k, text.d_model);
    let eps = number_text(eps);
    Some(match step {
        StepName::QA => format!(
            "Multi-head latent attention (DeepSeek): compress every token to the query's latent, x @ W_DQ, \
             r_q = {} numbers (q_a_proj)",
            q_lora_rank.unwrap_or(0)
        ),
        StepName::QANorm => {
            format!("RMSNorm of the query's latent, w · c / √(mean(c²) + ε) with ε = {eps} (q_a_layernorm)")
        }
        StepName::Q if q_lora_rank.is_some() => format!(
            "Project the query's latent up to h·d_k = {h}·{d_k} = {} numbers, every head's query (q_b_proj)",
            h * d_k
        ),
        StepName::Q => format!(
            "Project every token to h·d_k = {h}·{d_k} = {} query numbers, d_k = d_nope + d_rope = {d_nope} + {d_rope} \
             per head (q_proj)",
            h * d_k
        ),
        StepName::KvA => format!(
            "Multi-head latent attention (DeepSeek): compress every token to r_kv + d_rope = {r_kv} + {d_rope} numbers \
             (kv_a_proj_with_mqa), the latent c_KV and one RoPE key shared by every head, in place of h keys and \
             values of {h}·({d_k} + {d_v}) = {} numbers",
            h * (d_k + d_v)
        ),
        StepName::CKv => format!(
            "The latent c_KV: the first r_kv = {r_kv} numbers, RMS-normalised (kv_a_layernorm, ε = {eps}). A decoder \
             caches this and k_pe, {} numbers per token and layer, not the keys and values",
            r_kv + d_rope
        ),
        StepName::KPe => format!(
            "The last d_rope = {d_rope} numbers: one RoPE key per token, shared by all h = {h} heads (DeepSeek's \
             decoupled RoPE: a rotated key cannot be projected up from the latent)"
        ),
        StepName::KvB => format!(
            "Project the latent up to every head's unrotated key and value, h·(d_nope + d_v) = {h}·({d_nope} + {d_v}) \
             = {} numbers (kv_b_proj: W_UK and W_UV side by side per head)",
            h * (d_nope + d_v)
        ),
        StepName::QHeads => format!(
            "Split the queries into h = {h} heads of d_k = d_nope + d_rope = {d_nope} + {d_rope} = {d_k}, then swap T \
             and h"
        ),
        StepName::KNope => format!("Each head's key part without RoPE, its first d_nope = {d_nope} numbers"),
        StepName::VHeads => format!(
            "Each head's value, the other d_v = {d_v} numbers: the value heads are not as wide as the query and key \
             heads ({d_k})"
        ),
        StepName::QRot => {
            let layout = match text.rope {
                Some(RopeStyle::Interleaved) if rope_in_place => {
                    "; DeepSeek-V2's weights lay the pairs out interleaved: dimensions 2i and 2i+1 turn together, \
                     in place, as one complex number each (its apply_rotary_emb)"
                }
                Some(RopeStyle::Interleaved) => {
                    "; DeepSeek's weights lay the pairs out interleaved (rope_interleave): dimensions 2i and 2i+1 \
                     turn together and are written evens first, then odds, as transformers' \
                     apply_rotary_pos_emb_interleave does (the scores are those of turning them in place)"
                }
                _ => "",
            };
            let scaled = text.rope_scaling.map_or(String::new(), |s| format!("; θ_i scaled, {}", super::scaling_words(s)));
            format!(
                "RoPE on each query head's last d_rope = {d_rope} numbers only, θ_i = base^(−2i/d_rope); the first \
                 d_nope = {d_nope} do not turn{layout}{scaled}"
            )
        }
        StepName::KRot => format!(
            "RoPE on the shared key, the same way, at its own position: one turned key of d_rope = {d_rope} for all \
             {h} heads"
        ),
        StepName::QCat => format!(
            "Each query head again: its {d_nope} unturned numbers, then its {d_rope} turned ones (d_k = {d_k})"
        ),
        StepName::KCat => format!(
            "Each head's key: its own k_nope ({d_nope}) and the shared RoPE key ({d_rope}), the same for every head \
             (d_k = {d_k})"
        ),
        StepName::Scores => format!(
            "Dot every query with every key, in each head: Q Kᵀ. The same numbers come from the latent without \
             forming the keys: W_UK folded into the query, (q_nope W_UKᵀ) · c_KV + q_rot · k_rot, a query of \
             r_kv = {r_kv} against the cached latent (DeepSeek's absorbed form)"
        ),
        StepName::Scaled => {
            let base = 1.0 / (d_k as f64).sqrt();
            match (text.scale, mscale) {
                (Some(s), Some(m)) => format!(
                    "Multiply by the scale {} = {} · m² with YaRN's m = {} (mscale_all_dim), in place of \
                     1/√(d_nope + d_rope) = 1/√{d_k} = {base:.4}",
                    number_text(s),
                    number_text(s / (m * m)),
                    number_text(m)
                ),
                (Some(s), None) => format!(
                    "Multiply by the scale {} in place of 1/√(d_nope + d_rope) = 1/√{d_k} = {base:.4}",
                    number_text(s)
                ),
                _ => format!("Divide by √d_k = √(d_nope + d_rope) = √{d_k} = {:.4}", (d_k as f64).sqrt()),
            }
        }
        StepName::Context => format!("Each query's weighted sum of the values, d_v = {d_v} numbers per head"),
        StepName::Concat => format!("Swap h and T back, then lay the heads side by side: h·d_v = {} numbers", h * d_v),
        StepName::Output => {
            format!("Mix the heads: concat @ W_O + b_O, h·d_v = {} numbers back to d_model = {d_model} (o_proj)", h * d_v)
        }
        _ => return None,
    })
}
