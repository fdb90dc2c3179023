//! The decode view's pure parts: which cache rows and positions to draw and how, the
//! check of a decoded output row against the full run's, and the cache's bytes (this
//! scenario's, and a calculator for published models). Plain Rust, tested natively. The
//! numbers come from [`crate::engine::decode`]; nothing here computes attention.

use crate::engine::decode::cache_bytes;
use crate::engine::mla::{cache_bytes_per_token, CacheKind};
use crate::engine::tokenize::tokenize;
use crate::engine::{DecodeStep, Decoded, Scenario, StepName, Trace};
pub use crate::format::group_digits;

/// The largest absolute difference between two lists of numbers of the same length:
/// `None` when the lengths differ. Two NaNs, or two equal infinities, differ by 0; a NaN
/// against a number (or two different infinities) by infinity.
pub fn largest_difference(a: &[f64], b: &[f64]) -> Option<f64> {
    if a.len() != b.len() {
        return None;
    }
    Some(a.iter().zip(b).fold(0.0_f64, |worst, (&x, &y)| {
        let d = if (x.is_nan() && y.is_nan()) || x == y {
            0.0
        } else if x.is_nan() || y.is_nan() {
            f64::INFINITY
        } else {
            (x - y).abs()
        };
        worst.max(d)
    }))
}

/// Row `t` of the full run's `output` for sentence `b`, `None` if the trace has none.
pub fn full_output_row(full: &Trace, b: usize, t: usize) -> Option<Vec<f64>> {
    let m = full.step(StepName::Output)?.matrix(b, 0)?;
    (t < m.nrows()).then(|| m.row(t).to_vec())
}

/// The decoded output row of sentence `b` at this position, `(d_model)`.
pub fn decoded_output_row(step: &DecodeStep, b: usize) -> Option<Vec<f64>> {
    let per_sentence = step.output.outer_iter().nth(b)?; // (1, d_model)
    per_sentence.outer_iter().next().map(|row| row.to_vec())
}

/// "Equals row t of the full run": the largest absolute difference between the decoded
/// output row and the full run's row `t` (sentence `b`), `None` if either is missing.
pub fn output_check(step: &DecodeStep, full: &Trace, b: usize) -> Option<f64> {
    largest_difference(&decoded_output_row(step, b)?, &full_output_row(full, b, step.t)?)
}

/// The weights `(L)` of one query head's row over the cached keys, sentence `b`.
pub fn weight_row(step: &DecodeStep, b: usize, head: usize) -> Vec<f64> {
    step.weights
        .outer_iter()
        .nth(b)
        .and_then(|s| s.outer_iter().nth(head).map(|h| h.iter().copied().collect()))
        .unwrap_or_default()
}

/// Row `l` of one K/V head's cache of sentence `b` (`k_cache` or `v_cache`, or under MLA
/// the latents or RoPE keys as one shared head), its first `cols` numbers; `None` past
/// the cache's ends.
pub fn cache_row(
    cache: ndarray::ArrayView4<f64>,
    b: usize,
    kv_head: usize,
    l: usize,
    cols: usize,
) -> Option<Vec<f64>> {
    let (batch, heads, len, d_k) = cache.dim();
    if b >= batch || kv_head >= heads || l >= len {
        return None;
    }
    Some((0..cols.min(d_k)).map(|c| cache[[b, kv_head, l, c]]).collect())
}

/// How many key positions a decoding has: every position's (self-attention), or the
/// fixed cache's (cross-attention, the same at every position).
pub fn key_count(d: &Decoded) -> usize {
    if d.cross {
        d.positions.first().map_or(0, |p| p.cache_positions.len())
    } else {
        d.positions.len()
    }
}

/// The keys whose weights the table lists: all of them up to `max`, else the `max`
/// largest (ties and NaN by position), in position order.
pub fn listed_keys(weights: &[f64], max: usize) -> Vec<usize> {
    if weights.len() <= max {
        return (0..weights.len()).collect();
    }
    let mut order: Vec<usize> = (0..weights.len()).collect();
    let key = |i: &usize| weights.get(*i).copied().filter(|w| !w.is_nan()).unwrap_or(f64::NEG_INFINITY);
    order.sort_by(|a, b| key(b).total_cmp(&key(a)).then(a.cmp(b)));
    order.truncate(max);
    order.sort_unstable();
    order
}

/// The rows of a cache of `len` rows that the tables list: its first `kept` rows (the kept
/// first keys, which never leave) and the newest, `max` in all (more when `kept` alone
/// is more).
pub fn listed_rows(len: usize, max: usize, kept: usize) -> Vec<usize> {
    let kept = kept.min(len);
    let newest = len.saturating_sub(max.saturating_sub(kept)).max(kept);
    (0..kept).chain(newest..len).collect()
}

/// What a position is to the cache at one step of the decoding.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Slot {
    /// Not generated yet.
    Future,
    /// In the cache from an earlier step.
    Cached,
    /// One of the first keys kept beside the window (StreamingLLM): in the cache for good.
    Kept,
    /// Appended at this step.
    New,
    /// Left the rolling buffer at this step (a sliding window).
    Evicted,
    /// Left the buffer at an earlier step.
    Gone,
}

impl Slot {
    /// The CSS class suffix and the word for it.
    pub fn name(self) -> &'static str {
        match self {
            Slot::Future => "future",
            Slot::Cached => "cached",
            Slot::Kept => "kept",
            Slot::New => "new",
            Slot::Evicted => "evicted",
            Slot::Gone => "gone",
        }
    }
}

/// The state of each of `n` key positions at this step: the cache's positions (the kept
/// first keys among them), the one appended (none in cross-attention, where the cache is
/// fixed), the one that left.
pub fn slots(step: &DecodeStep, n: usize, cross: bool) -> Vec<Slot> {
    let kept = &step.cache_positions[..step.kept.min(step.cache_positions.len())];
    (0..n)
        .map(|j| {
            if step.evicted == Some(j) {
                Slot::Evicted
            } else if step.cache_positions.contains(&j) {
                if j == step.t && !cross {
                    Slot::New
                } else if kept.contains(&j) {
                    Slot::Kept
                } else {
                    Slot::Cached
                }
            } else if j < step.t && !cross {
                Slot::Gone
            } else {
                Slot::Future
            }
        })
        .collect()
}

/// A difference as the checks print it: `0`, or two significant digits (`5.6e-17`).
pub fn format_difference(d: f64) -> String {
    if d == 0.0 {
        "0".to_owned()
    } else if d.is_finite() {
        format!("{d:.1e}")
    } else {
        crate::format::short(d)
    }
}

/// The most tokens the cache calculator takes (ten million: past every published context).
pub const MAX_TOKENS: u64 = 10_000_000;

/// The calculator's tokens field read as a number of tokens, or why it cannot be: a whole
/// number from 1 to [`MAX_TOKENS`]. Nothing is rounded or clamped in silence.
pub fn parse_tokens(text: &str) -> Result<u64, String> {
    let why = || format!("Type a whole number of tokens from 1 to {}.", group_digits(MAX_TOKENS));
    match text.trim().parse::<u64>() {
        Ok(n) if (1..=MAX_TOKENS).contains(&n) => Ok(n),
        _ => Err(why()),
    }
}

/// A token's label: `"3 bat"`, position then token (`?` past the end of `tokens`).
pub fn token_label(tokens: &[String], j: usize) -> String {
    format!("{j} {}", tokens.get(j).map_or("?", String::as_str))
}

/// Bytes in binary units, as memory is sold: `960 B`, `128 KiB`, `1.5 MiB`, `1 GiB`
/// (at most two decimals, trailing zeros trimmed, and "about" when that rounded).
pub fn format_bytes(n: u64) -> String {
    const UNITS: [&str; 5] = ["KiB", "MiB", "GiB", "TiB", "PiB"];
    if n < 1024 {
        return format!("{n} B");
    }
    let mut value = n as f64 / 1024.0;
    let mut unit = 0;
    // the next unit once two decimals would round up to 1024 (1,048,575 B is 1 MiB, not 1024 KiB)
    while (value * 100.0).round() / 100.0 >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    let text = format!("{value:.2}");
    let text = text.trim_end_matches('0').trim_end_matches('.');
    let exact = text.parse::<f64>().is_ok_and(|shown| shown == value);
    format!("{}{text} {}", if exact { "" } else { "about " }, UNITS.get(unit).copied().unwrap_or("PiB"))
}

/// This scenario's cache at one step: `B` sentences × `rows` rows × `h_kv` heads ×
/// `d_k` numbers, keys and values, one layer, f64 (8 bytes).
pub fn scenario_cache_bytes(batch: usize, kv_heads: usize, d_k: usize, rows: usize) -> u64 {
    batch as u64 * cache_bytes(1, kv_heads as u64, d_k as u64, 8, rows as u64)
}

/// This scenario's cache at one step under multi-head latent attention: `B` sentences ×
/// `rows` rows × `r_kv + d_rope` numbers (the latent and the shared RoPE key), one layer,
/// f64.
pub fn latent_cache_bytes(batch: usize, r_kv: usize, d_rope: usize, rows: usize) -> u64 {
    let kind = CacheKind::Latent { kv_lora_rank: r_kv as u64, d_rope: d_rope as u64 };
    (batch * rows) as u64 * cache_bytes_per_token(kind, 1, 8)
}

/// The most bytes of caches the page keeps for a decoded scenario: the engine keeps
/// every position's cache (K and V, B × h_kv × L × d_k each), so a long batch of wide
/// sentences would need gigabytes.
pub const MAX_DECODE_BYTES: u64 = 256 << 20;

/// The bytes of every position's key and value cache that [`crate::engine::decode`]
/// keeps for a scenario (each position holds its own copy): the longest sentence's
/// positions, `min(t + 1, W)` rows each (the key sentences' `T_k` in cross-attention).
pub fn decode_footprint(s: &Scenario) -> u64 {
    let longest =
        |sentences: &[String]| sentences.iter().map(|x| tokenize(x).len()).max().unwrap_or(0) as u64;
    let t_q = longest(&s.sentences);
    // under MLA every position also keeps each head's keys and values (d_k + d_v wide,
    // counted as two d_k-wide halves) beside its latents
    let d_k = match &s.mla {
        Some(m) => (m.d_k() + m.v_head_dim + m.kv_lora_rank + m.qk_rope_head_dim).div_ceil(2) as u64,
        None => (s.d_model / s.n_heads.max(1)) as u64,
    };
    let h_kv = s.n_kv_heads.unwrap_or(s.n_heads) as u64;
    let rows: u64 = match &s.kv_sentences {
        Some(kv) => t_q * longest(kv),
        None => (0..t_q).map(|t| s.mask.window.map_or(t + 1, |w| (t + 1).min(w as u64))).sum(),
    };
    (s.sentences.len() as u64).saturating_mul(cache_bytes(1, h_kv, d_k, 8, rows))
}

/// A published model's attention, as far as its cache is concerned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ModelConfig {
    /// Its name.
    pub name: &'static str,
    /// Transformer layers (each keeps its own cache).
    pub layers: u64,
    /// Key/value heads per layer.
    pub kv_heads: u64,
    /// Width of one head.
    pub d_k: u64,
    /// A sliding window: the cache never holds more tokens.
    pub window: Option<u64>,
    /// The context it was trained for, in tokens.
    pub context: u64,
}

impl ModelConfig {
    /// The cache's bytes for one sequence of `tokens` tokens, `bytes` per number: a
    /// window caps the tokens kept.
    pub fn cache_bytes(&self, tokens: u64, bytes: u64) -> u64 {
        let kept = self.window.map_or(tokens, |w| tokens.min(w));
        cache_bytes(self.layers, self.kv_heads, self.d_k, bytes, kept)
    }

    /// The calculator's sentence for `tokens` tokens in the number format `(name, bytes)`:
    /// the product written out, and what the window or the context says of that length.
    pub fn cache_words(&self, tokens: u64, (dtype, bytes): (&str, u64)) -> String {
        let kept = self.window.map_or(tokens, |w| tokens.min(w));
        let total = self.cache_bytes(tokens, bytes);
        let window = self
            .window
            .filter(|&w| tokens > w)
            .map(|w| format!(" The sliding window keeps only the last {} tokens.", group_digits(w)))
            .unwrap_or_default();
        let context = if tokens > self.context {
            format!(
                " That is past the {}-token context {} was trained for: it would not read so long a text well.",
                group_digits(self.context),
                self.name
            )
        } else {
            String::new()
        };
        format!(
            "{} at {} {} in {dtype}: 2 (K and V) × {} layers × {} K/V heads × d_k {} × {bytes} bytes × {} tokens = {} bytes = {} per sequence.{window}{context}",
            self.name,
            group_digits(tokens),
            if tokens == 1 { "token" } else { "tokens" },
            self.layers,
            self.kv_heads,
            self.d_k,
            group_digits(kept),
            group_digits(total),
            format_bytes(total)
        )
    }
}

/// Published configurations (their `config.json`: `num_hidden_layers`,
/// `num_key_value_heads`, `hidden_size / num_attention_heads`, `sliding_window`; the
/// context is the papers' training length: Llama 3's 8,192, Mistral 7B's `context_len`
/// 8,192, Llama 2's 4,096).
pub const MODELS: [ModelConfig; 3] = [
    ModelConfig { name: "Llama 3 8B", layers: 32, kv_heads: 8, d_k: 128, window: None, context: 8192 },
    ModelConfig {
        name: "Mistral 7B (v0.1)",
        layers: 32,
        kv_heads: 8,
        d_k: 128,
        window: Some(4096),
        context: 8192,
    },
    ModelConfig { name: "Llama 2 7B", layers: 32, kv_heads: 32, d_k: 128, window: None, context: 4096 },
];

/// The number formats of the calculator: name and bytes per number.
pub const DTYPES: [(&str, u64); 3] = [("bf16", 2), ("f32", 4), ("f64", 8)];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{decode, run};

    fn scenario(extra: &str) -> Scenario {
        Scenario::from_json(&format!(
            r#"{{"sentences": ["the cat sat on the mat", "a dog ran"], "d_model": 6, "n_heads": 2,
                "projections": "seeded", "seed": 3,
                "mask": {{"causal": true, "padding": "keys", "fill": "neg_inf"{extra}}}}}"#
        ))
        .unwrap()
    }

    #[test]
    fn differences_treat_nan_and_infinity_as_numbers_that_match() {
        assert_eq!(largest_difference(&[1.0, 2.0], &[1.0, 2.5]), Some(0.5));
        assert_eq!(
            largest_difference(&[f64::NAN, f64::NEG_INFINITY], &[f64::NAN, f64::NEG_INFINITY]),
            Some(0.0)
        );
        assert_eq!(largest_difference(&[f64::NAN], &[0.0]), Some(f64::INFINITY));
        assert_eq!(largest_difference(&[1.0], &[1.0, 2.0]), None);
        assert_eq!(largest_difference(&[], &[]), Some(0.0));
    }

    #[test]
    fn every_decoded_row_is_the_full_runs_row() {
        for extra in ["", r#", "window": 2"#] {
            let s = scenario(extra);
            let (full, decoded) = (run(&s).unwrap(), decode(&s).unwrap());
            assert_eq!(decoded.positions.len(), 6);
            for p in &decoded.positions {
                for b in 0..2 {
                    let d = output_check(p, &full, b).unwrap();
                    // "a dog ran <pad> …": its <pad> queries still see their keys under
                    // padding = keys, so every row is a number
                    assert!(d <= 1e-12, "t = {}, b = {b}: {d}", p.t);
                }
            }
            // a sentence or position that does not exist is no check, never a panic
            let last = decoded.positions.last().unwrap();
            assert_eq!(output_check(last, &full, 5), None);
            assert!(weight_row(last, 5, 0).is_empty() && weight_row(last, 0, 9).is_empty());
            assert_eq!(cache_row(last.k_cache.view(), 0, 9, 0, 8), None);
            assert_eq!(cache_row(last.k_cache.view(), 5, 0, 0, 8), None);
            assert_eq!(cache_row(last.k_cache.view(), 0, 0, 99, 8), None);
        }
    }

    #[test]
    fn the_window_keeps_w_rows_and_marks_the_one_that_leaves() {
        let decoded = decode(&scenario(r#", "window": 2"#)).unwrap();
        let p = &decoded.positions[3];
        assert_eq!(p.cache_positions, [2, 3]);
        assert_eq!(p.k_cache.shape()[2], 2);
        // the row of position 3 is the cache's newest, its numbers the first `cols`
        let row = cache_row(p.k_cache.view(), 0, 1, 1, 3).unwrap();
        assert_eq!(row.len(), 3.min(p.k_cache.shape()[3]));
        assert_eq!(row[0], p.k_cache[[0, 1, 1, 0]]);
        assert_eq!(cache_row(p.k_cache.view(), 0, 1, 2, 3), None);
        use Slot::*;
        assert_eq!(slots(p, 6, false), [Gone, Evicted, Cached, New, Future, Future]);
        // without a window nothing leaves
        let decoded = decode(&scenario("")).unwrap();
        assert_eq!(slots(&decoded.positions[1], 4, false), [Cached, New, Future, Future]);
        // self-attention: a key per position; cross-attention: the fixed cache's keys
        assert_eq!(key_count(&decoded), 6);
        let cross = Scenario::from_json(
            r#"{"sentences": ["a b"], "kv_sentences": ["x y z w"], "d_model": 4, "n_heads": 2, "mask": {"causal": true}}"#,
        )
        .unwrap();
        let cross = decode(&cross).unwrap();
        assert_eq!((cross.positions.len(), key_count(&cross)), (2, 4));
        assert_eq!(listed_rows(10, 4, 0), [6, 7, 8, 9]);
        // kept first rows are always listed, beside the newest
        assert_eq!(listed_rows(10, 4, 2), [0, 1, 8, 9]);
        assert_eq!(listed_rows(3, 4, 2), [0, 1, 2]);
        assert_eq!(listed_rows(10, 4, 6), [0, 1, 2, 3, 4, 5]);
        assert_eq!(listed_keys(&[0.1, 0.5, 0.05, 0.35], 4), [0, 1, 2, 3]);
        assert_eq!(listed_keys(&[0.1, 0.5, 0.05, 0.35], 2), [1, 3]);
        assert_eq!(listed_keys(&[f64::NAN, 0.2, 0.2], 2), [1, 2]);
        assert_eq!(listed_rows(3, 4, 0), [0, 1, 2]);
    }

    /// StreamingLLM: a window of 2 with the first key kept. At t = 4 the cache is keys 0, 3
    /// and 4: key 0 kept, 2 left now, 1 earlier.
    #[test]
    fn kept_first_keys_are_marked_kept_and_never_leave() {
        let decoded = decode(&scenario(r#", "window": 2, "keep_first": 1"#)).unwrap();
        let p = &decoded.positions[4];
        assert_eq!((p.cache_positions.as_slice(), p.kept, p.evicted), (&[0, 3, 4][..], 1, Some(2)));
        use Slot::*;
        assert_eq!(slots(p, 6, false), [Kept, Gone, Evicted, Cached, New, Future]);
        // at t = 0 the kept key is the one appended: new
        assert_eq!(slots(&decoded.positions[0], 3, false), [New, Future, Future]);
    }

    #[test]
    fn bytes_read_as_memory_is_sold() {
        assert_eq!(format_bytes(960), "960 B");
        assert_eq!(format_bytes(128 * 1024), "128 KiB");
        assert_eq!(format_bytes(1536 * 1024), "1.5 MiB");
        assert_eq!(format_bytes(1 << 30), "1 GiB");
        assert_eq!(format_bytes((1 << 20) - 1), "about 1 MiB");
        assert_eq!(format_bytes(1_000_000), "about 976.56 KiB");
        assert_eq!(parse_tokens(" 8192 "), Ok(8192));
        for bad in ["", "0", "-3", "2.5", "1e3", "10000001", "many"] {
            assert!(parse_tokens(bad).is_err(), "{bad:?} must be refused, not rounded or clamped");
        }
        assert_eq!(group_digits(1 << 30), "1,073,741,824");
        assert_eq!(group_digits(999), "999");
        assert_eq!(group_digits(1000), "1,000");
        assert_eq!(format_difference(0.0), "0");
        assert_eq!(format_difference(5.551115123125783e-17), "5.6e-17");
        assert_eq!(format_difference(f64::INFINITY), "inf");
    }

    #[test]
    fn published_models_need_what_their_papers_say() {
        let [llama3, mistral, llama2] = MODELS;
        // 2 · 32 layers · 8 K/V heads · 128 · 2 bytes · 8192 tokens = 1 GiB
        assert_eq!(llama3.cache_bytes(8192, 2), 1 << 30);
        // the same heads as Llama 3 8B, but the window stops the cache at 4096 tokens
        assert_eq!(mistral.cache_bytes(8192, 2), 1 << 29);
        assert_eq!(mistral.cache_bytes(32_768, 2), 1 << 29);
        // 32 K/V heads (no GQA): four times Llama 3 8B's
        assert_eq!(llama2.cache_bytes(4096, 2), 2 << 30);
        assert!(llama3.cache_words(1, DTYPES[0]).starts_with("Llama 3 8B at 1 token in bf16"));
        // within the context nothing is added; past it, the words say so
        assert!(!llama3.cache_words(8192, DTYPES[0]).contains("past"));
        let past = llama2.cache_words(8192, DTYPES[0]);
        assert!(
            past.starts_with("Llama 2 7B at 8,192 tokens in bf16: 2 (K and V) × 32 layers × 32 K/V heads"),
            "{past}"
        );
        assert!(past.ends_with("past the 4,096-token context Llama 2 7B was trained for: it would not read so long a text well."), "{past}");
        assert!(mistral
            .cache_words(32_768, DTYPES[0])
            .contains("keeps only the last 4,096 tokens. That is past the 8,192-token context"));
        // this scenario's own cache: B = 2, h_kv = 2, d_k = 3, 4 rows, f64
        assert_eq!(scenario_cache_bytes(2, 2, 3, 4), 2 * 2 * 2 * 3 * 4 * 8);
        // under MLA: B = 2 × 6 rows × (r_kv 3 + d_rope 2) numbers × 8 bytes
        assert_eq!(latent_cache_bytes(2, 3, 2, 6), 480);
    }

    #[test]
    fn the_footprint_counts_every_positions_cache() {
        // 6 positions hold 1 + 2 + … + 6 = 21 rows; B = 2, h_kv = 2, d_k = 3, K and V, f64
        assert_eq!(decode_footprint(&scenario("")), 2 * 21 * 2 * 3 * 2 * 8);
        // a window of 2: 1 + 2 + 2 + 2 + 2 + 2 = 11 rows
        assert_eq!(decode_footprint(&scenario(r#", "window": 2"#)), 2 * 11 * 2 * 3 * 2 * 8);
        let d = decode(&scenario("")).unwrap();
        let kept: usize = d.positions.iter().map(|p| p.k_cache.len() + p.v_cache.len()).sum();
        assert_eq!(decode_footprint(&scenario("")), kept as u64 * 8);
        // the page's largest batch: 16 sentences of 128 tokens at d_model = 512 is too much
        let mut big = scenario("");
        big.sentences = vec!["w ".repeat(128); 16];
        big.d_model = 512;
        big.n_heads = 8;
        assert!(decode_footprint(&big) > MAX_DECODE_BYTES);
        big.sentences.truncate(1);
        assert!(decode_footprint(&big) < MAX_DECODE_BYTES);
    }

    #[test]
    fn labels_never_panic() {
        let tokens = vec!["the".to_owned(), "cat".to_owned()];
        assert_eq!(token_label(&tokens, 1), "1 cat");
        assert_eq!(token_label(&tokens, 7), "7 ?");
    }
}
