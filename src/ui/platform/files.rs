//! Downloads: a text or a URL (a canvas's PNG) offered as a file.

use wasm_bindgen::JsCast;

use super::window;

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
