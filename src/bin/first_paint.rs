//! The first-paint worker: computes what an explorer link opens with
//! (`ui::explorer::first_screen::link_first_paint`) before the app's WebAssembly arrives:
//! the caption, and for an embed also the figure as SVG. index.html starts it for an
//! explorer link (`?s=…`, a scenario fragment) with the link's query and fragment as the
//! worker's name, after `dark` when the page is in its dark theme; it posts back
//! `[caption, svg, width, height, query without embed]`, or null when the link opens on no
//! caption, and index.html paints them where the app will draw its own. Trunk
//! builds it from index.html (`data-type="worker"`) from the same library as the app, so
//! the words are the app's own: the linker keeps only what `link_first_paint` reaches (the
//! link's parsing, the engine and the caption's words), none of the UI.

#[cfg(target_arch = "wasm32")]
fn main() {
    use attention_lens::draw::Theme;
    use attention_lens::ui::explorer::first_screen::link_first_paint;
    use attention_lens::ui::platform::address::pairs_of;
    use wasm_bindgen::{JsCast, JsValue};

    let scope: web_sys::DedicatedWorkerGlobalScope = js_sys::global().unchecked_into();
    let name = scope.name();
    // `dark?query#fragment`: the picture in the dark theme (a link starts with `?` or `#`)
    let (theme, name) = match name.strip_prefix("dark") {
        Some(link) => (&Theme::DARK, link),
        None => (&Theme::LIGHT, name.as_str()),
    };
    // `?query#fragment`: a query never holds a `#`
    let (search, fragment) = match name.find('#') {
        Some(at) => name.split_at(at),
        None => (name, ""),
    };
    // [caption, svg, width, height, query] (the picture's three null without one; the
    // query without `embed`, for an embed's "Open in Attention Lens"), or null
    let answer = link_first_paint(pairs_of(search), fragment, theme).map_or(JsValue::NULL, |paint| {
        let out = js_sys::Array::of1(&JsValue::from_str(&paint.caption));
        match paint.picture {
            Some(p) => {
                out.push(&JsValue::from_str(&p.svg));
                out.push(&p.width.into());
                out.push(&p.height.into());
            }
            None => (0..3).for_each(|_| {
                out.push(&JsValue::NULL);
            }),
        }
        out.push(&JsValue::from_str(&attention_lens::ui::state::url::without_key(search, "embed")));
        out.into()
    });
    let _ = scope.post_message(&answer);
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    eprintln!("The first-paint worker runs in the browser (index.html starts it for an explorer link).");
}
