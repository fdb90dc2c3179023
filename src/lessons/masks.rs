//! Lesson 3, masks (seeds 000, 001, 002): causal, padding, -inf against -1e9.

use super::quiz::{Quiz, QuizKind};
use super::{at, base, num, row, Lesson, LessonStep};
use crate::engine::{Fill, MaskConfig, Padding, Scenario, StepName as S};

const SAMPLE: [&str; 2] = ["this is a sample sequence", "the spunky dog wanted to jump high"];

fn masks(causal: bool, padding: Padding, fill: Fill) -> Scenario {
    let mut s = base(&SAMPLE, 8, 2);
    s.mask = MaskConfig { causal, padding, fill };
    s
}

/// The lesson.
pub fn lesson() -> Lesson {
    Lesson {
        id: "masks",
        title: "Masks",
        seeds: "seeds 000, 001, 002",
        steps: vec![
            LessonStep {
                title: "Causal: no peeking at the future",
                scenario: masks(true, Padding::None, Fill::NegInf),
                focus: S::Weights,
                batch: 0,
                quiz: None,
                narrate: |t| {
                    format!(
                        "A decoder must not see later words. Seed 000's subsequent_mask blocks key j > i: the \
                         hatched upper triangle. Blocked scores become -inf, so their weights are exactly {}; \
                         \"this\" can only attend to itself ({}), \"is\" splits {} between \"this\" and \"is\".",
                        num(at(t, S::Weights, 0, 0, 0, 1)),
                        num(at(t, S::Weights, 0, 0, 0, 0)),
                        row(t, S::Weights, 0, 0, 1),
                    )
                },
            },
            LessonStep {
                title: "Predict: the second row under the causal mask",
                scenario: masks(true, Padding::None, Fill::NegInf),
                focus: S::Masked,
                batch: 0,
                quiz: Some(Quiz {
                    question: |t| {
                        format!(
                            "Row 2 (\"is\") of the masked scores is {}. After softmax, what weight does \"is\" give \
                             to \"this\" (head 1)? Type a number between 0 and 1.",
                            row(t, S::Masked, 0, 0, 1)
                        )
                    },
                    kind: QuizKind::Number {
                        answer: |t| {
                            let w = at(t, S::Weights, 0, 0, 1, 0);
                            w.is_finite().then(|| {
                                (
                                    w,
                                    format!(
                                        "The -inf keys get e^-inf = 0, so softmax shares the row between the two \
                                         keys left: row 2 of the weights is {}.",
                                        row(t, S::Weights, 0, 0, 1)
                                    ),
                                )
                            })
                        },
                        tolerance: 0.005,
                    },
                }),
                narrate: |_| {
                    "Predict first: blocked keys take no weight at all, and the keys that are left share 1. Type \
                     your answer to see the weights."
                        .into()
                },
            },
            LessonStep {
                title: "Padding: a batch needs equal lengths",
                scenario: masks(false, Padding::Keys, Fill::NegInf),
                focus: S::Weights,
                batch: 0,
                quiz: None,
                narrate: |t| {
                    let pads = t.sizes.t - t.lengths.first().copied().unwrap_or(0);
                    format!(
                        "The batch is padded to its longest sentence, T = {}, so \"this is a sample sequence\" \
                         gets {} <pad> tokens. A padding mask (seed 001, PyTorch's key_padding_mask) stops every \
                         query from attending to them: the <pad> columns get weight {}, and the five real words \
                         share all of it (row 1 sums to {}).",
                        t.sizes.t,
                        pads,
                        num(at(t, S::Weights, 0, 0, 0, 5)),
                        num(t.step(S::Weights).and_then(|s| s.row_sum(0, 0, 0)).unwrap_or(f64::NAN)),
                    )
                },
            },
            LessonStep {
                title: "Both together",
                scenario: masks(true, Padding::KeysAndQueries, Fill::NegInf),
                focus: S::Masked,
                batch: 0,
                quiz: None,
                narrate: |t| {
                    format!(
                        "Causal and padding together give seed 002's table: a triangle for the words, and the \
                         <pad> rows blocked entirely. The mask is built once per sentence as (B, T, T) = ({}, \
                         {}, {}) and mask.unsqueeze(1) makes it (B, 1, T, T), which broadcasts over the h = {} \
                         heads (see the masked step's shape trace).",
                        t.sizes.b,
                        t.sizes.t,
                        t.sizes.t,
                        t.sizes.n_heads,
                    )
                },
            },
            LessonStep {
                title: "-inf: a fully masked row is NaN",
                scenario: masks(true, Padding::KeysAndQueries, Fill::NegInf),
                focus: S::Weights,
                batch: 0,
                quiz: None,
                narrate: |t| {
                    format!(
                        "A <pad> query row has every key blocked. With -inf, softmax computes e^(-inf − (-inf)) \
                         = e^NaN: the row's weights are {} (0/0), and the NaN flows into context, concat and \
                         output. Seed 001's code warns about exactly this (\"NaNs detected in attention \
                         weights\").",
                        num(at(t, S::Weights, 0, 0, 6, 0)),
                    )
                },
            },
            LessonStep {
                title: "-1e9: a fully masked row is uniform",
                scenario: masks(true, Padding::KeysAndQueries, Fill::LargeNegative),
                focus: S::Weights,
                batch: 0,
                quiz: None,
                narrate: |t| {
                    format!(
                        "With -1e9 (seed 000's choice) every score in a fully masked row is the same -1e9, so \
                         softmax gives each of the T = {} keys the weight {} = 1/T: finite, but meaningless, and \
                         usually ignored by the loss. Elsewhere -1e9 and -inf give the same weights to 1e-9.",
                        t.sizes.t,
                        num(at(t, S::Weights, 0, 0, 6, 0)),
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
    fn masks_lesson_shows_nan_then_uniform() {
        let l = lesson();
        let nan = run(&l.steps[4].scenario).unwrap();
        assert!(at(&nan, S::Weights, 0, 0, 6, 0).is_nan());
        let uniform = run(&l.steps[5].scenario).unwrap();
        assert!((at(&uniform, S::Weights, 0, 0, 6, 0) - 1.0 / 7.0).abs() < 1e-12);
        assert!((l.steps[5].narrate)(&uniform).contains("0.14 = 1/T"));
    }
}
