//! One heatmap of one step, sentence and head: the canvas (plotters-canvas), the value
//! under the pointer or keyboard cursor, the explained cell's outlines, the table, and
//! the exports. What it shows is [`CardData`] ([`crate::ui::heatmap::card_data`]); its table is
//! [`MatrixTable`] ([`crate::ui::heatmap::matrix_table`]).

use std::sync::Arc;

use leptos::html;
use leptos::prelude::*;
use plotters::prelude::IntoDrawingArea;
use plotters_canvas::CanvasBackend;

use crate::draw::{self, Heatmap, Layout, Scale};
use crate::engine::{StepName, Trace};

use crate::ui::explain::explained::Explained;
use crate::ui::explain::panel::ExplainPanel;
use crate::ui::explain::text::outlines;
use crate::ui::heatmap::card_data::{csv, fit_layout, CardData};
use crate::ui::heatmap::matrix_table::{MatrixTable, MAX_TABLE_CELLS};
use crate::ui::platform::{canvas, files, screen, tasks, timing};
use crate::ui::state::card_id::CardId;

/// The heatmaps' label size, CSS px, where it is not [`draw::LABEL_FONT`]: presenter mode
/// provides 18, so a room can read the tokens.
#[derive(Debug, Clone, Copy)]
pub struct LabelFont(pub Signal<f64>);

/// Cards with at least this many cells are drawn in a task of their own (`tasks::later`).
const DRAW_APART_CELLS: usize = 8192;

/// A heatmap, its hover read-out, table and export buttons. Keyed by [`CardId`]: the card
/// lives as long as the step, sentence and head are shown, and redraws itself only when
/// its numbers, labels, scale or width change.
#[component]
pub fn HeatmapCard(
    /// The shown trace.
    #[prop(into)]
    trace: Signal<Option<Arc<Trace>>>,
    /// Which matrix: step, sentence and head.
    id: CardId,
    /// The colour scale.
    #[prop(into)]
    scale: Signal<Scale>,
    /// The widest the picture may be, CSS pixels.
    #[prop(into)]
    max_width: Signal<f64>,
    /// The tallest the picture may be, if limited: the cells shrink to fit.
    #[prop(into)]
    max_height: Signal<Option<f64>>,
) -> impl IntoView {
    let canvas = NodeRef::<html::Canvas>::new();
    let cursor = RwSignal::new(None::<(usize, usize)>);
    let data = Memo::new(move |_| trace.with(|t| t.as_ref().and_then(|t| CardData::build(t, id))));
    let font = use_context::<LabelFont>().map(|f| f.0);
    let layout = Memo::new(move |_| {
        let (width, height) = (max_width.get(), max_height.get());
        let font = font.map_or(draw::LABEL_FONT, |f| f.get());
        data.with(|d| d.as_ref().map(|d| fit_layout(&d.rows, &d.cols, width, height, font)))
    });
    // With a height budget (a lesson's picture, presenter mode), a small matrix is drawn
    // larger, labels and numbers included, up to 2.5 times, to fill its place.
    let zoom = Memo::new(move |_| {
        let (Some(l), Some(height)) = (layout.get(), max_height.get()) else { return 1.0 };
        (max_width.get() / l.width).min(height / l.height).clamp(1.0, 2.5)
    });
    let dims = move || data.with(|d| d.as_ref().map_or((0, 0), |d| d.values.dim()));

    // Draw whenever the numbers, the layout or the scale change (and only then). A large
    // card draws in a task of its own (`tasks::later`), with the newest values when its turn
    // comes, so a page of large cards is never one long task (BENCHMARKS.md, "Large
    // cards draw apart").
    let draw =
        move |el: &web_sys::HtmlCanvasElement, layout: &Layout, zoom: f64, scale: Scale, d: &CardData| {
            timing::mark("al-draw-start");
            // drawing at `dpr · zoom` device pixels per layout pixel enlarges everything
            let dpr = screen::dpr() * zoom;
            el.set_width((layout.width * dpr).round() as u32);
            el.set_height((layout.height * dpr).round() as u32);
            // the CSS size, set here with the backing store so the two never disagree
            let style = web_sys::HtmlElement::style(el);
            let _ = style.set_property("width", &format!("{}px", layout.width * zoom));
            let _ = style.set_property("height", &format!("{}px", layout.height * zoom));
            let Some(backend) = CanvasBackend::with_canvas_object(el.clone()) else { return };
            let map = Heatmap {
                values: d.values.view(),
                row_labels: &d.rows,
                col_labels: &d.cols,
                row_is_pad: &d.row_pad,
                col_is_pad: &d.col_pad,
                blocked: &d.blocked,
                scale,
                col_group: d.col_group,
            };
            // the cells as one bitmap (one putImageData), the rest with plotters
            let put = |g: &draw::GridPixels| canvas::put_rgba(el, g.x, g.y, g.width, &g.rgba);
            let area = backend.into_drawing_area();
            // the texts with the canvas's own fillText: one font per size, nothing measured
            let text = |items: &[draw::heatmap_text::TextItem]| canvas::fill_texts(el, items);
            if let Err(e) =
                draw::draw_heatmap_with_grid(&area, &map, layout, &screen::theme(), dpr, put, text)
            {
                leptos::logging::warn!("drawing {} failed: {e:?}", id.step);
            }
            timing::mark("al-draw-end");
        };
    let later_key = tasks::later_key();
    Effect::new(move |_| {
        let Some(el) = canvas.get() else { return };
        let scale_now = scale.get();
        let Some(layout_now) = layout.get() else { return };
        let zoom_now = zoom.get();
        let cells = data.with(|d| d.as_ref().map_or(0, |d| d.values.len()));
        if cells < DRAW_APART_CELLS {
            data.with(|d| {
                if let Some(d) = d {
                    draw(&el, &layout_now, zoom_now, scale_now, d);
                }
            });
            return;
        }
        tasks::later(later_key, move || {
            // the card may be gone by now: then nothing is drawn
            let (Some(scale_now), Some(Some(layout_now)), Some(zoom_now)) =
                (scale.try_get_untracked(), layout.try_get_untracked(), zoom.try_get_untracked())
            else {
                return;
            };
            data.try_with_untracked(|d| {
                if let Some(d) = d {
                    draw(&el, &layout_now, zoom_now, scale_now, d);
                }
            });
        });
    });

    // The cursor survives edits; if the matrix shrank under it, it moves inside.
    let clamped = move || {
        let (n_rows, n_cols) = dims();
        cursor.get().filter(|_| n_rows > 0 && n_cols > 0).map(|(r, c)| (r.min(n_rows - 1), c.min(n_cols - 1)))
    };
    let readout = move || {
        let (r, c) = clamped()?;
        data.with(|d| d.as_ref().and_then(|d| d.readout(r, c)))
    };
    // The explanation panel (one per page, see explain/panel.rs): Enter or a click opens
    // it on a cell of this card; the arrow keys move it while it is open here.
    let explained = use_context::<Explained>();
    // A memo: a move elsewhere (another card's panel) does not wake this card's marks.
    let explained_here = Memo::new(move |_| {
        explained.and_then(|e| e.cell.with(|c| c.filter(|(i, _, _)| *i == id).map(|(_, r, c)| (r, c))))
    });
    let panel_open = Memo::new(move |_| explained_here.with(Option::is_some));
    let on_click = move |ev: leptos::ev::MouseEvent| {
        let z = zoom.get_untracked();
        let cell = layout.with_untracked(|l| {
            l.as_ref().and_then(|l| l.cell_at(f64::from(ev.offset_x()) / z, f64::from(ev.offset_y()) / z))
        });
        if let (Some((r, c)), Some(e)) = (cell, explained) {
            cursor.set(Some((r, c)));
            e.open(id, r, c);
        }
    };
    let on_move = move |ev: leptos::ev::MouseEvent| {
        let z = zoom.get_untracked();
        let cell = layout.with_untracked(|l| {
            l.as_ref().and_then(|l| l.cell_at(f64::from(ev.offset_x()) / z, f64::from(ev.offset_y()) / z))
        });
        cursor.set(cell);
    };
    let on_key = move |ev: leptos::ev::KeyboardEvent| {
        let (n_rows, n_cols) = dims();
        if n_rows == 0 || n_cols == 0 {
            return;
        }
        let here = explained.and_then(|e| e.in_card_untracked(id));
        let (r, c) = here.or_else(clamped).unwrap_or((0, 0));
        match ev.key().as_str() {
            "Enter" => {
                ev.prevent_default();
                if let Some(e) = explained {
                    e.open(id, r, c);
                }
                return;
            }
            "Escape" if here.is_some() => {
                ev.prevent_default();
                if let Some(e) = explained {
                    e.close();
                }
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
        cursor.set(Some(next));
        if let (Some(e), Some(_)) = (explained, here) {
            e.open(id, next.0, next.1);
        }
    };
    // The explained cell and the cells it reads, outlined over the canvas.
    let marks = move || {
        let e = explained?;
        let (r, c) = explained_here.get()?;
        let z = zoom.get();
        let rects = layout.with(|l| {
            let l = l.as_ref()?;
            let (n_rows, n_cols) = (l.n_rows, l.n_cols);
            let rect = |r0: usize, r1: usize, c0: usize, c1: usize| {
                let (x0, y0, side) = l.cell_rect(r0, c0);
                let (x1, y1, _) = l.cell_rect(r1.saturating_sub(1), c1.saturating_sub(1));
                let (w, h) = ((x1 - x0 + side) * z, (y1 - y0 + side) * z);
                format!("left:{}px;top:{}px;width:{w}px;height:{h}px", x0 * z, y0 * z)
            };
            let ops: Vec<(String, bool)> = e.explanation.with(|ex| {
                let Some(Ok(ex)) = ex else { return vec![] };
                trace.with(|t| {
                    t.as_ref().map_or(vec![], |t| {
                        outlines(t, ex, id)
                            .into_iter()
                            .filter(|o| o.rows.1 <= n_rows && o.cols.1 <= n_cols)
                            .map(|o| (rect(o.rows.0, o.rows.1, o.cols.0, o.cols.1), o.same_positions))
                            .collect()
                    })
                })
            });
            let own = (r < n_rows && c < n_cols).then(|| rect(r, r + 1, c, c + 1));
            Some((ops, own))
        })?;
        let (ops, own) = rects;
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
        let (r, c) = clamped()?;
        let z = zoom.get();
        let (x, y, side) = layout.with(|l| l.as_ref().map(|l| l.cell_rect(r, c)))?;
        let (x, y, side) = (x * z, y * z, side * z);
        Some(format!("left:{x}px;top:{y}px;width:{side}px;height:{side}px"))
    };
    // the lesson's highlighted cells, outlined over the canvas
    let highlighted = crate::ui::heatmap::highlight::cells_of(id);
    let highlight_boxes = move || {
        let (n_rows, n_cols) = dims();
        let z = zoom.get();
        let boxes: Vec<String> = layout.with(|l| {
            let Some(l) = l.as_ref() else { return Vec::new() };
            highlighted.with(|h| {
                h.iter()
                    .filter(|&&(r, c)| r < n_rows && c < n_cols)
                    .map(|&(r, c)| {
                        let (x, y, side) = l.cell_rect(r, c);
                        let (x, y, side) = (x * z, y * z, side * z);
                        format!("left:{x}px;top:{y}px;width:{side}px;height:{side}px")
                    })
                    .collect()
            })
        });
        boxes
            .into_iter()
            .map(|style| view! { <div class="al-highlight-cell" data-testid="highlight" style=style></div> })
            .collect_view()
    };

    // the key/value heads before the repeat of grouped-query attention are h_kv, not h
    let head_word = move || {
        let kv_step = matches!(id.step, StepName::KHeads | StepName::VHeads | StepName::KRot);
        if kv_step && trace.with(|t| t.as_ref().is_some_and(|t| t.is_grouped())) {
            "K/V head"
        } else {
            "head"
        }
    };
    // the canvas's text alternative: what it shows, its size, its largest number
    let label = move || {
        let (n_rows, n_cols) = dims();
        let head = data.with(|d| d.as_ref().is_some_and(|d| d.has_heads));
        let what = format!(
            "{} heatmap, sentence {}{}",
            id.step,
            id.batch + 1,
            if head { format!(", {} {}", head_word(), id.head + 1) } else { String::new() },
        );
        data.with(|d| match d {
            Some(d) => d.describe(&what),
            None => format!("{what}: {n_rows} by {n_cols}"),
        })
    };
    let file_stem = format!("{}-b{}-h{}", id.step, id.batch, id.head);
    let png = {
        let stem = file_stem.clone();
        move |_| {
            if let Some(el) = canvas.get_untracked() {
                if let Ok(url) = el.to_data_url() {
                    files::download_url(&format!("{stem}.png"), &url);
                }
            }
        }
    };
    let csv_click = move |_| {
        // built on click: formatting every number up front slowed every edit down
        data.with_untracked(|d| {
            if let Some(d) = d {
                files::download_text(
                    &format!("{file_stem}.csv"),
                    "text/csv",
                    &csv(&d.rows, &d.cols, &d.values),
                );
            }
        })
    };
    let title = move || {
        if data.with(|d| d.as_ref().is_some_and(|d| d.has_heads)) {
            format!("{} {}", head_word(), id.head + 1)
        } else if id.step == StepName::Pe {
            // PE depends on the position only: one matrix for every sentence
            "every sentence".to_string()
        } else {
            format!("sentence {}", id.batch + 1)
        }
    };
    let table = move || {
        data.get().filter(|d| d.values.len() <= MAX_TABLE_CELLS).map(|d| {
            view! {
                <MatrixTable
                    values=d.values
                    rows=d.rows
                    cols=d.cols
                    blocked=d.blocked
                    step=id.step
                    batch=id.batch
                    head=id.head
                />
            }
        })
    };
    view! {
        <figure class="al-card" hidden=move || data.with(Option::is_none)>
            <figcaption>
                <span class="al-card-title" style=format!("--head-color: var(--al-head-{})", id.head % 8)>
                    {title}
                </span>
                // what the rows and the columns are, in words (a reading layer), on
                // the caption's line so that the picture keeps its height
                <span class="al-axes" data-testid="axis-titles">
                    {
                        let (rows, cols) = crate::ui::heatmap::card_data::axis_titles(id.step);
                        format!("rows: {rows} · columns: {cols}")
                    }
                </span>
                <span class="al-card-actions">
                    <button type="button" class="al-small" on:click=png title="Download this heatmap as PNG">
                        "PNG"
                    </button>
                    <button
                        type="button"
                        class="al-small"
                        on:click=csv_click
                        title="Download this matrix as CSV"
                    >
                        "CSV"
                    </button>
                </span>
            </figcaption>
            <div class="al-card-body">
                <div class="al-card-main">
                    <div class="al-canvas-wrap">
                        <canvas
                            node_ref=canvas
                            data-testid="heatmap"
                            data-step=id.step.as_str()
                            data-head=id.head
                            data-batch=id.batch
                            data-label-px=move || {
                                layout
                                    .get()
                                    .map(|l| format!("{:.1}", l.font * zoom.get()))
                                    .unwrap_or_default()
                            }
                            tabindex="0"
                            role="img"
                            aria-label=label
                            on:mousemove=on_move
                            on:click=on_click
                            on:mouseleave=move |_| cursor.set(None)
                            on:keydown=on_key
                            on:focus=move |_| {
                                if cursor.get_untracked().is_none() {
                                    cursor.set(Some((0, 0)))
                                }
                            }
                        ></canvas>
                        <div class="al-cursor" style=outline hidden=move || clamped().is_none()></div>
                        {marks}
                        {highlight_boxes}
                    </div>
                    <p
                        class="al-readout"
                        class:al-hint=move || readout().is_none()
                        data-testid="readout"
                        aria-live="polite"
                    >
                        {move || {
                            readout()
                                .unwrap_or_else(|| {
                                    "Point at a cell (or focus the map and use the arrow keys; Enter explains it) to read its exact value."
                                        .into()
                                })
                        }}
                    </p>
                    {table}
                </div>
                <Show when=move || {
                    panel_open.get()
                }>
                    {move || {
                        explained
                            .map(|e| {
                                view! {
                                    <ExplainPanel
                                        trace=trace
                                        explained=e
                                        on_close=Callback::new(move |()| {
                                            e.close();
                                            if let Some(el) = canvas.get_untracked() {
                                                let _ = el.focus();
                                            }
                                        })
                                    />
                                }
                            })
                    }}
                </Show>
            </div>
        </figure>
    }
}
