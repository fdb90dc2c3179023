//! Attention Lens: multi-head scaled dot-product attention, computed exactly in Rust and
//! shown step by step in the browser.
//!
//! - [`engine`]: the `attention-engine` crate (crates/engine): pure Rust, scenario in,
//!   trace out. No web dependency.
//! - `draw`: plotters drawing, generic over any `DrawingBackend`.
//! - `lessons`: the guided lessons, pure Rust, their words read from the trace.
//! - `ui`: Leptos components that render a trace and compute nothing.
//!
//! See ARCHITECTURE.md for the map and the invariants.

pub use attention_engine as engine;

pub mod challenges;
pub mod draw;
pub mod format;
pub mod lessons;
pub mod link;
pub mod ui;
