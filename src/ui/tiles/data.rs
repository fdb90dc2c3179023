//! The tiles view's pure parts: the tiles of one head and sentence, the running m, ℓ and
//! correction of each query row of a tile, the check of the tiled context against the
//! full run's, the peak memory, and where the tile's outline goes. Plain Rust, tested
//! natively. The numbers come from [`crate::engine::tiled`]; nothing here computes
//! attention.

use crate::draw::{draw_grid_pixels, GridPixels, Heatmap, Layout, Scale, Theme, LABEL_FONT};
use crate::engine::{StepName, Tile, Tiled, Trace};

use crate::ui::decode::data::largest_difference;
use crate::ui::heatmap::card_data::{blocked_cells, hatched};

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

/// The masked scores of one head and sentence as the main heatmaps draw their cells
/// ([`draw_grid_pixels`]: a blue–white–red scale over the scores that are not blocked,
/// blocked cells grey and hatched, so that none reads as a score near 0), `cell` pixels
/// a side.
pub fn score_pixels(full: &Trace, b: usize, head: usize, cell: f64, theme: &Theme) -> Option<GridPixels> {
    let m = full.step(StepName::Masked)?.matrix(b, head)?;
    let (rows, cols) = m.dim();
    let blocked = blocked_cells(full, b, rows, cols);
    let open = m.iter().zip(&blocked).filter(|(x, &bl)| !bl && x.is_finite()).map(|(x, _)| x);
    // hatched as the card of the same masked scores hatches them
    let hatched = hatched(StepName::Masked, m.view(), &blocked);
    let map = Heatmap {
        values: m.view(),
        row_labels: &[],
        col_labels: &[],
        row_is_pad: &[],
        col_is_pad: &[],
        blocked: &hatched,
        scale: Scale::diverging(open),
        col_group: None,
    };
    let cell = cell.round().max(1.0);
    let layout = Layout {
        n_rows: rows,
        n_cols: cols,
        left: 0.0,
        top: 0.0,
        cell,
        font: LABEL_FONT,
        bar_x: cols as f64 * cell,
        width: cols as f64 * cell,
        height: rows as f64 * cell,
        min_number_font: 0.0,
    };
    Some(draw_grid_pixels(&map, &layout, theme, 1.0))
}

/// Whether the mask blocks any cell of sentence `b`'s scores (the picture's legend names
/// the grey of blocked cells only then).
pub fn any_blocked(full: &Trace, b: usize) -> bool {
    let (t_q, t_k) = (full.query_tokens(b).len(), full.key_tokens(b).len());
    blocked_cells(full, b, t_q, t_k).contains(&true)
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
    fn blocked_cells_are_drawn_as_the_heatmaps_draw_them() {
        let full = run(&scenario(true)).unwrap();
        let theme = Theme::LIGHT;
        let px = score_pixels(&full, 0, 1, 10.0, &theme).unwrap();
        assert_eq!((px.width, px.height), (60, 60));
        let at = |x, y| px.at(x, y).unwrap();
        // causal: the cell right of the diagonal in row 0 (x 10–19, y 0–9) is blocked:
        // the heatmaps' grey, crossed by their hatching from its lower left to upper right
        assert_eq!(at(11, 1), theme.blocked);
        assert_eq!(at(10, 9), theme.hatch);
        assert_eq!(at(14, 5), theme.hatch);
        // an open cell is a score's colour, neither
        assert!(![theme.blocked, theme.hatch].contains(&at(5, 5)));
        assert!(score_pixels(&full, 0, 7, 10.0, &theme).is_none());
    }

    #[test]
    fn blocked_is_said_only_when_the_mask_blocks_a_cell() {
        let causal = run(&scenario(true)).unwrap();
        assert!(any_blocked(&causal, 0));
        let open = Scenario::from_json(
            r#"{"sentences": ["the cat sat", "a dog ran"], "d_model": 6, "n_heads": 2, "projections": "seeded", "seed": 3}"#,
        )
        .unwrap();
        let open = run(&open).unwrap();
        assert!(!any_blocked(&open, 0) && !any_blocked(&open, 1));
        // padding blocks the pad keys of the shorter sentence only
        let padded = run(&scenario(false)).unwrap();
        assert!(!any_blocked(&padded, 0) && any_blocked(&padded, 1));
    }
}
