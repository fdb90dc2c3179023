//! Times `attention_engine::run` in wasm: B=1, d_model=512, h=8, seeded
//! projections, the same scenario as `crates/engine/benches/engine.rs`; and training
//! steps (`attention_engine::train`, `train_rates`, run by `train.mjs`).

use attention_engine::train::{TrainConfig, Trainer};
use attention_engine::{run, ProjectionKind, Projections, Scenario};
use wasm_bindgen::prelude::*;

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(js_namespace = performance)]
    fn now() -> f64;
}

fn scenario(t: usize) -> Scenario {
    let words: Vec<String> = (0..t).map(|i| format!("w{}", i % 97)).collect();
    let sentence = words.join(" ");
    Scenario {
        projections: Projections::Named(ProjectionKind::Seeded),
        ..Scenario::identity(&[sentence.as_str()], 512, 8)
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

/// Steps per second of `runs` runs of `steps` training steps of `config_json` (after 200
/// warm-up steps), the clock read around each run; an empty list for a bad configuration.
#[wasm_bindgen]
pub fn train_rates(config_json: &str, steps: usize, runs: usize) -> Vec<f64> {
    let Ok(mut trainer) = TrainConfig::from_json(config_json).and_then(|c| Trainer::new(&c)) else {
        return Vec::new();
    };
    trainer.train(200);
    (0..runs)
        .map(|_| {
            let start = now();
            for _ in 0..steps {
                trainer.step();
            }
            steps as f64 * 1000.0 / (now() - start)
        })
        .collect()
}

/// The loss before each of `steps` training steps of `config_json` (an empty list for a bad
/// configuration): compared with the native run's (`train_bench losses`), every bit.
#[wasm_bindgen]
pub fn train_losses(config_json: &str, steps: usize) -> Vec<f64> {
    let Ok(mut trainer) = TrainConfig::from_json(config_json).and_then(|c| Trainer::new(&c)) else {
        return Vec::new();
    };
    trainer.train(steps).iter().map(|s| s.loss).collect()
}
