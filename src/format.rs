//! The one number formatter lives in the engine crate, so the explanations and the
//! exports write numbers as the page does: [`attention_engine::format`].

pub use crate::engine::format::*;
