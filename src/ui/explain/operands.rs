//! The numbers the explained cell reads: one strip of chips per operand, read from the
//! trace by [`crate::ui::explain::text::strips`].

use std::sync::Arc;

use leptos::prelude::*;

use crate::engine::explain::Explanation;
use crate::engine::Trace;
use crate::format::{exact, short};
use crate::ui::explain::text::strips;

/// The operands' strips. They are the same for the next cell of a row (a weight's
/// masked row), and then not touched.
#[component]
pub fn ExplainOperands(
    /// The shown trace.
    #[prop(into)]
    trace: Signal<Option<Arc<Trace>>>,
    /// The explanation, if there is one.
    explanation: Memo<Option<Arc<Explanation>>>,
) -> impl IntoView {
    let strip_rows = Memo::new(move |_| {
        explanation
            .with(|e| e.as_ref().and_then(|e| trace.with(|t| t.as_ref().map(|t| strips(t, e)))))
            .unwrap_or_default()
    });
    move || {
        strip_rows.with(|rows| {
            (!rows.is_empty()).then(|| {
                let rows = rows
                    .iter()
                    .map(|s| {
                        let more = (s.more > 0).then(
                            || view! { <span class="al-ex-more">{format!("… {} more", s.more)}</span> },
                        );
                        let chips = s
                            .values
                            .iter()
                            .map(|v| {
                                view! {
                                    <span class="al-ex-chip" class:al-nan=v.is_nan() data-value=exact(*v)>
                                        {short(*v)}
                                    </span>
                                }
                            })
                            .collect::<Vec<_>>();
                        view! {
                            <div class="al-ex-strip-row" data-testid="explain-operand">
                                <code class="al-ex-strip-label">{s.label.clone()}</code>
                                <span class="al-ex-strip-values">{chips}{more}</span>
                            </div>
                        }
                    })
                    .collect::<Vec<_>>();
                view! {
                    <div class="al-ex-strip" aria-label="The numbers it reads">
                        <p class="al-ex-h">"It reads"</p>
                        {rows}
                    </div>
                }
            })
        })
    }
}
