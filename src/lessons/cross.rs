//! Lesson 5, cross-attention (the Masterclass chapter, the baseball-bat tutorial): T_q
//! queries against T_k keys, on a translation-like pair whose toy vectors align, so the
//! weights show what cross-attention is for: each word of the sentence being written
//! finds the word of the other sentence it translates.

use super::quiz::{Quiz, QuizKind};
use super::{at, base, num, same_input, shape_of, token, Aside, Cell, Claim, Lesson, LessonStep, Quantity};
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
    let sur = at(t, S::Weights, 0, 0, ON, SUR);
    if !function_words_hold(t) {
        return String::new();
    }
    format!(
        " \"{}\" and \"{}\" share one toy vector, so \"on\" cannot tell \"sur\" from \"le\": it gives each {}.",
        token(t, 0, THE),
        token(t, 0, ON),
        num(sur)
    )
}

fn function_words_hold(t: &Trace) -> bool {
    same_input(t, 0, THE, ON) && at(t, S::Weights, 0, 0, ON, SUR) == at(t, S::Weights, 0, 0, ON, LE)
}

/// Weight `(b, i, j)` of the one head.
fn w(b: usize, i: usize, j: usize) -> Quantity {
    Quantity::Cell(Cell { step: S::Weights, batch: b, head: 0, row: i, col: j })
}

/// How query `i` of sentence `b` treats key `j` (its translation) among the first `n`
/// keys: it gives `j` the most (`Largest`), or another key gets more (`Greater`) or as
/// much (`Equal`): the claim, and the key that gets the most (the first of keys that tie).
fn finds(t: &Trace, b: usize, i: usize, j: usize, n: usize) -> (Claim, usize) {
    let others: Vec<usize> = (0..n).filter(|&k| k != j).collect();
    let top = others.iter().copied().fold(None, |best: Option<usize>, k| match best {
        Some(b0) if at(t, S::Weights, b, 0, i, b0) >= at(t, S::Weights, b, 0, i, k) => Some(b0),
        _ => Some(k),
    });
    let largest = Claim::Largest(w(b, i, j), others.iter().map(|&k| w(b, i, k)).collect());
    match top {
        Some(k) if !largest.holds(t) => (super::compare(t, w(b, i, k), w(b, i, j)), k),
        _ => (largest, j),
    }
}

/// Step 1's sentence on the aligned pairs, and its claims: "cat, sat and mat find their
/// translations" while each gives its translation the most weight, and for each that does
/// not, where its weight went instead.
fn translations(t: &Trace) -> (String, Vec<Claim>) {
    let n = t.key_tokens(0).len();
    let mut found = Vec::new();
    let mut lost = Vec::new();
    let mut claims = Vec::new();
    for &(i, j) in &ALIGNED {
        let (claim, top) = finds(t, 0, i, j, n);
        let quote = format!(
            "\"{}\" gives {} to \"{}\"",
            token(t, 0, i),
            num(at(t, S::Weights, 0, 0, i, j)),
            key_token(t, 0, j)
        );
        if top == j {
            found.push((token(t, 0, i), quote));
        } else {
            let how = if matches!(claim, Claim::Equal(..)) { "as much" } else { "more" };
            lost.push(format!(
                "{quote}, but {how} ({}) to \"{}\"",
                num(at(t, S::Weights, 0, 0, i, top)),
                key_token(t, 0, top)
            ));
        }
        claims.push(claim);
    }
    if function_words_hold(t) {
        claims.push(Claim::Equal(w(0, ON, SUR), w(0, ON, LE)));
    }
    let names = |v: Vec<String>| match v.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
        Some((last, _)) => last.clone(),
        None => String::new(),
    };
    let found_text = if found.is_empty() {
        String::new()
    } else {
        let (words, quotes): (Vec<String>, Vec<String>) = found.into_iter().unzip();
        let verb = if words.len() == 1 { "finds its translation" } else { "find their translations" };
        format!("{} {verb}: {}", names(words), quotes.join(", "))
    };
    let text = match (found_text.is_empty(), lost.is_empty()) {
        (false, true) => format!("so {found_text}"),
        (false, false) => {
            format!("so {found_text}. With these vectors not every word does: {}", lost.join("; "))
        }
        _ => format!("but with these vectors no word finds its translation: {}", lost.join("; ")),
    };
    (text, claims)
}

/// "cold" in the second sentence, and its French word "froid".
const COLD: usize = 1;
const FROID: usize = 2;

/// Step 4's words and claims: the padded keys get nothing, each row still sums to 1, and
/// "cold" finds "froid" after the noun (or, with the learner's vectors, where its weight
/// went instead).
fn padding_words(t: &Trace) -> (String, Vec<Claim>) {
    let kv_len = t.kv_lengths.as_ref().and_then(|l| l.get(1)).copied().unwrap_or(0);
    let first_row = Cell { step: S::Weights, batch: 1, head: 0, row: 0, col: 0 };
    let mut claims =
        vec![Claim::Rounds(w(1, 0, kv_len), "0.00"), Claim::Rounds(Quantity::RowSum(first_row), "1.00")];
    // "cold" comes before "creek" in English and after it in French
    let (claim, top) = finds(t, 1, COLD, FROID, kv_len);
    let cold = match top {
        j if j == FROID => format!(
            "Notice \"{}\": its French word \"{}\" ({}) comes after the noun, not before. Attention finds it \
             wherever it is.",
            token(t, 1, COLD),
            key_token(t, 1, FROID),
            num(at(t, S::Weights, 1, 0, COLD, FROID)),
        ),
        k => format!(
            "Notice \"{}\": its French word \"{}\" comes after the noun, not before. Attention would find it \
             wherever it is, but with these vectors \"{}\" gives \"{}\" {}, {} \"{}\" ({}).",
            token(t, 1, COLD),
            key_token(t, 1, FROID),
            token(t, 1, COLD),
            key_token(t, 1, FROID),
            num(at(t, S::Weights, 1, 0, COLD, FROID)),
            if matches!(claim, Claim::Equal(..)) { "as much as" } else { "less than" },
            key_token(t, 1, k),
            num(at(t, S::Weights, 1, 0, COLD, k)),
        ),
    };
    claims.push(claim);
    let (padded, even) = padded_queries(t);
    claims.extend(even);
    let t_k = t.sizes.t_k.unwrap_or(t.sizes.t);
    let text = format!(
        "In a batch, the key sentences are padded to the longest, T_k = {t_k}. The Masterclass chapter masks \
         the last key positions of the shorter one (its padding_mask[:, :, -{pads}:] = True): here \
         sentence 2 has {} real keys and {pads} <pad> keys, so its <pad> key columns get weight {} and its rows \
         still add up to 1. {cold}{padded}",
        kv_len,
        num(at(t, S::Weights, 1, 0, 0, kv_len)),
        pads = t_k.saturating_sub(kv_len),
    );
    (text, claims)
}

/// Step 4's words on sentence 2's `<pad>` query rows (the queries are padded to T_q as
/// the keys are to T_k), and the claims they make: with the lesson's vectors a `<pad>` is
/// the zero vector, so its query is zero, its scores are all 0 and softmax spreads the row
/// evenly over the real keys (`Equal` for each); with an edited `<pad>` the row is
/// whatever mix its query makes. Either way the mask covers keys only, so the row is
/// computed, and its output is thrown away.
fn padded_queries(t: &Trace) -> (String, Vec<Claim>) {
    let (len, t_q, kv_len) = (t.query_length(1), t.sizes.t, t.key_length(1));
    if len >= t_q || kv_len == 0 {
        return (String::new(), Vec::new());
    }
    let pads: Vec<usize> = (len..t_q).collect();
    let zero_row = |step: S, i: usize| {
        t.step(step)
            .and_then(|s| s.matrix(1, 0))
            .is_some_and(|m| i < m.nrows() && m.row(i).iter().all(|v| *v == 0.0))
    };
    let zero = pads.iter().all(|&i| zero_row(S::X, i) && zero_row(S::QHeads, i));
    let even: Vec<Claim> =
        pads.iter().flat_map(|&i| (1..kv_len).map(move |j| Claim::Equal(w(1, i, 0), w(1, i, j)))).collect();
    let is_even = even.iter().all(|c| c.holds(t));
    let rows = if pads.len() == 1 {
        "its last query row is".to_owned()
    } else {
        format!("its last {} query rows are", pads.len())
    };
    let why = match (is_even, zero) {
        (true, true) => format!(
            "A <pad> token's vector is all zeros, so its query is zero and every score in its row is 0: softmax \
             spreads the row evenly, 1/{kv_len} to each of the {kv_len} real keys."
        ),
        (true, false) => format!(
            "Each such row's scores are all equal, so softmax spreads it evenly, 1/{kv_len} to each of the {kv_len} \
             real keys."
        ),
        _ => "With your <pad> vector its query is not zero, so each such row is a mix of the real keys like any \
              other row."
            .to_owned(),
    };
    let text = format!(
        " Sentence 2's queries are padded too, to T_q = {t_q}: {rows} <pad>. {why} The mask here covers keys only, so these \
         rows are computed anyway, and the model throws their outputs away: no word stands there, and the loss \
         ignores <pad> positions."
    );
    (text, if is_even { even } else { Vec::new() })
}

/// Step 4's embed: sentence 2's weights, its real query rows against every key, <pad>
/// columns included, so the 0.00 and the "froid" weight the words quote are on the page
/// when its small map has no room for numbers.
fn padded_weights_aside(t: &Trace) -> Option<Aside> {
    let caption = "Sentence 2's weights, head 1: every real query against every key".to_owned();
    let mut aside = super::matrix_aside(t, caption, "weights", S::Weights, 1, 0)?;
    aside.rows.truncate(t.query_length(1));
    Some(aside)
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
                    format!(
                        "A translation model reads French with its encoder and writes English with its decoder. \
                         Cross-attention takes its queries from the sentence being written and its keys and values \
                         from the other (the baseball-bat tutorial). Each French word's toy vector points the way its \
                         English translation's does (twice as long), {}.{} T_q = {} query tokens meet T_k = {} key tokens: the weights are {}, one row per query, \
                         one column per key.",
                        translations(t).0,
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
                })
            .claims_each_case(|t| translations(t).1),
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
                |t| padding_words(t).0,
            )
            .claims_each_case(|t| padding_words(t).1)
            .batch(1)
            .embed_aside(padded_weights_aside)
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
        let (t, words) = l.narrated(0);
        assert_eq!(t.step(S::Weights).unwrap().shape, [1, 1, 6, 7]);
        assert_eq!(t.key_tokens(0), ["le", "chat", "s'est", "assis", "sur", "le", "tapis"]);
        for (i, j) in ALIGNED {
            assert_eq!(t.top_keys(0, 0, i), [j], "{} → {}", token(&t, 0, i), key_token(&t, 0, j));
            assert!(at(&t, S::Weights, 0, 0, i, j) > 0.6);
        }
        // "on" gives "sur" what it gives "le", and the words say why
        assert_eq!(at(&t, S::Weights, 0, 0, ON, SUR), at(&t, S::Weights, 0, 0, ON, LE));
        assert!(words.contains("cannot tell \"sur\" from \"le\""), "{words}");
        assert!(!words.contains("each row finds"), "{words}");
        // no French word is a hashed (random) vector
        assert!(t.key_tokens(0).iter().all(|w| TRANSLATIONS.iter().any(|(fr, _)| fr == w)));
        let batch = l.trace(3);
        assert_eq!(batch.step(S::Weights).unwrap().shape, [2, 1, 6, 7]);
        // "cold" finds "froid", the last of its three real keys; the <pad> keys get nothing
        assert_eq!(batch.top_keys(1, 0, 1), [2]);
        assert_eq!(at(&batch, S::Weights, 1, 0, 1, 3), 0.0);
        // its embed's table holds the numbers the words quote
        let aside = (l.steps[3].embed_aside.unwrap())(&batch).unwrap();
        assert_eq!(aside.head.len(), 8);
        assert_eq!(
            aside.rows.iter().map(|r| r.0.as_str()).collect::<Vec<_>>(),
            ["\"the\"", "\"cold\"", "\"creek\""]
        );
        assert_eq!(aside.rows[0].1[3], "0.00");
        // the slice the words quote masks the <pad> keys, as many as there are (7 − 3 = 4)
        let words = l.steps[3].words(&batch);
        assert!(
            words.contains(
                "padding_mask[:, :, -4:] = True): here sentence 2 has 3 real keys and 4 <pad> keys"
            ),
            "{words}"
        );
        assert_eq!(aside.rows[1].1[2], num(at(&batch, S::Weights, 1, 0, COLD, FROID)));
    }

    /// Sentence 2's <pad> query rows spread evenly over its 3 real keys (1/3 = 0.33 in the
    /// map): the words say why, and that their outputs are thrown away.
    #[test]
    fn padded_query_rows_are_explained() {
        let l = lesson();
        let t = l.trace(3);
        for i in t.query_length(1)..t.sizes.t {
            for j in 0..t.key_length(1) {
                assert_eq!(num(at(&t, S::Weights, 1, 0, i, j)), "0.33", "row {i} key {j}");
            }
        }
        let words = l.steps[3].words(&t);
        assert!(
            words.contains(
                "Sentence 2's queries are padded too, to T_q = 6: its last 3 query rows are <pad>."
            ),
            "{words}"
        );
        assert!(words.contains("so its query is zero and every score in its row is 0"), "{words}");
        assert!(words.contains("spreads the row evenly, 1/3 to each of the 3 real keys"), "{words}");
        assert!(words.contains("the model throws their outputs away"), "{words}");
    }
}

#[cfg(test)]
mod edited {
    use super::*;
    use crate::engine::run;
    use std::collections::BTreeMap;

    /// The words of step `i` for the lesson's vectors with `edits`, after checking that
    /// their claims hold (the words were written for the case the numbers are in).
    fn say(i: usize, edits: &[(&str, Vec<f64>)]) -> String {
        let step = &lesson().steps[i];
        let edits: BTreeMap<String, Vec<f64>> =
            edits.iter().map(|(w, v)| (w.to_string(), v.clone())).collect();
        let edited =
            LessonStep { scenario: crate::lessons::carry_edits(&step.scenario, &edits), ..step.clone() };
        let t = run(&edited.scenario).unwrap();
        assert!(edited.claims_hold(&t), "step {}: {:?}", i + 1, (edited.claims)(&t));
        edited.words(&t)
    }

    #[test]
    fn a_word_that_no_longer_finds_its_translation_is_named() {
        let own = say(0, &[]);
        assert!(own.contains("so cat, sat and mat find their translations: \"cat\" gives"), "{own}");
        // "chat" pointed elsewhere: "cat" no longer finds it, and the words say where it went
        let words = say(0, &[("chat", vec![0.0, 0.5, 0.0, 2.0, 0.0, 0.0, 0.0, 0.0])]);
        assert!(words.contains("so sat and mat find their translations"), "{words}");
        assert!(words.contains("With these vectors not every word does: \"cat\" gives"), "{words}");
        assert!(words.contains("but more ("), "{words}");
        // "froid" pointed away from "cold": the batch step says so instead of "finds it"
        let words = say(3, &[("froid", vec![0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, -2.0])]);
        assert!(words.contains("but with these vectors \"cold\" gives \"froid\""), "{words}");
        assert!(!words.contains("Attention finds it wherever it is"), "{words}");
        assert!(say(3, &[]).contains("Attention finds it wherever it is"));
    }

    /// A <pad> vector of the learner's: its query is no longer zero, its row no longer
    /// even, and the words say so instead of "spreads evenly".
    #[test]
    fn an_edited_pad_vector_changes_the_padded_rows_words() {
        let words = say(3, &[("<pad>", vec![0.0, 2.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0])]);
        assert!(words.contains("With your <pad> vector its query is not zero"), "{words}");
        assert!(!words.contains("spreads the row evenly"), "{words}");
        assert!(words.contains("the model throws their outputs away"), "{words}");
    }
}
