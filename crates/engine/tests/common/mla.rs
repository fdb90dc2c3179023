//! Multi-head latent attention drawn for a random scenario, for the tests that run every
//! option with MLA on (included by path beside `common`).

use attention_engine::{Projections, Scenario};
use proptest::prelude::*;

/// MLA's sizes and weights drawn for a scenario of `arb_scenario`: `(r_kv, r_q, d_nope,
/// d_rope, d_v, mscale_all_dim)` and numbers to slice the weights from.
pub type MlaDraw = ((usize, Option<usize>, usize, usize, usize, Option<f64>), Vec<f64>);

pub fn arb_mla() -> impl Strategy<Value = MlaDraw> {
    (
        1usize..=4,
        prop::option::of(1usize..=4),
        1usize..=3,
        1usize..=2,
        1usize..=3,
        prop::option::of(0.1f64..2.0),
    )
        .prop_flat_map(|sizes| (Just(sizes), prop::collection::vec(-1.0f64..1.0, 2000)))
}

/// `s` (from `arb_scenario`, with every old option it drew) turned into multi-head latent
/// attention with the drawn sizes and weights: the options MLA cannot go with (grouped
/// heads, a head size of its own, QK-norm, a rotary fraction, W_Q … W_O) are dropped.
pub fn with_mla(mut s: Scenario, ((r_kv, r_q, d_nope, pairs, d_v, mscale), numbers): MlaDraw) -> Scenario {
    let (d, h) = (s.d_model, s.n_heads);
    // d_rope even under RoPE (2 or 4), anything otherwise
    let d_rope = if s.rope.is_some() { 2 * pairs } else { pairs + 1 };
    let d_k = d_nope + d_rope;
    let mut at = 0;
    let mut take = |rows: usize, cols: usize| {
        let m = crate::common::matrix(rows, cols, &numbers[at..at + rows * cols]);
        at += rows * cols;
        m
    };
    let (w_q, w_q_a, w_q_b) = match r_q {
        None => (take(d, h * d_k), vec![], vec![]),
        Some(r) => (vec![], take(d, r), take(r, h * d_k)),
    };
    let w_kv_a = take(d, r_kv + d_rope);
    let w_kv_b = take(r_kv, h * (d_nope + d_v));
    let w_o = take(h * d_v, d);
    let biases = take(4, 64);
    let bias = |i: usize, len: usize| biases[i][..len].iter().map(|b| b / 2.0).collect::<Vec<f64>>();
    let norm =
        |i: usize, len: usize| biases[i][32..32 + len].iter().map(|b| 1.0 + b / 2.0).collect::<Vec<f64>>();
    let weights = attention_engine::MlaWeights {
        b_q: if r_q.is_none() { bias(0, h * d_k) } else { vec![] },
        b_q_a: r_q.map_or(vec![], |r| bias(0, r)),
        q_a_norm: r_q.map_or(vec![], |r| norm(0, r)),
        b_q_b: r_q.map_or(vec![], |_| bias(1, h * d_k)),
        b_kv_a: bias(2, r_kv + d_rope),
        kv_a_norm: norm(2, r_kv),
        b_kv_b: vec![],
        b_o: bias(3, d),
        w_q,
        w_q_a,
        w_q_b,
        w_kv_a,
        w_kv_b,
        w_o,
    };
    s.n_kv_heads = None;
    s.d_head = None;
    s.qk_norm = None;
    s.projections = Projections::Named(attention_engine::ProjectionKind::Seeded);
    if let Some(rope) = &mut s.rope {
        rope.fraction = None;
    }
    let scaled = s.rope.is_some_and(|r| r.scaling.is_some());
    s.mla = Some(attention_engine::Mla {
        kv_lora_rank: r_kv,
        q_lora_rank: r_q,
        qk_nope_head_dim: d_nope,
        qk_rope_head_dim: d_rope,
        v_head_dim: d_v,
        mscale_all_dim: mscale.filter(|_| scaled),
        // DeepSeek-V2's layout wherever the style allows it, on every other draw
        rope_in_place: s.rope.is_some_and(|r| r.style == attention_engine::RopeStyle::Interleaved)
            && r_kv % 2 == 1,
        eps: if r_kv % 2 == 0 { 1e-6 } else { 0.25 },
        weights: Some(Box::new(weights)),
    });
    s
}
