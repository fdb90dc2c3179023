//! A head size of its own, and what keeps the scores in range: the scale in place of
//! 1/√d_k, logit softcapping, multi-head latent attention's rank, QK-norm, and attention
//! sinks. Each only sets a scenario
//! field; the engine computes and checks it, and its error shows beside the control.

use leptos::prelude::*;

use crate::engine::error::Field;
use crate::engine::QkNorm;
use crate::ui::explorer::controls::{Edits, FieldError};
use crate::ui::state::settings::{set_mla_rank, Settings};
use crate::ui::widgets::fields::{CheckField, NumberField, TextField};

/// "Head size and score range".
#[component]
pub fn ScoreFields(
    /// How the controls write the settings.
    edits: Edits,
) -> impl IntoView {
    let Edits { error, .. } = edits;
    let shown = move |f: fn(&Settings) -> String| -> Signal<String> {
        Memo::new(move |_| edits.settings.with(f)).into()
    };
    let (d_head, on_d_head) = zero_off(
        edits,
        "d_head",
        "d_head must be a whole number (empty or 0: d_model / h)",
        |s| s.d_head,
        |s, v| s.d_head = v,
    );
    let (scale, on_scale) = zero_off(
        edits,
        "scale",
        "the scale must be a number (empty or 0: 1/√d_k)",
        |s| s.scale,
        |s, v| s.scale = v,
    );
    let (softcap, on_softcap) = zero_off(
        edits,
        "softcap",
        "the softcap must be a number (empty or 0: off)",
        |s| s.softcap,
        |s, v| s.softcap = v,
    );
    let (mla_rank, on_mla_rank) = zero_off(
        edits,
        "mla_rank",
        "the MLA rank must be a whole number (empty or 0: off)",
        |s| s.mla.as_ref().map(|m| m.kv_lora_rank),
        set_mla_rank,
    );
    let on_qk_norm = move |on: bool| edits.set(&|s| s.qk_norm = on.then(QkNorm::per_head));
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
                placeholder="d_model/h"
                value=d_head
                on_input=on_d_head
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
                value=scale
                on_input=on_scale
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
                value=softcap
                on_input=on_softcap
            >
                {edits.number_error("softcap")}
                <span class="al-hint">
                    "c·tanh(score / c): no score goes past ±c. Gemma 2 caps at c = 50."
                </span>
                <FieldError error=error field=Field::Softcap />
            </NumberField>
            <NumberField
                label="MLA latent r_kv"
                testid="mla-rank"
                min="0"
                placeholder="off"
                value=mla_rank
                on_input=on_mla_rank
            >
                {edits.number_error("mla_rank")}
                <span class="al-hint">
                    "Multi-head latent attention (DeepSeek-V2, V3): each token is cached as a latent c_KV of r_kv numbers and one RoPE key shared by every head; each head's keys and values are projected up from the latent. Heads as V3's: d_nope = d_v = d_model/h, d_rope about half. Seeded weights. Empty or 0: off."
                </span>
                <FieldError error=error field=Field::Mla />
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
                    s.sinks
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

/// A number field where empty or 0 is off: its text from the settings, and what typing
/// does. While off it shows what was typed to turn it off ("" or "0"), so that typing 0
/// is not erased under the cursor.
fn zero_off<T>(
    edits: Edits,
    field: &'static str,
    message: &'static str,
    get: fn(&Settings) -> Option<T>,
    set: fn(&mut Settings, Option<T>),
) -> (Signal<String>, Callback<String>)
where
    T: std::str::FromStr + Copy + Default + PartialEq + ToString + Send + Sync + 'static,
{
    let typed_off = RwSignal::new(String::new());
    let value =
        Memo::new(move |_| edits.settings.with(get).map_or_else(|| typed_off.get(), |v| v.to_string()));
    let on_input = Callback::new(move |raw: String| {
        let text = raw.trim();
        if text.is_empty() || text.parse::<T>().is_ok_and(|v| v == T::default()) {
            typed_off.set(text.to_owned());
        }
        edits.set_zero_off(field, &raw, message, &|s, v| set(s, v));
    });
    (value.into(), on_input)
}
