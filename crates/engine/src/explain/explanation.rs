//! What an explanation is: [`Explanation`] and the types it is made of (the kind of
//! arithmetic, the terms, the operands it reads, why a pair is blocked), and
//! [`ExplainError`]. Serialised for the page; non-finite numbers as strings.

use serde::ser::SerializeSeq;
use serde::{Serialize, Serializer};

use crate::embedding::Source;
use crate::step::{Axis, StepName};
use crate::trace::non_finite_name;

/// Why a cell cannot be explained.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ExplainError {
    /// The trace has no such step (e.g. `pe` without positions, `x_kv` in self-attention).
    #[error("this trace has no step \"{0}\"")]
    NoSuchStep(StepName),
    /// The index has the wrong number of axes.
    #[error("step \"{step}\" has {expected} axes, but the index has {found}")]
    WrongRank {
        /// The step asked about.
        step: StepName,
        /// Its number of axes.
        expected: usize,
        /// The index's length.
        found: usize,
    },
    /// One index is past the end of its axis.
    #[error("index {index} is out of range for axis {axis} of step \"{step}\" (size {len})")]
    OutOfRange {
        /// The step asked about.
        step: StepName,
        /// The axis.
        axis: Axis,
        /// The index given.
        index: usize,
        /// The axis' size.
        len: usize,
    },
    /// A step that multi-head latent attention replaces (`k`, `v`, `k_heads`, QK-norm's,
    /// grouped heads' repeats) asked of an MLA trace: a run under MLA never has it.
    #[error(
        "\"{0}\" is not a step of multi-head latent attention, which makes its keys and values from a latent"
    )]
    NotUnderMla(StepName),
    /// The trace does not hold together (a hand-made or edited trace): a step, token or
    /// parameter the explanation needs is missing or has the wrong size.
    #[error("the trace is inconsistent: {0}")]
    Inconsistent(String),
}

/// What kind of arithmetic a cell is.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Kind {
    /// An embedding looked up for a token (`x`, `x_kv`).
    Source {
        /// Where the token's vector came from.
        source: Option<Source>,
    },
    /// A value of the sinusoidal positional encoding (`pe`).
    Positional {
        /// The position, from 0.
        pos: usize,
        /// `i = c / 2`.
        i: usize,
        /// `pos / 10000^(2i/d_model)`.
        angle: f64,
        /// True for even columns (sine), false for odd ones (cosine).
        sine: bool,
    },
    /// A sum of the terms (products, a bias, or `x + PE`).
    Sum,
    /// A copy of another cell (`*_heads`, `concat`).
    Copy,
    /// `numerator / denominator` (`scaled`).
    Quotient {
        /// The score.
        #[serde(serialize_with = "number")]
        numerator: f64,
        /// `√d_k`.
        #[serde(serialize_with = "number")]
        denominator: f64,
    },
    /// The scaled score kept, or replaced by the fill (`masked`).
    Masked {
        /// True when the pair is blocked.
        blocked: bool,
        /// Why it is blocked (empty when it is not).
        reasons: Vec<BlockReason>,
        /// The fill a blocked score becomes.
        #[serde(serialize_with = "number")]
        fill: f64,
    },
    /// `exp(s_j − max) / Σ_k exp(s_k − max)` (`weights`); the terms are the exps.
    Softmax {
        /// The row's maximum.
        #[serde(serialize_with = "number")]
        max: f64,
        /// `exp(s_j − max)` for this cell's key.
        #[serde(serialize_with = "number")]
        numerator: f64,
        /// The sum of the row's exps (ndarray's sum, as the engine computes it).
        #[serde(serialize_with = "number")]
        sum: f64,
    },
}

/// Why a query–key pair is blocked.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum BlockReason {
    /// Causal mask: the key comes after the query.
    Causal,
    /// Padding mask: the key is `<pad>`.
    PadKey,
    /// Padding mask with `keys_and_queries`: the query is `<pad>`.
    PadQuery,
    /// Sliding window: the key is `window` or more positions away from the query.
    Window,
}

/// What kind of number a [`Term`] is, so that a reader need not parse its label.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum TermKind {
    /// `a · b`: its operands are the two factors.
    Product,
    /// A bias added to a sum (no operands).
    Bias,
    /// `exp(score − max)` of a softmax row: its operands are the score and the row's max.
    Exp,
    /// A number read or computed as it is (a copied cell, a fill, `√d_k`; no operands).
    Value,
    /// `w · x / rms` of an RMSNorm: its operands are the weight, the number and the row's
    /// rms (its value is the norm's own, `w · (x · (1 / rms))`).
    Normed,
}

/// One number in the arithmetic: a product, a bias, a copied cell, an exp.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Term {
    /// What it is, e.g. `"q[0,0,1,2] · k[0,0,0,2]"` or `"bias b_Q[3]"`.
    pub label: String,
    /// What kind of number it is.
    pub kind: TermKind,
    /// The numbers multiplied, if any (for an exp: the score and the row's max).
    #[serde(serialize_with = "numbers")]
    pub operands: Vec<f64>,
    /// The term's value.
    #[serde(serialize_with = "number")]
    pub value: f64,
}

/// A parameter tensor of [`Trace::params`](crate::trace::Trace::params).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Param {
    /// `W_Q`, `(d_model, d_model)`.
    #[serde(rename = "W_Q")]
    WQ,
    /// `b_Q`.
    #[serde(rename = "b_Q")]
    BQ,
    /// `W_K`.
    #[serde(rename = "W_K")]
    WK,
    /// `b_K`.
    #[serde(rename = "b_K")]
    BK,
    /// `W_V`.
    #[serde(rename = "W_V")]
    WV,
    /// `b_V`.
    #[serde(rename = "b_V")]
    BV,
    /// `W_O`.
    #[serde(rename = "W_O")]
    WO,
    /// `b_O`.
    #[serde(rename = "b_O")]
    BO,
    /// Multi-head latent attention's `q_a_proj`, `(d_model, r_q)`: the query's latent.
    #[serde(rename = "W_q_a")]
    WQA,
    /// `q_a_proj`'s bias.
    #[serde(rename = "b_q_a")]
    BQA,
    /// MLA's `q_b_proj`, `(r_q, h·d_k)`: the query's latent up to every head's query.
    #[serde(rename = "W_q_b")]
    WQB,
    /// `q_b_proj`'s bias.
    #[serde(rename = "b_q_b")]
    BQB,
    /// MLA's `kv_a_proj_with_mqa`, `(d_model, r_kv + d_rope)`: the latent, then the shared
    /// RoPE key.
    #[serde(rename = "W_kv_a")]
    WKvA,
    /// `kv_a_proj_with_mqa`'s bias.
    #[serde(rename = "b_kv_a")]
    BKvA,
    /// MLA's `kv_b_proj`, `(r_kv, h·(d_nope + d_v))`: every head's `k_nope` and value.
    #[serde(rename = "W_kv_b")]
    WKvB,
    /// `kv_b_proj`'s bias.
    #[serde(rename = "b_kv_b")]
    BKvB,
}

impl Param {
    /// `"W_Q"`, `"b_Q"`, …
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::WQ => "W_Q",
            Self::BQ => "b_Q",
            Self::WK => "W_K",
            Self::BK => "b_K",
            Self::WV => "W_V",
            Self::BV => "b_V",
            Self::WO => "W_O",
            Self::BO => "b_O",
            Self::WQA => "W_q_a",
            Self::BQA => "b_q_a",
            Self::WQB => "W_q_b",
            Self::BQB => "b_q_b",
            Self::WKvA => "W_kv_a",
            Self::BKvA => "b_kv_a",
            Self::WKvB => "W_kv_b",
            Self::BKvB => "b_kv_b",
        }
    }

    /// Whether it is a bias (a vector) rather than a weight matrix.
    pub const fn is_bias(self) -> bool {
        matches!(
            self,
            Self::BQ | Self::BK | Self::BV | Self::BO | Self::BQA | Self::BQB | Self::BKvA | Self::BKvB
        )
    }

    /// The layer of `trace` it belongs to: [`Trace::params`](crate::trace::Trace::params),
    /// or under multi-head latent attention its own weights (`W_Q` is then `q_proj`, `W_O`
    /// `o_proj`). `None` when the trace does not have it (MLA's weights are not part of a
    /// trace read from JSON; `q_a_proj` only with the query's compression).
    pub fn layer(self, trace: &crate::trace::Trace) -> Option<&crate::weights::Linear> {
        use crate::mla::QueryPath;
        let mla = trace.mla_params.as_deref();
        Some(match (self, mla) {
            (Self::WQ | Self::BQ, Some(m)) => match &m.q {
                QueryPath::Direct(layer) => layer,
                QueryPath::Compressed { .. } => return None,
            },
            (Self::WQA | Self::BQA, Some(m)) => match &m.q {
                QueryPath::Compressed { down, .. } => down,
                QueryPath::Direct(_) => return None,
            },
            (Self::WQB | Self::BQB, Some(m)) => match &m.q {
                QueryPath::Compressed { up, .. } => up,
                QueryPath::Direct(_) => return None,
            },
            (Self::WKvA | Self::BKvA, Some(m)) => &m.kv_a,
            (Self::WKvB | Self::BKvB, Some(m)) => &m.kv_b,
            (Self::WQ | Self::BQ, None) => &trace.params.q,
            (Self::WK | Self::BK, _) => &trace.params.k,
            (Self::WV | Self::BV, _) => &trace.params.v,
            (Self::WO | Self::BO, _) => &trace.params.o,
            (
                Self::WQA
                | Self::BQA
                | Self::WQB
                | Self::BQB
                | Self::WKvA
                | Self::BKvA
                | Self::WKvB
                | Self::BKvB,
                None,
            ) => return None,
        })
    }
}

/// A tensor an explanation reads from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Tensor {
    /// A step of the trace.
    Step(StepName),
    /// A projection weight or bias.
    Param(Param),
}

/// Cells of a tensor that a cell reads: one index per axis, `None` for the whole axis
/// (like `:` in PyTorch). E.g. the q row of a score is `q_heads[b, h, i, :]`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Operand {
    /// Which tensor.
    pub tensor: Tensor,
    /// One entry per axis: `Some(i)` or `None` for all.
    pub index: Vec<Option<usize>>,
}

impl Operand {
    pub(super) fn step(step: StepName, index: &[Option<usize>]) -> Self {
        Self { tensor: Tensor::Step(step), index: index.to_vec() }
    }

    pub(super) fn cell(step: StepName, index: &[usize]) -> Self {
        Self { tensor: Tensor::Step(step), index: index.iter().copied().map(Some).collect() }
    }

    pub(super) fn param(param: Param, index: &[Option<usize>]) -> Self {
        Self { tensor: Tensor::Param(param), index: index.to_vec() }
    }
}

/// The exact arithmetic behind one cell of one step.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Explanation {
    /// The step.
    pub step: StepName,
    /// The cell's index, one entry per axis of the step.
    pub index: Vec<usize>,
    /// The rule, symbolically, e.g. `scores[b,h,i,j] = Σ_d q[b,h,i,d] · k[b,h,j,d]`.
    pub formula: String,
    /// What kind of arithmetic it is.
    pub kind: Kind,
    /// The numbers that went in.
    pub terms: Vec<Term>,
    /// The trace's value of the cell.
    #[serde(serialize_with = "number")]
    pub result: f64,
    /// Plain-English sentences: where a vector came from, why a cell is blocked, how a
    /// NaN arose.
    pub notes: Vec<String>,
    /// The cells read, for the page to outline.
    pub operands: Vec<Operand>,
    /// A PyTorch expression giving the number, in the names the step PyTorch lines leave
    /// just before this step's line runs (`x`, `q`, `k`, `v` split into heads, `scores`
    /// as the previous line left it, `weights`, `context`, `concat`); a comment says what
    /// `scores` holds there. `tools/python_check.py` runs each one.
    pub pytorch: String,
    /// The same arithmetic as LaTeX, with the numbers.
    pub latex: String,
}

impl Explanation {
    /// The terms added left to right (plain `f64` addition). For the sum steps this is
    /// the result, up to the rounding of the engine's matrix product.
    pub fn terms_sum(&self) -> f64 {
        left_sum(self.terms.iter().map(|t| t.value))
    }
}

/// A number in the explanation's JSON: finite ones as numbers, the others by name
/// (`"-inf"`, `"NaN"`), which JSON has no number for.
fn number<S: Serializer>(v: &f64, s: S) -> Result<S::Ok, S::Error> {
    if v.is_finite() {
        s.serialize_f64(*v)
    } else {
        s.serialize_str(non_finite_name(*v))
    }
}

/// A list of numbers in the explanation's JSON, each written as [`number`] writes it.
fn numbers<S: Serializer>(vs: &[f64], s: S) -> Result<S::Ok, S::Error> {
    struct N(f64);
    impl Serialize for N {
        fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            number(&self.0, s)
        }
    }
    let mut seq = s.serialize_seq(Some(vs.len()))?;
    for &v in vs {
        seq.serialize_element(&N(v))?;
    }
    seq.end()
}

/// Plain left-to-right `f64` addition (0 for no numbers).
pub(super) fn left_sum(mut values: impl Iterator<Item = f64>) -> f64 {
    let first = values.next().unwrap_or(0.0);
    values.fold(first, |acc, v| acc + v)
}
