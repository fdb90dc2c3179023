//! Where a heatmap's parts go, in CSS pixels: [`Layout`] (the grid, its labels' room and
//! the colour bar, shared by drawing and hit-testing), the axis labels shortened by
//! grapheme ([`short_label`]) and a cell's device-pixel rectangle. Plain arithmetic, no
//! drawing.

use unicode_segmentation::UnicodeSegmentation;

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

pub(super) fn label_len(label: &str) -> usize {
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
    /// The smallest size, CSS px before any zoom, a cell's number is written at: below it
    /// the cells carry none ([`super::heatmap_text::cell_number_font`]). Presenter mode
    /// raises it so that every number drawn reads from the back of a room.
    pub min_number_font: f64,
}

pub(super) const BAR_W: f64 = 14.0;
const GAP: f64 = 8.0;
const MAX_CELL: f64 = 56.0;
const MIN_CELL: f64 = 4.0;

/// The smallest size, CSS px, a number in a cell is written at: below it the numbers are
/// left out (the readout and the table carry them); a layout may ask for more
/// ([`Layout::min_number_font`]).
pub const MIN_NUMBER_FONT: f64 = 8.0;

/// The labels' font size, CSS px, where nothing asks for another ([`Layout::with_font`]).
pub const LABEL_FONT: f64 = 12.0;

impl Layout {
    /// Lays out a `n_rows × n_cols` grid with the given labels in at most `max_width`
    /// CSS pixels (the cells shrink to fit, down to 4 px), labels at [`LABEL_FONT`].
    pub fn new(row_labels: &[String], col_labels: &[String], max_width: f64) -> Self {
        Self::with_font(row_labels, col_labels, max_width, LABEL_FONT)
    }

    /// As [`Layout::new`] with labels of `label_font` CSS px. At the default size a dense
    /// grid's labels shrink to its cells (never below 7 px); a larger size (presenter
    /// mode, read from the back of a room) is kept whatever the cells.
    pub fn with_font(row_labels: &[String], col_labels: &[String], max_width: f64, label_font: f64) -> Self {
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
        let mut font = label_font;
        let (mut left, mut top, mut cell, mut bar_room) = fit(font);
        if cell < 13.0 && label_font <= LABEL_FONT {
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
            min_number_font: MIN_NUMBER_FONT,
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
pub(super) fn cell_px(layout: &Layout, r: usize, c: usize, dpr: f64) -> (i32, i32, i32, i32) {
    let px = |v: f64| (v * dpr).round() as i32;
    let (x, y, side) = layout.cell_rect(r, c);
    (px(x), px(y), px(x + side), px(y + side))
}

/// The colour bar's height in CSS pixels: the grid's, at least 80.
pub(super) fn bar_height(layout: &Layout, n_rows: usize) -> f64 {
    (layout.cell * n_rows as f64).max(80.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::draw::test_support::labels;

    #[test]
    fn a_larger_label_font_is_kept_however_small_the_cells() {
        let labels: Vec<String> = (0..13).map(|i| format!("word{i}")).collect();
        let normal = Layout::new(&labels, &labels, 260.0);
        assert!(normal.cell < 13.0 && normal.font < LABEL_FONT, "{normal:?}");
        let large = Layout::with_font(&labels, &labels, 260.0, 18.0);
        assert_eq!(large.font, 18.0);
        assert!(large.left > normal.left && large.width <= 260.0 + 1.0, "{large:?}");
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
}
