//! The engine against the seeds, an independent numpy reference, a slow loop reference,
//! and its own properties. Native only: `cargo test`.

use std::path::Path;

use attention_engine::{
    attention, run, EngineError, ExplicitWeights, Fill, MaskConfig, Padding, Positional, ProjectionKind,
    Projections, Rope, RopeScaling, RopeStyle, Scenario, Step, StepName, Trace,
};
use ndarray::{Array4, ArrayD};
use proptest::prelude::*;

mod common;
#[path = "common/mla.rs"]
mod mla_draw;
use common::arb_scenario;
use mla_draw::{arb_mla, with_mla};
use serde_json::Value;

/// Compares two slices of numbers to `tol`, NaN matching NaN and ±inf matching itself.
fn check_close(what: &str, got: &[f64], want: &[f64], tol: f64) {
    assert_eq!(got.len(), want.len(), "{what}: length");
    for (i, (&g, &w)) in got.iter().zip(want).enumerate() {
        let ok = if w.is_nan() {
            g.is_nan()
        } else if w.is_infinite() {
            g == w
        } else {
            (g - w).abs() <= tol
        };
        assert!(ok, "{what}[{i}]: got {g}, want {w} (tol {tol})");
    }
}

fn data(step: &Step) -> Vec<f64> {
    step.data.iter().copied().collect()
}

fn get<'a>(trace: &'a Trace, name: &str) -> &'a Step {
    trace.step_named(name).unwrap_or_else(|| panic!("no step {name}"))
}

fn dims_text(step: &Step) -> String {
    step.dims.iter().map(|a| a.as_str()).collect::<Vec<_>>().join(", ")
}

/// One line per step, as the page's shape trace shows it: name, named axes, shape, PyTorch line.
fn shape_trace_lines(trace: &Trace) -> Vec<String> {
    trace
        .steps
        .iter()
        .map(|s| format!("{:<8} ({}) = {:?}  {}", s.name.as_str(), dims_text(s), s.shape, s.pytorch))
        .collect()
}

fn scenario(sentences: &[&str], d_model: usize, n_heads: usize) -> Scenario {
    Scenario::identity(sentences, d_model, n_heads)
}

// ---------------------------------------------------------------------------------------
// Seed 003: "I bought a baseball bat", focusing on "baseball" (2,0,0) and "bat" (1,1,0).
// ---------------------------------------------------------------------------------------

#[test]
fn seed_003_baseball_bat_exact() {
    let trace = run(&scenario(&["baseball bat"], 3, 1)).unwrap();
    // QKᵀ = [[2·2, 2·1], [1·2, 1·1+1·1]] = [[4, 2], [2, 2]]; ÷√3 → [[2.3094, 1.1547], [1.1547, 1.1547]]
    check_close("scaled", &data(get(&trace, "scaled")), &[2.3094, 1.1547, 1.1547, 1.1547], 5e-5);
    // softmax([2.3094, 1.1547]) = [1, e^-1.1547] / (1 + e^-1.1547) = [0.7604, 0.2396]
    check_close("weights", &data(get(&trace, "weights")), &[0.7604, 0.2396, 0.5, 0.5], 5e-5);
    // 0.7604·(2,0,0) + 0.2396·(1,1,0) = (1.7604, 0.2396, 0); 0.5·(2,0,0) + 0.5·(1,1,0) = (1.5, 0.5, 0)
    check_close("output", &data(get(&trace, "output")), &[1.7604, 0.2396, 0.0, 1.5, 0.5, 0.0], 5e-5);
    // and exactly: weights[0][0] = 1 / (1 + e^(-2/√3))
    let w00 = 1.0 / (1.0 + (-2.0 / 3f64.sqrt()).exp());
    assert!((get(&trace, "weights").data[[0, 0, 0, 0]] - w00).abs() < 1e-15);
}

#[test]
fn seed_003_whole_sentence_keeps_the_pair_scores() {
    let trace = run(&scenario(&["I bought a baseball bat"], 3, 1)).unwrap();
    assert_eq!(trace.tokens[0], ["I", "bought", "a", "baseball", "bat"]);
    assert_eq!(trace.feature_names.as_deref(), Some(&["sports".into(), "animal".into(), "other".into()][..]));
    let scaled = get(&trace, "scaled").matrix(0, 0).unwrap();
    // scores are pairwise: the baseball/bat block is the seed's, whatever else is in the sentence
    check_close(
        "block",
        &[scaled[[3, 3]], scaled[[3, 4]], scaled[[4, 3]], scaled[[4, 4]]],
        &[2.3094, 1.1547, 1.1547, 1.1547],
        5e-5,
    );
}

// ---------------------------------------------------------------------------------------
// Seed 000's shapes.
// ---------------------------------------------------------------------------------------

#[test]
fn seed_000_attention_shapes() {
    // q = k = v = torch.rand(10, 8, 5, 64); a, p = attention(q, k, v) → (10,8,5,64), (10,8,5,5)
    let q =
        Array4::from_shape_fn((10, 8, 5, 64), |(b, h, t, d)| ((b + 2 * h + 3 * t + 5 * d) % 7) as f64 / 7.0);
    let scores = attention::attn_scores(&q, &q);
    let weights = attention::softmax_rows(&attention::scale(&scores, 64));
    let out = attention::attend(&weights, &q);
    assert_eq!(weights.dim(), (10, 8, 5, 5));
    assert_eq!(out.dim(), (10, 8, 5, 64));
}

#[test]
fn seed_000_multiheaded_attention_8_512() {
    // MultiheadedAttention(8, 512) on (10, 5, 512) → (10, 5, 512)
    let mut s = scenario(&["one two three four five"; 10], 512, 8);
    s.projections = Projections::Named(ProjectionKind::Seeded);
    let trace = run(&s).unwrap();
    assert_eq!(get(&trace, "x").shape, [10, 5, 512]);
    assert_eq!(get(&trace, "q_heads").shape, [10, 8, 5, 64]);
    assert_eq!(get(&trace, "weights").shape, [10, 8, 5, 5]);
    assert_eq!(get(&trace, "output").shape, [10, 5, 512]);
}

/// The trace's shape lines are `want`, and its steps those of a run without positions
/// (cross-attention's when `cross`).
#[track_caller]
fn assert_shape_trace(trace: &Trace, want: &[&str], cross: bool) {
    assert_eq!(shape_trace_lines(trace), want);
    let names: Vec<StepName> = trace.steps.iter().map(|s| s.name).collect();
    assert_eq!(names, Trace::expected_steps(cross, Positional::None));
}

/// The shape trace, as the page shows it: a snapshot that keeps the docs honest.
#[test]
fn shape_trace_snapshot() {
    let trace = run(&scenario(&["this is a sample sequence", "the cat sat on the mat"], 8, 2)).unwrap();
    let want = [
        "x        (B, T, d_model) = [2, 6, 8]  x = embedding(tokens)",
        "q        (B, T, d_model) = [2, 6, 8]  q = self.w_q(x)",
        "k        (B, T, d_model) = [2, 6, 8]  k = self.w_k(x)",
        "v        (B, T, d_model) = [2, 6, 8]  v = self.w_v(x)",
        "q_heads  (B, h, T, d_k) = [2, 2, 6, 4]  q = q.view(B, T, h, d_k).transpose(1, 2)",
        "k_heads  (B, h, T, d_k) = [2, 2, 6, 4]  k = k.view(B, T, h, d_k).transpose(1, 2)",
        "v_heads  (B, h, T, d_k) = [2, 2, 6, 4]  v = v.view(B, T, h, d_k).transpose(1, 2)",
        "scores   (B, h, T, T) = [2, 2, 6, 6]  scores = q @ k.transpose(-2, -1)",
        "scaled   (B, h, T, T) = [2, 2, 6, 6]  scores = scores / math.sqrt(d_k)",
        "masked   (B, h, T, T) = [2, 2, 6, 6]  scores = scores.masked_fill(mask.unsqueeze(1), float('-inf'))",
        "weights  (B, h, T, T) = [2, 2, 6, 6]  weights = scores.softmax(dim=-1)",
        "context  (B, h, T, d_k) = [2, 2, 6, 4]  context = weights @ v",
        "concat   (B, T, d_model) = [2, 6, 8]  concat = context.transpose(1, 2).contiguous().view(B, T, d_model)",
        "output   (B, T, d_model) = [2, 6, 8]  output = self.w_o(concat)",
    ];
    assert_shape_trace(&trace, &want, false);
    let path: Vec<String> =
        get(&trace, "q_heads").shape_path.iter().map(|r| format!("{} {:?}", r.op, r.shape)).collect();
    assert_eq!(path, ["view [2, 6, 2, 4]", "transpose(1, 2) [2, 2, 6, 4]"]);
}

/// The cross-attention shape trace: every query-side step is `T_q` long, every key-side
/// step `T_k`, and the attention matrices are `T_q × T_k`.
#[test]
fn cross_attention_shape_trace_snapshot() {
    let mut s = scenario(&["a b", "c"], 8, 2);
    s.kv_sentences = Some(vec!["one two three four five".into(), "six seven".into()]);
    let trace = run(&s).unwrap();
    let want = [
        "x        (B, T_q, d_model) = [2, 2, 8]  x = embedding(tokens)",
        "x_kv     (B, T_k, d_model) = [2, 5, 8]  x_kv = embedding(kv_tokens)",
        "q        (B, T_q, d_model) = [2, 2, 8]  q = self.w_q(x)",
        "k        (B, T_k, d_model) = [2, 5, 8]  k = self.w_k(x_kv)",
        "v        (B, T_k, d_model) = [2, 5, 8]  v = self.w_v(x_kv)",
        "q_heads  (B, h, T_q, d_k) = [2, 2, 2, 4]  q = q.view(B, T_q, h, d_k).transpose(1, 2)",
        "k_heads  (B, h, T_k, d_k) = [2, 2, 5, 4]  k = k.view(B, T_k, h, d_k).transpose(1, 2)",
        "v_heads  (B, h, T_k, d_k) = [2, 2, 5, 4]  v = v.view(B, T_k, h, d_k).transpose(1, 2)",
        "scores   (B, h, T_q, T_k) = [2, 2, 2, 5]  scores = q @ k.transpose(-2, -1)",
        "scaled   (B, h, T_q, T_k) = [2, 2, 2, 5]  scores = scores / math.sqrt(d_k)",
        "masked   (B, h, T_q, T_k) = [2, 2, 2, 5]  scores = scores.masked_fill(mask.unsqueeze(1), float('-inf'))",
        "weights  (B, h, T_q, T_k) = [2, 2, 2, 5]  weights = scores.softmax(dim=-1)",
        "context  (B, h, T_q, d_k) = [2, 2, 2, 4]  context = weights @ v",
        "concat   (B, T_q, d_model) = [2, 2, 8]  concat = context.transpose(1, 2).contiguous().view(B, T_q, d_model)",
        "output   (B, T_q, d_model) = [2, 2, 8]  output = self.w_o(concat)",
    ];
    assert_shape_trace(&trace, &want, true);
    let path = |name: &str| -> Vec<String> {
        get(&trace, name)
            .shape_path
            .iter()
            .map(|r| {
                let dims: Vec<&str> = r.dims.iter().map(|a| a.as_str()).collect();
                format!("{} ({}) = {:?}", r.op, dims.join(", "), r.shape)
            })
            .collect()
    };
    let paths: Vec<(&str, Vec<String>)> =
        ["q_heads", "k_heads", "scores", "masked", "concat"].into_iter().map(|n| (n, path(n))).collect();
    let want_paths = [
        (
            "q_heads",
            vec!["view (B, T_q, h, d_k) = [2, 2, 2, 4]", "transpose(1, 2) (B, h, T_q, d_k) = [2, 2, 2, 4]"],
        ),
        (
            "k_heads",
            vec!["view (B, T_k, h, d_k) = [2, 5, 2, 4]", "transpose(1, 2) (B, h, T_k, d_k) = [2, 2, 5, 4]"],
        ),
        ("scores", vec!["k.transpose(-2, -1) (B, h, d_k, T_k) = [2, 2, 4, 5]"]),
        (
            "masked",
            vec![
                "mask (B, T_q, T_k) = [2, 2, 5]",
                "mask.unsqueeze(1) (B, 1, T_q, T_k) = [2, 1, 2, 5]",
                "broadcast (B, h, T_q, T_k) = [2, 2, 2, 5]",
            ],
        ),
        (
            "concat",
            vec![
                "transpose(1, 2) (B, T_q, h, d_k) = [2, 2, 2, 4]",
                "contiguous().view (B, T_q, d_model) = [2, 2, 8]",
            ],
        ),
    ];
    assert_eq!(paths.len(), want_paths.len());
    for ((name, got), (want_name, want)) in paths.iter().zip(&want_paths) {
        assert_eq!((name, got), (want_name, &want.iter().map(|s| s.to_string()).collect::<Vec<_>>()));
    }
}

// ---------------------------------------------------------------------------------------
// Masks and fills, end to end.
// ---------------------------------------------------------------------------------------

/// Two sentences of 5 and 7 tokens, padded and causal with a −inf fill: the first
/// sentence's pad queries (5 and 6) see only pad keys, so their rows are fully blocked.
fn padded_causal_neg_inf() -> Scenario {
    let mut s = scenario(&["this is a sample sequence", "the spunky dog wanted to jump over"], 8, 2);
    s.mask = MaskConfig::new(true, Padding::KeysAndQueries, Fill::NegInf);
    s
}

#[test]
fn fully_masked_pad_row_is_nan_under_neg_inf_and_uniform_under_large_negative() {
    let mut s = padded_causal_neg_inf();
    let trace = run(&s).unwrap();
    assert_eq!(trace.fully_masked_rows, vec![[0, 5], [0, 6]]);
    assert_eq!(trace.nan_rows, vec![[0, 0, 5], [0, 0, 6], [0, 1, 5], [0, 1, 6]]);
    let w = get(&trace, "weights").matrix(0, 1).unwrap();
    assert!(w.row(5).iter().all(|v| v.is_nan()));
    assert!(w.row(4).iter().all(|v| v.is_finite()));

    s.mask.fill = Fill::LargeNegative;
    let trace = run(&s).unwrap();
    assert!(trace.nan_rows.is_empty());
    let w = get(&trace, "weights").matrix(0, 1).unwrap();
    check_close("uniform pad row", &w.row(6).to_vec(), &[1.0 / 7.0; 7], 1e-12);
    let masked = get(&trace, "masked").matrix(0, 0).unwrap();
    assert_eq!(masked[[0, 1]], -1e9);
}

/// "Which key gets the most weight?": the keys that tie, ascending; none for a NaN row
/// or an index out of range.
#[test]
fn top_keys_ties_nan_rows_and_out_of_range() {
    let mut s = padded_causal_neg_inf();
    let trace = run(&s).unwrap();
    // query 0 under the causal mask sees key 0 alone
    assert_eq!(trace.top_keys(1, 0, 0), vec![0]);
    assert!(trace.top_keys(0, 1, 5).is_empty(), "a NaN row has no top key");
    assert!(trace.top_keys(2, 0, 0).is_empty() && trace.top_keys(0, 2, 0).is_empty());
    assert!(trace.top_keys(0, 0, 99).is_empty());
    // under -1e9 the fully masked row is uniform: every key ties
    s.mask.fill = Fill::LargeNegative;
    let trace = run(&s).unwrap();
    assert_eq!(trace.top_keys(0, 1, 6), (0..7).collect::<Vec<_>>());
    // otherwise the keys with the largest weight (here identity projections make some tie)
    let w = get(&trace, "weights").matrix(1, 1).unwrap();
    let row = w.row(6).to_vec();
    let max = row.iter().copied().fold(f64::MIN, f64::max);
    let want: Vec<usize> = (0..row.len()).filter(|&j| max - row[j] <= 1e-12).collect();
    assert_eq!(trace.top_keys(1, 1, 6), want);
    assert!(!want.is_empty() && want.len() < row.len());
}

#[test]
fn trace_json_writes_non_finite_numbers_as_strings() {
    let mut s = scenario(&["a b", "c"], 2, 1);
    s.mask = MaskConfig::new(false, Padding::KeysAndQueries, Fill::NegInf);
    let json: Value = serde_json::from_str(&run(&s).unwrap().to_json()).unwrap();
    let steps = json["steps"].as_array().unwrap();
    let masked = steps.iter().find(|s| s["name"] == "masked").unwrap();
    assert!(masked["data"].as_array().unwrap().contains(&Value::from("-Infinity")));
    let weights = steps.iter().find(|s| s["name"] == "weights").unwrap();
    assert!(weights["data"].as_array().unwrap().contains(&Value::from("NaN")));
    assert_eq!(json["mask"]["fill_value"], "-Infinity");
    assert_eq!(json["mask"]["convention"], "true = blocked");
    assert_eq!(json["tokens"], serde_json::json!([["a", "b"], ["c", "<pad>"]]));
}

// ---------------------------------------------------------------------------------------
// The independent numpy reference (tools/numpy_reference.py), to 1e-12 relative.
// ---------------------------------------------------------------------------------------

fn json_numbers(v: &Value) -> Vec<f64> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| match x {
            Value::String(s) if s == "NaN" => f64::NAN,
            Value::String(s) if s == "Infinity" => f64::INFINITY,
            Value::String(s) if s == "-Infinity" => f64::NEG_INFINITY,
            other => other.as_f64().unwrap(),
        })
        .collect()
}

/// Relative tolerance against numpy: both compute in float64 but sum in different orders
/// (numpy's matmul goes through BLAS), so they differ by a few ulps, not by 1e-12.
const NUMPY_REL_TOL: f64 = 1e-12;
/// Absolute floor for numbers near zero, where a few ulps of the terms of a sum that
/// cancels are a large relative error of the result.
const NUMPY_ABS_FLOOR: f64 = 1e-14;

/// Compares to [`NUMPY_REL_TOL`] relative (with the [`NUMPY_ABS_FLOOR`]), NaN matching
/// NaN and ±inf matching itself exactly. Returns the largest absolute and relative errors.
fn check_rel(what: &str, got: &[f64], want: &[f64]) -> (f64, f64) {
    assert_eq!(got.len(), want.len(), "{what}: length");
    let (mut max_abs, mut max_rel) = (0f64, 0f64);
    for (i, (&g, &w)) in got.iter().zip(want).enumerate() {
        if w.is_nan() || w.is_infinite() {
            assert!((w.is_nan() && g.is_nan()) || g == w, "{what}[{i}]: got {g}, want {w}");
            continue;
        }
        let err = (g - w).abs();
        assert!(
            err <= NUMPY_REL_TOL * w.abs() + NUMPY_ABS_FLOOR,
            "{what}[{i}]: got {g:e}, want {w:e} (error {err:e}, rel {NUMPY_REL_TOL:e}, floor {NUMPY_ABS_FLOOR:e})"
        );
        max_abs = max_abs.max(err);
        if w != 0.0 {
            max_rel = max_rel.max(err / w.abs());
        }
    }
    (max_abs, max_rel)
}

/// Every fixture: tokens, mask and every step the numpy reference wrote (`x`, `pe`,
/// `x_pe`, `x_kv`, `x_kv_pe`, `q` … `output`), in order, with shapes and numbers.
#[test]
fn numpy_fixtures_agree_to_1e_12_relative() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let mut paths: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).collect();
    paths.sort();
    let mut checked = 0;
    for path in paths {
        let Some(name) =
            path.file_name().and_then(|n| n.to_str()).and_then(|n| n.strip_suffix(".scenario.json"))
        else {
            continue;
        };
        let trace = attention_engine::run_json(&std::fs::read_to_string(&path).unwrap()).unwrap();
        trace.check_invariants().unwrap();
        let expected: Value = serde_json::from_str(
            &std::fs::read_to_string(dir.join(format!("{name}.expected.json"))).unwrap(),
        )
        .unwrap();
        assert_eq!(serde_json::to_value(&trace.tokens).unwrap(), expected["tokens"], "{name}: tokens");
        let kv_tokens = expected.get("kv_tokens").cloned().unwrap_or(Value::Null);
        assert_eq!(serde_json::to_value(&trace.kv_tokens).unwrap(), kv_tokens, "{name}: kv_tokens");
        assert_eq!(
            serde_json::to_value(trace.mask.shape).unwrap(),
            expected["mask"]["shape"],
            "{name}: mask shape"
        );
        let blocked: Vec<bool> =
            expected["mask"]["blocked"].as_array().unwrap().iter().map(|b| b.as_bool().unwrap()).collect();
        assert_eq!(trace.mask.blocked, blocked, "{name}: mask");
        assert_eq!(
            serde_json::to_value(&trace.fully_masked_rows).unwrap(),
            expected["fully_masked_rows"],
            "{name}: fully masked rows"
        );
        let want_names: Vec<&str> =
            expected["steps"].as_array().unwrap().iter().map(|s| s["name"].as_str().unwrap()).collect();
        let got_names: Vec<&str> = trace.steps.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(got_names, want_names, "{name}: steps");
        let (mut max_abs, mut max_rel) = (0f64, 0f64);
        for want in expected["steps"].as_array().unwrap() {
            let got = get(&trace, want["name"].as_str().unwrap());
            let what = format!("{name}/{}", got.name);
            assert_eq!(serde_json::to_value(&got.shape).unwrap(), want["shape"], "{what}: shape");
            let (a, r) = check_rel(&what, &data(got), &json_numbers(&want["data"]));
            (max_abs, max_rel) = (max_abs.max(a), max_rel.max(r));
        }
        eprintln!(
            "{name:<34} {} steps, max abs error {max_abs:.1e}, max rel error {max_rel:.1e}",
            want_names.len()
        );
        checked += 1;
    }
    assert!(checked >= 10, "only {checked} fixtures found in {}", dir.display());
}

// ---------------------------------------------------------------------------------------
// A slow, obviously correct reference: plain loops, no ndarray, no reshapes.
// ---------------------------------------------------------------------------------------

/// RoPE's scaled frequency, written again from the definitions: linear divides by the
/// factor; Llama 3's blend weight `s = (L/λ − low) / (high − low)` of the wavelength
/// `λ = 2π/θ`, clamped to [0, 1], mixes `θ/factor` (s = 0, long wavelengths) and `θ`
/// (s = 1, short ones); YaRN's ramp over pair indices `p`, between the index where a pair
/// of `r` dimensions at base `base` makes `beta_fast` turns in the original context and
/// the one where it makes `beta_slow`, mixes `θ` (ramp 0) and `θ/factor` (ramp 1).
fn scaled_theta(theta: f64, p: usize, r: usize, base: f64, scaling: Option<RopeScaling>) -> f64 {
    match scaling {
        Some(RopeScaling::Yarn {
            factor,
            original_max_position_embeddings,
            beta_fast,
            beta_slow,
            truncate,
            ..
        }) => {
            // the pair index p whose wavelength 2π·base^(2p/r) fits `turns` times in the context
            let index = |turns: f64| {
                let wavelength = original_max_position_embeddings / turns;
                (wavelength / (2.0 * std::f64::consts::PI)).ln() / base.ln() * r as f64 / 2.0
            };
            let (low, high) = if truncate {
                (index(beta_fast).floor(), index(beta_slow).ceil())
            } else {
                (index(beta_fast), index(beta_slow))
            };
            let low = low.max(0.0);
            let high = high.min(r as f64 - 1.0);
            let high = if low == high { high + 0.001 } else { high };
            let ramp = ((p as f64 - low) / (high - low)).clamp(0.0, 1.0);
            ramp * theta / factor + (1.0 - ramp) * theta
        }
        None => theta,
        Some(RopeScaling::Linear { factor }) => theta / factor,
        Some(RopeScaling::Llama3 {
            factor,
            low_freq_factor,
            high_freq_factor,
            original_max_position_embeddings,
        }) => {
            let wavelength = 2.0 * std::f64::consts::PI / theta;
            let s = ((original_max_position_embeddings / wavelength - low_freq_factor)
                / (high_freq_factor - low_freq_factor))
                .clamp(0.0, 1.0);
            (1.0 - s) * theta / factor + s * theta
        }
    }
}

/// What the slow reference needs to know of today's options: key/value heads, RoPE
/// (style, base) and ALiBi.
struct Modern {
    n_kv_heads: usize,
    /// RoPE's pairing, base, rotated dimensions `r` (`d_k` without a fraction) and scaling.
    rope: Option<(RopeStyle, f64, usize, Option<RopeScaling>)>,
    alibi: bool,
    /// ALiBi's distance is `j − i` under a causal mask and `−|i − j|` without one.
    causal: bool,
    /// The scores' factor in place of `1/√d_k`.
    scale: Option<f64>,
    /// Logit softcapping's `c`.
    softcap: Option<f64>,
    /// QK-norm's query weight, key weight, ε, and whether it is over the whole projection.
    qk_norm: Option<(Vec<f64>, Vec<f64>, f64, bool)>,
    /// The attention sinks' logits, one per head.
    sinks: Option<Vec<f64>>,
}

/// RoPE as plain loops: pair p of the first `r` dimensions, (a, b) = (p, p + r/2) or
/// (2p, 2p + 1), is the complex number x_a + i·x_b multiplied by e^{i·pos·θ_p}, and made
/// longer by YaRN's attention factor (0.1·ln(factor) + 1 unless given); dimensions r..
/// are not turned.
fn turn_plain(
    v: &[f64],
    pos: usize,
    style: RopeStyle,
    base: f64,
    r: usize,
    scaling: Option<RopeScaling>,
) -> Vec<f64> {
    let mut out = v.to_vec();
    for p in 0..r / 2 {
        let (a, b) = match style {
            RopeStyle::Half => (p, p + r / 2),
            RopeStyle::Interleaved => (2 * p, 2 * p + 1),
        };
        let theta = scaled_theta(base.powf(-2.0 * p as f64 / r as f64), p, r, base, scaling);
        let length = match scaling {
            Some(RopeScaling::Yarn { attention_factor: Some(a), .. }) => a,
            Some(RopeScaling::Yarn { factor, .. }) if factor > 1.0 => 1.0 + factor.ln() / 10.0,
            _ => 1.0,
        };
        let (cos, sin) = (length * (pos as f64 * theta).cos(), length * (pos as f64 * theta).sin());
        out[a] = v[a] * cos - v[b] * sin;
        out[b] = v[a] * sin + v[b] * cos;
    }
    out
}

/// ALiBi's slopes as the paper's code writes them: `start · ratio^k` with
/// `start = ratio = 2^(−8/n)` for a power of two `n`; otherwise the nearest smaller power
/// of two's slopes, then every other slope of twice that, as many as are missing.
fn paper_slopes(n: usize) -> Vec<f64> {
    fn pow2(n: usize) -> Vec<f64> {
        let start = 2f64.powf(-8.0 / n as f64);
        (0..n).map(|k| start * start.powi(k as i32)).collect()
    }
    if n.is_power_of_two() {
        return pow2(n);
    }
    let closest = 1usize << (usize::BITS - 1 - n.leading_zeros());
    let mut slopes = pow2(closest);
    slopes.extend(pow2(2 * closest).into_iter().step_by(2).take(n - closest));
    slopes
}

/// Multi-head attention written from the formula, index by index. Queries come from
/// `x`, keys and values from `x_kv` (the same tensor in self-attention); `positions` adds
/// the sinusoidal encoding, written here from the paper's formula. Grouped heads, RoPE
/// (as a turn of each pair of dimensions, written from the complex product) and ALiBi
/// (the paper's slopes) are written here again, without the engine's code.
/// x: [b][t][c]; returns (weights [b][h][i][j], output [b][t][c]).
#[allow(clippy::type_complexity, clippy::needless_range_loop, clippy::too_many_arguments)]
fn slow_reference(
    x: &[Vec<Vec<f64>>],
    x_kv: &[Vec<Vec<f64>>],
    positions: bool,
    w: &ExplicitWeights,
    n_heads: usize,
    modern: &Modern,
    blocked: &dyn Fn(usize, usize, usize) -> bool,
    fill: f64,
) -> (Vec<Vec<Vec<Vec<f64>>>>, Vec<Vec<Vec<f64>>>) {
    let (b, t, d) = (x.len(), x[0].len(), x[0][0].len());
    let t_k = x_kv[0].len();
    let d_k = w.w_q[0].len() / n_heads; // d / h, or a head size of its own
    let group = n_heads / modern.n_kv_heads; // query heads per key/value head
                                             // PE(pos, 2i) = sin(pos / 10000^(2i/d)), PE(pos, 2i+1) = cos(pos / 10000^(2i/d))
    let pe = |pos: usize, c: usize| -> f64 {
        if !positions {
            return 0.0;
        }
        let two_i = (c / 2 * 2) as f64;
        let angle = pos as f64 / 10000f64.powf(two_i / d as f64);
        if c.is_multiple_of(2) {
            angle.sin()
        } else {
            angle.cos()
        }
    };
    let lin = |v: &[f64], m: &[Vec<f64>], bias: &[f64]| -> Vec<f64> {
        (0..m[0].len()).map(|j| (0..v.len()).map(|i| v[i] * m[i][j]).sum::<f64>() + bias[j]).collect()
    };
    let with_pe = |rows: &[Vec<f64>]| -> Vec<Vec<f64>> {
        rows.iter()
            .enumerate()
            .map(|(p, r)| r.iter().enumerate().map(|(c, v)| v + pe(p, c)).collect())
            .collect()
    };
    // QK-norm: w_c · x_c / √(Σ x² / n + ε) over the head's n = d_k numbers, or over the
    // token's whole projection (OLMo 2: every head's, weight column c of the projection), before RoPE
    let norm = |row: &[f64], cols: std::ops::Range<usize>, keys: bool| -> Vec<f64> {
        let head = &row[cols.clone()];
        let Some((wq, wk, eps, whole)) = &modern.qk_norm else { return head.to_vec() };
        let w = if keys { wk } else { wq };
        let over = if *whole { row } else { head };
        let rms = (over.iter().map(|x| x * x).sum::<f64>() / over.len() as f64 + eps).sqrt();
        let first = if *whole { cols.start } else { 0 };
        head.iter().enumerate().map(|(c, x)| w[first + c] * x / rms).collect()
    };
    let turn = |head: &[f64], pos: usize| -> Vec<f64> {
        let Some((style, base, r, scaling)) = modern.rope else { return head.to_vec() };
        turn_plain(head, pos, style, base, r, scaling)
    };
    let slopes = paper_slopes(n_heads);
    let mut weights = vec![vec![vec![vec![0.0; t_k]; t]; n_heads]; b];
    let mut output = vec![vec![vec![0.0; d]; t]; b];
    for bi in 0..b {
        let (xq, xkv) = (with_pe(&x[bi]), with_pe(&x_kv[bi]));
        let q: Vec<Vec<f64>> = xq.iter().map(|v| lin(v, &w.w_q, &w.b_q)).collect();
        let k: Vec<Vec<f64>> = xkv.iter().map(|v| lin(v, &w.w_k, &w.b_k)).collect();
        let v: Vec<Vec<f64>> = xkv.iter().map(|v| lin(v, &w.w_v, &w.b_v)).collect();
        let mut concat = vec![vec![0.0; n_heads * d_k]; t];
        for h in 0..n_heads {
            let cols = h * d_k..(h + 1) * d_k; // query head h owns these columns
            let g = h / group; // and reads key/value head g
            let kv_cols = g * d_k..(g + 1) * d_k;
            for i in 0..t {
                let qi = turn(&norm(&q[i], cols.clone(), false), i);
                let mut row: Vec<f64> = (0..t_k)
                    .map(|j| {
                        if blocked(bi, i, j) {
                            fill
                        } else {
                            let kj = turn(&norm(&k[j], kv_cols.clone(), true), j);
                            let dot = (0..d_k).map(|c| qi[c] * kj[c]).sum::<f64>();
                            let score = modern.scale.map_or(dot / (d_k as f64).sqrt(), |f| dot * f);
                            // softcapping: c·tanh(s / c), before ALiBi's bias (Gemma 2 has no ALiBi)
                            let score = modern.softcap.map_or(score, |c| c * (score / c).tanh());
                            let distance =
                                if modern.causal { j as f64 - i as f64 } else { -(i.abs_diff(j) as f64) };
                            let bias = if modern.alibi { slopes[h] * distance } else { 0.0 };
                            score + bias
                        }
                    })
                    .collect();
                // an attention sink is one more logit in the softmax, whose weight is dropped
                let sink = modern.sinks.as_ref().map(|s| s[h]);
                let max = row.iter().cloned().fold(sink.unwrap_or(f64::NEG_INFINITY), f64::max);
                let sum: f64 =
                    row.iter().map(|s| (s - max).exp()).sum::<f64>() + sink.map_or(0.0, |s| (s - max).exp());
                for s in &mut row {
                    *s = (*s - max).exp() / sum;
                }
                for (c, kv_c) in cols.clone().zip(kv_cols.clone()) {
                    concat[i][c] = (0..t_k).map(|j| row[j] * v[j][kv_c]).sum();
                }
                weights[bi][h][i] = row;
            }
        }
        for i in 0..t {
            output[bi][i] = lin(&concat[i], &w.w_o, &w.b_o);
        }
    }
    (weights, output)
}

/// The mask written from its definition, for sentences of the trace's lengths.
fn slow_mask(trace: &Trace, b: usize, i: usize, j: usize) -> bool {
    let m = &trace.mask.config;
    let window = m.window.is_some_and(|w| {
        let (i, j, w) = (i as i64, j as i64, w as i64);
        let outside = if m.causal { j <= i - w } else { (i - j).abs() >= w };
        // StreamingLLM's kept first keys stay visible beside the window
        outside && j >= m.keep_first.map_or(0, |k| k as i64)
    });
    (m.causal && j > i)
        || window
        || (m.padding != Padding::None && j >= trace.key_length(b))
        || (m.padding == Padding::KeysAndQueries && i >= trace.query_length(b))
}

fn to_vec3(a: &ArrayD<f64>) -> Vec<Vec<Vec<f64>>> {
    let s = a.shape();
    (0..s[0]).map(|b| (0..s[1]).map(|t| (0..s[2]).map(|c| a[[b, t, c]]).collect()).collect()).collect()
}

fn explicit(s: &Scenario) -> &ExplicitWeights {
    match &s.projections {
        Projections::Explicit(w) => w,
        _ => unreachable!("arb_scenario makes explicit weights"),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn engine_agrees_with_the_slow_reference(s in arb_scenario()) {
        let trace = run(&s).unwrap();
        trace.check_invariants().unwrap();
        let x = to_vec3(&get(&trace, "x").data);
        let x_kv = if s.kv_sentences.is_some() { to_vec3(&get(&trace, "x_kv").data) } else { x.clone() };
        let positions = s.positional == Positional::Sinusoidal;
        let modern = Modern { n_kv_heads: s.kv_heads(), rope: s.rope.map(|r| (r.style, r.base, r.rotary_dims(s.d_head.unwrap_or(s.d_model / s.n_heads)), r.scaling)), alibi: s.alibi, causal: s.mask.causal, scale: s.scale, softcap: s.softcap, qk_norm: s.qk_norm.as_ref().map(|n| { let d_k = s.d_head.unwrap_or(s.d_model / s.n_heads); (n.weight(false, n.weight_len(s.n_heads, d_k)), n.weight(true, n.weight_len(s.kv_heads(), d_k)), n.eps, n.whole_projection) }), sinks: s.sinks.clone() };
        let [b, t_q, t_k] = trace.mask.shape;
        for bi in 0..b { for i in 0..t_q { for j in 0..t_k {
            prop_assert_eq!(trace.mask.is_blocked(bi, i, j), slow_mask(&trace, bi, i, j), "mask [{}, {}, {}]", bi, i, j);
        }}}
        let (weights, output) = slow_reference(&x, &x_kv, positions, explicit(&s), s.n_heads, &modern, &|b, i, j| slow_mask(&trace, b, i, j), s.mask.fill.value());
        let flat_w: Vec<f64> = weights.iter().flatten().flatten().flatten().copied().collect();
        check_close("weights", &data(get(&trace, "weights")), &flat_w, 1e-9);
        let flat_o: Vec<f64> = output.iter().flatten().flatten().copied().collect();
        check_close("output", &data(get(&trace, "output")), &flat_o, 1e-9);
    }

    #[test]
    fn rows_sum_to_one_and_blocked_weights_are_zero(s in arb_scenario()) {
        let trace = run(&s).unwrap();
        trace.check_invariants().unwrap();
        let w = get(&trace, "weights");
        let (b, h, t, t_k) = (w.shape[0], w.shape[1], w.shape[2], w.shape[3]);
        for bi in 0..b {
            for hi in 0..h {
                let m = w.matrix(bi, hi).unwrap();
                for i in 0..t {
                    let fully = trace.fully_masked_rows.contains(&[bi, i]);
                    if let Some(sinks) = &s.sinks {
                        // with a sink a row sums to at most 1 (to 0 when every key is blocked)
                        let sum = m.row(i).sum();
                        prop_assert!(m.row(i).iter().all(|v| *v >= 0.0) && sum <= 1.0 + 1e-12, "sink {} row sum {}", sinks[hi], sum);
                        if fully && s.mask.fill == Fill::NegInf {
                            prop_assert!(m.row(i).iter().all(|v| *v == 0.0));
                        }
                    } else if fully && s.mask.fill == Fill::NegInf {
                        prop_assert!(m.row(i).iter().all(|v| v.is_nan()));
                        continue;
                    } else {
                        prop_assert!((m.row(i).sum() - 1.0).abs() < 1e-9);
                    }
                    for j in 0..t_k {
                        if trace.mask.is_blocked(bi, i, j) && !fully {
                            prop_assert_eq!(m[[i, j]], 0.0, "blocked weight ({},{},{},{})", bi, hi, i, j);
                        }
                    }
                }
            }
        }
        // the only NaN anywhere is a fully masked row under -inf
        if s.mask.fill == Fill::LargeNegative || trace.fully_masked_rows.is_empty() || s.sinks.is_some() {
            prop_assert!(trace.steps.iter().all(|st| st.data.iter().all(|v| !v.is_nan())));
        }
    }

    /// ALiBi without a causal mask never rewards distance: every bias is ≤ 0, and 0 only
    /// where the key is the query's own position.
    #[test]
    fn alibi_without_causal_never_rewards_distance(s in arb_scenario()) {
        let mut s = s;
        s.alibi = true;
        s.mask.causal = false;
        let trace = run(&s).unwrap();
        let alibi = get(&trace, "alibi");
        for ((_, h, i, j), &bias) in alibi.data.view().into_dimensionality::<ndarray::Ix4>().unwrap().indexed_iter() {
            let want = -trace.alibi_slopes[h] * i.abs_diff(j) as f64;
            prop_assert_eq!(bias, want, "alibi[0, {}, {}, {}]", h, i, j);
            prop_assert!(bias <= 0.0);
        }
        prop_assert!(get(&trace, "alibi").op.contains("−m_h·|i − j|"));
    }

    #[test]
    fn concat_is_the_heads_side_by_side(s in arb_scenario()) {
        let trace = run(&s).unwrap();
        let (context, concat) = (get(&trace, "context"), get(&trace, "concat"));
        let (b, h, t, d_k) = (context.shape[0], context.shape[1], context.shape[2], context.shape[3]);
        for bi in 0..b { for hi in 0..h { for i in 0..t { for c in 0..d_k {
            let (want, got) = (context.data[[bi, hi, i, c]], concat.data[[bi, i, hi * d_k + c]]);
            prop_assert!(want == got || (want.is_nan() && got.is_nan()));
        }}}}
    }

    #[test]
    fn a_pad_embedding_never_reaches_real_tokens_under_keys_padding(s in arb_scenario(), pad in prop::collection::vec(-50.0f64..50.0, 20)) {
        let mut s = s;
        s.mask.padding = Padding::Keys;
        let before = run(&s).unwrap();
        s.embeddings.insert("<pad>".into(), pad[..s.d_model].to_vec());
        let after = run(&s).unwrap();
        let (o1, o2) = (get(&before, "output"), get(&after, "output"));
        for (bi, &len) in before.lengths.iter().enumerate() {
            // A real query whose every key is blocked is the exception: in cross-attention a
            // sliding window can leave it only <pad> keys, all blocked, and under -1e9 it then
            // averages them (under -inf it is NaN). The page says so for such a row.
            for i in (0..len).filter(|&i| !before.fully_masked_rows.contains(&[bi, i])) {
                for c in 0..s.d_model {
                    prop_assert_eq!(o1.data[[bi, i, c]], o2.data[[bi, i, c]]);
                }
            }
        }
    }
}

// ---------------------------------------------------------------------------------------
// Every error variant, reached through the public API.
// ---------------------------------------------------------------------------------------

#[test]
fn every_error_variant_is_reached() {
    let base = scenario(&["I bought a baseball bat"], 3, 1);
    let with = |f: &dyn Fn(&mut Scenario)| {
        let mut s = base.clone();
        f(&mut s);
        run(&s).unwrap_err()
    };
    let cases: Vec<(EngineError, &str)> = vec![
        (with(&|s| s.sentences.clear()), "there are no sentences"),
        (with(&|s| s.sentences.push("  ".into())), "sentence 2 is empty"),
        (with(&|s| s.kv_sentences = Some(vec![])), "cross-attention needs one key/value sentence per query sentence: 1 query and 0"),
        (with(&|s| s.d_model = 0), "d_model must be at least 1"),
        (with(&|s| s.n_heads = 0), "n_heads must be at least 1"),
        (with(&|s| s.n_heads = 2), "d_model = 3 is not divisible by h = 2"),
        (with(&|s| s.d_model = 2048), "d_model = 2048 is over the limit of 1024"),
        (with(&|s| s.n_heads = 65), "h (n_heads) = 65 is over the limit of 64"),
        (
            with(&|s| s.sentences = vec!["w ".repeat(600)]),
            "T (tokens in sentence 1) = 600 is over the limit of 512",
        ),
        (with(&|s| s.sentences = vec!["a".into(); 17]), "B (sentences) = 17 is over the limit of 16"),
        (
            with(&|s| {
                s.sentences = vec!["w ".repeat(512)];
                s.d_model = 32;
                s.n_heads = 32;
            }),
            "B·h·T_q·T_k (attention cells, B=1, h=32, T_q=512, T_k=512) = 8388608 is over the limit of 4194304",
        ),
        (
            with(&|s| {
                s.embeddings.insert("bat".into(), vec![1.0]);
            }),
            "the embedding of \"bat\" has 1 numbers, but d_model = 3",
        ),
        (
            with(&|s| {
                s.embeddings.insert("bat".into(), vec![f64::NAN, 0.0, 0.0]);
            }),
            "embedding of \"bat\"[0] is NaN",
        ),
        (
            with(&|s| {
                s.projections = Projections::Explicit(Box::new(ExplicitWeights {
                    w_q: vec![vec![1.0; 3]; 2],
                    b_q: vec![],
                    w_k: vec![],
                    b_k: vec![],
                    w_v: vec![],
                    b_v: vec![],
                    w_o: vec![],
                    b_o: vec![],
                }))
            }),
            "w_q has shape [2, 3], but it must be [3, 3]",
        ),
        (with(&|s| s.n_kv_heads = Some(0)), "n_kv_heads must be at least 1"),
        (
            with(&|s| {
                s.d_model = 6;
                s.n_heads = 3;
                s.n_kv_heads = Some(2);
            }),
            "h_kv = 2 does not divide h = 3",
        ),
        (
            with(&|s| {
                s.d_model = 6;
                s.n_heads = 2;
                s.n_kv_heads = Some(4);
            }),
            "h_kv = 4 does not divide h = 2",
        ),
        (with(&|s| s.rope = Some(Rope::new(RopeStyle::Half))), "RoPE rotates pairs of dimensions, so d_k must be even, but d_k = 3: change d_model or h (or d_head), or turn RoPE off"),
        (
            with(&|s| {
                s.d_model = 4;
                s.rope = Some(Rope { style: RopeStyle::Interleaved, base: f64::NAN, fraction: None, scaling: None });
            }),
            "the RoPE base is NaN",
        ),
        (
            with(&|s| {
                s.d_model = 4;
                s.rope = Some(Rope { style: RopeStyle::Interleaved, base: -1.0, fraction: None, scaling: None });
            }),
            "the RoPE base is -1",
        ),
        (with(&|s| s.mask.keep_first = Some(4)), "keep_first = 4 keeps the first keys beside a sliding window, but"),
        (with(&|s| s.mask.window = Some(0)), "window must be at least 1, got 0"),
        (with(&|s| s.scale = Some(0.0)), "the scale is 0: it must be a finite number greater than 0"),
        (with(&|s| s.softcap = Some(f64::INFINITY)), "the softcap is inf"),
    ];
    for (err, want) in &cases {
        assert!(err.to_string().starts_with(want), "{err} should start with {want}");
    }
    // The limits themselves are allowed: d_model 1024, h 64, exactly 2²² attention cells.
    let at = |d: usize, h: usize, words: usize| {
        let mut s = scenario(&[&"w ".repeat(words)], d, h);
        s.projections = Projections::Named(ProjectionKind::Identity);
        run(&s)
    };
    assert!(at(1024, 1, 1).is_ok());
    assert!(at(64, 64, 1).is_ok());
    assert!(at(16, 16, 512).is_ok(), "1·16·512·512 = 2²² cells is the limit, not over it");
    // a RoPE base of 0 is refused (every angle after the first would be infinite)
    let e = with(&|s| {
        s.d_model = 4;
        s.rope = Some(Rope { style: RopeStyle::Half, base: 0.0, fraction: None, scaling: None });
    });
    assert!(e.to_string().starts_with("the RoPE base is 0"), "{e}");
    // Every new option's error names its control.
    let fields: Vec<&str> = cases.iter().skip(cases.len() - 10).map(|(e, _)| e.field().as_str()).collect();
    assert_eq!(
        fields,
        [
            "n_kv_heads",
            "n_kv_heads",
            "n_kv_heads",
            "rope",
            "rope",
            "rope",
            "keep_first",
            "window",
            "scale",
            "softcap"
        ]
    );
    // An unknown RoPE style and a window of -1 are JSON errors.
    for text in [
        r#"{"sentences": ["a"], "d_model": 4, "n_heads": 1, "rope": {"style": "sideways"}}"#,
        r#"{"sentences": ["a"], "d_model": 4, "n_heads": 1, "mask": {"window": -1}}"#,
    ] {
        let e = attention_engine::run_json(text).unwrap_err();
        assert!(e.to_string().starts_with("the scenario JSON is not valid"), "{e}");
    }
    let e = attention_engine::run_json(
        r#"{"sentences": ["a"], "d_model": 4, "n_heads": 1, "rope": {"style": "sideways"}}"#,
    )
    .unwrap_err();
    assert!(e.to_string().contains("expected `half` or `interleaved`"), "{e}");
    // Reshape: only reachable by asking `view` for an impossible shape directly.
    let e = attention::view(ndarray::Array2::<f64>::zeros((2, 3)), (4, 2)).unwrap_err();
    assert_eq!(e.to_string(), "cannot view a tensor of shape [2, 3] into [4, 2]");
    // Json: bad syntax, a wrong type, an unknown field.
    for (text, want) in [
        ("{", "the scenario JSON is not valid: EOF while parsing"),
        (
            r#"{"sentences": "one", "d_model": 3, "n_heads": 1}"#,
            "the scenario JSON is not valid: invalid type",
        ),
        (
            r#"{"sentences": ["a"], "d_model": 3, "n_heads": 1, "embedding": {}}"#,
            "the scenario JSON is not valid: unknown field `embedding`",
        ),
        (
            r#"{"sentences": ["a"], "d_model": -3, "n_heads": 1}"#,
            "the scenario JSON is not valid: invalid value",
        ),
    ] {
        let e = attention_engine::run_json(text).unwrap_err();
        assert!(e.to_string().starts_with(want), "{e}");
        assert_eq!(e.field().as_str(), "scenario");
    }
}

#[test]
fn the_issue_example_scenario_runs() {
    let text = r#"{ "sentences": ["I bought a baseball bat", "the bat flew"],
      "d_model": 3, "n_heads": 1,
      "embeddings": {"baseball": [2,0,0], "bat": [1,1,0]},
      "projections": "identity",
      "seed": 7,
      "mask": {"causal": false, "padding": "keys", "fill": "neg_inf"} }"#;
    let trace = attention_engine::run_json(text).unwrap();
    assert_eq!(trace.tokens[1], ["the", "bat", "flew", "<pad>", "<pad>"]);
    // the pad keys get exactly zero weight
    let w = get(&trace, "weights").matrix(1, 0).unwrap();
    assert!((0..3).all(|i| w[[i, 3]] == 0.0 && w[[i, 4]] == 0.0));
    // defaults: seeded projections, seed 0, no mask
    let minimal = Scenario::from_json(r#"{"sentences": ["hi"], "d_model": 4, "n_heads": 2}"#).unwrap();
    assert_eq!(minimal.projections, Projections::Named(ProjectionKind::Seeded));
    assert_eq!((minimal.seed, minimal.mask), (0, MaskConfig::default()));
    assert_eq!(Scenario::from_json(&minimal.to_json()).unwrap(), minimal);
}

// ---------------------------------------------------------------------------------------
// Cross-attention (seeds 001 and 003): queries from one sentence, keys and values from
// another, so the weights are T_q × T_k.
// ---------------------------------------------------------------------------------------

#[test]
fn cross_attention_is_t_q_by_t_k_as_in_seed_001() {
    // seed 001: seq_len_q = 5, seq_len_k = 7
    let mut s = scenario(&["this is a sample sequence"], 8, 2);
    s.kv_sentences = Some(vec!["the spunky dog wanted to jump high".into()]);
    let trace = run(&s).unwrap();
    assert_eq!(get(&trace, "weights").shape, [1, 2, 5, 7]);
    assert_eq!(dims_text(get(&trace, "weights")), "B, h, T_q, T_k");
    assert_eq!(get(&trace, "x_kv").shape, [1, 7, 8]);
    assert_eq!(get(&trace, "k_heads").shape, [1, 2, 7, 4]);
    assert_eq!(get(&trace, "context").shape, [1, 2, 5, 4]);
    assert_eq!(get(&trace, "output").shape, [1, 5, 8]);
    assert_eq!(trace.sizes.t_k, Some(7));
    assert_eq!(trace.kv_tokens.as_ref().unwrap()[0][2], "dog");
    // identity projections: scaled[i][j] = x_q[i] · x_kv[j] / √d_k, head 0 = columns 0..4
    let (xq, xk) = (&get(&trace, "x").data, &get(&trace, "x_kv").data);
    for i in 0..5 {
        for j in 0..7 {
            let dot: f64 = (0..4).map(|c| xq[[0, i, c]] * xk[[0, j, c]]).sum();
            assert!((get(&trace, "scaled").data[[0, 0, i, j]] - dot / 2.0).abs() < 1e-12);
        }
    }
}

#[test]
fn cross_attention_with_the_same_sentences_is_self_attention() {
    let mut s = scenario(&["the cat sat", "a dog"], 6, 3);
    s.projections = Projections::Named(ProjectionKind::Seeded);
    s.mask = MaskConfig::new(true, Padding::Keys, Fill::LargeNegative);
    let plain = run(&s).unwrap();
    s.kv_sentences = Some(s.sentences.clone());
    let cross = run(&s).unwrap();
    assert_eq!(data(get(&cross, "output")), data(get(&plain, "output")));
    assert_eq!(cross.mask.blocked, plain.mask.blocked);
    // old scenario files (no kv_sentences) still load, and write no kv field
    assert!(!Scenario::from_json(r#"{"sentences":["a"],"d_model":2,"n_heads":1}"#)
        .unwrap()
        .to_json()
        .contains("kv"));
}

#[test]
fn cross_attention_pads_keys_by_the_key_sentences() {
    let mut s = scenario(&["a b c", "d"], 4, 1);
    s.kv_sentences = Some(vec!["w".into(), "x y z q".into()]);
    s.mask = MaskConfig::new(false, Padding::Keys, Fill::NegInf);
    let trace = run(&s).unwrap();
    let w = get(&trace, "weights");
    assert_eq!(w.shape, [2, 1, 3, 4]);
    // sentence 0 has one real key: all its weight goes there
    assert!((0..3).all(|i| w.data[[0, 0, i, 0]] == 1.0 && w.data[[0, 0, i, 3]] == 0.0));
    assert_eq!(trace.kv_lengths, Some(vec![1, 4]));
}

#[test]
fn mask_names_are_the_json_names() {
    for p in Padding::ALL {
        assert_eq!(serde_json::to_value(p).unwrap(), p.name());
        assert_eq!(Padding::from_name(p.name()), Some(p));
    }
    for f in Fill::ALL {
        assert_eq!(serde_json::to_value(f).unwrap(), f.name());
        assert_eq!(Fill::from_name(f.name()), Some(f));
    }
    assert_eq!((Padding::from_name("sideways"), Fill::from_name("")), (None, None));
}

/// RoPE's scaled frequencies: each number of `rope.scaling` outside what the formula can
/// use is an error of the rope control naming the field; an unknown type or field is a
/// JSON error naming the types; the q_rot step's words give the type and its numbers.
#[test]
fn rope_scaling_errors_name_their_field_and_words_give_the_numbers() {
    let with = |scaling: &str| {
        attention_engine::run_json(&format!(
            r#"{{"sentences": ["a b c"], "d_model": 4, "n_heads": 1, "rope": {{"style": "half", "scaling": {scaling}}}}}"#
        ))
    };
    let llama3 = |factor: &str, low: &str, high: &str, old: &str| {
        format!(
            r#"{{"type": "llama3", "factor": {factor}, "low_freq_factor": {low}, "high_freq_factor": {high}, "original_max_position_embeddings": {old}}}"#
        )
    };
    for (scaling, want) in [
        (
            r#"{"type": "linear", "factor": 0}"#.to_owned(),
            "rope.scaling.factor is 0: it must be a finite number greater than 0",
        ),
        (r#"{"type": "linear", "factor": -2}"#.to_owned(), "rope.scaling.factor is -2"),
        (llama3("8", "0", "4", "8192"), "rope.scaling.low_freq_factor is 0"),
        (llama3("8", "1", "4", "-1"), "rope.scaling.original_max_position_embeddings is -1"),
        (
            llama3("8", "4", "4", "8192"),
            "rope.scaling.high_freq_factor is 4: it must be greater than low_freq_factor",
        ),
        (
            r#"{"type": "yarn", "factor": 4, "original_max_position_embeddings": 64, "beta_fast": 0}"#.to_owned(),
            "rope.scaling.beta_fast is 0",
        ),
        (
            r#"{"type": "yarn", "factor": 4, "original_max_position_embeddings": 64, "attention_factor": -1}"#.to_owned(),
            "rope.scaling.attention_factor is -1",
        ),
    ] {
        let e = with(&scaling).unwrap_err();
        assert!(e.to_string().starts_with(want), "{e} should start with {want}");
        assert_eq!(e.field().as_str(), "rope");
    }
    for (scaling, want) in [
        (
            r#"{"type": "dynamic", "factor": 4}"#,
            "unknown variant `dynamic`, expected one of `linear`, `llama3`, `yarn`",
        ),
        (r#"{"type": "yarn", "factor": 4}"#, "missing field `original_max_position_embeddings`"),
        (r#"{"type": "linear"}"#, "missing field `factor`"),
        (r#"{"type": "linear", "factor": 2, "low_freq_factor": 1}"#, "unknown field `low_freq_factor`"),
    ] {
        let e = with(scaling).unwrap_err();
        assert!(e.to_string().contains(want), "{e} should contain {want}");
    }
    let words = |scaling: &str| {
        let trace = with(scaling).unwrap();
        trace.steps.iter().find(|s| s.name == StepName::QRot).unwrap().op.clone()
    };
    assert!(words(r#"{"type": "linear", "factor": 2.5}"#).ends_with(
        "θ_i scaled, \"linear\" with factor 2.5: every θ_i divided by 2.5 (position interpolation)"
    ));
    let w = words(&llama3("8", "1", "4", "8192"));
    assert!(
        w.contains("\"llama3\" (Llama 3.1) with factor 8, low_freq_factor 1, high_freq_factor 4, original_max_position_embeddings 8192: a θ_i whose wavelength 2π/θ_i is over 8192 / 1 is divided by 8, one under 8192 / 4 is kept"),
        "{w}"
    );
    let w =
        words(r#"{"type": "yarn", "factor": 4, "original_max_position_embeddings": 64, "truncate": false}"#);
    assert!(
        w.contains("\"yarn\" (YaRN) with factor 4, original_max_position_embeddings 64, beta_fast 32, beta_slow 1, not truncated: a pair that turns more than 32 times in 64 positions is kept"),
        "{w}"
    );
    let base_one = attention_engine::run_json(
        r#"{"sentences": ["a b"], "d_model": 4, "n_heads": 1, "rope": {"style": "half", "base": 1, "scaling": {"type": "yarn", "factor": 4, "original_max_position_embeddings": 64}}}"#,
    )
    .unwrap_err();
    assert!(base_one.to_string().contains("rope.base must not be 1"), "{base_one}");
}

/// YaRN worked by hand: base 10000, r = 8 gives θ = 1, 0.1, 0.01, 0.001; with 4096 original
/// positions, a pair makes 32 turns at index 8·ln(4096/(64π))/(2·ln 10000) = 1.31 (floored
/// to 1) and 1 turn at 2.81 (ceiled to 3), so pairs 0 and 1 are kept, 2 is half divided by
/// the factor 4, 3 divided; and cos and sin are multiplied by 0.1·ln 4 + 1.
#[test]
fn yarn_frequencies_follow_the_ramp() {
    let yarn = |truncate: bool, attention_factor: Option<f64>| Rope {
        scaling: Some(RopeScaling::Yarn {
            factor: 4.0,
            original_max_position_embeddings: 4096.0,
            beta_fast: 32.0,
            beta_slow: 1.0,
            attention_factor,
            truncate,
        }),
        ..Rope::new(RopeStyle::Half)
    };
    let rope = yarn(true, None);
    let theta: Vec<f64> = (0..4).map(|i| rope.inv_freq(i, 8)).collect();
    assert_eq!(theta[0], 1.0);
    assert!((theta[1] - 0.1).abs() < 1e-16);
    assert!((theta[2] - (0.5 * 0.01 / 4.0 + 0.5 * 0.01)).abs() < 1e-17, "{}", theta[2]);
    assert!((theta[3] - 0.001 / 4.0).abs() < 1e-18);
    assert!((rope.attention_factor() - (0.1 * 4f64.ln() + 1.0)).abs() < 1e-15);
    assert_eq!(yarn(true, Some(1.5)).attention_factor(), 1.5);
    // not truncated: the ramp runs from 1.31 to 2.81, so pair 1 is kept and pair 2 blended by (2 − 1.31) / 1.5
    let untruncated = yarn(false, None);
    let low = 8.0 * (4096.0 / (64.0 * std::f64::consts::PI)).ln() / (2.0 * 10000f64.ln());
    let high = 8.0 * (4096.0 / (2.0 * std::f64::consts::PI)).ln() / (2.0 * 10000f64.ln());
    let ramp = (2.0 - low) / (high - low);
    assert!((untruncated.inv_freq(2, 8) - (ramp * 0.01 / 4.0 + (1.0 - ramp) * 0.01)).abs() < 1e-17);
    assert_eq!(untruncated.inv_freq(1, 8), 0.1);
}

/// Llama 3's three wavelength ranges, each pair's frequency against the formula worked by
/// hand: base 10000, r = 8 gives θ = 1, 0.1, 0.01, 0.001 (wavelengths 6.3, 63, 628, 6283);
/// with L = 2048, low 2 and high 8 the first two are kept (under 256), the last divided by 8
/// (over 1024), and 628 blended with s = (2048/628.3 − 2) / 6.
#[test]
fn llama3_frequencies_follow_the_three_ranges() {
    let rope = Rope {
        scaling: Some(RopeScaling::Llama3 {
            factor: 8.0,
            low_freq_factor: 2.0,
            high_freq_factor: 8.0,
            original_max_position_embeddings: 2048.0,
        }),
        ..Rope::new(RopeStyle::Half)
    };
    let theta: Vec<f64> = (0..4).map(|i| rope.inv_freq(i, 8)).collect();
    assert_eq!(theta[0], 1.0);
    assert!((theta[1] - 0.1).abs() < 1e-16);
    let s = (2048.0 * 0.01 / (2.0 * std::f64::consts::PI) - 2.0) / 6.0;
    assert!((theta[2] - ((1.0 - s) * 0.01 / 8.0 + s * 0.01)).abs() < 1e-17, "{}", theta[2]);
    assert!((theta[3] - 0.001 / 8.0).abs() < 1e-18);
    let linear = Rope { scaling: Some(RopeScaling::Linear { factor: 4.0 }), ..Rope::new(RopeStyle::Half) };
    assert_eq!(linear.angle(3, 0, 8), 0.75, "position 3 turns as position 3/4 would");
}

/// Multi-head latent attention written from DeepSeek-V2's equations (arXiv 2405.04434,
/// eqs. 9-19), one number at a time: every head's key is its own `c_KV · W_UK` and the one
/// shared RoPE key, the scores the scale's, then the softcap, ALiBi, the mask, the softmax
/// (with a sink) and `W_O`. Returns the weights and the output.
fn slow_mla(s: &Scenario, trace: &Trace) -> (Vec<f64>, Vec<f64>) {
    let m = s.mla.as_ref().unwrap();
    let w = m.weights.as_ref().unwrap();
    let (h, d) = (s.n_heads, s.d_model);
    let (r_kv, d_nope, d_rope, d_v) = (m.kv_lora_rank, m.qk_nope_head_dim, m.qk_rope_head_dim, m.v_head_dim);
    let d_k = d_nope + d_rope;
    let rows = |name: &str| to_vec3(&get(trace, name).data);
    let positions = s.positional == Positional::Sinusoidal;
    let x = rows(if positions { "x_pe" } else { "x" });
    let x_kv = match (s.kv_sentences.is_some(), positions) {
        (true, true) => rows("x_kv_pe"),
        (true, false) => rows("x_kv"),
        (false, _) => x.clone(),
    };
    let lin = |v: &[f64], m: &[Vec<f64>], bias: &[f64]| -> Vec<f64> {
        (0..m[0].len())
            .map(|j| (0..v.len()).map(|i| v[i] * m[i][j]).sum::<f64>() + bias.get(j).unwrap_or(&0.0))
            .collect()
    };
    let rms = |v: &[f64], weight: &[f64]| -> Vec<f64> {
        let r = (v.iter().map(|x| x * x).sum::<f64>() / v.len() as f64 + m.eps).sqrt();
        v.iter().enumerate().map(|(c, x)| weight.get(c).unwrap_or(&1.0) * (x / r)).collect()
    };
    // RoPE turns each pair in place: the scores do not depend on where the turned pairs
    // are written afterwards
    let turn = |v: &[f64], pos: usize| -> Vec<f64> {
        let Some(rope) = s.rope else { return v.to_vec() };
        turn_plain(v, pos, rope.style, rope.base, v.len(), rope.scaling)
    };
    let factor = s.rope.and_then(|r| r.scaling).map_or(1.0, |sc| sc.factor());
    let mscale =
        m.mscale_all_dim.map_or(1.0, |a| if factor > 1.0 { 0.1 * a * factor.ln() + 1.0 } else { 1.0 });
    let scale = s.scale.unwrap_or(1.0 / (d_k as f64).sqrt()) * mscale * mscale;
    let slopes = paper_slopes(h);
    let (mut weights, mut output) = (vec![], vec![]);
    for (bi, (xq, xkv)) in x.iter().zip(&x_kv).enumerate() {
        let q: Vec<Vec<f64>> = xq
            .iter()
            .map(|v| match m.q_lora_rank {
                None => lin(v, &w.w_q, &w.b_q),
                Some(_) => lin(&rms(&lin(v, &w.w_q_a, &w.b_q_a), &w.q_a_norm), &w.w_q_b, &w.b_q_b),
            })
            .collect();
        let kv_a: Vec<Vec<f64>> = xkv.iter().map(|v| lin(v, &w.w_kv_a, &w.b_kv_a)).collect();
        let c_kv: Vec<Vec<f64>> = kv_a.iter().map(|a| rms(&a[..r_kv], &w.kv_a_norm)).collect();
        let kv_b: Vec<Vec<f64>> = c_kv.iter().map(|c| lin(c, &w.w_kv_b, &w.b_kv_b)).collect();
        let mut concat = vec![vec![0.0; h * d_v]; q.len()];
        let mut head_weights = vec![vec![]; h];
        for (hi, hw) in head_weights.iter_mut().enumerate() {
            for (i, qi) in q.iter().enumerate() {
                let q_nope = &qi[hi * d_k..hi * d_k + d_nope];
                let q_rope = turn(&qi[hi * d_k + d_nope..(hi + 1) * d_k], i);
                let mut row: Vec<f64> = (0..xkv.len())
                    .map(|j| {
                        if trace.mask.is_blocked(bi, i, j) {
                            return s.mask.fill.value();
                        }
                        let k_nope = &kv_b[j][hi * (d_nope + d_v)..hi * (d_nope + d_v) + d_nope];
                        let k_rope = turn(&kv_a[j][r_kv..], j);
                        let dot = (0..d_nope).map(|c| q_nope[c] * k_nope[c]).sum::<f64>()
                            + (0..d_rope).map(|c| q_rope[c] * k_rope[c]).sum::<f64>();
                        let score = s.softcap.map_or(dot * scale, |c| c * (dot * scale / c).tanh());
                        let distance =
                            if s.mask.causal { j as f64 - i as f64 } else { -(i.abs_diff(j) as f64) };
                        score + if s.alibi { slopes[hi] * distance } else { 0.0 }
                    })
                    .collect();
                let sink = s.sinks.as_ref().map(|k| k[hi]);
                let max = row.iter().copied().fold(sink.unwrap_or(f64::NEG_INFINITY), f64::max);
                let sum =
                    row.iter().map(|v| (v - max).exp()).sum::<f64>() + sink.map_or(0.0, |k| (k - max).exp());
                for v in &mut row {
                    *v = (*v - max).exp() / sum;
                }
                for c in 0..d_v {
                    let at = hi * (d_nope + d_v) + d_nope + c;
                    concat[i][hi * d_v + c] = row.iter().zip(&kv_b).map(|(p, kv)| p * kv[at]).sum();
                }
                hw.push(row);
            }
        }
        weights.extend(head_weights.into_iter().flatten().flatten());
        output.extend(concat.iter().flat_map(|c| lin(c, &w.w_o, &w.b_o)));
    }
    let _ = d;
    (weights, output)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(150))]

    /// MLA drawn with every option the other proptests draw (batches, cross-attention,
    /// positions, masks, windows, both RoPE styles with every scaling, ALiBi, a scale, a
    /// softcap, sinks), with and without query compression and mscale_all_dim.
    #[test]
    fn mla_agrees_with_the_slow_reference(s in arb_scenario(), draw in arb_mla()) {
        let s = with_mla(s, draw);
        let trace = run(&s).unwrap();
        trace.check_invariants().unwrap();
        let (weights, output) = slow_mla(&s, &trace);
        check_close("weights", &data(get(&trace, "weights")), &weights, 1e-9);
        check_close("output", &data(get(&trace, "output")), &output, 1e-9);
    }
}

/// The parameter count the page writes: the projections, then QK-norm's two weights of d_k
/// and one sink per head, each counted by hand; none under MLA.
#[test]
fn parameters_count_the_norms_and_sinks_too() {
    let mut s = scenario(&["the cat sat"], 4, 2);
    assert_eq!(run(&s).unwrap().parameters(), Some(("4·d_model² + 4·d_model".to_owned(), 80)));
    s.qk_norm = Some(attention_engine::scenario::QkNorm::per_head());
    s.sinks = Some(vec![1.0, -1.0]);
    // 80 + 2·d_k (2·2) + h (2)
    assert_eq!(
        run(&s).unwrap().parameters(),
        Some(("4·d_model² + 4·d_model + 2·d_k (QK-norm) + h (sinks)".to_owned(), 86))
    );
    // d_head 3, h_kv 1: W_Q 4×6 and W_O 6×4, W_K and W_V 4×3, biases 6 + 4 + 3 + 3 = 94,
    // + 2·3 + 2
    s.d_head = Some(3);
    s.n_kv_heads = Some(1);
    let (formula, n) = run(&s).unwrap().parameters().unwrap();
    assert!(formula.starts_with("2·d_model·h·d_k + h·d_k"), "{formula}");
    assert_eq!(n, 24 + 24 + 12 + 12 + 16 + 6 + 2);
    // OLMo 2's norm over the whole projection: weights of h·d_k = 6 and h_kv·d_k = 3
    s.qk_norm.as_mut().unwrap().whole_projection = true;
    let (formula, n) = run(&s).unwrap().parameters().unwrap();
    assert!(formula.ends_with("+ h·d_k + h_kv·d_k (QK-norm) + h (sinks)"), "{formula}");
    assert_eq!(n, 24 + 24 + 12 + 12 + 16 + 9 + 2);
}

/// Grouped-query attention's shape path: `unsqueeze(2).expand` gives each key/value head
/// its group of `h / h_kv` copies, `(B, h_kv, h/h_kv, T, d_k)`, which the reshape merges
/// into `h` heads without changing the count of numbers.
#[test]
fn the_repeat_path_expands_each_key_head_to_its_group() {
    let mut s = scenario(&["the cat sat on the mat"], 8, 4);
    s.n_kv_heads = Some(2);
    let trace = run(&s).unwrap();
    for name in ["k_rep", "v_rep"] {
        let path = &get(&trace, name).shape_path;
        assert_eq!(path[0].op, "unsqueeze(2).expand");
        assert_eq!(path[0].shape, vec![1, 2, 2, 6, 2], "{name}");
        assert_eq!(path[0].dims[2].as_str(), "h/h_kv");
        let count = |shape: &[usize]| shape.iter().product::<usize>();
        assert_eq!(count(&path[0].shape), count(&path[1].shape), "{name}: the reshape keeps every number");
    }
}
