//! The lessons mode: the panel, its stage (the step's picture), the words with their
//! glossary, the quiz, the aside table, the keys, and each lesson's own pictures
//! (embedding plot and editor, mask tables, position similarity, the wrong reshape, the MLA
//! cache bars, the induction lesson's figures).
//!
//! May import `state/`, `platform/`, `widgets/` and the views a step shows.

pub mod aside;
pub mod cache_bars;
pub mod causal_corners;
pub mod check_yourself;
pub mod embedding_editor;
pub mod embedding_plot;
pub mod glossary_panel;
pub mod induction;
pub mod induction_run;
pub mod induction_zoom;
pub mod keys;
pub mod mask_conventions;
pub mod open;
pub mod panel;
pub mod plot_data;
pub mod position_similarity;
pub mod quiz;
pub mod split_both_ways;
pub mod stage;
pub mod steps;
pub mod tabs;
pub mod tools;
