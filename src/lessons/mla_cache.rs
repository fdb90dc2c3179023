//! The multi-head latent attention lesson's cache sizes: DeepSeek-V3's per-token cache
//! under MHA, GQA, MQA and MLA ([`mla::cache_bytes_per_token`]), the lesson model's own,
//! and the bars of step 5's picture, each with its share of its group's largest in words.

use super::mla::sizes;
use crate::engine::mla::{self, CacheKind, Mla};
use crate::engine::Trace;
use crate::format::group_digits;

/// The DeepSeek-V3 layer the cache table sizes: 61 layers, 128 heads of d_k = 128 + 64
/// and d_v = 128, r_kv = 512, bf16 (2 bytes a number).
const V3_LAYERS: u64 = 61;
const V3_HEADS: u64 = 128;
const BF16: u64 = 2;

/// One row of the cache table: what is cached, and its bytes per token in DeepSeek-V3's
/// sizes, as [`mla::cache_bytes_per_token`] computes them.
pub fn deepseek_v3_cache() -> Vec<(&'static str, CacheKind, u64)> {
    let heads = |kv_heads| CacheKind::Heads { kv_heads, d_k: 192, d_v: 128 };
    [
        ("MHA, 128 heads", heads(V3_HEADS)),
        ("GQA, 8 K/V heads", heads(8)),
        ("MQA, 1 K/V head", heads(1)),
        ("MLA, 512 + 64", CacheKind::Latent { kv_lora_rank: 512, d_rope: 64 }),
    ]
    .into_iter()
    .map(|(what, kind)| (what, kind, mla::cache_bytes_per_token(kind, V3_LAYERS, BF16)))
    .collect()
}

/// Numbers one token caches in one layer (bytes at one byte a number, one layer).
pub(super) fn numbers_per_token(kind: CacheKind) -> u64 {
    mla::cache_bytes_per_token(kind, 1, 1)
}

/// The lesson model's own cache per token: MHA's `h·(d_k + d_v)` against MLA's
/// `r_kv + d_rope`.
pub(super) fn own_cache(m: &Mla, heads: usize) -> (u64, u64) {
    let mha = CacheKind::Heads { kv_heads: heads as u64, d_k: m.d_k() as u64, d_v: m.v_head_dim as u64 };
    let latent = CacheKind::Latent { kv_lora_rank: m.kv_lora_rank as u64, d_rope: m.qk_rope_head_dim as u64 };
    (numbers_per_token(mha), numbers_per_token(latent))
}

/// One bar of the cache picture: what is cached, its numbers per token and layer, its
/// bytes over a whole model (`None` for this page's one-layer model), and its length as a
/// share of the longest bar of its group.
#[derive(Debug, Clone, PartialEq)]
pub struct CacheBar {
    /// What is cached ("MHA, 128 heads").
    pub what: String,
    /// Numbers per token and layer.
    pub numbers: u64,
    /// Bytes per token over every layer, in bf16.
    pub bytes: Option<u64>,
    /// `numbers` over the group's largest, in (0, 1].
    pub share: f64,
    /// The share in words, written beside the bar so that a bar too short to read still
    /// says its size: "the largest", or "1.4% of MHA" (two significant digits, rounded
    /// half away from zero).
    pub share_words: String,
}

/// `numbers` as a percentage of the group's `most` with two significant digits, rounded
/// half away from zero in exact integer arithmetic ("6.3% of MHA" for 6.25%, "1.4% of
/// MHA", "38% of MHA" for 37.5%), or "the largest" for the largest itself. A share that
/// would round to 100% gets more digits, so that it never reads as the largest.
fn share_words(numbers: u64, most: u64, largest: &str) -> String {
    if numbers >= most {
        return "the largest".to_owned();
    }
    let (n, most) = (u128::from(numbers), u128::from(most.max(1)));
    // significant digits: percent ≥ 10 has no decimals, ≥ 1 one, below that two
    let mut decimals = if 100 * n >= 10 * most {
        0
    } else if 100 * n >= most {
        1
    } else {
        2
    };
    loop {
        let scale = 10u128.pow(decimals);
        // round(100·n·scale / most), half away from zero
        let scaled = (2 * 100 * n * scale + most) / (2 * most);
        if scaled < 100 * scale || decimals >= 6 {
            let (whole, part) = (scaled / scale, scaled % scale);
            let text = if decimals == 0 {
                whole.to_string()
            } else {
                format!("{whole}.{part:0width$}", width = decimals as usize)
            };
            return format!("{text}% of {largest}");
        }
        decimals += 1;
    }
}

/// Step 5's picture: a token's cache at DeepSeek-V3's sizes (MHA, GQA, MQA, MLA), then
/// this page's model (MHA against MLA), each group's bars scaled to its largest.
pub fn cache_bars(t: &Trace) -> [Vec<CacheBar>; 2] {
    let scaled = |rows: Vec<(String, u64, Option<u64>)>| {
        let most = rows.iter().map(|r| r.1).max().unwrap_or(1).max(1);
        // the largest's short name: "MHA" of "MHA, 128 heads"
        let largest = rows
            .iter()
            .max_by_key(|r| r.1)
            .map(|r| r.0.split(',').next().unwrap_or_default().to_owned())
            .unwrap_or_default();
        rows.into_iter()
            .map(|(what, numbers, bytes)| {
                let share = numbers as f64 / most as f64;
                CacheBar { what, numbers, bytes, share, share_words: share_words(numbers, most, &largest) }
            })
            .collect()
    };
    let v3 = deepseek_v3_cache()
        .into_iter()
        .map(|(what, kind, bytes)| (what.to_string(), numbers_per_token(kind), Some(bytes)))
        .collect();
    let (mha, latent) = own_cache(&sizes(t), t.sizes.n_heads);
    let here = vec![
        (format!("MHA, {} heads", t.sizes.n_heads), mha, None),
        (format!("MLA, {} + {}", sizes(t).kv_lora_rank, sizes(t).qk_rope_head_dim), latent, None),
    ];
    [scaled(v3), scaled(here)]
}

/// The bytes of cache row `i` (MHA, GQA, MQA, MLA), as the table prints them.
pub(super) fn v3_bytes(i: usize) -> String {
    deepseek_v3_cache().get(i).map(|(_, _, b)| group_digits(*b)).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::share_words;

    /// Two significant digits, half away from zero, exactly: 6.25% is 6.3%, not float
    /// formatting's 6.2%; 37.5% is 38%; 0.78125% is 0.78%; 99.96% is not 100%.
    #[test]
    fn shares_round_half_away_from_zero() {
        let w = |n, most| share_words(n, most, "MHA");
        assert_eq!(w(8, 128), "6.3% of MHA");
        assert_eq!(w(6, 16), "38% of MHA");
        assert_eq!(w(1, 128), "0.78% of MHA");
        assert_eq!(w(576, 40_960), "1.4% of MHA");
        assert_eq!(w(1, 8), "13% of MHA");
        assert_eq!(w(1, 40), "2.5% of MHA");
        assert_eq!(w(1, 400), "0.25% of MHA");
        assert_eq!(w(1, 800), "0.13% of MHA");
        assert_eq!(w(9_996, 10_000), "99.96% of MHA");
        assert_eq!(w(16, 16), "the largest");
    }
}
