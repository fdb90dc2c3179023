//! The page's live state written into the address bar (replacing, not pushing, history
//! entries): the settings in the query, a whole scenario or an imported challenge in the
//! fragment.

use std::sync::Arc;

use leptos::prelude::*;

use crate::challenges::Challenge;
use crate::lessons::Lesson;
use crate::ui::learn::settings::LearnSettings;
use crate::ui::platform::address;
use crate::ui::state::engine::choice::EngineMode;
use crate::ui::state::settings::{Settings, ViewState};
use crate::ui::state::url;

/// What the address bar shows.
pub struct Address {
    /// Every lesson (for the open lesson's id).
    pub all_lessons: Arc<Vec<Lesson>>,
    /// The sentences.
    pub text: RwSignal<String>,
    /// The controls' settings.
    pub settings: RwSignal<Settings>,
    /// What is selected.
    pub view: RwSignal<ViewState>,
    /// The open lesson and step.
    pub lesson: RwSignal<Option<(usize, usize)>>,
    /// Presenter mode.
    pub present: RwSignal<bool>,
    /// Embed mode (fixed for the page's life).
    pub embed: bool,
    /// The engine the link asked for (fixed for the page's life).
    pub engine: EngineMode,
    /// The open challenge's id.
    pub challenge: RwSignal<Option<String>>,
    /// A challenge imported whole, carried in the fragment while it is open.
    pub imported: RwSignal<Option<Challenge>>,
    /// Set to why the address bar cannot hold this scenario, if it cannot.
    pub link_problem: RwSignal<Option<String>>,
    /// The Learn view is open.
    pub learn: RwSignal<bool>,
    /// The Learn view's settings, in the link while it is open.
    pub learn_settings: RwSignal<LearnSettings>,
}

/// Keeps the address bar in step with the page's state.
pub fn sync_address(a: Address) {
    let Address {
        all_lessons,
        text,
        settings,
        view,
        lesson,
        present,
        embed,
        engine,
        challenge,
        imported,
        link_problem,
        learn,
        learn_settings,
    } = a;
    Effect::new(move |_| {
        // a lesson step or a challenge sets the sentences and settings itself when its link
        // opens: its link is its own keys and the view's ([`url::view_only_query`])
        let own_page = lesson.with(Option::is_some) || challenge.with(Option::is_some);
        let mut q = if own_page {
            view.with(url::view_only_query)
        } else {
            text.with(|t| settings.with(|s| view.with(|v| url::to_query(t, s, v))))
        };
        let open = lesson.get().and_then(|(l, s)| all_lessons.get(l).map(|found| (found.id.to_string(), s)));
        url::PageParams {
            lesson: open,
            present: present.get(),
            embed,
            engine,
            challenge: challenge.get(),
            learn: learn.get().then(|| learn_settings.with(LearnSettings::to_pairs)),
        }
        .push_to(&mut q);
        let fragment = match imported.get().filter(|c| challenge.get().as_deref() == Some(c.id.as_str())) {
            Some(c) => Ok(crate::challenges::link_fragment(&c)),
            None if own_page => Ok(String::new()),
            None => text.with(|t| settings.with(|s| url::fragment(t, s))),
        };
        link_problem.set(fragment.as_ref().err().map(ToString::to_string));
        address::replace_query(&q, fragment.as_deref().unwrap_or(""));
    });
}
