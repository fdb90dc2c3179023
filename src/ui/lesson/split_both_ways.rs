//! The shapes lesson's picture of a wrong reshape: each head of `q` split with view +
//! transpose (the right rows) beside view alone (what a head gets without the transpose),
//! from [`lessons::shapes::split_both_ways`]. Tables of numbers, so the picture is its own
//! text equivalent; a row that the missing transpose changed is marked in words and colour.

use std::sync::Arc;

use leptos::prelude::*;

use crate::engine::Trace;
use crate::format::short;
use crate::lessons::same_input;
use crate::lessons::shapes::{split_both_ways, SplitHead, Unmarked};

use crate::ui::widgets::note::note;
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

/// Why each row without ✗ matches, one sentence a row (rows, tokens and columns counted
/// from 0, as the tables number them): read from its own place, or a lookalike of other
/// numbers.
fn unmarked_words(t: &Trace, b: usize, tokens: &[String], h: &SplitHead) -> String {
    let word = |i: usize| tokens.get(i).cloned().unwrap_or_default();
    let d_k = h.right.first().map_or(0, Vec::len);
    let cols =
        |c: usize| if d_k == 1 { format!("column {c}") } else { format!("columns {c}–{}", c + d_k - 1) };
    h.unmarked()
        .into_iter()
        .map(|u| match u {
            Unmarked::InPlace { row, col } => format!(
                " Row {row} (\"{}\") is right: view alone reads it from the same place, token {row}'s {}.",
                word(row),
                cols(col)
            ),
            Unmarked::Lookalike { row, token, col } => {
                let why = if token != row && same_input(t, b, row, token) {
                    format!("\"{}\" and \"{}\" have the same input vector", word(row), word(token))
                } else {
                    "the numbers happen to agree".to_string()
                };
                format!(
                    " Row {row} (\"{}\") only looks right: it holds token {token}'s {} (\"{}\"), and {why}.",
                    word(row),
                    cols(col),
                    word(token)
                )
            }
        })
        .collect()
}

fn one_head(tokens: &[String], h: &SplitHead, unmarked: String) -> impl IntoView {
    let n = h.head + 1;
    let wrong_rows = h.moved.iter().filter(|m| **m).count();
    view! {
        <figure class="al-split-head" data-testid="split-head" data-head=h.head>
            <figcaption>
                {format!(
                    "Head {n}: {wrong_rows} of {} rows differ (✗) without the transpose.{unmarked}",
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
            return Some(note(
                "split-none",
                "This scenario has no q of shape (B, T, d_model) to split into heads.",
            ));
        }
        let tokens = t.tokens.get(b).cloned().unwrap_or_default();
        let figures =
            heads.iter().map(|h| one_head(&tokens, h, unmarked_words(&t, b, &tokens, h))).collect_view();
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::run;

    /// Each row without ✗ gets its sentence: head 1's row 0 and head 2's row 5 are read in
    /// place, head 2's row 3 ("on") holds "the"'s numbers.
    #[test]
    fn every_unmarked_row_is_explained() {
        let lesson = crate::lessons::shapes::lesson();
        let t = run(&lesson.steps[2].scenario).unwrap();
        let tokens = t.tokens[0].clone();
        let heads = split_both_ways(&t, 0);
        let words: Vec<String> = heads.iter().map(|h| unmarked_words(&t, 0, &tokens, h)).collect();
        assert_eq!(
            words[0],
            " Row 0 (\"the\") is right: view alone reads it from the same place, token 0's columns 0–3."
        );
        assert!(
            words[1].contains(" Row 3 (\"on\") only looks right: it holds token 4's columns 4–7 (\"the\")")
        );
        assert!(words[1].contains(
            " Row 5 (\"mat\") is right: view alone reads it from the same place, token 5's columns 4–7."
        ));
        for (h, w) in heads.iter().zip(&words) {
            assert_eq!(w.matches(" Row ").count(), h.moved.iter().filter(|m| !**m).count());
        }
    }
}
