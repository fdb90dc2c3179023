//! A training challenge in the Learn view (`learn_challenge=ID`,
//! `crate::challenges::training`): its story, the goal judged on every answer the worker
//! sends ([`TrainingChallenge::judge`] on the probe accuracy it reports), hints one at a
//! time, why a solution works once the goal is met, "Start again" and "Leave the
//! challenge". Outside a challenge, one line offers each.

use leptos::prelude::*;

use crate::challenges::training::{self, Reading, TrainingChallenge};

use crate::ui::learn::run::LearnRun;
use crate::ui::learn::settings::LearnSettings;
use crate::ui::widgets::hints::{HintList, NextHintButton};

/// The challenge being played, or the offer of one.
#[component]
pub fn ChallengeBar(
    /// The training run.
    run: LearnRun,
) -> impl IntoView {
    let settings = run.settings;
    // the worker's answers in this run: (steps done, probe accuracy); a new run's first
    // answer (step 0) starts the list again
    let readings = RwSignal::new(Vec::<Reading>::new());
    Effect::new(move |_| {
        let accuracy = run.probe.with(|p| p.as_ref().map(|p| p.accuracy));
        let steps_done = run.steps_done.get_untracked();
        match accuracy {
            None => readings.set(Vec::new()),
            Some(accuracy) => readings.update(|r| {
                if steps_done == 0 {
                    r.clear();
                }
                r.push(Reading { steps_done, accuracy });
            }),
        }
    });
    let challenge = Memo::new(move |_| settings.with(LearnSettings::training_challenge));
    view! {
        {move || match challenge.get() {
            Some(c) => view! { <OpenTrainingChallenge run c readings /> }.into_any(),
            None => view! { <ChallengeOffer run /> }.into_any(),
        }}
    }
}

/// "Challenge: …" buttons that start each training challenge on the task being trained
/// (none on a task no challenge is about).
#[component]
fn ChallengeOffer(run: LearnRun) -> impl IntoView {
    let task = Memo::new(move |_| run.settings.with(|s| s.task));
    move || {
        training::on_task(task.get())
            .into_iter()
            .map(|c| {
                let id = c.id;
                view! {
                    <p class="al-learn-offer">
                        "Challenge: "
                        <button
                            type="button"
                            data-testid="learn-challenge-start"
                            data-id=id
                            on:click=move |_| {
                                if let Some(c) = training::by_id(id) {
                                    run.settings.set(LearnSettings::for_challenge(&c));
                                    run.reset();
                                }
                            }
                        >
                            {c.title}
                        </button>
                    </p>
                }
            })
            .collect_view()
    }
}

/// The open challenge: story, goal and progress, hints, why, start again and leave.
#[component]
fn OpenTrainingChallenge(
    /// The training run.
    run: LearnRun,
    /// The challenge.
    c: TrainingChallenge,
    /// The worker's answers in this run.
    readings: RwSignal<Vec<Reading>>,
) -> impl IntoView {
    let settings = run.settings;
    let judged = {
        let c = c.clone();
        Memo::new(move |_| c.judge(&settings.with(LearnSettings::config), &readings.read()))
    };
    let met = move || judged.with(|p| p.met);
    let hints_shown = RwSignal::new(0usize);
    let hints = c.hints;
    let n_hints = hints.len();
    let restart = c.clone();
    view! {
        <section
            class="al-challenge al-learn-challenge"
            data-testid="learn-challenge"
            aria-labelledby="al-learn-challenge-title"
        >
            <h3 id="al-learn-challenge-title">{crate::challenges::training::heading(&c)}</h3>
            <p class="al-challenge-story">{c.story}</p>
            <p
                class="al-challenge-goal"
                data-testid="learn-challenge-goal"
                aria-live="polite"
                data-met=move || met().to_string()
            >
                <strong>{move || if met() { "Goal met: " } else { "Goal: " }}</strong>
                {c.describe()}
                <br />
                <span data-testid="learn-challenge-progress">{move || judged.with(|p| p.words.clone())}</span>
            </p>
            <HintList
                hints=hints.map(str::to_owned).to_vec()
                shown=hints_shown
                testid="learn-challenge-hint"
            />
            {move || {
                met()
                    .then(|| {
                        view! {
                            <p class="al-challenge-why" data-testid="learn-challenge-why">
                                {c.why}
                            </p>
                        }
                    })
            }}
            <div class="al-challenge-help">
                <NextHintButton n=n_hints shown=hints_shown testid="learn-challenge-hint-next" />
                <button
                    type="button"
                    data-testid="learn-challenge-restart"
                    on:click=move |_| {
                        settings.set(LearnSettings::for_challenge(&restart));
                        run.reset();
                    }
                >
                    "Start again"
                </button>
                <button
                    type="button"
                    data-testid="learn-challenge-leave"
                    on:click=move |_| {
                        settings.update(|s| *s = LearnSettings::preset(s.task));
                        run.reset();
                    }
                >
                    "Leave the challenge"
                </button>
            </div>
        </section>
    }
}
