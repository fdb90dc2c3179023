//! Which matrix a heatmap card (and the explanation of one of its cells) is about.

use crate::engine::StepName;

/// Which heatmap a card shows: its key in the list of cards. A card with the same key
/// is kept across edits, so its keyboard cursor and its table stay where they were.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct CardId {
    /// The step.
    pub step: StepName,
    /// Sentence.
    pub batch: usize,
    /// Head (0 for steps without heads).
    pub head: usize,
}
