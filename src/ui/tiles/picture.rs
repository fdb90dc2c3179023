//! The tiles view's picture: the full run's masked scores of one head and sentence, its
//! cells drawn as the heatmaps draw theirs (blocked ones grey and hatched), the tokens beside the rows and above the
//! columns when the cells are wide enough, and the current tile outlined. The pixels are
//! [`crate::ui::tiles::data::score_pixels`]; the labels and outline [`crate::ui::tiles::words`]'s.

use leptos::html;
use leptos::prelude::*;

use crate::ui::platform::{canvas, screen};
use crate::ui::tiles::data::{any_blocked, score_pixels};
use crate::ui::tiles::shown::Shown;
use crate::ui::tiles::words::{axis_labels, column_label, outline_style};

/// The masked scores with the current tile outlined.
#[component]
pub fn TilesPicture(
    /// The run, tile, sentence and head shown.
    shown: Shown,
    /// The side of a cell, CSS pixels.
    cell: Signal<f64>,
    /// Query rows.
    t_q: Signal<usize>,
    /// Key columns.
    t_k: Signal<usize>,
) -> impl IntoView {
    let Shown { full, current, batch, head } = shown;
    // The score matrix, its cells as the heatmaps draw theirs (pushed to the canvas here).
    let canvas = NodeRef::<html::Canvas>::new();
    Effect::new(move |_| {
        let (b, h, c) = (batch.get(), head.get(), cell.get());
        let Some(el) = canvas.get() else { return };
        full.with(|f| {
            let Some(px) = f.as_ref().and_then(|f| score_pixels(f, b, h, c, &screen::theme())) else {
                return;
            };
            el.set_width(px.width);
            el.set_height(px.height);
            canvas::put_rgba(&el, 0, 0, px.width, &px.rgba);
        });
    });
    // the legend names the blocked cells' grey only when the mask blocks one
    let blocked = Memo::new(move |_| {
        let b = batch.get();
        full.with(|f| f.as_ref().is_some_and(|f| any_blocked(f, b)))
    });
    let outline_style = move || outline_style(current.get().as_ref(), cell.get());
    // The tokens beside the rows and above the columns, when the cells are wide enough.
    let labels = move || {
        let c = cell.get();
        if c < 20.0 {
            return None;
        }
        let b = batch.get();
        full.with(|f| {
            let f = f.as_ref()?;
            Some((axis_labels(f.query_tokens(b)), axis_labels(f.key_tokens(b)), c))
        })
    };
    view! {
        <figure class="al-tiles-figure">
            <div class="al-tiles-frame">
                {move || {
                    labels()
                        .map(|(q, k, c)| {
                            view! {
                                <div class="al-tiles-collabels" aria-hidden="true">
                                    {k
                                        .into_iter()
                                        .enumerate()
                                        .map(|(j, l)| {
                                            let shown = column_label(&l, j, c);
                                            // a narrow column shows its position only (the row
                                            // labels and the title name the token)
                                            view! {
                                                <span style=format!("width: {c}px") title=l.clone()>
                                                    {shown}
                                                </span>
                                            }
                                        })
                                        .collect_view()}
                                </div>
                                <div class="al-tiles-rowlabels" aria-hidden="true">
                                    {q
                                        .into_iter()
                                        .map(|l| {
                                            view! {
                                                <span
                                                    style=format!("height: {c}px; line-height: {c}px")
                                                    title=l.clone()
                                                >
                                                    {l.clone()}
                                                </span>
                                            }
                                        })
                                        .collect_view()}
                                </div>
                            }
                        })
                }}
                <div
                    class="al-tiles-canvas"
                    style=move || {
                        format!(
                            "width: {}px; height: {}px",
                            cell.get() * t_k.get() as f64,
                            cell.get() * t_q.get() as f64,
                        )
                    }
                >
                    <canvas
                        node_ref=canvas
                        data-testid="tiles-canvas"
                        role="img"
                        aria-label=move || {
                            format!(
                                "The masked scores of head {}, {} query rows by {} keys{}; the current tile is outlined. Its numbers are in the table below.",
                                head.get() + 1,
                                t_q.get(),
                                t_k.get(),
                                if blocked.get() { ", blocked cells grey and hatched" } else { "" },
                            )
                        }
                        style=move || {
                            format!(
                                "width: {}px; height: {}px",
                                cell.get() * t_k.get() as f64,
                                cell.get() * t_q.get() as f64,
                            )
                        }
                    ></canvas>
                    <div class="al-tile-outline" data-testid="tile-outline" style=outline_style></div>
                </div>
            </div>
            <figcaption data-testid="tiles-legend">
                "masked scores, rows = queries, columns = keys"
                {move || blocked.get().then_some("; hatched grey = blocked")}
            </figcaption>
        </figure>
    }
}
