//! Each head's attention map on the probe's first sequence, layer by layer, redrawn with
//! every answer from the worker, with the head's previous-token (and, on the induction
//! task, induction) score in words and its numbers in a table.

use leptos::html;
use leptos::prelude::*;
use ndarray::Array2;
use plotters::prelude::IntoDrawingArea;
use plotters_canvas::CanvasBackend;

use attention_worker::train::{HeadScores, ProbeView};

use crate::draw::{self, Heatmap, Layout, Scale, LABEL_FONT};
use crate::engine::train::TaskKind;
use crate::format::fixed;
use crate::lessons::induction::{axis_labels, letter_in};

use crate::ui::learn::loss_curve::percent;
use crate::ui::learn::run::LearnRun;
use crate::ui::platform::{canvas, screen};
use crate::ui::widgets::scroll_region::scroll_region;

/// What one head's card shows.
#[derive(Debug, Clone, PartialEq)]
pub struct HeadMapData {
    /// `(T, T)`: the head's weights, query rows, key columns.
    pub values: Array2<f64>,
    /// The probe's tokens, as the rows' and columns' labels.
    pub labels: Vec<String>,
    /// `(T, T)` row-major: blocked by the mask.
    pub blocked: Vec<bool>,
    /// The head's scores on the probe batch.
    pub scores: Option<HeadScores>,
    /// The probe batch's loss with every head on.
    pub probe_loss: f64,
}

/// The probe's labels on a map's axes: on the induction task each position and its
/// token as a letter, as the lesson writes them ("3 D"); else the token ids.
pub fn probe_labels(tokens: &[usize], task: TaskKind) -> Vec<String> {
    if task == TaskKind::Induction {
        axis_labels(tokens)
    } else {
        tokens.iter().map(ToString::to_string).collect()
    }
}

/// Token `id` as the view names it in the sequence `tokens`: a letter on the induction
/// task ([`letter_in`]), else its id.
pub fn token_name(tokens: &[usize], task: TaskKind, id: usize) -> String {
    if task == TaskKind::Induction {
        letter_in(tokens, id)
    } else {
        id.to_string()
    }
}

/// What the maps' labels are, in words.
pub fn labels_words(task: TaskKind) -> &'static str {
    if task == TaskKind::Induction {
        "The labels are each position and its token, the token ids written as letters as the induction lesson writes them: A for the sequence's first distinct token, B for the second…"
    } else {
        "The labels are token ids."
    }
}

impl HeadMapData {
    /// Head `head` of layer `layer` in the probe view, if there is one, labelled for
    /// `task` ([`probe_labels`]).
    pub fn of(probe: &ProbeView, layer: usize, head: usize, task: TaskKind) -> Option<Self> {
        let t = probe.tokens.len();
        let start = head.checked_mul(t * t)?;
        let weights = probe.attention.get(layer)?.get(start..start + t * t)?;
        Some(Self {
            values: Array2::from_shape_vec((t, t), weights.to_vec()).ok()?,
            labels: probe_labels(&probe.tokens, task),
            blocked: probe.blocked.clone(),
            scores: probe.heads.iter().find(|s| s.head.layer == layer && s.head.head == head).copied(),
            probe_loss: probe.loss,
        })
    }
}

/// The scores in words.
pub fn score_words(scores: &HeadScores, task: TaskKind) -> String {
    let previous = format!("{} of its weight on the previous token", percent(scores.previous_token));
    if task == TaskKind::Induction {
        format!(
            "On the probe batch, {previous}, and {} on the token after the current token's earlier occurrence (an induction head's place).",
            percent(scores.induction)
        )
    } else {
        format!("On the probe batch, {previous} (a previous-token head puts 100% there).")
    }
}

/// What switching the head off does, in words.
pub fn ablation_words(scores: &HeadScores, probe_loss: f64) -> String {
    format!(
        "Switched off (its output zeroed), the probe's loss would be {} instead of {}.",
        fixed(scores.ablated_loss, 3),
        fixed(probe_loss, 3)
    )
}

/// The Learn view's loss curve at its widest, CSS px (`loss_curve`'s cap), and the page's
/// and the view's padding on both sides.
const CURVE_WIDTH: f64 = 640.0;
const PADDING: f64 = 48.0 + 26.0;
/// The view's width at which the curve and the maps stand side by side (learn.css's
/// container query).
const SIDE_BY_SIDE: f64 = 1050.0;

/// How wide each head's map may be in the Learn view on a window `viewport` px wide with
/// `heads` heads per layer: the maps' column (beside the loss curve where the view is
/// wide, under it where not) shared by a layer's heads, at least the old 300 px where the
/// column has it and at most 480 px, so that a 20-token map's cells are about 20 px where
/// there is room, and never wider than a phone's column.
pub fn learn_map_width(viewport: f64, heads: usize) -> f64 {
    let inner = viewport - PADDING;
    let column = if inner > SIDE_BY_SIDE { inner - CURVE_WIDTH - 16.0 } else { inner };
    let heads = heads.max(1) as f64;
    let each = (column - 13.0 * (heads - 1.0)) / heads;
    each.min(480.0).max(300.0f64.min(inner))
}

/// Every layer's heads.
#[component]
pub fn HeadMaps(
    /// The training run.
    run: LearnRun,
    /// The window's width, CSS pixels.
    #[prop(into)]
    viewport: Signal<f64>,
) -> impl IntoView {
    let shown = run.shown();
    let dims = Memo::new(move |_| shown.with(|p| p.as_ref().map(|p| (p.attention.len(), p.n_heads))));
    let fit = Signal::derive(move || MapFit {
        max_width: learn_map_width(viewport.get(), dims.with(|d| d.map_or(1, |d| d.1))),
        ..MapFit::LEARN
    });
    view! {
        <section class="al-learn-maps" aria-label="Each head's attention on the probe sequence">
            <p class="al-learn-caption" data-testid="learn-maps-caption">
                "Each head's attention weights on the first probe sequence (rows: the query token; columns: the key token it reads; blocked keys are hatched). "
                {move || labels_words(run.settings.with(|s| s.task))}
            </p>
            {move || {
                dims.get()
                    .map(|(layers, heads)| {
                        (0..layers)
                            .map(|layer| {
                                view! {
                                    <h3>{format!("Layer {}", layer + 1)}</h3>
                                    <div class="al-learn-layer">
                                        {(0..heads)
                                            .map(|head| view! { <HeadMap run shown layer head fit /> })
                                            .collect_view()}
                                    </div>
                                }
                            })
                            .collect_view()
                    })
            }}
        </section>
    }
}

/// One head's map, its scores in words and its table.
#[component]
fn HeadMap(
    run: LearnRun,
    shown: Memo<Option<ProbeView>>,
    layer: usize,
    head: usize,
    fit: Signal<MapFit>,
) -> impl IntoView {
    let details = NodeRef::<html::Details>::new();
    let open = RwSignal::new(false);
    let task = Memo::new(move |_| run.settings.with(|s| s.task));
    let data = Memo::new(move |_| {
        let task = task.get();
        shown.with(|p| p.as_ref().and_then(|p| HeadMapData::of(p, layer, head, task)))
    });
    let words = move || data.with(|d| d.as_ref().and_then(|d| d.scores).map(|s| score_words(&s, task.get())));
    let ablation =
        move || data.with(|d| d.as_ref().and_then(|d| d.scores.map(|s| ablation_words(&s, d.probe_loss))));
    let name = format!("Layer {}, head {}", layer + 1, head + 1);
    let table_name = name.clone();
    view! {
        <HeadMapFigure
            data=data
            fit=fit
            name=name.clone()
            aria=format!("{name}: attention weights on the probe sequence")
            testid="learn-head"
            layer=layer
            head=head
            caption=move || {
                view! {
                    " "
                    <span data-testid="learn-head-score">{words}</span>
                    " "
                    <span data-testid="learn-head-ablation">{ablation}</span>
                }
            }
        >
            // the table is built while open only: it changes with every answer
            <details
                class="al-table"
                node_ref=details
                on:toggle=move |_| open.set(details.get().is_some_and(|d| d.open()))
            >
                <summary>"Table of numbers"</summary>
                {move || {
                    data.with(|d| {
                        d.as_ref()
                            .filter(|_| open.get())
                            .map(|d| {
                                scroll_region(
                                    format!("{table_name}: table of weights"),
                                    table(d, &table_name),
                                )
                            })
                    })
                }}
            </details>
        </HeadMapFigure>
    }
}

/// How large a head's map may be drawn: its width and height at most, CSS px, and its
/// labels' size.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MapFit {
    /// The widest the map may be.
    pub max_width: f64,
    /// The tallest it may be (`None`: as tall as its width makes it).
    pub max_height: Option<f64>,
    /// Its labels' size.
    pub font: f64,
}

impl MapFit {
    /// The Learn view's maps: at most 300 px wide, labels at the default size.
    pub const LEARN: MapFit = MapFit { max_width: 300.0, max_height: None, font: LABEL_FONT };

    /// The map's layout for `labels` on both axes: as wide as it may be, narrower (a
    /// pixel of cell at a time) where that would make it taller than it may be.
    pub fn layout(&self, labels: &[String]) -> Layout {
        self.layout_of(labels, labels)
    }

    /// As [`MapFit::layout`] with `rows` and `cols` labels of their own.
    pub fn layout_of(&self, rows: &[String], cols: &[String]) -> Layout {
        let mut width = self.max_width;
        let mut layout = Layout::with_font(rows, cols, width, self.font);
        while let Some(h) = self.max_height.filter(|&h| layout.height > h && layout.cell > 4.0) {
            width -= (layout.height - h).max(cols.len() as f64);
            layout = Layout::with_font(rows, cols, width, self.font);
        }
        layout
    }
}

/// A head's map as a figure: its name in bold and `caption` above the canvas, the
/// children (a table) under it; the canvas is drawn again whenever `data` or `fit`
/// changes. The Learn view, the induction lesson and the two-layer challenge draw their
/// heads with it.
#[component]
pub fn HeadMapFigure(
    /// The head's weights and labels.
    #[prop(into)]
    data: Signal<Option<HeadMapData>>,
    /// How large it may be.
    #[prop(into)]
    fit: Signal<MapFit>,
    /// The head's name, bold at the caption's start.
    name: String,
    /// The canvas's accessible name.
    aria: String,
    /// The rest of the caption, after the name.
    #[prop(into)]
    caption: ViewFnOnce,
    /// The figure's test id.
    #[prop(optional)]
    testid: Option<&'static str>,
    /// Its layer, for tests (`data-layer`).
    #[prop(optional)]
    layer: Option<usize>,
    /// Its head, for tests (`data-head`).
    #[prop(optional)]
    head: Option<usize>,
    /// What goes under the canvas.
    #[prop(optional)]
    children: Option<Children>,
) -> impl IntoView {
    let canvas = NodeRef::<html::Canvas>::new();
    Effect::new(move |_| {
        let Some(el) = canvas.get() else { return };
        let fit = fit.get();
        data.with(|d| {
            if let Some(d) = d {
                draw_map(&el, d, &fit);
            }
        });
    });
    view! {
        <figure class="al-learn-head" data-testid=testid data-layer=layer data-head=head>
            <figcaption>
                <strong>{name}</strong>
                {caption.run()}
            </figcaption>
            <canvas node_ref=canvas role="img" aria-label=aria></canvas>
            {children.map(|c| c())}
        </figure>
    }
}

/// Draws a head's map on `el`, sized by `fit`.
pub fn draw_map(el: &web_sys::HtmlCanvasElement, d: &HeadMapData, fit: &MapFit) {
    draw_weights(el, d.values.view(), (&d.labels, &d.labels), &d.blocked, fit);
}

/// Draws attention weights `values` (rows by columns, `blocked` row-major) on `el` with
/// the `(row, column)` labels, sized by `fit`: a head's map, or a few of its rows.
pub fn draw_weights(
    el: &web_sys::HtmlCanvasElement,
    values: ndarray::ArrayView2<'_, f64>,
    (rows, cols): (&[String], &[String]),
    blocked: &[bool],
    fit: &MapFit,
) {
    let layout = fit.layout_of(rows, cols);
    let dpr = screen::dpr();
    canvas::size(el, layout.width, layout.height, dpr);
    let Some(backend) = CanvasBackend::with_canvas_object(el.clone()) else { return };
    let (row_pads, col_pads) = (vec![false; rows.len()], vec![false; cols.len()]);
    let map = Heatmap {
        values,
        row_labels: rows,
        col_labels: cols,
        row_is_pad: &row_pads,
        col_is_pad: &col_pads,
        blocked,
        scale: Scale::weights(),
        col_group: None,
    };
    let put = |g: &draw::GridPixels| canvas::put_rgba(el, g.x, g.y, g.width, &g.rgba);
    let text = |items: &[draw::heatmap_text::TextItem]| canvas::fill_texts(el, items);
    let area = backend.into_drawing_area();
    if let Err(e) = draw::draw_heatmap_with_grid(
        draw::Canvas { area: &area, theme: &screen::theme(), dpr },
        &map,
        &layout,
        put,
        text,
    ) {
        leptos::logging::warn!("drawing a head's map failed: {e:?}");
    }
}

fn table(d: &HeadMapData, name: &str) -> impl IntoView {
    weights_table(
        d.values.view(),
        (&d.labels, &d.labels),
        format!("{name}: weights, query rows by key columns"),
        "query \\ key",
        None,
    )
}

/// Attention weights as a table: `(row, column)` labels, two decimals, a caption and the
/// corner cell's words; the head maps' and the induction lesson's zoom's.
pub fn weights_table(
    values: ndarray::ArrayView2<'_, f64>,
    (rows, cols): (&[String], &[String]),
    caption: String,
    corner: &'static str,
    testid: Option<&'static str>,
) -> impl IntoView {
    view! {
        <table data-testid=testid>
            <caption>{caption}</caption>
            <thead>
                <tr>
                    <th scope="col">{corner}</th>
                    {cols.iter().map(|c| view! { <th scope="col">{c.clone()}</th> }).collect_view()}
                </tr>
            </thead>
            <tbody>
                {rows
                    .iter()
                    .zip(values.rows())
                    .map(|(name, row)| {
                        view! {
                            <tr>
                                <th scope="row">{name.clone()}</th>
                                {row.iter().map(|&w| view! { <td>{fixed(w, 2)}</td> }).collect_view()}
                            </tr>
                        }
                    })
                    .collect_view()}
            </tbody>
        </table>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ui::learn::settings::LearnSettings;
    use attention_worker::train::Session;

    #[test]
    fn each_head_is_its_slice_of_the_probe() {
        let settings = LearnSettings { n_layers: 2, ..LearnSettings::default() };
        let mut session = Session::start(&settings.config_json()).unwrap();
        let probe = session.advance(3).probe;
        let t = probe.tokens.len();
        let d = HeadMapData::of(&probe, 1, 1, TaskKind::PreviousToken).unwrap();
        assert_eq!(d.values.dim(), (t, t));
        assert_eq!(d.values[[2, 1]], probe.attention[1][t * t + 2 * t + 1]);
        assert_eq!(d.scores.map(|s| s.head.layer), Some(1));
        assert!(
            HeadMapData::of(&probe, 2, 0, TaskKind::PreviousToken).is_none()
                && HeadMapData::of(&probe, 0, 2, TaskKind::PreviousToken).is_none()
        );
        assert_eq!(d.labels, probe.tokens.iter().map(ToString::to_string).collect::<Vec<_>>());
        let words = score_words(&d.scores.unwrap(), TaskKind::PreviousToken);
        assert!(
            words.starts_with("On the probe batch, ")
                && words.contains("% of its weight on the previous token")
        );
    }

    /// On the induction task the labels are the lesson's: the preset's first probe
    /// sequence is the lesson's sequence, so its axes read "0 A", "1 B"…
    #[test]
    fn induction_maps_are_labelled_as_the_lesson_writes_the_sequence() {
        let settings = LearnSettings::preset(TaskKind::Induction);
        let session = Session::start(&settings.config_json()).unwrap();
        let probe = session.probe_view();
        let h = crate::lessons::induction::run().unwrap();
        assert_eq!(probe.tokens, h.tokens);
        let d = HeadMapData::of(&probe, 0, 0, TaskKind::Induction).unwrap();
        assert_eq!(d.labels, axis_labels(&h.tokens));
        assert_eq!(d.labels[3], "3 D");
        assert_eq!(token_name(&probe.tokens, TaskKind::Induction, probe.tokens[1]), "B");
        assert_eq!(token_name(&probe.tokens, TaskKind::PreviousToken, 17), "17");
    }

    /// The Learn view's fit is the 300 px layout it always drew; a height limit narrows
    /// the map until it fits.
    #[test]
    fn a_fit_keeps_a_map_inside_its_height() {
        let labels: Vec<String> = (0..20).map(|i| format!("{i} A")).collect();
        assert_eq!(MapFit::LEARN.layout(&labels), Layout::new(&labels, &labels, 300.0));
        // the Learn view's maps use the room they have: 20 tokens at 1440 px get cells
        // of about 20 px, a phone keeps its column, two heads share theirs
        let twenty: Vec<String> = (0..20).map(|i| format!("{i} A")).collect();
        let wide = MapFit { max_width: learn_map_width(1440.0, 1), ..MapFit::LEARN }.layout(&twenty);
        assert!(wide.cell >= 18.0, "{wide:?}");
        assert!(learn_map_width(375.0, 1) <= 375.0 - 48.0);
        assert!(learn_map_width(1440.0, 2) < learn_map_width(1440.0, 1));
        assert!(learn_map_width(1440.0, 4) >= 150.0);
        let tall = MapFit { max_width: 650.0, max_height: Some(400.0), font: 18.0 };
        let l = tall.layout(&labels);
        assert!(l.height <= 400.0 && l.width <= 650.0, "{l:?}");
    }
}
