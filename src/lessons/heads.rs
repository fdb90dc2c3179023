//! Lesson 2, why several heads (seed 002): two hand-made heads find two relationships.

use super::quiz::{Quiz, QuizKind};
use super::{argmax, at, base, num, row, token, Extra, Lesson, LessonStep};
use crate::engine::weights::parameter_count;
use crate::engine::{ExplicitWeights, Projections, StepName as S, Trace};

/// The 8 named features: sports, animal, nature, thing, describes, action, refers, function.
const NATURE: usize = 2;
const ANIMAL: usize = 1;
const THING: usize = 3;
const REFERS: usize = 6;

fn zeros(d: usize) -> Vec<Vec<f64>> {
    vec![vec![0.0; d]; d]
}

fn eye(d: usize) -> Vec<Vec<f64>> {
    (0..d).map(|i| (0..d).map(|j| if i == j { 1.0 } else { 0.0 }).collect()).collect()
}

/// Two hand-made heads on the 8 named features (d_k = 4 each):
/// - head 1 (columns 0–3): a pronoun looks for an inanimate thing. Query: "refers";
///   key: "thing" minus "animal".
/// - head 2 (columns 4–7): a word looks for a word of the same nature. Query and key:
///   "nature" (and "animal" on a second column).
///
/// V and W_O are the identity, so each head's output is its slice of the embeddings.
pub fn two_heads() -> ExplicitWeights {
    let mut w_q = zeros(8);
    let mut w_k = zeros(8);
    // head 1: "it" (refers = 2) → column 0
    w_q[REFERS][0] = 1.0;
    w_k[THING][0] = 3.0;
    w_k[ANIMAL][0] = -3.0;
    // head 2: nature and animal → columns 4 and 5
    w_q[NATURE][4] = 2.0;
    w_k[NATURE][4] = 2.0;
    w_q[ANIMAL][5] = 2.0;
    w_k[ANIMAL][5] = 2.0;
    ExplicitWeights { w_q, b_q: vec![], w_k, b_k: vec![], w_v: eye(8), b_v: vec![], w_o: eye(8), b_o: vec![] }
}

/// One head of the same width d_k = 4 that must hold both relationships: the two heads'
/// query and key columns summed into the same four columns.
pub fn one_head_same_budget() -> ExplicitWeights {
    let two = two_heads();
    let fold = |w: &Vec<Vec<f64>>| -> Vec<Vec<f64>> {
        w.iter().map(|r| (0..8).map(|j| if j < 4 { r[j] + r[j + 4] } else { 0.0 }).collect()).collect()
    };
    ExplicitWeights { w_q: fold(&two.w_q), w_k: fold(&two.w_k), ..two }
}

/// "dog"'s position in the creek sentence.
const DOG: usize = 7;

/// Head 2's four best-scoring keys for "dog" (alphabetically, so the order gives nothing
/// away); the right answer is always among them.
fn dog_choices(t: &Trace) -> Vec<String> {
    dog_candidates(t).into_iter().map(|j| format!("\"{}\"", token(t, 0, j))).collect()
}

fn dog_candidates(t: &Trace) -> Vec<usize> {
    let n = t.key_tokens(0).len();
    let mut keys: Vec<usize> = (0..n).collect();
    keys.sort_by(|&a, &b| at(t, S::Weights, 0, 1, DOG, b).total_cmp(&at(t, S::Weights, 0, 1, DOG, a)));
    // one entry per distinct word
    let mut seen = Vec::new();
    keys.retain(|&j| {
        let w = token(t, 0, j).to_lowercase();
        let new = !seen.contains(&w);
        seen.push(w);
        new
    });
    keys.truncate(4);
    keys.sort_by_key(|&j| token(t, 0, j).to_lowercase());
    keys
}

fn dog_answer(t: &Trace) -> Option<(usize, String)> {
    let top = *t.top_keys(0, 1, DOG).first()?;
    let word = token(t, 0, top).to_lowercase();
    let i = dog_candidates(t).iter().position(|&j| token(t, 0, j).to_lowercase() == word)?;
    Some((
        i,
        format!(
            "In head 2, \"dog\" gives {} to \"{}\": the largest of its scaled scores ({}) gets the largest weight.",
            num(at(t, S::Weights, 0, 1, DOG, top)),
            token(t, 0, top),
            num(at(t, S::Scaled, 0, 1, DOG, top)),
        ),
    ))
}

const CREEK: &str = "The creek was cold and the spunky dog wanted to jump over it";
const IT: usize = 12;
const COLD: usize = 3;
const CREEK_I: usize = 1;

/// The lesson.
pub fn lesson() -> Lesson {
    let mut two = base(&[CREEK], 8, 2);
    two.projections = Projections::Explicit(Box::new(two_heads()));
    let mut one = base(&[CREEK], 8, 2);
    one.projections = Projections::Explicit(Box::new(one_head_same_budget()));
    Lesson {
        id: "why-heads",
        title: "Why several heads",
        seeds: "the multi-head attention article",
        steps: vec![
            LessonStep {
                title: "Two relationships to one word",
                scenario: two.clone(),
                focus: S::X,
                batch: 0,
                extra: Extra::None,
                quiz: None,
                highlight: super::no_highlight,
                narrate: |t| {
                    format!(
                        "\"The creek was cold and the spunky dog wanted to jump over it.\" \"cold\" describes the \
                         creek and \"it\" refers to the creek: two different relationships to the same word. \
                         Each token has 8 named features ({}); \"creek\" is {}.",
                        t.feature_names.as_ref().map(|f| f.join(", ")).unwrap_or_default(),
                        row(t, S::X, 0, 0, CREEK_I),
                    )
                },
            },
            LessonStep {
                title: "Head 1: a pronoun finds its referent",
                scenario: two.clone(),
                focus: S::Weights,
                batch: 0,
                extra: Extra::None,
                quiz: None,
                highlight: |t| {
                    argmax(t, 0, 0, IT).map(|j| super::cell(S::Weights, IT, j)).into_iter().collect()
                },
                narrate: |t| {
                    let j = argmax(t, 0, 0, IT).unwrap_or(0);
                    format!(
                        "Head 1's queries ask \"do I refer to something?\" and its keys answer \"I am a thing, \
                         not an animal\". The \"it\" row puts its largest weight, {}, on \"{}\" (and {} on \
                         \"dog\").",
                        num(at(t, S::Weights, 0, 0, IT, j)),
                        token(t, 0, j),
                        num(at(t, S::Weights, 0, 0, IT, 7)),
                    )
                },
            },
            LessonStep {
                title: "Head 2: an adjective finds its noun",
                scenario: two.clone(),
                focus: S::Weights,
                batch: 0,
                extra: Extra::None,
                quiz: None,
                highlight: |t| {
                    argmax(t, 0, 1, COLD)
                        .map(|j| super::Cell { step: S::Weights, batch: 0, head: 1, row: COLD, col: j })
                        .into_iter()
                        .collect()
                },
                narrate: |t| {
                    let j = argmax(t, 0, 1, COLD).unwrap_or(0);
                    format!(
                        "Head 2 looks at other columns of the same embeddings: nature and animal. The \"cold\" \
                         row puts its largest weight, {}, on \"{}\". The heads see different subspaces \
                         (columns 1–4 and 5–8 of Q and K), so they can attend to different things.",
                        num(at(t, S::Weights, 0, 1, COLD, j)),
                        token(t, 0, j),
                    )
                },
            },
            LessonStep {
                title: "One head with the same budget blurs them",
                scenario: one,
                focus: S::Weights,
                batch: 0,
                extra: Extra::None,
                quiz: None,
                highlight: |t| {
                    [super::row_cells(t, S::Weights, 0, 0, IT), super::row_cells(t, S::Weights, 0, 0, COLD)]
                        .concat()
                },
                narrate: |t| {
                    format!(
                        "Now both relationships must share one head's 4 query and key columns (head 1 here; head \
                         2 is left empty, so it attends uniformly). To make both \"cold\" and \"it\" match \
                         \"creek\", their queries must point the same way, so they become the same query: \
                         \"it\" attends {} and \"cold\" attends {}, identical rows. The head can no longer \
                         tell \"a pronoun looking for its referent\" from \"an adjective looking for its noun\"; \
                         with two heads their rows differ.",
                        row(t, S::Weights, 0, 0, IT),
                        row(t, S::Weights, 0, 0, COLD),
                    )
                },
            },
            LessonStep {
                title: "Predict: where does \"dog\" look in head 2?",
                scenario: two.clone(),
                focus: S::Scaled,
                batch: 0,
                extra: Extra::None,
                highlight: super::no_highlight,
                quiz: Some(Quiz {
                    reveal: Some(S::Weights),
                    question: |_| {
                        "Head 2 matches words on nature and animal. Reading head 2's scaled scores, which word \
                         will \"dog\" attend to most?"
                            .into()
                    },
                    kind: QuizKind::Choice { choices: dog_choices, answer: dog_answer },
                }),
                narrate: |_| {
                    "Predict first: in each row, softmax gives the largest weight to the largest score. Choose \
                     an answer to see head 2's weights for \"dog\"."
                        .into()
                },
            },
            LessonStep {
                title: "Concat and W_O mix the heads",
                scenario: two,
                focus: S::Concat,
                batch: 0,
                extra: Extra::None,
                quiz: None,
                highlight: super::no_highlight,
                narrate: |t| {
                    let d = t.sizes.d_model;
                    format!(
                        "Each head returns d_k = {} numbers per token; concat lays them side by side into \
                         d_model = {} (the coloured bands), and W_O ({}×{}) mixes them. The layer has \
                         4·d_model² + 4·d_model = {} parameters whatever h is, and each head costs O(T²·d_k) \
                         = {}²·{} multiply-adds for its scores.",
                        t.sizes.d_k,
                        d,
                        d,
                        d,
                        parameter_count(d),
                        t.sizes.t,
                        t.sizes.d_k,
                    )
                },
            },
        ],
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{run, Trace};

    #[test]
    fn two_heads_find_creek_and_one_head_blurs() {
        let l = lesson();
        let trace = run(&l.steps[1].scenario).unwrap();
        assert_eq!(trace.tokens[0][CREEK_I], "creek");
        assert_eq!(trace.tokens[0][IT], "it");
        assert_eq!(trace.tokens[0][COLD], "cold");
        assert_eq!(argmax(&trace, 0, 0, IT), Some(CREEK_I), "head 1: it → creek");
        assert_eq!(argmax(&trace, 0, 1, COLD), Some(CREEK_I), "head 2: cold → creek");
        let w =
            |t: &Trace, h: usize, i: usize| t.step(S::Weights).unwrap().matrix(0, h).unwrap().row(i).to_vec();
        // two heads: "it" and "cold" attend differently in each head
        assert_ne!(w(&trace, 0, IT), w(&trace, 0, COLD));
        assert_ne!(w(&trace, 1, IT), w(&trace, 1, COLD));
        // one head of the same width: the same query, so the same row
        let blurred = run(&l.steps[3].scenario).unwrap();
        assert_eq!(w(&blurred, 0, IT), w(&blurred, 0, COLD));
    }
}
