//! The run at a glance: its sizes, the token chips of every sentence (and of the
//! key/value sentences in cross-attention), and the tabs that pick a sentence.

use leptos::prelude::*;

use crate::engine;

use super::app_state::AppState;

/// Sizes and token chips.
#[component]
pub fn Overview(
    /// The page's state.
    state: AppState,
) -> impl IntoView {
    let shown = state.shown;
    let sizes_view = move || {
        shown.get().map(|t| {
            let z = t.sizes;
            let t = match z.t_k {
                Some(t_k) => format!("T_q = {}, T_k = {t_k}", z.t),
                None => format!("T = {}", z.t),
            };
            match z.n_kv_heads {
                None => format!(
                    "B = {}, {t}, d_model = {}, h = {}, d_k = {} · parameters 4·d_model² + 4·d_model = {}",
                    z.b,
                    z.d_model,
                    z.n_heads,
                    z.d_k,
                    engine::weights::parameter_count(z.d_model)
                ),
                // grouped-query attention: W_K and W_V are d_model × h_kv·d_k
                Some(h_kv) => format!(
                    "B = {}, {t}, d_model = {}, h = {}, h_kv = {h_kv}, d_k = {} · parameters \
                     2·d_model² + 2·d_model·h_kv·d_k + 2·d_model + 2·h_kv·d_k = {} (not {} with h_kv = h) · \
                     K/V cache 2·h_kv·d_k = {} numbers per token",
                    z.b,
                    z.d_model,
                    z.n_heads,
                    z.d_k,
                    engine::weights::parameter_count_kv(z.d_model, h_kv * z.d_k),
                    engine::weights::parameter_count(z.d_model),
                    2 * h_kv * z.d_k
                ),
            }
        })
    };
    let chips = |row: &[String], real: usize, kv: bool| {
        row.iter()
            .enumerate()
            .map(|(i, t)| {
                let pad = i >= real;
                view! {
                    <li class="al-token" class:al-kv=kv class:al-pad=pad>
                        {t.clone()}
                    </li>
                }
            })
            .collect_view()
    };
    let tokens_view = move || {
        let trace = shown.get()?;
        Some(
            (0..trace.sizes.b)
                .map(|b| {
                    let c = chips(trace.query_tokens(b), trace.query_length(b), false);
                    view! {
                        <ol class="al-tokens" data-testid="tokens" data-batch=b>
                            {c}
                        </ol>
                    }
                })
                .collect_view(),
        )
    };
    let kv_tokens_view = move || {
        let trace = shown.get()?;
        let t_k = trace.sizes.t_k?;
        Some(view! {
            <p class="al-sizes">"keys and values (cross-attention), T_k = " {t_k} ":"</p>
            {(0..trace.sizes.b)
                .map(|b| {
                    let c = chips(trace.key_tokens(b), trace.key_length(b), true);
                    view! {
                        <ol class="al-tokens" data-testid="kv-tokens" data-batch=b>
                            {c}
                        </ol>
                    }
                })
                .collect_view()}
        })
    };
    view! {
        <section class="al-overview" aria-label="Tokens">
            <p class="al-sizes" data-testid="sizes">
                {sizes_view}
            </p>
            {tokens_view}
            {kv_tokens_view}
        </section>
    }
}

/// One tab per sentence of the batch (none for a single sentence).
#[component]
pub fn BatchTabs(
    /// The page's state.
    state: AppState,
) -> impl IntoView {
    let (shown, view_state) = (state.shown, state.view);
    move || {
        let trace = shown.get()?;
        if trace.sizes.b < 2 {
            return None;
        }
        let current = view_state.with(|v| v.batch);
        Some(
            (0..trace.sizes.b)
                .map(|b| {
                    let real: Vec<&str> = trace
                        .query_tokens(b)
                        .iter()
                        .take(trace.query_length(b))
                        .map(String::as_str)
                        .collect();
                    let label = real.join(" ");
                    view! {
                        <button
                            type="button"
                            class="al-tab"
                            class:al-selected=current == b
                            aria-pressed=(current == b).to_string()
                            data-testid="batch-tab"
                            on:click=move |_| view_state.update(|v| v.batch = b)
                        >
                            {format!("{}. ", b + 1)}
                            {label}
                        </button>
                    }
                })
                .collect_view(),
        )
    }
}
