//! The scenario's QK-norm option (Qwen3, Gemma 3, OLMo 2) as a serde type: its weights,
//! its ε, and whether it normalises each head or the whole projection. The math is
//! `attention::qk_norm`.

use serde::{Deserialize, Serialize};

/// QK-norm as Qwen3 and Gemma 3 apply it (or OLMo 2, over the whole projection): each query (and key) head's `d_k` numbers `x`
/// become `w · x / √(mean(x²) + eps)`, one weight `w` of `d_k` numbers shared by every
/// query head (another by every key head).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct QkNorm {
    /// The query heads' weight, `d_k` numbers; absent or empty means all ones.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub q_weight: Vec<f64>,
    /// The key heads' weight, `d_k` numbers; absent or empty means all ones.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub k_weight: Vec<f64>,
    /// ε, added to the mean square (1e-6 in Qwen3 and Gemma 3).
    #[serde(default = "QkNorm::default_eps")]
    pub eps: f64,
    /// One RMSNorm over the whole projection (OLMo 2's `q_norm`, `k_norm`): all of a
    /// token's `h·d_k` query numbers (`h_kv·d_k` key numbers) together, before the heads
    /// are split, with a weight of that many numbers. False: each head's `d_k` numbers
    /// apart (Qwen3, Gemma 3).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub whole_projection: bool,
}

impl QkNorm {
    /// 1e-6, Qwen3's and Gemma 3's `rms_norm_eps`.
    pub const DEFAULT_EPS: f64 = 1e-6;

    fn default_eps() -> f64 {
        Self::DEFAULT_EPS
    }

    /// QK-norm of each head with weights of ones and the default ε (Qwen3's and Gemma 3's
    /// form before training).
    pub fn per_head() -> Self {
        Self { q_weight: vec![], k_weight: vec![], eps: Self::DEFAULT_EPS, whole_projection: false }
    }

    /// How many numbers the query (`keys` false) or key weight has, for `heads` heads of
    /// `d_k`: `d_k`, or `heads·d_k` over the whole projection.
    pub fn weight_len(&self, heads: usize, d_k: usize) -> usize {
        if self.whole_projection {
            heads * d_k
        } else {
            d_k
        }
    }

    /// The query (`keys` false) or key weight of `len` numbers ([`QkNorm::weight_len`]):
    /// the given one, or ones.
    pub fn weight(&self, keys: bool, d_k: usize) -> Vec<f64> {
        let w = if keys { &self.k_weight } else { &self.q_weight };
        if w.is_empty() {
            vec![1.0; d_k]
        } else {
            w.clone()
        }
    }
}
