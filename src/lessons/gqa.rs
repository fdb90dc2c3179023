//! Lesson 8, sharing keys and values: multi-head (MHA), grouped-query (GQA) and
//! multi-query (MQA) attention with the same query heads, and what each costs in the
//! key/value cache of a model that generates text.

use super::quiz::{Quiz, QuizKind};
use super::{at, num, row, seeded, token, Aside, Cell, Claim, Lesson, LessonStep, Quantity};
use crate::engine::decode::cache_bytes;
use crate::engine::{Scenario, StepName as S, Trace};

const SENTENCE: &str = "the cat sat on the mat";
/// "mat".
const MAT: usize = 5;
/// "cat"'s position in [`SENTENCE`].
const CAT: usize = 1;

/// Four query heads of d_k = 2 on seeded weights; `h_kv` key/value heads.
fn scenario(h_kv: usize) -> Scenario {
    let mut s = seeded(&[SENTENCE], 8, 4, 3);
    s.mask.causal = true;
    s.n_kv_heads = (h_kv != 4).then_some(h_kv);
    s
}

/// "2 · h_kv · d_k = … numbers" for the trace's sizes.
fn per_token(t: &Trace) -> String {
    let (h_kv, d_k) = (t.sizes.kv_heads(), t.sizes.d_k);
    format!("2 · h_kv · d_k = 2 · {h_kv} · {d_k} = {} numbers", 2 * h_kv * d_k)
}

/// Cell `(i, j)` of `step`, head `head`.
fn q_at(step: S, head: usize, i: usize, j: usize) -> Quantity {
    Quantity::Cell(Cell { step, batch: 0, head, row: i, col: j })
}

/// Step 2's words: query heads 1 and 2 read the same keys ("mat"'s key row is the same).
fn shared_key_claims(t: &Trace) -> Vec<Claim> {
    let mut out = Claim::words_at(&[(MAT, "mat")]);
    out.extend((0..t.sizes.d_k).map(|c| Claim::Equal(q_at(S::KRep, 0, MAT, c), q_at(S::KRep, 1, MAT, c))));
    out
}

/// Step 2's table: "mat"'s key row in k_rep for every query head, with the key head it
/// repeats: the rows the words quote, which the four small maps are drawn too small to
/// print.
fn mat_keys_aside(t: &Trace) -> Option<Aside> {
    let k = t.step(S::KRep)?;
    let group = t.sizes.group_size().max(1);
    let rows = (0..t.sizes.n_heads)
        .map(|h| {
            let m = k.matrix(0, h).filter(|m| MAT < m.nrows())?;
            let cells = m.row(MAT).iter().map(|v| num(*v)).collect();
            Some((format!("head {} (key head {})", h + 1, h / group + 1), cells))
        })
        .collect::<Option<Vec<_>>>()?;
    let mut head = vec![format!("k_rep: \"{}\" →", token(t, 0, MAT))];
    head.extend((0..t.sizes.d_k).map(|c| format!("d_k {c}")));
    Some(Aside {
        caption: format!("\"{}\"'s key in k_rep, one row per query head", token(t, 0, MAT)),
        head,
        rows,
    })
}

/// Step 3's words: the heads still attend differently, "mat" giving "cat" one weight in
/// head 1 and another in head 2.
fn differ_claims(_: &Trace) -> Vec<Claim> {
    let mut out = Claim::words_at(&[(CAT, "cat"), (MAT, "mat")]);
    out.push(Claim::Differ(vec![(q_at(S::Weights, 0, MAT, CAT), q_at(S::Weights, 1, MAT, CAT))]));
    out
}

/// Llama 3 8B: 32 layers, 8 key/value heads (for 32 query heads), d_k = 128, bf16.
const LLAMA3_8B: (u64, u64, u64, u64) = (32, 8, 128, 2);

/// A size as the reveal writes it: whole (128 KiB, 1 GiB) when it is one, like the
/// verdict's count, else two decimals.
fn amount(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{v:.0}")
    } else {
        num(v)
    }
}

/// The lesson.
pub fn lesson() -> Lesson {
    Lesson {
        id: "gqa",
        title: "GQA and MQA",
        seeds: "Llama 3, Mistral and Qwen's attention",
        steps: vec![
            LessonStep::new(
                "Every query head has its own key head",
                scenario(4),
                S::KHeads,
                |t| {
                    format!(
                        "Multi-head attention as in the 2017 paper: h = {} query heads, and as many key and value \
                         heads. A model that writes text one token at a time keeps every earlier token's keys and \
                         values, so it does not compute them again: the K/V cache. Per token and layer it holds {}.",
                        t.sizes.n_heads,
                        per_token(t),
                    )
                },
            ),
            LessonStep::new(
                "Grouped-query attention: two query heads share a key head",
                scenario(2),
                S::KRep,
                |t| {
                    format!(
                        "Llama 3, Mistral and Qwen keep fewer key/value heads: here h_kv = {} serves h = {} query \
                         heads, in groups of {}. The step k_rep repeats each key head for its group \
                         (k.repeat_interleave(h // h_kv, dim=1)), so query heads 1 and 2 read the same keys: \
                         \"mat\"'s key is {} in head 1 and {} in head 2. Numbering heads from 0, as the code \
                         does, query head i reads key head ⌊i / {}⌋: the heads called 1 and 2 here are i = 0 and 1. The cache per token and layer is now {}, half as much.",
                        t.sizes.kv_heads(),
                        t.sizes.n_heads,
                        t.sizes.group_size(),
                        row(t, S::KRep, 0, 0, MAT),
                        row(t, S::KRep, 0, 1, MAT),
                        t.sizes.group_size(),
                        per_token(t),
                    )
                },
            )
            .highlight(|t| {
                    [super::row_cells(t, S::KRep, 0, 0, MAT), super::row_cells(t, S::KRep, 0, 1, MAT)]
                        .concat()
                })
            .aside(mat_keys_aside)
            .embed_aside(mat_keys_aside)
            .claims(shared_key_claims),
            LessonStep::new(
                "Multi-query attention: one key head for all",
                scenario(1),
                S::Weights,
                |t| {
                    format!(
                        "With h_kv = 1 every query head reads the same keys and values, and still the heads \
                         attend differently, because their queries differ: \"mat\" gives \"cat\" {} in head 1 and \
                         {} in head 2. It is another model, with fewer parameters, so its outputs are not those of \
                         step 1: a model is trained with its h_kv. The cache per token and layer: {}, four times \
                         less than multi-head attention.",
                        num(at(t, S::Weights, 0, 0, MAT, CAT)),
                        num(at(t, S::Weights, 0, 1, MAT, CAT)),
                        per_token(t),
                    )
                },
            )
            .highlight(|t| (0..4).flat_map(|h| super::row_cells(t, S::Weights, 0, h, MAT)).collect())
            .claims(differ_claims),
            LessonStep::new(
                "Predict: the cache of a real model",
                scenario(2),
                S::KRep,
                |t| {
                    format!(
                        "The same arithmetic as in this small model ({} per token and layer), at full size. \
                         Type a number to see the answer.",
                        per_token(t)
                    )
                },
            )
            .quiz(Quiz {
                    reveal: None,
                    reveal_extra: None,
                    question: |_| {
                        "Llama 3 8B has 32 layers and 32 query heads of d_k = 128, but only 8 key/value heads. \
                         Each number is stored in bf16 (2 bytes). How many KiB of K/V cache does one token take? \
                         (2 tensors, K and V; 1 KiB = 1024 bytes.)"
                            .into()
                    },
                    kind: QuizKind::Number {
                        answer: |_| {
                            let (layers, kv, d_k, bytes) = LLAMA3_8B;
                            let kib = cache_bytes(layers, kv, d_k, bytes, 1) as f64 / 1024.0;
                            let mha = cache_bytes(layers, 32, d_k, bytes, 1) as f64 / 1024.0;
                            let long = cache_bytes(layers, kv, d_k, bytes, 8192) as f64 / (1u64 << 30) as f64;
                            Some((
                                kib,
                                format!(
                                    "2 · 32 layers · 8 heads · 128 · 2 bytes = {} bytes = {} KiB per token; with \
                                     32 key/value heads it would be {} KiB. At 8 192 tokens that is {} GiB per \
                                     sequence, for every sequence the server holds at once.",
                                    cache_bytes(layers, kv, d_k, bytes, 1),
                                    amount(kib),
                                    amount(mha),
                                    amount(long)
                                ),
                            ))
                        },
                        tolerance: 0.5,
                    },
                }),
        ],
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::run;

    #[test]
    fn grouped_heads_share_keys_and_the_cache_shrinks() {
        let gqa = run(&scenario(2)).unwrap();
        assert_eq!(row(&gqa, S::KRep, 0, 0, MAT), row(&gqa, S::KRep, 0, 1, MAT));
        assert_ne!(row(&gqa, S::KRep, 0, 1, MAT), row(&gqa, S::KRep, 0, 2, MAT));
        let mqa = run(&scenario(1)).unwrap();
        assert_ne!(
            at(&mqa, S::Weights, 0, 0, MAT, 1),
            at(&mqa, S::Weights, 0, 1, MAT, 1),
            "heads still differ"
        );
        assert_eq!(per_token(&mqa), "2 · h_kv · d_k = 2 · 1 · 2 = 4 numbers");
        assert_eq!(cache_bytes(32, 8, 128, 2, 1), 128 * 1024);
    }

    /// Step 2 quotes "mat"'s key row in heads 1 and 2, which its four small maps do not
    /// print: the table beside its words (and in its embed) holds them, one row per query
    /// head, with the key head each repeats.
    #[test]
    fn the_quoted_key_rows_are_in_the_table() {
        let l = lesson();
        let (step, t) = (&l.steps[1], run(&l.steps[1].scenario).unwrap());
        let aside = (step.aside)(&t).unwrap();
        assert_eq!(Some(aside.clone()), (step.embed_aside.unwrap())(&t));
        let titles: Vec<&str> = aside.rows.iter().map(|r| r.0.as_str()).collect();
        assert_eq!(
            titles,
            ["head 1 (key head 1)", "head 2 (key head 1)", "head 3 (key head 2)", "head 4 (key head 2)"]
        );
        for h in 0..2 {
            assert_eq!(format!("[{}]", aside.rows[h].1.join(", ")), row(&t, S::KRep, 0, h, MAT));
        }
        let shown: Vec<&String> = aside.rows.iter().flat_map(|r| &r.1).collect();
        for n in crate::lessons::quoted_numbers(&step.words(&t)) {
            assert!(shown.contains(&&n), "{n} is not in the table");
        }
    }
}
