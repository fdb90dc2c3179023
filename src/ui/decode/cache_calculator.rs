//! The decode view's calculator: the key/value cache of a published model (layers, K/V
//! heads, d_k) at a number of tokens and a number format, through
//! [`crate::engine::decode::cache_bytes`].

use leptos::prelude::*;

use crate::ui::decode::data::{parse_tokens, DTYPES, MODELS};

/// A caption and a `<select>` of `names`, whose value is the chosen one's index.
#[component]
fn IndexSelect(
    label: &'static str,
    testid: &'static str,
    names: Vec<String>,
    chosen: RwSignal<usize>,
) -> impl IntoView {
    let options = names
        .into_iter()
        .enumerate()
        .map(|(i, name)| view! { <option value=i.to_string()>{name}</option> })
        .collect_view();
    view! {
        <label>
            {label}
            <select
                data-testid=testid
                on:change=move |ev| chosen.set(event_target_value(&ev).parse().unwrap_or(0))
            >
                {options}
            </select>
        </label>
    }
}

/// The cache of a published model: model × tokens × number format, through
/// [`crate::engine::decode::cache_bytes`].
#[component]
pub fn CacheCalculator() -> impl IntoView {
    let model = RwSignal::new(0_usize);
    let text = RwSignal::new("8192".to_owned());
    let tokens = Memo::new(move |_| text.with(|t| parse_tokens(t)));
    let dtype = RwSignal::new(0_usize);
    // the sentence for a valid number of tokens; nothing (the error says why) otherwise
    let result = move || {
        let m = MODELS.get(model.get()).copied().unwrap_or(MODELS[0]);
        let tokens = tokens.get().ok()?;
        Some(m.cache_words(tokens, DTYPES.get(dtype.get()).copied().unwrap_or(DTYPES[0])))
    };
    let error = move || {
        tokens.get().err().map(|e| {
            view! {
                <span class="al-error" data-testid="calc-error" role="alert">
                    {e}
                </span>
            }
        })
    };
    view! {
        <fieldset class="al-calc" data-testid="cache-calculator">
            <legend>"The cache of a published model"</legend>
            <IndexSelect
                label="Model "
                testid="calc-model"
                names=MODELS.iter().map(|m| m.name.to_owned()).collect()
                chosen=model
            />
            <label>
                // a text box, read as typed: a number box reports "" for "2." and
                // "-" halfway through typing, and writing its value back mangled the digits
                "Tokens "
                <input
                    type="text"
                    inputmode="numeric"
                    size="10"
                    data-testid="calc-tokens"
                    aria-invalid=move || tokens.with(Result::is_err).to_string()
                    value=text.get_untracked()
                    on:input=move |ev| text.set(event_target_value(&ev))
                /> {error}
            </label>
            <IndexSelect
                label="Numbers in "
                testid="calc-dtype"
                names=DTYPES.iter().map(|(name, bytes)| format!("{name} ({bytes} bytes)")).collect()
                chosen=dtype
            />
            <p data-testid="calc-result" aria-live="polite">
                {result}
            </p>
        </fieldset>
    }
}
