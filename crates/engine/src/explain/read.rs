//! Reading the trace without panicking: a cell, a weight or bias, an index of the
//! expected rank, a token's text; anything missing is [`ExplainError::Inconsistent`].

use ndarray::IxDyn;

use super::explanation::{ExplainError, Param};
use super::write::comma;
use crate::step::StepName;
use crate::trace::Trace;
use crate::weights::Linear;

pub(super) fn inconsistent<T>(what: String) -> Result<T, ExplainError> {
    Err(ExplainError::Inconsistent(what))
}

/// The trace's value of one cell.
pub(super) fn cell(trace: &Trace, step: StepName, index: &[usize]) -> Result<f64, ExplainError> {
    let Some(s) = trace.step(step) else {
        return inconsistent(format!("step \"{step}\" is missing"));
    };
    match s.data.get(IxDyn(index)) {
        Some(&v) => Ok(v),
        None => inconsistent(format!("{step}[{}] is outside its data", comma(index))),
    }
}

pub(super) fn weight(layer: &Linear, name: Param, row: usize, col: usize) -> Result<f64, ExplainError> {
    match layer.w().get((row, col)) {
        Some(&v) => Ok(v),
        None => inconsistent(format!("{}[{row},{col}] is missing from the parameters", name.as_str())),
    }
}

pub(super) fn bias(layer: &Linear, name: Param, col: usize) -> Result<f64, ExplainError> {
    match layer.b().get(col) {
        Some(&v) => Ok(v),
        None => inconsistent(format!("{}[{col}] is missing from the parameters", name.as_str())),
    }
}

pub(super) fn three(index: &[usize]) -> Result<[usize; 3], ExplainError> {
    match *index {
        [a, b, c] => Ok([a, b, c]),
        _ => inconsistent(format!("expected 3 indices, got {}", index.len())),
    }
}

pub(super) fn four(index: &[usize]) -> Result<[usize; 4], ExplainError> {
    match *index {
        [a, b, c, d] => Ok([a, b, c, d]),
        _ => inconsistent(format!("expected 4 indices, got {}", index.len())),
    }
}

pub(super) fn token(tokens: &[String], t: usize) -> String {
    tokens.get(t).map_or_else(|| format!("#{t}"), |s| format!("“{s}”"))
}
