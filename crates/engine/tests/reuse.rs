//! `run_reusing` copies the sentences whose inputs did not change from the previous
//! trace: its trace must be `run`'s, bit for bit, whatever the previous trace was.

mod common;

use attention_engine::{run, run_reusing, Fill, Positional, Projections, Scenario, StepName, Trace};
use common::arb_scenario;
use proptest::prelude::*;

/// Every number of every step, bit for bit (NaN included), and everything else.
fn assert_same(got: &Trace, want: &Trace) {
    assert_eq!(got.to_json(), want.to_json());
    assert_eq!(got.steps.len(), want.steps.len());
    for (a, b) in got.steps.iter().zip(&want.steps) {
        assert_eq!(a.data.shape(), b.data.shape(), "{}", a.name);
        let same = a.data.iter().zip(b.data.iter()).all(|(x, y)| x.to_bits() == y.to_bits());
        assert!(same, "step {} differs", a.name);
    }
    assert_eq!(got.params, want.params);
    assert_eq!(got.kv_sources, want.kv_sources);
    assert_eq!(got.nan_rows, want.nan_rows);
    assert_eq!(got.fully_masked_rows, want.fully_masked_rows);
}

/// An edit a user could make between two runs.
#[derive(Debug, Clone)]
enum Edit {
    None,
    /// Sentence `i` (mod B) gets another word at the end, or loses its last word.
    Sentence(usize, bool),
    /// Sentence `i`'s first word changes (same length).
    Word(usize),
    /// Two sentences swap places.
    Swap(usize, usize),
    /// A copy of sentence `i` is added at the end.
    Add(usize),
    /// Sentence `i` is removed (when B > 1).
    Remove(usize),
    Fill,
    Causal,
    Positions,
    /// One weight changes.
    Weight,
    /// One bias changes.
    Bias,
    /// The key/value sentence `i` changes (cross-attention).
    KeySentence(usize),
    /// The run has `n` layers (1 to 3) and shows layer `shown` of them (self-attention:
    /// cross-attention runs one layer).
    Layers(usize, usize),
}

fn arb_edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        Just(Edit::None),
        (0usize..4, any::<bool>()).prop_map(|(i, longer)| Edit::Sentence(i, longer)),
        (0usize..4).prop_map(Edit::Word),
        (0usize..4, 0usize..4).prop_map(|(i, j)| Edit::Swap(i, j)),
        (0usize..4).prop_map(Edit::Add),
        (0usize..4).prop_map(Edit::Remove),
        Just(Edit::Fill),
        Just(Edit::Causal),
        Just(Edit::Positions),
        Just(Edit::Weight),
        Just(Edit::Bias),
        (0usize..4).prop_map(Edit::KeySentence),
        (1usize..=3, 1usize..=3).prop_map(|(n, shown)| Edit::Layers(n, shown)),
    ]
}

fn apply(s: &Scenario, edit: &Edit) -> Scenario {
    let mut s = s.clone();
    let b = s.sentences.len();
    match *edit {
        Edit::None => {}
        Edit::Sentence(i, longer) => {
            let sentence = &mut s.sentences[i % b];
            if longer {
                sentence.push_str(" fox");
            } else if let Some(cut) = sentence.rfind(' ') {
                sentence.truncate(cut);
            } else {
                *sentence = "gnu".into();
            }
        }
        Edit::Word(i) => {
            let sentence = &mut s.sentences[i % b];
            let rest = sentence.split_once(' ').map(|(_, r)| format!(" {r}")).unwrap_or_default();
            let first = if sentence.starts_with("hen") { "eel" } else { "hen" };
            *sentence = format!("{first}{rest}");
        }
        Edit::Swap(i, j) => {
            s.sentences.swap(i % b, j % b);
            if let Some(kv) = &mut s.kv_sentences {
                kv.swap(i % b, j % b);
            }
        }
        Edit::Add(i) => {
            let copy = s.sentences[i % b].clone();
            s.sentences.push(copy);
            if let Some(kv) = &mut s.kv_sentences {
                let copy = kv[i % b].clone();
                kv.push(copy);
            }
        }
        Edit::Remove(i) if b > 1 => {
            s.sentences.remove(i % b);
            if let Some(kv) = &mut s.kv_sentences {
                kv.remove(i % b);
            }
        }
        Edit::Remove(_) => {}
        Edit::Fill => {
            s.mask.fill = if s.mask.fill == Fill::NegInf { Fill::LargeNegative } else { Fill::NegInf };
        }
        Edit::Causal => s.mask.causal = !s.mask.causal,
        Edit::Positions => {
            s.positional =
                if s.positional == Positional::None { Positional::Sinusoidal } else { Positional::None };
        }
        Edit::Weight => {
            if let Projections::Explicit(w) = &mut s.projections {
                w.w_v[0][0] += 0.25;
            }
        }
        Edit::Bias => {
            if let Projections::Explicit(w) = &mut s.projections {
                w.b_q[0] += 0.25;
            }
        }
        Edit::KeySentence(i) => {
            if let Some(kv) = &mut s.kv_sentences {
                kv[i % b].push_str(" ant");
            }
        }
        Edit::Layers(n, shown) if s.kv_sentences.is_none() => {
            s.n_layers = (n > 1).then_some(n);
            s.layer = (n > 1).then_some(shown.min(n));
        }
        Edit::Layers(..) => {}
    }
    s
}

/// `s` run reusing `prev`: a fresh run's trace, bit for bit, or the same refusal (an edit
/// can make a scenario the engine refuses, e.g. layers over a fully masked `-inf` row).
fn reused(s: &Scenario, prev: &Trace) -> Result<Option<Trace>, TestCaseError> {
    match run(s) {
        Ok(fresh) => {
            let t = run_reusing(s, Some(prev)).unwrap();
            assert_same(&t, &fresh);
            Ok(Some(t))
        }
        Err(e) => {
            prop_assert_eq!(run_reusing(s, Some(prev)).unwrap_err().to_string(), e.to_string());
            Ok(None)
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// A chain of three runs, each reusing the one before: every trace is a fresh run's.
    #[test]
    fn reusing_the_previous_trace_changes_no_number(
        s1 in arb_scenario(),
        e1 in arb_edit(),
        e2 in arb_edit(),
    ) {
        let t1 = run(&s1).unwrap();
        let s2 = apply(&s1, &e1);
        let Some(t2) = reused(&s2, &t1)? else { return Ok(()) };
        t2.check_invariants().unwrap();
        let s3 = apply(&s2, &e2);
        let Some(t3) = reused(&s3, &t2)? else { return Ok(()) };
        // and a trace of another scenario altogether is not used
        assert_same(&run_reusing(&s1, Some(&t3)).unwrap(), &t1);
    }
}

/// The previous trace's numbers are copied for the unchanged sentences, and only for
/// them: a number planted in the previous trace shows where it was copied.
#[test]
fn unchanged_sentences_are_copied_and_changed_ones_computed() {
    let s1 = Scenario::from_json(
        r#"{"sentences": ["the cat sat", "a dog ran", "birds fly high"], "d_model": 4, "n_heads": 2,
            "projections": "seeded", "seed": 3, "mask": {"padding": "keys"}}"#,
    )
    .unwrap();
    let mut t1 = run(&s1).unwrap();
    let planted = 12345.0;
    for step in &mut t1.steps {
        match step.name {
            // sentence 0 and sentence 2, first token, first column
            StepName::Output => {
                step.data[[0, 0, 0]] = planted;
                step.data[[2, 0, 0]] = planted;
            }
            // and their first weight in head 1
            StepName::Weights => {
                step.data[[0, 1, 0, 0]] = planted;
                step.data[[2, 1, 0, 0]] = planted;
            }
            _ => {}
        }
    }
    // sentence 0 changes (same length, so T stays), 1 and 2 do not; 2 moves to the front
    let mut s2 = s1.clone();
    s2.sentences = vec!["birds fly high".into(), "a dog ran".into(), "the cow sat".into()];
    let t2 = run_reusing(&s2, Some(&t1)).unwrap();
    let output = t2.step(StepName::Output).unwrap();
    assert_eq!(output.data[[0, 0, 0]], planted, "'birds fly high' was copied from sentence 2");
    assert_ne!(output.data[[2, 0, 0]], planted, "'the cow sat' was computed");
    let weights = t2.step(StepName::Weights).unwrap();
    assert_eq!(weights.data[[0, 1, 0, 0]], planted, "its attention was copied too");
    assert_ne!(weights.data[[2, 1, 0, 0]], planted);
    // a sentence that gets longer changes T: nothing is copied
    s2.sentences[1] = "a dog ran far".into();
    let t3 = run_reusing(&s2, Some(&t1)).unwrap();
    assert_ne!(t3.step(StepName::Output).unwrap().data[[0, 0, 0]], planted);
    assert_same(&t3, &run(&s2).unwrap());
}

/// Seeded weights come from a cache as the same `Arc`; other seeds are other weights.
#[test]
fn another_seed_is_not_reused() {
    let json = |seed: u64| {
        format!(
            r#"{{"sentences": ["one two", "three four"], "d_model": 4, "n_heads": 1, "projections": "seeded", "seed": {seed}}}"#
        )
    };
    let s1 = Scenario::from_json(&json(1)).unwrap();
    let s2 = Scenario::from_json(&json(2)).unwrap();
    let t1 = run(&s1).unwrap();
    assert_same(&run_reusing(&s2, Some(&t1)).unwrap(), &run(&s2).unwrap());
    assert_same(&run_reusing(&s1, Some(&t1)).unwrap(), &t1);
}

/// A layered trace shows a later layer's projections, whose input is not `x`: a one-layer
/// run after it computes afresh (the explorer going from 2 layers back to 1 showed layer
/// 2's weights as the one layer's).
#[test]
fn a_layered_trace_is_not_reused_by_one_layer() {
    let one = Scenario::from_json(
        r#"{"sentences": ["I bought a baseball bat", "the bat flew"], "d_model": 3, "n_heads": 1}"#,
    )
    .unwrap();
    let two = Scenario { n_layers: Some(2), layer: Some(2), ..one.clone() };
    let t2 = run(&two).unwrap();
    assert_same(&run_reusing(&one, Some(&t2)).unwrap(), &run(&one).unwrap());
}

/// A trace read back from JSON has no projections (0 × 0) and is never used.
#[test]
fn a_trace_from_a_file_is_not_used() {
    let s = Scenario::from_json(r#"{"sentences": ["x y z"], "d_model": 2, "n_heads": 2}"#).unwrap();
    let t = run(&s).unwrap();
    let back = Trace::from_json(&t.to_json()).unwrap();
    assert_same(&run_reusing(&s, Some(&back)).unwrap(), &t);
}
