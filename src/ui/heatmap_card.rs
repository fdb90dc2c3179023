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
                (0..n).map(|j| format!("h{} · {}", j / d_k, j % d_k)).collect()
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

/// A heatmap, its hover read-out, table and export buttons. Keyed by [`CardId`]: the card
/// lives as long as the step, sentence and head are shown, and redraws itself only when
/// its numbers, labels, scale or width change.
#[component]
pub fn HeatmapCard(
    #[prop(into)] trace: Signal<Option<Arc<Trace>>>,
    id: CardId,
    #[prop(into)] scale: Signal<Scale>,
    #[prop(into)] max_width: Signal<f64>,
) -> impl IntoView {
    let canvas = NodeRef::<html::Canvas>::new();
    let cursor = RwSignal::new(None::<(usize, usize)>);
    let data = Memo::new(move |_| trace.with(|t| t.as_ref().and_then(|t| CardData::build(t, id))));
    let layout =
        Memo::new(move |_| data.with(|d| d.as_ref().map(|d| Layout::new(&d.rows, &d.cols, max_width.get()))));
    let dims = move || data.with(|d| d.as_ref().map_or((0, 0), |d| d.values.dim()));

    // Draw whenever the numbers, the layout or the scale change (and only then).
    Effect::new(move |_| {
        let Some(el) = canvas.get() else { return };
        let scale = scale.get();
        let Some(layout) = layout.get() else { return };
        data.with(|d| {
            let Some(d) = d else { return };
            dom::mark("al-draw-start");
            let dpr = dom::dpr();
            el.set_width((layout.width * dpr).round() as u32);
            el.set_height((layout.height * dpr).round() as u32);
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
            let put = |g: &draw::GridPixels| dom::put_rgba(&el, g.x, g.y, g.width, &g.rgba);
            let area = backend.into_drawing_area();
            if let Err(e) = draw::draw_heatmap_with_grid(&area, &map, &layout, &dom::theme(), dpr, put) {
                leptos::logging::warn!("drawing {} failed: {e:?}", id.step);
            }
            dom::mark("al-draw-end");
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
    let on_move = move |ev: leptos::ev::MouseEvent| {
        let cell = layout.with_untracked(|l| {
            l.as_ref().and_then(|l| l.cell_at(f64::from(ev.offset_x()), f64::from(ev.offset_y())))
        });
        cursor.set(cell);
    };
    let on_key = move |ev: leptos::ev::KeyboardEvent| {
        let (n_rows, n_cols) = dims();
        if n_rows == 0 || n_cols == 0 {
            return;
        }
        let (r, c) = clamped().unwrap_or((0, 0));
        let next = match ev.key().as_str() {
            "ArrowUp" => (r.saturating_sub(1), c),
            "ArrowDown" => ((r + 1).min(n_rows - 1), c),
            "ArrowLeft" => (r, c.saturating_sub(1)),
            "ArrowRight" => (r, (c + 1).min(n_cols - 1)),
            _ => return,
        };
        ev.prevent_default();
        cursor.set(Some(next));
    };
    let outline = move || {
        let (r, c) = clamped()?;
        let (x, y, side) = layout.with(|l| l.as_ref().map(|l| l.cell_rect(r, c)))?;
        Some(format!("left:{x}px;top:{y}px;width:{side}px;height:{side}px"))
    };
    let size =
        move || layout.with(|l| l.as_ref().map(|l| format!("width:{}px;height:{}px", l.width, l.height)));

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
            <div class="al-canvas-wrap" style=size>
                <canvas
                    node_ref=canvas
                    data-testid="heatmap"
                    data-step=id.step.as_str()
                    data-head=id.head
                    data-batch=id.batch
                    tabindex="0"
                    role="img"
                    aria-label=label
                    style=size
                    on:mousemove=on_move
                    on:mouseleave=move |_| cursor.set(None)
                    on:keydown=on_key
                    on:focus=move |_| if cursor.get_untracked().is_none() { cursor.set(Some((0, 0))) }
                ></canvas>
                <div class="al-cursor" style=outline hidden=move || clamped().is_none()></div>
            </div>
            <p class="al-readout" data-testid="readout" aria-live="polite">
                {move || readout().unwrap_or_else(|| "Point at a cell (or focus the map and use the arrow keys) to read its exact value.".into())}
            </p>
            {table}
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
    let eager = values.len() <= EAGER_TABLE_CELLS;
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
                            view! {
                                <td data-value=exact(*v) class:al-blocked=is_blocked class:al-nan=v.is_nan()>{short_number(*v)}</td>
                            }
                        })
                        .collect_view();
                    view! { <tr><th scope="row">{rows.get(r).cloned().unwrap_or_default()}</th>{cells}</tr> }
                })
                .collect_view();
            view! {
                <table data-testid="matrix-table" data-step=step.as_str() data-head=head data-batch=batch>
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
