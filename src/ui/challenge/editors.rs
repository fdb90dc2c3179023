//! The open challenge's editors: a number entry for each coordinate of the editable
//! words' embeddings and each entry of the editable projection matrices, and the
//! positions and padding switches. An edit changes the challenge's scenario (through
//! [`crate::challenges::apply`]); the editors are drawn afresh only when `generation` is
//! bumped, so the focus stays where the learner is.

use leptos::prelude::*;

use crate::challenges::{self, Challenge, Edit, Matrix};
use crate::engine::{Padding, Positional, Scenario, Trace};

use crate::ui::challenge::text::{dim_name, matrix_name, trace_vector};
use crate::ui::widgets::decimal_entry::DecimalEntry;

/// A checkbox that switches one part of the learner's scenario on or off.
#[component]
fn ScenarioSwitch(
    /// The checkbox's `data-testid`.
    testid: &'static str,
    /// The words after the checkbox.
    text: &'static str,
    /// Whether the part is on as shown.
    on: bool,
    /// The learner's scenario, which a switch changes.
    scenario: RwSignal<Option<Scenario>>,
    /// Switches the part in a scenario.
    set: fn(&mut Scenario, bool),
) -> impl IntoView {
    view! {
        <label>
            <input
                type="checkbox"
                data-testid=testid
                prop:checked=on
                on:change=move |ev| {
                    let on = event_target_checked(&ev);
                    scenario
                        .update(|s| {
                            if let Some(s) = s {
                                set(s, on);
                            }
                        });
                }
            />
            {text}
        </label>
    }
}

/// The entry of one number of the learner's scenario ([`DecimalEntry`]): each number the
/// learner types replaces the scenario with `edit(scenario, number)`, so the weights and
/// the goal follow every keystroke (and ↑ ↓).
#[component]
fn EntryInput(
    /// The input's `data-testid`.
    testid: &'static str,
    /// The input's accessible name.
    label: String,
    /// The entry's value as shown.
    value: f64,
    /// The learner's scenario, which an edit changes.
    scenario: RwSignal<Option<Scenario>>,
    /// The scenario with the entry set to a number.
    edit: impl Fn(&Scenario, f64) -> Scenario + Send + Sync + 'static,
) -> impl IntoView {
    let on_number = Callback::new(move |x: f64| {
        scenario.update(|s| {
            if let Some(s) = s {
                *s = edit(s, x);
            }
        })
    });
    view! { <DecimalEntry testid label value on_number /> }
}

/// The editors of the challenge `c`'s editable parts.
#[component]
pub fn ChallengeEditors(
    /// The open challenge.
    c: Challenge,
    /// The learner's scenario (the challenge's, edited).
    scenario: RwSignal<Option<Scenario>>,
    /// The engine's trace of `scenario`, or its error.
    trace: Memo<Option<Result<Trace, String>>>,
    /// Bumped when the editors must show the scenario afresh.
    generation: RwSignal<u32>,
) -> impl IntoView {
    move || {
        generation.track();
        let s = scenario.get_untracked()?;
        let emb = c
            .editable
            .embeddings
            .iter()
            .map(|word| {
                let vector = s.embeddings.get(word).cloned().unwrap_or_else(|| {
                    trace
                        .with_untracked(|t| trace_vector(t.as_ref()?.as_ref().ok()?, word))
                        .unwrap_or_else(|| vec![0.0; s.d_model])
                });
                view! { <EmbeddingRow word=word.clone() vector=vector d_model=s.d_model scenario=scenario /> }
            })
            .collect_view();
        let mats = c
            .editable
            .matrices
            .iter()
            .map(|&m| view! { <MatrixEditor m=m rows=challenges::matrix_rows(&s, m) scenario=scenario /> })
            .collect_view();
        let positions = c.editable.positions.then(|| {
            view! {
                <ScenarioSwitch
                    testid="challenge-positions"
                    text=" add positions (sinusoidal)"
                    on=!s.positional.is_none()
                    scenario
                    set=|s, on| s.positional = if on { Positional::Sinusoidal } else { Positional::None }
                />
            }
        });
        let mask = c.editable.mask.then(|| {
            view! {
                <ScenarioSwitch
                    testid="challenge-padding"
                    text=" padding mask"
                    on=s.mask.padding != Padding::None
                    scenario
                    set=|s, on| s.mask.padding = if on { Padding::Keys } else { Padding::None }
                />
            }
        });
        Some(view! {
            <div class="al-challenge-editors" data-testid="challenge-editors">
                {positions}
                {mask}
                {emb}
                {mats}
            </div>
        })
    }
}

/// One editable word's embedding: `word = [ … ]`, a number input per coordinate.
#[component]
fn EmbeddingRow(
    /// The word.
    word: String,
    /// Its embedding as shown (the scenario's, or the trace's when the scenario has none).
    vector: Vec<f64>,
    /// The embedding's length.
    d_model: usize,
    /// The learner's scenario, which an edit changes.
    scenario: RwSignal<Option<Scenario>>,
) -> impl IntoView {
    let cells = vector
        .iter()
        .enumerate()
        .map(|(d, v)| {
            let word = word.clone();
            let full = vector.clone();
            let dim = dim_name(d_model, d);
            let label = format!("{word}, {dim}");
            let data_word = word.clone();
            view! {
                <label class="al-emb-cell">
                    <span>{dim.clone()}</span>
                    <EntryInput
                        testid="challenge-embedding"
                        attr:data-word=data_word
                        attr:data-dim=d
                        label
                        value=*v
                        scenario
                        edit=move |s: &Scenario, x: f64| {
                            let mut v = s.embeddings.get(&word).cloned().unwrap_or_else(|| full.clone());
                            if let Some(slot) = v.get_mut(d) {
                                *slot = x;
                            }
                            challenges::apply(
                                s,
                                &Edit::Embedding {
                                    word: word.clone(),
                                    vector: v,
                                },
                            )
                        }
                    />
                </label>
            }
        })
        .collect_view();
    view! {
        <div class="al-emb-row">
            <code>{word.clone()}</code>
            <span class="al-emb-bracket">"= ["</span>
            {cells}
            <span class="al-emb-bracket">"]"</span>
        </div>
    }
}

/// One editable projection matrix: a caption with its shape, a number input per entry.
#[component]
fn MatrixEditor(
    /// Which matrix.
    m: Matrix,
    /// Its rows as the scenario holds them.
    rows: Vec<Vec<f64>>,
    /// The learner's scenario, which an edit changes.
    scenario: RwSignal<Option<Scenario>>,
) -> impl IntoView {
    let name = matrix_name(m);
    let body = rows
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let cells = r
                .iter()
                .enumerate()
                .map(|(j, v)| {
                    view! {
                        <td>
                            <EntryInput
                                testid="challenge-matrix-input"
                                attr:data-matrix=name.clone()
                                attr:data-row=i
                                attr:data-col=j
                                label=format!("{} row {} column {}", m.label(), i + 1, j + 1)
                                value=*v
                                scenario
                                edit=move |s: &Scenario, x: f64| challenges::set_matrix_entry(s, m, i, j, x)
                            />
                        </td>
                    }
                })
                .collect_view();
            view! { <tr>{cells}</tr> }
        })
        .collect_view();
    view! {
        <figure class="al-matrix-editor" data-testid="challenge-matrix" data-matrix=name.clone()>
            <figcaption>
                <code>{m.label()}</code>
                {format!(" ({} × {})", rows.len(), rows.first().map_or(0, Vec::len))}
            </figcaption>
            <table>
                <tbody>{body}</tbody>
            </table>
        </figure>
    }
}
