//! The scenario's rotary position embeddings (RoPE) option, as serde types: which
//! dimensions pair up, the base of the angles, a rotary fraction and a scaling. The
//! rotation itself is in [`crate::attention`].

use serde::{Deserialize, Serialize};

use crate::rope_scaling::RopeScaling;

/// Rotary position embeddings (RoPE): each pair of a head's first `r` dimensions is
/// rotated by the angle `pos·θ_i`, with `θ_i = base^(−2i/r)` for the pair's index
/// `i < r/2`; `r = d_k` unless a rotary fraction leaves the rest unrotated.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Rope {
    /// Which dimensions make a pair.
    pub style: RopeStyle,
    /// The base of the angles, 10000 in the RoFormer paper and Llama 2.
    #[serde(default = "Rope::default_base")]
    pub base: f64,
    /// The fraction of each head's dimensions that is rotated, the first `r = ⌊d_k·f⌋`
    /// (GPT-NeoX's `rotary_pct`, Phi's `partial_rotary_factor`); the others pass unchanged.
    /// Absent means all of them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fraction: Option<f64>,
    /// Scaled frequencies for a longer context than the model was trained on, as Hugging
    /// Face's `rope_parameters` define them. Absent means `θ_i` unchanged.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scaling: Option<RopeScaling>,
}

impl Rope {
    /// 10000, as in the RoFormer paper, GPT-NeoX and Llama 2.
    pub const DEFAULT_BASE: f64 = 10000.0;

    fn default_base() -> f64 {
        Self::DEFAULT_BASE
    }

    /// RoPE of `style` with the default base, every dimension rotated.
    pub fn new(style: RopeStyle) -> Self {
        Self { style, base: Self::DEFAULT_BASE, fraction: None, scaling: None }
    }

    /// The frequency `θ_i` of pair `i` of the `r` rotated dimensions, Hugging Face's
    /// `inv_freq`: `1 / base^(2i/r)`, then scaled. The run, decoding, tiles and the words'
    /// angles all take it from here.
    pub fn inv_freq(&self, i: usize, r: usize) -> f64 {
        let inv_freq = 1.0 / self.base.powf((2 * i) as f64 / r as f64);
        self.scaling.map_or(inv_freq, |s| s.scale(inv_freq, i, r, self.base))
    }

    /// What the turned dimensions are multiplied by after the turn: YaRN's attention
    /// factor, otherwise 1.
    pub fn attention_factor(&self) -> f64 {
        self.scaling.map_or(1.0, RopeScaling::attention_factor)
    }

    /// RoPE's angle `pos·θ_i` for pair `i` of `r` rotated dimensions.
    pub fn angle(&self, pos: usize, i: usize, r: usize) -> f64 {
        pos as f64 * self.inv_freq(i, r)
    }

    /// How many of a head's `d_k` dimensions are rotated: `⌊d_k·fraction⌋` as Hugging Face's
    /// `int(head_dim * partial_rotary_factor)`, or `d_k`.
    pub fn rotary_dims(&self, d_k: usize) -> usize {
        match self.fraction {
            Some(f) => (d_k as f64 * f) as usize,
            None => d_k,
        }
    }
}

/// Which two dimensions of a head RoPE rotates together.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RopeStyle {
    /// Dimension `i` with `i + d_k/2`: Hugging Face's `rotate_half` (Llama, GPT-NeoX, Qwen,
    /// Mistral in `transformers`).
    Half,
    /// Dimension `2i` with `2i + 1`: the RoFormer paper and Meta's reference Llama code
    /// (`torch.view_as_complex`).
    Interleaved,
}

impl RopeStyle {
    /// Every value, in the order the page lists them.
    pub const ALL: [RopeStyle; 2] = [RopeStyle::Half, RopeStyle::Interleaved];

    /// The JSON (and URL) name: `half`, `interleaved`.
    pub fn name(self) -> &'static str {
        match self {
            Self::Half => "half",
            Self::Interleaved => "interleaved",
        }
    }

    /// The value with this name.
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|p| p.name() == name)
    }

    /// The dimension dimension `c` is paired with in a head of width `d_k` (even), and
    /// whether `c` is the first of its pair: the rotation gives the first
    /// `x_c·cos − x_pair·sin` and the second `x_c·cos + x_pair·sin`. The pair's index `i`
    /// (for `θ_i`) is [`RopeStyle::pair_index`].
    pub fn partner(self, c: usize, d_k: usize) -> (usize, bool) {
        let half = d_k / 2;
        match self {
            Self::Half if c < half => (c + half, true),
            Self::Half => (c - half, false),
            Self::Interleaved if c.is_multiple_of(2) => (c + 1, true),
            Self::Interleaved => (c - 1, false),
        }
    }

    /// The index `i` of the pair that dimension `c` belongs to, so its angle is `pos·θ_i`.
    pub fn pair_index(self, c: usize, d_k: usize) -> usize {
        match self {
            Self::Half => c % (d_k / 2).max(1),
            Self::Interleaved => c / 2,
        }
    }
}
