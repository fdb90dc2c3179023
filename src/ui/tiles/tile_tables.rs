//! The tiles view's tables of the current tile: [`TileRows`] (each query row's running m′,
//! ℓ′ and correction, a click on an ℓ′ listing its running sum term by term, and what the
//! tile did in words) and [`TileScores`] (the tile's masked scores, the picture's text
//! equivalent). Their words are [`crate::ui::tiles::words`]'s.

use leptos::prelude::*;

use crate::engine::tiled::running_sum;
use crate::engine::{StepName, Trace};
use crate::format::{exact, fixed, short};

use crate::ui::decode::data::token_label;
use crate::ui::tiles::data::{row_states, tile_words};
use crate::ui::tiles::shown::Shown;
use crate::ui::tiles::words::running_sum_words;
use crate::ui::widgets::scroll_region::scroll_region;
use crate::ui::widgets::table_head::{column_heads, matrix_table};

/// The most rows and columns of the current tile's scores listed in its table.
const MAX_TABLE: usize = 16;

/// The query rows of the current tile with their running numbers, and the running sum of
/// the row whose ℓ′ was clicked.
#[component]
pub fn TileRows(
    /// The run, tile, sentence and head shown.
    shown: Shown,
    /// The block size.
    block: Memo<usize>,
) -> impl IntoView {
    let Shown { full, current, batch, head } = shown;
    // The running sum ℓ′ of one query row of the current tile, term by term (a click on its
    // ℓ′ opens it): the engine's `running_sum` of that row of the full run's masked scores.
    let sum_row = RwSignal::new(None::<usize>);
    let sum_terms = move || {
        let i = sum_row.get()?;
        let tile = current.get()?;
        if !(tile.q[0]..tile.q[1]).contains(&i) {
            return None;
        }
        let (b, h, block) = (batch.get(), head.get(), block.get());
        full.with(|f| {
            let f: &Trace = f.as_ref()?;
            let row: Vec<f64> = f.step(StepName::Masked)?.matrix(b, h)?.row(i).to_vec();
            let sum = running_sum(&row, block, tile.k[0] / block)?;
            let words = running_sum_words(&sum, &row, f.query_tokens(b), f.key_tokens(b), i);
            let exps = words
                .terms
                .into_iter()
                .map(|(j, term)| {
                    view! { <li data-key=j>{term}</li> }
                })
                .collect_view();
            Some(view! {
                <div class="al-running-sum" data-testid="running-sum" aria-live="polite">
                    <p>{words.title}</p>
                    <ul>
                        <li data-testid="running-sum-carried">{words.carried}</li>
                        {exps}
                    </ul>
                    <p data-testid="running-sum-total">{words.total}</p>
                </div>
            })
        })
    };
    move || {
        let tile = current.get()?;
        let b = batch.get();
        let tokens: Vec<String> =
            full.with(|f| f.as_ref().map(|f| f.query_tokens(b).to_vec()).unwrap_or_default());
        let body = row_states(&tile)
            .into_iter()
            .map(|r| {
                let raised = r.correction > 0.0 && r.correction < 1.0;
                view! {
                    <tr data-row=r.row>
                        <th scope="row">{token_label(&tokens, r.row)}</th>
                        <td data-value=exact(r.m)>{fixed(r.m, 4)}</td>
                        <td data-value=exact(r.l)>
                            <button
                                type="button"
                                class="al-cell-button"
                                data-testid="running-sum-open"
                                title="Show the terms of this running sum"
                                aria-expanded=move || {
                                    if sum_row.get() == Some(r.row) { "true" } else { "false" }
                                }
                                on:click=move |_| {
                                    sum_row
                                        .update(|s| *s = if *s == Some(r.row) { None } else { Some(r.row) })
                                }
                            >
                                {fixed(r.l, 4)}
                            </button>
                        </td>
                        <td data-value=exact(r.correction) class:al-raised=raised>
                            {fixed(r.correction, 4)}
                        </td>
                    </tr>
                }
            })
            .collect_view();
        Some(view! {
            {scroll_region(
                "the running maximum and sum of each query row, as a table".to_string(),
                view! {
                    <table class="al-table" data-testid="tile-rows">
                        <caption>
                            "Each query row of this block after the tile: the running maximum m′ = max(m, rowmax S), the correction e^(m − m′) of the sum and output so far, the running sum ℓ′ = e^(m − m′)·ℓ + Σ e^(S − m′) (click an ℓ′ for its terms)"
                        </caption>
                        {column_heads(&["query", "m′", "ℓ′", "e^(m − m′)"])}
                        <tbody>{body}</tbody>
                    </table>
                },
            )}
            {sum_terms}
            <p class="al-tile-words" data-testid="tile-words">
                {tile_words(&tile)}
            </p>
        })
    }
}

/// The current tile's scores as a table (at most [`MAX_TABLE`] rows and columns): the
/// picture's text equivalent.
#[component]
pub fn TileScores(
    /// The run, tile, sentence and head shown.
    shown: Shown,
) -> impl IntoView {
    let Shown { full, current, batch, head } = shown;
    move || {
        let tile = current.get()?;
        let (b, h) = (batch.get(), head.get());
        full.with(|f| {
            let f: &Trace = f.as_ref()?;
            let m = f.step(StepName::Masked)?.matrix(b, h)?;
            let (q_tok, k_tok) = (f.query_tokens(b), f.key_tokens(b));
            // under MLA each score adds the unrotated part and the rotated one
            let caption = if f.mla.is_some() {
                "masked scores (q_nope·k_nope + q_rot·k_rot, scaled; blocked ones the fill) of this tile"
            } else {
                "masked scores (q·k / √d_k, blocked ones the fill) of this tile"
            };
            let q1 = tile.q[1].min(tile.q[0] + MAX_TABLE);
            let k1 = tile.k[1].min(tile.k[0] + MAX_TABLE);
            let head_row = (tile.k[0]..k1)
                .map(|j| view! { <th scope="col">{token_label(k_tok, j)}</th> })
                .collect_view();
            let body = (tile.q[0]..q1)
                .map(|i| {
                    let cells = (tile.k[0]..k1)
                        .map(|j| {
                            let x = m.get((i, j)).copied().unwrap_or(f64::NAN);
                            let blocked = f.mask.is_blocked(b, i, j);
                            view! {
                                <td data-value=exact(x) class:al-blocked=blocked>
                                    {short(x)}
                                </td>
                            }
                        })
                        .collect_view();
                    view! {
                        <tr>
                            <th scope="row">{token_label(q_tok, i)}</th>
                            {cells}
                        </tr>
                    }
                })
                .collect_view();
            Some(view! {
                <details class="al-fold">
                    <summary>"This tile's scores as a table"</summary>
                    {scroll_region(
                        "this tile's scores as a table".to_string(),
                        matrix_table("al-table", "tile-scores", caption, "query \\ key", head_row, body),
                    )}
                </details>
            })
        })
    }
}
