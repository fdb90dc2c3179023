//! Lesson 5, cross-attention (the Masterclass chapter, the baseball-bat tutorial): T_q
//! queries against T_k keys, on a translation-like pair whose toy vectors align, so the
//! weights show what cross-attention is for: each word of the sentence being written
//! finds the word of the other sentence it translates.

use super::quiz::{Quiz, QuizKind};
use super::{at, base, num, same_input, shape_of, token, Cell, Lesson, LessonStep};
use crate::engine::embedding::EIGHT_FEATURES;
use crate::engine::{Padding, Scenario, StepName as S, Trace};

/// The decoder's sentence (the queries) and the encoder's (the keys and values).
const ENGLISH: &str = "the cat sat on the mat";
const FRENCH: &str = "le chat s'est assis sur le tapis";
/// A second, shorter pair for the batch step.
const ENGLISH_2: &str = "the cold creek";
const FRENCH_2: &str = "le ruisseau froid";

/// Each French word and the English word whose toy vector it takes, twice as long (so a
/// query meets its translation with a score that stands out).
const TRANSLATIONS: &[(&str, &str)] = &[
    ("le", "the"),
    ("chat", "cat"),
    ("s'est", "was"),
    ("assis", "sat"),
    ("sur", "on"),
    ("tapis", "mat"),
    ("ruisseau", "creek"),
    ("froid", "cold"),
];

/// The English queries of `english` against the French keys of `french`, one head (so
/// each query has one row over all 8 features), with the French vectors set.
fn pair(english: &[&str], french: &[&str]) -> Scenario {
    let mut s = base(english, 8, 1);
    s.kv_sentences = Some(french.iter().map(|f| f.to_string()).collect());
    for (fr, en) in TRANSLATIONS {
        if let Some(v) = EIGHT_FEATURES.words.iter().find(|(w, _)| w == en).map(|(_, v)| v) {
            s.embeddings.insert(fr.to_string(), v.iter().map(|x| 2.0 * x).collect());
        }
    }
    s
}

fn one_pair() -> Scenario {
    pair(&[ENGLISH], &[FRENCH])
}

/// Query positions in [`ENGLISH`], key positions in [`FRENCH`].
const THE: usize = 0;
const CAT: usize = 1;
const SAT: usize = 2;
const ON: usize = 3;
const MAT: usize = 5;
const LE: usize = 0;
const SUR: usize = 4;
const CHAT: usize = 1;
const ASSIS: usize = 3;
const TAPIS: usize = 6;
/// The translations the first step quotes: (query, key).
const ALIGNED: [(usize, usize); 3] = [(CAT, CHAT), (SAT, ASSIS), (MAT, TAPIS)];

fn key_token(t: &Trace, b: usize, j: usize) -> String {
    t.key_tokens(b).get(j).cloned().unwrap_or_default()
}

/// Query "on" and the French keys "sur" and "le": "the" and "on" share one toy vector
/// (a function word's), so "sur" (on's translation) and "le" (the's) look the same to
/// "on". Said only while it holds: the same input vectors and equal weights.
fn function_words(t: &Trace) -> String {
    let (sur, le) = (at(t, S::Weights, 0, 0, ON, SUR), at(t, S::Weights, 0, 0, ON, LE));
    if !(same_input(t, 0, THE, ON) && sur == le) {
        return String::new();
    }
    format!(
        " \"{}\" and \"{}\" share one toy vector, so \"on\" cannot tell \"sur\" from \"le\": it gives each {}.",
        token(t, 0, THE),
        token(t, 0, ON),
        num(sur)
    )
}

/// Three candidate output shapes, from the run's sizes; the first is right.
fn output_shapes(t: &Trace) -> Vec<String> {
    let z = t.sizes;
    let t_k = z.t_k.unwrap_or(z.t);
    vec![
        format!("(B, T_k, d_model) = ({}, {t_k}, {})", z.b, z.d_model),
        format!("(B, T_q, T_k) = ({}, {}, {t_k})", z.b, z.t),
        format!("(B, T_q, d_model) = ({}, {}, {})", z.b, z.t, z.d_model),
    ]
}

fn output_shape_answer(t: &Trace) -> Option<(usize, String)> {
    Some((
        2,
        format!(
            "Each query gets one weighted sum of the values: (T_q, T_k) @ (T_k, d_k) is (T_q, d_k) per head, and \
             concat and W_O make it {}, shaped like the queries.",
            shape_of(t, S::Output)
        ),
    ))
}

/// The lesson.
pub fn lesson() -> Lesson {
    let mut batch = pair(&[ENGLISH, ENGLISH_2], &[FRENCH, FRENCH_2]);
    batch.mask.padding = Padding::Keys;
    Lesson {
        id: "cross",
        title: "Cross-attention",
        seeds: "the Masterclass chapter and the baseball-bat tutorial",
        steps: vec![
            LessonStep::new(
                "Queries from one sentence, keys and values from another",
                one_pair(),
                S::Weights,
                |t| {
                    let quoted: Vec<String> = ALIGNED
                        .iter()
                        .map(|&(i, j)| {
                            format!(
                                "\"{}\" gives {} to \"{}\"",
                                token(t, 0, i),
                                num(at(t, S::Weights, 0, 0, i, j)),
                                key_token(t, 0, j)
                            )
                        })
                        .collect();
                    format!(
                        "A translation model reads French with its encoder and writes English with its decoder. \
                         Cross-attention takes its queries from the sentence being written and its keys and values \
                         from the other (the baseball-bat tutorial). Each French word's toy vector points the way its \
                         English translation's does (twice as long), so cat, sat and mat find their translations: \
                         {}.{} T_q = {} query tokens meet T_k = {} key tokens: the weights are {}, one row per query, \
                         one column per key.",
                        quoted.join(", "),
                        function_words(t),
                        t.sizes.t,
                        t.sizes.t_k.unwrap_or(t.sizes.t),
                        shape_of(t, S::Weights),
                    )
                },
            )
            .highlight(|_| {
                    ALIGNED
                        .iter()
                        .map(|&(row, col)| Cell { step: S::Weights, batch: 0, head: 0, row, col })
                        .collect()
                }),
            LessonStep::new(
                "Predict: whose length does the output have?",
                one_pair(),
                S::Weights,
                |_| {
                    "Predict first: the output is weights @ v, per head, then concatenated and multiplied by W_O \
                     (the output projection). Choose an answer to see the output."
                        .into()
                },
            )
            .quiz(Quiz {
                    reveal: Some(S::Output),
                    reveal_extra: None,
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
            LessonStep::new(
                "The output has the queries' length",
                one_pair(),
                S::Output,
                |t| {
                    format!(
                        "weights {} @ v {} gives context {}: each query gets a weighted sum of the other \
                         sentence's values, so the output is {}, shaped like the queries, not the keys.",
                        shape_of(t, S::Weights),
                        shape_of(t, S::VHeads),
                        shape_of(t, S::Context),
                        shape_of(t, S::Output),
                    )
                },
            ),
            LessonStep::new(
                "Padding the keys of a batch",
                batch,
                S::Weights,
                |t| {
                    let kv_len = t.kv_lengths.as_ref().and_then(|l| l.get(1)).copied().unwrap_or(0);
                    // "cold" comes before "creek" in English and after it in French
                    let top = t.top_keys(1, 0, 1).first().copied().unwrap_or(0);
                    format!(
                        "In a batch, the key sentences are padded to the longest, T_k = {}. The Masterclass chapter masks \
                         the last key positions of the shorter one (its padding_mask[:, :, -2:] = True): here \
                         sentence 2 has {} real keys, so its <pad> key columns get weight {} and its rows \
                         still add up to 1. Notice \"{}\": its French word \"{}\" ({}) comes after the noun, not \
                         before. Attention finds it wherever it is.",
                        t.sizes.t_k.unwrap_or(t.sizes.t),
                        kv_len,
                        num(at(t, S::Weights, 1, 0, 0, kv_len)),
                        token(t, 1, 1),
                        key_token(t, 1, top),
                        num(at(t, S::Weights, 1, 0, 1, top)),
                    )
                },
            )
            .batch(1)
            .highlight(|t| {
                    (t.key_length(1)..t.sizes.t_k.unwrap_or(t.sizes.t))
                        .map(|j| super::Cell { step: S::Weights, batch: 1, head: 0, row: 0, col: j })
                        .collect()
                }),
        ],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_english_word_finds_its_french_translation() {
        let l = lesson();
        let t = l.trace(0);
        assert_eq!(t.step(S::Weights).unwrap().shape, [1, 1, 6, 7]);
        assert_eq!(t.key_tokens(0), ["le", "chat", "s'est", "assis", "sur", "le", "tapis"]);
        for (i, j) in ALIGNED {
            assert_eq!(t.top_keys(0, 0, i), [j], "{} → {}", token(&t, 0, i), key_token(&t, 0, j));
            assert!(at(&t, S::Weights, 0, 0, i, j) > 0.6);
        }
        // "on" gives "sur" what it gives "le", and the words say why
        assert_eq!(at(&t, S::Weights, 0, 0, ON, SUR), at(&t, S::Weights, 0, 0, ON, LE));
        let words = (l.steps[0].narrate)(&t);
        assert!(words.contains("cannot tell \"sur\" from \"le\""), "{words}");
        assert!(!words.contains("each row finds"), "{words}");
        // no French word is a hashed (random) vector
        assert!(t.key_tokens(0).iter().all(|w| TRANSLATIONS.iter().any(|(fr, _)| fr == w)));
        let batch = l.trace(3);
        assert_eq!(batch.step(S::Weights).unwrap().shape, [2, 1, 6, 7]);
        // "cold" finds "froid", the last of its three real keys; the <pad> keys get nothing
        assert_eq!(batch.top_keys(1, 0, 1), [2]);
        assert_eq!(at(&batch, S::Weights, 1, 0, 1, 3), 0.0);
    }
}
