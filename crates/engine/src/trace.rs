//! The trace: every intermediate tensor of one run, with what the page needs to explain
//! it (the operation in words, the PyTorch line, the named and numeric shape).
//!
//! Serialised as JSON by [`Trace::to_json`]; non-finite numbers become the strings
//! `"NaN"`, `"Infinity"` and `"-Infinity"`, since JSON has no literal for them.

use std::borrow::Cow;

use ndarray::{ArrayD, ArrayView2, Axis as NdAxis, IxDyn};
use serde::de::{self, Deserializer, SeqAccess, Visitor};
use serde::ser::{SerializeSeq, Serializer};
use serde::{Deserialize, Serialize};

use crate::embedding::Source;
use crate::scenario::{MaskConfig, Positional, Rope};
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

/// One reshape on the way to a step's shape, e.g. `view` then `transpose(1, 2)`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Reshape {
    /// The PyTorch operation, e.g. `"view"`, `"transpose(1, 2)"` (borrowed when the
    /// engine writes it, owned when read back from JSON).
    pub op: Cow<'static, str>,
    /// Axis names after the operation.
    pub dims: Vec<Axis>,
    /// Sizes after the operation.
    pub shape: Vec<usize>,
}

/// One intermediate tensor.
///
/// Read back from JSON, `data` must have as many numbers as `shape` says, or none at all
/// (`"data": []`, a step sent without its numbers, as the page's worker does: see
/// [`Step::numbers_omitted`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "StepJson")]
pub struct Step {
    /// Which step this is.
    pub name: StepName,
    /// The operation in words.
    pub op: String,
    /// The PyTorch line a reader of the tutorials would write.
    pub pytorch: String,
    /// Axis names, e.g. `["B", "h", "T", "d_k"]`: always `name.dims_in(layout)`.
    pub dims: Vec<Axis>,
    /// Axis sizes, e.g. `[2, 4, 5, 2]`.
    pub shape: Vec<usize>,
    /// The intermediate shapes of the reshapes that lead here (empty for most steps).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub shape_path: Vec<Reshape>,
    /// The numbers, row-major.
    #[serde(serialize_with = "serialize_data")]
    pub data: ArrayD<f64>,
}

impl Step {
    /// True when this step was read from JSON without its numbers (`"data": []` for a
    /// shape that is not empty): the reader fills `data` itself.
    pub fn numbers_omitted(&self) -> bool {
        self.data.is_empty() && self.shape.iter().product::<usize>() != 0
    }

    /// True when the rows are key/value tokens (`x_kv`, `k`, `v`, `k_heads`, `v_heads`).
    pub fn rows_are_keys(&self) -> bool {
        self.name.rows() == Role::Keys
    }

    /// True when the columns are key tokens (the `(B, h, T_q, T_k)` steps).
    pub fn cols_are_keys(&self) -> bool {
        self.name.cols() == Role::Keys
    }

    /// True for steps with a head axis, `(B, h, ·, ·)`.
    pub fn has_heads(&self) -> bool {
        self.name.has_heads()
    }

    /// Sentences in this step's first axis: B, or 1 for the broadcast `pe`.
    fn batch_len(&self) -> usize {
        self.shape.first().copied().unwrap_or(0)
    }

    /// The matrix shown for one sentence (and one head, for `(B, h, ·, ·)` steps): rows are
    /// tokens (queries), columns are features or keys. `None` if out of range.
    pub fn matrix(&self, b: usize, head: usize) -> Option<ArrayView2<'_, f64>> {
        // `pe` has a batch axis of 1, broadcast over every sentence.
        let b = if self.dims.first() == Some(&Axis::One) { 0 } else { b };
        if b >= self.batch_len() {
            return None;
        }
        let per_sentence = self.data.index_axis(NdAxis(0), b);
        let m = if self.has_heads() {
            if head >= self.shape.get(1).copied().unwrap_or(0) {
                return None;
            }
            per_sentence.index_axis_move(NdAxis(0), head)
        } else {
            per_sentence
        };
        m.into_dimensionality().ok()
    }

    /// The sum of row `i` of [`Step::matrix`]: 1 for every unmasked row of `weights`.
    pub fn row_sum(&self, b: usize, head: usize, i: usize) -> Option<f64> {
        let m = self.matrix(b, head)?;
        (i < m.nrows()).then(|| m.row(i).sum())
    }
}

/// What was blocked, in the engine's convention: `true` = blocked.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MaskTrace {
    /// The settings.
    #[serde(flatten)]
    pub config: MaskConfig,
    /// The number written into blocked scores.
    #[serde(serialize_with = "serialize_number", deserialize_with = "deserialize_number")]
    pub fill_value: f64,
    /// Always `"true = blocked"`.
    pub convention: Cow<'static, str>,
    /// `[B, T, T]`; `unsqueeze(1)` makes it `[B, 1, T, T]`, broadcast over the heads.
    pub shape: [usize; 3],
    /// Row-major `[b][query][key]`.
    pub blocked: Vec<bool>,
}

impl MaskTrace {
    /// Is query `i` of sentence `b` blocked from key `j`?
    pub fn is_blocked(&self, b: usize, i: usize, j: usize) -> bool {
        let [_, t_q, t_k] = self.shape;
        self.blocked.get((b * t_q + i) * t_k + j).copied().unwrap_or(false)
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
    /// Every tensor, in [`StepName::ALL`] order.
    pub steps: Vec<Step>,
    /// The projections the run used (seeded ones drawn out), for explanations and
    /// exports. Not part of the trace JSON: [`Trace::from_json`] leaves them empty
    /// (0 × 0), and the reader restores them with [`crate::weights::build`].
    #[serde(skip, default = "no_params")]
    pub params: std::sync::Arc<Weights>,
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
        Layout { cross: self.is_cross(), grouped: self.is_grouped() }
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
            Axis::One => 1,
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

/// Writes a number, or `"NaN"`, `"Infinity"`, `"-Infinity"` for the non-finite ones.
fn serialize_number<S: Serializer>(v: &f64, s: S) -> Result<S::Ok, S::Error> {
    if v.is_finite() {
        s.serialize_f64(*v)
    } else {
        s.serialize_str(non_finite_name(*v))
    }
}

/// The JSON (and JavaScript) spelling of a non-finite number.
pub fn non_finite_name(v: f64) -> &'static str {
    if v.is_nan() {
        "NaN"
    } else if v > 0.0 {
        "Infinity"
    } else {
        "-Infinity"
    }
}

struct Number(f64);

impl Serialize for Number {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        serialize_number(&self.0, s)
    }
}

/// Reads a number, or `"NaN"`, `"Infinity"`, `"-Infinity"`.
fn deserialize_number<'de, D: Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
    d.deserialize_any(NumberVisitor)
}

struct NumberVisitor;

impl Visitor<'_> for NumberVisitor {
    type Value = f64;
    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a number or \"NaN\", \"Infinity\", \"-Infinity\"")
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<f64, E> {
        Ok(v)
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<f64, E> {
        Ok(v as f64)
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<f64, E> {
        Ok(v as f64)
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<f64, E> {
        match v {
            "NaN" => Ok(f64::NAN),
            "Infinity" => Ok(f64::INFINITY),
            "-Infinity" => Ok(f64::NEG_INFINITY),
            _ => Err(E::invalid_value(de::Unexpected::Str(v), &self)),
        }
    }
}

impl<'de> Deserialize<'de> for Number {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        deserialize_number(d).map(Number)
    }
}

/// Reads `data` as a flat list of numbers.
fn deserialize_flat<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<f64>, D::Error> {
    struct Flat;
    impl<'de> Visitor<'de> for Flat {
        type Value = Vec<f64>;
        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("a list of numbers")
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<f64>, A::Error> {
            let mut out = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(1 << 20));
            while let Some(Number(v)) = seq.next_element()? {
                out.push(v);
            }
            Ok(out)
        }
    }
    d.deserialize_seq(Flat)
}

/// A step as JSON has it: `data` flat, shaped by `shape` in [`Step`]'s `TryFrom`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct StepJson {
    name: StepName,
    op: String,
    pytorch: String,
    dims: Vec<Axis>,
    shape: Vec<usize>,
    #[serde(default)]
    shape_path: Vec<Reshape>,
    #[serde(deserialize_with = "deserialize_flat")]
    data: Vec<f64>,
}

impl TryFrom<StepJson> for Step {
    type Error = String;
    fn try_from(j: StepJson) -> Result<Self, String> {
        let data = if j.data.is_empty() {
            ArrayD::zeros(IxDyn(&[0]))
        } else {
            ArrayD::from_shape_vec(IxDyn(&j.shape), j.data).map_err(|e| {
                format!("step {}: its numbers do not fit the shape {:?} ({e})", j.name, j.shape)
            })?
        };
        Ok(Step {
            name: j.name,
            op: j.op,
            pytorch: j.pytorch,
            dims: j.dims,
            shape: j.shape,
            shape_path: j.shape_path,
            data,
        })
    }
}

fn no_params() -> std::sync::Arc<Weights> {
    std::sync::Arc::new(Weights::empty())
}

fn serialize_data<S: Serializer>(data: &ArrayD<f64>, s: S) -> Result<S::Ok, S::Error> {
    let mut seq = s.serialize_seq(Some(data.len()))?;
    for &v in data {
        seq.serialize_element(&Number(v))?;
    }
    seq.end()
}

/// A tensor on its own as JSON: `{"shape": [...], "data": [...]}`, the numbers row-major
/// and the non-finite ones as strings, as in a trace's steps (for `trace --decode` and
/// `trace --tiled`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TensorJson {
    /// Axis sizes.
    pub shape: Vec<usize>,
    /// The numbers, row-major.
    #[serde(serialize_with = "serialize_data")]
    pub data: ArrayD<f64>,
}

impl<D: ndarray::Dimension> From<ndarray::Array<f64, D>> for TensorJson {
    fn from(a: ndarray::Array<f64, D>) -> Self {
        let a = a.into_dyn();
        Self { shape: a.shape().to_vec(), data: a.as_standard_layout().into_owned() }
    }
}

/// A list of numbers as JSON, the non-finite ones as strings.
pub(crate) fn serialize_numbers<S: Serializer>(v: &[f64], s: S) -> Result<S::Ok, S::Error> {
    let mut seq = s.serialize_seq(Some(v.len()))?;
    for &x in v {
        seq.serialize_element(&Number(x))?;
    }
    seq.end()
}
