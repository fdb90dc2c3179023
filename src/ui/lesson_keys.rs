//! The keys that move through a lesson's steps, as plain Rust (tested natively): ← →
//! anywhere but in a field or on a heatmap; in presenter mode also space (shift+space
//! back), Esc to leave it and F for full screen.

/// What a key press does in the lessons mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyAction {
    /// Move by this many steps; `consume`: the key's default (scrolling) is prevented.
    Step {
        /// −1 back, +1 forward.
        by: isize,
        /// Prevent the browser's default for the key (space would scroll).
        consume: bool,
    },
    /// Leave presenter mode (and full screen).
    LeavePresenter,
    /// Enter or leave full screen.
    ToggleFullscreen,
}

/// True for the elements whose keys belong to them: typing in a field, choosing in a
/// select, moving on a heatmap, pressing a button.
pub fn is_typing_tag(tag: &str) -> bool {
    matches!(tag, "INPUT" | "TEXTAREA" | "SELECT" | "CANVAS" | "BUTTON")
}

/// What `key` does (with shift held or not), given whether the focus is in an element of
/// [`is_typing_tag`] and whether the page is presenting. Keys with Alt, Ctrl or ⌘ never
/// reach here.
pub fn key_action(key: &str, shift: bool, typing: bool, presenting: bool) -> Option<KeyAction> {
    match key {
        "ArrowRight" if !typing || presenting => Some(KeyAction::Step { by: 1, consume: false }),
        "ArrowLeft" if !typing || presenting => Some(KeyAction::Step { by: -1, consume: false }),
        " " if presenting && !typing => {
            Some(KeyAction::Step { by: if shift { -1 } else { 1 }, consume: true })
        }
        "Escape" if presenting => Some(KeyAction::LeavePresenter),
        "f" | "F" if presenting && !typing => Some(KeyAction::ToggleFullscreen),
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

    #[test]
    fn arrows_move_unless_typing_and_space_only_when_presenting() {
        let next = Some(KeyAction::Step { by: 1, consume: false });
        assert_eq!(key_action("ArrowRight", false, false, false), next);
        assert_eq!(key_action("ArrowRight", false, true, false), None, "typing in a field");
        assert_eq!(key_action("ArrowRight", false, true, true), next, "presenting: the arrows always move");
        assert_eq!(
            key_action("ArrowLeft", false, false, false),
            Some(KeyAction::Step { by: -1, consume: false })
        );
        assert_eq!(key_action(" ", false, false, false), None);
        assert_eq!(key_action(" ", false, false, true), Some(KeyAction::Step { by: 1, consume: true }));
        assert_eq!(key_action(" ", true, false, true), Some(KeyAction::Step { by: -1, consume: true }));
        assert_eq!(key_action(" ", false, true, true), None, "space on a button presses it");
        assert_eq!(key_action("Escape", false, true, true), Some(KeyAction::LeavePresenter));
        assert_eq!(key_action("Escape", false, false, false), None);
        assert_eq!(key_action("F", false, false, true), Some(KeyAction::ToggleFullscreen));
        assert_eq!(key_action("f", false, false, false), None);
        assert!(is_typing_tag("CANVAS") && is_typing_tag("INPUT") && !is_typing_tag("DIV"));
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
