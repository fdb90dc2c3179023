//! Engine throughput, native: B=1, T ∈ {16, 128, 512}, d_model=512, h=8, seeded
//! projections, no mask. `cargo bench --bench engine`; compare with
//! `python3 tools/bench_numpy.py` (the same computation in numpy) run right after.

use std::collections::BTreeMap;
use std::hint::black_box;

use attention_lens::engine::{run, MaskConfig, ProjectionKind, Projections, Scenario};
use criterion::{criterion_group, criterion_main, Criterion, Throughput};

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
    }
}

/// Floating-point operations of one run (multiply-adds count 2): four projections,
/// QKᵀ and weights·V.
pub fn flops(t: usize, d: usize) -> f64 {
    let (t, d) = (t as f64, d as f64);
    4.0 * 2.0 * t * d * d + 2.0 * 2.0 * t * t * d
}

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("engine_run");
    group.sample_size(20);
    for t in [16, 128, 512] {
        let s = scenario(t);
        group.throughput(Throughput::Elements(flops(t, 512) as u64));
        group.bench_function(format!("T={t}"), |b| b.iter(|| run(black_box(&s)).map(|tr| tr.sizes.t)));
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
