//! Lesson 10, the key/value cache: how a model that generates text runs attention, one
//! new query at a time against the keys and values it kept; what the cache saves; why
//! decoding needs a causal mask anchored at the lower right (PyTorch's `is_causal` is
//! anchored at the top left); and what GQA and a sliding window do to the cache.
//!
//! Its pictures are the decode view ([`Extra::Decode`]) and the two causal corners
//! ([`Extra::CausalCorners`]); the words quote the full run's rows, which the decode
//! view's check holds equal to the decoded ones.

use super::quiz::{Quiz, QuizKind};
use super::{at, base, row, same_input, token, Cell, Claim, Extra, Lesson, LessonStep, Quantity};
use crate::engine::{ProjectionKind, Projections, Scenario, StepName as S, Trace};
use crate::format::fixed;

const SENTENCE: &str = "the cat sat on the mat";
/// "on": the position the decode steps open at.
const ON: usize = 3;
/// "mat".
const MAT: usize = 5;

/// Two heads of d_k = 4 on seeded weights, causal; `h_kv` key/value heads and a window
/// as asked.
fn scenario(h_kv: Option<usize>, window: Option<usize>) -> Scenario {
    let mut s = base(&[SENTENCE], 8, 2);
    s.projections = Projections::Named(ProjectionKind::Seeded);
    s.seed = 3;
    s.mask.causal = true;
    s.n_kv_heads = h_kv;
    s.mask.window = window;
    s
}

/// The key positions the cache holds at position `t`: all of `0..=t`, or the last `W`
/// under a window (what the engine's rolling buffer keeps).
fn cached(tr: &Trace, t: usize) -> std::ops::RangeInclusive<usize> {
    let w = tr.mask.config.window.unwrap_or(usize::MAX);
    (t + 1).saturating_sub(w)..=t
}

/// Query head 1's weights over the cached keys at position `t`, four decimals as the
/// decode view lists them: the full run's row `t` at those keys.
fn cached_weights(tr: &Trace, t: usize) -> String {
    let w: Vec<String> = cached(tr, t).map(|j| fixed(at(tr, S::Weights, 0, 0, t, j), 4)).collect();
    format!("[{}]", w.join(", "))
}

/// The first two cached keys at position `t` whose words share one input vector and get
/// the same weight ("on" and "the" in the toy lexicon), if any.
fn twins(tr: &Trace, t: usize) -> Option<(usize, usize)> {
    let keys: Vec<usize> = cached(tr, t).collect();
    keys.iter().enumerate().flat_map(|(n, &i)| keys[n + 1..].iter().map(move |&j| (i, j))).find(|&(i, j)| {
        same_input(tr, 0, i, j) && at(tr, S::Weights, 0, 0, t, i) == at(tr, S::Weights, 0, 0, t, j)
    })
}

/// Why two cached keys get the same weight at position `t`, when they do because their
/// words share one input vector ([`twins`]): a clause, or nothing.
fn twin_keys(tr: &Trace, t: usize) -> String {
    twins(tr, t)
        .map(|(i, j)| {
            format!(
                " (\"{}\" and \"{}\" get the same weight: the toy lexicon gives both words one vector, so their keys are equal)",
                token(tr, 0, i),
                token(tr, 0, j)
            )
        })
        .unwrap_or_default()
}

/// Weight `(i, j)` of query head 1.
fn w(i: usize, j: usize) -> Quantity {
    Quantity::Cell(Cell { step: S::Weights, batch: 0, head: 0, row: i, col: j })
}

/// Step 2's words: query head 1's weights in the decode view at position "on", as the
/// words quote them (four decimals), are row "on" of the full run's weights at the cached
/// keys.
fn decoded_weights_claims(d: &crate::engine::Decoded, tr: &Trace) -> Vec<Claim> {
    let Some(p) = d.positions.get(ON) else { return Vec::new() };
    p.cache_positions
        .iter()
        .enumerate()
        .map(|(k, &j)| {
            let decoded = p.weights.get([0, 0, 0, k]).copied().unwrap_or(f64::NAN);
            Claim::EqualAt(Quantity::Computed("the decoded weight", decoded), w(ON, j), 4)
        })
        .chain(std::iter::once(Claim::EqualAt(
            Quantity::Computed("keys cached", p.cache_positions.len() as f64),
            Quantity::Computed("keys the words count", cached(tr, ON).count() as f64),
            0,
        )))
        .collect()
}

/// The twin keys the words name at position `t` ([`twin_keys`]) get the same weight: a
/// claim only when the words make it.
fn twin_claims(tr: &Trace, t: usize) -> Vec<Claim> {
    twins(tr, t).map(|(i, j)| Claim::Equal(w(t, i), w(t, j))).into_iter().collect()
}

/// The last step's words: the full run's mask gives the keys that left the window
/// nothing, and the twin keys it names get the same weight.
fn window_claims(tr: &Trace) -> Vec<Claim> {
    let mut out: Vec<Claim> =
        (0..*cached(tr, MAT).start()).map(|j| Claim::Rounds(w(MAT, j), "0.00")).collect();
    out.extend(twin_claims(tr, MAT));
    out
}

/// The cache's shape at position `t`, `(B, h_kv, L, d_k)`.
fn cache_shape(tr: &Trace, t: usize) -> String {
    let len = cached(tr, t).count();
    format!("({}, {}, {len}, {})", tr.sizes.b, tr.sizes.kv_heads(), tr.sizes.d_k)
}

/// The tokens of the key positions `range`, quoted and joined with commas and "and".
fn tokens_of(tr: &Trace, range: impl Iterator<Item = usize>) -> String {
    let names: Vec<String> = range.map(|j| format!("\"{}\"", token(tr, 0, j))).collect();
    match names.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
        Some((last, _)) => last.clone(),
        None => String::new(),
    }
}

/// The question's sizes: the tokens the picture writes, and twice as many, the sentence
/// the question asks about (counting the picture's cells would not answer it).
fn kv_sizes(t: &Trace) -> (usize, usize) {
    let n = t.tokens.first().map_or(0, Vec::len);
    (n, 2 * n)
}

/// Key rows projected to write `n` tokens without a cache: step t projects t + 1.
fn without_cache(n: usize) -> usize {
    n * (n + 1) / 2
}

/// The lesson.
pub fn lesson() -> Lesson {
    Lesson {
        id: "kv-cache",
        title: "The KV cache",
        seeds: "how GPT-style models generate text",
        steps: vec![
            LessonStep::new(
                "A model writes one token at a time",
                scenario(None, None),
                S::Weights,
                |t| {
                    let n = t.tokens.first().map_or(0, Vec::len);
                    format!(
                        "Recall the three roles: a token's query asks what it is looking for, a key says what a \
                         token offers, and a value is what it passes on when it is chosen. A model that \
                         generates text writes one token at a time. To write the token after \"{}\" it needs \
                         one row of this causal picture, the last: \"{}\"'s weights over the {n} tokens so far, \
                         {} (head 1). The rows above it were computed at earlier steps, and they never change: \
                         under the causal mask no token sees a later one. So a model keeps every earlier token's \
                         key and value instead of computing them again. That store is the key/value cache, or \
                         KV cache.",
                        token(t, 0, n.saturating_sub(1)),
                        token(t, 0, n.saturating_sub(1)),
                        row(t, S::Weights, 0, 0, n.saturating_sub(1)),
                    )
                },
            )
            .highlight(|t| super::row_cells(t, S::Weights, 0, 0, MAT)),
            LessonStep::new(
                "The cache, one position at a time",
                scenario(None, None),
                S::Weights,
                |t| {
                    format!(
                        "The panel runs attention as a generating model does. When the step opens it is at step t = \
                         {ON} (positions count from 0): only \"{}\" is projected, to one query row, one key row and one value row. The \
                         key and value are appended to the cache, which is now (B, h_kv, L, d_k) = {}, and the \
                         one query is scored against the {} cached keys. Query head 1's weights, {}{}, are row {ON} \
                         of the full run's weights; the check under them compares the whole output row with the \
                         full run's. Press \"Next position →\" in the panel to append {}.",
                        token(t, 0, ON),
                        cache_shape(t, ON),
                        cached(t, ON).count(),
                        cached_weights(t, ON),
                        twin_keys(t, ON),
                        tokens_of(t, ON + 1..t.tokens.first().map_or(0, Vec::len)),
                    )
                },
            )
            .extra(Extra::Decode { t: ON })
            .claims_each_case(|t| twin_claims(t, ON))
            .decoded_claims(decoded_weights_claims),
            LessonStep::new(
                "Predict: what does the cache save?",
                scenario(None, None),
                S::Weights,
                |_| {
                    "Each row of the picture is one step of writing the sentence. Type a number to see the \
                     answer."
                        .into()
                },
            )
            .quiz(Quiz {
                    reveal: None,
                    reveal_extra: None,
                    question: |t| {
                        let (n, m) = kv_sizes(t);
                        format!(
                            "Without a cache, step t would project all t + 1 tokens so far to keys again (and to \
                             values). The picture writes {n} tokens; a sentence of {m} tokens, how many key rows is \
                             that in all? With the cache it is {m}, one per step."
                        )
                    },
                    kind: QuizKind::Number {
                        answer: |t| {
                            let (n, m) = kv_sizes(t);
                            let all = without_cache(m);
                            Some((
                                all as f64,
                                format!(
                                    "1 + 2 + … + {m} = {all}: for n tokens, n(n + 1)/2 key rows without a cache \
                                     against n with it. At 1 000 tokens that is 500 500 against 1 000, as many \
                                     value rows again, in every layer. The cache does not make the scores \
                                     cheaper: step t still compares one query with t + 1 keys, the coloured cells \
                                     of the triangle in the picture, {} for its {n} tokens.",
                                    without_cache(n),
                                ),
                            ))
                        },
                        tolerance: 0.1,
                    },
                }),
            LessonStep::new(
                "Predict: is_causal with one query",
                scenario(None, None),
                S::Weights,
                |_| "Choose an answer to see why.".into(),
            )
            .extra(Extra::Decode { t: ON })
            .quiz(Quiz {
                    reveal: None,
                    reveal_extra: None,
                    question: |t| {
                        format!(
                            "At step t = {ON} the query is 1 row and the key cache {} rows. A program calls \
                             F.scaled_dot_product_attention(q, k_cache, v_cache, is_causal=True). Which cached \
                             keys does that call let the one query see (not: which should it see)?",
                            cached(t, ON).count()
                        )
                    },
                    kind: QuizKind::Choice {
                        choices: |t| {
                            vec![
                                format!("all {}, {}", cached(t, ON).count(), tokens_of(t, cached(t, ON))),
                                format!("only \"{}\", the first", token(t, 0, 0)),
                                format!("only \"{}\", itself", token(t, 0, ON)),
                            ]
                        },
                        answer: |t| {
                            Some((
                                1,
                                format!(
                                    "PyTorch builds is_causal's mask as torch.ones(L, S).tril(), here with L = 1 \
                                     query and S = {} keys. Its diagonal starts at the top left, so row 0 keeps \
                                     column 0 only: the query would see \"{}\" and nothing else. is_causal assumes \
                                     the queries are the first positions; in decoding the one query is the \
                                     newest, position {ON}. The panel's weights are the right ones: the next step \
                                     shows both masks.",
                                    cached(t, ON).count(),
                                    token(t, 0, 0),
                                ),
                            ))
                        },
                    },
                }),
            LessonStep::new(
                "Top left or lower right",
                scenario(None, None),
                S::Masked,
                |_| {
                    "The two tables are causal masks for fewer queries (L) than keys (S). is_causal=True \
                     anchors the diagonal at the top left: query i sees keys j ≤ i, as if the queries came \
                     first (i counts the L queries from 0 and j the S keys, whatever positions the rows' \
                     labels give). causal_lower_right (in torch.nn.attention.bias) anchors it at the lower right: \
                     query i sees keys j ≤ i + (S − L), the queries being the newest positions. So one decoding \
                     query sees every cached key, and in a chunk of 2 queries against 6 keys the first sees 5 keys \
                     and the second all 6. When \
                     L = S, as for a whole sentence, the two agree: is_causal is right there, and wrong for a \
                     decoding step."
                        .into()
                },
            )
            .extra(Extra::CausalCorners),
            LessonStep::new(
                "GQA and a window keep the cache small",
                scenario(Some(1), Some(3)),
                S::Weights,
                |t| {
                    let w = t.mask.config.window;
                    let left = w.and_then(|w| MAT.checked_sub(w));
                    format!(
                        "Two ideas of today's models shrink the cache. Here h_kv = {} key/value head serves all {} \
                         query heads (multi-query attention){}. At t = \
                         {MAT} the cache is {}, the keys and values of {}{}. Without either it would be ({}, {}, \
                         {}, {}), and it would grow with every token. \"{}\"'s weights over the cached keys are \
                         {}{}: row {MAT} of the full run, whose mask blocks the same keys. A cache that forgot \
                         the window would keep growing, with rows the mask never lets a query read.",
                        t.sizes.kv_heads(),
                        t.sizes.n_heads,
                        w.map(|w| format!(
                            ", and a sliding window of W = {w} keeps only the last {w} positions: a rolling \
                             buffer, as Mistral keeps it"
                        ))
                        .unwrap_or_default(),
                        cache_shape(t, MAT),
                        tokens_of(t, cached(t, MAT)),
                        left.map(|p| format!("; \"{}\" (position {p}) has just left", token(t, 0, p)))
                            .unwrap_or_default(),
                        t.sizes.b,
                        t.sizes.n_heads,
                        MAT + 1,
                        t.sizes.d_k,
                        token(t, 0, MAT),
                        cached_weights(t, MAT),
                        twin_keys(t, MAT),
                    )
                },
            )
            .extra(Extra::Decode { t: MAT })
            .claims(window_claims),
        ],
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{decode, run};

    /// The words' cache (shape, positions, weights) is the decoder's, at both positions
    /// the lesson opens, and the count question's answer is written as a count.
    #[test]
    fn the_words_describe_the_decoders_cache() {
        for (s, t) in [(scenario(None, None), ON), (scenario(Some(1), Some(3)), MAT)] {
            let tr = run(&s).unwrap();
            let p = &decode(&s).unwrap().positions[t];
            assert_eq!(p.cache_positions, cached(&tr, t).collect::<Vec<_>>());
            let shape: Vec<String> = p.k_cache.shape().iter().map(usize::to_string).collect();
            assert_eq!(cache_shape(&tr, t), format!("({})", shape.join(", ")));
            let w: Vec<String> =
                p.weights.slice(ndarray::s![0, 0, 0, ..]).iter().map(|x| fixed(*x, 4)).collect();
            assert_eq!(cached_weights(&tr, t), format!("[{}]", w.join(", ")));
        }
        let windowed = run(&scenario(Some(1), Some(3))).unwrap();
        assert_eq!(tokens_of(&windowed, cached(&windowed, MAT)), "\"on\", \"the\" and \"mat\"");
        // "on" and "the" share one toy vector: equal weights, and the words say why
        assert!(twin_keys(&windowed, MAT).contains("\"on\" and \"the\" get the same weight"));
        assert!(twin_keys(&run(&scenario(None, None)).unwrap(), 1).is_empty());
        assert_eq!(without_cache(6), 21);
        let step = &lesson().steps[2];
        let tr = run(&step.scenario).unwrap();
        // the question asks about twice the picture's tokens: its 21 cells do not answer it
        let question = (step.quiz.unwrap().question)(&tr);
        assert!(question.contains("writes 6 tokens; a sentence of 12 tokens"), "{question}");
        let verdict = step.quiz.unwrap().judge_number(&tr, 78.0).unwrap();
        assert!(
            verdict.right
                && verdict.text.starts_with("Right: 78. 1 + 2 + … + 12 = 78")
                && verdict.text.ends_with("the triangle in the picture, 21 for its 6 tokens."),
            "{}",
            verdict.text
        );
        let wrong = step.quiz.unwrap().judge_number(&tr, 21.0).unwrap();
        assert!(wrong.text.starts_with("Not quite: it is 78 (you were 57 away)"), "{}", wrong.text);
    }

    /// Step 2 says why two of the cached keys get one weight ("the" and "on" share a toy
    /// vector), as step 6 does, and claims it; an edit that gives "on" a vector of its
    /// own takes the sentence and the claim away.
    #[test]
    fn step_2_says_why_the_and_on_weigh_the_same() {
        let step = &lesson().steps[1];
        let tr = run(&step.scenario).unwrap();
        let words = step.words(&tr);
        assert!(
            words.contains(
                "(\"the\" and \"on\" get the same weight: the toy lexicon gives both words one vector"
            ),
            "{words}"
        );
        assert_eq!((step.claims)(&tr), vec![Claim::Equal(w(ON, 0), w(ON, ON))]);
        assert!(step.claims_hold(&tr));
        let mut edited = step.scenario.clone();
        let x = tr.step(S::X).and_then(|x| x.matrix(0, 0)).unwrap();
        let mut on = x.row(ON).to_vec();
        on[0] += 1.5;
        edited.embeddings.insert("on".into(), on);
        let tr = run(&edited).unwrap();
        assert!(!step.words(&tr).contains("get the same weight"), "{}", step.words(&tr));
        assert!((step.claims)(&tr).is_empty());
    }

    /// Step 5's words explain the two corner tables, so its picture is those tables in
    /// place of the masked scores' maps: in the page (above the fold) and in its embed.
    #[test]
    fn the_corners_step_shows_the_tables_its_words_explain() {
        let step = &lesson().steps[4];
        assert_eq!(step.extra, Extra::CausalCorners);
        assert!(step.extra.replaces_heatmaps());
        let words = step.words(&run(&step.scenario).unwrap());
        assert!(words.starts_with("The two tables are causal masks"), "{words}");
    }

    /// Step 2's decoded weights are a tested claim: they hold for the lesson's vectors, and
    /// fail against a trace whose row differs (another scenario's).
    #[test]
    fn the_decoded_weights_are_a_claim() {
        let step = &lesson().steps[1];
        let (tr, d) = (run(&step.scenario).unwrap(), decode(&step.scenario).unwrap());
        let claims = (step.decoded_claims)(&d, &tr);
        assert_eq!(claims.len(), ON + 2);
        assert!(claims.iter().all(|c| c.holds(&tr)));
        let other = run(&scenario(Some(1), Some(3))).unwrap();
        assert!(!claims.iter().all(|c| c.holds(&other)));
    }
}
