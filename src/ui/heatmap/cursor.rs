//! A card's cursor: the cell under the pointer or moved by the arrow keys, kept inside
//! the matrix when it shrinks; Enter or a click explains the cell, Escape closes the
//! explanation.

use leptos::prelude::*;

use crate::draw::Layout;
use crate::ui::explain::explained::Explained;
use crate::ui::state::card_id::CardId;

/// One card's cursor.
#[derive(Clone, Copy)]
pub struct CardCursor {
    /// The cell, as last set; it may lie outside a matrix that shrank since.
    pub cell: RwSignal<Option<(usize, usize)>>,
    /// The card's rows and columns.
    pub dims: Signal<(usize, usize)>,
    layout: Memo<Option<Layout>>,
    zoom: Memo<f64>,
    explained: Option<Explained>,
    id: CardId,
}

impl CardCursor {
    /// A cursor on no cell; the explanation panel is the page's ([`Explained`] context).
    pub fn new(
        id: CardId,
        dims: Signal<(usize, usize)>,
        layout: Memo<Option<Layout>>,
        zoom: Memo<f64>,
    ) -> Self {
        Self { cell: RwSignal::new(None), dims, layout, zoom, explained: use_context::<Explained>(), id }
    }

    /// The cell, moved inside the matrix if it shrank under it; `None` for an empty one.
    pub fn clamped(self) -> Option<(usize, usize)> {
        let (n_rows, n_cols) = self.dims.get();
        self.cell
            .get()
            .filter(|_| n_rows > 0 && n_cols > 0)
            .map(|(r, c)| (r.min(n_rows - 1), c.min(n_cols - 1)))
    }

    /// The cell under the pointer, if any.
    fn at_pointer(self, ev: &leptos::ev::MouseEvent) -> Option<(usize, usize)> {
        // in the page's layout px (presenter mode's zoom undone), then the card's own zoom
        let (x, y) = crate::ui::platform::screen::layout_offset(ev);
        let z = self.zoom.get_untracked();
        self.layout.with_untracked(|l| l.as_ref().and_then(|l| l.cell_at(x / z, y / z)))
    }

    /// The cursor follows the pointer.
    pub fn on_move(self, ev: leptos::ev::MouseEvent) {
        self.cell.set(self.at_pointer(&ev));
    }

    /// A click explains the cell under the pointer.
    pub fn on_click(self, ev: leptos::ev::MouseEvent) {
        if let (Some((r, c)), Some(e)) = (self.at_pointer(&ev), self.explained) {
            self.cell.set(Some((r, c)));
            e.open(self.id, r, c);
        }
    }

    /// Arrows move the cursor (and the explanation, while it is open on this card);
    /// Enter explains the cell; Escape closes the explanation.
    pub fn on_key(self, ev: leptos::ev::KeyboardEvent) {
        let (n_rows, n_cols) = self.dims.get_untracked();
        if n_rows == 0 || n_cols == 0 {
            return;
        }
        let here = self.explained.and_then(|e| e.in_card_untracked(self.id));
        let (r, c) = here.or_else(|| self.clamped_untracked()).unwrap_or((0, 0));
        match (ev.key().as_str(), self.explained) {
            ("Enter", Some(e)) => {
                ev.prevent_default();
                e.open(self.id, r, c);
                return;
            }
            ("Escape", Some(e)) if here.is_some() => {
                ev.prevent_default();
                e.close();
                return;
            }
            _ => {}
        }
        let next = match ev.key().as_str() {
            "ArrowUp" => (r.saturating_sub(1), c),
            "ArrowDown" => ((r + 1).min(n_rows - 1), c),
            "ArrowLeft" => (r, c.saturating_sub(1)),
            "ArrowRight" => (r, (c + 1).min(n_cols - 1)),
            _ => return,
        };
        ev.prevent_default();
        self.cell.set(Some(next));
        if let (Some(e), Some(_)) = (self.explained, here) {
            e.open(self.id, next.0, next.1);
        }
    }

    fn clamped_untracked(self) -> Option<(usize, usize)> {
        untrack(|| self.clamped())
    }
}
