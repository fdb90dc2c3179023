//! The lesson "Induction heads"'s check-yourself questions: one on the task's generator (how
//! many positions of a fresh sequence are scored), one on the hand-built model of the
//! challenge with the wrong key in layer 2 (where the second B then looks). Both answers
//! are the engine's.

use crate::challenges::induction::{judge, Attempt, Map, SEQUENCES, T};
use crate::engine::train::{probe, TrainConfig};

use super::{CheckAnswer, CheckQuestion};
use crate::lessons::num;

/// A fresh induction sequence of 16 tokens (seed 11's probe, not the lesson's), as
/// letters, and how many of its positions have a target, with its period.
fn scored_sequence() -> Option<(String, usize, usize)> {
    let config = TrainConfig::from_json(
        r#"{"task": "induction", "vocab": 26, "T": 16, "batch": 1, "seed": 11, "steps": 1,
            "d_model": 8, "n_heads": 1, "n_layers": 2, "optimizer": {"kind": "sgd", "lr": 0.1}}"#,
    )
    .ok()?;
    let b = probe(&config, 1);
    let letters: Vec<String> = b
        .tokens
        .iter()
        .map(|&x| char::from_u32('A' as u32 + x as u32).map_or_else(String::new, String::from))
        .collect();
    let p = (1..b.t).find(|&i| b.tokens[..i].contains(&b.tokens[i]))?;
    Some((letters.join(" "), b.targets.iter().filter(|&&t| t >= 0).count(), p))
}

pub(in crate::lessons::check) fn induction() -> Vec<CheckQuestion> {
    let mut out = Vec::new();
    if let Some((seq, scored, p)) = scored_sequence() {
        out.push(CheckQuestion {
            question: format!(
                "A sequence of the induction task, 16 tokens: {seq}. At how many positions can the next token be known (and so is scored)?"
            ),
            answer: CheckAnswer::Number { value: scored as f64, tolerance: 0.0 },
            why: format!(
                "The first {p} tokens are random, so the repeat starts at position {p} (from 0). From there to the second-to-last position, the next token is the one that followed the same token the first time: positions {p} to 14, {scored} of them. The last position has no next token in the sequence."
            ),
        });
    }
    let wrong = Attempt { layer2: (Map::Token, Map::Token), ..Attempt::SOLUTION };
    if let Some(o) = judge(&wrong) {
        // the second B of the first test sequence, "^ A B C D A B C D", is position 6
        let i = 6;
        let w = |j: usize| o.attention[1].get(i * T + j).copied().unwrap_or(f64::NAN);
        let (first, own) = (w(2), w(6));
        // the choices below: the C after the first B (position 3), the A before (5), all at
        // the first B (2), or split between the first B and itself
        let right = if (first - own).abs() < 0.01 && first + own > 0.9 {
            Some(3)
        } else {
            [(3, 0), (5, 1), (2, 2)].iter().find(|&&(j, _)| w(j) > 0.9).map(|&(_, c)| c)
        };
        if let Some(right) = right {
            out.push(CheckQuestion {
                question: format!(
                    "Build the circuit by hand, with weights instead of training: in layer 2 the query reads each position's own token, and the key should read the token before it (what layer 1 copied there). Suppose the key reads the position's own token instead. On {} (^ marks the start), where does the second B look?",
                    SEQUENCES[0]
                ),
                answer: CheckAnswer::Choice {
                    choices: vec![
                        "at the C after the first B".into(),
                        "at the A just before it".into(),
                        "all at the first B".into(),
                        "half at the first B, half at itself".into(),
                    ],
                    right,
                },
                why: format!(
                    "Query and key now meet wherever the token is the same: at the first B and at the second B itself, with equal scores, so softmax splits the weight between them ({} and {}). Both carry B, so the head predicts B again, which is wrong: its mean weight on the key after an earlier occurrence of the query's token falls to {:.0}%.",
                    num(first),
                    num(own),
                    o.heads[1].induction * 100.0
                ),
            });
        }
    }
    out
}
