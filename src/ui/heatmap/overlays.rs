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

/// The CSS boxes that hide a card's numbers while the learner guesses, at `zoom`: the
/// grid and the colour bar from one CSS px above and left of the grid (its edge pixels and
/// a rounding sliver), and the colour bar's column up to the canvas top (its top tick
/// label stands above the grid). The labels left of and above the grid stay.
fn guess_cover_boxes(l: &Layout, zoom: f64) -> [String; 2] {
    let px = |v: f64| v * zoom;
    let (left, top) = ((l.left - 1.0).max(0.0), (l.top - 1.0).max(0.0));
    let grid_right = l.left + l.n_cols as f64 * l.cell + 1.0;
    [
        format!(
            "left:{}px;top:{}px;width:{}px;height:{}px",
            px(left),
            px(top),
            px(l.width - left),
            px(l.height - top)
        ),
        format!(
            "left:{}px;top:0px;width:{}px;height:{}px",
            px(grid_right),
            px((l.width - grid_right).max(0.0)),
            px(top)
        ),
    ]
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
        let ([grid, bar], asked) = layout.with(|l| {
            let l = l.as_ref().filter(|l| in_grid(l, (r, c)))?;
            Some((guess_cover_boxes(l, z), cells_box(l, z, (r, r + 1), (c, c + 1))))
        })?;
        Some(view! {
            <div class="al-guess-cover" data-testid="guess-cover" style=grid aria-hidden="true"></div>
            <div class="al-guess-cover" style=bar aria-hidden="true"></div>
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The covers reach past the grid's edge pixels and over the colour bar's top label,
    /// and leave the row and column labels.
    #[test]
    fn the_guess_covers_hide_the_grid_edges_and_the_bars_top_label() {
        let l = Layout {
            n_rows: 6,
            n_cols: 6,
            left: 30.3,
            top: 36.3,
            cell: 50.0,
            font: 12.0,
            bar_x: 338.3,
            width: 449.0,
            height: 381.0,
            min_number_font: 8.0,
        };
        let [grid, bar] = guess_cover_boxes(&l, 1.0);
        let n = |s: &str, key: &str| -> f64 {
            let v = s.split(';').find_map(|kv| kv.strip_prefix(&format!("{key}:"))).unwrap();
            v.trim_end_matches("px").parse().unwrap()
        };
        assert!(n(&grid, "left") < l.left && n(&grid, "left") > l.left - 2.0);
        assert!(n(&grid, "top") < l.top && n(&grid, "top") > l.top - 2.0);
        assert!((n(&grid, "left") + n(&grid, "width") - l.width).abs() < 1e-9);
        assert!((n(&grid, "top") + n(&grid, "height") - l.height).abs() < 1e-9);
        // the bar's column, from the canvas top down to the grid cover, right of the columns' labels
        assert_eq!(n(&bar, "top"), 0.0);
        assert!(n(&bar, "left") > l.left + 6.0 * l.cell && n(&bar, "left") <= l.bar_x);
        assert!((n(&bar, "height") - n(&grid, "top")).abs() < 1e-9);
        // zoomed: every box scales
        let [g2, _] = guess_cover_boxes(&l, 2.0);
        assert!((n(&g2, "width") - 2.0 * n(&grid, "width")).abs() < 1e-9);
    }
}
