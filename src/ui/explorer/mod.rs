//! The explorer: the controls (with the import and export row), the token overview, the pipeline of steps, the selected
//! step's tensors (heatmaps or lines) and the first screen's caption.
//!
//! May import `state/`, `platform/`, `widgets/`, the views it shows (`heatmap/`,
//! `decode/`, `tiles/`) and `explain/` (its guessing flag hides the asked values).

pub mod controls;
pub mod embed;
pub mod first_screen;
pub mod io;
pub mod lines_view;
pub mod pipeline;
pub mod shared_vectors;
pub mod tensor_bar;
pub mod tensors;
pub mod tokens;
pub mod view;
