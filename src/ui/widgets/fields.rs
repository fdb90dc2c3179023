//! The labelled form fields the controls are made of: a `<label class="al-field">` with
//! its caption, one `<select>` or number `<input>` (a text input for a list of numbers)
//! and a number field's hints, in a box with the field's error messages after the label;
//! and a `<label class="al-check">` round one checkbox.

use leptos::prelude::*;

/// One `<option>`: its value, its text, and whether it cannot be chosen.
pub type Choice = (&'static str, &'static str, bool);

/// A caption over a `<select>` of fixed choices, then `error`: the messages that say the
/// choice is wrong, after the label as a number field's ([`field_group`]). A choice's
/// text is a `&'static str` ([`Choice`]) or any other view (a `String` made at run time).
#[component]
pub fn SelectField<T: IntoView + 'static>(
    /// The caption.
    label: &'static str,
    /// The select's `data-testid`.
    testid: &'static str,
    /// The chosen option's value.
    #[prop(into)]
    value: Signal<&'static str>,
    /// The choices, in order: value, text, and whether it cannot be chosen.
    choices: Vec<(&'static str, T, bool)>,
    /// Called with the newly chosen value.
    on_change: Callback<String>,
    /// The messages that say the choice is wrong, after the label; the select names them
    /// (`aria-describedby`) while `invalid`.
    #[prop(optional)]
    error: Option<Children>,
    /// True while the choice is wrong (`aria-invalid`).
    #[prop(optional, into)]
    invalid: Signal<bool>,
) -> impl IntoView {
    let options = choices
        .into_iter()
        .map(|(v, text, disabled)| {
            view! {
                <option value=v disabled=disabled>
                    {text}
                </option>
            }
        })
        .collect_view();
    let described = described_by(testid, None, invalid);
    let select = view! {
        <select
            data-testid=testid
            aria-describedby=described
            aria-invalid=move || invalid.get().then_some("true")
            prop:value=move || value.get()
            on:change=move |ev| on_change.run(event_target_value(&ev))
        >
            {options}
        </select>
    };
    field_group(label, select, testid, error)
}

/// The ids that describe the field `testid`: its hint's, if any, and its error's
/// ([`field_group`]'s) while `invalid`.
fn described_by(
    testid: &'static str,
    hint: Option<&'static str>,
    invalid: Signal<bool>,
) -> impl Fn() -> Option<String> + Send + Sync + 'static {
    let error_id = error_id(testid);
    move || {
        let ids: Vec<&str> = hint.into_iter().chain(invalid.get().then_some(error_id.as_str())).collect();
        (!ids.is_empty()).then(|| ids.join(" "))
    }
}

/// The id of the field `testid`'s error messages.
fn error_id(testid: &str) -> String {
    format!("{testid}-error")
}

/// One field's box: a `<label>` with the caption and the control, then the error messages
/// of the field `testid`, after the label where they span the field's row (style/main.css:
/// they neither widen the field nor move its neighbours; on a phone, directly under the
/// field).
fn field_group(
    label: &'static str,
    control: impl IntoView,
    testid: &'static str,
    error: Option<Children>,
) -> impl IntoView {
    let error = error.map(|e| {
        view! {
            <div class="al-field-error" id=error_id(testid)>
                {e()}
            </div>
        }
    });
    let field = view! {
        <label class="al-field">
            <span>{label}</span>
            {control}
        </label>
    };
    view! { <div class="al-field-group">{field} {error}</div> }
}

/// A caption over a number `<input>`, then `children` (hints, errors). A real number
/// (`step` `"any"`) is a text input with a decimal keypad, for the reader of typed
/// numbers ([`crate::format::read_typed_number`]). With `list`, a text `<input>` for a
/// list of numbers, read when the edit is committed (a list would be
/// rewritten under the cursor if every keystroke were applied).
#[component]
pub fn NumberField(
    /// The caption.
    label: &'static str,
    /// The input's `data-testid`.
    testid: &'static str,
    /// The smallest value (a list has none).
    #[prop(into)]
    min: String,
    /// The largest value, if there is one.
    #[prop(optional_no_strip, into)]
    max: Option<String>,
    /// The input's `step` (`"any"` for a real number), if not whole numbers.
    #[prop(optional_no_strip, into)]
    step: Option<&'static str>,
    /// What an empty field shows.
    #[prop(optional_no_strip, into)]
    placeholder: Option<&'static str>,
    /// The id of the hint that describes the field.
    #[prop(optional_no_strip, into)]
    describedby: Option<&'static str>,
    /// The field's text.
    #[prop(into)]
    value: Signal<String>,
    /// True while the field cannot be edited.
    #[prop(optional, into)]
    disabled: Option<Signal<bool>>,
    /// Called with the field's text on every edit, or, with `commit`, once the edit is
    /// committed (Enter, or the field left).
    on_input: Callback<String>,
    /// Report the text when the edit is committed (`change`), not on every keystroke
    /// (`input`): for settings that restart something, such as a training run.
    #[prop(optional)]
    commit: bool,
    /// A list of numbers in a text input (set `commit` too), not one number.
    #[prop(optional)]
    list: bool,
    /// What follows the input inside the label.
    #[prop(optional)]
    children: Option<Children>,
    /// The messages that say the field's text is wrong, after the label
    /// ([`field_group`]); the input names them (`aria-describedby`) while `invalid`.
    #[prop(optional)]
    error: Option<Children>,
    /// True while the field's text is wrong (`aria-invalid`).
    #[prop(optional, into)]
    invalid: Signal<bool>,
) -> impl IntoView {
    // the text is written into the field only when it changes: writing the same number
    // back while the learner types "2." would drop the dot and put the caret first
    let value = Memo::new(move |_| value.get());
    let described = described_by(testid, describedby, invalid);
    // a real number is typed into a text input, as a lesson's answer is, and read by
    // crate::format::read_typed_number: a number input drops a comma it does not expect
    // ("1,5" became 15); a whole number keeps the number input and its arrows
    let real = step == Some("any");
    let text = list || real;
    let input = view! {
        <input
            data-testid=testid
            type=if text { "text" } else { "number" }
            inputmode=real.then_some("decimal")
            autocomplete=text.then_some("off")
            min=(!text).then_some(min)
            max=max.filter(|_| !text)
            step=step.filter(|_| !text)
            placeholder=placeholder
            aria-describedby=described
            aria-invalid=move || invalid.get().then_some("true")
            prop:value=move || value.get()
            prop:disabled=move || disabled.is_some_and(|d| d.get())
            on:input=move |ev| {
                if !commit {
                    on_input.run(field_text(&ev))
                }
            }
            on:change=move |ev| {
                if commit {
                    on_input.run(field_text(&ev))
                }
            }
        />
        {children.map(|c| c())}
    };
    field_group(label, input, testid, error)
}

/// What [`NumberField`] reports for text that is not a number: a number input's value is
/// "" both when it is empty and when it holds such text ("1e", "x"), which only its
/// `validity.badInput` tells apart.
pub const NOT_A_NUMBER: &str = "not a number";

/// The input's text, or [`NOT_A_NUMBER`] when the browser holds text that is not a number.
pub fn field_text(ev: &leptos::ev::Event) -> String {
    let get = |v: &wasm_bindgen::JsValue, key: &str| js_sys::Reflect::get(v, &key.into()).ok();
    let bad = ev
        .target()
        .map(wasm_bindgen::JsValue::from)
        .and_then(|t| get(&t, "validity"))
        .and_then(|v| get(&v, "badInput"))
        .and_then(|b| b.as_bool())
        .unwrap_or(false);
    if bad {
        NOT_A_NUMBER.to_string()
    } else {
        event_target_value(ev)
    }
}

/// A checkbox with its words after it, in one `<label class="al-check">`.
#[component]
pub fn CheckField(
    /// The checkbox's `data-testid`.
    testid: &'static str,
    /// Whether the box is ticked.
    #[prop(into)]
    checked: Signal<bool>,
    /// Called with the box's new state when the user ticks or clears it.
    on_change: Callback<bool>,
    /// The words after the box.
    children: Children,
) -> impl IntoView {
    view! {
        <label class="al-check">
            <input
                data-testid=testid
                type="checkbox"
                prop:checked=move || checked.get()
                on:change=move |ev| on_change.run(event_target_checked(&ev))
            />
            {children()}
        </label>
    }
}
