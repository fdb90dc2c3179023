//! The page itself: the `App` component that reads the link, owns the state and lays out
//! the header, the notices and the three modes (explorer, lessons, challenges).
//!
//! May import every folder: it is the top of the tree; nothing imports it but `main.rs`.

pub mod header;
pub mod notices;
pub mod page;
