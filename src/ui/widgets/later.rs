//! Parts of the page built a task or more after the rest: a lesson link's words, picture,
//! tools and the explorer under them are a few shorter tasks instead of one long one
//! (much of it compiling the WebAssembly functions on their first call), so the page
//! answers a tap between them (BENCHMARKS.md).

use std::time::Duration;

use leptos::prelude::*;

/// Renders `children` `tasks` tasks after the one that builds it (that many chained
/// `setTimeout`s of 0), so what comes before it is built, and can be painted, first.
/// Laters built in one task with the same `tasks` render in the order they were built;
/// a larger `tasks` renders after a smaller one, whatever the order: what is built later
/// must be what comes after on the page, or it would push the page down as it arrives.
///
/// Only while the page starts: once [`settle`] has been called, a Later builds its
/// children at once, so that opening another lesson does not show its words a frame
/// before its picture.
#[component]
pub fn Later(
    /// How many tasks later (1: the next task).
    #[prop(default = 1)]
    tasks: u32,
    /// What to build later.
    children: ChildrenFn,
) -> impl IntoView {
    if SETTLED.get() {
        return children().into_any();
    }
    let ready = RwSignal::new(false);
    // (the part may be gone by then, a mode or a lesson changed: nothing to build)
    after_tasks(tasks, move || {
        ready.try_set(true);
    });
    (move || ready.get().then(|| children())).into_any()
}

thread_local! {
    /// True once the page's first render is whole.
    static SETTLED: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// The page's first render is whole: from now on a [`Later`] builds at once.
pub fn settle() {
    SETTLED.set(true);
}

/// Runs `f` `tasks` tasks from now (at once when `tasks` is 0).
fn after_tasks(tasks: u32, f: impl FnOnce() + 'static) {
    match tasks {
        0 => f(),
        n => set_timeout(move || after_tasks(n - 1, f), Duration::ZERO),
    }
}
