//! The options as today's models run them: grouped key/value heads (with the K/V cache
//! they save), RoPE and its base, ALiBi.

use leptos::prelude::*;

use crate::engine::error::Field;
use crate::engine::{Rope, RopeStyle};
use crate::ui::explorer::controls::{positive, Edits, NumberSpec, SelectSpec, SettingNumber, SettingSelect};
use crate::ui::state::settings::Settings;
use crate::ui::state::size_words::cache_words;
use crate::ui::widgets::fields::{CheckField, Choice};

pub(super) const H_KV: NumberSpec =
    NumberSpec::new("h_kv (key/value heads)", "n-kv-heads", "h_kv", 1).max(64).error(Field::NKvHeads);
/// The RoPE menu's choices.
const ROPE_STYLES: &[Choice] = &[
    ("none", "none", false),
    ("half", "half: i with i + d_k/2 (Llama in transformers)", false),
    ("interleaved", "interleaved: 2i with 2i+1 (RoFormer, Meta)", false),
];
const ROPE: SelectSpec = SelectSpec::new(
    "RoPE (rotary positions)",
    "rope",
    ROPE_STYLES,
    |s| s.rope.map_or("none", |r| r.style.name()),
    set_rope,
)
.error(Field::Rope);
const ROPE_BASE: NumberSpec = NumberSpec::new("RoPE base", "rope-base", "RoPE base", 1).real();

/// "As today's models run it".
#[component]
pub fn ModernFields(
    /// How the controls write the settings.
    edits: Edits,
) -> impl IntoView {
    let settings = edits.settings;
    let cache_text = move || settings.with(cache_words);
    let on_rope_base = move |raw: String| {
        let message = "the RoPE base must be a number greater than 0";
        edits.set_real(ROPE_BASE.key, &raw, message, positive, &|s, base| {
            s.rope = s.rope.map(|r| Rope { base, ..r })
        });
        edits.say_in_use(ROPE_BASE.key, &|s| s.rope.map_or(Rope::DEFAULT_BASE, |r| r.base).to_string());
    };
    view! {
        <fieldset class="al-row al-modern">
            <legend>"As today's models run it"</legend>
            <SettingNumber
                edits
                spec=H_KV
                describedby="al-cache-per-token"
                value=edits.read(|s| s.n_kv_heads.unwrap_or(s.n_heads).to_string())
                on_input=Callback::new(move |raw: String| {
                    edits.set_optional(H_KV, &raw, &|s, v| s.n_kv_heads = v.filter(|&v| v != s.n_heads));
                    edits.say_in_use(H_KV.key, &|s| s.n_kv_heads.unwrap_or(s.n_heads).to_string());
                })
            >
                <span class="al-hint" id="al-cache-per-token" data-testid="kv-cache-per-token">
                    {cache_text}
                </span>
            </SettingNumber>
            <SettingSelect edits spec=ROPE />
            <SettingNumber
                edits
                spec=ROPE_BASE
                value=edits.read(|s| s.rope.map_or(Rope::DEFAULT_BASE, |r| r.base).to_string())
                disabled=edits.read(|s| s.rope.is_none())
                on_input=Callback::new(on_rope_base)
            />
            <CheckField
                testid="alibi"
                checked=edits.read(|s| s.alibi)
                on_change=Callback::new(move |on: bool| edits.set(&|s| s.alibi = on))
            >
                "ALiBi (a per-head penalty for distant keys: m·(j − i) with causal, −m·|i − j| without)"
            </CheckField>
        </fieldset>
    }
}

/// RoPE of the chosen style (`none`: off), keeping the base, rotary fraction and scaling
/// already set.
fn set_rope(s: &mut Settings, v: &str) {
    s.rope = RopeStyle::from_name(v).map(|style| Rope {
        style,
        base: s.rope.map_or(Rope::DEFAULT_BASE, |r| r.base),
        fraction: s.rope.and_then(|r| r.fraction),
        scaling: s.rope.and_then(|r| r.scaling),
    });
}
