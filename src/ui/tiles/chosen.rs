//! The block a learner sets in a lesson step's tiles view, shared with the step's words:
//! the lesson stage provides it ([`provide_context`]), the tiles view reads and writes
//! it, and the lesson panel writes the step's words for it
//! ([`crate::lessons::LessonStep::words_at`]).

use leptos::prelude::*;

/// The block the learner set, with the lesson step it was set on (lesson and step,
/// counted from 0); `None` while every step shows its own block.
#[derive(Debug, Clone, Copy)]
pub struct ChosenBlock(RwSignal<Option<((usize, usize), usize)>>);

impl Default for ChosenBlock {
    fn default() -> Self {
        Self(RwSignal::new(None))
    }
}

impl ChosenBlock {
    /// The block the learner set on `step`, if they set one there (tracked).
    pub fn on(&self, step: Option<(usize, usize)>) -> Option<usize> {
        self.0.with(|c| c.filter(|(at, _)| Some(*at) == step).map(|(_, block)| block))
    }

    /// The learner sets `block` on `step`.
    pub fn set(&self, step: (usize, usize), block: usize) {
        self.0.set(Some((step, block)));
    }
}
