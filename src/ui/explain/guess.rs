//! "Guess first": the learner types a value (and, for an attention weight, picks the key
//! expected to get the most weight) before the panel reveals the answer and says how
//! close the guess was ([`crate::ui::explain::text::closeness`]).

use std::sync::Arc;

use leptos::prelude::*;

use crate::engine::explain::Explanation;
use crate::engine::{StepName, Trace};
use crate::format::read_typed_number;
use crate::ui::explain::cell_state::CellState;
use crate::ui::explain::text::{closeness, key_feedback, num, top_keys, TIE};
use crate::ui::widgets::choices::ChoiceButtons;

/// The buttons for guessing which key of the row gets the most weight.
#[component]
fn KeyGuess(
    /// The panel's state for the explained cell.
    state: CellState,
    /// The row's key tokens.
    keys: Vec<String>,
) -> impl IntoView {
    view! {
        <fieldset class="al-ex-keys">
            <legend>"Which key gets the most weight in this row?"</legend>
            <ChoiceButtons
                names=keys
                class="al-small"
                pressed=Callback::new(move |k| state.key_guess() == Some(k))
                on_pick=Callback::new(move |k| state.set_key_guess(k))
            />
            <button
                type="button"
                class="al-small"
                data-testid="explain-key-tie"
                aria-pressed=move || (state.key_guess() == Some(TIE)).to_string()
                on:click=move |_| state.set_key_guess(TIE)
            >
                "Several tie"
            </button>
        </fieldset>
    }
}

/// The guess form, while guessing is on.
#[component]
pub fn ExplainGuess(
    /// The shown trace.
    #[prop(into)]
    trace: Signal<Option<Arc<Trace>>>,
    /// The panel's state for the explained cell.
    state: CellState,
    /// The explanation, if there is one.
    explanation: Memo<Option<Arc<Explanation>>>,
    /// Is "Guess first" on?
    guess_mode: RwSignal<bool>,
) -> impl IntoView {
    move || {
        if !guess_mode.get() {
            return None;
        }
        let e = explanation.get()?;
        let is_weight = e.step == StepName::Weights;
        let (tops, keys) = if is_weight {
            trace.with(|t| {
                t.as_ref().map_or_else(Default::default, |t| {
                    let keys = e.index.first().map(|&b| t.key_tokens(b).to_vec()).unwrap_or_default();
                    (top_keys(t, &e), keys)
                })
            })
        } else {
            (vec![], vec![])
        };
        let actual = e.result;
        let names = keys.clone();
        let feedback = move || {
            state.revealed().then(|| {
                let mut text = match read_typed_number(&state.guess_text()) {
                    Some(g) => closeness(g, actual),
                    None => format!(
                        "No number guessed (type e.g. 0.25, 0,25 or 1/4); the value is {}.",
                        num(actual)
                    ),
                };
                if is_weight {
                    text.push(' ');
                    text.push_str(&key_feedback(state.key_guess(), &tops, &names));
                }
                view! {
                    <p class="al-ex-feedback" data-testid="explain-feedback">
                        {text}
                    </p>
                }
            })
        };
        Some(view! {
            <form
                class="al-ex-guess"
                data-testid="explain-guess"
                on:submit=move |ev| {
                    ev.prevent_default();
                    state.set_revealed(true);
                }
            >
                <label>
                    "Your guess for the value: "
                    <input
                        type="text"
                        inputmode="decimal"
                        data-testid="explain-guess-input"
                        size="10"
                        prop:value=move || state.guess_text()
                        on:input=move |ev| state.set_guess_text(event_target_value(&ev))
                    />
                </label>
                {is_weight.then(|| view! { <KeyGuess state=state keys=keys /> })}
                <button
                    type="submit"
                    class="al-small"
                    data-testid="explain-reveal"
                    disabled=move || state.revealed()
                >
                    "Reveal"
                </button>
                {feedback}
            </form>
        })
    }
}
