//! The decode view: key/value-cache decoding one position at a time (the query, the
//! cache tables, the position strip), its data as plain Rust, and the cache calculator.
//!
//! May import `state/`, `platform/` and `widgets/`.

pub mod cache_calculator;
pub mod decode_cache;
pub mod decode_data;
pub mod decode_position;
pub mod decode_query;
pub mod decode_view;
