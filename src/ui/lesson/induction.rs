//! The lesson "Induction heads"'s figures ([`Figure`]), drawn from its recorded training
//! run ([`induction::run`]): the sequence as letters, the trained heads' maps (drawn as the
//! Learn view draws a head), and the loss curve with the step at which layer 2's head
//! formed. The numbers are the engine's, from the file; this only places them.

use leptos::html;
use leptos::prelude::*;
use ndarray::Array2;
use plotters::prelude::IntoDrawingArea;
use plotters_canvas::CanvasBackend;

use crate::draw::curve::{draw_curve, Curve, CurveLayout};
use crate::lessons::induction::{self, formed, letter, Figure};

use crate::ui::learn::head_maps::{draw_map, HeadMapData};
use crate::ui::platform::{canvas, screen};

/// One of the lesson's figures.
#[component]
pub fn InductionFigure(
    /// Which figure.
    figure: Figure,
    /// The widest the figure may be, CSS px.
    column: Signal<f64>,
) -> impl IntoView {
    let Some(h) = induction::run() else {
        return view! { <p>"The recorded training run is missing from this build."</p> }.into_any();
    };
    match figure {
        Figure::Sequence => sequence(h).into_any(),
        Figure::Heads => view! {
            <div class="al-induction-heads" data-testid="induction-heads">
                <HeadFigure layer=0 />
                <HeadFigure layer=1 />
            </div>
        }
        .into_any(),
        Figure::Curve => view! { <CurveFigure column=column /> }.into_any(),
    }
}

/// The sequence as a row of letters, each with its position; the scored ones marked.
fn sequence(h: &'static attention_engine::train::history::History) -> impl IntoView {
    view! {
        <figure class="al-induction-seq" data-testid="induction-sequence">
            <ol aria-label="The sequence, one token per position">
                {h
                    .tokens
                    .iter()
                    .zip(&h.targets)
                    .enumerate()
                    .map(|(i, (&x, &target))| {
                        view! {
                            <li class:al-scored=(target >= 0)>
                                <span class="al-induction-pos">{i}</span>
                                <span class="al-induction-tok">{letter(h, x)}</span>
                            </li>
                        }
                    })
                    .collect_view()}
            </ol>
            <figcaption>
                "Probe sequence 1 of the model's probe batch, its token ids written as letters; the number above each is its position. Outlined: the positions whose next token is scored (it can be known from the first round)."
            </figcaption>
        </figure>
    }
}

/// Layer `layer`'s (from 0) trained head on the sequence.
#[component]
fn HeadFigure(layer: usize) -> impl IntoView {
    let canvas = NodeRef::<html::Canvas>::new();
    let data = induction::run().and_then(|h| {
        let t = h.tokens.len();
        let labels: Vec<String> = h.tokens.iter().map(|&x| letter(h, x)).collect();
        Some(HeadMapData {
            values: Array2::from_shape_vec((t, t), h.attention.get(layer)?.clone()).ok()?,
            labels,
            blocked: (0..t * t).map(|k| k % t > k / t).collect(),
            scores: None,
            probe_loss: h.loss,
        })
    });
    Effect::new(move |_| {
        if let (Some(el), Some(d)) = (canvas.get(), data.as_ref()) {
            draw_map(&el, d);
        }
    });
    let (name, what) = if layer == 0 {
        ("Layer 1's head", "the previous-token head")
    } else {
        ("Layer 2's head", "the induction head")
    };
    view! {
        <figure class="al-learn-head" data-testid="induction-head" data-layer=layer>
            <figcaption>
                <strong>{name}</strong>
                {format!(", {what}. Rows: the query; columns: the key; blocked keys hatched.")}
            </figcaption>
            <canvas
                node_ref=canvas
                role="img"
                aria-label=format!("{name}: its trained attention weights on the sequence")
            ></canvas>
        </figure>
    }
}

/// The training loss and accuracy of every step, layer 2's formation step marked.
#[component]
fn CurveFigure(column: Signal<f64>) -> impl IntoView {
    let canvas = NodeRef::<html::Canvas>::new();
    let layout = Memo::new(move |_| CurveLayout::new(column.get().min(640.0), 240.0));
    let h = induction::run();
    let marker = h.and_then(|h| formed(h, 1)).map(|f| f.0);
    Effect::new(move |_| {
        let (Some(el), Some(h)) = (canvas.get(), h) else { return };
        let layout = layout.get();
        let dpr = screen::dpr();
        canvas::size(&el, layout.width, layout.height, dpr);
        let points: Vec<_> =
            h.losses.iter().zip(&h.accuracies).enumerate().map(|(s, (&l, &a))| (s, l, a)).collect();
        let Some(backend) = CanvasBackend::with_canvas_object(el.clone()) else { return };
        let curve = Curve { points: &points, x_max: points.len(), marker };
        if let Err(e) = draw_curve(&backend.into_drawing_area(), &curve, &layout, &screen::theme(), dpr) {
            leptos::logging::warn!("drawing the loss curve failed: {e:?}");
        }
    });
    let mark = marker
        .map_or_else(String::new, |s| format!(" The grey line marks step {s}, where layer 2's head formed."));
    // the recorded run's own length, not a number written here
    let steps = h.map_or(0, |h| h.losses.len());
    view! {
        <figure class="al-learn-curve" data-testid="induction-curve">
            <canvas
                node_ref=canvas
                role="img"
                aria-label="The loss and the accuracy of each training step's batch, against the step"
            ></canvas>
            <figcaption>
                {format!(
                    "Each of the {steps} steps' batch: its loss (cross-entropy, nats, left axis) and accuracy (right axis), before the update.{mark} ",
                )} <a href="?learn=induction" data-testid="induction-learn-link">
                    "Train this model yourself in the Learn tab"
                </a> " (the same seed: the same curve)."
            </figcaption>
        </figure>
    }
}
