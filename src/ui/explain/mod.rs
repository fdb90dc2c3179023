//! The explanation panel: how one cell was computed, its terms, operand strip and code
//! (`text` is plain Rust), and the explained cell shared through context. The `panel`
//! holds its parts: `guess`, `operands`, `terms`, `code`, with the per-cell `cell_state`.
//!
//! May import `state/`, `platform/`, `widgets/` and `heatmap::card_data` (a card's id).

pub mod cell_state;
pub mod code;
pub mod explained;
pub mod guess;
pub mod operands;
pub mod panel;
pub mod terms;
pub mod text;
