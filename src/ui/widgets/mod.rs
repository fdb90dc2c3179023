//! Small components and helpers shared by several features: a deferred part of the page,
//! label fitting, a note in place of a figure, answer buttons, a challenge's hints, a scrollable region, a section named by its heading, tables' header rows, words whose "-inf" never breaks, the check line and head picker of the decode and
//! tiles views.
//!
//! Shared: imports `platform/` only, never a feature folder.

pub mod check_line;
pub mod choices;
pub mod decimal_entry;
pub mod fields;
pub mod head_options;
pub mod hints;
pub mod later;
pub mod note;
pub mod scroll_region;
pub mod section;
pub mod stepper;
pub mod table_head;
pub mod text_fit;
pub mod unbroken;
