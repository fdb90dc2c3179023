//! Lesson 1, the baseball bat (seed 003): two words in a sports/animal/other space.

use std::collections::BTreeMap;

use super::quiz::{Quiz, QuizKind};
use super::{at, base, cell, compare, num, row, token, Claim, Extra, Lesson, LessonStep, Quantity};
use crate::engine::{StepName as S, Trace};

pub(crate) fn bat_embeddings() -> BTreeMap<String, Vec<f64>> {
    BTreeMap::from([("baseball".into(), vec![2.0, 0.0, 0.0]), ("bat".into(), vec![1.0, 1.0, 0.0])])
}

/// The keys the question offers, in its choices' order: "bat", then "baseball" (the
/// query itself, the answer on the lesson's numbers, is not the first choice).
const OFFERED: [usize; 2] = [1, 0];

/// The two words of the pair, and "they tie".
fn pair_choices(t: &Trace) -> Vec<String> {
    let mut choices: Vec<String> = OFFERED.iter().map(|&j| format!("\"{}\"", token(t, 0, j))).collect();
    choices.push("they tie".into());
    choices
}

/// The key with the larger weight in row 0 (or "they tie"), with the weights as the reason.
fn pair_answer(t: &Trace) -> Option<(usize, String)> {
    let top = t.top_keys(0, 0, 0);
    let i = match top.as_slice() {
        [j] => OFFERED.iter().position(|k| k == j)?,
        [_, _, ..] => OFFERED.len(),
        [] => return None,
    };
    // the scores tie (the learner gave "bat" "baseball"'s vector, say): so do the weights
    let why = if i == OFFERED.len() {
        "equal scaled scores get equal weights"
    } else {
        "the larger scaled score gets the larger weight, and e^(the scaled scores' difference) sets by how much"
    };
    Some((i, format!("Softmax of {} is {}: {why}.", row(t, S::Scaled, 0, 0, 0), row(t, S::Weights, 0, 0, 0))))
}

/// `trace[step][0, 0, i, j]` as a claim's quantity.
fn q(step: S, i: usize, j: usize) -> Quantity {
    Quantity::Cell(cell(step, i, j))
}

/// How "bat" (token 1) is made, in words, and the claims they make: "half sports, half
/// animal" only while its sports and animal print the same, above zero, and "other" is 0.
fn bat_mix(t: &Trace) -> (&'static str, Vec<Claim>) {
    let (sports, animal, other) = (q(S::X, 1, 0), q(S::X, 1, 1), q(S::X, 1, 2));
    let half = vec![Claim::Equal(sports, animal), Claim::Positive(sports), Claim::Rounds(other, "0.00")];
    if half.iter().all(|c| c.holds(t)) {
        return ("half sports, half animal", half);
    }
    let c = compare(t, sports, animal);
    let words = match &c {
        Claim::Equal(..) => "as much sports as animal",
        Claim::Greater(a, _) if *a == sports => "more sports than animal",
        _ => "more animal than sports",
    };
    (words, vec![c])
}

/// What "bat"'s two scores say about its two weights, and the claims: equal scores give
/// equal weights, a larger score the larger weight.
fn bat_row(t: &Trace) -> (String, Vec<Claim>) {
    match compare(t, q(S::Scaled, 1, 0), q(S::Scaled, 1, 1)) {
        c @ Claim::Equal(..) => (
            "its two scaled scores are equal, so the weights are too".into(),
            vec![c, Claim::Equal(q(S::Weights, 1, 0), q(S::Weights, 1, 1))],
        ),
        c => {
            let big = if c == Claim::Greater(q(S::Scaled, 1, 0), q(S::Scaled, 1, 1)) { 0 } else { 1 };
            (
                format!(
                    "its scaled score for \"{}\" is the larger of its two, so \"{}\" gets the larger weight",
                    token(t, 0, big),
                    token(t, 0, big)
                ),
                vec![c, Claim::Greater(q(S::Weights, 1, big), q(S::Weights, 1, 1 - big))],
            )
        }
    }
}

/// Where "bat" (token 1) ends up, in words, and the claims they make: it moved (some
/// feature prints differently before and after), or it is where it started (the learner
/// gave it "baseball"'s vector, say, so every value it averages is its own).
fn bat_moves(t: &Trace) -> (String, Vec<Claim>) {
    let d = t.sizes.d_model;
    let pairs: Vec<(Quantity, Quantity)> = (0..d).map(|c| (q(S::X, 1, c), q(S::Output, 1, c))).collect();
    let moved = Claim::Differ(pairs.clone());
    if moved.holds(t) {
        let text = format!(
            "\"bat\" moved from {} to {}: {}, {}. That is how attention injects context",
            row(t, S::X, 0, 0, 1),
            row(t, S::Output, 0, 0, 1),
            super::change("sports", at(t, S::X, 0, 0, 1, 0), at(t, S::Output, 0, 0, 1, 0)),
            super::change("animal", at(t, S::X, 0, 0, 1, 1), at(t, S::Output, 0, 0, 1, 1)),
        );
        return (text, vec![moved]);
    }
    let text = format!(
        "\"bat\" is {} before and after: the weighted average of the values lands where it started, as \
         every value it averages is its own vector, so there is no other word's context to take in",
        row(t, S::X, 0, 0, 1)
    );
    (text, pairs.into_iter().map(|(a, b)| Claim::Equal(a, b)).collect())
}

/// The scaled scores the baseball-bat tutorial prints for its own vectors, as claims:
/// the words call the screen's scores the tutorial's only while they print the same.
fn tutorial_scores(_: &Trace) -> Vec<Claim> {
    [(0, 0, "2.31"), (0, 1, "1.15"), (1, 0, "1.15"), (1, 1, "1.15")]
        .into_iter()
        .map(|(i, j, v)| Claim::Rounds(q(S::Scaled, i, j), v))
        .collect()
}

/// The three dimensions, in the embeddings' order.
const DIMENSIONS: [&str; 3] = ["sports", "animal", "other"];

/// `q_baseball[d] · k_bat[d]`, one term of the score "baseball"·"bat".
fn term(t: &Trace, d: usize) -> Quantity {
    const NAMES: [&str; 3] = ["sports term of q·k", "animal term of q·k", "other term of q·k"];
    Quantity::Computed(NAMES[d], at(t, S::Q, 0, 0, 0, d) * at(t, S::K, 0, 0, 1, d))
}

/// Why "baseball"·"bat" is what it is, from the terms of the dot product: the dimensions
/// the two share (a positive term), those they oppose on (a negative term), or none.
fn shared(t: &Trace) -> (String, Vec<Claim>) {
    let score = q(S::Scaled, 0, 1);
    let (mut share, mut oppose, mut claims) = (Vec::new(), Vec::new(), Vec::new());
    for (d, name) in DIMENSIONS.iter().enumerate().take(t.sizes.d_k) {
        let c = term(t, d);
        if Claim::Positive(c).holds(t) {
            share.push(*name);
            claims.push(Claim::Positive(c));
        } else if Claim::Negative(c).holds(t) {
            oppose.push(*name);
            claims.push(Claim::Negative(c));
        } else if Claim::Rounds(c, "0.00").holds(t) {
            claims.push(Claim::Rounds(c, "0.00"));
        }
    }
    let s = num(score.value(t));
    let dims = |v: &[&str]| {
        let list = match v {
            [init @ .., last] if !init.is_empty() => format!("{} and {last}", init.join(", ")),
            _ => v.join(""),
        };
        format!("the {list} dimension{}", if v.len() > 1 { "s" } else { "" })
    };
    let words = match (share.is_empty(), oppose.is_empty()) {
        (true, true) => {
            claims.push(Claim::Rounds(score, "0.00"));
            format!(
                "The scaled score of \"baseball\" with \"bat\" is {s} because they share no dimension: on each \
                 one, one of the two is 0."
            )
        }
        (false, true) => {
            claims.push(Claim::Positive(score));
            format!("The scaled score of \"baseball\" with \"bat\" is {s} because they share {}.", dims(&share))
        }
        (true, false) => {
            claims.push(Claim::Negative(score));
            format!(
                "The scaled score of \"baseball\" with \"bat\" is {s} because they point opposite ways on {}.",
                dims(&oppose)
            )
        }
        (false, false) => format!(
            "The scaled score of \"baseball\" with \"bat\" is {s}: they share {}, which adds to it, and point \
             opposite ways on {}, which takes from it.",
            dims(&share),
            dims(&oppose)
        ),
    };
    (words, claims)
}

/// Step 6's claims: "I", "bought" and "a" (tokens 0–2) share one vector on the "other"
/// dimension alone, and "bat" gives each of them the same weight.
fn whole_claims(t: &Trace) -> Vec<Claim> {
    // the words name the sentence's five words by their places, and "five keys"
    let mut out = Claim::words_at(&[(0, "I"), (1, "bought"), (2, "a"), (3, "baseball"), (4, "bat")]);
    out.push(Claim::Fits("a sentence of five words", t.key_tokens(0).len() == 5));
    for i in 0..3 {
        out.push(Claim::Rounds(q(S::X, i, 0), "0.00"));
        out.push(Claim::Rounds(q(S::X, i, 1), "0.00"));
        out.push(Claim::Positive(q(S::X, i, 2)));
        if i > 0 {
            out.push(Claim::Equal(q(S::X, i, 2), q(S::X, 0, 2)));
            out.push(Claim::Equal(q(S::Weights, 4, i), q(S::Weights, 4, 0)));
        }
    }
    out
}

/// `claims`, and "baseball" and "bat" at positions 0 and 1 of a sentence of two words:
/// steps 1–5's words are about "baseball bat" (its two scores, its two weights).
fn in_pair(mut claims: Vec<Claim>, t: &Trace) -> Vec<Claim> {
    claims.extend(Claim::words_at(&[(0, "baseball"), (1, "bat")]));
    claims.push(Claim::Fits("a sentence of two words", t.key_tokens(0).len() == 2));
    claims
}

/// The lesson.
pub fn lesson() -> Lesson {
    let mut pair = base(&["baseball bat"], 3, 1);
    pair.embeddings = bat_embeddings();
    let mut whole = base(&["I bought a baseball bat"], 3, 1);
    whole.embeddings = bat_embeddings();
    Lesson {
        id: "baseball-bat",
        title: "The baseball bat",
        seeds: "the baseball-bat tutorial",
        steps: vec![
            LessonStep::new(
                "Two words in a 3-dimensional space",
                pair.clone(),
                S::X,
                |t| {
                    format!(
                        "In \"I bought a baseball bat\", is a bat a wooden club or an animal? Take a 3-dimensional \
                         space whose dimensions mean sports, animal and other. \"baseball\" is {} and \"bat\" is {}: \
                         on its own, \"bat\" is {}. Attention lets each word ask the others \
                         a question: its query says what it is looking for, each word's key says what it offers, \
                         and a word takes most from those whose key answers its query best. What it takes is their \
                         value, the information they pass on. Here Q = K = V = x \
                         (identity projections, one head, d_k = d_model = {}).",
                        row(t, S::X, 0, 0, 0),
                        row(t, S::X, 0, 0, 1),
                        bat_mix(t).0,
                        t.sizes.d_k
                    )
                },
            )
            .extra(Extra::EmbeddingPlot)
            .claims_each_case(|t| in_pair(bat_mix(t).1, t)),
            LessonStep::new(
                "Scaled scores: QKᵀ / √d_k",
                pair.clone(),
                S::Scaled,
                |t| {
                    format!(
                        "Every query is dotted with every key, giving the raw scores q·k: QKᵀ = [{}, {}]. Dividing \
                         by √d_k = √{} gives the scaled scores{}: baseball {} and bat {}. (The tutorial calls these \
                         \"scores\"; in the pipeline they are the scaled step.) {}",
                        row(t, S::Scores, 0, 0, 0),
                        row(t, S::Scores, 0, 0, 1),
                        t.sizes.d_k,
                        if tutorial_scores(t).iter().all(|c| c.holds(t)) {
                            " the baseball-bat tutorial prints"
                        } else {
                            " of your vectors (not the tutorial's: it prints those of its own vectors)"
                        },
                        row(t, S::Scaled, 0, 0, 0),
                        row(t, S::Scaled, 0, 0, 1),
                        shared(t).0,
                    )
                },
            )
            .extra(Extra::EmbeddingPlot)
            .aside(|t| {
                    super::matrix_aside(
                        t,
                        format!(
                            "The raw scores QKᵀ, before the division by √d_k = √{}; the heatmap shows the scaled \
                             scores, after.",
                            t.sizes.d_k
                        ),
                        "raw scores QKᵀ",
                        S::Scores,
                        0,
                        0,
                    )
                })
            .highlight(|_| vec![super::cell(S::Scaled, 0, 1), super::cell(S::Scaled, 1, 0)])
            .claims_each_case(|t| {
                let own = tutorial_scores(t);
                let mut out = if own.iter().all(|c| c.holds(t)) { own } else { Vec::new() };
                out.extend(shared(t).1);
                in_pair(out, t)
            }),
            LessonStep::new(
                "Predict: where does baseball look?",
                pair.clone(),
                S::Scaled,
                |_| {
                    "Predict first: softmax turns each row of scaled scores into weights that sum to 1. Choose an \
                     answer to see the weights."
                        .into()
                },
            )
            .extra(Extra::EmbeddingPlot)
            .quiz(Quiz {
                    reveal: Some(S::Weights),
                    reveal_extra: None,
                    question: |t| {
                        format!(
                            "Before softmax: \"baseball\"'s scaled scores are {}. Which key will get the most of \"baseball\"'s \
                             attention?",
                            row(t, S::Scaled, 0, 0, 0)
                        )
                    },
                    kind: QuizKind::Choice { choices: pair_choices, answer: pair_answer },
                })
            .claims(|t| in_pair(Vec::new(), t)),
            LessonStep::new(
                "Weights: softmax of each row",
                pair.clone(),
                S::Weights,
                |t| {
                    format!(
                        "Softmax turns each row into weights that sum to 1: baseball {} and bat {}. \"bat\" gives \
                         {} of its attention to \"baseball\": {}.",
                        row(t, S::Weights, 0, 0, 0),
                        row(t, S::Weights, 0, 0, 1),
                        num(at(t, S::Weights, 0, 0, 1, 0)),
                        bat_row(t).0,
                    )
                },
            )
            .extra(Extra::EmbeddingPlot)
            .claims_each_case(|t| in_pair(bat_row(t).1, t))
            .highlight(|_| vec![super::cell(S::Weights, 1, 0)]),
            // the title names no direction: an edit may leave "bat" where it started
            LessonStep::new(
                "Output: a weighted average of the values",
                pair,
                S::Output,
                |t| {
                    format!(
                        "Each output row is the weighted average of the values: baseball {} and bat {}. {}. \
                         Edit the vectors, or drag \"bat\" in the plot, \
                         and watch every number here change.",
                        row(t, S::Output, 0, 0, 0),
                        row(t, S::Output, 0, 0, 1),
                        bat_moves(t).0,
                    )
                },
            )
            .extra(Extra::EmbeddingPlot)
            .claims_each_case(|t| in_pair(bat_moves(t).1, t))
            .highlight(|t| super::row_cells(t, S::Output, 0, 0, 1)),
            LessonStep::new(
                "The whole sentence",
                whole,
                S::Weights,
                |t| {
                    format!(
                        "With the whole sentence, \"I\", \"bought\" and \"a\" are all {}: one \"other\" dimension \
                         holds every word that is neither sports nor animal, so their rows are identical. \
                         Softmax now shares each row among five keys: \"bat\" gives {} to \
                         \"baseball\", {} to itself and {} to each of the others, so its output is {}.",
                        row(t, S::X, 0, 0, 0),
                        num(at(t, S::Weights, 0, 0, 4, 3)),
                        num(at(t, S::Weights, 0, 0, 4, 4)),
                        num(at(t, S::Weights, 0, 0, 4, 0)),
                        row(t, S::Output, 0, 0, 4),
                    )
                },
            )
            .extra(Extra::EmbeddingPlot)
            .aside(|t| {
                    super::row_aside(
                        t,
                        "\"bat\"'s scaled scores, then their softmax over five keys.".into(),
                        0,
                        0,
                        4,
                        &[("scaled", S::Scaled), ("weights", S::Weights)],
                    )
                })
            .highlight(|_| vec![super::cell(S::Weights, 4, 3), super::cell(S::Weights, 4, 4)])
            .claims(whole_claims),
        ],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn baseball_bat_states_the_seed_numbers() {
        let l = lesson();
        let say = |i: usize| l.narrated(i).1;
        assert!(say(1).contains("baseball [2.31, 1.15] and bat [1.15, 1.15]"), "{}", say(1));
        assert!(say(3).contains("baseball [0.76, 0.24] and bat [0.50, 0.50]"), "{}", say(3));
        assert!(say(4).contains("baseball [1.76, 0.24, 0.00] and bat [1.50, 0.50, 0.00]"), "{}", say(4));
        // the question: baseball attends most to itself (0.76 against 0.24)
        let q = l.steps[2].quiz.unwrap();
        let t = l.trace(2);
        // "baseball" is the second choice, after "bat"
        assert_eq!(pair_choices(&t), ["\"bat\"", "\"baseball\"", "they tie"]);
        assert!(q.judge_choice(&t, 1).unwrap().right);
        assert!(q
            .judge_choice(&t, 1)
            .unwrap()
            .text
            .starts_with("Right: \"baseball\". Softmax of [2.31, 1.15] is [0.76, 0.24]"));
        assert!(!q.judge_choice(&t, 0).unwrap().right);
    }

    /// This lesson and "Keeping scores in range" name both q·k and q·k / √d_k: every
    /// "score" in their steps' titles, words, questions, answers and tables says which
    /// ("raw" or "scaled"), but the tutorial's own word, quoted.
    #[test]
    fn every_score_says_raw_or_scaled() {
        for l in [lesson(), super::super::range::lesson()] {
            every_score_qualified(&l);
        }
    }

    fn every_score_qualified(l: &Lesson) {
        let mut texts = Vec::new();
        for (i, step) in l.steps.iter().enumerate() {
            let t = l.trace(i);
            texts.push(step.title.to_string());
            texts.push(step.words(&t));
            if let Some(a) = (step.aside)(&t) {
                texts.push(a.caption);
                texts.extend(a.head);
                texts.extend(a.rows.into_iter().map(|r| r.0));
            }
            if let Some(q) = step.quiz {
                texts.push((q.question)(&t));
                match q.kind {
                    QuizKind::Choice { choices, answer } => {
                        texts.extend(choices(&t));
                        texts.extend(answer(&t).map(|a| a.1));
                    }
                    QuizKind::Number { answer, .. } => texts.extend(answer(&t).map(|a| a.1)),
                }
            }
        }
        let said = |w: &str| texts.iter().any(|t| t.to_lowercase().contains(w));
        assert!(said("raw scores") && said("scaled score"), "{}", l.id);
        for text in texts {
            let lower = text.to_lowercase();
            for (at, _) in lower.match_indices("score") {
                let before = &lower[..at];
                assert!(
                    before.ends_with("raw ") || before.ends_with("scaled ") || before.ends_with('"'),
                    "{}: a score that says neither raw nor scaled: {text}",
                    l.id
                );
            }
        }
    }

    /// Step 5 with "bat" given "baseball"'s vector: every value "bat" averages is its own,
    /// so it stays where it started, and neither the title nor the words say it moved.
    #[test]
    fn step_5_stays_true_when_bat_becomes_baseball() {
        let l = lesson();
        let own = l.narrated(4).1;
        assert!(own.contains("\"bat\" moved from [1.00, 1.00, 0.00] to [1.50, 0.50, 0.00]"), "{own}");
        let edits = BTreeMap::from([("bat".to_string(), vec![2.0, 0.0, 0.0])]);
        let step = LessonStep {
            scenario: super::super::carry_edits(&l.steps[4].scenario, &edits),
            ..l.steps[4].clone()
        };
        let t = crate::engine::run(&step.scenario).unwrap();
        assert_eq!(row(&t, S::X, 0, 0, 1), row(&t, S::Output, 0, 0, 1));
        assert!(step.each_case && step.claims_hold(&t));
        let words = step.words(&t);
        assert!(words.contains("\"bat\" is [2.00, 0.00, 0.00] before and after"), "{words}");
        assert!(!words.contains("moved") && !words.contains("pulled"), "{words}");
        // the title is true of this trace too: it names no direction
        assert!(!step.title.contains("pulled") && !step.title.contains("toward"), "{}", step.title);
    }

    /// "bat" given "baseball"'s vector, [2, 0, 0]: the question's answer says the tied
    /// scaled scores give equal weights (not that the larger gets the larger), and step 5
    /// says "bat" did not move instead of "that is how attention injects context".
    #[test]
    fn a_tie_and_no_movement_are_said_as_such() {
        let l = lesson();
        let same = |s: &mut crate::engine::Scenario| {
            s.embeddings.insert("bat".into(), vec![2.0, 0.0, 0.0]);
        };
        let (_, t) = super::super::tests::words_after(&l, 2, &same);
        assert_eq!(row(&t, S::Scaled, 0, 0, 0), "[2.31, 2.31]");
        let (i, why) = pair_answer(&t).unwrap();
        assert_eq!(pair_choices(&t)[i], "they tie");
        assert!(why.contains("is [0.50, 0.50]: equal scaled scores get equal weights"), "{why}");
        assert!(!why.contains("larger"), "{why}");
        let (words, t) = super::super::tests::words_after(&l, 4, &same);
        assert!(l.steps[4].claims_hold(&t));
        assert!(words.contains("before and after") && words.contains("no other word's context"), "{words}");
        assert!(!words.contains("injects context"), "{words}");
        // the lesson's own vectors: the larger score, and the context injected
        let (i, why) = pair_answer(&l.trace(2)).unwrap();
        assert_eq!(i, 1);
        assert!(why.contains("the larger scaled score gets the larger weight"), "{why}");
        assert!(l.narrated(4).1.contains("That is how attention injects context."));
    }

    /// The edit step 5 invites (bat = [0, 2, 0]), carried back to step 2: the words say
    /// what is true of the new vectors, and do not call the new scores the tutorial's.
    #[test]
    fn step_2_follows_an_edit_that_leaves_no_shared_dimension() {
        let l = lesson();
        let edits = BTreeMap::from([("bat".to_string(), vec![0.0, 2.0, 0.0])]);
        let step = LessonStep {
            scenario: super::super::carry_edits(&l.steps[1].scenario, &edits),
            ..l.steps[1].clone()
        };
        let t = crate::engine::run(&step.scenario).unwrap();
        assert!(step.each_case && step.claims_hold(&t));
        let words = step.words(&t);
        assert!(
            words.contains("\"baseball\" with \"bat\" is 0.00 because they share no dimension"),
            "{words}"
        );
        assert!(!words.contains("share the sports"), "{words}");
        assert!(!words.contains("the baseball-bat tutorial prints"), "{words}");
        assert!(words.contains("scores of your vectors (not the tutorial's"), "{words}");
        // opposite ways: bat = [-1, 1, 0]
        let edits = BTreeMap::from([("bat".to_string(), vec![-1.0, 1.0, 0.0])]);
        let step = LessonStep { scenario: super::super::carry_edits(&l.steps[1].scenario, &edits), ..step };
        let t = crate::engine::run(&step.scenario).unwrap();
        assert!(step.claims_hold(&t));
        assert!(step.words(&t).contains("is -1.15 because they point opposite ways on the sports dimension"));
        // the lesson's own vectors: the tutorial's numbers and its story
        let own = l.narrated(1).1;
        assert!(
            own.contains("gives the scaled scores the baseball-bat tutorial prints: baseball [2.31, 1.15]"),
            "{own}"
        );
        assert!(own.contains("is 1.15 because they share the sports dimension."), "{own}");
    }
}
