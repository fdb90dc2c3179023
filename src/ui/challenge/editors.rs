//! The open challenge's editors: a number input for each coordinate of the editable
//! words' embeddings and each entry of the editable projection matrices, and the
//! positions and padding switches. An edit changes the challenge's scenario (through
//! [`crate::challenges::apply`]); the editors are drawn afresh only when `generation` is
//! bumped, so the focus stays where the learner is.

use leptos::prelude::*;

use crate::challenges::{self, Challenge, Edit, Matrix};
use crate::engine::{Padding, Positional, Scenario, Trace};
use crate::format::exact;

use crate::ui::challenge::text::{dim_name, matrix_name, parse_number, trace_vector};

fn parse(ev: &leptos::ev::Event) -> Option<f64> {
    parse_number(&event_target_value(ev))
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
                <label>
                    <input
                        type="checkbox"
                        data-testid="challenge-positions"
                        prop:checked=!s.positional.is_none()
                        on:change=move |ev| {
                            let on = event_target_checked(&ev);
                            let p = if on { Positional::Sinusoidal } else { Positional::None };
                            scenario
                                .update(|s| {
                                    if let Some(s) = s {
                                        s.positional = p;
                                    }
                                });
                        }
                    />
                    " add positions (sinusoidal)"
                </label>
            }
        });
        let mask = c.editable.mask.then(|| {
            view! {
                <label>
                    <input
                        type="checkbox"
                        data-testid="challenge-padding"
                        prop:checked=s.mask.padding != Padding::None
                        on:change=move |ev| {
                            let on = event_target_checked(&ev);
                            scenario
                                .update(|s| {
                                    if let Some(s) = s {
                                        s.mask.padding = if on { Padding::Keys } else { Padding::None };
                                    }
                                });
                        }
                    />
                    " padding mask"
                </label>
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
            view! {
                <label class="al-emb-cell">
                    <span>{dim.clone()}</span>
                    <input
                        type="number"
                        step="0.1"
                        class="al-num"
                        data-testid="challenge-embedding"
                        data-word=word.clone()
                        data-dim=d
                        aria-label=format!("{word}, {dim}")
                        prop:value=exact(*v)
                        on:change=move |ev| {
                            if let Some(x) = parse(&ev) {
                                scenario
                                    .update(|s| {
                                        if let Some(s) = s {
                                            let mut v = s
                                                .embeddings
                                                .get(&word)
                                                .cloned()
                                                .unwrap_or_else(|| full.clone());
                                            if let Some(slot) = v.get_mut(d) {
                                                *slot = x;
                                            }
                                            *s = challenges::apply(
                                                s,
                                                &Edit::Embedding {
                                                    word: word.clone(),
                                                    vector: v,
                                                },
                                            );
                                        }
                                    });
                            }
                        }
                    />
                </label>
            }
        })
        .collect_view();
    view! {
        <div class="al-emb-row">
            <code>{word.clone()}</code>
            " = [ "
            {cells}
            " ]"
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
                            <input
                                type="number"
                                step="0.1"
                                class="al-num"
                                data-testid="challenge-matrix-input"
                                data-matrix=name.clone()
                                data-row=i
                                data-col=j
                                aria-label=format!("{} row {} column {}", m.label(), i + 1, j + 1)
                                prop:value=exact(*v)
                                on:change=move |ev| {
                                    if let Some(x) = parse(&ev) {
                                        scenario
                                            .update(|s| {
                                                if let Some(s) = s {
                                                    *s = challenges::set_matrix_entry(s, m, i, j, x);
                                                }
                                            });
                                    }
                                }
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
