//! The questions, lesson by lesson: each runs the engine (or one of its functions) on
//! numbers of its own and reads the answer from what it computed.

use crate::engine::attention::alibi_slopes;
use crate::engine::decode::cache_bytes;
use crate::engine::tiled::online_row;
use crate::engine::train::config::OptimizerConfig;
use crate::engine::train::optim::Optimizer;
use crate::engine::{decode, run, Scenario, StepName as S, Trace};

use super::{CheckAnswer, CheckQuestion};
use crate::format::group_digits;
use crate::lessons::{at, num, row};

/// A scenario from JSON the module writes itself.
fn scenario(json: &str) -> Scenario {
    Scenario::from_json(json).expect("a check-yourself scenario is valid")
}

/// The engine's trace of a scenario the module writes itself.
fn trace(json: &str) -> Trace {
    run(&scenario(json)).expect("a check-yourself scenario runs")
}

/// The index of the largest of `xs` (the first of a tie).
fn argmax(xs: &[f64]) -> usize {
    xs.iter().enumerate().fold(0, |best, (i, &x)| if x > xs[best] { i } else { best })
}

/// A choice question whose choices are the key tokens of sentence 0 and whose answer is
/// the key query `i` of `head` gives the most weight.
fn top_key_question(t: &Trace, head: usize, i: usize, question: String) -> CheckQuestion {
    let keys: Vec<String> = t.key_tokens(0).iter().map(|k| format!("\"{k}\"")).collect();
    let weights: Vec<f64> = (0..keys.len()).map(|j| at(t, S::Weights, 0, head, i, j)).collect();
    let right = argmax(&weights);
    CheckQuestion {
        question,
        answer: CheckAnswer::Choice { choices: keys, right },
        // the weights themselves are left out: a question after this one may ask for one
        why: format!(
            "Its scaled scores are {}: softmax keeps their order, so the largest score gets the largest weight.",
            row(t, S::Scaled, 0, head, i)
        ),
    }
}

/// How many keys query `i` of sentence 0 may attend to (its finite masked scores).
fn visible_keys(t: &Trace, i: usize) -> usize {
    let n = t.key_tokens(0).len();
    (0..n)
        .filter(|&j| at(t, S::Masked, 0, 0, i, j).is_finite() && at(t, S::Masked, 0, 0, i, j) > -1e8)
        .count()
}

pub(super) fn baseball() -> Vec<CheckQuestion> {
    let t = trace(
        r#"{"sentences": ["cave the bat"], "d_model": 3, "n_heads": 1, "projections": "identity",
            "embeddings": {"cave": [0, 3, 0], "the": [0, 0, 1], "bat": [1, 1, 0]}}"#,
    );
    let vectors = "cave = [0, 3, 0], the = [0, 0, 1] and bat = [1, 1, 0] (sports, animal, other), W = I";
    let w = at(&t, S::Weights, 0, 0, 2, 0);
    vec![
        top_key_question(
            &t,
            0,
            2,
            format!("New vectors, the same rule: {vectors}. Which word does \"bat\" give the most weight?"),
        ),
        CheckQuestion {
            question: "And what weight does \"bat\" give to \"cave\", to two decimals?".into(),
            answer: CheckAnswer::Number { value: w, tolerance: 0.005 },
            why: format!(
                "Its scores q·k/√3 are {}; their softmax is {}.",
                row(&t, S::Scaled, 0, 0, 2),
                row(&t, S::Weights, 0, 0, 2)
            ),
        },
    ]
}

pub(super) fn heads() -> Vec<CheckQuestion> {
    let t = trace(
        r#"{"sentences": ["ran dog it"], "d_model": 4, "n_heads": 2, "projections": "identity",
            "embeddings": {"ran": [0, 0, 0, 2], "dog": [2, 0, 0, 0], "it": [1, 0, 0, 1]}}"#,
    );
    let wide = trace(r#"{"sentences": ["a b"], "d_model": 12, "n_heads": 3, "projections": "identity"}"#);
    let d_k = wide.step(S::QHeads).and_then(|s| s.shape.last().copied()).unwrap_or(0) as f64;
    // the columns head `h` (from 0) reads, counted from 0 as the lesson's words and tables
    // count them ("column d_k 1", "h2 · 0"); heads are named from 1, as the lesson names them
    let reads = |h: usize| {
        let d = t.sizes.d_k;
        format!("dimensions {}–{}", h * d, (h + 1) * d - 1)
    };
    vec![
        CheckQuestion {
            question: "A model with d_model = 12 and h = 3 heads: how many numbers wide is each head's query (d_k)?".into(),
            answer: CheckAnswer::Number { value: d_k, tolerance: 0.0 },
            why: "The heads split d_model between them: 12 / 3 = 4 columns each.".into(),
        },
        top_key_question(
            &t,
            1,
            2,
            format!(
                "d_model = 4, h = 2, W = I, dimensions counted from 0 as in the lesson: head 1 reads {}, head 2 {}. ran = [0, 0, 0, 2], dog = [2, 0, 0, 0], it = [1, 0, 0, 1]. In head 2, which word does \"it\" give the most weight?",
                reads(0),
                reads(1)
            ),
        ),
    ]
}

pub(super) fn masks() -> Vec<CheckQuestion> {
    let causal = trace(
        r#"{"sentences": ["a b c d e f g"], "d_model": 2, "n_heads": 1, "projections": "identity",
            "mask": {"causal": true}}"#,
    );
    let padded = trace(
        r#"{"sentences": ["one two three four five", "six seven eight"], "d_model": 2, "n_heads": 1,
            "projections": "identity", "mask": {"padding": "keys_and_queries", "fill": "large_negative"}}"#,
    );
    let pad_row: Vec<f64> = (0..5).map(|j| at(&padded, S::Weights, 1, 0, 4, j)).collect();
    let right = if pad_row.iter().all(|w| w.is_nan()) {
        2
    } else if pad_row.iter().all(|w| (w - 0.2).abs() < 1e-12) {
        0
    } else {
        1
    };
    vec![
        CheckQuestion {
            question: "A causal mask over a sentence of 7 tokens: how many keys may the 5th token (counting from 1) attend to?".into(),
            answer: CheckAnswer::Number { value: visible_keys(&causal, 4) as f64, tolerance: 0.0 },
            why: "Itself and every token before it: keys 1 to 5.".into(),
        },
        CheckQuestion {
            question: "Sentences of 5 and 3 tokens in one batch: the short one is padded to 5. Padding masks keys and queries, filled with -1e9. What does a <pad> query's row of weights hold?".into(),
            answer: CheckAnswer::Choice {
                choices: vec!["0.2 for every key".into(), "0 everywhere".into(), "NaN".into()],
                right,
            },
            why: format!(
                "Every score in that row is -1e9, so the softmax sees five equal numbers: {}. With -inf it would be NaN.",
                row(&padded, S::Weights, 1, 0, 4)
            ),
        },
    ]
}

pub(super) fn shapes() -> Vec<CheckQuestion> {
    let t = trace(
        r#"{"sentences": ["a b c d e", "f g h i j"], "d_model": 8, "n_heads": 2, "projections": "identity"}"#,
    );
    let shape = |s: S| t.step(s).map(|s| s.shape.clone()).unwrap_or_default();
    let text = |v: &[usize]| format!("({})", v.iter().map(usize::to_string).collect::<Vec<_>>().join(", "));
    let scores = shape(S::Scores);
    let choices = vec![text(&shape(S::QHeads)), text(&shape(S::X)), text(&[2, 5, 5]), text(&scores)];
    let right = choices.iter().position(|c| *c == text(&scores)).unwrap_or(0);
    vec![
        CheckQuestion {
            question: "B = 2 sentences of T = 5 tokens, d_model = 8, h = 2 heads. What is the shape of the scores q @ kᵀ?".into(),
            answer: CheckAnswer::Choice { choices, right },
            why: format!(
                "(B, h, T, d_k) @ (B, h, d_k, T) multiplies the last two axes: {} = (B, h, T, T).",
                text(&scores)
            ),
        },
        CheckQuestion {
            question: "And how many numbers does that scores tensor hold?".into(),
            answer: CheckAnswer::Number { value: scores.iter().product::<usize>() as f64, tolerance: 0.0 },
            why: format!("{} = {}.", scores.iter().map(usize::to_string).collect::<Vec<_>>().join(" × "), scores.iter().product::<usize>()),
        },
    ]
}

pub(super) fn cross() -> Vec<CheckQuestion> {
    let t = trace(
        r#"{"sentences": ["the dog runs fast"], "kv_sentences": ["le chien court très vite"], "d_model": 4,
            "n_heads": 1, "projections": "identity"}"#,
    );
    let shape = t.step(S::Weights).map(|s| s.shape.clone()).unwrap_or_default();
    let (rows, cols) = (shape.get(2).copied().unwrap_or(0), shape.get(3).copied().unwrap_or(0));
    let choices = vec![format!("{cols} × {rows}"), format!("{rows} × {rows}"), format!("{rows} × {cols}")];
    let keys_from_french = t.key_tokens(0).first().is_some_and(|k| k == "le");
    vec![
        CheckQuestion {
            question: "Cross-attention: the 4 English words \"the dog runs fast\" query the 5 French words \"le chien court très vite\" (one head). What size is the weights matrix (rows × columns)?".into(),
            answer: CheckAnswer::Choice { choices, right: 2 },
            why: format!("One row per query ({rows} English words), one column per key ({cols} French words)."),
        },
        CheckQuestion {
            question: "In that run, which sentence gives the values that are mixed into the output?".into(),
            answer: CheckAnswer::Choice {
                choices: vec!["the French one".into(), "the English one".into(), "both, half each".into()],
                right: if keys_from_french { 0 } else { 1 },
            },
            why: format!("The keys and values come from the other sequence: {}.", t.key_tokens(0).join(" ")),
        },
    ]
}

pub(super) fn word_order() -> Vec<CheckQuestion> {
    // 42 tokens, so that positions 40 and 41 are in the trace (the lesson's own tables
    // stop far earlier: the question cannot be read off them)
    let t = trace(&format!(
        r#"{{"sentences": ["{}"], "d_model": 8, "n_heads": 1, "projections": "identity",
            "positional": "sinusoidal"}}"#,
        vec!["a"; 42].join(" ")
    ));
    let dot = |p: usize, q: usize| {
        (0..8).map(|c| at(&t, S::Pe, 0, 0, p, c) * at(&t, S::Pe, 0, 0, q, c)).sum::<f64>()
    };
    let (early, late) = (dot(2, 3), dot(40, 41));
    let right = if (early - late).abs() < 1e-9 {
        2
    } else if early > late {
        0
    } else {
        1
    };
    vec![
        CheckQuestion {
            question: "Sinusoidal positions with d_model = 8 (positions counted from 0). Which is larger: PE(2)·PE(3) or PE(40)·PE(41)?".into(),
            answer: CheckAnswer::Choice {
                choices: vec!["PE(2)·PE(3)".into(), "PE(40)·PE(41)".into(), "they are equal".into()],
                right,
            },
            why: format!(
                "PE(2)·PE(3) = {} and PE(40)·PE(41) = {}. Each sine–cosine pair adds sin(ωp)·sin(ωq) + cos(ωp)·cos(ωq) = cos(ω(p − q)), \
                 so the product depends only on how far apart the two positions are, not where they are.",
                num(early),
                num(late)
            ),
        },
        CheckQuestion {
            question: "And with the same d_model = 8 (not the lesson's 16): PE(5)·PE(5), the squared length of one position's code?".into(),
            answer: CheckAnswer::Number { value: dot(5, 5), tolerance: 0.005 },
            why: "Each of the 4 sine–cosine pairs gives sin² + cos² = 1, so every position's code has squared length d_model / 2 = 4.".into(),
        },
    ]
}

pub(super) fn rope() -> Vec<CheckQuestion> {
    let t = trace(
        r#"{"sentences": ["z z q z z k z q z z k"], "d_model": 4, "n_heads": 1, "projections": "identity",
            "rope": {"style": "half"}, "embeddings": {"q": [1, 0.5, -1, 2], "k": [0.5, 2, 1, -1], "z": [0, 0, 0, 0]}}"#,
    );
    let (a, b, c) =
        (at(&t, S::Scores, 0, 0, 2, 5), at(&t, S::Scores, 0, 0, 7, 10), at(&t, S::Scores, 0, 0, 2, 10));
    let same = (a - b).abs() < 1e-9;
    let long = trace(
        r#"{"sentences": ["q q q q q q q q q q"], "d_model": 2, "n_heads": 1, "projections": "identity",
            "rope": {"style": "half"}, "embeddings": {"q": [3, 4]}}"#,
    );
    let norm = (0..2).map(|c| at(&long, S::QRot, 0, 0, 9, c).powi(2)).sum::<f64>().sqrt();
    vec![
        CheckQuestion {
            question: "RoPE (half style, base 10000, d_model = 4, W = I): the query [1, 0.5, -1, 2] at positions 2 and 7, the key [0.5, 2, 1, -1] at positions 5 and 10 (counted from 0). Is the score of (2, 5) the same as that of (7, 10)?".into(),
            answer: CheckAnswer::Choice {
                choices: vec!["no, later positions turn further".into(), "yes, the same".into()],
                right: usize::from(same),
            },
            why: format!(
                "Both pairs are 3 apart, and RoPE's score depends on the difference only: {} and {}. The pair (2, 10), 8 apart, gives {}.",
                num(a),
                num(b),
                num(c)
            ),
        },
        CheckQuestion {
            question: "A query [3, 4] (length 5) is rotated by RoPE at position 9. What is its length after?".into(),
            answer: CheckAnswer::Number { value: norm, tolerance: 0.005 },
            why: "A rotation turns a pair of numbers without stretching it: the length stays 5.".into(),
        },
    ]
}

pub(super) fn gqa() -> Vec<CheckQuestion> {
    let h = 8;
    let h_kv = 2;
    let t = trace(
        r#"{"sentences": ["a b c"], "d_model": 16, "n_heads": 8, "n_kv_heads": 2, "projections": "seeded", "seed": 5}"#,
    );
    // which K/V head query head 6 (index 5) reads: the one whose keys equal its repeated keys
    let reads = (0..h_kv).find(|&g| {
        (0..3).all(|i| (0..2).all(|c| at(&t, S::KRep, 0, 5, i, c) == at(&t, S::KHeads, 0, g, i, c)))
    });
    let full = cache_bytes(32, h as u64, 128, 2, 4096);
    let grouped = cache_bytes(32, h_kv as u64, 128, 2, 4096);
    vec![
        CheckQuestion {
            question: "h = 8 query heads share h_kv = 2 K/V heads, in groups of 4. Which K/V head does query head 6 (counting from 1) read?".into(),
            answer: CheckAnswer::Choice {
                choices: vec!["K/V head 1".into(), "K/V head 2".into()],
                right: reads.unwrap_or(0),
            },
            why: "Heads 1–4 read K/V head 1 and heads 5–8 read K/V head 2 (repeat_interleave).".into(),
        },
        CheckQuestion {
            question: "How many times smaller is that model's K/V cache than with 8 K/V heads?".into(),
            answer: CheckAnswer::Number { value: full as f64 / grouped as f64, tolerance: 0.0 },
            why: "The cache holds one key and one value per K/V head: 8 / 2 = 4 times fewer.".into(),
        },
    ]
}

pub(super) fn local() -> Vec<CheckQuestion> {
    // a window of 5 (the lesson's is 3), and three layers stacked (the lesson shows four)
    let t = trace(
        r#"{"sentences": ["a b c d e f g h i j k l m n o p q r s t u"], "d_model": 2, "n_heads": 1,
            "projections": "identity", "mask": {"causal": true, "window": 5}}"#,
    );
    // how far back position 20 can have heard of after 3 layers: each layer reaches the
    // earliest key the mask lets the earliest position reached so far read
    let earliest_read = |i: usize| (0..=i).find(|&j| !t.mask.is_blocked(0, i, j)).unwrap_or(i);
    let reached = (0..3).fold(20, |i, _| earliest_read(i));
    let slopes = alibi_slopes(8);
    vec![
        CheckQuestion {
            question: "A causal sliding window of 5 keys, and 3 such layers stacked. How many positions before it (itself not counted) can the token at position 20 (counted from 0) have heard of after the third layer?".into(),
            answer: CheckAnswer::Number { value: (20 - reached) as f64, tolerance: 0.0 },
            why: format!(
                "Each layer reads W − 1 = 4 positions back, and what it read had read 4 further in the layer before: 3 × 4 = {} positions before it, back to position {reached} (with itself, L·(W − 1) + 1 = {} positions).",
                20 - reached,
                20 - reached + 1
            ),
        },
        CheckQuestion {
            question: "ALiBi with h = 8 heads: what is head 3's slope m (counting from 1)?".into(),
            answer: CheckAnswer::Number { value: slopes[2], tolerance: 0.0005 },
            why: format!(
                "The slopes are 2^(−8·k/h) for k = 1 … h, here 2^(−k): {}.",
                slopes.iter().map(|s| crate::format::exact(*s)).collect::<Vec<_>>().join(", ")
            ),
        },
    ]
}

pub(super) fn kv_cache() -> Vec<CheckQuestion> {
    let bytes = cache_bytes(28, 4, 128, 2, 32_768);
    let gib = bytes as f64 / f64::from(1u32 << 30);
    let decoded = decode(&scenario(
        r#"{"sentences": ["a b c d e f g h"], "d_model": 2, "n_heads": 1, "projections": "identity",
            "mask": {"causal": true}}"#,
    ))
    .expect("a check-yourself scenario decodes");
    let cached = decoded.positions.get(6).map_or(0, |p| p.cache_positions.len());
    vec![
        CheckQuestion {
            question: "A model with 28 layers, 4 K/V heads and d_k = 128 keeps its cache in bf16 (2 bytes). How many GiB does one sequence of 32,768 tokens need?".into(),
            answer: CheckAnswer::Number { value: gib, tolerance: 0.005 },
            why: format!(
                "2 (K and V) × 28 × 4 × 128 × 2 bytes × 32,768 = {} bytes = {} GiB.",
                group_digits(bytes),
                num(gib)
            ),
        },
        CheckQuestion {
            question: "Decoding with a causal mask and no window, positions counted from 0: how many keys are in the cache when the query at t = 6 is scored?".into(),
            answer: CheckAnswer::Number { value: cached as f64, tolerance: 0.0 },
            why: "Positions 0 to 6: every earlier key and the one just appended.".into(),
        },
    ]
}

pub(super) fn online_softmax() -> Vec<CheckQuestion> {
    let rescale = online_row(&[2.0, 5.0], 1);
    let factor = rescale.get(1).map_or(f64::NAN, |r| r.correction);
    let tiles = online_row(&[1.0, 3.0, 2.0, 0.0], 2);
    let last = tiles.last().copied();
    vec![
        CheckQuestion {
            question: "A row's running maximum is m = 2; the next tile's largest score is 5. By what factor is the running sum ℓ rescaled (4 decimals)?".into(),
            answer: CheckAnswer::Number { value: factor, tolerance: 0.00005 },
            why: format!("e^(m − m′) = e^(2 − 5) = {factor:.4}."),
        },
        CheckQuestion {
            question: "Scores [1, 3, 2, 0] in tiles of 2. What is the running sum ℓ after the last tile (two decimals)?".into(),
            answer: CheckAnswer::Number { value: last.map_or(f64::NAN, |r| r.l), tolerance: 0.005 },
            why: format!(
                "m = {}, and ℓ = e^(1−3) + e^(3−3) + e^(2−3) + e^(0−3) = {}: the same as one softmax's denominator over the whole row.",
                last.map_or(String::new(), |r| num(r.m)),
                last.map_or(String::new(), |r| num(r.l))
            ),
        },
    ]
}

pub(super) fn learn() -> Vec<CheckQuestion> {
    let mut w = [1.0];
    Optimizer::new(
        OptimizerConfig::Sgd { lr: 0.5, momentum: 0.0, dampening: 0.0, nesterov: false, weight_decay: 0.0 },
        1,
    )
    .step(&mut w, &[-0.2]);
    let moved = w[0] - 1.0;
    let adam = |g: f64| {
        let mut p = [0.0];
        Optimizer::new(
            OptimizerConfig::Adam { lr: 0.01, betas: [0.9, 0.999], eps: 1e-8, weight_decay: 0.0 },
            1,
        )
        .step(&mut p, &[g]);
        p[0]
    };
    let (big, small) = (adam(1000.0), adam(0.001));
    let same = (big - small).abs() < 1e-4;
    vec![
        CheckQuestion {
            question: "Plain gradient descent, learning rate 0.5. A weight's gradient dL/dw is −0.2. How much does the weight change (a signed number)?".into(),
            answer: CheckAnswer::Number { value: moved, tolerance: 0.005 },
            why: "w ← w − lr · dL/dw = w − 0.5 · (−0.2) = w + 0.1: against the gradient, so the loss falls.".into(),
        },
        CheckQuestion {
            question: "Adam, learning rate 0.01, first step: one weight's gradient is 1000, another's 0.001. Which moves further?".into(),
            answer: CheckAnswer::Choice {
                choices: vec!["both about the same".into(), "the one with gradient 1000".into(), "the one with gradient 0.001".into()],
                right: if same { 0 } else if big.abs() > small.abs() { 1 } else { 2 },
            },
            why: format!(
                "Adam divides by the gradient's own size: both move by about the learning rate ({} and {}).",
                num(big),
                num(small)
            ),
        },
    ]
}

pub(super) fn sinks() -> Vec<CheckQuestion> {
    let t = trace(
        r#"{"sentences": ["a b c d"], "d_model": 1, "n_heads": 1, "projections": "identity",
            "embeddings": {"a": [0], "b": [0], "c": [0], "d": [0]}, "sinks": [0]}"#,
    );
    let each = at(&t, S::Weights, 0, 0, 0, 0);
    let sum = t.step(S::Weights).and_then(|s| s.row_sum(0, 0, 0)).unwrap_or(f64::NAN);
    let matches = trace(
        r#"{"sentences": ["the cat sat"], "d_model": 2, "n_heads": 1, "projections": "identity",
            "embeddings": {"the": [0, 0], "cat": [2, 0], "sat": [0, 1]}, "sinks": [1]}"#,
    );
    // the choices are the tokens in the sentence's order; its rows' sums, in the same order
    let names: Vec<String> = matches.query_tokens(0).iter().map(|w| format!("\"{w}\"")).collect();
    let sums: Vec<f64> = (0..names.len())
        .map(|i| matches.step(S::Weights).and_then(|s| s.row_sum(0, 0, i)).unwrap_or(f64::NAN))
        .collect();
    let least = sums.iter().enumerate().fold(0, |best, (i, &x)| if x < sums[best] { i } else { best });
    let listed: Vec<String> = names.iter().zip(&sums).map(|(w, s)| format!("{w} {}", num(*s))).collect();
    vec![
        CheckQuestion {
            question: "A head with a sink logit of 0 scores all 4 keys of a row 0 (after scaling). What weight does each key get, to two decimals?".into(),
            answer: CheckAnswer::Number { value: each, tolerance: 0.005 },
            why: format!(
                "e^0 = 1 for each of the 4 keys and 1 for the sink: each key gets 1/5 = {}, and the row sums to {}.",
                num(each),
                num(sum)
            ),
        },
        CheckQuestion {
            question: "Identity projections, the = [0, 0], cat = [2, 0], sat = [0, 1], no mask, a sink logit of 1. Whose row of weights sums to the least?".into(),
            answer: CheckAnswer::Choice { choices: names, right: least },
            why: format!(
                "The row sums are {}: \"cat\" matches itself strongly, \"sat\" weakly and \"the\" (all zeros) nothing, and the sink's e^1 is a larger share of a row whose scores are small.",
                listed.join(", ")
            ),
        },
    ]
}

pub(super) fn score_range() -> Vec<CheckQuestion> {
    let capped = trace(
        r#"{"sentences": ["a b"], "d_model": 1, "n_heads": 1, "projections": "identity",
            "embeddings": {"a": [5], "b": [6]}, "scale": 1, "softcap": 10}"#,
    );
    let score = at(&capped, S::Capped, 0, 0, 0, 1);
    let normed = trace(
        r#"{"sentences": ["a a"], "d_model": 9, "n_heads": 1, "projections": "identity",
            "embeddings": {"a": [30, -7, 12, 5, 0, 3, -2, 8, 1]}, "qk_norm": {}}"#,
    );
    let most = at(&normed, S::Scaled, 0, 0, 0, 0);
    // d_k = 9, not the lesson's 4: the bound is √9 = 3, which the lesson's words do not give
    let choices = [2.9, 3.5, 1.5];
    let right = choices.iter().position(|&c| c > most).unwrap_or(0);
    vec![
        CheckQuestion {
            question: "Softcap c = 10 (Gemma 2's rule, c·tanh(s / c)): what does a score of 30 become, to two decimals?".into(),
            answer: CheckAnswer::Number { value: score, tolerance: 0.005 },
            why: format!("10·tanh(30 / 10) = 10·tanh(3) = {}: never past ±10, and a score of 1 would stay almost 1.", num(score)),
        },
        CheckQuestion {
            question: "QK-norm with weights 1 and d_k = 9: which scaled score q·k / √d_k can no query and key reach, however large the embeddings?".into(),
            answer: CheckAnswer::Choice { choices: choices.iter().map(|c| format!("{c:.1}")).collect(), right },
            why: format!(
                "After RMSNorm q and k have length √9 = 3, so q·k ≤ 9 and q·k / √9 ≤ 3. A vector with itself reaches the most: {}.",
                crate::format::fixed(most, 4)
            ),
        },
    ]
}
