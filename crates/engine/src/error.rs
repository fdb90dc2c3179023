//! The one error type of the engine.
//!
//! Every variant names the operation that refused the input and the numbers involved, so
//! the page can put a precise sentence next to the control that caused it. The engine
//! returns these; it never panics on input.

use crate::limits;

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

    /// `d_model`, `n_heads`, `n_kv_heads`, the mask's `window` or a tile's `block` is zero.
    #[error("{what} must be at least 1, got 0")]
    ZeroSize {
        /// `"d_model"`, `"n_heads"`, `"n_kv_heads"`, `"window"` or `"block"`.
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

    /// `n_kv_heads` does not divide `n_heads`, so the query heads cannot share the
    /// key/value heads in equal groups.
    #[error(
        "h_kv = {n_kv_heads} does not divide h = {n_heads}: each key/value head serves a group of \
         h / h_kv query heads, and {n_heads} / {n_kv_heads} is not a whole number"
    )]
    KvHeadsDoNotDivide {
        /// The number of query heads.
        n_heads: usize,
        /// The number of key/value heads asked for.
        n_kv_heads: usize,
    },

    /// RoPE rotates pairs of a head's dimensions, so it needs an even `d_k`.
    #[error(
        "RoPE rotates pairs of dimensions, so d_k must be even, but d_k = d_model / h = {d_k}: \
         change d_model or h, or turn RoPE off"
    )]
    RopeOddWidth {
        /// The head width, `d_model / h`.
        d_k: usize,
    },

    /// The RoPE base is not a usable number.
    #[error("the RoPE base is {base}: it must be a finite number greater than 0 (10000 is usual)")]
    RopeBase {
        /// The base, as text.
        base: String,
    },

    /// Decoding self-attention needs a causal mask.
    #[error(
        "decoding needs a causal mask: a model that generates text writes one token at a time and \
         cannot look at tokens it has not written yet; turn \"causal\" on"
    )]
    DecodeNeedsCausal,

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
    #[error("the embedding of \"{}\" has {len} numbers, but d_model = {d_model}", shorten(word))]
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
    #[error("{} is {value}: inputs must be finite numbers with |x| ≤ {max:e}", shorten(what))]
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
    /// One of `"sentences"`, `"d_model"`, `"n_heads"`, `"n_kv_heads"`, `"rope"`,
    /// `"window"`, `"block"`, `"causal"`, `"embeddings"`, `"projections"`, `"scenario"`.
    pub fn field(&self) -> &'static str {
        match self {
            Self::NoSentences | Self::EmptySentence { .. } | Self::BatchMismatch { .. } => "sentences",
            Self::ZeroSize { what } => what,
            Self::HeadsDoNotDivide { .. } => "n_heads",
            Self::KvHeadsDoNotDivide { .. } => "n_kv_heads",
            Self::RopeOddWidth { .. } | Self::RopeBase { .. } => "rope",
            Self::DecodeNeedsCausal => "causal",
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
        let mut message = shorten_message(&e.to_string());
        // serde_json reads 1e999 as an overflow, not as infinity: say what to do about it
        if message.starts_with("number out of range") {
            message.push_str(&format!(
                " (a number such as 1e999 is too large even for a 64-bit float; inputs must be finite \
                 numbers with |x| ≤ {:e})",
                limits::MAX_ABS_INPUT
            ));
        }
        Self::Json { message }
    }
}

/// Text from the input (a word, a field name) as a message quotes it: at most 60
/// characters, keeping the start and the end (where an index such as `[3]` is).
fn shorten(text: &str) -> String {
    const HEAD: usize = 40;
    const TAIL: usize = 16;
    let n = text.chars().count();
    if n <= HEAD + TAIL + 4 {
        return text.to_owned();
    }
    let head: String = text.chars().take(HEAD).collect();
    let tail: String = text.chars().skip(n - TAIL).collect();
    format!("{head}…{tail}")
}

/// serde_json's message, cut to 300 characters (it quotes unknown field names, which a
/// tampered file can make as long as it likes); the line and column at its end are kept.
fn shorten_message(message: &str) -> String {
    const MAX: usize = 300;
    if message.chars().count() <= MAX {
        return message.to_owned();
    }
    let at = message.rfind(" at line ").filter(|&i| message.len() - i < 40);
    let (body, place) = at.map_or((message, ""), |i| message.split_at(i));
    let body: String = body.chars().take(MAX).collect();
    format!("{body}…{place}")
}

/// A number as an error message shows it: `1e31` rather than 32 digits.
pub(crate) fn number_text(value: f64) -> String {
    let a = value.abs();
    if value.is_finite() && a != 0.0 && !(1e-4..1e16).contains(&a) {
        format!("{value:e}")
    } else {
        format!("{value}")
    }
}

/// Checks that an input number is finite and within [`limits::MAX_ABS_INPUT`].
pub(crate) fn check_number(value: f64, what: impl FnOnce() -> String) -> Result<(), EngineError> {
    if value.is_finite() && value.abs() <= limits::MAX_ABS_INPUT {
        Ok(())
    } else {
        Err(EngineError::BadNumber { what: what(), value: number_text(value), max: limits::MAX_ABS_INPUT })
    }
}
