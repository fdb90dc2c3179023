//! A lesson step's question before its answer: buttons or a number; the verdict and its
//! reason come from the lesson's pure functions on the live trace.

use std::sync::Arc;

use leptos::prelude::*;

use crate::engine::Trace;
use crate::format::read_typed_number;
use crate::lessons::{Quiz, QuizKind};
use crate::ui::explain::explained::Explained;
use crate::ui::widgets::choices::ChoiceButtons;
use crate::ui::widgets::unbroken::unbroken;

/// What the learner answered.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Answer {
    Choice(usize),
    Number(f64),
}

/// A question before the answer: buttons or a number; the verdict and its reason are
/// computed from the live trace, so an edit changes the right answer too.
#[component]
pub fn QuizView(
    /// The question, its choices and how it is judged.
    quiz: Quiz,
    /// The shown trace: the right answer is computed from it.
    #[prop(into)]
    trace: Signal<Option<Arc<Trace>>>,
    /// The open lesson and step: a new step asks afresh.
    position: Signal<(usize, usize)>,
    /// Set to the step once its question is answered: the picture then shows what the
    /// question asked about ([`crate::lessons::Quiz::reveal`]).
    revealed: RwSignal<Option<(usize, usize)>>,
) -> impl IntoView {
    let answer = RwSignal::new(None::<Answer>);
    let answered = move |a: Answer| {
        answer.set(Some(a));
        revealed.set(Some(position.get_untracked()));
    };
    // a new step asks afresh
    let typed = RwSignal::new(String::new());
    // true after Check with text that is not a number
    let unreadable = RwSignal::new(false);
    Effect::new(move |_| {
        position.track();
        answer.set(None);
        unreadable.set(false);
    });
    // while the learner guesses a cell's value in the explanation panel, the question and
    // its verdict must not name it
    let explained = use_context::<Explained>();
    let guessing = move || explained.is_some_and(|e| e.guessed().is_some());
    let hidden = move |text: String| if guessing() { crate::lessons::hide_numbers(&text) } else { text };
    let question = move || hidden(trace.get().map(|t| (quiz.question)(&t)).unwrap_or_default());
    let verdict = move || {
        let t = trace.get()?;
        match answer.get()? {
            Answer::Choice(i) => quiz.judge_choice(&t, i),
            Answer::Number(x) => quiz.judge_number(&t, x),
        }
    };
    let inputs = move || match quiz.kind {
        QuizKind::Choice { choices, .. } => {
            let names = trace.get().map(|t| choices(&t)).unwrap_or_default();
            view! {
                <ChoiceButtons
                    names=names
                    class="al-quiz-choice"
                    testid="quiz-choice"
                    pressed=Callback::new(move |i| answer.get() == Some(Answer::Choice(i)))
                    on_pick=Callback::new(move |i| answered(Answer::Choice(i)))
                />
            }
            .into_any()
        }
        QuizKind::Number { .. } => {
            // a decimal comma and a fraction read as numbers too (a phone's keyboard may
            // offer only the comma): the same reader as the check-yourself
            let check = move || {
                let text = typed.get_untracked();
                match read_typed_number(&text) {
                    Some(x) => {
                        unreadable.set(false);
                        answered(Answer::Number(x));
                    }
                    None => unreadable.set(!text.trim().is_empty()),
                }
            };
            view! {
                <input
                    type="text"
                    inputmode="decimal"
                    autocomplete="off"
                    data-testid="quiz-number"
                    aria-label="Your answer"
                    // not bound back to `typed`: writing the value while it is typed would
                    // move the cursor
                    on:input=move |ev| typed.set(event_target_value(&ev))
                    on:keydown=move |ev| {
                        if ev.key() == "Enter" {
                            check()
                        }
                    }
                />
                <button
                    type="button"
                    class="al-quiz-choice"
                    data-testid="quiz-choice"
                    on:click=move |_| check()
                >
                    "Check"
                </button>
                <span
                    class="al-error"
                    data-testid="quiz-unreadable"
                    aria-live="polite"
                    hidden=move || !unreadable.get()
                >
                    "Type a number, e.g. 0.25, 1/8 or 0,25."
                </span>
            }
            .into_any()
        }
    };
    view! {
        <div class="al-quiz" data-testid="quiz" role="group" aria-label="Question">
            <p class="al-quiz-question">{move || unbroken(&question())}</p>
            <div class="al-quiz-inputs">{inputs}</div>
            <p
                class="al-quiz-reveal"
                class:al-right=move || verdict().is_some_and(|v| v.right)
                data-testid="quiz-reveal"
                aria-live="polite"
                hidden=move || answer.get().is_none()
            >
                {move || unbroken(&hidden(verdict().map(|v| v.text).unwrap_or_default()))}
            </p>
        </div>
    }
}
