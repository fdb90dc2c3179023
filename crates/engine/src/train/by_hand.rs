//! One step of gradient descent through one attention row, with every intermediate kept,
//! so a lesson can show the chain rule number by number.
//!
//! The setting is the smallest that still has every part of a training step. One head of
//! width d reads one query row `i` of `x` (T tokens, d dimensions):
//!
//! ```text
//! q = x_i·W_Q,  k_j = x_j·W_K,  v_j = x_j·W_V          (d)
//! s_j = q·k_j / √d                                     (T)  the scaled scores
//! p = softmax(s)                                       (T)  the weights
//! o = Σ_j p_j·v_j                                      (d)  the output
//! L = −log softmax(o)[c]                                    the loss
//! ```
//!
//! The loss reads the output's d dimensions as d meanings (the baseball lesson's sports,
//! animal, other) and asks for meaning `c`: a cross-entropy with the output as its logits.
//! The backward is the trainer's own ([`super::ops`]): `dL/do = softmax(o) − onehot(c)`,
//! `dL/dp_j = dL/do·v_j`, the softmax Jacobian `dL/ds = p ∘ (dL/dp − Σ_j p_j·dL/dp_j)`,
//! `dL/dq = Σ_j dL/ds_j·k_j / √d`, and `dL/dW_Q = x_iᵀ·dL/dq` (an outer product: only row
//! `i` has a loss). The step updates W_Q alone, `W_Q ← W_Q − lr·dL/dW_Q`, and runs the
//! forward again, so the lesson can show the weights and the loss it changed.

use serde::{Deserialize, Serialize};

use super::ops;

/// What one by-hand step starts from.
#[derive(Debug, Clone, PartialEq)]
pub struct ByHandInput {
    /// The tokens' vectors, `(T, d)` row-major.
    pub x: Vec<f64>,
    /// Tokens.
    pub t: usize,
    /// Width of every vector (the head is the whole width).
    pub d: usize,
    /// The projections, each `(d, d)` row-major, in the paper's `x @ W` convention.
    pub w_q: Vec<f64>,
    /// See `w_q`.
    pub w_k: Vec<f64>,
    /// See `w_q`.
    pub w_v: Vec<f64>,
    /// The query row whose output the loss reads.
    pub query: usize,
    /// The meaning (output dimension) the loss asks for.
    pub target: usize,
    /// The learning rate of the one SGD step on W_Q.
    pub lr: f64,
}

impl ByHandInput {
    /// Identity projections (Q = K = V = x), as the baseball lesson uses.
    pub fn identity(x: Vec<f64>, t: usize, d: usize, query: usize, target: usize, lr: f64) -> Self {
        let eye: Vec<f64> = (0..d * d).map(|n| f64::from(u8::from(n / d == n % d))).collect();
        Self { x, t, d, w_q: eye.clone(), w_k: eye.clone(), w_v: eye, query, target, lr }
    }
}

/// The forward pass of one row: what the lesson shows before and after the step.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RowForward {
    /// `q = x_i·W_Q`, `(d)`.
    pub q: Vec<f64>,
    /// `k_j = x_j·W_K`, `(T, d)`.
    pub k: Vec<f64>,
    /// `v_j = x_j·W_V`, `(T, d)`.
    pub v: Vec<f64>,
    /// The scaled scores `q·k_j / √d`, `(T)`.
    pub scores: Vec<f64>,
    /// The weights `softmax(scores)`, `(T)`.
    pub weights: Vec<f64>,
    /// The output `Σ_j p_j·v_j`, `(d)`.
    pub output: Vec<f64>,
    /// `softmax(output)`: how much the output "means" each dimension, `(d)`.
    pub meaning: Vec<f64>,
    /// `−log meaning[target]`.
    pub loss: f64,
}

/// One step, every number of the chain rule kept.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ByHandStep {
    /// The forward pass before the step.
    pub before: RowForward,
    /// `dL/do = meaning − onehot(target)`, `(d)`.
    pub d_output: Vec<f64>,
    /// `dL/dp_j = dL/do·v_j`, `(T)`.
    pub d_weights: Vec<f64>,
    /// `Σ_j p_j·dL/dp_j`: the softmax Jacobian's shared term.
    pub d_weights_mean: f64,
    /// `dL/ds_j = p_j·(dL/dp_j − Σ)`, `(T)`.
    pub d_scores: Vec<f64>,
    /// `dL/dq = Σ_j dL/ds_j·k_j / √d`, `(d)`.
    pub d_query: Vec<f64>,
    /// `dL/dW_Q = x_iᵀ·dL/dq`, `(d, d)`.
    pub d_w_q: Vec<f64>,
    /// `W_Q − lr·dL/dW_Q`, `(d, d)`.
    pub w_q_after: Vec<f64>,
    /// The forward pass with the updated W_Q.
    pub after: RowForward,
}

/// Why a by-hand step cannot be taken.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ByHandError {
    /// A tensor's length does not match the sizes.
    #[error("{0} has the wrong length for T = {1} tokens of d = {2}")]
    Shape(&'static str, usize, usize),
    /// The query or target is out of range.
    #[error("{0} is out of range")]
    Range(&'static str),
}

/// `x_i·W` for one row.
fn project(x_row: &[f64], w: &[f64], d: usize) -> Vec<f64> {
    let mut out = vec![0.0; d];
    ops::mm(x_row, w, &mut out, d, d);
    out
}

fn forward_row(input: &ByHandInput, w_q: &[f64]) -> RowForward {
    let (t, d) = (input.t, input.d);
    let x_i = ops::row(&input.x, input.query, d);
    let q = project(x_i, w_q, d);
    let mut k = vec![0.0; t * d];
    let mut v = vec![0.0; t * d];
    ops::mm(&input.x, &input.w_k, &mut k, d, d);
    ops::mm(&input.x, &input.w_v, &mut v, d, d);
    let dims = ops::HeadDims { t, d, d_k: d };
    let mut scores = vec![0.0; t];
    ops::scores(&q, &k, &vec![false; t], 0, dims, &mut scores);
    let mut weights = vec![0.0; t];
    ops::softmax(&scores, &mut weights, t);
    let mut output = vec![0.0; d];
    ops::attend(&weights, &v, 0, dims, &mut output);
    let mut meaning = vec![0.0; d];
    let target = i64::try_from(input.target).unwrap_or(-1);
    let (loss, _) = ops::cross_entropy(&output, &[target], d, &mut meaning);
    RowForward { q, k, v, scores, weights, output, meaning, loss }
}

/// Takes the step: the forward pass, the chain rule back to W_Q, the update, and the
/// forward pass again.
pub fn one_step(input: &ByHandInput) -> Result<ByHandStep, ByHandError> {
    let (t, d) = (input.t, input.d);
    if input.x.len() != t * d || t == 0 || d == 0 {
        return Err(ByHandError::Shape("x", t, d));
    }
    for (name, w) in [("W_Q", &input.w_q), ("W_K", &input.w_k), ("W_V", &input.w_v)] {
        if w.len() != d * d {
            return Err(ByHandError::Shape(name, t, d));
        }
    }
    if input.query >= t {
        return Err(ByHandError::Range("the query row"));
    }
    if input.target >= d {
        return Err(ByHandError::Range("the target meaning"));
    }
    let before = forward_row(input, &input.w_q);
    let dims = ops::HeadDims { t, d, d_k: d };
    let target = i64::try_from(input.target).unwrap_or(-1);
    let mut d_output = vec![0.0; d];
    ops::cross_entropy_backward(&before.meaning, &[target], d, 1, &mut d_output);
    // attend_backward reads one query row of `p` and `dz`; the values' gradient is not
    // needed (only W_Q learns here) but the function writes it.
    let (mut d_weights, mut unused_dv) = (vec![0.0; t], vec![0.0; t * d]);
    ops::attend_backward(&before.weights, &before.v, &d_output, 0, dims, &mut d_weights, &mut unused_dv);
    let d_weights_mean = ops::dot(&d_weights, &before.weights);
    let mut d_scores = vec![0.0; t];
    ops::softmax_backward(&before.weights, &d_weights, &mut d_scores, t);
    let (mut d_query, mut unused_dk) = (vec![0.0; d], vec![0.0; t * d]);
    ops::scores_backward(&d_scores, &before.q, &before.k, 0, dims, &mut d_query, &mut unused_dk);
    let mut d_w_q = vec![0.0; d * d];
    ops::mm_tn(ops::row(&input.x, input.query, d), &d_query, &mut d_w_q, d, d);
    let w_q_after: Vec<f64> = input.w_q.iter().zip(&d_w_q).map(|(w, g)| w - input.lr * g).collect();
    let after = forward_row(input, &w_q_after);
    Ok(ByHandStep { before, d_output, d_weights, d_weights_mean, d_scores, d_query, d_w_q, w_q_after, after })
}

/// The JSON form of a by-hand step's input, for `trace --by-hand`: vectors as rows.
/// Projections left out are the identity.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct ByHandJson {
    x: Vec<Vec<f64>>,
    #[serde(default)]
    w_q: Option<Vec<Vec<f64>>>,
    #[serde(default)]
    w_k: Option<Vec<Vec<f64>>>,
    #[serde(default)]
    w_v: Option<Vec<Vec<f64>>>,
    query: usize,
    target: usize,
    lr: f64,
}

/// `one_step` from JSON (`{"x": [[…], …], "w_q"?, "w_k"?, "w_v"?, "query", "target",
/// "lr"}`) to JSON (the [`ByHandStep`]); a message on bad input.
pub fn one_step_json(text: &str) -> Result<String, String> {
    let j: ByHandJson = serde_json::from_str(text).map_err(|e| format!("by-hand step: {e}"))?;
    let (t, d) = (j.x.len(), j.x.first().map_or(0, Vec::len));
    if j.x.iter().any(|r| r.len() != d) {
        return Err("by-hand step: the rows of x differ in length".into());
    }
    let mut input = ByHandInput::identity(j.x.concat(), t, d, j.query, j.target, j.lr);
    for (w, given) in [(&mut input.w_q, j.w_q), (&mut input.w_k, j.w_k), (&mut input.w_v, j.w_v)] {
        if let Some(rows) = given {
            *w = rows.concat();
        }
    }
    let step = one_step(&input).map_err(|e| format!("by-hand step: {e}"))?;
    serde_json::to_string(&step).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The baseball lesson's pair: baseball = [2, 0, 0], bat = [1, 1, 0] (sports, animal,
    /// other); "bat" asks for the sports meaning.
    fn bat() -> ByHandInput {
        ByHandInput::identity(vec![2.0, 0.0, 0.0, 1.0, 1.0, 0.0], 2, 3, 1, 0, 1.0)
    }

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol
    }

    /// Worked by hand: scores tie at 2/√3, weights [½, ½], o = [1.5, 0.5, 0],
    /// softmax(o) = [e^1.5, e^0.5, 1]/Σ, dL/dp = [2·(m₀ − 1), (m₀ − 1) + m₁],
    /// dL/ds = ½·(dL/dp − mean) = ±(dL/dp₀ − dL/dp₁)/4, dL/dq = dL/ds₀·(k₀ − k₁)/√3.
    #[test]
    fn the_bat_step_matches_the_hand_worked_numbers() {
        let s = one_step(&bat()).unwrap();
        let sum = 1.5f64.exp() + 0.5f64.exp() + 1.0;
        let m = [1.5f64.exp() / sum, 0.5f64.exp() / sum, 1.0 / sum];
        assert!(close(s.before.scores[0], 2.0 / 3f64.sqrt(), 1e-15));
        assert_eq!(s.before.weights, vec![0.5, 0.5]);
        assert_eq!(s.before.output, vec![1.5, 0.5, 0.0]);
        assert!(close(s.before.loss, -m[0].ln(), 1e-15));
        let dp = [2.0 * (m[0] - 1.0), (m[0] - 1.0) + m[1]];
        assert!(close(s.d_weights[0], dp[0], 1e-15) && close(s.d_weights[1], dp[1], 1e-15));
        let ds0 = (dp[0] - dp[1]) / 4.0;
        assert!(close(s.d_scores[0], ds0, 1e-15) && close(s.d_scores[1], -ds0, 1e-15));
        // k₀ − k₁ = [1, −1, 0]; x_bat = [1, 1, 0], so rows 0 and 1 of dW_Q are dq, row 2 is 0.
        let dq = [ds0 / 3f64.sqrt(), -ds0 / 3f64.sqrt(), 0.0];
        for (a, b) in s.d_query.iter().zip(dq) {
            assert!(close(*a, b, 1e-15));
        }
        assert_eq!(&s.d_w_q[6..], &[0.0, 0.0, 0.0]);
        assert_eq!(&s.d_w_q[0..3], &s.d_w_q[3..6]);
        // The score for "baseball" was pushed up, so "bat" now takes more of it, and the
        // loss fell.
        assert!(s.d_scores[0] < 0.0);
        assert!(s.after.weights[0] > 0.5 && close(s.after.weights.iter().sum(), 1.0, 1e-15));
        assert!(s.after.loss < s.before.loss);
    }

    /// dL/dW_Q against central finite differences of the loss, on random inputs and
    /// projections of odd sizes.
    #[test]
    fn the_gradient_matches_finite_differences() {
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut rand = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
        };
        for (t, d) in [(1, 1), (2, 3), (5, 2), (4, 5)] {
            let mut input = bat();
            input.t = t;
            input.d = d;
            input.x = (0..t * d).map(|_| rand()).collect();
            input.w_q = (0..d * d).map(|_| rand()).collect();
            input.w_k = (0..d * d).map(|_| rand()).collect();
            input.w_v = (0..d * d).map(|_| rand()).collect();
            input.query = t - 1;
            input.target = d / 2;
            let s = one_step(&input).unwrap();
            let h = 1e-6;
            for n in 0..d * d {
                let mut plus = input.w_q.clone();
                plus[n] += h;
                let mut minus = input.w_q.clone();
                minus[n] -= h;
                let fd = (forward_row(&input, &plus).loss - forward_row(&input, &minus).loss) / (2.0 * h);
                assert!(close(s.d_w_q[n], fd, 1e-8), "t {t} d {d} cell {n}: {} vs {fd}", s.d_w_q[n]);
            }
        }
    }

    #[test]
    fn the_json_form_is_the_same_step() {
        let text =
            one_step_json(r#"{"x": [[2, 0, 0], [1, 1, 0]], "query": 1, "target": 0, "lr": 1}"#).unwrap();
        assert_eq!(text, serde_json::to_string(&one_step(&bat()).unwrap()).unwrap());
        assert!(one_step_json(r#"{"x": [[1, 2], [3]], "query": 0, "target": 0, "lr": 1}"#).is_err());
        assert!(one_step_json(r#"{"x": [[1]], "query": 0, "target": 0, "lr": 1, "extra": 1}"#).is_err());
    }

    #[test]
    fn bad_sizes_are_named() {
        let mut input = bat();
        input.w_k.pop();
        assert_eq!(one_step(&input), Err(ByHandError::Shape("W_K", 2, 3)));
        let mut input = bat();
        input.target = 3;
        assert_eq!(one_step(&input).unwrap_err().to_string(), "the target meaning is out of range");
    }
}
