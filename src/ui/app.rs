//! The top component: the inputs are signals here, one memo runs the engine, and the
//! children read slices of the trace. Nothing here computes attention.

use std::sync::Arc;

use leptos::prelude::*;
use wasm_bindgen::JsCast;

use crate::draw::Scale;
use crate::engine::{
    self, EngineError, Fill, Padding, ProjectionKind, Projections, Scenario, StepName, Trace,
};

use super::dom;
use super::heatmap_card::{HeatmapCard, HeatmapSpec, TablesOpen};
use super::lesson_panel::{EmbeddingEditor, EmbeddingPlot, LessonPanel, MaskConventions};
use super::pipeline::Pipeline;
use super::state::{self, Settings, ViewState, UI_MAX_D_MODEL};
use crate::engine::trace::shape_text;
use crate::lessons;

/// The engine's answer for the current inputs.
#[derive(Debug, Clone)]
struct Run {
    scenario: Scenario,
    notices: Vec<String>,
    result: Result<Arc<Trace>, EngineError>,
}

/// Two runs are the same when their inputs are: the engine is a pure function of the
/// scenario, so comparing the traces number by number (what a derived `PartialEq` would
/// do on every edit) could only repeat that.
impl PartialEq for Run {
    fn eq(&self, other: &Self) -> bool {
        self.scenario == other.scenario && self.notices == other.notices
    }
}

/// An error message for one control, shown only when the engine's error is about it.
#[component]
fn FieldError(#[prop(into)] error: Signal<Option<EngineError>>, field: &'static str) -> impl IntoView {
    move || {
        error.get().filter(|e| e.field() == field).map(|e| {
            view! { <p class="al-error" data-testid="error" role="alert">{e.to_string()}</p> }
        })
    }
}

/// The whole page.
#[component]
pub fn App() -> impl IntoView {
    let all_lessons = Arc::new(lessons::lessons());
    let (pairs, lesson_pairs): (Vec<_>, Vec<_>) =
        dom::query_pairs().into_iter().partition(|(k, _)| k != "lesson" && k != "ls");
    let (text0, settings0, view0, mut url_notices) = state::from_query(&pairs);
    let text = RwSignal::new(text0);
    let settings = RwSignal::new(settings0);
    let view_state = RwSignal::new(view0);
    let import_error = RwSignal::new(None::<String>);
    let lesson = RwSignal::new(None::<(usize, usize)>);
    provide_context(TablesOpen(RwSignal::new(false)));

    // Entering a lesson step sets the explorer's inputs to that step's scenario; the
    // learner can then edit them, and the lesson's words follow the live trace.
    let go_to_lesson = {
        let all_lessons = all_lessons.clone();
        move |(l, s): (usize, usize)| {
            let Some(ls) = all_lessons.get(l).and_then(|x| x.steps.get(s)) else { return };
            let (t, st) = state::from_scenario(&ls.scenario);
            settings.set(st);
            text.set(t);
            view_state.update(|v| {
                v.step = ls.focus;
                v.batch = ls.batch;
            });
            lesson.set(Some((l, s)));
        }
    };
    if let Some(id) = lesson_pairs.iter().find(|(k, _)| k == "lesson").map(|(_, v)| v.clone()) {
        let n = lesson_pairs
            .iter()
            .find(|(k, _)| k == "ls")
            .and_then(|(_, v)| v.parse::<usize>().ok())
            .unwrap_or(0);
        match all_lessons.iter().position(|l| l.id == id) {
            Some(l) => go_to_lesson((l, n.min(all_lessons[l].steps.len() - 1))),
            None => url_notices.push(format!(
                "The link's lesson \"{}\" does not exist; showing the explorer.",
                id.chars().take(40).collect::<String>()
            )),
        }
    }
    let on_go = Callback::new(go_to_lesson.clone());
    let on_exit = Callback::new(move |()| lesson.set(None));

    // The one place the engine runs.
    let run = Memo::new(move |_| {
        dom::mark("al-engine-start");
        let (scenario, notices) = state::scenario(&text.get(), &settings.get());
        let result = state::run(&scenario).map(Arc::new);
        dom::mark("al-engine-end");
        Run { scenario, notices, result }
    });
    // The last trace that ran without error stays on screen, marked stale, under an error.
    // (It changes when it holds another trace: comparing the pointers is enough.)
    let shown = Memo::new_with_compare(
        move |prev: Option<&Option<Arc<Trace>>>| match &run.get().result {
            Ok(t) => Some(t.clone()),
            Err(_) => prev.cloned().flatten(),
        },
        |a, b| match (a.cloned().flatten(), b.cloned().flatten()) {
            (Some(a), Some(b)) => !Arc::ptr_eq(&a, &b),
            (a, b) => a.is_some() != b.is_some(),
        },
    );
    let error = Signal::derive(move || run.with(|r| r.result.clone().err()));
    let stale = move || error.get().is_some() && shown.get().is_some();

    // Live state goes into the URL (replacing, not pushing, history entries).
    {
        let all_lessons = all_lessons.clone();
        Effect::new(move |_| {
            let mut q = state::to_query(&text.get(), &settings.get(), &view_state.get());
            if let Some((l, s)) = lesson.get() {
                q.push(("lesson", all_lessons[l].id.to_string()));
                q.push(("ls", s.to_string()));
            }
            dom::replace_query(&q);
        });
    }

    // Any edit clears an old import error; a number field that does not parse says so
    // next to itself instead of being ignored.
    let bad_number = RwSignal::new(None::<(&'static str, String)>);
    let set = move |f: &dyn Fn(&mut Settings)| {
        import_error.set(None);
        settings.update(|s| f(s));
    };
    let set_count =
        move |field: &'static str, ev: &leptos::ev::Event, apply: &dyn Fn(&mut Settings, usize)| {
            let raw = event_target_value(ev);
            match raw.trim().parse::<usize>() {
                Ok(v) => {
                    bad_number.set(None);
                    set(&|s| apply(s, v));
                }
                Err(_) => {
                    let shown: String = raw.chars().take(20).collect();
                    bad_number.set(Some((
                        field,
                        format!("{field} must be a whole number of at least 1, not \"{shown}\""),
                    )));
                }
            }
        };
    let number_error = move |field: &'static str| {
        move || {
            bad_number.get().filter(|(f, _)| *f == field).map(|(_, message)| {
                view! { <p class="al-error" data-testid="error" role="alert">{message}</p> }
            })
        }
    };
    // The heatmaps are laid out for the window's width, again whenever it changes.
    let viewport = RwSignal::new(dom::viewport_width());
    let resize = window_event_listener(leptos::ev::resize, move |_| viewport.set(dom::viewport_width()));
    on_cleanup(move || resize.remove());

    let on_seed = move |ev: leptos::ev::Event| {
        if let Ok(v) = event_target_value(&ev).trim().parse::<u64>() {
            set(&|s| s.seed = v);
        }
    };
    let d_k_text = move || {
        settings.with(|s| match engine::attention::head_width(s.d_model, s.n_heads) {
            Ok(d_k) => format!("d_k = d_model / h = {d_k}"),
            Err(_) => "d_k = d_model / h is not a whole number".to_string(),
        })
    };

    // --- export / import ---------------------------------------------------------
    let export_trace = move |_| {
        if let Some(t) = shown.get_untracked() {
            dom::download_text("trace.json", "application/json", &format!("{}\n", t.to_json()));
        }
    };
    let export_scenario = move |_| {
        let s = run.with_untracked(|r| r.scenario.to_json());
        dom::download_text("scenario.json", "application/json", &format!("{s}\n"));
    };
    let on_import = move |ev: leptos::ev::Event| {
        let Some(input) = ev.target().and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok()) else {
            return;
        };
        let Some(file) = input.files().and_then(|f| f.get(0)) else { return };
        let promise = file.text();
        leptos::task::spawn_local(async move {
            let text_value =
                wasm_bindgen_futures::JsFuture::from(promise).await.ok().and_then(|v| v.as_string());
            match text_value.map(|t| Scenario::from_json(&t)) {
                Some(Ok(s)) => {
                    let (t, st) = state::from_scenario(&s);
                    import_error.set(None);
                    settings.set(st);
                    text.set(t);
                }
                Some(Err(e)) => import_error.set(Some(e.to_string())),
                None => import_error.set(Some("the file could not be read as text".into())),
            }
        });
    };

    // --- the tensors of the selected step ------------------------------------------
    let tensors = move || {
        let trace = shown.get()?;
        let ViewState { step, batch, shared_scale } = view_state.get();
        // A step this trace does not have (x_kv after cross-attention is switched off)
        // shows the weights instead.
        let s = trace.step(step).or_else(|| trace.step(StepName::Weights))?;
        let batch = batch.min(trace.sizes.b.saturating_sub(1));
        let heads = if s.has_heads() { trace.sizes.n_heads } else { 1 };
        let name = s.name;
        let is_weights = name == StepName::Weights;
        // the numbers a colour scale must cover: one head's, or every head's
        let values_of = |heads: std::ops::Range<usize>| {
            heads.filter_map(|h| s.matrix(batch, h)).flat_map(|m| m.into_iter())
        };
        let shared = (!is_weights && shared_scale).then(|| Scale::diverging(values_of(0..heads)));
        // the tensors column: beside the pipeline on wide screens, below it on narrow ones
        let viewport = viewport.get().min(1400.0);
        let column = if viewport > 900.0 { viewport - 400.0 } else { viewport - 40.0 };
        // two heads side by side while their cells stay big enough to read; one per row
        // beyond T = 24, so that T = 64 still has ~10 px cells and labels
        let dense = s.shape.last().copied().unwrap_or(0) > 24;
        let max_width = if heads > 1 && column > 640.0 && !dense {
            (column / 2.0 - 40.0).min(520.0)
        } else {
            (column - 30.0).min(760.0)
        };
        let cards = (0..heads)
            .map(|h| {
                let scale = if is_weights {
                    Scale::weights()
                } else {
                    shared.unwrap_or_else(|| Scale::diverging(values_of(h..h + 1)))
                };
                let spec = HeatmapSpec { step: name, batch, head: h, scale, max_width };
                view! { <HeatmapCard trace=trace.clone() spec=spec /> }
            })
            .collect_view();
        let notes = mask_notes(&trace, name, batch);
        Some(view! {
            <div class="al-tensor-head">
                <h2>
                    <code>{name.as_str()}</code>
                    " "
                    <span class="al-shape">{shape_text(&s.dims, &s.shape)}</span>
                </h2>
                <p class="al-step-op">{s.op.clone()}</p>
                <code class="al-pytorch">{s.pytorch.clone()}</code>
            </div>
            {notes}
            <div class="al-cards">{cards}</div>
        })
    };

    let batch_tabs = move || {
        let trace = shown.get()?;
        if trace.sizes.b < 2 {
            return None;
        }
        let current = view_state.with(|v| v.batch);
        Some(
            trace
                .tokens
                .iter()
                .enumerate()
                .map(|(b, toks)| {
                    let real: Vec<&str> = toks.iter().take(trace.lengths[b]).map(String::as_str).collect();
                    let label = real.join(" ");
                    view! {
                        <button
                            type="button"
                            class="al-tab"
                            class:al-selected=current == b
                            aria-pressed=(current == b).to_string()
                            data-testid="batch-tab"
                            on:click=move |_| view_state.update(|v| v.batch = b)
                        >
                            {format!("{}. ", b + 1)}
                            {label}
                        </button>
                    }
                })
                .collect_view(),
        )
    };

    let tokens_view = move || {
        let trace = shown.get()?;
        Some(
            trace
                .tokens
                .iter()
                .enumerate()
                .map(|(b, row)| {
                    let chips = row
                        .iter()
                        .enumerate()
                        .map(|(i, t)| {
                            let pad = i >= trace.lengths[b];
                            view! { <li class="al-token" class:al-pad=pad>{t.clone()}</li> }
                        })
                        .collect_view();
                    view! { <ol class="al-tokens" data-testid="tokens" data-batch=b>{chips}</ol> }
                })
                .collect_view(),
        )
    };
    let kv_tokens_view = move || {
        let trace = shown.get()?;
        let (kv, lengths) = (trace.kv_tokens.as_ref()?, trace.kv_lengths.as_ref()?);
        Some(view! {
            <p class="al-sizes">"keys and values (cross-attention), T_k = " {trace.sizes.t_k.unwrap_or(0)} ":"</p>
            {kv.iter().enumerate().map(|(b, row)| {
                let chips = row.iter().enumerate().map(|(i, t)| {
                    let pad = i >= lengths.get(b).copied().unwrap_or(0);
                    view! { <li class="al-token al-kv" class:al-pad=pad>{t.clone()}</li> }
                }).collect_view();
                view! { <ol class="al-tokens" data-testid="kv-tokens" data-batch=b>{chips}</ol> }
            }).collect_view()}
        })
    };

    let sizes_view = move || {
        shown.get().map(|t| {
            let z = t.sizes;
            let t = match z.t_k {
                Some(t_k) => format!("T_q = {}, T_k = {t_k}", z.t),
                None => format!("T = {}", z.t),
            };
            format!(
                "B = {}, {t}, d_model = {}, h = {}, d_k = {} · parameters 4·d_model² + 4·d_model = {}",
                z.b,
                z.d_model,
                z.n_heads,
                z.d_k,
                engine::weights::parameter_count(z.d_model)
            )
        })
    };

    view! {
        <div class="al-app" class:al-stale=stale>
            <header class="al-header">
                <h1>"Attention Lens"</h1>
                <p class="al-tagline">
                    "Multi-head scaled dot-product attention, "
                    <code>"softmax(QKᵀ/√d_k + mask)V"</code>
                    ", computed exactly in your browser, step by step."
                </p>
                <nav class="al-modes" aria-label="Mode">
                    <button type="button" class="al-tab" class:al-selected=move || lesson.get().is_none()
                        data-testid="mode-explorer" on:click=move |_| lesson.set(None)>"Explorer"</button>
                    <button type="button" class="al-tab" class:al-selected=move || lesson.get().is_some()
                        data-testid="mode-lessons" on:click={let go = go_to_lesson.clone(); move |_| if lesson.get_untracked().is_none() { go((0, 0)) }}>"Lessons"</button>
                </nav>
            </header>
            {
                let all_lessons = all_lessons.clone();
                move || lesson.get().map(|(l, _)| {
                    let id = all_lessons[l].id;
                    let position = Signal::derive(move || lesson.get().unwrap_or((l, 0)));
                    let batch = Signal::derive(move || view_state.with(|v| v.batch));
                    view! {
                        <LessonPanel lessons=all_lessons.clone() position=position trace=Signal::derive(move || shown.get()) on_go=on_go on_exit=on_exit />
                        {(id == "baseball-bat").then(|| view! {
                            <div class="al-lesson-extras">
                                <EmbeddingEditor settings=settings />
                                <EmbeddingPlot trace=Signal::derive(move || shown.get()) settings=settings />
                            </div>
                        })}
                        {(id == "masks").then(|| view! { <MaskConventions trace=Signal::derive(move || shown.get()) batch=batch /> })}
                    }
                })
            }

            <section class="al-controls" aria-label="Input and settings">
                <label class="al-field al-sentences">
                    <span>"Sentences (one per line; several lines make a batch, padded to the longest)"</span>
                    <textarea
                        data-testid="sentences"
                        rows="3"
                        spellcheck="false"
                        prop:value=move || text.get()
                        on:input=move |ev| { import_error.set(None); text.set(event_target_value(&ev)) }
                    ></textarea>
                    <FieldError error=error field="sentences" />
                </label>
                <label class="al-check">
                    <input
                        data-testid="cross"
                        type="checkbox"
                        prop:checked=move || settings.with(|s| s.kv_text.is_some())
                        on:change=move |ev| {
                            let on = event_target_checked(&ev);
                            let kv = on.then(|| text.get_untracked());
                            settings.update(|s| s.kv_text = kv);
                        }
                    />
                    "cross-attention: the keys and values come from other sentences (T_k may differ from T_q)"
                </label>
                {move || settings.with(|s| s.kv_text.is_some()).then(|| view! {
                    <label class="al-field al-sentences">
                        <span>"Key/value sentences (one line per query sentence, e.g. the encoder's input)"</span>
                        <textarea
                            data-testid="kv-sentences"
                            rows="2"
                            spellcheck="false"
                            prop:value=move || settings.with(|s| s.kv_text.clone().unwrap_or_default())
                            on:input=move |ev| { let v = event_target_value(&ev); settings.update(|s| s.kv_text = Some(v)) }
                        ></textarea>
                    </label>
                })}
                <div class="al-row">
                    <label class="al-field">
                        <span>"d_model"</span>
                        <input
                            data-testid="d-model"
                            type="number"
                            min="1"
                            max=UI_MAX_D_MODEL
                            prop:value=move || settings.with(|s| s.d_model.to_string())
                            on:input=move |ev| set_count("d_model", &ev, &|s, v| s.d_model = v)
                        />
                        {number_error("d_model")}
                        <FieldError error=error field="d_model" />
                    </label>
                    <label class="al-field">
                        <span>"h (heads)"</span>
                        <input
                            data-testid="n-heads"
                            type="number"
                            min="1"
                            max="64"
                            prop:value=move || settings.with(|s| s.n_heads.to_string())
                            on:input=move |ev| set_count("h", &ev, &|s, v| s.n_heads = v)
                        />
                        {number_error("h")}
                        <span class="al-hint" data-testid="d-k">{d_k_text}</span>
                        <FieldError error=error field="n_heads" />
                    </label>
                    <label class="al-field">
                        <span>"Projections W_Q, W_K, W_V, W_O"</span>
                        <select
                            data-testid="projections"
                            prop:value=move || settings.with(|s| match s.projections {
                                Projections::Named(ProjectionKind::Identity) => "identity",
                                Projections::Named(ProjectionKind::Seeded) => "seeded",
                                Projections::Explicit(_) => "explicit",
                            })
                            on:change=move |ev| {
                                let v = event_target_value(&ev);
                                set(&|s| s.projections = Projections::Named(if v == "identity" { ProjectionKind::Identity } else { ProjectionKind::Seeded }));
                            }
                        >
                            <option value="identity">"identity (W = I)"</option>
                            <option value="seeded">"seeded (Xavier uniform)"</option>
                            <option value="explicit" disabled=true>"imported"</option>
                        </select>
                        <FieldError error=error field="projections" />
                    </label>
                    <label class="al-field">
                        <span>"seed"</span>
                        <input
                            data-testid="seed"
                            type="number"
                            min="0"
                            prop:value=move || settings.with(|s| s.seed.to_string())
                            prop:disabled=move || settings.with(|s| s.projections != Projections::Named(ProjectionKind::Seeded))
                            on:input=on_seed
                        />
                    </label>
                </div>
                <fieldset class="al-row al-mask">
                    <legend>"Mask (engine convention: " <code>"true = blocked"</code> ")"</legend>
                    <label class="al-check">
                        <input
                            data-testid="mask-causal"
                            type="checkbox"
                            prop:checked=move || settings.with(|s| s.mask.causal)
                            on:change=move |ev| { let c = event_target_checked(&ev); set(&|s| s.mask.causal = c) }
                        />
                        "causal (query i never sees key j > i)"
                    </label>
                    <label class="al-field">
                        <span>"padding"</span>
                        <select
                            data-testid="mask-padding"
                            prop:value=move || settings.with(|s| s.mask.padding.name())
                            on:change=move |ev| {
                                let p = Padding::from_name(&event_target_value(&ev)).unwrap_or_default();
                                set(&|s| s.mask.padding = p);
                            }
                        >
                            <option value="none">"none"</option>
                            <option value="keys">"keys (no query attends to <pad>)"</option>
                            <option value="keys_and_queries">"keys and queries (<pad> rows blocked too)"</option>
                        </select>
                    </label>
                    <label class="al-field">
                        <span>"fill"</span>
                        <select
                            data-testid="mask-fill"
                            prop:value=move || settings.with(|s| s.mask.fill.name())
                            on:change=move |ev| {
                                let f = Fill::from_name(&event_target_value(&ev)).unwrap_or_default();
                                set(&|s| s.mask.fill = f);
                            }
                        >
                            <option value="neg_inf">"-inf  (float('-inf'))"</option>
                            <option value="large_negative">"-1e9"</option>
                        </select>
                    </label>
                </fieldset>
                <div class="al-row al-io">
                    <button type="button" on:click=export_trace data-testid="export-trace">"Export trace JSON"</button>
                    <button type="button" on:click=export_scenario data-testid="export-scenario">"Export scenario JSON"</button>
                    <label class="al-file">
                        "Import scenario JSON "
                        <input type="file" accept=".json,application/json" data-testid="import-scenario" on:change=on_import />
                    </label>
                    <label class="al-check">
                        <input
                            type="checkbox"
                            data-testid="shared-scale"
                            prop:checked=move || view_state.with(|v| v.shared_scale)
                            on:change=move |ev| { let c = event_target_checked(&ev); view_state.update(|v| v.shared_scale = c) }
                        />
                        "one colour scale for all heads"
                    </label>
                    {move || import_error.get().map(|e| view! { <p class="al-error" data-testid="error" role="alert">{e}</p> })}
                </div>
            </section>

            <div class="al-notices" aria-live="polite">
                {url_notices.into_iter().map(|n| view! { <p class="al-notice" data-testid="notice">{n}</p> }).collect_view()}
                {move || run.with(|r| r.notices.iter().map(|n| view! { <p class="al-notice" data-testid="notice">{n.clone()}</p> }).collect_view())}
                {move || stale().then(|| view! {
                    <p class="al-notice al-stale-note" data-testid="stale">"The pictures below are from the last valid input; fix the error above to update them."</p>
                })}
                {move || error.get().filter(|e| e.field() == "scenario" || e.field() == "embeddings").map(|e| view! { <p class="al-error" data-testid="error" role="alert">{e.to_string()}</p> })}
            </div>

            <section class="al-overview" aria-label="Tokens">
                <p class="al-sizes" data-testid="sizes">{sizes_view}</p>
                {tokens_view}
                {kv_tokens_view}
            </section>

            <main class="al-main">
                <nav class="al-side" aria-label="Pipeline">
                    <h2>"Pipeline"</h2>
                    <Pipeline
                        trace=Signal::derive(move || shown.get())
                        selected=Signal::derive(move || view_state.with(|v| v.step))
                        on_select=Callback::new(move |name: StepName| view_state.update(|v| v.step = name))
                    />
                </nav>
                <section class="al-tensors" aria-label="Selected step">
                    <div class="al-tabs">{batch_tabs}</div>
                    {tensors}
                </section>
            </main>
            <div data-testid="app-ready" hidden=true></div>
        </div>
    }
}

/// Notes about fully masked rows for the mask-related steps, quoting the trace's numbers.
fn mask_notes(trace: &Trace, step: StepName, batch: usize) -> Option<impl IntoView> {
    use StepName::*;
    if !matches!(step, Masked | Weights | Context | Concat | Output) {
        return None;
    }
    let rows: Vec<usize> =
        trace.fully_masked_rows.iter().filter(|[b, _]| *b == batch).map(|[_, i]| *i).collect();
    if rows.is_empty() {
        return None;
    }
    let weights = trace.step(StepName::Weights)?;
    let notes = rows
        .into_iter()
        .map(|i| {
            let token = trace.tokens[batch][i].clone();
            let w = weights.matrix(batch, 0).and_then(|m| m.get((i, 0)).copied()).unwrap_or(f64::NAN);
            let text = if w.is_nan() {
                format!(
                    "Row {} (“{token}”) is fully masked: every score is -inf, so softmax computes e^(-inf − (-inf)) = NaN, \
                     i.e. 0/0, and the NaN flows on into context, concat and output. That is why PyTorch code often \
                     fills with -1e9 instead, or drops those rows.",
                    i + 1
                )
            } else {
                format!(
                    "Row {} (“{token}”) is fully masked: with -1e9 every score in it is the same, so softmax gives \
                     the uniform weight {} to every key.",
                    i + 1,
                    super::heatmap_card::exact(w)
                )
            };
            view! { <p class="al-flag" data-testid="masked-row-note" data-row=i>{text}</p> }
        })
        .collect_view();
    Some(notes)
}
