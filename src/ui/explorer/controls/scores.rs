//! A head size of its own, and what keeps the scores in range: the scale in place of
//! 1/√d_k, logit softcapping, multi-head latent attention's rank, QK-norm, and attention
//! sinks. Each only sets a scenario
//! field; the engine computes and checks it, and its error shows beside the control.

use leptos::prelude::*;

use crate::engine::error::Field;
use crate::engine::QkNorm;
use crate::ui::explorer::controls::{
    any, positive, positive_or_off, Edits, FieldError, NumberSpec, SettingNumber,
};
use crate::ui::state::settings::{set_mla_rank, Settings};
use crate::ui::state::size_words::mla_words;
use crate::ui::widgets::fields::CheckField;

/// A field's text from the settings, and what typing does; called with its [`NumberSpec`]'s
/// error key.
type Wire = fn(Edits, &'static str) -> (Signal<String>, Callback<String>);

/// A field's hint read from the settings, above its static one (`None`: only that).
type LiveHint = Option<fn(&Settings) -> String>;

/// The number fields where empty (or 0, but for the scale) is the engine's default, in the
/// order they show, with their live hints.
const ZERO_OFF: [(NumberSpec, Wire, LiveHint); 4] = [
    (
        NumberSpec::new("d_head (size of one head)", "d-head", "d_head", 0)
            .placeholder("d_model/h")
            .hint("Each head's q, k, v width; empty or 0: d_model / h. Gemma 2 2B: d_model 2304, h = 8, d_head = 256.")
            .error(Field::DHead),
        |edits, key| {
            let message = "d_head must be a whole number (empty or 0: d_model / h)";
            zero_off(edits, (key, message, "d_model / h"), any, |s| s.d_head, |s, v| s.d_head = v)
        },
        None,
    ),
    (
        NumberSpec::new("scale (in place of 1/√d_k)", "scale", "scale", 0)
            .real()
            .placeholder("1/√d_k")
            .hint("What the scores q·k are multiplied by; empty: 1/√d_k. Gemma 2 27B: 1/√144, though d_k = 128.")
            .error(Field::Scale),
        |edits, key| {
            // 0 is not "off" for the scale (every weight would be equal): not taken, as the
            // engine and the link refuse it
            let message = "the scale must be a number greater than 0 (empty: 1/√d_k)";
            // what was typed shows while it is not a scale in use (a refused "0", "abc"); a
            // scale that was taken and then cleared from outside (a lesson step reopened,
            // "Use this step's own numbers") leaves the field empty, as the setting is
            let typed = RwSignal::new(String::new());
            let value = Memo::new(move |_| {
                edits.settings.with(|s| s.scale).map_or_else(
                    || typed.with(|t| if t.parse::<f64>().is_ok_and(positive) { String::new() } else { t.clone() }),
                    |v| v.to_string(),
                )
            });
            let on_input = Callback::new(move |raw: String| {
                typed.set(raw.trim().to_owned());
                if raw.trim().is_empty() {
                    edits.set_zero_off::<f64>(key, "", message, any, &|s, _| s.scale = None);
                } else {
                    edits.set_real(key, &raw, message, positive, &|s, v| s.scale = Some(v));
                    edits.say_in_use(key, &|s| s.scale.map_or("1/√d_k".into(), |v| v.to_string()));
                }
            });
            (value.into(), on_input)
        },
        None,
    ),
    (
        NumberSpec::new("softcap c", "softcap", "softcap", 0)
            .real()
            .placeholder("off")
            .hint("c·tanh(score / c): no score goes past ±c; empty or 0: off. Gemma 2 caps at c = 50.")
            .error(Field::Softcap),
        |edits, key| {
            let message = "the softcap must be a number greater than 0 (empty or 0: off)";
            zero_off(edits, (key, message, "off"), positive_or_off, |s| s.softcap, |s, v| s.softcap = v)
        },
        None,
    ),
    (
        NumberSpec::new("MLA latent r_kv", "mla-rank", "mla_rank", 0)
            .placeholder("off")
            .hint(
                "Multi-head latent attention (DeepSeek-V2, V3): each token is cached as a latent c_KV of r_kv \
                 numbers and one RoPE key shared by every head; each head's keys and values are projected up \
                 from the latent. Seeded weights. Empty or 0: off.",
            )
            .error(Field::Mla),
        |edits, key| {
            let message = "the MLA rank must be a whole number (empty or 0: off)";
            zero_off(edits, (key, message, "off"), any, |s| s.mla.as_ref().map(|m| m.kv_lora_rank), set_mla_rank)
        },
        Some(mla_words),
    ),
];

const SINKS: NumberSpec = NumberSpec::new("sinks (logit per head)", "sinks", "sinks", 0)
    .list()
    .placeholder("off")
    .hint(
        "One more column in each row's softmax, then dropped: the weights sum to less than 1. One number (the \
         same sink for every head) or h numbers, one per head; empty: off (0 is a sink too). gpt-oss.",
    )
    .error(Field::Sinks);

/// "Head size and score range".
#[component]
pub fn ScoreFields(
    /// How the controls write the settings.
    edits: Edits,
) -> impl IntoView {
    let on_qk_norm = move |on: bool| edits.set(&|s| s.qk_norm = on.then(QkNorm::per_head));
    let on_sinks = move |raw: String| {
        let message = "the sinks must be numbers, one for every head or one per head";
        edits.set_numbers(SINKS.key, &raw, message, &|s, v| {
            // one number is every head's logit
            s.sinks = v.map(|v| if v.len() == 1 { vec![v[0]; s.n_heads] } else { v })
        })
    };
    let zero_off_fields = ZERO_OFF
        .into_iter()
        .map(|(spec, wire, live)| {
            let (value, on_input) = wire(edits, spec.key);
            let live = live.map(|words| {
                let testid = format!("{}-sizes", spec.testid);
                view! {
                    <span class="al-hint" data-testid=testid>
                        {move || edits.settings.with(words)}
                    </span>
                }
            });
            view! {
                <SettingNumber edits spec value on_input>
                    {live}
                </SettingNumber>
            }
        })
        .collect_view();
    view! {
        <fieldset class="al-row al-modern al-scores">
            <legend>"Head size and score range"</legend>
            {zero_off_fields}
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
                <FieldError error=edits.error field=Field::QkNorm />
            </div>
            <SettingNumber
                edits
                spec=SINKS
                value=edits
                    .read(|s| {
                        s.sinks
                            .as_ref()
                            .map(|v| v.iter().map(f64::to_string).collect::<Vec<_>>().join(", "))
                            .unwrap_or_default()
                    })
                on_input=Callback::new(on_sinks)
            />
        </fieldset>
    }
}

/// A number field where empty or 0 is off: its text from the settings, and what typing
/// does. While off it shows what was typed to turn it off ("" or "0"), so that typing 0
/// is not erased under the cursor. `words` are the field's error key, what its typing
/// error says, and what the page uses while it is off; a number that is not `valid` is
/// not applied.
fn zero_off<T>(
    edits: Edits,
    words: (&'static str, &'static str, &'static str),
    valid: fn(T) -> bool,
    get: fn(&Settings) -> Option<T>,
    set: fn(&mut Settings, Option<T>),
) -> (Signal<String>, Callback<String>)
where
    T: std::str::FromStr + Copy + Default + PartialEq + ToString + Send + Sync + 'static,
{
    let (field, message, off) = words;
    let typed_off = RwSignal::new(String::new());
    let value =
        Memo::new(move |_| edits.settings.with(get).map_or_else(|| typed_off.get(), |v| v.to_string()));
    let on_input = Callback::new(move |raw: String| {
        let text = raw.trim();
        if text.is_empty() || text.parse::<T>().is_ok_and(|v| v == T::default()) {
            typed_off.set(text.to_owned());
        }
        edits.set_zero_off(field, &raw, message, valid, &|s, v| set(s, v));
        edits.say_in_use(field, &|s| get(s).map_or_else(|| off.to_owned(), |v| v.to_string()));
    });
    (value.into(), on_input)
}
