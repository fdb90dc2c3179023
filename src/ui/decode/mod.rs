//! The decode view: key/value-cache decoding one position at a time (the query, the
//! cache tables, the position strip), its data as plain Rust, and the cache calculator.
//!
//! May import `state/`, `platform/` and `widgets/`.

pub mod cache;
pub mod cache_calculator;
pub mod data;
pub mod position;
pub mod query;
pub mod view;
