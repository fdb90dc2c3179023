//! The sizes and weights: d_model, h (with d_k), the projections, their seed, positions.

use leptos::prelude::*;

use crate::engine::error::Field;
use crate::engine::{Positional, ProjectionKind, Projections};
use crate::ui::explorer::controls::{Edits, FieldError};
use crate::ui::state::settings::{d_k_words, UI_MAX_D_MODEL};
use crate::ui::widgets::fields::{NumberField, SelectField};

/// The first row of controls.
#[component]
pub fn SizeFields(
    /// How the controls write the settings.
    edits: Edits,
) -> impl IntoView {
    let Edits { settings, error, .. } = edits;
    let d_k_text = move || settings.with(d_k_words);
    let projections = move || {
        settings.with(|s| match s.projections {
            Projections::Named(ProjectionKind::Identity) => "identity",
            Projections::Named(ProjectionKind::Seeded) => "seeded",
            Projections::Explicit(_) => "explicit",
        })
    };
    let on_projections = move |v: String| {
        let kind = if v == "identity" { ProjectionKind::Identity } else { ProjectionKind::Seeded };
        edits.set(&|s| s.projections = Projections::Named(kind));
    };
    let on_seed = move |raw: String| {
        if let Ok(v) = raw.trim().parse::<u64>() {
            edits.set(&|s| s.seed = v);
        }
    };
    view! {
        <div class="al-row">
            <NumberField
                label="d_model"
                testid="d-model"
                min="1"
                max=UI_MAX_D_MODEL.to_string()
                value=edits.read(|s| s.d_model.to_string())
                on_input=Callback::new(move |raw: String| {
                    edits.set_count("d_model", &raw, &|s, v| s.d_model = v)
                })
            >
                {edits.number_error("d_model")}
                <FieldError error=error field=Field::DModel />
            </NumberField>
            <NumberField
                label="h (heads)"
                testid="n-heads"
                min="1"
                max="64"
                value=edits.read(|s| s.n_heads.to_string())
                on_input=Callback::new(move |raw: String| edits.set_count("h", &raw, &|s, v| s.n_heads = v))
            >
                {edits.number_error("h")}
                <span class="al-hint" data-testid="d-k">
                    {d_k_text}
                </span>
                <FieldError error=error field=Field::NHeads />
            </NumberField>
            <SelectField
                label="Projections W_Q, W_K, W_V, W_O"
                testid="projections"
                value=Signal::derive(projections)
                choices=vec![
                    ("identity", "identity (W = I)", false),
                    ("seeded", "seeded (Xavier uniform)", false),
                    ("explicit", "imported", true),
                ]
                on_change=Callback::new(on_projections)
            >
                <FieldError error=error field=Field::Projections />
            </SelectField>
            <NumberField
                label="seed"
                testid="seed"
                min="0"
                value=edits.read(|s| s.seed.to_string())
                disabled=edits.read(|s| s.projections != Projections::Named(ProjectionKind::Seeded))
                on_input=Callback::new(on_seed)
            />
            <SelectField
                label="positions"
                testid="positional"
                value=edits.read(|s| s.positional.name())
                choices=vec![
                    ("none", "none (word order is invisible)", false),
                    ("sinusoidal", "sinusoidal (x + PE)", false),
                ]
                on_change=Callback::new(move |v: String| {
                    let p = Positional::from_name(&v).unwrap_or_default();
                    edits.set(&|s| s.positional = p);
                })
            />
        </div>
    }
}
