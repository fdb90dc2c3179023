//! Reusing the previous trace's projections, so that an edit computes only what it
//! changed.
//!
//! A projection is computed one sentence at a time (`x_b @ W + b`,
//! [`attention::linear`]): when a sentence's input rows are, bit for bit, rows of a
//! sentence the previous trace projected with the same weights, its result is that
//! sentence's result, bit for bit (the same operations on the same numbers in the same
//! order). [`crate::run_reusing`] copies it instead. Typing in one of four long
//! sentences then runs the four projections (most of the engine's work) on one sentence
//! instead of four; the attention itself, which is cheaper, is computed again. The
//! output projection reads `concat`, so a sentence whose attention came out the same is
//! copied too.
//!
//! `tests/reuse.rs` checks on random pairs of scenarios (edits, swaps, added and removed
//! sentences, masks, fills, positions, weights, cross-attention) that a reusing run's
//! trace is a fresh run's, bit for bit.

use ndarray::{Array3, ArrayD, ArrayView2, Axis, Ix2};

use crate::attention;
use crate::step::StepName;
use crate::trace::Trace;
use crate::weights::{Linear, Weights};

/// The previous trace's projection inputs and outputs, `(B', T, ·)` each.
pub struct Previous<'a> {
    /// What the query projection read (`x`, or `x_pe`).
    pub x_in: &'a ArrayD<f64>,
    /// What the key and value projections read (`x_in` in self-attention).
    pub x_kv_in: &'a ArrayD<f64>,
    /// `q`.
    pub q: &'a ArrayD<f64>,
    /// `k`.
    pub k: &'a ArrayD<f64>,
    /// `v`.
    pub v: &'a ArrayD<f64>,
    /// What the output projection read.
    pub concat: &'a ArrayD<f64>,
    /// `output`.
    pub output: &'a ArrayD<f64>,
}

impl<'a> Previous<'a> {
    /// The parts of `prev` a run with `weights` can take from: `None` unless it was
    /// computed with the same weights (bit for bit), with positions added or not as this
    /// run, and in self- or cross-attention as this run. A trace read from a file has no
    /// weights (0 × 0) and is never used.
    pub fn of(prev: &'a Trace, weights: &Weights, positions: bool, cross: bool) -> Option<Self> {
        let same = std::ptr::eq(&*prev.params, weights) || same_weights(&prev.params, weights);
        if !same
            || (prev.positional == crate::Positional::Sinusoidal) != positions
            || prev.is_cross() != cross
        {
            return None;
        }
        let data = |name: StepName| prev.step(name).map(|s| &s.data);
        let x_in = data(if positions { StepName::XPe } else { StepName::X })?;
        let x_kv_in = match (cross, positions) {
            (false, _) => x_in,
            (true, false) => data(StepName::XKv)?,
            (true, true) => data(StepName::XKvPe)?,
        };
        Some(Self {
            x_in,
            x_kv_in,
            q: data(StepName::Q)?,
            k: data(StepName::K)?,
            v: data(StepName::V)?,
            concat: data(StepName::Concat)?,
            output: data(StepName::Output)?,
        })
    }
}

fn same_linear(a: &Linear, b: &Linear) -> bool {
    let bits = |x: &f64, y: &f64| x.to_bits() == y.to_bits();
    a.w.shape() == b.w.shape()
        && a.b.len() == b.b.len()
        && a.w.iter().zip(b.w.iter()).all(|(x, y)| bits(x, y))
        && a.b.iter().zip(b.b.iter()).all(|(x, y)| bits(x, y))
}

fn same_weights(a: &Weights, b: &Weights) -> bool {
    same_linear(&a.q, &b.q) && same_linear(&a.k, &b.k) && same_linear(&a.v, &b.v) && same_linear(&a.o, &b.o)
}

/// Sentence `j` of a `(B', T, ·)` tensor as a matrix, if there is one.
fn sentence(a: &ArrayD<f64>, j: usize) -> Option<ArrayView2<'_, f64>> {
    if a.ndim() != 3 || j >= a.len_of(Axis(0)) {
        return None;
    }
    a.index_axis(Axis(0), j).into_dimensionality::<Ix2>().ok()
}

/// [`attention::linear`], copying a sentence whose rows are, bit for bit, those of a
/// sentence of `known.0` (the same index first, then any), from that sentence of
/// `known.1`.
pub fn linear(x: &Array3<f64>, layer: &Linear, known: Option<(&ArrayD<f64>, &ArrayD<f64>)>) -> Array3<f64> {
    let Some((inputs, outputs)) = known else { return attention::linear(x, layer) };
    let count = inputs.len_of(Axis(0)).min(outputs.len_of(Axis(0)));
    let same = |a: ArrayView2<'_, f64>, b: ArrayView2<'_, f64>| {
        a.dim() == b.dim() && a.iter().zip(b.iter()).all(|(x, y)| x.to_bits() == y.to_bits())
    };
    attention::linear_or_known(x, layer, |i, x_b| {
        let fits = |j: usize| sentence(inputs, j).is_some_and(|old| same(x_b, old));
        let j = if i < count && fits(i) { Some(i) } else { (0..count).find(|&j| j != i && fits(j)) };
        j.and_then(|j| sentence(outputs, j))
    })
}
