//! Lesson 9, local attention: a sliding window (Mistral), how stacked layers widen what a
//! token can reach, ALiBi's per-head slopes (BLOOM, MPT), and why BLOOM's m·j and the
//! paper's m·(j − i) give the same weights.

use ndarray::Array4;

use super::quiz::{Quiz, QuizKind};
use super::{at, base, num, row, Aside, Cell, Claim, Lesson, LessonStep, Quantity};
use crate::engine::{ProjectionKind, Projections, Scenario, StepName as S, Trace};

const SENTENCE: &str = "one two three four five six seven eight";
/// "six" and "eight".
const SIX: usize = 5;
const EIGHT: usize = 7;

/// Eight tokens, four heads of d_k = 2 on seeded weights, causal; a window and ALiBi as
/// asked.
fn scenario(window: Option<usize>, alibi: bool) -> Scenario {
    let mut s = base(&[SENTENCE], 8, 4);
    s.projections = Projections::Named(ProjectionKind::Seeded);
    s.seed = 5;
    s.mask.causal = true;
    s.mask.window = window;
    s.alibi = alibi;
    s
}

/// The keys query `i` may see (not blocked), as a count.
fn seen(t: &Trace, i: usize) -> usize {
    let [_, _, t_k] = t.mask.shape;
    (0..t_k).filter(|&j| !t.mask.is_blocked(0, i, j)).count()
}

/// The keys blocked for query `i` (by the causal mask or the window), as a count.
fn blocked(t: &Trace, i: usize) -> usize {
    let [_, _, t_k] = t.mask.shape;
    t_k - seen(t, i)
}

/// The head whose row of "eight" step 1's words quote (the one presenter mode shows).
const WINDOW_HEAD: usize = 0;

/// "eight"'s row of `step` in `heads`, one table row per head, under `caption`: the rows
/// the words quote, there to read beside four heads' maps too small for numbers.
fn eight_rows(t: &Trace, step: S, heads: &[usize], caption: String) -> Option<Aside> {
    let keys = t.key_tokens(0);
    let mut rows = Vec::new();
    for &h in heads {
        let m = t.step(step)?.matrix(0, h)?;
        if EIGHT >= m.nrows() || m.ncols() != keys.len() {
            return None;
        }
        rows.push((format!("head {}", h + 1), m.row(EIGHT).iter().map(|v| num(*v)).collect()));
    }
    let mut head = vec![format!("\"{}\" → key", super::token(t, 0, EIGHT))];
    head.extend(keys.iter().cloned());
    Some(Aside { caption, head, rows })
}

/// Step 1's aside: "eight"'s row of the weights in every head (the words quote head 1's).
fn window_aside(t: &Trace) -> Option<Aside> {
    let caption = format!(
        "\"{}\"'s row of the weights in each head: the window blocks the same keys in all of them.",
        super::token(t, 0, EIGHT)
    );
    eight_rows(t, S::Weights, &(0..t.sizes.n_heads).collect::<Vec<_>>(), caption)
}

/// The ALiBi step's aside: "eight"'s row of the bias in the two heads whose bias for "one"
/// the words compare, head 1 and head 4 (two rows, so that the step fits presenter mode's
/// screen).
fn alibi_aside(t: &Trace) -> Option<Aside> {
    let caption = format!("\"{}\"'s bias in heads 1 and 4.", super::token(t, 0, EIGHT));
    eight_rows(t, S::Alibi, &[0, 3], caption)
}

/// Row `i` of `biased` in head `h` with `m·i` added to every score (BLOOM's `m·j` instead
/// of `m·(j − i)`), and its softmax as the engine computes one.
fn bloom_row(t: &Trace, h: usize, i: usize) -> Option<(Vec<f64>, Vec<f64>)> {
    let m = *t.alibi_slopes.get(h)?;
    let biased = t.step(S::Biased)?.matrix(0, h)?;
    let masked = t.step(S::Masked)?.matrix(0, h)?;
    // an imported scenario may have fewer than i + 1 queries
    if i >= biased.nrows() || i >= masked.nrows() {
        return None;
    }
    let shift = m * i as f64;
    let shifted: Vec<f64> = biased.row(i).iter().map(|s| s + shift).collect();
    // the mask replaces blocked scores, whatever was added before it
    let masked_shifted: Vec<f64> = shifted
        .iter()
        .zip(masked.row(i).iter())
        .enumerate()
        .map(|(j, (s, fill))| if t.mask.is_blocked(0, i, j) { *fill } else { *s })
        .collect();
    let n = masked_shifted.len();
    let w =
        crate::engine::attention::softmax_rows(&Array4::from_shape_vec((1, 1, 1, n), masked_shifted).ok()?);
    Some((shifted, w.iter().copied().collect()))
}

/// What the BLOOM step's table shows for "eight" in head 1: the paper's biased row, BLOOM's
/// (the same row plus `shift` = m·i), and the softmax of each.
#[derive(Debug, Clone, PartialEq)]
pub struct BloomComparison {
    /// The query's position (from 0) and token.
    pub query: (usize, String),
    /// The key tokens, one per column.
    pub keys: Vec<String>,
    /// m·i, added to every score of the row.
    pub shift: f64,
    /// The paper's row, m·(j − i) added (the trace's `biased` row).
    pub paper: Vec<f64>,
    /// BLOOM's row, m·j added.
    pub bloom: Vec<f64>,
    /// The softmax of the paper's row (the trace's weights).
    pub paper_weights: Vec<f64>,
    /// The softmax of BLOOM's row, as the engine computes one.
    pub bloom_weights: Vec<f64>,
}

/// The BLOOM step's comparison for the shown trace; `None` without ALiBi or without an
/// "eight" row (an imported scenario).
pub fn bloom_comparison(t: &Trace) -> Option<BloomComparison> {
    let (bloom, bloom_weights) = bloom_row(t, 0, EIGHT)?;
    let paper = t.step(S::Biased)?.matrix(0, 0)?.rows().into_iter().nth(EIGHT)?.to_vec();
    let paper_weights = t.step(S::Weights)?.matrix(0, 0)?.rows().into_iter().nth(EIGHT)?.to_vec();
    Some(BloomComparison {
        query: (EIGHT, t.tokens.first()?.get(EIGHT)?.clone()),
        keys: t.key_tokens(0).to_vec(),
        shift: t.alibi_slopes.first()? * EIGHT as f64,
        paper,
        bloom,
        paper_weights,
        bloom_weights,
    })
}

/// The BLOOM step's aside: "eight"'s row of head 1 biased the paper's way, m·(j − i), and
/// BLOOM's, m·j (the same row plus m·i), with the softmax of each: different scores, the
/// same weights. `None` when [`bloom_comparison`] is.
pub fn bloom_aside(t: &Trace) -> Option<Aside> {
    let c = bloom_comparison(t)?;
    let (i, token) = &c.query;
    let cells = |v: &[f64]| v.iter().map(|x| num(*x)).collect::<Vec<_>>();
    let mut head = vec!["key →".to_string()];
    head.extend(c.keys.iter().cloned());
    Some(Aside {
        caption: format!(
            "\"{token}\" (row {i}), head 1: ALiBi's bias written two ways. BLOOM's scores are the paper's + m·i = {} each; the weights are the same.",
            num(c.shift)
        ),
        head,
        rows: vec![
            // no-break spaces inside the formulas: a row header that wraps breaks after
            // the name
            ("paper: +\u{a0}m·(j\u{a0}−\u{a0}i)".into(), cells(&c.paper)),
            ("BLOOM: +\u{a0}m·j".into(), cells(&c.bloom)),
            ("weights, paper".into(), cells(&c.paper_weights)),
            ("weights, BLOOM".into(), cells(&c.bloom_weights)),
        ],
    })
}

/// ALiBi's slopes as they are defined, powers of two: "1/4, 1/16, 1/64, 1/256" (two
/// decimals would print head 4's 1/256 as 0.00); any other slope with four decimals.
pub fn slopes(v: &[f64]) -> String {
    let one = |m: f64| {
        let inv = 1.0 / m;
        if m > 0.0 && inv.fract() == 0.0 && (inv as u64).is_power_of_two() {
            format!("1/{}", inv as u64)
        } else {
            crate::format::fixed(m, 4)
        }
    };
    v.iter().map(|m| one(*m)).collect::<Vec<_>>().join(", ")
}

/// The layers of the reach step's run: the page shows layer 1 of them.
const REACH_LAYERS: usize = 4;

/// The reach step's run: the window's run with [`REACH_LAYERS`] layers, layer 1 shown
/// (the one-layer run's weights: layer 1 draws the same seed).
fn layered_scenario() -> Scenario {
    let mut s = scenario(Some(3), false);
    s.n_layers = Some(REACH_LAYERS);
    s.layer = Some(1);
    s
}

/// Which positions "eight" can have heard of after 1, 2, … of the run's layers, by the
/// engine's reach (the mask composed layer after layer); `None` without an "eight" row or
/// in cross-attention (an imported scenario).
fn eight_reach(t: &Trace) -> Option<Vec<Vec<bool>>> {
    (1..=t.n_layers).map(|l| t.mask.reach(0, l)?.get(EIGHT).cloned()).collect()
}

/// L·(W − 1) + 1 positions after L layers of a causal window W, at most the i + 1 there are.
fn reach_rule(w: usize, layers: usize, i: usize) -> usize {
    (layers * w.saturating_sub(1) + 1).min(i + 1)
}

/// The reach step's table: for each layer count, the positions "eight" can have heard of.
pub fn reach_aside(t: &Trace) -> Option<Aside> {
    let reach = eight_reach(t)?;
    let token = t.tokens.first()?.get(EIGHT)?;
    let mut head = vec!["after".to_string()];
    head.extend(t.tokens.first()?.iter().cloned());
    head.push("positions".into());
    Some(Aside {
        caption: format!(
            "What \"{token}\" can have heard of after each of the run's {} layers (●), the mask composed layer \
             after layer.",
            t.n_layers
        ),
        head,
        rows: reach
            .iter()
            .enumerate()
            .map(|(l, row)| {
                let mut cells: Vec<String> = row.iter().map(|&r| if r { "●" } else { "·" }.into()).collect();
                cells.push(row.iter().filter(|&&r| r).count().to_string());
                (format!("{} layer{}", l + 1, if l == 0 { "" } else { "s" }), cells)
            })
            .collect(),
    })
}

/// The reach step's words: the positions the engine's reach counts equal the rule
/// L·(W − 1) + 1 (at most the sentence's start), layer by layer, under a causal window.
fn reach_claims(t: &Trace) -> Vec<Claim> {
    const AFTER: [&str; 4] =
        ["reach after 1 layer", "reach after 2 layers", "reach after 3 layers", "reach after 4 layers"];
    let mut claims = vec![
        // "six", which "eight" reads, has read "four"
        Claim::Positive(q_at(S::Weights, 0, EIGHT, SIX)),
        Claim::Positive(q_at(S::Weights, 0, SIX, SIX - 2)),
    ];
    let (Some(w), true, Some(reach)) = (t.mask.config.window, t.mask.config.causal, eight_reach(t)) else {
        return claims;
    };
    for (l, row) in reach.iter().enumerate().take(AFTER.len()) {
        let counted = row.iter().filter(|&&r| r).count() as f64;
        let rule = reach_rule(w, l + 1, EIGHT) as f64;
        claims.push(Claim::Equal(
            Quantity::Computed(AFTER[l], counted),
            Quantity::Computed("L·(W − 1) + 1", rule),
        ));
    }
    claims
}

/// Cell `(i, j)` of `step`, head `head`.
fn q_at(step: S, head: usize, i: usize, j: usize) -> Quantity {
    Quantity::Cell(Cell { step, batch: 0, head, row: i, col: j })
}

/// Step 1's words: "eight" attends to the last W keys only, every earlier key getting 0.
fn window_claims(t: &Trace) -> Vec<Claim> {
    let w = t.mask.config.window.unwrap_or(EIGHT + 1);
    (0..(EIGHT + 1).saturating_sub(w))
        .map(|j| Claim::Rounds(q_at(S::Weights, WINDOW_HEAD, EIGHT, j), "0.00"))
        .collect()
}

/// Step 4's words: 0 for the query itself, a penalty for earlier keys, a reward for later
/// ones (before the causal mask), and head 4 pays less for "one" than head 1.
fn alibi_claims(_: &Trace) -> Vec<Claim> {
    vec![
        Claim::Rounds(q_at(S::Alibi, 0, EIGHT, EIGHT), "0.00"),
        Claim::Negative(q_at(S::Alibi, 0, EIGHT, EIGHT - 1)),
        Claim::Positive(q_at(S::Alibi, 0, 0, 1)),
        Claim::Greater(q_at(S::Alibi, 3, EIGHT, 0), q_at(S::Alibi, 0, EIGHT, 0)),
        Claim::Negative(q_at(S::Alibi, 3, EIGHT, 0)),
    ]
}

/// Step 5's words: BLOOM's row's softmax gives the paper's weights.
fn bloom_claims(t: &Trace) -> Vec<Claim> {
    let Some((_, bloom)) = bloom_row(t, 0, EIGHT) else { return Vec::new() };
    bloom
        .iter()
        .enumerate()
        .map(|(j, b)| Claim::Equal(Quantity::Computed("BLOOM's weight", *b), q_at(S::Weights, 0, EIGHT, j)))
        .collect()
}

fn list(v: &[f64]) -> String {
    format!("[{}]", v.iter().map(|x| num(*x)).collect::<Vec<_>>().join(", "))
}

/// The keys "eight" sees under the step's mask, as the words name them: "\"six\",
/// \"seven\" and itself" for W = 3, read from the engine's mask so an edited window
/// reads right.
fn visible_to_eight(t: &Trace) -> String {
    let mut names: Vec<String> = (0..EIGHT)
        .filter(|&j| !t.mask.is_blocked(0, EIGHT, j))
        .map(|j| format!("\"{}\"", super::token(t, 0, j)))
        .collect();
    names.push("itself".into());
    match names.split_last() {
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} and {last}", rest.join(", ")),
        None => String::new(),
    }
}

/// The lesson.
pub fn lesson() -> Lesson {
    Lesson {
        id: "local",
        title: "Windows and ALiBi",
        seeds: "Mistral, BLOOM and MPT's attention",
        steps: vec![
            LessonStep::new(
                "A sliding window",
                scenario(Some(3), false),
                S::Weights,
                |t| {
                    format!(
                        "A causal mask lets a query see every earlier word; a sliding window of W = {} keys lets \
                         it see only itself and the {} before it: key j for query i when i − W < j ≤ i, as in \
                         Mistral. \"eight\" now attends to {} only: in head {} its row is {}, every earlier \
                         key 0, and the table of its rows lists that row in each of the {} heads. The work and \
                         the memory per query stay W, however long the text grows.",
                        t.mask.config.window.unwrap_or(0),
                        t.mask.config.window.unwrap_or(1).saturating_sub(1),
                        visible_to_eight(t),
                        WINDOW_HEAD + 1,
                        row(t, S::Weights, 0, WINDOW_HEAD, EIGHT),
                        t.sizes.n_heads,
                    )
                },
            )
            .aside(window_aside)
            .highlight(|t| super::row_cells(t, S::Weights, 0, WINDOW_HEAD, EIGHT))
            .claims(window_claims),
            // the question is asked over the scores before the mask: the masked maps would
            // show the blocked cells, the answer; the reveal shows them
            LessonStep::new(
                "Predict: how many keys are blocked for \"six\"?",
                scenario(Some(3), false),
                S::Scaled,
                |_| {
                    "Two rules block keys now: the causal mask and the window. Type a number to see the row."
                        .into()
                },
            )
            .quiz(Quiz {
                    reveal: Some(S::Masked),
                    reveal_extra: None,
                    question: |t| {
                        format!(
                            "The window is W = {} and the mask is causal. Of the {} keys, how many are blocked for \
                             \"six\"?",
                            t.mask.config.window.unwrap_or(0),
                            t.sizes.t,
                        )
                    },
                    kind: QuizKind::Number {
                        answer: |t| {
                            let n = blocked(t, SIX);
                            Some((
                                n as f64,
                                format!(
                                    "{n} keys are blocked for \"six\": \"seven\" and \"eight\" come after it (the \
                                     causal mask), \"one\", \"two\" and \"three\" are W or more positions back (the \
                                     window). It sees the other {}: \"four\", \"five\" and itself. Its row of the \
                                     masked scores is {}.",
                                    seen(t, SIX),
                                    row(t, S::Masked, 0, 0, SIX)
                                ),
                            ))
                        },
                        tolerance: 0.1,
                    },
                }),
            LessonStep::new(
                "Layers widen the reach",
                layered_scenario(),
                S::Weights,
                |t| {
                    let w = t.mask.config.window.unwrap_or(1);
                    let rule = match (t.mask.config.window, t.mask.config.causal) {
                        (Some(_), true) => format!(
                            "what a token knows travels W − 1 = {} positions per layer, so after L layers \
                             \"eight\" can have heard of L·(W − 1) + 1 positions, back to the sentence's start \
                             (the table)",
                            w.saturating_sub(1)
                        ),
                        _ => "without a causal window the rule L·(W − 1) + 1 does not apply".into(),
                    };
                    format!(
                        "This run has {} layers; the picture shows layer 1. One layer lets \"eight\" read {} \
                         positions back. But \"six\", which it reads, has read \"four\" in the layer before: \
                         {rule}. Mistral 7B v0.1 (W = 4096, 32 layers; v0.2 dropped the window): 32 × 4095 + 1 = \
                         131 041 positions by this rule; its paper, counting W per layer, says \"approximately \
                         131K tokens\" (32 × 4096 = 131 072).",
                        t.n_layers,
                        w.saturating_sub(1),
                    )
                },
            )
            .aside(reach_aside)
            .highlight(|t| {
                    [super::row_cells(t, S::Weights, 0, 0, EIGHT), super::row_cells(t, S::Weights, 0, 0, SIX)]
                        .concat()
                })
            .claims(reach_claims),
            LessonStep::new(
                "ALiBi: a bias by distance, one slope per head",
                scenario(None, true),
                S::Alibi,
                |t| {
                    format!(
                        "ALiBi (BLOOM, MPT) adds no positions to the embeddings. It adds m·(j − i) to each score \
                         instead: 0 for the query itself, −m for the key before, −2m for the one before that. \
                         For keys after the query j − i is positive, so the picture shows a reward there; the \
                         causal mask blocks those keys next, and every key a query can see pays a penalty for \
                         distance. (With causal off the engine adds −m·|i − j| instead, MosaicBERT's symmetric \
                         form: a penalty both ways.) Each head has its own slope m, 2^(−8·k/h) for head k of h = \
                         {}: {}. In head 1 \"eight\" pays {} for \"one\", in head 4 only {}: head 1 looks near, \
                         head 4 far.",
                        t.sizes.n_heads,
                        slopes(&t.alibi_slopes),
                        num(at(t, S::Alibi, 0, 0, EIGHT, 0)),
                        num(at(t, S::Alibi, 0, 3, EIGHT, 0)),
                    )
                },
            )
            // the 8 × 8 maps of four heads print no numbers: the quoted row beside them
            .aside(alibi_aside)
            .embed_aside(alibi_aside)
            .highlight(|t| (0..4).flat_map(|h| super::row_cells(t, S::Alibi, 0, h, EIGHT)).collect())
            .claims(alibi_claims),
            LessonStep::new(
                "BLOOM's m·j gives the same weights",
                scenario(None, true),
                S::Biased,
                |t| {
                    let Some((bloom, bloom_weights)) = bloom_row(t, 0, EIGHT) else {
                        return "ALiBi is off: turn it on to compare the two ways of writing its bias."
                            .into();
                    };
                    let m = t.alibi_slopes.first().copied().unwrap_or(0.0);
                    format!(
                        "BLOOM's code adds m·j, not m·(j − i). For \"eight\" (i = {EIGHT}) in head 1 that is m·i = \
                         {} more on every score: the paper's row {} (the map, before the mask) becomes {}. Adding \
                         one number to a whole row does not change a softmax, so BLOOM's row gives the weights {}, \
                         the paper's row's.",
                        num(m * EIGHT as f64),
                        row(t, S::Biased, 0, 0, EIGHT),
                        list(&bloom),
                        list(&bloom_weights),
                    )
                },
            )
            // the embed's small maps print no numbers: its rows beside them there too
            .aside(bloom_aside)
            .embed_aside(bloom_aside)
            .highlight(|t| super::row_cells(t, S::Biased, 0, 0, EIGHT))
            .claims(bloom_claims),
        ],
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::run;

    /// The reach step: a 4-layer run whose layer 1 is the one-layer run, and the engine's
    /// reach of "eight" 3, 5, 7, 8 positions (L·2 + 1 until the start), as the table shows.
    #[test]
    fn the_reach_step_counts_the_engines_reach() {
        let t = run(&layered_scenario()).unwrap();
        let one = run(&scenario(Some(3), false)).unwrap();
        assert_eq!((t.n_layers, t.layer), (4, 1));
        assert_eq!(t.step(S::Weights).unwrap().data, one.step(S::Weights).unwrap().data);
        let counts: Vec<usize> =
            eight_reach(&t).unwrap().iter().map(|r| r.iter().filter(|&&x| x).count()).collect();
        assert_eq!(counts, vec![3, 5, 7, 8]);
        let aside = reach_aside(&t).unwrap();
        assert_eq!(aside.rows[1].1, ["·", "·", "·", "●", "●", "●", "●", "●", "5"]);
        assert!(reach_claims(&t).iter().all(|c| c.holds(&t)));
        assert_eq!(reach_claims(&t).len(), 6);
        // a wider window: 5 after one layer, all 8 after two
        let mut wide = layered_scenario();
        wide.mask.window = Some(5);
        let wide = run(&wide).unwrap();
        assert!(reach_claims(&wide).iter().all(|c| c.holds(&wide)));
        assert_eq!(reach_rule(5, 2, EIGHT), 8);
    }

    #[test]
    fn the_window_the_slopes_and_blooms_shift() {
        let t = run(&scenario(Some(3), false)).unwrap();
        assert_eq!(seen(&t, SIX), 3);
        assert_eq!(seen(&t, 1), 2);
        assert_eq!(blocked(&t, SIX), 5);
        let a = run(&scenario(None, true)).unwrap();
        assert_eq!(a.alibi_slopes, vec![0.25, 0.0625, 0.015625, 0.00390625]);
        let (_, bloom) = bloom_row(&a, 0, EIGHT).unwrap();
        let w = a.step(S::Weights).unwrap().matrix(0, 0).unwrap();
        for (x, y) in bloom.iter().zip(w.row(EIGHT)) {
            assert!((x - y).abs() < 1e-12, "{x} vs {y}");
        }
        // no ALiBi: the step says so instead of failing
        assert!(bloom_row(&t, 0, EIGHT).is_none());
        assert!(bloom_comparison(&t).is_none());
        // the table: BLOOM's row is the paper's plus m·i, and both softmaxes agree
        let c = bloom_comparison(&a).unwrap();
        assert_eq!(c.query, (EIGHT, "eight".to_string()));
        assert_eq!(c.shift, 0.25 * 7.0);
        for (p, b) in c.paper.iter().zip(&c.bloom) {
            assert!((b - p - c.shift).abs() < 1e-12);
        }
        assert_eq!(c.paper_weights, w.row(EIGHT).to_vec());
        assert_eq!(c.keys.len(), c.paper.len());
    }

    /// Step 1 names the map whose row it quotes, and the row is in its table (the 8 × 8
    /// maps of four heads are drawn too small for numbers).
    #[test]
    fn the_window_step_names_its_map_and_tables_the_row() {
        let lesson = lesson();
        let step = &lesson.steps[0];
        let t = lesson.trace(0);
        let words = step.words(&t);
        let quoted = row(&t, S::Weights, 0, WINDOW_HEAD, EIGHT);
        assert!(words.contains(&format!("in head 1 its row is {quoted}")), "{words}");
        let aside = (step.aside)(&t).unwrap();
        assert_eq!(aside.rows.len(), 4);
        let (title, cells) = &aside.rows[WINDOW_HEAD];
        assert_eq!(title, "head 1");
        assert_eq!(format!("[{}]", cells.join(", ")), quoted);
        assert!(step.claims_hold(&t));
    }

    /// The ALiBi step quotes "eight"'s bias for "one" in heads 1 and 4 (-1.75, -0.03), which
    /// its four 8 × 8 maps print no number for: its table beside the words, on the page and
    /// in the embed, holds every number the words quote, with causal off and after an edit
    /// too.
    #[test]
    fn the_alibi_step_tables_the_bias_it_quotes() {
        let lesson = lesson();
        let step = &lesson.steps[3];
        assert_eq!(step.focus, S::Alibi);
        let mut edited = step.scenario.clone();
        edited.mask.causal = false;
        edited.embeddings.insert("one".into(), vec![2.0, -1.0, 0.5, 0.0, 1.0, 0.0, 0.0, 1.5]);
        for scenario in [step.scenario.clone(), edited] {
            let t = run(&scenario).unwrap();
            let words = step.words(&t);
            let quoted = super::super::quoted_numbers(&words);
            assert!(
                quoted.contains(&"-1.75".to_string()) && quoted.contains(&"-0.03".to_string()),
                "{words}"
            );
            for make in [step.aside, step.embed_aside.expect("an embed table")] {
                let aside = make(&t).expect("a table");
                let cells: Vec<String> = aside.rows.iter().flat_map(|r| r.1.clone()).collect();
                for n in &quoted {
                    assert!(cells.contains(n), "{n} is not in {:?}", aside.rows);
                }
                assert_eq!(aside.rows.len(), 2);
                assert_eq!(aside.rows[0].1[0], num(at(&t, S::Alibi, 0, 0, EIGHT, 0)));
                assert_eq!(aside.rows[1].1[0], num(at(&t, S::Alibi, 0, 3, EIGHT, 0)));
            }
        }
    }

    /// Step 2's question does not hold its own answer: the window is W = 3 and "six" sees
    /// 3 keys, so it asks for the blocked keys, which no number of the question gives.
    #[test]
    fn the_window_question_does_not_give_its_answer_away() {
        let lesson = lesson();
        let step = &lesson.steps[1];
        let t = lesson.trace(1);
        let quiz = step.quiz.unwrap();
        let question = (quiz.question)(&t);
        let QuizKind::Number { answer, .. } = quiz.kind else { panic!("a number question") };
        let (n, _) = answer(&t).unwrap();
        assert_eq!(n, 5.0);
        let numbers: Vec<f64> = question
            .split(|c: char| !c.is_ascii_digit() && c != '.')
            .filter_map(|w| w.trim_matches('.').parse().ok())
            .collect();
        assert!(!numbers.contains(&n), "{question}: {numbers:?}");
        // nor does its picture: until the answer, the maps are the scores before the mask
        // (the masked maps and the weights hatch the blocked cells), and the answer reveals
        // the masked scores
        assert!(!matches!(step.focus, S::Masked | S::Weights), "{:?}", step.focus);
        assert_eq!(quiz.reveal, Some(S::Masked));
        let scaled = t.step(step.focus).unwrap().matrix(0, 0).unwrap();
        assert!(scaled.row(SIX).iter().all(|v| v.is_finite()), "no fill in the row asked about");
    }
}
