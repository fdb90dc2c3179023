//! One attention heatmap: query tokens on the rows, key tokens (or features) on the
//! columns, a colour bar with its numbers, blocked cells hatched, pad tokens greyed.
//!
//! All geometry is in CSS pixels ([`Layout`]); drawing multiplies by the device pixel
//! ratio so the picture is sharp on HiDPI screens. The same [`Layout`] answers "which
//! cell is under the pointer", so drawing and hit-testing cannot disagree.

use ndarray::ArrayView2;
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use plotters::style::FontTransform;
use unicode_segmentation::UnicodeSegmentation;

use super::scale::Scale;

/// Longest label drawn on an axis, in graphemes; longer ones end in "…".
pub const MAX_LABEL: usize = 10;

/// Shortens a label to [`MAX_LABEL`] graphemes, so an emoji or a combining mark is
/// never cut in half.
pub fn short_label(label: &str) -> String {
    if one_byte_graphemes(label) {
        // most tokens: every byte is a grapheme (a card has hundreds of labels per draw)
        return match label.get(..MAX_LABEL - 1) {
            Some(head) if label.len() > MAX_LABEL => format!("{head}…"),
            _ => label.to_owned(),
        };
    }
    let graphemes: Vec<&str> = label.graphemes(true).collect();
    if graphemes.len() <= MAX_LABEL {
        label.to_owned()
    } else {
        let mut s: String = graphemes[..MAX_LABEL - 1].concat();
        s.push('…');
        s
    }
}

fn label_len(label: &str) -> usize {
    if one_byte_graphemes(label) {
        return label.len().min(MAX_LABEL);
    }
    short_label(label).graphemes(true).count()
}

/// True when every byte of `label` is a grapheme of its own: ASCII without "\r\n" (the
/// one ASCII pair that is a single grapheme).
fn one_byte_graphemes(label: &str) -> bool {
    label.is_ascii() && !label.contains("\r\n")
}

/// Colours that follow the page's light or dark theme.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Theme {
    /// Canvas background.
    pub background: RGBColor,
    /// Labels and ticks.
    pub text: RGBColor,
    /// `<pad>` labels.
    pub muted: RGBColor,
    /// Blocked cells.
    pub blocked: RGBColor,
    /// The hatching over blocked cells.
    pub hatch: RGBColor,
    /// NaN cells (a fully masked row under `-inf`).
    pub nan: RGBColor,
}

impl Theme {
    /// The light theme.
    pub const LIGHT: Theme = Theme {
        background: RGBColor(255, 255, 255),
        text: RGBColor(28, 28, 36),
        muted: RGBColor(140, 140, 150),
        blocked: RGBColor(214, 214, 220),
        hatch: RGBColor(150, 150, 160),
        nan: RGBColor(250, 200, 200),
    };
    /// The dark theme.
    pub const DARK: Theme = Theme {
        background: RGBColor(24, 24, 30),
        text: RGBColor(230, 230, 236),
        muted: RGBColor(130, 130, 140),
        blocked: RGBColor(60, 60, 70),
        hatch: RGBColor(110, 110, 122),
        nan: RGBColor(120, 40, 48),
    };
}

/// The distinct colours of head column groups (Okabe–Ito, colour-blind safe).
pub const HEAD_COLORS: [RGBColor; 8] = [
    RGBColor(230, 159, 0),
    RGBColor(86, 180, 233),
    RGBColor(0, 158, 115),
    RGBColor(240, 228, 66),
    RGBColor(0, 114, 178),
    RGBColor(213, 94, 0),
    RGBColor(204, 121, 167),
    RGBColor(120, 120, 120),
];

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
    fn is_blocked(&self, r: usize, c: usize) -> bool {
        self.blocked.get(r * self.values.ncols() + c).copied().unwrap_or(false)
    }
}

/// Where everything goes, in CSS pixels.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Layout {
    /// Rows of cells.
    pub n_rows: usize,
    /// Columns of cells.
    pub n_cols: usize,
    /// Left edge of the grid.
    pub left: f64,
    /// Top edge of the grid.
    pub top: f64,
    /// Side of one square cell.
    pub cell: f64,
    /// Label font size.
    pub font: f64,
    /// Left edge of the colour bar.
    pub bar_x: f64,
    /// Whole picture width.
    pub width: f64,
    /// Whole picture height.
    pub height: f64,
}

const BAR_W: f64 = 14.0;
const GAP: f64 = 8.0;
const MAX_CELL: f64 = 56.0;
const MIN_CELL: f64 = 4.0;

impl Layout {
    /// Lays out a `n_rows × n_cols` grid with the given labels in at most `max_width`
    /// CSS pixels (the cells shrink to fit, down to 4 px).
    pub fn new(row_labels: &[String], col_labels: &[String], max_width: f64) -> Self {
        let (n_rows, n_cols) = (row_labels.len().max(1), col_labels.len().max(1));
        let longest = |labels: &[String]| labels.iter().map(|l| label_len(l)).max().unwrap_or(1) as f64;
        let (row_chars, col_chars) = (longest(row_labels), longest(col_labels));
        let fit = |font: f64| {
            let char_w = font * 0.62;
            let left = row_chars * char_w + GAP;
            let top = col_chars * char_w + GAP + 6.0;
            let bar_room = GAP * 2.0 + BAR_W + 7.0 * char_w;
            let cell = ((max_width - left - bar_room) / n_cols as f64).floor().clamp(MIN_CELL, MAX_CELL);
            (left, top, cell, bar_room)
        };
        let mut font = 12.0;
        let (mut left, mut top, mut cell, mut bar_room) = fit(font);
        if cell < 13.0 {
            // dense grid: labels as tall as a cell, but never below 7 px
            font = (cell * 0.95).max(7.0);
            (left, top, cell, bar_room) = fit(font);
        }
        let grid_w = cell * n_cols as f64;
        let grid_h = cell * n_rows as f64;
        let bar_x = left + grid_w + GAP * 2.0;
        Self {
            n_rows,
            n_cols,
            left,
            top,
            cell,
            font,
            bar_x,
            width: (left + grid_w + bar_room).ceil(),
            height: (top + grid_h.max(80.0) + GAP).ceil(),
        }
    }

    /// The cell under a point, if any.
    pub fn cell_at(&self, x: f64, y: f64) -> Option<(usize, usize)> {
        let (cx, cy) = ((x - self.left) / self.cell, (y - self.top) / self.cell);
        if cx < 0.0 || cy < 0.0 {
            return None;
        }
        let (c, r) = (cx as usize, cy as usize);
        (r < self.n_rows && c < self.n_cols).then_some((r, c))
    }

    /// `(x, y, side)` of a cell, in CSS pixels.
    pub fn cell_rect(&self, r: usize, c: usize) -> (f64, f64, f64) {
        (self.left + c as f64 * self.cell, self.top + r as f64 * self.cell, self.cell)
    }
}

/// A cell's pixel rectangle `[x0, x1) × [y0, y1)` in device pixels: exactly the pixels a
/// canvas `fillRect(x0, y0, x1 - x0, y1 - y0)` covers, so neighbours abut without gaps.
fn cell_px(layout: &Layout, r: usize, c: usize, dpr: f64) -> (i32, i32, i32, i32) {
    let px = |v: f64| (v * dpr).round() as i32;
    let (x, y, side) = layout.cell_rect(r, c);
    (px(x), px(y), px(x + side), px(y + side))
}

/// A cell's fill and whether it is hatched (blocked by the mask, or NaN).
fn cell_style(map: &Heatmap, theme: &Theme, r: usize, c: usize) -> (RGBColor, bool) {
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
fn hatch_lines((x0, y0, x1, y1): (i32, i32, i32, i32), side: f64) -> Vec<[(i32, i32); 2]> {
    let mut lines = vec![[(x0, y1), (x1, y0)]];
    if side >= 16.0 {
        let (mid, mid_y) = ((x0 + x1) / 2, (y0 + y1) / 2);
        lines.push([(x0, mid_y), (mid, y0)]);
        lines.push([(mid, y1), (x1, mid_y)]);
    }
    lines
}

/// The width of a hatch line in device pixels.
fn hatch_width(dpr: f64) -> u32 {
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
/// grid, with the same pixel rectangles, colours and hatch lines as [`draw_heatmap`]. The
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
            for p in rgba[row_start + x0..row_start + x1].chunks_exact_mut(4) {
                p[..3].copy_from_slice(&[cr, cg, cb]);
            }
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

/// Draws a heatmap into `area`, whose pixel size should be `layout.width × dpr` by
/// `layout.height × dpr`, every cell as its own rectangle (for SVG and other backends).
///
/// # Errors
/// The backend's drawing errors.
pub fn draw_heatmap<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    map: &Heatmap,
    layout: &Layout,
    theme: &Theme,
    dpr: f64,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
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

/// Horizontal anchor of a [`TextItem`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Anchor {
    /// The text starts at x.
    Left,
    /// The text is centred on x.
    Center,
    /// The text ends at x.
    Right,
}

/// One piece of text of a heatmap, in device pixels, vertically centred on `y`: a label,
/// a number in a cell or a number of the colour bar. The page draws these with the
/// canvas's own `fillText` (one font per size, no measuring); other backends with plotters.
#[derive(Debug, Clone, PartialEq)]
pub struct TextItem {
    /// What to write.
    pub text: String,
    /// Anchor point, device pixels.
    pub x: i32,
    /// Vertical centre, device pixels.
    pub y: i32,
    /// Font size, device pixels.
    pub size: f64,
    /// Colour.
    pub color: RGBColor,
    /// Where x is along the text.
    pub anchor: Anchor,
    /// Written upwards (rotated 270°), as the column labels are.
    pub upwards: bool,
}

/// Every text of the heatmap: row labels, column labels, the colour bar's numbers and,
/// when cells are big enough (≥ 34 CSS px), the number in each cell.
pub fn text_items(map: &Heatmap, layout: &Layout, theme: &Theme, dpr: f64) -> Vec<TextItem> {
    let px = |v: f64| (v * dpr).round() as i32;
    let (n_rows, n_cols) = map.values.dim();
    let font = layout.font * dpr;
    let mut items = Vec::new();
    // row labels (queries), right-aligned against the grid
    for (r, label) in map.row_labels.iter().enumerate().take(n_rows) {
        let (_, y, side) = layout.cell_rect(r, 0);
        let pad = map.row_is_pad.get(r).copied().unwrap_or(false);
        items.push(TextItem {
            text: short_label(label),
            x: px(layout.left - 5.0),
            y: px(y + side / 2.0),
            size: font,
            color: if pad { theme.muted } else { theme.text },
            anchor: Anchor::Right,
            upwards: false,
        });
    }
    // column labels (keys), written upwards above the grid; a one-letter label ("I")
    // upright, since a letter on its side reads as a dash
    for (c, label) in map.col_labels.iter().enumerate().take(n_cols) {
        let (x, _, side) = layout.cell_rect(0, c);
        let pad = map.col_is_pad.get(c).copied().unwrap_or(false);
        let text = short_label(label);
        let upright = label_len(&text) == 1;
        items.push(TextItem {
            text,
            x: px(x + side / 2.0),
            y: if upright { px(layout.top - 9.0 - layout.font / 2.0) } else { px(layout.top - 9.0) },
            size: font,
            color: if pad { theme.muted } else { theme.text },
            anchor: if upright { Anchor::Center } else { Anchor::Left },
            upwards: !upright,
        });
    }
    // the colour bar's five numbers, top = hi
    let bar_h = bar_height(layout, n_rows);
    let tick_font = (layout.font.min(11.0)) * dpr;
    for (i, tick) in map.scale.ticks().iter().rev().enumerate() {
        let y = layout.top + bar_h * i as f64 / 4.0;
        items.push(TextItem {
            text: crate::format::short(*tick),
            x: px(layout.bar_x + BAR_W + 4.0),
            y: px(y),
            size: tick_font,
            color: theme.text,
            anchor: Anchor::Left,
            upwards: false,
        });
    }
    // the numbers in the cells
    if layout.cell >= 34.0 {
        for r in 0..n_rows {
            for c in 0..n_cols {
                let (x0, y0, x1, y1) = cell_px(layout, r, c, dpr);
                let (fill, _) = cell_style(map, theme, r, c);
                let v = map.values.get((r, c)).copied().unwrap_or(f64::NAN);
                items.push(TextItem {
                    text: crate::format::short(v),
                    x: (x0 + x1) / 2,
                    y: (y0 + y1) / 2,
                    size: font * 0.9,
                    color: Scale::text_on(fill),
                    anchor: Anchor::Center,
                    upwards: false,
                });
            }
        }
    }
    items
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
    area: &DrawingArea<DB, Shift>,
    map: &Heatmap,
    layout: &Layout,
    theme: &Theme,
    dpr: f64,
    mut put_grid: impl FnMut(&GridPixels),
    put_text: impl FnOnce(&[TextItem]),
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    area.fill(&theme.background)?;
    draw_axes_and_bar(area, map, layout, dpr, false)?;
    put_grid(&draw_grid_pixels(map, layout, theme, dpr));
    put_grid(&draw_bar_pixels(map, layout, dpr));
    put_text(&text_items(map, layout, theme, dpr));
    Ok(())
}

/// The colour bar's height in CSS pixels: the grid's, at least 80.
fn bar_height(layout: &Layout, n_rows: usize) -> f64 {
    (layout.cell * n_rows as f64).max(80.0)
}

/// The colour bar's 64 steps, top (hi) to bottom (lo): `(y0, y1, colour)`, device pixels.
fn bar_steps(map: &Heatmap, layout: &Layout, n_rows: usize, dpr: f64) -> Vec<(i32, i32, RGBColor)> {
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

/// The colour bar as a bitmap, with the same pixel rows as [`draw_heatmap`]'s rectangles.
pub fn draw_bar_pixels(map: &Heatmap, layout: &Layout, dpr: f64) -> GridPixels {
    let px = |v: f64| (v * dpr).round() as i32;
    let steps = bar_steps(map, layout, map.values.nrows(), dpr);
    let (x0, x1) = (px(layout.bar_x), px(layout.bar_x + BAR_W));
    let y0 = steps.first().map_or(0, |s| s.0);
    let y1 = steps.last().map_or(0, |s| s.1);
    let (width, height) = ((x1 - x0).max(0) as usize, (y1 - y0).max(0) as usize);
    let mut rgba = vec![255u8; width * height * 4];
    for (a, b, RGBColor(r, g, bl)) in steps {
        let rows = &mut rgba[4 * width * (a - y0) as usize..4 * width * (b - y0) as usize];
        for p in rows.chunks_exact_mut(4) {
            p[..3].copy_from_slice(&[r, g, bl]);
        }
    }
    GridPixels { x: x0, y: y0, width: width as u32, height: height as u32, rgba }
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
    use ndarray::array;

    fn labels(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn labels_are_shortened_by_grapheme() {
        assert_eq!(short_label("bat"), "bat");
        assert_eq!(short_label("antidisestablishment"), "antidises…");
        let family = "👨‍👩‍👧".repeat(12); // 12 graphemes, each several code points
        assert_eq!(short_label(&family).graphemes(true).count(), MAX_LABEL);
        assert!(short_label(&family).starts_with("👨‍👩‍👧"));
        // the ASCII shortcut gives what the grapheme path gives, "\r\n" (one grapheme) too
        let slow = |l: &str| {
            let g: Vec<&str> = l.graphemes(true).collect();
            if g.len() <= MAX_LABEL {
                l.to_owned()
            } else {
                format!("{}…", g[..MAX_LABEL - 1].concat())
            }
        };
        for l in
            ["", "a", "0123456789", "0123456789a", "ab\r\ncd\r\nef\r\ngh\r\nij", "x\ry\nz", &"q".repeat(40)]
        {
            assert_eq!(short_label(l), slow(l), "{l:?}");
            assert_eq!(label_len(l), slow(l).graphemes(true).count(), "{l:?}");
        }
    }

    #[test]
    fn layout_hit_test_agrees_with_cell_rects() {
        let rows = labels(&["I", "bought", "a", "baseball", "bat"]);
        let l = Layout::new(&rows, &rows, 600.0);
        assert!(l.width <= 600.0 + 1.0, "{l:?}");
        for r in 0..5 {
            for c in 0..5 {
                let (x, y, side) = l.cell_rect(r, c);
                assert_eq!(l.cell_at(x + side / 2.0, y + side / 2.0), Some((r, c)));
            }
        }
        assert_eq!(l.cell_at(l.left - 1.0, l.top + 1.0), None);
        assert_eq!(l.cell_at(l.left + 1.0, l.top + 5.0 * l.cell + 1.0), None);
    }

    #[test]
    fn dense_grids_stay_inside_the_width_with_readable_labels() {
        let many: Vec<String> = (0..64).map(|i| format!("w{i}")).collect();
        let l = Layout::new(&many, &many, 700.0);
        assert!(l.cell >= 7.0 && l.width <= 701.0, "{l:?}");
        assert!(l.font >= 7.0);
    }

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
        let values = array![[0.7604, 0.2396], [f64::NAN, f64::NAN]];
        let rows = labels(&["baseball", "<pad>"]);
        let cols = labels(&["baseball", "bat"]);
        let map = Heatmap {
            values: values.view(),
            row_labels: &rows,
            col_labels: &cols,
            row_is_pad: &[false, true],
            col_is_pad: &[false, false],
            blocked: &[false, false, true, true],
            scale: Scale::weights(),
            col_group: None,
        };
        let layout = Layout::new(&rows, &cols, 400.0);
        let mut svg = String::new();
        {
            let backend = SVGBackend::with_string(&mut svg, (layout.width as u32, layout.height as u32));
            draw_heatmap(&backend.into_drawing_area(), &map, &layout, &Theme::LIGHT, 1.0).unwrap();
        }
        let hex = |c: RGBColor| format!("#{:02X}{:02X}{:02X}", c.0, c.1, c.2);
        assert!(svg.contains(&hex(Scale::weights().color(0.7604))), "first cell colour");
        assert!(svg.contains(&hex(Theme::LIGHT.nan)), "NaN row colour");
        assert_eq!(svg.matches("<rect").count(), 1 + 4 + 64, "background + cells + colour bar");
        for text in ["baseball", "bat", "&lt;pad&gt;", "0.76", "0.24", "NaN", "1.00"] {
            assert!(svg.contains(text), "{text} missing");
        }
    }

    /// A column label of one letter ("I") is written upright: on its side it reads as a
    /// dash. Longer labels are written upwards.
    #[test]
    fn one_letter_column_labels_stand_upright() {
        let values = array![[0.5, 0.5], [0.5, 0.5]];
        let rows = labels(&["I", "bought"]);
        let map = Heatmap {
            values: values.view(),
            row_labels: &rows,
            col_labels: &rows,
            row_is_pad: &[false, false],
            col_is_pad: &[false, false],
            blocked: &[false; 4],
            scale: Scale::weights(),
            col_group: None,
        };
        let layout = Layout::new(&rows, &rows, 400.0);
        let items = text_items(&map, &layout, &Theme::LIGHT, 1.0);
        let col = |text: &str| items.iter().find(|i| i.text == text && i.y < layout.top as i32).unwrap();
        assert!(!col("I").upwards && col("I").anchor == Anchor::Center);
        assert!(col("bought").upwards);
        // above the grid, clear of it
        assert!(f64::from(col("I").y) + layout.font / 2.0 <= layout.top);
    }

    /// The bitmap grid has the SVG picture's cells: the same pixel rectangles and colours,
    /// the NaN row in the theme's colour with a hatch line on its diagonal.
    #[test]
    fn grid_pixels_match_the_cells() {
        let values = array![[0.7604, 0.2396], [f64::NAN, f64::NAN]];
        let rows = labels(&["baseball", "<pad>"]);
        let cols = labels(&["baseball", "bat"]);
        let map = Heatmap {
            values: values.view(),
            row_labels: &rows,
            col_labels: &cols,
            row_is_pad: &[false, true],
            col_is_pad: &[false, false],
            blocked: &[false, false, false, true],
            scale: Scale::weights(),
            col_group: None,
        };
        for dpr in [1.0, 2.0] {
            let layout = Layout::new(&rows, &cols, 400.0);
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
