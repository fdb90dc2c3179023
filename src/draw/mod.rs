//! Drawing with plotters, generic over any `DrawingBackend`: the page draws on a canvas
//! (plotters-canvas), the native tests draw the same pictures to SVG.
//!
//! Nothing here computes attention: a heatmap is given a matrix from the trace and only
//! decides colours and positions.

pub mod embedding_plot;
pub mod heatmap;
pub mod labels;
pub mod lines;
pub mod scale;

pub use heatmap::{
    draw_bar_pixels, draw_grid_pixels, draw_heatmap, draw_heatmap_with_grid, GridPixels, Heatmap, Layout,
    Theme,
};
pub use scale::{Scale, ScaleKind};
