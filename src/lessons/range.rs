//! Lesson 13, keeping scores in range: large vectors make large scores and a softmax that
//! puts all its weight on one key; logit softcapping (Gemma 2) bends every score into
//! ±c; QK-norm (Qwen3, Gemma 3) normalizes each head's q and k, so no score can pass
//! √d_k. One head of d_k = 4 on identity projections, so each score is a dot product the
//! words can name.

use std::collections::BTreeMap;

use super::claims::{Claim, Quantity};
use super::quiz::{Quiz, QuizKind};
use super::{at, base, cell, num, row, row_aside, row_cells, token, Aside, Lesson, LessonStep};
use crate::engine::{QkNorm, Scenario, StepName as S, Trace};

const SENTENCE: &str = "a big cat sat";
/// "cat" and "sat".
const CAT: usize = 2;
const SAT: usize = 3;
/// The cap of the softcap step.
const CAP: f64 = 5.0;

/// Four tokens of d_model = 4 on one head; a softcap and QK-norm as asked.
fn scenario(softcap: Option<f64>, qk_norm: bool) -> Scenario {
    let mut s = base(&[SENTENCE], 4, 1);
    s.embeddings = BTreeMap::from([
        ("a".to_string(), vec![0.0, 0.0, 2.0, 0.0]),
        ("big".to_string(), vec![0.0, 0.0, 0.0, 2.0]),
        ("cat".to_string(), vec![4.0, 0.0, 0.0, 0.0]),
        ("sat".to_string(), vec![2.0, 2.0, 0.0, 0.0]),
    ]);
    s.softcap = softcap;
    s.qk_norm = qk_norm.then(QkNorm::per_head);
    s
}

/// The trace's cap, as the settings field shows it ("none" without one).
fn cap_of(t: &Trace) -> String {
    t.softcap.map_or_else(|| "none".into(), |c| c.to_string())
}

/// How the trace scaled its scores: by 1/√d_k, or by the scale field's factor.
fn scaling(t: &Trace) -> String {
    let d_k = t.sizes.d_k;
    match t.scale {
        None => format!("q·k / √d_k with d_k = {d_k}"),
        Some(f) => format!("q·k × {f} (the scale field's factor, in place of 1/√d_k with d_k = {d_k})"),
    }
}

/// `x` as a settings field shows it, or to two decimals when it is not whole.
fn short(x: f64) -> String {
    if x.fract() == 0.0 {
        x.to_string()
    } else {
        num(x)
    }
}

/// The largest scaled score QK-norm (weights 1) allows, worked out as the trace scales:
/// d_k / √d_k, or d_k times the scale field's factor.
fn bound(t: &Trace) -> String {
    let d_k = t.sizes.d_k as f64;
    match t.scale {
        None => format!("{d_k} / √{d_k} = {}", short(d_k.sqrt())),
        Some(f) => format!("{d_k} × {f} = {} (the scale field's factor)", short(d_k * f)),
    }
}

/// "cat"'s row through the steps this trace has: scaled, capped (with a softcap), weights.
fn cat_aside(t: &Trace) -> Option<Aside> {
    let steps: Vec<(&str, S)> = [("scaled", S::Scaled), ("capped", S::Capped), ("weights", S::Weights)]
        .into_iter()
        .filter(|(_, s)| t.step(*s).is_some())
        .collect();
    let caption = format!(
        "\"{cat}\"'s row; \"{cat}\" = {} and \"{sat}\" = {}",
        row(t, S::X, 0, 0, CAT),
        row(t, S::X, 0, 0, SAT),
        cat = token(t, 0, CAT),
        sat = token(t, 0, SAT),
    );
    row_aside(t, caption, 0, 0, CAT, &steps)
}

/// `step` about "cat"'s row: its weights outlined, the row through the steps beside them,
/// and the claims its words make.
fn on_cat(step: LessonStep) -> LessonStep {
    step.highlight(|t| row_cells(t, S::Weights, 0, 0, CAT)).aside(cat_aside).claims(cat_claims)
}

/// "cat"'s weight on key `j`.
fn w(j: usize) -> Quantity {
    Quantity::Cell(cell(S::Weights, CAT, j))
}

/// "cat" gives itself the most, and "sat" the second most: the words are about those two
/// words' vectors at their places.
fn cat_claims(_: &Trace) -> Vec<Claim> {
    let mut out = Claim::words_at(&[(CAT, "cat"), (SAT, "sat")]);
    out.push(Claim::Largest(w(CAT), vec![w(0), w(1), w(SAT)]));
    out.push(Claim::Greater(w(SAT), w(0)));
    out
}

/// The lesson.
pub fn lesson() -> Lesson {
    Lesson {
        id: "score-range",
        title: "Keeping scores in range",
        seeds: "Gemma 2's softcap and Qwen3's QK-norm",
        steps: vec![
            on_cat(LessonStep::new(
                "Large vectors, a one-hot softmax",
                scenario(None, false),
                S::Weights,
                |t| {
                    format!(
                    "Raw scores are dot products, q·k, so they grow with the vectors. \"{cat}\" is {} and \"{sat}\" \
                     {}: \"{cat}\"'s scaled scores, {}, are {}, and softmax gives {}, \
                     nearly all on itself. A softmax that saturated passes almost no gradient to the keys it \
                     ignores, and in training such scaled scores can keep growing until the run diverges (Dehghani \
                     et al. 2023, vision transformers at 22B). The 1/√d_k keeps \
                     the scaled scores of random vectors near 1 whatever d_k is, but not of vectors that grew.",
                    row(t, S::X, 0, 0, CAT),
                    row(t, S::X, 0, 0, SAT),
                    scaling(t),
                    row(t, S::Scaled, 0, 0, CAT),
                    row(t, S::Weights, 0, 0, CAT),
                    cat = token(t, 0, CAT),
                    sat = token(t, 0, SAT),
                )
                },
            ))
            .claims(|t| {
                // "nearly all on itself": more than nine tenths of the row
                let mut out = cat_claims(t);
                out.push(Claim::Greater(w(CAT), Quantity::Computed("nine tenths", 0.9)));
                out
            }),
            LessonStep::new("Predict: a scaled score under a cap", scenario(Some(CAP), false), S::Scaled, |_| {
                "Type a number to see the scaled scores after the cap.".into()
            })
            // the scaled and the capped scores in one colour range, the uncapped scores':
            // a capped score pales
            .shared_range(&[S::Scaled, S::Capped])
            .quiz(Quiz {
                reveal: Some(S::Capped),
                reveal_extra: None,
                question: |t| {
                    format!(
                        "Gemma 2 bends every scaled score s through c·tanh(s / c). With c = {}, what does \
                         \"{cat}\"'s scaled score for itself, {}, become? (tanh(x) is close to x for small x and \
                         never above 1.)",
                        cap_of(t),
                        num(at(t, S::Scaled, 0, 0, CAT, CAT)),
                        cat = token(t, 0, CAT),
                    )
                },
                kind: QuizKind::Number {
                    answer: |t| {
                        let s = at(t, S::Scaled, 0, 0, CAT, CAT);
                        let capped = at(t, S::Capped, 0, 0, CAT, CAT);
                        let c = cap_of(t);
                        capped.is_finite().then(|| {
                            (
                                capped,
                                format!(
                                    "{c}·tanh({} / {c}) = {}: under the cap, however large the scaled score.",
                                    num(s),
                                    num(capped)
                                ),
                            )
                        })
                    },
                    tolerance: 0.05,
                },
            }),
            on_cat(LessonStep::new("Softcap: c·tanh(s / c)", scenario(Some(CAP), false), S::Weights, |t| {
                format!(
                    "Gemma 2 bends every scaled score through c·tanh(s / c) before the mask: close to s while |s| \
                     is small, never past ±c. It caps at c = 50, against scaled scores that large; these are \
                     smaller, so c = {} here. \"{cat}\"'s scaled scores {} become {}, and its weights {}: \
                     still the most on itself, but the runner-up \"{sat}\" keeps a share. The order of the \
                     scaled scores never changes (tanh only rises), so a cap tames the outliers without reordering \
                     the keys; too small a c would squash real differences too.",
                    cap_of(t),
                    row(t, S::Scaled, 0, 0, CAT),
                    row(t, S::Capped, 0, 0, CAT),
                    row(t, S::Weights, 0, 0, CAT),
                    cat = token(t, 0, CAT),
                    sat = token(t, 0, SAT),
                )
            })),
            LessonStep::new("QK-norm: queries and keys of one size", scenario(None, true), S::Weights, |t| {
                format!(
                    "Qwen3 and Gemma 3 normalize each head's q and k with RMSNorm (learned weights, here \
                     1) before the raw scores: every row is divided by its root mean square, so it has length \
                     √d_k = {root} whatever the embedding's size. \"{cat}\"'s query is now {}. Two vectors of \
                     length {root} have a dot product of at most {d_k}, so no scaled score can pass {}: \
                     \"{cat}\"'s are {}, and its weights {}. What is left is the angle between q and k, \
                     which the learned weights can still stretch.",
                    row(t, S::QNorm, 0, 0, CAT),
                    bound(t),
                    row(t, S::Scaled, 0, 0, CAT),
                    row(t, S::Weights, 0, 0, CAT),
                    cat = token(t, 0, CAT),
                    d_k = t.sizes.d_k,
                    root = short((t.sizes.d_k as f64).sqrt()),
                )
            })
            .highlight(|t| row_cells(t, S::Weights, 0, 0, CAT))
            .aside(|t| {
                row_aside(
                    t,
                    format!("\"{}\"'s row after QK-norm", token(t, 0, CAT)),
                    0,
                    0,
                    CAT,
                    &[("scaled", S::Scaled), ("weights", S::Weights)],
                )
                .map(|mut a| {
                    // the normalized query is d_k wide, not one per key: a caption line
                    a.caption =
                        format!("{}; its normalized query is {}", a.caption, row(t, S::QNorm, 0, 0, CAT));
                    a
                })
            })
            .claims(cat_claims),
        ],
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::run;

    #[test]
    fn the_cap_and_the_norm_bound_the_scores() {
        let plain = run(&scenario(None, false)).unwrap();
        // cat · cat / √4 = 16 / 2
        assert_eq!(at(&plain, S::Scaled, 0, 0, CAT, CAT), 8.0);
        assert!(at(&plain, S::Weights, 0, 0, CAT, CAT) > 0.98);
        let capped = run(&scenario(Some(CAP), false)).unwrap();
        assert!((at(&capped, S::Capped, 0, 0, CAT, CAT) - CAP * (8.0 / CAP).tanh()).abs() < 1e-12);
        let normed = run(&scenario(None, true)).unwrap();
        for j in 0..4 {
            assert!(at(&normed, S::Scaled, 0, 0, CAT, j) <= 2.0);
        }
        // the words' rounded query: [4, 0, 0, 0] / rms 2
        assert_eq!(row(&normed, S::QNorm, 0, 0, CAT), "[2.00, 0.00, 0.00, 0.00]");
        assert_eq!(num(at(&normed, S::Scaled, 0, 0, CAT, CAT)), "2.00");
    }

    /// The cap and the scale the words name are the ones on screen after the learner edits
    /// them in "Change the numbers".
    #[test]
    fn the_words_name_the_settings_on_screen() {
        let lesson = lesson();
        let words =
            |i: usize, edit: &dyn Fn(&mut Scenario)| crate::lessons::tests::words_after(&lesson, i, edit);
        let (three, _) = words(2, &|s| s.softcap = Some(2.0));
        assert!(three.contains("so c = 2 here") && !three.contains("c = 5 here"), "{three}");
        let (one, _) = words(0, &|s| s.scale = Some(0.25));
        assert!(
            one.contains("q·k × 0.25 (the scale field's factor") && !one.contains("q·k / √d_k with"),
            "{one}"
        );
        let (four, _) = words(3, &|s| s.scale = Some(0.25));
        assert!(four.contains("can pass 4 × 0.25 = 1 (the scale") && !four.contains("4 / √4"), "{four}");
        let quiz = lesson.steps[1].quiz.unwrap();
        let mut s = lesson.steps[1].scenario.clone();
        s.softcap = Some(2.0);
        let question = (quiz.question)(&run(&s).unwrap());
        assert!(question.contains("With c = 2,"), "{question}");
    }
}
