//! What sits above the selected step's cards: the view modes (Tensors, Decode, Tiles),
//! the lines toggle and, presenting, the head picker.

use leptos::prelude::*;

use crate::ui::state::settings::{ViewMode, ViewState};

/// Tensors, Decode or Tiles: how the explorer shows the attention.
#[component]
pub fn ViewModes(
    /// The view settings (the mode is written there).
    view_state: RwSignal<ViewState>,
    /// The mode shown.
    mode: Memo<ViewMode>,
) -> impl IntoView {
    let set_mode = move |m: ViewMode| view_state.update(|v| v.mode = m);
    let mode_button = move |m: ViewMode, id: &'static str, text: &'static str| {
        view! {
            <button
                type="button"
                class="al-tab"
                data-testid=id
                class:al-selected=move || mode.get() == m
                aria-pressed=move || if mode.get() == m { "true" } else { "false" }
                on:click=move |_| set_mode(m)
            >
                {text}
            </button>
        }
    };
    view! {
        <nav class="al-view-modes" aria-label="How to look at the attention">
            {mode_button(ViewMode::Cards, "view-cards", "Tensors")}
            {mode_button(ViewMode::Decode, "view-decode", "Decode (KV cache)")}
            {mode_button(ViewMode::Tiles, "view-tiles", "Tiles (online softmax)")}
        </nav>
    }
}

/// "View as lines" / "View as heatmaps", for a (B, h, T_q, T_k) step.
#[component]
pub fn LinesToggle(
    /// The view settings (the choice is written there).
    view_state: RwSignal<ViewState>,
    /// Whether the step is shown as lines.
    as_lines: Signal<bool>,
) -> impl IntoView {
    view! {
        <button
            type="button"
            class="al-small al-lines-toggle"
            data-testid="lines-toggle"
            aria-pressed=move || if as_lines.get() { "true" } else { "false" }
            on:click=move |_| view_state.update(|v| v.lines = !v.lines)
        >
            {move || if as_lines.get() { "View as heatmaps" } else { "View as lines" }}
        </button>
    }
}

/// Presenting: which head's card is shown, one button per head.
#[component]
pub fn HeadPicker(
    /// How many heads.
    heads: usize,
    /// The head shown.
    head_shown: Memo<usize>,
    /// The head the learner picked, if any.
    chosen: RwSignal<Option<usize>>,
) -> impl IntoView {
    let buttons = (0..heads)
        .map(|h| {
            view! {
                <button
                    type="button"
                    class="al-tab"
                    data-testid="present-head"
                    data-head=h
                    class:al-selected=move || head_shown.get() == h
                    aria-pressed=move || if head_shown.get() == h { "true" } else { "false" }
                    on:click=move |_| chosen.set(Some(h))
                >
                    {format!("head {}", h + 1)}
                </button>
            }
        })
        .collect_view();
    view! {
        <div class="al-tabs al-head-picker" role="group" aria-label="Which head">
            {buttons}
        </div>
    }
}
