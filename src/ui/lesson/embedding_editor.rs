//! The baseball-bat lesson's editor: the scenario's explicit embedding vectors as number
//! entries ([`DecimalEntry`], read as the challenges' are), written into the settings on change.

use leptos::prelude::*;

use crate::ui::state::settings::Settings;
use crate::ui::widgets::decimal_entry::DecimalEntry;

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
                        let data_word = word.clone();
                        view! {
                            <label class="al-emb-cell">
                                <span>{label}</span>
                                <DecimalEntry
                                    testid="embedding-input"
                                    attr:data-word=data_word
                                    attr:data-dim=i
                                    label=aria
                                    value=*v
                                    on_number=Callback::new(move |x: f64| {
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
                                    })
                                    commit=true
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
