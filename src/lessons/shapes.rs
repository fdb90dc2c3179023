//! Lesson 4, shapes (seeds 000, 002): view, transpose, contiguous.

use super::quiz::{Quiz, QuizKind};
use super::{at, num, path_of, seeded, shape_of, token, Aside, Claim, Extra, Lesson, LessonStep, Quantity};
use crate::engine::{StepName as S, Trace};

/// Numbers `from..to` of row `t` of a `(B, T, d_model)` step, sentence 0.
fn slice(trace: &Trace, step: S, t: usize, from: usize, to: usize) -> String {
    let cells: Vec<String> = (from..to).map(|c| num(at(trace, step, 0, 0, t, c))).collect();
    format!("[{}]", cells.join(", "))
}

/// Step 2's table: token 1's numbers in q's columns h2 · 0 to h2 · (d_k − 1), and head 2's
/// row of q_heads: the same numbers, moved and not changed. The words quote them; a
/// projected map of two heads is drawn too small to print them.
fn head_2_aside(t: &Trace) -> Option<Aside> {
    let d_k = t.sizes.d_k;
    let q = t.step(S::Q)?.matrix(0, 0)?;
    let heads = t.step(S::QHeads)?.matrix(0, 1)?;
    if q.nrows() < 2 || q.ncols() < 2 * d_k || heads.nrows() < 2 {
        return None;
    }
    let mut head = vec![format!("\"{}\" →", token(t, 0, 1))];
    head.extend((0..d_k).map(|c| format!("d_k {c}")));
    let cells = |v: Vec<f64>| v.into_iter().map(num).collect::<Vec<_>>();
    Some(Aside {
        caption: format!(
            "\"{}\" in q's columns h2 · 0 to h2 · {}, and in head 2 of q_heads",
            token(t, 0, 1),
            d_k - 1
        ),
        head,
        rows: vec![
            (format!("q, h2 · 0 to h2 · {}", d_k - 1), cells((d_k..2 * d_k).map(|c| q[[1, c]]).collect())),
            ("q_heads, head 2".into(), cells(heads.row(1).to_vec())),
        ],
    })
}

/// One head of `q` split two ways, for the shapes lesson's picture: `right[i]` is token
/// i's slice (view, then transpose), `wrong[i]` what `view(B, h, T, d_k)` without the
/// transpose puts in the same place, and `moved[i]` whether the two differ.
#[derive(Debug, Clone, PartialEq)]
pub struct SplitHead {
    /// The head, from 0.
    pub head: usize,
    /// view + transpose: the right rows.
    pub right: Vec<Vec<f64>>,
    /// view alone: the rows a head gets without the transpose.
    pub wrong: Vec<Vec<f64>>,
    /// Row i of `wrong` is not row i of `right`.
    pub moved: Vec<bool>,
    /// The token (from 0) whose numbers `wrong[i]` holds: view alone reads memory in
    /// order, so row i of head `head` is read from token `(head·T + i)·d_k / d_model`.
    pub source: Vec<usize>,
    /// The column (from 0) of token `source[i]` where `wrong[i]` starts.
    pub col: Vec<usize>,
}

/// Why a row of the table without the transpose has no ✗ (rows, tokens and columns
/// counted from 0).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unmarked {
    /// View alone reads this row from the very place the transpose takes it from.
    InPlace {
        /// The row (the token).
        row: usize,
        /// The first column of the token it reads.
        col: usize,
    },
    /// View alone reads other numbers that happen to be the same.
    Lookalike {
        /// The row.
        row: usize,
        /// The token it reads.
        token: usize,
        /// The first column of that token it reads.
        col: usize,
    },
}

impl SplitHead {
    /// Every row without ✗, with why it matches: read in place, or a lookalike.
    pub fn unmarked(&self) -> Vec<Unmarked> {
        let d_k = self.right.first().map_or(0, Vec::len);
        (0..self.moved.len())
            .filter(|&i| !self.moved[i])
            .map(|i| {
                let (token, col) = (self.source[i], self.col[i]);
                if token == i && col == self.head * d_k {
                    Unmarked::InPlace { row: i, col }
                } else {
                    Unmarked::Lookalike { row: i, token, col }
                }
            })
            .collect()
    }
}

/// Every head of sentence `b`, split both ways ([`crate::engine::view_without_transpose`]);
/// empty when the trace has no `q` of shape `(B, T, d_model)` or no heads.
pub fn split_both_ways(t: &Trace, b: usize) -> Vec<SplitHead> {
    let Some(q_heads) = t.step(S::QHeads) else { return Vec::new() };
    let Some(wrong) =
        t.step(S::Q).and_then(|q| crate::engine::view_without_transpose(q, t.sizes.n_heads).ok())
    else {
        return Vec::new();
    };
    if b >= wrong.shape()[0] {
        return Vec::new();
    }
    (0..t.sizes.n_heads)
        .filter_map(|head| {
            let right = q_heads.matrix(b, head)?;
            let wrong = wrong.slice(ndarray::s![b, head, .., ..]);
            if right.shape() != wrong.shape() {
                return None;
            }
            let rows = |m: ndarray::ArrayView2<f64>| -> Vec<Vec<f64>> {
                m.rows().into_iter().map(|r| r.to_vec()).collect()
            };
            let (right, wrong) = (rows(right.view()), rows(wrong));
            let moved = right.iter().zip(&wrong).map(|(r, w)| r != w).collect();
            let (n_t, d_k, d_model) = (right.len(), t.sizes.d_k, t.sizes.d_model.max(1));
            let source = (0..n_t).map(|i| (head * n_t + i) * d_k / d_model).collect();
            let col = (0..n_t).map(|i| (head * n_t + i) * d_k % d_model).collect();
            Some(SplitHead { head, right, wrong, moved, source, col })
        })
        .collect()
}

/// Column `c` of row `i` of `step` (sentence 0), in head `head` for steps with heads.
fn q_at(step: S, head: usize, i: usize, c: usize) -> Quantity {
    Quantity::Cell(super::Cell { step, batch: 0, head, row: i, col: c })
}

/// Step 2's words: head 2's row for token 1 is exactly columns d_k to 2·d_k − 1 of q.
fn head_2_claims(t: &Trace) -> Vec<Claim> {
    let d_k = t.sizes.d_k;
    (0..d_k).map(|c| Claim::Equal(q_at(S::QHeads, 1, 1, c), q_at(S::Q, 0, 1, d_k + c))).collect()
}

/// What `view(B, h, T, d_k)` without the transpose puts at head 1, row 1, column `c`.
fn wrong_at(t: &Trace, c: usize) -> f64 {
    t.step(S::Q)
        .and_then(|q| crate::engine::view_without_transpose(q, t.sizes.n_heads).ok())
        .and_then(|w| w.get([0, 0, 1, c]).copied())
        .unwrap_or(f64::NAN)
}

/// Step 3's words: view alone gives "head 1, token 1" token 0's second half, which is not
/// token 1's first half.
fn without_transpose_claims(t: &Trace) -> Vec<Claim> {
    let d_k = t.sizes.d_k;
    let mut out: Vec<Claim> = (0..d_k)
        .map(|c| {
            Claim::Equal(
                Quantity::Computed("view alone, head 1, token 1", wrong_at(t, c)),
                q_at(S::Q, 0, 0, d_k + c),
            )
        })
        .collect();
    out.push(Claim::Differ((0..d_k).map(|c| (q_at(S::Q, 0, 0, d_k + c), q_at(S::Q, 0, 1, c))).collect()));
    out
}

/// Three candidate shapes of the weights, from the run's sizes; the first is right.
fn weight_shapes(t: &Trace) -> Vec<String> {
    let z = t.sizes;
    vec![
        format!("(B, T, h, h) = ({}, {}, {}, {})", z.b, z.t, z.n_heads, z.n_heads),
        format!("(B, h, T, d_k) = ({}, {}, {}, {})", z.b, z.n_heads, z.t, z.d_k),
        format!("(B, h, T, T) = ({}, {}, {}, {})", z.b, z.n_heads, z.t, z.t),
    ]
}

fn weight_shape_answer(t: &Trace) -> Option<(usize, String)> {
    Some((
        2,
        format!(
            "(T, d_k) @ (d_k, T) is (T, T) for each sentence and head, so the weights are {}.",
            shape_of(t, S::Weights)
        ),
    ))
}

/// The lesson.
pub fn lesson() -> Lesson {
    let s = seeded(&["the cat sat on the mat"], 8, 2, 7);
    Lesson {
        id: "shapes",
        title: "Shapes",
        seeds: "the Annotated Transformer and the multi-head attention article",
        steps: vec![
            LessonStep::new(
                "One tensor, (B, T, d_model)",
                s.clone(),
                S::Q,
                |t| {
                    format!(
                        "Follow the queries. q = self.w_q(x) has shape {}: one row of d_model = {} numbers per \
                         token. Multi-head attention gives each of the h = {} heads its own d_k = {} columns of \
                         that row: token 1 (\"{}\"; tokens, rows and columns count from 0, heads from 1) gives head 1 {} and \
                         head 2 {}.",
                        shape_of(t, S::Q),
                        t.sizes.d_model,
                        t.sizes.n_heads,
                        t.sizes.d_k,
                        token(t, 0, 1),
                        slice(t, S::Q, 1, 0, t.sizes.d_k),
                        slice(t, S::Q, 1, t.sizes.d_k, 2 * t.sizes.d_k),
                    )
                },
            ),
            LessonStep::new(
                "view, then transpose(1, 2)",
                s.clone(),
                S::QHeads,
                |t| {
                    let d_k = t.sizes.d_k;
                    format!(
                        "q.view(B, T, h, d_k) splits each row into h pieces of d_k without moving a number; \
                         transpose(1, 2) then puts the head axis before T, so each head is a (T, d_k) matrix the \
                         matmul can work on: {}. Head 2's row for \"{}\" is {}: exactly q's columns h2 · 0 to h2 · {} (columns {}–{}).",
                        path_of(t, S::QHeads),
                        token(t, 0, 1),
                        {
                            let cells: Vec<String> = (0..d_k).map(|c| num(at(t, S::QHeads, 0, 1, 1, c))).collect();
                            format!("[{}]", cells.join(", "))
                        },
                        d_k - 1,
                        d_k,
                        2 * d_k - 1,
                    )
                },
            )
            .claims(head_2_claims)
            .highlight(|t| super::row_cells(t, S::QHeads, 0, 1, 1))
            .aside(head_2_aside),
            LessonStep::new(
                "Without the transpose, heads get the wrong numbers",
                s.clone(),
                S::QHeads,
                |t| {
                    let d_k = t.sizes.d_k;
                    let wrong = t
                        .step(S::Q)
                        .and_then(|q| crate::engine::view_without_transpose(q, t.sizes.n_heads).ok())
                        .map(|w| {
                            let cells: Vec<String> = (0..d_k)
                                .map(|c| num(w.get([0, 0, 1, c]).copied().unwrap_or(f64::NAN)))
                                .collect();
                            format!("[{}]", cells.join(", "))
                        })
                        .unwrap_or_default();
                    format!(
                        "q.view(B, h, T, d_k) has the right shape, {}, but the wrong numbers: it reads memory \
                         in order, so \"head 1, token 1\" (heads counted from 1, tokens from 0, as the maps \
                         label them) becomes {}, which is token 0's second half (head \
                         2's columns {}), not token 1's first half {}. Every head mixes tokens and other heads' \
                         features, and nothing fails loudly. The shapes agree; the meaning does not.",
                        shape_of(t, S::QHeads),
                        wrong,
                        slice(t, S::Q, 0, d_k, 2 * d_k),
                        slice(t, S::Q, 1, 0, d_k),
                    )
                },
            )
            .extra(Extra::SplitBothWays)
            .claims(without_transpose_claims),
            LessonStep::new(
                "Predict: the shape of the attention weights",
                s.clone(),
                S::KHeads,
                |_| {
                    "Predict first: softmax keeps the shape of the scores it is given. Choose an answer to see \
                     the weights."
                        .into()
                },
            )
            .quiz(Quiz {
                    reveal: Some(S::Weights),
                    reveal_extra: None,
                    question: |t| {
                        format!(
                            "q_heads is {} and k_heads is {}. scores = q @ k.transpose(-2, -1), then softmax. What \
                             shape are the weights?",
                            shape_of(t, S::QHeads),
                            shape_of(t, S::KHeads)
                        )
                    },
                    kind: QuizKind::Choice { choices: weight_shapes, answer: weight_shape_answer },
                }),
            LessonStep::new(
                "The attention matrix is (B, h, T, T)",
                s.clone(),
                S::Weights,
                |t| {
                    format!(
                        "q_heads (B, h, T, d_k) @ k_heads.transpose(-2, -1) (B, h, d_k, T) multiplies the last two \
                         axes and keeps (B, h) in front, so the attention matrix is {}: one T × T matrix per \
                         sentence and head. The Annotated Transformer's text calls it B × L × h × h; that is a slip, and its own \
                         next formula and code give B × h × L × L, as here.",
                        shape_of(t, S::Weights),
                    )
                },
            ),
            LessonStep::new(
                "Concat: transpose back, contiguous(), view",
                s,
                S::Concat,
                |t| {
                    format!(
                        "After attention, context is {}. context.transpose(1, 2) swaps h and T back, but only \
                         changes how memory is read (strides): the numbers of one token are no longer next to \
                         each other, and view refuses a non-contiguous tensor. .contiguous() copies them into \
                         the new order so that .view(B, T, d_model) can join the heads: {}. (reshape does both \
                         steps in one call.) The result, {}, has each token's heads side by side.",
                        shape_of(t, S::Context),
                        path_of(t, S::Concat),
                        shape_of(t, S::Concat),
                    )
                },
            ),
        ],
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::run;

    /// Step 2 quotes head 2's row of "cat": its table holds it twice, as q's columns and as
    /// q_heads' row, and the map starts on head 2 (its highlighted row).
    #[test]
    fn step_2s_table_holds_the_row_its_words_quote() {
        let l = lesson();
        let step = &l.steps[1];
        let t = run(&step.scenario).unwrap();
        let aside = (step.aside)(&t).unwrap();
        assert_eq!(aside.rows.len(), 2);
        assert_eq!(aside.rows[0].1, aside.rows[1].1);
        let words = step.words(&t);
        assert!(words.contains(&format!("[{}]", aside.rows[1].1.join(", "))), "{words}");
        assert!((step.highlight)(&t).iter().all(|c| c.head == 1 && c.row == 1 && c.step == S::QHeads));
    }

    #[test]
    fn the_picture_splits_each_head_both_ways_and_marks_the_moved_rows() {
        let l = lesson();
        let step = &l.steps[2];
        assert!(step.extra.replaces_heatmaps());
        let t = run(&step.scenario).unwrap();
        let heads = split_both_ways(&t, 0);
        assert_eq!(heads.len(), 2);
        let q = t.step(S::Q).unwrap().matrix(0, 0).unwrap();
        let d_k = t.sizes.d_k;
        // right: token i's own slice; wrong: memory in order, so head 1's row 1 is token 0's second half
        assert_eq!(heads[0].right[1], q.row(1).slice(ndarray::s![..d_k]).to_vec());
        assert_eq!(heads[1].right[0], q.row(0).slice(ndarray::s![d_k..]).to_vec());
        assert_eq!(heads[0].wrong[1], q.row(0).slice(ndarray::s![d_k..]).to_vec());
        // head 1's first row and head 2's last row are right by position; the other rows
        // moved (head 2's "on" row only looks right: "on" and "the" share a toy vector)
        assert!(!heads[0].moved[0] && !heads[1].moved[5]);
        assert!(heads[0].moved[1..].iter().all(|m| *m));
        // head 2's row 3 ("on") holds token 4's numbers ("the"): a lookalike the caption names
        // every row without ✗ has its reason: head 1's row 0 and head 2's row 5 are read in
        // place, head 2's row 3 is a lookalike
        assert_eq!(heads[0].unmarked(), [Unmarked::InPlace { row: 0, col: 0 }]);
        assert_eq!(
            heads[1].unmarked(),
            [Unmarked::Lookalike { row: 3, token: 4, col: 4 }, Unmarked::InPlace { row: 5, col: 4 }]
        );
        for h in &heads {
            assert_eq!(h.unmarked().len(), h.moved.iter().filter(|m| !**m).count());
        }
        assert!(crate::lessons::same_input(&t, 0, 3, 4) && !crate::lessons::same_input(&t, 0, 3, 5));
        for h in &heads {
            for i in 0..h.right.len() {
                // the source is where view alone reads: the same numbers as that token's slice
                let (tok, half) = ((h.head * 6 + i) / 2, (h.head * 6 + i) % 2);
                assert_eq!(h.source[i], tok);
                assert_eq!(h.wrong[i], q.row(tok).slice(ndarray::s![half * d_k..(half + 1) * d_k]).to_vec());
            }
        }
        for h in &heads {
            for i in 0..h.right.len() {
                assert_eq!(h.moved[i], h.right[i] != h.wrong[i]);
            }
        }
        assert!(split_both_ways(&t, 5).is_empty());
    }

    #[test]
    fn shapes_lesson_quotes_the_wrong_heads() {
        let l = lesson();
        let trace = l.trace(2);
        let wrong = crate::engine::view_without_transpose(trace.step(S::Q).unwrap(), 2).unwrap();
        let q = &trace.step(S::Q).unwrap().data;
        // "head 1, token 1" without the transpose is token 0's second half
        assert_eq!(wrong[[0, 0, 1, 0]], q[[0, 0, 4]]);
        assert_ne!(wrong[[0, 0, 1, 0]], trace.step(S::QHeads).unwrap().data[[0, 0, 1, 0]]);
        assert!((l.steps[2].narrate)(&trace).contains("token 0's second half"));
    }
}
