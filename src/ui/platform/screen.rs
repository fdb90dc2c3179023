//! The window and the document: pixel ratio, viewport size, colour scheme, full screen,
//! touch or not, removing index.html's first paint, scrolling an element into view.

use leptos::prelude::{Get, GetUntracked, Set};

use crate::draw::Theme;

use super::{call_method, window};

/// The device pixels per CSS px of the page's layout: the device pixel ratio (1 when
/// unknown, at most 3) times the page's CSS zoom ([`set_zoom`]), so that a canvas drawn
/// at this ratio stays sharp when presenter mode draws the page larger. Read in a drawing
/// Effect, it makes the Effect draw again when the zoom changes (entering presenter mode
/// on a large screen), also for a canvas whose layout size stays the same.
pub fn dpr() -> f64 {
    let device = window()
        .map(|w| w.device_pixel_ratio())
        .filter(|r| r.is_finite() && *r > 0.0)
        .unwrap_or(1.0)
        .min(3.0);
    device * zoom()
}

/// The CSS zoom the page is drawn at ([`set_zoom`]; 1 but presenting on a large screen),
/// tracked by the Effect that reads it.
pub fn zoom() -> f64 {
    ZOOM.with(|z| z.get())
}

/// A pointer event's place on its element in the layout's CSS px: `offsetX` and `offsetY`
/// are in drawn px, which presenter mode's zoom makes larger.
pub fn layout_offset(ev: &web_sys::MouseEvent) -> (f64, f64) {
    let z = ZOOM.with(|z| z.get_untracked());
    (f64::from(ev.offset_x()) / z, f64::from(ev.offset_y()) / z)
}

/// Records the CSS zoom the page is drawn at (presenter mode on a large screen), for [`dpr`]:
/// every drawing Effect that read it draws again when it changes.
pub fn set_zoom(zoom: f64) {
    let zoom = if zoom.is_finite() && zoom > 0.0 { zoom } else { 1.0 };
    ZOOM.with(|z| {
        if z.get_untracked() != zoom {
            z.set(zoom);
        }
    });
}

thread_local! {
    // not owned by a component: the page has one zoom for its whole life
    static ZOOM: leptos::prelude::ArcRwSignal<f64> = leptos::prelude::ArcRwSignal::new(1.0);
}

/// The viewport width in CSS pixels.
pub fn viewport_width() -> f64 {
    window().and_then(|w| w.inner_width().ok()).and_then(|v| v.as_f64()).unwrap_or(1024.0)
}

/// The window's inner height in CSS pixels (768 when unknown).
pub fn viewport_height() -> f64 {
    window().and_then(|w| w.inner_height().ok()).and_then(|v| v.as_f64()).unwrap_or(768.0)
}

/// True on a touch screen (the main pointer is coarse): no arrow keys to offer, no hover.
pub fn touch() -> bool {
    COARSE.with(|m| m.as_ref().is_some_and(web_sys::MediaQueryList::matches))
}

thread_local! {
    // Each query is parsed once and read live (`matches`): the readout's hint and every
    // card's drawing ask on each edit, and `matchMedia` parses its query every call.
    static COARSE: Option<web_sys::MediaQueryList> = media("(pointer: coarse)");
    static DARK: Option<web_sys::MediaQueryList> = media("(prefers-color-scheme: dark)");
}

/// The window's live answer to a media query, if it has one.
fn media(query: &str) -> Option<web_sys::MediaQueryList> {
    window().and_then(|w| w.match_media(query).ok().flatten())
}

/// Light or dark, following the system setting.
pub fn theme() -> Theme {
    let dark = DARK.with(|m| m.as_ref().is_some_and(web_sys::MediaQueryList::matches));
    if dark {
        Theme::DARK
    } else {
        Theme::LIGHT
    }
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

/// Removes the element with this id, if there is one (index.html's first paint).
pub fn remove_by_id(id: &str) {
    if let Some(el) = window().and_then(|w| w.document()).and_then(|d| d.get_element_by_id(id)) {
        el.remove();
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

/// Scrolls the window so that `el`'s top sits a third of the way down the screen when it
/// opened below the fold or near its bottom edge (a phone's explain panel, under its
/// picture and table); does nothing when its top is already well in view.
pub fn scroll_up_to_if_below(el: &web_sys::Element) {
    let Some(w) = window() else { return };
    let height = viewport_height();
    let top = el.get_bounding_client_rect().top();
    if top > height - 120.0 {
        w.scroll_by_with_x_and_y(0.0, top - height / 3.0);
    }
}
