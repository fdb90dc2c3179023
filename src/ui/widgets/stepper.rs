//! One stepper for the views that walk through positions or tiles (decode, tiles): the
//! index kept inside its count, the keys (← → and Home/End) and the Back/Next buttons.

use leptos::prelude::*;

use crate::ui::platform::focus::{target_focus, Focus};
use crate::ui::platform::screen;

/// A key a stepping panel (the decode and tiles views) takes: one position or tile back or
/// on, or to the first or the last.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PanelStep {
    /// −1 back, +1 on.
    By(isize),
    /// The first (`false`) or the last (`true`).
    Edge {
        /// The last rather than the first.
        last: bool,
    },
}

/// What `key` does in a stepping panel whose keyboard target has focus `focus`: ← → and
/// Home/End, unless a field has the key; inside a lesson only while the panel itself has
/// the focus (`on_panel`), so that after a click on one of its buttons the arrows move the
/// lesson, not the panel.
pub fn panel_step(key: &str, focus: Focus, in_lesson: bool, on_panel: bool) -> Option<PanelStep> {
    if focus == Focus::Field || (in_lesson && !on_panel) {
        return None;
    }
    match key {
        "ArrowRight" => Some(PanelStep::By(1)),
        "ArrowLeft" => Some(PanelStep::By(-1)),
        "Home" => Some(PanelStep::Edge { last: false }),
        "End" => Some(PanelStep::Edge { last: true }),
        _ => None,
    }
}

/// The key a stepping panel (decode, tiles) takes from `ev`, by
/// [`panel_step`]: "on the panel" when the event's target is the
/// element whose listener runs, not one of its buttons or fields.
pub fn event_panel_step(ev: &web_sys::KeyboardEvent, in_lesson: bool) -> Option<PanelStep> {
    let on_panel = matches!((ev.target(), ev.current_target()), (Some(t), Some(c)) if t == c);
    panel_step(&ev.key(), target_focus(ev), in_lesson, on_panel)
}

/// An index in `0..count` and the moves a stepping panel makes on it.
#[derive(Clone, Copy)]
pub struct Stepper {
    /// The index, which may run past the count when the count shrinks (read it through
    /// [`Stepper::now`] for the one shown).
    pub index: RwSignal<usize>,
    count: Signal<usize>,
}

impl Stepper {
    /// A stepper over `index`, whose count is `count`.
    pub fn new(index: RwSignal<usize>, count: impl Fn() -> usize + Send + Sync + 'static) -> Self {
        Self { index, count: Signal::derive(count) }
    }

    /// How many positions there are.
    pub fn count(self) -> usize {
        self.count.get()
    }

    /// The index shown: the index kept inside the count.
    pub fn now(self) -> usize {
        self.index.get().min(self.count().saturating_sub(1))
    }

    /// Moves `delta` positions, kept inside the count.
    pub fn go(self, delta: isize) {
        let last = self.count().saturating_sub(1);
        self.index.update(|i| *i = (*i).min(last).saturating_add_signed(delta).min(last));
    }

    /// The panel's keydown handler: steps on ← → and jumps on Home/End (see
    /// [`panel_step`]), and keeps those keys from the page.
    pub fn on_key(self, in_lesson: bool) -> impl Fn(leptos::ev::KeyboardEvent) + Copy + 'static {
        move |ev: leptos::ev::KeyboardEvent| {
            let Some(step) = event_panel_step(&ev, in_lesson) else { return };
            match step {
                PanelStep::By(by) => self.go(by),
                PanelStep::Edge { last } => {
                    self.index.set(if last { self.count().saturating_sub(1) } else { 0 })
                }
            }
            ev.prevent_default();
            ev.stop_propagation();
        }
    }
}

/// "← Previous {what}", then `children` (a Play button), then "Next {what} →"; the
/// buttons' test ids are `{testid}-prev` and `{testid}-next`. With one position or none
/// there is nowhere to step, and the buttons are disabled.
#[component]
pub fn StepButtons(
    /// The stepper the buttons move.
    stepper: Stepper,
    /// What is stepped through: "position", "tile".
    what: &'static str,
    /// The prefix of the buttons' test ids.
    testid: &'static str,
    /// What goes between the buttons.
    #[prop(optional)]
    children: Option<Children>,
) -> impl IntoView {
    view! {
        <button
            type="button"
            data-testid=format!("{testid}-prev")
            disabled=move || stepper.count() <= 1
            on:click=move |_| stepper.go(-1)
            aria-label=format!("Previous {what}")
        >
            {format!("← Previous {what}")}
        </button>
        {children.map(|c| c())}
        <button
            type="button"
            data-testid=format!("{testid}-next")
            disabled=move || stepper.count() <= 1
            on:click=move |_| stepper.go(1)
            aria-label=format!("Next {what}")
        >
            {format!("Next {what} →")}
        </button>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_touch_screen_is_not_told_of_arrow_keys() {
        assert_eq!(how_to_step("the buttons", true), "Step with the buttons.");
        assert_eq!(how_to_step("Play", false), "Step with ← → (click this panel first) or Play.");
    }

    #[test]
    fn a_panel_steps_unless_a_field_or_the_lesson_has_the_key() {
        assert_eq!(panel_step("ArrowRight", Focus::Page, false, false), Some(PanelStep::By(1)));
        assert_eq!(panel_step("ArrowLeft", Focus::Button, false, false), Some(PanelStep::By(-1)));
        assert_eq!(panel_step("End", Focus::Page, true, true), Some(PanelStep::Edge { last: true }));
        assert_eq!(panel_step("Home", Focus::Page, true, true), Some(PanelStep::Edge { last: false }));
        assert_eq!(panel_step("ArrowRight", Focus::Field, false, true), None, "a field keeps its keys");
        assert_eq!(
            panel_step("ArrowRight", Focus::Button, true, false),
            None,
            "after a click the lesson moves"
        );
        assert_eq!(panel_step("PageDown", Focus::Page, true, true), None);
    }
}

/// How to step a panel: with ← → or its `controls` on a keyboard, with its `controls`
/// alone on a touch screen, which has no arrow keys.
fn how_to_step(controls: &str, touch: bool) -> String {
    if touch {
        format!("Step with {controls}.")
    } else {
        format!("Step with ← → (click this panel first) or {controls}.")
    }
}

/// The shell of a stepping panel (decode, tiles): a focusable section that takes the
/// stepper's keys, its title and its introduction, then `children`.
#[component]
pub fn StepperPanel(
    /// The panel's stepper.
    stepper: Stepper,
    /// True inside a lesson, where the arrows move the panel only while it has the focus.
    in_lesson: bool,
    /// The section's class.
    class: &'static str,
    /// The section's `data-testid`.
    testid: &'static str,
    /// The section's accessible name, with its keys.
    label: &'static str,
    /// The title.
    title: &'static str,
    /// What the panel shows.
    intro: &'static str,
    /// The controls that step it besides the arrow keys ("Play", "the buttons"): the
    /// introduction ends by naming them, with ← → where there are keys ([`how_to_step`]).
    controls: &'static str,
    /// The panel's body.
    children: Children,
) -> impl IntoView {
    view! {
        <section
            class=class
            data-testid=testid
            tabindex="0"
            on:keydown=stepper.on_key(in_lesson)
            aria-label=label
        >
            <h2>{title}</h2>
            <p class="al-view-intro">{format!("{intro} {}", how_to_step(controls, screen::touch()))}</p>
            {children()}
        </section>
    }
}
