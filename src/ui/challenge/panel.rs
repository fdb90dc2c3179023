//! Challenges mode: the list of challenges and the open one's panel (story, goal line
//! checked live on the engine's trace, editors for the editable parts, hints one at a
//! time, the worked solution, progress kept in `localStorage`, import and share).
//!
//! The numbers come from the engine's trace ([`crate::engine::run`] on the challenge's own
//! small scenario); whether the goal is met is [`challenges::Goal::check`]'s answer.

use leptos::prelude::*;

use crate::challenges::{self, builtin, induction, Challenge};
use crate::engine::{Scenario, Trace};

use crate::ui::challenge::editors::ChallengeEditors;
use crate::ui::challenge::induction::InductionChallenge;
use crate::ui::challenge::text::{
    by_hand_title, edit_words, solved_ids, training_item, why_it_works, LIST_TITLE,
};
use crate::ui::challenge::weights::ChallengeWeights;
use crate::ui::platform::first_paint;
use crate::ui::widgets::hints::{HintList, NextHintButton};

/// The `localStorage` key of the solved challenges' ids, one line each.
const STORAGE_KEY: &str = "attention-lens-solved";

fn storage() -> Option<web_sys::Storage> {
    web_sys::window()?.local_storage().ok().flatten()
}

/// The solved ids on this device (none when storage is unavailable).
fn load_solved() -> Vec<String> {
    storage().and_then(|s| s.get_item(STORAGE_KEY).ok().flatten()).map(|t| solved_ids(&t)).unwrap_or_default()
}

fn save_solved(ids: &[String]) {
    if let Some(s) = storage() {
        let _ = if ids.is_empty() {
            s.remove_item(STORAGE_KEY)
        } else {
            s.set_item(STORAGE_KEY, &ids.join("\n"))
        };
    }
}

/// Challenges mode. `open` is the open challenge's id (`?challenge=ID`); `imported` an
/// imported challenge (from JSON or a `#c=` link).
#[component]
pub fn ChallengeMode(
    /// The open challenge's id (`Some("")`: the list only).
    open: RwSignal<Option<String>>,
    /// A challenge imported as JSON or from a `#c=` link.
    imported: RwSignal<Option<Challenge>>,
) -> impl IntoView {
    let solved = RwSignal::new(load_solved());
    let challenge = Memo::new(move |_| {
        let id = open.get()?;
        imported.with(|c| c.clone().filter(|c| c.id == id)).or_else(|| builtin::by_id(&id))
    });
    let scenario = RwSignal::new(None::<Scenario>);
    let hints_shown = RwSignal::new(0usize);
    let show_solution = RwSignal::new(false);
    // Bumped when the editors must show the scenario afresh (a new challenge, "start
    // again"); an edit does not redraw them, so the focus stays where the learner is.
    let generation = RwSignal::new(0u32);
    Effect::new(move |_| {
        scenario.set(challenge.get().map(|c| c.scenario));
        hints_shown.set(0);
        show_solution.set(false);
        generation.update(|g| *g += 1);
    });
    let trace = Memo::new(move |_| scenario.get().map(|s| crate::engine::run(&s).map_err(|e| e.to_string())));
    let progress = Memo::new(move |_| {
        let c = challenge.get()?;
        trace.with(|t| match t {
            Some(Ok(t)) => Some(c.goal.check(t)),
            Some(Err(e)) => Some(challenges::Progress {
                met: false,
                measured: f64::NAN,
                asked: f64::NAN,
                words: e.clone(),
                quoted: Vec::new(),
            }),
            None => None,
        })
    });
    let met = move || progress.with(|p| p.as_ref().is_some_and(|p| p.met));
    Effect::new(move |_| {
        if met() {
            if let Some(id) = open.get_untracked() {
                if !solved.with_untracked(|s| s.contains(&id)) {
                    solved.update(|s| s.push(id));
                    solved.with_untracked(|s| save_solved(s));
                }
            }
        }
    });
    // a <main>: the page's main landmark in this mode (the explorer's is not built here)
    view! {
        <main class="al-challenges" data-testid="challenges">
            <ChallengeList open=open solved=solved imported=imported />
            {move || {
                challenge
                    .get()
                    .map(|c| {
                        view! {
                            <OpenChallenge
                                c=c
                                scenario=scenario
                                trace=trace
                                generation=generation
                                progress=progress
                                hints_shown=hints_shown
                                show_solution=show_solution
                            />
                        }
                    })
            }}
            {move || {
                (open.get().as_deref() == Some(induction::ID)).then(|| view! { <InductionChallenge /> })
            }}
            {move || {
                open.get()
                    .is_some_and(|id| challenge.get().is_none() && !id.is_empty() && id != induction::ID)
                    .then(|| {
                        view! {
                            <p class="al-notice" data-testid="notice">
                                "This challenge does not exist; pick one from the list."
                            </p>
                        }
                    })
            }}
        </main>
    }
}

/// The list of challenges, each marked when solved, "Clear my progress" and the import.
/// Opens challenge `id`. On a phone the open challenge sits above the list (challenges.css),
/// so once it is drawn the page scrolls up to it when the learner had scrolled past it.
fn pick(open: RwSignal<Option<String>>, id: String) {
    open.set(Some(id));
    set_timeout(
        || crate::ui::platform::screen::scroll_into_view_if_above(".al-challenges > .al-challenge"),
        std::time::Duration::ZERO,
    );
}

#[component]
fn ChallengeList(
    /// The open challenge's id.
    open: RwSignal<Option<String>>,
    /// The solved challenges' ids.
    solved: RwSignal<Vec<String>>,
    /// A challenge imported as JSON.
    imported: RwSignal<Option<Challenge>>,
) -> impl IntoView {
    let list = builtin::all();
    let list_len = list.len();
    let items = list
        .into_iter()
        .map(|c| {
            let id = c.id.clone();
            let id2 = id.clone();
            let id3 = id.clone();
            view! {
                <li>
                    <button
                        type="button"
                        class="al-tab"
                        data-testid="challenge-item"
                        data-id=id.clone()
                        class:al-selected=move || open.get().as_deref() == Some(id2.as_str())
                        on:click=move |_| pick(open, id.clone())
                    >
                        {c.title.clone()}
                        {move || {
                            solved
                                .with(|s| s.contains(&id3))
                                .then(|| view! { <span class="al-solved">" ✓ solved"</span> })
                        }}
                    </button>
                </li>
            }
        })
        .collect_view();
    // the two-layer challenge has a panel of its own, numbered after the built-in ones
    // (whose titles carry their numbers)
    let by_hand = view! {
        <li>
            <button
                type="button"
                class="al-tab"
                data-testid="challenge-item"
                data-id=induction::ID
                class:al-selected=move || open.get().as_deref() == Some(induction::ID)
                on:click=move |_| pick(open, induction::ID.to_string())
            >
                {by_hand_title(list_len)}
            </button>
        </li>
    };
    // the training challenges are played in the Learn view (a link: it opens that view)
    // numbered after the built-in ones and the two-layer one
    let training = crate::challenges::training::all()
        .into_iter()
        .enumerate()
        .map(|(i, c)| {
            let (title, href) = training_item(list_len, i, &c);
            view! {
                <li>
                    <a class="al-tab" data-testid="challenge-training" data-id=c.id href=href>
                        {title}
                    </a>
                </li>
            }
        })
        .collect_view();

    view! {
        <nav class="al-challenge-list" aria-label="Challenges">
            <h2>{LIST_TITLE}</h2>
            <ol>{items} {by_hand} {training}</ol>
            <button
                type="button"
                data-testid="challenge-clear"
                on:click=move |_| {
                    solved.set(Vec::new());
                    save_solved(&[]);
                }
            >
                "Clear my progress"
            </button>
            <ChallengeImport open=open imported=imported />
        </nav>
    }
}

/// "Import a challenge (JSON)": a text area, a button that opens the challenge, and the
/// reason when the JSON is not a challenge.
#[component]
fn ChallengeImport(
    /// The open challenge's id.
    open: RwSignal<Option<String>>,
    /// Where an imported challenge goes.
    imported: RwSignal<Option<Challenge>>,
) -> impl IntoView {
    let import_text = RwSignal::new(String::new());
    let import_error = RwSignal::new(None::<String>);
    view! {
        <details class="al-fold">
            <summary>"Import a challenge (JSON)"</summary>
            <label for="al-challenge-json">"Challenge JSON (see the README)"</label>
            <textarea
                id="al-challenge-json"
                data-testid="challenge-import"
                rows="6"
                prop:value=move || import_text.get()
                on:input=move |ev| import_text.set(event_target_value(&ev))
            ></textarea>
            <button
                type="button"
                data-testid="challenge-import-go"
                on:click=move |_| {
                    match Challenge::from_json(&import_text.get_untracked()) {
                        Ok(c) => {
                            import_error.set(None);
                            let id = c.id.clone();
                            imported.set(Some(c));
                            pick(open, id);
                        }
                        Err(e) => import_error.set(Some(e)),
                    }
                }
            >
                "Import"
            </button>
            {move || {
                import_error
                    .get()
                    .map(|e| {
                        view! {
                            <p class="al-error" role="alert" data-testid="challenge-import-error">
                                {e}
                            </p>
                        }
                    })
            }}
        </details>
    }
}

/// The open challenge: story, the goal checked live, its editors and weights, and why
/// the solution works once the goal is met.
#[component]
fn OpenChallenge(
    /// The open challenge.
    c: Challenge,
    /// The learner's scenario (the challenge's, edited).
    scenario: RwSignal<Option<Scenario>>,
    /// The engine's trace of `scenario`, or its error.
    trace: Memo<Option<Result<Trace, String>>>,
    /// Bumped when the editors must show the scenario afresh.
    generation: RwSignal<u32>,
    /// How close the trace is to the goal.
    progress: Memo<Option<challenges::Progress>>,
    /// How many hints are shown.
    hints_shown: RwSignal<usize>,
    /// Whether "Show the solution" was pressed.
    show_solution: RwSignal<bool>,
) -> impl IntoView {
    let met = Signal::derive(move || progress.with(|p| p.as_ref().is_some_and(|p| p.met)));
    let goal_text = c.goal.describe();
    let goal_for_why = c.goal.clone();
    // the story index.html painted first (a challenge link), taken over in place; when
    // another challenge is opened the panel is built again over the same nodes, and
    // `settle` puts the app's node, now holding the new story, back in place of the kept one
    let story = NodeRef::<leptos::html::P>::new();
    Effect::new(move |_| {
        if let Some(p) = story.get() {
            first_paint::settle();
            first_paint::adopt("challenge-story", &p);
        }
    });
    view! {
        <section class="al-challenge" data-testid="challenge" aria-labelledby="al-challenge-title">
            <h2 id="al-challenge-title">{c.title.clone()}</h2>
            <p class="al-challenge-story" data-testid="challenge-story" node_ref=story>
                {c.story.clone()}
            </p>
            <p
                class="al-challenge-goal"
                data-testid="challenge-goal"
                aria-live="polite"
                data-met=move || if met.get() { "true" } else { "false" }
            >
                <strong>{move || if met.get() { "Goal met: " } else { "Goal: " }}</strong>
                {goal_text}
                <br />
                <span data-testid="challenge-progress">
                    {move || progress.with(|p| p.as_ref().map(|p| p.words.clone()))}
                </span>
            </p>
            <ChallengeEditors c=c.clone() scenario=scenario trace=trace generation=generation />
            <ChallengeWeights goal=c.goal.clone() trace=trace progress=progress />
            {move || {
                met.get()
                    .then(|| {
                        trace
                            .with(|t| {
                                t.as_ref()
                                    .and_then(|t| t.as_ref().ok())
                                    .and_then(|t| why_it_works(&goal_for_why, t))
                            })
                            .map(|w| {
                                view! {
                                    <p class="al-challenge-why" data-testid="challenge-why">
                                        {w}
                                    </p>
                                }
                            })
                    })
            }}
            <ChallengeHelp
                c=c.clone()
                scenario=scenario
                generation=generation
                hints_shown=hints_shown
                show_solution=show_solution
                met=met
            />
        </section>
    }
}

/// Hints one at a time, the worked solution, "Start again", and the share link of an
/// imported challenge.
#[component]
fn ChallengeHelp(
    /// The open challenge.
    c: Challenge,
    /// The learner's scenario (the challenge's, edited).
    scenario: RwSignal<Option<Scenario>>,
    /// Bumped when the editors must show the scenario afresh.
    generation: RwSignal<u32>,
    /// How many hints are shown.
    hints_shown: RwSignal<usize>,
    /// Whether "Show the solution" was pressed.
    show_solution: RwSignal<bool>,
    /// Whether the goal is met.
    met: Signal<bool>,
) -> impl IntoView {
    let hints = c.hints.clone();
    let n_hints = hints.len();
    let solution = c.solution.iter().map(edit_words).collect::<Vec<_>>();
    let why = c.why.clone();
    let share = challenges::link_fragment(&c);
    let builtin_id = builtin::by_id(&c.id).is_some();
    view! {
        <div class="al-challenge-help">
            <HintList hints shown=hints_shown testid="challenge-hint" />
            <NextHintButton n=n_hints shown=hints_shown testid="challenge-next-hint" />
            <button
                type="button"
                data-testid="challenge-show-solution"
                on:click=move |_| show_solution.set(true)
            >
                "Show the solution"
            </button>
            <button
                type="button"
                data-testid="challenge-reset"
                on:click={
                    let s0 = c.scenario.clone();
                    move |_| {
                        scenario.set(Some(s0.clone()));
                        generation.update(|g| *g += 1);
                    }
                }
            >
                "Start again"
            </button>
            {move || {
                (show_solution.get() || met.get())
                    .then(|| {
                        view! {
                            <div class="al-challenge-solution" data-testid="challenge-solution">
                                <p>
                                    <strong>"A worked solution: "</strong>
                                    {solution.join("; ")}
                                </p>
                                <p>{why.clone()}</p>
                            </div>
                        }
                    })
            }}
            {(!builtin_id)
                .then(|| {
                    view! {
                        <p class="al-note">
                            "Share this challenge: " <a data-testid="challenge-share" href=share.clone()>
                                "link"
                            </a>
                        </p>
                    }
                })}
        </div>
    }
}
