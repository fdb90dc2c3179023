//! One heatmap of one step, sentence and head: the canvas (plotters-canvas), the value
//! under the pointer or keyboard cursor, the equivalent table, and its exports.

use std::sync::Arc;

use leptos::html;
use leptos::prelude::*;
use plotters::prelude::IntoDrawingArea;
use plotters_canvas::CanvasBackend;

use crate::draw::{self, heatmap::short_number, Heatmap, Layout, Scale};
use crate::engine::trace::non_finite_name;
use crate::engine::{Role, StepName, Trace};

use super::dom;

/// Which heatmap to show.
#[derive(Debug, Clone, PartialEq)]
pub struct HeatmapSpec {
    /// The step.
    pub step: StepName,
    /// Sentence.
    pub batch: usize,
    /// Head (0 for steps without heads).
    pub head: usize,
    /// The colour scale, chosen by the parent (shared across heads or not).
    pub scale: Scale,
    /// Canvas width budget, CSS pixels.
    pub max_width: f64,
}

/// The exact text of a number, as the table's `data-value` and the CSV carry it.
pub fn exact(v: f64) -> String {
    if v.is_finite() {
        format!("{v}")
    } else {
        non_finite_name(v).to_owned()
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

/// A heatmap, its hover read-out, table and export buttons.
#[component]
pub fn HeatmapCard(trace: Arc<Trace>, spec: HeatmapSpec) -> impl IntoView {
    let canvas = NodeRef::<html::Canvas>::new();
    let cursor = RwSignal::new(None::<(usize, usize)>);
    let Some(step) = trace.step(spec.step) else {
        return view! { <p class="al-muted">"No step " {spec.step.as_str()}</p> }.into_any();
    };
    let Some(values) = step.matrix(spec.batch, spec.head).map(|m| m.to_owned()) else {
        return view! { <p class="al-muted">"Nothing to show for this sentence."</p> }.into_any();
    };
    let (rows, cols, row_pad, col_pad) = axis_labels(&trace, spec.step, spec.batch);
    let square = step.cols_are_keys();
    let masked_step = matches!(spec.step, StepName::Masked | StepName::Weights);
    let (n_rows, n_cols) = values.dim();
    let blocked: Vec<bool> = if masked_step {
        (0..n_rows * n_cols)
            .map(|k| trace.mask.is_blocked(spec.batch, k / n_cols.max(1), k % n_cols.max(1)))
            .collect()
    } else {
        Vec::new()
    };
    let col_group = (matches!(spec.step, StepName::Q | StepName::K | StepName::V | StepName::Concat)
        && trace.sizes.n_heads > 1)
        .then_some(trace.sizes.d_k);
    let layout = Layout::new(&rows, &cols, spec.max_width);
    let dpr = dom::dpr();

    // Draw once the canvas is in the page; the card is rebuilt when the trace changes.
    {
        let (values, rows, cols, row_pad, col_pad, blocked) =
            (values.clone(), rows.clone(), cols.clone(), row_pad.clone(), col_pad.clone(), blocked.clone());
        let scale = spec.scale;
        let name = spec.step;
        Effect::new(move |_| {
            let Some(el) = canvas.get() else { return };
            dom::mark("al-draw-start");
            el.set_width((layout.width * dpr).round() as u32);
            el.set_height((layout.height * dpr).round() as u32);
            let Some(backend) = CanvasBackend::with_canvas_object(el.clone()) else { return };
            let map = Heatmap {
                values: values.view(),
                row_labels: &rows,
                col_labels: &cols,
                row_is_pad: &row_pad,
                col_is_pad: &col_pad,
                blocked: &blocked,
                scale,
                col_group,
            };
            // the cells as one bitmap (one putImageData), the rest with plotters
            let put = |g: &draw::GridPixels| dom::put_rgba(&el, g.x, g.y, g.width, &g.rgba);
            let area = backend.into_drawing_area();
            if let Err(e) = draw::draw_heatmap_with_grid(&area, &map, &layout, &dom::theme(), dpr, put) {
                leptos::logging::warn!("drawing {name} failed: {e:?}");
            }
            dom::mark("al-draw-end");
        });
    }

    let readout = {
        let (values, rows, cols) = (values.clone(), rows.clone(), cols.clone());
        let trace = trace.clone();
        let (b, head, step_name) = (spec.batch, spec.head, spec.step);
        let blocked = blocked.clone();
        move || {
            let (r, c) = cursor.get()?;
            let v = *values.get((r, c))?;
            let mut text = if square {
                format!("query “{}” → key “{}”: {}", rows.get(r)?, cols.get(c)?, exact(v))
            } else {
                format!("“{}”, {}: {}", rows.get(r)?, cols.get(c)?, exact(v))
            };
            if blocked.get(r * n_cols + c).copied().unwrap_or(false) {
                text.push_str(" (blocked by the mask)");
            }
            if square {
                if let Some(sum) = trace.step(step_name).and_then(|s| s.row_sum(b, head, r)) {
                    text.push_str(&format!(" · row sum {}", exact(sum)));
                }
            }
            Some(text)
        }
    };

    let on_move = move |ev: leptos::ev::MouseEvent| {
        cursor.set(layout.cell_at(f64::from(ev.offset_x()), f64::from(ev.offset_y())));
    };
    let on_key = move |ev: leptos::ev::KeyboardEvent| {
        let (r, c) = cursor.get_untracked().unwrap_or((0, 0));
        let next = match ev.key().as_str() {
            "ArrowUp" => (r.saturating_sub(1), c),
            "ArrowDown" => ((r + 1).min(n_rows.saturating_sub(1)), c),
            "ArrowLeft" => (r, c.saturating_sub(1)),
            "ArrowRight" => (r, (c + 1).min(n_cols.saturating_sub(1))),
            _ => return,
        };
        ev.prevent_default();
        cursor.set(Some(next));
    };
    let outline = move || {
        cursor.get().map(|(r, c)| {
            let (x, y, side) = layout.cell_rect(r, c);
            format!("left:{x}px;top:{y}px;width:{side}px;height:{side}px")
        })
    };

    let label = format!(
        "{} heatmap, sentence {}{}, {} rows by {} columns",
        spec.step,
        spec.batch + 1,
        if step.has_heads() { format!(", head {}", spec.head + 1) } else { String::new() },
        n_rows,
        n_cols
    );
    let file_stem = format!("{}-b{}-h{}", spec.step, spec.batch, spec.head);
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
    let csv_click = {
        let stem = file_stem.clone();
        let (values, rows, cols) = (values.clone(), rows.clone(), cols.clone());
        // built on click: formatting every number up front slowed every edit down
        move |_| dom::download_text(&format!("{stem}.csv"), "text/csv", &csv(&rows, &cols, &values))
    };
    let title = if step.has_heads() {
        format!("head {}", spec.head + 1)
    } else {
        format!("sentence {}", spec.batch + 1)
    };
    let table = (n_rows * n_cols <= MAX_TABLE_CELLS).then(|| {
        view! {
            <MatrixTable
                values=values.clone()
                rows=rows.clone()
                cols=cols.clone()
                blocked=blocked.clone()
                step=spec.step
                batch=spec.batch
                head=spec.head
            />
        }
    });
    view! {
        <figure class="al-card">
            <figcaption>
                <span class="al-card-title" style=format!("--head-color: var(--al-head-{})", spec.head % 8)>{title}</span>
                <span class="al-card-actions">
                    <button type="button" class="al-small" on:click=png title="Download this heatmap as PNG">"PNG"</button>
                    <button type="button" class="al-small" on:click=csv_click title="Download this matrix as CSV">"CSV"</button>
                </span>
            </figcaption>
            <div class="al-canvas-wrap" style=format!("width:{}px;height:{}px", layout.width, layout.height)>
                <canvas
                    node_ref=canvas
                    data-testid="heatmap"
                    data-step=spec.step.as_str()
                    data-head=spec.head
                    data-batch=spec.batch
                    tabindex="0"
                    role="img"
                    aria-label=label
                    style=format!("width:{}px;height:{}px", layout.width, layout.height)
                    on:mousemove=on_move
                    on:mouseleave=move |_| cursor.set(None)
                    on:keydown=on_key
                    on:focus=move |_| if cursor.get_untracked().is_none() { cursor.set(Some((0, 0))) }
                ></canvas>
                <div class="al-cursor" style=outline hidden=move || cursor.get().is_none()></div>
            </div>
            <p class="al-readout" data-testid="readout" aria-live="polite">
                {move || readout().unwrap_or_else(|| "Point at a cell (or focus the map and use the arrow keys) to read its exact value.".into())}
            </p>
            {table}
        </figure>
    }
    .into_any()
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
                            <th scope="col">"query ↓ key →"</th>
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
