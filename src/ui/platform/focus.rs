//! What has the keyboard focus, as the keys of a lesson or a stepping panel care: a
//! field keeps every key, a heatmap its arrows, a button space and Enter; and which
//! click is the second of a double click.

use wasm_bindgen::JsCast;

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

/// Swallows, inside `root`, the second (and later) click of a double click on a button, a
/// link or a fold (its click count, `detail`, past 1): a lesson's first click on Next
/// already moved the step, and what is under the pointer then may be the next step's Next,
/// one of its answers or a link, since the words above them change length. A capturing
/// listener, so that no handler below sees the click. A key press (Enter, space) on a
/// button has no click count, and a double click on text still selects it.
pub fn swallow_repeated_clicks(root: &web_sys::Element) {
    let on_click =
        wasm_bindgen::closure::Closure::<dyn Fn(web_sys::MouseEvent)>::new(|ev: web_sys::MouseEvent| {
            let on_control = ev
                .target()
                .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
                .and_then(|e| e.closest("button, a, summary").ok().flatten())
                .is_some();
            if ev.detail() > 1 && on_control {
                ev.prevent_default();
                ev.stop_propagation();
            }
        });
    let _ = root.add_event_listener_with_callback_and_bool("click", on_click.as_ref().unchecked_ref(), true);
    // the listener lives as long as the element; the closure is a few bytes per lesson opened
    on_click.forget();
}
