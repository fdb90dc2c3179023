//! The scenario: everything the engine needs, as one serde type.
//!
//! This is the contract shared by the page (import/export, URL state), the command line
//! (`examples/trace.rs`) and the tests. A scenario file looks like this:
//!
//! ```json
//! { "sentences": ["I bought a baseball bat", "the bat flew"],
//!   "d_model": 3, "n_heads": 1,
//!   "embeddings": {"baseball": [2,0,0], "bat": [1,1,0]},
//!   "projections": "identity",
//!   "seed": 7,
//!   "mask": {"causal": false, "padding": "keys", "fill": "neg_inf"} }
//! ```
//!
//! Optional fields default to: toy embeddings, `"seeded"` projections with seed 0, no
//! mask and the `neg_inf` fill. Unknown fields are rejected, so a typo such as
//! `"embedding"` is an error rather than silently ignored.

pub use crate::mla_option::{Mla, MlaWeights};
pub use crate::rope_option::{Rope, RopeStyle};
pub use crate::rope_scaling::RopeScaling;
use std::collections::BTreeMap;

pub use crate::qk_norm::QkNorm;
use serde::{Deserialize, Serialize};

use crate::error::EngineError;

/// One attention computation to run: the input text, the sizes, the parameters and the
/// mask settings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    /// One sentence per batch row. B = `sentences.len()`. They give the queries (and, in
    /// self-attention, the keys and values too).
    pub sentences: Vec<String>,
    /// Cross-attention: the keys and values come from these sentences instead (one per
    /// query sentence), so `T_k` may differ from `T_q`. Absent for self-attention.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kv_sentences: Option<Vec<String>>,
    /// Width of every token vector.
    pub d_model: usize,
    /// Number of heads, `h`. Must divide `d_model` unless `d_head` is given.
    pub n_heads: usize,
    /// A head size of its own, `d_k` (Gemma's `head_dim`, where `h·head_dim` need not be
    /// `hidden_size`): W_Q is `(d_model, h·d_head)`, W_K and W_V `(d_model, h_kv·d_head)`,
    /// W_O `(h·d_head, d_model)`, and the heads side by side are `h·d_head` wide. Absent
    /// means `d_model / h`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub d_head: Option<usize>,
    /// Grouped-query attention: the number of key/value heads, `h_kv`, which must divide
    /// `n_heads`. Query head `i` reads key/value head `⌊i / (h / h_kv)⌋`. Absent means
    /// `h_kv = h` (plain multi-head attention); `1` is multi-query attention.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub n_kv_heads: Option<usize>,
    /// Per-word vectors that override the toy embeddings. Keys are matched without case;
    /// `"<pad>"` sets the padding token's vector (zero by default).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub embeddings: BTreeMap<String, Vec<f64>>,
    /// Where W_Q, W_K, W_V, W_O and their biases come from.
    #[serde(default)]
    pub projections: Projections,
    /// Seed for `"seeded"` projections.
    #[serde(default)]
    pub seed: u64,
    /// Which query–key pairs are blocked, and what a blocked score becomes.
    #[serde(default)]
    pub mask: MaskConfig,
    /// The positional encoding added to the embeddings before the projections.
    #[serde(default, skip_serializing_if = "Positional::is_none")]
    pub positional: Positional,
    /// Rotary position embeddings: rotate every query and key head at its token's
    /// position, after the split. Absent means no rotation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rope: Option<Rope>,
    /// ALiBi: add `m_h·(j − i)` to head `h`'s scaled score of query `i` and key `j`, before
    /// the mask.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub alibi: bool,
    /// The factor the scores are multiplied by, in place of `1/√d_k`: Gemma 2's
    /// `query_pre_attn_scalar^(−1/2)`. Absent means `1/√d_k`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scale: Option<f64>,
    /// Logit softcapping `c`: every scaled score `s` becomes `c·tanh(s / c)`, close to `s`
    /// while `|s|` is small and never beyond `±c` (Gemma 2's `attn_logit_softcapping`).
    /// Absent means none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub softcap: Option<f64>,
    /// QK-norm: RMSNorm with a learned weight on every query and key head, after the
    /// split and before RoPE (Qwen3, Gemma 3). Absent means none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub qk_norm: Option<QkNorm>,
    /// Attention sinks (gpt-oss): one learned logit per query head, `h` numbers. Head
    /// `h`'s softmax runs over its keys' scores and this logit, whose column is then
    /// dropped: `weights = softmax([masked, s_h])[..., :T_k]`, so a row may sum to less
    /// than 1. Absent means none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sinks: Option<Vec<f64>>,
    /// Multi-head latent attention (DeepSeek-V2/V3): the keys and values projected up from
    /// a small latent, each head's key sharing one RoPE part, in place of W_K and W_V
    /// (see [`Mla`]). Absent means none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mla: Option<Mla>,
    /// The number of attention layers, 1 to [`Scenario::MAX_LAYERS`], each adding its
    /// output to the residual stream: `resid[0]` is the embeddings (plus the positions),
    /// `resid[l+1] = resid[l] + attn_l(resid[l])`, and every layer runs the whole pipeline
    /// above (RoPE, ALiBi and the mask inside each) on its own input. Layer `l` (counted
    /// from 0) uses [`Scenario::layer_seed`]'s seeded weights; identity and explicit
    /// projections, and MLA's explicit weights, are the same in every layer. Absent
    /// means 1, and is written only when more than 1.
    #[serde(default, skip_serializing_if = "Scenario::one_layer")]
    pub n_layers: Option<usize>,
    /// The layer whose steps the trace records, counted from 1 as the page writes
    /// "layer 2" (the residual stream is recorded whole). Absent means the last layer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub layer: Option<usize>,
}

impl Scenario {
    /// Self-attention on `sentences` with identity projections, the toy embeddings and no
    /// mask: the plainest scenario, the one the lessons and the tests start from.
    pub fn identity(sentences: &[&str], d_model: usize, n_heads: usize) -> Self {
        Self {
            sentences: sentences.iter().map(|s| s.to_string()).collect(),
            kv_sentences: None,
            d_model,
            n_heads,
            d_head: None,
            embeddings: BTreeMap::new(),
            projections: Projections::Named(ProjectionKind::Identity),
            seed: 0,
            mask: MaskConfig::default(),
            positional: Positional::None,
            rope: None,
            alibi: false,
            n_kv_heads: None,
            scale: None,
            softcap: None,
            qk_norm: None,
            sinks: None,
            mla: None,
            n_layers: None,
            layer: None,
        }
    }

    /// The most layers a run may have.
    pub const MAX_LAYERS: usize = 4;

    /// The number of layers: [`Scenario::n_layers`], or 1 when absent.
    pub fn layers(&self) -> usize {
        self.n_layers.unwrap_or(1)
    }

    /// True when `n_layers` is absent or 1 (the JSON then omits it).
    fn one_layer(n_layers: &Option<usize>) -> bool {
        n_layers.is_none_or(|n| n == 1)
    }

    /// The seed of layer `l`'s seeded weights (counted from 0): `seed + l`, wrapping. Layer
    /// 0 is the scenario's own seed, so one layer is exactly today's run, and layer `l`
    /// of a run at seed `s` has the weights a one-layer run at seed `s + l` has.
    pub fn layer_seed(&self, l: usize) -> u64 {
        self.seed.wrapping_add(l as u64)
    }

    /// The number of key/value heads, `h_kv`: [`Scenario::n_kv_heads`], or `h` when absent.
    pub fn kv_heads(&self) -> usize {
        self.n_kv_heads.unwrap_or(self.n_heads)
    }

    /// Reads a scenario from JSON text.
    ///
    /// # Errors
    /// [`EngineError::Json`] with serde's message (line, column and what was expected).
    pub fn from_json(text: &str) -> Result<Self, EngineError> {
        Ok(serde_json::from_str(text)?)
    }

    /// Writes the scenario as pretty JSON, the same format [`Scenario::from_json`] reads.
    pub fn to_json(&self) -> String {
        // A Scenario holds only strings, integers, finite floats and maps with string
        // keys, all of which serde_json can write; fall back to an empty object rather
        // than panic if that ever changes.
        serde_json::to_string_pretty(self).unwrap_or_else(|_| String::from("{}"))
    }
}

/// Where the projection weights come from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Projections {
    /// `"identity"` or `"seeded"`.
    Named(ProjectionKind),
    /// Every matrix and bias given explicitly.
    Explicit(Box<ExplicitWeights>),
}

impl Default for Projections {
    fn default() -> Self {
        Self::Named(ProjectionKind::Seeded)
    }
}

/// The projections that need no numbers from the user.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ProjectionKind {
    /// W = I and b = 0 for all four projections, so head i sees columns
    /// `i·d_k .. (i+1)·d_k` of the embedding unchanged.
    Identity,
    /// Xavier-uniform weights and zero biases from a ChaCha8 RNG seeded with
    /// [`Scenario::seed`].
    Seeded,
}

/// Explicit weights, in the paper's convention `y = x @ W + b`.
///
/// Each `w_*` is `(d_model_in, d_model_out)` as row-major nested arrays: `w_q[i][j]` maps
/// input dimension `i` to output dimension `j`. PyTorch's `nn.Linear.weight` is the
/// transpose of this (`(out_features, in_features)`), so export it with
/// `layer.weight.T.tolist()`. Biases may be omitted and then are zero.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExplicitWeights {
    /// Query projection, `(d_model, d_model)`.
    pub w_q: Vec<Vec<f64>>,
    /// Query bias, `(d_model)`.
    #[serde(default)]
    pub b_q: Vec<f64>,
    /// Key projection, `(d_model, d_model)`.
    pub w_k: Vec<Vec<f64>>,
    /// Key bias, `(d_model)`.
    #[serde(default)]
    pub b_k: Vec<f64>,
    /// Value projection, `(d_model, d_model)`.
    pub w_v: Vec<Vec<f64>>,
    /// Value bias, `(d_model)`.
    #[serde(default)]
    pub b_v: Vec<f64>,
    /// Output projection applied after concat, `(d_model, d_model)`.
    pub w_o: Vec<Vec<f64>>,
    /// Output bias, `(d_model)`.
    #[serde(default)]
    pub b_o: Vec<f64>,
}

/// The mask settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MaskConfig {
    /// Query i may not attend to key j > i (seed 000's `subsequent_mask`).
    #[serde(default)]
    pub causal: bool,
    /// How `<pad>` tokens are blocked.
    #[serde(default)]
    pub padding: Padding,
    /// What a blocked score is replaced with.
    #[serde(default)]
    pub fill: Fill,
    /// A sliding window of `W ≥ 1` keys: with `causal`, query `i` sees the keys
    /// `i − W < j ≤ i` (Mistral's); without it, the keys `|i − j| < W`. Absent means no
    /// window.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub window: Option<usize>,
    /// StreamingLLM's kept first keys (Xiao et al. 2023, "Efficient Streaming Language
    /// Models with Attention Sinks"): with a window, keys `j < keep_first` stay visible to
    /// every query the causal rule allows, beside the window's recent ones, and stay in the
    /// decode cache. Needs a window ([`crate::EngineError::KeepFirstWithoutWindow`]).
    /// Positions are not renumbered: each key keeps its own position for RoPE and ALiBi
    /// (StreamingLLM numbers positions inside the cache instead). Absent means none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub keep_first: Option<usize>,
}

/// How `<pad>` tokens are blocked.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Padding {
    /// Pad tokens are attended to like any other token.
    #[default]
    None,
    /// No query attends to a `<pad>` key (seed 001; PyTorch's `key_padding_mask`).
    Keys,
    /// As `Keys`, and a `<pad>` query attends to nothing (seed 002's table): its whole
    /// row is blocked.
    KeysAndQueries,
}

impl Padding {
    /// Every value, in the order the page lists them.
    pub const ALL: [Padding; 3] = [Padding::None, Padding::Keys, Padding::KeysAndQueries];

    /// The JSON (and URL) name: `none`, `keys`, `keys_and_queries`.
    pub fn name(self) -> &'static str {
        match self {
            Self::None => "none",
            Self::Keys => "keys",
            Self::KeysAndQueries => "keys_and_queries",
        }
    }

    /// The value with this name.
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|p| p.name() == name)
    }
}

/// What `masked_fill` writes into a blocked score.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Fill {
    /// `float('-inf')`: exactly zero weight, but a fully blocked row becomes 0/0 = NaN.
    #[default]
    NegInf,
    /// `-1e9`: a plain number. A blocked key gets `exp(-1e9 - max)`, which is 0 in
    /// float64 as long as the row's real scores stay far above -1e9; a fully blocked row
    /// becomes uniform. Once real scores fall below -1e9 (inputs around 1e5 are enough),
    /// the blocked keys win: a causal query then attends to the future. `-inf` never does.
    LargeNegative,
}

impl Fill {
    /// Every value.
    pub const ALL: [Fill; 2] = [Fill::NegInf, Fill::LargeNegative];

    /// The JSON (and URL) name: `neg_inf`, `large_negative`.
    pub fn name(self) -> &'static str {
        match self {
            Self::NegInf => "neg_inf",
            Self::LargeNegative => "large_negative",
        }
    }

    /// The value with this name.
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|f| f.name() == name)
    }

    /// The number written into blocked scores.
    pub fn value(self) -> f64 {
        match self {
            Self::NegInf => f64::NEG_INFINITY,
            Self::LargeNegative => -1e9,
        }
    }

    /// How PyTorch code writes the fill.
    pub fn pytorch(self) -> &'static str {
        match self {
            Self::NegInf => "float('-inf')",
            Self::LargeNegative => "-1e9",
        }
    }
}

impl MaskConfig {
    /// These three settings, with no window.
    pub const fn new(causal: bool, padding: Padding, fill: Fill) -> Self {
        Self { causal, padding, fill, window: None, keep_first: None }
    }
}

/// The positional encoding added to the token vectors before the projections.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Positional {
    /// No positions: self-attention is then permutation-equivariant.
    #[default]
    None,
    /// The Transformer paper's sinusoids: for column `c = 2i`,
    /// `PE(pos, c) = sin(pos / 10000^(2i/d_model))`; for `c = 2i+1`,
    /// `cos(pos / 10000^(2i/d_model))`; positions count from 0.
    Sinusoidal,
}

impl Positional {
    /// Every value.
    pub const ALL: [Positional; 2] = [Positional::None, Positional::Sinusoidal];

    /// True for [`Positional::None`] (the JSON then omits the field).
    pub fn is_none(&self) -> bool {
        *self == Self::None
    }

    /// The JSON (and URL) name: `none`, `sinusoidal`.
    pub fn name(self) -> &'static str {
        match self {
            Self::None => "none",
            Self::Sinusoidal => "sinusoidal",
        }
    }

    /// The value with this name.
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|p| p.name() == name)
    }
}
