//! A field for one real number as a learner types it: a text input read by
//! [`crate::format::read_typed_number`], the reader of the lessons' answer fields (a
//! decimal point or comma, a fraction, thousands as the page writes them), never a
//! number input, whose browser drops a comma it does not expect ("1,5" became 15).

use leptos::prelude::*;
use wasm_bindgen::JsCast;

use crate::format::exact;

/// A number typed into an entry ([`crate::format::read_typed_number`]): finite, or none.
pub fn parse_number(text: &str) -> Option<f64> {
    crate::format::read_typed_number(text).filter(|x| x.is_finite())
}

/// What an entry says while its text is not a number (empty, a lone "-", "1 5"): what
/// it expects, and the number still in use, `last`.
pub fn entry_error(last: f64) -> String {
    format!("Type a number, e.g. -0.5; {} is still in use.", exact(last))
}

/// The number one press of ↑ (`up`) or ↓ makes of `x`: a step of 0.1, as a number input's
/// arrows did, written without the sum's rounding (0.1 + 0.2 is 0.3).
pub fn stepped(x: f64, up: bool) -> f64 {
    let y = if up { x + 0.1 } else { x - 0.1 };
    (y * 1e9).round() / 1e9
}

/// A text input (`class="al-num"`, a decimal keypad on a phone) for one real number, then
/// its message. Each text that reads as a number ([`parse_number`]) is passed to
/// `on_number`: on every keystroke, or with `commit` once the edit is committed (Enter,
/// or the field left); ↑ and ↓ step it by 0.1. Anything else (an empty field, a lone "-",
/// "1 5") changes nothing: the last number stays in use, and the field is marked invalid
/// with [`entry_error`] under it, until its text reads as a number again.
#[component]
pub fn DecimalEntry(
    /// The input's `data-testid`.
    testid: &'static str,
    /// The input's accessible name.
    label: String,
    /// The number as shown.
    value: f64,
    /// Called with each number the field reads.
    on_number: Callback<f64>,
    /// Read the text when the edit is committed (`change`), not on every keystroke.
    #[prop(optional)]
    commit: bool,
) -> impl IntoView {
    // the number in use, and the message while the text is not a number
    let last = RwSignal::new(value);
    let error = RwSignal::new(None::<String>);
    let error_id = next_error_id();
    let described = error_id.clone();
    let read = move |text: String| match parse_number(&text) {
        Some(x) => {
            error.set(None);
            last.set(x);
            on_number.run(x);
        }
        None => error.set(Some(entry_error(last.get_untracked()))),
    };
    view! {
        <input
            type="text"
            inputmode="decimal"
            autocomplete="off"
            spellcheck="false"
            class="al-num"
            data-testid=testid
            aria-label=label
            aria-invalid=move || error.with(Option::is_some).then_some("true")
            aria-describedby=move || error.with(Option::is_some).then(|| described.clone())
            prop:value=exact(value)
            on:input=move |ev| {
                if !commit {
                    read(event_target_value(&ev))
                }
            }
            on:change=move |ev| {
                if commit {
                    read(event_target_value(&ev))
                }
            }
            on:keydown=move |ev| {
                let up = match ev.key().as_str() {
                    "ArrowUp" => true,
                    "ArrowDown" => false,
                    _ => return,
                };
                ev.prevent_default();
                let Some(input) = ev.target().and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok())
                else {
                    return;
                };
                let x = stepped(parse_number(&input.value()).unwrap_or(last.get_untracked()), up);
                input.set_value(&exact(x));
                read(exact(x));
            }
        />
        <span
            class="al-entry-error"
            id=error_id
            data-testid="entry-error"
            hidden=move || error.with(Option::is_none)
        >
            {move || error.get()}
        </span>
    }
}

/// A new id for an entry's message (the page may hold many entries, each with its own).
fn next_error_id() -> String {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    format!("al-entry-error-{}", NEXT.fetch_add(1, Ordering::Relaxed))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_entry_reads_a_comma_as_the_answer_fields_do_and_refuses_the_rest() {
        assert_eq!(parse_number(" 1.5 "), Some(1.5));
        assert_eq!(parse_number("1,5"), Some(1.5));
        assert_eq!(parse_number("-1,5"), Some(-1.5));
        assert_eq!(parse_number("-2e-1"), Some(-0.2));
        assert_eq!(parse_number("1/8"), Some(0.125));
        // as the page writes a thousand
        assert_eq!(parse_number("1,000"), Some(1000.0));
        for bad in ["", "x", "inf", "-inf", "NaN", "1e400", "1/0", "1 5", "1,2,3"] {
            assert_eq!(parse_number(bad), None, "{bad}");
        }
        // what a field holds while the learner starts a negative number: none, and the
        // message says what is expected and which number is still used
        for partial in ["-", "-.", "1e", "+"] {
            assert_eq!(parse_number(partial), None, "{partial}");
        }
        assert_eq!(entry_error(3.0), "Type a number, e.g. -0.5; 3 is still in use.");
        assert_eq!(entry_error(-0.25), "Type a number, e.g. -0.5; -0.25 is still in use.");
    }

    #[test]
    fn the_arrows_step_by_a_tenth_without_the_sums_rounding() {
        assert_eq!(stepped(0.2, true), 0.3);
        assert_eq!(stepped(0.0, false), -0.1);
        assert_eq!(stepped(2.0, true), 2.1);
        assert_eq!(stepped(-0.1, true), 0.0);
    }
}
