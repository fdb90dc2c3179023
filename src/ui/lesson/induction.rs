//! The lesson "Induction heads"'s figures ([`Figure`]), drawn from its recorded training
//! run ([`induction::run`]): the sequence as letters, the trained heads' maps (drawn as the
//! Learn view draws a head), and the loss curve with the step at which layer 2's head
//! formed. The numbers are the engine's, from the file; this only places them.

use leptos::html;
use leptos::prelude::*;
use ndarray::Array2;

use crate::draw::curve::{Curve, CurveLayout};
use crate::draw::LABEL_FONT;
use crate::lessons::induction::{self, axis_labels, formed, letter, Figure};

use crate::ui::heatmap::card::LabelFont;
use crate::ui::learn::head_maps::{HeadMapData, HeadMapFigure, MapFit};
use crate::ui::learn::loss_curve::{draw_loss_curve, LossCurveFigure};
use crate::ui::lesson::induction_run;
use crate::ui::lesson::induction_zoom::InductionZoom;
use crate::ui::platform::address;
use crate::ui::state::app_state::AppState;
use crate::ui::state::page_layout::{lesson_max_height, one_head_at_a_time};
use crate::ui::state::url;

/// What the page reserves above and beside a head's map for its caption (and, one head
/// at a time, the picker), CSS px.
const MAP_CAPTION: f64 = 110.0;

/// What the zoom on the question's row takes above the maps, CSS px, in the normal view:
/// its caption and two rows of the largest cells.
const ZOOM_ROOM: f64 = 220.0;

/// The zoom's canvas in presenter mode, CSS px tall: two rows of cells large enough for
/// their numbers at 0.9 of presenter mode's 18 px labels, as the other maps' (the map
/// below, one at a time, has cells only as tall as its labels, too small for numbers).
const PRESENTER_ZOOM_CANVAS: f64 = 146.0;

/// What the zoom takes above the map in presenter mode, CSS px: its canvas and a caption
/// of one line.
const PRESENTER_ZOOM: f64 = 176.0;

/// The narrowest column, CSS px, in which each of the two maps gets half.
const SIDE_BY_SIDE: f64 = 320.0;

/// How large each of the two head maps may be in a column `column` px wide on a screen
/// `width × height` px, with labels of `font` px (presenter mode's 18): side by side
/// where two fit, one above the other in a narrow column, one at a time in presenter mode
/// (then `true`), where two side by side would draw cells smaller than their labels.
/// Presenting, the map leaves the zoom its room above it.
pub fn heads_fit(column: f64, width: f64, height: f64, font: f64, t: usize) -> (MapFit, bool) {
    let presenting = font > LABEL_FONT;
    if !presenting && column < 2.0 * SIDE_BY_SIDE {
        // one above the other, each at most the column (a phone, a narrow embed)
        let max_width = column.min(2.0 * SIDE_BY_SIDE - 32.0);
        let max_height = lesson_max_height(width, height, false);
        return (MapFit { max_width, max_height, font }, false);
    }
    let one = presenting && one_head_at_a_time(column, 2, t, font);
    let max_height = match lesson_max_height(width, height, presenting) {
        // presenting, the picture starts at the top of the screen, not under the card's title
        Some(_) if presenting => Some(height - MAP_CAPTION - PRESENTER_ZOOM),
        Some(h) => Some(h - MAP_CAPTION / 2.0 - ZOOM_ROOM),
        // a screen too narrow for words and picture side by side, but wide enough for two
        // maps (an 800 × 500 embed): the maps and their captions within the screen
        None => Some(height - 2.0 * MAP_CAPTION),
    };
    let max_width = if one { column } else { column / 2.0 - 16.0 };
    (MapFit { max_width, max_height, font }, one)
}

/// One of the lesson's figures.
#[component]
pub fn InductionFigure(
    /// Which figure.
    figure: Figure,
    /// The widest the figure may be, CSS px.
    column: Signal<f64>,
    /// The page's state (the screen's size).
    state: AppState,
) -> impl IntoView {
    // the run is fetched the first time a figure asks (`induction_run`): until it is
    // here, or if it cannot come, the figure's place says so
    move || {
        let Some(h) = induction::run() else {
            let failed = matches!(induction_run::status(), induction_run::Status::Failed(_));
            return view! {
                <p
                    class="al-induction-missing"
                    class:al-error=failed
                    data-testid="induction-missing"
                    role=failed.then_some("alert")
                    aria-busy=(!failed).then_some("true")
                >
                    {induction_run::missing()}
                </p>
            }
            .into_any();
        };
        match figure {
            Figure::Sequence => sequence(h).into_any(),
            Figure::Heads => view! { <HeadsFigure column=column state=state /> }.into_any(),
            Figure::Curve => view! { <CurveFigure column=column /> }.into_any(),
        }
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

/// Both trained heads, side by side, or one at a time with a picker in presenter mode;
/// in an embed, only the zoom on the row the words talk about.
#[component]
fn HeadsFigure(column: Signal<f64>, state: AppState) -> impl IntoView {
    // the stage's label font is presenter mode's when presenting
    let font = use_context::<LabelFont>().map_or(Signal::stored(LABEL_FONT), |f| f.0);
    let t = induction::run().map_or(1, |h| h.tokens.len());
    let fit = Memo::new(move |_| {
        heads_fit(column.get(), state.viewport.get(), state.viewport_height.get(), font.get(), t)
    });
    // an 800 × 500 embed has room for the zoom, not for two 20 × 20 maps whose labels
    // read (they were 9 px, in a box that scrolled): the zoom alone, the full page the maps
    if url::PageParams::split(address::query_pairs()).0.embed {
        return view! {
            <div class="al-induction-heads-wrap" data-testid="induction-heads">
                <InductionZoom width=column maps_below=false max_height=None font=LABEL_FONT />
            </div>
        }
        .into_any();
    }
    let picked = RwSignal::new(1usize);
    let one = move || fit.with(|f| f.1);
    let map_fit = Signal::derive(move || fit.get().0);
    let shown = move |layer: usize| !one() || picked.get() == layer;
    // the zoom on the question's row, with its numbers, above the maps (presenting too:
    // the map's cells are as tall as its labels there, too small for numbers)
    let zoom = move || {
        let font = font.get();
        let max_height = (font > LABEL_FONT).then_some(PRESENTER_ZOOM_CANVAS);
        view! { <InductionZoom width=column maps_below=true max_height=max_height font=font /> }
    };
    let picker = move || {
        one().then(|| {
            view! {
                <div class="al-learn-buttons" role="group" aria-label="Which head">
                    {[0usize, 1]
                        .map(|layer| {
                            view! {
                                <button
                                    type="button"
                                    data-testid="induction-head-pick"
                                    aria-pressed=move || (picked.get() == layer).to_string()
                                    on:click=move |_| picked.set(layer)
                                >
                                    {format!("Layer {}'s head", layer + 1)}
                                </button>
                            }
                        })}
                </div>
            }
        })
    };
    view! {
        <div class="al-induction-heads-wrap" data-testid="induction-heads">
            {zoom}
            {picker}
            <div class="al-induction-heads">
                {[0usize, 1]
                    .map(|layer| {
                        move || {
                            shown(layer)
                                .then(|| {
                                    // the box is the map's widest, so the caption wraps at it
                                    view! {
                                        <div
                                            class="al-induction-head-box"
                                            style:max-width=move || format!("{}px", map_fit.get().max_width)
                                        >
                                            <HeadFigure layer=layer fit=map_fit />
                                        </div>
                                    }
                                })
                        }
                    })}
            </div>
        </div>
    }
    .into_any()
}

/// Layer `layer`'s (from 0) trained head on the sequence, its axes each position and its
/// letter.
#[component]
fn HeadFigure(layer: usize, fit: Signal<MapFit>) -> impl IntoView {
    let data = induction::run().and_then(|h| {
        let t = h.tokens.len();
        Some(HeadMapData {
            values: Array2::from_shape_vec((t, t), h.attention.get(layer)?.clone()).ok()?,
            labels: axis_labels(&h.tokens),
            blocked: (0..t * t).map(|k| k % t > k / t).collect(),
            scores: None,
            probe_loss: h.loss,
        })
    });
    let (name, what) = if layer == 0 {
        ("Layer 1's head", "the previous-token head")
    } else {
        ("Layer 2's head", "the induction head")
    };
    view! {
        <HeadMapFigure
            data=Signal::stored(data)
            fit=fit
            name=name.to_owned()
            aria=format!("{name}: its trained attention weights on the sequence")
            testid="induction-head"
            layer=layer
            caption=move || {
                format!(
                    ", {what}. Rows: the query; columns: the key (each its position and letter); blocked keys hatched.",
                )
            }
        />
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
        let points: Vec<_> =
            h.losses.iter().zip(&h.accuracies).enumerate().map(|(s, (&l, &a))| (s, l, a)).collect();
        draw_loss_curve(&el, &layout.get(), &Curve { points: &points, x_max: points.len(), marker });
    });
    let mark = marker.map_or_else(String::new, |s| {
        format!(" The grey line marks {s} updates, where layer 2's head formed.")
    });
    // the recorded run's own length, not a number written here
    let steps = h.map_or(0, |h| h.losses.len());
    view! {
        <LossCurveFigure testid="induction-curve" canvas=canvas>
            <figcaption>
                {format!(
                    "Each of the {steps} steps' batch: its loss (cross-entropy, nats, left axis) and accuracy (right axis), before its update.{mark} ",
                )} <a href="?learn=induction" data-testid="induction-learn-link">
                    "Train this model yourself in the Learn tab"
                </a> " (the same seed: the same curve)."
            </figcaption>
        </LossCurveFigure>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Presenting at 1280 × 720 the maps come one at a time, each fitting the screen under
    /// the zoom with cells at least as tall as its 18 px labels; at 1440 × 900 two side by side, each
    /// larger than the Learn view's 300 px; on a phone each takes the column.
    #[test]
    fn each_map_fits_its_screen_and_reads_there() {
        let h = induction::run().unwrap();
        let (t, labels) = (h.tokens.len(), axis_labels(&h.tokens));
        let column = |w: f64, present: bool| crate::ui::state::page_layout::lesson_column(w, || present);
        let (fit, one) = heads_fit(column(1280.0, true), 1280.0, 720.0, 18.0, t);
        let l = fit.layout(&labels);
        assert!(one && l.cell >= 18.0 && l.height <= 720.0 - MAP_CAPTION - PRESENTER_ZOOM, "{l:?}");
        assert!(l.width <= column(1280.0, true));
        let (fit, one) = heads_fit(column(1440.0, false), 1440.0, 900.0, LABEL_FONT, t);
        let l = fit.layout(&labels);
        assert!(!one && l.width > 300.0 && 2.0 * l.width <= column(1440.0, false), "{l:?}");
        let (fit, one) = heads_fit(column(375.0, false), 375.0, 812.0, LABEL_FONT, t);
        assert!(!one && fit.layout(&labels).width <= column(375.0, false));
        // presenting, the zoom above the map writes the numbers the words quote in its
        // cells (the map's are too small for them), within the room the map leaves it
        let z = crate::ui::lesson::induction_zoom::zoom(h).unwrap();
        // at 0.9 of its 18 px labels, as large as the other presented maps' numbers
        for w in [1280.0, 1920.0] {
            let fit =
                MapFit { max_width: column(w, true), max_height: Some(PRESENTER_ZOOM_CANVAS), font: 18.0 };
            let zl = fit.layout_of(&z.rows, &z.keys);
            assert!(zl.height <= PRESENTER_ZOOM_CANVAS && zl.width <= column(w, true), "{zl:?}");
            let px = crate::draw::heatmap_text::cell_number_font(z.values.view(), &zl);
            assert!(px.is_some_and(|px| px >= 0.9 * 18.0 - 1e-9), "{w}: {px:?} {zl:?}");
        }
        let map = heads_fit(column(1280.0, true), 1280.0, 720.0, 18.0, t).0.layout(&labels);
        assert!(crate::draw::heatmap_text::cell_number_font(z.values.view(), &map).is_none(), "{map:?}");
        // an 800 px embed: side by side
        let (fit, one) = heads_fit(column(800.0, false), 800.0, 500.0, LABEL_FONT, t);
        let l = fit.layout(&labels);
        assert!(
            !one && 2.0 * l.width <= column(800.0, false) && l.height <= 500.0 - 2.0 * MAP_CAPTION,
            "{l:?}"
        );
    }
}
