//! The lesson "Induction heads": two layers of attention that continue a repeated
//! sequence. The model is trained natively, not in the browser: `assets/induction-run.json`
//! is the engine's [`history`] of [`CONFIG`] (the Learn view's induction preset, 600
//! steps), rounded to [`PLACES`] decimals, and a test holds the file equal to a fresh run
//! (`UPDATE_FIRST_SCREEN=1 cargo test --lib first_screen` rewrites it). Every sentence is
//! written from that file: the probe sequence, the trained heads' weights, the loss with a
//! head switched off, and the step at which each head formed
//! ([`halfway_formation`]). Training gives the same numbers to the bit in wasm
//! (`attention_engine::train::ops`), so the Learn view's preset trains this very run; a
//! browser test (`e2e/tests/learn.test.mjs`) holds its step-600 losses equal to the file's.
//!
//! In the browser the file is fetched when the lesson first needs it
//! (`ui::lesson::induction_run`), not built into the page's wasm; natively (tests, the
//! build-time lesson words) it is read from the source tree.
//!
//! The engine numbers its layers from 0; the page, as the Learn view does, from 1.

use std::sync::OnceLock;

use attention_engine::train::history::{halfway_formation, HeadScores, History};
use attention_engine::train::TrainConfig;

use super::quiz::{Quiz, QuizKind};
use super::{base, num, Aside, Extra, Lesson, LessonStep};
use crate::engine::{StepName as S, Trace};

/// The run the lesson shows, which is also the Learn view's induction preset
/// (`?learn=induction`) and its step budget.
pub const CONFIG: &str = r#"{"task": "induction", "vocab": 32, "T": 20, "batch": 16, "seed": 7, "steps": 600,
 "d_model": 16, "n_heads": 1, "n_layers": 2, "positions": "learned", "causal": true,
 "optimizer": {"kind": "adam", "lr": 0.01}}"#;

/// Checkpoints every this many steps.
pub const EVERY: usize = 10;

/// Probe sequences the heads are measured on (the Learn view's probe).
pub const PROBE: usize = 8;

/// Decimals the file keeps.
pub const PLACES: i32 = 3;

/// The file, read natively (the page fetches it).
#[cfg(not(target_arch = "wasm32"))]
const FILE: &str = include_str!("../../assets/induction-run.json");

/// The recorded run's sequence as letters ([`letters`]): the lesson's scenario, known
/// before the page has fetched the file (a test holds it equal to the file's).
const SENTENCE: &str = "A B C D E F A B C D E F A B C D E F A B";

/// [`CONFIG`] as the engine reads it (`None` if it does not parse: a test holds it does).
pub fn config() -> Option<&'static TrainConfig> {
    static CONFIG_READ: OnceLock<Option<TrainConfig>> = OnceLock::new();
    CONFIG_READ.get_or_init(|| TrainConfig::from_json(CONFIG).ok()).as_ref()
}

/// The recorded run, from [`FILE`]; `None` if it does not parse (a test holds it does).
#[cfg(not(target_arch = "wasm32"))]
pub fn run() -> Option<&'static History> {
    static RUN: OnceLock<Option<History>> = OnceLock::new();
    RUN.get_or_init(|| serde_json::from_str(FILE).ok()).as_ref()
}

/// The recorded run, once the page has fetched it (`None` until then, or if it failed):
/// a reactive read, so the words and figures that call it are drawn again when it comes.
#[cfg(target_arch = "wasm32")]
pub fn run() -> Option<&'static History> {
    crate::ui::lesson::induction_run::history()
}

/// The run as the engine trains it now, rounded as the file keeps it (tests only: the page
/// reads the file, so the trainer is not linked into it).
#[cfg(test)]
pub fn fresh_run() -> Option<History> {
    attention_engine::train::history::history(config()?, EVERY, PROBE).ok().map(|h| h.rounded(PLACES))
}

/// The words when the file is missing or broken.
#[cfg(not(target_arch = "wasm32"))]
fn no_run() -> String {
    "The recorded training run is missing from this build, so this lesson has nothing to show. \
     Open the Learn tab to train the model yourself."
        .into()
}

/// The words while the page fetches the file, or why it could not.
#[cfg(target_arch = "wasm32")]
fn no_run() -> String {
    crate::ui::lesson::induction_run::missing()
}

/// The pictures of this lesson: what [`Extra::Induction`] draws from the recorded run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Figure {
    /// Probe sequence 0 as letters, the scored positions marked.
    Sequence,
    /// The trained heads' attention on probe sequence 0, layer 1 then layer 2.
    Heads,
    /// The training loss and accuracy of every step, the formation of layer 2's head marked.
    Curve,
}

/// Token `id`'s letter in the sequence `tokens`: A for its first distinct token id, B for
/// the second… up to Z; `#id` for an id that is not in it (or past Z).
pub fn letter_in(tokens: &[usize], id: usize) -> String {
    let mut seen: Vec<usize> = Vec::new();
    for &x in tokens {
        if !seen.contains(&x) {
            seen.push(x);
        }
    }
    seen.iter()
        .position(|&x| x == id)
        .filter(|&i| i < 26)
        .and_then(|i| char::from_u32('A' as u32 + i as u32))
        .map_or_else(|| format!("#{id}"), String::from)
}

/// Token `id`'s letter in the recorded run's sequence ([`letter_in`]).
pub fn letter(h: &History, id: usize) -> String {
    letter_in(&h.tokens, id)
}

/// The sequence as letters, space-separated.
pub fn letters(h: &History) -> String {
    h.tokens.iter().map(|&x| letter(h, x)).collect::<Vec<_>>().join(" ")
}

/// A map's axis labels for the sequence `tokens`: each position and its letter ("3 D"),
/// as the sequence figure numbers them.
pub fn axis_labels(tokens: &[usize]) -> Vec<String> {
    tokens.iter().enumerate().map(|(i, &x)| format!("{i} {}", letter_in(tokens, x))).collect()
}

/// The sequence's period: the first position whose token occurred before.
pub fn period(h: &History) -> Option<usize> {
    (1..h.tokens.len()).find(|&i| h.tokens.get(..i).is_some_and(|s| s.contains(&h.tokens[i])))
}

/// Layer `layer`'s (from 0) head weight from query `i` on key `j`, probe sequence 0.
pub fn weight(h: &History, layer: usize, i: usize, j: usize) -> f64 {
    let t = h.tokens.len();
    h.attention.get(layer).and_then(|a| a.get(i * t + j)).copied().unwrap_or(f64::NAN)
}

/// The key with the most of query `i`'s weight in layer `layer`.
pub fn top_key(h: &History, layer: usize, i: usize) -> Option<usize> {
    (0..=i).max_by(|&a, &b| weight(h, layer, i, a).total_cmp(&weight(h, layer, i, b)))
}

/// The question's query: the second occurrence of the sequence's second token (the
/// second "B"), at position `p + 1`. The words of the question and of the heads talk
/// about its row, which the heads' figure magnifies.
pub fn query(h: &History) -> Option<usize> {
    period(h).map(|p| p + 1).filter(|&i| i < h.tokens.len())
}

/// The keys the question offers, in its choices' order: the first B, the token before the
/// second B, the token after the first B (the answer, not the first choice), the second B
/// itself.
fn offered(h: &History) -> Option<[usize; 4]> {
    let i = query(h)?;
    Some([1, i - 1, 2, i])
}

fn sequence_words(_: &Trace) -> String {
    let Some(h) = run() else { return no_run() };
    let p = period(h).unwrap_or(0);
    format!(
        "A model reads a sequence one token at a time and, at every position, predicts the next. Here the \
         tokens are made up, one letter each: {seq}. The first {p} letters are random, then they repeat. From \
         the second A on, the next token can be known: it is whatever followed the same letter the first time. \
         The model below was trained on {steps} batches of such sequences, with two layers of one head each \
         and nothing else: no MLP, no LayerNorm.",
        seq = letters(h),
        steps = h.losses.len(),
    )
}

fn choices(_: &Trace) -> Vec<String> {
    vec![
        "At the first B: the same token".into(),
        "At the A just before it".into(),
        "At the C after the first B".into(),
        "At itself".into(),
    ]
}

fn answer(_: &Trace) -> Option<(usize, String)> {
    let h = run()?;
    let (i, keys) = (query(h)?, offered(h)?);
    let top = top_key(h, 1, i)?;
    let pick = keys.iter().position(|&k| k == top)?;
    let why = format!(
        "Layer 2's head, reading the second B, puts {w} of its weight on the C that followed the first B, and \
         {first} on the first B itself. The C is the answer: after B came C. Yet B and C are different tokens, so \
         the head cannot find C by comparing content with B. It finds C because layer 1 wrote into C's place \
         \"the token before me was B\". Layer 2's query asks for exactly that.",
        w = num(weight(h, 1, i, 2)),
        first = num(weight(h, 1, i, 1)),
    );
    Some((pick, why))
}

/// The last row of layer 1's stripe: the largest `n` such that every query `1..=n` puts
/// its most weight on the key just before it.
pub fn stripe_end(h: &History) -> usize {
    (1..h.tokens.len()).take_while(|&i| top_key(h, 0, i) == Some(i - 1)).last().unwrap_or(0)
}

fn heads_words(_: &Trace) -> String {
    let Some(h) = run() else { return no_run() };
    let Some(i) = query(h) else { return no_run() };
    let n = stripe_end(h);
    let least = (1..=n).map(|i| weight(h, 0, i, i - 1)).fold(f64::INFINITY, f64::min);
    format!(
        "The two trained heads on the sequence. Layer 1's head is a previous-token head where it matters: for \
         the queries at positions 1 to {n}, at least {least} of the weight sits just below the diagonal, on the \
         token before (the second B puts {prev} on the A before it). Past position {n} it spreads out; layer \
         2's picks on this sequence all lie at positions 1 to {n}. Layer 2's head is the induction head: from the second round on, each row's weight sits on a token that came \
         right after an earlier occurrence of the current one (the second B: {ind} on C). Over the {probes} probe \
         sequences, layer 1 puts {s1} of its weight on the previous token and layer 2 {s2} on the induction \
         head's key.",
        least = num(least),
        prev = num(weight(h, 0, i, i - 1)),
        ind = num(weight(h, 1, i, 2)),
        probes = h.probe_sequences,
        s1 = num(last_scores(h, 0).map_or(f64::NAN, |s| s.previous_token)),
        s2 = num(last_scores(h, 1).map_or(f64::NAN, |s| s.induction)),
    )
}

/// Step 2's words in its embed, which draws the zoom on the second B's row (an 800 × 500
/// frame has no room for both 20 × 20 maps with labels that read): what that row shows,
/// every number one of the zoom's.
fn heads_embed_words(_: &Trace) -> String {
    let Some(h) = run() else { return no_run() };
    let Some(i) = query(h) else { return no_run() };
    let label = axis_labels(&h.tokens).get(i).cloned().unwrap_or_default();
    format!(
        "The two trained heads, read on one row: the second B's (query {label}), over the keys it may read. \
         Layer 1's head puts {prev} of its weight on the A just before it: a previous-token head. Layer 2's \
         head puts {ind} on the C that followed the first B, and {first} on that B itself: the induction head, \
         which looks for the token after the current one's earlier occurrence. The full page draws both \
         heads' whole maps.",
        prev = num(weight(h, 0, i, i - 1)),
        ind = num(weight(h, 1, i, 2)),
        first = num(weight(h, 1, i, 1)),
    )
}

/// Layer `layer`'s head scores at the end of the run.
fn last_scores(h: &History, layer: usize) -> Option<HeadScores> {
    h.checkpoints.last().and_then(|c| c.heads.get(layer)).copied()
}

/// Steps 2 and 3's table: the scores of the trained heads.
fn scores_aside(_: &Trace) -> Option<Aside> {
    let h = run()?;
    let row = |layer: usize| {
        let s = last_scores(h, layer)?;
        Some((format!("layer {}", layer + 1), vec![num(s.previous_token), num(s.induction)]))
    };
    Some(Aside {
        caption: format!(
            "Mean weight over the {} probe sequences: on the previous token, and on the token after the current \
             token's earlier occurrence.",
            h.probe_sequences
        ),
        head: vec!["head".into(), "previous token".into(), "after earlier occurrence".into()],
        rows: vec![row(0)?, row(1)?],
    })
}

/// The ablation table: the probe loss and accuracy with each head switched off, and the
/// predictions on the sequence's scored positions.
fn ablation_aside(_: &Trace) -> Option<Aside> {
    let h = run()?;
    let predicted = |p: &[usize]| -> String {
        p.iter()
            .zip(&h.targets)
            .filter(|(_, &t)| t >= 0)
            .map(|(&x, _)| letter(h, x))
            .collect::<Vec<_>>()
            .join(" ")
    };
    let mut rows =
        vec![("none".to_string(), vec![num(h.loss), percent(h.accuracy), predicted(&h.predictions)])];
    for a in &h.ablations {
        rows.push((
            format!("layer {}", a.head.layer + 1),
            vec![num(a.loss), percent(a.accuracy), predicted(&a.predictions)],
        ));
    }
    Some(Aside {
        caption: format!(
            "The probe batch ({} sequences) with a head's output zeroed. The predictions are the sequence's, from \
             the second A on (#n: a token id that is not in the sequence); the right ones are {}.",
            h.probe_sequences,
            predicted(&h.targets.iter().map(|&t| t.max(0) as usize).collect::<Vec<_>>())
        ),
        head: vec!["head off".into(), "loss".into(), "accuracy".into(), "predictions".into()],
        rows,
    })
}

/// A fraction as a whole percentage ("100%").
fn percent(x: f64) -> String {
    format!("{}%", (x * 100.0).round())
}

fn ablation_words(_: &Trace) -> String {
    let Some(h) = run() else { return no_run() };
    let [Some(l1), Some(l2)] = [0, 1].map(|l| h.ablations.iter().find(|a| a.head.layer == l)) else {
        return no_run();
    };
    // each loss against a uniform guess's, ln V, in words true for the run
    let uniform = (h.config.vocab_size() as f64).ln();
    let than = |loss: f64| match loss / uniform {
        r if r > 2.0 => "far worse than",
        r if r > 1.0 => "worse than",
        _ => "better than",
    };
    format!(
        "Take the circuit apart: switch a head off (its output zeroed; the Learn view has the switches). \
         With both heads on, the loss on \
         the probe batch is {loss}, {acc} right. \
         Without layer 2's head the loss is {l2}, {a2} right: predictions turn to noise, {than2} a uniform \
         guess among the {vocab} tokens. Without layer 1's head it is {l1}, {than1} that guess, {a1} right: \
         with no \"previous token\" in the keys, layer 2's head finds the wrong place, confidently. The \
         induction needs both heads.",
        loss = num(h.loss),
        acc = percent(h.accuracy),
        l2 = num(l2.loss),
        a2 = percent(l2.accuracy),
        l1 = num(l1.loss),
        a1 = percent(l1.accuracy),
        vocab = h.config.vocab_size(),
        than2 = than(l2.loss),
        than1 = than(l1.loss),
    )
}

/// Layer `layer`'s head: the score that says it formed (previous token for layer 1,
/// induction for layer 2), and its halfway formation step and line.
pub fn formed(h: &History, layer: usize) -> Option<(usize, f64)> {
    let score: fn(&HeadScores) -> f64 = if layer == 0 { |s| s.previous_token } else { |s| s.induction };
    halfway_formation(&h.scores(layer, score))
}

/// The steps the curve's table samples, besides the last.
const SAMPLED: [usize; 3] = [0, 150, 300];

/// The curve step's table: the probe loss and both scores at sampled checkpoints and at
/// each head's formation.
fn curve_aside(_: &Trace) -> Option<Aside> {
    let h = run()?;
    let marks: Vec<usize> = [0, 1].iter().filter_map(|&l| formed(h, l).map(|f| f.0)).collect();
    let rows = h
        .checkpoints
        .iter()
        .filter(|c| SAMPLED.contains(&c.step) || c.step == h.losses.len() || marks.contains(&c.step))
        .map(|c| {
            let s = |l: usize, f: fn(&HeadScores) -> f64| c.heads.get(l).map_or(f64::NAN, f);
            (
                c.step.to_string(),
                vec![num(c.probe_loss), num(s(0, |s| s.previous_token)), num(s(1, |s| s.induction))],
            )
        })
        .collect();
    let line = |l| formed(h, l).map_or_else(String::new, |(step, line)| format!("{} from {step}", num(line)));
    Some(Aside {
        caption: format!(
            "The probe batch after each row's updates. Layer 1's head stays above {}; layer 2's above {}.",
            line(0),
            line(1)
        ),
        head: vec![
            "updates".into(),
            "probe loss".into(),
            "layer 1: previous".into(),
            "layer 2: induction".into(),
        ],
        rows,
    })
}

fn curve_words(_: &Trace) -> String {
    let Some(h) = run() else { return no_run() };
    let (Some((f1, _)), Some((f2, _))) = (formed(h, 0), formed(h, 1)) else { return no_run() };
    let at = |step: usize| h.checkpoints.iter().find(|c| c.step == step);
    let (Some(c0), Some(c150), Some(c300)) = (at(0), at(150), at(300)) else { return no_run() };
    // what the formation steps say, as they fall in this run
    let during = |f: usize| if f > 150 && f <= 300 { ", during the drop" } else { "" };
    let order = match f1.cmp(&f2) {
        std::cmp::Ordering::Less => "layer 1's came first",
        std::cmp::Ordering::Greater => {
            "layer 2's came first, and layer 1's sharpened after the loss had fallen"
        }
        std::cmp::Ordering::Equal => "both at the same checkpoint",
    };
    format!(
        "For about 150 updates the loss creeps down from {l0} to {l150}. Then it drops, to {l300} after 300 updates, as the heads take \
         shape. Say a head has formed once the weight it puts on its key stays past halfway from its start to its \
         end. Measured every {every} updates, layer 2's induction head had formed by {f2}{d2}; layer 1's \
         previous-token head by {f1}{d1}. By this measure {order}.",
        l0 = num(c0.probe_loss),
        l150 = num(c150.probe_loss),
        l300 = num(c300.probe_loss),
        d2 = during(f2),
        d1 = during(f1),
        every = h.checkpoints.get(1).map_or(0, |c| c.step),
    )
}

/// A lesson step on the sequence's letters as the scenario (its trace feeds no words: the
/// lesson's numbers are the recorded run's).
fn step(title: &'static str, narrate: fn(&Trace) -> String, figure: Figure) -> LessonStep {
    LessonStep::new(title, base(&[SENTENCE], 4, 1), S::Weights, narrate).extra(Extra::Induction(figure))
}

/// The lesson.
pub fn lesson() -> Lesson {
    Lesson {
        id: "induction",
        title: "Induction heads",
        seeds: "Olsson et al. 2022",
        steps: vec![
            step("A sequence that repeats", sequence_words, Figure::Sequence).quiz(Quiz {
                question: |_| {
                    "Layer 2's head reads the second B. Where will it put most of its weight?".into()
                },
                kind: QuizKind::Choice { choices, answer },
                reveal: None,
                reveal_extra: Some(Extra::Induction(Figure::Heads)),
            }),
            step("Two heads, one circuit", heads_words, Figure::Heads)
                .aside(scores_aside)
                .embed_words(heads_embed_words),
            // the embed's zoom is the heads' weights; the losses the words quote, beside it
            step("Switch a head off", ablation_words, Figure::Heads)
                .aside(ablation_aside)
                .embed_aside(ablation_aside),
            step("The drop", curve_words, Figure::Curve).aside(curve_aside),
        ],
    }
}

/// The numbers a figure shows, as the page writes them: the heads' weights (two decimals).
pub fn figure_numbers(figure: Figure) -> Vec<String> {
    match (figure, run()) {
        (Figure::Heads, Some(h)) => h.attention.iter().flatten().map(|w| num(*w)).collect(),
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `assets/induction-run.json` is a fresh run of [`CONFIG`], rounded: training is
    /// seeded and deterministic, so the lesson shows what the engine trains. With
    /// `UPDATE_FIRST_SCREEN` set, writes it first.
    #[test]
    fn first_screen_induction_run_is_the_engines() {
        assert_eq!(letters(run().expect("the file parses")), SENTENCE);
        let fresh = fresh_run().expect("the lesson's configuration trains");
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/induction-run.json");
        if std::env::var_os("UPDATE_FIRST_SCREEN").is_some() {
            std::fs::write(&path, serde_json::to_string(&fresh).unwrap()).unwrap();
        }
        let file: History = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        assert!(
            file == fresh,
            "assets/induction-run.json is stale: run UPDATE_FIRST_SCREEN=1 cargo test --lib first_screen"
        );
    }

    /// Every picture is the recorded run's, so the page shows no explorer under the lesson
    /// (its one-layer scenario over the letters is not the model the lesson is about).
    #[test]
    fn the_lesson_hides_the_explorer() {
        assert!(!lesson().shows_scenario());
        assert!(crate::lessons::lessons().iter().filter(|l| l.id != "induction").all(Lesson::shows_scenario));
    }

    /// What the words say holds for the recorded run.
    #[test]
    fn the_recorded_run_tells_the_story() {
        let h = run().unwrap();
        assert_eq!(letters(h), "A B C D E F A B C D E F A B C D E F A B");
        let i = query(h).unwrap();
        assert_eq!(i, 7);
        // the induction head reads the C after the first B; the previous-token head the A
        assert_eq!(top_key(h, 1, i), Some(2));
        assert_eq!(top_key(h, 0, i), Some(i - 1));
        // "from most positions" layer 1's weight is on the previous token; from the second
        // round on, layer 2's on the token after the earlier occurrence
        let t = h.tokens.len();
        let previous = (1..t).filter(|&i| top_key(h, 0, i) == Some(i - 1)).count();
        assert!(2 * previous > t - 1, "{previous} of {}", t - 1);
        let (p, n) = (period(h).unwrap(), stripe_end(h));
        assert_eq!(n, 9);
        assert!((n + 1..t).all(|i| weight(h, 0, i, i - 1) < 0.5));
        for i in p..t {
            // layer 2's pick follows an earlier occurrence, inside layer 1's stripe
            let j = top_key(h, 1, i).unwrap();
            assert!(j >= 1 && j <= n && j < i && h.tokens[j - 1] == h.tokens[i], "{i} → {j}");
        }
        // the C after the first B, the third choice
        assert_eq!(answer(&lesson().trace(0)).unwrap().0, 2);
        assert_eq!(choices(&lesson().trace(0))[2], "At the C after the first B");
        // both ablations raise the loss, layer 1's the most
        let (l1, l2) = (&h.ablations[0], &h.ablations[1]);
        assert!(l2.loss > h.loss + 3.0 && l1.loss > l2.loss);
        assert!(l1.loss > 32f64.ln());
        // the heads form during the drop: layer 2 first, then layer 1
        let (f1, f2) = (formed(h, 0).unwrap().0, formed(h, 1).unwrap().0);
        assert!(150 < f2 && f2 < f1 && f1 < 600, "{f1} {f2}");
        let loss = |s: usize| h.checkpoints.iter().find(|c| c.step == s).unwrap().probe_loss;
        assert!(loss(150) > 2.5 && loss(300) < 0.5 && loss(0) > loss(150));
        assert_eq!(h.accuracy, 1.0);
    }

    /// Step 2's embed draws the zoom on the second B's row, so its words talk about that
    /// row only: no whole-map claim (the diagonal, the positions past the stripe), and
    /// every number in them is one of the zoom's weights, as the page writes them.
    #[test]
    fn the_heads_embed_words_describe_the_zoom() {
        let h = run().unwrap();
        let lesson = lesson();
        let t = lesson.trace(1);
        let embedded = lesson.steps[1].embed_text(&t);
        assert!(
            embedded.starts_with("The two trained heads, read on one row: the second B's (query 7 B)"),
            "{embedded}"
        );
        for whole in ["diagonal", "Past position", "probe sequences"] {
            assert!(!embedded.contains(whole), "{whole}: {embedded}");
        }
        let zoom: Vec<String> = (0..2).flat_map(|l| (0..=7).map(move |k| num(weight(h, l, 7, k)))).collect();
        let numbers: Vec<&str> = embedded
            .split(|c: char| !(c.is_ascii_digit() || c == '.'))
            .filter(|w| w.contains('.') && w.len() > 1)
            .collect();
        assert_eq!(numbers.len(), 3, "{embedded}");
        assert!(numbers.iter().all(|n| zoom.iter().any(|z| z == n)), "{numbers:?} not in {zoom:?}");
        // the page's words are the whole maps' still; the other steps' embeds say the page's
        assert!(lesson.steps[1].words(&t).contains("just below the diagonal"));
        assert_eq!(lesson.steps[2].embed_text(&t), lesson.steps[2].words(&t));
    }

    /// The step count the words quote is the recorded run's, which is CONFIG's; the
    /// vocabulary too; the maps' axes name each position with its letter.
    #[test]
    fn the_words_quote_the_runs_own_counts() {
        let h = run().unwrap();
        let steps = config().unwrap().steps;
        assert_eq!(h.losses.len(), steps);
        assert_eq!(h.config, *config().unwrap());
        let t = lesson().trace(0);
        assert!(sequence_words(&t).contains(&format!("trained on {steps} batches")));
        assert!(ablation_words(&t).contains(&format!("among the {} tokens", h.config.vocab_size())));
        let last = curve_aside(&t).unwrap().rows.into_iter().map(|r| r.0).next_back();
        assert_eq!(last, Some(steps.to_string()));
        let labels = axis_labels(&h.tokens);
        assert_eq!(labels[..4], ["0 A", "1 B", "2 C", "3 D"]);
        assert_eq!(labels[19], "19 B");
        assert_eq!(letter_in(&[5, 9, 5], 9), "B");
        assert_eq!(letter_in(&[5, 9, 5], 7), "#7");
    }
}
