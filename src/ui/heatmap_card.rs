//! One heatmap of one step, sentence and head: the canvas (plotters-canvas), the value
//! under the pointer or keyboard cursor, the equivalent table, and its exports.

use std::sync::Arc;

use leptos::html;
use leptos::prelude::*;
use plotters::prelude::IntoDrawingArea;
use plotters_canvas::CanvasBackend;

use crate::draw::{self, heatmap::short_number, Heatmap, Layout, Scale};
use crate::engine::{Role, StepName, Trace};
use crate::format::exact;

use super::dom;
use super::explain_panel::{outlines, ExplainPanel, Explained};

/// Which heatmap a card shows: its key in the list of cards. A card with the same key
/// is kept across edits, so its keyboard cursor and its table stay where they were.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct CardId {
    /// The step.
    pub step: StepName,
    /// Sentence.
    pub batch: usize,
    /// Head (0 for steps without heads).
    pub head: usize,
}

/// Everything a card draws, read from the trace for one [`CardId`]. Compared number by
/// number (bitwise, so NaN equals NaN) to decide whether the card must be redrawn: a
/// head whose numbers did not change is not drawn again.
#[derive(Debug, Clone)]
pub struct CardData {
    /// The matrix.
    pub values: ndarray::Array2<f64>,
    /// Row labels (tokens).
    pub rows: Vec<String>,
    /// Column labels (tokens or features).
    pub cols: Vec<String>,
    /// Which rows are `<pad>`.
    pub row_pad: Vec<bool>,
    /// Which columns are `<pad>`.
    pub col_pad: Vec<bool>,
    /// Row-major: blocked by the mask (masked and weights only).
    pub blocked: Vec<bool>,
    /// Columns per head band (q, k, v, concat with several heads).
    pub col_group: Option<usize>,
    /// Columns are key tokens.
    pub square: bool,
    /// The step has a head axis.
    pub has_heads: bool,
    /// Row sums, for the query-by-key steps.
    pub row_sums: Vec<f64>,
}

impl PartialEq for CardData {
    fn eq(&self, other: &Self) -> bool {
        self.values.dim() == other.values.dim()
            && self.values.iter().zip(other.values.iter()).all(|(a, b)| a.to_bits() == b.to_bits())
            && self.rows == other.rows
            && self.cols == other.cols
            && self.row_pad == other.row_pad
            && self.col_pad == other.col_pad
            && self.blocked == other.blocked
            && self.col_group == other.col_group
    }
}

impl CardData {
    /// The card's numbers and labels, or `None` if the trace has no such matrix (a step
    /// it does not have, a sentence or head out of range): never an index out of bounds.
    pub fn build(trace: &Trace, id: CardId) -> Option<Self> {
        let step = trace.step(id.step)?;
        let values = step.matrix(id.batch, id.head)?.to_owned();
        let (rows, cols, row_pad, col_pad) = axis_labels(trace, id.step, id.batch);
        let (n_rows, n_cols) = values.dim();
        if rows.len() != n_rows || cols.len() != n_cols {
            return None;
        }
        let blocked = if matches!(id.step, StepName::Masked | StepName::Weights) {
            (0..n_rows * n_cols).map(|k| trace.mask.is_blocked(id.batch, k / n_cols, k % n_cols)).collect()
        } else {
            Vec::new()
        };
        let col_group = (matches!(id.step, StepName::Q | StepName::K | StepName::V | StepName::Concat)
            && trace.sizes.n_heads > 1)
            .then_some(trace.sizes.d_k);
        let square = step.cols_are_keys();
        let row_sums = if square {
            (0..n_rows).filter_map(|r| step.row_sum(id.batch, id.head, r)).collect()
        } else {
            vec![]
        };
        Some(Self {
            values,
            rows,
            cols,
            row_pad,
            col_pad,
            blocked,
            col_group,
            square,
            has_heads: step.has_heads(),
            row_sums,
        })
    }

    /// The read-out for cell `(r, c)`.
    pub fn readout(&self, r: usize, c: usize) -> Option<String> {
        let v = *self.values.get((r, c))?;
        let mut text = if self.square {
            format!("query “{}” → key “{}”: {}", self.rows.get(r)?, self.cols.get(c)?, exact(v))
        } else {
            format!("“{}”, {}: {}", self.rows.get(r)?, self.cols.get(c)?, exact(v))
        };
        if self.blocked.get(r * self.values.ncols() + c).copied().unwrap_or(false) {
            text.push_str(" (blocked by the mask)");
        }
        if let Some(sum) = self.row_sums.get(r) {
            text.push_str(&format!(" · row sum {}", exact(*sum)));
        }
        Some(text)
    }
}

/// Row and column labels of a step's matrix, and which of them are `<pad>`.
///
/// The step says what its rows and columns are ([`StepName::rows`], [`StepName::cols`]):
/// query tokens, key tokens (cross-attention's `x_kv`, `k`, `v`, `k_heads`, `v_heads` rows
/// and the `(B, h, T_q, T_k)` columns) or features. The labels always number exactly the
/// matrix's rows and columns, whatever the trace holds.
pub fn axis_labels(
    trace: &Trace,
    step: StepName,
    batch: usize,
) -> (Vec<String>, Vec<String>, Vec<bool>, Vec<bool>) {
    let Some(s) = trace.step(step) else { return (vec![], vec![], vec![], vec![]) };
    let (n_rows, n_cols) = s.matrix(batch, 0).map_or((0, 0), |m| m.dim());
    let tokens = |role: Role, n: usize| {
        let (texts, len) = match role {
            Role::Keys => (trace.key_tokens(batch), trace.key_length(batch)),
            _ => (trace.query_tokens(batch), trace.query_length(batch)),
        };
        let labels = (0..n).map(|i| texts.get(i).cloned().unwrap_or_else(|| format!("#{}", i + 1))).collect();
        (labels, (0..n).map(|i| i >= len).collect::<Vec<bool>>())
    };
    let features = |n: usize| -> (Vec<String>, Vec<bool>) {
        let named = trace.feature_names.as_ref().filter(|f| f.len() == n);
        let labels = match (s.name.cols(), named) {
            (Role::Features, Some(names)) if matches!(step, StepName::X | StepName::XKv) => {
                names.iter().map(|s| s.to_string()).collect()
            }
            (Role::HeadFeatures, _) => (0..n).map(|j| format!("d_k {j}")).collect(),
            _ => {
                let d_k = trace.sizes.d_k.max(1);
                (0..n).map(|j| format!("h{} · {}", j / d_k + 1, j % d_k)).collect()
            }
        };
        (labels, vec![false; n])
    };
    let (rows, row_pad) = tokens(step.rows(), n_rows);
    let (cols, col_pad) = match step.cols() {
        Role::Keys | Role::Queries => tokens(step.cols(), n_cols),
        Role::Features | Role::HeadFeatures => features(n_cols),
    };
    (rows, cols, row_pad, col_pad)
}

/// The layout for at most `width` × `height` CSS pixels: the cells shrink (the labels
/// keep their size) until the picture is no taller than `height`.
pub fn fit_layout(rows: &[String], cols: &[String], width: f64, height: Option<f64>) -> Layout {
    let mut layout = Layout::new(rows, cols, width);
    let Some(height) = height else { return layout };
    for _ in 0..4 {
        if layout.height <= height {
            break;
        }
        let target = ((height - layout.top - 8.0) / layout.n_rows as f64).floor().max(4.0);
        if target >= layout.cell {
            break;
        }
        layout = Layout::new(rows, cols, layout.width - (layout.cell - target) * layout.n_cols as f64);
    }
    layout
}

/// Cards with at least this many cells are drawn in a task of their own (`dom::later`).
const DRAW_APART_CELLS: usize = 8192;

/// A heatmap, its hover read-out, table and export buttons. Keyed by [`CardId`]: the card
/// lives as long as the step, sentence and head are shown, and redraws itself only when
/// its numbers, labels, scale or width change.
#[component]
pub fn HeatmapCard(
    #[prop(into)] trace: Signal<Option<Arc<Trace>>>,
    id: CardId,
    #[prop(into)] scale: Signal<Scale>,
    #[prop(into)] max_width: Signal<f64>,
    /// The tallest the picture may be, if limited: the cells shrink to fit.
    #[prop(into)]
    max_height: Signal<Option<f64>>,
) -> impl IntoView {
    let canvas = NodeRef::<html::Canvas>::new();
    let cursor = RwSignal::new(None::<(usize, usize)>);
    let data = Memo::new(move |_| trace.with(|t| t.as_ref().and_then(|t| CardData::build(t, id))));
    let layout = Memo::new(move |_| {
        let (width, height) = (max_width.get(), max_height.get());
        data.with(|d| d.as_ref().map(|d| fit_layout(&d.rows, &d.cols, width, height)))
    });
    // With a height budget (a lesson's picture, presenter mode), a small matrix is drawn
    // larger, labels and numbers included, up to 2.5 times, to fill its place.
    let zoom = Memo::new(move |_| {
        let (Some(l), Some(height)) = (layout.get(), max_height.get()) else { return 1.0 };
        (max_width.get() / l.width).min(height / l.height).clamp(1.0, 2.5)
    });
    let dims = move || data.with(|d| d.as_ref().map_or((0, 0), |d| d.values.dim()));

    // Draw whenever the numbers, the layout or the scale change (and only then). A large
    // card draws in a task of its own (`dom::later`), with the newest values when its turn
    // comes: eight 128 × 128 cards drawn in one go took ~25 ms, too close to a long task
    // (since BENCHMARKS R4.3 about 12 ms: they now fit in one of `dom::later`'s tasks).
    let draw =
        move |el: &web_sys::HtmlCanvasElement, layout: &Layout, zoom: f64, scale: Scale, d: &CardData| {
            dom::mark("al-draw-start");
            // drawing at `dpr · zoom` device pixels per layout pixel enlarges everything
            let dpr = dom::dpr() * zoom;
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
            let put = |g: &draw::GridPixels| dom::put_rgba(el, g.x, g.y, g.width, &g.rgba);
            let area = backend.into_drawing_area();
            // the texts with the canvas's own fillText: one font per size, nothing measured
            let text = |items: &[draw::heatmap::TextItem]| dom::fill_texts(el, items);
            if let Err(e) = draw::draw_heatmap_with_grid(&area, &map, layout, &dom::theme(), dpr, put, text) {
                leptos::logging::warn!("drawing {} failed: {e:?}", id.step);
            }
            dom::mark("al-draw-end");
        };
    let later_key = dom::later_key();
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
        dom::later(later_key, move || {
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
    // The explanation panel (one per page, see explain_panel.rs): Enter or a click opens
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
            {ops.into_iter().map(|(style, same)| view! {
                <div class="al-operand" class:al-operand-same=same data-testid="operand-outline" style=style></div>
            }).collect_view()}
            {own.map(|style| view! { <div class="al-ex-cell" data-testid="explained-outline" style=style></div> })}
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
    let highlighted = super::highlight::cells_of(id);
    let highlight_boxes = move || {
        let (n_rows, n_cols) = dims();
        let z = zoom.get();
        let boxes: Vec<String> = layout.with(|l| {
            let Some(l) = l.as_ref() else { return Vec::new() };
            highlighted
                .get()
                .into_iter()
                .filter(|&(r, c)| r < n_rows && c < n_cols)
                .map(|(r, c)| {
                    let (x, y, side) = l.cell_rect(r, c);
                    let (x, y, side) = (x * z, y * z, side * z);
                    format!("left:{x}px;top:{y}px;width:{side}px;height:{side}px")
                })
                .collect()
        });
        boxes
            .into_iter()
            .map(|style| view! { <div class="al-highlight-cell" data-testid="highlight" style=style></div> })
            .collect_view()
    };

    let label = move || {
        let (n_rows, n_cols) = dims();
        let head = data.with(|d| d.as_ref().is_some_and(|d| d.has_heads));
        format!(
            "{} heatmap, sentence {}{}, {} rows by {} columns",
            id.step,
            id.batch + 1,
            if head { format!(", head {}", id.head + 1) } else { String::new() },
            n_rows,
            n_cols
        )
    };
    let file_stem = format!("{}-b{}-h{}", id.step, id.batch, id.head);
    let png = {
        let stem = file_stem.clone();
        move |_| {
            if let Some(el) = canvas.get_untracked() {
                if let Ok(url) = el.to_data_url() {
                    dom::download_url(&format!("{stem}.png"), &url);
                }
            }
        }
    };
    let csv_click = move |_| {
        // built on click: formatting every number up front slowed every edit down
        data.with_untracked(|d| {
            if let Some(d) = d {
                dom::download_text(
                    &format!("{file_stem}.csv"),
                    "text/csv",
                    &csv(&d.rows, &d.cols, &d.values),
                );
            }
        })
    };
    let title = move || {
        if data.with(|d| d.as_ref().is_some_and(|d| d.has_heads)) {
            format!("head {}", id.head + 1)
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
                <span class="al-card-title" style=format!("--head-color: var(--al-head-{})", id.head % 8)>{title}</span>
                <span class="al-card-actions">
                    <button type="button" class="al-small" on:click=png title="Download this heatmap as PNG">"PNG"</button>
                    <button type="button" class="al-small" on:click=csv_click title="Download this matrix as CSV">"CSV"</button>
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
                    tabindex="0"
                    role="img"
                    aria-label=label
                    on:mousemove=on_move
                    on:click=on_click
                    on:mouseleave=move |_| cursor.set(None)
                    on:keydown=on_key
                    on:focus=move |_| if cursor.get_untracked().is_none() { cursor.set(Some((0, 0))) }
                ></canvas>
                <div class="al-cursor" style=outline hidden=move || clamped().is_none()></div>
                {marks}
                {highlight_boxes}
            </div>
            <p class="al-readout" data-testid="readout" aria-live="polite">
                {move || readout().unwrap_or_else(|| "Point at a cell (or focus the map and use the arrow keys; Enter explains it) to read its exact value.".into())}
            </p>
            {table}
            </div>
            <Show when=move || panel_open.get()>
                {move || explained.map(|e| view! {
                    <ExplainPanel trace=trace explained=e on_close=Callback::new(move |()| {
                        e.close();
                        if let Some(el) = canvas.get_untracked() {
                            let _ = el.focus();
                        }
                    }) />
                })}
            </Show>
            </div>
        </figure>
    }
}

/// Largest matrix that gets a table (128 × 128, the page's largest T); bigger ones are
/// exported as CSV.
const MAX_TABLE_CELLS: usize = 128 * 128;

/// Tables up to this many cells are in the page from the start (cheap, and what the
/// browser tests read); bigger ones are built when "Table of numbers" is opened.
const EAGER_TABLE_CELLS: usize = 256;

/// Whether the learner has opened "Table of numbers": one switch for every card, so
/// tables stay open while the cards are rebuilt by edits.
#[derive(Debug, Clone, Copy)]
pub struct TablesOpen(pub RwSignal<bool>);

/// `td[data-r="r"][data-c="c"]`.
fn cell_selector((r, c): (usize, usize)) -> String {
    format!("td[data-r=\"{r}\"][data-c=\"{c}\"]")
}

/// The `(row, column)` of the table cell an event happened in.
fn cell_of(target: Option<web_sys::EventTarget>) -> Option<(usize, usize)> {
    let el = wasm_bindgen::JsCast::dyn_into::<web_sys::Element>(target?).ok()?;
    let td = el.closest("td[data-r]").ok()??;
    let r = td.get_attribute("data-r")?.parse().ok()?;
    let c = td.get_attribute("data-c")?.parse().ok()?;
    Some((r, c))
}

/// The cells of card `id`'s table to mark: the explained cell, and the cells it reads.
fn table_marks(e: Explained, id: CardId, n_rows: usize, n_cols: usize) -> Vec<(usize, usize, &'static str)> {
    let Some((r, c)) = e.cell.with(|x| x.filter(|(i, _, _)| *i == id).map(|(_, r, c)| (r, c))) else {
        return vec![];
    };
    let mut out = Vec::new();
    e.explanation.with(|ex| {
        if let Some(Ok(ex)) = ex {
            if let Some(trace) = e.trace.get_untracked() {
                for o in outlines(&trace, ex, id) {
                    for rr in o.rows.0..o.rows.1.min(n_rows) {
                        for cc in o.cols.0..o.cols.1.min(n_cols) {
                            out.push((rr, cc, "al-operand"));
                        }
                    }
                }
            }
        }
    });
    if r < n_rows && c < n_cols {
        out.push((r, c, "al-explained"));
    }
    out
}

/// The matrix as CSV: a header of column labels, then one labelled row per query.
pub fn csv(rows: &[String], cols: &[String], values: &ndarray::Array2<f64>) -> String {
    let mut out = String::from("query");
    for c in cols {
        out.push(',');
        out.push_str(&csv_field(c));
    }
    out.push('\n');
    for (label, row) in rows.iter().zip(values.rows()) {
        out.push_str(&csv_field(label));
        for v in row {
            out.push(',');
            out.push_str(&exact(*v));
        }
        out.push('\n');
    }
    out
}

fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_owned()
    }
}

/// The table's corner: what its rows and columns are, from the step's roles
/// ("query ↓ key →", "key/value token ↓ feature →").
fn corner(step: StepName) -> &'static str {
    match (step.rows(), step.cols()) {
        (Role::Queries, Role::Keys) => "query ↓ key →",
        (Role::Keys, Role::HeadFeatures) => "key/value token ↓ d_k →",
        (Role::Keys, _) => "key/value token ↓ feature →",
        (_, Role::HeadFeatures) => "token ↓ d_k →",
        _ => "token ↓ feature →",
    }
}

/// The heatmap's numbers as an HTML table, for screen readers and copying. Each cell's
/// `data-value` is the exact number (`NaN`, `-Infinity` as strings).
#[component]
pub fn MatrixTable(
    values: ndarray::Array2<f64>,
    rows: Vec<String>,
    cols: Vec<String>,
    blocked: Vec<bool>,
    step: StepName,
    batch: usize,
    head: usize,
) -> impl IntoView {
    let n_cols = values.ncols();
    let n_rows = values.nrows();
    let eager = values.len() <= EAGER_TABLE_CELLS;
    let id = CardId { step, batch, head };
    let table_ref = NodeRef::<html::Table>::new();
    let explained = use_context::<Explained>();
    // A click, or Enter, on a cell explains it; the arrow keys move between cells (and
    // the explanation, while it is open on this table's card).
    let on_cell_click = move |ev: leptos::ev::MouseEvent| {
        if let (Some((r, c)), Some(e)) = (cell_of(ev.target()), explained) {
            e.open(id, r, c);
        }
    };
    let on_cell_key = move |ev: leptos::ev::KeyboardEvent| {
        let Some((r, c)) = cell_of(ev.target()) else { return };
        let next = match ev.key().as_str() {
            "Enter" | " " => {
                ev.prevent_default();
                if let Some(e) = explained {
                    e.open(id, r, c);
                }
                return;
            }
            "Escape" => {
                if let Some(e) = explained.filter(|e| e.in_card_untracked(id).is_some()) {
                    e.close();
                }
                return;
            }
            "ArrowUp" => (r.saturating_sub(1), c),
            "ArrowDown" => ((r + 1).min(n_rows.saturating_sub(1)), c),
            "ArrowLeft" => (r, c.saturating_sub(1)),
            "ArrowRight" => (r, (c + 1).min(n_cols.saturating_sub(1))),
            _ => return,
        };
        ev.prevent_default();
        if let Some(el) =
            table_ref.get_untracked().and_then(|t| t.query_selector(&cell_selector(next)).ok().flatten())
        {
            if let Ok(el) = wasm_bindgen::JsCast::dyn_into::<web_sys::HtmlElement>(el) {
                let _ = el.focus();
            }
        }
        if let Some(e) = explained.filter(|e| e.in_card_untracked(id).is_some()) {
            e.open(id, next.0, next.1);
        }
    };
    // The explained cell and the cells it reads get a class (set on the DOM: a reactive
    // class on each of up to 16 384 cells would cost more than the table).
    // Only once the table is built (big tables are built when opened): until then the
    // effect does not follow the explained cell.
    Effect::new(move |prev: Option<Vec<(usize, usize, &'static str)>>| {
        let Some(table) = table_ref.get() else { return vec![] };
        let marked: Vec<(usize, usize, &'static str)> =
            explained.map_or(vec![], |e| table_marks(e, id, n_rows, n_cols));
        for (r, c, class) in prev.unwrap_or_default() {
            if let Ok(Some(el)) = table.query_selector(&cell_selector((r, c))) {
                let _ = el.class_list().remove_1(class);
            }
        }
        for &(r, c, class) in &marked {
            if let Ok(Some(el)) = table.query_selector(&cell_selector((r, c))) {
                let _ = el.class_list().add_1(class);
            }
        }
        marked
    });
    let highlighted = super::highlight::cells_of(id);
    let open = use_context::<TablesOpen>().map(|t| t.0);
    let contents = move || {
        let visible = eager || open.is_some_and(|o| o.get());
        visible.then(|| {
            let body = values
                .rows()
                .into_iter()
                .enumerate()
                .map(|(r, row)| {
                    let cells = row
                        .iter()
                        .enumerate()
                        .map(|(c, v)| {
                            let is_blocked = blocked.get(r * n_cols + c).copied().unwrap_or(false);
                            // one cell in the tab order; the arrow keys move between cells
                            let tab = if r == 0 && c == 0 { "0" } else { "-1" };
                            view! {
                                <td data-value=exact(*v) data-r=r data-c=c tabindex=tab class:al-blocked=is_blocked class:al-nan=v.is_nan()
                                    class:al-highlight=move || highlighted.with(|h| h.contains(&(r, c)))>{short_number(*v)}</td>
                            }
                        })
                        .collect_view();
                    view! { <tr><th scope="row">{rows.get(r).cloned().unwrap_or_default()}</th>{cells}</tr> }
                })
                .collect_view();
            view! {
                <table node_ref=table_ref data-testid="matrix-table" data-step=step.as_str() data-head=head data-batch=batch
                    on:click=on_cell_click on:keydown=on_cell_key>
                    <thead>
                        <tr>
                            <th scope="col">{corner(step)}</th>
                            {cols.iter().map(|c| view! { <th scope="col">{c.clone()}</th> }).collect_view()}
                        </tr>
                    </thead>
                    <tbody>{body}</tbody>
                </table>
            }
        })
    };
    let on_toggle = move |ev: leptos::ev::Event| {
        let opened = ev
            .target()
            .and_then(|t| wasm_bindgen::JsCast::dyn_into::<web_sys::HtmlDetailsElement>(t).ok())
            .is_some_and(|d| d.open());
        if let Some(o) = open {
            o.set(opened);
        }
    };
    view! {
        <details class="al-table" prop:open=move || open.is_some_and(|o| o.get()) on:toggle=on_toggle>
            <summary>"Table of numbers"</summary>
            <div class="al-table-scroll">{contents}</div>
        </details>
    }
}
