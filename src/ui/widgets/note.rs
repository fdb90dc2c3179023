//! A short note where a figure has nothing to show.

use leptos::prelude::*;

/// `<p class="al-note">` with `text`, its `data-testid` `testid`.
pub fn note(testid: &'static str, text: &'static str) -> AnyView {
    view! {
        <p class="al-note" data-testid=testid>
            {text}
        </p>
    }
    .into_any()
}
