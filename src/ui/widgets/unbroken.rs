//! Words with "-inf", "−∞" and "-1e9" kept whole: a phone broke "-inf" after its hyphen.

use leptos::prelude::*;

use crate::lessons::unbreakable;

/// `text` with "-inf", "−∞" and "-1e9" each in a span that never breaks across lines
/// ([`unbreakable`]): a step's words, its question and its answer, in the lesson and in
/// its embed (index.html's first paint splits them the same way).
pub fn unbroken(text: &str) -> AnyView {
    unbreakable(text)
        .into_iter()
        .map(|(piece, whole)| {
            let piece = piece.to_string();
            if whole {
                view! { <span class="al-nowrap">{piece}</span> }.into_any()
            } else {
                piece.into_any()
            }
        })
        .collect_view()
        .into_any()
}
