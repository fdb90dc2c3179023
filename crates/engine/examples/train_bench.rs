//! Timings of the trainer (`attention_engine::train`), for BENCHMARKS.md. No timing is a
//! test.
//!
//! ```text
//! cargo run --release -p attention-engine --example train_bench -- speed [REPEATS]
//! cargo run --release -p attention-engine --example train_bench -- induction [CONFIG.json]
//! ```
//!
//! `speed`: training steps per second on previous-token (vocab 16, T 8, batch 32, d_model
//! 16, h 2, 1 layer, Adam), REPEATS (default 15) runs of 500 steps after 200 warm-up
//! steps, median and p95 of the per-run rate. `induction`: trains the 2-layer induction
//! configuration (the one below, or CONFIG.json), prints the loss every 50 steps, the step
//! and time at which the loss fell below half of ln(vocab) (the drop), and each head's
//! previous-token and induction scores on the probe, with each head's ablation and the removal of each layer-0
//! head from layer 1's keys (K-composition).

use std::time::Instant;

use attention_engine::train::{
    circuit, evaluate, induction_score, previous_token_score, HeadId, Intervention, TrainConfig, Trainer,
};

/// The fixed induction run of the Learn view and the lesson.
pub const INDUCTION: &str = r#"{"task": "induction", "vocab": 32, "T": 20, "batch": 16, "seed": 7, "steps": 600,
  "d_model": 16, "n_heads": 1, "n_layers": 2, "positions": "learned", "causal": true,
  "optimizer": {"kind": "adam", "lr": 0.01}}"#;

/// The drop: the 20-step mean loss below 0.5 nats. Guessing uniformly among the period's
/// other tokens, without finding the earlier occurrence, gives ln(p − 1) ≥ ln 4 ≈ 1.39
/// for T = 20 (p ≥ 5).
const DROP: f64 = 0.5;

const SPEED: &str = r#"{"task": "previous-token", "vocab": 16, "T": 8, "batch": 32, "seed": 1, "steps": 1,
  "d_model": 16, "n_heads": 2, "n_layers": 1, "positions": "learned", "causal": true,
  "optimizer": {"kind": "adam", "lr": 0.01}}"#;

fn percentile(sorted: &[f64], p: f64) -> f64 {
    let i = ((sorted.len() - 1) as f64 * p).round() as usize;
    sorted[i]
}

/// This thread's CPU time in seconds (Linux: `/proc/thread-self/schedstat`'s first field,
/// nanoseconds on the CPU), or `None` elsewhere. On a machine shared with other work the
/// wall clock counts the time the scheduler gave to others; this does not.
fn cpu_seconds() -> Option<f64> {
    let text = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    Some(text.split_whitespace().next()?.parse::<f64>().ok()? / 1e9)
}

fn speed(repeats: usize) {
    let config = TrainConfig::from_json(SPEED).expect("the speed configuration is valid");
    let mut trainer = Trainer::new(&config).expect("valid");
    trainer.train(200);
    let (mut rates, mut cpu_rates): (Vec<f64>, Vec<f64>) = (0..repeats)
        .map(|_| {
            let (start, cpu_start) = (Instant::now(), cpu_seconds());
            for _ in 0..500 {
                trainer.step();
            }
            let cpu = cpu_seconds().zip(cpu_start).map_or(f64::NAN, |(end, start)| 500.0 / (end - start));
            (500.0 / start.elapsed().as_secs_f64(), cpu)
        })
        .unzip();
    rates.sort_by(f64::total_cmp);
    cpu_rates.sort_by(f64::total_cmp);
    // p95 of the time per step is the 5th percentile of the rate
    println!(
        "previous-token (vocab 16, T 8, batch 32, d_model 16, h 2, 1 layer, Adam): {repeats} runs of 500 steps: \
         median {:.0} steps/s ({:.1} µs/step), p95 step time {:.1} µs ({:.0} steps/s); \
         on the CPU: median {:.0} steps/s ({:.1} µs/step), p95 {:.1} µs",
        percentile(&rates, 0.5),
        1e6 / percentile(&rates, 0.5),
        1e6 / percentile(&rates, 0.05),
        percentile(&rates, 0.05),
        percentile(&cpu_rates, 0.5),
        1e6 / percentile(&cpu_rates, 0.5),
        1e6 / percentile(&cpu_rates, 0.05),
    );
}

fn induction(text: &str) {
    let config = TrainConfig::from_json(text).expect("a valid configuration");
    let mut trainer = Trainer::new(&config).expect("valid");
    let start = Instant::now();
    let mut window = std::collections::VecDeque::new();
    let mut drop = None;
    for step in 0..config.steps {
        let stats = trainer.step();
        window.push_back(stats.loss);
        if window.len() > 20 {
            window.pop_front();
        }
        let mean = window.iter().sum::<f64>() / window.len() as f64;
        if drop.is_none() && window.len() == 20 && mean < DROP {
            drop = Some((step, start.elapsed().as_secs_f64()));
        }
        if step % 50 == 0 || step + 1 == config.steps {
            println!(
                "step {step:5}  loss {:.4}  accuracy {:.3}  (20-step mean {mean:.4})",
                stats.loss, stats.accuracy
            );
        }
    }
    let total = start.elapsed().as_secs_f64();
    match drop {
        Some((step, secs)) => println!(
            "drop: the 20-step mean loss fell below {DROP} at step {step}, {secs:.2} s ({total:.2} s for all {} steps)",
            config.steps
        ),
        None => println!("no drop below {DROP} in {} steps ({total:.2} s)", config.steps),
    }
    let probe = trainer.probe(16);
    let model = &trainer.model;
    let base = evaluate(model, &probe, &Intervention::default());
    println!("probe (16 sequences): loss {:.4}, accuracy {:.3}", base.loss, base.accuracy);
    for layer in 0..config.n_layers {
        for head in 0..config.n_heads {
            let id = HeadId { layer, head };
            let (prev, ind) =
                (previous_token_score(&base, model, &probe, id), induction_score(&base, model, &probe, id));
            println!("  layer {layer} head {head}: previous-token score {prev:.3}, induction score {ind:.3}");
        }
    }
    let report = circuit(model, &probe);
    for a in &report.ablations {
        println!(
            "ablating layer {} head {}: probe loss {:.4} -> {:.4}, accuracy {:.3} -> {:.3}, {} predictions changed",
            a.head.layer, a.head.head, report.loss, a.loss, report.accuracy, a.accuracy, a.predictions_changed
        );
    }
    for k in &report.k_composition {
        for (reader, moved) in k.attention_moved.iter().enumerate() {
            println!(
                "layer {}'s keys without layer {} head {}: probe loss {:.4} -> {:.4}, layer {} head {reader}: \
                 attention moved {moved:.3}, induction score {:.3} -> {:.3}",
                k.layer,
                k.source.layer,
                k.source.head,
                report.loss,
                k.loss,
                k.layer,
                k.induction_before[reader],
                k.induction_after[reader]
            );
        }
    }
    let names: Vec<String> =
        report.depends_on.iter().map(|h| format!("layer {} head {}", h.layer, h.head)).collect();
    println!("the prediction depends on (largest loss rise first): {}", names.join(", "));
}

/// The loss before each step of `steps` steps of the configuration, as JSON numbers (the
/// shortest form that reads back to the same f64): `same-in-wasm.mjs` compares them with
/// the wasm build's, every bit.
fn losses(text: &str, steps: usize) {
    let config = TrainConfig::from_json(text).expect("a valid configuration");
    let mut trainer = Trainer::new(&config).expect("a valid configuration");
    let losses: Vec<String> = trainer.train(steps).iter().map(|s| format!("{:?}", s.loss)).collect();
    println!("[{}]", losses.join(","));
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("speed") => speed(args.get(1).and_then(|r| r.parse().ok()).unwrap_or(15)),
        Some("induction") => match args.get(1) {
            Some(path) => induction(&std::fs::read_to_string(path).expect("a readable configuration")),
            None => induction(INDUCTION),
        },
        Some("losses") => match (args.get(1), args.get(2).and_then(|n| n.parse().ok())) {
            (Some(path), Some(steps)) => {
                losses(&std::fs::read_to_string(path).expect("a readable configuration"), steps)
            }
            _ => eprintln!("usage: train_bench losses CONFIG.json STEPS"),
        },
        _ => eprintln!(
            "usage: train_bench speed [REPEATS] | induction [CONFIG.json] | losses CONFIG.json STEPS"
        ),
    }
}
