//! What the engine's integration tests share: the random-scenario generator.

use attention_engine::{
    ExplicitWeights, Fill, MaskConfig, Padding, Positional, Projections, QkNorm, Rope, RopeScaling,
    RopeStyle, Scenario,
};
use proptest::prelude::*;

mod sentences;
use sentences::arb_sentences;

/// A `rows × cols` matrix filled from `vals`, cycling.
pub fn matrix(rows: usize, cols: usize, vals: &[f64]) -> Vec<Vec<f64>> {
    (0..rows).map(|i| (0..cols).map(|j| vals[(i * cols + j) % vals.len()]).collect()).collect()
}

/// The options of today's models, drawn independently: `(h_kv choice, RoPE choice, RoPE
/// base choice, ALiBi, (window, kept first keys), scale, softcap)`. A choice that does not
/// fit the sizes (h_kv must divide h, RoPE needs an even d_k) falls back to the plain option.
#[allow(clippy::type_complexity)]
fn arb_modern(
) -> impl Strategy<Value = (usize, usize, usize, bool, Option<(usize, usize)>, Option<f64>, Option<f64>)> {
    (
        0usize..4,
        0usize..3,
        0usize..4,
        any::<bool>(),
        // a window, with 0 to 2 kept first keys beside it (StreamingLLM)
        prop::option::of((1usize..=4, 0usize..=2)),
        prop::option::of(0.05f64..2.0),
        prop::option::of(0.5f64..20.0),
    )
}

/// Random scenarios with odd sizes, so a swapped axis cannot hide: B ∈ 1..=3, T ∈ 1..=7,
/// h ∈ 1..=4, d_k ∈ 1..=5 (so d_model 1 and 2 too), explicit random weights, every mask
/// combination with and without a sliding window (and kept first keys beside it), self- and cross-attention (T_k ∈ 1..=7
/// independent of T_q), with and without positions, with h_kv any divisor of h, RoPE in
/// both styles (when d_k is even), ALiBi, a scale, a softcap, QK-norm, attention sinks and
/// a head size of its own (d_model ∈ 1..=6 drawn apart from h·d_k).
pub fn arb_scenario() -> impl Strategy<Value = Scenario> {
    let words = prop::sample::select(vec!["ant", "bee", "cat", "dog", "eel", "fox", "gnu", "hen", "ibis"]);
    (
        1usize..=3,
        1usize..=4,
        1usize..=5,
        any::<bool>(),
        0usize..3,
        any::<bool>(),
        any::<bool>(),
        any::<bool>(),
        arb_modern(),
        prop::option::of(1usize..=6),
    )
        .prop_flat_map(move |(b, h, d_k, causal, padding, large, cross, positions, modern, own_d_model)| {
            // a head size of its own: d_model drawn apart from h·d_k
            let d = own_d_model.unwrap_or(h * d_k);
            (
                arb_sentences(words.clone(), b, 7, cross),
                prop::collection::vec(prop::collection::vec(-2.0f64..2.0, d), 10),
                prop::collection::vec(-1.0f64..1.0, 8 * d.max(h * d_k).pow(2) + 8 * d.max(h * d_k)),
                // QK-norm per head or over the whole projection (OLMo 2): weights enough for both
                prop::option::of((
                    prop::collection::vec(0.2f64..2.0, 2 * h * d_k),
                    prop::sample::select(vec![1e-6, 0.5]),
                    any::<bool>(),
                )),
                Just((d, h, causal, padding, large, positions)),
                Just((d_k, modern, own_d_model.is_some())),
                prop::option::of(prop::collection::vec(-3.0f64..3.0, h)),
            )
        })
        .prop_map(
            |(
                (sentences, kv_sentences),
                vectors,
                params,
                qk_norm,
                (d, h, causal, padding, large, positions),
                modern,
                sinks,
            )| {
                let (d_k, (kv_choice, rope_choice, base_choice, alibi, window, scale, softcap), own) = modern;
                let q_width = h * d_k;
                let divisors: Vec<usize> = (1..=h).filter(|g| h % g == 0).collect();
                let h_kv = divisors[kv_choice % divisors.len()];
                let kv = h_kv * d_k;
                let rope = match rope_choice {
                    1 if d_k % 2 == 0 => Some(RopeStyle::Half),
                    2 if d_k % 2 == 0 => Some(RopeStyle::Interleaved),
                    _ => None,
                }
                // a rotary fraction of one half when it leaves an even number of dimensions
                .map(|style| Rope {
                    style,
                    base: [10000.0, 100.0, 7.5, 500.0][base_choice],
                    fraction: (base_choice == 1 && d_k % 4 == 0).then_some(0.5),
                    // scaled frequencies at the other bases: llama3 with all three of its
                    // wavelength ranges at small d_k (2π/θ_0 = 6.3 is under 32 / 4), linear,
                    // and YaRN (truncated when d_k is a multiple of 4)
                    scaling: match base_choice {
                        1 => Some(RopeScaling::Llama3 {
                            factor: 8.0,
                            low_freq_factor: 1.0,
                            high_freq_factor: 4.0,
                            original_max_position_embeddings: 32.0,
                        }),
                        2 => Some(RopeScaling::Linear { factor: 2.5 }),
                        3 => Some(RopeScaling::Yarn {
                            factor: 4.0,
                            original_max_position_embeddings: 64.0,
                            beta_fast: 4.0,
                            beta_slow: 0.5,
                            attention_factor: None,
                            truncate: d_k % 4 == 0,
                        }),
                        _ => None,
                    },
                });
                let words = ["ant", "bee", "cat", "dog", "eel", "fox", "gnu", "hen", "ibis", "<pad>"];
                let embeddings = words.iter().zip(vectors).map(|(w, v)| (w.to_string(), v)).collect();
                let wide = d.max(q_width); // every matrix and bias fits in a slice of this side
                let (m, rest) = params.split_at(8 * wide * wide);
                let w = |i: usize, rows: usize, cols: usize| {
                    matrix(rows, cols, &m[i * 2 * wide * wide..(i * 2 + 1) * wide * wide])
                };
                let bias = |i: usize, len: usize| rest[i * wide..i * wide + len].to_vec();
                Scenario {
                    sentences,
                    kv_sentences,
                    d_model: d,
                    n_heads: h,
                    d_head: own.then_some(d_k),
                    embeddings,
                    projections: Projections::Explicit(Box::new(ExplicitWeights {
                        w_q: w(0, d, q_width),
                        b_q: bias(0, q_width),
                        w_k: w(1, d, kv),
                        b_k: bias(1, kv),
                        w_v: w(2, d, kv),
                        b_v: bias(2, kv),
                        w_o: w(3, q_width, d),
                        b_o: bias(3, d),
                    })),
                    seed: 0,
                    mask: MaskConfig {
                        causal,
                        padding: [Padding::None, Padding::Keys, Padding::KeysAndQueries][padding],
                        fill: if large { Fill::LargeNegative } else { Fill::NegInf },
                        window: window.map(|(w, _)| w),
                        keep_first: window.and_then(|(_, k)| (k > 0).then_some(k)),
                    },
                    positional: if positions { Positional::Sinusoidal } else { Positional::None },
                    n_kv_heads: (h_kv != h).then_some(h_kv),
                    rope,
                    alibi,
                    scale,
                    softcap,
                    qk_norm: qk_norm.map(|(w, eps, whole)| {
                        let (q_len, k_len) = if whole { (h * d_k, h_kv * d_k) } else { (d_k, d_k) };
                        let (q_weight, rest) = w.split_at(q_len);
                        let k_weight = rest[..k_len].to_vec();
                        QkNorm { q_weight: q_weight.to_vec(), k_weight, eps, whole_projection: whole }
                    }),
                    sinks,
                    mla: None,
                    n_layers: None,
                    layer: None,
                }
            },
        )
}
