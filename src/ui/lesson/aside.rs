//! A lesson step's small table beside its words ([`lessons::Aside`]): the numbers the
//! words quote that the heatmaps cannot show (another step's row, another sentence's
//! weight, more decimals). The lesson writes every cell; this only lays them out.

use std::sync::Arc;

use leptos::prelude::*;

use crate::engine::Trace;
use crate::lessons::{Aside, MakeAside};
use crate::ui::explain::explained::Explained;

use crate::ui::widgets::scroll_region::scroll_region;

/// An embedded step's aside ([`crate::ui::explorer::embed::EmbedAside`]): the table beside
/// the embed's picture, for a step whose words quote numbers its small maps do not print.
pub fn embed_aside(trace: Signal<Option<Arc<Trace>>>, aside: Signal<Option<MakeAside>>) -> AnyView {
    view! {
        <div class="al-embed-aside">
            <LessonAside trace=trace aside=aside />
        </div>
    }
    .into_any()
}

/// The open step's aside for the shown trace, or nothing.
#[component]
pub fn LessonAside(
    /// The shown trace.
    #[prop(into)]
    trace: Signal<Option<Arc<Trace>>>,
    /// The open step's aside (from its lesson).
    #[prop(into)]
    aside: Signal<Option<MakeAside>>,
) -> impl IntoView {
    let explained = use_context::<Explained>();
    move || {
        let make = aside.get()?;
        let aside = trace.with(|t| t.as_ref().and_then(|t| make(t)))?;
        // while the learner guesses a cell's value, the table must not name it
        let guessing = explained.is_some_and(|e| e.guessed().is_some());
        let Aside { caption, head, rows } = if guessing { aside.hidden() } else { aside };
        // the header wraps (learn.css) rather than being cut; its full text is its title too
        let head = head
            .into_iter()
            .map(|h| {
                let title = h.clone();
                view! {
                    <th scope="col" title=title>
                        {h}
                    </th>
                }
            })
            .collect_view();
        let rows = rows
            .into_iter()
            .map(|(title, cells)| {
                // words (the predictions) may wrap; a number never does
                let cells = cells
                    .into_iter()
                    .map(|c| {
                        let words = c.trim().contains(' ');
                        view! { <td class:al-words=words>{c}</td> }
                    })
                    .collect_view();
                view! {
                    <tr>
                        <th scope="row">{title}</th>
                        {cells}
                    </tr>
                }
            })
            .collect_view();
        let table = view! {
            <table class="al-table al-aside-table">
                <thead>
                    <tr>{head}</tr>
                </thead>
                <tbody>{rows}</tbody>
            </table>
        };
        Some(view! {
            <figure class="al-aside" data-testid="lesson-aside">
                <figcaption>{caption.clone()}</figcaption>
                {scroll_region(caption, table)}
            </figure>
        })
    }
}
