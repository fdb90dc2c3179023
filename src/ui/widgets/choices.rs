//! A row of answer buttons, one per choice, the picked one pressed (`aria-pressed`): the
//! lesson's questions, the check-yourself and the explanation's "which key?" guess.

use leptos::prelude::*;

/// One `<button>` per name, each with `data-choice` = its index.
#[component]
pub fn ChoiceButtons(
    /// The choices' words, in order.
    names: Vec<String>,
    /// Each button's class.
    class: &'static str,
    /// Each button's `data-testid`, if any.
    #[prop(optional)]
    testid: Option<&'static str>,
    /// Is choice `i` the one picked?
    pressed: Callback<usize, bool>,
    /// Called with the index of the choice picked.
    on_pick: Callback<usize>,
) -> impl IntoView {
    names
        .into_iter()
        .enumerate()
        .map(|(i, name)| {
            view! {
                <button
                    type="button"
                    class=class
                    data-testid=testid
                    data-choice=i
                    aria-pressed=move || pressed.run(i).to_string()
                    on:click=move |_| on_pick.run(i)
                >
                    {name}
                </button>
            }
        })
        .collect_view()
}
