//! The run at a glance: its sizes, the token chips of every sentence (and of the
//! key/value sentences in cross-attention), and the tabs that pick a sentence.

use leptos::prelude::*;

use crate::engine;
use crate::engine::embedding::Source;

/// What a ° after a token means.
const HASHED_NOTE: &str =
    "no toy vector for this word: it gets a fixed random one, derived from its spelling. \
                           Nothing here is trained, so what it attends to says nothing about the word.";

use crate::ui::state::app_state::AppState;
use crate::ui::widgets::text_fit::{may_overflow, TOKEN_FITS};

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
            let lengths = match z.t_k {
                Some(t_k) => format!("T_q = {}, T_k = {t_k}", z.t),
                None => format!("T = {}", z.t),
            };
            let h_kv = match (z.n_kv_heads, z.n_heads * z.d_k != z.d_model) {
                (Some(_), _) | (None, true) => format!(", h_kv = {}", z.kv_heads()),
                (None, false) => String::new(),
            };
            let own = if z.n_heads * z.d_k == z.d_model {
                String::new()
            } else {
                format!(" (its own: h·d_k = {})", z.n_heads * z.d_k)
            };
            let counted = t.parameters();
            let parameters = match (&counted, t.parameters_total()) {
                (Some((formula, n)), Some(total)) if t.n_layers > 1 => {
                    format!(" · parameters per layer {formula} = {n}, {total} in {} layers", t.n_layers)
                }
                (Some((formula, n)), _) => format!(" · parameters {formula} = {n}"),
                (None, _) => " · MLA: the projections are in the pipeline's steps".to_owned(),
            };
            let layers = if t.n_layers > 1 {
                format!(", {} layers (layer {} shown)", t.n_layers, t.layer)
            } else {
                String::new()
            };
            // grouped-query attention: what h_kv = h would cost (the same norms and sinks),
            // and the cache per token
            let grouped = match (z.n_kv_heads, counted) {
                (Some(h_kv), Some((_, n))) if z.n_heads * z.d_k == z.d_model => {
                    let projections = engine::weights::parameter_count_kv(z.d_model, h_kv * z.d_k);
                    format!(
                        " (not {} with h_kv = h) · K/V cache 2·h_kv·d_k = {} numbers per token",
                        n - projections + engine::weights::parameter_count(z.d_model),
                        2 * h_kv * z.d_k
                    )
                }
                _ => String::new(),
            };
            format!(
                "B = {}, {lengths}, d_model = {}, h = {}{h_kv}, d_k = {}{own}{layers}{parameters}{grouped}",
                z.b, z.d_model, z.n_heads, z.d_k
            )
        })
    };
    // a token whose vector is not a toy one (no lexicon entry, not given) is marked: its
    // vector is derived from its spelling, so what it attends to means nothing
    let chips = |row: &[String], real: usize, kv: bool, sources: Option<&Vec<Source>>| {
        row.iter()
            .enumerate()
            .map(|(i, t)| {
                let pad = i >= real;
                let hashed = sources.and_then(|s| s.get(i)) == Some(&Source::Hashed);
                view! {
                    <li
                        class="al-token"
                        class:al-token-long=may_overflow(t, TOKEN_FITS)
                        class:al-kv=kv
                        class:al-pad=pad
                        class:al-hashed=hashed
                        data-source=if hashed { "hashed" } else { "toy" }
                        title=hashed.then_some(HASHED_NOTE)
                    >
                        // the ° is drawn by CSS (::after), so the token's text stays the token
                        {t.clone()}
                    </li>
                }
            })
            .collect_view()
    };
    let any_hashed = move || {
        shown.with(|t| {
            t.as_ref().is_some_and(|t| {
                t.sources.iter().chain(t.kv_sources.iter().flatten()).flatten().any(|s| *s == Source::Hashed)
            })
        })
    };
    let tokens_view = move || {
        let trace = shown.get()?;
        Some(
            (0..trace.sizes.b)
                .map(|b| {
                    let c = chips(trace.query_tokens(b), trace.query_length(b), false, trace.sources.get(b));
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
                    let c = chips(
                        trace.key_tokens(b),
                        trace.key_length(b),
                        true,
                        trace.kv_sources.as_ref().and_then(|s| s.get(b)),
                    );
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
            <p class="al-hashed-note" data-testid="hashed-note" hidden=move || !any_hashed()>
                "° "
                {HASHED_NOTE}
            </p>
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
