//! The trace: every intermediate tensor of one run, with what the page needs to explain
//! it (the operation in words, the PyTorch line, the named and numeric shape).
//!
//! Serialised as JSON by [`Trace::to_json`]; non-finite numbers become the strings
//! `"NaN"`, `"Infinity"` and `"-Infinity"`, since JSON has no literal for them.

use ndarray::{ArrayD, ArrayView2, Axis};
use serde::ser::{SerializeSeq, Serializer};
use serde::Serialize;

use super::embedding::Source;
use super::scenario::MaskConfig;

/// The names of the steps, in the order they are computed.
pub const STEP_NAMES: [&str; 14] = [
    "x", "q", "k", "v", "q_heads", "k_heads", "v_heads", "scores", "scaled", "masked", "weights", "context",
    "concat", "output",
];

/// The sizes of the run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
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
}

/// One reshape on the way to a step's shape, e.g. `view` then `transpose(1, 2)`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Reshape {
    /// The PyTorch operation, e.g. `"view"`, `"transpose(1, 2)"`.
    pub op: &'static str,
    /// Axis names after the operation.
    pub dims: Vec<&'static str>,
    /// Sizes after the operation.
    pub shape: Vec<usize>,
}

/// One intermediate tensor.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Step {
    /// One of [`STEP_NAMES`].
    pub name: &'static str,
    /// The operation in words.
    pub op: String,
    /// The PyTorch line a reader of the tutorials would write.
    pub pytorch: String,
    /// Axis names, e.g. `["B", "h", "T", "d_k"]`.
    pub dims: Vec<&'static str>,
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
    /// True when the rows are key/value tokens (cross-attention's `x_kv`, `k`, `v`, …).
    pub fn rows_are_keys(&self) -> bool {
        let row_axis = if self.has_heads() { 2 } else { 1 };
        self.dims.get(row_axis) == Some(&"T_k")
    }

    /// True when the columns are key tokens (the `(·, T_q, T_k)` and `(·, T, T)` steps).
    pub fn cols_are_keys(&self) -> bool {
        matches!(self.dims.last(), Some(&"T") | Some(&"T_k"))
    }

    /// True for steps with a head axis, `(B, h, ·, ·)`.
    pub fn has_heads(&self) -> bool {
        self.dims.get(1) == Some(&"h")
    }

    /// The matrix shown for one sentence (and one head, for `(B, h, ·, ·)` steps): rows are
    /// tokens (queries), columns are features or keys. `None` if out of range.
    pub fn matrix(&self, b: usize, head: usize) -> Option<ArrayView2<'_, f64>> {
        if b >= self.shape.first().copied().unwrap_or(0) {
            return None;
        }
        let per_sentence = self.data.index_axis(Axis(0), b);
        let m = if self.has_heads() {
            if head >= self.shape.get(1).copied().unwrap_or(0) {
                return None;
            }
            per_sentence.index_axis_move(Axis(0), head)
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
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MaskTrace {
    /// The settings.
    #[serde(flatten)]
    pub config: MaskConfig,
    /// The number written into blocked scores.
    #[serde(serialize_with = "serialize_number")]
    pub fill_value: f64,
    /// Always `"true = blocked"`.
    pub convention: &'static str,
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
#[derive(Debug, Clone, PartialEq, Serialize)]
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
    /// Names of the embedding dimensions when a lexicon space was used.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub feature_names: Option<Vec<&'static str>>,
    /// B, T, d_model, h, d_k.
    pub sizes: Sizes,
    /// The mask that was applied.
    pub mask: MaskTrace,
    /// `[b, i]`: query rows in which every key is blocked.
    pub fully_masked_rows: Vec<[usize; 2]>,
    /// `[b, head, i]`: rows of `weights` that are NaN (only fully masked rows under `-inf`).
    pub nan_rows: Vec<[usize; 3]>,
    /// Every tensor, in [`STEP_NAMES`] order.
    pub steps: Vec<Step>,
}

impl Trace {
    /// The step with this name.
    pub fn step(&self, name: &str) -> Option<&Step> {
        self.steps.iter().find(|s| s.name == name)
    }

    /// The trace as compact JSON, one line (pipe it through `python3 -m json.tool` to read).
    pub fn to_json(&self) -> String {
        // Every field serialises infallibly (non-finite numbers are written as strings).
        serde_json::to_string(self).unwrap_or_else(|e| format!("{{\"error\":\"{e}\"}}"))
    }
}

/// A named and numeric shape as the page and the lessons write it:
/// `(B, h, T, d_k) = (2, 2, 5, 4)`.
pub fn shape_text(dims: &[&str], shape: &[usize]) -> String {
    let sizes: Vec<String> = shape.iter().map(usize::to_string).collect();
    format!("({}) = ({})", dims.join(", "), sizes.join(", "))
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

fn serialize_data<S: Serializer>(data: &ArrayD<f64>, s: S) -> Result<S::Ok, S::Error> {
    let mut seq = s.serialize_seq(Some(data.len()))?;
    for &v in data {
        seq.serialize_element(&Number(v))?;
    }
    seq.end()
}
