//! The numbers a step's picture shows and the numbers its words quote, formatted as the
//! page formats them, so the tests can hold every number the words quote to the picture.

use crate::engine::{Scenario, StepName, Trace};

use super::{at, num, shapes, Extra, LessonStep};

/// The numbers the decode view shows at position `t` of sentence `batch`: every head's
/// weights (four decimals), the output row and the cache rows (two).
fn decode_numbers(scenario: &Scenario, batch: usize, t: usize) -> Vec<String> {
    let Ok(d) = crate::engine::decode(scenario) else { return Vec::new() };
    let Some(p) = d.positions.get(t) else { return Vec::new() };
    let batch = batch.min(p.weights.shape()[0].saturating_sub(1));
    let mut out: Vec<String> = Vec::new();
    out.extend(p.weights.slice(ndarray::s![batch, .., .., ..]).iter().map(|w| crate::format::fixed(*w, 4)));
    out.extend(p.output.slice(ndarray::s![batch, .., ..]).iter().map(|x| num(*x)));
    for cache in [&p.k_cache, &p.v_cache] {
        out.extend(cache.slice(ndarray::s![batch, .., .., ..]).iter().map(|x| num(*x)));
    }
    out
}

/// The numbers the tiles view shows for tile `tile` of sentence `batch`, head 1, with
/// blocks of `block`: each row's running maximum, sum and correction (four decimals) and
/// the tile's scores (two).
fn tile_numbers(scenario: &Scenario, trace: &Trace, batch: usize, block: usize, tile: usize) -> Vec<String> {
    let Ok(tiled) = crate::engine::tiled(scenario, block) else { return Vec::new() };
    let Some(tile) = tiled.tiles.iter().filter(|t| t.b == batch && t.head == 0).nth(tile) else {
        return Vec::new();
    };
    let mut out: Vec<String> = Vec::new();
    for v in [&tile.m, &tile.l, &tile.correction] {
        out.extend(v.iter().map(|x| crate::format::fixed(*x, 4)));
    }
    for i in tile.q[0]..tile.q[1] {
        for j in tile.k[0]..tile.k[1] {
            out.push(num(at(trace, StepName::Masked, batch, 0, i, j)));
        }
    }
    out
}

/// Which tile, counted as [`Extra::Tiles`] counts them, holds query `row` and key `key`
/// with blocks of `block` over `t_k` keys.
pub fn tile_index(block: usize, t_k: usize, row: usize, key: usize) -> usize {
    let block = block.max(1);
    (row / block) * t_k.div_ceil(block) + key / block
}

/// The tile, with blocks of `block`, that stands where tile `start.1` of blocks of
/// `start.0` stands: the band of query rows that holds that tile's last row, and the same
/// key tile counted from the left (the last, where the new block makes fewer). A lesson
/// step's words written for any block ([`crate::lessons::LessonStep::words_at`]) describe
/// that tile: its row's first, second or last tile.
pub fn same_place_tile(start: (usize, usize), block: usize, t_q: usize, t_k: usize) -> usize {
    let (was, tile) = (start.0.max(1), start.1);
    let was_across = t_k.div_ceil(was).max(1);
    let (row_tile, key_tile) = (tile / was_across, tile % was_across);
    let row = ((row_tile + 1) * was).min(t_q).saturating_sub(1);
    let across = t_k.div_ceil(block.max(1)).max(1);
    tile_index(block, t_k, row, 0) + key_tile.min(across - 1)
}

/// `PE · PEᵀ`, the dot product of every two positions' encodings (empty without
/// positions): what the word-order lesson's similarity heatmap shows.
pub fn position_similarity(trace: &Trace) -> Vec<Vec<f64>> {
    let Some(pe) = trace.step(StepName::Pe).and_then(|s| s.matrix(0, 0)) else { return Vec::new() };
    (0..pe.nrows()).map(|i| (0..pe.nrows()).map(|j| pe.row(i).dot(&pe.row(j))).collect()).collect()
}

/// Every number a step's picture shows for this trace, formatted as the page formats
/// it ([`num`]): every head of the focus step (or of `shown`, e.g. the step a question
/// reveals) for the step's sentence, and the numbers of its [`Extra`].
pub fn picture_numbers(
    step: &LessonStep,
    shown: StepName,
    trace: &Trace,
) -> std::collections::BTreeSet<String> {
    let batch = step.batch.min(trace.sizes.b.saturating_sub(1));
    let mut out = std::collections::BTreeSet::new();
    let mut add_step = |name: StepName| {
        if let Some(s) = trace.step(name) {
            let heads = if s.has_heads() { s.shape.get(1).copied().unwrap_or(1) } else { 1 };
            for h in 0..heads {
                if let Some(m) = s.matrix(batch, h) {
                    out.extend(m.iter().map(|v| num(*v)));
                }
            }
        }
    };
    // a picture that replaces the heatmaps shows only its own numbers
    if !step.extra.replaces_heatmaps() {
        add_step(shown);
    }
    match step.extra {
        Extra::None | Extra::MaskConventions | Extra::CausalCorners => {}
        Extra::EmbeddingPlot => {
            add_step(StepName::X);
            add_step(StepName::Output);
        }
        Extra::Decode { t } => out.extend(decode_numbers(&step.scenario, batch, t)),
        Extra::Tiles { block, tile } => out.extend(tile_numbers(&step.scenario, trace, batch, block, tile)),
        Extra::PositionSimilarity { .. } => {
            out.extend(position_similarity(trace).iter().flatten().map(|v| num(*v)))
        }
        Extra::Induction(figure) => out.extend(super::induction::figure_numbers(figure)),
        Extra::CacheBars => {
            for bar in super::mla::cache_bars(trace).into_iter().flatten() {
                out.insert(crate::format::group_digits(bar.numbers));
                out.extend(bar.bytes.map(crate::format::group_digits));
            }
        }
        Extra::SplitBothWays => {
            for h in shapes::split_both_ways(trace, batch) {
                out.extend(h.right.iter().chain(&h.wrong).flatten().map(|v| num(*v)));
            }
        }
    }
    // an aside's caption is part of the picture too (BLOOM's "+ m·i = 1.75 each")
    if let Some(aside) = (step.aside)(trace) {
        out.extend(quoted_numbers(&aside.caption));
        out.extend(aside.rows.into_iter().flat_map(|(_, cells)| cells));
    }
    out
}

/// The numbers a lesson's text quotes: every decimal written as [`num`] writes it
/// (`0.50`, `-1.23`, `0.3411`…), in order. Whole numbers (`d_k = 4`, "step 3") are sizes and
/// counts, not cells.
pub fn quoted_numbers(text: &str) -> Vec<String> {
    number_spans(text).into_iter().map(|(_, _, n)| n).collect()
}

/// `text` cut around the tokens a line must not break inside: "-inf", "−∞" and "-1e9"
/// (a line may break after a hyphen before letters, which on a phone put "-" at one
/// line's end and "inf" at the next one's start). `(piece, true)` for such a token,
/// `(piece, false)` for the text between; joined, the pieces are `text`. index.html's
/// first paint cuts the words the same way.
pub fn unbreakable(text: &str) -> Vec<(&str, bool)> {
    let mut out = Vec::new();
    let (mut at, mut i) = (0, 0);
    while let Some(c) = text[i..].chars().next() {
        match unbreakable_at(&text[i..]) {
            0 => i += c.len_utf8(),
            len => {
                if i > at {
                    out.push((&text[at..i], false));
                }
                out.push((&text[i..i + len], true));
                i += len;
                at = i;
            }
        }
    }
    if at < text.len() || out.is_empty() {
        out.push((&text[at..], false));
    }
    out
}

/// The length in bytes of the token [`unbreakable`] keeps whole at the start of `s`, 0 if
/// none: a minus ("-" or "−") and "inf" (not the start of a longer word), "∞", or a number
/// written as "1e9".
fn unbreakable_at(s: &str) -> usize {
    let Some(sign) = s.chars().next().filter(|c| matches!(c, '-' | '\u{2212}')) else { return 0 };
    let rest = &s[sign.len_utf8()..];
    let digits = |t: &str| t.bytes().take_while(u8::is_ascii_digit).count();
    let word = |c: char| c.is_alphanumeric() || c == '_';
    let len = if rest.starts_with("inf") && !rest[3..].starts_with(word) {
        3
    } else if rest.starts_with('∞') {
        '∞'.len_utf8()
    } else {
        let whole = digits(rest);
        let exponent = rest[whole..].strip_prefix('e').map_or(0, digits);
        if whole > 0 && exponent > 0 {
            whole + 1 + exponent
        } else {
            0
        }
    };
    if len == 0 {
        0
    } else {
        sign.len_utf8() + len
    }
}

/// What [`hide_numbers`] writes in place of a number.
pub const HIDDEN_NUMBER: &str = "…";

/// `text` with every number [`quoted_numbers`] reads (and its sign) replaced by
/// [`HIDDEN_NUMBER`]: the lesson's words while the learner guesses a cell's value, which
/// they would otherwise give away (the asked weight, or the rest of its row, which sums
/// to 1 with it).
pub fn hide_numbers(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for (start, end, _) in number_spans(text) {
        out.extend(&chars[at..start]);
        out.push_str(HIDDEN_NUMBER);
        at = end;
    }
    out.extend(&chars[at..]);
    out
}

/// Every decimal number of `text`: `(first char, char after it, the number as "-1.23")`,
/// the first char being the sign's when there is one.
fn number_spans(text: &str) -> Vec<(usize, usize, String)> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let starts = chars[i].is_ascii_digit()
            && (i == 0 || !(chars[i - 1].is_alphanumeric() || chars[i - 1] == '.' || chars[i - 1] == '_'));
        if !starts {
            i += 1;
            continue;
        }
        let neg = i > 0 && (chars[i - 1] == '-' || chars[i - 1] == '−');
        let mut j = i;
        while j < chars.len() && chars[j].is_ascii_digit() {
            j += 1;
        }
        let is_decimal = j + 1 < chars.len() && chars[j] == '.' && chars[j + 1].is_ascii_digit();
        // a library's version ("torch 2.15") is not a number of the picture
        let before: String = chars[i.saturating_sub(6)..i].iter().collect();
        let is_version = before.ends_with("torch ");
        if is_decimal && !is_version {
            j += 1;
            while j < chars.len() && chars[j].is_ascii_digit() {
                j += 1;
            }
            let digits: String = chars[i..j].iter().collect();
            let start = if neg { i - 1 } else { i };
            out.push((start, j, if neg { format!("-{digits}") } else { digits }));
        }
        i = j.max(i + 1);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::{same_place_tile, tile_index, unbreakable};

    /// "-inf", "−∞" and "-1e9" come out whole, nothing else is kept together, and the
    /// pieces join back to the text.
    #[test]
    fn unbreakable_keeps_minus_inf_and_big_numbers_whole() {
        let text = "e^(-inf − (-inf)) = e^NaN; -1e9 and −∞, not -info nor -1 nor −m";
        let parts = unbreakable(text);
        assert_eq!(parts.iter().map(|(p, _)| *p).collect::<String>(), text);
        let kept: Vec<&str> = parts.iter().filter(|(_, k)| *k).map(|(p, _)| *p).collect();
        assert_eq!(kept, ["-inf", "-inf", "-1e9", "−∞"]);
        assert_eq!(unbreakable("-inf"), [("-inf", true)]);
        assert_eq!(unbreakable(""), [("", false)]);
        assert_eq!(unbreakable("plain"), [("plain", false)]);
    }

    /// A block set on a lesson step keeps the tile the words describe: "mat"'s row
    /// (row 5 of 6), its first, second or last tile.
    #[test]
    fn a_new_block_keeps_the_tiles_place() {
        let (t_q, t_k) = (6, 6);
        // blocks of 2: mat's row is the third band, its tiles 6, 7 and 8
        for (key_tile, at3) in [(0, 2), (1, 3), (2, 3)] {
            let tile = tile_index(2, t_k, 5, 2 * key_tile);
            assert_eq!(same_place_tile((2, tile), 3, t_q, t_k), at3, "key tile {key_tile}");
            assert_eq!(same_place_tile((2, tile), 2, t_q, t_k), tile);
        }
        // one block of the whole row, then 3: the band of rows 3-5, the first tile
        assert_eq!(same_place_tile((6, 0), 3, t_q, t_k), 2);
        // row 0's second tile (what a causal mask skips) stays row 0's second
        assert_eq!(same_place_tile((2, 1), 3, t_q, t_k), 1);
        // a block of the whole row: one tile per band
        assert_eq!(same_place_tile((2, 7), 6, t_q, t_k), 0);
        assert_eq!(same_place_tile((2, 7), 1, t_q, t_k), tile_index(1, t_k, 5, 1));
    }
}
