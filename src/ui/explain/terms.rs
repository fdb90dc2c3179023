//! The explanation's terms: the largest few (or all, unfolded), the rest summed, and the
//! result, as [`crate::ui::explain::text::term_list`] writes them.

use std::sync::Arc;

use leptos::prelude::*;

use crate::engine::explain::Explanation;
use crate::ui::explain::cell_state::CellState;
use crate::ui::explain::text::{term_list, MAX_TERMS};

/// The terms of the explained cell; nothing while its value is hidden for a guess.
#[component]
pub fn ExplainTerms(
    /// The panel's state for the explained cell.
    state: CellState,
    /// The explanation, when its answer may be shown.
    #[prop(into)]
    told: Signal<Option<Arc<Explanation>>>,
) -> impl IntoView {
    let terms = Memo::new(move |_| {
        let all = state.show_all();
        told.get().map(|e| term_list(&e, all))
    });
    let has_terms = Memo::new(move |_| terms.with(Option::is_some));
    let n_terms = Memo::new(move |_| terms.with(|t| t.as_ref().map_or(0, |t| t.n_terms)));
    let result = Memo::new(move |_| terms.with(|t| t.as_ref().map(|t| t.result.clone())).unwrap_or_default());
    let result_shown =
        Memo::new(move |_| terms.with(|t| t.as_ref().map(|t| t.result_shown.clone())).unwrap_or_default());
    // the list is rebuilt in place: same elements, new texts
    let term_items = move || {
        terms.with(|t| {
            t.as_ref()
                .map(|t| {
                    t.rows
                        .iter()
                        .map(|row| {
                            let value = row.value.clone();
                            view! {
                                <li data-testid="explain-term" data-value=value>
                                    <span class="al-ex-label">{row.label.clone()}</span>
                                    <span class="al-ex-nums">{row.nums.clone()}</span>
                                    <span class="al-ex-val" title=row.value.clone()>
                                        {"= "}
                                        {row.shown.clone()}
                                    </span>
                                </li>
                            }
                        })
                        .collect::<Vec<_>>()
                })
                .unwrap_or_default()
        })
    };
    let rest_item = move || {
        terms.with(|t| t.as_ref().and_then(|t| t.rest.clone())).map(|(label, sum, shown)| {
            let value = sum.clone();
            view! {
                <li data-testid="explain-term" data-rest="true" data-value=value class="al-ex-rest">
                    <span class="al-ex-label">{label}</span>
                    <span class="al-ex-val" title=sum>
                        {"= "}
                        {shown}
                    </span>
                </li>
            }
        })
    };
    let foldable = Memo::new(move |_| n_terms.get() > MAX_TERMS);
    let fold_label = move || {
        if state.show_all() {
            format!("show the largest {MAX_TERMS}")
        } else {
            format!("show all {}", n_terms.get())
        }
    };
    move || {
        has_terms.get().then(|| {
            view! {
                <p class="al-ex-h">{move || terms.with(|t| t.as_ref().map(|t| t.heading.clone()))}</p>
                <ol class="al-ex-terms">{term_items}{rest_item}</ol>
                <Show when=move || foldable.get()>
                    <button
                        type="button"
                        class="al-small"
                        data-testid="explain-show-all"
                        aria-expanded=move || state.show_all().to_string()
                        on:click=move |_| state.toggle_show_all()
                    >
                        {fold_label}
                    </button>
                </Show>
                <p class="al-ex-result" data-testid="explain-result" data-value=move || result.get()>
                    "result: "
                    <strong title=move || result.get()>{move || result_shown.get()}</strong>
                </p>
            }
        })
    }
}
