//! The engine never panics, whatever it is given: adversarial numbers, sizes at and over
//! the limits, every mask combination, and arbitrary JSON.

#[path = "common/sentences.rs"]
mod sentences;

use std::collections::BTreeMap;

use attention_engine::{
    limits, run, EngineError, ExplicitWeights, Fill, MaskConfig, Padding, Positional, ProjectionKind,
    Projections, Scenario, StepName,
};
use proptest::prelude::*;
use sentences::arb_sentences;

/// Numbers a student (or a tampered file) might put in: huge, tiny, zero, subnormal,
/// non-finite, ordinary.
fn adversarial_number() -> impl Strategy<Value = f64> {
    prop_oneof![
        Just(1e30),
        Just(-1e30),
        Just(0.0),
        Just(-0.0),
        Just(f64::MIN_POSITIVE / 4.0), // subnormal
        Just(5e-324),
        Just(1e4),
        Just(f64::NAN),
        Just(f64::INFINITY),
        Just(1e31),
        -3.0f64..3.0,
    ]
}

fn mask() -> impl Strategy<Value = MaskConfig> {
    (any::<bool>(), 0usize..3, any::<bool>()).prop_map(|(causal, p, large)| {
        MaskConfig::new(causal, Padding::ALL[p], if large { Fill::LargeNegative } else { Fill::NegInf })
    })
}

fn scenario() -> impl Strategy<Value = Scenario> {
    let word = prop::sample::select(vec!["a", "b", "c", "bat", "😀", "ب", "e\u{301}"]);
    (1usize..=4, 1usize..=4, 1usize..=3, mask(), 0usize..3, any::<bool>(), any::<bool>())
        .prop_flat_map(move |(b, h, d_k, mask, proj, cross, positions)| {
            let d = h * d_k;
            (
                arb_sentences(word.clone(), b, 9, cross),
                prop::collection::vec(adversarial_number(), d * 4),
                prop::collection::vec(adversarial_number(), 4 * d * d),
                Just((d, h, mask, proj, positions)),
            )
        })
        .prop_map(|((sentences, kv_sentences), emb, w, (d, h, mask, proj, positions))| {
            let embeddings: BTreeMap<String, Vec<f64>> = ["a", "bat", "😀", "<pad>"]
                .iter()
                .zip(emb.chunks(d))
                .map(|(k, v)| (k.to_string(), v.to_vec()))
                .collect();
            let m =
                |i: usize| w[i * d * d..(i + 1) * d * d].chunks(d).map(<[f64]>::to_vec).collect::<Vec<_>>();
            let projections = match proj {
                0 => Projections::Named(ProjectionKind::Identity),
                1 => Projections::Named(ProjectionKind::Seeded),
                _ => Projections::Explicit(Box::new(ExplicitWeights {
                    w_q: m(0),
                    b_q: vec![],
                    w_k: m(1),
                    b_k: vec![],
                    w_v: m(2),
                    b_v: vec![],
                    w_o: m(3),
                    b_o: vec![],
                })),
            };
            Scenario {
                sentences,
                kv_sentences,
                d_model: d,
                n_heads: h,
                embeddings,
                projections,
                seed: 1,
                mask,
                positional: if positions { Positional::Sinusoidal } else { Positional::None },
                // every option of today's models off
                ..Scenario::identity(&[], d, h)
            }
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]

    /// Any scenario gives a trace or an error; a trace has NaN only in the fully masked
    /// rows under -inf (and what they flow into), and never an infinity outside `masked`.
    #[test]
    fn adversarial_scenarios_never_panic(s in scenario()) {
        match run(&s) {
            Err(EngineError::BadNumber { .. }) => {
                let all = s.embeddings.values().flatten().copied().chain(match &s.projections {
                    Projections::Explicit(w) => [&w.w_q, &w.w_k, &w.w_v, &w.w_o].into_iter().flatten().flatten().copied().collect(),
                    _ => vec![],
                });
                prop_assert!(all.into_iter().any(|v| !v.is_finite() || v.abs() > limits::MAX_ABS_INPUT));
            }
            Err(e) => prop_assert!(false, "unexpected error {e}"),
            Ok(trace) => {
                if let Err(e) = trace.check_invariants() {
                    prop_assert!(false, "{e}");
                }
                let weights = trace.step(StepName::Weights).unwrap();
                let nan_allowed = s.mask.fill == Fill::NegInf && !trace.fully_masked_rows.is_empty();
                for (idx, v) in weights.data.indexed_iter() {
                    let (b, i) = (idx[0], idx[2]);
                    if v.is_nan() {
                        prop_assert!(nan_allowed && trace.fully_masked_rows.contains(&[b, i]), "NaN at {idx:?}");
                    }
                }
                for step in &trace.steps {
                    if step.name != StepName::Masked {
                        prop_assert!(step.data.iter().all(|v| !v.is_infinite()), "inf in {}", step.name);
                    }
                }
            }
        }
    }

    /// Arbitrary text, and arbitrary edits of a valid scenario, never panic the parser.
    #[test]
    fn arbitrary_json_never_panics(text in ".{0,200}", cut in 0usize..300, insert in ".{0,5}") {
        let _ = attention_engine::run_json(&text);
        let valid = r#"{"sentences":["I bought a baseball bat","the bat"],"d_model":3,"n_heads":1,"embeddings":{"bat":[1,1,0]},"projections":"identity","mask":{"causal":true,"padding":"keys","fill":"neg_inf"}}"#;
        let at = valid.char_indices().map(|(i, _)| i).nth(cut % valid.chars().count()).unwrap_or(0);
        let mut edited = valid.to_string();
        edited.insert_str(at, &insert);
        let _ = attention_engine::run_json(&edited);
        let _ = attention_engine::run_json(&valid[..at]);
    }
}

/// T from 1 to the limit, with the largest d_model: the sizes at the edges run.
#[test]
fn sizes_at_the_limits_run() {
    for t in [1, 2, limits::MAX_TOKENS] {
        let s = Scenario {
            projections: Projections::Named(ProjectionKind::Seeded),
            mask: MaskConfig::new(true, Padding::KeysAndQueries, Fill::NegInf),
            ..Scenario::identity(&["w ".repeat(t).as_str()], 16, 16)
        };
        let trace = run(&s).unwrap();
        assert_eq!(trace.sizes.t, t);
    }
    let wide = Scenario {
        projections: Projections::Named(ProjectionKind::Seeded),
        ..Scenario::identity(&["a b"], limits::MAX_D_MODEL, limits::MAX_HEADS)
    };
    assert_eq!(run(&wide).unwrap().sizes.d_k, 16);
}

/// Scores of 1e4 still give finite weights (max-subtraction), and NaN typed into an
/// embedding is an error, not NaN everywhere.
#[test]
fn numerics_stay_finite_and_nan_input_is_refused() {
    let mut s = Scenario {
        embeddings: BTreeMap::from([("big".into(), vec![100.0]), ("small".into(), vec![0.0])]),
        ..Scenario::identity(&["big small"], 1, 1)
    };
    // score(big, big) = 100·100 = 1e4
    let trace = run(&s).unwrap();
    let w = trace.step(StepName::Weights).unwrap();
    assert!(w.data.iter().all(|v| v.is_finite()));
    assert_eq!(w.data[[0, 0, 0, 0]], 1.0);
    s.embeddings.insert("small".into(), vec![f64::NAN]);
    assert!(matches!(run(&s), Err(EngineError::BadNumber { .. })));
}

/// Messages about bad input stay readable: 1e999 (serde_json's "number out of range")
/// says what to do, huge numbers are in e-notation, and words or field names from a
/// tampered file are quoted shortened, never at full length.
#[test]
fn bad_input_messages_are_short_and_say_what_to_do() {
    let inf = r#"{"sentences": ["a b"], "d_model": 4, "n_heads": 2, "embeddings": {"a": [1e999, 0, 0, 0]}}"#;
    let e = attention_engine::run_json(inf).unwrap_err();
    assert_eq!(e.field().as_str(), "scenario");
    let msg = e.to_string();
    assert!(msg.starts_with("the scenario JSON is not valid: number out of range at line 1 column"), "{msg}");
    assert!(msg.ends_with("inputs must be finite numbers with |x| ≤ 1e30)"), "{msg}");

    let m = |v: f64| vec![vec![v, 0.0], vec![0.0, 1.0]];
    let big = Scenario {
        projections: Projections::Explicit(Box::new(ExplicitWeights {
            w_q: m(1.0),
            b_q: vec![],
            w_k: m(1e31),
            b_k: vec![],
            w_v: m(1.0),
            b_v: vec![],
            w_o: m(1.0),
            b_o: vec![],
        })),
        ..Scenario::identity(&["a b"], 2, 1)
    };
    assert_eq!(
        run(&big).unwrap_err().to_string(),
        "w_k[0][0] is 1e31: inputs must be finite numbers with |x| ≤ 1e30"
    );

    let word = format!("<img src=x onerror=alert(1)>{}", "b".repeat(3000));
    let mut long = big.clone();
    long.projections = Projections::Named(ProjectionKind::Identity);
    long.sentences = vec![word.clone()];
    long.embeddings = BTreeMap::from([(word.clone(), vec![1.0])]);
    let msg = run(&long).unwrap_err().to_string();
    assert!(msg.starts_with("the embedding of \"<img src=x onerror=alert(1)>bbbbbbbbbbbb…bbbb"), "{msg}");
    assert!(msg.ends_with("\" has 1 numbers, but d_model = 2") && msg.chars().count() < 120, "{msg}");
    long.embeddings = BTreeMap::from([(word.clone(), vec![f64::NAN, 0.0])]);
    let msg = run(&long).unwrap_err().to_string();
    assert!(msg.contains("bbbb\"[0] is NaN: inputs must be finite") && msg.chars().count() < 140, "{msg}");

    let unknown = format!(r#"{{"sentences": ["a"], "d_model": 1, "n_heads": 1, "{}": 1}}"#, "x".repeat(5000));
    let msg = attention_engine::run_json(&unknown).unwrap_err().to_string();
    assert!(msg.starts_with("the scenario JSON is not valid: unknown field `xxxx"), "{msg}");
    assert!(msg.contains("… at line 1 column 50") && msg.chars().count() < 400, "{msg}");
}
