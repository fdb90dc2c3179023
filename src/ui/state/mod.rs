//! The page's state and how it is computed, shared by every feature: the settings and the
//! scenario they make, the link that holds them, the layout sizes, the `AppState` signals
//! and where the engine runs (synchronously or in a worker).
//!
//! Shared: imports `platform/` and `widgets/` only, never a feature folder.

pub mod app_state;
pub mod card_id;
pub mod engine;
pub mod field_words;
pub mod page_layout;
pub mod settings;
pub mod size_words;
pub mod url;
