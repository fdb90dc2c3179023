//! One heatmap card per head: the canvas and what it draws (`card_data`, plain Rust), its
//! table for screen readers, and the lesson's highlighted cells.
//!
//! May import `state/`, `platform/`, `widgets/` and `explain/` (a click explains a cell).

pub mod caption;
pub mod card;
pub mod card_data;
pub mod cursor;
pub mod highlight;
pub mod matrix_table;
pub mod overlays;
pub mod paint;
pub mod pictures;
