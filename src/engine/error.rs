//! The one error type of the engine.
//!
//! Every variant names the operation that refused the input and the numbers involved, so
//! the page can put a precise sentence next to the control that caused it. The engine
//! returns these; it never panics on input.

use super::limits;

/// Everything that can be wrong with a scenario.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum EngineError {
    /// The scenario has no sentences at all.
    #[error("there are no sentences: type at least one")]
    NoSentences,

    /// A sentence has no tokens (empty or only spaces).
    #[error("sentence {index} is empty: type a word or remove the line")]
    EmptySentence {
        /// 1-based position of the sentence in the batch.
        index: usize,
    },

    /// Cross-attention needs one key/value sentence per query sentence.
    #[error("cross-attention needs one key/value sentence per query sentence: {queries} query and {keys} key/value sentences")]
    BatchMismatch {
        /// Query sentences (B).
        queries: usize,
        /// Key/value sentences.
        keys: usize,
    },

    /// `d_model` or `n_heads` is zero.
    #[error("{what} must be at least 1, got 0")]
    ZeroSize {
        /// `"d_model"` or `"n_heads"`.
        what: &'static str,
    },

    /// `d_model` is not a multiple of `n_heads`, so the heads cannot have equal width.
    #[error(
        "d_model = {d_model} is not divisible by h = {n_heads}: each head needs d_k = d_model / h \
         columns, and {d_model} / {n_heads} is not a whole number"
    )]
    HeadsDoNotDivide {
        /// The embedding width.
        d_model: usize,
        /// The number of heads.
        n_heads: usize,
    },

    /// A size is over one of the documented limits in [`limits`].
    #[error("{what} = {value} is over the limit of {max}")]
    TooLarge {
        /// What was counted, e.g. `"T (tokens in sentence 2)"`.
        what: String,
        /// The size that was asked for.
        value: usize,
        /// The limit.
        max: usize,
    },

    /// An explicit embedding has the wrong number of components.
    #[error("the embedding of \"{word}\" has {len} numbers, but d_model = {d_model}")]
    EmbeddingLength {
        /// The word whose vector is wrong.
        word: String,
        /// How many numbers it has.
        len: usize,
        /// How many it needs.
        d_model: usize,
    },

    /// An explicit weight matrix or bias has the wrong shape.
    #[error("{name} has shape {found:?}, but it must be {expected:?} (d_model = {d_model})")]
    WeightShape {
        /// `w_q`, `b_q`, …
        name: &'static str,
        /// The shape required.
        expected: Vec<usize>,
        /// The shape given (a ragged matrix reports its first bad row's length).
        found: Vec<usize>,
        /// The embedding width, for the message.
        d_model: usize,
    },

    /// An input number is NaN or infinite, or larger in magnitude than the engine accepts.
    #[error("{what} is {value}: inputs must be finite numbers with |x| ≤ {max:e}")]
    BadNumber {
        /// Where the number was, e.g. `embedding of "bat"[1]`.
        what: String,
        /// The number, as text (`NaN`, `inf`, `1e300`).
        value: String,
        /// The largest magnitude accepted.
        max: f64,
    },

    /// A reshape was asked for a shape with a different number of elements.
    #[error("cannot {op} a tensor of shape {from:?} into {to:?}")]
    Reshape {
        /// `"view"`.
        op: &'static str,
        /// The shape of the tensor.
        from: Vec<usize>,
        /// The shape asked for.
        to: Vec<usize>,
    },

    /// The scenario JSON could not be read.
    #[error("the scenario JSON is not valid: {message}")]
    Json {
        /// serde_json's message, with its line and column.
        message: String,
    },
}

impl EngineError {
    /// Which input the error is about, so the UI can show it next to that control.
    ///
    /// One of `"sentences"`, `"d_model"`, `"n_heads"`, `"embeddings"`, `"projections"`,
    /// `"scenario"`.
    pub fn field(&self) -> &'static str {
        match self {
            Self::NoSentences | Self::EmptySentence { .. } | Self::BatchMismatch { .. } => "sentences",
            Self::ZeroSize { what } => what,
            Self::HeadsDoNotDivide { .. } => "n_heads",
            Self::TooLarge { what, .. } => {
                if what.starts_with("d_model") {
                    "d_model"
                } else if what.starts_with("h ") || what.starts_with("n_heads") {
                    "n_heads"
                } else {
                    "sentences"
                }
            }
            Self::EmbeddingLength { .. } => "embeddings",
            Self::BadNumber { what, .. } => {
                if what.starts_with("embedding") {
                    "embeddings"
                } else {
                    "projections"
                }
            }
            Self::WeightShape { .. } => "projections",
            Self::Reshape { .. } => "n_heads",
            Self::Json { .. } => "scenario",
        }
    }
}

impl From<serde_json::Error> for EngineError {
    fn from(e: serde_json::Error) -> Self {
        Self::Json { message: e.to_string() }
    }
}

/// Checks that an input number is finite and within [`limits::MAX_ABS_INPUT`].
pub(crate) fn check_number(value: f64, what: impl FnOnce() -> String) -> Result<(), EngineError> {
    if value.is_finite() && value.abs() <= limits::MAX_ABS_INPUT {
        Ok(())
    } else {
        Err(EngineError::BadNumber { what: what(), value: format!("{value}"), max: limits::MAX_ABS_INPUT })
    }
}
