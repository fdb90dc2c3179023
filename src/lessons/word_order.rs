//! Lesson 6, word order ("Attention Is All You Need", §3.5; no seed has it): without
//! positions, self-attention cannot tell "dog bites man" from "man bites dog"; the
//! sinusoidal positional encoding tells them apart, and the nearest few positions get similar codes.

use super::quiz::{Quiz, QuizKind};
use super::reorder::{
    all_pairs, largest_mismatch, largest_mismatch_pair, largest_output_mismatch, matching_cells, moved_rows,
    order_sources, pair_row, pair_words, sameness,
};
use super::{at, base, num, row, token, Aside, Claim, Extra, Lesson, LessonStep, Quantity};
use crate::engine::{Positional, Scenario, StepName as S, Trace};

/// The two orders, as one batch: sentence 1 and sentence 2.
const ORDERS: [&str; 2] = ["dog bites man", "man bites dog"];
/// A longer sentence for the picture of the encoding itself.
/// What the steps that compare the two orders say when the sentences are not two orders
/// of the same words (after an edit or an import).
const NOT_TWO_ORDERS: &str = "Type two sentences with the same words in a different order to compare them.";

const LONG: &str = "the spunky dog wanted to jump over the cold creek and back";

fn orders(positional: Positional) -> Scenario {
    let mut s = base(&ORDERS, 4, 1);
    s.positional = positional;
    s
}

fn long() -> Scenario {
    let mut s = base(&[LONG], 16, 1);
    s.positional = Positional::Sinusoidal;
    s
}

pub use super::claims::pe_dot;

fn fixed4(v: f64) -> String {
    crate::format::fixed(v, 4)
}

/// Step 1's words where something lets attention see the order (the learner switched
/// the positions on, say), and the claims they make: the title's case no longer holds,
/// and the weights of the two orders differ as printed, or, where they still match pair
/// for pair (ALiBi sees distances only, and reversing keeps them), that they do.
fn order_seen(t: &Trace, sources: &[&str]) -> (String, Vec<Claim>) {
    let Some((i, j, pi)) = pair_words(t) else { return (NOT_TWO_ORDERS.into(), Vec::new()) };
    let pairs = all_pairs(t);
    let differ = Claim::Differ(pairs.clone());
    let (how, claims) = if differ.holds(t) {
        ("So the two orders no longer give the same weights", vec![differ])
    } else {
        (
            "Yet for these two orders every weight of one still prints as the weight of the other, moved",
            pairs.into_iter().map(|(a, b)| Claim::Equal(a, b)).collect(),
        )
    };
    let words = format!(
        "This step's title is about attention without positions, and here {}. {how}: \"{}\" → \"{}\" gets {} in \
         sentence 1 and {} in sentence 2 (outlined in each sentence's map), and over all {} pairs the two orders are {}. \
         Without {}, every weight of one order would be a weight of the other, moved; going to another step and \
         back restores this step's settings.",
        sources.join("; and "),
        token(t, 0, i),
        token(t, 0, j),
        num(at(t, S::Weights, 0, 0, i, j)),
        num(at(t, S::Weights, 1, 0, pi[i], pi[j])),
        pi.len() * pi.len(),
        sameness(largest_mismatch(t)),
        if sources.len() > 1 { "them" } else { "it" },
    );
    (words, claims)
}

/// Step 2's words: the first moved word's row in each sentence. With nothing that sees
/// the order (the lesson's own settings) they are the same numbers, moved, and so are the
/// outputs; with something that does (the learner switched the positions on, say), the
/// words say what, and how far the outputs now differ.
fn moved_row_words(t: &Trace) -> String {
    let Some((i, _, pi)) = pair_words(t) else { return NOT_TWO_ORDERS.into() };
    let w = token(t, 0, i);
    let (here, there) = (row(t, S::Weights, 0, 0, i), row(t, S::Weights, 1, 0, pi[i]));
    let outputs = sameness(largest_output_mismatch(t));
    let sources = order_sources(t);
    if sources.is_empty() {
        return format!(
            "In sentence 1, \"{w}\" (position {i}) has the row {here}; in sentence 2, \"{w}\" (position {}) has \
             {there}: the same numbers, in the order its words now come. Mathematicians call this \
             permutation-equivariant. The outputs follow: each token's output is the same vector in both sentences \
             ({outputs}), so after attention \"dog\" cannot know whether it bit or was bitten.",
            pi[i],
        );
    }
    format!(
        "This step's title is about attention without positions, and here {}. In sentence 1, \"{w}\" (position {i}) \
         has the row {here}; in sentence 2, \"{w}\" (position {}) has {there}. Each token's output, against the same \
         token's in the other sentence, is {outputs}. Without {}, the row would be the same numbers in the order its \
         words now come, and each output the same vector in both sentences; going to another step and back restores \
         this step's settings.",
        sources.join("; and "),
        pi[i],
        if sources.len() > 1 { "them" } else { "it" },
    )
}

/// Step 1's words and claims: the permutation story with nothing that sees the order
/// (the lesson's own settings), [`order_seen`] with something that does.
fn invisible(t: &Trace) -> (String, Vec<Claim>) {
    let sources = order_sources(t);
    if !sources.is_empty() {
        return order_seen(t, &sources);
    }
    let Some((i, j, pi)) = pair_words(t) else { return (NOT_TWO_ORDERS.into(), Vec::new()) };
    let words = format!(
        "The batch holds \"{}\" and \"{}\": the same words in another order. Attention only \
         compares vectors, and a word's vector does not say where the word is. So \"{}\" → \
         \"{}\" gets the weight {} in sentence 1 and {} in sentence 2 (outlined in each \
         sentence's map). Every weight of one order is a weight of the other, moved: \
         weights[1][i][j] = weights[2][π(i)][π(j)], {} over all {} pairs.",
        sentence_text(t, 0),
        sentence_text(t, 1),
        token(t, 0, i),
        token(t, 0, j),
        num(at(t, S::Weights, 0, 0, i, j)),
        num(at(t, S::Weights, 1, 0, pi[i], pi[j])),
        sameness(largest_mismatch(t)),
        pi.len() * pi.len(),
    );
    (words, Vec::new())
}

/// The table of the outlined pair in both orders, and, where another pair differs more
/// (beyond float rounding), that pair: every number [`order_seen`] and step 3 quote.
fn pairs_table(t: &Trace, caption: &str) -> Option<Aside> {
    let (i, j, pi) = pair_words(t)?;
    let mut rows = vec![pair_row(t, &pi, i, j)?];
    if let Some((a, b, _)) = largest_mismatch_pair(t).filter(|&(a, b, d)| (a, b) != (i, j) && d >= 1e-12) {
        rows.push(pair_row(t, &pi, a, b)?);
    }
    let most = if rows.len() > 1 { " The second row is the pair that differs most." } else { "" };
    Some(Aside {
        caption: format!("{caption}{most}"),
        head: vec!["weight".into(), "sentence 1".into(), "sentence 2".into(), "difference".into()],
        rows,
    })
}

/// The lesson.
pub fn lesson() -> Lesson {
    Lesson {
        id: "word-order",
        title: "Word order",
        seeds: "Attention Is All You Need §3.5",
        steps: vec![
            LessonStep::new(
                "Without positions, order is invisible",
                orders(Positional::None),
                S::Weights,
                |t| invisible(t).0,
            )
            .claims_each_case(|t| invisible(t).1)
            .highlight(matching_cells)
            // with something that sees the order, the words quote the pair that differs most
            .aside(|t| {
                (!order_sources(t).is_empty())
                    .then(|| pairs_table(t, "The outlined weight of each order, with what sees the order."))
                    .flatten()
            })
            .embed_aside(|t| pairs_table(t, "The outlined weight of each order (the embed's map shows one sentence).")),
            LessonStep::new(
                "The other order: the same numbers, moved",
                orders(Positional::None),
                S::Weights,
                moved_row_words,
            )
            .batch(1)
            .highlight(moved_rows)
            .embed_aside(|t| {
                let (i, _, pi) = pair_words(t)?;
                let cells = |b: usize, r: usize| (0..pi.len()).map(|j| num(at(t, S::Weights, b, 0, r, j))).collect();
                let mut head = vec![format!("\"{}\"", token(t, 0, i))];
                head.extend((0..pi.len()).map(|j| format!("key {j}")));
                Some(Aside {
                    caption: format!(
                        "\"{}\"'s row of weights in each order, keys by position (the embed's map shows one \
                         sentence).",
                        token(t, 0, i)
                    ),
                    head,
                    rows: vec![("sentence 1".into(), cells(0, i)), ("sentence 2".into(), cells(1, pi[i]))],
                })
            }),
            LessonStep::new(
                "Add positions: the weights now differ",
                orders(Positional::Sinusoidal),
                S::Weights,
                |t| {
                    let Some((i, j, pi)) = pair_words(t) else {
                        return NOT_TWO_ORDERS.into();
                    };
                    format!(
                        "Now a positional encoding PE (d_model = {}) is added to every embedding before the \
                         projections: x_pe = x + PE, and the vector of \"{}\" at position {} is no longer the \
                         vector of \"{}\" at position {}. \"{}\" → \"{}\" now gets {} in sentence 1 and {} in \
                         sentence 2; over all pairs the two orders are {}.",
                        t.sizes.d_model,
                        token(t, 0, i),
                        i,
                        token(t, 0, i),
                        pi[i],
                        token(t, 0, i),
                        token(t, 0, j),
                        num(at(t, S::Weights, 0, 0, i, j)),
                        num(at(t, S::Weights, 1, 0, pi[i], pi[j])),
                        sameness(largest_mismatch(t)),
                    )
                },
            )
            .aside(|t| {
                pairs_table(t, "With positions added, the same two words in the two orders: the weights differ.")
            })
            .highlight(matching_cells),
            LessonStep::new(
                "What positional encoding looks like",
                long(),
                S::Pe,
                |t| {
                    let before = orders(Positional::Sinusoidal);
                    format!(
                        "New example: one longer sentence and d_model = {}, not two {}-word sentences and \
                         d_model = {}. PE has one row per position and one column per feature, \
                         (1, T, d_model) = (1, {}, {}), the same for every sentence. The columns come in pairs, i = 0 to {}: \
                         \"sin i\" is sin(pos / 10000^(2i/d_model)) and \"cos i\" the cosine. Position 0's row is {}. \
                         The first pairs turn fast (sin 0 goes {}, {}, {} over positions 0–2); the last turn so \
                         slowly that four decimals are needed to see sin {} move ({}, {}, {}).",
                        t.sizes.d_model,
                        ORDERS[0].split_whitespace().count(),
                        before.d_model,
                        t.sizes.t,
                        t.sizes.d_model,
                        (t.sizes.d_model / 2).saturating_sub(1),
                        row(t, S::Pe, 0, 0, 0),
                        num(at(t, S::Pe, 0, 0, 0, 0)),
                        num(at(t, S::Pe, 0, 0, 1, 0)),
                        num(at(t, S::Pe, 0, 0, 2, 0)),
                        t.sizes.d_model.saturating_sub(2) / 2,
                        fixed4(at(t, S::Pe, 0, 0, 0, t.sizes.d_model.saturating_sub(2))),
                        fixed4(at(t, S::Pe, 0, 0, 1, t.sizes.d_model.saturating_sub(2))),
                        fixed4(at(t, S::Pe, 0, 0, 2, t.sizes.d_model.saturating_sub(2))),
                    )
                },
            )
            .aside(|t| {
                    let last = t.sizes.d_model.checked_sub(2)?;
                    let positions = 0..t.sizes.t.min(3);
                    let mut head = vec!["pair".to_string()];
                    head.extend(positions.clone().map(|p| format!("pos {p}")));
                    Some(Aside {
                        caption:
                            "The first and the last pairs' sines over positions 0–2: the last needs four \
                                  decimals to be seen moving."
                                .into(),
                        head,
                        rows: vec![
                            (
                                "sin 0".into(),
                                positions.clone().map(|p| num(at(t, S::Pe, 0, 0, p, 0))).collect(),
                            ),
                            (
                                format!("sin {}", last / 2),
                                positions.map(|p| fixed4(at(t, S::Pe, 0, 0, p, last))).collect(),
                            ),
                        ],
                    })
                }),
            LessonStep::new(
                "Predict: which position is most like position 4?",
                long(),
                S::Pe,
                |_| {
                    "Predict first: each position's code is a row of sines and cosines, some turning fast \
                     and some slowly. Choose an answer to see the dot products."
                        .into()
                },
            )
            .quiz(Quiz {
                    reveal: None,
                    reveal_extra: Some(Extra::PositionSimilarity { quoted: &NEIGHBOUR_CELLS }),
                    question: |_| {
                        "Each row of PE is a position's code. Compare position 4's code with others by the dot \
                         product: which gives the largest, apart from position 4 itself? (Positions count from 0, \
                         as pos in the formula does.)"
                            .into()
                    },
                    kind: QuizKind::Choice {
                        choices: |_| NEIGHBOURS.map(|p| format!("position {p}")).to_vec(),
                        answer: closest_position,
                    },
                }),
            // the picture is the table of PE · PEᵀ, not a heatmap with outlines
            LessonStep::new(
                "Nearby positions: similar codes, a few positions out",
                long(),
                S::Pe,
                |t| {
                    format!(
                        "Compare two positions by the dot product of their rows. Position 4 with itself: {}; \
                         with 5: {}; with 6: {}; with 7: {}. For the nearest few, nearer means more alike. Then \
                         it stops: with 9 it is {} and with 10 {}, both above 7's {}, because the fast columns \
                         come round into phase again. So \"close positions have close codes\" holds only a few \
                         positions out. The dot product depends only on how far apart two positions are: \
                         positions 0 and 1 give {} too. So attention can learn \"look one word back\" once, for \
                         every position.",
                        num(pe_dot(t, 4, 4)),
                        num(pe_dot(t, 4, 5)),
                        num(pe_dot(t, 4, 6)),
                        num(pe_dot(t, 4, 7)),
                        num(pe_dot(t, 4, 9)),
                        num(pe_dot(t, 4, 10)),
                        num(pe_dot(t, 4, 7)),
                        num(pe_dot(t, 0, 1)),
                    )
                },
            )
            .claims(|_| {
                let d = |j| Quantity::PeDot(4, j);
                vec![
                    Claim::Falling(vec![d(4), d(5), d(6), d(7)]),
                    Claim::Greater(d(9), d(7)),
                    Claim::Greater(d(10), d(9)),
                    Claim::Equal(Quantity::PeDot(0, 1), d(5)),
                ]
            })
            .extra(Extra::PositionSimilarity { quoted: &NEARBY_CELLS }),
        ],
    }
}

/// The positions (0-based) the question offers as position 4's closest code: the nearest,
/// and two that show the dip and rise (7 is nearer than 10, and less alike).
const NEIGHBOURS: [usize; 3] = [10, 5, 7];

/// The cells of `PE · PEᵀ` the question's answer quotes, marked in its table: position 4
/// with each of [`NEIGHBOURS`].
const NEIGHBOUR_CELLS: [(usize, usize); 3] = [(4, NEIGHBOURS[0]), (4, NEIGHBOURS[1]), (4, NEIGHBOURS[2])];

/// The cells of `PE · PEᵀ` the last step's words quote (the dot products its claims
/// compare), marked in its table.
const NEARBY_CELLS: [(usize, usize); 7] = [(4, 4), (4, 5), (4, 6), (4, 7), (4, 9), (4, 10), (0, 1)];

/// Which of [`NEIGHBOURS`] has the largest dot product with position 4, and the
/// dot products as the reason, from the trace's `pe`.
fn closest_position(t: &Trace) -> Option<(usize, String)> {
    let dots = NEIGHBOURS.map(|p| pe_dot(t, 4, p));
    if dots.iter().any(|d| !d.is_finite()) {
        return None;
    }
    let best = (0..NEIGHBOURS.len()).max_by(|&a, &b| dots[a].total_cmp(&dots[b]))?;
    Some((
        best,
        format!(
            "PE(4)·PE(10) = {}, PE(4)·PE(5) = {}, PE(4)·PE(7) = {}. The nearest position is the most \
             alike, but 10, six positions away, is {} alike than 7, three away: nearness holds only for the \
             nearest few.",
            num(dots[0]),
            num(dots[1]),
            num(dots[2]),
            if dots[0] > dots[2] { "more" } else { "less" },
        ),
    ))
}

/// Sentence `b` as its real tokens joined by spaces.
fn sentence_text(t: &Trace, b: usize) -> String {
    let n = t.lengths.get(b).copied().unwrap_or(0);
    t.tokens.get(b).map(|toks| toks.iter().take(n).cloned().collect::<Vec<_>>().join(" ")).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::super::reorder::permutation;
    use super::*;
    use crate::engine::run;

    #[test]
    fn without_positions_the_orders_are_permutations_of_each_other() {
        let l = lesson();
        let (t, text) = l.narrated(0);
        assert_eq!(permutation(&t), Some(vec![2, 1, 0]));
        // equal up to the order of summation
        assert!(largest_mismatch(&t).unwrap() < 1e-12);
        assert!(largest_output_mismatch(&t).unwrap() < 1e-12);
        let cells = (l.steps[0].highlight)(&t);
        assert_eq!(cells.len(), 2);
        assert_eq!((cells[0].batch, cells[0].row, cells[0].col), (0, 0, 2));
        assert_eq!((cells[1].batch, cells[1].row, cells[1].col), (1, 2, 0));
        assert!(text.contains("equal") && text.contains("over all 9 pairs"), "{text}");
        let w = num(at(&t, S::Weights, 0, 0, 0, 2));
        assert!(text.contains(&format!("weight {w} in sentence 1 and {w} in sentence 2")), "{text}");
    }

    /// The similarity table marks the cells the words quote: the last step's are the dot
    /// products its claims compare, each quoted in its words; the question's, the ones its
    /// answer quotes.
    #[test]
    fn the_similarity_table_marks_the_quoted_cells() {
        let l = lesson();
        let step = l.steps.last().unwrap();
        let t = run(&step.scenario).unwrap();
        let Extra::PositionSimilarity { quoted } = step.extra else { panic!("{:?}", step.extra) };
        let mut compared: Vec<(usize, usize)> = Vec::new();
        for claim in (step.claims)(&t) {
            let qs = match claim {
                Claim::Falling(v) => v,
                Claim::Greater(a, b) | Claim::Equal(a, b) => vec![a, b],
                other => panic!("{other:?}"),
            };
            compared.extend(qs.into_iter().filter_map(|q| match q {
                Quantity::PeDot(i, j) => Some((i, j)),
                _ => None,
            }));
        }
        compared.sort_unstable();
        compared.dedup();
        let mut marked = quoted.to_vec();
        marked.sort_unstable();
        assert_eq!(marked, compared);
        let words = step.words(&t);
        for &(i, j) in quoted {
            assert!(words.contains(&num(pe_dot(&t, i, j))), "PE({i})·PE({j}) not in {words}");
        }
        let ask = l.steps.iter().find_map(|s| s.quiz.and_then(|q| q.reveal_extra)).unwrap();
        let Extra::PositionSimilarity { quoted } = ask else { panic!("{ask:?}") };
        assert_eq!(quoted.to_vec(), NEIGHBOURS.map(|p| (4, p)).to_vec());
        let answer = closest_position(&t).unwrap().1;
        for &(i, j) in quoted {
            assert!(answer.contains(&format!("PE({i})·PE({j}) = {}", num(pe_dot(&t, i, j)))), "{answer}");
        }
    }

    #[test]
    fn with_positions_the_weights_differ() {
        let l = lesson();
        let t = l.trace(2);
        let worst = largest_mismatch(&t).unwrap();
        assert!(worst > 0.01, "{worst}");
        let (a, b) = (at(&t, S::Weights, 0, 0, 0, 2), at(&t, S::Weights, 1, 0, 2, 0));
        assert!((a - b).abs() > 1e-3 && num(a) != num(b), "{a} {b}");
        assert!((l.steps[2].narrate)(&t).contains("different by up to"));
    }

    /// Step 1 with the positions switched on by the learner: the words no longer say that
    /// order is invisible or that every weight is a weight of the other order; they say
    /// what sees the order and quote the weights that now differ, each in the picture.
    #[test]
    fn step_1_with_positions_on_says_what_is_now_true() {
        let l = lesson();
        let step = LessonStep { scenario: orders(Positional::Sinusoidal), ..l.steps[0].clone() };
        let t = run(&step.scenario).unwrap();
        let words = step.words(&t);
        assert!(step.each_case && step.claims_hold(&t), "{words}");
        assert!(!words.starts_with(super::super::claims::STORY_CHANGED), "{words}");
        for false_now in ["does not say where the word is", "Every weight of one order is a weight", "equal"]
        {
            assert!(!words.contains(false_now), "{false_now}: {words}");
        }
        assert!(words.contains("a positional encoding is added to every embedding (x + PE)"), "{words}");
        assert!(words.contains("So the two orders no longer give the same weights"), "{words}");
        let d = largest_mismatch(&t).unwrap();
        assert!(words.contains(&format!("different by up to {}", num(d))), "{words}");
        // the outlined pair in both orders, and the pair that differs most, in the table
        let (a, b) = (at(&t, S::Weights, 0, 0, 0, 2), at(&t, S::Weights, 1, 0, 2, 0));
        assert!(
            words.contains(&format!("gets {} in sentence 1 and {} in sentence 2", num(a), num(b))),
            "{words}"
        );
        let table = (step.aside)(&t).unwrap();
        let cells: Vec<&String> = table.rows.iter().flat_map(|(_, c)| c).collect();
        for n in [num(a), num(b), num(d)] {
            assert!(cells.contains(&&n), "{n} not in {table:?}");
        }
        // switched off again: the lesson's own words, and no table under them
        let t = l.trace(0);
        let words = l.steps[0].words(&t);
        assert!(words.contains("does not say where the word is"), "{words}");
        assert!((l.steps[0].aside)(&t).is_none());
        // a causal mask sees the order too
        let mut s = orders(Positional::None);
        s.mask.causal = true;
        let t = run(&s).unwrap();
        let words = l.steps[0].words(&t);
        assert!(
            words.contains("the mask blocks keys by their position") && l.steps[0].claims_hold(&t),
            "{words}"
        );
    }

    /// Step 2 with the positions switched on does not call the rows the same numbers.
    #[test]
    fn step_2_with_positions_on_says_what_is_now_true() {
        let l = lesson();
        let step = LessonStep { scenario: orders(Positional::Sinusoidal), ..l.steps[1].clone() };
        let t = run(&step.scenario).unwrap();
        let words = step.words(&t);
        assert!(
            !words.contains("the same numbers, in the order") && !words.contains("cannot know"),
            "{words}"
        );
        assert!(words.contains("a positional encoding is added to every embedding (x + PE)"), "{words}");
        let d = largest_output_mismatch(&t).unwrap();
        assert!(d > 1e-6 && words.contains(&format!("different by up to {}", num(d))), "{words}");
        for (b, r) in [(0, 0), (1, 2)] {
            assert!(words.contains(&row(&t, S::Weights, b, 0, r)), "{words}");
        }
        // the lesson's own settings: the same numbers, moved
        let words = l.steps[1].words(&l.trace(1));
        assert!(words.contains("the same numbers, in the order its words now come"), "{words}");
        assert!(!words.contains("title is about"), "{words}");
    }

    /// Step 4 takes another sentence and d_model than step 3: its words say so, with the
    /// numbers of both steps' own scenarios.
    #[test]
    fn the_step_that_changes_the_example_says_so() {
        let l = lesson();
        let (before, after) = (&l.steps[2].scenario, &l.steps[3].scenario);
        assert_ne!((before.d_model, &before.sentences), (after.d_model, &after.sentences));
        let (_, text) = l.narrated(3);
        assert_eq!(after.sentences.len(), 1);
        let said = format!(
            "New example: one longer sentence and d_model = {}, not two {}-word sentences and d_model = {}.",
            after.d_model,
            before.sentences[0].split_whitespace().count(),
            before.d_model
        );
        assert!(text.contains(&said), "{text}");
        assert!(before.sentences.iter().all(|s| s.split_whitespace().count() == 3));
    }

    #[test]
    fn nearby_positions_have_larger_dot_products() {
        let l = lesson();
        let t = l.trace(4);
        let d = t.sizes.d_model as f64;
        // every row has norm² d_model / 2 (sin² + cos² = 1 per pair)
        assert!((pe_dot(&t, 4, 4) - d / 2.0).abs() < 1e-12);
        assert!(pe_dot(&t, 4, 4) > pe_dot(&t, 4, 5));
        assert!(pe_dot(&t, 4, 5) > pe_dot(&t, 4, 6));
        assert!(pe_dot(&t, 4, 6) > pe_dot(&t, 4, 9));
        // shift-invariant: it depends on the distance only
        assert!((pe_dot(&t, 4, 5) - pe_dot(&t, 0, 1)).abs() < 1e-12);
        assert!(pe_dot(&t, 40, 0).is_nan(), "out of range is NaN, not a panic");
    }

    /// The embed shows one sentence's map and no tabs: steps 1 and 2's embeds print both
    /// orders' quoted numbers in a table, and the words send no one to the tabs.
    #[test]
    fn the_embeds_show_both_orders_numbers() {
        let l = lesson();
        for i in [0, 1] {
            let t = l.trace(i);
            let words = l.steps[i].words(&t);
            assert!(!words.contains("tabs"), "step {}: {words}", i + 1);
            let make = l.steps[i].embed_aside.unwrap_or_else(|| panic!("step {}: no embed table", i + 1));
            let table = make(&t).unwrap();
            let cells: Vec<&String> = table.rows.iter().flat_map(|(_, c)| c).collect();
            let (a, _, pi) = pair_words(&t).unwrap();
            let quoted: Vec<String> = if i == 0 {
                vec![num(at(&t, S::Weights, 0, 0, 0, 2)), num(at(&t, S::Weights, 1, 0, 2, 0))]
            } else {
                (0..3)
                    .flat_map(|j| {
                        [num(at(&t, S::Weights, 0, 0, a, j)), num(at(&t, S::Weights, 1, 0, pi[a], j))]
                    })
                    .collect()
            };
            for n in quoted {
                assert!(words.contains(&n), "step {}: {n} in {words}", i + 1);
                assert!(cells.contains(&&n), "step {}: {n} not in {table:?}", i + 1);
            }
        }
        // sentence 1's row and sentence 2's, each in its own order
        let t = l.trace(1);
        let table = (l.steps[1].embed_aside.unwrap())(&t).unwrap();
        assert_eq!(table.rows[0].1, (0..3).map(|j| num(at(&t, S::Weights, 0, 0, 0, j))).collect::<Vec<_>>());
        assert_eq!(table.rows[1].1, (0..3).map(|j| num(at(&t, S::Weights, 1, 0, 2, j))).collect::<Vec<_>>());
    }

    /// Step 4's words name the columns by the labels the map shows (sin i, cos i, by pair),
    /// not by a column index the labels do not print; the side table too, and the row
    /// labels of its sentence are not cut.
    #[test]
    fn the_encoding_step_names_columns_as_the_map_labels_them() {
        let l = lesson();
        let t = l.trace(3);
        let words = l.steps[3].words(&t);
        let labels = super::super::labels::pe_cols(t.sizes.d_model);
        assert!(!words.contains("Column 2i") && !words.contains("column 0"), "{words}");
        for name in ["sin 0", &format!("sin {}", t.sizes.d_model / 2 - 1)] {
            assert!(words.contains(name) && labels.iter().any(|l| l == name), "{name}: {words}");
        }
        let table = (l.steps[3].aside)(&t).unwrap();
        assert_eq!(table.head[0], "pair");
        assert!(table.rows.iter().all(|(title, _)| labels.contains(title)), "{table:?}");
        let rows = super::super::labels::pe_rows(&t.tokens[0], t.sizes.t);
        for r in rows {
            assert_eq!(crate::draw::heatmap_layout::short_label(&r), r, "a cut row label");
        }
    }

    #[test]
    fn edited_sentences_are_not_compared() {
        let mut s = orders(Positional::None);
        s.sentences = vec!["dog bites man".into(), "cats sleep".into()];
        let t = run(&s).unwrap();
        assert_eq!(permutation(&t), None);
        assert!(matching_cells(&t).is_empty());
        assert!((lesson().steps[0].narrate)(&t).starts_with("Type two sentences"));
    }
}
