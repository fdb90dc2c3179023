//! The decode view (`view=decode`): the scenario as a model generating it runs it, one
//! position at a time with a key/value cache. Step through t with ← → (or Play); each
//! position shows the cache growing (under a window, the row that leaves), the one query
//! row's weights over the cached keys, the output row and its check against the full
//! run, and the cache's bytes. The numbers are [`crate::engine::decode`]'s, computed
//! once per scenario; the pure parts are [`super::decode_data`].

use std::sync::Arc;
use std::time::Duration;

use leptos::prelude::*;

use super::card_data::CardId;
use super::check_line::CheckLine;
use super::explain_panel::ExplainPanel;
use super::explained::Explained;
use super::head_options::HeadOptions;
use super::scroll_region::scroll_region;
use wasm_bindgen::JsCast;

use crate::engine::{decode, DecodeStep, Decoded, EngineError, StepName, Trace};
use crate::format::{exact, fixed, short};

use super::app_state::AppState;
use super::decode_data::{
    self as data, format_bytes, format_difference, group_digits, listed_rows, scenario_cache_bytes, slots,
    token_label, Slot, DTYPES, MODELS,
};
use super::dom;

/// The engine's refusal of a scenario without a causal mask, as the view shows it.
const NEEDS_CAUSAL: &str = "needs causal";

/// The newest cache rows listed in the K and V tables.
const MAX_ROWS: usize = 8;
/// The most weights listed (the largest, beyond that).
const MAX_KEYS: usize = 24;
/// The first numbers of a row listed (d_k or d_model may be up to 512).
const MAX_COLS: usize = 8;

/// The decode view of the current inputs.
#[component]
pub fn DecodeView(
    /// The page's state.
    state: AppState,
    /// The position shown first (a lesson step's); 0 when absent.
    #[prop(optional)]
    start: Option<usize>,
    /// Inside a lesson: the arrows step the positions only while the panel itself has
    /// the focus (and do not then also move the lesson); a click on one of its buttons
    /// leaves them to the lesson.
    #[prop(optional)]
    in_lesson: bool,
) -> impl IntoView {
    let AppState { run, settings, view: view_state, .. } = state;
    let scenario = Memo::new(move |_| run.with(|r| r.scenario.clone()));
    // Decoded once per scenario; stepping reads the stored result.
    let decoded = Memo::new_with_compare(
        move |_| {
            scenario.with(|s| {
                let bytes = data::decode_footprint(s);
                if bytes > data::MAX_DECODE_BYTES {
                    return Err(format!(
                        "Decoding this scenario on the page would keep {} of caches (every position's keys and values), more than the {} it allows. Use fewer or shorter sentences, or a smaller d_model.",
                        format_bytes(bytes),
                        format_bytes(data::MAX_DECODE_BYTES)
                    ));
                }
                dom::mark("al-decode-start");
                let d = decode(s).map(Arc::new);
                dom::mark("al-decode-end");
                d.map_err(|e| match e {
                    EngineError::DecodeNeedsCausal => NEEDS_CAUSAL.to_owned(),
                    e => e.to_string(),
                })
            })
        },
        |a: Option<&Result<Arc<Decoded>, String>>, b: Option<&Result<Arc<Decoded>, String>>| match (a, b) {
            (Some(Ok(a)), Some(Ok(b))) => !Arc::ptr_eq(a, b),
            (Some(Err(a)), Some(Err(b))) => a != b,
            _ => true,
        },
    );
    // The full run of the same inputs, for the check (none while the worker computes).
    let full = Signal::derive(move || {
        run.with(|r| if r.computing { None } else { r.result.as_ref().ok().cloned() })
    });
    let n = move || decoded.with(|d| d.as_ref().map_or(0, |d| d.positions.len()));
    let t = RwSignal::new(start.unwrap_or(0));
    let head = RwSignal::new(0_usize);
    let playing = RwSignal::new(false);
    let timer = StoredValue::new(None::<IntervalHandle>);
    let stop = move || {
        if let Some(h) = timer.get_value() {
            h.clear();
        }
        timer.set_value(None);
        playing.set(false);
    };
    on_cleanup(stop);
    let go = move |delta: isize| {
        let last = n().saturating_sub(1);
        t.update(|t| *t = (*t).min(last).saturating_add_signed(delta).min(last));
    };
    let play = move |_| {
        if playing.get_untracked() {
            stop();
            return;
        }
        if t.get_untracked() + 1 >= n() {
            t.set(0);
        }
        playing.set(true);
        let handle = set_interval_with_handle(
            move || {
                if t.get_untracked() + 1 >= n() {
                    stop();
                } else {
                    go(1);
                }
            },
            Duration::from_millis(900),
        );
        timer.set_value(handle.ok());
    };
    let on_key = move |ev: leptos::ev::KeyboardEvent| {
        // the calculator's fields keep their own keys
        let in_field = ev
            .target()
            .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
            .is_some_and(|e| matches!(e.tag_name().as_str(), "INPUT" | "SELECT" | "TEXTAREA"));
        if in_field || (in_lesson && !dom::target_is_current(&ev)) {
            return;
        }
        match ev.key().as_str() {
            "ArrowRight" => go(1),
            "ArrowLeft" => go(-1),
            "Home" => t.set(0),
            "End" => t.set(n().saturating_sub(1)),
            _ => return,
        }
        ev.prevent_default();
        ev.stop_propagation();
    };
    let batch = move || view_state.with(|v| v.batch);

    let ctx = Ctx { decoded, t, batch: Signal::derive(batch), head, full };
    // Rebuilt only when the decoding changes (a new scenario): each part below follows t.
    let body = move || {
        decoded.with(|d| match d {
            Err(e) if e == NEEDS_CAUSAL => view! {
                <div class="al-flag" data-testid="decode-needs-causal" role="alert">
                    <p>{EngineError::DecodeNeedsCausal.to_string()}</p>
                    <p>
                        "A model that generates text writes one token at a time: when it computes token t, the later tokens do not exist yet. Turn the causal mask on to decode this scenario."
                    </p>
                    <button
                        type="button"
                        data-testid="decode-turn-causal-on"
                        on:click=move |_| settings.update(|s| s.mask.causal = true)
                    >
                        "Turn causal on"
                    </button>
                </div>
            }
            .into_any(),
            Err(e) => view! {
                <p class="al-error" data-testid="decode-error" role="alert">
                    {e.clone()}
                </p>
            }.into_any(),
            Ok(d) if d.positions.is_empty() => view! { <p data-testid="decode-empty">"No position to decode."</p> }.into_any(),
            Ok(_) => step_view(ctx).into_any(),
        })
    };
    let heads = move || {
        decoded.with(|d| {
            d.as_ref()
                .ok()
                .and_then(|d| d.positions.first())
                .map_or(1, |p| p.q.shape().get(1).copied().unwrap_or(1))
        })
    };
    let position_text = move || {
        let last = n().saturating_sub(1);
        let now = t.get().min(last);
        let token = full.with(|f| f.as_ref().and_then(|f| f.query_tokens(batch()).get(now).cloned()));
        format!(
            "t = {now} (positions 0 to {last}){}",
            token.map(|tok| format!(": the query is “{tok}”")).unwrap_or_default()
        )
    };
    view! {
        <section
            class="al-decode"
            data-testid="decode-view"
            tabindex="0"
            on:keydown=on_key
            aria-label="Decoding with a key/value cache, one position at a time (← → to step)"
        >
            <h2>"Decoding with a KV cache"</h2>
            <p class="al-view-intro">
                "A model that generates text does not compute the whole T × T matrix at once. At each position t it computes one new query, key and value, appends the key and value to a cache of every earlier one, and scores the one query against the cache. Step with ← → (click this panel first) or Play."
            </p>
            <div class="al-step-nav">
                <button
                    type="button"
                    data-testid="decode-prev"
                    on:click=move |_| go(-1)
                    aria-label="Previous position"
                >
                    "← Previous position"
                </button>
                <button
                    type="button"
                    data-testid="decode-play"
                    on:click=play
                    aria-pressed=move || if playing.get() { "true" } else { "false" }
                >
                    {move || if playing.get() { "Pause" } else { "Play" }}
                </button>
                <button
                    type="button"
                    data-testid="decode-next"
                    on:click=move |_| go(1)
                    aria-label="Next position"
                >
                    "Next position →"
                </button>
                <span class="al-step-where" data-testid="decode-position" aria-live="polite">
                    {position_text}
                </span>
                <label class="al-head-pick">
                    "Query "
                    <select
                        data-testid="decode-head"
                        on:change=move |ev| head.set(event_target_value(&ev).parse().unwrap_or(0))
                    >
                        <HeadOptions heads=Signal::derive(heads) head=head />
                    </select>
                </label>
            </div>
            {body}
            <CacheCalculator />
        </section>
    }
}

/// What every part of a position reads: the decoding, the position, the sentence and the
/// query head, and the full run.
#[derive(Clone, Copy)]
struct Ctx {
    decoded: Memo<Result<Arc<Decoded>, String>>,
    t: RwSignal<usize>,
    batch: Signal<usize>,
    head: RwSignal<usize>,
    full: Signal<Option<Arc<Trace>>>,
}

/// The sizes of a position: B, h, h_kv, L, d_k, and the sentence, query head and K/V head
/// shown (kept in range).
#[derive(Clone, Copy)]
struct At {
    batch_len: usize,
    h_kv: usize,
    len: usize,
    d_k: usize,
    b: usize,
    head: usize,
    kv_head: usize,
}

impl At {
    fn of(p: &DecodeStep, b: usize, head: usize) -> Self {
        let (k, q) = (p.k_cache.shape(), p.q.shape());
        let h = q.get(1).copied().unwrap_or(1).max(1);
        let h_kv = k.get(1).copied().unwrap_or(1).max(1);
        let batch_len = k.first().copied().unwrap_or(0);
        let head = head.min(h - 1);
        At {
            batch_len,
            h_kv,
            len: k.get(2).copied().unwrap_or(0),
            d_k: k.get(3).copied().unwrap_or(0),
            b: b.min(batch_len.saturating_sub(1)),
            head,
            kv_head: head / (h / h_kv).max(1),
        }
    }
}

impl Ctx {
    /// `f` of the current position (tracked: reruns when t, the sentence, the head, the
    /// decoding or the full run change).
    fn with<R>(&self, f: impl FnOnce(&Arc<Decoded>, &DecodeStep, Option<&Trace>, At) -> R) -> Option<R> {
        let (b, head, t) = (self.batch.get(), self.head.get(), self.t.get());
        let full = self.full.get();
        self.decoded.with(|d| {
            let d = d.as_ref().ok()?;
            let p = d.positions.get(t.min(d.positions.len().saturating_sub(1)))?;
            Some(f(d, p, full.as_deref(), At::of(p, b, head)))
        })
    }
}

/// One row of a cache table: kept on screen while its key stays (a position's key and
/// value never change, so a step adds and removes a row or two instead of redrawing).
#[derive(Debug, Clone, PartialEq)]
struct CacheRow {
    /// The decoding it is from (its address), so that a new scenario replaces every row.
    generation: usize,
    pos: usize,
    slot: &'static str,
    label: String,
    values: Vec<f64>,
    more: bool,
}

/// The rows of the K or V table at the current position: the row that left (if one
/// did), then the newest [`MAX_ROWS`] rows, the first [`MAX_COLS`] numbers of each.
fn cache_rows_now(
    d: &Arc<Decoded>,
    p: &DecodeStep,
    full: Option<&Trace>,
    at: At,
    which: char,
) -> Vec<CacheRow> {
    let generation = Arc::as_ptr(d) as usize;
    let key_tokens: &[String] = full.map(|f| f.key_tokens(at.b)).unwrap_or(&[]);
    fn pick(s: &DecodeStep, which: char) -> &ndarray::Array4<f64> {
        if which == 'K' {
            &s.k_cache
        } else {
            &s.v_cache
        }
    }
    let cols = at.d_k.min(MAX_COLS);
    let row = |pos: usize, slot: &'static str, values: &[f64]| CacheRow {
        generation,
        pos,
        slot,
        label: match slot {
            "evicted" => format!("{} (left)", token_label(key_tokens, pos)),
            "new" => format!("{} (new)", token_label(key_tokens, pos)),
            _ => token_label(key_tokens, pos),
        },
        values: values.iter().take(cols).copied().collect(),
        more: at.d_k > cols,
    };
    let mut out = Vec::new();
    // the evicted row's numbers are in the previous position's cache
    if let Some(e) = p.evicted {
        let prev = p.t.checked_sub(1).and_then(|t| d.positions.get(t));
        if let Some(prev) = prev {
            let i = prev.cache_positions.iter().position(|&x| x == e);
            if let Some(values) =
                i.and_then(|i| data::cache_rows(pick(prev, which), at.b, at.kv_head).into_iter().nth(i))
            {
                out.push(row(e, "evicted", &values));
            }
        }
    }
    let rows = data::cache_rows(pick(p, which), at.b, at.kv_head);
    for l in listed_rows(rows.len(), MAX_ROWS) {
        let (Some(&pos), Some(values)) = (p.cache_positions.get(l), rows.get(l)) else { continue };
        let slot = if pos == p.t && !d.cross { "new" } else { "cached" };
        out.push(row(pos, slot, values));
    }
    out
}

/// The K or V cache table of the shown K/V head, its rows keyed.
fn cache_table(ctx: Ctx, which: char) -> impl IntoView {
    let rows = Memo::new(move |_| {
        ctx.with(|d, p, full, at| cache_rows_now(d, p, full, at, which)).unwrap_or_default()
    });
    let caption = move || {
        ctx.with(|_, _, _, at| {
            let listed = at.len.min(MAX_ROWS);
            let cols = at.d_k.min(MAX_COLS);
            format!(
                "{which} cache, K/V head {}: {} row{} × d_k = {}{}{}",
                at.kv_head + 1,
                at.len,
                if at.len == 1 { "" } else { "s" },
                at.d_k,
                if at.len > listed {
                    format!(" ({} older rows not listed)", at.len - listed)
                } else {
                    String::new()
                },
                if at.d_k > cols { format!(", the first {cols} numbers of each") } else { String::new() },
            )
        })
    };
    let header = move || {
        let d_k = ctx.with(|_, _, _, at| at.d_k).unwrap_or(0);
        let cols = d_k.min(MAX_COLS);
        view! {
            <tr>
                <th scope="col">"position"</th>
                {(0..cols).map(|c| view! { <th scope="col">{c.to_string()}</th> }).collect_view()}
                {(d_k > cols).then(|| view! { <th scope="col">"…"</th> })}
            </tr>
        }
    };
    view! {
        {scroll_region(
            format!("the {which} cache as a table"),
            view! {
                <table
                    class="al-table al-cache-table"
                    data-testid=format!("{}-cache", which.to_ascii_lowercase())
                >
                    <caption>{caption}</caption>
                    <thead>{header}</thead>
                    <tbody>
                        <For
                            each=move || rows.get()
                            key=|r| (r.generation, r.pos, r.slot)
                            children=|r| {
                                let CacheRow { pos, slot, label, values, more, .. } = r;
                                view! {
                                    <tr
                                        class:al-row-new=slot == "new"
                                        class:al-row-evicted=slot == "evicted"
                                        data-slot=slot
                                        data-pos=pos
                                    >
                                        <th scope="row">{label}</th>
                                        {values
                                            .into_iter()
                                            .map(|x| view! { <td data-value=exact(x)>{short(x)}</td> })
                                            .collect_view()}
                                        {more.then(|| view! { <td>"…"</td> })}
                                    </tr>
                                }
                            }
                        />
                    </tbody>
                </table>
            },
        )}
    }
}

/// One position: the cache strip (keyed, its classes follow t), the K and V tables
/// (keyed rows), and the query's weights, output, check and bytes (rebuilt per step).
fn step_view(ctx: Ctx) -> impl IntoView {
    let strip_keys = Memo::new(move |_| {
        ctx.with(|d, _, full, at| {
            let key_tokens: &[String] = full.map(|f| f.key_tokens(at.b)).unwrap_or(&[]);
            let n = if d.cross { at.len } else { d.positions.len() };
            (0..n)
                .map(|j| (j, key_tokens.get(j).cloned().unwrap_or_else(|| j.to_string())))
                .collect::<Vec<_>>()
        })
        .unwrap_or_default()
    });
    let slots_now = Memo::new(move |_| {
        ctx.with(|d, p, _, at| slots(p, if d.cross { at.len } else { d.positions.len() }, d.cross))
            .unwrap_or_default()
    });
    let slot_of = move |j: usize| slots_now.with(|s| s.get(j).copied().unwrap_or(Slot::Future));
    let top = move || {
        ctx.with(|d, p, full, at| {
            let query_token = full.and_then(|f| f.query_tokens(at.b).get(p.t).cloned()).unwrap_or_default();
            let key_tokens: &[String] = full.map(|f| f.key_tokens(at.b)).unwrap_or(&[]);
            let evicted = p.evicted.map(|e| {
                view! {
                    <p class="al-evicted-note" data-testid="decode-evicted">
                        {format!(
                            "Position {} left the cache: the window keeps the last {} keys and values, so the buffer drops its oldest row when a new one comes in.",
                            token_label(key_tokens, e),
                            at.len,
                        )}
                    </p>
                }
            });
            view! {
                <h3>{format!("Position {}: “{query_token}”", p.t)}</h3>
                <p class="al-cache-shape" data-testid="decode-cache-shape">
                    {format!(
                        "The cache after the append: k_cache and v_cache are (B, h_kv, L, d_k) = ({}, {}, {}, {})",
                        at.batch_len,
                        at.h_kv,
                        at.len,
                        at.d_k,
                    )}
                    {d
                        .cross
                        .then_some(
                            " (cross-attention: a fixed cache of the key/value sentence, computed once)",
                        )}
                </p>
                {evicted}
            }
        })
    };
    let query = move || ctx.with(|_, p, full, at| query_view(p, full, at));
    let memory = move || {
        ctx.with(|_, _, _, at| {
            let bytes = scenario_cache_bytes(at.batch_len, at.h_kv, at.d_k, at.len);
            format!(
                "This scenario's cache now: B × L × h_kv × d_k × 2 (K and V) × 8 bytes (f64) = {} × {} × {} × {} × 2 × 8 = {} bytes ({}), one layer.",
                at.batch_len, at.len, at.h_kv, at.d_k, group_digits(bytes), format_bytes(bytes)
            )
        })
    };
    view! {
        <div class="al-decode-step">
            {top}
            <ol
                class="al-cache-strip"
                data-testid="cache-strip"
                aria-label="Each key position: in the cache, new, left the cache, or not written yet"
            >
                <For
                    each=move || strip_keys.get()
                    key=|k| k.clone()
                    children=move |(j, token)| {
                        let name = move || slot_of(j).name();
                        let title = {
                            let token = token.clone();
                            move || format!("{j} {token}: {}", slot_of(j).name())
                        };
                        let label = title.clone();
                        view! {
                            <li
                                class=move || format!("al-slot al-slot-{}", name())
                                data-slot=name
                                data-pos=j
                                title=title
                                aria-label=label
                            >
                                {token}
                            </li>
                        }
                    }
                />
            </ol> <p class="al-legend" aria-hidden="true">
                <span class="al-slot al-slot-new">"new"</span>
                " appended now · "
                <span class="al-slot al-slot-cached">"cached"</span>
                " · "
                <span class="al-slot al-slot-evicted">"left now"</span>
                " · "
                <span class="al-slot al-slot-gone">"left earlier"</span>
                " · "
                <span class="al-slot al-slot-future">"not written yet"</span>
            </p> <div class="al-decode-grid">
                <div class="al-decode-cache">{cache_table(ctx, 'K')} {cache_table(ctx, 'V')}</div>
                <div class="al-decode-query">{query}</div>
            </div> <p class="al-memory" data-testid="decode-memory">
                {memory}
            </p>
        </div>
    }
}

/// The one query row at this position: its weights over the cached keys, the output row,
/// and the check against the full run.
fn query_view(p: &DecodeStep, full: Option<&Trace>, at: At) -> impl IntoView {
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
    let weight_rows = listed
        .iter()
        .filter_map(|&l| weights.get(l).map(|&w| (l, w)))
        .map(|(l, w)| {
            let pos = p.cache_positions.get(l).copied().unwrap_or(l);
            let width = if w.is_finite() { (w * 100.0).clamp(0.0, 100.0) } else { 0.0 };
            view! {
                <tr data-pos=pos>
                    <th scope="row">{token_label(key_tokens, pos)}</th>
                    <td data-value=exact(w)>{fixed(w, 4)}</td>
                    <td class="al-bar-cell" aria-hidden="true">
                        <span class="al-bar" style=format!("width: {width:.1}%")></span>
                    </td>
                </tr>
            }
        })
        .collect_view();
    let output = data::decoded_output_row(p, b).unwrap_or_default();
    let d_model = output.len();
    let out_cols = d_model.min(MAX_COLS * 2);
    // A click on an output number opens the explanation panel on it: the decoded row is
    // the full run's row t (the check below), so its arithmetic is that cell's.
    let explained = use_context::<Explained>();
    let id = CardId { step: StepName::Output, batch: b, head: 0 };
    let t = p.t;
    let output_cells = output
        .iter()
        .take(out_cols)
        .enumerate()
        .map(|(c, &x)| {
            view! {
                <td data-value=exact(x)>
                    <button
                        type="button"
                        class="al-cell-button"
                        data-testid="decode-explain"
                        title="Explain this number"
                        on:click=move |_| {
                            if let Some(e) = explained {
                                e.open(id, t, c)
                            }
                        }
                    >
                        {short(x)}
                    </button>
                </td>
            }
        })
        .collect_view();
    let panel = explained.map(|e| {
        move || {
            e.cell.get().filter(|(cell, r, _)| *cell == id && *r == t).map(|_| {
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
    let check = match full.and_then(|f| data::output_check(p, f, b).map(|diff| (f, diff))) {
        None => view! {
            <p class="al-check" data-testid="decode-check">
                "The full run is not ready yet: no check."
            </p>
        }
        .into_any(),
        Some((f, diff)) => {
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
            view! { <CheckLine ok=ok diff=diff words=words testid="decode-check" /> }.into_any()
        }
    };
    view! {
        {scroll_region(
            "this position's weights as a table".to_string(),
            view! {
                <table class="al-table al-weights-table" data-testid="decode-weights">
                    <caption>
                        {format!(
                            "Query head {}'s weights over the {} cached keys{}: softmax(q·k / √d_k)",
                            head + 1,
                            weights.len(),
                            unlisted.unwrap_or_default(),
                        )}
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
                <table class="al-table" data-testid="decode-output">
                    <caption>
                        {format!(
                            "The output row, (B, 1, d_model) for sentence {}{} (click a number for its arithmetic)",
                            b + 1,
                            if d_model > out_cols {
                                format!(": the first {out_cols} of {d_model} numbers")
                            } else {
                                String::new()
                            },
                        )}
                    </caption>
                    <tbody>
                        <tr>
                            <th scope="row">{format!("output[{b}, {}]", p.t)}</th>
                            {output_cells}
                        </tr>
                    </tbody>
                </table>
            },
        )}
        {check}
        {panel}
    }
}

/// The cache of a published model: model × tokens × number format, through
/// [`crate::engine::decode::cache_bytes`].
#[component]
fn CacheCalculator() -> impl IntoView {
    let model = RwSignal::new(0_usize);
    let tokens = RwSignal::new(8192_u64);
    let dtype = RwSignal::new(0_usize);
    let result = move || {
        let m = MODELS.get(model.get()).copied().unwrap_or(MODELS[0]);
        let (name, bytes) = DTYPES.get(dtype.get()).copied().unwrap_or(DTYPES[0]);
        let n = tokens.get();
        let kept = m.window.map_or(n, |w| n.min(w));
        let total = m.cache_bytes(n, bytes);
        let window = m
            .window
            .filter(|&w| n > w)
            .map(|w| format!(" The sliding window keeps only the last {} tokens.", group_digits(w)))
            .unwrap_or_default();
        format!(
            "{} at {} tokens in {name}: 2 (K and V) × {} layers × {} K/V heads × d_k {} × {bytes} bytes × {} tokens = {} bytes = {} per sequence.{window}",
            m.name,
            group_digits(n),
            m.layers,
            m.kv_heads,
            m.d_k,
            group_digits(kept),
            group_digits(total),
            format_bytes(total)
        )
    };
    let on_tokens = move |ev: leptos::ev::Event| {
        if let Ok(v) = event_target_value(&ev).trim().parse::<u64>() {
            tokens.set(v.clamp(1, 10_000_000));
        }
    };
    view! {
        <fieldset class="al-calc" data-testid="cache-calculator">
            <legend>"The cache of a published model"</legend>
            <label>
                "Model "
                <select
                    data-testid="calc-model"
                    on:change=move |ev| model.set(event_target_value(&ev).parse().unwrap_or(0))
                >
                    {MODELS
                        .iter()
                        .enumerate()
                        .map(|(i, m)| view! { <option value=i.to_string()>{m.name}</option> })
                        .collect_view()}
                </select>
            </label>
            <label>
                "Tokens "
                <input
                    type="number"
                    min="1"
                    max="10000000"
                    step="1"
                    data-testid="calc-tokens"
                    prop:value=move || tokens.get().to_string()
                    on:input=on_tokens
                />
            </label>
            <label>
                "Numbers in "
                <select
                    data-testid="calc-dtype"
                    on:change=move |ev| dtype.set(event_target_value(&ev).parse().unwrap_or(0))
                >
                    {DTYPES
                        .iter()
                        .enumerate()
                        .map(|(i, (name, bytes))| {
                            view! { <option value=i.to_string()>{format!("{name} ({bytes} bytes)")}</option> }
                        })
                        .collect_view()}
                </select>
            </label>
            <p data-testid="calc-result" aria-live="polite">
                {result}
            </p>
        </fieldset>
    }
}
