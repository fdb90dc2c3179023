//! Comparing the word-order lesson's two sentences, the same words in two orders: where
//! each word went (`π`), which weights and outputs must match when nothing sees the order,
//! and by how much they differ when something does.

use super::{at, num, token, Cell, Quantity};
use crate::engine::{StepName as S, Trace};

/// Where each token of sentence 1 sits in sentence 2 (`π(i)`), matching the tokens'
/// text (each occurrence used once); `None` if sentence 2 is not a reordering of
/// sentence 1 (the learner edited it).
pub fn permutation(trace: &Trace) -> Option<Vec<usize>> {
    let (a, b) = (trace.tokens.first()?, trace.tokens.get(1)?);
    let (la, lb) = (trace.lengths.first().copied()?, trace.lengths.get(1).copied()?);
    if la != lb || la == 0 {
        return None;
    }
    let mut used = vec![false; lb];
    let mut pi = Vec::with_capacity(la);
    for word in a.iter().take(la) {
        let j = (0..lb).find(|&j| !used[j] && b.get(j) == Some(word))?;
        used[j] = true;
        pi.push(j);
    }
    Some(pi)
}

/// The first pair `(i, j)` of sentence 1 whose tokens moved (`π(i) ≠ i`, `π(j) ≠ j`,
/// `i ≠ j`): "dog" → "man".
pub(super) fn moved_pair(pi: &[usize]) -> Option<(usize, usize)> {
    let moved: Vec<usize> = (0..pi.len()).filter(|&i| pi[i] != i).collect();
    Some((*moved.first()?, *moved.get(1)?))
}

/// The cell `weights[0][i][j]` and its image `weights[1][π(i)][π(j)]`.
pub(super) fn matching_cells(t: &Trace) -> Vec<Cell> {
    let Some(pi) = permutation(t) else { return Vec::new() };
    let Some((i, j)) = moved_pair(&pi) else { return Vec::new() };
    let cell = |batch, row, col| Cell { step: S::Weights, batch, head: 0, row, col };
    vec![cell(0, i, j), cell(1, pi[i], pi[j])]
}

/// The row of the first moved token in both sentences: `weights[0][i][·]` and
/// `weights[1][π(i)][·]`.
pub(super) fn moved_rows(t: &Trace) -> Vec<Cell> {
    let Some((i, _, pi)) = pair_words(t) else { return Vec::new() };
    let n = pi.len();
    let cell = |batch, row, col| Cell { step: S::Weights, batch, head: 0, row, col };
    (0..n).map(|j| cell(0, i, j)).chain((0..n).map(|j| cell(1, pi[i], j))).collect()
}

/// The largest `|weights[0][i][j] − weights[1][π(i)][π(j)]|` over every pair.
pub fn largest_mismatch(t: &Trace) -> Option<f64> {
    largest_mismatch_pair(t).map(|(_, _, d)| d)
}

/// The pair `(i, j)` of sentence 1 whose weight differs most from the same pair's in
/// sentence 2 (the first of pairs that tie), with the difference; `None` when the
/// sentences are not the same words reordered or a weight is NaN.
pub(super) fn largest_mismatch_pair(t: &Trace) -> Option<(usize, usize, f64)> {
    let pi = permutation(t)?;
    let n = pi.len();
    let mut worst = (0, 0, 0.0f64);
    for i in 0..n {
        for j in 0..n {
            let d = (at(t, S::Weights, 0, 0, i, j) - at(t, S::Weights, 1, 0, pi[i], pi[j])).abs();
            if d.is_nan() {
                return None;
            }
            if d > worst.2 {
                worst = (i, j, d);
            }
        }
    }
    Some(worst)
}

/// One row of step 3's table: the pair `i → j` of sentence 1, its weight there and in
/// sentence 2 (at the words' new places), and the difference.
pub(super) fn pair_row(t: &Trace, pi: &[usize], i: usize, j: usize) -> Option<(String, Vec<String>)> {
    let a = at(t, S::Weights, 0, 0, i, j);
    let b = at(t, S::Weights, 1, 0, *pi.get(i)?, *pi.get(j)?);
    Some((
        format!("\"{}\" → \"{}\"", token(t, 0, i), token(t, 0, j)),
        vec![num(a), num(b), num((a - b).abs())],
    ))
}

/// The same for the outputs: `|output[0][i] − output[1][π(i)]|`, the largest over every
/// token and feature.
pub(super) fn largest_output_mismatch(t: &Trace) -> Option<f64> {
    let pi = permutation(t)?;
    let (a, b) = (t.step(S::Output)?.matrix(0, 0)?, t.step(S::Output)?.matrix(1, 0)?);
    let mut worst = 0.0f64;
    for (i, &p) in pi.iter().enumerate() {
        for c in 0..a.ncols() {
            worst = worst.max((a.get((i, c))? - b.get((p, c))?).abs());
        }
    }
    Some(worst)
}

/// "exactly equal", "equal up to float rounding" (summing in another order changes the
/// last bits), or the largest difference.
pub(super) fn sameness(d: Option<f64>) -> String {
    match d {
        Some(0.0) => "exactly equal".into(),
        Some(d) if d < 1e-12 => "equal up to float rounding, every difference below 1e-12".into(),
        Some(d) => format!("different by up to {}", num(d)),
        None => "not comparable (the sentences are no longer the same words reordered)".into(),
    }
}

/// The first moved pair `(i, j)` of sentence 1 and the permutation, if the sentences are
/// the same words reordered.
pub(super) fn pair_words(t: &Trace) -> Option<(usize, usize, Vec<usize>)> {
    let pi = permutation(t)?;
    let (i, j) = moved_pair(&pi)?;
    Some((i, j, pi))
}

/// What lets attention see word order in `t`, in words: positions, RoPE, ALiBi, a mask
/// that blocks keys by position. Empty with none of them (the lesson's own first steps):
/// then every weight of one order is a weight of the other, moved.
pub(super) fn order_sources(t: &Trace) -> Vec<&'static str> {
    let c = t.mask.config;
    [
        (!t.positional.is_none(), "a positional encoding is added to every embedding (x + PE), so a word's vector now also says where the word is"),
        (t.rope.is_some(), "RoPE turns every query and key by an angle set by its position"),
        (!t.alibi_slopes.is_empty(), "ALiBi adds to every score a bias set by how far apart the two positions are"),
        (c.causal || c.window.is_some() || c.keep_first.is_some(), "the mask blocks keys by their position"),
    ]
    .into_iter()
    .filter_map(|(on, words)| on.then_some(words))
    .collect()
}

/// Every pair's weight in sentence 1 and at the words' new places in sentence 2.
pub(super) fn all_pairs(t: &Trace) -> Vec<(Quantity, Quantity)> {
    let Some(pi) = permutation(t) else { return Vec::new() };
    let cell = |batch, row, col| Quantity::Cell(Cell { step: S::Weights, batch, head: 0, row, col });
    let n = pi.len();
    (0..n * n).map(|k| (cell(0, k / n, k % n), cell(1, pi[k / n], pi[k % n]))).collect()
}
