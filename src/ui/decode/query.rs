//! The one query row of a decoding step: its weights over the cached keys (the largest,
//! with what the others add up to), the output row (a number opens its explanation), and
//! the check against the full run. Built once per decoding: a step changes the rows'
//! and cells' text and attributes (and adds or removes a weight row) instead of building
//! the tables again, which cost the browser's style, layout and paint of new elements.
//! Each table is one render effect, and its columns have fixed widths.

use leptos::prelude::*;

use crate::engine::{DecodeStep, Decoded, StepName, Trace};
use crate::format::{exact, fixed, short};
use crate::lessons::{hide_numbers, HIDDEN_NUMBER};
use crate::ui::decode::data::{self as data, format_difference, token_label};
use crate::ui::decode::position::{At, Ctx};
use crate::ui::explain::explained::Explained;
use crate::ui::explain::panel::ExplainPanel;
use crate::ui::state::card_id::CardId;
use crate::ui::widgets::scroll_region::scroll_region;
use crate::ui::widgets::text_fit::{may_overflow, ROW_HEADER_FITS};

/// The most weights listed (the largest, beyond that): as many as the table shows at
/// 1440 px without scrolling (every listed weight a step changes costs the browser a
/// text layout).
const MAX_KEYS: usize = 12;
/// The first numbers of the output row listed (d_model may be up to 512): as many as fit
/// beside the cache tables at 1440 px.
const MAX_OUT: usize = 8;

/// One listed weight: the key's position and label, the weight (exact and shown), and
/// the bar's fraction of full width (0 to 1).
#[derive(Debug, Clone, PartialEq, Default)]
struct WeightRow {
    pos: usize,
    label: String,
    exact: String,
    shown: String,
    bar: f64,
}

impl WeightRow {
    /// The row while the learner guesses a value: its number and bar hidden, the key kept.
    fn hidden(&self) -> Self {
        Self { exact: String::new(), shown: HIDDEN_NUMBER.to_string(), bar: 0.0, ..self.clone() }
    }
}

/// One number of the output row, exact and shown.
#[derive(Debug, Clone, PartialEq, Default)]
struct OutCell {
    exact: String,
    shown: String,
}

/// The check line: not ready (no full run), or its sentence, ok flag and difference.
#[derive(Debug, Clone, PartialEq)]
enum Check {
    NotReady,
    Line { ok: bool, diff: String, words: String },
}

/// Everything the query part shows at the current position.
#[derive(Debug, Clone, PartialEq)]
struct QueryNow {
    b: usize,
    t: usize,
    weights_caption: String,
    rows: Vec<WeightRow>,
    output_caption: String,
    output_label: String,
    cells: Vec<OutCell>,
    check: Check,
}

impl QueryNow {
    /// The weights table's rows, their numbers hidden while `hide`.
    fn weight_rows(&self, hide: bool) -> Vec<impl IntoView> {
        self.rows
            .iter()
            .map(|r| if hide { weight_row_view(&r.hidden()) } else { weight_row_view(r) })
            .collect()
    }

    /// The output row's cells, their numbers hidden while `hide`.
    fn output_cells(&self, hide: bool) -> Vec<impl IntoView> {
        let hidden = OutCell { exact: String::new(), shown: HIDDEN_NUMBER.to_string() };
        self.cells
            .iter()
            .enumerate()
            .map(|(c, x)| output_cell_view(c, if hide { &hidden } else { x }))
            .collect()
    }
}

/// The check line's sentence for position `p` of sentence `b` against the full run.
fn check_of(p: &DecodeStep, full: Option<&Trace>, b: usize, len: usize) -> Check {
    let Some((f, diff)) = full.and_then(|f| data::output_check(p, f, b).map(|diff| (f, diff))) else {
        return Check::NotReady;
    };
    let fully = f.fully_masked_rows.contains(&[b, p.t]);
    let ok = diff <= 1e-12;
    let words = if diff == 0.0 {
        format!("Equals row {} of the full run: largest |difference| = 0 (bit for bit).", p.t)
    } else if ok {
        format!(
            "Equals row {} of the full run: largest |difference| = {} (rounding).",
            p.t,
            format_difference(diff)
        )
    } else if fully {
        format!(
            "Row {} is fully masked: under -1e9 the full run spreads its weight over all T_k keys, the decoder over the {len} it has cached, so they differ (largest |difference| = {}).",
            p.t,
            format_difference(diff)
        )
    } else {
        format!(
            "Differs from row {} of the full run: largest |difference| = {}.",
            p.t,
            format_difference(diff)
        )
    };
    Check::Line { ok, diff: exact(diff), words }
}

/// What the query part shows at position `p` (the engine's numbers, formatted).
fn query_now(p: &DecodeStep, full: Option<&Trace>, at: At) -> QueryNow {
    let At { b, head, len, .. } = at;
    let key_tokens: &[String] = full.map(|f| f.key_tokens(b)).unwrap_or(&[]);
    let weights = data::weight_row(p, b, head);
    let listed = data::listed_keys(&weights, MAX_KEYS);
    let unlisted = (listed.len() < weights.len()).then(|| {
        let rest: f64 = weights.iter().enumerate().filter(|(l, _)| !listed.contains(l)).map(|(_, w)| w).sum();
        format!(
            " (the {} largest, in order; the other {} add up to {})",
            listed.len(),
            weights.len() - listed.len(),
            fixed(rest, 4)
        )
    });
    let rows = listed
        .iter()
        .filter_map(|&l| weights.get(l).map(|&w| (l, w)))
        .map(|(l, w)| {
            let pos = p.cache_positions.get(l).copied().unwrap_or(l);
            WeightRow {
                pos,
                label: token_label(key_tokens, pos),
                exact: exact(w),
                shown: fixed(w, 4),
                bar: if w.is_finite() { w.clamp(0.0, 1.0) } else { 0.0 },
            }
        })
        .collect();
    let output = data::decoded_output_row(p, b).unwrap_or_default();
    let d_model = output.len();
    let out_cols = d_model.min(MAX_OUT);
    QueryNow {
        b,
        t: p.t,
        weights_caption: format!(
            "Query head {}'s weights over the {} cached keys{}: {}{}",
            head + 1,
            weights.len(),
            unlisted.unwrap_or_default(),
            if at.latent.is_some() {
                "softmax of the scaled q·k = q_nope·k_nope + q_rot·k_rot"
            } else {
                "softmax(q·k / √d_k)"
            },
            full.and_then(|f| f.sinks.get(head))
                .map(|s| format!(
                    " with the head's sink logit {s} as one more column, dropped after: they sum to less than 1"
                ))
                .unwrap_or_default(),
        ),
        rows,
        output_caption: format!(
            "The output row, (B, 1, d_model) for sentence {}{} (click a number for its arithmetic)",
            b + 1,
            if d_model > out_cols {
                format!(": the first {out_cols} of {d_model} numbers")
            } else {
                String::new()
            },
        ),
        output_label: format!("output[{b}, {}]", p.t),
        cells: output.iter().take(out_cols).map(|&x| OutCell { exact: exact(x), shown: short(x) }).collect(),
        check: check_of(p, full, b, len),
    }
}

/// One listed weight as a table row, from plain values (no closure inside: the row is
/// rebuilt in place by the table's one render effect, see [`query_view`]).
fn weight_row_view(r: &WeightRow) -> impl IntoView {
    view! {
        <tr data-pos=r.pos.to_string()>
            <th scope="row" class=if may_overflow(&r.label, ROW_HEADER_FITS) { "al-clip" } else { "" }>
                {r.label.clone()}
            </th>
            <td data-value=r.exact.clone()>{r.shown.clone()}</td>
            <td aria-hidden="true">
                <span class="al-bar" style=format!("transform: scaleX({:.3})", r.bar)></span>
            </td>
        </tr>
    }
}

/// One number of the output row as a cell whose button opens its explanation (the
/// row's one click listener reads `data-col`: a listener per button would be attached
/// again at every rebuild).
fn output_cell_view(c: usize, x: &OutCell) -> impl IntoView {
    view! {
        <td data-value=x.exact.clone()>
            <button
                type="button"
                class="al-cell-button"
                data-testid="decode-explain"
                data-col=c.to_string()
                title="Explain this number"
            >
                {x.shown.clone()}
            </button>
        </td>
    }
}

/// The longest key label of a decoding (every key position's `"j token"`), in characters:
/// the width the weights table's fixed layout gives its key column, the same at every
/// position (`style/decode.css`).
fn key_label_chars(d: &Decoded, full: Option<&Trace>, b: usize) -> usize {
    let key_tokens: &[String] = full.map(|f| f.key_tokens(b)).unwrap_or(&[]);
    (0..data::key_count(d))
        .map(|j| token_label(key_tokens, j).chars().count())
        .max()
        .unwrap_or(0)
        .max("key".len())
}

/// The column of the output cell's button an event happened in.
fn output_column_of(target: Option<web_sys::EventTarget>) -> Option<usize> {
    let el = wasm_bindgen::JsCast::dyn_into::<web_sys::Element>(target?).ok()?;
    el.closest("button[data-col]").ok()??.get_attribute("data-col")?.parse().ok()
}

/// The one query row at the shown position: its weights over the cached keys, the output
/// row, and the check against the full run. The weight rows and the output cells are
/// rebuilt in place, by index, as the position changes.
pub(super) fn query_view(ctx: Ctx) -> impl IntoView {
    let now = Memo::new(move |_| ctx.with(|_, p, full, at| query_now(p, full, at)));
    // The weight rows and the output cells: one render effect each, a closure that
    // returns a Vec of rows (or cells) of plain values. Tachys rebuilds such a Vec in
    // place, item by item, and sets only the texts and attributes that changed, so the
    // elements are built once (a row is added only while fewer than MAX_KEYS keys are
    // cached). A step runs two effects here, not one per field of every row and cell
    // (about 170, each a task of the reactive graph).
    // While the learner guesses a value ("Guess first"), the weights and the output row
    // show no number: the guessed cell may be one of them, or follow from them.
    let explained = use_context::<Explained>();
    let guessing = move || explained.is_some_and(|e| e.guessing.get());
    let weight_rows = move || {
        let hide = guessing();
        now.with(|q| q.as_ref().map(|q| q.weight_rows(hide)))
    };
    let output_cells = move || {
        let hide = guessing();
        now.with(|q| q.as_ref().map(|q| q.output_cells(hide)))
    };
    // the key column's width: once per decoding and sentence
    let label_chars =
        Memo::new(move |_| ctx.with_decoding(|d, full, at| key_label_chars(d, full, at.b)).unwrap_or(8));
    let bt = move || now.with(|q| q.as_ref().map_or((0, 0), |q| (q.b, q.t)));
    let bt_untracked = move || now.with_untracked(|q| q.as_ref().map_or((0, 0), |q| (q.b, q.t)));
    let id_of = |b: usize| CardId { step: StepName::Output, batch: b, head: 0 };
    // A click on an output number opens the explanation panel on it: the decoded row is
    // the full run's row t (the check below), so its arithmetic is that cell's.
    let panel = explained.map(|e| {
        move || {
            let (b, t) = bt();
            e.cell.get().filter(|(cell, r, _)| *cell == id_of(b) && *r == t).map(|_| {
                view! {
                    <p class="al-note" data-testid="decode-explain-note">
                        {format!(
                            "This number of the decoded row, explained: the decoded row equals row {t} of the full run (the check above), so it is the same arithmetic, the decoded context row times a column of W_O, plus the bias.",
                        )}
                    </p>
                    <ExplainPanel
                        trace=Signal::derive(move || e.trace.get())
                        explained=e
                        on_close=Callback::new(move |()| e.cell.set(None))
                    />
                }
            })
        }
    });
    let check = Memo::new(move |_| now.with(|q| q.as_ref().map_or(Check::NotReady, |q| q.check.clone())));
    let check_class = move || {
        check.with(|c| match c {
            Check::NotReady => "al-check",
            Check::Line { ok: true, .. } => "al-check al-check-ok",
            Check::Line { ok: false, .. } => "al-check al-flag",
        })
    };
    let check_diff = move || {
        check.with(|c| match c {
            Check::NotReady => None,
            Check::Line { diff, .. } => Some(diff.clone()),
        })
    };
    let check_words = move || {
        check.with(|c| match c {
            Check::NotReady => "The full run is not ready yet: no check.".to_owned(),
            Check::Line { words, .. } => words.clone(),
        })
    };
    view! {
        {scroll_region(
            "this position's weights as a table".to_string(),
            view! {
                <table
                    class="al-table al-weights-table"
                    data-testid="decode-weights"
                    style=move || format!("--al-label-chars: {}", label_chars.get())
                >
                    <caption>
                        {move || {
                            let hide = guessing();
                            now.with(|q| {
                                q.as_ref()
                                    .map(|q| {
                                        if hide {
                                            hide_numbers(&q.weights_caption)
                                        } else {
                                            q.weights_caption.clone()
                                        }
                                    })
                            })
                        }}
                    </caption>
                    <thead>
                        <tr>
                            <th scope="col">"key"</th>
                            <th scope="col">"weight"</th>
                            <th scope="col">
                                <span class="al-sr">"bar"</span>
                            </th>
                        </tr>
                    </thead>
                    <tbody>{weight_rows}</tbody>
                </table>
            },
        )}
        {scroll_region(
            "the output row as a table".to_string(),
            view! {
                <table class="al-table al-decode-output" data-testid="decode-output">
                    <caption>{move || now.with(|q| q.as_ref().map(|q| q.output_caption.clone()))}</caption>
                    <tbody>
                        <tr on:click=move |ev| {
                            if let (Some(e), Some(c)) = (explained, output_column_of(ev.target())) {
                                let (b, t) = bt_untracked();
                                e.open(id_of(b), t, c)
                            }
                        }>
                            <th scope="row">
                                {move || now.with(|q| q.as_ref().map(|q| q.output_label.clone()))}
                            </th>
                            {output_cells}
                        </tr>
                    </tbody>
                </table>
            },
        )}
        <p class=check_class data-testid="decode-check" data-diff=check_diff>
            {check_words}
        </p>
        {panel}
    }
}
