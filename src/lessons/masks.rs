//! Lesson 3, masks (seeds 000, 001, 002): causal, padding, -inf against -1e9, and where
//! -1e9 leaks.

use std::collections::BTreeMap;

use super::quiz::{Quiz, QuizKind};
use super::{at, base, capitalized, num, row, token, Cell, Claim, Extra, Lesson, LessonStep, Quantity};
use crate::engine::{
    ExplicitWeights, Fill, MaskConfig, Padding, Projections, Scenario, StepName as S, Trace,
};

const SAMPLE: [&str; 2] = ["this is a sample sequence", "the spunky dog wanted to jump high"];
/// The head whose numbers the causal and padding steps quote (head 1 on the page).
const HEAD: usize = 0;

/// The head the words quote, as the page names it ("head 1").
fn head_name() -> String {
    format!("head {}", HEAD + 1)
}

/// The quoted rows `rows` of [`HEAD`]'s weights for sentence 1, every key a column: the
/// numbers the words quote from a map drawn too small to print them.
fn quoted_rows(t: &Trace, caption: String, rows: &[usize]) -> Option<super::Aside> {
    let mut aside = super::matrix_aside(t, caption, "weights", S::Weights, 0, HEAD)?;
    aside.rows = rows.iter().filter_map(|&i| aside.rows.get(i).cloned()).collect();
    Some(aside)
}

/// Step 1's table: the rows of "this" and "is", which its words quote.
fn causal_aside(t: &Trace) -> Option<super::Aside> {
    let caption = format!(
        "{}'s weights under the causal mask, rows 0 and 1 (\"{}\" and \"{}\"), every key",
        capitalized(&head_name()),
        token(t, 0, 0),
        token(t, 0, 1)
    );
    quoted_rows(t, caption, &[0, 1])
}

/// Step 3's table: the row of "this", which its words quote.
fn padding_aside(t: &Trace) -> Option<super::Aside> {
    let caption = format!(
        "{}'s weights under the padding mask, row 0 (\"{}\"), every key",
        capitalized(&head_name()),
        token(t, 0, 0)
    );
    quoted_rows(t, caption, &[0])
}

/// The first sentence's real words as the trace has them: the sentence the padding steps
/// quote, whatever the learner typed.
fn first_sentence(t: &Trace) -> String {
    t.tokens.first().map(|s| s[..t.query_length(0).min(s.len())].join(" ")).unwrap_or_default()
}

/// How many <pad> tokens the first sentence gets.
fn first_pads(t: &Trace) -> usize {
    t.sizes.t.saturating_sub(t.query_length(0))
}

/// The first sentence's last row, a <pad> query while it is shorter than the batch's
/// longest ([`padded_claims`]).
fn pad_row(t: &Trace) -> usize {
    t.sizes.t.saturating_sub(1)
}

/// "the first sentence is padded": the padding steps' words and their <pad> row are about
/// the first sentence, shorter than the second in the lesson's own; a learner who makes it
/// the longest changes the story.
fn padded_claims(t: &Trace) -> Vec<Claim> {
    vec![Claim::Fits(
        "a first sentence shorter than the longest, so that it gets <pad> tokens",
        first_pads(t) > 0,
    )]
}

/// "2 <pad> tokens", "1 <pad> token".
fn pad_tokens(n: usize) -> String {
    format!("{n} <pad> token{}", if n == 1 { "" } else { "s" })
}

/// The two sample sentences, batched and padded to one length, under the mask asked.
pub fn masks(causal: bool, padding: Padding, fill: Fill) -> Scenario {
    let mut s = base(&SAMPLE, 8, 2);
    s.mask = MaskConfig::new(causal, padding, fill);
    s
}

/// A causal sentence whose real scores fall below -1e9: `d_model = 1`, "now" = 1e5 and
/// "later" = -1e5, and `W_K = -1` (the other projections are 1), so the score of "now"
/// with itself is 1e5 · (-1e5) = -1e10. (With `W_Q = W_K` a token's score with itself is
/// `x²` ≥ 0 and no row falls that low: the key has to be turned around.)
pub fn leak(fill: Fill) -> Scenario {
    let mut s = base(&["now later"], 1, 1);
    s.embeddings = BTreeMap::from([("now".into(), vec![1e5]), ("later".into(), vec![-1e5])]);
    let one = vec![vec![1.0]];
    s.projections = Projections::Explicit(Box::new(ExplicitWeights {
        w_q: one.clone(),
        b_q: vec![],
        w_k: vec![vec![-1.0]],
        b_k: vec![],
        w_v: one.clone(),
        b_v: vec![],
        w_o: one,
        b_o: vec![],
    }));
    s.mask = MaskConfig::new(true, Padding::None, fill);
    s
}

/// Row 1's two weights: the real key (itself) and the blocked future key.
fn leak_cells(_: &Trace) -> Vec<Cell> {
    let cell = |col| Cell { step: S::Weights, batch: 0, head: 0, row: 0, col };
    vec![cell(0), cell(1)]
}

/// A step on [`leak`]'s sentence under `fill`: its weights, the mask conventions beside
/// them, the two weights of "now" outlined.
fn leak_step(title: &'static str, fill: Fill, narrate: fn(&Trace) -> String) -> LessonStep {
    LessonStep::new(title, leak(fill), S::Weights, narrate)
        .extra(Extra::MaskConventions)
        .highlight(leak_cells)
        .claims(two_words)
}

/// The leak steps' words and table are about a sentence of two tokens: the first, and the
/// future one it must not see.
fn two_words(t: &Trace) -> Vec<Claim> {
    vec![Claim::Fits("a sentence of two words, as its table is laid out", t.key_tokens(0).len() == 2)]
}

/// "Elsewhere -1e9 and -inf give the same weights here": every row with a key it may see,
/// softmaxed again with its blocked scores set to -inf (the other fill, as the engine's
/// softmax computes it), prints the weights of the trace's own fill, cell by cell.
fn fills_agree_claims(t: &Trace) -> Vec<Claim> {
    let Some(masked) = t.step(S::Masked) else { return Vec::new() };
    let mut out = Vec::new();
    for b in 0..t.sizes.b {
        for h in 0..t.sizes.n_heads {
            let Some(m) = masked.matrix(b, h) else { continue };
            for (i, scores) in m.rows().into_iter().enumerate() {
                let blocked = |j: usize| t.mask.is_blocked(b, i, j);
                if (0..scores.len()).all(blocked) {
                    continue;
                }
                let neg_inf: Vec<f64> = scores
                    .iter()
                    .enumerate()
                    .map(|(j, s)| if blocked(j) { f64::NEG_INFINITY } else { *s })
                    .collect();
                let n = neg_inf.len();
                let Ok(row) = ndarray::Array4::from_shape_vec((1, 1, 1, n), neg_inf) else { continue };
                let w = crate::engine::attention::softmax_rows(&row);
                out.extend(w.iter().enumerate().map(|(j, x)| {
                    Claim::Equal(
                        Quantity::Computed("the weight under -inf", *x),
                        Quantity::Cell(Cell { step: S::Weights, batch: b, head: h, row: i, col: j }),
                    )
                }));
            }
        }
    }
    out
}

/// The lesson.
pub fn lesson() -> Lesson {
    Lesson {
        id: "masks",
        title: "Masks",
        seeds: "the Annotated Transformer, the Masterclass chapter and the multi-head attention article",
        steps: vec![
            LessonStep::new(
                "Causal: no peeking at the future",
                masks(true, Padding::None, Fill::NegInf),
                S::Weights,
                |t| {
                    format!(
                        "A decoder must not see later words. The Annotated Transformer's subsequent_mask blocks key j > i: the \
                         hatched upper triangle. Blocked scores become -inf, so their weights are exactly {}. \
                         In {}, \"{}\" can only attend to itself ({}), and \"{}\" splits {} between \"{}\" and \"{}\".",
                        num(at(t, S::Weights, 0, HEAD, 0, 1)),
                        head_name(),
                        token(t, 0, 0),
                        num(at(t, S::Weights, 0, HEAD, 0, 0)),
                        token(t, 0, 1),
                        row(t, S::Weights, 0, HEAD, 1),
                        token(t, 0, 0),
                        token(t, 0, 1),
                    )
                },
            )
            .extra(Extra::MaskConventions)
            .aside(causal_aside)
            .highlight(|t| {
                    [super::row_cells(t, S::Weights, 0, HEAD, 0), super::row_cells(t, S::Weights, 0, HEAD, 1)]
                        .concat()
                }),
            LessonStep::new(
                "Predict: the second row under the causal mask",
                masks(true, Padding::None, Fill::NegInf),
                S::Masked,
                |_| {
                    "Predict first, on the other sentence of the batch: blocked keys take no weight at all, and \
                     the keys that are left share 1. Type your answer to see the weights."
                        .into()
                },
            )
            .batch(1)
            .extra(Extra::MaskConventions)
            .quiz(Quiz {
                    reveal: Some(S::Weights),
                    reveal_extra: None,
                    // sentence 2, whose weights the step before did not show or quote
                    question: |t| {
                        format!(
                            "Row 1 (\"{}\"; rows count from 0, as PyTorch indexes them) of sentence 2's masked scores is {}. After softmax, what weight does \
                             \"{}\" give to \"{}\" (head 1)? Type a number between 0 and 1.",
                            token(t, 1, 1),
                            row(t, S::Masked, 1, 0, 1),
                            token(t, 1, 1),
                            token(t, 1, 0),
                        )
                    },
                    kind: QuizKind::Number {
                        answer: |t| {
                            let w = at(t, S::Weights, 1, 0, 1, 0);
                            w.is_finite().then(|| {
                                (
                                    w,
                                    format!(
                                        "The -inf keys get e^-inf = 0, so softmax shares the row between the two \
                                         keys left: row 1 of sentence 2's weights is {}.",
                                        row(t, S::Weights, 1, 0, 1)
                                    ),
                                )
                            })
                        },
                        tolerance: 0.005,
                    },
                }),
            LessonStep::new(
                "Padding: a batch needs equal lengths",
                masks(false, Padding::Keys, Fill::NegInf),
                S::Weights,
                |t| {
                    format!(
                        "The batch is padded to its longest sentence, T = {}, so \"{}\" \
                         gets {}. A padding mask (the Masterclass chapter, PyTorch's key_padding_mask) stops every \
                         query from attending to them: the <pad> columns get weight {}, and the {} real words \
                         share all of it: in {}, row 0 (\"{}\") is {}, which adds up to 1.",
                        t.sizes.t,
                        first_sentence(t),
                        pad_tokens(first_pads(t)),
                        num(at(t, S::Weights, 0, HEAD, 0, t.query_length(0))),
                        t.query_length(0),
                        head_name(),
                        token(t, 0, 0),
                        row(t, S::Weights, 0, HEAD, 0),
                    )
                },
            )
            .extra(Extra::MaskConventions)
            .aside(padding_aside)
            .claims(padded_claims)
            .highlight(|t| {
                    (t.query_length(0)..t.sizes.t)
                        .map(|j| Cell { step: S::Weights, batch: 0, head: HEAD, row: 0, col: j })
                        .collect()
                }),
            LessonStep::new(
                "Both together",
                masks(true, Padding::KeysAndQueries, Fill::NegInf),
                S::Masked,
                |t| {
                    format!(
                        "Causal and padding together give the multi-head attention article's table: a triangle for the words, and the \
                         <pad> rows blocked entirely. Blocking the rows is new here (the padding setting is now \
                         \"keys and queries\"): the last step's key_padding_mask blocks only the <pad> columns, so \
                         with it a <pad> query of \"{}\" still sees its {} words, as in nn.MultiheadAttention. The mask is \
                         built once per batch as (B, T, T) = ({}, {}, {}) and mask.unsqueeze(1) makes it \
                         (B, 1, T, T), which broadcasts over the h = {} heads.",
                        first_sentence(t),
                        t.query_length(0),
                        t.sizes.b,
                        t.sizes.t,
                        t.sizes.t,
                        t.sizes.n_heads,
                    )
                },
            )
            .extra(Extra::MaskConventions)
            .claims(padded_claims),
            LessonStep::new(
                "-inf: a fully masked row is NaN",
                masks(true, Padding::KeysAndQueries, Fill::NegInf),
                S::Weights,
                |t| {
                    format!(
                        "A <pad> query row has every key blocked. With -inf, softmax computes e^(-inf − (-inf)) \
                         = e^NaN: the row's weights are {} (0/0), and the NaN flows into context, concat and \
                         output. The Masterclass chapter's code warns about exactly this (\"NaNs detected in attention \
                         weights\").",
                        num(at(t, S::Weights, 0, 0, pad_row(t), 0)),
                    )
                },
            )
            .extra(Extra::MaskConventions)
            .highlight(|t| super::row_cells(t, S::Weights, 0, 0, pad_row(t)))
            .claims(padded_claims),
            LessonStep::new(
                "-1e9: a fully masked row is uniform",
                masks(true, Padding::KeysAndQueries, Fill::LargeNegative),
                S::Weights,
                |t| {
                    format!(
                        "With -1e9 (the Annotated Transformer's choice) every score in a fully masked row is the same -1e9, so \
                         softmax gives each of the T = {} keys the weight {} = 1/T: finite, but meaningless, and \
                         usually ignored by the loss. Elsewhere -1e9 and -inf give the same weights here, because \
                         these real scores are far above -1e9; the next step shows when they are not.",
                        t.sizes.t,
                        num(at(t, S::Weights, 0, 0, pad_row(t), 0)),
                    )
                },
            )
            .extra(Extra::MaskConventions)
            .highlight(|t| super::row_cells(t, S::Weights, 0, 0, pad_row(t)))
            .claims(|t| [padded_claims(t), fills_agree_claims(t)].concat()),
            leak_step("-1e9 leaks: a query attends to the future", Fill::LargeNegative, |t| {
                format!(
                    "-1e9 is only a number, and real scores can be smaller. Here d_model = {}, \"{a}\" is {} \
                     and \"{b}\" is {}, and W_K = {} turns the key around, so \"{a}\" scores {} with itself. \
                     The causal mask replaces the future key's score by {}, which is now the largest in the \
                     row: \"{a}\" gives {} to the blocked future \"{b}\" and {} to itself. The mask leaked.",
                    t.sizes.d_model,
                    num(at(t, S::X, 0, 0, 0, 0)),
                    num(at(t, S::X, 0, 0, 1, 0)),
                    crate::format::exact(t.params.k.w().get((0, 0)).copied().unwrap_or(f64::NAN)),
                    num(at(t, S::Scaled, 0, 0, 0, 0)),
                    num(at(t, S::Masked, 0, 0, 0, 1)),
                    num(at(t, S::Weights, 0, 0, 0, 1)),
                    num(at(t, S::Weights, 0, 0, 0, 0)),
                    a = token(t, 0, 0),
                    b = token(t, 0, 1),
                )
            })
            .aside(|t| {
                let cells = |step| (0..2).map(|j| num(at(t, step, 0, 0, j, 0))).collect::<Vec<_>>();
                Some(super::Aside {
                    caption: format!("The two tokens' vectors x and the scaled scores of \"{}\".", token(t, 0, 0)),
                    head: vec![String::new(), token(t, 0, 0), token(t, 0, 1)],
                    rows: vec![
                        ("x".into(), cells(S::X)),
                        ("scaled".into(), (0..2).map(|j| num(at(t, S::Scaled, 0, 0, 0, j))).collect()),
                    ],
                })
            })
            .claims(|t| {
                // "the future key's score … is now the largest": the leak
                let w = |col| Quantity::Cell(Cell { step: S::Weights, batch: 0, head: 0, row: 0, col });
                [two_words(t), vec![Claim::Greater(w(1), w(0))]].concat()
            }),
            leak_step("-inf does not leak", Fill::NegInf, |t| {
                format!(
                    "The same sentence with -inf: the future score is {}, e^(-inf) is exactly 0 whatever the \
                     other scores are, so \"{a}\" gives {} to \"{b}\" and {} to itself, as the mask says. \
                     A -1e9 fill is \"almost zero weight\" only while the real scores stay far above -1e9. \
                     And a fully masked row? masked_fill(-inf) + softmax gives NaN (step 5); \
                     PyTorch's F.scaled_dot_product_attention, given a boolean mask that is all False on a \
                     row, returns zeros for that row's output instead (checked with torch 2.15, float32 and \
                     float64).",
                    num(at(t, S::Masked, 0, 0, 0, 1)),
                    num(at(t, S::Weights, 0, 0, 0, 1)),
                    num(at(t, S::Weights, 0, 0, 0, 0)),
                    a = token(t, 0, 0),
                    b = token(t, 0, 1),
                )
            }),
        ],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Step 2 asks about a row the step before neither quotes nor shows: the other
    /// sentence's (the picture shows the step's own sentence, and step 1 shows sentence 1).
    #[test]
    fn the_causal_question_asks_what_step_one_did_not_show() {
        let l = lesson();
        let (first, ask) = (&l.steps[0], &l.steps[1]);
        assert_eq!((first.batch, ask.batch), (0, 1));
        let t = l.trace(1);
        let quiz = ask.quiz.unwrap();
        let asked = at(&t, S::Weights, 1, 0, 1, 0);
        // softmax of "spunky"'s two scores: 0.47, a number step 1 never quotes
        assert!((asked - 0.4688).abs() < 1e-4, "{asked}");
        assert!(!(first.narrate)(&l.trace(0)).contains(&num(asked)));
        assert!((quiz.question)(&t).starts_with("Row 1 (\"spunky\"; rows count from 0"));
        let right = quiz.judge_number(&t, asked).unwrap();
        assert!(right.right, "{}", right.text);
    }

    /// The padding steps after the learner edits the first sentence (the look's edit: one
    /// word fewer) quote the new sentence, its count of words and of <pad> tokens; made the
    /// longest, the first sentence has no <pad>, and the steps say what they need instead
    /// of their words.
    #[test]
    fn the_padding_words_follow_the_learners_sentence() {
        let l = lesson();
        let shorter = |s: &mut Scenario| s.sentences[0] = "this is a sample".into();
        let (words, t) = crate::lessons::tests::words_after(&l, 2, &shorter);
        assert_eq!((t.sizes.t, first_pads(&t)), (7, 3));
        assert!(words.contains("so \"this is a sample\" gets 3 <pad> tokens"), "{words}");
        assert!(words.contains("and the 4 real words share all of it"), "{words}");
        let (words, _) = crate::lessons::tests::words_after(&l, 3, &shorter);
        assert!(words.contains("a <pad> query of \"this is a sample\" still sees its 4 words"), "{words}");
        for i in [4, 5] {
            let (words, t) = crate::lessons::tests::words_after(&l, i, &shorter);
            assert!(
                t.mask.is_blocked(0, pad_row(&t), 0),
                "step {}: row {} is not a <pad> row",
                i + 1,
                pad_row(&t)
            );
            assert!(!words.starts_with(crate::lessons::claims::STORY_CHANGED), "{words}");
        }
        let longest = |s: &mut Scenario| s.sentences[0] = "this is a sample sequence of eight words".into();
        for i in 2..6 {
            let (words, _) = crate::lessons::tests::words_after(&l, i, &longest);
            assert!(words.starts_with(crate::lessons::claims::SENTENCES_CHANGED), "step {}: {words}", i + 1);
            assert!(words.contains("a first sentence shorter than the longest"), "{words}");
            assert!(!words.contains("NaN") && !words.contains("1/T"), "{words}");
        }
    }

    /// The causal and padding steps' maps (7 × 7) are drawn too small to print numbers:
    /// their words name the head the quoted rows come from, and the aside beside them holds
    /// those rows, every number the words quote among its cells.
    #[test]
    fn the_quoted_rows_name_their_head_and_are_in_the_aside() {
        let l = lesson();
        for (i, rows) in [(0usize, vec![0usize, 1]), (2, vec![0])] {
            let (step, t) = (&l.steps[i], l.trace(i));
            let words = step.words(&t);
            assert!(words.contains("In head 1, ") || words.contains("in head 1, "), "{words}");
            let aside = (step.aside)(&t).unwrap_or_else(|| panic!("step {}: no aside", i + 1));
            let titles: Vec<String> = rows.iter().map(|&q| format!("\"{}\"", token(&t, 0, q))).collect();
            assert_eq!(aside.rows.iter().map(|r| r.0.clone()).collect::<Vec<_>>(), titles);
            for ((_, cells), &q) in aside.rows.iter().zip(&rows) {
                assert_eq!(format!("[{}]", cells.join(", ")), row(&t, S::Weights, 0, HEAD, q));
            }
            let shown: Vec<&String> = aside.rows.iter().flat_map(|r| &r.1).collect();
            for n in crate::lessons::quoted_numbers(&words) {
                assert!(shown.contains(&&n), "step {}: {n} is not in the aside", i + 1);
            }
        }
        let t = l.trace(2);
        let quoted = format!("in head 1, row 0 (\"this\") is {}", row(&t, S::Weights, 0, 0, 0));
        assert!(l.steps[2].words(&t).contains(&quoted), "{}", l.steps[2].words(&t));
    }

    #[test]
    fn masks_lesson_shows_nan_then_uniform() {
        let l = lesson();
        let nan = l.trace(4);
        assert!(at(&nan, S::Weights, 0, 0, 6, 0).is_nan());
        let uniform = l.trace(5);
        assert!((at(&uniform, S::Weights, 0, 0, 6, 0) - 1.0 / 7.0).abs() < 1e-12);
        assert!((l.steps[5].narrate)(&uniform).contains("0.14 = 1/T"));
    }

    #[test]
    fn large_negative_leaks_to_the_future_and_neg_inf_does_not() {
        let l = lesson();
        let leaky = l.trace(6);
        // "now" with itself: 1e5 · (-1 · 1e5) = -1e10, below the fill
        assert_eq!(at(&leaky, S::Scaled, 0, 0, 0, 0), -1e10);
        assert_eq!(at(&leaky, S::Masked, 0, 0, 0, 1), -1e9);
        assert!(leaky.mask.is_blocked(0, 0, 1));
        // softmax([-1e10, -1e9]) = [e^-9e9, 1] = [0, 1]: all of it on the blocked future key
        assert_eq!(at(&leaky, S::Weights, 0, 0, 0, 1), 1.0);
        assert_eq!(at(&leaky, S::Weights, 0, 0, 0, 0), 0.0);
        let text = (l.steps[6].narrate)(&leaky);
        assert!(text.contains("\"now\" gives 1.00 to the blocked future \"later\""), "{text}");
        let safe = l.trace(7);
        assert_eq!(at(&safe, S::Weights, 0, 0, 0, 1), 0.0);
        assert_eq!(at(&safe, S::Weights, 0, 0, 0, 0), 1.0);
        assert!((l.steps[7].narrate)(&safe).contains("gives 0.00 to \"later\" and 1.00 to itself"));
    }

    /// The -1e9 step's "-1e9 and -inf give the same weights here" is a claim on every
    /// cell of every row with a visible key, and it fails where -1e9 leaks.
    #[test]
    fn the_two_fills_agree_where_the_words_say_so_and_not_where_they_leak() {
        let lesson = lesson();
        let step = lesson.steps.iter().find(|s| s.title == "-1e9: a fully masked row is uniform").unwrap();
        let t = crate::engine::run(&step.scenario).unwrap();
        let claims = (step.claims)(&t);
        assert!(claims.len() > 20, "{}", claims.len());
        assert!(step.claims_hold(&t));
        let leaky = crate::engine::run(&leak(Fill::LargeNegative)).unwrap();
        assert!(!fills_agree_claims(&leaky).iter().all(|c| c.holds(&leaky)));
    }
}
