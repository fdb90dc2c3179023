//! The lesson tabs above the stage: one per lesson, the open one selected and, in a
//! row that scrolls sideways when it is wider than the page, scrolled into view.

use std::sync::Arc;

use leptos::prelude::*;

use crate::lessons::Lesson;

/// "3. Masks": a lesson as the tabs and the presenter's menu name it.
pub fn numbered(i: usize, lesson: &Lesson) -> String {
    format!("{}. {}", i + 1, lesson.title)
}

/// One tab per lesson; a click opens its first step.
#[component]
pub fn LessonTabs(
    /// Every lesson, in order.
    lessons: Arc<Vec<Lesson>>,
    /// The open lesson and step.
    position: Signal<(usize, usize)>,
    /// Opens a lesson step.
    on_go: Callback<(usize, usize)>,
) -> impl IntoView {
    let lesson_tabs = lessons
        .iter()
        .enumerate()
        .map(|(i, lesson)| {
            view! {
                <button
                    type="button"
                    class="al-tab"
                    class:al-selected=move || position.get().0 == i
                    data-testid="lesson-tab"
                    data-lesson=lesson.id
                    on:click=move |_| on_go.run((i, 0))
                >
                    {numbered(i, lesson)}
                </button>
            }
        })
        .collect_view();
    // the tabs are one row that scrolls sideways: the open lesson's tab is
    // scrolled into it (the row only, never the page). It reads the boxes in the next
    // frame, where the page is laid out anyway: read while the app mounts, they would force
    // a layout of the whole page inside the first task
    let tabs_ref = NodeRef::<leptos::html::Div>::new();
    Effect::new(move |_| {
        position.track();
        request_animation_frame(move || {
            // (the panel may be gone by the next frame)
            if let Some(Some(row)) = tabs_ref.try_get_untracked() {
                scroll_selected_into_row(&row);
            }
        });
    });
    view! {
        <div class="al-tabs al-lesson-tabs" node_ref=tabs_ref>
            {lesson_tabs}
        </div>
    }
}

/// Scrolls `row` sideways so that its `.al-selected` child is in view (no change when the
/// row does not scroll).
fn scroll_selected_into_row(row: &web_sys::HtmlDivElement) {
    let Ok(Some(tab)) = row.query_selector(".al-selected") else { return };
    let (tab_box, row_box) = (tab.get_bounding_client_rect(), row.get_bounding_client_rect());
    if tab_box.left() < row_box.left() || tab_box.right() > row_box.right() {
        let target = f64::from(row.scroll_left()) + tab_box.left() - row_box.left() - 8.0;
        row.set_scroll_left(target.max(0.0) as i32);
    }
}
