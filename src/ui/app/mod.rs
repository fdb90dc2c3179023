//! The page itself: the `App` component that reads the link, owns the state and lays out
//! the header, the notices and the three modes (explorer, lessons, challenges), and the
//! import/export row.
//!
//! May import every folder: it is the top of the tree; nothing imports it but `main.rs`.

pub mod header;
pub mod io;
pub mod notices;
pub mod page;
