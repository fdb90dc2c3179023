//! The challenges mode: the panel, the editors, the weights it checks, and its words
//! (`challenge_text`, plain Rust).
//!
//! May import `state/`, `platform/`, `widgets/` and the views it shows.

pub mod challenge_editors;
pub mod challenge_panel;
pub mod challenge_text;
pub mod challenge_weights;
