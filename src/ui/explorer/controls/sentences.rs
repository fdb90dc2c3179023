//! The sentences, and for cross-attention the key/value sentences.

use leptos::prelude::*;

use crate::engine::error::Field;
use crate::ui::explorer::controls::FieldError;
use crate::ui::state::app_state::AppState;
use crate::ui::widgets::fields::CheckField;

/// The sentence box, the cross-attention switch, and the key/value sentences under it.
#[component]
pub fn SentenceFields(
    /// The page's state.
    state: AppState,
) -> impl IntoView {
    let AppState { text, settings, import_error, .. } = state;
    let error = state.error();
    view! {
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
        <CheckField
            testid="cross"
            checked=Signal::derive(move || settings.with(|s| s.kv_text.is_some()))
            on_change=Callback::new(move |on: bool| {
                let kv = on.then(|| text.get_untracked());
                settings.update(|s| s.kv_text = kv);
            })
        >
            "cross-attention: the keys and values come from other sentences (T_k may differ from T_q)"
        </CheckField>
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
    }
}
