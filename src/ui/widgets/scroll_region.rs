//! A region that may scroll sideways (a wide table on a phone), reachable by keyboard:
//! focusable (`tabindex="0"`, so arrow keys scroll it) and named, as a region, for a
//! screen reader (axe-core's `scrollable-region-focusable`).

use leptos::prelude::*;

/// `table` in a scrolling wrapper that a keyboard can reach, named `label`. A function,
/// not a component, so that the table may be built from borrowed data.
pub fn scroll_region(label: String, table: impl IntoView) -> impl IntoView {
    view! {
        <div class="al-table-wrap" tabindex="0" role="region" aria-label=label>
            {table}
        </div>
    }
}
