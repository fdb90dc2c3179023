//! The message format between the page and its engine worker (`src/main.rs`).
//!
//! The messages are the types of [`protocol`] ([`protocol::Request`] from the page,
//! [`protocol::Reply`] from the worker), which both sides encode and decode; no other
//! code reads a message's keys.
//!
//! The page posts `{id, scenario_json}`. The worker answers `{ready: true}` once, when it
//! can take requests, then for each request either
//! `{id, meta, data: [Float64Array, …], blocked: Uint8Array, times}` or
//! `{id, error, field, times}`:
//!
//! - `meta` is [`Trace::to_json`] with every step's numbers left out (`"data": []`) and
//!   `mask.blocked` empty, wrapped with the `kv_sources` the trace JSON does not hold:
//!   `{"trace": …, "kv_sources": …}`. It is small (tokens, shapes, words).
//! - `data[i]` holds step `i`'s numbers, row-major, and `blocked` the mask, one byte per
//!   cell: both are transferred, not copied, so a 3.4 M-number trace (B = 4, T = 128,
//!   d_model = 256, h = 8) crosses in one `memcpy` on each side instead of as 60 MB of
//!   JSON text. (The worker copies each step's buffer once, into its `Float64Array`.)
//! - `error` and `field` are the engine's error as a [`RunError`]: its message and the
//!   control it is about, so the page shows it by that control without running the
//!   engine itself.
//! - `times` = `[received, computed, sent]`: the worker's clock (ms since the epoch) when
//!   the request arrived, when the engine was done, and when the answer left; the page
//!   marks them (`al-worker-received`, …) for the benchmarks.
//!
//! The page may also post `{warm: scenario_json}` once, when the worker is ready: the
//! worker computes it and answers nothing (its first run is the slow one).
//!
//! Once the page has read an answer it sends the buffers back, `{recycle: [ArrayBuffer,
//! …]}` (transferred), and the worker fills them for the next answer of the same size
//! instead of new ones, whose pages the system would have to commit again.
//!
//! The worker makes the parts with [`compute`], [`meta`], [`numbers`] and [`mask_bytes`]
//! ([`split`] puts them together, for the tests) and [`join`] puts them back on the page;
//! all are plain Rust, tested natively.

use std::borrow::Cow;

use attention_engine::embedding::Source;
use attention_engine::error::Field;
use attention_engine::{weights, EngineError, Scenario, Trace};
use ndarray::{ArrayD, IxDyn};
use serde::Deserialize;

pub mod protocol;
pub mod train;

/// An engine error as the page shows it, wherever the engine ran: the control it is
/// about ([`EngineError::field`]) and its message. The worker sends it across
/// ([`protocol::Reply::Error`]), so the page need not run the engine again to know where
/// to show it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunError {
    field: Field,
    message: String,
}

impl RunError {
    /// An error about `field` that says `message`.
    pub fn new(field: Field, message: String) -> Self {
        Self { field, message }
    }

    /// The control the error is about.
    pub fn field(&self) -> Field {
        self.field
    }

    /// What the error says.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl From<&EngineError> for RunError {
    fn from(e: &EngineError) -> Self {
        Self { field: e.field(), message: e.to_string() }
    }
}

impl From<EngineError> for RunError {
    fn from(e: EngineError) -> Self {
        Self::from(&e)
    }
}

impl std::fmt::Display for RunError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for RunError {}

/// A trace taken apart for `postMessage`.
#[derive(Debug, Clone, PartialEq)]
pub struct Parts {
    /// The trace without its numbers, and its `kv_sources`, as JSON.
    pub meta: String,
    /// Each step's numbers, row-major, in the trace's step order.
    pub data: Vec<Vec<f64>>,
    /// The mask, `1` = blocked, row-major `[b][query][key]`.
    pub blocked: Vec<u8>,
}

/// Takes a trace apart as the worker does ([`meta`], [`numbers`], [`mask_bytes`]), into
/// owned parts.
pub fn split(mut trace: Trace) -> Parts {
    let meta = meta(&mut trace);
    let data = trace.steps.iter().map(|s| numbers(&s.data).into_owned()).collect();
    Parts { meta, data, blocked: mask_bytes(&trace) }
}

/// A step's numbers in row-major order, as the worker copies them into a `Float64Array`:
/// the array's own memory when it is laid out so (the engine's arrays are), else a copy.
/// (One copy per step: BENCHMARKS.md, 1.6 "One copy in the worker".)
pub fn numbers(data: &ArrayD<f64>) -> Cow<'_, [f64]> {
    match data.as_slice() {
        Some(flat) => Cow::Borrowed(flat),
        None => Cow::Owned(data.iter().copied().collect()),
    }
}

/// The mask as the worker sends it, one byte per cell, `1` = blocked.
pub fn mask_bytes(trace: &Trace) -> Vec<u8> {
    trace.mask.blocked.iter().map(|&b| u8::from(b)).collect()
}

/// [`Parts::meta`] of a trace the worker keeps (to reuse its numbers for the next
/// request, [`attention_engine::run_reusing`]): the numbers and the mask are taken out
/// while the JSON is written, then put back, so the trace is as it was.
pub fn meta(trace: &mut Trace) -> String {
    let data: Vec<ArrayD<f64>> =
        trace.steps.iter_mut().map(|s| std::mem::replace(&mut s.data, ArrayD::zeros(IxDyn(&[0])))).collect();
    let blocked = std::mem::take(&mut trace.mask.blocked);
    let kv_sources = serde_json::to_string(&trace.kv_sources).unwrap_or_else(|_| "null".into());
    let meta = format!("{{\"kv_sources\":{kv_sources},\"trace\":{}}}", trace.to_json());
    for (step, numbers) in trace.steps.iter_mut().zip(data) {
        step.data = numbers;
    }
    trace.mask.blocked = blocked;
    meta
}

/// What the worker computes for a request: the scenario's trace, reusing the numbers of
/// the `previous` trace it computed where the inputs did not change (the same numbers,
/// bit for bit), or the engine's message.
///
/// # Errors
/// The engine's error.
pub fn compute(scenario_json: &str, previous: Option<&Trace>) -> Result<Trace, RunError> {
    Scenario::from_json(scenario_json)
        .and_then(|s| attention_engine::run_reusing(&s, previous))
        .map_err(RunError::from)
}

#[derive(Deserialize)]
struct Meta {
    kv_sources: Option<Vec<Vec<Source>>>,
    trace: Trace,
}

/// Puts a trace back together on the page: the JSON, the numbers, the mask, and the
/// projections rebuilt from the scenario (`weights::build` keeps the seeded ones of the
/// last seeds, so this is a lookup after the first time).
///
/// # Errors
/// Unreadable JSON, or numbers that do not fit a step's shape.
pub fn join(parts: Parts, scenario: &Scenario) -> Result<Trace, String> {
    let Parts { meta, data, blocked } = parts;
    let Meta { kv_sources, mut trace } = serde_json::from_str(&meta).map_err(|e| e.to_string())?;
    if data.len() != trace.steps.len() {
        return Err(format!("{} steps but {} lists of numbers", trace.steps.len(), data.len()));
    }
    for (step, numbers) in trace.steps.iter_mut().zip(data) {
        step.data = ArrayD::from_shape_vec(IxDyn(&step.shape), numbers)
            .map_err(|e| format!("step {}: {e}", step.name))?;
    }
    let [b, t_q, t_k] = trace.mask.shape;
    if blocked.len() != b * t_q * t_k {
        return Err(format!("the mask has {} cells, not {b}·{t_q}·{t_k}", blocked.len()));
    }
    trace.mask.blocked = blocked.into_iter().map(|x| x != 0).collect();
    trace.kv_sources = kv_sources;
    trace.params = if scenario.d_model == trace.sizes.d_model {
        let kv_width = trace.sizes.kv_heads() * trace.sizes.d_k;
        // the layer shown's projections: seeded ones of layer l are drawn from seed + l
        let seed = scenario.layer_seed(trace.layer.saturating_sub(1));
        weights::build(&scenario.projections, scenario.d_model, kv_width, seed).map_err(|e| e.to_string())?
    } else {
        return Err(format!(
            "the trace has d_model = {}, the scenario {}",
            trace.sizes.d_model, scenario.d_model
        ));
    };
    Ok(trace)
}

/// The parts the worker posts for a request it computes from scratch (no previous
/// trace): the scenario's JSON in, the trace's parts or the engine's error message out.
///
/// # Errors
/// The engine's error.
pub fn answer(scenario_json: &str) -> Result<Parts, RunError> {
    compute(scenario_json, None).map(split)
}

/// The Python export of a scenario (the file [`protocol::ExportRequest`] asks for): the
/// worker runs the scenario and writes the script or notebook of it, so the export writer
/// lives in the worker's wasm, not in the page's.
///
/// # Errors
/// The engine's error, or why the export refuses the run
/// (`attention_export::refusal`), as the page shows it.
pub fn export(kind: protocol::ExportKind, scenario_json: &str) -> Result<String, String> {
    let scenario = Scenario::from_json(scenario_json).map_err(|e| e.to_string())?;
    if let Some(why) = attention_export::refusal(&scenario) {
        return Err(why);
    }
    let trace = attention_engine::run(&scenario).map_err(|e| e.to_string())?;
    Ok(match kind {
        protocol::ExportKind::Script => attention_export::python_script(&scenario, &trace),
        protocol::ExportKind::Notebook => attention_export::notebook(&scenario, &trace),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The worker's export is the engine's writer on the engine's run, for both files;
    /// a run the export refuses, or a scenario the engine refuses, is an error that says why.
    #[test]
    fn export_writes_the_engines_files_or_says_why_not() {
        use protocol::ExportKind;
        let json = r#"{"sentences": ["the cat sat", "a dog ran far"], "d_model": 4, "n_heads": 2,
            "projections": "seeded", "mask": {"causal": true, "padding": "keys_and_queries"}}"#;
        let scenario = Scenario::from_json(json).unwrap();
        let trace = attention_engine::run(&scenario).unwrap();
        assert_eq!(
            export(ExportKind::Script, json).unwrap(),
            attention_export::python_script(&scenario, &trace)
        );
        assert_eq!(
            export(ExportKind::Notebook, json).unwrap(),
            attention_export::notebook(&scenario, &trace)
        );
        let layered = json.replace("\"n_heads\": 2,", "\"n_heads\": 2, \"n_layers\": 2,");
        let refused = export(ExportKind::Script, &layered).unwrap_err();
        assert!(refused.contains("n_layers = 2"), "{refused}");
        let bad = export(ExportKind::Script, &json.replace("\"d_model\": 4", "\"d_model\": 5")).unwrap_err();
        assert!(!bad.is_empty());
        assert_eq!(ExportKind::from_name("notebook"), Some(ExportKind::Notebook));
        assert_eq!(ExportKind::from_name("pdf"), None);
    }

    fn check(scenario_json: &str) {
        let scenario = Scenario::from_json(scenario_json).unwrap();
        let direct = attention_engine::run(&scenario).unwrap();
        let parts = answer(scenario_json).unwrap();
        assert!(parts.meta.len() < 20_000, "the numbers are not in the JSON: {} bytes", parts.meta.len());
        let back = join(parts, &scenario).unwrap();
        // NaN ≠ NaN, so compare the JSON (which spells it), then what the JSON leaves out
        assert_eq!(back.to_json(), direct.to_json());
        assert_eq!(back.kv_sources, direct.kv_sources);
        assert_eq!(back.params, direct.params);
        assert_eq!(back.mask.blocked, direct.mask.blocked);
        for (a, b) in back.steps.iter().zip(&direct.steps) {
            assert_eq!(a.data.shape(), b.data.shape(), "{}", a.name);
        }
    }

    /// The worker keeps its last trace to reuse: `meta` leaves it as it was, and the next
    /// request computed from it is a fresh run's, bit for bit.
    #[test]
    fn a_kept_trace_is_unchanged_and_reused() {
        let first = r#"{"sentences": ["the cat sat", "a dog ran far"], "d_model": 4, "n_heads": 2,
            "projections": "seeded", "mask": {"causal": true, "padding": "keys_and_queries", "fill": "neg_inf"}}"#;
        let mut kept = compute(first, None).unwrap();
        let fresh = attention_engine::run_json(first).unwrap();
        let meta_kept = meta(&mut kept);
        assert_eq!(kept.to_json(), fresh.to_json());
        assert_eq!(kept.mask.blocked, fresh.mask.blocked);
        assert_eq!(meta_kept, split(fresh).meta);
        let next = first.replace("the cat sat", "the cow sat");
        let reused = compute(&next, Some(&kept)).unwrap();
        assert_eq!(reused.to_json(), attention_engine::run_json(&next).unwrap().to_json());
        assert!(compute("{", Some(&kept)).is_err());
    }

    #[test]
    fn a_trace_survives_the_trip() {
        // self-attention, seeded, causal with -inf: fully masked rows are NaN
        check(
            r#"{"sentences": ["the cat sat", "I bought a baseball bat today"], "d_model": 6, "n_heads": 3,
                "projections": "seeded", "seed": 7, "mask": {"causal": true, "padding": "keys_and_queries", "fill": "neg_inf"}}"#,
        );
        // cross-attention with positions: kv_sources and x_kv
        check(
            r#"{"sentences": ["a b"], "kv_sentences": ["one two three"], "d_model": 4, "n_heads": 2,
                "positional": "sinusoidal"}"#,
        );
        // explicit weights and embeddings
        check(
            r#"{"sentences": ["x y"], "d_model": 2, "n_heads": 1, "embeddings": {"x": [1, 0], "y": [0, 1]},
                "projections": {"w_q": [[1, 2], [3, 4]], "w_k": [[1, 0], [0, 1]], "w_v": [[2, 0], [0, 2]], "w_o": [[1, 0], [0, 1]]}}"#,
        );
        // three layers, the second shown: its seeded weights (seed 7 + 1) and the whole stream
        let layered = r#"{"sentences": ["the cat sat", "a dog"], "d_model": 4, "n_heads": 2, "projections": "seeded",
            "seed": 7, "positional": "sinusoidal", "n_layers": 3, "layer": 2,
            "mask": {"causal": true, "padding": "keys", "fill": "neg_inf"}}"#;
        check(layered);
        let back = join(answer(layered).unwrap(), &Scenario::from_json(layered).unwrap()).unwrap();
        assert_eq!((back.n_layers, back.layer, back.resid.len()), (3, 2, 4 * 2 * 3 * 4));
    }

    #[test]
    fn numbers_come_out_row_major_whatever_the_layout() {
        let a = ArrayD::from_shape_vec(IxDyn(&[2, 3]), vec![1., 2., 3., 4., 5., 6.]).unwrap();
        // the standard layout is read where it is, no copy
        let read = numbers(&a);
        assert!(matches!(read, Cow::Borrowed(_)));
        assert_eq!(read.as_ptr(), a.as_ptr());
        assert_eq!(&*read, &[1., 2., 3., 4., 5., 6.]);
        // transposed: copied in row-major order of the transposed shape
        assert_eq!(&*numbers(&a.clone().reversed_axes()), &[1., 4., 2., 5., 3., 6.]);
        // a part of a larger buffer (offset ≠ 0, shorter than the buffer)
        let mut c = a.clone();
        c.slice_collapse(ndarray::s![1.., ..]);
        assert_eq!(&*numbers(&c), &[4., 5., 6.]);
        let mut d = a;
        d.slice_collapse(ndarray::s![..1, ..]);
        assert_eq!(&*numbers(&d), &[1., 2., 3.]);
    }

    #[test]
    fn bad_parts_are_errors() {
        let json = r#"{"sentences": ["a b"], "d_model": 2, "n_heads": 1}"#;
        let scenario = Scenario::from_json(json).unwrap();
        let mut parts = answer(json).unwrap();
        parts.data[0].pop();
        assert!(join(parts, &scenario).is_err());
        let mut parts = answer(json).unwrap();
        parts.blocked.push(0);
        assert!(join(parts, &scenario).is_err());
        assert!(answer(r#"{"sentences": [], "d_model": 2, "n_heads": 1}"#).is_err());
    }

    /// The worker's error says which control it is about, as the page's own run would.
    #[test]
    fn an_engine_error_crosses_with_its_control() {
        let cases = [
            (r#"{"sentences": [], "d_model": 2, "n_heads": 1}"#, Field::Sentences),
            (r#"{"sentences": ["a"], "d_model": 3, "n_heads": 2}"#, Field::NHeads),
            (r#"{"sentences": ["a"], "d_model": 0, "n_heads": 1}"#, Field::DModel),
            (
                r#"{"sentences": ["a"], "d_model": 2, "n_heads": 1, "embeddings": {"a": [1]}}"#,
                Field::Embeddings,
            ),
            (r#"{"sentences": "#, Field::Scenario),
            (r#"{"sentences": ["a"], "d_model": 2, "n_heads": 1, "n_layers": 5}"#, Field::NLayers),
            (r#"{"sentences": ["a"], "d_model": 2, "n_heads": 1, "n_layers": 2, "layer": 3}"#, Field::Layer),
        ];
        for (json, field) in cases {
            let e = answer(json).unwrap_err();
            let direct = Scenario::from_json(json).and_then(|s| attention_engine::run(&s)).unwrap_err();
            assert_eq!(e, RunError::from(&direct), "{json}");
            assert_eq!(e.field(), field, "{json}: {e}");
            assert_eq!(e.to_string(), direct.to_string());
        }
    }
}
