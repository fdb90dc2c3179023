//! The mask: causal, padding, the fill value, the sliding window and the first keys kept
//! beside it (StreamingLLM).

use leptos::prelude::*;

use crate::engine::error::Field;
use crate::engine::{Fill, Padding};
use crate::ui::explorer::controls::{any, Edits, NumberSpec, SelectSpec, SettingNumber, SettingSelect};
use crate::ui::widgets::fields::{CheckField, Choice};

const PADDING: SelectSpec = SelectSpec::new(
    "padding",
    "mask-padding",
    PADDINGS,
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
pub(super) const WINDOW: NumberSpec =
    NumberSpec::new("sliding window (keys; empty = none)", "mask-window", "window", 1)
        .placeholder("none")
        .error(Field::Window);
pub(super) const KEEP_FIRST: NumberSpec = NumberSpec::new(
    "kept first keys (beside the window; empty or 0 = none)",
    "mask-keep-first",
    "keep_first",
    0,
)
.placeholder("none")
.hint("StreamingLLM's attention sinks; each key keeps its own position")
.error(Field::KeepFirst);

/// The padding menu's choices.
const PADDINGS: &[Choice] = &[
    ("none", "none", false),
    ("keys", "keys (no query attends to <pad>)", false),
    ("keys_and_queries", "keys and queries (<pad> rows blocked too)", false),
];

/// What the engine does with a sliding window in cross-attention, said beside the field
/// (the window is applied, but no model the lessons cite has one there): `None` without a
/// window or without key/value sentences.
pub fn window_in_cross_note(mask: &crate::engine::MaskConfig, cross: bool) -> Option<String> {
    let w = mask.window.filter(|_| cross)?;
    let (rule, clear) = if mask.causal {
        (format!("j ≤ i − {w} (the window) or j > i (the causal mask)"), "the window and the causal box")
    } else {
        (format!("|i − j| ≥ {w}"), "the window")
    };
    Some(format!(
        "Cross-attention with a window: the engine applies it as in self-attention, blocking key j for \
         query i when {rule}, with i counted in the query sentence and j in the key/value sentence, two \
         different texts. No model the lessons cite does this: Mistral's window is in its self-attention, \
         and a translation model's cross-attention reads every source token. Clear {clear} to read them \
         all."
    ))
}

/// What a `true` in this app's mask means, and how PyTorch's boolean masks read it:
/// `F.scaled_dot_product_attention` fills `attn_mask.logical_not()` with `-inf` (its
/// `True` = take part); `nn.MultiheadAttention`'s `key_padding_mask` and boolean
/// `attn_mask` ignore a `True` position, as here.
pub const MASK_CONVENTION: &str = "In this app's mask, true means blocked: the query may not see that key, and its \
     score is replaced by the fill below. PyTorch's F.scaled_dot_product_attention reads a boolean attn_mask the \
     other way round, True = the key takes part, so pass it ~blocked; nn.MultiheadAttention's boolean masks \
     (key_padding_mask, attn_mask) use True = blocked, as here.";

/// The mask's fieldset, with what `true` means in it ([`MASK_CONVENTION`]).
#[component]
pub fn MaskFields(
    /// How the controls write the settings.
    edits: Edits,
) -> impl IntoView {
    let cross_note = edits.read(|s| window_in_cross_note(&s.mask, s.kv_text.is_some()));
    view! {
        <fieldset class="al-row al-mask">
            <legend>"Mask: the keys a query may not see"</legend>
            <p class="al-note al-mask-convention" data-testid="mask-convention">
                {MASK_CONVENTION}
            </p>
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
                    edits.set_optional(WINDOW, &raw, &|s, v| s.mask.window = v);
                    edits.say_in_use(WINDOW.key, &|s| s.mask.window.map_or("none".into(), |w| w.to_string()));
                })
            />
            {move || {
                cross_note
                    .get()
                    .map(|note| {
                        view! {
                            <p class="al-note" data-testid="window-cross-note" role="note">
                                {note}
                            </p>
                        }
                    })
            }}
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
                            any,
                            &|s, v| s.mask.keep_first = v,
                        )
                })
            />
        </fieldset>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{run, MaskConfig, Scenario};

    /// The note states the rule the engine applies: the cells it blocks are the ones the
    /// note's rule names, causal or not.
    #[test]
    fn the_window_note_in_cross_attention_states_the_engines_rule() {
        let mut s = Scenario::identity(&["a b c d e"], 4, 1);
        s.kv_sentences = Some(vec!["p q r s t u".into()]);
        s.mask.window = Some(2);
        assert_eq!(window_in_cross_note(&MaskConfig::default(), true), None);
        assert_eq!(window_in_cross_note(&s.mask, false), None);
        for causal in [false, true] {
            s.mask.causal = causal;
            let note = window_in_cross_note(&s.mask, true).unwrap();
            assert!(note.contains(if causal { "j ≤ i − 2" } else { "|i − j| ≥ 2" }), "{note}");
            // the causal mask blocks the later keys too, and the note says so
            assert_eq!(note.contains("or j > i (the causal mask)"), causal, "{note}");
            let t = run(&s).unwrap();
            for i in 0..5usize {
                for j in 0..6usize {
                    let by_window = if causal { j + 2 <= i } else { i.abs_diff(j) >= 2 };
                    let by_causal = causal && j > i;
                    assert_eq!(t.mask.is_blocked(0, i, j), by_window || by_causal, "{causal} ({i}, {j})");
                }
            }
        }
    }
}
