//! A heatmap's texts as [`TextItem`]s, in device pixels: the row and column labels, the
//! colour bar's numbers and the numbers in big cells. The page writes them with the
//! canvas's `fillText`; the plotters drawing (SVG in the tests) with plotters' text.

use plotters::style::RGBColor;

use super::heatmap_cells::{cell_style, Heatmap};
use super::heatmap_layout::{bar_height, cell_px, label_len, short_label, Layout, BAR_W};
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::draw::test_support::labels;
    use ndarray::array;

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
