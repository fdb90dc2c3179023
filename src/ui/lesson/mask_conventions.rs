//! The masks lesson's table: the same boolean mask in the three conventions the seeds and
//! PyTorch use.

use std::sync::Arc;

use leptos::prelude::*;

use crate::engine::Trace;

/// The most query rows and key columns the conventions show (T may be 128).
const MAX_MASK_SIDE: usize = 16;

/// The same boolean mask in the three conventions the seeds and PyTorch use: one row per
/// query, one column per key (`T_q × T_k` in cross-attention), read with checked indexing.
#[component]
pub fn MaskConventions(
    /// The shown trace.
    #[prop(into)]
    trace: Signal<Option<Arc<Trace>>>,
    /// The sentence whose mask is shown.
    #[prop(into)]
    batch: Signal<usize>,
    /// Folded under a summary, closed (presenter mode: the step's words and picture fit
    /// one screen, and the teacher opens the conventions when the class asks).
    #[prop(into, optional)]
    folded: Signal<bool>,
) -> impl IntoView {
    move || {
        let t = trace.get()?;
        let [n_b, t_q, t_k] = t.mask.shape;
        let b = batch.get().min(n_b.saturating_sub(1));
        let (n_rows, n_cols) = (t_q.min(MAX_MASK_SIDE), t_k.min(MAX_MASK_SIDE));
        let queries: Vec<String> =
            (0..n_rows).map(|i| t.query_tokens(b).get(i).cloned().unwrap_or_default()).collect();
        let keys: Vec<String> =
            (0..n_cols).map(|j| t.key_tokens(b).get(j).cloned().unwrap_or_default()).collect();
        let grid = |f: &dyn Fn(bool) -> &'static str| {
            let head = keys.iter().map(|k| view! { <th scope="col">{k.clone()}</th> }).collect_view();
            let body = queries
                .iter()
                .enumerate()
                .map(|(i, q)| {
                    let cells = (0..n_cols)
                        .map(|j| {
                            let blocked = t.mask.is_blocked(b, i, j);
                            view! { <td class:al-blocked=blocked>{f(blocked)}</td> }
                        })
                        .collect_view();
                    view! {
                        <tr>
                            <th scope="row">{q.clone()}</th>
                            {cells}
                        </tr>
                    }
                })
                .collect_view();
            view! {
                <table>
                    <thead>
                        <tr>
                            <th></th>
                            {head}
                        </tr>
                    </thead>
                    <tbody>{body}</tbody>
                </table>
            }
        };
        let cut = (t_q > n_rows || t_k > n_cols).then(|| {
            view! {
                <p class="al-note" data-testid="mask-conventions-cut">
                    {format!("The first {n_rows} queries and {n_cols} keys of {t_q} × {t_k}.")}
                </p>
            }
        });
        let tables = view! {
            // each figure may scroll sideways on a phone: focusable, so arrow keys scroll it
            <div class="al-conventions" data-testid="mask-conventions">
                <figure tabindex="0">
                    <figcaption>
                        "This app, the Masterclass chapter, nn.MultiheadAttention: " <code>"True"</code>
                        " = blocked"
                    </figcaption>
                    {grid(&|x| if x { "T" } else { "F" })}
                </figure>
                <figure tabindex="0">
                    <figcaption>
                        "The Annotated Transformer and the baseball-bat tutorial: "
                        <code>"masked_fill(mask == 0, …)"</code> ", 0 = blocked"
                    </figcaption>
                    {grid(&|x| if x { "0" } else { "1" })}
                </figure>
                <figure tabindex="0">
                    <figcaption>
                        <code>"F.scaled_dot_product_attention"</code>
                        " boolean attn_mask: "
                        <code>"True"</code>
                        " = may attend"
                    </figcaption>
                    {grid(&|x| if x { "F" } else { "T" })}
                </figure>
                {cut}
            </div>
        };
        Some(if folded.get() {
            view! {
                <details class="al-fold al-conventions-fold" data-testid="mask-conventions-fold">
                    <summary>"The same mask in three conventions (T/F, 1/0)"</summary>
                    {tables}
                </details>
            }
            .into_any()
        } else {
            tables.into_any()
        })
    }
}
