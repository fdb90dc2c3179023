//! The trace: every intermediate tensor of one run, with what the page needs to explain
//! it (the operation in words, the PyTorch line, the named and numeric shape).
//!
//! Serialised as JSON by [`Trace::to_json`]; non-finite numbers become the strings
//! `"NaN"`, `"Infinity"` and `"-Infinity"`, since JSON has no literal for them.
//!
//! Here: [`Trace`], [`Sizes`] and [`shape_text`]; one step and its JSON form in `step.rs`,
//! the mask in `mask.rs`, numbers as JSON (and [`TensorJson`]) in `json.rs`.

mod absorbed;
mod json;
mod mask;
mod step;

pub(crate) use json::serialize_numbers;
pub use json::{non_finite_name, TensorJson};
pub use mask::MaskTrace;
pub use step::{Reshape, Step};

use std::borrow::Cow;

use serde::{Deserialize, Serialize};

use crate::embedding::Source;
use crate::scenario::{Positional, Rope};
use crate::step::{Axis, Layout, Role, StepName};
use crate::weights::Weights;

/// The sizes of the run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Sizes {
    /// Sentences in the batch.
    #[serde(rename = "B")]
    pub b: usize,
    /// Tokens per sentence after padding (the queries' T_q in cross-attention).
    #[serde(rename = "T")]
    pub t: usize,
    /// Cross-attention only: tokens per key/value sentence after padding.
    #[serde(rename = "T_k", skip_serializing_if = "Option::is_none")]
    pub t_k: Option<usize>,
    /// Width of a token vector.
    pub d_model: usize,
    /// Number of heads.
    #[serde(rename = "h")]
    pub n_heads: usize,
    /// Width of one head, `d_model / h`.
    pub d_k: usize,
    /// Grouped-query attention only: the number of key/value heads, `h_kv < h`. Absent
    /// (and not written) when every query head has its own.
    #[serde(rename = "h_kv", default, skip_serializing_if = "Option::is_none")]
    pub n_kv_heads: Option<usize>,
}

impl Sizes {
    /// The number of key/value heads: `h_kv`, or `h` when not grouped.
    pub fn kv_heads(&self) -> usize {
        self.n_kv_heads.unwrap_or(self.n_heads)
    }

    /// The query heads per key/value head, `h / h_kv` (1 when not grouped).
    pub fn group_size(&self) -> usize {
        self.n_heads / self.kv_heads().max(1)
    }
}

/// Everything one run computed.
///
/// [`Trace::to_json`] writes it and [`Trace::from_json`] reads it back; `params` and
/// `kv_sources` are not part of the JSON.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Trace {
    /// `B × T` token texts, `<pad>` included.
    pub tokens: Vec<Vec<String>>,
    /// The number of real tokens in each sentence.
    pub lengths: Vec<usize>,
    /// Cross-attention only: the key/value sentences' tokens, `B × T_k`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kv_tokens: Option<Vec<Vec<String>>>,
    /// Cross-attention only: the real tokens in each key/value sentence.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kv_lengths: Option<Vec<usize>>,
    /// Where each token's embedding came from.
    pub sources: Vec<Vec<Source>>,
    /// Cross-attention only: where each key/value token's embedding came from, `B × T_k`.
    /// For explanations; not part of the trace JSON (old traces stay as they were).
    #[serde(skip)]
    pub kv_sources: Option<Vec<Vec<Source>>>,
    /// The positional encoding added to the embeddings (`none` is not written).
    #[serde(default, skip_serializing_if = "Positional::is_none")]
    pub positional: Positional,
    /// RoPE's settings, when the queries and keys were rotated (`q_rot`, `k_rot`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rope: Option<Rope>,
    /// ALiBi's slope per head, when its bias was added (`alibi`, `biased`); empty otherwise.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub alibi_slopes: Vec<f64>,
    /// The factor the scores were multiplied by in place of `1/√d_k`, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scale: Option<f64>,
    /// Logit softcapping's `c`, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub softcap: Option<f64>,
    /// QK-norm's weights and ε, when the heads were normalised (`q_norm`, `k_norm`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub qk_norm: Option<crate::scenario::QkNorm>,
    /// The attention sinks' logits, one per head, when the softmax had them; empty
    /// otherwise. A `weights` row then sums to less than 1.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sinks: Vec<f64>,
    /// Multi-head latent attention's sizes (without its weights), when the keys and values
    /// came from a latent (`kv_a` … `k_cat`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mla: Option<crate::mla::Mla>,
    /// Names of the embedding dimensions when a lexicon space was used.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub feature_names: Option<Vec<Cow<'static, str>>>,
    /// B, T, d_model, h, d_k.
    pub sizes: Sizes,
    /// The mask that was applied.
    pub mask: MaskTrace,
    /// `[b, i]`: query rows in which every key is blocked.
    pub fully_masked_rows: Vec<[usize; 2]>,
    /// `[b, head, i]`: rows of `weights` that are NaN (only fully masked rows under `-inf`).
    pub nan_rows: Vec<[usize; 3]>,
    /// The number of attention layers (1 is not written).
    #[serde(default = "one", skip_serializing_if = "is_one")]
    pub n_layers: usize,
    /// The layer whose steps `steps` holds, counted from 1 (1 is not written).
    #[serde(default = "one", skip_serializing_if = "is_one")]
    pub layer: usize,
    /// With more than one layer, the whole residual stream: `resid[0]` (the embeddings,
    /// plus the positions) to `resid[n_layers]`, each `(B, T, d_model)`, flat and
    /// row-major as `(n_layers + 1, B, T, d_model)`. Empty (and not written) with one
    /// layer.
    #[serde(
        default,
        skip_serializing_if = "Vec::is_empty",
        serialize_with = "json::serialize_numbers",
        deserialize_with = "json::deserialize_flat"
    )]
    pub resid: Vec<f64>,
    /// Every tensor, in [`StepName::ALL`] order.
    pub steps: Vec<Step>,
    /// The projections the run used (seeded ones drawn out), for explanations and
    /// exports. Not part of the trace JSON: [`Trace::from_json`] leaves them empty
    /// (0 × 0), and the reader restores them with [`crate::weights::build`].
    #[serde(skip, default = "no_params")]
    pub params: std::sync::Arc<Weights>,
    /// Multi-head latent attention's weights the run used (seeded ones drawn out), for the
    /// absorbed scores ([`Trace::absorbed_scores`]) and exports. Not part of the
    /// trace JSON: [`Trace::from_json`] leaves it `None`.
    #[serde(skip)]
    pub mla_params: Option<std::sync::Arc<crate::mla::MlaParams>>,
}

impl Trace {
    /// The step with this name, if the trace has it.
    pub fn step(&self, name: StepName) -> Option<&Step> {
        self.steps.iter().find(|s| s.name == name)
    }

    /// The step with this JSON name (e.g. from a URL), if the trace has it.
    pub fn step_named(&self, name: &str) -> Option<&Step> {
        StepName::from_name(name).and_then(|n| self.step(n))
    }

    /// The keys that get the most of query `i`'s weight in `head` of sentence `b`,
    /// ascending: one key, or the keys that tie with it (within 1e-12, so that weights
    /// equal on paper but not in the last bit tie too). Empty for a NaN row (fully masked
    /// under `-inf`) and for indices out of range. "Which key gets the most weight?" has
    /// this one answer everywhere in the app (lessons, questions, the explanation panel).
    pub fn top_keys(&self, b: usize, head: usize, i: usize) -> Vec<usize> {
        let Some(m) = self.step(StepName::Weights).and_then(|s| s.matrix(b, head)) else { return vec![] };
        if i >= m.nrows() {
            return vec![];
        }
        let row = m.row(i);
        let Some(max) = row.iter().copied().filter(|v| v.is_finite()).reduce(f64::max) else { return vec![] };
        row.iter().enumerate().filter(|(_, v)| (max - **v).abs() <= 1e-12).map(|(j, _)| j).collect()
    }

    /// The layer's learned numbers, as the page writes them: the formula in the sizes'
    /// names and its value. The projections (see [`crate::weights::parameter_count_heads`]),
    /// then QK-norm's two weights (of `d_k`, or of `h·d_k` and `h_kv·d_k` over the whole
    /// projection) and one sink logit per head, when the run has them. `None` under MLA, whose projections have shapes of their own.
    pub fn parameters(&self) -> Option<(String, usize)> {
        use crate::weights::parameter_count_heads;
        if self.mla.is_some() {
            return None;
        }
        let z = &self.sizes;
        let (q_width, kv_width) = (z.n_heads * z.d_k, z.kv_heads() * z.d_k);
        let mut formula = if q_width != z.d_model {
            "2·d_model·h·d_k + h·d_k + d_model + 2·d_model·h_kv·d_k + 2·h_kv·d_k"
        } else if z.n_kv_heads.is_some() {
            "2·d_model² + 2·d_model·h_kv·d_k + 2·d_model + 2·h_kv·d_k"
        } else {
            "4·d_model² + 4·d_model"
        }
        .to_owned();
        let mut count = parameter_count_heads(z.d_model, q_width, kv_width);
        match &self.qk_norm {
            // OLMo 2: one weight over all the query heads' numbers, one over the keys'
            Some(n) if n.whole_projection => {
                formula.push_str(" + h·d_k + h_kv·d_k (QK-norm)");
                count += q_width + kv_width;
            }
            Some(_) => {
                formula.push_str(" + 2·d_k (QK-norm)");
                count += 2 * z.d_k;
            }
            None => {}
        }
        if !self.sinks.is_empty() {
            formula.push_str(" + h (sinks)");
            count += self.sinks.len();
        }
        Some((formula, count))
    }

    /// `resid[l]`, the residual stream entering layer `l + 1` (`l = n_layers`: after the
    /// last), `(B, T, d_model)`; `None` with one layer or `l` out of range.
    pub fn resid_at(&self, l: usize) -> Option<ndarray::ArrayView3<'_, f64>> {
        let z = &self.sizes;
        let len = z.b * z.t * z.d_model;
        let part = self.resid.get(l * len..(l + 1) * len)?;
        ndarray::ArrayView3::from_shape((z.b, z.t, z.d_model), part).ok()
    }

    /// The step's name as the page titles it: `layer 2 · weights` with more than one
    /// layer, `weights` with one; the embeddings and positions, which come before every
    /// layer, have no layer.
    pub fn step_title(&self, name: StepName) -> String {
        let before_the_layers =
            matches!(name, StepName::X | StepName::Pe | StepName::XPe | StepName::XKv | StepName::XKvPe);
        if self.n_layers > 1 && !before_the_layers {
            format!("layer {} · {name}", self.layer)
        } else {
            name.to_string()
        }
    }

    /// The learned numbers of every layer: [`Trace::parameters`]' count times `n_layers`
    /// (each layer has projections of its own). `None` under MLA.
    pub fn parameters_total(&self) -> Option<usize> {
        self.parameters().map(|(_, n)| n * self.n_layers)
    }

    /// True for cross-attention runs.
    pub fn is_cross(&self) -> bool {
        self.kv_tokens.is_some()
    }

    /// True when fewer key/value heads than query heads were used (`h_kv < h`).
    pub fn is_grouped(&self) -> bool {
        self.sizes.kv_heads() != self.sizes.n_heads
    }

    /// What the steps' axes depend on in this run.
    pub fn layout(&self) -> Layout {
        let z = &self.sizes;
        Layout {
            cross: self.is_cross(),
            grouped: self.is_grouped(),
            wide: z.n_heads * z.d_k != z.d_model,
            mla: self.mla.is_some(),
        }
    }

    /// The query tokens of sentence `b` (in self-attention, its tokens).
    pub fn query_tokens(&self, b: usize) -> &[String] {
        self.tokens.get(b).map_or(&[], Vec::as_slice)
    }

    /// The key/value tokens of sentence `b` (in self-attention, its tokens).
    pub fn key_tokens(&self, b: usize) -> &[String] {
        match &self.kv_tokens {
            Some(kv) => kv.get(b).map_or(&[], Vec::as_slice),
            None => self.query_tokens(b),
        }
    }

    /// The number of real (not `<pad>`) query tokens of sentence `b`.
    pub fn query_length(&self, b: usize) -> usize {
        self.lengths.get(b).copied().unwrap_or(0)
    }

    /// The number of real key/value tokens of sentence `b`.
    pub fn key_length(&self, b: usize) -> usize {
        match &self.kv_lengths {
            Some(kv) => kv.get(b).copied().unwrap_or(0),
            None => self.query_length(b),
        }
    }

    /// The tokens labelling rows or columns of role `role` for sentence `b`, or `None`
    /// for the feature axes.
    pub fn tokens_for(&self, role: Role, b: usize) -> Option<&[String]> {
        match role {
            Role::Queries => Some(self.query_tokens(b)),
            Role::Keys => Some(self.key_tokens(b)),
            Role::Features | Role::HeadFeatures => None,
        }
    }

    /// The size of an axis in this run.
    pub fn axis_len(&self, axis: Axis) -> usize {
        let z = &self.sizes;
        match axis {
            Axis::B => z.b,
            Axis::H => z.n_heads,
            Axis::T | Axis::TQ => z.t,
            Axis::TK => z.t_k.unwrap_or(z.t),
            Axis::DModel => z.d_model,
            Axis::DK => z.d_k,
            Axis::HKv => z.kv_heads(),
            Axis::KvWidth => z.kv_heads() * z.d_k,
            Axis::QWidth => z.n_heads * z.d_k,
            Axis::One => 1,
            Axis::Group => z.n_heads / z.kv_heads().max(1),
            Axis::QRank => self.mla.as_ref().and_then(|m| m.q_lora_rank).unwrap_or(0),
            Axis::KvRank => self.mla.as_ref().map_or(0, |m| m.kv_lora_rank),
            Axis::KvAWidth => self.mla.as_ref().map_or(0, |m| m.kv_lora_rank + m.qk_rope_head_dim),
            Axis::KvBWidth => {
                self.mla.as_ref().map_or(0, |m| z.n_heads * (m.qk_nope_head_dim + m.v_head_dim))
            }
            Axis::NopeV => self.mla.as_ref().map_or(0, |m| m.qk_nope_head_dim + m.v_head_dim),
            Axis::DNope => self.mla.as_ref().map_or(0, |m| m.qk_nope_head_dim),
            Axis::DRope => self.mla.as_ref().map_or(0, |m| m.qk_rope_head_dim),
            Axis::DV => self.mla.as_ref().map_or(0, |m| m.v_head_dim),
            Axis::VWidth => self.mla.as_ref().map_or(0, |m| z.n_heads * m.v_head_dim),
        }
    }

    /// Reads a trace written by [`Trace::to_json`]. `params` come back empty (0 × 0) and
    /// `kv_sources` as `None`: neither is in the JSON. Steps may omit their numbers (see
    /// [`Step::numbers_omitted`]).
    ///
    /// # Errors
    /// The JSON error, e.g. for a step whose numbers do not fit its shape.
    pub fn from_json(json: &str) -> Result<Self, serde_json::Error> {
        serde_json::from_str(json)
    }

    /// The trace as compact JSON, one line (pipe it through `python3 -m json.tool` to read).
    pub fn to_json(&self) -> String {
        // Every field serialises infallibly (non-finite numbers are written as strings).
        serde_json::to_string(self).unwrap_or_else(|e| format!("{{\"error\":\"{e}\"}}"))
    }
}

/// A named and numeric shape as the page and the lessons write it:
/// `(B, h, T, d_k) = (2, 2, 5, 4)`.
pub fn shape_text(dims: &[Axis], shape: &[usize]) -> String {
    let names: Vec<&str> = dims.iter().map(|a| a.as_str()).collect();
    let sizes: Vec<String> = shape.iter().map(usize::to_string).collect();
    format!("({}) = ({})", names.join(", "), sizes.join(", "))
}

fn one() -> usize {
    1
}

fn is_one(n: &usize) -> bool {
    *n == 1
}

fn no_params() -> std::sync::Arc<Weights> {
    std::sync::Arc::new(Weights::empty())
}
