//! The training configuration: one serde type, read from the JSON that `trace --train`
//! takes and the worker receives. Unknown fields are refused, and every bad value is a
//! [`TrainError`] naming its field.

use serde::{Deserialize, Serialize};

/// Everything wrong with a training configuration. Each message starts with the field.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum TrainError {
    /// The JSON could not be read (serde's message names the unknown or missing field).
    #[error("training configuration: {0}")]
    Json(String),
    /// A field has a value the trainer refuses.
    #[error("{field}: {message}")]
    Invalid {
        /// The field, as written in the JSON (`"optimizer.lr"`, `"T"`).
        field: &'static str,
        /// What is wrong and what is accepted.
        message: String,
    },
}

impl From<serde_json::Error> for TrainError {
    fn from(e: serde_json::Error) -> Self {
        Self::Json(e.to_string())
    }
}

/// A shorthand for [`TrainError::Invalid`].
fn invalid(field: &'static str, message: impl Into<String>) -> TrainError {
    TrainError::Invalid { field, message: message.into() }
}

/// The largest sizes the trainer accepts. They keep one step's saved activations under
/// about 50 MB (the attention weights, `n_layers·batch·h·T²`, are the largest).
pub mod limits {
    /// Most tokens in the vocabulary.
    pub const MAX_VOCAB: usize = 4096;
    /// Longest sequence.
    pub const MAX_T: usize = 256;
    /// Most sequences per batch.
    pub const MAX_BATCH: usize = 1024;
    /// Widest residual stream.
    pub const MAX_D_MODEL: usize = 256;
    /// Most layers.
    pub const MAX_LAYERS: usize = 4;
    /// Most steps in one run.
    pub const MAX_STEPS: usize = 1_000_000;
    /// Most attention weights saved for one batch, `n_layers·batch·h·T²`.
    pub const MAX_ATTENTION_CELLS: usize = 1 << 22;
    /// Most numbers in one saved `(batch, T, width)` tensor (logits or the residual stream).
    pub const MAX_ACTIVATIONS: usize = 1 << 22;
}

/// What the model learns to predict (see [`crate::train::tasks`] for the generators).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum TaskKind {
    /// Predict the token before: target at position `t ≥ 1` is `tokens[t − 1]`.
    PreviousToken,
    /// Predict the sequence's first token: target at `t ≥ 1` is `tokens[0]`.
    FirstToken,
    /// Next-word prediction on the given `lines`; the words are the vocabulary.
    Sentences,
    /// Random distinct tokens whose second half repeats the first; targets on the
    /// repeated part only.
    Induction,
}

impl TaskKind {
    /// The JSON name.
    pub fn name(self) -> &'static str {
        match self {
            Self::PreviousToken => "previous-token",
            Self::FirstToken => "first-token",
            Self::Sentences => "sentences",
            Self::Induction => "induction",
        }
    }
}

/// How a position enters the residual stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PositionKind {
    /// No positions: only the mask tells tokens apart by place.
    #[default]
    None,
    /// The Transformer paper's fixed sinusoids (`crate::positional::table`), added to E.
    Sinusoidal,
    /// A learned `(T, d_model)` table `P`, added to E.
    Learned,
}

/// The optimizer and its settings, each exactly as `torch.optim` defines it; omitted
/// settings take torch's defaults.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase", deny_unknown_fields)]
pub enum OptimizerConfig {
    /// `torch.optim.SGD(lr, momentum, dampening, weight_decay, nesterov)`.
    Sgd {
        /// Learning rate.
        lr: f64,
        /// Momentum factor (0 = plain SGD).
        #[serde(default)]
        momentum: f64,
        /// Dampening for momentum.
        #[serde(default)]
        dampening: f64,
        /// Nesterov momentum (needs momentum > 0 and dampening 0, as in torch).
        #[serde(default)]
        nesterov: bool,
        /// L2 penalty added to the gradient.
        #[serde(default)]
        weight_decay: f64,
    },
    /// `torch.optim.Adam(lr, betas, eps, weight_decay)`: weight decay is an L2 term added
    /// to the gradient.
    Adam {
        /// Learning rate.
        lr: f64,
        /// `(β1, β2)`, default `(0.9, 0.999)`.
        #[serde(default = "default_betas")]
        betas: [f64; 2],
        /// Added to the denominator, default `1e-8`.
        #[serde(default = "default_eps")]
        eps: f64,
        /// L2 penalty added to the gradient, default 0.
        #[serde(default)]
        weight_decay: f64,
    },
    /// `torch.optim.AdamW(lr, betas, eps, weight_decay)`: weight decay is decoupled,
    /// `p ← p·(1 − lr·wd)` before the Adam step.
    #[serde(rename = "adamw")]
    AdamW {
        /// Learning rate.
        lr: f64,
        /// `(β1, β2)`, default `(0.9, 0.999)`.
        #[serde(default = "default_betas")]
        betas: [f64; 2],
        /// Added to the denominator, default `1e-8`.
        #[serde(default = "default_eps")]
        eps: f64,
        /// Decoupled weight decay, default `0.01` (torch's).
        #[serde(default = "default_adamw_decay")]
        weight_decay: f64,
    },
}

fn default_betas() -> [f64; 2] {
    [0.9, 0.999]
}
fn default_eps() -> f64 {
    1e-8
}
fn default_adamw_decay() -> f64 {
    1e-2
}
fn one() -> usize {
    1
}

impl OptimizerConfig {
    /// Adam with torch's defaults and learning rate `lr`.
    pub fn adam(lr: f64) -> Self {
        Self::Adam { lr, betas: default_betas(), eps: default_eps(), weight_decay: 0.0 }
    }

    /// The learning rate.
    pub fn lr(&self) -> f64 {
        match *self {
            Self::Sgd { lr, .. } | Self::Adam { lr, .. } | Self::AdamW { lr, .. } => lr,
        }
    }

    fn validate(&self) -> Result<(), TrainError> {
        let lr = self.lr();
        if !(lr.is_finite() && lr > 0.0) {
            return Err(invalid("optimizer.lr", format!("must be a finite number > 0, got {lr}")));
        }
        let decay = match *self {
            Self::Sgd { momentum, dampening, nesterov, weight_decay, .. } => {
                if !(0.0..1.0).contains(&momentum) {
                    return Err(invalid("optimizer.momentum", format!("must be in [0, 1), got {momentum}")));
                }
                if !(0.0..=1.0).contains(&dampening) {
                    return Err(invalid(
                        "optimizer.dampening",
                        format!("must be in [0, 1], got {dampening}"),
                    ));
                }
                if nesterov && (momentum == 0.0 || dampening != 0.0) {
                    return Err(invalid(
                        "optimizer.nesterov",
                        "needs momentum > 0 and dampening 0 (torch.optim.SGD refuses it otherwise)",
                    ));
                }
                weight_decay
            }
            Self::Adam { betas, eps, weight_decay, .. } | Self::AdamW { betas, eps, weight_decay, .. } => {
                if !betas.iter().all(|b| (0.0..1.0).contains(b)) {
                    return Err(invalid(
                        "optimizer.betas",
                        format!("both must be in [0, 1), got [{}, {}]", betas[0], betas[1]),
                    ));
                }
                if !(eps.is_finite() && eps > 0.0) {
                    return Err(invalid("optimizer.eps", format!("must be a finite number > 0, got {eps}")));
                }
                weight_decay
            }
        };
        if !(decay.is_finite() && decay >= 0.0) {
            return Err(invalid(
                "optimizer.weight_decay",
                format!("must be a finite number ≥ 0, got {decay}"),
            ));
        }
        Ok(())
    }
}

/// One training run: the task and its data, the model's sizes and the optimizer.
///
/// ```json
/// { "task": "previous-token", "vocab": 16, "T": 8, "batch": 32, "seed": 1, "steps": 200,
///   "d_model": 16, "n_heads": 2, "n_layers": 1, "positions": "learned", "causal": true,
///   "optimizer": {"kind": "adam", "lr": 0.01} }
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TrainConfig {
    /// What to predict.
    pub task: TaskKind,
    /// The number of token ids. Required by every task but `sentences`, whose vocabulary is
    /// `<pad>` plus its distinct words (if given there, it must equal that count).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vocab: Option<usize>,
    /// Tokens per sequence.
    #[serde(rename = "T")]
    pub t: usize,
    /// Sequences per step.
    pub batch: usize,
    /// Seeds the initial weights and the data (separate ChaCha8 streams).
    #[serde(default)]
    pub seed: u64,
    /// Optimizer steps.
    pub steps: usize,
    /// Width of the residual stream.
    pub d_model: usize,
    /// Heads per layer; must divide `d_model`.
    pub n_heads: usize,
    /// Attention layers, 1 to 4 (default 1).
    #[serde(default = "one")]
    pub n_layers: usize,
    /// How positions enter: `none`, `sinusoidal` or `learned`.
    #[serde(default)]
    pub positions: PositionKind,
    /// Query `i` may not attend to keys `j > i`.
    #[serde(default)]
    pub causal: bool,
    /// A sliding window of `W ≥ 1` keys (`crate::mask::outside_window`); absent = none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub window: Option<usize>,
    /// The lines of the `sentences` task, words separated by spaces.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub lines: Vec<String>,
    /// The optimizer.
    pub optimizer: OptimizerConfig,
}

impl TrainConfig {
    /// Reads and validates a configuration.
    ///
    /// # Errors
    /// [`TrainError::Json`] for unreadable JSON or unknown fields, then as
    /// [`TrainConfig::validate`].
    pub fn from_json(text: &str) -> Result<Self, TrainError> {
        let config: Self = serde_json::from_str(text)?;
        config.validate()?;
        Ok(config)
    }

    /// The vocabulary size: `vocab`, or for `sentences` the words' count plus `<pad>`.
    pub fn vocab_size(&self) -> usize {
        match self.task {
            TaskKind::Sentences => words(&self.lines).len(),
            _ => self.vocab.unwrap_or(0),
        }
    }

    /// Checks every field.
    ///
    /// # Errors
    /// [`TrainError::Invalid`] naming the first bad field.
    pub fn validate(&self) -> Result<(), TrainError> {
        use limits::*;
        let range = |field: &'static str, value: usize, lo: usize, hi: usize| {
            if (lo..=hi).contains(&value) {
                Ok(())
            } else {
                Err(invalid(field, format!("must be from {lo} to {hi}, got {value}")))
            }
        };
        match self.task {
            TaskKind::Sentences => {
                if self.lines.is_empty() {
                    return Err(invalid("lines", "the sentences task needs at least one line"));
                }
                if let Some(i) = self.lines.iter().position(|l| l.split_whitespace().count() < 2) {
                    return Err(invalid(
                        "lines",
                        format!("line {} has fewer than 2 words: nothing to predict", i + 1),
                    ));
                }
                let words = self.vocab_size();
                if self.vocab.is_some_and(|v| v != words) {
                    return Err(invalid(
                        "vocab",
                        format!("the sentences task's vocabulary is <pad> plus its {} words = {words}; omit vocab or give {words}", words - 1),
                    ));
                }
                range("vocab", words, 2, MAX_VOCAB)?;
            }
            _ => {
                let Some(vocab) = self.vocab else {
                    return Err(invalid(
                        "vocab",
                        format!("the {} task needs a vocabulary size", self.task.name()),
                    ));
                };
                range("vocab", vocab, 2, MAX_VOCAB)?;
                if !self.lines.is_empty() {
                    return Err(invalid("lines", "only the sentences task reads lines"));
                }
            }
        }
        range("T", self.t, 2, MAX_T)?;
        range("batch", self.batch, 1, MAX_BATCH)?;
        range("steps", self.steps, 1, MAX_STEPS)?;
        range("d_model", self.d_model, 1, MAX_D_MODEL)?;
        range("n_heads", self.n_heads, 1, self.d_model)?;
        if !self.d_model.is_multiple_of(self.n_heads) {
            return Err(invalid(
                "n_heads",
                format!(
                    "must divide d_model = {}: {} / {} is not a whole number",
                    self.d_model, self.d_model, self.n_heads
                ),
            ));
        }
        range("n_layers", self.n_layers, 1, MAX_LAYERS)?;
        if self.window == Some(0) {
            return Err(invalid("window", "must be at least 1 (omit it for no window)"));
        }
        if self.task == TaskKind::Induction {
            if self.t < 4 || !self.t.is_multiple_of(2) {
                return Err(invalid(
                    "T",
                    format!("the induction task needs an even T ≥ 4 (two halves), got {}", self.t),
                ));
            }
            if self.vocab_size() < self.t / 2 {
                return Err(invalid(
                    "vocab",
                    format!(
                        "the induction task draws T/2 = {} distinct tokens: vocab must be at least that",
                        self.t / 2
                    ),
                ));
            }
        }
        let cells = self.n_layers * self.batch * self.n_heads * self.t * self.t;
        if cells > MAX_ATTENTION_CELLS {
            return Err(invalid(
                "batch",
                format!("n_layers·batch·n_heads·T² = {cells} attention weights is more than {MAX_ATTENTION_CELLS}"),
            ));
        }
        let widest = self.vocab_size().max(self.d_model) * self.batch * self.t;
        if widest > MAX_ACTIVATIONS {
            return Err(invalid(
                "batch",
                format!(
                    "batch·T·max(vocab, d_model) = {widest} saved numbers is more than {MAX_ACTIVATIONS}"
                ),
            ));
        }
        self.optimizer.validate()
    }
}

/// The vocabulary of the `sentences` task: `<pad>`, then every distinct word in order of
/// first appearance.
pub fn words(lines: &[String]) -> Vec<String> {
    let mut words = vec![String::from(crate::tokenize::PAD)];
    for word in lines.iter().flat_map(|l| l.split_whitespace()) {
        if !words.iter().any(|w| w == word) {
            words.push(word.to_owned());
        }
    }
    words
}
