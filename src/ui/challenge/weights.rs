//! The open challenge's weights, read from the engine's trace: one table per head the goal
//! is about (rows: queries, columns: keys), so the learner sees what moves.

use leptos::prelude::*;

use crate::challenges::{self, Goal};
use crate::engine::{StepName, Trace};

use crate::ui::challenge::text::weights_shown;

/// The weights the goal reads, as tables.
#[component]
pub fn ChallengeWeights(
    /// The open challenge's goal.
    goal: Goal,
    /// The engine's trace of the learner's scenario, or its error.
    trace: Memo<Option<Result<Trace, String>>>,
) -> impl IntoView {
    move || {
        trace.with(|t| {
            let t = t.as_ref()?.as_ref().ok()?;
            let (b, heads) = weights_shown(&goal);
            let keys = t.key_tokens(b).to_vec();
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
                                .map(|w| view! { <td>{challenges::goal::num(*w)}</td> })
                                .collect_view();
                            view! {
                                <tr>
                                    <th scope="row">{q}</th>
                                    {cells}
                                </tr>
                            }
                        })
                        .collect_view();
                    Some(view! {
                        <table class="al-challenge-weights" data-testid="challenge-weights">
                            <caption>
                                {format!("weights, head {} (rows: queries, columns: keys)", h + 1)}
                            </caption>
                            <thead>
                                <tr>
                                    <th></th>
                                    {head_row}
                                </tr>
                            </thead>
                            <tbody>{rows}</tbody>
                        </table>
                    })
                })
                .collect_view();
            // may scroll sideways on a phone: focusable and named, so a keyboard reaches it
            Some(view! {
                <div
                    class="al-challenge-tables"
                    tabindex="0"
                    role="region"
                    aria-label="the weights the goal reads, as tables"
                >
                    {tables}
                </div>
            })
        })
    }
}
