//! The tiles view's words and labels, as plain Rust: where the current tile is, the
//! outline's CSS, the check of the tiled context in words, the peak memory, the axis
//! labels and the terms of a running sum ℓ′. Tested natively; the view is
//! [`crate::ui::tiles::view`], its numbers [`crate::ui::tiles::data`].

use crate::engine::tiled::RunningSum;
use crate::engine::Tile;
use crate::format::fixed;

use crate::ui::decode::data::{format_difference, token_label};
use crate::ui::tiles::data::{outline, peak_scores};

/// The cell width (CSS px) from which a column label holds its token as well as its
/// position ("2 sat"); narrower columns show the position only.
pub const COLUMN_WORDS: f64 = 48.0;

/// "Tile 3 of 9: query rows 0–1, key columns 4–5", or "No tiles." without a tile.
pub fn position_words(tile: Option<&Tile>, now: usize, count: usize) -> String {
    let Some(tile) = tile else { return "No tiles.".to_owned() };
    format!(
        "Tile {} of {}: query rows {}–{}, key columns {}–{}",
        now + 1,
        count,
        tile.q[0],
        tile.q[1].saturating_sub(1),
        tile.k[0],
        tile.k[1].saturating_sub(1)
    )
}

/// The outline's CSS in a grid of `cell`-px cells: hidden without a tile.
pub fn outline_style(tile: Option<&Tile>, cell: f64) -> String {
    tile.map_or_else(
        || "display: none".to_owned(),
        |tile| {
            let [x, y, w, h] = outline(tile, cell, 0.0, 0.0);
            format!("left: {x}px; top: {y}px; width: {w}px; height: {h}px")
        },
    )
}

/// Whether the tiled context equals the full run's (to 1e-12), and the sentence that says
/// so, from the largest absolute difference.
pub fn check_words(diff: f64) -> (bool, String) {
    let ok = diff <= 1e-12;
    let words = if diff == 0.0 {
        "After the last tile of each block, O / ℓ: the context of this head equals the full run's softmax(S)·V, largest |difference| = 0 (bit for bit).".to_owned()
    } else if ok {
        format!("After the last tile of each block, O / ℓ: the context of this head equals the full run's softmax(S)·V, largest |difference| = {} (rounding: the sums are added in another order).", format_difference(diff))
    } else {
        format!("The tiled context differs from the full run's by up to {}.", format_difference(diff))
    };
    (ok, words)
}

/// The peak memory for scores in words: one tile against the whole matrix.
pub fn peak_words(block: usize, t_q: usize, t_k: usize) -> String {
    let (held, all) = peak_scores(block, t_q, t_k);
    format!(
        "Peak memory for scores: one tile, block² = {held} numbers at a time, against T_q × T_k = {all} for the whole matrix (per head and sentence). The full weights are never stored."
    )
}

/// Each token with its position: "0 the", "1 cat", …
pub fn axis_labels(tokens: &[String]) -> Vec<String> {
    tokens.iter().enumerate().map(|(i, tok)| format!("{i} {tok}")).collect()
}

/// What column `j` shows above the grid: its label ("2 sat") when the cells are at least
/// [`COLUMN_WORDS`] px wide, its position only when narrower (the row labels and the
/// title name the token).
pub fn column_label(label: &str, j: usize, cell: f64) -> String {
    if cell >= COLUMN_WORDS {
        label.to_owned()
    } else {
        j.to_string()
    }
}

/// The terms of one query row's running sum ℓ′ after a tile, in words.
#[derive(Debug, Clone, PartialEq)]
pub struct SumWords {
    /// What the sum is: the query and the tile's keys.
    pub title: String,
    /// The sum so far, corrected: e^(m − m′) · ℓ.
    pub carried: String,
    /// Each key of the tile with its term e^(S − m′).
    pub terms: Vec<(usize, String)>,
    /// ℓ′ as the sum of the carried part and the terms.
    pub total: String,
}

/// The words of `sum`, the running sum of query row `i` whose masked scores are `row`;
/// `q_tok` and `k_tok` are the sentence's query and key tokens.
pub fn running_sum_words(
    sum: &RunningSum,
    row: &[f64],
    q_tok: &[String],
    k_tok: &[String],
    i: usize,
) -> SumWords {
    let terms = sum
        .exps
        .iter()
        .map(|&(j, e)| {
            let s = row.get(j).copied().unwrap_or(f64::NAN);
            (
                j,
                format!(
                    "key {}: e^(S − m′) = e^({} − {}) = {}",
                    token_label(k_tok, j),
                    fixed(s, 4),
                    fixed(sum.m, 4),
                    fixed(e, 4),
                ),
            )
        })
        .collect();
    let added: Vec<String> =
        std::iter::once(fixed(sum.carried, 4)).chain(sum.exps.iter().map(|(_, e)| fixed(*e, 4))).collect();
    SumWords {
        title: format!(
            "ℓ′ of “{}” after keys {}–{}: the sum so far, corrected, plus this tile's terms.",
            token_label(q_tok, i),
            sum.k[0],
            sum.k[1].saturating_sub(1),
        ),
        carried: format!(
            "carried: e^(m − m′) · ℓ = {} × {} = {}",
            fixed(sum.correction, 4),
            fixed(sum.before, 4),
            fixed(sum.carried, 4),
        ),
        terms,
        total: format!("ℓ′ = {} = {}", added.join(" + "), fixed(sum.after, 4)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::tiled::running_sum;

    fn tile(q: [usize; 2], k: [usize; 2]) -> Tile {
        Tile { b: 0, head: 0, q, k, skipped: false, m: vec![], l: vec![], correction: vec![] }
    }

    fn words(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn the_position_names_the_tile_and_its_ranges() {
        let t = tile([2, 4], [0, 2]);
        assert_eq!(position_words(Some(&t), 2, 9), "Tile 3 of 9: query rows 2–3, key columns 0–1");
        assert_eq!(position_words(None, 0, 0), "No tiles.");
    }

    #[test]
    fn the_outline_is_hidden_without_a_tile() {
        let t = tile([2, 4], [0, 2]);
        assert_eq!(outline_style(Some(&t), 10.0), "left: 0px; top: 20px; width: 20px; height: 20px");
        assert_eq!(outline_style(None, 10.0), "display: none");
    }

    #[test]
    fn the_check_says_bit_for_bit_rounding_or_differs() {
        let (ok, w) = check_words(0.0);
        assert!(ok && w.ends_with("= 0 (bit for bit)."), "{w}");
        let (ok, w) = check_words(2e-16);
        assert!(ok && w.contains("= 2.0e-16 (rounding"), "{w}");
        let (ok, w) = check_words(0.5);
        assert!(!ok && w == "The tiled context differs from the full run's by up to 5.0e-1.", "{w}");
        assert!(!check_words(f64::NAN).0);
    }

    #[test]
    fn the_peak_is_one_tile_against_the_matrix() {
        let w = peak_words(2, 6, 6);
        assert!(w.contains("block² = 4 numbers") && w.contains("T_q × T_k = 36"), "{w}");
    }

    #[test]
    fn narrow_columns_show_their_position_only() {
        let labels = axis_labels(&words(&["the", "cat"]));
        assert_eq!(labels, ["0 the", "1 cat"]);
        assert_eq!(column_label(&labels[1], 1, COLUMN_WORDS), "1 cat");
        assert_eq!(column_label(&labels[1], 1, COLUMN_WORDS - 1.0), "1");
    }

    #[test]
    fn a_running_sum_lists_its_terms() {
        let row = [0.0, 1.0, f64::NEG_INFINITY, 2.0];
        let sum = running_sum(&row, 2, 1).unwrap();
        let w = running_sum_words(&sum, &row, &words(&["a", "b"]), &words(&["a", "b", "c", "d"]), 1);
        assert_eq!(w.title, "ℓ′ of “1 b” after keys 2–3: the sum so far, corrected, plus this tile's terms.");
        assert!(w.carried.starts_with("carried: e^(m − m′) · ℓ = "), "{}", w.carried);
        assert_eq!(w.terms.iter().map(|(j, _)| *j).collect::<Vec<_>>(), [2, 3]);
        assert!(w.terms[0].1.starts_with("key 2 c: e^(S − m′) = e^(-inf − "), "{}", w.terms[0].1);
        assert!(w.total.starts_with("ℓ′ = ") && w.total.matches(" + ").count() == 2, "{}", w.total);
    }
}
