//! Lesson 14, multi-head latent attention (DeepSeek-V2/V3): every token is projected down
//! to a small latent `c_KV`, from which each head's keys and values are projected up; a
//! small RoPE key `k_rot`, shared by every head, carries the position; absorbing `W_UK`
//! into the query gives the same scores straight from the latent; and so a decoder caches
//! `r_kv + d_rope` numbers per token and layer instead of every head's key and value.
//!
//! Seeded weights (MLA's projections are rectangular, so the identity cannot be them) on
//! two heads, small enough to read: d_model = 8, r_kv = 4, d_nope = 3, d_rope = 2,
//! d_v = 3, RoPE, causal. Every number the words quote is the engine's: the trace's cells,
//! [`crate::engine::mla::absorbed_scores`] and [`crate::engine::mla::cache_bytes_per_token`].

use super::claims::{Claim, Quantity};
use super::mla_cache::v3_bytes;
pub use super::mla_cache::{cache_bars, deepseek_v3_cache, CacheBar};
use super::quiz::{Quiz, QuizKind};
use super::{base, num, row, row_cells, same_input, token, Aside, Cell, Extra, Lesson, LessonStep};
use crate::engine::mla::{LatentCache, Mla};
use crate::engine::{ProjectionKind, Projections, Rope, RopeStyle, Scenario, StepName as S, Trace};

const SENTENCE: &str = "the cat sat on the mat";
/// "the" (position 0), "cat", "on", "the" again (position 4) and "mat".
const THE: usize = 0;
const CAT: usize = 1;
const ON: usize = 3;
const THE_AGAIN: usize = 4;
const MAT: usize = 5;
const D_MODEL: usize = 8;
const HEADS: usize = 2;
/// The seed of the weights: one whose scores are not all alike.
const SEED: u64 = 7;
/// The heads of the model in the last step's question: more than the lesson's, with the
/// same latent and head sizes.
const MORE_HEADS: usize = 4;

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
pub(super) fn sizes(t: &Trace) -> Mla {
    t.mla.clone().unwrap_or_else(|| Mla::sized(4, 3, 2, 3))
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
    head.extend((0..m.qk_nope_head_dim).map(|i| format!("k_nope {i}")));
    head.extend((0..m.qk_rope_head_dim).map(|i| format!("k_rot {i}")));
    Some(Aside {
        caption: format!("\"{}\"'s key in each head: k_nope, then k_rot", token(t, 0, CAT)),
        head,
        rows,
    })
}

/// "cat"'s shared RoPE key before the turn (k_pe) and after it (k_rot), the numbers step 3
/// quotes, which the embed's small map cannot print (the page's map prints them).
fn rot_aside(t: &Trace) -> Option<Aside> {
    let cells = |step: S| -> Option<Vec<String>> {
        let m = t.step(step)?.matrix(0, 0).filter(|m| CAT < m.nrows())?;
        Some(m.row(CAT).iter().map(|v| num(*v)).collect())
    };
    let (pe, rot) = (cells(S::KPe)?, cells(S::KRot)?);
    let mut head = vec![format!("\"{}\"", token(t, 0, CAT))];
    head.extend((0..rot.len()).map(|i| format!("d_rope {i}")));
    Some(Aside {
        caption: format!("\"{}\"'s shared RoPE key, before and after RoPE's turn", token(t, 0, CAT)),
        head,
        rows: vec![("k_pe, before".into(), pe), (format!("k_rot, at position {CAT}"), rot)],
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

/// Cell `(row, col)` of a step in head `head`.
fn at_head(step: S, head: usize, row: usize, col: usize) -> Quantity {
    Quantity::Cell(Cell { step, batch: 0, head, row, col })
}

/// The tokens that share "the"'s latent because they share its input vector ("on" and
/// "the" at 4), with "the" at 0 first; empty when no other does or their latents differ.
fn shared_latent_rows(t: &Trace) -> Vec<usize> {
    let rows: Vec<usize> =
        [THE, ON, THE_AGAIN].into_iter().filter(|&i| i == THE || same_input(t, 0, THE, i)).collect();
    let latent = |i| row(t, S::CKv, 0, 0, i);
    if rows.len() > 1 && rows.iter().all(|&i| latent(i) == latent(THE)) {
        rows
    } else {
        Vec::new()
    }
}

/// Why some rows of c_KV are the same, while they are: the toy lexicon gives "the" and "on"
/// one vector (only the "function" feature), and the latent is made from a token's vector
/// alone, not from its position.
fn shared_latent(t: &Trace) -> String {
    let rows = shared_latent_rows(t);
    if rows.is_empty() {
        return String::new();
    }
    // each named by its position: the sentence has "the" twice
    let names: Vec<String> = rows.iter().map(|&i| format!("\"{}\" (position {i})", token(t, 0, i))).collect();
    let listed = match names.split_last() {
        Some((last, rest)) => format!("{} and {last}", rest.join(", ")),
        None => String::new(),
    };
    let lexicon = if rows.contains(&ON) {
        format!(
            " the toy lexicon gives \"{}\" and \"{}\" one vector (1 on its \"function\" feature, 0 elsewhere), and",
            token(t, 0, THE),
            token(t, 0, ON)
        )
    } else {
        String::new()
    };
    format!(
        " The rows of {listed} are the same (positions count from 0):{lexicon} c_KV is made from a \
         token's vector alone, not from its position."
    )
}

/// The lesson's layer with [`MORE_HEADS`] heads: the same sentence, sizes and input, the
/// same down-projection `W_DKV` and shared RoPE key's projection (so the same c_KV and
/// k_rot for every token), heads 1 and 2 the earlier steps' own (their query, `W_UK`, `W_UV`
/// and output rows), heads 3 and 4 new ones drawn from the seed for a 4-head layer.
fn more_heads() -> Scenario {
    let lesson = scenario();
    let sizes = lesson.mla.clone().unwrap_or_else(|| Mla::sized(4, 3, 2, 3));
    let mut s = Scenario { n_heads: MORE_HEADS, ..lesson };
    if let Some(weights) = grown_weights(&sizes) {
        s.mla = Some(Mla { weights: Some(Box::new(weights)), ..sizes });
    }
    s
}

/// The weights of [`more_heads`]: the lesson's [`HEADS`]-head seeded weights, then the
/// extra heads' columns (query, `kv_b`) and rows (`o`) of the [`MORE_HEADS`]-head seeded
/// ones. Each head's block is contiguous in all three (DeepSeek's layout: `q` per head
/// `d_k`, `kv_b` per head `d_nope + d_v`, `o` per head `d_v` rows).
fn grown_weights(m: &Mla) -> Option<crate::engine::mla_option::MlaWeights> {
    use crate::engine::mla::{build, QueryPath};
    let few = build(m, D_MODEL, HEADS, SEED).ok()?;
    let many = build(m, D_MODEL, MORE_HEADS, SEED).ok()?;
    let (QueryPath::Direct(q_few), QueryPath::Direct(q_many)) = (&few.q, &many.q) else { return None };
    let rows = |a: ndarray::ArrayView2<f64>| a.rows().into_iter().map(|r| r.to_vec()).collect::<Vec<_>>();
    // the first HEADS heads' columns from the lesson's weights, the rest from the bigger layer's
    let columns = |a: &ndarray::Array2<f64>, b: &ndarray::Array2<f64>, per_head: usize| {
        let cut = HEADS * per_head;
        ndarray::concatenate(ndarray::Axis(1), &[a.view(), b.slice(ndarray::s![.., cut..])]).ok()
    };
    let q = columns(q_few.w(), q_many.w(), m.d_k())?;
    let kv_b = columns(few.kv_b.w(), many.kv_b.w(), m.qk_nope_head_dim + m.v_head_dim)?;
    let cut = HEADS * m.v_head_dim;
    let o =
        ndarray::concatenate(ndarray::Axis(0), &[few.o.w().view(), many.o.w().slice(ndarray::s![cut.., ..])])
            .ok()?;
    Some(crate::engine::mla_option::MlaWeights::uncompressed(
        rows(q.view()),
        rows(few.kv_a.w().view()),
        rows(kv_b.view()),
        rows(o.view()),
    ))
}

/// What the question offers, in its choices' fixed order: every head's key and value, the
/// lesson's two-head cache scaled by the heads, then the latent with the shared key (the
/// answer). The order is the options', not their sizes' (largest first, the answer last,
/// for the lesson's layer), so that where the answer sits does not follow from the
/// numbers; the other lessons put theirs elsewhere.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Cached {
    Heads,
    Grown,
    Latent,
}

const OFFERED: [Cached; 3] = [Cached::Heads, Cached::Grown, Cached::Latent];

/// The question's choices, from the engine's [`LatentCache`]: each names a cache the layer
/// could have (every head's, or the {HEADS}-head layer's, grown or not), its number first;
/// why the right one is right is the feedback's ([`more_heads_answer`]).
fn more_heads_choices(t: &Trace) -> Vec<String> {
    let c = LatentCache::new(&sizes(t), t.sizes.d_model, t.sizes.n_heads);
    let times = t.sizes.n_heads / HEADS;
    OFFERED
        .iter()
        .map(|kind| match kind {
            Cached::Heads => format!("{}: all {} heads' keys and values", c.heads(), t.sizes.n_heads),
            Cached::Grown => format!("{}: the {HEADS}-head cache, {times}×", c.latent() * times as u64),
            Cached::Latent => format!("{}: the {HEADS}-head cache, unchanged", c.latent()),
        })
        .collect()
}

/// The right choice (the latent and the shared key) and why.
fn more_heads_answer(t: &Trace) -> Option<(usize, String)> {
    let m = sizes(t);
    let c = LatentCache::new(&m, t.sizes.d_model, t.sizes.n_heads);
    let right = OFFERED.iter().position(|&k| k == Cached::Latent)?;
    Some((
        right,
        format!(
            "{} numbers: c_KV ({}) and the shared RoPE key k_rot ({}), however many heads there are. Each \
             head's key and value are projected up from the latent when it scores (or W_UK is absorbed into \
             its query, as in step 4), so they are never cached: all {} heads' keys and values would be {} \
             numbers.",
            c.latent(),
            m.kv_lora_rank,
            m.qk_rope_head_dim,
            t.sizes.n_heads,
            c.heads()
        ),
    ))
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
                     keeps.{}",
                    t.sizes.d_model,
                    m.kv_lora_rank,
                    row(t, S::CKv, 0, 0, CAT),
                    shared_latent(t),
                    cat = token(t, 0, CAT),
                )
            })
            .highlight(|t| row_cells(t, S::CKv, 0, 0, CAT))
            .claims(|t| {
                shared_latent_rows(t)
                    .windows(2)
                    .flat_map(|w| {
                        (0..sizes(t).kv_lora_rank)
                            .map(move |c| Claim::Equal(at_head(S::CKv, 0, w[0], c), at_head(S::CKv, 0, w[1], c)))
                    })
                    .collect()
            }),
            LessonStep::new("Keys and values, up from the latent", scenario(), S::KCat, |t| {
                let m = sizes(t);
                format!(
                    "Each head projects the latent up again: its key's first d_nope = {} numbers, k_nope = \
                     c_KV · W_UK, and its value, c_KV · W_UV, d_v = {} wide. To these {} numbers each key adds \
                     d_rope = {} more, the shared RoPE key k_rot, which carries the position. In the table, \
                     \"{cat}\"'s key is {} in head 1 and {} in head 2: the first {} numbers differ, the last {} \
                     are the same in every head, because k_rot is one key shared by all heads, like MQA's.",
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
            .embed_aside(keys_aside)
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
                     small extra key made from the token itself (not from c_KV) and shared by every head, the \
                     shared RoPE key k_rot (DeepSeek's code names it k_pe before the turn), and each query's last d_rope numbers. \"{}\"'s k_rot is {}, one row of the \
                     picture's one map: it belongs to no head. Its position is in these numbers alone; the \
                     latent stays free of it.",
                    token(t, 0, CAT),
                    row(t, S::KRot, 0, 0, CAT),
                )
            })
            .highlight(|t| row_cells(t, S::KRot, 0, 0, CAT))
            .embed_aside(rot_aside),
            LessonStep::new("The absorbed product: the same scores", scenario(), S::Scores, |t| {
                let m = sizes(t);
                format!(
                    "A score is q · k = q_nope · (c_KV · W_UK) + q_rot · k_rot. The first product can be \
                     grouped the other way: (q_nope · W_UKᵀ) · c_KV. The query is moved into the latent's \
                     space, {} numbers wide, once per query, and scores the cached latent directly: no head's \
                     key is ever formed. The table computes \"{mat}\"'s scores both ways in both heads: the \
                     same numbers, to rounding (its caption gives the largest gap).",
                    m.kv_lora_rank,
                    mat = token(t, 0, MAT),
                )
            })
            .highlight(|t| row_cells(t, S::Scores, 0, 0, MAT))
            .aside(absorbed_aside)
            .embed_aside(absorbed_aside),
            LessonStep::new("The cache per token", scenario(), S::CKv, |_| {
                format!(
                    "So a decoder caches, per token and layer, c_KV and k_rot: r_kv + d_rope numbers, where MHA \
                     caches every head's key and value, h·(d_k + d_v). The bars compare them, in this page's \
                     model and at DeepSeek-V3's sizes (61 layers, 128 heads, d_k = 192, d_v = 128, r_kv = 512, \
                     d_rope = 64, bf16). There a token takes {} bytes for MHA and {} for MLA: less than GQA with \
                     8 key/value heads ({}), under twice MQA's one head ({}), and every head still has keys and \
                     values of its own.",
                    v3_bytes(0),
                    v3_bytes(3),
                    v3_bytes(1),
                    v3_bytes(2),
                )
            })
            .extra(Extra::CacheBars),
            LessonStep::new("Your turn: more heads", more_heads(), S::KCat, |t| {
                format!(
                    "The same layer with {} heads instead of {HEADS}: heads 1 and 2 are the earlier steps', \
                     3 and 4 are new (their own query, W_UK and W_UV). c_KV and k_rot are the earlier steps', so \
                     \"{cat}\"'s {}-number key ends in {} in every head.",
                    t.sizes.n_heads,
                    sizes(t).d_k(),
                    row(t, S::KRot, 0, 0, CAT),
                    cat = token(t, 0, CAT),
                )
            })
            .embed_aside(keys_aside)
            // "ends in k_rot in every head"
            .claims(|t| {
                let m = sizes(t);
                (0..t.sizes.n_heads)
                    .flat_map(|h| {
                        (0..m.qk_rope_head_dim).map(move |c| {
                            Claim::Equal(at_head(S::KCat, h, CAT, m.qk_nope_head_dim + c), at_head(S::KRot, 0, CAT, c))
                        })
                    })
                    .collect()
            })
            .quiz(Quiz {
                reveal: None,
                reveal_extra: None,
                question: |t| {
                    let m = sizes(t);
                    format!(
                        "This layer has {} heads, keys of d_nope + d_rope = {} + {}, values of d_v = {} and a \
                         latent of r_kv = {}. How many numbers does a decoder cache for one token in this layer?",
                        t.sizes.n_heads,
                        m.qk_nope_head_dim,
                        m.qk_rope_head_dim,
                        m.v_head_dim,
                        m.kv_lora_rank
                    )
                },
                kind: QuizKind::Choice { choices: more_heads_choices, answer: more_heads_answer },
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
    use super::super::mla_cache::own_cache;
    use super::*;
    use crate::engine::run;
    use crate::format::group_digits;

    /// The numbers a text quotes, as written: "0.61", "4,997,120", "6" (a sentence's full
    /// stop, a list's comma or brackets around one are not part of it; "bf16" is a name).
    fn numbers_in(words: &str) -> Vec<String> {
        words
            .split(|c: char| c.is_whitespace() || "()[]·".contains(c))
            .map(|w| w.trim_matches(|c: char| !c.is_alphanumeric()))
            .filter(|w| !w.is_empty() && w.chars().all(|c| c.is_ascii_digit() || c == '.' || c == ','))
            .map(str::to_owned)
            .collect()
    }

    #[test]
    fn the_absorbed_scores_are_the_scores() {
        let t = run(&scenario()).unwrap();
        let gap = largest_gap(&t).unwrap();
        assert!(gap <= 1e-12, "{gap}");
        assert_eq!(absorbed_row(&t, 0), row(&t, S::Scores, 0, 0, MAT));
        assert_eq!(absorbed_row(&t, 1), row(&t, S::Scores, 0, 1, MAT));
    }

    #[test]
    fn the_cache_picture_is_the_engines_and_its_own() {
        let bytes: Vec<u64> = deepseek_v3_cache().iter().map(|(_, _, b)| *b).collect();
        assert_eq!(bytes, [4_997_120, 312_320, 39_040, 70_272]);
        assert_eq!(own_cache(&Mla::sized(4, 3, 2, 3), 2), (16, 6));
        // every byte count the words quote is one the bars show
        let lesson = lesson();
        let t = lesson.trace(4);
        let words = (lesson.steps[4].narrate)(&t);
        let [v3, here] = cache_bars(&t);
        let shown: Vec<String> = v3
            .iter()
            .chain(&here)
            .flat_map(|b| [Some(group_digits(b.numbers)), b.bytes.map(group_digits)])
            .flatten()
            .collect();
        for n in ["4,997,120", "70,272", "312,320", "39,040"] {
            assert!(words.contains(n), "{n} not in {words}");
            assert!(shown.iter().any(|c| c == n), "{n} not in the bars");
        }
        // "less than GQA with 8 key/value heads, under twice MQA's one head"
        assert!(v3[3].numbers < v3[1].numbers && v3[3].numbers < 2 * v3[2].numbers);
        // the page's own model is in the bars, not the words: the next step's question asks it
        for n in ["16", "6"] {
            assert!(shown.iter().any(|c| c == n), "{n} not in the bars");
            assert!(!numbers_in(&words).contains(&n.to_string()), "{n} in {words}");
        }
        // each group's longest bar is whole, the others their share of it
        assert_eq!(v3[0].share, 1.0);
        assert!((v3[3].share - 576.0 / 40_960.0).abs() < 1e-15);
        assert_eq!((here[0].share, here[1].share), (1.0, 6.0 / 16.0));
        // every bar's size is written beside it: a sliver still reads
        let words: Vec<&str> = v3.iter().chain(&here).map(|b| b.share_words.as_str()).collect();
        assert_eq!(
            words,
            ["the largest", "6.3% of MHA", "0.78% of MHA", "1.4% of MHA", "the largest", "38% of MHA"]
        );
        // its picture is not step 1's: the bars replace the heatmaps, in the page and its embed
        assert!(lesson.steps[4].extra.replaces_heatmaps());
        let pictures: Vec<_> = lesson.steps.iter().map(|s| (s.focus, s.extra, s.scenario.n_heads)).collect();
        for (i, p) in pictures.iter().enumerate() {
            assert!(!pictures[..i].contains(p), "step {} has the picture of an earlier step", i + 1);
        }
    }

    #[test]
    fn the_shared_latent_of_the_function_words_is_said_while_it_holds() {
        let lesson = lesson();
        let t = lesson.trace(0);
        let words = lesson.steps[0].words(&t);
        assert!(
            words.contains(
                "The rows of \"the\" (position 0), \"on\" (position 3) and \"the\" (position 4) are the same \
                 (positions count from 0)"
            ),
            "{words}"
        );
        let claims = (lesson.steps[0].claims)(&t);
        assert_eq!(claims.len(), 2 * 4);
        assert!(lesson.steps[0].claims_hold(&t));
        // "on" given a vector of its own: no such sentence, and no claim
        let mut s = scenario();
        s.embeddings.insert("on".into(), vec![0.5; D_MODEL]);
        let t = crate::engine::run(&s).unwrap();
        let words = (lesson.steps[0].narrate)(&t);
        assert!(
            words.contains("The rows of \"the\" (position 0) and \"the\" (position 4) are the same"),
            "{words}"
        );
        assert!(!words.contains("\"on\"") && !words.contains("lexicon"), "{words}");
        assert_eq!(shared_latent_rows(&t), [THE, THE_AGAIN]);
        assert!(lesson.steps[0].claims_hold(&t));
    }

    #[test]
    fn the_question_is_answered_by_the_engine_and_not_before_it_is_asked() {
        let lesson = lesson();
        let last = lesson.steps.len() - 1;
        let t = lesson.trace(last);
        let quiz = lesson.steps[last].quiz.unwrap();
        let QuizKind::Choice { choices, answer } = quiz.kind else { panic!("a choice") };
        let (right, why) = answer(&t).unwrap();
        let choices = choices(&t);
        assert_eq!(t.sizes.n_heads, MORE_HEADS);
        // 4 + 2 cached, against 4·(5 + 3) for every head's key and value, or 2 × 6
        assert_eq!(choices.len(), 3);
        assert_eq!(
            choices,
            [
                "32: all 4 heads' keys and values",
                "12: the 2-head cache, 2×",
                "6: the 2-head cache, unchanged",
            ]
        );
        // a choice names a cache, not why it would be that one: what MLA caches (step 5's
        // words) is in the feedback, not in the right choice
        for giveaway in ["latent", "RoPE", "c_KV", "k_rot", "shared"] {
            assert!(choices.iter().all(|c| !c.contains(giveaway)), "{giveaway} in {choices:?}");
        }
        assert!(why.contains("c_KV") && why.contains("k_rot"), "{why}");
        // not the first choice: where the answer sits gives nothing away
        assert_eq!(right, 2);
        assert!(why.starts_with("6 numbers"), "{why}");
        // no earlier step gives the 4-head cache, says that the cache ignores h, or quotes
        // any choice's number (the answer's 6 is also the 2-head layer's cache)
        for (i, step) in lesson.steps[..last].iter().enumerate() {
            let words = (step.narrate)(&lesson.trace(i));
            for giveaway in ["however many heads", "whatever the number of heads", "4 heads"] {
                assert!(!words.contains(giveaway), "step {}: {giveaway}", i + 1);
            }
            let quoted = numbers_in(&words);
            for n in ["32", "12", "6"] {
                assert!(!quoted.contains(&n.to_string()), "step {}: {n} in {words}", i + 1);
            }
        }
        // one question: the words before it ask nothing else
        let words = (lesson.steps[last].narrate)(&t);
        assert_eq!(words.matches('?').count(), 0, "{words}");
        assert_eq!((quiz.question)(&t).matches('?').count(), 1);
    }

    /// The 4-head layer is the lesson's layer with two more heads: the same c_KV and k_rot
    /// for every token, and heads 1 and 2 the earlier steps' own keys and scores.
    #[test]
    fn the_four_head_layer_shares_the_latent_the_shared_key_and_the_first_two_heads() {
        let lesson = lesson();
        let last = lesson.steps.len() - 1;
        let (two, four) = (lesson.trace(1), lesson.trace(last));
        assert_eq!(four.sizes.n_heads, MORE_HEADS);
        for step in [S::CKv, S::KPe, S::KRot] {
            assert_eq!(two.step(step).unwrap().data, four.step(step).unwrap().data, "{step}");
        }
        for step in [S::KCat, S::VHeads, S::Scores, S::Weights] {
            let (a, b) = (two.step(step).unwrap(), four.step(step).unwrap());
            for h in 0..HEADS {
                assert_eq!(a.matrix(0, h), b.matrix(0, h), "{step} head {}", h + 1);
            }
            // heads 3 and 4 are heads of their own
            assert_ne!(b.matrix(0, 2), b.matrix(0, 0), "{step}");
        }
        let words = lesson.steps[last].words(&four);
        assert!(
            words.contains(&format!("ends in {} in every head", row(&two, S::KRot, 0, 0, CAT))),
            "{words}"
        );
        assert!(!(lesson.steps[last].claims)(&four).is_empty());
        assert!(lesson.steps[last].claims_hold(&four));
    }

    /// One name for the shared RoPE key in the lesson's words: k_rot; k_pe only where the
    /// words quote DeepSeek's code and say so.
    #[test]
    fn the_shared_key_has_one_name() {
        let lesson = lesson();
        for (i, step) in lesson.steps.iter().enumerate() {
            let words = (step.narrate)(&lesson.trace(i));
            for (at, _) in words.match_indices("k_pe") {
                assert!(words[..at].ends_with("DeepSeek's code names it "), "step {}: {words}", i + 1);
            }
            assert!(!words.contains("rope key") && !words.contains(" rope "), "step {}: {words}", i + 1);
        }
        let aside = keys_aside(&lesson.trace(1)).unwrap();
        assert!(
            aside.head.iter().skip(1).all(|h| h.starts_with("k_nope ") || h.starts_with("k_rot ")),
            "{:?}",
            aside.head
        );
    }

    /// Steps 3 and 6's embeds print the key their words quote ("cat"'s k_rot) in a table:
    /// the embed's small maps print no numbers; steps 2 and 4's embeds show the table their
    /// words point at.
    #[test]
    fn the_embed_tables_hold_the_quoted_key() {
        let lesson = lesson();
        for i in [2, 5] {
            let t = lesson.trace(i);
            let make =
                lesson.steps[i].embed_aside.unwrap_or_else(|| panic!("step {}: no embed table", i + 1));
            let table = make(&t).unwrap();
            let rot: Vec<String> = (0..sizes(&t).qk_rope_head_dim)
                .map(|c| num(t.step(S::KRot).unwrap().data[[0, 0, CAT, c]]))
                .collect();
            assert!(lesson.steps[i].words(&t).contains(&format!("[{}]", rot.join(", "))));
            assert!(table.rows.iter().any(|(_, cells)| cells.ends_with(&rot)), "step {}: {table:?}", i + 1);
        }
        // steps 2 and 4 say "In the table" / "The table": their embeds show it beside the picture
        for i in [1, 3] {
            let t = lesson.trace(i);
            let words = lesson.steps[i].words(&t);
            assert!(words.contains("In the table") || words.contains("The table"), "step {}: {words}", i + 1);
            let make =
                lesson.steps[i].embed_aside.unwrap_or_else(|| panic!("step {}: no embed table", i + 1));
            assert_eq!(make(&t), (lesson.steps[i].aside)(&t), "step {}: the page's table", i + 1);
        }
        // step 2 quotes "cat"'s key in heads 1 and 2: both rows are in its table
        let t = lesson.trace(1);
        let table = keys_aside(&t).unwrap();
        for h in 0..2 {
            let key: Vec<String> =
                (0..sizes(&t).d_k()).map(|c| num(t.step(S::KCat).unwrap().data[[0, h, CAT, c]])).collect();
            assert!(lesson.steps[1].words(&t).contains(&format!("[{}]", key.join(", "))));
            assert!(table.rows.iter().any(|(_, cells)| cells == &key), "head {}: {table:?}", h + 1);
        }
        assert!(lesson
            .steps
            .iter()
            .enumerate()
            .all(|(i, s)| s.embed_aside.is_some() == [1, 2, 3, 5].contains(&i)));
    }

    #[test]
    fn a_trace_without_mla_gets_no_absorbed_table() {
        let t = run(&Scenario::identity(&["a b"], 2, 1)).unwrap();
        assert!(absorbed(&t).is_none() && absorbed_aside(&t).is_none());
        assert_eq!(absorbed_row(&t, 0), "[]");
    }
}
