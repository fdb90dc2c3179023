//! The line under the decode and tiles views that compares their result with the full
//! run's: "Equals …" or "Differs …", marked ok or flagged, with the largest difference
//! exact in `data-diff` for the tests.

use leptos::prelude::*;

use crate::format::exact;

/// A check line.
#[component]
pub fn CheckLine(
    /// Whether the result equals the full run's (to 1e-12).
    ok: bool,
    /// The largest absolute difference.
    diff: f64,
    /// The sentence.
    words: String,
    /// The line's `data-testid`.
    testid: &'static str,
) -> impl IntoView {
    view! {
        <p class="al-check" class:al-check-ok=ok class:al-flag=!ok data-testid=testid data-diff=exact(diff)>
            {words}
        </p>
    }
}
