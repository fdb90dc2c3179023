//! The keys that move through a lesson's steps, as plain Rust (tested natively).
//!
//! In a lesson and in presenter mode, → and PageDown (what most presentation remotes
//! send) go forward, ← and PageUp back, space forward (shift+space back), Home and End to
//! the first and last step. They work after a click on any of the lesson's buttons: a
//! button keeps only space and Enter, which press it. A field (typing, choosing) keeps
//! every key, and a heatmap keeps its arrows, which move its cursor; in presenter mode
//! the arrows and the remote's keys always move. Esc leaves presenter mode, F goes full
//! screen.

pub use crate::ui::platform::focus::{target_focus, Focus};

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

#[cfg(test)]
mod tests {
    use super::*;

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
