//! Lesson 7, rotary positions (RoPE): a turn instead of an addition, and why a query·key
//! product then sees only how far apart the two words are. Followed by the two ways the
//! code we read pairs the dimensions (Hugging Face's `rotate_half`, Meta's interleaved).

use std::collections::BTreeMap;

use super::quiz::{Quiz, QuizKind};
use super::{at, base, num, row, token, Aside, Cell, Claim, Lesson, LessonStep, Quantity};
use crate::engine::{Rope, RopeStyle, Scenario, StepName as S, Trace};

/// "bat ball" twice, four positions apart: positions 0 1 and 4 5.
const SENTENCE: &str = "bat ball and a bat ball";
const BALL_1: usize = 1;
const BAT_0: usize = 0;
const BALL_5: usize = 5;
const BAT_4: usize = 4;

/// One head of d_k = 4 (two pairs), identity projections, hand-made vectors, RoPE of
/// `style` (or none).
fn scenario(style: Option<RopeStyle>) -> Scenario {
    let mut s = base(&[SENTENCE], 4, 1);
    s.embeddings = BTreeMap::from([
        ("bat".into(), vec![1.0, 0.0, 1.0, 0.0]),
        ("ball".into(), vec![0.5, 1.0, 0.0, 1.0]),
        ("and".into(), vec![0.2, -0.1, 0.3, 0.1]),
        ("a".into(), vec![-0.1, 0.2, 0.1, 0.3]),
    ]);
    s.rope = style.map(Rope::new);
    s
}

/// The three (query, key) pairs of the lesson: ball@1→bat@0, ball@5→bat@4, ball@5→bat@0.
const PAIRS: [(usize, usize); 3] = [(BALL_1, BAT_0), (BALL_5, BAT_4), (BALL_5, BAT_0)];

/// [`PAIRS`]' cells of `step`.
fn pairs(step: S) -> Vec<Cell> {
    PAIRS.into_iter().map(|(row, col)| Cell { step, batch: 0, head: 0, row, col }).collect()
}

/// [`PAIRS`]' scores, as the words write them.
fn pair_scores(t: &Trace) -> [String; 3] {
    PAIRS.map(|(i, j)| num(at(t, S::Scores, 0, 0, i, j)))
}

/// The table of [`PAIRS`]' scores the distance step quotes: each pair with its two
/// positions, their distance and its score, for a picture too small to write them (a
/// phone, an embed) and for a reader who wants them side by side.
fn pairs_table(t: &Trace) -> Option<Aside> {
    let rows = PAIRS
        .into_iter()
        .map(|(i, j)| {
            (
                format!("\"{}\" at {i} → \"{}\" at {j}", token(t, 0, i), token(t, 0, j)),
                vec![(i.abs_diff(j)).to_string(), num(at(t, S::Scores, 0, 0, i, j))],
            )
        })
        .collect();
    Some(Aside {
        caption:
            "The three outlined scores: the query's and the key's positions, how far apart they are, and \
                  the score."
                .into(),
        head: vec!["query → key".into(), "distance".into(), "score".into()],
        rows,
    })
}

/// The turned rows of "ball" at positions 1 and 5.
fn ball_rows(t: &Trace) -> Vec<Cell> {
    [super::row_cells(t, S::QRot, 0, 0, BALL_1), super::row_cells(t, S::QRot, 0, 0, BALL_5)].concat()
}

/// The θ of pair `i` in a head of `d_k`, as the engine turns it (`10000^(−2i/d_k)` unless
/// the trace's RoPE says otherwise).
fn theta(t: &Trace, i: usize) -> f64 {
    t.rope.unwrap_or(Rope::new(crate::engine::RopeStyle::Half)).inv_freq(i, t.sizes.d_k)
}

/// The score of query `i` and key `j`, as a claim's quantity.
fn score(i: usize, j: usize) -> Quantity {
    Quantity::Cell(Cell { step: S::Scores, batch: 0, head: 0, row: i, col: j })
}

/// "\"ball\" at position 1 … \"bat\" at 4": the words every step quotes at their places
/// in the lesson's sentence, which hold only while the learner's sentence keeps them there.
fn place_claims() -> Vec<Claim> {
    Claim::words_at(&[(BAT_0, "bat"), (BALL_1, "ball"), (BAT_4, "bat"), (BALL_5, "ball")])
}

/// Step 1's claims: without positions, "ball" scores the same with every "bat", one or
/// five positions back (the same vectors give the same dot product).
fn no_position_claims(_: &Trace) -> Vec<Claim> {
    let mut out = place_claims();
    out.push(Claim::Equal(score(BALL_1, BAT_0), score(BALL_5, BAT_4)));
    out.push(Claim::Equal(score(BALL_5, BAT_4), score(BALL_5, BAT_0)));
    out
}

/// Step 4's claim: with RoPE, the two one-apart pairs score the same ("only the distance
/// counts").
fn distance_claims(_: &Trace) -> Vec<Claim> {
    let mut out = place_claims();
    out.push(Claim::Equal(score(BALL_1, BAT_0), score(BALL_5, BAT_4)));
    out
}

/// Is the score of ball@5→bat@4 the same as ball@1→bat@0 (to 1e-12), larger or smaller?
fn offset_answer(t: &Trace) -> Option<(usize, String)> {
    let (near, far) = (at(t, S::Scores, 0, 0, BALL_1, BAT_0), at(t, S::Scores, 0, 0, BALL_5, BAT_4));
    if !near.is_finite() || !far.is_finite() {
        return None;
    }
    let tol = 1e-12 * near.abs().max(1.0);
    // the choices: the same, larger, smaller
    let i = if (far - near).abs() <= tol {
        0
    } else if far > near {
        1
    } else {
        2
    };
    let why = if i == 0 {
        format!(
            "Both pairs are one position apart, so both score {}: turning the query and the key by four more \
             positions each leaves the angle between them as it was, and a dot product only sees that angle.",
            num(near)
        )
    } else {
        format!(
            "Here they differ ({} and {}): the numbers were edited so that something other than RoPE tells \
             the positions apart.",
            num(near),
            num(far)
        )
    };
    Some((i, why))
}

/// The lesson.
pub fn lesson() -> Lesson {
    Lesson {
        id: "rope",
        title: "RoPE",
        seeds: "Llama, Mistral and Qwen's attention",
        steps: vec![
            LessonStep::new(
                "Without positions, order is invisible",
                scenario(None),
                S::Scores,
                |t| {
                    let [one_apart, later, five_apart] = pair_scores(t);
                    format!(
                        "\"bat ball\" appears twice, four positions apart. Without any positional information a \
                         query·key score cannot tell where the words are: \"ball\" at position 1 scores {one_apart} \
                         with \"bat\" at position 0, \"ball\" at position 5 scores {later} with \"bat\" at 4, and \
                         {five_apart} with the \"bat\" five positions back. Today's models fix this inside attention \
                         itself."
                    )
                },
            )
            .highlight(|_| pairs(S::Scores))
            .claims(no_position_claims),
            LessonStep::new(
                "RoPE turns each query and key",
                scenario(Some(RopeStyle::Half)),
                S::QRot,
                |t| {
                    format!(
                        "RoPE (rotary position embedding) does not add a vector: it turns each query and key by \
                         an angle that grows with the word's position. The head's d_k = {} numbers form {} pairs, \
                         and pair i turns by position × θ_i, with θ_i = base^(−2i/d_k): θ_0 = 1 radian per \
                         position, θ_1 = 1/{} of a radian. The same word \"ball\" is {} at position 1 and {} at \
                         position 5: turned further. A turn keeps the length, so both rows are as long as \
                         \"ball\"'s query was before it was turned.",
                        t.sizes.d_k,
                        t.sizes.d_k / 2,
                        (1.0 / theta(t, 1)).round(),
                        row(t, S::QRot, 0, 0, BALL_1),
                        row(t, S::QRot, 0, 0, BALL_5),
                    )
                },
            )
            .highlight(ball_rows)
            .claims(|_| place_claims()),
            LessonStep::new(
                "Predict: the same distance, four positions later",
                scenario(Some(RopeStyle::Half)),
                // the turned queries, not the scores: the answer is not in the picture yet
                S::QRot,
                |_| {
                    "Predict first. The queries of \"ball\" at positions 1 and 5 are turned by different \
                     angles (the outlined rows), and so are the keys of the two \"bat\"s. Choose an answer, then \
                     go on to see the scores."
                        .into()
                },
            )
            .quiz(Quiz {
                    reveal: Some(S::Scores),
                    reveal_extra: None,
                    question: |_| {
                        "With RoPE, take the score of \"ball\" at position 1 with \"bat\" at position 0. \
                         Now \"ball\" at position 5 with \"bat\" at position 4: each is turned by four \
                         positions more. Compared with the first pair's score, their score is…"
                            .into()
                    },
                    kind: QuizKind::Choice {
                        choices: |_| vec!["the same".into(), "larger".into(), "smaller".into()],
                        answer: offset_answer,
                    },
                })
            .highlight(ball_rows)
            .claims(|_| place_claims()),
            LessonStep::new(
                "Only the distance counts",
                scenario(Some(RopeStyle::Half)),
                S::Scores,
                |t| {
                    let [one_apart, later, five_apart] = pair_scores(t);
                    format!(
                        "Both one-apart pairs score {one_apart} and {later}: only the distance between the two \
                         words counts, not where they stand. Five positions apart, \"ball\" at 5 and the first \
                         \"bat\" score {five_apart}. This is why RoPE is called relative: the score of a query at \
                         position m and a key at position n depends on m − n alone."
                    )
                },
            )
            .highlight(|_| pairs(S::Scores))
            .claims(distance_claims)
            .aside(pairs_table)
            .embed_aside(pairs_table),
            LessonStep::new(
                "Two ways to pair the dimensions",
                scenario(Some(RopeStyle::Interleaved)),
                S::QRot,
                |t| {
                    format!(
                        "The code you will read pairs the dimensions two ways. Hugging Face's Llama (rotate_half) \
                         pairs dimension i with i + d_k/2: 0 with 2 and 1 with 3 (step 2). The RoFormer paper and \
                         Meta's own Llama code pair neighbours, 2i with 2i+1: 0 with 1 and 2 with 3 \
                         (\"interleaved\", shown here). Same angles, other pairs: \"ball\" at position 5 is {} \
                         here, other numbers than in step 2. The scores still depend only on the distance, but a \
                         checkpoint converted from one layout to the other must reorder the columns of W_Q and W_K \
                         inside each head, or its attention changes; W_V and W_O are not turned and stay.",
                        row(t, S::QRot, 0, 0, BALL_5),
                    )
                },
            )
            .highlight(|t| super::row_cells(t, S::QRot, 0, 0, BALL_5))
            .claims(|_| place_claims()),
        ],
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::run;

    /// The prediction question states the positions and leaves the comparison to the
    /// learner: it does not say the pairs are equally far apart (the answer's reason).
    #[test]
    fn the_prediction_question_does_not_give_the_answer_away() {
        let l = lesson();
        let t = l.trace(2);
        let q = (l.steps[2].quiz.unwrap().question)(&t);
        assert!(!q.contains("apart") && !q.contains("also"), "{q}");
        for p in ["position 1", "position 0", "position 5", "position 4"] {
            assert!(q.contains(p), "{q}");
        }
    }

    /// The distance step's table holds every score its words quote, with the positions.
    #[test]
    fn the_distance_step_tables_the_scores_it_quotes() {
        let l = lesson();
        let t = l.trace(3);
        let words = l.steps[3].words(&t);
        let table = (l.steps[3].aside)(&t).unwrap();
        assert_eq!(Some(table.clone()), l.steps[3].embed_aside.and_then(|a| a(&t)));
        for (n, (i, j)) in pair_scores(&t).iter().zip(PAIRS) {
            assert!(words.contains(n.as_str()), "{n}: {words}");
            let row = table.rows.iter().find(|(title, _)| {
                title.contains(&format!("at {i} →")) && title.ends_with(&format!("at {j}"))
            });
            assert_eq!(
                row.map(|(_, c)| c.clone()),
                Some(vec![i.abs_diff(j).to_string(), n.clone()]),
                "{table:?}"
            );
        }
        assert_eq!(table.rows[0].0, "\"ball\" at 1 → \"bat\" at 0");
    }

    /// The length of row `i` of a `(B, h, T, d_k)` step, head 0.
    fn length(t: &Trace, step: S, i: usize) -> f64 {
        t.step(step)
            .and_then(|s| s.matrix(0, 0))
            .filter(|m| i < m.nrows())
            .map_or(f64::NAN, |m| m.row(i).iter().map(|v| v * v).sum::<f64>().sqrt())
    }

    #[test]
    fn rope_makes_the_score_depend_on_the_distance_only() {
        let none = run(&scenario(None)).unwrap();
        // without positions, all three (ball, bat) pairs score the same
        let s = |t: &Trace, i, j| at(t, S::Scores, 0, 0, i, j);
        assert_eq!(s(&none, BALL_1, BAT_0), s(&none, BALL_5, BAT_0));
        for style in RopeStyle::ALL {
            let t = run(&scenario(Some(style))).unwrap();
            assert!((s(&t, BALL_1, BAT_0) - s(&t, BALL_5, BAT_4)).abs() < 1e-12, "{style:?}");
            assert!((s(&t, BALL_5, BAT_0) - s(&t, BALL_1, BAT_0)).abs() > 0.1, "{style:?}: 5 apart differs");
            assert_eq!(offset_answer(&t).unwrap().0, 0, "the same");
            // a turn keeps the length
            assert!((length(&t, S::QRot, BALL_5) - length(&t, S::QHeads, BALL_5)).abs() < 1e-12);
        }
        // the two pairings give other numbers for the same word
        let (h, i) = (
            run(&scenario(Some(RopeStyle::Half))).unwrap(),
            run(&scenario(Some(RopeStyle::Interleaved))).unwrap(),
        );
        assert_ne!(row(&h, S::QRot, 0, 0, BALL_5), row(&i, S::QRot, 0, 0, BALL_5));
    }
}
