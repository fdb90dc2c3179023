//! One heatmap of one step, sentence and head: the canvas (plotters-canvas, drawn by
//! [`crate::ui::heatmap::paint`]), the value under the pointer or keyboard cursor
//! ([`crate::ui::heatmap::cursor`]), the outlines over it ([`crate::ui::heatmap::overlays`]),
//! its caption, its table and the explanation panel. What it shows is [`CardData`]
//! ([`crate::ui::heatmap::card_data`]); its table is [`MatrixTable`].

use std::sync::Arc;

use leptos::html;
use leptos::prelude::*;

use crate::draw::{self, Scale};
use crate::engine::Trace;

use crate::ui::explain::explained::Explained;
use crate::ui::explain::panel::ExplainPanel;
use crate::ui::heatmap::caption::{canvas_label, CardCaption};
use crate::ui::heatmap::card_data::{fit_layout, CardData};
use crate::ui::heatmap::cursor::CardCursor;
use crate::ui::heatmap::matrix_table::{MatrixTable, MAX_TABLE_CELLS};
use crate::ui::heatmap::overlays::CardOverlays;
use crate::ui::heatmap::paint::{cell_numbers, drawn_layout, numbers_written, redraw_on_change};
use crate::ui::platform::screen;
use crate::ui::state::card_id::CardId;

/// The heatmaps' label size, CSS px, where it is not [`draw::LABEL_FONT`]: presenter mode
/// provides 18, so a room can read the tokens.
#[derive(Debug, Clone, Copy)]
pub struct LabelFont(pub Signal<f64>);

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
    let data = Memo::new(move |_| trace.with(|t| t.as_ref().and_then(|t| CardData::build(t, id))));
    let font = use_context::<LabelFont>().map(|f| f.0);
    let layout = Memo::new(move |_| {
        let (width, height) = (max_width.get(), max_height.get());
        let font = font.map_or(draw::LABEL_FONT, |f| f.get());
        data.with(|d| d.as_ref().map(|d| fit_layout(&d.labels.rows, &d.labels.cols, width, height, font)))
    });
    // With a height budget (a lesson's picture, presenter mode), a small matrix is drawn
    // larger, labels and numbers included, up to 2.5 times, to fill its place.
    let zoom = Memo::new(move |_| {
        let (Some(l), Some(height)) = (layout.get(), max_height.get()) else { return 1.0 };
        (max_width.get() / l.width).min(height / l.height).clamp(1.0, 2.5)
    });
    // presenting, numbers only where a room reads them
    let drawn = drawn_layout(layout, zoom, font);
    redraw_on_change(canvas, data, drawn, zoom, scale, id.step);
    // the numbers in the cells, where they fit: their drawn size and the widest, so that a
    // test can measure that one inside its cell (data-number-px, data-number-text)
    let numbers = Memo::new(move |_| cell_numbers(data, drawn));
    let dims = Signal::derive(move || data.with(|d| d.as_ref().map_or((0, 0), |d| d.values.dim())));
    let cursor = CardCursor::new(id, dims, layout, zoom);
    // The explanation panel (one per page, see explain/panel.rs) opens on a cell of this
    // card; a memo, so that a move on another card's panel does not wake this card.
    let explained = use_context::<Explained>();
    let readout = move || {
        let (r, c) = cursor.clamped()?;
        if explained.is_some_and(|e| e.hides(id)) {
            return Some("Hidden while you guess: type your guess in the explanation, then Reveal.".into());
        }
        data.with(|d| d.as_ref().and_then(|d| d.readout(r, c)))
    };
    let explained_here = Memo::new(move |_| {
        explained.and_then(|e| e.cell.with(|c| c.filter(|(i, _, _)| *i == id).map(|(_, r, c)| (r, c))))
    });
    let panel_open = Memo::new(move |_| explained_here.with(Option::is_some));
    let table = move || {
        data.get().filter(|d| d.values.len() <= MAX_TABLE_CELLS).map(|d| {
            view! {
                <MatrixTable
                    values=d.values
                    rows=d.labels.rows
                    cols=d.labels.cols
                    blocked=d.hatched
                    step=id.step
                    batch=id.batch
                    head=id.head
                />
            }
        })
    };
    let panel = move || {
        explained.map(|e| {
            let on_close = Callback::new(move |()| {
                e.close();
                if let Some(el) = canvas.get_untracked() {
                    let _ = el.focus();
                }
            });
            view! { <ExplainPanel trace=trace explained=e on_close=on_close /> }
        })
    };
    view! {
        <figure class="al-card" hidden=move || data.with(Option::is_none)>
            <CardCaption trace=trace id=id data=data canvas=canvas />
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
                            data-cell-px=move || {
                                layout
                                    .get()
                                    .map(|l| format!("{:.1}", l.cell * zoom.get()))
                                    .unwrap_or_default()
                            }
                            data-numbers=move || numbers.with(|n| numbers_written(n.as_ref()))
                            data-bar=move || bar_ends(scale.get())
                            data-number-px=move || {
                                numbers.with(|n| n.as_ref().map(|(f, _)| format!("{:.1}", f * zoom.get())))
                            }
                            data-number-text=move || numbers.with(|n| n.as_ref().map(|(_, t)| t.clone()))
                            tabindex="0"
                            role="img"
                            aria-label=move || canvas_label(trace, data, id)
                            on:mousemove=move |ev| cursor.on_move(ev)
                            on:click=move |ev| cursor.on_click(ev)
                            on:mouseleave=move |_| cursor.cell.set(None)
                            on:keydown=move |ev| cursor.on_key(ev)
                            on:focus=move |_| {
                                if cursor.cell.get_untracked().is_none() {
                                    cursor.cell.set(Some((0, 0)))
                                }
                            }
                        ></canvas>
                        <CardOverlays
                            trace=trace
                            id=id
                            layout=layout
                            zoom=zoom
                            cursor=Signal::derive(move || cursor.clamped())
                            explained_here=explained_here
                        />
                    </div>
                    <p
                        class="al-readout"
                        class:al-hint=move || readout().is_none()
                        data-testid="readout"
                        aria-live="polite"
                    >
                        {move || readout().unwrap_or_else(|| hint().into())}
                    </p>
                    {table}
                </div>
                <Show when=move || panel_open.get()>{panel}</Show>
            </div>
        </figure>
    }
}

/// The colour bar's end labels, as drawn: "lowest highest" (the canvas's `data-bar`).
fn bar_ends(scale: Scale) -> String {
    format!("{} {}", crate::format::short(scale.lo), crate::format::short(scale.hi))
}

/// The readout before a cell is chosen: a touch screen has no pointer to hover and no
/// arrow keys, so it is told to tap.
fn hint() -> &'static str {
    if screen::touch() {
        "Tap a cell to read its exact value and see how it was computed."
    } else {
        "Point at a cell (or focus the map and use the arrow keys; Enter explains it) to read its exact value."
    }
}
