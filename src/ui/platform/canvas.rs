//! Writing into a canvas: its size, an RGBA buffer in one `putImageData`, a heatmap's texts.

use wasm_bindgen::JsCast;

/// Sizes `canvas` to `width` × `height` CSS px, drawn at `scale` device pixels per CSS px:
/// the backing store and the CSS size are set together, so the two never disagree.
pub fn size(canvas: &web_sys::HtmlCanvasElement, width: f64, height: f64, scale: f64) {
    canvas.set_width((width * scale).round() as u32);
    canvas.set_height((height * scale).round() as u32);
    let style = web_sys::HtmlElement::style(canvas);
    let _ = style.set_property("width", &format!("{width}px"));
    let _ = style.set_property("height", &format!("{height}px"));
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
