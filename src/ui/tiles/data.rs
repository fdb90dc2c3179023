//! The tiles view's pure parts: the tiles of one head and sentence, the running m, ℓ and
//! correction of each query row of a tile, the check of the tiled context against the
//! full run's, the peak memory, and where the tile's outline goes. Plain Rust, tested
//! natively. The numbers come from [`crate::engine::tiled`]; nothing here computes
//! attention.

use crate::engine::{StepName, Tile, Tiled, Trace};

use crate::ui::decode::data::largest_difference;

/// The indices in `tiled.tiles` of the tiles of sentence `b` and `head`, in the order the
/// engine folded them in.
pub fn tiles_of(tiled: &Tiled, b: usize, head: usize) -> Vec<usize> {
    tiled.tiles.iter().enumerate().filter(|(_, t)| t.b == b && t.head == head).map(|(i, _)| i).collect()
}

/// One query row of a tile, after it was folded in.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RowState {
    /// The query position.
    pub row: usize,
    /// The running maximum m′.
    pub m: f64,
    /// The running sum ℓ′.
    pub l: f64,
    /// The correction e^(m − m′) applied to what came before.
    pub correction: f64,
}

/// The query rows of a tile with their running m, ℓ and correction.
pub fn row_states(tile: &Tile) -> Vec<RowState> {
    (tile.q[0]..tile.q[1])
        .zip(tile.m.iter().zip(&tile.l).zip(&tile.correction))
        .map(|(row, ((&m, &l), &correction))| RowState { row, m, l, correction })
        .collect()
}

/// The tiled context of sentence `b` and `head`, `(T_q, d_v)` flattened row by row.
fn tiled_context(tiled: &Tiled, b: usize, head: usize) -> Option<Vec<f64>> {
    let s = tiled.context.outer_iter().nth(b)?;
    let h = s.outer_iter().nth(head)?;
    Some(h.iter().copied().collect())
}

/// "The context equals the full run's": the largest absolute difference over every row
/// of sentence `b` and `head`, `None` if either is missing.
pub fn context_check(tiled: &Tiled, full: &Trace, b: usize, head: usize) -> Option<f64> {
    let want: Vec<f64> = full.step(StepName::Context)?.matrix(b, head)?.iter().copied().collect();
    largest_difference(&tiled_context(tiled, b, head)?, &want)
}

/// The scores a tile holds at most, `block²`, against the full `T_q × T_k` matrix.
pub fn peak_scores(block: usize, t_q: usize, t_k: usize) -> (usize, usize) {
    (block.min(t_q) * block.min(t_k), t_q * t_k)
}

/// The tile's outline in a grid of `cell`-px cells starting at `(x0, y0)`: x, y, width,
/// height in px.
pub fn outline(tile: &Tile, cell: f64, x0: f64, y0: f64) -> [f64; 4] {
    let (q0, q1, k0, k1) = (tile.q[0] as f64, tile.q[1] as f64, tile.k[0] as f64, tile.k[1] as f64);
    [x0 + k0 * cell, y0 + q0 * cell, (k1 - k0) * cell, (q1 - q0) * cell]
}

/// The side of a cell when `n_cols` columns share `width` px: from 4 px (T = 128 on a
/// phone) to 40 px (a short sentence).
pub fn cell_size(width: f64, n_cols: usize) -> f64 {
    if n_cols == 0 {
        return 40.0;
    }
    (width / n_cols as f64).floor().clamp(2.0, 40.0)
}

/// The masked scores of one head and sentence as RGBA, one pixel per cell (the page
/// scales the canvas up, pixelated): a blue–white–red scale over the scores that are not
/// blocked, blocked cells grey. Returns the pixels and the width.
pub fn score_pixels(full: &Trace, b: usize, head: usize) -> Option<(Vec<u8>, usize)> {
    let m = full.step(StepName::Masked)?.matrix(b, head)?;
    let (rows, cols) = m.dim();
    let blocked = |i: usize, j: usize| full.mask.is_blocked(b, i, j);
    let open = m.indexed_iter().filter(|((i, j), x)| !blocked(*i, *j) && x.is_finite()).map(|(_, x)| x);
    let scale = crate::draw::Scale::diverging(open).lookup();
    let mut rgba = Vec::with_capacity(rows * cols * 4);
    for ((i, j), &x) in m.indexed_iter() {
        let (r, g, bl) = if blocked(i, j) || !x.is_finite() {
            (200, 200, 206)
        } else {
            let c = scale.color(x);
            (c.0, c.1, c.2)
        };
        rgba.extend_from_slice(&[r, g, bl, 255]);
    }
    Some((rgba, cols))
}

/// What a tile did, in words: skipped, or which rows raised their maximum.
pub fn tile_words(tile: &Tile) -> String {
    if tile.skipped {
        return "Every score in this tile is blocked (-inf): the tile is skipped, m and ℓ stay.".to_owned();
    }
    let raised: Vec<String> = row_states(tile)
        .iter()
        .filter(|r| r.correction < 1.0 && r.correction > 0.0)
        .map(|r| r.row.to_string())
        .collect();
    if raised.is_empty() {
        "No row's maximum rose by more than the rounding: nothing earlier is rescaled (e^(m − m′) = 1, or 0 \
         when nothing came before)."
            .to_owned()
    } else {
        format!(
            "This tile raised the maximum of row{} {}: what those rows had summed before is multiplied by \
             e^(m − m′) < 1.",
            if raised.len() > 1 { "s" } else { "" },
            raised.join(", ")
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{run, tiled, Scenario};

    fn scenario(causal: bool) -> Scenario {
        Scenario::from_json(&format!(
            r#"{{"sentences": ["the cat sat on the mat", "a dog ran"], "d_model": 6, "n_heads": 2,
                "projections": "seeded", "seed": 3,
                "mask": {{"causal": {causal}, "padding": "keys", "fill": "neg_inf"}}}}"#
        ))
        .unwrap()
    }

    #[test]
    fn the_tiled_context_is_the_full_runs_for_every_block() {
        for causal in [false, true] {
            let s = scenario(causal);
            let full = run(&s).unwrap();
            for block in 1..=7 {
                let t = tiled(&s, block).unwrap();
                for (b, head) in [(0, 0), (0, 1), (1, 0), (1, 1)] {
                    let d = context_check(&t, &full, b, head).unwrap();
                    assert!(d <= 1e-12, "block {block}, b {b}, head {head}: {d}");
                    // ⌈6 / block⌉² tiles per head and sentence
                    assert_eq!(tiles_of(&t, b, head).len(), 6_usize.div_ceil(block).pow(2));
                }
                assert_eq!(context_check(&t, &full, 2, 0), None);
            }
        }
    }

    #[test]
    fn rows_carry_their_running_numbers() {
        let t = tiled(&scenario(true), 2).unwrap();
        let first = &t.tiles[tiles_of(&t, 0, 0)[0]];
        let rows = row_states(first);
        assert_eq!(rows.iter().map(|r| r.row).collect::<Vec<_>>(), [0, 1]);
        // the first tile: nothing came before, the correction is e^(−∞) = 0
        assert!(rows.iter().all(|r| r.correction == 0.0 && r.l >= 1.0));
        // causal: the tile right of the diagonal (rows 0–1, keys 2–3) is skipped
        let skipped = &t.tiles[tiles_of(&t, 0, 0)[1]];
        assert!(skipped.skipped && tile_words(skipped).contains("skipped"));
        assert_eq!(peak_scores(2, 6, 6), (4, 36));
        assert_eq!(peak_scores(9, 6, 6), (36, 36));
        assert_eq!(outline(skipped, 10.0, 5.0, 0.0), [25.0, 0.0, 20.0, 20.0]);
        assert_eq!(cell_size(400.0, 128), 3.0);
        assert_eq!(cell_size(400.0, 3), 40.0);
        assert_eq!(cell_size(400.0, 0), 40.0);
    }

    #[test]
    fn the_scores_are_drawn_one_pixel_a_cell() {
        let full = run(&scenario(true)).unwrap();
        let (rgba, width) = score_pixels(&full, 0, 1).unwrap();
        assert_eq!((width, rgba.len()), (6, 6 * 6 * 4));
        // causal: the cell right of the diagonal in row 0 is blocked, grey
        assert_eq!(&rgba[4..8], &[200, 200, 206, 255]);
        assert_ne!(&rgba[0..4], &[200, 200, 206, 255]);
        assert!(score_pixels(&full, 0, 7).is_none());
    }
}
