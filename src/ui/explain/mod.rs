//! The explanation panel: how one cell was computed, its terms, operand strip and code
//! (`text` is plain Rust), and the explained cell shared through context.
//!
//! May import `state/`, `platform/`, `widgets/` and `heatmap::card_data` (a card's id).

pub mod explained;
pub mod panel;
pub mod text;
