//! Fuzz target: scenario JSON text → `attention_engine::run_json` → trace or error.
//!
//! The engine promises never to panic on input (ARCHITECTURE.md, "Invariants"). Any input
//! must give `Ok(trace)` or `Err(EngineError)`; a panic, an abort or a sanitizer report is
//! a crash. On `Ok`, every invariant of `Trace::check_invariants` must hold (the steps
//! and their shapes, the mask, no infinity outside `masked`, NaN only in fully masked
//! `-inf` rows, rows summing to 1), and the trace must write out as JSON.
//!
//! Run with `make fuzz` (see README.md, "Fuzzing").

#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    // The page and the command line only ever hand the engine text.
    let Ok(text) = std::str::from_utf8(data) else { return };
    let Ok(trace) = attention_engine::run_json(text) else { return };

    if let Err(broken) = trace.check_invariants() {
        panic!("{broken}");
    }
    // Every trace can be written out as JSON (the page's "Export trace").
    assert!(!trace.to_json().is_empty());
});
