//! The explorer's inputs: sentences, cross-attention, d_model, h, projections, seed,
//! positions, today's options (h_kv, RoPE, ALiBi) and the mask with its sliding window. Each control writes the settings; the engine runs in `App`.

use leptos::prelude::*;

use crate::engine::error::Field;
use attention_worker::RunError;

use crate::engine::{self, Fill, Padding, Positional, ProjectionKind, Projections, Rope, RopeStyle};

use crate::ui::explorer::io::ImportExport;
use crate::ui::state::app_state::AppState;
use crate::ui::state::settings::{Settings, UI_MAX_D_MODEL};

/// The control panel.
#[component]
pub fn Controls(
    /// The page's state.
    state: AppState,
) -> impl IntoView {
    let AppState { text, settings, import_error, .. } = state;
    let error = state.error();
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
                view! {
                    <p class="al-error" data-testid="error" role="alert">
                        {message}
                    </p>
                }
            })
        }
    };
    let on_seed = move |ev: leptos::ev::Event| {
        if let Ok(v) = event_target_value(&ev).trim().parse::<u64>() {
            set(&|s| s.seed = v);
        }
    };
    // An optional count: empty means none (the default), anything else must be a number.
    let set_optional =
        move |field: &'static str, ev: &leptos::ev::Event, apply: &dyn Fn(&mut Settings, Option<usize>)| {
            let raw = event_target_value(ev);
            if raw.trim().is_empty() {
                bad_number.set(None);
                set(&|s| apply(s, None));
            } else {
                set_count(field, ev, &|s, v| apply(s, Some(v)));
            }
        };
    let on_rope_base = move |ev: leptos::ev::Event| {
        let raw = event_target_value(&ev);
        match raw.trim().parse::<f64>() {
            Ok(base) => {
                bad_number.set(None);
                set(&|s| s.rope = s.rope.map(|r| Rope { base, ..r }));
            }
            Err(_) => {
                let shown: String = raw.chars().take(20).collect();
                bad_number
                    .set(Some(("RoPE base", format!("the RoPE base must be a number, not \"{shown}\""))));
            }
        }
    };
    let cache_text = move || {
        settings.with(|s| match engine::attention::head_width(s.d_model, s.n_heads) {
            Ok(d_k) => {
                let h_kv = s.n_kv_heads.unwrap_or(s.n_heads);
                format!(
                    "K/V cache per token and layer: 2 · h_kv · d_k = 2 · {h_kv} · {d_k} = {} numbers{}",
                    2 * h_kv * d_k,
                    if h_kv < s.n_heads && h_kv > 0 && s.n_heads % h_kv == 0 {
                        format!(" ({}× less than with h = {} K/V heads)", s.n_heads / h_kv, s.n_heads)
                    } else {
                        String::new()
                    }
                )
            }
            Err(_) => String::new(),
        })
    };
    let d_k_text = move || {
        settings.with(|s| match engine::attention::head_width(s.d_model, s.n_heads) {
            Ok(d_k) => format!("d_k = d_model / h = {d_k}"),
            Err(_) => "d_k = d_model / h is not a whole number".to_string(),
        })
    };

    view! {
        <section class="al-controls" aria-label="Input and settings">
            <label class="al-field al-sentences">
                <span>"Sentences (one per line; several lines make a batch, padded to the longest)"</span>
                <textarea
                    data-testid="sentences"
                    rows="3"
                    spellcheck="false"
                    prop:value=move || text.get()
                    on:input=move |ev| {
                        import_error.set(None);
                        text.set(event_target_value(&ev))
                    }
                ></textarea>
                <FieldError error=error field=Field::Sentences />
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
            {move || {
                settings
                    .with(|s| s.kv_text.is_some())
                    .then(|| {
                        view! {
                            <label class="al-field al-sentences">
                                <span>
                                    "Key/value sentences (one line per query sentence, e.g. the encoder's input)"
                                </span>
                                <textarea
                                    data-testid="kv-sentences"
                                    rows="2"
                                    spellcheck="false"
                                    prop:value=move || {
                                        settings.with(|s| s.kv_text.clone().unwrap_or_default())
                                    }
                                    on:input=move |ev| {
                                        let v = event_target_value(&ev);
                                        settings.update(|s| s.kv_text = Some(v))
                                    }
                                ></textarea>
                            </label>
                        }
                    })
            }}
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
                    <FieldError error=error field=Field::DModel />
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
                    <span class="al-hint" data-testid="d-k">
                        {d_k_text}
                    </span>
                    <FieldError error=error field=Field::NHeads />
                </label>
                <label class="al-field">
                    <span>"Projections W_Q, W_K, W_V, W_O"</span>
                    <select
                        data-testid="projections"
                        prop:value=move || {
                            settings
                                .with(|s| match s.projections {
                                    Projections::Named(ProjectionKind::Identity) => "identity",
                                    Projections::Named(ProjectionKind::Seeded) => "seeded",
                                    Projections::Explicit(_) => "explicit",
                                })
                        }
                        on:change=move |ev| {
                            let v = event_target_value(&ev);
                            set(
                                &|s| {
                                    s.projections = Projections::Named(
                                        if v == "identity" {
                                            ProjectionKind::Identity
                                        } else {
                                            ProjectionKind::Seeded
                                        },
                                    );
                                },
                            );
                        }
                    >
                        <option value="identity">"identity (W = I)"</option>
                        <option value="seeded">"seeded (Xavier uniform)"</option>
                        <option value="explicit" disabled=true>
                            "imported"
                        </option>
                    </select>
                    <FieldError error=error field=Field::Projections />
                </label>
                <label class="al-field">
                    <span>"seed"</span>
                    <input
                        data-testid="seed"
                        type="number"
                        min="0"
                        prop:value=move || settings.with(|s| s.seed.to_string())
                        prop:disabled=move || {
                            settings.with(|s| s.projections != Projections::Named(ProjectionKind::Seeded))
                        }
                        on:input=on_seed
                    />
                </label>
                <label class="al-field">
                    <span>"positions"</span>
                    <select
                        data-testid="positional"
                        prop:value=move || settings.with(|s| s.positional.name())
                        on:change=move |ev| {
                            let p = Positional::from_name(&event_target_value(&ev)).unwrap_or_default();
                            set(&|s| s.positional = p);
                        }
                    >
                        <option value="none">"none (word order is invisible)"</option>
                        <option value="sinusoidal">"sinusoidal (x + PE)"</option>
                    </select>
                </label>
            </div>
            <fieldset class="al-row al-modern">
                <legend>"As today's models run it"</legend>
                <label class="al-field">
                    <span>"h_kv (key/value heads)"</span>
                    <input
                        data-testid="n-kv-heads"
                        type="number"
                        min="1"
                        max="64"
                        aria-describedby="al-cache-per-token"
                        prop:value=move || settings.with(|s| s.n_kv_heads.unwrap_or(s.n_heads).to_string())
                        on:input=move |ev| set_optional(
                            "h_kv",
                            &ev,
                            &|s, v| s.n_kv_heads = v.filter(|&v| v != s.n_heads),
                        )
                    />
                    {number_error("h_kv")}
                    <span class="al-hint" id="al-cache-per-token" data-testid="kv-cache-per-token">
                        {cache_text}
                    </span>
                    <FieldError error=error field=Field::NKvHeads />
                </label>
                <label class="al-field">
                    <span>"RoPE (rotary positions)"</span>
                    <select
                        data-testid="rope"
                        prop:value=move || settings.with(|s| s.rope.map_or("none", |r| r.style.name()))
                        on:change=move |ev| {
                            let style = RopeStyle::from_name(&event_target_value(&ev));
                            set(
                                &|s| {
                                    s.rope = style
                                        .map(|style| Rope {
                                            style,
                                            base: s.rope.map_or(Rope::DEFAULT_BASE, |r| r.base),
                                            fraction: s.rope.and_then(|r| r.fraction),
                                        });
                                },
                            );
                        }
                    >
                        <option value="none">"none"</option>
                        <option value="half">"half: i with i + d_k/2 (Llama in transformers)"</option>
                        <option value="interleaved">"interleaved: 2i with 2i+1 (RoFormer, Meta)"</option>
                    </select>
                    <FieldError error=error field=Field::Rope />
                </label>
                <label class="al-field">
                    <span>"RoPE base"</span>
                    <input
                        data-testid="rope-base"
                        type="number"
                        min="1"
                        step="any"
                        prop:value=move || {
                            settings.with(|s| s.rope.map_or(Rope::DEFAULT_BASE, |r| r.base).to_string())
                        }
                        prop:disabled=move || settings.with(|s| s.rope.is_none())
                        on:input=on_rope_base
                    />
                    {number_error("RoPE base")}
                </label>
                <label class="al-check">
                    <input
                        data-testid="alibi"
                        type="checkbox"
                        prop:checked=move || settings.with(|s| s.alibi)
                        on:change=move |ev| {
                            let on = event_target_checked(&ev);
                            set(&|s| s.alibi = on)
                        }
                    />
                    "ALiBi (a per-head penalty for distant keys: m·(j − i) with causal, −m·|i − j| without)"
                </label>
            </fieldset>
            <fieldset class="al-row al-mask">
                <legend>"Mask (engine convention: " <code>"true = blocked"</code> ")"</legend>
                <label class="al-check">
                    <input
                        data-testid="mask-causal"
                        type="checkbox"
                        prop:checked=move || settings.with(|s| s.mask.causal)
                        on:change=move |ev| {
                            let c = event_target_checked(&ev);
                            set(&|s| s.mask.causal = c)
                        }
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
                <label class="al-field">
                    <span>"sliding window (keys; empty = none)"</span>
                    <input
                        data-testid="mask-window"
                        type="number"
                        min="1"
                        placeholder="none"
                        prop:value=move || {
                            settings.with(|s| s.mask.window.map(|w| w.to_string()).unwrap_or_default())
                        }
                        on:input=move |ev| set_optional("window", &ev, &|s, v| s.mask.window = v)
                    />
                    {number_error("window")}
                    <FieldError error=error field=Field::Window />
                </label>
            </fieldset>
            <ImportExport state=state />
        </section>
    }
}

/// An error message for one control, shown only when the engine's error is about it.
#[component]
pub fn FieldError(
    /// The current error, if any.
    #[prop(into)]
    error: Signal<Option<RunError>>,
    /// The control this message belongs to.
    field: Field,
) -> impl IntoView {
    move || {
        error.get().filter(|e| e.field() == field).map(|e| {
            view! {
                <p class="al-error" data-testid="error" role="alert">
                    {e.to_string()}
                </p>
            }
        })
    }
}
