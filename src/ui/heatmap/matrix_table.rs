//! A card's numbers as an HTML table, for screen readers and copying: built when it is
//! small or opened, each cell's `data-value` the exact number; a click or Enter explains
//! a cell, the arrow keys move between cells.

use leptos::html;
use leptos::prelude::*;

use crate::engine::StepName;
use crate::format::exact;

use crate::ui::explain::explained::Explained;
use crate::ui::explain::text::outlines;
use crate::ui::heatmap::card_data::corner;
use crate::ui::state::card_id::CardId;
use crate::ui::widgets::table_head::matrix_head;

/// Largest matrix that gets a table (128 × 128, the page's largest T); bigger ones are
/// exported as CSV.
pub const MAX_TABLE_CELLS: usize = 128 * 128;

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
    // while the learner guesses, every number of the card (another row may hold the same)
    if e.hides(id) {
        out.extend((0..n_rows).flat_map(|rr| (0..n_cols).map(move |cc| (rr, cc, "al-guess-hidden"))));
    }
    out
}

/// The heatmap's numbers as an HTML table, for screen readers and copying. Each cell's
/// `data-value` is the exact number (`NaN`, `-Infinity` as strings).
#[component]
pub fn MatrixTable(
    /// The matrix.
    values: ndarray::Array2<f64>,
    /// Row labels (tokens).
    rows: Vec<String>,
    /// Column labels (tokens or features).
    cols: Vec<String>,
    /// Row-major: drawn hatched, the mask decided the number (`card_data::hatched`).
    blocked: Vec<bool>,
    /// The step it shows.
    step: StepName,
    /// The sentence.
    batch: usize,
    /// The head (0 for steps without heads).
    head: usize,
) -> impl IntoView {
    let n_cols = values.ncols();
    let n_rows = values.nrows();
    let eager = values.len() <= EAGER_TABLE_CELLS;
    let id = CardId { step, batch, head };
    let table_ref = NodeRef::<html::Table>::new();
    let explained = use_context::<Explained>();
    // The explained cell, the cells it reads and the lesson's highlighted cells get a
    // class (set on the DOM: a reactive class on each of up to 16 384 cells would cost
    // more than the table). Only once the table is built (big tables are built when
    // opened): until then the effect follows neither.
    let highlighted = crate::ui::heatmap::highlight::cells_of(id);
    Effect::new(move |prev: Option<Vec<(usize, usize, &'static str)>>| {
        let Some(table) = table_ref.get() else { return vec![] };
        let mut marked: Vec<(usize, usize, &'static str)> =
            explained.map_or(vec![], |e| table_marks(e, id, n_rows, n_cols));
        highlighted.with(|h| {
            marked.extend(
                h.iter().filter(|&&(r, c)| r < n_rows && c < n_cols).map(|&(r, c)| (r, c, "al-highlight")),
            );
        });
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
    let open = use_context::<TablesOpen>().map(|t| t.0);
    let contents = move || {
        let visible = eager || open.is_some_and(|o| o.get());
        visible.then(|| {
            view! {
                <NumbersTable
                    table_ref=table_ref
                    values=values.clone()
                    rows=rows.clone()
                    cols=cols.clone()
                    blocked=blocked.clone()
                    id=id
                />
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

/// A key on a cell of card `id`'s table: Enter or Space explains it, Escape closes the
/// explanation open on this card, the arrow keys move the focus (and that explanation).
fn on_cell_key(
    ev: leptos::ev::KeyboardEvent,
    table_ref: NodeRef<html::Table>,
    explained: Option<Explained>,
    id: CardId,
    (n_rows, n_cols): (usize, usize),
) {
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
}

/// The `<table>` itself: a header row of column labels, a row per token, a cell per
/// number; a click or Enter explains a cell, the arrow keys move between cells.
#[component]
fn NumbersTable(
    /// Where the table is, for the cell marks and the focus moves.
    table_ref: NodeRef<html::Table>,
    /// The matrix.
    values: ndarray::Array2<f64>,
    /// Row labels (tokens).
    rows: Vec<String>,
    /// Column labels (tokens or features).
    cols: Vec<String>,
    /// Row-major: drawn hatched, the mask decided the number (`card_data::hatched`).
    blocked: Vec<bool>,
    /// The card it belongs to.
    id: CardId,
) -> impl IntoView {
    let n_cols = values.ncols();
    let n_rows = values.nrows();
    let explained = use_context::<Explained>();
    let CardId { step, batch, head } = id;
    let on_cell_click = move |ev: leptos::ev::MouseEvent| {
        if let (Some((r, c)), Some(e)) = (cell_of(ev.target()), explained) {
            e.open(id, r, c);
        }
    };
    let on_key = move |ev| on_cell_key(ev, table_ref, explained, id, (n_rows, n_cols));
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
                        <td
                            data-value=exact(*v)
                            data-r=r
                            data-c=c
                            tabindex=tab
                            class:al-blocked=is_blocked
                            class:al-nan=v.is_nan()
                        >
                            // in a span, so that a guess can hide the number from sight and
                            // from screen readers (visibility) while the cell stays focusable
                            <span>{crate::format::short(*v)}</span>
                        </td>
                    }
                })
                .collect_view();
            view! {
                <tr>
                    <th scope="row">{rows.get(r).cloned().unwrap_or_default()}</th>
                    {cells}
                </tr>
            }
        })
        .collect_view();
    view! {
        <table
            node_ref=table_ref
            data-testid="matrix-table"
            data-step=step.as_str()
            data-head=head
            data-batch=batch
            on:click=on_cell_click
            on:keydown=on_key
        >
            {matrix_head(
                corner(step),
                cols.iter().map(|c| view! { <th scope="col">{c.clone()}</th> }).collect_view(),
            )}
            <tbody>{body}</tbody>
        </table>
    }
}
