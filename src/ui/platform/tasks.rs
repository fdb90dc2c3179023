//! The task queue: work put off to later tasks, a few milliseconds per task, so a long
//! piece of work (drawing eight large heatmaps) lets the page take a keystroke between its
//! pieces.

/// Work put off to tasks of their own, one piece per task, in order (see [`later`]).
use wasm_bindgen::JsCast;

use super::window;

struct Later {
    queue: Vec<(u64, Box<dyn FnOnce()>)>,
    scheduled: bool,
    next_key: u64,
    /// The port that wakes [`run_later`] (a `MessageChannel`: unlike `setTimeout(0)`,
    /// never clamped to 4 ms when tasks chain).
    port: Option<web_sys::MessagePort>,
}

thread_local! {
    static LATER: std::cell::RefCell<Later> =
        std::cell::RefCell::new(Later { queue: Vec::new(), scheduled: false, next_key: 0, port: None });
}

/// A key for [`later`], new each time.
pub fn later_key() -> u64 {
    LATER.with_borrow_mut(|l| {
        l.next_key += 1;
        l.next_key
    })
}

/// Runs `f` in a later task, after the pieces queued before it, as many pieces per task
/// as fit in [`LATER_BUDGET_MS`], so that a long piece of work (drawing eight large
/// heatmaps) is a few short tasks and the page can take a keystroke between them. A piece queued again under the same
/// `key` before it ran replaces the older one, in its place.
pub fn later(key: u64, f: impl FnOnce() + 'static) {
    LATER.with_borrow_mut(|l| match l.queue.iter_mut().find(|(k, _)| *k == key) {
        Some(entry) => entry.1 = Box::new(f),
        None => l.queue.push((key, Box::new(f))),
    });
    schedule_later();
}

fn schedule_later() {
    let posted = LATER.with_borrow_mut(|l| {
        if l.scheduled {
            return true;
        }
        if l.port.is_none() {
            if let Ok(channel) = web_sys::MessageChannel::new() {
                let wake = wasm_bindgen::closure::Closure::<dyn FnMut()>::new(run_later);
                channel.port1().set_onmessage(Some(wake.as_ref().unchecked_ref()));
                wake.forget();
                l.port = Some(channel.port2());
            }
        }
        l.scheduled = l.port.as_ref().is_some_and(|p| p.post_message(&wasm_bindgen::JsValue::NULL).is_ok());
        l.scheduled
    });
    if !posted {
        LATER.with_borrow_mut(|l| l.scheduled = true);
        leptos::prelude::set_timeout(run_later, std::time::Duration::ZERO);
    }
}

/// How long one task of [`later`] pieces may run before it yields (a piece is never cut).
/// 24 ms: the eight 128 × 128 cards of the stress page draw in one task, without a
/// browser frame between them (BENCHMARKS.md).
const LATER_BUDGET_MS: f64 = 24.0;

fn run_later() {
    let performance = window().and_then(|w| w.performance());
    let now = || performance.as_ref().map_or(0.0, |p| p.now());
    let start = now();
    LATER.with_borrow_mut(|l| l.scheduled = false);
    loop {
        let next = LATER.with_borrow_mut(|l| (!l.queue.is_empty()).then(|| l.queue.remove(0)));
        let Some((_, f)) = next else { return };
        f();
        if now() - start >= LATER_BUDGET_MS {
            break;
        }
    }
    if LATER.with_borrow(|l| !l.queue.is_empty()) {
        schedule_later();
    }
}
