//! The root component: the signals, the one memo that runs the engine (made by
//! [`crate::ui::state::engine_run`]), the URL effect, and the layout. Every part of the page is a
//! component of its own (header, lesson stage, challenges, first screen, notices,
//! explorer) that reads [`AppState`]. Nothing here computes attention.

use std::sync::Arc;

use leptos::prelude::*;

use crate::lessons;

use crate::ui::app::header::Header;
use crate::ui::app::notices::{ComputingNote, Notices};
use crate::ui::challenge::challenge_panel::ChallengeMode;
use crate::ui::explain::explained::Explained;
use crate::ui::explorer::first_screen::FirstScreen;
use crate::ui::explorer::tensors::EmbedView;
use crate::ui::explorer::view::Explorer;
use crate::ui::heatmap::highlight::Highlights;
use crate::ui::heatmap::matrix_table::TablesOpen;
use crate::ui::learn::learn_settings::LearnSettings;
use crate::ui::learn::learn_view::LearnView;
use crate::ui::lesson::lesson_open::{self, find_lesson, is_edited};
use crate::ui::lesson::lesson_stage::LessonStage;
use crate::ui::platform::{address, screen};
use crate::ui::state::app_state::AppState;
use crate::ui::state::engine_run::{engine_run, last_good_trace, send_to_worker};
use crate::ui::state::engine_worker;
use crate::ui::state::url;
use crate::ui::widgets::later::{self, Later};

/// The whole page.
#[component]
pub fn App() -> impl IntoView {
    let all_lessons = Arc::new(lessons::lessons());
    // The lesson and the display modes are read here; the rest is the explorer's state.
    let (page, pairs) = url::PageParams::split(address::query_pairs());
    // presenter mode: one lesson step per screen; embed mode: only the selected figure
    let present = RwSignal::new(page.present);
    let embed = page.embed;
    let engine_mode = page.engine;
    let (mut text0, mut settings0, view0, mut url_notices) = url::from_query(&pairs);
    // A whole scenario in the fragment (imported numbers) replaces what the query says.
    match url::from_fragment(&address::fragment()) {
        Some(Ok((t, s))) => (text0, settings0) = (t, s),
        Some(Err(e)) => url_notices.push(format!("{e}; the link's other settings are shown instead.")),
        None => {}
    }
    let text = RwSignal::new(text0);
    let settings = RwSignal::new(settings0);
    let view_state = RwSignal::new(view0);
    let import_error = RwSignal::new(None::<String>);
    // Why the address bar cannot hold this scenario (too large for a link), if it cannot.
    let link_problem = RwSignal::new(None::<String>);
    let lesson = RwSignal::new(None::<(usize, usize)>);
    // Challenges mode (src/ui/challenge/challenge_panel.rs): the open challenge's id, and a challenge
    // imported as JSON or carried whole by a `#c=` link.
    let challenge = RwSignal::new(page.challenge.clone());
    let imported = RwSignal::new(None::<crate::challenges::Challenge>);
    match crate::challenges::from_link_fragment(&address::fragment()) {
        Some(Ok(c)) => {
            challenge.set(Some(c.id.clone()));
            imported.set(Some(c));
        }
        Some(Err(e)) => url_notices.push(e),
        None => {}
    }
    provide_context(TablesOpen(RwSignal::new(false)));
    // The Learn view (src/ui/learn): open when the link says `learn=…`, with its settings.
    let learn = RwSignal::new(page.learn.is_some());
    let learn_settings = RwSignal::new({
        let (s, notices) = LearnSettings::from_pairs(page.learn.as_deref().unwrap_or_default());
        url_notices.extend(notices);
        s
    });
    let first_lesson_title = all_lessons.first().map_or("", |l| l.title);

    // Entering a lesson step sets the explorer's inputs to that step's scenario; the
    // learner can then edit them, and the lesson's words follow the live trace.
    // Opens step s of lesson l. Within a lesson, the learner's edits to its vectors go along
    // (Back and Next keep them); `fresh` drops them ("Reset this lesson").
    let open_step = {
        let all_lessons = all_lessons.clone();
        move |at: (usize, usize), fresh: bool| {
            let opened = settings.with_untracked(|st| {
                lesson_open::open_step(&all_lessons, lesson.get_untracked(), st, at, fresh)
            });
            let Some(opened) = opened else { return };
            settings.set(opened.settings);
            text.set(opened.text);
            view_state.update(|v| {
                v.step = opened.focus;
                v.batch = opened.batch;
            });
            lesson.set(Some(at));
        }
    };
    let go_to_lesson = {
        let open_step = open_step.clone();
        move |at: (usize, usize)| open_step(at, false)
    };
    // True while the open step's vectors differ from the lesson's own: "Reset this lesson".
    let edited = {
        let all_lessons = all_lessons.clone();
        Memo::new(move |_| {
            let Some(at) = lesson.get() else { return false };
            settings.with(|st| is_edited(&all_lessons, at, st))
        })
    };
    let on_reset = Callback::new(move |()| {
        if let Some(at) = lesson.get_untracked() {
            open_step(at, true)
        }
    });
    if let Some((id, n)) = page.lesson {
        match find_lesson(&all_lessons, &id, n) {
            Ok(at) => go_to_lesson(at),
            Err(notice) => url_notices.push(notice),
        }
    }
    if present.get_untracked() && lesson.get_untracked().is_none() {
        go_to_lesson((0, 0));
    }
    let on_go = Callback::new(go_to_lesson.clone());
    let on_exit = Callback::new(move |()| lesson.set(None));

    // The one place the engine runs: here, or for large inputs in the engine worker
    // (engine_worker.rs), whose answer comes back through `channel`. While it computes,
    // the last picture stays, marked as computing.
    let channel = engine_worker::Channel::new();
    let run = engine_run(text, settings, engine_mode, channel);
    send_to_worker(run, engine_mode, channel);
    let computing = Memo::new(move |_| run.with(|r| r.computing));
    // The last trace that ran without error stays on screen, marked stale, under an error.
    let shown = last_good_trace(run);
    // One explanation panel per page: the explained cell and its explanation.
    provide_context(Explained::new(shown));
    // The heatmaps are laid out for the window's width, again whenever it changes.
    let viewport = RwSignal::new(screen::viewport_width());
    let viewport_height = RwSignal::new(screen::viewport_height());
    let resize = window_event_listener(leptos::ev::resize, move |_| {
        viewport.set(screen::viewport_width());
        viewport_height.set(screen::viewport_height());
    });
    on_cleanup(move || resize.remove());

    let state = AppState {
        text,
        settings,
        view: view_state,
        import_error,
        lesson,
        run,
        shown,
        viewport,
        viewport_height,
    };
    // The open lesson step's highlighted cells, from the live trace.
    {
        let all_lessons = all_lessons.clone();
        let cells = Signal::derive(move || {
            let Some((l, s)) = lesson.get() else { return Vec::new() };
            let Some(step) = all_lessons.get(l).and_then(|x| x.steps.get(s)) else { return Vec::new() };
            shown.with(|t| t.as_ref().map(|t| (step.highlight)(t)).unwrap_or_default())
        });
        provide_context(Highlights(cells));
    }
    let error = state.error();
    let stale = move || error.get().is_some() && shown.get().is_some();

    // Live state goes into the URL (replacing, not pushing, history entries).
    {
        let all_lessons = all_lessons.clone();
        Effect::new(move |_| {
            let mut q = text.with(|t| settings.with(|s| view_state.with(|v| url::to_query(t, s, v))));
            let open =
                lesson.get().and_then(|(l, s)| all_lessons.get(l).map(|found| (found.id.to_string(), s)));
            url::PageParams {
                lesson: open,
                present: present.get(),
                embed,
                engine: engine_mode,
                challenge: challenge.get(),
                learn: learn.get().then(|| learn_settings.with(LearnSettings::to_pairs)),
            }
            .push_to(&mut q);
            let fragment = match imported.get().filter(|c| challenge.get().as_deref() == Some(c.id.as_str()))
            {
                Some(c) => Ok(crate::challenges::link_fragment(&c)),
                None => text.with(|t| settings.with(|s| url::fragment(t, s))),
            };
            link_problem.set(fragment.as_ref().err().map(ToString::to_string));
            address::replace_query(&q, fragment.as_deref().unwrap_or(""));
        });
    }
    if embed {
        return view! {
            <div class="al-app al-embed" class:al-stale=stale class:al-computing=move || computing.get()>
                <ComputingNote computing=computing />
                <EmbedView state=state />
                <div data-testid="app-ready" hidden=true></div>
            </div>
        }
        .into_any();
    }

    view! {
        <div
            class="al-app"
            class:al-stale=stale
            class:al-computing=move || computing.get()
            class:al-present=move || present.get()
        >
            <Header present=present lesson=lesson challenge=challenge on_go=on_go learn=learn />
            {move || {
                learn.get().then(|| view! { <LearnView settings=learn_settings viewport=viewport /> })
            }}
            {
                let all_lessons = all_lessons.clone();
                let open_lesson = Memo::new(move |_| {
                    lesson.get().filter(|_| challenge.get().is_none()).map(|(l, _)| l)
                });
                move || {
                    open_lesson
                        .get()
                        .and_then(|l| {
                            all_lessons.get(l)?;
                            Some(
                                // the open lesson, not its step: a step of the same lesson is the stage's
                                // to show, without building the stage again
                                view! {
                                    <LessonStage
                                        state=state
                                        all_lessons=all_lessons.clone()
                                        l=l
                                        on_go=on_go
                                        on_exit=on_exit
                                        edited=edited
                                        on_reset=on_reset
                                        present=present
                                    />
                                },
                            )
                        })
                }
            }

            {
                let in_challenges = Memo::new(move |_| challenge.get().is_some());
                move || {
                    in_challenges
                        .get()
                        .then(|| {
                            // one ChallengeMode while in the mode (switching challenges does not rebuild it)
                            view! { <ChallengeMode open=challenge imported=imported /> }
                        })
                }
            }
            {move || {
                (lesson.get().is_none() && challenge.get().is_none() && !learn.get())
                    .then(|| {
                        view! {
                            <FirstScreen state=state first_lesson_title=first_lesson_title on_go=on_go />
                        }
                    })
            }}

            <Notices
                url_notices=url_notices
                run=run
                link_problem=link_problem
                computing=computing
                stale=Signal::derive(stale)
                error=error
            />

            // in a lesson, the explorer under it is built in a later task than the lesson
            {
                let in_lesson = Memo::new(move |_| lesson.with(Option::is_some));
                move || {
                    (!present.get() && challenge.get().is_none() && !learn.get())
                        .then(|| {
                            if in_lesson.get() {
                                view! {
                                    <Later tasks=3>
                                        <Explorer state=state in_lesson=true />
                                    </Later>
                                }
                                    .into_any()
                            } else {
                                view! { <Explorer state=state in_lesson=false /> }.into_any()
                            }
                        })
                }
            }
            // ready when every part built later is
            <Later tasks=4>
                {
                    later::settle();
                    view! { <div data-testid="app-ready" hidden=true></div> }
                }
            </Later>
        </div>
    }
    .into_any()
}
