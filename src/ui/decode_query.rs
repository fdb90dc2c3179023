//! The one query row of a decoding step: its weights over the cached keys (the largest,
//! with what the others add up to), the output row (a number opens its explanation), and
//! the check against the full run.

use leptos::prelude::*;

use super::card_data::CardId;
use super::check_line::CheckLine;
use super::decode_cache::MAX_COLS;
use super::decode_data::{self as data, format_difference, token_label};
use super::decode_position::At;
use super::explain_panel::ExplainPanel;
use super::explained::Explained;
use super::scroll_region::scroll_region;
use crate::engine::{DecodeStep, StepName, Trace};
use crate::format::{exact, fixed, short};

/// The most weights listed (the largest, beyond that).
const MAX_KEYS: usize = 24;

/// The one query row at this position: its weights over the cached keys, the output row,
/// and the check against the full run.
pub(super) fn query_view(p: &DecodeStep, full: Option<&Trace>, at: At) -> impl IntoView {
    let At { b, head, len, .. } = at;
    let key_tokens: &[String] = full.map(|f| f.key_tokens(b)).unwrap_or(&[]);
    let weights = data::weight_row(p, b, head);
    let listed = data::listed_keys(&weights, MAX_KEYS);
    let unlisted = (listed.len() < weights.len()).then(|| {
        let rest: f64 = weights.iter().enumerate().filter(|(l, _)| !listed.contains(l)).map(|(_, w)| w).sum();
        format!(
            " (the {} largest, in order; the other {} add up to {})",
            listed.len(),
            weights.len() - listed.len(),
            fixed(rest, 4)
        )
    });
    let weight_rows = listed
        .iter()
        .filter_map(|&l| weights.get(l).map(|&w| (l, w)))
        .map(|(l, w)| {
            let pos = p.cache_positions.get(l).copied().unwrap_or(l);
            let width = if w.is_finite() { (w * 100.0).clamp(0.0, 100.0) } else { 0.0 };
            view! {
                <tr data-pos=pos>
                    <th scope="row">{token_label(key_tokens, pos)}</th>
                    <td data-value=exact(w)>{fixed(w, 4)}</td>
                    <td class="al-bar-cell" aria-hidden="true">
                        <span class="al-bar" style=format!("width: {width:.1}%")></span>
                    </td>
                </tr>
            }
        })
        .collect_view();
    let output = data::decoded_output_row(p, b).unwrap_or_default();
    let d_model = output.len();
    let out_cols = d_model.min(MAX_COLS * 2);
    // A click on an output number opens the explanation panel on it: the decoded row is
    // the full run's row t (the check below), so its arithmetic is that cell's.
    let explained = use_context::<Explained>();
    let id = CardId { step: StepName::Output, batch: b, head: 0 };
    let t = p.t;
    let output_cells = output
        .iter()
        .take(out_cols)
        .enumerate()
        .map(|(c, &x)| {
            view! {
                <td data-value=exact(x)>
                    <button
                        type="button"
                        class="al-cell-button"
                        data-testid="decode-explain"
                        title="Explain this number"
                        on:click=move |_| {
                            if let Some(e) = explained {
                                e.open(id, t, c)
                            }
                        }
                    >
                        {short(x)}
                    </button>
                </td>
            }
        })
        .collect_view();
    let panel = explained.map(|e| {
        move || {
            e.cell.get().filter(|(cell, r, _)| *cell == id && *r == t).map(|_| {
                view! {
                    <p class="al-note" data-testid="decode-explain-note">
                        {format!(
                            "This number of the decoded row, explained: the decoded row equals row {t} of the full run (the check above), so it is the same arithmetic, the decoded context row times a column of W_O, plus the bias.",
                        )}
                    </p>
                    <ExplainPanel
                        trace=Signal::derive(move || e.trace.get())
                        explained=e
                        on_close=Callback::new(move |()| e.cell.set(None))
                    />
                }
            })
        }
    });
    let check = match full.and_then(|f| data::output_check(p, f, b).map(|diff| (f, diff))) {
        None => view! {
            <p class="al-check" data-testid="decode-check">
                "The full run is not ready yet: no check."
            </p>
        }
        .into_any(),
        Some((f, diff)) => {
            let fully = f.fully_masked_rows.contains(&[b, p.t]);
            let ok = diff <= 1e-12;
            let words = if diff == 0.0 {
                format!("Equals row {} of the full run: largest |difference| = 0 (bit for bit).", p.t)
            } else if ok {
                format!(
                    "Equals row {} of the full run: largest |difference| = {} (rounding).",
                    p.t,
                    format_difference(diff)
                )
            } else if fully {
                format!(
                    "Row {} is fully masked: under -1e9 the full run spreads its weight over all T_k keys, the decoder over the {len} it has cached, so they differ (largest |difference| = {}).",
                    p.t,
                    format_difference(diff)
                )
            } else {
                format!(
                    "Differs from row {} of the full run: largest |difference| = {}.",
                    p.t,
                    format_difference(diff)
                )
            };
            view! { <CheckLine ok=ok diff=diff words=words testid="decode-check" /> }.into_any()
        }
    };
    view! {
        {scroll_region(
            "this position's weights as a table".to_string(),
            view! {
                <table class="al-table al-weights-table" data-testid="decode-weights">
                    <caption>
                        {format!(
                            "Query head {}'s weights over the {} cached keys{}: softmax(q·k / √d_k)",
                            head + 1,
                            weights.len(),
                            unlisted.unwrap_or_default(),
                        )}
                    </caption>
                    <thead>
                        <tr>
                            <th scope="col">"key"</th>
                            <th scope="col">"weight"</th>
                            <th scope="col">
                                <span class="al-sr">"bar"</span>
                            </th>
                        </tr>
                    </thead>
                    <tbody>{weight_rows}</tbody>
                </table>
            },
        )}
        {scroll_region(
            "the output row as a table".to_string(),
            view! {
                <table class="al-table" data-testid="decode-output">
                    <caption>
                        {format!(
                            "The output row, (B, 1, d_model) for sentence {}{} (click a number for its arithmetic)",
                            b + 1,
                            if d_model > out_cols {
                                format!(": the first {out_cols} of {d_model} numbers")
                            } else {
                                String::new()
                            },
                        )}
                    </caption>
                    <tbody>
                        <tr>
                            <th scope="row">{format!("output[{b}, {}]", p.t)}</th>
                            {output_cells}
                        </tr>
                    </tbody>
                </table>
            },
        )}
        {check}
        {panel}
    }
}
