//! What has the keyboard focus, as the keys of a lesson or a stepping panel care: a
//! field keeps every key, a heatmap its arrows, a button space and Enter; and which
//! click is the second of a double click.

/// What has the keyboard focus, as far as the page's keys care.
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

/// What has the keyboard focus, as the page's keys see it: the event target's tag.
pub fn target_focus(ev: &web_sys::Event) -> Focus {
    ev.target()
        .and_then(|t| wasm_bindgen::JsCast::dyn_into::<web_sys::Element>(t).ok())
        .map_or(Focus::Page, |el| Focus::of_tag(&el.tag_name()))
}

/// The second (or later) click of a double click (its click count, `detail`, past 1). A
/// step button's first click already moved the step, and the button under the pointer may
/// then be another (the next step's Next, or a question's answer), so the lesson's buttons
/// ignore it. A key press (Enter, space) on a button has no click count.
pub fn repeated_click(ev: &web_sys::MouseEvent) -> bool {
    ev.detail() > 1
}
