//! What the tiles view's picture and tables show, handed to each as one value.

use std::sync::Arc;

use leptos::prelude::*;

use crate::engine::{Tile, Trace};

/// The run, tile, sentence and head that the picture and the tables show.
#[derive(Clone, Copy)]
pub struct Shown {
    /// The full run (none while it computes).
    pub full: Signal<Option<Arc<Trace>>>,
    /// The current tile.
    pub current: Signal<Option<Tile>>,
    /// The sentence shown.
    pub batch: Signal<usize>,
    /// The head shown.
    pub head: Signal<usize>,
}
