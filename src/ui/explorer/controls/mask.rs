//! The mask: causal, padding, the fill value, the sliding window.

use leptos::prelude::*;

use crate::engine::error::Field;
use crate::engine::{Fill, Padding};
use crate::ui::explorer::controls::{Edits, FieldError};
use crate::ui::widgets::fields::{CheckField, NumberField, SelectField};

/// The mask's fieldset (engine convention: `true` = blocked).
#[component]
pub fn MaskFields(
    /// How the controls write the settings.
    edits: Edits,
) -> impl IntoView {
    let Edits { error, .. } = edits;
    view! {
        <fieldset class="al-row al-mask">
            <legend>"Mask (engine convention: " <code>"true = blocked"</code> ")"</legend>
            <CheckField
                testid="mask-causal"
                checked=edits.read(|s| s.mask.causal)
                on_change=Callback::new(move |c: bool| edits.set(&|s| s.mask.causal = c))
            >
                "causal (query i never sees key j > i)"
            </CheckField>
            <SelectField
                label="padding"
                testid="mask-padding"
                value=edits.read(|s| s.mask.padding.name())
                choices=vec![
                    ("none", "none", false),
                    ("keys", "keys (no query attends to <pad>)", false),
                    ("keys_and_queries", "keys and queries (<pad> rows blocked too)", false),
                ]
                on_change=Callback::new(move |v: String| {
                    let p = Padding::from_name(&v).unwrap_or_default();
                    edits.set(&|s| s.mask.padding = p);
                })
            />
            <SelectField
                label="fill"
                testid="mask-fill"
                value=edits.read(|s| s.mask.fill.name())
                choices=vec![("neg_inf", "-inf  (float('-inf'))", false), ("large_negative", "-1e9", false)]
                on_change=Callback::new(move |v: String| {
                    let f = Fill::from_name(&v).unwrap_or_default();
                    edits.set(&|s| s.mask.fill = f);
                })
            />
            <NumberField
                label="sliding window (keys; empty = none)"
                testid="mask-window"
                min="1"
                placeholder="none"
                value=edits.read(|s| s.mask.window.map(|w| w.to_string()).unwrap_or_default())
                on_input=Callback::new(move |raw: String| {
                    edits.set_optional("window", &raw, &|s, v| s.mask.window = v)
                })
            >
                {edits.number_error("window")}
                <FieldError error=error field=Field::Window />
            </NumberField>
        </fieldset>
    }
}
