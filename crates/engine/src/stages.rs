//! [`crate::run_reusing`] as a sequence of stages, one function each:
//!
//! ```text
//! plan ─▶ embed ─▶ positions ─▶ project ─▶ split ─▶ rotate ─▶ repeat
//!      ─▶ attend (score, scale, bias, mask, softmax, context) ─▶ merge ─▶ output
//! ```
//!
//! Each stage reads what the one before it returned and records its steps in a
//! [`Recorder`]; a stage whose option is off (positions, RoPE, grouped heads, ALiBi)
//! passes its input through and records nothing. A new variant of attention is a new
//! stage here and a new [`StepName`], not a branch inside another stage.
//!
//! The math of each stage is in [`crate::attention`]; what a stage may copy from the
//! previous trace instead of computing is in [`crate::reuse`].

use ndarray::{Array2, Array3, Array4, ArrayD};

use crate::attention;
use crate::embedding::{self, Source};
use crate::error::{number_text, EngineError};
use crate::limits;
use crate::mask;
use crate::positional;
use crate::reuse::{self, Previous};
use crate::scenario::{Fill, Positional, Rope, Scenario};
use crate::step::{Axis as A, Layout, StepName};
use crate::tokenize::{self, Batch};
use crate::trace::{self, Reshape, Step, Trace};
use crate::weights::{self, Weights};

/// What a run is, once its input is checked: the tokens, the sizes and the options.
pub struct Plan<'a> {
    scenario: &'a Scenario,
    batch: Batch,
    kv_batch: Option<Batch>,
    /// Sentences.
    b: usize,
    /// Query tokens per sentence.
    t_q: usize,
    /// Key/value tokens per sentence (`t_q` in self-attention).
    t_k: usize,
    d_model: usize,
    n_heads: usize,
    n_kv_heads: usize,
    d_k: usize,
}

impl<'a> Plan<'a> {
    /// Checks the scenario's sizes and options and tokenizes its sentences.
    ///
    /// # Errors
    /// Every [`EngineError`] that can be told before any numbers are computed: sizes,
    /// heads that do not divide, an odd `d_k` under RoPE, a window of 0, empty or too
    /// many sentences.
    pub fn of(scenario: &'a Scenario) -> Result<Self, EngineError> {
        let (d_model, n_heads) = (scenario.d_model, scenario.n_heads);
        let d_k = check_sizes(scenario)?;
        let n_kv_heads = scenario.kv_heads();
        if n_kv_heads == 0 {
            return Err(EngineError::ZeroSize { what: "n_kv_heads" });
        }
        if !n_heads.is_multiple_of(n_kv_heads) {
            return Err(EngineError::KvHeadsDoNotDivide { n_heads, n_kv_heads });
        }
        if let Some(rope) = scenario.rope {
            if !d_k.is_multiple_of(2) {
                return Err(EngineError::RopeOddWidth { d_k });
            }
            if !(rope.base.is_finite() && rope.base > 0.0 && rope.base <= limits::MAX_ABS_INPUT) {
                return Err(EngineError::RopeBase { base: number_text(rope.base) });
            }
        }
        if scenario.mask.window == Some(0) {
            return Err(EngineError::ZeroSize { what: "window" });
        }

        // Tokens, padded to the longest sentence (and, for cross-attention, the key/value
        // sentences padded to theirs).
        let batch = tokenize::batch(&scenario.sentences)?;
        let kv_batch = match &scenario.kv_sentences {
            None => None,
            Some(kv) if kv.len() != scenario.sentences.len() => {
                return Err(EngineError::BatchMismatch { queries: scenario.sentences.len(), keys: kv.len() })
            }
            Some(kv) => Some(tokenize::batch(kv)?),
        };
        let (b, t_q) = (batch.b(), batch.t);
        let t_k = kv_batch.as_ref().map_or(t_q, |kv| kv.t);
        let cells = b * n_heads * t_q * t_k;
        if cells > limits::MAX_ATTENTION_CELLS {
            return Err(EngineError::TooLarge {
                what: format!("B·h·T_q·T_k (attention cells, B={b}, h={n_heads}, T_q={t_q}, T_k={t_k})"),
                value: cells,
                max: limits::MAX_ATTENTION_CELLS,
            });
        }
        Ok(Self { scenario, batch, kv_batch, b, t_q, t_k, d_model, n_heads, n_kv_heads, d_k })
    }

    fn cross(&self) -> bool {
        self.kv_batch.is_some()
    }

    fn grouped(&self) -> bool {
        self.n_kv_heads != self.n_heads
    }

    fn positions(&self) -> bool {
        self.scenario.positional == Positional::Sinusoidal
    }

    fn fill(&self) -> Fill {
        self.scenario.mask.fill
    }

    fn layout(&self) -> Layout {
        Layout { cross: self.cross(), grouped: self.grouped() }
    }

    /// The query and key token axes: `T` twice in self-attention, `T_q` and `T_k` in
    /// cross-attention.
    fn token_axes(&self) -> (A, A) {
        if self.cross() {
            (A::TQ, A::TK)
        } else {
            (A::T, A::T)
        }
    }

    fn kv_lengths(&self) -> &[usize] {
        self.kv_batch.as_ref().map_or(&self.batch.lengths, |kv| &kv.lengths)
    }
}

/// Checks the sizes against the limits and returns `d_k`.
fn check_sizes(scenario: &Scenario) -> Result<usize, EngineError> {
    let (d_model, n_heads) = (scenario.d_model, scenario.n_heads);
    if d_model == 0 {
        return Err(EngineError::ZeroSize { what: "d_model" });
    }
    if n_heads == 0 {
        return Err(EngineError::ZeroSize { what: "n_heads" });
    }
    if d_model > limits::MAX_D_MODEL {
        return Err(EngineError::TooLarge {
            what: "d_model".into(),
            value: d_model,
            max: limits::MAX_D_MODEL,
        });
    }
    if n_heads > limits::MAX_HEADS {
        return Err(EngineError::TooLarge {
            what: "h (n_heads)".into(),
            value: n_heads,
            max: limits::MAX_HEADS,
        });
    }
    attention::head_width(d_model, n_heads)
}

/// The steps a run records, each with its words, PyTorch line and axes from its name.
pub struct Recorder {
    layout: Layout,
    fill: Fill,
    rope: Option<Rope>,
    d_model: usize,
    n_heads: usize,
    d_k: usize,
    steps: Vec<Step>,
}

impl Recorder {
    fn new(plan: &Plan<'_>) -> Self {
        Self {
            layout: plan.layout(),
            fill: plan.fill(),
            rope: plan.scenario.rope,
            d_model: plan.d_model,
            n_heads: plan.n_heads,
            d_k: plan.d_k,
            steps: Vec::with_capacity(StepName::ALL.len()),
        }
    }

    /// Records step `name` with its numbers and the reshapes that led to it.
    fn push(&mut self, name: StepName, shape_path: Vec<Reshape>, data: ArrayD<f64>) {
        self.steps.push(Step {
            name,
            op: name.words(self.d_model, self.n_heads, self.d_k, self.fill),
            pytorch: name.pytorch_in(self.fill, self.layout.cross, self.rope.map(|r| r.style)),
            dims: name.dims_in(self.layout),
            shape: data.shape().to_vec(),
            shape_path,
            data,
        });
    }

    /// The steps in [`StepName::ALL`] order, whatever order the stages recorded them in.
    fn into_steps(mut self) -> Vec<Step> {
        self.steps.sort_by_key(|s| s.name);
        self.steps
    }
}

/// The token vectors a run starts from.
struct Embedded {
    x: Array3<f64>,
    sources: Vec<Vec<Source>>,
    x_kv: Option<Array3<f64>>,
    kv_sources: Option<Vec<Vec<Source>>>,
}

/// Stage 1, embed: look up every token's vector (`x`, and `x_kv` in cross-attention).
fn embed(plan: &Plan<'_>, rec: &mut Recorder) -> Result<Embedded, EngineError> {
    let embeddings = &plan.scenario.embeddings;
    let (x, sources) = embedding::embed(&plan.batch, plan.d_model, embeddings)?; // (b, t_q, d_model)
    rec.push(StepName::X, vec![], x.clone().into_dyn());
    let (x_kv, kv_sources) = match &plan.kv_batch {
        Some(kv) => {
            let (x_kv, kv_sources) = embedding::embed(kv, plan.d_model, embeddings)?; // (b, t_k, d_model)
            rec.push(StepName::XKv, vec![], x_kv.clone().into_dyn());
            (Some(x_kv), Some(kv_sources))
        }
        None => (None, None),
    };
    Ok(Embedded { x, sources, x_kv, kv_sources })
}

/// `x + PE` for every sentence, positions counted from 0 within each (padded) sentence.
fn add_positions(x: &Array3<f64>, pe: &Array2<f64>) -> Array3<f64> {
    let mut out = x.clone();
    for mut sentence in out.outer_iter_mut() {
        sentence += pe;
    }
    out
}

/// Stage 2, positions: with the sinusoidal encoding, `x + PE` (`pe`, `x_pe`, `x_kv_pe`);
/// without it, the embeddings unchanged. Returns what the query and the key/value
/// projections read.
fn positions(plan: &Plan<'_>, e: &Embedded, rec: &mut Recorder) -> (Array3<f64>, Option<Array3<f64>>) {
    if !plan.positions() {
        return (e.x.clone(), e.x_kv.clone());
    }
    let pe = positional::table(plan.t_q, plan.d_model); // (t_q, d_model)
    let x_pe = add_positions(&e.x, &pe);
    rec.push(StepName::Pe, vec![], pe.insert_axis(ndarray::Axis(0)).into_dyn()); // (1, t_q, d_model)
    rec.push(StepName::XPe, vec![], x_pe.clone().into_dyn());
    let x_kv_pe = e.x_kv.as_ref().map(|x_kv| {
        let x_kv_pe = add_positions(x_kv, &positional::table(plan.t_k, plan.d_model));
        rec.push(StepName::XKvPe, vec![], x_kv_pe.clone().into_dyn());
        x_kv_pe
    });
    (x_pe, x_kv_pe)
}

/// Stage 3, project: every token into a query, a key and a value, `x @ W + b` (keys and
/// values from the other sentence in cross-attention; `h_kv·d_k` wide when grouped). A
/// sentence the previous trace projected from the same rows is copied from it.
fn project(
    x_in: &Array3<f64>,
    x_kv_in: Option<&Array3<f64>>,
    w: &Weights,
    prev: Option<&Previous<'_>>,
    rec: &mut Recorder,
) -> [Array3<f64>; 3] {
    let kv_source = x_kv_in.unwrap_or(x_in);
    let q = reuse::linear(x_in, &w.q, prev.map(|p| (p.x_in, p.q))); // (b, t_q, d_model)
    let k = reuse::linear(kv_source, &w.k, prev.map(|p| (p.x_kv_in, p.k))); // (b, t_k, h_kv·d_k)
    let v = reuse::linear(kv_source, &w.v, prev.map(|p| (p.x_kv_in, p.v))); // (b, t_k, h_kv·d_k)
    rec.push(StepName::Q, vec![], q.clone().into_dyn());
    rec.push(StepName::K, vec![], k.clone().into_dyn());
    rec.push(StepName::V, vec![], v.clone().into_dyn());
    [q, k, v]
}

/// The query, key and value heads on their way to the attention.
struct Heads {
    /// `(b, h, t_q, d_k)`
    q: Array4<f64>,
    /// `(b, h_kv, t_k, d_k)`, then `(b, h, t_k, d_k)` after [`repeat`]
    k: Array4<f64>,
    /// as `k`
    v: Array4<f64>,
}

/// Stage 4, split: `d_model` into `h` heads of `d_k` (the keys and values into `h_kv`),
/// then the head axis before T: `x.view(B, T, h, d_k).transpose(1, 2)`.
fn split(plan: &Plan<'_>, [q, k, v]: [Array3<f64>; 3], rec: &mut Recorder) -> Result<Heads, EngineError> {
    let heads = Heads {
        q: attention::split_heads(q, plan.n_heads)?,    // (b, h, t_q, d_k)
        k: attention::split_heads(k, plan.n_kv_heads)?, // (b, h_kv, t_k, d_k)
        v: attention::split_heads(v, plan.n_kv_heads)?, // (b, h_kv, t_k, d_k)
    };
    let (tq, tk) = plan.token_axes();
    let kv_axis = if plan.grouped() { A::HKv } else { A::H };
    let split_path = |tn: A, len: usize, h_axis: A, h: usize| {
        vec![
            Reshape {
                op: "view".into(),
                dims: vec![A::B, tn, h_axis, A::DK],
                shape: vec![plan.b, len, h, plan.d_k],
            },
            Reshape {
                op: "transpose(1, 2)".into(),
                dims: vec![A::B, h_axis, tn, A::DK],
                shape: vec![plan.b, h, len, plan.d_k],
            },
        ]
    };
    rec.push(StepName::QHeads, split_path(tq, plan.t_q, A::H, plan.n_heads), heads.q.clone().into_dyn());
    rec.push(
        StepName::KHeads,
        split_path(tk, plan.t_k, kv_axis, plan.n_kv_heads),
        heads.k.clone().into_dyn(),
    );
    rec.push(
        StepName::VHeads,
        split_path(tk, plan.t_k, kv_axis, plan.n_kv_heads),
        heads.v.clone().into_dyn(),
    );
    Ok(heads)
}

/// Stage 5, rotate: with RoPE, every query and key head turned at its position (`q_rot`,
/// `k_rot`); the values are not rotated.
fn rotate(plan: &Plan<'_>, heads: Heads, rec: &mut Recorder) -> Heads {
    let Some(rope) = plan.scenario.rope else { return heads };
    let q = attention::rotate(&heads.q, rope); // (b, h, t_q, d_k)
    let k = attention::rotate(&heads.k, rope); // (b, h_kv, t_k, d_k)
    rec.push(StepName::QRot, vec![], q.clone().into_dyn());
    rec.push(StepName::KRot, vec![], k.clone().into_dyn());
    Heads { q, k, v: heads.v }
}

/// Stage 6, repeat: with fewer key/value heads than query heads, each key and value head
/// repeated for its group (`k_rep`, `v_rep`).
fn repeat(plan: &Plan<'_>, heads: Heads, rec: &mut Recorder) -> Heads {
    if !plan.grouped() {
        return heads;
    }
    let n_rep = plan.n_heads / plan.n_kv_heads;
    let k = attention::repeat_kv(&heads.k, n_rep); // (b, h, t_k, d_k)
    let v = attention::repeat_kv(&heads.v, n_rep); // (b, h, t_k, d_k)
    let (_, tk) = plan.token_axes();
    let path = |shape: Vec<usize>| {
        vec![
            Reshape {
                op: "unsqueeze(2).expand".into(),
                dims: vec![A::B, A::HKv, A::One, tk, A::DK],
                shape: vec![plan.b, plan.n_kv_heads, 1, plan.t_k, plan.d_k],
            },
            Reshape { op: "reshape".into(), dims: vec![A::B, A::H, tk, A::DK], shape },
        ]
    };
    rec.push(StepName::KRep, path(k.shape().to_vec()), k.clone().into_dyn());
    rec.push(StepName::VRep, path(v.shape().to_vec()), v.clone().into_dyn());
    Heads { q: heads.q, k, v }
}

/// Stage 7a, bias: with ALiBi, its bias `m_h·(j − i)` (`alibi`, `(1, h, t_q, t_k)`) and the
/// slopes; nothing without it.
fn bias(plan: &Plan<'_>, rec: &mut Recorder) -> Option<(Array4<f64>, Vec<f64>)> {
    if !plan.scenario.alibi {
        return None;
    }
    let slopes = attention::alibi_slopes(plan.n_heads);
    let bias = attention::alibi_bias(&slopes, plan.t_q, plan.t_k); // (1, h, t_q, t_k)
    rec.push(StepName::Alibi, vec![], bias.clone().into_dyn());
    Some((bias, slopes))
}

/// Stage 7b, attend: scores `Q Kᵀ`, scaled by `√d_k`, plus the bias, blocked pairs
/// replaced by the fill, softmax over the keys, then each query's weighted sum of the
/// values. A sentence whose heads, mask rows and bias are the previous trace's is copied
/// from it ([`reuse::attention`]). Returns the context, `(b, h, t_q, d_k)`.
fn attend(
    plan: &Plan<'_>,
    heads: &Heads,
    mask: &Array3<bool>,
    bias: Option<&Array4<f64>>,
    prev: Option<&Previous<'_>>,
    rec: &mut Recorder,
) -> Array4<f64> {
    let fill = plan.fill().value();
    let out = reuse::attention([&heads.q, &heads.k, &heads.v], mask, bias, fill, plan.d_k, prev);
    let (tq, tk) = plan.token_axes();
    let (b, h, t_q, t_k) = (plan.b, plan.n_heads, plan.t_q, plan.t_k);
    rec.push(
        StepName::Scores,
        vec![Reshape {
            op: "k.transpose(-2, -1)".into(),
            dims: vec![A::B, A::H, A::DK, tk],
            shape: vec![b, h, plan.d_k, t_k],
        }],
        out.scores.into_dyn(),
    );
    rec.push(StepName::Scaled, vec![], out.scaled.into_dyn());
    if let Some(biased) = out.biased {
        rec.push(StepName::Biased, vec![], biased.into_dyn());
    }
    rec.push(
        StepName::Masked,
        vec![
            Reshape { op: "mask".into(), dims: vec![A::B, tq, tk], shape: vec![b, t_q, t_k] },
            Reshape {
                op: "mask.unsqueeze(1)".into(),
                dims: vec![A::B, A::One, tq, tk],
                shape: vec![b, 1, t_q, t_k],
            },
            Reshape {
                op: "broadcast".into(),
                dims: StepName::Masked.dims_in(plan.layout()),
                shape: vec![b, h, t_q, t_k],
            },
        ],
        out.masked.into_dyn(),
    );
    rec.push(StepName::Weights, vec![], out.weights.into_dyn());
    rec.push(StepName::Context, vec![], out.context.clone().into_dyn());
    out.context
}

/// Stage 8, merge: the heads side by side again,
/// `context.transpose(1, 2).contiguous().view(B, T, d_model)`.
fn merge(plan: &Plan<'_>, context: Array4<f64>, rec: &mut Recorder) -> Result<Array3<f64>, EngineError> {
    let concat = attention::merge_heads(context)?; // (b, t_q, d_model)
    let (tq, _) = plan.token_axes();
    rec.push(
        StepName::Concat,
        vec![
            Reshape {
                op: "transpose(1, 2)".into(),
                dims: vec![A::B, tq, A::H, A::DK],
                shape: vec![plan.b, plan.t_q, plan.n_heads, plan.d_k],
            },
            Reshape {
                op: "contiguous().view".into(),
                dims: StepName::Concat.dims_in(plan.layout()),
                shape: vec![plan.b, plan.t_q, plan.d_model],
            },
        ],
        concat.clone().into_dyn(),
    );
    Ok(concat)
}

/// Stage 9, output: `concat @ W_O + b_O` (copied for a sentence whose `concat` is the
/// previous trace's).
fn output(concat: &Array3<f64>, w: &Weights, prev: Option<&Previous<'_>>, rec: &mut Recorder) {
    let output = reuse::linear(concat, &w.o, prev.map(|p| (p.concat, p.output))); // (b, t_q, d_model)
    rec.push(StepName::Output, vec![], output.into_dyn());
}

/// What decoding and tiling start from: the checked sizes and options, the weights, and
/// every token's input row (after the positional encoding, if any).
pub(crate) struct Inputs {
    pub b: usize,
    pub t_q: usize,
    pub t_k: usize,
    pub n_heads: usize,
    pub n_kv_heads: usize,
    pub d_k: usize,
    pub cross: bool,
    pub lengths: Vec<usize>,
    pub kv_lengths: Vec<usize>,
    pub mask: crate::scenario::MaskConfig,
    pub rope: Option<Rope>,
    pub alibi_slopes: Vec<f64>,
    pub w: std::sync::Arc<Weights>,
    /// `(B, T_q, d_model)`: what the query projection reads.
    pub x_in: Array3<f64>,
    /// `(B, T_k, d_model)`: what the key and value projections read.
    pub x_kv_in: Array3<f64>,
}

/// [`Inputs`] of a scenario: the first two stages of [`run`], without recording them.
///
/// # Errors
/// As [`run`].
pub(crate) fn inputs(scenario: &Scenario) -> Result<Inputs, EngineError> {
    let plan = Plan::of(scenario)?;
    let mut rec = Recorder::new(&plan);
    let w = weights::build(&scenario.projections, plan.d_model, plan.n_kv_heads * plan.d_k, scenario.seed)?;
    let embedded = embed(&plan, &mut rec)?;
    let (x_in, x_kv_in) = positions(&plan, &embedded, &mut rec);
    Ok(Inputs {
        b: plan.b,
        t_q: plan.t_q,
        t_k: plan.t_k,
        n_heads: plan.n_heads,
        n_kv_heads: plan.n_kv_heads,
        d_k: plan.d_k,
        cross: plan.cross(),
        lengths: plan.batch.lengths.clone(),
        kv_lengths: plan.kv_lengths().to_vec(),
        mask: scenario.mask,
        rope: scenario.rope,
        alibi_slopes: if scenario.alibi { attention::alibi_slopes(plan.n_heads) } else { vec![] },
        w,
        x_kv_in: x_kv_in.unwrap_or_else(|| x_in.clone()),
        x_in,
    })
}

/// The whole run, stage by stage: see the [module docs](self).
pub fn run(scenario: &Scenario, previous: Option<&Trace>) -> Result<Trace, EngineError> {
    let plan = Plan::of(scenario)?;
    let mut rec = Recorder::new(&plan);
    let kv_width = plan.n_kv_heads * plan.d_k;
    let w = weights::build(&scenario.projections, plan.d_model, kv_width, scenario.seed)?;

    let embedded = embed(&plan, &mut rec)?;
    let (x_in, x_kv_in) = positions(&plan, &embedded, &mut rec);
    let prev = previous.and_then(|p| Previous::of(p, &w, plan.positions(), plan.cross()));
    let prev = prev.as_ref();
    let projected = project(&x_in, x_kv_in.as_ref(), &w, prev, &mut rec);
    let heads = split(&plan, projected, &mut rec)?;
    let heads = rotate(&plan, heads, &mut rec);
    let heads = repeat(&plan, heads, &mut rec);
    let mask = mask::build_cross(&plan.batch.lengths, plan.t_q, plan.kv_lengths(), plan.t_k, &scenario.mask); // (b, t_q, t_k)
    let bias = bias(&plan, &mut rec);
    let context = attend(&plan, &heads, &mask, bias.as_ref().map(|(b, _)| b), prev, &mut rec);
    let concat = merge(&plan, context, &mut rec)?;
    output(&concat, &w, prev, &mut rec);

    let steps = rec.into_steps();
    let fully_masked_rows = mask::fully_masked_rows(&mask);
    // A NaN row is NaN in every column, so column 0 tells (and scans T times less).
    let nan_rows = steps
        .iter()
        .find(|s| s.name == StepName::Weights)
        .and_then(|s| s.data.view().into_dimensionality::<ndarray::Ix4>().ok())
        .map(|weights| {
            weights
                .index_axis(ndarray::Axis(3), 0)
                .indexed_iter()
                .filter(|(_, v)| v.is_nan())
                .map(|((bi, hi, i), _)| [bi, hi, i])
                .collect()
        })
        .unwrap_or_default();
    let (mb, mt, mk) = mask.dim();
    Ok(Trace {
        tokens: plan.batch.texts(),
        lengths: plan.batch.lengths.clone(),
        kv_tokens: plan.kv_batch.as_ref().map(tokenize::Batch::texts),
        kv_lengths: plan.kv_batch.as_ref().map(|kv| kv.lengths.clone()),
        sources: embedded.sources,
        kv_sources: embedded.kv_sources,
        positional: scenario.positional,
        rope: scenario.rope,
        alibi_slopes: bias.map(|(_, slopes)| slopes).unwrap_or_default(),
        feature_names: embedding::lexicon(plan.d_model).map(|l| l.dims.iter().map(|&d| d.into()).collect()),
        sizes: trace::Sizes {
            b: plan.b,
            t: plan.t_q,
            t_k: plan.cross().then_some(plan.t_k),
            d_model: plan.d_model,
            n_heads: plan.n_heads,
            d_k: plan.d_k,
            n_kv_heads: plan.grouped().then_some(plan.n_kv_heads),
        },
        mask: trace::MaskTrace {
            config: scenario.mask,
            fill_value: plan.fill().value(),
            convention: "true = blocked".into(),
            shape: [mb, mt, mk],
            blocked: mask.iter().copied().collect(),
        },
        fully_masked_rows,
        nan_rows,
        steps,
        params: w,
    })
}
