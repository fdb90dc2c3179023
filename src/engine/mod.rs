//! The attention engine: one pure function from a [`Scenario`] to a [`Trace`].
//!
//! ```text
//! sentences ──tokenize──▶ tokens (B×T, padded) ──embed──▶ x (B,T,d_model)
//!   ──W_Q,W_K,W_V──▶ q,k,v (B,T,d_model) ──view+transpose──▶ (B,h,T,d_k)
//!   ──QKᵀ──▶ scores (B,h,T,T) ──/√d_k──▶ scaled ──mask──▶ masked ──softmax──▶ weights
//!   ──@V──▶ context (B,h,T,d_k) ──transpose+view──▶ concat (B,T,d_model) ──W_O──▶ output
//! ```
//!
//! This module imports nothing from leptos, web-sys or plotters, reads no clock and does
//! no I/O. It never panics on input: every problem is an [`EngineError`].

pub mod attention;
pub mod embedding;
pub mod error;
pub mod mask;
pub mod scenario;
pub mod tokenize;
pub mod trace;
pub mod weights;

pub use error::EngineError;
pub use scenario::{ExplicitWeights, Fill, MaskConfig, Padding, ProjectionKind, Projections, Scenario};
pub use trace::{Reshape, Sizes, Step, Trace, STEP_NAMES};

use ndarray::ArrayD;

/// The documented size limits. They keep one run under about 200 MB and a second even in
/// the browser; the page truncates input to them with a notice.
pub mod limits {
    /// Most sentences in one batch (B).
    pub const MAX_BATCH: usize = 16;
    /// Most tokens in one sentence (T).
    pub const MAX_TOKENS: usize = 512;
    /// Widest token vector (d_model).
    pub const MAX_D_MODEL: usize = 1024;
    /// Most heads (h).
    pub const MAX_HEADS: usize = 64;
    /// Most attention cells, B·h·T², in one `(B, h, T, T)` tensor (2²²: e.g. B=1, h=16,
    /// T=512, or B=4, h=8, T=256).
    pub const MAX_ATTENTION_CELLS: usize = 1 << 22;
    /// Largest magnitude of an input number (embedding, weight or bias). With |x|, |W| ≤
    /// 1e30 and d_model ≤ 1024, no product or sum in the pipeline can exceed ~1e130, so
    /// nothing overflows to infinity and the only possible NaN is a fully masked `-inf`
    /// row.
    pub const MAX_ABS_INPUT: f64 = 1e30;
}

fn check_sizes(scenario: &Scenario) -> Result<(), EngineError> {
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
    if d_model % n_heads != 0 {
        return Err(EngineError::HeadsDoNotDivide { d_model, n_heads });
    }
    Ok(())
}

fn step(
    name: &'static str,
    op: String,
    pytorch: &str,
    dims: &[&'static str],
    shape_path: Vec<Reshape>,
    data: ArrayD<f64>,
) -> Step {
    Step {
        name,
        op,
        pytorch: pytorch.to_owned(),
        dims: dims.to_vec(),
        shape: data.shape().to_vec(),
        shape_path,
        data,
    }
}

/// Runs multi-head scaled dot-product self-attention on a scenario and records every
/// step: `softmax(QKᵀ/√d_k + mask)V` for each head, then concat and `W_O`.
///
/// # Errors
/// Any [`EngineError`]: bad sizes, empty or too long input, wrong embedding or weight
/// shapes, non-finite numbers. Never panics.
pub fn run(scenario: &Scenario) -> Result<Trace, EngineError> {
    use attention::*;
    check_sizes(scenario)?;
    let (d_model, n_heads) = (scenario.d_model, scenario.n_heads);
    let d_k = d_model / n_heads;

    // 1. Tokens, padded to the longest sentence.
    let batch = tokenize::batch(&scenario.sentences)?;
    let (b, t) = (batch.b(), batch.t);
    let cells = b * n_heads * t * t;
    if cells > limits::MAX_ATTENTION_CELLS {
        return Err(EngineError::TooLarge {
            what: format!("B·h·T² (attention cells, B={b}, h={n_heads}, T={t})"),
            value: cells,
            max: limits::MAX_ATTENTION_CELLS,
        });
    }

    // 2. Parameters.
    let (x, sources) = embedding::embed(&batch, d_model, &scenario.embeddings)?;
    let w = weights::build(&scenario.projections, d_model, scenario.seed)?;

    // 3. Project every token into a query, a key and a value.
    let q = linear(&x, &w.q); // (b, t, d_model)
    let k = linear(&x, &w.k);
    let v = linear(&x, &w.v);

    // 4. Split d_model into h heads of d_k and put the head axis before T.
    let q_heads = split_heads(q.clone(), n_heads)?; // (b, h, t, d_k)
    let k_heads = split_heads(k.clone(), n_heads)?;
    let v_heads = split_heads(v.clone(), n_heads)?;

    // 5. Every query against every key, scaled by √d_k.
    let scores = attn_scores(&q_heads, &k_heads); // (b, h, t, t)
    let scaled = scale(&scores, d_k);

    // 6. Blocked pairs get the fill; softmax turns each row into weights.
    let mask = mask::build(&batch.lengths, t, &scenario.mask); // (b, t, t), true = blocked
    let fill = scenario.mask.fill.value();
    let masked = apply_mask(&scaled, &mask, fill);
    let weights = softmax_rows(&masked);

    // 7. Each query's weighted sum of the values, then the heads side by side, then W_O.
    let context = attend(&weights, &v_heads); // (b, h, t, d_k)
    let concat = merge_heads(context.clone())?; // (b, t, d_model)
    let output = linear(&concat, &w.o);

    let fully_masked_rows = mask::fully_masked_rows(&mask);
    let nan_rows = weights
        .indexed_iter()
        .filter(|((_, _, _, j), v)| *j == 0 && v.is_nan())
        .map(|((bi, hi, i, _), _)| [bi, hi, i])
        .collect();

    let btd = ["B", "T", "d_model"];
    let bhtd = ["B", "h", "T", "d_k"];
    let bhtt = ["B", "h", "T", "T"];
    let split_path = vec![
        Reshape { op: "view", dims: vec!["B", "T", "h", "d_k"], shape: vec![b, t, n_heads, d_k] },
        Reshape { op: "transpose(1, 2)", dims: bhtd.to_vec(), shape: vec![b, n_heads, t, d_k] },
    ];
    let fill_py = scenario.mask.fill.pytorch();
    let sqrt_dk = (d_k as f64).sqrt();

    let steps = vec![
        step(
            "x",
            "Look up each token's embedding; shorter sentences are padded with <pad> to the longest".into(),
            "x = embedding(tokens)",
            &btd,
            vec![],
            x.into_dyn(),
        ),
        step(
            "q",
            "Project every token to a query: x @ W_Q + b_Q".into(),
            "q = self.w_q(x)",
            &btd,
            vec![],
            q.into_dyn(),
        ),
        step(
            "k",
            "Project every token to a key: x @ W_K + b_K".into(),
            "k = self.w_k(x)",
            &btd,
            vec![],
            k.into_dyn(),
        ),
        step(
            "v",
            "Project every token to a value: x @ W_V + b_V".into(),
            "v = self.w_v(x)",
            &btd,
            vec![],
            v.into_dyn(),
        ),
        step(
            "q_heads",
            format!("Split d_model = {d_model} into h = {n_heads} heads of d_k = {d_k}, then swap T and h"),
            "q = q.view(B, T, h, d_k).transpose(1, 2)",
            &bhtd,
            split_path.clone(),
            q_heads.into_dyn(),
        ),
        step(
            "k_heads",
            "The same split for the keys".into(),
            "k = k.view(B, T, h, d_k).transpose(1, 2)",
            &bhtd,
            split_path.clone(),
            k_heads.into_dyn(),
        ),
        step(
            "v_heads",
            "The same split for the values".into(),
            "v = v.view(B, T, h, d_k).transpose(1, 2)",
            &bhtd,
            split_path,
            v_heads.into_dyn(),
        ),
        step(
            "scores",
            "Dot every query with every key, in each head: Q Kᵀ".into(),
            "scores = q @ k.transpose(-2, -1)",
            &bhtt,
            vec![Reshape {
                op: "k.transpose(-2, -1)",
                dims: vec!["B", "h", "d_k", "T"],
                shape: vec![b, n_heads, d_k, t],
            }],
            scores.into_dyn(),
        ),
        step(
            "scaled",
            format!("Divide by √d_k = √{d_k} = {sqrt_dk:.4}"),
            "scores = scores / math.sqrt(d_k)",
            &bhtt,
            vec![],
            scaled.into_dyn(),
        ),
        step(
            "masked",
            format!(
                "Replace every blocked score by {fill_py} (masked_fill; the mask is the same for every head)"
            ),
            &format!("scores = scores.masked_fill(mask.unsqueeze(1), {fill_py})"),
            &bhtt,
            vec![
                Reshape { op: "mask", dims: vec!["B", "T", "T"], shape: vec![b, t, t] },
                Reshape { op: "mask.unsqueeze(1)", dims: vec!["B", "1", "T", "T"], shape: vec![b, 1, t, t] },
                Reshape { op: "broadcast", dims: bhtt.to_vec(), shape: vec![b, n_heads, t, t] },
            ],
            masked.into_dyn(),
        ),
        step(
            "weights",
            "Softmax over each row (the keys): the weights of a query sum to 1".into(),
            "weights = scores.softmax(dim=-1)",
            &bhtt,
            vec![],
            weights.into_dyn(),
        ),
        step(
            "context",
            "Each query's weighted sum of the values".into(),
            "context = weights @ v",
            &bhtd,
            vec![],
            context.into_dyn(),
        ),
        step(
            "concat",
            "Swap h and T back, then lay the heads side by side".into(),
            "concat = context.transpose(1, 2).contiguous().view(B, T, d_model)",
            &btd,
            vec![
                Reshape {
                    op: "transpose(1, 2)",
                    dims: vec!["B", "T", "h", "d_k"],
                    shape: vec![b, t, n_heads, d_k],
                },
                Reshape { op: "contiguous().view", dims: btd.to_vec(), shape: vec![b, t, d_model] },
            ],
            concat.into_dyn(),
        ),
        step(
            "output",
            "Mix the heads: concat @ W_O + b_O".into(),
            "output = self.w_o(concat)",
            &btd,
            vec![],
            output.into_dyn(),
        ),
    ];

    let (mb, mt, mk) = mask.dim();
    Ok(Trace {
        tokens: batch.texts(),
        lengths: batch.lengths.clone(),
        sources,
        feature_names: embedding::lexicon(d_model).map(|l| l.dims.to_vec()),
        sizes: trace::Sizes { b, t, d_model, n_heads, d_k },
        mask: trace::MaskTrace {
            config: scenario.mask,
            fill_value: fill,
            convention: "true = blocked",
            shape: [mb, mt, mk],
            blocked: mask.iter().copied().collect(),
        },
        fully_masked_rows,
        nan_rows,
        steps,
    })
}

/// Reads a scenario from JSON and runs it.
///
/// # Errors
/// [`EngineError::Json`] for unreadable JSON, then as [`run`].
pub fn run_json(scenario_json: &str) -> Result<Trace, EngineError> {
    run(&Scenario::from_json(scenario_json)?)
}
