//! The page's header: its title, the tagline and the mode tabs (Explorer, Lessons,
//! Challenges, Learn). Hidden in presenter mode.

use leptos::prelude::*;

/// One of the header's mode tabs.
#[component]
fn ModeTab(
    label: &'static str,
    testid: &'static str,
    selected: Signal<bool>,
    on_open: Callback<()>,
) -> impl IntoView {
    view! {
        <button
            type="button"
            class="al-tab"
            class:al-selected=move || selected.get()
            data-testid=testid
            on:click=move |_| on_open.run(())
        >
            {label}
        </button>
    }
}

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
                <ModeTab
                    label="Explorer"
                    testid="mode-explorer"
                    selected=Signal::derive(move || {
                        lesson.get().is_none() && challenge.get().is_none() && !learn.get()
                    })
                    on_open=Callback::new(move |()| {
                        learn.set(false);
                        lesson.set(None);
                        challenge.set(None)
                    })
                />
                <ModeTab
                    label="Lessons"
                    testid="mode-lessons"
                    selected=Signal::derive(move || lesson.get().is_some() && challenge.get().is_none())
                    on_open=Callback::new(move |()| {
                        learn.set(false);
                        challenge.set(None);
                        if lesson.get_untracked().is_none() {
                            on_go.run((0, 0))
                        }
                    })
                />
                <ModeTab
                    label="Challenges"
                    testid="mode-challenges"
                    selected=Signal::derive(move || challenge.get().is_some())
                    on_open=Callback::new(move |()| {
                        learn.set(false);
                        if challenge.get_untracked().is_none() {
                            challenge.set(Some(String::new()))
                        }
                    })
                />
                <ModeTab
                    label="Learn"
                    testid="mode-learn"
                    selected=Signal::derive(move || learn.get())
                    on_open=Callback::new(move |()| {
                        lesson.set(None);
                        challenge.set(None);
                        learn.set(true)
                    })
                />
            </nav>
        </header>
    }
}
