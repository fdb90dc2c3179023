//! Lesson 14, multi-head latent attention (DeepSeek-V2/V3): every token is projected down
//! to a small latent `c_KV`, from which each head's keys and values are projected up; a
//! small RoPE key `k_pe`, shared by every head, carries the position; absorbing `W_UK`
//! into the query gives the same scores straight from the latent; and so a decoder caches
//! `r_kv + d_rope` numbers per token and layer instead of every head's key and value.
//!
//! Seeded weights (MLA's projections are rectangular, so the identity cannot be them) on
//! two heads, small enough to read: d_model = 8, r_kv = 4, d_nope = 3, d_rope = 2,
//! d_v = 3, RoPE, causal. Every number the words quote is the engine's: the trace's cells,
//! [`mla::absorbed_scores`] and [`mla::cache_bytes_per_token`].

use super::claims::{Claim, Quantity};
use super::quiz::{Quiz, QuizKind};
use super::{base, num, row, row_cells, token, Aside, Cell, Lesson, LessonStep};
use crate::engine::mla::{self, CacheKind, Mla};
use crate::engine::{ProjectionKind, Projections, Rope, RopeStyle, Scenario, StepName as S, Trace};
use crate::format::group_digits;

const SENTENCE: &str = "the cat sat on the mat";
/// "cat" and "mat".
const CAT: usize = 1;
const MAT: usize = 5;
const D_MODEL: usize = 8;
const HEADS: usize = 2;
/// The seed of the weights: one whose scores are not all alike.
const SEED: u64 = 7;

/// The sentence under MLA: r_kv = 4, d_nope = 3, d_rope = 2, d_v = 3, seeded weights,
/// RoPE, causal.
fn scenario() -> Scenario {
    let mut s = base(&[SENTENCE], D_MODEL, HEADS);
    s.projections = Projections::Named(ProjectionKind::Seeded);
    s.seed = SEED;
    s.mask.causal = true;
    s.rope = Some(Rope::new(RopeStyle::Half));
    s.mla = Some(Mla::sized(4, 3, 2, 3));
    s
}

/// The trace's MLA sizes (the lesson's own when a learner's import has none).
fn sizes(t: &Trace) -> Mla {
    t.mla.clone().unwrap_or_else(|| Mla::sized(4, 3, 2, 3))
}

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
fn numbers_per_token(kind: CacheKind) -> u64 {
    mla::cache_bytes_per_token(kind, 1, 1)
}

/// The lesson model's own cache per token: MHA's `h·(d_k + d_v)` against MLA's
/// `r_kv + d_rope`.
fn own_cache(m: &Mla, heads: usize) -> (u64, u64) {
    let mha = CacheKind::Heads { kv_heads: heads as u64, d_k: m.d_k() as u64, d_v: m.v_head_dim as u64 };
    let latent = CacheKind::Latent { kv_lora_rank: m.kv_lora_rank as u64, d_rope: m.qk_rope_head_dim as u64 };
    (numbers_per_token(mha), numbers_per_token(latent))
}

/// "cat"'s key in every head (the `k_cat` rows), beside the heatmaps.
fn keys_aside(t: &Trace) -> Option<Aside> {
    let m = sizes(t);
    let k = t.step(S::KCat)?;
    let heads = k.shape.get(1).copied().unwrap_or(0);
    let rows = (0..heads)
        .map(|h| {
            let cells =
                k.matrix(0, h).filter(|m| CAT < m.nrows())?.row(CAT).iter().map(|v| num(*v)).collect();
            Some((format!("head {}", h + 1), cells))
        })
        .collect::<Option<Vec<_>>>()?;
    let mut head = vec![format!("\"{}\"'s key", token(t, 0, CAT))];
    head.extend((0..m.qk_nope_head_dim).map(|i| format!("nope {i}")));
    head.extend((0..m.qk_rope_head_dim).map(|i| format!("rope {i}")));
    Some(Aside {
        caption: format!("\"{}\"'s key in each head: k_nope, then k_rot", token(t, 0, CAT)),
        head,
        rows,
    })
}

/// "mat"'s scores, as the heads computed them and with `W_UK` absorbed into the query,
/// for every head.
fn absorbed_aside(t: &Trace) -> Option<Aside> {
    let absorbed = absorbed(t)?.select(ndarray::Axis(0), &[0]);
    let scores = t.step(S::Scores)?;
    let keys = t.key_tokens(0);
    if MAT >= absorbed.dim().2 {
        return None;
    }
    let mut rows = Vec::new();
    for h in 0..absorbed.dim().1 {
        let given = scores.matrix(0, h)?.row(MAT).iter().map(|v| num(*v)).collect();
        let folded = absorbed.slice(ndarray::s![0, h, MAT, ..]).iter().map(|v| num(*v)).collect();
        rows.push((format!("head {}: q·k", h + 1), given));
        rows.push((format!("head {}: absorbed", h + 1), folded));
    }
    let mut head = vec![format!("\"{}\" →", token(t, 0, MAT))];
    head.extend(keys.iter().cloned());
    let gap = match largest_gap(t) {
        Some(0.0) => "they are equal to the last bit".to_string(),
        Some(g) => format!("they differ by at most {g:.0e}, float64's rounding"),
        None => "the gap is unknown".to_string(),
    };
    let caption = format!("\"{}\"'s scores, with keys and with W_UK absorbed; {gap}", token(t, 0, MAT));
    Some(Aside { caption, head, rows })
}

/// The scores with `W_UK` absorbed into the query ([`Trace::absorbed_scores`]).
pub fn absorbed(t: &Trace) -> Option<ndarray::Array4<f64>> {
    t.absorbed_scores()
}

/// The largest difference between the trace's scores and the absorbed ones.
pub fn largest_gap(t: &Trace) -> Option<f64> {
    let a = absorbed(t)?;
    let s = t.step(S::Scores)?;
    (a.len() == s.data.len())
        .then(|| a.iter().zip(s.data.iter()).map(|(x, y)| (x - y).abs()).fold(0.0, f64::max))
}

/// DeepSeek-V3's bytes per token, MHA, GQA, MQA and MLA, with the lesson model's numbers.
fn cache_aside(t: &Trace) -> Option<Aside> {
    let mut rows: Vec<(String, Vec<String>)> = deepseek_v3_cache()
        .into_iter()
        .map(|(what, kind, bytes)| {
            (what.to_string(), vec![group_digits(numbers_per_token(kind)), group_digits(bytes)])
        })
        .collect();
    let (mha, latent) = own_cache(&sizes(t), t.sizes.n_heads);
    rows.push(("here: MHA".into(), vec![group_digits(mha), String::new()]));
    rows.push(("here: MLA".into(), vec![group_digits(latent), String::new()]));
    Some(Aside {
        caption: "A token's cache at DeepSeek-V3's sizes: numbers per layer, and bytes over its 61 layers \
                  in bf16; the last two rows are this page's model"
            .into(),
        head: vec!["cache".into(), "numbers".into(), "bytes".into()],
        rows,
    })
}

/// The bytes of cache row `i` (MHA, GQA, MQA, MLA), as the table prints them.
fn v3_bytes(i: usize) -> String {
    deepseek_v3_cache().get(i).map(|(_, _, b)| group_digits(*b)).unwrap_or_default()
}

/// Cell `(row, col)` of a step in head `head`.
fn at_head(step: S, head: usize, row: usize, col: usize) -> Quantity {
    Quantity::Cell(Cell { step, batch: 0, head, row, col })
}

/// The lesson.
pub fn lesson() -> Lesson {
    Lesson {
        id: "mla",
        title: "DeepSeek's small cache",
        seeds: "DeepSeek-V2 and V3's multi-head latent attention",
        steps: vec![
            LessonStep::new("Down to a latent: c_KV", scenario(), S::CKv, |t| {
                let m = sizes(t);
                format!(
                    "A decoder keeps every earlier token's keys and values, for every head and layer: that \
                     cache grows with every token of a long text, while the weights stay as they are. \
                     DeepSeek's multi-head latent attention (MLA) caches less. Each token's {} numbers are first projected down \
                     to a latent c_KV of r_kv = {} numbers, then RMSNorm: \"{cat}\"'s c_KV is {}. Every \
                     head's key and value will be made from these few numbers, so they are what a decoder \
                     keeps.",
                    t.sizes.d_model,
                    m.kv_lora_rank,
                    row(t, S::CKv, 0, 0, CAT),
                    cat = token(t, 0, CAT),
                )
            })
            .highlight(|t| row_cells(t, S::CKv, 0, 0, CAT)),
            LessonStep::new("Keys and values, up from the latent", scenario(), S::KCat, |t| {
                let m = sizes(t);
                format!(
                    "Each head projects the latent up again: its key's first d_nope = {} numbers, k_nope = \
                     c_KV · W_UK, and its value, c_KV · W_UV, d_v = {} wide. To these {} numbers each key adds \
                     d_rope = {} more, k_pe, which carries the position. In the table, \"{cat}\"'s key is {} \
                     in head 1 and {} in head 2: the first {} numbers differ, the last {} are the same in \
                     every head, because k_pe is one key shared by all heads, like MQA's.",
                    m.qk_nope_head_dim,
                    m.v_head_dim,
                    m.qk_nope_head_dim,
                    m.qk_rope_head_dim,
                    row(t, S::KCat, 0, 0, CAT),
                    row(t, S::KCat, 0, 1, CAT),
                    m.qk_nope_head_dim,
                    m.qk_rope_head_dim,
                    cat = token(t, 0, CAT),
                )
            })
            .highlight(|t| [row_cells(t, S::KCat, 0, 0, CAT), row_cells(t, S::KCat, 0, 1, CAT)].concat())
            .aside(keys_aside)
            .claims(|t| {
                let m = sizes(t);
                let pair = |c| (at_head(S::KCat, 0, CAT, c), at_head(S::KCat, 1, CAT, c));
                let mut out: Vec<Claim> = (m.qk_nope_head_dim..m.d_k())
                    .map(|c| {
                        let (a, b) = pair(c);
                        Claim::Equal(a, b)
                    })
                    .collect();
                // "the first d_nope numbers differ"
                out.push(Claim::Differ((0..m.qk_nope_head_dim).map(pair).collect()));
                out
            }),
            LessonStep::new("Why the RoPE key is its own", scenario(), S::KRot, |t| {
                format!(
                    "RoPE turns a query and a key by angles that depend on their positions. Had MLA turned the \
                     whole key c_KV · W_UK, the turn, which depends on both positions, would sit between the \
                     query and W_UK: W_UK could no longer be folded into the query once (the next step), and a \
                     decoder would rebuild every cached key from the latent at every step. So MLA turns only a \
                     small extra key, k_pe, made from the token itself (not from c_KV) and shared by every \
                     head, and each query's last d_rope numbers. \"{}\"'s turned k_pe is {}. Its position is in these numbers alone; \
                     the latent stays free of it.",
                    token(t, 0, CAT),
                    row(t, S::KRot, 0, 0, CAT),
                )
            })
            .highlight(|t| row_cells(t, S::KRot, 0, 0, CAT)),
            LessonStep::new("The absorbed product: the same scores", scenario(), S::Scores, |t| {
                let m = sizes(t);
                format!(
                    "A score is q · k = q_nope · (c_KV · W_UK) + q_rot · k_rot. The first product can be \
                     grouped the other way: (q_nope · W_UKᵀ) · c_KV. The query is moved into the latent's \
                     space, {} numbers wide, once per query, and scores the cached latent directly: no head's \
                     key is ever formed. The table computes \"{mat}\"'s scores both ways in both heads: the \
                     same numbers, to rounding (its caption gives the largest gap), which is why a decoder can \
                     cache only c_KV and k_pe.",
                    m.kv_lora_rank,
                    mat = token(t, 0, MAT),
                )
            })
            .highlight(|t| row_cells(t, S::Scores, 0, 0, MAT))
            .aside(absorbed_aside),
            LessonStep::new("The cache per token", scenario(), S::CKv, |t| {
                let (mha, latent) = own_cache(&sizes(t), t.sizes.n_heads);
                format!(
                    "Per token and layer, MHA caches every head's key and value, h·(d_k + d_v) numbers: \
                     {mha} here. MLA caches these c_KV rows and k_pe, r_kv + d_rope: {latent}. At DeepSeek-V3's \
                     sizes (61 layers, 128 heads, d_k = 192, d_v = 128, r_kv = 512, d_rope = 64, bf16) that \
                     is {} bytes a token for MHA and {} for MLA: less than GQA with 8 key/value heads ({}), \
                     under twice MQA's one head ({}), and every head still has keys and values of its own.",
                    v3_bytes(0),
                    v3_bytes(3),
                    v3_bytes(1),
                    v3_bytes(2),
                )
            })
            .aside(cache_aside),
            LessonStep::new("Predict: what the decoder keeps", scenario(), S::Weights, |_| {
                "Choose an answer to see why.".into()
            })
            .quiz(Quiz {
                reveal: None,
                reveal_extra: None,
                question: |t| {
                    let m = sizes(t);
                    format!(
                        "This page's model has {} heads, keys of d_nope + d_rope = {} + {} and values of {}, \
                         and a latent of {}. To score a new query against the earlier tokens, what must a \
                         decoder keep of each?",
                        t.sizes.n_heads,
                        m.qk_nope_head_dim,
                        m.qk_rope_head_dim,
                        m.v_head_dim,
                        m.kv_lora_rank
                    )
                },
                kind: QuizKind::Choice {
                    choices: |_| {
                        vec![
                            "every head's key and value".into(),
                            "the token's embedding x".into(),
                            "c_KV and k_pe".into(),
                        ]
                    },
                    answer: |t| {
                        let (mha, latent) = own_cache(&sizes(t), t.sizes.n_heads);
                        Some((
                            2,
                            format!(
                                "c_KV and k_pe: {latent} numbers a token, against {mha} for every head's key \
                                 and value. With W_UK absorbed into the query and W_UV into the output, \
                                 each head reads the latent directly. x would do too, but it is d_model = {} \
                                 wide and every step would project it again.",
                                t.sizes.d_model
                            ),
                        ))
                    },
                },
            }),
        ],
    }
}

/// Head `h`'s absorbed scores of "mat", as the table prints them.
#[cfg(test)]
fn absorbed_row(t: &Trace, h: usize) -> String {
    let Some(a) = absorbed(t).filter(|a| h < a.dim().1 && MAT < a.dim().2) else { return "[]".into() };
    let cells: Vec<String> = a.slice(ndarray::s![0, h, MAT, ..]).iter().map(|v| num(*v)).collect();
    format!("[{}]", cells.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::run;

    #[test]
    fn the_absorbed_scores_are_the_scores() {
        let t = run(&scenario()).unwrap();
        let gap = largest_gap(&t).unwrap();
        assert!(gap <= 1e-12, "{gap}");
        assert_eq!(absorbed_row(&t, 0), row(&t, S::Scores, 0, 0, MAT));
        assert_eq!(absorbed_row(&t, 1), row(&t, S::Scores, 0, 1, MAT));
    }

    #[test]
    fn the_cache_table_is_the_engines() {
        let bytes: Vec<u64> = deepseek_v3_cache().iter().map(|(_, _, b)| *b).collect();
        assert_eq!(bytes, [4_997_120, 312_320, 39_040, 70_272]);
        assert_eq!(own_cache(&Mla::sized(4, 3, 2, 3), 2), (16, 6));
        // every byte count the words quote is one the table shows
        let lesson = lesson();
        let t = lesson.trace(4);
        let words = (lesson.steps[4].narrate)(&t);
        let table = (lesson.steps[4].aside)(&t).unwrap();
        let cells: Vec<String> = table.rows.iter().flat_map(|(_, c)| c.clone()).collect();
        for n in ["4,997,120", "70,272", "312,320", "39,040", "16", "6"] {
            assert!(words.contains(n), "{n} not in {words}");
            assert!(cells.iter().any(|c| c == n), "{n} not in the table");
        }
    }

    #[test]
    fn a_trace_without_mla_gets_no_absorbed_table() {
        let t = run(&Scenario::identity(&["a b"], 2, 1)).unwrap();
        assert!(absorbed(&t).is_none() && absorbed_aside(&t).is_none());
        assert_eq!(absorbed_row(&t, 0), "[]");
    }
}
