//! The open challenge's tables, read from the engine's trace: what goes into the head
//! (every token's embedding, and with positions on, PE and x + PE), then the weights, one
//! table per head the goal is about (rows: queries, columns: keys), so the learner sees
//! what moves.

use leptos::prelude::*;

use crate::challenges::{Goal, Progress};
use crate::engine::{StepName, Trace};

use crate::format::tick;
use crate::ui::challenge::text::{input_tables, weight_text, weights_shown, InputTable};
use crate::ui::widgets::table_head::matrix_table;

/// One table of what goes into the head.
fn input_table(table: InputTable) -> impl IntoView {
    let InputTable { caption, rows, cols, values } = table;
    let head = cols.into_iter().map(|c| view! { <th scope="col">{c}</th> }).collect_view();
    let body = rows
        .into_iter()
        .zip(values)
        .map(|(r, v)| {
            let cells = v.iter().map(|x| view! { <td>{tick(*x)}</td> }).collect_view();
            view! {
                <tr>
                    <th scope="row">{r}</th>
                    {cells}
                </tr>
            }
        })
        .collect_view();
    matrix_table("al-challenge-weights", "challenge-inputs", caption, "feature →", head, body)
}

/// What goes into the head and the weights the goal reads, as tables.
#[component]
pub fn ChallengeWeights(
    /// The open challenge's goal.
    goal: Goal,
    /// The engine's trace of the learner's scenario, or its error.
    trace: Memo<Option<Result<Trace, String>>>,
    /// How close the trace is to the goal: the weights its words quote are printed with
    /// the same decimals here.
    progress: Memo<Option<Progress>>,
) -> impl IntoView {
    move || {
        let progress = progress.get();
        trace.with(|t| {
            let t = t.as_ref()?.as_ref().ok()?;
            let (b, heads) = weights_shown(&goal);
            let keys = t.key_tokens(b).to_vec();
            let inputs = input_tables(t, b).into_iter().map(input_table).collect_view();
            let tables = heads
                .into_iter()
                .filter_map(|h| {
                    let m = t.step(StepName::Weights)?.matrix(b, h)?;
                    let head_row =
                        keys.iter().map(|k| view! { <th scope="col">{k.clone()}</th> }).collect_view();
                    let rows = m
                        .outer_iter()
                        .enumerate()
                        .map(|(i, r)| {
                            let q = t.query_tokens(b).get(i).cloned().unwrap_or_default();
                            let cells = r
                                .iter()
                                .enumerate()
                                .map(
                                    |(j, w)| view! { <td>{weight_text(progress.as_ref(), h, i, j, *w)}</td> },
                                )
                                .collect_view();
                            view! {
                                <tr>
                                    <th scope="row">{q}</th>
                                    {cells}
                                </tr>
                            }
                        })
                        .collect_view();
                    Some(matrix_table(
                        "al-challenge-weights",
                        "challenge-weights",
                        format!("weights, head {} (rows: queries, columns: keys)", h + 1),
                        "query ↓ key →",
                        head_row,
                        rows,
                    ))
                })
                .collect_view();
            // may scroll sideways on a phone: focusable and named, so a keyboard reaches it
            Some(view! {
                <div
                    class="al-challenge-tables"
                    tabindex="0"
                    role="region"
                    aria-label="what goes into the head, and the weights the goal reads, as tables"
                >
                    {inputs}
                    {tables}
                </div>
            })
        })
    }
}
