//! Removes index.html's first paint, mounts the app and registers the service worker.
//! Nothing else happens here.

#[cfg(target_arch = "wasm32")]
fn main() {
    attention_lens::ui::install_panic_guard();
    // the static first paint of index.html gives way to the app in this same task
    attention_lens::ui::platform::screen::remove_by_id("al-shell");
    leptos::mount::mount_to_body(attention_lens::ui::App);
    attention_lens::ui::platform::service_worker::register_service_worker();
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    eprintln!("Attention Lens runs in the browser: `make serve` (or `trunk serve`).");
    eprintln!("For the engine on the command line: cargo run --release --example trace -- scenario.json");
}
