//! Drawing a card's canvas: the cells as one bitmap, the labels with the canvas's own
//! text, the rest with plotters-canvas. Redrawn only when the numbers, the layout, the
//! zoom or the scale change.

use leptos::html;
use leptos::prelude::*;
use plotters::prelude::IntoDrawingArea;
use plotters_canvas::CanvasBackend;

use crate::draw::{self, Layout, Scale};
use crate::engine::StepName;
use crate::ui::heatmap::card_data::CardData;
use crate::ui::platform::{canvas, screen, tasks, timing};
use crate::ui::state::page_layout::PRESENTER_MIN_NUMBER;

/// Cards with at least this many cells are drawn in a task of their own (`tasks::later`).
const DRAW_APART_CELLS: usize = 8192;

/// Draws `d` on the canvas `el` at `zoom` times its layout size, sharp on this screen.
fn paint(
    el: &web_sys::HtmlCanvasElement,
    layout: &Layout,
    zoom: f64,
    scale: Scale,
    d: &CardData,
    step: StepName,
) {
    timing::mark("al-draw-start");
    // drawing at `dpr · zoom` device pixels per layout pixel enlarges everything
    let screen_dpr = screen::dpr();
    let dpr = screen_dpr * zoom;
    // CSS px: the layout's, zoomed; backing store: the screen's device pixels per CSS px
    canvas::size(el, layout.width * zoom, layout.height * zoom, screen_dpr);
    let Some(backend) = CanvasBackend::with_canvas_object(el.clone()) else { return };
    let map = d.heatmap(scale);
    // the cells as one bitmap (one putImageData), the rest with plotters
    let put = |g: &draw::GridPixels| canvas::put_rgba(el, g.x, g.y, g.width, &g.rgba);
    let area = backend.into_drawing_area();
    // the texts with the canvas's own fillText: one font per size, nothing measured
    let text = |items: &[draw::heatmap_text::TextItem]| canvas::fill_texts(el, items);
    if let Err(e) = draw::draw_heatmap_with_grid(
        draw::Canvas { area: &area, theme: &screen::theme(), dpr },
        &map,
        layout,
        put,
        text,
    ) {
        leptos::logging::warn!("drawing {step} failed: {e:?}");
    }
    timing::mark("al-draw-end");
}

/// The numbers written in the card's cells, where they fit
/// ([`draw::heatmap_text::cell_number_font`]): their font size (CSS px before the zoom) and
/// the widest of them as written; `None` when the cells carry none.
pub fn cell_numbers(data: Memo<Option<CardData>>, layout: Memo<Option<Layout>>) -> Option<(f64, String)> {
    layout.with(|l| {
        data.with(|d| {
            let (l, d) = l.as_ref().zip(d.as_ref())?;
            let font = draw::heatmap_text::cell_number_font(d.values.view(), l)?;
            Some((font, draw::heatmap_text::widest_number(d.values.view())))
        })
    })
}

/// The layout the card draws with: `layout`, and, presenting (labels larger than
/// [`draw::LABEL_FONT`]), numbers only where a room reads them: at least
/// [`PRESENTER_MIN_NUMBER`] px as drawn, their size times the card's `zoom`
/// ([`draw::Layout::min_number_font`]). Where they would be smaller, the cells carry none.
pub fn drawn_layout(
    layout: Memo<Option<Layout>>,
    zoom: Memo<f64>,
    font: Option<Signal<f64>>,
) -> Memo<Option<Layout>> {
    Memo::new(move |_| {
        let presenting = font.is_some_and(|f| f.get() > draw::LABEL_FONT);
        layout.get().map(|mut l| {
            if presenting {
                l.min_number_font = l.min_number_font.max(PRESENTER_MIN_NUMBER / zoom.get().max(1.0));
            }
            l
        })
    })
}

/// "shown" when the card's cells have their numbers written in them, else "hidden": the
/// canvas's `data-numbers`.
pub fn numbers_written(numbers: Option<&(f64, String)>) -> &'static str {
    if numbers.is_some() {
        "shown"
    } else {
        "hidden"
    }
}

/// Draws the card whenever its numbers, layout, zoom or scale change, and only then. A
/// large card draws in a task of its own (`tasks::later`), with the newest values when its
/// turn comes, so a page of large cards is never one long task (BENCHMARKS.md, "Large
/// cards draw apart").
pub fn redraw_on_change(
    canvas: NodeRef<html::Canvas>,
    data: Memo<Option<CardData>>,
    layout: Memo<Option<Layout>>,
    zoom: Memo<f64>,
    scale: Signal<Scale>,
    step: StepName,
) {
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
                    paint(&el, &layout_now, zoom_now, scale_now, d, step);
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
                    paint(&el, &layout_now, zoom_now, scale_now, d, step);
                }
            });
        });
    });
}
