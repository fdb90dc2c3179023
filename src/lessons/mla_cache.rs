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
    /// says its size: "the largest", or "1.4% of MHA" (two significant digits).
    pub share_words: String,
}

/// `share` as a percentage of `largest` with two significant digits ("1.4% of MHA",
/// "38% of MHA"), or "the largest" for the largest itself.
fn share_words(share: f64, largest: &str) -> String {
    if share >= 1.0 {
        return "the largest".to_owned();
    }
    let percent = 100.0 * share;
    let decimals = if percent >= 10.0 {
        0
    } else if percent >= 1.0 {
        1
    } else {
        2
    };
    format!("{percent:.decimals$}% of {largest}")
}

/// Step 5's picture: a token's cache at DeepSeek-V3's sizes (MHA, GQA, MQA, MLA), then
/// this page's model (MHA against MLA), each group's bars scaled to its largest.
pub fn cache_bars(t: &Trace) -> [Vec<CacheBar>; 2] {
    let scaled = |rows: Vec<(String, u64, Option<u64>)>| {
        let most = rows.iter().map(|r| r.1).max().unwrap_or(1).max(1) as f64;
        // the largest's short name: "MHA" of "MHA, 128 heads"
        let largest = rows
            .iter()
            .max_by_key(|r| r.1)
            .map(|r| r.0.split(',').next().unwrap_or_default().to_owned())
            .unwrap_or_default();
        rows.into_iter()
            .map(|(what, numbers, bytes)| {
                let share = numbers as f64 / most;
                CacheBar { what, numbers, bytes, share, share_words: share_words(share, &largest) }
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
