//! index.html's first paint, handed over to the app. The page's script paints a link's
//! real words (a lesson step, a challenge's story) before the WebAssembly arrives; the app
//! waits until the browser has reported that paint (`window.alFirstPaint.wait`, capped),
//! keeps the painted nodes marked `data-first-paint` aside when it removes the first
//! paint, and puts each in place of its own node when it builds that node with the same
//! text. So the node the browser counted as the largest paint is the node the page keeps,
//! the app never paints a new, later one of the same words, and nothing shifts.

use std::cell::RefCell;

use wasm_bindgen::JsCast;

use super::{call_method, window};

/// The most the app waits for the first paint to be reported once it is ready to start,
/// in ms (a tab in the background reports no paint; the app must not wait for it).
const MOST_MS: u32 = 500;

thread_local! {
    /// The first paint's marked nodes, taken out of it until the app adopts them.
    static KEPT: RefCell<Vec<web_sys::Element>> = const { RefCell::new(Vec::new()) };
    /// Each adopted node with the app's node it stands in for: `(key, own, kept)`.
    static ADOPTED: RefCell<Vec<(String, web_sys::Element, web_sys::Element)>> = const { RefCell::new(Vec::new()) };
}

/// Resolves once the browser has reported the first paint's words (index.html resolves
/// it at once when it paints none), or after [`MOST_MS`].
pub async fn reported() {
    let Some(w) = window() else { return };
    let Ok(fp) = js_sys::Reflect::get(&w, &"alFirstPaint".into()) else { return };
    if fp.is_undefined() {
        return;
    }
    let args = js_sys::Array::of1(&MOST_MS.into());
    if let Some(p) = call_method(&fp, "wait", &args).and_then(|p| p.dyn_into::<js_sys::Promise>().ok()) {
        let _ = wasm_bindgen_futures::JsFuture::from(p).await;
    }
}

/// Takes the nodes marked `data-first-paint` out of the element `id` (the first paint),
/// to be adopted by [`adopt`].
pub fn take(id: &str) {
    let Some(shell) = window().and_then(|w| w.document()).and_then(|d| d.get_element_by_id(id)) else {
        return;
    };
    while let Ok(Some(el)) = shell.query_selector("[data-first-paint]") {
        el.remove();
        KEPT.with_borrow_mut(|k| k.push(el));
    }
}

/// Puts the kept first-paint node marked `key` in place of `own`, the app's node, when
/// both have the same text; otherwise leaves `own`. Each kept node is adopted once.
pub fn adopt(key: &str, own: &web_sys::Element) {
    let kept = KEPT.with_borrow_mut(|k| {
        let at = k.iter().position(|el| el.get_attribute("data-first-paint").as_deref() == Some(key))?;
        Some(k.remove(at))
    });
    if let Some(el) = kept.filter(|el| el.text_content() == own.text_content()) {
        // the app's own attributes (its test ids, classes) on the kept node
        for name in own.get_attribute_names().iter().filter_map(|n| n.as_string()) {
            if let Some(v) = own.get_attribute(&name) {
                let _ = el.set_attribute(&name, &v);
            }
        }
        let _ = own.replace_with_with_node_1(&el);
        ADOPTED.with_borrow_mut(|a| a.push((key.to_owned(), own.clone(), el)));
    }
}

/// Puts back each app node whose text the app has changed since a kept node took its place
/// ([`adopt`]): the app updates its own node, which the kept one would leave stale on screen
/// (an embed's words that follow the block set in its tiles view).
pub fn settle() {
    ADOPTED.with_borrow_mut(|a| {
        a.retain(|(_, own, kept)| {
            if !kept.is_connected() {
                return false;
            }
            if own.text_content() == kept.text_content() {
                return true;
            }
            let _ = kept.replace_with_with_node_1(own);
            false
        })
    });
}

/// Puts the app's node back in place of the kept node marked `key`, if one stands in for
/// it: called before the app updates or removes that node, so the update lands on the
/// page (the first screen's caption, rebuilt by a reactive closure).
pub fn give_back(key: &str) {
    ADOPTED.with_borrow_mut(|a| {
        a.retain(|(k, own, kept)| {
            if k != key {
                return true;
            }
            if kept.is_connected() {
                let _ = kept.replace_with_with_node_1(own);
            }
            false
        })
    });
}
