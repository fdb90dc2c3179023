//! The baseball-bat lesson's plot: the sports–animal plane, "bat" before and after
//! attention, draggable; its numbers in a table. What it shows is
//! [`crate::ui::lesson::plot_data::plot_data`].

use std::sync::Arc;

use leptos::html;
use leptos::prelude::*;
use plotters::prelude::IntoDrawingArea;
use plotters_canvas::CanvasBackend;

use crate::draw::embedding_plot::{draw_embedding_plot, PlotLayout, DEFAULT_RANGE};
use crate::draw::Canvas;
use crate::engine::Trace;
use crate::format::short;

use crate::ui::lesson::plot_data::plot_data;
use crate::ui::platform::screen;
use crate::ui::state::settings::Settings;
use crate::ui::widgets::table_head::column_heads;

/// The sports–animal plane of seed 003: "baseball", "bat" before attention, and "bat"
/// after (its output row), with an arrow. Drag "bat" to move its embedding; a table says
/// the same in numbers, and the editor beside it is the keyboard path.
#[component]
pub fn EmbeddingPlot(
    /// The shown trace.
    #[prop(into)]
    trace: Signal<Option<Arc<Trace>>>,
    /// The settings: dragging "bat" writes its embedding.
    settings: RwSignal<Settings>,
) -> impl IntoView {
    let canvas = NodeRef::<html::Canvas>::new();
    let dragging = RwSignal::new(false);
    let (width, height) = (300.0, 260.0);
    let data = Memo::new(move |_| {
        let t = trace.get()?;
        let bat_editable = settings.with(|s| s.embeddings.get("bat").is_some_and(|v| !v.is_empty()));
        Some(plot_data(&t, bat_editable))
    });
    let layout = Memo::new(move |_| {
        data.with(|d| match d {
            Some(Ok(d)) => PlotLayout::fit(width, height, &d.points, d.one_d),
            _ => PlotLayout::new(width, height, DEFAULT_RANGE, DEFAULT_RANGE),
        })
    });
    Effect::new(move |_| {
        let Some(Ok(d)) = data.get() else { return };
        let Some(el) = canvas.get() else { return };
        let layout = layout.get();
        // read here, so that entering presenter mode's zoom draws the plot again, sharp
        let dpr = screen::dpr();
        el.set_width((layout.width * dpr) as u32);
        el.set_height((layout.height * dpr) as u32);
        if let Some(backend) = CanvasBackend::with_canvas_object(el) {
            let _ = draw_embedding_plot(
                Canvas { area: &backend.into_drawing_area(), theme: &screen::theme(), dpr },
                &d.points,
                &layout,
            );
        }
    });
    let can_drag = move || data.with(|d| matches!(d, Some(Ok(d)) if d.points.iter().any(|p| p.draggable)));
    let move_bat = move |x: f64, y: f64| {
        if !can_drag() {
            return;
        }
        let layout = layout.get_untracked();
        let (first, second) = layout.value_at(x, y);
        let round = |v: f64| (v * 100.0).round() / 100.0;
        settings.update(|s| {
            if let Some(v) = s.embeddings.get_mut("bat") {
                if let Some(slot) = v.get_mut(0) {
                    *slot = round(first);
                }
                if !layout.one_d {
                    if let Some(slot) = v.get_mut(1) {
                        *slot = round(second);
                    }
                }
            }
        });
    };
    let caption = move || match data.get() {
        Some(Ok(d)) => d.caption,
        Some(Err(why)) => why,
        None => String::new(),
    };
    let table = move || {
        let Some(Ok(d)) = data.get() else { return None };
        let coords = |(a, b): (f64, f64)| {
            if d.one_d {
                short(a)
            } else {
                format!("({}, {})", short(a), short(b))
            }
        };
        let rows = d
            .points
            .iter()
            .map(|p| {
                view! {
                    <tr>
                        <th scope="row">{p.label.clone()}</th>
                        <td>{coords(p.before)}</td>
                        <td>{coords(p.after)}</td>
                    </tr>
                }
            })
            .collect_view();
        Some(view! {
            <table class="al-plot-table" data-testid="embedding-plot-table">
                {column_heads(&["word", "embedding (x)", "after attention (output)"])}
                <tbody>{rows}</tbody>
            </table>
        })
    };
    view! {
        <figure class="al-card al-plot">
            <figcaption data-testid="embedding-plot-caption">{caption}</figcaption>
            <canvas
                node_ref=canvas
                data-testid="embedding-plot"
                role="img"
                aria-label="Embedding plot: baseball and bat before and after attention; the table below has the numbers"
                hidden=move || !matches!(data.get(), Some(Ok(_)))
                style=format!("width:{width}px;height:{height}px;touch-action:none")
                on:pointerdown=move |ev: leptos::ev::PointerEvent| {
                    dragging.set(true);
                    let (x, y) = screen::layout_offset(&ev);
                    move_bat(x, y);
                }
                on:pointermove=move |ev: leptos::ev::PointerEvent| {
                    if dragging.get_untracked() {
                        let (x, y) = screen::layout_offset(&ev);
                        move_bat(x, y)
                    }
                }
                on:pointerup=move |_| dragging.set(false)
                on:pointerleave=move |_| dragging.set(false)
            ></canvas>
            {table}
        </figure>
    }
}
