//! The keys that move through a lesson's steps, as plain Rust (tested natively).
//!
//! In a lesson and in presenter mode, → and PageDown (what most presentation remotes
//! send) go forward, ← and PageUp back, space forward (shift+space back), Home and End to
//! the first and last step. They work after a click on any of the lesson's buttons: a
//! button keeps only space and Enter, which press it. A field (typing, choosing) keeps
//! every key, and a heatmap keeps its arrows, which move its cursor; in presenter mode
//! the arrows and the remote's keys always move. Esc leaves presenter mode, F goes full
//! screen.

/// What a key press does in the lessons mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyAction {
    /// Move by this many steps; `consume`: the key's default (scrolling) is prevented.
    Step {
        /// −1 back, +1 forward.
        by: isize,
        /// Prevent the browser's default for the key (space and PageDown would scroll).
        consume: bool,
    },
    /// Go to the first step (`false`) or the last (`true`).
    Edge {
        /// The last step rather than the first.
        last: bool,
    },
    /// Leave presenter mode (and full screen).
    LeavePresenter,
    /// Enter or leave full screen.
    ToggleFullscreen,
}

/// What has the keyboard focus, as far as the lesson keys care.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Focus {
    /// A text field, a number box, a select, a text area: every key is its own.
    Field,
    /// A heatmap: its arrow keys move its cursor.
    Heatmap,
    /// A button or a link: space and Enter press it; the other keys are the lesson's.
    Button,
    /// Anything else (the page itself).
    Page,
}

impl Focus {
    /// The focus of an element with this tag name (`"INPUT"`, `"CANVAS"`, …).
    pub fn of_tag(tag: &str) -> Self {
        match tag {
            "INPUT" | "TEXTAREA" | "SELECT" => Self::Field,
            "CANVAS" => Self::Heatmap,
            "BUTTON" | "A" | "SUMMARY" => Self::Button,
            _ => Self::Page,
        }
    }
}

/// What `key` does (with shift held or not), given what has the focus and whether the
/// page is presenting. Keys with Alt, Ctrl or ⌘ never reach here.
pub fn key_action(key: &str, shift: bool, focus: Focus, presenting: bool) -> Option<KeyAction> {
    let field = focus == Focus::Field;
    // the arrows belong to a field or a heatmap, except when presenting
    let arrows_free = presenting || matches!(focus, Focus::Button | Focus::Page);
    let step = |by: isize, consume: bool| Some(KeyAction::Step { by, consume });
    match key {
        "ArrowRight" if arrows_free => step(1, false),
        "ArrowLeft" if arrows_free => step(-1, false),
        "PageDown" if !field || presenting => step(1, true),
        "PageUp" if !field || presenting => step(-1, true),
        " " if focus == Focus::Page || (presenting && focus == Focus::Heatmap) => {
            step(if shift { -1 } else { 1 }, true)
        }
        "Home" if !field => Some(KeyAction::Edge { last: false }),
        "End" if !field => Some(KeyAction::Edge { last: true }),
        "Escape" if presenting => Some(KeyAction::LeavePresenter),
        "f" | "F" if presenting && !field => Some(KeyAction::ToggleFullscreen),
        _ => None,
    }
}

/// The step `by` steps from `step` in a lesson of `n` steps, kept inside it.
pub fn step_after(step: usize, by: isize, n: usize) -> usize {
    let last = n.saturating_sub(1);
    step.saturating_add_signed(by).min(last)
}

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

/// What has the keyboard focus, as the lesson keys see it: the event target's tag.
pub fn target_focus(ev: &web_sys::Event) -> Focus {
    ev.target()
        .and_then(|t| wasm_bindgen::JsCast::dyn_into::<web_sys::Element>(t).ok())
        .map_or(Focus::Page, |el| Focus::of_tag(&el.tag_name()))
}

/// The key a stepping panel (decode, tiles) takes from `ev`, by
/// [`panel_step`]: "on the panel" when the event's target is the
/// element whose listener runs, not one of its buttons or fields.
pub fn event_panel_step(ev: &web_sys::KeyboardEvent, in_lesson: bool) -> Option<PanelStep> {
    let on_panel = matches!((ev.target(), ev.current_target()), (Some(t), Some(c)) if t == c);
    panel_step(&ev.key(), target_focus(ev), in_lesson, on_panel)
}

#[cfg(test)]
mod tests {
    use super::*;

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

    const NEXT: Option<KeyAction> = Some(KeyAction::Step { by: 1, consume: false });

    #[test]
    fn arrows_move_unless_a_field_or_a_heatmap_has_them() {
        assert_eq!(key_action("ArrowRight", false, Focus::Page, false), NEXT);
        assert_eq!(
            key_action("ArrowRight", false, Focus::Button, false),
            NEXT,
            "after a click on Next or a tab"
        );
        assert_eq!(key_action("ArrowRight", false, Focus::Field, false), None, "typing in a field");
        assert_eq!(key_action("ArrowRight", false, Focus::Heatmap, false), None, "the heatmap's cursor");
        assert_eq!(
            key_action("ArrowRight", false, Focus::Field, true),
            NEXT,
            "presenting: the arrows always move"
        );
        assert_eq!(
            key_action("ArrowLeft", false, Focus::Page, false),
            Some(KeyAction::Step { by: -1, consume: false })
        );
    }

    #[test]
    fn a_remote_and_space_move_and_home_end_jump() {
        for focus in [Focus::Page, Focus::Button, Focus::Heatmap] {
            assert_eq!(
                key_action("PageDown", false, focus, false),
                Some(KeyAction::Step { by: 1, consume: true })
            );
            assert_eq!(
                key_action("PageUp", false, focus, false),
                Some(KeyAction::Step { by: -1, consume: true })
            );
            assert_eq!(key_action("Home", false, focus, false), Some(KeyAction::Edge { last: false }));
            assert_eq!(key_action("End", false, focus, false), Some(KeyAction::Edge { last: true }));
        }
        assert_eq!(key_action("PageDown", false, Focus::Field, false), None, "a text area scrolls");
        assert_eq!(
            key_action("PageDown", false, Focus::Field, true),
            Some(KeyAction::Step { by: 1, consume: true })
        );
        assert_eq!(key_action("End", false, Focus::Field, true), None, "End moves the caret");
        assert_eq!(
            key_action(" ", false, Focus::Page, false),
            Some(KeyAction::Step { by: 1, consume: true })
        );
        assert_eq!(key_action(" ", true, Focus::Page, true), Some(KeyAction::Step { by: -1, consume: true }));
        assert_eq!(key_action(" ", false, Focus::Button, true), None, "space on a button presses it");
        assert_eq!(key_action(" ", false, Focus::Field, false), None);
    }

    #[test]
    fn presenter_keys() {
        assert_eq!(key_action("Escape", false, Focus::Field, true), Some(KeyAction::LeavePresenter));
        assert_eq!(key_action("Escape", false, Focus::Page, false), None);
        assert_eq!(key_action("F", false, Focus::Page, true), Some(KeyAction::ToggleFullscreen));
        assert_eq!(key_action("f", false, Focus::Page, false), None);
        assert_eq!(
            (Focus::of_tag("CANVAS"), Focus::of_tag("INPUT"), Focus::of_tag("BUTTON"), Focus::of_tag("DIV")),
            (Focus::Heatmap, Focus::Field, Focus::Button, Focus::Page)
        );
    }

    #[test]
    fn steps_stay_inside_the_lesson() {
        assert_eq!(step_after(0, -1, 5), 0);
        assert_eq!(step_after(0, 1, 5), 1);
        assert_eq!(step_after(4, 1, 5), 4);
        assert_eq!(step_after(2, -1, 5), 1);
        assert_eq!(step_after(0, 1, 0), 0, "a lesson without steps");
        assert_eq!(step_after(9, -1, 5), 4, "a step past the end comes back inside");
    }
}
