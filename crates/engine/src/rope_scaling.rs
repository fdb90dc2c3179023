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
}

impl RopeScaling {
    /// The JSON name of the type: `linear`, `llama3`.
    pub fn name(self) -> &'static str {
        match self {
            Self::Linear { .. } => "linear",
            Self::Llama3 { .. } => "llama3",
        }
    }

    /// `factor`, which every type has.
    pub fn factor(self) -> f64 {
        match self {
            Self::Linear { factor } | Self::Llama3 { factor, .. } => factor,
        }
    }

    /// The scaled frequency of an unscaled `inv_freq`, with `transformers`' branches.
    pub fn scale(self, inv_freq: f64) -> f64 {
        match self {
            Self::Linear { factor } => inv_freq / factor,
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
        }
    }
}
