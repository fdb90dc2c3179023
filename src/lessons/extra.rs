//! What a step's picture shows besides the focus step's heatmaps: [`Extra`], shared by
//! the step model and the quiz (a question may reveal another picture).

/// What a lesson step's picture shows beside the focus step's heatmaps and table. The
/// page renders one view per variant; [`picture_numbers`] lists the numbers each shows,
/// so the tests can hold every number a step's words quote to its picture.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Extra {
    /// Nothing else.
    #[default]
    None,
    /// The embedding editor and the plot of `x` before and after attention (with its
    /// table of coordinates): the baseball-bat lesson.
    EmbeddingPlot,
    /// The same boolean mask in three conventions (no numbers, only T/F and 0/1).
    MaskConventions,
    /// Instead of the focus step's heatmaps: the positions' similarity, `PE · PEᵀ`, one row
    /// and one column per position (from 0), cell `(i, j)` = [`position_similarity`]`[i][j]`,
    /// the cells `(i, j)` of `quoted` (the ones the step's words quote) marked.
    PositionSimilarity {
        /// The cells the words quote, `(row, column)`.
        quoted: &'static [(usize, usize)],
    },
    /// Instead of the focus step's heatmaps: the decode view (a key/value cache, one
    /// position at a time), opened at position `t`.
    Decode {
        /// The position shown first.
        t: usize,
    },
    /// Instead of the focus step's heatmaps: the tiles view (the online softmax), with
    /// blocks of `block` and the `tile`-th tile of sentence `batch`, head 1 shown first.
    Tiles {
        /// The block size.
        block: usize,
        /// The tile shown first, counted in the order folded in (query block, key block).
        tile: usize,
    },
    /// Instead of the focus step's heatmaps: a causal mask anchored at the top left
    /// (`is_causal=True`) and at the lower right, for fewer queries than keys (no numbers,
    /// only ✓ and ✗): the tables the step's words explain, in the page and its embed.
    CausalCorners,
    /// Instead of the focus step's heatmaps: each head of `q` split with view + transpose
    /// (right) and with view alone (wrong), side by side ([`shapes::split_both_ways`]).
    SplitBothWays,
    /// Instead of the focus step's heatmaps: a token's cache per layer as bars, at
    /// DeepSeek-V3's sizes (MHA, GQA, MQA, MLA) and in the step's own model
    /// ([`super::mla::cache_bars`]).
    CacheBars,
    /// Instead of the focus step's heatmaps: a figure of the lesson "Induction heads",
    /// drawn from its recorded training run.
    Induction(super::induction::Figure),
}

impl Extra {
    /// True for the pictures drawn from a recorded training run rather than from the
    /// step's scenario (the induction lesson's): the explorer's numbers are not theirs.
    pub fn from_recorded_run(self) -> bool {
        matches!(self, Self::Induction(_))
    }

    /// True for the pictures that replace the focus step's heatmaps (the decode and tiles
    /// views, the similarity table, the causal corners); the other extras sit beside them.
    pub fn replaces_heatmaps(self) -> bool {
        matches!(
            self,
            Self::Decode { .. }
                | Self::Tiles { .. }
                | Self::PositionSimilarity { .. }
                | Self::CausalCorners
                | Self::SplitBothWays
                | Self::CacheBars
                | Self::Induction(_)
        )
    }
}
