//! The Learn view: train a small attention-only transformer in the engine worker and
//! watch it learn. The settings and their link (`settings`, plain Rust), the
//! training run's page side (`run`: the worker, the slices of steps, the history),
//! the controls, the loss and accuracy curve, each head's attention map on the probe, and a
//! slider over the worker's checkpoints, the circuit taken apart (`circuit`: a head switched
//! off, K-composition), one weight's gradient cell explained, and the training
//! challenges (`challenge_bar`).
//! Every number shown is the engine's, reported by the worker.
//!
//! May import `state/`, `platform/` and `widgets/`.

pub mod challenge_bar;
pub mod circuit;
pub mod controls;
pub mod gradient_cell;
pub mod head_maps;
pub mod loss_curve;
pub mod run;
pub mod scrubber;
pub mod settings;
pub mod view;
