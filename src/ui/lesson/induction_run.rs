//! The induction lesson's recorded training run (`assets/induction-run.json`), fetched the
//! first time a view needs it rather than built into the page's wasm: only the lesson
//! "Induction heads" shows it (BENCHMARKS.md, "Bytes cut"). The file sits next to
//! index.html (Trunk's `copy-file`), so it is fetched relative to the page and is in the
//! service worker's offline list with every other built file.
//!
//! [`history`] and [`missing`] read a signal: the lesson's words and figures that call
//! them are drawn again when the file arrives, or when it fails.

use std::cell::OnceCell;

use attention_engine::train::history::History;
use leptos::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;

/// The file, relative to the page (the build works under any sub-path).
pub const URL: &str = "./induction-run.json";

/// Where the file is.
#[derive(Debug, Clone)]
pub enum Status {
    /// Asked for, not here yet.
    Loading,
    /// Read.
    Loaded(&'static History),
    /// It could not be fetched or read: why.
    Failed(String),
}

thread_local! {
    static STATUS: OnceCell<ArcRwSignal<Status>> = const { OnceCell::new() };
}

/// The file's status, fetching it the first time it is asked for (a reactive read).
pub fn status() -> Status {
    STATUS
        .with(|s| {
            s.get_or_init(|| {
                // a `?lesson=induction` link's head fetched it before the wasm came: read
                // it now, so the lesson's first words are its own, never "Loading…"
                if let Some(text) = global("alInductionRunText").and_then(|t| t.as_string()) {
                    return ArcRwSignal::new(read(&text));
                }
                let signal = ArcRwSignal::new(Status::Loading);
                let set = signal.clone();
                leptos::task::spawn_local(async move {
                    set.set(match fetch().await {
                        Ok(text) => read(&text),
                        Err(why) => Status::Failed(why),
                    });
                });
                signal
            })
            .clone()
        })
        .get()
}

/// The recorded run, once it is here.
pub fn history() -> Option<&'static History> {
    match status() {
        Status::Loaded(h) => Some(h),
        _ => None,
    }
}

/// What the lesson says where the run is not here: that it is coming, or why it is not.
pub fn missing() -> String {
    match status() {
        Status::Failed(why) => format!(
            "The recorded training run could not be loaded ({why}), so this step has nothing to show. \
             Reload the page to try again, or open the Learn tab to train the model yourself."
        ),
        Status::Loading => "Loading the recorded training run…".to_owned(),
        Status::Loaded(_) => "The recorded training run does not hold what this step shows.".to_owned(),
    }
}

/// The window's property `name`, if it is set.
fn global(name: &str) -> Option<wasm_bindgen::JsValue> {
    let window = web_sys::window()?;
    js_sys::Reflect::get(&window, &name.into()).ok().filter(|v| !v.is_undefined() && !v.is_null())
}

/// The file's text as the recorded run, or why it is not one.
fn read(text: &str) -> Status {
    match serde_json::from_str(text) {
        Ok(h) => Status::Loaded(Box::leak(Box::new(h))),
        Err(e) => Status::Failed(format!("{URL}: {e}")),
    }
}

/// The file's text: the head's fetch (`window.alInductionRun`) if it started one, else a
/// fetch of its own.
async fn fetch() -> Result<String, String> {
    let js = |e: wasm_bindgen::JsValue| {
        e.dyn_ref::<js_sys::Error>()
            .map(|e| String::from(e.message()))
            .or_else(|| e.as_string())
            .unwrap_or_else(|| format!("{e:?}"))
    };
    if let Some(promise) = global("alInductionRun").and_then(|p| p.dyn_into::<js_sys::Promise>().ok()) {
        return JsFuture::from(promise)
            .await
            .map_err(js)?
            .as_string()
            .ok_or_else(|| "the file is not text".into());
    }
    let window = web_sys::window().ok_or("no window")?;
    let response: web_sys::Response =
        JsFuture::from(window.fetch_with_str(URL)).await.map_err(js)?.dyn_into().map_err(js)?;
    if !response.ok() {
        return Err(format!("{URL}: HTTP {}", response.status()));
    }
    let text = JsFuture::from(response.text().map_err(js)?).await.map_err(js)?;
    text.as_string().ok_or_else(|| "the file is not text".into())
}
