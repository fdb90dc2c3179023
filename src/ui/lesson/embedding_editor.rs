//! The baseball-bat lesson's editor: the scenario's explicit embedding vectors as number
//! fields, written into the settings on change.

use leptos::prelude::*;

use crate::format::exact;

use crate::ui::state::settings::Settings;

/// The most numbers of one word the editor shows (an imported `d_model` may be 1024).
const MAX_EDIT_DIMS: usize = 64;

/// Editable embedding vectors (the scenario's explicit `embeddings`), or a sentence saying
/// why there is nothing to edit.
#[component]
pub fn EmbeddingEditor(
    /// The settings whose explicit embeddings are edited.
    settings: RwSignal<Settings>,
) -> impl IntoView {
    move || {
        let d_model = settings.with(|s| s.d_model);
        let words: Vec<(String, Vec<f64>)> =
            settings.with(|s| s.embeddings.iter().map(|(k, v)| (k.clone(), v.clone())).collect());
        if words.is_empty() {
            return view! {
                <div class="al-emb-editor" data-testid="embedding-editor">
                    <p class="al-note" data-testid="embedding-editor-note">
                        "This scenario gives no word an explicit vector: every word gets a toy embedding (see the "
                        <code>"x"</code>
                        " step). Import a scenario with \"embeddings\" to edit vectors here."
                    </p>
                </div>
            }
            .into_any();
        }
        let names = crate::engine::embedding::lexicon(d_model).map(|l| l.dims.to_vec());
        let rows = words
            .into_iter()
            .map(|(word, vector)| {
                let n = vector.len();
                let cells = vector
                    .iter()
                    .take(MAX_EDIT_DIMS)
                    .enumerate()
                    .map(|(i, v)| {
                        let word = word.clone();
                        let label =
                            names.as_ref().and_then(|n| n.get(i)).map_or(format!("d{i}"), |s| s.to_string());
                        let aria = format!("{word} {label}");
                        view! {
                            <label class="al-emb-cell">
                                <span>{label}</span>
                                <input
                                    type="number"
                                    step="0.1"
                                    aria-label=aria
                                    data-testid="embedding-input"
                                    data-word=word.clone()
                                    data-dim=i
                                    prop:value=exact(*v)
                                    on:change=move |ev| {
                                        let parsed = event_target_value(&ev).trim().parse::<f64>();
                                        if let Ok(x) = parsed
                                            .map_err(drop)
                                            .and_then(|x| if x.is_finite() { Ok(x) } else { Err(()) })
                                        {
                                            settings
                                                .update(|s| {
                                                    if let Some(slot) = s
                                                        .embeddings
                                                        .get_mut(&word)
                                                        .and_then(|v| v.get_mut(i))
                                                    {
                                                        *slot = x;
                                                    }
                                                });
                                        }
                                    }
                                />
                            </label>
                        }
                    })
                    .collect_view();
                let note = (n != d_model || n > MAX_EDIT_DIMS).then(|| {
                    let mut parts = Vec::new();
                    if n != d_model {
                        parts.push(format!(
                            "{n} numbers, but d_model = {d_model}: the engine refuses this vector"
                        ));
                    }
                    if n > MAX_EDIT_DIMS {
                        parts.push(format!("the first {MAX_EDIT_DIMS} of {n} shown"));
                    }
                    view! { <span class="al-note">{parts.join("; ")}</span> }
                });
                view! {
                    <div class="al-emb-row">
                        <code>{word}</code>
                        {cells}
                        {note}
                    </div>
                }
            })
            .collect_view();
        view! {
            <div class="al-emb-editor" data-testid="embedding-editor">
                {rows}
            </div>
        }
        .into_any()
    }
}
