//! The attention engine: one pure function from a [`Scenario`] to a [`Trace`].
//!
//! ```text
//! sentences ──tokenize──▶ tokens (B×T, padded) ──embed──▶ x (B,T,d_model)
//!   ──W_Q,W_K,W_V──▶ q,k,v (B,T,d_model) ──view+transpose──▶ (B,h,T,d_k)
//!   ──QKᵀ──▶ scores (B,h,T,T) ──/√d_k──▶ scaled ──mask──▶ masked ──softmax──▶ weights
//!   ──@V──▶ context (B,h,T,d_k) ──transpose+view──▶ concat (B,T,d_model) ──W_O──▶ output
//! ```
//!
//! With `"positional": "sinusoidal"`, `x_pe = x + PE` (and `x_kv_pe` in cross-attention)
//! come right after `x` (and `x_kv`), and the projections read from them.
//!
//! Today's models change four things, each an option of the [`Scenario`] and a stage of
//! the run ([`stages`]): grouped-query attention (`n_kv_heads`: fewer key/value heads,
//! each repeated for its group, `k_rep`/`v_rep`), rotary positions (`rope`: `q_rot` and
//! `k_rot`, in either pairing convention), ALiBi (`alibi`: a per-head linear bias added
//! to the scaled scores, `alibi` and `biased`) and sliding windows (`mask.window`, with
//! StreamingLLM's kept first keys beside them, `mask.keep_first`).
//!
//! This crate depends on nothing web (no leptos, web-sys, wasm-bindgen or plotters: a
//! web import here does not compile), reads no clock and does no I/O. It never panics on
//! input: every problem is an [`EngineError`]. Every trace it returns passes
//! [`Trace::check_invariants`].

// The engine must never panic on input: no unwrap, expect, panic or unchecked slice
// indexing outside its unit tests.
#![cfg_attr(
    not(test),
    deny(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)
)]
#![deny(unsafe_code)]
#![warn(missing_docs)]

pub mod attention;
pub mod decode;
pub mod embedding;
pub mod error;
pub mod explain;
pub mod format;
pub mod invariants;
mod lanes;
pub mod limits;
pub mod mask;
pub mod matmul;
pub mod mla;
pub mod mla_option;
pub mod positional;
pub mod qk_norm;
pub mod reuse;
pub mod rope_option;
pub mod rope_scaling;
pub mod scenario;
pub mod stages;
pub mod step;
pub mod tiled;
pub mod tokenize;
pub mod trace;
pub mod train;
pub mod weights;

pub use decode::{decode, DecodeStep, Decoded};
pub use error::EngineError;
pub use explain::{
    explain, top_terms, BlockReason, ExplainError, Explanation, Kind, Operand, Param, Tensor, Term,
};
pub use invariants::InvariantError;
pub use scenario::{
    ExplicitWeights, Fill, MaskConfig, Mla, MlaWeights, Padding, Positional, ProjectionKind, Projections,
    QkNorm, Rope, RopeScaling, RopeStyle, Scenario,
};
pub use step::{Axis, Layout, Role, StepName, StepText};
pub use tiled::{tiled, Tile, Tiled};
pub use trace::{Reshape, Sizes, Step, Trace};

/// Runs multi-head scaled dot-product attention on a scenario and records every
/// step: `softmax(QKᵀ/√d_k + mask)V` for each head, then concat and `W_O`.
///
/// # Errors
/// Any [`EngineError`]: bad sizes, empty or too long input, wrong embedding or weight
/// shapes, non-finite numbers. Never panics.
pub fn run(scenario: &Scenario) -> Result<Trace, EngineError> {
    run_reusing(scenario, None)
}

/// [`run`], taking from `previous` the projections of every sentence whose input rows
/// did not change: typing in one of four long sentences projects one sentence instead
/// of four (the projections are most of the work). The trace is [`run`]'s, bit for bit;
/// `previous` may be any trace (one with other sizes or weights, or read from a file,
/// is not used). See [`reuse`].
///
/// # Errors
/// As [`run`].
pub fn run_reusing(scenario: &Scenario, previous: Option<&Trace>) -> Result<Trace, EngineError> {
    stages::run(scenario, previous)
}

/// What `x.view(B, h, T, d_k)` gives when the `transpose(1, 2)` is forgotten: the
/// numbers of a `(B, T, d_model)` step read straight into `(B, h, T, d_k)`. Row `t` of
/// "head i" is then not token `t`'s slice for head i, but whatever numbers come next in
/// memory. The shapes lesson shows it; the engine never uses it.
///
/// # Errors
/// As [`attention::head_width`], or [`EngineError::Reshape`] for a step that is not
/// `(B, T, d_model)`.
pub fn view_without_transpose(step: &Step, n_heads: usize) -> Result<ndarray::Array4<f64>, EngineError> {
    let [b, t, d_model] = step.shape.as_slice() else {
        return Err(EngineError::Reshape { op: "view", from: step.shape.clone(), to: vec![] });
    };
    let d_k = attention::head_width(*d_model, n_heads)?;
    attention::view(step.data.clone(), (*b, n_heads, *t, d_k))
}

/// Reads a scenario from JSON and runs it.
///
/// # Errors
/// [`EngineError::Json`] for unreadable JSON, then as [`run`].
pub fn run_json(scenario_json: &str) -> Result<Trace, EngineError> {
    run(&Scenario::from_json(scenario_json)?)
}
