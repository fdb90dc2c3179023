//! The questions of the multi-head latent attention lesson: a cache size of other sizes
//! than DeepSeek-V3's ([`mla::cache_bytes_per_token`]), and which part of the key every
//! head shares, read from an MLA trace of its own sizes (not the lesson's).

use crate::engine::mla::{self, CacheKind};
use crate::engine::{run, Scenario, StepName as S};
use crate::format::group_digits;

use super::{CheckAnswer, CheckQuestion};

/// The lesson's check-yourself questions.
pub(super) fn mla() -> Vec<CheckQuestion> {
    // DeepSeek-V2-Lite's attention: 27 layers, r_kv = 512, d_rope = 64; 16 heads of
    // d_k = 128 + 64 and d_v = 128
    let latent = mla::cache_bytes_per_token(CacheKind::Latent { kv_lora_rank: 512, d_rope: 64 }, 27, 2);
    let heads = mla::cache_bytes_per_token(CacheKind::Heads { kv_heads: 16, d_k: 192, d_v: 128 }, 27, 2);
    let shared = shared_key_part();
    vec![
        CheckQuestion {
            question: "DeepSeek-V2-Lite has 27 layers, a latent of r_kv = 512 and a RoPE key of d_rope = 64, in bf16 (2 bytes a number). How many bytes of MLA cache does one token take?".into(),
            answer: CheckAnswer::Number { value: latent as f64, tolerance: 0.0 },
            why: format!(
                "27 × (512 + 64) × 2 = {} bytes. Its 16 heads' keys (192) and values (128) would take 27 × 16 × 320 × 2 = {}.",
                group_digits(latent),
                group_digits(heads)
            ),
        },
        CheckQuestion {
            question: format!(
                "Another MLA layer has {} heads, keys of d_nope + d_rope = {} + {} and a latent of r_kv = {}. \
                 Which part of a token's key is the same in every head?",
                shared.heads, shared.d_nope, shared.d_rope, shared.r_kv
            ),
            answer: CheckAnswer::Choice {
                choices: vec![
                    format!("its last {} numbers", shared.d_rope),
                    format!("its first {} numbers", shared.d_nope),
                    format!("none of its {} numbers", shared.d_nope + shared.d_rope),
                ],
                right: shared.part,
            },
            why: format!(
                "The first {} numbers, k_nope, are c_KV times each head's own W_UK; the last {}, the shared RoPE key k_rot, are made once per token and shared by every head, as MQA shares its one key.",
                shared.d_nope, shared.d_rope
            ),
        },
    ]
}

/// The sizes of the question's MLA layer, read from its trace, and which part of the key
/// every head shares there, as the choices' index: 0 for the last `d_rope` numbers, 1
/// for the first `d_nope`, 2 for none.
struct SharedPart {
    heads: usize,
    d_nope: usize,
    d_rope: usize,
    r_kv: usize,
    part: usize,
}

/// Runs an MLA layer of other sizes than the lesson's (3 heads, d_nope = 5, d_rope = 4,
/// r_kv = 3; the lesson has 2, 3, 2 and 4) and compares its heads' keys.
fn shared_key_part() -> SharedPart {
    let json = r#"{"sentences": ["a b c"], "d_model": 6, "n_heads": 3, "projections": "seeded", "seed": 2,
        "rope": {"style": "half"}, "mla": {"kv_lora_rank": 3, "qk_nope_head_dim": 5, "qk_rope_head_dim": 4, "v_head_dim": 2}}"#;
    let none = SharedPart { heads: 0, d_nope: 0, d_rope: 0, r_kv: 0, part: 0 };
    let Ok(t) = Scenario::from_json(json).and_then(|s| run(&s)) else { return none };
    let (Some(k), Some(m)) = (t.step(S::KCat), t.mla.as_ref()) else { return none };
    let (heads, d_nope, d_k) = (t.sizes.n_heads, m.qk_nope_head_dim, m.d_k());
    let same = |cols: std::ops::Range<usize>| {
        (1..heads).all(|h| {
            let (a, b) = (k.matrix(0, 0), k.matrix(0, h));
            a.zip(b).is_some_and(|(a, b)| cols.clone().all(|c| a.column(c) == b.column(c)))
        })
    };
    let part = if same(d_nope..d_k) {
        0
    } else if same(0..d_nope) {
        1
    } else {
        2
    };
    SharedPart { heads, d_nope, d_rope: m.qk_rope_head_dim, r_kv: m.kv_lora_rank, part }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_questions_numbers_are_not_the_lessons() {
        let lesson = crate::lessons::mla::lesson().trace(0);
        let m = lesson.mla.clone().unwrap();
        let q = shared_key_part();
        assert_eq!(q.part, 0);
        assert_eq!((q.heads, q.d_nope, q.d_rope, q.r_kv), (3, 5, 4, 3));
        assert!(q.heads != lesson.sizes.n_heads && q.d_nope != m.qk_nope_head_dim);
        assert!(q.d_rope != m.qk_rope_head_dim && q.r_kv != m.kv_lora_rank);
        let questions = mla();
        assert!(questions[1].question.contains("d_nope + d_rope = 5 + 4"), "{}", questions[1].question);
        // the lesson's two questions put their answers in different places
        let CheckAnswer::Choice { right, .. } = &questions[1].answer else { panic!("a choice") };
        let step = crate::lessons::mla::lesson().steps.last().cloned().unwrap();
        let crate::lessons::quiz::QuizKind::Choice { answer, .. } = step.quiz.unwrap().kind else { panic!() };
        let (quiz_right, _) = answer(&crate::engine::run(&step.scenario).unwrap()).unwrap();
        assert_ne!(*right, quiz_right);
    }
}
