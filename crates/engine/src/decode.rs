//! Decoding with a key/value cache: attention as a model runs it while it generates,
//! one query at a time.
//!
//! At position `t` the new token's query, key and value are projected (one row each),
//! turned by RoPE at the absolute position `t`, and the key and value are appended to the
//! cache. Under a sliding window of `W` the cache is a rolling buffer, as Mistral keeps
//! it: once it holds `W` rows, the oldest leaves when a new one comes in. With kept first
//! keys (`keep_first = n`, StreamingLLM's attention sinks) the first `n` rows never leave:
//! the cache holds them beside the `W` most recent rows, and the oldest row of the window
//! is the one that leaves. Every row keeps its own absolute position (StreamingLLM instead
//! numbers positions inside the cache). The one query
//! row is scored against every cached key (each key/value head serving its group of query
//! heads), ALiBi's bias and the mask are applied at the keys' absolute positions, and the
//! softmax, the weighted sum of the cached values, the merge and `W_O` give the output row.
//!
//! Every output row equals row `t` of the full causal run (`tests/decode.rs`, to 1e-12):
//! a causal query never sees a later key, and a key that left the window is one the full
//! run blocks. The exception is a row whose every key is blocked (a `<pad>` query under
//! `keys_and_queries`): under `-inf` both are NaN, but under `-1e9` the full run spreads
//! the weight evenly over all `T_k` keys and the decoder over the keys it has cached.
//!
//! Under multi-head latent attention (DeepSeek-V2/V3) the cache holds, per token, the
//! latent `c_KV` (`r_kv` numbers) and the shared RoPE key (`d_rope` numbers, turned at
//! the token's position), not every head's key and value: each step projects the keys'
//! unrotated parts and the values up from the cached latents (`kv_b_proj`), as the full
//! run's trace does, and puts each key together with the shared RoPE key.
//!
//! Cross-attention decodes its queries one by one against a fixed cache: every key and
//! value of the key/value sentences, computed once.

use ndarray::{s, Array3, Array4, Axis};
use serde::Serialize;

use crate::attention;
use crate::error::EngineError;
use crate::mask;
use crate::scenario::Scenario;
use crate::stages::{self, Inputs};
use crate::trace::TensorJson;

/// One position of the decoding.
#[derive(Debug, Clone, PartialEq)]
pub struct DecodeStep {
    /// The position decoded, from 0.
    pub t: usize,
    /// The new token's query, `(B, h, 1, d_k)`, after RoPE.
    pub q: Array4<f64>,
    /// The new token's key, `(B, h_kv, 1, d_k)`, after RoPE (empty in cross-attention:
    /// the cache is fixed).
    pub k_new: Array4<f64>,
    /// The new token's value, `(B, h_kv, 1, d_v)` (empty in cross-attention).
    pub v_new: Array4<f64>,
    /// The key cache after the append, `(B, h_kv, L, d_k)`.
    pub k_cache: Array4<f64>,
    /// The value cache after the append, `(B, h_kv, L, d_v)`.
    pub v_cache: Array4<f64>,
    /// Under multi-head latent attention, what the cache really holds after the append:
    /// `k_cache` and `v_cache` are every head's keys and values projected up from it.
    pub latent: Option<LatentRows>,
    /// The absolute position of each cached row, oldest first.
    pub cache_positions: Vec<usize>,
    /// The position that left the rolling buffer at this step, if one did.
    pub evicted: Option<usize>,
    /// How many of the oldest cache rows are kept first keys (`mask.keep_first`), which no
    /// window evicts: rows `0..kept` of the cache (0 in cross-attention's fixed cache).
    pub kept: usize,
    /// The one query row's scores, `(B, h, 1, L)`: `q·k / √d_k` plus ALiBi's bias, blocked
    /// keys replaced by the fill.
    pub scores: Array4<f64>,
    /// Its weights, `(B, h, 1, L)`.
    pub weights: Array4<f64>,
    /// Its context, `(B, h, 1, d_v)` (`d_v = d_k` but under MLA).
    pub context: Array4<f64>,
    /// Its output row, `(B, 1, d_model)`.
    pub output: Array3<f64>,
}

/// What a decoder caches under multi-head latent attention, row for row with
/// [`DecodeStep::cache_positions`]: per token `r_kv + d_rope` numbers, not `h·(d_k + d_v)`.
#[derive(Debug, Clone, PartialEq)]
pub struct LatentRows {
    /// The latents `c_KV`, `(B, 1, L, r_kv)` (one row for every head, as `k_rope`).
    pub c_kv: Array4<f64>,
    /// The shared RoPE keys, turned at their positions, `(B, 1, L, d_rope)`.
    pub k_rope: Array4<f64>,
}

/// Every position of a decoded scenario.
#[derive(Debug, Clone, PartialEq)]
pub struct Decoded {
    /// One entry per query position, `t = 0 … T_q − 1`.
    pub positions: Vec<DecodeStep>,
    /// True for cross-attention (a fixed cache of the key/value sentences).
    pub cross: bool,
}

/// The JSON `trace --decode` prints for one position.
#[derive(Serialize)]
struct PositionJson {
    t: usize,
    k_cache_shape: Vec<usize>,
    v_cache_shape: Vec<usize>,
    cache_positions: Vec<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    evicted: Option<usize>,
    kept: usize,
    /// Under MLA, what is cached: the latents `(B, 1, L, r_kv)` and RoPE keys `(B, 1, L, d_rope)`.
    #[serde(skip_serializing_if = "Option::is_none")]
    c_kv: Option<TensorJson>,
    #[serde(skip_serializing_if = "Option::is_none")]
    k_rope: Option<TensorJson>,
    scores: TensorJson,
    weights: TensorJson,
    context: TensorJson,
    output: TensorJson,
}

impl Decoded {
    /// `{"positions": [{"t", "k_cache_shape", "v_cache_shape", "cache_positions",
    /// "evicted", "kept" (the first rows that are kept first keys), under MLA "c_kv" and
    /// "k_rope" (what is cached), "scores", "weights" (B, h, 1, L), "context", "output" (B, 1, d_model)}]}`,
    /// the tensors as `{"shape", "data"}` with non-finite numbers as strings.
    pub fn to_json(&self) -> String {
        #[derive(Serialize)]
        struct All {
            cross: bool,
            positions: Vec<PositionJson>,
        }
        let positions = self
            .positions
            .iter()
            .map(|p| PositionJson {
                t: p.t,
                k_cache_shape: p.k_cache.shape().to_vec(),
                v_cache_shape: p.v_cache.shape().to_vec(),
                cache_positions: p.cache_positions.clone(),
                evicted: p.evicted,
                kept: p.kept,
                c_kv: p.latent.as_ref().map(|l| l.c_kv.clone().into()),
                k_rope: p.latent.as_ref().map(|l| l.k_rope.clone().into()),
                scores: p.scores.clone().into(),
                weights: p.weights.clone().into(),
                context: p.context.clone().into(),
                output: p.output.clone().into(),
            })
            .collect();
        serde_json::to_string(&All { cross: self.cross, positions })
            .unwrap_or_else(|e| format!("{{\"error\":\"{e}\"}}"))
    }
}

/// What the cache holds, two tensors with one row per token along axis 2: every token's
/// key and value heads, `(B, h_kv, L, d_k)` and `(B, h_kv, L, d_v)`, or, under multi-head
/// latent attention, its latent `c_KV` and shared RoPE key, `(B, 1, L, r_kv)` and `(B, 1,
/// L, d_rope)`, from which each step projects the keys and values up again.
#[derive(Clone)]
struct Cache {
    first: Array4<f64>,
    second: Array4<f64>,
}

impl Cache {
    /// The cache of the tokens `range` of every sentence: their keys and values projected,
    /// split and turned by RoPE at their absolute positions, or MLA's latents and RoPE keys.
    fn of(inp: &Inputs, range: std::ops::Range<usize>) -> Result<Self, EngineError> {
        let x = inp.x_kv_in.slice(s![.., range.clone(), ..]).to_owned(); // (b, len, d_model)
        if let Some((m, p)) = &inp.mla {
            let (c_kv, k_rope) = stages::latent_rows(&x, p, m, inp.rope, range.start);
            return Ok(Self { first: c_kv.insert_axis(Axis(1)), second: k_rope });
        }
        let k = attention::split_heads(attention::linear(&x, &inp.w.k), inp.n_kv_heads)?; // (b, h_kv, len, d_k)
        let v = attention::split_heads(attention::linear(&x, &inp.w.v), inp.n_kv_heads)?;
        let k = match &inp.qk_norm {
            Some(norm) => attention::qk_norm(&k, norm, true),
            None => k,
        };
        let k = match inp.rope {
            Some(rope) => attention::rotate_from(&k, rope, range.start),
            None => k,
        };
        Ok(Self { first: k, second: v })
    }

    /// The cache with `new`'s rows appended.
    fn append(&self, new: &Self) -> Result<Self, EngineError> {
        let cat = |a: &Array4<f64>, b: &Array4<f64>| {
            ndarray::concatenate(Axis(2), &[a.view(), b.view()]).map_err(|_| EngineError::Reshape {
                op: "cat",
                from: a.shape().to_vec(),
                to: b.shape().to_vec(),
            })
        };
        Ok(Self { first: cat(&self.first, &new.first)?, second: cat(&self.second, &new.second)? })
    }

    /// The cache with only the rows `rows`, in order.
    fn select(&self, rows: &[usize]) -> Self {
        Self { first: self.first.select(Axis(2), rows), second: self.second.select(Axis(2), rows) }
    }

    /// The keys `(B, h_kv, L, d_k)` and values `(B, h_kv, L, d_v)` the attention reads: the
    /// cached ones, or under MLA every head's, projected up from the latents.
    fn keys_and_values(&self, inp: &Inputs) -> Result<(Array4<f64>, Array4<f64>), EngineError> {
        match &inp.mla {
            Some((m, p)) => {
                let c_kv = self.first.index_axis(Axis(1), 0).to_owned(); // (b, L, r_kv)
                stages::keys_from_latent(&c_kv, &self.second, p, m, inp.n_heads)
            }
            None => Ok((self.first.clone(), self.second.clone())),
        }
    }
}

/// The new token's query, `(B, h, 1, d_k)`, turned by RoPE at position `t`.
fn query(inp: &Inputs, t: usize) -> Result<Array4<f64>, EngineError> {
    let x_t = inp.x_in.slice(s![.., t..t + 1, ..]).to_owned(); // (b, 1, d_model)
    if let Some((m, p)) = &inp.mla {
        return stages::latent_queries(&x_t, p, m, (inp.n_heads, inp.rope), t);
    }
    let q = attention::split_heads(attention::linear(&x_t, &inp.w.q), inp.n_heads)?; // (b, h, 1, d_k)
    let q = match &inp.qk_norm {
        Some(norm) => attention::qk_norm(&q, norm, false),
        None => q,
    };
    Ok(match inp.rope {
        Some(rope) => attention::rotate_from(&q, rope, t),
        None => q,
    })
}

/// Decodes a scenario position by position with a key/value cache: see the
/// [module docs](self).
///
/// # Errors
/// [`EngineError::DecodeNeedsCausal`] for self-attention without a causal mask (a model
/// that generates cannot see the tokens it has not written yet); otherwise as
/// [`crate::run`].
pub fn decode(scenario: &Scenario) -> Result<Decoded, EngineError> {
    let inp = stages::inputs(scenario)?;
    if !inp.cross && !inp.mask.causal {
        return Err(EngineError::DecodeNeedsCausal);
    }
    let (h, group) = (inp.n_heads, inp.n_heads / inp.n_kv_heads.max(1));
    let fill = inp.mask.fill.value();
    // Cross-attention: one fixed cache of every key/value token.
    let fixed = if inp.cross { Some(Cache::of(&inp, 0..inp.t_k)?) } else { None };
    let mut cache = Cache::of(&inp, 0..0)?;
    let mut cache_positions: Vec<usize> = Vec::new();
    let mut positions = Vec::with_capacity(inp.t_q);
    for t in 0..inp.t_q {
        // 1. The new token's query (and, in self-attention, what it caches), one row.
        let q = query(&inp, t)?;
        // 2. The cache after the append (a rolling buffer under a window).
        let mut evicted = None;
        let mut new = None;
        match &fixed {
            Some(all) => {
                cache = all.clone();
                cache_positions = (0..inp.t_k).collect();
            }
            None => {
                let row = Cache::of(&inp, t..t + 1)?;
                cache = cache.append(&row)?;
                new = Some(row);
                cache_positions.push(t);
                // the row that left the window, unless it is a kept first key
                let leaving = inp.mask.window.and_then(|_| {
                    cache_positions.iter().position(|&p| mask::outside_window(&inp.mask, t, p))
                });
                if let Some(row) = leaving {
                    evicted = Some(cache_positions.remove(row));
                    let rest: Vec<usize> = (0..=cache_positions.len()).filter(|&l| l != row).collect();
                    cache = cache.select(&rest);
                }
            }
        }
        let (k_cache, v_cache) = cache.keys_and_values(&inp)?;
        let (k_new, v_new) = match &new {
            Some(row) => row.keys_and_values(&inp)?,
            None => (Array4::zeros((inp.b, 0, 0, inp.d_k)), Array4::zeros((inp.b, 0, 0, inp.d_k))),
        };
        // 3. The one query row against the cache: scores, bias, mask, softmax, context.
        let k_rep = attention::repeat_kv(&k_cache, group); // (b, h, L, d_k)
        let v_rep = attention::repeat_kv(&v_cache, group);
        let scaled = attention::scale_by(&attention::attn_scores(&q, &k_rep), inp.d_k, inp.scale); // (b, h, 1, L)
        let scaled = match inp.softcap {
            Some(c) => attention::softcap(&scaled, c),
            None => scaled,
        };
        let biased = if inp.alibi_slopes.is_empty() {
            scaled
        } else {
            let bias = Array4::from_shape_fn((1, h, 1, cache_positions.len()), |(_, hi, _, l)| {
                let j = cache_positions.get(l).copied().unwrap_or(0);
                inp.alibi_slopes.get(hi).copied().unwrap_or(0.0)
                    * attention::alibi_distance(inp.mask.causal, t, j)
            });
            attention::add_bias(&scaled, &bias)
        };
        let blocked = Array3::from_shape_fn((inp.b, 1, cache_positions.len()), |(b, _, l)| {
            let (len_q, len_k) =
                (inp.lengths.get(b).copied().unwrap_or(0), inp.kv_lengths.get(b).copied().unwrap_or(0));
            mask::blocked(&inp.mask, len_q, len_k, t, cache_positions.get(l).copied().unwrap_or(0))
        });
        let scores = attention::apply_mask(&biased, &blocked, fill);
        let weights = attention::softmax_rows_with(&scores, inp.sinks.as_deref());
        let context = attention::attend(&weights, &v_rep); // (b, h, 1, d_k)
                                                           // 4. The heads side by side, then W_O: the output row.
        let concat = attention::merge_heads(context.clone())?; // (b, 1, d_model)
        let output = attention::linear(&concat, &inp.w.o);
        positions.push(DecodeStep {
            t,
            q,
            k_new,
            v_new,
            k_cache,
            v_cache,
            latent: inp
                .mla
                .as_ref()
                .map(|_| LatentRows { c_kv: cache.first.clone(), k_rope: cache.second.clone() }),
            // a fixed cross-attention cache keeps every row: none is a kept first key
            kept: if inp.cross {
                0
            } else {
                cache_positions.iter().filter(|&&p| mask::is_kept_first(&inp.mask, p)).count()
            },
            cache_positions: cache_positions.clone(),
            evicted,
            scores,
            weights,
            context,
            output,
        });
    }
    Ok(Decoded { positions, cross: inp.cross })
}

/// The bytes a key/value cache takes: two tensors (keys and values) of
/// `layers × h_kv × d_k` numbers per token, `tokens` tokens, `bytes` bytes per number.
/// Llama 3 8B (32 layers, 8 K/V heads, d_k = 128) in bf16 (2 bytes) at 8 192 tokens:
/// 2·32·8·128·2·8192 = 1 GiB per sequence.
pub fn cache_bytes(layers: u64, kv_heads: u64, d_k: u64, bytes: u64, tokens: u64) -> u64 {
    2 * layers * kv_heads * d_k * bytes * tokens
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn llama_3_8b_needs_one_gib_of_cache_at_8k_tokens() {
        assert_eq!(cache_bytes(32, 8, 128, 2, 8192), 1 << 30);
        // 128 KiB per token with 8 K/V heads, 512 KiB with 32
        assert_eq!(cache_bytes(32, 8, 128, 2, 1), 128 * 1024);
        assert_eq!(cache_bytes(32, 32, 128, 2, 1), 512 * 1024);
    }
}
