//! What the explanation panel remembers about the explained cell: the terms unfolded,
//! the guess typed and revealed, the key guessed, the copy status. Each is kept with the
//! cell it was given for, so a move to another cell starts afresh (folded terms, an empty
//! guess, no status) without an effect writing signals.

use leptos::prelude::*;

use crate::ui::explain::explained::Cell;

/// One value, valid for one cell.
type ForCell<T> = RwSignal<Option<(Cell, T)>>;

/// The panel's state for the explained cell.
#[derive(Clone, Copy)]
pub struct CellState {
    /// The explained cell.
    pub cell: RwSignal<Option<Cell>>,
    show_all: ForCell<()>,
    revealed: ForCell<()>,
    key_guess: ForCell<usize>,
    status: ForCell<String>,
    guess: ForCell<String>,
}

impl CellState {
    /// Nothing remembered yet.
    pub fn new(cell: RwSignal<Option<Cell>>) -> Self {
        Self {
            cell,
            show_all: RwSignal::new(None),
            revealed: RwSignal::new(None),
            key_guess: RwSignal::new(None),
            status: RwSignal::new(None),
            guess: RwSignal::new(None),
        }
    }

    /// The value given for the explained cell, if any.
    fn get<T: Clone + Send + Sync + 'static>(self, of: ForCell<T>) -> Option<T> {
        let here = self.cell.get()?;
        of.with(|v| v.as_ref().filter(|(c, _)| *c == here).map(|(_, t)| t.clone()))
    }

    /// Gives `value` for the explained cell (nothing when there is none).
    fn set<T: Send + Sync + 'static>(self, of: ForCell<T>, value: T) {
        if let Some(c) = self.cell.get_untracked() {
            of.set(Some((c, value)));
        }
    }

    /// Are all the terms shown, not only the largest?
    pub fn show_all(self) -> bool {
        self.get(self.show_all).is_some()
    }
    /// Shows all the terms, or only the largest.
    pub fn toggle_show_all(self) {
        if self.show_all() {
            self.show_all.set(None);
        } else {
            self.set(self.show_all, ());
        }
    }
    /// Has the guessed value been revealed?
    pub fn revealed(self) -> bool {
        self.get(self.revealed).is_some()
    }
    /// Reveals the value, or hides it again (`false`).
    pub fn set_revealed(self, revealed: bool) {
        if revealed {
            self.set(self.revealed, ());
        } else {
            self.revealed.set(None);
        }
    }
    /// The key guessed to get the most weight.
    pub fn key_guess(self) -> Option<usize> {
        self.get(self.key_guess)
    }
    /// Guesses key `k`.
    pub fn set_key_guess(self, k: usize) {
        self.set(self.key_guess, k);
    }
    /// The copy buttons' status line.
    pub fn status(self) -> String {
        self.get(self.status).unwrap_or_default()
    }
    /// Says how a copy went.
    pub fn set_status(self, text: String) {
        self.set(self.status, text);
    }
    /// The value typed as a guess.
    pub fn guess_text(self) -> String {
        self.get(self.guess).unwrap_or_default()
    }
    /// Types a guess.
    pub fn set_guess_text(self, text: String) {
        self.set(self.guess, text);
    }
}
