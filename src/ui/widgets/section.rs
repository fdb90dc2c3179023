//! A part of a view that is a `<section>` named by its own heading.

use leptos::prelude::*;

/// A `<section>` whose accessible name is its `<h3>` heading (`aria-labelledby` the
/// heading's id), then `children`.
#[component]
pub fn TitledSection(
    /// The section's class.
    class: &'static str,
    /// The section's `data-testid`.
    testid: &'static str,
    /// The heading's id.
    title_id: &'static str,
    /// The heading.
    title: &'static str,
    /// What follows the heading.
    children: Children,
) -> impl IntoView {
    view! {
        <section class=class data-testid=testid aria-labelledby=title_id>
            <h3 id=title_id>{title}</h3>
            {children()}
        </section>
    }
}
