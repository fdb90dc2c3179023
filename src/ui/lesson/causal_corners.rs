//! The KV-cache lesson's table: a causal mask for fewer queries than keys, anchored at the
//! top left (PyTorch's `is_causal=True`) and at the lower right (`causal_lower_right`, what
//! decoding needs), for one query against 4 keys and 2 queries against 6. The ✓ and ✗
//! are the engine's [`causal_allows`]; the labels are the shown sentence's tokens.

use std::sync::Arc;

use leptos::prelude::*;

use crate::engine::mask::{causal_allows, CausalCorner};
use crate::engine::Trace;

use crate::ui::widgets::table_head::matrix_head;

/// The shapes shown, `(L queries, S keys)`: a decoding step, and a chunk of a prompt.
const SHAPES: [(usize, usize); 2] = [(1, 4), (2, 6)];

/// Both corners for each of [`SHAPES`], each as a small table: one row per query (named by
/// its position in the sentence and its token: the queries are the last `L` of the `S`
/// positions), one column per key.
#[component]
pub fn CausalCorners(
    /// The shown trace (for the tokens).
    #[prop(into)]
    trace: Signal<Option<Arc<Trace>>>,
) -> impl IntoView {
    let label = move |j: usize| {
        trace.with(|t| {
            t.as_ref()
                .and_then(|t| t.key_tokens(0).get(j).cloned())
                .map_or(format!("{j}"), |tok| format!("{j} {tok}"))
        })
    };
    let grid = move |corner: CausalCorner, t_q: usize, t_k: usize| {
        let head = (0..t_k).map(|j| view! { <th scope="col">{label(j)}</th> }).collect_view();
        let body = (0..t_q)
            .map(|i| {
                let cells = (0..t_k)
                    .map(|j| {
                        let sees = causal_allows(corner, t_q, t_k, i, j);
                        view! {
                            <td class:al-blocked=!sees data-sees=sees.to_string()>
                                {if sees { "✓" } else { "✗" }}
                            </td>
                        }
                    })
                    .collect_view();
                view! {
                    <tr>
                        <th scope="row">{label(t_k - t_q + i)}</th>
                        {cells}
                    </tr>
                }
            })
            .collect_view();
        view! {
            <table data-corner=format!("{corner:?}")>
                <caption>
                    {match corner {
                        CausalCorner::TopLeft => "is_causal=True: top left",
                        CausalCorner::LowerRight => "causal_lower_right: lower right",
                    }}
                </caption>
                {matrix_head("query \\ key", head)}
                <tbody>{body}</tbody>
            </table>
        }
    };
    let figures = SHAPES
        .iter()
        .map(|&(t_q, t_k)| {
            view! {
                <figure tabindex="0" data-shape=format!("{t_q}x{t_k}")>
                    <figcaption>
                        {format!(
                            "{t_q} quer{} (L) against {t_k} keys (S). ✓ = may see, ✗ = blocked.",
                            if t_q == 1 { "y" } else { "ies" },
                        )}
                    </figcaption>
                    {grid(CausalCorner::TopLeft, t_q, t_k)}
                    {grid(CausalCorner::LowerRight, t_q, t_k)}
                </figure>
            }
        })
        .collect_view();
    view! {
        <div class="al-conventions al-corners" data-testid="causal-corners">
            {figures}
        </div>
    }
}
