//! The decode view's calculator: the key/value cache of a published model (layers, K/V
//! heads, d_k) at a number of tokens and a number format, through
//! [`crate::engine::decode::cache_bytes`].

use leptos::prelude::*;

use crate::ui::decode::data::{format_bytes, group_digits, DTYPES, MODELS};

/// The cache of a published model: model × tokens × number format, through
/// [`crate::engine::decode::cache_bytes`].
#[component]
pub fn CacheCalculator() -> impl IntoView {
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
