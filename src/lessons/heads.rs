//! Lesson 2, why several heads (the multi-head attention article): one word needs two
//! things at once. Two hand-made heads each find one with a sharp peak; one head must
//! split its single row of weights between them, and its output blends the two.

use super::quiz::{Quiz, QuizKind};
use super::{at, base, num, row, token, Aside, Cell, Claim, Lesson, LessonStep, Quantity};
use crate::engine::weights::parameter_count;
use crate::engine::{ExplicitWeights, Projections, Scenario, StepName as S, Trace};

/// The 8 named features: sports, animal, nature, thing, describes, action, refers, function.
const ANIMAL: usize = 1;
const ACTION: usize = 5;
const REFERS: usize = 6;

/// How strongly a key's feature answers a query's: large enough that a head's best key
/// gets about 0.9 of the row.
const STRENGTH: f64 = 2.5;

fn zeros(d: usize) -> Vec<Vec<f64>> {
    vec![vec![0.0; d]; d]
}

fn eye(d: usize) -> Vec<Vec<f64>> {
    (0..d).map(|i| (0..d).map(|j| if i == j { 1.0 } else { 0.0 }).collect()).collect()
}

/// Two questions an action word asks, as hand-made query and key columns on the 8 named
/// features:
/// - column 0, "who does it?": the query is the word's "action", the key a word's "animal";
/// - column 4, "done to what?": the query is again "action", the key a word's "refers" (a
///   pronoun standing for the thing).
///
/// With h = 2 (d_k = 4) column 0 is head 1's and column 4 head 2's; with h = 1 (d_k = 8)
/// both are the one head's. V and W_O are the identity, so a head's output is a weighted
/// average of its slice of the embeddings, under the features' own names.
pub fn two_questions() -> ExplicitWeights {
    let mut w_q = zeros(8);
    let mut w_k = zeros(8);
    w_q[ACTION][0] = 1.0;
    w_k[ANIMAL][0] = STRENGTH;
    w_q[ACTION][4] = 1.0;
    w_k[REFERS][4] = STRENGTH;
    ExplicitWeights { w_q, b_q: vec![], w_k, b_k: vec![], w_v: eye(8), b_v: vec![], w_o: eye(8), b_o: vec![] }
}

const CREEK: &str = "The creek was cold and the spunky dog wanted to jump over it";
const DOG: usize = 7;
const WANTED: usize = 8;
const JUMP: usize = 10;
const IT: usize = 12;

/// The words every step quotes at their places in the creek sentence: its words hold only
/// while the learner's sentence keeps them there.
fn creek_claims() -> Vec<Claim> {
    Claim::words_at(&[(DOG, "dog"), (WANTED, "wanted"), (JUMP, "jump"), (IT, "it")])
}

/// `claims` for a step, after [`creek_claims`].
fn with_creek(claims: Vec<Claim>) -> Vec<Claim> {
    let mut out = creek_claims();
    out.extend(claims);
    out
}

/// The sentence as the trace has it, as a quoted sentence: "The creek was … it."
fn sentence(t: &Trace) -> String {
    format!("{}.", super::capitalized(&t.tokens.first().map(|s| s.join(" ")).unwrap_or_default()))
}

/// The creek sentence with the two questions, in `heads` heads.
fn scenario(heads: usize) -> Scenario {
    let mut s = base(&[CREEK], 8, heads);
    s.projections = Projections::Explicit(Box::new(two_questions()));
    s
}

/// Column `c` of a step split into heads, as its map labels it: `h2 · 2` is head 2's
/// feature 2 (heads from 1, features from 0).
fn split_column(t: &Trace, c: usize) -> String {
    let d_k = t.sizes.d_k.max(1);
    format!("h{} · {}", c / d_k + 1, c % d_k)
}

fn weight(t: &Trace, head: usize, i: usize, j: usize) -> String {
    num(at(t, S::Weights, 0, head, i, j))
}

fn cells(step: S, head: usize, i: usize, keys: &[usize]) -> Vec<Cell> {
    keys.iter().map(|&col| Cell { step, batch: 0, head, row: i, col }).collect()
}

/// The weight of query `i` on key `j` in `head`, as a claim's quantity.
fn w(head: usize, i: usize, j: usize) -> Quantity {
    Quantity::Cell(Cell { step: S::Weights, batch: 0, head, row: i, col: j })
}

/// "one sharp peak": in `head`, the query `i` puts more on `peak` than on any other key.
fn peak(t: &Trace, head: usize, i: usize, peak: usize) -> Claim {
    let others = (0..t.key_tokens(0).len()).filter(|&j| j != peak).map(|j| w(head, i, j)).collect();
    Claim::Largest(w(head, i, peak), others)
}

/// Step 2's claims: "jump" has one sharp peak on "dog" in head 1, and "wanted"'s row is
/// the same as "jump"'s.
fn head_1_claims(t: &Trace) -> Vec<Claim> {
    let mut out = vec![peak(t, 0, JUMP, DOG)];
    out.extend((0..t.key_tokens(0).len()).map(|j| Claim::Equal(w(0, WANTED, j), w(0, JUMP, j))));
    out
}

/// A small table of `head`'s rows `rows` of `step` (the weights or the scaled scores) for
/// the keys the words quote, `keys`, then the largest of the other keys (and, for weights,
/// their sum): the numbers the words quote, which a map of 13 × 13 cells is drawn too small
/// to print, and a row of 13 keys too wide to project.
fn peak_aside(
    t: &Trace,
    step: S,
    head: usize,
    rows: &[usize],
    keys: &[usize],
    caption: String,
) -> Option<Aside> {
    let weights = step == S::Weights;
    let others: Vec<usize> = (0..t.key_tokens(0).len()).filter(|j| !keys.contains(j)).collect();
    let mut head_row =
        vec![format!("{}, head {} →", if weights { "weights" } else { "scaled scores" }, head + 1)];
    head_row.extend(keys.iter().map(|&j| format!("\"{}\"", token(t, 0, j))));
    head_row.push(format!("largest of the other {}", others.len()));
    if weights {
        head_row.push(format!("the other {}, summed", others.len()));
    }
    let rows = rows
        .iter()
        .map(|&i| {
            let v = |j: usize| at(t, step, 0, head, i, j);
            let mut cells: Vec<String> = keys.iter().map(|&j| num(v(j))).collect();
            cells.push(num(others.iter().map(|&j| v(j)).fold(f64::NEG_INFINITY, f64::max)));
            if weights {
                cells.push(num(others.iter().map(|&j| v(j)).sum()));
            }
            (format!("\"{}\"", token(t, 0, i)), cells)
        })
        .collect();
    Some(Aside { caption, head: head_row, rows })
}

/// Step 7's table: "jump"'s row of concat, its columns named as the map names them.
fn concat_aside(t: &Trace) -> Option<Aside> {
    let m = t.step(S::Concat)?.matrix(0, 0)?;
    let mut head = vec![format!("concat: \"{}\" →", token(t, 0, JUMP))];
    head.extend((0..m.ncols()).map(|c| split_column(t, c)));
    let cells = m.row(JUMP).iter().map(|v| num(*v)).collect();
    Some(Aside {
        caption: "Concat's row of \"jump\": head 1's numbers, then head 2's".into(),
        head,
        rows: vec![("concat".into(), cells)],
    })
}

/// Step 6's table: "jump"'s row of the one head's context, its columns named as the map
/// names them (d_k 0 …): the numbers the words quote, which a map of 13 rows is drawn too
/// small to print.
fn context_aside(t: &Trace) -> Option<Aside> {
    let m = t.step(S::Context)?.matrix(0, 0)?;
    if JUMP >= m.nrows() {
        return None;
    }
    let mut head = vec![format!("context: \"{}\" →", token(t, 0, JUMP))];
    head.extend((0..m.ncols()).map(|c| format!("d_k {c}")));
    Some(Aside {
        caption: "The one head's context row of \"jump\", feature by feature".into(),
        head,
        rows: vec![("head 1".into(), m.row(JUMP).iter().map(|v| num(*v)).collect())],
    })
}

/// The one-head question's choices.
fn split_choices(_: &Trace) -> Vec<String> {
    vec![
        "Yes: with large enough scores, both get most of the weight".into(),
        "No: the row's weights add up to 1".into(),
        "Only if d_k is larger".into(),
    ]
}

fn split_answer(t: &Trace) -> Option<(usize, String)> {
    let (dog, it) = (at(t, S::Weights, 0, 0, JUMP, DOG), at(t, S::Weights, 0, 0, JUMP, IT));
    (dog.is_finite() && it.is_finite()).then(|| {
        (
            1,
            format!(
                "One head gives \"jump\" one row of weights, and it adds up to 1, so two keys cannot both get \
                 more than half of it, whatever the scores or d_k. Here \"dog\" gets {} and \"it\" gets {}.",
                num(dog),
                num(it),
            ),
        )
    })
}

/// The lesson.
pub fn lesson() -> Lesson {
    let two = scenario(2);
    let one = scenario(1);
    Lesson {
        id: "why-heads",
        title: "Why several heads",
        seeds: "the multi-head attention article",
        steps: vec![
            LessonStep::new(
                "One word, two questions",
                two.clone(),
                S::X,
                |t| {
                    format!(
                        "\"{}\" To make sense of \
                         \"jump\", a reader asks two questions at once: who jumps (\"dog\") and over what \
                         (\"it\", the creek). Each token has 8 named features ({}): \"jump\" is {}, \"dog\" \
                         is {} and \"it\" is {}.",
                        sentence(t),
                        t.feature_names.as_ref().map(|f| f.join(", ")).unwrap_or_default(),
                        row(t, S::X, 0, 0, JUMP),
                        row(t, S::X, 0, 0, DOG),
                        row(t, S::X, 0, 0, IT),
                    )
                },
            )
            .highlight(|t| {
                    [JUMP, DOG, IT].iter().flat_map(|&i| super::row_cells(t, S::X, 0, 0, i)).collect()
                })
            .claims(|_| creek_claims()),
            LessonStep::new(
                "Head 1: who jumps?",
                two.clone(),
                S::Weights,
                |t| {
                    format!(
                        "Head 1's query asks \"I am an action: who does me?\" and its keys answer \"I am an \
                         animal\". The \"jump\" row puts {} of its weight on \"dog\": one sharp peak. (\"wanted\" \
                         is an action too, so its row is the same.)",
                        weight(t, 0, JUMP, DOG),
                    )
                },
            )
            .highlight(|_| {
                    [cells(S::Weights, 0, JUMP, &[DOG]), cells(S::Weights, 0, WANTED, &[DOG])].concat()
                })
            .aside(|t| {
                let caption = "Head 1's rows of \"jump\" and \"wanted\": the weight on \"dog\", and on the other keys".into();
                peak_aside(t, S::Weights, 0, &[JUMP, WANTED], &[DOG], caption)
            })
            .claims(|t| with_creek(head_1_claims(t))),
            LessonStep::new(
                "Head 2: over what?",
                two.clone(),
                S::Weights,
                |t| {
                    format!(
                        "Head 2 has its own query and key columns. Its query asks \"what am I done to?\" and \
                         its keys answer \"I stand for a thing\". The \"jump\" row of head 2 puts {} on \"it\". \
                         Each head gives every query its own row of weights, so \"jump\" gets two sharp peaks, \
                         one per question.",
                        weight(t, 1, JUMP, IT),
                    )
                },
            )
            .highlight(|_| cells(S::Weights, 1, JUMP, &[IT]))
            .aside(|t| {
                let caption = "Head 2's row of \"jump\": the weight on \"it\", and on the other keys".into();
                peak_aside(t, S::Weights, 1, &[JUMP], &[IT], caption)
            })
            .claims(|t| with_creek(vec![peak(t, 1, JUMP, IT)])),
            LessonStep::new(
                "Predict: can one head do both?",
                one.clone(),
                S::Scaled,
                |t| {
                    format!(
                        "With one head, \"jump\"'s scaled scores for \"dog\" and \"it\" are {} and {}: one \
                         query now scores both answers. Choose an answer to see the weights.",
                        num(at(t, S::Scaled, 0, 0, JUMP, DOG)),
                        num(at(t, S::Scaled, 0, 0, JUMP, IT)),
                    )
                },
            )
            .quiz(Quiz {
                    reveal: Some(S::Weights),
                    reveal_extra: None,
                    question: |_| {
                        "Now h = 1: one head holds both questions' columns (d_k = 8). Can it give \"jump\" a \
                         sharp peak on \"dog\" and another on \"it\", as the two heads did?"
                            .into()
                    },
                    kind: QuizKind::Choice { choices: split_choices, answer: split_answer },
                })
            .highlight(|_| cells(S::Scaled, 0, JUMP, &[DOG, IT]))
            .aside(|t| {
                let caption = "The one head's scaled scores of \"jump\"".into();
                peak_aside(t, S::Scaled, 0, &[JUMP], &[DOG, IT], caption)
            })
            .claims(|_| creek_claims()),
            LessonStep::new(
                "One head must split its weight",
                one.clone(),
                S::Weights,
                |t| {
                    format!(
                        "One head gives each query one row of weights, and a row adds up to 1. \"jump\" needs \
                         two words, so it splits: {} on \"dog\" and {} on \"it\". Neither answer gets a sharp \
                         peak, however large the scores: two equal weights can never be more than half each.",
                        weight(t, 0, JUMP, DOG),
                        weight(t, 0, JUMP, IT),
                    )
                },
            )
            .highlight(|_| cells(S::Weights, 0, JUMP, &[DOG, IT]))
            .aside(|t| {
                let caption = "The one head's row of \"jump\": the weight on \"dog\" and on \"it\", and on the other keys".into();
                peak_aside(t, S::Weights, 0, &[JUMP], &[DOG, IT], caption)
            })
            // "it splits … two equal weights": dog and it get the same weight
            .claims(|_| with_creek(vec![Claim::Equal(w(0, JUMP, DOG), w(0, JUMP, IT))])),
            LessonStep::new(
                "The split blends the answers",
                one,
                S::Context,
                |t| {
                    format!(
                        "A head's output is the weighted average of the values (here V is the embeddings \
                         themselves). With one head, \"jump\"'s output is {}: animal (column d_k {}) {} from half a \
                         \"dog\" and refers (d_k {}) {} from half an \"it\", each arriving at half strength. \
                         A third word that \"jump\" also needed would leave even less for each.",
                        row(t, S::Context, 0, 0, JUMP),
                        ANIMAL,
                        num(at(t, S::Context, 0, 0, JUMP, ANIMAL)),
                        REFERS,
                        num(at(t, S::Context, 0, 0, JUMP, REFERS)),
                    )
                },
            )
            .highlight(|t| super::row_cells(t, S::Context, 0, 0, JUMP))
            .aside(context_aside)
            .claims(|_| creek_claims()),
            LessonStep::new(
                "Concat keeps both answers; W_O mixes them",
                two,
                S::Concat,
                |t| {
                    let d = t.sizes.d_model;
                    format!(
                        "Back to two heads. Each head returns d_k = {} numbers per token, and concat lays them \
                         side by side into d_model = {}. \"jump\"'s row is {}: head 1's four numbers hold \
                         \"dog\" (animal, column {}: {}) and head 2's four hold \"it\" (refers, {}: {}), each nearly \
                         whole. \
                         W_O ({}×{}, the identity here) then mixes the heads. The layer has 4·d_model² + \
                         4·d_model = {} parameters whatever h is: more heads add no parameters, \
                         each head is just narrower (d_k = d_model / h).",
                        t.sizes.d_k,
                        d,
                        row(t, S::Concat, 0, 0, JUMP),
                        split_column(t, ANIMAL),
                        num(at(t, S::Concat, 0, 0, JUMP, ANIMAL)),
                        split_column(t, REFERS),
                        num(at(t, S::Concat, 0, 0, JUMP, REFERS)),
                        d,
                        d,
                        parameter_count(d),
                    )
                },
            )
            .highlight(|t| super::row_cells(t, S::Concat, 0, 0, JUMP))
            .aside(concat_aside)
            // "each nearly whole": read as above 0.9 of the one the key's own feature holds
            .claims(|_| {
                let c = |col| Quantity::Cell(Cell { step: S::Concat, batch: 0, head: 0, row: JUMP, col });
                let most = Quantity::Computed("nine tenths", 0.9);
                with_creek(vec![Claim::Greater(c(ANIMAL), most), Claim::Greater(c(REFERS), most)])
            }),
        ],
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lessons::argmax;

    #[test]
    fn two_heads_give_jump_two_sharp_peaks_and_one_head_splits_them() {
        let l = lesson();
        let two = l.trace(1);
        for (i, word) in [(DOG, "dog"), (WANTED, "wanted"), (JUMP, "jump"), (IT, "it")] {
            assert_eq!(two.tokens[0][i], word);
        }
        // two heads: one question each, one sharp peak each
        assert_eq!(argmax(&two, 0, 0, JUMP), Some(DOG), "head 1: jump → dog");
        assert_eq!(argmax(&two, 0, 1, JUMP), Some(IT), "head 2: jump → it");
        assert!(at(&two, S::Weights, 0, 0, JUMP, DOG) > 0.85);
        assert!(at(&two, S::Weights, 0, 1, JUMP, IT) > 0.85);
        // "wanted" asks the same questions
        let w =
            |t: &Trace, h: usize, i: usize| t.step(S::Weights).unwrap().matrix(0, h).unwrap().row(i).to_vec();
        assert_eq!(w(&two, 0, WANTED), w(&two, 0, JUMP));
        // one head: one row, split evenly between the two answers, neither above a half
        let one = l.trace(4);
        assert_eq!(one.sizes.n_heads, 1);
        let (dog, it) = (at(&one, S::Weights, 0, 0, JUMP, DOG), at(&one, S::Weights, 0, 0, JUMP, IT));
        assert!((dog - it).abs() < 1e-12 && dog < 0.5 && dog > 0.35, "{dog} {it}");
        // the one head's output blends half of each; concat keeps each nearly whole
        let blend = at(&one, S::Context, 0, 0, JUMP, ANIMAL);
        let whole = at(&two, S::Concat, 0, 0, JUMP, ANIMAL);
        assert!(blend < 1.0 && whole > 1.7, "{blend} {whole}");
        assert!(at(&two, S::Concat, 0, 0, JUMP, REFERS) > 1.7);
    }

    /// Steps 2 to 7 quote cells of maps too dense to print numbers (13 keys, and in
    /// presenter mode one head at a time): each has a small table with every number its
    /// words quote, and the weight tables' rows still add up to 1.
    #[test]
    fn every_quoted_number_is_in_the_steps_table() {
        let l = lesson();
        for i in [1, 2, 3, 4, 5, 6] {
            let (step, t) = (&l.steps[i], l.trace(i));
            let aside = (step.aside)(&t).unwrap_or_else(|| panic!("step {}: no table", i + 1));
            let shown: Vec<&String> = aside.rows.iter().flat_map(|r| &r.1).collect();
            let said = crate::lessons::quoted_numbers(&step.words(&t));
            assert!(!said.is_empty(), "step {}", i + 1);
            for n in said {
                assert!(shown.contains(&&n), "step {}: {n} is not in {:?}", i + 1, aside.rows);
            }
            // no more columns than a projected words column holds
            assert!(aside.head.len() <= 9, "step {}: {} columns", i + 1, aside.head.len());
        }
        // head 1's "jump": the peak, the largest other and the others' sum, which add up with it
        let t = l.trace(1);
        let aside = (l.steps[1].aside)(&t).unwrap();
        let cells: Vec<f64> = aside.rows[0].1.iter().map(|c| c.parse().unwrap()).collect();
        assert_eq!(aside.rows[0].1[0], weight(&t, 0, JUMP, DOG));
        assert!(cells[1] <= cells[2] && (cells[0] + cells[2] - 1.0).abs() <= 0.011, "{cells:?}");
    }

    #[test]
    fn the_question_is_answered_no_with_the_live_weights() {
        let l = lesson();
        let trace = l.trace(3);
        let quiz = l.steps[3].quiz.unwrap();
        let right = quiz.judge_choice(&trace, 1).unwrap();
        assert!(right.right && right.text.contains(&weight(&trace, 0, JUMP, DOG)), "{}", right.text);
        assert!(!quiz.judge_choice(&trace, 0).unwrap().right);
    }
}
