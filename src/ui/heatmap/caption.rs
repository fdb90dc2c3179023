//! A card's caption (its title, what its rows and columns are, the PNG and CSV
//! downloads) and its canvas's text alternative.

use std::sync::Arc;

use leptos::html;
use leptos::prelude::*;

use crate::engine::{StepName, Trace};
use crate::ui::explain::explained::Explained;
use crate::ui::heatmap::card_data::{axis_titles_in, csv, is_shared_key, CardData};
use crate::ui::platform::files;
use crate::ui::state::card_id::CardId;

/// "head 2", or "K/V head 2" for the key/value heads before grouped-query attention's
/// repeat (there are h_kv of them, not h), or, for multi-head latent attention's one RoPE
/// key, "shared RoPE key": it is no head's.
fn head_title(trace: Signal<Option<Arc<Trace>>>, step: StepName, head: usize) -> String {
    if trace.with(|t| t.as_ref().is_some_and(|t| is_shared_key(t, step))) {
        return "shared RoPE key".to_owned();
    }
    let kv_step = matches!(step, StepName::KHeads | StepName::VHeads | StepName::KRot);
    let word = if kv_step && trace.with(|t| t.as_ref().is_some_and(|t| t.is_grouped())) {
        "K/V head"
    } else {
        "head"
    };
    format!("{word} {}", head + 1)
}

/// The canvas's text alternative: what it shows, its size, its largest number (not while
/// the learner guesses one of its cells: the largest may be the asked value).
pub fn canvas_label(trace: Signal<Option<Arc<Trace>>>, data: Memo<Option<CardData>>, id: CardId) -> String {
    let guessing = use_context::<Explained>().is_some_and(|e| e.hides(id));
    data.with(|d| {
        let head = d.as_ref().is_some_and(|d| d.has_heads);
        let title = trace.with(|t| t.as_ref().map_or_else(|| id.step.to_string(), |t| t.step_title(id.step)));
        let what = format!(
            "{title} heatmap, sentence {}{}",
            id.batch + 1,
            if head { format!(", {}", head_title(trace, id.step, id.head)) } else { String::new() },
        );
        match d {
            Some(d) if guessing => d.describe_hidden(&what),
            Some(d) => d.describe(&what),
            None => format!("{what}: 0 by 0"),
        }
    })
}

/// The caption above a card's canvas.
#[component]
pub fn CardCaption(
    /// The shown trace.
    #[prop(into)]
    trace: Signal<Option<Arc<Trace>>>,
    /// The card.
    id: CardId,
    /// What the card shows.
    data: Memo<Option<CardData>>,
    /// The card's canvas, for the PNG download.
    canvas: NodeRef<html::Canvas>,
) -> impl IntoView {
    let title = move || {
        if data.with(|d| d.as_ref().is_some_and(|d| d.has_heads)) {
            head_title(trace, id.step, id.head)
        } else if id.step == StepName::Pe {
            // PE depends on the position only: one matrix for every sentence
            "every sentence".to_string()
        } else {
            format!("sentence {}", id.batch + 1)
        }
    };
    let file_stem = format!("{}-b{}-h{}", id.step, id.batch, id.head);
    let png = {
        let stem = file_stem.clone();
        move |_| {
            if let Some(url) = canvas.get_untracked().and_then(|el| el.to_data_url().ok()) {
                files::download_url(&format!("{stem}.png"), &url);
            }
        }
    };
    let csv_click = move |_| {
        // built on click: formatting every number up front slowed every edit down
        data.with_untracked(|d| {
            if let Some(d) = d {
                files::download_text(
                    &format!("{file_stem}.csv"),
                    "text/csv",
                    &csv(&d.labels.rows, &d.labels.cols, &d.values),
                );
            }
        })
    };
    let axes = move || {
        let (rows, cols) = trace.with(|t| axis_titles_in(t.as_deref(), id.step));
        format!("rows: {rows} · columns: {cols}")
    };
    // the shared RoPE key's card is two or three columns narrow: its axis titles go under
    // the title and the buttons instead of being squeezed between them
    let narrow = move || trace.with(|t| t.as_ref().is_some_and(|t| is_shared_key(t, id.step)));
    view! {
        <figcaption class:al-caption-wrap=narrow>
            <span class="al-card-title" style=format!("--head-color: var(--al-head-{})", id.head % 8)>
                {title}
            </span>
            // what the rows and the columns are, in words (a reading layer), on the
            // caption's line so that the picture keeps its height
            <span class="al-axes" data-testid="axis-titles">
                {axes}
            </span>
            <span class="al-card-actions">
                <button type="button" class="al-small" on:click=png title="Download this heatmap as PNG">
                    "PNG"
                </button>
                <button type="button" class="al-small" on:click=csv_click title="Download this matrix as CSV">
                    "CSV"
                </button>
            </span>
        </figcaption>
    }
}
