//! Times `attention_engine::run` in wasm: B=1, d_model=512, h=8, seeded
//! projections, the same scenario as `crates/engine/benches/engine.rs`.

use std::collections::BTreeMap;

use attention_engine::{run, MaskConfig, Positional, ProjectionKind, Projections, Scenario};
use wasm_bindgen::prelude::*;

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(js_namespace = performance)]
    fn now() -> f64;
}

fn scenario(t: usize) -> Scenario {
    let words: Vec<String> = (0..t).map(|i| format!("w{}", i % 97)).collect();
    Scenario {
        sentences: vec![words.join(" ")],
        kv_sentences: None,
        d_model: 512,
        n_heads: 8,
        embeddings: BTreeMap::new(),
        projections: Projections::Named(ProjectionKind::Seeded),
        seed: 0,
        mask: MaskConfig::default(),
        positional: Positional::None,
    }
}

/// Milliseconds of each of `runs` calls of `attention_engine::run` with T tokens (after one
/// warm-up call); an empty list if the engine refuses the scenario.
#[wasm_bindgen]
pub fn engine_times(t: usize, runs: usize) -> Vec<f64> {
    let s = scenario(t);
    if run(&s).is_err() {
        return Vec::new();
    }
    (0..runs)
        .map(|_| {
            let start = now();
            let trace = run(&s);
            let ms = now() - start;
            drop(trace);
            ms
        })
        .collect()
}
