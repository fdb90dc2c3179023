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

/// Tiles laid out for six keys: every step's tiles (the one the view opens on, the block)
/// are set for the lesson's sentence of six words, and its words are about the row of the
/// sixth (named from the trace, whatever the word); a learner's sentence of another length
/// leaves them about other tiles.
fn sentence_claims(t: &Trace) -> Vec<Claim> {
    vec![Claim::Fits("a sentence of six words, as its tiles are laid out", t.key_tokens(0).len() == t_k())]
}

/// `claims` for `t` after [`sentence_claims`].
fn with_sentence(t: &Trace, claims: Vec<Claim>) -> Vec<Claim> {
    [sentence_claims(t), claims].concat()
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

/// "keys 2–3 (\"sat\" and \"on\")", "keys 0–2 (\"the\", \"cat\" and \"sat\")", "key 4
/// (\"the\")".
fn keys_of(t: &Trace, k: [usize; 2]) -> String {
    let mut names: Vec<String> = (k[0]..k[1]).map(|j| format!("\"{}\"", token(t, 0, j))).collect();
    let last = names.pop().unwrap_or_default();
    let names = if names.is_empty() { last } else { format!("{} and {last}", names.join(", ")) };
    format!("{} ({names})", span("key", k))
}

/// "keys 2–3", or "key 4" for a span of one.
fn span(what: &str, k: [usize; 2]) -> String {
    match k[1].saturating_sub(k[0]) {
        0 | 1 => format!("{what} {}", k[0]),
        _ => format!("{what}s {}–{}", k[0], k[1] - 1),
    }
}

/// Step 4's claim: "the second tile holds a larger score" (its largest score is above
/// every score of the first tile, as printed), for tiles of `block` keys. The words for a
/// tile that does not raise the maximum state no relation of their own: they quote the
/// correction, 1.
fn second_tile_claims(t: &Trace, block: usize) -> Vec<Claim> {
    let row = folded(t, MAT, block);
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

/// The last tile's words, at the four decimals they quote, for tiles of `block` keys: ℓ′
/// is the ℓ of one tile over the whole row, and the maximum rose (a correction below 1)
/// or stayed (a correction of 1).
fn last_tile_claims(t: &Trace, block: usize) -> Vec<Claim> {
    let row = folded(t, MAT, block);
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

/// A tile's query rows and key columns, each `[start, end)`.
type Span2 = ([usize; 2], [usize; 2]);

/// The tiles of `block` that a causal mask blocks entirely (sentence 1): a kernel skips
/// them. How many, of how many, and the first one's query rows and key columns.
fn blocked_tiles(t: &Trace, block: usize) -> (usize, usize, Option<Span2>) {
    let [_, t_q, t_k] = t.mask.shape;
    let (mut skipped, mut all, mut first) = (0, 0, None);
    for q0 in (0..t_q).step_by(block.max(1)) {
        for k0 in (0..t_k).step_by(block.max(1)) {
            all += 1;
            let (q, k) = ([q0, (q0 + block).min(t_q)], [k0, (k0 + block).min(t_k)]);
            let every = (q[0]..q[1]).all(|i| (k[0]..k[1]).all(|j| t.mask.is_blocked(0, i, j)));
            skipped += usize::from(every);
            first = first.or(every.then_some((q, k)));
        }
    }
    (skipped, all, first)
}

/// Step 1's words for a tiles view of `block` keys: the whole row's m and ℓ, and what the
/// view's table lists at that block.
fn max_trick(t: &Trace, block: usize) -> String {
    let n = t.key_tokens(0).len();
    let row = folded(t, MAT, n.max(1));
    let Some(last) = row.last() else { return "This sentence has no keys.".into() };
    let table = if block >= n {
        format!(
            "Here one tile is as wide as the whole row (block = {block}), so the table lists m′ and ℓ′ of every row"
        )
    } else {
        format!(
            "With Block = {block} a tile holds {block} of the row's {n} keys, so the table lists m′ and ℓ′ after the \
             tile shown; after a row's last tile they are its m and ℓ (the next steps fold the row tile by tile)"
        )
    };
    format!(
        "A row's weights are softmax(s)_j = e^(s_j) / Σ_k e^(s_k). Computed like that, e^s \
         overflows: in the 32-bit floats models use, e^89 is already infinite. So every library \
         first subtracts the row's largest score m: e^(s_j − m) / Σ_k e^(s_k − m) is the same \
         fraction (the e^(−m) cancels above and below), and now no exponent is above 0. \"{}\"'s \
         scores in head 1 are {}; m = {} and the sum ℓ = Σ e^(s − m) = {}. {table}; the \
         scores are under \"This tile's scores as a table\".",
        token(t, 0, MAT),
        list(&scores(t, MAT)),
        f4(last.m),
        f4(last.l),
    )
}

/// Step 3's words for tiles of `block` keys: the row's first tile.
fn first_tile(t: &Trace, block: usize) -> String {
    let row = folded(t, MAT, block);
    let Some(first) = row.first() else { return "This sentence has no keys.".into() };
    let cut = format!(
        "A fast kernel (FlashAttention) never holds a whole row of scores. It cuts the score \
         matrix into tiles of block × block = {block} × {block} and folds them in one at a time."
    );
    let known = if row.len() == 1 {
        format!(
            "With Block = {block} \"{}\"'s whole row fits in one tile, {}: m′ = {} and ℓ′ = {}, the row's m and ℓ \
             of step 1. A block below {} keys cuts the row into tiles.",
            token(t, 0, MAT),
            keys_of(t, first.k),
            f4(first.m),
            f4(first.l),
            t.key_tokens(0).len(),
        )
    } else {
        format!(
            "\"{}\"'s row comes in {} tiles. After the first, {}, the kernel knows only those: \
             m′ = {} and ℓ′ = {}.",
            token(t, 0, MAT),
            row.len(),
            keys_of(t, first.k),
            f4(first.m),
            f4(first.l),
        )
    };
    format!(
        "{cut} {known} It also keeps a running output O, the values weighted by e^(s − m′) so far, and divides by ℓ \
         only at the end."
    )
}

/// Step 4's words for tiles of `block` keys: the second tile, and whether it raises the
/// maximum.
fn second_tile(t: &Trace, block: usize) -> String {
    let row = folded(t, MAT, block);
    let Some(second) = row.get(1) else {
        let Some(only) = row.first() else { return "This sentence has no keys.".into() };
        return format!(
            "With Block = {block} \"{}\"'s row is one tile, so no later tile can raise its maximum: m′ = {} from \
             the start. A block below {} keys cuts the row into tiles.",
            token(t, 0, MAT),
            f4(only.m),
            t.key_tokens(0).len(),
        );
    };
    if second.correction >= 1.0 {
        // what would show a tile that raises it: the lesson's block, or its own vectors
        let raises_at_step = folded(t, MAT, BLOCK).get(1).is_some_and(|r| r.correction < 1.0);
        let back = if block != BLOCK && raises_at_step {
            format!("With Block = {BLOCK} the second tile raises it.")
        } else {
            "Edit the scenario back (or reload the lesson) to see a tile that raises it.".to_owned()
        };
        let with = if block == BLOCK { "these numbers".to_owned() } else { format!("Block = {block}") };
        return format!(
            "With {with} the second tile, {}, does not raise \"{}\"'s maximum: the \
             correction is {} and m′ stays {}. {back}",
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
}

/// Step 5's words for tiles of `block` keys: the last tile, its ℓ′ the whole row's, and
/// the most scores a kernel holds at a time.
fn last_tile(t: &Trace, block: usize) -> String {
    let row = folded(t, MAT, block);
    let Some(last) = row.last() else { return "This sentence has no keys.".into() };
    let (t_q, n) = (t.query_tokens(0).len(), t.key_tokens(0).len());
    let what = if row.len() == 1 {
        format!("With Block = {block} the row is one tile, {}", keys_of(t, last.k))
    } else if last_raises(&row) {
        format!(
            "The last tile, {}, raises the maximum to {} (correction {})",
            keys_of(t, last.k),
            f4(last.m),
            f4(last.correction)
        )
    } else {
        format!(
            "The last tile, {}, does not raise the maximum (correction {}), so m′ stays {}",
            keys_of(t, last.k),
            f4(last.correction),
            f4(last.m)
        )
    };
    let (held, all) = (block.min(t_q) * block.min(n), t_q * n);
    let memory = if held < all {
        format!(
            "It never held more than {held} score{} of a row block at a time, against {t_q} × {n} = {all} for the \
             whole matrix: at 8 000 tokens that is what lets attention fit in a GPU's fast memory.",
            if held == 1 { "" } else { "s" }
        )
    } else {
        format!(
            "Its one tile held all {t_q} × {n} = {all} scores at once: only tiles smaller than the matrix save \
             memory, and at 8 000 tokens that is what lets attention fit in a GPU's fast memory."
        )
    };
    format!(
        "{what}: ℓ′ = {}, the same ℓ as one tile over the whole row gave. After \
         it the kernel divides, O / ℓ, and gets the context: the check under the picture compares \
         it with the full run's softmax(S)·V. {memory}",
        f4(last.l),
    )
}

/// Step 6's words for tiles of `block` keys under a causal mask: the tiles a kernel skips.
fn causal_tiles(t: &Trace, block: usize) -> String {
    let (skipped, all, first) = blocked_tiles(t, block);
    let m = folded(t, 0, block).last().map_or(f64::NAN, |r| r.m);
    let skips = match first {
        Some((q, k)) => format!(
            "With a causal mask, a tile above the diagonal holds only blocked scores, here {} against {} (rows \
             and keys count from 0). Under the -inf fill it would change nothing (every e^(−∞) is 0), so the \
             kernel skips it: {skipped} of the {all} tiles here, and nearly half of them in a long sentence, \
             which is why causal attention costs FlashAttention about half as much.",
            span("row", q),
            span("key", k),
        ),
        None => format!(
            "With a causal mask, a tile above the diagonal holds only blocked scores, and a kernel skips it: \
             under the -inf fill it would change nothing (every e^(−∞) is 0). With Block = {block} no tile here \
             lies wholly above the diagonal, so {}; with small tiles nearly half of a long sentence's are, \
             which is why causal attention costs FlashAttention about half as much.",
            if all == 1 { "its one tile is not skipped".to_owned() } else { format!("none of the {all} is skipped") }
        ),
    };
    format!(
        "{skips} \"{}\" (row 0) sees only itself: its m stays {} after every \
         tile. A row whose every key is blocked never sees a finite score, so its m stays −∞ and \
         ℓ stays 0. Dividing O / ℓ = 0 / 0 gives NaN, as plain softmax gives for that row (and this \
         engine's full run). FlashAttention-2's kernels test for ℓ = 0 and write zeros instead, as \
         PyTorch's F.scaled_dot_product_attention does (the masks lesson).",
        token(t, 0, 0),
        f4(m),
    )
}

/// The lesson.
pub fn lesson() -> Lesson {
    let tile = |key: usize| Extra::Tiles { block: BLOCK, tile: tile_index(BLOCK, t_k(), MAT, key) };
    let no_claims = |t: &Trace, _: usize| -> Vec<Claim> { sentence_claims(t) };
    Lesson {
        id: "online-softmax",
        title: "Online softmax",
        seeds: "FlashAttention's online softmax",
        steps: vec![
            LessonStep::new("The max trick, one row by hand", scenario(false), S::Masked, |t| max_trick(t, t_k()))
                .extra(Extra::Tiles { block: t_k(), tile: 0 })
                .claims(sentence_claims)
                .at_block(max_trick, no_claims),
            LessonStep::new(
                "Predict: a whole row moved up",
                scenario(false),
                S::Masked,
                |_| "Choose an answer to see why.".into(),
            )
            .extra(Extra::Tiles { block: t_k(), tile: 0 })
            .claims(sentence_claims)
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
            tile_step("The same row, two keys at a time", |t| first_tile(t, BLOCK))
                .extra(tile(0))
                .claims(sentence_claims)
                .at_block(first_tile, no_claims),
            tile_step("A later tile, and the maximum", |t| second_tile(t, BLOCK))
                .extra(tile(2))
                .claims(|t| with_sentence(t, second_tile_claims(t, BLOCK)))
                .at_block(second_tile, |t, b| with_sentence(t, second_tile_claims(t, b))),
            tile_step("The last tile, and the softmax", |t| last_tile(t, BLOCK))
                .claims_each_case(|t| with_sentence(t, last_tile_claims(t, BLOCK)))
                .extra(tile(4))
                .at_block(last_tile, |t, b| with_sentence(t, last_tile_claims(t, b))),
            LessonStep::new("Tiles a causal mask skips", scenario(true), S::Masked, |t| causal_tiles(t, BLOCK))
                .extra(Extra::Tiles { block: BLOCK, tile: tile_index(BLOCK, t_k(), 0, 2) })
                .claims(sentence_claims)
                .at_block(causal_tiles, no_claims),
        ],
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{run, tiled};
    use crate::lessons::claims::STORY_CHANGED;

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
        assert_eq!(blocked_tiles(&causal, BLOCK), (3, 9, Some(([0, 2], [2, 4]))));
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
        // after the sentence's (six words), the tile's three
        assert_eq!(claims[..1], sentence_claims(&t)[..]);
        assert_eq!(claims.len(), 4, "{claims:?}");
        assert!(claims[1..].iter().all(|c| matches!(c, Claim::EqualAt(_, _, 4) | Claim::GreaterAt(_, _, 4))));
        assert!(step.claims_hold(&t));
        assert!(step.each_case);
        // the words' m and correction are the ones the claims compare
        let row = folded(&t, MAT, BLOCK);
        let words = (step.narrate)(&t);
        assert!(words.contains(&f4(row.last().unwrap().l)), "{words}");
    }

    /// The words at any block the learner sets quote that block's tiles: each number is the
    /// engine's tiled run's ([`tiled`], not the fold the words are written from) for the
    /// row the words follow, at blocks 1, 2, 3, the row's 6 and 8 > T.
    #[test]
    fn the_words_follow_the_block_the_learner_sets() {
        let lesson = lesson();
        let t = run(&scenario(false)).unwrap();
        let causal = run(&scenario(true)).unwrap();
        for block in [1, 2, 3, 6, 8] {
            let tiles = tiled(&scenario(false), block).unwrap();
            let mine: Vec<_> = tiles
                .tiles
                .iter()
                .filter(|x| x.b == 0 && x.head == 0 && x.q[0] <= MAT && MAT < x.q[1])
                .collect();
            let r = MAT - mine[0].q[0];
            let words = |s: usize| lesson.steps[s].words_at(if s == 5 { &causal } else { &t }, Some(block));
            for s in [0, 2, 3, 4, 5] {
                assert!(!words(s).starts_with(STORY_CHANGED), "block {block}, step {}: {}", s + 1, words(s));
            }
            let (first, last) = (mine[0], mine[mine.len() - 1]);
            let step3 = words(2);
            assert!(step3.contains(&format!("block × block = {block} × {block}")), "{step3}");
            assert!(
                step3.contains(&format!("m′ = {} and ℓ′ = {}", f4(first.m[r]), f4(first.l[r]))),
                "block {block}: {step3}"
            );
            let step4 = words(3);
            match mine.get(1) {
                Some(second) if second.correction[r] < 1.0 => assert!(
                    step4.contains(&format!("m′ = {}", f4(second.m[r])))
                        && step4.contains(&format!("e^(m − m′) = {}", f4(second.correction[r])))
                        && step4.contains(&format!("= {}.", f4(second.l[r]))),
                    "block {block}: {step4}"
                ),
                Some(second) => assert!(
                    step4.contains(&format!(
                        "the correction is {} and m′ stays {}",
                        f4(1.0),
                        f4(second.m[r])
                    )),
                    "block {block}: {step4}"
                ),
                None => assert!(step4.contains("row is one tile"), "block {block}: {step4}"),
            }
            let step5 = words(4);
            assert!(step5.contains(&format!("ℓ′ = {}", f4(last.l[r]))), "block {block}: {step5}");
            let held = block.min(6) * block.min(6);
            let memory = match held {
                1 => "more than 1 score of".to_owned(),
                36 => "held all 6 × 6 = 36 scores at once".to_owned(),
                _ => format!("more than {held} scores"),
            };
            assert!(step5.contains(&memory), "block {block}: {step5}");
            // the causal step: the engine's skipped tiles
            let causal_tiles = tiled(&scenario(true), block).unwrap();
            let ours = causal_tiles.tiles.iter().filter(|x| x.b == 0 && x.head == 0);
            let (skipped, all) = (ours.clone().filter(|x| x.skipped).count(), ours.count());
            let step6 = words(5);
            if skipped > 0 {
                assert!(step6.contains(&format!("{skipped} of the {all} tiles")), "block {block}: {step6}");
            } else {
                assert_eq!(all, 1, "block {block}");
                assert!(step6.contains("its one tile is not skipped"), "block {block}: {step6}");
            }
        }
        // block 3: two tiles of three keys, the maximum ("sat") in the first, so the second
        // does not raise it, which tiles of two keys do
        let step3 = lesson.steps[2].words_at(&t, Some(3));
        assert!(
            step3.contains("comes in 2 tiles. After the first, keys 0–2 (\"the\", \"cat\" and \"sat\")"),
            "{step3}"
        );
        let step4 = lesson.steps[3].words_at(&t, Some(3));
        assert!(
            step4.starts_with(
                "With Block = 3 the second tile, keys 3–5 (\"on\", \"the\" and \"mat\"), does not raise"
            ) && step4.ends_with("With Block = 2 the second tile raises it."),
            "{step4}"
        );
        assert!(lesson.steps[5].words_at(&causal, Some(3)).contains("here rows 0–2 against keys 3–5"));
        // block 1: a tile per key
        let step3 = lesson.steps[2].words_at(&t, Some(1));
        assert!(step3.contains("comes in 6 tiles. After the first, key 0 (\"the\")"), "{step3}");
        assert!(lesson.steps[5].words_at(&causal, Some(1)).contains("here row 0 against key 1"));
        // a block as wide as the row or wider: one tile
        for block in [6, 8] {
            assert!(lesson.steps[2].words_at(&t, Some(block)).contains("whole row fits in one tile"));
            assert!(lesson.steps[3]
                .words_at(&t, Some(block))
                .contains("no later tile can raise its maximum"));
            assert!(lesson.steps[4].words_at(&t, Some(block)).contains("the row is one tile, keys 0–5"));
        }
    }

    /// At the step's own block the words and claims are the step's own; with no block set
    /// by the learner the words are [`LessonStep::words`].
    #[test]
    fn at_the_steps_block_the_words_are_the_steps() {
        let lesson = lesson();
        let mut with = 0;
        for (i, step) in lesson.steps.iter().enumerate() {
            let t = lesson.trace(i);
            assert_eq!(step.words_at(&t, None), step.words(&t));
            let Some(at) = step.at_block else { continue };
            let Extra::Tiles { block, .. } = step.extra else { panic!("step {} has no tiles", i + 1) };
            with += 1;
            assert_eq!((at.narrate)(&t, block), (step.narrate)(&t), "step {}", i + 1);
            assert_eq!((at.claims)(&t, block), (step.claims)(&t), "step {}", i + 1);
            assert_eq!(step.words_at(&t, Some(block)), step.words(&t));
        }
        assert_eq!(with, 5, "every step but the question");
    }
}
