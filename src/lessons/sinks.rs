//! Lesson 12, attention sinks: a head with nothing to read must still put its weight
//! somewhere, so trained models park it on the first token; gpt-oss's learned sink logit
//! lets a row sum to less than 1 instead; and a sliding window that evicts the first
//! token breaks the parking place, which StreamingLLM (Xiao et al. 2023) fixes by keeping
//! the first tokens in the cache (the engine's `mask.keep_first`, shown in the decode
//! view) and gpt-oss by a logit no window can evict.
//!
//! One head on identity projections, so the words can say why each score is what it is:
//! every token has a shared third feature (1), content words a "thing" or "action"
//! feature, and in the sink steps the first token a large shared feature (5), as trained
//! models learn to give it.

use std::collections::BTreeMap;

use super::claims::{Claim, Quantity};
use super::quiz::{Quiz, QuizKind};
use super::{at, base, cell, row, row_aside, row_cells, token, Aside, Extra, Lesson, LessonStep};
use crate::engine::{Scenario, StepName as S, Trace};
use crate::format::fixed;

const SENTENCE: &str = "BOS the cat sat on a mat";
/// "cat", "on" and "mat".
const CAT: usize = 2;
const ON: usize = 4;
/// The learned sink logit of the gpt-oss steps.
const SINK: f64 = 2.0;

/// The sentence on one head of d_model = 3 (thing, action, shared), causal. `bos` is the
/// first token's shared feature (1 like every token, or 5 for a learned sink token);
/// `sink` a gpt-oss sink logit; `window` a sliding window.
fn scenario(bos: f64, sink: Option<f64>, window: Option<usize>) -> Scenario {
    let mut s = base(&[SENTENCE], 3, 1);
    let thing = vec![3.0, 0.0, 1.0];
    let function = vec![0.0, 0.0, 1.0];
    s.embeddings = BTreeMap::from([
        ("BOS".to_string(), vec![0.0, 0.0, bos]),
        ("the".to_string(), function.clone()),
        ("cat".to_string(), thing.clone()),
        ("sat".to_string(), vec![0.0, 3.0, 1.0]),
        ("on".to_string(), function.clone()),
        ("a".to_string(), function),
        ("mat".to_string(), thing),
    ]);
    s.mask.causal = true;
    s.mask.window = window;
    s.sinks = sink.map(|v| vec![v]);
    s
}

/// The sink-token sentence under a window of 3 with the first token kept beside it
/// (StreamingLLM's kept first tokens; one is enough here, as only "BOS" is a sink).
fn kept_first() -> Scenario {
    let mut s = scenario(5.0, None, Some(3));
    s.mask.keep_first = Some(1);
    s
}

/// The weight query `i` gives key `j`.
fn w(i: usize, j: usize) -> Quantity {
    Quantity::Cell(cell(S::Weights, i, j))
}

/// "on"'s scaled scores and weights, beside the weights' heatmap.
fn on_aside(t: &Trace) -> Option<Aside> {
    row_aside(
        t,
        format!("\"{}\"'s row, masked scores and weights", token(t, 0, ON)),
        0,
        0,
        ON,
        &[("masked", S::Masked), ("weights", S::Weights)],
    )
}

/// How many decimals query `i`'s row sum is written with: two where the sum of its
/// weights as the map prints them (two decimals each) writes the same, else three, so that
/// a reader who adds the printed cells is not told another number at the same precision
/// ("cat" keeps 0.978: its cells print 0.01 + 0.01 + 0.97 = 0.99).
fn sum_decimals(t: &Trace, i: usize) -> usize {
    let Some(w) = t.step(S::Weights).and_then(|s| s.matrix(0, 0)) else { return 2 };
    if i >= w.nrows() {
        return 2;
    }
    let printed: f64 = w.row(i).iter().map(|v| super::num(*v).parse::<f64>().unwrap_or(0.0)).sum();
    let exact = w.row(i).sum();
    if fixed(printed, 2) == super::num(exact) {
        2
    } else {
        3
    }
}

/// Every query's row sum and the sink's share of its softmax, as the engine computes them,
/// each row at its [`sum_decimals`].
fn sums_aside(t: &Trace) -> Option<Aside> {
    let weights = t.step(S::Weights)?;
    let masked = t.step(S::Masked)?.matrix(0, 0)?;
    let sink = *t.sinks.first()?;
    let rows = (0..masked.nrows())
        .map(|i| {
            let mut row = masked.row(i).to_vec();
            let share = crate::engine::attention::softmax_with_sink(&mut row, sink);
            let sum = weights.row_sum(0, 0, i).unwrap_or(f64::NAN);
            let write = |v: f64| match sum_decimals(t, i) {
                2 => super::num(v),
                d => fixed(v, d),
            };
            (format!("\"{}\"", token(t, 0, i)), vec![write(sum), write(share)])
        })
        .collect();
    Some(Aside {
        caption: format!(
            "Each query's row of weights, summed, and the share the sink logit {sink} took{}",
            if (0..masked.nrows()).any(|i| sum_decimals(t, i) == 3) {
                " (three decimals where two would not be the sum of the map's printed cells)"
            } else {
                ""
            }
        ),
        head: vec!["query".into(), "row sum".into(), "to the sink".into()],
        rows,
    })
}

/// The keys query `q` sees: under a causal window, the ones the decode view's cache holds
/// at position `q` (the kept first keys among them).
fn seen_keys(t: &Trace, q: usize) -> Vec<usize> {
    (0..=q).filter(|&j| !t.mask.is_blocked(0, q, j)).collect()
}

/// The decode view's weights of query `t` over its cached keys (four decimals).
fn cached_weights(t: &Trace, q: usize) -> String {
    let cells: Vec<String> =
        seen_keys(t, q).into_iter().map(|j| fixed(at(t, S::Weights, 0, 0, q, j), 4)).collect();
    format!("[{}]", cells.join(", "))
}

/// The trace's sink logit, as the settings field shows it ("none" without one).
fn sink_of(t: &Trace) -> String {
    t.sinks.first().map_or_else(|| "none".into(), |s| s.to_string())
}

/// The trace's sliding window, as the settings field shows it ("none" without one).
fn window_of(t: &Trace) -> String {
    t.mask.config.window.map_or_else(|| "none".into(), |w| w.to_string())
}

/// The tokens of `keys`, quoted and joined with commas and a last "and".
fn quoted_and(t: &Trace, keys: &[usize]) -> String {
    let q: Vec<String> = keys.iter().map(|&j| format!("\"{}\"", token(t, 0, j))).collect();
    match q.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
        _ => q.join(""),
    }
}

/// Step 5's words: the cache the window on screen leaves "on" (the lesson's W = 3, or
/// the learner's edit).
fn evicted_words(t: &Trace) -> String {
    let keys = seen_keys(t, ON);
    let on = token(t, 0, ON);
    let bos = token(t, 0, 0);
    let window = match t.mask.config.window {
        Some(w) => format!("here the last W = {w} positions"),
        None => "here none (the window field is empty), so nothing is evicted".into(),
    };
    let left = if keys.contains(&0) {
        format!(
            "\"{bos}\" is still in it, so \"{on}\" can still park its weight there: {}.",
            cached_weights(t, ON)
        )
    } else {
        format!(
            "\"{bos}\" has left. \"{on}\" still has nothing to read, and the weight it parked on \"{bos}\" \
             must go to the keys that are left: {}.",
            cached_weights(t, ON)
        )
    };
    format!(
        "A long text does not fit a full cache, so a model may keep only a sliding window of keys: {window}. At \
         t = {ON} the panel's cache holds {}; {left} Xiao et al. (2023) saw this break language models: as \
         soon as the first tokens left a sliding window, perplexity (how surprised the model is by each next \
         token, lower is better) shot up. Their StreamingLLM keeps the first 4 tokens' keys and values in the \
         cache for good, beside the window of recent ones, and the models then read streams of 4 million \
         tokens with a steady perplexity. The next step keeps the first token here too.",
        quoted_and(t, &keys),
    )
}

/// How many first keys the trace's mask keeps beside its window (StreamingLLM's sinks).
fn kept(t: &Trace) -> usize {
    t.mask.config.keep_first.unwrap_or(0)
}

/// Step 6's words: the cache the mask's kept first keys give, for the count on screen
/// (the lesson's 1, or the learner's edit).
fn kept_first_words(t: &Trace) -> String {
    let k = kept(t);
    let keys = seen_keys(t, ON);
    let quoted =
        |js: &[usize]| js.iter().map(|&j| format!("\"{}\"", token(t, 0, j))).collect::<Vec<_>>().join(", ");
    let (first, window): (Vec<usize>, Vec<usize>) = keys.iter().partition(|&&j| j < k);
    let on = token(t, 0, ON);
    let bos = token(t, 0, 0);
    if k == 0 {
        return format!(
            "No first keys are kept here (their field, beside the window, is empty or 0): at \
             t = {ON} the cache holds the window's {} alone, and \"{on}\"'s weights over it are {}, with no \
             place for the weight it has no use for. Set kept first keys to 1 to keep \"{bos}\" beside \
             the window, as StreamingLLM does.",
            quoted(&window),
            cached_weights(t, ON),
        );
    }
    let which = if k == 1 { format!("\"{bos}\"") } else { format!("the first {k} tokens") };
    format!(
        "Now keep {which} beside the same window: the mask's kept first keys = {k} (the field beside the \
         window). Key j is seen when it is in the window or j < {k}. At t = {ON} the cache holds {} rows: \
         {}, kept for good, and the window's {}. \"{on}\" parks {} on \"{bos}\" again, and its weights over \
         the cache are {}: the weight it has no use for has its place back. Xiao et al. keep 4 first tokens \
         because a trained model spreads its sink over the first few; here only \"{bos}\" is one. This page \
         keeps each token's original position; StreamingLLM numbers positions inside the cache instead. \
         This head has no positions at all, so its numbers are the same either way.",
        keys.len(),
        quoted(&first),
        quoted(&window),
        fixed(at(t, S::Weights, 0, 0, ON, 0), 4),
        cached_weights(t, ON),
    )
}

/// The lesson.
pub fn lesson() -> Lesson {
    Lesson {
        id: "sinks",
        title: "Why every head looks at the first token",
        seeds: "StreamingLLM (Xiao et al. 2023) and gpt-oss",
        steps: vec![
            LessonStep::new("A head with nothing to read", scenario(1.0, None, None), S::Weights, |t| {
                format!(
                    "Each token here has three features: thing, action, and a third that every token shares \
                     (1). With Q = K = x, a word's query asks for its own features: a thing for a thing, an action \
                     for an action. \"{on}\" has only the shared one: its masked scores are {}, the same for every \
                     key it may see, because nothing in the sentence answers its query. Still softmax must give \
                     out a whole 1: each of the {} keys \"{on}\" sees gets {}. Its output is an average of \
                     values it did not need, passed on to the next layer.",
                    row(t, S::Masked, 0, 0, ON),
                    ON + 1,
                    super::num(at(t, S::Weights, 0, 0, ON, 0)),
                    on = token(t, 0, ON),
                )
            })
            .highlight(|t| row_cells(t, S::Weights, 0, 0, ON))
            .aside(on_aside)
            .claims(|_| (1..=ON).map(|j| Claim::Equal(w(ON, 0), w(ON, j))).collect()),
            LessonStep::new("The first token becomes a sink", scenario(5.0, None, None), S::Weights, |t| {
                format!(
                    "Trained models find a way out: they give the first token a key that every query \
                     matches, and park there the weight they have no use for. Here \"{bos}\" (beginning \
                     of sequence, put before every text) has a shared feature of \
                     {} where the other tokens have {}. \"{on}\" now puts {} on \"{bos}\" and {} on each other key, \
                     while \"{cat}\", which finds a thing (itself), still gives \"{cat}\" {}. Under a causal \
                     mask the first token is the one key every query sees, which is why a head's picture so \
                     often lights up its first column. In trained models the first token's value is usually small, so what is parked there adds little \
                     to the output.",
                    at(t, S::X, 0, 0, 0, 2),
                    at(t, S::X, 0, 0, ON, 2),
                    super::num(at(t, S::Weights, 0, 0, ON, 0)),
                    super::num(at(t, S::Weights, 0, 0, ON, 1)),
                    super::num(at(t, S::Weights, 0, 0, CAT, CAT)),
                    bos = token(t, 0, 0),
                    on = token(t, 0, ON),
                    cat = token(t, 0, CAT),
                )
            })
            .highlight(|t| row_cells(t, S::Weights, 0, 0, ON))
            .aside(on_aside)
            .claims(|_| {
                let on_rest = (1..=ON).map(|j| w(ON, j)).collect();
                let cat_rest = (0..CAT).map(|j| w(CAT, j)).collect();
                [
                    vec![Claim::Largest(w(ON, 0), on_rest), Claim::Largest(w(CAT, CAT), cat_rest)],
                    (2..=ON).map(|j| Claim::Equal(w(ON, 1), w(ON, j))).collect(),
                ]
                .concat()
            }),
            LessonStep::new("A learned sink logit: gpt-oss", scenario(1.0, Some(SINK), None), S::Weights, |t| {
                format!(
                    "gpt-oss gives each head one more learned number, a sink logit s, here s = {}. It \
                     joins every row's softmax as one more column, and that column is then dropped: weights \
                     = softmax([scores, s])[:-1]. No token has to serve as the parking place. \"{on}\" gives \
                     its {} keys equal weights, and its row sums to {}: the other {} went to no token, so its \
                     output is not an average of what it did not need. \"{cat}\", which finds a thing, keeps \
                     {} of its row.",
                    sink_of(t),
                    seen_keys(t, ON).len(),
                    sum_of(t, ON),
                    share_of(t, ON),
                    sum_of(t, CAT),
                    on = token(t, 0, ON),
                    cat = token(t, 0, CAT),
                )
            })
            .highlight(|t| row_cells(t, S::Weights, 0, 0, ON))
            .aside(sums_aside)
            .embed_aside(sums_aside)
            .claims(|t| {
                let sum = |i| Quantity::RowSum(cell(S::Weights, i, 0));
                // the row of "on" sums to less than 1: some of it went to no token; its keys
                // get equal weights
                let mut out =
                    vec![Claim::Greater(sum(CAT), sum(ON)), Claim::Greater(Quantity::Computed("one", 1.0), sum(ON))];
                out.extend(seen_keys(t, ON).into_iter().skip(1).map(|j| Claim::Equal(w(ON, 0), w(ON, j))));
                out
            }),
            LessonStep::new(
                "Predict: a larger sink logit",
                scenario(1.0, Some(SINK), None),
                S::Weights,
                |_| "Choose an answer to see why.".into(),
            )
            .quiz(Quiz {
                reveal: None,
                reveal_extra: None,
                question: |t| {
                    format!(
                        "Training raised this head's sink logit from {} to {}, and nothing else changed. \
                         What happens to \"{}\"'s output?",
                        sink_of(t),
                        raised(t),
                        token(t, 0, ON)
                    )
                },
                kind: QuizKind::Choice {
                    choices: |_| {
                        vec![
                            "it stays the same: the weights still sum to 1".into(),
                            "it shrinks toward zero".into(),
                            "it moves toward the first token's value".into(),
                        ]
                    },
                    answer: |t| {
                        Some((
                            1,
                            format!(
                                "Its scores stay as they are while e^{} joins the denominator, so every weight \
                                 in \"{}\"'s row falls toward 0, and the output, the weights times the values, \
                                 with them. A head can say \"nothing here\" by writing almost nothing. With \
                                 softmax alone it cannot: its weights always sum to 1.",
                                raised(t),
                                token(t, 0, ON)
                            ),
                        ))
                    },
                },
            }),
            LessonStep::new(
                "A window evicts the sink: StreamingLLM",
                scenario(5.0, None, Some(3)),
                S::Weights,
                evicted_words,
            )
            .extra(Extra::Decode { t: ON }),
            LessonStep::new("StreamingLLM keeps the first token", kept_first(), S::Weights, kept_first_words)
            .highlight(|t| row_cells(t, S::Weights, 0, 0, ON))
            .claims(|t| {
                // "parks the most on BOS" is said only while BOS is kept
                if kept(t) == 0 {
                    return Vec::new();
                }
                let others = seen_keys(t, ON).into_iter().skip(1).map(|j| w(ON, j)).collect();
                vec![Claim::Largest(w(ON, 0), others)]
            })
            .extra(Extra::Decode { t: ON }),
            LessonStep::new(
                "A sink no window can evict",
                scenario(1.0, Some(SINK), Some(3)),
                S::Weights,
                |t| {
                    format!(
                        "gpt-oss needs no kept token: its sink is a number of the head, not a key in the cache, \
                         so no window evicts it. Its layers alternate between a window of 128 tokens and full \
                         attention, and every head has its sink. Here, with W = {} and s = {}: at t = {ON} \
                         \"{on}\"'s weights over the cache are {}, and the rest of 1 went to the sink. The check \
                         under them compares the decoded row with the full run's.",
                        window_of(t),
                        sink_of(t),
                        cached_weights(t, ON),
                        on = token(t, 0, ON),
                    )
                },
            )
            .extra(Extra::Decode { t: ON }),
        ],
    }
}

/// The raised sink logit of step 4's question: 10, or 8 more than an edited logit of 2
/// or more (a rise, whatever the field holds).
fn raised(t: &Trace) -> String {
    let s = t.sinks.first().copied().unwrap_or(SINK);
    if s < 10.0 {
        "10".into()
    } else {
        (s + 8.0).to_string()
    }
}

/// Query `i`'s row sum of weights, as the page prints it.
fn sum_of(t: &Trace, i: usize) -> String {
    sums_aside(t)
        .and_then(|a| a.rows.get(i).and_then(|(_, cells)| cells.first().cloned()))
        .unwrap_or_else(|| super::num(f64::NAN))
}

/// The share of query `i`'s softmax the sink took, as the page prints it.
fn share_of(t: &Trace, i: usize) -> String {
    sums_aside(t)
        .and_then(|a| a.rows.get(i).and_then(|(_, cells)| cells.get(1).cloned()))
        .unwrap_or_else(|| super::num(f64::NAN))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{decode, run};

    #[test]
    fn the_sink_takes_what_a_query_has_no_use_for() {
        // nothing to read: five equal weights
        let plain = run(&scenario(1.0, None, None)).unwrap();
        assert!((at(&plain, S::Weights, 0, 0, ON, 0) - 0.2).abs() < 1e-12);
        // a sink token: "on" parks most of its weight on BOS; "cat" still reads itself
        let token_sink = run(&scenario(5.0, None, None)).unwrap();
        assert!(at(&token_sink, S::Weights, 0, 0, ON, 0) > 0.7);
        assert!(at(&token_sink, S::Weights, 0, 0, CAT, CAT) > 0.9);
        // a sink logit: e^(1/√3) for each of 5 keys against e^2
        let logit = run(&scenario(1.0, Some(SINK), None)).unwrap();
        let e = (1.0 / 3f64.sqrt()).exp();
        let want = e / (5.0 * e + SINK.exp());
        assert!((at(&logit, S::Weights, 0, 0, ON, 0) - want).abs() < 1e-12);
        assert_eq!(sum_of(&logit, ON), super::super::num(5.0 * want));
        assert_eq!(share_of(&logit, ON), super::super::num(1.0 - 5.0 * want));
        // the decode view's rows are the words' rows
        for s in [scenario(5.0, None, Some(3)), scenario(1.0, Some(SINK), Some(3))] {
            let t = run(&s).unwrap();
            let p = &decode(&s).unwrap().positions[ON];
            assert_eq!(p.cache_positions, vec![2, 3, 4]);
            let w: Vec<String> = p.weights.iter().map(|x| fixed(*x, 4)).collect();
            assert_eq!(cached_weights(&t, ON), format!("[{}]", w.join(", ")));
        }
        // kept first keys: "BOS" stays in the cache beside the window, and "on" parks most
        // of its weight there again
        let s = kept_first();
        let t = run(&s).unwrap();
        let p = &decode(&s).unwrap().positions[ON];
        assert_eq!((p.cache_positions.clone(), p.kept), (vec![0, 2, 3, 4], 1));
        let w: Vec<String> = p.weights.iter().map(|x| fixed(*x, 4)).collect();
        assert_eq!(cached_weights(&t, ON), format!("[{}]", w.join(", ")));
        assert!(at(&t, S::Weights, 0, 0, ON, 0) > 0.7);
        let quiz = lesson().steps[3].quiz.unwrap();
        assert!(quiz.judge_choice(&logit, 1).unwrap().right);
    }

    /// The sink step's row sums agree with the map's cells as printed: two decimals where
    /// the printed cells add to the same, else three ("cat"'s 0.01 + 0.01 + 0.97 = 0.99,
    /// while its sum is 0.978), in its table and its words alike; sum and share add to 1.
    #[test]
    fn a_quoted_row_sum_agrees_with_the_printed_cells() {
        let l = lesson();
        let step = l.steps.iter().find(|s| s.title == "A learned sink logit: gpt-oss").unwrap();
        let t = run(&step.scenario).unwrap();
        let aside = (step.aside)(&t).unwrap();
        let w = t.step(S::Weights).unwrap().matrix(0, 0).unwrap();
        for (i, (_, cells)) in aside.rows.iter().enumerate() {
            let printed: f64 = w.row(i).iter().map(|v| crate::lessons::num(*v).parse::<f64>().unwrap()).sum();
            let sum: f64 = cells[0].parse().unwrap();
            if cells[0].len() == "0.00".len() {
                assert_eq!(cells[0], fixed(printed, 2), "row {i}");
            } else {
                assert_eq!(cells[0].len(), "0.000".len(), "row {i}: {}", cells[0]);
                assert!(
                    (sum - w.row(i).sum()).abs() < 0.0005
                        && fixed(printed, 2) != crate::lessons::num(w.row(i).sum())
                );
            }
            let share: f64 = cells[1].parse().unwrap();
            assert!((sum + share - 1.0).abs() < 0.0015, "row {i}: {cells:?}");
        }
        // a column of two and three decimals says why in its caption
        let mixed = aside.rows.iter().any(|(_, c)| c[0].len() == "0.000".len());
        assert!(mixed && aside.caption.contains("three decimals where two would not"), "{}", aside.caption);
        let words = step.words(&t);
        assert!(words.contains("\"cat\", which finds a thing, keeps 0.978 of its row"), "{words}");
        assert!(words.contains("its row sums to 0.55: the other 0.45 went to no token"), "{words}");
    }

    /// Step 6's words name the cache the kept-first-keys field gives, also after the
    /// learner sets it to 0 or 2: no "kept for good" for a key the window evicted.
    #[test]
    fn the_kept_first_step_says_what_its_field_keeps() {
        let lesson = lesson();
        let step = lesson.steps.iter().find(|s| s.title == "StreamingLLM keeps the first token").unwrap();
        let words = |k: Option<usize>| {
            let mut s = kept_first();
            s.mask.keep_first = k;
            step.words(&run(&s).unwrap())
        };
        let one = words(Some(1));
        assert!(
            one.contains(
                "cache holds 4 rows: \"BOS\", kept for good, and the window's \"cat\", \"sat\", \"on\""
            ),
            "{one}"
        );
        // the field empty or 0 (the page stores both as none): no "is 0" for an empty field
        let none = words(None);
        assert!(none.starts_with("No first keys are kept here") && !none.contains("kept for good"), "{none}");
        assert!(!none.contains("is 0") && none.contains("is empty or 0"), "{none}");
        assert!(none.contains("the window's \"cat\", \"sat\", \"on\" alone"), "{none}");
        let two = words(Some(2));
        assert!(
            two.contains("the first 2 tokens") && two.contains("\"BOS\", \"the\", kept for good"),
            "{two}"
        );
        assert!(!two.starts_with(crate::lessons::claims::STORY_CHANGED), "{two}");
    }

    /// The settings the words name are the ones on screen after the learner edits them in
    /// "Change the numbers": the window at step 5, the sink logit at steps 3 and 7.
    #[test]
    fn the_words_name_the_settings_on_screen() {
        let lesson = lesson();
        let words =
            |i: usize, edit: &dyn Fn(&mut Scenario)| crate::lessons::tests::words_after(&lesson, i, edit);
        let (five, t) = words(4, &|s| s.mask.window = Some(2));
        assert!(five.contains("the last W = 2 positions") && !five.contains("W = 3"), "{five}");
        assert!(five.contains("cache holds \"sat\" and \"on\";") && !five.contains("\"cat\""), "{five}");
        assert!(five.contains(&cached_weights(&t, ON)), "{five}");
        let (three, t) = words(2, &|s| s.sinks = Some(vec![10.0]));
        assert!(three.contains("here s = 10.") && !three.contains("s = 2"), "{three}");
        assert!(sums_aside(&t).unwrap().caption.contains("sink logit 10 took"));
        let quiz = lesson.steps[3].quiz.unwrap();
        let mut s = lesson.steps[3].scenario.clone();
        s.sinks = Some(vec![10.0]);
        let question = (quiz.question)(&run(&s).unwrap());
        assert!(question.contains("from 10 to 18"), "{question}");
        let (seven, t) = words(6, &|s| s.sinks = Some(vec![0.5]));
        assert!(
            seven.contains("with W = 3 and s = 0.5:") && seven.contains(&cached_weights(&t, ON)),
            "{seven}"
        );
        let (seven, _) = words(6, &|s| s.mask.window = Some(4));
        assert!(seven.contains("with W = 4 and s = 2:"), "{seven}");
    }
}
