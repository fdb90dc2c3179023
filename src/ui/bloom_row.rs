//! The ALiBi lesson's comparison beside the words: "eight"'s row of head 1 biased the
//! paper's way, m·(j − i), and BLOOM's, m·j (the same row plus m·i), with the softmax of
//! each: different scores, the same weights. The numbers are
//! [`lessons::local::bloom_comparison`]'s; the table is the picture and its own text.

use std::sync::Arc;

use leptos::prelude::*;

use crate::engine::Trace;
use crate::format::short;
use crate::lessons::local::bloom_comparison;

use super::scroll_region::scroll_region;

/// The four rows, or nothing when the shown trace has no ALiBi (or no "eight").
#[component]
pub fn BloomRow(
    /// The shown trace.
    #[prop(into)]
    trace: Signal<Option<Arc<Trace>>>,
) -> impl IntoView {
    move || {
        let c = trace.with(|t| t.as_ref().and_then(|t| bloom_comparison(t)))?;
        let head = c.keys.iter().map(|k| view! { <th scope="col">{k.clone()}</th> }).collect_view();
        let line = |name: String, values: &[f64]| {
            let cells = values.iter().map(|&v| view! { <td>{short(v)}</td> }).collect_view();
            view! {
                <tr>
                    <th scope="row">{name}</th>
                    {cells}
                </tr>
            }
        };
        let (i, token) = c.query.clone();
        let rows = view! {
            {line("paper: + m·(j − i)".into(), &c.paper)}
            {line("BLOOM: + m·j".into(), &c.bloom)}
            {line("weights, paper".into(), &c.paper_weights)}
            {line("weights, BLOOM".into(), &c.bloom_weights)}
        };
        let table = view! {
            <table class="al-table al-bloom-table">
                <thead>
                    <tr>
                        <th scope="col">"key →"</th>
                        {head}
                    </tr>
                </thead>
                <tbody>{rows}</tbody>
            </table>
        };
        Some(view! {
            <figure class="al-bloom" data-testid="bloom-row">
                <figcaption>
                    {format!(
                        "\"{token}\" (row {i}), head 1: ALiBi's bias written two ways. BLOOM's scores are the paper's + m·i = {} each; the weights are the same.",
                        short(c.shift),
                    )}
                </figcaption>
                {scroll_region(format!("ALiBi's bias two ways, row {i}"), table)}
            </figure>
        })
    }
}
