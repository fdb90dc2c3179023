//! A challenge's hints, shown one at a time: the list of those shown so far, and the
//! button that shows the next. The challenges mode and the Learn view's training
//! challenges both use them.

use leptos::prelude::*;

/// The first `shown` of `hints`, in order, each an `<li>` with `data-testid=testid`.
#[component]
pub fn HintList(
    /// Every hint, in the order they are shown.
    hints: Vec<String>,
    /// How many are shown.
    shown: RwSignal<usize>,
    /// Each hint's `data-testid`.
    testid: &'static str,
) -> impl IntoView {
    view! {
        <ol class="al-challenge-hints">
            {move || {
                hints
                    .iter()
                    .take(shown.get())
                    .map(|h| view! { <li data-testid=testid>{h.clone()}</li> })
                    .collect_view()
            }}
        </ol>
    }
}

/// "Show a hint (k of n shown)": shows one more of the `n` hints, and is disabled once
/// all are shown.
#[component]
pub fn NextHintButton(
    /// How many hints there are.
    n: usize,
    /// How many are shown.
    shown: RwSignal<usize>,
    /// The button's `data-testid`.
    testid: &'static str,
) -> impl IntoView {
    view! {
        <button
            type="button"
            data-testid=testid
            disabled=move || { shown.get() >= n }
            on:click=move |_| shown.update(|k| *k = (*k + 1).min(n))
        >
            {move || format!("Show a hint ({} of {n} shown)", shown.get())}
        </button>
    }
}
