//! The MLA lesson's cache picture ([`lessons::mla::cache_bars`]): a token's cache per layer
//! as bars, at DeepSeek-V3's sizes and in the page's own model, each bar's numbers (and
//! bytes) written beside it, and its share of the group's largest in a column of its own
//! ("against the largest": "6.3% of MHA"),
//! so that a bar too short to see (MQA's and MLA's against MHA's) still reads, and the
//! picture is its own text equivalent. The lesson
//! computes every number and every bar's share; this only lays them out.

use std::sync::Arc;

use leptos::prelude::*;

use crate::engine::Trace;
use crate::format::group_digits;
use crate::lessons::mla::{cache_bars, CacheBar};
use crate::ui::widgets::scroll_region::scroll_region;

/// One group of bars as a table: what, the bar, numbers, and bytes when the group has them.
fn group(caption: &'static str, testid: &'static str, bars: Vec<CacheBar>) -> impl IntoView {
    let with_bytes = bars.iter().any(|b| b.bytes.is_some());
    let rows = bars
        .into_iter()
        .map(|b| {
            let width = format!("width: {:.2}%", 100.0 * b.share);
            let bytes =
                with_bytes.then(|| view! { <td>{b.bytes.map(group_digits).unwrap_or_default()}</td> });
            view! {
                <tr>
                    <th scope="row">{b.what}</th>
                    <td class="al-bar-cell" aria-hidden="true">
                        <span class="al-bar" style=width></span>
                    </td>
                    <td class="al-bar-share">{b.share_words}</td>
                    <td>{group_digits(b.numbers)}</td>
                    {bytes}
                </tr>
            }
        })
        .collect_view();
    let bytes_head = with_bytes.then(|| view! { <th scope="col">"bytes, 61 layers"</th> });
    // on a phone the table may be wider than the column: it scrolls in its own region
    let table = view! {
        <table class="al-table al-cache-bars" data-testid=testid>
            <caption>{caption}</caption>
            <thead>
                <tr>
                    <th scope="col">"cache"</th>
                    <th scope="col" class="al-bar-cell">
                        "per token and layer"
                    </th>
                    <th scope="col">"against the largest"</th>
                    <th scope="col">"numbers"</th>
                    {bytes_head}
                </tr>
            </thead>
            <tbody>{rows}</tbody>
        </table>
    };
    scroll_region(caption.to_owned(), table)
}

/// The cache bars of the shown trace.
#[component]
pub fn CacheBars(
    /// The shown trace.
    #[prop(into)]
    trace: Signal<Option<Arc<Trace>>>,
) -> impl IntoView {
    move || {
        let t = trace.get()?;
        let [v3, here] = cache_bars(&t);
        Some(view! {
            <figure class="al-cache-figure" data-testid="cache-bars">
                {group("DeepSeek-V3: 128 heads, d_k = 192, d_v = 128; bf16", "cache-bars-v3", v3)}
                {group("This page's model", "cache-bars-here", here)}
            </figure>
        })
    }
}
