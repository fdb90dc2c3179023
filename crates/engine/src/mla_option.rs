//! The scenario's multi-head latent attention option (DeepSeek-V2/V3), as serde types
//! with nothing else of the engine: its sizes and, optionally, its weights. The math is in
//! [`crate::mla`].

use serde::{Deserialize, Serialize};

/// Multi-head latent attention's sizes and, optionally, its weights (DeepSeek-V2/V3's
/// config names). The query/key head size is `d_k = qk_nope_head_dim + qk_rope_head_dim`
/// and the value head size `v_head_dim`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Mla {
    /// The latent's width `r_kv`: what a decoder caches per token besides `k_rope`
    /// (512 in DeepSeek-V3).
    pub kv_lora_rank: usize,
    /// The query's own latent width `r_q` (1536 in DeepSeek-V3): `x @ W_DQ`, RMSNorm, then
    /// `@ W_UQ`. Absent means one projection `x @ W_Q` (DeepSeek-V2-Lite).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub q_lora_rank: Option<usize>,
    /// The width of each head's unrotated query/key part, `d_nope` (128 in DeepSeek-V3).
    pub qk_nope_head_dim: usize,
    /// The width of the rotated part, `d_rope`, of each query head and of the one key
    /// shared by every head (64 in DeepSeek-V3).
    pub qk_rope_head_dim: usize,
    /// The width of each value head, `d_v` (128 in DeepSeek-V3).
    pub v_head_dim: usize,
    /// YaRN's `mscale_all_dim`: the scale `1/√d_k` is multiplied by `m²`, with
    /// `m = 0.1·mscale_all_dim·ln(factor) + 1` for the RoPE scaling's factor (1 when the
    /// factor is at most 1), as Hugging Face's `yarn_apply_mscale`. Absent means none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mscale_all_dim: Option<f64>,
    /// DeepSeek-V2's RoPE layout (`DeepseekV2Attention`'s `apply_rotary_emb`): with the
    /// interleaved style, each pair of dimensions `2i, 2i+1` is turned where it is, as a
    /// complex number, so `q_rot` and `k_rot` keep the weights' order. Absent (false) is
    /// DeepSeek-V3's `apply_rotary_pos_emb_interleave`, which first gathers the even
    /// dimensions, then the odd ones. The scores are the same either way (both sides are
    /// reordered alike); the rotated parts' order differs.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub rope_in_place: bool,
    /// ε of the two RMSNorms (the latent's and the query's latent's), 1e-6 as
    /// `DeepseekV3RMSNorm`'s default.
    #[serde(default = "Mla::default_eps")]
    pub eps: f64,
    /// The weights; absent means drawn from the scenario's seed (Xavier uniform, zero
    /// biases, RMSNorm weights of ones).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub weights: Option<Box<MlaWeights>>,
}

/// MLA's weights in the paper's convention `y = x @ W + b` (`nn.Linear.weight.T`). Biases
/// may be omitted and then are zero; a norm weight may be omitted and then is ones.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MlaWeights {
    /// `q_proj`, `(d_model, h·d_k)`: only without `q_lora_rank`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub w_q: Vec<Vec<f64>>,
    /// `q_proj`'s bias, `(h·d_k)`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub b_q: Vec<f64>,
    /// `q_a_proj`, `(d_model, r_q)`: only with `q_lora_rank`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub w_q_a: Vec<Vec<f64>>,
    /// `q_a_proj`'s bias, `(r_q)`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub b_q_a: Vec<f64>,
    /// `q_a_layernorm`'s weight, `(r_q)`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub q_a_norm: Vec<f64>,
    /// `q_b_proj`, `(r_q, h·d_k)`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub w_q_b: Vec<Vec<f64>>,
    /// `q_b_proj`'s bias, `(h·d_k)`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub b_q_b: Vec<f64>,
    /// `kv_a_proj_with_mqa`, `(d_model, r_kv + d_rope)`: the latent, then the shared RoPE key.
    pub w_kv_a: Vec<Vec<f64>>,
    /// `kv_a_proj_with_mqa`'s bias, `(r_kv + d_rope)`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub b_kv_a: Vec<f64>,
    /// `kv_a_layernorm`'s weight, `(r_kv)`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub kv_a_norm: Vec<f64>,
    /// `kv_b_proj`, `(r_kv, h·(d_nope + d_v))`: per head, its `k_nope` then its value.
    pub w_kv_b: Vec<Vec<f64>>,
    /// `kv_b_proj`'s bias, `(h·(d_nope + d_v))`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub b_kv_b: Vec<f64>,
    /// `o_proj`, `(h·d_v, d_model)`.
    pub w_o: Vec<Vec<f64>>,
    /// `o_proj`'s bias, `(d_model)`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub b_o: Vec<f64>,
}

impl MlaWeights {
    /// Weights without query compression: `q_proj`, `kv_a_proj_with_mqa`, `kv_b_proj` and
    /// `o_proj`, every bias zero and both norm weights ones (left empty).
    pub fn uncompressed(
        w_q: Vec<Vec<f64>>,
        w_kv_a: Vec<Vec<f64>>,
        w_kv_b: Vec<Vec<f64>>,
        w_o: Vec<Vec<f64>>,
    ) -> Self {
        Self {
            w_q,
            b_q: vec![],
            w_q_a: vec![],
            b_q_a: vec![],
            q_a_norm: vec![],
            w_q_b: vec![],
            b_q_b: vec![],
            w_kv_a,
            b_kv_a: vec![],
            kv_a_norm: vec![],
            w_kv_b,
            b_kv_b: vec![],
            w_o,
            b_o: vec![],
        }
    }
}

impl Mla {
    /// 1e-6, `DeepseekV3RMSNorm`'s default ε (the attention's two norms are built without
    /// the config's `rms_norm_eps`).
    pub const DEFAULT_EPS: f64 = 1e-6;

    fn default_eps() -> f64 {
        Self::DEFAULT_EPS
    }

    /// MLA of these sizes without query compression, `mscale_all_dim` or weights of its
    /// own (seeded), with the default ε.
    pub fn sized(
        kv_lora_rank: usize,
        qk_nope_head_dim: usize,
        qk_rope_head_dim: usize,
        v_head_dim: usize,
    ) -> Self {
        Self {
            kv_lora_rank,
            q_lora_rank: None,
            qk_nope_head_dim,
            qk_rope_head_dim,
            v_head_dim,
            mscale_all_dim: None,
            rope_in_place: false,
            eps: Self::DEFAULT_EPS,
            weights: None,
        }
    }

    /// The query/key head size, `d_nope + d_rope`.
    pub fn d_k(&self) -> usize {
        self.qk_nope_head_dim + self.qk_rope_head_dim
    }

    /// The sizes alone, without the weights (what the trace keeps).
    pub fn sizes(&self) -> Self {
        Self { weights: None, ..self.clone() }
    }
}
