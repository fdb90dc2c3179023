//! The sizes and weights: d_model, h (with d_k), the projections, their seed, positions,
//! the number of layers and the layer the views show.

use leptos::prelude::*;

use crate::engine::error::Field;
use crate::engine::{Positional, ProjectionKind, Projections, Scenario};
use crate::ui::explorer::controls::{Edits, NumberSpec, SelectSpec, SettingNumber, SettingSelect};
use crate::ui::state::settings::UI_MAX_D_MODEL;
use crate::ui::state::size_words::d_k_words;
use crate::ui::widgets::fields::Choice;

pub(super) const D_MODEL: NumberSpec =
    NumberSpec::new("d_model", "d-model", "d_model", 1).max(UI_MAX_D_MODEL).error(Field::DModel);
pub(super) const HEADS: NumberSpec =
    NumberSpec::new("h (heads)", "n-heads", "h", 1).max(64).error(Field::NHeads);
const SEED: NumberSpec = NumberSpec::new("seed", "seed", "seed", 0);
pub(super) const LAYERS: NumberSpec = NumberSpec::new("layers", "n-layers", "layers", 1)
    .max(Scenario::MAX_LAYERS)
    .hint("each adds its output to the residual stream; layer k's seeded weights are seed + k − 1's")
    .error(Field::NLayers);
pub(super) const LAYER: NumberSpec =
    NumberSpec::new("layer shown", "layer", "layer shown", 1).max(Scenario::MAX_LAYERS).error(Field::Layer);
const PROJECTIONS: SelectSpec = SelectSpec::new(
    "Projections W_Q, W_K, W_V, W_O",
    "projections",
    PROJECTION_KINDS,
    |s| match s.projections {
        Projections::Named(ProjectionKind::Identity) => "identity",
        Projections::Named(ProjectionKind::Seeded) => "seeded",
        Projections::Explicit(_) => "explicit",
    },
    |s, v| {
        let kind = if v == "identity" { ProjectionKind::Identity } else { ProjectionKind::Seeded };
        s.projections = Projections::Named(kind);
    },
)
.error(Field::Projections);
const POSITIONS: SelectSpec = SelectSpec::new(
    "positions",
    "positional",
    &[("none", "none (word order is invisible)", false), ("sinusoidal", "sinusoidal (x + PE)", false)],
    |s| s.positional.name(),
    |s, v| s.positional = Positional::from_name(v).unwrap_or_default(),
);

/// The projections menu's choices: imported weights can only be shown, not chosen.
const PROJECTION_KINDS: &[Choice] = &[
    ("identity", "identity (W = I)", false),
    ("seeded", "seeded (Xavier uniform)", false),
    ("explicit", "imported", true),
];

/// The first row of controls.
#[component]
pub fn SizeFields(
    /// How the controls write the settings.
    edits: Edits,
) -> impl IntoView {
    let d_k_text = move || edits.settings.with(d_k_words);
    let (d_model, on_d_model) = edits.count(D_MODEL, |s| s.d_model, |s, v| s.d_model = v);
    let (heads, on_heads) = edits.count(HEADS, |s| s.n_heads, |s, v| s.n_heads = v);
    // one layer, or fewer layers than the one shown: show the last
    let (layers, on_layers) = edits.count(
        LAYERS,
        |s| s.n_layers.unwrap_or(1),
        |s, n| {
            s.n_layers = (n != 1).then_some(n);
            if n == 1 || s.layer.is_some_and(|l| l > n) {
                s.layer = None;
            }
        },
    );
    let (layer, on_layer) =
        edits.count(LAYER, |s| s.layer.unwrap_or(s.n_layers.unwrap_or(1)), |s, l| s.layer = Some(l));
    let on_seed = move |raw: String| {
        edits.set_whole(SEED.key, &raw, "the seed must be a whole number of at least 0", &|s, v| s.seed = v);
    };
    view! {
        <div class="al-row">
            <SettingNumber edits spec=D_MODEL value=d_model on_input=on_d_model />
            <SettingNumber edits spec=HEADS value=heads on_input=on_heads>
                <span class="al-hint" data-testid="d-k">
                    {d_k_text}
                </span>
            </SettingNumber>
            <SettingSelect edits spec=PROJECTIONS />
            <SettingNumber
                edits
                spec=SEED
                value=edits.read(|s| s.seed.to_string())
                disabled=edits.read(|s| s.projections != Projections::Named(ProjectionKind::Seeded))
                on_input=Callback::new(on_seed)
            />
            <SettingSelect edits spec=POSITIONS />
            <SettingNumber edits spec=LAYERS value=layers on_input=on_layers />
            <SettingNumber
                edits
                spec=LAYER
                value=layer
                disabled=edits.read(|s| s.n_layers.unwrap_or(1) == 1 && s.layer.is_none())
                on_input=on_layer
            />
        </div>
    }
}
