//! The lines view of a `(B, h, T_q, T_k)` step: queries on the left, keys on the right,
//! one line per pair as opaque as its weight, one colour per head. Every token is a
//! button over the picture: hover or focus it (↑ ↓ within a column, ← → across) to see
//! only its lines, with the numbers. The top keys of every query are written below.

use std::sync::Arc;

use leptos::html;
use leptos::prelude::*;
use plotters::prelude::IntoDrawingArea;
use plotters_canvas::CanvasBackend;
use wasm_bindgen::JsCast;

use crate::draw::heatmap_layout::short_label;
use crate::draw::lines::{draw_lines, top_keys, Focus, Lines, LinesLayout};
use crate::draw::Canvas;
use crate::engine::{StepName, Trace};
use crate::format::short;

use crate::ui::explain::explained::Explained;
use crate::ui::heatmap::card_data::{axis_labels, AxisLabels};
use crate::ui::platform::{files, screen};

/// The numbers and labels the view draws, for one step and sentence.
#[derive(Debug, Clone, PartialEq)]
struct LinesData {
    heads: Vec<ndarray::Array2<f64>>,
    queries: Vec<String>,
    keys: Vec<String>,
    query_pad: Vec<bool>,
    key_pad: Vec<bool>,
    blocked: Vec<bool>,
    probabilities: bool,
}

impl LinesData {
    fn build(trace: &Trace, step: StepName, batch: usize) -> Option<Self> {
        let s = trace.step(step)?;
        if !(s.has_heads() && s.cols_are_keys()) {
            return None;
        }
        let heads: Vec<_> =
            (0..trace.sizes.n_heads).map_while(|h| s.matrix(batch, h).map(|m| m.to_owned())).collect();
        let (n_q, n_k) = heads.first()?.dim();
        let AxisLabels { rows: queries, cols: keys, row_pad: query_pad, col_pad: key_pad } =
            axis_labels(trace, step, batch);
        if queries.len() != n_q || keys.len() != n_k {
            return None;
        }
        let blocked = if matches!(step, StepName::Masked | StepName::Weights) {
            (0..n_q * n_k).map(|k| trace.mask.is_blocked(batch, k / n_k, k % n_k)).collect()
        } else {
            Vec::new()
        };
        Some(Self {
            heads,
            queries,
            keys,
            query_pad,
            key_pad,
            blocked,
            probabilities: step == StepName::Weights,
        })
    }

    fn lines(&self, focus: Option<Focus>) -> Lines<'_> {
        Lines {
            heads: self.heads.iter().map(|m| m.view()).collect(),
            queries: &self.queries,
            keys: &self.keys,
            query_pad: &self.query_pad,
            key_pad: &self.key_pad,
            blocked: &self.blocked,
            probabilities: self.probabilities,
            focus,
        }
    }

    /// "bat → baseball 0.34, bat 0.34, I 0.11" (head `h`, top `n` keys), or the NaN row.
    fn top_text(&self, h: usize, i: usize, n: usize) -> String {
        let lines = self.lines(None);
        let q = self.queries.get(i).cloned().unwrap_or_default();
        match top_keys(&lines, h, i, n) {
            None => format!("{q} → NaN (every key is blocked; 0/0)"),
            Some(keys) if keys.is_empty() => format!("{q} → no key"),
            Some(keys) => {
                let parts: Vec<String> = keys
                    .iter()
                    .map(|&(j, v)| {
                        let blocked = if lines.is_blocked(i, j) { " (blocked)" } else { "" };
                        format!("{} {}{blocked}", self.keys.get(j).cloned().unwrap_or_default(), short(v))
                    })
                    .collect();
                format!("{q} → {}", parts.join(", "))
            }
        }
    }

    /// What a focused token shows, head by head.
    fn focus_text(&self, focus: Focus) -> String {
        let n_heads = self.heads.len();
        let head = |h: usize| if n_heads > 1 { format!("head {}: ", h + 1) } else { String::new() };
        match focus {
            Focus::Query(i) => (0..n_heads)
                .map(|h| format!("{}{}", head(h), self.top_text(h, i, self.keys.len())))
                .collect::<Vec<_>>()
                .join(" · "),
            Focus::Key(j) => {
                let k = self.keys.get(j).cloned().unwrap_or_default();
                (0..n_heads)
                    .map(|h| {
                        let parts: Vec<String> = (0..self.queries.len())
                            .map(|i| {
                                let v = self
                                    .heads
                                    .get(h)
                                    .and_then(|m| m.get((i, j)).copied())
                                    .unwrap_or(f64::NAN);
                                format!("{} {}", self.queries.get(i).cloned().unwrap_or_default(), short(v))
                            })
                            .collect();
                        format!("{}{} ← {}", head(h), k, parts.join(", "))
                    })
                    .collect::<Vec<_>>()
                    .join(" · ")
            }
        }
    }
}

/// The lines view of `step` for sentence `batch`.
#[component]
pub fn LinesView(
    /// The shown trace.
    #[prop(into)]
    trace: Signal<Option<Arc<Trace>>>,
    /// The step and sentence shown.
    #[prop(into)]
    selection: Signal<(StepName, usize)>,
    /// The widest the picture may be, CSS pixels.
    #[prop(into)]
    max_width: Signal<f64>,
) -> impl IntoView {
    let canvas = NodeRef::<html::Canvas>::new();
    let root = NodeRef::<html::Div>::new();
    let focus = RwSignal::new(None::<Focus>);
    let data = Memo::new(move |_| {
        let (step, batch) = selection.get();
        trace.with(|t| t.as_ref().and_then(|t| LinesData::build(t, step, batch)))
    });
    let layout = Memo::new(move |_| {
        data.with(|d| {
            d.as_ref().map(|d| {
                let longest = d
                    .queries
                    .iter()
                    .chain(&d.keys)
                    .map(|l| short_label(l).chars().count())
                    .max()
                    .unwrap_or(1);
                LinesLayout::new(d.queries.len(), d.keys.len(), longest, max_width.get())
            })
        })
    });
    // a focus outside the (edited) sentence is dropped
    let shown_focus = move || {
        let f = focus.get()?;
        data.with(|d| {
            let d = d.as_ref()?;
            match f {
                Focus::Query(i) if i < d.queries.len() => Some(f),
                Focus::Key(j) if j < d.keys.len() => Some(f),
                _ => None,
            }
        })
    };

    Effect::new(move |_| {
        let Some(el) = canvas.get() else { return };
        let Some(layout) = layout.get() else { return };
        let f = shown_focus();
        data.with(|d| {
            let Some(d) = d else { return };
            let dpr = screen::dpr();
            el.set_width((layout.width * dpr).round() as u32);
            el.set_height((layout.height * dpr).round() as u32);
            let Some(backend) = CanvasBackend::with_canvas_object(el.clone()) else { return };
            if let Err(e) = draw_lines(
                Canvas { area: &backend.into_drawing_area(), theme: &screen::theme(), dpr },
                &d.lines(f),
                &layout,
            ) {
                leptos::logging::warn!("drawing the lines failed: {e:?}");
            }
        });
    });

    let size =
        move || layout.with(|l| l.as_ref().map(|l| format!("width:{}px;height:{}px", l.width, l.height)));
    let readout = move || match shown_focus() {
        Some(f) => data.with(|d| d.as_ref().map(|d| d.focus_text(f))).unwrap_or_default(),
        None => {
            "Point at a token, or Tab to one and use the arrow keys, to see only its lines and their numbers."
                .into()
        }
    };
    let png = move |_| {
        if let Some(el) = canvas.get_untracked() {
            if let Ok(url) = el.to_data_url() {
                let (step, batch) = selection.get_untracked();
                files::download_url(&format!("{step}-b{batch}-lines.png"), &url);
            }
        }
    };
    // while the learner guesses a value of this step and sentence, the lines (their
    // opacity, the numbers on focus, the top keys) would tell it: they wait for Reveal
    let explained = use_context::<Explained>();
    let guessing = move || {
        let (step, batch) = selection.get();
        explained.is_some_and(|e| e.hides_step(step, batch))
    };
    view! {
        <figure class="al-card al-lines" data-testid="lines-view" hidden=move || data.with(Option::is_none)>
            <figcaption>
                <span class="al-card-title">"Lines: opacity = weight"</span>
                {move || data.with(|d| d.as_ref().and_then(head_legend))}
                <span class="al-card-actions">
                    <button type="button" class="al-small" on:click=png title="Download this picture as PNG">
                        "PNG"
                    </button>
                </span>
            </figcaption>
            <p class="al-hint" data-testid="lines-guessing" hidden=move || !guessing()>
                "The lines show the weights you are guessing: they come back after Reveal (in the explanation under View as heatmaps)."
            </p>
            <div class="al-lines-wrap" node_ref=root style=size hidden=guessing>
                <canvas
                    node_ref=canvas
                    data-testid="lines-canvas"
                    role="img"
                    aria-label="Lines from each query token to each key token; the list below says the same in words"
                    style=size
                ></canvas>
                <TokenButtons data=data layout=layout focus=focus root=root />
            </div>
            <p class="al-readout" data-testid="lines-readout" aria-live="polite" hidden=guessing>
                {readout}
            </p>
            <h3 class="al-lines-text-title" hidden=guessing>
                "Top keys for each query"
            </h3>
            <ul class="al-lines-text" data-testid="lines-text" hidden=guessing>
                {move || data.with(|d| d.as_ref().map(top_key_items))}
            </ul>
        </figure>
    }
}

/// A button over each query and key token: hovering or focusing it shows only its lines;
/// ↑ ↓ move within a column, ← → to the other one.
#[component]
fn TokenButtons(
    /// What the view shows.
    data: Memo<Option<LinesData>>,
    /// Where each token sits.
    layout: Memo<Option<LinesLayout>>,
    /// The focused token.
    focus: RwSignal<Option<Focus>>,
    /// The element holding the buttons, to move the keyboard focus within.
    root: NodeRef<html::Div>,
) -> impl IntoView {
    // ↑ ↓ within a column, ← → to the other column (the same row, or its last token)
    let move_focus = move |ev: leptos::ev::KeyboardEvent, from: Focus| {
        let (n_q, n_k) =
            data.with_untracked(|d| d.as_ref().map_or((0, 0), |d| (d.queries.len(), d.keys.len())));
        if n_q == 0 || n_k == 0 {
            return;
        }
        let next = match (ev.key().as_str(), from) {
            ("ArrowUp", Focus::Query(i)) => Focus::Query(i.saturating_sub(1)),
            ("ArrowDown", Focus::Query(i)) => Focus::Query((i + 1).min(n_q - 1)),
            ("ArrowUp", Focus::Key(j)) => Focus::Key(j.saturating_sub(1)),
            ("ArrowDown", Focus::Key(j)) => Focus::Key((j + 1).min(n_k - 1)),
            ("ArrowRight", Focus::Query(i)) => Focus::Key(i.min(n_k - 1)),
            ("ArrowLeft", Focus::Key(j)) => Focus::Query(j.min(n_q - 1)),
            _ => return,
        };
        ev.prevent_default();
        ev.stop_propagation();
        let selector = match next {
            Focus::Query(i) => format!("[data-side=\"query\"][data-index=\"{i}\"]"),
            Focus::Key(j) => format!("[data-side=\"key\"][data-index=\"{j}\"]"),
        };
        if let Some(el) = root
            .get_untracked()
            .and_then(|r| r.query_selector(&selector).ok().flatten())
            .and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok())
        {
            let _ = el.focus();
        }
    };

    move || {
        let l = layout.get()?;
        data.with(|d| {
            let d = d.as_ref()?;
            let button = |side: &'static str, idx: usize, label: String, rect: (f64, f64, f64, f64)| {
                let f = if side == "query" { Focus::Query(idx) } else { Focus::Key(idx) };
                let aria = format!("{side} {} “{label}”", idx + 1);
                view! {
                    <button
                        type="button"
                        class="al-lines-token"
                        class:al-lines-focused=move || focus.get() == Some(f)
                        data-testid="lines-token"
                        data-side=side
                        data-index=idx
                        aria-label=aria
                        style=format!(
                            "left:{}px;top:{}px;width:{}px;height:{}px",
                            rect.0,
                            rect.1,
                            rect.2,
                            rect.3,
                        )
                        on:mouseenter=move |_| focus.set(Some(f))
                        on:mouseleave=move |_| focus.set(None)
                        on:focus=move |_| focus.set(Some(f))
                        on:blur=move |_| focus.set(None)
                        on:keydown=move |ev| move_focus(ev, f)
                    >
                        {label}
                    </button>
                }
            };
            let qs =
                d.queries.iter().enumerate().map(|(i, q)| button("query", i, q.clone(), l.query_rect(i)));
            let ks = d.keys.iter().enumerate().map(|(j, k)| button("key", j, k.clone(), l.key_rect(j)));
            Some(qs.chain(ks).collect_view())
        })
    }
}

/// One coloured name per head, when there is more than one.
fn head_legend(d: &LinesData) -> Option<impl IntoView> {
    let n = d.heads.len();
    (n > 1).then(|| {
        (0..n)
            .map(|h| {
                view! {
                    <span class="al-lines-head" style=format!("--head-color: var(--al-head-{})", h % 8)>
                        {format!("head {}", h + 1)}
                    </span>
                }
            })
            .collect_view()
    })
}

/// The top three keys of every query that is not padding, head by head, as list items.
fn top_key_items(d: &LinesData) -> impl IntoView {
    let n_heads = d.heads.len();
    (0..n_heads)
        .flat_map(|h| (0..d.queries.len()).map(move |i| (h, i)))
        .filter(|&(_, i)| !d.query_pad.get(i).copied().unwrap_or(false))
        .map(|(h, i)| {
            let head = if n_heads > 1 { format!("head {}: ", h + 1) } else { String::new() };
            view! { <li>{format!("{head}{}", d.top_text(h, i, 3))}</li> }
        })
        .collect_view()
}
