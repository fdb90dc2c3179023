//! One attention heatmap: query tokens on the rows, key tokens (or features) on the
//! columns, a colour bar with its numbers, blocked cells hatched, pad tokens greyed.
//!
//! All geometry is in CSS pixels ([`Layout`]); drawing multiplies by the device pixel
//! ratio so the picture is sharp on HiDPI screens. The same [`Layout`] answers "which
//! cell is under the pointer", so drawing and hit-testing cannot disagree.
//!
//! This file draws with plotters; the parts are apart: [`super::heatmap_layout`] (where
//! things go), [`super::heatmap_cells`] (what is drawn and the cells' bitmaps),
//! [`super::heatmap_text`] (the texts) and [`super::theme`] (the colours).

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use plotters::style::FontTransform;

use super::heatmap_cells::{
    bar_steps, cell_style, draw_bar_pixels, draw_grid_pixels, hatch_lines, hatch_width, GridPixels, Heatmap,
};
use super::heatmap_layout::{cell_px, Layout, BAR_W};
use super::heatmap_text::{text_items, Anchor, TextItem};
use super::theme::HEAD_COLORS;
use super::{Canvas, Drawn};

/// Draws a heatmap into `area`, whose pixel size should be `layout.width × dpr` by
/// `layout.height × dpr`, every cell as its own rectangle (for SVG and other backends).
///
/// # Errors
/// The backend's drawing errors.
pub fn draw_heatmap<DB: DrawingBackend>(canvas: Canvas<DB>, map: &Heatmap, layout: &Layout) -> Drawn<DB> {
    let Canvas { area, theme, dpr } = canvas;
    area.fill(&theme.background)?;
    let (n_rows, n_cols) = map.values.dim();
    let hatch = theme.hatch.stroke_width(hatch_width(dpr));
    for r in 0..n_rows {
        for c in 0..n_cols {
            let rect @ (x0, y0, x1, y1) = cell_px(layout, r, c, dpr);
            let (fill, hatched) = cell_style(map, theme, r, c);
            area.draw(&Rectangle::new([(x0, y0), (x1, y1)], fill.filled()))?;
            if hatched {
                for [a, b] in hatch_lines(rect, layout.cell) {
                    area.draw(&PathElement::new(vec![a, b], hatch))?;
                }
            }
        }
    }
    draw_axes_and_bar(area, map, layout, dpr, true)?;
    draw_text_items(area, &text_items(map, layout, theme, dpr))
}

/// Draws text items with plotters (the SVG path of the native tests).
fn draw_text_items<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    items: &[TextItem],
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    for item in items {
        let h = match item.anchor {
            Anchor::Left => HPos::Left,
            Anchor::Center => HPos::Center,
            Anchor::Right => HPos::Right,
        };
        let font = ("sans-serif", item.size).into_font();
        let font = if item.upwards { font.transform(FontTransform::Rotate270) } else { font };
        let style = font.color(&item.color).pos(Pos::new(h, VPos::Center));
        area.draw(&Text::new(item.text.clone(), (item.x, item.y), style))?;
    }
    Ok(())
}

/// Draws a heatmap like [`draw_heatmap`], but the cell grid and the colour bar as two
/// bitmaps: `put_grid` receives [`draw_grid_pixels`]' then [`draw_bar_pixels`]' buffer and
/// must copy each onto the backend's pixels (the page does it with `putImageData`). The
/// head bands are drawn with plotters; every text (labels, the bar's numbers, the numbers
/// in big cells) goes to `put_text` as [`TextItem`]s, which the page writes with the
/// canvas's `fillText` (plotters' canvas text measures every string in the DOM).
///
/// # Errors
/// The backend's drawing errors.
pub fn draw_heatmap_with_grid<DB: DrawingBackend>(
    canvas: Canvas<DB>,
    map: &Heatmap,
    layout: &Layout,
    mut put_grid: impl FnMut(&GridPixels),
    put_text: impl FnOnce(&[TextItem]),
) -> Drawn<DB> {
    let Canvas { area, theme, dpr } = canvas;
    area.fill(&theme.background)?;
    draw_axes_and_bar(area, map, layout, dpr, false)?;
    put_grid(&draw_grid_pixels(map, layout, theme, dpr));
    put_grid(&draw_bar_pixels(map, layout, dpr));
    put_text(&text_items(map, layout, theme, dpr));
    Ok(())
}

/// The head bands and, when `draw_bar`, the colour bar's colours (the texts are
/// [`text_items`]).
fn draw_axes_and_bar<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    map: &Heatmap,
    layout: &Layout,
    dpr: f64,
    draw_bar: bool,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let px = |v: f64| (v * dpr).round() as i32;
    let (n_rows, n_cols) = map.values.dim();

    // head groups: a coloured band above each head's columns
    if let Some(group) = map.col_group.filter(|&g| g > 0 && g < n_cols) {
        for c in 0..n_cols {
            let (x, _, side) = layout.cell_rect(0, c);
            let color = HEAD_COLORS[(c / group) % HEAD_COLORS.len()];
            area.draw(&Rectangle::new(
                [(px(x), px(layout.top - 5.0)), (px(x + side), px(layout.top - 1.0))],
                color.filled(),
            ))?;
        }
    }

    // the colour bar, top = hi, bottom = lo
    if draw_bar {
        let (x0, x1) = (px(layout.bar_x), px(layout.bar_x + BAR_W));
        for (y0, y1, color) in bar_steps(map, layout, n_rows, dpr) {
            area.draw(&Rectangle::new([(x0, y0), (x1, y1)], color.filled()))?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::draw::scale::Scale;
    use crate::draw::test_support::Seed003;
    use crate::draw::Theme;

    #[test]
    fn short_numbers() {
        let cases = [
            (0.7604, "0.76"),
            (-0.001, "0.00"),
            (f64::NEG_INFINITY, "-inf"),
            (f64::NAN, "NaN"),
            (-1e9, "-1e9"),
        ];
        for (v, want) in cases {
            assert_eq!(crate::format::short(v), want);
        }
    }

    /// Draws the seed 003 weights with a blocked cell to SVG and checks the picture's
    /// parts: one rectangle per cell and per colour-bar step, the cell colours, the labels.
    #[test]
    fn draws_cells_labels_and_colour_bar_to_svg() {
        let seed = Seed003::new();
        let (rows, cols) = (&seed.rows, &seed.cols);
        let map = seed.map(&[false, false, true, true]);
        let layout = Layout::new(rows, cols, 400.0);
        let mut svg = String::new();
        {
            let backend = SVGBackend::with_string(&mut svg, (layout.width as u32, layout.height as u32));
            let area = backend.into_drawing_area();
            draw_heatmap(Canvas { area: &area, theme: &Theme::LIGHT, dpr: 1.0 }, &map, &layout).unwrap();
        }
        let hex = |c: RGBColor| format!("#{:02X}{:02X}{:02X}", c.0, c.1, c.2);
        assert!(svg.contains(&hex(Scale::weights().color(0.7604))), "first cell colour");
        assert!(svg.contains(&hex(Theme::LIGHT.nan)), "NaN row colour");
        assert_eq!(svg.matches("<rect").count(), 1 + 4 + 64, "background + cells + colour bar");
        for text in ["baseball", "bat", "&lt;pad&gt;", "0.76", "0.24", "NaN", "1.00"] {
            assert!(svg.contains(text), "{text} missing");
        }
    }
}
