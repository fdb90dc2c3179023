//! Each head's attention map on the probe's first sequence, layer by layer, redrawn with
//! every answer from the worker, with the head's previous-token (and, on the induction
//! task, induction) score in words and its numbers in a table.

use leptos::html;
use leptos::prelude::*;
use ndarray::Array2;
use plotters::prelude::IntoDrawingArea;
use plotters_canvas::CanvasBackend;

use attention_worker::train::{HeadScores, ProbeView};

use crate::draw::{self, Heatmap, Layout, Scale};
use crate::engine::train::TaskKind;
use crate::format::fixed;

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

impl HeadMapData {
    /// Head `head` of layer `layer` in the probe view, if there is one.
    pub fn of(probe: &ProbeView, layer: usize, head: usize) -> Option<Self> {
        let t = probe.tokens.len();
        let start = head.checked_mul(t * t)?;
        let weights = probe.attention.get(layer)?.get(start..start + t * t)?;
        Some(Self {
            values: Array2::from_shape_vec((t, t), weights.to_vec()).ok()?,
            labels: probe.tokens.iter().map(ToString::to_string).collect(),
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

/// Every layer's heads.
#[component]
pub fn HeadMaps(
    /// The training run.
    run: LearnRun,
) -> impl IntoView {
    let shown = run.shown();
    let dims = Memo::new(move |_| shown.with(|p| p.as_ref().map(|p| (p.attention.len(), p.n_heads))));
    view! {
        <section class="al-learn-maps" aria-label="Each head's attention on the probe sequence">
            <p class="al-learn-caption">
                "Each head's attention weights on the first probe sequence (rows: the query token; columns: the key token it reads; blocked keys are hatched). The labels are token ids."
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
                                            .map(|head| view! { <HeadMap run shown layer head /> })
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
fn HeadMap(run: LearnRun, shown: Memo<Option<ProbeView>>, layer: usize, head: usize) -> impl IntoView {
    let canvas = NodeRef::<html::Canvas>::new();
    let details = NodeRef::<html::Details>::new();
    let open = RwSignal::new(false);
    let data = Memo::new(move |_| shown.with(|p| p.as_ref().and_then(|p| HeadMapData::of(p, layer, head))));
    Effect::new(move |_| {
        let Some(el) = canvas.get() else { return };
        data.with(|d| {
            if let Some(d) = d {
                draw_map(&el, d);
            }
        });
    });
    let words = move || {
        let task = run.settings.with(|s| s.task);
        data.with(|d| d.as_ref().and_then(|d| d.scores).map(|s| score_words(&s, task)))
    };
    let ablation =
        move || data.with(|d| d.as_ref().and_then(|d| d.scores.map(|s| ablation_words(&s, d.probe_loss))));
    let name = format!("Layer {}, head {}", layer + 1, head + 1);
    view! {
        <figure class="al-learn-head" data-testid="learn-head" data-layer=layer data-head=head>
            <figcaption>
                <strong>{name.clone()}</strong>
                " "
                <span data-testid="learn-head-score">{words}</span>
                " "
                <span data-testid="learn-head-ablation">{ablation}</span>
            </figcaption>
            <canvas
                node_ref=canvas
                role="img"
                aria-label=format!("{name}: attention weights on the probe sequence")
            ></canvas>
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
                            .map(|d| scroll_region(format!("{name}: table of weights"), table(d, &name)))
                    })
                }}
            </details>
        </figure>
    }
}

/// Draws a head's map on `el`, sized for it (at most 300 CSS px wide).
pub fn draw_map(el: &web_sys::HtmlCanvasElement, d: &HeadMapData) {
    let layout = Layout::new(&d.labels, &d.labels, 300.0);
    let dpr = screen::dpr();
    canvas::size(el, layout.width, layout.height, dpr);
    let Some(backend) = CanvasBackend::with_canvas_object(el.clone()) else { return };
    let pads = vec![false; d.labels.len()];
    let map = Heatmap {
        values: d.values.view(),
        row_labels: &d.labels,
        col_labels: &d.labels,
        row_is_pad: &pads,
        col_is_pad: &pads,
        blocked: &d.blocked,
        scale: Scale::weights(),
        col_group: None,
    };
    let put = |g: &draw::GridPixels| canvas::put_rgba(el, g.x, g.y, g.width, &g.rgba);
    let text = |items: &[draw::heatmap_text::TextItem]| canvas::fill_texts(el, items);
    let area = backend.into_drawing_area();
    if let Err(e) = draw::draw_heatmap_with_grid(&area, &map, &layout, &screen::theme(), dpr, put, text) {
        leptos::logging::warn!("drawing a head's map failed: {e:?}");
    }
}

fn table(d: &HeadMapData, name: &str) -> impl IntoView {
    let (rows, cols) = d.values.dim();
    view! {
        <table>
            <caption>{format!("{name}: weights, query rows by key columns")}</caption>
            <thead>
                <tr>
                    <th scope="col">"query \\ key"</th>
                    {(0..cols).map(|c| view! { <th scope="col">{d.labels[c].clone()}</th> }).collect_view()}
                </tr>
            </thead>
            <tbody>
                {(0..rows)
                    .map(|r| {
                        view! {
                            <tr>
                                <th scope="row">{d.labels[r].clone()}</th>
                                {(0..cols)
                                    .map(|c| view! { <td>{fixed(d.values[[r, c]], 2)}</td> })
                                    .collect_view()}
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
        let d = HeadMapData::of(&probe, 1, 1).unwrap();
        assert_eq!(d.values.dim(), (t, t));
        assert_eq!(d.values[[2, 1]], probe.attention[1][t * t + 2 * t + 1]);
        assert_eq!(d.scores.map(|s| s.head.layer), Some(1));
        assert!(HeadMapData::of(&probe, 2, 0).is_none() && HeadMapData::of(&probe, 0, 2).is_none());
        let words = score_words(&d.scores.unwrap(), TaskKind::PreviousToken);
        assert!(
            words.starts_with("On the probe batch, ")
                && words.contains("% of its weight on the previous token")
        );
    }
}
