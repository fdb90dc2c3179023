//! A heatmap's texts as [`TextItem`]s, in device pixels: the row and column labels, the
//! colour bar's numbers and the numbers in big cells. The page writes them with the
//! canvas's `fillText`; the plotters drawing (SVG in the tests) with plotters' text.

use plotters::style::RGBColor;

use super::heatmap_cells::{cell_style, Heatmap};
use super::heatmap_layout::{bar_height, cell_px, label_len, short_label, Layout, BAR_W, MIN_NUMBER_FONT};
use super::scale::Scale;
use super::theme::Theme;

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

/// The cells narrower than this (CSS px) carry no number.
const MIN_NUMBER_CELL: f64 = 34.0;

/// The size, CSS px, of the numbers written in the cells, if they fit: 0.9 of the
/// labels' size, smaller where the widest number would run into its neighbour, and
/// `None` when the cells are under 34 px or the size would fall under 8 px (or the
/// layout's [`Layout::min_number_font`]). A number
/// never crosses its cell's edges ("-0.070.160.36" is three numbers run together).
pub fn cell_number_font(values: ndarray::ArrayView2<'_, f64>, layout: &Layout) -> Option<f64> {
    if layout.cell < MIN_NUMBER_CELL || values.is_empty() {
        return None;
    }
    let widest = widest_number(values).chars().count().max(1);
    // 2 px of room on each side; text_width's 0.62 em per character is generous
    let fits = (layout.cell - 4.0) / super::labels::text_width(widest, 1.0);
    let font = (layout.font * 0.9).min(fits);
    (font >= layout.min_number_font.max(MIN_NUMBER_FONT)).then_some(font)
}

/// The longest of the numbers the cells would carry, as written ([`crate::format::short`]).
pub fn widest_number(values: ndarray::ArrayView2<'_, f64>) -> String {
    values.iter().map(|v| crate::format::short(*v)).max_by_key(|t| t.chars().count()).unwrap_or_default()
}

/// Every text of the heatmap: row labels, column labels, the colour bar's numbers and,
/// where they fit ([`cell_number_font`]), the number in each cell.
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
    if let Some(number_font) = cell_number_font(map.values.view(), layout) {
        for r in 0..n_rows {
            for c in 0..n_cols {
                let (x0, y0, x1, y1) = cell_px(layout, r, c, dpr);
                let (fill, _) = cell_style(map, theme, r, c);
                let v = map.values.get((r, c)).copied().unwrap_or(f64::NAN);
                items.push(TextItem {
                    text: crate::format::short(v),
                    x: (x0 + x1) / 2,
                    y: (y0 + y1) / 2,
                    size: number_font * dpr,
                    color: Scale::text_on(fill),
                    anchor: Anchor::Center,
                    upwards: false,
                });
            }
        }
    }
    items
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::draw::test_support::labels;
    use ndarray::array;

    /// Presenter labels of 18 px in 40 px cells: "-0.07" at 0.9 × 18 = 16.2 px is about
    /// 50 px wide and ran into its neighbours; the numbers shrink to fit the cell, and
    /// are left out where they would be unreadably small.
    #[test]
    fn cell_numbers_never_cross_their_cells() {
        let values = array![[-0.07, 0.16, 0.36], [0.0, 0.0, 1.0]];
        let rows = labels(&["a", "b"]);
        let cols = labels(&["a", "b", "c"]);
        for (width, font) in [(260.0, 18.0), (300.0, 18.0), (420.0, 12.0), (900.0, 18.0), (120.0, 12.0)] {
            let layout = Layout::with_font(&rows, &cols, width, font);
            let shown = cell_number_font(values.view(), &layout);
            let map = Heatmap {
                values: values.view(),
                row_labels: &rows,
                col_labels: &cols,
                row_is_pad: &[false, false],
                col_is_pad: &[false, false, false],
                blocked: &[false; 6],
                scale: Scale::weights(),
                col_group: None,
            };
            let items = text_items(&map, &layout, &Theme::LIGHT, 1.0);
            let numbers: Vec<_> = items.iter().filter(|t| t.text == "-0.07").collect();
            match shown {
                None => assert!(numbers.is_empty()),
                Some(f) => {
                    assert!(f >= 8.0 && f <= font * 0.9, "{f}");
                    // the widest number, at its size, inside its cell with 2 px each side
                    assert!(crate::draw::labels::text_width(5, f) <= layout.cell - 4.0 + 1e-9);
                    assert_eq!(numbers.len(), 1);
                }
            }
        }
        // a small cell: no numbers at all
        let small = Layout::with_font(&rows, &cols, 120.0, 12.0);
        assert!(small.cell < 34.0 && cell_number_font(values.view(), &small).is_none());
        // a big one: the full 0.9 of the label size
        let big = Layout::with_font(&rows, &cols, 900.0, 12.0);
        assert_eq!(cell_number_font(values.view(), &big), Some(12.0 * 0.9));
    }

    /// Presenter mode asks for numbers a room reads: in a 34 px cell "-0.07" fits at 9.7
    /// px, written by default and left out at a minimum of 12 px; a 56 px cell keeps its
    /// 16.2 px numbers.
    #[test]
    fn a_layouts_minimum_leaves_out_numbers_too_small_to_read() {
        let values = array![[-0.07, 0.16, 0.36], [0.0, 0.0, 1.0]];
        let (rows, cols) = (labels(&["a", "b"]), labels(&["a", "b", "c"]));
        let mut narrow = Layout::with_font(&rows, &cols, 231.0, 18.0);
        assert_eq!(narrow.cell, 34.0);
        let f = cell_number_font(values.view(), &narrow).unwrap();
        assert!(f > 9.0 && f < 10.0, "{f}");
        narrow.min_number_font = 12.0;
        assert_eq!(cell_number_font(values.view(), &narrow), None);
        let mut wide = Layout::with_font(&rows, &cols, 400.0, 18.0);
        wide.min_number_font = 12.0;
        assert!((cell_number_font(values.view(), &wide).unwrap() - 16.2).abs() < 1e-9);
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
}
