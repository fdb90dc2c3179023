//! "Check yourself" at a lesson's end: the lesson's fresh questions
//! ([`crate::lessons::check::check_yourself`], made and answered by the engine on other
//! numbers than the lesson's), each with its buttons or number box and its verdict.

use leptos::prelude::*;

use crate::lessons::check::{CheckAnswer, CheckQuestion};
use crate::lessons::Verdict;
use crate::ui::widgets::choices::ChoiceButtons;
use crate::ui::widgets::section::TitledSection;

/// One question, its inputs and, once answered, its verdict.
#[component]
fn CheckItem(
    /// The question.
    question: CheckQuestion,
    /// Its place in the list, counted from 1 (for the number box's name).
    n: usize,
) -> impl IntoView {
    let verdict = RwSignal::new(None::<Verdict>);
    let chosen = RwSignal::new(None::<usize>);
    let q = StoredValue::new(question.clone());
    let inputs = match question.answer {
        CheckAnswer::Choice { choices, .. } => view! {
            <ChoiceButtons
                names=choices
                class="al-quiz-choice"
                testid="check-choice"
                pressed=Callback::new(move |i| chosen.get() == Some(i))
                on_pick=Callback::new(move |i| {
                    chosen.set(Some(i));
                    verdict.set(q.with_value(|q| q.judge_choice(i)));
                })
            />
        }
        .into_any(),
        CheckAnswer::Number { .. } => {
            let typed = RwSignal::new(String::new());
            view! {
                <form
                    class="al-check-number"
                    on:submit=move |ev| {
                        ev.prevent_default();
                        verdict.set(q.with_value(|q| q.judge_number(&typed.get_untracked())));
                    }
                >
                    <input
                        type="text"
                        inputmode="decimal"
                        size="8"
                        data-testid="check-number"
                        aria-label=format!("Your answer to question {n}")
                        on:input=move |ev| typed.set(event_target_value(&ev))
                    />
                    <button type="submit" class="al-quiz-choice" data-testid="check-submit">
                        "Check"
                    </button>
                </form>
            }
            .into_any()
        }
    };
    view! {
        <li class="al-quiz" data-testid="check-question">
            <p class="al-check-question">{question.question}</p>
            <div class="al-quiz-inputs">{inputs}</div>
            <p
                class="al-quiz-reveal"
                class:al-right=move || verdict.with(|v| v.as_ref().is_some_and(|v| v.right))
                data-testid="check-verdict"
                aria-live="polite"
                hidden=move || verdict.with(Option::is_none)
            >
                {move || verdict.with(|v| v.as_ref().map(|v| v.text.clone()).unwrap_or_default())}
            </p>
        </li>
    }
}

/// The lesson's check-yourself questions, in order.
#[component]
pub fn CheckYourself(
    /// The questions.
    questions: Vec<CheckQuestion>,
) -> impl IntoView {
    let items = questions
        .into_iter()
        .enumerate()
        .map(|(i, question)| view! { <CheckItem question=question n=i + 1 /> })
        .collect_view();
    view! {
        <TitledSection
            class="al-check-yourself"
            testid="check-yourself"
            title_id="al-check-title"
            title="Check yourself"
        >
            <p class="al-hint">
                "New numbers, not the lesson's: answer from the rule, then check. Nothing here changes the lesson."
            </p>
            <ol class="al-check-list">{items}</ol>
        </TitledSection>
    }
}
