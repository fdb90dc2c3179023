//! The few things the page asks of the browser directly: the URL, the pixel ratio, the
//! colour scheme, downloads, timing marks and work put off to later tasks. Each fails
//! quietly (a missing download is better than a dead page).

use wasm_bindgen::JsCast;

use crate::draw::Theme;

use crate::ui::lesson::lesson_keys::{Focus, PanelStep};

fn window() -> Option<web_sys::Window> {
    web_sys::window()
}

/// The current URL's query as decoded key–value pairs.
pub fn query_pairs() -> Vec<(String, String)> {
    let Some(search) = window().and_then(|w| w.location().search().ok()) else {
        return Vec::new();
    };
    let Ok(params) = web_sys::UrlSearchParams::new_with_str(&search) else {
        return Vec::new();
    };
    let mut pairs = Vec::new();
    // UrlSearchParams is iterable as [key, value] arrays.
    if let Ok(Some(iter)) = js_sys_iter(&params) {
        for entry in iter {
            let Ok(entry) = entry else { continue };
            let arr: js_sys::Array = entry.unchecked_into();
            if let (Some(k), Some(v)) = (arr.get(0).as_string(), arr.get(1).as_string()) {
                pairs.push((k, v));
            }
        }
    }
    pairs
}

fn js_sys_iter(params: &web_sys::UrlSearchParams) -> Result<Option<js_sys::IntoIter>, wasm_bindgen::JsValue> {
    js_sys::try_iter(params.as_ref())
}

/// The current URL's fragment, with its `#` (empty when there is none).
pub fn fragment() -> String {
    window().and_then(|w| w.location().hash().ok()).unwrap_or_default()
}

/// Replaces the URL's query and fragment (`#…`, or empty for none) without adding a
/// history entry (live state, not navigation).
pub fn replace_query(pairs: &[(&str, String)], fragment: &str) {
    let Some(w) = window() else { return };
    let Ok(params) = web_sys::UrlSearchParams::new() else { return };
    for (k, v) in pairs {
        params.append(k, v);
    }
    let query: String = params.to_string().into();
    let path = w.location().pathname().unwrap_or_default();
    if let Ok(history) = w.history() {
        let _ = history.replace_state_with_url(
            &wasm_bindgen::JsValue::NULL,
            "",
            Some(&format!("{path}?{query}{fragment}")),
        );
    }
}

/// The device pixel ratio (1 when unknown), at most 3.
pub fn dpr() -> f64 {
    window().map(|w| w.device_pixel_ratio()).filter(|r| r.is_finite() && *r > 0.0).unwrap_or(1.0).min(3.0)
}

/// The viewport width in CSS pixels.
pub fn viewport_width() -> f64 {
    window().and_then(|w| w.inner_width().ok()).and_then(|v| v.as_f64()).unwrap_or(1024.0)
}

/// The window's inner height in CSS pixels (768 when unknown).
pub fn viewport_height() -> f64 {
    window().and_then(|w| w.inner_height().ok()).and_then(|v| v.as_f64()).unwrap_or(768.0)
}

/// Light or dark, following the system setting.
pub fn theme() -> Theme {
    let dark = window()
        .and_then(|w| w.match_media("(prefers-color-scheme: dark)").ok().flatten())
        .is_some_and(|m| m.matches());
    if dark {
        Theme::DARK
    } else {
        Theme::LIGHT
    }
}

/// Offers `text` as a file download.
pub fn download_text(filename: &str, mime: &str, text: &str) {
    let parts = js_sys::Array::of1(&wasm_bindgen::JsValue::from_str(text));
    let options = web_sys::BlobPropertyBag::new();
    options.set_type(mime);
    let Ok(blob) = web_sys::Blob::new_with_str_sequence_and_options(&parts, &options) else { return };
    let Ok(url) = web_sys::Url::create_object_url_with_blob(&blob) else { return };
    download_url(filename, &url);
    let _ = web_sys::Url::revoke_object_url(&url);
}

/// Offers a URL (e.g. a canvas's PNG data URL) as a file download.
pub fn download_url(filename: &str, url: &str) {
    let Some(document) = window().and_then(|w| w.document()) else { return };
    let Ok(a) = document.create_element("a") else { return };
    let a: web_sys::HtmlAnchorElement = a.unchecked_into();
    a.set_href(url);
    a.set_download(filename);
    a.click();
}

/// `performance.mark(name)`, read by the benchmark scripts.
pub fn mark(name: &str) {
    if let Some(p) = window().and_then(|w| w.performance()) {
        let _ = p.mark(name);
    }
}

/// `performance.mark(name, {startTime})` for a time another context measured, given in
/// ms since the epoch (`timeOrigin + now()` there): the engine worker's own times.
pub fn mark_at(name: &str, epoch_ms: f64) {
    if let Some(p) = window().and_then(|w| w.performance()) {
        let start = epoch_ms - p.time_origin();
        // (web-sys has the options form only as an unstable API)
        let mark =
            js_sys::Reflect::get(&p, &"mark".into()).ok().and_then(|f| f.dyn_into::<js_sys::Function>().ok());
        if let (Some(mark), true) = (mark, start.is_finite() && start >= 0.0) {
            let options = js_sys::Object::new();
            let _ = js_sys::Reflect::set(&options, &"startTime".into(), &start.into());
            let _ = mark.call2(&p, &name.into(), &options);
        }
    }
}

/// Copies an RGBA buffer `width` pixels wide onto a canvas at device pixel `(x, y)` with
/// one `putImageData`.
pub fn put_rgba(canvas: &web_sys::HtmlCanvasElement, x: i32, y: i32, width: u32, rgba: &[u8]) {
    if width == 0 || rgba.is_empty() {
        return;
    }
    let Some(ctx) = context_2d(canvas) else { return };
    let height = (rgba.len() / 4) as u32 / width;
    if let Ok(image) =
        web_sys::ImageData::new_with_u8_clamped_array_and_sh(wasm_bindgen::Clamped(rgba), width, height)
    {
        let _ = ctx.put_image_data(&image, f64::from(x), f64::from(y));
    }
}

/// Writes a heatmap's texts with the canvas's `fillText`: the font, colour and alignment
/// are set only when they change (nothing is measured), and the column labels are all
/// written under one rotation (a 128-token card has 128 of them: one save, translate,
/// rotate and restore each cost more than the text).
pub fn fill_texts(canvas: &web_sys::HtmlCanvasElement, items: &[crate::draw::heatmap_text::TextItem]) {
    use crate::draw::heatmap_text::Anchor;
    let Some(ctx) = context_2d(canvas) else { return };
    ctx.set_text_baseline("middle");
    let mut font = f64::NAN;
    let mut color = None;
    let mut align = None;
    let mut write = |item: &crate::draw::heatmap_text::TextItem, x: f64, y: f64| {
        if item.size != font {
            font = item.size;
            ctx.set_font(&format!("{:.2}px sans-serif", item.size));
        }
        if color != Some(item.color) {
            color = Some(item.color);
            let plotters::style::RGBColor(r, g, b) = item.color;
            ctx.set_fill_style_str(&format!("rgb({r},{g},{b})"));
        }
        if align != Some(item.anchor) {
            align = Some(item.anchor);
            ctx.set_text_align(match item.anchor {
                Anchor::Left => "left",
                Anchor::Center => "center",
                Anchor::Right => "right",
            });
        }
        let _ = ctx.fill_text(&item.text, x, y);
    };
    for item in items.iter().filter(|i| !i.upwards) {
        write(item, f64::from(item.x), f64::from(item.y));
    }
    // rotated by -90°, the canvas point (x, y) is the point (-y, x)
    ctx.save();
    let _ = ctx.rotate(-std::f64::consts::FRAC_PI_2);
    for item in items.iter().filter(|i| i.upwards) {
        write(item, -f64::from(item.y), f64::from(item.x));
    }
    ctx.restore();
}

/// A canvas's 2D drawing context, if the browser gives one.
fn context_2d(canvas: &web_sys::HtmlCanvasElement) -> Option<web_sys::CanvasRenderingContext2d> {
    canvas
        .get_context("2d")
        .ok()
        .flatten()
        .and_then(|c| c.dyn_into::<web_sys::CanvasRenderingContext2d>().ok())
}

/// The page's current address, query included.
pub fn href() -> String {
    window().and_then(|w| w.location().href().ok()).unwrap_or_default()
}

/// Calls `obj[name](...args)` if it is a function; errors are ignored.
fn call_method(
    obj: &wasm_bindgen::JsValue,
    name: &str,
    args: &js_sys::Array,
) -> Option<wasm_bindgen::JsValue> {
    let f = js_sys::Reflect::get(obj, &name.into()).ok()?.dyn_into::<js_sys::Function>().ok()?;
    f.apply(obj, args).ok()
}

/// Copies text to the clipboard (`navigator.clipboard.writeText`), quietly doing nothing
/// where the browser refuses (an insecure origin, no permission).
pub fn copy_text(text: &str) {
    let Some(w) = window() else { return };
    let Ok(navigator) = js_sys::Reflect::get(&w, &"navigator".into()) else { return };
    let Ok(clipboard) = js_sys::Reflect::get(&navigator, &"clipboard".into()) else { return };
    if clipboard.is_undefined() || clipboard.is_null() {
        return;
    }
    let _ = call_method(&clipboard, "writeText", &js_sys::Array::of1(&text.into()));
}

/// Full screen on (presenter mode's F), or off if it already is.
pub fn toggle_fullscreen() {
    let Some(doc) = window().and_then(|w| w.document()) else { return };
    let current =
        js_sys::Reflect::get(&doc, &"fullscreenElement".into()).unwrap_or(wasm_bindgen::JsValue::NULL);
    if current.is_null() || current.is_undefined() {
        if let Some(root) = doc.document_element() {
            let _ = call_method(&root, "requestFullscreen", &js_sys::Array::new());
        }
    } else {
        exit_fullscreen();
    }
}

/// Leaves full screen, if the page is in it.
pub fn exit_fullscreen() {
    let Some(doc) = window().and_then(|w| w.document()) else { return };
    let current =
        js_sys::Reflect::get(&doc, &"fullscreenElement".into()).unwrap_or(wasm_bindgen::JsValue::NULL);
    if !(current.is_null() || current.is_undefined()) {
        let _ = call_method(&doc, "exitFullscreen", &js_sys::Array::new());
    }
}

/// What has the keyboard focus, as the lesson keys see it: the event target's tag.
pub fn target_focus(ev: &web_sys::Event) -> Focus {
    ev.target()
        .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
        .map_or(Focus::Page, |el| Focus::of_tag(&el.tag_name()))
}

/// The key a stepping panel (decode, tiles) takes from `ev`, by
/// [`crate::ui::lesson::lesson_keys::panel_step`]: "on the panel" when the event's target is the
/// element whose listener runs, not one of its buttons or fields.
pub fn panel_step(ev: &web_sys::KeyboardEvent, in_lesson: bool) -> Option<PanelStep> {
    let on_panel = matches!((ev.target(), ev.current_target()), (Some(t), Some(c)) if t == c);
    crate::ui::lesson::lesson_keys::panel_step(&ev.key(), target_focus(ev), in_lesson, on_panel)
}

/// Removes the element with this id, if there is one (index.html's first paint).
pub fn remove_by_id(id: &str) {
    if let Some(el) = window().and_then(|w| w.document()).and_then(|d| d.get_element_by_id(id)) {
        el.remove();
    }
}

/// Registers the service worker `sw.js` next to the page (offline after the first visit).
/// Release builds get the caching worker, debug builds (`trunk serve`) one that removes
/// itself: see scripts/service-worker.sh. Where service workers are unavailable (an
/// insecure origin, a private window that refuses them) nothing happens.
pub fn register_service_worker() {
    let Some(w) = window() else { return };
    let Ok(navigator) = js_sys::Reflect::get(&w, &"navigator".into()) else { return };
    let Ok(container) = js_sys::Reflect::get(&navigator, &"serviceWorker".into()) else { return };
    if container.is_undefined() || container.is_null() {
        return;
    }
    let Some(promise) = call_method(&container, "register", &js_sys::Array::of1(&"./sw.js".into())) else {
        return;
    };
    let Ok(promise) = promise.dyn_into::<js_sys::Promise>() else { return };
    // Handle the promise, so that a refusal is not an "uncaught" error in the console.
    wasm_bindgen_futures::spawn_local(async move {
        if let Err(e) = wasm_bindgen_futures::JsFuture::from(promise).await {
            leptos::logging::warn!("service worker not registered: {e:?}");
        }
    });
}

/// Work put off to tasks of their own, one piece per task, in order (see [`later`]).
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
/// browser frame between them (BENCHMARKS.md, R4.4).
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

/// Scrolls the first element matching `selector` to the top of the window when its top
/// is above the window (it was scrolled past); does nothing when it is in view or below.
pub fn scroll_into_view_if_above(selector: &str) {
    let Some(doc) = window().and_then(|w| w.document()) else { return };
    let Ok(Some(el)) = doc.query_selector(selector) else { return };
    if el.get_bounding_client_rect().top() < 0.0 {
        el.scroll_into_view();
    }
}
