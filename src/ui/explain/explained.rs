//! The explained cell, shared by every card through context: which cell (if any) the
//! explanation panel is open on, and the engine's explanation of it for the shown trace.
//! The cards set it on Enter or a click and move it with the arrow keys; the panel
//! ([`crate::ui::explain::panel`]) and the tables read it.

use std::sync::Arc;

use leptos::prelude::*;

use crate::engine::explain::{explain, Explanation};
use crate::engine::{StepName, Trace};

use crate::ui::explain::text::trace_index;
use crate::ui::state::card_id::CardId;

/// A cell of a card: `(card, row, column)`.
pub type Cell = (CardId, usize, usize);

/// The explained cell (card, row, column), if any, and its explanation: one per page.
#[derive(Clone, Copy)]
pub struct Explained {
    /// The cell: set by the cards on Enter or a click, moved by the arrow keys.
    pub cell: RwSignal<Option<Cell>>,
    /// The engine's explanation of it, for the shown trace.
    pub explanation: Memo<Option<Result<Arc<Explanation>, String>>>,
    /// The trace it explains (the page's shown trace).
    pub trace: Memo<Option<Arc<Trace>>>,
    /// Is the learner guessing the explained cell's value ("Guess first", not yet
    /// revealed)? The panel sets it; the card and its table then hide what would give
    /// the answer away ([`Explained::hides`]).
    pub guessing: RwSignal<bool>,
}

impl Explained {
    /// The context for the page: the explanation follows the cell and the trace.
    pub fn new(trace: Memo<Option<Arc<Trace>>>) -> Self {
        let cell = RwSignal::new(None::<Cell>);
        let explanation = Memo::new_with_compare(
            move |_| {
                let (id, r, c) = cell.get()?;
                trace.with(|t| {
                    let t = t.as_ref()?;
                    Some(match trace_index(t, id, r, c) {
                        Some(index) => explain(t, id.step, &index).map(Arc::new).map_err(|e| e.to_string()),
                        None => Err("This cell is not in the current trace.".into()),
                    })
                })
            },
            // a new explanation whenever it was recomputed (NaN ≠ NaN would say so anyway)
            |_, _| true,
        );
        Self { cell, explanation, trace, guessing: RwSignal::new(false) }
    }

    /// The card whose cell the learner is guessing, if any (tracked). This is the one
    /// guessing flag: every view that shows that card's values (the card, its table and
    /// text alternative, the lines view, the first screen's caption) reads it through
    /// [`Explained::hides`] or [`Explained::hides_step`].
    pub fn guessed(&self) -> Option<CardId> {
        if !self.guessing.get() {
            return None;
        }
        self.cell.with(|e| e.map(|(id, _, _)| id))
    }

    /// Are card `id`'s numbers hidden while the learner guesses? All of them are, in the
    /// card that holds the guessed cell: another row may hold the same numbers (two
    /// tokens with one vector), and the colour bar's ends may be the cell's value.
    pub fn hides(&self, id: CardId) -> bool {
        self.guessed() == Some(id)
    }

    /// Are the values of `step` in sentence `batch` hidden (any head)? For the views
    /// that show every head of a step at once: the lines view, the first screen's caption.
    pub fn hides_step(&self, step: StepName, batch: usize) -> bool {
        self.guessed().is_some_and(|g| g.step == step && g.batch == batch)
    }

    /// Opens (or moves) the panel to a cell.
    pub fn open(&self, id: CardId, r: usize, c: usize) {
        self.cell.set(Some((id, r, c)));
    }

    /// The explained `(row, column)` if it is in card `id` (untracked).
    pub fn in_card_untracked(&self, id: CardId) -> Option<(usize, usize)> {
        self.cell.with_untracked(|e| e.filter(|(i, _, _)| *i == id).map(|(_, r, c)| (r, c)))
    }

    /// Closes the panel.
    pub fn close(&self) {
        self.cell.set(None);
    }
}
