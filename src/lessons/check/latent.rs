//! The questions of the multi-head latent attention lesson: a cache size of other sizes
//! than DeepSeek-V3's ([`mla::cache_bytes_per_token`]), and which part of the key every
//! head shares, read from an MLA trace of its own.

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
            question: "Under MLA, with d_nope = 3 and d_rope = 2, which part of a token's key is the same in every head?".into(),
            answer: CheckAnswer::Choice {
                choices: vec![
                    "the first 3 numbers, k_nope".into(),
                    "the last 2 numbers, k_rot".into(),
                    "none: every head's key is its own".into(),
                ],
                right: shared,
            },
            why: "k_nope is c_KV times each head's own W_UK; the RoPE key is made once per token and shared by every head, as MQA shares its one key.".into(),
        },
    ]
}

/// Which part of the key every head shares in an MLA trace of its own: 0 for the
/// first `d_nope` numbers, 1 for the last `d_rope`, 2 for neither.
fn shared_key_part() -> usize {
    let json = r#"{"sentences": ["a b c"], "d_model": 6, "n_heads": 3, "projections": "seeded", "seed": 2,
        "rope": {"style": "half"}, "mla": {"kv_lora_rank": 4, "qk_nope_head_dim": 3, "qk_rope_head_dim": 2, "v_head_dim": 2}}"#;
    let Ok(t) = Scenario::from_json(json).and_then(|s| run(&s)) else { return 2 };
    let Some(k) = t.step(S::KCat) else { return 2 };
    let same = |cols: std::ops::Range<usize>| {
        (1..3).all(|h| {
            let (a, b) = (k.matrix(0, 0), k.matrix(0, h));
            a.zip(b).is_some_and(|(a, b)| cols.clone().all(|c| a.column(c) == b.column(c)))
        })
    };
    if same(0..3) {
        0
    } else if same(3..5) {
        1
    } else {
        2
    }
}
