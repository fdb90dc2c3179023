//! The explanation panel: the arithmetic behind the cell under the keyboard cursor (or a
//! clicked cell or table cell), as the engine's [`crate::engine::explain::explain`]
//! wrote it. One per page: the explained cell is the [`Explained`] context, which the
//! heatmap cards set on Enter or a click and move with the arrow keys while it is open.
//! Its texts are built by [`crate::ui::explain::text`]; its parts are the guess form
//! ([`crate::ui::explain::guess`]), the operands ([`crate::ui::explain::operands`]), the
//! terms ([`crate::ui::explain::terms`]) and the code ([`crate::ui::explain::code`]).

use std::sync::Arc;

use leptos::prelude::*;

use crate::engine::Trace;
use crate::ui::explain::cell_state::CellState;
use crate::ui::explain::code::ExplainCode;
use crate::ui::explain::explained::Explained;
use crate::ui::explain::guess::ExplainGuess;
use crate::ui::explain::operands::ExplainOperands;
use crate::ui::explain::terms::ExplainTerms;
use crate::ui::explain::text::with_numbers;

/// The explanation of the explained cell, shown in the card that holds it.
///
/// Built once when the panel opens; moving the cell only patches what changed. Each part
/// reads a small memo of its own texts (title, terms, strip, notes, code), so a part
/// whose texts are the same for the new cell is not touched, and the lists are rebuilt
/// in place (same elements, new texts) rather than made anew. The buttons and their
/// listeners are made once and read the explanation when clicked.
#[component]
pub fn ExplainPanel(
    /// The shown trace.
    #[prop(into)]
    trace: Signal<Option<Arc<Trace>>>,
    /// The explained cell and its explanation.
    explained: Explained,
    /// Closes the panel and gives the focus back to the heatmap.
    on_close: Callback<()>,
) -> impl IntoView {
    let state = CellState::new(explained.cell);
    let guess_mode = RwSignal::new(false);
    let ex = explained.explanation;
    // The explanation, if there is one (an `Arc`: cloning it copies a pointer).
    let ok = Memo::new_with_compare(
        move |_| ex.with(|r| r.as_ref().and_then(|r| r.as_ref().ok().cloned())),
        |a, b| match (a, b) {
            (Some(Some(a)), Some(Some(b))) => !Arc::ptr_eq(a, b),
            (Some(None), Some(None)) => false,
            _ => true,
        },
    );
    let hidden = Memo::new(move |_| guess_mode.get() && !state.revealed());
    // the card and its table hide the answer while the learner guesses
    let guessing = explained.guessing;
    Effect::new(move |_| guessing.set(hidden.get()));
    on_cleanup(move || guessing.set(false));
    // The explanation when its answer may be shown (not while the learner guesses).
    let told = Signal::derive(move || if hidden.get() { None } else { ok.get() });
    let title = Memo::new(move |_| {
        ok.with(|e| {
            e.as_ref().map(|e| {
                format!("{}[{}]", e.step, e.index.iter().map(usize::to_string).collect::<Vec<_>>().join(","))
            })
        })
    });
    let formula = Memo::new(move |_| ok.with(|e| e.as_ref().map(|e| e.formula.clone())));
    let summary = Memo::new(move |_| {
        ex.with(|r| {
            r.as_ref().map(|r| match r {
                Ok(_) if hidden.get() => {
                    format!("{}: guess its value first.", title.get().unwrap_or_default())
                }
                Ok(e) => with_numbers(e),
                Err(msg) => msg.clone(),
            })
        })
    });
    let notes = Memo::new(move |_| told.get().map(|e| e.notes.clone()));
    let notes_view = move || {
        notes.with(|n| {
            n.as_ref().map(|n| {
                let items = n
                    .iter()
                    .map(|n| view! { <li data-testid="explain-note">{n.clone()}</li> })
                    .collect::<Vec<_>>();
                view! { <ul class="al-ex-notes">{items}</ul> }
            })
        })
    };
    // opened under a tall picture (a phone), the panel comes up into view once
    let aside = NodeRef::<leptos::html::Aside>::new();
    aside.on_load(|el| crate::ui::platform::screen::scroll_up_to_if_below(&el));
    view! {
        <aside
            node_ref=aside
            class="al-explain"
            data-testid="explain"
            role="region"
            aria-label="Explanation of the cell"
            on:keydown=move |ev: leptos::ev::KeyboardEvent| {
                if ev.key() == "Escape" {
                    ev.prevent_default();
                    on_close.run(());
                }
            }
        >
            <div class="al-ex-top">
                <h3 class="al-ex-title">{move || title.get().unwrap_or_else(|| "Explanation".into())}</h3>
                <label class="al-ex-toggle">
                    <input
                        type="checkbox"
                        data-testid="explain-guess-toggle"
                        prop:checked=move || guess_mode.get()
                        on:change=move |ev| {
                            guess_mode.set(event_target_checked(&ev));
                            state.set_revealed(false);
                        }
                    />
                    " Guess first"
                </label>
                <button
                    type="button"
                    class="al-small al-ex-close"
                    data-testid="explain-close"
                    aria-label="Close the explanation (Esc)"
                    on:click=move |_| on_close.run(())
                >
                    "✕"
                </button>
            </div>
            <p class="al-hint al-ex-index-note" data-testid="explain-index-note">
                "Indices in brackets count from 0, as in PyTorch: head 1 is h = 0, sentence 1 is b = 0."
            </p>
            <p class="al-ex-formula">
                <code>{move || formula.get()}</code>
            </p>
            <p class="al-ex-summary" aria-live="polite" data-testid="explain-summary">
                {move || summary.get()}
            </p>
            <ExplainGuess trace=trace state=state explanation=ok guess_mode=guess_mode />
            <ExplainOperands trace=trace explanation=ok />
            <ExplainTerms state=state told=told />
            {notes_view}
            <ExplainCode state=state told=told />
        </aside>
    }
}
