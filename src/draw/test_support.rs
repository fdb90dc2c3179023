//! Fixtures shared by the drawing modules' tests.

use ndarray::{array, Array2};

use super::heatmap_cells::Heatmap;
use super::scale::Scale;

/// Owned label strings, as the page passes them.
pub fn labels(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

/// Seed 003's weights ("baseball bat") with a padded second query row of NaN: the
/// picture the heatmap tests draw.
pub struct Seed003 {
    pub values: Array2<f64>,
    pub rows: Vec<String>,
    pub cols: Vec<String>,
}

impl Seed003 {
    pub fn new() -> Self {
        Self {
            values: array![[0.7604, 0.2396], [f64::NAN, f64::NAN]],
            rows: labels(&["baseball", "<pad>"]),
            cols: labels(&["baseball", "bat"]),
        }
    }

    /// The heatmap of these weights on the weights scale, with `blocked` cells (row-major).
    pub fn map<'a>(&'a self, blocked: &'a [bool]) -> Heatmap<'a> {
        Heatmap {
            values: self.values.view(),
            row_labels: &self.rows,
            col_labels: &self.cols,
            row_is_pad: &[false, true],
            col_is_pad: &[false, false],
            blocked,
            scale: Scale::weights(),
            col_group: None,
        }
    }
}
