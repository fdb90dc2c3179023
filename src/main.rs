//! Waits until index.html's first paint has been reported, then removes it (keeping the
//! nodes the app takes over), mounts the app and registers the service worker. Nothing
//! else happens here.

#[cfg(target_arch = "wasm32")]
fn main() {
    use attention_lens::ui::platform::first_paint;
    attention_lens::ui::install_panic_guard();
    wasm_bindgen_futures::spawn_local(async {
        // the words painted first are counted as painted before the app replaces what is
        // around them (a frame or two when the WebAssembly arrives first)
        first_paint::reported().await;
        // the static first paint gives way to the app in this same task
        first_paint::take("al-shell");
        attention_lens::ui::platform::screen::remove_by_id("al-shell");
        leptos::mount::mount_to_body(attention_lens::ui::App);
        attention_lens::ui::platform::service_worker::register_service_worker();
    });
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    eprintln!("Attention Lens runs in the browser: `make serve` (or `trunk serve`).");
    eprintln!("For the engine on the command line: cargo run --release --example trace -- scenario.json");
}
