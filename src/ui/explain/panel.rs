//! The explanation panel: the arithmetic behind the cell under the keyboard cursor (or a
//! clicked cell or table cell), as the engine's [`crate::engine::explain::explain`]
//! wrote it. One per page: the explained cell is the [`Explained`] context, which the
//! heatmap cards set on Enter or a click and move with the arrow keys while it is open.
//! Its texts are built by [`crate::ui::explain::text`]; this file is the view (the
//! clipboard is [`crate::ui::platform::clipboard`]).

use std::sync::Arc;

use leptos::prelude::*;
use wasm_bindgen::JsCast;

use crate::engine::{StepName, Trace};
use crate::format::{exact, short};
use crate::ui::platform::clipboard;

use crate::ui::explain::explained::{Cell, Explained};
use crate::ui::explain::text::{
    closeness, key_feedback, num, strips, term_list, top_keys, with_numbers, MAX_TERMS,
};

// ---------------------------------------------------------------------------------------
// The panel.

/// The explanation of the explained cell, shown in the card `id` that holds it.
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
    // Per-cell state is keyed by the cell, so moving to another cell starts afresh
    // (folded terms, a new guess, no copy status) without an effect writing signals.
    let cell = explained.cell;
    let show_all_for = RwSignal::new(None::<Cell>);
    let revealed_for = RwSignal::new(None::<Cell>);
    let key_guess_for = RwSignal::new(None::<(Cell, usize)>);
    let status_for = RwSignal::new(None::<(Cell, String)>);
    let guess_mode = RwSignal::new(false);
    // the typed guess belongs to its cell: a move to another cell starts with an empty box
    let guess_for = RwSignal::new(None::<(Cell, String)>);
    let guess_text = move || {
        guess_for
            .with(|g| g.as_ref().filter(|(c, _)| Some(*c) == cell.get()).map(|(_, t)| t.clone()))
            .unwrap_or_default()
    };
    let py_ref = NodeRef::<leptos::html::Code>::new();
    let tex_ref = NodeRef::<leptos::html::Code>::new();
    let tex_open = RwSignal::new(false);
    let ex = explained.explanation;

    let show_all = move || show_all_for.get().is_some() && show_all_for.get() == cell.get();
    let revealed = move || revealed_for.get().is_some() && revealed_for.get() == cell.get();
    let key_guess = move || key_guess_for.get().filter(|(c, _)| Some(*c) == cell.get()).map(|(_, k)| k);
    let status =
        move || status_for.get().filter(|(c, _)| Some(*c) == cell.get()).map(|(_, s)| s).unwrap_or_default();
    let set_status = move |text: String| {
        if let Some(c) = cell.get_untracked() {
            status_for.set(Some((c, text)));
        }
    };

    // The explanation, if there is one (an `Arc`: cloning it copies a pointer).
    let ok = Memo::new_with_compare(
        move |_| ex.with(|r| r.as_ref().and_then(|r| r.as_ref().ok().cloned())),
        |a, b| match (a, b) {
            (Some(Some(a)), Some(Some(b))) => !Arc::ptr_eq(a, b),
            (Some(None), Some(None)) => false,
            _ => true,
        },
    );
    let hidden = Memo::new(move |_| guess_mode.get() && !revealed());
    // The explanation when its answer may be shown (not while the learner guesses).
    let told = move || if hidden.get() { None } else { ok.get() };

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

    // The terms, folded or not, as text; `None` while hidden.
    let terms = Memo::new(move |_| {
        let all = show_all();
        told().map(|e| term_list(&e, all))
    });
    let has_terms = Memo::new(move |_| terms.with(Option::is_some));
    let n_terms = Memo::new(move |_| terms.with(|t| t.as_ref().map_or(0, |t| t.n_terms)));
    let result = Memo::new(move |_| terms.with(|t| t.as_ref().map(|t| t.result.clone())).unwrap_or_default());
    let term_items = move || {
        terms.with(|t| {
            t.as_ref()
                .map(|t| {
                    t.rows
                        .iter()
                        .map(|row| {
                            let value = row.value.clone();
                            view! {
                                <li data-testid="explain-term" data-value=value>
                                    <span class="al-ex-label">{row.label.clone()}</span>
                                    <span class="al-ex-nums">{row.nums.clone()}</span>
                                    <span class="al-ex-val">{"= "}{row.value.clone()}</span>
                                </li>
                            }
                        })
                        .collect::<Vec<_>>()
                })
                .unwrap_or_default()
        })
    };
    let rest_item = move || {
        terms.with(|t| t.as_ref().and_then(|t| t.rest.clone())).map(|(label, sum)| {
            let value = sum.clone();
            view! {
                <li data-testid="explain-term" data-rest="true" data-value=value class="al-ex-rest">
                    <span class="al-ex-label">{label}</span>
                    <span class="al-ex-val">{"= "}{sum}</span>
                </li>
            }
        })
    };
    let foldable = Memo::new(move |_| n_terms.get() > MAX_TERMS);
    let terms_view = move || {
        has_terms.get().then(|| {
            view! {
                <p class="al-ex-h">{move || terms.with(|t| t.as_ref().map(|t| t.heading.clone()))}</p>
                <ol class="al-ex-terms">{term_items}{rest_item}</ol>
                <Show when=move || foldable.get()>
                    <button
                        type="button"
                        class="al-small"
                        data-testid="explain-show-all"
                        aria-expanded=move || show_all().to_string()
                        on:click=move |_| {
                            show_all_for.set(if show_all() { None } else { cell.get_untracked() })
                        }
                    >
                        {move || {
                            if show_all() {
                                format!("show the largest {MAX_TERMS}")
                            } else {
                                format!("show all {}", n_terms.get())
                            }
                        }}
                    </button>
                </Show>
                <p class="al-ex-result" data-testid="explain-result" data-value=move || result.get()>
                    "result: "
                    <strong>{move || result.get()}</strong>
                </p>
            }
        })
    };

    let notes = Memo::new(move |_| told().map(|e| e.notes.clone()));
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

    // The operands' numbers, read from the trace: the same for the next cell of a row
    // (a weight's masked row), and then not touched.
    let strip_rows = Memo::new(move |_| {
        ok.with(|e| e.as_ref().and_then(|e| trace.with(|t| t.as_ref().map(|t| strips(t, e)))))
            .unwrap_or_default()
    });
    let strip_view = move || {
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
    };

    // PyTorch and LaTeX: two texts; the buttons read them when clicked.
    let code = Memo::new(move |_| told().map(|e| (e.pytorch.clone(), e.latex.clone())));
    let has_code = Memo::new(move |_| code.with(Option::is_some));
    let copy_py = move |_| {
        if let Some(py) = code.with_untracked(|c| c.as_ref().map(|c| c.0.clone())) {
            clipboard::copy_or_select(py, py_ref.get_untracked(), set_status);
        }
    };
    let copy_tex = move |_| {
        tex_open.set(true);
        if let Some(tex) = code.with_untracked(|c| c.as_ref().map(|c| c.1.clone())) {
            clipboard::copy_or_select(tex, tex_ref.get_untracked(), set_status);
        }
    };
    let code_view = view! {
        <Show when=move || has_code.get()>
            <div class="al-ex-code">
                <p class="al-ex-h">"PyTorch"</p>
                <code class="al-pytorch" node_ref=py_ref data-testid="explain-pytorch">
                    {move || code.with(|c| c.as_ref().map(|c| c.0.clone()))}
                </code>
                <div class="al-ex-buttons">
                    <button type="button" class="al-small" data-testid="explain-copy" on:click=copy_py>
                        "Copy PyTorch"
                    </button>
                    <button type="button" class="al-small" data-testid="explain-copy-latex" on:click=copy_tex>
                        "Copy as LaTeX"
                    </button>
                    <span class="al-ex-status" role="status">
                        {status}
                    </span>
                </div>
                <details
                    class="al-ex-latex"
                    prop:open=move || tex_open.get()
                    on:toggle=move |ev| {
                        let open = ev
                            .target()
                            .and_then(|t| t.dyn_into::<web_sys::HtmlDetailsElement>().ok())
                            .is_some_and(|d| d.open());
                        tex_open.set(open);
                    }
                >
                    <summary>"LaTeX"</summary>
                    <code node_ref=tex_ref data-testid="explain-latex">
                        {move || code.with(|c| c.as_ref().map(|c| c.1.clone()))}
                    </code>
                </details>
            </div>
        </Show>
    };

    let guess = move || {
        if !guess_mode.get() {
            return None;
        }
        let e = ok.get()?;
        let is_weight = e.step == StepName::Weights;
        let tops = if is_weight {
            trace.with(|t| t.as_ref().map(|t| top_keys(t, &e)).unwrap_or_default())
        } else {
            vec![]
        };
        let keys: Vec<String> = if is_weight {
            trace.with(|t| {
                t.as_ref()
                    .and_then(|t| e.index.first().map(|&b| t.key_tokens(b).to_vec()))
                    .unwrap_or_default()
            })
        } else {
            vec![]
        };
        let actual = e.result;
        let names = keys.clone();
        let reveal = move || revealed_for.set(cell.get_untracked());
        let feedback = move || {
            revealed().then(|| {
                let g = guess_text().trim().parse::<f64>().ok();
                let mut text = match g {
                    Some(g) if g.is_finite() => closeness(g, actual),
                    _ => format!("No number guessed; the value is {}.", num(actual)),
                };
                if is_weight {
                    text.push(' ');
                    text.push_str(&key_feedback(key_guess(), &tops, &names));
                }
                view! {
                    <p class="al-ex-feedback" data-testid="explain-feedback">
                        {text}
                    </p>
                }
            })
        };
        let key_buttons = is_weight.then(|| {
            let buttons = keys
                .iter()
                .enumerate()
                .map(|(k, word)| {
                    view! {
                        <button
                            type="button"
                            class="al-small"
                            aria-pressed=move || (key_guess() == Some(k)).to_string()
                            class:al-selected=move || key_guess() == Some(k)
                            on:click=move |_| {
                                if let Some(c) = cell.get_untracked() {
                                    key_guess_for.set(Some((c, k)))
                                }
                            }
                        >
                            {word.clone()}
                        </button>
                    }
                })
                .collect_view();
            view! {
                <fieldset class="al-ex-keys">
                    <legend>"Which key gets the most weight in this row?"</legend>
                    {buttons}
                </fieldset>
            }
        });
        Some(view! {
            <form
                class="al-ex-guess"
                data-testid="explain-guess"
                on:submit=move |ev| {
                    ev.prevent_default();
                    reveal();
                }
            >
                <label>
                    "Your guess for the value: "
                    <input
                        type="text"
                        inputmode="decimal"
                        data-testid="explain-guess-input"
                        size="10"
                        prop:value=guess_text
                        on:input=move |ev| {
                            if let Some(c) = cell.get_untracked() {
                                guess_for.set(Some((c, event_target_value(&ev))))
                            }
                        }
                    />
                </label>
                {key_buttons}
                <button type="submit" class="al-small" data-testid="explain-reveal" disabled=revealed>
                    "Reveal"
                </button>
                {feedback}
            </form>
        })
    };

    view! {
        <aside
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
                            revealed_for.set(None);
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
            {guess}
            {strip_view}
            {terms_view}
            {notes_view}
            {code_view}
        </aside>
    }
}
