//! What the engine's integration tests share: the random-scenario generator.

use attention_engine::{ExplicitWeights, Fill, MaskConfig, Padding, Positional, Projections, Scenario};
use proptest::prelude::*;

/// A `rows × cols` matrix filled from `vals`, cycling.
pub fn matrix(rows: usize, cols: usize, vals: &[f64]) -> Vec<Vec<f64>> {
    (0..rows).map(|i| (0..cols).map(|j| vals[(i * cols + j) % vals.len()]).collect()).collect()
}

/// Random scenarios with odd sizes, so a swapped axis cannot hide: B ∈ 1..=3, T ∈ 1..=7,
/// h ∈ 1..=3, d_k ∈ 1..=5 (so d_model 1 and 2 too), explicit random weights, every mask
/// combination, self- and cross-attention (T_k ∈ 1..=7 independent of T_q), with and
/// without positions.
pub fn arb_scenario() -> impl Strategy<Value = Scenario> {
    let words = prop::sample::select(vec!["ant", "bee", "cat", "dog", "eel", "fox", "gnu", "hen", "ibis"]);
    (
        1usize..=3,
        1usize..=3,
        1usize..=5,
        any::<bool>(),
        0usize..3,
        any::<bool>(),
        any::<bool>(),
        any::<bool>(),
    )
        .prop_flat_map(move |(b, h, d_k, causal, padding, large, cross, positions)| {
            let d = h * d_k;
            let sentence = prop::collection::vec(words.clone(), 1..=7).prop_map(|w| w.join(" "));
            (
                prop::collection::vec(sentence.clone(), b),
                if cross {
                    prop::collection::vec(sentence, b).prop_map(Some).boxed()
                } else {
                    Just(None).boxed()
                },
                prop::collection::vec(prop::collection::vec(-2.0f64..2.0, d), 10),
                prop::collection::vec(-1.0f64..1.0, 8 * d * d + 8 * d),
                Just((d, h, causal, padding, large, positions)),
            )
        })
        .prop_map(
            |(sentences, kv_sentences, vectors, params, (d, h, causal, padding, large, positions))| {
                let words = ["ant", "bee", "cat", "dog", "eel", "fox", "gnu", "hen", "ibis", "<pad>"];
                let embeddings = words.iter().zip(vectors).map(|(w, v)| (w.to_string(), v)).collect();
                let (m, rest) = params.split_at(8 * d * d);
                let w = |i: usize| matrix(d, d, &m[i * 2 * d * d..(i * 2 + 1) * d * d]);
                let bias = |i: usize| rest[i * d..(i + 1) * d].to_vec();
                Scenario {
                    sentences,
                    kv_sentences,
                    d_model: d,
                    n_heads: h,
                    embeddings,
                    projections: Projections::Explicit(Box::new(ExplicitWeights {
                        w_q: w(0),
                        b_q: bias(0),
                        w_k: w(1),
                        b_k: bias(1),
                        w_v: w(2),
                        b_v: bias(2),
                        w_o: w(3),
                        b_o: bias(3),
                    })),
                    seed: 0,
                    mask: MaskConfig {
                        causal,
                        padding: [Padding::None, Padding::Keys, Padding::KeysAndQueries][padding],
                        fill: if large { Fill::LargeNegative } else { Fill::NegInf },
                    },
                    positional: if positions { Positional::Sinusoidal } else { Positional::None },
                }
            },
        )
}
