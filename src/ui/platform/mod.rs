//! The browser's plumbing: DOM look-ups, the URL bar, the clipboard, fullscreen, the
//! service worker, canvas text measurement and the task queue.
//!
//! Shared: imports nothing of `ui`.

pub mod dom;
