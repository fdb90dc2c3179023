//! Training an attention-only transformer, with every gradient written out by hand.
//!
//! The model is the "mathematical framework" form (Elhage et al. 2021): token embeddings
//! `E`, positions (none, the fixed sinusoids, or a learned table `P`), `n_layers` (1 to 4)
//! of multi-head attention with biases added to the residual stream
//! (`resid[l+1] = resid[l] + MHA_l(resid[l])`, no LayerNorm, no MLP), and an unembedding
//! `W_U`. The loss is the mean cross-entropy over the positions with a target (−1 = none).
//! Everything is f64, seeded and deterministic.
//!
//! - [`config`]: the JSON configuration, validated field by field;
//! - [`model`]: the parameters, one flat vector with named tensors, and their seeded init;
//! - [`ops`]: each stage's forward with its backward beside it (linear, scores, softmax
//!   with its Jacobian, attend, cross-entropy, embedding);
//! - [`forward`] (activations kept) and [`backward`] (the chain rule through them);
//! - [`optim`]: SGD, Adam and AdamW as `torch.optim` defines them;
//! - [`tasks`]: the seeded data generators;
//! - [`run`]: the training loop and the `trace --train` report;
//! - [`by_hand`]: one gradient step through one attention row, every intermediate kept
//!   (the lesson "How a head learns");
//! - [`history`]: a run recorded for telling (losses, each head's scores at checkpoints, the
//!   step each head formed, the trained model taken apart);
//! - [`analysis`]: ablation, K-composition, attention scores of trained heads, and a
//!   weight's gradient cell as the sum of its chain-rule terms.
//!
//! The attention is the engine's: the same mask rule (`crate::mask::blocked`), the same
//! scaling and softmax, the same sinusoids; a test checks that a layer's output equals
//! [`crate::run`]'s for the same weights.

pub mod analysis;
pub mod backward;
pub mod by_hand;
pub mod config;
pub mod forward;
pub mod history;
pub mod model;
pub mod ops;
pub mod optim;
pub mod run;
pub mod tasks;

#[cfg(test)]
mod tests;

pub use analysis::{
    ablate, circuit, evaluate, induction_score, previous_token_score, without_k_composition, CircuitReport,
    Evaluation, HeadEffect, KComposition,
};
pub use config::{OptimizerConfig, PositionKind, TaskKind, TrainConfig, TrainError};
pub use forward::{HeadId, Intervention};
pub use model::{Dims, Model, Named, Tensor};
pub use run::{nan_if_null, report, report_json, Report, Saved, StepStats, Trainer};
pub use tasks::{probe, Batch};
