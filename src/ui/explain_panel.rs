//! The explanation panel: the arithmetic behind the cell under the keyboard cursor (or a
//! clicked cell or table cell), as the engine's [`explain`] wrote it. One per page: the
//! explained cell is the [`Explained`] context, which the heatmap cards set on Enter or a
//! click and move with the arrow keys while it is open.
//!
//! Nothing here computes attention: the terms, the result, the notes, the cells read, the
//! PyTorch and LaTeX are the engine's; the operand strip reads the trace's numbers; the
//! only arithmetic is how far a learner's guess is from the value.

use std::sync::Arc;

use leptos::prelude::*;
use wasm_bindgen::{JsCast, JsValue};

use crate::engine::explain::{explain, top_terms, Explanation, Kind, Operand, Param, Tensor, Term};
use crate::engine::{Axis, StepName, Trace};
use crate::format::{exact, fixed, short};

use super::heatmap_card::CardId;

/// Sums with more terms than this list the largest contributions and the rest summed.
pub const MAX_TERMS: usize = 16;

/// A cell of a card: `(card, row, column)`.
pub type Cell = (CardId, usize, usize);

/// Operand vectors longer than this are cut in the strip (the rest is in the tables).
const MAX_STRIP: usize = 64;

/// The explained cell (card, row, column), if any, and its explanation: one per page.
#[derive(Clone, Copy)]
pub struct Explained {
    /// The cell: set by the cards on Enter or a click, moved by the arrow keys.
    pub cell: RwSignal<Option<Cell>>,
    /// The engine's explanation of it, for the shown trace.
    pub explanation: Memo<Option<Result<Arc<Explanation>, String>>>,
    /// The trace it explains (the page's shown trace).
    pub trace: Memo<Option<Arc<Trace>>>,
}

impl Explained {
    /// The context for the page: the explanation follows the cell and the trace.
    pub fn new(trace: Memo<Option<Arc<Trace>>>) -> Self {
        let cell = RwSignal::new(None::<Cell>);
        let explanation = Memo::new_with_compare(
            move |_| {
                let (id, r, c) = cell.get()?;
                trace.with(|t| {
                    let t = t.as_ref()?;
                    Some(match trace_index(t, id, r, c) {
                        Some(index) => explain(t, id.step, &index).map(Arc::new).map_err(|e| e.to_string()),
                        None => Err("This cell is not in the current trace.".into()),
                    })
                })
            },
            // a new explanation whenever it was recomputed (NaN ≠ NaN would say so anyway)
            |_, _| true,
        );
        Self { cell, explanation, trace }
    }

    /// Opens (or moves) the panel to a cell.
    pub fn open(&self, id: CardId, r: usize, c: usize) {
        self.cell.set(Some((id, r, c)));
    }

    /// The explained `(row, column)` if it is in card `id` (untracked).
    pub fn in_card_untracked(&self, id: CardId) -> Option<(usize, usize)> {
        self.cell.with_untracked(|e| e.filter(|(i, _, _)| *i == id).map(|(_, r, c)| (r, c)))
    }

    /// Closes the panel.
    pub fn close(&self) {
        self.cell.set(None);
    }
}

/// The index into the step's tensor of cell `(r, c)` of card `id`, clamped into the
/// card's matrix (the trace may have shrunk under an open panel); `None` if the trace
/// has no such matrix.
pub fn trace_index(trace: &Trace, id: CardId, r: usize, c: usize) -> Option<Vec<usize>> {
    let step = trace.step(id.step)?;
    let (n_rows, n_cols) = step.matrix(id.batch, id.head)?.dim();
    if n_rows == 0 || n_cols == 0 {
        return None;
    }
    let (r, c) = (r.min(n_rows - 1), c.min(n_cols - 1));
    // `pe` has a batch axis of 1, shared by every sentence
    let b = if step.dims.first() == Some(&Axis::One) { 0 } else { id.batch };
    let index = if step.has_heads() { vec![b, id.head, r, c] } else { vec![b, r, c] };
    (index.len() == step.shape.len()).then_some(index)
}

/// Cells of one card that an operand covers: rows `rows.0..rows.1`, columns
/// `cols.0..cols.1`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Outline {
    /// First row and one past the last.
    pub rows: (usize, usize),
    /// First column and one past the last.
    pub cols: (usize, usize),
    /// True when the operand is a step of the same shape read at the same positions
    /// (the masked row of a weight), not the card's own step.
    pub same_positions: bool,
}

/// The rectangles of card `id` that the explanation reads: its operands in that card's
/// step; and, for the query-by-key steps, an operand of another query-by-key step (the
/// `masked` row of a weight) at the same positions.
pub fn outlines(trace: &Trace, ex: &Explanation, id: CardId) -> Vec<Outline> {
    let Some(card_step) = trace.step(id.step) else { return vec![] };
    let Some((n_rows, n_cols)) = card_step.matrix(id.batch, id.head).map(|m| m.dim()) else { return vec![] };
    ex.operands
        .iter()
        .filter_map(|op| {
            let Tensor::Step(s) = op.tensor else { return None };
            let step = trace.step(s)?;
            let same_positions = s != id.step;
            if same_positions
                && !(step.cols_are_keys() && card_step.cols_are_keys() && step.dims == card_step.dims)
            {
                return None;
            }
            if op.index.len() != card_step.shape.len() {
                return None;
            }
            let at = |k: usize| op.index.get(k).copied().flatten();
            let batch_ok = card_step.dims.first() == Some(&Axis::One) || at(0).is_none_or(|b| b == id.batch);
            let (head_ok, r_axis) =
                if card_step.has_heads() { (at(1).is_none_or(|h| h == id.head), 2) } else { (true, 1) };
            if !batch_ok || !head_ok {
                return None;
            }
            let span = |axis: usize, n: usize| match op.index.get(axis).copied().flatten() {
                Some(i) if i < n => Some((i, i + 1)),
                Some(_) => None,
                None => Some((0, n)),
            };
            Some(Outline { rows: span(r_axis, n_rows)?, cols: span(r_axis + 1, n_cols)?, same_positions })
        })
        .collect()
}

/// One operand vector of the strip: its name and the trace's numbers.
#[derive(Debug, Clone, PartialEq)]
pub struct Strip {
    /// E.g. `q_heads[0,1,2,:]`.
    pub label: String,
    /// The numbers (at most [`MAX_STRIP`]).
    pub values: Vec<f64>,
    /// How many more there are.
    pub more: usize,
}

/// The operands' vectors, read from the trace (steps) and its parameters.
pub fn strips(trace: &Trace, ex: &Explanation) -> Vec<Strip> {
    ex.operands.iter().filter_map(|op| strip(trace, op)).collect()
}

fn strip(trace: &Trace, op: &Operand) -> Option<Strip> {
    let index_text = op.index.iter().map(|i| i.map_or(":".to_owned(), |i| i.to_string())).collect::<Vec<_>>();
    let free: Vec<usize> = op.index.iter().enumerate().filter(|(_, i)| i.is_none()).map(|(k, _)| k).collect();
    let values: Vec<f64> = match op.tensor {
        Tensor::Step(s) => {
            let step = trace.step(s)?;
            if op.index.len() != step.shape.len() || free.len() > 1 {
                return None;
            }
            let mut index: Vec<usize> = op.index.iter().map(|i| i.unwrap_or(0)).collect();
            match free.first() {
                None => vec![*step.data.get(ndarray::IxDyn(&index))?],
                Some(&axis) => {
                    let len = step.shape.get(axis).copied()?;
                    (0..len.min(MAX_STRIP + 1))
                        .map_while(|k| {
                            *index.get_mut(axis)? = k;
                            step.data.get(ndarray::IxDyn(&index)).copied()
                        })
                        .collect()
                }
            }
        }
        Tensor::Param(p) => {
            let layer = match p {
                Param::WQ | Param::BQ => &trace.params.q,
                Param::WK | Param::BK => &trace.params.k,
                Param::WV | Param::BV => &trace.params.v,
                Param::WO | Param::BO => &trace.params.o,
            };
            match (p, op.index.as_slice()) {
                (Param::BQ | Param::BK | Param::BV | Param::BO, [Some(c)]) => vec![*layer.b().get(*c)?],
                (_, [None, Some(c)]) if *c < layer.w().ncols() => {
                    layer.w().column(*c).iter().copied().collect()
                }
                (_, [Some(r), None]) if *r < layer.w().nrows() => layer.w().row(*r).iter().copied().collect(),
                _ => return None,
            }
        }
    };
    let total = match (op.tensor, free.first()) {
        (Tensor::Step(s), Some(&axis)) => {
            trace.step(s).and_then(|st| st.shape.get(axis).copied()).unwrap_or(0)
        }
        _ => values.len(),
    };
    let name = match op.tensor {
        Tensor::Step(s) => s.as_str(),
        Tensor::Param(p) => p.as_str(),
    };
    let shown: Vec<f64> = values.into_iter().take(MAX_STRIP).collect();
    Some(Strip {
        label: format!("{name}[{}]", index_text.join(",")),
        more: total.saturating_sub(shown.len()),
        values: shown,
    })
}

/// The terms as the panel lists them: all of them, or (for more than [`MAX_TERMS`]
/// unless `show_all`) the largest and `Some((how many others, their sum))`.
pub fn listed_terms(ex: &Explanation, show_all: bool) -> (Vec<&Term>, Option<(usize, f64)>) {
    if show_all || ex.terms.len() <= MAX_TERMS {
        (ex.terms.iter().collect(), None)
    } else {
        let (top, rest) = top_terms(ex, MAX_TERMS);
        let others = ex.terms.len() - top.len();
        (top, Some((others, rest)))
    }
}

/// One listed term, as text: what the panel's row shows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TermRow {
    /// What it is, e.g. `q[0,0,1,2] · k[0,0,0,2]`.
    pub label: String,
    /// Its numbers, e.g. `0.5000 × (-1.2000)` (none for a term without operands).
    pub nums: Option<String>,
    /// Its exact value ([`exact`]): the row's text and its `data-value`.
    pub value: String,
}

/// The terms section of the panel as text: built once per explanation (and fold), so
/// that the view only patches the texts that changed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TermList {
    /// E.g. `65 terms, added (the bias is the last term) (largest first)`.
    pub heading: String,
    /// The listed terms ([`listed_terms`]).
    pub rows: Vec<TermRow>,
    /// The folded rest: its label and exact sum.
    pub rest: Option<(String, String)>,
    /// How many terms there are in all.
    pub n_terms: usize,
    /// The exact result.
    pub result: String,
}

/// The terms section's texts for `ex`: all terms, or the largest [`MAX_TERMS`] and the
/// rest unless `show_all`.
pub fn term_list(ex: &Explanation, show_all: bool) -> TermList {
    let (listed, rest) = listed_terms(ex, show_all);
    let n_terms = ex.terms.len();
    let heading = match &ex.kind {
        Kind::Sum if ex.terms.iter().any(|t| t.label.starts_with("bias")) => {
            format!("{n_terms} terms, added (the bias is the last term)")
        }
        Kind::Sum => format!("{n_terms} terms, added"),
        Kind::Softmax { .. } => format!("{n_terms} exps of the row (the denominator is their sum)"),
        Kind::Quotient { .. } => "numerator and denominator".to_owned(),
        _ => "what it is".to_owned(),
    };
    let ordered = if rest.is_some() { " (largest first)" } else { "" };
    TermList {
        heading: format!("{heading}{ordered}"),
        rows: listed
            .into_iter()
            .map(|t| TermRow {
                label: t.label.clone(),
                nums: (!t.operands.is_empty()).then(|| term_numbers(t)),
                value: exact(t.value),
            })
            .collect(),
        rest: rest.map(|(n, sum)| (format!("the other {n} terms, summed"), exact(sum))),
        n_terms,
        result: exact(ex.result),
    }
}

/// A number for reading: four decimals, `-1e9` style for large magnitudes, `NaN`, `-inf`.
pub fn num(v: f64) -> String {
    if !v.is_finite() || v.abs() >= 1e4 {
        short(v)
    } else {
        fixed(v, 4)
    }
}

fn factor(v: f64) -> String {
    let s = num(v);
    if s.starts_with('-') {
        format!("({s})")
    } else {
        s
    }
}

/// One term with its numbers, e.g. `0.5000 × (-1.2000)`.
pub fn term_numbers(t: &Term) -> String {
    match t.operands.as_slice() {
        [a, b] if t.label.starts_with("exp(") => format!("exp({} − {})", factor(*a), factor(*b)),
        [a, b] => format!("{} × {}", factor(*a), factor(*b)),
        _ => factor(t.value),
    }
}

/// The cell's formula with the real numbers: `= a × b + c × d + … = result`.
pub fn with_numbers(ex: &Explanation) -> String {
    let lhs = format!("{}[{}]", ex.step, ex.index.iter().map(usize::to_string).collect::<Vec<_>>().join(","));
    let result = num(ex.result);
    let body = match &ex.kind {
        // only the terms shown are formatted (a 65-term sum shows 4)
        Kind::Sum if ex.terms.len() <= 6 => ex.terms.iter().map(term_numbers).collect::<Vec<_>>().join(" + "),
        Kind::Sum => {
            let head: Vec<String> = ex.terms.iter().take(3).map(term_numbers).collect();
            let tail = ex.terms.last().map(term_numbers).unwrap_or_default();
            format!("{} + … + {tail}  ({} terms)", head.join(" + "), ex.terms.len())
        }
        Kind::Quotient { numerator, denominator } => format!("{} / {}", num(*numerator), num(*denominator)),
        Kind::Softmax { numerator, sum, .. } => format!("{} / {}", num(*numerator), num(*sum)),
        Kind::Masked { blocked: true, fill, .. } => format!("fill {}", num(*fill)),
        _ => ex.terms.first().map(|t| t.label.clone()).unwrap_or_default(),
    };
    format!("{lhs} = {body} = {result}")
}

/// How close a guess is, in words.
pub fn closeness(guess: f64, actual: f64) -> String {
    if actual.is_nan() {
        return "The value is NaN: no number is close to it. Read the notes below for why.".into();
    }
    if !actual.is_finite() {
        return format!("The value is {}: no finite guess is close.", short(actual));
    }
    let off = (guess - actual).abs();
    let scale = actual.abs().max(1e-9);
    let rel = off / scale;
    let verdict = if off == 0.0 {
        "exactly right".to_owned()
    } else if rel <= 0.05 || off <= 0.005 {
        "very close".to_owned()
    } else if rel <= 0.25 {
        "close".to_owned()
    } else if (guess > 0.0) == (actual > 0.0) {
        "the right sign, but far".to_owned()
    } else {
        "the wrong sign".to_owned()
    };
    format!("You guessed {}; the value is {}: off by {} — {verdict}.", num(guess), num(actual), num(off))
}

/// The keys a weights row gives the most weight ([`Trace::top_keys`]: one, or those that
/// tie); none for a NaN row.
pub fn top_keys(trace: &Trace, ex: &Explanation) -> Vec<usize> {
    let [b, h, i, _] = *ex.index.as_slice() else { return vec![] };
    trace.top_keys(b, h, i)
}

/// What the panel says about the learner's "which key gets the most weight?" guess.
pub fn key_feedback(guess: Option<usize>, tops: &[usize], names: &[String]) -> String {
    let name = |k: usize| format!("key {} (“{}”)", k + 1, names.get(k).cloned().unwrap_or_default());
    match (guess, tops) {
        (_, []) => "This row is NaN: no key gets the most weight.".to_owned(),
        (Some(k), [_]) if tops.contains(&k) => "And you picked the key with the most weight.".to_owned(),
        (Some(k), _) if tops.contains(&k) => {
            format!("And you picked one of the {} keys that tie for the most weight.", tops.len())
        }
        (_, [t]) => format!("The most weight goes to {}.", name(*t)),
        (_, _) => format!(
            "{} tie for the most weight.",
            tops.iter().map(|&t| name(t)).collect::<Vec<_>>().join(", ")
        ),
    }
}

// ---------------------------------------------------------------------------------------
// The clipboard, without web-sys's unstable Clipboard API.

/// Copies `text` with `navigator.clipboard.writeText`; on failure (no permission, an
/// insecure page) selects the text of `fallback` so that Ctrl+C copies it.
fn copy(text: String, fallback: Option<web_sys::HtmlElement>, status: impl Fn(String) + Copy + 'static) {
    let promise = web_sys::window()
        .and_then(|w| js_sys::Reflect::get(&w, &JsValue::from_str("navigator")).ok())
        .and_then(|n| js_sys::Reflect::get(&n, &JsValue::from_str("clipboard")).ok())
        .filter(|c| !c.is_undefined() && !c.is_null())
        .and_then(|clip| {
            let f = js_sys::Reflect::get(&clip, &JsValue::from_str("writeText")).ok()?;
            let f: js_sys::Function = f.dyn_into().ok()?;
            f.call1(&clip, &JsValue::from_str(&text)).ok()?.dyn_into::<js_sys::Promise>().ok()
        });
    let select = move || {
        if let Some(el) = fallback {
            select_text(&el);
            status("Selected: press Ctrl+C (⌘C) to copy.".into());
        } else {
            status("Copying is not available here.".into());
        }
    };
    match promise {
        Some(p) => wasm_bindgen_futures::spawn_local(async move {
            match wasm_bindgen_futures::JsFuture::from(p).await {
                Ok(_) => status("Copied.".into()),
                Err(_) => select(),
            }
        }),
        None => select(),
    }
}

/// Selects the text of an element (`getSelection().selectAllChildren(el)`).
fn select_text(el: &web_sys::HtmlElement) {
    let Some(window) = web_sys::window() else { return };
    let Ok(get) = js_sys::Reflect::get(&window, &JsValue::from_str("getSelection")) else { return };
    let Ok(get) = get.dyn_into::<js_sys::Function>() else { return };
    let Ok(selection) = get.call0(&window) else { return };
    if let Ok(f) = js_sys::Reflect::get(&selection, &JsValue::from_str("selectAllChildren")) {
        if let Ok(f) = f.dyn_into::<js_sys::Function>() {
            let _ = f.call1(&selection, el);
        }
    }
}

// ---------------------------------------------------------------------------------------
// The panel.

/// The explanation of the explained cell, shown in the card `id` that holds it.
///
/// Built once when the panel opens; moving the cell only patches what changed. Each part
/// reads a small memo of its own texts (title, terms, strip, notes, code), so a part
/// whose texts are the same for the new cell is not touched, and the lists are rebuilt
/// in place (same elements, new texts) rather than made anew. The buttons and their
/// listeners are made once and read the explanation when clicked.
#[component]
pub fn ExplainPanel(
    #[prop(into)] trace: Signal<Option<Arc<Trace>>>,
    explained: Explained,
    /// Closes the panel and gives the focus back to the heatmap.
    on_close: Callback<()>,
) -> impl IntoView {
    // Per-cell state is keyed by the cell, so moving to another cell starts afresh
    // (folded terms, a new guess, no copy status) without an effect writing signals.
    let cell = explained.cell;
    let show_all_for = RwSignal::new(None::<Cell>);
    let revealed_for = RwSignal::new(None::<Cell>);
    let key_guess_for = RwSignal::new(None::<(Cell, usize)>);
    let status_for = RwSignal::new(None::<(Cell, String)>);
    let guess_mode = RwSignal::new(false);
    let guess_text = RwSignal::new(String::new());
    let py_ref = NodeRef::<leptos::html::Code>::new();
    let tex_ref = NodeRef::<leptos::html::Code>::new();
    let tex_open = RwSignal::new(false);
    let ex = explained.explanation;

    let show_all = move || show_all_for.get().is_some() && show_all_for.get() == cell.get();
    let revealed = move || revealed_for.get().is_some() && revealed_for.get() == cell.get();
    let key_guess = move || key_guess_for.get().filter(|(c, _)| Some(*c) == cell.get()).map(|(_, k)| k);
    let status =
        move || status_for.get().filter(|(c, _)| Some(*c) == cell.get()).map(|(_, s)| s).unwrap_or_default();
    let set_status = move |text: String| {
        if let Some(c) = cell.get_untracked() {
            status_for.set(Some((c, text)));
        }
    };

    // The explanation, if there is one (an `Arc`: cloning it copies a pointer).
    let ok = Memo::new_with_compare(
        move |_| ex.with(|r| r.as_ref().and_then(|r| r.as_ref().ok().cloned())),
        |a, b| match (a, b) {
            (Some(Some(a)), Some(Some(b))) => !Arc::ptr_eq(a, b),
            (Some(None), Some(None)) => false,
            _ => true,
        },
    );
    let hidden = Memo::new(move |_| guess_mode.get() && !revealed());
    // The explanation when its answer may be shown (not while the learner guesses).
    let told = move || if hidden.get() { None } else { ok.get() };

    let title = Memo::new(move |_| {
        ok.with(|e| {
            e.as_ref().map(|e| {
                format!("{}[{}]", e.step, e.index.iter().map(usize::to_string).collect::<Vec<_>>().join(","))
            })
        })
    });
    let formula = Memo::new(move |_| ok.with(|e| e.as_ref().map(|e| e.formula.clone())));
    let summary = Memo::new(move |_| {
        ex.with(|r| {
            r.as_ref().map(|r| match r {
                Ok(_) if hidden.get() => {
                    format!("{}: guess its value first.", title.get().unwrap_or_default())
                }
                Ok(e) => with_numbers(e),
                Err(msg) => msg.clone(),
            })
        })
    });

    // The terms, folded or not, as text; `None` while hidden.
    let terms = Memo::new(move |_| {
        let all = show_all();
        told().map(|e| term_list(&e, all))
    });
    let has_terms = Memo::new(move |_| terms.with(Option::is_some));
    let n_terms = Memo::new(move |_| terms.with(|t| t.as_ref().map_or(0, |t| t.n_terms)));
    let result = Memo::new(move |_| terms.with(|t| t.as_ref().map(|t| t.result.clone())).unwrap_or_default());
    let term_items = move || {
        terms.with(|t| {
            t.as_ref()
                .map(|t| {
                    t.rows
                        .iter()
                        .map(|row| {
                            let value = row.value.clone();
                            view! {
                                <li data-testid="explain-term" data-value=value>
                                    <span class="al-ex-label">{row.label.clone()}</span>
                                    <span class="al-ex-nums">{row.nums.clone()}</span>
                                    <span class="al-ex-val">{"= "}{row.value.clone()}</span>
                                </li>
                            }
                        })
                        .collect::<Vec<_>>()
                })
                .unwrap_or_default()
        })
    };
    let rest_item = move || {
        terms.with(|t| t.as_ref().and_then(|t| t.rest.clone())).map(|(label, sum)| {
            let value = sum.clone();
            view! {
                <li data-testid="explain-term" data-rest="true" data-value=value class="al-ex-rest">
                    <span class="al-ex-label">{label}</span>
                    <span class="al-ex-val">{"= "}{sum}</span>
                </li>
            }
        })
    };
    let foldable = Memo::new(move |_| n_terms.get() > MAX_TERMS);
    let terms_view = move || {
        has_terms.get().then(|| {
            view! {
                <p class="al-ex-h">{move || terms.with(|t| t.as_ref().map(|t| t.heading.clone()))}</p>
                <ol class="al-ex-terms">{term_items}{rest_item}</ol>
                <Show when=move || foldable.get()>
                    <button type="button" class="al-small" data-testid="explain-show-all"
                        aria-expanded=move || show_all().to_string()
                        on:click=move |_| show_all_for.set(if show_all() { None } else { cell.get_untracked() })>
                        {move || if show_all() { format!("show the largest {MAX_TERMS}") } else { format!("show all {}", n_terms.get()) }}
                    </button>
                </Show>
                <p class="al-ex-result" data-testid="explain-result" data-value=move || result.get()>
                    "result: " <strong>{move || result.get()}</strong>
                </p>
            }
        })
    };

    let notes = Memo::new(move |_| told().map(|e| e.notes.clone()));
    let notes_view = move || {
        notes.with(|n| {
            n.as_ref().map(|n| {
                let items = n
                    .iter()
                    .map(|n| view! { <li data-testid="explain-note">{n.clone()}</li> })
                    .collect::<Vec<_>>();
                view! { <ul class="al-ex-notes">{items}</ul> }
            })
        })
    };

    // The operands' numbers, read from the trace: the same for the next cell of a row
    // (a weight's masked row), and then not touched.
    let strip_rows = Memo::new(move |_| {
        ok.with(|e| e.as_ref().and_then(|e| trace.with(|t| t.as_ref().map(|t| strips(t, e)))))
            .unwrap_or_default()
    });
    let strip_view = move || {
        strip_rows.with(|rows| {
            (!rows.is_empty()).then(|| {
                let rows = rows
                    .iter()
                    .map(|s| {
                        let more = (s.more > 0)
                            .then(|| view! { <span class="al-ex-more">{format!("… {} more", s.more)}</span> });
                        let chips = s
                            .values
                            .iter()
                            .map(|v| view! { <span class="al-ex-chip" class:al-nan=v.is_nan() data-value=exact(*v)>{short(*v)}</span> })
                            .collect::<Vec<_>>();
                        view! {
                            <div class="al-ex-strip-row" data-testid="explain-operand">
                                <code class="al-ex-strip-label">{s.label.clone()}</code>
                                <span class="al-ex-strip-values">{chips}{more}</span>
                            </div>
                        }
                    })
                    .collect::<Vec<_>>();
                view! {
                    <div class="al-ex-strip" aria-label="The numbers it reads">
                        <p class="al-ex-h">"It reads"</p>
                        {rows}
                    </div>
                }
            })
        })
    };

    // PyTorch and LaTeX: two texts; the buttons read them when clicked.
    let code = Memo::new(move |_| told().map(|e| (e.pytorch.clone(), e.latex.clone())));
    let has_code = Memo::new(move |_| code.with(Option::is_some));
    let copy_py = move |_| {
        if let Some(py) = code.with_untracked(|c| c.as_ref().map(|c| c.0.clone())) {
            copy(py, py_ref.get_untracked(), set_status);
        }
    };
    let copy_tex = move |_| {
        tex_open.set(true);
        if let Some(tex) = code.with_untracked(|c| c.as_ref().map(|c| c.1.clone())) {
            copy(tex, tex_ref.get_untracked(), set_status);
        }
    };
    let code_view = view! {
        <Show when=move || has_code.get()>
            <div class="al-ex-code">
                <p class="al-ex-h">"PyTorch"</p>
                <code class="al-pytorch" node_ref=py_ref data-testid="explain-pytorch">
                    {move || code.with(|c| c.as_ref().map(|c| c.0.clone()))}
                </code>
                <div class="al-ex-buttons">
                    <button type="button" class="al-small" data-testid="explain-copy" on:click=copy_py>"Copy PyTorch"</button>
                    <button type="button" class="al-small" data-testid="explain-copy-latex" on:click=copy_tex>"Copy as LaTeX"</button>
                    <span class="al-ex-status" role="status">{status}</span>
                </div>
                <details class="al-ex-latex" prop:open=move || tex_open.get()
                    on:toggle=move |ev| {
                        let open = ev.target().and_then(|t| t.dyn_into::<web_sys::HtmlDetailsElement>().ok()).is_some_and(|d| d.open());
                        tex_open.set(open);
                    }>
                    <summary>"LaTeX"</summary>
                    <code node_ref=tex_ref data-testid="explain-latex">{move || code.with(|c| c.as_ref().map(|c| c.1.clone()))}</code>
                </details>
            </div>
        </Show>
    };

    let guess = move || {
        if !guess_mode.get() {
            return None;
        }
        let e = ok.get()?;
        let is_weight = e.step == StepName::Weights;
        let tops = if is_weight {
            trace.with(|t| t.as_ref().map(|t| top_keys(t, &e)).unwrap_or_default())
        } else {
            vec![]
        };
        let keys: Vec<String> = if is_weight {
            trace.with(|t| {
                t.as_ref()
                    .and_then(|t| e.index.first().map(|&b| t.key_tokens(b).to_vec()))
                    .unwrap_or_default()
            })
        } else {
            vec![]
        };
        let actual = e.result;
        let names = keys.clone();
        let reveal = move || revealed_for.set(cell.get_untracked());
        let feedback = move || {
            revealed().then(|| {
                let g = guess_text.get().trim().parse::<f64>().ok();
                let mut text = match g {
                    Some(g) if g.is_finite() => closeness(g, actual),
                    _ => format!("No number guessed; the value is {}.", num(actual)),
                };
                if is_weight {
                    text.push(' ');
                    text.push_str(&key_feedback(key_guess(), &tops, &names));
                }
                view! { <p class="al-ex-feedback" data-testid="explain-feedback">{text}</p> }
            })
        };
        let key_buttons = is_weight.then(|| {
            let buttons = keys
                .iter()
                .enumerate()
                .map(|(k, word)| {
                    view! {
                        <button type="button" class="al-small" aria-pressed=move || (key_guess() == Some(k)).to_string()
                            class:al-selected=move || key_guess() == Some(k)
                            on:click=move |_| if let Some(c) = cell.get_untracked() { key_guess_for.set(Some((c, k))) }>{word.clone()}</button>
                    }
                })
                .collect_view();
            view! {
                <fieldset class="al-ex-keys">
                    <legend>"Which key gets the most weight in this row?"</legend>
                    {buttons}
                </fieldset>
            }
        });
        Some(view! {
            <form class="al-ex-guess" data-testid="explain-guess" on:submit=move |ev| { ev.prevent_default(); reveal(); }>
                <label>
                    "Your guess for the value: "
                    <input type="text" inputmode="decimal" data-testid="explain-guess-input" size="10"
                        prop:value=move || guess_text.get()
                        on:input=move |ev| guess_text.set(event_target_value(&ev)) />
                </label>
                {key_buttons}
                <button type="submit" class="al-small" data-testid="explain-reveal" disabled=revealed>"Reveal"</button>
                {feedback}
            </form>
        })
    };

    view! {
        <aside class="al-explain" data-testid="explain" role="region" aria-label="Explanation of the cell"
            on:keydown=move |ev: leptos::ev::KeyboardEvent| if ev.key() == "Escape" { ev.prevent_default(); on_close.run(()); }>
            <div class="al-ex-top">
                <h3 class="al-ex-title">{move || title.get().unwrap_or_else(|| "Explanation".into())}</h3>
                <label class="al-ex-toggle">
                    <input type="checkbox" data-testid="explain-guess-toggle" prop:checked=move || guess_mode.get()
                        on:change=move |ev| { guess_mode.set(event_target_checked(&ev)); revealed_for.set(None); } />
                    " Guess first"
                </label>
                <button type="button" class="al-small al-ex-close" data-testid="explain-close"
                    aria-label="Close the explanation (Esc)" on:click=move |_| on_close.run(())>"✕"</button>
            </div>
            <p class="al-ex-formula"><code>{move || formula.get()}</code></p>
            <p class="al-ex-summary" aria-live="polite" data-testid="explain-summary">{move || summary.get()}</p>
            {guess}
            {strip_view}
            {terms_view}
            {notes_view}
            {code_view}
        </aside>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{run, Scenario};

    fn trace() -> Trace {
        run(&Scenario::identity(&["baseball bat"], 3, 1)).unwrap()
    }

    fn card(step: StepName) -> CardId {
        CardId { step, batch: 0, head: 0 }
    }

    #[test]
    fn index_has_the_steps_rank_and_stays_inside() {
        let t = trace();
        assert_eq!(trace_index(&t, card(StepName::Scores), 1, 0), Some(vec![0, 0, 1, 0]));
        assert_eq!(trace_index(&t, card(StepName::Q), 1, 2), Some(vec![0, 1, 2]));
        // clamped into a (2, 2) matrix
        assert_eq!(trace_index(&t, card(StepName::Weights), 9, 9), Some(vec![0, 0, 1, 1]));
        assert_eq!(trace_index(&t, CardId { step: StepName::Scores, batch: 3, head: 0 }, 0, 0), None);
        assert_eq!(trace_index(&t, card(StepName::Pe), 0, 0), None);
    }

    #[test]
    fn a_weight_outlines_its_row_and_a_score_reads_two_vectors() {
        let t = trace();
        let w = explain(&t, StepName::Weights, &[0, 0, 1, 0]).unwrap();
        let o = outlines(&t, &w, card(StepName::Weights));
        assert_eq!(o, vec![Outline { rows: (1, 2), cols: (0, 2), same_positions: true }]);
        assert!(outlines(&t, &w, card(StepName::Q)).is_empty());
        let s = explain(&t, StepName::Scores, &[0, 0, 1, 0]).unwrap();
        let strips = strips(&t, &s);
        assert_eq!(strips.len(), 2);
        assert_eq!(strips[0].label, "q_heads[0,0,1,:]");
        assert_eq!(strips[0].values, vec![1.0, 1.0, 0.0]);
        assert_eq!(strips[1].values, vec![2.0, 0.0, 0.0]);
        assert_eq!(
            with_numbers(&s),
            "scores[0,0,1,0] = 1.0000 × 2.0000 + 1.0000 × 0.0000 + 0.0000 × 0.0000 = 2.0000"
        );
    }

    #[test]
    fn a_projection_strip_reads_the_weight_column_and_the_bias() {
        let t = trace();
        let q = explain(&t, StepName::Q, &[0, 1, 0]).unwrap();
        let s = strips(&t, &q);
        assert_eq!(s.len(), 3);
        assert_eq!(s[1].label, "W_Q[:,0]");
        assert_eq!(s[1].values, vec![1.0, 0.0, 0.0]);
        assert_eq!(s[2].values, vec![0.0]);
    }

    #[test]
    fn long_sums_list_the_largest_and_the_rest() {
        let t = run(&Scenario::identity(&["a b c"], 20, 1)).unwrap();
        let q = explain(&t, StepName::Q, &[0, 0, 0]).unwrap();
        assert_eq!(q.terms.len(), 21);
        let (top, rest) = listed_terms(&q, false);
        assert_eq!(top.len(), MAX_TERMS);
        assert_eq!(rest.map(|r| r.0), Some(5));
        let (all, rest) = listed_terms(&q, true);
        assert_eq!((all.len(), rest), (21, None));
    }

    #[test]
    fn the_term_list_is_the_listed_terms_as_text() {
        let t = run(&Scenario::identity(&["a b c"], 20, 1)).unwrap();
        let q = explain(&t, StepName::Q, &[0, 0, 0]).unwrap();
        let folded = term_list(&q, false);
        assert_eq!(folded.n_terms, 21);
        assert_eq!(folded.rows.len(), MAX_TERMS);
        assert!(folded.heading.ends_with("(largest first)"), "{}", folded.heading);
        let (top, rest) = listed_terms(&q, false);
        for (row, term) in folded.rows.iter().zip(&top) {
            assert_eq!(row.value, exact(term.value));
            assert_eq!(row.label, term.label);
        }
        let rest = rest.unwrap();
        assert_eq!(folded.rest, Some((format!("the other {} terms, summed", rest.0), exact(rest.1))));
        assert_eq!(folded.result, exact(q.result));
        // the summary formats the 4 terms it shows, not all 21
        let summary = with_numbers(&q);
        assert!(summary.starts_with("q[0,0,0] = "), "{summary}");
        assert!(summary.contains(" + … + ") && summary.contains("(21 terms)"), "{summary}");
        assert_eq!(summary.matches(" + ").count(), 4, "{summary}");
        let all = term_list(&q, true);
        assert_eq!((all.rows.len(), all.rest.clone()), (21, None));
        assert!(!all.heading.contains("largest"));
        // the bias has no operands: no numbers line
        assert_eq!(all.rows.last().map(|r| r.nums.clone()), Some(None));
        // a score: a short sum, unfolded whatever the switch says
        let s = explain(&trace(), StepName::Scores, &[0, 0, 1, 0]).unwrap();
        assert_eq!(term_list(&s, false), term_list(&s, true));
        assert_eq!(term_list(&s, false).heading, "3 terms, added");
    }

    #[test]
    fn the_key_guess_is_judged_against_every_tied_key() {
        let names: Vec<String> = ["a", "b", "c"].iter().map(|s| s.to_string()).collect();
        assert_eq!(key_feedback(Some(1), &[1], &names), "And you picked the key with the most weight.");
        assert_eq!(key_feedback(Some(0), &[1], &names), "The most weight goes to key 2 (“b”).");
        assert!(key_feedback(Some(2), &[0, 2], &names).contains("one of the 2 keys that tie"));
        assert_eq!(key_feedback(None, &[0, 2], &names), "key 1 (“a”), key 3 (“c”) tie for the most weight.");
        assert!(key_feedback(Some(0), &[], &names).contains("NaN"));
    }

    #[test]
    fn guesses_are_judged_in_words() {
        assert!(closeness(0.5, 0.5).contains("exactly right"));
        assert!(closeness(0.51, 0.5).contains("very close"));
        assert!(closeness(-0.5, 0.5).contains("wrong sign"));
        assert!(closeness(0.5, f64::NAN).contains("NaN"));
        assert_eq!(num(-0.0), "0.0000");
        assert_eq!(num(f64::NEG_INFINITY), "-inf");
    }
}
