//! The cells a lesson step points at ([`crate::lessons::Cell`]), shared with every heatmap
//! card through context: a card outlines its own cells and its table marks them.

use std::collections::BTreeSet;

use leptos::prelude::*;

use crate::lessons::Cell;

use crate::ui::state::card_id::CardId;

/// The highlighted cells of the open lesson step (empty outside the lessons).
#[derive(Debug, Clone, Copy)]
pub struct Highlights(pub Signal<Vec<Cell>>);

/// The `(row, col)` cells of one card, from the context (none without one): one memo
/// per card, so a lesson step that moves another card's cells does not wake this one.
pub fn cells_of(id: CardId) -> Memo<BTreeSet<(usize, usize)>> {
    let all = use_context::<Highlights>();
    Memo::new(move |_| {
        all.map(|h| {
            h.0.with(|cells| {
                cells
                    .iter()
                    .filter(|c| c.step == id.step && c.batch == id.batch && c.head == id.head)
                    .map(|c| (c.row, c.col))
                    .collect()
            })
        })
        .unwrap_or_default()
    })
}
