//! The explanation panel: how one cell was computed, its terms, operand strip and code
//! (`explain_text` is plain Rust), and the explained cell shared through context.
//!
//! May import `state/`, `platform/`, `widgets/` and `heatmap::card_data` (a card's id).

pub mod explain_panel;
pub mod explain_text;
pub mod explained;
