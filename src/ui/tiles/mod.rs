//! The tiles view: the online softmax one tile at a time (the picture, the tables, the
//! words), its data as plain Rust.
//!
//! May import `state/`, `platform/` and `widgets/`.

pub mod chosen;
pub mod data;
pub mod picture;
pub mod shown;
pub mod tile_tables;
pub mod view;
pub mod words;
