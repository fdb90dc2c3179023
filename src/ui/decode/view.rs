//! The decode view (`view=decode`): the scenario as a model generating it runs it, one
//! position at a time with a key/value cache. Step through t with ← → (or Play); each
//! position shows the cache growing (under a window, the row that leaves), the one query
//! row's weights over the cached keys, the output row and its check against the full
//! run, and the cache's bytes. The numbers are [`crate::engine::decode`]'s, computed
//! once per scenario; the pure parts are [`crate::ui::decode::data`].

use std::sync::Arc;
use std::time::Duration;

use leptos::prelude::*;

use crate::engine::{decode, Decoded, EngineError};
use crate::ui::decode::cache::{cache_table, listed_words};
use crate::ui::decode::cache_calculator::CacheCalculator;
use crate::ui::decode::data::{
    self as data, format_bytes, group_digits, scenario_cache_bytes, slots, token_label, Slot,
};
use crate::ui::decode::position::Ctx;
use crate::ui::decode::query::query_view;
use crate::ui::platform::timing;
use crate::ui::state::app_state::AppState;
use crate::ui::widgets::head_options::HeadPicker;
use crate::ui::widgets::stepper::{StepButtons, Stepper, StepperPanel};
use crate::ui::widgets::text_fit::{may_overflow, SLOT_FITS};

/// The engine's refusal of a scenario without a causal mask, as the view shows it.
const NEEDS_CAUSAL: &str = "needs causal";

/// The decode view's introduction.
const INTRO: &str = "A model that generates text does not compute the whole T × T matrix at once. At each \
                     position t it computes one new query, key and value, appends the key and value to a cache \
                     of every earlier one, and scores the one query against the cache.";

/// [`INTRO`] under multi-head latent attention, whose cache holds what keys and values are
/// made from.
const INTRO_LATENT: &str = "A model that generates text does not compute the whole T × T matrix at once. At \
                            each position t it computes one new query, key and value, appends the latent and RoPE \
                            key they are made from to a cache of every earlier one, and scores the one query \
                            against the cache.";

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
    let decoded = decode_once(scenario);
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
    let stepper = Stepper::new(t, n);
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
                    stepper.go(1);
                }
            },
            Duration::from_millis(900),
        );
        timer.set_value(handle.ok());
    };
    // the calculator's fields keep their own keys
    let batch = move || view_state.with(|v| v.batch);

    let ctx = Ctx { decoded, t, batch: Signal::derive(batch), head, full };
    // Rebuilt only when the decoding changes (a new scenario): each part below follows t.
    let body = move || {
        decoded.with(|d| match d {
            Err(e) if e == NEEDS_CAUSAL => view! {
                <div class="al-flag" data-testid="decode-needs-causal" role="alert">
                    <p>{EngineError::DecodeNeedsCausal.to_string()}</p>
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
            }
            .into_any(),
            Ok(d) if d.positions.is_empty() => {
                view! { <p data-testid="decode-empty">"No position to decode."</p> }.into_any()
            }
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
        if n() == 0 {
            return "no position to decode".to_owned();
        }
        let last = n().saturating_sub(1);
        let now = t.get().min(last);
        let token = full.with(|f| f.as_ref().and_then(|f| f.query_tokens(batch()).get(now).cloned()));
        // t is the step of writing: the one new position, not the cache's span
        format!(
            "t = {now} of 0 to {last}: {}",
            token.map_or_else(|| "this position's query".to_owned(), |tok| format!("the query is “{tok}”"))
        )
    };
    // the latent is named only where the trace has one (the KV-cache lesson comes before MLA's)
    let latent = run.with_untracked(|r| r.scenario.mla.is_some());
    let intro = if latent { INTRO_LATENT } else { INTRO };
    view! {
        <StepperPanel
            stepper=stepper
            in_lesson=in_lesson
            class="al-decode"
            testid="decode-view"
            label="Decoding with a key/value cache, one position at a time (← → to step)"
            title="Decoding with a KV cache"
            intro=intro
            controls="the position buttons or Play"
        >
            <div class="al-step-nav">
                <StepButtons stepper=stepper what="position" testid="decode">
                    <button
                        type="button"
                        data-testid="decode-play"
                        disabled=move || n() <= 1
                        on:click=play
                        aria-pressed=move || if playing.get() { "true" } else { "false" }
                    >
                        {move || if playing.get() { "Pause" } else { "Play" }}
                    </button>
                </StepButtons>
                <span class="al-step-where" data-testid="decode-position" aria-live="polite">
                    {position_text}
                </span>
                <HeadPicker caption="Query " testid="decode-head" heads=Signal::derive(heads) head=head />
            </div>
            {body}
            <CacheCalculator />
        </StepperPanel>
    }
}

/// The decoding of `scenario`, once per scenario (compared by pointer, so a stored
/// result is not compared number by number), or why it is not there: too large for the
/// page, no causal mask ([`NEEDS_CAUSAL`]), or the engine's error.
fn decode_once(scenario: Memo<crate::engine::Scenario>) -> Memo<Result<Arc<Decoded>, String>> {
    Memo::new_with_compare(
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
                timing::mark("al-decode-start");
                let d = decode(s).map(Arc::new);
                timing::mark("al-decode-end");
                d.map_err(|e| match e {
                    EngineError::DecodeNeedsCausal => NEEDS_CAUSAL.to_owned(),
                    e => crate::ui::state::field_words::page_words(&e.to_string()),
                })
            })
        },
        |a: Option<&Result<Arc<Decoded>, String>>, b: Option<&Result<Arc<Decoded>, String>>| match (a, b) {
            (Some(Ok(a)), Some(Ok(b))) => !Arc::ptr_eq(a, b),
            (Some(Err(a)), Some(Err(b))) => a != b,
            _ => true,
        },
    )
}

/// One position: the cache strip (keyed, its classes follow t), the K and V tables and
/// the query's weights, output, check and bytes (built once; their rows, text and
/// attributes follow t).
fn step_view(ctx: Ctx) -> impl IntoView {
    // not on t: the strip's positions are the decoding's (a cross-attention cache has the
    // same length at every position)
    let strip_keys = Memo::new(move |_| {
        ctx.with_decoding(|d, full, at| {
            let key_tokens: &[String] = full.map(|f| f.key_tokens(at.b)).unwrap_or(&[]);
            (0..data::key_count(d))
                .map(|j| (j, key_tokens.get(j).cloned().unwrap_or_else(|| j.to_string())))
                .collect::<Vec<_>>()
        })
        .unwrap_or_default()
    });
    let slots_now =
        Memo::new(move |_| ctx.with(|d, p, _, _| slots(p, data::key_count(d), d.cross)).unwrap_or_default());
    // Each position of the strip holds its slot in a signal of its own, and one effect
    // sets only the two or three that change at a step. (A memo per position re-ran all
    // 128 at every step, and closures reading `slots_now` directly made it a source of 512
    // subscribers, each re-run a linear removal from its subscriber set: ~1.4 ms a step.)
    let slot_of = move |j: usize| slots_now.with_untracked(|s| s.get(j).copied().unwrap_or(Slot::Future));
    let strip_slots = StoredValue::new(std::collections::HashMap::<usize, RwSignal<Slot>>::new());
    Effect::new(move |_| {
        slots_now.with(|now| {
            strip_slots.with_value(|signals| {
                for (&j, signal) in signals {
                    let slot = now.get(j).copied().unwrap_or(Slot::Future);
                    if signal.get_untracked() != slot {
                        signal.set(slot);
                    }
                }
            })
        })
    });
    // The header: its text follows t (the evicted note comes and goes).
    let heading = move || {
        ctx.with(|_, p, full, at| {
            let query_token = full.and_then(|f| f.query_tokens(at.b).get(p.t).cloned()).unwrap_or_default();
            format!("Position {}: “{query_token}”", p.t)
        })
    };
    let shape = move || {
        ctx.with(|d, p, _, at| {
            let holds = match at.latent {
                // MLA: the latents and RoPE keys are cached, the keys and values made from them
                Some((r_kv, d_rope)) => format!(
                    "Multi-head latent attention caches, per token, the latent c_KV (r_kv = {r_kv} numbers) and the rotated RoPE key k_rot (d_rope = {d_rope}) that every head shares: {} numbers, not h·(d_k + d_v) = {}·({} + {}) = {} for every head's key and value. After the append c_kv and k_rot are (B, 1, L, r_kv or d_rope) = ({}, 1, {}, {r_kv} or {d_rope}); at each step kv_b_proj projects every head's k_nope and v up from c_kv, and each key is [k_nope, k_rot]",
                    r_kv + d_rope,
                    at.h_kv,
                    at.d_k,
                    at.d_v,
                    at.h_kv * (at.d_k + at.d_v),
                    at.batch_len,
                    at.len,
                ),
                None => format!(
                    "The cache after the append: k_cache is (B, h_kv, L, d_k) and v_cache (B, h_kv, L, d_v), both ({}, {}, {}, {})",
                    at.batch_len, at.h_kv, at.len, at.d_k
                ),
            };
            format!(
                "{holds}{}{}",
                if d.cross {
                    " (cross-attention: a fixed cache of the key/value sentence, computed once)".to_owned()
                } else if p.kept > 0 {
                    format!(
                        " ({} kept first row{} and {} of the window)",
                        p.kept,
                        if p.kept == 1 { "" } else { "s" },
                        at.len - p.kept.min(at.len)
                    )
                } else {
                    String::new()
                },
                listed_words(at.len, p.kept),
            )
        })
    };
    let evicted_words = Memo::new(move |_| {
        ctx.with(|_, p, full, at| {
            let key_tokens: &[String] = full.map(|f| f.key_tokens(at.b)).unwrap_or(&[]);
            let rows = if at.latent.is_some() { "latents and RoPE keys" } else { "keys and values" };
            p.evicted.map(|e| {
                if p.kept > 0 {
                    format!(
                        "Left the cache: {}. The window keeps its last {} {rows} beside {}; kept rows never leave.",
                        token_label(key_tokens, e),
                        at.len - p.kept.min(at.len),
                        if p.kept == 1 { "the kept first one".to_owned() } else { format!("the {} kept first ones", p.kept) },
                    )
                } else {
                    format!(
                        "Left the cache: {}. The window keeps the last {} {rows}, so the buffer drops its oldest row when a new one comes in.",
                        token_label(key_tokens, e),
                        at.len,
                    )
                }
            })
        })
        .flatten()
    });
    let evicted = move || {
        evicted_words.get().map(|words| {
            view! {
                <p class="al-evicted-note" data-testid="decode-evicted">
                    {words}
                </p>
            }
        })
    };
    let top = view! {
        <h3>{heading}</h3>
        <p class="al-cache-shape" data-testid="decode-cache-shape">
            {shape}
        </p>
        {evicted}
    };
    // only a sliding window makes rows leave the cache: the legend names those slots then
    let windowed = move || {
        ctx.with_decoding(|_, full, _| full.is_some_and(|f| f.mask.config.window.is_some())).unwrap_or(false)
    };
    // kept first keys (StreamingLLM) are a slot of their own
    let keeps = move || {
        ctx.with_decoding(|_, full, _| full.is_some_and(|f| f.mask.config.keep_first.is_some()))
            .unwrap_or(false)
    };
    let memory = move || {
        ctx.with(|_, _, _, at| {
            if let Some((r_kv, d_rope)) = at.latent {
                let bytes = data::latent_cache_bytes(at.batch_len, r_kv, d_rope, at.len);
                return format!(
                    "This scenario's cache now: B × L × (r_kv + d_rope) × 8 bytes (f64) = {} × {} × ({r_kv} + {d_rope}) × 8 = {} bytes ({}), one layer.",
                    at.batch_len, at.len, group_digits(bytes), format_bytes(bytes)
                );
            }
            let bytes = scenario_cache_bytes(at.batch_len, at.h_kv, at.d_k, at.len);
            format!(
                "This scenario's cache now: B × L × h_kv × d_k × 2 (K, and V of d_v = d_k) × 8 bytes (f64) = {} × {} × {} × {} × 2 × 8 = {} bytes ({}), one layer.",
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
                aria-label="Each key position: in the cache (or kept there for good), new, left the cache, or not written yet"
            >
                <For
                    each=move || strip_keys.get()
                    key=|k| k.clone()
                    children=move |(j, token)| {
                        let slot = RwSignal::new(slot_of(j));
                        strip_slots
                            .update_value(|s| {
                                s.insert(j, slot);
                            });
                        on_cleanup(move || {
                            strip_slots
                                .update_value(|s| {
                                    if s.get(&j) == Some(&slot) {
                                        s.remove(&j);
                                    }
                                })
                        });
                        let name = move || slot.get().name();
                        let long = if may_overflow(&token, SLOT_FITS) { " al-slot-long" } else { "" };
                        let title = {
                            let token = token.clone();
                            move || format!("{j} {token}: {}", slot.get().name())
                        };
                        let label = title.clone();
                        view! {
                            <li
                                class=move || format!("al-slot al-slot-{}{long}", name())
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
                {move || {
                    keeps()
                        .then(|| {
                            view! {
                                " · "
                                <span class="al-slot al-slot-kept">"kept"</span>
                                " first keys, never evicted"
                            }
                        })
                }}
                {move || {
                    windowed()
                        .then(|| {
                            view! {
                                " · "
                                <span class="al-slot al-slot-evicted">"left the window now"</span>
                                " · "
                                <span class="al-slot al-slot-gone">"left it earlier"</span>
                            }
                        })
                }}
                " · "
                <span class="al-slot al-slot-future">"not written yet"</span>
            </p> <div class="al-decode-grid">
                <div class="al-decode-cache">{cache_table(ctx, 'K')} {cache_table(ctx, 'V')}</div>
                <div class="al-decode-query">{query_view(ctx)}</div>
            </div> <p class="al-memory" data-testid="decode-memory">
                {memory}
            </p>
        </div>
    }
}
