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

    /// `d_model`, `n_heads`, `n_kv_heads`, the mask's `window` or `keep_first`, or a tile's
    /// `block` is zero.
    #[error("{what} must be at least 1, got 0")]
    ZeroSize {
        /// `"d_model"`, `"n_heads"`, `"n_kv_heads"`, `"window"`, `"keep_first"` or `"block"`.
        what: &'static str,
        /// The control it is about.
        field: Field,
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
        "RoPE rotates pairs of dimensions, so d_k must be even, but d_k = {d_k}: \
         change d_model or h (or d_head), or turn RoPE off"
    )]
    RopeOddWidth {
        /// The head width, `d_model / h` or a head size of its own.
        d_k: usize,
    },

    /// A rotary fraction that leaves no pair, or an odd number of dimensions, to rotate.
    #[error(
        "RoPE's fraction {fraction} of d_k = {d_k} rotates {dims} dimensions: it must be a number in (0, 1] that \
         rotates an even number of them, at least 2 (GPT-NeoX rotates 0.25)"
    )]
    RopeFraction {
        /// The fraction, as text.
        fraction: String,
        /// The head width.
        d_k: usize,
        /// `⌊d_k·fraction⌋`.
        dims: usize,
    },

    /// A number of RoPE's scaling that the formula cannot use.
    #[error("rope.scaling.{name} is {value}: {rule}")]
    RopeScaling {
        /// The field's name within `rope.scaling`.
        name: &'static str,
        /// Its value, as text.
        value: String,
        /// What it must be.
        rule: &'static str,
    },

    /// The RoPE base is not a usable number.
    #[error("the RoPE base is {base}: it must be a finite number greater than 0 (10000 is usual)")]
    RopeBase {
        /// The base, as text.
        base: String,
    },

    /// A score option (the scale, the softcap) is not a usable number.
    #[error("the {what} is {value}: it must be a finite number greater than 0 and at most 1e30 ({usual})")]
    ScoreOption {
        /// `"scale"` or `"softcap"`.
        what: &'static str,
        /// The value, as text.
        value: String,
        /// What is usual, e.g. `"1/√d_k when absent"`.
        usual: &'static str,
        /// The control it is about.
        field: Field,
    },

    /// A QK-norm weight that is not one number per head feature.
    #[error("the QK-norm {which} has {len} numbers, but {}", if *whole { format!("the whole projection is {d_k} wide: one per number of it") } else { format!("d_k = {d_k}: one per feature of a head") })]
    QkNormWeight {
        /// `"q_weight"` or `"k_weight"`.
        which: &'static str,
        /// Its length.
        len: usize,
        /// The length it needs: the head width, or the projection's over the whole of it.
        d_k: usize,
        /// Whether the norm is over the whole projection (OLMo 2).
        whole: bool,
    },

    /// Attention sinks that are not one logit per query head.
    #[error("there are {len} attention sinks, but h = {n_heads}: one learned logit per query head")]
    SinksLength {
        /// How many were given.
        len: usize,
        /// The number of query heads.
        n_heads: usize,
    },

    /// Kept first keys (StreamingLLM) are kept beside a sliding window; without one every
    /// key is visible already.
    #[error(
        "keep_first = {keep_first} keeps the first keys beside a sliding window, but there is no window: \
         set window (StreamingLLM keeps a few first tokens beside a window of recent ones), or clear keep_first"
    )]
    KeepFirstWithoutWindow {
        /// The number of kept first keys asked for.
        keep_first: usize,
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
        /// The control it is about.
        field: Field,
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
        /// The control it is about: an embedding or a projection's weights.
        field: Field,
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

    /// Multi-head latent attention's sizes or options that cannot go together.
    #[error("multi-head latent attention (mla): {what}: {why}")]
    Mla {
        /// What is wrong (`"kv_lora_rank"`, `"d_head"`, `"decoding"`, …).
        what: &'static str,
        /// Why, and what to do.
        why: &'static str,
    },

    /// Multi-head latent attention with fewer key/value heads than query heads: MLA gives
    /// every head a key and value of its own, projected up from the one latent, so there
    /// are no key/value heads to share. Shown beside h_kv, the setting to change.
    #[error(
        "h_kv = {n_kv_heads} with MLA on: MLA has no key/value heads to share (every head's key \
         and value is projected up from the one latent c_KV): set h_kv to h = {n_heads}, or turn MLA off"
    )]
    MlaKvHeads {
        /// The number of query heads.
        n_heads: usize,
        /// The number of key/value heads asked for.
        n_kv_heads: usize,
    },

    /// One of MLA's weights has the wrong shape.
    #[error("mla.weights.{name} has shape {found:?}, but it must be {expected:?}")]
    MlaWeightShape {
        /// The weight's name in `mla.weights`.
        name: &'static str,
        /// The shape it must have.
        expected: Vec<usize>,
        /// The shape it has.
        found: Vec<usize>,
    },

    /// A number of layers the run cannot make.
    #[error("n_layers = {n_layers}: {why}")]
    Layers {
        /// The number of layers asked for.
        n_layers: usize,
        /// Why not, and what to do.
        why: String,
    },

    /// A layer to show that the run does not have.
    #[error("layer = {layer}, but the run has n_layers = {n_layers}: pick a layer from 1 to {n_layers}")]
    NoSuchLayer {
        /// The layer asked for, counted from 1.
        layer: usize,
        /// The number of layers.
        n_layers: usize,
    },

    /// The scenario JSON could not be read.
    #[error("the scenario JSON is not valid: {message}")]
    Json {
        /// serde_json's message, with its line and column.
        message: String,
    },
}

/// The input control an [`EngineError`] is about, so the page can show the error next
/// to it ([`EngineError::field`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Field {
    /// The sentences (and the key/value sentences): their number and tokens.
    Sentences,
    /// `d_model`.
    DModel,
    /// `n_heads` (h).
    NHeads,
    /// The explicit embedding vectors.
    Embeddings,
    /// The projection weights.
    Projections,
    /// The scenario as a whole (its JSON).
    Scenario,
    /// `n_kv_heads` (h_kv, grouped-query attention).
    NKvHeads,
    /// The RoPE settings.
    Rope,
    /// The mask's sliding window.
    Window,
    /// The mask's kept first keys beside the window (StreamingLLM).
    KeepFirst,
    /// The causal mask switch (decoding needs it).
    Causal,
    /// A tile's block size (the online softmax).
    Block,
    /// The factor the scores are multiplied by, in place of 1/√d_k.
    Scale,
    /// Logit softcapping's cap.
    Softcap,
    /// QK-norm's weights and ε.
    QkNorm,
    /// The attention sinks' logits, one per head.
    Sinks,
    /// A head size of its own.
    DHead,
    /// Multi-head latent attention, `mla`.
    Mla,
    /// The number of layers, `n_layers`.
    NLayers,
    /// The layer whose steps are shown, `layer`.
    Layer,
}

impl Field {
    /// Every field, in the order of the page's controls.
    pub const ALL: [Field; 20] = [
        Self::Sentences,
        Self::DModel,
        Self::NHeads,
        Self::NLayers,
        Self::Layer,
        Self::NKvHeads,
        Self::DHead,
        Self::Mla,
        Self::Scale,
        Self::Softcap,
        Self::QkNorm,
        Self::Sinks,
        Self::Rope,
        Self::Causal,
        Self::Window,
        Self::KeepFirst,
        Self::Block,
        Self::Embeddings,
        Self::Projections,
        Self::Scenario,
    ];

    /// The field named `name` ([`Field::as_str`]), if any.
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|f| f.as_str() == name)
    }

    /// The field's name in the scenario: `"sentences"`, `"d_model"`, `"n_heads"`,
    /// `"n_kv_heads"`, `"d_head"`, `"n_layers"`, `"layer"`, `"scale"`, `"softcap"`, `"qk_norm"`, `"sinks"`, `"rope"`,
    /// `"causal"`, `"window"`, `"keep_first"`, `"block"`,
    /// `"embeddings"`, `"projections"`, `"scenario"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Sentences => "sentences",
            Self::DModel => "d_model",
            Self::NHeads => "n_heads",
            Self::Embeddings => "embeddings",
            Self::Projections => "projections",
            Self::Scenario => "scenario",
            Self::NKvHeads => "n_kv_heads",
            Self::Rope => "rope",
            Self::Window => "window",
            Self::KeepFirst => "keep_first",
            Self::Causal => "causal",
            Self::Block => "block",
            Self::Scale => "scale",
            Self::Softcap => "softcap",
            Self::QkNorm => "qk_norm",
            Self::Sinks => "sinks",
            Self::DHead => "d_head",
            Self::Mla => "mla",
            Self::NLayers => "n_layers",
            Self::Layer => "layer",
        }
    }
}

impl std::fmt::Display for Field {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl EngineError {
    /// Which input the error is about, so the UI can show it next to that control.
    pub fn field(&self) -> Field {
        match self {
            Self::NoSentences | Self::EmptySentence { .. } | Self::BatchMismatch { .. } => Field::Sentences,
            Self::HeadsDoNotDivide { .. } | Self::Reshape { .. } => Field::NHeads,
            Self::KvHeadsDoNotDivide { .. } | Self::MlaKvHeads { .. } => Field::NKvHeads,
            Self::QkNormWeight { .. } => Field::QkNorm,
            Self::SinksLength { .. } => Field::Sinks,
            Self::Mla { .. } | Self::MlaWeightShape { .. } => Field::Mla,
            Self::RopeOddWidth { .. }
            | Self::RopeBase { .. }
            | Self::RopeFraction { .. }
            | Self::RopeScaling { .. } => Field::Rope,
            Self::DecodeNeedsCausal => Field::Causal,
            Self::KeepFirstWithoutWindow { .. } => Field::KeepFirst,
            Self::EmbeddingLength { .. } => Field::Embeddings,
            // a bad number is in an embedding (`embedding of "bat"[1]`) or a weight (`w_q[0][1]`)
            Self::ZeroSize { field, .. }
            | Self::TooLarge { field, .. }
            | Self::BadNumber { field, .. }
            | Self::ScoreOption { field, .. } => *field,
            Self::WeightShape { .. } => Field::Projections,
            Self::Json { .. } => Field::Scenario,
            Self::Layers { .. } => Field::NLayers,
            Self::NoSuchLayer { .. } => Field::Layer,
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
pub(crate) fn check_number(
    value: f64,
    field: Field,
    what: impl FnOnce() -> String,
) -> Result<(), EngineError> {
    if value.is_finite() && value.abs() <= limits::MAX_ABS_INPUT {
        Ok(())
    } else {
        Err(EngineError::BadNumber {
            what: what(),
            value: number_text(value),
            max: limits::MAX_ABS_INPUT,
            field,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_error_names_its_control() {
        let cases = [
            (EngineError::NoSentences, Field::Sentences),
            (EngineError::EmptySentence { index: 2 }, Field::Sentences),
            (EngineError::BatchMismatch { queries: 1, keys: 2 }, Field::Sentences),
            (EngineError::HeadsDoNotDivide { d_model: 5, n_heads: 2 }, Field::NHeads),
            (EngineError::EmbeddingLength { word: "bat".into(), len: 2, d_model: 3 }, Field::Embeddings),
            (
                EngineError::WeightShape { name: "w_q", expected: vec![2, 2], found: vec![2, 3], d_model: 2 },
                Field::Projections,
            ),
            (EngineError::Reshape { op: "view", from: vec![6], to: vec![4] }, Field::NHeads),
            (EngineError::Json { message: "EOF".into() }, Field::Scenario),
            (EngineError::SinksLength { len: 3, n_heads: 2 }, Field::Sinks),
            (EngineError::KeepFirstWithoutWindow { keep_first: 2 }, Field::KeepFirst),
        ];
        let mut s = crate::scenario::Scenario::identity(&["the cat sat"], 4, 2);
        s.mask.keep_first = Some(2);
        assert_eq!(crate::run(&s).unwrap_err(), EngineError::KeepFirstWithoutWindow { keep_first: 2 });
        for (error, field) in cases {
            assert_eq!(error.field(), field, "{error}");
        }
        // the errors that carry their field: each as the engine makes it, for the control it names
        let run = |edit: &dyn Fn(&mut crate::scenario::Scenario)| {
            let mut s = crate::scenario::Scenario::identity(&["the cat sat"], 4, 2);
            edit(&mut s);
            crate::run(&s).unwrap_err()
        };
        type Edit<'a> = &'a dyn Fn(&mut crate::scenario::Scenario);
        let made: [(Edit, Field); 19] = [
            (&|s| s.d_head = Some(0), Field::DHead),
            (&|s| s.d_head = Some(limits::MAX_D_MODEL), Field::DHead),
            (&|s| s.sinks = Some(vec![0.5, f64::INFINITY]), Field::Sinks),
            (&|s| s.scale = Some(0.0), Field::Scale),
            (&|s| s.scale = Some(f64::NAN), Field::Scale),
            (&|s| s.softcap = Some(-1.0), Field::Softcap),
            (&|s| s.softcap = Some(1e31), Field::Softcap),
            (&|s| s.d_model = 0, Field::DModel),
            (&|s| s.n_heads = 0, Field::NHeads),
            (&|s| s.n_kv_heads = Some(0), Field::NKvHeads),
            (&|s| s.d_model = limits::MAX_D_MODEL + 1, Field::DModel),
            (&|s| s.n_heads = limits::MAX_HEADS + 1, Field::NHeads),
            (&|s| s.sentences = vec!["a".into(); limits::MAX_BATCH + 1], Field::Sentences),
            (&|s| s.sentences = vec!["a ".repeat(limits::MAX_TOKENS + 1)], Field::Sentences),
            (
                &|s| {
                    s.mask.causal = true;
                    s.mask.window = Some(0);
                },
                Field::Window,
            ),
            (
                &|s| {
                    s.mask.window = Some(2);
                    s.mask.keep_first = Some(0);
                },
                Field::KeepFirst,
            ),
            (
                &|s| {
                    s.n_heads = 64;
                    s.d_model = 64;
                    s.sentences = vec!["a ".repeat(limits::MAX_TOKENS); limits::MAX_BATCH];
                },
                Field::Sentences,
            ),
            // a bad number, in an embedding or in a weight
            (
                &|s| {
                    s.embeddings.insert("cat".into(), vec![f64::NAN; 4]);
                },
                Field::Embeddings,
            ),
            (
                &|s| {
                    let eye: Vec<Vec<f64>> =
                        (0..4).map(|i| (0..4).map(|j| f64::from(u8::from(i == j))).collect()).collect();
                    let mut w_q = eye.clone();
                    w_q[0][1] = f64::INFINITY;
                    s.projections =
                        crate::scenario::Projections::Explicit(Box::new(crate::scenario::ExplicitWeights {
                            w_q,
                            b_q: vec![],
                            w_k: eye.clone(),
                            b_k: vec![],
                            w_v: eye.clone(),
                            b_v: vec![],
                            w_o: eye,
                            b_o: vec![],
                        }));
                },
                Field::Projections,
            ),
        ];
        for (i, (edit, field)) in made.iter().enumerate() {
            let error = run(edit);
            assert!(
                matches!(
                    error,
                    EngineError::ZeroSize { .. }
                        | EngineError::TooLarge { .. }
                        | EngineError::BadNumber { .. }
                        | EngineError::ScoreOption { .. }
                ),
                "{i}: {error}"
            );
            assert_eq!(error.field(), *field, "{i}: {error}");
        }
        for field in Field::ALL {
            assert_eq!(Field::from_name(field.as_str()), Some(field));
        }
        assert_eq!(Field::from_name("seed"), None);
        assert_eq!(Field::DModel.as_str(), "d_model");
        assert_eq!(Field::NHeads.to_string(), "n_heads");
    }
}
