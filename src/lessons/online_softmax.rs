//! Lesson 11, the online softmax: the max trick on one row, then the same row folded in
//! tile by tile as FlashAttention does, with the correction e^(m − m′) when a later tile
//! raises the maximum, the result equal to the softmax, and the tiles a causal mask lets
//! a kernel skip.
//!
//! Its pictures are the tiles view ([`Extra::Tiles`]). The words quote one row's running
//! maximum, sum and correction from [`online_row`], the engine's fold of one row, which
//! the engine's tests hold equal to the tiles' own numbers.

use super::quiz::{Quiz, QuizKind};
use super::{at, num, seeded, tile_index, token, Cell, Claim, Extra, Lesson, LessonStep, Quantity};
use crate::engine::tiled::{online_row, RowAfterTile};
use crate::engine::{Scenario, StepName as S, Trace};
use crate::format::fixed;

const SENTENCE: &str = "the cat sat on the mat";
/// "mat": the row the lesson follows.
const MAT: usize = 5;
/// Keys per tile in the tile-by-tile steps.
const BLOCK: usize = 2;

/// Two heads of d_k = 4 on seeded weights (seed 7: "mat"'s largest score is in its second
/// tile of two keys, so the maximum rises once); causal as asked.
fn scenario(causal: bool) -> Scenario {
    let mut s = seeded(&[SENTENCE], 8, 2, 7);
    s.mask.causal = causal;
    s
}

/// The number of keys of the lesson's sentence (6).
fn t_k() -> usize {
    SENTENCE.split_whitespace().count()
}

/// Row `i`'s masked scores in head 1, as the tiles read them.
fn scores(t: &Trace, i: usize) -> Vec<f64> {
    let n = t.key_tokens(0).len();
    (0..n).map(|j| at(t, S::Masked, 0, 0, i, j)).collect()
}

/// Row `i` after each tile of `block` keys.
fn folded(t: &Trace, i: usize, block: usize) -> Vec<RowAfterTile> {
    online_row(&scores(t, i), block)
}

/// A step that folds "mat"'s row in tile by tile (no causal mask): the tiles view beside
/// its masked scores.
fn tile_step(title: &'static str, narrate: fn(&Trace) -> String) -> LessonStep {
    LessonStep::new(title, scenario(false), S::Masked, narrate)
}

/// Four decimals, as the tiles view lists m, ℓ and the correction.
fn f4(x: f64) -> String {
    fixed(x, 4)
}

fn list(v: &[f64]) -> String {
    format!("[{}]", v.iter().map(|x| num(*x)).collect::<Vec<_>>().join(", "))
}

/// "keys 2–3 (\"sat\" and \"on\")".
fn keys_of(t: &Trace, k: [usize; 2]) -> String {
    let names: Vec<String> = (k[0]..k[1]).map(|j| format!("\"{}\"", token(t, 0, j))).collect();
    format!("keys {}–{} ({})", k[0], k[1].saturating_sub(1), names.join(" and "))
}

/// Step 4's claim: "the second tile holds a larger score" (its largest score is above
/// every score of the first tile, as printed). The words for a tile that does not raise
/// the maximum state no relation of their own: they quote the correction, 1.
fn second_tile_claims(t: &Trace) -> Vec<Claim> {
    let row = folded(t, MAT, BLOCK);
    let (Some(first), Some(second)) = (row.first(), row.get(1)) else { return Vec::new() };
    let q = |j: usize| Quantity::Cell(Cell { step: S::Masked, batch: 0, head: 0, row: MAT, col: j });
    let s = scores(t, MAT);
    let top = |k: [usize; 2]| (k[0]..k[1]).max_by(|&a, &b| s[a].total_cmp(&s[b])).unwrap_or(k[0]);
    if second.correction < 1.0 {
        vec![Claim::Largest(q(top(second.k)), (first.k[0]..first.k[1]).map(q).collect())]
    } else {
        Vec::new()
    }
}

/// Whether the last tile raises the row's maximum, as the words print m (four decimals):
/// a rise too small to print is no rise to the reader.
fn last_raises(row: &[RowAfterTile]) -> bool {
    match row {
        [.., before, last] => last.m > before.m && f4(last.m) != f4(before.m),
        _ => false,
    }
}

/// The last tile's words, at the four decimals they quote: ℓ′ is the ℓ of one tile over
/// the whole row, and the maximum rose (a correction below 1) or stayed (a correction of
/// 1).
fn last_tile_claims(t: &Trace) -> Vec<Claim> {
    let row = folded(t, MAT, BLOCK);
    let whole = folded(t, MAT, t.key_tokens(0).len().max(1));
    let (Some(last), Some(one)) = (row.last(), whole.last()) else { return Vec::new() };
    let c = Quantity::Computed;
    let mut out = vec![Claim::EqualAt(c("ℓ after the last tile", last.l), c("ℓ of one tile", one.l), 4)];
    let Some(before) = row.len().checked_sub(2).map(|i| &row[i]) else { return out };
    if last_raises(&row) {
        out.push(Claim::GreaterAt(c("m′", last.m), c("m before the last tile", before.m), 4));
        out.push(Claim::GreaterAt(c("1", 1.0), c("the correction", last.correction), 4));
    } else {
        out.push(Claim::EqualAt(c("m′", last.m), c("m before the last tile", before.m), 4));
        out.push(Claim::EqualAt(c("the correction", last.correction), c("1", 1.0), 4));
    }
    out
}

/// The tiles of `block` that a causal mask blocks entirely (sentence 1): a kernel skips them.
fn blocked_tiles(t: &Trace, block: usize) -> (usize, usize) {
    let [_, t_q, t_k] = t.mask.shape;
    let (mut skipped, mut all) = (0, 0);
    for q0 in (0..t_q).step_by(block.max(1)) {
        for k0 in (0..t_k).step_by(block.max(1)) {
            all += 1;
            let every = (q0..(q0 + block).min(t_q))
                .all(|i| (k0..(k0 + block).min(t_k)).all(|j| t.mask.is_blocked(0, i, j)));
            skipped += usize::from(every);
        }
    }
    (skipped, all)
}

/// The lesson.
pub fn lesson() -> Lesson {
    let tile = |key: usize| Extra::Tiles { block: BLOCK, tile: tile_index(BLOCK, t_k(), MAT, key) };
    Lesson {
        id: "online-softmax",
        title: "Online softmax",
        seeds: "FlashAttention's online softmax",
        steps: vec![
            LessonStep::new(
                "The max trick, one row by hand",
                scenario(false),
                S::Masked,
                |t| {
                    let row = folded(t, MAT, t.key_tokens(0).len().max(1));
                    let Some(last) = row.last() else { return "This sentence has no keys.".into() };
                    format!(
                        "A row's weights are softmax(s)_j = e^(s_j) / Σ_k e^(s_k). Computed like that, e^s \
                         overflows: in the 32-bit floats models use, e^89 is already infinite. So every library \
                         first subtracts the row's largest score m: e^(s_j − m) / Σ_k e^(s_k − m) is the same \
                         fraction (the e^(−m) cancels above and below), and now no exponent is above 0. \"{}\"'s \
                         scores in head 1 are {}; m = {} and the sum ℓ = Σ e^(s − m) = {}. Here one tile is as \
                         wide as the whole row (block = {}), so the table lists m′ and ℓ′ of every row; the \
                         scores are under \"This tile's scores as a table\".",
                        token(t, 0, MAT),
                        list(&scores(t, MAT)),
                        f4(last.m),
                        f4(last.l),
                        t.key_tokens(0).len(),
                    )
                },
            )
            .extra(Extra::Tiles { block: t_k(), tile: 0 }),
            LessonStep::new(
                "Predict: a whole row moved up",
                scenario(false),
                S::Masked,
                |_| "Choose an answer to see why.".into(),
            )
            .extra(Extra::Tiles { block: t_k(), tile: 0 })
            .quiz(Quiz {
                    reveal: None,
                    reveal_extra: None,
                    question: |t| {
                        format!(
                            "Suppose 100 were added to every score in \"{}\"'s row. What happens to its weights?",
                            token(t, 0, MAT)
                        )
                    },
                    kind: QuizKind::Choice {
                        choices: |_| {
                            vec![
                                "the largest grows toward 1".into(),
                                "they overflow to infinity".into(),
                                "they stay the same".into(),
                            ]
                        },
                        answer: |_| {
                            Some((
                                2,
                                "m rises by 100 too, so every s − m, every e^(s − m) and ℓ stay as they were, and \
                                 so do the weights. Only the differences between scores matter. This is also \
                                 why the max trick is safe: subtracting m is adding the same number to the whole \
                                 row."
                                    .into(),
                            ))
                        },
                    },
                }),
            tile_step("The same row, two keys at a time", |t| {
                let row = folded(t, MAT, BLOCK);
                let Some(first) = row.first() else { return "This sentence has no keys.".into() };
                format!(
                    "A fast kernel (FlashAttention) never holds a whole row of scores. It cuts the score \
                     matrix into tiles of block × block = {BLOCK} × {BLOCK} and folds them in one at a time. \
                     \"{}\"'s row comes in {} tiles. After the first, {}, the kernel knows only those: \
                     m′ = {} and ℓ′ = {}. It also keeps a running output O, the values weighted by \
                     e^(s − m′) so far, and divides by ℓ only at the end.",
                    token(t, 0, MAT),
                    row.len(),
                    keys_of(t, first.k),
                    f4(first.m),
                    f4(first.l),
                )
            })
            .extra(tile(0)),
            tile_step("A later tile raises the maximum", |t| {
                let row = folded(t, MAT, BLOCK);
                let Some(second) = row.get(1) else {
                    return "This sentence has one tile per row.".into();
                };
                if second.correction >= 1.0 {
                    return format!(
                        "With these numbers the second tile, {}, does not raise \"{}\"'s maximum: the \
                         correction is {} and m′ stays {}. Edit the scenario back (or reload the lesson) to \
                         see a tile that raises it.",
                        keys_of(t, second.k),
                        token(t, 0, MAT),
                        f4(second.correction),
                        f4(second.m),
                    );
                }
                format!(
                    "The second tile, {}, holds a larger score, so the maximum rises to m′ = {}. The sum so \
                     far was made with the old maximum m: each of its terms e^(s − m) is e^(m′ − m) times too \
                     large. One multiplication fixes them all, the correction e^(m − m′) = {}: ℓ′ = \
                     e^(m − m′)·ℓ + Σ e^(S − m′) = {}. The running output O is rescaled by the same factor. \
                     A correction is never above 1, since the maximum never falls.",
                    keys_of(t, second.k),
                    f4(second.m),
                    f4(second.correction),
                    f4(second.l),
                )
            })
            .extra(tile(2))
            .claims(second_tile_claims),
            tile_step("The last tile, and the softmax", |t| {
                let row = folded(t, MAT, BLOCK);
                let Some(last) = row.last() else { return "This sentence has no keys.".into() };
                let n = t.key_tokens(0).len();
                format!(
                    "The last tile, {}, {}: ℓ′ = {}, the same ℓ as one tile over the whole row gave. After \
                     it the kernel divides, O / ℓ, and gets the context: the check under the picture compares \
                     it with the full run's softmax(S)·V. It never held more than {} scores of a row block at \
                     a time, against {} × {n} = {} for the whole matrix: at 8 000 tokens that is what lets \
                     attention fit in a GPU's fast memory.",
                    keys_of(t, last.k),
                    if last_raises(&row) {
                        format!("raises the maximum to {} (correction {})", f4(last.m), f4(last.correction))
                    } else {
                        format!("does not raise the maximum (correction {}), so m′ stays {}", f4(last.correction), f4(last.m))
                    },
                    f4(last.l),
                    BLOCK * BLOCK,
                    t.query_tokens(0).len(),
                    t.query_tokens(0).len() * n,
                )
            })
            .claims_each_case(last_tile_claims)
            .extra(tile(4)),
            LessonStep::new(
                "Tiles a causal mask skips",
                scenario(true),
                S::Masked,
                |t| {
                    let (skipped, all) = blocked_tiles(t, BLOCK);
                    let row = folded(t, 0, BLOCK);
                    let m = row.last().map_or(f64::NAN, |r| r.m);
                    format!(
                        "With a causal mask, a tile above the diagonal holds only blocked scores, here rows 0–1 \
                         against keys 2–3 (rows and keys count from 0). Under the -inf fill it would change nothing (every e^(−∞) is 0), so \
                         the kernel skips it: {skipped} of the {all} tiles here, and nearly half of them in a \
                         long sentence, which is why causal attention costs FlashAttention about half as much. \"{}\" (row 0) sees only itself: its m stays {} after every \
                         tile. A row whose every key is blocked never sees a finite score, so its m stays −∞ and \
                         ℓ stays 0. Dividing O / ℓ = 0 / 0 gives NaN, as plain softmax gives for that row (and this \
                         engine's full run). FlashAttention-2's kernels test for ℓ = 0 and write zeros instead, as \
                         PyTorch's F.scaled_dot_product_attention does (the masks lesson).",
                        token(t, 0, 0),
                        f4(m),
                    )
                },
            )
            .extra(Extra::Tiles { block: BLOCK, tile: tile_index(BLOCK, t_k(), 0, 2) }),
        ],
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{run, tiled};

    /// The row the words follow is the tiles' row: its m, ℓ and corrections after each
    /// tile; the maximum rises in the second tile and not in the third; the causal
    /// scenario skips the three tiles above the diagonal.
    #[test]
    fn the_words_follow_the_tiles() {
        let s = scenario(false);
        let t = run(&s).unwrap();
        let tiles = tiled(&s, BLOCK).unwrap();
        let mine: Vec<_> =
            tiles.tiles.iter().filter(|x| x.b == 0 && x.head == 0 && x.q[0] <= MAT && MAT < x.q[1]).collect();
        let row = folded(&t, MAT, BLOCK);
        assert_eq!(row.len(), 3);
        for (alone, tile) in row.iter().zip(&mine) {
            let r = MAT - tile.q[0];
            assert_eq!(alone.k, tile.k);
            assert_eq!(f4(alone.m), f4(tile.m[r]));
            assert_eq!(f4(alone.l), f4(tile.l[r]));
            assert_eq!(f4(alone.correction), f4(tile.correction[r]));
        }
        assert!(row[1].correction < 0.6 && row[2].correction == 1.0, "{row:?}");
        // the lesson's tile index is the tile holding MAT's row and that key
        assert_eq!(
            tiles.tiles.iter().filter(|x| x.b == 0 && x.head == 0).nth(tile_index(BLOCK, 6, MAT, 2)),
            Some(mine[1])
        );
        // one tile as wide as the row gives the same ℓ as three
        let whole = folded(&t, MAT, 6);
        assert_eq!(f4(whole[0].l), f4(row[2].l));
        let causal = run(&scenario(true)).unwrap();
        assert_eq!(blocked_tiles(&causal, BLOCK), (3, 9));
        let skipped = tiled(&scenario(true), BLOCK)
            .unwrap()
            .tiles
            .iter()
            .filter(|x| x.b == 0 && x.head == 0 && x.skipped)
            .count();
        assert_eq!(skipped, 3);
    }

    /// The last tile's claims are read at the four decimals its words quote, and hold for
    /// the lesson's own vectors; a claim at two decimals would pass for a tile that does
    /// not match to four.
    #[test]
    fn the_last_tiles_claims_hold_at_four_decimals() {
        let lesson = lesson();
        let step = lesson.steps.iter().find(|s| s.title == "The last tile, and the softmax").unwrap();
        let t = run(&step.scenario).unwrap();
        let claims = (step.claims)(&t);
        assert_eq!(claims.len(), 3, "{claims:?}");
        assert!(claims.iter().all(|c| matches!(c, Claim::EqualAt(_, _, 4) | Claim::GreaterAt(_, _, 4))));
        assert!(step.claims_hold(&t));
        assert!(step.each_case);
        // the words' m and correction are the ones the claims compare
        let row = folded(&t, MAT, BLOCK);
        let words = (step.narrate)(&t);
        assert!(words.contains(&f4(row.last().unwrap().l)), "{words}");
    }
}
