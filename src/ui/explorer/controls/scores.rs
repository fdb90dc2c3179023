//! A head size of its own, and what keeps the scores in range: the scale in place of
//! 1/√d_k, logit softcapping, QK-norm, and attention sinks. Each only sets a scenario
//! field; the engine computes and checks it, and its error shows beside the control.

use leptos::prelude::*;

use crate::engine::error::Field;
use crate::engine::QkNorm;
use crate::ui::explorer::controls::{Edits, FieldError};
use crate::ui::state::settings::Settings;
use crate::ui::widgets::fields::{CheckField, NumberField, TextField};

/// "Head size and score range".
#[component]
pub fn ScoreFields(
    /// How the controls write the settings.
    edits: Edits,
) -> impl IntoView {
    let Edits { error, .. } = edits;
    // A memo, so that typing "0" (off) into an empty field leaves the "0" in place.
    let shown = move |f: fn(&Settings) -> String| -> Signal<String> {
        Memo::new(move |_| edits.settings.with(f)).into()
    };
    let on_qk_norm = move |on: bool| {
        edits.set(&|s| {
            s.qk_norm = on.then(|| QkNorm { q_weight: vec![], k_weight: vec![], eps: QkNorm::DEFAULT_EPS })
        })
    };
    let on_sinks = move |raw: String| {
        let message = "the sinks must be numbers, one for every head or one per head";
        edits.set_numbers("sinks", &raw, message, &|s, v| {
            // one number is every head's logit
            s.sinks = v.map(|v| if v.len() == 1 { vec![v[0]; s.n_heads] } else { v })
        })
    };
    view! {
        <fieldset class="al-row al-modern al-scores">
            <legend>"Head size and score range"</legend>
            <NumberField
                label="d_head (size of one head)"
                testid="d-head"
                min="0"
                placeholder="d_model / h"
                value=shown(|s| s.d_head.map(|d| d.to_string()).unwrap_or_default())
                on_input=Callback::new(move |raw: String| {
                    let message = "d_head must be a whole number (empty or 0: d_model / h)";
                    edits.set_zero_off("d_head", &raw, message, &|s, v| s.d_head = v)
                })
            >
                {edits.number_error("d_head")}
                <span class="al-hint">
                    "Each head's q, k, v width; empty or 0: d_model / h. Gemma 2 2B: d_model 2304, h = 8, d_head = 256."
                </span>
                <FieldError error=error field=Field::DHead />
            </NumberField>
            <NumberField
                label="scale (in place of 1/√d_k)"
                testid="scale"
                min="0"
                step="any"
                placeholder="1/√d_k"
                value=shown(|s| number(s.scale))
                on_input=Callback::new(move |raw: String| {
                    let message = "the scale must be a number (empty or 0: 1/√d_k)";
                    edits.set_zero_off("scale", &raw, message, &|s, v| s.scale = v)
                })
            >
                {edits.number_error("scale")}
                <span class="al-hint">
                    "What the scores q·k are multiplied by. Gemma 2 27B: 1/√144, though d_k = 128."
                </span>
                <FieldError error=error field=Field::Scale />
            </NumberField>
            <NumberField
                label="softcap c"
                testid="softcap"
                min="0"
                step="any"
                placeholder="off"
                value=shown(|s| number(s.softcap))
                on_input=Callback::new(move |raw: String| {
                    let message = "the softcap must be a number (empty or 0: off)";
                    edits.set_zero_off("softcap", &raw, message, &|s, v| s.softcap = v)
                })
            >
                {edits.number_error("softcap")}
                <span class="al-hint">
                    "c·tanh(score / c): no score goes past ±c. Gemma 2 caps at c = 50."
                </span>
                <FieldError error=error field=Field::Softcap />
            </NumberField>
            <div class="al-field">
                <CheckField
                    testid="qk-norm"
                    checked=edits.read(|s| s.qk_norm.is_some())
                    on_change=Callback::new(on_qk_norm)
                >
                    "QK-norm"
                </CheckField>
                <span class="al-hint">
                    "RMSNorm on each head's q and k (weights 1, ε = 1e-6) before RoPE, so their size cannot blow up the scores. Qwen3, Gemma 3."
                </span>
                <FieldError error=error field=Field::QkNorm />
            </div>
            <TextField
                label="sinks (logit per head)"
                testid="sinks"
                placeholder="off"
                value=shown(|s| {
                    s
                        .sinks
                        .as_ref()
                        .map(|v| v.iter().map(f64::to_string).collect::<Vec<_>>().join(", "))
                        .unwrap_or_default()
                })
                on_change=Callback::new(on_sinks)
            >
                {edits.number_error("sinks")}
                <span class="al-hint">
                    "One more column in each row's softmax, then dropped: the weights sum to less than 1. One number for every head, or one per head; empty: off (0 is a sink too). gpt-oss."
                </span>
                <FieldError error=error field=Field::Sinks />
            </TextField>
        </fieldset>
    }
}

/// An optional real number as its field shows it: empty when off.
fn number(v: Option<f64>) -> String {
    v.map(|v| v.to_string()).unwrap_or_default()
}
