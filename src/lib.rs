//! Attention Lens: multi-head scaled dot-product attention, computed exactly in Rust and
//! shown step by step in the browser.
//!
//! - [`engine`]: pure Rust, scenario in, trace out. No web dependency.
//! - `draw`: plotters drawing, generic over any `DrawingBackend`.
//! - `ui`: Leptos components that render a trace and compute nothing.
//!
//! See ARCHITECTURE.md for the map and the invariants.

pub mod draw;
// The engine must never panic on input: no unwrap, expect, panic or unchecked slice
// indexing outside its unit tests.
#[cfg_attr(
    not(test),
    deny(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)
)]
pub mod engine;
pub mod lessons;
pub mod ui;
