//! Fuzz target: scenario JSON text → `engine::run_json` → trace or error.
//!
//! The engine promises never to panic on input (ARCHITECTURE.md, "Invariants"). Any input
//! must give `Ok(trace)` or `Err(EngineError)`; a panic, an abort or a sanitizer report is
//! a crash. On `Ok`, the numeric invariants are checked too: no infinity outside the
//! `masked` step, and NaN weights only in the fully masked rows under the `-inf` fill.
//!
//! Run with `make fuzz` (see README.md, "Fuzzing").

#![no_main]

use attention_lens::engine::{self, Fill};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    // The page and the command line only ever hand the engine text.
    let Ok(text) = std::str::from_utf8(data) else { return };
    let Ok(trace) = engine::run_json(text) else { return };

    for step in &trace.steps {
        if step.name != "masked" {
            assert!(step.data.iter().all(|v| !v.is_infinite()), "infinity in step {}", step.name);
        }
        assert_eq!(step.shape, step.data.shape(), "step {} shape", step.name);
    }
    let weights = trace.step("weights").expect("every trace has a weights step");
    for (idx, v) in weights.data.indexed_iter() {
        if v.is_nan() {
            let (b, i) = (idx[0], idx[2]);
            assert!(
                trace.mask.config.fill == Fill::NegInf && trace.fully_masked_rows.contains(&[b, i]),
                "NaN weight at {idx:?} outside a fully masked -inf row"
            );
        }
    }
    // Every trace can be written out as JSON (the page's "Export trace").
    assert!(!trace.to_json().is_empty());
});
