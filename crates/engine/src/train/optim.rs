//! The optimizers, exactly as `torch.optim` defines them (`_single_tensor_sgd` and
//! `_single_tensor_adam`, with `maximize=False`, `amsgrad=False`). Every update is
//! elementwise and every parameter shares the step count, so one flat vector behaves as
//! torch's list of tensors.
//!
//! - SGD: `g = grad + wd·p`; with momentum, `buf = g` on the first step, then
//!   `buf = momentum·buf + (1 − dampening)·g`; `g = g + momentum·buf` (Nesterov) or
//!   `g = buf`; `p = p − lr·g`.
//! - Adam: `g = grad + wd·p` (L2); `m = lerp(m, g, 1 − β1)`; `v = β2·v + (1 − β2)·g²`;
//!   `p = p − (lr / (1 − β1ᵗ))·m / (√v / √(1 − β2ᵗ) + eps)`.
//! - AdamW: `p = p·(1 − lr·wd)` first (decoupled decay), then Adam's step with no L2.

use super::config::OptimizerConfig;

/// An optimizer and its state.
#[derive(Debug, Clone, PartialEq)]
pub struct Optimizer {
    /// The settings.
    pub config: OptimizerConfig,
    /// Steps taken.
    pub steps: u64,
    /// SGD's momentum buffer, or Adam's `exp_avg`.
    first: Vec<f64>,
    /// Adam's `exp_avg_sq` (empty for SGD).
    second: Vec<f64>,
}

/// torch's `lerp`: `a + w·(b − a)` for `w < 0.5`, else `b − (b − a)·(1 − w)`.
fn lerp(a: f64, b: f64, w: f64) -> f64 {
    if w < 0.5 {
        a + w * (b - a)
    } else {
        b - (b - a) * (1.0 - w)
    }
}

impl Optimizer {
    /// A fresh optimizer for `n` parameters.
    pub fn new(config: OptimizerConfig, n: usize) -> Self {
        let second = if matches!(config, OptimizerConfig::Sgd { .. }) { 0 } else { n };
        Self { config, steps: 0, first: vec![0.0; n], second: vec![0.0; second] }
    }

    /// The numbers its state holds (its buffers' lengths): what keeping a copy costs.
    pub fn state_len(&self) -> usize {
        self.first.len() + self.second.len()
    }

    /// One update of `params` with `grads`.
    pub fn step(&mut self, params: &mut [f64], grads: &[f64]) {
        self.steps += 1;
        match self.config {
            OptimizerConfig::Sgd { lr, momentum, dampening, nesterov, weight_decay } => {
                let first_step = self.steps == 1;
                for ((p, &grad), buf) in params.iter_mut().zip(grads).zip(self.first.iter_mut()) {
                    let mut g = if weight_decay != 0.0 { grad + weight_decay * *p } else { grad };
                    if momentum != 0.0 {
                        *buf = if first_step { g } else { *buf * momentum + (1.0 - dampening) * g };
                        g = if nesterov { g + momentum * *buf } else { *buf };
                    }
                    *p += -lr * g;
                }
            }
            OptimizerConfig::Adam { lr, betas, eps, weight_decay } => {
                self.adam(params, grads, lr, betas, eps, weight_decay, 0.0)
            }
            OptimizerConfig::AdamW { lr, betas, eps, weight_decay } => {
                self.adam(params, grads, lr, betas, eps, 0.0, weight_decay)
            }
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn adam(
        &mut self,
        params: &mut [f64],
        grads: &[f64],
        lr: f64,
        betas: [f64; 2],
        eps: f64,
        l2: f64,
        decoupled: f64,
    ) {
        let [beta1, beta2] = betas;
        let step = self.steps as f64;
        let bias_correction1 = 1.0 - libm::pow(beta1, step);
        let bias_correction2 = 1.0 - libm::pow(beta2, step);
        let step_size = lr / bias_correction1;
        let bias_correction2_sqrt = bias_correction2.sqrt();
        for (((p, &grad), m), v) in
            params.iter_mut().zip(grads).zip(self.first.iter_mut()).zip(self.second.iter_mut())
        {
            if decoupled != 0.0 {
                *p *= 1.0 - lr * decoupled;
            }
            let g = if l2 != 0.0 { grad + l2 * *p } else { grad };
            *m = lerp(*m, g, 1.0 - beta1);
            *v = *v * beta2 + (1.0 - beta2) * g * g;
            let denom = v.sqrt() / bias_correction2_sqrt + eps;
            *p += -step_size * (*m / denom);
        }
    }
}
