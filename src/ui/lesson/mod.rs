//! The lessons mode: the panel, its stage (the step's picture), the words with their
//! glossary, the quiz, the aside table, the keys, and each lesson's own pictures
//! (embedding plot and editor, mask tables, position similarity, the wrong reshape).
//!
//! May import `state/`, `platform/`, `widgets/` and the views a step shows.

pub mod causal_corners;
pub mod embedding_editor;
pub mod embedding_plot;
pub mod glossary_panel;
pub mod lesson_aside;
pub mod lesson_keys;
pub mod lesson_open;
pub mod lesson_panel;
pub mod lesson_quiz;
pub mod lesson_stage;
pub mod lesson_steps;
pub mod lesson_tabs;
pub mod lesson_tools;
pub mod mask_conventions;
pub mod plot_data;
pub mod position_similarity;
pub mod split_both_ways;
