//! The context computed the way FlashAttention does: tile by tile, with an online
//! softmax, never holding more than `block × block` scores.
//!
//! For each block of queries, walk the blocks of keys. After each tile, per query row:
//!
//! ```text
//! m′ = max(m, rowmax S_tile)                       the running maximum
//! c  = e^(m − m′)                                  the correction of what came before
//! ℓ′ = c·ℓ + Σ_j e^(S_j − m′)                      the running sum
//! O′ = c·O + Σ_j e^(S_j − m′)·V_j                  the running output
//! ```
//!
//! and at the end `O / ℓ`, which is `softmax(S) V`: every earlier term was scaled by the
//! `e^(m − m′)` of each later raise of the maximum, so all of them end up as `e^(S_j − m)`
//! for the row's true maximum `m`, the same numerator and denominator as the softmax.
//!
//! Under the `-inf` fill a tile whose every cell is blocked changes nothing and is
//! skipped. A row whose every key is blocked never sees a finite score: `m` stays `−∞`,
//! `ℓ` stays 0 and `O` stays 0, so the context is `0 / 0 = NaN`, as the full run's NaN
//! row. Under `-1e9` a blocked score is a number like any other and nothing is skipped: a
//! fully blocked row ends uniform, as in the full run.
//!
//! With attention sinks, head `h`'s sink logit `s_h` is folded in after the last tile as
//! one more score whose value is 0: `m′ = max(m, s_h)`, `ℓ′ = c·ℓ + e^(s_h − m′)`,
//! `O′ = c·O`. The sink takes its share of `ℓ` and adds nothing to `O`, as
//! `softmax([S, s_h])[..., :T_k] V` does; a row that saw no key ends with `O = 0`.

use ndarray::{s, Array2, Array4};
use serde::Serialize;

use crate::attention;
use crate::error::{EngineError, Field};
use crate::mask;
use crate::scenario::{Fill, Scenario};
use crate::stages;
use crate::trace::TensorJson;

/// One tile of one head and sentence, after it was folded in.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Tile {
    /// The sentence.
    pub b: usize,
    /// The head.
    pub head: usize,
    /// The query rows, `[start, end)`.
    pub q: [usize; 2],
    /// The key columns, `[start, end)`.
    pub k: [usize; 2],
    /// True when every cell was blocked under `-inf`: the tile changed nothing.
    pub skipped: bool,
    /// The running maximum of each query row after this tile.
    #[serde(serialize_with = "numbers")]
    pub m: Vec<f64>,
    /// The running sum of each query row after this tile.
    #[serde(serialize_with = "numbers")]
    pub l: Vec<f64>,
    /// The correction `e^(m − m′)` this tile applied to each row's earlier sum and output
    /// (1 where the maximum did not change or nothing came before).
    #[serde(serialize_with = "numbers")]
    pub correction: Vec<f64>,
}

fn numbers<S: serde::Serializer>(v: &[f64], s: S) -> Result<S::Ok, S::Error> {
    crate::trace::serialize_numbers(v, s)
}

/// The tiles and the context of [`tiled`].
#[derive(Debug, Clone, PartialEq)]
pub struct Tiled {
    /// The block size.
    pub block: usize,
    /// Every tile, in the order folded in: sentence, head, query block, key block.
    pub tiles: Vec<Tile>,
    /// `O / ℓ`, `(B, h, T_q, d_v)`: the full run's `context`, to rounding.
    pub context: Array4<f64>,
}

impl Tiled {
    /// `{"block", "tiles": [{"b", "head", "q", "k", "skipped", "m", "l", "correction"}],
    /// "context": {"shape", "data"}}`.
    pub fn to_json(&self) -> String {
        #[derive(Serialize)]
        struct All<'a> {
            block: usize,
            tiles: &'a [Tile],
            context: TensorJson,
        }
        serde_json::to_string(&All {
            block: self.block,
            tiles: &self.tiles,
            context: self.context.clone().into(),
        })
        .unwrap_or_else(|e| format!("{{\"error\":\"{e}\"}}"))
    }
}

/// The heads as the attention reads them, `(b, h, t, d_k)` queries and keys and `(b, h,
/// t_k, d_v)` values: projected, split, normalised, turned and repeated, or under
/// multi-head latent attention each head's query and its key `[k_nope, k_rope]` and value
/// projected up from the latent.
#[allow(clippy::type_complexity)]
fn heads(inp: &stages::Inputs) -> Result<(Array4<f64>, Array4<f64>, Array4<f64>), EngineError> {
    let h = inp.n_heads;
    if let Some((m, p)) = &inp.mla {
        let q = stages::latent_queries(&inp.x_in, p, m, (h, inp.rope), 0)?;
        let (c_kv, k_rope) = stages::latent_rows(&inp.x_kv_in, p, m, inp.rope, 0);
        let (k, v) = stages::keys_from_latent(&c_kv, &k_rope, p, m, h)?;
        return Ok((q, k, v));
    }
    let q = attention::split_heads(attention::linear(&inp.x_in, &inp.w.q), h)?; // (b, h, t_q, d_k)
    let k = attention::split_heads(attention::linear(&inp.x_kv_in, &inp.w.k), inp.n_kv_heads)?;
    let v = attention::split_heads(attention::linear(&inp.x_kv_in, &inp.w.v), inp.n_kv_heads)?;
    let (q, k) = match &inp.qk_norm {
        Some(norm) => (attention::qk_norm(&q, norm, false), attention::qk_norm(&k, norm, true)),
        None => (q, k),
    };
    let (q, k) = match inp.rope {
        Some(rope) => (attention::rotate(&q, rope), attention::rotate(&k, rope)),
        None => (q, k),
    };
    let group = h / inp.n_kv_heads.max(1);
    Ok((q, attention::repeat_kv(&k, group), attention::repeat_kv(&v, group)))
}

/// Computes the context tile by tile with an online softmax: see the
/// [module docs](self). `block` is the side of a tile (queries and keys).
///
/// # Errors
/// [`EngineError::ZeroSize`] for a block of 0; otherwise as [`crate::run`].
pub fn tiled(scenario: &Scenario, block: usize) -> Result<Tiled, EngineError> {
    if block == 0 {
        return Err(EngineError::ZeroSize { what: "block", field: Field::Block });
    }
    let inp = stages::inputs(scenario)?;
    let h = inp.n_heads;
    let (q, k, v) = heads(&inp)?;
    let d_v = v.dim().3;
    let fill = inp.mask.fill.value();
    let skip_blocked = inp.mask.fill == Fill::NegInf;
    let root = (inp.d_k as f64).sqrt();

    let mut context = Array4::zeros((inp.b, h, inp.t_q, d_v));
    let mut tiles = Vec::new();
    for b in 0..inp.b {
        let (len_q, len_k) =
            (inp.lengths.get(b).copied().unwrap_or(0), inp.kv_lengths.get(b).copied().unwrap_or(0));
        for head in 0..h {
            let slope = inp.alibi_slopes.get(head).copied();
            for q0 in (0..inp.t_q).step_by(block) {
                let q1 = (q0 + block).min(inp.t_q);
                let rows = q1 - q0;
                let q_blk = q.slice(s![b, head, q0..q1, ..]); // (rows, d_k)
                let mut m = vec![f64::NEG_INFINITY; rows];
                let mut l = vec![0.0; rows];
                let mut o = Array2::<f64>::zeros((rows, d_v));
                for k0 in (0..inp.t_k).step_by(block) {
                    let k1 = (k0 + block).min(inp.t_k);
                    // The tile's scores: q·k / √d_k, plus ALiBi's bias, blocked ones the fill.
                    let blocked = |r: usize, c: usize| mask::blocked(&inp.mask, len_q, len_k, q0 + r, k0 + c);
                    let all_blocked = (0..rows).all(|r| (0..k1 - k0).all(|c| blocked(r, c)));
                    // a tile whose every cell is blocked under -inf changes nothing: its
                    // maxima and sums stay, and nothing is corrected
                    let skipped = skip_blocked && all_blocked;
                    let mut correction = vec![1.0; rows];
                    if !skipped {
                        let k_blk = k.slice(s![b, head, k0..k1, ..]); // (cols, d_k)
                        let v_blk = v.slice(s![b, head, k0..k1, ..]);
                        let scores = q_blk.dot(&k_blk.t()); // (rows, cols): at most block × block
                        let mut scores = match inp.scale {
                            Some(f) => scores * f,
                            None => scores / root,
                        };
                        for ((r, c), x) in scores.indexed_iter_mut() {
                            if let Some(cap) = inp.softcap {
                                *x = attention::softcap_one(*x, cap);
                            }
                            if let Some(slope) = slope {
                                *x += slope * attention::alibi_distance(inp.mask.causal, q0 + r, k0 + c);
                            }
                            if blocked(r, c) {
                                *x = fill;
                            }
                        }
                        for (r, row) in scores.outer_iter().enumerate() {
                            let (Some(m_r), Some(l_r), Some(corr)) =
                                (m.get_mut(r), l.get_mut(r), correction.get_mut(r))
                            else {
                                continue;
                            };
                            let owned;
                            let row = match row.to_slice() {
                                Some(r) => r,
                                None => {
                                    owned = row.to_vec();
                                    &owned
                                }
                            };
                            let Some((c, p)) = fold(m_r, l_r, row) else {
                                continue; // nothing seen yet in this row: nothing to add
                            };
                            *corr = c;
                            let mut o_r = o.row_mut(r);
                            o_r *= c;
                            for (p_j, v_j) in p.iter().zip(v_blk.outer_iter()) {
                                o_r.scaled_add(*p_j, &v_j);
                            }
                        }
                    }
                    tiles.push(Tile {
                        b,
                        head,
                        q: [q0, q1],
                        k: [k0, k1],
                        skipped,
                        m: m.clone(),
                        l: l.clone(),
                        correction,
                    });
                }
                // An attention sink is one more column, with no value: folded in last, it
                // rescales O and adds its e^(s − m′) to ℓ (a row that saw no key gets O = 0).
                if let Some(sink) = inp.sinks.as_ref().and_then(|s| s.get(head)) {
                    for (r, mut o_r) in o.outer_iter_mut().enumerate() {
                        if let (Some(m_r), Some(l_r)) = (m.get_mut(r), l.get_mut(r)) {
                            if let Some((c, _)) = fold(m_r, l_r, &[*sink]) {
                                o_r *= c;
                            }
                        }
                    }
                }
                // O / ℓ: 0 / 0 = NaN for a row that never saw a key
                for (r, o_r) in o.outer_iter().enumerate() {
                    let l_r = l.get(r).copied().unwrap_or(0.0);
                    context.slice_mut(s![b, head, q0 + r, ..]).assign(&o_r.mapv(|x| x / l_r));
                }
            }
        }
    }
    Ok(Tiled { block, tiles, context })
}

/// Folds one tile of a query row's scores into its running maximum `m` and sum `l`:
/// `m′ = max(m, max S)`, `c = e^(m − m′)`, `ℓ′ = c·ℓ + Σ e^(S − m′)`. Returns `c` and the
/// tile's `e^(S_j − m′)` (the weights of its values in the running output), or `None`,
/// leaving `m` and `l` as they were, while the row has seen no finite score.
fn fold(m: &mut f64, l: &mut f64, scores: &[f64]) -> Option<(f64, Vec<f64>)> {
    let m_new = scores.iter().fold(*m, |a, &x| a.max(x));
    if m_new == f64::NEG_INFINITY {
        return None;
    }
    let c = (*m - m_new).exp(); // e^(−∞) = 0 when nothing came before
    let p: Vec<f64> = scores.iter().map(|&x| (x - m_new).exp()).collect();
    *l = c * *l + p.iter().sum::<f64>();
    *m = m_new;
    Some((c, p))
}

/// One query row after one tile of its keys: what the tiles view lists per row.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RowAfterTile {
    /// The key columns of the tile, `[start, end)`.
    pub k: [usize; 2],
    /// The running maximum after the tile.
    pub m: f64,
    /// The running sum after the tile.
    pub l: f64,
    /// The correction `e^(m − m′)` the tile applied (1 when the maximum did not rise or
    /// nothing came before).
    pub correction: f64,
}

/// The online softmax of one row of (masked) scores, `block` keys at a time: the running
/// maximum, sum and correction after each tile, by the same fold as [`tiled`] (so for a
/// row of the full run's `masked` scores these are the numbers its tiles hold for that
/// row). Empty for a block of 0. After the last tile, `e^(S_j − m) / ℓ` is the row's softmax.
pub fn online_row(scores: &[f64], block: usize) -> Vec<RowAfterTile> {
    if block == 0 {
        return Vec::new();
    }
    let (mut m, mut l) = (f64::NEG_INFINITY, 0.0);
    scores
        .chunks(block)
        .enumerate()
        .map(|(n, tile)| {
            let correction = fold(&mut m, &mut l, tile).map_or(1.0, |(c, _)| c);
            let k0 = n * block;
            RowAfterTile { k: [k0, k0 + tile.len()], m, l, correction }
        })
        .collect()
}

/// The terms of one query row's running sum after tile `tile` (of `block` keys): what the
/// tiles view lists when a learner asks why ℓ′ is what it is.
#[derive(Debug, Clone, PartialEq)]
pub struct RunningSum {
    /// The key columns of the tile, `[start, end)`.
    pub k: [usize; 2],
    /// ℓ, the sum before the tile (0 before the first).
    pub before: f64,
    /// The correction `e^(m − m′)` (1 when the maximum did not rise or nothing came before;
    /// before the first finite score it multiplies a sum of 0).
    pub correction: f64,
    /// `e^(m − m′)·ℓ`: what the sum so far counts for after the rescaling.
    pub carried: f64,
    /// The running maximum after the tile, m′.
    pub m: f64,
    /// `e^(S_j − m′)` for each key `j` of the tile, in order (0 for a blocked `-inf` key).
    pub exps: Vec<(usize, f64)>,
    /// ℓ′ = carried + Σ exps, as the fold adds it.
    pub after: f64,
}

/// The running sum of one row of (masked) scores after tile `tile` of `block` keys, term by
/// term: `ℓ′ = e^(m − m′)·ℓ + Σ_j e^(S_j − m′)`, by the same fold as [`tiled`] and
/// [`online_row`] (so `after` is their ℓ for that tile, bit for bit). `None` for a block
/// of 0 or a tile past the row's end.
pub fn running_sum(scores: &[f64], block: usize, tile: usize) -> Option<RunningSum> {
    if block == 0 {
        return None;
    }
    let chunk = scores.chunks(block).nth(tile)?;
    let k0 = tile * block;
    // the row after the tiles before this one, as online_row folds them
    let so_far = online_row(scores.get(..k0)?, block).last().copied();
    let (mut m, mut l) = so_far.map_or((f64::NEG_INFINITY, 0.0), |r| (r.m, r.l));
    let before = l;
    let (correction, exps) = match fold(&mut m, &mut l, chunk) {
        Some((c, p)) => (c, p.into_iter().enumerate().map(|(i, e)| (k0 + i, e)).collect()),
        None => (1.0, (k0..k0 + chunk.len()).map(|j| (j, 0.0)).collect()),
    };
    Some(RunningSum {
        k: [k0, k0 + chunk.len()],
        before,
        correction,
        carried: correction * before,
        m,
        exps,
        after: l,
    })
}
