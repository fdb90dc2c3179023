//! Stepping back through training: a slider over the run's steps; the worker answers with
//! the model at the latest checkpoint at or before the chosen step (it keeps one every
//! [`CHECKPOINT_EVERY`] steps), and the maps and the curve's marker show that step.

use attention_worker::train::CHECKPOINT_EVERY;
use leptos::prelude::*;

use crate::format::fixed;

use crate::ui::learn::loss_curve::percent;
use crate::ui::learn::run::LearnRun;

/// The slider and what it shows.
#[component]
pub fn Scrubber(
    /// The training run.
    run: LearnRun,
) -> impl IntoView {
    let value = move || {
        run.scrubbed.with(|c| c.as_ref().map(|c| c.step)).unwrap_or_else(|| run.steps_done.get()).to_string()
    };
    let words = move || {
        run.scrubbed.with(|c| match c {
            Some(c) => format!(
                "Showing the model as it was after step {}: on the probe batch, loss {} and accuracy {}.",
                c.step,
                fixed(c.probe.loss, 3),
                percent(c.probe.accuracy)
            ),
            None => format!(
                "Drag to step back through the run: the maps show the model as it was (saved every {CHECKPOINT_EVERY} steps)."
            ),
        })
    };
    view! {
        <div class="al-learn-scrub">
            <label class="al-field">
                <span>"Step back through training"</span>
                <input
                    type="range"
                    data-testid="learn-scrub"
                    min="0"
                    max=move || run.steps_done.get()
                    step=CHECKPOINT_EVERY
                    prop:value=value
                    disabled=move || run.steps_done.get() < CHECKPOINT_EVERY
                    on:input=move |ev| {
                        if let Ok(step) = event_target_value(&ev).parse::<usize>() {
                            run.scrub(step);
                        }
                    }
                />
            </label>
            <p data-testid="learn-scrub-words">{words}</p>
            <button
                type="button"
                data-testid="learn-now"
                hidden=move || run.scrubbed.with(Option::is_none)
                on:click=move |_| run.unscrub()
            >
                "Back to now"
            </button>
        </div>
    }
}
