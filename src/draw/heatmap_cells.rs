//! What a heatmap draws ([`Heatmap`]: the numbers, labels, pad and blocked flags, the
//! scale) and its cells as bitmaps: each cell's fill and hatching, the cell grid and the
//! colour bar as RGBA buffers ([`GridPixels`]) that the page copies with `putImageData`.
//! The pixel rectangles are [`Layout`]'s, the same as the plotters drawing's.

use ndarray::ArrayView2;
use plotters::style::RGBColor;

use super::heatmap_layout::{bar_height, cell_px, Layout, BAR_W};
use super::scale::Scale;
use super::theme::Theme;

/// What to draw.
pub struct Heatmap<'a> {
    /// The numbers, rows × columns.
    pub values: ArrayView2<'a, f64>,
    /// One label per row (query tokens).
    pub row_labels: &'a [String],
    /// One label per column (key tokens, or feature names).
    pub col_labels: &'a [String],
    /// Which rows are `<pad>`.
    pub row_is_pad: &'a [bool],
    /// Which columns are `<pad>`.
    pub col_is_pad: &'a [bool],
    /// Row-major `rows × cols` blocked flags, or empty when nothing is masked.
    pub blocked: &'a [bool],
    /// The colour scale.
    pub scale: Scale,
    /// When set, columns come in groups of this width (one per head) and get a coloured
    /// band above them.
    pub col_group: Option<usize>,
}

impl Heatmap<'_> {
    pub(super) fn is_blocked(&self, r: usize, c: usize) -> bool {
        self.blocked.get(r * self.values.ncols() + c).copied().unwrap_or(false)
    }
}

/// A cell's fill and whether it is hatched (blocked by the mask, or NaN).
pub(super) fn cell_style(map: &Heatmap, theme: &Theme, r: usize, c: usize) -> (RGBColor, bool) {
    cell_style_with(map, theme, &map.scale.lookup(), r, c)
}

/// [`cell_style`] with the scale's colours looked up already.
fn cell_style_with(
    map: &Heatmap,
    theme: &Theme,
    colors: &crate::draw::scale::Lookup,
    r: usize,
    c: usize,
) -> (RGBColor, bool) {
    let v = map.values[[r, c]];
    let blocked = map.is_blocked(r, c);
    let fill = if v.is_nan() {
        theme.nan
    } else if blocked {
        theme.blocked
    } else {
        colors.color(v)
    };
    (fill, blocked || v.is_nan())
}

/// The hatching of a blocked cell: two diagonals read as "blocked" at any size. Each line
/// goes from its lower-left end to its upper-right end, in device pixels.
pub(super) fn hatch_lines((x0, y0, x1, y1): (i32, i32, i32, i32), side: f64) -> Vec<[(i32, i32); 2]> {
    let mut lines = vec![[(x0, y1), (x1, y0)]];
    if side >= 16.0 {
        let (mid, mid_y) = ((x0 + x1) / 2, (y0 + y1) / 2);
        lines.push([(x0, mid_y), (mid, y0)]);
        lines.push([(mid, y1), (x1, mid_y)]);
    }
    lines
}

/// The width of a hatch line in device pixels.
pub(super) fn hatch_width(dpr: f64) -> u32 {
    1.max((dpr).round() as u32)
}

/// The cell grid as one bitmap, for `putImageData`: drawing thousands of cells one canvas
/// call at a time is what makes big heatmaps slow.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GridPixels {
    /// Left edge of the grid, device pixels.
    pub x: i32,
    /// Top edge of the grid, device pixels.
    pub y: i32,
    /// Width in device pixels.
    pub width: u32,
    /// Height in device pixels.
    pub height: u32,
    /// Row-major RGBA, 4 bytes a pixel, opaque.
    pub rgba: Vec<u8>,
}

impl GridPixels {
    /// The colour at a device pixel of the canvas (not of the grid), if inside the grid.
    pub fn at(&self, x: i32, y: i32) -> Option<RGBColor> {
        let (gx, gy) = (x - self.x, y - self.y);
        if gx < 0 || gy < 0 || gx >= self.width as i32 || gy >= self.height as i32 {
            return None;
        }
        let i = 4 * (gy as usize * self.width as usize + gx as usize);
        Some(RGBColor(self.rgba[i], self.rgba[i + 1], self.rgba[i + 2]))
    }
}

/// Paints the cells (fill and hatching) of a heatmap into an RGBA buffer covering the
/// grid, with the same pixel rectangles, colours and hatch lines as [`draw_heatmap`](super::heatmap::draw_heatmap). The
/// hatch lines are solid (not anti-aliased) and as heavy as the canvas's `round(dpr)` px
/// strokes.
pub fn draw_grid_pixels(map: &Heatmap, layout: &Layout, theme: &Theme, dpr: f64) -> GridPixels {
    let (n_rows, n_cols) = map.values.dim();
    let (gx, gy, _, _) = cell_px(layout, 0, 0, dpr);
    let (_, _, gx1, gy1) = cell_px(layout, n_rows.saturating_sub(1), n_cols.saturating_sub(1), dpr);
    let (width, height) = if n_rows == 0 || n_cols == 0 {
        (0, 0)
    } else {
        ((gx1 - gx).max(0) as usize, (gy1 - gy).max(0) as usize)
    };
    let mut rgba = vec![255u8; width * height * 4];
    let colors = map.scale.lookup();
    let put = |rgba: &mut [u8], x: i32, y: i32, RGBColor(r, g, b): RGBColor| {
        let (x, y) = ((x - gx) as usize, (y - gy) as usize);
        let i = 4 * (y * width + x);
        rgba[i..i + 3].copy_from_slice(&[r, g, b]);
    };
    // a canvas line w px wide at 45° covers about w·√2 pixels of each pixel row
    let hatch_w = ((f64::from(hatch_width(dpr)) * std::f64::consts::SQRT_2).round() as i32).max(1);
    // a column's pixels are the same in every row: [x0, x1) in bytes of a pixel row
    let spans: Vec<(usize, usize)> = (0..n_cols)
        .map(|c| {
            let (x0, _, x1, _) = cell_px(layout, 0, c, dpr);
            (4 * (x0 - gx) as usize, 4 * (x1 - gx) as usize)
        })
        .collect();
    let mut hatched = Vec::new();
    for r in 0..n_rows {
        // one row of cells at a time: fill the first pixel row, then copy it down
        let (_, y0, _, y1) = cell_px(layout, r, 0, dpr);
        let row_start = 4 * (y0 - gy) as usize * width;
        hatched.clear();
        for (c, &(x0, x1)) in spans.iter().enumerate() {
            let (RGBColor(cr, cg, cb), hatch) = cell_style_with(map, theme, &colors, r, c);
            if hatch {
                hatched.push(c);
            }
            fill_opaque(&mut rgba[row_start + x0..row_start + x1], [cr, cg, cb]);
        }
        let line = 4 * width;
        for y in y0 + 1..y1 {
            let dst = 4 * (y - gy) as usize * width;
            rgba.copy_within(row_start..row_start + line, dst);
        }
        // the cells of this row that are blocked or NaN
        for &c in &hatched {
            let rect = cell_px(layout, r, c, dpr);
            let (x0, y0, x1, y1) = rect;
            for [(ax, ay), (bx, by)] in hatch_lines(rect, layout.cell) {
                // rasterise row by row: the line's x at each pixel row's centre
                for py in by.max(y0)..ay.min(y1) {
                    let t = (f64::from(ay) - (f64::from(py) + 0.5)) / f64::from((ay - by).max(1));
                    let xc = f64::from(ax) + t * f64::from(bx - ax);
                    let first = (xc - f64::from(hatch_w) / 2.0 + 0.5).floor() as i32;
                    for px in first.max(x0)..(first + hatch_w).min(x1) {
                        put(&mut rgba, px, py, theme.hatch);
                    }
                }
            }
        }
    }
    GridPixels { x: gx, y: gy, width: width as u32, height: height as u32, rgba }
}

/// The colour bar's 64 steps, top (hi) to bottom (lo): `(y0, y1, colour)`, device pixels.
pub(super) fn bar_steps(
    map: &Heatmap,
    layout: &Layout,
    n_rows: usize,
    dpr: f64,
) -> Vec<(i32, i32, RGBColor)> {
    let px = |v: f64| (v * dpr).round() as i32;
    let (bar_top, bar_h) = (layout.top, bar_height(layout, n_rows));
    let steps = 64;
    (0..steps)
        .map(|i| {
            let t0 = i as f64 / steps as f64;
            let t1 = (i + 1) as f64 / steps as f64;
            let v = map.scale.hi - (map.scale.hi - map.scale.lo) * (t0 + t1) / 2.0;
            (px(bar_top + t0 * bar_h), px(bar_top + t1 * bar_h), map.scale.color(v))
        })
        .collect()
}

/// Fills `pixels` (RGBA, 4 bytes a pixel) with one opaque colour: the first pixel is
/// written, then the filled part is copied after itself, doubling each time. A few block
/// copies instead of one small copy per pixel, which the size-optimised wasm build makes a
/// call each (BENCHMARKS.md, "The medium page's extra drawing found").
fn fill_opaque(pixels: &mut [u8], [r, g, b]: [u8; 3]) {
    if pixels.len() < 4 {
        return;
    }
    pixels[..4].copy_from_slice(&[r, g, b, 255]);
    let mut filled = 4;
    while filled < pixels.len() {
        let n = filled.min(pixels.len() - filled);
        pixels.copy_within(..n, filled);
        filled += n;
    }
}

/// The colour bar as a bitmap, with the same pixel rows as [`draw_heatmap`](super::heatmap::draw_heatmap)'s rectangles.
pub fn draw_bar_pixels(map: &Heatmap, layout: &Layout, dpr: f64) -> GridPixels {
    let px = |v: f64| (v * dpr).round() as i32;
    let steps = bar_steps(map, layout, map.values.nrows(), dpr);
    let (x0, x1) = (px(layout.bar_x), px(layout.bar_x + BAR_W));
    let y0 = steps.first().map_or(0, |s| s.0);
    let y1 = steps.last().map_or(0, |s| s.1);
    let (width, height) = ((x1 - x0).max(0) as usize, (y1 - y0).max(0) as usize);
    let mut rgba = vec![255u8; width * height * 4];
    for (a, b, RGBColor(r, g, bl)) in steps {
        fill_opaque(&mut rgba[4 * width * (a - y0) as usize..4 * width * (b - y0) as usize], [r, g, bl]);
    }
    GridPixels { x: x0, y: y0, width: width as u32, height: height as u32, rgba }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::draw::test_support::Seed003;

    /// Every pixel of the span gets the colour, opaque, whatever the span's length (the
    /// doubling copies end on a part-copy when the length is not a power of two).
    #[test]
    fn fill_opaque_fills_every_pixel() {
        for n in [0, 1, 2, 3, 5, 7, 8, 13, 64, 100] {
            let mut px = vec![0u8; 4 * n + 4];
            fill_opaque(&mut px[..4 * n], [10, 20, 30]);
            for (i, p) in px.chunks_exact(4).enumerate() {
                let want: [u8; 4] = if i < n { [10, 20, 30, 255] } else { [0; 4] };
                assert_eq!(p, want, "pixel {i} of {n}");
            }
        }
    }

    /// The bitmap grid has the SVG picture's cells: the same pixel rectangles and colours,
    /// the NaN row in the theme's colour with a hatch line on its diagonal.
    #[test]
    fn grid_pixels_match_the_cells() {
        let seed = Seed003::new();
        let (rows, cols) = (&seed.rows, &seed.cols);
        let map = seed.map(&[false, false, false, true]);
        for dpr in [1.0, 2.0] {
            let layout = Layout::new(rows, cols, 400.0);
            let g = draw_grid_pixels(&map, &layout, &Theme::LIGHT, dpr);
            let (x0, y0, _, _) = cell_px(&layout, 0, 0, dpr);
            let (_, _, x1, y1) = cell_px(&layout, 1, 1, dpr);
            assert_eq!((g.x, g.y, g.width as i32, g.height as i32), (x0, y0, x1 - x0, y1 - y0));
            assert_eq!(g.rgba.len(), 4 * (g.width * g.height) as usize);
            assert!(g.rgba.chunks(4).all(|p| p[3] == 255), "opaque");
            // every pixel of an unhatched cell has its colour, edges included
            for (r, c, v) in [(0, 0, 0.7604), (0, 1, 0.2396)] {
                let (a, b, e, f) = cell_px(&layout, r, c, dpr);
                for (x, y) in [(a, b), (e - 1, b), (a, f - 1), (e - 1, f - 1), ((a + e) / 2, (b + f) / 2)] {
                    assert_eq!(g.at(x, y), Some(Scale::weights().color(v)), "cell ({r},{c}) at ({x},{y})");
                }
            }
            // NaN cells: the nan colour off the diagonals, the hatch colour on them
            for c in 0..2 {
                let (a, b, e, f) = cell_px(&layout, 1, c, dpr);
                assert_eq!(g.at(a + 1, b + 1), Some(Theme::LIGHT.nan), "NaN cell corner");
                let hatched =
                    (b..f).filter(|&y| g.at(a + (f - 1 - y), y) == Some(Theme::LIGHT.hatch)).count();
                assert!(hatched as i32 >= f - b - 2, "diagonal of cell (1,{c}): {hatched} of {}", f - b);
                assert_eq!(g.at(e - 1, f - 1), Some(Theme::LIGHT.nan));
            }
            let bar = draw_bar_pixels(&map, &layout, dpr);
            let (top, bottom) = (bar.y, bar.y + bar.height as i32 - 1);
            assert_eq!(bar.at(bar.x, top), Some(Scale::weights().color(1.0 - 1.0 / 128.0)), "hi at the top");
            assert_eq!(
                bar.at(bar.x + bar.width as i32 - 1, bottom),
                Some(Scale::weights().color(1.0 / 128.0))
            );
            assert_eq!(bar.height as i32, ((layout.top + bar_height(&layout, 2)) * dpr).round() as i32 - top);
            assert_eq!(g.at(x1, y0), None);
        }
    }

    #[test]
    fn grid_pixels_of_an_empty_matrix_are_empty() {
        let values = ndarray::Array2::<f64>::zeros((0, 0));
        let map = Heatmap {
            values: values.view(),
            row_labels: &[],
            col_labels: &[],
            row_is_pad: &[],
            col_is_pad: &[],
            blocked: &[],
            scale: Scale::weights(),
            col_group: None,
        };
        let g = draw_grid_pixels(&map, &Layout::new(&[], &[], 300.0), &Theme::DARK, 1.0);
        assert!(g.rgba.is_empty() && g.width == 0 && g.height == 0);
    }
}
