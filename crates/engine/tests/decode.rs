//! KV-cache decoding and the tiled online softmax against the full run.

mod common;
#[path = "common/mla.rs"]
mod mla_draw;

use attention_engine::error::Field;
use attention_engine::tiled::{online_row, running_sum};
use attention_engine::{decode, run, tiled, EngineError, Fill, Scenario, StepName, Trace};
use common::arb_scenario;
use mla_draw::{arb_mla, with_mla};
use proptest::prelude::*;

/// Within 1e-12, relative to the number (with an absolute floor of 1e-12); NaN = NaN.
fn close(a: f64, b: f64) -> bool {
    (a.is_nan() && b.is_nan()) || a == b || (a - b).abs() <= 1e-12 * a.abs().max(b.abs()).max(1.0)
}

fn step(trace: &Trace, name: StepName) -> &attention_engine::Step {
    trace.step(name).unwrap()
}

/// A scenario a model could decode: causal in self-attention.
fn decodable(mut s: Scenario) -> Scenario {
    if s.kv_sentences.is_none() {
        s.mask.causal = true;
    }
    s
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// Every decoded output row is row t of the full run: across GQA, RoPE, ALiBi,
    /// windows, padding and cross-attention. A fully blocked row under -1e9 is uniform
    /// over the keys each has (all T_k in the full run, the cached ones when decoding), so
    /// it is the one row allowed to differ in self-attention.
    #[test]
    fn decoding_gives_the_full_runs_rows(s in arb_scenario().prop_map(decodable)) {
        decodes_as_the_full_run(&s)?;
    }

    /// The online softmax's context is the full run's, for every block size from 1 to
    /// T + 1; no tile holds more than block × block scores.
    #[test]
    fn tiles_give_the_full_runs_context(s in arb_scenario(), extra in 0usize..2) {
        tiles_as_the_full_run(&s, extra)?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(150))]

    /// Under multi-head latent attention, with every other option drawn beside it: the
    /// decoder caches the latent and the shared RoPE key (the trace's own `c_kv` and
    /// `k_rot`), and every row it decodes from them is the full run's.
    #[test]
    fn latent_decoding_gives_the_full_runs_rows(s in arb_scenario().prop_map(decodable), draw in arb_mla()) {
        decodes_as_the_full_run(&with_mla(s, draw))?;
    }

    /// Under multi-head latent attention the tiles' context is the full run's, for every
    /// block size.
    #[test]
    fn latent_tiles_give_the_full_runs_context(s in arb_scenario(), draw in arb_mla(), extra in 0usize..2) {
        tiles_as_the_full_run(&with_mla(s, draw), extra)?;
    }
}

/// `s` decoded position by position against its full run: see the proptests above.
fn decodes_as_the_full_run(s: &Scenario) -> Result<(), TestCaseError> {
    let full = run(s).unwrap();
    let decoded = decode(s).unwrap();
    let (output, weights) = (step(&full, StepName::Output), step(&full, StepName::Weights));
    let z = full.sizes;
    prop_assert_eq!(decoded.positions.len(), z.t);
    for p in &decoded.positions {
        let t = p.t;
        // the cache: t + 1 rows (at most W under a window, plus the kept first keys beside
        // it), or the fixed T_k in cross-attention
        let keep = s.mask.keep_first.unwrap_or(0);
        let l = if full.is_cross() {
            z.t_k.unwrap_or(z.t)
        } else {
            s.mask.window.map_or(t + 1, |w| (t + 1).min(w) + keep.min((t + 1).saturating_sub(w)))
        };
        let kept = if full.is_cross() { 0 } else { p.cache_positions.iter().filter(|&&j| j < keep).count() };
        prop_assert_eq!(p.kept, kept);
        prop_assert_eq!(p.k_cache.shape(), &[z.b, z.kv_heads(), l, z.d_k]);
        let d_v = s.mla.as_ref().map_or(z.d_k, |m| m.v_head_dim);
        prop_assert_eq!(p.v_cache.shape(), &[z.b, z.kv_heads(), l, d_v]);
        // under MLA the cache holds the trace's latents and RoPE keys, row for row
        prop_assert_eq!(p.latent.is_some(), s.mla.is_some());
        if let (Some(latent), Some(m)) = (&p.latent, &s.mla) {
            prop_assert_eq!(latent.c_kv.shape(), &[z.b, 1, l, m.kv_lora_rank]);
            prop_assert_eq!(latent.k_rope.shape(), &[z.b, 1, l, m.qk_rope_head_dim]);
            let k_rope = if s.rope.is_some() { StepName::KRot } else { StepName::KPe };
            let (c_kv, k_rope) = (step(&full, StepName::CKv), step(&full, k_rope));
            for b in 0..z.b {
                for (li, &j) in p.cache_positions.iter().enumerate() {
                    for r in 0..m.kv_lora_rank {
                        let (got, want) = (latent.c_kv[[b, 0, li, r]], c_kv.data[[b, j, r]]);
                        prop_assert!(close(got, want), "c_kv[{}, {}, {}]: {} vs {}", b, j, r, got, want);
                    }
                    for r in 0..m.qk_rope_head_dim {
                        let (got, want) = (latent.k_rope[[b, 0, li, r]], k_rope.data[[b, 0, j, r]]);
                        prop_assert!(close(got, want), "k_rope[{}, {}, {}]: {} vs {}", b, j, r, got, want);
                    }
                }
            }
        }
        prop_assert_eq!(p.cache_positions.len(), l);
        for b in 0..z.b {
            let fully = full.fully_masked_rows.contains(&[b, t]);
            if fully && s.mask.fill == Fill::LargeNegative && !full.is_cross() {
                continue;
            }
            for c in 0..z.d_model {
                let (got, want) = (p.output[[b, 0, c]], output.data[[b, t, c]]);
                prop_assert!(
                    close(got, want),
                    "output[{}, {}, {}]: decoded {} vs full {}",
                    b,
                    t,
                    c,
                    got,
                    want
                );
            }
            // each weight (and masked score) of the cached keys is the full row's for that key
            let masked = step(&full, StepName::Masked);
            for h in 0..z.n_heads {
                for (li, &j) in p.cache_positions.iter().enumerate() {
                    let (got, want) = (p.weights[[b, h, 0, li]], weights.data[[b, h, t, j]]);
                    prop_assert!(
                        close(got, want),
                        "weights[{}, {}, {}, {}]: {} vs {}",
                        b,
                        h,
                        t,
                        j,
                        got,
                        want
                    );
                    let (got, want) = (p.scores[[b, h, 0, li]], masked.data[[b, h, t, j]]);
                    prop_assert!(close(got, want), "scores[{}, {}, {}, {}]: {} vs {}", b, h, t, j, got, want);
                }
            }
        }
    }
    Ok(())
}

/// `s` tiled with every block size against its full run: see the proptests above.
fn tiles_as_the_full_run(s: &Scenario, extra: usize) -> Result<(), TestCaseError> {
    let full = run(s).unwrap();
    let context = step(&full, StepName::Context);
    let t_max = full.sizes.t.max(full.sizes.t_k.unwrap_or(0));
    for block in 1..=t_max + 1 + extra {
        let tiles = tiled(s, block).unwrap();
        prop_assert_eq!(tiles.context.shape(), context.shape.as_slice());
        for (got, want) in tiles.context.iter().zip(context.data.iter()) {
            prop_assert!(close(*got, *want), "block {}: {} vs {}", block, got, want);
        }
        let masked = step(&full, StepName::Masked);
        for tile in &tiles.tiles {
            prop_assert!(tile.q[1] - tile.q[0] <= block && tile.k[1] - tile.k[0] <= block);
            // skipped exactly when every cell is blocked under -inf
            let all_blocked = (tile.q[0]..tile.q[1])
                .all(|i| (tile.k[0]..tile.k[1]).all(|j| full.mask.is_blocked(tile.b, i, j)));
            prop_assert_eq!(tile.skipped, all_blocked && s.mask.fill == Fill::NegInf);
            // the running maximum is the row's maximum over the keys folded in so far
            for (r, &m) in tile.m.iter().enumerate() {
                let seen = (0..tile.k[1]).map(|j| masked.data[[tile.b, tile.head, tile.q[0] + r, j]]);
                let want = seen.fold(f64::NEG_INFINITY, f64::max);
                prop_assert!(close(m, want), "m {} vs {}", m, want);
                // one row folded alone (online_row, what the lessons quote) agrees
                let i = tile.q[0] + r;
                let row: Vec<f64> = (0..full.sizes.t_k.unwrap_or(full.sizes.t))
                    .map(|j| masked.data[[tile.b, tile.head, i, j]])
                    .collect();
                let alone = online_row(&row, block);
                let after = alone.get(tile.k[0] / block).unwrap();
                prop_assert_eq!(after.k, tile.k);
                prop_assert!(
                    close(after.m, m) && close(after.l, tile.l[r]),
                    "row {} alone: {:?} vs {} {}",
                    i,
                    after,
                    m,
                    tile.l[r]
                );
                prop_assert!(
                    close(after.correction, tile.correction[r]),
                    "{:?} vs {}",
                    after,
                    tile.correction[r]
                );
                // its running sum term by term: the terms add up to ℓ′, bit for bit as folded
                let sum = running_sum(&row, block, tile.k[0] / block).unwrap();
                prop_assert_eq!(sum.after.to_bits(), after.l.to_bits());
                prop_assert_eq!(sum.correction.to_bits(), after.correction.to_bits());
                prop_assert_eq!(sum.k, tile.k);
                let keys: Vec<usize> = sum.exps.iter().map(|(j, _)| *j).collect();
                prop_assert_eq!(keys, (tile.k[0]..tile.k[1]).collect::<Vec<_>>());
                let again = sum.carried + sum.exps.iter().map(|(_, e)| e).sum::<f64>();
                prop_assert!(
                    sum.exps.is_empty() || again.to_bits() == sum.after.to_bits() || sum.after == again
                );
            }
        }
    }
    Ok(())
}

/// How often decoding is bit for bit the full run (printed with --nocapture), over 300
/// random decodable scenarios: a measurement for the notes, not a requirement.
#[test]
fn decoding_bit_for_bit_or_not() {
    use proptest::strategy::ValueTree;
    let mut runner = proptest::test_runner::TestRunner::deterministic();
    let (mut same, mut all, mut rows_same, mut rows) = (0usize, 0usize, 0usize, 0usize);
    for _ in 0..300 {
        let s = decodable(arb_scenario().new_tree(&mut runner).unwrap().current());
        let full = run(&s).unwrap();
        let output = step(&full, StepName::Output);
        for p in &decode(&s).unwrap().positions {
            for b in 0..full.sizes.b {
                if full.fully_masked_rows.contains(&[b, p.t]) {
                    continue;
                }
                let bits = |x: f64| x.to_bits();
                let row_same = (0..full.sizes.d_model)
                    .filter(|&c| bits(p.output[[b, 0, c]]) == bits(output.data[[b, p.t, c]]))
                    .count();
                (same, all) = (same + row_same, all + full.sizes.d_model);
                rows_same += usize::from(row_same == full.sizes.d_model);
                rows += 1;
            }
        }
    }
    eprintln!(
        "decoding vs the full run, bit for bit: {same} of {all} output numbers, {rows_same} of {rows} rows"
    );
    assert!(rows > 0);
}

/// `sentence` on identity projections (d_model 4, h 2) under a causal window of 2 keys.
fn windowed(sentence: &str) -> Scenario {
    let mut s = Scenario::identity(&[sentence], 4, 2);
    s.mask.causal = true;
    s.mask.window = Some(2);
    s
}

/// `trace --decode` and `--tiled`'s JSON: the shapes and numbers of the structs.
#[test]
fn the_command_line_json_has_the_positions_and_the_tiles() {
    let s = windowed("a b c");
    let d = decode(&s).unwrap();
    let json: serde_json::Value = serde_json::from_str(&d.to_json()).unwrap();
    let positions = json["positions"].as_array().unwrap();
    assert_eq!(positions.len(), 3);
    assert_eq!(positions[2]["t"], 2);
    assert_eq!(positions[2]["k_cache_shape"], serde_json::json!([1, 2, 2, 2]));
    assert_eq!(positions[2]["cache_positions"], serde_json::json!([1, 2]));
    assert_eq!(positions[2]["evicted"], 0);
    assert_eq!(positions[2]["weights"]["shape"], serde_json::json!([1, 2, 1, 2]));
    assert_eq!(positions[2]["output"]["data"].as_array().unwrap().len(), 4);
    let first = positions[0]["output"]["data"][0].as_f64().unwrap();
    assert_eq!(first, d.positions[0].output[[0, 0, 0]]);
    let t = tiled(&s, 2).unwrap();
    let json: serde_json::Value = serde_json::from_str(&t.to_json()).unwrap();
    assert_eq!(json["block"], 2);
    assert_eq!(json["tiles"].as_array().unwrap().len(), t.tiles.len());
    assert_eq!(json["tiles"][0]["q"], serde_json::json!([0, 2]));
    assert_eq!(json["context"]["shape"], serde_json::json!([1, 2, 3, 2]));
}

#[test]
fn decoding_refuses_a_scenario_without_a_causal_mask() {
    let s = Scenario::identity(&["a b c"], 4, 2);
    assert_eq!(decode(&s).unwrap_err(), EngineError::DecodeNeedsCausal);
    assert_eq!(EngineError::DecodeNeedsCausal.field().as_str(), "causal");
    assert!(EngineError::DecodeNeedsCausal.to_string().starts_with("decoding needs a causal mask"));
    assert_eq!(tiled(&s, 0).unwrap_err(), EngineError::ZeroSize { what: "block", field: Field::Block });
}

/// Under a window of 2 the cache is a rolling buffer: it never holds more than 2 rows,
/// and from t = 2 on the oldest leaves at each step.
#[test]
fn the_window_makes_the_cache_a_rolling_buffer() {
    let s = windowed("a b c d e");
    let d = decode(&s).unwrap();
    let kept: Vec<Vec<usize>> = d.positions.iter().map(|p| p.cache_positions.clone()).collect();
    assert_eq!(kept, vec![vec![0], vec![0, 1], vec![1, 2], vec![2, 3], vec![3, 4]]);
    let evicted: Vec<Option<usize>> = d.positions.iter().map(|p| p.evicted).collect();
    assert_eq!(evicted, vec![None, None, Some(0), Some(1), Some(2)]);
}

/// StreamingLLM: a window of 2 with the first key kept. The cache holds key 0 beside the
/// two most recent; from t = 3 on the window's oldest row (not key 0) leaves, and the JSON
/// says how many rows are kept.
#[test]
fn kept_first_keys_stay_in_the_cache() {
    let mut s = windowed("a b c d e f");
    s.mask.keep_first = Some(1);
    let d = decode(&s).unwrap();
    let cached: Vec<Vec<usize>> = d.positions.iter().map(|p| p.cache_positions.clone()).collect();
    assert_eq!(cached, vec![vec![0], vec![0, 1], vec![0, 1, 2], vec![0, 2, 3], vec![0, 3, 4], vec![0, 4, 5]]);
    let evicted: Vec<Option<usize>> = d.positions.iter().map(|p| p.evicted).collect();
    assert_eq!(evicted, vec![None, None, None, Some(1), Some(2), Some(3)]);
    assert!(d.positions.iter().all(|p| p.kept == 1));
    // the rows of the cache are the full run's keys at those positions
    let full = run(&s).unwrap();
    let k = step(&full, StepName::KHeads);
    let last = &d.positions[5];
    for (l, &j) in last.cache_positions.iter().enumerate() {
        for c in 0..2 {
            assert_eq!(last.k_cache[[0, 1, l, c]], k.data[[0, 1, j, c]]);
        }
    }
    let json: serde_json::Value = serde_json::from_str(&d.to_json()).unwrap();
    assert_eq!(json["positions"][4]["kept"], 1);
    assert_eq!(json["positions"][4]["cache_positions"], serde_json::json!([0, 3, 4]));
    // kept first keys need a window
    s.mask.window = None;
    assert_eq!(decode(&s).unwrap_err(), EngineError::KeepFirstWithoutWindow { keep_first: 1 });
}

/// One row by hand: scores [0, ln 3] in two tiles of 1. After the first tile m = 0,
/// ℓ = 1; the second raises m to ln 3, the correction is e^(0 − ln 3) = 1/3, and
/// ℓ = 1/3 · 1 + e^0 = 4/3. The weights are then e^(s − m)/ℓ = (1/3)/(4/3) = 1/4 and 3/4.
#[test]
fn online_softmax_by_hand() {
    let mut s = Scenario::identity(&["a b"], 1, 1);
    // q = k = x, d_k = 1: the score of query 1 against key j is x_1 · x_j
    let r = 3f64.ln().sqrt();
    s.embeddings.insert("a".into(), vec![0.0]);
    s.embeddings.insert("b".into(), vec![r]);
    let t = tiled(&s, 1).unwrap();
    let row1: Vec<&attention_engine::Tile> = t.tiles.iter().filter(|tile| tile.q == [1, 2]).collect();
    assert_eq!(row1.len(), 2);
    assert!((row1[0].m[0] - 0.0).abs() < 1e-15 && (row1[0].l[0] - 1.0).abs() < 1e-15);
    assert!((row1[1].m[0] - 3f64.ln()).abs() < 1e-12);
    assert!((row1[1].correction[0] - 1.0 / 3.0).abs() < 1e-12);
    assert!((row1[1].l[0] - 4.0 / 3.0).abs() < 1e-12);
    // context of query 1 = 1/4 · 0 + 3/4 · r
    assert!((t.context[[0, 0, 1, 0]] - 0.75 * r).abs() < 1e-12);
}
