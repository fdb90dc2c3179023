//! The root component: the signals, the one memo that runs the engine (made by
//! [`crate::ui::state::engine::run`]), and the layout. Opening lessons is
//! [`super::lesson_nav`], the address bar [`super::address_sync`], the modes under the
//! header [`super::modes`]. Every part of the page is a component of its own (header,
//! lesson stage, challenges, first screen, notices, explorer) that reads [`AppState`].
//! Nothing here computes attention.

use std::sync::Arc;

use leptos::prelude::*;

use crate::engine::Trace;
use crate::lessons::{self, Lesson, LessonStep};

use crate::ui::app::address_sync::{sync_address, Address};
use crate::ui::app::header::Header;
use crate::ui::app::lesson_nav::LessonNav;
use crate::ui::app::modes::{ExplorerBelow, Modes};
use crate::ui::app::notices::{ComputingNote, Notices};
use crate::ui::explain::explained::Explained;
use crate::ui::explorer::embed::EmbedView;
use crate::ui::explorer::tensors::SharedRange;
use crate::ui::explorer::view::controls_title;
use crate::ui::heatmap::highlight::Highlights;
use crate::ui::heatmap::matrix_table::TablesOpen;
use crate::ui::learn::settings::LearnSettings;
use crate::ui::lesson::aside::embed_aside;
use crate::ui::lesson::open::find_lesson;
use crate::ui::lesson::stage::replacing_picture;
use crate::ui::platform::{address, screen};
use crate::ui::state::app_state::AppState;
use crate::ui::state::engine::run::{engine_run, last_good_trace, send_to_worker};
use crate::ui::state::engine::worker;
use crate::ui::state::page_layout::presenter_zoom;
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
    let (text0, settings0, view0, mut url_notices) = url::explorer_from(&pairs, &address::fragment());
    let text = RwSignal::new(text0);
    let settings = RwSignal::new(settings0);
    let view_state = RwSignal::new(view0);
    let import_error = RwSignal::new(None::<String>);
    // Why the address bar cannot hold this scenario (too large for a link), if it cannot.
    let link_problem = RwSignal::new(None::<String>);
    let lesson = RwSignal::new(None::<(usize, usize)>);
    let (challenge, imported) = challenge_from_link(page.challenge.clone(), &mut url_notices);
    provide_context(TablesOpen(RwSignal::new(false)));
    let (learn, learn_settings) = learn_from_link(page.learn.as_deref(), &mut url_notices);

    let nav = LessonNav::new(all_lessons.clone(), text, settings, view_state, lesson);
    if let Some((id, n)) = page.lesson {
        match find_lesson(&all_lessons, &id, n, present.get_untracked()) {
            Ok(at) => nav.on_go.run(at),
            Err(notice) => url_notices.push(notice),
        }
    }
    if present.get_untracked() && lesson.get_untracked().is_none() {
        nav.on_go.run((0, 0));
    }

    // The one place the engine runs: here, or for large inputs in the engine worker
    // (state/engine/worker.rs), whose answer comes back through `channel`. While it computes,
    // the last picture stays, marked as computing.
    let channel = worker::Channel::new();
    let run = engine_run(text, settings, engine_mode, channel);
    send_to_worker(run, engine_mode, channel);
    let computing = Memo::new(move |_| run.with(|r| r.computing));
    // The last trace that ran without error stays on screen, marked stale, under an error.
    let shown = last_good_trace(run);
    // One explanation panel per page: the explained cell and its explanation.
    provide_context(Explained::new(shown));
    let (viewport, viewport_height, zoom) = laid_out_size(present);

    let state = AppState {
        text,
        settings,
        view: view_state,
        import_error,
        typing_error: RwSignal::new(None),
        lesson,
        run,
        shown,
        viewport,
        viewport_height,
    };
    provide_highlights(all_lessons.clone(), lesson, shown);
    let error = state.error();
    let stale = state.stale();

    sync_address(Address {
        all_lessons: all_lessons.clone(),
        text,
        settings,
        view: view_state,
        lesson,
        present,
        embed,
        engine: engine_mode,
        challenge,
        imported,
        link_problem,
        learn,
        learn_settings,
    });
    if embed {
        return view! {
            <div
                class="al-app al-embed"
                class:al-stale=move || stale.get()
                class:al-computing=move || computing.get()
            >
                <ComputingNote computing=computing />
                <EmbedView
                    state=state
                    lessons=all_lessons.clone()
                    replacing=replacing_picture
                    aside=embed_aside
                />
                <div data-testid="app-ready" hidden=true></div>
            </div>
        }
        .into_any();
    }

    let all_lessons_below = all_lessons.clone();
    view! {
        <div
            class="al-app"
            class:al-stale=move || stale.get()
            class:al-computing=move || computing.get()
            class:al-present=move || present.get()
            style=move || {
                Some(zoom.get()).filter(|z| *z != 1.0).map(|z| format!("zoom: {z}; --al-zoom: {z}"))
            }
        >
            <Header present=present lesson=lesson challenge=challenge on_go=nav.on_go learn=learn />
            <Modes
                state=state
                all_lessons=all_lessons
                nav=nav
                present=present
                challenge=challenge
                imported=imported
                learn=learn
                learn_settings=learn_settings
            />

            <Notices
                url_notices=url_notices
                run=run
                link_problem=link_problem
                computing=computing
                stale=stale
                error=error
                nothing_drawn=Signal::derive(move || {
                    shown.with(Option::is_none) && challenge.with(Option::is_none) && !learn.get()
                        && !present.get()
                })
                controls_title=Signal::derive(move || controls_title(lesson.with(Option::is_some)))
            />

            <ExplorerBelow
                state=state
                all_lessons=all_lessons_below
                present=present
                challenge=challenge
                learn=learn
            />
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

/// Challenges mode (src/ui/challenge/panel.rs): the open challenge's id, and a challenge
/// imported as JSON or carried whole by a `#c=` link (what it cannot read becomes a notice).
fn challenge_from_link(
    id: Option<String>,
    notices: &mut Vec<String>,
) -> (RwSignal<Option<String>>, RwSignal<Option<crate::challenges::Challenge>>) {
    let challenge = RwSignal::new(id);
    let imported = RwSignal::new(None::<crate::challenges::Challenge>);
    match crate::challenges::from_link_fragment(&address::fragment()) {
        Some(Ok(c)) => {
            challenge.set(Some(c.id.clone()));
            imported.set(Some(c));
        }
        Some(Err(e)) => notices.push(e),
        None => {}
    }
    (challenge, imported)
}

/// The Learn view (src/ui/learn): open when the link says `learn=…`, with the settings
/// the link gives (what it cannot read becomes a notice).
fn learn_from_link(
    pairs: Option<&[(&'static str, String)]>,
    notices: &mut Vec<String>,
) -> (RwSignal<bool>, RwSignal<LearnSettings>) {
    let (settings, problems) = LearnSettings::from_pairs(pairs.unwrap_or_default());
    notices.extend(problems);
    (RwSignal::new(pairs.is_some()), RwSignal::new(settings))
}

/// The open lesson step's highlighted cells, from the live trace, and the steps it draws
/// in one colour range, for every card.
fn provide_highlights(
    all_lessons: Arc<Vec<Lesson>>,
    lesson: RwSignal<Option<(usize, usize)>>,
    shown: Memo<Option<Arc<Trace>>>,
) {
    let lessons = all_lessons.clone();
    let cells = Signal::derive(move || {
        let Some(step) = step_at(&lessons, lesson.get()) else { return Vec::new() };
        shown.with(|t| t.as_ref().map(|t| step.highlight_for(t)).unwrap_or_default())
    });
    provide_context(Highlights(cells));
    // ... and the steps whose maps it draws in one colour range
    let ranged: Signal<&'static [crate::engine::StepName]> =
        Signal::derive(move || step_at(&all_lessons, lesson.get()).map_or(&[][..], |step| step.shared_range));
    provide_context(SharedRange(ranged));
}

/// The step open at `at` (lesson, step), if there is one.
fn step_at(lessons: &[Lesson], at: Option<(usize, usize)>) -> Option<&LessonStep> {
    let (l, s) = at?;
    lessons.get(l)?.steps.get(s)
}

/// The window's size in the layout's CSS px (`viewport`, `viewport_height`), again whenever
/// it changes, and the page's CSS zoom: presenter mode on a large screen lays the page out
/// for a smaller one and draws it larger ([`presenter_zoom`]).
fn laid_out_size(present: RwSignal<bool>) -> (RwSignal<f64>, RwSignal<f64>, Memo<f64>) {
    let window_size = RwSignal::new((screen::viewport_width(), screen::viewport_height()));
    let resize = window_event_listener(leptos::ev::resize, move |_| {
        window_size.set((screen::viewport_width(), screen::viewport_height()));
    });
    on_cleanup(move || resize.remove());
    let zoom = Memo::new(move |_| {
        let (w, h) = window_size.get();
        if present.get() {
            presenter_zoom(w, h)
        } else {
            1.0
        }
    });
    let laid_out = move |z: f64| {
        screen::set_zoom(z);
        let (w, h) = window_size.get_untracked();
        (w / z, h / z)
    };
    let (w, h) = laid_out(zoom.get_untracked());
    let viewport = RwSignal::new(w);
    let viewport_height = RwSignal::new(h);
    Effect::new(move |_| {
        window_size.track();
        let (w, h) = laid_out(zoom.get());
        if viewport.get_untracked() != w {
            viewport.set(w);
        }
        if viewport_height.get_untracked() != h {
            viewport_height.set(h);
        }
    });
    (viewport, viewport_height, zoom)
}
