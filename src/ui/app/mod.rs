//! The page itself: the `App` component that reads the link, owns the state and lays out
//! the header, the notices and the three modes (explorer, lessons, challenges).
//!
//! May import every folder: it is the top of the tree; nothing imports it but `main.rs`.

pub mod address_sync;
pub mod header;
pub mod lesson_nav;
pub mod modes;
pub mod notices;
pub mod page;
