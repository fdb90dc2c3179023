//! The induction lesson's zoom: the row its words talk about (the second B's, the
//! question's query) of both trained heads' maps, magnified, over the keys that query may
//! read, with the same numbers in a table. It sits above the full maps, and is a step's
//! embed's whole picture; the numbers are the recorded run's ([`induction::weight`]).

use leptos::html;
use leptos::prelude::*;
use ndarray::Array2;

use attention_engine::train::history::History;

use crate::lessons::induction::{self, axis_labels, query, weight};

use crate::ui::learn::head_maps::{draw_weights, weights_table, MapFit};

/// The rows of the zoom: one per layer.
const LAYERS: [&str; 2] = ["layer 1", "layer 2"];

/// What the zoom shows: the query, the rows' and columns' labels, and the weights
/// (layer by layer, the query's row over keys `0..=query`).
#[derive(Debug, Clone, PartialEq)]
pub struct Zoom {
    /// The query's position.
    pub query: usize,
    /// Its label ("7 B").
    pub label: String,
    /// The rows' labels ("layer 1", "layer 2").
    pub rows: Vec<String>,
    /// The keys' labels, `0..=query`.
    pub keys: Vec<String>,
    /// `(2, query + 1)`: each layer's weight from the query on each key.
    pub values: Array2<f64>,
}

/// The zoom of the recorded run `h`, `None` if it has no repeated token.
pub fn zoom(h: &History) -> Option<Zoom> {
    let q = query(h)?;
    let labels = axis_labels(&h.tokens);
    let values = Array2::from_shape_fn((2, q + 1), |(layer, key)| weight(h, layer, q, key));
    Some(Zoom {
        query: q,
        label: labels.get(q)?.clone(),
        rows: LAYERS.map(String::from).to_vec(),
        keys: labels.get(..=q)?.to_vec(),
        values,
    })
}

/// The zoom figure, `width` px at most (its cells at most the drawing's largest).
#[component]
pub fn InductionZoom(
    /// The widest it may be, CSS px.
    width: Signal<f64>,
    /// Whether the full maps are drawn below it (not in an embed, which has no room).
    maps_below: bool,
    /// The tallest its canvas may be, CSS px (presenter mode, where the map below needs
    /// the screen); `None`: as tall as its width makes it.
    max_height: Option<f64>,
    /// Its labels' size, CSS px: presenter mode's 18, so that its numbers, 0.9 of it where
    /// the cells fit them, are read from the back of a room as the other maps' are.
    font: f64,
) -> impl IntoView {
    let canvas = NodeRef::<html::Canvas>::new();
    let Some(z) = induction::run().and_then(zoom) else { return ().into_any() };
    let z = StoredValue::new(z);
    let fit = Signal::derive(move || MapFit { max_width: width.get(), max_height, font });
    Effect::new(move |_| {
        let Some(el) = canvas.get() else { return };
        let fit = fit.get();
        z.with_value(|z| {
            let blocked = vec![false; z.values.len()];
            draw_weights(&el, z.values.view(), (&z.rows, &z.keys), &blocked, &fit);
        });
    });
    // the cells' side and their numbers' size, as drawn, for tests (as a heatmap card's)
    let drawn = Memo::new(move |_| {
        z.with_value(|z| {
            let layout = fit.get().layout_of(&z.rows, &z.keys);
            (layout.cell, crate::draw::heatmap_text::cell_number_font(z.values.view(), &layout))
        })
    });
    let label = z.with_value(|z| z.label.clone());
    let caption = z.with_value(|z| {
        let key = |k: Option<&String>| k.cloned().unwrap_or_default();
        // presenting, one line: the map below needs the screen's height
        if max_height.is_some() {
            return format!("Zoom on the second B's row (query {label}) of both heads' maps below.");
        }
        format!(
            "Zoom on the second B's row (query {label}) of both heads' maps{}: the weight it puts on each key it may read, {} to {}.",
            if maps_below { " below" } else { " (the full page draws the whole maps)" },
            key(z.keys.first()),
            key(z.keys.last()),
        )
    });
    view! {
        <figure class="al-learn-head al-induction-zoom" data-testid="induction-zoom">
            <figcaption>{caption}</figcaption>
            <canvas
                node_ref=canvas
                data-cell-px=move || format!("{:.1}", drawn.get().0)
                data-numbers=move || if drawn.get().1.is_some() { "shown" } else { "hidden" }
                data-number-px=move || drawn.get().1.map(|f| format!("{f:.1}"))
                role="img"
                aria-label=format!("Query {label}'s attention weights in each layer, magnified")
            ></canvas>
            <details class="al-table">
                <summary>"Table of numbers"</summary>
                {z
                    .with_value(|z| {
                        weights_table(
                            z.values.view(),
                            (&z.rows, &z.keys),
                            format!("Query {label}: weights, layers by keys"),
                            "head \\ key",
                            Some("induction-zoom-table"),
                        )
                    })}
            </details>
        </figure>
    }
    .into_any()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lessons::induction::top_key;

    /// The zoom is the second B's row of both maps, over its keys: the recorded weights,
    /// each layer's largest where the words say it is (layer 1 on the A before, layer 2 on
    /// the C after the first B).
    #[test]
    fn the_zoom_is_the_rows_the_words_talk_about() {
        let h = induction::run().unwrap();
        let z = zoom(h).unwrap();
        assert_eq!((z.query, z.label.as_str(), z.values.dim()), (7, "7 B", (2, 8)));
        assert_eq!(z.keys.first().map(String::as_str), Some("0 A"));
        assert_eq!(z.keys.last().map(String::as_str), Some("7 B"));
        for layer in 0..2 {
            for key in 0..8 {
                assert_eq!(z.values[[layer, key]], weight(h, layer, 7, key));
            }
            let top = (0..8).max_by(|&a, &b| z.values[[layer, a]].total_cmp(&z.values[[layer, b]]));
            assert_eq!(top, top_key(h, layer, 7));
        }
        assert_eq!((top_key(h, 0, 7), top_key(h, 1, 7)), (Some(6), Some(2)));
        // a row sums to one: the zoom holds every key the query may read
        assert!(z.values.rows().into_iter().all(|r| (r.sum() - 1.0).abs() < 0.01));
    }
}
