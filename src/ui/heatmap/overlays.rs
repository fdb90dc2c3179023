//! What a card outlines over its canvas: the cursor's cell, the explained cell and the
//! cells its explanation reads, and the lesson's highlighted cells. Positions come from
//! the card's [`Layout`], scaled by its zoom.

use std::sync::Arc;

use leptos::prelude::*;

use crate::draw::Layout;
use crate::engine::Trace;
use crate::ui::explain::explained::Explained;
use crate::ui::explain::text::outlines;
use crate::ui::state::card_id::CardId;

/// The CSS box of cells `r0..r1` × `c0..c1` at `zoom`.
fn cells_box(l: &Layout, zoom: f64, (r0, r1): (usize, usize), (c0, c1): (usize, usize)) -> String {
    let (x0, y0, side) = l.cell_rect(r0, c0);
    let (x1, y1, _) = l.cell_rect(r1.saturating_sub(1), c1.saturating_sub(1));
    let (w, h) = ((x1 - x0 + side) * zoom, (y1 - y0 + side) * zoom);
    format!("left:{}px;top:{}px;width:{w}px;height:{h}px", x0 * zoom, y0 * zoom)
}

/// The outlines over one card's canvas.
#[component]
pub fn CardOverlays(
    /// The shown trace.
    #[prop(into)]
    trace: Signal<Option<Arc<Trace>>>,
    /// The card.
    id: CardId,
    /// The card's layout, in layout pixels.
    layout: Memo<Option<Layout>>,
    /// How much larger than its layout the card is drawn.
    zoom: Memo<f64>,
    /// The cell under the pointer or the keyboard cursor, inside the matrix.
    #[prop(into)]
    cursor: Signal<Option<(usize, usize)>>,
    /// The explained cell, when the explanation panel is open on this card.
    explained_here: Memo<Option<(usize, usize)>>,
) -> impl IntoView {
    let explained = use_context::<Explained>();
    let in_grid = move |l: &Layout, (r, c): (usize, usize)| r < l.n_rows && c < l.n_cols;
    // the explained cell and the cells it reads
    let marks = move || {
        let e = explained?;
        let (r, c) = explained_here.get()?;
        let z = zoom.get();
        let (ops, own) = layout.with(|l| {
            let l = l.as_ref()?;
            let ops: Vec<(String, bool)> = e.explanation.with(|ex| {
                let Some(Ok(ex)) = ex else { return vec![] };
                trace.with(|t| {
                    t.as_ref().map_or(vec![], |t| {
                        outlines(t, ex, id)
                            .into_iter()
                            .filter(|o| o.rows.1 <= l.n_rows && o.cols.1 <= l.n_cols)
                            .map(|o| (cells_box(l, z, o.rows, o.cols), o.same_positions))
                            .collect()
                    })
                })
            });
            let own = in_grid(l, (r, c)).then(|| cells_box(l, z, (r, r + 1), (c, c + 1)));
            Some((ops, own))
        })?;
        Some(view! {
            {ops
                .into_iter()
                .map(|(style, same)| {
                    view! {
                        <div
                            class="al-operand"
                            class:al-operand-same=same
                            data-testid="operand-outline"
                            style=style
                        ></div>
                    }
                })
                .collect_view()}
            {own
                .map(|style| {
                    view! { <div class="al-ex-cell" data-testid="explained-outline" style=style></div> }
                })}
        })
    };
    let outline = move || {
        let (r, c) = cursor.get()?;
        let z = zoom.get();
        layout.with(|l| l.as_ref().map(|l| cells_box(l, z, (r, r + 1), (c, c + 1))))
    };
    // the lesson's highlighted cells
    let highlighted = crate::ui::heatmap::highlight::cells_of(id);
    let highlight_boxes = move || {
        let z = zoom.get();
        let boxes: Vec<String> = layout.with(|l| {
            let Some(l) = l.as_ref() else { return Vec::new() };
            highlighted.with(|h| {
                h.iter()
                    .filter(|&&cell| in_grid(l, cell))
                    .map(|&(r, c)| cells_box(l, z, (r, r + 1), (c, c + 1)))
                    .collect()
            })
        });
        boxes
            .into_iter()
            .map(|style| view! { <div class="al-highlight-cell" data-testid="highlight" style=style></div> })
            .collect_view()
    };
    // while the learner guesses: the grid and the colour bar covered, and a "?" on the
    // guessed cell (the labels stay, to read which cell it is)
    let cover = move || {
        let e = explained?;
        let (r, c) = explained_here.get()?;
        if !e.guessing.get() {
            return None;
        }
        let z = zoom.get();
        let (all, asked) = layout.with(|l| {
            let l = l.as_ref().filter(|l| in_grid(l, (r, c)))?;
            let all = format!(
                "left:{}px;top:{}px;width:{}px;height:{}px",
                l.left * z,
                l.top * z,
                (l.width - l.left) * z,
                (l.height - l.top) * z
            );
            Some((all, cells_box(l, z, (r, r + 1), (c, c + 1))))
        })?;
        Some(view! {
            <div class="al-guess-cover" data-testid="guess-cover" style=all aria-hidden="true"></div>
            <div class="al-guess-cell" style=asked aria-hidden="true">
                "?"
            </div>
        })
    };
    view! {
        <div class="al-cursor" style=outline hidden=move || cursor.with(Option::is_none)></div>
        {marks}
        {cover}
        {highlight_boxes}
    }
}
