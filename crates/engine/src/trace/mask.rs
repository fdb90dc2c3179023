//! [`MaskTrace`]: what was blocked, in the engine's convention (`true` = blocked).

use std::borrow::Cow;

use serde::{Deserialize, Serialize};

use super::json::{deserialize_number, serialize_number};
use crate::scenario::MaskConfig;

/// What was blocked, in the engine's convention: `true` = blocked.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MaskTrace {
    /// The settings.
    #[serde(flatten)]
    pub config: MaskConfig,
    /// The number written into blocked scores.
    #[serde(serialize_with = "serialize_number", deserialize_with = "deserialize_number")]
    pub fill_value: f64,
    /// Always `"true = blocked"`.
    pub convention: Cow<'static, str>,
    /// `[B, T, T]`; `unsqueeze(1)` makes it `[B, 1, T, T]`, broadcast over the heads.
    pub shape: [usize; 3],
    /// Row-major `[b][query][key]`.
    pub blocked: Vec<bool>,
}

impl MaskTrace {
    /// Is query `i` of sentence `b` blocked from key `j`?
    pub fn is_blocked(&self, b: usize, i: usize, j: usize) -> bool {
        let [_, t_q, t_k] = self.shape;
        self.blocked.get((b * t_q + i) * t_k + j).copied().unwrap_or(false)
    }

    /// Which positions of sentence `b` can have influenced each position's residual stream
    /// after `layers` layers of self-attention under this mask (every layer has the same
    /// mask): `reach[i][j]` is true when there is a path `i ← k_1 ← … ← j` of at most
    /// `layers` query-key pairs the mask lets through, or `i = j` (the residual add carries
    /// each position's own stream up). A fully blocked query row reads every key (its
    /// weights are uniform under -1e9, NaN under -inf). `None` in cross-attention, where
    /// the keys are another sentence's, or for a sentence the run does not have.
    pub fn reach(&self, b: usize, layers: usize) -> Option<Vec<Vec<bool>>> {
        let [n_b, t_q, t_k] = self.shape;
        if b >= n_b || t_q != t_k {
            return None;
        }
        let t = t_q;
        let reads: Vec<Vec<bool>> = (0..t)
            .map(|i| {
                let row: Vec<bool> = (0..t).map(|j| !self.is_blocked(b, i, j)).collect();
                if row.iter().any(|&r| r) {
                    row
                } else {
                    vec![true; t]
                }
            })
            .collect();
        let mut reach: Vec<Vec<bool>> = (0..t).map(|i| (0..t).map(|j| i == j).collect()).collect();
        for _ in 0..layers {
            // one more layer: i hears what any key it reads had heard, and keeps its own
            reach = reads
                .iter()
                .zip(&reach)
                .map(|(read, own)| {
                    own.iter()
                        .enumerate()
                        .map(|(j, &r)| {
                            r || read
                                .iter()
                                .zip(&reach)
                                .any(|(&k_read, k_reach)| k_read && k_reach.get(j).copied().unwrap_or(false))
                        })
                        .collect()
                })
                .collect();
        }
        Some(reach)
    }
}

#[cfg(test)]
mod tests {
    use crate::scenario::{Fill, MaskConfig, Padding, Scenario};

    fn reach(mask: MaskConfig, sentences: &[&str], layers: usize) -> Vec<Vec<bool>> {
        let mut s = Scenario::identity(sentences, 2, 1);
        s.mask = mask;
        crate::run(&s).unwrap().mask.reach(sentences.len() - 1, layers).unwrap()
    }

    /// The positions row `i` reaches, as a list.
    fn row(r: &[Vec<bool>], i: usize) -> Vec<usize> {
        (0..r.len()).filter(|&j| r[i][j]).collect()
    }

    /// A causal window of W = 3 over 8 tokens, by hand: each layer reaches W − 1 = 2
    /// positions further back, L·(W − 1) + 1 positions in all, until the sentence's start.
    #[test]
    fn a_causal_window_reaches_two_more_positions_per_layer() {
        let w3 = MaskConfig { causal: true, window: Some(3), ..MaskConfig::default() };
        let one = ["a b c d e f g h"];
        assert_eq!(row(&reach(w3, &one, 0), 7), vec![7]);
        assert_eq!(row(&reach(w3, &one, 1), 7), vec![5, 6, 7]);
        assert_eq!(row(&reach(w3, &one, 2), 7), vec![3, 4, 5, 6, 7]);
        assert_eq!(row(&reach(w3, &one, 3), 7), vec![1, 2, 3, 4, 5, 6, 7]);
        assert_eq!(row(&reach(w3, &one, 4), 7), (0..8).collect::<Vec<_>>());
        assert_eq!(row(&reach(w3, &one, 2), 2), vec![0, 1, 2]);
        // never a later position under a causal mask
        let r = reach(w3, &one, 4);
        assert!((0..8).all(|i| (i + 1..8).all(|j| !r[i][j])));
        // without a window one layer already reaches back to the start
        let causal = MaskConfig { causal: true, ..MaskConfig::default() };
        assert_eq!(row(&reach(causal, &one, 1), 7), (0..8).collect::<Vec<_>>());
        // both sides, W = 2: |i − j| < 2 per layer, so 2 layers reach 2 either way
        let both = MaskConfig { window: Some(2), ..MaskConfig::default() };
        assert_eq!(row(&reach(both, &one, 2), 4), vec![2, 3, 4, 5, 6]);
    }

    /// Padding: a <pad> key is read by no one; a fully blocked <pad> query under -1e9 reads
    /// every key, so it hears everything in one layer. Cross-attention has no reach.
    #[test]
    fn padding_and_cross_attention() {
        let pad = MaskConfig::new(true, Padding::KeysAndQueries, Fill::LargeNegative);
        let r = reach(pad, &["a b c d", "a b"], 1);
        assert_eq!(row(&r, 1), vec![0, 1]);
        assert_eq!(row(&r, 3), vec![0, 1, 2, 3]);
        assert!((0..4).all(|i| !r[i][2] || i >= 2), "no real query reads a <pad> key");
        let mut cross = Scenario::identity(&["a b"], 2, 1);
        cross.kv_sentences = Some(vec!["c d e".into()]);
        assert!(crate::run(&cross).unwrap().mask.reach(0, 1).is_none());
        assert!(crate::run(&cross).unwrap().mask.reach(3, 1).is_none());
    }
}
