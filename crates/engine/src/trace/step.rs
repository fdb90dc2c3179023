//! One intermediate tensor, [`Step`] (with the [`Reshape`]s that lead to its shape), and
//! how it is read back from JSON: `data` flat, shaped by `shape`, or omitted.

use std::borrow::Cow;

use ndarray::{ArrayD, ArrayView2, Axis as NdAxis, IxDyn};
use serde::{Deserialize, Serialize};

use super::json::{deserialize_flat, serialize_data};
use crate::step::{Axis, Role, StepName};

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
