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
    short_label(label).graphemes(true).count()
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

/// Formats a number for a cell: two decimals, or `-inf`, `NaN`.
pub fn short_number(v: f64) -> String {
    if v.is_nan() {
        "NaN".into()
    } else if v == f64::NEG_INFINITY {
        "-inf".into()
    } else if v == f64::INFINITY {
        "inf".into()
    } else if v.abs() >= 1e4 {
        format!("{v:.0e}")
    } else {
        let s = format!("{v:.2}");
        if s == "-0.00" {
            "0.00".into()
        } else {
            s
        }
    }
}

/// Draws a heatmap into `area`, whose pixel size should be `layout.width × dpr` by
/// `layout.height × dpr`.
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
    let px = |v: f64| (v * dpr).round() as i32;
    area.fill(&theme.background)?;
    let (n_rows, n_cols) = map.values.dim();
    let font = layout.font * dpr;
    let show_values = layout.cell >= 34.0;

    // cells
    for r in 0..n_rows {
        for c in 0..n_cols {
            let (x, y, side) = layout.cell_rect(r, c);
            let (x0, y0, x1, y1) = (px(x), px(y), px(x + side), px(y + side));
            let v = map.values[[r, c]];
            let blocked = map.is_blocked(r, c);
            let fill = if v.is_nan() {
                theme.nan
            } else if blocked {
                theme.blocked
            } else {
                map.scale.color(v)
            };
            area.draw(&Rectangle::new([(x0, y0), (x1, y1)], fill.filled()))?;
            if blocked || v.is_nan() {
                // hatching: two diagonals read as "blocked" at any size
                let hatch = theme.hatch.stroke_width(1.max(px(1.0) as u32));
                area.draw(&PathElement::new(vec![(x0, y1), (x1, y0)], hatch))?;
                if side >= 16.0 {
                    let mid = (x0 + x1) / 2;
                    let mid_y = (y0 + y1) / 2;
                    area.draw(&PathElement::new(vec![(x0, mid_y), (mid, y0)], hatch))?;
                    area.draw(&PathElement::new(vec![(mid, y1), (x1, mid_y)], hatch))?;
                }
            }
            if show_values {
                let color = Scale::text_on(fill);
                let style = ("sans-serif", font * 0.9)
                    .into_font()
                    .color(&color)
                    .pos(Pos::new(HPos::Center, VPos::Center));
                area.draw(&Text::new(short_number(v), ((x0 + x1) / 2, (y0 + y1) / 2), style))?;
            }
        }
    }

    // row labels (queries), right-aligned against the grid
    for (r, label) in map.row_labels.iter().enumerate().take(n_rows) {
        let (_, y, side) = layout.cell_rect(r, 0);
        let pad = map.row_is_pad.get(r).copied().unwrap_or(false);
        let style = ("sans-serif", font)
            .into_font()
            .color(if pad { &theme.muted } else { &theme.text })
            .pos(Pos::new(HPos::Right, VPos::Center));
        area.draw(&Text::new(short_label(label), (px(layout.left - 5.0), px(y + side / 2.0)), style))?;
    }

    // column labels (keys), written upwards above the grid
    for (c, label) in map.col_labels.iter().enumerate().take(n_cols) {
        let (x, _, side) = layout.cell_rect(0, c);
        let pad = map.col_is_pad.get(c).copied().unwrap_or(false);
        let style = ("sans-serif", font)
            .into_font()
            .transform(FontTransform::Rotate270)
            .color(if pad { &theme.muted } else { &theme.text })
            .pos(Pos::new(HPos::Left, VPos::Center));
        area.draw(&Text::new(short_label(label), (px(x + side / 2.0), px(layout.top - 9.0)), style))?;
    }

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

    // the colour bar, top = hi, bottom = lo, with five numbers
    let bar_top = layout.top;
    let bar_h = (layout.cell * n_rows as f64).max(80.0);
    let steps = 64;
    for i in 0..steps {
        let t0 = i as f64 / steps as f64;
        let t1 = (i + 1) as f64 / steps as f64;
        let v = map.scale.hi - (map.scale.hi - map.scale.lo) * (t0 + t1) / 2.0;
        area.draw(&Rectangle::new(
            [
                (px(layout.bar_x), px(bar_top + t0 * bar_h)),
                (px(layout.bar_x + BAR_W), px(bar_top + t1 * bar_h)),
            ],
            map.scale.color(v).filled(),
        ))?;
    }
    let tick_font = (layout.font.min(11.0)) * dpr;
    for (i, tick) in map.scale.ticks().iter().rev().enumerate() {
        let y = bar_top + bar_h * i as f64 / 4.0;
        let style =
            ("sans-serif", tick_font).into_font().color(&theme.text).pos(Pos::new(HPos::Left, VPos::Center));
        area.draw(&Text::new(short_number(*tick), (px(layout.bar_x + BAR_W + 4.0), px(y)), style))?;
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
            assert_eq!(short_number(v), want);
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
}
