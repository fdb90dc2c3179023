//! The shapes lesson's picture of a wrong reshape: each head of `q` split with view +
//! transpose (the right rows) beside view alone (what a head gets without the transpose),
//! from [`lessons::shapes::split_both_ways`]. Tables of numbers, so the picture is its own
//! text equivalent; a row that the missing transpose changed is marked in words and colour.

use std::sync::Arc;

use leptos::prelude::*;

use crate::engine::Trace;
use crate::format::short;
use crate::lessons::same_input;
use crate::lessons::shapes::{split_both_ways, SplitHead};

use crate::ui::widgets::scroll_region::scroll_region;
use crate::ui::widgets::table_head::matrix_head;

/// One table: a row per token, `d_k` numbers each; `marks` marks the changed rows.
fn table(tokens: &[String], rows: &[Vec<f64>], marks: Option<&[bool]>) -> impl IntoView {
    let d_k = rows.first().map_or(0, Vec::len);
    let head = (0..d_k).map(|c| view! { <th scope="col">{format!("col {c}")}</th> }).collect_view();
    let body = rows
        .iter()
        .enumerate()
        .map(|(i, row)| {
            let moved = marks.and_then(|m| m.get(i).copied()).unwrap_or(false);
            let token = tokens.get(i).cloned().unwrap_or_else(|| format!("row {i}"));
            let cells = row.iter().map(|&v| view! { <td>{short(v)}</td> }).collect_view();
            view! {
                <tr class:al-moved=moved>
                    <th scope="row">{format!("{i} {token}")} {moved.then_some(" ✗")}</th>
                    {cells}
                </tr>
            }
        })
        .collect_view();
    view! { <table class="al-table">{matrix_head("token", head)} <tbody>{body}</tbody></table> }
}

/// Why a row without ✗ matches although view alone read it from another token: rows
/// counted from 0, as the tables number them.
fn lookalike_words(t: &Trace, b: usize, tokens: &[String], h: &SplitHead) -> String {
    let word = |i: usize| tokens.get(i).cloned().unwrap_or_default();
    h.lookalikes()
        .into_iter()
        .map(|(row, from)| {
            let why = if same_input(t, b, row, from) {
                format!("\"{}\" and \"{}\" have the same input vector", word(row), word(from))
            } else {
                "their numbers happen to agree".to_string()
            };
            format!(
                " Row {} (\"{}\") only looks right: it holds row {}'s numbers (\"{}\"), and {why}.",
                row,
                word(row),
                from,
                word(from)
            )
        })
        .collect()
}

fn one_head(tokens: &[String], h: &SplitHead, lookalikes: String) -> impl IntoView {
    let n = h.head + 1;
    let wrong_rows = h.moved.iter().filter(|m| **m).count();
    view! {
        <figure class="al-split-head" data-testid="split-head" data-head=h.head>
            <figcaption>
                {format!(
                    "Head {n}: {wrong_rows} of {} rows differ (✗) without the transpose.{lookalikes}",
                    h.right.len(),
                )}
            </figcaption>
            <div class="al-split-pair">
                <div data-testid="split-right">
                    <p class="al-split-title">"view, then transpose(1, 2): right"</p>
                    {scroll_region(format!("Head {n} with the transpose"), table(tokens, &h.right, None))}
                </div>
                <div data-testid="split-wrong">
                    <p class="al-split-title">"view(B, h, T, d_k) alone: wrong"</p>
                    {scroll_region(
                        format!("Head {n} without the transpose"),
                        table(tokens, &h.wrong, Some(&h.moved)),
                    )}
                </div>
            </div>
        </figure>
    }
}

/// Every head of the shown sentence, split both ways (a note when the trace has no heads
/// to split).
#[component]
pub fn SplitBothWays(
    /// The shown trace.
    #[prop(into)]
    trace: Signal<Option<Arc<Trace>>>,
    /// The sentence shown.
    #[prop(into)]
    batch: Signal<usize>,
) -> impl IntoView {
    move || {
        let t = trace.get()?;
        let b = batch.get();
        let heads = split_both_ways(&t, b);
        if heads.is_empty() {
            return Some(
                view! {
                    <p class="al-note" data-testid="split-none">
                        "This scenario has no q of shape (B, T, d_model) to split into heads."
                    </p>
                }
                .into_any(),
            );
        }
        let tokens = t.tokens.get(b).cloned().unwrap_or_default();
        let figures =
            heads.iter().map(|h| one_head(&tokens, h, lookalike_words(&t, b, &tokens, h))).collect_view();
        Some(
            view! {
                <div class="al-split" data-testid="split-both-ways">
                    {figures}
                </div>
            }
            .into_any(),
        )
    }
}
