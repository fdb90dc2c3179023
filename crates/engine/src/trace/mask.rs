//! [`MaskTrace`]: what was blocked, in the engine's convention (`true` = blocked).

use std::borrow::Cow;

use serde::{Deserialize, Serialize};

use super::json::{deserialize_number, serialize_number};
use crate::scenario::MaskConfig;

/// What was blocked, in the engine's convention: `true` = blocked.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MaskTrace {
    /// The settings.
    #[serde(flatten)]
    pub config: MaskConfig,
    /// The number written into blocked scores.
    #[serde(serialize_with = "serialize_number", deserialize_with = "deserialize_number")]
    pub fill_value: f64,
    /// Always `"true = blocked"`.
    pub convention: Cow<'static, str>,
    /// `[B, T, T]`; `unsqueeze(1)` makes it `[B, 1, T, T]`, broadcast over the heads.
    pub shape: [usize; 3],
    /// Row-major `[b][query][key]`.
    pub blocked: Vec<bool>,
}

impl MaskTrace {
    /// Is query `i` of sentence `b` blocked from key `j`?
    pub fn is_blocked(&self, b: usize, i: usize, j: usize) -> bool {
        let [_, t_q, t_k] = self.shape;
        self.blocked.get((b * t_q + i) * t_k + j).copied().unwrap_or(false)
    }
}
