//! Drawing with plotters, generic over any `DrawingBackend`: the page draws on a canvas
//! (plotters-canvas), the native tests draw the same pictures to SVG.
//!
//! Nothing here computes attention: a heatmap is given a matrix from the trace and only
//! decides colours and positions.

pub mod curve;
pub mod embedding_plot;
pub mod heatmap;
pub mod heatmap_cells;
pub mod heatmap_layout;
pub mod heatmap_text;
pub mod labels;
pub mod lines;
pub mod scale;
#[cfg(test)]
mod test_support;
pub mod theme;

use plotters::coord::Shift;
use plotters::prelude::{DrawingArea, DrawingAreaErrorKind, DrawingBackend};

pub use heatmap::{draw_heatmap, draw_heatmap_with_grid};
pub use heatmap_cells::{draw_bar_pixels, draw_grid_pixels, GridPixels, Heatmap};
pub use heatmap_layout::{Layout, LABEL_FONT};
pub use scale::{Scale, ScaleKind};
pub use theme::Theme;

/// Where a picture is drawn and how: the backend's area (`layout size × dpr` pixels), the
/// colours, and the device pixel ratio every layout size is multiplied by.
pub struct Canvas<'a, DB: DrawingBackend> {
    /// The area drawn on.
    pub area: &'a DrawingArea<DB, Shift>,
    /// The colours.
    pub theme: &'a Theme,
    /// Device pixels per layout pixel.
    pub dpr: f64,
}

/// What a draw function returns: the backend's drawing errors.
pub type Drawn<DB> = Result<(), DrawingAreaErrorKind<<DB as DrawingBackend>::ErrorType>>;
