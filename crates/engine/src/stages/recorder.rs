//! The steps a run records: [`Recorder`] gives each its words, PyTorch line and axes from
//! its name, and hands them back in [`StepName::ALL`] order.

use ndarray::ArrayD;

use super::Plan;
use crate::scenario::{Fill, Rope};
use crate::step::{Layout, StepName};
use crate::trace::{Reshape, Step};

/// The steps a run records, each with its words, PyTorch line and axes from its name.
pub struct Recorder {
    layout: Layout,
    fill: Fill,
    rope: Option<Rope>,
    d_model: usize,
    n_heads: usize,
    d_k: usize,
    steps: Vec<Step>,
}

impl Recorder {
    pub(super) fn new(plan: &Plan<'_>) -> Self {
        Self {
            layout: plan.layout(),
            fill: plan.fill(),
            rope: plan.scenario.rope,
            d_model: plan.d_model,
            n_heads: plan.n_heads,
            d_k: plan.d_k,
            steps: Vec::with_capacity(StepName::ALL.len()),
        }
    }

    /// Records step `name` with its numbers and the reshapes that led to it.
    pub(super) fn push(&mut self, name: StepName, shape_path: Vec<Reshape>, data: ArrayD<f64>) {
        self.steps.push(Step {
            name,
            op: name.words(self.d_model, self.n_heads, self.d_k, self.fill),
            pytorch: name.pytorch(self.fill, self.layout, self.rope.map(|r| r.style)),
            dims: name.dims_in(self.layout),
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
