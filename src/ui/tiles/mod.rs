//! The tiles view: the online softmax one tile at a time (the picture, the tables, the
//! words), its data as plain Rust.
//!
//! May import `state/`, `platform/` and `widgets/`.

pub mod tile_tables;
pub mod tiles_data;
pub mod tiles_picture;
pub mod tiles_view;
pub mod tiles_words;
