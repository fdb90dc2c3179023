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
    let d_k = check_sizes(scenario)?;
    let (d_model, n_heads) = (scenario.d_model, scenario.n_heads);

    // 1. Tokens, padded to the longest sentence (and, for cross-attention, the key/value
    //    sentences padded to theirs).
    let batch = tokenize::batch(&scenario.sentences)?;
    let kv_batch = match &scenario.kv_sentences {
        None => None,
        Some(kv) if kv.len() != scenario.sentences.len() => {
            return Err(EngineError::BatchMismatch { queries: scenario.sentences.len(), keys: kv.len() })
        }
        Some(kv) => Some(tokenize::batch(kv)?),
    };
    let (b, t) = (batch.b(), batch.t);
    let t_k = kv_batch.as_ref().map_or(t, |kv| kv.t);
    let cells = b * n_heads * t * t_k;
    if cells > limits::MAX_ATTENTION_CELLS {
        return Err(EngineError::TooLarge {
            what: format!("B·h·T_q·T_k (attention cells, B={b}, h={n_heads}, T_q={t}, T_k={t_k})"),
            value: cells,
            max: limits::MAX_ATTENTION_CELLS,
        });
    }

    // 2. Parameters.
    let (x, sources) = embedding::embed(&batch, d_model, &scenario.embeddings)?;
    let x_kv = match &kv_batch {
        Some(kv) => Some(embedding::embed(kv, d_model, &scenario.embeddings)?.0),
        None => None,
    };
    let w = weights::build(&scenario.projections, d_model, scenario.seed)?;

    // 3. Project every token into a query, a key and a value (keys and values from the
    //    other sentence in cross-attention).
    let kv_source = x_kv.as_ref().unwrap_or(&x);
    let q = linear(&x, &w.q); // (b, t_q, d_model)
    let k = linear(kv_source, &w.k); // (b, t_k, d_model)
    let v = linear(kv_source, &w.v);

    // 4. Split d_model into h heads of d_k and put the head axis before T.
    let q_heads = split_heads(q.clone(), n_heads)?; // (b, h, t_q, d_k)
    let k_heads = split_heads(k.clone(), n_heads)?; // (b, h, t_k, d_k)
    let v_heads = split_heads(v.clone(), n_heads)?;

    // 5. Every query against every key, scaled by √d_k.
    let scores = attn_scores(&q_heads, &k_heads); // (b, h, t_q, t_k)
    let scaled = scale(&scores, d_k);

    // 6. Blocked pairs get the fill; softmax turns each row into weights.
    let k_lengths = kv_batch.as_ref().map_or(&batch.lengths, |kv| &kv.lengths);
    let mask = mask::build_cross(&batch.lengths, t, k_lengths, t_k, &scenario.mask); // (b, t_q, t_k)
    let fill = scenario.mask.fill.value();
    let masked = apply_mask(&scaled, &mask, fill);
    let weights = softmax_rows(&masked);

    // 7. Each query's weighted sum of the values, then the heads side by side, then W_O.
    let context = attend(&weights, &v_heads); // (b, h, t_q, d_k)
    let concat = merge_heads(context.clone())?; // (b, t_q, d_model)
    let output = linear(&concat, &w.o);

    let fully_masked_rows = mask::fully_masked_rows(&mask);
    // A NaN row is NaN in every column, so column 0 tells (and scans T times less).
    let nan_rows = weights
        .index_axis(ndarray::Axis(3), 0)
        .indexed_iter()
        .filter(|(_, v)| v.is_nan())
        .map(|((bi, hi, i), _)| [bi, hi, i])
        .collect();

    let cross = kv_batch.is_some();
    let (tq, tk) = if cross { ("T_q", "T_k") } else { ("T", "T") };
    let btd = ["B", tq, "d_model"];
    let bkd = ["B", tk, "d_model"];
    let bhtd = ["B", "h", tq, "d_k"];
    let bhkd = ["B", "h", tk, "d_k"];
    let bhtt = ["B", "h", tq, tk];
    let split_path = |tn: &'static str, len: usize| {
        vec![
            Reshape { op: "view", dims: vec!["B", tn, "h", "d_k"], shape: vec![b, len, n_heads, d_k] },
            Reshape {
                op: "transpose(1, 2)",
                dims: vec!["B", "h", tn, "d_k"],
                shape: vec![b, n_heads, len, d_k],
            },
        ]
    };
    let fill_py = scenario.mask.fill.pytorch();
    let sqrt_dk = (d_k as f64).sqrt();

    let mut steps = vec![
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
            split_path(tq, t),
            q_heads.into_dyn(),
        ),
        step(
            "k_heads",
            "The same split for the keys".into(),
            "k = k.view(B, T, h, d_k).transpose(1, 2)",
            &bhkd,
            split_path(tk, t_k),
            k_heads.into_dyn(),
        ),
        step(
            "v_heads",
            "The same split for the values".into(),
            "v = v.view(B, T, h, d_k).transpose(1, 2)",
            &bhkd,
            split_path(tk, t_k),
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
                Reshape { op: "mask", dims: vec!["B", tq, tk], shape: vec![b, t, t_k] },
                Reshape { op: "mask.unsqueeze(1)", dims: vec!["B", "1", tq, tk], shape: vec![b, 1, t, t_k] },
                Reshape { op: "broadcast", dims: bhtt.to_vec(), shape: vec![b, n_heads, t, t_k] },
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

    if let Some(x_kv) = x_kv {
        let x_kv_step = step(
            "x_kv",
            "Look up the embeddings of the sentence the keys and values come from (in a decoder, the \
             encoder's output)"
                .into(),
            "x_kv = embedding(kv_tokens)",
            &bkd,
            vec![],
            x_kv.into_dyn(),
        );
        steps.insert(1, x_kv_step);
    }

    let (mb, mt, mk) = mask.dim();
    Ok(Trace {
        tokens: batch.texts(),
        lengths: batch.lengths.clone(),
        kv_tokens: kv_batch.as_ref().map(tokenize::Batch::texts),
        kv_lengths: kv_batch.as_ref().map(|kv| kv.lengths.clone()),
        sources,
        feature_names: embedding::lexicon(d_model).map(|l| l.dims.to_vec()),
        sizes: trace::Sizes { b, t, t_k: cross.then_some(t_k), d_model, n_heads, d_k },
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

/// What `x.view(B, h, T, d_k)` gives when the `transpose(1, 2)` is forgotten: the
/// numbers of a `(B, T, d_model)` step read straight into `(B, h, T, d_k)`. Row `t` of
/// "head i" is then not token `t`'s slice for head i, but whatever numbers come next in
/// memory. The shapes lesson shows it; the engine never uses it.
///
/// # Errors
/// As [`attention::head_width`], or [`EngineError::Reshape`] for a step that is not
/// `(B, T, d_model)`.
pub fn view_without_transpose(step: &Step, n_heads: usize) -> Result<ndarray::Array4<f64>, EngineError> {
    let [b, t, d_model] = step.shape.as_slice() else {
        return Err(EngineError::Reshape { op: "view", from: step.shape.clone(), to: vec![] });
    };
    let d_k = attention::head_width(*d_model, n_heads)?;
    attention::view(step.data.clone(), (*b, n_heads, *t, d_k))
}

/// Reads a scenario from JSON and runs it.
///
/// # Errors
/// [`EngineError::Json`] for unreadable JSON, then as [`run`].
pub fn run_json(scenario_json: &str) -> Result<Trace, EngineError> {
    run(&Scenario::from_json(scenario_json)?)
}
