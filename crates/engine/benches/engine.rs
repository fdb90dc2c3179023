//! Engine throughput, native: B=1, T ∈ {16, 128, 512}, d_model=512, h=8, seeded
//! projections, no mask. `cargo bench --bench engine`; compare with
//! `python3 tools/bench_numpy.py` (the same computation in numpy), or run both
//! interleaved with `python3 tools/bench_numpy.py --with-engine` (see BENCHMARKS.md).
//!
//! Three groups:
//! - `engine_run/T=…`: the whole `engine::run` (tokenize, embed, seeded weights, every
//!   step, the trace), what the page pays on every edit.
//! - `math/T=…`: the attention functions alone on ready x and W, the work numpy does.
//! - `steps/…` (T=512): each stage alone, to see where the time goes.
//! - `typing/…`: the page's stress size (B=4, T=128, d_model=256, h=8, padding masked)
//!   after a one-word edit in one sentence: `run` against `run_reusing` with the trace
//!   before the edit (the other three sentences are copied).

use std::hint::black_box;

use attention_engine::{
    attention, embedding, mask, run, run_reusing, tokenize, weights, MaskConfig, ProjectionKind, Projections,
    Scenario,
};
use criterion::{criterion_group, criterion_main, Criterion, Throughput};

const D_MODEL: usize = 512;
const HEADS: usize = 8;

fn scenario(t: usize) -> Scenario {
    let words: Vec<String> = (0..t).map(|i| format!("w{}", i % 97)).collect();
    Scenario {
        projections: Projections::Named(ProjectionKind::Seeded),
        ..Scenario::identity(&[words.join(" ").as_str()], D_MODEL, HEADS)
    }
}

/// Floating-point operations of one run (multiply-adds count 2): four projections,
/// QKᵀ and weights·V.
pub fn flops(t: usize, d: usize) -> f64 {
    let (t, d) = (t as f64, d as f64);
    4.0 * 2.0 * t * d * d + 2.0 * 2.0 * t * t * d
}

fn bench_run(c: &mut Criterion) {
    let mut group = c.benchmark_group("engine_run");
    group.sample_size(20);
    for t in [16, 128, 512] {
        let s = scenario(t);
        group.throughput(Throughput::Elements(flops(t, D_MODEL) as u64));
        group.bench_function(format!("T={t}"), |b| b.iter(|| run(black_box(&s)).map(|tr| tr.sizes.t)));
    }
    group.finish();
}

/// The attention math alone, what `tools/bench_numpy.py` times in numpy: the four
/// projections, split, QKᵀ, scale, mask (nothing blocked), softmax, ·V, merge. No
/// tokenizing, embedding, weight generation or trace.
fn bench_math(c: &mut Criterion) {
    let mut group = c.benchmark_group("math");
    group.sample_size(20);
    for t in [16, 128, 512] {
        let s = scenario(t);
        let batch = tokenize::batch(&s.sentences).expect("batch");
        let (x, _) = embedding::embed(&batch, D_MODEL, &s.embeddings).expect("embed");
        let w = weights::build(&s.projections, D_MODEL, D_MODEL, s.seed).expect("weights");
        let m = mask::build(&batch.lengths, batch.t, &s.mask);
        group.throughput(Throughput::Elements(flops(t, D_MODEL) as u64));
        group.bench_function(format!("T={t}"), |b| {
            b.iter(|| {
                use attention::*;
                let x = black_box(&x);
                let q = split_heads(linear(x, &w.q), HEADS).expect("split");
                let k = split_heads(linear(x, &w.k), HEADS).expect("split");
                let v = split_heads(linear(x, &w.v), HEADS).expect("split");
                let scaled = scale(&attn_scores(&q, &k), D_MODEL / HEADS);
                let weights = softmax_rows(&apply_mask(&scaled, &m, f64::NEG_INFINITY));
                let concat = merge_heads(attend(&weights, &v)).expect("merge");
                linear(&concat, &w.o).len()
            })
        });
    }
    group.finish();
}

fn bench_steps(c: &mut Criterion) {
    let t = 512;
    let s = scenario(t);
    let batch = tokenize::batch(&s.sentences).expect("batch");
    let (x, _) = embedding::embed(&batch, D_MODEL, &s.embeddings).expect("embed");
    let w = weights::build(&s.projections, D_MODEL, D_MODEL, s.seed).expect("weights");
    let q = attention::linear(&x, &w.q);
    let qh = attention::split_heads(q.clone(), HEADS).expect("split");
    let kh = qh.clone();
    let scores = attention::attn_scores(&qh, &kh);
    let m = mask::build(&batch.lengths, batch.t, &s.mask);
    let weights_t = attention::softmax_rows(&scores);
    let context = attention::attend(&weights_t, &qh);

    let mut group = c.benchmark_group("steps");
    group.sample_size(10);
    group.bench_function("tokenize+embed T=512", |b| {
        b.iter(|| {
            let batch = tokenize::batch(black_box(&s.sentences)).expect("batch");
            embedding::embed(&batch, D_MODEL, &s.embeddings).expect("embed").0.len()
        })
    });
    group.bench_function("weights::build seeded d=512", |b| {
        b.iter(|| weights::build(black_box(&s.projections), D_MODEL, D_MODEL, 0).expect("w").q.w().len())
    });
    group.bench_function("linear T=512", |b| b.iter(|| attention::linear(black_box(&x), &w.q).len()));
    group.bench_function("split_heads T=512", |b| {
        b.iter(|| attention::split_heads(black_box(q.clone()), HEADS).expect("split").len())
    });
    group.bench_function("attn_scores T=512", |b| {
        b.iter(|| attention::attn_scores(black_box(&qh), &kh).len())
    });
    group.bench_function("scale T=512", |b| b.iter(|| attention::scale(black_box(&scores), 64).len()));
    group.bench_function("apply_mask T=512", |b| {
        b.iter(|| attention::apply_mask(black_box(&scores), &m, f64::NEG_INFINITY).len())
    });
    group.bench_function("softmax_rows T=512", |b| {
        b.iter(|| attention::softmax_rows(black_box(&scores)).len())
    });
    group.bench_function("attend T=512", |b| b.iter(|| attention::attend(black_box(&weights_t), &qh).len()));
    group.bench_function("merge_heads T=512", |b| {
        b.iter(|| attention::merge_heads(black_box(context.clone())).expect("merge").len())
    });
    group.finish();
}

fn bench_typing(c: &mut Criterion) {
    let sentence =
        |k: usize| (0..128).map(|i| format!("w{}", (i * 7 + k) % 97)).collect::<Vec<_>>().join(" ");
    let before = Scenario {
        sentences: (0..4).map(sentence).collect(),
        d_model: 256,
        mask: MaskConfig { padding: attention_engine::Padding::Keys, ..MaskConfig::default() },
        ..scenario(1)
    };
    let mut after = before.clone();
    after.sentences[0] = after.sentences[0].replacen("w0", "wx", 1);
    let previous = run(&before).expect("run");
    let mut group = c.benchmark_group("typing");
    group.sample_size(20);
    group.bench_function("run B=4 T=128 d=256", |b| b.iter(|| run(black_box(&after)).map(|t| t.sizes.t)));
    group.bench_function("run_reusing B=4 T=128 d=256", |b| {
        b.iter(|| run_reusing(black_box(&after), Some(&previous)).map(|t| t.sizes.t))
    });
    group.finish();
}

criterion_group!(benches, bench_run, bench_math, bench_steps, bench_typing);
criterion_main!(benches);
