//! The challenges mode: the panel, the editors, the weights it checks, and its words
//! (`text`, plain Rust).
//!
//! May import `state/`, `platform/`, `widgets/` and the views it shows.

pub mod editors;
pub mod induction;
pub mod panel;
pub mod text;
pub mod weights;
