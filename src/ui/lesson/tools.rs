//! The tools under a lesson step's words: reset the learner's edits, leave for the
//! explorer, change lesson (the menu presenter mode needs), copy the step's link, and
//! presenter mode.

use leptos::prelude::*;

use crate::ui::platform::{address, clipboard};

/// The lesson's tool row.
#[component]
pub fn LessonTools(
    /// Every lesson's numbered name ("3. Masks"), for the menu.
    names: Vec<String>,
    /// The open lesson and step.
    position: Signal<(usize, usize)>,
    /// Opens a lesson step.
    on_go: Callback<(usize, usize)>,
    /// Leaves the lessons for the explorer.
    on_exit: Callback<()>,
    /// False for a lesson of recorded runs, whose model the explorer cannot show: no way
    /// out to it is offered.
    explorable: Signal<bool>,
    /// True while the learner has edited the lesson's vectors.
    edited: Signal<bool>,
    /// True while the sentences, settings or vectors differ from the step's own: the
    /// link names the step alone, so the words after a copy say it opens without them.
    changed: Signal<bool>,
    /// Puts the open step's own vectors back.
    on_reset: Callback<()>,
    /// Presenter mode.
    present: RwSignal<bool>,
) -> impl IntoView {
    let menu_options = move || {
        names
            .iter()
            .enumerate()
            .map(|(i, name)| {
                view! {
                    <option value=i.to_string() selected=move || position.get().0 == i>
                        {name.clone()}
                    </option>
                }
            })
            .collect_view()
    };
    let copied = RwSignal::new(false);
    let copy_link = move |_| {
        clipboard::copy_text(&address::href());
        copied.set(true);
    };
    Effect::new(move |_| {
        position.track();
        changed.track();
        copied.set(false);
    });
    view! {
        <div class="al-lesson-tools">
            <LinkWhen
                when=edited
                testid="lesson-reset"
                title="Your edits to this lesson's vectors stay as you move between its steps, until you reset them"
                text="Reset this lesson's vectors"
                on_click=on_reset
            />
            <LinkWhen
                when=explorable
                testid="lesson-exit"
                text="Open this step in the free explorer"
                on_click=Callback::new(move |()| {
                    present.set(false);
                    on_exit.run(())
                })
            />
            <label class="al-lesson-menu" title="Presenter mode hides the lesson tabs: change lesson here">
                "Lesson "
                <select
                    data-testid="lesson-menu"
                    on:change=move |ev| {
                        if let Ok(i) = event_target_value(&ev).parse::<usize>() {
                            on_go.run((i, 0));
                        }
                    }
                >
                    {menu_options.clone()}
                </select>
            </label>
            <button type="button" class="al-link" data-testid="copy-link" on:click=copy_link>
                {move || copied_words(copied.get(), changed.get())}
            </button>
            <button
                type="button"
                class="al-link"
                data-testid="present"
                on:click=move |_| present.update(|p| *p = !*p)
            >
                // the keys in brackets are hidden on a touch screen, which has no keyboard
                {move || {
                    if present.get() {
                        view! {
                            "Leave presenter mode"
                            <span class="al-key-hint">" (Esc)"</span>
                        }
                            .into_any()
                    } else {
                        view! {
                            "Present"
                            <span class="al-key-hint">" (full screen with F)"</span>
                        }
                            .into_any()
                    }
                }}
            </button>
        </div>
    }
}

/// The copy button's words: before a copy, and after one, which says when the learner's
/// changes stay behind (the link names the step, and opens it as the lesson wrote it).
pub fn copied_words(copied: bool, changed: bool) -> &'static str {
    match (copied, changed) {
        (false, _) => "Copy link to this step",
        (true, false) => "Link copied",
        (true, true) => "Link copied: it opens the step as the lesson wrote it, without your changes",
    }
}

/// A link-styled button, there only while `when` holds.
#[component]
fn LinkWhen(
    /// Whether the button is there.
    when: Signal<bool>,
    /// Its `data-testid`.
    testid: &'static str,
    /// Its tooltip, if any.
    #[prop(optional)]
    title: Option<&'static str>,
    /// Its words.
    text: &'static str,
    /// Called on a click.
    on_click: Callback<()>,
) -> impl IntoView {
    move || {
        when.get().then(|| {
            view! {
                <button
                    type="button"
                    class="al-link"
                    data-testid=testid
                    title=title
                    on:click=move |_| on_click.run(())
                >
                    {text}
                </button>
            }
        })
    }
}
