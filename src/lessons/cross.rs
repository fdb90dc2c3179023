//! Lesson 5, cross-attention (seeds 001, 003): T_q queries against T_k keys.

use super::quiz::{Quiz, QuizKind};
use super::{at, base, num, shape_of, Extra, Lesson, LessonStep};
use crate::engine::{Padding, Scenario, StepName as S, Trace};

fn cross(padding: Padding) -> Scenario {
    let mut s = base(&["this is a sample sequence"], 8, 2);
    s.kv_sentences = Some(vec!["the spunky dog wanted to jump high".into()]);
    s.mask.padding = padding;
    s
}

/// Three candidate output shapes, from the run's sizes; the first is right.
fn output_shapes(t: &Trace) -> Vec<String> {
    let z = t.sizes;
    let t_k = z.t_k.unwrap_or(z.t);
    vec![
        format!("(B, T_q, d_model) = ({}, {}, {})", z.b, z.t, z.d_model),
        format!("(B, T_k, d_model) = ({}, {t_k}, {})", z.b, z.d_model),
        format!("(B, T_q, T_k) = ({}, {}, {t_k})", z.b, z.t),
    ]
}

fn output_shape_answer(t: &Trace) -> Option<(usize, String)> {
    Some((
        0,
        format!(
            "Each query gets one weighted sum of the values: (T_q, T_k) @ (T_k, d_k) is (T_q, d_k) per head, and \
             concat and W_O make it {}, shaped like the queries.",
            shape_of(t, S::Output)
        ),
    ))
}

/// The lesson.
pub fn lesson() -> Lesson {
    let mut batch = base(&["this is a sample sequence", "the cat sat"], 8, 2);
    batch.kv_sentences = Some(vec!["the spunky dog wanted to jump high".into(), "the creek was cold".into()]);
    batch.mask.padding = Padding::Keys;
    Lesson {
        id: "cross",
        title: "Cross-attention",
        seeds: "the Masterclass chapter and the baseball-bat tutorial",
        steps: vec![
            LessonStep {
                title: "Queries from one sentence, keys and values from another",
                scenario: cross(Padding::None),
                focus: S::Weights,
                batch: 0,
                extra: Extra::None,
                quiz: None,
                highlight: super::no_highlight,
                narrate: |t| {
                    format!(
                        "In a decoder, cross-attention takes its queries from the decoder's sentence and its keys \
                         and values from the encoder's (the baseball-bat tutorial). Here T_q = {} query tokens meet T_k = {} key \
                         tokens, so the weights are {}: one row per query, one column per key, as in the Masterclass chapter's \
                         example (seq_len_q = 5, seq_len_k = 7). Each row still sums to 1 (row 1: {}).",
                        t.sizes.t,
                        t.sizes.t_k.unwrap_or(t.sizes.t),
                        shape_of(t, S::Weights),
                        num(t.step(S::Weights).and_then(|s| s.row_sum(0, 0, 0)).unwrap_or(f64::NAN)),
                    )
                },
            },
            LessonStep {
                title: "Predict: whose length does the output have?",
                scenario: cross(Padding::None),
                focus: S::Weights,
                batch: 0,
                extra: Extra::None,
                highlight: super::no_highlight,
                quiz: Some(Quiz {
                    reveal: None,
                    question: |t| {
                        format!(
                            "The weights are {}, and v (the values, from the other sentence) is {}. What shape is \
                             the output?",
                            shape_of(t, S::Weights),
                            shape_of(t, S::VHeads)
                        )
                    },
                    kind: QuizKind::Choice { choices: output_shapes, answer: output_shape_answer },
                }),
                narrate: |_| {
                    "Predict first: weights @ v multiplies (T_q, T_k) by (T_k, d_k). Choose an answer to see the \
                     output."
                        .into()
                },
            },
            LessonStep {
                title: "The output has the queries' length",
                scenario: cross(Padding::None),
                focus: S::Output,
                batch: 0,
                extra: Extra::None,
                quiz: None,
                highlight: super::no_highlight,
                narrate: |t| {
                    format!(
                        "weights {} @ v {} gives context {}: each query gets a weighted sum of the other \
                         sentence's values, so the output is {}, shaped like the queries, not the keys.",
                        shape_of(t, S::Weights),
                        shape_of(t, S::VHeads),
                        shape_of(t, S::Context),
                        shape_of(t, S::Output),
                    )
                },
            },
            LessonStep {
                title: "Padding the keys of a batch",
                scenario: batch,
                focus: S::Weights,
                batch: 1,
                extra: Extra::None,
                quiz: None,
                highlight: |t| {
                    (t.key_length(1)..t.sizes.t_k.unwrap_or(t.sizes.t))
                        .map(|j| super::Cell { step: S::Weights, batch: 1, head: 0, row: 0, col: j })
                        .collect()
                },
                narrate: |t| {
                    let kv_len = t.kv_lengths.as_ref().and_then(|l| l.get(1)).copied().unwrap_or(0);
                    format!(
                        "In a batch, the key sentences are padded to the longest, T_k = {}. The Masterclass chapter masks \
                         the last key positions of the shorter one (its padding_mask[:, :, -2:] = True): here \
                         sentence 2 has {} real keys, so its <pad> key columns get weight {} and its rows \
                         still sum to {}.",
                        t.sizes.t_k.unwrap_or(t.sizes.t),
                        kv_len,
                        num(at(t, S::Weights, 1, 0, 0, kv_len)),
                        num(t.step(S::Weights).and_then(|s| s.row_sum(1, 0, 0)).unwrap_or(f64::NAN)),
                    )
                },
            },
        ],
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::run;

    #[test]
    fn cross_lesson_is_5_by_7() {
        let l = lesson();
        let trace = run(&l.steps[0].scenario).unwrap();
        assert_eq!(trace.step(S::Weights).unwrap().shape, [1, 2, 5, 7]);
        let trace = run(&l.steps[3].scenario).unwrap();
        assert_eq!(trace.step(S::Weights).unwrap().shape, [2, 2, 5, 7]);
    }
}
