//! The arithmetic behind one cell: [`explain`] takes a trace, a step and an index and
//! returns every number that went into that cell, recomputed from the trace's own
//! tensors and [`Trace::params`] (the inputs the engine actually used).
//!
//! For the sum steps (`x_pe`, `x_kv_pe`, `q`, `k`, `v`, `scores`, `context`, `output`)
//! the [`Term`]s add up, left to right, to the trace's value (up to the rounding of the
//! engine's matrix product, which may sum in another order); the bias is a term. Copies
//! name the cell they copy, quotients their numerator and denominator, `masked` why a
//! cell is blocked, and `weights` the row's maximum, every `exp(s − max)` and their sum.
//!
//! Nothing here panics: a step the trace does not have, or an index out of range, is an
//! [`ExplainError`].

use ndarray::{ArrayView1, IxDyn};
use serde::ser::SerializeSeq;
use serde::{Serialize, Serializer};

use crate::embedding::{self, Source};
use crate::format;
use crate::positional;
use crate::scenario::{Fill, Padding};
use crate::step::{Axis, StepName};
use crate::trace::{non_finite_name, Trace};
use crate::weights::Linear;

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

/// A parameter tensor of [`Trace::params`].
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
        }
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
    fn step(step: StepName, index: &[Option<usize>]) -> Self {
        Self { tensor: Tensor::Step(step), index: index.to_vec() }
    }

    fn cell(step: StepName, index: &[usize]) -> Self {
        Self { tensor: Tensor::Step(step), index: index.iter().copied().map(Some).collect() }
    }

    fn param(param: Param, index: &[Option<usize>]) -> Self {
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
    /// A PyTorch expression giving the number from the seeds' tensors (`x`, `q`, `k`, `v`
    /// split into heads, `scores` after `masked_fill`, `weights`, `context`, `concat`).
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

    /// True for the steps whose terms add up to the result.
    pub fn is_sum(&self) -> bool {
        self.kind == Kind::Sum
    }
}

/// The `n` terms of largest magnitude (largest first; NaN counts as largest), and the
/// left-to-right sum of the others (0 when there are none). For long sums, which the page
/// lists as "the largest contributions, and the rest".
pub fn top_terms(explanation: &Explanation, n: usize) -> (Vec<&Term>, f64) {
    let mut order: Vec<usize> = (0..explanation.terms.len()).collect();
    let magnitude = |i: usize| explanation.terms.get(i).map_or(0.0, |t| t.value.abs());
    order.sort_by(|&a, &b| magnitude(b).total_cmp(&magnitude(a)).then(a.cmp(&b)));
    let (top, rest) = order.split_at(n.min(order.len()));
    let mut rest = rest.to_vec();
    rest.sort_unstable();
    let rest_sum = left_sum(rest.iter().filter_map(|&i| explanation.terms.get(i)).map(|t| t.value));
    (top.iter().filter_map(|&i| explanation.terms.get(i)).collect(), rest_sum)
}

/// Explains cell `index` of `step` in `trace`: the formula, the terms recomputed from the
/// trace's inputs and parameters, notes, the cells read, PyTorch and LaTeX.
///
/// # Errors
/// [`ExplainError::NoSuchStep`], [`ExplainError::WrongRank`] or
/// [`ExplainError::OutOfRange`] for a bad request; [`ExplainError::Inconsistent`] for a
/// trace that does not hold together. Never panics.
pub fn explain(trace: &Trace, step: StepName, index: &[usize]) -> Result<Explanation, ExplainError> {
    let s = trace.step(step).ok_or(ExplainError::NoSuchStep(step))?;
    if index.len() != s.shape.len() {
        return Err(ExplainError::WrongRank { step, expected: s.shape.len(), found: index.len() });
    }
    for (n, (&i, &len)) in index.iter().zip(&s.shape).enumerate() {
        if i >= len {
            let axis = s.dims.get(n).copied().unwrap_or(Axis::One);
            return Err(ExplainError::OutOfRange { step, axis, index: i, len });
        }
    }
    let result = cell(trace, step, index)?;
    let ex = Explainer { trace, step, index, result };
    match step {
        StepName::X | StepName::XKv => ex.embedding(),
        StepName::Pe => ex.pe(),
        StepName::XPe | StepName::XKvPe => ex.plus_pe(),
        StepName::Q | StepName::K | StepName::V | StepName::Output => ex.projection(),
        StepName::QHeads | StepName::KHeads | StepName::VHeads => ex.head_copy(),
        StepName::QRot | StepName::KRot => ex.rotated(),
        StepName::KRep | StepName::VRep => ex.repeated(),
        StepName::Scores => ex.scores(),
        StepName::Scaled => ex.scaled(),
        StepName::Alibi => ex.alibi(),
        StepName::Biased => ex.biased(),
        StepName::Masked => ex.masked(),
        StepName::Weights => ex.weights(),
        StepName::Context => ex.context(),
        StepName::Concat => ex.concat(),
    }
}

// ---------------------------------------------------------------------------------------
// Reading the trace without panicking.

fn inconsistent<T>(what: String) -> Result<T, ExplainError> {
    Err(ExplainError::Inconsistent(what))
}

/// The trace's value of one cell.
fn cell(trace: &Trace, step: StepName, index: &[usize]) -> Result<f64, ExplainError> {
    let Some(s) = trace.step(step) else {
        return inconsistent(format!("step \"{step}\" is missing"));
    };
    match s.data.get(IxDyn(index)) {
        Some(&v) => Ok(v),
        None => inconsistent(format!("{step}[{}] is outside its data", comma(index))),
    }
}

fn weight(layer: &Linear, name: Param, row: usize, col: usize) -> Result<f64, ExplainError> {
    match layer.w().get((row, col)) {
        Some(&v) => Ok(v),
        None => inconsistent(format!("{}[{row},{col}] is missing from the parameters", name.as_str())),
    }
}

fn bias(layer: &Linear, name: Param, col: usize) -> Result<f64, ExplainError> {
    match layer.b().get(col) {
        Some(&v) => Ok(v),
        None => inconsistent(format!("{}[{col}] is missing from the parameters", name.as_str())),
    }
}

fn three(index: &[usize]) -> Result<[usize; 3], ExplainError> {
    match *index {
        [a, b, c] => Ok([a, b, c]),
        _ => inconsistent(format!("expected 3 indices, got {}", index.len())),
    }
}

fn four(index: &[usize]) -> Result<[usize; 4], ExplainError> {
    match *index {
        [a, b, c, d] => Ok([a, b, c, d]),
        _ => inconsistent(format!("expected 4 indices, got {}", index.len())),
    }
}

fn token(tokens: &[String], t: usize) -> String {
    tokens.get(t).map_or_else(|| format!("#{t}"), |s| format!("“{s}”"))
}

// ---------------------------------------------------------------------------------------
// Writing numbers and indices.

/// `0,1,2`: an index as the labels write it.
fn comma(index: &[usize]) -> String {
    index.iter().map(usize::to_string).collect::<Vec<_>>().join(",")
}

/// `0, 1, 2`: an index as PyTorch writes it.
fn py(index: &[usize]) -> String {
    index.iter().map(usize::to_string).collect::<Vec<_>>().join(", ")
}

/// A number in an explanation's words: the one formatter's [`format::reading`].
fn num(v: f64) -> String {
    format::reading(v)
}

/// A number for LaTeX: [`format::tex`].
fn tex(v: f64) -> String {
    format::tex(v)
}

/// A factor in a LaTeX product: negatives in parentheses.
fn tex_factor(v: f64) -> String {
    if v < 0.0 {
        format!("({})", tex(v))
    } else {
        tex(v)
    }
}

/// The terms as a LaTeX sum, eliding the middle of long ones.
fn tex_terms(terms: &[Term]) -> String {
    let one = |t: &Term| match t.operands.as_slice() {
        [a, b] => format!(r"{} \cdot {}", tex_factor(*a), tex_factor(*b)),
        _ => tex_factor(t.value),
    };
    if terms.len() <= 8 {
        terms.iter().map(one).collect::<Vec<_>>().join(" + ")
    } else {
        let head: Vec<String> = terms.iter().take(3).map(one).collect();
        let tail = terms.last().map(one).unwrap_or_default();
        format!(r"{} + \cdots + {tail}", head.join(" + "))
    }
}

fn tex_name(name: &str, index: &[usize]) -> String {
    format!(r"\mathrm{{{}}}_{{{}}}", name.replace('_', r"\_"), comma(index))
}

fn number<S: Serializer>(v: &f64, s: S) -> Result<S::Ok, S::Error> {
    if v.is_finite() {
        s.serialize_f64(*v)
    } else {
        s.serialize_str(non_finite_name(*v))
    }
}

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
fn left_sum(mut values: impl Iterator<Item = f64>) -> f64 {
    let first = values.next().unwrap_or(0.0);
    values.fold(first, |acc, v| acc + v)
}

fn product(label: String, a: f64, b: f64) -> Term {
    Term { label, kind: TermKind::Product, operands: vec![a, b], value: a * b }
}

fn plain(label: String, value: f64) -> Term {
    Term { label, kind: TermKind::Value, operands: vec![], value }
}

fn bias_term(label: String, value: f64) -> Term {
    Term { label, kind: TermKind::Bias, operands: vec![], value }
}

// ---------------------------------------------------------------------------------------
// One explanation per kind of step.

struct Explainer<'a> {
    trace: &'a Trace,
    step: StepName,
    index: &'a [usize],
    result: f64,
}

impl Explainer<'_> {
    #[allow(clippy::too_many_arguments)]
    fn done(
        &self,
        formula: String,
        kind: Kind,
        terms: Vec<Term>,
        notes: Vec<String>,
        operands: Vec<Operand>,
        pytorch: String,
        latex: String,
    ) -> Result<Explanation, ExplainError> {
        Ok(Explanation {
            step: self.step,
            index: self.index.to_vec(),
            formula,
            kind,
            terms,
            result: self.result,
            notes,
            operands,
            pytorch,
            latex,
        })
    }

    fn d_model(&self) -> usize {
        self.trace.sizes.d_model
    }

    fn d_k(&self) -> usize {
        self.trace.sizes.d_k
    }

    fn lhs(&self) -> String {
        tex_name(self.step.as_str(), self.index)
    }

    /// The note that compares a recomputed number with the trace's, when they differ.
    fn check(&self, recomputed: f64, notes: &mut Vec<String>) {
        let same = recomputed == self.result
            || (recomputed.is_nan() && self.result.is_nan())
            || (recomputed - self.result).abs() <= 1e-12 * self.result.abs().max(1.0);
        if !same {
            notes.push(format!(
                "Recomputed here as {}, but the trace holds {}: the trace was not made by this engine.",
                num(recomputed),
                num(self.result)
            ));
        }
    }

    /// The first of `order` the trace has (the last one if none).
    fn first_of(&self, order: &[StepName]) -> StepName {
        order
            .iter()
            .copied()
            .find(|&s| self.trace.step(s).is_some())
            .unwrap_or_else(|| order.last().copied().unwrap_or(StepName::X))
    }

    /// The query heads the scores read: `q_rot` with RoPE, else `q_heads`.
    fn q_source(&self) -> StepName {
        self.first_of(&[StepName::QRot, StepName::QHeads])
    }

    /// The key heads the scores read: `k_rep` when grouped, `k_rot` with RoPE, else
    /// `k_heads`.
    fn k_source(&self) -> StepName {
        self.first_of(&[StepName::KRep, StepName::KRot, StepName::KHeads])
    }

    /// The value heads the context reads: `v_rep` when grouped, else `v_heads`.
    fn v_source(&self) -> StepName {
        self.first_of(&[StepName::VRep, StepName::VHeads])
    }

    /// The scores the mask reads: `biased` with ALiBi, else `scaled`.
    fn masked_source(&self) -> StepName {
        self.first_of(&[StepName::Biased, StepName::Scaled])
    }

    /// The step `q`, `k` and `v` read from: `x_pe` / `x_kv_pe` with positions, `x_kv` in
    /// cross-attention, else `x`.
    fn projection_input(&self, keys: bool) -> StepName {
        let order: &[StepName] = if keys {
            &[StepName::XKvPe, StepName::XKv, StepName::XPe, StepName::X]
        } else {
            &[StepName::XPe, StepName::X]
        };
        order.iter().copied().find(|&s| self.trace.step(s).is_some()).unwrap_or(StepName::X)
    }

    /// `x`, `x_kv`: a looked-up embedding.
    fn embedding(&self) -> Result<Explanation, ExplainError> {
        let [b, t, c] = three(self.index)?;
        let keys = self.step == StepName::XKv;
        let tokens = if keys { self.trace.key_tokens(b) } else { self.trace.query_tokens(b) };
        let text = tokens.get(t).cloned().unwrap_or_default();
        let sources = if keys { self.trace.kv_sources.as_ref() } else { Some(&self.trace.sources) };
        let source = sources.and_then(|s| s.get(b)).and_then(|row| row.get(t)).copied();
        let d_model = self.d_model();
        let key = text.to_lowercase();
        let feature = self.trace.feature_names.as_ref().and_then(|f| f.get(c)).map(|f| f.as_ref());
        let name = self.step.as_str();
        let mut notes = vec![format!("Token {t} of sentence {b} is “{text}”.")];
        let (label, recomputed) = match source {
            Some(Source::Explicit) => {
                notes.push(format!("Its vector is the scenario's own embedding for “{key}” (embeddings are matched without case)."));
                (format!("embeddings[\"{key}\"][{c}]"), None)
            }
            Some(Source::Lexicon) => {
                notes.push(format!(
                    "Its vector comes from the built-in {d_model}-dimensional lexicon, where each dimension has a name."
                ));
                let v = embedding::lexicon(d_model).and_then(|l| l.get(&key)).and_then(|v| v.get(c)).copied();
                (format!("lexicon[\"{key}\"][{c}]"), v)
            }
            Some(Source::Hashed) => {
                notes.push(format!(
                    "No embedding or lexicon entry has “{key}”, so its vector is derived from the word itself: a ChaCha8 stream seeded with the FNV-1a hash of “{key}” and d_model = {d_model}, rounded to two decimals (the same on every machine)."
                ));
                (
                    format!("hashed_vector(\"{key}\", {d_model})[{c}]"),
                    embedding::hashed_vector(&key, d_model).get(c).copied(),
                )
            }
            Some(Source::Pad) => {
                notes.push(
                    "It is padding added to make the sentences equally long: `<pad>` is the zero vector."
                        .into(),
                );
                ("<pad> = 0".into(), Some(0.0))
            }
            None => {
                notes.push("The trace does not say where this token's vector came from.".into());
                (format!("{name}[{}]", comma(self.index)), None)
            }
        };
        if let Some(f) = feature {
            notes.push(format!("Dimension {c} is named “{f}”."));
        }
        if let Some(r) = recomputed {
            self.check(r, &mut notes);
        }
        let tokens_name = if keys { "kv_tokens" } else { "tokens" };
        self.done(
            format!("{name}[b,t,c] = embedding(token[b,t])[c]"),
            Kind::Source { source },
            vec![plain(label, self.result)],
            notes,
            vec![],
            format!("embedding({tokens_name})[{}]", py(self.index)),
            format!(r"{} = \mathrm{{emb}}(\text{{{text}}})_{{{c}}} = {}", self.lhs(), tex(self.result)),
        )
    }

    /// `pe`: a sine or cosine.
    fn pe(&self) -> Result<Explanation, ExplainError> {
        let [_, pos, c] = three(self.index)?;
        let d_model = self.d_model();
        let i = c / 2;
        let angle = positional::angle(pos, c, d_model);
        let sine = c.is_multiple_of(2);
        let f = if sine { "sin" } else { "cos" };
        let value = if sine { angle.sin() } else { angle.cos() };
        let mut notes = vec![
            format!(
                "Position {pos}, column c = {c}: i = c / 2 = {i}, so the angle is {pos} / 10000^({}/{d_model}) = {}.",
                2 * i,
                num(angle)
            ),
            format!(
                "Even columns take the sine and odd ones the cosine, so PE = {f}({}) = {}.",
                num(angle),
                num(value)
            ),
        ];
        self.check(value, &mut notes);
        self.done(
            "PE(pos, 2i) = sin(pos / 10000^(2i/d_model)), PE(pos, 2i+1) = cos(pos / 10000^(2i/d_model))"
                .into(),
            Kind::Positional { pos, i, angle, sine },
            vec![plain(format!("{f}({pos} / 10000^({}/{d_model}))", 2 * i), value)],
            notes,
            vec![],
            format!("math.{f}({pos} / 10000 ** ({} / {d_model}))", 2 * i),
            format!(
                r"{} = \{f}\left(\frac{{{pos}}}{{10000^{{{}/{d_model}}}}}\right) = \{f}({}) = {}",
                self.lhs(),
                2 * i,
                tex(angle),
                tex(self.result)
            ),
        )
    }

    /// `x_pe`, `x_kv_pe`: the embedding plus the positional encoding.
    fn plus_pe(&self) -> Result<Explanation, ExplainError> {
        let [b, t, c] = three(self.index)?;
        let (x_name, tokens) = if self.step == StepName::XKvPe {
            (StepName::XKv, self.trace.key_tokens(b))
        } else {
            (StepName::X, self.trace.query_tokens(b))
        };
        let x = cell(self.trace, x_name, &[b, t, c])?;
        let pe_step = self.trace.step(StepName::Pe);
        let pe_in_trace = pe_step.and_then(|s| s.data.get(IxDyn(&[0, t, c]))).copied();
        let pe = pe_in_trace.unwrap_or_else(|| positional::value(t, c, self.d_model()));
        let mut notes = vec![format!(
            "Token {} at position {t} gets PE[{t},{c}] = {} added to its embedding {} (padding gets a position too).",
            token(tokens, t),
            num(pe),
            num(x)
        )];
        let mut operands = vec![Operand::cell(x_name, &[b, t, c])];
        if pe_in_trace.is_some() {
            operands.push(Operand::cell(StepName::Pe, &[0, t, c]));
        } else {
            notes.push(format!(
                "The pe step holds the query positions only; position {t} of the key/value sentence is computed from the same formula."
            ));
        }
        let terms =
            vec![plain(format!("{x_name}[{}]", comma(self.index)), x), plain(format!("PE[{t},{c}]"), pe)];
        self.check(x + pe, &mut notes);
        let x_py = if self.step == StepName::XKvPe { "x_kv" } else { "x" };
        self.done(
            format!("{}[b,t,c] = {x_name}[b,t,c] + PE[t,c]", self.step),
            Kind::Sum,
            terms,
            notes,
            operands,
            format!("{x_py}[{}] + pe[0, {t}, {c}]", py(self.index)),
            format!(
                r"{} = {} + \mathrm{{PE}}_{{{t},{c}}} = {} + {} = {}",
                self.lhs(),
                tex_name(x_name.as_str(), self.index),
                tex(x),
                tex_factor(pe),
                tex(self.result)
            ),
        )
    }

    /// `q`, `k`, `v`, `output`: `input[b,t,:] · W[:,c] + b[c]`.
    fn projection(&self) -> Result<Explanation, ExplainError> {
        let [b, t, c] = three(self.index)?;
        let p = &self.trace.params;
        let letter = match self.step {
            StepName::Q => "Q",
            StepName::K => "K",
            StepName::V => "V",
            _ => "O",
        };
        let (input, layer, w_name, b_name, py_layer) = match self.step {
            StepName::Q => (self.projection_input(false), &p.q, Param::WQ, Param::BQ, "self.w_q"),
            StepName::K => (self.projection_input(true), &p.k, Param::WK, Param::BK, "self.w_k"),
            StepName::V => (self.projection_input(true), &p.v, Param::WV, Param::BV, "self.w_v"),
            _ => (StepName::Concat, &p.o, Param::WO, Param::BO, "self.w_o"),
        };
        let mut terms = Vec::with_capacity(self.d_model() + 1);
        for d in 0..self.d_model() {
            let x = cell(self.trace, input, &[b, t, d])?;
            let w = weight(layer, w_name, d, c)?;
            terms.push(product(format!("{input}[{b},{t},{d}] · {}[{d},{c}]", w_name.as_str()), x, w));
        }
        let bias_value = bias(layer, b_name, c)?;
        terms.push(bias_term(format!("bias {}[{c}]", b_name.as_str()), bias_value));
        let keys = self.step.rows() == crate::step::Role::Keys;
        let tokens = if keys { self.trace.key_tokens(b) } else { self.trace.query_tokens(b) };
        let mut notes = vec![format!(
            "Row {t} ({}) of {input}, dotted with column {c} of {}, plus the bias: {} products and 1 bias.",
            token(tokens, t),
            w_name.as_str(),
            self.d_model()
        )];
        if self.step == StepName::Output && self.result.is_nan() {
            notes.push(format!(
                "concat[{b},{t},:] is NaN (a fully masked query row under the -inf fill), so every product and the output are NaN."
            ));
        }
        self.check(left_sum(terms.iter().map(|t| t.value)), &mut notes);
        // PyTorch's nn.Linear stores W transposed, (out, in): W[:, c] is weight[c].
        let py_in = match input {
            StepName::Concat => "concat",
            StepName::XKv | StepName::XKvPe => "x_kv",
            _ => "x",
        };
        let latex = format!(
            r"{} = \sum_{{d}} \mathrm{{{}}}_{{{b},{t},d}}\, W^{{{letter}}}_{{d,{c}}} + b^{{{letter}}}_{{{c}}} = {} = {}",
            self.lhs(),
            input.as_str().replace('_', r"\_"),
            tex_terms(&terms),
            tex(self.result)
        );
        self.done(
            format!(
                "{}[b,t,c] = Σ_d {input}[b,t,d] · {}[d,c] + {}[c]",
                self.step,
                w_name.as_str(),
                b_name.as_str()
            ),
            Kind::Sum,
            terms,
            notes,
            vec![
                Operand::step(input, &[Some(b), Some(t), None]),
                Operand::param(w_name, &[None, Some(c)]),
                Operand::param(b_name, &[Some(c)]),
            ],
            format!("({py_in}[{b}, {t}] * {py_layer}.weight[{c}]).sum() + {py_layer}.bias[{c}]"),
            latex,
        )
    }

    /// `q_heads`, `k_heads`, `v_heads`: column `h·d_k + j` of `q`, `k`, `v`.
    fn head_copy(&self) -> Result<Explanation, ExplainError> {
        let [b, h, t, j] = four(self.index)?;
        let h1 = h + 1; // heads are numbered from 1 in words, as on the cards
        let (from, py_layer) = match self.step {
            StepName::QHeads => (StepName::Q, "self.w_q(x)"),
            StepName::KHeads => {
                (StepName::K, if self.trace.is_cross() { "self.w_k(x_kv)" } else { "self.w_k(x)" })
            }
            _ => (StepName::V, if self.trace.is_cross() { "self.w_v(x_kv)" } else { "self.w_v(x)" }),
        };
        let d_k = self.d_k();
        let col = h * d_k + j;
        let v = cell(self.trace, from, &[b, t, col])?;
        let mut notes = vec![format!(
            "No arithmetic: view(B, T, h, d_k) cuts d_model = {} into {} heads of d_k = {d_k}, and transpose(1, 2) puts the head axis first. Head {h1} (index h = {h}), feature {j} is column {h}·{d_k} + {j} = {col} of {from}.",
            self.d_model(),
            self.trace.sizes.n_heads
        )];
        self.check(v, &mut notes);
        self.done(
            format!("{}[b,h,t,j] = {from}[b,t,h·d_k + j]", self.step),
            Kind::Copy,
            vec![plain(format!("{from}[{b},{t},{col}]"), v)],
            notes,
            vec![Operand::cell(from, &[b, t, col])],
            format!("{py_layer}.view(B, T, h, d_k)[{b}, {t}, {h}, {j}]"),
            format!(r"{} = {} = {}", self.lhs(), tex_name(from.as_str(), &[b, t, col]), tex(self.result)),
        )
    }

    /// `q_rot`, `k_rot`: RoPE turns a pair of a head's dimensions by `pos·θ_i`.
    fn rotated(&self) -> Result<Explanation, ExplainError> {
        let [b, h, t, c] = four(self.index)?;
        let Some(rope) = self.trace.rope else {
            return inconsistent(format!("{} is in the trace but RoPE's settings are not", self.step));
        };
        let (from, short) =
            if self.step == StepName::QRot { (StepName::QHeads, "q") } else { (StepName::KHeads, "k") };
        let d_k = self.d_k();
        let (partner, first) = rope.style.partner(c, d_k);
        let i = rope.style.pair_index(c, d_k);
        let angle = crate::attention::rope_angle(t, i, d_k, rope.base);
        let (cos, sin) = (angle.cos(), angle.sin());
        let x_c = cell(self.trace, from, &[b, h, t, c])?;
        let x_p = cell(self.trace, from, &[b, h, t, partner])?;
        let signed = if first { -x_p } else { x_p };
        let sign = if first { "−" } else { "+" };
        let terms = vec![
            product(format!("{from}[{b},{h},{t},{c}] · cos(angle)"), x_c, cos),
            product(format!("{sign}{from}[{b},{h},{t},{partner}] · sin(angle)"), signed, sin),
        ];
        let recomputed = left_sum(terms.iter().map(|t| t.value));
        let pairing = match rope.style {
            crate::RopeStyle::Half => format!("\"half\" pairs dimension i with i + d_k/2 (Hugging Face's rotate_half), so {c} goes with {partner}"),
            crate::RopeStyle::Interleaved => format!("\"interleaved\" pairs dimensions 2i and 2i+1 (the RoFormer paper, Meta's Llama code), so {c} goes with {partner}"),
        };
        let who = if self.step == StepName::QRot { "query" } else { "key" };
        let mut notes = vec![
            format!(
                "RoPE turns each pair of a {who} head's dimensions by an angle that grows with the token's position: {pairing}."
            ),
            format!(
                "Position {t}, pair i = {i}: angle = pos · θ_i = {t} · base^(−2i/d_k) = {t} · {}^(−{}/{d_k}) = {} radians; cos = {}, sin = {}.",
                num(rope.base),
                2 * i,
                num(angle),
                num(cos),
                num(sin)
            ),
            "A turn keeps the vector's length, and a query turned by its position dotted with a key turned by its own depends only on how far apart they are.".into(),
        ];
        self.check(recomputed, &mut notes);
        let pytorch = match rope.style {
            crate::RopeStyle::Half => format!("({short} * cos + rotate_half({short}) * sin)[{b}, {h}, {t}, {c}]"),
            crate::RopeStyle::Interleaved => format!(
                "torch.view_as_real(torch.view_as_complex({short}.reshape(*{short}.shape[:-1], -1, 2)) * freqs_cis).flatten(-2)[{b}, {h}, {t}, {c}]"
            ),
        };
        self.done(
            format!(
                "{}[b,h,t,c] = {from}[b,h,t,c]·cos(t·θ_i) {sign} {from}[b,h,t,{}]·sin(t·θ_i)",
                self.step,
                if first { "c+pair" } else { "c−pair" }
            ),
            Kind::Sum,
            terms.clone(),
            notes,
            vec![Operand::cell(from, &[b, h, t, c]), Operand::cell(from, &[b, h, t, partner])],
            pytorch,
            format!(r"{} = {} = {}", self.lhs(), tex_terms(&terms), tex(self.result)),
        )
    }

    /// `k_rep`, `v_rep`: query head `h` reads key/value head `⌊h / (h/h_kv)⌋`.
    fn repeated(&self) -> Result<Explanation, ExplainError> {
        let [b, h, t, c] = four(self.index)?;
        let h1 = h + 1; // heads are numbered from 1 in words, as on the cards
        let group = self.trace.sizes.group_size().max(1);
        let kv = h / group;
        let from = if self.step == StepName::KRep {
            self.first_of(&[StepName::KRot, StepName::KHeads])
        } else {
            StepName::VHeads
        };
        let v = cell(self.trace, from, &[b, kv, t, c])?;
        let (n_heads, n_kv) = (self.trace.sizes.n_heads, self.trace.sizes.kv_heads());
        let mut notes = vec![format!(
            "No arithmetic: grouped-query attention keeps h_kv = {n_kv} key/value heads for h = {n_heads} query heads, so each serves a group of h / h_kv = {group}. repeat_interleave({group}, dim=1) copies head {kv} into heads {}..={}; query head {h1} (index h = {h}) reads the K/V head of index ⌊{h} / {group}⌋ = {kv}.",
            kv * group,
            kv * group + group - 1
        )];
        self.check(v, &mut notes);
        let short = if self.step == StepName::KRep { "k" } else { "v" };
        self.done(
            format!("{}[b,h,t,c] = {from}[b,⌊h / (h/h_kv)⌋,t,c]", self.step),
            Kind::Copy,
            vec![plain(format!("{from}[{b},{kv},{t},{c}]"), v)],
            notes,
            vec![Operand::cell(from, &[b, kv, t, c])],
            format!("{short}.repeat_interleave({group}, dim=1)[{b}, {h}, {t}, {c}]"),
            format!(r"{} = {} = {}", self.lhs(), tex_name(from.as_str(), &[b, kv, t, c]), tex(self.result)),
        )
    }

    /// `alibi`: head `h`'s slope times how far key `j` is from query `i`.
    fn alibi(&self) -> Result<Explanation, ExplainError> {
        let [_, h, i, j] = four(self.index)?;
        let h1 = h + 1; // heads are numbered from 1 in words, as on the cards
        let Some(&slope) = self.trace.alibi_slopes.get(h) else {
            return inconsistent(format!("no ALiBi slope for head {h}"));
        };
        let distance = j as f64 - i as f64;
        let n = self.trace.sizes.n_heads;
        let rule = if n.is_power_of_two() {
            format!("m = 2^(−8·{}/{n}) = {}", h + 1, num(slope))
        } else {
            format!("m = {} (for {n} heads, not a power of two, the paper takes the slopes of the nearest smaller power of two and every other slope of the next one)", num(slope))
        };
        let mut notes = vec![
            format!("ALiBi adds a penalty that grows with distance instead of adding positions to the embeddings. Head {h1} (index h = {h}) has the slope {rule}."),
            format!("Key {j} is j − i = {} positions from query {i}, so the bias is {} · {} = {}.", num(distance), num(slope), num(distance), num(self.result)),
        ];
        self.check(slope * distance, &mut notes);
        self.done(
            "alibi[0,h,i,j] = m_h · (j − i)".into(),
            Kind::Sum,
            vec![product(format!("m_{h} · (j − i) = m_{h} · ({j} − {i})"), slope, distance)],
            notes,
            vec![],
            format!("slopes[{h}] * ({j} - {i})"),
            format!(
                r"{} = m_{{{h}}} \cdot ({j} - {i}) = {} \cdot {} = {}",
                self.lhs(),
                tex(slope),
                tex(distance),
                tex(self.result)
            ),
        )
    }

    /// `biased`: the scaled score plus ALiBi's bias.
    fn biased(&self) -> Result<Explanation, ExplainError> {
        let [b, h, i, j] = four(self.index)?;
        let h1 = h + 1; // heads are numbered from 1 in words, as on the cards
        let scaled = cell(self.trace, StepName::Scaled, self.index)?;
        let bias = cell(self.trace, StepName::Alibi, &[0, h, i, j])?;
        let terms = vec![
            plain(format!("scaled[{}]", comma(self.index)), scaled),
            plain(format!("alibi[0,{h},{i},{j}]"), bias),
        ];
        let mut notes = vec![format!(
            "The scaled score of {} plus ALiBi's bias for head {h1}: the farther back the key, the lower the score.",
            self.pair(b, i, j)
        )];
        self.check(left_sum(terms.iter().map(|t| t.value)), &mut notes);
        self.done(
            "biased[b,h,i,j] = scaled[b,h,i,j] + alibi[0,h,i,j]".into(),
            Kind::Sum,
            terms.clone(),
            notes,
            vec![Operand::cell(StepName::Scaled, self.index), Operand::cell(StepName::Alibi, &[0, h, i, j])],
            format!("scores[{b}, {h}, {i}, {j}] / math.sqrt(d_k) + alibi[0, {h}, {i}, {j}]"),
            format!(r"{} = {} = {}", self.lhs(), tex_terms(&terms), tex(self.result)),
        )
    }

    /// The query and key tokens of a `(B, h, T_q, T_k)` cell.
    fn pair(&self, b: usize, i: usize, j: usize) -> String {
        format!(
            "query {} and key {}",
            token(self.trace.query_tokens(b), i),
            token(self.trace.key_tokens(b), j)
        )
    }

    /// `scores`: `Σ_d q·k`.
    fn scores(&self) -> Result<Explanation, ExplainError> {
        let [b, h, i, j] = four(self.index)?;
        let h1 = h + 1; // heads are numbered from 1 in words, as on the cards
        let (terms, sum) = self.dot(b, h, i, j)?;
        let mut notes = vec![format!(
            "How well {} match in head {h1}: the dot product of the query's and the key's d_k = {} features.",
            self.pair(b, i, j),
            self.d_k()
        )];
        self.check(sum, &mut notes);
        let latex = format!(
            r"{} = \sum_{{d}} q_{{{b},{h},{i},d}}\, k_{{{b},{h},{j},d}} = {} = {}",
            self.lhs(),
            tex_terms(&terms),
            tex(self.result)
        );
        self.done(
            "scores[b,h,i,j] = Σ_d q[b,h,i,d] · k[b,h,j,d]".into(),
            Kind::Sum,
            terms,
            notes,
            vec![
                Operand::step(self.q_source(), &[Some(b), Some(h), Some(i), None]),
                Operand::step(self.k_source(), &[Some(b), Some(h), Some(j), None]),
            ],
            format!("(q[{b}, {h}, {i}] * k[{b}, {h}, {j}]).sum()"),
            latex,
        )
    }

    /// The products of a query row and a key row, and their left-to-right sum.
    fn dot(&self, b: usize, h: usize, i: usize, j: usize) -> Result<(Vec<Term>, f64), ExplainError> {
        let mut terms = Vec::with_capacity(self.d_k());
        let (q_step, k_step) = (self.q_source(), self.k_source());
        for d in 0..self.d_k() {
            let q = cell(self.trace, q_step, &[b, h, i, d])?;
            let k = cell(self.trace, k_step, &[b, h, j, d])?;
            terms.push(product(format!("q[{b},{h},{i},{d}] · k[{b},{h},{j},{d}]"), q, k));
        }
        let sum = left_sum(terms.iter().map(|t| t.value));
        Ok((terms, sum))
    }

    /// `scaled`: `scores / √d_k`.
    fn scaled(&self) -> Result<Explanation, ExplainError> {
        let [b, h, i, j] = four(self.index)?;
        let d_k = self.d_k();
        let score = cell(self.trace, StepName::Scores, self.index)?;
        let root = (d_k as f64).sqrt();
        let mut notes = vec![format!(
            "The score of {} divided by √d_k = √{d_k} = {}, so that the spread of the scores does not grow with d_k.",
            self.pair(b, i, j),
            num(root)
        )];
        self.check(score / root, &mut notes);
        self.done(
            "scaled[b,h,i,j] = scores[b,h,i,j] / √d_k".into(),
            Kind::Quotient { numerator: score, denominator: root },
            vec![
                plain(format!("scores[{}]", comma(self.index)), score),
                plain(format!("√d_k = √{d_k}"), root),
            ],
            notes,
            vec![Operand::cell(StepName::Scores, self.index)],
            format!("(q[{b}, {h}, {i}] * k[{b}, {h}, {j}]).sum() / math.sqrt(d_k)"),
            format!(
                r"{} = \frac{{{}}}{{\sqrt{{{d_k}}}}} = \frac{{{}}}{{{}}} = {}",
                self.lhs(),
                tex_name("scores", self.index),
                tex(score),
                tex(root),
                tex(self.result)
            ),
        )
    }

    /// Why query `i` of sentence `b` may not see key `j`, from the mask settings.
    fn reasons(&self, b: usize, i: usize, j: usize) -> Vec<BlockReason> {
        let config = &self.trace.mask.config;
        let mut reasons = Vec::new();
        if config.causal && j > i {
            reasons.push(BlockReason::Causal);
        }
        if crate::mask::outside_window(config, i, j) {
            reasons.push(BlockReason::Window);
        }
        if config.padding != Padding::None && j >= self.trace.key_length(b) {
            reasons.push(BlockReason::PadKey);
        }
        if config.padding == Padding::KeysAndQueries && i >= self.trace.query_length(b) {
            reasons.push(BlockReason::PadQuery);
        }
        reasons
    }

    fn reason_words(&self, b: usize, i: usize, j: usize, reason: BlockReason) -> String {
        match reason {
            BlockReason::Causal => format!("the causal mask blocks key {j}, which comes after query {i} (j > i)"),
            BlockReason::Window => {
                let w = self.trace.mask.config.window.unwrap_or(0);
                if self.trace.mask.config.causal {
                    format!(
                        "the sliding window of {w} keys lets query {i} see only keys {}..={i}, and key {j} is older",
                        (i + 1).saturating_sub(w)
                    )
                } else {
                    format!("the sliding window of {w} blocks key {j}: |{i} − {j}| = {} ≥ {w}", i.abs_diff(j))
                }
            }
            BlockReason::PadKey => format!(
                "key {j} is <pad> (sentence {b} has {} real key tokens) and the padding mask blocks pad keys",
                self.trace.key_length(b)
            ),
            BlockReason::PadQuery => format!(
                "query {i} is <pad> (sentence {b} has {} real tokens) and padding \"keys_and_queries\" blocks its whole row",
                self.trace.query_length(b)
            ),
        }
    }

    fn fill_name(&self) -> &'static str {
        self.trace.mask.config.fill.pytorch()
    }

    /// `masked`: kept, or replaced by the fill.
    fn masked(&self) -> Result<Explanation, ExplainError> {
        let [b, h, i, j] = four(self.index)?;
        let blocked = self.trace.mask.is_blocked(b, i, j);
        let reasons = if blocked { self.reasons(b, i, j) } else { vec![] };
        let fill = self.trace.mask.fill_value;
        let source = self.masked_source();
        let scaled = cell(self.trace, source, self.index)?;
        let mut notes = Vec::new();
        let (terms, recomputed, pytorch, latex) = if blocked {
            let why: Vec<String> = reasons.iter().map(|&r| self.reason_words(b, i, j, r)).collect();
            if why.is_empty() {
                notes.push(format!(
                    "The trace's mask blocks {} (mask[{b},{i},{j}] is true).",
                    self.pair(b, i, j)
                ));
            } else {
                notes.push(format!("Blocked: {}.", why.join("; and ")));
            }
            notes.push(format!(
                "masked_fill replaces the score {} by the fill {} (it replaces, it does not add).",
                num(scaled),
                self.fill_name()
            ));
            (
                vec![plain("fill".into(), fill)],
                fill,
                format!("{}  # mask[{b}, {i}, {j}] is True: blocked", self.fill_name()),
                format!(r"{} = {}\quad(\text{{blocked}})", self.lhs(), tex(self.result)),
            )
        } else {
            notes.push(format!(
                "Not blocked ({} may attend), so the {} score is kept unchanged.",
                self.pair(b, i, j),
                source
            ));
            (
                vec![plain(format!("{source}[{}]", comma(self.index)), scaled)],
                scaled,
                format!("scores[{b}, {h}, {i}, {j}]  # mask[{b}, {i}, {j}] is False: kept"),
                format!(r"{} = {} = {}", self.lhs(), tex_name(source.as_str(), self.index), tex(self.result)),
            )
        };
        self.check(recomputed, &mut notes);
        self.done(
            format!("masked[b,h,i,j] = {} if mask[b,i,j] else {source}[b,h,i,j]", self.fill_name()),
            Kind::Masked { blocked, reasons, fill },
            terms,
            notes,
            vec![Operand::cell(source, self.index)],
            pytorch,
            latex,
        )
    }

    /// `weights`: the softmax of the masked row.
    fn weights(&self) -> Result<Explanation, ExplainError> {
        let [b, h, i, j] = four(self.index)?;
        let h1 = h + 1; // heads are numbered from 1 in words, as on the cards
        let t_k = self.trace.axis_len(Axis::TK);
        let mut row = Vec::with_capacity(t_k);
        for k in 0..t_k {
            row.push(cell(self.trace, StepName::Masked, &[b, h, i, k])?);
        }
        // As the engine: the max by fold from −∞, exps, ndarray's sum, then the quotient.
        let max = row.iter().fold(f64::NEG_INFINITY, |m, &x| m.max(x));
        let exps: Vec<f64> = row.iter().map(|&s| (s - max).exp()).collect();
        let sum = ArrayView1::from(exps.as_slice()).sum();
        let numerator = exps.get(j).copied().unwrap_or(f64::NAN);
        let terms: Vec<Term> = row
            .iter()
            .zip(&exps)
            .enumerate()
            .map(|(k, (&s, &e))| Term {
                label: format!("exp(masked[{b},{h},{i},{k}] − max)"),
                kind: TermKind::Exp,
                operands: vec![s, max],
                value: e,
            })
            .collect();
        let blocked: Vec<usize> = (0..t_k).filter(|&k| self.trace.mask.is_blocked(b, i, k)).collect();
        let fully = !blocked.is_empty() && blocked.len() == t_k;
        let fill = self.trace.mask.config.fill;
        let mut notes = vec![format!(
            "Softmax over the {t_k} keys of {}'s row in head {h1}: subtract the row's maximum {} (so exp cannot overflow), take exp of each, divide by their sum {}.",
            token(self.trace.query_tokens(b), i),
            num(max),
            num(sum)
        )];
        if fully {
            let mut reasons: Vec<BlockReason> = blocked.iter().flat_map(|&k| self.reasons(b, i, k)).collect();
            reasons.sort_unstable();
            reasons.dedup();
            let reasons: Vec<&str> = reasons
                .into_iter()
                .map(|r| match r {
                    BlockReason::Causal => "causal: later keys",
                    BlockReason::PadKey => "padding: pad keys",
                    BlockReason::PadQuery => "padding: this query is <pad>",
                    BlockReason::Window => "sliding window: keys too far away",
                })
                .collect();
            let why = if reasons.is_empty() { String::new() } else { format!(" ({})", reasons.join(", ")) };
            match fill {
                Fill::NegInf => notes.push(format!(
                    "Every key of this row is blocked{why}, so every score is -inf. The maximum is -inf, and -inf − (-inf) = NaN, so every exp is NaN and the weight is NaN. Mathematically it is 0/0: there is nothing to attend to. PyTorch gives the same NaN row."
                )),
                Fill::LargeNegative => notes.push(format!(
                    "Every key of this row is blocked{why}, so every score is -1e9. Subtracting the maximum (-1e9) leaves 0 everywhere, exp(0) = 1, and the weights are uniform: 1/{t_k} = {}. The row attends to keys it should not see; -inf would give NaN instead.",
                    num(1.0 / t_k as f64)
                )),
            }
        } else if blocked.contains(&j) {
            if self.result == 0.0 || self.result.is_nan() {
                notes.push(format!(
                    "Key {j} is blocked: its score is the fill {}, exp({} − {}) = 0, so its weight is exactly 0.",
                    self.fill_name(),
                    num(row.get(j).copied().unwrap_or(f64::NAN)),
                    num(max)
                ));
            } else {
                notes.push(format!(
                    "Key {j} is blocked, yet its weight is {}: the fill -1e9 is a number, and this row's real scores are so low (maximum {}) that exp(-1e9 − max) does not vanish. The -1e9 fill leaks attention to a blocked key; -inf never does.",
                    num(self.result),
                    num(max)
                ));
            }
        } else if fill == Fill::LargeNegative && !blocked.is_empty() {
            let real_max = row
                .iter()
                .enumerate()
                .filter(|(k, _)| !blocked.contains(k))
                .fold(f64::NEG_INFINITY, |m, (_, &x)| m.max(x));
            if real_max < fill.value() {
                notes.push(format!(
                    "The real scores of this row (maximum {}) are below the fill -1e9, so the blocked keys take the weight: the -1e9 fill leaks; -inf never does.",
                    num(real_max)
                ));
            }
        }
        self.check(numerator / sum, &mut notes);
        let py_row = format!("scores[{b}, {h}, {i}]");
        self.done(
            "weights[b,h,i,j] = exp(masked[b,h,i,j] − m) / Σ_k exp(masked[b,h,i,k] − m), m = max_k masked[b,h,i,k]".into(),
            Kind::Softmax { max, numerator, sum },
            terms,
            notes,
            vec![Operand::step(StepName::Masked, &[Some(b), Some(h), Some(i), None])],
            format!("torch.exp({py_row}[{j}] - {py_row}.max()) / torch.exp({py_row} - {py_row}.max()).sum()  # scores after masked_fill"),
            format!(
                r"{} = \frac{{e^{{{} - {}}}}}{{\sum_{{k}} e^{{s_{{k}} - {}}}}} = \frac{{{}}}{{{}}} = {}",
                self.lhs(),
                tex(row.get(j).copied().unwrap_or(f64::NAN)),
                tex_factor(max),
                tex_factor(max),
                tex(numerator),
                tex(sum),
                tex(self.result)
            ),
        )
    }

    /// `context`: `Σ_j w[i,j] · v[j,c]`.
    fn context(&self) -> Result<Explanation, ExplainError> {
        let [b, h, i, c] = four(self.index)?;
        let h1 = h + 1; // heads are numbered from 1 in words, as on the cards
        let t_k = self.trace.axis_len(Axis::TK);
        let mut terms = Vec::with_capacity(t_k);
        for j in 0..t_k {
            let w = cell(self.trace, StepName::Weights, &[b, h, i, j])?;
            let v = cell(self.trace, self.v_source(), &[b, h, j, c])?;
            terms.push(product(format!("weights[{b},{h},{i},{j}] · v[{b},{h},{j},{c}]"), w, v));
        }
        let mut notes = vec![format!(
            "{}'s weighted average of feature {c} of the {t_k} values in head {h1}: each value times the weight the query gives its key.",
            token(self.trace.query_tokens(b), i)
        )];
        if self.result.is_nan() {
            notes.push("The weights row is NaN (every key blocked under the -inf fill), so every term, and the sum, is NaN.".into());
        }
        self.check(left_sum(terms.iter().map(|t| t.value)), &mut notes);
        let latex = format!(
            r"{} = \sum_{{j}} w_{{{b},{h},{i},j}}\, v_{{{b},{h},j,{c}}} = {} = {}",
            self.lhs(),
            tex_terms(&terms),
            tex(self.result)
        );
        self.done(
            "context[b,h,i,c] = Σ_j weights[b,h,i,j] · v[b,h,j,c]".into(),
            Kind::Sum,
            terms,
            notes,
            vec![
                Operand::step(StepName::Weights, &[Some(b), Some(h), Some(i), None]),
                Operand::step(self.v_source(), &[Some(b), Some(h), None, Some(c)]),
            ],
            format!("(weights[{b}, {h}, {i}] * v[{b}, {h}, :, {c}]).sum()"),
            latex,
        )
    }

    /// `concat`: `context[b, c / d_k, t, c mod d_k]`.
    fn concat(&self) -> Result<Explanation, ExplainError> {
        let [b, t, c] = three(self.index)?;
        let d_k = self.d_k().max(1);
        let (h, j) = (c / d_k, c % d_k);
        let v = cell(self.trace, StepName::Context, &[b, h, t, j])?;
        let mut notes = vec![format!(
            "No arithmetic: transpose(1, 2) and view lay the heads side by side, so column {c} is head {c} / {d_k} = {h}, feature {c} mod {d_k} = {j}."
        )];
        self.check(v, &mut notes);
        self.done(
            "concat[b,t,c] = context[b, c / d_k, t, c mod d_k]".into(),
            Kind::Copy,
            vec![plain(format!("context[{b},{h},{t},{j}]"), v)],
            notes,
            vec![Operand::cell(StepName::Context, &[b, h, t, j])],
            format!("context[{b}, {h}, {t}, {j}]"),
            format!(r"{} = {} = {}", self.lhs(), tex_name("context", &[b, h, t, j]), tex(self.result)),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_short() {
        assert_eq!(num(2.0), "2");
        assert_eq!(num(1.0 / 3f64.sqrt() * 2.0), "1.1547");
        assert_eq!(num(0.5), "0.5");
        assert_eq!(num(f64::NEG_INFINITY), "-inf");
        assert_eq!(num(1e-9), "1.0000e-9");
        assert_eq!(tex(f64::NEG_INFINITY), r"-\infty");
        assert_eq!(tex(1e-9), r"1.0000 \times 10^{-9}");
    }

    fn term(value: f64) -> Term {
        plain(String::new(), value)
    }

    #[test]
    fn top_terms_are_the_largest_and_the_rest_is_summed_in_order() {
        let e = Explanation {
            step: StepName::Q,
            index: vec![0, 0, 0],
            formula: String::new(),
            kind: Kind::Sum,
            terms: [0.5, -3.0, 1.0, 0.25, 2.0].into_iter().map(term).collect(),
            result: 0.75,
            notes: vec![],
            operands: vec![],
            pytorch: String::new(),
            latex: String::new(),
        };
        assert_eq!(e.terms_sum(), 0.75);
        let (top, rest) = top_terms(&e, 2);
        assert_eq!(top.iter().map(|t| t.value).collect::<Vec<_>>(), vec![-3.0, 2.0]);
        assert_eq!(rest, 0.5 + 1.0 + 0.25);
        let (top, rest) = top_terms(&e, 0);
        assert!(top.is_empty());
        assert_eq!(rest, 0.75);
        let mut nan = e;
        nan.terms.push(term(f64::NAN));
        let (top, _) = top_terms(&nan, 1);
        assert!(top[0].value.is_nan(), "NaN is listed first");
        assert_eq!(left_sum(std::iter::empty()), 0.0);
    }
}
