//! Stepping back through training: a slider over every step of the run so far; the worker
//! answers with the model as it was after that many updates (trained on from the state it
//! saved before it, the same to the bit), and the maps and the curve's marker show it.
//! Arrow keys move one update, Page Up and Page Down [`PAGE_STRIDE`].

use leptos::prelude::*;

use crate::format::fixed;

use crate::ui::learn::loss_curve::percent;
use crate::ui::learn::run::LearnRun;

/// Updates that Page Up and Page Down move the slider by: the induction lesson's
/// recorded run measures its heads every 10 updates, so paging lands on its steps.
pub const PAGE_STRIDE: usize = 10;

/// The slider's value after the key `key` from `value` on a slider from 0 to `max`, or
/// `None` for a key the slider handles itself (the arrows move one update, Home and End
/// to the ends).
pub fn paged(key: &str, value: usize, max: usize) -> Option<usize> {
    match key {
        "PageUp" => Some((value + PAGE_STRIDE).min(max)),
        "PageDown" => Some(value.saturating_sub(PAGE_STRIDE)),
        _ => None,
    }
}

/// The words for the model after `step` updates (the Learn view and the induction lesson
/// count the same way).
pub fn after_updates(step: usize) -> String {
    format!("after {step} update{}", if step == 1 { "" } else { "s" })
}

/// The slider and what it shows.
#[component]
pub fn Scrubber(
    /// The training run.
    run: LearnRun,
) -> impl IntoView {
    // the step asked for, kept while its answer is on the way (answers to earlier steps,
    // arriving meanwhile, do not move the slider back), forgotten back at now
    let wanted = RwSignal::new(None::<usize>);
    Effect::new(move |_| {
        if run.scrubbed.with(Option::is_none) {
            wanted.set(None);
        }
    });
    let value = move || {
        wanted
            .get()
            .or_else(|| run.scrubbed.with(|c| c.as_ref().map(|c| c.step)))
            .unwrap_or_else(|| run.steps_done.get())
    };
    let go = move |step: usize| {
        wanted.set(Some(step));
        run.scrub(step);
    };
    let words = move || {
        run.scrubbed.with(|c| match c {
            Some(c) => format!(
                "Showing the model {}: on the probe batch, loss {} and accuracy {}.",
                after_updates(c.step),
                fixed(c.probe.loss, 3),
                percent(c.probe.accuracy)
            ),
            None => "Drag to step back through the run, one update at a time (arrow keys: one; Page Up and Page Down: ten): the maps show the model as it was.".to_owned(),
        })
    };
    let on_key = move |ev: leptos::ev::KeyboardEvent| {
        let now = untrack(value);
        if let Some(step) = paged(&ev.key(), now, run.steps_done.get_untracked()) {
            ev.prevent_default();
            go(step);
        }
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
                    step="1"
                    prop:value=move || value().to_string()
                    aria-valuetext=move || after_updates(value())
                    disabled=move || run.steps_done.get() == 0
                    on:keydown=on_key
                    on:input=move |ev| {
                        if let Ok(step) = event_target_value(&ev).parse::<usize>() {
                            go(step);
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn page_keys_move_a_stride_within_the_run() {
        assert_eq!(paged("PageUp", 210, 600), Some(220));
        assert_eq!(paged("PageUp", 595, 600), Some(600));
        assert_eq!(paged("PageDown", 4, 600), Some(0));
        assert_eq!(paged("ArrowRight", 4, 600), None);
        assert_eq!(after_updates(1), "after 1 update");
        assert_eq!(after_updates(220), "after 220 updates");
    }
}
