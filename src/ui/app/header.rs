//! The page's header: its title, the tagline and the mode tabs (Explorer, Lessons,
//! Challenges, Learn). Hidden in presenter mode.

use leptos::prelude::*;

/// The header and the mode tabs.
#[component]
pub fn Header(
    /// Presenter mode (the header is hidden).
    present: RwSignal<bool>,
    /// The open lesson and step, if any.
    lesson: RwSignal<Option<(usize, usize)>>,
    /// The open challenge's id, if in challenges mode.
    challenge: RwSignal<Option<String>>,
    /// Opens a lesson step (the Lessons tab opens the first lesson's first step).
    on_go: Callback<(usize, usize)>,
    /// The Learn view is open.
    learn: RwSignal<bool>,
) -> impl IntoView {
    view! {
        <header class="al-header" hidden=move || present.get()>
            <h1>"Attention Lens"</h1>
            <p class="al-tagline">
                "Multi-head scaled dot-product attention, " <code>"softmax(QKᵀ/√d_k + mask)V"</code>
                ", computed exactly in your browser, step by step."
            </p>
            <nav class="al-modes" aria-label="Mode">
                <button
                    type="button"
                    class="al-tab"
                    class:al-selected=move || {
                        lesson.get().is_none() && challenge.get().is_none() && !learn.get()
                    }
                    data-testid="mode-explorer"
                    on:click=move |_| {
                        learn.set(false);
                        lesson.set(None);
                        challenge.set(None)
                    }
                >
                    "Explorer"
                </button>
                <button
                    type="button"
                    class="al-tab"
                    class:al-selected=move || lesson.get().is_some() && challenge.get().is_none()
                    data-testid="mode-lessons"
                    on:click=move |_| {
                        learn.set(false);
                        challenge.set(None);
                        if lesson.get_untracked().is_none() {
                            on_go.run((0, 0))
                        }
                    }
                >
                    "Lessons"
                </button>
                <button
                    type="button"
                    class="al-tab"
                    class:al-selected=move || challenge.get().is_some()
                    data-testid="mode-challenges"
                    on:click=move |_| {
                        learn.set(false);
                        if challenge.get_untracked().is_none() {
                            challenge.set(Some(String::new()))
                        }
                    }
                >
                    "Challenges"
                </button>
                <button
                    type="button"
                    class="al-tab"
                    class:al-selected=move || learn.get()
                    data-testid="mode-learn"
                    on:click=move |_| {
                        lesson.set(None);
                        challenge.set(None);
                        learn.set(true)
                    }
                >
                    "Learn"
                </button>
            </nav>
        </header>
    }
}
