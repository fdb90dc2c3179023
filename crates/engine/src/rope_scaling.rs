//! RoPE's scaled frequencies (`rope.scaling`): how `θ_i` is stretched for a longer
//! context, as Hugging Face's `modeling_rope_utils.py` computes it.

use serde::{Deserialize, Serialize};

/// How RoPE's frequencies `θ_i` (Hugging Face's `inv_freq`) are scaled, as
/// `transformers`' `modeling_rope_utils.py` computes them.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum RopeScaling {
    /// Position interpolation: every `θ_i` divided by `factor`, as if the positions were
    /// (`_compute_linear_scaling_rope_parameters`).
    Linear {
        /// What each frequency is divided by.
        factor: f64,
    },
    /// Llama 3.1's: frequencies whose wavelength `2π/θ_i` is longer than
    /// `original_max_position_embeddings / low_freq_factor` are divided by `factor`, those
    /// shorter than `original_max_position_embeddings / high_freq_factor` kept, and those
    /// between blended smoothly (`_compute_llama3_parameters`).
    Llama3 {
        /// What the low frequencies are divided by (8 in Llama 3.1).
        factor: f64,
        /// Sets the longest wavelength kept as a blend (1 in Llama 3.1).
        low_freq_factor: f64,
        /// Sets the shortest wavelength blended (4 in Llama 3.1).
        high_freq_factor: f64,
        /// The context the model was trained on (8192 in Llama 3.1).
        original_max_position_embeddings: f64,
    },
    /// YaRN (Peng et al., 2023), as `_compute_yarn_parameters`: pair `i` of `r` is divided
    /// by `factor` below the pair index where a wavelength makes `beta_slow` turns in
    /// `original_max_position_embeddings`, kept above the one that makes `beta_fast`,
    /// blended on a linear ramp between; the turned dimensions (Hugging Face's cos and sin)
    /// are multiplied by `attention_factor`.
    Yarn {
        /// What the interpolated frequencies are divided by.
        factor: f64,
        /// The context the model was trained on.
        original_max_position_embeddings: f64,
        /// Turns in the original context above which a pair is kept (32 by default).
        #[serde(default = "RopeScaling::default_beta_fast")]
        beta_fast: f64,
        /// Turns in the original context below which a pair is divided (1 by default).
        #[serde(default = "RopeScaling::default_beta_slow")]
        beta_slow: f64,
        /// What the turned dimensions are multiplied by; absent means
        /// `0.1·ln(factor) + 1` (1 for a factor ≤ 1), Hugging Face's `get_mscale(factor)`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        attention_factor: Option<f64>,
        /// Whether the ramp's ends are rounded out to whole pair indices (floor and ceil), as
        /// Hugging Face does unless `truncate` is false (gpt-oss).
        #[serde(default = "RopeScaling::default_truncate")]
        truncate: bool,
    },
}

impl RopeScaling {
    fn default_beta_fast() -> f64 {
        32.0
    }

    fn default_beta_slow() -> f64 {
        1.0
    }

    fn default_truncate() -> bool {
        true
    }

    /// The JSON name of the type: `linear`, `llama3`, `yarn`.
    pub fn name(self) -> &'static str {
        match self {
            Self::Linear { .. } => "linear",
            Self::Llama3 { .. } => "llama3",
            Self::Yarn { .. } => "yarn",
        }
    }

    /// `factor`, which every type has.
    pub fn factor(self) -> f64 {
        match self {
            Self::Linear { factor } | Self::Llama3 { factor, .. } | Self::Yarn { factor, .. } => factor,
        }
    }

    /// What the turned dimensions are multiplied by (Hugging Face's `attention_scaling`,
    /// applied to cos and sin): YaRN's attention factor, 1 for the other types.
    pub fn attention_factor(self) -> f64 {
        match self {
            Self::Yarn { attention_factor: Some(a), .. } => a,
            Self::Yarn { factor, .. } if factor > 1.0 => 0.1 * factor.ln() + 1.0,
            _ => 1.0,
        }
    }

    /// YaRN's ramp ends in pair indices, `(low, high)` of `find_correction_range`: the
    /// index where a pair makes `beta_fast` (low) and `beta_slow` (high) turns in the
    /// original context, rounded out when truncating, clamped to `[0, r − 1]`, and `high`
    /// nudged by 0.001 when they meet. `None` for the other types.
    pub fn yarn_ramp(self, base: f64, r: usize) -> Option<(f64, f64)> {
        let Self::Yarn { original_max_position_embeddings: old, beta_fast, beta_slow, truncate, .. } = self
        else {
            return None;
        };
        let dim = r as f64;
        let correction =
            |turns: f64| dim * (old / (turns * 2.0 * std::f64::consts::PI)).ln() / (2.0 * base.ln());
        let (mut low, mut high) = (correction(beta_fast), correction(beta_slow));
        if truncate {
            (low, high) = (low.floor(), high.ceil());
        }
        let (low, mut high) = (low.max(0.0), high.min(dim - 1.0));
        if low == high {
            high += 0.001;
        }
        Some((low, high))
    }

    /// The scaled frequency of pair `i`'s unscaled `inv_freq` among `r` turned dimensions of
    /// base `base`, with `transformers`' branches.
    pub fn scale(self, inv_freq: f64, i: usize, r: usize, base: f64) -> f64 {
        if let Some((low, high)) = self.yarn_ramp(base, r) {
            // ramp 0 keeps the pair (extrapolation), 1 divides it by the factor (interpolation)
            let ramp = ((i as f64 - low) / (high - low)).clamp(0.0, 1.0);
            let extrapolation = 1.0 - ramp;
            return inv_freq / self.factor() * (1.0 - extrapolation) + inv_freq * extrapolation;
        }
        match self {
            Self::Linear { factor } | Self::Yarn { factor, .. } => inv_freq / factor,
            Self::Llama3 {
                factor,
                low_freq_factor,
                high_freq_factor,
                original_max_position_embeddings: old,
            } => {
                let wavelen = 2.0 * std::f64::consts::PI / inv_freq;
                if wavelen < old / high_freq_factor {
                    inv_freq
                } else if wavelen > old / low_freq_factor {
                    inv_freq / factor
                } else {
                    let smooth = (old / wavelen - low_freq_factor) / (high_freq_factor - low_freq_factor);
                    (1.0 - smooth) * inv_freq / factor + smooth * inv_freq
                }
            }
        }
    }

    /// The numbers of its fields, named as in the JSON, for words and errors.
    pub fn fields(self) -> Vec<(&'static str, f64)> {
        match self {
            Self::Linear { factor } => vec![("factor", factor)],
            Self::Llama3 { factor, low_freq_factor, high_freq_factor, original_max_position_embeddings } => {
                vec![
                    ("factor", factor),
                    ("low_freq_factor", low_freq_factor),
                    ("high_freq_factor", high_freq_factor),
                    ("original_max_position_embeddings", original_max_position_embeddings),
                ]
            }
            Self::Yarn {
                factor,
                original_max_position_embeddings,
                beta_fast,
                beta_slow,
                attention_factor,
                ..
            } => {
                let mut fields = vec![
                    ("factor", factor),
                    ("original_max_position_embeddings", original_max_position_embeddings),
                    ("beta_fast", beta_fast),
                    ("beta_slow", beta_slow),
                ];
                fields.extend(attention_factor.map(|a| ("attention_factor", a)));
                fields
            }
        }
    }
}
