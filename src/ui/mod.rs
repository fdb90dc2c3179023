//! The Leptos components. They render a [`crate::engine::Trace`] and compute nothing:
//! every number on the page is read from the trace.

pub mod app;
pub mod challenge;
pub mod decode;
pub mod explain;
pub mod explorer;
pub mod heatmap;
pub mod learn;
pub mod lesson;
pub mod platform;
pub mod state;
pub mod tiles;
pub mod widgets;

pub use app::page::App;

/// The last-resort guard: if a panic still happens, the console gets the message and the
/// page shows a "reset" banner instead of freezing silently.
pub fn install_panic_guard() {
    std::panic::set_hook(Box::new(|info| {
        console_error_panic_hook::hook(info);
        let Some(document) = web_sys::window().and_then(|w| w.document()) else { return };
        let Ok(banner) = document.create_element("div") else { return };
        banner.set_class_name("al-panic");
        banner.set_attribute("role", "alert").ok();
        banner.set_attribute("data-testid", "panic").ok();
        // text only: the message is never parsed as HTML
        banner.set_text_content(Some(
            "Something went wrong inside Attention Lens and this page stopped. \
             Reload the page to reset it (your sentences are kept in the address bar).",
        ));
        if let Some(body) = document.body() {
            let _ = body.append_child(&banner);
        }
    }));
}
