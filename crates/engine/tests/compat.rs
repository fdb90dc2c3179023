//! Old files still load, and old traces are still what the engine writes.
//!
//! `tests/golden/*.trace.json` were written by the engine before it became a crate of its
//! own (commit 47ce063, `cargo run --example trace`). Every scenario there must still
//! load, and the new engine must write the same trace JSON, number for number, except
//! where the old one was wrong: in cross-attention, the `k` and `v` steps said
//! `(B, T_q, d_model)`, `k.transpose(-2, -1)` said `(B, h, d_k, T)` with `T_q`'s size, and
//! concat's `transpose(1, 2)` said `(B, T, h, d_k)` instead of `(B, T_q, h, d_k)`; and the
//! PyTorch lines said `k = self.w_k(x)` (not `x_kv`) and `view(B, T, …)` (not `T_q`/`T_k`).

use std::path::Path;

use attention_engine::{run_json, Scenario, StepName, Trace};
use serde_json::{json, Value};

fn golden() -> Vec<(String, String, Value)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden");
    let mut out = Vec::new();
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        if let Some(stem) = name.strip_suffix(".scenario.json") {
            let scenario = std::fs::read_to_string(&path).unwrap();
            let trace = std::fs::read_to_string(dir.join(format!("{stem}.trace.json"))).unwrap();
            out.push((stem.to_string(), scenario, serde_json::from_str(&trace).unwrap()));
        }
    }
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

/// The old trace with the cross-attention labels corrected.
fn corrected(mut old: Value) -> Value {
    let Some(t_k) = old["sizes"]["T_k"].as_u64() else { return old };
    for step in old["steps"].as_array_mut().unwrap() {
        let name = step["name"].as_str().unwrap().to_string();
        if let Some(line) = step["pytorch"].as_str() {
            let line = match name.as_str() {
                "k" | "v" => line.replace("(x)", "(x_kv)"),
                "q_heads" | "concat" => line.replace("view(B, T,", "view(B, T_q,"),
                "k_heads" | "v_heads" => line.replace("view(B, T,", "view(B, T_k,"),
                _ => line.to_string(),
            };
            step["pytorch"] = json!(line);
        }
        match name.as_str() {
            "k" | "v" => step["dims"] = json!(["B", "T_k", "d_model"]),
            "scores" => {
                let path = &mut step["shape_path"][0];
                path["dims"] = json!(["B", "h", "d_k", "T_k"]);
                path["shape"][3] = json!(t_k);
            }
            "concat" => step["shape_path"][0]["dims"] = json!(["B", "T_q", "h", "d_k"]),
            _ => {}
        }
    }
    old
}

#[test]
fn old_scenarios_load_and_old_traces_are_reproduced() {
    let cases = golden();
    assert!(cases.len() >= 12, "only {} golden traces", cases.len());
    for (name, scenario, old) in cases {
        Scenario::from_json(&scenario).unwrap_or_else(|e| panic!("{name}: {e}"));
        let trace = run_json(&scenario).unwrap_or_else(|e| panic!("{name}: {e}"));
        trace.check_invariants().unwrap_or_else(|e| panic!("{name}: {e}"));
        let new: Value = serde_json::from_str(&trace.to_json()).unwrap();
        let want = corrected(old);
        if new != want {
            for (a, b) in new["steps"].as_array().unwrap().iter().zip(want["steps"].as_array().unwrap()) {
                assert_eq!(a, b, "{name}: step {}", a["name"]);
            }
            assert_eq!(new, want, "{name}");
        }
    }
}

/// The bug the typed steps fixed: with queries "a b" and keys/values "one two three four
/// five", the key-side steps are T_k = 5 rows of key tokens.
#[test]
fn cross_attention_key_side_steps_are_labelled_by_the_keys() {
    let trace = run_json(
        r#"{"sentences": ["a b"], "kv_sentences": ["one two three four five"], "d_model": 4, "n_heads": 1, "projections": "identity"}"#,
    )
    .unwrap();
    let text = |s: StepName| {
        let step = trace.step(s).unwrap();
        attention_engine::trace::shape_text(&step.dims, &step.shape)
    };
    assert_eq!(text(StepName::K), "(B, T_k, d_model) = (1, 5, 4)");
    assert_eq!(text(StepName::V), "(B, T_k, d_model) = (1, 5, 4)");
    assert_eq!(text(StepName::XKv), "(B, T_k, d_model) = (1, 5, 4)");
    assert_eq!(text(StepName::KHeads), "(B, h, T_k, d_k) = (1, 1, 5, 4)");
    assert_eq!(text(StepName::Scores), "(B, h, T_q, T_k) = (1, 1, 2, 5)");
    let scores = trace.step(StepName::Scores).unwrap();
    let kt = &scores.shape_path[0];
    assert_eq!(attention_engine::trace::shape_text(&kt.dims, &kt.shape), "(B, h, d_k, T_k) = (1, 1, 4, 5)");
    for s in [StepName::XKv, StepName::K, StepName::V, StepName::KHeads, StepName::VHeads] {
        let step = trace.step(s).unwrap();
        assert!(step.rows_are_keys(), "{s}");
        assert_eq!(trace.tokens_for(s.rows(), 0).unwrap(), ["one", "two", "three", "four", "five"]);
    }
    assert!(trace.step(StepName::Scores).unwrap().cols_are_keys());
    assert_eq!(trace.tokens_for(StepName::Q.rows(), 0).unwrap(), ["a", "b"]);
    // every step the trace has can be named (and so linked to)
    for s in &trace.steps {
        assert_eq!(trace.step_named(s.name.as_str()).map(|x| x.name), Some(s.name));
    }
}

/// Trace JSON read back: the names and axes parse into the typed enums.
#[test]
fn trace_json_names_parse_back() {
    for (name, scenario, _) in golden() {
        let trace: Trace = run_json(&scenario).unwrap();
        let v: Value = serde_json::from_str(&trace.to_json()).unwrap();
        for step in v["steps"].as_array().unwrap() {
            let s: StepName =
                serde_json::from_value(step["name"].clone()).unwrap_or_else(|e| panic!("{name}: {e}"));
            let dims: Vec<attention_engine::Axis> = serde_json::from_value(step["dims"].clone()).unwrap();
            assert_eq!(dims, s.dims(trace.is_cross()), "{name}: {s}");
        }
    }
}

/// `Trace::from_json` reads back what `to_json` wrote, number for number (NaN and the
/// infinities included), and the old golden traces as well; only `params` and
/// `kv_sources`, which the JSON does not hold, are left for the reader.
#[test]
fn trace_json_reads_back() {
    for (name, scenario, old) in golden() {
        let trace = run_json(&scenario).unwrap();
        let json = trace.to_json();
        let back = Trace::from_json(&json).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(back.to_json(), json, "{name}");
        assert_eq!(back.tokens, trace.tokens, "{name}");
        assert_eq!(back.mask.convention, "true = blocked");
        assert_eq!(back.feature_names, trace.feature_names, "{name}");
        for (a, b) in back.steps.iter().zip(&trace.steps) {
            assert_eq!(a.data.shape(), b.data.shape(), "{name}: {}", a.name);
            assert!(!a.numbers_omitted());
        }
        assert_eq!(back.params.q.w().dim(), (0, 0), "{name}: params are not in the JSON");
        assert!(back.kv_sources.is_none());
        // the traces written before the engine was a crate read too
        Trace::from_json(&old.to_string()).unwrap_or_else(|e| panic!("{name} (old): {e}"));
    }
    // a step may omit its numbers; numbers that do not fit the shape are an error
    let trace = run_json(r#"{"sentences": ["a b"], "d_model": 2, "n_heads": 1}"#).unwrap();
    let mut v: Value = serde_json::from_str(&trace.to_json()).unwrap();
    v["steps"][0]["data"] = json!([]);
    let back = Trace::from_json(&v.to_string()).unwrap();
    assert!(back.steps[0].numbers_omitted());
    v["steps"][0]["data"] = json!([1.0, 2.0, 3.0]);
    assert!(Trace::from_json(&v.to_string()).is_err());
}
