//! The boolean attention mask.
//!
//! **Convention: `true` = blocked.** A blocked query–key pair gets its score replaced by
//! the fill (`masked_fill`). This is seed 001's and `nn.MultiheadAttention`'s convention;
//! seed 000 and seed 003 use the opposite one (`masked_fill(mask == 0, …)`: 0 = blocked),
//! and `F.scaled_dot_product_attention`'s boolean `attn_mask` uses `True` = may attend.
//! The page shows all three side by side.

use ndarray::Array3;

use crate::scenario::{MaskConfig, Padding};

/// Builds the `(B, T, T)` mask for sentences of the given real lengths padded to `t`
/// (self-attention). It is the same for every head: PyTorch broadcasts it with
/// `mask.unsqueeze(1)` to `(B, 1, T, T)`.
///
/// # Shapes
/// - returns: `[B, T, T]`, `[b, i, j]` = query `i` may not attend to key `j`
pub fn build(lengths: &[usize], t: usize, config: &MaskConfig) -> Array3<bool> {
    build_cross(lengths, t, lengths, t, config)
}

/// The mask when queries and keys come from different sentences (cross-attention):
/// causal blocks key positions after the query's, a window blocks keys `W` or more
/// positions away (only earlier ones matter under causal), padding uses each side's
/// lengths.
///
/// # Shapes
/// - returns: `[B, T_q, T_k]`
pub fn build_cross(
    q_lengths: &[usize],
    t_q: usize,
    k_lengths: &[usize],
    t_k: usize,
    config: &MaskConfig,
) -> Array3<bool> {
    Array3::from_shape_fn((q_lengths.len(), t_q, t_k), |(b, i, j)| {
        let len_q = q_lengths.get(b).copied().unwrap_or(0);
        let len_k = k_lengths.get(b).copied().unwrap_or(0);
        blocked(config, len_q, len_k, i, j)
    })
}

/// One cell of the mask: may query `i` of a sentence with `len_q` real query tokens not
/// attend to key `j` of one with `len_k` real key tokens? Positions are absolute (from 0),
/// so decoding one query at a time and walking tiles ask the same question.
pub fn blocked(config: &MaskConfig, len_q: usize, len_k: usize, i: usize, j: usize) -> bool {
    let future = config.causal && j > i;
    let pad_key = config.padding != Padding::None && j >= len_k;
    let pad_query = config.padding == Padding::KeysAndQueries && i >= len_q;
    future || outside_window(config, i, j) || pad_key || pad_query
}

/// True when key `j` is outside query `i`'s sliding window (false without a window): a
/// window of W keys is `i − W < j ≤ i` with causal (Mistral's), `|i − j| < W` without.
/// A kept first key (`j < keep_first`, StreamingLLM's) is never outside it.
pub fn outside_window(config: &MaskConfig, i: usize, j: usize) -> bool {
    config.window.is_some_and(|w| if config.causal { j.saturating_add(w) <= i } else { i.abs_diff(j) >= w })
        && !is_kept_first(config, j)
}

/// Is key `j` one of the first `keep_first` keys that a window never evicts
/// (StreamingLLM's attention sinks)? False without `keep_first`.
pub fn is_kept_first(config: &MaskConfig, j: usize) -> bool {
    config.keep_first.is_some_and(|k| j < k)
}

/// Is key `j` one the window alone would block from query `i`, but the kept first keys let
/// it see? These are the cells where StreamingLLM differs from a plain window.
pub fn kept_beyond_window(config: &MaskConfig, i: usize, j: usize) -> bool {
    is_kept_first(config, j) && outside_window(&MaskConfig { keep_first: None, ..*config }, i, j)
}

/// Where a causal mask puts its diagonal when there are fewer queries than keys.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CausalCorner {
    /// PyTorch's `is_causal=True` (`torch.ones(L, S).tril()`): query `i` may see keys
    /// `j ≤ i`, as if the queries were the first `L` positions.
    TopLeft,
    /// `torch.nn.attention.bias.causal_lower_right`: query `i` may see keys
    /// `j ≤ i + (S − L)`, the queries being the last `L` positions, as in decoding
    /// (one query, the newest, against a cache of `S` keys).
    LowerRight,
}

/// May query `i` of `t_q` see key `j` of `t_k` under a causal mask anchored at `corner`?
/// The two agree when `t_q = t_k`; decoding (`t_q = 1`) needs [`CausalCorner::LowerRight`],
/// which is the engine's own rule at absolute positions ([`blocked`] with the query at
/// position `t_k − t_q + i`).
pub fn causal_allows(corner: CausalCorner, t_q: usize, t_k: usize, i: usize, j: usize) -> bool {
    match corner {
        CausalCorner::TopLeft => j <= i,
        CausalCorner::LowerRight => j <= i + t_k.saturating_sub(t_q),
    }
}

/// The `[b, i]` rows in which every key is blocked. Under `-inf` their softmax is
/// 0/0 = NaN; under `-1e9` it is uniform.
pub fn fully_masked_rows(mask: &Array3<bool>) -> Vec<[usize; 2]> {
    let mut rows = Vec::new();
    for (bi, per_sentence) in mask.outer_iter().enumerate() {
        for (i, row) in per_sentence.outer_iter().enumerate() {
            if row.iter().all(|&blocked| blocked) {
                rows.push([bi, i]);
            }
        }
    }
    rows
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::Fill;

    fn cfg(causal: bool, padding: Padding) -> MaskConfig {
        MaskConfig::new(causal, padding, Fill::NegInf)
    }

    /// StreamingLLM with W = 2 and 2 kept first keys, T = 6, written out by hand: query i
    /// sees keys 0 and 1 (kept) and i − 1, i (the window), never a later key. Without
    /// causal the kept keys are seen by every query and the window is |i − j| < 2.
    #[test]
    fn kept_first_keys_beside_the_window() {
        let seen = |m: &Array3<bool>, i: usize| (0..6).filter(|&j| !m[(0, i, j)]).collect::<Vec<_>>();
        let streaming = MaskConfig { window: Some(2), keep_first: Some(2), ..cfg(true, Padding::None) };
        let m = build(&[6], 6, &streaming);
        let rows: Vec<Vec<usize>> = (0..6).map(|i| seen(&m, i)).collect();
        let want: Vec<Vec<usize>> =
            vec![vec![0], vec![0, 1], vec![0, 1, 2], vec![0, 1, 2, 3], vec![0, 1, 3, 4], vec![0, 1, 4, 5]];
        assert_eq!(rows, want);
        // the cells the window alone blocks and the kept keys open: (2, 0), (3, 0), (4, 0), (4, 1), (5, 0), (5, 1)
        let opened: Vec<(usize, usize)> = (0..6)
            .flat_map(|i| (0..6).map(move |j| (i, j)))
            .filter(|&(i, j)| kept_beyond_window(&streaming, i, j))
            .collect();
        assert_eq!(opened, vec![(2, 0), (3, 0), (3, 1), (4, 0), (4, 1), (5, 0), (5, 1)]);
        let both = build(&[6], 6, &MaskConfig { causal: false, ..streaming });
        assert_eq!(seen(&both, 0), vec![0, 1]);
        assert_eq!(seen(&both, 5), vec![0, 1, 4, 5]);
        assert_eq!(seen(&both, 2), vec![0, 1, 2, 3]);
        // padding still blocks a kept key that is <pad>, and a <pad> query's whole row
        let padded = build(&[1], 6, &MaskConfig { padding: Padding::KeysAndQueries, ..streaming });
        assert_eq!((seen(&padded, 0), seen(&padded, 4)), (vec![0], vec![]));
    }

    /// Mistral's sliding window, W = 3, T = 5: each query sees itself and the 2 keys
    /// before it; without causal, the keys less than 3 positions away on either side.
    #[test]
    fn sliding_window_causal_and_not() {
        let seen = |m: &Array3<bool>, i: usize| (0..5).filter(|&j| !m[(0, i, j)]).collect::<Vec<_>>();
        let causal = build(&[5], 5, &MaskConfig { window: Some(3), ..cfg(true, Padding::None) });
        assert_eq!(seen(&causal, 0), vec![0]);
        assert_eq!(seen(&causal, 2), vec![0, 1, 2]);
        assert_eq!(seen(&causal, 4), vec![2, 3, 4]);
        let both = build(&[5], 5, &MaskConfig { window: Some(3), ..cfg(false, Padding::None) });
        assert_eq!(seen(&both, 0), vec![0, 1, 2]);
        assert_eq!(seen(&both, 2), vec![0, 1, 2, 3, 4]);
        assert_eq!(seen(&both, 4), vec![2, 3, 4]);
        // W = 1: only the diagonal; with padding, a <pad> query is fully blocked
        let one = build(&[3], 5, &MaskConfig { window: Some(1), ..cfg(true, Padding::KeysAndQueries) });
        assert_eq!((seen(&one, 1), seen(&one, 4)), (vec![1], vec![]));
        assert_eq!(fully_masked_rows(&one), vec![[0, 3], [0, 4]]);
    }

    /// One query against four cached keys: `is_causal`'s top-left diagonal lets it see only
    /// the first key, the lower-right one all four, which is what the engine's absolute
    /// positions give the newest query (position 3); square, the two are the same.
    #[test]
    fn causal_corners_differ_only_when_queries_are_fewer() {
        let row = |c, t_q, t_k, i| (0..t_k).filter(|&j| causal_allows(c, t_q, t_k, i, j)).collect::<Vec<_>>();
        assert_eq!(row(CausalCorner::TopLeft, 1, 4, 0), vec![0]);
        assert_eq!(row(CausalCorner::LowerRight, 1, 4, 0), vec![0, 1, 2, 3]);
        assert_eq!(row(CausalCorner::TopLeft, 2, 6, 1), vec![0, 1]);
        assert_eq!(row(CausalCorner::LowerRight, 2, 6, 0), vec![0, 1, 2, 3, 4]);
        let causal = cfg(true, Padding::None);
        for (t_q, t_k) in [(1, 4), (2, 6), (3, 3), (1, 1)] {
            for i in 0..t_q {
                for j in 0..t_k {
                    let engine = !blocked(&causal, t_q, t_k, t_k - t_q + i, j);
                    assert_eq!(causal_allows(CausalCorner::LowerRight, t_q, t_k, i, j), engine);
                    if t_q == t_k {
                        assert_eq!(causal_allows(CausalCorner::TopLeft, t_q, t_k, i, j), engine);
                    }
                }
            }
        }
    }

    /// Seed 000's `subsequent_mask(5)`, written out: `True` where attending is allowed
    /// (it returns `triu(ones, 1) == 0`). Ours is its negation.
    #[test]
    fn causal_is_seed_000_subsequent_mask() {
        let subsequent_mask_5 = [
            [true, false, false, false, false],
            [true, true, false, false, false],
            [true, true, true, false, false],
            [true, true, true, true, false],
            [true, true, true, true, true],
        ];
        let m = build(&[5], 5, &cfg(true, Padding::None));
        for i in 0..5 {
            for j in 0..5 {
                assert_eq!(m[(0, i, j)], !subsequent_mask_5[i][j], "({i},{j})");
            }
        }
        assert!(fully_masked_rows(&m).is_empty());
    }

    /// Seed 002's table for "this is a sample sequence <pad> <pad>" with causal + padding:
    /// the two pad rows are blocked entirely.
    #[test]
    fn seed_002_causal_and_padding_table() {
        let m = build(&[5], 7, &cfg(true, Padding::KeysAndQueries));
        let blocked_per_row: Vec<usize> = (0..7).map(|i| (0..7).filter(|&j| m[(0, i, j)]).count()).collect();
        // row "this" sees 1 key, "is" 2, … "sequence" 5; the pad rows see none
        assert_eq!(blocked_per_row, vec![6, 5, 4, 3, 2, 7, 7]);
        assert_eq!(fully_masked_rows(&m), vec![[0, 5], [0, 6]]);
    }

    #[test]
    fn keys_padding_blocks_pad_columns_only() {
        let m = build(&[2, 3], 3, &cfg(false, Padding::Keys));
        assert!((0..3).all(|i| m[(0, i, 2)] && !m[(0, i, 1)]));
        assert!(m.slice(ndarray::s![1, .., ..]).iter().all(|&x| !x));
        assert!(build(&[2, 3], 3, &cfg(false, Padding::None)).iter().all(|&x| !x));
    }
}
