//! The steps a run records: [`Recorder`] gives each its words, PyTorch line and axes from
//! its name, and hands them back in [`StepName::ALL`] order.

use ndarray::ArrayD;

use super::Plan;
use crate::step::{StepName, StepText};
use crate::trace::{Reshape, Step};

/// The steps a run records, each with its words, PyTorch line and axes from its name.
pub struct Recorder {
    text: StepText,
    steps: Vec<Step>,
}

impl Recorder {
    pub(super) fn new(plan: &Plan<'_>) -> Self {
        Self { text: plan.step_text(), steps: Vec::with_capacity(StepName::ALL.len()) }
    }

    /// Records step `name` with its numbers and the reshapes that led to it.
    pub(super) fn push(&mut self, name: StepName, shape_path: Vec<Reshape>, data: ArrayD<f64>) {
        self.steps.push(Step {
            name,
            op: name.words(&self.text),
            pytorch: name.pytorch(&self.text),
            dims: name.dims_in(self.text.layout),
            shape: data.shape().to_vec(),
            shape_path,
            data,
        });
    }

    /// The steps in [`StepName::ALL`] order, whatever order the stages recorded them in.
    pub(super) fn into_steps(mut self) -> Vec<Step> {
        self.steps.sort_by_key(|s| s.name);
        self.steps
    }
}
