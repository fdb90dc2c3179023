//! The mask: causal, padding, the fill value, the sliding window and the first keys kept
//! beside it (StreamingLLM).

use leptos::prelude::*;

use crate::engine::error::Field;
use crate::engine::{Fill, Padding};
use crate::ui::explorer::controls::{Edits, NumberSpec, SelectSpec, SettingNumber, SettingSelect};
use crate::ui::widgets::fields::CheckField;

const PADDING: SelectSpec = SelectSpec::new(
    "padding",
    "mask-padding",
    &[
        ("none", "none", false),
        ("keys", "keys (no query attends to <pad>)", false),
        ("keys_and_queries", "keys and queries (<pad> rows blocked too)", false),
    ],
    |s| s.mask.padding.name(),
    |s, v| s.mask.padding = Padding::from_name(v).unwrap_or_default(),
);
const FILL: SelectSpec = SelectSpec::new(
    "fill",
    "mask-fill",
    &[("neg_inf", "-inf  (float('-inf'))", false), ("large_negative", "-1e9", false)],
    |s| s.mask.fill.name(),
    |s, v| s.mask.fill = Fill::from_name(v).unwrap_or_default(),
);
const WINDOW: NumberSpec = NumberSpec::new("sliding window (keys; empty = none)", "mask-window", "window", 1)
    .placeholder("none")
    .error(Field::Window);
const KEEP_FIRST: NumberSpec = NumberSpec::new(
    "kept first keys (beside the window; empty or 0 = none)",
    "mask-keep-first",
    "keep_first",
    0,
)
.placeholder("none")
.hint("StreamingLLM's attention sinks; each key keeps its own position")
.error(Field::KeepFirst);

/// The mask's fieldset (engine convention: `true` = blocked).
#[component]
pub fn MaskFields(
    /// How the controls write the settings.
    edits: Edits,
) -> impl IntoView {
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
            <SettingSelect edits spec=PADDING />
            <SettingSelect edits spec=FILL />
            <SettingNumber
                edits
                spec=WINDOW
                value=edits.read(|s| s.mask.window.map(|w| w.to_string()).unwrap_or_default())
                on_input=Callback::new(move |raw: String| {
                    edits.set_optional(WINDOW.key, &raw, &|s, v| s.mask.window = v)
                })
            />
            <SettingNumber
                edits
                spec=KEEP_FIRST
                value=edits.read(|s| s.mask.keep_first.map(|n| n.to_string()).unwrap_or_default())
                on_input=Callback::new(move |raw: String| {
                    edits
                        .set_zero_off(
                            KEEP_FIRST.key,
                            &raw,
                            "a whole number of at least 0",
                            &|s, v| s.mask.keep_first = v,
                        )
                })
            />
        </fieldset>
    }
}
